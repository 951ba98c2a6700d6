"""Who is the expert: matching a player's name against PGN ``White``/``Black`` tags (spec §2.1).

Real databases spell one person many ways (``Carlsen,M``, ``Carlsen, Magnus``,
``Magnus Carlsen``, ``carlsen``, ``Gaprindashvili,N1``, ``Van Wely,L``). A tag matches
the user's name when, after folding case, accents, spaces and punctuation, the surnames
agree and the given names (or initials) that both spell out are consistent.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache

#: Letters that Unicode decomposition leaves alone but players' names fold to plain Latin.
_SPECIAL_LETTERS = str.maketrans(
    {
        "ß": "ss",
        "ø": "o",
        "Ø": "O",
        "đ": "d",
        "Đ": "D",
        "ł": "l",
        "Ł": "L",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "ı": "i",
        "þ": "th",
    }
)
_TOKEN = re.compile(r"[^\W_]+")
#: German transliteration (Pähtz = Paehtz, Hübner = Huebner) folds to the plain vowel.
_TRANSLITERATION = re.compile(r"(?<=[a-z])([aou])e")

#: One reading of a name: (surname key, given names or initials, surname written first
#: without a comma). A surname-first reading such as ``Hou Yifan`` = ``Hou, Yifan`` only
#: counts against a name that spells a given name too, so that the tag ``Magnus`` is not
#: read as the surname of ``Magnus Carlsen``.
Reading = tuple[str, tuple[str, ...], bool]


def fold(text: str) -> str:
    """``text`` without accents, in lower case (``"Pähtz, Élisabeth"`` -> ``"pahtz,
    elisabeth"``)."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_SPECIAL_LETTERS))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _given_tokens(raw: Iterable[str], all_caps: bool) -> tuple[str, ...]:
    """Folded given names; ``DM`` is two initials, ``N1`` is initial ``n`` (database suffix)."""
    tokens: list[str] = []
    for token in raw:
        if not all_caps and token.isalpha() and token.isupper() and 2 <= len(token) <= 3:
            tokens.extend(fold(token))
            continue
        token = fold(token).rstrip("0123456789")
        if token:
            tokens.append(token)
    return tuple(tokens)


def _surname_key(tokens: Iterable[str]) -> str:
    return _TRANSLITERATION.sub(r"\1", "".join(fold(t) for t in tokens))


@lru_cache(maxsize=65536)
def readings(name: str) -> frozenset[Reading]:
    """Every way to read ``name`` as surname + given names.

    ``Surname, Given`` has one reading; a name without a comma may be ``Given Surname`` or
    ``Surname Given``, with a surname of one or more words (``Loek van Wely``).
    """
    all_caps = name.isupper()
    if "," in name:
        surname, _, given = name.partition(",")
        key = _surname_key(_TOKEN.findall(surname))
        return (
            frozenset({(key, _given_tokens(_TOKEN.findall(given), all_caps), False)})
            if key
            else frozenset()
        )
    tokens = _TOKEN.findall(name)
    found: set[Reading] = set()
    for k in range(len(tokens)):
        found.add((_surname_key(tokens[k:]), _given_tokens(tokens[:k], all_caps), False))
        if k:
            found.add((_surname_key(tokens[:k]), _given_tokens(tokens[k:], all_caps), True))
    return frozenset(found)


def _same_person(a: Reading, b: Reading) -> bool:
    """Surnames agree and each given name spelled in both is the same or an initial of it."""
    (surname_a, given_a, reversed_a), (surname_b, given_b, reversed_b) = a, b
    return (
        surname_a == surname_b
        and all(x.startswith(y) or y.startswith(x) for x, y in zip(given_a, given_b))
        and not (reversed_a and not given_b or reversed_b and not given_a)
    )


class NameMatcher:
    """Decides whether a PGN player tag names the expert.

    ``exact=True`` takes the expert's name literally (only surrounding spaces are ignored).
    """

    def __init__(self, name: str, *, exact: bool = False) -> None:
        if not name.strip():
            raise ValueError("the player's name is empty")
        self.name = name.strip()
        self.exact = exact
        self._readings = readings(self.name)
        if not exact and not self._readings:
            raise ValueError(f"the player's name {name!r} has no letters to match")
        self._cache: dict[str, bool] = {}

    def __call__(self, tag: str) -> bool:
        """True when the tag value ``tag`` spells the expert's name."""
        known = self._cache.get(tag)
        if known is None:
            known = self._cache[tag] = self._matches(tag)
        return known

    def _matches(self, tag: str) -> bool:
        if self.exact:
            return tag.strip() == self.name
        tag_readings = readings(tag)
        return any(_same_person(mine, theirs) for mine in self._readings for theirs in tag_readings)


def closest_names(name: str, present: Mapping[str, int], n: int = 5) -> list[tuple[str, int]]:
    """The ``n`` names in ``present`` (name -> games) that look most like ``name``, best first."""
    target = fold(name)
    scored = sorted(
        present.items(),
        key=lambda item: (
            -difflib.SequenceMatcher(None, target, fold(item[0])).ratio(),
            -item[1],
            item[0],
        ),
    )
    return scored[:n]
