"""The games record (issue #29; docs/strength.md §3): the engine's own choices in positions of its
own games, each with the loss the expert's fitted model expects there, stored beside the play-time
record; the sensitivity is set on the games record (the positions the engine plays), and a UCI_Elo
there too, asking as much less as they ask of the expert."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import chess
import numpy as np
import pytest
from damaged import copy_profiled
from engine_helpers import guided_agent
from judge_helpers import scripted
from profile_helpers import PLAYED, PROFILE
from test_play import altered, reachable
from uci_helpers import ROOT

from casebase.format import Casebase
from casebase.info import describe_profile
from engine.agents.defaults import Selection
from engine.cbr.configurations import WEIGHT_CONFIGS
from engine.outside.judge import Judge, JudgeSettings
from engine.strength.calibration import calibrate, set_on
from engine.strength.errormodel import expected_score
from engine.strength.profile import PlayRecord, Profile
from engine.strength.rating import loss_at
from profiling import ProfileError
from profiling.__main__ import main as profiling_main
from profiling.games import add_games, targets
from profiling.pipeline import add_play, make_profile
from profiling.play import PlaySettings

pytestmark = [
    pytest.mark.slow,  # the games record plays the engine's games and judges them
    # its module fixture is built once, on one worker
    pytest.mark.xdist_group("games-record"),
]

GAMES = ROOT / "data" / "games" / "round-robin-40-20.pgn"
#: The engine's positions of its own games recorded (a few: each is a judged position).
RECORDED = PlaySettings(positions=12, judge_depth=2)


@pytest.fixture(scope="module")
def recorded(
    kosteniuk_casebase: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, str]:
    """Kosteniuk's casebase profiled, played, and played in its engine's round-robin games by a
    scripted judge: the file, the games' judged journal and the judge."""
    folder = tmp_path_factory.mktemp("recorded")
    path, judged = folder / "kosteniuk-2200.npz", folder / "games.jsonl"
    shutil.copy(kosteniuk_casebase, path)
    judge = scripted(folder)
    make_profile(Casebase.load(path), PROFILE, judge, progress=False)
    add_play(Casebase.load(path), PLAYED, judge, folder / "play.jsonl", progress=False)
    add_games(
        Casebase.load(path),
        [GAMES],
        "kosteniuk-2200",
        RECORDED,
        judge,
        judged,
        folder / "games.play.jsonl",
        progress=False,
    )
    return path, judged, judge


def records(path: Path) -> tuple[Profile, PlayRecord, PlayRecord]:
    profile = Profile.of(Casebase.load(path))
    assert profile is not None and profile.play is not None and profile.games is not None
    return profile, profile.play, profile.games


def test_the_record_holds_the_engine_s_choices_in_its_games_and_what_the_expert_s_model_expects_there(  # noqa: E501
    recorded,
):
    path, judged, _ = recorded
    profile, play, games = records(path)
    # the play record kept
    assert len(games.moves) == RECORDED.positions and len(play.moves) == PLAYED.positions
    assert games.meta["player"] == "kosteniuk-2200" and games.meta["files"] == [GAMES.name]
    assert describe_profile(Casebase.load(path)).endswith(
        "; games record of 12 positions of kosteniuk-2200's games"
    )
    # each target is the loss the profile's fitted model expects over the judge's moves of that
    # position
    entries = [json.loads(line) for line in judged.read_text().splitlines()[1:]]
    entries = [e for e in entries if "skip" not in e][: RECORDED.positions]
    width = max(len(e["scores"]) for e in entries)
    win = expected_score(
        np.array([e["scores"] + [-99999] * (width - len(e["scores"])) for e in entries], float)
    )
    loss = np.where(
        np.array([[i < len(e["scores"]) for i in range(width)] for e in entries]),
        win.max(axis=1, keepdims=True) - win,
        np.nan,
    )
    assert games.best.tolist() == [max(e["scores"]) for e in entries]

    def expected(s: float, c: float) -> np.ndarray:
        chances = np.exp(-np.power(np.nan_to_num(loss, nan=1.0) / s, c)) * ~np.isnan(loss)
        return (chances / chances.sum(axis=1, keepdims=True) * np.nan_to_num(loss)).sum(axis=1)

    fitted = profile.meta["fit"]
    assert games.target == pytest.approx(
        expected(fitted["sensitivity"], fitted["consistency"]), rel=1e-5, abs=1e-7
    )
    # the scripted judge's profile fits a choice near uniform: a sharper model expects less, as
    # targets says
    sharp = replace(
        profile, meta={**profile.meta, "fit": {**fitted, "sensitivity": 0.02, "consistency": 0.6}}
    )
    assert targets(sharp, SimpleNamespace(loss=loss)) == pytest.approx(
        expected(0.02, 0.6), rel=1e-6, abs=1e-9
    )
    assert expected(0.02, 0.6).mean() < 0.8 * games.target.mean()
    present = games.moves > 0
    assert np.isfinite(games.true_loss[present]).all() and (games.true_loss[present] >= 0).all()


def test_the_sensitivity_is_set_on_the_positions_of_the_engine_s_own_games(recorded):
    casebase = Casebase.load(recorded[0])
    _, play, games = records(recorded[0])
    calibration = calibrate(casebase, None)
    assert calibration.fitted is not None
    assert "in 12 positions of its own games" in calibration.source
    target = float(games.target.mean())
    least, most = reachable(calibration.fitted, games.loss, games.log_prior, games.true_loss)
    assert least < target < most  # reachable: the test asserts the target, not a bound
    reached = calibration.model.expected_loss(games.loss, games.log_prior, games.true_loss)
    assert reached == pytest.approx(target, rel=1e-6, abs=1e-9)
    # not the s the play-time record alone would set
    assert calibration.model.sensitivity != pytest.approx(
        set_on(calibration.fitted, play).sensitivity, rel=1e-3
    )
    # a set rating asks the games' positions for what the expert's own ask, scaled as they differ
    assert calibration.target_scale == pytest.approx(target / float(play.target.mean()))
    assert calibration.target_scale != pytest.approx(1)


