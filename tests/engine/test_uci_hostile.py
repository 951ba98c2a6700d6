"""Hostile input found by the fuzzer at seed 708 (testing/fuzz_uci.py): a chooser name the system
refuses, searchmoves when no agent can be made, a clock no wait can last, a game of 100,000 moves,
and output the console's code page cannot write. In-process: what was said and played, and what
was copied, counted; never how long it took."""

from __future__ import annotations

import io
import sys
import threading

import chess
import pytest

from engine.agents import modes
from engine.agents.base import Decision, Reason
from engine.agents.modes import Maker, Mode
from engine.agents.options import NoSettings
from engine.agents.record import EngineLine, Record
from engine.search.leaves import past_counts
from engine.strength.chooser import Chooser, ChooserError
from engine.uci import protocol
from engine.uci.protocol import KEPT_PLIES, UciEngine, main_loop
from engine.uci.resources import AgentBuilder

A3 = chess.Move.from_uci("a2a3")
#: A knight shuffle, back where it started after four plies: no capture, no pawn move.
SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]


class RecordingAgent:
    """Plays a2a3 (or the first listed move) and keeps the boards it was given."""

    boards: list[chess.Board] = []

    def __init__(self, casebase, values, resources) -> None:
        pass

    def new_game(self, seed=None) -> None:
        pass

    def choose(self, board, moves=None, *, limits=None, stop=None, on_iteration=None) -> Decision:
        RecordingAgent.boards.append(board)
        move = moves[0] if moves else A3
        return Decision(
            move=move,
            reason=Reason.SEARCH,
            record=Record([EngineLine("recording")]),
            score=0,
            pv=[move],
        )


@pytest.fixture
def recording_mode(monkeypatch):
    RecordingAgent.boards = []
    monkeypatch.setitem(
        modes.MODES,
        "recording",
        Mode(
            lambda: Maker(NoSettings, RecordingAgent),
            "for tests",
            "recording anyway",
            casebase=False,
        ),
    )


def session(commands: list[str], **defaults: str) -> list[str]:
    out = io.StringIO()
    assert UciEngine(defaults, out=out).run(commands) == 0
    return out.getvalue().splitlines()


def bestmoves(lines: list[str]) -> list[str]:
    return [line.split()[1] for line in lines if line.startswith("bestmove")]


def strings(lines: list[str]) -> str:
    return "\n".join(line for line in lines if line.startswith("info string"))


# -- 1. a chooser named by a name the system refuses ---------------------------------------------


@pytest.mark.parametrize(
    "name", ["x" * 5000, "/tmp/" + "d" * 300 + "/chooser.npz"], ids=["5000 x", "a long folder"]
)
def test_a_chooser_name_the_system_refuses_is_a_clear_line(name):
    with pytest.raises(ChooserError, match="a name this system refuses for a file"):
        Chooser.load(name)
    builder = AgentBuilder()
    assert builder.resources.chooser(name) is None and builder.resources.chooser(name) is None
    told = [line for line in builder.news if "cannot load the chooser" in line]
    assert (
        len(told) == 1
        and "refuses for a file (File name too long)" in told[0]
        and len(told[0]) < 400
    ), told


# -- 2. no agent: the random move keeps to searchmoves -------------------------------------------


def test_without_an_agent_the_move_is_drawn_among_the_searchmoves(monkeypatch):
    def broken(casebase, values, resources):
        raise OSError(36, "File name too long")

    monkeypatch.setitem(
        modes.MODES,
        "broken",
        Mode(lambda: Maker(NoSettings, broken), "for tests", "nothing", casebase=False),
    )
    listed = {"a2a3", "h2h4"}
    lines = session(
        ["position startpos"] + ["go depth 1 searchmoves a2a3 h2h4 e9e9"] * 40, Mode="broken"
    )
    # 1 in 10 a go by chance alone
    assert len(bestmoves(lines)) == 40 and set(bestmoves(lines)) <= listed
    assert "cannot make the agent" in strings(lines)
    lines = session(["position startpos", "go depth 1 searchmoves e9e9"], Mode="broken")
    # none legal listed: any move
    assert chess.Board().is_legal(chess.Move.from_uci(bestmoves(lines)[0]))


# -- 3. a HumanTime wait longer than a wait may last; nothing loses a bestmove ---------------------


