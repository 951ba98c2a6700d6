"""Reading the arguments of the ``go`` and ``position`` commands."""

from __future__ import annotations

import dataclasses
from typing import Any

import chess

from common.text import clip
from engine.search.limits import SearchLimits, checked_limits

_GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate")
_GO_FLAGS = ("infinite", "ponder")
_GO_KEYWORDS = frozenset(_GO_NUMBERS + _GO_FLAGS)

#: How many words of ``go searchmoves`` are looked up at most; the rest of the list is ignored
#: (and said so in one line), so that a hostile line costs the clock nothing (issue #60).
SEARCHMOVES_READ = 1000


def parse_go(
    tokens: list[str], board: chess.Board
) -> tuple[SearchLimits, list[chess.Move] | None, list[str]]:
    """Limits and search moves of a ``go`` command, and complaints about what was ignored."""
    numbers: dict[str, Any] = {}
    flags: set[str] = set()
    moves: list[chess.Move] | None = None
    problems: list[str] = []
    unknown: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token in _GO_FLAGS:
            flags.add(token)
        elif token in _GO_NUMBERS:
            if i < len(tokens) and _is_int(tokens[i]):
                numbers[token] = int(tokens[i])
                i += 1
            else:
                problems.append(f"go {token} needs a whole number; ignored")
        elif token == "searchmoves":
            end = next((j for j in range(i, len(tokens)) if tokens[j] in _GO_KEYWORDS), len(tokens))
            moves, told = search_moves(tokens[i:end], board)
            problems += told
            i = end
        else:
            unknown.append(token)
    if unknown:
        problems.append(
            f"go: unknown parameter{'s' if len(unknown) > 1 else ''} {_listed(unknown, quote=True)}"
            " ignored"
        )
    if moves == []:
        problems.append("searchmoves lists no legal move: searching all moves")
        moves = None
    asked = dataclasses.replace(
        SearchLimits(infinite="infinite" in flags, ponder="ponder" in flags), **numbers
    )
    limits, changed = checked_limits(asked)
    return limits, moves, problems + changed


def search_moves(words: list[str], board: chess.Board) -> tuple[list[chess.Move], list[str]]:
    """The legal moves ``words`` name in ``board``, each once, in their order, and complaints about
    the rest. Each word is looked up among the legal moves' names (:func:`legal_names`), not parsed:
    at most :data:`SEARCHMOVES_READ` words, and none once every legal move is listed."""
    names = legal_names(board)
    everything = len(set(names.values()))
    found: dict[chess.Move, None] = {}  # an ordered set
    illegal: list[str] = []
    read = 0
    for word in words:
        if read == SEARCHMOVES_READ or (found and len(found) == everything):
            break
        read += 1
        move = names.get(word)
        if move is None:
            illegal.append(word)
        else:
            found[move] = None
    problems: list[str] = []
    if illegal:
        problems.append(
            f"searchmoves: {_listed(illegal)} {'is' if len(illegal) == 1 else 'are'} not"
            f" {'a legal move' if len(illegal) == 1 else 'legal moves'} here; ignored"
        )
    if read < len(words):
        why = (
            f"every legal move is listed after {read} words"
            if len(found) == everything
            else f"only the first {read} words are read"
        )
        problems.append(f"searchmoves: {why}; the other {len(words) - read} ignored")
    return list(found), problems


def legal_names(board: chess.Board) -> dict[str, chess.Move]:
    """Every name ``board.parse_uci`` takes for a legal move, and the move: ``board.uci(move)``, and
    for castling the other notation too (king two squares, or king onto its rook), where it names
    the move."""
    names = {board.uci(move): move for move in board.legal_moves}
    for move in [move for move in names.values() if board.is_castling(move)]:
        for other in (board.uci(move, chess960=True), board.uci(move, chess960=False)):
            if other not in names and _parsed(board, other) == move:
                names[other] = move
    return names


def _parsed(board: chess.Board, text: str) -> chess.Move | None:
    try:
        return board.parse_uci(text)
    except ValueError:
        return None


#: How many of a command's bad words a complaint names (one line, however many there are).
NAMED = 3


def _listed(words: list[str], *, quote: bool = False) -> str:
    """The first few of ``words``, each cut short, and how many more: one bounded line."""
    named = ", ".join(repr(clip(w)) if quote else clip(w) for w in words[:NAMED])
    return named + (f" and {len(words) - NAMED} more" if len(words) > NAMED else "")


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def parse_position(tokens: list[str]) -> chess.Board:
    """The board of a ``position`` command; ValueError says what is wrong with it."""
    if tokens[:1] == ["startpos"]:
        board, rest = chess.Board(), tokens[1:]
    elif tokens[:1] == ["fen"]:
        end = tokens.index("moves") if "moves" in tokens else len(tokens)
        fen = " ".join(tokens[1:end])
        try:
            board = chess.Board(fen)
        except ValueError as exc:
            # python-chess's message quotes the FEN (or a part of it) whole
            raise ValueError(f"invalid FEN {clip(fen)!r}: {clip(str(exc))}") from None
        if not board.is_valid():
            raise ValueError(f"impossible position in FEN {clip(fen)!r} ({board.status()!r})")
        rest = tokens[end:]
    else:
        raise ValueError("position needs 'startpos' or 'fen <FEN>'")
    if rest and rest[0] != "moves":
        raise ValueError(f"unexpected {clip(rest[0])!r} (expected 'moves')")
    for ply, text in enumerate(rest[1:], 1):
        try:
            board.push(board.parse_uci(text))
        except ValueError:
            raise ValueError(f"move {ply} ({clip(text)}) is not legal in {board.fen()}") from None
    return board
