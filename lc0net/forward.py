"""lc0's residual networks (Maia's kind: SE units, a convolutional policy, WDL) run in numpy, with
the arithmetic of lc0's CPU backends: each batch norm folded into its convolution
(``network_legacy.cc``), the SE unit's sigmoid scale and shift, the policy's 73 planes mapped onto
the 1858 moves, the value head's win, draw and loss.

The activations are kept as N x 8 x 8 x C (channels last), so that a 3 x 3 convolution is one matrix
product: the nine shifted copies of the padded input side by side (N * 64 x 9C) times the kernel (9C
x C').
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from lc0net.moves import CONV_PLANES, conv_policy_source
from lc0net.planes import INPUT_PLANES
from lc0net.weights import Network, NetworkError

#: lc0's batch norm epsilon (network_legacy.cc).
EPSILON = 1e-5


@dataclass(frozen=True)
class Conv:
    """A convolution with its batch norm folded in: the kernel as (size * size * C_in) x C_out, the
    bias."""

    kernel: np.ndarray
    bias: np.ndarray
    size: int

    def __call__(self, x: np.ndarray) -> np.ndarray:
        n, _, _, c = x.shape
        if self.size == 1:
            columns = x.reshape(n * 64, c)
        else:
            padded = np.zeros((n, 10, 10, c), dtype=x.dtype)
            padded[:, 1:9, 1:9] = x
            columns = np.concatenate(
                [padded[:, dy : dy + 8, dx : dx + 8] for dy in range(3) for dx in range(3)], axis=3
            ).reshape(n * 64, 9 * c)
        out = columns @ self.kernel
        out += self.bias
        return out.reshape(n, 8, 8, -1)


@dataclass(frozen=True)
class Squeeze:
    """An SE unit: the channels' means through two dense layers, a sigmoid scale and a shift per
    channel."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def __call__(self, y: np.ndarray) -> np.ndarray:
        n, _, _, c = y.shape
        hidden = np.maximum(y.reshape(n, 64, c).mean(axis=1) @ self.w1 + self.b1, 0)
        gates = hidden @ self.w2 + self.b2
        scale, shift = 1 / (1 + np.exp(-gates[:, :c])), gates[:, c:]
        y *= scale[:, None, None, :]
        y += shift[:, None, None, :]
        return y


@dataclass(frozen=True)
class Block:
    """A residual block: two 3 x 3 convolutions, an SE unit where the file has one, added to the
    input."""

    conv1: Conv
    conv2: Conv
    se: Squeeze | None

    def __call__(self, x: np.ndarray) -> np.ndarray:
        y = self.conv2(np.maximum(self.conv1(x), 0))
        if self.se is not None:
            y = self.se(y)
        y += x
        return np.maximum(y, 0, out=y)


