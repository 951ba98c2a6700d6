"""Training the style model: seeded, resumable from checkpoints, on the CPU or a CUDA GPU.

AdamW with a one-cycle learning rate, cross-entropy over the 4096 from-to indices (the
expert's move is the target; only legal moves are ever asked for when playing, so no mask
is needed to learn). The best-known use: ``python -m learn train casebases/masters.npz``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from common.files import atomic_file
from engine.style.model import save_model
from engine.style.planes import FORMAT_ID
from learn.data import Examples, batches, epoch_order, validation_sample
from learn.net import StyleNet


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides the trained weights (with the training data)."""

    blocks: int = 4
    filters: int = 32
    epochs: int = 1
    #: Training examples per epoch (None: all of them).
    positions: int | None = None
    batch: int = 1024
    lr: float = 2e-3
    weight_decay: float = 1e-4
    validation: float = 0.02
    #: Validation examples whose top-1 is reported.
    validation_positions: int = 20_000
    seed: int = 0


@dataclass
class TrainResult:
    """What a finished run reports."""

    validation_top1: float
    validation_positions: int
    steps: int
    seconds: float
    device: str


def device_of(name: str | None) -> torch.device:
    """``name``, or CUDA when a GPU is present, else the CPU."""
    return torch.device(name or ("cuda" if torch.cuda.is_available() else "cpu"))


def train(
    casebases: list[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    config: TrainConfig = TrainConfig(),
    *,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: int = 100,
    device: str | None = None,
    progress: bool | None = None,
) -> TrainResult:
    """Train on the cases of ``casebases``, write the model file ``out``, and report.

    The state is saved to ``checkpoint`` (default: ``out`` + ``.ckpt``) every
    ``checkpoint_every`` steps; a run started again with the same data and config resumes
    from it and ends with the same weights as one never stopped.
    """
    checkpoint = Path(checkpoint) if checkpoint is not None else Path(f"{out}.ckpt")
    where = device_of(device)
    examples = Examples.load(casebases)
    training, validation = examples.split(config.validation, config.seed)
    if not len(training):
        raise ValueError("no training examples: the casebases are empty or all held for validation")
    per_epoch = len(epoch_order(training, config.seed, 0, config.positions))
    steps_per_epoch = math.ceil(per_epoch / config.batch)
    total = config.epochs * steps_per_epoch

    torch.manual_seed(config.seed)
    net = StyleNet(config.blocks, config.filters).to(where)
    optimizer = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=config.lr, total_steps=total)
    identity = {
        "config": dataclasses.asdict(config),
        "sources": [Path(s).name for s in examples.sources],
        "examples": len(examples),
    }
    step, seconds = 0, 0.0
    if checkpoint.exists():
        state = torch.load(checkpoint, map_location=where, weights_only=False)
        if state["identity"] != identity:
            raise ValueError(
                f"{checkpoint} is the checkpoint of another run (other data or settings):"
                " delete it to start afresh"
            )
        net.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        step, seconds = state["step"], state["seconds"]

    def save() -> None:
        with atomic_file(checkpoint) as f:
            torch.save(
                {
                    "identity": identity,
                    "model": net.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "schedule": schedule.state_dict(),
                    "step": step,
                    "seconds": seconds + time.perf_counter() - started,
                },
                f,
            )

    started = time.perf_counter()
    bar = tqdm(
        total=total,
        initial=step,
        unit="batch",
        desc=f"training on {where.type}",
        file=sys.stderr,
        disable=not (sys.stderr.isatty() if progress is None else progress),
    )
    try:  # an interrupted run resumes from the last checkpoint (a torn step is never saved)
        while step < total:
            epoch, done = divmod(step, steps_per_epoch)
            order = epoch_order(training, config.seed, epoch, config.positions)
            net.train()
            for rows in batches(order, config.batch, skip=done):
                loss, hits = _step(net, optimizer, examples, rows, where)
                schedule.step()
                step += 1
                bar.set_postfix_str(
                    f"epoch {epoch + 1}/{config.epochs}, loss {loss:.3f},"
                    f" top-1 {hits / len(rows):.1%}",
                    refresh=False,
                )
                bar.update()
                if step % checkpoint_every == 0:
                    save()
    finally:
        bar.close()
    save()
    elapsed = seconds + time.perf_counter() - started
    rows = validation_sample(validation, config.seed, config.validation_positions)
    top1 = evaluate(net, examples, rows, where)
    meta: dict[str, Any] = {
        "blocks": config.blocks,
        "filters": config.filters,
        "planes": FORMAT_ID,
        "trained_on": identity["sources"],
        "examples": len(examples),
        "train_examples": int(len(training)),
        "validation_games_share": config.validation,
        "validation_top1": round(top1, 4),
        "validation_positions": int(len(rows)),
        "config": dataclasses.asdict(config),
        "steps": step,
        "seconds": round(elapsed, 1),
        "device": _device_name(where),
        "torch": torch.__version__,
    }
    save_model(out, net.export_arrays(), meta)
    return TrainResult(top1, int(len(rows)), step, elapsed, meta["device"])


def _step(
    net: StyleNet,
    optimizer: torch.optim.Optimizer,
    examples: Examples,
    rows: np.ndarray,
    where: torch.device,
) -> tuple[float, int]:
    planes, moves = examples.batch(rows)
    x = torch.from_numpy(planes).to(where)
    y = torch.from_numpy(moves).to(where)
    with torch.autocast(device_type=where.type, dtype=torch.bfloat16, enabled=where.type == "cuda"):
        logits = net(x)
        loss = torch.nn.functional.cross_entropy(logits.float(), y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return float(loss.detach()), int((logits.argmax(dim=1) == y).sum())


@torch.no_grad()
def evaluate(
    net: StyleNet, examples: Examples, rows: np.ndarray, where: torch.device, batch: int = 4096
) -> float:
    """Top-1 over the examples ``rows``: how often the network's favourite from-to move is the
    one played (nan without examples)."""
    net.eval()
    hits = 0
    for part in batches(rows, batch):
        planes, moves = examples.batch(part)
        logits = net(torch.from_numpy(planes).to(where))
        hits += int((logits.argmax(dim=1).cpu().numpy() == moves).sum())
    return hits / len(rows) if len(rows) else math.nan


def _device_name(where: torch.device) -> str:
    if where.type == "cuda":
        return torch.cuda.get_device_name(where)
    return f"CPU ({platform.processor() or platform.machine()}, {torch.get_num_threads()} threads)"
