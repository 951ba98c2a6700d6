"""The calibrated round robin and its figures made again, over several runs (``make strength``).

    python -m experiments.calibrated [--runs 3] [--out results/strength] [--casebases X.npz ...]
        [--rounds 6] [--tc 40/20] [--judge /usr/games/stockfish] [--positions 1000]
        [--workers 2 | --cluster ADDRESS] [--games-records [--ship]] [--quiet]

For each run K of ``--runs`` (into OUT/run-K, seed K − 1: run 1 is the seed 0 of
docs/results/2026-11-23-as-strong-as-the-expert.md):

1. **round robin**: the casebases (default the seven ladder experts) in guided mode with the judge,
   so ``Selection auto``, their calibrated choice; the balanced weights, ``--rounds`` games an
   ordered pair at ``--tc``, then the tournament's report
   (docs/results/2026-11-23-as-strong-as-the-expert.md, "The calibrated round robin"); on the Ray
   cluster at ADDRESS with ``--cluster`` (and so is the judging of steps 2 and 3; else on
   ``--workers`` local processes);
2. **intrinsic**: every engine's moves judged and rated beside its expert's profile
   (``experiments.intrinsic``): intrinsic.md, intrinsic.json and intrinsic.png;
3. **records** (``--games-records``): the games records remade from the run's games (profiling's
   ``--engine-games``, as the Makefile's PROFILE does) into copies of the casebases in
   OUT/run-K/casebases/ (and of casebases/heldout/ where there are); with ``--ship``, run 1's games
   and journals replace the shipped ones in data/ (then ``make casebases`` refits the profiles).

Then the spread over the runs (experiments.spread): OUT/summary.md, summary.json, summary.png.
Every step resumes: the tournament and the judges' journals go on where they stopped, and a step
recorded as finished in OUT/run-K/steps.json with the same settings is skipped. Progress on stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from casebase.format import Casebase, CasebaseError
from casebase.profilefile import profile_path
from common.cli import positive_int
from common.figures import FiguresUnavailable
from common.files import write_atomic
from common.paths import PROJECT_ROOT as ROOT
from engine.cbr.configurations import parse_configurations
from engine.outside.clock import TimeControl
from engine.outside.launch import LaunchError
from engine.strength.calibration import PLAY_JUDGE_DEPTH
from engine.strength.likelihood import CALIBRATION_POSITIONS
from engine.style.personal import beside
from experiments import intrinsic, intrinsic_table, spread
from experiments.ladder import ladder_casebases
from experiments.strength import STOCKFISH
from profiling import ProfileError
from profiling.games import add_games
from profiling.judging import DEPTH, MULTIPV
from profiling.play import PlaySettings
from profiling.workers import Where
from tournament.players import casebase_entrant
from tournament.report import write_report
from tournament.runner import TournamentSettings, run
from tournament.store import RESULTS

#: What each run keeps of its steps (which finished, with which settings).
STEPS = "steps.json"
#: The shipped games the records are drawn from (the Makefile's GAMES_PGN) and the shipped journals.
SHIPPED_GAMES = Path("games") / "round-robin-40-20.pgn"
#: Their time control: a run at another makes no shipped record.
SHIPPED_TC = "40/20"
SHIPPED_JOURNALS = Path("profiles")


@dataclass(frozen=True)
class Plan:
    """What every run plays and measures (``--workers`` and ``--cluster`` change no game)."""

    casebases: tuple[Path, ...]
    rounds: int = 6
    tc: str = "40/20"
    judge: str = str(STOCKFISH)
    positions: int = 1000
    games_records: bool = False
    #: The games' positions each games record holds (profiling's --engine-games-positions).
    record_positions: int = CALIBRATION_POSITIONS
    workers: int | None = 2
    cluster: str | None = None
    progress: bool = True

    @property
    def where(self) -> Where:
        """Where the judging steps judge: where the games are played."""
        return Where(self.workers or 1, self.cluster)

    def settings(self, step: str, seed: int) -> dict[str, Any]:
        """What a step's results depend on: a step recorded with other settings is done again."""
        games = {
            "casebases": [p.stem for p in self.casebases],
            "rounds": self.rounds,
            "tc": self.tc,
            "judge": self.judge,
            "seed": seed,
        }
        return {
            "round-robin": games,
            "intrinsic": {**games, "positions": self.positions},
            "records": {
                **games,
                "positions": self.record_positions,
                "judge_depth": PLAY_JUDGE_DEPTH,
            },
        }[step]


