"""``go searchmoves`` (issue #60, item 4): each word looked up among the legal moves' names, at most
:data:`SEARCHMOVES_READ` of them, so that a hostile line of 100,000 words costs the clock nothing;
the moves it keeps are the ones python-chess's ``parse_uci`` would (castling in either notation,
promotions), and the words it drops are named in one bounded line."""

from __future__ import annotations

import chess
import pytest
from uci_helpers import bestmoves, conversation, strings

from engine.uci import commands
from engine.uci.commands import SEARCHMOVES_READ, legal_names, parse_go

#: Boards whose castling and promotions python-chess names in more than one way.
BOARDS = [
    chess.Board(),
    chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"),  # both castlings, either notation
    chess.Board("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"),
    # a Shredder FEN on a standard board: f1h1, f1a1
    chess.Board("r4k1r/8/8/8/8/8/8/R4K1R w HAha - 0 1"),
    chess.Board("r4k1r/8/8/8/8/8/8/R4K1R w HAha - 0 1", chess960=True),
    # Chess960: e1h1, and e1g1 as well
    chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True),
    # e1g1 takes the rook
    chess.Board("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1", chess960=True),
    chess.Board("3qk3/1P6/8/8/8/8/6p1/4K2R w K - 0 1"),  # promotions, one a capture
]


def every_name() -> list[str]:
    """Every from-to pair, and the promotions from the second and seventh ranks onto the last
    ones."""
    names = [
        chess.square_name(a) + chess.square_name(b) for a in chess.SQUARES for b in chess.SQUARES
    ]
    for a in chess.SQUARES:
        for b in chess.SQUARES:
            if chess.square_rank(a) in (1, 6) and chess.square_rank(b) in (0, 7):
                names += [chess.square_name(a) + chess.square_name(b) + p for p in "qrbnk"]
    return names


def parsed(board: chess.Board, text: str) -> chess.Move | None:
    try:
        move = board.parse_uci(text)
    except ValueError:
        return None
    return move or None  # 0000 is no legal move


@pytest.mark.parametrize("board", BOARDS, ids=lambda b: b.fen() + (" 960" if b.chess960 else ""))
def test_the_names_are_what_parse_uci_takes(board):
    names = legal_names(board)
    assert {names.get(text) for text in every_name()} >= set(board.legal_moves)
    wrong = {
        text: (names.get(text), parsed(board, text))
        for text in every_name()
        if names.get(text) != parsed(board, text)
    }
    assert not wrong


def test_castling_in_both_notations_and_promotions_are_kept():
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    _, moves, problems = parse_go("searchmoves e1g1 e1h1 e1a1 e2e4 0000 E1G1".split(), board)
    assert moves == [
        chess.Move.from_uci("e1g1"),
        chess.Move.from_uci("e1c1"),
    ] and board.is_castling(moves[1])
    assert problems == ["searchmoves: e2e4, 0000, E1G1 are not legal moves here; ignored"]

    chess960 = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True)
    _, moves, problems = parse_go(["searchmoves", "e1g1", "e1a1", "depth", "2"], chess960)
    assert moves == [chess.Move.from_uci("e1h1"), chess.Move.from_uci("e1a1")] and not problems

    shredder = chess.Board("r4k1r/8/8/8/8/8/8/R4K1R w HAha - 0 1", chess960=True)
    limits, moves, problems = parse_go("searchmoves f1h1 f1g1 f1c1 movetime 100".split(), shredder)
    # f1g1: the king steps
    assert moves == [chess.Move.from_uci("f1h1"), chess.Move.from_uci("f1g1")]
    assert (
        problems == ["searchmoves: f1c1 is not a legal move here; ignored"]
        and limits.movetime == 100
    )

    promotion = chess.Board("3qk3/1P6/8/8/8/8/6p1/4K2R w K - 0 1")
    _, moves, problems = parse_go("searchmoves b7b8n b7b8 b7c8q b7d8r b7b8n".split(), promotion)
    assert moves == [chess.Move.from_uci("b7b8n")]  # once, however often it is listed
    assert problems == ["searchmoves: b7b8, b7c8q, b7d8r are not legal moves here; ignored"]


def test_an_empty_or_illegal_list_means_every_move():
    for tokens in (
        ["searchmoves"],
        ["searchmoves", "e2e5", "depth", "1"],
        ["depth", "1", "searchmoves", "0000"],
    ):
        _, moves, problems = parse_go(tokens, chess.Board())
        assert (
            moves is None and problems[-1] == "searchmoves lists no legal move: searching all moves"
        ), problems


