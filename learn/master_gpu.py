"""The master network on a GPU (issue #51, item 2): Maia-1900 fine-tuned on every master game, not a
sample.

Two commands, because a GPU machine is often one that has the project but not the games:

- :func:`learn.master_pack.pack` (``python -m learn pack``, here): the master games of
  :func:`learn.master_games.select_games` (no game of the shipped experts, no duplicate, a
  validation share by game) and the experts' own games of their casebases (which choose the network:
  below) into one ``.npz``, each game's moves as a byte a move (:func:`learn.lc0.bulk.codes`): 230
  thousand games in 13 MB.
- :func:`train` (``python -m learn master-gpu``, there): the games replayed by all cores at once
  (:func:`learn.lc0.bulk.replay`), lc0's planes made on the GPU batch by batch, the policy fitted by
  cross-entropy over the legal moves (Adam, bf16, the value head kept), batches drawn at random
  (seeded); every ``check`` steps the network names the experts' moves in their casebases' latest
  games (a share by date, as ``learn personalise`` checks), and the network written is the check's
  best, pooled over the experts: what the engine is for, rather than the master games' own
  validation, which is reported.
"""

from __future__ import annotations

import copy
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from common.files import made_stamp, write_atomic
from engine.style.lc0 import provenance
from lc0net.weights import read_network, write_network
from learn.lc0 import bulk
from learn.lc0.model import Lc0Net
from learn.master_pack import Pack

MASTER_SUFFIX = " fine-tuned on master games"


@dataclass(frozen=True)
class Settings:
    """Everything that decides a run of :func:`train` (with the pack and the network it starts
    from)."""

    positions: int = 3_000_000
    batch: int = 2048
    lr: float = 1e-4
    seed: int = 0
    #: A seeded share of the training games (a shorter second stage, say).
    share: float = 1.0
    #: Steps between the checks on the experts' latest games.
    check: int = 100

    def __post_init__(self) -> None:
        if not 0 < self.share <= 1:
            raise ValueError(
                f"share takes a share of the games, more than 0 and at most 1, not {self.share}"
            )


# Training


def _replay(job: tuple[list[bytes], list[np.ndarray] | None]) -> bulk.Plies:
    games, wanted = job
    return bulk.replay(games, wanted)


def replay_all(
    games: list[bytes],
    wanted: list[np.ndarray] | None = None,
    workers: int | None = None,
    chunk: int = 400,
) -> bulk.Plies:
    """:func:`learn.lc0.bulk.replay` of ``games`` by ``workers`` processes, the rows in the games'
    order."""
    jobs = [
        (games[i : i + chunk], None if wanted is None else wanted[i : i + chunk])
        for i in range(0, len(games), chunk)
    ]
    with ProcessPoolExecutor(workers) as pool:
        return bulk.Plies.concatenate(list(pool.map(_replay, jobs)))


def experts_latest(pack: Pack, workers: int | None) -> bulk.Plies:
    """Every expert's games of the pack, their latest games' own moves wanted (the checks,
    pooled)."""
    games: list[bytes] = []
    chosen: list[np.ndarray] = []
    for number in range(len(pack.facts["experts"])):
        games += pack.games(f"expert{number}")
        latest = pack.arrays[f"expert{number}_latest"]
        chosen += [
            wanted & bool(flag) for wanted, flag in zip(pack.wanted(f"expert{number}"), latest)
        ]
    return replay_all(games, chosen, workers)


def logits(net: Lc0Net, plies: bulk.PliesOn, rows: torch.Tensor) -> torch.Tensor:
    """The policy's logits of the positions ``rows``, illegal moves at -inf (bf16 on a GPU)."""
    planes = bulk.planes(plies, rows)
    with torch.autocast(rows.device.type, dtype=torch.bfloat16, enabled=rows.device.type == "cuda"):
        out = net.policy_logits(net.trunk(planes))
    return out.float().masked_fill(~bulk.legal_mask(plies, rows), -math.inf)


@torch.no_grad()
def top1(net: Lc0Net, plies: bulk.PliesOn, rows: torch.Tensor, batch: int = 8192) -> float:
    """How often the network's favourite legal move is the move played, in the positions
    ``rows``."""
    net.eval()
    hits = sum(
        int(
            (
                logits(net, plies, rows[s : s + batch]).argmax(1)
                == plies.target[rows[s : s + batch]]
            ).sum()
        )
        for s in range(0, len(rows), batch)
    )
    return hits / max(1, len(rows))