class Steps:
    """The finished steps of one run (``steps.json``: each step's settings), written atomically."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / STEPS
        self.done: dict[str, Any] = (
            json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else {}
        )

    def finished(self, step: str, settings: dict[str, Any]) -> bool:
        return self.done.get(step) == settings

    def finish(self, step: str, settings: dict[str, Any]) -> None:
        self.done[step] = settings
        write_atomic(self.path, json.dumps(self.done, indent=2, sort_keys=True) + "\n")


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def step(
    steps: Steps, name: str, settings: dict[str, Any], work: Callable[[], None], label: str
) -> None:
    """Do ``work`` unless it is recorded as finished with ``settings``; then record it."""
    if steps.finished(name, settings):
        say(f"{label}: {name}: done before, skipped")
        return
    say(f"{label}: {name} ...")
    work()
    steps.finish(name, settings)
    say(f"{label}: {name}: done")


def play(plan: Plan, directory: Path, seed: int) -> None:
    """The calibrated round robin (resuming the tournament in ``directory``) and its report."""
    settings = TournamentSettings(
        entrants=tuple(casebase_entrant(p) for p in plan.casebases),
        configs=tuple(parse_configurations(["balanced"])),
        rounds=plan.rounds,
        mode="guided",
        control=TimeControl.parse(plan.tc),
        seed=seed,
        judge=plan.judge,
    )
    run(settings, directory, workers=plan.workers, cluster=plan.cluster, progress=plan.progress)
    write_report(directory)


def rate(plan: Plan, directory: Path) -> None:
    """The engines' intrinsic ratings in the run (resuming their journals), as a table, JSON and a
    plot."""
    games, rows = intrinsic.rate_players(
        directory,
        plan.judge,
        plan.casebases[0].parent,
        positions=plan.positions,
        progress=plan.progress,
        where=plan.where,
    )
    text = intrinsic.heading(games, DEPTH, MULTIPV) + "\n" + intrinsic_table.table(rows) + "\n"
    write_atomic(directory / "intrinsic.md", text)
    write_atomic(
        directory / spread.INTRINSIC, json.dumps(spread.intrinsic_json(rows), indent=2) + "\n"
    )
    try:
        intrinsic_table.plot(rows, directory / "intrinsic.png")
    except FiguresUnavailable:
        say("no matplotlib: intrinsic.png not drawn (pip install 'cbr-chess[plots]')")


def copy_casebase(source: Path, folder: Path) -> Path:
    """A copy of the casebase at ``source`` in ``folder``, with its profile and personal model
    beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in (source, profile_path(source), beside(source)):
        if path.exists():
            shutil.copyfile(path, folder / path.name)
    return folder / source.name


def records(plan: Plan, directory: Path) -> None:
    """Each casebase's games record (and its held-out casebase's, where there is one) from the run's
    games, into copies of the casebases under ``directory``; the shipped files are left as they
    are."""
    journals, settings = (
        directory / "records",
        PlaySettings(plan.record_positions, PLAY_JUDGE_DEPTH),
    )
    for source in plan.casebases:
        expert = source.stem
        for kind, original in (("", source), (".heldout", source.parent / "heldout" / source.name)):
            # no held-out casebase, or not profiled: no record
            if not profile_path(original).exists():
                continue
            copy = copy_casebase(
                original, directory / "casebases" / original.parent.relative_to(source.parent)
            )
            add_games(
                Casebase.load(copy),
                [directory / RESULTS],
                expert,
                settings,
                plan.judge,
                journals / f"{expert}.games.jsonl",
                journals / f"{expert}{kind}.games.play.jsonl",
                progress=plan.progress,
                where=plan.where,
            )


def ship(directory: Path, data: Path) -> list[Path]:
    """Run ``directory``'s games and games-record journals in place of the shipped ones under
    ``data``."""
    written = [data / SHIPPED_GAMES]
    write_atomic(written[0], (directory / RESULTS).read_bytes())
    for journal in sorted((directory / "records").glob("*.jsonl")):
        written.append(data / SHIPPED_JOURNALS / journal.name)
        write_atomic(written[-1], journal.read_bytes())
    return written