class Counted:
    """Counts the calls of one of chess.Board's methods (monkeypatched)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        self.calls = 0
        original = getattr(chess.Board, name)

        def counted(board, *args, **kwargs):
            self.calls += 1
            return original(board, *args, **kwargs)

        monkeypatch.setattr(chess.Board, name, counted)


def huge_go(words: int, board: chess.Board) -> list[str]:
    """``go searchmoves`` with ``words`` words, legal moves (both castling notations) among junk,
    then a movetime."""
    legal = [board.uci(move) for move in board.legal_moves]
    listed = [f"q{i}" for i in range(words)]
    listed[3], listed[SEARCHMOVES_READ - 1] = legal[0], "e1h1"
    listed[SEARCHMOVES_READ + 5 : SEARCHMOVES_READ + 5 + len(legal)] = legal  # past the words read
    return ["searchmoves", *listed, "movetime", "100"]


def test_a_hostile_searchmoves_line_costs_bounded_work(monkeypatch):
    """100,000 words cost no more parsing and no more move generation than 2,000: the words are
    looked up, not parsed, and those after SEARCHMOVES_READ are not looked at."""
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    work = {}
    for words in (2000, 100_000):
        parse, generate = (
            Counted(monkeypatch, "parse_uci"),
            Counted(monkeypatch, "generate_legal_moves"),
        )
        looked = Counted(monkeypatch, "is_castling")
        limits, moves, problems = parse_go(huge_go(words, board), board)
        work[words] = (parse.calls, generate.calls, looked.calls)
        assert limits.movetime == 100  # the words after the list are still read
        first = next(iter(board.legal_moves))
        assert moves == [first, chess.Move.from_uci("e1g1")]
        assert problems == [
            f"searchmoves: q0, q1, q2 and {SEARCHMOVES_READ - 5} more are not legal moves here;"
            " ignored",
            f"searchmoves: only the first {SEARCHMOVES_READ} words are read;"
            f" the other {words - SEARCHMOVES_READ} ignored",
        ]
        monkeypatch.undo()
    assert work[2000] == work[100_000] and work[100_000][0] <= 4 and work[100_000][1] <= 4, work


def test_the_list_is_not_read_past_every_legal_move(monkeypatch):
    board = chess.Board("k7/8/8/8/8/8/8/K7 w - - 0 1")  # a1a2, a1b1, a1b2
    lookups = []

    class Names(dict):
        def get(self, key, default=None):
            lookups.append(key)
            return super().get(key, default)

    monkeypatch.setattr(commands, "legal_names", lambda b: Names(legal_names(b)))
    words = ["a1b2", "x", "a1a2", "a1b2", "a1b1"] + ["a1a2"] * 50_000
    _, moves, problems = parse_go(["searchmoves", *words], board)
    assert moves == [chess.Move.from_uci(m) for m in ("a1b2", "a1a2", "a1b1")] and len(lookups) == 5
    assert problems == [
        "searchmoves: x is not a legal move here; ignored",
        "searchmoves: every legal move is listed after 5 words; the other 50000 ignored",
    ]


@pytest.mark.slow
def test_a_huge_searchmoves_line_gets_a_move_from_the_list():
    """The fuzzer's line (seed 707): go movetime 100 searchmoves with 100,000 words; the engine
    answers with one of the legal moves listed, and says what it ignored in bounded lines."""
    board = chess.Board()
    board.push_uci("e2e4")
    listed = ["g8f6", "d7d5"]
    words = " ".join(listed[i // 1000 % 2] if i % 1000 == 7 else f"q{i}" for i in range(100_000))
    lines, stderr = conversation(
        [
            "position startpos moves e2e4",
            f"go movetime 100 searchmoves {words}",
            "isready",
            "go movetime 100 searchmoves d7d5 q1 e1e2",
        ],
        "--mode",
        "pure",
        "--casebase",
        "",
    )
    assert not stderr and max(map(len, lines)) < 4096
    first, second = bestmoves(lines)
    assert first == "g8f6" and second == "d7d5"  # only g8f6 is among the first 1000 words
    told = strings(lines)
    assert (
        f"only the first {SEARCHMOVES_READ} words are read; the other {100_000 - SEARCHMOVES_READ}"
        " ignored" in told
    )
    assert (
        "q0, q1, q2 and 996 more are not legal moves here" in told
        and "q1, e1e2 are not legal moves here" in told
    )
