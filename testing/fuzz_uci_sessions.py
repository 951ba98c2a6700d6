"""The sessions testing/fuzz_uci.py plays: the fixtures (files and programs given as option values,
a lying judge among them) and the scenario each session plays (its mode, judge and options)."""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path

import numpy as np

from testing.bombs import gzip_zeros, npz_with
from testing.fuzz_uci_protocol import ROOT

SHIPPED_CASEBASE = ROOT / "casebases" / "kosteniuk-2200.npz"
STOCKFISH = "/usr/games/stockfish"

# -- the fixtures: files and programs given as option values --------------------------------


LIAR = '''\
"""A judge that speaks UCI and lies in answer to go (testing/fuzz_uci.py)."""
import os, random, sys, time
rng = random.Random(int(os.environ.get("LIAR_SEED", "0")) ^ os.getpid())
held = None
def say(text):
    sys.stdout.write(text + "\\n"); sys.stdout.flush()
def square():
    return "abcdefghz"[rng.randrange(9)] + "123456789"[rng.randrange(9)]
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        say("id name liar"); say("option name Hash type spin default 16 min 1 max 64")
        say("option name Threads type spin default 1 min 1 max 4"); say("uciok")
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "go":
        kind = rng.randrange(10)
        lies = ["info depth 1 score cp 30000000 pv e2e4 e7e5", "info depth -5 score mate 0 pv z9z9",
                "info score cp abc", "info multipv 0 depth 1 score cp 10 pv a1a8 h8h1",
                "info depth 1 nodes -1 score cp 5 pv 0000", "info string " + "x" * 10000,
                "info depth 3 score mate -1 pv " + square() + square()]
        for lie in rng.sample(lies, rng.randrange(len(lies))):
            say(lie)
        answer = rng.choice(["bestmove " + square() + square(), "bestmove e2e4", "bestmove 0000",\
 "bestmove",
                             "bestmove (none)", "bestmove a7a8q ponder h1h8",\
 "bestmove e7e5 ponder e2e4",
                             "info nonsense", "bestmove " + "e2e4" * 1000])
        if kind == 0:
            continue                      # never answers this go, not even at stop
        if kind == 1:
            held = answer                 # answers at stop
            continue
        if kind == 2:
            sys.exit(3)                   # dies in the middle of a search
        if kind == 3:
            time.sleep(rng.random() * 3)  # slow
        say(answer)
    elif words[0] == "stop" and held is not None:
        say(held); held = None
    elif words[0] == "quit":
        break
'''


