"""The expert's error profile: the expert's own moves judged by an outside engine, the error model
fitted to them, and the rating they imply (``python -m casebase profile``; docs/strength.md).

A sample of the expert's positions (after move :data:`FIRST_MOVE`, drawn with a seed) is judged
by any UCI engine through python-chess's client: its :data:`MULTIPV` best moves and the expert's
own, at a fixed depth. Each finished position is one line of a *journal* (JSON lines, flushed
as it is written), so a judge that fails or a user who stops loses nothing finished: the same
command goes on where it stopped. Once every position is judged, Regan's model
(:mod:`casebase.errormodel`) is fitted and stored in the casebase with the analysis (format 2).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine
import numpy as np
from tqdm import tqdm

from casebase.errormodel import ErrorModel, fit, losses
from casebase.format import PROFILE_DTYPES, Casebase, CasebaseError

JOURNAL = "cbr-chess-profile-journal"
#: Positions judged unless told otherwise, and the earliest full move sampled (the opening is
#: the expert's preparation, not his judgement: Regan skips moves 1-8 too).
POSITIONS = 400
FIRST_MOVE = 9
DEPTH = 12
#: The judge's best moves scored in each position, besides the expert's own.
MULTIPV = 10
#: The longest a judge may think about one position (seconds) before it counts as hung.
MAX_SECONDS = 60.0
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


class ProfileError(Exception):
    """The profile cannot be made: no judge where one is needed, a journal of other settings, a
    judge that failed (the finished positions are kept); the message says which."""


@dataclass(frozen=True)
class Settings:
    """How the positions are drawn and judged (a journal of other settings is refused)."""

    positions: int = POSITIONS
    depth: int = DEPTH
    multipv: int = MULTIPV
    seed: int = 0
    first_move: int = FIRST_MOVE

    def header(self) -> dict[str, Any]:
        """What a journal's entries depend on (the seed and first move only choose among them)."""
        return {"depth": self.depth, "multipv": self.multipv}


def encode_move(move: chess.Move) -> int:
    return move.from_square | move.to_square << 6 | (move.promotion or 0) << 12


def decode_move(code: int) -> chess.Move:
    return chess.Move(code & 63, code >> 6 & 63, (code >> 12) or None)


def position(casebase: Casebase, row: int) -> chess.Board:
    """Case ``row``'s position, with the castling rights its king and rooks allow (a casebase
    keeps no castling rights, and the judge must see that castling is possible)."""
    board = casebase.board(row)
    board.set_castling_fen("KQkq")
    board.castling_rights = board.clean_castling_rights()
    return board


def phase(board: chess.Board, ply: int) -> str:
    """``endgame`` with at most a rook and a minor piece each (26 points of pieces in all),
    ``opening`` up to move 15, else ``middlegame``."""
    values = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    material = sum(value * len(board.pieces(piece, colour)) for piece, value in values.items() for colour in chess.COLORS)
    if material <= 26:
        return "endgame"
    return "opening" if ply < 30 else "middlegame"


def case_keys(casebase: Casebase, rows: np.ndarray) -> list[str]:
    """What names a case whichever games a casebase kept of its source: the source file's SHA-256
    (its start), the game's index in that file and the ply (a held-out casebase's cases keep theirs)."""
    sources = [str(source.get("sha256") or source.get("name"))[:16] for source in casebase.meta["sources"]]
    games = np.asarray(casebase.game)[rows]
    return [f"{sources[s]}/{i}/{p}" for s, i, p in zip(casebase.games["source"][games].tolist(),
                                                         casebase.games["index"][games].tolist(),
                                                         np.asarray(casebase.ply)[rows].tolist(), strict=True)]


def sample(casebase: Casebase, settings: Settings) -> tuple[np.ndarray, list[str]]:
    """The cases in the order they are judged, and their keys: those from move ``first_move`` on,
    ordered by a seeded hash of their keys, so that a casebase holding fewer of the same games
    (held out) draws the same positions where it has them, and a larger ``--positions`` goes on
    along the same order."""
    rows = np.flatnonzero(np.asarray(casebase.ply) >= 2 * (settings.first_move - 1))
    keys = case_keys(casebase, rows)
    digests = b"".join(hashlib.blake2b(f"{settings.seed}:{key}".encode(), digest_size=8).digest() for key in keys)
    order = np.argsort(np.frombuffer(digests, dtype=">u8"), kind="stable")
    return rows[order], [keys[i] for i in order.tolist()]


def identity(casebase: Casebase) -> dict[str, Any]:
    """What ties a journal to its expert (its entries name their games themselves)."""
    return {"expert": casebase.expert}


# -- the journal ---------------------------------------------------------------------------


