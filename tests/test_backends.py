"""Seeded batches: order, workers, run folders that resume, errors, and the Ray backend."""
from __future__ import annotations

import json
import os
import re
import socket
import time

import pytest
from hypothesis import given, settings, strategies as st

from lostcities.engine.lab.backends import (BackendError, Batch, RunDir, batch_size, batches,
                                        run_batches)
from lostcities.engine.bots.base import BotError
from lostcities.engine.lab.simulation import game_seed


def seeds_of(job: int, start: int, stop: int) -> dict:
    """A batch function: the game seeds of its games and the process that ran it."""
    return {"seeds": [game_seed(job, i) for i in range(start, stop)], "pid": os.getpid()}


def failing(job: int, start: int, stop: int) -> dict:
    """A batch function whose third batch fails the way a bad bot does."""
    if start >= 2 * job:
        raise BotError(f"bot 'x' (seat 1) failed: ValueError: boom (match seed {start})")
    return {"games": stop - start}


def test_batches_cover_the_games_once_in_order():
    cut = batches(23, 5)
    assert [(b.index, b.start, b.stop) for b in cut] == [
        (0, 0, 5), (1, 5, 10), (2, 10, 15), (3, 15, 20), (4, 20, 23)]
    assert batches(0, 5) == []
    with pytest.raises(ValueError):
        batches(10, 0)
    # about 40 batches, 5 to 200 games each, from the number of games alone
    assert [batch_size(n) for n in (1, 100, 4000, 10 ** 6)] == [5, 5, 100, 200]


@pytest.mark.parametrize("workers", [1, 2])
def test_results_come_back_in_batch_order_whatever_the_workers(workers):
    todo = batches(30, 4)
    out = list(run_batches(seeds_of, 7, todo, workers=workers))
    assert [b for b, _ in out] == todo
    assert [s for _, r in out for s in r["seeds"]] == [game_seed(7, i) for i in range(30)]
    pids = {r["pid"] for _, r in out}
    assert (pids == {os.getpid()}) == (workers == 1)


def test_a_run_folder_resumes_without_redoing_finished_batches(tmp_path):
    todo = batches(20, 3)
    spec = {"job": 7, "games": 20, "batch": 3}
    folder = RunDir(tmp_path / "run")
    done = folder.open(spec)
    assert done == {}
    # interrupted after 3 batches
    it = run_batches(seeds_of, 7, todo, workers=2, done=done, save=folder.save)
    first = [next(it) for _ in range(3)]
    it.close()
    saved = sorted(p.name for p in (tmp_path / "run").glob("batch-*.json"))
    assert saved[:3] == ["batch-000000.json", "batch-000001.json", "batch-000002.json"]
    stamps = {p: os.stat(tmp_path / "run" / p).st_mtime_ns for p in saved}
    # resumed: the saved batches are read back, not run again
    done = folder.open(spec)
    assert set(done) >= {0, 1, 2}
    ran = []

    def counting(job, start, stop):
        ran.append(start)
        return seeds_of(job, start, stop)

    resumed = list(run_batches(counting, 7, todo, workers=1, done=done, save=folder.save))
    assert not set(ran) & {b.start for b in todo if b.index in done}
    assert [b for b, _ in resumed] == todo
    assert [r["seeds"] for _, r in resumed] == \
        [r["seeds"] for _, r in run_batches(seeds_of, 7, todo, workers=1)]
    assert [r for _, r in first] == [r for _, r in resumed[:3]]
    for name, stamp in stamps.items():
        assert os.stat(tmp_path / "run" / name).st_mtime_ns == stamp
    assert len(list((tmp_path / "run").glob("batch-*.json"))) == len(todo)
    assert not list((tmp_path / "run").glob("*.tmp"))


