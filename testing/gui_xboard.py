"""Our engine in a real GUI: XBoard, through polyglot (its UCI adapter), under Xvfb.

    python -m testing.gui_xboard [--out docs/gui] [--tc 1] [--timeout 600]

First XBoard loads one engine and its *Engine #1 Settings* dialog is opened (with xdotool) and
photographed: the UCI options as a GUI shows them. Then XBoard plays a match of one game, guided
Carlsen against guided Ivanchuk at 40 moves in ``--tc`` minutes, photographed every minute.
It writes ``xboard-options.png``, ``xboard-game-N.png`` and the game (``xboard-game.pgn``) to
``--out``, and says how the game ended and whether XBoard saw an illegal move or a forfeit.

Needs Debian's xvfb, xboard, polyglot and xdotool (apt-get install xvfb xboard polyglot xdotool)
and the shipped casebases (make casebases); says so and exits 0 where they are absent.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess.pgn
from PIL import ImageGrab

ROOT = Path(__file__).resolve().parent.parent
DISPLAY = ":77"
TOOLS = ("Xvfb", "xboard", "polyglot", "xdotool")
#: Where XBoard draws its menu bar's Engine menu and that menu's first settings item (size medium).
ENGINE_MENU, SETTINGS_ITEM = (270, 14), (330, 118)


def tool(name: str) -> str | None:
    return shutil.which(name) or next(
        (str(p) for p in (Path("/usr/games") / name,) if p.exists()), None
    )


def engine(casebase: str) -> str:
    return (
        f"{ROOT / '.venv' / 'bin' / 'cbr-chess'} --mode guided --casebase"
        f" {ROOT / 'casebases' / casebase}"
    )


def xboard(*args: str) -> subprocess.Popen[bytes]:
    adapter = f'{tool("polyglot")} -noini -ec "%fcp" -ed "%fd"'
    return subprocess.Popen(
        [
            str(tool("xboard")),
            "-adapterCommand",
            adapter,
            "-size",
            "medium",
            "-popupExitMessage",
            "false",
            *args,
        ],
        cwd=ROOT,
        env={**os.environ, "DISPLAY": DISPLAY},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def click(x: int, y: int) -> None:
    subprocess.run(
        [str(tool("xdotool")), "mousemove", str(x), str(y), "click", "1"],
        env={**os.environ, "DISPLAY": DISPLAY},
        check=True,
    )


def shoot(path: Path) -> None:
    ImageGrab.grab(xdisplay=DISPLAY).save(path)
    print(f"screenshot {path}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m testing.gui_xboard", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "gui")
    parser.add_argument("--tc", type=float, default=1, help="minutes for 40 moves (default 1)")
    parser.add_argument(
        "--timeout", type=float, default=600, help="give the game up after this many seconds"
    )
    args = parser.parse_args()
    missing = [name for name in TOOLS if tool(name) is None]
    if missing or not (ROOT / "casebases" / "carlsen-2800.npz").exists():
        print(
            f"skipped: needs {', '.join(missing) or 'make casebases'} (apt-get install xvfb"
            " xboard polyglot xdotool)"
        )
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    screen = subprocess.Popen([str(tool("Xvfb")), DISPLAY, "-screen", "0", "1100x760x24"])
    try:
        time.sleep(1)
        # 1. the options as the GUI shows them
        gui = xboard("-fcp", engine("carlsen-2800.npz"), "-fUCI", "-fd", str(ROOT))
        time.sleep(8)  # the engine's handshake through polyglot
        click(*ENGINE_MENU)
        time.sleep(1)
        click(*SETTINGS_ITEM)
        time.sleep(2)
        shoot(args.out / "xboard-options.png")
        gui.terminate()
        gui.wait(timeout=10)
        # 2. a game, engine against engine, as a match of one game (XBoard quits after it)
        game = args.out / "xboard-game.pgn"
        game.unlink(missing_ok=True)
        with tempfile.TemporaryDirectory() as scratch:
            debug = Path(scratch) / "xboard-debug.txt"
            gui = xboard(
                "-fcp",
                engine("carlsen-2800.npz"),
                "-fUCI",
                "-fd",
                str(ROOT),
                "-scp",
                engine("ivanchuk-2700.npz"),
                "-sUCI",
                "-sd",
                str(ROOT),
                "-tc",
                f"{args.tc:g}",
                "-mps",
                "40",
                "-matchGames",
                "1",
                "-saveGameFile",
                str(game),
                "-showThinking",
                "true",
                "-debug",
                "-nameOfDebugFile",
                str(debug),
            )
            started, shot = time.monotonic(), 0
            while gui.poll() is None and time.monotonic() - started < args.timeout:
                time.sleep(1)
                if time.monotonic() - started > 60 * (shot + 1):
                    shot += 1
                    shoot(args.out / f"xboard-game-{shot}.png")
            if gui.poll() is None:
                gui.terminate()
                print(f"the game took longer than {args.timeout:g} s: stopped")
            log = debug.read_text(encoding="utf-8", errors="replace")
        record = (
            chess.pgn.read_game(io.StringIO(game.read_text(encoding="utf-8")))
            if game.exists()
            else None
        )
        plies = len(list(record.mainline_moves())) if record is not None else 0
        result = record.headers.get("Result", "?") if record is not None else "no game saved"
        print(
            f"game: {plies} plies, result {result};"
            f" illegal moves {log.count('Illegal move')}, forfeits {log.lower().count('forfeit')}"
        )
    finally:
        screen.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
