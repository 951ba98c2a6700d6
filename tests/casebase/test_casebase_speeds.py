"""Each game's speed in a casebase (issue #42): its TimeControl kept, old files read, ``casebase
info``'s counts, the builder's speed filter, and the error profile summarised by speed and
checked."""

from __future__ import annotations

import copy
import random
import zipfile
from pathlib import Path

import chess
import numpy as np
import pytest
from engine_helpers import guided_agent
from judge_helpers import scripted

import engine.strength.profile as profile_module
from casebase.__main__ import main as casebase_main
from casebase.builder import build
from casebase.checks import CasebaseError
from casebase.format import Casebase
from casebase.games import BuildError, GameFilter
from casebase.holdout import held_out_games
from casebase.info import describe, speed_counts
from casebase.npzfile import budget, read_member, write_npz
from casebase.profile_checks import check_profile
from engine.cbr.weights import WEIGHT_CONFIGS
from profiling.judging import Settings
from profiling.pipeline import make_profile

EXPERT = "Tester, Ann"
#: Per game: its tags beside the players' (a TimeControl says blitz or classical; an event's name
#: says rapid; nothing says), and the speed class they give.
KINDS = (
    ({"TimeControl": "180+2"}, "blitz"),
    ({"TimeControl": "5400+30"}, "classical"),
    ({"Event": "World Rapid"}, "rapid"),
    ({}, "unknown"),
)


def random_game(seed: int, plies: int = 40) -> str:
    """The movetext of a game of ``plies`` random legal moves (fewer where it ends first)."""
    rng, board = random.Random(seed), chess.Board()
    start = board.copy()
    while board.ply() < plies and not board.is_game_over():
        board.push(rng.choice(list(board.legal_moves)))
    return start.variation_san(board.move_stack) + " *"


def speed_pgn(tmp_path: Path, per_kind: tuple[int, ...] = (6, 3, 2, 2)) -> tuple[Path, list[str]]:
    """A PGN of the expert's games (White in each), ``per_kind`` of each of :data:`KINDS` in turn,
    and the speed class of each game in file order."""
    games, speeds = [], []
    for (tags, speed), count in zip(KINDS, per_kind, strict=True):
        for _ in range(count):
            headers = {
                "Event": "Club",
                "Site": "Here",
                "Date": f"2020.01.{len(games) + 1:02d}",
                "White": EXPERT,
                "Black": "Other, Bob",
                "Result": "*",
                **tags,
            }
            games.append(
                "".join(f'[{k} "{v}"]\n' for k, v in headers.items())
                + f"\n{random_game(len(games))}\n\n"
            )
            speeds.append(speed)
    path = tmp_path / "speeds.pgn"
    path.write_text("".join(games), encoding="utf-8")
    return path, speeds


def test_the_timecontrol_tag_is_kept_and_read_back_with_each_games_speed(tmp_path):
    pgn, speeds = speed_pgn(tmp_path)
    casebase = build([pgn], GameFilter(EXPERT), workers=1)
    assert casebase.games["timecontrol"].tolist() == ["180+2"] * 6 + ["5400+30"] * 3 + ["?"] * 4
    path = tmp_path / "a.npz"
    casebase.save(path)
    loaded = Casebase.load(path)
    assert loaded.games["timecontrol"].tolist() == casebase.games["timecontrol"].tolist()
    assert loaded.game_speeds().tolist() == speeds
    assert loaded.speeds().tolist() == [speeds[g] for g in loaded.game.tolist()]
    assert loaded.source(0).timecontrol == "180+2"
    again = tmp_path / "b.npz"
    build([pgn], GameFilter(EXPERT), workers=2).save(again)
    assert again.read_bytes() == path.read_bytes()


def test_a_casebase_of_lichess_games_says_so_for_the_clock_read_at_play_time(tmp_path):
    pgn, _ = speed_pgn(tmp_path)
    casebase = build([pgn], GameFilter(EXPERT), workers=1)
    assert not casebase.on_lichess()
    text = pgn.read_text(encoding="utf-8").replace(
        '[Site "Here"]', '[Site "https://lichess.org/abcd"]', 7
    )
    pgn.write_text(text.replace('[TimeControl "180+2"]', '[TimeControl "600+0"]'), encoding="utf-8")
    lichess = build([pgn], GameFilter(EXPERT), workers=1)
    # 10+0: Lichess's rapid
    assert lichess.on_lichess() and lichess.game_speeds().tolist()[:6] == ["rapid"] * 6
    # the engine reads its clock so
    assert guided_agent(lichess, WEIGHT_CONFIGS["balanced"], seed=1).speed.lichess
    assert not guided_agent(casebase, WEIGHT_CONFIGS["balanced"], seed=1).speed.lichess


