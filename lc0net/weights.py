"""lc0's network file (``.pb.gz``) read into numpy arrays, one a layer, and written back.

lc0 stores each layer as ``Layer{min_val, max_val, params}``: ``params`` holds uint16 values ``u``
(LINEAR16), the layer's weights being ``min * (1 - u/65535) + max * u/65535`` in float32, as lc0
decodes them (``utils/weights_adapter.cc``). A layer is written back the same way, its minimum and
maximum as ``min_val`` and ``max_val``: decoding a written layer and writing it again gives the same
bytes. Everything in a file other than the layers replaced (its format, its training facts, fields
this project's schema does not name) is written back as it was read.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from common.bounded import OverBound, file_size, gunzip
from common.files import atomic_file
from lc0net import proto

#: The largest uint16: LINEAR16's top value.
TOP = np.float32(0xFFFF)
#: The most a network's protobuf message may be, inflated (and its file, gzipped or not): lc0's
#: largest published networks (the 768x15 T80s, the BT4 transformers) are a few hundred MiB; the
#: shipped 6x64s 1.7 MiB. A gzipped file inflates besides at most :data:`common.bounded.RATIO` times
#: its size (lc0's: 1.4).
NETWORK_MOST = 1 << 30


class NetworkError(ValueError):
    """A network file this project cannot read, saying what is wrong."""


def decode(layer: Any) -> np.ndarray:
    """A layer's weights (float32, flat), as lc0 decodes them."""
    if layer.HasField("encoding") and layer.encoding != proto.LINEAR16:
        raise NetworkError(f"layer encoding {layer.encoding} (only LINEAR16, lc0 0.32's, is read)")
    if len(layer.params) % 2:
        raise NetworkError(f"{len(layer.params)} bytes of LINEAR16 values (an odd number)")
    theta = np.frombuffer(layer.params, dtype="<u2").astype(np.float32) / TOP
    low, high = np.float32(layer.min_val), np.float32(layer.max_val)
    return low * (np.float32(1) - theta) + high * theta


def encode(values: np.ndarray, layer: Any) -> None:
    """Set ``layer`` to ``values`` in LINEAR16, between their minimum and maximum."""
    values = np.asarray(values, dtype=np.float32).ravel()
    if not np.isfinite(values).all():
        raise NetworkError("weights that are not finite numbers")
    low, high = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    span = np.float64(high) - np.float64(low)
    theta = (values.astype(np.float64) - low) / span if span > 0 else np.zeros(values.size)
    layer.Clear()
    layer.min_val, layer.max_val = low, high
    layer.params = np.rint(theta * 0xFFFF).astype("<u2").tobytes()


