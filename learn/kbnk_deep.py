"""Beyond the study: a deeper network that learns the whole KBNK table (Black to move).

Inputs: the position under the table's symmetry (the white king in the triangle a1-d1-d4,
:mod:`endgame.tablebase`), one-hot: 10 white-king squares and 64 squares each for the black
king, the bishop and the knight. ReLU hidden layers, a sigmoid output with the study's
[0.1, 0.9] targets. Trained with torch (GPU when present) on every won position of the
table; played with numpy (:class:`DeepNetwork`) exactly like the study's networks.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import chess
import numpy as np

from common.files import atomic_file
from endgame.tablebase import TRIANGLE, Stored, triangle_squares

INPUTS = len(TRIANGLE) + 3 * 64
LONGEST = 66  # plies, KBNK with Black to move


def encode(boards: list[chess.Board]) -> np.ndarray:
    """One-hot inputs of KBNK boards with White the stronger side."""
    x = np.zeros((len(boards), INPUTS), dtype=np.float32)
    for row, board in enumerate(boards):
        bishop = next(iter(board.pieces(chess.BISHOP, chess.WHITE)))
        knight = next(iter(board.pieces(chess.KNIGHT, chess.WHITE)))
        wk, bk, b, n = triangle_squares(
            [board.king(chess.WHITE), board.king(chess.BLACK), bishop, knight]  # type: ignore[list-item]
        )
        x[row, [wk, len(TRIANGLE) + bk, len(TRIANGLE) + 64 + b, len(TRIANGLE) + 128 + n]] = 1.0
    return x


class DeepNetwork:
    """The trained network, evaluated with numpy: predicted plies to mate, Black to move."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.layers = layers

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> DeepNetwork:
        with np.load(path, allow_pickle=False) as z:
            count = int(z["layers"])
            return cls(
                [
                    (z[f"w{i}"].astype(np.float32), z[f"b{i}"].astype(np.float32))
                    for i in range(count)
                ]
            )

    def plies(self, x: np.ndarray) -> np.ndarray:
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < len(self.layers) - 1:
                x = np.maximum(x, 0)
        out = 1 / (1 + np.exp(-x[:, 0]))
        return (out - 0.1) / 0.8 * LONGEST


def train(
    stored: Stored,
    out: str | os.PathLike[str],
    hidden: int = 1024,
    hidden_layers: int = 3,
    epochs: int = 40,
    batch: int = 8192,
    lr: float = 2e-3,
    seed: int = 0,
) -> str:
    """Train on every won Black-to-move position of ``stored``; write the weights to ``out``."""
    import torch

    started = time.perf_counter()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(seed)
    values = stored.black_to_move.reshape(len(TRIANGLE), 64, 64, 64)
    won = np.argwhere(values > 0)
    plies = values[tuple(won.T)].astype(np.float32) - 1
    offsets = np.array([0, len(TRIANGLE), len(TRIANGLE) + 64, len(TRIANGLE) + 128])
    hot = torch.from_numpy(won + offsets).to(device)
    y = torch.from_numpy(0.1 + 0.8 * plies / LONGEST).to(device)
    sizes = [INPUTS] + [hidden] * hidden_layers + [1]
    layers: list[torch.nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*layers).to(device)
    steps = epochs * ((len(y) + batch - 1) // batch)
    optimizer = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=steps)
    generator = torch.Generator(device=device).manual_seed(seed)
    for epoch in range(epochs):
        order = torch.randperm(len(y), device=device, generator=generator)
        total = 0.0
        for start in range(0, len(y), batch):
            rows = order[start : start + batch]
            x = torch.zeros(len(rows), INPUTS, device=device)
            x.scatter_(1, hot[rows], 1.0)
            with torch.autocast(
                device_type=device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"
            ):
                pred = torch.sigmoid(net(x).float()[:, 0])
            loss = torch.nn.functional.mse_loss(pred, y[rows])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()
            total += float(loss) * len(rows)
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(y):.2e}", file=sys.stderr)
    with torch.no_grad():
        errors = []
        for start in range(0, len(y), 65536):
            x = torch.zeros(min(65536, len(y) - start), INPUTS, device=device)
            x.scatter_(1, hot[start : start + 65536], 1.0)
            pred = torch.sigmoid(net(x)[:, 0])
            errors.append(((pred - y[start : start + 65536]).abs() / 0.8 * LONGEST).cpu())
        error = float(torch.cat(errors).mean())
        exact = float((torch.cat(errors) < 0.5).float().mean())
    linear = [m for m in net if isinstance(m, torch.nn.Linear)]
    arrays: dict[str, Any] = {"layers": np.array(len(linear))}
    arrays |= {
        f"w{i}": m.weight.detach().float().cpu().numpy().T.astype(np.float16)
        for i, m in enumerate(linear)
    }
    arrays |= {
        f"b{i}": m.bias.detach().float().cpu().numpy().astype(np.float16)
        for i, m in enumerate(linear)
    }
    with atomic_file(out) as f:
        np.savez_compressed(f, **arrays)
    return (
        f"{len(y):,} won positions, {hidden_layers} x {hidden} ReLU, {epochs} epochs: mean error"
        f" {error:.2f} plies, {exact:.1%} within half a ply; {time.perf_counter() - started:.0f} s"
        f" on {device.type}"
    )
