"""The expert's repertoire as two trees (as White, as Black), for the expert's page: each node a
move in SAN with the expert's games that reached it, its share of the games at its parent, the
expert's score in them, and the position after it (for a board).

Made from casebase/book.py's replay of the games, once per casebase file and time of change, and
kept: the expert's page of a large casebase then loads at once after its first time (Carlsen's
2,382 games take about 2.5 s to replay on one core; web.md).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import chess

from casebase.book import RESULT_POINTS, expert_result, replayed_lines
from casebase.format import Casebase

#: Plies of the repertoire tree, and the most replies shown at each of its positions.
TREE_PLIES = 8
TREE_WIDTH = 5


@lru_cache(maxsize=16)
def cached_tree(path: Path, mtime: int, load: Callable[[Path, int], Casebase]) -> dict[str, Any]:
    """The trees of the casebase at ``path`` as it was at ``mtime`` (nanoseconds): built once each,
    from the casebase ``load`` gives (the page's own cache of loaded casebases)."""
    return build_tree(load(path, mtime))


def build_tree(casebase: Casebase) -> dict[str, Any]:
    """``{"white": [node], "black": [node]}``, each node ``{"san", "games", "share", "score", "fen",
    "next"}``: ``share`` the percent of the parent's games that played it, ``score`` the expert's
    points in percent over those games whose result is known (None: none is)."""
    roots: dict[str, dict[chess.Move, dict[str, Any]]] = {"white": {}, "black": {}}
    for cases, line in replayed_lines(casebase, TREE_PLIES):
        if not line:
            continue
        colour = "white" if bool(casebase.turn[cases[0]]) else "black"
        result = expert_result(casebase, cases)
        board, node = chess.Board(), roots[colour]
        for move in line:
            child = node.get(move)
            if child is None:
                child = node[move] = {
                    "san": board.san(move),
                    "games": 0,
                    "points": 0,
                    "known": 0,
                    "next": {},
                }
            board.push(move)
            child["fen"] = board.fen()
            child["games"] += 1
            if result is not None:
                child["points"] += RESULT_POINTS[result]
                child["known"] += 1
            node = child["next"]
    return {colour: _pruned(tree) for colour, tree in roots.items()}


def _pruned(tree: dict[chess.Move, dict[str, Any]]) -> list[dict[str, Any]]:
    total = sum(node["games"] for node in tree.values())
    ranked = sorted(tree.values(), key=lambda node: -node["games"])[:TREE_WIDTH]
    return [
        {
            "san": node["san"],
            "games": node["games"],
            "share": round(100 * node["games"] / total, 1),
            "score": round(100 * node["points"] / (2 * node["known"]), 1)
            if node["known"]
            else None,
            "fen": node["fen"],
            "next": _pruned(node["next"]),
        }
        for node in ranked
    ]
