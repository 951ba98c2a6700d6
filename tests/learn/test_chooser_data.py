"""The chooser's records (issue #40): which positions of a PGN are drawn, and what is recorded of
each."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import chess
import chess.pgn
import pytest
from judge_helpers import scripted

from casebase.names import NameMatcher
from common.journal import Journal, JournalError
from learn.chooser.data import JOURNAL, DataError, Recorder, Settings, header, main, record
from learn.chooser.positions import Filter, open_pgn, sample, scan

STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"


def first_games(source: Path, out: Path, count: int) -> Path:
    """The first ``count`` games of ``source`` as a PGN file of their own."""
    with open_pgn(source) as f:
        games = [chess.pgn.read_game(f) for _ in range(count)]
    out.write_text("\n\n".join(str(game) for game in games) + "\n", encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def pgn(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve of Kosteniuk's games."""
    return first_games(
        data_dir / "experts" / "kosteniuk-2200.pgn", tmp_path_factory.mktemp("pgn") / "k12.pgn", 12
    )


def games_of(path: Path) -> list[chess.pgn.Game]:
    with open_pgn(path) as f:
        return list(iter(lambda: chess.pgn.read_game(f), None))


def replayed(
    games: list[chess.pgn.Game], key: str
) -> tuple[chess.Board, chess.Move, chess.Move | None]:
    """The board before the move of ``key``, that move, and the one before it, replayed from the
    game."""
    _, index, ply = key.split("/")
    moves = list(games[int(index)].mainline_moves())
    board = games[int(index)].board()
    for move in moves[: int(ply)]:
        board.push(move)
    return board, moves[int(ply)], moves[int(ply) - 1] if int(ply) else None


def test_the_sample_is_deterministic_and_a_larger_one_goes_on_along_the_same_order(pgn):
    _, small = sample([pgn], Filter(), 8, seed=3)
    _, again = sample([pgn], Filter(), 8, seed=3)
    # more than the 12 games: second positions of games too
    _, large = sample([pgn], Filter(), 40, seed=3)
    assert small.positions == again.positions
    assert large.positions[:8] == small.positions
    assert len(large.positions) == len({p.key for p in large.positions}) == 40
    games = [p.key.split("/")[1] for p in large.positions]
    assert len(set(games[:12])) == 12  # one position of each game before a second of any
    _, other = sample([pgn], Filter(), 8, seed=4)
    assert other.positions != small.positions


def test_a_position_carries_its_games_history(pgn):
    """The agent that records a position sees the game's moves before it (an lc0 network's history
    planes)."""
    games = games_of(pgn)
    _, drawn = sample([pgn], Filter(), 20, seed=0)
    for position in drawn.positions:
        board, move, last = replayed(games, position.key)
        made = position.board()
        assert made.move_stack == board.move_stack and made.fen() == position.fen == board.fen()
        assert position.played == move.uci() and position.last == (last.uci() if last else None)


def test_player_and_exclude_choose_whose_moves_and_games(pgn):
    games = games_of(pgn)
    kosteniuk = NameMatcher("Alexandra Kosteniuk")
    _, drawn = sample([pgn], Filter(player="Alexandra Kosteniuk"), 30, seed=0)
    for position in drawn.positions:
        game = games[int(position.key.split("/")[1])]
        mover = (
            game.headers["White"]
            if chess.Board(position.fen).turn == chess.WHITE
            else game.headers["Black"]
        )
        assert kosteniuk(mover)
    opponent = next(
        name
        for name in (games[0].headers["White"], games[0].headers["Black"])
        if not kosteniuk(name)
    )
    theirs = {
        i for i, g in enumerate(games) if opponent in (g.headers["White"], g.headers["Black"])
    }
    _, everyone = sample([pgn], Filter(), 60, seed=0)
    assert theirs & {int(p.key.split("/")[1]) for p in everyone.positions}
    _, excluded = sample([pgn], Filter(exclude=(opponent,)), 60, seed=0)
    assert not theirs & {int(p.key.split("/")[1]) for p in excluded.positions}
    assert set(scan(pgn, Filter(exclude=(opponent,))).games) == set(range(12)) - theirs
    with pytest.raises(ValueError, match="no game of Nobody Known"):
        sample([pgn], Filter(player="Nobody Known"), 5, seed=0)


def test_a_damaged_game_is_passed_over_and_counted(pgn, tmp_path):
    text = pgn.read_text(encoding="utf-8")
    first = text.index("\n\n[Event")  # the first game's end
    # an illegal move in the first game
    bad = re.sub(r"(^|\s)12\. ", r"\g<1>12. Ke8 ", text[:first], count=1)
    assert bad != text[:first]
    damaged = tmp_path / "damaged.pgn"
    damaged.write_text(bad + text[first:], encoding="utf-8")
    sources, drawn = sample([damaged], Filter(), 200, seed=0)
    assert drawn.damaged == 1
    assert drawn.positions and all(p.key.split("/")[1] != "0" for p in drawn.positions)
    _, sound = sample([pgn], Filter(), 200, seed=0)
    assert sound.damaged == 0 and any(p.key.split("/")[1] == "0" for p in sound.positions)
    assert sources[0].games.keys() == set(range(12))


