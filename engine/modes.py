"""The ways the engine plays, their options, and how an agent is made from option values.

A :class:`Mode` says how to make its agent from a casebase and the option values; a new mode
(or a new judge) is one more entry of :data:`MODES`. :class:`AgentBuilder` keeps the agent
for the options in force: it loads the casebase (once per file state), picks every game's
seed, and collects what the user should be told (:attr:`AgentBuilder.news`).

Importing this module is cheap (no numpy, no casebase code): the UCI loop imports it before
``uciok``, and the heavy modules load when the first agent is made.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from endgame import default_folder
from engine.prior import PRIORS
from engine.weights import Weights, from_hundredths

if TYPE_CHECKING:
    from casebase.format import Casebase
    from endgame.tablebase import Tablebase
    from engine.agent import Agent
    from engine.judge import Judge
    from engine.model import StyleModel

#: Seeds are 1..SEED_MAX; 0 asks for a fresh seed every game.
SEED_MAX = 2**31 - 1

OptionValue = int | str | bool

#: v1, v2, v3 (cbr-agent.md §5) as spins of hundredths.
WEIGHT_OPTIONS = ("DistanceWeight", "FromDistanceWeight", "FromContentWeight")

#: How much of a user's text an error message repeats.
ECHO_LIMIT = 200


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters (with a note of the length) for repeating it."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


@dataclass(frozen=True)
class Option:
    """One engine option: its type as UCI declares it, and how a value is read."""

    name: str
    kind: str  # "spin", "combo", "string" or "check"
    default: OptionValue
    minimum: int = 0
    maximum: int = 0
    choices: tuple[str, ...] = ()

    def parse(self, text: str) -> OptionValue:
        """The value ``text`` stands for; ValueError says why it is not acceptable."""
        if self.kind == "string":
            return "" if text == "<empty>" else text
        if self.kind == "check":
            if text.lower() not in ("true", "false"):
                raise ValueError(f"{self.name} takes true or false, not {clip(text)!r}")
            return text.lower() == "true"
        if self.kind == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise ValueError(f"{self.name} takes one of {', '.join(self.choices)}, not {clip(text)!r}")
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{self.name} takes a whole number, not {clip(text)!r}") from None
        if not self.minimum <= value <= self.maximum:
            raise ValueError(f"{self.name} takes {self.minimum}..{self.maximum}, not {clip(str(value))}")
        return value


class Resources(Protocol):
    """What a mode's factory may load besides the casebase (kept across agents)."""

    def model(self, path: str) -> StyleModel | None:
        """The style model at ``path``, or None (with the reason told to the user)."""

    def judge(self, command: str, threads: int, hash_mb: int) -> Judge:
        """The outside engine at ``command`` as a judge, started if it can be (else told why)."""

    def tablebase(self, folder: str) -> Tablebase:
        """The endgame tables of ``folder`` (loaded as positions need them)."""


AgentFactory = Callable[["Casebase | None", Mapping[str, OptionValue], Resources], "Agent"]


@dataclass(frozen=True)
class Mode:
    """A way of playing: how to make its agent from a casebase and the option values, what it
    does without a casebase, and its own options."""

    factory: AgentFactory
    summary: str
    without_casebase: str
    options: tuple[Option, ...] = field(default=())
    #: Whether it plays from a casebase at all (option Casebase is not even loaded otherwise).
    casebase: bool = True


def weights_of(values: Mapping[str, OptionValue]) -> Weights:
    """The weight list set by the three weight options (hundredths)."""
    return Weights(*(from_hundredths(int(values[name])) for name in WEIGHT_OPTIONS))


def _pure_agent(casebase: Casebase | None, values: Mapping[str, OptionValue], _: Resources) -> Agent:
    from engine.agent import PureAgent

    return PureAgent(casebase, weights_of(values), 0)


def _guided_agent(casebase: Casebase | None, values: Mapping[str, OptionValue], resources: Resources) -> Agent:
    from engine.guided import GuidedAgent

    prior = str(values["Prior"])
    return GuidedAgent(
        casebase,
        weights_of(values),
        0,
        neighbours=int(values["Neighbours"]),
        temperature=int(values["Temperature"]) / 10,
        tolerance=int(values["Tolerance"]),
        selection=str(values["Selection"]),
        prior=prior,
        model=resources.model(str(values["Model"])) if prior != "cases" else None,
        case_weight=int(values["CaseWeight"]) / 100,
        judge=resources.judge(str(values["Judge"]), int(values["JudgeThreads"]), int(values["JudgeHash"]))
        if values["Judge"] else None,
        judge_depth=int(values["JudgeDepth"]),
        judge_tolerance=int(values["JudgeTolerance"]),
        tablebase=resources.tablebase(str(values["Tables"])),
    )


def _search_agent(_: Casebase | None, values: Mapping[str, OptionValue], __: Resources) -> Agent:
    from engine.chess0 import Chess0Agent

    return Chess0Agent(str(values["Style"]), int(values["Depth"]), int(values["DepthDeviation"]),
                       int(values["Tolerance"]))


