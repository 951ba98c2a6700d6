"""The master network's training (issue #51, item 2): the games chosen (no expert's, no duplicate,
validation by game), lc0's inputs and targets, a run stopped and resumed going on with the same
batches, and its network written for lc0's backend with what it is beside it. A tiny network, a few
games."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import chess
import numpy as np
import pytest
from lc0_helpers import random_network
from uci_helpers import ROOT

from engine.style import lc0

torch = pytest.importorskip("torch")
pytest.importorskip("google.protobuf")

from casebase.sources import read_source, split_games  # noqa: E402
from lc0net.moves import move_index  # noqa: E402
from lc0net.weights import read_network, write_network  # noqa: E402
from learn.lc0.positions import positions, replay  # noqa: E402
from learn.master import Recipe, read_recipe, select_games, train  # noqa: E402

DATA = ROOT / "data"
EXPERT_GAME = """[Event "Blitz"]
[White "Carlsen, Magnus"]
[Black "Someone,A"]
[Date "2020.01.01"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
"""


@pytest.fixture(scope="module")
def pgn(tmp_path_factory) -> Path:
    """30 master games, one of them twice (another spelling of a player, a comment), and an expert's
    game."""
    games = split_games(read_source(DATA / "masters-2500plus.pgn.gz").text)[:30]
    twice = games[3].replace('[White "', '[White "X').replace("1. ", "1. {a comment} ", 1)
    path = tmp_path_factory.mktemp("master") / "games.pgn"
    path.write_text("\n\n".join([*games, twice, EXPERT_GAME]) + "\n")
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("master") / "tiny.pb.gz"
    write_network(path, random_network(seed=4))
    return path


def test_the_games_are_the_masters_without_experts_and_duplicates_split_by_game(pgn):
    games = select_games([pgn], validation_games=5, seed=1)
    assert (games.read, games.experts, games.duplicates) == (32, 1, 1)
    assert len(games.training) == 25 and len(games.validation) == 5
    assert not set(games.training) & set(games.validation)
    assert not any("Carlsen" in g for g in games.training + games.validation)
    assert (
        select_games([pgn], 5, seed=1).validation
        == games.validation
        != select_games([pgn], 5, seed=2).validation
    )
    with pytest.raises(ValueError, match="no more than the 30 held out"):
        select_games([pgn], validation_games=30, seed=1)


def test_each_position_is_lc0s_input_with_the_move_played_among_the_legal_ones(pgn, tiny):
    games = select_games([pgn], 5, seed=1).validation[:2]
    data = positions(games)
    played = [(board.copy(), move) for board, move in replay(games)]  # replay moves one board on
    assert len(data) == len(played) > 100
    for row, (board, move) in enumerate(played):
        assert data.target[row] == move_index(board, move) and data.legal[row, data.target[row]]
        assert data.legal[row].sum() == board.legal_moves.count()
    planes = data.take(np.arange(len(data))).tensors()[0]
    assert planes[:, 108].amax(dim=(1, 2)).tolist() == [
        float(b.turn == chess.BLACK) for b, _ in played
    ]


def recipe_for(pgn: Path, tiny: Path, **changes) -> Recipe:
    return replace(
        Recipe(
            sources=[str(pgn)],
            base=str(tiny),
            positions=640,
            batch=64,
            lr=3e-3,
            seed=0,
            validation_games=5,
            validation_positions=200,
            chunk_games=4,
            checkpoint_minutes=60.0,
        ),
        **changes,
    )


@pytest.mark.scenario  # a training run stopped and run again: make test-all
def test_a_run_stopped_and_started_again_goes_on_with_the_same_batches(pgn, tiny, tmp_path):
    recipe = recipe_for(pgn, tiny)
    whole = train(recipe, tmp_path / "whole", tmp_path / "whole.pb.gz", progress=False)
    assert (
        train(recipe, tmp_path / "parts", tmp_path / "parts.pb.gz", progress=False, stop_after=3)[
            "step"
        ]
        == 3
    )
    assert not (tmp_path / "parts.pb.gz").exists()
    train(recipe, tmp_path / "parts", tmp_path / "parts.pb.gz", progress=False)
    a, b = (torch.load(tmp_path / f / "last.pt", weights_only=False) for f in ("whole", "parts"))
    assert (
        a["state"]["positions"] == b["state"]["positions"] >= 640
        and a["state"]["step"] == b["state"]["step"] > 3
    )
    for name, value in a["model"].items():
        assert torch.equal(value, b["model"][name]), name
    assert whole["positions_run"] == a["state"]["positions"]
    with pytest.raises(ValueError, match="a checkpoint of another recipe"):
        train(replace(recipe, lr=1e-3), tmp_path / "parts", tmp_path / "x.pb.gz", progress=False)


def test_the_network_made_is_lc0s_with_the_value_head_kept_and_says_what_it_is(pgn, tiny, tmp_path):
    facts = train(
        recipe_for(pgn, tiny), tmp_path / "run", tmp_path / "master.pb.gz", progress=False
    )
    network = lc0.load_network(tmp_path / "master.pb.gz")  # the engine reads it
    assert (
        network.meta["name"] == "tiny fine-tuned on master games"
        and network.meta["licence"] == "GPL-3.0"
    )
    said = tomllib.loads((tmp_path / "master.toml").read_text())
    assert said["training"] == facts and said["recipe"]["lr"] == 3e-3
    assert facts["validation_positions"] == 200 and facts["games_of_experts_dropped"] == 1
    assert (
        0 <= facts["validation_top1_base"] <= 1
        and facts["validation_top1"] >= facts["validation_top1_base"]
    )
    base, made = read_network(tiny).layers(), read_network(tmp_path / "master.pb.gz").layers()
    value = [name for name in base if name.startswith(("value.", "ip1_val", "ip2_val"))]
    assert value and all(made[n].SerializeToString() == base[n].SerializeToString() for n in value)
    assert made["policy.weights"].params != base["policy.weights"].params  # the policy learnt
    # the provenance is the recipe too
    assert read_recipe(tmp_path / "master.toml") == recipe_for(pgn, tiny)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[recipe]\nlearning_rate = 1\n", "unknown recipe keys learning_rate"),
        ('[recipe]\nbatch = "big"\n', "batch = 'big' is not a int"),
        ("[recipe\n", "not a readable recipe"),
    ],
)
def test_a_wrong_recipe_is_refused_saying_what_is_wrong(tmp_path, text, message):
    (tmp_path / "r.toml").write_text(text)
    with pytest.raises(ValueError, match=message):
        read_recipe(tmp_path / "r.toml")
