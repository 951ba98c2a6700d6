"""What a document names, read from its text: the Makefile's targets, the repository's files, the
engine's options, links to files and headings. Each ``*_problems`` function lists what is not there
(nothing: an empty list); tests/docs/test_docs.py holds README.md and docs/*.md to them,
tests/docs/test_readme.py the README's commands."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from pathlib import Path

from uci_helpers import ROOT

from engine.agents.modes import option_registry

#: The project's packages: what the wheel installs.
PACKAGES = (
    "common",
    "lc0net",
    "casebase",
    "endgame",
    "engine",
    "learn",
    "parallel",
    "profiling",
    "fidelity",
    "tournament",
    "web",
    "player",
)
#: The folders of the repository's own files: a path starting so names a file of a clone.
PROJECT = (*PACKAGES, "docs", "tests", "experiments", "bench", "testing", "data")
#: The repository's files at its top.
TOP = (
    "Makefile",
    "pyproject.toml",
    "uci_main.py",
    "setup.py",
    "MANIFEST.in",
    "README.md",
    "CHANGELOG.md",
)
#: What a build or a run makes there, never in a clone: named, not checked.
MADE = ("bench/out/", "web/static/vendor/", "casebase/data/")
#: What stands for a name in a path: a capital word (`casebases/heldout/ID.npz`, `run-K/`),
#: `<name>`, `$id`, `...`.
PLACEHOLDER = re.compile(r"(?<![A-Za-z])(?:[A-Z]{1,8})(?![A-Za-z])|<[^>]*>|\.\.\.|\$")
_PATH = re.compile(
    rf"(?<![\w./-])(?:(?:{'|'.join(PROJECT)})/[\w./*?{{}},<>$-]*"
    rf"|(?:{'|'.join(map(re.escape, TOP))})(?![\w.]))"
)


def documents() -> list[Path]:
    """The documents held to today's code: README.md and docs/*.md (docs/results/ holds dated
    studies, history)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def code(text: str) -> list[str]:
    """The code of ``text``: its inline code spans, and each line of its fenced blocks."""
    fenced = re.findall(r"^ *```[^\n]*\n(.*?)^ *```", text, flags=re.MULTILINE | re.DOTALL)
    outside = re.sub(r"^ *```[^\n]*\n.*?^ *```", "", text, flags=re.MULTILINE | re.DOTALL)
    return re.findall(r"`([^`\n]+)`", outside) + [
        line for block in fenced for line in block.splitlines()
    ]


def make_rules() -> tuple[set[str], list[re.Pattern[str]]]:
    """The Makefile's targets by name, and its pattern rules (``casebases/%.npz``) as patterns."""
    names: set[str] = set()
    patterns = []
    for targets in re.findall(
        r"^([^\s#:=$][^:=\n]*?)\s*:(?!=)",
        (ROOT / "Makefile").read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    ):
        for target in targets.split():
            if "%" in target:
                patterns.append(re.compile(re.escape(target).replace("%", ".+")))
            else:
                names.add(target)
    return names, patterns


def named_targets(text: str) -> list[str]:
    """The targets of every ``make`` command in the code of ``text`` (``make strength
    STRENGTH_RUNS=1``: strength)."""
    targets = []
    for line in code(text):
        if re.match(r"\s*make\s", line):
            words = shlex.split(line, comments=True)[1:]
            targets += [word for word in words if "=" not in word and not word.startswith("-")]
    return targets


def target_problems(targets: Iterable[str]) -> list[str]:
    """The targets the Makefile has no rule for, by name or by pattern."""
    names, patterns = make_rules()
    return [
        f"make: no target {target}"
        for target in targets
        if target not in names and not any(pattern.fullmatch(target) for pattern in patterns)
    ]


def named_paths(text: str) -> list[str]:
    """The repository's files ``text`` names in its code or its prose (``engine/agents/modes.py``,
    ``Makefile``)."""
    unlinked = re.sub(
        r"\]\([^)\s]*\)", "]", text
    )  # a link's target is the link check's: relative to its document
    return [path.rstrip(".,;:") for path in _PATH.findall(unlinked)]


