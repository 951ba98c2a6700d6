"""Run a round robin: games in parallel worker processes, saved one by one, resumable.

Pure-mode moves depend only on (casebase, weights, seed, positions), and every game gets its
own agents and seeds, so the games are the same whatever the number of workers and whatever
order they finish in.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import chess
from tqdm import tqdm

from casebase.format import Casebase
from casebase.profilefile import with_profile
from engine.agents import defaults
from engine.agents.options import OptionValue
from engine.cbr.configurations import Configuration
from engine.outside.clock import Clock, TimeControl
from engine.style.loader import model_file_name, model_path
from engine.style.personal import choose_model
from parallel.cluster import Failed, distribute, node_id, table_files
from tournament.game import play_game
from tournament.pgnout import RunTags, game_pgn
from tournament.players import Entrant, Lineup, Side
from tournament.schedule import GameSpec, build_schedule
from tournament.store import RunDirectory

FORMAT = "cbr-chess-tournament"


@dataclass(frozen=True)
class TournamentSettings:
    """Everything that determines a tournament's games."""

    entrants: tuple[Entrant, ...]
    configs: tuple[Configuration, ...]
    rounds: int = 3
    mode: str = defaults.TOURNAMENT_MODE
    control: TimeControl = field(default_factory=lambda: TimeControl(40, 5400))
    seed: int = 0
    event: str = "CBR expert round robin"
    site: str = "cbr-chess"
    via_uci: bool = False
    #: An outside UCI engine judging guided mode's proposals (option Judge); "" for none.
    judge: str = ""
    #: The endgame tables' folder (option Tables; None: the engine's default folder, "": none) and
    #: guided mode's style model (option Model; "": the engine's default).
    tables: str | None = None
    model: str = ""
    #: Further options of our engine for every casebase player (``--option``), e.g. Selection
    #: calibrated.
    options: tuple[tuple[str, OptionValue], ...] = ()

    def schedule(self) -> list[GameSpec]:
        """The games; outside engines meet only the casebases, unless there are none (a match of
        engines)."""
        engines = [e.id for e in self.entrants if e.is_engine]
        return build_schedule(
            [e.id for e in self.entrants],
            self.configs,
            self.rounds,
            self.seed,
            reference=engines if len(engines) < len(self.entrants) else [],
        )

    def manifest(self, date: str) -> dict[str, Any]:
        """The run's identity as stored in tournament.json (``via_uci`` changes no game)."""
        return {
            "format": FORMAT,
            "version": 1,
            "date": date,
            "event": self.event,
            "site": self.site,
            "seed": self.seed,
            "rounds": self.rounds,
            "mode": self.mode,
            "time_control": str(self.control),
            "configs": [{"name": c.name, "weights": c.label} for c in self.configs],
            "players": [e.describe() for e in self.entrants],
            **({"judge": self.judge} if self.judge else {}),
            **({"model": self.model} if self.model else {}),
            **({"options": dict(self.options)} if self.options else {}),
        }

    def elos(self) -> dict[str, int | None]:
        return {e.id: e.elo for e in self.entrants}

    # what a cluster's workers need (parallel.cluster.Portable)

    def cargo(self) -> dict[str, Path]:
        casebases = {
            name: path
            for e in self.entrants
            if e.path is not None
            for name, path in with_profile(f"casebases/{e.id}.npz", Path(e.path)).items()
        }
        tables = {} if self.tables == "" else table_files(self.tables or "")
        if self.mode != "guided":
            return {**casebases, **tables}
        if self.model:
            return {
                **casebases,
                model_file_name("model", model_path(self.model)): Path(model_path(self.model)),
                **tables,
            }
        # each casebase's personal model travels beside it, where the engines look (option Model
        # auto)
        personal = {
            f"casebases/{name}": path
            for e in self.entrants
            if e.path is not None
            for name, path in choose_model(Casebase.load(e.path)).files(e.id).items()
        }
        return {**casebases, **personal, **tables}

    def unpacked(self, root: Path) -> Self:
        entrants = tuple(
            e
            if e.path is None
            else dataclasses.replace(e, path=str(root / f"casebases/{e.id}.npz"))
            for e in self.entrants
        )
        shipped = self.mode == "guided" and self.model
        model = (
            str(root / model_file_name("model", model_path(self.model))) if shipped else self.model
        )
        tables = "" if self.tables == "" else str(root / "tables")
        return dataclasses.replace(self, entrants=entrants, tables=tables, model=model)

    def programs(self) -> list[str]:
        return [
            *([self.judge] if self.judge else []),
            *(e.command[0] for e in self.entrants if e.is_engine),
        ]


