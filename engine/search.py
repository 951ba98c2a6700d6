"""Alpha-beta search for the guided mode: it vets the casebase's proposals (search.md §2–4).

Negamax alpha-beta (fail-soft) with iterative deepening, a transposition table, quiescence
search and move ordering (table move, captures by MVV-LVA, killers, history; the caller's
prior orders the root). Scores are centipawns from the side to move; a mate found ``n``
plies from the root scores ``MATE - n``.

Exactness, because the guided mode trusts each root score (search.md §2–3):

- No pruning or reduction beyond alpha-beta itself, so the root score at depth ``d`` equals
  plain minimax at depth ``d`` over the same leaves. The table only cuts off with entries of
  exactly the remaining depth, for the same reason (a deeper entry would change the value).
- The leaf is quiescence: stand pat with :func:`engine.evaluation.evaluate`, then every
  capture (except under-promotions and losing captures, see :func:`_noisy_moves`) and every
  non-capturing queen promotion, in MVV-LVA order. A side in check may not stand pat: it
  searches all its evasions, and with none it is mated.
- Draws score 0 at every node below the root: insufficient material, the fifty-move rule
  (unless the move mates), and repetition. A position repeating one met earlier in the tree
  (strictly after the root) is a draw; one that only repeats the game before the search
  must have occurred twice before (the move makes it threefold), so the root never counts a
  twofold repetition of the game's past as a draw.
- :meth:`Searcher.search` searches every root move after the first with the window
  ``(best - tolerance - 1, +inf)``, so every root score at least ``best - tolerance`` is
  exact and every lower one is an upper bound below it (search.md §3). The caller may
  name the only moves whose soundness it needs (``exact=``, the guided mode's proposed
  moves); the others are merely proven no better than the best so far with a null window,
  which is much cheaper when many moves lie within the tolerance.

The table is keyed by the polyglot Zobrist hash (``chess.polyglot.zobrist_hash``), updated
incrementally from move to move because recomputing it costs about half a node; so is the
evaluation's material and square-bonus sum (:func:`engine.evaluation.material_white`). Standard
chess only (no Chess960).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass

import chess
import chess.polyglot

from engine.evaluation import PIECE_VALUES, evaluate, material_white, move_delta

MATE = 100_000
#: Scores beyond this (in absolute value) are mates.
MATE_BOUND = MATE - 1_000
INF = 1_000_000
#: Deepest ply the search goes; quiescence stops there too.
MAX_PLY = 120
#: Iterations when neither depth nor nodes bounds the search.
MAX_DEPTH = 64
#: Nodes between two looks at the clock and the stop event (about 5 ms of work).
CHECK_EVERY = 128

#: How much more than its victim a capturer may be worth before quiescence leaves out its
#: capture of a defended piece (bishop takes knight stays in, knight takes pawn goes).
LOSING_MARGIN = 50

_EXACT, _LOWER, _UPPER = 0, 1, 2
_VALUE = (0, *(PIECE_VALUES[t] for t in chess.PIECE_TYPES))
_BB_SQUARES = chess.BB_SQUARES
_PAWN, _KING, _QUEEN = chess.PAWN, chess.KING, chess.QUEEN

# Polyglot keys: piece index is 2 * (type - 1) + colour (Black 0, White 1).
_RANDOM = chess.polyglot.POLYGLOT_RANDOM_ARRAY
_PIECE_KEYS = tuple(
    tuple(
        tuple(_RANDOM[64 * (2 * (piece_type - 1) + colour) + sq] for sq in chess.SQUARES)
        if piece_type
        else ()
        for piece_type in range(7)
    )
    for colour in (0, 1)
)
_CASTLING_KEYS = ((chess.BB_H1, _RANDOM[768]), (chess.BB_A1, _RANDOM[769]),
                  (chess.BB_H8, _RANDOM[770]), (chess.BB_A8, _RANDOM[771]))
_TURN_KEY = _RANDOM[780]
_HASHER = chess.polyglot.ZobristHasher(_RANDOM)


class _Abort(Exception):
    """Raised inside the tree when a limit is reached; the iteration is abandoned."""


@dataclass(frozen=True)
class RootScore:
    """A root move's score: exact, or (``exact`` False) an upper bound."""

    score: int
    exact: bool


