"""``cbr-chess setup [ID ...]``: the shipped experts' casebases and error profiles made into the
casebase folder (the user's data folder of an installed engine, ``casebases/`` of a clone), from the
games and judged positions that ship (casebase/shipped.py), exactly as ``make casebases`` makes
them: the casebase by ``casebase build ID.pgn --player NAME`` (the name from experts.tsv), so that
the expert's own network, which names its casebase by digest, plays it; the profile fitted from the
shipped journals without a judge.

What is there and current is kept (``--force`` makes it again); the casebases are built one after
the other, each on every core, then the profiles are fitted on as many processes. Progress goes to
stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from casebase.builder import build
from casebase.embeddings import embeddings_path, make_embeddings, read_embeddings
from casebase.format import Casebase, CasebaseError
from casebase.games import BuildError, GameFilter
from casebase.profilefile import profile_path
from casebase.shipped import ShippedExpert, shipped_experts
from common.cli import positive_int
from common.files import file_sha256
from common.paths import casebase_folder
from engine.strength.profile import Profile
from engine.style.loader import default_model
from engine.style.model import ModelError
from parallel.pool import unordered_map
from profiling import ProfileError
from profiling.games import add_games
from profiling.judging import Settings
from profiling.pipeline import add_play, make_profile
from profiling.play import PlaySettings

Tell = Callable[[str], None]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def current_casebase(expert: ShippedExpert, path: Path) -> bool:
    """Whether ``path`` holds the casebase ``casebase build`` makes of the expert's shipped games:
    made from this very PGN with the player's name and no other option (a file of other games is
    made again)."""
    try:
        casebase = Casebase.load(path, tell=False)
    except CasebaseError:
        return False
    options = casebase.meta.get("options", {})
    sources = [source.get("sha256") for source in casebase.meta.get("sources", [])]
    return options == GameFilter(expert.player).as_meta() and sources == [file_sha256(expert.pgn)]


def make_casebase(expert: ShippedExpert, path: Path, workers: int | None = None) -> Casebase:
    """The expert's casebase built from the shipped games and written atomically at ``path``."""
    casebase = build([expert.pgn], GameFilter(expert.player), workers=workers, progress=False)
    casebase.save(path)
    return casebase


def current_profile(path: Path) -> bool:
    """Whether the casebase at ``path`` has an error profile beside it that the engine takes."""
    try:
        casebase = Casebase.load(path, tell=False)
    except CasebaseError:
        return False
    return casebase.profile_problem is None and Profile.of(casebase) is not None


def shipped_profile(path: Path, expert_id: str) -> None:
    """The shipped expert's profile and records, fitted from the judged positions that ship without
    a judge, as ``make casebases`` fits them (its PROFILE: the profile, then the play-time record,
    then the games record of the round robin's positions): so that the casebase at ``path`` plays as
    the shipped calibrated engine does. Nothing for an expert without judged positions."""
    expert = shipped_experts()[expert_id]
    journals = expert.journals()
    if not journals:
        return
    make_profile(Casebase.load(path), Settings(), None, journals["journal"], progress=False)
    if "play" in journals:
        add_play(Casebase.load(path), PlaySettings(), None, journals["play"], progress=False)
    if "engine_games_play" in journals:
        add_games(
            Casebase.load(path),
            [expert.round_robin],
            expert_id,
            PlaySettings(),
            None,
            journals["engine_games_journal"],
            journals["engine_games_play"],
            progress=False,
        )


class _Profiler:
    """A worker of the pool: fits one expert's profile (:func:`shipped_profile`), its seconds
    back."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self, expert_id: str) -> tuple[str, float, str | None]:
        started = time.perf_counter()
        try:
            shipped_profile(self.folder / f"{expert_id}.npz", expert_id)
        except (CasebaseError, ProfileError, ModelError, OSError) as exc:
            return expert_id, time.perf_counter() - started, str(exc)
        return expert_id, time.perf_counter() - started, None

    def close(self) -> None:
        pass


def current_embeddings(path: Path, network: Path) -> bool:
    """Whether the casebase at ``path`` has its cases' embeddings by ``network`` beside it."""
    try:
        read_embeddings(Casebase.load(path, tell=False), network)
    except CasebaseError:
        return False
    return True


