"""``python -m tournament fidelity|fidelity-summary``: one expert's fidelity run, and the table over experts."""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from common.cli import positive_int
from common.figures import new_figure, save_png
from common.files import write_atomic
from engine.agents import defaults
from engine.style.prior import PRIORS
from tournament.fidelity import (
    DEFAULT_GUIDED_NODES,
    DEFAULT_STOCKFISH,
    FIDELITY_MODES,
    FORMAT,
    Fidelity,
    FidelitySettings,
    measure,
    write_json,
)
from tournament.heldout import PHASES
from tournament.schedule import parse_configurations
from tournament.stats import Z95, Share, wilson


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``fidelity``, ``fidelity-summary``, ``fidelity-compare`` and ``personal-table`` (each
    sets ``handler``: args -> the text to print)."""
    f = commands.add_parser(
        "fidelity", help="how often the engine plays the expert's move in held-out games",
        description="Replay the expert's games the casebase has not seen (python -m casebase"
        " holdout): for every move the expert made, give each mode the position with the"
        " game's history and count how often it plays the expert's move.")
    f.add_argument("--casebase", required=True, type=Path, metavar="X.npz",
                   help="the expert's casebase, built without the games of --games")
    f.add_argument("--games", required=True, type=Path, metavar="HELDOUT.pgn",
                   help="the held-out games (.pgn or .pgn.gz)")
    f.add_argument("--player", metavar="NAME", help="the expert as named in the games"
                   " (default: the casebase's expert), matched as the builder matches it")
    f.add_argument("--exact-name", action="store_true", help="match the name literally")
    f.add_argument("--modes", nargs="+", choices=FIDELITY_MODES, default=list(FIDELITY_MODES),
                   metavar="MODE", help=f"any of {', '.join(FIDELITY_MODES)} (default: all)")
    f.add_argument("--config", default="balanced",
                   help="weights of pure and guided mode: a name or \"v1 v2 v3\" (default balanced)")
    g = f.add_mutually_exclusive_group()
    g.add_argument("--guided-depth", type=positive_int, metavar="D", help="guided search depth")
    g.add_argument("--guided-nodes", type=positive_int, metavar="N",
                   help=f"guided search nodes (default {DEFAULT_GUIDED_NODES})")
    f.add_argument("--stockfish", "--judge", default=DEFAULT_STOCKFISH, metavar="PATH",
                   help=f"the UCI engine of stockfish mode, and the judge of judged mode (default {DEFAULT_STOCKFISH})")
    f.add_argument("--depth", type=positive_int, default=10,
                   help="the depth of stockfish mode and of the judge (default 10)")
    f.add_argument("--tolerance", type=int, default=50, metavar="CP",
                   help="guided mode's Tolerance in centipawns (default 50)")
    f.add_argument("--judge-tolerance", type=int, default=25, metavar="CP",
                   help="judged mode's JudgeTolerance in centipawns (default 25)")
    f.add_argument("--prior", choices=PRIORS, default=defaults.PRIOR,
                   help=f"guided mode's prior, as option Prior (default {defaults.PRIOR})")
    f.add_argument("--model", default=defaults.MODEL, metavar="MODEL.npz",
                   help="the style model of --prior model or blend (default auto: the casebase's personal"
                   " model where there is one, else the generic one; mode generic always plays the generic one)")
    f.add_argument("--case-weight", type=float, default=0.5, metavar="W",
                   help="the cases' weight in the blend where the position is a case (default 0.5)")
    f.add_argument("--positions", type=positive_int, metavar="N",
                   help="play only N of the expert's moves, spread evenly (default: all)")
    f.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    f.add_argument("--workers", type=positive_int, metavar="N", help="worker processes (default: all cores)")
    f.add_argument("--cluster", metavar="ADDRESS",
                   help="play the positions on the Ray cluster at ADDRESS instead (pip install -e '.[cluster]')")
    f.add_argument("--out", type=Path, metavar="FILE.json", help="also write the results as JSON")
    f.set_defaults(handler=_fidelity)

    s = commands.add_parser("fidelity-summary", help="one table (and plot) over fidelity runs")
    s.add_argument("runs", nargs="+", type=Path, metavar="RUN.json")
    s.add_argument("--out", type=Path, metavar="SUMMARY.md", help="write the table here")
    s.add_argument("--plot", type=Path, metavar="PLOT.png",
                   help="the plot (default: --out with .png; none without --out)")
    s.set_defaults(handler=_summary)

    c = commands.add_parser(
        "fidelity-compare", help="paired difference of two modes (or two runs) on the same positions",
        description="Per expert, how many more of the expert's moves mode A plays than mode B on the"
        " same positions, with a paired 95 %% interval. B is read from the --against runs when given"
        " (the same experts, in the same order), else from the runs themselves.")
    c.add_argument("a", choices=FIDELITY_MODES, metavar="A", help="mode of the runs")
    c.add_argument("b", choices=FIDELITY_MODES, metavar="B", help="mode to compare with")
    c.add_argument("runs", nargs="+", type=Path, metavar="RUN.json")
    c.add_argument("--against", nargs="+", type=Path, metavar="RUN.json")
    c.set_defaults(handler=_compare)

    t = commands.add_parser(
        "personal-table", help="each expert's personal model on each expert's held-out games (heat map)",
        description="For casebases laid out as make fidelity makes them (X.npz, its held-out games X.pgn and"
        " its personal model X.model.npz beside it): how often each personal model, and the generic model,"
        " names the expert's move in the same positions of every expert's held-out games.")
    t.add_argument("casebases", nargs="+", type=Path, metavar="X.npz")
    t.add_argument("--positions", type=positive_int, default=1000, metavar="N",
                   help="positions of each expert's held-out games, spread evenly (default 1000)")
    t.add_argument("--out", type=Path, metavar="TABLE.md", help="write the table here, and the heat map beside it (.png)")
    t.set_defaults(handler=_personal_table)

    g = commands.add_parser("personal-gains", help="what each personal model gained on its expert's latest games (plot)")
    g.add_argument("models", nargs="+", type=Path, metavar="MODEL.npz")
    g.add_argument("--out", type=Path, metavar="GAINS.md", help="write the table here, and the plot beside it (.png)")
    g.set_defaults(handler=_personal_gains)


def _fidelity(args: argparse.Namespace) -> str:
    nodes = None if args.guided_depth is not None else args.guided_nodes or DEFAULT_GUIDED_NODES
    settings = FidelitySettings(
        casebase=str(args.casebase), config=parse_configurations([args.config])[0], seed=args.seed,
        guided_depth=args.guided_depth, guided_nodes=nodes, stockfish=args.stockfish,
        stockfish_depth=args.depth, prior=args.prior, model=args.model, case_weight=args.case_weight,
        tolerance=args.tolerance, judge_tolerance=args.judge_tolerance,
    )
    run = measure(args.casebase, args.games, settings, args.modes, player=args.player,
                  exact_name=args.exact_name, positions=args.positions, workers=args.workers,
                  cluster=args.cluster)
    if args.out:
        write_json(args.out, run.as_json())
    return run_markdown(run)


def _summary(args: argparse.Namespace) -> str:
    runs = [load_run(path) for path in args.runs]
    table = summary_markdown(runs)
    if args.out:
        write_atomic(args.out, table + "\n")
        plot_summary(runs, args.plot or args.out.with_suffix(".png"))
    return table


def _compare(args: argparse.Namespace) -> str:
    runs = [load_run(path) for path in args.runs]
    others = [load_run(path) for path in args.against] if args.against else runs
    if len(others) != len(runs):
        raise ValueError(f"{len(runs)} runs but {len(others)} --against runs")
    return compare_markdown(runs, others, args.a, args.b)


def _personal_table(args: argparse.Namespace) -> str:
    from tournament.personal_table import cross_table

    table = cross_table(args.casebases, args.positions)
    text = table.markdown()
    if args.out:
        write_atomic(args.out, text + "\n")
        table.plot(args.out.with_suffix(".png"))
    return text


def _personal_gains(args: argparse.Namespace) -> str:
    from tournament.personal_table import Gain, gains_markdown, plot_gains

    gains = [Gain.of(path) for path in args.models]
    text = gains_markdown(gains)
    if args.out:
        write_atomic(args.out, text + "\n")
        plot_gains(gains, args.out.with_suffix(".png"))
    return text


def paired(a: Sequence[bool], b: Sequence[bool]) -> tuple[float, float, float]:
    """The mean of ``a - b`` over paired trials, with its 95 % interval (normal approximation)."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if not len(d):
        return math.nan, math.nan, math.nan
    half = Z95 * d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else math.inf
    return float(d.mean()), float(d.mean() - half), float(d.mean() + half)


