"""Figures: matplotlib without a display, and PNG files written atomically."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # before pyplot: no display needed
import matplotlib.pyplot as plt  # noqa: E402

from common.files import write_atomic  # noqa: E402


def new_figure(width: float, height: float, rows: int = 1, columns: int = 1) -> tuple[Any, Any]:
    """A figure of ``width`` x ``height`` inches and its axes (a grid of ``rows`` x ``columns``)."""
    return plt.subplots(rows, columns, figsize=(width, height), dpi=110)


def save_png(figure: Any, path: Path) -> None:
    """Lay out ``figure``, write it to ``path`` as PNG atomically, and free it."""
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    write_atomic(path, buffer.getvalue())