def test_a_human_pace_beyond_any_wait_waits_until_stop(recording_mode, monkeypatch):
    engine = UciEngine({"Mode": "recording", "HumanTime": "true"}, out=io.StringIO())
    waits: list[float | None] = []
    waiting = threading.Event()
    wait = engine._stop.wait

    def counted(timeout=None):
        waits.append(timeout)
        waiting.set()
        return wait(timeout)

    monkeypatch.setattr(engine._stop, "wait", counted)
    engine.handle("go wtime 100000000000000000 btime 1")
    assert waiting.wait(30)
    assert engine._searching()  # pacing, not dead
    engine.handle("stop")
    engine.run(["isready"])
    lines = engine.out.getvalue().splitlines()
    assert waits and all(t is not None and 1e6 < t <= threading.TIMEOUT_MAX for t in waits), waits
    assert bestmoves(lines) == ["a2a3"] and "error in" not in strings(lines)


def test_an_error_after_the_choice_still_sends_the_bestmove(recording_mode, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("lines cannot be written")

    monkeypatch.setattr(protocol, "decision_info", broken)
    lines = session(
        ["go depth 1", "go infinite", "stop", "go depth 1 searchmoves h2h3"], Mode="recording"
    )
    assert bestmoves(lines) == ["a2a3", "a2a3", "h2h3"]
    assert strings(lines).count("error in the search: lines cannot be written") == 3


# -- 4. a game of 100,000 moves: the go copies what its readers need, no more
# -----------------------


def played(moves: list[str], fen: str = chess.STARTING_FEN) -> chess.Board:
    board = chess.Board(fen)
    for move in moves:
        board.push_uci(move)
    return board


def test_a_long_game_is_copied_to_a_bounded_history(recording_mode):
    # 10,000 plies without a capture or a pawn move (the fuzzer's had 100,000)
    moves = SHUFFLE * 2500
    lines = session([f"position startpos moves {' '.join(moves)}", "go depth 1"], Mode="recording")
    assert bestmoves(lines) == ["a2a3"]
    (given,) = RecordingAgent.boards
    full = played(moves)
    assert len(given.move_stack) == KEPT_PLIES and given.move_stack == full.move_stack[-KEPT_PLIES:]
    assert (
        given.fen() == full.fen() and given.halfmove_clock == 10_000 and given.ply() == full.ply()
    )
    assert given.is_repetition(3) and given.can_claim_draw() and given.is_seventyfive_moves()


#: A prefix of pawn moves, a reversible stretch of 148 plies, then a capture and a knight's move:
#: more plies than are kept, but the lc0 history's oldest positions repeat positions 140 plies
#: before them.
OPENING = ["e2e4", "d7d5", "a2a3", "a7a6", "a3a4", "a6a5", "h2h3", "h7h6", "h3h4", "h6h5"]
STRETCH = SHUFFLE * 37
AFTER_CAPTURE = [*OPENING, *STRETCH, "e4d5", "g8f6"]
#: 98 reversible plies ending the game, after 92 plies: the search reads every position of the
#: stretch.
STRETCH_98 = [*OPENING, *(SHUFFLE * 20), "b2b3", "b7b6", *(SHUFFLE * 24), "b1c3", "b8c6"]
#: A reversible stretch of exactly 150 plies ending the game (the 75-move rule's).
STRETCH_150 = [*OPENING, *(SHUFFLE * 37), "b1c3", "b8c6"]


@pytest.mark.parametrize(
    "moves",
    [AFTER_CAPTURE, STRETCH_98, STRETCH_150, OPENING, SHUFFLE * 500],
    ids=[
        "capture after a stretch",
        "98 reversible plies",
        "150 reversible plies",
        "short",
        "shuffle",
    ],
)
def test_what_the_readers_of_the_past_see_is_as_in_the_whole_game(recording_mode, moves):
    from lc0net.planes import packed

    full = played(moves)
    lines = session([f"position startpos moves {' '.join(moves)}", "go depth 1"], Mode="recording")
    (given,) = RecordingAgent.boards
    assert len(given.move_stack) == min(len(moves), KEPT_PLIES) and len(bestmoves(lines)) == 1
    for got, want in zip(packed(given), packed(full), strict=True):
        assert (got == want).all()  # the lc0 network's 8 positions and their repetition marks
    # from 100 on every node below the root is a draw: the past is not read
    if full.halfmove_clock < 100:
        assert past_counts(given) == past_counts(full)  # the search's repetitions


# -- 5. output the console's code page cannot write -----------------------------------------------


def test_characters_the_output_cannot_encode_become_question_marks(monkeypatch):
    """Windows' piped stdout is in the locale's code page, strict: a Cyrillic name once crashed
    it."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii", errors="strict", line_buffering=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stdin", io.StringIO("uci\nКостенюк\nisready\nquit\n"))
    assert main_loop({"Mode": "pure", "Casebase": ""}) == 0
    out.flush()
    text = raw.getvalue().decode("ascii").splitlines()
    assert "info string unknown command '????????' ignored" in text
    assert text[-1] == "readyok" and "uciok" in text
    assert out.line_buffering  # each line still goes out at once
