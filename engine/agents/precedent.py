"""The precedent of a move (issue #61): of the cases nearest a position by the learned similarity,
the nearest that speaks for the move played (its own move, or where that is illegal here, the move
it adapts to); a precedent worth reading beside the move, which the shallow similarity's nearest
case seldom is (docs/results.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import chess

from engine.agents.record import Case, Named, Precedent
from engine.cbr.adaptation import voted_moves
from engine.cbr.learned import LearnedIndex
from engine.cbr.similarity import board_similarity
from engine.cbr.weights import Weights

if TYPE_CHECKING:
    from casebase.format import Casebase
    from engine.agents.modes import Resources

#: How many of the nearest cases a precedent is looked for among: a few milliseconds after the move
#: is chosen (the query's embedding, one product, at most this many adaptations), which the clock's
#: margins cover.
LOOKED_AT = 16


def precedent(
    learned: LearnedIndex,
    board: chess.Board,
    move: chess.Move,
    weights: Weights,
    candidates: Sequence[chess.Move],
) -> Precedent | None:
    """The precedent of ``move`` on ``board`` among the :data:`LOOKED_AT` nearest cases; None where
    no case has the side to move."""
    casebase = learned.casebase
    rows, sims = learned.nearest(board, LOOKED_AT)
    if not len(rows):
        return None
    found = 0
    for i, row in enumerate(rows.tolist()):
        if move in voted_moves(casebase.move(row), casebase.board(row), board, weights, candidates):
            found = i
            break
    else:
        i = -1
    row, case_board = int(rows[found]), casebase.board(int(rows[found]))
    return Precedent(
        Case.of(casebase, row, board_similarity(case_board, board)),
        round(100 * float(sims[found]), 1),
        Named.of_case(case_board, casebase.move(row)),
        i >= 0,
        len(rows),
    )


def learned_similarity(
    casebase: Casebase,
    resources: Resources,
    otherwise: str = "the shallow similarity plays",
    *,
    make: bool = False,
) -> LearnedIndex | None:
    """The learned similarity's index of ``casebase`` (its embeddings made by the shipped default
    network): pure mode's retrieval (option Similarity), guided mode's precedents; or None with the
    reason told, and ``otherwise``: what follows. With ``make``, embeddings not there yet (not
    damaged ones: those are refused) are made in the background where ``resources`` can
    (:meth:`Resources.embed`, which tells): None meanwhile."""
    from casebase.checks import CasebaseError
    from casebase.embeddings import embeddings_path, read_embeddings
    from engine.cbr.learned import learned_index
    from engine.style.lc0 import is_network, shared_network
    from engine.style.loader import default_model
    from engine.style.model import ModelError

    network, _ = default_model()
    try:
        if not is_network(network):
            raise ModelError(f"{network.name} is no lc0 network")
        if (
            make
            and casebase.path is not None
            and not embeddings_path(casebase.path).exists()
            and resources.embed(casebase, network)
        ):
            return None  # the network is read once they are there
        model = shared_network(network)
        return learned_index(
            casebase, model, lambda: read_embeddings(casebase, network, model.weights_sha256)
        )
    except (CasebaseError, ModelError, ValueError) as exc:
        resources.tell(f"the learned similarity cannot play: {exc}; {otherwise}")
        return None
