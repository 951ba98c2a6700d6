"""Twenty games at once through the websocket API, then no engine process left behind."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import chess
import pytest
from web_helpers import EXPERT, client, engine_processes, no_engines_left, settled, until

pytestmark = pytest.mark.slow  # twenty games through engine processes

GAMES = 20


@pytest.mark.xdist_group("web-soak")  # counts this process's engine processes: alone in its worker
def test_twenty_parallel_games_leave_no_engine_process(kosteniuk_casebase):
    before = engine_processes()
    # pure mode: the quickest engine to start, so that the test counts games rather than start-ups
    with client(kosteniuk_casebase.parent, max_games=GAMES, mode="pure") as app:
        peak = []

        def game(i: int) -> list[str]:
            with app.websocket_connect("/api/play") as ws:
                ws.send_json(
                    {"type": "new", "expert": EXPERT, "colour": "white" if i % 2 else "black"}
                )
                state = until(ws, settled)[-1]
                for _ in range(2):
                    board = chess.Board(state["fen"])
                    ws.send_json(
                        {"type": "move", "uci": sorted(m.uci() for m in board.legal_moves)[i % 5]}
                    )
                    state = until(ws, settled)[-1]
                peak.append(len(engine_processes()))
                return state["moves"]

        with ThreadPoolExecutor(GAMES) as pool:
            games = list(pool.map(game, range(GAMES)))
        assert all(len(moves) >= 4 for moves in games)
        assert max(peak) > 1, peak  # the games overlapped
        assert no_engines_left(), "closed websockets leave their engines running"
    assert before == [] and no_engines_left()
