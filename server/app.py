"""The room server's Starlette application (``lc serve``; docs/server.md).

- ``GET /``, ``/r/{id}``, ``/static/...``: the web page (:mod:`.web`);
- ``GET /packs``: the packs a room can be opened with;
- ``POST /rooms`` ``{"pack": ID, "hints": false}``: a new room, ``{"room": "k3v9q2xa", ...}``;
- ``GET /rooms/{id}``: the room's public state (what a spectator sees);
- ``GET /rooms/{id}/pack``: the room's resolved pack (what records embed as ``pack_data``);
- ``WS /rooms/{id}/ws``: the protocol (``protocol.schema.json``);
- ``GET /lobby``, ``WS /lobby/ws``: the lobby and the quick match (:mod:`.lobby_web`).
- ``POST /players``, ``/players/{id}``, ``/leaderboard``: players and ratings
  (:mod:`.players`).

Each connection has a bounded send queue drained by its own task: a client too slow to
read is dropped, never waited for. A room's calls run one at a time (an asyncio lock per
room). A move is checked and applied by the engine on the event loop (microseconds),
and only its commit to the store runs in a worker thread (several rooms' turns share
one commit: :meth:`~.store.SQLiteStore.add_turn`); the commands and chat lines, rarer,
run whole in a worker thread; the bots' choices and hints think in threads of their own,
shared fairly by the rooms (:mod:`.bots`: a room waits for its own bots, not others').
So neither the store's writes nor a slow bot block the event loop. Each message is
built and encoded once for every client that receives the same bytes (a seat's view
once per seat, an event once per language).

Who is present in a room is read from its open connections (:meth:`Hub.present`), the
only thing a server holds that the store does not; when the last connection of a seat
closes, the seat's ``seen`` time is stored, so ``/bot`` can take over a seat left empty
longer than ``Limits.takeover_seconds``, after a restart too.
"""
from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import sqlite3
import threading
import time
from collections import Counter, deque
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Optional, Sequence
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from lostcities.engine import LostCitiesError, Move, load_pack
from lostcities.engine.tooling import loads_json, lone_surrogate, record_form

from .bots import BotScheduler, Refused
from .clients import (AllowedHosts, Bucket, RoomQuota, address_of, host_allowed, host_names,
                      next_message)
from .clocks import TimeControl, clock_bounds, control_of
from .guard import Throttle
from .http import COMMON_HEADERS, http_error, is_json, lang_asked, read_body, read_json, too_fast
from .lobby import Lobby, QueueKey, room_summary
from .lobby_web import encode_lobby
from .lobby_web import routes as lobby_routes
from .players import player_routes
from .protocol import (LIMITS, ROOM_GONE, ROOM_GONE_REASON, STORE_AWAY, STORE_LOST, Limits,
                       clean_text, lang_of, localize, problem, said_here)
from .replays import Desk, frames, read_match
from .room import (BotTurn, Due, Outcome, PlannedTurn, Room, RoomError, error, is_room_id,
                   new_room_id, refused)
from .store import (ANNOUNCE_BYTES, LOBBY, PLAYING, DamagedRow, PlayerRow, SQLiteStore,
                    StaleRoom, Store, StoreError, token_hash)
from .store_pg import PostgresStore
from .web import replay_answer, routes as web_routes

#: the worker threads of the room calls' store writes: more of them waiting means more
#: turns in one group commit (one fsync), and a thread waiting costs next to nothing
IO_THREADS = 16
#: where the server says what it left out or could not save (one line each)
log = logging.getLogger(__name__)
#: a bot's move the store could not save is tried again after this many seconds,
#: doubling up to the second figure (the turn stays the bot's meanwhile)
BOT_RETRY_FIRST, BOT_RETRY_MOST = 1.0, 30.0
#: writes the store refused are said in the log at most once in this many seconds (the
#: line counts the others)
UNSAVED_LOG_SECONDS = 10.0
#: a command refused because another process wrote the room first is tried again (on the
#: room caught up) at most this many times
STALE_TRIES = 5
#: the events another process's clients cannot rebuild from the stored room (turns,
#: rounds and matches they can): announced to them (:meth:`Hub.announce_said`)
SAID_ELSEWHERE = ("info", "chat")


#: uvicorn's WebSocket settings of ``lc serve`` (bench_server.py's server takes them too):
#: no per-message compression (permessage-deflate), which browsers offer but do not need.
#: A state message is 1 to 4 KiB of JSON; compressing every frame cost about a tenth of
#: the server's CPU a move and ~48 KiB of zlib state a connection (95 MiB at 2,000
#: connections; docs/server.md, "Load")
WS_SETTINGS: dict[str, Any] = {"ws": "auto", "ws_max_size": 65536,
                               "ws_per_message_deflate": False}
#: the cyclic garbage collector's thresholds in ``lc serve`` (:func:`tune_collector`):
#: Python's default young collections, a full collection after 1,000 of the middle one's
#: rather than 10
GC_THRESHOLDS = (700, 10, 1000)


