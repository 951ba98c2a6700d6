"""The demo: one game between two shipped experts, played through the UCI engine.

Each side is a ``uci_main.py`` process driven by python-chess, exactly as a chess GUI would
drive it; every move is printed with the engine's own explanation (its ``info string`` lines).
By default the engines play guided mode, the product's best self-contained play, on a short
clock; ``mode="pure"`` shows the thesis's agent.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

import chess
import chess.engine

from engine.agents import defaults
from engine.agents.base import Decision
from engine.cbr.configurations import Configuration
from engine.outside.clock import TimeControl
from engine.outside.launch import launch, own_engine
from engine.uci.explain import explain
from tournament.game import UNTERMINATED, play_game
from tournament.players import UciSide, casebase_entrant, casebase_options
from tournament.schedule import side_seed

DEFAULT_WHITE = Path("casebases/carlsen-2800.npz")
DEFAULT_BLACK = Path("casebases/ivanchuk-2700.npz")
DEFAULT_MODE = defaults.MODE
#: The demo's clock: 40 moves in 12 seconds, so that a guided game takes about a minute.
DEFAULT_CONTROL = "40/12"
DEFAULT_PLIES = 160


def demo(
    white: Path = DEFAULT_WHITE,
    black: Path = DEFAULT_BLACK,
    *,
    plies: int = DEFAULT_PLIES,
    config: Configuration,
    seed: int = 1,
    mode: str = DEFAULT_MODE,
    control: TimeControl | None = None,
    out: TextIO | None = None,
) -> chess.Board:
    """Play and show the game on ``out`` (default: standard output); return the final board."""
    out = out or sys.stdout
    for path in (white, black):
        if not path.exists():
            raise FileNotFoundError(
                f"{path}: no such casebase (build the shipped ones with `make casebases`)"
            )
    players = [casebase_entrant(white), casebase_entrant(black)]
    control = control or TimeControl.parse(DEFAULT_CONTROL)
    print(f"{players[0].name} ({players[0].elo}) - {players[1].name} ({players[1].elo})", file=out)
    print(
        f"{mode} mode, weights {config.label} ({config.name}), time control {control}, {plies}"
        " plies at most, each side a UCI engine process",
        file=out,
    )
    engines: list[chess.engine.SimpleEngine] = []
    try:
        sides = []
        for colour, entrant in zip(chess.COLORS, players):
            assert entrant.path is not None  # casebase players
            engine = launch(own_engine())
            engines.append(engine)
            seed_ = side_seed(seed, config, players[0].id, players[1].id, 1, colour)
            sides.append(UciSide(engine, casebase_options(entrant.path, config, mode, seed_)))

        def show(board: chess.Board, move: chess.Move, decision: Decision, seconds: float) -> None:
            number = (
                f"{board.fullmove_number}."
                if board.turn == chess.WHITE
                else f"{board.fullmove_number}..."
            )
            print(f"\n{number} {board.san(move)}   ({seconds * 1000:.0f} ms)", file=out)
            for line in explain(decision.record):
                print(f"    {line}", file=out)

        record = play_game(sides[0], sides[1], control, max_plies=plies, on_move=show)
    finally:
        for engine in engines:
            engine.quit()
    rows = record.board.unicode(empty_square="·").splitlines()
    print("\n" + "\n".join(f"{8 - k} {row}" for k, row in enumerate(rows)), file=out)
    print("  a b c d e f g h", file=out)
    if record.termination == UNTERMINATED:
        print(f"\nStopped after {record.plies} plies (--plies {plies}): result *", file=out)
    else:
        print(
            f"\nResult {record.result} ({record.termination}) after {record.plies} plies", file=out
        )
    return record.board
