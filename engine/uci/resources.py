"""What the UCI engine keeps across games: the casebase (with its error profile beside it), read
again only when either file changes, a shipped one made on its first use; what else the agents load
(:class:`engine.agents.kept.KeptResources`); and the agent made for the options in force."""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from common.paths import FileState, casebase_folder, casebase_path, file_state, in_source_tree
from common.text import clip
from engine.agents.kept import KeptResources
from engine.agents.modes import MODES, SEED_MAX
from engine.agents.options import OptionValue, weights_of

if TYPE_CHECKING:
    from casebase.format import Casebase
    from engine.agents.base import Agent

#: What makes a shipped expert's casebase (and its error profile after it) by the expert's id
#: (``cbr-chess setup ID``, which the engine's layer cannot import: uci_main.py gives it); None once
#: the casebase is there, or why it is not.
Provide = Callable[[str], str | None]
#: How the news of a game's seed starts.
SEED_NEWS = "seed "


class AgentBuilder:
    """The agent for the option values in force, remade when they (or the casebase file) change.

    :attr:`news` collects lines for the user (the casebase played, each game's seed);
    :attr:`problem` says why no casebase is in use, and what the mode does instead.
    """

    def __init__(
        self, say: Callable[[str], None] | None = None, provide: Provide | None = None
    ) -> None:
        """``say`` tells the user a line at once (not with the next command's answer, as
        :attr:`news` does); ``provide``, where given, makes an installed engine's missing shipped
        casebase on its first use."""
        self.news: list[str] = []
        # a line said at once where nobody listens goes with the next answer (the news in force)
        self._say = say if say is not None else self._tell
        self._provide = provide
        #: The shipped experts made (or tried) in this session, and why each failed, if it did.
        self._provided: dict[str, str | None] = {}
        self.problem: str | None = None
        #: Also tell how long loading took.
        self.debug = False
        self._agent: Agent | None = None
        self._key: tuple[object, ...] | None = None
        # the state of both files
        self._casebase: tuple[FileState, Casebase | None, str] | None = None
        #: What the agents load besides the casebase, kept across them.
        self.resources = KeptResources(self._tell)
        self._seed: int | None = None

    def agent(self, values: Mapping[str, OptionValue]) -> Agent:
        """The agent for ``values``; a new one starts from the game's seed, as at a new game.
        Where the endgame tables cover the position, it plays their move."""
        from casebase.profilefile import profile_path
        from engine.agents.factory import agent_of, agent_settings

        # before the files are looked at: said made, they are played
        self.news += self.resources.news()
        # the protocol's options are no part of them: no agent remade
        common, own = agent_settings(values)
        path = casebase_path(common.casebase)  # a bare name is a casebase of the casebase folder
        mode = MODES[common.mode]
        if mode.casebase:
            self._make_shipped(path)
        key = (
            common,
            own,
            file_state(path),
            file_state(str(profile_path(path))),
            *map(file_state, own.files(path)),
        )
        if self._agent is None or key != self._key:
            casebase = self._load(path) if mode.casebase else None
            self.resources.begin()
            agent = agent_of(common, own, casebase, self.resources)
            self.resources.end()
            if self._seed is None or common.seed:
                self._new_seed(common.seed)
            agent.new_game(self._seed)
            said = [f"{o.name} {clip(str(values[o.name]))}" for o in mode.options]
            if casebase is not None:
                elo = f", median Elo {casebase.elo}" if casebase.elo else ""
                self.news.append(
                    f"{common.mode} mode: casebase {casebase.expert} ({len(casebase)} cases{elo}),"
                    f" weights {weights_of(values)}" + "".join(f", {s}" for s in said)
                )
            elif not mode.casebase:
                self.news.append(f"{common.mode} mode: " + ", ".join(said))
            self._agent, self._key = agent, key
        problems = []
        if mode.casebase and self._casebase is not None and self._casebase[2]:
            instead = (
                "the style model proposes alone"
                if self.resources.model_in_use()
                else mode.without_casebase
            )
            problems.append(f"{self._casebase[2]}; {instead}")
        if (model_problem := self.resources.model_problem()) is not None:
            problems.append(f"{model_problem}; the cases propose alone")
        self.problem = "\n".join(problems) or None
        return self._agent

    def _tell(self, line: str) -> None:
        """Tell the user ``line`` with the next command's answer (the news in force: a new game's
        seed replaces the list)."""
        self.news.append(line)

    def close(self) -> None:
        """Quit the judge process, if one runs (at the end of the session, or when no longer
        wanted)."""
        self.resources.close()

    def new_game(self, seed: int) -> None:
        """A new game: a new seed (unless option Seed, ``seed``, fixes it), given to the agent if
        there is one."""
        self._new_seed(seed)
        if self._agent is not None:
            self._agent.new_game(self._seed)

    def _new_seed(self, fixed: int) -> None:
        self._seed = fixed or secrets.randbelow(SEED_MAX) + 1
        # one seed a game: a seed not yet told (an agent made at isready, then ucinewgame) is
        # replaced, not told beside the new one
        self.news = [line for line in self.news if not line.startswith(SEED_NEWS)]
        if not fixed:
            self.news.append(
                f"{SEED_NEWS}{self._seed} for this game (set option Seed to it to replay)"
            )

    def _make_shipped(self, path: str) -> None:
        """An installed engine asked for a shipped expert by name whose casebase is not made yet:
        make it (and its profile) now, once a session, saying so first (a clone keeps ``make
        casebases``)."""
        from casebase.shipped import shipped_name

        # False, not OSError, for a path too long
        if self._provide is None or in_source_tree() or os.path.exists(path):
            return
        name = shipped_name(path, casebase_folder())
        if name is None or name in self._provided:
            return
        self._say(
            f"{name}: its casebase is not made yet: making it from the shipped games, once, into"
            f" {casebase_folder()} (seconds; `cbr-chess setup` makes every shipped expert ahead)"
        )
        started = time.perf_counter()
        self._provided[name] = failure = self._provide(name)
        if failure is None:
            self._say(
                f"{name}: casebase made in {time.perf_counter() - started:.0f} s; its error profile"
                " is being fitted in the background (half a minute), and taken at the first"
                " isready or go after it"
            )

    def _load(self, path: str) -> Casebase | None:
        """The casebase at ``path`` with its error profile, read again only when either file
        changed; None with a reason. A casebase holding its profile inside is said to be split, once
        a reading."""
        from casebase.format import Casebase, CasebaseError
        from casebase.profilefile import profile_path

        state = (*file_state(path), *file_state(str(profile_path(path))))
        if self._casebase is not None and self._casebase[0] == state:
            return self._casebase[1]
        casebase, problem = None, ""
        if not path:
            problem = "no casebase set (option Casebase)"
        else:
            started = time.perf_counter()
            try:
                casebase = Casebase.load(path, tell=False)
            except CasebaseError as exc:
                problem = f"cannot load casebase: {clip(str(exc))}"
                # False, not OSError, for a path too long
                if Path(path).parent == casebase_folder() and not os.path.exists(path):
                    problem += self._missing(path)
            else:
                if self.debug:
                    self.news.append(f"loaded {path} in {time.perf_counter() - started:.2f} s")
                if casebase.profile_notice is not None:
                    self.news.append(casebase.profile_notice)
        self._casebase = (state, casebase, problem)
        return casebase

    def _missing(self, path: str) -> str:
        """How to make the missing casebase ``path`` of the casebase folder, in words."""
        from casebase.shipped import shipped_name

        if in_source_tree():
            return " (build the shipped casebases with `make casebases`)"
        name = shipped_name(path, casebase_folder())
        if name is None:
            return (
                " (build it with `python -m casebase build GAMES.pgn --player NAME -o"
                f" {Path(path).stem}`)"
            )
        failure = self._provided.get(name)
        return (
            f" ({failure}; make it with `cbr-chess setup {name}`)"
            if failure
            else f" (make it with `cbr-chess setup {name}`)"
        )
