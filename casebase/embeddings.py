"""The cases' embeddings (issue #61): ``X.embed.npz`` beside the casebase ``X.npz``, each case's
position embedded by an lc0 network's trunk (:mod:`lc0net.embedding`) with its game's history, for
the learned similarity (cosine) the engine retrieves cases by.

Layout (format ``cbr-chess-embeddings``, version 1): ``format``, ``version``, ``meta`` (JSON: the
casebase's file name and SHA-256, the network's name and the SHA-256 of its weights, the dimensions,
the projection's seed, how many cases were seen with their game's history), ``vectors`` (int8, N x
dimensions, a case a row in the casebase's order). A file made for another casebase (another
SHA-256), or by another network than the one asked for, is refused with a message saying how to make
it again.

A case's position is replayed from its game's start (the opponent's moves found between the
expert's, as the repertoire replays them: :func:`casebase.book.replayed_lines`), so the network sees
what it sees in play: the last positions, castling rights, en passant; a case whose game does not
chain from the standard start is embedded from its position alone.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import chess
import numpy as np
from tqdm import tqdm

from casebase.book import game_cases, replayed_line
from casebase.checks import CasebaseError
from casebase.format import Casebase
from casebase.npzfile import budget, check_format, members_of, read_member, write_npz
from common.files import file_sha256
from common.locks import tried_lock
from lc0net.embedding import DIMENSIONS, SEED, Embedder, quantized
from lc0net.forward import Forward
from lc0net.weights import NetworkError, network_bytes, parse_network, weights_sha256

FORMAT = "cbr-chess-embeddings"
VERSION = 1
#: How the embeddings of the casebase ``X.npz`` are named: ``X.embed.npz``.
SUFFIX = ".embed.npz"
#: The most a file of embeddings' arrays may take together (issue #69): 1 GiB, 256 bytes a case for
#: some 4 million cases (a casebase's bound, :data:`casebase.format.CASEBASE_MOST`, holds about 5
#: million).
EMBEDDINGS_MOST = 1 << 30
#: Games a worker embeds at a time (a progress step).
GAMES_A_TASK = 40
#: How fast cases are embedded, a worker process a core, and what a run costs besides (its workers'
#: start, the network read): for the time a run is said to take. Measured on 2 cores: one worker,
#: Kosteniuk's 5,613 cases in 13.9 s, Postny's 7,445 in 19.7 s, 550 cases in 2.0 s; two, the ten
#: shipped experts' 573,671 in 12m39s.
CASES_A_SECOND = 400
START_SECONDS = 1.5


def embeddings_path(casebase_path: str | os.PathLike[str]) -> Path:
    """Where the embeddings of the casebase at ``casebase_path`` are: ``X.embed.npz`` for
    ``X.npz``."""
    path = Path(casebase_path)
    return path.with_suffix(SUFFIX) if path.name else path / SUFFIX


def embedding_seconds(cases: int, workers: int) -> float:
    """About how long :func:`make_embeddings` takes for ``cases`` cases on ``workers`` processes (a
    core each)."""
    return START_SECONDS + cases / (CASES_A_SECOND * max(1, workers))


def lock_path(casebase_path: str | os.PathLike[str]) -> Path:
    """The lock held while :func:`make_missing_embeddings` makes the embeddings of
    ``casebase_path``: ``.X.embed.npz.lock`` beside them."""
    path = embeddings_path(casebase_path)
    return path.with_name(f".{path.name}.lock")


def network_sha256(network: str | os.PathLike[str]) -> str:
    """The SHA-256 of a network's weights, as the engine names a network
    (:func:`lc0net.weights.weights_sha256`)."""
    return weights_sha256(network_bytes(network))


@dataclass(frozen=True)
class Embeddings:
    """A casebase's embeddings as read: the vectors (int8, a case a row) and what made them."""

    vectors: np.ndarray
    meta: dict[str, Any]

    @property
    def network_sha256(self) -> str:
        return str(self.meta["network_sha256"])


