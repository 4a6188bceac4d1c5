"""The lobby over HTTP and its WebSocket (docs/server.md, "The lobby"):

- ``GET /lobby?pack=ID``: the lobby as a ``lobby`` message (the listed rooms, the newest
  first, at most :data:`~.lobby.SHOWN` a section, how many more, who waits);
- ``WS /lobby/ws``: that snapshot, then every change pushed (``added``, ``changed``,
  ``removed``, ``more``, ``waiting``); the client filters by pack (``watch``) and asks for
  a quick match (``queue``: paired with the next player waiting for the same pack;
  ``play_bot``: against a bot of a chosen strength), answered ``queued`` then
  ``matched`` with the new room, its seat and that seat's token.

The state is :mod:`.lobby`'s; the rooms are the hub's (:class:`~.app.Hub`), reached
through ``app.state.hub``. The quick-match queue is the store's (its one rule:
:data:`~.store.QUEUE_PAIR`), shared by every process on one database: a player waiting in
another process is told its match by an announcement (``matched``, :meth:`Hub.heard`).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from typing import TYPE_CHECKING, Any, Optional, Union

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .clients import address_of, next_message
from .clocks import TimeControl, clock_bounds, control_of
from .http import http_error
from .lobby import STRENGTHS, QueueKey, Watcher
from .protocol import STORE_AWAY, clean_text, lang_of, localize, problem, said_here
from .room import Outcome, error
from .store import StoreError

if TYPE_CHECKING:
    from .app import Connection, Hub
    from .room import Room


def encode_lobby(message: dict[str, Any], check: bool) -> str:
    """A lobby message as JSON text, checked against the schema's ``lobby_server`` when
    ``check`` (a message off the protocol is the server's bug: ``RuntimeError``). Lobby
    messages carry data, no text said in a language: the same bytes go to every page."""
    if check:
        reason = problem(message, "lobby_server")
        if reason is not None:
            raise RuntimeError(f"the server built a lobby message off the protocol: {reason}")
    return json.dumps(message, ensure_ascii=False)


async def lobby_page(request: Request) -> Response:
    """``GET /lobby?pack=ID``: the lobby's snapshot (every pack without ``pack``)."""
    hub: "Hub" = request.app.state.hub
    pack = request.query_params.get("pack") or None
    if pack is not None and hub.shelf.ref(pack) is None:
        return http_error(request, 404, "error.no-pack", pack=clean_text(pack, 80))
    return JSONResponse(hub.lobby.snapshot(Watcher(lambda text: None, pack)))


class NotStarted(Exception):
    """A quick match's room refused a seat or its start: :attr:`message` says why (the
    room's own ``error``)."""

    def __init__(self, message: dict[str, Any]):
        super().__init__(message.get("key", "?"))
        self.message = message


async def quick_room(hub: "Hub", pack: str, humans: int, bot: Optional[str] = None,
                     control: Optional[TimeControl] = None) -> tuple["Room", list[str]]:
    """A new listed room of ``pack`` with the clock ``control`` (None: none) and
    ``humans`` players seated (then ``bot``, if given), started, as the room's own commands do it (``/join``, ``/bot``, ``/start``):
    the room and each human seat's token, in seat order. A store that refuses the
    writes: :class:`StoreError`; a pack not served: :class:`KeyError`; a command the room
    refused: :class:`NotStarted`."""
    room = await hub.create_room(pack, listed=True, control=control)
    tokens: list[str] = []
    async with hub.lock(room.id):
        for _ in range(humans):
            outcome = await hub.run(room.line, None, "/join")
            if outcome.token is None:
                raise NotStarted(outcome.replies[0])
            tokens.append(outcome.token)
        commands = [f"/bot {bot}"] if bot is not None else []
        for command in commands + ["/start"]:
            outcome = await hub.run(room.line, 0, command)
            if not outcome.changed:
                raise NotStarted(outcome.replies[0])
    hub.deliver(room, Outcome(changed=True))
    return room, tokens


class Elsewhere:
    """A player waiting for a quick match in another process sharing the store: told its
    match by an announcement that process hears (:meth:`LobbyClient.told_matched`)."""

    def __init__(self, hub: "Hub", waiter: str):
        self.hub = hub
        self.id = waiter

    def tell(self, message: dict[str, Any]) -> None:
        """``message`` (``matched``, or an ``error``) announced to this waiter's process."""
        self.hub.announce({"matched": self.id, "said": message})


class LobbyClient:
    """One lobby socket: its connection (:class:`~.app.Connection`: rate, bounded send
    queue), what it watches, and its id in the quick-match queue."""

    def __init__(self, hub: "Hub", client: "Connection"):
        self.hub = hub
        self.client = client
        self.watcher = Watcher(client.send_text)
        self.id = secrets.token_urlsafe(12)

    def tell(self, message: dict[str, Any]) -> None:
        """``message`` (``matched``, or an ``error``) sent to this page."""
        if message.get("type") == "error":
            self.client.send(message)
        else:
            self.client.send_text(encode_lobby(message, self.hub.check_messages))

    def told_matched(self, announced: dict[str, Any]) -> None:
        """Another process paired this waiter: its ``matched`` (or ``error``) message, as
        that process announced it (checked against the protocol: data from the
        database), sent on."""
        message = announced.get("said")
        if not isinstance(message, dict):
            return
        if said_here(message, ("error",)):
            self.client.send(message)
        elif problem(message, "lobby_server") is None and message.get("type") == "matched":
            self.client.send_text(json.dumps(message, ensure_ascii=False))

    async def leave_queue(self) -> None:
        """This page waits no more (it went, gave up, or plays a bot)."""
        hub = self.hub
        if hub.waiters.get(self.id) is self:
            del hub.waiters[self.id]
        with contextlib.suppress(StoreError):
            if await hub.run(hub.store.queue_leave, self.id):
                await hub.tell_queue()

    async def handle(self, text: Optional[str], size: int) -> None:
        """One message: checked as the rooms' are (:meth:`~.app.Hub.read`), then done."""
        hub = self.hub
        message = hub.read(self.client, text, size, "lobby_client")
        if message is None:
            return
        kind = message["type"]
        if kind == "ping":
            self.client.send({"type": "pong"})
        elif kind == "watch":
            self.client.lang = message.get("lang", self.client.lang)
            pack = message.get("pack")
            if pack is not None and hub.shelf.ref(pack) is None:
                self.client.send(error("error.no-pack", pack=pack[:80]))
                return
            hub.lobby.watch(self.watcher, pack)
        elif kind == "leave_queue":
            await self.leave_queue()
        else:
            try:
                control = control_of(message.get("clock"))
            except ValueError:  # never: the schema has checked it, with the same bounds
                self.client.send(error("error.bad-clock", **clock_bounds()))
                return
            if kind == "queue":
                await self.queue(message["pack"], control)
            else:
                await self.play_bot(message["pack"], message["strength"], control)

    async def refusal(self, pack: str) -> Optional[dict[str, Any]]:
        """Why this client may not open a room of ``pack`` now (an ``error``), or None."""
        hub = self.hub
        ref = hub.shelf.ref(pack)
        if ref is None:
            return error("error.no-pack", pack=pack[:80])
        fewest = hub.shelf.find(ref).min_players
        if fewest > 2:  # two players, or one and a bot
            return error("error.quick-players", pack=pack, min=fewest)
        key = hub.quota.refusal(self.client.address)
        if key is not None:
            return error(key, rooms=hub.limits.address_rooms,
                          rate=hub.limits.address_rooms_per_minute)
        try:
            rooms = await hub.run(hub.store.count_rooms)  # (off the loop: a round trip)
        except StoreError:
            return error("error.cannot-save")
        if rooms >= hub.limits.rooms:
            return error("error.rooms-full", rooms=hub.limits.rooms)
        return None

    async def queue(self, pack: str, control: Optional[TimeControl] = None) -> None:
        """Wait for the next player asking for ``pack`` with the same clock ``control``, or
        be paired with the one waiting: both sent ``matched`` (the first waiting takes
        seat 1)."""
        hub = self.hub
        refused = await self.refusal(pack)
        if refused is not None:
            self.client.send(refused)
            return
        key = QueueKey(pack, "" if control is None else control.stored())
        while True:
            try:
                other = await hub.run(hub.store.queue_join, self.id, key.pack, key.clock,
                                      hub.clock())
            except StoreError:
                self.client.send(error("error.cannot-save"))
                return
            partner: Union["LobbyClient", Elsewhere, None] = \
                None if other is None else hub.waiters.pop(other, None) or Elsewhere(hub, other)
            if not isinstance(partner, LobbyClient) or not partner.client.closed:
                break  # (a page of this process that went meanwhile: the next one)
        if partner is None:
            hub.waiters[self.id] = self
        await hub.tell_queue()
        if partner is None:
            self.client.send_text(encode_lobby({"type": "queued", **key.said()},
                                               hub.check_messages))
            return
        await self.open_match(pack, [partner, self], control=control)

    async def play_bot(self, pack: str, strength: str,
                       control: Optional[TimeControl] = None) -> None:
        """A match of ``pack`` against the bot of ``strength`` (:data:`~.lobby.STRENGTHS`),
        with the clock ``control`` (None: none), started at once."""
        refused = await self.refusal(pack)
        if refused is not None:
            self.client.send(refused)
            return
        await self.leave_queue()
        await self.open_match(pack, [self], STRENGTHS[strength], control)

    async def open_match(self, pack: str, players: list[Union["LobbyClient", Elsewhere]],
                         bot: Optional[str] = None,
                         control: Optional[TimeControl] = None) -> None:
        """A started room of ``pack`` for ``players`` (and ``bot``), with the clock
        ``control``: each sent its seat."""
        hub = self.hub
        try:
            room, tokens = await quick_room(hub, pack, len(players), bot, control)
        except NotStarted as refusal:
            for player in players:
                player.tell(refusal.message)
            return
        except (StoreError, KeyError):
            for player in players:
                player.tell(error("error.cannot-save"))
            return
        hub.quota.opened(self.client.address, room.id)
        for seat, (player, token) in enumerate(zip(players, tokens)):
            player.tell({"type": "matched", "room": room.id, "seat": seat, "token": token})


async def lobby_socket(socket: WebSocket) -> None:
    """``WS /lobby/ws``: the lobby's snapshot, then its changes, until the page goes."""
    hub: "Hub" = socket.app.state.hub
    if not hub.origin_ok(socket.headers):
        await socket.close(code=1008)
        return
    lang = lang_of(socket.headers.get("accept-language", ""))
    address = address_of(socket.scope)
    await socket.accept()
    if hub.store_down:  # (nothing heard meanwhile: the lobby is read again once it is back)
        await socket.close(code=STORE_AWAY)
        return
    full = hub.lobby_full(address)
    if full is not None:
        with contextlib.suppress(Exception):
            await socket.send_text(json.dumps(localize(error(full), lang), ensure_ascii=False))
        await socket.close(code=1013)
        return
    client = hub.lobby_client(socket, lang, address)
    visitor = LobbyClient(hub, client)
    try:
        hub.lobby.watch(visitor.watcher, None)
        while not client.closed:
            try:
                message = await next_message(socket, hub.limits.idle_seconds)
            except asyncio.TimeoutError:  # a page gone quiet (the page pings)
                client.drop(code=1000)
                break
            if message is None:
                break
            await visitor.handle(*message)
    except WebSocketDisconnect:
        pass
    finally:
        hub.lobby.leave(visitor.watcher)
        hub.lobby_closed(client)
        hub.later(visitor.leave_queue())  # (a task of its own: this one may be cancelled)


def routes() -> list[BaseRoute]:
    """The lobby's routes."""
    return [Route("/lobby", lobby_page), WebSocketRoute("/lobby/ws", lobby_socket)]
