"""Repeating a user's text in a message, cut to a sensible length."""

from __future__ import annotations

#: How much of a user's text an error message repeats.
ECHO_LIMIT = 200


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters (with a note of the length) for repeating it."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
