"""Seeded batches of games run on a local process pool or a Ray cluster, resumably.

Work is cut into batches of consecutive game indices (game ``i`` always uses the
seed :func:`~.simulation.game_seed` ``(seed, i)``). A batch function maps
``(job, start, stop)`` to a JSON-ready result; it runs the same way in this
process, in a pool worker or as a Ray task. :func:`run_batches` hands results
back **in batch order** whatever order they finish in, so anything aggregated
from them is identical for any number of workers. With a run directory
(:class:`RunDir`), each batch is written to its own file as soon as it finishes,
and a run started again on the same directory skips the batches already there.

Backends: ``local`` (:class:`WorkerPool`: forked processes on Linux) and ``ray``
(``pip install lostcities[ray]``; the cluster from ``address``, else
``RAY_ADDRESS``, else a local Ray instance). Scheduling is theirs. A Ray task whose
worker process dies is run again by Ray (:data:`RAY_RETRIES` times at most), and its
result is the same: a batch is a function of its job and its game indices alone.
"""
from __future__ import annotations

import gc
import json
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

from ..errors import BackendError, InputError, LostCitiesError
from ..safeio import LIMITS, check_path, loads_json, read_text, shown_path
from .workers import WorkerPool, worker_index

BatchFn = Callable[[Any, int, int], Any]
"""``fn(job, start, stop)``: play games ``start .. stop-1`` of ``job``; a JSON-ready result."""

BACKENDS = ("local", "ray")

#: with ``oversubscribe``, at most this many local worker processes per core
OVERSUBSCRIBE_PER_CORE = 8
#: at most this many batches in a run: beyond, batches grow (see :func:`batch_size`)
MAX_BATCHES = 100_000
#: while it waits for a local pool's batches, :func:`run_batches` hands the games played so
#: far to its ``played`` callback this often (seconds)
POLL_SECONDS = 0.5
#: a Ray task whose worker process dies (killed, out of memory, its node lost) runs again
#: this many times before the run stops in one line
RAY_RETRIES = 3


def cores() -> int:
    """The cores this process may run on: its CPU affinity where the system tells it,
    else the machine's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def max_workers(oversubscribe: bool = False) -> int:
    """The most local worker processes allowed: one per core, or with ``oversubscribe``
    :data:`OVERSUBSCRIBE_PER_CORE` per core."""
    return cores() * (OVERSUBSCRIBE_PER_CORE if oversubscribe else 1)


def check_workers(workers: int, oversubscribe: bool = False) -> int:
    """``workers`` if it is at least 1 and at most :func:`max_workers`, else
    :class:`BackendError` in one line (a thousand forked processes help no one)."""
    if type(workers) is not int or workers < 1:
        raise BackendError(f"workers {workers!r}: give 1 or more")
    most = max_workers(oversubscribe)
    if workers > most:
        many = cores()
        raise BackendError(f"{workers:,} worker processes but {many} core{'s' if many != 1 else ''}"
                           f" here: at most {most}"
                           + ("" if oversubscribe else
                              f" (oversubscribed, {OVERSUBSCRIBE_PER_CORE} per core: "
                              f"{many * OVERSUBSCRIBE_PER_CORE})"))
    return workers


@dataclass(frozen=True)
class Batch:
    """Games ``start .. stop-1``, the ``index``-th batch of a run."""

    index: int
    start: int
    stop: int


def batches(games: int, size: int) -> list[Batch]:
    """``games`` cut into batches of ``size`` (the last one shorter)."""
    if size < 1:
        raise ValueError("a batch holds at least one game")
    return [Batch(i, start, min(games, start + size))
            for i, start in enumerate(range(0, games, size))]


def batch_size(games: int) -> int:
    """The default batch size for a run of ``games``: about 40 batches, 5 to 200 games each.

    It depends on ``games`` only, so that a run cut into batches is the same on any
    machine and with any number of workers. Beyond 20 million games, batches grow so
    that a run has at most :data:`MAX_BATCHES` of them.
    """
    return max(5, min(200, -(-games // 40)), -(-games // MAX_BATCHES))


class RunDir:
    """A folder holding a run's description (``run.json``) and one file per finished batch."""

    def __init__(self, path: os.PathLike | str):
        self.path = Path(path)

    def open(self, spec: dict[str, Any],
             check: Optional[Callable[[int, Any], bool]] = None) -> dict[int, Any]:
        """Create the folder for ``spec``, or check it holds a run of the same ``spec``;
        the results of the batches already finished, by batch index.

        Files are read through :mod:`.safeio` (regular files only, at most
        ``LIMITS.run_file_bytes`` each, bounded JSON). A batch file that cannot be read,
        is not JSON or fails ``check(index, result)`` is ignored: that batch runs again.
        """
        try:
            check_path(self.path, "run folder")
        except InputError as err:
            raise BackendError(str(err)) from None
        text = str(self.path)
        where = text if text.isprintable() and len(text) < 256 else shown_path(text)
        spec_file = self.path / "run.json"
        try:
            if spec_file.exists():
                try:
                    old = loads_json(read_text(spec_file, LIMITS.run_file_bytes),
                                     shown_path(spec_file))
                except InputError as err:
                    raise BackendError(f"{err}; not a run folder of lc balance") from None
                if not isinstance(old, dict):
                    raise BackendError(f"{where}: run.json is not a run's description; "
                                       f"use a new folder")
                if old != json.loads(json.dumps(spec)):
                    diff = sorted(k for k in set(old) | set(spec) if old.get(k) != spec.get(k))
                    shown = ", ".join(k if k.isidentifier() and len(k) < 40 else repr(k)[:40]
                                      for k in diff[:8])
                    raise BackendError(f"{where}: holds another run (different "
                                       f"{shown}); use a new folder")
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                self._write(spec_file, spec)
            done: dict[int, Any] = {}
            for item in self.path.glob("batch-*.json"):
                try:
                    index = int(item.stem.split("-")[1])
                    result = loads_json(read_text(item, LIMITS.run_file_bytes), shown_path(item))
                except (ValueError, IndexError, InputError):
                    continue  # a partial or foreign file: the batch runs again
                if check is None or check(index, result):
                    done[index] = result
            return done
        except OSError as err:
            raise BackendError(f"{where}: cannot use as a run folder: "
                               f"{err.strerror or err}") from None

    def save(self, index: int, result: Any) -> None:
        """Write one finished batch (atomically: a reader never sees half a file)."""
        try:
            self._write(self.path / f"batch-{index:06d}.json", result)
        except OSError as err:
            raise BackendError(f"{self.path}: cannot write a batch: "
                               f"{err.strerror or err}") from None

    @staticmethod
    def _write(path: Path, data: Any) -> None:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)


