"""The cross-expert table: each expert's personal model on each expert's held-out games.

For casebases laid out as ``make fidelity`` makes them (``X.npz`` without the held-out games,
``X.pgn`` those games, ``X.model.npz`` the personal model made from ``X.npz``), every personal
model and the generic model name their favourite legal move in the same positions of every
expert's held-out games (``positions`` of each, spread evenly). A personal model that has learnt
its expert should be the best of its expert's column; the diagonal's paired difference from the
generic model says by how much it beats it there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import numpy as np
from tqdm import tqdm

from casebase.format import Casebase
from common.figures import new_figure, save_png
from common.stats import paired
from engine.style.lc0 import is_network, provenance
from engine.style.model import StyleModel, generic_model
from engine.style.personal import personal_choice
from engine.style.planes import encode_board, legal_indices
from fidelity.positions import read_positions, spread


@dataclass
class CrossTable:
    """``hits[m][e]``: whether model ``m`` (0 the generic one, then the experts' personal models in
    the order of ``experts``) names the expert's move in each sampled position of expert ``e``."""

    experts: list[str]
    hits: list[list[np.ndarray]]

    def share(self, model: int, expert: int) -> float:
        return float(self.hits[model][expert].mean())

    def gain(self, expert: int) -> tuple[float, float, float]:
        """Personal minus generic on the expert's own games, with its paired 95 % interval."""
        return paired(self.hits[expert + 1][expert], self.hits[0][expert])

    def diagonal_best(self, expert: int) -> bool:
        """Whether the expert's own personal model is the best personal model of the column."""
        own = self.share(expert + 1, expert)
        return all(own >= self.share(m + 1, expert) for m in range(len(self.experts)))

    def markdown(self) -> str:
        columns = len(self.experts)
        lines = [
            "| model \\ games of | " + " | ".join(self.experts) + " |",
            "|---|" + "---:|" * columns,
        ]
        for m, name in enumerate(["generic", *self.experts]):
            cells = [
                f"**{100 * self.share(m, e):.1f}**"
                if m == e + 1
                else f"{100 * self.share(m, e):.1f}"
                for e in range(columns)
            ]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append(
            "| positions | " + " | ".join(str(len(self.hits[0][e])) for e in range(columns)) + " |"
        )
        gains = [self.gain(e) for e in range(columns)]
        lines.append(
            "| own - generic (95 %) | "
            + " | ".join(
                f"{100 * g:+.1f} ({100 * lo:+.1f}..{100 * hi:+.1f})" for g, lo, hi in gains
            )
            + " |"
        )
        lines.append(
            "| own best of column | "
            + " | ".join("yes" if self.diagonal_best(e) else "no" for e in range(columns))
            + " |"
        )
        mean = sum(g for g, _, _ in gains) / columns
        best = sum(self.diagonal_best(e) for e in range(columns))
        return "\n".join(lines) + (
            f"\n\nMean gain of the own personal model over the generic one: {100 * mean:+.2f}"
            f" points; own model best of its column for {best} of {columns} experts."
        )

    def plot(self, path: Path) -> None:
        """A heat map of each model's top-1 minus the generic model's, per expert's games."""
        columns = len(self.experts)
        delta = np.array(
            [
                [100 * (self.share(m + 1, e) - self.share(0, e)) for e in range(columns)]
                for m in range(columns)
            ]
        )
        figure, axes = new_figure(1.2 * columns + 3, 1.0 * columns + 2)
        bound = max(1.0, float(np.abs(delta).max()))
        image = axes.imshow(delta, cmap="RdBu", vmin=-bound, vmax=bound)
        for m in range(columns):
            for e in range(columns):
                axes.text(
                    e,
                    m,
                    f"{delta[m, e]:+.1f}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    fontweight="bold" if m == e else "normal",
                )
        axes.set_xticks(range(columns), self.experts, rotation=45, ha="right")
        axes.set_yticks(range(columns), [f"{name}'s model" for name in self.experts])
        axes.set_xlabel("held-out games of")
        axes.set_title("Top-1 of each personal model minus the generic model's (points)")
        figure.colorbar(image, ax=axes, shrink=0.8)
        save_png(figure, path)


