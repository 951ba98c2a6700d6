"""The guided mode: the casebase proposes, an alpha-beta search vets (search.md).

Per move: the k nearest cases vote for their adapted moves (§1), the search scores the
proposed moves exactly down to ``best - tolerance`` (§2; the others only need proving worse
than the best), and the agent plays the sound move the expert's cases like best, or draws
one in proportion to the votes (§3). Every move comes
with lines a person can read: the case it came from, its similarity and vote share, and
whether and why the search overruled the casebase (§5). Once the proposals are scored, the
decision: the judge's scores (§7), the profile of the speed class a ``go`` plays at, the error
model's draw or its likeliest move among the judged moves (strength.md §3) and the chooser's
strength, what to tell of the judge (its faults, another judge than the profile's); without the
error model, the sound move the prior likes best or one it draws (§3).

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import chess
import numpy as np

from casebase.format import Casebase
from casebase.speed import SPEED_POSITIONS
from endgame.tablebase import Tablebase
from engine.agents import defaults
from engine.agents.base import Candidate, CaseAgent, Decision, IterationCallback, Reason
from engine.agents.choosing import chooser_chances
from engine.agents.defaults import Selection
from engine.agents.guided_options import GuidedSettings
from engine.agents.precedent import precedent
from engine.agents.record import ByChooser, Note, OtherJudge, Record, SpeedProfile
from engine.agents.recording import guided_record
from engine.agents.speeds import GameSpeed
from engine.cbr.adaptation import adapt_to
from engine.cbr.learned import LearnedIndex
from engine.outside.builtin import is_builtin
from engine.outside.judge import Judge, JudgeError, JudgeEvent, JudgeNote
from engine.search import Search
from engine.search.alphabeta import Searcher
from engine.search.limits import DEFAULT_NODES, Budget, SearchLimits, search_budget, vetting
from engine.search.puct import DEFAULT_VISITS, Puct
from engine.search.result import SearchResult
from engine.strength.calibration import Calibration, calibrate, choose, judged_chances
from engine.strength.chooser import Chooser
from engine.strength.errormodel import ErrorModel
from engine.strength.sizing import BUILTIN, Sizing, sized
from engine.style.loader import PriorModel
from engine.style.prior import AdaptedCase, PriorSource, Proposal


def automatic_selection(casebase: Casebase | None, rating: float | None = None) -> Selection:
    """What ``Selection auto`` plays: the expert's error model (``calibrated``: the expert's own
    strength) where the casebase has an error profile or a ``rating`` is asked for, else the sound
    move the prior likes best (``argmax``). Without a judge the error model plays only where the
    expert loses more than the built-in search by itself (:mod:`engine.strength.sizing`, strength.md
    §7)."""
    profiled = casebase is not None and casebase.profile is not None
    return Selection.CALIBRATED if rating is not None or profiled else Selection.ARGMAX


@dataclass(frozen=True)
class Loaded:
    """What a guided agent plays with besides its settings, loaded from what they name
    (:func:`engine.agents.guided_maker.make_guided`): the style model, the judge, the endgame
    tables, the chooser and the search the network leads; None where there is none."""

    model: PriorModel | None = None
    judge: Judge | None = None
    tablebase: Tablebase | None = None
    chooser: Chooser | None = None
    puct: Puct | None = None


class GuidedAgent(CaseAgent):
    """Plays the sound move the expert's prior likes best (implements :class:`Agent`), by its
    ``settings`` (:class:`~engine.agents.guided_options.GuidedSettings`, docs/usage.md's options).

    ``neighbours`` is k, ``temperature`` is tau of the votes exp((Sim - Sim_max) / tau),
    ``tolerance`` (centipawns) how far below the best score a move is still sound, and ``selection``
    whether the sound move with the largest prior is played or one drawn by its prior, or
    (``calibrated``, ``likely``) one drawn by the expert's error model among the judged moves or its
    likeliest (the casebase's profile's, strength.md; at the ``rating`` asked for: a rating is
    played by the error model); ``auto`` is :func:`automatic_selection`. ``prior`` says where the
    prior comes from (:mod:`engine.style.prior`): the cases' votes, the style model, or their blend
    with ``case_weight``; without a model, the cases. The ``loaded`` judge, when there is one,
    scores the proposals instead of the built-in search (search.md §7), at ``judge_depth`` plies (0:
    by the ``go``'s limits and the clock, where the error model chooses at the depth it was
    calibrated at), and a move is sound within ``judge_tolerance`` centipawns of its best (its scale
    is not the built-in evaluation's). ``speed`` (option Speed) says which of the profile's speed
    classes the error model plays (:mod:`engine.agents.speeds`; a rating wins over it). The
    ``loaded`` chooser, when there is one, picks ``Selection likely``'s move among the judged ones
    where the judge scored them and no rating is asked for (:mod:`engine.agents.choosing`; issue
    #40).
    """

    def __init__(
        self,
        casebase: Casebase | None,
        settings: GuidedSettings,
        seed: int,
        loaded: Loaded | None = None,
    ) -> None:
        loaded = loaded if loaded is not None else Loaded()
        neighbours, temperature, tolerance = (
            settings.neighbours,
            settings.temperature,
            settings.tolerance,
        )
        judge_tolerance, case_weight = settings.judge_tolerance, settings.case_weight
        selection, rating, model = settings.played_selection, settings.rating, loaded.model
        if neighbours < 1:
            raise ValueError(f"Neighbours must be at least 1, not {neighbours}")
        if not (temperature > 0 and math.isfinite(temperature)):
            raise ValueError(f"Temperature must be a positive number, not {temperature}")
        if tolerance < 0:
            raise ValueError(f"Tolerance must be at least 0 centipawns, not {tolerance}")
        if judge_tolerance < 0:
            raise ValueError(f"JudgeTolerance must be at least 0 centipawns, not {judge_tolerance}")
        if selection not in tuple(Selection):
            raise ValueError(f"Selection must be one of {', '.join(Selection)}, not {selection!r}")
        if settings.prior not in tuple(PriorSource):
            raise ValueError(
                f"Prior must be one of {', '.join(PriorSource)}, not {settings.prior!r}"
            )
        if not 0 <= case_weight <= 1:
            raise ValueError(f"the cases' weight must lie in 0..1, not {case_weight}")
        self.neighbours, self.temperature, self.tolerance = neighbours, temperature, tolerance
        self.case_weight, self.model = case_weight, model
        #: The learned similarity's index (issue #61), where the casebase has embeddings: the
        #: precedent each move's record cites (:mod:`engine.agents.precedent`); it decides nothing.
        self.precedents: LearnedIndex | None = None
        #: How the move is chosen, ``auto`` decided here (:func:`automatic_selection`).
        self.selection = (
            automatic_selection(casebase, rating)
            if selection == Selection.AUTO
            else Selection(selection)
        )
        #: Where the prior comes from (a proposal's ``prior`` is the distribution itself).
        self.prior_source = PriorSource(settings.prior) if model is not None else PriorSource.CASES
        self.searcher = Searcher(tablebase=loaded.tablebase)
        #: The search the network leads (option Search, search.md §10), where it plays without a
        #: judge.
        self.puct = puct = loaded.puct
        self.judge = judge = loaded.judge
        self.judge_depth, self.judge_tolerance = settings.judge_depth, judge_tolerance
        chooser = loaded.chooser
        #: The chooser, with a judge: ``Selection likely`` plays its likeliest move (not at a
        #: rating), ``calibrated`` draws from it at the error model's strength where it has
        #: reference positions to set that on (None: the error model chooses).
        self.chooser = (
            chooser
            if (self.selection is Selection.LIKELY and rating is None)
            or (
                self.selection is Selection.CALIBRATED
                and chooser is not None
                and chooser.reference is not None
            )
            else None
        )
        #: The chooser's strength for each error model the calibrated choice played (the speed
        #: classes').
        self.strengths: dict[ErrorModel, float] = {}
        # a rating is played by the error model (played_selection)
        calibrated = self.selection.calibrated
        #: The expert's error model with the prior (strength.md), at ``rating``: made here only.
        self.calibration: Calibration | None = None
        #: Cases retrieval passes over: the play-time record holds out the game of the position it
        #: plays, so that the cases propose as in a game the engine never saw (strength.md §3).
        self.held_out: np.ndarray | None = None
        #: Without a judge, whether the error model plays: not where the search alone loses more
        #: (strength.md §7).
        self.sizing: Sizing | None = None
        if calibrated:
            uses = model if self.prior_source.uses_model else None
            builtin_judge = judge is not None and is_builtin(judge.settings.command)
            if (judge is None or builtin_judge) and self.selection is Selection.CALIBRATED:
                self.sizing = sized(
                    calibrate(casebase, uses),
                    BUILTIN if builtin_judge else Search.ALPHABETA if puct is None else Search.PUCT,
                    rating,
                )
                self.calibration = self.sizing.calibration
                if self.calibration is None:  # the search's choice: drawing would only lose more
                    self.selection = Selection.ARGMAX
            else:
                self.calibration = calibrate(casebase, uses, rating)
                # the likeliest move, not a strength
                if self.selection is Selection.LIKELY and rating is None:
                    self.calibration = self.calibration.likeliest()
        #: The calibration of all the expert's games (or at ``rating``), and of each speed class
        #: asked for.
        self.all_games, self.rating = self.calibration, rating
        self.by_speed: dict[str, Calibration] = {}
        #: The speed class of the game in play (option Speed, or the clock's).
        self.speed = GameSpeed(
            settings.speed, lichess=casebase is not None and casebase.on_lichess()
        )
        super().__init__(casebase, settings.weights, seed)

    def new_game(self, seed: int | None = None) -> None:
        """Re-seed the generator (see :class:`CaseAgent`); a judge retired last game is tried
        again."""
        super().new_game(seed)
        self.speed.new_game()
        if self.judge is not None:  # set before CaseAgent.__init__ starts the first game
            self.judge.new_game()

    # -- §1: proposal ----------------------------------------------------------------

    def adapted_cases(
        self,
        board: chess.Board,
        candidates: Sequence[chess.Move],
        stop: threading.Event | None = None,
    ) -> tuple[list[AdaptedCase], int]:
        """The k nearest cases' moves adapted to ``board`` (among ``candidates``), most similar
        first, and how many cases were retrieved.

        ``stop``, once set, ends the adaptations after the current one (the most similar case
        always counts): 64 of them take tens of milliseconds, and UCI's stop wants an answer sooner.
        """
        if self.index is None or not self.index.count(board.turn):
            return [], 0
        assert self.casebase is not None
        rows, sims = self.index.nearest(board, self.neighbours, self.rng, self.held_out)
        cases: list[AdaptedCase] = []
        for row, sim in zip(rows.tolist(), sims.tolist(), strict=True):
            if cases and stop is not None and stop.is_set():
                break
            move = adapt_to(
                self.casebase.move(row),
                self.casebase.board(row),
                board,
                self.weights,
                self.rng,
                candidates,
            )
            cases.append(AdaptedCase(move, row, sim))
        return cases, len(rows)

    def propose(
        self,
        board: chess.Board,
        candidates: Sequence[chess.Move],
        stop: threading.Event | None = None,
    ) -> Proposal:
        """The prior over ``candidates`` (legal on ``board``): the k nearest cases' votes for
        their adapted moves, the model's probabilities, or their blend (:mod:`engine.style.prior`);
        ``stop`` as in :meth:`adapted_cases`."""
        proposal = Proposal()
        if self.prior_source.uses_cases:
            proposal = Proposal.of_cases(
                *self.adapted_cases(board, candidates, stop), self.temperature
            )
        if self.prior_source.uses_model:
            assert self.model is not None
            proposal.with_model(self.model.prior(board, candidates), self.case_weight)
        return proposal

    # -- the move ----------------------------------------------------------------------

    def assess(
        self,
        board: chess.Board,
        candidates: list[chess.Move],
        limits: SearchLimits | None,
        stop: threading.Event | None = None,
        on_iteration: IterationCallback | None = None,
        *,
        fallback: bool = True,
    ) -> tuple[Proposal, SearchResult, str | None, list[Note]]:
        """What a move is chosen from (search.md §1–2): the prior over ``candidates``, the judge's
        scores (or the built-in search's, where there is no judge or it failed), the judge's name
        when it scored them, and what went wrong with it. The play-time calibration records this;
        it wants the judge's scores alone (``fallback`` False: no built-in search, which at the
        judge's depth would take minutes to be thrown away, but a result that scores nothing)."""
        started = time.monotonic()
        proposal = self.propose(board, candidates, stop)
        # the error model chooses by exact scores
        leads = self.puct is not None and self.calibration is None
        budget = search_budget(limits, board.turn, time.monotonic() - started, DEFAULT_NODES)
        judged, notes = self._judged(board, candidates, proposal, budget, stop, on_iteration)
        if judged is not None:
            assert self.judge is not None
            return proposal, judged, self.judge.name, notes
        if not fallback:
            nothing = SearchResult.empty(seconds=time.monotonic() - started)
            return proposal, nothing, None, notes
        budget = search_budget(
            limits,
            board.turn,
            time.monotonic() - started,
            DEFAULT_VISITS if leads else DEFAULT_NODES,
        )
        result = self.searcher.search(
            board,
            vetting(budget) if leads else budget,
            stop=stop,
            prior=proposal.prior,
            moves=candidates,
            tolerance=self.tolerance
            if self.calibration is None
            else max(self.tolerance, defaults.EXPERT_TOLERANCE),
            exact=proposal.prior,  # only proposed moves can be played for being sound
            on_iteration=on_iteration,
        )
        sound = result.sound()
        if leads and len(sound) > 1 and not (stop is not None and stop.is_set()):
            assert self.puct is not None
            # the network's search chooses among the moves the alpha-beta found sound (search.md
            # §10)
            rest = search_budget(limits, board.turn, time.monotonic() - started, DEFAULT_VISITS)
            result = self.puct.search(
                board, rest, prior=proposal.prior, moves=sound, stop=stop, on_iteration=on_iteration
            )
        return proposal, result, None, notes

    def _choose(
        self,
        board: chess.Board,
        candidates: list[chess.Move],
        limits: SearchLimits | None,
        stop: threading.Event | None,
        on_iteration: IterationCallback | None,
    ) -> Decision:
        """Propose, search, decide (search.md §1–3); the record follows §5."""
        started = time.monotonic()
        told = self._play_speed(board, limits)
        proposal, result, judge, notes = self.assess(board, candidates, limits, stop, on_iteration)
        notes[:0] = told
        chances: dict[chess.Move, float] = {}
        chosen: ByChooser | None = None
        if self.calibration is None:
            move, why = self._decide(board, proposal, result)
        else:
            if self.chooser is not None and self.judge is not None and judge is not None:
                left = search_budget(limits, board.turn, time.monotonic() - started).movetime
                chances, chosen, faults = chooser_chances(
                    self.chooser,
                    self.judge,
                    board,
                    proposal,
                    result,
                    left,
                    stop,
                    self.chooser_strength() or 1.0,
                )
                notes += faults
            else:
                chances = judged_chances(self.calibration, proposal, result)
            move, why = self._calibrated(chances, result)
        cited = (
            None
            if self.precedents is None
            else precedent(self.precedents, board, move, self.weights, candidates)
        )
        record = Record(
            notes + self._other_judge(judge),
            guided_record(self, board, proposal, result, move, why, judge, chances, chosen, cited),
        )
        row, sim = proposal.source.get(move, (None, None))
        # stable: first proposed first
        ranked = sorted(proposal.prior, key=lambda m: -proposal.prior[m])
        considered = [
            Candidate(
                m,
                proposal.prior[m],
                s.score if (s := result.scores.get(m)) else None,
                s is not None and s.exact,
                result.depth,
            )
            for m in ranked
        ]
        reply = result.pv[1] if move == result.move and len(result.pv) > 1 else None
        return Decision(
            move=move,
            reason=why,
            record=record,
            case=row,
            similarity=sim,
            votes=proposal.count.get(move, 0),
            candidates=considered,
            chances=chances,
            ponder=reply,
        ).searched(result)

    # -- the decision among the scored moves ------------------------------------------

    def chooser_strength(self) -> float | None:
        """The strength the chooser plays at (None: no chooser plays): as fitted for the likeliest
        move, the error model's in force for a draw (:meth:`Chooser.strength_of`, once a model)."""
        if self.chooser is None or self.calibration is None:
            return None
        if self.selection is Selection.LIKELY:
            return 1.0
        model = self.calibration.model
        if model not in self.strengths:
            # drawing, it has reference positions
            self.strengths[model] = self.chooser.strength_of(model) or 1.0
        return self.strengths[model]

    def _play_speed(self, board: chess.Board, limits: SearchLimits | None) -> list[Note]:
        """Make the calibration in force the profile of the speed class this ``go`` plays at
        (strength.md §3): where one is played (the clock's or option Speed's), its class's profile,
        else all the expert's games'; a rating asked for is the rating played, and ``Selection
        likely`` plays the likeliest move, not a speed's strength. What to tell, once a game."""
        if self.all_games is None or self.rating is not None or self.selection is Selection.LIKELY:
            return []
        speed = self.speed.of(board, limits)
        if speed is None:
            self.calibration = self.all_games
            return []
        if speed not in self.by_speed:
            self.by_speed[speed] = self.all_games.at_speed(speed)
        self.calibration = self.by_speed[speed]
        entry = self.all_games.speeds.get(speed)
        note = SpeedProfile(
            self.all_games.expert,
            speed,
            None if entry is None else entry.positions,
            SPEED_POSITIONS,
            self.calibration.speed_profile,
            self.speed.forced,
        )
        return [note] if self.speed.first(note) else []

    def _judged(
        self,
        board: chess.Board,
        candidates: list[chess.Move],
        proposal: Proposal,
        budget: Budget,
        stop: threading.Event | None,
        on_iteration: IterationCallback | None,
    ) -> tuple[SearchResult | None, list[Note]]:
        """The judge's result among ``candidates`` (None when there is no judge or it failed) and
        what went wrong."""
        if self.judge is None:
            return None, []
        if self.judge.retired:
            return None, [JudgeNote(self.judge.name, JudgeEvent.RETIRED)]
        # the judge scores the first few
        ranked = sorted(proposal.prior, key=lambda m: -proposal.prior[m])
        try:
            # go searchmoves: the judge's best among them
            restricted = len(candidates) < board.legal_moves.count()
            result = self.judge.search(
                board,
                ranked,
                budget,
                depth=self.judge_depth or self._calibrated_depth(budget),
                tolerance=self.judge_tolerance,
                stop=stop,
                on_iteration=on_iteration,
                moves=candidates if restricted else None,
            )
        except JudgeError as exc:
            return None, [self.judge.fault(str(exc))]
        return result, []

    def _other_judge(self, judge: str | None) -> list[Note]:
        """That the judge that scored the move (``judge``, its ``id name``) is not the engine the
        calibration's profile and record were judged by: once per judge, expert and profile judge
        (strength.md §3)."""
        calibration = self.calibration
        if (
            judge is None
            or self.judge is None
            or calibration is None
            or calibration.judge in (None, judge)
        ):
            return []
        told = (judge, calibration.judge, calibration.expert)
        if told in self.judge.told:
            return []
        self.judge.told.add(told)
        return [OtherJudge(judge, calibration.judge, calibration.expert)]

    def _calibrated_depth(self, budget: Budget) -> int:
        """The judge's depth where the error model chooses on a clock (JudgeDepth 0): the one it was
        calibrated at, so that neither a longer clock nor a busier machine changes its strength
        (strength.md §3); 0 (the go's limits) otherwise, or with a depth or nodes to search."""
        if self.calibration is None or budget.movetime is None or budget.depth or budget.nodes:
            return 0
        return self.calibration.judge_depth

    def _calibrated(
        self, chances: Mapping[chess.Move, float], result: SearchResult
    ) -> tuple[chess.Move, Reason]:
        """The move the expert's error model draws (or its likeliest) among the exactly scored
        moves, with their calibrated ``chances``."""
        assert result.move is not None
        if not chances:
            return result.move, Reason.SEARCH
        if self.selection is Selection.CALIBRATED:
            return choose(chances, self.rng), Reason.CALIBRATED
        return choose(chances, None), Reason.LIKELY

    def _decide(
        self, board: chess.Board, proposal: Proposal, result: SearchResult
    ) -> tuple[chess.Move, Reason]:
        """The move to play and which rule of search.md §3 chose it."""
        assert result.move is not None
        if result.search is Search.PUCT:  # the search the network leads decides by its visits
            return result.move, Reason.SEARCH
        sound = [m for m in result.sound() if proposal.prior.get(m, 0.0) > 0]
        if not sound:
            return result.move, Reason.SEARCH
        if self.selection is Selection.SAMPLE and len(sound) > 1:
            weights = np.array([proposal.prior[m] for m in sound])
            pick = int(self.rng.choice(len(sound), p=weights / weights.sum()))
            return sound[pick], Reason.SAMPLE
        # sound is best score first, so equal votes go to the better-scored move
        return max(sound, key=proposal.prior.__getitem__), Reason.ARGMAX
