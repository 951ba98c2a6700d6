"""Helpers of the web app's tests: an app on the test casebase with a fast engine, the engine
processes this test process started, and the websocket's conversation."""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import chess.engine

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note on httpx
    from fastapi.testclient import TestClient

from web.app import Config, create_app
from web.experts import Experts
from web.guard import LOOPBACK

EXPERT = "kosteniuk-2200"
#: The project's engine, as a GUI runs it.
MAIN = str(Path(__file__).resolve().parent.parent / "uci_main.py")
#: The engine holding every move for {seconds} s once chosen (its HumanTime pace replaced, whatever
#: the limit): a think long enough to watch the clock run.
SLOW = (
    "import dataclasses, engine.search.humantime as h; pace = h.human_pace;"
    " h.human_pace = lambda *a, **k: dataclasses.replace(pace(*a, **k), seconds={seconds})"
)
#: The host name TestClient's requests and websockets are addressed to.
HOST = "testserver"


def client(folder: Path, **options: Any) -> TestClient:
    """A TestClient of an app offering ``folder``'s casebases, every engine move at depth 1."""
    options.setdefault("limit", chess.engine.Limit(depth=1))
    options.setdefault("ask_limit", chess.engine.Limit(depth=1))
    options.setdefault("hosts", (*LOOPBACK, HOST))
    options.setdefault(
        "grace_seconds", 0
    )  # a closed websocket ends its game at once (tests/web/test_web_store.py waits)
    return TestClient(create_app(Config(Experts([("shipped", folder)]), **options)))


def wrap_engine(monkeypatch: Any, prelude: str) -> None:
    """Every game's engine runs ``prelude`` (Python) before the project's engine starts, as it
    would."""
    monkeypatch.setattr(
        "web.games.engine_command",
        lambda casebase, judge, mode: [
            sys.executable,
            "-c",
            f"import runpy; {prelude}; runpy.run_path({MAIN!r}, run_name='__main__')",
            "--casebase",
            casebase,
            *(["--mode", mode] if mode else []),
        ],
    )


def engine_processes() -> list[int]:
    """The pids of the uci_main.py processes whose parent is this process (the games' engines)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and b"uci_main.py" in command:
            found.append(int(entry))
    return found


def no_engines_left(seconds: float = 10) -> bool:
    """Whether this process's engines are all gone within ``seconds``."""
    deadline = time.monotonic() + seconds
    while engine_processes():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def until(ws: Any, predicate: Any, limit: int = 500) -> list[dict[str, Any]]:
    """The messages received up to and including the first that satisfies ``predicate``."""
    seen = []
    for _ in range(limit):
        message = ws.receive_json()
        seen.append(message)
        if predicate(message):
            return seen
    raise AssertionError(f"no such message in {limit}: {seen[-3:]}")


def settled(message: dict[str, Any]) -> bool:
    """A state with the engine not thinking (its move done, or the human's turn)."""
    return message["type"] == "state" and not message["thinking"]


def error(message: dict[str, Any]) -> bool:
    return message["type"] == "error"