@dataclass
class SearchResult:
    """What a search found: the best move and score of the deepest finished iteration.

    ``scores`` holds every searched root move of that iteration; those scoring at least
    ``score - tolerance`` are exact (of the moves the search was asked to score exactly,
    and the best), the others upper bounds. ``depth`` is 0 when not even the first
    iteration finished; the scores are then those of the root moves it did finish.
    """

    move: chess.Move | None
    score: int | None
    depth: int
    seldepth: int
    nodes: int
    seconds: float
    pv: list[chess.Move]
    scores: dict[chess.Move, RootScore]
    tolerance: int = 0

    def sound(self, tolerance: int | None = None) -> list[chess.Move]:
        """Root moves with an exact score at least ``score - tolerance``, best first.

        When the best score is a mate, only moves with that very score are sound: a slower
        mate within the tolerance, chosen move after move, might never arrive.
        """
        tolerance = self.tolerance if tolerance is None else tolerance
        if tolerance > self.tolerance:
            raise ValueError(f"tolerance {tolerance} exceeds the search's {self.tolerance}")
        if self.score is None:
            return []
        floor = self.score if is_mate_score(self.score) else self.score - tolerance
        good = [(s.score, m) for m, s in self.scores.items() if s.exact and s.score >= floor]
        return [m for _, m in sorted(good, key=lambda x: -x[0])]


@dataclass
class _Limits:
    depth: int
    nodes: int | None
    deadline: float | None
    soft_deadline: float | None
    stop: threading.Event | None
    clocked: bool = False


def is_mate_score(score: int) -> bool:
    """Whether a score announces a forced mate (for either side)."""
    return abs(score) > MATE_BOUND


def uci_score(score: int) -> str:
    """A score as a UCI ``info`` payload: ``cp X`` or ``mate M`` (in moves, negative when mated)."""
    if score > MATE_BOUND:
        return f"mate {(MATE - score + 1) // 2}"
    if score < -MATE_BOUND:
        return f"mate {-((MATE + score) // 2)}"
    return f"cp {score}"


def time_budget(remaining_ms: int, increment_ms: int = 0, movestogo: int | None = None) -> float:
    """Seconds for one move on the clock (search.md §4).

    ``remaining / (movestogo + 2) + 0.8 * increment``, with ``movestogo`` the moves to the
    next time control when the GUI says, else 30; never more than a third of what remains.
    """
    togo = 30 if movestogo is None else max(movestogo, 1)
    remaining = max(remaining_ms, 0)
    budget = remaining / (togo + 2) + 0.8 * max(increment_ms, 0)
    return min(budget, remaining / 3) / 1000


def zobrist_key(board: chess.Board) -> int:
    """The polyglot Zobrist hash of ``board`` (what the transposition table is keyed by)."""
    return chess.polyglot.zobrist_hash(board)


def _castling_key(rights: int) -> int:
    key = 0
    for bit, random in _CASTLING_KEYS:
        if rights & bit:
            key ^= random
    return key


_CASTLING = {
    rights: _castling_key(rights)
    for rights in (
        a | b | c | d
        for a in (0, chess.BB_H1)
        for b in (0, chess.BB_A1)
        for c in (0, chess.BB_H8)
        for d in (0, chess.BB_A8)
    )
}


def _move_deltas(board: chess.Board, move: chess.Move) -> tuple[int, int]:
    """How ``move`` changes the pieces' part of the Zobrist hash and :func:`material_white`
    (``board`` before the move)."""
    src, dst = move.from_square, move.to_square
    colour = board.turn
    piece = board.piece_type_at(src)
    own = _PIECE_KEYS[colour]
    delta = own[piece][src] ^ own[move.promotion or piece][dst]
    captured = board.piece_type_at(dst)
    if captured:
        delta ^= _PIECE_KEYS[not colour][captured][dst]
    elif piece == _PAWN and dst == board.ep_square:
        delta ^= _PIECE_KEYS[not colour][_PAWN][dst - 8 if colour else dst + 8]
    elif piece == _KING and abs(dst - src) == 2:
        rook_src, rook_dst = (src + 3, src + 1) if dst > src else (src - 4, src - 1)
        delta ^= own[chess.ROOK][rook_src] ^ own[chess.ROOK][rook_dst]
    return delta, move_delta(board, move, piece, captured)