def compare_markdown(runs: Sequence[dict[str, Any]], others: Sequence[dict[str, Any]], a: str, b: str) -> str:
    """Per expert and over all: mode ``a`` of ``runs`` against mode ``b`` of ``others``, paired by position."""
    lines = [f"| expert | positions | A: {a} | B: {b} | A - B (95 % interval) |", "|---|---:|---:|---:|---|"]
    pooled: tuple[list[bool], list[bool]] = ([], [])
    for run, other in zip(runs, others):
        if a not in run["results"] or b not in other["results"]:
            raise ValueError(f"{run['expert']}: the runs hold no {a!r} or no {b!r} results")
        theirs = {p["index"]: p for p in other["positions"]}
        common = [p for p in run["positions"] if p["index"] in theirs]
        if not common or any(theirs[p["index"]]["fen"] != p["fen"] for p in common):
            raise ValueError(f"{run['expert']}: the two runs do not share their positions")
        hit_a = [p["moves"][a] == p["expert"] for p in common]
        hit_b = [theirs[p["index"]]["moves"][b] == p["expert"] for p in common]
        pooled[0].extend(hit_a)
        pooled[1].extend(hit_b)
        lines.append(_compare_row(run["expert"], hit_a, hit_b))
    lines.append(_compare_row("**all**", *pooled))
    return "\n".join(lines)


