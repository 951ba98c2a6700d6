"""Each expert's own network (issue #51, item 3): the expert's positions replayed with their games'
history, the fit that keeps the base network's trunk and never ends worse than the base on the
latest games, the network written for lc0's backend with whose it is beside it, and Model auto
playing it for its casebase alone. A tiny random network stands in for Maia (no download), a few of
Kosteniuk's games for her casebase."""

from __future__ import annotations

import dataclasses
import shutil
import tomllib
from pathlib import Path

import chess
import numpy as np
import pytest
from lc0_helpers import random_network
from uci_helpers import ROOT, bestmoves, conversation, strings

from casebase.book import expert_moves
from casebase.builder import build
from casebase.format import Casebase
from casebase.games import GameFilter
from casebase.sources import read_source, split_games
from engine.style import lc0
from engine.style.personal import casebase_digest, choose_model

torch = pytest.importorskip("torch")
pytest.importorskip("google.protobuf")

from fidelity.__main__ import main as fidelity_main  # noqa: E402
from fidelity.identify import identify  # noqa: E402
from fidelity.personal_table import Gain  # noqa: E402
from lc0net.weights import read_network, write_network  # noqa: E402
from learn.__main__ import main as learn_main  # noqa: E402
from learn.lc0.model import Lc0Net  # noqa: E402
from learn.own_network import OwnConfig, make_own_network  # noqa: E402

DATA = ROOT / "data"
FAST = OwnConfig(tune=1, epochs=3, batch=64, lr=3e-3, validation=0.3)


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """Alexandra Kosteniuk's casebase of 14 of her games."""
    path = tmp_path_factory.mktemp("own") / "kosteniuk-14.npz"
    build(
        [DATA / "experts" / "kosteniuk-2200.pgn"],
        GameFilter("Alexandra Kosteniuk", max_games=14),
        workers=1,
        progress=False,
    ).save(path)
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("own") / "tiny.pb.gz"
    write_network(path, random_network(blocks=2, seed=5))
    return path


@pytest.fixture(scope="module")
def made(small, tiny, tmp_path_factory) -> tuple[Path, object]:
    """The small casebase's own network, made from the tiny one, beside it (where Model auto
    looks)."""
    folder = tmp_path_factory.mktemp("made")
    casebase = folder / small.name
    shutil.copy(small, casebase)
    out = folder / "kosteniuk-14.pb.gz"
    return out, make_own_network(casebase, out, tiny, FAST, progress=False)


def test_the_experts_positions_are_the_cases_with_their_games_moves_behind_them(small):
    casebase = Casebase.load(small)
    seen = []
    for game, board, move in expert_moves(casebase):
        i = int(
            np.flatnonzero((casebase.game == game) & (casebase.ply == len(board.move_stack)))[0]
        )
        assert casebase.board(i).board_fen() == board.board_fen() and casebase.move(i) == move
        assert (
            board.move_stack
            and board.move_stack[0] in chess.Board().legal_moves
            or len(board.move_stack) == 0
        )
        seen.append(i)
    # every case once: these games all chain from the start
    assert sorted(seen) == list(range(len(casebase)))


def test_the_fit_keeps_the_trunk_and_the_value_head_and_says_whose_it_is(made, small, tiny):
    out, result = made
    assert result.epochs >= 1 and result.top1 >= result.base_top1 and result.games == 14
    base, own = Lc0Net(read_network(tiny)).state_dict(), Lc0Net(read_network(out)).state_dict()
    for name in base:
        kept = name.startswith(("input.", "tower.0.", "value.", "ip1_val", "ip2_val", "source"))
        assert torch.equal(base[name], own[name]) == kept or name.endswith(("mean", "variance")), (
            name
        )
    said = tomllib.loads(out.with_name("kosteniuk-14.toml").read_text())
    assert said["personal"]["casebase"] == casebase_digest(Casebase.load(small))
    assert said["personal"]["expert"] == "Alexandra Kosteniuk" and said["licence"] == "GPL-3.0"
    assert said["name"] == "Alexandra Kosteniuk's own network, from tiny"
    lc0.load_network(out)  # the engine plays it
    gain = Gain.of(out)  # what fidelity personal-gains tables and plots
    assert (gain.expert, gain.games, gain.epochs, gain.top1) == (
        "Alexandra Kosteniuk",
        14,
        result.epochs,
        round(result.top1, 4),
    )
    with pytest.raises(ValueError, match="not an expert's own network"):
        Gain.of(tiny)


def test_a_fit_that_does_no_good_leaves_the_base_networks_weights(small, tiny, tmp_path):
    out = tmp_path / "worse.pb.gz"
    result = make_own_network(
        small, out, tiny, OwnConfig(epochs=2, batch=64, lr=50.0, patience=1), progress=False
    )
    assert result.epochs == 0 and result.top1 == result.base_top1
    base, own = Lc0Net(read_network(tiny)).state_dict(), Lc0Net(read_network(out)).state_dict()
    assert all(torch.equal(base[name], own[name]) for name in base)


