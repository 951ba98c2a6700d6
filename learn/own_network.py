"""Each expert's own lc0 network (issue #51, item 3): the default network fine-tuned on the expert's
games.

The recipe of McIlroy-Young et al. ("Learning Models of Individual Behavior in Chess", 2022), sized
for 2 cores. The expert's games are replayed from the casebase (the opponent's moves found between
the expert's cases, :func:`casebase.book.replayed_lines`), so the network sees each of the expert's
positions with its game's history, as it does in play. The network's trunk stays as it is up to its
last ``tune`` residual blocks: its activations are computed once, and only those blocks and the
policy head are fitted (cross-entropy over the legal moves, Adam), an epoch a fraction of a whole
pass. How long to fit is chosen as :mod:`learn.personal` chooses it, on the expert's latest games (a
``validation`` share by date): the epoch with the least loss there among those whose top-1 is at
least the base network's, none (the base network's weights) if none is; the epochs stop after
``patience`` in a row without a better one. The network is then fitted again on every game for that
many epochs, and the network written is the base moved ``mix`` of the way towards that fit
(:func:`mixed`: the weight-space ensemble of Wortsman et al., "Robust fine-tuning of zero-shot
models", 2022): on the seven ladder experts' held-out games the network half way named more of their
moves than the fit itself, for every expert the fit had changed
(docs/results/2026-11-28-maia-and-the-master-network.md, "Each expert's own network"). It is written
as an lc0 network, and a ``NAME.toml`` beside it says whose it is, the casebase it was made from
(:func:`casebase_digest`) and what it gained on the latest games.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import chess
import numpy as np
import torch
from tqdm import tqdm

from casebase.book import expert_moves
from casebase.format import Casebase
from common.files import file_sha256, write_atomic
from engine.style.lc0 import provenance
from engine.style.personal import casebase_digest, sidecar
from lc0net.planes import unpack
from lc0net.weights import read_network, write_network
from learn.lc0.model import Lc0Net
from learn.lc0.positions import Positions, positions_of
from learn.personal import PersonalConfig, latest_of_games


@dataclass(frozen=True)
class OwnConfig(PersonalConfig):
    """Everything that decides an expert's own network (with the casebase and the base network): the
    personal 8x96's settings, ``tune`` counting the blocks fitted with the policy head."""

    tune: int = 2
    batch: int = 256
    #: How many epochs in a row may fail to improve on the best before the fit stops.
    patience: int = 2
    threads: int = 2
    #: How far the network written moves from the base towards the fit (1: the fit itself).
    mix: float = 0.5
    #: The most positions an epoch fits on, a seeded sample of them each epoch (None: every one): a
    #: player of thousands of games is fitted on a CPU in minutes, not tens of minutes (``cbr-chess
    #: new``, issue #62).
    epoch_positions: int | None = None


@dataclass
class OwnResult:
    """What a run reports: top-1 on the expert's latest games, the base network's, the own network's
    (the fit chosen, mixed as it is written) and the fit's own."""

    base_top1: float
    top1: float
    fit_top1: float
    epochs: int
    validation_games: int
    validation_positions: int
    positions: int
    games: int
    seconds: float


def expert_positions(casebase: Casebase) -> tuple[Positions, np.ndarray]:
    """:func:`expert_moves` as lc0 sees them, and each position's game."""
    games: list[int] = []

    def played() -> Iterator[tuple[chess.Board, chess.Move]]:
        for game, board, move in expert_moves(casebase):
            games.append(game)
            yield board, move

    return positions_of(played()), np.array(games, dtype=np.int64)


@dataclass
class _Data:
    """The frozen trunk's activations (float16), the legal moves and the moves played, as
    tensors."""

    features: torch.Tensor
    legal: torch.Tensor
    target: torch.Tensor


@torch.no_grad()
def _features(net: Lc0Net, data: Positions, frozen: int, bar: tqdm, device: torch.device) -> _Data:
    parts = []
    for start in range(0, len(data), 512):
        rows = slice(start, start + 512)
        planes = torch.from_numpy(unpack(data.masks[rows], data.values[rows])).to(device)
        parts.append(net.trunk(planes, frozen).half())
        bar.update(len(parts[-1]))
    features = torch.cat(parts) if parts else torch.zeros(0, device=device)
    return _Data(
        features,
        torch.from_numpy(data.legal.astype(bool)).to(device),
        torch.from_numpy(data.target).to(device),
    )