def summarise(out: Path, count: int) -> str:
    """The spread over the runs made so far: summary.md, summary.json and summary.png in ``out``."""
    runs = [r for k in range(1, count + 1) if (r := spread.read_run(out / f"run-{k}")) is not None]
    text = spread.markdown(runs)
    write_atomic(out / "summary.md", text)
    write_atomic(
        out / "summary.json", json.dumps([dataclasses.asdict(r) for r in runs], indent=2) + "\n"
    )
    if runs:
        try:
            spread.plot(runs, out / "summary.png")
        except FiguresUnavailable:
            say("no matplotlib: summary.png not drawn (pip install 'cbr-chess[plots]')")
    return text


def remake(plan: Plan, out: Path, runs: int, *, ship_to: Path | None = None) -> str:
    """Every step of every run not done yet, then the summary over the runs (its Markdown)."""
    folders = {p.parent for p in plan.casebases}
    if len(folders) != 1:
        raise ValueError(
            "the casebases must be in one folder (the intrinsic step finds each expert's there)"
        )
    for k in range(1, runs + 1):
        directory, label = out / f"run-{k}", f"run {k}/{runs}"
        directory.mkdir(parents=True, exist_ok=True)
        steps = Steps(directory)
        step(
            steps,
            "round-robin",
            plan.settings("round-robin", k - 1),
            partial(play, plan, directory, k - 1),
            label,
        )
        step(
            steps,
            "intrinsic",
            plan.settings("intrinsic", k - 1),
            partial(rate, plan, directory),
            label,
        )
        if plan.games_records:
            step(
                steps,
                "records",
                plan.settings("records", k - 1),
                partial(records, plan, directory),
                label,
            )
    if ship_to is not None:
        for path in ship(out / "run-1", ship_to):
            say(f"shipped: {path}")
        say("make casebases refits the shipped profiles from them")
    return summarise(out, runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.calibrated",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--runs", type=positive_int, default=3, help="how many runs (default 3)")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "results" / "strength", help="default results/strength"
    )
    parser.add_argument(
        "--casebases", type=Path, nargs="+", help="default: the ladder experts' in casebases/"
    )
    parser.add_argument(
        "--rounds", type=positive_int, default=Plan.rounds, help="games an ordered pair (default 6)"
    )
    parser.add_argument("--tc", default=Plan.tc, help="time control (default 40/20)")
    parser.add_argument(
        "--judge", default=Plan.judge, metavar="PATH", help="the engines' judge and the ratings'"
    )
    parser.add_argument(
        "--positions",
        type=positive_int,
        default=Plan.positions,
        metavar="N",
        help="moves an engine judged for its intrinsic rating (default 1000)",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=Plan.workers,
        help="local workers, for the games and the judging (default 2)",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the games and judge on the Ray cluster at ADDRESS",
    )
    parser.add_argument(
        "--games-records",
        action="store_true",
        help="remake the games records from each run's games",
    )
    parser.add_argument(
        "--ship", action="store_true", help="with --games-records: run 1's records replace data/'s"
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bars (the steps are still said)"
    )
    args = parser.parse_args(argv)
    if args.ship and not args.games_records:
        parser.error("--ship needs --games-records")
    if args.ship and args.tc != SHIPPED_TC:
        parser.error(
            f"--ship needs --tc {SHIPPED_TC}: the shipped games records are of the round robin"
            f" at {SHIPPED_TC}"
        )
    try:
        TimeControl.parse(args.tc)
        plan = Plan(
            tuple(args.casebases or ladder_casebases()),
            rounds=args.rounds,
            tc=args.tc,
            judge=args.judge,
            positions=args.positions,
            games_records=args.games_records,
            workers=args.workers,
            cluster=args.cluster,
            progress=not args.quiet,
        )
        missing = [str(p) for p in plan.casebases if not p.exists()]
        if missing:
            raise ValueError(f"no casebase {', '.join(missing)} (make casebases)")
        print(remake(plan, args.out, args.runs, ship_to=ROOT / "data" if args.ship else None))
    except (ValueError, OSError, RuntimeError, CasebaseError, ProfileError, LaunchError) as exc:
        print(f"python -m experiments.calibrated: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        say(
            f"interrupted: what is finished is kept in {args.out}; run the same command again"
            " to go on"
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
