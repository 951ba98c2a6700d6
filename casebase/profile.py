"""The expert's error profile: the expert's own moves judged by an outside engine, the error model
fitted to them, and the rating they imply (``python -m casebase profile``; docs/strength.md).

The positions are judged by :mod:`casebase.judging`; once every position is judged, Regan's
model (:mod:`casebase.errormodel`) is fitted and stored in the casebase with the analysis
(format 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import numpy as np

from casebase.errormodel import ErrorModel, fit, losses
from casebase.format import PROFILE_DTYPES, Casebase, CasebaseError, encode_board
from casebase.judging import JOURNAL, Journal, ProfileError, Settings, analyse, position

#: A move losing at least this many centipawns counts as a mistake in the summaries.
MISTAKE_CP = 50
#: Centipawn losses are clipped here for the means (a blunder in a won position is not 30 pawns).
CP_LOSS_CLIP = 1000
PHASES = ("opening", "middlegame", "endgame")
#: The bootstrap resamples of the implied rating's interval.
RESAMPLES = 100

#: The implied rating as a line in the log of the fitted model's expected loss per move
#: (expected score, percent): rating = A + B ln(loss). Fitted across the eight FIDE-rated
#: shipped experts' profiles (Stockfish 15.1, depth 12; ``python bench/bench_profiles.py``),
#: with the spread of their ratings about the line (Elo, one standard deviation).
RATING_LINE = (2807.0, -610.0)
RATING_SPREAD = 122.0


def encode_move(move: chess.Move) -> int:
    return move.from_square | move.to_square << 6 | (move.promotion or 0) << 12


def decode_move(code: int) -> chess.Move:
    return chess.Move(code & 63, code >> 6 & 63, (code >> 12) or None)


#: The pieces' values that tell the phase: knights, bishops, rooks, queens (BITBOARDS[3:7]).
PHASE_VALUES = np.array([3, 3, 5, 9])
#: At most this much of those pieces on the board (a rook and a minor piece each) is an endgame;
#: before this ply, the opening.
ENDGAME_MATERIAL = 26
OPENING_PLIES = 30


def phases_of(boards: np.ndarray, ply: np.ndarray) -> np.ndarray:
    """The phase of positions (encoded bitboards, N x 8) at ``ply``: :data:`PHASES` by material and ply."""
    material = (np.bitwise_count(np.asarray(boards)[:, 3:7]).astype(np.int64) * PHASE_VALUES).sum(axis=1)
    return np.where(material <= ENDGAME_MATERIAL, "endgame", np.where(np.asarray(ply) < OPENING_PLIES, "opening",
                                                                         "middlegame"))


def phase(board: chess.Board, ply: int) -> str:
    """The phase of one position (see :func:`phases_of`)."""
    return str(phases_of(encode_board(board)[None], np.array([ply]))[0])


# -- the profile -----------------------------------------------------------------------------


@dataclass
class Profile:
    """A casebase's error profile: the judged positions and what was fitted to them."""

    casebase: Casebase
    rows: np.ndarray
    moves: np.ndarray
    scores: np.ndarray
    played: np.ndarray
    meta: dict[str, Any]

    @classmethod
    def of(cls, casebase: Casebase) -> Profile | None:
        """The casebase's profile, or None when it has none."""
        if casebase.profile is None:
            return None
        p = casebase.profile
        return cls(casebase, p["profile_row"], p["profile_moves"], p["profile_scores"], p["profile_played"],
                   casebase.meta["profile"])

    @classmethod
    def from_entries(cls, casebase: Casebase, judged: list[tuple[int, dict[str, Any]]],
                     header: dict[str, Any]) -> Profile:
        """The profile of the judged positions (rows of ``casebase`` and their journal entries)."""
        entries = [entry for _, entry in judged]
        width = max(len(entry["moves"]) for entry in entries)
        moves = np.zeros((len(entries), width), np.uint16)
        scores = np.zeros((len(entries), width), np.int32)
        for i, entry in enumerate(entries):
            moves[i, :len(entry["moves"])] = [encode_move(chess.Move.from_uci(m)) for m in entry["moves"]]
            scores[i, :len(entry["scores"])] = entry["scores"]
        rows = np.array([row for row, _ in judged], np.int32)
        played = np.array([entry["played"] for entry in entries], np.int16)
        profile = cls(casebase, rows, moves, scores, played, {})
        profile.meta = {**{k: v for k, v in header.items() if k != "journal"}, **profile.summary()}
        return profile

    def arrays(self) -> dict[str, np.ndarray]:
        return dict(zip(PROFILE_DTYPES, (self.rows, self.moves, self.scores, self.played), strict=True))

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
        return phases_of(np.asarray(self.casebase.boards)[self.rows], np.asarray(self.casebase.ply)[self.rows])

    def summary(self) -> dict[str, Any]:
        """The fit, the implied rating and the loss statistics (overall and by phase)."""
        loss, chosen = self.loss, self.played.astype(np.int64)
        result = fit(loss, chosen)
        rating, low, high = implied_rating(loss, chosen, result.model)
        phases = self.phases
        stats = {name: loss_stats(self.cp_loss[phases == name], self.played[phases == name])
                 for name in PHASES}
        return {
            "positions": len(self.rows),
            "fit": {"sensitivity": result.model.sensitivity, "consistency": result.model.consistency,
                    "mean_log_likelihood": result.mean_log_likelihood,
                    "expected_loss": result.model.expected_loss(loss)},
            "rating": {"implied": rating, "low": low, "high": high},
            "all": loss_stats(self.cp_loss, self.played),
            "phases": stats,
        }


