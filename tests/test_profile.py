"""The expert's error profile (casebase profile), the error model's fit, and the calibrated choice."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import chess
import numpy as np
import pytest
from test_judge import fake_engine

from casebase.__main__ import main as casebase_main
from casebase.errormodel import ErrorModel, expected_score, fit, losses, nelder_mead
from casebase.format import Casebase, CasebaseError
from casebase.info import describe
from casebase.judging import ProfileError, Settings, position, sample
from casebase.profile import Profile, encode_move, loss_at, make_profile, rating_of, store
from engine.style.calibration import calibrate, shipped_calibration

SCRIPT = Path(__file__).resolve().parent / "scripted_engine.py"


def scripted(tmp_path: Path, *args: str) -> str:
    """A judge: the scripted engine (tests/scripted_engine.py) with ``args``."""
    return fake_engine(tmp_path, "judge", f"import runpy, sys\nsys.argv = ['scripted'] + {list(args)!r}\n"
                                          f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n")


def choices(model: ErrorModel, loss: np.ndarray, rng: np.random.Generator, log_prior: np.ndarray | None = None) -> np.ndarray:
    """Moves drawn by ``model`` itself, one per row."""
    p = model.probabilities(loss, log_prior)
    return np.array([rng.choice(len(row), p=row) for row in p])


def synthetic(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """n positions of k judged moves: the best loses nothing, the others up to a pawn or more."""
    loss = np.sort(rng.exponential(0.08, (n, k)), axis=1)
    loss[:, 0] = 0
    loss[rng.random((n, k)) < 0.1] = np.nan  # fewer moves in some positions
    loss[:, 0] = 0
    return np.minimum(loss, 1)


# -- the error model ---------------------------------------------------------------------


@pytest.mark.parametrize("s, c", [(0.03, 0.5), (0.08, 0.9)])
def test_the_fit_recovers_the_parameters_of_the_moves_the_model_itself_drew(s, c):
    rng = np.random.default_rng(1)
    loss = synthetic(4000, 10, rng)
    truth = ErrorModel(s, c)
    fitted = fit(loss, choices(truth, loss, rng)).model
    assert fitted.sensitivity == pytest.approx(s, rel=0.15)
    assert fitted.consistency == pytest.approx(c, rel=0.15)
    assert fitted.prior_weight == 0


def test_the_fit_recovers_the_prior_weight_too():
    rng = np.random.default_rng(2)
    loss = synthetic(4000, 8, rng)
    log_prior = np.log(rng.dirichlet(np.ones(8), 4000))
    truth = ErrorModel(0.05, 0.7, 0.6)
    fitted = fit(loss, choices(truth, loss, rng, log_prior), log_prior).model
    assert fitted.prior_weight == pytest.approx(0.6, abs=0.1)
    assert fitted.sensitivity == pytest.approx(0.05, rel=0.2)


def test_chances_fall_with_the_loss_and_sum_to_one():
    model = ErrorModel(0.05, 0.6)
    p = model.probabilities(np.array([[0.0, 0.02, 0.2, np.nan]]))[0]
    assert p.sum() == pytest.approx(1) and p[3] == 0
    assert p[0] > p[1] > p[2] > 0
    assert losses(np.array([[100.0, 0.0, np.nan]]))[0, 1] == pytest.approx(expected_score(100) - expected_score(0))


def test_nelder_mead_finds_a_known_minimum():
    best = nelder_mead(lambda x: float((x[0] - 1) ** 2 + 3 * (x[1] + 2) ** 2), np.zeros(2))
    assert best == pytest.approx([1, -2], abs=1e-3)


def test_the_rating_line_and_its_inverse_agree():
    for rating in (1500, 2300, 2800):
        assert rating_of(loss_at(rating)) == pytest.approx(rating)
    assert loss_at(1800) > loss_at(2600)  # weaker players lose more


# -- the profile and its journal -----------------------------------------------------------


@pytest.fixture
def kosteniuk(kosteniuk_casebase: Path, tmp_path: Path) -> Path:
    path = tmp_path / "kosteniuk.npz"
    shutil.copy(kosteniuk_casebase, path)
    return path


def test_a_judge_that_fails_loses_no_finished_work_and_the_same_command_goes_on(kosteniuk, tmp_path):
    journal = tmp_path / "k.jsonl"
    settings = Settings(positions=12, depth=3, multipv=4)
    crashing = scripted(tmp_path, "--crash-after", "7")
    with pytest.raises(ProfileError, match="kept in .*k.jsonl: run the same command again"):
        make_profile(Casebase.load(kosteniuk), settings, crashing, journal, progress=False)
    kept = journal.read_text().splitlines()
    assert len(kept) >= 4  # the header and the positions finished before the crash
    assert "profile" not in Casebase.load(kosteniuk).meta
    # a killed writer's half line is ignored, and the rest is judged where it stopped
    with open(journal, "a") as f:
        f.write('{"key": "half')
    good = scripted(tmp_path, "--score", "e2e4=30")
    profile = make_profile(Casebase.load(kosteniuk), settings, good, journal, progress=False)
    lines = [json.loads(line) for line in journal.read_text().splitlines()[1:] if line.startswith('{"key": "')
             and line.endswith("}")]
    assert [json.loads(line) for line in kept[1:]] == lines[:len(kept) - 1]  # kept as they were
    keys = [line["key"] for line in lines]
    assert len(keys) == len(set(keys))  # none judged twice
    assert len(profile.rows) == 12
    loaded = Profile.of(Casebase.load(kosteniuk))
    assert loaded is not None and loaded.meta["judge"] == "Scripted" and loaded.meta["positions"] == 12


def test_the_profile_needs_no_judge_where_the_journal_holds_every_position(kosteniuk, tmp_path):
    journal = tmp_path / "k.jsonl"
    settings = Settings(positions=6, depth=2, multipv=3)
    make_profile(Casebase.load(kosteniuk), settings, scripted(tmp_path), journal, progress=False)
    make_profile(Casebase.load(kosteniuk), settings, None, journal, progress=False)  # all there: no judge
    with pytest.raises(ProfileError, match="still to be judged: give the engine"):
        make_profile(Casebase.load(kosteniuk), Settings(positions=9, depth=2, multipv=3), None, journal, progress=False)
    with pytest.raises(ProfileError, match="other settings"):
        make_profile(Casebase.load(kosteniuk), Settings(positions=6, depth=5, multipv=3), None, journal, progress=False)


def test_a_held_out_casebase_draws_the_same_positions_where_it_has_their_games(kosteniuk, heldout):
    settings = Settings()
    full_rows, full_keys = sample(Casebase.load(kosteniuk), settings)
    held_rows, held_keys = sample(Casebase.load(heldout[0]), settings)
    kept = set(held_keys)
    assert [k for k in full_keys if k in kept] == held_keys  # the same order, less the held-out games
    assert len(held_keys) < len(full_keys)
    assert sample(Casebase.load(kosteniuk), Settings(seed=1))[1] != full_keys


def test_the_stored_profile_round_trips_and_info_shows_it(kosteniuk, tmp_path):
    casebase = Casebase.load(kosteniuk)
    assert "error profile: none" in describe(casebase)
    make_profile(casebase, Settings(positions=8, depth=2, multipv=3), scripted(tmp_path, "--score", "e2e4=30"),
                 progress=False)
    assert not kosteniuk.with_suffix(".profile.jsonl").exists()  # the default journal goes once stored
    loaded = Casebase.load(kosteniuk)
    profile = Profile.of(loaded)
    assert profile is not None and len(profile.rows) == 8
    assert profile.moves[np.arange(8), profile.played].tolist() == [encode_move(loaded.move(int(r))) for r in profile.rows]
    line = next(x for x in describe(loaded).splitlines() if x.startswith("error profile:"))
    assert "implied rating" in line and "8 positions judged by Scripted at depth 2" in line
    assert len(loaded) == len(casebase) and (np.asarray(loaded.boards) == np.asarray(casebase.boards)).all()


def test_an_old_casebase_is_read_and_says_it_has_no_profile(kosteniuk, tmp_path):
    old = tmp_path / "old.npz"
    with zipfile.ZipFile(kosteniuk) as src, zipfile.ZipFile(old, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "version.npy":
                import io
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, np.array(1, dtype=np.int64))
                data = buffer.getvalue()
            dst.writestr(item, data)
    casebase = Casebase.load(old)
    assert casebase.profile is None and Profile.of(casebase) is None
    assert "error profile: none" in describe(casebase)


def test_a_damaged_profile_is_refused_with_what_is_wrong(kosteniuk, tmp_path):
    make_profile(Casebase.load(kosteniuk), Settings(positions=5, depth=2, multipv=3), scripted(tmp_path), progress=False)
    broken = tmp_path / "broken.npz"
    with zipfile.ZipFile(kosteniuk) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            if item.filename != "profile_played.npy":
                dst.writestr(item, src.read(item))
    with pytest.raises(CasebaseError, match="error profile incomplete"):
        Casebase.load(broken)


def test_the_command_reports_a_picture_and_exits_1_with_a_message_on_a_bad_judge(kosteniuk, tmp_path, capsys):
    assert casebase_main(["profile", str(kosteniuk), "--judge", str(tmp_path / "nothing"), "--positions", "3",
                          "--quiet"]) == 1
    assert "could not be started" in capsys.readouterr().err
    assert casebase_main(["profile", str(kosteniuk), "--judge", scripted(tmp_path), "--positions", "5", "--depth", "2",
                          "--multipv", "3", "--report", str(tmp_path / "k.png")]) == 0
    assert (tmp_path / "k.png").read_bytes()[:4] == b"\x89PNG"
    assert "implied rating" in capsys.readouterr().out


# -- the calibrated choice -------------------------------------------------------------------


def synthetic_profile(path: Path, truth: ErrorModel, n: int = 600) -> Casebase:
    """Store in the casebase at ``path`` a profile whose judged moves are each position's first
    legal moves with random scores, and whose 'expert' moves were drawn by ``truth``."""
    casebase = Casebase.load(path)
    rng = np.random.default_rng(3)
    rows, keys = sample(casebase, Settings())
    picked, moves, scores = [], [], []
    for row in rows.tolist():
        board = position(casebase, row)
        legal = list(board.legal_moves)[:8]
        if len(legal) < 8:
            continue
        picked.append(row)
        moves.append([encode_move(m) for m in legal])
        scores.append(np.sort(rng.normal(0, 150, 8))[::-1].round())
        if len(picked) == n:
            break
    scores_array = np.array(scores, np.int32)
    played = choices(truth, losses(scores_array.astype(float)), rng)
    profile = Profile(casebase, np.array(picked, np.int32), np.array(moves, np.uint16), scores_array,
                      played.astype(np.int16), {"judge": "synthetic", "depth": 1})
    profile.meta.update(profile.summary())
    store(casebase, profile)
    return Casebase.load(path)


def test_calibration_without_a_model_is_the_profile_fit_and_at_rating_hits_the_rating_line(kosteniuk):
    casebase = synthetic_profile(kosteniuk, ErrorModel(0.04, 0.7))
    calibration = calibrate(casebase, None)
    assert calibration.model.sensitivity == pytest.approx(0.04, rel=0.3)
    assert calibration.model.prior_weight == 0
    weak, strong = calibration.at_rating(1600), calibration.at_rating(2700)
    assert weak.model.sensitivity > strong.model.sensitivity
    assert weak.model.consistency == strong.model.consistency == calibration.model.consistency
    assert calibration.loss is not None
    assert weak.model.expected_loss(calibration.loss) == pytest.approx(loss_at(1600), rel=1e-3)
    scores = [50, 40, -200]
    assert weak.chances(scores, [1, 1, 1])[2] > strong.chances(scores, [1, 1, 1])[2]


def test_without_a_profile_the_shipped_parameters_play():
    calibration = shipped_calibration("X")
    assert "no error profile" in calibration.source
    assert calibration.at_rating(1500).model.sensitivity > calibration.at_rating(2700).model.sensitivity


def test_the_calibrated_agent_plays_its_likeliest_move_and_draws_by_the_seed(kosteniuk):
    from engine.agents.guided import GuidedAgent
    from engine.cbr.weights import Weights
    from engine.search.limits import SearchLimits

    casebase = synthetic_profile(kosteniuk, ErrorModel(0.05, 0.7))
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    likely = GuidedAgent(casebase, Weights(0.5, 0.5, 0.5), 1, selection="likely", prior="cases")
    decision = likely.choose(board, limits=SearchLimits(depth=2))
    assert any("the likeliest by the error model" in line for line in decision.explanation)
    drawn = [GuidedAgent(casebase, Weights(0.5, 0.5, 0.5), seed, selection="expert", prior="cases")
             .choose(board, limits=SearchLimits(depth=2)).move for seed in (1, 1, 2, 3, 4, 5, 6)]
    assert drawn[0] == drawn[1]  # the same seed, the same move
    assert all(board.is_legal(m) for m in drawn)


def test_uci_limit_strength_and_elo_round_trip_through_python_chess(kosteniuk):
    from uci_helpers import popen

    synthetic_profile(kosteniuk, ErrorModel(0.05, 0.7))
    with popen("--casebase", str(kosteniuk)) as engine:
        options = engine.options
        assert options["UCI_LimitStrength"].type == "check" and options["UCI_LimitStrength"].default is False
        elo = options["UCI_Elo"]
        assert (elo.type, elo.min, elo.max, elo.default) == ("spin", 1000, 3000, 2500)
        assert {"expert", "likely"} <= set(options["Selection"].var)
        engine.configure({"Mode": "guided", "UCI_LimitStrength": True, "UCI_Elo": 1600, "Seed": 3})
        board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
        said = []
        with engine.analysis(board, chess.engine.Limit(depth=2)) as analysis:
            said = [info["string"] for info in analysis if "string" in info]
        assert analysis.wait().move in board.legal_moves
        assert any("strength limited to 1600" in line and "error profile" in line for line in said)
        assert any("by the error model" in line for line in said)
        with pytest.raises(chess.engine.EngineError):
            engine.configure({"UCI_Elo": 999})  # the client checks the declared range


def test_tournament_options_are_read_as_the_engine_declares_them():
    from tournament.players import casebase_options, parse_options
    from tournament.schedule import parse_configurations

    values = parse_options(["selection=expert", "UCI_LimitStrength=true", "UCI_Elo=1800"])
    assert values == {"Selection": "expert", "UCI_LimitStrength": True, "UCI_Elo": 1800}
    config = parse_configurations(["balanced"])[0]
    sent = casebase_options("x.npz", config, "guided", 5, judge="/j", options=values)
    assert sent["Selection"] == "expert" and sent["UCI_Elo"] == 1800 and sent["Judge"] == "/j" and sent["Seed"] == 5
    for bad, why in (("Nonsense=1", "one of the engine's options"), ("UCI_Elo=5", "1000..3000"),
                     ("Seed=3", "set by the tournament"), ("Selection", "NAME=VALUE")):
        with pytest.raises(ValueError, match=why):
            parse_options([bad])


def test_the_fidelity_bench_plays_the_error_model_with_the_judge():
    from tournament.fidelity import JUDGED_MODES, FidelitySettings
    from tournament.schedule import parse_configurations

    settings = FidelitySettings("x.npz", parse_configurations(["balanced"])[0], stockfish="/sf")
    assert settings.values("expert")["Selection"] == "expert" and settings.values("likely")["Judge"] == "/sf"
    assert settings.values("judged")["Selection"] == "argmax"
    assert all(settings.for_mode(mode).stockfish == "/sf" for mode in JUDGED_MODES)
    assert "Selection expert" in settings.describe("expert")


def test_below_what_the_prior_allows_the_prior_weighs_less():
    from engine.style.calibration import MAX_SENSITIVITY, Calibration

    rng = np.random.default_rng(4)
    loss = synthetic(500, 8, rng)
    log_prior = np.log(np.sort(rng.dirichlet(np.ones(8), 500), axis=1)[:, ::-1])  # the prior likes the best moves
    calibration = Calibration(ErrorModel(0.02, 0.6, 1.0), "X", 2500, "test", {}, loss, log_prior)
    floor = ErrorModel(MAX_SENSITIVITY, 0.6, 1.0).expected_loss(loss, log_prior)  # the prior's choice alone
    uniform = ErrorModel(MAX_SENSITIVITY, 0.6, 0.0).expected_loss(loss, log_prior)
    rating = rating_of((floor + uniform) / 2)
    weak = calibration.at_rating(rating).model
    assert weak.sensitivity == MAX_SENSITIVITY and 0 < weak.prior_weight < 1
    assert weak.expected_loss(loss, log_prior) == pytest.approx((floor + uniform) / 2, rel=1e-3)
    assert calibration.at_rating(rating_of(0.8 * floor)).model.prior_weight == 1.0  # there s alone suffices
