"""The longest ordering (experiment.md §2) and the Elo estimates (Spearman's rho:
tests/common/test_stats.py)."""

import itertools
import math

import numpy as np
import pytest

from tournament.elo import fit_ratings
from tournament.ordering import MAX_PLAYERS, follows_elo, longest_ordering


def beats_from(n, edges):
    beats = np.zeros((n, n), dtype=bool)
    for a, b in edges:
        beats[a, b] = True
    return beats


def brute_force_length(beats):
    n = len(beats)
    for length in range(n, 0, -1):
        for path in itertools.permutations(range(n), length):
            if all(beats[a, b] for a, b in zip(path, path[1:])):
                return length
    return 0


def is_ordering(beats, path):
    return len(set(path)) == len(path) and all(beats[a, b] for a, b in zip(path, path[1:]))


def test_a_chain_in_elo_order_is_found_whole():
    beats = beats_from(5, [(0, 1), (1, 2), (2, 3), (3, 4)])
    assert longest_ordering(beats) == [0, 1, 2, 3, 4]
    assert follows_elo([1, 2, 3, 4, 5])


def test_an_ordering_against_elo_order_is_reported_as_such():
    # 2 beat 1, 1 beat 4, 4 beat 3 (0-based positions 1 > 0 > 3 > 2).
    beats = beats_from(4, [(1, 0), (0, 3), (3, 2)])
    assert longest_ordering(beats) == [1, 0, 3, 2]
    assert follows_elo([2, 1, 4, 3]) is False


def test_a_longest_ordering_that_follows_elo_is_preferred_over_a_smaller_one_that_does_not():
    # Two longest orderings of three: 1 > 0 > 4 (lexicographically smaller) and 1 > 2 > 3.
    beats = beats_from(5, [(1, 0), (0, 4), (1, 2), (2, 3)])
    assert longest_ordering(beats) == [1, 2, 3]
    beats[2, 3] = False
    assert longest_ordering(beats) == [1, 0, 4]


def test_among_several_the_lexicographically_smallest_is_reported():
    beats = beats_from(4, [(3, 0), (2, 0), (3, 1), (2, 1)])
    assert longest_ordering(beats) == [2, 0]


def test_a_cycle_gives_an_ordering_through_all_players():
    beats = beats_from(3, [(0, 1), (1, 2), (2, 0)])
    assert longest_ordering(beats) == [0, 1, 2]


def test_no_decisive_pair_gives_a_single_player_that_matches_nothing():
    assert longest_ordering(np.zeros((3, 3), dtype=bool)) == [0]
    assert follows_elo([1]) is None
    assert longest_ordering(np.zeros((0, 0), dtype=bool)) == []


def test_exact_on_random_tournaments_against_brute_force():
    rng = np.random.default_rng(4)
    for _ in range(40):
        n = int(rng.integers(2, 7))
        beats = np.zeros((n, n), dtype=bool)
        for a, b in itertools.combinations(range(n), 2):
            outcome = rng.integers(3)  # a wins, b wins, or they tie
            beats[a, b], beats[b, a] = outcome == 0, outcome == 1
        path = longest_ordering(beats)
        assert is_ordering(beats, path)
        assert len(path) == brute_force_length(beats)


def test_twenty_players_in_reverse_elo_order_are_solved_exactly():
    n = MAX_PLAYERS
    beats = np.zeros((n, n), dtype=bool)
    for a in range(n):
        for b in range(a):
            beats[a, b] = True  # every lower-ranked player beat every higher-ranked one
    assert longest_ordering(beats) == list(range(n - 1, -1, -1))


def test_more_than_twenty_players_are_refused():
    with pytest.raises(ValueError, match="limited to 20"):
        longest_ordering(np.zeros((21, 21), dtype=bool))


# -- Elo ---------------------------------------------------------------------------------


def games(i, j, wins, draws, losses):
    return [(i, j, 1.0)] * wins + [(i, j, 0.5)] * draws + [(i, j, 0.0)] * losses


def test_rating_difference_is_the_logistic_one_for_a_score_of_three_to_one():
    fit = fit_ratings(2, games(0, 1, 300, 0, 100), mean=2000)
    assert fit[0].rating - fit[1].rating == pytest.approx(400 * math.log10(3), abs=1)
    assert (fit[0].rating + fit[1].rating) / 2 == pytest.approx(2000)


def test_maximum_likelihood_expected_scores_equal_actual_scores():
    # At the optimum each free player's expected points equal its actual points, counting the
    # virtual draw against the anchor (here the fixed player 3 at 1500).
    results = (
        games(0, 1, 5, 3, 2) + games(1, 2, 4, 4, 2) + games(2, 0, 3, 1, 6) + games(0, 3, 2, 5, 3)
    )
    r = [f.rating for f in fit_ratings(4, results, fixed={3: 1500})]
    e = lambda a, b: 1 / (1 + 10 ** ((b - a) / 400))
    for player in range(3):
        actual = sum(s if i == player else 1 - s for i, j, s in results if player in (i, j)) + 0.5
        expected = sum(
            e(r[i], r[j]) if i == player else e(r[j], r[i])
            for i, j, s in results
            if player in (i, j)
        ) + e(r[player], 1500)
        assert expected == pytest.approx(actual, abs=1e-6)


def test_draws_count_as_half_points():
    assert fit_ratings(2, games(0, 1, 0, 10, 0), mean=0)[0].rating == pytest.approx(0, abs=1e-6)
    half = fit_ratings(2, games(0, 1, 10, 0, 10), mean=0)
    drawn = fit_ratings(2, games(0, 1, 0, 20, 0), mean=0)
    assert half[0].rating == pytest.approx(drawn[0].rating, abs=1e-6)


def test_a_perfect_score_gets_a_finite_estimate_and_a_wide_interval():
    fit = fit_ratings(2, games(0, 1, 12, 0, 0), mean=2000)
    gap = fit[0].rating - fit[1].rating
    assert 300 < gap < 1200
    assert fit[0].high - fit[0].low > 200


def test_intervals_shrink_like_one_over_root_n():
    small = fit_ratings(2, games(0, 1, 30, 20, 10), mean=0)[0]
    large = fit_ratings(2, games(0, 1, 120, 80, 40), mean=0)[0]
    assert small.low < small.rating < small.high
    ratio = (small.high - small.low) / (large.high - large.low)
    assert ratio == pytest.approx(2, rel=0.05)


def test_a_fixed_reference_anchors_the_scale_and_keeps_its_rating():
    fit = fit_ratings(3, games(0, 2, 3, 0, 1) + games(1, 2, 1, 0, 3), fixed={2: 1350})
    assert fit[2].rating == fit[2].low == fit[2].high == 1350
    assert fit[0].rating > 1350 > fit[1].rating
    assert fit[0].rating - 1350 == pytest.approx(1350 - fit[1].rating, abs=1e-6)


def test_mean_anchor_over_a_group_leaves_others_free():
    fit = fit_ratings(3, games(0, 1, 5, 0, 5) + games(2, 0, 8, 0, 2), mean_of=[0, 1], mean=2400)
    assert (fit[0].rating + fit[1].rating) / 2 == pytest.approx(2400)
    assert fit[2].rating > fit[0].rating + 150


def test_nothing_to_anchor_is_an_error():
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings(2, games(0, 1, 1, 0, 0), mean_of=[])
