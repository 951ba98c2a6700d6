"""The learned similarity (issue #61): each case embedded by a network's trunk with its game's
history (``X.embed.npz``), the cases nearest a position by cosine, pure mode's option ``Similarity
learned`` voting with them, its explanation naming a real game and move of the casebase, and
embeddings of another casebase or network refused."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import chess
import numpy as np
import pytest
from lc0_helpers import random_network, special_games
from uci_helpers import bestmoves, converse, strings

from casebase.__main__ import main as casebase_main
from casebase.builder import build
from casebase.checks import CasebaseError
from casebase.embeddings import (
    all_games,
    case_boards,
    embeddings_path,
    make_embeddings,
    read_embeddings,
)
from casebase.format import Casebase
from casebase.games import GameFilter
from engine.agents.factory import Loader, make_agent
from engine.agents.modes import option_defaults
from engine.agents.record import Recalled
from engine.cbr.learned import LearnedIndex
from engine.search.limits import SearchLimits
from engine.style.loader import default_model
from lc0net.embedding import Embedder, quantized, unit
from lc0net.forward import Forward
from lc0net.planes import planes
from lc0net.weights import read_network, write_network

NETWORK = default_model()[0]


@pytest.fixture(scope="module")
def small(
    tmp_path_factory: pytest.TempPathFactory, data_dir: Path, expert_names: dict[str, str]
) -> Path:
    """A casebase of Kosteniuk's first 12 games with its embeddings by the default network beside
    it."""
    path = tmp_path_factory.mktemp("learned") / "kosteniuk-12.npz"
    casebase = build(
        [data_dir / "experts" / "kosteniuk-2200.pgn"],
        GameFilter(expert_names["kosteniuk-2200"], max_games=12),
        workers=1,
        progress=False,
    )
    casebase.save(path)
    make_embeddings(path, NETWORK, workers=2, progress=False)
    return path


def test_the_embedding_is_the_trunks_projected_to_unit_length():
    """The numpy trunk (channels last) is the torch reader's (channels first), and the embedding is
    that trunk projected by the seeded projection and scaled to unit length; int8 keeps its
    cosines."""
    torch = pytest.importorskip("torch")
    from learn.lc0.model import Lc0Net

    network = random_network(blocks=2, filters=16, seed=3)
    x = planes(special_games(1, seed=8)[::9])
    embedder = Embedder(Forward(network), dimensions=32)
    with torch.no_grad():
        # N x C x 8 x 8
        theirs = Lc0Net(network).double().trunk(torch.from_numpy(x).double()).numpy()
    # as the numpy trunk holds it: square, then channel
    flat = theirs.transpose(0, 2, 3, 1).reshape(len(x), -1)
    expected = flat @ embedder.projection.astype(np.float64)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    got = embedder.of_planes(x)
    np.testing.assert_allclose(got, expected, atol=1e-4)
    assert np.allclose(np.linalg.norm(got, axis=1), 1, atol=1e-5)
    assert np.abs(unit(quantized(got)) @ got.T - got @ got.T).max() < 0.01
    # the same seed: the same projection, on any machine
    again = Embedder(Forward(network), dimensions=32)
    assert np.array_equal(again.projection, embedder.projection)


def test_each_case_is_embedded_with_its_games_history(small):
    """A case's position is replayed from its game's start: the board has the game's moves behind
    it, the case's pieces and side to move, and the vectors are those of these boards."""
    casebase = Casebase.load(small)
    made = [(row, board) for row, board, _ in case_boards(casebase, all_games(casebase))]
    assert sorted(row for row, _ in made) == list(range(len(casebase)))
    for row, board in made:
        case = casebase.board(row)
        assert board.board_fen() == case.board_fen() and board.turn == case.turn
    assert sum(bool(board.move_stack) for _, board in made) > 0.9 * len(made)
    embeddings = read_embeddings(casebase, NETWORK)
    assert embeddings.meta["with_history"] == sum(
        replayed for _, _, replayed in case_boards(casebase, all_games(casebase))
    )
    rows = [row for row, _ in made[:20]]
    embedder = Embedder(Forward(read_network(NETWORK)))
    direct = quantized(embedder.of_boards([board for _, board in made[:20]]))
    assert np.abs(direct.astype(int) - embeddings.vectors[rows].astype(int)).max() <= 1


