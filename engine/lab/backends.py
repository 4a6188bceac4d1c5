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
``RAY_ADDRESS``, else a local Ray instance). Scheduling is theirs.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

from ..errors import LostCitiesError

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


class BackendError(LostCitiesError, ValueError):
    """A backend cannot run: Ray missing or unreachable, a run directory that does not fit."""


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
        from ..errors import InputError
        from ..safeio import LIMITS, check_path, loads_json, read_text, shown_path

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
    if counter is not None:
        with counter.get_lock():
            counter.value += 1


def polled(results: Any, counter: Any, played: Callable[[int], None],
           seconds: float = POLL_SECONDS) -> Iterator[Any]:
    """The items of a pool's ``imap`` or ``imap_unordered`` iterator ``results``, calling
    ``played(counter.value)`` every ``seconds`` while none comes and after each one."""
    from multiprocessing import TimeoutError as Waiting

    while True:
        try:
            item = results.next(seconds)
        except Waiting:
            played(counter.value)
            continue
        except StopIteration:
            return
        played(counter.value)
        yield item


def counted_pool(ctx: Any, workers: int, counting: bool, initializer: Any = None,
                 initargs: tuple = ()) -> tuple["WorkerPool", Any]:
    """A :class:`WorkerPool` of ``workers`` processes of ``ctx`` (garbage collector frozen
    while they start: their inherited pages stay shared) and, with ``counting``, the shared
    count of games its workers finish (:func:`game_played`), else None.
    ``initializer(*initargs)`` runs in each worker as well."""
    import gc

    counter = ctx.Value("q", 0) if counting else None
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
        _PLAYED["counter"] = counter
    if initializer is not None:
        initializer(*initargs)


#: stopping a pool: how long its workers have to end after SIGTERM (or, idle, after their
#: pipe closes) before they are killed, then how long to wait for a killed one (seconds)
STOP_SECONDS = 2.0
KILL_SECONDS = 10.0


class WorkerTraceback(Exception):
    """The traceback of an error raised in a worker process (the ``__cause__`` of the error
    re-raised here)."""

    def __str__(self) -> str:
        return "\n\n" + str(self.args[0] if self.args else "")


class WorkerPool:
    """Worker processes of a :mod:`multiprocessing` context, each with a pipe of its own.

    What ``imap``/``imap_unordered`` of :class:`multiprocessing.pool.Pool` give (items
    with ``next(timeout)``; ``terminate``, ``join``, ``with``), without its shared queues:
    a task goes to an idle worker on its pipe and its result comes back on the same pipe,
    so no lock is held between processes and a worker stopped at any moment leaves nothing
    locked (a ``Pool`` stopped while a worker held its result queue's lock waited forever,
    CPython issue 96995). A task's error is raised here as it comes (``imap``: in its turn,
    after the items before it; no task is sent after it); a worker that dies is a
    :class:`BackendError`, not a run that never ends. :meth:`terminate` (also on leaving
    ``with``) closes the pipes, stops busy workers with SIGTERM, kills any left after
    :data:`STOP_SECONDS` and waits for every one: it returns within seconds, always.
    Workers ignore SIGINT (Ctrl-C stops the parent, which stops them) and start no thread.
    """

    def __init__(self, ctx: Any, workers: int, initializer: Any = None,
                 initargs: tuple = ()):
        if workers < 1:
            raise ValueError("a pool has at least one worker")
        self._crew = _Crew()
        self._running: Optional[PoolResults] = None
        inherits = ctx.get_start_method() == "fork"
        try:
            for _ in range(workers):
                mine, theirs = ctx.Pipe()
                # a forked worker inherits the parent's ends of the pipes made so far: it
                # closes them, so that a pipe closed here reaches its own worker as EOF
                others = [w.conn for w in self._crew.workers] + [mine] if inherits else []
                process = ctx.Process(target=_serve, daemon=True,
                                      args=(theirs, others, initializer, initargs))
                process.start()
                theirs.close()
                self._crew.workers.append(_Worker(process, mine))
        except BaseException:
            self._crew.stop()
            raise
        import weakref

        self._stop = weakref.finalize(self, self._crew.stop)

    def imap(self, fn: Callable[[Any], Any], items: Any) -> "PoolResults":
        """``fn(item)`` for each of ``items`` (read as workers become free), in their order."""
        return self._start(fn, items, True)

    def imap_unordered(self, fn: Callable[[Any], Any], items: Any) -> "PoolResults":
        """``fn(item)`` for each of ``items``, as they finish."""
        return self._start(fn, items, False)

    def _start(self, fn: Callable[[Any], Any], items: Any, ordered: bool) -> "PoolResults":
        if not self._stop.alive:
            raise ValueError("the pool is stopped")
        if self._running is not None and not self._running.finished:
            raise ValueError("the pool runs one imap at a time")
        self._running = PoolResults(self._crew, fn, items, ordered)
        return self._running

    def terminate(self) -> None:
        """Stop every worker (busy or not) and wait for them; idempotent."""
        self._stop()

    def join(self) -> None:
        """After :meth:`terminate` (which waits for the workers itself): nothing to wait
        for. Before it, ValueError, as a running ``Pool``'s."""
        if self._stop.alive:
            raise ValueError("terminate the pool before joining it")

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.terminate()


