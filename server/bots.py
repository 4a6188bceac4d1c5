"""The bots' thinking for every room, shared fairly (docs/server.md, "Bots and hints").

A bot's move and a hint are *jobs* of the room they are for. :class:`BotScheduler` runs
them so that a room waits for its own bots, not for other rooms':

- each room has at most one job thinking; its others wait in its own queue, and rooms
  take their turns at a free worker thread in order (round-robin);
- the jobs that hold a thread think one at a time (pure Python: the GIL would run no more
  at once, and one thinking thread leaves the event loop the GIL more often), sharing
  the time evenly (:class:`Turnstile`): after :data:`SLICE_SECONDS` the thinking one
  steps aside for the job that has had least, and a job coming in is placed level with
  the least served. A job is sliced at its random draws (:class:`SlicedRandom`: the
  search draws a deal every few milliseconds), so a greedy bot's move (under a
  millisecond) waits a slice or two behind other rooms' searches (ismcts@5: seconds
  each), whatever their number up to ``Limits.bot_threads``, and a long search gets its
  share however many short jobs come after it;
- ``Limits.bot_queue`` jobs may wait for a thread: a hint asked beyond is refused
  (``error.bots-busy``); a bot's move is never refused, it waits its room's turn (a room
  has one bot move in flight at most, so they are as many as the rooms);
- the event loop goes first: when it falls behind (:data:`LATE_SECONDS`), the thinking bot
  naps at its draws, up to half the time, so that messages do not pile up behind it;
- a seat has one hint in flight at most and ``Limits.hint_seconds`` between two
  (``error.hint-wait``).

The event loop calls :meth:`BotScheduler.think` and :meth:`BotScheduler.hint`; only
:meth:`BotScheduler._run` and the job's work run in the worker threads.
"""
from __future__ import annotations

import asyncio
import heapq
import itertools
import math
import random
import sys
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Optional, TypeVar

from .protocol import LIMITS, Limits

T = TypeVar("T")

#: how long a job thinks before it steps aside for a job that has had less time, seconds
SLICE_SECONDS = 0.01
#: the interpreter's thread switch interval while the server runs (``sys.setswitchinterval``;
#: Python's default is 5 ms): a thinking bot holds the GIL, and each time the event loop
#: or a store thread wakes it waits up to this long for it. Measured with
#: bench_bot_fairness.py (3 rooms of ismcts@5, 2 cores): a greedy reply's median 88 ms,
#: p95 152 ms at 5 ms; 25 ms, 51 ms at 1 ms
SWITCH_SECONDS = 0.001
#: the event loop first: it notes the time every :data:`BEAT_SECONDS`; when that note is
#: older than :data:`LATE_SECONDS` (the loop has more to do than it gets done: messages
#: pile up), a thinking bot sleeps at its draws as long as it thought since its last
#: sleep, :data:`NAP_SECONDS` at most, leaving the loop the GIL (a bot still thinks half
#: the time). Measured with bench_bot_fairness.py (3 rooms of ismcts@5, 150 connections
#: asking 1,350 hints a second, two runs each): a greedy reply's median 46-56 ms, p95
#: 121-169 ms against 89-127 ms, 190-306 ms without
BEAT_SECONDS = 0.005
LATE_SECONDS = 0.015
NAP_SECONDS = 0.005

#: builds a job's random numbers from a seed text (``random.Random`` or :class:`SlicedRandom`)
Draws = Callable[[str], random.Random]


class Refused(Exception):
    """A hint not thought of: ``key`` and ``params`` are the error the client gets."""

    def __init__(self, key: str, **params: Any):
        super().__init__(key)
        self.key = key
        self.params = params


class Stopped(Exception):
    """The scheduler closed while a job was thinking (the server is stopping)."""


class SlicedRandom(random.Random):
    """``random.Random(seed)``'s very numbers, each draw a point where the thinking may
    step aside (``pause``): a bot's moves stay those of its seed, however it is sliced."""

    def __init__(self, seed: str, pause: Callable[[], None]):
        self._pause = pause
        super().__init__(seed)

    def random(self) -> float:
        self._pause()
        return super().random()

    def getrandbits(self, k: int) -> int:
        self._pause()
        return super().getrandbits(k)


