"""Personalising the style model: one expert's model on top of the generic one, on the CPU.

The generic model's trunk stays frozen up to its last ``tune`` residual blocks; its activations
are computed once, and only those last blocks and the head are fitted to the expert's cases
(cross-entropy over the 4096 from-to indices, Adam). How long to fit is chosen on the expert's
own latest games (a ``validation`` share of them by date, at least one), kept aside while
choosing: the epoch with the least loss on them among those whose top-1 there is at least the
generic model's, none if no epoch beats the generic model so. The
model is then fitted again on every game for that many epochs, so the latest games count too.
A small expert is therefore never pushed further than his own games support, and with nothing
to learn his personal model is the generic one.

The file holds only the arrays fitted (engine.style.model: a personal model names its base) and
records the casebase it was made from, so the engine plays it for that casebase alone.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from casebase.format import Casebase
from casebase.games import latest
from common.files import file_sha256
from engine.style.model import StyleModel, generic_model, save_model
from engine.style.personal import casebase_identity
from engine.style.planes import FORMAT_ID, MOVES
from learn.data import Examples, batches
from learn.net import StyleNet


@dataclass(frozen=True)
class PersonalConfig:
    """Everything that decides a personal model (with the casebase and the generic model)."""

    #: Residual blocks fitted, with the head (the rest of the trunk stays the generic model's).
    tune: int = 1
    #: The most epochs tried on the training games.
    epochs: int = 6
    batch: int = 512
    lr: float = 1e-4
    #: The share of the expert's latest games that chooses the number of epochs.
    validation: float = 0.1
    seed: int = 0


@dataclass
class PersonalResult:
    """What a run reports: top-1 on the expert's latest games, generic and personal; and the
    fitted network itself (the file holds its weights in float16)."""

    net: StyleNet
    generic_top1: float
    top1: float
    epochs: int
    validation_games: int
    validation_positions: int
    cases: int
    seconds: float


def latest_of_games(casebase: Casebase, share: float) -> np.ndarray:
    """Whether each game is among the casebase's latest ``share`` of games, counted as the hold-out
    counts them (:func:`casebase.games.latest`): at least one game, and never all of them when
    there are two or more."""
    dates = np.asarray(casebase.games["date"]).astype(str).tolist()
    return np.array(latest(dates, share, at_least=1, leave=1), dtype=bool)


def latest_games(casebase: Casebase, share: float) -> np.ndarray:
    """Whether each case is from the casebase's latest ``share`` of games
    (:func:`latest_of_games`)."""
    return latest_of_games(casebase, share)[np.asarray(casebase.game)]


class _Tail(nn.Module):
    """The fitted part of the network: the last blocks and the head, on the frozen trunk's
    activations."""

    def __init__(self, net: StyleNet, tune: int) -> None:
        super().__init__()
        self.blocks = nn.Sequential(*list(net.tower)[net.blocks - tune :])
        self.head = net.head

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(x.float())).permute(0, 2, 3, 1).reshape(-1, MOVES)


@torch.no_grad()
def _trunk(net: StyleNet, examples: Examples, frozen: int, bar: tqdm) -> torch.Tensor:
    """The activations (N x F x 8 x 8, float16) after the first ``frozen`` blocks, for every
    example."""
    parts = []
    for rows in batches(np.arange(len(examples)), 1024):
        x = torch.relu(net.stem(torch.from_numpy(examples.batch(rows)[0])))
        for block in list(net.tower)[:frozen]:
            x = block(x)
        parts.append(x.half())
        bar.update(len(rows))
    return torch.cat(parts) if parts else torch.zeros(0)


@torch.no_grad()
def _measure(tail: _Tail, features: torch.Tensor, moves: torch.Tensor) -> tuple[float, float]:
    """Mean cross-entropy and top-1 (over all 4096 indices) of ``tail`` on ``features``."""
    loss = hits = 0.0
    for start in range(0, len(moves), 2048):
        logits = tail(features[start : start + 2048])
        target = moves[start : start + 2048]
        loss += float(nn.functional.cross_entropy(logits, target, reduction="sum"))
        hits += int((logits.argmax(dim=1) == target).sum())
    return loss / len(moves), hits / len(moves)


def _fit(
    tail: _Tail,
    features: torch.Tensor,
    moves: torch.Tensor,
    rows: np.ndarray,
    config: PersonalConfig,
    epochs: int,
    bar: tqdm,
    after_epoch: Callable[[int], None] | None = None,
) -> None:
    """Fit ``tail`` on the examples ``rows`` for ``epochs`` passes (seeded order);
    ``after_epoch(n)`` is called after the n-th."""
    optimizer = torch.optim.Adam(tail.parameters(), lr=config.lr)
    for epoch in range(epochs):
        order = np.random.Generator(np.random.PCG64([config.seed, 4, epoch])).permutation(rows)
        for part in batches(order, config.batch):
            index = torch.from_numpy(part)
            loss = nn.functional.cross_entropy(tail(features[index]), moves[index])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            bar.update(len(part))
        if after_epoch is not None:
            after_epoch(epoch + 1)


def personalise(
    casebase_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    base: str | os.PathLike[str] | None = None,
    config: PersonalConfig = PersonalConfig(),
    progress: bool | None = None,
) -> PersonalResult:
    """Make the personal model of the casebase at ``casebase_path`` on top of ``base`` (the shipped
    generic model by default) and write it to ``out``; CasebaseError/ModelError/ValueError if an
    input is unusable."""
    started = time.perf_counter()
    base_path = Path(base) if base is not None else generic_model()
    generic = StyleModel.load(base_path)
    if generic.personal:
        raise ValueError(f"{base_path} is itself a personal model: personalise a generic model")
    if not 1 <= config.tune <= generic.blocks:
        raise ValueError(
            f"tune takes 1..{generic.blocks} blocks (the model has {generic.blocks}), not"
            f" {config.tune}"
        )
    casebase = Casebase.load(casebase_path)
    if casebase.num_games < 2:
        raise ValueError(
            f"{casebase_path}: {casebase.num_games} game; personalising needs at least two"
            " (one to fit, one to check)"
        )
    examples = Examples.load([casebase_path])
    torch.manual_seed(config.seed)
    net = StyleNet.from_arrays(generic.arrays(), generic.blocks, generic.filters)
    latest = latest_games(casebase, config.validation)
    fitting, checking = np.flatnonzero(~latest), np.flatnonzero(latest)
    moves = torch.from_numpy(examples.moves)
    total = len(examples) + config.epochs * (len(fitting) + len(examples))
    with tqdm(
        total=total,
        unit="pos",
        desc=f"personalising for {casebase.expert}",
        file=sys.stderr,
        disable=not (sys.stderr.isatty() if progress is None else progress),
    ) as bar:
        features = _trunk(net, examples, generic.blocks - config.tune, bar)
        held = torch.from_numpy(checking)
        fresh = _Tail(net, config.tune)
        generic_loss, generic_top1 = _measure(fresh, features[held], moves[held])
        best = (generic_loss, generic_top1, 0)

        def check(epoch: int) -> None:
            nonlocal best
            loss, top1 = _measure(tail, features[held], moves[held])
            if loss < best[0] and top1 >= generic_top1:
                best = (loss, top1, epoch)
            bar.set_postfix_str(
                f"epoch {epoch}: latest games top-1 {top1:.1%} (generic {generic_top1:.1%})"
            )

        tail = copy.deepcopy(fresh)
        _fit(tail, features, moves, fitting, config, config.epochs, bar, check)
        epochs = best[2]
        tail = copy.deepcopy(fresh)  # again from the generic model, on every game
        _fit(tail, features, moves, np.arange(len(examples)), config, epochs, bar)
        bar.update(total - bar.n)
    fitted = {"head", *(f"block{i}" for i in range(generic.blocks - config.tune, generic.blocks))}
    net.tower = nn.Sequential(*list(net.tower)[: generic.blocks - config.tune], *tail.blocks)
    net.head = tail.head
    arrays = {
        name: array for name, array in net.export_arrays().items() if name.split(".")[0] in fitted
    }
    seconds = time.perf_counter() - started
    result = PersonalResult(
        net.eval(),
        generic_top1,
        best[1],
        epochs,
        int(len(np.unique(np.asarray(casebase.game)[checking]))),
        len(checking),
        len(examples),
        seconds,
    )
    meta: dict[str, Any] = {
        "blocks": generic.blocks,
        "filters": generic.filters,
        "planes": FORMAT_ID,
        "base": {"file": base_path.name, "sha256": file_sha256(base_path)},
        "personal": {
            "expert": casebase.expert,
            "casebase": casebase_identity(casebase),
            "generic_top1": round(generic_top1, 4),
            "top1": round(best[1], 4),
            "epochs": epochs,
            "validation_games": result.validation_games,
            "validation_positions": result.validation_positions,
            "config": dataclasses.asdict(config),
            "seconds": round(seconds, 1),
            "torch": torch.__version__,
        },
    }
    save_model(out, arrays, meta)
    return result
