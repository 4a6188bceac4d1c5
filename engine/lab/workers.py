"""The local worker pool of :mod:`.backends`: forked worker processes, each with a pipe.

:class:`WorkerPool` gives what ``imap``/``imap_unordered`` of
:class:`multiprocessing.pool.Pool` give, without its shared queues, so that stopping it
after a worker's error always returns (see its docstring).
"""
from __future__ import annotations

import pickle
import signal
import time
import traceback
import weakref
from typing import Any, Callable, Optional

from ..errors import BackendError, LostCitiesError

#: stopping a pool: how long its workers have to end after SIGTERM (or, idle, after their
#: pipe closes) before they are killed, then how long to wait for a killed one (seconds)
STOP_SECONDS = 2.0
KILL_SECONDS = 10.0


#: this process's index among its pool's workers, once it is one (see :func:`worker_index`)
_INDEX: list[int] = []


def worker_index() -> Optional[int]:
    """This process's index among its :class:`WorkerPool`'s workers (0 to workers - 1), set
    before the pool's initializer runs in it; None outside a pool's worker."""
    return _INDEX[0] if _INDEX else None


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
                                      args=(theirs, others, initializer, initargs,
                                            len(self._crew.workers)))
                process.start()
                theirs.close()
                self._crew.workers.append(_Worker(process, mine))
        except BaseException:
            self._crew.stop()
            raise

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
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = "ended" if code is None else f"ended with exit code {code}"
    return f"a worker process {how} in the middle of the run"


def _serve(conn: Any, others: list, initializer: Any, initargs: tuple, index: int) -> None:
    """Worker ``index`` of :class:`WorkerPool`: run the tasks that come on ``conn`` until it
    closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for other in others:
        other.close()
    _INDEX[:] = [index]
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
