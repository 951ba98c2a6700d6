"""The speed a game was played at: bullet, blitz, rapid or classical (issue #42).

A game's speed comes from its ``TimeControl`` tag where it has one (PGN standard: ``300+3``,
``5400``, ``40/5400:1800``), else from its event's name ("Titled Tuesday", "chess.com Speed
5m+2spm 2017", "Rapid"), else it is unknown. A clock is put in a band by the game's estimated
duration for one player:

- **Lichess's** bands (lichess.org's games): base + 40 × increment below 3 minutes is bullet
  (its ultra-bullet too), below 8 blitz, below 25 rapid, else classical;
- **FIDE's** (any other game): base + 60 × increment up to 10 minutes is blitz (below 3
  bullet), below 60 rapid, else standard (classical).

:func:`speed_of_clock` is the same for a clock seen at play time (the UCI ``go``'s time and
increment, or a ``movestogo`` cycle), so the engine can play the speed its clock implies.
"""

from __future__ import annotations

import math
import re

#: The plies of a game's start, where the time left still says the clock's class (its first two
#: moves).
START_PLIES = 4
#: The speed classes, fastest first; UNKNOWN where nothing says.
SPEEDS = ("bullet", "blitz", "rapid", "classical")
UNKNOWN = "unknown"
#: The fewest judged positions of a speed class that get a fit of their own in an error profile
#: (fewer leave the implied rating's interval too wide to tell the classes apart).
SPEED_POSITIONS = 400
#: Lichess's upper bounds on base + 40 x increment, in seconds (lichess.org/faq#time-controls).
LICHESS_BANDS = ((180.0, "bullet"), (480.0, "blitz"), (1500.0, "rapid"))
#: FIDE's bounds on base + 60 x increment (Laws of Chess, appendices A and B); bullet is below
#: FIDE's blitz, as in the rating lists of online servers.
FIDE_BANDS = ((180.0, "bullet"), (600.0 + 1e-9, "blitz"), (3600.0, "rapid"))
#: Words of an event's name that say its speed (lower case), the first class a name names wins only
#: when it names no other.
_EVENT_WORDS = (
    ("bullet", "bullet"),
    ("blitz", "blitz"),
    ("armageddon", "blitz"),
    ("titled tuesday", "blitz"),
    ("titled arena", "blitz"),
    ("speed", "blitz"),
    ("rapid", "rapid"),
    ("classical", "classical"),
    # not "classic": a brand, not a speed (Mainz's "Chess Classic" was rapid, "London Classic TB"
    # its tiebreaks)
)
#: A clock written in an event's name: "5m+2spm", "3+2", "15'+10''".
_EVENT_CLOCK = re.compile(
    r"(?<![\d/])(\d{1,3})\s*(?:m|min|')?\s*\+\s*(\d{1,2})\s*(?:s|spm|'')?(?![\d/])"
)


def band(seconds: float, *, lichess: bool = False) -> str:
    """The speed class of an estimated duration in seconds (base + 40 x increment on Lichess's
    scale, base + 60 x increment on FIDE's)."""
    for bound, name in LICHESS_BANDS if lichess else FIDE_BANDS:
        if seconds < bound:
            return name
    return "classical"


def speed_of_clock(
    base: float, increment: float = 0.0, *, moves: int | None = None, lichess: bool = False
) -> str:
    """The class of a clock of ``base`` seconds and ``increment`` a move (for ``moves`` moves, a
    repeating control such as 40/90, when given; its time is spread over 40 or 60 moves)."""
    per_game = 40 if lichess else 60
    if moves:
        base = base * per_game / moves
    return band(base + per_game * increment, lichess=lichess)


def parse_time_control(text: str, *, lichess: bool = False) -> str:
    """The class of a PGN ``TimeControl`` tag's first period (``?``, ``-`` and an unreadable tag:
    unknown)."""
    first = text.strip().split(":")[0]
    match = re.fullmatch(r"(?:(\d+)/)?\*?(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?", first)
    if match is None:
        return UNKNOWN
    moves, base, increment = match.groups()
    if float(base) <= 0 and not increment:
        return UNKNOWN
    return speed_of_clock(
        float(base), float(increment or 0), moves=int(moves) if moves else None, lichess=lichess
    )


def parse_event(event: str) -> str:
    """The class an event's name says: a clock in it ("5m+2spm"), else its words; unknown when it
    says none, or names two classes ("Rapid & Blitz")."""
    name = event.lower()
    clock = _EVENT_CLOCK.search(name)
    if clock is not None:
        return speed_of_clock(float(clock.group(1)) * 60, float(clock.group(2)))
    named = set()
    for word, speed in _EVENT_WORDS:
        if word in name:
            named.add(speed)
            name = name.replace(word, " ")
    return named.pop() if len(named) == 1 else UNKNOWN


def speed_of(time_control: str | None, event: str | None, site: str | None = None) -> str:
    """The speed class of a game from its tags: ``TimeControl`` where it says, else the event's
    name, else unknown. Lichess's bands for a game of lichess.org, FIDE's for any other."""
    lichess = on_lichess(site)
    if time_control:
        speed = parse_time_control(time_control, lichess=lichess)
        if speed != UNKNOWN:
            return speed
    return parse_event(event or "")


def on_lichess(site: str | None) -> bool:
    """Whether a game's ``Site`` tag is lichess.org's (its clock is put in Lichess's bands)."""
    return "lichess" in (site or "").lower()


def clock_speed(
    seconds_left: float,
    increment: float,
    movestogo: int | None,
    plies_played: int,
    *,
    lichess: bool = False,
) -> str | None:
    """The class a UCI ``go``'s clock implies: the time left at the start of a game (within its
    first two moves) or for a ``movestogo`` cycle; None where the clock cannot say (late in a
    sudden-death game, whose base time is spent, nothing tells what it was). ``lichess``: on
    Lichess's bands, as the games of a casebase of lichess.org games were classed."""
    if movestogo:
        return speed_of_clock(seconds_left, increment, moves=movestogo, lichess=lichess)
    if plies_played <= START_PLIES and math.isfinite(seconds_left):
        return speed_of_clock(seconds_left, increment, lichess=lichess)
    return None
