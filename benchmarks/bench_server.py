"""Room server load: N rooms of two bot clients each, over loopback, against one server.

Run: ``python benchmarks/bench_server.py [--rooms 10,100,500] [--seconds S | --moves M]
[--warmup S] [--think MS] [--no-saturate] [--pack duel-classic] [--durable | --no-durable]
[--check-messages] [--no-compression] [--rate R] [--seed N] [--profile PREFIX] [--json]
[--store postgresql://... [--processes N [--sticky]]]``.
Needs the ``serve`` extra (the clients use the ``websockets`` library).

With ``--store URL`` each server keeps its rooms on that PostgreSQL server (``lc serve
--store``), in a fresh database made for the level from the URL's (``CREATE DATABASE``,
dropped after; the URL's user needs ``CREATEDB``; the ``postgresql`` extra). Where the
database server runs on this machine, its processes' CPU time in the window is measured
too (its ``postmaster.pid``, read from ``data_directory``: the URL's user must be allowed
to read that setting) and counted in the CPU a move.

With ``--processes N`` (``--store`` only) each level runs N ``lc serve --store`` processes
on the one database and one shared ``--data`` folder, as a deployment behind a reverse
proxy does (docs/server.md, "Deployment: several processes"). The clients spread over
them round-robin by connection, as a proxy without sticky sessions does: room i is
opened (``POST /rooms``) on process i mod N, its seat s's client connects to process
(2i + s) mod N, so with two processes each room has a player on each and every move
crosses from one process to the other through the database (its notification, then the
other process's read). With ``--sticky`` both clients of room i connect to process i mod N
(as a proxy hashing the room's path would): no move crosses. The CPU time of each
process in the window is printed beside their sum (the server CPU figures are the sum).

Each level (a number of rooms) is run twice, each time on a fresh server:

- at the bots' stated pace, ``--think MS`` (default 1000 ms a move: a brisk player): a
  client to move waits from half to one and a half times MS, then sends its move. The
  pause is the bots' thinking, outside the measured interval; the issues' targets (p99
  under 50 ms at 100 rooms, "excluding the bots' thinking"; then issue 30's, at 1,000
  rooms on one process, a move a second in each) are read at this pace;
- saturated (``--think 0``; skipped by ``--no-saturate``): each bot answers at once, so
  each room has a move in flight at all times, a closed loop that saturates the server
  whatever its speed. Its moves per second is the server's throughput; its latency is
  about rooms / moves per second (Little's law) and says nothing else.

Each server is a real subprocess on a free port with a fresh data folder: ``lc serve
--port P --data TMP`` as it is (its store's durability is ``create_app``'s default;
the messages it sends are not checked against the schema); with ``--durable``,
``--no-durable``, ``--check-messages`` or ``--profile``, uvicorn on ``create_app(TMP,
durable=..., check_messages=...)`` with ``lc serve``'s settings (its WebSocket settings,
``WS_SETTINGS``, and its garbage collector's, ``tune_collector``), from this file. It is
ready when ``GET /packs`` answers. Then every room is opened (``POST /rooms``), two
WebSocket clients per room ``/join`` a seat each and one ``/start``\\ s. A client to move
picks a move from the ``legal`` list it was sent, uniformly with a seeded rng, and sends
it; at the match end both send ``/cont`` (the pack must allow it: duel-classic does), so
the load stays steady without opening rooms beyond the server's cap. Every client keeps
to the server's rate (``--rate``, default 10 messages a second per connection): a move
that has to wait for its turn of the rate waits before it is sent.

Printed per level and pace, over the measured window (after ``--warmup`` seconds, then
``--seconds`` seconds, or until each room has played ``--moves`` more moves):

- moves per second (the whole room count, moves answered);
- the latency of a move: from sending ``move`` to receiving that client's next
  ``state`` message that counts the turn (``room.turns`` grew): median, p90, p99, max.
  The bots' choosing and thinking and the rate waits are outside it; the client's own
  event loop is inside it (its CPU time is printed, and how late its loop wakes from a
  20 ms sleep: one client process runs every connection, on the same machine as the
  server);
- the server's CPU time in the window (seconds, share of one core, per move) and in all, its
  resident memory high-water mark (``VmHWM`` of ``/proc/PID/status``) and at the end
  (with ``--processes``: the processes' sum, the largest process's memory, and each
  process's CPU seconds in the window);
- the conditions: cores, load average before and after, Python, connections (and on
  how many the server took the clients' offer of compression), errors the clients
  received, moves that had to wait for the rate, rooms the server never started (a
  ``/start`` refused: they play no move, the load is lower).

With ``--json`` the table goes to stderr and one JSON object to stdout. With
``--profile PREFIX`` the server runs under cProfile (the event loop and its worker
threads, each profiled by its own CPU time, ``time.thread_time``, so a worker's waiting
for the store's lock or a sync to disk is not counted as work, and merged; the setup of
the rooms is in it too) and writes ``PREFIX-ROOMS-THINK.prof``; the heaviest
functions are printed (profiling slows the server: its latency figures are not the
server's). A level the server refuses (a room cap, a connection cap) is reported as
such, never lowered. Figures, not assertions.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

#: how long the server may take to answer ``GET /packs`` after it is started
READY_SECONDS = 120.0
#: how long a move may stay unanswered, and the setup of one room may take
ANSWER_SECONDS = 60.0
#: rooms being opened and joined at once
SETUP_AT_ONCE = 16
#: the period of the probe of the clients' event loop's lateness
LAG_PROBE_SECONDS = 0.02
#: a latency figure's percentiles
PERCENTILES = (50, 90, 99)

CHILD_FLAG = "--child-server"
#: the bots' default pace, ms a move: a brisk human player
DEFAULT_THINK_MS = 1000.0


# --------------------------------------------------------------------------- the server

def child_server(port: int, data: str, durable: bool, check: bool,
                 profile: Optional[str]) -> None:
    """Serve ``create_app(data, durable=durable, check_messages=check)`` on
    127.0.0.1:``port`` as ``lc serve`` does (same uvicorn settings) until SIGINT; with
    ``profile``, under cProfile by each thread's CPU time: the event loop's thread and
    each worker thread of the hub's pools, merged into one file."""
    import cProfile
    import pstats
    from concurrent.futures import ThreadPoolExecutor

    import uvicorn

    from lostcities.server.app import IO_THREADS, WS_SETTINGS, create_app, tune_collector
    from lostcities.server.bots import BotScheduler

    app = create_app(Path(data), durable=durable, check_messages=check)
    profilers: list[cProfile.Profile] = []
    if profile:
        def profiled() -> None:
            profiler = cProfile.Profile(time.thread_time)
            profilers.append(profiler)
            profiler.enable()

        hub = app.state.hub
        hub.io_pool.shutdown()
        hub.io_pool = ThreadPoolExecutor(max_workers=IO_THREADS, thread_name_prefix="lc-room",
                                         initializer=profiled)
        hub.bots.close()
        hub.bots = BotScheduler(hub.limits, initializer=profiled)
        main_profiler = cProfile.Profile(time.thread_time)
        main_profiler.enable()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, **WS_SETTINGS,
                            log_level="warning", lifespan="on")
    tune_collector()
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:
        pass
    if profile:
        main_profiler.disable()
        stats = pstats.Stats(main_profiler)
        for profiler in profilers:  # their threads have ended (the pools are shut down)
            stats.add(profiler)
        stats.dump_stats(profile)


