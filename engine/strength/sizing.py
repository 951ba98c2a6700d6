"""The expert's strength without Stockfish (issues #67 and #73, strength.md §7): whether the
expert's error model plays at all, by what the engine's own search loses by itself: the Python
search without a judge, or the built-in search judging (option Judge builtin, or auto where no
Stockfish is found).

With a judge, the error model draws among moves Stockfish scored, and the engine loses what its
expert loses. Without one, the engine's own search scores the moves, and its choice alone already
loses about :data:`OWN_LOSS` a move (expected score, as the profiles judge: Stockfish 15.1 at depth
12), more than most experts. Where the expert (or ``UCI_Elo``) loses no more than that, drawing
would only lose more: the search's choice plays, as close to the expert's strength as the engine
comes. Where the expert loses more, the error model draws at the expert's rating, unchanged:
measured, its draws among the built-in search's scores lose less than asked even so (strength.md
§7), so none of it is taken off. The built-in search as the judge is sized the same way, but for
one thing measured otherwise: its own mistakes add to the draws' (drawing at Kosteniuk's whole loss
among its scores lost 1.81 times hers, where its choice lost 1.06 times: issue #73), so the error
model draws only the rest, at the rating of the expert's loss less the search's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.search import Search
from engine.strength.calibration import Calibration
from engine.strength.rating import loss_at, rating_of

#: The expected score each built-in search's choice loses a move by itself, without a judge (guided
#: mode, Selection argmax, the expert's own network and cases, 1 s a move), as Stockfish 15.1 judges
#: it at depth 12 from move 9 on in 240 positions of each of Kosteniuk's, Miles's and Carlsen's
#: held-out games: strength.md §7 says how it was measured (``python -m fidelity run --modes guided
#: puct --guided-movetime 1000``, then ``python -m experiments.losses``).
#: The built-in search judging (option Judge builtin), as a key of :data:`OWN_LOSS`.
BUILTIN = "built-in"
#: ... and the built-in search's own choice as the judge (the judged proposals, Selection argmax,
#: judged at depth 10), on the 157 positions from move 9 of 200 of Kosteniuk's held-out games
#: (``python -m fidelity run --modes stockfish judged --judge builtin --judge-depth 10``, then
#: ``python -m experiments.losses``): strength.md §7.
OWN_LOSS: dict[str, float] = {Search.ALPHABETA: 0.0279, Search.PUCT: 0.0285, BUILTIN: 0.0161}


@dataclass(frozen=True)
class Sizing:
    """What the engine plays without Stockfish, with ``search`` (a :class:`Search` without a judge,
    or :data:`BUILTIN` judging): the error model that draws (None: the search's choice); ``asked``,
    the expert's own calibration, which Stockfish as the judge would play; the ``rating`` asked, if
    any."""

    search: str
    calibration: Calibration | None
    asked: Calibration
    rating: float | None = None

    @property
    def target(self) -> float:
        """The loss a move asked for (expected score): the expert's on the rating line, or
        ``UCI_Elo``'s."""
        return loss_at(self.asked.rating if self.rating is None else self.rating)

    @property
    def own(self) -> float:
        """What the search loses by itself a move."""
        return OWN_LOSS[self.search]

    @property
    def expert(self) -> str:
        """Whose loss is asked: the expert's, or ``UCI_Elo``'s."""
        return self.asked.expert if self.rating is None else f"UCI_Elo {self.rating:.0f}"

    def describe(self) -> str:
        """One line: whose loss, the search's own, and what plays."""
        asked = (
            f"{self.expert} loses about {100 * self.target:.2f} % of a point a move"
            f" (a player of {rating_of(self.target):.0f})"
        )
        own = f"the {self.search} search alone about {100 * self.own:.2f} % (strength.md §7)"
        judged = "the expert's own strength" if self.rating is None else f"{self.rating:.0f}"
        if self.search == BUILTIN:
            where, who = "judged by the built-in search", "Stockfish as the judge"
        else:
            where, who = "without a judge", "a judge, option Judge,"
        if self.calibration is None:
            return (
                f"{where}, {asked}, {own}: the search's choice plays, the sound move the prior"
                f" likes best ({who} plays {judged})"
            )
        rest = (
            f" at {self.calibration.rating:.0f}, the rest of the loss"
            if self.search == BUILTIN
            else ""
        )
        return (
            f"{where}, {asked}, more than {own}: the error model draws among the search's"
            f" scores{rest}"
        )


def sized(calibration: Calibration, search: str, rating: float | None = None) -> Sizing:
    """Whether ``calibration``'s error model plays without Stockfish (at ``rating`` where one is
    asked): where its expert loses more a move than ``search`` (:data:`OWN_LOSS`'s key) by itself,
    else (None) the search's choice."""
    target = loss_at(calibration.rating if rating is None else rating)
    if target <= OWN_LOSS[search]:
        return Sizing(search, None, calibration, rating)
    if search == BUILTIN:  # the judge's own mistakes come on top: the error model draws the rest
        return Sizing(
            search, calibration.at_rating(rating_of(target - OWN_LOSS[search])), calibration, rating
        )
    return Sizing(
        search,
        calibration if rating is None else calibration.at_rating(rating),
        calibration,
        rating,
    )
