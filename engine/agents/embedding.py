"""The learned similarity's embeddings made on their first use (issue #68), as a shipped expert's
casebase is: pure mode's ``Similarity learned`` on a casebase without ``X.embed.npz`` has ``python
-m casebase embed --missing`` make them in a process of its own (nothing on the engine's stdout; on
every core but one, which the game keeps), while the shallow similarity plays. The engine says so
once; then, once, that they are made (the agent is remade at the next ``isready`` or ``go``: it
watches the file), or that the job failed, or that another process (a second engine) is making them.
Nothing waits for the job: ``quit`` leaves it to finish, and the next session finds them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal

from common.paths import casebase_folder, in_source_tree
from common.text import clip

if TYPE_CHECKING:
    from casebase.format import Casebase


@dataclass
class _Job:
    """A job making a casebase's embeddings, and whether its end was said."""

    casebase: Path
    process: subprocess.Popen[bytes]
    errors: IO[bytes]  # its stderr: why it failed, if it does
    started: float
    #: What was said of its end: nothing yet; that another process makes them (then the file is
    #: watched); made; failed.
    said: Literal["", "another", "made", "failed"] = ""

    @property
    def name(self) -> str:
        return self.casebase.name


class BackgroundEmbeddings:
    """A session's jobs making embeddings, one a casebase, started at most once a session each."""

    def __init__(self) -> None:
        self._jobs: dict[Path, _Job] = {}

    def start(self, casebase: Casebase, network: Path) -> tuple[bool, str | None]:
        """Whether the embeddings of ``casebase`` by ``network`` are being made (not where a job of
        this session failed), and what to tell: the job started now, said; None where one was
        started before."""
        from casebase.embeddings import embedding_seconds, embeddings_path

        assert casebase.path is not None
        path = Path(casebase.path).resolve()
        job = self._jobs.get(path)
        if job is not None and not (job.said == "made" and not embeddings_path(path).exists()):
            return job.said != "failed", None
        workers = max(1, (os.cpu_count() or 1) - 1)
        errors = tempfile.TemporaryFile()
        # where the packages are: the job imports casebase
        root = str(Path(__file__).resolve().parents[2])
        environment = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH")))),
        )
        try:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "casebase",
                    "embed",
                    str(path),
                    "--network",
                    str(network),
                    "--workers",
                    str(workers),
                    "--missing",
                    "--quiet",
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=errors,
                env=environment,
            )
        # no process to be had: said, and the learned similarity says why it cannot play
        except OSError as exc:
            errors.close()
            return (
                False,
                f"cannot make the embeddings of {path.name} in the background ({clip(str(exc))})",
            )
        self._jobs[path] = _Job(path, process, errors, time.monotonic())
        seconds = embedding_seconds(len(casebase), workers)
        return True, (
            f"making the embeddings of {path.name} for the learned similarity in the background"
            f" (about {seconds:.0f} s on {workers} process{'es' if workers > 1 else ''};"
            f" {_ahead(path, network)}); the shallow similarity plays until they are there"
        )

    def news(self) -> list[str]:
        """What the jobs' ends have to say, each once: made, failed, or being made by another
        process."""
        from casebase.embeddings import embeddings_path

        said = []
        for job in self._jobs.values():
            if job.said in ("made", "failed"):
                continue
            ended = job.process.poll()
            if embeddings_path(job.casebase).exists():  # written whole (atomically), so playable
                job.said = "made"
                said.append(
                    f"the embeddings of {job.name} are made ({time.monotonic() - job.started:.0f}"
                    " s): Similarity learned plays with them"
                )
            elif ended == 0 and not job.said:  # it ended well without them: it found the lock held
                job.said = "another"
                said.append(
                    f"another process is making the embeddings of {job.name}; the shallow"
                    " similarity plays until they are there"
                )
            elif ended is not None and not job.said:
                job.said = "failed"
                said.append(
                    f"making the embeddings of {job.name} failed ({_why(job.errors, ended)}); the"
                    " shallow similarity plays on"
                )
            if job.said and not job.errors.closed:
                job.errors.close()
        return said


def _ahead(casebase: Path, network: Path) -> str:
    """How to make the embeddings of ``casebase`` ahead, in words."""
    from casebase.shipped import shipped_name

    name = shipped_name(casebase, casebase_folder().resolve())
    command = (
        ("make embeddings" if in_source_tree() else f"cbr-chess setup {name} --embed")
        if name is not None
        else f"python -m casebase embed {casebase} --network {network}"
    )
    return f"`{command}` makes them ahead"


def _why(errors: IO[bytes], status: int) -> str:
    """A failed job's last line on stderr, else its exit status."""
    errors.seek(0)
    lines = [
        line.strip() for line in errors.read().decode(errors="replace").splitlines() if line.strip()
    ]
    return clip(lines[-1]) if lines else f"exit status {status}"
