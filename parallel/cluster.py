"""Work spread over a Ray cluster (the ``--cluster ADDRESS`` of the round robin and the benches).

The same contract as :func:`parallel.pool.unordered_map`: every item is done by a worker made
once per process from ``make(*args)``, and results come back in the order they finish. Here each
item (or chunk of items) is a Ray task on one CPU of any node, retried elsewhere (at most
:data:`RETRIES` times) when its node or worker process dies; a task that fails for good comes
back as a :class:`Failed` instead of stopping the others, so the caller reports it.

Nothing needs a shared file system. The project's code travels as Ray's runtime environment
(when it runs from a source tree; an installed package is expected on the nodes otherwise); the
files a run reads (casebases, model, endgame tables: the ``cargo()`` of each argument that is
:class:`Portable`) go once into Ray's object store, and each node unpacks them into a folder of
its own, checking every file's SHA-256, before the argument is rebuilt around them
(``unpacked(root)``). The programs a run starts (a judge, reference engines: ``programs()``) must
be on every node: a node without one fails its tasks with a message naming node and program.

Ray is an optional extra (``pip install -e '.[cluster]'``): nothing imports this module's Ray
parts unless ``--cluster`` is given.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, Self, TypeVar, runtime_checkable

from common.files import write_atomic
from common.paths import PROJECT_ROOT, in_source_tree
from endgame import default_folder
from parallel.pool import Worker, unordered_map

T = TypeVar("T")
R = TypeVar("R")

#: How many times a task whose node or worker process died is started again elsewhere.
RETRIES = 3
#: Attempts to join a cluster, and the seconds between them.
CONNECT_ATTEMPTS = 3
CONNECT_PAUSE = 2.0
#: What of a source tree stays behind when the code travels to the nodes (data, results, builds).
CODE_EXCLUDES = [
    ".git",
    ".venv",
    "data",
    "casebases",
    "results",
    "tables",
    "build",
    "dist",
    "docs",
    "tests",
    "bench/out",
    "*.egg-info",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
]
#: Threads of the numeric libraries in a task: one task, one core.
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
#: Ray's workers run asyncio on uvloop unless told not to, and uvloop starts no process with
#: ``process_group``, as python-chess starts a judge in a process group of its own: asyncio's own
#: loop.
STANDARD_LOOP = {"RAY_USE_UVLOOP": "0"}


class ClusterError(RuntimeError):
    """The cluster cannot be reached, or a node cannot do the work (a message says why)."""


@runtime_checkable
class Portable(Protocol):
    """Settings that name files on the driver's disk and can be rebuilt around copies of them."""

    def cargo(self) -> dict[str, Path]:
        """The files the workers read, by a relative name of the settings' choosing."""
        ...

    def unpacked(self, root: Path) -> Self:
        """These settings, reading each file of :meth:`cargo` from ``root / name`` instead."""
        ...

    def programs(self) -> list[str]:
        """The programs the workers start (paths or names on the PATH)."""
        ...


@dataclass(frozen=True)
class Failed(Generic[T]):
    """Items whose task failed for good, and why."""

    items: tuple[T, ...]
    reason: str


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def unpack(files: Mapping[str, tuple[str, bytes]], root: Path) -> None:
    """Write each ``name: (digest, data)`` under ``root``, refusing a file whose data does not match
    its digest."""
    for name, (digest, data) in files.items():
        if sha256(data) != digest:
            raise ClusterError(
                f"{_node()}: {name} arrived damaged (its SHA-256 is not the driver's"
                f" {digest[:12]}...)"
            )
        target = root / name
        if not (target.exists() and sha256(target.read_bytes()) == digest):
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, data)


def check_programs(programs: Sequence[str]) -> None:
    """Fail with the node's name when one of ``programs`` cannot be started here."""
    for program in programs:
        if shutil.which(program) is None:
            raise ClusterError(
                f"{_node()}: {program} is not there or not executable; install it on every node"
                " (Debian's Stockfish: apt-get install stockfish) or give a path that every node"
                " has"
            )


def table_files(folder: str) -> dict[str, Path]:
    """The endgame tables of ``folder`` (the engine's default when empty), as cargo:
    ``tables/NAME``."""
    return {f"tables/{p.name}": p for p in sorted(Path(folder or default_folder()).glob("*.npz"))}


def _joined() -> Any:
    """Ray, where this process has joined a cluster; else None (Ray is not imported for it)."""
    ray = sys.modules.get("ray")
    return ray if ray is not None and ray.is_initialized() else None


def node_id() -> str | None:
    """The Ray node this process works on, or None outside a Ray cluster."""
    ray = _joined()
    return None if ray is None else str(ray.get_runtime_context().get_node_id())


def _node() -> str:
    ray = _joined()
    address = "" if ray is None else f" at {ray.util.get_node_ip_address()}"
    return f"node {socket.gethostname()}{address} (pid {os.getpid()})"


# -- in a worker process ------------------------------------------------------------

# The workers this process made, by run: a run's worker is made at its first task here.
_workers: dict[str, Worker[Any, Any]] = {}


def _close_workers() -> None:
    while _workers:
        _workers.popitem()[1].close()


# A worker process that ends closes its worker: its engine processes quit.
atexit.register(_close_workers)