@pytest.mark.scenario  # a network fitted on its own: make test-all
def test_the_network_written_is_the_base_moved_mix_of_the_way_towards_the_fit(
    small, tiny, tmp_path
):
    whole, part = tmp_path / "whole.pb.gz", tmp_path / "part.pb.gz"
    fitted = make_own_network(
        small, whole, tiny, dataclasses.replace(FAST, mix=1.0), progress=False
    )
    mixed = make_own_network(small, part, tiny, dataclasses.replace(FAST, mix=0.25), progress=False)
    assert fitted.epochs == mixed.epochs >= 1 and fitted.top1 == fitted.fit_top1 == mixed.fit_top1
    base, fit, own = (read_network(path).arrays() for path in (tiny, whole, part))
    moved = 0
    for name, values in base.items():
        # lc0's 16-bit weights, encoded a layer at a time
        step = max(float(np.ptp(fit[name])), 1e-6) / 2**14
        assert np.allclose(own[name], values + 0.25 * (fit[name] - values), atol=step), name
        moved += not np.allclose(fit[name], values, atol=step)
    assert moved  # the policy head and the last block changed
    with pytest.raises(ValueError, match="mix takes a share"):
        make_own_network(
            small, tmp_path / "none.pb.gz", tiny, dataclasses.replace(FAST, mix=0.0), progress=False
        )


def test_model_auto_plays_the_own_network_for_its_casebase_alone(
    made, small, kosteniuk_casebase, tmp_path
):
    out, _ = made
    casebase = out.with_name("kosteniuk-14.npz")
    choice = choose_model(Casebase.load(casebase))
    assert (
        choice.own
        and choice.path == str(out)
        and "model: the own network of Alexandra Kosteniuk" in choice.note
    )
    # a cluster's cargo takes what says whose it is
    assert set(choice.files("x")) == {"x.pb.gz", "x.toml"}
    # another casebase by the same name: the network is not its own
    other = tmp_path / "kosteniuk-14.npz"
    shutil.copy(kosteniuk_casebase, other)
    shutil.copy(out, tmp_path / out.name)
    shutil.copy(out.with_name("kosteniuk-14.toml"), tmp_path / "kosteniuk-14.toml")
    assert not choose_model(Casebase.load(other)).own
    lines, _ = conversation(
        [
            "uci",
            f"setoption name Casebase value {casebase}",
            "position startpos moves e2e4",
            "go depth 1",
            "isready",
        ]
    )
    after = chess.Board()
    after.push_uci("e2e4")
    assert chess.Move.from_uci(bestmoves(lines)[0]) in after.legal_moves
    assert f"model: the own network of Alexandra Kosteniuk ({out}" in strings(lines)
    assert (
        "the style model (Alexandra Kosteniuk's own network, from tiny (lc0 network, 2"
        " blocks, numpy))" in strings(lines)
    )


def test_learn_personalise_makes_a_network_by_its_name_and_refuses_a_base_of_another_kind(
    small, tiny, tmp_path, capsys
):
    casebase = tmp_path / small.name
    shutil.copy(small, casebase)
    assert learn_main(["personalise", str(casebase), "--base", str(tiny), "--epochs", "1"]) == 0
    assert (tmp_path / "kosteniuk-14.pb.gz").is_file() and (
        tmp_path / "kosteniuk-14.toml"
    ).is_file()
    assert "kosteniuk-14.pb.gz: on the expert's latest 1 games" in capsys.readouterr().out
    style = DATA.parent / "engine" / "style" / "models" / "style.npz"
    assert (
        learn_main(
            ["personalise", str(casebase), "--base", str(style), "-o", str(tmp_path / "x.pb.gz")]
        )
        == 2
    )
    assert "an lc0 network starts from an lc0 network (.pb.gz)" in capsys.readouterr().err


def first_games(file_id: str, surname: str, count: int, path: Path) -> Path:
    """The first ``count`` games of the shipped expert's PGN that name ``surname`` (those a casebase
    of ``max_games=count`` is made from), as a PGN file."""
    games = [
        g
        for g in split_games(read_source(DATA / "experts" / f"{file_id}.pgn").text)
        if surname in g
    ][:count]
    path.write_text("\n\n".join(games) + "\n")
    return path