@dataclasses.dataclass
class Fixtures:
    """The files and programs the fuzzer offers as option values, made in a temporary folder."""

    folder: Path
    liar: Path
    garbage: Path
    truncated: Path
    damaged: Path
    empty: Path
    missing: Path
    long_path: str
    network_bomb: Path
    casebase_bomb: Path

    @classmethod
    def make(cls, folder: Path, rng: random.Random) -> Fixtures:
        liar = folder / "liar_judge.py"
        liar.write_text(f"#!{sys.executable}\n" + LIAR)
        liar.chmod(0o755)
        garbage = folder / "garbage.npz"
        garbage.write_bytes(rng.randbytes(4096))
        data = (
            SHIPPED_CASEBASE.read_bytes() if SHIPPED_CASEBASE.exists() else rng.randbytes(100_000)
        )
        truncated = folder / "truncated.npz"
        truncated.write_bytes(data[: len(data) // 2])
        damaged = folder / "damaged.npz"  # a zip whose members' bytes are flipped: the CRCs fail
        flipped = bytearray(data)
        for at in range(1000, len(flipped) - 1000, max(1, len(flipped) // 64)):
            flipped[at] ^= 0xFF
        damaged.write_bytes(bytes(flipped))
        empty = folder / "empty.npz"
        empty.write_bytes(b"")
        network_bomb = gzip_zeros(folder / "zeros.pb.gz", 2 << 30)  # 2 MiB that inflate to 2 GiB
        casebase_bomb = npz_with(
            folder / "bomb.npz",
            {"format": np.array("cbr-chess-casebase"), "version": np.array(2)},
            "boards",
            (1 << 25, 8),
            "uint64",
        )
        return cls(
            folder,
            liar,
            garbage,
            truncated,
            damaged,
            empty,
            folder / "missing" / "nothing.npz",
            "/tmp/" + "x" * 3000,
            network_bomb,
            casebase_bomb,
        )

    def files(self, kind: str) -> list[str]:
        """Values for a string option: ``kind`` is ``casebase``, ``model``, ``judge``, ``tables``,
        ``syzygy`` or anything else; the ones that argv cannot carry (NUL) come last."""
        bad = [
            str(self.missing),
            str(self.garbage),
            str(self.truncated),
            str(self.damaged),
            str(self.empty),
            "",
            "<empty>",
            "/tmp",
            "/etc/passwd",
            "/dev/null",
            self.long_path,
            "/" + "a/" * 1500 + "b.npz",
        ]
        kinds = {
            "casebase": [str(SHIPPED_CASEBASE)] * 4
            + [
                "kosteniuk-2200",
                str(ROOT / "engine/style/models/style.npz"),
                str(self.casebase_bomb),
            ],
            "model": ["auto"] * 3
            + [
                str(ROOT / "engine/style/models/style.npz"),
                str(ROOT / "engine/style/models/personal/kosteniuk-2200.npz"),
                str(SHIPPED_CASEBASE),
                str(self.network_bomb),
            ],
            "judge": ["", "/bin/cat", "/bin/false", str(self.liar), STOCKFISH, STOCKFISH],
            "tables": [str(ROOT / "tables")] * 3,
            "syzygy": [str(ROOT / "tests/data/syzygy"), "/tmp:/nonexistent", "::::"],
        }
        return kinds.get(kind, []) + bad

    @staticmethod
    def unsendable() -> list[str]:
        """Values only a line can carry (argv cannot): NUL bytes."""
        return ["/tmp/a\x00b", "\x00", "auto\x00"]


def option_kind(name: str) -> str:
    """Which list of :meth:`Fixtures.files` an option's values come from."""
    lowered = name.lower()
    for kind in ("casebase", "model", "judge", "tables", "syzygy"):
        if kind in lowered:
            return kind
    return "other"


# -- the session's scenarios ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Scenario:
    """A session's start: the engine's flags (``{CASEBASE}``-style names are fixtures) and the
    options set after ``uci``."""

    name: str
    flags: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()


SCENARIOS = (
    Scenario("pure", ("--mode", "pure", "--casebase", "{shipped}")),
    Scenario("guided", ("--mode", "guided", "--casebase", "{shipped}")),
    Scenario("chess0", ("--mode", "chess0", "--casebase", "{shipped}")),
    Scenario(
        "guided, Judge stockfish",
        ("--mode", "guided", "--casebase", "{shipped}", "--judge", STOCKFISH),
        (("Ponder", "true"),),
    ),
    Scenario(
        "guided, Judge /bin/cat",
        ("--mode", "guided", "--casebase", "{shipped}", "--judge", "/bin/cat"),
    ),
    Scenario(
        "guided, Judge /bin/false",
        ("--mode", "guided", "--casebase", "{shipped}", "--judge", "/bin/false"),
    ),
    Scenario(
        "guided, Judge liar", ("--mode", "guided", "--casebase", "{shipped}", "--judge", "{liar}")
    ),
    Scenario(
        "guided, UCI_LimitStrength",
        ("--mode", "guided", "--casebase", "{shipped}"),
        (("UCI_LimitStrength", "true"), ("UCI_Elo", "{elo}"), ("Selection", "calibrated")),
    ),
    Scenario(
        "guided, Selection likely, personal Model",
        ("--mode", "guided", "--casebase", "{shipped}"),
        (
            ("Selection", "likely"),
            ("Model", str(ROOT / "engine/style/models/personal/kosteniuk-2200.npz")),
        ),
    ),
    Scenario("guided, Casebase missing", ("--mode", "guided", "--casebase", "{missing}")),
    Scenario("guided, Casebase garbage", ("--mode", "guided", "--casebase", "{bad}")),
    Scenario("pure, Casebase damaged", ("--mode", "pure", "--casebase", "{bad}")),
    Scenario(
        "guided, Judge stockfish, Model garbage, MultiPV, WDL",
        ("--mode", "guided", "--casebase", "{shipped}", "--judge", STOCKFISH),
        (("Model", "{garbage}"), ("MultiPV", "3"), ("UCI_ShowWDL", "true")),
    ),
    Scenario(
        "chess0 adaptive, Selection calibrated",
        ("--mode", "chess0", "--casebase", "{shipped}"),
        (("Style", "adaptive"), ("Selection", "calibrated"), ("UCI_LimitStrength", "true")),
    ),
    Scenario(
        "guided, Judge liar, LimitStrength, likely",
        ("--mode", "guided", "--casebase", "{shipped}", "--judge", "{liar}"),
        (("UCI_LimitStrength", "true"), ("Selection", "likely")),
    ),
)
