"""The casebase file: a built casebase round-trips, and Casebase.load refuses bad files clearly."""

from __future__ import annotations

import json
import os
from pathlib import Path

import chess
import numpy as np
import pytest

from casebase.format import FORMAT_VERSION, Casebase, CasebaseError, decode_move, encode_move
from common.files import file_sha256


@pytest.fixture(scope="module")
def arrays(kosteniuk_casebase: Path) -> dict[str, np.ndarray]:
    """Every member of a good casebase file, by name."""
    with np.load(kosteniuk_casebase, allow_pickle=False) as npz:
        return {name: npz[name] for name in npz.files}


def rewrite(path: Path, arrays: dict[str, np.ndarray], **changes: np.ndarray | None) -> Path:
    """Save ``arrays`` with ``changes`` (None removes a member) as an .npz at ``path``."""
    members = {**arrays, **changes}
    np.savez(path, **{name: array for name, array in members.items() if array is not None})
    return path


def test_built_casebase_round_trips(kosteniuk_casebase, tmp_path):
    cb = Casebase.load(kosteniuk_casebase)
    assert isinstance(cb.boards, np.memmap)  # large arrays are mapped, not read
    assert len(cb) == cb.meta["counts"]["cases_white"] + cb.meta["counts"]["cases_black"]
    assert cb.num_games == cb.meta["counts"]["games_used"] == 121
    assert cb.expert == "Alexandra Kosteniuk" and cb.elo == 2290
    first = cb.source(0)
    assert (first.white, first.ply, first.game_index, first.source_file) == (
        "Kosteniuk, Alexandra",
        0,
        0,
        "kosteniuk-2200.pgn",
    )
    assert cb.board(0) == chess.Board(chess.STARTING_BOARD_FEN) and cb.move(0).uci() == "e2e4"
    copy = tmp_path / "copy.npz"
    Casebase.load(kosteniuk_casebase, mmap=False).save(copy)
    assert copy.read_bytes() == kosteniuk_casebase.read_bytes()


def test_saved_file_has_ordinary_permissions(kosteniuk_casebase):
    umask = os.umask(0o022)
    os.umask(umask)
    assert kosteniuk_casebase.stat().st_mode & 0o777 == 0o666 & ~umask


def test_every_case_is_a_legal_move_of_its_position(kosteniuk_casebase):
    cb = Casebase.load(kosteniuk_casebase)
    for i in range(0, len(cb), 7):
        board = cb.board(i)
        # Castling rights are not stored: check the move's shape for a castling king.
        if (
            board.piece_type_at(cb.move(i).from_square) == chess.KING
            and abs(cb.move(i).to_square - cb.move(i).from_square) == 2
        ):
            continue
        assert board.is_legal(cb.move(i)), (i, board.fen(), cb.move(i))


def test_missing_file(tmp_path):
    with pytest.raises(CasebaseError, match="no such casebase file"):
        Casebase.load(tmp_path / "none.npz")


def test_not_an_npz(tmp_path):
    path = tmp_path / "x.npz"
    path.write_text('[Event "a PGN, not a casebase"]\n')
    with pytest.raises(CasebaseError, match="not an .npz casebase"):
        Casebase.load(path)


def test_another_programs_npz(tmp_path, arrays):
    with pytest.raises(CasebaseError, match="another program's file"):
        Casebase.load(rewrite(tmp_path / "a.npz", {"weights": np.zeros(3)}))
    with pytest.raises(CasebaseError, match="another program's file"):
        Casebase.load(rewrite(tmp_path / "b.npz", arrays, format=np.array("something-else")))


def test_newer_format_version(tmp_path, arrays):
    path = rewrite(tmp_path / "new.npz", arrays, version=np.array(FORMAT_VERSION + 1))
    with pytest.raises(CasebaseError, match="newer than this engine reads"):
        Casebase.load(path)


@pytest.mark.parametrize("fraction", [0.02, 0.3, 0.5, 0.9, 0.999])
def test_truncated_file(tmp_path, kosteniuk_casebase, fraction):
    data = kosteniuk_casebase.read_bytes()
    path = tmp_path / "cut.npz"
    path.write_bytes(data[: int(len(data) * fraction)])
    with pytest.raises(CasebaseError, match="cut.npz: "):
        Casebase.load(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: {"ply": a["ply"][:-1]}, "array 'ply' has shape"),
        (lambda a: {"boards": a["boards"].astype(np.int64)}, "array 'boards' has dtype int64"),
        (lambda a: {"game": a["game"] + 1000}, "outside the games table"),
        (lambda a: {"to_square": a["to_square"] | 64}, "outside 0..63"),
        (lambda a: {"promotion": np.full_like(a["promotion"], 6)}, "promotion piece"),
        (lambda a: {"boards": a["boards"][:, [1, 0, 2, 3, 4, 5, 6, 7]]}, "colours inconsistent"),
        (lambda a: {"games_index": a["games_index"][:-1]}, "games column"),
        (lambda a: {"ply": None}, "missing array 'ply'"),
        (lambda a: {"meta": np.array("{not json")}, "not valid JSON"),
        (lambda a: {"meta": np.array(json.dumps({"expert": "x"}))}, "metadata has no 'counts'"),
    ],
    ids=[
        "short",
        "dtype",
        "game-row",
        "square",
        "promotion",
        "colours",
        "games-table",
        "missing",
        "json",
        "meta-keys",
    ],
)
def test_inconsistent_arrays(tmp_path, arrays, change, message):
    path = rewrite(tmp_path / "bad.npz", arrays, **change(arrays))
    with pytest.raises(CasebaseError, match=message):
        Casebase.load(path)