def test_a_casebase_made_before_the_column_is_read_with_unknown_time_controls(tmp_path):
    pgn, _ = speed_pgn(tmp_path)
    new = tmp_path / "new.npz"
    build([pgn], GameFilter(EXPERT), workers=1).save(new)
    old = tmp_path / "old.npz"
    with zipfile.ZipFile(new) as zf:  # the file as the builder wrote it before the column
        write_npz(
            old,
            {
                info.filename.removesuffix(".npy"): read_member(
                    zf, info.filename, budget(new, 1 << 20, "test")
                )
                for info in zf.infolist()
                if info.filename != "games_timecontrol.npy"
            },
        )
    casebase = Casebase.load(old)
    assert casebase.games["timecontrol"].tolist() == ["?"] * 13
    # only the event's name says a speed now
    assert casebase.game_speeds().tolist() == ["unknown"] * 9 + ["rapid"] * 2 + ["unknown"] * 2
    assert "speeds:        bullet 0 games (0 cases), blitz 0 games (0 cases)" in describe(casebase)


def test_info_counts_the_games_and_cases_of_each_speed(tmp_path, capsys):
    pgn, speeds = speed_pgn(tmp_path)
    path = tmp_path / "a.npz"
    build([pgn], GameFilter(EXPERT), workers=1).save(path)
    casebase = Casebase.load(path)
    cases = np.bincount(casebase.game, minlength=13)
    expected = {
        speed: (speeds.count(speed), int(sum(n for n, s in zip(cases, speeds) if s == speed)))
        for speed in ("bullet", "blitz", "rapid", "classical", "unknown")
    }
    assert (
        expected["bullet"] == (0, 0) and expected["blitz"][0] == 6 and expected["unknown"][0] == 2
    )
    assert speed_counts(casebase) == expected
    assert casebase_main(["info", str(path)]) == 0
    assert (
        "speeds:        "
        + ", ".join(f"{s} {g} games ({c} cases)" for s, (g, c) in expected.items())
        in capsys.readouterr().out
    )


def test_build_takes_the_games_of_one_speed(tmp_path, capsys):
    pgn, speeds = speed_pgn(tmp_path)
    out = tmp_path / "blitz.npz"
    assert (
        casebase_main(["build", str(pgn), "--player", EXPERT, "--speed", "blitz", "-o", str(out)])
        == 0
    )
    assert "7 of another speed than blitz" in capsys.readouterr().out
    casebase = Casebase.load(out)
    assert casebase.num_games == 6 and set(casebase.game_speeds().tolist()) == {"blitz"}
    assert casebase.games["index"].tolist() == [
        i for i, speed in enumerate(speeds) if speed == "blitz"
    ]
    assert (
        casebase.meta["counts"]["games_speed_filtered"] == 7
        and casebase.meta["options"]["speed"] == "blitz"
    )
    rapid = build([pgn], GameFilter(EXPERT, speed="rapid"), workers=1)
    assert rapid.games["index"].tolist() == [9, 10]
    # a build of every game records its options as before the filter (a personal model names them)
    assert "speed" not in build([pgn], GameFilter(EXPERT), workers=1).meta["options"]
    with pytest.raises(
        BuildError,
        match="--speed must be one of bullet, blitz, rapid, classical, unknown, not 'fast'",
    ):
        GameFilter(EXPERT, speed="fast")
    with pytest.raises(BuildError, match="no cases left .*speed filtered: 13"):
        build([pgn], GameFilter(EXPERT, speed="bullet"), workers=1)


def test_holdout_of_one_speed_is_what_the_build_of_that_speed_leaves_out(tmp_path):
    pgn, _ = speed_pgn(tmp_path)
    selection = GameFilter(EXPERT, speed="blitz", exclude_latest=0.5)
    held = held_out_games([pgn], selection, workers=1, progress=False)
    assert [text.count('[TimeControl "180+2"]') for text in held] == [1, 1, 1]
    assert [text.split('[Date "')[1][:10] for text in held] == [
        "2020.01.04",
        "2020.01.05",
        "2020.01.06",
    ]
    assert build([pgn], selection, workers=1).games["date"].tolist() == [
        "2020.01.01",
        "2020.01.02",
        "2020.01.03",
    ]


