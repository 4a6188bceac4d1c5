"""A real Ray cluster of two nodes on this machine, for the tests of ``--backend ray``.

``ray start --head`` and ``ray start --address=HEAD`` each start their own raylet (a
node: its own object store, worker processes and temporary folder), as two machines
would; both listen on 127.0.0.1, each with its own ports and one CPU, no dashboard.
Each ``ray start`` runs in a session of its own: the processes it leaves behind (GCS,
raylet, agents, the workers the raylet starts) keep its process group, and
:meth:`RayCluster.stop` ends exactly those groups and their descendants (``ray stop``
would end every Ray process of this user on the machine).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from server_support import BOUND, free_port, wait_for

RAY = str(Path(sys.executable).parent / "ray")
#: what a node is given besides this process's environment: no usage statistics sent
ENV = {"RAY_USAGE_STATS_ENABLED": "0"}

ALIVE = """
import sys, ray
ray.init(address=sys.argv[1], log_to_driver=False, configure_logging=False)
print(sum(1 for n in ray.nodes() if n["Alive"]))
"""


def node_ports() -> list[str]:
    """The ports a node binds besides the head's GCS port: free ones, chosen now, so that
    two nodes on one host never ask for the same (workers get ports from the system)."""
    options = ("--node-manager-port", "--object-manager-port", "--runtime-env-agent-port",
               "--dashboard-agent-grpc-port", "--dashboard-agent-listen-port",
               "--metrics-export-port")
    return [f"{option}={free_port()}" for option in options] + [
        "--min-worker-port=0", "--max-worker-port=0"]


class RayCluster:
    """A head node and ``workers`` worker nodes, one CPU each; ``address`` is the head's."""

    def __init__(self, workers: int = 1):
        self.root = Path(tempfile.mkdtemp(prefix="lcray-"))  # short: Ray's socket paths
        self.groups: list[int] = []
        self.address = f"127.0.0.1:{free_port()}"
        self.env = {**os.environ, **ENV}
        self.env.pop("RAY_ADDRESS", None)
        try:
            self._start("head", "--head", f"--port={self.address.rsplit(':', 1)[1]}",
                        "--include-dashboard=false", f"--dashboard-port={free_port()}")
            for n in range(workers):
                self._start(f"node{n + 1}", f"--address={self.address}")
            wait_for(lambda: self.alive() == workers + 1, f"{workers + 1} Ray nodes alive")
        except BaseException:
            self.stop()
            raise

    def _start(self, name: str, *args: str) -> None:
        folder = self.root / name
        folder.mkdir()
        log = open(self.root / f"{name}.log", "wb")
        with log:
            process = subprocess.Popen(
                [RAY, "start", *args, "--num-cpus=1", "--node-ip-address=127.0.0.1",
                 f"--temp-dir={folder}", "--disable-usage-stats", *node_ports()],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env=self.env, start_new_session=True)
        self.groups.append(process.pid)
        try:
            code = process.wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            code = None
        if code != 0:
            tail = (self.root / f"{name}.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"ray start ({name}) did not start (exit {code}):\n{tail}")

    def alive(self) -> int:
        """How many nodes the cluster says are alive (asked by a driver of its own)."""
        done = subprocess.run([sys.executable, "-c", ALIVE, self.address], env=self.env,
                              capture_output=True, text=True, timeout=BOUND)
        return int(done.stdout.strip() or 0) if done.returncode == 0 else 0

    def pids(self) -> set[int]:
        """The processes of the cluster: those of its ``ray start`` process groups and
        their descendants (a raylet starts its workers in process groups of their own)."""
        parents: dict[int, int] = {}
        found = set()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                pid = int(entry.name)
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue  # it just ended
                parents[pid] = int(fields[1])
                if int(fields[2]) in self.groups:
                    found.add(pid)
        grown = True
        while grown:
            more = {pid for pid, parent in parents.items() if parent in found} - found
            found |= more
            grown = bool(more)
        return found

    def task_workers(self, task: str = "_call") -> list[int]:
        """The pids of the cluster's worker processes running a task named ``task`` now
        (a Ray worker names itself ``ray::NAME`` while it runs one)."""
        running = []
        for pid in self.pids():
            try:
                title = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
            except OSError:
                continue
            if title.decode(errors="replace").strip() == f"ray::{task}":
                running.append(pid)
        return running

    def stop(self) -> None:
        """End every process of the cluster (SIGKILL, as ``ray stop --force`` does: a GCS
        takes seconds over SIGTERM) and remove its folders."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass  # it just ended
        wait_for(lambda: not self.pids(), "the Ray cluster's processes to end")
        shutil.rmtree(self.root, ignore_errors=True)
