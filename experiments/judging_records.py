"""``python -m experiments.judging records`` (:mod:`experiments.judging`): the calibration the
engine plays with each expert's play-time record left out or cut to its first N positions, beside
the spread of N random positions and the whole record's bootstrap, and how far a UCI_Elo setting
moves."""

from __future__ import annotations

import math

import numpy as np

from engine.strength.calibration import set_on
from engine.strength.errormodel import ErrorModel
from engine.strength.profile import PlayRecord
from engine.strength.rating import RATING_LINE
from experiments.judged_experts import (
    Expert,
    change,
    sizes_within,
)
from experiments.judges import first_of, picked
from experiments.play import calibration_of


def losses_of(model: ErrorModel, record: PlayRecord) -> float:
    """What ``model``'s choices lose a move in ``record``'s positions, as the profile judges
    them."""
    return model.expected_loss(record.loss, record.log_prior, record.true_loss)


def spread_of(
    model: ErrorModel,
    record: PlayRecord,
    reference: PlayRecord,
    size: int,
    draws: int,
    rng: np.random.Generator,
) -> float:
    """The standard deviation, in percent of the whole record's calibration, of the loss in
    ``reference``'s positions of the sensitivity set on ``draws`` draws of ``size`` of ``record``'s
    positions (all of them: a bootstrap, drawn with replacement)."""
    whole = losses_of(set_on(model, record), reference)
    bootstrap = size == len(record.moves)
    found = [
        losses_of(
            set_on(model, picked(record, rng.choice(len(record.moves), size, replace=bootstrap))),
            reference,
        )
        for _ in range(draws)
    ]
    return float(100 * np.std(np.array(found) / whole, ddof=1))


def elo_offset(games: PlayRecord, play_loss: float | None, shipped: float) -> float:
    """How far (Elo) a UCI_Elo setting moves where the games' targets over ``play_loss`` (the
    expert's own loss a move in the play-time record's positions; None: no play-time record, the
    scale 1 the engine then takes) replace the ``shipped`` scale: the loss asked is the rating
    line's times that scale (strength.md §4), so the rating played is the set one plus B ln(scale /
    shipped) on the line rating = A + B ln(100 loss)."""
    scale = 1.0 if play_loss is None else float(games.target.mean()) / play_loss
    return RATING_LINE[1] * math.log(scale / shipped)


def elo_spread(
    games: PlayRecord,
    play: PlayRecord,
    size: int,
    draws: int,
    rng: np.random.Generator,
    shipped: float,
) -> float:
    """The standard deviation (Elo) of :func:`elo_offset` over ``draws`` draws of ``size`` of the
    play-time record's positions (all of them: a bootstrap)."""
    bootstrap = size == len(play.target)
    return float(
        np.std(
            [
                elo_offset(
                    games, float(rng.choice(play.target, size, replace=bootstrap).mean()), shipped
                )
                for _ in range(draws)
            ],
            ddof=1,
        )
    )


def records_table(chosen: list[Expert], sizes: list[int], draws: int) -> None:
    rng = np.random.default_rng(0)
    sizes = sorted(sizes, reverse=True)
    print(
        "| expert | calibrated on | s | prior weight | loss a move in its games' positions (change)"
        " | spread: N random positions (all: bootstrap) | in the expert's positions (change) |"
        " UCI_Elo moves (Elo) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for e in chosen:
        calibration = calibration_of(e.casebase)
        fitted = calibration.fitted or calibration.model
        play, games = e.profile.play, e.profile.games
        if play is None:
            raise SystemExit(
                f"{e.id}: its profile has no play-time record to calibrate on: make casebases"
            )
        play_sizes = sizes_within(len(play.moves), sizes, f"{e.id}'s play-time record")
        # where the engine's own games' positions are known
        reference = games if games is not None else play
        variants: list[tuple[str, ErrorModel, str, str]] = []
        if games is not None:
            own = float(play.target.mean())
            for n in sizes_within(len(games.moves), sizes, f"{e.id}'s games record"):
                spread = spread_of(fitted, games, games, n, draws, rng)
                offset = elo_offset(first_of(games, n), own, calibration.target_scale)
                variants.append(
                    (
                        f"games record, first {n}",
                        set_on(fitted, first_of(games, n)),
                        f"{spread:.1f} %",
                        f"{offset:+.0f}",
                    )
                )
            for n in play_sizes:
                moved = elo_offset(games, float(play.target[:n].mean()), calibration.target_scale)
                elo_sd = elo_spread(games, play, n, draws, rng, calibration.target_scale)
                variants.append(
                    (
                        f"games record; play-time record first {n}",
                        calibration.model,
                        "",
                        f"{moved:+.0f} (sd {elo_sd:.0f})",
                    )
                )
            variants.append(
                (
                    "games record; play-time record left out",
                    calibration.model,
                    "",
                    f"{elo_offset(games, None, calibration.target_scale):+.0f}",
                )
            )
            fitted_loss = float(e.profile.meta["fit"]["expected_loss"])
            variants.append(
                (
                    "games record; UCI_Elo scaled by the profile fit's expected loss instead",
                    calibration.model,
                    "",
                    f"{elo_offset(games, fitted_loss, calibration.target_scale):+.0f}",
                )
            )
        for n in play_sizes:
            spread = spread_of(fitted, play, reference, n, draws, rng)
            left = "" if games is None else " (games record left out)"
            variants.append(
                (
                    f"play-time record, first {n}{left}",
                    set_on(fitted, first_of(play, n)),
                    f"{spread:.1f} %",
                    "",
                )
            )
        variants.append(("neither: the likelihood fit's s", fitted, "", ""))
        shipped = losses_of(calibration.model, reference), losses_of(calibration.model, play)
        for name, model, noise, elo in variants:
            in_games, in_own = losses_of(model, reference), losses_of(model, play)
            print(
                f"| {e.id} | {name} | {model.sensitivity:.3g} | {model.prior_weight:.2f}"
                f" | {100 * in_games:.2f} % ({change(in_games, shipped[0])}) | {noise}"
                f" | {change(in_own, shipped[1])} | {elo} |",
                flush=True,
            )
