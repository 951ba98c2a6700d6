"""The held-out games: the latest games of an expert, kept out of the casebase for fidelity tests.

``build --exclude-latest F`` and ``holdout --latest F`` read and select games with the same
code (:func:`casebase.builder.collect` and :meth:`~casebase.builder.Collection.decide`), so
the games written here are exactly the ones the casebase left out.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from casebase.builder import collect
from casebase.games import HELD_OUT, BuildError, GameFilter
from common.files import atomic_file


def held_out_games(
    paths: Sequence[str | os.PathLike[str]],
    selection: GameFilter,
    *,
    workers: int | None = None,
    progress: bool | None = None,
    kept: bool = False,
) -> list[str]:
    """The PGN text of each game ``build`` with ``selection`` would exclude, in file order
    (``kept``: each game it keeps instead, the games its cases come from)."""
    if not selection.exclude_latest:
        raise BuildError("give the fraction of latest games to hold out (--latest, above 0)")
    collection = collect(paths, selection, workers=workers, progress=progress)
    collection.check_found()
    texts = [
        collection.game_text(number, game)
        for (number, game), decision in zip(collection.games, collection.decide())
        if (decision is None if kept else decision == HELD_OUT)
    ]
    if not texts:
        raise BuildError(
            f"{selection.exclude_latest:g} of {len(collection.games)} games of"
            f" {selection.expert!r} {'holds every game out' if kept else 'rounds to no game'};"
            " nothing written"
        )
    return texts


def write_pgn(path: str | os.PathLike[str], games: Sequence[str]) -> None:
    """Write ``games`` (PGN texts) to ``path`` atomically, one blank line between games."""
    with atomic_file(path) as f:
        f.write(("\n\n".join(games) + "\n").encode("utf-8"))
