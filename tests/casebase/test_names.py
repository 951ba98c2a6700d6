"""Name matching (cbr-agent.md §2.1) on made-up and on the shipped files' real spellings."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from casebase.names import NameMatcher, closest_names, fold


def test_fold_removes_case_and_accents():
    assert fold("Pähtz, Élisabeth") == "pahtz, elisabeth"
    assert fold("Łukasz Ø") == "lukasz o"


@pytest.mark.parametrize(
    "tag",
    [
        "Carlsen,M",
        "Carlsen, Magnus",
        "Magnus Carlsen",
        "carlsen",
        "CARLSEN, MAGNUS",
        "Carlsen,Magnus",
        "Carlsen, M.",
        "Carlsen Magnus",
        "Carlsen,Ma",
        "  Carlsen , Magnus  ",
    ],
)
def test_spellings_of_carlsen_match(tag):
    assert NameMatcher("Magnus Carlsen")(tag)


@pytest.mark.parametrize(
    "tag",
    [
        "Carlsen, Henrik",
        "Carlsen,H",
        "Karlsen, Magnus",
        "Magnus",
        "Carlsenn,M",
        "Anand, Viswanathan",
        "?",
        "",
    ],
)
def test_other_players_do_not_match_carlsen(tag):
    assert not NameMatcher("Magnus Carlsen")(tag)


@pytest.mark.parametrize("user", ["Magnus Carlsen", "Carlsen, Magnus", "Carlsen,M", "carlsen"])
def test_any_spelling_given_by_the_user_works(user):
    matcher = NameMatcher(user)
    assert matcher("Carlsen,M") and matcher("Magnus Carlsen")
    assert not matcher("Kramnik,V")


def test_database_suffix_digits_and_double_initials():
    matcher = NameMatcher("Nona Gaprindashvili")
    assert matcher("Gaprindashvili,N1") and matcher("Gaprindashvili,N")
    assert not matcher("Gaprindashvili,M1")
    assert NameMatcher("David Wise")("Wise, DM.")
    assert not NameMatcher("Mark Wise")("Wise, DM.")


@pytest.mark.parametrize(
    "user", ["Loek van Wely", "van Wely, Loek", "Van Wely,L", "van wely", "VanWely"]
)
def test_multi_word_surnames(user):
    matcher = NameMatcher(user)
    assert matcher("Van Wely,L") and matcher("Van Wely, Loek") and matcher("Loek van Wely")
    assert not matcher("Piket, Jeroen") and not matcher("Wely, Kees")
    # A given name, when the user spells one, must agree.
    assert matcher("Van Wely, Kees") == (user.lower() in ("van wely", "vanwely"))


def test_transliterated_umlauts_match():
    assert NameMatcher("Elisabeth Pähtz")("Paehtz,E")
    assert NameMatcher("Elisabeth Paehtz")("Pähtz, Elisabeth")


def test_exact_name_is_literal():
    matcher = NameMatcher("Carlsen,M", exact=True)
    assert matcher("Carlsen,M") and matcher(" Carlsen,M ")
    assert not matcher("Carlsen, Magnus") and not matcher("carlsen,m")


def test_a_name_without_letters_is_refused():
    with pytest.raises(ValueError):
        NameMatcher("  ")
    with pytest.raises(ValueError):
        NameMatcher(", .")


def test_closest_names_are_ranked_by_resemblance():
    present = Counter({"Carlsen,M": 30, "Caruana,F": 20, "Kramnik,V": 10, "Karlsen,J": 1})
    names = [name for name, _ in closest_names("Magnus Karlsen", present, n=2)]
    assert names == ["Karlsen,J", "Carlsen,M"]
    assert closest_names("x", present, n=10)[-1][0] in present


def _tags(path: Path) -> Counter[str]:
    text = path.read_text(encoding="utf-8")
    return Counter(re.findall(r'^\[(?:White|Black) "(.*)"\]', text, re.MULTILINE))


# The spellings the shipped files hold, as listed in data/README.md.
SPELLINGS = {
    "kosteniuk-2200": {"Kosteniuk, Alexandra"},
    "gaprindashvili-2300": {"Gaprindashvili, Nona", "Gaprindashvili,N1", "Gaprindashvili,N"},
    "paehtz-2400": {"Paehtz,E", "Paehtz, Elisabeth"},
    "miles-2500": {"Miles, Anthony J", "Miles,A"},
    "vanwely-2600": {"Van Wely,L", "Van Wely, Loek"},
    "ivanchuk-2700": {"Ivanchuk,V", "Ivanchuk, Vassily"},
    "carlsen-2800": {"Carlsen,M"},
    "postny-2600": {"Postny,E"},
    "bigbad-fics2100": {"bigbad"},
    "rivergrove-lichess1800": {"rivergrove"},
}


@pytest.mark.parametrize("file_id", sorted(SPELLINGS))
def test_registered_names_find_exactly_the_experts_spellings(file_id, expert_names, data_dir):
    assert set(expert_names) == set(SPELLINGS)
    matcher = NameMatcher(expert_names[file_id])
    tags = _tags(data_dir / "experts" / f"{file_id}.pgn")
    matched = {tag for tag in tags if matcher(tag)}
    assert matched == SPELLINGS[file_id] & set(tags)
    # Each game has the expert on exactly one side.
    assert sum(tags[tag] for tag in matched) == sum(tags.values()) // 2
