"""The game's PGN keeps the clock and names the opening (issue #41 item 11): ``[%clk]`` after every
move, the mover's time left from the game's clock, and the ECO code and name of the longest line of
the openings table (web/openings.py) the game follows, in the headers and in the page's state."""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest
from web_helpers import EXPERT, client, no_engines_left, settled, until

from web.game_settings import Settings
from web.games import Game
from web.openings import opening, table

#: After 1.g3 f5 2.e4 fxe4: White's 3.Qh5+ leaves Black one move, 3...g6, the table's Pachman
#: Gambit.
PACHMAN = "rnbqkbnr/ppppp1pp/8/8/4p3/6P1/PPPP1P1P/RNBQKBNR w KQkq - 0 3"


def _fens(*sans: str, board: chess.Board | None = None) -> list[str]:
    board = board or chess.Board()
    fens = []
    for san in sans:
        board.push_san(san)
        fens.append(board.fen())
    return fens


def test_the_opening_is_the_longest_line_of_the_table_the_moves_follow():
    assert opening(_fens("e4", "c5")) == {"eco": "B20", "name": "Sicilian Defense"}
    assert opening(_fens("e4")) == {"eco": "B00", "name": "King's Pawn Game"}
    # moves beyond the table keep the last line named; a transposition is named by its position
    king_david = {"eco": "B20", "name": "Sicilian Defense: King David's Opening"}
    assert (
        opening(_fens("e4", "c5", "Ke2", "Qa5", "Ke1"))
        == opening(_fens("e4", "c5", "Ke2"))
        == king_david
    )
    assert opening(_fens("Nf3", "d6", "e4", "c5")) == {
        "eco": "B50",
        "name": "Sicilian Defense: Modern Variations",
    }
    assert (
        opening(_fens("d4", "d5", "c4"))
        == opening(_fens("c4", "d5", "d4"))
        == {"eco": "D06", "name": "Queen's Gambit"}
    )
    assert opening([]) is None and opening(_fens("a3", "h6", board=chess.Board(PACHMAN))) is None
    assert len(table()) > 10_000  # the package's table, not a hand-written one


def test_a_game_from_a_position_of_the_table_is_named_before_its_first_move():
    sicilian = _fens("e4", "c5")[-1]
    game = Game(Settings(EXPERT, fen=sicilian), "unused.npz", "Nobody")  # not started: no engine
    assert game.state()["opening"] == {"eco": "B20", "name": "Sicilian Defense"}
    assert '[ECO "B20"]' in game.pgn() and '[Opening "Sicilian Defense"]' in game.pgn()


@pytest.mark.slow  # a game through the app's engine process
def test_the_pgn_has_every_moves_clock_and_the_openings_eco_and_name(kosteniuk_casebase):
    with client(kosteniuk_casebase.parent) as app, app.websocket_connect("/api/play") as ws:
        ws.send_json(
            {
                "type": "new",
                "expert": EXPERT,
                "colour": "white",
                "minutes": 5,
                "moves": 0,
                "increment": 2,
                "fen": PACHMAN,
            }
        )
        until(ws, settled)
        ws.send_json({"type": "move", "uci": "d1h5"})  # check: the engine's one reply is g6
        state = until(ws, lambda m: settled(m) and m["plies"] == 2)[-1]
        assert state["moves"] == ["Qh5+", "g6"]
        named = {"eco": "A00", "name": "Hungarian Opening: Pachman Gambit"}
        assert state["opening"] == named and len(state["clocks"]) == 2
        assert all(0 < ms <= 302_000 for ms in state["clocks"])  # 5 min, + 2 s a move
        assert state["fens"][-1] == state["fen"] and state["ucis"] == ["d1h5", "g7g6"]
        game = chess.pgn.read_game(io.StringIO(app.get(f"/api/games/{state['game']}/pgn").text))
        assert (game.headers["ECO"], game.headers["Opening"]) == (named["eco"], named["name"])
        nodes = list(game.mainline())
        # whole seconds, up
        assert [node.clock() for node in nodes] == [-(-ms // 1000) for ms in state["clocks"]]
        assert nodes[1].comment.index("[%clk") > 0  # the engine's reasons, then its clock
        ws.send_json({"type": "takeback"})
        state = until(ws, settled)[-1]
        assert state["clocks"] == [] and state["opening"] is None
        game = chess.pgn.read_game(io.StringIO(app.get(f"/api/games/{state['game']}/pgn").text))
        assert "ECO" not in game.headers and "[%clk" not in str(game)
    assert no_engines_left()
