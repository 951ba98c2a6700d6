"""The guided agent's decision once the proposals are scored: the judge's scores (search.md §7),
the profile of the speed class a ``go`` plays at, the error model's draw or its likeliest move
among the judged moves (strength.md §3) and the chooser's strength, what to tell of the judge (its
faults, another judge than the profile's); without the error model, the sound move the prior likes
best or one it draws (search.md §3). :class:`engine.agents.guided.GuidedAgent` decides by it.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

import chess
import numpy as np

from casebase.speed import SPEED_POSITIONS
from engine.agents.base import IterationCallback, Reason
from engine.agents.defaults import Selection
from engine.agents.record import Note, OtherJudge, SpeedProfile
from engine.agents.speeds import GameSpeed
from engine.outside.judge import Judge, JudgeError, JudgeEvent, JudgeNote
from engine.search.limits import Budget, SearchLimits
from engine.search.result import SearchResult
from engine.strength.calibration import Calibration, choose
from engine.strength.chooser import Chooser
from engine.strength.errormodel import ErrorModel
from engine.style.prior import Proposal


class GuidedDecision:
    """The guided agent's decision among the scored moves, by its judge, calibration, chooser and
    selection (what :class:`~engine.agents.guided.GuidedAgent` sets them to, documented there)."""

    judge: Judge | None
    judge_depth: int
    judge_tolerance: int
    chooser: Chooser | None
    strengths: dict[ErrorModel, float]
    selection: Selection
    rating: int | None
    calibration: Calibration | None
    all_games: Calibration | None
    by_speed: dict[str, Calibration]
    speed: GameSpeed
    rng: np.random.Generator

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
        if result.visits:  # the search the network leads decides by its visits
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