def _compare_row(name: str, a: Sequence[bool], b: Sequence[bool]) -> str:
    mean, low, high = paired(a, b)
    return (f"| {name} | {len(a)} | {100 * sum(a) / len(a):.1f} % | {100 * sum(b) / len(b):.1f} % |"
            f" {100 * mean:+.1f} ({100 * low:+.1f} .. {100 * high:+.1f}) |")


def run_markdown(run: Fidelity) -> str:
    """The table people read: per mode, the share of the expert's moves played, overall and by phase."""
    counts = Counter(p.phase for p in run.positions)
    elo = f" (Elo {run.elo})" if run.elo else ""
    lines = [
        f"Fidelity to {run.expert}{elo}: {len(run.positions)} of the expert's"
        f" {run.games['positions']} moves in {run.games['expert_games']} games of"
        f" {run.games['path']} (seed {run.settings['seed']})",
        "",
        "| mode | engine | matched | share | 95 % interval | "
        + " | ".join(f"{name} ({counts[name]})" for name in PHASES) + " |",
        "|---|---|---:|---:|---|" + "---:|" * len(PHASES),
    ]
    for r in run.results:
        total = r.share(run.positions)
        low, high = wilson(total.matches, total.positions)
        phases = " | ".join(r.share(run.positions, name).percent() for name in PHASES)
        lines.append(f"| {r.mode} | {r.engine} | {total.matches}/{total.positions} |"
                     f" {total.percent()} | {100 * low:.1f}–{100 * high:.1f} % | {phases} |")
    if run.games["seen_in_casebase"]:
        lines += ["", f"Warning: {run.games['seen_in_casebase']} of these games are in the"
                  " casebase too, so they are not held out."]
    return "\n".join(lines)


