"""The play-time record: what the engine's own calibrated choice chooses among on the expert's
profile positions, judged as the expert's moves were (docs/strength.md §3, issue #29).

The profile's model is fitted on the judge's ten best moves at depth 12, but the engine plays on
others: the moves its judge scores as it plays (its best and the prior's largest proposals, at
the judge's depth). So for the first positions of a casebase's error profile, the engine's guided
agent, made with the default options, a judge and ``Selection calibrated``, assesses each position
exactly as before choosing a move (:meth:`~engine.agents.guided.GuidedAgent.assess`, the judge
held to ``judge_depth`` plies so that the record does not depend on the machine's load), and
records the moves it could choose among, their play-time scores and the prior over them
(:func:`~engine.strength.calibration.judged_candidates`). The position's own game is held out of
retrieval while it is played: its case would propose the expert's very move (the position is a
case of the casebase, and the cases' votes join the prior there), which no game the engine plays
offers it (on Kosteniuk's profile positions that made the prior's favourite her move 96 % of
the time, against 34 % on her held-out games). Each of those moves is also scored as the
profile scores moves: the profile's own score where its judge scored the move, else one
``searchmoves`` search at the profile's depth. :mod:`engine.strength.calibration` then sets the
sensitivity so that these choices lose what the expert lost.

One JSON line a position, in a journal resumed as the profile's is (:mod:`profiling.journal`), the
positions played here, on worker processes or on a Ray cluster as the profile's are judged
(:mod:`profiling.workers`: each worker with its own agent, judge and referee).
"""

from __future__ import annotations

import dataclasses
import sys
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import chess
import chess.engine
import numpy as np
from tqdm import tqdm

import common.journal
from casebase.format import Casebase, encode_move
from casebase.profile_checks import PLAY_DTYPES
from casebase.profilefile import with_profile
from engine.agents.factory import Loader, judged_choice, play_time_agent
from engine.agents.guided import GuidedAgent
from engine.outside.failures import ENGINE_FAILURES, quit_engine
from engine.outside.judge import JudgeError
from engine.outside.launch import LaunchError, launch
from engine.search.limits import SearchLimits, to_limit
from engine.search.scores import from_pov_score
from engine.strength.calibration import PLAY_JUDGE_DEPTH
from engine.strength.likelihood import CALIBRATION_POSITIONS
from engine.strength.profile import Profile, position
from engine.style.personal import choose_model, model_sha256
from engine.uci.notes import note_text
from parallel.cluster import table_files
from profiling import ProfileError
from profiling.journal import Journal
from profiling.judging import MAX_MS, case_keys
from profiling.workers import HERE, Engines, Verdict, Where, verdict, verdicts

#: The header's ``journal`` value of a play-time journal (defined beside the journal, for its
#: readers).
PLAY_JOURNAL = common.journal.PLAY_JOURNAL


@dataclass(frozen=True)
class PlaySettings:
    """Which profile positions are played and how the engine's judge scores them."""

    positions: int = CALIBRATION_POSITIONS
    judge_depth: int = PLAY_JUDGE_DEPTH
    seed: int = 1

    def header(self, casebase: Casebase, profile: Profile) -> dict[str, Any]:
        """What a play-time journal's entries depend on (a journal of others is refused): the
        casebase (a held-out casebase proposes otherwise than the whole one), the profile's
        depth, how the engine played, and the style model it played with (checked by
        :func:`record_play`: a finished journal of another model is read, and says which)."""
        return {
            "journal": PLAY_JOURNAL,
            "expert": casebase.expert,
            "cases": len(casebase),
            "depth": profile.meta.get("depth"),
            "judge_depth": self.judge_depth,
            "seed": self.seed,
            "held_out": "the position's game",
            "model": model_sha256(casebase),
        }


