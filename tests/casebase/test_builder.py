"""The casebase builder (cbr-agent.md §2): cases, counts, selection, bad input, determinism (the
games chosen by rating, number, player and date: test_builder_games.py)."""

from __future__ import annotations

import gzip
import os
import subprocess
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest
from casebase_helpers import CARLSEN, cases
from pgn_helpers import game, pgn

from casebase.builder import build
from casebase.games import BuildError, GameFilter
from casebase.sources import read_source


def test_one_case_per_expert_move_in_file_order_with_duplicates(tmp_path):
    path = pgn(
        tmp_path,
        game("Carlsen,M", "Anand,V", "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O *"),
        game("Kramnik,V", "Aronian,L", "1. d4 d5 *"),
        game("Anand,V", "Carlsen, Magnus", "1. e4 e5 2. Nf3 Nc6 *"),
        game("Carlsen,M", "Anand,V", "1. e4 e5 *"),
    )
    cb = build([path], CARLSEN, workers=1)
    start = chess.STARTING_BOARD_FEN
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
    assert [(m, g, p) for _, m, g, p in cases(cb)] == [
        ("e2e4", 0, 0),
        ("g1f3", 0, 2),
        ("f1c4", 0, 4),
        ("e1g1", 0, 6),  # castling as king move
        ("e7e5", 1, 1),
        ("b8c6", 1, 3),
        ("e2e4", 2, 0),
    ]
    assert cases(cb)[0][0] == start and cases(cb)[4][0] == after_e4
    assert cases(cb)[0][:2] == cases(cb)[6][:2]  # identical cases are kept
    assert cb.turn.tolist() == [True] * 4 + [False] * 2 + [True]
    assert cb.games["index"].tolist() == [0, 2, 3]
    assert cb.games["expert_white"].tolist() == [True, False, True]
    assert cb.games["black"].tolist() == ["Anand,V", "Carlsen, Magnus", "Anand,V"]
    assert cb.meta["spellings"] == {"Carlsen,M": 2, "Carlsen, Magnus": 1}
    assert cb.meta["counts"]["games_without_expert"] == 1
    src = cb.source(4)
    assert (src.white, src.black, src.event, src.date, src.ply) == (
        "Anand,V",
        "Carlsen, Magnus",
        "Test",
        "2020.01.01",
        1,
    )