def _logits(net: Lc0Net, data: _Data, index: torch.Tensor, frozen: int) -> torch.Tensor:
    return net.policy_logits(data.features[index].float(), frozen).masked_fill(
        ~data.legal[index], -math.inf
    )


@torch.no_grad()
def _measure(net: Lc0Net, data: _Data, rows: np.ndarray, frozen: int) -> tuple[float, float]:
    """Mean cross-entropy and top-1 over the legal moves on the positions ``rows``."""
    loss = hits = 0.0
    for start in range(0, len(rows), 1024):
        index = torch.from_numpy(rows[start : start + 1024]).to(data.target.device)
        logits = _logits(net, data, index, frozen)
        loss += float(
            torch.nn.functional.cross_entropy(logits, data.target[index], reduction="sum")
        )
        hits += int((logits.argmax(1) == data.target[index]).sum())
    return loss / max(1, len(rows)), hits / max(1, len(rows))


class _Chosen(NamedTuple):
    """The epochs chosen so far: the fit's loss and top-1 on the latest games, and the top-1 there
    moved ``mix`` of the way (the network that would be written)."""

    loss: float
    fit_top1: float
    epochs: int
    top1: float


def mixed(
    base: Mapping[str, torch.Tensor], fitted: Mapping[str, torch.Tensor], share: float
) -> dict[str, torch.Tensor]:
    """The weights ``share`` of the way from ``base`` to ``fitted`` (two states of one network)."""
    return {
        name: base[name] + share * (value - base[name]) if value.is_floating_point() else value
        for name, value in fitted.items()
    }


@torch.no_grad()
def _measure_mixed(
    net: Lc0Net,
    base: Mapping[str, torch.Tensor],
    data: _Data,
    rows: np.ndarray,
    frozen: int,
    share: float,
) -> tuple[float, float]:
    """:func:`_measure` of the network ``share`` of the way from ``base`` to ``net``, which is left
    as it was."""
    fitted = copy.deepcopy(net.state_dict())
    net.load_state_dict(mixed(base, fitted, share))
    measured = _measure(net, data, rows, frozen)
    net.load_state_dict(fitted)
    return measured


def _fit(
    net: Lc0Net,
    data: _Data,
    rows: np.ndarray,
    frozen: int,
    config: OwnConfig,
    epochs: int,
    bar: tqdm,
    after_epoch: Callable[[int], bool] | None = None,
) -> None:
    """Fit the blocks after ``frozen`` and the policy head on the positions ``rows`` for ``epochs``
    passes (seeded order; each of at most ``config.epoch_positions`` of them); ``after_epoch(n)`` is
    called after the n-th, and the fit stops where it says False."""
    fitted = [p for block in list(net.tower)[frozen:] for p in block.parameters()]
    fitted += [*net.policy1.parameters(), *net.policy.parameters()]
    optimizer = torch.optim.Adam(fitted, lr=config.lr)
    for epoch in range(epochs):
        order = np.random.Generator(np.random.PCG64([config.seed, 4, epoch])).permutation(rows)[
            : config.epoch_positions
        ]
        for start in range(0, len(order), config.batch):
            index = torch.from_numpy(order[start : start + config.batch]).to(data.target.device)
            loss = torch.nn.functional.cross_entropy(
                _logits(net, data, index, frozen), data.target[index]
            )
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            bar.update(len(index))
        if after_epoch is not None and not after_epoch(epoch + 1):
            return