def default_casebase() -> Path:
    """The shipped casebase played when none is given (built by ``make casebases``)."""
    return Path(__file__).resolve().parent.parent / "casebases" / "carlsen-2800.npz"


def default_model() -> Path:
    """The shipped style model (made by ``make model``)."""
    return Path(__file__).resolve().parent.parent / "models" / "style.npz"


#: Chess0's engines (engine.chess0.STYLES).
STYLES = ("classic", "adaptive")
#: Guided mode's ways of choosing among sound proposed moves (engine.guided.SELECTIONS).
SELECTIONS = ("argmax", "sample")
#: Where guided mode's prior comes from unless option Prior says otherwise (engine.prior).
DEFAULT_PRIOR = "blend"

#: Modes by the name the ``Mode`` option uses; a new mode is one more entry.
MODES: dict[str, Mode] = {
    "pure": Mode(_pure_agent, "the thesis's agent: the most similar case's move, adapted",
                 "playing uniformly random legal moves"),
    "guided": Mode(
        _guided_agent,
        "the k nearest cases vote, an alpha-beta search vetoes unsound moves (search.md)",
        "playing the search's best move",
        (
            Option("Neighbours", "spin", 64, 1, 1024),
            # tenths of a similarity point: UCI spins are whole numbers
            Option("Temperature", "spin", 40, 1, 10_000),
            Option("Tolerance", "spin", 50, 0, 1000),
            Option("Selection", "combo", SELECTIONS[0], choices=SELECTIONS),
            Option("Prior", "combo", DEFAULT_PRIOR, choices=PRIORS),
            Option("Model", "string", str(default_model())),
            # percent: the cases' weight in the blend where the position itself is a case
            Option("CaseWeight", "spin", 50, 0, 100),
            # an outside UCI engine that scores the proposals instead of the built-in search
            Option("Judge", "string", ""),
            Option("JudgeDepth", "spin", 0, 0, 99),  # 0: by the go's limits and the clock
            # centipawns on the judge's scale (25: measured best for fidelity, search.md §7)
            Option("JudgeTolerance", "spin", 25, 0, 1000),
            Option("JudgeThreads", "spin", 1, 1, 1024),
            Option("JudgeHash", "spin", 16, 1, 65536),  # MB
        ),
    ),
    "search": Mode(
        _search_agent,
        "Chess0's engines, no casebase: Style classic (fixed-depth alpha-beta) or adaptive",
        "searching alone",
        (
            Option("Style", "combo", STYLES[0], choices=STYLES),
            Option("Depth", "spin", 4, 1, 20),  # the classic depth; the adaptive style's base depth
            Option("DepthDeviation", "spin", 2, 0, 10),
            # the adaptive style's randomisation threshold (shared with guided mode)
            Option("Tolerance", "spin", 50, 0, 1000),
        ),
        casebase=False,
    ),
}


def engine_options() -> list[Option]:
    """Every option the engine declares: the common ones, then each mode's own."""
    options = [
        Option("Casebase", "string", str(default_casebase())),
        Option("Mode", "combo", next(iter(MODES)), choices=tuple(MODES)),
        *(Option(name, "spin", 50, 0, 100) for name in WEIGHT_OPTIONS),
        Option("Seed", "spin", 0, 0, SEED_MAX),
        # every mode plays the tables' move where they cover the position
        Option("Tables", "string", str(default_folder())),
    ]
    for mode in MODES.values():
        options += [o for o in mode.options if o.name not in {x.name for x in options}]
    return options


FileState = tuple[object, ...]


def file_state(path: str) -> FileState:
    """What identifies a file's contents cheaply: its path, size and modification time (if
    it can be read at all; a path the system refuses is just a path)."""
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return (path,)
    return (path, stat.st_size, stat.st_mtime_ns)