def test_variations_comments_and_nags_are_ignored(tmp_path):
    plain = pgn(tmp_path, game("Carlsen,M", "X", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *"), name="a.pgn")
    noisy = pgn(
        tmp_path,
        game(
            "Carlsen,M",
            "X",
            "1. e4 {best by test} e5 (1... c5 2. Nf3 (2. c3)"
            " d6) 2. Nf3 $1 Nc6 !? 3. Bb5 {a\n(two-line) comment} a6 *",
        ),
        name="b.pgn",
    )
    assert cases(build([plain], CARLSEN, workers=1)) == cases(build([noisy], CARLSEN, workers=1))


def test_fen_setup_game_starts_from_the_given_position(tmp_path):
    fen = "4k3/8/8/8/8/8/4P3/4K2R b K - 0 1"
    path = pgn(
        tmp_path, game("X", "Carlsen,M", "1... Kd7 2. O-O Kc6 3. e4 Kd6 *", SetUp="1", FEN=fen)
    )
    cb = build([path], CARLSEN, workers=1)
    assert [(m, p) for _, m, _, p in cases(cb)] == [("e8d7", 0), ("d7c6", 2), ("c6d6", 4)]
    assert cb.board(0).board_fen() == chess.Board(fen).board_fen()
    white_cb = build([path], GameFilter("X", exact_name=True), workers=1)
    assert [m for _, m, _, _ in cases(white_cb)] == ["e1g1", "e2e4"]


def test_castling_is_stored_as_the_kings_two_square_step_even_in_a_chess960_setup(tmp_path):
    # Black's castling right on b8 makes python-chess read this FEN as Chess960, where
    # castling is written king-takes-rook (e1h1); a case stores the king's step e1g1.
    fen = "1r2k3/8/8/8/8/8/8/R3K2R w KQb - 0 1"
    path = pgn(tmp_path, game("Carlsen,M", "X", "1. O-O Kd8 2. Rfe1 *", SetUp="1", FEN=fen))
    cb = build([path], CARLSEN, workers=1)
    assert [m for _, m, _, _ in cases(cb)] == ["e1g1", "f1e1"]
    assert cb.board(0).is_legal(chess.Move.from_uci("e1g1")) is False  # a case board has no rights
    assert chess.Board(fen).is_castling(cb.move(0))


def test_a_latin1_file_keeps_its_accented_names(tmp_path):
    text = game("Kosténiuk, Alexandra", "Müller, Jörg", "1. e4 e5 *")
    latin = tmp_path / "latin.pgn"
    latin.write_bytes(text.encode("latin-1"))
    utf8 = pgn(tmp_path, text, name="utf8.pgn")
    for name in ("Kosténiuk", "Alexandra Kosténiuk"):
        from_latin = build([latin], GameFilter(name), workers=1)
        assert cases(from_latin) == cases(build([utf8], GameFilter(name), workers=1))
        assert from_latin.games["white"].tolist() == ["Kosténiuk, Alexandra"]
        assert from_latin.games["black"].tolist() == ["Müller, Jörg"]


def test_a_file_mixing_utf8_and_latin1_games_reads_both(tmp_path):
    path = tmp_path / "mixed.pgn"
    path.write_bytes(
        game("Kosténiuk, A", "X", "1. e4 *").encode("utf-8")
        + game("Kosténiuk, A", "Y", "1. d4 *").encode("latin-1")
    )
    cb = build([path], GameFilter("Kosténiuk"), workers=1)
    assert cb.games["black"].tolist() == ["X", "Y"] and cb.meta["spellings"] == {"Kosténiuk, A": 2}


def test_a_truncated_last_game_is_used_and_counted_as_damaged(tmp_path):
    whole = game("Carlsen,M", "X", "1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0")
    path = tmp_path / "cut.pgn"
    path.write_text(whole + whole.split(" Nc6")[0], encoding="utf-8")  # the file ends "2. Nf3"
    cb = build([path], CARLSEN, workers=1)
    assert [m for _, m, _, _ in cases(cb)] == ["e2e4", "g1f3", "f1b5", "e2e4", "g1f3"]
    assert cb.meta["counts"]["games_damaged"] == 1 and cb.meta["counts"]["games_used"] == 2


def test_a_build_removes_temporary_files_of_killed_builds_of_its_output(tmp_path, data_dir):
    out = tmp_path / "k.npz"
    dead = _dead_pid()
    stale = [tmp_path / f".k.npz.{dead}.abc123.tmp", tmp_path / ".k.npz.xyz789.tmp"]
    alive = tmp_path / f".k.npz.{os.getppid()}.def456.tmp"  # a writer still at work
    other = tmp_path / f".other.npz.{dead}.abc123.tmp"
    for file in (*stale, alive, other):
        file.write_bytes(b"partial")
    build([data_dir / "experts" / "kosteniuk-2200.pgn"], GameFilter("Kosteniuk"), workers=1).save(
        out
    )
    assert out.exists() and not any(f.exists() for f in stale)
    assert alive.exists() and other.exists()


def _dead_pid() -> int:
    """The id of a process that has ended."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.mark.parametrize("bad", ["Kxe4", "Zz9", "e9"])
def test_bad_move_keeps_earlier_cases_and_counts_game_as_damaged(tmp_path, bad):
    path = pgn(
        tmp_path,
        game("X", "Carlsen,M", f"1. e4 e5 2. Nf3 Ke7 3. Qh5 {bad} 4. d3 Nc6 *"),
        game("Carlsen,M", "X", "1. d4 *"),
    )
    cb = build([path], CARLSEN, workers=1)
    assert [m for _, m, _, _ in cases(cb)] == ["e7e5", "e8e7", "d2d4"]
    assert cb.meta["counts"]["games_damaged"] == 1
    assert cb.meta["counts"]["games_used"] == 2


def test_game_with_both_names_matching_is_skipped_and_counted(tmp_path):
    path = pgn(
        tmp_path,
        game("Carlsen,M", "Carlsen, Magnus", "1. e4 e5 *"),
        game("Carlsen,M", "X", "1. c4 *"),
    )
    cb = build([path], CARLSEN, workers=1)
    assert [m for _, m, _, _ in cases(cb)] == ["c2c4"]
    assert cb.meta["counts"]["games_both_match"] == 1


def test_non_standard_variant_is_skipped_and_counted(tmp_path):
    path = pgn(
        tmp_path,
        game(
            "Carlsen,M",
            "X",
            "1. g3 *",
            Variant="Chess960",
            SetUp="1",
            FEN="bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ),
        game("Carlsen,M", "X", "1. e4 *", Variant="Atomic"),
        game("Carlsen,M", "X", "1. d4 *", Variant="Standard"),
        game(
            "Carlsen,M", "X", "1. c4 *", Variant="From Position", SetUp="1", FEN=chess.STARTING_FEN
        ),
    )
    cb = build([path], CARLSEN, workers=1)
    assert [m for _, m, _, _ in cases(cb)] == ["d2d4", "c2c4"]
    assert cb.meta["counts"]["games_variant_skipped"] == 2


def test_gzip_input_gives_the_same_cases(tmp_path, data_dir, expert_names):
    source = data_dir / "experts" / "kosteniuk-2200.pgn"
    packed = tmp_path / "k.pgn.gz"
    packed.write_bytes(gzip.compress(source.read_bytes()))
    selection = GameFilter(expert_names["kosteniuk-2200"])
    a, b = build([source], selection, workers=1), build([packed], selection, workers=1)
    assert np.array_equal(a.boards, b.boards) and np.array_equal(a.from_square, b.from_square)
    assert b.meta["sources"][0]["name"] == "k.pgn.gz"


def test_windows_line_endings_give_the_same_cases(tmp_path, data_dir):
    source = data_dir / "experts" / "kosteniuk-2200.pgn"
    crlf = tmp_path / "crlf.pgn"
    crlf.write_bytes(source.read_bytes().replace(b"\n", b"\r\n"))
    a, b = (build([path], GameFilter("Kosteniuk"), workers=2) for path in (source, crlf))
    assert (
        np.array_equal(a.boards, b.boards)
        and a.games["result"].tolist() == b.games["result"].tolist()
    )


def test_several_inputs_keep_their_own_game_indices(tmp_path):
    a = pgn(tmp_path, game("X", "Y", "1. e4 *"), game("Carlsen,M", "X", "1. e4 *"), name="a.pgn")
    b = pgn(tmp_path, game("Carlsen,M", "X", "1. d4 *"), name="b.pgn")
    cb = build([a, b], CARLSEN, workers=1)
    assert cb.games["index"].tolist() == [1, 0]
    assert cb.games["source"].tolist() == [0, 1]
    assert [s["name"] for s in cb.meta["sources"]] == ["a.pgn", "b.pgn"]
    assert cb.source(1).source_file == "b.pgn"


def test_progress_bar_counts_games_on_request(tmp_path, capsys):
    path = pgn(tmp_path, game("Carlsen,M", "X", "1. e4 *"), game("X", "Y", "1. d4 *"))
    build([path], CARLSEN, workers=1, progress=True)
    err = capsys.readouterr().err
    assert "reading PGN" in err and "/2 [" in err and "games/s" in err
    build([path], CARLSEN, workers=1, progress=False)
    assert capsys.readouterr().err == ""


# -- bad input ------------------------------------------------------------------------


def test_missing_input_file(tmp_path):
    with pytest.raises(BuildError, match="no such file"):
        build([tmp_path / "nothing.pgn"], CARLSEN)


def test_directory_or_unreadable_input(tmp_path, monkeypatch):
    with pytest.raises(BuildError, match="is a directory"):
        build([tmp_path], CARLSEN)
    locked = pgn(tmp_path, game("Carlsen,M", "X", "1. e4 *"))

    def denied(self):
        raise PermissionError(13, "Permission denied", str(self))

    # chmod cannot lock out root, who runs the tests in CI containers.
    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(BuildError, match="cannot read .Permission denied"):
        build([locked], CARLSEN)


@pytest.mark.parametrize(
    "content",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR",
        b"hello world\nno games\n",
        b"",
        b"\x1f\x8b\x08 not really gzip",
    ],
)
def test_a_file_that_is_not_pgn(tmp_path, content):
    path = tmp_path / "x.pgn"
    path.write_bytes(content)
    with pytest.raises(BuildError, match="not a PGN file|binary data|not gzip"):
        read_source(path)


def test_no_matching_name_lists_the_closest_names(tmp_path):
    path = pgn(
        tmp_path, game("Carlsen,M", "Karjakin,S", "1. e4 *"), game("Caruana,F", "X", "1. d4 *")
    )
    with pytest.raises(BuildError) as error:
        build([path], GameFilter("Magnus Karlsen"), workers=1)
    message = str(error.value)
    assert "no game in in.pgn has a player matching 'Magnus Karlsen'" in message
    assert message.index("Carlsen,M (1 games)") < message.index("Caruana,F")


def test_empty_result_is_an_error(tmp_path):
    path = pgn(
        tmp_path, game("Carlsen,M", "X", "1. e4 *", WhiteElo="2800"), game("X", "Carlsen,M", "*")
    )
    with pytest.raises(BuildError, match="no cases left for 'Magnus Carlsen'.*elo filtered: 2"):
        build([path], GameFilter("Magnus Carlsen", max_elo=2700), workers=1)
    with pytest.raises(BuildError, match="no cases left"):
        build([pgn(tmp_path, game("X", "Carlsen,M", "1. e4 *"), name="b.pgn")], CARLSEN, workers=1)


def test_bad_options_are_refused():
    for kwargs in (
        {"exclude_latest": 1.0},
        {"max_games": 0},
        {"min_elo": 2800, "max_elo": 2700},
        {"player": " "},
    ):
        with pytest.raises(BuildError):
            GameFilter(**{"player": "X", **kwargs})


def test_failing_save_leaves_no_partial_file(tmp_path, monkeypatch, data_dir):
    cb = build([data_dir / "experts" / "kosteniuk-2200.pgn"], GameFilter("Kosteniuk"), workers=1)
    out = tmp_path / "out.npz"
    out.write_bytes(b"previous")
    calls = []

    def failing_write(member, array, **kwargs):
        calls.append(array)
        if len(calls) == 5:
            member.write(b"partial")
            raise OSError("disk full")
        return write_array(member, array, **kwargs)

    write_array = np.lib.format.write_array
    monkeypatch.setattr(np.lib.format, "write_array", failing_write)
    with pytest.raises(OSError, match="disk full"):
        cb.save(out)
    assert out.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["out.npz"]
