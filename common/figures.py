"""Figures: matplotlib without a display, and PNG files written atomically.

matplotlib is the optional extra ``plots`` (``make demo`` and ``make test`` install it): a user
who only plays the engine never needs it, so it is imported when the first figure is made, and
its absence is a clear :class:`FiguresUnavailable`.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from common.files import write_atomic


class FiguresUnavailable(RuntimeError):
    """matplotlib is not installed: the message says how to install it."""


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise FiguresUnavailable(
            "pictures need matplotlib, the extra 'plots': pip install 'cbr-chess[plots]'"
        ) from None
    matplotlib.use("Agg")  # before pyplot: no display needed
    import matplotlib.pyplot as plt

    return plt


def new_figure(width: float, height: float, rows: int = 1, columns: int = 1) -> tuple[Any, Any]:
    """A figure of ``width`` x ``height`` inches and its axes (a grid of ``rows`` x ``columns``)."""
    return _pyplot().subplots(rows, columns, figsize=(width, height), dpi=110)


def save_png(figure: Any, path: Path) -> None:
    """Lay out ``figure``, write it to ``path`` as PNG atomically, and free it."""
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    _pyplot().close(figure)
    write_atomic(path, buffer.getvalue())
