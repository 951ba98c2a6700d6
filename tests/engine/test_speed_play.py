"""The calibrated choice at the speed the clock implies (issue #42; docs/strength.md §3): the
profile of that speed class where it has one, else all the expert's games', said once a game;
UCI_Elo wins."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chess
import chess.engine
import pytest
from damaged import copy_profiled, rewrite_npz
from judge_helpers import scripted
from uci_helpers import Engine, popen

from casebase.format import Casebase
from casebase.profilefile import profile_path
from engine.agents.factory import Loader, make_agent
from engine.agents.record import SpeedProfile
from engine.agents.speeds import GameSpeed
from engine.search.limits import SearchLimits, pondering
from engine.strength.calibration import calibrate
from engine.uci.explain import explain
from engine.uci.notes import note_text

#: A blitz game's clock (3+2) and the card's (40 moves in 90 minutes), in milliseconds.
BLITZ = SearchLimits(wtime=180_000, btime=180_000, winc=2_000, binc=2_000)
CARD = SearchLimits(wtime=5_400_000, btime=5_400_000, movestogo=40)
#: Late in a sudden-death game: the clock alone no longer says which class it is.
LATE = SearchLimits(wtime=20_000, btime=20_000)


def speeds(
    description: dict[str, Any], blitz: float = 1.5, bullet_positions: int = 212
) -> dict[str, Any]:
    """The description with a summary by speed (``speed_positions`` and ``speeds``, issue #42) made
    up here: a blitz class of 612 positions losing ``blitz`` times what all games lose, a bullet
    class too small for a fit of its own, the rest unknown."""
    every = description["fit"]["expected_loss"]
    blitz_entry = {
        **{part: description[part] for part in ("rating", "all")},
        "positions": 612,
        "fit": {**description["fit"], "expected_loss": every * blitz},
    }
    counts = {
        "blitz": 612,
        "bullet": bullet_positions,
        "unknown": description["positions"] - 612 - bullet_positions,
    }
    return {**description, "speed_positions": counts, "speeds": {"blitz": blitz_entry}}


@pytest.fixture
def by_speed(profiled: tuple[Path, Path], tmp_path: Path) -> Path:
    """A copy of the profiled Kosteniuk casebase whose profile file has a summary by speed."""
    path = copy_profiled(profiled[0], tmp_path / "kosteniuk-2200.npz")
    rewrite_npz(profile_path(profiled[0]), profile_path(path), meta=speeds)
    return path


def with_speeds(path: Path, **change: Any) -> Casebase:
    """The casebase at ``path`` with a summary by speed put into its loaded profile (in memory)."""
    casebase = Casebase.load(path)
    casebase.meta["profile"] = speeds(casebase.meta["profile"], **change)
    return casebase


# -- the calibration at a speed -----------------------------------------------------------------


@pytest.mark.parametrize("blitz", [1.5, 0.7])
def test_a_speed_that_loses_more_plays_with_a_larger_sensitivity_reaching_its_share_of_the_loss(
    profiled, blitz
):
    base = calibrate(with_speeds(profiled[0], blitz=blitz), None)
    at = base.at_speed("blitz")
    assert (at.speed, at.speed_profile) == ("blitz", True)
    assert (at.model.sensitivity > base.model.sensitivity) == (blitz > 1)
    assert (at.model.consistency, at.model.prior_weight) == (
        base.model.consistency,
        base.model.prior_weight,
    )
    expected = base.model.expected_loss(base.loss, base.log_prior, base.judged)
    assert at.model.expected_loss(at.loss, at.log_prior, at.judged) == pytest.approx(
        expected * blitz, rel=1e-6
    )
    assert "at blitz" in at.source and base.source in at.source


@pytest.mark.parametrize("speed", ["bullet", "rapid", "unknown"])
def test_a_speed_without_a_fit_of_its_own_is_all_games_and_says_it_fell_back(profiled, speed):
    base = calibrate(with_speeds(profiled[0], bullet_positions=399), None)
    at = base.at_speed(speed)
    assert (at.model, at.source, at.speed, at.speed_profile) == (
        base.model,
        base.source,
        speed,
        False,
    )
    # a class of too few positions falls back even with a fit: the profile's 400 rule holds here too
    casebase = with_speeds(profiled[0])
    casebase.meta["profile"]["speeds"]["bullet"] = {"positions": 399, "fit": {"expected_loss": 0.5}}
    assert not calibrate(casebase, None).at_speed("bullet").speed_profile


# -- the speed of the game --------------------------------------------------------------------


def test_the_clock_s_class_is_kept_for_the_game_and_a_go_on_no_clock_plays_all_games():
    game, board = GameSpeed(), chess.Board()
    assert game.of(board, BLITZ) == "blitz"
    for move in ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6"):
        board.push_uci(move)
    # 20 s left at move 5 says nothing: the game's first go did
    assert game.of(board, LATE) == "blitz"
    assert (
        game.of(board, SearchLimits(depth=5)) is None
        and game.of(board, SearchLimits(movetime=100)) is None
    )
    assert game.of(board, SearchLimits(wtime=20_000, btime=20_000, infinite=True)) is None
    # go ponder (its search gets no clock until ponderhit) and a go without the mover's time: the
    # game's class
    assert (
        game.of(board, pondering(SearchLimits(wtime=20_000, btime=20_000, ponder=True))) == "blitz"
    )
    assert game.of(board, SearchLimits(btime=20_000)) == "blitz"
    board.pop()
    board.pop()
    assert game.of(board, LATE) == "blitz"  # a takeback is the same game
    # a new game without ucinewgame: its clock says again
    assert game.of(chess.Board(), CARD) == "classical"
    card = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6"):
        card.push_uci(move)
    game.of(card, CARD)
    card.pop()
    # a takeback with a movestogo clock that alone would say blitz: the game's class stays
    card.pop()
    assert game.of(card, SearchLimits(wtime=100_000, btime=100_000, movestogo=30)) == "classical"
    game.new_game()
    # ucinewgame: the last game's class is gone, and this clock says nothing
    assert game.of(board, LATE) is None
    assert GameSpeed("rapid").of(board, SearchLimits(depth=3)) == "rapid"
    assert GameSpeed("all").of(chess.Board(), BLITZ) is None


def test_the_clock_is_read_on_the_bands_the_casebase_s_games_were_classed_on():
    # 10+0: blitz by FIDE's bands, rapid by Lichess's
    ten = SearchLimits(wtime=600_000, btime=600_000)
    assert GameSpeed().of(chess.Board(), ten) == "blitz"
    assert GameSpeed(lichess=True).of(chess.Board(), ten) == "rapid"


def test_option_speed_is_one_of_its_words():
    with pytest.raises(
        ValueError, match="Speed must be one of auto, all, bullet, blitz, rapid, classical"
    ):
        GameSpeed("fast")


# -- the agent --------------------------------------------------------------------------------


@pytest.fixture
def judge(tmp_path: Path) -> str:
    """A scripted judge named as the profile's was (Stockfish 15.1): no note of another judge."""
    return scripted(tmp_path, "--name", "Stockfish 15.1")


def agent_of(casebase: Casebase, judge: str, loader: Loader, **options: Any) -> Any:
    agent = make_agent({"Mode": "guided", "Judge": judge, "Seed": 5, **options}, casebase, loader)
    agent.agent.judge.start()  # as isready would: the Python search judges while it starts
    return agent


def test_the_calibrated_choice_plays_the_clock_s_profile_and_says_so_once_a_game(profiled, judge):
    loader = Loader()
    try:
        agent = agent_of(with_speeds(profiled[0]), judge, loader)
        guided, board = agent.agent, chess.Board()
        first = agent.choose(board, limits=BLITZ)
        expert = guided.all_games.expert
        assert first.record.notes == [SpeedProfile(expert, "blitz", 612, 400, True)]
        assert (
            explain(first.record)[0]
            == f"playing {expert}'s blitz profile (612 positions), the speed the clock implies"
        )
        assert (first.record.detail.choice.speed, first.record.detail.choice.speed_profile) == (
            "blitz",
            True,
        )
        assert (
            guided.calibration.model
            == guided.all_games.at_speed("blitz").model
            != guided.all_games.model
        )
        board.push(first.move)
        assert not agent.choose(board, limits=BLITZ).record.notes  # once a game
        agent.new_game(5)
        # 1+0: bullet
        fell = agent.choose(chess.Board(), limits=SearchLimits(wtime=60_000, btime=60_000))
        assert fell.record.notes == [SpeedProfile(expert, "bullet", 212, 400, False)]
        assert explain(fell.record)[0] == (
            f"no bullet profile of {expert} (212 positions < 400), the speed the clock"
            f" implies: playing the profile of all {expert}'s games"
        )
        assert guided.calibration.model == guided.all_games.model
        assert (
            agent.choose(chess.Board(), limits=SearchLimits(depth=3)).record.detail.choice.speed
            is None
        )
        assert guided.calibration is guided.all_games
    finally:
        loader.close()


def test_uci_elo_wins_over_the_clock_s_speed(profiled, judge):
    loader = Loader()
    try:
        agent = agent_of(
            with_speeds(profiled[0]), judge, loader, UCI_LimitStrength=True, UCI_Elo=2000
        )
        decision = agent.choose(chess.Board(), limits=BLITZ)
        assert not decision.record.notes and decision.record.detail.choice.speed is None
        assert (
            agent.agent.calibration.rating == 2000
            and "at blitz" not in agent.agent.calibration.source
        )
    finally:
        loader.close()


# -- the engine's process ---------------------------------------------------------------------


def test_the_engine_says_which_profile_it_plays_once_a_game_and_in_its_json(by_speed, judge):
    engine = Engine("--casebase", str(by_speed), "--judge", judge, "--seed", "3")
    try:
        engine.send("setoption name Explain value json")
        engine.send("ucinewgame")
        engine.send("position startpos")
        engine.send("go wtime 180000 btime 180000 winc 2000 binc 2000")
        lines = engine.until("bestmove")
        engine.send(f"position startpos moves {lines[-1].split()[1]} e7e5")
        engine.send("go wtime 178000 btime 178000 winc 2000 binc 2000")
        lines += engine.until("bestmove")
        said = [line for line in lines if "blitz profile" in line and "json" not in line]
        assert len(said) == 1 and said[0].endswith(
            "blitz profile (612 positions), the speed the clock implies"
        )
        records = [
            json.loads(line.removeprefix("info string json ")) for line in lines if " json " in line
        ]
        assert [r["guided"]["choice"]["speed"] for r in records] == ["blitz", "blitz"]
        assert [n["kind"] for n in records[0]["notes"]] == ["speed"] and records[0]["notes"][0][
            "played"
        ]
        engine.send("setoption name Speed value all")
        engine.send("ucinewgame")
        engine.send("position startpos")
        engine.send("go wtime 180000 btime 180000 winc 2000 binc 2000")
        lines = engine.until("bestmove")
        assert not [line for line in lines if "the clock implies" in line and "json" not in line]
        assert (
            json.loads(
                next(line for line in lines if " json " in line).removeprefix("info string json ")
            )["guided"]["choice"]["speed"]
            is None
        )
    finally:
        assert engine.close() == 0


def test_without_a_profile_by_speed_the_clock_changes_no_move_and_no_score(
    profiled, judge, tmp_path
):
    path = copy_profiled(profiled[0], tmp_path / "k.npz")
    games = []
    for speed in ("auto", "all"):
        with popen("--casebase", str(path), "--judge", judge, "--seed", "7") as engine:
            engine.configure({"Speed": speed})
            board, played = chess.Board(), []
            for _ in range(6):
                limit = chess.engine.Limit(
                    white_clock=180, black_clock=180, white_inc=2, black_inc=2
                )
                result = engine.play(board, limit, info=chess.engine.INFO_SCORE)
                assert result.move is not None
                played.append((result.move, result.info.get("score")))
                board.push(result.move)
            games.append(played)
    assert games[0] == games[1]


def test_a_profile_not_summarised_by_speed_says_so_and_no_count_of_positions():
    text = note_text(SpeedProfile("X", "blitz", None, 400, False))
    assert text == (
        "no blitz profile of X (no profile by speed), the speed the clock implies:"
        " playing the profile of all X's games"
    )
