"""Running the seven stages in order: each skipped where an earlier run finished it with the same
inputs (:mod:`player.book`), resumed where one was stopped in it, shown on the one progress line
(:mod:`player.progress`)."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from casebase.format import Casebase, CasebaseError
from casebase.profilefile import profile_path
from common.files import file_sha256
from engine.strength.profile import Profile
from engine.style.lc0 import is_network
from player.book import StageBook, key_of
from player.match import calibration_match, opponent
from player.progress import Part, Progress
from player.rating import positions_needed
from player.report import write_report
from player.stages import (
    OWN_EPOCH_POSITIONS,
    Folder,
    Options,
    build_casebase,
    clear,
    first_round,
    hold_out,
    judge_profile,
    judging_workers,
    next_round,
    personal_model,
    profile_most,
    record_play,
    torch_installed,
)
from profiling.cache import judge_sha256, taken

#: Seconds a unit of each stage took on one core of 2 when the command was measured (issue #62:
#: Navara's 50 and Giri's 200 games from masters-2500plus, Stockfish 15.1 judging on 2 workers: a
#: profile position 0.45 s, a play-time choice 0.22, a games record's position judged and played
#: 0.45, a match game at 40/20 35; the personal 8x96, issue #42). The judged units and the games are
#: shared among the workers (:func:`judges`), and the ETA scales them all by this run's own pace as
#: it goes. A game's cases embedded: Ivanchuk's 107,417 cases of 2,500 games in 218 s. A game of the
#: own network, its epochs capped (OWN_EPOCH_POSITIONS): Giri's 170 in 21 s, Duda's 984 in 113 s.
SECONDS = {
    "pgn_byte": 2e-8,
    "personal_game": 0.2,
    "own_game": 0.12,
    "judged": 0.45,
    "played": 0.22,
    "game": 35.0,
    "recorded": 0.45,
    "report_case": 0.01,
    "embedded_game": 0.1,
}
#: The player's games assumed until the casebase says how many (for the first ETA only).
GAMES_GUESS = 1000
#: The share of ``--positions`` the profile's judging is expected to stop at before its first round
#: says: the shipped experts' first 200 positions asked for 600 to 680 of their 1,200
#: (player.rating.positions_needed).
EXPECTED_SHARE = 0.55


@dataclass(frozen=True)
class Stage:
    """One stage: its name on the progress line, its work, which earlier stages it reads, what it
    removes before starting afresh, and its parts (for the progress line)."""

    name: str
    work: Callable[[Options, Folder], list[Path]]
    reads: tuple[int, ...]
    flags: tuple[str, ...]
    fresh: Callable[[Folder], list[Path]]
    parts: Callable[[Options, Folder], Sequence[Part]]


def lines(path: Path) -> int:
    """A journal's entries (its lines but the header), or the games saved in a match folder."""
    if path.is_dir():
        return len(list((path / "games").glob("*.pgn"))) if (path / "games").is_dir() else 0
    if not path.exists():
        return 0
    with open(path, "rb") as f:
        return max(sum(1 for _ in f) - 1, 0)


def player_games(folder: Folder) -> int:
    """The player's games in the casebase (:data:`GAMES_GUESS` before it is made); read again only
    when the file changes, for the progress line asks at each redraw (a casebase takes tens of ms to
    load)."""
    if not folder.casebase.exists():
        return GAMES_GUESS
    stat = folder.casebase.stat()
    return _games_in(folder.casebase, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4)
def _games_in(path: Path, mtime_ns: int, size: int) -> int:
    return Casebase.load(path, tell=False).num_games


def _parts_build(options: Options, folder: Folder) -> list[Part]:
    size = options.pgn.stat().st_size
    return [Part(1, SECONDS["pgn_byte"] * size + 1.0, "", lambda: 0)]


def _parts_casebase(options: Options, folder: Folder) -> list[Part]:
    return [
        *_parts_build(options, folder),
        Part(1, SECONDS["embedded_game"] * player_games(folder), "", lambda: 0),
    ]


def _parts_personal(options: Options, folder: Folder) -> list[Part]:
    seconds = SECONDS["own_game" if is_network(folder.model) else "personal_game"] * player_games(
        folder
    )
    return [Part(1, seconds if torch_installed() else 0.0, "", lambda: 0)]


def judges(options: Options) -> tuple[str, int]:
    """Who judges stages 4 to 6, in the progress line's words, and how many positions they judge at
    once on this machine (a judge a core: more workers than cores are no faster; a cluster's share
    is not known here, so it counts as one)."""
    if options.cluster:
        return "on the cluster", 1
    workers = judging_workers(options)
    return f"by {workers} worker{'s' if workers > 1 else ''}", min(workers, os.cpu_count() or 1)


def profile_total(options: Options, folder: Folder) -> int:
    """The profile's positions the judging is expected to stop at: all where it does not stop early
    or they fit in the first round; where the last round's interval says (the stored profile,
    written at each round, as :func:`player.stages.judge_profile` reads it); before the first round
    says, :data:`EXPECTED_SHARE`."""
    first = first_round(options.play_positions)
    if options.stop_within <= 0 or options.positions <= first:
        return options.positions
    guess = max(first, round(EXPECTED_SHARE * options.positions))
    journal, stored = folder.journal("profile"), profile_path(folder.casebase)
    if not folder.casebase.exists() or not stored.exists() or lines(journal) < first:
        return guess
    try:
        return _needed(folder.casebase, stored.stat().st_mtime_ns, options)
    except (OSError, CasebaseError):  # the profile replaced as it is read: the next redraw reads it
        return guess