def make_own_network(
    casebase_path: str | Path,
    out: str | Path,
    base: str | Path,
    config: OwnConfig = OwnConfig(),
    progress: bool | None = None,
    device: str = "cpu",
) -> OwnResult:
    """Fine-tune the lc0 network ``base`` on the expert's games of the casebase at ``casebase_path``
    and write it to ``out`` (a ``.pb.gz``, with its ``.toml``) on ``device`` (a GPU's takes
    seconds); ValueError/CasebaseError if an input is unusable."""
    started = time.perf_counter()
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    base_path, out = Path(base), Path(out)
    template = read_network(base_path)
    where = torch.device(device)
    net = Lc0Net(template).to(where)
    if not 0 < config.mix <= 1:
        raise ValueError(
            "mix takes a share of the way from the base network to the fit, in (0, 1], not"
            f" {config.mix}"
        )
    if not 1 <= config.tune <= len(net.tower):
        raise ValueError(
            f"tune takes 1..{len(net.tower)} blocks (the network has {len(net.tower)}), not"
            f" {config.tune}"
        )
    casebase = Casebase.load(casebase_path)
    if casebase.num_games < 2:
        raise ValueError(
            f"{casebase_path}: {casebase.num_games} game; an own network needs at least two"
            " (one to fit, one to check)"
        )
    data, games = expert_positions(casebase)
    replayed = len(np.unique(games))
    if replayed < 2:
        raise ValueError(
            f"{casebase_path}: {replayed} of its {casebase.num_games} games replay from the"
            " standard start (a game from a set-up position, or whose cases skip a move, does"
            " not); an own network needs two (one to fit, one to check)"
        )
    latest = latest_of_games(casebase, config.validation)[games]
    fitting, checking = np.flatnonzero(~latest), np.flatnonzero(latest)
    frozen = len(net.tower) - config.tune
    if config.epoch_positions is not None and config.epoch_positions < 1:
        raise ValueError(
            f"epoch_positions takes a count of 1 or more, not {config.epoch_positions}"
        )
    cap = config.epoch_positions or len(data)
    total = len(data) + config.epochs * min(cap, len(fitting)) + config.epochs * min(cap, len(data))
    with tqdm(
        total=total,
        unit="pos",
        desc=f"the own network of {casebase.expert}",
        file=sys.stderr,
        disable=not (sys.stderr.isatty() if progress is None else progress),
    ) as bar:
        tensors = _features(net, data, frozen, bar, where)
        fresh = copy.deepcopy(net.state_dict())
        base_loss, base_top1 = _measure(net, tensors, checking, frozen)
        best = _Chosen(base_loss, base_top1, 0, base_top1)

        def check(epoch: int) -> bool:
            nonlocal best
            loss, top1 = _measure(net, tensors, checking, frozen)
            if loss < best.loss and top1 >= base_top1:
                best = _Chosen(
                    loss,
                    top1,
                    epoch,
                    _measure_mixed(net, fresh, tensors, checking, frozen, config.mix)[1],
                )
            bar.set_postfix_str(
                f"epoch {epoch}: latest games top-1 {top1:.1%} (base {base_top1:.1%})"
            )
            return epoch - best.epochs < config.patience

        _fit(net, tensors, fitting, frozen, config, config.epochs, bar, check)
        net.load_state_dict(fresh)  # again from the base network, on every game
        _fit(net, tensors, np.arange(len(data)), frozen, config, best.epochs, bar)
        net.load_state_dict(mixed(fresh, net.state_dict(), config.mix))
        bar.update(total - bar.n)
    write_network(out, net.to_network(template))
    result = OwnResult(
        base_top1,
        best.top1,
        best.fit_top1,
        best.epochs,
        int(len(np.unique(games[checking]))),
        len(checking),
        len(data),
        int(len(np.unique(games))),
        time.perf_counter() - started,
    )
    write_own_provenance(out, base_path, casebase, config, result)
    return result


def write_own_provenance(
    out: Path, base: Path, casebase: Casebase, config: OwnConfig, result: OwnResult
) -> None:
    """``NAME.toml`` beside ``NAME.pb.gz``: what the engine says of the network, whose it is, how it
    was made."""
    said = provenance(base)
    base_name = str(said.get("name") or base.name.removesuffix(".pb.gz"))
    personal = {
        "expert": casebase.expert,
        "casebase": casebase_digest(casebase),
        "cases": len(casebase),
        "base": base.name,
        "base_sha256": file_sha256(base),
        "base_top1": round(result.base_top1, 4),
        "top1": round(result.top1, 4),
        "fit_top1": round(result.fit_top1, 4),
        "epochs": result.epochs,
        "validation_games": result.validation_games,
        "validation_positions": result.validation_positions,
        "positions": result.positions,
        "games": result.games,
        "seconds": round(result.seconds, 1),
        "torch": torch.__version__,
        **{
            f"config_{key}": value
            for key, value in dataclasses.asdict(config).items()
            if value is not None
        },
    }  # TOML has no null: an unset cap is left out
    source = (
        f"{base_name} ({base.name}) fine-tuned here on the games of {casebase.expert} in their"
        f" casebase ({len(casebase)} cases, {casebase.num_games} games)"
    )
    head = {
        "name": f"{casebase.expert}'s own network, from {base_name}",
        "source": source,
        # a work made from the base network: its licence
        "licence": str(said.get("licence", "GPL-3.0")),
    }
    lines = [
        f"# What engine/style/lc0.py says of {out.name}: {casebase.expert}'s own network"
        " (python -m learn personalise)."
    ]
    lines += [f"{key} = {json.dumps(value)}" for key, value in head.items()] + ["", "[personal]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in personal.items()]
    write_atomic(sidecar(out), "\n".join(lines) + "\n")
