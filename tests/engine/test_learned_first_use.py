"""The learned similarity's embeddings made on their first use (issue #68): pure mode's ``Similarity
learned`` on a casebase without ``X.embed.npz`` says it makes them in the background, plays the
shallow similarity meanwhile, then the learned one once they are there; a second maker leaves them
to the one at work; a job that fails is said once; ``quit`` does not wait for the job. (Damaged
embeddings are refused, never made again: tests/engine/test_learned.py.)"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import chess
import chess.engine
import pytest
from uci_helpers import popen

from casebase.__main__ import main as casebase_main
from casebase.builder import build
from casebase.embeddings import embeddings_path, lock_path, read_embeddings
from casebase.format import Casebase
from casebase.games import GameFilter
from common.locks import tried_lock
from engine.agents.embedding import BackgroundEmbeddings
from engine.agents.modes import option_defaults
from engine.agents.record import Recalled
from engine.style.loader import default_model
from engine.uci.resources import AgentBuilder

NETWORK = default_model()[0]
#: How long a job is waited for at most: some 500 cases embed in seconds; a loaded machine may take
#: many times that.
PATIENCE = 300.0
MAKING = "making the embeddings of bare.npz for the learned similarity in the background"
LEARNED = "(learned similarity) from "


@pytest.fixture(scope="module")
def twelve_games(
    tmp_path_factory: pytest.TempPathFactory, data_dir: Path, expert_names: dict[str, str]
) -> Path:
    """A casebase of Kosteniuk's first 12 games (some 500 cases), no embeddings beside it."""
    path = tmp_path_factory.mktemp("first-use") / "kosteniuk-12.npz"
    build(
        [data_dir / "experts" / "kosteniuk-2200.pgn"],
        GameFilter(expert_names["kosteniuk-2200"], max_games=12),
        workers=1,
        progress=False,
    ).save(path)
    return path


@pytest.fixture
def bare(twelve_games: Path, tmp_path: Path) -> Path:
    """A copy of it of this test's own, without embeddings."""
    path = tmp_path / "bare.npz"
    shutil.copy(twelve_games, path)
    return path


def said_at_a_move(engine: chess.engine.SimpleEngine, board: chess.Board) -> str:
    """The engine's ``info string`` lines while it chooses a move on ``board``, which must be
    legal."""
    with engine.analysis(board, chess.engine.Limit(depth=1)) as analysis:
        lines = [info["string"] for info in analysis if "string" in info]
    assert analysis.wait().move in board.legal_moves
    return "\n".join(lines)


def test_similarity_learned_makes_missing_embeddings_in_the_background_and_plays_them_once_there(
    bare,
):
    """The first move says the embeddings are being made and plays the shallow similarity; every
    move is legal while they are made; the first move after them says so, once, and plays the
    learned similarity."""
    board = chess.Board()
    board.push_uci("e2e4")
    with popen("--casebase", str(bare), "--mode", "pure", "--seed", "3") as engine:
        engine.configure({"Similarity": "learned"})
        first = said_at_a_move(engine, board)
        assert (
            first.count(MAKING) == 1
            and "the shallow similarity plays until they are there" in first
        ), first
        assert LEARNED not in first and "cannot play" not in first
        meanwhile, deadline = [first], time.monotonic() + PATIENCE
        while (
            "are made" not in meanwhile[-1]
            and "failed" not in meanwhile[-1]
            and time.monotonic() < deadline
        ):
            time.sleep(0.2)
            # the shallow similarity's moves, legal, meanwhile
            meanwhile.append(said_at_a_move(engine, board))
        there = meanwhile[-1]
        assert "the embeddings of bare.npz are made" in there and LEARNED in there, there
        assert all(LEARNED not in said and MAKING not in said for said in meanwhile[1:-1])
        again = said_at_a_move(engine, board)
        assert LEARNED in again and "are made" not in again and MAKING not in again
    casebase = Casebase.load(bare)
    assert read_embeddings(casebase, NETWORK).vectors.shape == (len(casebase), 256)


