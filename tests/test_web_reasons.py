"""The reasons parser (web/reasons.py) on lines the engine really wrote (guided, judged, calibrated,
limited, pure, MultiPV)."""

from __future__ import annotations

from web.reasons import gather, parse_line, percent, ranked

GUIDED = [
    "the style model (Alexandra Kosteniuk's personal 8x96) proposes d6 49%, e6 26%, Nc6 22%, g6 1% and 18 more;"
    " 1 nearest cases of Alexandra Kosteniuk (similarity 256 to 256/256) (stop came after 1 of 64 adaptations)"
    " vote Nc6 100%, weighing 50%: prior Nc6 61%, d6 24%, e6 13%",
    "search depth 1, 23 nodes: best Nc6 (-50 cp); 3 of 3 proposed moves sound (within 50 cp)",
    "played Nc6, the expert's prior's first choice (61%), sound at depth 1 (-50 cp)",
    "Nc6 adapted from case 119 of Alexandra Kosteniuk: Kostjukovich, Svetlana - Kosteniuk, Alexandra,"
    " Wch U12 Disney Girls, 1996.??.??, move 2 (ply 3); similarity 256/256; 100% of the votes from 1 of 1 cases",
]
JUDGED = [
    "judge: /usr/games/stockfish, threads 1, hash 16 MB",
    "the style model (Alexandra Kosteniuk's personal 8x96) proposes h5 46%, Be7 30%, Nbd7 17%, Nc6 4% and 31 more;"
    " 24 nearest cases of Alexandra Kosteniuk (similarity 235 to 225/256) (stop came after 24 of 64 adaptations):"
    " not the position itself, so they do not vote",
    "judge Stockfish 15.1: depth 7, 0.01 s, 962 nodes: best Be7 (+25 cp); it scored 1 of 5 proposed moves, 1 sound"
    " (within 25 cp)",
    "played Be7, drawn by the error model (100% of 1 moves judge Stockfish 15.1 scored): it loses 0.0 % of the expected"
    " score; Alexandra Kosteniuk loses that much or more in 100% of opening moves (Alexandra Kosteniuk's error profile"
    " (400 positions, with the model: s 0.0326, c 0.63, prior weight 0.44))",
]
PURE = [
    "case 3214 of Alexandra Kosteniuk: Santos, Santos Pablo - Kosteniuk, Alexandra, San Agustin opJ, 1997.??.??,"
    " move 1 (ply 1, Black to move)",
    "similarity 256/256; 25 of 2739 cases with Black to move tied at best, one drawn",
    "case move g6; played g6 (the case move itself, L 1.00000)",
]


def test_shares_read_as_percentages_with_the_rest_counted():
    assert percent("<1%") == 0.5 and percent("61%") == 61
    assert ranked("d6 49%, g6 <1% and 18 more") == {"moves": [{"san": "d6", "share": 49}, {"san": "g6", "share": 0.5}],
                                                    "more": 18}
    assert ranked("O-O 12%, exd8=Q+ 3%")["moves"][1]["san"] == "exd8=Q+"


def test_a_guided_move_gives_the_prior_the_verdict_the_reason_and_the_case():
    reasons = gather(GUIDED)
    prior = reasons["prior"]
    assert [m["san"] for m in prior["proposes"]["moves"]] == ["d6", "e6", "Nc6", "g6"]
    assert prior["proposes"]["more"] == 18 and prior["cases"] == 1 and prior["similarity"] == [256, 256]
    assert prior["votes"]["moves"] == [{"san": "Nc6", "share": 100}] and prior["case_weight"] == 50
    assert prior["prior"]["moves"][0] == {"san": "Nc6", "share": 61}
    verdict = reasons["verdict"]
    assert verdict["by"] == "search" and verdict["depth"] == 1 and verdict["best"] == "Nc6"
    assert verdict["score"] == "-50 cp" and (verdict["sound"], verdict["proposed"], verdict["tolerance"]) == (3, 3, 50)
    assert reasons["played"]["san"] == "Nc6" and reasons["played"]["why"].startswith("the expert's prior's first choice")
    case = reasons["case"]
    assert (case["case"], case["move"], case["ply"], case["similarity"]) == (119, 2, 3, 256)
    assert case["white"] == "Kostjukovich, Svetlana" and case["black"] == "Kosteniuk, Alexandra"
    assert case["event"] == "Wch U12 Disney Girls" and case["date"] == "1996.??.??" and case["votes"] == 100
    assert reasons["text"] == [] and reasons["setup"] == []


def test_a_judged_calibrated_move_says_what_it_loses_and_how_often_the_expert_does():
    reasons = gather(JUDGED)
    assert reasons["setup"][0]["text"].startswith("judge: ")
    assert "votes" not in reasons["prior"] and reasons["prior"]["note"].startswith("not the position itself")
    verdict = reasons["verdict"]
    assert verdict["by"] == "Stockfish 15.1" and verdict["depth"] == 7 and verdict["scored"] == 1 and verdict["sound"] == 1
    played = reasons["played"]
    assert played["loss"] == 0.0 and played["often"] == 100 and played["phase"] == "opening"
    assert played["expert"] == "Alexandra Kosteniuk"


def test_pure_mode_lines_give_the_case_and_the_adaptation():
    reasons = gather(PURE)
    assert reasons["case"]["case"] == 3214 and reasons["case"]["side"] == "Black"
    assert reasons["case"]["white"] == "Santos, Santos Pablo" and reasons["case"]["event"] == "San Agustin opJ"
    assert reasons["similarity"]["similarity"] == 256 and reasons["similarity"]["tied"] == 25
    assert reasons["played"]["san"] == "g6" and reasons["played"]["why"] == "the case move itself"


def test_multipv_lines_and_unknown_lines():
    line = parse_line("line 2: e5, 21% of the prior, +0 cp at depth 1")
    assert line == {"kind": "line", "rank": 2, "san": "e5", "share": 21, "score": "+0 cp at depth 1",
                    "text": "line 2: e5, 21% of the prior, +0 cp at depth 1"}
    assert parse_line("line 3: c6, <1% of the prior, not scored")["score"] == "not scored"
    assert parse_line("something new the engine says") == {"kind": "text", "text": "something new the engine says"}
    limited = parse_line("played a5, drawn by the error model (15% of 7 moves the search scored): it loses 5.1 % of the"
                         " expected score; Alexandra Kosteniuk loses that much or more in 9% of opening moves (x)")
    assert limited["loss"] == 5.1 and limited["often"] == 9
