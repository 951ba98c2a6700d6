"""The intrinsic ratings of a round robin's players as :mod:`experiments.intrinsic` shows them: a
row a player (its rating by its own moves, its expert's by the expert's own, the engine's model
read on the expert's positions), the table, and the picture of each engine's rating against its
expert's (``--plot``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from common.figures import new_figure, save_png
from engine.strength.rating import ImpliedRating
from profiling.intrinsic import Intrinsic


@dataclass
class Row:
    """One player: its rating by its moves in the run, and its expert's by the expert's own."""

    player: str
    engine: Intrinsic | None
    expert: Intrinsic | None
    expert_name: str
    note: str = ""
    #: The engine's fitted model read on the expert's own profile positions (Regan's reference-set
    #: reading: the rating its (s, c) would earn where the expert's was earned, so that easier
    #: positions in its own games do not count as skill), with the bootstrap of its moves.
    common: ImpliedRating | None = None
    #: The engine's mean loss in its own positions against what its expert's fitted model expects in
    #: them, as Elo on the line's slope (negative: it loses more), with its 95 % interval (games
    #: resampled).
    against: tuple[float, float, float] | None = None

    @property
    def difference(self) -> float | None:
        return (
            None
            if self.engine is None or self.expert is None
            else self.engine.rating - self.expert.rating
        )


def _interval(r: Intrinsic | None) -> str:
    return "" if r is None else f"{r.rating:.0f} ({r.low:.0f}..{r.high:.0f})"


def table(rows: list[Row]) -> str:
    head = (
        "player",
        "moves",
        "its rating (95 %)",
        "expert",
        "expert's rating (95 %)",
        "positions",
        "difference",
        "on the expert's positions",
        "against the expert's model (95 %)",
    )
    lines = [head]
    for r in rows:
        d, c = r.difference, r.common
        spread = (
            ""
            if r.engine is None or r.expert is None
            else " ±"
            f" {math.hypot(r.engine.high - r.engine.rating, r.expert.high - r.expert.rating):.0f}"
        )
        lines.append(
            (
                r.player,
                str(r.engine.moves) if r.engine else "",
                _interval(r.engine) or r.note,
                r.expert_name,
                _interval(r.expert) or (r.note if r.engine else ""),
                str(r.expert.moves) if r.expert else "",
                "" if d is None else f"{d:+.0f}{spread}",
                ""
                if c is None or r.expert is None
                else f"{c.rating:.0f} ({c.bootstrap_low:.0f}..{c.bootstrap_high:.0f})"
                f" {c.rating - r.expert.rating:+.0f} ±"
                f" {math.hypot(c.bootstrap_high - c.rating, r.expert.high - r.expert.rating):.0f}",
                ""
                if r.against is None
                else f"{r.against[0]:+.0f} ({r.against[1]:+.0f}..{r.against[2]:+.0f})",
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def plot(rows: list[Row], path: Path) -> None:
    """Each engine's rating against its expert's, with the bootstraps' 95 % intervals, its model
    read on the expert's positions (a hollow mark of the same colour), and y = x."""
    pairs = [
        (r.player, r.engine, r.expert, r.common)
        for r in rows
        if r.engine is not None and r.expert is not None
    ]
    figure, ax = new_figure(6, 5.5)
    for i, (name, engine, expert, common) in enumerate(pairs):
        bars = ax.errorbar(
            [expert.rating],
            [engine.rating],
            xerr=[[expert.rating - expert.low], [expert.high - expert.rating]],
            yerr=[[engine.rating - engine.low], [engine.high - engine.rating]],
            fmt="o",
            capsize=3,
        )
        if common is not None:
            ax.errorbar(
                [expert.rating + 8],
                [common.rating],
                yerr=[
                    [common.rating - common.bootstrap_low],
                    [common.bootstrap_high - common.rating],
                ],
                fmt="o",
                markerfacecolor="none",
                capsize=2,
                color=bars.lines[0].get_color(),
                linestyle="none",
                alpha=0.8,
                label="read on the expert's positions" if i == 0 else None,
            )
        ax.annotate(
            name,
            (expert.rating, engine.rating),
            textcoords="offset points",
            xytext=(5, 5 if i % 2 else -12),
            fontsize=8,
        )
    values = [
        v
        for _, e, x, c in pairs
        for v in (e.low, e.high, x.low, x.high, *((c.bootstrap_low, c.bootstrap_high) if c else ()))
    ] or [1500.0, 3000.0]
    low, high = min(values) - 50, max(values) + 50
    ax.plot([low, high], [low, high], color="grey", linestyle="--", label="y = x")
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    ax.set_xlabel("the expert's intrinsic rating (own games, stored profile)")
    ax.set_ylabel("the engine's intrinsic rating (its games in the run)")
    ax.set_title("Intrinsic ratings on the experts' line (95 % bootstrap intervals)")
    ax.legend(loc="upper left")
    save_png(figure, path)