@functools.lru_cache(maxsize=4)
def _needed(casebase_path: Path, mtime_ns: int, options: Options) -> int:
    casebase = Casebase.load(casebase_path, tell=False)
    profile = Profile.of(casebase)
    most = profile_most(casebase, options)
    if profile is None:
        return most
    needed = positions_needed(casebase, profile, most, options.stop_within)
    return len(profile.rows) if needed <= len(profile.rows) else next_round(needed, most)


def _parts_judge(options: Options, folder: Folder) -> list[Part]:
    by, at_once = judges(options)
    return [
        Part(
            profile_total(options, folder),
            SECONDS["judged"] / at_once,
            f"positions judged {by}",
            lambda: lines(folder.journal("profile")),
            lambda: taken(folder.journal("profile")),
        ),
        Part(
            options.heldout_positions,
            SECONDS["judged"] / at_once,
            f"held-out positions judged {by}",
            lambda: lines(folder.journal("heldout")),
            lambda: taken(folder.journal("heldout")),
        ),
    ]


def _parts_play(options: Options, folder: Folder) -> list[Part]:
    by, at_once = judges(options)
    return [
        Part(
            options.play_positions,
            SECONDS["played"] / at_once,
            f"positions played {by}",
            lambda: lines(folder.journal("play")),
        )
    ]


def _parts_match(options: Options, folder: Folder) -> list[Part]:
    games = 2 * max(1, options.games // 2)
    by, at_once = judges(options)
    return [
        Part(games, SECONDS["game"] / at_once, "games", lambda: lines(folder.match)),
        Part(
            options.record_positions,
            SECONDS["recorded"] / at_once,
            f"games' positions judged and played {by}",
            lambda: lines(folder.journal("games.play")),
        ),
    ]


def _parts_report(options: Options, folder: Folder) -> list[Part]:
    return [
        Part(1, SECONDS["report_case"] * 15 * player_games(folder) * options.holdout, "", lambda: 0)
    ]


def _nothing(folder: Folder) -> list[Path]:
    return []


#: The games the casebase and the held-out games are made of.
GAMES = ("player", "speed", "holdout")

STAGES = (
    Stage("the casebase", build_casebase, (), GAMES, _nothing, _parts_casebase),
    Stage("the held-out games", hold_out, (), GAMES, _nothing, _parts_build),
    Stage("the personal model", personal_model, (0,), (), _nothing, _parts_personal),
    Stage(
        "judging the profile",
        judge_profile,
        (0, 1),
        ("judge", "positions", "stop_within", "heldout_positions", "depth", "multipv"),
        lambda f: [f.journal("profile"), f.journal("heldout")],
        _parts_judge,
    ),
    Stage(
        "the play-time choices",
        record_play,
        (2, 3),
        ("judge", "play_positions", "judge_depth"),
        lambda f: [f.journal("play")],
        _parts_play,
    ),
    Stage(
        "the calibration match",
        calibration_match,
        (4,),
        ("judge", "games", "tc", "opponent", "record_positions", "judge_depth"),
        lambda f: [f.match, f.journal("games"), f.journal("games.play")],
        _parts_match,
    ),
    Stage(
        "the report",
        lambda o, f: write_report(o, f, opponent(o, f).stem, stage_seconds(f)),
        (1, 5),
        (),
        _nothing,
        _parts_report,
    ),
)


def stage_seconds(folder: Folder) -> dict[str, float | None]:
    """The seconds each stage before the report took (its runs' together; None: not recorded)."""
    book = StageBook(folder.root)
    return {stage.name: book.seconds(stage.name) for stage in STAGES[:-1]}


def stage_inputs(k: int, options: Options, keys: list[str]) -> dict[str, Any]:
    """What stage ``k``'s outputs depend on: the flags it reads, its files' SHA-256, the keys of the
    stages it reads (so that a stage made again makes those after it again)."""
    flags = asdict(options)
    inputs: dict[str, Any] = {
        "stage": k,
        "reads": [keys[j] for j in STAGES[k].reads],
        **{name: flags[name] for name in STAGES[k].flags},
    }
    if STAGES[k].flags == GAMES:
        inputs["pgn"] = file_sha256(options.pgn)
    if "judge" in inputs:  # the engine itself: another build at the same path judges otherwise
        inputs["judge"] = judge_sha256(options.judge)
    if k == 2:
        inputs["torch"] = torch_installed()
        inputs["epoch_positions"] = OWN_EPOCH_POSITIONS  # a network fitted otherwise is made again
    return inputs


def new(options: Options, folder: Folder, *, progress: bool = True) -> Path:
    """Run every stage not finished yet; return the report's path."""
    book = StageBook(folder.root, folder.slug)
    shown = Progress(
        [stage.name for stage in STAGES],
        lambda k: STAGES[k].parts(options, folder),
        enabled=progress,
    )
    keys: list[str] = []
    for k, stage in enumerate(STAGES):
        key = key_of(stage_inputs(k, options, keys))
        keys.append(key)
        if book.finished(stage.name, key):
            shown.kept(k)
            continue
        if book.start(stage.name, key):
            clear(stage.fresh(folder))
        started = time.monotonic()
        try:
            with shown.stage(k):
                outputs = stage.work(options, folder)
        finally:  # a stopped stage's seconds count too: the rerun that finishes it adds its own
            book.spent(stage.name, time.monotonic() - started)
        book.finish(stage.name, key, outputs)
    return folder.root / "report.md"
