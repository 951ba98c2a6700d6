"""Who plays: casebase experts and outside UCI engines, and the sides they field in a game.

An :class:`Entrant` is a tournament player as the command line names it. A *side* is what
plays one game: anything with ``choose(board, *, limits) -> Decision`` (the engine's Agent
protocol). Casebase entrants field a :class:`~engine.agents.base.PureAgent` in process (the fast
path) or our own UCI engine; outside engines always play over UCI (:class:`UciSide`).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import chess
import chess.engine

from casebase.format import Casebase, CasebaseError
from common.files import file_sha256
from common.text import clip
from engine.agents import defaults
from engine.agents.base import Decision, Reason
from engine.agents.factory import Loader, make_agent
from engine.agents.modes import MODES, option_registry
from engine.agents.options import WEIGHT_OPTIONS, OptionValue, weight_values
from engine.agents.record import EngineLine, Record
from engine.cbr.configurations import Configuration
from engine.outside.failures import quit_engine
from engine.outside.launch import LaunchError, launch, own_engine
from engine.search.limits import SearchLimits, to_limit
from engine.search.scores import from_pov_score


class Side(Protocol):
    """One player's side of one game."""

    def choose(self, board: chess.Board, *, limits: SearchLimits | None = None) -> Decision: ...


@dataclass(frozen=True)
class Entrant:
    """A player: a casebase (``path``) or an outside UCI engine (``command``)."""

    id: str
    name: str
    elo: int | None
    path: str | None = None
    command: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = ()
    digest: str = ""

    @property
    def is_engine(self) -> bool:
        return self.path is None

    def describe(self) -> dict[str, object]:
        """What identifies the player in a run's manifest (to refuse resuming a different run)."""
        if self.is_engine:
            return {
                "id": self.id,
                "kind": "engine",
                "name": self.name,
                "elo": self.elo,
                "command": list(self.command),
                "options": dict(self.options),
            }
        return {
            "id": self.id,
            "kind": "casebase",
            "name": self.name,
            "elo": self.elo,
            "sha256": self.digest,
        }


def casebase_entrant(path: str | Path) -> Entrant:
    """The entrant of a casebase file: id = file stem, name and Elo from its metadata."""
    path = Path(path)
    casebase = Casebase.load(path)
    return Entrant(
        id=path.stem,
        name=casebase.expert,
        elo=casebase.elo,
        path=str(path.resolve()),
        digest=file_sha256(path),
    )


def split_words(text: str) -> list[str]:
    """``text`` split as a shell splits it (quotes group words); on Windows a backslash is a path's
    separator there, not an escape (``cmd=C:\\engines\\stockfish.exe``)."""
    if sys.platform != "win32":
        return shlex.split(text)
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split, lexer.commenters, lexer.escape = True, "", ""
    return list(lexer)


def engine_entrant(text: str) -> Entrant:
    """Parse ``"name=sf cmd=/usr/games/stockfish option.UCI_Elo=1350 elo=1350"``.

    ``cmd`` may be quoted to hold arguments (``cmd='python3 my_engine.py'``).
    """
    fields: dict[str, str] = {}
    options: list[tuple[str, str]] = []
    for token in split_words(text):
        key, sep, value = token.partition("=")
        if not sep or not value:
            raise ValueError(f"--engine {text!r}: {token!r} is not KEY=VALUE")
        if key.startswith("option."):
            options.append((key.removeprefix("option."), value))
        elif key in ("name", "cmd", "elo"):
            fields[key] = value
        else:
            raise ValueError(
                f"--engine {text!r}: unknown key {key!r} (name, cmd, elo, option.NAME)"
            )
    if "name" not in fields or "cmd" not in fields:
        raise ValueError(f"--engine {text!r}: name=... and cmd=... are required")
    try:
        elo = int(fields["elo"]) if "elo" in fields else None
    except ValueError:
        raise ValueError(f"--engine {text!r}: elo={fields['elo']!r} is not an integer") from None
    return Entrant(
        id=fields["name"],
        name=fields["name"],
        elo=elo,
        command=tuple(split_words(fields["cmd"])),
        options=tuple(options),
    )


def casebase_options(
    path: str,
    config: Configuration,
    mode: str,
    seed: int,
    judge: str = "",
    tables: str | None = None,
    model: str = "",
    options: Mapping[str, OptionValue] | None = None,
) -> dict[str, OptionValue]:
    """UCI options that make our engine (engine/uci/protocol.py) play one behaviour with one seed
    (judged by the UCI engine at ``judge``, none where it is "": an experiment says its judge, never
    takes the one ``Judge auto`` finds; with the endgame tables of ``tables`` ("": none), the style
    model ``model`` and any other ``options``, where given; the engine's defaults otherwise)."""
    given = {"Model": model}
    return {
        **(options or {}),
        "Casebase": path,
        "Mode": mode,
        "Seed": seed,
        **weight_values(config.weights),
        "Judge": judge or defaults.JUDGE_NONE,
        **{name: value for name, value in given.items() if value},
        **({} if tables is None else {"Tables": tables}),
    }


#: Options a tournament sets itself (per player, game or run), not through ``--option``.
_OWN_OPTIONS = ("Casebase", "Mode", "Seed", "Judge", "Tables", "Model")


def parse_options(texts: Sequence[str]) -> dict[str, OptionValue]:
    """``["Selection=calibrated", "UCI_Elo=1800"]`` as our engine's option values; ValueError says
    what is wrong (an unknown option, a bad value, one the tournament sets itself)."""
    registry = option_registry()
    values: dict[str, OptionValue] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        try:
            if not sep:
                raise ValueError("no '='")
            option, parsed = registry.parse(name, value.strip())
        except ValueError as exc:
            raise ValueError(
                f"--option {clip(text)!r}: expected NAME=VALUE with one of the engine's options"
                f" ({exc})"
            ) from None
        if option.name in _OWN_OPTIONS or option.name in WEIGHT_OPTIONS:
            raise ValueError(
                f"--option {option.name}: set by the tournament itself (its own flags)"
            )
        values[option.name] = parsed
    return values