class Turnstile:
    """Lets one thread think at a time, sharing the time evenly (as Linux's fair
    scheduler does): each thinking job has a *virtual time*, the seconds it has thought
    counted from the virtual time at which it came in; a job comes in at the turnstile's
    :attr:`now` (the least virtual time of the jobs under way), and on a hand-over the
    waiting job with the least virtual time goes next. A job that just came in (a greedy
    bot's move) thinks within a slice or two; a long search neither starves nor makes
    the others wait past their share, however many short jobs come after it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: list[tuple[float, int, threading.Event]] = []  # a heap
        self._held = False
        self._order = itertools.count()
        self.closed = False
        #: the least virtual time of the jobs under way: where a job comes in
        self.now = 0.0
        #: when the event loop last noted the time (``time.perf_counter``; never before
        #: :meth:`BotScheduler.open`)
        self.beat = math.inf

    def enter(self) -> float:
        """Wait until this thread may think; its virtual time then."""
        with self._lock:
            if self.closed:
                raise Stopped("the server is stopping")
            came = self.now
            if not self._held:
                self._held = True
                return came
            mine = self._wait(came)
        mine.wait()
        if self.closed:
            raise Stopped("the server is stopping")
        return came

    def leave(self) -> None:
        """This thread stops thinking: the waiting one with the least virtual time goes on."""
        with self._lock:
            if self._waiting:
                self._hand_over()
            else:
                self._held = False

    def step_aside(self, virtual: float) -> None:
        """At the end of a slice, with this thread's virtual time ``virtual``: let the
        waiting thread with the least virtual time think if it is less; back when this
        one has the least."""
        waiting = self._waiting  # read without the lock first: a slice mostly ends here
        if not waiting or waiting[0][0] >= virtual:
            self.now = virtual
            return
        with self._lock:
            if not self._waiting or self._waiting[0][0] >= virtual:
                self.now = virtual
                return
            mine = self._wait(virtual)
            self._hand_over()
        mine.wait()
        if self.closed:
            raise Stopped("the server is stopping")

    def close(self) -> None:
        """Wake every waiting thread, to stop (:class:`Stopped`)."""
        with self._lock:
            self.closed = True
            for _, _, event in self._waiting:
                event.set()
            self._waiting.clear()

    def _wait(self, virtual: float) -> threading.Event:
        event = threading.Event()
        heapq.heappush(self._waiting, (virtual, next(self._order), event))
        return event

    def _hand_over(self) -> None:
        virtual, _, event = heapq.heappop(self._waiting)
        self.now = max(self.now, virtual)
        event.set()


class Share:
    """One job's share of the turnstile, in its worker thread: its virtual time, and
    :meth:`pause`, called at each of its random draws."""

    def __init__(self, turnstile: Turnstile, slice_seconds: float):
        self.turnstile = turnstile
        self.slice = slice_seconds
        self.virtual = 0.0
        self.since = 0.0
        self.mark = time.perf_counter()

    def __enter__(self) -> "Share":
        self.virtual = self.turnstile.enter()
        self.since = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.turnstile.leave()

    def pause(self) -> None:
        """A point where the job may nap (the event loop is behind) or step aside (its
        slice is over and a job with less virtual time waits); :class:`Stopped` once the
        scheduler is closed."""
        if self.turnstile.closed:
            raise Stopped("the server is stopping")
        now = time.perf_counter()
        if now - self.turnstile.beat > LATE_SECONDS:  # the event loop is behind: it first
            time.sleep(min(now - self.mark, NAP_SECONDS))
            later = time.perf_counter()
            self.since += later - now  # a nap is not thinking
            now = self.mark = later
        if now - self.since < self.slice:
            return
        self.virtual += now - self.since
        self.turnstile.step_aside(self.virtual)
        self.since = time.perf_counter()

    def draws(self, seed: str) -> random.Random:
        """The job's random numbers from ``seed``, pausing at each draw."""
        return SlicedRandom(seed, self.pause)


@dataclass(eq=False)
class Job:
    """A room's work for a bot thread, and the future its caller awaits."""

    room: str
    work: Callable[[Draws], Any]
    done: "asyncio.Future[Any]"


class HintGate:
    """One hint in flight per seat, and ``interval`` seconds at least between two by
    ``clock`` (a clock set back lets the next one in)."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic):
        self.interval = interval
        self.clock = clock
        self._last: dict[Hashable, float] = {}
        self._asking: set[Hashable] = set()

    def open(self, seat: Hashable) -> None:
        """Let ``seat`` ask a hint now, or :class:`Refused` (``error.hint-wait``)."""
        now = self.clock()
        since = now - self._last[seat] if seat in self._last else self.interval
        if seat in self._asking or 0 <= since < self.interval:
            raise Refused("error.hint-wait", seconds=max(1, math.ceil(self.interval - since)),
                          interval=f"{self.interval:g}")
        if len(self._last) > 4096:  # the seats that asked long ago are forgotten
            self._last = {k: t for k, t in self._last.items() if 0 <= now - t < self.interval}
        self._last[seat] = now
        self._asking.add(seat)

    def close(self, seat: Hashable) -> None:
        """``seat``'s hint is answered (or failed)."""
        self._asking.discard(seat)


