"""Round robins and fidelity on a Ray cluster (parallel/cluster.py).

The scenario (tests/cluster_scenario.py) runs on a real two-node Ray cluster of processes on this
machine, inside a network namespace holding only the loopback device (testing/local_cluster.py),
once for the module: a node killed mid-run, the same games and moves as the local pool, and a
judge that no node has. It is skipped without Ray (the [cluster] extra) or where no network
namespace can be made. The other tests need no cluster.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from damaged import profile_arrays
from engine_helpers import shipped_personal
from pgn_helpers import games_of
from uci_helpers import ROOT

from casebase.profilefile import profile_path
from engine.cbr.configurations import parse_configurations
from engine.style.model import generic_model
from fidelity.modes import FidelityMode
from fidelity.replay import measure
from fidelity.settings import FidelitySettings
from parallel.cluster import ClusterError, check_programs, sha256, unpack
from profiling.__main__ import main as profiling_main
from profiling.play import PlayFiles
from profiling.workers import Engines
from tournament.__main__ import main
from tournament.players import casebase_entrant, engine_entrant
from tournament.runner import TournamentSettings, run

# a local Ray cluster plays games, a node and a driver killed: a scenario (make test-all)
pytestmark = [pytest.mark.slow, pytest.mark.scenario]

LOCAL_CLUSTER = ["-m", "testing.local_cluster"]
NO_NAMESPACE = 3


def kill_settings(a: Path, b: Path) -> TournamentSettings:
    """The scenario's round robin (its command line, as settings)."""
    return TournamentSettings(
        entrants=(casebase_entrant(a), casebase_entrant(b)),
        configs=tuple(parse_configurations(["near-to", "near-from"])),
        rounds=3,
        seed=11,
    )


