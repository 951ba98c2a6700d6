"""The guided mode: the casebase proposes, an alpha-beta search vets (search.md).

Per move: the k nearest cases vote for their adapted moves (§1), the search scores the
proposed moves exactly down to ``best - tolerance`` (§2; the others only need proving worse
than the best), and the agent plays the sound move the expert's cases like best, or draws
one in proportion to the votes (§3). Every move comes
with lines a person can read: the case it came from, its similarity and vote share, and
whether and why the search overruled the casebase (§5).

Generator use, in this order for every move: retrieval's draw among cases tied at the k-th
place, adaptation's draws among tied moves (case by case, most similar first), then with
``selection="sample"`` one draw among the sound proposed moves. Draws among a single item are
skipped. Same casebase, weights, options, seed, positions and ``go depth``/``go nodes``
limits give the same moves.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence

import chess
import numpy as np

from casebase.format import Casebase
from endgame.tablebase import Tablebase
from engine.agents.base import CaseAgent, Decision, IterationCallback
from engine.agents.modes import SELECTIONS
from engine.cbr.adaptation import adapt_to
from engine.cbr.weights import Weights
from engine.outside.judge import Judge, JudgeError
from engine.search.alphabeta import Searcher
from engine.search.limits import Budget, SearchLimits, search_budget
from engine.search.result import SearchResult
from engine.search.scores import is_mate_score, mate_moves, score_text
from engine.style.model import StyleModel
from engine.style.prior import PRIORS, AdaptedCase, Proposal


class GuidedAgent(CaseAgent):
    """Plays the sound move the expert's prior likes best (implements :class:`Agent`).

    ``neighbours`` is k, ``temperature`` is tau of the votes exp((Sim - Sim_max) / tau),
    ``tolerance`` (centipawns) how far below the best score a move is still sound, and
    ``selection`` whether the sound move with the largest prior is played or one drawn by
    its prior. ``prior`` says where the prior comes from (:mod:`engine.style.prior`): the cases'
    votes, the style ``model``, or their blend with ``case_weight``; without a model, the cases.
    ``judge``, when given, scores the proposals instead of the built-in search (search.md §7),
    at ``judge_depth`` plies (0: by the ``go``'s limits and the clock), and a move is sound within
    ``judge_tolerance`` centipawns of its best (its scale is not the built-in evaluation's).
    """

    def __init__(
        self,
        casebase: Casebase | None,
        weights: Weights,
        seed: int,
        *,
        neighbours: int = 64,
        temperature: float = 4.0,
        tolerance: int = 50,
        selection: str = "argmax",
        prior: str = "cases",
        model: StyleModel | None = None,
        case_weight: float = 0.5,
        judge: Judge | None = None,
        judge_depth: int = 0,
        judge_tolerance: int = 25,
        tablebase: Tablebase | None = None,
    ) -> None:
        if neighbours < 1:
            raise ValueError(f"Neighbours must be at least 1, not {neighbours}")
        if not (temperature > 0 and math.isfinite(temperature)):
            raise ValueError(f"Temperature must be a positive number, not {temperature}")
        if tolerance < 0:
            raise ValueError(f"Tolerance must be at least 0 centipawns, not {tolerance}")
        if judge_tolerance < 0:
            raise ValueError(f"JudgeTolerance must be at least 0 centipawns, not {judge_tolerance}")
        if selection not in SELECTIONS:
            raise ValueError(f"Selection must be one of {', '.join(SELECTIONS)}, not {selection!r}")
        if prior not in PRIORS:
            raise ValueError(f"Prior must be one of {', '.join(PRIORS)}, not {prior!r}")
        if not 0 <= case_weight <= 1:
            raise ValueError(f"the cases' weight must lie in 0..1, not {case_weight}")
        self.neighbours, self.temperature, self.tolerance = neighbours, temperature, tolerance
        self.selection, self.case_weight, self.model = selection, case_weight, model
        self.prior = prior if model is not None else "cases"
        self.searcher = Searcher(tablebase=tablebase)
        self.judge, self.judge_depth, self.judge_tolerance = judge, judge_depth, judge_tolerance
        super().__init__(casebase, weights, seed)

    def new_game(self, seed: int | None = None) -> None:
        """Re-seed the generator (see :class:`CaseAgent`); a judge retired last game is tried again."""
        super().new_game(seed)
        if self.judge is not None:  # set before CaseAgent.__init__ starts the first game
            self.judge.new_game()

    # -- §1: proposal ----------------------------------------------------------------

    def adapted_cases(
        self, board: chess.Board, candidates: Sequence[chess.Move], stop: threading.Event | None = None
    ) -> tuple[list[AdaptedCase], int]:
        """The k nearest cases' moves adapted to ``board`` (among ``candidates``), most similar
        first, and how many cases were retrieved.

        ``stop``, once set, ends the adaptations after the current one (the most similar case
        always counts): 64 of them take tens of milliseconds, and UCI's stop wants an answer sooner.
        """
        if self.index is None or not self.index.count(board.turn):
            return [], 0
        assert self.casebase is not None
        rows, sims = self.index.nearest(board, self.neighbours, self.rng)
        cases: list[AdaptedCase] = []
        for row, sim in zip(rows.tolist(), sims.tolist(), strict=True):
            if cases and stop is not None and stop.is_set():
                break
            move = adapt_to(
                self.casebase.move(row), self.casebase.board(row), board, self.weights, self.rng, candidates
            )
            cases.append(AdaptedCase(move, row, sim))
        return cases, len(rows)

    def propose(
        self, board: chess.Board, candidates: Sequence[chess.Move], stop: threading.Event | None = None
    ) -> Proposal:
        """The prior over ``candidates`` (legal on ``board``): the k nearest cases' votes for
        their adapted moves, the model's probabilities, or their blend (:mod:`engine.style.prior`);
        ``stop`` as in :meth:`adapted_cases`."""
        proposal = Proposal()
        if self.prior != "model":
            proposal = Proposal.of_cases(*self.adapted_cases(board, candidates, stop), self.temperature)
        if self.prior != "cases":
            assert self.model is not None
            proposal.with_model(self.model.prior(board, candidates), self.case_weight)
        return proposal

    # -- the move ----------------------------------------------------------------------

    def _choose(self, board: chess.Board, candidates: list[chess.Move], limits: SearchLimits | None,
                stop: threading.Event | None, on_iteration: IterationCallback | None) -> Decision:
        """Propose, search, decide (search.md §1–3); the explanation follows §5."""
        started = time.monotonic()
        proposal = self.propose(board, candidates, stop)
        budget = search_budget(limits, board.turn, time.monotonic() - started)
        result, notes = self._judged(board, proposal, budget, stop, on_iteration)
        judge = None if result is None or self.judge is None else self.judge.name
        if result is None:
            if notes:  # the judge failed during this move: the built-in search gets what is left
                budget = search_budget(limits, board.turn, time.monotonic() - started)
            result = self.searcher.search(
                board,
                depth=budget.depth,
                nodes=budget.nodes,
                movetime=budget.movetime,
                soft_time=budget.soft_time,
                stop=stop,
                prior=proposal.prior,
                moves=candidates,
                tolerance=self.tolerance,
                exact=proposal.prior,  # only proposed moves can be played for being sound
                on_iteration=on_iteration,
            )
        move, why = self._decide(board, proposal, result)
        notes += self._explain(board, proposal, result, move, why, judge)
        row, sim = proposal.source.get(move, (None, None))
        score = result.scores.get(move)
        score_cp = score.score if score and score.exact and not is_mate_score(score.score) else None
        return Decision(move=move, explanation=notes, case=row, similarity=sim,
                        votes=proposal.count.get(move, 0), score_cp=score_cp)

    def _judged(self, board: chess.Board, proposal: Proposal, budget: Budget, stop: threading.Event | None,
                on_iteration: IterationCallback | None) -> tuple[SearchResult | None, list[str]]:
        """The judge's result (None when there is no judge or it failed) and what went wrong."""
        if self.judge is None:
            return None, []
        if self.judge.retired:
            return None, [f"judge {self.judge.name} retired after two faults this game:"
                          " the built-in search judges until the next game"]
        ranked = sorted(proposal.prior, key=lambda m: -proposal.prior[m])  # the judge scores the first few
        try:
            result = self.judge.search(board, ranked, budget, depth=self.judge_depth,
                                       tolerance=self.judge_tolerance,
                                       stop=stop, on_iteration=on_iteration)
        except JudgeError as exc:
            return None, [self.judge.fault(str(exc))]
        return result, []

    def _decide(self, board: chess.Board, proposal: Proposal, result: SearchResult) -> tuple[chess.Move, str]:
        """The move to play and which rule of search.md §3 chose it."""
        assert result.move is not None
        sound = [m for m in result.sound() if proposal.prior.get(m, 0.0) > 0]
        if not sound:
            return result.move, "search"
        if self.selection == "sample" and len(sound) > 1:
            weights = np.array([proposal.prior[m] for m in sound])
            pick = int(self.rng.choice(len(sound), p=weights / weights.sum()))
            return sound[pick], "sample"
        # sound is best score first, so equal votes go to the better-scored move
        return max(sound, key=proposal.prior.__getitem__), "argmax"

    # -- §5: explanation ---------------------------------------------------------------

    def _explain(
        self, board: chess.Board, proposal: Proposal, result: SearchResult, move: chess.Move, why: str,
        judge: str | None,
    ) -> list[str]:
        """search.md §5; ``judge`` names the outside engine that judged, if one did."""
        lines = [self._proposal_line(board, proposal)]
        if judge is not None:
            lines.append(_judge_line(board, result, proposal, self.judge_tolerance, judge))
        else:
            lines.append(_search_line(board, result, proposal, self.tolerance))
        searcher = "the search" if judge is None else f"judge {judge}"
        san = board.san(move)
        top = proposal.top()
        share = proposal.prior.get(move, 0.0)
        who = _PROPOSER[self.prior]
        if top is None:
            lines.append(f"played {san}, {searcher}'s best move (no case to propose one)")
        elif result.score is None:
            lines.append(f"played {san}, the {who}'s choice unvetted: {searcher} stopped before depth 1")
        elif why == "search":
            lines.append(
                f"{who} move {board.san(top)} ({share_text(proposal.prior[top])})"
                f" {_loss(result, top)}; no proposed move is sound: played {san},"
                f" {searcher}'s best move, instead"
            )
        elif move == top:
            lines.append(
                f"played {san}, the {who}'s first choice ({share_text(share)}),"
                f" sound at depth {result.depth} ({score_text(result.scores[move].score)})"
            )
        elif why == "sample":
            lines.append(
                f"played {san} ({share_text(share)}), drawn by the prior among the sound proposed moves;"
                f" the {who}'s first choice was {board.san(top)} ({share_text(proposal.prior[top])})"
            )
        else:
            lines.append(
                f"{who} move {board.san(top)} ({share_text(proposal.prior[top])}) {_loss(result, top)};"
                f" played {san} ({share_text(share)}) instead"
            )
        if move in proposal.source:
            lines.append(self._case_line(board, move, proposal))
        return lines

    def _proposal_line(self, board: chess.Board, proposal: Proposal) -> str:
        if not proposal.prior:
            return f"{self._no_case_reason(board.turn)}: the search alone chooses"
        cases = ""
        if proposal.cases:
            assert self.casebase is not None
            best, worst = proposal.sims
            stopped = (
                f" (stop came after {proposal.cases} of {proposal.retrieved} adaptations)"
                if proposal.cases < proposal.retrieved
                else ""
            )
            cases = (f"{proposal.cases} nearest cases of {self.casebase.expert} (similarity {best} to"
                     f" {worst}/256){stopped}")
        if self.prior == "cases":
            return f"{cases} propose {_ranked(board, proposal.prior)}"
        assert self.model is not None
        line = f"the style model ({self.model.describe()}) proposes {_ranked(board, proposal.model)}"
        if proposal.case_weight > 0:
            return (f"{line}; {cases} vote {_ranked(board, proposal.votes)}, weighing"
                    f" {share_text(proposal.case_weight)}: prior {_ranked(board, proposal.prior)}")
        if proposal.cases:
            return f"{line}; {cases}: not the position itself, so they do not vote"
        return line

    def _case_line(self, board: chess.Board, move: chess.Move, proposal: Proposal) -> str:
        assert self.casebase is not None
        row, sim = proposal.source[move]
        src = self.casebase.source(row)
        return (
            f"{board.san(move)} adapted from case {row} of {self.casebase.expert}:"
            f" {src.white} - {src.black}, {src.event},"
            f" {src.date}, move {src.move_number} (ply {src.ply}); similarity {sim}/256;"
            f" {share_text(proposal.votes[move])} of the votes from {proposal.count[move]}"
            f" of {proposal.cases} cases"
        )


#: Who proposes, by the prior in use (for the explanations).
_PROPOSER = {"cases": "casebase", "model": "style model", "blend": "expert's prior"}


def _ranked(board: chess.Board, shares: dict[chess.Move, float], shown: int = 4) -> str:
    """``Nf3 35%, e4 20%, d4 10%, c4 8% and 12 more``: the largest shares first."""
    ranked = sorted(shares.items(), key=lambda item: -item[1])
    more = f" and {len(ranked) - shown} more" if len(ranked) > shown else ""
    return ", ".join(f"{board.san(m)} {share_text(p)}" for m, p in ranked[:shown]) + more


def share_text(share: float) -> str:
    """A vote share as a whole percentage (``<1%`` rather than a misleading ``0%``)."""
    return f"{100 * share:.0f}%" if share >= 0.005 else "<1%"


def _loss(result: SearchResult, move: chess.Move) -> str:
    """How much worse than the best ``move`` is, e.g. ``loses 320 cp at depth 4``."""
    assert result.score is not None
    at = f"at depth {result.depth}" if result.depth else "in the unfinished first iteration"
    score = result.scores.get(move)
    if score is None:  # a judge stopped before it scored every proposal
        return "went unscored"
    if score.exact and is_mate_score(score.score) and score.score < 0:
        return f"allows mate in {-mate_moves(score.score)} {at}"
    if is_mate_score(result.score) and result.score > 0:
        return f"misses {score_text(result.score)} {at}"
    bound = "" if score.exact else "at least "
    return f"loses {bound}{result.score - score.score} cp {at}"


def _search_line(board: chess.Board, result: SearchResult, proposal: Proposal, tolerance: int) -> str:
    if result.score is None or result.move is None:
        return f"search: {result.nodes} nodes, not enough to finish depth 1"
    line = (
        f"search depth {result.depth}, {result.nodes} nodes: best {board.san(result.move)}"
        f" ({score_text(result.score)})"
    )
    if proposal.prior:
        sound = sum(m in proposal.prior for m in result.sound())
        line += f"; {sound} of {len(proposal.prior)} proposed moves sound (within {tolerance} cp)"
    return line


def _judge_line(board: chess.Board, result: SearchResult, proposal: Proposal, tolerance: int, name: str) -> str:
    """Which engine judged, how deep and how long, its best move and how many proposals it found sound."""
    if result.score is None:
        return f"judge {name}: stopped after {result.seconds:.2f} s, before it scored a move"
    assert result.move is not None
    line = (f"judge {name}: depth {result.depth}, {result.seconds:.2f} s, {result.nodes} nodes:"
            f" best {board.san(result.move)} ({score_text(result.score)})")
    if proposal.prior:
        scored = sum(m in result.scores for m in proposal.prior)
        sound = sum(m in proposal.prior for m in result.sound())
        line += (f"; it scored {scored} of {len(proposal.prior)} proposed moves, {sound} sound"
                 f" (within {tolerance} cp)")
    return line
