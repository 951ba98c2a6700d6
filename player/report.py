"""(7) The report of ``cbr-chess new``: ``DIR/report.md`` and ``DIR/report.json``.

It holds the implied rating with its interval (the profile's, engine.strength.rating, with the
ratings in the games' headers as a prior: player.rating), the personal model's gain on the held-out
games (top-1 of the generic and the personal model on the held-out cases, learn.evaluate.legal_top1,
as the fidelity bench's personal table reads it), and the loss in balanced positions (the judge's
best within :data:`BALANCED_CP`): the engine's in its calibration match beside the player's own on
the held-out games, by speed class (casebase.speed). Every loss is read from the journals the stages
left, so the report judges nothing.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import chess.pgn
import numpy as np

from casebase.format import Casebase
from casebase.speed import SPEEDS, UNKNOWN, speed_of_clock
from common.files import write_atomic
from engine.outside.clock import TimeControl
from engine.strength.profile import MISTAKE_CP, Profile, loss_stats
from engine.style.loader import default_model
from learn.evaluate import legal_top1
from player.progress import clock
from player.rating import Estimate, estimate, in_words
from player.stages import Folder, Options, judge_heldout, profile_settings
from profiling.intrinsic import judge_games, read_games

#: A balanced position: the judge's best move scores within this many centipawns of equality.
BALANCED_CP = 200
#: The most held-out cases the two models are asked about (spread evenly).
TOP1_POSITIONS = 5000


def balanced(profile: Profile, where: np.ndarray | None = None) -> dict[str, float | None]:
    """The loss statistics of the played moves in the balanced positions of ``profile`` (among
    ``where``; None where there is none: report.json holds no NaN)."""
    mask = np.abs(profile.scores[:, 0]) <= BALANCED_CP
    if where is not None:
        mask &= where
    stats = loss_stats(profile.cp_loss[mask], profile.played[mask])
    return {
        key: None if isinstance(value, float) and math.isnan(value) else value
        for key, value in stats.items()
    }


def by_speed(profile: Profile) -> dict[str, dict[str, float | None]]:
    """The balanced-position statistics of every speed class present, then of all the positions."""
    speeds = profile.speeds
    present = [s for s in (*SPEEDS, UNKNOWN) if (speeds == s).any()]
    return {**{s: balanced(profile, speeds == s) for s in present}, "all": balanced(profile)}


def match_score(pgn: Path, slug: str) -> tuple[float, int]:
    """The player's engine's points and games in the match's PGN."""
    points, games = 0.0, 0
    with open(pgn, encoding="utf-8") as f:
        while (headers := chess.pgn.read_headers(f)) is not None:
            white = headers.get("White") == slug
            result = headers.get("Result", "*")
            games += 1
            points += {
                "1-0": 1.0 if white else 0.0,
                "0-1": 0.0 if white else 1.0,
                "1/2-1/2": 0.5,
            }.get(result, 0.0)
    return points, games


def measure(options: Options, folder: Folder, opponent: str) -> dict[str, Any]:
    """Everything the report says, as its JSON holds it."""
    casebase = Casebase.load(folder.casebase)
    profile = Profile.of(casebase)
    assert profile is not None
    heldout = judge_heldout(options, folder, None)
    games = read_games([folder.match / "results.pgn"], folder.slug, exact=True)
    engine = judge_games(
        games,
        profile_settings(options, options.record_positions),
        None,
        folder.journal("games"),
        progress=False,
    )[0]
    control = TimeControl.parse(options.tc)
    generic = legal_top1(default_model()[0], folder.heldout, TOP1_POSITIONS)
    personal = (
        legal_top1(folder.model, folder.heldout, TOP1_POSITIONS) if folder.model.exists() else None
    )
    points, played = match_score(folder.match / "results.pgn", folder.slug)
    return {
        "player": casebase.expert,
        "spellings": casebase.meta.get("spellings"),
        "games": casebase.num_games,
        "heldout_games": Casebase.load(folder.heldout).num_games,
        "judge": profile.meta.get("judge"),
        "depth": profile.meta.get("depth"),
        "multipv": profile.meta.get("multipv"),
        "rating": estimate(casebase, profile).as_json(),
        "profile": {
            "positions": len(profile.rows),
            "most": options.positions,
            "stop_within": options.stop_within,
            "narrow": bool(profile.meta.get("stop", {}).get("narrow")),
        },
        "top1": {
            "positions": generic[1],
            "generic": generic[0],
            "personal": None if personal is None else personal[0],
        },
        "balanced_cp": BALANCED_CP,
        "mistake_cp": MISTAKE_CP,
        "player_heldout": by_speed(heldout),
        "engine": {
            "opponent": opponent,
            "time_control": options.tc,
            "points": points,
            "games": played,
            "speed": speed_of_clock(
                control.seconds,
                control.increment,
                moves=control.moves,
                lichess=casebase.on_lichess(),
            ),
            **balanced(engine),
        },
    }


