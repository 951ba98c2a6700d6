"""``python -m tournament run|report|demo``: the expert-versus-expert experiment and the demo
(the fidelity benches are ``python -m fidelity``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from casebase.format import CasebaseError
from engine.agents import defaults
from engine.agents.factory import Loader
from engine.agents.modes import MODES
from engine.agents.options import OptionValue
from engine.cbr.configurations import parse_configurations
from engine.outside.clock import TimeControl
from engine.outside.launch import LaunchError
from engine.style.model import ModelError
from engine.style.personal import casebase_files
from tournament.demo import (
    DEFAULT_BLACK,
    DEFAULT_CONTROL,
    DEFAULT_MODE,
    DEFAULT_PLIES,
    DEFAULT_WHITE,
    demo,
)
from tournament.players import casebase_entrant, engine_entrant, parse_options
from tournament.report import write_report
from tournament.runner import TournamentSettings, run


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tournament", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    r = commands.add_parser(
        "run",
        help="play a round robin between casebases (resumable)",
        description="Every configuration, every ordered pair of players,"
        " --rounds games each; then the report. Run it again with the same"
        " --out to resume an interrupted run.",
    )
    r.add_argument(
        "--casebases",
        nargs="+",
        default=[],
        type=Path,
        metavar="X.npz",
        help="the experts' casebases (player id = file name without .npz); none for a match of"
        " --engines",
    )
    r.add_argument(
        "--configs",
        nargs="+",
        default=None,
        metavar="CONFIG",
        help="'thesis' (the five of cbr-agent.md section 6, default), their names,"
        ' or weight lists such as "0.8 0.8 0.5"; a match of --engines alone plays'
        " one ('balanced' unless given): the weights are the casebase players'",
    )
    r.add_argument("--rounds", type=int, default=3, help="games per ordered pair (default 3)")
    r.add_argument(
        "--mode",
        choices=list(MODES),
        default=defaults.TOURNAMENT_MODE,
        help=f"engine mode (default {defaults.TOURNAMENT_MODE})",
    )
    r.add_argument("--tc", default="40/5400", help="time control, PGN style (default 40/5400)")
    r.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: all cores)"
    )
    r.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="play the games as tasks of the Ray cluster at ADDRESS (auto, HOST:PORT or"
        " ray://HOST:PORT) instead of local workers; needs the extra: pip install -e '.[cluster]'",
    )
    r.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    r.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="SPEC",
        help='an outside UCI engine as reference player, e.g. "name=sf1350'
        " cmd=/usr/games/stockfish option.UCI_LimitStrength=true option.UCI_Elo=1350"
        ' elo=1350" (repeatable)',
    )
    r.add_argument(
        "--uci",
        action="store_true",
        help="drive the casebases through the UCI engine even in pure mode"
        " (same games as the in-process fast path, slower)",
    )
    r.add_argument(
        "--judge",
        default="",
        metavar="PATH",
        help="an outside UCI engine that judges the casebase players' proposals"
        " (guided mode's option Judge), e.g. /usr/games/stockfish",
    )
    r.add_argument(
        "--tables",
        default=None,
        metavar="FOLDER",
        help='the endgame tables every casebase player plays with (option Tables; "" for none);'
        " default: none in pure mode, as the thesis's agents had none, the engine's own folder in"
        " the others",
    )
    r.add_argument(
        "--model",
        default="",
        metavar="MODEL.npz",
        help="guided mode's style model for every engine, as option Model (default: each engine's"
        " own choice, its casebase's personal model where there is one, else the generic one)",
    )
    r.add_argument(
        "--similarity",
        choices=("shallow", "learned"),
        default="shallow",
        help="pure mode's option Similarity for every casebase player: the thesis's shallow"
        " similarity (default) or the learned one (each casebase's X.embed.npz: make embeddings)",
    )
    r.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of our engine for every casebase player, e.g. Selection=calibrated,"
        " UCI_LimitStrength=true, UCI_Elo=1800 or JudgeDepth=8 (repeatable)",
    )
    r.add_argument("--event", default="CBR expert round robin", help="PGN Event tag")
    r.add_argument("--out", required=True, type=Path, help="run directory")

    p = commands.add_parser("report", help="rebuild a run's report from its PGN")
    p.add_argument("directory", type=Path)

    d = commands.add_parser("demo", help="one game between two experts, through the UCI engine")
    d.add_argument("--white", type=Path, default=DEFAULT_WHITE)
    d.add_argument("--black", type=Path, default=DEFAULT_BLACK)
    d.add_argument(
        "--plies",
        type=int,
        default=DEFAULT_PLIES,
        help="stop after this many half-moves if the rules have not ended the game (default"
        f" {DEFAULT_PLIES})",
    )
    d.add_argument(
        "--mode",
        choices=list(MODES),
        default=DEFAULT_MODE,
        help=f"how the engines play (default {DEFAULT_MODE}; pure: the thesis's agent)",
    )
    d.add_argument(
        "--tc", default=DEFAULT_CONTROL, help=f"time control (default {DEFAULT_CONTROL})"
    )
    d.add_argument("--config", default="balanced", help="weight configuration (default balanced)")
    d.add_argument("--seed", type=int, default=1, help="master seed (default 1)")

    return parser


def _tables(given: str | None, mode: str) -> str | None:
    """Option Tables of the casebase players: as given, else none in the thesis's pure mode
    (docs/experiment.md) and the engine's default folder (None) in the other modes."""
    return given if given is not None else ("" if mode == "pure" else None)