def serve_durable() -> bool:
    """Whether ``lc serve``'s store is durable (``synchronous=FULL``): ``create_app``'s
    default, which ``lc serve`` keeps."""
    import inspect

    from lostcities.server.app import create_app

    return bool(inspect.signature(create_app).parameters["durable"].default)


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """One server subprocess on a fresh data folder: started, waited for, measured, stopped."""

    def __init__(self, durable: Optional[bool], check: bool, profile: Optional[str],
                 extra: tuple[str, ...] = (), data: Optional[str] = None):
        """``extra``: more options of ``lc serve`` (e.g. ``--limit rooms=1200``; with
        ``lc serve``'s own settings only); ``data``: its ``--data`` folder, shared with
        other processes (default: a fresh one of its own)."""
        self.folder = tempfile.TemporaryDirectory(prefix="bench-server-")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        if data is None:
            data = os.path.join(self.folder.name, "data")
        if durable is None and not check and not profile:  # lc serve's own settings
            command = [sys.executable, "-c", "from lostcities.cli.app import main; main()",
                       "serve", "--port", str(self.port), "--data", data, *extra]
        else:
            if durable is None:
                durable = serve_durable()
            command = [sys.executable, os.path.abspath(__file__), CHILD_FLAG, str(self.port),
                       data, "durable" if durable else "normal",
                       "check" if check else "nocheck", profile or ""]
        self.log = open(os.path.join(self.folder.name, "server.log"), "w+b")
        self.proc = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)

    def wait_ready(self) -> float:
        """Seconds until ``GET /packs`` answered (``RuntimeError``: the server died or did
        not answer within :data:`READY_SECONDS`)."""
        start = time.monotonic()
        while time.monotonic() - start < READY_SECONDS:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited ({self.proc.returncode}): "
                                   f"{self.output()[-500:]}")
            try:
                with urllib.request.urlopen(f"{self.base}/packs", timeout=5) as answer:
                    if answer.status == 200:
                        return time.monotonic() - start
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.1)  # polling a condition (the port answering), bounded above
        raise RuntimeError(f"the server did not answer GET /packs within {READY_SECONDS:g} s")

    def output(self) -> str:
        """What the server printed so far."""
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode("utf-8", errors="replace")

    def cpu_seconds(self) -> float:
        """The server process's CPU time so far (user + system)."""
        with open(f"/proc/{self.proc.pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def memory_kib(self) -> dict[str, int]:
        """``VmHWM`` (the resident high-water mark) and ``VmRSS`` of the server, KiB."""
        out = {}
        with open(f"/proc/{self.proc.pid}/status", encoding="ascii") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in ("VmHWM", "VmRSS"):
                    out[key] = int(value.split()[0])
        return out

    def stop(self) -> int:
        """Ctrl-C the server and wait for it (killed if it takes over a minute)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        self.folder.cleanup()
        return self.proc.returncode


class Database:
    """A fresh PostgreSQL database for one level, made on the server of ``--store URL``
    (``CREATE DATABASE``) and dropped after it; the CPU time of that server's processes
    when it runs on this machine."""

    count = 0

    def __init__(self, url: str):
        import psycopg
        from urllib.parse import urlsplit, urlunsplit

        Database.count += 1
        self.name = f"bench_{os.getpid()}_{Database.count}"
        parts = urlsplit(url)
        self.admin_url = url
        self.url = urlunsplit(parts._replace(path=f"/{self.name}"))
        with psycopg.connect(url, autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{self.name}"')
            try:
                folder = db.execute("SHOW data_directory").fetchone()[0]
                with open(os.path.join(folder, "postmaster.pid"), encoding="ascii") as pid:
                    self.postmaster: Optional[int] = int(pid.readline())
            except (psycopg.Error, OSError, ValueError):
                self.postmaster = None  # elsewhere, or not ours to read: no CPU figure

    def cpu_seconds(self) -> Optional[float]:
        """The CPU time (user + system) of the database server's processes on this
        machine: its postmaster and every child (the connections' backends, the WAL
        writer...), or None where it cannot be read."""
        if self.postmaster is None:
            return None
        ticks = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # a process gone meanwhile
            if int(entry) == self.postmaster or int(fields[1]) == self.postmaster:
                ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def drop(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


# --------------------------------------------------------------------------- the clients

@dataclass
class Tally:
    """What the clients of one level measured."""

    window_start: float = 0.0
    window_end: float = float("inf")
    stopping: bool = False
    latencies: list[float] = field(default_factory=list)
    moves_sent: int = 0
    paced: int = 0
    unanswered: int = 0
    conts: int = 0
    rounds: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    closed: dict[str, int] = field(default_factory=dict)
    last_answer: float = 0.0
    #: connections on which the server took the clients' offer of compression
    compressed: int = 0

    def measured(self, sent_at: float) -> bool:
        return self.window_start <= sent_at < self.window_end


class Client:
    """One bot client: a WebSocket, its seat, its rate, the move it waits an answer for."""

    def __init__(self, socket_: Any, room: "RoomLoad", rng: random.Random, interval: float):
        self.ws = socket_
        self.room = room
        self.rng = rng
        self.interval = interval
        self.next_send = 0.0
        self.seat: Optional[int] = None
        self.seated = asyncio.Event()
        self.pending: Optional[tuple[float, int]] = None  # (sent at, turns then)
        self.cont_at: Optional[int] = None
        self.last: Optional[dict[str, Any]] = None  # the last state message
        self.reader: Optional[asyncio.Task[None]] = None

    async def send(self, message: dict[str, Any]) -> float:
        """Send ``message`` within the rate; the time it left (after any rate wait)."""
        now = time.perf_counter()
        if now < self.next_send:
            await asyncio.sleep(self.next_send - now)
            now = time.perf_counter()
        self.next_send = max(now, self.next_send) + self.interval
        await self.ws.send(json.dumps(message))
        return now

    async def read(self) -> None:
        """Answer the server until the connection closes."""
        tally = self.room.tally
        try:
            async for text in self.ws:
                arrived = time.perf_counter()
                message = json.loads(text)
                kind = message.get("type")
                if kind == "state":
                    await self.on_state(message, arrived)
                elif kind == "seated":
                    self.seat = message["seat"]
                    self.seated.set()
                elif kind == "error":
                    key = message.get("key", "?")
                    tally.errors[key] = tally.errors.get(key, 0) + 1
                    if self.pending is not None:  # the move was refused: choose again
                        self.pending = None
                        if self.last is not None:
                            await self.on_state(self.last, arrived)
                elif kind == "round" and self.seat == 0:
                    tally.rounds += 1
        except Exception as err:  # the connection closed: say how, once per kind
            code = getattr(getattr(err, "rcvd", None), "code", None)
            key = f"{type(err).__name__} {code}" if code is not None else type(err).__name__
            if not tally.stopping:
                tally.closed[key] = tally.closed.get(key, 0) + 1

    async def on_state(self, message: dict[str, Any], arrived: float) -> None:
        tally = self.room.tally
        self.last = message
        info = message["room"]
        turns = info["turns"]
        if self.pending is not None and turns > self.pending[1]:
            sent_at = self.pending[0]
            self.pending = None
            if tally.measured(sent_at):
                tally.latencies.append(arrived - sent_at)
                tally.last_answer = arrived
        if info["status"] != "lobby":
            self.room.started = True
        if tally.stopping or self.room.done():
            return
        legal = message.get("legal")
        if info["status"] == "playing" and legal and self.pending is None:
            move = self.rng.choice(legal)  # the bot's thinking: outside the measure
            if self.room.think > 0:
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.room.think)
                if tally.stopping or self.room.done():
                    return
            waits = time.perf_counter() < self.next_send
            sent_at = await self.send({"type": "move", "move": move})
            self.pending = (sent_at, turns)
            tally.moves_sent += 1
            if tally.measured(sent_at):
                tally.paced += waits
                self.room.measured_moves += 1
        elif info["status"] == "over" and info["continuation"] and self.cont_at != turns:
            self.cont_at = turns
            tally.conts += 1
            await self.send({"type": "line", "text": "/cont"})


class RoomLoad:
    """One room and its two clients."""

    def __init__(self, index: int, tally: Tally, moves: Optional[int], think: float = 0.0):
        self.index = index
        self.think = think
        self.tally = tally
        self.moves = moves
        self.measured_moves = 0
        #: whether a client saw the match dealt (a room the server never started plays
        #: no move: counted, as it lowers the load)
        self.started = False
        self.clients: list[Client] = []
        self.room_id = ""

    def done(self) -> bool:
        """Whether the room has played its ``--moves`` in the window."""
        return self.moves is not None and self.measured_moves >= self.moves

    async def setup(self, bases: list[str], sticky: bool, pack: str, seed: int,
                    interval: float, compression: bool) -> None:
        """Open the room, connect two clients, seat them (``RuntimeError``: refused).
        ``bases``: the servers' addresses; the room is opened on the one of its index
        (round-robin), its clients connect round-robin by connection, or with ``sticky``
        both to the room's server (one server: all on it)."""
        from websockets.asyncio.client import connect

        # each room's players come from an address of their own (the server trusts the
        # loopback's X-Forwarded-For), as visitors do: the per-address limits are theirs
        address = f"10.{self.index >> 16 & 255}.{self.index >> 8 & 255}.{self.index & 255}"
        self.room_id = await asyncio.to_thread(open_room, bases[self.index % len(bases)], pack,
                                               address)
        for seat in range(2):
            base = bases[(self.index if sticky else 2 * self.index + seat) % len(bases)]
            url = base.replace("http://", "ws://") + f"/rooms/{self.room_id}/ws"
            ws = await connect(url, open_timeout=ANSWER_SECONDS, ping_interval=None,
                               additional_headers={"X-Forwarded-For": address},
                               compression="deflate" if compression else None,
                               max_size=2 ** 20)
            self.tally.compressed += bool(ws.protocol.extensions)
            client = Client(ws, self, random.Random(f"{seed}:{self.index}:{seat}"), interval)
            client.reader = asyncio.ensure_future(client.read())
            self.clients.append(client)
            await client.send({"type": "line", "text": "/join"})
            try:
                await asyncio.wait_for(client.seated.wait(), ANSWER_SECONDS)
            except asyncio.TimeoutError:
                raise RuntimeError(f"room {self.index}: /join got no seat: "
                                   f"{self.tally.errors or self.tally.closed}") from None

    async def start(self) -> None:
        """``/start`` once the first client's state shows both seats taken (with several
        processes, the second seat was taken through another: its news may come after
        that seat's ``seated``), as a player starts when the other has sat down."""
        first = self.clients[0]
        bound = time.perf_counter() + ANSWER_SECONDS
        while (first.last is None or len(first.last["room"]["seats"]) < 2) and \
                time.perf_counter() < bound:
            await asyncio.sleep(0.02)  # polling a condition, bounded above
        await first.send({"type": "line", "text": "/start"})

    async def close(self) -> None:
        for client in self.clients:
            await client.ws.close()
        for client in self.clients:
            if client.reader is not None:
                await client.reader


def open_room(base: str, pack: str, address: str) -> str:
    """``POST /rooms`` ``{"pack": pack}`` from the client ``address``: the new room's id
    (``RuntimeError``: refused)."""
    request = urllib.request.Request(f"{base}/rooms", data=json.dumps({"pack": pack}).encode(),
                                     headers={"Content-Type": "application/json",
                                              "X-Forwarded-For": address}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=ANSWER_SECONDS) as answer:
            return json.loads(answer.read())["room"]
    except urllib.error.HTTPError as err:
        raise RuntimeError(f"POST /rooms: {err.code} {err.read()[:200].decode(errors='replace')}")


async def loop_lag(lags: list[float]) -> None:
    """Record how late the clients' event loop wakes from a sleep of
    :data:`LAG_PROBE_SECONDS` (until cancelled): a late client inflates every latency
    it measures, so its lateness is printed beside them."""
    while True:
        asked = time.perf_counter()
        await asyncio.sleep(LAG_PROBE_SECONDS)
        lags.append(max(0.0, time.perf_counter() - asked - LAG_PROBE_SECONDS))


def percentile(ordered: list[float], p: float) -> float:
    """The nearest-rank ``p``-th percentile of a sorted list."""
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


async def run_level(servers: list[Server], rooms: int, args: argparse.Namespace,
                    think: float, database: Optional["Database"] = None) -> dict[str, Any]:
    """Play ``rooms`` rooms against ``servers`` (one, or ``--processes`` on one database),
    each client thinking ``think`` ms a move on average; the level's figures (with
    ``database``, its CPU too)."""
    tally = Tally()
    loads = [RoomLoad(i, tally, args.moves, think / 1000) for i in range(rooms)]
    interval = 1.0 / args.rate
    gate = asyncio.Semaphore(SETUP_AT_ONCE)

    async def setup(load: RoomLoad) -> None:
        async with gate:
            await load.setup([server.base for server in servers], args.sticky, args.pack,
                             args.seed, interval, not args.no_compression)

    setup_start = time.perf_counter()
    results = await asyncio.gather(*(setup(load) for load in loads), return_exceptions=True)
    refused = [r for r in results if isinstance(r, BaseException)]
    setup_seconds = time.perf_counter() - setup_start
    figures: dict[str, Any] = {"rooms": rooms, "think_ms": think,
                               "setup_seconds": round(setup_seconds, 2)}
    if refused:
        tally.stopping = True
        await asyncio.gather(*(load.close() for load in loads if load.clients),
                             return_exceptions=True)
        first = refused[0]
        figures["impossible"] = (f"{len(refused)} of {rooms} rooms could not be set up: "
                                 f"{type(first).__name__}: {str(first)[:300]}")
        return figures
    connections = sum(len(load.clients) for load in loads)
    started = time.perf_counter()
    tally.window_start = started + args.warmup
    if args.moves is None:
        tally.window_end = tally.window_start + args.seconds
    await asyncio.gather(*(load.start() for load in loads))
    await asyncio.sleep(max(0.0, tally.window_start - time.perf_counter()))
    each_cpu_start = [server.cpu_seconds() for server in servers]
    database_cpu_start = database.cpu_seconds() if database else None
    client_start = resource.getrusage(resource.RUSAGE_SELF)
    window_start = time.perf_counter()
    lags: list[float] = []
    lag_probe = asyncio.ensure_future(loop_lag(lags))
    if args.moves is None:
        await asyncio.sleep(max(0.0, tally.window_end - time.perf_counter()))
        window_end = time.perf_counter()
    else:
        bound = time.perf_counter() + ANSWER_SECONDS * 10 + args.moves * 2.0
        while not all(load.done() for load in loads) and time.perf_counter() < bound:
            await asyncio.sleep(0.05)  # polling a condition, bounded above
        window_end = time.perf_counter()
        tally.window_end = window_end
    each_cpu = [server.cpu_seconds() - start for server, start in zip(servers, each_cpu_start)]
    server_cpu = sum(each_cpu)
    database_cpu = (database.cpu_seconds() - database_cpu_start  # type: ignore[operator]
                    if database and database_cpu_start is not None else None)
    client_end = resource.getrusage(resource.RUSAGE_SELF)
    lag_probe.cancel()
    lags.sort()
    tally.stopping = True
    # moves sent in the window that are still on their way: waited for, within a bound
    bound = time.perf_counter() + ANSWER_SECONDS
    while any(c.pending is not None and tally.measured(c.pending[0])
              for load in loads for c in load.clients) and time.perf_counter() < bound:
        await asyncio.sleep(0.05)  # polling a condition, bounded above
    tally.unanswered = sum(1 for load in loads for c in load.clients
                           if c.pending is not None and tally.measured(c.pending[0]))
    memories = [server.memory_kib() for server in servers]
    memory = {key: max(m.get(key, 0) for m in memories) for key in ("VmHWM", "VmRSS")}
    server_cpu_all = sum(server.cpu_seconds() for server in servers)
    await asyncio.gather(*(load.close() for load in loads), return_exceptions=True)
    seconds = window_end - window_start
    ordered = sorted(tally.latencies)
    client_cpu = (client_end.ru_utime + client_end.ru_stime
                  - client_start.ru_utime - client_start.ru_stime)
    figures.update({
        "connections": connections,
        "compressed_connections": tally.compressed,
        "window_seconds": round(seconds, 2),
        "moves": len(ordered),
        "moves_per_second": round(len(ordered) / seconds, 1) if seconds > 0 else None,
        "latency_ms": ({f"p{p}": round(percentile(ordered, p) * 1000, 2) for p in PERCENTILES}
                       | {"max": round(ordered[-1] * 1000, 2),
                          "mean": round(statistics.fmean(ordered) * 1000, 2)}
                       if ordered else None),
        "paced_moves": tally.paced,
        "unanswered": tally.unanswered,
        "rooms_not_started": sum(1 for load in loads if not load.started),
        "rounds_ended": tally.rounds,
        "conts_sent": tally.conts,
        "errors": tally.errors,
        "closed": tally.closed,
        "server_cpu_seconds_window": round(server_cpu, 2),
        "server_cpu_share_window": round(server_cpu / seconds, 3) if seconds > 0 else None,
        "server_cpu_seconds_total": round(server_cpu_all, 2),
        "processes": len(servers),
        "process_cpu_seconds_window": [round(cpu, 2) for cpu in each_cpu],
        "process_peak_rss_mib": [round(m.get("VmHWM", 0) / 1024, 1) for m in memories],
        "server_cpu_ms_per_move": (round(server_cpu / len(ordered) * 1000, 2) if ordered
                                   else None),
        "database_cpu_seconds_window": (round(database_cpu, 2) if database_cpu is not None
                                        else None),
        "database_cpu_ms_per_move": (round(database_cpu / len(ordered) * 1000, 2)
                                     if database_cpu is not None and ordered else None),
        "server_peak_rss_mib": round(memory.get("VmHWM", 0) / 1024, 1),
        "server_rss_end_mib": round(memory.get("VmRSS", 0) / 1024, 1),
        "client_cpu_seconds_window": round(client_cpu, 2),
        "client_cpu_share_window": round(client_cpu / seconds, 3) if seconds > 0 else None,
        "client_cpu_ms_per_move": round(client_cpu / len(ordered) * 1000, 2) if ordered else None,
        "client_loop_lag_ms": ({f"p{p}": round(percentile(lags, p) * 1000, 1) for p in (50, 99)}
                               | {"max": round(lags[-1] * 1000, 1)} if lags else None),
    })
    return figures


def level(rooms: int, think: float, args: argparse.Namespace, say: Any) -> dict[str, Any]:
    """One level: a fresh server, the rooms played (each client thinking ``think`` ms a
    move), the server stopped; its figures."""
    load_before = os.getloadavg()
    profile = f"{args.profile}-{rooms}-{think:g}.prof" if args.profile else None
    database = Database(args.store) if args.store else None
    shared = tempfile.TemporaryDirectory(prefix="bench-server-data-")  # --processes' --data
    servers: list[Server] = []
    try:
        for _ in range(args.processes):
            servers.append(Server(durable=args.durable, check=args.check_messages,
                                  profile=profile,
                                  extra=("--store", database.url) if database else (),
                                  data=shared.name if args.processes > 1 else None))
            if len(servers) == 1:  # the first makes the database's tables alone
                ready = servers[0].wait_ready()
        ready = max([ready] + [server.wait_ready() for server in servers[1:]])
        figures = asyncio.run(run_level(servers, rooms, args, think, database))
        figures["server_ready_seconds"] = round(ready, 2)
    finally:
        output = "".join(server.output() for server in servers)
        codes = [server.stop() for server in servers]
        code = next((c for c in codes if c), codes[0] if codes else None)
        shared.cleanup()
        if database is not None:
            database.drop()
    figures["load_before"] = [round(x, 2) for x in load_before]
    figures["load_after"] = [round(x, 2) for x in os.getloadavg()]
    figures["server_exit"] = code
    problems = [line for line in output.splitlines() if "Traceback" in line or "Error" in line]
    if problems:
        figures["server_problems"] = problems[:5]
    if profile and os.path.exists(profile):
        import io
        import pstats

        stream = io.StringIO()
        stats = pstats.Stats(profile, stream=stream)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(30)
        figures["profile"] = profile
        say(f"profile of the server at {rooms} rooms ({profile}):\n{stream.getvalue()}")
    return figures


def show(figures: dict[str, Any], say: Any) -> None:
    """One level's line of the table, and its conditions under it."""
    if "impossible" in figures:
        say(f"{figures['rooms']:>6}  IMPOSSIBLE: {figures['impossible']}")
        if figures.get("server_problems"):
            say(f"        server said {figures['server_problems']}")
        return
    lat = figures["latency_ms"] or {}
    cell = (lambda key: f"{lat[key]:8.1f}" if key in lat else f"{'-':>8}")
    say(f"{figures['rooms']:>6} {figures['think_ms']:>6g} {figures['connections']:>6} "
        f"{figures['moves']:>8} "
        f"{figures['moves_per_second'] or 0:>8.1f} {cell('p50')} {cell('p90')} {cell('p99')} "
        f"{cell('max')} {figures['server_cpu_share_window']:>7.0%} "
        f"{figures['client_cpu_share_window']:>7.0%} "
        f"{figures['server_cpu_ms_per_move'] or 0:>8.2f} {figures['server_peak_rss_mib']:>8.1f}")
    extra = [f"load {figures['load_before'][0]:.2f} -> {figures['load_after'][0]:.2f}",
             f"window {figures['window_seconds']:.1f} s", f"setup {figures['setup_seconds']:.1f} s",
             f"server CPU {figures['server_cpu_seconds_window']:.1f} s in the window, "
             f"{figures['server_cpu_seconds_total']:.1f} s in all",
             f"waited for the rate {figures['paced_moves']}",
             *([f"{figures['processes']} processes' CPU in the window "
                + " + ".join(f"{cpu:.1f}" for cpu in figures["process_cpu_seconds_window"])
                + " s, peak MiB "
                + " / ".join(f"{mib:.0f}" for mib in figures["process_peak_rss_mib"])]
               if figures.get("processes", 1) > 1 else []),
             *([f"database CPU {figures['database_cpu_seconds_window']:.1f} s in the window, "
                f"{figures['database_cpu_ms_per_move']:.2f} ms a move"]
               if figures.get("database_cpu_ms_per_move") is not None else []),
             "clients' loop late by " + ("median {p50:.1f}, p99 {p99:.1f}, max {max:.1f} ms"
                                         .format(**figures["client_loop_lag_ms"])
                                         if figures.get("client_loop_lag_ms") else "?"),
             f"rounds {figures['rounds_ended']}", f"/cont {figures['conts_sent']}",
             f"compressed connections {figures['compressed_connections']}"]
    if figures.get("rooms_not_started"):
        extra.append(f"ROOMS NEVER STARTED {figures['rooms_not_started']} (see errors)")
    if figures["unanswered"]:
        extra.append(f"UNANSWERED {figures['unanswered']}")
    if figures["errors"]:
        extra.append(f"errors {figures['errors']}")
    if figures["closed"]:
        extra.append(f"connections closed {figures['closed']}")
    if figures.get("server_problems"):
        extra.append(f"server said {figures['server_problems']}")
    say("        " + "; ".join(extra))


def tree() -> str:
    """The commit the benchmark runs on, and ``+ changes`` when the server's or the
    engine's files differ from it (the tree is shared: say what was measured)."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, text=True,
                              capture_output=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "server", "engine"],
                               cwd=root, text=True, capture_output=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head or "unknown") + (" + changes in server/ or engine/" if dirty.strip() else "")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == CHILD_FLAG:
        port, data, mode, check, profile = sys.argv[2:7]
        child_server(int(port), data, mode == "durable", check == "check", profile or None)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", default="10,100,500",
                        help="the levels: numbers of concurrent rooms, comma-separated")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--seconds", type=float, default=20.0,
                        help="the measured window of each level, in seconds")
    length.add_argument("--moves", type=int, help="instead: moves each room plays in the window")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds of play before the window opens")
    parser.add_argument("--pack", default="duel-classic")
    store = parser.add_mutually_exclusive_group()
    store.add_argument("--durable", dest="durable", action="store_const", const=True,
                       help="the store with synchronous=FULL (create_app(durable=True)); "
                            "default: lc serve's")
    store.add_argument("--no-durable", dest="durable", action="store_const", const=False,
                       help="the store with synchronous=NORMAL (create_app(durable=False))")
    parser.add_argument("--check-messages", action="store_true",
                        help="the server checks every message it sends against the schema "
                             "(create_app(check_messages=True), as the tests run it; lc serve "
                             "does not)")
    parser.add_argument("--no-compression", action="store_true",
                        help="clients offer no permessage-deflate (browsers do offer it; "
                             "lc serve declines it since WS_SETTINGS)")
    parser.add_argument("--rate", type=float, default=10.0,
                        help="messages a second each client sends at most (the server's limit)")
    parser.add_argument("--think", type=float, default=DEFAULT_THINK_MS, metavar="MS",
                        help="the bots' pace: a pause before each move (uniform from half to "
                             "one and a half times MS), outside the measure; the latency "
                             "figures are at this pace (0: no pause, the closed loop)")
    parser.add_argument("--no-saturate", action="store_true",
                        help="skip the saturated run (bots answering at once) of each level")
    parser.add_argument("--seed", type=int, default=1, help="the clients' choices")
    parser.add_argument("--profile", metavar="PREFIX",
                        help="run the server under cProfile, writing PREFIX-ROOMS-THINK.prof")
    parser.add_argument("--store", metavar="URL",
                        help="lc serve --store: the rooms on this PostgreSQL server, a fresh "
                             "database each level (postgresql://USER:PASSWORD@HOST:PORT/DB)")
    parser.add_argument("--processes", type=int, default=1, metavar="N",
                        help="with --store: N lc serve processes on the one database and one "
                             "--data folder, the clients spread over them round-robin by "
                             "connection (a room's two players on two processes)")
    parser.add_argument("--sticky", action="store_true",
                        help="with --processes: both clients of a room on the process it was "
                             "opened on (as a proxy hashing the room's path would)")
    parser.add_argument("--json", action="store_true",
                        help="the table to stderr, one JSON object to stdout")
    args = parser.parse_args()
    try:
        levels = [int(n) for n in args.rooms.split(",") if n.strip()]
    except ValueError:
        parser.error(f"--rooms {args.rooms!r}: numbers separated by commas")
    if not levels or min(levels) < 1 or max(levels) > 100_000:
        parser.error("--rooms: each level from 1 to 100000")
    if args.rate <= 0 or args.warmup < 0 or (args.moves is not None and args.moves < 1) or \
            args.seconds <= 0 or args.think < 0:
        parser.error("--rate, --seconds, --moves must be positive, --warmup and --think "
                     "not negative")
    try:
        import websockets
        import uvicorn
    except ImportError:
        parser.error("needs the serve extra: pip install 'lostcities[serve]'")
    if not 1 <= args.processes <= 64:
        parser.error("--processes: from 1 to 64")
    if args.processes > 1 and not args.store:
        parser.error("--processes N needs --store postgresql://...: SQLite's store is one "
                     "process's")
    if args.sticky and args.processes == 1:
        parser.error("--sticky needs --processes N (N > 1)")
    if args.store and (args.durable is not None or args.check_messages or args.profile):
        parser.error("--store runs lc serve as it is: without --durable, --no-durable, "
                     "--check-messages, --profile")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, 4 * max(levels) + 256))  # the server inherits it
    if wanted > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    out = sys.stderr if args.json else sys.stdout

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    durable = serve_durable() if args.durable is None else args.durable
    lc_serve = args.durable is None and not args.check_messages and not args.profile
    paces = [args.think] + ([0.0] if args.think > 0 and not args.no_saturate else [])
    conditions = {
        "cores": os.cpu_count(), "python": sys.version.split()[0],
        "websockets": websockets.__version__, "uvicorn": uvicorn.__version__,
        "pack": args.pack, "durable": durable,
        "server": ("lc serve" if lc_serve else "uvicorn on create_app (this file)")
        + (", cProfile" if args.profile else ""),
        "store": "PostgreSQL (--store)" if args.store else "SQLite",
        "processes": args.processes,
        "clients_spread": ("one process" if args.processes == 1 else
                           "by room (sticky)" if args.sticky else "round-robin by connection"),
        "check_messages": args.check_messages, "tree": tree(),
        "compression": not args.no_compression, "rate_per_connection": args.rate,
        "think_ms": args.think, "paces_ms": paces,
        "warmup_seconds": args.warmup,
        "window": f"{args.moves} moves per room" if args.moves else f"{args.seconds:g} s",
        "open_files_limit": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
    }
    say(f"bench_server: {args.pack}, {conditions['cores']} cores, Python "
        f"{conditions['python']}, websockets {conditions['websockets']}, uvicorn "
        f"{conditions['uvicorn']}; server: {conditions['server']}, store "
        f"{conditions['store']} "
        + (f"x {args.processes} processes on one database, the clients spread "
           f"{conditions['clients_spread']}, " if args.processes > 1 else "")
        + f"{'durable (synchronous=FULL)' if durable else 'synchronous=NORMAL'}, "
        f"messages sent {'checked' if conditions['check_messages'] else 'not checked'} "
        f"against the schema; tree {conditions['tree']}; "
        f"compression {'offered' if conditions['compression'] else 'not offered'} by the "
        f"clients (what the server took: each level's compressed connections); each client at most "
        f"{args.rate:g} messages/s; window {conditions['window']} after {args.warmup:g} s")
    say(f"the bots' pace (think, ms): {args.think:g} a move on average (uniform from "
        f"{args.think / 2:g} to {args.think * 1.5:g}), outside the measured interval"
        + ("; then 0 (each bot answers at once: a closed loop that saturates the server, "
           "its moves/s is the server's throughput and its latency about rooms / moves/s)"
           if 0.0 in paces and args.think > 0 else ""))
    say("two clients per room, one process for all clients; latency: move sent -> that "
        "client's next state counting it (ms)")
    say(f"{'rooms':>6} {'think':>6} {'conns':>6} {'moves':>8} {'moves/s':>8} {'median':>8} "
        f"{'p90':>8} {'p99':>8} {'max':>8} {'srv CPU':>7} {'cli CPU':>7} {'CPU/move':>8} "
        f"{'peak MiB':>8}")
    results = []
    for rooms in levels:
        for think in paces:
            try:
                figures = level(rooms, think, args, say)
            except RuntimeError as err:
                figures = {"rooms": rooms, "think_ms": think, "impossible": str(err)[:500]}
            results.append(figures)
            show(figures, say)
    for rooms in (100, 1000):
        target = next((f for f in results if f["rooms"] == rooms and f["think_ms"] == args.think
                       and f.get("latency_ms")), None)
        if target is not None:
            p99 = target["latency_ms"]["p99"]
            say(f"target p99 < 50 ms at {rooms} rooms, bots thinking {args.think:g} ms a move: "
                f"p99 {p99:.1f} ms: {'met' if p99 < 50 else 'NOT met'} (load "
                f"{target['load_before'][0]:.1f} -> {target['load_after'][0]:.1f} on "
                f"{os.cpu_count()} cores)")
    saturated = [f for f in results if f["think_ms"] == 0 and f.get("moves_per_second")]
    if saturated:
        say("saturated throughput (bots answering at once): " + ", ".join(
            f"{f['rooms']} rooms {f['moves_per_second']:.0f} moves/s" for f in saturated))
    for f in saturated:  # where the limit is: the CPU of a move, everything on this machine
        parts = [("lc serve", f["server_cpu_ms_per_move"]),
                 ("PostgreSQL", f.get("database_cpu_ms_per_move")),
                 ("the clients", f.get("client_cpu_ms_per_move"))]
        known = [(name, ms) for name, ms in parts if ms]
        total = sum(ms for _, ms in known)
        f["machine_ceiling_moves_per_second"] = round(os.cpu_count() * 1000 / total)
        say(f"{f['rooms']} rooms saturated: CPU a move "
            + " + ".join(f"{ms:.2f} ms ({name})" for name, ms in known)
            + f" = {total:.2f} ms: {os.cpu_count()} cores get through at most "
            f"{f['machine_ceiling_moves_per_second']} moves/s with everything on this machine")
    if args.json:
        print(json.dumps({"conditions": conditions, "levels": results}, indent=2))


if __name__ == "__main__":
    main()