def _full_key(board: chess.Board, pieces: int) -> int:
    """The whole hash after a move, from its pieces' part (castling rights are clean after a push)."""
    key = pieces ^ _CASTLING[board.castling_rights]
    if board.ep_square is not None:
        key ^= _HASHER.hash_ep_square(board)
    return key ^ _TURN_KEY if board.turn else key


def _noisy_moves(board: chess.Board, *, every: bool = False) -> list[chess.Move]:
    """Captures and non-capturing promotions, MVV-LVA first.

    For quiescence (``every`` False) under-promotions, quiet promotions but to a queen and
    *losing* captures are left out. A capture is losing when the capturer is worth more than
    its victim by over :data:`LOSING_MARGIN` and the opponent defends the square (a knight
    taking a defended pawn, a queen a defended rook): in the tree it can only lose material on
    the recapture, and searching it costs most of a quiescence search's nodes.
    """
    keyed = []
    type_at = board.piece_type_at
    them = not board.turn
    for move in board.generate_legal_captures():
        victim = type_at(move.to_square) or _PAWN  # en passant
        attacker = type_at(move.from_square)
        if not every and (
            (move.promotion and move.promotion != _QUEEN)
            or (not move.promotion and _VALUE[attacker] > _VALUE[victim] + LOSING_MARGIN
                and board.is_attacked_by(them, move.to_square))
        ):
            continue
        keyed.append((victim * 8 - attacker + (move.promotion or 0) * 8, move))
    us = board.occupied_co[board.turn]
    promoting = board.pawns & us & (chess.BB_RANK_7 if board.turn else chess.BB_RANK_2)
    if promoting:
        for move in board.generate_legal_moves(promoting, chess.BB_BACKRANKS & ~board.occupied):
            if every or move.promotion == _QUEEN:
                keyed.append((move.promotion * 8, move))  # type: ignore[operator]
    keyed.sort(key=lambda x: -x[0])
    return [move for _, move in keyed]


