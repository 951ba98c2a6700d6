"""What tests/parallel/test_cluster.py runs inside a local Ray cluster (testing/local_cluster.py,
two nodes).

    python tests/cluster_scenario.py CASEBASE_A CASEBASE_B HELDOUT.npz HELDOUT.pgn OUT_DIR

1. A round robin of A and B through the UCI engine (pure mode, 12 games) with ``--cluster``: its
   driver killed after three games and started again; once the second node has saved a game of the
   restarted run and gone on into its next, every process of that node (its session: raylet,
   workers, their engines) is killed, and the restarted run must still finish every game by itself.
2. A fidelity run (pure and prior, 24 positions) with ``--cluster ray://...`` (Ray's client).
3. A judged round robin whose judge no node has (``--cluster HOST:PORT``): it must fail with the
   reason.
4. A casebase profiled by a scripted judge (12 positions) and its play-time choices recorded (4)
   with ``--cluster auto``: the judging on the cluster.

Writes OUT_DIR/scenario.json: what the tests check.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import ray
from judge_helpers import scripted


def tournament(*args: object) -> list[str]:
    return [sys.executable, "-m", "tournament", *map(str, args)]


def fidelity_command(*args: object) -> list[str]:
    return [sys.executable, "-m", "fidelity", *map(str, args)]


def second_node() -> str:
    """The NodeID of the node that is not the head."""
    ray.init(address=os.environ["RAY_ADDRESS"], logging_level=logging.ERROR, log_to_driver=False)
    try:
        return next(
            n["NodeID"]
            for n in ray.nodes()
            if n["Alive"] and "node:__internal_head__" not in n["Resources"]
        )
    finally:
        ray.shutdown()


def round_robin(a: str, b: str, out: Path) -> list[str]:
    """The scenario's round robin (12 games through the UCI engine)."""
    return tournament(
        "run",
        "--casebases",
        a,
        b,
        "--configs",
        "near-to",
        "near-from",
        "--rounds",
        3,
        "--seed",
        11,
        "--uci",
        "--cluster",
        "auto",
        "--out",
        out,
    )


def round_robin_with_kills(a: str, b: str, out: Path) -> dict[str, object]:
    """The round robin with its driver killed and started again, then its second node killed (one
    run for both kills: each alone asked as much of the cluster, and the games took as long)."""
    victim, session = second_node(), os.environ["CBR_CLUSTER_NODES"].split()[0]
    first = subprocess.Popen(
        round_robin(a, b, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    while first.poll() is None and len(list((out / "games").glob("*.pgn"))) < 3:
        time.sleep(0.05)
    first.kill()
    first.wait()
    finished = {
        p.stem for p in (out / "games").glob("*.pgn")
    }  # a game's .json is written before its .pgn
    kept = {p.name: p.read_bytes() for p in (out / "games").glob("*") if p.stem in finished}
    driver = subprocess.Popen(
        round_robin(a, b, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    killed_after = None
    deadline = time.monotonic() + 240
    while driver.poll() is None and time.monotonic() < deadline:
        saved = sorted(p for p in (out / "games").glob("*.json") if p.name not in kept)
        if killed_after is None and any(
            json.loads(p.read_text()).get("node") == victim for p in saved
        ):
            time.sleep(0.3)  # into the node's next game (a game takes about a second)
            subprocess.run(["pkill", "-KILL", "-s", session], check=True)
            killed_after = len(list((out / "games").glob("*.pgn")))
        time.sleep(0.05)
    _, stderr = driver.communicate(timeout=60)
    nodes = [json.loads(p.read_text()).get("node") for p in sorted((out / "games").glob("*.json"))]
    rewritten = sorted(
        name for name, data in kept.items() if (out / "games" / name).read_bytes() != data
    )
    return {
        "rc": driver.returncode,
        "stderr": stderr[-3000:],
        "killed_after": killed_after,
        "kept": sum(name.endswith(".pgn") for name in kept),
        "rewritten": rewritten,
        "victim": victim,
        "nodes": nodes,
        "results": str(out / "results.pgn"),
    }


def profiled(casebase: str, out: Path) -> dict[str, object]:
    """A copy of ``casebase`` profiled and played on the cluster: the command's flags (but
    ``--cluster``) come back with the result, for the test to profile the same locally."""
    out.mkdir(parents=True)
    copy = out / Path(casebase).name
    shutil.copy(casebase, copy)
    flags = [
        "--judge",
        scripted(out),
        "--positions",
        "12",
        "--depth",
        "2",
        "--multipv",
        "3",
        "--seed",
        "25",
        "--play-positions",
        "4",
        "--judge-depth",
        "2",
        "--quiet",
    ]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "profiling",
            copy,
            *flags,
            "--play",
            out / "play.jsonl",
            "--journal",
            out / "profile.jsonl",
            "--cluster",
            "auto",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return {
        "rc": done.returncode,
        "stderr": done.stderr[-3000:],
        "casebase": str(copy),
        "flags": flags,
        "journal": str(out / "profile.jsonl"),
        "play": str(out / "play.jsonl"),
    }


def main() -> int:
    a, b, heldout_npz, heldout_pgn, out = sys.argv[1:6]
    folder = Path(out)
    report: dict[str, object] = {"round_robin": round_robin_with_kills(a, b, folder / "rr")}
    fidelity = subprocess.run(
        fidelity_command(
            "run",
            "--casebase",
            heldout_npz,
            "--heldout",
            heldout_pgn,
            "--modes",
            "pure",
            "prior",
            "--positions",
            24,
            "--seed",
            3,
            "--cluster",
            "ray://127.0.0.1:10001",
            "--out",
            folder / "fidelity.json",
        ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    report["fidelity"] = {
        "rc": fidelity.returncode,
        "stderr": fidelity.stderr[-3000:],
        "json": str(folder / "fidelity.json"),
    }
    judged = subprocess.run(
        tournament(
            "run",
            "--casebases",
            a,
            b,
            "--configs",
            "balanced",
            "--rounds",
            1,
            "--mode",
            "guided",
            "--tc",
            "40/4",
            "--judge",
            "/nowhere/stockfish",
            "--cluster",
            os.environ["RAY_ADDRESS"],
            "--out",
            folder / "judged",
        ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    report["missing_judge"] = {
        "rc": judged.returncode,
        "stderr": judged.stderr[-3000:],
        "games": len(list((folder / "judged" / "games").glob("*.pgn"))),
    }
    report["profile"] = profiled(a, folder / "profile")
    (folder / "scenario.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
