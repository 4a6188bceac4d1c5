"""Who a client is, and what one client may hold: its address (:func:`address_of`), the
rooms it may open (:class:`RoomQuota`), the hosts the server answers to
(:class:`AllowedHosts`). docs/server.md, "Limits" and "Behind a reverse proxy".

A client is known by the address its request came from: behind a reverse proxy, the
address the proxy names in ``X-Forwarded-For`` when ``lc serve --forwarded-allow-ips``
trusts that proxy (uvicorn's ``ProxyHeadersMiddleware`` puts it in the ASGI scope).
"""
from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import time
from collections import Counter
from typing import Any, Callable, Iterable, Optional

from .protocol import Limits, lang_of, say

#: the hosts a server answers to besides the address it listens on
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


async def next_message(socket: Any, seconds: float) -> Optional[tuple[Optional[str], int]]:
    """A WebSocket's next message: ``(its text, or None for a binary one; its size in
    bytes)``, or None when the client went away; :class:`asyncio.TimeoutError` after
    ``seconds`` of silence."""
    event = await asyncio.wait_for(socket.receive(), seconds)
    if event["type"] == "websocket.disconnect":
        return None
    text = event.get("text")
    size = len(text.encode("utf-8", errors="replace")) if text is not None else \
        len(event.get("bytes") or b"")
    return text, size


def address_of(scope: Any) -> str:
    """The address of an ASGI request's client as limits count it (:func:`address_key`)."""
    client = scope.get("client") or ("", 0)
    return address_key(str(client[0]))


def address_key(host: str) -> str:
    """A client's address as limits count it: an IPv4 address, an IPv6 address's /64
    network (one host commonly holds a whole /64), or the text the server was given (a
    test client's name, a Unix socket's empty one)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:100]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def proxies(addresses: str) -> Callable[[str], bool]:
    """Whether a peer is one of ``addresses`` (``lc serve --forwarded-allow-ips``: a
    comma-separated list of addresses and networks; ``*``: any)."""
    names = {a.strip() for a in addresses.split(",") if a.strip()}
    if "*" in names:
        return lambda host: True
    networks = []
    for name in names:
        with contextlib.suppress(ValueError):
            networks.append(ipaddress.ip_network(name, strict=False))

    def trusted(host: str) -> bool:
        if host in names:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in networks)
    return trusted


class RoomQuota:
    """The rooms each address may open: at most ``Limits.address_rooms`` of those it opened
    still there, and ``Limits.address_rooms_per_minute`` a minute (a token bucket of as
    many). Counted since the server started (expiry frees a room's place)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic):
        self.limits = limits
        self.clock = clock
        self.owner: dict[str, str] = {}
        self.held: Counter[str] = Counter()
        self._buckets: dict[str, tuple[float, float]] = {}

    def refusal(self, address: str) -> Optional[str]:
        """Why ``address`` may not open a room now (an i18n key), or None."""
        if self.held[address] >= self.limits.address_rooms:
            return "error.rooms-held"
        if self._tokens(address) < 1:
            return "error.rooms-too-fast"
        return None

    def opened(self, address: str, room_id: str) -> None:
        """``address`` opened ``room_id``: one token spent, one room held."""
        tokens = self._tokens(address)
        self._buckets[address] = (tokens - 1, self.clock())
        self.owner[room_id] = address
        self.held[address] += 1

    def release(self, room_id: str) -> None:
        """``room_id`` is gone: its place is free again."""
        address = self.owner.pop(room_id, None)
        if address is not None:
            self.held[address] -= 1
            if self.held[address] <= 0:
                del self.held[address]

    def prune(self) -> None:
        """Forget the buckets that are full again (nothing to remember of them)."""
        full = self.limits.address_rooms_per_minute
        for address in [a for a in self._buckets if self._tokens(a) >= full]:
            del self._buckets[address]

    def _tokens(self, address: str) -> float:
        full = float(self.limits.address_rooms_per_minute)
        tokens, since = self._buckets.get(address, (full, self.clock()))
        return min(full, tokens + (self.clock() - since) * full / 60.0)


class Bucket:
    """So many of something an address may do a minute (a token bucket each)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        self.per_minute = per_minute
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, address: str) -> bool:
        """Whether ``address`` may do one more now (a token spent if so)."""
        full = float(self.per_minute)
        now = self.clock()
        tokens, since = self._buckets.get(address, (full, now))
        tokens = min(full, tokens + (now - since) * full / 60.0)
        if tokens < 1:
            return False
        self._buckets[address] = (tokens - 1, now)
        if len(self._buckets) > 10_000:  # forget the full ones
            self._buckets = {a: (t, s) for a, (t, s) in self._buckets.items()
                             if t + (now - s) * full / 60.0 < full}
        return True


def host_name(host: str) -> str:
    """The name part of a ``Host`` header or an origin's ``netloc``, lower-case, without
    its port, brackets or trailing dot: ``[::1]:8000`` -> ``::1``; empty when it is
    not a name and a port."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, port = host[1:].partition("]")
    elif host.count(":") == 1:
        name, _, port = host.partition(":")
        port = ":" + port
    else:
        name, port = host, ""
    if port and not (port.startswith(":") and port[1:].isdigit() and port.isascii()):
        return ""  # not a host and a port: names no host
    return name.rstrip(".")


def host_names(hosts: Iterable[str]) -> "frozenset[str]":
    """The names of ``hosts`` as :func:`host_allowed` compares them."""
    return frozenset(host_name(h) if h != "*" else h for h in hosts) - {""}


def host_allowed(hosts: "frozenset[str]", host: str) -> bool:
    """Whether the ``Host`` header ``host`` names one of ``hosts`` (names as
    :func:`host_name` gives them; ``*``: any host) or is an IP address: a page whose
    name was pointed at this server (DNS rebinding) sends that name, never an address."""
    if "*" in hosts:
        return True
    name = host_name(host)
    if name in hosts:
        return bool(name)
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class AllowedHosts:
    """The ASGI middleware that answers only requests whose ``Host`` names one of
    ``hosts`` (``*``: any) or an IP address (:func:`host_allowed`): another gets 400
    (``error.bad-host``), a WebSocket is closed with 1008. A page of another site whose
    name was pointed at this server (DNS rebinding) sends its own name: refused."""

    def __init__(self, app: Any, hosts: Iterable[str]):
        self.app = app
        self.hosts = host_names(hosts)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        host = headers.get(b"host", b"").decode("latin-1")
        if host_allowed(self.hosts, host):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": 1008, "reason": "host not served"})
            return
        lang = lang_of(headers.get(b"accept-language", b"").decode("latin-1"))
        body = json.dumps({"error": "error.bad-host",
                           "text": say(lang, "error.bad-host", host=host_name(host)[:100])},
                          ensure_ascii=False).encode("utf-8")
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode("ascii"))]})
        await send({"type": "http.response.body", "body": body})