class Journal:
    """The judged positions of one expert, one JSON line each by case key (a cut-off last line is ignored)."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path, self.header = path, header
        self.entries: dict[str, dict[str, Any]] = {}
        if path.exists():
            self._read()

    def _read(self) -> None:
        with open(self.path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = None
        if not isinstance(header, dict) or header.get("journal") != JOURNAL:
            raise ProfileError(f"{self.path}: not a profile journal; move it away or name another with --journal")
        for key, value in self.header.items():
            if key != "judge" and header.get(key) != value:
                raise ProfileError(
                    f"{self.path}: a journal of other settings ({key} {header.get(key)!r}, not {value!r});"
                    " delete it to start over, or give the settings it was made with")
        self.header["judge"] = header.get("judge")
        for line in lines[1:]:
            try:
                entry = json.loads(line)
                self.entries[str(entry["key"])] = entry
            except (json.JSONDecodeError, KeyError, TypeError):
                continue  # the line a killed writer left half-written

    def usable(self, key: str) -> bool:
        """Whether ``key`` is judged, or not yet known to be unusable (a skipped position is not)."""
        return "skip" not in self.entries.get(key, {})

    def add(self, entry: dict[str, Any]) -> None:
        """Record one finished position (written and flushed to disk before it counts)."""
        new = not self.path.exists()
        if new:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            if new:
                f.write(json.dumps(self.header) + "\n")
            elif f.tell() and not self._ends_with_newline():
                f.write("\n")  # after a half-written line
            f.write(json.dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.entries[str(entry["key"])] = entry

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"\n"


# -- judging -------------------------------------------------------------------------------


def judge_position(engine: chess.engine.SimpleEngine, board: chess.Board, played: chess.Move,
                   settings: Settings) -> tuple[list[chess.Move], list[int]]:
    """The judge's best moves and the expert's, with their scores (centipawns for the mover)."""
    limit = chess.engine.Limit(depth=settings.depth, time=MAX_SECONDS)
    infos = engine.analyse(board, limit, multipv=settings.multipv)
    scored = {}
    for info in infos:
        pv, score = info.get("pv"), info.get("score")
        if pv and score is not None and pv[0] not in scored:
            scored[pv[0]] = _centipawns(score)
    if played not in scored:
        info = engine.analyse(board, limit, root_moves=[played])
        score = info.get("score")
        if score is None:
            raise chess.engine.EngineError("no score for the expert's move")
        scored[played] = _centipawns(score)
    moves = sorted(scored, key=lambda m: -scored[m])
    return moves, [scored[m] for m in moves]


def _centipawns(score: chess.engine.PovScore) -> int:
    return int(np.clip(score.relative.score(mate_score=100_000), -100_000, 100_000))


@dataclass
class _Sample:
    """The sampled cases of one casebase along their order, and which of them a journal holds."""

    rows: np.ndarray
    keys: list[str]
    journal: Journal
    positions: int

    def wanted(self) -> list[tuple[int, str]]:
        """The first ``positions`` usable cases (row, key) along the order, skipped ones passed over."""
        chosen: list[tuple[int, str]] = []
        usable = 0
        for row, key in zip(self.rows.tolist(), self.keys, strict=True):
            if usable == self.positions:
                break
            if self.journal.usable(key):
                chosen.append((row, key))
                usable += 1
        return chosen

    def missing(self) -> list[tuple[int, str]]:
        return [(row, key) for row, key in self.wanted() if key not in self.journal.entries]


def analyse(casebase: Casebase, journal: Journal, settings: Settings, judge: str | None, *,
            progress: bool = True) -> list[tuple[int, dict[str, Any]]]:
    """Judge the casebase's sampled positions not yet in ``journal`` with the UCI engine at
    ``judge``; the first ``settings.positions`` judged positions' rows and entries, in order."""
    cases = _Sample(*sample(casebase, settings), journal, settings.positions)
    missing = cases.missing()
    if missing and not judge:
        raise ProfileError(f"{len(missing)} of {settings.positions} positions are still to be judged:"
                           " give the engine to judge them with --judge PATH")
    if missing:
        assert judge is not None
        _judge_cases(casebase, cases, settings, judge, progress)
    return [(row, journal.entries[key]) for row, key in cases.wanted()]


def _judge_cases(casebase: Casebase, cases: _Sample, settings: Settings, judge: str, progress: bool) -> None:
    journal = cases.journal
    bar = tqdm(total=settings.positions, initial=settings.positions - len(cases.missing()), unit="pos",
               desc=f"judging {casebase.expert}", file=sys.stderr, disable=not progress, leave=False)
    try:
        engine = chess.engine.SimpleEngine.popen_uci([judge], timeout=10)
    except (OSError, chess.engine.EngineError, TimeoutError) as exc:
        bar.close()
        raise ProfileError(f"judge {judge} could not be started: {exc}") from None
    name = engine.id.get("name", Path(judge).name)
    try:
        if journal.header.get("judge") not in (None, name):
            raise ProfileError(f"{journal.path}: judged by {journal.header['judge']}, not {name}:"
                               " delete it to start over, or judge with that engine")
        journal.header["judge"] = name
        while missing := cases.missing():  # re-reckoned as skipped positions are found
            row, key = missing[0]
            board, played = position(casebase, row), casebase.move(row)
            if not board.is_legal(played) or board.legal_moves.count() < 2:
                journal.add({"key": key, "skip": "forced move" if board.is_legal(played)
                             else "the move needs what the stored position lacks (en passant)"})
                continue
            moves, scores = judge_position(engine, board, played, settings)
            journal.add({"key": key, "fen": board.fen(), "moves": [m.uci() for m in moves], "scores": scores,
                         "played": moves.index(played)})
            bar.update()
    except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as exc:
        kept = sum(1 for entry in journal.entries.values() if "moves" in entry)
        raise ProfileError(f"judge {name} failed ({exc or type(exc).__name__}); the {kept} positions judged are"
                           f" kept in {journal.path}: run the same command again to go on") from None
    finally:
        bar.close()
        try:
            engine.quit()
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError):
            engine.close()


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
        return np.array([phase(self.casebase.board(int(r)), int(self.casebase.ply[r])) for r in self.rows])

    def fitted(self) -> ErrorModel:
        """The error model fitted to these positions (stored, or fitted now)."""
        fit_meta = self.meta.get("fit")
        if fit_meta:
            return ErrorModel(fit_meta["sensitivity"], fit_meta["consistency"])
        return fit(self.loss, self.played.astype(np.int64)).model

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
    header = {"journal": JOURNAL, **identity(casebase), **settings.header()}
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
