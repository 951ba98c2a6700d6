"""One game under the experiment's rules and clocks (experiment.md §1), and its PGN (§2)."""

import io
import shlex
import sys
import time

import chess
import chess.pgn
import pytest
from judge_helpers import SCRIPT

from engine.agents.base import Decision, Reason
from engine.agents.record import EngineLine, Record
from engine.cbr.configurations import parse_configurations
from engine.outside.clock import TimeControl
from tournament.game import play_game
from tournament.pgnout import RunTags, game_pgn, read_results
from tournament.players import Lineup, engine_entrant
from tournament.schedule import build_schedule

LONG = TimeControl(40, 5400)


class Scripted:
    """A side that plays the given UCI moves in turn, 'thinking' for ``think`` seconds of a fake
    timer."""

    def __init__(self, moves, timer=None, think=0.0):
        self.moves = [chess.Move.from_uci(m) for m in moves.split()]
        self.timer, self.think, self.calls = timer, think, 0

    def choose(self, board, *, limits=None):
        self.calls += 1
        self.limits = limits
        if self.timer is not None:
            self.timer.now += self.think
        return Decision(
            move=self.moves.pop(0) if self.moves else None,
            reason=Reason.CASE,
            record=Record([EngineLine("scripted")]),
        )


class FakeTimer:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def game(white, black, fen=None, control=LONG, **kwargs):
    board = chess.Board(fen) if fen else None
    return play_game(
        Scripted(white, **kwargs.pop("w", {})),
        Scripted(black, **kwargs.pop("b", {})),
        control,
        board=board,
        **kwargs,
    )


def test_checkmate_ends_the_game():
    record = game("f2f3 g2g4", "e7e5 d8h4")
    assert (record.result, record.termination, record.plies) == ("0-1", "checkmate", 4)


def test_stalemate_ends_the_game_as_a_draw():
    record = game("b5b6", "", fen="k7/8/K7/1Q6/8/8/8/8 w - - 0 1")
    assert record.board.fen().startswith("k7/8/KQ6/")
    assert (record.result, record.termination) == ("1/2-1/2", "stalemate")


def test_insufficient_material_ends_the_game_at_once():
    record = game("e4d5", "", fen="4k3/8/8/3q4/4K3/8/8/8 w - - 0 1")
    assert (record.result, record.termination, record.plies) == (
        "1/2-1/2",
        "insufficient material",
        1,
    )


def test_threefold_repetition_ends_the_game_when_the_position_occurs_the_third_time():
    shuffle = "g1f3 f3g1 g1f3 f3g1 g1f3"
    record = game(shuffle, "g8f6 f6g8 g8f6 f6g8 g8f6")
    # The start position occurs for the third time after ply 8: no claim, no further move.
    assert (record.result, record.termination, record.plies) == (
        "1/2-1/2",
        "threefold repetition",
        8,
    )


def test_fifty_move_rule_ends_the_game_after_100_quiet_half_moves():
    record = game("a1a2 a2a1", "h8h7 h7h8", fen="7k/8/8/8/8/8/8/R3K3 w - - 98 80")
    assert (record.result, record.termination, record.plies) == ("1/2-1/2", "fifty-move rule", 2)


def test_checkmate_on_the_hundredth_half_move_is_a_win_not_a_draw():
    record = game("a1a8", "", fen="7k/6pp/8/8/8/8/8/R3K3 w - - 99 80")
    assert (record.result, record.termination) == ("1-0", "checkmate")


def test_flag_fall_loses_and_is_charged_with_the_measured_time():
    timer = FakeTimer()
    record = game(
        "e2e4 d2d4",
        "e7e5 d7d5",
        control=TimeControl(40, 5),
        timer=timer,
        w={"timer": timer, "think": 1.0},
        b={"timer": timer, "think": 3.0},
    )
    # Black used 3 s for its first move, 3 more for its second: its flag fell at move 2.
    assert (record.result, record.termination, record.plies) == ("1-0", "time forfeit", 3)
    assert record.clock.used == {chess.WHITE: 2.0, chess.BLACK: 6.0}
    assert not record.clock.requirement_met


def test_flag_fall_draws_when_the_opponent_cannot_mate():
    timer = FakeTimer()
    record = game(
        "",
        "h8h7",
        fen="7k/8/8/8/8/8/8/Q3K3 b - - 0 1",
        control=TimeControl(None, 1),
        timer=timer,
        b={"timer": timer, "think": 2.0},
    )
    # Black (king alone) oversteps; White could mate: Black loses.
    assert (record.result, record.termination) == ("1-0", "time forfeit")
    record = game(
        "a1a2",
        "",
        fen="7k/8/8/8/8/8/8/Q3K3 w - - 0 1",
        control=TimeControl(None, 1),
        timer=timer,
        w={"timer": timer, "think": 2.0},
    )
    # White oversteps, but Black's lone king cannot mate: a draw.
    assert (record.result, record.termination) == ("1/2-1/2", "time forfeit")


