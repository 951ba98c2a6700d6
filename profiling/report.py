"""The picture of an error profile (``python -m profiling X.npz --report OUT.png``): what a player
preparing against the expert would look at, beside the other profiled casebases of its folder.

matplotlib is the optional extra ``plots``, imported by :mod:`common.figures` only when a picture
is drawn (the engine never needs it); without it :func:`report_figure` says how to install it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from casebase.format import Casebase, CasebaseError
from casebase.phases import PHASES
from common.figures import FiguresUnavailable, new_figure, save_png
from engine.strength.profile import MISTAKE_CP, Profile
from profiling import ProfileError

#: The losses (centipawns) along the distributions' axis.
LOSS_AXIS = np.arange(0, 301, 5)


def profiled_neighbours(casebase: Casebase) -> list[Profile]:
    """The profiles of the casebases in the same folder: this one first, then the others by
    rating."""
    assert casebase.path is not None
    own = Profile.of(casebase)
    if own is None:
        raise ProfileError(
            f"{casebase.path}: no error profile to draw (python -m profiling FILE.npz --judge"
            " PATH makes one)"
        )
    profiles = [own]
    for path in sorted(casebase.path.parent.glob("*.npz")):
        if path.resolve() == casebase.path.resolve():
            continue
        try:
            other = Profile.of(Casebase.load(path))
        except CasebaseError:
            continue  # not a casebase (a model, say) or damaged: not part of the picture
        if other is not None:
            profiles.append(other)
    return profiles[:1] + sorted(profiles[1:], key=lambda p: -(p.casebase.elo or 0))


def draw_report(casebase: Casebase, out: str | os.PathLike[str]) -> None:
    """The picture of :func:`report_figure`, as a PNG file ``out``."""
    save_png(report_figure(casebase), Path(out))


def report_figure(casebase: Casebase) -> Any:
    """The matplotlib figure: loss distributions by phase (the top row), first choices, mistakes and
    implied ratings (the bottom row), of ``casebase`` (red) beside its folder's other profiles."""
    profiles = profiled_neighbours(casebase)
    try:
        fig, axes = new_figure(15, 9, 2, 3)
    except FiguresUnavailable as exc:
        raise ProfileError(str(exc)) from None
    for ax, name in zip(axes[0], PHASES, strict=True):
        for rank, profile in enumerate(profiles):
            lost = profile.cp_loss[profile.phases == name]
            if not len(lost):
                continue
            share = [(lost >= x).mean() * 100 for x in LOSS_AXIS]
            ax.plot(
                LOSS_AXIS,
                share,
                lw=2.5 if rank == 0 else 1,
                color="C3" if rank == 0 else "0.6",
                label=f"{_label(profile)} ({len(lost)})" if rank == 0 else None,
                zorder=3 if rank == 0 else 1,
            )
        ax.set_title(f"{name}: moves losing at least x")
        ax.set_xlabel("loss x (centipawns, judged)")
        ax.set_ylabel("% of moves")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(title="grey: the others", fontsize=8)
    labels = [_label(p) for p in profiles]
    colours = ["C3" if i == 0 else "0.6" for i in range(len(profiles))]
    _bars(
        axes[1][0],
        labels,
        [100 * p.meta["all"]["first_choice"] for p in profiles],
        colours,
        "the judge's first choice (% of moves)",
    )
    _bars(
        axes[1][1],
        labels,
        [100 * p.meta["all"]["mistakes"] for p in profiles],
        colours,
        f"moves losing {MISTAKE_CP} cp or more (%)",
    )
    ax = axes[1][2]
    ratings = [p.meta["rating"] for p in profiles]
    y = np.arange(len(profiles))
    ax.errorbar(
        [r["implied"] for r in ratings],
        y,
        xerr=[
            [r["implied"] - r["low"] for r in ratings],
            [r["high"] - r["implied"] for r in ratings],
        ],
        fmt="none",
        ecolor="0.6",
    )
    ax.scatter([r["implied"] for r in ratings], y, c=colours, zorder=3, label="implied (95 %)")
    ax.scatter(
        [p.casebase.elo or np.nan for p in profiles],
        y,
        marker="x",
        color="k",
        label="own games' median Elo",
    )
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_title("implied rating")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    meta = profiles[0].meta
    fig.suptitle(
        f"Error profile of {casebase.expert}: {meta['positions']} positions judged by"
        f" {meta.get('judge')} at depth {meta.get('depth')}"
    )
    return fig


def _label(profile: Profile) -> str:
    return profile.casebase.expert


def _bars(ax: Any, labels: list[str], values: list[float], colours: list[str], title: str) -> None:
    y = np.arange(len(labels))
    ax.barh(y, values, color=colours)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="x")