def test_a_run_folder_refuses_another_run_and_skips_broken_batch_files(tmp_path):
    folder = RunDir(tmp_path)
    folder.open({"seed": 1, "games": 10})
    with pytest.raises(BackendError, match="holds another run \\(different seed\\)"):
        folder.open({"seed": 2, "games": 10})
    (tmp_path / "batch-000004.json").write_text("{half", encoding="utf-8")
    (tmp_path / "batch-x.json").write_text("{}", encoding="utf-8")
    folder.save(1, {"ok": True})
    assert folder.open({"seed": 1, "games": 10}) == {1: {"ok": True}}
    assert json.loads((tmp_path / "run.json").read_text()) == {"seed": 1, "games": 10}
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(BackendError, match="cannot use as a run folder") as err:
        RunDir(blocker / "run").open({})
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_batch_raises_the_engine_error_in_one_line(workers):
    with pytest.raises(BotError, match="bot 'x' \\(seat 1\\) failed") as err:
        list(run_batches(failing, 2, batches(12, 2), workers=workers))
    assert "\n" not in str(err.value)


def test_unknown_backend_is_refused():
    with pytest.raises(BackendError, match="unknown backend 'spark'; choose one of local, ray"):
        list(run_batches(seeds_of, 1, batches(4, 2), backend="spark"))


def test_ray_runs_the_same_batches_as_the_local_pool():
    """On a local Ray instance (no address: Ray starts one); a real cluster of two nodes
    is tests/test_ray_cluster.py's. Ray is in the test extra: this test always runs."""
    import sys

    import ray

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # Ray workers lack tests/
    todo = batches(12, 5)
    try:
        remote = list(run_batches(seeds_of, 3, todo, backend="ray"))
        assert not ray.is_initialized()  # the run ends the Ray connection it made
        with pytest.raises(BotError, match="boom"):
            list(run_batches(failing, 2, batches(12, 2), backend="ray"))
    finally:
        ray.shutdown()
    local = list(run_batches(seeds_of, 3, todo, workers=1))
    assert [b for b, _ in remote] == todo
    assert [r["seeds"] for _, r in remote] == [r["seeds"] for _, r in local]


def test_simulate_refuses_an_unknown_backend_before_playing():
    from lostcities.engine import simulate

    with pytest.raises(BackendError, match="unknown backend 'spark'; choose one of local, ray"):
        simulate("duel-classic", ["random", "random"], 2, backend="spark")


def test_ray_missing_or_unreachable_is_one_line(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(BackendError, match=r"needs Ray: pip install 'lostcities\[ray\]'"):
        list(run_batches(seeds_of, 1, batches(4, 2), backend="ray"))
    assert Batch(0, 0, 2) == batches(4, 2)[0]


def test_an_unreachable_ray_address_fails_fast_in_one_line():
    from lostcities.engine.lab.backends import _reachable

    with pytest.raises(BackendError, match="cannot reach Ray at ray://127.0.0.1:1: ") as err:
        _reachable("ray://127.0.0.1:1", seconds=2)
    assert "\n" not in str(err.value)
    _reachable("auto")  # nothing to check: Ray finds the cluster itself


#: a port bound on the loopback and never listening: a connection to it is refused at once
CLOSED = socket.socket()
CLOSED.bind(("127.0.0.1", 0))
CLOSED_PORT = CLOSED.getsockname()[1]


@settings(max_examples=150, deadline=None)
@given(address=st.one_of(
    # anything without a TCP port at its end: left to Ray, no connection tried
    st.text(max_size=60).filter(lambda text: not re.search(r":[0-9]+$", text)),
    # a port at the end, on the loopback only (no name lookup, no stranger's server)
    st.builds(lambda scheme, host, port: f"{scheme}{host}:{port}",
              st.sampled_from(["", "ray://", "http://"]),
              st.sampled_from(["127.0.0.1", "[::1]", "localhost"]),
              st.one_of(st.just(str(CLOSED_PORT)), st.just("0"),
                        st.integers(65536, 10 ** 30).map(str),
                        st.text("0123456789", min_size=6, max_size=40)))))
def test_any_ray_address_is_checked_in_one_line_and_bounded_time(address):
    from lostcities.engine.lab.backends import _reachable

    began = time.monotonic()
    try:
        _reachable(address, seconds=2)
    except BackendError as err:
        assert str(err).startswith("cannot reach Ray at ") and "\n" not in str(err)
    assert time.monotonic() - began < 5
