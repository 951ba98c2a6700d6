"""Helpers every layer uses: atomic files, command-line argument types, clipping echoed text,
paths."""
