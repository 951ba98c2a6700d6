"""Start the cbr-chess UCI engine: ``python uci_main.py [--casebase X.npz] [--weights V1 V2 V3] ...``
(installed as the console command ``cbr-chess``); ``cbr-chess web ...`` serves the page that plays it
in a browser instead (web/cli.py), ``cbr-chess new PGN --player NAME`` makes a player's engine (player/cli.py),
and ``cbr-chess info CASEBASE`` says what ``python -m casebase info`` says and the expert's tendencies.

The options set the engine's UCI option defaults; a GUI can still change them with setoption.
"""

from __future__ import annotations

import os

# A UCI engine gets one core per search thread: numpy's BLAS (the style model's products) must
# not start threads of its own, which spin and take the search's core away (set before numpy loads).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse
import sys
from pathlib import Path

from engine.agents import defaults as agent_defaults
from engine.agents.modes import (
    MODES,
    SEED_MAX,
    WEIGHT_OPTIONS,
    default_casebase,
)
from engine.cbr.weights import WEIGHT_CONFIGS, to_hundredths
from engine.uci.protocol import main_loop


def parse_args(argv: list[str] | None = None) -> dict[str, str]:
    """UCI option defaults (name -> text) from the command line."""
    parser = argparse.ArgumentParser(
        prog=Path(sys.argv[0]).name,
        description="A case-based chess engine (UCI) that plays like the expert whose games built its casebase.",
    )
    parser.add_argument(
        "--casebase", metavar="PATH", help=f"casebase .npz to play with (default: {default_casebase()})"
    )
    parser.add_argument(
        "--mode",
        choices=list(MODES),
        help="how to play: "
        + "; ".join(f"{name}, {mode.summary}" for name, mode in MODES.items())
        + f" (default: {agent_defaults.MODE})",
    )
    parser.add_argument(
        "--weights",
        nargs="+",
        metavar="W",
        help="adaptation weights v1 v2 v3, each 0..1 in hundredths, or one of: "
        + ", ".join(WEIGHT_CONFIGS)
        + f" (default: {' '.join([str(agent_defaults.WEIGHT_HUNDREDTHS / 100)] * 3)})",
    )
    parser.add_argument(
        "--judge", metavar="PATH",
        help="guided mode: an outside UCI engine that judges the proposals (option Judge), e.g. /usr/games/stockfish",
    )
    parser.add_argument(
        "--seed", type=int,
        help=f"generator seed 1..{SEED_MAX}; 0 = a fresh seed every game (default: {agent_defaults.SEED})"
    )
    args = parser.parse_args(argv)
    defaults: dict[str, str] = {}
    if args.casebase is not None:
        defaults["Casebase"] = args.casebase
    if args.mode is not None:
        defaults["Mode"] = args.mode
    if args.seed is not None:
        defaults["Seed"] = str(args.seed)
    if args.judge is not None:
        defaults["Judge"] = args.judge
    if args.weights is not None:
        try:
            defaults |= dict(zip(WEIGHT_OPTIONS, _hundredths(args.weights)))
        except ValueError as exc:
            parser.error(str(exc))
    return defaults


def _hundredths(words: list[str]) -> list[str]:
    if len(words) == 1 and words[0] in WEIGHT_CONFIGS:
        return [str(h) for h in WEIGHT_CONFIGS[words[0]].hundredths()]
    if len(words) != 3:
        raise ValueError("--weights takes three numbers v1 v2 v3 or a configuration name")
    try:
        values = [float(word) for word in words]
    except ValueError:
        raise ValueError(f"--weights: {' '.join(words)} are not three numbers") from None
    try:
        return [str(to_hundredths(v)) for v in values]
    except ValueError:
        raise ValueError("--weights: each weight is a number of hundredths in 0..1, e.g. 0.35") from None


def _info(words: list[str]) -> int:
    """``cbr-chess info CASEBASE``: the casebase described, with the expert's tendencies (from the
    engine's shipped file, which the casebase layer below the engine does not read)."""
    from casebase.format import Casebase, CasebaseError
    from casebase.info import describe
    from common.paths import casebase_path
    from engine.style.tendencies import describe_expert

    parser = argparse.ArgumentParser(prog="cbr-chess info", description="describe a casebase and its expert's tendencies")
    parser.add_argument("casebase", metavar="FILE.npz", help="a casebase's file, or its name (carlsen-2800)")
    path = casebase_path(parser.parse_args(words).casebase)
    try:
        casebase = Casebase.load(path)
    except CasebaseError as exc:
        print(f"cbr-chess info: error: {exc}", file=sys.stderr)
        return 1
    print(describe(casebase, [("tendencies", describe_expert(path))]))
    return 0


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["web"]:
        # the browser app (docs/web.md), imported only here: the UCI engine never loads its web server
        from web.cli import main as web_main

        return web_main(words[1:])
    if words[:1] == ["new"]:
        # a player's engine from a PGN (docs/usage.md), imported only here: it loads the profiling and the tournament
        from player.cli import main as new_main

        return new_main(words[1:])
    if words[:1] == ["info"]:
        return _info(words[1:])
    defaults = parse_args(argv)
    try:
        return main_loop(defaults)
    except ValueError as exc:  # an option default out of range, e.g. --seed -1
        print(f"{Path(sys.argv[0]).name}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
