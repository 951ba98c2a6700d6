"""The local worker pool (parallel/pool.py): its workers end with the process that started them."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from uci_helpers import ROOT

pytestmark = pytest.mark.slow  # it starts a pool of processes and kills their parent

SCRIPT = textwrap.dedent('''
    import os, sys, time
    from parallel.pool import unordered_map

    class Slow:
        """Writes its process id, then takes long over each item (a game at a long time control)."""
        def __init__(self, folder):
            open(os.path.join(folder, str(os.getpid())), "w").close()
        def __call__(self, item):
            time.sleep(600)
            return item
        def close(self):
            pass

    if __name__ == "__main__":
        for _ in unordered_map(Slow, (sys.argv[1],), range(4), workers=2):
            pass
''')


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_workers_end_when_their_parent_is_killed(tmp_path):
    # Items of 10 minutes: a worker of a killed parent would finish its item before it noticed
    script = tmp_path / "pool_script.py"
    script.write_text(SCRIPT, encoding="utf-8")
    folder = tmp_path / "pids"
    folder.mkdir()
    parent = subprocess.Popen([sys.executable, str(script), str(folder)])
    try:
        deadline = time.monotonic() + 60
        while len(os.listdir(folder)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = [int(name) for name in os.listdir(folder)]
        assert len(workers) == 2
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 30  # they look every 0.5 s: on however busy a machine
        while any(map(running, workers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(map(running, workers))
    finally:
        parent.kill()
        for pid in [int(name) for name in os.listdir(folder)]:
            if running(pid):
                os.kill(pid, signal.SIGKILL)


REFUSING = textwrap.dedent('''
    import sys
    from parallel.pool import unordered_map

    class Refusing:
        """A worker that cannot be made (a judge that does not start)."""
        def __init__(self):
            raise ValueError("no judge here")

    if __name__ == "__main__":
        try:
            list(unordered_map(Refusing, (), range(4), workers=2))
        except ValueError as exc:
            print(f"raised: {exc}")
''')


def _run(script: Path, text: str) -> subprocess.CompletedProcess[str]:
    """``text`` written to ``script`` and run with the project importable (a minute at most: a hang
    fails)."""
    script.write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_a_worker_that_cannot_be_made_raises_instead_of_being_started_again_forever(tmp_path):
    # a pool's initializer that raises ends its process, and the pool starts another in its place
    done = _run(tmp_path / "refusing.py", REFUSING)
    assert done.returncode == 0 and "raised: no judge here" in done.stdout


SENDING = textwrap.dedent("""
    import multiprocessing, os, signal, threading, time
    from parallel import pool

    class Idle:
        def close(self):
            pass

    def read(queue, received):
        # SIGTERM once the put has begun (its first bytes are in the pipe), then read the rest late
        while not queue._reader.poll():
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)
        received.append(len(queue.get()))

    if __name__ == "__main__":
        pool._start(Idle, ())  # this process made a worker, as a pool's initializer makes it
        queue = multiprocessing.get_context("spawn").SimpleQueue()
        received = []
        reader = threading.Thread(target=read, args=(queue, received))
        reader.start()
        try:
            queue.put(b"x" * (4 << 20))  # more than a pipe holds: the put waits for the reader
            time.sleep(60)
        except SystemExit:
            reader.join(10)
            print("ended after sending", received)
""")


def test_a_terminated_worker_sends_the_result_in_hand_before_it_ends(tmp_path):
    # killed in mid-send, a worker would hold the result queue's lock for ever: Pool.terminate hangs
    # on it
    done = _run(tmp_path / "sending.py", SENDING)
    assert done.returncode == 0 and f"ended after sending [{4 << 20}]" in done.stdout, (
        done.stdout + done.stderr
    )
