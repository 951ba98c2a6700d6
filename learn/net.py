"""The style model's network in torch, and its export to the numpy model file
(:mod:`engine.style.model`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch
from torch import nn

from engine.style.model import array_shapes
from engine.style.planes import MOVES, PLANES


def _conv_bn(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout))


class Block(nn.Module):
    """Two 3 x 3 convolutions with batch norm, added to the input."""

    def __init__(self, filters: int) -> None:
        super().__init__()
        self.conv1, self.conv2 = _conv_bn(filters, filters), _conv_bn(filters, filters)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv2(torch.relu(self.conv1(x))) + x)


class StyleNet(nn.Module):
    """Piece planes (N x 12 x 8 x 8) to from-to logits (N x 4096, ``from * 64 + to``)."""

    def __init__(self, blocks: int, filters: int) -> None:
        super().__init__()
        self.blocks, self.filters = blocks, filters
        self.stem = _conv_bn(PLANES, filters)
        self.tower = nn.Sequential(*(Block(filters) for _ in range(blocks)))
        # 64 outputs on each square: the logits of moving from it to each square.
        self.head = nn.Conv2d(filters, 64, 1)

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        x = self.tower(torch.relu(self.stem(planes)))
        return self.head(x).permute(0, 2, 3, 1).reshape(-1, MOVES)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray], blocks: int, filters: int) -> StyleNet:
        """The network of a model file's arrays (batch norm folded in): each batch norm made the
        identity with the convolution's bias as its shift, so that :meth:`export_arrays` gives the
        same arrays back and fine-tuning starts from exactly the file's model."""
        net = cls(blocks, filters)
        _unfold(net.stem, arrays["stem.w"], arrays["stem.b"])
        for i, block in enumerate(net.tower):
            assert isinstance(block, Block)
            _unfold(block.conv1, arrays[f"block{i}.conv1.w"], arrays[f"block{i}.conv1.b"])
            _unfold(block.conv2, arrays[f"block{i}.conv2.w"], arrays[f"block{i}.conv2.b"])
        net.head.weight.data = torch.tensor(np.asarray(arrays["head.w"], dtype=np.float32))
        assert net.head.bias is not None
        net.head.bias.data = torch.tensor(np.asarray(arrays["head.b"], dtype=np.float32))
        return net.eval()

    def export_arrays(self) -> dict[str, np.ndarray]:
        """The weights as :func:`engine.style.model.save_model` takes them, batch norm folded in."""
        arrays: dict[str, np.ndarray] = {}
        arrays["stem.w"], arrays["stem.b"] = _folded(self.stem)
        for i, block in enumerate(self.tower):
            assert isinstance(block, Block)
            arrays[f"block{i}.conv1.w"], arrays[f"block{i}.conv1.b"] = _folded(block.conv1)
            arrays[f"block{i}.conv2.w"], arrays[f"block{i}.conv2.b"] = _folded(block.conv2)
        arrays["head.w"] = self.head.weight.detach().cpu().numpy()
        assert self.head.bias is not None
        arrays["head.b"] = self.head.bias.detach().cpu().numpy()
        assert {k: v.shape for k, v in arrays.items()} == array_shapes(self.blocks, self.filters)
        return arrays


def _unfold(conv_bn: nn.Sequential, weight: np.ndarray, bias: np.ndarray) -> None:
    """Set a convolution and its batch norm to the folded ``weight`` and ``bias``."""
    conv, bn = conv_bn[0], conv_bn[1]
    assert isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d)
    assert bn.running_mean is not None and bn.running_var is not None
    conv.weight.data = torch.tensor(np.asarray(weight, dtype=np.float32))
    bn.weight.data.fill_(1.0)
    bn.bias.data = torch.tensor(np.asarray(bias, dtype=np.float32))
    bn.running_mean.zero_()
    bn.running_var.fill_(1.0 - bn.eps)  # so that the scale 1 / sqrt(var + eps) is 1


def _folded(conv_bn: nn.Sequential) -> tuple[np.ndarray, np.ndarray]:
    """A convolution followed by batch norm (in inference mode) as one convolution with a bias."""
    conv, bn = conv_bn[0], conv_bn[1]
    assert isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d)
    assert bn.running_mean is not None and bn.running_var is not None
    scale = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach()
    weight = conv.weight.detach() * scale[:, None, None, None]
    bias = (bn.bias - bn.running_mean * scale).detach()
    return weight.cpu().numpy(), bias.cpu().numpy()