def path_problems(paths: Iterable[str]) -> list[str]:
    """The paths that name no file of the repository; a pattern must match one, a placeholder's path
    is let be."""
    problems = []
    for path in paths:
        if path.startswith(MADE) or (ROOT / path).exists() or PLACEHOLDER.search(path):
            continue
        if not re.search(r"[*?{]", path):
            problems.append(f"no file {path}")
        elif not any(ROOT.glob(re.sub(r"\{[^}]*\}", "*", path))):
            problems.append(f"no file matches {path}")
    return problems


def named_modules(text: str) -> list[str]:
    """The repository's modules ``text`` runs as ``python -m MODULE`` (not pip's or pytest's)."""
    return [
        module
        for module in re.findall(r"python -m ([\w.]+)", text)
        if module.split(".")[0] in PROJECT
    ]


def module_problems(modules: Iterable[str]) -> list[str]:
    """The modules that are no file of the repository: neither ``a/b.py`` nor
    ``a/b/__main__.py``."""
    problems = []
    for module in modules:
        path = ROOT / module.replace(".", "/")
        if not (
            module.endswith(".")
            or PLACEHOLDER.search(module)
            or path.with_suffix(".py").is_file()
            or (path / "__main__.py").is_file()
        ):
            problems.append(f"no module {module}")
    return problems


def named_options(text: str) -> list[str]:
    """The engine options ``text`` names: "option `Name`" (or "options `A`, `B` and `C`"),
    ``setoption name Name`` and cutechess-cli's ``option.Name=``; a value after the name is left out
    (option `Model auto`: Model)."""
    options = {option.name for option in option_registry()}
    spans = []
    for listed in re.findall(r"\b[Oo]ptions? (`[^`]+`(?:(?:,? and |,? or |, )`[^`]+`)*)", text):
        first, *more = re.findall(r"`([^`]+)`", listed)
        # a list ends in "and" or "or" (not option `Speed`, `auto` by default), its names
        # capitalised as options are
        more = (
            [span for span in more if span[:1].isupper()]
            if re.search(r" (?:and|or) `[^`]+`$", listed)
            else []
        )
        spans += [span for span in (first, *more) if not span.startswith("-")]
    spans += re.findall(r"setoption name (.+?)(?: value\b|`|$)", text, flags=re.MULTILINE)
    spans += re.findall(r"\boption\.(\w+)=", text)
    named = []
    for span in spans:
        words = span.split("=", 1)[0].split()
        prefixes = [" ".join(words[:n]) for n in range(len(words), 0, -1)]
        named.append(
            next((prefix for prefix in prefixes if prefix in options), words[0] if words else span)
        )
    return named


def option_problems(names: Iterable[str]) -> list[str]:
    """The names that are no option of the engine's registry."""
    options = {option.name for option in option_registry()}
    return [f"no option {name}" for name in names if name not in options]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def link_problems(text: str, folder: Path = ROOT, name: str = "README.md") -> list[str]:
    """Relative links of ``text`` (the document ``name`` in ``folder``) that reach no file or
    heading."""
    problems = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"\w+:", target):
            continue
        path, _, anchor = target.partition("#")
        if path and not (folder / path).exists():
            problems.append(f"no file {path}")
            continue
        document = (folder / path).read_text(encoding="utf-8") if path and anchor else text
        if anchor and anchor not in {
            slug(h) for h in re.findall(r"^#+ (.*)$", document, flags=re.MULTILINE)
        }:
            problems.append(f"no heading #{anchor} in {path or name}")
    return problems


def table(text: str, heading: str) -> list[list[str]]:
    """The first table under ``heading`` (a line of ``text``), each row its cells, the header's
    first."""
    section = text.split(f"\n{heading}\n", 1)[1]
    lines = re.search(r"^\|.*?(?=^[^|]|\Z)", section, flags=re.MULTILINE | re.DOTALL)
    rows = lines[0].splitlines() if lines else []
    return [
        [cell.strip() for cell in row.strip().strip("|").split(" | ")]
        for row in rows
        if not re.fullmatch(r"[|\-: ]+", row)
    ]
