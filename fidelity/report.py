"""What a fidelity run says: one expert's table, the table and plot over experts, and the paired
difference of two modes (``python -m fidelity run|summary|compare``)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from casebase.phases import PHASES
from common.figures import new_figure, save_png
from common.stats import Share, paired, wilson
from fidelity.modes import FIDELITY_MODES, FidelityMode
from fidelity.replay import FORMAT, Fidelity


def compare_markdown(
    runs: Sequence[dict[str, Any]],
    others: Sequence[dict[str, Any]],
    a: FidelityMode,
    b: FidelityMode,
) -> str:
    """Per expert and over all: mode ``a`` of ``runs`` against mode ``b`` of ``others``, paired by
    position."""
    lines = [
        f"| expert | positions | A: {a} | B: {b} | A - B (95 % interval) |",
        "|---|---:|---:|---:|---|",
    ]
    pooled: tuple[list[bool], list[bool]] = ([], [])
    for run, other in zip(runs, others):
        if a not in run["results"] or b not in other["results"]:
            raise ValueError(f"{run['expert']}: the runs hold no '{a}' or no '{b}' results")
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
    return (
        f"| {name} | {len(a)} | {100 * sum(a) / len(a):.1f} % | {100 * sum(b) / len(b):.1f} % |"
        f" {100 * mean:+.1f} ({100 * low:+.1f} .. {100 * high:+.1f}) |"
    )


def run_markdown(run: Fidelity) -> str:
    """The table people read: per mode, the share of the expert's moves played, overall and by
    phase."""
    counts = Counter(p.phase for p in run.positions)
    elo = f" (Elo {run.elo})" if run.elo else ""
    lines = [
        f"Fidelity to {run.expert}{elo}: {len(run.positions)} of the expert's"
        f" {run.games['positions']} moves in {run.games['expert_games']} games of"
        f" {run.games['path']} (seed {run.settings['seed']})",
        "",
        "| mode | engine | matched | share | 95 % interval | "
        + " | ".join(f"{name} ({counts[name]})" for name in PHASES)
        + " |",
        "|---|---|---:|---:|---|" + "---:|" * len(PHASES),
    ]
    for r in run.results:
        total = r.share(run.positions)
        low, high = wilson(total.matches, total.positions)
        phases = " | ".join(r.share(run.positions, name).percent() for name in PHASES)
        lines.append(
            f"| {r.mode} | {r.engine} | {total.matches}/{total.positions} |"
            f" {total.percent()} | {100 * low:.1f}–{100 * high:.1f} % | {phases} |"
        )
    if run.games["seen_in_casebase"]:
        lines += [
            "",
            f"Warning: {run.games['seen_in_casebase']} of these games are in the"
            " casebase too, so they are not held out.",
        ]
    return "\n".join(lines)


def load_run(path: Path) -> dict[str, Any]:
    """A ``fidelity run --out`` file; ValueError if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not the output of python -m fidelity run --out")
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
        "| expert | Elo | positions | "
        + " | ".join(f"{m} % (95 % interval)" for m in modes)
        + " |",
        "|---|---:|---:|" + "---:|" * len(modes),
    ]
    pooled = {m: Share(0, 0) for m in modes}
    for run in runs:
        cells = []
        for mode in modes:
            share = _share(run["results"].get(mode))
            cells.append(_cell(share))
            if share is not None:
                pooled[mode] = Share(
                    pooled[mode].matches + share.matches, pooled[mode].positions + share.positions
                )
        positions = len(run["positions"])
        lines.append(
            f"| {run['expert']} | {run['elo'] or '?'} | {positions} | " + " | ".join(cells) + " |"
        )
    lines.append(
        "| **all** | | "
        + str(sum(len(r["positions"]) for r in runs))
        + " | "
        + " | ".join(_cell(pooled[m]) for m in modes)
        + " |"
    )
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
            " / ".join(
                _cell(
                    _share(run["results"][m]["by_phase"][p]) if m in run["results"] else None,
                    interval=False,
                )
                for p in PHASES
            )
            for m in modes
        ]
        lines.append(f"| {run['expert']} | {counts} | " + " | ".join(cells) + " |")
    engines = sorted(
        {f"{m}: {r['results'][m]['engine']}" for r in runs for m in modes if m in r["results"]}
    )
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
        error = [
            [100 * (result["share"] - result["ci95"][0]) for _, result in points],
            [100 * (result["ci95"][1] - result["share"]) for _, result in points],
        ]
        axes.errorbar(x, y, yerr=error, fmt="o-", capsize=3, label=str(mode))
    axes.set_xlabel("expert's Elo (median over the casebase's games)")
    axes.set_ylabel("expert's move played, % (95 % interval)")
    axes.set_title("Fidelity: does it play like the expert? (held-out games)")
    axes.set_ylim(0, 100)
    axes.grid(alpha=0.3)
    axes.legend()
    save_png(figure, path)
