"""Endgame tables (endgames.md): generation checked against python-chess's rules, files, probing,
and won endings won through the UCI engine against a perfect defence."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.engine
import numpy as np
import pytest
from uci_helpers import popen

from endgame.check import check, random_position
from endgame.retrograde import generate
from endgame.tablebase import Stored, Tablebase, TablebaseError, ending_of
from engine.search.alphabeta import Searcher
from engine.search.limits import Budget
from engine.search.scores import MATE

# the tables are made (KQK, KRK: seconds), and games played through the engine
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def tables_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with KQK and KRK, made by the engine's first use of them."""
    folder = tmp_path_factory.mktemp("tables")
    tables = Tablebase(folder)
    assert tables.table("KQK") is not None and tables.table("KRK") is not None
    return folder


@pytest.fixture(scope="session")
def tables(tables_dir: Path) -> Tablebase:
    return Tablebase(tables_dir, make=())


def test_longest_mates_are_the_known_maxima():
    # KQK: 10 moves, KRK: 16 moves with the stronger side to move (the known maxima).
    assert generate("KQK").longest_mate() == 10
    assert generate("KRK").longest_mate() == 16


@pytest.mark.parametrize("ending", ["KQK", "KRK"])
def test_every_value_is_the_best_of_its_successors(tables: Tablebase, ending: str):
    report = check(ending, tables, 1500, seed=3)
    assert report.disagreements == []
    # the sample holds wins, losses and draws (stalemates, a hanging piece taken)
    assert report.wins > 300 and report.losses > 300 and report.draws > 20


def test_mates_and_draws_on_known_positions(tables: Tablebase):
    assert tables.probe(chess.Board("R1k5/8/2K5/8/8/8/8/8 b - - 0 1")).text() == "mated in 0"
    assert tables.probe(chess.Board("k7/8/1K6/8/8/8/8/7R w - - 0 1")).text() == "mate in 1"
    # Black to move takes the undefended rook: a draw
    assert tables.probe(chess.Board("8/8/8/8/8/8/1kR5/7K b - - 0 1")).wins is None
    # stalemate
    assert tables.probe(chess.Board("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1")).wins is None
    found = tables.best(chess.Board("k7/8/1K6/8/8/8/8/7R w - - 0 1"))
    assert found is not None and found[0] == chess.Move.from_uci("h1h8")


def test_the_stronger_side_may_be_black(tables: Tablebase):
    rng = np.random.default_rng(5)
    for _ in range(200):
        board = random_position("KRK", rng)
        assert tables.probe(board) == tables.probe(board.mirror())
        assert ending_of(board) is not None
    assert ending_of(chess.Board()) is None
    assert ending_of(chess.Board("8/8/8/4k3/8/8/3P4/R3K3 w - - 0 1")) is None  # a pawn


def test_files_round_trip_and_bad_ones_are_refused(tables_dir: Path, tmp_path: Path):
    stored = Stored.load(tables_dir / "KRK.npz")
    assert stored.white_to_move.shape == (10, 64, 64) and stored.white_to_move.dtype == np.int8
    foreign = tmp_path / "KRK.npz"
    np.savez(foreign, something=np.zeros(3))
    with pytest.raises(TablebaseError, match="not an endgame table"):
        Stored.load(foreign)
    torn = tmp_path / "torn.npz"
    torn.write_bytes((tables_dir / "KRK.npz").read_bytes()[:500])
    with pytest.raises(TablebaseError, match="cannot read"):
        Stored.load(torn)
    # a damaged file in the folder is reported, and nothing is probed from it
    tables = Tablebase(tmp_path, make=())
    assert tables.probe(chess.Board("k7/8/1K6/8/8/8/8/7R w - - 0 1")) is None
    assert "make tables" in tables.problems[0]


def test_the_search_scores_table_positions_as_mates(tables: Tablebase):
    # Rxd7 leaves KRK: with the tables, a mate at depth 1; without them, a rook up
    board = chess.Board("k7/3n4/2K5/8/8/8/8/3R4 w - - 0 1")
    with_tables = Searcher(tablebase=tables).search(board, Budget(depth=1))
    without = Searcher().search(board, Budget(depth=1))
    assert with_tables.move == chess.Move.from_uci("d1d7") and with_tables.score > MATE - 40
    assert without.score < 2000


def _won_start(ending: str, rng: np.random.Generator) -> chess.Board:
    """A random position of ``ending`` with White (the stronger side) to move and no piece en
    prise."""
    while True:
        board = random_position(ending, rng, strong=chess.WHITE)
        board.turn = chess.WHITE
        men = board.occupied_co[chess.WHITE] & ~board.kings
        if board.is_valid() and not any(
            board.is_attacked_by(chess.BLACK, s) for s in chess.SquareSet(men)
        ):
            return board


