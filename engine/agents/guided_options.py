"""Guided mode's own options: the declarations :data:`engine.agents.modes.MODES` gives the mode,
and their values typed once (:class:`GuidedSettings`, by
:func:`engine.agents.options.settings_of`): what the guided agent plays by, and the names of what
it is made with (:mod:`engine.agents.guided_maker`).

Importing this module is cheap (no numpy, no casebase code), as :mod:`engine.agents.modes` is: the
UCI loop imports both before ``uciok``.
"""

from __future__ import annotations

from dataclasses import dataclass

from casebase.speed import SPEED_POSITIONS
from engine.agents import defaults
from engine.agents.defaults import Selection
from engine.agents.options import WEIGHT_OPTIONS, Option, setting, weights_from
from engine.cbr.weights import Weights
from engine.search import Search
from engine.style.prior import PriorSource

#: The options of guided mode, in the order the engine declares them.
GUIDED_OPTIONS: tuple[Option, ...] = (
    Option(
        "Neighbours",
        "spin",
        defaults.NEIGHBOURS,
        1,
        1024,
        doc="guided: k, how many of the most similar cases vote",
    ),
    Option(
        "Temperature",
        "spin",
        defaults.TEMPERATURE_TENTHS,
        1,
        10_000,
        doc="guided: τ × 10 (tenths of a similarity point; 40 = τ 4): a case's vote is"
        " exp((Sim − Sim_best) / τ)",
    ),
    Option(
        "Tolerance",
        "spin",
        defaults.TOLERANCE,
        0,
        1000,
        doc=(
            "guided: the soundness margin, centipawns a move may score below the search's"
            " best and still be sound (a move that lets a win above +200 cp slip to a draw"
            " never is)"
        ),
    ),
    Option(
        "Selection",
        "combo",
        defaults.SELECTION.value,
        choices=tuple(s.value for s in Selection),
        doc=(
            "guided: `auto` plays `calibrated` where the casebase has an error profile"
            " (with a judge, option `Judge`, the expert's own strength; without one, the"
            " Python search's choice where the expert loses less than it by itself, else"
            " the expert's error model drawing among its scores, strength.md §7; the engine says"
            " which in an `info string`), `argmax` otherwise (strength.md §4); `argmax`"
            " plays the sound move with the largest prior, `sample` draws a sound move by"
            " its prior; `calibrated` draws among the judged moves by the expert's error"
            " model (the prior times the chance of making that move's loss, fitted to the"
            " expert's own moves: strength.md), `likely` plays that model's most likely"
            " move"
        ),
    ),
    Option(
        "Prior",
        "combo",
        defaults.PRIOR.value,
        choices=tuple(p.value for p in PriorSource),
        doc=(
            "guided: where the prior comes from: `cases` (the nearest cases' votes),"
            " `model` (the style model), `blend` (the model, and the cases' votes where"
            " the position itself is a case)"
        ),
    ),
    Option(
        "Model",
        "string",
        defaults.MODEL,
        doc=(
            "guided: the style model: an lc0 network (`.pb.gz`: Maia, a Leela net), a"
            " model of this project (`.npz`: `make model`, `python -m learn train`) or a"
            " shipped one's name (`maia-1900`, `style`: the 8x96); `auto`: the expert's"
            " own network made from this casebase (`X.pb.gz` beside it, or shipped: `learn"
            " personalise`), else the shipped default network, the master network made"
            " here (`master`: Maia-1900 fine-tuned on master games, `make master`) where"
            " shipped, else Maia-1900; lc0 networks run in numpy on every platform"
            " (personal.md §2)"
        ),
    ),
    Option(
        "CaseWeight",
        "spin",
        defaults.CASE_WEIGHT_PERCENT,
        0,
        100,
        doc=(
            "guided, `Prior blend`: the cases' weight in percent where the nearest case is"
            " the position itself"
        ),
    ),
    Option(
        "Judge",
        "string",
        defaults.JUDGE,
        doc=(
            "guided: an outside UCI engine that judges the proposals instead of the"
            ' Python alpha-beta, e.g. `/usr/games/stockfish` (see "An outside judge" in'
            " docs/usage.md); `builtin`: the built-in search, the compiled `cbr-chess-search`"
            " installed beside `cbr-chess` (search.md §7); `auto`: Stockfish where it is"
            " installed (`stockfish` on `PATH`, `/usr/games`, `/usr/local/bin`,"
            " `/opt/homebrew/bin`), else the built-in search (the engine says which);"
            " `none` (or empty): no judge, the Python alpha-beta vets; `--judge`"
        ),
    ),
    Option(
        "Search",
        "combo",
        defaults.SEARCH.value,
        choices=tuple(s.value for s in Search),
        doc=(
            "guided, without a judge: `alphabeta`, the built-in alpha-beta over material"
            " and squares vets the proposals and the prior's first sound one is played;"
            " `puct`, the style network's own search (lc0's PUCT: the expert's prior"
            " proposes, the network's value judges, the visits decide) chooses among the"
            " moves the alpha-beta finds sound, where the style model is an lc0 network"
            " (search.md §10)"
        ),
    ),
    Option(
        "JudgeDepth",
        "spin",
        defaults.JUDGE_DEPTH,
        0,
        99,
        doc=(
            "guided, with a judge: its depth; 0 = the `go`'s limits and the clock (the"
            " calibrated choice: its calibration's depth, 10, within the clock)"
        ),
    ),
    Option(
        "JudgeTolerance",
        "spin",
        defaults.JUDGE_TOLERANCE,
        0,
        1000,
        doc=(
            "guided, with a judge: centipawns (its scale) a proposal may score below its"
            " best and still be sound"
        ),
    ),
    Option(
        "Chooser",
        "string",
        defaults.CHOOSER,
        doc=(
            "guided with a judge: the chooser file that picks the move among the judged"
            ' ones (issue #40; search.md, "The chooser"): `Selection likely` its'
            " likeliest, `calibrated` (and `auto`) a draw at the expert's strength (a"
            " chooser with reference positions); `auto`: the shipped"
            " `engine/strength/models/chooser.npz` where there is one, `off` (or empty):"
            " the error model chooses; `likely` not at a rating (`UCI_LimitStrength`)"
        ),
    ),
    Option(
        "UCI_LimitStrength",
        "check",
        defaults.LIMIT_STRENGTH,
        doc=(
            "guided: play at the rating `UCI_Elo` by the expert's error model (`Selection"
            " calibrated` with the sensitivity of that rating; the expert's prior is kept;"
            " strength.md §4)"
        ),
    ),
    Option(
        "UCI_Elo",
        "spin",
        defaults.UCI_ELO,
        *defaults.UCI_ELO_RANGE,
        doc="guided, with `UCI_LimitStrength`: the rating to play at",
    ),
    Option(
        "Speed",
        "combo",
        defaults.SPEED,
        choices=defaults.SPEED_SETTINGS,
        doc=(
            "guided, by the expert's error model (without a judge, what it draws beside"
            " the search's own loss, strength.md §7): which speed's profile it plays;"
            " `auto`, the speed the game's clock implies (`go wtime …` at the start of a"
            " game, or with `movestogo`; none for `depth`, `nodes` or `movetime`), where"
            f" the profile has one ({SPEED_POSITIONS} judged positions); `all`, all the"
            " expert's games; or a class, whatever the clock; `UCI_Elo` wins (strength.md"
            " §3)"
        ),
    ),
)