class Searcher:
    """Searches positions: one :meth:`search` at a time, each with a fresh table.

    A fresh table per search makes ``go depth`` and ``go nodes`` give the same move however
    the engine got to the position. ``table=False`` turns the table off and
    ``quiescence=False`` makes the horizon's leaves static evaluations: the tests compare
    each variant with plain minimax.
    """

    def __init__(self, *, table: bool = True, quiescence: bool = True) -> None:
        self.use_table = table
        self.use_quiescence = quiescence
        self._reset(chess.Board(), _Limits(MAX_DEPTH, None, None, None, None), 0, time.monotonic())

    def _reset(self, board: chess.Board, limits: _Limits, tolerance: int, start: float) -> None:
        """Fresh state for searching ``board``: counters, table, killers, history, PV."""
        self._start = start
        self._limits = limits
        self.board = board.copy(stack=False)
        self.tolerance = tolerance
        self.nodes = 0
        self.seldepth = 0
        self._next_check = CHECK_EVERY if limits.nodes is None else min(CHECK_EVERY, limits.nodes)
        self.table: dict[int, tuple[int, int, int, chess.Move | None]] | None = (
            {} if self.use_table else None
        )
        # Killers as from-square << 6 | to-square codes (-1: none), like the history's keys.
        self.killers: list[list[int]] = [[-1, -1] for _ in range(MAX_PLY + 1)]
        self.history: dict[int, int] = {}
        self.pv: list[list[chess.Move]] = [[] for _ in range(MAX_PLY + 2)]
        self.path: set[int] = set()
        self._partial: dict[chess.Move, RootScore] = {}

    def quiescence(self, board: chess.Board) -> int:
        """The quiescence value of ``board`` (no draw rules; the search's leaf value)."""
        self._reset(board, _Limits(MAX_DEPTH, None, None, None, None), 0, time.monotonic())
        self.nodes = 1
        return self._quiesce(-INF, INF, 0, material_white(self.board))

    def search(
        self,
        board: chess.Board,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        movetime: float | None = None,
        soft_time: float | None = None,
        stop: threading.Event | None = None,
        prior: Mapping[chess.Move, float] | None = None,
        moves: Iterable[chess.Move] | None = None,
        tolerance: int = 0,
        exact: Collection[chess.Move] | None = None,
        info: Callable[[str], None] | None = None,
    ) -> SearchResult:
        """Search ``board`` by iterative deepening until a limit is reached.

        ``depth`` iterations at most; ``nodes`` visited positions at most (exactly
        reproducible); ``movetime`` seconds at most; no new iteration after ``soft_time``
        seconds (the clock-managed budget; a search on the clock also stops at an
        only move or a mate found); ``stop`` set by another thread ends it within a few
        milliseconds. Root moves are ``moves`` (legal ones only) or all legal moves, ordered
        by ``prior`` at first. Every root score down to ``best - tolerance`` is exact, of
        the moves in ``exact`` (and the best move) when that is given.
        ``info`` gets one UCI info payload per finished iteration.
        """
        if board.chess960:
            raise ValueError("the search plays standard chess only, not Chess960")
        start = time.monotonic()
        limits = _Limits(
            depth=min(depth, MAX_DEPTH) if depth is not None else MAX_DEPTH,
            nodes=max(nodes, 1) if nodes is not None else None,
            deadline=start + movetime if movetime is not None else None,
            soft_deadline=start + soft_time if soft_time is not None else None,
            stop=stop,
            clocked=soft_time is not None,
        )
        self._reset(board, limits, tolerance, start)
        self.exact = None if exact is None else frozenset(exact)
        self.past = _past_counts(board)

        legal = list(self.board.generate_legal_moves())
        if moves is not None:
            wanted = set(moves)
            legal = [m for m in legal if m in wanted] or legal
        prior = prior or {}
        order = sorted(legal, key=lambda m: -prior.get(m, 0.0))
        if not order:
            score = -MATE if self.board.is_check() else 0
            return SearchResult(None, score, 0, 0, 0, 0.0, [], {}, tolerance)

        root_key = zobrist_key(self.board)
        root_pieces = _HASHER.hash_board(self.board)
        root_material = material_white(self.board)
        result: SearchResult | None = None
        for iteration in range(1, self._limits.depth + 1):
            self._partial = {}
            try:
                best_move, best, pv = self._root(iteration, order, root_key, root_pieces, root_material)
            except _Abort:
                if result is None:
                    result = self._result_of_partial(order)
                break
            scores = self._partial
            result = SearchResult(
                best_move, best, iteration, self.seldepth, self.nodes,
                time.monotonic() - start, pv, scores, tolerance,
            )
            if info is not None:
                info(_info_line(result))
            order = sorted(order, key=lambda m: (-scores[m].score, -prior.get(m, 0.0)))
            if self._finished(result, len(order)):
                break
        assert result is not None
        result.nodes, result.seconds = self.nodes, time.monotonic() - start
        return result

    # -- limits ----------------------------------------------------------------------

    def _finished(self, result: SearchResult, root_moves: int) -> bool:
        """Whether to stop after a finished iteration."""
        limits = self._limits
        assert result.score is not None
        # A mate within the full-width depth cannot get shorter by searching deeper.
        if is_mate_score(result.score) and MATE - abs(result.score) <= result.depth:
            return True
        if limits.clocked and root_moves == 1:
            return True
        if limits.soft_deadline is not None and time.monotonic() >= limits.soft_deadline:
            return True
        return limits.stop is not None and limits.stop.is_set()

    def _check(self) -> None:
        """Look at the limits before counting a node (every :data:`CHECK_EVERY` nodes, and at
        the node limit); raise :class:`_Abort` at one."""
        limits = self._limits
        if limits.nodes is not None and self.nodes >= limits.nodes:
            raise _Abort
        if limits.stop is not None and limits.stop.is_set():
            raise _Abort
        if limits.deadline is not None and time.monotonic() >= limits.deadline:
            raise _Abort
        self._next_check = self.nodes + CHECK_EVERY
        if limits.nodes is not None:
            self._next_check = min(self._next_check, limits.nodes)

    def _result_of_partial(self, order: list[chess.Move]) -> SearchResult:
        """The result when the first iteration did not finish: the root moves it did score."""
        scores = self._partial
        if scores:
            best_move = max(scores, key=lambda m: scores[m].score)  # first of the best
            best = scores[best_move].score
        else:
            best_move, best = order[0], None
        return SearchResult(
            best_move, best, 0, self.seldepth, self.nodes, time.monotonic() - self._start,
            [best_move], scores, self.tolerance,
        )

    # -- the tree --------------------------------------------------------------------

    def _root(
        self, depth: int, order: list[chess.Move], key: int, pieces: int, material: int
    ) -> tuple[chess.Move, int, list[chess.Move]]:
        """One iteration over the root moves; fills ``self._partial`` as moves finish."""
        board = self.board
        self.nodes += 1
        best, best_move, pv = -INF, order[0], [order[0]]
        for move in order:
            alpha = -INF if best == -INF else max(best - self.tolerance - 1, -INF)
            key_delta, material_delta = _move_deltas(board, move)
            child_pieces = pieces ^ key_delta
            board.push(move)
            child = (_full_key(board, child_pieces), child_pieces, material + material_delta)
            if alpha == -INF or self.exact is None or move in self.exact:
                score = -self._negamax(depth - 1, -INF, -alpha, 1, *child)
                exact = score > alpha
            else:
                # Not needed exactly: a null window shows it is no better than the best...
                score = -self._negamax(depth - 1, -best - 1, -best, 1, *child)
                exact = False
                if score > best:  # ...or else it is the new best, and gets its exact score
                    score = -self._negamax(depth - 1, -INF, -alpha, 1, *child)
                    exact = score > alpha
            board.pop()
            self._partial[move] = RootScore(score, exact)
            if score > best:
                best, best_move, pv = score, move, [move, *self.pv[1]]
        return best_move, best, pv

    def _negamax(
        self, depth: int, alpha: int, beta: int, ply: int, key: int, pieces: int, material: int
    ) -> int:
        if self.nodes >= self._next_check:
            self._check()
        self.nodes += 1
        board = self.board
        self.pv[ply] = []
        clock = board.halfmove_clock
        if clock >= 4 and (key in self.path or self.past.get(key, 0) >= 2):
            return 0
        if clock >= 100:
            return -MATE + ply if board.is_checkmate() else 0
        if not (board.pawns | board.rooks | board.queens) and board.is_insufficient_material():
            return 0
        if depth <= 0 or ply >= MAX_PLY:
            if self.use_quiescence:
                return self._quiesce(alpha, beta, ply, material)
            return evaluate(board, material)

        table = self.table
        table_move = None
        if table is not None:
            entry = table.get(key)
            if entry is not None:
                entry_depth, flag, score, table_move = entry
                if entry_depth == depth:
                    if score > MATE_BOUND:
                        score -= ply
                    elif score < -MATE_BOUND:
                        score += ply
                    if (
                        flag == _EXACT
                        or (flag == _LOWER and score >= beta)
                        or (flag == _UPPER and score <= alpha)
                    ):
                        if table_move is not None:
                            self.pv[ply] = [table_move]
                        return score

        self.path.add(key)
        original_alpha = alpha
        best, best_move = -INF, None
        them = board.occupied_co[not board.turn]
        for move in self._moves(board, table_move, ply):
            key_delta, material_delta = _move_deltas(board, move)
            child_pieces = pieces ^ key_delta
            board.push(move)
            child = (_full_key(board, child_pieces), child_pieces, material + material_delta)
            if best == -INF or beta - alpha == 1:
                score = -self._negamax(depth - 1, -beta, -alpha, ply + 1, *child)
            else:
                # Principal variation search: prove the move is no better with a null window,
                # search it fully only when it is (the value stays exact within the window).
                score = -self._negamax(depth - 1, -alpha - 1, -alpha, ply + 1, *child)
                if alpha < score < beta:
                    score = -self._negamax(depth - 1, -beta, -score, ply + 1, *child)
            board.pop()
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        if not (_BB_SQUARES[move.to_square] & them or move.promotion):
                            self._remember_cutoff(move, depth, ply)
                        break
                    self.pv[ply] = [move, *self.pv[ply + 1]]
        self.path.discard(key)
        if best_move is None:
            return -MATE + ply if board.is_check() else 0

        if table is not None:
            flag = _LOWER if best >= beta else _UPPER if best <= original_alpha else _EXACT
            stored = best + ply if best > MATE_BOUND else best - ply if best < -MATE_BOUND else best
            table[key] = (depth, flag, stored, best_move)
        return best

    def _quiesce(self, alpha: int, beta: int, ply: int, material: int) -> int:
        """Quiescence value of the current position (already counted as a node)."""
        board = self.board
        if ply > self.seldepth:
            self.seldepth = ply
        if ply >= MAX_PLY:
            return evaluate(board, material)
        if board.is_check():
            moves = list(self._moves(board, None, ply))
            if not moves:
                return -MATE + ply
            best = -INF
        else:
            best = evaluate(board, material)
            if best >= beta:
                return best
            if best > alpha:
                alpha = best
            moves = _noisy_moves(board)
        type_at = board.piece_type_at
        for move in moves:
            if self.nodes >= self._next_check:
                self._check()
            self.nodes += 1
            child_material = material + move_delta(board, move, type_at(move.from_square),
                                                   type_at(move.to_square))
            board.push(move)
            score = -self._quiesce(-beta, -alpha, ply + 1, child_material)
            board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    # -- move ordering ---------------------------------------------------------------

    def _moves(self, board: chess.Board, table_move: chess.Move | None, ply: int) -> Iterator[chess.Move]:
        """The legal moves in stages, each generated only when the ones before did not cut off:
        the table move, captures and promotions by MVV-LVA, the killers, the other quiet moves
        by history."""
        # A table move comes from a position with the same key, so it is checked (collisions).
        first = table_move if table_move is not None and board.is_legal(table_move) else None
        if first is not None:
            yield first
        noisy = _noisy_moves(board, every=True)
        for move in noisy:
            if move != first:
                yield move
        killers = []
        for code in self.killers[ply]:
            if code < 0:
                continue
            move = chess.Move(code >> 6, code & 63)
            if (move != first and not _BB_SQUARES[move.to_square] & board.occupied
                    and not board.is_en_passant(move) and board.is_legal(move)):
                killers.append(move)
                yield move
        history = self.history
        quiet = []
        ep = board.ep_square
        # to the squares the opponent does not hold: castling's mask is its rook's square
        for move in board.generate_legal_moves(chess.BB_ALL, ~board.occupied_co[not board.turn]):
            if move.promotion or move == first or move in killers:
                continue
            dst = move.to_square
            if dst == ep and board.piece_type_at(move.from_square) == _PAWN and board.is_en_passant(move):
                continue
            quiet.append((history.get(move.from_square << 6 | dst, 0), move))
        quiet.sort(key=lambda x: -x[0])
        for _, move in quiet:
            yield move

    def _remember_cutoff(self, move: chess.Move, depth: int, ply: int) -> None:
        """A quiet move refuted the node: it becomes a killer at ``ply`` and gains history."""
        killers = self.killers[ply]
        code = move.from_square << 6 | move.to_square
        if killers[0] != code:
            killers[1], killers[0] = killers[0], code
        self.history[code] = self.history.get(code, 0) + depth * depth


def _past_counts(board: chess.Board) -> dict[int, int]:
    """How often each position since the last irreversible move occurred, the current one included."""
    counts: dict[int, int] = {}
    replay = board.copy()
    for _ in range(min(board.halfmove_clock, len(board.move_stack)) + 1):
        key = zobrist_key(replay)
        counts[key] = counts.get(key, 0) + 1
        if not replay.move_stack:
            break
        replay.pop()
    return counts


def _info_line(result: SearchResult) -> str:
    assert result.score is not None
    ms = max(int(result.seconds * 1000), 0)
    nps = int(result.nodes / result.seconds) if result.seconds > 0 else 0
    pv = " ".join(move.uci() for move in result.pv)
    return (
        f"depth {result.depth} seldepth {result.seldepth} score {uci_score(result.score)}"
        f" nodes {result.nodes} nps {nps} time {ms} pv {pv}"
    )


def search(board: chess.Board, **limits: object) -> SearchResult:
    """One search with a fresh :class:`Searcher`; keywords as in :meth:`Searcher.search`."""
    return Searcher().search(board, **limits)  # type: ignore[arg-type]