def tune_collector() -> None:
    """Set Python's cyclic garbage collector for a long-running server (``lc serve`` calls
    it once, before it serves): what is loaded by then (modules, packs) is moved out of
    its sight (:func:`gc.freeze`), and a full collection comes 100 times less often
    (:data:`GC_THRESHOLDS`). A full collection walks every object of every room and
    connection, the event loop stopped meanwhile: 0.1 to 0.2 s at 1,000 rooms, and the
    default thresholds ran one every few seconds at 1,000 moves a second; the young
    collections (about 1 ms) stay as they were. Objects are freed as before when their
    last reference goes; only garbage in reference cycles that lived long waits longer."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


#: the environment variable of the test hook that kills the server just before or after
#: the commit of a rating (:class:`~.store.SQLiteStore`'s ``crash_at``): ``before``, ``after``
CRASH_AT_RATING = "LC_SERVE_CRASH_AT_RATING"

#: a pack's name and description as GET /packs lists them, in characters at most
PACK_NAME_CHARS, PACK_DESCRIPTION_CHARS = 80, 300


class Shelf:
    """The packs rooms may be opened with: the built-in ones (``builtin:ID``) and the house
    packs of ``lc serve --packs DIR`` (``house:ID``), all through :func:`load_pack`."""

    def __init__(self, house: Optional[Path] = None):
        self.builtin = sorted(Path(str(p)).stem for p in
                              resources.files("lostcities.rulepacks").iterdir()
                              if str(p).endswith(".yaml"))
        self.house: dict[str, Any] = {}
        #: the house packs that could not be loaded: one line each
        self.problems: list[str] = []
        self._loaded: dict[str, Any] = {}
        self._names: Optional[list[dict[str, Any]]] = None
        if house is not None:
            for path in sorted(house.iterdir())[:500]:
                if path.suffix not in (".yaml", ".yml") or not path.is_file():
                    continue
                try:
                    pack = load_pack(path)
                except LostCitiesError as err:
                    self.problems.append(str(err).splitlines()[0][:300])
                    continue
                if pack.id in self.builtin or pack.id in self.house:
                    self.problems.append(f"{path.name}: pack id {pack.id} is already served")
                    continue
                self.house[pack.id] = pack

    def names(self) -> list[dict[str, Any]]:
        """Every pack a room may use, as ``GET /packs`` lists it: ``{"pack": ID, "kind":
        "builtin" | "house", "name", "description", "family": "duel" | "board", "players":
        [MIN, MAX]}``, the texts by the server's rule for data text (:func:`~.protocol.clean_text`,
        at most :data:`PACK_NAME_CHARS` and :data:`PACK_DESCRIPTION_CHARS` characters).
        Worked out once: the packs served do not change while the server runs."""
        if self._names is None:
            self._names = [self._entry(self.find(f"builtin:{p}"), "builtin")
                           for p in self.builtin] + \
                [self._entry(self.house[p], "house") for p in sorted(self.house)]
        return self._names

    @staticmethod
    def _entry(pack: Any, kind: str) -> dict[str, Any]:
        return {"pack": pack.id, "kind": kind, "name": clean_text(pack.name, PACK_NAME_CHARS),
                "description": clean_text(pack.description, PACK_DESCRIPTION_CHARS),
                "family": pack.family, "players": [pack.min_players, pack.max_players]}

    def ref(self, name: str) -> Optional[str]:
        """The stored reference of the pack called ``name``, or None."""
        if name in self.house:
            return f"house:{name}"
        return f"builtin:{name}" if name in self.builtin else None

    def find(self, ref: str) -> Any:
        """The pack of a stored reference (:class:`RoomError` when it is not served)."""
        kind, _, name = ref.partition(":")
        if kind == "house" and name in self.house:
            return self.house[name]
        if kind == "builtin" and name in self.builtin:
            if name not in self._loaded:
                self._loaded[name] = load_pack(name)
            return self._loaded[name]
        raise RoomError(f"the pack {ref} is not served here (lc serve --packs)")


def encode(message: dict[str, Any], lang: str, check: bool) -> str:
    """``message`` as a client whose language is ``lang`` receives it: localized
    (:func:`~.protocol.localize`), checked against the schema when ``check`` (a message
    off the protocol is the server's bug: ``RuntimeError``), JSON text."""
    message = localize(message, lang)
    if check:
        reason = problem(message, "server")
        if reason is not None:
            raise RuntimeError(f"the server built a message off the protocol: {reason}")
    return to_json(message)


#: ``json.dumps(message, ensure_ascii=False)``, its encoder made once (each message sent)
to_json = json.JSONEncoder(ensure_ascii=False).encode


def speaks(message: dict[str, Any]) -> bool:
    """Whether ``message`` is said in each client's language (its text differs by
    language: an ``info``/``error`` note, a ``turn`` or ``hint`` in words)."""
    return "params" in message or isinstance(message.get("words"), list)


class Connection:
    """One client's WebSocket: its language, seat token, rate bucket and send queue."""

    def __init__(self, socket: WebSocket, limits: Limits, lang: str, check: bool,
                 address: str = ""):
        self.socket = socket
        #: the client's address as the limits count it (:func:`~.clients.address_of`)
        self.address = address
        self.limits = limits
        self.lang = lang
        self.check = check
        self.token_digest: Optional[str] = None
        #: the player this client said it is (its key checked, ``hello``'s ``player``)
        self.player: Optional[PlayerRow] = None
        self.queue: asyncio.Queue[Optional[str]] = asyncio.Queue(maxsize=limits.send_queue)
        self.closed = False
        #: the close under way once :meth:`drop` was called
        self.closing: Optional[asyncio.Future[None]] = None
        self._tokens = float(limits.burst)
        self._last = time.monotonic()
        self.writer = asyncio.ensure_future(self._write())

    def seat(self, room: Room) -> Optional[int]:
        """This client's seat in ``room`` (None: a spectator)."""
        return room.seat_of(self.token_digest)

    def allow(self) -> bool:
        """Whether one more message fits the rate (a token bucket)."""
        now = time.monotonic()
        self._tokens = min(self.limits.burst, self._tokens + (now - self._last) * self.limits.rate)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def send(self, message: dict[str, Any]) -> None:
        """Queue ``message`` (its text put in this client's language); a full queue drops
        the connection."""
        if not self.closed:
            self.send_text(encode(message, self.lang, self.check))

    def send_text(self, text: str) -> None:
        """Queue a message already encoded (:func:`encode`); a full queue drops the
        connection."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop()

    def drop(self, code: int = 1013) -> None:
        """Close the connection without waiting for the client (1013: it fell behind)."""
        if self.closed:
            return
        self.closed = True
        self.writer.cancel()
        self.closing = asyncio.ensure_future(self._close(code))

    async def _close(self, code: int) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(code=code), 5)

    async def _write(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    return
                await self.socket.send_text(text)
        except asyncio.CancelledError:
            raise
        except Exception:  # the client went away
            self.closed = True


class Hub:
    """The server: the store, the rooms it has rebuilt (a cache), their connections and
    bot runners."""

    def __init__(self, store: Store, shelf: Shelf, records: Path, limits: Limits = LIMITS,
                 allow_origins: Sequence[str] = (), check_messages: bool = True,
                 clock: Callable[[], float] = time.time, allowed_hosts: Sequence[str] = ("*",)):
        self.store = store
        self.clock = clock
        self.shelf = shelf
        self.records = records
        self.limits = limits
        self.allow_origins = tuple(allow_origins)
        self.allowed_hosts = host_names(allowed_hosts)
        self.quota = RoomQuota(limits)
        #: players each address may make a minute (``POST /players``)
        self.player_bucket = Bucket(limits.address_players_per_minute)
        #: open WebSockets by client address (none kept at zero)
        self.address_sockets: Counter[str] = Counter()
        #: rooms being deleted (expired): not rebuilt meanwhile
        self.expiring: set[str] = set()
        self.check_messages = check_messages
        self.rooms: dict[str, Room] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.clients: dict[str, set[Connection]] = {}
        self.bot_tasks: dict[str, asyncio.Task[None]] = {}
        #: each room's clock timer, while a seat's clock runs (:meth:`watch_clock`)
        self.clock_tasks: dict[str, asyncio.Task[None]] = {}
        #: tasks that outlive the connection that started them (a seat going away)
        self.background: set[asyncio.Task[None]] = set()
        self.bots = BotScheduler(limits, clock=clock)
        #: the replays' cache and their count at once (:mod:`.replays`)
        self.replays = Desk(limits.replays_at_once)
        self.io_pool = ThreadPoolExecutor(max_workers=IO_THREADS, thread_name_prefix="lc-room")
        #: the rooms left out, each said once in the log: room id -> why (a stored row
        #: damaged, a stored turn refused: every request for it answers 503)
        self.quarantined: dict[str, str] = {}
        #: when the log last said a refused write, and the refusals since
        self._unsaved = Throttle(UNSAVED_LOG_SECONDS)
        #: the listed rooms and the pages watching them; the quick-match queue
        self.lobby = Lobby(partial(encode_lobby, check=check_messages))
        #: this process's lobby sockets (closed when the database goes away) and its
        #: waiters in the quick-match queue (the queue itself is the store's), by id
        self.lobby_clients: set[Connection] = set()
        self.waiters: dict[str, Any] = {}
        #: several processes on one database (docs/server.md): whether the database is out
        #: of reach now; the seats of each room other processes' connections hold; the
        #: seats this one said it holds
        self.store_down = False
        #: how many times the database went out of reach (a :meth:`back` under way stops
        #: when it goes again)
        self._outages = 0
        self.present_elsewhere: dict[str, set[int]] = {}
        self._said_present: dict[str, frozenset[int]] = {}
        #: announcements go out one at a time, in order (a chat line never overtakes the
        #: one before)
        self.announcer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lc-announce")

    def connections(self) -> int:
        """Open connections in all rooms."""
        return sum(len(c) for c in self.clients.values())

    def full(self, room_id: str, address: str) -> Optional[str]:
        """Why a WebSocket from ``address`` may not open in room ``room_id`` now (an error
        key; the socket is closed with 1013), or None: the server's, the room's, the
        address's or the address's in that room limit of connections is reached."""
        limits = self.limits
        here = self.clients.get(room_id, ())
        if self.connections() >= limits.connections or len(here) >= limits.room_connections:
            return "error.server-busy"
        if self.address_sockets[address] >= limits.address_connections or \
                sum(c.address == address for c in here) >= limits.address_room_connections:
            return "error.too-many-connections"
        return None

    def ping_seconds(self) -> int:
        """How often a client should send ``ping`` (``welcome``'s ``ping``): a third of
        ``Limits.idle_seconds``, so a spectator watching without a word is never taken for
        an idle socket (the page and ``lc play --connect`` do)."""
        return max(1, int(self.limits.idle_seconds // 3))

    def idle_limit(self, room: Room, client: Connection) -> Optional[float]:
        """Seconds ``client`` may now go without a message: ``Limits.idle_seconds`` when it
        holds no seat, else no limit."""
        return self.limits.idle_seconds if client.seat(room) is None else None

    def socket_closed(self, room_id: str, client: Connection) -> None:
        """``client``'s socket is closed: nothing kept of it."""
        here = self.clients.get(room_id)
        if here is not None:
            here.discard(client)
            if not here:
                del self.clients[room_id]
        self.address_sockets[client.address] -= 1
        if self.address_sockets[client.address] <= 0:
            del self.address_sockets[client.address]

    def lock(self, room_id: str) -> asyncio.Lock:
        """The lock that makes one room's calls run one at a time."""
        return self.locks.setdefault(room_id, asyncio.Lock())

    async def run(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` in a worker thread (store writes, engine work)."""
        return await asyncio.get_running_loop().run_in_executor(self.io_pool, fn, *args)

    async def room(self, room_id: str) -> Optional[Room]:
        """The room, rebuilt from the store the first time it is asked for (None: no such
        room; :class:`RoomError`: it cannot be rebuilt). Nothing is kept of an id that
        names no room."""
        if room_id in self.rooms:
            return self.rooms[room_id]
        if room_id in self.expiring:
            return None
        if room_id in self.quarantined:
            raise RoomError(self.quarantined[room_id])
        try:
            async with self.lock(room_id):
                if room_id not in self.rooms:
                    room = await self.load(room_id)
                    if room is None:
                        return None
                    room = self.attach(room)
                    if self.store.shared:  # (its process may be gone: the bots play on)
                        self.kick_bots(room)
                        self.watch_clock(room)
        finally:
            if room_id not in self.rooms:
                self.locks.pop(room_id, None)
        return self.rooms[room_id]

    async def load(self, room_id: str) -> Optional[Room]:
        """The room rebuilt from the store (None: no such room). One that cannot be (a
        damaged row, a refused turn) is quarantined: said once in the log, and a
        :class:`RoomError` now and on every request after; a store that cannot be read
        now is a :class:`RoomError` this time only."""
        try:
            return await self.run(lambda: Room.load(
                self.store, room_id, self.shelf.find, records=self.records,
                limits=self.limits, clock=self.clock))
        except (RoomError, DamagedRow) as err:
            self.quarantine(room_id, str(err))
            raise RoomError(self.quarantined[room_id]) from None
        except StoreError as err:
            raise RoomError(str(err)) from None

    def quarantine(self, room_id: str, why: str) -> None:
        """Leave the room ``room_id`` out (every request for it answers 503), said once
        in the log."""
        if room_id not in self.quarantined:
            self.quarantined[room_id] = why = clean_text(why, 300) or "?"
            log.warning("%s; room %s is left out (503) until it is repaired, every other "
                        "room plays", why, room_id)

    async def wake(self, room_id: str) -> None:
        """At start: read the room's row and seats (a damaged one is quarantined now, not
        when a player comes), and rebuild a room under way (where a bot is to move, its
        bots then play on without waiting for a client) or listed and waiting for
        players: the lobby lists it."""
        try:
            row = await self.run(self.store.room, room_id)
            await self.run(self.store.seats, room_id)
        except DamagedRow as err:
            self.quarantine(room_id, str(err))
            return
        except StoreError:
            return
        if row is not None and (row.status == PLAYING or (row.listed and row.status == LOBBY)):
            with contextlib.suppress(RoomError, LostCitiesError):
                room = await self.room(room_id)
                if room is not None:
                    self.list_room(room)
                    self.kick_bots(room)
                    self.watch_clock(room)

    def not_saved(self, room: Room, err: StoreError) -> Outcome:
        """A write the store refused (a full disk, an I/O error): nothing changed, the
        caller is told ``error.cannot-save`` (and may try again), the log says it (at
        most once in :data:`UNSAVED_LOG_SECONDS`)."""
        count = self._unsaved.allow("write")
        if count is not None:
            more = f" ({count} more refused since the last line)" if count else ""
            log.warning("room %s: the store refused a write, nothing changed: %s%s",
                        room.id, clean_text(str(err), 300), more)
        return refused("error.cannot-save")

    def attach(self, room: Room) -> Room:
        """Keep ``room`` in the cache, its presence read from this hub's connections; the
        room's copy here: one attached meanwhile (a room this process made, read again as
        its own announcement came) is kept, never replaced (a client may hold it)."""
        kept = self.rooms.get(room.id)
        if kept is not None:
            return kept
        room.presence = lambda: self.present(room)
        self.rooms[room.id] = room
        return room

    def present(self, room: Room) -> set[int]:
        """The seats of ``room`` an open connection holds now, here or in another process
        sharing the store."""
        return self.present_here(room) | self.present_elsewhere.get(room.id, set())

    def present_here(self, room: Room) -> set[int]:
        """The seats of ``room`` an open connection of this process holds now."""
        seats = {client.seat(room) for client in self.clients.get(room.id, ())
                 if not client.closed}
        seats.discard(None)
        return seats  # type: ignore[return-value]

    def note_presence(self, room: Room) -> None:
        """Tell the other processes sharing the store which seats this one's connections
        hold in ``room``, when that changed (stored: their clients see them present,
        and no process gives a bot a seat held elsewhere)."""
        if not self.store.shared:
            return
        here = frozenset(self.present_here(room))
        if self._said_present.get(room.id, frozenset()) == here:
            return
        if here:
            self._said_present[room.id] = here
        else:
            del self._said_present[room.id]
        self.later(self._store_presence(room.id, sorted(here)))

    async def _store_presence(self, room_id: str, seats: list[int]) -> None:
        with contextlib.suppress(StoreError):  # (the next change, or the database back)
            await asyncio.get_running_loop().run_in_executor(
                self.announcer, self.store.set_present, room_id, seats)

    async def create_room(self, pack_name: str, hints: bool = False,
                          *, listed: bool = False, rated: bool = False,
                          control: Optional[TimeControl] = None) -> Room:
        """A new room with the pack called ``pack_name`` (:class:`KeyError`: not served),
        giving hints or not, rated or not, listed in the lobby or not (the caller tells the
        lobby when it is to show the room: :meth:`list_room`), with the time control
        ``control`` (None: no clock)."""
        ref = self.shelf.ref(pack_name)
        if ref is None:
            raise KeyError(pack_name)
        pack = self.shelf.find(ref)
        for _ in range(5):
            room_id = new_room_id()
            try:
                room = await self.run(lambda: Room.create(
                    self.store, room_id, pack, ref, records=self.records, limits=self.limits,
                    hints=hints, clock=self.clock, listed=listed, rated=rated,
                    control=control))
            except StoreError:
                continue
            return self.attach(room)
        raise StoreError("no free room id")

    # ------------------------------------------------------------- other processes

    def listen(self) -> None:
        """Hear the other processes sharing the store (:meth:`~.store.Store.listen`; a
        store of one process has none): their writes (:meth:`heard`), the database out of
        reach (:meth:`lost`) and back (:meth:`back`), each handed to this event loop."""
        loop = asyncio.get_running_loop()
        #: what was heard and not yet handed over: one wake of the loop for all of it
        pending: deque[dict[str, Any]] = deque()
        handing = threading.Lock()

        def call(fn: Callable[..., Any], *args: Any) -> None:
            with contextlib.suppress(RuntimeError):  # (the loop closed: the server stops)
                loop.call_soon_threadsafe(fn, *args)

        def hand_over() -> None:  # (on the loop)
            with handing:
                batch = list(pending)
                pending.clear()
            for message in batch:
                self.heard(message)

        def heard(message: dict[str, Any]) -> None:  # (in the listening thread)
            with handing:
                pending.append(message)
                if len(pending) > 1:
                    return  # (a hand-over is on its way)
            call(hand_over)

        self.store.listen(heard, lambda: call(self.lost),
                          lambda: call(self.later, self.back()))

    def heard(self, message: dict[str, Any]) -> None:
        """An announcement of another process sharing the store (the store passes over
        this one's own): a room's new version (``room``, ``version``, ``listed``), a room ``gone``,
        a room's seats ``present`` elsewhere changed, what was ``said`` in a room
        (``info`` and ``chat`` events), a waiter ``matched``, the ``queue`` changed.
        Data from the database: each field is checked before it is used."""
        if message.get("queue") is True:
            self.later(self.tell_queue())
        matched = message.get("matched")
        if isinstance(matched, str) and matched in self.waiters:
            self.waiters.pop(matched).told_matched(message)
        room_id = message.get("room")
        if not isinstance(room_id, str) or not is_room_id(room_id):
            return
        if message.get("gone") is True:
            self.later(self.gone_if(room_id))
            return
        said = message.get("said")
        if isinstance(said, list):
            clients = list(self.clients.get(room_id, ()))
            for event in said:
                if clients and said_here(event, SAID_ELSEWHERE):
                    self.broadcast(clients, event)
        if message.get("present") is True and room_id in self.rooms:
            self.later(self.presence_changed([room_id]))
        version = message.get("version")
        if type(version) is int:
            room = self.rooms.get(room_id)
            listed = bool(message.get("listed"))
            # (most are this process's own writes, or of rooms it does not have: no task)
            if (room is None and listed) or (room is not None and room.version < version):
                self.later(self.changed(room_id, version, listed,
                                        message.get("move") is True))

    async def changed(self, room_id: str, version: int, listed: bool,
                      move: bool = False) -> None:
        """Room ``room_id`` is at ``version`` now: a copy here that is behind is caught up
        (:meth:`catch_up`) when a client or a task of this process has it, or the lobby
        and the change is not a plain move (which changes no lobby line), else let go
        (read again when it is next asked for); a listed room this process
        has not read is read (its lobby lists it). ``move``: the version came with a plain
        move (only the turns are read, when this copy is one behind)."""
        room = self.rooms.get(room_id)
        if room is None:
            if listed and not self.store_down:
                with contextlib.suppress(RoomError, LostCitiesError):
                    room = await self.room(room_id)
                    if room is not None:
                        self.list_room(room)
            return
        if room.version >= version:
            return
        if not self.busy(room_id) and room_id not in self.clock_tasks:
            if not room.listed:
                self.let_go(room_id)
                return
            if move:  # (a move changes no lobby line: read when a client comes here)
                return
        async with self.lock(room_id):
            await self.catch_up(room, version if move else None)

    async def catch_up(self, room: Room, moved_to: Optional[int] = None) -> None:
        """Bring ``room`` up to the stored one (:meth:`Room.refresh`, the caller holding
        its lock) and tell this process's clients what they missed; a room that cannot be
        is left out (quarantined) or, gone, forgotten. ``moved_to``:
        :meth:`Room.refresh`'s."""
        try:
            outcome = await self.run(room.refresh, moved_to)
        except StoreError:  # (out of reach: a later write or :meth:`back` reads it again)
            return
        except (RoomError, LostCitiesError) as err:
            if await self.run(self.store.room, room.id) is None:
                self.room_gone(room.id)
            else:
                self.let_go(room.id)
                self.quarantine(room.id, str(err))
            return
        if outcome is not None:
            self.deliver(room, outcome, heard=True)

    async def attempt(self, room: Room, write: Callable[[], Any]) -> Outcome:
        """``await write()``: a command that writes the room (the caller holds its lock);
        one another process's write made stale (:class:`~.store.StaleRoom`, nothing
        written) is tried again on the room caught up, up to :data:`STALE_TRIES` times."""
        for _ in range(STALE_TRIES):
            try:
                return await write()
            except StaleRoom:
                await self.catch_up(room)
        raise StoreError(f"room {room.id}: written by other processes {STALE_TRIES} times "
                         f"in a row")

    def announce_said(self, room: Room, outcome: Outcome) -> None:
        """Tell the other processes' clients of ``room`` the events they cannot read
        from the store (:data:`SAID_ELSEWHERE`), in order; what does not fit one
        announcement is left out (the room's state, which they read, says the rest)."""
        if not self.store.shared:  # (every move passes here: nothing more on one store)
            return
        said = [event for event in outcome.events if event.get("type") in SAID_ELSEWHERE]
        if not said:
            return
        message = {"room": room.id, "said": said}
        if len(json.dumps(message, ensure_ascii=False).encode()) <= ANNOUNCE_BYTES:
            self.announce(message)

    def announce(self, message: dict[str, Any]) -> None:
        """``message`` announced to the other processes (:meth:`~.store.Store.announce`),
        after those announced before it, without waiting: one the store refuses (out of
        reach) is lost, as a notification is while nobody listens."""
        future = asyncio.get_running_loop().run_in_executor(
            self.announcer, self.store.announce, message)
        future.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def tell_queue(self) -> None:
        """The lobby's pages are told who waits for a quick match now (the store's
        queue, every process's waiters)."""
        try:
            rows = await self.run(self.store.queue_summary)
        except StoreError:
            return
        waiting = []
        for pack, clock, count in rows:
            with contextlib.suppress(ValueError):  # (a stored clock this server did not write)
                waiting.append({**QueueKey(pack, clock).said(), "players": count})
        self.lobby.waiting(waiting)

    async def presence_changed(self, room_ids: Sequence[str]) -> None:
        """Read which seats of these rooms the other processes' connections hold; where
        that changed, this process's clients are sent the new views."""
        try:
            found = await self.run(self.store.present_elsewhere, list(room_ids))
        except StoreError:
            return
        for room_id in room_ids:
            seats = found.get(room_id, set())
            if self.present_elsewhere.get(room_id, set()) != seats:
                if seats:
                    self.present_elsewhere[room_id] = seats
                else:
                    self.present_elsewhere.pop(room_id, None)
                room = self.rooms.get(room_id)
                if room is not None:
                    self.send_views(room, list(self.clients.get(room_id, ())))

    def let_go(self, room_id: str) -> None:
        """Keep nothing of ``room_id`` but its clients (none): another process serves it
        now, and it is read again when it is next asked for."""
        self.rooms.pop(room_id, None)
        lock = self.locks.get(room_id)
        if lock is not None and not lock.locked():
            del self.locks[room_id]
        for tasks in (self.bot_tasks, self.clock_tasks):  # (they hold the copy let go)
            task = tasks.pop(room_id, None)
            if task is not None:
                task.cancel()
        self.present_elsewhere.pop(room_id, None)

    async def gone_if(self, room_id: str) -> None:
        """Another process says it deleted ``room_id``: forgotten here if the store says
        so too (:meth:`room_gone`)."""
        with contextlib.suppress(StoreError):
            if room_id in self.rooms and await self.run(self.store.room, room_id) is None:
                self.room_gone(room_id)

    def room_gone(self, room_id: str) -> None:
        """Another process deleted the room (expired): forgotten, its clients closed with
        :data:`~.protocol.ROOM_GONE` (the page says so and stops)."""
        for client in list(self.clients.get(room_id, ())):
            client.drop(code=ROOM_GONE)
        self.forget(room_id)

    def lost(self) -> None:
        """The database is out of reach: every socket closed with :data:`STORE_LOST`
        (clients reconnect, to this process or another), nothing kept of the rooms (what
        other processes write meanwhile is not heard), room sockets refused with
        :data:`STORE_AWAY` until it is back (:meth:`back`)."""
        self._outages += 1
        if not self.store_down:
            self.store_down = True
            log.warning("the database is out of reach: every socket closed, rooms read "
                        "again once it is back")
            for clients in list(self.clients.values()):
                for client in list(clients):
                    client.drop(code=STORE_LOST)
            for client in list(self.lobby_clients):
                client.drop(code=STORE_LOST)
        for room_id in list(self.rooms):  # (also those a back() under way read again)
            self.let_go(room_id)
        for room_id in list(self.lobby.rooms):
            self.lobby.put(room_id, None)
        self.waiters.clear()
        self._said_present.clear()

    async def back(self) -> None:
        """The database is back: every room under way or listed read again (as at
        start: bots play on, clocks are watched, the lobby lists), then sockets are let
        in again; given up when it goes away again meanwhile (:meth:`lost`: another
        back follows)."""
        outage = self._outages
        while True:
            try:
                room_ids = await self.run(self.store.open_rooms)
                break
            except StoreError:  # (its listening connection is back before the others)
                await asyncio.sleep(1.0)
            if self._outages != outage:
                return
        for room_id in room_ids:
            if self._outages != outage:
                return
            await self.wake(room_id)
        if self._outages == outage:
            self.store_down = False
            log.warning("the database is back: rooms read again")
            await self.tell_queue()

    async def take_up(self) -> None:
        """The rooms under way that no turn changed for ``Limits.orphan_seconds``: read
        (when not held here), their bots set to play and clocks watched here (the
        process that served them may be gone; where it is not, the rooms' versions
        keep one move of the two). And the seats other processes hold, read again (a
        process gone holds none)."""
        now = self.clock()
        stalled = await self.run(self.store.stalled_rooms, now - self.limits.orphan_seconds)
        for room_id in stalled:
            room = self.rooms.get(room_id)
            if room is None:
                await self.wake(room_id)
            else:
                self.kick_bots(room)
                self.watch_clock(room)
        held = [room_id for room_id in self.clients if room_id in self.rooms]
        if held or self.present_elsewhere:
            await self.presence_changed(sorted(set(held) | set(self.present_elsewhere)))

    async def take_up_every(self) -> None:
        """:meth:`take_up` every ``Limits.orphan_seconds`` while the server runs, on a
        store other processes share."""
        while True:
            await asyncio.sleep(self.limits.orphan_seconds)
            if not self.store_down:
                with contextlib.suppress(StoreError):
                    await self.take_up()

    # ------------------------------------------------------------- the lobby

    def list_room(self, room: Room) -> None:
        """The lobby is told the room as it is now (:mod:`.lobby`)."""
        self.lobby.put(room.id, room_summary(room))

    def lobby_full(self, address: str) -> Optional[str]:
        """Why a lobby WebSocket from ``address`` may not open now (an error key), or None:
        the server's limit of lobby pages, or the address's of WebSockets, is reached."""
        if len(self.lobby.watchers) >= self.limits.connections:
            return "error.server-busy"
        if self.address_sockets[address] >= self.limits.address_connections:
            return "error.too-many-connections"
        return None

    def lobby_client(self, socket: WebSocket, lang: str, address: str) -> Connection:
        """The connection of a lobby WebSocket from ``address`` (counted for it)."""
        self.address_sockets[address] += 1
        client = Connection(socket, self.limits, lang, self.check_messages, address)
        self.lobby_clients.add(client)
        return client

    def lobby_closed(self, client: Connection) -> None:
        """A lobby WebSocket closed: its writer finishes what is queued, nothing is kept."""
        self.lobby_clients.discard(client)
        self.address_sockets[client.address] -= 1
        if self.address_sockets[client.address] <= 0:
            del self.address_sockets[client.address]
        if not client.closed:
            client.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                client.queue.put_nowait(None)

    # ------------------------------------------------------------- expiry

    def busy(self, room_id: str) -> bool:
        """Whether a connection, a bot or a call holds the room now."""
        task = self.bot_tasks.get(room_id)
        lock = self.locks.get(room_id)
        return bool(self.clients.get(room_id)) or (task is not None and not task.done()) \
            or (lock is not None and lock.locked())

    def expired(self, status: str, last: float, now: float, abandoned: bool = False) -> bool:
        """Whether a room of ``status`` nobody has been in since ``last`` has expired;
        ``abandoned``: its humans have all gone (each seat a bot's or left), which closes it
        after ``Limits.abandoned_seconds``."""
        keep = self.limits.lobby_expiry_seconds if status == LOBBY else \
            self.limits.empty_expiry_seconds
        if abandoned:
            keep = min(keep, self.limits.abandoned_seconds)
        return now - last > keep

    async def sweep(self) -> list[str]:
        """Delete the rooms that expired (``Limits.lobby_expiry_seconds``,
        ``Limits.empty_expiry_seconds``, ``Limits.abandoned_seconds`` for a room whose
        humans have all gone) and that nothing holds now; their ids (the lobby drops them
        at once). A finished match's record and replay stay. Then a bot takes the seats
        away too long in the casual matches under way (:meth:`seat_bots`)."""
        now = self.clock()
        if self.store.shared:  # (the rooms this process holds: no other expires them)
            await self.run(self.store.hold, [room_id for room_id in self.rooms
                                             if self.busy(room_id)], now)
            await self.run(self.store.tidy)
        visits = await self.run(self.store.last_visits)
        unpeopled = await self.run(self.store.unpeopled_rooms)
        gone = [room_id for room_id, status, last in visits
                if self.expired(status, last, now, room_id in unpeopled)
                and not self.busy(room_id)]
        if gone:
            self.expiring.update(gone)
            try:
                for room_id in gone:
                    self.forget(room_id)
                await self.run(self.store.delete_rooms, gone)
            finally:
                self.expiring.difference_update(gone)
        self.quota.prune()
        await self.seat_bots(now)
        return gone

    async def seat_bots(self, now: float) -> None:
        """In each casual match under way, a human seat away longer than
        ``Limits.seat_bot_seconds`` while another human is there gets the default bot
        (:meth:`Room.seat_bot`), which plays at once if it is to move."""
        for room in list(self.rooms.values()):
            if not room.away_too_long(now):  # (checked again under the room's lock)
                continue
            async with self.lock(room.id):
                try:
                    outcome = await self.attempt(room, lambda: self.run(room.seat_bot, now))
                except StoreError as err:  # tried again at the next sweep
                    self.not_saved(room, err)
                    continue
            self.deliver(room, outcome)

    async def sweep_every(self) -> None:
        """:meth:`sweep` every ``Limits.sweep_seconds``, as long as the server runs."""
        while True:
            await asyncio.sleep(self.limits.sweep_seconds)
            with contextlib.suppress(StoreError, sqlite3.Error):
                await self.sweep()

    def forget(self, room_id: str) -> None:
        """Keep nothing more of ``room_id`` (a room that expired, here or in another
        process): :meth:`let_go`, and its quarantine, lobby line and quota too."""
        self.let_go(room_id)
        self.quarantined.pop(room_id, None)
        self.lobby.put(room_id, None)
        if not self.clients.get(room_id):
            self.clients.pop(room_id, None)
        self.quota.release(room_id)

    def deliver(self, room: Room, outcome: Outcome, caller: Optional[Connection] = None,
                heard: bool = False) -> None:
        """Send an outcome: replies and a new seat's token to the caller, events and
        every client's new view to the room; what the other processes' clients cannot
        read from the store is announced to them (:meth:`announce_said`). ``heard``: the
        outcome of another process's write (:meth:`catch_up`): that process plays the
        bots it set to move and watches the clock (:meth:`take_up` if it is gone)."""
        if caller is not None:
            for message in outcome.replies:
                caller.send(message)
            if outcome.token is not None:
                caller.token_digest = token_hash(outcome.token)
                caller.send({"type": "seated", "seat": caller.seat(room),
                             "token": outcome.token})
        clients = list(self.clients.get(room.id, ()))
        for message in outcome.events:
            self.broadcast(clients, message)
        if not heard:
            self.announce_said(room, outcome)
            self.note_presence(room)
        if outcome.changed:
            self.send_views(room, clients)
            self.list_room(room)
            if not heard:
                self.kick_bots(room)
                self.watch_clock(room)

    def broadcast(self, clients: Sequence[Connection], message: dict[str, Any]) -> None:
        """Send ``message`` to ``clients``, encoded once per language it is said in (once
        for all when it is the same in every language)."""
        texts: dict[str, str] = {}
        alike = not speaks(message)
        for client in clients:
            if client.closed:
                continue
            lang = "" if alike else client.lang
            if lang not in texts:
                texts[lang] = encode(message, client.lang, self.check_messages)
            client.send_text(texts[lang])

    def send_views(self, room: Room, clients: Sequence[Connection]) -> None:
        """Each client's ``state`` message: built and encoded once per seat (and once for
        all spectators), whatever the number of clients holding it."""
        texts: dict[Optional[int], str] = {}
        for client in clients:
            if client.closed:
                continue
            seat = client.seat(room)
            if seat not in texts:
                texts[seat] = encode(room.view_for(seat), client.lang, self.check_messages)
            client.send_text(texts[seat])

    def kick_bots(self, room: Room) -> None:
        """Start the room's bot runner if a bot is to move and none runs."""
        task = self.bot_tasks.get(room.id)
        if (task is None or task.done()) and room.bot_turn() is not None:
            self.bot_tasks[room.id] = asyncio.ensure_future(self._run_bots(room))

    async def _run_bots(self, room: Room) -> None:
        while True:
            turn = room.bot_turn()
            if turn is None:
                return
            move = await self.bots.think(room.id, partial(turn.choose, room.bots))
            self.deliver(room, await self.play_bot(room, turn, move))

    # ------------------------------------------------------------- clocks

    def watch_clock(self, room: Room) -> None:
        """Start the room's clock timer if a seat's clock runs and none watches it."""
        task = self.clock_tasks.get(room.id)
        if (task is None or task.done()) and room.due() is not None:
            self.clock_tasks[room.id] = asyncio.ensure_future(self._run_clock(room))

    async def _run_clock(self, room: Room) -> None:
        """The room's timer: it sleeps until the seat to move runs out of time (looking
        again at least every ``Limits.clock_check_seconds``), then that seat is out of
        time (:meth:`flag`), as long as a seat's clock runs. A write the store refused is
        tried again as a bot's move is."""
        delay = BOT_RETRY_FIRST
        while True:
            due = room.due()
            if due is None:
                return
            wait = due.at - self.clock()
            if wait > 0:
                await asyncio.sleep(min(wait, self.limits.clock_check_seconds))
                continue
            try:
                outcome = await self.flag(room, due)
            except StoreError as err:
                self.not_saved(room, err)
                await asyncio.sleep(delay)
                delay = min(delay * 2, BOT_RETRY_MOST)
                continue
            if outcome is None:  # a bot seat's own move is coming
                await asyncio.sleep(self.limits.clock_check_seconds)
                continue
            delay = BOT_RETRY_FIRST
            self.deliver(room, outcome)

    async def flag(self, room: Room, due: Due) -> Optional[Outcome]:
        """The seat of ``due`` is out of time: in a rated room it forfeits the match; in a
        casual one the default bot plays its move (a ``timeout`` turn) and its clock goes
        on; None when a bot holds the seat (its own move is coming). The room moved on
        meanwhile: an empty outcome."""
        if room.rated:
            async def forfeit() -> Outcome:
                if room.due() != due:
                    return Outcome()
                return await self.run(room.forfeit_match, due.seat, "time")

            async with self.lock(room.id):
                return await self.attempt(room, forfeit)
        turn = room.timeout_turn()
        if turn is None:
            return None if room.due() == due else Outcome()
        move = await self.bots.think(room.id, partial(turn.choose, room.bots))
        async with self.lock(room.id):
            return await self.attempt(room, lambda: self.play(
                room, room.plan_timeout(turn, move)))

    async def play_bot(self, room: Room, turn: BotTurn, move: Move) -> Outcome:
        """The move a bot chose played (:meth:`play`). A write the store refused is tried
        again after :data:`BOT_RETRY_FIRST` seconds, doubling up to :data:`BOT_RETRY_MOST`
        (the same move: nothing was stored or said, the turn is still the bot's), until
        it is stored or the room has moved on."""
        delay = BOT_RETRY_FIRST
        while True:
            async with self.lock(room.id):
                try:
                    return await self.attempt(room, lambda: self.play(
                        room, room.plan_bot(turn, move)))
                except StoreError as err:
                    self.not_saved(room, err)
            await asyncio.sleep(delay)
            delay = min(delay * 2, BOT_RETRY_MOST)

    async def play(self, room: Room, planned: "Outcome | PlannedTurn") -> Outcome:
        """A planned turn (engine work done on the loop: microseconds) committed in a
        worker thread (the store's write), then played; a refusal as it is. The caller
        holds the room's lock."""
        if isinstance(planned, Outcome):
            return planned
        await self.run(room.store_turn, planned)
        return room.played(planned)

    def origin_ok(self, headers: Any) -> bool:
        """Whether a WebSocket's ``Origin`` is this server's (its host one this server
        answers to, ``--allowed-host``, and the request's own) or an allowed origin; a
        client that sends none (not a browser) is let in."""
        origin = headers.get("origin")
        if origin is None or "*" in self.allow_origins or origin in self.allow_origins:
            return True
        netloc = urlsplit(origin).netloc.lower()
        return host_allowed(self.allowed_hosts, netloc) and \
            netloc == (headers.get("host") or "").lower()

    # ------------------------------------------------------------- one message

    def read(self, client: Connection, text: Optional[str], size: int,
             definition: str = "client") -> Optional[dict[str, Any]]:
        """A message from ``client`` with its size, rate, JSON and schema (``definition``
        of ``protocol.schema.json``) checked, or None when it is refused (the client was
        sent one ``error``)."""
        limits = self.limits
        if text is None:
            client.send(error("error.not-text"))
            return None
        if size > limits.message_bytes:
            client.send(error("error.too-big", size=size, limit=limits.message_bytes))
            return None
        if not client.allow():
            client.send(error("error.too-fast", rate=f"{limits.rate:g}"))
            return None
        try:
            message = loads_json(text, "message")
        except LostCitiesError as err:
            client.send(error("error.not-json", reason=str(err)[:200]))
            return None
        where = lone_surrogate(message)
        if where is not None:  # no later code meets one (a name, a token's hash)
            client.send(error("error.bad-text", field=where[:60] or "message"))
            return None
        reason = problem(message, definition)
        if reason is not None:
            client.send(error("error.bad-message", reason=reason))
            return None
        return message

    async def handle(self, room: Room, client: Connection, text: Optional[str],
                     size: int) -> None:
        """One message from ``client``: size, rate, JSON and schema checked, then done."""
        message = self.read(client, text, size)
        if message is None:
            return
        kind = message["type"]
        if kind == "ping":
            client.send({"type": "pong"})
            return
        if kind == "hello":
            client.lang = message.get("lang", client.lang)
            if "player" in message:
                await self.identify(client, message["player"])
            if "token" in message:
                before = self.present(room)
                held = client.seat(room)
                digest = token_hash(message["token"])
                if room.seat_of(digest) is None and self.store.shared:
                    async with self.lock(room.id):  # (a seat taken through another process)
                        await self.catch_up(room)
                if room.seat_of(digest) is None:
                    client.token_digest = None
                    client.send(error("error.bad-token"))
                else:
                    client.token_digest = digest
                self.welcome(room, client)
                self.note_presence(room)
                if self.present(room) != before:  # a seat came back (or went): all are told
                    if held is not None and held not in self.present(room):
                        await self.away(room, held)
                    self.send_views(room, [other for other in self.clients.get(room.id, ())
                                           if other is not client])
                return
            self.welcome(room, client)
            return
        if kind == "hint":
            await self.hint(room, client)
            return
        async with self.lock(room.id):
            try:  # (the seat read again at each try: a try may follow a catch-up)
                if kind == "line":
                    outcome = await self.attempt(room, lambda: self.run(
                        room.line, client.seat(room), message["text"], client.player))
                else:
                    outcome = await self.attempt(room, lambda: self.play(room, room.plan_move(
                        client.seat(room), message["move"], message.get("seat"))))
            except StoreError as err:  # nothing was stored, nor said to anyone
                outcome = self.not_saved(room, err)
        self.deliver(room, outcome, client)

    async def identify(self, client: Connection, key: str) -> None:
        """``hello``'s ``player``: the client is the player whose key this is (only its
        hash is looked up), or, for a key of no player, nobody (``error.bad-player``)."""
        try:
            client.player = await self.run(self.store.player_by_key, token_hash(key))
        except StoreError:
            client.player = None
        if client.player is None:
            client.send(error("error.bad-player"))

    async def hint(self, room: Room, client: Connection) -> None:
        """A hint to ``client`` alone: the expert bot's move for its seat, thought in the
        bots' threads (the event loop goes on meanwhile), or one error (one hint at a time
        per seat, a bounded queue: :meth:`.bots.BotScheduler.hint`)."""
        async with self.lock(room.id):
            asked = room.hint(client.seat(room))
        if isinstance(asked, Outcome):
            self.deliver(room, asked, client)
            return
        try:
            move = await self.bots.hint(room.id, asked.seat, asked.choose)
        except Refused as refusal:
            client.send(error(refusal.key, **refusal.params))
            return
        except LostCitiesError as err:
            client.send(error("error.bot", reason=str(err).splitlines()[0][:200]))
            return
        if room.turns != asked.number:  # the seat played while it was thought of: a hint
            return                      # for a position gone would name a card not held
        client.send(room.hint_message(asked, move))

    async def away(self, room: Room, seat: int) -> None:
        """No connection holds ``seat`` any more: its absence starts now (stored)."""
        async with self.lock(room.id):
            try:
                await self.run(room.touch, seat)
            except StoreError as err:  # measured from the last time stored
                self.not_saved(room, err)

    def later(self, work: Any) -> None:
        """Run the coroutine ``work`` as a task of its own (kept until it is done)."""
        task = asyncio.ensure_future(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def left(self, room: Room, client: Connection) -> None:
        """``client`` closed: if it held a seat nobody else holds, that seat is away now
        and every other client is told (``present``)."""
        seat = client.seat(room)
        self.note_presence(room)
        if seat is None or seat in self.present(room):
            return
        with contextlib.suppress(StoreError, RoomError, LostCitiesError):
            await self.away(room, seat)
        self.send_views(room, list(self.clients.get(room.id, ())))

    def welcome(self, room: Room, client: Connection) -> None:
        """The ``welcome`` and ``state`` messages for a client."""
        seat = client.seat(room)
        player = client.player
        client.send({"type": "welcome", "room": room.id, "pack": room.pack.id,
                     "lang": client.lang, "seat": seat, "ping": self.ping_seconds(),
                     "player": None if player is None else {"id": player.id,
                                                            "name": player.name}})
        client.send(room.view_for(seat))


async def list_packs(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    return JSONResponse({"packs": hub.shelf.names()})


async def new_room(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    if not is_json(request):
        return http_error(request, 415, "error.not-json-type")
    address = address_of(request.scope)
    refusal = hub.quota.refusal(address)
    if refusal is not None:
        return too_fast(request, refusal, rooms=hub.limits.address_rooms,
                        rate=hub.limits.address_rooms_per_minute)
    message = await read_json(request, "new_room", hub.limits)
    if isinstance(message, Response):
        return message
    rated, hints = bool(message.get("rated", False)), bool(message.get("hints", False))
    if rated and hints:  # the expert bot's moves would play a rated match
        return http_error(request, 400, "error.rated-hints")
    try:
        control = control_of(message.get("clock"))
    except ValueError:  # never: the schema has checked it, with the same bounds
        return http_error(request, 400, "error.bad-clock", **clock_bounds())
    # in a worker thread: the store's lock may be held by a commit syncing to disk
    if await hub.run(hub.store.count_rooms) >= hub.limits.rooms:
        return http_error(request, 503, "error.rooms-full", rooms=hub.limits.rooms)
    try:
        room = await hub.create_room(message["pack"], hints, rated=rated,
                                     listed=not message.get("unlisted", False), control=control)
    except StoreError:  # a full disk: nothing was stored
        return http_error(request, 503, "error.cannot-save")
    except KeyError:
        return http_error(request, 404, "error.no-pack", pack=clean_text(message["pack"], 80))
    hub.quota.opened(address, room.id)
    hub.list_room(room)
    return JSONResponse({"room": room.id, "pack": room.pack.id, "url": f"/rooms/{room.id}",
                         "ws": f"/rooms/{room.id}/ws"}, status_code=201)


#: the content type of a record file sent to ``POST /replays`` (JSON Lines): one an HTML
#: form cannot send, so another site's page cannot make this server replay its files
RECORD_TYPE = "application/x-ndjson"
#: ``?game=`` of ``POST /replays``: at most this many digits
GAME_DIGITS = 6


def dropped_replay(text: str, game: int, name: str, lang: str) -> dict[str, Any]:
    """The replay answer of match ``game`` of a dropped record file's ``text``: read and
    replayed by the library, every check of ``lc replay``; :class:`LostCitiesError` in
    one line otherwise."""
    data, where, games = read_match(text, game, name)
    return replay_answer(frames(data, lang, where), games=games)


async def upload_replay(request: Request) -> Response:
    """``POST /replays?game=K&name=FILE&lang=xx``: a record file the replay page read
    (its bytes, ``Content-Type: application/x-ndjson``, at most ``Limits.replay_bytes``),
    replayed and checked by the library as ``lc replay FILE --game K`` does; its frames,
    or one error line in the language asked (400 ``error.bad-record``)."""
    hub: Hub = request.app.state.hub
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != RECORD_TYPE:
        return http_error(request, 415, "error.not-record-type")
    asked = request.query_params.get("game", "1")
    if not (asked.isdigit() and asked.isascii() and len(asked) <= GAME_DIGITS and int(asked)):
        return http_error(request, 400, "error.bad-game", game=clean_text(asked, 20))
    name = clean_text(request.query_params.get("name", ""), 80) or "record"
    limit = hub.limits.replay_bytes
    try:
        body = await asyncio.wait_for(read_body(request, limit), hub.limits.head_seconds)
    except asyncio.TimeoutError:
        return http_error(request, 408, "error.too-slow", seconds=f"{hub.limits.head_seconds:g}")
    if body is None:
        return http_error(request, 413, "error.record-too-big", limit=limit)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        return http_error(request, 400, "error.bad-record",
                       reason=f"{name}: byte {err.start}: not UTF-8 text")
    if not hub.replays.take():
        return http_error(request, 503, "error.replays-busy")
    try:
        answer = await hub.run(dropped_replay, text, int(asked), name, lang_asked(request))
    except LostCitiesError as err:
        return http_error(request, 400, "error.bad-record", reason=clean_text(str(err), 300))
    finally:
        hub.replays.give_back()
    return JSONResponse(answer, headers=COMMON_HEADERS)


async def room_of(request: Request) -> "Room | Response":
    """The room named by the request's ``room_id``, or the error answer: 404 no such room
    (or not an id), 503 a stored room that cannot be rebuilt."""
    hub: Hub = request.app.state.hub
    room_id = request.path_params["room_id"]
    try:
        room = await hub.room(room_id) if is_room_id(room_id) else None
    except RoomError as err:
        return http_error(request, 503, "error.room-unavailable", reason=str(err)[:200])
    if room is None:
        return JSONResponse({"error": "room", "text": "no such room"}, status_code=404)
    return room


async def room_state(request: Request) -> Response:
    room = await room_of(request)
    if isinstance(room, Response):
        return room
    view = room.view_for(None)
    return JSONResponse({"room": view["room"], "view": view["view"]})


async def room_pack(request: Request) -> Response:
    """``GET /rooms/{id}/pack``: the room's pack, resolved (``data``: what a record embeds
    as ``pack_data``), so a client can load the very rules the room plays."""
    room = await room_of(request)
    if isinstance(room, Response):
        return room
    kind = "house" if room.pack_ref.startswith("house:") else "builtin"
    return JSONResponse({"pack": room.pack.id, "kind": kind, "data": record_form(room.pack.data)})


async def room_socket(socket: WebSocket) -> None:
    hub: Hub = socket.app.state.hub
    limits = hub.limits
    room_id = socket.path_params["room_id"]
    if not hub.origin_ok(socket.headers):
        await socket.close(code=1008)
        return
    if hub.store_down:  # (a room read now could be behind: nothing is heard meanwhile)
        await socket.accept()
        await socket.close(code=STORE_AWAY)
        return
    try:
        room = await hub.room(room_id) if is_room_id(room_id) else None
    except RoomError as err:
        await unavailable(socket, str(err))
        return
    lang = lang_of(socket.headers.get("accept-language", ""))
    address = address_of(socket.scope)
    await socket.accept()  # a refusal after it: the client sees its close code
    if room is not None and hub.store.shared and not hub.store_down:
        # the copy here now (one let go meanwhile read again), brought up to the stored
        # room: the client may come with news of another process's write not heard yet
        # (a seat taken there, the match dealt)
        with contextlib.suppress(RoomError):
            room = await hub.room(room_id)
        if room is not None:
            async with hub.lock(room_id):  # (a room locked is never let go)
                await hub.catch_up(room)
    # (from this check to the client's place in hub.clients, no await: a room a client
    # holds is never let go, and this one is the room's copy here)
    if room is None or hub.rooms.get(room_id) is not room:
        await socket.close(code=ROOM_GONE, reason=ROOM_GONE_REASON)
        return
    full = hub.full(room_id, address)
    if full is not None:
        with contextlib.suppress(Exception):
            await socket.send_text(encode(error(full), lang, hub.check_messages))
        await socket.close(code=1013)
        return
    client = Connection(socket, limits, lang, hub.check_messages, address)
    hub.clients.setdefault(room_id, set()).add(client)
    hub.address_sockets[address] += 1
    try:
        hub.welcome(room, client)
        # the last chat lines and turns again (a page skips those it has shown), before
        # the answer to its hello: the page (static/connection.js) takes these turns in,
        # then that answer's state
        for line in room.chat_backlog():
            client.send(line)
        for turn in room.turn_backlog():
            client.send(turn)
        while not client.closed:
            try:
                message = await next_message(socket, hub.idle_limit(room, client))
            except asyncio.TimeoutError:  # a spectator that said nothing for too long
                client.drop(code=1000)
                await asyncio.wait([client.closing])  # type: ignore[list-item]
                break
            if message is None:
                break
            await hub.handle(room, client, *message)
    except WebSocketDisconnect:
        pass
    finally:
        hub.socket_closed(room_id, client)
        if not client.closed:
            client.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                client.queue.put_nowait(None)  # let the writer finish what is queued
        # a task of its own: the handler may be cancelled as the socket goes
        hub.later(hub.left(room, client))


async def unavailable(socket: WebSocket, reason: str) -> None:
    """A WebSocket to a room that cannot be played (quarantined, or its store unreadable
    now): one ``error.room-unavailable`` in the client's language, then closed (1011)."""
    lang = lang_of(socket.headers.get("accept-language", ""))
    text = encode(error("error.room-unavailable", reason=reason[:200]), lang, False)
    with contextlib.suppress(Exception):  # the client may be gone already
        await socket.accept()
        await socket.send_text(text)
        await socket.close(code=1011)


def create_app(data: Path, packs: Optional[Path] = None, *, limits: Limits = LIMITS,
               allow_origins: Sequence[str] = (), durable: bool = True,
               check_messages: bool = True,
               clock: Callable[[], float] = time.time,
               allowed_hosts: Sequence[str] = ("*",), store_url: str = "") -> Starlette:
    """The server's application: its store ``DATA/rooms.sqlite3`` (or the PostgreSQL
    database of ``store_url``, ``postgresql://...``: :class:`~.store_pg.PostgresStore`,
    where ``durable`` is its ``synchronous_commit``), the finished matches'
    records in ``DATA/records/``, the house packs of ``packs`` (a folder). ``limits``:
    the caps; ``allow_origins``: WebSocket origins let in besides this host's (``*``: any);
    ``durable``: the store's durability (:class:`~.store.SQLiteStore`): True (the
    default, ``synchronous=FULL``) a turn is on disk before anyone hears of it, so neither
    a killed server (``kill -9``) nor a power cut loses one; False (``NORMAL``) a killed
    server loses none (the OS keeps what was written), a power cut or an OS crash may lose
    the last turns (the clients then saw turns the restarted room does not have); several
    rooms' turns share one commit either way (bench_server.py measures both);
    ``check_messages``: check every message sent against the schema (a bug is an error);
    ``clock``: the wall clock seats' absences and rooms' expiry are measured with (tests
    pass their own); ``allowed_hosts``: the names the ``Host`` header may give (``*``: any,
    the default here; ``lc serve`` passes its ``--allowed-host`` list), others get 400
    (a WebSocket: 1008)."""
    data.mkdir(parents=True, exist_ok=True)
    crash_at = os.environ.get(CRASH_AT_RATING, "")
    store: Store = (PostgresStore(store_url, durable=durable, crash_at=crash_at) if store_url
                    else SQLiteStore(data / "rooms.sqlite3", durable=durable, crash_at=crash_at))
    hub = Hub(store, Shelf(packs), data / "records", limits, allow_origins, check_messages,
              clock, allowed_hosts)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        # rooms that expired while the server was down are freed first
        with contextlib.suppress(StoreError, sqlite3.Error):
            await hub.sweep()
        sweeper = asyncio.ensure_future(hub.sweep_every())
        taker = asyncio.ensure_future(hub.take_up_every()) if store.shared else None
        hub.listen()
        hub.bots.open()
        # damaged rooms are left out now; where a bot is to move, it plays on
        for room_id in store.open_rooms():
            await hub.wake(room_id)
        try:
            yield
        finally:
            sweeper.cancel()
            if taker is not None:
                taker.cancel()
            for task in hub.clock_tasks.values():
                task.cancel()
            for task in hub.bot_tasks.values():
                task.cancel()
            for task in hub.bot_tasks.values():
                with contextlib.suppress(BaseException):
                    await task
            if hub.background:  # seats going away: stored before the store closes
                await asyncio.wait(list(hub.background), timeout=10)
            hub.bots.close()
            hub.io_pool.shutdown(wait=True)
            hub.announcer.shutdown(wait=True)
            store.close()

    app = Starlette(routes=[
        *player_routes(), *web_routes(), *lobby_routes(), Route("/packs", list_packs),
        Route("/rooms", new_room, methods=["POST"]),
        Route("/replays", upload_replay, methods=["POST"]),
        Route("/rooms/{room_id}", room_state),
        Route("/rooms/{room_id}/pack", room_pack),
        WebSocketRoute("/rooms/{room_id}/ws", room_socket),
    ], lifespan=lifespan)
    app.state.hub = hub
    app.add_middleware(AllowedHosts, hosts=allowed_hosts)
    return app
