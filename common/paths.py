"""Where the project's shipped and built files live: beside the packages, in the source tree."""

from __future__ import annotations

from pathlib import Path

#: The folder that holds the packages, ``models/``, ``casebases/`` and ``tables/``.
PROJECT_ROOT = Path(__file__).resolve().parent.parent
