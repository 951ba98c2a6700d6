"""The most a chooser of these features can match on records (issue #51): fitted on the very
positions it is measured on.

A chooser shipped is fitted on other games (masters'), so what it matches on an expert's held-out
records is at most what the same conditional logit matches fitted on those records themselves: the
*ceiling* of the features, whatever games teach the weights. Measured pooled (one chooser for all
the records) and expert by expert (one chooser each, fitted on that expert's records alone: more
weights for fewer positions, an overfit no shipped file can be), beside where the choice is lost:
the played move not a candidate; the judge's best or the prior's likeliest candidate; or neither of
the two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine.strength.chooser import Chooser
from learn.chooser.fit import DEFAULT_L2, fit
from learn.chooser.records import Record
from learn.chooser.strength import mean_log_likelihood

#: Where the played move stands among a position's candidates (:func:`kind`), in the report's order.
KINDS = ("not a candidate", "the judge's best or the prior's likeliest", "neither")


def kind(position: Record) -> str:
    """Which of :data:`KINDS` the played move of ``position`` is."""
    if position.played < 0:
        return KINDS[0]
    best = max(position.scores)
    likeliest = int(np.argmax(position.prior))
    return (
        KINDS[1]
        if position.scores[position.played] == best or position.played == likeliest
        else KINDS[2]
    )


def hits(chooser: Chooser, positions: Sequence[Record]) -> np.ndarray:
    """Whether the chooser's likeliest candidate is the played move, position by position (a played
    move that is not a candidate: a miss)."""
    return np.array(
        [int(np.argmax(chooser.probabilities(p.matrix))) == p.played for p in positions], dtype=bool
    )


def log_likelihood_of(chooser: Chooser, positions: Sequence[Record]) -> float:
    """The mean log-chance the chooser gives the played moves
    (:func:`learn.chooser.strength.mean_log_likelihood`)."""
    return mean_log_likelihood([chooser.probabilities(p.matrix) for p in positions], positions)


@dataclass(frozen=True)
class Ceiling:
    """The pooled chooser's hits and mean log-likelihood on the positions it was fitted on, the
    experts' own choosers' hits, and each position's :func:`kind`."""

    pooled: np.ndarray
    log_likelihood: float
    own: np.ndarray
    kinds: np.ndarray

    def report(self) -> str:
        """The ceiling in a few lines of Markdown."""
        n = len(self.pooled)
        lines = [
            f"| in sample, {n} positions | top-1 | mean log-likelihood |",
            "|---|---:|---:|",
            f"| one chooser fitted on all of them | {100 * self.pooled.mean():.1f} % |"
            f" {self.log_likelihood:.3f} |",
            "| one chooser an expert, each fitted on its expert's |"
            f" {100 * self.own.mean():.1f} % | |",
            "",
            "| the played move | positions | the pooled chooser picks it |",
            "|---|---:|---:|",
        ]
        for name in KINDS:
            mask = self.kinds == name
            lines.append(
                f"| {name} | {mask.sum()} ({100 * mask.mean():.1f} %) | {self.pooled[mask].sum()} |"
            )
        return "\n".join(lines)


def ceiling(records: Mapping[str, Sequence[Record]], l2: float = DEFAULT_L2) -> Ceiling:
    """The ceiling of the experts' ``records`` (by expert): the chooser fitted on all of them, and
    one fitted on each expert's alone, each measured on the positions it was fitted on."""
    every = [p for positions in records.values() for p in positions]
    pooled = fit(every, l2).chooser
    own = np.concatenate(
        [hits(fit(positions, l2).chooser, positions) for positions in records.values()]
    )
    return Ceiling(
        hits(pooled, every),
        log_likelihood_of(pooled, every),
        own,
        np.array([kind(p) for p in every]),
    )