def record_play(
    casebase: Casebase,
    profile: Profile,
    settings: PlaySettings,
    judge: str | None,
    journal: Journal,
    *,
    referee: str | None = None,
    progress: bool = True,
    where: Where = HERE,
) -> list[dict[str, Any]]:
    """The play-time entries of the profile's first ``settings.positions`` positions, in order,
    played by the engine on ``casebase`` (with the engine ``judge``) where the journal does not hold
    them yet, and scored as the profile scores moves by ``referee`` (the profile's judge; by default
    ``judge``: another measures what a judge of another version changes, strength.md §3), on the
    workers or cluster of ``where``. The positions are usually the casebase's own; a profile of
    other games (a held-out player's, :func:`profiling.intrinsic.judge_games`) measures the choice
    out of sample."""
    count = min(settings.positions, len(profile.rows))
    if journal.header.get("judge") not in (None, profile.meta.get("judge")):
        raise ProfileError(
            f"{journal.path}: played with the judge {journal.header['judge']}, but the profile was"
            f" judged by {profile.meta.get('judge')}: delete it to start over"
        )
    keys = case_keys(profile.casebase, profile.rows[:count])
    missing = [i for i, key in enumerate(keys) if key not in journal.entries]
    made_with, now = journal.header.get("model"), model_sha256(casebase)
    # one record, one model (a journal without one: made before they said)
    if missing and made_with not in (None, now):
        raise ProfileError(
            f"{journal.path}: played with the style model {made_with[:12]}…, but the engine now"
            f" plays {casebase.expert} with {now[:12]}…: delete it to record the choices again with"
            " this one"
        )
    if missing and not judge:
        raise ProfileError(
            f"{len(missing)} of {count} positions are still to be played for the play-time"
            " calibration: give the engine to judge them with --judge PATH"
        )
    if missing:
        assert judge is not None
        _play(
            casebase,
            profile,
            settings,
            Engines((judge, referee or judge)),
            journal,
            [(i, keys[i]) for i in missing],
            progress,
            where,
        )
    return [journal.entries[key] for key in keys]


@dataclass(frozen=True)
class PlayFiles:
    """The casebase the engine plays, as a worker reads it (:class:`parallel.cluster.Portable`):
    with its profile and the personal model beside it, and the endgame tables (``tables``: the
    folder; None, the engine's default)."""

    casebase: str
    tables: str | None = None

    def cargo(self) -> dict[str, Path]:
        path = Path(self.casebase)
        # where Model auto looks
        personal = choose_model(Casebase.load(path, tell=False)).files(path.stem)
        return {**with_profile(path.name, path), **personal, **table_files(self.tables or "")}

    def unpacked(self, root: Path) -> Self:
        return dataclasses.replace(
            self, casebase=str(root / Path(self.casebase).name), tables=str(root / "tables")
        )

    def programs(self) -> list[str]:
        return []


#: A position to play: its index among the profile's, key, board, the profile's judged moves and
#: their scores there, and the casebase row whose game is held out while it is played (None: none).
PlayItem = tuple[int, str, chess.Board, list[chess.Move], list[int], int | None]


class PositionPlayer:
    """Plays positions in one worker process (:class:`parallel.pool.Worker`): the engine's guided
    agent with its judge, and the profile's judge (the referee), started at the first position."""

    def __init__(
        self, files: PlayFiles, engines: Engines, settings: PlaySettings, depth: int
    ) -> None:
        self.files, self.settings, self.depth = files, settings, depth
        self.judge, self.referee_command = engines.commands[0], engines.commands[-1]
        self.loader: Loader | None = None
        self.started: tuple[GuidedAgent, chess.engine.SimpleEngine] | None = None
        self.name = Path(self.referee_command).name

    def _start(self) -> tuple[GuidedAgent, chess.engine.SimpleEngine]:
        self.casebase = Casebase.load(self.files.casebase, tell=False)
        self.loader = Loader()
        try:
            agent = play_time_agent(
                self.casebase,
                self.loader,
                self.judge,
                self.settings.judge_depth,
                self.settings.seed,
                self.files.tables,
            )
            referee = launch([self.referee_command], own_group=True)
        except (JudgeError, LaunchError) as exc:
            self.close()
            failed = self.judge if isinstance(exc, JudgeError) else self.referee_command
            raise ProfileError(f"judge {failed} could not be started: {exc}") from None
        self.name = referee.id.get("name", Path(self.referee_command).name)
        self.started = agent, referee
        return self.started

    def __call__(self, item: PlayItem) -> Verdict:
        i, key, board, judged_moves, judged_scores, held_out = item
        agent, referee = self.started or self._start()

        def entry() -> dict[str, Any]:
            game = None if held_out is None else int(np.asarray(self.casebase.game)[held_out])
            # each position its own draws; its own game held out: its case would propose the answer
            _, moves, scores, prior = judged_choice(
                agent, board, self.settings.seed + i, game, note_text
            )
            judged = _profile_scores(
                referee, dict(zip(judged_moves, judged_scores)), self.depth, board, moves
            )
            return {
                "key": key,
                "moves": [m.uci() for m in moves],
                "scores": scores,
                "prior": [round(p, 6) for p in prior],
                "judged": [judged[m] for m in moves],
            }

        return verdict(self, key, entry, ENGINE_FAILURES + (JudgeError,))

    def close(self) -> None:
        loader, self.loader, started, self.started = self.loader, None, self.started, None
        if loader is not None:
            loader.close()
        if started is not None:
            quit_engine(started[1])