def load_run(path: Path) -> dict[str, Any]:
    """A ``fidelity --out`` file; ValueError if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not the output of python -m tournament fidelity --out")
    return data


def _share(result: dict[str, Any] | None) -> Share | None:
    return None if result is None else Share(result["matches"], result["positions"])


def _cell(share: Share | None, interval: bool = True) -> str:
    if share is None:
        return "–"
    if not interval or not share.positions:
        return share.percent().replace(" %", "")
    low, high = share.as_dict()["ci95"]
    return f"{share.percent()} ({100 * low:.0f}–{100 * high:.0f})"


def summary_markdown(runs: Sequence[dict[str, Any]]) -> str:
    """Per expert: Elo, positions, each mode's share with its 95 % interval; then by phase."""
    modes = [m for m in FIDELITY_MODES if any(m in r["results"] for r in runs)]
    lines = [
        "| expert | Elo | positions | " + " | ".join(f"{m} % (95 % interval)" for m in modes) + " |",
        "|---|---:|---:|" + "---:|" * len(modes),
    ]
    pooled = {m: Share(0, 0) for m in modes}
    for run in runs:
        cells = []
        for mode in modes:
            share = _share(run["results"].get(mode))
            cells.append(_cell(share))
            if share is not None:
                pooled[mode] = Share(pooled[mode].matches + share.matches,
                                     pooled[mode].positions + share.positions)
        positions = len(run["positions"])
        lines.append(f"| {run['expert']} | {run['elo'] or '?'} | {positions} | " + " | ".join(cells) + " |")
    lines.append("| **all** | | " + str(sum(len(r["positions"]) for r in runs)) + " | "
                 + " | ".join(_cell(pooled[m]) for m in modes) + " |")
    slash = " / ".join(p[0] for p in PHASES)
    lines += [
        "",
        f"By phase ({slash} = {', '.join(PHASES)}; positions, then % matched):",
        "",
        f"| expert | positions {slash} | " + " | ".join(f"{m} {slash}" for m in modes) + " |",
        "|---|---:|" + "---:|" * len(modes),
    ]
    for run in runs:
        counts = " / ".join(str(run["phases"][p]) for p in PHASES)
        cells = [
            " / ".join(_cell(_share(run["results"][m]["by_phase"][p]) if m in run["results"] else None,
                             interval=False) for p in PHASES)
            for m in modes
        ]
        lines.append(f"| {run['expert']} | {counts} | " + " | ".join(cells) + " |")
    engines = sorted({f"{m}: {r['results'][m]['engine']}" for r in runs for m in modes
                      if m in r["results"]})
    lines += ["", "Engines: " + "; ".join(engines) + "."]
    return "\n".join(lines)


def plot_summary(runs: Sequence[dict[str, Any]], path: Path) -> None:
    """Share of the expert's moves played against the expert's Elo, one series per mode."""
    figure, axes = new_figure(9, 5.5)
    modes = [m for m in FIDELITY_MODES if any(m in r["results"] for r in runs)]
    for k, mode in enumerate(modes):
        points = [(r["elo"], r["results"][mode]) for r in runs if r["elo"] and mode in r["results"]]
        if not points:
            continue
        x = [elo + (k - (len(modes) - 1) / 2) * 8 for elo, _ in points]
        y = [100 * result["share"] for _, result in points]
        error = [[100 * (result["share"] - result["ci95"][0]) for _, result in points],
                 [100 * (result["ci95"][1] - result["share"]) for _, result in points]]
        axes.errorbar(x, y, yerr=error, fmt="o-", capsize=3, label=mode)
    axes.set_xlabel("expert's Elo (median over the casebase's games)")
    axes.set_ylabel("expert's move played, % (95 % interval)")
    axes.set_title("Fidelity: does it play like the expert? (held-out games)")
    axes.set_ylim(0, 100)
    axes.grid(alpha=0.3)
    axes.legend()
    save_png(figure, path)
