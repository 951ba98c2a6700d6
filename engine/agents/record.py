"""What decided a move, as one typed record (docs/explain.md): who proposed it, the prior's shares
and the cases' votes, the search's or judge's verdict, the choice and what it loses, the case it
came from. The agents fill it; the UCI layer words it (:mod:`engine.uci.explain`) and sends it as
JSON (option ``Explain``). Moves are kept as UCI and SAN, so that no reader needs the board.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import chess

from casebase.format import Casebase
from engine.outside.judge import JudgeNote
from engine.style.prior import PriorSource

#: The version of the record's schema (docs/explain.md); a change of a field's meaning raises it.
VERSION = 1


@dataclass(frozen=True)
class Named:
    """A move, as UCI and as SAN."""

    uci: str
    san: str

    @classmethod
    def of(cls, board: chess.Board, move: chess.Move) -> Named:
        return cls(move.uci(), board.san(move))

    @classmethod
    def of_case(cls, board: chess.Board, move: chess.Move) -> Named:
        """A case's move on the case's board: SAN where python-chess can write it, else UCI (a case
        board lacks castling and en-passant rights)."""
        try:
            return cls(move.uci(), board.san(move))
        except (ValueError, AssertionError):
            return cls(move.uci(), move.uci())


@dataclass(frozen=True)
class Share:
    """A move and its share (of the prior, the votes, the model's or the calibrated chances)."""

    uci: str
    san: str
    share: float


def ranked(board: chess.Board, shares: Mapping[chess.Move, float]) -> list[Share]:
    """``shares`` as a list, the largest first (equal shares in their given order)."""
    return [
        Share(m.uci(), board.san(m), p)
        for m, p in sorted(shares.items(), key=lambda item: -item[1])
    ]


def share_of(board: chess.Board, move: chess.Move, shares: Mapping[chess.Move, float]) -> Share:
    return Share(move.uci(), board.san(move), shares.get(move, 0.0))


@dataclass(frozen=True)
class NoCase:
    """Why no case proposes: no casebase (``expert`` None), or none with ``side`` to move."""

    expert: str | None
    side: str


@dataclass(frozen=True)
class Case:
    """A case of the expert's: its row, the game, date, move and ply it came from, its similarity
    (0–256); in guided mode the move's share of the votes and how many of the ``cases`` voted for
    it."""

    row: int
    expert: str
    white: str
    black: str
    event: str
    date: str
    move: int
    ply: int
    similarity: int
    votes: float | None = None
    voters: int = 0
    cases: int = 0

    @classmethod
    def of(
        cls,
        casebase: Casebase,
        row: int,
        similarity: int,
        votes: float | None = None,
        voters: int = 0,
        cases: int = 0,
    ) -> Case:
        src = casebase.source(row)
        return cls(
            row,
            casebase.expert,
            src.white,
            src.black,
            src.event,
            src.date,
            src.move_number,
            src.ply,
            similarity,
            votes,
            voters,
            cases,
        )


@dataclass(frozen=True)
class Proposal:
    """Who proposed (``source``: the cases, the style model or their blend) and what: the model's
    description, its weights' SHA-256 and its shares, the cases' votes and their weight in the
    prior, the prior itself; how many of the ``retrieved`` cases voted (fewer when stop came) and
    their similarity range."""

    source: PriorSource
    prior: list[Share]
    model: str | None = None
    proposes: list[Share] = field(default_factory=list)
    votes: list[Share] = field(default_factory=list)
    case_weight: float = 0.0
    expert: str | None = None
    cases: int = 0
    retrieved: int = 0
    similarity: tuple[int, int] | None = None
    no_case: NoCase | None = None
    # the model's weights' (StyleModel.weights_sha256): which network it is
    model_sha256: str | None = None


@dataclass(frozen=True)
class Verdict:
    """What the search (``judge`` None) or the judge found: its depth, nodes and seconds, its best
    move and score (None when it stopped before one), how many of the ``proposed`` moves it scored
    and found sound (within ``tolerance`` centipawns of the best)."""

    judge: str | None
    depth: int
    nodes: int
    seconds: float
    best: Named | None
    score: int | None
    proposed: int
    scored: int
    sound: int
    tolerance: int
    #: A search the network led (search.md §10): its nodes are visits, and the visits chose the
    #: move.
    led: bool = False


@dataclass(frozen=True)
class ByChooser:
    """The chooser chose the move (issue #40: ``Selection likely`` or ``calibrated`` with a judge),
    and the choice's ``chances`` are its: the ``depths`` whose scores of the candidates it saw
    besides the judge's, why it saw none (``missing``: stop came, the time ran out, the judge
    failed; their features were 0), and the ``strength`` it drew at (1: as fitted, ``Selection
    likely``'s)."""

    depths: list[int]
    missing: str | None = None
    strength: float = 1.0


@dataclass(frozen=True)
class Choice:
    """Why guided mode played ``move`` (with its share of the prior): the rule (``reason``), the
    proposer's first choice (``top``) and its score (``top_exact``: exact, else an upper bound), the
    move's own score; by the error model, the ``chances`` it drew among, what the move loses (a
    share of the expected score) and how often the expert loses that much in this ``phase``
    (``often``), with the calibration's ``source``, the ``speed`` class the game is played at (the
    clock's or option Speed's; None: none) and whether the error model is that class's own profile
    (``speed_profile``; False: all the expert's games'). ``unvetted``: the search stopped before
    depth 1. ``chooser``: the chooser chose (:class:`ByChooser`), None where it did not."""

    reason: str
    move: Share
    top: Share | None = None
    top_score: int | None = None
    top_exact: bool = True
    score: int | None = None
    unvetted: bool = False
    chances: list[Share] = field(default_factory=list)
    loss: float | None = None
    expert: str | None = None
    phase: str | None = None
    often: float | None = None
    calibration: str | None = None
    speed: str | None = None
    speed_profile: bool = False
    chooser: ByChooser | None = None
    #: The visits of the move and of the proposer's first choice, where a search the network led
    #: chose.
    visits: int | None = None
    top_visits: int | None = None


@dataclass(frozen=True)
class Precedent:
    """A precedent in a player's words (issue #61): the nearest case by the learned similarity whose
    move, adapted to the board, is the move played (``played``), else the nearest of the ``nearest``
    looked at; ``alike``, its cosine similarity in percent, and its own move."""

    case: Case
    alike: float
    case_move: Named
    played: bool
    nearest: int


@dataclass(frozen=True)
class Guided:
    """Guided mode's move: the proposal, the verdict, the choice, and the case the move came
    from."""

    proposal: Proposal
    verdict: Verdict
    choice: Choice
    case: Case | None = None
    #: The nearest case by the learned similarity that played the move (issue #61), where the
    #: casebase has embeddings.
    precedent: Precedent | None = None


@dataclass(frozen=True)
class Pure:
    """Pure mode's move: the most similar case (``side`` to move), drawn among ``tied`` of ``count``
    cases, its move (its SAN is UCI where the case's board cannot write it) adapted to ``played``
    with the adaptation's L (``fit``), drawn among ``tied_moves``."""

    case: Case
    side: str
    tied: int
    count: int
    case_move: Named
    played: Named
    fit: float
    tied_moves: int


@dataclass(frozen=True)
class Recalled:
    """Pure mode's move by the learned similarity (issue #61): the ``nearest`` cases of ``count``
    with ``side`` to move, nearest by the cosine of their embeddings, each case's move adapted to
    the board and voting; the nearest ``case`` (its ``alike``: the cosine in percent), its move, and
    the move played with its share of the votes (``votes``), from ``voters`` of the cases, drawn
    among ``tied_moves``."""

    case: Case
    alike: float
    side: str
    nearest: int
    count: int
    case_move: Named
    played: Named
    votes: float
    voters: int
    tied_moves: int


@dataclass(frozen=True)
class Uniform:
    """A move drawn uniformly among ``legal`` moves: no case to follow (``no_case``), or the
    engine's last resort (``no_case`` None)."""

    played: Named
    legal: int
    no_case: NoCase | None = None


@dataclass(frozen=True)
class Chess0:
    """Chess0's move: the ``style``, the depth reached of the depth planned, the best move and its
    score; the adaptive style's ``window`` and the move it drew among ``within`` of them."""

    style: str
    depth: int = 0
    planned: int = 0
    best: Named | None = None
    score: int | None = None
    window: int | None = None
    within: int = 0
    drawn: Named | None = None


@dataclass(frozen=True)
class Tables:
    """The endgame tables' move: ours (``ending``, the mate's ``wins`` and ``plies``) or Syzygy's
    (``ending`` None; ``wdl`` and ``dtz`` for the side to move)."""

    played: Named
    ending: str | None = None
    wins: bool | None = None
    plies: int = 0
    wdl: int = 0
    dtz: int = 0


@dataclass(frozen=True)
class NoMove:
    """There is no legal move (``why``: checkmate or stalemate, when known)."""

    why: str | None = None


#: What decided the move, one kind per way of deciding.
Detail = Guided | Pure | Recalled | Uniform | Chess0 | Tables | NoMove


@dataclass(frozen=True)
class ListedMovesIllegal:
    """None of the moves the ``go`` listed (``searchmoves``) is legal here: the choice is among
    all."""


@dataclass(frozen=True)
class TablesProblem:
    """A problem of the endgame tables, in their own words (a table that cannot be read or made)."""

    problem: str


@dataclass(frozen=True)
class NoAgent:
    """No agent chose the move (none could be made, or it raised ``error``): a uniformly drawn legal
    move."""

    error: str | None = None


@dataclass(frozen=True)
class SpeedProfile:
    """Which profile of the ``expert`` the error model plays this game (strength.md §3): that of the
    ``speed`` class the clock implies (or option Speed names: ``forced``), where it has one
    (``played``), else all the expert's games'; ``positions``: the class's judged positions (None
    where the profile does not say), ``needed`` for a profile of its own."""

    expert: str
    speed: str
    positions: int | None
    needed: int
    played: bool
    forced: bool = False


@dataclass(frozen=True)
class EngineLine:
    """An outside engine's own ``info string`` (a tournament's reference player), as it sent it."""

    text: str


@dataclass(frozen=True)
class OtherJudge:
    """The judge scoring the moves (``judge``, its ``id name``) is not the engine that judged the
    ``expert``'s error profile and its records (``profile_judge``), which the calibrated choice was
    set with: another version scores on another scale and sees otherwise at the same depth, so the
    calibrated strength may differ (strength.md §3). Said once per judge."""

    judge: str
    profile_judge: str
    expert: str


#: What the user is told before how the move was decided: a fallback, the judge's fate, another
#: judge than the profile's, the tables' problems, an outside engine's own words, the speed's
#: profile played.
Note = (
    ListedMovesIllegal
    | NoAgent
    | JudgeNote
    | OtherJudge
    | TablesProblem
    | EngineLine
    | SpeedProfile
)


@dataclass
class Record:
    """What decided a move: ``notes`` first (a fallback, the judge's fate, the tables' problems),
    then the way it was decided (``detail``)."""

    notes: list[Note] = field(default_factory=list)
    detail: Detail | None = None
