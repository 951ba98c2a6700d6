"""The speed class of a game from its tags, and of a clock (casebase.speed)."""

import pytest

from casebase.speed import (
    UNKNOWN,
    clock_speed,
    parse_event,
    parse_time_control,
    speed_of,
    speed_of_clock,
)


@pytest.mark.parametrize(
    ("tag", "lichess", "speed"),
    [
        ("60+0", True, "bullet"),
        ("120+1", True, "bullet"),
        ("180+0", True, "blitz"),
        ("300+3", True, "blitz"),
        ("480+0", True, "rapid"),
        ("600+0", True, "rapid"),
        ("900+10", True, "rapid"),
        ("1800+0", True, "classical"),
        ("600+0", False, "blitz"),
        ("900+10", False, "rapid"),
        ("5400+30", False, "classical"),
        ("40/5400:1800", False, "classical"),
        ("40/7200:3600", False, "classical"),
        ("40/20", False, "bullet"),
        ("-", True, UNKNOWN),
        ("?", False, UNKNOWN),
        ("", False, UNKNOWN),
        ("abc", False, UNKNOWN),
    ],
)
def test_time_control_tags_fall_in_lichess_and_fide_bands(
    tag: str, lichess: bool, speed: str
) -> None:
    assert parse_time_control(tag, lichess=lichess) == speed


@pytest.mark.parametrize(
    ("event", "speed"),
    [
        ("Titled Tuesday Blitz", "blitz"),
        ("Titled Tuesday 3rd Feb", "blitz"),
        ("Lichess Titled Arena", "blitz"),
        ("chess.com Speed 1m+1spm 2017", "bullet"),
        ("chess.com Speed 5m+2spm 2017", "blitz"),
        ("World Rapid 2019", "rapid"),
        ("Tata Steel Masters", UNKNOWN),
        ("GCT Rapid & Blitz", UNKNOWN),
        ("Rated Classical game", "classical"),
        ("Armageddon", "blitz"),
        ("Online Nations Cup", UNKNOWN),
        ("9th London Classic 2017", UNKNOWN),
        ("Chess Classic", UNKNOWN),
        ("7th London Classic TB", UNKNOWN),
        ("Bullet Brawl", "bullet"),
    ],
)
def test_event_names_say_their_speed(event: str, speed: str) -> None:
    assert parse_event(event) == speed


def test_the_tag_comes_before_the_event_and_lichess_games_use_lichess_bands() -> None:
    assert speed_of("600+0", "Rated Blitz game", "https://lichess.org/abc") == "rapid"
    assert speed_of("600+0", "Casual", "FICS") == "blitz"
    assert speed_of("-", "Titled Tuesday", None) == "blitz"
    assert speed_of(None, None) == UNKNOWN


def test_the_card_is_classical_and_three_two_blitz() -> None:
    assert speed_of_clock(5400, moves=40) == "classical"
    assert speed_of_clock(180, 2) == "blitz"
    assert clock_speed(5400, 0, 40, 60) == "classical"
    assert clock_speed(180, 2, None, 0) == "blitz"
    assert clock_speed(30, 2, None, 80) is None
