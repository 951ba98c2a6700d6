"""README.md is a newcomer's page: short, and every command in it real. Each ``make`` target is the
Makefile's, each program's flags are in its own ``--help`` (with the README's arguments before
``--help``, so that a bad choice or number is refused too), each engine option is the registry's,
each file it names is in the repository, each link reaches a file and a heading, and its table of
figures is docs/results.md's."""

from __future__ import annotations

import contextlib
import importlib
import io
import re
import shlex
import subprocess
from collections.abc import Callable, Sequence

from docs_helpers import link_problems, table, target_problems
from uci_helpers import ROOT

import uci_main
from engine.agents.modes import option_registry

README = ROOT / "README.md"
#: How long the page may grow (issue #52): a newcomer reads it in one sitting.
MAX_LINES = 300
#: The README's program names: the venv's, as a clone's newcomer types them.
ENGINE = ".venv/bin/cbr-chess"
PYTHON = ".venv/bin/python"


def commands(text: str) -> list[list[str]]:
    """The commands of the ```sh blocks of ``text``, each split as the shell would (continuation
    lines joined, comments dropped)."""
    found = []
    for block in re.findall(r"^ *```sh\n(.*?)^ *```", text, flags=re.MULTILINE | re.DOTALL):
        for line in re.sub(r"\\\n", " ", block).splitlines():
            words = shlex.split(line, comments=True)
            if words:
                found.append(words)
    return found


def _help(run: Callable[[list[str]], object], args: Sequence[str]) -> tuple[int | str | None, str]:
    """Run a command line's parser on ``args`` then ``--help``, in this process: its exit code
    and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            run([*args, "--help"])
        except SystemExit as exit_:
            return exit_.code, out.getvalue()
    return "no exit", out.getvalue()


def _run_module(module: str) -> Callable[[list[str]], object]:
    """What ``python -m module ARGS`` runs: its ``__main__``'s ``main(ARGS)`` (each package's
    ``__main__`` ends in ``sys.exit(main())``)."""
    return importlib.import_module(f"{module}.__main__").main


def _flag_problems(
    program: str, run: Callable[[list[str]], object], args: Sequence[str]
) -> list[str]:
    code, text = _help(run, args)
    if code != 0:
        return [f"{program} {' '.join(args)}: refused ({code}): {text.strip()[-300:]}"]
    flags = [arg.split("=", 1)[0] for arg in args if arg.startswith("-")]
    return [
        f"{program}: no flag {flag}"
        for flag in flags
        if not re.search(rf"(?<![\w-]){flag}(?![\w-])", text)
    ]


def _path_problems(words: Sequence[str]) -> list[str]:
    """The repository's files a command names: a shipped expert's PGN, or the casebase built from
    one."""
    problems = []
    for word in words:
        path = word.split("=", 1)[-1].removeprefix("ENGINE/")
        if path.startswith("data/") and not (ROOT / path).exists():
            problems.append(f"no file {path}")
        name = re.fullmatch(r"casebases/([\w-]+)\.npz", path)
        if name and not (ROOT / "data" / "experts" / f"{name[1]}.pgn").exists():
            problems.append(f"no shipped expert for {path}")
    return problems


def _cutechess_problems(words: Sequence[str]) -> list[str]:
    """cutechess-cli's engines: our engine's command with its arguments, and options of the
    registry."""
    options = {option.name for option in option_registry()}
    problems = [
        f"cutechess-cli: no option {word}"
        for word in words
        if word.startswith("option.") and word[len("option.") :].split("=", 1)[0] not in options
    ]
    engines = " ".join(words).split("-engine ")[1:]
    for engine in engines:
        fields = engine.split()
        if f"cmd=ENGINE/{ENGINE}" not in fields:
            problems.append(f"cutechess-cli: an engine that is not {ENGINE}: {engine}")
        args = [field.removeprefix("arg=") for field in fields if field.startswith("arg=")]
        problems += _flag_problems(
            ENGINE, uci_main.main, [arg.removeprefix("ENGINE/") for arg in args]
        )
    return problems if engines else ["cutechess-cli: no -engine"]


def command_problems(words: Sequence[str]) -> list[str]:
    """What is wrong with one of the README's commands (nothing: an empty list)."""
    program, args = words[0], list(words[1:])
    problems = _path_problems(args)
    if program == "make":
        problems += target_problems(
            arg for arg in args if "=" not in arg and not arg.startswith("-")
        )
    elif program == ENGINE:
        problems += _flag_problems(program, uci_main.main, args)
    elif program == PYTHON and args[:1] == ["-m"]:
        problems += _flag_problems(f"{program} -m {args[1]}", _run_module(args[1]), args[2:])
    elif program == "cutechess-cli":
        problems += _cutechess_problems(args)
    else:
        problems.append(f"a program no test checks: {program}")
    return problems


def option_table_problems(text: str) -> list[str]:
    """The README's short table of options: each name the registry's, each flag the engine's."""
    options = {option.name for option in option_registry()}
    rows = re.findall(r"^\| (`[A-Z]\w*`(?:, `\w+`)*) \| ([^|]*) \|", text, flags=re.MULTILINE)
    problems = [
        f"no option {name}"
        for names, _ in rows
        for name in re.findall(r"`(\w+)`", names)
        if name not in options
    ]
    flags = [flag for _, cell in rows for flag in re.findall(r"`(--[\w-]+)`", cell)]
    _, engine_help = _help(uci_main.main, [])
    problems += [f"{ENGINE}: no flag {flag}" for flag in flags if flag not in engine_help]
    return problems if rows else ["no table of options"]


