"""The lines testing/fuzz_uci.py sends: positions, and random lines of every kind (the fixtures,
files and programs given as option values, and the sessions' scenarios: fuzz_uci_sessions.py)."""

from __future__ import annotations

import random
from collections.abc import Callable

import chess

from testing.fuzz_uci_protocol import Option
from testing.fuzz_uci_sessions import SHIPPED_CASEBASE, Fixtures, option_kind

# -- positions -----------------------------------------------------------------------------


SPECIAL_FENS = (
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",  # mated: no legal move
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
    "8/8/8/4k3/8/8/8/4K2Q w - - 0 1",  # KQK (the engine's tables)
    "8/8/8/4k3/8/8/8/R3K3 b - - 0 1",  # KRK, the lone king to move
    "8/8/8/4k3/8/8/8/2B1KN2 w - - 0 1",  # KBNK
    "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1",  # KPK
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",  # bare kings: drawn, yet moves exist
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # en passant
    "8/P7/8/8/8/8/k6K/8 w - - 0 1",  # a promotion
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",  # castling both ways
    "8/8/8/4k3/8/8/8/4K2R w - - 99 80",  # the fifty-move rule's last move
    "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",  # 218 legal moves
    "rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq g6 0 3",  # mate in one
)
MALFORMED_POSITIONS = (
    "position",
    "position startpos moves",
    "position fen",
    "position fen moves e2e4",
    "position startpos e2e4",
    "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w - - 0 1",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
    "position startpos moves e2e4 moves e7e5",
    "position fen garbage",
    "position fen 4k3/8/8/8/8/8/8/4K3 x - - 0 1",
    "position moves e2e4",
    "position fen 4k3/8/8/8/8/8/8/4K3 w - - -1 -1",
    "position fen kk6/8/8/8/8/8/8/KK6 w - - 0 1",
    "position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1",
    "position startpos moves e2e4 e7e5 e1e2 e8e7 e2e1 e7e8 " * 20,
    "position startpos moves E2E4",
    "position startpos moves e2e4\x00",
    "position fen \xff\xfe",
    "position startpos moves 0000 0000 e2e4",
)
ILLEGAL_MOVES = (
    "e2e5",
    "a1a1",
    "e1g1",
    "e7e8q",
    "h9h1",
    "zz",
    "e2e4e",
    "e2",
    "a7a8k",
    "0000x",
    "e1c1",
)


def random_board(rng: random.Random, plies: int) -> chess.Board:
    """A position ``plies`` random legal moves from the start (or from a special FEN)."""
    board = chess.Board(rng.choice(SPECIAL_FENS)) if rng.random() < 0.25 else chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        board.push(rng.choice(moves))
    return board


def position_line(board: chess.Board) -> str:
    """``position startpos|fen F [moves ...]`` for ``board`` with its move stack."""
    root = board.root()
    start = "startpos" if root.fen() == chess.STARTING_FEN else f"fen {root.fen()}"
    moves = " ".join(move.uci() for move in board.move_stack)
    return f"position {start}" + (f" moves {moves}" if moves else "")


# -- random lines --------------------------------------------------------------------------


