"""Guided mode's own options: the declarations :data:`engine.agents.modes.MODES` gives the mode
(their values typed once into :class:`engine.agents.guided_settings.GuidedSettings`).

Importing this module is cheap (no numpy, no casebase code), as :mod:`engine.agents.modes` is: the
UCI loop imports both before ``uciok``.
"""

from __future__ import annotations

from casebase.speed import SPEED_POSITIONS
from engine.agents import defaults
from engine.agents.defaults import Selection
from engine.agents.options import Option
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
            " (with a judge, option `Judge`, the expert's own strength; without one, what"
            " the built-in search does not lose by itself, strength.md §7; the engine says"
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
            ' built-in search, e.g. `/usr/games/stockfish` (see "An outside judge" in'
            " docs/usage.md); `auto`: Stockfish where it is installed (`stockfish` on"
            " `PATH`, `/usr/games`, `/usr/local/bin`, `/opt/homebrew/bin`; the engine says"
            " which), `none` (or empty): no judge; `--judge`"
        ),
    ),
    Option(
        "Search",
        "combo",
        defaults.SEARCH,
        choices=defaults.SEARCH_SETTINGS,
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