def cross_table(
    casebases: Sequence[Path], positions: int | None, progress: bool | None = None
) -> CrossTable:
    """The table over ``casebases`` (each with its held-out ``.pgn`` and personal model beside it);
    ValueError naming what is missing."""
    generic = StyleModel.load(generic_model())
    experts, models, samples = [], [generic], []
    for path in casebases:
        casebase = Casebase.load(path)
        choice = personal_choice(casebase)
        if not choice.personal:
            raise ValueError(
                f"{path}: no personal model made from it ({choice.note}); make it with"
                f" python -m learn personalise {path}"
            )
        games = path.with_suffix(".pgn")
        held = read_positions(games, casebase.expert).positions
        samples.append([held[i] for i in spread(len(held), positions)])
        models.append(StyleModel.load(choice.path))
        experts.append(path.stem)
    shared = _shared_blocks(models)
    hits: list[list[np.ndarray]] = [[] for _ in models]
    with tqdm(
        total=sum(map(len, samples)),
        unit="pos",
        desc="cross-expert table",
        disable=progress is False,
    ) as bar:
        for sample in samples:
            boards = [p.board() for p in sample]
            expert_moves = [chess.Move.from_uci(p.expert) for p in sample]
            legal = [legal_indices(b, list(b.legal_moves)) for b in boards]
            target = [legal_indices(b, [m])[0] for b, m in zip(boards, expert_moves)]
            column = [np.zeros(len(sample), dtype=bool) for _ in models]
            for start in range(0, len(sample), 256):
                part = range(start, min(start + 256, len(sample)))
                x = generic.trunk(
                    np.concatenate([encode_board(boards[i], boards[i].turn) for i in part]), shared
                )
                for m, model in enumerate(models):
                    logits = model.logits_after(x, shared)
                    for row, i in enumerate(part):
                        column[m][i] = legal[i][np.argmax(logits[row, legal[i]])] == target[i]
                bar.update(len(part))
            for m in range(len(models)):
                hits[m].append(column[m])
    return CrossTable(experts, hits)


def _shared_blocks(models: Sequence[StyleModel]) -> int:
    """How many first blocks all ``models`` share after their common stem: computed once for all
    of them (a personal model never changes the stem)."""
    arrays = [m.arrays() for m in models]
    first = arrays[0]
    if any(not np.array_equal(a[n], first[n]) for a in arrays for n in ("stem.w", "stem.b")):
        raise ValueError("the personal models were not all made on top of the generic model")
    for i in range(models[0].blocks):
        names = [f"block{i}.conv1.w", f"block{i}.conv1.b", f"block{i}.conv2.w", f"block{i}.conv2.b"]
        if any(not np.array_equal(a[n], first[n]) for a in arrays for n in names):
            return i
    return models[0].blocks


@dataclass(frozen=True)
class Gain:
    """What a personal model says of itself: its expert, games, and top-1 on the latest games."""

    expert: str
    games: int
    cases: int
    epochs: int
    generic_top1: float
    top1: float
    positions: int

    @classmethod
    def of(cls, path: Path) -> Gain:
        """The gain recorded in the personal model, or the expert's own network (its ``.toml``), at
        ``path``; ValueError for a model made for nobody."""
        if is_network(path):
            own = provenance(path).get("personal")
            if not isinstance(own, dict):
                raise ValueError(
                    f"{path}: not an expert's own network (no [personal] in its .toml)"
                )
            return cls(
                own["expert"],
                int(own["games"]),
                int(own["cases"]),
                int(own.get("epochs", 0)),
                float(own["base_top1"]),
                float(own["top1"]),
                int(own.get("validation_positions", 0)),
            )
        info = StyleModel.load(path).personal
        if not info:
            raise ValueError(f"{path}: not a personal model")
        made = info["casebase"]
        return cls(
            info["expert"],
            int(made["games"]),
            int(made["cases"]),
            int(info.get("epochs", 0)),
            float(info["generic_top1"]),
            float(info["top1"]),
            int(info.get("validation_positions", 0)),
        )


def gains_markdown(gains: Sequence[Gain]) -> str:
    """One row per personal model, fewest games first: what personalising gained on the latest
    games."""
    lines = [
        "| expert | games | cases | epochs | latest games' positions | base top-1 | personal"
        " top-1 | gain |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for g in sorted(gains, key=lambda g: g.games):
        lines.append(
            f"| {g.expert} | {g.games} | {g.cases} | {g.epochs} | {g.positions} |"
            f" {100 * g.generic_top1:.1f} % | {100 * g.top1:.1f} % |"
            f" {100 * (g.top1 - g.generic_top1):+.1f} |"
        )
    return "\n".join(lines)


def plot_gains(gains: Sequence[Gain], path: Path) -> None:
    """The gain of each personal model on its expert's latest games against the expert's games."""
    figure, axes = new_figure(8, 5)
    x = [g.games for g in gains]
    y = [100 * (g.top1 - g.generic_top1) for g in gains]
    axes.scatter(x, y)
    for g, gx, gy in zip(gains, x, y):
        axes.annotate(g.expert, (gx, gy), fontsize=8, xytext=(4, 3), textcoords="offset points")
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xscale("log")
    axes.set_xlabel("the expert's games in the casebase (log scale)")
    axes.set_ylabel("top-1 gain over the model it was made from (points)")
    axes.set_title("What personalising gains, on each expert's latest 10 % of games")
    axes.grid(alpha=0.3)
    save_png(figure, path)
