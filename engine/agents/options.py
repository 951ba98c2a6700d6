"""The engine's options: what each one is, how its value is read, the one registry of them that
the UCI engine, the agent factory, the tournament and the fidelity bench all look names up in, and
the typed settings made from their values once (:func:`settings_of`: each mode's, the protocol's)
(cheap to import: the UCI loop reads it before ``uciok``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from common.text import clip
from engine.cbr.weights import Weights, from_hundredths

OptionValue = int | str | bool
S = TypeVar("S")

#: v1, v2, v3 (cbr-agent.md §5) as spins of hundredths.
WEIGHT_OPTIONS = ("DistanceWeight", "FromDistanceWeight", "FromContentWeight")
#: What each weighs (cbr-agent.md §5).
WEIGHT_DOCS = (
    "v1 × 100: nearness of the moves' squares over their contents",
    "v2 × 100: in nearness, the from squares over the to squares",
    "v3 × 100: in contents, the from squares over the to squares",
)


def setting(
    option: str | tuple[str, ...], convert: Callable[..., Any], default: Any = dataclasses.MISSING
) -> Any:
    """A field of a settings dataclass set from option ``option`` (a tuple: from several, each value
    an argument) by ``convert``, e.g. ``int``, ``Selection``, or tenths to a number
    (:func:`settings_of`)."""
    return dataclasses.field(default=default, metadata={"option": option, "convert": convert})


def settings_of(kind: type[S], values: Mapping[str, OptionValue]) -> S:
    """The settings dataclass ``kind`` made from the option values ``values``: each field from the
    option(s) its :func:`setting` names, converted once here (KeyError for a value missing)."""
    made = {}
    for item in dataclasses.fields(kind):  # type: ignore[arg-type]
        option, convert = item.metadata["option"], item.metadata["convert"]
        names = option if isinstance(option, tuple) else (option,)
        made[item.name] = convert(*(values[name] for name in names))
    return kind(**made)


@dataclass(frozen=True)
class Option:
    """One engine option: its type as UCI declares it, and how a value is read."""

    name: str
    kind: str  # "spin", "combo", "string" or "check"
    default: OptionValue
    minimum: int = 0
    maximum: int = 0
    choices: tuple[str, ...] = ()
    #: What it does, in one line of Markdown: the options table of docs/usage.md
    #: is made from it (engine/agents/optiontable.py).
    doc: str = ""

    def parse(self, text: str) -> OptionValue:
        """The value ``text`` stands for; ValueError says why it is not acceptable."""
        if self.kind == "string":
            return "" if text == "<empty>" else text
        if self.kind == "check":
            if text.lower() not in ("true", "false"):
                raise ValueError(f"{self.name} takes true or false, not {clip(text)!r}")
            return text.lower() == "true"
        if self.kind == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise ValueError(
                f"{self.name} takes one of {', '.join(self.choices)}, not {clip(text)!r}"
            )
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{self.name} takes a whole number, not {clip(text)!r}") from None
        if not self.minimum <= value <= self.maximum:
            raise ValueError(
                f"{self.name} takes {self.minimum}..{self.maximum}, not {clip(str(value))}"
            )
        return value


class OptionRegistry:
    """Every option by name: names match without regard to case, as UCI's ``setoption`` does
    (one name each: the project has no old names, CHANGELOG.md)."""

    def __init__(self, options: Iterable[Option]) -> None:
        self.options = tuple(options)
        self._by_name = {option.name.lower(): option for option in self.options}

    def __iter__(self) -> Iterator[Option]:
        return iter(self.options)

    def option(self, name: str) -> Option:
        """The option called ``name``; ValueError when there is none."""
        option = self._by_name.get(name.strip().lower())
        if option is None:
            raise ValueError(f"no option named {clip(name)!r}")
        return option

    def parse(self, name: str, text: str) -> tuple[Option, OptionValue]:
        """The option ``name`` and the value ``text`` stands for; ValueError says what is wrong."""
        option = self.option(name)
        return option, option.parse(text)

    def defaults(self) -> dict[str, OptionValue]:
        """Every option's default value, by name."""
        return {option.name: option.default for option in self.options}

    def values(self, overrides: Mapping[str, OptionValue] | None = None) -> dict[str, OptionValue]:
        """Every option's value: the defaults, with ``overrides`` by name (ValueError for an
        unknown name)."""
        values = self.defaults()
        for name, value in (overrides or {}).items():
            option = self.option(name)
            if isinstance(value, str) and option.kind == "combo":
                value = option.parse(value)
            values[option.name] = value
        return values


@dataclass(frozen=True)
class AgentSettings:
    """What every agent is made with besides its mode's own settings (the protocol's options, such
    as Explain or MultiPV, are no agent's: :class:`engine.uci.settings.ProtocolSettings`)."""

    casebase: str = setting("Casebase", str)
    mode: str = setting("Mode", str)
    seed: int = setting("Seed", int)
    tables: str = setting("Tables", str)
    syzygy: str = setting("SyzygyPath", str)


@dataclass(frozen=True)
class NoSettings:
    """The settings of a mode without options of its own."""

    def files(self, casebase: str) -> list[str]:
        """The files these settings read besides the casebase (the agent is remade when one
        changes): none."""
        return []


def weights_from(*hundredths: OptionValue) -> Weights:
    """The weight list the three weight options (hundredths, in :data:`WEIGHT_OPTIONS`' order)
    set."""
    return Weights(*(from_hundredths(int(value)) for value in hundredths))


def weights_of(values: Mapping[str, OptionValue]) -> Weights:
    """The weight list set by the three weight options (hundredths)."""
    return weights_from(*(values[name] for name in WEIGHT_OPTIONS))


def weight_values(weights: Weights) -> dict[str, OptionValue]:
    """The three weight options (hundredths) that set ``weights``."""
    return dict(zip(WEIGHT_OPTIONS, weights.hundredths(), strict=True))
