"""The seven stages of ``cbr-chess new``, each the project's own command's work on the player's
folder (docs/usage.md, "A new player's engine"): nothing here measures or writes what another
package already does, it calls it.

Every stage writes its outputs atomically (the builder, the profile's file, the report) or one
finished unit at a time (the judging and play-time journals, the match's games), so that a kill
loses at most the position or game under way; :mod:`player.book` decides which stages a rerun
keeps. The calibration match, stage 6, is :mod:`player.match`'s.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from casebase.builder import build
from casebase.embeddings import make_embeddings
from casebase.format import Casebase, CasebaseError
from casebase.games import GameFilter
from casebase.holdout import held_out_games, write_pgn
from engine.strength.calibration import PLAY_JUDGE_DEPTH
from engine.strength.likelihood import CALIBRATION_POSITIONS
from engine.strength.profile import Profile
from engine.style.lc0 import is_network
from engine.style.loader import default_model
from engine.style.personal import SUFFIX, choose_model, network_candidates, sidecar
from player import PlayerError
from player.rating import positions_needed
from profiling.intrinsic import judge_games, read_games
from profiling.judging import DEPTH, MULTIPV, POSITIONS, Settings, sample
from profiling.pipeline import add_play, make_profile, store
from profiling.play import PlaySettings
from profiling.workers import Where

#: How much wider than ``--positions`` would make it the stated rating interval may be when the
#: profile's judging stops (issue #62; docs/results/2026-11-25-any-players-engine.md, "How many
#: profile positions the fit needs").
STOP_WITHIN = 0.05
#: The most positions an epoch of the player's own network fits on
#: (learn.own_network.OwnConfig.epoch_positions): Duda's 47,136 took 4:21 whole on 2 cores (issue
#: #62).
OWN_EPOCH_POSITIONS = 20_000
#: The profile's first round of judged positions, whose bootstrap says how many more the interval
#: needs, and the step the later rounds are rounded up to.
FIRST_ROUND = 200
ROUND_STEP = 50


@dataclass(frozen=True)
class Options:
    """What the command was asked for (the flags of ``cbr-chess new``)."""

    pgn: Path
    player: str
    judge: str
    out: Path
    speed: str = "all"
    cluster: str | None = None
    holdout: float = 0.15
    # the most: the judging stops once the interval is narrow enough (stop_within)
    positions: int = POSITIONS
    stop_within: float = STOP_WITHIN  # 0: judge all of ``positions``
    # as many as the held-out casebases of make fidelity
    heldout_positions: int = CALIBRATION_POSITIONS
    play_positions: int = CALIBRATION_POSITIONS
    # 16 gave 1,262 of the engine's moves from move 9 on in Navara's match (79 a game, issue #62): 8
    # give the games record's 400 half again as many to draw from, in half the time
    games: int = 8
    tc: str = "40/20"  # the shipped games records' round robin's
    record_positions: int = CALIBRATION_POSITIONS
    depth: int = DEPTH
    multipv: int = MULTIPV
    judge_depth: int = PLAY_JUDGE_DEPTH
    opponent: Path | None = None
    workers: int | None = None
    # the judged positions shared by every run (profiling.cache); None: none
    cache: Path | None = None


@dataclass(frozen=True)
class Folder:
    """Where each stage's files lie in the player's folder."""

    root: Path
    slug: str

    @property
    def casebase(self) -> Path:
        return self.root / f"{self.slug}.npz"

    @property
    def model(self) -> Path:
        """The player's own model: an lc0 network where lc0's backend plays the default one, else a
        personal 8x96."""
        if is_network(default_model()[0]):
            return network_candidates(self.casebase)[0]
        return self.root / f"{self.slug}{SUFFIX}"

    @property
    def heldout_pgn(self) -> Path:
        return self.root / "heldout.pgn"

    @property
    def heldout(self) -> Path:
        return self.root / "heldout.npz"

    def journal(self, name: str) -> Path:
        return self.root / "journals" / f"{name}.jsonl"

    @property
    def match(self) -> Path:
        return self.root / "match"


def slug_of(player: str) -> str:
    """The player's name as a file name: lower case, letters and digits, words joined by '-'."""
    words = "".join(c.lower() if c.isalnum() else " " for c in player).split()
    if not words:
        raise PlayerError(f"--player {player!r}: give the player's name")
    return "-".join(words)


