"""Pure mode's own options: the declarations :data:`engine.agents.modes.MODES` gives the mode, and
their values typed once (:class:`PureSettings`, by :func:`engine.agents.options.settings_of`):
what the pure agent (:mod:`engine.agents.pure`) is made with.

Importing this module is cheap (no numpy, no casebase code), as :mod:`engine.agents.modes` is: the
UCI loop imports both before ``uciok``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.agents import defaults
from engine.agents.options import WEIGHT_OPTIONS, Option, setting, weights_from
from engine.cbr.weights import Weights

#: The options of pure mode, in the order the engine declares them.
PURE_OPTIONS: tuple[Option, ...] = (
    Option(
        "Similarity",
        "combo",
        defaults.SIMILARITY,
        choices=("shallow", "learned"),
        doc=(
            "pure: how cases are retrieved: `shallow`, the thesis's similarity of the"
            " boards' squares (the most similar case's move, adapted); `learned`, the"
            " cosine of the positions' embeddings by the default network's trunk"
            " (`X.embed.npz` beside the casebase, `python -m casebase embed`; where they"
            " are missing, the engine makes them in the background at their first use and"
            " says so, the shallow similarity playing until they are there: `make"
            " embeddings` makes them ahead): the 128 nearest cases vote, each for its move"
            " where legal, else the move it adapts to (issue #61)"
        ),
    ),
)


@dataclass(frozen=True)
class PureSettings:
    """Option by option, what makes a pure agent."""

    weights: Weights = setting(WEIGHT_OPTIONS, weights_from)
    similarity: str = setting("Similarity", str)

    def files(self, casebase: str) -> list[str]:
        """The files these settings read besides the casebase (the agent is remade when one
        changes): with the learned similarity, the cases' embeddings, which may be made while the
        engine plays (:func:`engine.agents.pure.make_pure`)."""
        from casebase.embeddings import embeddings_path

        return [str(embeddings_path(casebase))] if casebase and self.similarity == "learned" else []
