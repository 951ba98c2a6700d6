"""What testing/fuzz_uci.py expects of the engine: the state UCI (and docs/usage.md) gives it after
each line sent (the position in force, the searches that owe a bestmove, the isready that owe a
readyok), the checks of what comes back, and the record of the faults with the lines before them."""

from __future__ import annotations

import argparse
import collections
import dataclasses
import math
import random
import time
from typing import TextIO

import chess

from testing.fuzz_uci_protocol import (
    INFO_KEYS,
    command_of,
    info_problem,
    parse_go,
    parse_move,
    parse_position,
)

LONG_LINE = 4096
SLOW_ISREADY = 0.5
#: A line this long (a 100,000-token searchmoves) takes the engine a while to read: an isready
#: within HUGE_LINE_SECONDS of it is not held to SLOW_ISREADY.
HUGE_LINE = 100_000
HUGE_LINE_SECONDS = 5.0
#: A number past the engine's clamp (10^15): a clock or movetime that long is no bound here.
NO_BOUND_MS = 10**7
AFTER_CHANGE = "isready after a change or a huge line"

FAULTS = {
    "illegal bestmove": "bestmove not legal in the position of its go (0000 while moves exist, or"
    " a move while none)",
    "illegal ponder move": "the ponder move is not legal after the bestmove",
    "bestmove outside searchmoves": "searchmoves named legal moves and the bestmove is not one of"
    " them",
    "illegal pv": "an info pv with a move that is not legal along the line",
    "bestmove is not the pv's first move": "the last pv (multipv 1) before bestmove starts with"
    " another move",
    "lost go": "no bestmove within the go's limits + margin (or the margin after stop)",
    "slow isready": f"readyok later than {SLOW_ISREADY} s, with no option changed since the last"
    f" readyok or go and no line over {HUGE_LINE} bytes in the {HUGE_LINE_SECONDS} s before",
    "unanswered isready": "no readyok at all within --isready-timeout",
    "line over 4 KB": f"a stdout line longer than {LONG_LINE} bytes",
    "not UCI": "a stdout line whose first word no UCI engine writes, or an info line with unknown"
    " fields",
    "unexpected bestmove": "a bestmove with no go searching",
    "unexpected readyok": "a readyok with no isready waiting",
    "traceback": "a traceback on stderr (a chained one, 'During handling...', counts once)",
    "engine died": "the engine's output ended before quit",
    "engine hung": "no bestmove even after stop + --recover seconds, or input not read: killed",
    "no quit": "still running --quit-timeout seconds after quit",
    "bad exit status": "exit status not 0 after quit",
    "child outlived engine": "a process the engine started was still alive after it quit",
}


