"""The casebase builder's choice of games (cbr-agent.md §2): the expert's own rating, the first
games, every player's moves, the latest games held out."""

from __future__ import annotations

import io

import chess
import chess.pgn
from casebase_helpers import CARLSEN, cases
from pgn_helpers import game, pgn

from casebase.builder import build
from casebase.games import GameFilter, latest
from casebase.holdout import held_out_games


def test_elo_filter_uses_the_experts_own_rating(tmp_path):
    path = pgn(
        tmp_path,
        game("Carlsen,M", "X", "1. e4 *", WhiteElo="2800", BlackElo="2000"),
        game("X", "Carlsen,M", "1. e4 e5 *", WhiteElo="2900", BlackElo="2700"),
        game("Carlsen,M", "X", "1. d4 *", WhiteElo="?"),
    )
    cb = build([path], GameFilter("Magnus Carlsen", min_elo=2750), workers=1)
    assert [m for _, m, _, _ in cases(cb)] == ["e2e4"]
    assert cb.meta["counts"]["games_elo_filtered"] == 2
    assert cb.games["expert_elo"].tolist() == [2800]
    everything = build([path], CARLSEN, workers=1)
    assert everything.games["expert_elo"].tolist() == [2800, 2700, -1]
    assert everything.meta["median_elo"] == 2750


def test_counts_add_up_and_max_games_takes_the_first_games(data_dir):
    cb = build(
        [data_dir / "experts" / "paehtz-2400.pgn"], GameFilter("Kosteniuk", max_games=10), workers=1
    )
    counts = cb.meta["counts"]
    assert counts["games_used"] == 10 == cb.num_games
    assert counts["games_read"] == sum(
        v
        for k, v in counts.items()
        if k.startswith("games_") and k not in ("games_read", "games_damaged")
    )
    assert cb.games["index"][-1] == counts["games_read"] - 1  # reading stops at the 10th game
    assert cb.meta["sources"][0]["games"] == counts["games_read"]
    assert all("Kosteniuk" in (w + b) for w, b in zip(cb.games["white"], cb.games["black"]))


def test_all_players_takes_every_move(tmp_path):
    path = pgn(
        tmp_path,
        game("A", "B", "1. e4 e5 2. Nf3 *", WhiteElo="2600", BlackElo="2500"),
        game("C", "D", "1. d4 *"),
    )
    cb = build([path], GameFilter(all_players=True), workers=1)
    assert [m for _, m, _, _ in cases(cb)] == ["e2e4", "e7e5", "g1f3", "d2d4"]
    assert cb.turn.tolist() == [True, False, True, True]
    assert cb.expert == "all players"
    assert cb.games["expert_elo"].tolist() == [2500, -1]  # the weaker rated player
    assert build([path], GameFilter(all_players=True, min_elo=2400), workers=1).num_games == 1


def test_exclude_latest_and_holdout_split_the_games_by_date(tmp_path):
    dates = ["2001.05.01", "2003.01.01", "1999.??.??", "2003.01.01", "2002.12.31", "2000.01.01"]
    games = [
        game("Carlsen,M", "X", f"1. {move} *", Date=date)
        for move, date in zip(["e4", "d4", "c4", "Nf3", "g3", "b3"], dates)
    ]
    path = pgn(tmp_path, *games, game("X", "Y", "1. e4 *", Date="2010.01.01"))
    kept = build([path], GameFilter("Carlsen", exclude_latest=0.34), workers=1)
    assert kept.games["index"].tolist() == [0, 2, 4, 5]
    assert kept.meta["counts"]["games_held_out"] == 2
    # the held-out games, or the kept ones
    for kept_too, wanted in ((False, (1, 3)), (True, (0, 2, 4, 5))):
        texts = held_out_games(
            [path], GameFilter("Carlsen", exclude_latest=0.34), workers=1, kept=kept_too
        )
        assert [chess.pgn.read_game(io.StringIO(t)).headers["Date"] for t in texts] == [
            dates[i] for i in wanted
        ]
    assert latest(["2001.01.01", "2001.01.01", "2000.01.01"], 0.34) == [False, True, False]


def test_holdout_agrees_with_exclude_latest_on_a_shipped_file(data_dir, expert_names):
    path = data_dir / "experts" / "kosteniuk-2200.pgn"
    selection = GameFilter(expert_names["kosteniuk-2200"], exclude_latest=0.15)
    kept = build([path], selection, workers=1)
    heldout = held_out_games([path], selection, workers=1)
    assert len(heldout) == round(0.15 * 121) == kept.meta["counts"]["games_held_out"]
    assert kept.num_games + len(heldout) == 121
    # Unknown parts of a date ("1998.??.??") count as earliest.
    latest_kept = max(date.replace("?", "0") for date in kept.games["date"].tolist())
    assert all(
        chess.pgn.read_headers(io.StringIO(t))["Date"].replace("?", "0") >= latest_kept
        for t in heldout
    )
