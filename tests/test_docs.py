"""Docs that cannot go stale: the options table of docs/usage.md is the option
registry's, docs/architecture.md's table of packages lists every module, and the registry's
defaults are written in engine/agents/defaults.py only."""

from __future__ import annotations

import ast
import re
import tomllib

import pytest
from uci_helpers import ROOT

from engine.agents import optiontable
from engine.agents.modes import option_registry


@pytest.mark.parametrize("name", optiontable.DOCUMENTS)
def test_the_options_table_is_the_registrys(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    made = optiontable.table(option_registry())
    assert optiontable.with_table(text, made) == text, f"{name}'s options table is stale: run make docs"
    assert made.count("\n| `") == len(option_registry().options)


def test_every_option_says_what_it_does():
    assert [option.name for option in option_registry() if not option.doc.strip()] == []


def test_the_generator_rewrites_only_between_the_markers_and_refuses_a_document_without_them():
    text = f"# Title\n\nbefore\n{optiontable.BEGIN}\n| old | table |\n{optiontable.END}\nafter\n"
    made = optiontable.with_table(text, "| new |\n")
    assert made == f"# Title\n\nbefore\n{optiontable.BEGIN}\n| new |\n{optiontable.END}\nafter\n"
    assert optiontable.with_table(made, "| new |\n") == made
    for broken in ("no markers", f"{optiontable.END}\n{optiontable.BEGIN}", f"{optiontable.BEGIN}{optiontable.BEGIN}"
                   f"{optiontable.END}"):
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
    roots = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["root_packages"]
    packages = {}
    for init in (init for root in roots for init in (ROOT / root).rglob("__init__.py")):
        modules = {path.stem for path in init.parent.glob("*.py")} - {"__init__"}
        if modules:
            packages[".".join(init.parent.relative_to(ROOT).parts)] = modules
    assert "profiling" in packages and "engine.agents" in packages
    listed = _modules_listed()
    unlisted = {package: sorted(modules - listed.get(package, set())) for package, modules in packages.items()}
    gone = {package: sorted(modules - packages.get(package, set())) for package, modules in listed.items()}
    assert {package: modules for package, modules in unlisted.items() if modules} == {}, "modules missing from the table"
    assert {package: modules for package, modules in gone.items() if modules} == {}, "modules the table lists that are not there"


def test_the_registrys_defaults_are_written_in_defaults_py_only():
    """Every ``Option(...)`` of engine/agents/modes.py takes its default from engine.agents.defaults
    (or a folder from common.paths): a literal there would be a second place a default is written."""
    tree = ast.parse((ROOT / "engine" / "agents" / "modes.py").read_text(encoding="utf-8"))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Option"]
    assert len(calls) >= 20
    literal = [ast.unparse(call) for call in calls if isinstance(call.args[2], ast.Constant)]
    assert literal == []