class UciSide:
    """A side played by a UCI engine process (kept open across games by a :class:`Lineup`).

    Every ``info string`` the engine prints for a move becomes a note of the Decision's record.
    ``options`` are sent before the game's first ``go``, then ``ucinewgame``.
    ``nodes`` and ``search_seconds`` sum, over the game's moves, the last ``info nodes`` and
    ``info time`` the engine reported for each move (None until it reports any).
    """

    def __init__(
        self, engine: chess.engine.SimpleEngine, options: Mapping[str, str | int | bool]
    ) -> None:
        self.engine = engine
        self.options: dict[str, str | int | bool] = dict(options)
        if "UCI_AnalyseMode" in engine.options:
            self.options.setdefault("UCI_AnalyseMode", False)
        self.game = object()
        self.nodes: int | None = None
        self.search_seconds: float | None = None

    def ready(self) -> None:
        """Send the options and wait for ``readyok``, before the game's clock starts: what they
        load (a casebase, a style model, a calibration) is not thinking time, and GUIs such as
        cutechess-cli start the clock only once both engines are ready."""
        self.engine.configure(self.options)
        self.engine.ping()

    def choose(self, board: chess.Board, *, limits: SearchLimits | None = None) -> Decision:
        limit = to_limit(limits or SearchLimits())
        lines: list[str] = []
        score: int | None = None
        nodes: int | None = None
        seconds: float | None = None
        with self.engine.analysis(board, limit, game=self.game, options=self.options) as analysis:
            for info in analysis:
                if "string" in info:
                    lines.append(info["string"])
                if "score" in info:
                    score = from_pov_score(info["score"].relative)
                nodes, seconds = info.get("nodes", nodes), info.get("time", seconds)
            best = analysis.wait()
        if nodes is not None:
            self.nodes = (self.nodes or 0) + nodes
        if seconds is not None:
            self.search_seconds = (self.search_seconds or 0.0) + seconds
        return Decision(
            move=best.move,
            reason=Reason.ENGINE,
            record=Record([EngineLine(line) for line in lines]),
            score=score,
        )


@dataclass
class Lineup:
    """The players of one worker process: casebases loaded once, engine processes started once."""

    entrants: Sequence[Entrant]
    mode: str = defaults.TOURNAMENT_MODE
    via_uci: bool = False
    judge: str = ""
    #: The endgame tables' folder (None: the engine's default folder; "": no tables) and guided
    #: mode's style model ("": the engine's default).
    tables: str | None = None
    model: str = ""
    #: Further options of our engine for every casebase player (parse_options).
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    _casebases: dict[str, Casebase] = field(default_factory=dict)
    _engines: dict[str, chess.engine.SimpleEngine] = field(default_factory=dict)
    _loader: Loader = field(default_factory=Loader)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r}: expected one of {', '.join(MODES)}")
        if self.judge and self.mode != "guided":
            raise ValueError(f"a judge judges guided mode's proposals; mode {self.mode!r} has none")
        if self.model and self.mode != "guided":
            raise ValueError(
                f"a style model proposes guided mode's moves; mode {self.mode!r} has none"
            )
        self._by_id = {e.id: e for e in self.entrants}

    @property
    def in_process(self) -> bool:
        """Pure mode runs in process unless told to use UCI: its moves do not depend on time."""
        return self.mode == "pure" and not self.via_uci

    def side(self, player: str, config: Configuration, seed: int) -> Side:
        """A fresh side of ``player`` for one game of ``config`` with ``seed``."""
        entrant = self._by_id[player]
        if entrant.is_engine:
            return self._uci_side(entrant.id, entrant.command, dict(entrant.options))
        assert entrant.path is not None  # a casebase entrant
        if self.in_process:  # the agent the UCI engine would make from the same options
            agent = make_agent(
                {
                    **self.options,
                    "Mode": "pure",
                    **weight_values(config.weights),
                    **({} if self.tables is None else {"Tables": self.tables}),
                },
                self._casebase(entrant.id, entrant.path),
                self._loader,
            )
            agent.new_game(seed)
            return agent
        return self._uci_side(
            entrant.id,
            own_engine(),
            casebase_options(
                entrant.path,
                config,
                self.mode,
                seed,
                self.judge,
                self.tables,
                self.model,
                self.options,
            ),
        )

    def _casebase(self, player: str, path: str) -> Casebase:
        if player not in self._casebases:
            try:
                self._casebases[player] = Casebase.load(path)
            except CasebaseError as exc:
                raise RuntimeError(f"player {player}: {exc}") from exc
        return self._casebases[player]

    def _uci_side(
        self, key: str, command: Sequence[str], options: Mapping[str, OptionValue]
    ) -> UciSide:
        """A side played by player ``key``'s engine process (started once, and again if it ended),
        ready with ``options`` before the game's clock starts."""
        engine = self._engines.get(key)
        if engine is None or engine.protocol.returncode.done():
            try:
                self._engines[key] = engine = launch(command)
            except LaunchError as exc:
                raise RuntimeError(f"player {key}: {exc}") from None
        side = UciSide(engine, options)
        side.ready()
        return side

    def close(self) -> None:
        """Quit every engine process this lineup started."""
        for engine in self._engines.values():
            quit_engine(engine)
        self._engines.clear()