def _configs(given: list[str] | None, casebases: list[Path]) -> list[str]:
    """The configurations to play: as given, else the thesis's five, or for a match of outside
    engines alone one (their weights change nothing there, so five would play the same games
    five times)."""
    return given if given is not None else (["thesis"] if casebases else ["balanced"])


def _options(similarity: str, texts: list[str]) -> dict[str, OptionValue]:
    """The engine options every casebase player plays with: ``--similarity``'s where it is not the
    default, then ``--option``'s."""
    return ({"Similarity": similarity} if similarity != "shallow" else {}) | parse_options(texts)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            # a shell's casebases/*.npz names their profiles too
            casebases = casebase_files(args.casebases)
            entrants = [casebase_entrant(p) for p in casebases]
            entrants += [engine_entrant(text) for text in args.engine]
            settings = TournamentSettings(
                entrants=tuple(entrants),
                configs=tuple(parse_configurations(_configs(args.configs, casebases))),
                rounds=args.rounds,
                mode=args.mode,
                control=TimeControl.parse(args.tc),
                seed=args.seed,
                event=args.event,
                via_uci=args.uci,
                judge=args.judge,
                model=args.model,
                tables=_tables(args.tables, args.mode),
                options=tuple(_options(args.similarity, args.option).items()),
            )
            if len(entrants) < 2:
                raise ValueError("a round robin needs at least two players")
            if args.model:
                Loader().model(args.model)  # a bad model file stops the run before any game
            if args.workers is not None and args.workers < 1:
                raise ValueError(f"--workers must be at least 1, not {args.workers}")
            run(settings, args.out, workers=args.workers, cluster=args.cluster)
            print(write_report(args.out))
        elif args.command == "report":
            print(write_report(args.directory))
        else:
            if args.plies < 1:
                raise ValueError("--plies must be at least 1")
            demo(
                args.white,
                args.black,
                plies=args.plies,
                config=parse_configurations([args.config])[0],
                seed=args.seed,
                mode=args.mode,
                control=TimeControl.parse(args.tc),
            )
    except (ValueError, OSError, CasebaseError, ModelError, LaunchError, RuntimeError) as exc:
        print(f"python -m tournament {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if args.command == "run":
            print(
                f"\ninterrupted: the finished games are kept in {args.out};"
                " run the same command again to resume",
                file=sys.stderr,
            )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
