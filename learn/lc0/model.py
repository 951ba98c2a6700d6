"""An lc0 residual network (Maia's kind: SE units, a convolutional policy) as a torch module, with
the arithmetic of lc0's CPU backend (``neural/backends/blas``): each batch norm folded into its
convolution (``neural/network_legacy.cc``), the SE unit's sigmoid scale and shift, the policy's 73
planes mapped onto the 1858 moves, the value head's win, draw and loss.

The batch norms' statistics stay as the file has them (buffers, never trained); everything else is a
parameter, and :meth:`Lc0Net.arrays` gives the file's layers back by their paths (:mod:`.weights`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch
from torch import nn

from lc0net.forward import EPSILON
from lc0net.moves import CONV_PLANES, conv_policy_source
from lc0net.planes import INPUT_PLANES
from lc0net.weights import Network

_BN = ("bn_means", "bn_stddivs", "bn_gammas", "bn_betas")


class ConvBlock(nn.Module):
    """A convolution, its bias if the file has one, and a batch norm if the file has one."""

    mean: torch.Tensor
    variance: torch.Tensor

    def __init__(
        self, arrays: Mapping[str, np.ndarray], path: str, cin: int, cout: int, size: int
    ) -> None:
        super().__init__()
        self.path, self.size = path, size
        self.weight = nn.Parameter(_tensor(arrays, f"{path}.weights", (cout, cin, size, size)))
        self.bias = (
            nn.Parameter(_tensor(arrays, f"{path}.biases", (cout,)))
            if f"{path}.biases" in arrays
            else None
        )
        self.norm = f"{path}.bn_means" in arrays
        if self.norm:
            self.register_buffer("mean", _tensor(arrays, f"{path}.bn_means", (cout,)))
            # lc0 names the variance "stddivs"
            self.register_buffer("variance", _tensor(arrays, f"{path}.bn_stddivs", (cout,)))
            # an old file without gammas and betas: lc0 takes 1 and 0
            self.gamma = nn.Parameter(_tensor(arrays, f"{path}.bn_gammas", (cout,), 1.0))
            self.beta = nn.Parameter(_tensor(arrays, f"{path}.bn_betas", (cout,), 0.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight: torch.Tensor = self.weight
        bias: torch.Tensor = (
            self.bias
            if self.bias is not None
            else torch.zeros(weight.shape[0], dtype=x.dtype, device=x.device)
        )
        if self.norm:  # folded as lc0 folds it
            scale = self.gamma / torch.sqrt(self.variance + EPSILON)
            weight = weight * scale[:, None, None, None]
            bias = self.beta - scale * (self.mean - bias)
        return nn.functional.conv2d(x, weight, bias, padding=self.size // 2)

    def arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, torch.Tensor] = {f"{self.path}.weights": self.weight}
        if self.bias is not None:
            out[f"{self.path}.biases"] = self.bias
        if self.norm:
            out |= {
                f"{self.path}.bn_means": self.mean,
                f"{self.path}.bn_stddivs": self.variance,
                f"{self.path}.bn_gammas": self.gamma,
                f"{self.path}.bn_betas": self.beta,
            }
        return {name: _array(value) for name, value in out.items()}


class Residual(nn.Module):
    """Two 3 x 3 convolutions, an SE unit if the file has one, added to the input."""

    def __init__(self, arrays: Mapping[str, np.ndarray], path: str, filters: int) -> None:
        super().__init__()
        self.path = path
        self.conv1 = ConvBlock(arrays, f"{path}.conv1", filters, filters, 3)
        self.conv2 = ConvBlock(arrays, f"{path}.conv2", filters, filters, 3)
        self.se = f"{path}.se.w1" in arrays
        if self.se:
            hidden = arrays[f"{path}.se.b1"].size
            self.w1 = nn.Parameter(_tensor(arrays, f"{path}.se.w1", (hidden, filters)))
            self.b1 = nn.Parameter(_tensor(arrays, f"{path}.se.b1", (hidden,)))
            self.w2 = nn.Parameter(_tensor(arrays, f"{path}.se.w2", (2 * filters, hidden)))
            self.b2 = nn.Parameter(_tensor(arrays, f"{path}.se.b2", (2 * filters,)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv2(torch.relu(self.conv1(x)))
        if self.se:
            hidden = torch.relu(y.mean(dim=(2, 3)) @ self.w1.T + self.b1)
            scale, shift = (hidden @ self.w2.T + self.b2).chunk(2, dim=1)
            y = torch.sigmoid(scale)[:, :, None, None] * y + shift[:, :, None, None]
        return torch.relu(y + x)

    def arrays(self) -> dict[str, np.ndarray]:
        out = self.conv1.arrays() | self.conv2.arrays()
        if self.se:
            out |= {
                f"{self.path}.se.{name}": _array(getattr(self, name))
                for name in ("w1", "b1", "w2", "b2")
            }
        return out


class Lc0Net(nn.Module):
    """lc0's input planes (N x 112 x 8 x 8) to the policy's 1858 logits and the value head's logits
    (win, draw, loss; or the one value before its tanh)."""

    def __init__(self, network: Network) -> None:
        super().__init__()
        arrays = network.arrays()
        filters = network.filters
        self.input = ConvBlock(arrays, "input", INPUT_PLANES, filters, 3)
        self.tower = nn.ModuleList(
            Residual(arrays, f"residual.{i}", filters) for i in range(network.blocks)
        )
        self.policy1 = ConvBlock(arrays, "policy1", filters, filters, 3)
        policy_planes = arrays["policy.biases"].size
        self.policy = ConvBlock(arrays, "policy", filters, policy_planes, 3)
        value_planes = arrays["value.weights"].size // filters
        self.value = ConvBlock(arrays, "value", filters, value_planes, 1)
        hidden, outputs = arrays["ip1_val_b"].size, arrays["ip2_val_b"].size
        self.ip1_val_w = nn.Parameter(_tensor(arrays, "ip1_val_w", (hidden, value_planes * 64)))
        self.ip1_val_b = nn.Parameter(_tensor(arrays, "ip1_val_b", (hidden,)))
        self.ip2_val_w = nn.Parameter(_tensor(arrays, "ip2_val_w", (outputs, hidden)))
        self.ip2_val_b = nn.Parameter(_tensor(arrays, "ip2_val_b", (outputs,)))
        self.register_buffer("source", torch.from_numpy(conv_policy_source()))
        if policy_planes < CONV_PLANES:
            raise ValueError(
                f"a convolutional policy of {policy_planes} planes (lc0's has {CONV_PLANES} or"
                " more)"
            )

    def trunk(self, planes: torch.Tensor, blocks: int | None = None) -> torch.Tensor:
        """The activations after the input convolution and the first ``blocks`` residual blocks (all
        where None)."""
        x = torch.relu(self.input(planes))
        for block in list(self.tower)[:blocks]:
            x = block(x)
        return x

    def policy_logits(self, x: torch.Tensor, after: int | None = None) -> torch.Tensor:
        """The policy's 1858 logits from the trunk's activations ``x`` after its first ``after``
        blocks (its whole trunk where None): the blocks left, then the policy head."""
        if after is not None:
            for block in list(self.tower)[after:]:
                x = block(x)
        return self.policy(torch.relu(self.policy1(x))).flatten(1)[:, self.source]

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.trunk(planes)
        policy = self.policy_logits(x)
        value = torch.relu(self.value(x)).flatten(1)
        value = (
            torch.relu(value @ self.ip1_val_w.T + self.ip1_val_b) @ self.ip2_val_w.T
            + self.ip2_val_b
        )
        return policy, value

    def value_head(self) -> list[nn.Parameter]:
        """The value head's parameters (fine-tuning on moves keeps them as they are)."""
        return [
            *self.value.parameters(),
            self.ip1_val_w,
            self.ip1_val_b,
            self.ip2_val_w,
            self.ip2_val_b,
        ]

    def arrays(self) -> dict[str, np.ndarray]:
        """Every layer by its path in the file, as :meth:`Network.with_arrays` takes them."""
        out = self.input.arrays()
        for block in self.tower:
            assert isinstance(block, Residual)
            out |= block.arrays()
        out |= self.policy1.arrays() | self.policy.arrays() | self.value.arrays()
        return out | {
            name: _array(getattr(self, name))
            for name in ("ip1_val_w", "ip1_val_b", "ip2_val_w", "ip2_val_b")
        }

    def to_network(self, template: Network) -> Network:
        """``template`` (the network this one was read from) with this one's weights."""
        return template.with_arrays(self.arrays())


def _tensor(
    arrays: Mapping[str, np.ndarray],
    name: str,
    shape: tuple[int, ...],
    default: float | None = None,
) -> torch.Tensor:
    if name not in arrays and default is not None:
        return torch.full(shape, default)
    values = arrays[name]
    if values.size != int(np.prod(shape)):
        raise ValueError(
            f"{name}: {values.size} weights where {'x'.join(map(str, shape))} were expected"
        )
    return torch.from_numpy(values.reshape(shape).copy())


def _array(value: torch.Tensor) -> np.ndarray:
    return value.detach().cpu().numpy().astype(np.float32).ravel()