def run_batches(fn: BatchFn, job: Any, todo: Sequence[Batch], *, backend: str = "local",
                workers: Optional[int] = None, address: Optional[str] = None,
                done: Optional[dict[int, Any]] = None,
                save: Optional[Callable[[int, Any], None]] = None,
                oversubscribe: bool = False,
                played: Optional[Callable[[int], None]] = None) -> Iterator[tuple[Batch, Any]]:
    """Each batch of ``todo`` with its result, in batch order.

    ``done`` holds results already known (a resumed run): they are not run again.
    ``save(index, result)`` is called as each batch finishes, in any order. Closing
    the iterator early (an early stop) ends the workers. ``workers`` (local): the
    pool's size, default all cores, at most one per core unless ``oversubscribe``
    (:func:`check_workers`); 1 runs in this process.

    ``played(games)``: on a local pool, the games its workers have finished so far
    (counted by :func:`game_played`, batches not yet finished included), every
    :data:`POLL_SECONDS` while waiting and as each batch comes back; a long batch then
    still shows progress. Not called in this process (``workers=1``) nor on Ray.
    """
    if workers is not None and backend == "local":
        check_workers(workers, oversubscribe)
    done = dict(done or {})
    pending = [b for b in todo if b.index not in done]
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "ray":
        finished = _ray(fn, job, pending, address)
    else:
        finished = _local(fn, job, pending, cores() if workers is None else workers, played)
    try:
        for batch in todo:
            while batch.index not in done:
                index, result = next(finished)
                done[index] = result
                if save is not None:
                    save(index, result)
            yield batch, done.pop(batch.index)
    finally:
        finished.close()


def _call(args: tuple[BatchFn, Any, int, int, int]) -> tuple[int, Any]:
    fn, job, index, start, stop = args
    return index, fn(job, start, stop)


#: in a local pool's worker process: the pool's shared count of finished games
_PLAYED: dict[str, Any] = {}


def game_played() -> None:
    """Count one finished game: a batch function calls this after each of its games, so
    that a local pool can tell how far it is before the batch ends (``played`` of
    :func:`run_batches`). Outside a pool's worker (this process, Ray) it does nothing."""
    counter = _PLAYED.get("counter")
    if counter is not None:  # this worker's own slot: no other process writes it, no lock
        counter[_PLAYED["slot"]] += 1


def polled(results: Any, counter: Any, played: Callable[[int], None],
           seconds: float = POLL_SECONDS) -> Iterator[Any]:
    """The items of a pool's ``imap`` or ``imap_unordered`` iterator ``results``, calling
    ``played(games)`` every ``seconds`` while none comes and after each one, ``games`` the
    sum of ``counter``'s slots (each worker's count, read without a lock)."""
    from multiprocessing import TimeoutError as Waiting

    while True:
        try:
            item = results.next(seconds)
        except Waiting:
            played(sum(counter))
            continue
        except StopIteration:
            return
        played(sum(counter))
        yield item


