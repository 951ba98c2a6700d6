"""The prior of guided mode: which moves the expert would consider, and how much (search.md §1).

Two sources, alone or blended (the ``Prior`` option):

- ``cases``: the k nearest cases vote for their moves adapted to the board, each with the
  weight exp((Sim - Sim_max) / tau) (the thesis's retrieval, made a vote);
- ``model``: the style model's probabilities over the legal moves (:mod:`engine.style.model`);
- ``blend``: the model, and where the position itself is in the casebase (the nearest case
  has similarity 256) the cases too, with the weight ``case_weight``: there the expert's own
  earlier choice is the best evidence of what he plays.

A model's prior gives every legal move some probability; only moves with at least
:data:`MIN_SHARE` of it (and always its favourite) are proposed, so the search need score
only those exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

import chess


class PriorSource(StrEnum):
    """Where guided mode's prior comes from (option Prior): the nearest cases' votes, the style
    model's probabilities, or their blend."""

    CASES = "cases"
    MODEL = "model"
    BLEND = "blend"

    @property
    def uses_model(self) -> bool:
        return self is not PriorSource.CASES

    @property
    def uses_cases(self) -> bool:
        return self is not PriorSource.MODEL


#: The least share of a model's prior that makes a move a proposal.
MIN_SHARE = 0.01
#: The similarity of a case whose position is the board itself.
SAME_POSITION = 256


class AdaptedCase(NamedTuple):
    """A retrieved case's move adapted to the current position, with the case's row and Sim."""

    move: chess.Move
    row: int
    sim: int


def vote_shares(cases: Sequence[AdaptedCase], temperature: float) -> dict[chess.Move, float]:
    """Each move's share of the votes exp((Sim - Sim_max) / temperature) of ``cases``
    (most similar first), in the order the moves were first proposed (search.md §1)."""
    if not cases:
        return {}
    best = cases[0].sim
    votes: dict[chess.Move, float] = {}
    for case in cases:
        votes[case.move] = votes.get(case.move, 0.0) + math.exp((case.sim - best) / temperature)
    total = sum(votes.values())
    return {move: vote / total for move, vote in votes.items()}


@dataclass
class Proposal:
    """The moves proposed for one position, with their prior (search.md §1) and its parts."""

    prior: dict[chess.Move, float] = field(default_factory=dict)
    #: The cases' vote shares and the model's probabilities (empty where not used).
    votes: dict[chess.Move, float] = field(default_factory=dict)
    model: dict[chess.Move, float] = field(default_factory=dict)
    #: The weight the cases' votes got in the prior (1 with the cases alone).
    case_weight: float = 1.0
    #: For each move the cases proposed: the most similar case it was adapted from, and its Sim.
    source: dict[chess.Move, tuple[int, int]] = field(default_factory=dict)
    #: How many of the retrieved cases voted for each move.
    count: dict[chess.Move, int] = field(default_factory=dict)
    cases: int = 0
    sims: tuple[int, int] = (0, 0)
    #: The cases retrieved; more than ``cases`` when ``stop`` cut the adaptations short.
    retrieved: int = 0

    def top(self) -> chess.Move | None:
        """The move with the largest prior (first proposed among equals)."""
        return max(self.prior, key=self.prior.__getitem__) if self.prior else None

    @classmethod
    def of_cases(cls, cases: Sequence[AdaptedCase], retrieved: int, temperature: float) -> Proposal:
        """The cases' votes alone."""
        votes = vote_shares(cases, temperature)
        proposal = cls(prior=dict(votes), votes=votes, retrieved=retrieved)
        for case in cases:
            proposal.source.setdefault(case.move, (case.row, case.sim))
            proposal.count[case.move] = proposal.count.get(case.move, 0) + 1
        if cases:
            proposal.cases, proposal.sims = len(cases), (cases[0].sim, cases[-1].sim)
        return proposal

    def with_model(self, model: dict[chess.Move, float], case_weight: float) -> Proposal:
        """The blend of the model's probabilities and these votes: the votes weigh ``case_weight``
        where the nearest case is the position itself, nothing elsewhere."""
        weight = case_weight if self.votes and self.sims[0] >= SAME_POSITION else 0.0
        blend = {m: (1 - weight) * p + weight * self.votes.get(m, 0.0) for m, p in model.items()}
        best = max(blend, key=blend.__getitem__) if blend else None
        self.prior = {m: p for m, p in blend.items() if p >= MIN_SHARE or m == best}
        self.model, self.case_weight = model, weight
        return self


def share_text(share: float) -> str:
    """A vote share as a whole percentage (``<1%`` rather than a misleading ``0%``)."""
    return f"{100 * share:.0f}%" if share >= 0.005 else "<1%"
