"""The ways the engine plays and their options: the registry every user of an agent reads.

A :class:`Mode` takes its options from the mode's own options module, beside its settings dataclass
(:mod:`engine.agents.pure_options`, :mod:`engine.agents.guided_options`,
:mod:`engine.agents.chess0_options`), and names where its agent is made (that settings dataclass and
the ``make`` of the agent's module); a new mode is one more entry of :data:`MODES`
(docs/architecture.md, "Add a mode"). Agents are made by
:func:`engine.agents.factory.make_agent`; the UCI engine keeps its agent in
:class:`engine.uci.resources.AgentBuilder` and what its agents load in
:class:`engine.agents.kept.KeptResources`.

Importing this module is cheap (no numpy, no casebase code): the UCI loop imports it before
``uciok``, and the heavy modules load when the first agent is made.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from common.paths import casebase_folder
from endgame import default_folder
from engine.agents import defaults
from engine.agents.chess0_options import CHESS0_OPTIONS
from engine.agents.guided_options import GUIDED_OPTIONS
from engine.agents.options import (
    WEIGHT_DOCS,
    WEIGHT_OPTIONS,
    Option,
    OptionRegistry,
    OptionValue,
    S,
    settings_of,
)
from engine.agents.pure_options import PURE_OPTIONS

if TYPE_CHECKING:
    from casebase.format import Casebase
    from endgame.syzygy import SyzygyTables
    from endgame.tablebase import Tablebase
    from engine.agents.base import Agent
    from engine.outside.judge import Judge
    from engine.strength.chooser import Chooser
    from engine.style.loader import PriorModel

#: Seeds are 1..SEED_MAX; 0 asks for a fresh seed every game.
SEED_MAX = 2**31 - 1


class Resources(Protocol):
    """What a mode's factory may load besides the casebase (kept across agents)."""

    def model(self, path: str) -> PriorModel | None:
        """The style model at ``path``, or None (with the reason told to the user)."""

    def judge(self, command: str, threads: int, hash_mb: int) -> Judge:
        """The outside engine at ``command`` as a judge, started if it can be (else told why)."""

    def chooser(self, setting: str) -> Chooser | None:
        """The chooser option Chooser names (:func:`engine.strength.chooser.chooser_path`), or None:
        none, or (with the reason told to the user) one that cannot be read."""

    def tablebase(self, folder: str) -> Tablebase | None:
        """The endgame tables of ``folder`` (loaded as positions need them); None for "": no
        tables."""

    def syzygy(self, path: str) -> SyzygyTables | None:
        """The Syzygy tables of ``path`` (option SyzygyPath); None for "": none."""

    def tell(self, line: str) -> None:
        """Tell the user ``line`` (which model plays, and why), where there is a user to tell."""

    def embed(self, casebase: Casebase, network: Path) -> bool:
        """Whether the learned similarity's missing embeddings of ``casebase`` by ``network`` are
        being made in the background (the UCI engine: started at the first ask of a session, and
        said); False where nothing makes them (a bench's worker: ``make embeddings`` makes them
        ahead; a job that failed)."""


class Maker(NamedTuple):
    """How a mode's agent is made: its settings (a dataclass of
    :func:`~engine.agents.options.setting` fields, made once from the option values by
    :func:`~engine.agents.options.settings_of`), and ``make(casebase, settings, resources)``."""

    settings: type
    make: Callable[[Casebase | None, Any, Resources], Agent]


@dataclass(frozen=True)
class Mode:
    """A way of playing: where its agent is made (``maker``, loaded at the first agent), what it
    does without a casebase, and its own options."""

    maker: Callable[[], Maker]
    summary: str
    without_casebase: str
    options: tuple[Option, ...] = field(default=())
    #: Whether it plays from a casebase at all (option Casebase is not even loaded otherwise).
    casebase: bool = True


def _in(settings: str, make: str) -> Callable[[], Maker]:
    """The maker of a mode whose settings class and function ``make`` are named by their paths
    (``engine.agents.pure_options.PureSettings``, ``engine.agents.pure.make_pure``), imported where
    they live when the first agent of the mode is made (numpy and the casebase code load then, not
    before ``uciok``)."""

    def load() -> Maker:
        return Maker(_named(settings), _named(make))

    return load


def _named(path: str) -> Any:
    """What the dotted ``path`` names: a module's attribute."""
    module, name = path.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def default_casebase() -> Path:
    """The shipped casebase played when none is given (built by ``make casebases``)."""
    return casebase_folder() / f"{defaults.CASEBASE}.npz"


#: Modes by the name the ``Mode`` option uses; a new mode is one more entry.
MODES: dict[str, Mode] = {
    "pure": Mode(
        _in("engine.agents.pure_options.PureSettings", "engine.agents.pure.make_pure"),
        "the thesis's agent: the most similar case's move, adapted",
        "playing uniformly random legal moves",
        PURE_OPTIONS,
    ),
    "guided": Mode(
        _in(
            "engine.agents.guided_options.GuidedSettings", "engine.agents.guided_maker.make_guided"
        ),
        "the k nearest cases vote, an alpha-beta search vetoes unsound moves (search.md)",
        "playing the search's best move",
        GUIDED_OPTIONS,
    ),
    "chess0": Mode(
        _in("engine.agents.chess0_options.Chess0Settings", "engine.agents.chess0.make_chess0"),
        "Chess0's engines, no casebase: Style classic (fixed-depth alpha-beta) or adaptive",
        "searching alone",
        CHESS0_OPTIONS,
        casebase=False,
    ),
}