def test_the_nearest_case_of_a_cases_own_position_is_itself(small):
    casebase = Casebase.load(small)
    embedder = Embedder(Forward(read_network(NETWORK)))
    index = LearnedIndex(casebase, read_embeddings(casebase, NETWORK).vectors, embedder)
    made = {row: board for row, board, _ in case_boards(casebase, all_games(casebase))}
    for row in range(0, len(casebase), 97):
        rows, sims = index.nearest(made[row], 5)
        assert rows[0] == row and sims[0] > 0.99 and list(sims) == sorted(sims, reverse=True)
        assert all(casebase.turn[r] == casebase.turn[row] for r in rows)


def test_embeddings_of_another_casebase_or_network_are_refused(small, tmp_path):
    casebase = Casebase.load(small)
    tiny = tmp_path / "tiny.pb.gz"
    write_network(tiny, random_network())
    with pytest.raises(
        CasebaseError, match=r"made by another network \(master.pb.gz\) than tiny.pb.gz"
    ):
        read_embeddings(casebase, tiny)
    other = tmp_path / "other.npz"
    shutil.copy(small, other)
    with pytest.raises(
        CasebaseError,
        match=r"other.embed.npz: no embeddings of its cases \(python -m casebase embed",
    ):
        read_embeddings(Casebase.load(other))
    # the small one's embeddings, said to be another casebase's
    with np.load(embeddings_path(small)) as npz:
        stored = dict(npz)
    meta = json.loads(str(stored["meta"]))
    stored["meta"] = np.array(json.dumps(meta | {"casebase_sha256": "0" * 64}))
    np.savez(embeddings_path(other), **stored)
    with pytest.raises(CasebaseError, match="made for another casebase than other.npz"):
        read_embeddings(Casebase.load(other))
    # what it says of itself, damaged
    stored["meta"] = np.array(json.dumps(meta | {"dimensions": 255}))
    np.savez(embeddings_path(other), **stored)
    with pytest.raises(CasebaseError, match="does not fit its 256-number vectors"):
        read_embeddings(Casebase.load(other))
    stored["vectors"] = stored["vectors"][:-1]
    np.savez(embeddings_path(other), **stored)
    with pytest.raises(CasebaseError, match=r"\(\d+, 256\) int8 vectors for \d+ cases"):
        read_embeddings(Casebase.load(other))
    embeddings_path(other).write_bytes(b"damaged")
    with pytest.raises(CasebaseError, match="not a file of embeddings, or a damaged one"):
        read_embeddings(Casebase.load(other))


def game_with(casebase: Casebase, row: int) -> chess.Board:
    made = {row: board for row, board, _ in case_boards(casebase, all_games(casebase))}
    return made[row]


def test_pure_mode_learned_is_deterministic_under_a_seed_and_explains_a_real_case(small):
    """The learned pure agent plays the same move for the same seed, a case's own position its own
    move (the nearest, itself), and its record names the case's game and move as the casebase holds
    them."""
    casebase = Casebase.load(small)
    values = option_defaults() | {"Mode": "pure", "Similarity": "learned", "Seed": 5}
    agent = make_agent(values, casebase, Loader())
    boards = [game_with(casebase, row) for row in range(3, len(casebase), 61)]
    first = []
    for board in boards:
        agent.new_game(5)
        first.append(agent.choose(board))
    again = []
    for board in boards:
        agent.new_game(5)
        again.append(agent.choose(board).move)
    assert [d.move for d in first] == again
    for board, decision in zip(boards, first):
        detail = decision.record.detail
        assert isinstance(detail, Recalled) and decision.move in board.legal_moves
        source = casebase.source(detail.case.row)
        assert (detail.case.white, detail.case.black, detail.case.move) == (
            source.white,
            source.black,
            source.move_number,
        )
        assert detail.case_move.uci == casebase.move(detail.case.row).uci() and detail.alike > 99
    shallow = make_agent(values | {"Similarity": "shallow"}, casebase, Loader())
    assert not isinstance(shallow.choose(boards[0]).record.detail, Recalled)


