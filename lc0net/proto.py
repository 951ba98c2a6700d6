"""The part of lc0's network file (lczero-common's ``proto/net.proto``, package ``pblczero``) that
this project reads and writes, as protobuf messages built here at import time (nothing generated).

Only what a residual network with a convolutional policy uses is declared; the protobuf package
keeps any other field of a file as unknown fields and writes it back unchanged. Enums are declared
as ``uint32`` (the same varint on the wire), so a value this schema does not name is kept too.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
#: One field: its name, its number in net.proto, and its type (a scalar type, or a message's name).
Field = tuple[str, int, Any]
_REPEATED = {"residual", "dims"}

_MESSAGES: dict[str, list[Field]] = {
    "EngineVersion": [
        ("major", 1, _F.TYPE_UINT32),
        ("minor", 2, _F.TYPE_UINT32),
        ("patch", 3, _F.TYPE_UINT32),
    ],
    # encoding: lc0 0.33 adds FLOAT16, BFLOAT16, FLOAT32; absent means LINEAR16
    "Layer": [
        ("min_val", 1, _F.TYPE_FLOAT),
        ("max_val", 2, _F.TYPE_FLOAT),
        ("params", 3, _F.TYPE_BYTES),
        ("encoding", 4, _F.TYPE_UINT32),
        ("dims", 5, _F.TYPE_UINT32),
    ],
    "ConvBlock": [
        ("weights", 1, "Layer"),
        ("biases", 2, "Layer"),
        ("bn_means", 3, "Layer"),
        ("bn_stddivs", 4, "Layer"),
        ("bn_gammas", 5, "Layer"),
        ("bn_betas", 6, "Layer"),
    ],
    "SEunit": [("w1", 1, "Layer"), ("b1", 2, "Layer"), ("w2", 3, "Layer"), ("b2", 4, "Layer")],
    "Residual": [("conv1", 1, "ConvBlock"), ("conv2", 2, "ConvBlock"), ("se", 3, "SEunit")],
    "Weights": [
        ("input", 1, "ConvBlock"),
        ("residual", 2, "Residual"),
        ("policy", 3, "ConvBlock"),
        ("value", 6, "ConvBlock"),
        ("ip1_val_w", 7, "Layer"),
        ("ip1_val_b", 8, "Layer"),
        ("ip2_val_w", 9, "Layer"),
        ("ip2_val_b", 10, "Layer"),
        ("policy1", 11, "ConvBlock"),
        ("moves_left", 12, "ConvBlock"),
    ],
    "NetworkFormat": [
        ("input", 1, _F.TYPE_UINT32),
        ("output", 2, _F.TYPE_UINT32),
        ("network", 3, _F.TYPE_UINT32),
        ("policy", 4, _F.TYPE_UINT32),
        ("value", 5, _F.TYPE_UINT32),
        ("moves_left", 6, _F.TYPE_UINT32),
        ("default_activation", 7, _F.TYPE_UINT32),
    ],
    "Format": [("weights_encoding", 1, _F.TYPE_UINT32), ("network_format", 2, "NetworkFormat")],
    "TrainingParams": [
        ("training_steps", 1, _F.TYPE_UINT32),
        ("learning_rate", 2, _F.TYPE_FLOAT),
        ("mse_loss", 3, _F.TYPE_FLOAT),
        ("policy_loss", 4, _F.TYPE_FLOAT),
        ("accuracy", 5, _F.TYPE_FLOAT),
        ("lc0_params", 6, _F.TYPE_STRING),
    ],
    "Net": [
        ("magic", 1, _F.TYPE_FIXED32),
        ("license", 2, _F.TYPE_STRING),
        ("min_version", 3, "EngineVersion"),
        ("format", 4, "Format"),
        ("training_params", 5, "TrainingParams"),
        ("weights", 10, "Weights"),
    ],
}
PACKAGE = "pblczero"

#: The file's first field: lc0 refuses a file without it.
MAGIC = 0x1C0
# net.proto's enum values this project uses
LINEAR16 = 1
INPUT_CLASSICAL_112_PLANE = 1
NETWORK_CLASSICAL_WITH_HEADFORMAT, NETWORK_SE_WITH_HEADFORMAT = 3, 4
POLICY_CONVOLUTION = 2
VALUE_CLASSICAL, VALUE_WDL = 1, 2
DEFAULT_ACTIVATION_RELU = 0


def _file() -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto(
        name="cbr_chess/lc0_net.proto", package=PACKAGE, syntax="proto2"
    )
    for name, fields in _MESSAGES.items():
        message = proto.message_type.add(name=name)
        for field, number, kind in fields:
            f = message.field.add(
                name=field,
                number=number,
                json_name=field,
                label=_F.LABEL_REPEATED if field in _REPEATED else _F.LABEL_OPTIONAL,
            )
            if isinstance(kind, str):
                f.type, f.type_name = _F.TYPE_MESSAGE, f".{PACKAGE}.{kind}"
            else:
                f.type = kind
    return proto


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file())
#: lc0's ``Net`` message: a whole network file (gunzipped).
Net: Any = message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"{PACKAGE}.Net"))
