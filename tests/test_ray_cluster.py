"""``lc simulate`` and ``lc balance`` on a real Ray cluster of two nodes (tests/ray_support.py):
the same output as the local backend, byte for byte, a worker process killed mid-run,
addresses that are not a Ray cluster."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from ray_support import RayCluster
from server_support import BOUND, lc_command, wait_for

from lostcities.engine.lab import backends
from lostcities.engine.lab.backends import BackendError, RunDir, batches, run_batches

SIMULATE = ["simulate", "-n", "10", "-b", "expert,greedy", "-s", "5"]
#: two batches of five paired games (lostcities.engine.lab.backends.batch_size)
BALANCE = ["balance", "duel-equal", "-n", "10", "-s", "3"]


@pytest.fixture(scope="module")
def cluster():
    """A head node and one worker node, one CPU each, for this module's tests."""
    started = RayCluster(workers=1)
    try:
        yield started
    finally:
        started.stop()
    assert not started.pids()


def lc(*args: str, bound: float = BOUND) -> subprocess.CompletedProcess:
    return subprocess.run([*lc_command(), *args], capture_output=True, text=True,
                          timeout=bound, env={**os.environ, "LC_PROGRESS_INTERVAL": "0"})


def start_lc(*args: str) -> subprocess.Popen:
    return subprocess.Popen([*lc_command(), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "LC_PROGRESS_INTERVAL": "0"})


@pytest.fixture(scope="module")
def local_balance() -> str:
    """The local backend's report of BALANCE, in this process's pool of one."""
    done = lc(*BALANCE, "-w", "1")
    assert done.returncode == 0, done.stderr
    return done.stdout


