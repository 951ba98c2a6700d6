"""A search the network leads (issue #67; search.md §10): PUCT as lc0 plays it. The prior proposes
each node's moves, the value judges its leaves, the visits decide; leaves are evaluated in batches
(a virtual loss keeps a batch's paths apart) and the tree is kept between moves.

What the network's value misses, the rules know: a mate or a draw by the rules is a leaf's exact
value, and so is the endgame tables' verdict where they cover the leaf
(:class:`~engine.search.leaves.Endgames`). The evaluator is given (:class:`Evaluator`): this layer
knows no network.

Generator use: none. The same position, prior, evaluator and ``nodes`` give the same tree and move.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import chess

from engine.search import Search
from engine.search.leaves import Endgames
from engine.search.limits import Budget
from engine.search.result import RootScore, SearchResult
from engine.search.scores import MATE

#: lc0's search constants (lc0 0.30's defaults): the exploration's base and its growth with the
#: parent's visits, the first-play urgency's reduction (an unvisited move is valued this far below
#: its parent, times the square root of its visited siblings' prior), and the policy's softmax
#: temperature.
CPUCT, CPUCT_BASE, CPUCT_FACTOR = 1.745, 38739.0, 3.894
FPU_REDUCTION = 0.330
POLICY_TEMPERATURE = 1.359
#: Leaves evaluated together (one batch of the network): more is faster a leaf, less precise a
#: visit.
BATCH = 16
#: Visits a ``go depth N`` without other limits searches: N times this.
VISITS_A_PLY = 64
#: Visits a ``go`` without limits searches (about a second on one core).
DEFAULT_VISITS = 800
#: How often the search tells how far it is (seconds).
REPORT_EVERY = 0.5


class Evaluator(Protocol):
    """What the search asks of a network: for each board (with its history), the prior over its
    legal moves and the value for the side to move (-1 lost .. +1 won)."""

    def __call__(
        self, boards: Sequence[chess.Board]
    ) -> list[tuple[dict[chess.Move, float], float]]:
        """One batch of boards, evaluated."""


def q_to_cp(q: float) -> int:
    """lc0's centipawns of an expected score ``q`` (-1..1): ``90 tan(1.5637541897 q)``, bounded
    short of a mate."""
    q = max(-0.999, min(0.999, q))
    return max(-MATE // 2, min(MATE // 2, round(90 * math.tan(1.5637541897 * q))))


@dataclass(eq=False)
class Node:
    """A position in the tree: its moves with their prior, and each move's visits and value sum (for
    the side that plays it); its own value where it is terminal (a mate, a draw, a table's
    verdict)."""

    moves: list[chess.Move] = field(default_factory=list)
    prior: list[float] = field(default_factory=list)
    visits: list[int] = field(default_factory=list)
    value: list[float] = field(default_factory=list)
    children: dict[int, Node] = field(default_factory=dict)
    terminal: float | None = None
    expanded: bool = False
    #: The network's prior over every legal move, as it was expanded (a root restricted later keeps
    #: it).
    network: dict[chess.Move, float] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.visits)

    def q(self, i: int) -> float:
        return self.value[i] / self.visits[i] if self.visits[i] else 0.0

    def expand(self, prior: Mapping[chess.Move, float]) -> None:
        """Set the moves and their prior (normalised over the moves it gives)."""
        total = sum(prior.values()) or 1.0
        ranked = sorted(prior.items(), key=lambda item: -item[1])
        self.moves = [move for move, _ in ranked]
        self.prior = [p / total for _, p in ranked]
        self.visits, self.value = [0] * len(ranked), [0.0] * len(ranked)
        self.network = dict(zip(self.moves, self.prior))
        self.expanded = True

    def pick(self) -> int:
        """The move PUCT visits next (lc0's formula, first-play urgency included)."""
        parent = self.total
        cpuct = CPUCT + CPUCT_FACTOR * math.log((parent + CPUCT_BASE) / CPUCT_BASE)
        scale = cpuct * math.sqrt(max(parent, 1))
        seen = sum(p for p, n in zip(self.prior, self.visits) if n)
        mean = sum(self.value) / parent if parent else 0.0
        fpu = mean - FPU_REDUCTION * math.sqrt(seen)
        best, best_score = 0, -math.inf
        for i, (p, n) in enumerate(zip(self.prior, self.visits)):
            score = (self.value[i] / n if n else fpu) + scale * p / (1 + n)
            if score > best_score:
                best, best_score = i, score
        return best

    def best(self) -> int:
        """The move the visits choose (ties to the better value, then the prior's order)."""
        return max(
            range(len(self.moves)),
            key=lambda i: (self.visits[i], self.q(i) if self.visits[i] else -2.0),
        )


def terminal_value(board: chess.Board, tables: Endgames | None) -> float | None:
    """The value of ``board`` for the side to move where the rules (a mate, stalemate, too little
    material, a repetition, fifty moves) or the tables decide it; None where the network must
    judge."""
    if board.is_checkmate():
        return -1.0
    if (
        board.is_stalemate()
        or board.is_insufficient_material()
        or board.halfmove_clock >= 100
        or board.is_repetition(2)
    ):
        return 0.0
    if tables is not None and chess.popcount(board.occupied) <= 5:
        verdict = tables.probe(board)
        if verdict is not None:
            return 0.0 if verdict.wins is None else (1.0 if verdict.wins else -1.0)
    return None


@dataclass
class Puct:
    """The search, with its tree kept between moves (:meth:`search`)."""

    evaluate: Evaluator
    tables: Endgames | None = None
    batch: int = BATCH
    root: Node | None = None
    root_fen: str = ""

    def search(
        self,
        board: chess.Board,
        budget: Budget | None = None,
        *,
        prior: Mapping[chess.Move, float] | None = None,
        moves: Sequence[chess.Move] | None = None,
        stop: threading.Event | None = None,
        on_iteration: Callable[[SearchResult], None] | None = None,
    ) -> SearchResult:
        """Search ``board`` within ``budget`` (visits for ``nodes``, ``depth`` times
        :data:`VISITS_A_PLY`, ``movetime`` and ``soft_time`` seconds; ``stop`` ends it after the
        batch in flight). The root's moves are ``moves`` (default: all legal ones) with ``prior``
        (default: the network's); the result's ``scores`` hold each visited root move's value in
        centipawns, its ``visits`` the visits."""
        start = time.monotonic()
        budget = budget or Budget()
        legal = list(moves) if moves else list(board.legal_moves)
        root = self._root(board)
        if not root.expanded:
            root.terminal = terminal_value(board, None) if not legal else None
            if legal:
                ((net_prior, _),) = self.evaluate([board])
                root.expand(net_prior)
        if legal:
            wanted = {m: (prior.get(m, 0.0) if prior else root.network.get(m, 0.0)) for m in legal}
            if not any(wanted.values()):
                wanted = {m: 1.0 for m in legal}
            self._restrict(root, wanted)
        limit = budget.nodes or ((budget.depth or 0) * VISITS_A_PLY or None)
        reported, done, deepest, depth_sum, leaves = start, 0, 0, 0, 0
        while root.moves and (len(root.moves) > 1 or not root.total):
            if stop is not None and stop.is_set() and root.total:
                break
            spent = time.monotonic() - start
            if budget.movetime is not None and spent >= budget.movetime and root.total:
                break
            if (
                budget.soft_time is not None
                and spent >= budget.soft_time
                and root.total
                and self._settled(root)
            ):
                break
            if limit is not None and done >= limit:
                break
            size = self.batch if limit is None else max(1, min(self.batch, limit - done))
            try:
                depths = self._round(board, root, size)
            except BaseException:
                # a batch cut short leaves virtual losses in the tree: it is not kept
                self.root = None
                raise
            done += len(depths)
            leaves += len(depths)
            depth_sum += sum(depths)
            deepest = max([deepest, *depths])
            if on_iteration is not None and time.monotonic() - reported >= REPORT_EVERY:
                reported = time.monotonic()
                on_iteration(self._result(root, board, start, depth_sum / max(leaves, 1), deepest))
        return self._result(root, board, start, depth_sum / max(leaves, 1), deepest)

    # -- the tree ----------------------------------------------------------------------

    def _root(self, board: chess.Board) -> Node:
        """The node of ``board``: the kept tree's, where ``board`` is its root or follows it by one
        or two moves the tree holds (the engine's and the opponent's); else a new one."""
        kept, self.root = self.root, None
        for back in range(min(2, len(board.move_stack)) + 1):
            if kept is None:
                break
            before = board.copy(stack=back)
            for _ in range(back):
                before.pop()
            if before.fen() != self.root_fen:
                continue
            node: Node | None = kept
            for move in board.move_stack[len(board.move_stack) - back :]:
                if node is None or not node.expanded or move not in node.moves:
                    node = None
                    break
                node = node.children.get(node.moves.index(move))
            if node is not None and node.terminal is None:
                self.root = node
            break
        if self.root is None:
            self.root = Node()
        self.root_fen = board.fen()
        return self.root

    @staticmethod
    def _restrict(root: Node, wanted: Mapping[chess.Move, float]) -> None:
        """Make the root's moves those of ``wanted``, with its prior: the visits and children of the
        moves the root had kept, the others new (a search of the same position may be asked about
        other moves)."""
        total = sum(wanted.values()) or 1.0
        old = {m: i for i, m in enumerate(root.moves)}
        moves = list(wanted)
        root.children = {
            j: root.children[old[m]]
            for j, m in enumerate(moves)
            if m in old and old[m] in root.children
        }
        root.visits = [root.visits[old[m]] if m in old else 0 for m in moves]
        root.value = [root.value[old[m]] if m in old else 0.0 for m in moves]
        root.moves = moves
        root.prior = [wanted[m] / total for m in moves]

    def _round(self, board: chess.Board, root: Node, size: int) -> list[int]:
        """Up to ``size`` descents, their new leaves evaluated in one batch and backed up; each
        one's depth."""
        paths: list[list[tuple[Node, int]]] = []
        pending: list[tuple[list[tuple[Node, int]], Node, chess.Board]] = []
        depths: list[int] = []
        for _ in range(size):
            path, leaf, leaf_board = self._descend(board, root)
            depths.append(len(path))
            for node, i in path:  # virtual loss: the next descents look elsewhere
                node.visits[i] += 1
                node.value[i] -= 1.0
            paths.append(path)
            if leaf.terminal is not None or leaf_board is None:
                self._back(path, leaf.terminal if leaf.terminal is not None else 0.0)
            elif any(leaf is other for _, other, _ in pending):
                self._undo(path)  # the same leaf twice in one batch: once is enough
                depths.pop()
            else:
                pending.append((path, leaf, leaf_board))
        if pending:
            for (path, leaf, _), (net_prior, value) in zip(
                pending, self.evaluate([b for _, _, b in pending])
            ):
                if not leaf.expanded:
                    leaf.expand(net_prior)
                self._back(path, value)
        return depths

    def _descend(
        self, board: chess.Board, root: Node
    ) -> tuple[list[tuple[Node, int]], Node, chess.Board | None]:
        """From the root to a leaf by PUCT: the path (node, move index), the leaf, and its board
        (None where the leaf's value is known)."""
        path: list[tuple[Node, int]] = []
        node, pushed = root, 0
        while node.expanded and node.terminal is None and node.moves:
            i = node.pick()
            path.append((node, i))
            board.push(node.moves[i])
            pushed += 1
            child = node.children.get(i)
            if child is None:
                child = node.children[i] = Node()
                child.terminal = terminal_value(board, self.tables)
            node = child
        leaf_board = None if node.terminal is not None else board.copy(stack=8)
        for _ in range(pushed):
            board.pop()
        return path, node, leaf_board

    @staticmethod
    def _back(path: list[tuple[Node, int]], value: float) -> None:
        """Back ``value`` (for the leaf's side to move) up ``path``, each virtual loss taken
        back."""
        for node, i in reversed(path):
            # the move's value is its mover's: the leaf's opponent's at the last step
            value = -value
            node.value[i] += 1.0 + value

    @staticmethod
    def _undo(path: list[tuple[Node, int]]) -> None:
        for node, i in path:
            node.visits[i] -= 1
            node.value[i] += 1.0

    @staticmethod
    def _settled(root: Node) -> bool:
        """Whether the soft time may end the search: the most visited move leads the next by a clear
        margin."""
        visits = sorted(root.visits, reverse=True)
        return len(visits) < 2 or visits[0] >= 1.5 * visits[1] + 8

    # -- the result --------------------------------------------------------------------

    def _result(
        self, root: Node, board: chess.Board, start: float, depth: float, seldepth: int
    ) -> SearchResult:
        seconds = time.monotonic() - start
        if not root.moves:
            return SearchResult.empty(seconds=seconds, search=Search.PUCT)
        best = root.best()
        scores = {
            m: RootScore(q_to_cp(root.q(i)), True)
            for i, m in enumerate(root.moves)
            if root.visits[i]
        }
        if not scores:
            scores = {root.moves[best]: RootScore(0, True)}
        pv, node = [root.moves[best]], root.children.get(best)
        while node is not None and node.expanded and node.moves and node.total:
            i = node.best()
            pv.append(node.moves[i])
            node = node.children.get(i)
        return SearchResult(
            move=root.moves[best],
            score=scores[root.moves[best]].score,
            depth=max(1, round(depth)),
            seldepth=max(1, seldepth),
            nodes=root.total,
            seconds=seconds,
            pv=pv,
            scores=scores,
            tolerance=10**6,
            visits={m: root.visits[i] for i, m in enumerate(root.moves)},
            search=Search.PUCT,
        )
