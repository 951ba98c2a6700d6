"""The results report of a run (experiment.md §2), rebuilt from its PGN at any time.

Writes, next to results.pgn: report.md (also printed), results.json (everything),
results.csv (one row per behaviour = player × configuration) and strength.png.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from common.figures import FiguresUnavailable
from common.files import write_atomic
from common.stats import slope, spearman
from engine.cbr.configurations import Configuration
from tournament.elo import Estimate, fit_ratings
from tournament.ordering import follows_elo, longest_ordering
from tournament.pgnout import GameResult, read_results
from tournament.plot import plot_strength
from tournament.standings import Behaviour, ConfigResult, Player
from tournament.store import RESULTS, RunDirectory

PLOT = "strength.png"


def rank_players(players: Sequence[Player]) -> list[Player]:
    """Players with ranking indices: casebases by Elo (highest first, unknown last), then
    engines."""
    experts = sorted(
        (p for p in players if not p.engine), key=lambda p: (p.elo is None, -(p.elo or 0), p.id)
    )
    ranked = [Player(p.id, p.name, p.elo, False, k) for k, p in enumerate(experts, start=1)]
    return ranked + sorted((p for p in players if p.engine), key=lambda p: p.id)


def players_of(games: Sequence[GameResult], manifest: dict[str, Any] | None) -> list[Player]:
    """Players from the run's manifest, or else from the PGN tags (all taken for experts)."""
    if manifest is not None:
        found = [
            Player(p["id"], p["name"], p["elo"], p["kind"] == "engine") for p in manifest["players"]
        ]
    else:
        elos: dict[str, int | None] = {}
        for g in games:
            elos.setdefault(g.white, g.white_elo)
            elos.setdefault(g.black, g.black_elo)
        found = [Player(name, name, elo) for name, elo in elos.items()]
    return rank_players(found)


def analyse(games: Sequence[GameResult], players: Sequence[Player]) -> list[ConfigResult]:
    """Per configuration: the thesis's table row, crosstable, Elo estimates, terminations."""
    by_config: dict[int, list[GameResult]] = defaultdict(list)
    for g in games:
        by_config[g.config_number].append(g)
    return [_analyse_config(n, by_config[n], players) for n in sorted(by_config)]


def _analyse_config(
    number: int, games: list[GameResult], players: Sequence[Player]
) -> ConfigResult:
    present = {g.white for g in games} | {g.black for g in games}
    order = [p for p in players if p.id in present]
    points: dict[str, dict[str, float]] = {p.id: defaultdict(float) for p in order}
    played: dict[str, dict[str, int]] = {p.id: defaultdict(int) for p in order}
    for g in games:
        for me, other in ((g.white, g.black), (g.black, g.white)):
            points[me][other] += g.score(me)
            played[me][other] += 1
    experts = [p for p in order if not p.engine]
    beats = np.array(
        [
            [a.id != b.id and points[a.id][b.id] > points[b.id][a.id] for b in experts]
            for a in experts
        ],
        dtype=bool,
    ).reshape(len(experts), len(experts))
    # experts are ranked (rank_players), so each has a ranking index
    ordering = [int(experts[k].rank or 0) for k in longest_ordering(beats)]
    estimates = _fit(games, order)
    behaviours = [
        Behaviour(p.id, sum(played[p.id].values()), sum(points[p.id].values()), e)
        for p, e in zip(order, estimates)
    ]
    rated = [
        (p.elo, e.rating) for p, e in zip(order, estimates) if not p.engine and p.elo is not None
    ]
    return ConfigResult(
        number=number,
        config=Configuration.from_label(games[0].config_label),
        games=len(games),
        time_met=sum(g.time_met for g in games),
        ordering=ordering,
        decisive=sum(g.decisive for g in games),
        points={a: dict(row) for a, row in points.items()},
        played={a: dict(row) for a, row in played.items()},
        behaviours=behaviours,
        spearman=spearman(*zip(*rated)) if rated else None,
        slope=slope(*zip(*rated)) if rated else None,
        terminations=Counter(g.termination for g in games),
    )