def raylet_of(pid: int) -> int:
    """The parent of a process: for a Ray worker, the raylet (node) that started it."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[1])


@pytest.mark.parametrize("form", [[], ["--json"]])
def test_lc_simulate_on_ray_prints_what_the_local_backend_prints(cluster, tmp_path, form):
    ray = lc(*SIMULATE, *form, "--backend", "ray", "--address", cluster.address,
             "--record", str(tmp_path / "ray.jsonl"))
    local = lc(*SIMULATE, *form, "--record", str(tmp_path / "local.jsonl"))
    assert ray.returncode == 0 == local.returncode, ray.stderr + local.stderr
    assert ray.stdout.replace("ray.jsonl", "local.jsonl") == local.stdout
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    if form:
        assert json.loads(ray.stdout)["games"] == 10
    assert ray.stderr == ""


def test_lc_balance_runs_on_both_nodes_and_prints_what_the_local_backend_prints(
        cluster, local_balance):
    running = start_lc(*BALANCE, "--backend", "ray", "--address", cluster.address)
    nodes: set[int] = set()

    def both_nodes_busy() -> bool:
        tasks = cluster.task_workers()
        for pid in tasks:
            try:
                nodes.add(raylet_of(pid))
            except (OSError, IndexError):
                pass  # it just ended
        return len(nodes) >= 2 or running.poll() is not None

    wait_for(both_nodes_busy, "batches on both Ray nodes")
    out, err = running.communicate(timeout=BOUND)
    assert running.returncode == 0, err
    # one CPU a node: two batches at once are one on each node, each in a worker its
    # own node's raylet started
    assert len(nodes) == 2, nodes
    assert out == local_balance
    assert err == ""


def test_a_ray_worker_killed_mid_run_retries_its_batch_and_the_report_is_the_same(
        cluster, local_balance, tmp_path):
    """Ray runs a task again when its worker process dies (RAY_RETRIES): the run
    finishes, with every batch once in the run folder, and the report is unchanged.
    Ray's own notes on the death go to standard error, never into the report."""
    run = tmp_path / "run"
    running = start_lc(*BALANCE, "--backend", "ray", "--address", cluster.address,
                       "--resume", str(run))
    victim = wait_for(lambda: cluster.task_workers() or running.poll() is not None,
                      "a Ray worker running a batch")
    assert running.poll() is None, running.communicate()
    victim = victim[0]
    os.kill(victim, signal.SIGKILL)
    out, err = running.communicate(timeout=BOUND)
    assert running.returncode == 0, err
    assert not Path(f"/proc/{victim}").exists() or \
        Path(f"/proc/{victim}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    assert out == local_balance
    assert "retried" in err  # Ray's note, on standard error
    assert sorted(p.name for p in run.glob("batch-*.json")) == [
        f"batch-{i:06d}.json" for i in range(2)]
    # run again on the same folder: every batch is read back, none played
    again = lc(*BALANCE, "--backend", "ray", "--address", cluster.address, "--resume", str(run))
    assert again.returncode == 0, again.stderr
    assert again.stdout == local_balance


def marked(job: tuple[str, int], start: int, stop: int) -> dict:
    """A batch that leaves a file for each time it runs; the one starting at game
    ``job[1]`` kills its own worker process, as kill -9 would."""
    folder, crash = job
    Path(folder, f"ran-{start:03d}-{os.getpid()}").write_text("", encoding="utf-8")
    if start == crash:
        os.kill(os.getpid(), signal.SIGKILL)
    return {"games": stop - start}


def test_a_batch_lost_once_retries_are_spent_stops_in_one_line_and_resumes(
        cluster, tmp_path, monkeypatch):
    """With no retry left, a dead worker's batch stops the run in one line; the run
    folder keeps the batches that finished, and the run started again on it plays only
    the others."""
    import ray

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # Ray workers lack tests/
    monkeypatch.setattr(backends, "RAY_RETRIES", 0)
    marks = tmp_path / "marks"
    marks.mkdir()
    todo = batches(12, 2)
    folder = RunDir(tmp_path / "run")
    spec = {"kind": "test", "games": 12}
    done = folder.open(spec)
    with pytest.raises(BackendError, match=r"^a Ray task was lost after 0 retries: "
                                           r"WorkerCrashedError: ") as err:
        list(run_batches(marked, (str(marks), 6), todo, backend="ray",
                         address=cluster.address, done=done, save=folder.save))
    assert "\n" not in str(err.value)
    assert not ray.is_initialized()
    kept = folder.open(spec)
    assert 3 not in kept and len(kept) < len(todo)  # game 6 is batch 3's
    for mark in marks.iterdir():
        mark.unlink()
    resumed = list(run_batches(marked, (str(marks), -1), todo, backend="ray",
                               address=cluster.address, done=kept, save=folder.save))
    assert [b for b, _ in resumed] == todo
    assert [r["games"] for _, r in resumed] == [2] * 6
    replayed = sorted(int(mark.name.split("-")[1]) for mark in marks.iterdir())
    assert replayed == sorted(b.start for b in todo if b.index not in kept)


class NotRay(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # an HTTP/1 server: it answers, but not in gRPC
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def http_port():
    server = ThreadingHTTPServer(("127.0.0.1", 0), NotRay)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def silent_port():
    """A port that accepts connections and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


@pytest.mark.parametrize("command", ["simulate", "balance"])
def test_an_address_that_is_not_a_ray_cluster_is_one_line_exit_2(command, http_port,
                                                                  silent_port):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]  # bound, never listening: refused
    try:
        not_ray = "it answers, but not as a Ray cluster (no gRPC)"
        for address, why in ((f"127.0.0.1:{port}", "Connection refused"),
                             (f"127.0.0.1:{http_port}", not_ray),
                             (f"ray://127.0.0.1:{http_port}", not_ray),
                             (f"127.0.0.1:{silent_port}", "no answer within 5 seconds")):
            if command == "balance" and address.endswith(f":{silent_port}"):
                continue  # the same check as lc simulate's: 5 seconds spared
            args = ["-n", "2"] if command == "simulate" else ["duel-equal", "-n", "2"]
            began = time.monotonic()
            done = lc(command, *args, "--backend", "ray", "--address", address, bound=60)
            took = time.monotonic() - began
            assert done.returncode == 2, (address, done.stdout, done.stderr)
            assert done.stderr.startswith(f"lc: error: cannot reach Ray at {address}: {why}")
            assert done.stderr.count("\n") == 1 and done.stdout == "", address
            assert took < 20, (address, took)
    finally:
        closed.close()
