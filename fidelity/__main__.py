"""``python -m fidelity run|summary|compare|personal-table|personal-gains``: does the engine play
the expert's moves? One expert's run on held-out games, the table over experts, the paired
difference of two modes, and the cross-expert table of personal models with their gains."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from casebase.format import CasebaseError
from common.cli import positive_int
from common.files import write_atomic
from engine.agents import defaults
from engine.cbr.configurations import parse_configurations
from engine.outside.builtin import installed_search, missing
from engine.outside.launch import LaunchError
from engine.strength.chooser import ChooserError
from engine.style.model import ModelError
from engine.style.prior import PriorSource
from fidelity.modes import DEFAULT_MODES, FIDELITY_MODES, FidelityMode
from fidelity.personal_table import Gain, cross_table, gains_markdown, plot_gains
from fidelity.replay import measure, write_json
from fidelity.report import compare_markdown, load_run, plot_summary, run_markdown, summary_markdown
from fidelity.settings import DEFAULT_GUIDED_NODES, DEFAULT_JUDGE, FidelitySettings

#: The weight configuration of pure and guided mode: the engine's default weights (50 50 50).
DEFAULT_CONFIG = "balanced"


def mode_word(word: str) -> FidelityMode:
    """A mode named on the command line."""
    try:
        return FidelityMode(word)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{word!r} is not a mode: one of {', '.join(FIDELITY_MODES)}"
        ) from None


def parser() -> argparse.ArgumentParser:
    """The command line (each command sets ``handler``: args -> the text to print)."""
    main_parser = argparse.ArgumentParser(prog="python -m fidelity", description=__doc__)
    commands = main_parser.add_subparsers(dest="command", required=True)
    f = commands.add_parser(
        "run",
        help="how often the engine plays the expert's move in held-out games",
        description="Replay the expert's games the casebase has not seen (python -m casebase"
        " holdout): for every move the expert made, give each mode the position with the"
        " game's history and count how often it plays the expert's move. The defaults are the"
        " engine's.",
    )
    f.add_argument(
        "--casebase",
        required=True,
        type=Path,
        metavar="X.npz",
        help="the expert's casebase, built without the games of --heldout",
    )
    f.add_argument(
        "--heldout",
        required=True,
        type=Path,
        metavar="HELDOUT.pgn",
        help="the held-out games (.pgn or .pgn.gz)",
    )
    f.add_argument(
        "--player",
        metavar="NAME",
        help="the expert as named in the games"
        " (default: the casebase's expert), matched as the builder matches it",
    )
    f.add_argument("--exact-name", action="store_true", help="match the name literally")
    f.add_argument(
        "--modes",
        nargs="+",
        type=mode_word,
        default=list(DEFAULT_MODES),
        metavar="MODE",
        help=f"any of {', '.join(FIDELITY_MODES)} (default: all but puct)",
    )
    f.add_argument(
        "--config",
        default=DEFAULT_CONFIG,
        help=f'weights of pure and guided mode: a name or "v1 v2 v3" (default {DEFAULT_CONFIG})',
    )
    g = f.add_mutually_exclusive_group()
    g.add_argument("--guided-depth", type=positive_int, metavar="D", help="guided search depth")
    g.add_argument(
        "--guided-nodes",
        type=positive_int,
        default=DEFAULT_GUIDED_NODES,
        metavar="N",
        help=f"guided search nodes (default {DEFAULT_GUIDED_NODES}; puct mode: the network's"
        " visits)",
    )
    g.add_argument(
        "--guided-movetime",
        type=positive_int,
        metavar="MS",
        help="milliseconds a move instead, for the modes the Python search plays (a judge keeps"
        " its depth; as on a clock: not reproducible)",
    )
    f.add_argument(
        "--judge",
        default=DEFAULT_JUDGE,
        metavar="PATH",
        help="the UCI engine of stockfish mode, and the judge of the judged modes: a path, or"
        f" builtin, the built-in search (cbr-chess-search; default {DEFAULT_JUDGE})",
    )
    f.add_argument(
        "--judge-depth",
        type=positive_int,
        default=defaults.BENCH_DEPTH,
        metavar="D",
        help=f"the depth of stockfish mode and of the judge (default {defaults.BENCH_DEPTH})",
    )
    f.add_argument(
        "--chooser",
        default=defaults.CHOOSER,
        metavar="CHOOSER.npz",
        help="the chooser of mode judged-chooser, as option Chooser (default auto: the shipped"
        " one)",
    )
    f.add_argument(
        "--tolerance",
        type=int,
        default=defaults.TOLERANCE,
        metavar="CP",
        help=f"guided mode's Tolerance in centipawns (default {defaults.TOLERANCE})",
    )
    f.add_argument(
        "--judge-tolerance",
        type=int,
        default=defaults.JUDGE_TOLERANCE,
        metavar="CP",
        help=f"judged mode's JudgeTolerance in centipawns (default {defaults.JUDGE_TOLERANCE})",
    )
    f.add_argument(
        "--prior",
        type=PriorSource,
        choices=tuple(PriorSource),
        default=defaults.PRIOR,
        help=f"guided mode's prior, as option Prior (default {defaults.PRIOR})",
    )
    f.add_argument(
        "--model",
        default=defaults.MODEL,
        metavar="MODEL",
        help="the style model of --prior model or blend, as option Model: a .npz, an lc0 network"
        " (.pb.gz) or a shipped one's name (default auto: the shipped network Maia-1900, without"
        " lc0's backend the casebase's personal model where there is one, else the generic 8x96);"
        " mode generic always plays the shipped default model",
    )
    f.add_argument(
        "--case-weight",
        type=int,
        default=defaults.CASE_WEIGHT_PERCENT,
        metavar="PERCENT",
        help="the cases' weight in the blend where the position is a case, as option CaseWeight"
        f" (default {defaults.CASE_WEIGHT_PERCENT})",
    )
    f.add_argument(
        "--positions",
        type=positive_int,
        metavar="N",
        help="play only N of the expert's moves, spread evenly (default: all)",
    )
    f.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    f.add_argument(
        "--workers", type=positive_int, metavar="N", help="worker processes (default: all cores)"
    )
    f.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the positions on the Ray cluster at ADDRESS instead (pip install -e"
        " '.[cluster]')",
    )
    f.add_argument("--out", type=Path, metavar="FILE.json", help="also write the results as JSON")
    f.set_defaults(handler=_run)

    s = commands.add_parser("summary", help="one table (and plot) over fidelity runs")
    s.add_argument("runs", nargs="+", type=Path, metavar="RUN.json")
    s.add_argument("--out", type=Path, metavar="SUMMARY.md", help="write the table here")
    s.add_argument(
        "--plot",
        type=Path,
        metavar="PLOT.png",
        help="the plot (default: --out with .png; none without --out)",
    )
    s.set_defaults(handler=_summary)

    c = commands.add_parser(
        "compare",
        help="paired difference of two modes (or two runs) on the same positions",
        description="Per expert, how many more of the expert's moves mode A plays than mode B on"
        " the same positions, with a paired 95 %% interval. B is read from the --against runs when"
        " given (the same experts, in the same order), else from the runs themselves.",
    )
    c.add_argument("a", type=mode_word, metavar="A", help="mode of the runs")
    c.add_argument("b", type=mode_word, metavar="B", help="mode to compare with")
    c.add_argument("runs", nargs="+", type=Path, metavar="RUN.json")
    c.add_argument("--against", nargs="+", type=Path, metavar="RUN.json")
    c.set_defaults(handler=_compare)

    t = commands.add_parser(
        "personal-table",
        help="each expert's personal model on each expert's held-out games (heat map)",
        description="For casebases laid out as make fidelity makes them (X.npz, its held-out games"
        " X.pgn and its personal model X.model.npz beside it): how often each personal model, and"
        " the generic model, names the expert's move in the same positions of every expert's"
        " held-out games.",
    )
    t.add_argument("casebases", nargs="+", type=Path, metavar="X.npz")
    t.add_argument(
        "--positions",
        type=positive_int,
        default=1000,
        metavar="N",
        help="positions of each expert's held-out games, spread evenly (default 1000)",
    )
    t.add_argument(
        "--out",
        type=Path,
        metavar="TABLE.md",
        help="write the table here, and the heat map beside it (.png)",
    )
    t.set_defaults(handler=_personal_table)

    p = commands.add_parser(
        "personal-gains", help="what each personal model gained on its expert's latest games (plot)"
    )
    p.add_argument("models", nargs="+", type=Path, metavar="MODEL.npz")
    p.add_argument(
        "--out",
        type=Path,
        metavar="GAINS.md",
        help="write the table here, and the plot beside it (.png)",
    )
    p.set_defaults(handler=_personal_gains)

    i = commands.add_parser(
        "identify",
        help="who played these? each expert's own network names the player of held-out games",
    )
    i.add_argument(
        "--heldout",
        nargs="+",
        type=Path,
        required=True,
        metavar="ID.pgn",
        help="each expert's held-out games",
    )
    i.add_argument(
        "--networks",
        nargs="+",
        type=Path,
        required=True,
        metavar="ID.pb.gz",
        help="each expert's own network, made without those games (learn personalise)",
    )
    i.add_argument(
        "--games", type=positive_int, default=20, help="the games of one chunk (default 20)"
    )
    i.add_argument("--out", type=Path, metavar="TABLE.md", help="write the table here too")
    i.set_defaults(handler=_identify)
    return main_parser


def _program(judge: str) -> str:
    """The judge's program: ``builtin`` is the built-in search installed beside this Python (as
    option ``Judge builtin`` finds it), else the path as given."""
    if judge.strip().lower() != defaults.JUDGE_BUILTIN:
        return judge
    found = installed_search()
    if found is None:
        raise SystemExit(f"python -m fidelity run: --judge builtin: {missing()}")
    return found


def settings_of(args: argparse.Namespace) -> FidelitySettings:
    """The settings of a ``run`` command line."""
    return FidelitySettings(
        casebase=str(args.casebase),
        config=parse_configurations([args.config])[0],
        seed=args.seed,
        guided_depth=args.guided_depth,
        guided_movetime=args.guided_movetime,
        guided_nodes=None
        if args.guided_depth is not None or args.guided_movetime is not None
        else args.guided_nodes,
        judge=_program(args.judge),
        judge_depth=args.judge_depth,
        prior=args.prior,
        model=args.model,
        case_weight_percent=args.case_weight,
        tolerance=args.tolerance,
        judge_tolerance=args.judge_tolerance,
        chooser=args.chooser,
    )


def _run(args: argparse.Namespace) -> str:
    run = measure(
        args.casebase,
        args.heldout,
        settings_of(args),
        args.modes,
        player=args.player,
        exact_name=args.exact_name,
        positions=args.positions,
        workers=args.workers,
        cluster=args.cluster,
    )
    if args.out:
        write_json(args.out, run.as_json())
    return run_markdown(run)


def _summary(args: argparse.Namespace) -> str:
    runs = [load_run(path) for path in args.runs]
    table = summary_markdown(runs)
    if args.out:
        write_atomic(args.out, table + "\n")
        plot_summary(runs, args.plot or args.out.with_suffix(".png"))
    return table


def _compare(args: argparse.Namespace) -> str:
    runs = [load_run(path) for path in args.runs]
    others = [load_run(path) for path in args.against] if args.against else runs
    if len(others) != len(runs):
        raise ValueError(f"{len(runs)} runs but {len(others)} --against runs")
    return compare_markdown(runs, others, args.a, args.b)


def _personal_table(args: argparse.Namespace) -> str:
    table = cross_table(args.casebases, args.positions)
    text = table.markdown()
    if args.out:
        write_atomic(args.out, text + "\n")
        table.plot(args.out.with_suffix(".png"))
    return text


def _personal_gains(args: argparse.Namespace) -> str:
    gains = [Gain.of(path) for path in args.models]
    text = gains_markdown(gains)
    if args.out:
        write_atomic(args.out, text + "\n")
        plot_gains(gains, args.out.with_suffix(".png"))
    return text


def _identify(args: argparse.Namespace) -> str:
    from fidelity.identify import identify, table

    text = table(identify(args.heldout, args.networks, args.games))
    if args.out:
        write_atomic(args.out, text + "\n")
    return text


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        print(args.handler(args))
    except (
        ValueError,
        OSError,
        CasebaseError,
        ModelError,
        ChooserError,
        LaunchError,
        RuntimeError,
    ) as exc:
        print(f"python -m fidelity {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