def engine_options() -> list[Option]:
    """Every option the engine declares: the common ones, then each mode's own."""
    options = [
        Option(
            "Casebase",
            "string",
            str(default_casebase()),
            doc=(
                "the expert's casebase (`.npz` from `python -m casebase build`, or a casebase's"
                " name); `--casebase`"
            ),
        ),
        Option(
            "Mode",
            "combo",
            defaults.MODE,
            choices=tuple(MODES),
            doc=(
                "`guided` (the default: the project's best self-contained play): the nearest cases"
                " vote, a search vetoes unsound moves; `pure`: the thesis's agent, the most"
                " similar case's move adapted (cbr-agent.md); `chess0`: Chess0's engines, no"
                " casebase; `--mode`"
            ),
        ),
        *(
            Option(name, "spin", defaults.WEIGHT_HUNDREDTHS, 0, 100, doc=f"{doc}; `--weights`")
            for name, doc in zip(WEIGHT_OPTIONS, WEIGHT_DOCS, strict=True)
        ),
        Option(
            "Seed",
            "spin",
            defaults.SEED,
            0,
            SEED_MAX,
            doc=(
                "the generator's seed, restarted at every `ucinewgame`; 0 = a fresh seed each"
                " game, told in an `info string` so the game can be replayed; `--seed`"
            ),
        ),
        Option(
            "Tables",
            "string",
            str(default_folder()),
            doc=(
                "every mode: the endgame tables' folder (`make tables`); KQK and KRK are made"
                " there at first use (a second each); empty (`<empty>`): no tables"
            ),
        ),
        Option(
            "SyzygyPath",
            "string",
            defaults.SYZYGY_PATH,
            doc=(
                "every mode: folders of Syzygy tables (separated as the system separates paths,"
                " `:` here), probed by python-chess: where they cover the position, the engine"
                " plays the move that keeps the best result and reaches it soonest (distance to"
                " zeroing), after our own `Tables`; a folder that cannot be read is told once"
            ),
        ),
        Option(
            "UCI_ShowWDL",
            "check",
            defaults.SHOW_WDL,
            doc=(
                "`wdl W D L` (per mille, for the side to move) beside every score, from a rough"
                " model of the score (a mate: `1000 0 0`)"
            ),
        ),
        Option(
            "Explain",
            "combo",
            defaults.EXPLAIN.value,
            choices=tuple(e.value for e in defaults.Explain),
            doc=(
                "what decided each move: `text`, English `info string` lines; `json`, also the"
                " decision's record as one `info string json {...}` line before them"
                " (docs/explain.md); `off`, neither"
            ),
        ),
        Option(
            "MultiPV",
            "spin",
            defaults.MULTI_PV,
            1,
            256,
            doc=(
                "guided: the move played and the expert's next N−1 most likely moves as analysis"
                " lines (`info multipv k …`), line 1 the move played, then by the prior, each with"
                " the search's or judge's score and an `info string` with its share (search.md §8)"
            ),
        ),
        Option(
            "Move Overhead",
            "spin",
            defaults.MOVE_OVERHEAD_MS,
            0,
            5000,
            doc="milliseconds kept back from every time limit, for the GUI's lag",
        ),
        Option(
            "HumanTime",
            "check",
            defaults.HUMAN_TIME,
            doc=(
                "on a clock alone (no `depth`, `nodes`, `mate`, `movetime`, `infinite` or"
                " `ponder`), hold the chosen move until a person at that clock would play it:"
                " `remaining / movestogo + increment` (movestogo 30 when not told) times a tenth"
                " for the only move, a fifth for a recapture, a quarter for the expert's own move"
                " in this very position, else a half (quiet) to twice (sharp: many captures and"
                " checks, close scores); never over a third of the clock nor into its last 10 s;"
                " `stop` ends the wait (web.md)"
            ),
        ),
        Option(
            "Ponder",
            "check",
            defaults.PONDER,
            doc=(
                "declared so that GUIs ponder: `go ponder` thinks on the opponent's time, the"
                " clock starts at `ponderhit` (search.md §4)"
            ),
        ),
        Option(
            "Threads",
            "spin",
            defaults.THREADS,
            1,
            1024,
            doc=(
                "the standard option; this engine searches on one thread, so it goes to the judge,"
                " when one is set"
            ),
        ),
        Option(
            "Hash",
            "spin",
            defaults.HASH_MB,
            1,
            65536,
            doc=(
                "the standard option, MB; this engine keeps a table per move, so it goes to the"
                " judge, when one is set"
            ),
        ),
    ]
    for mode in MODES.values():
        options += [o for o in mode.options if o.name not in {x.name for x in options}]
    return options


def option_registry() -> OptionRegistry:
    """The registry of every option, by name: where the UCI engine, the agent factory, the
    tournament and the fidelity bench look options up."""
    return OptionRegistry(engine_options())


def default_settings(kind: type[S], **fields: Any) -> S:
    """A mode's settings ``kind`` of the options' defaults, with ``fields`` (by field name) in their
    place (the benches' and the tests' agents; the engine's come from its option values)."""
    made: Any = settings_of(kind, option_registry().defaults())  # a dataclass
    return dataclasses.replace(made, **fields)


def option_defaults() -> dict[str, OptionValue]:
    """Every option's default value, by name."""
    return option_registry().defaults()