class LineMaker:
    """Random lines of every kind, for the position in force and the options the engine declared."""

    def __init__(
        self, rng: random.Random, fixtures: Fixtures, *, unsafe_resources: bool = False
    ) -> None:
        self.rng = rng
        self.fixtures = fixtures
        self.unsafe_resources = unsafe_resources
        self.board = chess.Board()
        self.options: dict[str, Option] = {}

    def fill(self, value: str) -> str:
        """``value`` with a fixture's path (or a rating) for ``{name}``."""
        bad = self.rng.choice(
            [
                self.fixtures.garbage,
                self.fixtures.truncated,
                self.fixtures.damaged,
                self.fixtures.empty,
            ]
        )
        names = {
            "{shipped}": str(SHIPPED_CASEBASE),
            "{missing}": str(self.fixtures.missing),
            "{bad}": str(bad),
            "{liar}": str(self.fixtures.liar),
            "{garbage}": str(self.fixtures.garbage),
            "{elo}": str(self.rng.randrange(1000, 3001)),
        }
        return names.get(value, value)

    def next(
        self, board: chess.Board, options: dict[str, Option]
    ) -> tuple[str, str | bytes, bytes]:
        """A random line's kind, text and ending (now and then CRLF) for ``board`` and
        ``options``."""
        self.board, self.options = board, options
        kinds: list[tuple[str, float, Callable[[], str | bytes]]] = [
            ("setoption", 18, self.setoption_line),
            ("position", 14, self.position_line),
            ("go", 22, self.go_line),
            ("isready", 12, lambda: "isready"),
            ("ucinewgame", 4, lambda: "ucinewgame"),
            ("garbage", 10, self.garbage_line),
            ("stop", 4, lambda: "stop"),
            ("ponderhit", 3, lambda: "ponderhit"),
            (
                "other",
                4,
                lambda: self.rng.choice(
                    [
                        "debug on",
                        "debug off",
                        "debug",
                        "register later",
                        "register name x code y",
                        "uci",
                        "",
                    ]
                ),
            ),
        ]
        name, _, make = self.rng.choices(kinds, weights=[weight for _, weight, _ in kinds])[0]
        line = make()
        return name, line, b"\r\n" if self.rng.random() < 0.05 else b"\n"

    def setoption_line(self) -> str | bytes:
        rng = self.rng
        if not self.options or rng.random() < 0.05:
            return rng.choice(
                [
                    "setoption",
                    "setoption name",
                    "setoption value 5",
                    "setoption name NoSuch value 1",
                    "setoption name Hash value",
                    "setoption name  hash  value 8",
                    "setoption name MULTIPV value 2",
                    "setoption name Move Overhead value 30 value 40",
                ]
            )
        option = rng.choice(list(self.options.values()))
        value = self.option_value(option)
        if value is None:
            return f"setoption name {option.name}"
        return f"setoption name {option.name} value {value}"

    def option_value(self, option: Option) -> str | None:
        """A valid or invalid value for ``option`` (None: no value at all)."""
        rng = self.rng
        if rng.random() < 0.04:
            return None
        if option.kind == "spin" and option.minimum is not None and option.maximum is not None:
            low, high = option.minimum, option.maximum
            if option.name in ("Hash", "Threads") and not self.unsafe_resources:
                high = min(high, 256 if option.name == "Hash" else 2)
            return str(
                rng.choice(
                    [
                        rng.randint(low, high),
                        rng.randint(low, high),
                        low,
                        high,
                        low - 1,
                        option.maximum + 1,
                        10**30,
                        -(10**30),
                        "",
                        "abc",
                        "1.5",
                        " 7",
                        "0x1f",
                        "+5",
                        "\u0663",
                        "1_0",
                        str(rng.randint(low, high)) + " junk",
                    ]
                )
            )
        if option.kind == "check":
            return rng.choice(
                ["true", "false", "true", "false", "TRUE", "1", "0", "yes", "", "maybe"]
            )
        if option.kind == "combo":
            choices = option.choices or ["x"]
            return rng.choice(
                choices * 3
                + [rng.choice(choices).upper(), "", "nonsense", rng.choice(choices) + " extra"]
            )
        if option.kind == "button":
            return rng.choice([None, None, "x"])
        values = self.fixtures.files(option_kind(option.name)) + self.fixtures.unsendable()
        return rng.choice(values + ["\xff\xfe", " spaced  value ", "x" * 5000])

    def position_line(self) -> str | bytes:
        rng = self.rng
        roll = rng.random()
        if roll < 0.6:
            return position_line(random_board(rng, rng.choice([0, 1, 2, 5, 10, 20, 40, 80, 200])))
        if roll < 0.8:  # a legal line with one illegal move in it
            board = random_board(rng, rng.randrange(0, 20))
            moves = [m.uci() for m in board.move_stack]
            moves.insert(rng.randrange(len(moves) + 1), rng.choice(ILLEGAL_MOVES))
            root = board.root()
            start = "startpos" if root.fen() == chess.STARTING_FEN else f"fen {root.fen()}"
            return f"position {start} moves {' '.join(moves)}"
        if roll < 0.97:
            return rng.choice(MALFORMED_POSITIONS)
        return "position startpos moves " + " ".join(
            rng.choice(ILLEGAL_MOVES) for _ in range(10_000)
        )

    def go_line(self) -> str:
        rng = self.rng
        board = self.board
        own, other = ("wtime", "btime") if board.turn else ("btime", "wtime")
        roll = rng.random()
        if roll < 0.15:
            body = f"depth {rng.choice([1, 1, 2, 2, 3, 4, 0, -1, 99, 10**20, 'x'])}"
        elif roll < 0.27:
            body = f"nodes {rng.choice([1, 10, 100, 1000, 5000, 20000, 0, -5, 10**18])}"
        elif roll < 0.42:
            body = f"movetime {rng.choice([1, 10, 50, 100, 200, 500, 0, -100, 10**16])}"
        elif roll < 0.62:  # clocks
            mine = rng.choice([1, 1, 10, 100, 500, 1000, 3000, 0, -50, 10**17])
            body = f"{own} {mine} {other} {rng.choice([1, 1000, 60_000])}"
            if rng.random() < 0.5:
                body += (
                    f" winc {rng.choice([0, 10, 100, 2000])} binc {rng.choice([0, 10, 100, 2000])}"
                )
            if rng.random() < 0.3:
                body += f" movestogo {rng.choice([1, 2, 40, 0, -1])}"
        elif roll < 0.70:
            body = "infinite"
        elif roll < 0.80:  # ponder, with a clock or not; ponderhit or stop comes later
            body = "ponder " + rng.choice(
                [
                    f"wtime {rng.choice([100, 2000])} btime {rng.choice([100, 2000])}",
                    "movetime 200",
                    "depth 2",
                    "infinite",
                    "",
                ]
            )
        elif roll < 0.92:
            body = (
                rng.choice(["depth 2", "movetime 100", "nodes 500", "infinite"])
                + " searchmoves "
                + self.searchmoves()
            )
        else:
            body = rng.choice(
                [
                    "",
                    "mate 1",
                    "mate 0",
                    "depth",
                    "movetime abc",
                    "depth 1 depth 2",
                    "depth 1 frobnicate 7",
                    "wtime 100 btime 100 ponder infinite",
                    "movetime 50 movestogo 0",
                    f"depth 1 {' '.join(f'z{i}' for i in range(2000))}",
                ]
            )
        return f"go {body}".rstrip()

    def searchmoves(self) -> str:
        rng = self.rng
        legal = [m.uci() for m in self.board.legal_moves]
        roll = rng.random()
        if roll < 0.45 and legal:
            return " ".join(rng.sample(legal, rng.randint(1, min(3, len(legal)))))
        if roll < 0.65:
            return " ".join(rng.choice(ILLEGAL_MOVES) for _ in range(rng.randint(1, 3)))
        if roll < 0.8:
            return " ".join(rng.sample(legal, min(2, len(legal))) + [rng.choice(ILLEGAL_MOVES)])
        if roll < 0.9:
            return rng.choice(["0000", f"0000 {legal[0] if legal else 'e2e4'}", "E2E4", ""])
        filler = legal or ["e2e4"]
        return " ".join(
            rng.choice(filler) if rng.random() < 0.5 else f"q{i}" for i in range(100_000)
        )

    def garbage_line(self) -> str | bytes:
        rng = self.rng
        roll = rng.random()
        if roll < 0.3:
            words = [
                "foo",
                "gogo",
                "isready2",
                "Go",
                "STOP",
                "positions",
                "setoptions",
                "\u2603",
                "ready?",
                "--help",
                "-1",
                "ponder",
                "infinite",
                "moves",
                "startpos",
                "fen",
                "name",
                "value",
                "bestmove",
                "readyok",
            ]
            return " ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
        if roll < 0.5:  # bytes, without line ends
            return bytes(b for b in rng.randbytes(rng.randint(1, 200)) if b not in (10, 13))
        if roll < 0.6:
            return "\x00" * rng.randint(1, 50)
        if roll < 0.7:
            return "x" * rng.choice([5000, 100_000])
        if roll < 0.8:  # a command after unknown words: UCI says the rest of the line counts
            return rng.choice(
                [
                    "junk isready",
                    "hello go depth 1",
                    "xx position startpos moves e2e4",
                    "?? stop",
                    "\x00 ucinewgame",
                ]
            )
        return rng.choice(
            [" ", "\t", "   isready   ", "\tgo\tdepth\t1", "go\u00a0depth 1", "\ufeffisready"]
        )