class _Worker:
    __slots__ = ("process", "conn", "task", "answered")

    def __init__(self, process: Any, conn: Any):
        self.process = process
        self.conn = conn
        self.task: Optional[int] = None  # the index of the item it runs, None when idle
        self.answered = False  # it has sent a result: its initializer is done


class _Crew:
    """A pool's worker processes and pipes (apart from the pool, for its finalizer)."""

    def __init__(self) -> None:
        self.workers: list[_Worker] = []

    def stop(self) -> None:
        import time

        for w in self.workers:
            w.conn.close()  # an idle worker reads EOF and ends by itself
        for w in self.workers:  # busy, or maybe still in its initializer: SIGTERM now
            if (w.task is not None or not w.answered) and w.process.exitcode is None:
                w.process.terminate()
        deadline = time.monotonic() + STOP_SECONDS
        for w in self.workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
        for w in self.workers:
            if w.process.exitcode is None:
                w.process.kill()
        deadline = time.monotonic() + KILL_SECONDS
        for w in self.workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
            if w.process.exitcode is not None:
                w.process.close()
        self.workers = [w for w in self.workers if _alive(w.process)]


def _alive(process: Any) -> bool:
    try:
        return process.exitcode is None
    except ValueError:  # closed: it had ended
        return False


class PoolResults:
    """The results of one ``imap`` (in order) or ``imap_unordered`` of a :class:`WorkerPool`:
    an iterator whose ``next(timeout)`` raises :class:`multiprocessing.TimeoutError` when
    no item comes within ``timeout`` seconds."""

    def __init__(self, crew: _Crew, fn: Callable[[Any], Any], items: Any, ordered: bool):
        self._crew = crew
        self._fn = fn
        self._items = iter(items)
        self._ordered = ordered
        self._sent = 0        # items handed to workers so far
        self._more = True     # items may remain in self._items
        self._want = 0        # in order: the index of the next item to give
        self._ready: dict[int, tuple[bool, Any, str]] = {}
        self._failed = False  # a task failed: send no more
        self.finished = False

    def __iter__(self) -> "PoolResults":
        return self

    def __next__(self) -> Any:
        return self.next()

    def next(self, timeout: Optional[float] = None) -> Any:
        """The next result; :class:`multiprocessing.TimeoutError` after ``timeout`` seconds
        without one; a task's error raised; StopIteration at the end."""
        import time
        from multiprocessing import TimeoutError as Waiting
        from multiprocessing.connection import wait

        if self.finished:
            raise StopIteration
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while True:
                if self._ready:
                    key = self._want if self._ordered else next(iter(self._ready))
                    if key in self._ready:
                        ok, value, trace = self._ready.pop(key)
                        self._want += 1
                        if not ok:
                            self.finished = True
                            _reraise(value, trace)
                        return value
                self._feed()
                busy = [w for w in self._crew.workers if w.task is not None]
                if not busy:
                    self.finished = True
                    raise StopIteration
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                ready = wait([w.conn for w in busy]
                             + [w.process.sentinel for w in self._crew.workers], left)
                if not ready:
                    raise Waiting
                self._take(ready)
        except (StopIteration, Waiting):
            raise
        except BaseException:
            self.finished = True
            raise

    def _feed(self) -> None:
        """Hand the next items to the idle workers."""
        for w in self._crew.workers:
            if self._failed or not self._more:
                return
            if w.task is not None:
                continue
            try:
                item = next(self._items)
            except StopIteration:
                self._more = False
                return
            try:
                w.conn.send((self._sent, self._fn, item))
            except OSError:
                if w.conn.poll():  # its last words: why its initializer failed
                    self._take([w.conn])
                w.process.join(STOP_SECONDS)
                raise BackendError(_ended(w.process)) from None
            w.task = self._sent
            self._sent += 1

    def _take(self, ready: list[Any]) -> None:
        """Read the results on the ready pipes; a worker that ended is an error."""
        import pickle

        for w in self._crew.workers:
            if w.conn in ready or (w.process.sentinel in ready and w.conn.poll()):
                try:
                    data = w.conn.recv_bytes()
                except (EOFError, OSError):
                    w.process.join(STOP_SECONDS)
                    raise BackendError(_ended(w.process)) from None
                try:
                    index, ok, value, trace = pickle.loads(data)
                except Exception as err:  # an error whose class cannot be built again here
                    raise BackendError(f"a worker's answer cannot be read: "
                                       f"{type(err).__name__}: {err}") from None
                if index < 0:  # its initializer failed
                    _reraise(value, trace)
                w.task, w.answered = None, True
                self._ready[index] = (ok, value, trace)
                if not ok:
                    self._failed = True
                    if not self._ordered:
                        self._ready = {index: self._ready[index]}
            elif w.process.sentinel in ready:
                w.process.join(STOP_SECONDS)
                raise BackendError(_ended(w.process))


