"""Docs that cannot go stale: the options table of docs/usage.md is the option
registry's, docs/architecture.md's table of packages lists every module, the registry's
defaults are written in engine/agents/defaults.py only, every make target, file, module and
option README.md and docs/*.md name is there, every link of docs/ reaches its file and heading,
and docs/results.md lists every dated study of docs/results/."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
from docs_helpers import (
    documents,
    link_problems,
    module_problems,
    named_modules,
    named_options,
    named_paths,
    named_targets,
    option_problems,
    path_problems,
    table,
    target_problems,
)
from uci_helpers import ROOT

from engine.agents import optiontable
from engine.agents.modes import option_registry


@pytest.mark.parametrize("name", optiontable.DOCUMENTS)
def test_the_options_table_is_the_registrys(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    made = optiontable.table(option_registry())
    assert optiontable.with_table(text, made) == text, (
        f"{name}'s options table is stale: run make docs"
    )
    assert made.count("\n| `") == len(option_registry().options)


def test_every_option_says_what_it_does():
    assert [option.name for option in option_registry() if not option.doc.strip()] == []


def test_the_generator_rewrites_only_between_the_markers_and_refuses_a_document_without_them():
    text = f"# Title\n\nbefore\n{optiontable.BEGIN}\n| old | table |\n{optiontable.END}\nafter\n"
    made = optiontable.with_table(text, "| new |\n")
    assert made == f"# Title\n\nbefore\n{optiontable.BEGIN}\n| new |\n{optiontable.END}\nafter\n"
    assert optiontable.with_table(made, "| new |\n") == made
    for broken in (
        "no markers",
        f"{optiontable.END}\n{optiontable.BEGIN}",
        f"{optiontable.BEGIN}{optiontable.BEGIN}{optiontable.END}",
    ):
        with pytest.raises(ValueError, match="markers"):
            optiontable.with_table(broken, "| new |\n")


def test_the_table_shows_defaults_the_same_on_every_machine():
    made = optiontable.table(option_registry())
    assert str(ROOT) not in made
    assert "| `Casebase` | string | `casebases/carlsen-2800.npz` |" in made
    assert "| `Mode` | combo | `guided` | `pure`, `guided`, `chess0` |" in made


def _modules_listed() -> dict[str, set[str]]:
    """docs/architecture.md's table of packages: each package's modules as it lists them."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The packages", 1)[1].split("\n## ", 1)[0]
    listed = {}
    for row in re.findall(r"^\| `([\w.]+)` \| ([^|]*) \|", section, flags=re.MULTILINE):
        package, modules = row
        listed[package] = set(re.findall(r"`(\w+)`", modules.split(";")[0]))
    return listed


def test_the_architecture_lists_every_module_of_every_package():
    roots = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "importlinter"
    ]["root_packages"]
    packages = {}
    for init in (init for root in roots for init in (ROOT / root).rglob("__init__.py")):
        modules = {path.stem for path in init.parent.glob("*.py")} - {"__init__"}
        if modules:
            packages[".".join(init.parent.relative_to(ROOT).parts)] = modules
    assert "profiling" in packages and "engine.agents" in packages
    listed = _modules_listed()
    unlisted = {
        package: sorted(modules - listed.get(package, set()))
        for package, modules in packages.items()
    }
    gone = {
        package: sorted(modules - packages.get(package, set()))
        for package, modules in listed.items()
    }
    assert {package: modules for package, modules in unlisted.items() if modules} == {}, (
        "modules missing from the table"
    )
    assert {package: modules for package, modules in gone.items() if modules} == {}, (
        "modules the table lists that are not there"
    )