def selection(options: Options) -> GameFilter:
    """The games the casebase takes: the player's (the builder's name matching), the latest
    ``holdout`` of them held out for the report, of the speed class ``speed`` only unless it is
    all."""
    return GameFilter(
        options.player,
        exclude_latest=options.holdout,
        speed=None if options.speed == "all" else options.speed,
    )


def build_casebase(options: Options, folder: Folder) -> list[Path]:
    """(1) The casebase of the player's games but the held-out ones, and its cases' embeddings by
        the
    default network (the learned similarity's: guided mode's precedents, pure mode's Similarity
    learned)."""
    build([options.pgn], selection(options), workers=options.workers, progress=False).save(
        folder.casebase
    )
    network, _ = default_model()
    # a wheel without the lc0 network: the engine says it has no precedents
    if not is_network(network):
        return [folder.casebase]
    try:
        return [
            folder.casebase,
            make_embeddings(folder.casebase, network, workers=options.workers, progress=False),
        ]
    except CasebaseError as exc:  # they only feed the precedents: the engine is made without them
        print(
            f"cbr-chess new: no embeddings of the cases ({exc}): the engine cites no precedents",
            file=sys.stderr,
        )
        return [folder.casebase]


def hold_out(options: Options, folder: Folder) -> list[Path]:
    """(2) The player's latest games, as PGN and as a casebase of their own (the report's)."""
    write_pgn(
        folder.heldout_pgn,
        held_out_games([options.pgn], selection(options), workers=options.workers, progress=False),
    )
    build(
        [folder.heldout_pgn], GameFilter(options.player), workers=options.workers, progress=False
    ).save(folder.heldout)
    return [folder.heldout_pgn, folder.heldout]


def torch_installed() -> bool:
    """Whether the personal model can be fitted here (the [train] extra), without importing it
    (seconds)."""
    return importlib.util.find_spec("torch") is not None


def personal_model(options: Options, folder: Folder) -> list[Path]:
    """(3) The player's own network (or personal 8x96) beside the casebase (where torch is
    installed)."""
    if not torch_installed():
        for stale in (folder.model, sidecar(folder.model)):
            stale.unlink(missing_ok=True)  # a model of other games must not play
        print(
            "cbr-chess new: torch is not installed (pip install -e '.[train]'): no personal model,"
            " the default model plays",
            file=sys.stderr,
        )
        return []
    if is_network(folder.model):
        # torch: imported only where installed
        from learn.own_network import OwnConfig, make_own_network

        make_own_network(
            folder.casebase,
            folder.model,
            default_model()[0],
            OwnConfig(epoch_positions=OWN_EPOCH_POSITIONS),
            progress=False,
        )
        return [folder.model, sidecar(folder.model)]
    from learn.personal import personalise

    personalise(folder.casebase, folder.model, progress=False)
    return [folder.model]


def profile_settings(options: Options, positions: int) -> Settings:
    return Settings(positions=positions, depth=options.depth, multipv=options.multipv)


def judging_workers(options: Options) -> int:
    """The local processes stages 4 to 6 judge on: ``--workers``, else one a core (each holds a
    judge, which searches on one thread: launch sets no Threads)."""
    return options.workers or os.cpu_count() or 1


def judging_where(options: Options) -> Where:
    """Where stages 4 to 6 judge: on the Ray cluster with ``--cluster``, else on
    :func:`judging_workers` local processes."""
    return Where(judging_workers(options), options.cluster)


