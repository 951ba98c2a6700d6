"""What runs on Windows instead of what is POSIX-only (docs/architecture.md, Portability): each
Windows path checked here with the platform patched and the system's calls stood in for, since
Windows cannot be run here; the POSIX path alongside, as it was."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

import common.files as files
import endgame.__main__ as endgame_main
import engine.outside.launch as launch
from parallel import pool


def test_an_outside_engine_is_killed_by_sigkill_and_where_there_is_none_by_terminate_process(
    monkeypatch,
):
    sent = []
    monkeypatch.setattr(launch.os, "kill", lambda pid, sig: sent.append((pid, sig)))
    transport = SimpleNamespace(get_pid=lambda: 4321, close=lambda: None)
    loop = SimpleNamespace(call_soon_threadsafe=lambda f: f())
    launch._kill(transport, loop)  # type: ignore[arg-type]
    monkeypatch.delattr(signal, "SIGKILL")  # Windows: os.kill with SIGTERM is TerminateProcess
    launch._kill(transport, loop)  # type: ignore[arg-type]
    assert sent == [(4321, 9), (4321, signal.SIGTERM)]


def test_a_missing_engine_given_with_windows_slashes_is_said_to_be_a_folder(monkeypatch, tmp_path):
    assert launch._why_not(str(tmp_path)) == " (it is a folder)"
    monkeypatch.setattr(launch.os, "sep", "\\")
    monkeypatch.setattr(launch.os, "altsep", "/")
    assert launch._why_not(str(tmp_path)) == " (it is a folder)"  # C:/engines as well as C:\engines
    assert launch._why_not("stockfish") == ""


def test_on_windows_a_writers_life_is_asked_of_kernel32_never_by_os_kill(monkeypatch):
    # os.kill(pid, 0) there sends Ctrl-C to a process group instead of asking
    monkeypatch.setattr(files.os, "kill", lambda *_: pytest.fail("os.kill on Windows"))
    monkeypatch.setattr(files, "_alive_windows", lambda pid: pid == 12)
    monkeypatch.setattr(sys, "platform", "win32")
    assert files._alive(12) and not files._alive(13)


class Kernel32:
    """kernel32's OpenProcess, GetExitCodeProcess and CloseHandle over a table of processes."""

    def __init__(self, exit_codes: dict[int, int]) -> None:
        self.exit_codes, self.closed = exit_codes, []

    def OpenProcess(self, access: int, inherit: bool, pid: int) -> int:  # noqa: N802 - Windows' names
        assert access == 0x1000 and not inherit
        return pid + 1000 if pid in self.exit_codes else 0

    def GetExitCodeProcess(self, handle: int, code: object) -> int:  # noqa: N802
        code._obj.value = self.exit_codes[handle - 1000]  # type: ignore[attr-defined]
        return 1

    def CloseHandle(self, handle: int) -> int:  # noqa: N802
        self.closed.append(handle)
        return 1


def test_kernel32_says_a_process_runs_while_its_exit_code_is_still_active():
    kernel32 = Kernel32({7: 259, 8: 0})
    assert files._alive_windows(7, kernel32) and not files._alive_windows(8, kernel32)
    assert not files._alive_windows(9, kernel32)  # gone (or another user's): not opened
    assert kernel32.closed == [1007, 1008]
    assert ctypes.byref(ctypes.c_uint32())._obj is not None  # what the stand-in writes through


def test_on_windows_a_temporary_file_still_open_is_left_and_on_posix_the_error_is_raised(
    monkeypatch, tmp_path
):
    target = tmp_path / "x.npz"
    (tmp_path / ".x.npz.99999999.abc.tmp").write_bytes(b"")
    monkeypatch.setattr(files, "_alive", lambda pid: False)

    def refused(self: Path, missing_ok: bool = False) -> None:
        raise PermissionError(13, "in use")

    monkeypatch.setattr(Path, "unlink", refused)
    with pytest.raises(PermissionError):
        files.remove_stale_temporaries(target)
    monkeypatch.setattr(sys, "platform", "win32")
    files.remove_stale_temporaries(target)  # its writer still has it open: left