class AgentBuilder:
    """The agent for the option values in force, remade when they (or the casebase file) change.

    :attr:`news` collects lines for the user (the casebase played, each game's seed);
    :attr:`problem` says why no casebase is in use, and what the mode does instead.
    """

    def __init__(self) -> None:
        self.news: list[str] = []
        self.problem: str | None = None
        #: Also tell how long loading took.
        self.debug = False
        self._agent: Agent | None = None
        self._key: tuple[object, ...] | None = None
        self._casebase: tuple[FileState, Casebase | None, str] | None = None
        self._model: tuple[FileState, StyleModel | None, str] | None = None
        self._used_model = False  # whether the agent in use asked for the model
        self._judge: Judge | None = None
        self._used_judge = False
        self._tablebase: Tablebase | None = None
        self._seed: int | None = None

    def agent(self, values: Mapping[str, OptionValue]) -> Agent:
        """The agent for ``values``; a new one starts from the game's seed, as at a new game.
        Where the endgame tables cover the position, it plays their move."""
        from engine.tables import TablebaseAgent

        path = str(values["Casebase"])
        key = (tuple(sorted(values.items())), file_state(path), file_state(str(values.get("Model", ""))))
        mode = MODES[str(values["Mode"])]
        if self._agent is None or key != self._key:
            casebase = self._load(path) if mode.casebase else None
            self._used_model = self._used_judge = False
            agent = TablebaseAgent(mode.factory(casebase, values, self), self.tablebase(str(values["Tables"])))
            if not self._used_judge:
                self.close()
            if self._seed is None or int(values["Seed"]):
                self._new_seed(values)
            agent.new_game(self._seed)
            if casebase is not None:
                elo = f", median Elo {casebase.elo}" if casebase.elo else ""
                own = "".join(f", {o.name} {values[o.name]}" for o in mode.options)
                self.news.append(
                    f"{values['Mode']} mode: casebase {casebase.expert} ({len(casebase)} cases{elo}),"
                    f" weights {weights_of(values)}{own}"
                )
            elif not mode.casebase:
                self.news.append(f"{values['Mode']} mode: " + ", ".join(f"{o.name} {values[o.name]}" for o in mode.options))
            self._agent, self._key = agent, key
        problems = []
        if mode.casebase and self._casebase is not None and self._casebase[2]:
            model_in_use = self._used_model and self._model is not None and self._model[1] is not None
            instead = "the style model proposes alone" if model_in_use else MODES[str(values["Mode"])].without_casebase
            problems.append(f"{self._casebase[2]}; {instead}")
        if self._used_model and self._model is not None and self._model[2]:
            problems.append(f"{self._model[2]}; the cases propose alone")
        self.problem = "\n".join(problems) or None
        return self._agent

    def model(self, path: str) -> StyleModel | None:
        """The style model at ``path``, read again only when the file changed; None with a reason."""
        from engine.model import ModelError, StyleModel

        self._used_model = True
        state = file_state(path)
        if self._model is not None and self._model[0] == state:
            return self._model[1]
        model, problem = None, ""
        try:
            model = StyleModel.load(path)
        except ModelError as exc:
            problem = f"cannot load model: {clip(str(exc))}"
        self._model = (state, model, problem)
        return model

    def judge(self, command: str, threads: int, hash_mb: int) -> Judge:
        """The judge process for these settings: the running one, or a new one (the old one quit);
        a judge that does not start is told of here and tried again at its next use."""
        from engine.judge import Judge, JudgeError, JudgeSettings

        self._used_judge = True
        settings = JudgeSettings(command, threads, hash_mb)
        if self._judge is not None and self._judge.settings == settings:
            return self._judge
        self.close()
        self._judge = Judge(settings)
        try:
            self._judge.start()
        except JudgeError as exc:
            self.news.append(self._judge.fault(clip(str(exc))))
        else:
            self.news.append(f"judge: {self._judge.name} ({clip(command)}), threads {threads}, hash {hash_mb} MB")
        return self._judge

    def tablebase(self, folder: str) -> Tablebase:
        """The tables of ``folder``, kept while the folder stays the same."""
        from endgame.tablebase import Tablebase

        if self._tablebase is None or str(self._tablebase.folder) != str(Path(folder or default_folder())):
            self._tablebase = Tablebase(folder or default_folder())
            self._tablebase.prepare()  # at isready, not in the middle of a move on the clock
        return self._tablebase

    def close(self) -> None:
        """Quit the judge process, if one runs (at the end of the session, or when no longer wanted)."""
        if self._judge is not None:
            self._judge.close()
            self._judge = None

    def new_game(self, values: Mapping[str, OptionValue]) -> None:
        """A new game: a new seed (unless option Seed fixes it), given to the agent if there is one."""
        self._new_seed(values)
        if self._agent is not None:
            self._agent.new_game(self._seed)

    def _new_seed(self, values: Mapping[str, OptionValue]) -> None:
        fixed = int(values["Seed"])
        self._seed = fixed or secrets.randbelow(SEED_MAX) + 1
        if not fixed:
            self.news.append(f"seed {self._seed} for this game (set option Seed to it to replay)")

    def _load(self, path: str) -> Casebase | None:
        """The casebase at ``path``, read again only when the file changed; None with a reason."""
        from casebase.format import Casebase, CasebaseError

        state = file_state(path)
        if self._casebase is not None and self._casebase[0] == state:
            return self._casebase[1]
        casebase, problem = None, ""
        if not path:
            problem = "no casebase set (option Casebase)"
        else:
            started = time.perf_counter()
            try:
                casebase = Casebase.load(path)
            except CasebaseError as exc:
                problem = f"cannot load casebase: {clip(str(exc))}"
                if Path(path) == default_casebase() and not Path(path).exists():
                    problem += " (build the shipped casebases with `make casebases`)"
            else:
                if self.debug:
                    self.news.append(f"loaded {path} in {time.perf_counter() - started:.2f} s")
        self._casebase = (state, casebase, problem)
        return casebase
