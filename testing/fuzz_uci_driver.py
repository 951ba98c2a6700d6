"""The driver of testing/fuzz_uci.py: the engine's sessions one after another, each scenario's
random lines sent, what the engine writes read against the state it should keep, the deadlines of
its searches, and the report of the faults found."""

from __future__ import annotations

import argparse
import math
import os
import queue
import random
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from testing.fuzz_uci_lines import LineMaker
from testing.fuzz_uci_protocol import (
    OUTPUT_WORDS,
    ROOT,
    EngineProcess,
    Event,
    Option,
    alive,
    command_line,
    parse_option,
)
from testing.fuzz_uci_sessions import SCENARIOS, Fixtures
from testing.fuzz_uci_state import FAULTS, LONG_LINE, Expectations, Recorder


class Fuzzer:
    """Sessions of random lines sent to the engine, and the faults found in what it wrote."""

    def __init__(self, args: argparse.Namespace, fixtures: Fixtures, scratch: Path) -> None:
        self.args = args
        self.scratch = scratch
        self.rng = random.Random(args.seed)
        self.record = Recorder(args)
        self.expect = Expectations(args, self.rng, self.record)
        self.lines = LineMaker(self.rng, fixtures, unsafe_resources=args.unsafe_resources)
        self.engine: EngineProcess | None = None
        self.options: dict[str, Option] = {}
        self.chained = False  # the last stderr line announced a chained traceback
        self.session_lines = 0
        self.uciok = False
        self.quitting = False

    def time_left(self) -> bool:
        return time.monotonic() - self.record.started < self.args.time_limit

    # -- sessions ---------------------------------------------------------------------------

    def start_session(self, number: int) -> bool:
        """Start the engine for the ``number``-th scenario, ``uci`` and the scenario's options;
        False if it gave no ``uciok``."""
        scenario = SCENARIOS[number % len(SCENARIOS)]
        base = (
            shlex.split(self.args.engine)
            if self.args.engine
            else [sys.executable, str(ROOT / "uci_main.py")]
        )
        argv = base + (
            [] if self.args.engine else [self.lines.fill(flag) for flag in scenario.flags]
        )
        self.record.session = scenario.name
        self.record.counts["sessions"] += 1
        self.record.transcript.append(f"# started: {shlex.join(argv)[:300]}")
        self.engine = EngineProcess(argv, self.scratch)
        self.expect.reset()
        self.session_lines = 0
        self.uciok = False
        self.quitting = False
        self.send("uci")
        deadline = time.monotonic() + self.args.isready_timeout
        while not self.uciok and self.engine is not None and time.monotonic() < deadline:
            self.pump(0.1)
        if not self.uciok:
            if self.engine is not None:
                self.record.fault("engine hung", "no uciok")
                self.kill()
            return False
        for name, value in scenario.options:
            if name in self.options:
                self.send(f"setoption name {name} value {self.lines.fill(value)}")
        return True

    def end_session(self) -> None:
        """``quit`` and check that the engine and its children end."""
        engine = self.engine
        if engine is None:
            return
        children = engine.descendants()
        self.quitting = True
        self.send("quit")
        try:
            engine.proc.wait(timeout=self.args.quit_timeout)
        except subprocess.TimeoutExpired:
            self.record.fault("no quit")
        self.pump(0.2)
        if engine.proc.poll() is not None and engine.proc.returncode != 0:
            self.record.fault("bad exit status", f"exit status {engine.proc.returncode}")
        time.sleep(0.5)
        left = [pid for pid in children if alive(pid)]
        if left:
            self.record.fault(
                "child outlived engine", f"pids {left}: {[command_line(pid) for pid in left]}"
            )
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.kill()

    def kill(self) -> None:
        if self.engine is not None:
            self.engine.kill()
            while True:  # what it wrote before it ended
                try:
                    event = self.engine.events.get_nowait()
                except queue.Empty:
                    break
                if event.data is not None:
                    self.receive(event)
        self.engine = None
        self.expect.searches.clear()
        self.expect.readies.clear()

    # -- both directions ----------------------------------------------------------------------

    def send(self, line: str | bytes, ending: bytes = b"\n") -> None:
        """Send one line and update the state it changes."""
        if self.engine is None:
            return
        data = line if isinstance(line, bytes) else line.encode("utf-8", errors="surrogateescape")
        text = data.decode("utf-8", errors="replace")
        self.record.counts["lines sent"] += 1
        self.session_lines += 1
        self.record.note("> ", text)
        self.expect.sent(data, text, time.monotonic())
        if not self.engine.write(data + ending, timeout=self.args.recover + 30):
            if self.engine.proc.poll() is None:
                self.record.fault("engine hung", "did not read its input")
            elif not self.quitting:
                self.record.fault("engine died", f"exit status {self.engine.proc.returncode}")
            self.kill()

    def pump(self, timeout: float) -> None:
        """Read what the engine wrote (waiting up to ``timeout`` for the first line) and act on
        deadlines."""
        if self.engine is None:
            return
        try:
            event: Event | None = self.engine.events.get(timeout=timeout) if timeout > 0 else None
        except queue.Empty:
            event = None
        while True:
            if event is None:
                try:
                    event = self.engine.events.get_nowait()
                except queue.Empty:
                    break
            if event.data is None:
                if event.stream == "out" and not self.quitting:
                    self.engine.proc.poll()
                    self.record.fault("engine died", f"exit status {self.engine.proc.returncode}")
                    self.kill()
                    return
            else:
                self.receive(event)
            event = None
        self.deadlines()

    def receive(self, event: Event) -> None:
        assert event.data is not None
        record = self.record
        text = event.data.decode("utf-8", errors="replace").rstrip("\r")
        if event.stream == "err":
            record.counts["stderr lines"] += 1
            record.note("! ", text)
            if record.tracing is not None and len(record.tracing) < self.args.context + 30:
                record.tracing.append("! " + ascii(text[:300])[1:-1])
            if "Traceback" in text:
                record.counts["stderr lines with 'Traceback'"] += 1
                if not self.chained:
                    record.fault("traceback")
            self.chained = "above exception" in text or (self.chained and not text.strip())
            return
        record.counts["stdout lines"] += 1
        record.note("< ", text)
        record.tracing = None
        self.expect.answered(text)
        if len(event.data) > LONG_LINE:
            record.fault("line over 4 KB", f"{len(event.data)} bytes")
        words = text.split()
        first = words[0] if words else ""
        if first not in OUTPUT_WORDS:
            record.fault("not UCI")
        elif first == "uciok":
            self.uciok = True
        elif first == "option":
            option = parse_option(text)
            if option is not None:
                self.options[option.name] = option
        elif first == "readyok":
            self.expect.readyok(event.at)
        elif first == "info":
            self.expect.info(words)
        elif first == "bestmove":
            self.expect.bestmove(words, event.at)

    def deadlines(self) -> None:
        """Send the scheduled stops and ponderhits; count what is late; kill an engine that
        hangs."""
        now = time.monotonic()
        for search in list(self.expect.searches):
            if self.engine is None:
                return
            if now >= search.action_at:
                search.action_at = math.inf
                self.send("ponderhit" if search.pondering and self.rng.random() < 0.5 else "stop")
            elif now > search.deadline and not search.lost:
                search.lost = True
                search.due = search.deadline
                self.record.fault(
                    "lost go",
                    f"no bestmove {self.args.margin} s after the go's limit"
                    f" (go #{search.number}: {search.line})",
                )
                self.send("stop")
                search.deadline = now + self.args.recover
            elif now > search.deadline and search.lost:
                self.record.fault(
                    "engine hung",
                    f"no bestmove {self.args.recover} s after stop"
                    f" (go #{search.number}: {search.line})",
                )
                self.kill()
                return
        readies = self.expect.readies
        if readies and now - readies[0].sent > self.args.isready_timeout:
            self.record.fault("unanswered isready", f"no readyok in {self.args.isready_timeout} s")
            self.kill()

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> None:
        """Sessions of random lines until ``--lines`` lines are sent or time is up."""
        counts, number = self.record.counts, self.args.seed
        while counts["lines sent"] < self.args.lines and self.time_left():
            if not self.start_session(number):
                number += 1
                continue
            budget = self.rng.randrange(
                self.args.session_lines // 2, self.args.session_lines * 3 // 2
            )
            interleave = 0  # lines sent while a go or isready is under way
            while (
                self.engine is not None
                and self.session_lines < budget
                and counts["lines sent"] < self.args.lines
                and self.time_left()
            ):
                self.pump(0)
                if self.engine is None:
                    break
                if (self.expect.searches or self.expect.readies) and interleave == 0:
                    self.pump(0.05)
                    continue
                interleave = max(0, interleave - 1)
                kind, line, ending = self.lines.next(self.expect.board, self.options)
                self.send(line, ending)
                if kind == "go" and interleave == 0:
                    interleave = self.rng.choice([0, 0, 0, 1, 2, 3])
            if self.engine is not None:
                # finish what is under way, then quit
                deadline = (
                    time.monotonic()
                    + self.args.recover
                    + self.args.work_seconds
                    + self.args.max_wait
                )
                while (
                    self.engine is not None
                    and (self.expect.searches or self.expect.readies)
                    and time.monotonic() < deadline
                ):
                    self.pump(0.05)
                self.end_session()
            number += 1

    def report(self) -> dict[str, object]:
        record, expect = self.record, self.expect
        return {
            "seed": self.args.seed,
            "seconds": round(time.monotonic() - record.started, 1),
            "counts": dict(record.counts),
            "slowest readyok (s)": {k: round(v, 3) for k, v in expect.slowest.items()},
            "latest bestmove past its deadline (s)": (
                round(expect.latest_bestmove, 3) if math.isfinite(expect.latest_bestmove) else None
            ),
            "faults": {kind: record.faults.get(kind, 0) for kind in FAULTS},
            "examples": dict(record.examples),
        }