def _fit(games: list[GameResult], order: list[Player]) -> list[Estimate]:
    """Rated engines anchor the scale; without one, the experts' mean Elo does."""
    position = {p.id: k for k, p in enumerate(order)}
    results = [(position[g.white], position[g.black], g.score(g.white)) for g in games]
    fixed = {k: float(p.elo) for k, p in enumerate(order) if p.engine and p.elo is not None}
    experts = [k for k, p in enumerate(order) if not p.engine]
    known = [p.elo for p in order if not p.engine and p.elo is not None]
    mean = float(np.mean(known)) if known else 0.0
    return fit_ratings(len(order), results, fixed=fixed, mean_of=experts or None, mean=mean)


def overall_spearman(results: Sequence[ConfigResult], players: Sequence[Player]) -> float | None:
    """Spearman's rho of expert Elo against the estimates, over all behaviours of all
    configurations."""
    elo = {p.id: p.elo for p in players if not p.engine and p.elo is not None}
    pairs = [
        (elo[b.player], b.estimate.rating) for r in results for b in r.behaviours if b.player in elo
    ]
    return spearman(*zip(*pairs)) if pairs else None


# -- output ---------------------------------------------------------------------------------


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _points(x: float) -> str:
    return f"{x:g}"


def _rho(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.2f}"


def markdown(
    results: Sequence[ConfigResult],
    players: Sequence[Player],
    manifest: dict[str, Any] | None,
    plot: str | None,
) -> str:
    """The report as Markdown."""
    by_id = {p.id: p for p in players}
    total = sum(r.games for r in results)
    out = ["# Expert round robin: results", ""]
    if manifest:
        out.append(
            f"{total} games; mode {manifest['mode']}, time control {manifest['time_control']},"
            f" {manifest['rounds']} rounds per ordered pair, master seed {manifest['seed']},"
            f" played {manifest['date']}."
        )
    else:
        out.append(f"{total} games.")
    out += [
        "",
        "## Players",
        "",
        _table(
            ["ranking index", "player", "name", "Elo"],
            [[p.rank or "reference", p.id, p.name, p.elo or "?"] for p in players],
        ),
        "",
    ]
    out += [
        "## The thesis's table",
        "",
        "Longest ordering: each player scored more than the next against each other, written"
        " as ranking indices (1 = highest Elo).",
        "",
        _table(
            [
                "configuration",
                "time requirement met",
                "longest ordering",
                "matches Elo order",
                "% decisive games",
            ],
            [
                [r.title, r.time_text, r.ordering_text, r.matches_text, r.decisive_percent]
                for r in results
            ],
        ),
        "",
    ]
    out += ["## Crosstables", "", "Points of the row's player against the column's.", ""]
    for r in results:
        ids = list(r.points)
        header = ["", *[str(by_id[i].rank or i) for i in ids], "score"]
        rows: list[list[object]] = []
        for a in ids:
            cells = [
                "·" if a == b else _points(r.points[a].get(b, 0)) if b in r.played[a] else ""
                for b in ids
            ]
            games = sum(r.played[a].values())
            rows.append(
                [
                    f"{by_id[a].rank or ''} {a}".strip(),
                    *cells,
                    f"{_points(sum(r.points[a].values()))}/{games}",
                ]
            )
        out += [f"### {r.number}. {r.title}", "", _table(header, rows), ""]
    out += [
        "## Elo estimates",
        "",
        "Maximum likelihood (logistic model, draws as half points, one virtual draw each as a"
        " prior), "
        + (
            "anchored to the reference engines' ratings."
            if any(p.engine and p.elo for p in players)
            else "anchored so that each configuration's mean is the experts' mean Elo."
        ),
        "",
    ]
    rows = [
        [
            r.title,
            b.player,
            by_id[b.player].elo or "?",
            f"{_points(b.points)}/{b.games}",
            round(b.estimate.rating),
            f"{round(b.estimate.low)} .. {round(b.estimate.high)}",
        ]
        for r in results
        for b in r.behaviours
    ]
    out += [
        _table(["configuration", "player", "Elo", "score", "estimate", "95 % interval"], rows),
        "",
    ]
    out += [
        "Spearman rank correlation of expert Elo and estimate: "
        + "; ".join(f"{r.title} {_rho(r.spearman)}" for r in results)
        + f"; all behaviours {_rho(overall_spearman(results, players))}.",
        "Slope of the estimate against expert Elo (1: the players as far apart as their experts): "
        + "; ".join(f"{r.title} {_rho(r.slope)}" for r in results)
        + ".",
        "",
    ]
    kinds = sorted(
        {t for r in results for t in r.terminations},
        key=lambda t: -sum(r.terminations[t] for r in results),
    )
    out += [
        "## Terminations",
        "",
        _table(
            ["configuration", *kinds, "games"],
            [[r.title, *[r.terminations.get(t, 0) for t in kinds], r.games] for r in results],
        ),
        "",
    ]
    if plot:
        out += [f"![estimated strength against expert Elo]({plot})", ""]
    return "\n".join(out)


