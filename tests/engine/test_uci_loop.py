"""The UCI loop in-process: the mode registry, agents' search reports, agents that fail, bad
input."""

from __future__ import annotations

import dataclasses
import io
import zipfile

import chess
import pytest
from engine_helpers import favourite_model
from uci_helpers import session, strings

from common.text import ECHO_LIMIT
from engine.agents import modes
from engine.agents.base import Decision, Reason
from engine.agents.modes import Maker, Mode
from engine.agents.options import NoSettings, Option, setting
from engine.agents.record import EngineLine, Record
from engine.search.limits import SearchLimits
from engine.search.result import RootScore, SearchResult
from engine.uci.protocol import UciEngine

A3 = chess.Move.from_uci("a2a3")


@dataclasses.dataclass(frozen=True)
class ScriptedSettings(NoSettings):
    fail: bool = setting("Fail", bool)


class ScriptedAgent:
    """An agent of a made-up mode: reports a search iteration, or fails when told to."""

    def __init__(self, casebase, settings, resources) -> None:
        self.fail = settings.fail
        self.seeds: list[int | None] = []
        self.limits: list[SearchLimits | None] = []

    def new_game(self, seed=None) -> None:
        self.seeds.append(seed)

    def choose(self, board, moves=None, *, limits=None, stop=None, on_iteration=None) -> Decision:
        if self.fail:
            raise RuntimeError("deliberate failure")
        self.limits.append(limits)
        on_iteration(
            SearchResult(
                move=A3,
                score=17,
                depth=3,
                seldepth=5,
                nodes=100,
                seconds=0.01,
                pv=[A3],
                scores={A3: RootScore(17, True)},
            )
        )
        return Decision(
            move=A3, reason=Reason.SEARCH, record=Record([EngineLine("scripted")]), score=17
        )


@pytest.fixture
def scripted_mode(monkeypatch):
    mode = Mode(
        lambda: Maker(ScriptedSettings, ScriptedAgent),
        "for tests",
        "scripting anyway",
        (Option("Fail", "check", False),),
    )
    monkeypatch.setitem(modes.MODES, "scripted", mode)


def test_a_registered_mode_is_offered_with_its_options(scripted_mode):
    lines = session(["uci"], Casebase="")
    assert (
        "option name Mode type combo default guided var pure var guided var chess0 var scripted"
        in lines
    )
    assert "option name Fail type check default false" in lines


def test_agent_iterations_and_score_reach_the_gui(scripted_mode):
    lines = session(
        ["setoption name Mode value scripted", "setoption name Seed value 4", "go depth 3"],
        Casebase="",
    )
    assert "info depth 3 seldepth 5 score cp 17 nodes 100 nps 10000 time 10 pv a2a3" in lines
    assert "info string scripted" in lines
    assert "info string no casebase set (option Casebase); scripting anyway" in lines
    assert any(
        line.startswith("info depth 1 seldepth 1 score cp 17 nodes 1") and line.endswith(" pv a2a3")
        for line in lines
    )
    assert lines[-1] == "bestmove a2a3"


def test_a_failing_agent_still_answers_with_a_legal_move(scripted_mode):
    lines = session(
        ["position startpos moves e2e4", "go"], Casebase="", Mode="scripted", Fail="true"
    )
    assert "info string error while choosing a move: deliberate failure" in lines
    move = chess.Move.from_uci(lines[-1].split()[1])
    board = chess.Board()
    board.push_uci("e2e4")
    assert board.is_legal(move)


def test_an_agent_that_cannot_be_made_still_answers(monkeypatch):
    def broken(casebase, values, resources):
        raise RuntimeError("no agent today")

    monkeypatch.setitem(
        modes.MODES, "broken", Mode(lambda: Maker(NoSettings, broken), "for tests", "nothing")
    )
    lines = session(["isready", "go"], Casebase="", Mode="broken")
    assert "readyok" in lines and lines[-1].startswith("bestmove")
    assert chess.Board().is_legal(chess.Move.from_uci(lines[-1].split()[1]))
    assert "cannot make the agent: no agent today" in strings(lines)


def test_unknown_option_default_is_refused():
    with pytest.raises(ValueError, match="no option named"):
        UciEngine({"Nonsense": "1"}, out=io.StringIO())


# -- values the system refuses, limits no search can honour, oversized input -------------------


def unreadable(tmp_path, monkeypatch) -> str:
    """A casebase file the user may not read (root may read anything, so opening it is refused
    as the system would refuse it)."""
    path = tmp_path / "locked.npz"
    path.write_bytes(b"PK\x05\x06" + bytes(18))
    path.chmod(0)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(zipfile, "ZipFile", refuse)
    return str(path)


@pytest.mark.parametrize("mode", ["pure", "guided"])
@pytest.mark.parametrize(
    "casebase", ["with\x00nul.npz", "x" * 300 + ".npz", "/" + "d" * 300 + "/x.npz", "unreadable"]
)
def test_a_casebase_path_the_system_refuses_gets_an_answer(tmp_path, monkeypatch, mode, casebase):
    if casebase == "unreadable":
        casebase = unreadable(tmp_path, monkeypatch)
    lines = session(
        [
            f"setoption name Mode value {mode}",
            f"setoption name Casebase value {casebase}",
            "isready",
            "go depth 1",
            "isready",
        ]
    )
    assert lines.count("readyok") == 2
    (best,) = [line.split()[1] for line in lines if line.startswith("bestmove")]
    assert chess.Board().is_legal(chess.Move.from_uci(best))
    assert "cannot load casebase" in strings(lines) or "no such casebase file" in strings(lines)


