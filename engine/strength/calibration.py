"""The expert's calibrated choice: the style model's prior times the expert's error model
(docs/strength.md).

:func:`calibrate` fits the prior's weight, the sensitivity and the consistency together by
likelihood on the positions of the casebase's error profile (:mod:`engine.strength.profile`): the
moves the judge scored there, the expert's among them, and the model's prior over them. The
result chooses among judged moves as the expert does (:meth:`Calibration.chances`), and
:meth:`Calibration.at_rating` is the same model playing at another rating: the sensitivity
that makes its expected loss on the expert's positions the loss the rating line gives
(:mod:`engine.strength.rating`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import chess
import numpy as np

from casebase.format import Casebase
from casebase.phases import PHASES, game_phase
from casebase.speed import SPEED_POSITIONS
from common.files import file_sha256
from engine.search.result import SearchResult
from engine.strength.errormodel import (
    MAX_SENSITIVITY,
    MIN_SENSITIVITY,
    PRIOR_FLOOR,
    ErrorModel,
    increasing_root,
    losses,
)
from engine.strength.fitted import FITTED
from engine.strength.likelihood import likelihood_fit, stored_fit
from engine.strength.profile import PlayRecord, Profile, refusal, refused
from engine.strength.rating import loss_at, rating_of
from engine.style.loader import PriorModel
from engine.style.prior import Proposal

#: Without a profile: the median over the shipped experts of their fitted prior weight and
#: consistency, and the line of the log-sensitivity in rating through their fits, ln s = a + b
#: (rating - r0): data, made by ``python -m profiling.fitted`` (:mod:`engine.strength.fitted`).
SHIPPED_PRIOR_WEIGHT = FITTED.prior_weight
SHIPPED_CONSISTENCY = FITTED.consistency
SHIPPED_SENSITIVITY_LINE = FITTED.sensitivity_line
#: The judge's depth in the play-time record (profiling/play.py), and so in calibrated play on a
#: clock: about what 0.3 s a move gives Stockfish on one core, and the fidelity bench's depth.
PLAY_JUDGE_DEPTH = 10


class SpeedFit(NamedTuple):
    """A speed class's entry in the profile: its judged positions (None where it does not say), and
    its fit's expected loss over the all-games fit's (None: no fit of its own, too few
    positions)."""

    positions: int | None
    loss_ratio: float | None


def speed_fits(description: Mapping[str, Any]) -> dict[str, SpeedFit]:
    """The speed classes of a profile's description (``meta["profile"]``): each entry of its
    ``speeds``, with a loss ratio where it has a usable fit on at least :data:`SPEED_POSITIONS`, and
    the classes its ``speed_positions`` count without one (no ratio)."""
    every = description["fit"]["expected_loss"]
    counted = description.get("speed_positions") or {}
    found = {
        str(name): SpeedFit(count, None)
        for name, count in counted.items()
        if isinstance(count, int)
    }
    for name, entry in (description.get("speeds") or {}).items():
        if not isinstance(entry, dict):
            continue
        positions = entry.get("positions")
        positions = positions if isinstance(positions, int) else None
        loss = (entry.get("fit") or {}).get("expected_loss")
        usable = (
            isinstance(loss, int | float)
            and math.isfinite(loss)
            and loss > 0
            and every > 0
            and (positions is None or positions >= SPEED_POSITIONS)
        )
        found[str(name)] = SpeedFit(positions, loss / every if usable else None)
    return found


@dataclass(frozen=True)
class Calibration:
    """The expert's error model with the prior, and the expert's own losses to compare moves
    with."""

    model: ErrorModel
    expert: str
    #: The rating it plays at: the profile's implied rating, or the one asked for.
    rating: float
    #: Where the parameters come from, for the explanations.
    source: str
    #: The expert's own moves' losses in each phase (sorted), from the profile.
    expert_losses: Mapping[str, np.ndarray]
    #: The positions at_rating reaches its loss on: the games record's, else the play-time record's
    #: (the moves the engine chooses among, their losses as it sees them, the prior, and ``judged``:
    #: their losses as the profile judges), else the profile's own (``judged`` None).
    loss: np.ndarray | None = None
    log_prior: np.ndarray | None = None
    judged: np.ndarray | None = None
    #: The likelihood fit at_rating starts from (None: ``model`` is it).
    fitted: ErrorModel | None = None
    #: The judge's depth the choice was calibrated at: it plays there on a clock (strength.md §3).
    judge_depth: int = PLAY_JUDGE_DEPTH
    #: What the positions at_rating reaches its loss on ask of the expert, over what the expert's
    #: own positions ask: with a games record, whose positions are easier, less than 1 (strength.md
    #: §4).
    target_scale: float = 1.0
    #: The profile's speed classes (:func:`speed_fits`).
    speeds: Mapping[str, SpeedFit] = field(default_factory=dict)
    #: The speed class it was asked to play at (:meth:`at_speed`; None: none, all games), and
    #: whether it plays that class's own profile (False: it fell back to all games').
    speed: str | None = None
    speed_profile: bool = False
    #: The ``id name`` of the judge the profile and the record the sensitivity was set on were
    #: judged by (None: the shipped parameters); the engine says when its own judge is another
    #: (strength.md §3).
    judge: str | None = None

    def chances(self, scores: Sequence[int], prior: Sequence[float]) -> np.ndarray:
        """The chance of each judged move (scores in centipawns for the mover, prior as
        proposed)."""
        loss = losses(np.asarray(scores, dtype=np.float64)[None])
        log_prior = np.log(np.maximum(np.asarray(prior, dtype=np.float64), PRIOR_FLOOR))[None]
        return self.model.probabilities(loss, log_prior)[0]

    def how_often(self, loss: float, board: chess.Board) -> tuple[str, float] | None:
        """The phase of ``board`` in its game (a FEN's too, :func:`casebase.phases.game_phase`) and
        the share of the expert's moves there losing ``loss`` or more."""
        name = game_phase(board)
        own = self.expert_losses.get(name)
        if own is None or not len(own):
            return None
        return name, float(1 - np.searchsorted(own, loss - 1e-9) / len(own))

    def likeliest(self) -> Calibration:
        """What ``Selection likely`` ranks by: the likelihood fit itself, where the sensitivity was
        set again for strength on a record (issue #40, item 4); this one where it was not."""
        if self.fitted is None:
            return self
        return replace(
            self,
            model=self.fitted,
            source=f"{self.source}; the likeliest by the likelihood fit ({self.fitted.describe()})",
        )

    def at_rating(self, rating: float) -> Calibration:
        """The same prior weight and consistency, with the sensitivity of a player of ``rating``."""
        if self.loss is None:
            a, b, r0 = SHIPPED_SENSITIVITY_LINE
            model = replace(self.model, sensitivity=math.exp(a + b * (rating - r0)))
        else:
            model = _sensitivity_for(
                self.fitted or self.model,
                self.loss,
                self.log_prior,
                loss_at(rating) * self.target_scale,
                self.judged,
            )
        return replace(
            self, model=model, rating=rating, source=f"{self.source}, set to {rating:.0f}"
        )

    def at_speed(self, speed: str) -> Calibration:
        """The same prior weight and consistency, with the sensitivity whose expected loss on these
        positions is this one's times the ``speed`` class's fitted loss over all games' (strength.md
        §3); this one, saying it fell back, where the profile has no fit of that class (fewer than
        :data:`SPEED_POSITIONS` judged positions) or the class is unknown."""
        entry = self.speeds.get(speed)
        if entry is None or entry.loss_ratio is None:
            return replace(self, speed=speed, speed_profile=False)
        ratio, rating = entry.loss_ratio, rating_of(loss_at(self.rating) * entry.loss_ratio)
        if self.loss is None:  # no positions to set it on: the rating line's sensitivity
            model = self.at_rating(rating).model
        else:
            target = self.model.expected_loss(self.loss, self.log_prior, self.judged) * ratio
            model = _sensitivity_for(self.model, self.loss, self.log_prior, target, self.judged)
        source = (
            f"{self.source}; at {speed}, s {model.sensitivity:.4f} to lose {ratio:.2f} times as"
            f" much, as its {speed} games' fit does"
        )
        return replace(
            self, model=model, rating=rating, source=source, speed=speed, speed_profile=True
        )


def _sensitivity_for(
    model: ErrorModel,
    loss: np.ndarray,
    log_prior: np.ndarray | None,
    target: float,
    judged: np.ndarray | None = None,
) -> ErrorModel:
    """``model`` with the sensitivity whose expected loss on these positions (measured by ``judged``
    where given, ErrorModel.expected_loss) is ``target`` (it grows with s). Where even the largest s
    loses less, the choice is the prior's alone, and a weaker player is made by weakening the
    prior's weight too (down to 0: any judged move alike)."""

    def expected(**change: float) -> float:
        return replace(model, **change).expected_loss(loss, log_prior, judged)

    if expected(sensitivity=MAX_SENSITIVITY) >= target:
        log_s = increasing_root(
            lambda x: expected(sensitivity=math.exp(x)) - target,
            math.log(MIN_SENSITIVITY),
            math.log(MAX_SENSITIVITY),
        )
        return replace(model, sensitivity=math.exp(log_s))
    weight = increasing_root(
        lambda b: target - expected(sensitivity=MAX_SENSITIVITY, prior_weight=b),
        0.0,
        model.prior_weight,
    )
    return replace(model, sensitivity=MAX_SENSITIVITY, prior_weight=weight)


def shipped_calibration(expert: str, why: str = "no error profile") -> Calibration:
    """For a casebase without a profile (or whose profile was refused, ``why``): the shipped
    experts' typical parameters (median rating 2500)."""
    a, _, r0 = SHIPPED_SENSITIVITY_LINE
    model = ErrorModel(math.exp(a), SHIPPED_CONSISTENCY, SHIPPED_PRIOR_WEIGHT)
    return Calibration(model, expert, r0, f"{why}: the shipped experts' typical parameters", {})


_CACHE: dict[tuple[object, ...], Calibration] = {}


def calibrate(
    casebase: Casebase | None, model: PriorModel | None, rating: float | None = None
) -> Calibration:
    """The expert's calibrated choice from the casebase's profile and ``model``'s prior (fitted
    once per casebase file and model), or :func:`shipped_calibration` where there is no profile;
    at ``rating`` (:meth:`Calibration.at_rating`) when one is given (``UCI_Elo``)."""
    calibration = _calibration(casebase, model)
    return calibration if rating is None else calibration.at_rating(rating)


def _calibration(casebase: Casebase | None, model: PriorModel | None) -> Calibration:
    profile = None if casebase is None else Profile.of(casebase)
    if casebase is None or profile is None:
        refused = None if casebase is None else refusal(casebase)
        return shipped_calibration(
            "the engine" if casebase is None else casebase.expert, refused or "no error profile"
        )
    key = (
        str(casebase.path),
        profile.meta.get("fit", {}).get("sensitivity"),
        len(profile.rows),
        repr(profile.meta.get("play")),
        repr(profile.meta.get("games")),
        repr(profile.meta.get("speeds")),
        None if model is None else str(model.path),
    )
    if key not in _CACHE:
        _CACHE[key] = _fit(casebase, profile, model)
    return _CACHE[key]


def _other_model(profile: Profile, model: PriorModel | None) -> str | None:
    """Why the profile's records of the engine's own choices cannot calibrate the engine playing
    ``model``: they were made with another style model (its prior is in them); None where they
    can."""
    made = profile.records_model
    if model is None or model.path is None or made is None:
        return None
    plays = file_sha256(model.path)
    if plays == made:
        return None
    return (
        "its records of the engine's own choices were made with another style model (SHA-256"
        f" {made[:12]}…) than the one it plays now, {model.path.name} ({plays[:12]}…): record them"
        " again with python -m profiling --play to play this model calibrated"
    )


def _fit(casebase: Casebase, profile: Profile, model: PriorModel | None) -> Calibration:
    other = _other_model(profile, model)
    if other is not None:
        return shipped_calibration(casebase.expert, refused(casebase, other))
    found = stored_fit(profile, model) or likelihood_fit(profile, model)
    fitted, expected = found.model, found.expected
    if (
        not all(math.isfinite(x) and x > 0 for x in (fitted.sensitivity, fitted.consistency))
        or not math.isfinite(fitted.prior_weight)
        or not math.isfinite(expected)
    ):
        return shipped_calibration(
            casebase.expert, refused(casebase, f"its fit is not usable ({fitted.describe()})")
        )
    # how often the expert loses as much: from every judged position (no prior needed there)
    lost = profile.own_loss
    own = {str(name): np.sort(lost[profile.phases == name]) for name in PHASES}
    source = (
        f"{casebase.expert}'s error profile ({found.positions} positions"
        f"{', with the model' if model is not None else ''}: {fitted.describe()})"
    )
    calibration = Calibration(
        fitted,
        casebase.expert,
        rating_of(expected),
        source,
        own,
        found.loss,
        found.log_prior,
        speeds=speed_fits(profile.meta),
        judge=profile.meta.get("judge"),
    )
    play, games = profile.play, profile.games
    if play is None and games is None:
        return calibration
    try:
        return _at_play(calibration, play, games)
    # a record whose losses give no root (NaN: increasing_root's ValueError)
    except (ValueError, RuntimeError, FloatingPointError) as exc:
        return replace(
            calibration, source=f"{calibration.source}; the play-time record is not usable ({exc})"
        )


def _at_play(
    calibration: Calibration, play: PlayRecord | None, games: PlayRecord | None
) -> Calibration:
    """``calibration`` with the sensitivity whose own choices lose, as the profile judges them, what
    the positions the engine plays ask: those of its own games where there is a games record (what
    the expert's fitted model expects there), else the play-time record's (the expert's own loss);
    strength.md §3."""
    record = games if games is not None else play
    assert record is not None
    depth = int(record.meta["judge_depth"])  # casebase.checks requires it with each record
    model = set_on(calibration.model, record)
    reached = model.expected_loss(record.loss, record.log_prior, record.true_loss)
    weight = (
        ""
        if model.prior_weight == calibration.model.prior_weight
        else f", prior weight {model.prior_weight:.2f}"
    )
    where = (
        f"{len(record.moves)} {'positions of its own games' if games is not None else 'of them'}"
    )
    source = (
        f"{calibration.source}; s {model.sensitivity:.4f}{weight} set on the engine's own choices"
        f" in {where} (judge depth {depth}) to lose {100 * reached:.2f} % a move as"
        f" {calibration.expert} would"
    )
    scale = 1.0 if play is None else float(record.target.mean()) / float(play.target.mean())
    return replace(
        calibration,
        model=model,
        source=source,
        loss=record.loss,
        log_prior=record.log_prior,
        judged=record.true_loss,
        fitted=calibration.model,
        judge_depth=depth,
        target_scale=scale,
        judge=record.meta.get("judge", calibration.judge),
    )


def set_on(model: ErrorModel, record: PlayRecord) -> ErrorModel:
    """``model`` with the sensitivity whose choices in ``record``'s positions lose, as the profile
    judges them, the mean of its targets (§3)."""
    return _sensitivity_for(
        model, record.loss, record.log_prior, float(record.target.mean()), record.true_loss
    )


def judged_candidates(
    proposal: Proposal, result: SearchResult
) -> tuple[list[chess.Move], list[int], list[float]]:
    """What the calibrated choice chooses among: the moves the search or judge scored exactly, their
    scores, and the prior proposed for each."""
    scored = {m: s.score for m, s in result.scores.items() if s.exact}
    return (
        list(scored),
        list(scored.values()),
        [proposal.prior.get(m, proposal.model.get(m, 0.0)) for m in scored],
    )


def judged_chances(
    calibration: Calibration, proposal: Proposal, result: SearchResult
) -> dict[chess.Move, float]:
    """The calibrated chance of each move the search or judge scored exactly, with the prior
    proposed."""
    moves, scores, prior = judged_candidates(proposal, result)
    if not moves:  # a search stopped before it scored any move exactly: nothing to choose among
        return {}
    return dict(zip(moves, calibration.chances(scores, prior).tolist(), strict=True))


def choose(chances: Mapping[chess.Move, float], rng: np.random.Generator | None) -> chess.Move:
    """A move drawn with ``chances`` (``rng`` None: the likeliest, the first among equals)."""
    moves = list(chances)
    p = np.array([chances[m] for m in moves])
    return moves[int(np.argmax(p)) if rng is None else int(rng.choice(len(moves), p=p / p.sum()))]