class Recorder:
    """The counts, the faults with the transcript's last lines before each, and the full log."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.started = time.monotonic()
        self.counts: collections.Counter[str] = collections.Counter()
        self.faults: collections.Counter[str] = collections.Counter()
        self.examples: dict[str, list[list[str]]] = collections.defaultdict(list)
        self.transcript: collections.deque[str] = collections.deque(maxlen=args.context)
        self.log: TextIO | None = (
            args.log.open("w", encoding="ascii", errors="backslashreplace") if args.log else None
        )
        self.session = ""
        self.tracing: list[str] | None = None  # the example a traceback's following lines go to

    def fault(self, kind: str, detail: str = "") -> None:
        self.faults[kind] += 1
        if self.log is not None:
            self.log.write(f"{time.monotonic() - self.started:9.3f} # FAULT {kind}: {detail}\n")
        if len(self.examples[kind]) < self.args.examples:
            example = [f"# session: {self.session}"] + list(self.transcript)
            if detail:
                example.append(f"# {detail}")
            self.examples[kind].append(example)
            if kind == "traceback":
                self.tracing = example

    def note(self, prefix: str, text: str) -> None:
        if self.log is not None:
            self.log.write(
                f"{time.monotonic() - self.started:9.3f} {prefix}{ascii(text[:2000])[1:-1]}\n"
            )
        shown = text if len(text) <= 160 else f"{text[:160]}...(+{len(text) - 160} chars)"
        self.transcript.append(prefix + ascii(shown)[1:-1])


@dataclasses.dataclass
class Search:
    """A ``go`` the engine owes a ``bestmove`` for."""

    number: int
    line: str  # the go command, for the examples
    board: chess.Board
    searchmoves: list[chess.Move] | None
    sent: float
    deadline: float  # when the bestmove is late (inf: not until a stop or ponderhit)
    bound: float | None  # seconds the go's clock or movetime allow, from ponderhit for a ponder
    work: bool  # bounded by small depth or node limits
    pondering: bool
    infinite: bool
    loading: bool = False  # options changed before this go: it may load a casebase or start a judge
    answered: bool = False  # the engine has written a search's line since this go
    # when the fuzzer sends stop (or ponderhit) to a search with no bound
    action_at: float = math.inf
    lost: bool = False
    due: float = math.inf  # the deadline that was missed, when lost
    last_pv_first: str | None = None


@dataclasses.dataclass
class Ready:
    """An ``isready`` the engine owes a ``readyok`` for."""

    sent: float
    after_change: bool


def judge_depth(words: list[str], depth: int) -> int:
    """JudgeDepth after ``setoption`` with ``words`` (``depth`` before): the engine reads option
    names without case and takes a whole number in 0..99."""
    lowered = [w.lower() for w in words]
    if "name" not in lowered or "value" not in lowered:
        return depth
    at = lowered.index("value")
    name, value = " ".join(lowered[lowered.index("name") + 1 : at]), words[at + 1 :]
    if name != "judgedepth" or len(value) != 1 or not value[0].isdigit() or int(value[0]) > 99:
        return depth
    return int(value[0])


class Expectations:
    """The engine's state after each line sent, and the checks of each line it writes."""

    def __init__(self, args: argparse.Namespace, rng: random.Random, record: Recorder) -> None:
        self.args, self.rng, self.record = args, rng, record
        self.searches: collections.deque[Search] = collections.deque()
        self.readies: collections.deque[Ready] = collections.deque()
        self.board = chess.Board()
        self.changed = True  # options changed since the agent was last made (at isready or go)
        self.judge_depth = 0  # JudgeDepth in force: a judge's fixed depth, whatever the go's
        self.huge_at = -math.inf  # when the last line over HUGE_LINE bytes was sent
        self.go_count = 0
        self.slowest = {"isready": 0.0, AFTER_CHANGE: 0.0}
        # seconds after its deadline, the latest bestmove that came
        self.latest_bestmove = -math.inf

    def reset(self) -> None:
        """A new engine: nothing owed, the start position, everything to load."""
        self.searches.clear()
        self.readies.clear()
        self.board = chess.Board()
        self.changed = True
        self.judge_depth = 0

    # -- lines sent -------------------------------------------------------------------------

    def sent(self, data: bytes, text: str, now: float) -> None:
        """What line ``text`` (``data`` as sent) does to the engine's state."""
        if len(data) > HUGE_LINE:
            self.huge_at = now
        found = command_of(text)
        if found is None:
            return
        command, rest = found
        if command == "go":
            self.go_count += 1
            self.record.counts["go sent"] += 1
            self.stop_searches(now)
            self.searches.append(self.new_search(rest, now, text))
            self.changed = False
        elif command == "position":
            try:
                self.board = parse_position(rest)
            except (ValueError, IndexError):
                pass
        elif command == "stop":
            self.stop_searches(now)
        elif command == "ponderhit":
            self.ponderhit(now)
        elif command == "ucinewgame":
            self.stop_searches(now)
            self.board = chess.Board()
            self.changed = True
        elif command == "setoption":
            self.changed = True
            self.judge_depth = judge_depth(rest, self.judge_depth)
        elif command == "isready":
            self.record.counts["isready sent"] += 1
            loading = any(search.loading and not search.answered for search in self.searches)
            huge = now - self.huge_at < HUGE_LINE_SECONDS
            self.readies.append(Ready(now, self.changed or loading or huge))
            if not self.searches:
                self.changed = False

    def ponderhit(self, now: float) -> None:
        for search in self.searches:
            if search.pondering:
                search.pondering = False
                if search.bound is not None and not search.infinite:
                    search.deadline = now + search.bound + self.args.margin
                elif search.work and not search.infinite:
                    search.deadline = now + self.args.work_seconds
                search.action_at = (
                    now + self.rng.uniform(0.05, 1.5) if math.isinf(search.deadline) else math.inf
                )

    def stop_searches(self, now: float) -> None:
        for search in self.searches:
            loading = self.args.load_seconds if search.loading and not search.answered else 0.0
            search.deadline = min(search.deadline, now + self.args.margin + loading)
            search.pondering = False
            search.action_at = math.inf

    def new_search(self, tokens: list[str], now: float, line: str) -> Search:
        """The search a ``go`` with ``tokens`` starts, and when its bestmove is due."""
        numbers, flags, moves = parse_go(tokens, self.board)
        times = [
            max(0, numbers[key])
            for key in ("movetime", "wtime" if self.board.turn else "btime")
            if key in numbers
        ]
        bound = min(times) / 1000 if times and min(times) < NO_BOUND_MS else None
        # JudgeDepth overrides the go's depth and nodes (search.md §7): a deep one is no bounded
        # work
        work = (
            1 <= numbers.get("depth", 0) <= self.args.work_depth
            or 1 <= numbers.get("nodes", 0) <= self.args.work_nodes
        ) and self.judge_depth <= self.args.work_depth
        # a go after a change of options may load a casebase or start a judge, and so may be late;
        # so may a go that waits for an earlier one that is loading
        loading = self.changed or any(
            search.loading and not search.answered for search in self.searches
        )
        shown = line if len(line) <= 120 else f"{line[:120]}...(+{len(line) - 120} chars)"
        search = Search(
            self.go_count,
            ascii(shown)[1:-1],
            self.board.copy(),
            moves or None,
            now,
            math.inf,
            bound,
            work,
            "ponder" in flags,
            "infinite" in flags,
            loading=loading,
        )
        allowance = self.args.load_seconds if loading else 0.0
        if not search.pondering and not search.infinite:
            if bound is not None:
                search.deadline = now + bound + self.args.margin + allowance
            elif work:
                search.deadline = now + self.args.work_seconds + allowance
        if math.isinf(search.deadline) or (bound is not None and bound > self.args.max_wait):
            search.action_at = now + self.rng.uniform(0.05, self.args.max_wait)
        return search

    # -- lines received -------------------------------------------------------------------

    def answered(self, text: str) -> None:
        """A line of a search (not an info string): the search under way has its agent."""
        if self.searches and (
            text.startswith("bestmove") or (text.startswith("info") and "string" not in text)
        ):
            self.searches[0].answered = True

    def readyok(self, at: float) -> None:
        if not self.readies:
            self.record.fault("unexpected readyok")
            return
        ready = self.readies.popleft()
        latency = at - ready.sent
        self.record.counts["readyok received"] += 1
        key = AFTER_CHANGE if ready.after_change else "isready"
        self.slowest[key] = max(self.slowest[key], latency)
        if latency > SLOW_ISREADY:
            if ready.after_change:
                self.record.counts[
                    "isready slower than 0.5 s after a change or a huge line (not a fault)"
                ] += 1
            else:
                self.record.fault("slow isready", f"readyok after {latency:.2f} s")

    def info(self, words: list[str]) -> None:
        problem = info_problem(words)
        if problem:
            self.record.fault("not UCI", problem)
            return
        if "string" in words:
            words = words[: words.index("string")]
        if "pv" not in words or not self.searches:
            return
        search = self.searches[0]
        pv = words[words.index("pv") + 1 :]
        pv = pv[: next((i for i, w in enumerate(pv) if w in INFO_KEYS), len(pv))]
        board = search.board.copy(stack=False)
        for text in pv:
            move = parse_move(text)
            if move is None or not move or move not in board.legal_moves:
                self.record.fault(
                    "illegal pv",
                    f"{text} is not legal in {board.fen()} (go #{search.number}: {search.line})",
                )
                break
            board.push(move)
        multipv = (
            words[words.index("multipv") + 1] if "multipv" in words[: words.index("pv")] else "1"
        )
        if pv and multipv == "1":
            search.last_pv_first = pv[0]

    def bestmove(self, words: list[str], at: float) -> None:
        record = self.record
        record.counts["bestmove received"] += 1
        if not self.searches:
            record.fault("unexpected bestmove")
            return
        search = self.searches.popleft()
        late = at - (search.due if search.lost else search.deadline)
        if math.isfinite(late):
            self.latest_bestmove = max(self.latest_bestmove, late)
        if late > 0 and not search.lost:
            search.lost = True
            record.fault(
                "lost go",
                f"bestmove {late:.2f} s after the deadline (go #{search.number}: {search.line})",
            )
        if len(words) < 2 or (len(words) > 2 and (words[2] != "ponder" or len(words) != 4)):
            record.fault("not UCI", "bestmove needs 'bestmove MOVE [ponder MOVE]'")
            return
        board = search.board
        legal = list(board.legal_moves)
        text = words[1]
        move = parse_move(text)
        if move is None or (not legal and text != "0000") or (legal and move not in legal):
            record.fault(
                "illegal bestmove",
                f"{text} in {board.fen()} ({len(legal)} legal moves; go #{search.number}:"
                f" {search.line})",
            )
            return
        if (
            search.searchmoves
            and move
            and move not in search.searchmoves
            and any(search.searchmoves)
        ):
            record.fault(
                "bestmove outside searchmoves",
                f"{text} not in {[m.uci() for m in search.searchmoves][:8]}",
            )
        if search.last_pv_first is not None and text != "0000" and search.last_pv_first != text:
            record.fault(
                "bestmove is not the pv's first move",
                f"last pv starts {search.last_pv_first} (go #{search.number}: {search.line})",
            )
        if len(words) == 4 and move:
            after = board.copy(stack=False)
            after.push(move)
            reply = parse_move(words[3])
            if reply is None or not reply or reply not in after.legal_moves:
                record.fault("illegal ponder move", f"{words[3]} after {text} in {board.fen()}")