def _row(name: str, stats: dict[str, Any], engine: dict[str, Any]) -> str:
    """A row of the table: ``stats``, and the engine's against them where both have positions."""
    if not stats["positions"]:
        return f"| {name} | 0 | | | |"
    against = ""
    if engine["positions"] and stats["mean_cp_loss"]:
        against = (
            f"{100 * (engine['mean_cp_loss'] / stats['mean_cp_loss'] - 1):+.0f} %,"
            f" {100 * (engine['mistakes'] - stats['mistakes']):+.1f} points"
        )
    return (
        f"| {name} | {stats['positions']} | {stats['mean_cp_loss']:.1f} |"
        f" {100 * stats['mistakes']:.1f} % | {against} |"
    )


def _judged(profile: dict[str, Any]) -> str:
    """Where the profile's judging stopped, in words: the interval narrow enough, else all it was
    given."""
    if profile["narrow"]:
        return (
            f"the profile's judging stopped at {profile['positions']} of at most {profile['most']}"
            f" positions, the rating's interval then within {100 * profile['stop_within']:g} % of"
            " what they would give"
        )
    return (
        f"the profile judged {profile['positions']} of the player's positions (at most"
        f" {profile['most']})"
    )


def _times(seconds: dict[str, float | None]) -> str:
    """The line of the stages' times: ``Made in 7:31: the casebase 0:04, ...``."""
    said = [
        f"{name} {'not recorded' if spent is None else clock(spent)}"
        for name, spent in seconds.items()
    ]
    total = sum(spent for spent in seconds.values() if spent is not None)
    recorded = "" if None not in seconds.values() else " (the stages recorded)"
    return f"Made in {clock(total)}{recorded}: {', '.join(said)}."


def markdown(report: dict[str, Any]) -> str:
    """The report in words and tables."""
    r, top1, engine = report["rating"], report["top1"], report["engine"]
    model = (
        "the default model plays (torch is not installed: no personal model)"
        if top1["personal"] is None
        else f"the player's own model {100 * top1['personal']:.1f} % against the default model's"
        f" {100 * top1['generic']:.1f} % ({100 * (top1['personal'] - top1['generic']):+.1f} points)"
    )
    lines = [
        f"# {report['player']}: the engine made by cbr-chess new",
        "",
        f"{report['games']} games in the casebase, the latest {report['heldout_games']} held out"
        f" for this report; judged by {report['judge']} at depth {report['depth']}, MultiPV"
        f" {report['multipv']}; {_judged(report['profile'])}.",
        "",
        f"- implied rating: {in_words(Estimate.of_json(r))} (the experts' rating line,"
        " docs/strength.md)",
        f"- top-1 on the {top1['positions']} held-out positions: {model}",
        f"- calibration match against {engine['opponent']} at {engine['time_control']}"
        f" ({engine['speed']}): {engine['points']:g}/{engine['games']}",
        "",
        f"Loss in balanced positions (the judge's best within {report['balanced_cp']} cp): mean"
        f" centipawns lost a move and the share of moves losing {report['mistake_cp']} cp or more.",
        "",
        "| who | positions | cp a move | mistakes | the engine against them |",
        "|---|---|---|---|---|",
        *(
            _row(f"the player, held-out games, {speed}", stats, engine)
            for speed, stats in report["player_heldout"].items()
        ),
        _row(f"the engine, its match ({engine['speed']})", engine, {"positions": 0}),
        "",
        _times(report["seconds"]),
    ]
    return "\n".join(lines) + "\n"


def write_report(
    options: Options, folder: Folder, opponent: str, seconds: dict[str, float | None]
) -> list[Path]:
    """Measure and write ``report.json`` and ``report.md`` in the player's folder (atomically), with
    the ``seconds`` each earlier stage took and the report's own."""
    started = time.monotonic()
    report = measure(options, folder, opponent)
    report["seconds"] = {**seconds, "the report": time.monotonic() - started}
    json_path, md_path = folder.root / "report.json", folder.root / "report.md"
    write_atomic(json_path, json.dumps(report, indent=1, default=float) + "\n")
    write_atomic(md_path, markdown(report))
    return [json_path, md_path]
