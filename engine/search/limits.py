"""Time management: what a UCI ``go`` may ask for, and how much of it one search gets (search.md
§4).

:func:`checked_limits` turns a ``go``'s numbers into limits a search can honour (no depth
below 1, no time beyond what a float holds); :func:`search_budget` turns those limits into the
search's own: a depth, a node count, a hard time limit and a soft one after which no new
iteration starts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import chess
import chess.engine

#: Nodes searched when ``go`` names no limit at all (about a second).
DEFAULT_NODES = 20_000
#: Share of the clock budget after which no new iteration starts (it would rarely finish).
SOFT_SHARE = 0.5
#: The largest number a ``go`` limit keeps (about 31,700 years in milliseconds): larger ones
#: are clamped, so that no conversion to seconds overflows.
LIMIT_MAX = 10**15
#: Moves to the next time control when the GUI does not say.
DEFAULT_MOVES_TO_GO = 30

_TIMES = ("wtime", "btime", "winc", "binc", "movetime")


@dataclass(frozen=True)
class SearchLimits:
    """What a UCI ``go`` asked for (times in milliseconds); None where it did not say. ``overhead``
    (option ``Move Overhead``) is kept back from every clock budget, for the lag between the
    GUI's clock and ours."""

    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    infinite: bool = False
    ponder: bool = False
    overhead: int = 0


@dataclass(frozen=True)
class Budget:
    """One search's limits, derived from a ``go``'s :class:`SearchLimits` by :func:`search_budget`:
    iterations, nodes, a hard time limit and a soft one (seconds, for the side to move)."""

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    soft_time: float | None = None


#: Where a search the network leads chooses (search.md §10), the alpha-beta that vets its root moves
#: first takes this share of a timed budget, and at most this depth and these nodes of one bounded
#: by depth or nodes.
VET_SHARE, VET_DEPTH, VET_NODES = 0.4, 4, 4_000


def vetting(budget: Budget) -> Budget:
    """The alpha-beta's part of ``budget`` where it vets the root moves of a search the network
    leads: a share of its time, or (no time) a shallow search, reproducible by its depth and
    nodes."""
    if budget.movetime is not None:
        return dataclasses.replace(
            budget,
            nodes=None,
            movetime=VET_SHARE * budget.movetime,
            soft_time=None if budget.soft_time is None else VET_SHARE * budget.soft_time,
        )
    return Budget(
        depth=min(budget.depth or VET_DEPTH, VET_DEPTH),
        nodes=min(budget.nodes or VET_NODES, VET_NODES),
    )


def checked_limits(limits: SearchLimits) -> tuple[SearchLimits, list[str]]:
    """``limits`` made searchable, and what was changed: depth, nodes, mate and movestogo below
    1 are dropped, negative times count as 0, numbers beyond :data:`LIMIT_MAX` are clamped."""
    changes: dict[str, Any] = {}
    problems: list[str] = []
    for name in ("depth", "nodes", "mate", "movestogo", *_TIMES):
        value = getattr(limits, name)
        if value is None:
            continue
        if value > LIMIT_MAX:
            changes[name] = LIMIT_MAX
            problems.append(f"go {name} {_short(value)} is beyond {LIMIT_MAX}: using {LIMIT_MAX}")
        elif name in _TIMES and value < 0:
            changes[name] = 0
            problems.append(f"go {name} {value} is negative: using 0")
        elif name not in _TIMES and value < 1:
            changes[name] = None
            problems.append(f"go {name} {value} is below 1: ignored")
    return dataclasses.replace(limits, **changes), problems


def _short(value: int) -> str:
    text = str(value)
    return text if len(text) <= 20 else f"{text[:8]}...({len(text)} digits)"


def time_budget(remaining_ms: int, increment_ms: int = 0, movestogo: int | None = None) -> float:
    """Seconds for one move on the clock (search.md §4).

    ``remaining / (movestogo + 2) + 0.8 * increment``, with ``movestogo`` the moves to the
    next time control when the GUI says, else 30; never more than a third of what remains.
    """
    togo = DEFAULT_MOVES_TO_GO if movestogo is None else max(movestogo, 1)
    remaining = max(remaining_ms, 0)
    budget = remaining / (togo + 2) + 0.8 * max(increment_ms, 0)
    return min(budget, remaining / 3) / 1000