def _layers(message: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``(path, Layer)`` for every layer set in ``message``, e.g. ``residual.0.se.w1``."""
    for field, value in message.ListFields():
        name = prefix + field.name
        if field.message_type is None:
            continue
        items = list(enumerate(value)) if field.is_repeated else [(None, value)]
        for i, item in items:
            path = name if i is None else f"{name}.{i}"
            if field.message_type.name == "Layer":
                yield path, item
            else:
                yield from _layers(item, path + ".")


@dataclass
class Network:
    """An lc0 network: the file's message, and its layers as arrays (:meth:`arrays`)."""

    net: Any

    @property
    def blocks(self) -> int:
        return len(self.net.weights.residual)

    @property
    def filters(self) -> int:
        return len(self.net.weights.input.bn_means.params) // 2

    @property
    def wdl(self) -> bool:
        """Whether the value head gives win, draw and loss (else one value)."""
        return bool(self.net.format.network_format.value == proto.VALUE_WDL)

    def layers(self) -> dict[str, Any]:
        """Every layer's message by its path (``input.weights``, ``residual.3.conv2.bn_means``
        ...)."""
        return dict(_layers(self.net.weights, ""))

    def arrays(self) -> dict[str, np.ndarray]:
        """Every layer's weights (float32, flat) by its path."""
        out = {}
        for path, layer in self.layers().items():
            try:
                out[path] = decode(layer)
            except NetworkError as exc:
                raise NetworkError(f"{path}: {exc}") from None
        return out

    def with_arrays(self, arrays: Mapping[str, np.ndarray]) -> Network:
        """A copy with the layers named in ``arrays`` set to them (each the size it was)."""
        net = proto.Net()
        net.CopyFrom(self.net)
        layers = dict(_layers(net.weights, ""))
        for path, values in arrays.items():
            if path not in layers:
                raise NetworkError(f"no layer {path} in the network")
            size = len(layers[path].params) // 2
            if np.size(values) != size:
                raise NetworkError(
                    f"{path}: {np.size(values)} weights where the network has {size}"
                )
            encode(values, layers[path])
        return Network(net)


def read_network(path: str | os.PathLike[str]) -> Network:
    """The lc0 network in ``path``; NetworkError saying what is wrong (not gzip, not lc0's message,
    not a network of lc0's, or a kind of network this project does not run)."""
    path = Path(path)
    try:
        file_size(path, NETWORK_MOST, "network")
        data = path.read_bytes()
        if data and data[:2] != GZIP_MAGIC:
            raise OSError(f"Not a gzipped file ({data[:2]!r})")  # gzip's own words
        raw = gunzip(data, NETWORK_MOST, f"{path} (a network)")
    except OverBound as exc:
        raise NetworkError(str(exc)) from None
    except (OSError, EOFError, zlib.error) as exc:
        raise NetworkError(f"{path}: not a gzip-compressed lc0 network ({exc})") from None
    try:
        return parse_network(raw)
    except NetworkError as exc:
        raise NetworkError(f"{path}: {exc}") from None


#: How a gzip file starts (lc0 reads its networks gzipped or not).
GZIP_MAGIC = b"\x1f\x8b"


def network_bytes(path: str | os.PathLike[str]) -> bytes:
    """The protobuf message of the network file ``path``, gzipped or not, as lc0 reads them, within
    :data:`NETWORK_MOST` (OSError, EOFError, zlib.error where the file cannot be read or unzipped;
    OverBound, a ValueError, where it is over the bound)."""
    file_size(path, NETWORK_MOST, "network")
    data = Path(path).read_bytes()
    return gunzip(data, NETWORK_MOST, f"{path} (a network)") if data[:2] == GZIP_MAGIC else data


def weights_sha256(raw: bytes) -> str:
    """Which network a protobuf message is: its SHA-256 uncompressed (gzip's header holds a
    time)."""
    return hashlib.sha256(raw).hexdigest()


def parse_network(raw: bytes) -> Network:
    """The lc0 network whose protobuf message (uncompressed) is ``raw``; NetworkError saying what is
    wrong."""
    net = proto.Net()
    try:
        net.ParseFromString(raw)
    except DecodeError as exc:
        raise NetworkError(f"not lc0's protobuf message ({exc})") from None
    if net.magic != proto.MAGIC:
        raise NetworkError(f"not an lc0 network (magic {net.magic:#x}, lc0's is {proto.MAGIC:#x})")
    network = Network(net)
    check(network)
    return network


def check(network: Network) -> None:
    """NetworkError unless ``network`` is a residual network of the kind :mod:`.forward` runs (and
    :mod:`learn.lc0.model` trains): lc0's classic 112 input planes, a convolutional policy, ReLU,
    every layer it needs, and in LINEAR16."""
    fmt = network.net.format
    nf = fmt.network_format
    wanted = {
        "weights encoding": (fmt.weights_encoding, proto.LINEAR16),
        "input format": (nf.input, proto.INPUT_CLASSICAL_112_PLANE),
        "policy format": (nf.policy, proto.POLICY_CONVOLUTION),
        "default activation": (nf.default_activation, proto.DEFAULT_ACTIVATION_RELU),
    }
    for what, (found, want) in wanted.items():
        if found != want:
            raise NetworkError(f"{what} {found}: only {want} is read")
    if nf.network not in (
        proto.NETWORK_CLASSICAL_WITH_HEADFORMAT,
        proto.NETWORK_SE_WITH_HEADFORMAT,
    ):
        raise NetworkError(f"network structure {nf.network}: only residual towers (3, 4) are read")
    if nf.value not in (proto.VALUE_CLASSICAL, proto.VALUE_WDL):
        raise NetworkError(f"value format {nf.value}: only 1 (one value) and 2 (WDL) are read")
    if network.net.weights.HasField("moves_left"):
        raise NetworkError("a moves-left head, which is not read")
    layers = network.layers()
    needed = [
        "input.weights",
        "policy1.weights",
        "policy.weights",
        "policy.biases",
        "value.weights",
        "ip1_val_w",
        "ip1_val_b",
        "ip2_val_w",
        "ip2_val_b",
    ]
    for i, block in enumerate(network.net.weights.residual):
        needed += [f"residual.{i}.conv1.weights", f"residual.{i}.conv2.weights"]
        if block.HasField("se"):
            needed += [f"residual.{i}.se.{name}" for name in ("w1", "b1", "w2", "b2")]
    missing = [name for name in needed if name not in layers]
    if missing:
        raise NetworkError(f"layers missing: {', '.join(missing)}")
    if network.filters == 0:
        raise NetworkError(
            "no batch norm on the input convolution (input.bn_means), which is not read"
        )


def write_network(path: str | os.PathLike[str], network: Network) -> None:
    """Write ``network`` to ``path`` (gzip, atomically; the same network gives the same bytes)."""
    with atomic_file(path) as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as z:
        z.write(network.net.SerializeToString())