def _tenths(value: object) -> float:
    return int(str(value)) / 10


def _percent(value: object) -> float:
    return int(str(value)) / 100


@dataclass(frozen=True)
class GuidedSettings:
    """Option by option, what makes a guided agent (docs/usage.md's table says what each does)."""

    weights: Weights = setting(WEIGHT_OPTIONS, weights_from)
    neighbours: int = setting("Neighbours", int)
    temperature: float = setting("Temperature", _tenths)
    tolerance: int = setting("Tolerance", int)
    selection: Selection = setting("Selection", Selection)
    prior: PriorSource = setting("Prior", PriorSource)
    model: str = setting("Model", str)
    case_weight: float = setting("CaseWeight", _percent)
    judge_option: str = setting("Judge", str)
    search: Search = setting("Search", Search)
    judge_depth: int = setting("JudgeDepth", int)
    judge_tolerance: int = setting("JudgeTolerance", int)
    chooser: str = setting("Chooser", str)
    limit_strength: bool = setting("UCI_LimitStrength", bool)
    elo: int = setting("UCI_Elo", int)
    speed: str = setting("Speed", str)
    tables: str = setting("Tables", str)
    threads: int = setting("Threads", int)
    hash_mb: int = setting("Hash", int)

    @property
    def judge_auto(self) -> bool:
        """Whether option Judge asks for the Stockfish installed (``auto``)."""
        return self.judge_option.strip().lower() == defaults.JUDGE_AUTO

    @property
    def judge_builtin(self) -> bool:
        """Whether option Judge names the built-in search (``builtin``)."""
        return self.judge_option.strip().lower() == defaults.JUDGE_BUILTIN

    @property
    def judge(self) -> str | None:
        """The judge's command: the program option Judge names, the Stockfish installed, else the
        built-in search (``auto``), the built-in search (``builtin``), or None: no judge (``none``,
        the empty value, or ``auto`` and ``builtin`` finding none)."""
        from engine.outside.builtin import installed_search, search_for_auto

        if self.judge_auto:
            from engine.outside.stockfish import installed_stockfish

            return installed_stockfish() or search_for_auto()
        if self.judge_builtin:
            return installed_search()
        word = self.judge_option.strip().lower()
        return None if word == defaults.JUDGE_NONE or not self.judge_option else self.judge_option

    @property
    def rating(self) -> int | None:
        """The rating asked for (``UCI_LimitStrength`` with ``UCI_Elo``), or None."""
        return self.elo if self.limit_strength else None

    @property
    def played_selection(self) -> Selection:
        """The Selection played: a rating is played by the expert's error model (strength.md)."""
        return (
            Selection.CALIBRATED
            if self.rating is not None and not self.selection.calibrated
            else self.selection
        )

    def files(self, casebase: str) -> list[str]:
        """The files these settings may read (the agent is remade when one changes): option Model's
        (the one named, or, ``auto``, the default network, the generic model and where the
        casebase's own models are looked for) and the chooser's."""
        from engine.strength.chooser import chooser_path
        from engine.style.loader import default_model, model_path

        chooser = chooser_path(self.chooser)
        named = [] if chooser is None else [str(chooser)]
        if self.model != defaults.MODEL:
            return [model_path(self.model), *named]
        from engine.style.model import generic_model
        from engine.style.personal import candidates, network_candidates, sidecar

        networks = network_candidates(casebase)
        return [
            str(default_model()[0]),
            str(generic_model()),
            *map(str, candidates(casebase)),
            *(str(p) for network in networks for p in (network, sidecar(network))),
            *named,
        ]