def to_json(results: Sequence[ConfigResult], players: Sequence[Player]) -> dict[str, Any]:
    return {
        "players": [asdict(p) for p in players],
        "configurations": [
            {
                "number": r.number,
                "name": r.config.name,
                "weights": r.config.label,
                "games": r.games,
                "time_requirement_met": r.time_met == r.games,
                "games_within_time_requirement": r.time_met,
                "longest_ordering": r.ordering,
                "matches_elo_order": follows_elo(r.ordering),
                "decisive_games": r.decisive,
                "decisive_percent": r.decisive_percent,
                "points": r.points,
                "games_played": r.played,
                "ratings": [
                    {"player": b.player, "games": b.games, "points": b.points, **asdict(b.estimate)}
                    for b in r.behaviours
                ],
                "spearman": r.spearman,
                "slope": r.slope,
                "terminations": dict(r.terminations),
            }
            for r in results
        ],
        "spearman_all": overall_spearman(results, players),
    }


def to_csv(results: Sequence[ConfigResult], players: Sequence[Player]) -> str:
    by_id = {p.id: p for p in players}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "config_number",
            "config_name",
            "weights",
            "player",
            "name",
            "kind",
            "ranking_index",
            "elo",
            "games",
            "points",
            "estimate",
            "low",
            "high",
        ]
    )
    for r in results:
        for b in r.behaviours:
            p = by_id[b.player]
            writer.writerow(
                [
                    r.number,
                    r.config.name,
                    r.config.label,
                    p.id,
                    p.name,
                    "engine" if p.engine else "casebase",
                    p.rank or "",
                    p.elo or "",
                    b.games,
                    b.points,
                    f"{b.estimate.rating:.1f}",
                    f"{b.estimate.low:.1f}",
                    f"{b.estimate.high:.1f}",
                ]
            )
    return buffer.getvalue()


def write_report(directory: str | Path) -> str:
    """Rebuild every report file of a run directory from its PGN; return the Markdown.

    Reads results.pgn, or the finished games so far when the run has not completed.
    """
    run = RunDirectory(directory)
    source = run.path / RESULTS
    if source.exists():
        games = list(read_results(source))
    else:
        games = [g for path in sorted(run.games.glob("*.pgn")) for g in read_results(path)]
    if not games:
        raise ValueError(f"{run.path}: no finished game found (no {RESULTS}, no games/*.pgn)")
    manifest = run.manifest()
    players = players_of(games, manifest)
    results = analyse(games, players)
    try:
        plot_strength(results, players, run.path / PLOT)
        plot: str | None = PLOT
    except FiguresUnavailable:  # an engine-only install: the tables without the picture
        plot = None
    text = markdown(results, players, manifest, plot)
    write_atomic(run.path / "report.md", text)
    write_atomic(run.path / "results.json", json.dumps(to_json(results, players), indent=2) + "\n")
    write_atomic(run.path / "results.csv", to_csv(results, players))
    return text
