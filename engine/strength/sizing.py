"""The expert's strength without a judge (issue #67, strength.md §7): the built-in search's own mistakes
counted before the error model adds the expert's.

With a judge, the error model draws among moves Stockfish scored, and the engine loses what its expert
loses. Without one, the engine's own search scores the moves, and it misses what the profiles' judge
sees: its best move alone already loses about :data:`OWN_LOSS` a move (expected score, as the profiles
judge, Stockfish 15.1 at depth 12). Drawing the expert's whole loss on top would lose twice: the error
model draws only the rest, at the rating whose loss a move it is. Where the expert (or ``UCI_Elo``)
loses no more than the search alone, the search's best move plays: the engine cannot be stronger.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.strength.calibration import Calibration
from engine.strength.rating import loss_at, rating_of

#: The expected score each built-in search's choice loses a move by itself, without a judge (guided mode,
#: Selection argmax, the expert's own network and cases, 1 s a move), as Stockfish 15.1 judges it at depth 12
#: from move 9 on in 240 positions of each of Kosteniuk's, Miles's and Carlsen's held-out games: strength.md §7
#: says how it was measured (``python -m fidelity run --modes guided puct --guided-movetime 1000``, then
#: ``python -m experiments.losses``).
OWN_LOSS = {"alphabeta": 0.0279, "puct": 0.0285}


@dataclass(frozen=True)
class Sizing:
    """What the engine plays without a judge: the loss a move asked for (the expert's, or ``UCI_Elo``'s),
    what the search loses by itself, and the error model that draws the rest (None: the search's best);
    ``asked``, the calibration a judge would play."""

    expert: str
    search: str
    target: float
    own: float
    calibration: Calibration | None
    asked: Calibration

    def describe(self) -> str:
        """One line: whose loss, the search's own, and what plays."""
        asked = (f"{self.expert} loses about {100 * self.target:.2f} % of a point a move"
                 f" (a player of {rating_of(self.target):.0f})")
        own = f"the {self.search} search alone about {100 * self.own:.2f} % (strength.md §7)"
        if self.calibration is None:
            return (f"strength without a judge: {asked}, {own}: its best move plays (a judge, option Judge,"
                    " plays the expert's own strength)")
        return (f"strength without a judge: {asked}, {own}: the error model draws the rest, as a player of"
                f" {self.calibration.rating:.0f}")


def sized(calibration: Calibration, search: str, rating: float | None = None) -> Sizing:
    """The choice that loses, with ``search``'s own loss, what ``calibration``'s expert loses a move (or a
    player of ``rating``): the error model at the rating of the difference, or none where there is none."""
    target = loss_at(calibration.rating if rating is None else rating)
    own = OWN_LOSS[search]
    rest = target - own
    chosen = calibration.at_rating(rating_of(rest)) if rest > 0 else None
    expert = calibration.expert if rating is None else f"UCI_Elo {rating:.0f}"
    return Sizing(expert, search, target, own, chosen, calibration)