def test_the_engine_plays_the_learned_similarity_and_says_why_it_cannot(small, tmp_path):
    """Through UCI: option Similarity learned plays with the cases' embeddings and says so in words;
    damaged embeddings are told, kept as they are (not made again:
    tests/engine/test_learned_first_use.py makes missing ones), and the shallow similarity plays."""
    casebase = Casebase.load(small)
    source = casebase.source(10)
    lines = converse(
        [
            "uci",
            f"setoption name Casebase value {small}",
            "setoption name Mode value pure",
            "setoption name Similarity value learned",
            "setoption name Seed value 3",
            "isready",
            "position startpos moves e2e4",
            "go depth 1",
        ]
    )
    said = strings(lines)
    assert "(learned similarity) from " in said and re.search(r"a position \d+ % alike", said), said
    assert "nearest of" in said and bestmoves(lines)
    assert any(
        f"{s.white} - {s.black}" in said for s in (casebase.source(r) for r in range(len(casebase)))
    ), source
    damaged = tmp_path / "damaged.npz"
    shutil.copy(small, damaged)
    embeddings_path(damaged).write_bytes(b"damaged")
    lines = converse(
        [
            "uci",
            f"setoption name Casebase value {damaged}",
            "setoption name Mode value pure",
            "setoption name Similarity value learned",
            "isready",
            "position startpos",
            "go depth 1",
        ]
    )
    said = strings(lines)
    assert (
        "the learned similarity cannot play:" in said
        and "not a file of embeddings, or a damaged one" in said
    )
    assert "making the embeddings" not in said and "(learned similarity)" not in said, said
    assert chess.Move.from_uci(bestmoves(lines)[0]) in chess.Board().legal_moves
    assert embeddings_path(damaged).read_bytes() == b"damaged"


def test_guided_mode_cites_the_nearest_precedent_that_played_the_move(small, tmp_path):
    """Where the casebase has embeddings, each guided move's record cites a precedent by the learned
    similarity: a real case of the casebase whose move, adapted to the board, is the move played (or
    the nearest, said so); without embeddings, none, and the move is the same."""
    from engine.cbr.adaptation import candidate_moves, voted_moves
    from engine.uci.explain import explain

    casebase = Casebase.load(small)
    values = option_defaults() | {"Mode": "guided", "Seed": 2}
    agent = make_agent(values, casebase, Loader())
    bare = tmp_path / "bare.npz"
    shutil.copy(small, bare)
    without = make_agent(values, Casebase.load(bare), Loader())
    boards = [game_with(casebase, row) for row in range(5, len(casebase), 83)]
    played = 0
    for board in boards:
        agent.new_game(2)
        without.new_game(2)
        decision = agent.choose(board, limits=SearchLimits(depth=1))
        cited = decision.record.detail.precedent
        assert cited is not None and 0 <= cited.case.row < len(casebase)
        source = casebase.source(cited.case.row)
        assert (cited.case.white, cited.case.event, cited.case.move) == (
            source.white,
            source.event,
            source.move_number,
        )
        spoken = voted_moves(
            casebase.move(cited.case.row),
            casebase.board(cited.case.row),
            board,
            agent.agent.weights,
            candidate_moves(board),
        )
        assert cited.played == (decision.move in spoken)
        played += cited.played
        words = explain(decision.record)
        said = f"precedent: a position {cited.alike:.0f} % alike (learned similarity) from"
        assert any(line.startswith(said) for line in words)
        other = without.choose(board, limits=SearchLimits(depth=1))
        assert other.record.detail.precedent is None and other.move == decision.move
    assert played >= len(boards) // 2


def test_build_embeds_when_asked_and_refuses_a_bad_network_before_building(
    tmp_path, data_dir, expert_names, capsys
):
    pgn, out = data_dir / "experts" / "kosteniuk-2200.pgn", tmp_path / "k.npz"
    command = [
        "build",
        str(pgn),
        "--player",
        expert_names["kosteniuk-2200"],
        "--max-games",
        "2",
        "--workers",
        "1",
        "--quiet",
    ]
    (tmp_path / "bad.pb.gz").write_bytes(b"not a network")
    assert casebase_main([*command, "-o", str(out), "--embed", str(tmp_path / "bad.pb.gz")]) == 1
    assert "cannot embed with" in capsys.readouterr().err
    assert not out.exists()  # refused before the build, not after it
    assert casebase_main([*command, "-o", str(out), "--embed", str(NETWORK)]) == 0
    casebase = Casebase.load(out)
    embeddings = read_embeddings(casebase, NETWORK)
    assert embeddings.vectors.shape == (len(casebase), 256)
