"""The candidates' scores at shallow depths, from the judge itself: what is seen at once against
what needs thought, features of the chooser (issue #40; search.md, "The chooser").

One search of the candidates alone (``root_moves``, a line each) a depth, in a game of their own:
the judge's hash is cleared first, as it was for the chooser's records (a hash full of the judge's
own deeper search would show the shallow search what only thought finds). All or nothing: stop, the
end of the time given, or a search short of its depth or of a candidate gives no scores at all
(:class:`Unscored` says which); the judge's faults are its
:class:`~engine.outside.judge.JudgeError`.

:func:`searched_scores` is the same search by a python-chess engine (no clock, no stop), for the
chooser's records (:mod:`learn.chooser.data`, :mod:`learn.chooser.convert`), so that what the
chooser is fitted on is what it sees at play time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import chess
import chess.engine

from engine.outside.judge import Judge
from engine.search.limits import SearchLimits, to_limit
from engine.search.scores import from_pov_score

#: The least time (seconds) worth starting a shallow search in: less is no time at all.
LEAST_SECONDS = 0.01


class Unscored(Exception):
    """The shallow searches were not done: stop came, the time given ran out, or the judge left a
    candidate unscored; the message says which."""


def shallow_scores(
    judge: Judge,
    board: chess.Board,
    moves: Sequence[chess.Move],
    depths: Sequence[int],
    seconds: float | None,
    stop: threading.Event | None = None,
) -> dict[int, list[int]]:
    """Each of ``moves`` (legal on ``board``) scored by ``judge`` at each of ``depths``, in
    centipawns for the side to move (a list a depth, in ``moves``'s order), within ``seconds`` in
    all (None: no limit) unless ``stop`` is set; :class:`Unscored` where they were not done,
    JudgeError on a fault."""
    stop = stop or threading.Event()
    deadline = None if seconds is None else time.monotonic() + seconds
    game, found = object(), {}
    for depth in depths:
        left = None if deadline is None else deadline - time.monotonic()
        if stop.is_set():
            raise Unscored("stop came")
        if left is not None and left < LEAST_SECONDS:
            raise Unscored(f"no time left for depth {depth}")
        limit = to_limit(
            SearchLimits(depth=depth, movetime=None if left is None else round(left * 1000))
        )
        scores = {}
        for info in judge.analyse(board, limit, stop, root_moves=moves, game=game):
            pv, score = info.get("pv") or [], info.get("score")
            if pv and score is not None and int(info.get("depth", 0)) >= depth:
                scores[pv[0]] = from_pov_score(score.relative)
        if any(move not in scores for move in moves):
            if deadline is not None and time.monotonic() >= deadline:
                raise Unscored(f"the time ran out before depth {depth}")
            raise Unscored(
                "stop came"
                if stop.is_set()
                else f"the judge did not score every candidate at depth {depth}"
            )
        found[depth] = [scores[move] for move in moves]
    return found


def searched_scores(
    engine: chess.engine.SimpleEngine,
    board: chess.Board,
    moves: Sequence[chess.Move],
    depths: Sequence[int],
    game: object,
) -> dict[int, list[int]]:
    """Each of ``moves`` (legal on ``board``) scored by ``engine`` at each of ``depths`` as
    :func:`shallow_scores` scores them (one search of them alone a depth, MultiPV their number, in
    the game ``game``: a new one clears the hash, so a score does not depend on what was searched
    before), a list a depth in ``moves``'s order; EngineError where a candidate is left unscored."""
    found = {}
    for depth in depths:
        infos = engine.analyse(
            board,
            to_limit(SearchLimits(depth=depth)),
            multipv=len(moves),
            root_moves=list(moves),
            game=game,
        )
        scores = {
            info["pv"][0]: from_pov_score(info["score"].relative)
            for info in infos
            if info.get("pv") and info.get("score") is not None
        }
        lost = [move.uci() for move in moves if move not in scores]
        if lost:
            raise chess.engine.EngineError(
                f"no score at depth {depth} for {', '.join(lost)} in {board.fen()}"
            )
        found[depth] = [scores[move] for move in moves]
    return found