def _reraise(err: BaseException, trace: str) -> None:
    if trace and err.__cause__ is None and not isinstance(err, LostCitiesError):
        raise err from WorkerTraceback(trace)
    raise err


def _ended(process: Any) -> str:
    code = process.exitcode
    if code is not None and code < 0:
        import signal

        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = "ended" if code is None else f"ended with exit code {code}"
    return f"a worker process {how} in the middle of the run"


def _serve(conn: Any, others: list, initializer: Any, initargs: tuple) -> None:
    """A worker of :class:`WorkerPool`: run the tasks that come on ``conn`` until it closes."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for other in others:
        other.close()
    if initializer is not None:
        try:
            initializer(*initargs)
        except Exception as err:
            _answer(conn, -1, False, err)
            return
    while True:
        try:
            index, fn, item = conn.recv()
        except (EOFError, OSError):
            return
        try:
            ok, value = True, fn(item)
        except Exception as err:
            ok, value = False, err
        if not _answer(conn, index, ok, value):
            return


def _answer(conn: Any, index: int, ok: bool, value: Any) -> bool:
    """Send a task's result or error back; False when the pipe is closed."""
    import pickle
    import traceback

    trace = "" if ok else "".join(traceback.format_exception(value))
    try:
        data = pickle.dumps((index, ok, value, trace), pickle.HIGHEST_PROTOCOL)
    except Exception as err:
        what = "result" if ok else f"error ({type(value).__name__}: {value})"
        data = pickle.dumps((index, False, BackendError(
            f"a worker's {what} cannot be sent back: {type(err).__name__}: {err}"), trace))
    try:
        conn.send_bytes(data)
    except OSError:
        return False
    return True


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


def _reachable(address: str, seconds: float = 5.0) -> None:
    """Fail fast, in one line, when a Ray address's host does not answer (ray.init
    itself would retry for minutes). ``auto``/``local`` and other forms pass."""
    import socket

    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=seconds).close()
    except OSError as err:
        raise BackendError(f"cannot reach Ray at {address}: "
                           f"{err.strerror or type(err).__name__}") from None


def _ray(fn: BatchFn, job: Any, pending: list[Batch],
         address: Optional[str]) -> Iterator[tuple[int, Any]]:
    try:
        import ray
    except ImportError:
        raise BackendError("--backend ray needs Ray: pip install 'lostcities[ray]'") from None
    if not ray.is_initialized():
        target = address or os.environ.get("RAY_ADDRESS") or None
        if target:
            _reachable(target)
        try:
            ray.init(address=target, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        except Exception as err:  # ray raises ConnectionError, RuntimeError, ValueError...
            where = target or "a local instance"
            raise BackendError(f"cannot start Ray on {where}: {type(err).__name__}: "
                               f"{str(err).splitlines()[0] if str(err) else ''}") from None
    task = ray.remote(_call)
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
                yield result
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)
