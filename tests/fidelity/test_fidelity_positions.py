"""The fidelity bench's positions (fidelity/): the expert's moves read with the games' history,
sampling, and moves that depend on the seed and the position only."""

from __future__ import annotations

import dataclasses

import chess
import pytest

from engine.cbr.configurations import parse_configurations
from fidelity.modes import FidelityMode
from fidelity.positions import read_positions, spread
from fidelity.replay import play_positions
from fidelity.settings import FidelitySettings

# the positions are replayed with an expert's casebase, on worker processes too
pytestmark = pytest.mark.slow

KOSTENIUK = "Alexandra Kosteniuk"
BALANCED = parse_configurations(["balanced"])[0]

SMALL_PGN = """\
[Event "repeat"]
[White "Someone, X"]
[Black "Kosteniuk, Alexandra"]
[Date "2020.01.01"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 *

[Event "from a FEN"]
[White "Kosteniuk,A"]
[Black "Other, Y"]
[SetUp "1"]
[FEN "r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 0 30"]

30. O-O O-O-O 31. Qxd7+ Rxd7 32. Rad1 *

[Event "no expert"]
[White "A, B"]
[Black "C, D"]

1. e4 e5 *

[Event "both"]
[White "Kosteniuk,A"]
[Black "Kosteniuk, Alexandra"]

1. d4 d5 *

[Event "damaged"]
[White "Kosteniuk, Alexandra"]
[Black "Other, Y"]

1. e4 e5 2. Ke3 Nc6 *
"""


def test_positions_are_the_experts_moves_with_the_games_history(tmp_path):
    path = tmp_path / "small.pgn"
    path.write_text(SMALL_PGN)
    held = read_positions(path, KOSTENIUK)
    assert (held.games_read, held.expert_games, held.damaged, held.seen) == (5, 3, 1, 0)
    assert dict(held.skipped) == {"without_expert": 1, "both_match": 1}
    assert [(p.game, p.ply, p.expert) for p in held.positions] == [
        (0, 1, "g8f6"),
        (0, 3, "f6g8"),
        (0, 5, "g8f6"),
        (0, 7, "f6g8"),
        (1, 0, "e1g1"),
        (1, 2, "d2d7"),
        (1, 4, "a1d1"),
        (4, 0, "e2e4"),  # the damaged game keeps its moves before the illegal Ke3
    ]
    assert [p.index for p in held.positions] == list(range(8))
    for p in held.positions:
        board = p.board()
        assert board.fen() == p.fen and len(board.move_stack) == p.ply
        assert chess.Move.from_uci(p.expert) in board.legal_moves
    # With the history, 4...Ng8 repeats the start position a third time; without it, it cannot.
    last = held.positions[3].board()
    assert last.can_claim_threefold_repetition()
    assert not chess.Board(last.fen()).can_claim_threefold_repetition()
    fen_game = [p for p in held.positions if p.game == 1]
    assert fen_game[0].board().move_stack == [] and fen_game[0].board().fullmove_number == 30
    # Phases by casebase.phases: the plies count from the game's start, here a FEN at move 30,
    # so its first 24 are the opening as in the casebase (the old rule read the FEN's move number).
    assert [p.phase for p in fen_game] == ["opening"] * 3
    assert [p.phase for p in held.positions if p.game == 4] == ["opening"]
    assert (
        read_positions(
            path,
            KOSTENIUK,
            seen=[("Someone, X", "Kosteniuk, Alexandra", "2020.01.01", "repeat", "?")],
        ).seen
        == 1
    )
    with pytest.raises(ValueError, match="no game of 'Magnus Carlsen'"):
        read_positions(path, "Magnus Carlsen")


def test_sampling_is_even_and_deterministic():
    assert spread(10, 3) == [1, 5, 8]
    assert spread(5, None) == spread(5, 5) == spread(5, 9) == [0, 1, 2, 3, 4]
    for count, n in [(724, 200), (201, 200), (1000, 7)]:
        picked = spread(count, n)
        assert len(set(picked)) == n and picked == sorted(picked) and picked[-1] < count
        gaps = [b - a for a, b in zip(picked, picked[1:])]
        assert max(gaps) - min(gaps) <= 1


def test_pure_moves_depend_on_seed_and_position_not_on_workers_or_sample(
    kosteniuk_casebase, heldout
):
    # The full casebase holds the held-out games: opening positions tie many cases, so draws matter.
    positions = read_positions(heldout[1], KOSTENIUK).positions
    settings = FidelitySettings(casebase=str(kosteniuk_casebase), config=BALANCED, seed=3)
    sample = [positions[i] for i in spread(len(positions), 40)]
    one = play_positions(sample, FidelityMode.PURE, settings, workers=1, progress=False)
    two = play_positions(sample, FidelityMode.PURE, settings, workers=2, progress=False)
    assert one == two and len(one) == 40
    openings = [p for p in positions if p.phase == "opening"]
    alone = play_positions(openings[::-1], FidelityMode.PURE, settings, workers=1, progress=False)
    other_seed = FidelitySettings(casebase=str(kosteniuk_casebase), config=BALANCED, seed=4)
    reseeded = play_positions(openings, FidelityMode.PURE, other_seed, workers=1, progress=False)
    common = [p.index for p in sample if p.phase == "opening"]
    assert common and all(alone[i] == one[i] for i in common)  # order and company do not matter
    assert reseeded != alone  # ... but the seed does


def test_each_position_draws_with_its_own_seed(kosteniuk_casebase, heldout):
    # The same position under 30 indices: seeded by index, the ties are drawn differently.
    first = read_positions(heldout[1], KOSTENIUK).positions[0]
    assert first.phase == "opening"
    copies = [dataclasses.replace(first, index=i) for i in range(30)]
    settings = FidelitySettings(casebase=str(kosteniuk_casebase), config=BALANCED, seed=3)
    moves = play_positions(copies, FidelityMode.PURE, settings, workers=1, progress=False)
    assert len(set(moves.values())) > 1