def counted_pool(ctx: Any, workers: int, counting: bool, initializer: Any = None,
                 initargs: tuple = ()) -> tuple[WorkerPool, Any]:
    """A :class:`WorkerPool` of ``workers`` processes of ``ctx`` (garbage collector frozen
    while they start: their inherited pages stay shared) and, with ``counting``, the shared
    counts of games its workers finish (:func:`game_played`), else None: one slot per
    worker, which only that worker writes, so that no lock is shared (a worker killed
    while it held one would stop the parent's next read for good).
    ``initializer(*initargs)`` runs in each worker as well."""
    counter = ctx.RawArray("q", workers) if counting else None
    gc.freeze()
    try:
        pool = WorkerPool(ctx, workers, _start_worker, (counter, initializer, initargs))
    finally:
        gc.unfreeze()
    return pool, counter


def _start_worker(counter: Any, initializer: Any, initargs: tuple) -> None:
    """A pool worker's initializer: the count :func:`game_played` adds to, then the
    caller's own initializer."""
    _PLAYED.clear()
    if counter is not None:
        _PLAYED["counter"], _PLAYED["slot"] = counter, worker_index()
    if initializer is not None:
        initializer(*initargs)


def _local(fn: BatchFn, job: Any, pending: list[Batch], workers: int,
           played: Optional[Callable[[int], None]] = None) -> Iterator[tuple[int, Any]]:
    if workers == 1 or len(pending) <= 1:
        for b in pending:
            yield b.index, fn(job, b.start, b.stop)
        return

    import multiprocessing as mp

    # fork starts workers in milliseconds with everything loaded (no thread runs yet)
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    pool, counter = counted_pool(ctx, min(workers, len(pending)), played is not None)
    with pool:
        results = pool.imap_unordered(_call, [(fn, job, b.index, b.start, b.stop)
                                               for b in pending])
        yield from (results if played is None else polled(results, counter, played))


#: an HTTP/2 client's first bytes: its preface and an empty SETTINGS frame. A Ray
#: cluster's address (its GCS, or a Ray Client server for ``ray://``) is a gRPC server,
#: which answers with a SETTINGS frame of its own
HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
#: the type of an HTTP/2 SETTINGS frame (the fourth byte of its header)
HTTP2_SETTINGS = 4


def _reachable(address: str, seconds: float = 5.0) -> None:
    """Fail fast, in one line, when a Ray address's host does not answer, or answers
    but not in gRPC (ray.init itself would retry for minutes, printing a warning
    every few seconds): at most ``seconds`` to connect and ``seconds`` for the answer.
    ``auto``/``local`` and other forms pass."""
    where = shown_path(address)  # one line, however the address was written
    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    if not host or not (port.isascii() and port.isdigit()):  # "²".isdigit(), int("²") fails
        return
    if len(port) > 5 or int(port) > 65535:
        raise BackendError(f"cannot reach Ray at {where}: {port} is not a "
                           f"port (0-65535)")
    answer = b""
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=seconds) as conn:
            conn.sendall(HTTP2_HELLO)
            while len(answer) < 9:  # a frame's header; recv is bounded by the timeout
                more = conn.recv(9 - len(answer))
                if not more:
                    break
                answer += more
    except socket.timeout:
        raise BackendError(f"cannot reach Ray at {where}: no answer within "
                           f"{seconds:g} seconds") from None
    except OSError as err:
        raise BackendError(f"cannot reach Ray at {where}: "
                           f"{err.strerror or type(err).__name__}") from None
    if len(answer) < 9 or answer[3] != HTTP2_SETTINGS:
        raise BackendError(f"cannot reach Ray at {where}: it answers, but not as a Ray "
                           f"cluster (no gRPC)")


def _ray(fn: BatchFn, job: Any, pending: list[Batch],
         address: Optional[str]) -> Iterator[tuple[int, Any]]:
    try:
        import ray
    except ImportError:
        raise BackendError("--backend ray needs Ray: pip install 'lostcities[ray]'") from None
    started = not ray.is_initialized()  # then this run ends the connection it made
    if started:
        target = address or os.environ.get("RAY_ADDRESS") or None
        if target:
            _reachable(target)
        try:
            ray.init(address=target, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        except Exception as err:  # ray raises ConnectionError, RuntimeError, ValueError...
            where = shown_path(target) if target else "a local instance"
            raise BackendError(f"cannot start Ray on {where}: {type(err).__name__}: "
                               f"{str(err).splitlines()[0] if str(err) else ''}") from None
    task = ray.remote(max_retries=RAY_RETRIES)(_call)
    refs = {task.remote((fn, job, b.index, b.start, b.stop)): b.index for b in pending}
    try:
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1)
            for ref in ready:
                del refs[ref]
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayTaskError as err:
                    cause = getattr(err, "cause", None)
                    if isinstance(cause, LostCitiesError):
                        raise cause from None
                    first = str(cause or err).strip().splitlines()
                    raise BackendError(f"a Ray task failed: {type(cause or err).__name__}: "
                                       f"{first[-1] if first else ''}") from None
                except ray.exceptions.RayError as err:  # its worker or node lost, retries spent
                    first = str(err).strip().splitlines()
                    raise BackendError(f"a Ray task was lost after {RAY_RETRIES} retries: "
                                       f"{type(err).__name__}: {first[0] if first else ''}"
                                       ) from None
                yield result
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