@pytest.fixture
def few_positions(monkeypatch):
    """A speed class fitted from 30 judged positions (the shipped threshold needs hundreds)."""
    monkeypatch.setattr(profile_module, "SPEED_POSITIONS", 30)


@pytest.mark.slow  # the profile is judged through the scripted engine's process
def test_the_profile_is_summarised_by_each_speed_with_enough_positions(tmp_path, few_positions):
    pgn, speeds = speed_pgn(tmp_path, (8, 3, 2, 2))
    path = tmp_path / "a.npz"
    build([pgn], GameFilter(EXPERT), workers=1).save(path)
    casebase = Casebase.load(path)
    make_profile(
        casebase,
        Settings(positions=100, depth=2, multipv=6),
        scripted(tmp_path),
        tmp_path / "j.jsonl",
        progress=False,
    )
    loaded = Casebase.load(path)
    meta = loaded.meta["profile"]
    assert loaded.profile is not None
    rows = loaded.profile["profile_row"]
    # each judged position's speed, from the PGN
    of_row = np.array(speeds)[np.asarray(loaded.game)[rows]]
    assert meta["speed_positions"] == {
        s: int((of_row == s).sum()) for s in ("bullet", "blitz", "rapid", "classical", "unknown")
    }
    assert meta["speed_positions"]["blitz"] >= 30 and 0 < meta["speed_positions"]["unknown"]
    fitted = [
        s for s in ("bullet", "blitz", "rapid", "classical") if meta["speed_positions"][s] >= 30
    ]
    assert list(meta["speeds"]) == fitted and "unknown" not in meta["speeds"]
    scores = loaded.profile["profile_scores"].astype(np.int64)
    cp = np.clip(
        scores[:, 0] - scores[np.arange(len(rows)), loaded.profile["profile_played"]], 0, 1000
    )
    blitz = meta["speeds"]["blitz"]
    assert blitz["positions"] == meta["speed_positions"]["blitz"]
    assert blitz["all"]["mean_cp_loss"] == pytest.approx(cp[of_row == "blitz"].mean())
    # its own positions only
    assert blitz["all"]["mean_cp_loss"] != pytest.approx(meta["all"]["mean_cp_loss"])
    assert (
        blitz["fit"]["sensitivity"] > 0
        and blitz["rating"]["low"] < blitz["rating"]["implied"] < blitz["rating"]["high"]
    )
    # what the calibrated choice reads
    assert meta["fit"]["expected_loss"] > 0 and blitz["fit"]["expected_loss"] > 0
    assert "by speed:      blitz " in describe(loaded)
    assert f"; no known speed: {meta['speed_positions']['unknown']} positions" in describe(loaded)
    # never 'too few to fit'
    assert "unknown" not in describe(loaded).split("by speed:")[1].split("\n")[0]
    bad_entries(loaded)


def bad_entries(casebase: Casebase) -> None:
    """The checks refuse a profile description whose speeds are wrong, saying which."""
    assert casebase.profile is not None
    cases = {
        name: getattr(casebase, name)
        for name in ("boards", "turn", "from_square", "to_square", "promotion", "game", "ply")
    }
    good = casebase.meta["profile"]
    check_profile(casebase.profile, {"profile": good}, cases)
    for change, message in (
        (
            lambda d: d["speeds"]["blitz"]["fit"].update(sensitivity=-0.1),
            "blitz speed's fit is not usable",
        ),
        (
            lambda d: d["speeds"]["blitz"]["rating"].update(implied=float("nan")),
            "blitz speed's rating implied is nan",
        ),
        (lambda d: d["speeds"]["blitz"].pop("all"), "blitz speed's description has no 'all'"),
        (
            lambda d: d["speeds"].update(unknown=d["speeds"]["blitz"]),
            "a fit of the speed 'unknown'",
        ),
        (lambda d: d["speeds"]["blitz"].update(positions=1), "blitz speed says 1 positions"),
        (
            lambda d: d["speed_positions"].update(blitz=d["speed_positions"]["blitz"] + 1),
            "adding up to its",
        ),
        (lambda d: d.update(speeds=[]), "'speeds' is a list"),
    ):
        description = copy.deepcopy(good)
        change(description)
        with pytest.raises(CasebaseError, match=message):
            check_profile(casebase.profile, {"profile": description}, cases)
