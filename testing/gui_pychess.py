"""Our engine in PyChess (Debian's ``pychess``) under Xvfb: registered in PyChess's engine list,
discovered (PyChess reads its UCI options), chosen as the opponent on the welcome screen, and
played against by hand (1.e4 and 2.d4, dragged with xdotool); a screenshot after each reply.

    python -m testing.gui_pychess [--out docs/gui]

Needs xvfb, pychess and xdotool (apt-get install xvfb pychess xdotool) and ``make casebases``; says
so and exits 0 where they are absent. The clicks are where PyChess 1.0.3 draws its widgets on a 1280
x 800 screen, so look at the screenshots: PyChess positions its opponent list by the current choice,
and in one of four runs here the click picked its own engine instead (the game's tab then names
"PyChess.py", not "cbr-chess"). It replaces ``~/.config/pychess/engines.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from PIL import ImageGrab

ROOT = Path(__file__).resolve().parent.parent
DISPLAY = ":79"
PYCHESS = "/usr/games/pychess"
#: (what, x, y): close the tips, accept the permissions dialog, open the opponent list, pick our
#: engine, start the game.
CLICKS = [
    ("tips", 745, 490),
    ("permissions", 792, 493),
    ("opponents", 553, 229),
    ("cbr-chess", 535, 263),
    ("start", 518, 289),
]
#: Our moves as White, dragged from square to square (board centres on screen).
MOVES = {"e2e4": ((555, 336), (555, 282)), "d2d4": ((528, 336), (528, 282))}


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m testing.gui_pychess", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "gui")
    args = parser.parse_args()
    missing = [t for t in ("Xvfb", "xdotool") if shutil.which(t) is None] + (
        [] if Path(PYCHESS).exists() else ["pychess"]
    )
    if missing or not (ROOT / "casebases" / "carlsen-2800.npz").exists():
        print(
            f"skipped: needs {', '.join(missing) or 'make casebases'} (apt-get install xvfb"
            " pychess xdotool)"
        )
        return 0
    config = Path.home() / ".config" / "pychess"
    config.mkdir(parents=True, exist_ok=True)
    (config / "engines.json").write_text(
        json.dumps(
            [
                {
                    "name": "cbr-chess",
                    "protocol": "uci",
                    "command": str(ROOT / ".venv" / "bin" / "cbr-chess"),
                    "args": [
                        "--mode",
                        "guided",
                        "--casebase",
                        str(ROOT / "casebases" / "carlsen-2800.npz"),
                    ],
                    "recheck": True,
                    "country": "",
                    "comment": "",
                    "level": 20,
                }
            ]
        )
    )
    env = {**os.environ, "DISPLAY": DISPLAY}

    def xdotool(*words: object) -> None:
        subprocess.run(["xdotool", *map(str, words)], env=env, check=True)

    args.out.mkdir(parents=True, exist_ok=True)
    screen = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1280x800x24"])
    gui = None
    try:
        time.sleep(1)
        gui = subprocess.Popen(
            [PYCHESS, "--no-version-check"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(20)  # PyChess starts and discovers the engine (it runs it and reads its options)
        for _, x, y in CLICKS:
            xdotool("mousemove", x, y, "click", 1)
            time.sleep(1.5)
        time.sleep(6)
        for move, ((x1, y1), (x2, y2)) in MOVES.items():
            xdotool("mousemove", x1, y1, "mousedown", 1)
            time.sleep(0.3)
            xdotool("mousemove", x2, y2, "mouseup", 1)
            time.sleep(12)  # the engine's reply
            ImageGrab.grab(xdisplay=DISPLAY).save(args.out / f"pychess-after-{move}.png")
        engines = json.loads((config / "engines.json").read_text())
        ours = next(e for e in engines if e["name"] == "cbr-chess")
        print(
            f"PyChess discovered {len(ours.get('options', []))} options of cbr-chess;"
            f" screenshots in {args.out}"
        )
    finally:
        if gui is not None:
            gui.terminate()
        screen.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