# Session-scoped: with xdist's loadgroup the cluster tests share a worker but not always a
# stretch of it, and a module-scoped fixture was set up again (the whole scenario, twice).
@pytest.fixture(scope="session")
def scenario(kosteniuk_casebase, gaprindashvili_casebase, heldout, tmp_path_factory) -> dict:
    pytest.importorskip("ray", reason="the [cluster] extra (Ray) is not installed")
    out = tmp_path_factory.mktemp("cluster")
    done = subprocess.run(
        [
            sys.executable,
            *LOCAL_CLUSTER,
            "--nodes",
            "2",
            "--",
            sys.executable,
            ROOT / "tests" / "cluster_scenario.py",
            kosteniuk_casebase,
            gaprindashvili_casebase,
            *heldout,
            out,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode == NO_NAMESPACE:
        pytest.skip(f"no network namespace for a local cluster: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((out / "scenario.json").read_text())


@pytest.mark.cluster
@pytest.mark.xdist_group("cluster")
def test_a_node_killed_mid_run_loses_no_game_and_doubles_none(
    scenario, kosteniuk_casebase, gaprindashvili_casebase, tmp_path
):
    rr = scenario["round_robin"]
    assert rr["rc"] == 0, rr["stderr"]  # the run the node was killed in finished by itself
    # the second node played a game and was killed while games were still to play
    assert rr["killed_after"] is not None and rr["killed_after"] < 12, rr["stderr"]
    assert rr["victim"] in rr["nodes"] and len(rr["nodes"]) == 12
    # every game once, each the game the local pool plays with the same seeds
    local = games_of(
        run(
            kill_settings(kosteniuk_casebase, gaprindashvili_casebase),
            tmp_path,
            workers=1,
            progress=False,
        )
    )
    assert len(local) == 12
    assert games_of(rr["results"]) == local


@pytest.mark.cluster
@pytest.mark.xdist_group("cluster")
def test_a_driver_killed_mid_run_resumes_where_it_stopped(scenario):
    # the driver killed and started again: the games above are the whole run's
    rr = scenario["round_robin"]
    assert rr["rc"] == 0, rr["stderr"]
    assert 3 <= rr["kept"] < 12
    assert rr["rewritten"] == []  # the games finished before the kill were kept, not played again


@pytest.mark.cluster
@pytest.mark.xdist_group("cluster")
def test_fidelity_on_the_cluster_plays_the_local_moves(scenario, heldout):
    fidelity = scenario["fidelity"]
    assert fidelity["rc"] == 0, fidelity["stderr"]
    remote = json.loads(Path(fidelity["json"]).read_text())
    settings = FidelitySettings(
        casebase=str(heldout[0]), config=parse_configurations(["balanced"])[0], seed=3
    )
    local = measure(
        *heldout,
        settings,
        [FidelityMode.PURE, FidelityMode.PRIOR],
        positions=24,
        workers=1,
        progress=False,
    ).as_json()
    assert [p["moves"] for p in remote["positions"]] == [p["moves"] for p in local["positions"]]
    assert len(remote["positions"]) == 24


@pytest.mark.cluster
@pytest.mark.xdist_group("cluster")
def test_a_judge_no_node_has_fails_the_games_with_the_reason(scenario):
    judged = scenario["missing_judge"]
    assert judged["rc"] == 2 and judged["games"] == 0
    assert "/nowhere/stockfish is not there" in judged["stderr"] and "node " in judged["stderr"]
    assert "2 games failed for good" in judged["stderr"]


@pytest.mark.cluster
@pytest.mark.xdist_group("cluster")
def test_a_profile_judged_and_played_on_the_cluster_is_the_local_one(
    scenario, kosteniuk_casebase, tmp_path
):
    remote = scenario["profile"]
    assert remote["rc"] == 0, remote["stderr"]
    local = tmp_path / Path(remote["casebase"]).name
    shutil.copy(kosteniuk_casebase, local)
    assert (
        profiling_main(
            [
                str(local),
                *remote["flags"],
                "--play",
                str(tmp_path / "play.jsonl"),
                "--journal",
                str(tmp_path / "profile.jsonl"),
            ]
        )
        == 0
    )
    for name in ("journal", "play"):  # the same entries, in the order they came back
        assert sorted(Path(remote[name]).read_text().splitlines()) == sorted(
            (tmp_path / f"{'profile' if name == 'journal' else name}.jsonl")
            .read_text()
            .splitlines()
        )
    ours, theirs = (
        profile_arrays(profile_path(local)),
        profile_arrays(profile_path(Path(remote["casebase"]))),
    )
    assert set(ours) == set(theirs) and "profile_play_moves" in ours
    for array in ours:
        assert np.array_equal(ours[array], theirs[array]), array


# -- without a cluster ---------------------------------------------------------------


def test_a_file_that_arrives_damaged_is_refused(tmp_path):
    good = b"casebase bytes"
    unpack({"casebases/a.npz": (sha256(good), good)}, tmp_path)
    assert (tmp_path / "casebases" / "a.npz").read_bytes() == good
    with pytest.raises(ClusterError, match="b.npz arrived damaged"):
        unpack({"casebases/b.npz": (sha256(good), good[:-1])}, tmp_path)
    assert not (tmp_path / "casebases" / "b.npz").exists()


def test_a_missing_program_names_itself_and_the_node():
    check_programs([sys.executable])
    with pytest.raises(ClusterError, match=r"node .*: /nowhere/judge is not there"):
        check_programs([sys.executable, "/nowhere/judge"])


def test_settings_travel_as_their_files_and_come_back_around_the_copies(
    kosteniuk_casebase, tmp_path, without_networks
):
    engine = engine_entrant("name=sf cmd=/usr/games/stockfish elo=1350")
    settings = TournamentSettings(
        entrants=(casebase_entrant(kosteniuk_casebase), engine),
        configs=tuple(parse_configurations(["balanced"])),
        judge="/opt/judge",
    )
    cargo = settings.cargo()
    assert cargo["casebases/kosteniuk-2200.npz"] == kosteniuk_casebase
    assert all(name.startswith("tables/") for name in cargo if not name.startswith("casebases/"))
    moved = settings.unpacked(tmp_path)
    assert moved.entrants[0].path == str(tmp_path / "casebases" / "kosteniuk-2200.npz")
    assert moved.entrants[1] == engine and moved.tables == str(tmp_path / "tables")
    assert moved.manifest("d") == settings.manifest("d")  # the same tournament
    assert settings.programs() == ["/opt/judge", "/usr/games/stockfish"]
    assert "model.npz" not in cargo  # pure mode has no model
    guided = dataclasses.replace(settings, mode="guided", model=str(generic_model()))
    assert guided.cargo()["model.npz"] == generic_model()
    assert guided.unpacked(tmp_path).model == str(tmp_path / "model.npz")
    # an lc0 network stays one
    network = dataclasses.replace(guided, model="engine/style/models/maia-1900.pb.gz")
    assert (
        network.unpacked(tmp_path).model == str(tmp_path / "model.pb.gz")
        and "model.pb.gz" in network.cargo()
    )
    # option Model auto without lc0's backend: each casebase's personal model travels beside it, and
    # the engines find it there
    auto = dataclasses.replace(settings, mode="guided", model="")
    assert "model.npz" not in auto.cargo() and auto.unpacked(tmp_path).model == ""
    personal = shipped_personal(kosteniuk_casebase)
    try:
        assert auto.cargo()["casebases/kosteniuk-2200.model.npz"] == personal
    finally:
        personal.unlink()
    fidelity = FidelitySettings(
        casebase=str(kosteniuk_casebase), config=parse_configurations(["balanced"])[0]
    )
    assert fidelity.for_mode(FidelityMode.PURE).programs() == []
    assert fidelity.for_mode(FidelityMode.JUDGED).programs() == [fidelity.judge]
    assert {"casebase.npz", "model.npz"} <= set(fidelity.cargo())
    assert fidelity.unpacked(tmp_path).model == str(tmp_path / "model.npz")


def test_a_casebase_s_error_profile_travels_beside_it(profiled, tmp_path):
    engine = engine_entrant("name=sf cmd=/usr/games/stockfish elo=1350")
    settings = TournamentSettings(
        entrants=(casebase_entrant(profiled[0]), engine),
        configs=tuple(parse_configurations(["balanced"])),
    )
    assert settings.cargo()["casebases/kosteniuk-2200.profile.npz"] == profile_path(profiled[0])
    assert (
        profile_path(settings.unpacked(tmp_path).entrants[0].path)
        == tmp_path / "casebases/kosteniuk-2200.profile.npz"
    )
    fidelity = FidelitySettings(
        casebase=str(profiled[0]), config=parse_configurations(["balanced"])[0]
    )
    assert fidelity.cargo()["casebase.profile.npz"] == profile_path(profiled[0])
    assert profile_path(fidelity.unpacked(tmp_path).casebase) == tmp_path / "casebase.profile.npz"
    # the play-time choices' workers: the casebase and its profile under their names, the judges on
    # every node
    files = PlayFiles(str(profiled[0]))
    assert {"kosteniuk-2200.npz", "kosteniuk-2200.profile.npz"} <= set(
        files.cargo()
    ) and files.programs() == []
    assert (
        profile_path(files.unpacked(tmp_path).casebase) == tmp_path / "kosteniuk-2200.profile.npz"
    )
    assert Engines(("/opt/judge", "/opt/judge")).programs() == ["/opt/judge"]


def test_cluster_without_ray_says_how_to_install_it(
    kosteniuk_casebase, gaprindashvili_casebase, tmp_path, monkeypatch, capsys
):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if not installed
    code = main(
        [
            "run",
            "--casebases",
            str(kosteniuk_casebase),
            str(gaprindashvili_casebase),
            "--configs",
            "balanced",
            "--rounds",
            "1",
            "--cluster",
            "auto",
            "--out",
            str(tmp_path / "run"),
        ]
    )
    assert code == 2
    assert "pip install -e '.[cluster]'" in capsys.readouterr().err
    assert not list((tmp_path / "run" / "games").glob("*.pgn"))


def test_joining_a_cluster_is_tried_again_then_given_up_with_the_reason(monkeypatch):
    ray = pytest.importorskip("ray", reason="the [cluster] extra (Ray) is not installed")
    import parallel.cluster as cluster

    attempts = []

    def init(**kwargs):
        attempts.append(kwargs["address"])
        if len(attempts) < cluster.CONNECT_ATTEMPTS:
            raise RuntimeError("Starting Ray client server failed")

    monkeypatch.setattr(cluster, "CONNECT_PAUSE", 0.0)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "shutdown", lambda: None)
    monkeypatch.setattr(ray, "init", init)
    cluster.connect("ray://head:10001")  # the last attempt joins
    assert attempts == ["ray://head:10001"] * cluster.CONNECT_ATTEMPTS
    attempts.clear()
    monkeypatch.setattr(cluster, "CONNECT_ATTEMPTS", 2)

    def unreachable(**kwargs):
        attempts.append(kwargs["address"])
        raise ConnectionError("no head")

    monkeypatch.setattr(ray, "init", unreachable)
    with pytest.raises(ClusterError, match=r"2 attempts; the last: no head"):
        cluster.connect("head:6379")
    assert len(attempts) == 2
