"""Games per hour on a Ray cluster of one and of two nodes, and in the local pool, side by side.

    python -m bench.cluster [--mode guided] [--tc 40/8] [--rounds 1] [--casebases A.npz B.npz C.npz]

The same round robin (default: Carlsen, Ivanchuk and Kosteniuk in guided mode at 40/8, one round: 6
games) is played four ways, each into a fresh directory under ``--out`` (default bench/out/cluster;
its games are real games to read, e.g. their lengths for experiments/cost.py): the local process
pool with 1 and with 2 workers, and ``--cluster`` on a local Ray cluster (testing/local_cluster.py,
in a network namespace of its own) of 1 node and of 2 nodes, each node offering 1 CPU. The time
counted is the driver's ``run`` alone (the cluster is up before it starts, as a real one would be).
Needs the [cluster] extra and a machine where a network namespace can be made (root); the rows it
cannot measure say why.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common.paths import PROJECT_ROOT as ROOT
from engine.cbr.configurations import parse_configurations
from engine.outside.clock import TimeControl
from tournament.players import casebase_entrant
from tournament.runner import TournamentSettings, run

CASEBASES = [
    ROOT / "casebases" / f"{name}.npz"
    for name in ("carlsen-2800", "ivanchuk-2700", "kosteniuk-2200")
]
#: The cluster helper and this bench, run as modules of the source tree (cwd ROOT).
LOCAL_CLUSTER = ["-m", "testing.local_cluster"]


def settings(args: argparse.Namespace) -> TournamentSettings:
    return TournamentSettings(
        entrants=tuple(casebase_entrant(p) for p in args.casebases),
        configs=tuple(parse_configurations(["balanced"])),
        rounds=args.rounds,
        mode=args.mode,
        control=TimeControl.parse(args.tc),
        seed=args.seed,
    )


def play(
    args: argparse.Namespace, out: Path, workers: int = 1, cluster: str | None = None
) -> dict[str, float]:
    """Play the round robin once into ``out`` (emptied first): games and seconds."""
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    results = run(settings(args), out, workers=workers, cluster=cluster, progress=False)
    seconds = time.perf_counter() - start
    return {"games": results.read_text(encoding="utf-8").count("[Event "), "seconds": seconds}


def on_cluster(args: argparse.Namespace, nodes: int) -> dict[str, float] | str:
    """``play`` on a fresh local cluster of ``nodes`` nodes (1 CPU each), or why it could not
    run."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "row.json"
        command = [
            sys.executable,
            "-m",
            "bench.cluster",
            "--inside",
            str(report),
            "--out",
            str(args.out / f"ray-{nodes}-nodes"),
            "--mode",
            args.mode,
            "--tc",
            args.tc,
            "--rounds",
            str(args.rounds),
            "--seed",
            str(args.seed),
            "--casebases",
            *map(str, args.casebases),
        ]
        done = subprocess.run(
            [sys.executable, *LOCAL_CLUSTER, "--nodes", str(nodes), "--cpus", "1", "--", *command],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        if done.returncode != 0 or not report.exists():
            why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode
            return f"not measured: {why}"
        row: dict[str, float] = json.loads(report.read_text())
        return row


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.cluster",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--casebases", nargs="+", type=Path, default=CASEBASES)
    parser.add_argument("--mode", default="guided")
    parser.add_argument("--tc", default="40/8")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "out" / "cluster", help="where the runs go"
    )
    # one cluster row, run by on_cluster
    parser.add_argument("--inside", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        args.inside.write_text(json.dumps(play(args, args.out, cluster="auto")))
        return 0
    missing = [p for p in args.casebases if not p.exists()]
    if missing:
        print(
            f"{missing[0]} not found: build the shipped casebases with `make casebases`",
            file=sys.stderr,
        )
        return 2
    rows: list[tuple[str, dict[str, float] | str]] = [
        ("local pool, 1 worker", play(args, args.out / "pool-1-worker", workers=1)),
        ("local pool, 2 workers", play(args, args.out / "pool-2-workers", workers=2)),
        ("Ray cluster, 1 node x 1 CPU", on_cluster(args, 1)),
        ("Ray cluster, 2 nodes x 1 CPU", on_cluster(args, 2)),
    ]
    names = ", ".join(p.stem for p in args.casebases)
    print(f"\nround robin of {names}, mode {args.mode}, {args.tc}, {args.rounds} round(s)\n")
    print("| where | games | seconds | games per hour | vs. the same with one |")
    print("|---|---:|---:|---:|---:|")
    base: dict[str, float] = {}
    for name, row in rows:
        if isinstance(row, str):
            print(f"| {name} | | | {row} | |")
            continue
        rate = row["games"] / row["seconds"] * 3600
        kind = name.split(",")[0]
        ratio = f"{rate / base[kind]:.2f}" if kind in base else "1.00"
        base.setdefault(kind, rate)
        print(f"| {name} | {row['games']:.0f} | {row['seconds']:.0f} | {rate:.0f} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