@pytest.mark.parametrize("ending", ["KQK", "KRK"])
def test_guided_mode_mates_against_a_perfect_defence(
    kosteniuk_casebase, tables_dir, tables, ending
):
    rng = np.random.default_rng(12)
    engine = popen("--casebase", str(kosteniuk_casebase), "--mode", "guided", "--seed", "1")
    engine.configure({"Tables": str(tables_dir)})
    try:
        for _ in range(100):
            board = _won_start(ending, rng)
            start = board.fen()
            while not board.is_game_over(claim_draw=True):
                if board.turn == chess.WHITE:
                    move = engine.play(board, chess.engine.Limit(nodes=20000)).move
                else:
                    found = tables.best(board)
                    assert found is not None
                    move = found[0]
                board.push(move)
            assert board.is_checkmate(), (
                f"{start}: {board.result(claim_draw=True)} after {board.ply()} plies"
            )
            assert board.halfmove_clock < 100
    finally:
        engine.quit()


def test_pure_mode_plays_the_tables_move_and_says_so(kosteniuk_casebase, tables_dir):
    board = chess.Board("8/8/8/4k3/8/8/8/R3K3 w - - 0 1")
    with popen("--mode", "pure", "--casebase", str(kosteniuk_casebase)) as engine:
        engine.configure({"Tables": str(tables_dir)})
        with engine.analysis(board, chess.engine.Limit(depth=1)) as analysis:
            infos = list(analysis)
        result = engine.play(board, chess.engine.Limit(depth=1), info=chess.engine.INFO_ALL)
    strings = " ".join(i.get("string", "") for i in infos)
    assert "tablebase: mate in 14 (KRK)" in strings
    assert result.info["score"].white() == chess.engine.Mate(14)
    assert result.move == chess.Move.from_uci("e1e2")


def test_a_winning_engine_allows_no_threefold_repetition(kosteniuk_casebase, tables_dir):
    # Queen and pawn against rook, the kings shuffling: the game starts after Kh1 and comes
    # back to it, so Kh1 now would make that position a third time.
    board = chess.Board("1r5k/8/8/8/8/8/P7/3Q3K b - - 0 1")
    for uci in ["h8g7", "h1g1", "g7h8", "g1h1", "h8g7", "h1g1", "g7h8"]:
        board.push_uci(uci)
    board.push_uci("g1h1")
    assert board.is_repetition(3)  # the move the engine must not play
    board.pop()
    # Tolerance 1000 makes every move sound that loses under 1000 cp, a draw included, but
    # for the rule that a win is never let slip; the cases prefer Kh1 to a3 (measured).
    with popen("--casebase", str(kosteniuk_casebase), "--mode", "guided") as engine:
        engine.configure({"Tables": str(tables_dir), "Tolerance": 1000, "Prior": "cases"})
        result = engine.play(
            board,
            chess.engine.Limit(nodes=20000),
            info=chess.engine.INFO_ALL,
            root_moves=[chess.Move.from_uci("g1h1"), chess.Move.from_uci("a2a3")],
        )
    assert result.info["score"].white().score(mate_score=MATE) > 200
    board.push(result.move)
    assert not board.can_claim_draw()


def test_a_winning_engine_allows_no_fifty_move_draw(kosteniuk_casebase, tables_dir):
    # 99 half-moves without a capture or a pawn move: only a2-a3/a4 (or a mate) keeps the win.
    board = chess.Board("1r5k/8/8/8/8/8/P7/3Q2K1 w - - 99 80")
    with popen("--casebase", str(kosteniuk_casebase), "--mode", "guided") as engine:
        engine.configure({"Tables": str(tables_dir), "Tolerance": 1000, "Prior": "cases"})
        result = engine.play(board, chess.engine.Limit(nodes=20000), info=chess.engine.INFO_ALL)
    assert result.info["score"].white().score(mate_score=MATE) > 200
    board.push(result.move)
    assert not board.is_fifty_moves() or board.is_checkmate()


def test_a_damaged_table_is_reported_and_the_game_goes_on(kosteniuk_casebase, tmp_path):
    (tmp_path / "KRK.npz").write_bytes(b"not a table")
    board = chess.Board("8/8/8/4k3/8/8/8/R3K3 w - - 0 1")
    with popen("--casebase", str(kosteniuk_casebase), "--mode", "guided") as engine:
        engine.configure({"Tables": str(tmp_path)})
        with engine.analysis(board, chess.engine.Limit(nodes=2000)) as analysis:
            strings = " ".join(info.get("string", "") for info in analysis)
        move = engine.play(board, chess.engine.Limit(nodes=2000)).move
    assert "KRK.npz: cannot read the table" in strings and "make tables" in strings
    assert move in board.legal_moves and "tablebase:" not in strings
