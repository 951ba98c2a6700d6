"""The chooser's records: positions of master games as the engine sees them at play time (issue
#40).

``python -m learn.chooser.data PGN [PGN ...] --out FILE.jsonl --positions N --judge PATH``
draws N positions of the PGN files (:mod:`learn.chooser.positions` says how: from full move 9 on,
in a seeded order that a larger N goes on along) and records for each what the engine's guided
agent chooses among there. The agent is made as the play-time calibration makes it
(:mod:`profiling.play`: Mode guided, the judge at depth 10, Selection calibrated) on a casebase
(by default the shipped Postny's: no master game of the collection is in it; a casebase built
from the same file has the position's own game held out), and assesses the position exactly as
before choosing a move (:meth:`~engine.agents.guided.GuidedAgent.assess`). Recorded: the moves
its judge scored exactly, their scores, the prior of each and the cases' vote share
(:func:`~engine.strength.calibration.judged_candidates`, the agent's proposal), then from a second
process of the same judge program each candidate's score at the shallow depths (one search with
the candidates as its root moves) and the played move's score at the judge's depth.

One JSON line a position in a resumable journal (:mod:`common.journal`): the header says what the
entries depend on (a journal of other settings is refused), a kill loses at most the position
in hand, and the same command goes on where it stopped. The format is issue #40's.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine
from tqdm import tqdm

from casebase.checks import CasebaseError
from casebase.format import Casebase
from common.cli import positive_int
from common.journal import Journal, JournalError
from common.paths import casebase_path
from engine.agents.factory import Loader, judged_choice, play_time_agent
from engine.outside.failures import ENGINE_FAILURES, quit_engine
from engine.outside.judge import JudgeError
from engine.outside.launch import LaunchError, launch
from engine.outside.shallow import searched_scores
from engine.strength.calibration import PLAY_JUDGE_DEPTH
from engine.strength.chooser_features import SHALLOW_DEPTHS
from engine.style.model import ModelError
from engine.style.personal import model_sha256
from engine.uci.notes import note_text
from learn.chooser.positions import Filter, Position, Source, sample
from learn.chooser.records import RECORDS
from parallel.cluster import Failed, distribute

#: The header's ``journal`` value of the chooser's records (:data:`learn.chooser.records.RECORDS`).
JOURNAL = RECORDS
#: The shallow depths each candidate is scored at besides the judge's: the chooser's features.
SHALLOW = SHALLOW_DEPTHS
#: The casebase whose agent proposes unless told otherwise (no game of the masters' collection is in
#: it).
CASEBASE = "postny-2600"


class DataError(Exception):
    """The records cannot be made (a judge that failed: the finished positions are kept); the
    message says why."""


@dataclass(frozen=True)
class Settings:
    """How each position is judged (a worker's whole state: it pickles)."""

    judge: str
    casebase: str
    seed: int = 0
    judge_depth: int = PLAY_JUDGE_DEPTH
    shallow: tuple[int, ...] = SHALLOW


def header(
    settings: Settings, sources: Sequence[Source], player: str | None, model: str
) -> dict[str, Any]:
    """What the entries depend on (several sources: their names and SHA-256s as lists); ``judge`` is
    filled in by the first position judged."""
    names, shas = [source.path.name for source in sources], [source.sha256 for source in sources]
    return {
        "journal": JOURNAL,
        "source": names[0] if len(names) == 1 else names,
        "source_sha256": shas[0] if len(shas) == 1 else shas,
        "player": player,
        "judge": None,
        "judge_depth": settings.judge_depth,
        "shallow": list(settings.shallow),
        "seed": settings.seed,
        "casebase": Path(settings.casebase).stem,
        "model": model,
    }


class Recorder:
    """One process's agent and second judge: :meth:`__call__` makes one position's entry."""

    def __init__(self, settings: Settings) -> None:
        self.settings, self.loader = settings, Loader()
        self.casebase = Casebase.load(settings.casebase, tell=False)
        try:
            self.agent = play_time_agent(
                self.casebase, self.loader, settings.judge, settings.judge_depth, settings.seed
            )
            self.referee = launch([settings.judge], own_group=True)
        except (JudgeError, LaunchError) as exc:
            self.loader.close()
            raise DataError(f"judge {settings.judge} could not be started: {exc}") from None
        assert self.agent.judge is not None
        self.judge = self.agent.judge
        sources = [
            str(s.get("sha256") or s.get("name"))[:16] for s in self.casebase.meta["sources"]
        ]
        self.games = {
            f"{sources[s]}/{i}": g
            for g, (s, i) in enumerate(
                zip(
                    self.casebase.games["source"].tolist(),
                    self.casebase.games["index"].tolist(),
                    strict=True,
                )
            )
        }

    def __call__(self, position: Position) -> tuple[str, dict[str, Any]]:
        """The judge's name and the entry of ``position``."""
        try:
            return self.judge.name, self._entry(position)
        except ENGINE_FAILURES + (JudgeError,) as exc:
            raise DataError(
                f"judge {self.settings.judge} failed ({exc or type(exc).__name__})"
            ) from None

    def _entry(self, position: Position) -> dict[str, Any]:
        board, played = position.board(), chess.Move.from_uci(position.played)
        # each position its own draws (a resumed run records the same), its own game held out where
        # the casebase has it
        proposal, moves, scores, prior = judged_choice(
            self.agent,
            board,
            self.settings.seed,
            self.games.get(position.key.rsplit("/", 1)[0]),
            note_text,
        )
        shallow = searched_scores(self.referee, board, moves, self.settings.shallow, position.key)
        index = moves.index(played) if played in moves else -1
        played_score = (
            scores[index]
            if index >= 0
            else searched_scores(
                self.referee, board, [played], (self.settings.judge_depth,), position.key
            )[self.settings.judge_depth][0]
        )
        return {
            "key": position.key,
            "fen": position.fen,
            "last": position.last,
            "elo": position.elo,
            "speed": position.speed,
            "moves": [m.uci() for m in moves],
            "scores": scores,
            "prior": [round(p, 6) for p in prior],
            "votes": [round(proposal.votes.get(m, 0.0), 6) for m in moves],
            "shallow": {str(depth): found for depth, found in shallow.items()},
            "played": played.uci(),
            "played_index": index,
            "played_score": played_score,
        }

    def close(self) -> None:
        self.loader.close()
        quit_engine(self.referee)


def _write(
    results: Iterator[tuple[str, dict[str, Any]] | Failed[Position]], journal: Journal, bar: tqdm
) -> None:
    """Each entry into ``journal`` as it comes back, its judge's name checked against the
    journal's."""
    for result in results:
        if isinstance(result, Failed):
            raise DataError(result.reason)
        name, entry = result
        if journal.header.get("judge") not in (None, name):
            raise DataError(
                f"{journal.path}: judged by {journal.header['judge']}, not {name}:"
                " delete it to start over, or judge with that engine"
            )
        journal.header["judge"] = name
        journal.add(entry)
        bar.update()


def record(
    positions: Sequence[Position],
    journal: Journal,
    settings: Settings,
    *,
    workers: int = 1,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """The entries of ``positions``, in order, judged where ``journal`` does not hold them yet."""
    missing = [position for position in positions if position.key not in journal.entries]
    bar = tqdm(
        total=len(positions),
        initial=len(positions) - len(missing),
        unit="pos",
        desc="judging",
        file=sys.stderr,
        disable=not progress,
    )
    try:
        if missing:
            _, results = distribute(
                Recorder, (settings,), missing, workers=min(workers, len(missing))
            )
            try:
                _write(results, journal, bar)
            # closed now, not whenever collected: the workers and their engines end at once
            finally:
                if isinstance(results, Generator):
                    results.close()
    except DataError as exc:
        raise DataError(
            f"{exc}; the {journal.judged()} positions judged are kept in {journal.path}:"
            " run the same command again to go on"
        ) from None
    finally:
        bar.close()
    return [journal.entries[position.key] for position in positions]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m learn.chooser.data", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("pgn", nargs="+", type=Path, help="PGN files of games (plain or .gz)")
    parser.add_argument(
        "--out", type=Path, required=True, help="the records (JSON lines; resumed where it stopped)"
    )
    parser.add_argument(
        "--positions", type=positive_int, required=True, metavar="N", help="how many positions"
    )
    parser.add_argument(
        "--judge", required=True, metavar="PATH", help="a UCI engine (e.g. /usr/games/stockfish)"
    )
    parser.add_argument(
        "--player",
        metavar="NAME",
        help="only this player's moves (named as casebase build takes it)",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="NAME",
        help="leave out the games of this player (repeatable)",
    )
    parser.add_argument(
        "--casebase",
        default=CASEBASE,
        metavar="X.npz",
        help=f"the casebase whose guided agent proposes (default {CASEBASE})",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="the sample's and the agent's seed (default 0)"
    )
    parser.add_argument(
        "--workers", type=positive_int, default=1, help="processes judging (default 1)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    try:
        settings = Settings(args.judge, casebase_path(args.casebase), args.seed)
        sources, drawn = sample(
            args.pgn, Filter(args.player, tuple(args.exclude)), args.positions, args.seed
        )
        journal = Journal(
            args.out,
            header(
                settings,
                sources,
                args.player,
                model_sha256(Casebase.load(settings.casebase, tell=False)),
            ),
        )
        entries = record(
            drawn.positions, journal, settings, workers=args.workers, progress=not args.quiet
        )
    except (DataError, JournalError, CasebaseError, ModelError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    played = sum(entry["played_index"] >= 0 for entry in entries)
    print(
        f"{len(entries)} positions recorded in {args.out} ({drawn.damaged} damaged games passed"
        f" over; the played move among the candidates in {played})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
