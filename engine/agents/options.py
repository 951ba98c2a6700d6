"""The engine's options: what each one is, how its value is read, and the one registry of them
that the UCI engine, the agent factory, the tournament and the fidelity bench all look names up in
(cheap to import: the UCI loop reads it before ``uciok``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from common.text import clip

OptionValue = int | str | bool


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
            raise ValueError(f"{self.name} takes one of {', '.join(self.choices)}, not {clip(text)!r}")
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{self.name} takes a whole number, not {clip(text)!r}") from None
        if not self.minimum <= value <= self.maximum:
            raise ValueError(f"{self.name} takes {self.minimum}..{self.maximum}, not {clip(str(value))}")
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
