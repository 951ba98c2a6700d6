"""The figures of several runs of the calibrated round robin side by side: per engine the mean and
spread (min..max, standard deviation) of its score, Elo and intrinsic readings, and each run's
Spearman and slope with theirs, as a Markdown table and a plot (``python -m
experiments.calibrated``).

A run directory holds the tournament's ``results.json`` (``python -m tournament report``) and, once
rated, ``intrinsic.json`` (:func:`intrinsic_json`); a run without them is left out and said so.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from common.figures import new_figure, save_png
from experiments.intrinsic_table import Row

#: What each run's rating file is called in its directory.
INTRINSIC = "intrinsic.json"
#: The readings of an engine gathered over the runs, in the table's order, with their headings.
READINGS = {
    "score": "score %",
    "elo": "engine Elo",
    "own": "intrinsic, own games",
    "on_expert": "on the expert's positions (− the expert's)",
    "against": "against the expert's model",
}


@dataclass(frozen=True)
class Spread:
    """One figure over the runs: its mean, standard deviation (None for one run), least and most."""

    mean: float
    sd: float | None
    low: float
    high: float
    runs: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        data = np.asarray(values, dtype=float)
        return cls(
            float(data.mean()),
            float(data.std(ddof=1)) if len(data) > 1 else None,
            float(data.min()),
            float(data.max()),
            len(data),
        )

    def text(self, form: str) -> str:
        """``mean (low..high, sd x)`` with each number in ``form`` (e.g. ``.0f``, ``+.2f``)."""
        if self.runs == 1:
            return format(self.mean, form)
        sd = "" if self.sd is None else f", sd {self.sd:{form.lstrip('+')}}"
        return f"{self.mean:{form}} ({self.low:{form}}..{self.high:{form}}{sd})"


@dataclass
class Run:
    """One run's figures: per engine its readings, and the run's Spearman and slope."""

    name: str
    expert_elo: dict[str, float] = field(default_factory=dict)
    readings: dict[str, dict[str, float]] = field(default_factory=dict)
    spearman: float | None = None
    slope: float | None = None


def intrinsic_json(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """The rows of :func:`experiments.intrinsic.rate_players` as the run keeps them
    (``intrinsic.json``)."""
    return [
        {
            "player": r.player,
            "expert": r.expert_name,
            "note": r.note,
            "moves": r.engine.moves if r.engine else None,
            "own": r.engine.rating if r.engine else None,
            "expert_rating": r.expert.rating if r.expert else None,
            "on_expert": r.common.rating if r.common else None,
            "against": r.against[0] if r.against else None,
        }
        for r in rows
    ]


def read_run(directory: Path) -> Run | None:
    """A run's figures, or None where its tournament has no report yet."""
    results = directory / "results.json"
    if not results.exists():
        return None
    report = json.loads(results.read_text(encoding="utf-8"))
    config = report["configurations"][0]
    run = Run(directory.name, spearman=config["spearman"], slope=config["slope"])
    for player in report["players"]:
        if not player["engine"] and player["elo"] is not None:
            run.expert_elo[player["id"]] = float(player["elo"])
    for rating in config["ratings"]:
        run.readings[rating["player"]] = {
            "score": 100 * rating["points"] / rating["games"],
            "elo": rating["rating"],
        }
    rated = directory / INTRINSIC
    for row in json.loads(rated.read_text(encoding="utf-8")) if rated.exists() else []:
        figures = run.readings.setdefault(row["player"], {})
        for key in ("own", "against"):
            if row[key] is not None:
                figures[key] = row[key]
        if row["on_expert"] is not None and row["expert_rating"] is not None:
            figures["on_expert"] = row["on_expert"] - row["expert_rating"]
    return run


def spreads(runs: Sequence[Run]) -> dict[str, dict[str, Spread]]:
    """Per engine (in the first run's order), each reading's spread over the runs that have it."""
    engines = list(dict.fromkeys(player for run in runs for player in run.readings))
    return {
        engine: {
            key: Spread.of(values)
            for key in READINGS
            if (
                values := [
                    run.readings[engine][key] for run in runs if key in run.readings.get(engine, {})
                ]
            )
        }
        for engine in engines
    }


def _cell(spread: Spread | None, form: str) -> str:
    return "" if spread is None else spread.text(form)


def markdown(runs: Sequence[Run]) -> str:
    """The table over the runs, then each run's Spearman and slope and their spread."""
    if not runs:
        return "No run has a report yet."
    experts = {engine: elo for run in runs for engine, elo in run.expert_elo.items()}
    forms = {"score": ".1f", "elo": ".0f", "own": ".0f", "on_expert": "+.0f", "against": "+.0f"}
    lines = [
        f"Over {len(runs)} run{'s' if len(runs) > 1 else ''} ({', '.join(r.name for r in runs)}):"
        " the mean, then least..most and the standard deviation over the runs.",
        "",
        "| engine of | expert's Elo | " + " | ".join(READINGS.values()) + " |",
        "|---|---:|" + "---:|" * len(READINGS),
    ]
    ordered = sorted(spreads(runs).items(), key=lambda item: -experts.get(item[0], -math.inf))
    for engine, figures in ordered:
        elo = experts.get(engine)
        lines.append(
            f"| {engine} | {'' if elo is None else f'{elo:.0f}'} | "
            + " | ".join(_cell(figures.get(key), forms[key]) for key in READINGS)
            + " |"
        )
    lines.append("")
    for name in ("spearman", "slope"):
        values = [(run.name, getattr(run, name)) for run in runs if getattr(run, name) is not None]
        each = ", ".join(f"{run} {value:+.2f}" for run, value in values)
        over = Spread.of([v for _, v in values]).text("+.2f") if values else "n/a"
        lines.append(
            f"- **{name.capitalize()}** of engine Elo against expert's Elo: {over}"
            f" ({each or 'no run gives one'})."
        )
    return "\n".join(lines) + "\n"


def plot(runs: Sequence[Run], path: Path) -> None:
    """Each engine's Elo in every run (small marks) and their mean with least..most, against its
    expert's Elo."""
    experts = {engine: elo for run in runs for engine, elo in run.expert_elo.items()}
    figure, ax = new_figure(6, 5.5)
    for engine, figures in spreads(runs).items():
        if engine not in experts or "elo" not in figures:
            continue
        elo, x = figures["elo"], experts[engine]
        ax.scatter(
            [x] * elo.runs,
            [run.readings[engine]["elo"] for run in runs if "elo" in run.readings.get(engine, {})],
            s=10,
            color="grey",
            alpha=0.6,
        )
        ax.errorbar(
            [x], [elo.mean], yerr=[[elo.mean - elo.low], [elo.high - elo.mean]], fmt="o", capsize=3
        )
        ax.annotate(engine, (x, elo.mean), textcoords="offset points", xytext=(5, 5), fontsize=8)
    values = list(experts.values()) or [2000.0, 3000.0]
    low, high = min(values) - 150, max(values) + 150
    ax.plot([low, high], [low, high], color="grey", linestyle="--", label="y = x")
    ax.set_xlabel("the expert's Elo")
    ax.set_ylabel("the engine's Elo in the round robin")
    ax.set_title(f"The calibrated round robin over {len(runs)} runs (mean, least..most)")
    ax.legend(loc="upper left")
    save_png(figure, path)