@pytest.fixture(scope="module")
def recorded(pgn, kosteniuk_casebase, tmp_path_factory):
    """Six positions recorded with the scripted judge, in one run."""
    folder = tmp_path_factory.mktemp("records")
    judge = scripted(folder)
    settings = Settings(judge, str(kosteniuk_casebase), seed=0)
    sources, drawn = sample([pgn], Filter(), 6, seed=0)
    journal = Journal(folder / "one.jsonl", header(settings, sources, None, "model"))
    return (
        settings,
        sources,
        drawn.positions,
        record(drawn.positions, journal, settings, progress=False),
        journal,
    )


@pytest.mark.slow
def test_a_record_says_what_the_engine_chose_among_before_the_move_played(recorded, pgn):
    _, _, positions, entries, journal = recorded
    games = games_of(pgn)
    assert journal.header["journal"] == JOURNAL and journal.header["judge"] == "Scripted"
    for position, entry in zip(positions, entries, strict=True):
        board, played, last = replayed(games, entry["key"])
        assert entry["fen"] == board.fen() == position.fen
        assert entry["played"] == played.uci() and entry["last"] == (last.uci() if last else None)
        moves = entry["moves"]
        assert (
            len(set(moves))
            == len(moves)
            == len(entry["scores"])
            == len(entry["prior"])
            == len(entry["votes"])
        )
        assert all(chess.Move.from_uci(m) in board.legal_moves for m in moves)
        assert [len(entry["shallow"][d]) for d in ("2", "6")] == [len(moves)] * 2
        index = entry["played_index"]
        assert (moves[index] == entry["played"]) if index >= 0 else entry["played"] not in moves
        if index >= 0:
            assert entry["played_score"] == entry["scores"][index]
    assert any(entry["played_index"] >= 0 for entry in entries)


@pytest.mark.slow
def test_a_killed_run_goes_on_to_the_same_records(recorded, tmp_path):
    settings, sources, positions, entries, journal = recorded
    cut = tmp_path / "cut.jsonl"
    lines = journal.path.read_text(encoding="utf-8").splitlines(keepends=True)
    # killed while writing
    cut.write_text("".join(lines[:3]) + lines[3][: len(lines[3]) // 2], encoding="utf-8")
    resumed = Journal(cut, header(settings, sources, None, "model"))
    assert len(resumed.entries) == 2
    assert record(positions, resumed, settings, progress=False) == entries
    assert [
        json.loads(line) for line in cut.read_text(encoding="utf-8").splitlines()[-4:]
    ] == entries[2:]
    with pytest.raises(JournalError, match="other settings"):
        Journal(
            cut, header(Settings(settings.judge, settings.casebase, seed=5), sources, None, "model")
        )


@pytest.mark.slow
def test_two_workers_record_what_one_does(recorded, tmp_path):
    settings, sources, positions, entries, _ = recorded
    journal = Journal(tmp_path / "two.jsonl", header(settings, sources, None, "model"))
    assert record(positions[:4], journal, settings, workers=2, progress=False) == entries[:4]


@pytest.mark.slow
def test_the_position_own_game_is_held_out_where_the_casebase_has_it(
    kosteniuk_casebase, data_dir, tmp_path
):
    sources, drawn = sample([data_dir / "experts" / "kosteniuk-2200.pgn"], Filter(), 1, seed=0)
    recorder = Recorder(Settings(scripted(tmp_path), str(kosteniuk_casebase)))
    try:
        recorder(drawn.positions[0])
        assert recorder.agent.held_out is not None and len(recorder.agent.held_out) > 0
        # a game of another file
        recorder(dataclasses.replace(drawn.positions[0], key="0" * 16 + "/0/20"))
        assert recorder.agent.held_out is None
    finally:
        recorder.close()


@pytest.mark.slow
@pytest.mark.skipif(not Path(STOCKFISH).is_file(), reason="needs Debian's stockfish")
def test_the_command_records_positions_judged_by_stockfish(
    pgn, kosteniuk_casebase, tmp_path, capsys
):
    out = tmp_path / "records.jsonl"
    args = [
        str(pgn),
        "--out",
        str(out),
        "--positions",
        "2",
        "--judge",
        STOCKFISH,
        "--casebase",
        str(kosteniuk_casebase),
        "--exclude",
        "Nobody Known",
        "--quiet",
    ]
    assert main(args) == 0
    head, *entries = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert (
        head["judge"].startswith("Stockfish")
        and head["judge_depth"] == 10
        and head["shallow"] == [2, 6]
    )
    assert len(entries) == 2 and all(len(e["moves"]) >= 1 and e["played"] for e in entries)
    assert "2 positions recorded" in capsys.readouterr().err


@pytest.mark.slow
def test_a_judge_that_dies_in_one_of_two_workers_keeps_what_was_judged(recorded, tmp_path):
    settings, sources, positions, entries, _ = recorded
    dying = Settings(scripted(tmp_path, "--crash-after", "4"), settings.casebase, seed=0)
    journal = Journal(tmp_path / "dying.jsonl", header(settings, sources, None, "model"))
    with pytest.raises(
        DataError, match=r"judge .* failed .*; the \d+ positions judged are kept in .*dying.jsonl"
    ):
        record(positions, journal, dying, workers=2, progress=False)
    kept = dict(journal.entries)
    assert len(kept) < len(positions) and all(entry in entries for entry in kept.values())
    assert (
        record(
            positions,
            Journal(journal.path, header(settings, sources, None, "model")),
            settings,
            # the same command goes on to the same records
            workers=2,
            progress=False,
        )
        == entries
    )
