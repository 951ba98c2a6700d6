"""Named weight configurations: the thesis's five (cbr-agent.md §6) by name, or any weight list
written as the thesis writes one (``"0.8 0.8 0.5"``, the PGN ``WeightConfig`` text).

The round robin plays them, and the fidelity bench plays pure and guided mode with one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cbr.weights import WEIGHT_CONFIGS, Weights, from_hundredths, to_hundredths


@dataclass(frozen=True)
class Configuration:
    """A named weight list; ``label`` is the PGN ``WeightConfig`` text, e.g. ``"0.8 0.8 0.5"``."""

    name: str
    weights: Weights

    @property
    def label(self) -> str:
        return weights_label(self.weights)

    @classmethod
    def from_label(cls, label: str) -> Configuration:
        """The configuration of a ``WeightConfig`` text, named as in cbr-agent.md §6 when it is
        one."""
        weights = _parse_weights(label)
        name = next((n for n, w in WEIGHT_CONFIGS.items() if w == weights), weights_label(weights))
        return cls(name, weights)


def weights_label(weights: Weights) -> str:
    """``"0.8 0.8 0.5"``: the thesis's way of writing a weight list."""
    return f"{weights.v1:g} {weights.v2:g} {weights.v3:g}"


def _parse_weights(text: str) -> Weights:
    parts = text.replace(",", " ").split()
    try:
        values = [float(p) for p in parts]
        if len(values) != 3:
            raise ValueError
        return Weights(*(from_hundredths(to_hundredths(v)) for v in values))
    except ValueError:
        raise ValueError(
            f"weight configuration {text!r}: expected three numbers 'v1 v2 v3' in hundredths"
        ) from None


def parse_configurations(items: Sequence[str]) -> list[Configuration]:
    """``["thesis"]`` (the five of cbr-agent.md §6), names of those, or ``"v1 v2 v3"`` texts."""
    configs: list[Configuration] = []
    for item in items:
        if item == "thesis":
            configs += [Configuration(n, w) for n, w in WEIGHT_CONFIGS.items()]
        elif item in WEIGHT_CONFIGS:
            configs.append(Configuration(item, WEIGHT_CONFIGS[item]))
        else:
            try:
                configs.append(Configuration.from_label(item))
            except ValueError as exc:
                raise ValueError(
                    f"{exc}, 'thesis', or one of {', '.join(WEIGHT_CONFIGS)}"
                ) from None
    labels = [c.label for c in configs]
    if len(set(labels)) != len(labels):
        raise ValueError(f"a weight configuration is listed twice: {labels}")
    if not configs:
        raise ValueError("no weight configuration given")
    return configs