def setup(
    ids: Sequence[str],
    *,
    workers: int | None = None,
    force: bool = False,
    folder: Path | None = None,
    embed: bool = False,
    tell: Tell = _stderr,
) -> list[str]:
    """Make the shipped experts ``ids`` (all of them when empty) into ``folder`` (the casebase
    folder), with their cases' embeddings by the default network where ``embed``; the problems, one
    line each (none: all made or kept)."""
    experts = shipped_experts()
    if not experts:
        return [
            "no shipped experts here: the installed package lacks its data (casebase/data/),"
            " or the clone its data/"
        ]
    unknown = [name for name in ids if name not in experts]
    if unknown:
        return [
            f"no shipped expert {name!r}: choose among {', '.join(experts)}" for name in unknown
        ]
    folder = casebase_folder() if folder is None else folder
    chosen = [experts[name] for name in dict.fromkeys(ids)] or list(experts.values())
    cores = workers or os.cpu_count() or 1
    problems: list[str] = []
    profiling: list[str] = []
    for n, expert in enumerate(chosen, 1):
        path = folder / f"{expert.id}.npz"
        started = time.perf_counter()
        if not force and current_casebase(expert, path):
            tell(f"setup [{n}/{len(chosen)}] {expert.id}: casebase kept ({path})")
        else:
            try:
                casebase = make_casebase(expert, path, cores)
            except (BuildError, CasebaseError, OSError) as exc:
                problems.append(f"{expert.id}: {exc}")
                continue
            tell(
                f"setup [{n}/{len(chosen)}] {expert.id}: casebase of {casebase.expert},"
                f" {len(casebase)} cases ({time.perf_counter() - started:.1f} s) -> {path}"
            )
        if embed:
            problems += _embedded(expert.id, path, cores, force, tell)
        if not expert.journals():
            tell(f"setup {expert.id}: no judged positions ship for this expert: no error profile")
        elif force or not current_profile(path):
            profiling.append(expert.id)
        else:
            tell(f"setup {expert.id}: error profile kept ({profile_path(path)})")
    if profiling:
        tell(
            f"setup: fitting {len(profiling)} error profile{'s' if len(profiling) > 1 else ''} from"
            f" the shipped judged positions on {min(cores, len(profiling))}"
            f" process{'es' if min(cores, len(profiling)) > 1 else ''}"
        )
    done = 0
    for expert_id, seconds, problem in unordered_map(
        _Profiler, (folder,), profiling, min(cores, len(profiling))
    ):
        done += 1
        if problem is not None:
            problems.append(f"{expert_id}: error profile: {problem}")
        else:
            tell(
                f"setup [{done}/{len(profiling)}] {expert_id}: error profile ({seconds:.1f} s) -> "
                f"{profile_path(folder / f'{expert_id}.npz')}"
            )
    return problems


def _embedded(expert_id: str, path: Path, cores: int, force: bool, tell: Tell) -> list[str]:
    """The cases' embeddings of the casebase at ``path`` made (or kept where current); the problem,
    if any."""
    network, _ = default_model()
    if not force and current_embeddings(path, network):
        tell(f"setup {expert_id}: embeddings kept ({embeddings_path(path)})")
        return []
    started = time.perf_counter()
    tell(f"setup {expert_id}: embedding its cases by {network.name} on {cores} processes")
    try:
        written = make_embeddings(path, network, workers=cores, progress=True)
    except (CasebaseError, OSError) as exc:
        return [f"{expert_id}: embeddings: {exc}"]
    tell(f"setup {expert_id}: embeddings ({time.perf_counter() - started:.1f} s) -> {written}")
    return []


def main(argv: Sequence[str] | None = None) -> int:
    """``cbr-chess setup``: 0 when every expert asked for is there, 1 otherwise (the problems on
    stderr)."""
    names = ", ".join(shipped_experts()) or "none found"
    parser = argparse.ArgumentParser(
        prog="cbr-chess setup",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Make the shipped experts' casebases and error profiles into"
        f" {casebase_folder()}, as make casebases does in a clone; what is there and current is"
        " kept.",
        epilog=f"the shipped experts: {names}",
    )
    parser.add_argument("ids", nargs="*", metavar="ID", help="the experts to make (default: all)")
    parser.add_argument(
        "--workers", type=positive_int, metavar="N", help="processes (default: all cores)"
    )
    parser.add_argument(
        "--force", action="store_true", help="make them again even where they are current"
    )
    parser.add_argument(
        "--embed",
        action="store_true",
        help="also each casebase's embeddings by the default network, for pure mode's Similarity"
        " learned and guided mode's precedents (minutes an expert; make embeddings in a clone)",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        problems = setup(args.ids, workers=args.workers, force=args.force, embed=args.embed)
    except KeyboardInterrupt:
        _stderr("cbr-chess setup: interrupted; what was finished is kept")
        return 130
    for problem in problems:
        _stderr(f"cbr-chess setup: error: {problem}")
    if not problems:
        _stderr(
            f"cbr-chess setup: done in {time.perf_counter() - started:.0f} s; the engine finds them"
            f" by name (--casebase carlsen-2800) in {casebase_folder()}"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