def judge_profile(options: Options, folder: Folder) -> list[Path]:
    """(4) The player's moves judged and fitted into the profile, in rounds until the stated
        rating's
    interval is within ``stop_within`` of what ``positions`` would give (:func:`judged_in_rounds`;
    the stop is stored with the profile, ``meta["stop"]``); the held-out games' moves judged too,
    for the report (both journals resumed; on Ray with ``--cluster``)."""
    casebase = Casebase.load(folder.casebase)
    most = profile_most(casebase, options)
    profile, narrow = judged_in_rounds(
        lambda n: make_profile(
            casebase,
            profile_settings(options, n),
            options.judge,
            folder.journal("profile"),
            progress=False,
            where=judging_where(options),
            cache=options.cache,
        ),
        lambda judged: positions_needed(casebase, judged, most, options.stop_within),
        first_round(options.play_positions),
        most,
        options.stop_within,
    )
    profile.meta["stop"] = {"most": most, "within": options.stop_within, "narrow": narrow}
    store(casebase, profile)
    judge_heldout(options, folder, options.judge)
    return [folder.journal("profile"), folder.journal("heldout")]


def first_round(play_positions: int) -> int:
    """The profile's first round: :data:`FIRST_ROUND`, and at least the play-time record's positions
    (stage 5 plays the profile's first ``play_positions``)."""
    return max(FIRST_ROUND, play_positions)


def next_round(needed: int, most: int) -> int:
    """The positions the next round judges to where ``needed`` asks: rounded up to
    :data:`ROUND_STEP`, at most ``most``."""
    return min(most, -(-needed // ROUND_STEP) * ROUND_STEP)


def judged_in_rounds(
    judge: Callable[[int], Profile],
    needed: Callable[[Profile], int],
    first: int,
    most: int,
    within: float,
) -> tuple[Profile, bool]:
    """The profile ``judge`` makes of its first N positions, N growing in rounds: ``first``, then
    what ``needed`` asks of the profile so far (:func:`next_round`), until it asks no more, the
    positions run out (the profile holds fewer than asked) or ``most`` are judged; all ``most`` at
    once where ``within`` is 0. And whether it stopped because the profile asked no more (False: it
    ran out, or judged ``most``)."""
    wanted = min(first, most) if within > 0 else most
    while True:
        profile = judge(wanted)
        if len(profile.rows) < wanted or wanted >= most:
            return profile, False
        asked = needed(profile)
        if asked <= wanted:
            return profile, True
        wanted = next_round(asked, most)


def profile_most(casebase: Casebase, options: Options) -> int:
    """The most positions the profile judges: ``--positions``, or the player's eligible ones where
    fewer."""
    return min(options.positions, eligible(casebase, options))


def eligible(casebase: Casebase, options: Options) -> int:
    """The player's positions the profile may judge (from the settings' first move on)."""
    return len(sample(casebase, profile_settings(options, options.positions))[0])


def judge_heldout(options: Options, folder: Folder, judge: str | None) -> Profile:
    """The held-out games' judged moves (judged where the journal lacks them and ``judge`` is
    given)."""
    games = read_games([folder.heldout_pgn], options.player)
    return judge_games(
        games,
        profile_settings(options, options.heldout_positions),
        judge,
        folder.journal("heldout"),
        progress=False,
        where=judging_where(options),
        cache=options.cache,
    )[0]


def record_play(options: Options, folder: Folder) -> list[Path]:
    """(5) The engine's play-time choices on the profile's first positions (strength.md §3)."""
    add_play(
        Casebase.load(folder.casebase),
        PlaySettings(options.play_positions, options.judge_depth),
        options.judge,
        folder.journal("play"),
        progress=False,
        where=judging_where(options),
    )
    return [folder.journal("play")]


def clear(paths: list[Path]) -> None:
    """Remove a stage's journals or folders before it starts afresh (its inputs changed)."""
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            os.unlink(path)


def model_of(folder: Folder) -> Path:
    """The model the player's engine plays (``Model auto``: the personal one where made)."""
    return Path(choose_model(Casebase.load(folder.casebase)).path)