def read_embeddings(
    casebase: Casebase, network: str | os.PathLike[str] | None = None, sha256: str | None = None
) -> Embeddings:
    """The embeddings beside ``casebase``, checked to be its own (and, where ``network`` is given,
    that network's: its weights' ``sha256`` where known, else read from its file); CasebaseError
    saying what is wrong and how to make them again."""
    if casebase.path is None:
        raise CasebaseError("a casebase without a file has no embeddings beside it")
    path = embeddings_path(casebase.path)
    again = f"python -m casebase embed {casebase.path} --network {network or 'NET.pb.gz'}"
    if not path.is_file():
        raise CasebaseError(f"{path}: no embeddings of its cases ({again} makes them)")
    try:
        bound = budget(path, EMBEDDINGS_MOST, "file of embeddings")
        with zipfile.ZipFile(path) as zf:
            members = members_of(zf)
            check_format(path, zf, members, FORMAT, VERSION, bound)
            meta = json.loads(str(read_member(zf, members["meta"], bound)))
            vectors = read_member(zf, members["vectors"], bound)
    except (OSError, zipfile.BadZipFile, KeyError, ValueError, EOFError) as exc:
        raise CasebaseError(
            f"{path}: not a file of embeddings, or a damaged one ({exc}; {again})"
        ) from None
    if (
        not isinstance(meta, dict)
        or vectors.dtype != np.int8
        or vectors.ndim != 2
        or len(vectors) != len(casebase)
    ):
        raise CasebaseError(
            f"{path}: {getattr(vectors, 'shape', '?')} {getattr(vectors, 'dtype', '?')} vectors for"
            f" {len(casebase)} cases ({again})"
        )
    said = {key: meta.get(key) for key in ("dimensions", "seed", "network_sha256")}
    if (
        said["dimensions"] != vectors.shape[1]
        or said["seed"] != SEED
        or not isinstance(said["network_sha256"], str)
    ):
        raise CasebaseError(
            f"{path}: what it says of itself ({said}) does not fit its {vectors.shape[1]}-number"
            f" vectors and this project's projection (seed {SEED}) ({again})"
        )
    if meta.get("casebase_sha256") != file_sha256(casebase.path):
        raise CasebaseError(
            f"{path}: made for another casebase than {Path(casebase.path).name} ({again})"
        )
    if network is not None and meta.get("network_sha256") != (sha256 or network_sha256(network)):
        raise CasebaseError(
            f"{path}: made by another network ({meta.get('network')}) than {Path(network).name}"
            f" ({again})"
        )
    return Embeddings(vectors, meta)


def case_boards(
    casebase: Casebase, games: Sequence[list[int]]
) -> Iterator[tuple[int, chess.Board, bool]]:
    """Each case of ``games`` (each a game's rows, by ply: :func:`all_games`), its position, and
    whether that came with its game's history (replayed from the standard start; else the case's
    position alone)."""
    plies = np.asarray(casebase.ply)
    for cases in games:
        at = {int(plies[row]): row for row in cases}
        board, seen = chess.Board(), set()
        for move in replayed_line(casebase, cases):
            row = at.get(len(board.move_stack))
            if row is not None:
                seen.add(row)
                yield row, board.copy(), True
            board.push(move)
        yield from ((row, casebase.board(row), False) for row in cases if row not in seen)


def all_games(casebase: Casebase) -> list[list[int]]:
    """Every game's cases (rows, by ply)."""
    return list(game_cases(casebase, int(np.asarray(casebase.ply).max(initial=0)) + 1))


@contextmanager
def _one_thread_each() -> Iterator[None]:
    """BLAS held to one thread in the workers started meanwhile (they read it as numpy loads): one a
    core."""
    saved = {name: os.environ.get(name) for name in _THREADS}
    os.environ.update({name: "1" for name in _THREADS})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_WORKER: dict[str, Any] = {}


