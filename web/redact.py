"""No path of this machine goes to the page: every absolute path in the text the server sends (the
engine's lines, its record's notes, error messages, the judge's command) is cut to its file name, so
that a casebase or a model is named as the page names it (``kosteniuk-2200.npz``, ``stockfish``)."""

from __future__ import annotations

import re
from typing import Any

#: An absolute path (``/x/y``, ``~/x``): not one inside a word, a URL (``https://…``), a FEN
#: (``8/8``) or a fraction (``256/256``); it ends at a space, a quote, a bracket, ``,`` or ``;``.
_PART = r"[^\s/;,()\[\]{}'\"<>]"
ABSOLUTE = re.compile(rf"(?<![\w.:/\\~-])~?/(?:{_PART}+/)*({_PART}+)")


def redact(value: Any) -> Any:
    """``value`` (a JSON value: text, lists, objects) with every absolute path cut to its file
    name."""
    if isinstance(value, str):
        return ABSOLUTE.sub(r"\1", value)
    if isinstance(value, dict):
        return {key: redact(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    return value
