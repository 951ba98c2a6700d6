"""Ask the expert (web/ask.py): the likeliest move of the calibrated choice with every candidate's
chance and loss, a losing candidate marked, the prior's shares without a judge, and the chances at
several ratings (the page's slider) in one ask."""

from __future__ import annotations

import sys

import chess
import pytest
from judge_helpers import SCRIPT
from web_helpers import EXPERT, client, no_engines_left

from web.ask import LOSING, RATINGS
from web.plain import sentences

pytestmark = pytest.mark.slow  # asks through engine processes

#: After 1.e4: the judge finds c5 and e5 level, every other move 150 cp or more worse.
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


@pytest.fixture(scope="module")
def judged(kosteniuk_casebase, tmp_path_factory):
    """The app with a scripted judge (tests/scripted_engine.py) behind a wrapper."""
    judge = tmp_path_factory.mktemp("judge") / "judge"
    args = ["--score=c7c5=10", "--score=e7e5=0", "--others=-150"]
    judge.write_text(
        f"#!{sys.executable}\nimport runpy, sys\nsys.argv = ['scripted'] + {args!r}\n"
        f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    judge.chmod(0o755)
    with client(kosteniuk_casebase.parent, judge=str(judge)) as app:
        yield app


def _answer(app, **body):
    response = app.post("/api/ask", json={"fen": AFTER_E4, "experts": [EXPERT], "lines": 2, **body})
    assert response.status_code == 200, response.json()
    return response.json()["answers"][0]


def test_with_a_judge_ask_answers_the_likeliest_move_and_every_candidates_chance(judged):
    answer = _answer(judged)
    chances = [c["chance"] for c in answer["candidates"]]
    assert len(chances) >= 3 and chances == sorted(chances, reverse=True)
    # Selection likely: the argmax of the chances
    assert answer["best"] == answer["candidates"][0]["san"]
    assert answer["reasons"]["played"]["reason"] == "likely"
    assert sum(chances) + answer["more_chance"] == pytest.approx(100, abs=0.5)
    losing = [c for c in answer["candidates"] if c["losing"]]
    assert losing and all(c["loss"] >= LOSING and c["score"] == "-150 cp" for c in losing)
    assert all(c["loss"] < LOSING for c in answer["candidates"] if not c["losing"])
    assert len(answer["lines"]) == 2 and "ratings" not in answer
    # the game cards' words (issue #53)
    assert answer["plain"] == sentences(answer["reasons"]) and answer["plain"]
    assert not any(
        word in " ".join(answer["plain"]) for word in ("chooser", "prior", "calibrated")
    ), answer["plain"]
    assert no_engines_left()


def test_the_chances_at_several_ratings_come_in_one_ask(judged):
    answer = _answer(judged, ratings=True)
    assert [r["elo"] for r in answer["ratings"]] == list(RATINGS)
    for rated in answer["ratings"]:
        assert rated["best"] == rated["candidates"][0]["san"]
        assert sum(c["chance"] for c in rated["candidates"]) + rated[
            "more_chance"
        ] == pytest.approx(100, abs=0.5)
    weakest, strongest = answer["ratings"][0], answer["ratings"][-1]
    losing = [
        sum(c["chance"] for c in r["candidates"] if c["losing"]) for r in (weakest, strongest)
    ]
    assert losing[0] > losing[1]  # the weaker player plays the losing moves more often
    assert (
        judged.post(
            "/api/ask", json={"fen": AFTER_E4, "experts": [EXPERT], "ratings": "yes"}
        ).status_code
        == 400
    )
    assert no_engines_left()


def test_without_a_judge_ask_answers_the_priors_choice_and_shares(kosteniuk_casebase):
    with client(kosteniuk_casebase.parent) as app:
        answer = _answer(app)
    candidates = answer["candidates"]
    assert (
        candidates
        and all(c["chance"] is None for c in candidates)
        and answer["more_chance"] is None
    )
    shares = [c["share"] for c in candidates]
    assert shares == sorted(shares, reverse=True) and answer["best"] in [
        c["san"] for c in candidates
    ]
    assert answer["reasons"]["played"]["reason"] in ("argmax", "search")
    assert all(
        chess.Move.from_uci(c["uci"]) in chess.Board(AFTER_E4).legal_moves for c in candidates
    )
