"""What a mode loads besides the casebase, kept across the agents of a session (the UCI engine's):
the style model, the chooser, the judge process, the endgame tables and the learned similarity's
embeddings made in the background, each read or started again only when its file or settings change;
what cannot be loaded is told to the user (:class:`engine.agents.modes.Resources`), and the mode
plays without it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from common.paths import FileState, file_state
from common.text import clip
from engine.agents.embedding import BackgroundEmbeddings

if TYPE_CHECKING:
    from casebase.format import Casebase
    from endgame.syzygy import SyzygyTables
    from endgame.tablebase import Tablebase
    from engine.outside.judge import Judge
    from engine.strength.chooser import Chooser
    from engine.style.loader import PriorModel


class KeptResources:
    """The :class:`~engine.agents.modes.Resources` of a session: each thing loaded once and kept
    while its file (or, for the judge, its settings) stays the same; ``tell`` tells the user a
    line."""

    def __init__(self, tell: Callable[[str], None]) -> None:
        self.tell = tell
        self._model: tuple[FileState, PriorModel | None, str] | None = None
        self._chooser: tuple[FileState, Chooser | None] | None = None
        self._judge: Judge | None = None
        self._tablebase: Tablebase | None = None
        self._syzygy: SyzygyTables | None = None
        self._embeddings = BackgroundEmbeddings()
        #: Whether the agent being made asked for the model, the judge (:meth:`begin`).
        self.used_model = False
        self.used_judge = False

    def begin(self) -> None:
        """An agent is about to be made: what it asks for is counted afresh (:meth:`end`)."""
        self.used_model = self.used_judge = False

    def end(self) -> None:
        """The agent is made: a judge it did not ask for is quit."""
        if not self.used_judge:
            self.close()

    def news(self) -> list[str]:
        """What the embeddings' background jobs have to say since last asked (made, failed)."""
        return self._embeddings.news()

    def model_problem(self) -> str | None:
        """Why the model the agent in use asked for could not be loaded; None where it was, or was
        not asked."""
        if not self.used_model or self._model is None:
            return None
        return self._model[2] or None

    def model_in_use(self) -> bool:
        """Whether the agent in use asked for a model and has it."""
        return self.used_model and self._model is not None and self._model[1] is not None

    def model(self, path: str) -> PriorModel | None:
        """The style model at ``path``, read again only when the file changed; None with a
        reason."""
        from engine.style.loader import load_model
        from engine.style.model import ModelError

        self.used_model = True
        state = file_state(path)
        if self._model is not None and self._model[0] == state:
            return self._model[1]
        model, problem = None, ""
        try:
            model = load_model(path)
        except ModelError as exc:
            problem = f"cannot load model: {clip(str(exc))}"
        self._model = (state, model, problem)
        return model

    def chooser(self, setting: str) -> Chooser | None:
        """The chooser option Chooser names, read again only when its file changed; None for none,
        or for a file that cannot be read (told why: the error model chooses)."""
        from engine.strength.chooser import Chooser, ChooserError, chooser_path

        path = chooser_path(setting)
        if path is None:
            return None
        state = file_state(str(path))
        if self._chooser is None or self._chooser[0] != state:
            chooser = None
            try:
                chooser = Chooser.load(path)
            except ChooserError as exc:
                self.tell(
                    f"cannot load the chooser: {clip(str(exc))}; the error model chooses"
                    " (Selection likely its likeliest move, calibrated its draw)"
                )
            self._chooser = (state, chooser)
        return self._chooser[1]

    def embed(self, casebase: Casebase, network: Path) -> bool:
        """Whether the missing embeddings of ``casebase`` by ``network`` are being made in the
        background: a job started at the first ask of the session (said), and watched
        (:class:`BackgroundEmbeddings`)."""
        making, said = self._embeddings.start(casebase, network)
        if said is not None:
            self.tell(said)
        return making

    def judge(self, command: str, threads: int, hash_mb: int) -> Judge:
        """The judge process for these settings: the running one, or a new one (the old one quit),
        which starts on a thread of its own: nothing here waits for it. Its moves tell whether it
        started (engine/outside/judge.py)."""
        from engine.outside.judge import Judge, JudgeSettings

        self.used_judge = True
        settings = JudgeSettings(command, threads, hash_mb)
        if self._judge is not None and self._judge.settings == settings:
            return self._judge
        self.close()
        self._judge = Judge(settings)
        self._judge.begin()
        self.tell(f"judge: {clip(command)}, threads {threads}, hash {hash_mb} MB")
        return self._judge

    def tablebase(self, folder: str) -> Tablebase | None:
        """The tables of ``folder``, kept while the folder stays the same; None when it is empty."""
        from endgame.tablebase import Tablebase

        if not folder:
            return None
        if self._tablebase is None or str(self._tablebase.folder) != folder:
            try:
                # at isready, not in the middle of a move on the clock
                self._tablebase = Tablebase.prepared(folder)
            except (OSError, ValueError) as exc:  # a path the system refuses (too long, a NUL byte)
                self._tablebase = None
                self.tell(
                    f"Tables: cannot use {clip(folder)!r} ({clip(str(exc))}); playing without our"
                    " tables"
                )
        return self._tablebase

    def syzygy(self, path: str) -> SyzygyTables | None:
        """The Syzygy tables of ``path``, kept while the path stays the same; None when it is
        empty."""
        from endgame.syzygy import SyzygyTables

        if not path:
            return None
        if self._syzygy is None or self._syzygy.path != path:
            self._syzygy = SyzygyTables(path)
        return self._syzygy

    def close(self) -> None:
        """Quit the judge process, if one runs (at the end of the session, or when no longer
        wanted)."""
        if self._judge is not None:
            self._judge.close()
            self._judge = None
