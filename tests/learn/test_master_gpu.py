"""The master network's GPU recipe, run on the CPU (issue #51, item 2): the games and the experts'
latest games packed a byte a move and read back as they were, a foreign file refused, and a run that
writes the check's best network, for lc0's backend, with what it is beside it. A tiny network, a few
games."""

from __future__ import annotations

import io
import json
import tomllib
from pathlib import Path

import chess.pgn
import numpy as np
import pytest

from engine.style import lc0

torch = pytest.importorskip("torch")
pytest.importorskip("google.protobuf")

from test_master import pgn, tiny  # noqa: E402,F401

from casebase.book import expert_moves  # noqa: E402
from casebase.format import Casebase  # noqa: E402
from lc0net.weights import read_network  # noqa: E402
from learn.lc0 import bulk  # noqa: E402
from learn.lc0.model import Lc0Net  # noqa: E402
from learn.master import select_games  # noqa: E402
from learn.master_gpu import Settings, experts_latest, replay_all, top1, train  # noqa: E402
from learn.master_pack import Pack, pack  # noqa: E402


@pytest.fixture(scope="module")
def packed(pgn, kosteniuk_casebase, tmp_path_factory) -> Path:  # noqa: F811
    path = tmp_path_factory.mktemp("pack") / "pack.npz"
    pack(
        [pgn],
        [kosteniuk_casebase],
        path,
        validation_games=5,
        seed=1,
        workers=1,
        validation_pgn=path.with_suffix(".pgn"),
    )
    return path


def test_the_pack_holds_the_chosen_games_and_the_experts_latest_as_they_were(
    packed,
    pgn,  # noqa: F811
    kosteniuk_casebase,
):
    data = Pack.load(packed)
    games = select_games([pgn], 5, seed=1)
    assert (
        data.facts["training_games"],
        data.facts["validation_games"],
        data.facts["games_of_experts_dropped"],
    ) == (25, 5, 1)
    assert packed.with_suffix(".pgn").read_text().count("[Event ") == 5
    for codes, text in zip(data.games("validation"), games.validation):
        moves = list(chess.pgn.read_game(io.StringIO(text)).mainline_moves())
        assert bulk.replay([codes]).target.tolist() == bulk.replay([moves]).target.tolist()
    casebase = Casebase.load(kosteniuk_casebase)
    wanted = np.concatenate(data.wanted("expert0"))
    plies = bulk.replay(data.games("expert0"), data.wanted("expert0"))
    assert wanted.sum() == sum(1 for _ in expert_moves(casebase)) == plies.wanted.sum()
    latest = data.arrays["expert0_latest"]
    assert 0 < latest.sum() < len(latest) and data.facts["experts"] == [
        kosteniuk_casebase.name.removesuffix(".npz")
    ]


def test_a_foreign_or_damaged_file_is_refused_with_what_it_is(packed, tmp_path, kosteniuk_casebase):
    np.save(tmp_path / "array.npy", np.zeros(3))
    whole = packed.read_bytes()
    middle = bytearray(whole)
    # inside a member: its deflate stream breaks
    middle[len(whole) // 2 : len(whole) // 2 + 64] = bytes(64)
    (tmp_path / "middle.npz").write_bytes(bytes(middle))
    (tmp_path / "broken.npz").write_bytes(b"PK\x03\x04 nothing")
    data = Pack.load(packed).arrays
    np.savez(
        tmp_path / "cut.npz",
        **{
            **data,
            "meta": np.array(json.dumps(Pack.load(packed).facts)),
            "training_starts": data["training_starts"][:-1],
        },
    )
    for path in (
        kosteniuk_casebase,
        tmp_path / "array.npy",
        tmp_path / "middle.npz",
        tmp_path / "broken.npz",
        tmp_path / "cut.npz",
    ):
        with pytest.raises(ValueError, match="not a pack of master games"):
            Pack.load(path)
    with pytest.raises(ValueError, match="share takes a share of the games"):
        Settings(share=0)


def test_games_replayed_in_parts_are_the_games_replayed_at_once(packed):
    data = Pack.load(packed)
    games, wanted = data.games("expert0")[:7], data.wanted("expert0")[:7]
    parts, whole = replay_all(games, wanted, workers=1, chunk=2), bulk.replay(games, wanted)
    for name in ("boards", "target", "repeated", "ply", "wanted", "legal_start", "legal"):
        np.testing.assert_array_equal(getattr(parts, name), getattr(whole, name))


def test_the_network_written_is_the_best_check_for_lc0s_backend_and_says_so(packed, tiny, tmp_path):  # noqa: F811
    out = tmp_path / "master.pb.gz"
    # a rate that overshoots: the best is not the last
    settings = Settings(positions=6 * 64, batch=64, lr=0.3, check=2)
    facts = train(packed, tiny, out, settings, device="cpu", workers=1, log=io.StringIO())
    lc0.load_network(out)  # the engine reads it
    said = tomllib.loads(out.with_name("master.toml").read_text())
    checks = said["training"]["checks"]
    assert [c[0] for c in checks] == [0, 128, 256, 384] and facts["positions_run"] == 384
    best = max(checks, key=lambda c: c[2])
    assert facts["positions_chosen"] == best[0] != 384 and facts["experts_latest_top1"] == best[2]
    latest = experts_latest(Pack.load(packed), 1)
    written = top1(
        Lc0Net(read_network(out)),
        bulk.PliesOn.of(latest),
        torch.from_numpy(np.flatnonzero(latest.wanted)),
    )
    assert round(written, 4) == best[2]  # the network written is the best check's
    assert (
        said["settings"]["lr"] == 0.3
        and said["pack"]["training_games"] == 25
        and said["licence"] == "GPL-3.0"
    )
    start, made = read_network(tiny).layers(), read_network(out).layers()
    value = [name for name in start if name.startswith(("value", "ip1_val", "ip2_val"))]
    assert value and all(np.array_equal(start[n], made[n]) for n in value)  # the value head is kept
    changed = any(not np.array_equal(start[n], made[n]) for n in start if n not in value)
    assert changed == (best[0] > 0)  # the start's own weights where no check beat it