def test_the_registrys_defaults_are_written_in_defaults_py_only():
    """Every ``Option(...)`` of engine/agents/modes.py (and of each mode's own options module:
    guided_options.py, pure_options.py, chess0_options.py) takes its default from
    engine.agents.defaults (or a folder from common.paths): a literal there would be a second place
    a default is written."""
    trees = [
        ast.parse((ROOT / "engine" / "agents" / module).read_text(encoding="utf-8"))
        for module in ("modes.py", "guided_options.py", "pure_options.py", "chess0_options.py")
    ]
    calls = [
        node
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Option"
    ]
    assert len(calls) >= 20
    literal = [ast.unparse(call) for call in calls if isinstance(call.args[2], ast.Constant)]
    assert literal == []


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("document", documents(), ids=_name)
def test_every_make_target_file_module_and_option_a_document_names_is_there(document):
    text = document.read_text(encoding="utf-8")
    assert [
        *target_problems(named_targets(text)),
        *path_problems(named_paths(text)),
        *module_problems(named_modules(text)),
        *option_problems(named_options(text)),
    ] == []


def test_the_names_are_found_where_the_docs_write_them():
    """The checks above read what the documents say: a rewrite of the reading that finds nothing is
    noticed."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert {"check", "help", "casebases", "demo"} <= set(named_targets(readme))
    usage = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    assert {"Judge", "Casebase", "Model"} <= set(named_options(usage))
    assert {"data/experts.tsv", "engine/agents/modes.py"} <= set(named_paths(usage))
    assert {"experiments.calibrated", "learn.chooser"} <= set(named_modules(usage))


@pytest.mark.parametrize(
    "document", [*documents()[1:], *sorted((ROOT / "docs" / "results").glob("*.md"))], ids=_name
)
def test_every_link_of_the_docs_reaches_a_file_and_a_heading(document):
    assert link_problems(document.read_text(encoding="utf-8"), document.parent, document.name) == []


def test_the_checks_catch_names_that_are_not_there():
    text = (
        "Run `make nosuchtarget` or `make strength STRENGTH_RUNS=1`, `make"
        " casebases/carlsen-2800.npz`; read `engine/agents/nothing.py`, `docs/strength/*.nothing`"
        " and `data/profiles/ID.jsonl`; run `python -m learn.nothing`; set option `NoSuchOption`"
        " and options `Judge` and `Nothing`, or `setoption name Move Overhead value 10` and"
        " `setoption name Nowhere value 1`."
    )
    assert target_problems(named_targets(text)) == ["make: no target nosuchtarget"]
    assert path_problems(named_paths(text)) == [
        "no file engine/agents/nothing.py",
        "no file matches docs/strength/*.nothing",
    ]
    assert module_problems(named_modules(text)) == ["no module learn.nothing"]
    assert option_problems(named_options(text)) == [
        "no option NoSuchOption",
        "no option Nothing",
        "no option Nowhere",
    ]
    assert link_problems(
        "[a](results/nothing.md) [b](usage.md#nowhere)", ROOT / "docs", "x.md"
    ) == ["no file results/nothing.md", "no heading #nowhere in usage.md"]


def test_results_md_lists_every_dated_study_newest_first_and_links_each_figure_to_one():
    """docs/results.md is today's figures, each with a command and its study's page; docs/results/
    holds the studies, one page each, named by the date it was measured, which its first lines
    say."""
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    listed = re.findall(
        r"^- (\d{4}-\d\d-\d\d): \[[^]]+\]\(results/([\w-]+\.md)\)", text, flags=re.MULTILINE
    )
    pages = sorted(path.name for path in (ROOT / "docs" / "results").glob("*.md"))
    assert sorted(name for _, name in listed) == pages
    assert [date for date, _ in listed] == sorted((date for date, _ in listed), reverse=True)
    for date, name in listed:
        first = (ROOT / "docs" / "results" / name).read_text(encoding="utf-8").splitlines()[:3]
        assert (
            name.startswith(f"{date}-")
            and first[0].startswith("# ")
            and first[2].startswith(f"Measured {date}")
        )
    figures = table(text, "## Today's figures")
    assert figures[0] == ["measured", "result", "command", "page"] and len(figures) > 5
    for measured, result, command, page in figures[1:]:
        assert measured and result and command.startswith("`"), measured
        link = re.fullmatch(r"\[(\d{4}-\d\d-\d\d)\]\(results/([\w-]+\.md)\)", page)
        assert link and link[2] in pages and link[2].startswith(link[1]), page