def _start(casebase_path: str, network: str, dimensions: int) -> None:
    _WORKER["casebase"] = Casebase.load(casebase_path, tell=False)
    _WORKER["embedder"] = Embedder(Forward(parse_network(network_bytes(network))), dimensions)


def _embed(games: list[list[int]]) -> tuple[np.ndarray, np.ndarray, int]:
    casebase, embedder = _WORKER["casebase"], _WORKER["embedder"]
    made = list(case_boards(casebase, games))
    rows = np.array([row for row, _, _ in made], dtype=np.int64)
    return (
        rows,
        quantized(embedder.of_boards([board for _, board, _ in made])),
        sum(replayed for _, _, replayed in made),
    )


def check_network(network: str | os.PathLike[str]) -> str:
    """The SHA-256 of the weights of the lc0 network at ``network``; a CasebaseError that says what
    is wrong where it is no readable lc0 network (said before a build, not after it)."""
    try:
        made_by = weights_sha256(raw := network_bytes(network))
        parse_network(raw)
    except (OSError, EOFError, zlib.error, NetworkError) as exc:
        raise CasebaseError(
            f"cannot embed with {network}: not an lc0 network, or a damaged one ({exc})"
        ) from None
    return made_by


def make_embeddings(
    casebase_path: str | os.PathLike[str],
    network: str | os.PathLike[str],
    *,
    dimensions: int = DIMENSIONS,
    workers: int | None = None,
    progress: bool = True,
) -> Path:
    """Embed every case of the casebase at ``casebase_path`` with ``network``'s trunk on ``workers``
    processes (every core where None) and write ``X.embed.npz`` beside it (atomically); its path."""
    casebase = Casebase.load(casebase_path, tell=False)
    made_for = file_sha256(casebase_path)  # the file the workers read, as it is now
    made_by = check_network(network)
    games = all_games(casebase)
    tasks = [games[i : i + GAMES_A_TASK] for i in range(0, len(games), GAMES_A_TASK)]
    vectors = np.zeros((len(casebase), dimensions), dtype=np.int8)
    with_history = 0
    workers = max(1, min(workers or os.cpu_count() or 1, len(tasks) or 1))
    bar = tqdm(
        total=len(casebase),
        unit="case",
        desc=f"embedding {Path(casebase_path).name}",
        disable=not progress,
    )
    with (
        _one_thread_each(),
        ProcessPoolExecutor(
            workers,
            mp_context=get_context("spawn"),
            initializer=_start,
            initargs=(str(casebase_path), str(network), dimensions),
        ) as pool,
    ):
        for rows, made, history in pool.map(_embed, tasks):
            vectors[rows] = made
            with_history += history
            bar.update(len(rows))
    bar.close()
    meta = {
        "casebase": Path(casebase_path).name,
        "casebase_sha256": made_for,
        "network": Path(network).name,
        "network_sha256": made_by,
        "dimensions": dimensions,
        "seed": SEED,
        "cases": len(casebase),
        "with_history": with_history,
    }
    out = embeddings_path(casebase_path)
    write_npz(
        out,
        {
            "format": np.array(FORMAT),
            "version": np.array(VERSION, dtype=np.int64),
            "meta": np.array(json.dumps(meta, sort_keys=True)),
            "vectors": vectors,
        },
    )
    return out


def make_missing_embeddings(
    casebase_path: str | os.PathLike[str],
    network: str | os.PathLike[str],
    *,
    workers: int | None = None,
    progress: bool = True,
) -> Path | None:
    """:func:`make_embeddings`, where the file is not there yet nor being made by another process
    (the engine's first use of the learned similarity: two engines started together make them once);
    their path, or None where another process is making them (it holds the lock,
    :func:`lock_path`)."""
    with tried_lock(lock_path(casebase_path)) as held:
        if not held:
            return None
        out = embeddings_path(casebase_path)
        if out.exists():  # made by the process that held the lock before
            return out
        return make_embeddings(casebase_path, network, workers=workers, progress=progress)
