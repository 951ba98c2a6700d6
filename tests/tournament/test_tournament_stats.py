"""Each finished game's effort file: moves, thinking time, and the nodes a UCI engine reports."""

import json
import shlex
import sys

import chess.pgn
from judge_helpers import FAKE_ENGINE

from engine.cbr.configurations import parse_configurations
from engine.outside.clock import TimeControl
from tournament.players import casebase_entrant, engine_entrant
from tournament.runner import TournamentSettings, run

# The fidelity tests' first-move engine, reporting a search of 123 nodes in 4 ms for every move.
REPORTING_ENGINE = FAKE_ENGINE.replace(
    'print("bestmove"',
    'print("info depth 1 nodes 123 time 4", flush=True)\n        print("bestmove"',
)


def test_every_game_records_each_sides_moves_time_and_reported_nodes(kosteniuk_casebase, tmp_path):
    assert REPORTING_ENGINE != FAKE_ENGINE
    script = tmp_path / "fake_engine.py"
    script.write_text(REPORTING_ENGINE)
    fake = engine_entrant(f"name=fake cmd={shlex.quote(shlex.join([sys.executable, str(script)]))}")
    settings = TournamentSettings(
        (casebase_entrant(kosteniuk_casebase), fake),
        tuple(parse_configurations(["balanced"])),
        rounds=1,
        seed=3,
        control=TimeControl(40, 600),
    )
    run(settings, tmp_path / "run", workers=1, progress=False)
    files = sorted((tmp_path / "run" / "games").glob("*.pgn"))
    assert len(files) == 2
    for path in files:
        with open(path, encoding="utf-8") as f:
            game = chess.pgn.read_game(f)
        stats = json.loads(path.with_suffix(".json").read_text())
        plies = int(game.headers["PlyCount"])
        assert stats["white"]["moves"] + stats["black"]["moves"] == plies
        colour = "white" if game.headers["White"] == "fake" else "black"
        other = "black" if colour == "white" else "white"
        moves = stats[colour]["moves"]
        assert stats[colour]["nodes"] == 123 * moves
        assert abs(stats[colour]["search_seconds"] - 0.004 * moves) < 1e-6
        assert stats[other]["nodes"] is None and stats[other]["search_seconds"] is None
        assert all(0 < stats[side]["seconds"] < 600 for side in ("white", "black"))