def _play(
    casebase: Casebase,
    profile: Profile,
    settings: PlaySettings,
    engines: Engines,
    journal: Journal,
    missing: list[tuple[int, str]],
    progress: bool,
    where: Where,
) -> None:
    """Play ``missing`` (index, key) positions on ``where`` with the engine's judge ``engines``'s
    first, scored by the profile's judge, its last; each entry written as it comes back."""
    if casebase.path is None:
        raise ProfileError(
            "the casebase has no file for the workers that play its positions to read"
        )
    judged_moves = profile.judged_moves()
    # the position's own game held out: its case would propose the answer
    own = profile.casebase is casebase
    items: list[PlayItem] = [
        (
            i,
            key,
            position(profile.casebase, int(profile.rows[i])),
            judged_moves[i],
            profile.scores[i].tolist(),
            int(profile.rows[i]) if own else None,
        )
        for i, key in missing
    ]
    count = min(settings.positions, len(profile.rows))

    def failure(what: str) -> ProfileError:
        return ProfileError(
            f"{what}; the positions played are kept in {journal.path}: run the same command"
            " again to go on"
        )

    args = (PlayFiles(str(casebase.path)), engines, settings, int(profile.meta.get("depth", 12)))
    bar = tqdm(
        total=count,
        initial=count - len(missing),
        unit="pos",
        desc=f"playing {casebase.expert}",
        file=sys.stderr,
        disable=not progress,
        leave=False,
    )
    try:
        with closing(verdicts(PositionPlayer, args, items, where, failure)) as played:
            for verdict in played:
                if verdict.judge != profile.meta.get("judge"):
                    raise ProfileError(
                        f"the profile was judged by {profile.meta.get('judge')}, not"
                        f" {verdict.judge}: the play-time moves must be judged by the same engine"
                    )
                journal.header["judge"] = verdict.judge
                journal.add(verdict.entry)
                bar.update()
    finally:
        bar.close()


def _profile_scores(
    referee: chess.engine.SimpleEngine,
    scored: dict[chess.Move, int],
    depth: int,
    board: chess.Board,
    moves: list[chess.Move],
) -> dict[chess.Move, int]:
    """Each of ``moves`` scored as the profile scores moves: its own score where its judge scored it
    (``scored``: the profile's moves of the position and their scores), else a search of the others
    alone at the profile's ``depth``."""
    scored = dict(scored)
    others = [m for m in moves if m not in scored]
    if others:
        limit = to_limit(SearchLimits(depth=depth, movetime=MAX_MS))
        for info in referee.analyse(board, limit, multipv=len(others), root_moves=others):
            if info.get("pv") and info.get("score") is not None and info["pv"][0] not in scored:
                scored[info["pv"][0]] = from_pov_score(info["score"].relative)
    lost = [m for m in moves if m not in scored]
    if lost:
        raise chess.engine.EngineError(f"no score for {', '.join(m.uci() for m in lost)}")
    return scored


def play_arrays(entries: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The play-time entries as the casebase stores them
    (:data:`casebase.profile_checks.PLAY_DTYPES`)."""
    width = max(len(entry["moves"]) for entry in entries)
    arrays = {name: np.zeros((len(entries), width), dtype) for name, dtype in PLAY_DTYPES.items()}
    for i, entry in enumerate(entries):
        n = len(entry["moves"])
        arrays["profile_play_moves"][i, :n] = [
            encode_move(chess.Move.from_uci(m)) for m in entry["moves"]
        ]
        for field in ("scores", "prior", "judged"):
            arrays[f"profile_play_{field}"][i, :n] = entry[field]
    return arrays