def loss_stats(cp_loss: np.ndarray, played: np.ndarray) -> dict[str, float]:
    """Positions, mean centipawn loss, share of mistakes and of the judge's first choices."""
    n = len(cp_loss)
    return {"positions": n, "mean_cp_loss": float(cp_loss.mean()) if n else math.nan,
            "mistakes": float((cp_loss >= MISTAKE_CP).mean()) if n else math.nan,
            "first_choice": float((played == 0).mean()) if n else math.nan}


def rating_of(expected_loss: float) -> float:
    """The rating :data:`RATING_LINE` gives a model expecting ``expected_loss`` (expected score) a move."""
    a, b = RATING_LINE
    return a + b * math.log(max(100 * expected_loss, 1e-6))


def loss_at(rating: float) -> float:
    """The expected loss per move (expected score) of a player of ``rating`` on that line."""
    a, b = RATING_LINE
    return math.exp((rating - a) / b) / 100


def implied_rating(loss: np.ndarray, chosen: np.ndarray, model: ErrorModel, *, seed: int = 0) -> tuple[float, float, float]:
    """The rating the fitted model implies and its 95 % interval: the positions resampled and
    refitted, widened by the spread of rated players about the line."""
    rating = rating_of(model.expected_loss(loss))
    rng = np.random.default_rng(seed)
    resampled = []
    for _ in range(RESAMPLES):
        pick = rng.integers(0, len(loss), len(loss))
        resampled.append(rating_of(fit(loss[pick], chosen[pick]).model.expected_loss(loss[pick])))
    half = math.hypot(1.96 * float(np.std(resampled)), 1.96 * RATING_SPREAD)
    return rating, rating - half, rating + half


def describe_profile(casebase: Casebase) -> str:
    """The ``error profile:`` line of ``casebase info``."""
    profile = Profile.of(casebase)
    if profile is None:
        return "none (python -m casebase profile FILE.npz --judge PATH makes one)"
    meta = profile.meta
    f, r, a = meta["fit"], meta["rating"], meta["all"]
    return (f"s {f['sensitivity']:.4f}, c {f['consistency']:.2f}; implied rating {r['implied']:.0f}"
            f" ({r['low']:.0f}..{r['high']:.0f}); {meta['positions']} positions judged by {meta.get('judge')}"
            f" at depth {meta.get('depth')}: mean loss {a['mean_cp_loss']:.1f} cp, {100 * a['mistakes']:.1f} %"
            f" lose {MISTAKE_CP} cp or more, {100 * a['first_choice']:.1f} % the judge's first choice")


def make_profile(casebase: Casebase, settings: Settings, judge: str | None, journal_path: Path | None = None, *,
                 progress: bool = True) -> Profile:
    """Judge (resuming the journal), fit, and store the profile in the casebase file."""
    if casebase.path is None:
        raise ProfileError("the casebase has no file to store its profile in")
    keep = journal_path is not None
    journal_path = journal_path or casebase.path.with_suffix(".profile.jsonl")
    header = {"journal": JOURNAL, "expert": casebase.expert, **settings.header()}
    journal = Journal(journal_path, header)
    judged = analyse(casebase, journal, settings, judge, progress=progress)
    if not judged:
        raise ProfileError("no position could be judged")
    for row, entry in judged:  # the journal must be of this very expert's games
        board = position(casebase, row)
        if entry["fen"].split()[:2] != board.fen().split()[:2] or \
                entry["moves"][entry["played"]] != casebase.move(row).uci():
            raise ProfileError(f"{journal_path}: case {entry['key']} is another position or move than"
                               f" the casebase's case {row}: a journal of other games")
    profile = Profile.from_entries(casebase, judged, {**journal.header, "seed": settings.seed,
                                                      "first_move": settings.first_move})
    store(casebase, profile)
    if not keep:
        journal_path.unlink(missing_ok=True)
    return profile


def store(casebase: Casebase, profile: Profile) -> None:
    """Write the casebase with ``profile`` (atomically, over its file)."""
    assert casebase.path is not None
    try:
        updated = Casebase(boards=np.asarray(casebase.boards), turn=np.asarray(casebase.turn),
                           from_square=np.asarray(casebase.from_square), to_square=np.asarray(casebase.to_square),
                           promotion=np.asarray(casebase.promotion), game=np.asarray(casebase.game),
                           ply=np.asarray(casebase.ply), games=casebase.games,
                           meta={**casebase.meta, "profile": profile.meta}, profile=profile.arrays())
    except CasebaseError as exc:
        raise ProfileError(f"the profile does not fit the casebase: {exc}") from exc
    updated.save(casebase.path)
