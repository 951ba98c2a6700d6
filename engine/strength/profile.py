"""The expert's error profile as the engine reads it: the ``profile_*`` arrays of the profile file
beside the casebase (the expert's moves judged by an outside engine, ``python -m profiling``) as
losses, centipawn losses and phases, and the statistics and fit stored with them (docs/strength.md
§1–2).

:class:`Profile` is a view: the casebase layer stores the arrays (:mod:`casebase.profilefile`), this
module says what they mean, :mod:`engine.strength.calibration` fits the calibrated choice to them,
and :mod:`profiling` judges the positions and stores the profile with :meth:`Profile.summary`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import chess
import numpy as np

from casebase.format import Casebase, decode_move
from casebase.phases import PHASES, phases_of
from casebase.profile_checks import PLAY_DTYPES, PROFILE_DTYPES
from casebase.speed import SPEED_POSITIONS, SPEEDS, UNKNOWN
from engine.strength.errormodel import PRIOR_FLOOR, expected_score, fit, losses
from engine.strength.rating import implied_rating

#: A move losing at least this many centipawns counts as a mistake in the summaries.
MISTAKE_CP = 50
#: Centipawn losses are clipped here for the means (a blunder in a won position is not 30 pawns).
CP_LOSS_CLIP = 1000


def refusal(casebase: Casebase) -> str | None:
    """Why the casebase's error profile was refused when the casebase was read
    (:attr:`casebase.format.Casebase.profile_problem`), as the engine tells it; None where it was
    not."""
    return None if casebase.profile_problem is None else refused(casebase, casebase.profile_problem)


def refused(casebase: Casebase, problem: str) -> str:
    """``error profile of X.npz refused: problem``: the casebase's profile is not played, and
    why."""
    name = casebase.path.name if casebase.path is not None else casebase.expert
    return f"error profile of {name} refused: {problem}"


def position(casebase: Casebase, row: int) -> chess.Board:
    """Case ``row``'s position, with the castling rights its king and rooks allow (a casebase
    keeps no castling rights, and the judge must see that castling is possible)."""
    board = casebase.board(row)
    board.set_castling_fen("KQkq")
    board.castling_rights = board.clean_castling_rights()
    return board


@dataclass(frozen=True)
class PlayRecord:
    """A record of the engine's own choices (``python -m profiling --play``, ``--games``): in each
    position, the moves the engine's judge scored exactly as it plays, their play-time ``scores``,
    the ``prior`` proposed for each, their scores by the profile's judge (``judged``, beside
    ``best``, that judge's best score of the position), and the loss the engine's choice should
    lose there (``target``: the expert's own move's, or what the expert's fitted model expects);
    ``moves`` 0 for none."""

    moves: np.ndarray
    scores: np.ndarray
    prior: np.ndarray
    judged: np.ndarray
    best: np.ndarray
    target: np.ndarray
    meta: dict[str, Any]

    @classmethod
    def of(
        cls,
        arrays: Mapping[str, np.ndarray],
        best: np.ndarray,
        target: np.ndarray,
        meta: dict[str, Any],
        key: str = "play",
    ) -> PlayRecord:
        """The record of the arrays ``profile_KEY_*`` (:data:`casebase.profile_checks.PLAY_DTYPES`),
        with the best score and the target of each position (of at least as many positions)."""
        moves, scores, prior, judged = (
            arrays[name.replace("_play_", f"_{key}_")] for name in PLAY_DTYPES
        )
        return cls(moves, scores, prior, judged, best[: len(moves)], target[: len(moves)], meta)

    @property
    def loss(self) -> np.ndarray:
        """Each move's loss as the engine sees it when it plays (NaN for none)."""
        return losses(np.where(self.moves > 0, self.scores, np.nan))

    @property
    def log_prior(self) -> np.ndarray:
        """The log of the prior the engine proposed (at least :data:`PRIOR_FLOOR`, as it plays)."""
        return np.log(np.maximum(np.nan_to_num(self.prior.astype(np.float64)), PRIOR_FLOOR))

    @property
    def true_loss(self) -> np.ndarray:
        """Each move's loss in expected score as the profile judges moves, against the profile's
        best (as the expert's own losses are; a move judged alone above it loses 0), NaN for
        none."""
        lost = expected_score(self.best)[:, None] - expected_score(self.judged)
        return np.where(self.moves > 0, np.clip(lost, 0.0, 1.0), np.nan)

    @property
    def cp_loss(self) -> np.ndarray:
        """Each move's loss in centipawns as the profile judges moves, clipped at
        :data:`CP_LOSS_CLIP` (0 for none)."""
        lost = self.best.astype(np.int64)[:, None] - self.judged.astype(np.int64)
        return np.where(self.moves > 0, np.clip(lost, 0, CP_LOSS_CLIP), 0)


@dataclass
class Profile:
    """A casebase's error profile: the judged positions (``rows`` of the casebase), the moves the
    judge scored there (encoded, best first, 0 for none), their ``scores`` (centipawns for the
    mover), the column of the expert's move, and ``meta``: how they were judged and what was
    fitted."""

    casebase: Casebase
    rows: np.ndarray
    moves: np.ndarray
    scores: np.ndarray
    played: np.ndarray
    meta: dict[str, Any]

    @classmethod
    def of(cls, casebase: Casebase) -> Profile | None:
        """The casebase's profile, or None when it has none (or it was refused when the casebase
        was read: :func:`refusal` says why)."""
        if casebase.profile is None:
            return None
        p = casebase.profile
        return cls(
            casebase,
            p["profile_row"],
            p["profile_moves"],
            p["profile_scores"],
            p["profile_played"],
            casebase.meta["profile"],
        )

    @property
    def play(self) -> PlayRecord | None:
        """The play-time record of the first positions, where the casebase has one."""
        p = self.casebase.profile
        if p is None or "profile_play_moves" not in p:
            return None
        return PlayRecord.of(p, p["profile_scores"][:, 0], self.own_loss, self.meta.get("play", {}))

    @property
    def games(self) -> PlayRecord | None:
        """The games record (positions of the engine's own games), where the casebase has one."""
        p = self.casebase.profile
        if p is None or "profile_games_moves" not in p:
            return None
        return PlayRecord.of(
            p,
            p["profile_games_best"],
            p["profile_games_target"].astype(np.float64),
            self.meta.get("games", {}),
            key="games",
        )

    @property
    def records_model(self) -> str | None:
        """The SHA-256 of the style model the records of the engine's own choices were made with
        (the file's provenance; a profile held inside a casebase: its play-time fit's), None without
        records."""
        if self.play is None and self.games is None:
            return None
        made = self.meta.get("provenance")
        if isinstance(made, dict):
            return made.get("model_sha256")
        return (self.meta.get("play", {}).get("fit") or {}).get("model")

    def first(self, n: int) -> Profile:
        """The first ``n`` judged positions (the first of the seeded order the judge went
        through)."""
        return replace(
            self,
            rows=self.rows[:n],
            moves=self.moves[:n],
            scores=self.scores[:n],
            played=self.played[:n],
        )

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays as the casebase stores them
        (:data:`casebase.profile_checks.PROFILE_DTYPES`)."""
        return dict(
            zip(PROFILE_DTYPES, (self.rows, self.moves, self.scores, self.played), strict=True)
        )

    @property
    def own_loss(self) -> np.ndarray:
        """The expert's own move's loss in expected score, in each position."""
        return self.loss[np.arange(len(self.rows)), self.played.astype(np.int64)]

    @property
    def loss(self) -> np.ndarray:
        """Each judged move's loss in expected score (NaN where a row has fewer moves)."""
        return losses(np.where(self.moves > 0, self.scores, np.nan))

    @property
    def cp_loss(self) -> np.ndarray:
        """The expert's move's loss in centipawns, clipped at :data:`CP_LOSS_CLIP`."""
        played = self.scores[np.arange(len(self.rows)), self.played]
        return np.clip(self.scores[:, 0] - played, 0, CP_LOSS_CLIP)

    @property
    def phases(self) -> np.ndarray:
        """The phase of each judged position (:func:`casebase.phases.phases_of`)."""
        return phases_of(
            np.asarray(self.casebase.boards)[self.rows], np.asarray(self.casebase.ply)[self.rows]
        )

    def positions(self) -> list[chess.Board]:
        """The judged positions, as the judge saw them (:func:`position`)."""
        return [position(self.casebase, int(row)) for row in self.rows]

    def judged_moves(self) -> list[list[chess.Move]]:
        """The moves the judge scored in each position, best first."""
        return [[decode_move(int(code)) for code in row if code] for row in self.moves]

    @property
    def speeds(self) -> np.ndarray:
        """The speed class of each judged position (its game's:
        :meth:`casebase.format.Casebase.speeds`)."""
        return self.casebase.speeds()[self.rows]

    def summary(self) -> dict[str, Any]:
        """The fit, the implied rating and the loss statistics (overall, by phase, and by speed
        where a class has at least :data:`SPEED_POSITIONS` judged positions), as stored in the
        profile's description (``meta["profile"]``) beside how the positions were judged."""
        phases, speeds = self.phases, self.speeds
        stats = {
            str(name): loss_stats(self.cp_loss[phases == name], self.played[phases == name])
            for name in PHASES
        }
        counts = {speed: int(np.count_nonzero(speeds == speed)) for speed in (*SPEEDS, UNKNOWN)}
        return {
            **self._fitted(np.ones(len(self.rows), dtype=bool)),
            "mistake_cp": MISTAKE_CP,
            "phases": stats,
            "speed_positions": counts,
            "speeds": {
                speed: self._fitted(speeds == speed)
                for speed in SPEEDS
                if counts[speed] >= SPEED_POSITIONS
            },
        }

    def _fitted(self, rows: np.ndarray) -> dict[str, Any]:
        """The positions, fit, implied rating and loss statistics of the positions where ``rows``
        holds."""
        loss, chosen = self.loss[rows], self.played[rows].astype(np.int64)
        result = fit(loss, chosen)
        implied = implied_rating(loss, chosen, result.model)
        return {
            "positions": int(np.count_nonzero(rows)),
            "fit": {
                "sensitivity": result.model.sensitivity,
                "consistency": result.model.consistency,
                "mean_log_likelihood": result.mean_log_likelihood,
                "expected_loss": result.model.expected_loss(loss),
            },
            "rating": {
                "implied": implied.rating,
                "low": implied.low,
                "high": implied.high,
                "bootstrap_low": implied.bootstrap_low,
                "bootstrap_high": implied.bootstrap_high,
            },
            "all": loss_stats(self.cp_loss[rows], self.played[rows]),
        }


def loss_stats(cp_loss: np.ndarray, played: np.ndarray) -> dict[str, float]:
    """Positions, mean centipawn loss, share of mistakes and of the judge's first choices."""
    n = len(cp_loss)
    return {
        "positions": n,
        "mean_cp_loss": float(cp_loss.mean()) if n else math.nan,
        "mistakes": float((cp_loss >= MISTAKE_CP).mean()) if n else math.nan,
        "first_choice": float((played == 0).mean()) if n else math.nan,
    }