def test_likely_ranks_by_the_likelihood_fit_and_calibrated_draws_at_the_strength_set(recorded):
    """Issue #40, item 4: the likeliest move is the likelihood fit's, the draw at the expert's
    strength the record's; a rating asked for is played by both, and likely plays no speed's
    strength."""
    casebase = Casebase.load(recorded[0])
    base = calibrate(casebase, None)
    assert base.fitted is not None and base.fitted != base.model
    weights = WEIGHT_CONFIGS["balanced"]
    likely = guided_agent(casebase, weights, 1, selection=Selection.LIKELY, prior="cases")
    # at hand, never asked: the draw is not sized (strength.md §7)
    judge = Judge(JudgeSettings("/nonexistent/judge"))
    drawn = guided_agent(
        casebase, weights, 1, selection=Selection.CALIBRATED, prior="cases", judge=judge
    )
    assert likely.calibration is not None and likely.calibration.model == base.fitted
    assert "the likeliest by the likelihood fit" in likely.calibration.source
    assert drawn.calibration is not None and drawn.calibration.model == base.model
    rated = guided_agent(
        casebase, weights, 1, selection=Selection.LIKELY, prior="cases", rating=2000
    )
    assert rated.calibration is not None and rated.calibration.model == base.at_rating(2000).model
    blitz = guided_agent(
        casebase, weights, 1, selection=Selection.LIKELY, prior="cases", speed="blitz"
    )
    assert blitz._play_speed(chess.Board(), None) == []  # no speed's profile told, none played
    assert blitz.calibration is not None and blitz.calibration.model == base.fitted
    drawn_blitz = guided_agent(
        casebase,
        weights,
        1,
        selection=Selection.CALIBRATED,
        prior="cases",
        speed="blitz",
        judge=judge,
    )
    # it falls back to all games, and says so
    assert drawn_blitz._play_speed(chess.Board(), None) != []


@pytest.mark.parametrize("rating", [1600, 2800])
def test_a_set_rating_asks_the_games_positions_for_as_much_less_as_the_expert_s_own(
    recorded, rating
):
    casebase = Casebase.load(recorded[0])
    _, _, games = records(recorded[0])
    base = calibrate(casebase, None)
    at = base.at_rating(rating).model
    least, most = reachable(base.fitted or base.model, games.loss, games.log_prior, games.true_loss)
    target = min(max(loss_at(rating) * base.target_scale, least), most)
    assert at.expected_loss(games.loss, games.log_prior, games.true_loss) == pytest.approx(
        target, rel=1e-6, abs=1e-9
    )


def profiled(copy: Path, judge: str) -> list[str]:
    """``python -m profiling``'s words that profile ``copy`` again as :data:`PROFILE` with
    ``judge``."""
    return [
        str(copy),
        "--judge",
        judge,
        "--positions",
        str(PROFILE.positions),
        "--depth",
        str(PROFILE.depth),
        "--multipv",
        str(PROFILE.multipv),
    ]


def test_a_profile_made_again_without_games_drops_the_record_and_says_so(
    recorded, tmp_path, capsys
):
    copy = tmp_path / "kosteniuk-2200.npz"
    copy_profiled(recorded[0], copy)
    journal = tmp_path / "profile.jsonl"
    assert (
        profiling_main(
            [
                *profiled(copy, recorded[2]),
                "--journal",
                str(journal),
                "--quiet",
            ]
        )
        == 0
    )
    assert "the games record it had is not kept" in capsys.readouterr().err
    profile = Profile.of(Casebase.load(copy))
    assert profile is not None and profile.games is None


def test_games_without_journals_or_with_no_game_of_the_player_are_refused_with_a_clear_error(
    recorded, tmp_path, capsys
):
    copy = tmp_path / "kosteniuk-2200.npz"
    copy_profiled(recorded[0], copy)
    assert (
        profiling_main(
            [
                *profiled(copy, recorded[2]),
                "--journal",
                str(tmp_path / "p.jsonl"),
                "--quiet",
                "--engine-games",
                str(GAMES),
            ]
        )
        == 1
    )
    assert (
        "--engine-games needs --engine-games-journal and --engine-games-play"
        in capsys.readouterr().err
    )
    with pytest.raises(
        ProfileError, match="no game of .* has a player matching 'nobody'.*kosteniuk-2200"
    ):
        add_games(
            Casebase.load(recorded[0]),
            [GAMES],
            "nobody",
            RECORDED,
            recorded[2],
            tmp_path / "g.jsonl",
            tmp_path / "g.play.jsonl",
            progress=False,
        )


def test_games_played_with_another_model_than_the_play_time_record_are_not_stored_beside_it(
    recorded, tmp_path
):
    path, judged, _ = recorded
    copy = copy_profiled(path, tmp_path / "kosteniuk-2200.npz")
    other = altered(
        path.parent / "games.play.jsonl", tmp_path / "games.play.jsonl", model="ab" * 32
    )

    def stored(play: Path) -> None:
        add_games(
            Casebase.load(copy),
            [GAMES],
            "kosteniuk-2200",
            RECORDED,
            None,
            judged,
            play,
            progress=False,
        )

    with pytest.raises(
        ProfileError, match="played with another style model .* than its play-time record"
    ):
        stored(other)
    stored(path.parent / "games.play.jsonl")  # the same model's: stored