def test_the_move_codec_round_trips_every_kind_of_move():
    board = chess.Board("r3k2r/1P6/8/3pP3/8/8/6p1/R3K2R w KQkq d6 0 1")
    moves = list(board.legal_moves) + list(board.mirror().legal_moves)
    assert any(m.promotion for m in moves) and any(board.is_castling(m) for m in board.legal_moves)
    assert all(decode_move(encode_move(m)) == m and 0 < encode_move(m) < 2**16 for m in moves)


def profile_arrays(cb: Casebase, rows: list[int], played: list[int]) -> dict[str, np.ndarray]:
    """Two judged moves a position (scored 30 and 10), the case's own move in its ``played`` column
    and another one (a1a2, or a2a3) in the other."""
    moves = []
    for row, column in zip(rows, played, strict=True):
        own = (
            encode_move(cb.move(row))
            if 0 <= row < len(cb)
            else encode_move(chess.Move.from_uci("e2e4"))
        )
        other = next(
            encode_move(chess.Move.from_uci(m))
            for m in ("a1a2", "a2a3")
            if encode_move(chess.Move.from_uci(m)) != own
        )
        moves.append([own, other] if column == 0 else [other, own])
    return {
        "profile_row": np.array(rows, np.int32),
        "profile_moves": np.array(moves, np.uint16),
        "profile_scores": np.array([[30, 10]] * len(rows), np.int32),
        "profile_played": np.array(played, np.int16),
    }


def description(positions: int) -> dict[str, object]:
    """What ``meta["profile"]`` says of a profile, as :mod:`profiling` stores it (the parts
    read)."""
    return {
        "positions": positions,
        "judge": "test",
        "depth": 1,
        "fit": {
            "sensitivity": 0.05,
            "consistency": 0.5,
            "expected_loss": 0.02,
            "mean_log_likelihood": -1.2,
        },
        "rating": {"implied": 2400.0, "low": 2100.0, "high": 2700.0},
        "all": {"positions": positions, "mean_cp_loss": 10.0, "mistakes": 0.0, "first_choice": 0.5},
    }


def test_a_profile_is_stored_with_its_description_and_checked(kosteniuk_casebase, tmp_path):
    cb = Casebase.load(kosteniuk_casebase)
    with_profile = cb.with_profile(description(2), profile_arrays(cb, [0, 5], [0, 1]))
    with_profile.save(tmp_path / "p.npz")
    assert with_profile.save_profile(None) == tmp_path / "p.profile.npz"
    with np.load(tmp_path / "p.npz") as cases:  # the casebase holds cases only
        assert not [name for name in cases.files if "profile" in name] and "profile" not in str(
            cases["meta"]
        )
    loaded = Casebase.load(tmp_path / "p.npz")
    made = loaded.meta["profile"].pop("provenance")
    assert (
        loaded.meta["profile"] == description(2)
        and loaded.profile is not None
        and loaded.profile_problem is None
    )
    assert made["casebase"] == "p.npz" and made["casebase_sha256"] == file_sha256(
        tmp_path / "p.npz"
    )
    assert made["judge"] == "test" and made["depth"] == 1 and made["model_sha256"] is None
    assert made["project"].startswith("cbr-chess ") and made["made"].startswith("20")
    assert not loaded.profile_inside and loaded.profile_notice is None
    assert loaded.profile["profile_row"].tolist() == [0, 5] and len(loaded) == len(cb)
    good = profile_arrays(cb, [0, 5], [0, 1])
    moves = good["profile_moves"]
    for arrays, meta, message in (
        (profile_arrays(cb, [0, len(cb)], [0, 0]), description(2), "names a case outside"),
        (
            {**good, "profile_played": np.array([0, 2], np.int16)},
            description(2),
            "played move is not among its judged",
        ),
        (
            {**good, "profile_played": np.array([1, 1], np.int16)},
            description(2),
            "is not case 0's move",
        ),
        ({**good, "profile_played": np.array([0], np.int64)}, description(2), "dtype int64"),
        (
            {**good, "profile_moves": np.array([[0, moves[0, 1]], moves[1]], np.uint16)},
            description(2),
            "no judged move, or a gap",
        ),
        (
            {**good, "profile_moves": np.array([moves[0], [moves[1, 0], 12 | 12 << 6]], np.uint16)},
            description(2),
            "judged move 780 .* is not a move: from 12 to 12",
        ),
        (
            {**good, "profile_scores": np.array([[30, 10], [10, 30]], np.int32)},
            description(2),
            "not best first",
        ),
        (
            {**good, "profile_scores": np.array([[30, 10], [100_001, 10]], np.int32)},
            description(2),
            "score 100001 lies beyond the mate score",
        ),
        (
            {**good, "profile_scores": np.array([[5, 5], [-3, -3]], np.int32)},
            description(2),
            "nothing to fit",
        ),
        (good, description(3), "says 3 positions, its arrays hold 2"),
        (good, {**description(2), "rating": [1]}, "'rating' is a list, not a JSON object"),
        (good, {**description(2), "all": {}}, "all mean_cp_loss is None, not a finite number"),
        (
            good,
            {**description(2), "fit": {**description(2)["fit"], "consistency": -1.0}},
            "fit is not usable",
        ),
        (good, "garbage", "description in the metadata is a str"),
    ):
        with pytest.raises(CasebaseError, match=message):
            cb.with_profile(meta, arrays)


def test_the_profiles_score_bound_is_the_engines_mate_score():
    from casebase.profile_checks import SCORE_BOUND
    from engine.search.scores import MATE

    # the casebase cannot import the engine's: the two are kept equal here
    assert SCORE_BOUND == MATE