@dataclass(frozen=True)
class Played:
    """What a worker hands back for one finished game (``stats``: see :func:`side_stats`)."""

    index: int
    pgn: str
    result: str
    stats: dict[str, Any]


def side_stats(side: Side, clock: Clock, colour: chess.Color) -> dict[str, Any]:
    """One side's effort in a game: moves made and thinking seconds charged to its clock,
    and the nodes and search seconds its UCI engine reported (None when it reported none)."""
    return {
        "moves": clock.moves_made[colour],
        "seconds": round(clock.used[colour], 3),
        "nodes": getattr(side, "nodes", None),
        "search_seconds": getattr(side, "search_seconds", None),
    }


class _GameWorker:
    """Plays games in one process: its lineup of players is made once (see :mod:`parallel.pool`)."""

    def __init__(self, settings: TournamentSettings, tags: RunTags) -> None:
        self.settings, self.tags = settings, tags
        self.lineup = Lineup(
            settings.entrants,
            mode=settings.mode,
            via_uci=settings.via_uci,
            judge=settings.judge,
            tables=settings.tables,
            model=settings.model,
            options=dict(settings.options),
        )

    def __call__(self, spec: GameSpec) -> Played:
        settings = self.settings
        white = self.lineup.side(spec.white, spec.config, spec.white_seed)
        black = self.lineup.side(spec.black, spec.config, spec.black_seed)
        record = play_game(white, black, settings.control)
        text = game_pgn(record, spec, self.tags, settings.elos())
        stats: dict[str, Any] = {
            "white": side_stats(white, record.clock, chess.WHITE),
            "black": side_stats(black, record.clock, chess.BLACK),
        }
        if (node := node_id()) is not None:
            stats["node"] = node
        return Played(spec.index, text, record.result, stats)

    def close(self) -> None:
        self.lineup.close()


def run(
    settings: TournamentSettings,
    out: str | os.PathLike[str],
    *,
    workers: int | None = None,
    progress: bool | None = None,
    cluster: str | None = None,
) -> Path:
    """Play every game of ``settings`` not yet in ``out``; return the path of results.pgn.

    The games are played by ``workers`` local processes, or as tasks of the Ray cluster at
    ``cluster`` (:mod:`parallel.cluster`); either way this process alone saves them, each once.
    Raises :class:`GamesFailed` when games failed for good on the cluster (the others are kept).
    ``progress=None`` shows a bar only on a terminal.
    """
    specs = settings.schedule()  # before anything is written: it checks the settings
    directory = RunDirectory(out)
    today = datetime.date.today().strftime("%Y.%m.%d")
    manifest = directory.start(settings.manifest(today))
    tags = RunTags(settings.event, settings.site, manifest["date"], settings.control, settings.mode)
    done = directory.finished(specs)
    pending = [s for s in specs if s.index not in done]
    workers = min(workers or os.cpu_count() or 1, max(len(pending), 1))
    tally: Counter[str] = Counter()
    failed: list[Failed[GameSpec]] = []
    start = time.perf_counter()
    where, results = distribute(
        _GameWorker, (settings, tags), pending, workers=workers, cluster=cluster
    )
    with tqdm(
        total=len(specs),
        initial=len(done),
        unit="game",
        disable=None if progress is None else not progress,
        desc=f"{len(pending)} games to play on {where}",
    ) as bar:
        for played in results:
            if isinstance(played, Failed):
                failed.append(played)
                bar.write(f"game {played.items[0].index} failed: {played.reason}")
                continue
            directory.save_stats(played.index, played.stats)
            directory.save_game(played.index, played.pgn)
            tally[played.result] += 1
            rate = sum(tally.values()) / max(time.perf_counter() - start, 1e-9) * 60
            bar.set_postfix_str(
                f"W/D/L {tally['1-0']}/{tally['1/2-1/2']}/{tally['0-1']}, {rate:.1f} games/min",
                refresh=False,
            )
            bar.update()
    if failed:
        raise GamesFailed(failed)
    return directory.assemble(specs)


class GamesFailed(RuntimeError):
    """Games that failed for good on a cluster: the rest are saved, and a new run plays these
    again."""

    def __init__(self, failed: list[Failed[GameSpec]]) -> None:
        reasons = Counter(f.reason for f in failed)
        self.indexes = sorted(spec.index for f in failed for spec in f.items)
        super().__init__(
            f"{len(self.indexes)} games failed for good (games"
            f" {', '.join(map(str, self.indexes[:10]))}"
            f"{', ...' if len(self.indexes) > 10 else ''}): "
            + "; ".join(f"{reason} ({n} games)" for reason, n in reasons.most_common())
            + ". The finished games are kept: run the same command again to play the others."
        )