def test_quit_leaves_the_job_to_finish_and_the_next_session_plays_them(bare):
    """``quit`` does not wait for the job, which finishes without the engine; the next session plays
    the learned similarity from its first move, making nothing."""
    board = chess.Board()
    with popen("--casebase", str(bare), "--mode", "pure") as engine:
        engine.configure({"Similarity": "learned"})
        assert MAKING in said_at_a_move(engine, board)
        # sends quit, and waits for the engine to end (closing the client alone would kill it)
        engine.quit()
    assert not embeddings_path(bare).exists()  # the engine has quit, the job goes on
    deadline = time.monotonic() + PATIENCE
    while not embeddings_path(bare).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    with popen("--casebase", str(bare), "--mode", "pure") as engine:
        engine.configure({"Similarity": "learned"})
        said = said_at_a_move(engine, board)
    assert LEARNED in said and "making" not in said and "are made" not in said, said


def agent_news(builder: AgentBuilder, values: dict, until: str) -> list[str]:
    """The builder's news over agents made until a line holds ``until`` (or :data:`PATIENCE`
    passed)."""
    news, deadline = [], time.monotonic() + PATIENCE
    while not any(until in line for line in news) and time.monotonic() < deadline:
        builder.agent(values)
        news += builder.news
        builder.news.clear()
        time.sleep(0.1)
    return news


def test_a_job_that_fails_is_said_once_and_the_shallow_similarity_plays_on(
    bare, tmp_path, monkeypatch
):
    bad = tmp_path / "bad.pb.gz"
    bad.write_bytes(b"not a network")
    monkeypatch.setattr("engine.style.loader.default_model", lambda: (bad, "a damaged network"))
    values = option_defaults() | {
        "Casebase": str(bare),
        "Mode": "pure",
        "Similarity": "learned",
        "Tables": "",
    }
    builder = AgentBuilder()
    news = agent_news(builder, values, "failed")
    assert sum(MAKING in line for line in news) == 1
    failed = [line for line in news if "failed" in line]
    assert (
        len(failed) == 1
        and "cannot embed with" in failed[0]
        and "the shallow similarity plays on" in failed[0]
    )
    # another agent: the job is not tried again this session
    agent = builder.agent(values | {"DistanceWeight": 37})
    said = "\n".join(builder.news)
    assert (
        "failed" not in said and MAKING not in said and "the learned similarity cannot play" in said
    ), said
    assert agent.agent.learned is None and not embeddings_path(bare).exists()
    assert not isinstance(agent.choose(chess.Board()).record.detail, Recalled)


def test_a_second_maker_leaves_the_embeddings_to_the_one_at_work(bare):
    """Where another process holds the lock (two engines started together), the job makes nothing
    and the engine says another process is making them; once the lock is free, a job makes them."""
    casebase = Casebase.load(bare)
    jobs = BackgroundEmbeddings()
    with tried_lock(lock_path(bare)) as held:
        assert held
        making, said = jobs.start(casebase, NETWORK)
        assert making and said is not None and MAKING in said
        news, deadline = [], time.monotonic() + PATIENCE
        while not news and time.monotonic() < deadline:
            news = jobs.news()
            time.sleep(0.1)
    assert news == [
        "another process is making the embeddings of bare.npz; the shallow similarity plays until"
        " they are there"
    ]
    assert not embeddings_path(bare).exists() and jobs.news() == []
    again = BackgroundEmbeddings()
    assert again.start(casebase, NETWORK)[0]
    news, deadline = [], time.monotonic() + PATIENCE
    while not news and time.monotonic() < deadline:
        news = again.news()
        time.sleep(0.1)
    assert len(news) == 1 and "the embeddings of bare.npz are made" in news[0], news
    assert read_embeddings(casebase, NETWORK).vectors.shape == (len(casebase), 256)


def test_embed_missing_replaces_no_file_and_leaves_them_to_another_process(bare, capsys):
    """``casebase embed --missing``, the engine's job: a file there (a damaged one too) is kept as
    it is, and where another process holds the lock nothing is made."""
    embeddings_path(bare).write_bytes(b"damaged")
    command = ["embed", str(bare), "--network", str(NETWORK), "--missing"]
    assert casebase_main(command) == 0
    assert "is there already: kept, nothing made" in capsys.readouterr().out
    assert embeddings_path(bare).read_bytes() == b"damaged"
    embeddings_path(bare).unlink()
    with tried_lock(lock_path(bare)) as held:
        assert held and casebase_main(command) == 0
    assert "another process is making the cases' embeddings" in capsys.readouterr().out
    assert not embeddings_path(bare).exists()
