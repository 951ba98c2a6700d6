"""The play-time calibration (issue #29; docs/strength.md §3): the engine's own choices on the
profile's positions recorded with a judge, stored beside the profile, and the sensitivity set so
that those choices lose what the expert lost, at the expert's own strength and at a UCI_Elo."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace
from pathlib import Path

import chess
import numpy as np
import pytest
from damaged import copy_profiled, profile_arrays
from judge_helpers import scripted
from profile_helpers import PLAYED, PROFILE

from casebase.format import Casebase
from casebase.info import describe_profile
from casebase.profilefile import profile_path
from common.files import file_sha256
from engine.agents.factory import Loader, make_agent
from engine.search.limits import SearchLimits
from engine.strength.calibration import calibrate
from engine.strength.errormodel import MAX_SENSITIVITY, MIN_SENSITIVITY, ErrorModel
from engine.strength.likelihood import likelihood_fit, stored_fit
from engine.strength.profile import Profile
from engine.strength.rating import loss_at
from engine.style.loader import load_model
from engine.style.model import StyleModel, generic_model
from engine.style.personal import choose_model, model_sha256
from profiling import ProfileError
from profiling.__main__ import main as profiling_main
from profiling.pipeline import add_play, make_profile, store
from profiling.workers import Where

# the play-time record is judged and fitted (a session's worth of searches)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("play"),
]  # its module fixture is built once, on one worker


@pytest.fixture(scope="module")
def played(
    kosteniuk_casebase: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, str]:
    """Kosteniuk's casebase profiled and played by a scripted judge: the file, the play-time
    journal and the judge."""
    folder = tmp_path_factory.mktemp("played")
    path, journal = folder / "kosteniuk-2200.npz", folder / "play.jsonl"
    shutil.copy(kosteniuk_casebase, path)
    judge = scripted(folder)
    make_profile(Casebase.load(path), PROFILE, judge, progress=False)
    add_play(Casebase.load(path), PLAYED, judge, journal, progress=False)
    return path, journal, judge


def reachable(
    model: ErrorModel, loss: np.ndarray, log_prior: np.ndarray, judged: np.ndarray
) -> tuple[float, float]:
    """The least and the most a choice of ``model``'s prior weight and consistency can lose, by s
    (then, weaker, with the prior's weight lowered to 0)."""
    least = replace(model, sensitivity=MIN_SENSITIVITY).expected_loss(loss, log_prior, judged)
    most = replace(model, sensitivity=MAX_SENSITIVITY, prior_weight=0.0).expected_loss(
        loss, log_prior, judged
    )
    return least, most


def test_the_record_holds_what_the_engine_chose_among_judged_as_the_profile_judges(played):
    path, journal, _ = played
    profile = Profile.of(Casebase.load(path))
    assert profile is not None and profile.play is not None
    play = profile.play
    assert len(play.moves) == PLAYED.positions and play.meta["judge_depth"] == PLAYED.judge_depth
    entries = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
    assert [len(e["moves"]) for e in entries] == (play.moves > 0).sum(axis=1).tolist()
    assert describe_profile(Casebase.load(path)).endswith(
        "; play-time record of 16 positions (the engine's judge at depth 2)"
    )
    # the scripted judge scores a move alike at any depth: each move's play-time score is its
    # profile score
    present = play.moves > 0
    assert (play.scores[present] == play.judged[present]).all()
    assert np.isfinite(play.true_loss[present]).all() and (play.true_loss[present] >= 0).all()
    assert ((play.prior[present] >= 0) & (play.prior[present] <= 1)).all()


def test_the_sensitivity_is_set_so_that_the_engine_s_own_choices_lose_what_the_expert_lost(played):
    path = played[0]
    casebase = Casebase.load(path)
    profile = Profile.of(casebase)
    assert profile is not None and profile.play is not None
    play = profile.play
    calibration = calibrate(casebase, None)
    assert (
        calibration.fitted is not None
        and "set on the engine's own choices in 16" in calibration.source
    )
    target = float(profile.own_loss[: PLAYED.positions].mean())
    least, most = reachable(calibration.fitted, play.loss, play.log_prior, play.true_loss)
    reached = calibration.model.expected_loss(play.loss, play.log_prior, play.true_loss)
    assert reached == pytest.approx(min(max(target, least), most), rel=1e-6, abs=1e-9)
    assert calibration.model.consistency == calibration.fitted.consistency


@pytest.mark.parametrize("rating", [1600, 2000, 2400, 2800])
def test_a_set_rating_is_reached_by_the_play_time_choice(played, rating):
    casebase = Casebase.load(played[0])
    profile = Profile.of(casebase)
    assert profile is not None and profile.play is not None
    play = profile.play
    base = calibrate(casebase, None)
    at = base.at_rating(rating).model
    least, most = reachable(base.fitted or base.model, play.loss, play.log_prior, play.true_loss)
    target = min(max(loss_at(rating), least), most)
    assert at.expected_loss(play.loss, play.log_prior, play.true_loss) == pytest.approx(
        target, rel=1e-6, abs=1e-9
    )
    # on the profile's own candidates the same model loses something else: the calibration is the
    # play-time one
    assert math.isfinite(at.expected_loss(profile.loss))


def entries(journal: Path) -> dict[str, dict[str, object]]:
    """A journal's entries by key (a half-written line passed over)."""
    found = {}
    for line in journal.read_text().splitlines()[1:]:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        found[entry["key"]] = entry
    return found


def test_the_journal_goes_on_where_it_stopped_and_needs_no_judge_once_complete(played, tmp_path):
    path, journal, judge = played
    copy, cut = tmp_path / "kosteniuk-2200.npz", tmp_path / "cut.jsonl"
    copy_profiled(path, copy)
    lines = journal.read_text().splitlines()
    # five positions and a half-written line
    cut.write_text("\n".join(lines[:6]) + "\n" + lines[6][:20])
    with pytest.raises(ProfileError, match="11 of 16 positions are still to be played"):
        add_play(Casebase.load(copy), PLAYED, None, cut, progress=False)
    add_play(Casebase.load(copy), PLAYED, judge, cut, progress=False)
    assert entries(cut) == entries(journal)  # each position's draws are its own: the same record
    add_play(Casebase.load(copy), PLAYED, None, cut, progress=False)


def test_playing_on_two_workers_records_and_stores_what_one_does(played, tmp_path):
    path, journal, judge = played
    copy = copy_profiled(path, tmp_path / "kosteniuk-2200.npz")
    add_play(
        Casebase.load(copy),
        PLAYED,
        judge,
        tmp_path / "two.jsonl",
        progress=False,
        where=Where(workers=2),
    )
    assert entries(tmp_path / "two.jsonl") == entries(journal)
    one, two = profile_arrays(profile_path(path)), profile_arrays(profile_path(copy))
    assert set(one) == set(two) and any(name.startswith("profile_play_") for name in two)
    for name in one:
        assert np.array_equal(one[name], two[name]), name
    one_meta, two_meta = Profile.of(Casebase.load(path)), Profile.of(Casebase.load(copy))
    assert (
        one_meta is not None
        and two_meta is not None
        and one_meta.meta["play"] == two_meta.meta["play"]
    )


def test_the_profile_command_records_and_stores_the_play_time_choices(played, tmp_path, capsys):
    path, journal, judge = played
    copy = tmp_path / "kosteniuk-2200.npz"
    copy_profiled(path, copy)
    # the profile's own settings, as each command below gives them
    profiled = [str(copy), "--judge", judge, "--positions", "24", "--depth", "2", "--multipv", "4"]
    assert (
        profiling_main(
            [
                *profiled,
                "--play",
                str(tmp_path / "p.jsonl"),
                "--play-positions",
                "3",
                "--judge-depth",
                "2",
                "--quiet",
            ]
        )
        == 0
    )
    profile = Profile.of(Casebase.load(copy))
    assert profile is not None and profile.play is not None and len(profile.play.moves) == 3
    capsys.readouterr()
    assert (
        profiling_main(
            [
                *profiled,
                # profiled again without --play: the record goes, and that is said
                "--quiet",
            ]
        )
        == 0
    )
    assert "the play-time record it had is not kept" in capsys.readouterr().err
    assert Profile.of(Casebase.load(copy)).play is None
    # a play-time journal is not a profile journal, nor made with other settings
    assert profiling_main([str(copy), "--journal", str(journal), "--quiet"]) == 1
    assert "not a profile journal" in capsys.readouterr().err
    assert (
        profiling_main(
            [
                *profiled,
                "--play",
                str(journal),
                "--judge-depth",
                "3",
                "--quiet",
            ]
        )
        == 1
    )
    assert "a journal of other settings (judge_depth 2, not 3)" in capsys.readouterr().err


def test_the_fit_stored_with_the_record_is_the_engine_s_own_and_only_for_its_model(played):
    casebase = Casebase.load(played[0])
    profile = Profile.of(casebase)
    assert profile is not None
    choice = choose_model(casebase)
    model = choice.model if choice.model is not None else load_model(choice.path)
    stored = stored_fit(profile, model)
    # isready reads it: no forward pass of the prior, no refit
    assert stored is not None, likelihood_fit(profile, model)
    fresh = likelihood_fit(profile, model)
    assert (stored.model, stored.expected, stored.positions) == (
        fresh.model,
        fresh.expected,
        fresh.positions,
    )
    assert calibrate(casebase, model).fitted == fresh.model
    other = StyleModel.load(generic_model()) if choice.path != str(generic_model()) else None
    assert stored_fit(profile, other) is None  # another prior (or none) is fitted afresh


def altered(journal: Path, out: Path, entries: int | None = None, **header: object) -> Path:
    """``journal`` written to ``out`` with the values of ``header`` in its header (and its first
    ``entries`` entries only, where given)."""
    lines = journal.read_text().splitlines()
    out.write_text(
        "\n".join([json.dumps({**json.loads(lines[0]), **header}), *lines[1:][:entries]]) + "\n"
    )
    return out


def test_a_play_journal_of_another_judge_is_refused(played, tmp_path):
    path, journal, judge = played
    copy = copy_profiled(path, tmp_path / "kosteniuk-2200.npz")
    other = altered(journal, tmp_path / "other.jsonl", judge="Another Engine 1.0")
    with pytest.raises(
        ProfileError,
        match="played with the judge Another Engine 1.0, but the profile was judged by",
    ):
        add_play(Casebase.load(copy), PLAYED, judge, other, progress=False)


def test_a_play_journal_names_its_model_and_one_of_another_is_not_resumed_nor_stored_as_this_one_s(
    played, tmp_path
):
    path, journal, judge = played
    copy = copy_profiled(path, tmp_path / "kosteniuk-2200.npz")
    now = model_sha256(Casebase.load(copy))
    assert (
        json.loads(journal.read_text().splitlines()[0])["model"]
        == now
        == file_sha256(choose_model(Casebase.load(copy)).path)
    )
    assert Profile.of(Casebase.load(path)).records_model == now
    elsewhere = "ab" * 32  # the SHA-256 of a network the engine no longer plays
    other = altered(journal, tmp_path / "other.jsonl", 5, model=elsewhere)
    with pytest.raises(
        ProfileError,
        match=f"played with the style model {elsewhere[:12]}…, but the engine now plays",
    ):
        # eleven positions to play: not mixed
        add_play(Casebase.load(copy), PLAYED, judge, other, progress=False)
    add_play(
        Casebase.load(copy), PLAYED, None, altered(journal, other, model=elsewhere), progress=False
    )
    # finished: read, and stored as that model's
    assert Profile.of(Casebase.load(copy)).records_model == elsewhere


def test_the_losses_reached_are_the_profile_judge_s_not_the_scores_the_engine_chose_by(
    played, tmp_path
):
    path = tmp_path / "kosteniuk-2200.npz"
    copy_profiled(played[0], path)
    casebase = Casebase.load(path)
    profile = Profile.of(casebase)
    assert profile is not None and casebase.profile is not None and profile.play is not None
    # the profile's judge sees every move but the engine's first 60 cp worse than the engine's judge
    # did
    arrays = dict(casebase.profile)
    worse = 60 * (np.arange(arrays["profile_play_judged"].shape[1]) > 0)
    arrays["profile_play_judged"] = (arrays["profile_play_judged"] - worse).astype(np.int32)
    store(casebase, profile, arrays)
    changed = Casebase.load(path)
    play = Profile.of(changed).play
    assert play is not None
    calibration = calibrate(changed, None)
    target = float(profile.own_loss[: PLAYED.positions].mean())
    least, most = reachable(
        calibration.fitted or calibration.model, play.loss, play.log_prior, play.true_loss
    )
    assert calibration.model.expected_loss(
        play.loss, play.log_prior, play.true_loss
    ) == pytest.approx(min(max(target, least), most), rel=1e-6, abs=1e-9)
    assert (
        calibration.model.sensitivity != calibrate(Casebase.load(played[0]), None).model.sensitivity
    )


@pytest.mark.parametrize(
    ("options", "depth"),
    [({}, PLAYED.judge_depth), ({"JudgeDepth": 5}, 5), ({"Selection": "argmax"}, 1)],
)
def test_on_a_clock_the_calibrated_choice_is_judged_at_the_depth_it_was_calibrated_at(
    played, options, depth
):
    # 1 is the scripted judge's depth where the go names none: the clock alone limits it
    path, _, judge = played
    loader = Loader()
    try:
        agent = make_agent(
            {"Mode": "guided", "Judge": judge, **options}, Casebase.load(path), loader
        )
        agent.agent.judge.start()  # as isready would: the Python search judges while it starts
        board = chess.Board()
        assert agent.choose(board, limits=SearchLimits(wtime=60_000, btime=60_000)).depth == depth
        assert agent.choose(board, limits=SearchLimits(depth=3)).depth == options.get(
            "JudgeDepth", 3
        )
    finally:
        loader.close()