def _worker_for(
    run: str,
    make: Callable[..., Worker[Any, Any]],
    args: tuple[Any, ...],
    cargo: Mapping[str, tuple[str, Any]],
) -> Worker[Any, Any]:
    if run not in _workers:
        import ray

        _close_workers()  # another run's worker (its engines) is done with
        root = Path(tempfile.gettempdir()) / "cbr-chess-cluster" / run
        unpack({name: (digest, ray.get(ref)) for name, (digest, ref) in cargo.items()}, root)
        for arg in args:
            if isinstance(arg, Portable):
                check_programs(arg.programs())
        local = tuple(arg.unpacked(root) if isinstance(arg, Portable) else arg for arg in args)
        _workers[run] = make(*local)
    return _workers[run]


def _do_chunk(
    run: str,
    make: Callable[..., Worker[T, R]],
    args: tuple[Any, ...],
    cargo: Mapping[str, tuple[str, Any]],
    items: list[T],
) -> list[R]:
    worker = _worker_for(run, make, args, cargo)
    return [worker(item) for item in items]


# -- the driver ---------------------------------------------------------------------


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` (``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``), once
    per process, shipping the project's code when it runs from a source tree."""
    try:
        import ray
    except ImportError:
        raise ClusterError(
            "--cluster needs Ray, the project's optional extra: pip install -e '.[cluster]'"
        ) from None
    if ray.is_initialized():
        return
    runtime_env: dict[str, Any] = {"env_vars": {**ONE_THREAD, **STANDARD_LOOP}}
    if in_source_tree():
        runtime_env |= {"working_dir": str(PROJECT_ROOT), "excludes": CODE_EXCLUDES}
    for attempt in range(1, CONNECT_ATTEMPTS + 1):
        try:
            ray.init(
                address=address,
                runtime_env=runtime_env,
                log_to_driver=False,
                logging_level=logging.ERROR,
            )
            return
        except ValueError as exc:  # a malformed address: trying again changes nothing
            raise ClusterError(
                f"--cluster {address}: cannot join the Ray cluster there ({exc})"
            ) from None
        except (ConnectionError, RuntimeError) as exc:
            # Ray's client starts a server for each driver, which can fail on a busy head: try again
            ray.shutdown()
            if attempt == CONNECT_ATTEMPTS:
                raise ClusterError(
                    f"--cluster {address}: cannot join the Ray cluster there"
                    f" ({CONNECT_ATTEMPTS} attempts; the last: {exc})"
                ) from None
            time.sleep(CONNECT_PAUSE)


def cluster_map(
    make: Callable[..., Worker[T, R]],
    args: tuple[Any, ...],
    items: Sequence[T],
    address: str,
    *,
    chunksize: int = 1,
) -> Iterator[R | Failed[T]]:
    """``worker(item)`` for every item on the Ray cluster at ``address``, in the order they finish,
    where each worker process of the cluster makes its ``worker = make(*args)`` once per run;
    a chunk of ``chunksize`` items whose task failed for good comes back as one :class:`Failed`."""
    connect(address)
    import ray

    cargo: dict[str, tuple[str, Any]] = {}
    for arg in args:
        if isinstance(arg, Portable):
            for name, path in arg.cargo().items():
                data = Path(path).read_bytes()
                cargo[name] = (sha256(data), ray.put(data))
    # a run's identity: what its workers are made of, so that a process never reuses another run's
    # worker
    run = sha256(
        repr((make.__qualname__, args, sorted((n, d) for n, (d, _) in cargo.items()))).encode()
    )[:16]
    # SPREAD: every node gets work from the start, not only once the driver's own node is full
    task: Any = ray.remote(
        num_cpus=1, max_retries=RETRIES, retry_exceptions=False, scheduling_strategy="SPREAD"
    )(_do_chunk)
    chunks = {
        task.remote(run, make, args, cargo, list(items[i : i + chunksize])): tuple(
            items[i : i + chunksize]
        )
        for i in range(0, len(items), chunksize)
    }
    try:
        while chunks:
            [ref], _ = ray.wait(list(chunks), num_returns=1)
            chunk = chunks.pop(ref)
            try:
                results = ray.get(ref)
            # the task's own error is its cause; a lost node has none
            except ray.exceptions.RayError as exc:
                yield Failed(chunk, _reason(getattr(exc, "cause", None) or exc))
                continue
            yield from results
    finally:
        for ref in chunks:  # an interrupted driver leaves no game running for nobody
            ray.cancel(ref, force=True)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1] if text else ''}"


def distribute(
    make: Callable[..., Worker[T, R]],
    args: tuple[Any, ...],
    items: Sequence[T],
    *,
    workers: int,
    cluster: str | None = None,
    chunksize: int = 1,
) -> tuple[str, Iterator[R | Failed[T]]]:
    """Where the items are done, in words, and ``worker(item)`` for each in the order they finish:
    on ``workers`` local processes (:func:`parallel.pool.unordered_map`), or as tasks of the Ray
    cluster at ``cluster`` (:func:`cluster_map`)."""
    if cluster:
        return f"the Ray cluster at {cluster}", cluster_map(
            make, args, items, cluster, chunksize=chunksize
        )
    return f"{workers} workers", unordered_map(make, args, items, workers, chunksize=chunksize)