def train(
    pack_path: Path,
    start: Path,
    out: Path,
    settings: Settings = Settings(),
    *,
    device: str | None = None,
    workers: int | None = None,
    log: Any = sys.stderr,
) -> dict[str, Any]:
    """Fine-tune the network ``start`` on the pack's training games by ``settings``; write the
    check's best network to ``out`` and ``out``'s ``NAME.toml`` (what it is, how it was made, what
    the checks found)."""
    began = time.monotonic()
    where = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if where.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"no GPU for --device {where}: this torch sees none")
    torch.manual_seed(settings.seed)
    data = Pack.load(pack_path)
    games = data.games("training")
    if settings.share < 1.0:
        keep = np.random.default_rng(settings.seed).choice(
            len(games), int(len(games) * settings.share), replace=False
        )
        games = [games[i] for i in np.sort(keep)]
    # every process forked before anything reaches the device (a fork after CUDA starts may hang)
    replayed = replay_all(games, None, workers), replay_all(data.games("validation"), None, workers)
    latest = experts_latest(data, workers)
    if not len(replayed[0]) or not latest.wanted.any():
        raise ValueError(
            f"{pack_path}: no position to train on, or none of the experts' to choose by"
        )
    training, validation, experts = (bulk.PliesOn.of(plies, where) for plies in (*replayed, latest))
    checked = torch.from_numpy(np.flatnonzero(latest.wanted)).to(where)
    print(
        f"{len(training.target)} positions of {len(games)} games ready in"
        f" {time.monotonic() - began:.0f} s",
        file=log,
        flush=True,
    )
    template = read_network(start)
    net = Lc0Net(template).to(where)
    for p in net.value_head():
        p.requires_grad_(False)  # the moves played teach the value head nothing
    optimizer = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=settings.lr)
    generator = torch.Generator(device=where)
    generator.manual_seed(settings.seed)
    every_row = torch.arange(len(validation.target), device=where)
    base = top1(net, experts, checked)
    history = [(0, top1(net, validation, every_row), base)]
    best = (base, 0, copy.deepcopy(net.state_dict()))
    positions = 0
    while positions < settings.positions:
        net.train()
        rows = torch.randint(
            0, len(training.target), (settings.batch,), device=where, generator=generator
        )
        loss = torch.nn.functional.cross_entropy(logits(net, training, rows), training.target[rows])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        positions += settings.batch
        if positions // settings.batch % settings.check == 0 or positions >= settings.positions:
            score = top1(net, experts, checked)
            history.append((positions, top1(net, validation, every_row), score))
            if score > best[0]:
                best = (score, positions, copy.deepcopy(net.state_dict()))
            print(
                f"{positions} positions: the experts' latest games {score:.2%} (best {best[0]:.2%}"
                f" at {best[1]}), master validation {history[-1][1]:.2%}",
                file=log,
                flush=True,
            )
    net.load_state_dict(best[2])
    write_network(out, net.cpu().to_network(template))
    facts = {
        "start": start.name,
        "positions_run": positions,
        "positions_chosen": best[1],
        "experts_latest_top1_base": round(history[0][2], 4),
        "experts_latest_top1": round(best[0], 4),
        "validation_top1_base": round(history[0][1], 4),
        "validation_top1": round(next(v for p, v, _ in history if p == best[1]), 4),
        "training_positions": len(training.target),
        "training_games": len(games),
        "device": str(where),
        "seconds": round(time.monotonic() - began),
        "torch": torch.__version__,
        **made_stamp(),
    }
    write_provenance(out, start, data.facts, settings, facts, history)
    return facts


def write_provenance(
    out: Path,
    start: Path,
    packed: dict[str, Any],
    settings: Settings,
    facts: dict[str, Any],
    history: list[tuple[int, float, float]],
) -> None:
    """``NAME.toml`` beside ``NAME.pb.gz``: its name and licence the start network's (a work made
    from it)."""
    said = provenance(start)
    base = str(said.get("name") or start.name.removesuffix(".pb.gz"))
    # a second stage is no new kind
    made = base if base.endswith(MASTER_SUFFIX) else base + MASTER_SUFFIX
    lines = [
        f"# What engine/style/lc0.py says of {out.name}: made by python -m learn master-gpu.",
        f"name = {json.dumps(made)}",
        "source = "
        + json.dumps(
            f"{base} ({start.name}) fine-tuned here on the master games of"
            f" {', '.join(packed['sources'])} (the shipped experts' games and duplicates"
            " dropped, validation held out by game), chosen on the experts' latest training games"
        ),
        f"licence = {json.dumps(str(said.get('licence', 'GPL-3.0')))}",
        "",
        "[pack]",
    ]
    lines += [f"{k} = {json.dumps(v)}" for k, v in packed.items() if k != "format"]
    lines += ["", "[settings]"] + [f"{k} = {json.dumps(v)}" for k, v in asdict(settings).items()]
    lines += ["", "[training]"] + [f"{k} = {json.dumps(v)}" for k, v in facts.items()]
    lines += [f"checks = {json.dumps([[p, round(v, 4), round(e, 4)] for p, v, e in history])}"]
    write_atomic(out.with_name(out.name.removesuffix(".pb.gz") + ".toml"), "\n".join(lines) + "\n")
