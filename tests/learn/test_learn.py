"""The style model: planes, the model file, numpy inference against torch, reproducible training."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import numpy as np
import pytest
from search_helpers import random_positions
from uci_helpers import ROOT

from casebase.format import Casebase
from engine.style.model import ModelError, StyleModel, array_shapes, generic_model, save_model
from engine.style.planes import FORMAT_ID, encode, encode_board, legal_indices, move_index
from learn.__main__ import build_parser, read_recipe

torch = pytest.importorskip("torch")

from learn import train as train_module  # noqa: E402
from learn.evaluate import legal_top1  # noqa: E402
from learn.net import StyleNet  # noqa: E402
from learn.train import TrainConfig, train  # noqa: E402

pytestmark = pytest.mark.slow  # it trains style models (torch)

TINY = TrainConfig(
    blocks=1, filters=8, positions=1024, batch=128, validation=0.1, validation_positions=500
)


# -- planes -----------------------------------------------------------------------------------


def test_black_to_move_is_seen_as_the_mirrored_board_with_white_to_move():
    for board in random_positions(40, 1, (1, 60)):
        mirrored = board.mirror()
        assert np.array_equal(
            encode_board(board, board.turn), encode_board(mirrored, mirrored.turn)
        )
        moves = list(board.legal_moves)
        same = [
            chess.Move(
                chess.square_mirror(m.from_square), chess.square_mirror(m.to_square), m.promotion
            )
            for m in moves
        ]
        assert np.array_equal(legal_indices(board, moves), legal_indices(mirrored, same))


def test_planes_hold_our_pieces_then_theirs_rank_one_first():
    planes = encode_board(chess.Board(), chess.WHITE)[0]
    assert planes.shape == (12, 8, 8)
    assert planes[0, 1].sum() == 8 and planes[0, 1, 4] == 1  # our pawns on rank 2, e2 among them
    assert planes[5, 0, 4] == 1 and planes[11, 7, 4] == 1  # our king e1, theirs e8
    assert planes.sum() == 32
    assert move_index(chess.E2, chess.E4, True) == chess.E2 * 64 + chess.E4
    assert move_index(chess.E7, chess.E5, False) == chess.E2 * 64 + chess.E4


# -- the model file ---------------------------------------------------------------------------


def random_net(blocks: int = 2, filters: int = 8, seed: int = 0) -> StyleNet:
    torch.manual_seed(seed)
    net = StyleNet(blocks, filters)
    with torch.no_grad():  # batch norm statistics away from the identity, so folding matters
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
    return net.eval()


def test_numpy_inference_equals_the_torch_network(tmp_path):
    net = random_net()
    path = tmp_path / "m.npz"
    save_model(path, net.export_arrays(), {"blocks": 2, "filters": 8})
    model = StyleModel.load(path)
    boards = random_positions(16, 2, (1, 60))
    planes = np.concatenate([encode_board(b, b.turn) for b in boards])
    with torch.no_grad():
        expected = net(torch.from_numpy(planes)).numpy()
    got = model.logits(planes)
    assert got.shape == (16, 4096)
    assert np.abs(got - expected).max() < 0.05 * np.abs(expected).max()  # float16 weights
    assert (got.argmax(axis=1) == expected.argmax(axis=1)).mean() >= 0.9
    prior = model.prior(boards[0], list(boards[0].legal_moves))
    assert set(prior) == set(boards[0].legal_moves) and sum(prior.values()) == pytest.approx(1.0)
    batched = model.priors(boards[:3], [list(b.legal_moves) for b in boards[:3]])
    assert batched[0] == pytest.approx(prior)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("missing", "no such model file"),
        ("not zip", "not a model file"),
        ("foreign", "not a cbr-chess-model file"),
        ("shape", "has shape"),
        ("nan", "not finite"),
        ("version", "format version 9"),
        ("planes", "made for the planes 'engine.planes v2'"),
        ("no planes", "made for the planes None"),
    ],
)
def test_a_damaged_or_foreign_model_is_refused(tmp_path, damage, message):
    path = tmp_path / "m.npz"
    arrays = {k: np.zeros(s, np.float32) for k, s in array_shapes(1, 4).items()}
    meta = {"blocks": 1, "filters": 4}
    if damage == "not zip":
        path.write_bytes(b"not a zip at all")
    elif damage == "foreign":
        np.savez(path, weights=np.zeros(3))
    elif damage != "missing":
        save_model(path, arrays, meta)
        with np.load(path) as npz:
            stored = dict(npz)
        if damage == "shape":
            stored["head.b"] = np.zeros(65, np.float16)
        elif damage == "nan":
            stored["stem.b"] = np.full(4, np.nan, np.float16)
        elif damage in ("planes", "no planes"):  # a model for another encoding of the board
            other = json.loads(str(stored["meta"]))
            assert other.pop("planes") == FORMAT_ID
            if damage == "planes":
                other["planes"] = "engine.planes v2"
            stored["meta"] = np.array(json.dumps(other))
        else:
            stored["version"] = np.array(9)
        np.savez(path, **stored)
    with pytest.raises(ModelError, match=message):
        StyleModel.load(path)


# -- training ---------------------------------------------------------------------------------


def test_training_is_reproducible_and_resumes_to_the_same_weights(
    kosteniuk_casebase, tmp_path, monkeypatch
):
    straight = tmp_path / "straight.npz"
    result = train([kosteniuk_casebase], straight, TINY, progress=False)
    assert (
        result.steps == 8
        and 0 <= result.validation_top1 <= 1
        and result.validation_positions == 500
    )

    real, calls = train_module._step, []

    def interrupted(*args, **kwargs):
        if len(calls) == 5:
            raise KeyboardInterrupt
        calls.append(1)
        return real(*args, **kwargs)

    resumed = tmp_path / "resumed.npz"
    monkeypatch.setattr(train_module, "_step", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train([kosteniuk_casebase], resumed, TINY, checkpoint_every=2, progress=False)
    assert not resumed.exists() and (tmp_path / "resumed.npz.ckpt").exists()
    monkeypatch.setattr(train_module, "_step", real)
    train([kosteniuk_casebase], resumed, TINY, checkpoint_every=2, progress=False)
    a, b = StyleModel.load(straight), StyleModel.load(resumed)
    planes = encode(
        Casebase.load(kosteniuk_casebase).boards[:64], Casebase.load(kosteniuk_casebase).turn[:64]
    )
    assert np.array_equal(a.logits(planes), b.logits(planes))
    with pytest.raises(ValueError, match="another run"):
        train(
            [kosteniuk_casebase],
            resumed,
            TrainConfig(blocks=2, filters=8, positions=1024),
            progress=False,
        )


@pytest.mark.scenario  # trains two models for half a minute: make test-all
def test_a_trained_model_names_more_moves_than_an_untrained_one(kosteniuk_casebase, tmp_path):
    trained = tmp_path / "trained.npz"
    train(
        [kosteniuk_casebase],
        trained,
        TrainConfig(blocks=1, filters=32, epochs=6, batch=256, lr=3e-3),
        progress=False,
    )
    untrained = tmp_path / "untrained.npz"
    save_model(untrained, random_net(1, 32).export_arrays(), {"blocks": 1, "filters": 32})
    learned, n = legal_top1(trained, kosteniuk_casebase, 400)
    chance, _ = legal_top1(untrained, kosteniuk_casebase, 400)
    assert n == 400 and learned > chance + 0.1


def test_the_shipped_models_recipe_sets_the_training_options_and_the_command_line_wins():
    recipe = read_recipe(ROOT / "engine" / "style" / "models" / "style.toml")
    assert recipe["blocks"] == StyleModel.load(generic_model()).blocks
    args = build_parser(recipe).parse_args(["train", "x.npz", "-o", "m.npz", "--filters", "8"])
    assert (args.blocks, args.filters, args.epochs) == (recipe["blocks"], 8, recipe["epochs"])


def test_the_recipe_is_given_with_recipe_and_kbnk_deeps_layers_with_hidden_layers(capsys):
    parser = build_parser()
    assert parser.parse_args(
        ["train", "x.npz", "-o", "m.npz", "--recipe", "r.toml"]
    ).recipe == Path("r.toml")
    assert (
        parser.parse_args(["kbnk-deep", "-o", "k.npz", "--hidden-layers", "3"]).hidden_layers == 3
    )
    for old in (
        ["train", "x.npz", "-o", "m.npz", "--config", "r.toml"],
        ["kbnk-deep", "-o", "k.npz", "--depth", "3"],
    ):
        with pytest.raises(SystemExit):  # the old names (CHANGELOG.md) are unknown flags
            parser.parse_args(old)
        assert "unrecognized arguments: " + old[-2] in capsys.readouterr().err


def test_a_recipe_with_an_unknown_key_is_refused(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("blocks = 2\nfilter = 8\n")
    with pytest.raises(ValueError, match="unknown keys filter"):
        read_recipe(bad)
