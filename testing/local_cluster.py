"""A Ray cluster of several nodes on this machine, inside a network namespace of its own, for a
command.

    python -m testing.local_cluster [--nodes 2] [--cpus 1] -- COMMAND [ARG ...]

Ray binds to the machine's interface address even when told 127.0.0.1, so the cluster runs in
a new network namespace that holds only the loopback device (``unshare -n``; needs root or user
namespaces), where 127.0.0.1 is all Ray can use and nothing leaves the machine. A head and
``--nodes - 1`` more nodes start with ``ray start --block``, each in a session of its own (which
holds all its processes: raylet, workers and what they start) and with ``--cpus`` CPUs; then
COMMAND runs with ``RAY_ADDRESS`` set to the head and ``CBR_CLUSTER_NODES`` to the sessions of the
nodes after the head (space-separated), so that it can kill one (``pkill -KILL -s SESSION``).
Every node is stopped afterwards; the exit status is the command's, or 3 (the reason on stderr)
where no network namespace can be made here.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INSIDE = "CBR_IN_NETNS"
NO_NAMESPACE = 3
PORT = 6380


def _ray_cli() -> str:
    found = Path(sys.executable).with_name("ray")
    if not found.exists():
        raise SystemExit("local_cluster: Ray is not installed here: pip install -e '.[cluster]'")
    return str(found)


def _enter_namespace(argv: list[str]) -> int:
    """Run this script again inside a new network namespace; its exit status."""
    unshare = shutil.which("unshare")
    if unshare is None:
        print("local_cluster: no unshare command here (util-linux)", file=sys.stderr)
        return NO_NAMESPACE
    probe = subprocess.run([unshare, "-n", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(
            f"local_cluster: cannot make a network namespace here ({probe.stderr.strip()})",
            file=sys.stderr,
        )
        return NO_NAMESPACE
    return subprocess.run(
        [unshare, "-n", sys.executable, __file__, *argv], env={**os.environ, INSIDE: "1"}
    ).returncode


def _start(command: list[str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def _wait_for_nodes(address: str, nodes: int, timeout: float = 120.0) -> None:
    import ray

    deadline = time.monotonic() + timeout
    while True:
        try:
            ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
            break
        except (ConnectionError, RuntimeError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    try:
        while sum(n["Alive"] for n in ray.nodes()) < nodes:
            if time.monotonic() > deadline:
                raise SystemExit(
                    f"local_cluster: {nodes} nodes did not all start in {timeout:.0f} s"
                )
            time.sleep(0.5)
    finally:
        ray.shutdown()


def _stop(node: subprocess.Popen[bytes]) -> None:
    """End every process of the node's session: ``ray start`` first (it stops its node), then the
    rest."""
    node.send_signal(signal.SIGTERM)
    try:
        node.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass
    subprocess.run(["pkill", "-KILL", "-s", str(node.pid)], check=False)
    node.wait()


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m testing.local_cluster",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--nodes", type=int, default=2, help="nodes, the head included (default 2)")
    parser.add_argument("--cpus", type=int, default=1, help="CPUs each node offers (default 1)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG ...]")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or args.nodes < 1 or args.cpus < 1:
        parser.error("give --nodes and --cpus of at least 1, and a command after --")
    if os.environ.get(INSIDE) != "1":
        return _enter_namespace(sys.argv[1:])
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    ray = _ray_cli()
    address = f"127.0.0.1:{PORT}"
    # short: Ray's socket paths must fit 107 bytes
    temp = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))
    common = [
        "--block",
        "--node-ip-address",
        "127.0.0.1",
        "--num-cpus",
        str(args.cpus),
        "--disable-usage-stats",
    ]
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    # A node killed is found dead within a few seconds rather than Ray's 15 (5 checks 3 s apart): on
    # one machine no network is slow, and 2 s is room for a busy machine's raylet to answer.
    os.environ.update(
        {
            "RAY_health_check_period_ms": "500",
            "RAY_health_check_timeout_ms": "2000",
            "RAY_health_check_failure_threshold": "3",
        }
    )
    nodes = [
        _start(
            [
                ray,
                "start",
                "--head",
                "--port",
                str(PORT),
                "--temp-dir",
                str(temp),
                "--include-dashboard",
                "false",
                *common,
            ],
            temp / "head.log",
        )
    ]
    try:
        _wait_for_nodes(address, 1)
        for k in range(1, args.nodes):
            nodes.append(
                _start([ray, "start", "--address", address, *common], temp / f"node{k}.log")
            )
        _wait_for_nodes(address, args.nodes)
        env = {
            **os.environ,
            "RAY_ADDRESS": address,
            "CBR_CLUSTER_NODES": " ".join(str(n.pid) for n in nodes[1:]),
        }
        return subprocess.run(command, env=env).returncode
    finally:
        for node in reversed(nodes):
            _stop(node)
        shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
