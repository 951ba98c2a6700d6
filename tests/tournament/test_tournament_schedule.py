"""The round robin's schedule and seeds (experiment.md §1) and the time controls."""

from collections import Counter

import chess
import pytest

from engine.cbr.configurations import Configuration, parse_configurations
from engine.cbr.weights import WEIGHT_CONFIGS
from engine.outside.clock import Clock, TimeControl
from tournament.schedule import build_schedule, side_seed

EXPERTS = ["hirsch", "andersson", "abaeji", "vidarte", "wegerle", "prusikin", "postny"]
THESIS = parse_configurations(["thesis"])


def test_thesis_schedule_has_630_games_every_pair_six_times_three_with_each_colour():
    specs = build_schedule(EXPERTS, THESIS, 3, master_seed=7)
    assert len(specs) == 630
    assert [s.index for s in specs] == list(range(630))
    for number in range(1, 6):
        games = [s for s in specs if s.config_number == number]
        assert len(games) == 126
        assert all(s.white != s.black for s in games)
        ordered = Counter((s.white, s.black) for s in games)
        assert len(ordered) == 42 and set(ordered.values()) == {3}
        unordered = Counter(frozenset((s.white, s.black)) for s in games)
        assert len(unordered) == 21 and set(unordered.values()) == {6}
        assert {s.round_tag for s in games} == {f"{number}.1", f"{number}.2", f"{number}.3"}


def test_thesis_configurations_in_spec_order():
    assert [c.name for c in THESIS] == list(WEIGHT_CONFIGS)
    assert [c.label for c in THESIS] == [
        "0.5 0.5 0.5",
        "0.8 0.8 0.5",
        "0.8 0.2 0.5",
        "0.2 0.5 0.8",
        "0.2 0.5 0.2",
    ]


def test_configurations_by_name_by_weights_and_custom():
    near_from, custom = parse_configurations(["0.8 0.8 0.5", "0.35, 1 0"])
    assert near_from == Configuration("near-from", WEIGHT_CONFIGS["near-from"])
    assert custom.name == custom.label == "0.35 1 0"
    assert parse_configurations(["content-to"])[0].label == "0.2 0.5 0.2"


@pytest.mark.parametrize("bad", ["0.5 0.5", "a b c", "0.5 0.5 1.5", "0.333 0.5 0.5", "nonsense"])
def test_bad_configurations_are_refused_with_a_message(bad):
    with pytest.raises(ValueError, match="v1 v2 v3|must be a number"):
        parse_configurations([bad])


def test_a_configuration_listed_twice_is_refused():
    with pytest.raises(ValueError, match="twice"):
        parse_configurations(["balanced", "0.5 0.5 0.5"])


def test_seeds_replay_with_the_master_seed_and_change_with_it():
    seeds = lambda master: [
        (s.white_seed, s.black_seed) for s in build_schedule(EXPERTS, THESIS, 3, master)
    ]
    assert seeds(1) == seeds(1)
    assert seeds(1) != seeds(2)
    flat = [x for pair in seeds(1) for x in pair]
    assert len(set(flat)) == len(flat)
    assert all(1 <= x < 2**31 for x in flat)


def test_seed_depends_on_every_key_part():
    config, other = THESIS[0], THESIS[1]
    base = side_seed(5, config, "a", "b", 1, chess.WHITE)
    assert base == side_seed(5, config, "a", "b", 1, chess.WHITE)
    variants = [
        side_seed(6, config, "a", "b", 1, chess.WHITE),
        side_seed(5, other, "a", "b", 1, chess.WHITE),
        side_seed(5, config, "c", "b", 1, chess.WHITE),
        side_seed(5, config, "a", "c", 1, chess.WHITE),
        side_seed(5, config, "a", "b", 2, chess.WHITE),
        side_seed(5, config, "a", "b", 1, chess.BLACK),
        side_seed(5, config, "b", "a", 1, chess.WHITE),
    ]
    assert base not in variants and len(set(variants)) == len(variants)


def test_adding_a_player_keeps_the_other_games_seeds():
    small = build_schedule(EXPERTS[:3], THESIS[:1], 2, 9)
    large = build_schedule(EXPERTS, THESIS[:1], 2, 9)
    key = lambda s: (s.white, s.black, s.round)
    seeds = {key(s): (s.white_seed, s.black_seed) for s in large}
    assert all(seeds[key(s)] == (s.white_seed, s.black_seed) for s in small)


def test_reference_players_meet_everyone_but_each_other():
    specs = build_schedule(["a", "b", "sf1", "sf2"], THESIS[:1], 1, 0, reference=["sf1", "sf2"])
    pairs = {(s.white, s.black) for s in specs}
    assert ("sf1", "sf2") not in pairs and ("sf2", "sf1") not in pairs
    assert ("a", "sf1") in pairs and ("sf2", "b") in pairs
    assert len(specs) == 12 - 2


@pytest.mark.parametrize(
    "args, message",
    [
        ((["a", "a"], THESIS, 1, 0), "distinct"),
        ((["a", "b"], THESIS, 0, 0), "rounds"),
        ((["a", "b"], THESIS, 1, -1), "seed"),
    ],
)
def test_bad_schedules_are_refused(args, message):
    with pytest.raises(ValueError, match=message):
        build_schedule(*args)


# -- time controls and clocks ------------------------------------------------------------


@pytest.mark.parametrize(
    "text, control",
    [
        ("40/5400", TimeControl(40, 5400)),
        ("300", TimeControl(None, 300)),
        ("300+2", TimeControl(None, 300, 2)),
        ("60+0.5", TimeControl(None, 60, 0.5)),
    ],
)
def test_time_controls_parse_and_print_in_pgn_form(text, control):
    assert TimeControl.parse(text) == control
    assert str(control) == text


@pytest.mark.parametrize("bad", ["", "40/", "0", "0/60", "40/60+1", "fast", "-5"])
def test_bad_time_controls_are_refused(bad):
    with pytest.raises(ValueError, match="time control"):
        TimeControl.parse(bad)


def test_repeating_control_adds_a_period_every_40_moves():
    clock = Clock(TimeControl(40, 5400))
    assert clock.moves_to_go(chess.WHITE) == 40
    for _ in range(39):
        assert clock.charge(chess.WHITE, 100.0)
    assert clock.remaining[chess.WHITE] == pytest.approx(1500)
    assert clock.moves_to_go(chess.WHITE) == 1
    assert clock.charge(chess.WHITE, 1000.0)
    assert clock.remaining[chess.WHITE] == pytest.approx(500 + 5400)
    assert clock.moves_to_go(chess.WHITE) == 40
    assert clock.remaining[chess.BLACK] == 5400 and clock.requirement_met


def test_overstepping_the_first_period_fails_the_requirement_later_ones_do_not():
    clock = Clock(TimeControl(2, 10))
    assert clock.charge(chess.BLACK, 6) and clock.charge(chess.BLACK, 3)
    assert clock.requirement_met
    assert clock.charge(chess.BLACK, 5) and not clock.charge(chess.BLACK, 7)
    assert clock.requirement_met  # flag fell in the second period
    early = Clock(TimeControl(2, 10))
    assert not early.charge(chess.WHITE, 10.5)
    assert not early.requirement_met
    assert early.moves_made[chess.WHITE] == 0


def test_increment_is_credited_after_each_move():
    clock = Clock(TimeControl(None, 10, 2))
    assert clock.moves_to_go(chess.WHITE) is None
    assert clock.charge(chess.WHITE, 3)
    assert clock.remaining[chess.WHITE] == pytest.approx(9)
