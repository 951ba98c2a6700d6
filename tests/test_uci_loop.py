"""The UCI loop in-process: the mode registry, agents' info lines, agents that fail."""

from __future__ import annotations

import io

import chess
import pytest

from engine import uci
from engine.agent import Decision
from engine.uci import Mode, Option, UciEngine


class ScriptedAgent:
    """An agent of a made-up mode: reports search info, or fails when told to."""

    def __init__(self, casebase, values) -> None:
        self.fail = values["Fail"]
        self.seeds: list[int | None] = []

    def new_game(self, seed=None) -> None:
        self.seeds.append(seed)

    def choose(self, board, moves=None, *, limits=None, stop=None, info=None) -> Decision:
        if self.fail:
            raise RuntimeError("deliberate failure")
        info("depth 3 score cp 17 nodes 100 pv a2a3")
        return Decision(chess.Move.from_uci("a2a3"), ["scripted"], None, None, 0, score_cp=17)


@pytest.fixture
def scripted_mode(monkeypatch):
    mode = Mode(ScriptedAgent, "for tests", (Option("Fail", "check", False),))
    monkeypatch.setitem(uci.MODES, "scripted", mode)


def session(commands: list[str], **defaults: str) -> list[str]:
    out = io.StringIO()
    assert UciEngine(defaults, out=out).run(commands) == 0
    return out.getvalue().splitlines()


def test_a_registered_mode_is_offered_with_its_options(scripted_mode):
    lines = session(["uci"], Casebase="")
    assert "option name Mode type combo default pure var pure var guided var scripted" in lines
    assert "option name Fail type check default false" in lines


def test_agent_info_and_score_reach_the_gui(scripted_mode):
    lines = session(["setoption name Mode value scripted", "setoption name Seed value 4", "go depth 3"], Casebase="")
    assert "info depth 3 score cp 17 nodes 100 pv a2a3" in lines
    assert "info string scripted" in lines
    assert any(line.startswith("info time") and "score cp 17 pv a2a3" in line for line in lines)
    assert lines[-1] == "bestmove a2a3"


def test_a_failing_agent_still_answers_with_a_legal_move(scripted_mode):
    lines = session(["position startpos moves e2e4", "go"], Casebase="", Mode="scripted", Fail="true")
    assert "info string error while choosing a move: deliberate failure" in lines
    move = chess.Move.from_uci(lines[-1].split()[1])
    board = chess.Board()
    board.push_uci("e2e4")
    assert board.is_legal(move)


def test_unknown_option_default_is_refused():
    with pytest.raises(ValueError, match="no option named"):
        UciEngine({"Nonsense": "1"}, out=io.StringIO())
