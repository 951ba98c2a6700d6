"""Small casebases built in memory for the engine's tests (no builder, no files), and guided agents
made with a few settings changed."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import numpy as np

from casebase.format import GAME_TAGS, GAME_TEXT_COLUMNS, Casebase, encode_board
from engine.agents.defaults import Selection
from engine.agents.guided import GuidedAgent, Loaded
from engine.agents.guided_options import GuidedSettings
from engine.agents.modes import default_settings
from engine.cbr.weights import Weights

Case = tuple[chess.Board, chess.Move]


def make_casebase(
    games: Iterable[tuple[dict[str, str], list[Case]]], expert: str = "Test Expert"
) -> Casebase:
    """A casebase whose games are (headers, [(board before the move, move), ...]) in order."""
    rows: list[tuple[chess.Board, chess.Move, int, int]] = []
    headers: list[dict[str, str]] = []
    for g, (tags, cases) in enumerate(games):
        headers.append(tags)
        rows += [(board, move, g, board.ply()) for board, move in cases]
    n = len(rows)
    table = {
        c: np.array([h.get(tag, "?") for h in headers], dtype=str)
        for c, tag in zip(GAME_TEXT_COLUMNS, GAME_TAGS, strict=True)
    }
    return Casebase(
        boards=np.array([encode_board(b) for b, *_ in rows], dtype=np.uint64).reshape(n, 8),
        turn=np.array([b.turn for b, *_ in rows], dtype=bool),
        from_square=np.array([m.from_square for _, m, *_ in rows], dtype=np.uint8),
        to_square=np.array([m.to_square for _, m, *_ in rows], dtype=np.uint8),
        promotion=np.array([m.promotion or 0 for _, m, *_ in rows], dtype=np.uint8),
        game=np.array([g for *_, g, _ in rows], dtype=np.int32),
        ply=np.array([p for *_, p in rows], dtype=np.int32),
        games={
            **table,
            "expert_white": np.ones(len(headers), dtype=bool),
            "expert_elo": np.full(len(headers), -1, dtype=np.int32),
            "index": np.arange(len(headers), dtype=np.int32),
            "source": np.zeros(len(headers), dtype=np.int32),
        },
        meta={"expert": expert, "counts": {"cases": n}, "sources": [{"name": "tests"}]},
    )


def cases_casebase(cases: list[Case], expert: str = "Test Expert") -> Casebase:
    """A casebase of the given cases, all from one made-up game."""
    tags = {"White": "Expert", "Black": "Opponent", "Event": "Test", "Date": "2015.01.01"}
    return make_casebase([(tags, cases)], expert)


def pgn_casebase(path: Path, surname: str, max_games: int | None = None) -> Casebase:
    """The cases of the player whose tag contains ``surname``, replayed with python-chess."""
    games = []
    with open(path, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None and len(games) != max_games:
            colour = chess.WHITE if surname in game.headers.get("White", "") else chess.BLACK
            board, cases = game.board(), []
            for move in game.mainline_moves():
                if board.turn == colour:
                    cases.append((board.copy(stack=False), move))
                board.push(move)
            games.append((dict(game.headers), cases))
    return make_casebase(games, surname)


def favourite_model(path: Path, to_square: chess.Square, strength: float = 6.0) -> Path:
    """A style model file (no torch needed) that likes every move to ``to_square`` (in the side
    to move's view: e4 is e5 for Black) and is indifferent among the rest."""
    from engine.style.model import array_shapes, save_model

    arrays = {name: np.zeros(shape, np.float32) for name, shape in array_shapes(1, 4).items()}
    arrays["head.b"][to_square] = strength
    save_model(path, arrays, {"blocks": 1, "filters": 4})
    return path


def shipped_personal(casebase_path: Path, bias: dict[int, float] | None = None) -> Path:
    """A personal model of the casebase on top of the shipped generic model, made by hand: the
    generic model with ``bias`` added to its head's biases (no torch needed)."""
    from casebase.format import Casebase
    from engine.style.model import StyleModel, file_sha256, generic_model, save_model
    from engine.style.personal import beside, casebase_identity

    generic = StyleModel.load(generic_model())
    head = {name: array for name, array in generic.arrays().items() if name.startswith("head.")}
    for index, value in (bias or {}).items():
        head["head.b"][index] += value
    casebase = Casebase.load(casebase_path)
    meta = {
        "blocks": generic.blocks,
        "filters": generic.filters,
        "base": {"file": "style.npz", "sha256": file_sha256(generic_model())},
        "personal": {
            "expert": casebase.expert,
            "casebase": casebase_identity(casebase),
            "generic_top1": 0.4,
            "top1": 0.4,
            "validation_games": 1,
            "epochs": 1,
        },
    }
    save_model(beside(casebase_path), head, meta)
    return beside(casebase_path)


def guided_agent(
    casebase: Casebase | None,
    weights: Weights,
    seed: int,
    *,
    rating: float | None = None,
    **fields: Any,
) -> GuidedAgent:
    """The guided agent of the options' defaults but ``weights`` and ``fields``:
    :class:`GuidedSettings`' fields by name, and what it plays with by :class:`Loaded`'s (model,
    judge, tablebase, chooser, puct); ``rating`` is UCI_LimitStrength with UCI_Elo."""
    loaded = {name: fields.pop(name) for name in LOADED if name in fields}
    if rating is not None:
        fields |= {"limit_strength": True, "elo": rating}
    if fields.get("selection") in tuple(
        Selection
    ):  # a word of the option, as the option's value types it
        fields["selection"] = Selection(fields["selection"])
    return GuidedAgent(
        casebase,
        default_settings(GuidedSettings, weights=weights, **fields),
        seed,
        Loaded(**loaded),
    )


LOADED = tuple(field.name for field in dataclasses.fields(Loaded))