def search_budget(
    limits: SearchLimits | None, turn: chess.Color, spent: float, default: int = DEFAULT_NODES
) -> Budget:
    """The search's limits for a ``go`` with ``limits`` (search.md §4); ``spent`` seconds are gone
    already (the proposal's), and the move overhead is kept back from any time limit. ``go mate N``
    searches ``2N - 1`` plies at most; a ``go`` without limits, ``default`` nodes (about a second of
    the search's: the alpha-beta's, or the visits of one the network leads)."""
    if limits is None:
        return Budget(nodes=default)
    depth = limits.depth
    if limits.mate is not None:
        mate_depth = 2 * limits.mate - 1
        depth = mate_depth if depth is None else min(depth, mate_depth)
    if limits.infinite:
        return Budget(depth=depth, nodes=limits.nodes)
    remaining = limits.wtime if turn else limits.btime
    spent += limits.overhead / 1000
    if limits.movetime is not None:
        return Budget(
            depth=depth, nodes=limits.nodes, movetime=max(limits.movetime / 1000 - spent, 0.0)
        )
    if remaining is not None:
        increment = (limits.winc if turn else limits.binc) or 0
        budget = max(time_budget(remaining, increment, limits.movestogo) - spent, 0.0)
        return Budget(
            depth=depth, nodes=limits.nodes, movetime=budget, soft_time=SOFT_SHARE * budget
        )
    if depth is None and limits.nodes is None:
        return Budget(nodes=default)
    return Budget(depth=depth, nodes=limits.nodes)


def on_clock(limits: SearchLimits, turn: chess.Color) -> tuple[int, int] | None:
    """The time left and the increment (milliseconds) of the side to move where the ``go`` gives the
    clock alone; None where it says more than the clock (``depth``, ``nodes``, ``mate``,
    ``movetime``, ``infinite``, ``ponder``: a test's, an analysis's) or has no clock for that
    side."""
    remaining = limits.wtime if turn else limits.btime
    if remaining is None or any(
        (
            limits.movetime is not None,
            limits.depth,
            limits.nodes,
            limits.mate,
            limits.infinite,
            limits.ponder,
        )
    ):
        return None
    return remaining, (limits.winc if turn else limits.binc) or 0


def pondering(limits: SearchLimits) -> SearchLimits:
    """What a search gets for ``go ponder`` (search.md §4): with a clock, no time limit at all, for
    the clock only starts at ``ponderhit``; its depth and node limits stay."""
    timed = any(t is not None for t in (limits.wtime, limits.btime, limits.movetime))
    return dataclasses.replace(
        limits,
        wtime=None,
        btime=None,
        winc=None,
        binc=None,
        movetime=None,
        movestogo=None,
        infinite=limits.infinite or timed,
    )


def after_ponderhit(limits: SearchLimits, turn: chess.Color) -> float | None:
    """The seconds a pondering search may go on after ``ponderhit``: the ``go``'s clock budget,
    counted from then (None when the ``go`` named no time)."""
    return search_budget(dataclasses.replace(limits, ponder=False), turn, 0.0).movetime


def to_limit(limits: SearchLimits) -> chess.engine.Limit:
    """The python-chess limit of a ``go`` with ``limits`` (milliseconds): the one conversion, for
    every outside engine driven (``infinite`` and ``ponder`` have no place in it)."""

    def seconds(ms: int | None) -> float | None:
        return None if ms is None else ms / 1000

    return chess.engine.Limit(
        white_clock=seconds(limits.wtime),
        black_clock=seconds(limits.btime),
        white_inc=seconds(limits.winc),
        black_inc=seconds(limits.binc),
        remaining_moves=limits.movestogo,
        time=seconds(limits.movetime),
        depth=limits.depth,
        nodes=limits.nodes,
    )