def test_on_windows_a_rename_over_an_open_file_is_tried_again_and_on_posix_once(
    monkeypatch, tmp_path
):
    calls = []

    def replace(src: str, dst: Path) -> None:
        calls.append(src)
        if len(calls) < 3:
            raise PermissionError(13, "in use")

    monkeypatch.setattr(files.os, "replace", replace)
    monkeypatch.setattr(files.time, "sleep", lambda _: None)
    with pytest.raises(PermissionError):
        files._replace("tmp", tmp_path / "a")
    assert len(calls) == 1
    monkeypatch.setattr(sys, "platform", "win32")
    files._replace("tmp", tmp_path / "a")
    assert len(calls) == 3
    monkeypatch.setattr(files, "REPLACE_SECONDS", 0.0)
    calls.clear()
    with pytest.raises(PermissionError):  # still open at the deadline: the caller hears it
        files._replace("tmp", tmp_path / "a")


def test_an_atomic_file_is_still_written_by_rename(tmp_path):
    files.write_atomic(tmp_path / "f.txt", "one")
    files.write_atomic(tmp_path / "f.txt", "two")
    assert (tmp_path / "f.txt").read_text() == "two" and [p.name for p in tmp_path.iterdir()] == [
        "f.txt"
    ]


def test_a_pool_worker_on_windows_sets_no_signals_and_ends_with_its_parent(monkeypatch):
    # Windows has no SIGALRM, pthread_kill or select on a pipe: the worker waits on its parent's
    # handle
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(
        pool.signal, "signal", lambda *_: pytest.fail("a signal handler set on Windows")
    )
    monkeypatch.setattr(
        pool.signal, "set_wakeup_fd", lambda *_: pytest.fail("a wakeup fd set on Windows")
    )
    ended = threading.Event()
    monkeypatch.setattr(pool.os, "_exit", lambda code: ended.set())
    heard, told = os.pipe()  # the parent's sentinel: ready once the parent has ended
    monkeypatch.setattr(
        pool.multiprocessing, "parent_process", lambda: SimpleNamespace(sentinel=heard)
    )
    made = []
    monkeypatch.setattr(pool, "_worker", None)
    monkeypatch.setattr(
        pool.multiprocessing.util, "Finalize", lambda *args, **kwargs: made.append(args)
    )
    try:
        pool._start(lambda: SimpleNamespace(close=lambda: None), ())
        assert pool._worker is not None and len(made) == 1  # only the worker's close, at the exit
        assert not ended.wait(0.2)
        os.close(told)
        assert ended.wait(10)
    finally:
        os.close(heard)


def test_the_peak_memory_is_read_in_the_unit_of_each_system(monkeypatch):
    import resource

    monkeypatch.setattr(resource, "getrusage", lambda _: SimpleNamespace(ru_maxrss=3 << 20))
    assert endgame_main.peak_memory() == "peak memory 3072 MB"  # Linux: KiB
    monkeypatch.setattr(sys, "platform", "darwin")
    assert endgame_main.peak_memory() == "peak memory 3 MB"  # macOS: bytes
    monkeypatch.setitem(sys.modules, "resource", None)  # Windows: no resource module
    assert endgame_main.peak_memory() == "peak memory not measured"


def test_an_engines_command_keeps_windows_backslashes(monkeypatch):
    from tournament.players import engine_entrant, split_words

    text = r"name=sf cmd='C:\engines\sf.exe --threads 1' elo=1350"
    assert engine_entrant(text).command == (
        "C:enginessf.exe",
        "--threads",
        "1",
    )  # POSIX: a backslash escapes
    monkeypatch.setattr(sys, "platform", "win32")
    assert split_words(text) == ["name=sf", r"cmd=C:\engines\sf.exe --threads 1", "elo=1350"]
    assert engine_entrant(text).command == (r"C:\engines\sf.exe", "--threads", "1")
    # a path with spaces quoted within the quotes
    spaced = r"""name=sf cmd='"C:\Program Files\sf.exe" --uci'"""
    assert engine_entrant(spaced).command == (r"C:\Program Files\sf.exe", "--uci")
