"""Start the cbr-chess UCI engine: ``python uci_main.py [--casebase X.npz] [--weights V1 V2 V3]
...`` (installed as the console command ``cbr-chess``); ``cbr-chess web ...`` serves the page that
plays it in a browser instead (web/cli.py), ``cbr-chess new PGN --player NAME`` makes a player's
engine (player/cli.py), ``cbr-chess info CASEBASE`` says what ``python -m casebase info`` says and
the expert's tendencies, and ``cbr-chess setup [ID ...]`` makes the shipped experts' casebases and
profiles (player/shipped.py), as ``make casebases`` does in a clone; an installed engine makes a
shipped expert's on its first use.

The options set the engine's UCI option defaults; a GUI can still change them with setoption.
"""

from __future__ import annotations

import os

# A UCI engine gets one core per search thread: numpy's BLAS (the style model's products) must
# not start threads of its own, which spin and take the search's core away (set before numpy loads).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse
import subprocess
import sys
import time
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
        description=(
            "A case-based chess engine (UCI) that plays like the expert whose games built its"
            " casebase."
        ),
    )
    parser.add_argument(
        "--casebase",
        metavar="PATH",
        help=f"casebase .npz to play with (default: {default_casebase()})",
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
        "--judge",
        metavar="PATH",
        help=(
            "guided mode: an outside UCI engine that judges the proposals (option Judge), e.g."
            " /usr/games/stockfish; auto (the default): Stockfish where it is installed; none: no"
            " judge"
        ),
    )
    parser.add_argument(
        "--seed",
        type=int,
        help=(
            f"generator seed 1..{SEED_MAX}; 0 = a fresh seed every game (default:"
            f" {agent_defaults.SEED})"
        ),
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
        raise ValueError(
            "--weights: each weight is a number of hundredths in 0..1, e.g. 0.35"
        ) from None


def _info(words: list[str]) -> int:
    """``cbr-chess info CASEBASE``: the casebase described, with the expert's tendencies (from the
    engine's shipped file, which the casebase layer below the engine does not read)."""
    from casebase.format import Casebase, CasebaseError
    from casebase.info import describe
    from common.paths import casebase_path
    from engine.strength.tendencies import describe_expert

    parser = argparse.ArgumentParser(
        prog="cbr-chess info", description="describe a casebase and its expert's tendencies"
    )
    parser.add_argument(
        "casebase", metavar="FILE.npz", help="a casebase's file, or its name (carlsen-2800)"
    )
    path = casebase_path(parser.parse_args(words).casebase)
    try:
        casebase = Casebase.load(path)
    except CasebaseError as exc:
        print(f"cbr-chess info: error: {exc}", file=sys.stderr)
        return 1
    print(describe(casebase, [("tendencies", describe_expert(path))]))
    return 0


#: How long the engine waits for a shipped expert's casebase made on its first use (seconds: 8 s for
#: the largest on 2 cores).
SETUP_SECONDS = 300


def _make_shipped(name: str) -> str | None:
    """A shipped expert's casebase made on its first use: ``cbr-chess setup NAME`` in a process of
    its own (its progress on stderr, nothing on the engine's stdout), waited for until the casebase
    is written; its error profile follows in that process, in the background (the engine takes it
    when it is there). None, or why not."""
    from common.paths import casebase_folder

    casebase = casebase_folder() / f"{name}.npz"
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "setup", name],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + SETUP_SECONDS
    while process.poll() is None and not casebase.is_file() and time.monotonic() < deadline:
        time.sleep(0.05)  # the casebase is written atomically: once there, all of it is
    if casebase.is_file():
        return None
    if process.returncode is None:
        return f"`cbr-chess setup {name}` has not made it within {SETUP_SECONDS} s (it goes on)"
    return f"`cbr-chess setup {name}` failed (exit status {process.returncode}; why: on stderr)"


def _setup_missing() -> int:
    """Before ``cbr-chess web`` of an installed engine: the shipped experts not made yet, made (as
    ``make web`` makes ``make casebases`` first); 0 when all are there."""
    from casebase.shipped import shipped_experts
    from common.paths import casebase_folder, in_source_tree
    from player.shipped import main as setup_main

    folder = casebase_folder()
    missing = [name for name in shipped_experts() if not (folder / f"{name}.npz").is_file()]
    if in_source_tree() or not missing:
        return 0
    print(
        f"cbr-chess web: making the shipped experts not made yet ({len(missing)}), once: cbr-chess"
        " setup (--no-setup starts without them)",
        file=sys.stderr,
    )
    return setup_main(missing)


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["web"]:
        # the browser app (docs/web.md), imported only here: the UCI engine never loads its web
        # server
        from web.cli import main as web_main

        return web_main(words[1:], prepare=_setup_missing)
    if words[:1] == ["setup"]:
        # the shipped experts made (docs/usage.md), imported only here: it loads the profiling
        from player.shipped import main as setup_main

        return setup_main(words[1:])
    if words[:1] == ["new"]:
        # a player's engine from a PGN (docs/usage.md), imported only here: it loads the profiling
        # and the tournament
        from player.cli import main as new_main

        return new_main(words[1:])
    if words[:1] == ["info"]:
        return _info(words[1:])
    defaults = parse_args(argv)
    try:
        return main_loop(defaults, provide=_make_shipped)
    except ValueError as exc:  # an option default out of range, e.g. --seed -1
        print(f"{Path(sys.argv[0]).name}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