def test_real_clock_measures_thinking_time():
    class Slow(Scripted):
        def choose(self, board, *, limits=None):
            time.sleep(0.05)
            return super().choose(board, limits=limits)

    record = play_game(Slow("f2f3 g2g4"), Scripted("e7e5 d8h4"), TimeControl(40, 60))
    # two 50 ms sleeps, on however loaded a machine
    assert 0.1 <= record.clock.used[chess.WHITE] < 30
    assert record.clock.remaining[chess.WHITE] == pytest.approx(60 - record.clock.used[chess.WHITE])


def test_sides_are_told_both_clocks_and_the_moves_to_go():
    white, black = Scripted("f2f3 g2g4"), Scripted("e7e5 d8h4")
    play_game(white, black, TimeControl(40, 5400))
    limits = black.limits  # at Black's second move
    assert limits.movestogo == 39
    assert 5_399_000 < limits.wtime <= 5_400_000 and 5_399_000 < limits.btime <= 5_400_000


def test_an_illegal_or_missing_move_loses():
    record = game("e2e5", "")
    assert (record.result, record.termination, record.plies) == ("0-1", "rules infraction", 0)
    record = game("e2e4", "")
    assert (record.result, record.termination, record.plies) == ("1-0", "rules infraction", 1)


def test_max_plies_leaves_the_game_unfinished():
    record = game("e2e4 d2d4", "e7e5 d7d5", max_plies=3)
    assert (record.result, record.termination, record.plies) == ("*", "unterminated", 3)


def test_pgn_carries_every_tag_of_the_experiment_and_reads_back():
    spec = build_schedule(
        ["kosteniuk-2200", "carlsen-2800"], parse_configurations(["near-from"]), 1, 3
    )[1]
    record = game("f2f3 g2g4", "e7e5 d8h4")
    tags = RunTags("CBR round robin", "here", "2025.01.31", LONG, "pure")
    text = game_pgn(record, spec, tags, {"kosteniuk-2200": 2275, "carlsen-2800": None})
    game_ = chess.pgn.read_game(io.StringIO(text))
    assert not game_.errors
    assert dict(game_.headers) == {
        "Event": "CBR round robin",
        "Site": "here",
        "Date": "2025.01.31",
        "Round": "1.1",
        "White": "carlsen-2800",
        "Black": "kosteniuk-2200",
        "Result": "0-1",
        "WhiteElo": "-",
        "BlackElo": "2275",
        "TimeControl": "40/5400",
        "Termination": "checkmate",
        "PlyCount": "4",
        "WeightConfig": "0.8 0.8 0.5",
        "Mode": "pure",
        "WhiteSeed": str(spec.white_seed),
        "BlackSeed": str(spec.black_seed),
        "TimeRequirementMet": "yes",
    }
    assert [m.uci() for m in game_.mainline_moves()] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    (result,) = read_results(io.StringIO(text))
    assert (result.config_number, result.round, result.white_elo, result.black_elo) == (
        1,
        1,
        None,
        2275,
    )
    assert result.score("kosteniuk-2200") == 1 and result.score("carlsen-2800") == 0
    assert result.decisive and result.time_met


def test_reading_a_pgn_without_the_experiment_tags_names_the_game():
    text = '[Event "x"]\n[Round "1"]\n[Result "1-0"]\n\n1. e4 1-0\n\n'
    with pytest.raises(ValueError, match="game 1"):
        list(read_results(io.StringIO(text)))


@pytest.mark.slow
def test_the_clock_starts_once_a_uci_engine_has_loaded_its_options():
    # An engine that takes 3 s to load what its options name (as ours loads a casebase and its
    # calibration at isready) must not be charged for it: the clock gives 2 s for the whole game.
    command = shlex.join([sys.executable, str(SCRIPT), "--score", "e2e4=30", "--load-seconds", "3"])
    lineup = Lineup([engine_entrant(f"name=slow cmd={shlex.quote(command)} option.Hash=32")])
    config = parse_configurations(["balanced"])[0]
    try:
        white, black = (lineup.side("slow", config, seed) for seed in (1, 2))
        record = play_game(white, black, TimeControl(None, 2), max_plies=4)
    finally:
        lineup.close()
    assert record.termination != "time forfeit" and record.plies == 4
