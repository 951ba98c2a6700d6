"""The options table of docs/usage.md, made from the option registry so that it cannot go stale:
``python -m engine.agents.optiontable`` (``make docs``) rewrites it between its markers, ``--check``
only says whether it differs (tests/docs/test_docs.py fails on one). README.md keeps a short table
of the options that matter, whose names tests/docs/test_readme.py checks against the registry."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable

from common.files import write_atomic
from common.paths import PROJECT_ROOT, data_folder
from engine.agents.modes import option_registry
from engine.agents.options import Option, OptionValue

BEGIN = (
    "<!-- options:begin (made by make docs from engine/agents/modes.py and the modes' options in"
    " guided_options.py, pure_options.py, chess0_options.py: edit there) -->"
)
END = "<!-- options:end -->"
#: The documents that hold the table, from the project's root (not README.md: its 35 rows would be
#: most of a newcomer's page).
DOCUMENTS = ("docs/usage.md",)


def _default(value: OptionValue) -> str:
    """A default as the table shows it: paths in the data folder relative to it (a clone's
    casebases/ and tables/, the same on every machine), the empty string as ``empty``."""
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, int):
        return str(value)
    if value == "":
        return "empty"
    text = str(value)
    folder = f"{data_folder()}/"
    return f"`{text.removeprefix(folder)}`"


def _values(option: Option) -> str:
    """The values an option takes: a spin's range, a combo's choices."""
    if option.kind == "spin":
        return f"{option.minimum}–{option.maximum}"
    if option.kind == "combo":
        return ", ".join(f"`{choice}`" for choice in option.choices)
    return "`true`, `false`" if option.kind == "check" else ""


def table(options: Iterable[Option]) -> str:
    """The Markdown table of ``options``, one row each in the registry's order."""
    rows = ["| option | type | default | values | meaning |", "|---|---|---|---|---|"]
    for option in options:
        cells = (
            f"`{option.name}`",
            option.kind,
            _default(option.default),
            _values(option),
            option.doc,
        )
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows) + "\n"


def with_table(text: str, made: str) -> str:
    """``text`` with ``made`` between its markers (the rest kept byte for byte); ValueError
    when the markers are not there once each, in order."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(
            f"the options table's markers are not there once each, in order: {BEGIN} … {END}"
        )
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{made}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.agents.optiontable", description=__doc__
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 if a table differs from the registry",
    )
    args = parser.parse_args(argv)
    made = table(option_registry())
    stale = []
    for name in DOCUMENTS:
        path = PROJECT_ROOT / name
        try:
            text = path.read_text(encoding="utf-8")
            updated = with_table(text, made)
        except (OSError, ValueError) as exc:
            print(f"{name}: {exc}", file=sys.stderr)
            return 2
        if updated != text:
            stale.append(name)
            if not args.check:
                write_atomic(path, updated)
    verb = "differs from the registry (make docs)" if args.check else "rewritten"
    for name in stale:
        print(f"{name}: the options table {verb}", file=sys.stderr)
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