@pytest.mark.parametrize(
    ("go", "complaint"),
    [
        ("go depth 0", "go depth 0 is below 1: ignored"),
        ("go depth -3", "go depth -3 is below 1: ignored"),
        ("go mate 0", "go mate 0 is below 1: ignored"),
        ("go nodes 0", "go nodes 0 is below 1: ignored"),
        ("go wtime -5 btime -5", "go wtime -5 is negative: using 0"),
        (f"go wtime 1{'0' * 309} btime 1000", "go wtime 10000000...(310 digits) is beyond"),
        (f"go movetime 1{'0' * 309}", "go movetime 10000000...(310 digits) is beyond"),
        ("go depth 1e309", "go depth needs a whole number; ignored"),
    ],
)
@pytest.mark.slow
@pytest.mark.parametrize("mode", ["pure", "guided"])
def test_limits_no_search_can_honour_are_said_and_searched_normally(go, complaint, mode, capsys):
    lines = session(
        [
            f"setoption name Mode value {mode}",
            "position startpos moves e2e4",
            go.replace("go ", "go nodes 300 ", 1) if "movetime" in go else go,
        ],
        Casebase="",
    )
    assert f"info string {complaint}" in "\n".join(lines)
    board = chess.Board()
    board.push_uci("e2e4")
    assert board.is_legal(chess.Move.from_uci(lines[-1].split()[1]))
    assert "error" not in strings(lines) and "Traceback" not in capsys.readouterr().err


def test_oversized_unknown_command_is_echoed_cut_short():
    lines = session(["x" * 1_000_000 + " isready"], Casebase="")
    assert lines[-1] == "readyok"
    (complaint,) = [line for line in lines if "unknown command" in line]
    assert len(complaint) < 300 and "(1000000 characters)" in complaint


@pytest.mark.parametrize(
    ("mode", "prior", "fallback"),
    [
        ("pure", "blend", "playing uniformly random legal moves"),
        ("guided", "cases", "playing the search's best move"),
        ("guided", "blend", "the style model proposes alone"),
    ],
)
def test_without_a_casebase_each_mode_says_what_it_does(mode, prior, fallback, tmp_path):
    model = favourite_model(tmp_path / "e4.npz", chess.E4)
    lines = session(
        [
            f"setoption name Mode value {mode}",
            f"setoption name Prior value {prior}",
            f"setoption name Model value {model}",
            "go depth 1",
        ],
        Casebase="",
    )
    assert f"info string no casebase set (option Casebase); {fallback}" in lines


@pytest.mark.parametrize("damage", ["missing", "not a model"])
def test_a_missing_or_damaged_model_is_refused_and_the_cases_propose(
    kosteniuk_casebase, tmp_path, damage
):
    path = tmp_path / "model.npz"
    if damage == "not a model":
        path.write_bytes(b"PK garbage")
    lines = session(
        [
            "setoption name Mode value guided",
            f"setoption name Model value {path}",
            "isready",
            "go depth 1",
        ],
        Casebase=str(kosteniuk_casebase),
    )
    assert lines.count("readyok") == 1 and lines[-1].startswith("bestmove")
    assert f"info string cannot load model: {path}" in "\n".join(lines)
    assert "the cases propose alone" in strings(
        lines
    ) and "nearest cases of Alexandra Kosteniuk" in strings(lines)


def test_a_model_set_by_option_proposes(kosteniuk_casebase, tmp_path):
    model = favourite_model(tmp_path / "e4.npz", chess.E4)
    lines = session(
        [
            "setoption name Mode value guided",
            f"setoption name Model value {model}",
            "setoption name Prior value model",
            "go depth 1",
        ],
        Casebase=str(kosteniuk_casebase),
    )
    assert "the style model (1x4) proposes e4" in strings(lines) and lines[-1] == "bestmove e2e4"


def test_an_invalid_fen_of_a_megabyte_is_echoed_cut_short():
    fen = "x" * 1_000_000 + " w - - 0 1"
    lines = session([f"position fen {fen}", "isready"], Casebase="")
    told = [line for line in lines if "invalid FEN" in line]
    assert (
        len(told) == 1
        and told[0].startswith("info string")
        and told[0].endswith("position unchanged")
    )
    assert max(len(line) for line in lines) == len(told[0])
    # the FEN and python-chess's quote of it, each clipped
    assert len(told[0]) < 3 * ECHO_LIMIT + 200
    assert lines[-1] == "readyok"


def test_the_old_name_of_chess0_mode_is_refused_and_the_mode_stays():
    lines = session(
        ["setoption name Mode value search", "setoption name Depth value 1", "go depth 1"],
        Casebase="",
    )
    assert "info string Mode takes one of pure, guided, chess0, not 'search'; ignored" in lines
    assert not any(line.startswith("info string classic style") for line in lines)
    assert lines[-1].startswith("bestmove ") and lines[-1] != "bestmove 0000"


def test_the_move_overhead_reaches_the_agents_limits_and_old_option_names_are_unknown(
    scripted_mode,
):
    out = io.StringIO()
    engine = UciEngine({"Casebase": ""}, out=out)
    engine.run(
        [
            "setoption name Mode value scripted",
            "setoption name move overhead value 250",
            "setoption name JudgeHash value 64",
            "go wtime 60000 btime 60000",
            "isready",
        ]
    )
    agent = engine.builder.agent(engine.values)
    assert isinstance(agent.agent, ScriptedAgent)
    assert [limits.overhead for limits in agent.agent.limits] == [250]
    assert engine.values["Hash"] == 16 and engine.values["Move Overhead"] == 250
    assert "info string no option named 'JudgeHash'; ignored" in out.getvalue().splitlines()
