"""The master network (issue #51, item 2): an lc0 network (Maia-1900) fine-tuned on master games, on
the CPU.

The recipe is a TOML file's ``[recipe]`` table (``engine/style/models/master.toml``): the PGN
sources, the network to start from, the positions to train on, the batch, the learning rate, the
seed. Games of the shipped experts (data/experts.tsv, names matched as casebases match them) are
dropped, the same game twice is kept once (its moves and date), and a seeded share of the games is
held out for validation. Each position's input is lc0's own (its ``GameState`` with the game's
history), its target the move played; the loss is the cross-entropy of the policy over the legal
moves (the engine asks for nothing else); the value head is kept as it is.

Games are read in chunks in a seeded order, each chunk's positions shuffled (seeded by the chunk),
so a run stopped at any point and started again goes on with the same batches: the checkpoint folder
holds the last state (every few minutes) and the best one so far by validation top-1. At the end, or
with ``--export``, the best is written as an lc0 network, which the engine's forward then plays on
the validation positions beside the network it started from; what it scored goes into the provenance
file beside it.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from common.files import atomic_file, made_stamp, write_atomic
from engine.style.lc0 import MAX_BATCH, load_network, provenance
from lc0net.weights import read_network, write_network
from learn.lc0.model import Lc0Net
from learn.lc0.positions import Positions, positions, replay
from learn.master_games import select_games

ROOT = Path(__file__).resolve().parent.parent
#: The recipe's keys, and their defaults.
DEFAULTS: dict[str, Any] = {
    "sources": ["data/masters-2500plus.pgn.gz"],
    "base": "engine/style/models/maia-1900.pb.gz",
    "positions": 2_000_000,
    "batch": 256,
    "lr": 1e-4,
    "seed": 0,
    "validation_games": 400,
    "validation_positions": 6000,
    "chunk_games": 200,
    "checkpoint_minutes": 10.0,
    "threads": 2,
}


@dataclass(frozen=True)
class Recipe:
    """Everything that decides the network made (with the games)."""

    sources: list[str] = field(default_factory=lambda: list(DEFAULTS["sources"]))
    base: str = DEFAULTS["base"]
    positions: int = DEFAULTS["positions"]
    batch: int = DEFAULTS["batch"]
    lr: float = DEFAULTS["lr"]
    seed: int = DEFAULTS["seed"]
    validation_games: int = DEFAULTS["validation_games"]
    validation_positions: int = DEFAULTS["validation_positions"]
    chunk_games: int = DEFAULTS["chunk_games"]
    checkpoint_minutes: float = DEFAULTS["checkpoint_minutes"]
    threads: int = DEFAULTS["threads"]

    def identity(self) -> str:
        """What a checkpoint must have been made by to be resumed (the schedule's knobs aside)."""
        keys = (
            "sources",
            "base",
            "batch",
            "lr",
            "seed",
            "validation_games",
            "validation_positions",
            "chunk_games",
        )
        return hashlib.sha256(json.dumps({k: getattr(self, k) for k in keys}).encode()).hexdigest()[
            :16
        ]


def read_recipe(path: Path) -> Recipe:
    """The ``[recipe]`` table of a TOML file; ValueError naming what is wrong."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("recipe", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: not a readable recipe ({exc})") from None
    unknown = sorted(set(table) - set(DEFAULTS))
    if unknown:
        raise ValueError(
            f"{path}: unknown recipe keys {', '.join(unknown)} (a recipe sets"
            f" {', '.join(DEFAULTS)})"
        )
    for key, value in table.items():
        if not isinstance(value, type(DEFAULTS[key])) and not (
            isinstance(DEFAULTS[key], float) and isinstance(value, int)
        ):
            raise ValueError(
                f"{path}: recipe key {key} = {value!r} is not a {type(DEFAULTS[key]).__name__}"
            )
    return Recipe(**table)


# Training


def legal_logits(net: Lc0Net, planes: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """The policy's logits, illegal moves at -inf."""
    return net(planes)[0].masked_fill(~legal, -math.inf)


def top1(net: Lc0Net, data: Positions, batch: int = 512) -> float:
    """How often the network's favourite legal move is the move played."""
    hits = 0
    with torch.no_grad():
        for start in range(0, len(data), batch):
            planes, legal, target = data.take(
                np.arange(start, min(start + batch, len(data)))
            ).tensors()
            hits += int((legal_logits(net, planes, legal).argmax(1) == target).sum())
    return hits / max(1, len(data))


def engine_hits(path: Path, games: Sequence[str], rows: np.ndarray) -> np.ndarray:
    """Whether the network file ``path``, as the engine plays it, has the move played as its
    favourite legal move, in each of the positions ``rows`` of ``games`` (as :func:`positions`
    numbers them)."""
    network = load_network(path)
    wanted = set(rows.tolist())
    asked = [
        (board.copy(), move)
        for number, (board, move) in enumerate(replay(games))
        if number in wanted
    ]
    hits = []
    for start in range(0, len(asked), MAX_BATCH):
        part = asked[start : start + MAX_BATCH]
        boards = [board for board, _ in part]
        for (_, played), prior in zip(
            part, network.priors(boards, [list(b.legal_moves) for b in boards])
        ):
            hits.append(max(prior, key=prior.__getitem__) == played)
    return np.array(hits, dtype=bool)


@dataclass
class State:
    """Where a run stands: what the checkpoint holds besides the weights."""

    identity: str
    chunk: int = 0
    batch_in_chunk: int = 0
    step: int = 0
    positions: int = 0
    seconds: float = 0.0
    base_top1: float = 0.0
    best_top1: float = 0.0
    best_positions: int = 0
    history: list[tuple[int, float]] = field(default_factory=list)


@dataclass
class Run:
    """A run's folder: ``last.pt`` (to resume) and ``best.pt`` (the best weights by validation
    top-1)."""

    folder: Path

    @property
    def last(self) -> Path:
        return self.folder / "last.pt"

    @property
    def best(self) -> Path:
        return self.folder / "best.pt"

    def save(self, path: Path, payload: dict[str, Any]) -> None:
        with atomic_file(path) as f:
            torch.save(payload, f)

    def load(self, path: Path) -> dict[str, Any]:
        payload: dict[str, Any] = torch.load(path, map_location="cpu", weights_only=False)
        return payload


def validation_rows(data_size: int, wanted: int, seed: int) -> np.ndarray:
    """The validation positions measured: a seeded sample, in order."""
    rng = np.random.default_rng(seed + 1)
    return np.sort(rng.choice(data_size, size=min(wanted, data_size), replace=False))


def chunks(games: Sequence[str], size: int) -> Iterator[tuple[int, Sequence[str]]]:
    for index, start in enumerate(range(0, len(games), size)):
        yield index, games[start : start + size]


def train(
    recipe: Recipe, folder: Path, out: Path, *, progress: bool = True, stop_after: int | None = None
) -> dict[str, Any]:
    """Fine-tune by ``recipe`` from the checkpoint in ``folder`` (or from the start), then write the
    best network to ``out`` (:func:`export`). ``stop_after``: stop after that many steps of this
    call, the state saved (for tests). Returns the provenance written, or the state where it
    stopped."""
    torch.set_num_threads(recipe.threads)
    torch.manual_seed(recipe.seed)
    template = read_network(_path(recipe.base))
    net = Lc0Net(template)
    for p in net.value_head():
        # the value head is kept as it is: the moves played teach it nothing
        p.requires_grad_(False)
    optimizer = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=recipe.lr)
    run = Run(folder)
    games = select_games([_path(s) for s in recipe.sources], recipe.validation_games, recipe.seed)
    validation_all = positions(games.validation)
    rows = validation_rows(len(validation_all), recipe.validation_positions, recipe.seed)
    validation = validation_all.take(rows)
    state = State(recipe.identity())
    if run.last.is_file():
        saved = run.load(run.last)
        if saved["state"]["identity"] != state.identity:
            raise ValueError(
                f"{run.last}: a checkpoint of another recipe (start afresh in another folder,"
                " or remove this one)"
            )
        net.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        state = State(
            **{**saved["state"], "history": [tuple(h) for h in saved["state"]["history"]]}
        )
    else:
        state.base_top1 = state.best_top1 = top1(net.eval(), validation)
        state.history.append((0, state.base_top1))
        run.save(run.best, {"model": net.state_dict(), "state": asdict(state)})
    bar = tqdm(
        total=recipe.positions,
        initial=state.positions,
        unit="pos",
        smoothing=0.1,
        disable=not progress,
        desc="master",
        dynamic_ncols=True,
    )
    bar.set_postfix(top1=f"{state.history[-1][1]:.1%}", base=f"{state.base_top1:.1%}")
    last_save, started, steps = time.monotonic(), time.monotonic() - state.seconds, 0

    def checkpoint() -> None:
        nonlocal last_save
        net.eval()
        score = top1(net, validation)
        state.history.append((state.positions, score))
        if score > state.best_top1:
            state.best_top1, state.best_positions = score, state.positions
            run.save(run.best, {"model": net.state_dict(), "state": asdict(state)})
        state.seconds = time.monotonic() - started
        run.save(
            run.last,
            {
                "model": net.state_dict(),
                "optimizer": optimizer.state_dict(),
                "state": asdict(state),
            },
        )
        bar.set_postfix(
            top1=f"{score:.1%}", best=f"{state.best_top1:.1%}", base=f"{state.base_top1:.1%}"
        )
        last_save = time.monotonic()

    for index, chunk in chunks(games.training, recipe.chunk_games):
        if index < state.chunk:
            continue
        data = positions(chunk)
        order = np.random.default_rng([recipe.seed, index]).permutation(len(data))
        batches = [order[i : i + recipe.batch] for i in range(0, len(order), recipe.batch)]
        for b in range(state.batch_in_chunk, len(batches)):
            if state.positions >= recipe.positions or (
                stop_after is not None and steps >= stop_after
            ):
                checkpoint()
                bar.close()
                return (
                    asdict(state)
                    if state.positions < recipe.positions
                    else export(recipe, folder, out)
                )
            net.train()
            planes, legal, target = data.take(batches[b]).tensors()
            loss = torch.nn.functional.cross_entropy(legal_logits(net, planes, legal), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            state.step, steps = state.step + 1, steps + 1
            state.positions += len(batches[b])
            state.chunk, state.batch_in_chunk = index, b + 1
            bar.update(len(batches[b]))
            if time.monotonic() - last_save > recipe.checkpoint_minutes * 60:
                checkpoint()
        state.chunk, state.batch_in_chunk = index + 1, 0
    checkpoint()
    bar.close()
    return export(recipe, folder, out)


def export(recipe: Recipe, folder: Path, out: Path) -> dict[str, Any]:
    """Write the best network of the run in ``folder`` to ``out``, measure it and the base network
    on the validation positions as the engine plays them, and write what it is (``out``'s
    ``NAME.toml``)."""
    run = Run(folder)
    if not run.best.is_file():
        raise ValueError(f"{folder}: no checkpoint to write a network from")
    best = run.load(run.best)
    base_path = _path(recipe.base)
    template = read_network(base_path)
    net = Lc0Net(template)
    net.load_state_dict(best["model"])
    write_network(out, net.to_network(template))
    games = select_games([_path(s) for s in recipe.sources], recipe.validation_games, recipe.seed)
    count = sum(1 for _ in replay(games.validation))
    rows = validation_rows(count, recipe.validation_positions, recipe.seed)
    last = run.load(run.last)["state"] if run.last.is_file() else best["state"]
    base_hits, hits = (engine_hits(path, games.validation, rows) for path in (base_path, out))
    gain = hits.astype(float) - base_hits
    facts = {
        "positions_trained": best["state"]["best_positions"],
        "positions_run": last["positions"],
        "validation_games": recipe.validation_games,
        "validation_positions": len(rows),
        "validation_top1_base": round(float(base_hits.mean()), 4),
        "validation_top1": round(float(hits.mean()), 4),
        # the gain's standard error, paired by position
        "validation_gain_se": round(float(gain.std(ddof=1) / np.sqrt(len(gain))), 4),
        "games_read": games.read,
        "games_of_experts_dropped": games.experts,
        "duplicates_dropped": games.duplicates,
        "training_games": len(games.training),
        **made_stamp(),
    }
    write_provenance(out, recipe, facts)
    return facts


def write_provenance(out: Path, recipe: Recipe, facts: dict[str, Any]) -> None:
    """``NAME.toml`` beside ``NAME.pb.gz``: what the engine says of the network, the recipe, the
    training's facts."""
    name = out.name.removesuffix(".pb.gz")
    base = _path(recipe.base)
    said = provenance(base)
    base_name = said.get("name") or base.name.removesuffix(".pb.gz")
    lines = [
        "# What engine/style/lc0.py says of the network "
        + out.name
        + ", the recipe it was made by",
        "# (python -m learn master), and what its training found (the engine's forward on the"
        " validation positions).",
        _toml("name", f"{base_name} fine-tuned on master games"),
        _toml(
            "source",
            f"{base_name} ({recipe.base}) fine-tuned here on the master games of"
            f" {', '.join(recipe.sources)} (the shipped experts' games dropped, duplicates dropped,"
            " validation held out by game)",
        ),
        # a work made from the base network: its licence (Maia's is the GPL)
        _toml("licence", said.get("licence", "GPL-3.0")),
        "",
        "[recipe]",
    ]
    lines += [_toml(key, value) for key, value in asdict(recipe).items()]
    lines += ["", "[training]"] + [_toml(key, value) for key, value in facts.items()]
    write_atomic(out.with_name(name + ".toml"), "\n".join(lines) + "\n")


def _toml(key: str, value: Any) -> str:
    return f"{key} = {json.dumps(value)}"


def _path(name: str) -> Path:
    return Path(name) if Path(name).is_absolute() else ROOT / name
