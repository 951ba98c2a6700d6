"""The chooser's ceiling (issue #51): the conditional logit fitted on the very records it is
measured on, pooled and expert by expert, and where the choice is lost."""

from __future__ import annotations

import chess
import numpy as np
from test_chooser import SCALES, kosteniuk_records, simulated  # noqa: F401 (a fixture, used by name)

from casebase.phases import Phase
from engine.strength.chooser_features import FEATURES
from learn.chooser.ceiling import KINDS, ceiling, hits, kind, log_likelihood_of
from learn.chooser.fit import fit
from learn.chooser.records import Record


def position(scores: list[int], prior: list[float], played: int) -> Record:
    n = len(scores)
    return Record(
        "k/0/30",
        chess.Board(),
        [chess.Move.null()] * n,
        scores,
        prior,
        np.zeros((n, len(FEATURES))),
        played,
        Phase.MIDDLEGAME,
    )


def test_the_played_move_is_the_judge_s_best_the_prior_s_likeliest_neither_or_no_candidate():
    assert kind(position([30, 10, -20], [0.2, 0.5, 0.3], 0)) == KINDS[1]  # the judge's best
    assert kind(position([30, 10, -20], [0.2, 0.5, 0.3], 1)) == KINDS[1]  # the prior's likeliest
    assert kind(position([30, 30, -20], [0.6, 0.1, 0.3], 1)) == KINDS[1]  # best alike with another
    assert kind(position([30, 10, -20], [0.2, 0.5, 0.3], 2)) == KINDS[2]
    assert kind(position([30, 10, -20], [0.2, 0.5, 0.3], -1)) == KINDS[0]


def test_fitted_on_the_records_themselves_no_chooser_fitted_elsewhere_explains_them_better():
    truth = np.random.default_rng(3).normal(scale=0.7, size=len(FEATURES)) / SCALES
    records = {"one": simulated(truth, 300, seed=1), "two": simulated(truth, 300, seed=2)}
    found = ceiling(records)
    every = records["one"] + records["two"]
    elsewhere = fit(simulated(truth, 600, seed=9)).chooser  # the same player's other positions
    assert found.log_likelihood >= log_likelihood_of(elsewhere, every)
    assert np.array_equal(found.pooled, hits(fit(every).chooser, every))
    # one chooser each, fitted on its own positions alone: at least as likely on each as the pooled
    # one
    for positions in records.values():
        assert log_likelihood_of(fit(positions).chooser, positions) >= log_likelihood_of(
            fit(every).chooser, positions
        )
    assert len(found.own) == len(found.kinds) == 600


def test_the_command_reports_the_ceiling_and_where_the_choice_is_lost(kosteniuk_records, capsys):  # noqa: F811
    from learn.chooser.__main__ import main

    assert main(["ceiling", "--records", f"kosteniuk-2200={kosteniuk_records}"]) == 0
    out = capsys.readouterr().out
    rows = {
        line.split("|")[1].strip(): line.split("|")[2:4]
        for line in out.splitlines()
        if line.startswith("| ")
    }
    assert (
        "one chooser fitted on all of them" in rows
        and "one chooser an expert, each fitted on its expert's" in rows
    )
    counts = [int(rows[name][0].split()[0]) for name in KINDS]
    # no position lost; a move no candidate is never picked
    assert sum(counts) == 400 and int(rows[KINDS[0]][1]) == 0