@pytest.mark.scenario  # two experts' networks fitted: make test-all
def test_who_played_these_names_the_expert_whose_network_likes_the_moves_best(
    made, tiny, tmp_path, capsys
):
    """Kosteniuk's network, fitted on her 14 games, against the unfitted base labelled as another
    expert: asked about her games, hers ranks first in both chunks of 7 games (a network knows the
    games it was fitted on; the bench asks each about games it was not made from)."""
    networks = tmp_path / "networks"
    networks.mkdir()
    shutil.copy(made[0], networks / "kosteniuk.pb.gz")
    shutil.copy(made[0].with_name("kosteniuk-14.toml"), networks / "kosteniuk.toml")
    shutil.copy(tiny, networks / "gaprindashvili.pb.gz")
    (networks / "gaprindashvili.toml").write_text('[personal]\nexpert = "Nona Gaprindashvili"\n')
    pgns = [
        first_games("kosteniuk-2200", "Kosteniuk", 14, tmp_path / "kosteniuk.pgn"),
        first_games("gaprindashvili-2300", "Gaprindashvili", 14, tmp_path / "gaprindashvili.pgn"),
    ]
    result = identify(pgns, sorted(networks.glob("*.pb.gz")), games=7)
    assert result.experts == ["gaprindashvili", "kosteniuk"]
    for name in result.experts:
        assert result.likelihoods[name].shape[1] == 2 and (result.likelihoods[name] <= 0).all()
        assert len(result.chunks[name]) == 2 and sorted(
            i for c in result.chunks[name] for i in c
        ) == list(range(len(result.likelihoods[name])))
    assert result.firsts("kosteniuk") == 2 and result.rank_on_all("kosteniuk") == 1
    firsts = 2 + result.firsts("gaprindashvili")
    assert (
        fidelity_main(
            [
                "identify",
                "--heldout",
                *map(str, pgns),
                "--networks",
                *map(str, networks.glob("*.pb.gz")),
                "--games",
                "7",
            ]
        )
        == 0
    )
    assert (
        f"network first in {firsts} of 4 chunks of 7 games ({25 * firsts} %; chance 50 %)"
        in capsys.readouterr().out
    )
    assert (
        fidelity_main(
            [
                "identify",
                "--heldout",
                str(pgns[0]),
                "--networks",
                str(networks / "kosteniuk.pb.gz"),
                str(tiny),
            ]
        )
        == 2
    )
    assert "pair by name: tiny have no partner" in capsys.readouterr().err


def test_a_casebase_whose_games_do_not_replay_from_the_start_is_refused(tiny, tmp_path, capsys):
    """Games from a set-up position give the network no history to learn from: refused, saying
    why."""
    game = (
        '[Event "Odds"]\n[White "{w}"]\n[Black "{b}"]\n[Date "200{d}.01.01"]\n[Result "*"]\n[SetUp'
        ' "1"]\n'
        '[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R w KQkq - 0 1"]\n\n1. e4 e5 2. d4 exd4'
        " *\n"
    )
    pgn = tmp_path / "odds.pgn"
    pgn.write_text(
        "\n".join(
            [
                game.format(w="Kosteniuk, Alexandra", b="Someone", d=1),
                game.format(w="Someone", b="Kosteniuk, Alexandra", d=2),
            ]
        )
    )
    casebase = tmp_path / "odds.npz"
    build([pgn], GameFilter("Alexandra Kosteniuk"), workers=1, progress=False).save(casebase)
    assert learn_main(["personalise", str(casebase), "--base", str(tiny)]) == 2
    assert "0 of its 2 games replay from the standard start" in capsys.readouterr().err
    assert not (tmp_path / "odds.pb.gz").exists()


def test_an_epoch_capped_at_n_positions_fits_on_a_sample_of_n_and_the_toml_says_so(
    small, tiny, tmp_path, capsys
):
    whole, capped, large = (tmp_path / f"{name}.pb.gz" for name in ("whole", "capped", "large"))
    make_own_network(small, whole, tiny, FAST, progress=False)
    make_own_network(
        small, capped, tiny, dataclasses.replace(FAST, epoch_positions=64), progress=False
    )
    make_own_network(
        small, large, tiny, dataclasses.replace(FAST, epoch_positions=10**6), progress=False
    )
    # a cap above the positions is none
    assert large.read_bytes() == whole.read_bytes() != capped.read_bytes()
    # TOML has no null
    assert "config_epoch_positions" not in whole.with_suffix("").with_suffix(".toml").read_text()
    casebase = tmp_path / small.name
    shutil.copy(small, casebase)
    assert (
        learn_main(
            [
                "personalise",
                str(casebase),
                "--base",
                str(tiny),
                "--epochs",
                "1",
                "--epoch-positions",
                "64",
            ]
        )
        == 0
    )
    assert "config_epoch_positions = 64" in (tmp_path / "kosteniuk-14.toml").read_text()
    with pytest.raises(ValueError, match="epoch_positions takes a count of 1 or more"):
        make_own_network(
            small,
            tmp_path / "none.pb.gz",
            tiny,
            dataclasses.replace(FAST, epoch_positions=0),
            progress=False,
        )