def test_the_readme_is_a_page_read_in_one_sitting():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_every_command_of_the_readme_names_a_real_target_program_and_flags():
    found = commands(README.read_text(encoding="utf-8"))
    # the two commands, the engine in a GUI, a player's engine from a PGN: a rewrite that drops them
    # is noticed
    for expected in (["make", "demo"], ["make", "test"], ["make", "web"], [ENGINE, "--help"]):
        assert expected in found
    assert any(words[:2] == [ENGINE, "new"] for words in found)
    assert any(words[0] == "cutechess-cli" for words in found)
    assert {repr(words): problems for words in found if (problems := command_problems(words))} == {}


def test_the_readmes_options_and_links_are_real():
    text = README.read_text(encoding="utf-8")
    assert option_table_problems(text) == []
    assert link_problems(text) == []


def test_the_readmes_figures_are_results_mds_row_for_row():
    """README's "How well it does" is the first two columns of docs/results.md's "Today's figures",
    in its order: a figure changed in one and not the other fails here."""
    figures = table(
        (ROOT / "docs" / "results.md").read_text(encoding="utf-8"), "## Today's figures"
    )
    shown = table(README.read_text(encoding="utf-8"), "## How well it does")
    assert figures[0] == ["measured", "result", "command", "page"] and len(figures) > 5
    assert shown == [row[:2] for row in figures]


def test_the_readmes_times_are_testing_mds_and_name_no_other_count():
    """README's "How long it takes" is docs/testing.md's table of the tiers' times, one run's
    figures in one place: a time or a count of tests changed in one and not the other fails here,
    and so does a count of tests in either section that the table does not give."""
    testing = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    readme = README.read_text(encoding="utf-8")
    times = table(testing, "## How long it takes")
    assert times[0][0] == "command" and len(times) > 3
    assert table(readme, "## How long it takes") == times
    counts = set(re.findall(r"\b\d[\d,]* (?:tests|passed|skipped)\b", " ".join(map(str, times))))
    for text in (readme, testing):
        section = text.split("\n## How long it takes\n", 1)[1].split("\n## ", 1)[0]
        assert set(re.findall(r"\b\d[\d,]* (?:tests|passed|skipped)\b", section)) <= counts


def test_the_checks_catch_what_is_not_there():
    """The checks above fail on a target, a flag, an option, a file or a link that is not there."""
    assert command_problems(["make", "no-such-target"]) == ["make: no target no-such-target"]
    assert command_problems([ENGINE, "--no-such-flag"]) == [f"{ENGINE}: no flag --no-such-flag"]
    assert command_problems([ENGINE, "--mode", "no-such-mode"])[0].startswith(
        f"{ENGINE} --mode no-such-mode: refused"
    )
    assert command_problems([PYTHON, "-m", "casebase", "build", "x.pgn", "--no-such-flag"]) == [
        f"{PYTHON} -m casebase: no flag --no-such-flag"
    ]
    assert command_problems([PYTHON, "-m", "casebase", "no-such-command"])[0].startswith(
        f"{PYTHON} -m casebase no-such-command: refused (2)"
    )
    assert command_problems([ENGINE, "--casebase", "casebases/nobody-1000.npz"]) == [
        "no shipped expert for casebases/nobody-1000.npz"
    ]
    assert command_problems(
        [
            "cutechess-cli",
            "-engine",
            f"cmd=ENGINE/{ENGINE}",
            "proto=uci",
            "-each",
            "option.NoSuchOption=1",
        ]
    ) == ["cutechess-cli: no option option.NoSuchOption=1"]
    assert command_problems(["rm", "-rf", "/"]) == ["a program no test checks: rm"]
    assert option_table_problems("| `NoSuchOption` | `--casebase` | x |\n") == [
        "no option NoSuchOption"
    ]
    assert option_table_problems("| `Seed` | `--no-such-flag` | x |\n") == [
        f"{ENGINE}: no flag --no-such-flag"
    ]
    assert link_problems(
        "[a](docs/nothing.md) [b](docs/usage.md#nothing) [c](#nowhere) [d](docs/usage.md#options)"
    ) == [
        "no file docs/nothing.md",
        "no heading #nothing in docs/usage.md",
        "no heading #nowhere in README.md",
    ]


def test_make_demo_builds_only_the_two_casebases_it_plays():
    """The README's first command: the install, the two casebases the demo plays and the game; not
    the other experts' casebases nor any profile (a minute of the 90 s issue #52 gives it)."""
    made = subprocess.run(
        ["make", "-n", "-B", "demo"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    built = re.findall(r"-m casebase build data/experts/([\w-]+)\.pgn", made)
    assert sorted(built) == ["carlsen-2800", "ivanchuk-2700"]
    assert "-m profiling" not in made
    assert re.search(
        r"-m tournament demo --white casebases/carlsen-2800\.npz --black"
        r" casebases/ivanchuk-2700\.npz$",
        made,
        flags=re.MULTILINE,
    )
