"""The report's picture: estimated strength against the expert's Elo, one point per behaviour."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from common.figures import new_figure, save_png
from tournament.standings import ConfigResult, Player


def plot_strength(results: Sequence[ConfigResult], players: Sequence[Player], path: Path) -> None:
    """Estimate with its 95 % interval against expert Elo, a colour per configuration.

    The diagonal is "estimate = Elo": a casebase that plays as strong as its expert sits on it.
    Reference engines with a given rating are drawn as horizontal lines.
    """
    by_id = {p.id: p for p in players}
    figure, axes = new_figure(10, 6)
    elos = [p.elo for p in players if not p.engine and p.elo is not None]
    # Spread the configurations sideways a little so that their intervals do not overlap.
    spread = (max(elos) - min(elos)) / 60 if len(elos) > 1 else 5
    for k, r in enumerate(results):
        points = [
            (elo, b.estimate)
            for b in r.behaviours
            if not by_id[b.player].engine and (elo := by_id[b.player].elo) is not None
        ]
        if not points:
            continue
        x = [elo + (k - (len(results) - 1) / 2) * spread for elo, _ in points]
        y = [e.rating for _, e in points]
        error = [[e.rating - e.low for _, e in points], [e.high - e.rating for _, e in points]]
        axes.errorbar(x, y, yerr=error, fmt="o", capsize=3, label=r.title)
    for p in players:
        if p.engine and p.elo is not None:
            axes.axhline(p.elo, linestyle=":", color="grey")
            axes.annotate(p.id, (axes.get_xlim()[0], p.elo), fontsize=8, color="grey", va="bottom")
    if elos:
        low, high = min(elos) - 50, max(elos) + 50
        axes.plot(
            [low, high],
            [low, high],
            "--",
            color="black",
            linewidth=0.8,
            label="estimate = expert Elo",
        )
    axes.set_xlabel("expert's Elo (casebase)")
    axes.set_ylabel("estimated Elo of the behaviour (95 % interval)")
    axes.set_title("Does a stronger expert's casebase play stronger?")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    save_png(figure, path)
