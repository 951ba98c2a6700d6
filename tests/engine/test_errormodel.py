"""The error model and its fit, the rating line, and the calibrated choice that plays by them
(engine/style: errormodel, rating, profile, calibration; docs/strength.md §2–4)."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import chess
import numpy as np
import pytest
from engine_helpers import guided_agent

from casebase.format import Casebase, encode_move
from casebase.phases import PHASES
from engine.agents.defaults import Selection
from engine.strength.calibration import calibrate, shipped_calibration
from engine.strength.errormodel import ErrorModel, expected_score, fit, losses
from engine.strength.profile import Profile, position
from engine.strength.rating import implied_rating, loss_at, rating_of
from engine.style.prior import share_text
from engine.uci.explain import explain
from profiling.judging import Settings, sample
from profiling.pipeline import store

pytestmark = pytest.mark.slow  # fits and calibrated games through the engine and judges


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


def test_a_fit_that_wanders_to_a_sensitivity_of_zero_warns_nothing():
    # the likeliest model of these four choices has c -> 0, where s no longer matters and the
    # simplex drifts until exp(log s) is 0: RuntimeWarnings on stderr, as in a tiny strength run
    loss = np.array([[0.0, 0.03, 0.034, 0.034], [0.0, 0.034, 0.045, 0.052], [0.0, 0.043, 0.049, 0.057],
                     [0.0, 0.002, 0.036, 0.048]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = fit(loss, np.array([0, 0, 0, 3]))
    assert np.isfinite(fitted.mean_log_likelihood)
    assert np.isfinite(fitted.model.probabilities(loss)).all()


def test_the_fit_recovers_the_prior_weight_too():
    rng = np.random.default_rng(2)
    loss = synthetic(4000, 8, rng)
    log_prior = np.log(rng.dirichlet(np.ones(8), 4000))
    truth = ErrorModel(0.05, 0.7, 0.6)
    fitted = fit(loss, choices(truth, loss, rng, log_prior), log_prior).model
    assert fitted.prior_weight == pytest.approx(0.6, abs=0.1)
    assert fitted.sensitivity == pytest.approx(0.05, rel=0.2)


def test_the_fit_is_the_likeliest_model_its_neighbours_included():
    rng = np.random.default_rng(5)
    loss = synthetic(600, 8, rng)
    chosen = choices(ErrorModel(0.04, 0.6), loss, rng)
    result = fit(loss, chosen)
    best = result.model
    assert result.mean_log_likelihood == pytest.approx(best.log_likelihood(loss, chosen) / len(loss))
    for factor in (0.98, 1.02):  # a step either way in s or c is no likelier
        for other in (ErrorModel(best.sensitivity * factor, best.consistency),
                      ErrorModel(best.sensitivity, best.consistency * factor)):
            assert other.log_likelihood(loss, chosen) <= best.log_likelihood(loss, chosen) + 1e-6


def test_chances_fall_with_the_loss_and_sum_to_one():
    model = ErrorModel(0.05, 0.6)
    p = model.probabilities(np.array([[0.0, 0.02, 0.2, np.nan]]))[0]
    assert p.sum() == pytest.approx(1) and p[3] == 0
    assert p[0] > p[1] > p[2] > 0
    assert losses(np.array([[100.0, 0.0, np.nan]]))[0, 1] == pytest.approx(expected_score(100) - expected_score(0))
    # the log-likelihood is the log of these chances
    assert model.log_likelihood(np.array([[0.0, 0.02, 0.2, np.nan]]), np.array([1])) == pytest.approx(np.log(p[1]))


def test_the_rating_line_and_its_inverse_agree():
    for rating in (1500, 2300, 2800):
        assert rating_of(loss_at(rating)) == pytest.approx(rating)
    assert loss_at(1800) > loss_at(2600)  # weaker players lose more


def test_a_fit_read_on_a_reference_set_rates_the_player_not_the_positions(monkeypatch):
    # one model plays easy positions and hard ones: read on its own positions it rates higher in the
    # easy ones; read on one reference set both fits rate alike, within their bootstrap intervals
    rng = np.random.default_rng(3)
    truth = ErrorModel(0.03, 0.6)
    hard, easy = synthetic(1500, 10, rng), synthetic(1500, 10, rng)
    easy[:, 1:] = np.minimum(easy[:, 1:] * 20, 1)  # the same kind of position with the others far worse
    reference = synthetic(1500, 10, rng)
    readings = {}
    for name, loss in (("hard", hard), ("easy", easy)):
        chosen = choices(truth, loss, rng)
        model = fit(loss, chosen).model
        with monkeypatch.context() as few:  # read on its own positions only the rating counts, which no resample
            few.setattr("engine.strength.rating.RESAMPLES", 2)  # changes: two of the four bootstraps were half the test
            own = implied_rating(loss, chosen, model)
        readings[name] = (own, implied_rating(loss, chosen, model, reference=reference))
    own_gap = readings["easy"][0].rating - readings["hard"][0].rating
    common = [r for _, r in readings.values()]
    assert own_gap > 150
    assert abs(common[0].rating - common[1].rating) < max(r.bootstrap_high - r.rating for r in common)
    assert common[0].rating == pytest.approx(rating_of(truth.expected_loss(reference)), abs=60)
    # the default reads each fit on its own positions (the rating only: few resamples will do)
    monkeypatch.setattr("engine.strength.rating.RESAMPLES", 2)
    loss, chosen = hard, choices(truth, hard, rng)
    model = fit(loss, chosen).model
    assert implied_rating(loss, chosen, model).rating == pytest.approx(
        implied_rating(loss, chosen, model, reference=loss).rating)


# -- the calibrated choice -------------------------------------------------------------------


@pytest.fixture
def kosteniuk(kosteniuk_casebase: Path, tmp_path: Path) -> Path:
    path = tmp_path / "kosteniuk.npz"
    shutil.copy(kosteniuk_casebase, path)
    return path


def synthetic_profile(path: Path, truth: ErrorModel, n: int = 600) -> Casebase:
    """Store in the casebase at ``path`` a profile whose judged moves are each position's first
    legal moves with random scores, and whose 'expert' moves were drawn by ``truth`` (the case's
    own move is put in the column drawn, as a profile must have it)."""
    casebase = Casebase.load(path)
    rng = np.random.default_rng(3)
    rows, keys = sample(casebase, Settings())
    picked, moves, scores = [], [], []
    for row in rows.tolist():
        board = position(casebase, row)
        legal = list(board.legal_moves)[:8]
        if len(legal) < 8:
            continue
        own = casebase.move(row)
        picked.append(row)
        moves.append([encode_move(m) for m in legal if m != own][:7] + [encode_move(own)])
        scores.append(np.sort(rng.normal(0, 150, 8))[::-1].round())
        if len(picked) == n:
            break
    scores_array = np.array(scores, np.int32)
    played = choices(truth, losses(scores_array.astype(float)), rng)
    for row_moves, column in zip(moves, played):  # the case's move (last) where the draw fell
        row_moves[-1], row_moves[column] = row_moves[column], row_moves[-1]
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
    assert calibrate(casebase, None, 1600) == weak  # the one way to make it, at a rating too
    assert weak.model.sensitivity > strong.model.sensitivity
    assert weak.model.consistency == strong.model.consistency == calibration.model.consistency
    assert calibration.loss is not None
    assert weak.model.expected_loss(calibration.loss) == pytest.approx(loss_at(1600), rel=1e-3)
    scores = [50, 40, -200]
    assert weak.chances(scores, [1, 1, 1])[2] > strong.chances(scores, [1, 1, 1])[2]
    # the expert's own losses by phase, as casebase.phases names them
    profile = Profile.of(casebase)
    assert profile is not None and set(calibration.expert_losses) == set(PHASES)
    assert sum(len(own) for own in calibration.expert_losses.values()) == len(profile.rows)


def test_without_a_profile_the_shipped_parameters_play():
    calibration = shipped_calibration("X")
    assert "no error profile" in calibration.source
    assert calibration.at_rating(1500).model.sensitivity > calibration.at_rating(2700).model.sensitivity


def test_the_calibrated_agent_plays_its_likeliest_move_and_draws_by_the_seed(kosteniuk, monkeypatch):
    import engine.agents.guided as guided
    from engine.agents.base import Reason
    from engine.cbr.weights import Weights
    from engine.search.limits import SearchLimits

    reckoned: list[dict[chess.Move, float]] = []
    real = guided.judged_chances
    monkeypatch.setattr(guided, "judged_chances", lambda *args: reckoned.append(real(*args)) or reckoned[-1])
    casebase = synthetic_profile(kosteniuk, ErrorModel(0.05, 0.7))
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    likely = guided_agent(casebase, Weights(0.5, 0.5, 0.5), 1, selection=Selection.LIKELY, prior="cases")
    decision = likely.choose(board, limits=SearchLimits(depth=2))
    assert any("the likeliest by the error model" in line for line in explain(decision.record))
    chances = reckoned[-1]
    assert len(chances) > 1 and decision.move == max(chances, key=chances.__getitem__)  # the most likely move
    assert decision.chances == chances  # told with the decision (experiments.load reckons the expected loss from them)
    assert decision.reason is Reason.LIKELY
    seeds = (1, 1, *range(2, 13))
    decisions = [guided_agent(casebase, Weights(0.5, 0.5, 0.5), seed, selection=Selection.CALIBRATED, prior="cases")
                 .choose(board, limits=SearchLimits(depth=2)) for seed in seeds]
    drawn = [d.move for d in decisions]
    assert drawn[0] == drawn[1]  # the same seed, the same move
    assert len(set(drawn)) > 1  # other seeds, other draws: the error model's chances, not its likeliest move
    assert all(board.is_legal(m) and m in chances for m in drawn)
    assert all(d.reason is Reason.CALIBRATED for d in decisions)
    # a rating is played by the error model, whatever Selection says
    rated = guided_agent(casebase, Weights(0.5, 0.5, 0.5), 1, selection=Selection.ARGMAX, rating=2000)
    assert rated.selection is Selection.CALIBRATED and rated.calibration is not None


def test_the_chances_are_reckoned_once_a_move_and_the_explanation_says_them(kosteniuk, monkeypatch):
    import engine.agents.guided as guided
    from engine.cbr.weights import Weights
    from engine.search.limits import SearchLimits

    casebase = synthetic_profile(kosteniuk, ErrorModel(0.05, 0.7))
    agent = guided_agent(casebase, Weights(0.5, 0.5, 0.5), 1, selection=Selection.LIKELY, prior="cases",
                               rating=2000)
    assert agent.calibration is not None and agent.calibration.rating == 2000
    original, reckoned = guided.judged_chances, []

    def counted(*args):
        reckoned.append(original(*args))
        return reckoned[-1]

    monkeypatch.setattr(guided, "judged_chances", counted)
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    decision = agent.choose(board, limits=SearchLimits(depth=2))
    assert len(reckoned) == 1
    chance = reckoned[0][decision.move]
    assert any(f"({share_text(chance)} of {len(reckoned[0])} moves" in line for line in explain(decision.record))


def test_uci_limit_strength_and_elo_round_trip_through_python_chess(kosteniuk):
    from uci_helpers import popen

    synthetic_profile(kosteniuk, ErrorModel(0.05, 0.7))
    with popen("--casebase", str(kosteniuk)) as engine:
        options = engine.options
        assert options["UCI_LimitStrength"].type == "check" and options["UCI_LimitStrength"].default is False
        elo = options["UCI_Elo"]
        assert (elo.type, elo.min, elo.max, elo.default) == ("spin", 1000, 3000, 2500)
        assert {Selection.CALIBRATED.value, Selection.LIKELY.value} <= set(options["Selection"].var)
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
        engine.configure({"UCI_LimitStrength": False, "Selection": "calibrated"})
        with engine.analysis(board, chess.engine.Limit(depth=2)) as analysis:
            said = [info["string"] for info in analysis if "string" in info]
        own = [line for line in said if line.startswith("strength: ")]  # no judge: sized (strength.md §7)
        assert len(own) == 1 and "without a judge, " in own[0] and "the error model draws" in own[0], said
        assert "error profile" in own[0] and any("by the error model" in line for line in said), said


def test_without_setting_anything_a_judge_and_a_profile_play_the_expert_s_own_strength(kosteniuk, tmp_path):
    from judge_helpers import scripted
    from uci_helpers import popen

    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")

    def said(engine: chess.engine.SimpleEngine) -> list[str]:
        with engine.analysis(board, chess.engine.Limit(depth=2)) as analysis:
            lines = [info["string"] for info in analysis if "string" in info]
        assert analysis.wait().move in board.legal_moves
        return lines

    bare = tmp_path / "bare.npz"
    shutil.copy(kosteniuk, bare)
    synthetic_profile(kosteniuk, ErrorModel(0.05, 0.7))
    with popen("--casebase", str(kosteniuk)) as engine:
        assert engine.options["Selection"].default == Selection.AUTO.value
        lines = said(engine)  # no judge: the error model sized to what the built-in search loses by itself
        assert any(line.startswith("strength: without a judge, ") and "the error model draws" in line
                   for line in lines), lines
        engine.configure({"Judge": scripted(tmp_path)})
        lines = said(engine)
        own = [line for line in lines if line.startswith("strength: ")]
        assert len(own) == 1 and "'s own, about " in own[0] and "Selection auto, with a judge" in own[0], lines
        assert any("drawn by the chooser at strength" in line for line in lines)  # the shipped chooser, by default
        engine.configure({"Chooser": "off"})
        assert any("drawn by the error model" in line for line in said(engine))
        engine.configure({"Selection": "argmax"})
        assert not any(" by the error model" in line or " by the chooser" in line for line in said(engine))
    with popen("--casebase", str(bare), "--judge", scripted(tmp_path)) as engine:
        lines = said(engine)
        assert any("only with an error profile in the casebase" in line for line in lines), lines


def test_tournament_options_are_read_as_the_engine_declares_them():
    from engine.cbr.configurations import parse_configurations
    from tournament.players import casebase_options, parse_options

    values = parse_options(["selection=calibrated", "UCI_LimitStrength=true", "UCI_Elo=1800"])
    assert values == {"Selection": Selection.CALIBRATED.value, "UCI_LimitStrength": True, "UCI_Elo": 1800}
    config = parse_configurations(["balanced"])[0]
    sent = casebase_options("x.npz", config, "guided", 5, judge="/j", options=values)
    assert sent["Selection"] == Selection.CALIBRATED.value and sent["UCI_Elo"] == 1800
    assert sent["Judge"] == "/j" and sent["Seed"] == 5
    for bad, why in (("Nonsense=1", "one of the engine's options"), ("UCI_Elo=5", "1000..3000"),
                     ("Seed=3", "set by the tournament"), ("Selection", "NAME=VALUE")):
        with pytest.raises(ValueError, match=why):
            parse_options([bad])


def test_below_what_the_prior_allows_the_prior_weighs_less():
    from engine.strength.calibration import MAX_SENSITIVITY, Calibration

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
    # weaker than any judged move alike: the end of the range, not an error
    assert calibration.at_rating(rating_of(2 * uniform)).model.prior_weight == 0.0


def test_the_calibrated_choice_is_fitted_on_the_profiles_first_positions_with_a_prior(kosteniuk, monkeypatch):
    """The style model's prior costs a forward pass a position when the agent is made (isready):
    with a model, only the first CALIBRATION_POSITIONS are fitted on; without one, all of them."""
    import engine.strength.calibration as calibration
    import engine.strength.likelihood as likelihood
    from engine.style.model import StyleModel, generic_model

    casebase = synthetic_profile(kosteniuk, ErrorModel(0.05, 0.7))
    n = len(Profile.of(casebase).rows)
    model = StyleModel.load(generic_model())
    monkeypatch.setattr(calibration, "_CACHE", {})
    monkeypatch.setattr(likelihood, "CALIBRATION_POSITIONS", 40)
    priced: list[int] = []
    real = model.priors
    monkeypatch.setattr(model, "priors", lambda boards, moves: priced.append(len(boards)) or real(boards, moves))
    fitted = calibration.calibrate(casebase, model)
    assert priced == [40] and "(40 positions, with the model" in fitted.source
    assert sum(len(own) for own in fitted.expert_losses.values()) == n  # how often: every position
    assert f"({n} positions:" in calibration.calibrate(casebase, None).source and n > 40
