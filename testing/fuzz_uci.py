"""A UCI fuzzer (issue #28): thousands of random, malformed and hostile lines, and what came back.

    python -m testing.fuzz_uci --lines 4000 --seed 1                 # about 10 minutes on 2 busy cores
    python -m testing.fuzz_uci --lines 500 --seed 7 --json out.json  # the counts and examples as JSON

It drives ``uci_main.py`` (or ``--engine "CMD ARGS"``) as a subprocess over its stdin and stdout
directly, byte by byte, not through python-chess's client, because it must send what no client
sends: lines with NUL bytes or bytes that are not UTF-8, 100,000-token ``searchmoves``, option
values of 3,000 characters. Sessions follow each other, each with one scenario (mode ``pure``,
``guided`` or ``chess0``; a ``Judge`` that is ``/bin/cat``, ``/bin/false``, a liar written into a
temporary folder, or ``/usr/games/stockfish``; ``UCI_LimitStrength``, ``Selection calibrated`` or
``likely``, ``Model``; a ``Casebase`` that is the shipped Kosteniuk casebase, a missing file, a
damaged one, garbage) and then random lines: ``setoption`` of every option the engine declares in
answer to ``uci`` (valid and invalid values), ``position`` (valid, illegal, malformed), ``go`` in
every form (``depth``, ``nodes``, ``movetime``, clocks down to ``wtime 1``, ``infinite``, ``ponder``
then ``ponderhit`` or ``stop``, ``searchmoves``), ``ucinewgame``, ``isready``, ``stop``, garbage
(fuzz_uci_lines.py).

The fuzzer keeps the engine's state (the position in force, the searches running; fuzz_uci_state.py)
and counts, as faults: illegal ``bestmove`` (and ``ponder``) moves, moves outside the legal
``searchmoves``, illegal moves in a ``pv``, a ``bestmove`` that is not the first move of the last
principal variation, a ``go`` with no ``bestmove`` within its limits and ``--margin`` (a ``go`` with
no limit, or a long one, is stopped after a while, and the margin counts from the ``stop``),
``isready`` answered slower than 0.5 s (not counting the ``isready`` that follows a change of
options, which may load a casebase: those are reported apart), stdout lines over 4 KB or that are
not UCI, tracebacks on stderr, an engine that dies, or that does not quit, or whose children outlive
it. Each fault comes with the lines before it. The exit status is 1 if there was any fault.

The state is kept as docs/usage.md says this engine keeps it, where UCI leaves a choice: a line's
first known command counts (unknown words before it are skipped), words are split as Python
splits them (a no-break space separates), a ``position`` with an illegal move or a bad FEN leaves
the position as it was, ``ucinewgame`` sets the start position. Another engine (``--engine``) that
plays the moves before an illegal one, or splits at ASCII spaces only, shows those differences as
faults too (Stockfish 15.1 also prints a banner and ``Unknown command`` lines, and dies on some
malformed FENs). The check of the pv's first move counts ``multipv 1`` lines marked as bounds,
which fastchess's own check skips.

Bounded: at most ``--lines`` lines and ``--time-limit`` seconds (each session also quits after a
few hundred lines); the values of ``Hash`` and ``Threads`` that the engine accepts are kept small
(a judge gets them) unless ``--unsafe-resources``; out-of-range values are sent as they are.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import queue
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from testing.fuzz_uci_lines import SCENARIOS, Fixtures, LineMaker
from testing.fuzz_uci_protocol import OUTPUT_WORDS, ROOT, EngineProcess, Event, Option, alive, command_line, parse_option
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
        base = shlex.split(self.args.engine) if self.args.engine else [sys.executable, str(ROOT / "uci_main.py")]
        argv = base + ([] if self.args.engine else [self.lines.fill(flag) for flag in scenario.flags])
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
            self.record.fault("child outlived engine", f"pids {left}: {[command_line(pid) for pid in left]}")
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
        """Read what the engine wrote (waiting up to ``timeout`` for the first line) and act on deadlines."""
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
        """Send the scheduled stops and ponderhits; count what is late; kill an engine that hangs."""
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
                self.record.fault("lost go", f"no bestmove {self.args.margin} s after the go's limit"
                                             f" (go #{search.number}: {search.line})")
                self.send("stop")
                search.deadline = now + self.args.recover
            elif now > search.deadline and search.lost:
                self.record.fault("engine hung", f"no bestmove {self.args.recover} s after stop"
                                                 f" (go #{search.number}: {search.line})")
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
            budget = self.rng.randrange(self.args.session_lines // 2, self.args.session_lines * 3 // 2)
            interleave = 0  # lines sent while a go or isready is under way
            while (self.engine is not None and self.session_lines < budget
                   and counts["lines sent"] < self.args.lines and self.time_left()):
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
                deadline = time.monotonic() + self.args.recover + self.args.work_seconds + self.args.max_wait
                while (self.engine is not None and (self.expect.searches or self.expect.readies)
                       and time.monotonic() < deadline):
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
            "latest bestmove past its deadline (s)": (round(expect.latest_bestmove, 3)
                                                      if math.isfinite(expect.latest_bestmove) else None),
            "faults": {kind: record.faults.get(kind, 0) for kind in FAULTS},
            "examples": dict(record.examples),
        }


def print_report(report: dict[str, object]) -> None:
    """The counts, the faults and their first examples, for people."""
    counts, faults, examples = report["counts"], report["faults"], report["examples"]
    assert isinstance(counts, dict) and isinstance(faults, dict) and isinstance(examples, dict)
    print(f"seed {report['seed']}, {report['seconds']} s")
    for key in ("sessions", "lines sent", "go sent", "bestmove received", "isready sent", "readyok received",
                "stdout lines", "stderr lines", "stderr lines with 'Traceback'",
                "isready slower than 0.5 s after a change or a huge line (not a fault)"):
        print(f"  {key:56s} {counts.get(key, 0)}")
    print(f"  slowest readyok (s): {report['slowest readyok (s)']}")
    print(f"  latest bestmove past its deadline (s): {report['latest bestmove past its deadline (s)']}")
    print("faults:")
    for kind, count in faults.items():
        print(f"  {kind:56s} {count}")
    for kind, found in examples.items():
        for n, example in enumerate(found, 1):
            print(f"\n--- {kind}, example {n} ({FAULTS.get(kind, '')})")
            for line in example:
                print("    " + line[:300])


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m testing.fuzz_uci", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--lines", type=int, default=4000, help="lines to send in all")
    parser.add_argument("--seed", type=int, default=1, help="the random lines' seed (and the first scenario)")
    parser.add_argument("--time-limit", type=float, default=540.0, help="seconds in all")
    parser.add_argument("--session-lines", type=int, default=250, help="lines per engine session, on average")
    parser.add_argument("--engine", default="", help="another engine's command line (no scenario flags then)")
    parser.add_argument("--margin", type=float, default=2.0, help="seconds a bestmove may come after the go's limit")
    parser.add_argument("--work-depth", type=int, default=4, help="a go depth up to this is a bounded search")
    parser.add_argument("--work-nodes", type=int, default=100_000, help="a go nodes up to this is a bounded search")
    parser.add_argument("--work-seconds", type=float, default=20.0, help="seconds a bounded depth or nodes search may take")
    parser.add_argument("--load-seconds", type=float, default=20.0,
                        help="extra seconds for the first go after options changed (a casebase or judge loads)")
    parser.add_argument("--max-wait", type=float, default=4.0,
                        help="a search with no bound, or a longer one, is stopped within this many seconds")
    parser.add_argument("--recover", type=float, default=5.0, help="seconds after a late go's stop before killing")
    parser.add_argument("--isready-timeout", type=float, default=60.0, help="seconds before an isready is unanswered")
    parser.add_argument("--quit-timeout", type=float, default=5.0, help="seconds the engine may take to quit")
    parser.add_argument("--context", type=int, default=8, help="transcript lines kept before each example")
    parser.add_argument("--examples", type=int, default=3, help="examples kept per fault")
    parser.add_argument("--unsafe-resources", action="store_true", help="send Hash and Threads up to their maxima")
    parser.add_argument("--json", type=Path, help="write the report here as JSON too")
    parser.add_argument("--log", type=Path, help="write every line sent and received here, timed")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)  # so that the engine is ended too
    folder = Path(tempfile.mkdtemp(prefix="fuzz-uci-"))
    try:
        os.environ["LIAR_SEED"] = str(args.seed)
        scratch = folder / "cwd"
        scratch.mkdir()
        fuzzer = Fuzzer(args, Fixtures.make(folder, random.Random(args.seed)), scratch)
        try:
            fuzzer.run()
        finally:
            fuzzer.kill()
        report = fuzzer.report()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=True))
    faults = report["faults"]
    assert isinstance(faults, dict)
    return 1 if any(faults.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
