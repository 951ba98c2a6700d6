"""Where the judging runs: on local worker processes or on a Ray cluster
(:func:`parallel.cluster.distribute`).

Each of the judging's loops (the profile's positions, the engine's play-time choices) hands the
positions its journal lacks to workers, each of which starts its engines once, and gets back one
:class:`Verdict` a position, in the order they finish: this process alone writes the journal, an
entry as its verdict comes, so that a kill loses at most the positions under way (one a worker).
A verdict names the judge that gave it, which the loop checks against its journal as before.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Self, TypeVar

from common.cli import positive_int
from engine.outside.failures import ENGINE_FAILURES
from parallel.cluster import ClusterError, Failed, distribute
from parallel.pool import Worker
from profiling import ProfileError

T = TypeVar("T")


@dataclass(frozen=True)
class Where:
    """Where positions are judged: on ``workers`` local processes (1: in this one), or as tasks of
    the Ray cluster at ``cluster`` (``--workers``, ``--cluster``)."""

    workers: int = 1
    cluster: str | None = None


#: Judging in this process, as before there were workers (the default).
HERE = Where()


@dataclass(frozen=True)
class Verdict:
    """One position's journal entry, as a worker made it, and the name its judge gave (``id
    name``)."""

    key: str
    judge: str
    entry: dict[str, Any]


class JudgeFailed(Exception):
    """A judge that failed in a worker: its name and what went wrong (the loop says what is
    kept)."""

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(name, detail)
        self.name, self.detail = name, detail


class Judging(Protocol):
    """A worker whose judge gives verdicts: its judge's name, and the engines it closes."""

    name: str

    def close(self) -> None: ...


def verdict(
    worker: Judging,
    key: str,
    entry: Callable[[], dict[str, Any]],
    failures: tuple[type[Exception], ...] = ENGINE_FAILURES,
) -> Verdict:
    """``key``'s verdict: the journal entry ``entry()`` makes, under the name of ``worker``'s judge;
    where the judge fails (one of ``failures``) ``worker``'s engines are closed and the failure
    ends in :class:`JudgeFailed`."""
    try:
        made = entry()
    except failures as exc:
        worker.close()
        raise JudgeFailed(worker.name, str(exc) or type(exc).__name__) from None
    return Verdict(key, worker.name, made)


@dataclass(frozen=True)
class Engines:
    """The outside engines a worker starts: nothing to ship, but every node must have them
    (:class:`parallel.cluster.Portable`)."""

    commands: tuple[str, ...]

    def cargo(self) -> dict[str, Path]:
        return {}

    def unpacked(self, root: Path) -> Self:
        return self

    def programs(self) -> list[str]:
        return list(dict.fromkeys(self.commands))


def verdicts(
    make: Callable[..., Worker[T, Verdict]],
    args: tuple[Any, ...],
    items: Sequence[T],
    where: Where,
    failure: Callable[[str], ProfileError],
) -> Generator[Verdict, None, None]:
    """Each item's verdict as it comes back from ``where``; a judge failed in a worker, or items
    failed for good on the cluster (after the others came back), end in ``failure(what
    happened)``."""
    if not items:
        return
    place, results = distribute(
        make, args, items, workers=min(where.workers, len(items)), cluster=where.cluster
    )
    failed: list[Failed[T]] = []
    try:
        for result in results:
            if isinstance(result, Failed):
                failed.append(result)
            else:
                yield result
    except JudgeFailed as exc:
        raise failure(f"judge {exc.name} failed ({exc.detail})") from None
    except ClusterError as exc:
        raise failure(str(exc)) from None
    finally:
        # closed here, not whenever collected: its engines quit now
        if isinstance(results, Generator):
            results.close()
    if failed:
        reasons = Counter(f.reason for f in failed)
        count = sum(len(f.items) for f in failed)
        raise failure(
            f"{count} positions failed on {place}: "
            + "; ".join(f"{reason} ({n} tasks)" for reason, n in reasons.most_common())
        )


def add_where_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the judging runs, as every command that judges takes it (--workers or --cluster: on a
    cluster, the cluster's nodes say how many tasks run at once)."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=positive_int,
        default=HERE.workers,
        metavar="N",
        help="judge on N local worker processes, each with its own judge (default 1)",
    )
    where.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="judge on the Ray cluster at ADDRESS (auto, HOST:PORT or ray://HOST:PORT;"
        " docs/cluster.md): the judge must be on every node",
    )


def where_of(args: argparse.Namespace) -> Where:
    return Where(args.workers, args.cluster)
