"""The room server's Starlette application (``lc serve``; docs/server.md).

- ``GET /``, ``/r/{id}``, ``/static/...``: the web page (:mod:`.web`);
- ``GET /packs``: the packs a room can be opened with;
- ``POST /rooms`` ``{"pack": ID, "hints": false}``: a new room, ``{"room": "k3v9q2xa", ...}``;
- ``GET /rooms/{id}``: the room's public state (what a spectator sees);
- ``GET /rooms/{id}/pack``: the room's resolved pack (what records embed as ``pack_data``);
- ``WS /rooms/{id}/ws``: the protocol (``protocol.schema.json``).

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
import base64
import contextlib
import json
import secrets
import time
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

from lostcities.engine import LostCitiesError, load_pack
from lostcities.engine.safeio import loads_json

from .bots import BotScheduler, Refused
from .protocol import LIMITS, Limits, clean_text, lang_of, localize, problem, say
from .room import Outcome, PlannedTurn, Room, RoomError
from .store import PLAYING, SQLiteStore, Store, StoreError, token_hash
from .web import routes as web_routes

#: a room id: 8 characters of base32 (40 random bits)
ROOM_ID_CHARS = "abcdefghijklmnopqrstuvwxyz234567"


def new_room_id() -> str:
    """A short shareable room id: 8 lower-case base32 characters from ``secrets``."""
    return base64.b32encode(secrets.token_bytes(5)).decode("ascii").lower()


def is_room_id(text: str) -> bool:
    """Whether ``text`` has the form of a room id."""
    return len(text) == 8 and all(c in ROOM_ID_CHARS for c in text)


#: the worker threads of the room calls' store writes: more of them waiting means more
#: turns in one group commit (one fsync), and a thread waiting costs next to nothing
IO_THREADS = 16

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
    return json.dumps(message, ensure_ascii=False)


def speaks(message: dict[str, Any]) -> bool:
    """Whether ``message`` is said in each client's language (its text differs by
    language: an ``info``/``error`` note, a ``turn`` or ``hint`` in words)."""
    return "params" in message or isinstance(message.get("words"), list)


class Connection:
    """One client's WebSocket: its language, seat token, rate bucket and send queue."""

    def __init__(self, socket: WebSocket, limits: Limits, lang: str, check: bool):
        self.socket = socket
        self.limits = limits
        self.lang = lang
        self.check = check
        self.token_digest: Optional[str] = None
        self.queue: asyncio.Queue[Optional[str]] = asyncio.Queue(maxsize=limits.send_queue)
        self.closed = False
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

    def drop(self) -> None:
        """Close the connection without waiting for the client."""
        if self.closed:
            return
        self.closed = True
        self.writer.cancel()
        asyncio.ensure_future(self._close())

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(code=1013), 5)

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
                 clock: Callable[[], float] = time.time):
        self.store = store
        self.clock = clock
        self.shelf = shelf
        self.records = records
        self.limits = limits
        self.allow_origins = tuple(allow_origins)
        self.check_messages = check_messages
        self.rooms: dict[str, Room] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.clients: dict[str, set[Connection]] = {}
        self.bot_tasks: dict[str, asyncio.Task[None]] = {}
        #: tasks that outlive the connection that started them (a seat going away)
        self.background: set[asyncio.Task[None]] = set()
        self.bots = BotScheduler(limits, clock=clock)
        self.io_pool = ThreadPoolExecutor(max_workers=IO_THREADS, thread_name_prefix="lc-room")

    def connections(self) -> int:
        """Open connections in all rooms."""
        return sum(len(c) for c in self.clients.values())

    def lock(self, room_id: str) -> asyncio.Lock:
        """The lock that makes one room's calls run one at a time."""
        return self.locks.setdefault(room_id, asyncio.Lock())

    async def run(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` in a worker thread (store writes, engine work)."""
        return await asyncio.get_running_loop().run_in_executor(self.io_pool, fn, *args)

    async def room(self, room_id: str) -> Optional[Room]:
        """The room, rebuilt from the store the first time it is asked for (None: no such
        room; :class:`RoomError`: it cannot be rebuilt)."""
        if room_id in self.rooms:
            return self.rooms[room_id]
        async with self.lock(room_id):
            if room_id not in self.rooms:
                room = await self.run(lambda: Room.load(
                    self.store, room_id, self.shelf.find, records=self.records,
                    limits=self.limits, clock=self.clock))
                if room is None:
                    return None
                self.attach(room)
        return self.rooms[room_id]

    def attach(self, room: Room) -> None:
        """Keep ``room`` in the cache, its presence read from this hub's connections."""
        room.presence = lambda: self.present(room)
        self.rooms[room.id] = room

    def present(self, room: Room) -> set[int]:
        """The seats of ``room`` an open connection holds now."""
        seats = {client.seat(room) for client in self.clients.get(room.id, ())
                 if not client.closed}
        seats.discard(None)
        return seats  # type: ignore[return-value]

    async def create_room(self, pack_name: str, hints: bool = False) -> Room:
        """A new room with the pack called ``pack_name`` (:class:`KeyError`: not served),
        giving hints or not."""
        ref = self.shelf.ref(pack_name)
        if ref is None:
            raise KeyError(pack_name)
        pack = self.shelf.find(ref)
        for _ in range(5):
            room_id = new_room_id()
            try:
                room = await self.run(lambda: Room.create(
                    self.store, room_id, pack, ref, records=self.records, limits=self.limits,
                    hints=hints, clock=self.clock))
            except StoreError:
                continue
            self.attach(room)
            return room
        raise StoreError("no free room id")

    def deliver(self, room: Room, outcome: Outcome, caller: Optional[Connection] = None) -> None:
        """Send an outcome: replies and a new seat's token to the caller, events and
        every client's new view to the room."""
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
        if outcome.changed:
            self.send_views(room, clients)
            self.kick_bots(room)

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
            async with self.lock(room.id):
                outcome = await self.play(room, room.plan_bot(turn, move))
            self.deliver(room, outcome)

    async def play(self, room: Room, planned: "Outcome | PlannedTurn") -> Outcome:
        """A planned turn (engine work done on the loop: microseconds) committed in a
        worker thread (the store's write), then played; a refusal as it is. The caller
        holds the room's lock."""
        if isinstance(planned, Outcome):
            return planned
        await self.run(room.store_turn, planned)
        return room.played(planned)

    def origin_ok(self, headers: Any) -> bool:
        """Whether a WebSocket's ``Origin`` is this server's host (or an allowed origin);
        a client that sends none (not a browser) is let in."""
        origin = headers.get("origin")
        if origin is None or "*" in self.allow_origins or origin in self.allow_origins:
            return True
        host = (headers.get("host") or "").lower()
        return bool(host) and urlsplit(origin).netloc.lower() == host

    # ------------------------------------------------------------- one message

    async def handle(self, room: Room, client: Connection, text: Optional[str],
                     size: int) -> None:
        """One message from ``client``: size, rate, JSON and schema checked, then done."""
        limits = self.limits
        if text is None:
            client.send(_error("error.not-text"))
            return
        if size > limits.message_bytes:
            client.send(_error("error.too-big", size=size, limit=limits.message_bytes))
            return
        if not client.allow():
            client.send(_error("error.too-fast", rate=f"{limits.rate:g}"))
            return
        try:
            message = loads_json(text, "message")
        except LostCitiesError as err:
            client.send(_error("error.not-json", reason=str(err)[:200]))
            return
        reason = problem(message, "client")
        if reason is not None:
            client.send(_error("error.bad-message", reason=reason))
            return
        kind = message["type"]
        if kind == "ping":
            client.send({"type": "pong"})
            return
        if kind == "hello":
            client.lang = message.get("lang", client.lang)
            if "token" in message:
                before = self.present(room)
                held = client.seat(room)
                digest = token_hash(message["token"])
                if room.seat_of(digest) is None:
                    client.token_digest = None
                    client.send(_error("error.bad-token"))
                else:
                    client.token_digest = digest
                self.welcome(room, client)
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
            seat = client.seat(room)
            if kind == "line":
                outcome = await self.run(room.line, seat, message["text"])
            else:
                outcome = await self.play(room, room.plan_move(seat, message["move"],
                                                               message.get("seat")))
        self.deliver(room, outcome, client)

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
            client.send(_error(refusal.key, **refusal.params))
            return
        except LostCitiesError as err:
            client.send(_error("error.bot", reason=str(err).splitlines()[0][:200]))
            return
        client.send(room.hint_message(asked, move))

    async def away(self, room: Room, seat: int) -> None:
        """No connection holds ``seat`` any more: its absence starts now (stored)."""
        async with self.lock(room.id):
            await self.run(room.touch, seat)

    def later(self, work: Any) -> None:
        """Run the coroutine ``work`` as a task of its own (kept until it is done)."""
        task = asyncio.ensure_future(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def left(self, room: Room, client: Connection) -> None:
        """``client`` closed: if it held a seat nobody else holds, that seat is away now
        and every other client is told (``present``)."""
        seat = client.seat(room)
        if seat is None or seat in self.present(room):
            return
        with contextlib.suppress(StoreError, RoomError, LostCitiesError):
            await self.away(room, seat)
        self.send_views(room, list(self.clients.get(room.id, ())))

    def welcome(self, room: Room, client: Connection) -> None:
        """The ``welcome`` and ``state`` messages for a client."""
        seat = client.seat(room)
        client.send({"type": "welcome", "room": room.id, "pack": room.pack.id,
                     "lang": client.lang, "seat": seat})
        client.send(room.view_for(seat))


def _error(key: str, **params: Any) -> dict[str, Any]:
    return {"type": "error", "key": key, "params": params}


def _http_error(request: Request, status: int, key: str, **params: Any) -> JSONResponse:
    lang = lang_of(request.headers.get("accept-language", ""))
    return JSONResponse({"error": key, "text": say(lang, key, **params)}, status_code=status)


async def list_packs(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    return JSONResponse({"packs": hub.shelf.names()})


async def new_room(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    limit = hub.limits.message_bytes
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return _http_error(request, 413, "error.too-big", size=f"> {limit}", limit=limit)
    try:
        message = loads_json(body.decode("utf-8", errors="replace"), "body")
    except LostCitiesError as err:
        return _http_error(request, 400, "error.not-json", reason=str(err)[:200])
    reason = problem(message, "new_room")
    if reason is not None:
        return _http_error(request, 400, "error.bad-message", reason=reason)
    if hub.store.count_rooms() >= hub.limits.rooms:
        return JSONResponse({"error": "rooms", "text": "this server has all the rooms it takes"},
                            status_code=503)
    try:
        room = await hub.create_room(message["pack"], bool(message.get("hints", False)))
    except KeyError:
        return JSONResponse({"error": "pack", "text": f"no pack called {message['pack'][:80]!r} "
                             f"here: GET /packs"}, status_code=404)
    return JSONResponse({"room": room.id, "pack": room.pack.id, "url": f"/rooms/{room.id}",
                         "ws": f"/rooms/{room.id}/ws"}, status_code=201)


async def room_of(request: Request) -> "Room | Response":
    """The room named by the request's ``room_id``, or the error answer: 404 no such room
    (or not an id), 503 a stored room that cannot be rebuilt."""
    hub: Hub = request.app.state.hub
    room_id = request.path_params["room_id"]
    try:
        room = await hub.room(room_id) if is_room_id(room_id) else None
    except RoomError as err:
        return _http_error(request, 503, "error.room-unavailable", reason=str(err)[:200])
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
    return JSONResponse({"pack": room.pack.id, "kind": kind, "data": room.pack.data})


async def room_socket(socket: WebSocket) -> None:
    hub: Hub = socket.app.state.hub
    limits = hub.limits
    room_id = socket.path_params["room_id"]
    if not hub.origin_ok(socket.headers):
        await socket.close(code=1008)
        return
    try:
        room = await hub.room(room_id) if is_room_id(room_id) else None
    except RoomError:
        room = None
    if room is None:
        await socket.close(code=1008)
        return
    if hub.connections() >= limits.connections or \
            len(hub.clients.get(room_id, ())) >= limits.room_connections:
        await socket.close(code=1013)
        return
    await socket.accept()
    client = Connection(socket, limits, lang_of(socket.headers.get("accept-language", "")),
                        hub.check_messages)
    hub.clients.setdefault(room_id, set()).add(client)
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
            event = await socket.receive()
            if event["type"] == "websocket.disconnect":
                break
            text = event.get("text")
            size = len(text.encode("utf-8", errors="replace")) if text is not None else \
                len(event.get("bytes") or b"")
            await hub.handle(room, client, text, size)
    except WebSocketDisconnect:
        pass
    finally:
        hub.clients.get(room_id, set()).discard(client)
        if not client.closed:
            client.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                client.queue.put_nowait(None)  # let the writer finish what is queued
        # a task of its own: the handler may be cancelled as the socket goes
        hub.later(hub.left(room, client))


def create_app(data: Path, packs: Optional[Path] = None, *, limits: Limits = LIMITS,
               allow_origins: Sequence[str] = (), durable: bool = True,
               check_messages: bool = True,
               clock: Callable[[], float] = time.time) -> Starlette:
    """The server's application: its store ``DATA/rooms.sqlite3``, the finished matches'
    records in ``DATA/records/``, the house packs of ``packs`` (a folder). ``limits``:
    the caps; ``allow_origins``: WebSocket origins let in besides this host's (``*``: any);
    ``durable``: the store's durability (:class:`~.store.SQLiteStore`): True (the
    default, ``synchronous=FULL``) a turn is on disk before anyone hears of it, so neither
    a killed server (``kill -9``) nor a power cut loses one; False (``NORMAL``) a killed
    server loses none (the OS keeps what was written), a power cut or an OS crash may lose
    the last turns (the clients then saw turns the restarted room does not have); several
    rooms' turns share one commit either way (bench_server.py measures both);
    ``check_messages``: check every message sent against the schema (a bug is an error);
    ``clock``: the wall clock seats' absences are measured with (tests pass their own)."""
    data.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(data / "rooms.sqlite3", durable=durable)
    hub = Hub(store, Shelf(packs), data / "records", limits, allow_origins, check_messages,
              clock)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        hub.bots.open()
        # rooms where a bot is to move play on without waiting for a client
        for room_id in store.open_rooms():
            row = store.room(room_id)
            if row is not None and row.status == PLAYING:
                with contextlib.suppress(RoomError, LostCitiesError):
                    room = await hub.room(room_id)
                    if room is not None:
                        hub.kick_bots(room)
        try:
            yield
        finally:
            for task in hub.bot_tasks.values():
                task.cancel()
            for task in hub.bot_tasks.values():
                with contextlib.suppress(BaseException):
                    await task
            if hub.background:  # seats going away: stored before the store closes
                await asyncio.wait(list(hub.background), timeout=10)
            hub.bots.close()
            hub.io_pool.shutdown(wait=True)
            store.close()

    app = Starlette(routes=[
        *web_routes(), Route("/packs", list_packs),
        Route("/rooms", new_room, methods=["POST"]),
        Route("/rooms/{room_id}", room_state),
        Route("/rooms/{room_id}/pack", room_pack),
        WebSocketRoute("/rooms/{room_id}/ws", room_socket),
    ], lifespan=lifespan)
    app.state.hub = hub
    return app