class BotScheduler:
    """The bots' worker threads, shared by the rooms fairly (see the module doc).
    ``initializer`` runs in each worker thread as it starts (a profiler); ``clock``
    measures the interval between a seat's hints."""

    def __init__(self, limits: Limits = LIMITS, slice_seconds: float = SLICE_SECONDS,
                 initializer: Optional[Callable[[], None]] = None,
                 clock: Callable[[], float] = time.monotonic):
        self.threads = limits.bot_threads
        self.queue_limit = limits.bot_queue
        self.slice = slice_seconds
        self.pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="lc-bot",
                                       initializer=initializer)
        self.turnstile = Turnstile()
        self.hints = HintGate(limits.hint_seconds, clock)
        self._queues: dict[str, deque[Job]] = {}  # per room, the jobs waiting
        self._turns: deque[str] = deque()  # rooms with a job waiting and none thinking
        self._thinking: set[str] = set()   # rooms with a job in a thread
        self.waiting = 0
        self._switch: Optional[float] = None
        self._beats = self._beating = False

    async def think(self, room: str, work: Callable[[Draws], T]) -> T:
        """``work(draws)`` in a worker thread when its room's turn comes (``draws``
        builds its random numbers: the points where it may be sliced)."""
        if self.turnstile.closed:
            raise Stopped("the server is stopping")
        job = Job(room, work, asyncio.get_running_loop().create_future())
        queue = self._queues.setdefault(room, deque())
        queue.append(job)
        self.waiting += 1
        if room not in self._thinking and len(queue) == 1:
            self._turns.append(room)
        self._dispatch()
        try:
            return await job.done
        except asyncio.CancelledError:
            self._forget(job)
            raise

    async def hint(self, room: str, seat: int, work: Callable[[Draws], T]) -> T:
        """A hint's ``work`` for ``seat`` of ``room`` (:meth:`think`), or :class:`Refused`:
        that seat has one in flight or asked less than ``Limits.hint_seconds`` ago
        (``error.hint-wait``), or ``Limits.bot_queue`` jobs wait (``error.bots-busy``)."""
        if self.waiting >= self.queue_limit or self.turnstile.closed:
            raise Refused("error.bots-busy")
        key = (room, seat)
        self.hints.open(key)
        try:
            return await self.think(room, work)
        finally:
            self.hints.close(key)

    def open(self) -> None:
        """The server starts (on its event loop): the interpreter switches threads every
        :data:`SWITCH_SECONDS` (until :meth:`close`), the loop notes the time every
        :data:`BEAT_SECONDS` (bots nap when it is late)."""
        self._switch = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_SECONDS)
        self._beats = True

    def _heartbeat(self) -> None:
        """Note the time now and every :data:`BEAT_SECONDS` while a job thinks."""
        self.turnstile.beat = time.perf_counter()
        self._beating = bool(self._thinking) and not self.turnstile.closed
        if self._beating:
            asyncio.get_running_loop().call_later(BEAT_SECONDS, self._heartbeat)

    def close(self) -> None:
        """Stop: jobs waiting are dropped, the thinking ones stop at their next draw; the
        interpreter's switch interval is what it was before :meth:`open`."""
        if self._switch is not None:
            sys.setswitchinterval(self._switch)
            self._switch = None
        for queue in self._queues.values():
            for job in queue:
                job.done.cancel()
        self._queues.clear()
        self._turns.clear()
        self.turnstile.close()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        while self._turns and len(self._thinking) < self.threads:
            room = self._turns.popleft()
            queue = self._queues[room]
            job = queue.popleft()
            self.waiting -= 1
            if not queue:
                del self._queues[room]
            self._thinking.add(room)
            running = loop.run_in_executor(self.pool, self._run, job)
            running.add_done_callback(lambda done, job=job: self._finished(job, done))
        if self._beats and self._thinking and not self._beating:
            self._heartbeat()

    def _run(self, job: Job) -> Any:
        try:
            with Share(self.turnstile, self.slice) as share:
                return job.work(share.draws)
        except Stopped:  # the server is stopping: nobody waits for this job any more
            return None

    def _finished(self, job: Job, running: "asyncio.Future[Any]") -> None:
        self._thinking.discard(job.room)
        if job.room in self._queues:
            self._turns.append(job.room)
        if not job.done.done():
            if running.cancelled() or self.turnstile.closed:
                job.done.cancel()
            elif running.exception() is not None:
                job.done.set_exception(running.exception())  # type: ignore[arg-type]
            else:
                job.done.set_result(running.result())
        if not self.turnstile.closed:
            self._dispatch()

    def _forget(self, job: Job) -> None:
        """A job whose caller went away: dropped if it still waits."""
        queue = self._queues.get(job.room)
        if queue is None or job not in queue:
            return
        queue.remove(job)
        self.waiting -= 1
        if not queue:
            del self._queues[job.room]
            if job.room not in self._thinking:
                self._turns.remove(job.room)