class Forward:
    """A network's forward pass: lc0's input planes (N x 112 x 8 x 8) to the policy's 1858 logits
    (:meth:`policy`), the value head's (:meth:`value`: win, draw, loss, or the one value before its
    tanh), and the trunk's activations (:meth:`trunk`). Made once from the file's layers, called
    many times."""

    def __init__(self, network: Network) -> None:
        arrays = network.arrays()
        filters = network.filters
        self.filters, self.blocks = filters, network.blocks
        self.input = _conv(arrays, "input", INPUT_PLANES, filters, 3)
        self.tower = [
            Block(
                _conv(arrays, f"residual.{i}.conv1", filters, filters, 3),
                _conv(arrays, f"residual.{i}.conv2", filters, filters, 3),
                _squeeze(arrays, f"residual.{i}", filters),
            )
            for i in range(network.blocks)
        ]
        self.policy1 = _conv(arrays, "policy1", filters, filters, 3)
        planes = arrays["policy.biases"].size
        if planes < CONV_PLANES:
            raise NetworkError(
                f"a convolutional policy of {planes} planes (lc0's has {CONV_PLANES} or more)"
            )
        self.policy_conv = _conv(arrays, "policy", filters, planes, 3)
        # plane * 64 + square, where our activations are square * planes + plane
        source = conv_policy_source()
        self.source = (source % 64) * planes + source // 64
        value_planes = arrays["value.weights"].size // filters
        self.value_conv = _conv(arrays, "value", filters, value_planes, 1)
        hidden, outputs = arrays["ip1_val_b"].size, arrays["ip2_val_b"].size
        # the file's order: plane * 64 + square
        ip1 = _shaped(arrays, "ip1_val_w", (hidden, value_planes, 64))
        self.ip1_w = np.ascontiguousarray(ip1.transpose(2, 1, 0).reshape(64 * value_planes, hidden))
        self.ip1_b = _shaped(arrays, "ip1_val_b", (hidden,))
        self.ip2_w = np.ascontiguousarray(_shaped(arrays, "ip2_val_w", (outputs, hidden)).T)
        self.ip2_b = _shaped(arrays, "ip2_val_b", (outputs,))

    def trunk(self, planes: np.ndarray) -> np.ndarray:
        """The activations after the input convolution and every residual block (N x 8 x 8 x
        filters)."""
        x = np.ascontiguousarray(np.asarray(planes, dtype=np.float32).transpose(0, 2, 3, 1))
        x = np.maximum(self.input(x), 0)
        for block in self.tower:
            x = block(x)
        return x

    def policy(self, planes: np.ndarray) -> np.ndarray:
        """The policy's 1858 logits (N x 1858, float32) of lc0's input planes."""
        return self.policy_head(self.trunk(planes))

    def policy_head(self, x: np.ndarray) -> np.ndarray:
        """The policy's 1858 logits of the trunk's activations."""
        y = self.policy_conv(np.maximum(self.policy1(x), 0))
        return y.reshape(len(y), -1)[:, self.source]

    def value(self, planes: np.ndarray) -> np.ndarray:
        """The value head's logits (N x 3: win, draw, loss for the side to move; or N x 1) of lc0's
        input planes."""
        return self.value_head(self.trunk(planes))

    def value_head(self, x: np.ndarray) -> np.ndarray:
        """The value head's logits of the trunk's activations."""
        x = np.maximum(self.value_conv(x), 0)
        hidden = np.maximum(x.reshape(len(x), -1) @ self.ip1_w + self.ip1_b, 0)
        out: np.ndarray = hidden @ self.ip2_w + self.ip2_b
        return out

    def both(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The policy's logits and the value head's of lc0's input planes, the trunk run once."""
        x = self.trunk(planes)
        return self.policy_head(x), self.value_head(x)

    @staticmethod
    def expected(value_logits: np.ndarray) -> np.ndarray:
        """The expected score for the side to move (-1..1) of the value head's logits: win minus
        loss of their softmax, or the tanh of a single value."""
        if value_logits.shape[1] == 1:
            return np.tanh(value_logits[:, 0].astype(np.float64))
        z = value_logits.astype(np.float64)
        z = np.exp(z - z.max(axis=1, keepdims=True))
        z /= z.sum(axis=1, keepdims=True)
        return z[:, 0] - z[:, 2]


def _shaped(arrays: Mapping[str, np.ndarray], name: str, shape: tuple[int, ...]) -> np.ndarray:
    values = arrays[name]
    if values.size != int(np.prod(shape)):
        raise NetworkError(
            f"{name}: {values.size} weights where {'x'.join(map(str, shape))} were expected"
        )
    return values.reshape(shape).astype(np.float32)


def _conv(arrays: Mapping[str, np.ndarray], path: str, cin: int, cout: int, size: int) -> Conv:
    """The convolution at ``path`` with its batch norm folded in, as lc0 folds it."""
    weight = _shaped(arrays, f"{path}.weights", (cout, cin, size, size))
    bias = (
        _shaped(arrays, f"{path}.biases", (cout,))
        if f"{path}.biases" in arrays
        else np.zeros(cout, np.float32)
    )
    if f"{path}.bn_means" in arrays:
        mean = _shaped(arrays, f"{path}.bn_means", (cout,))
        # lc0 names the variance "stddivs"
        variance = _shaped(arrays, f"{path}.bn_stddivs", (cout,))
        # an old file without gammas and betas: lc0 takes 1 and 0
        gamma = (
            _shaped(arrays, f"{path}.bn_gammas", (cout,))
            if f"{path}.bn_gammas" in arrays
            else np.ones(cout, np.float32)
        )
        beta = (
            _shaped(arrays, f"{path}.bn_betas", (cout,))
            if f"{path}.bn_betas" in arrays
            else np.zeros(cout, np.float32)
        )
        scale = gamma / np.sqrt(variance + np.float32(EPSILON))
        weight = weight * scale[:, None, None, None]
        bias = beta - scale * (mean - bias)
    # rows: dy, dx, then C_in
    kernel = weight.transpose(2, 3, 1, 0).reshape(size * size * cin, cout)
    return Conv(np.ascontiguousarray(kernel, dtype=np.float32), bias.astype(np.float32), size)


def _squeeze(arrays: Mapping[str, np.ndarray], path: str, filters: int) -> Squeeze | None:
    if f"{path}.se.w1" not in arrays:
        return None
    hidden = arrays[f"{path}.se.b1"].size
    return Squeeze(
        np.ascontiguousarray(_shaped(arrays, f"{path}.se.w1", (hidden, filters)).T),
        _shaped(arrays, f"{path}.se.b1", (hidden,)),
        np.ascontiguousarray(_shaped(arrays, f"{path}.se.w2", (2 * filters, hidden)).T),
        _shaped(arrays, f"{path}.se.b2", (2 * filters,)),
    )
