"""The room protocol: the JSON schema of every message both ways (``protocol.schema.json``,
docs/server.md), the limits, the server's messages (English, French, from
:mod:`lostcities.i18n`, each client's in its language: :func:`localize`) and the cleaning
of names and chat lines.

Nothing here needs the ``serve`` extra.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping, Optional, Sequence

from lostcities.engine.tooling import plain_text
from lostcities.i18n import LANGS, Catalogue


@dataclass(frozen=True)
class Limits:
    """The caps of one server (docs/server.md, "Limits")."""

    #: one WebSocket message or ``POST /rooms`` body, in bytes (UTF-8)
    message_bytes: int = 4096
    #: messages a second per connection (a token bucket of ``burst`` messages)
    rate: float = 10.0
    burst: int = 20
    #: rooms in the store; open connections in all; open connections of one room
    rooms: int = 1000
    connections: int = 2000
    room_connections: int = 32
    #: messages waiting to be sent to one connection; a client that lets more pile up is
    #: dropped (a slow or vanished client never holds the room up)
    send_queue: int = 256
    #: a seat's name and a chat line, in characters after cleaning
    name_chars: int = 24
    chat_chars: int = 300
    #: chat lines sent to a client when it connects
    chat_backlog: int = 50
    #: seconds a human seat must have had no connection before ``/bot`` may take it over
    takeover_seconds: float = 60.0
    #: seconds a room with no connection open is kept after anyone was last there (its
    #: creation, a seat's last connection, a chat line): a room never started, and a
    #: started one; then it expires (checked every ``sweep_seconds``, and at start)
    lobby_expiry_seconds: float = 3600.0
    empty_expiry_seconds: float = 604800.0
    sweep_seconds: float = 60.0
    #: seconds a room whose humans have all gone (each seat a bot's or left) is kept after
    #: the last one left (its seat's ``seen``), no connection open: then it closes
    abandoned_seconds: float = 600.0
    #: seconds a human seat of a casual match under way may be away (left, or no
    #: connection) while another human holds a seat before the server seats a bot there
    seat_bot_seconds: float = 120.0
    #: one client address (an IPv6 one by its /64): rooms it opened that are still there,
    #: and rooms it may open a minute (a token bucket of as many)
    address_rooms: int = 20
    address_rooms_per_minute: int = 10
    #: one client address's open WebSockets, in all rooms and in one room
    address_connections: int = 64
    address_room_connections: int = 8
    #: seconds a WebSocket holding no seat may go without a message before it is closed
    idle_seconds: float = 300.0
    #: seconds a request's head (and a ``POST /rooms`` body) may take to arrive; seconds
    #: a kept-alive HTTP connection may wait for its next request
    head_seconds: float = 10.0
    keep_alive_seconds: float = 5.0
    #: one client address's HTTP connections open at once (a WebSocket counts among
    #: ``address_connections`` once open; the addresses of trusted proxies are not limited)
    address_http_connections: int = 32
    #: open TCP connections (HTTP and WebSocket) at most; ``lc serve`` takes fewer when
    #: the file limit (``ulimit -n``) is lower: that limit less ``FD_RESERVE``
    open_connections: int = 4000
    #: rooms whose bot (or hint) is thinking at once, time-sliced (worker threads;
    #: :mod:`.bots`); bot jobs waiting for one, beyond which a hint is refused (a bot's
    #: move always waits its turn); seconds between two hints of one seat (one at a time)
    bot_threads: int = 32
    bot_queue: int = 64
    hint_seconds: float = 1.0
    #: a record file dropped on the replay page (``POST /replays``), in bytes; replays
    #: built at once (a dropped file's, a finished match's first visit), beyond which
    #: one is refused (``error.replays-busy``)
    replay_bytes: int = 2 * 1024 * 1024
    replays_at_once: int = 2
    #: players one client address may make or look up by key a minute (``POST /players``,
    #: ``POST /players/me``; a token bucket); players the store holds at most
    address_players_per_minute: int = 5
    players: int = 100_000
    #: a running clock's timer sleeps until the seat's time runs out, but at most this many
    #: seconds before it looks again (a wall clock set forward or back is caught up then)
    clock_check_seconds: float = 5.0
    #: several processes on one database: a room under way that no turn has changed for
    #: this many seconds is taken up by any process (its bot plays, its clock is watched:
    #: the process that served it may be gone), checked as often
    orphan_seconds: float = 5.0


LIMITS = Limits()


def clean_text(text: str, limit: int) -> str:
    """``text`` as the server keeps it: shown by the one rule for data text
    (:func:`lostcities.engine.safeio.plain_text`: control and format characters, such as
    escapes, bidi overrides and zero-width ones, and lone surrogates removed, line breaks
    a space), runs of spaces made one, stripped, cut to ``limit`` characters. Text, never
    HTML: a client displays it escaped."""
    return " ".join(plain_text(text).split())[:limit]


# --------------------------------------------------------------------------- schema

@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The protocol's JSON schema (package data)."""
    return json.loads(resources.files(__package__).joinpath("protocol.schema.json")
                      .read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _validator(definition: str) -> Any:
    from jsonschema import Draft202012Validator

    whole = schema()
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": whole["$defs"]})


#: the close code and reason of a WebSocket to a room the server does not have (an
#: application code, 4000-4999: the page and ``lc play --connect`` say it in one line and
#: do not reconnect; before the socket is accepted a close would reach them as HTTP 403)
ROOM_GONE = 4404
ROOM_GONE_REASON = "no such room"
#: the close code of every socket of a process whose database went out of reach
#: (WebSocket's "service restart": the page and lc play --connect reconnect, to this
#: process or another), and of a socket opened before it is back (1013, "try again later")
STORE_LOST, STORE_AWAY = 1012, 1013

#: the keys a ``move`` message may have (``protocol.schema.json``, ``$defs/move``)
MOVE_KEYS = frozenset({"type", "move", "seat"})


def is_plain_move(message: Any) -> bool:
    """Whether ``message`` is a ``move`` message the schema accepts, told without the
    schema's validator (the message sent most, each move): ``type`` ``move``, ``move`` a
    string of 1 to 200 characters, ``seat`` (optional) an int from 0 to 15, no other
    key. False means only "not told here": :func:`problem` then asks the validator."""
    if type(message) is not dict or message.get("type") != "move" or \
            not MOVE_KEYS.issuperset(message):
        return False
    move = message.get("move")
    seat = message.get("seat", 0)
    return type(move) is str and 1 <= len(move) <= 200 and type(seat) is int and \
        0 <= seat <= 15


def problem(message: Any, definition: str) -> Optional[str]:
    """Why ``message`` is not a valid ``definition`` (``client``, ``server``, ``new_room``,
    ``lobby_client``, ``lobby_server``, ``new_player``, ``player_key``)
    of the schema, in one line, or None when it is. For a message with a known ``type``
    the reason is that type's, not the ``oneOf``'s."""
    if definition == "client" and is_plain_move(message):
        return None
    if definition in ("client", "server", "lobby_client", "lobby_server") and \
            isinstance(message, dict):
        kind = message.get("type")
        defs = schema()["$defs"]
        branches = {defs[name]["properties"]["type"]["const"]: name for name in
                    (ref["$ref"].rsplit("/", 1)[1] for ref in defs[definition]["oneOf"])}
        if not isinstance(kind, str) or kind not in branches:
            return (f"'type' must be one of {', '.join(branches)}" if isinstance(kind, str)
                    or kind is None else "'type' must be a string")
        definition = branches[kind]
    errors = sorted(_validator(definition).iter_errors(message),
                    key=lambda e: (len(e.absolute_path), e.message))
    if not errors:
        return None
    error = errors[0]
    where = "/".join(str(p) for p in error.absolute_path) or "the message"
    text = error.message
    return f"{where}: {text[:200]}{'...' if len(text) > 200 else ''}"


# --------------------------------------------------------------------------- catalogue

def say(lang: str, key: str, **params: Any) -> str:
    """The message ``key`` in ``lang`` (``en`` or ``fr``; anything else is English) with
    its parameters filled in, from lostcities' one catalogue (:mod:`lostcities.i18n`)."""
    return Catalogue(lang if lang in LANGS else "en")(key, **params)


def translate(lang: str, key: str, params: Mapping[str, Any]) -> str:
    """The message ``key`` in ``lang`` with ``params`` said in that language: a
    parameter that is itself a note (``{"key": ..., "params": ...}``, e.g. the
    engine's reason a move is refused, :func:`lostcities.engine.why_refused`) is
    translated first, and one named ``colour`` or ``*_colour`` holds a pack colour's
    name (``yellow``), said in ``lang`` (``jaune``)."""
    cat = Catalogue(lang if lang in LANGS else "en")
    return cat(key, **_params(cat, params, 0))


def _params(cat: Catalogue, params: Mapping[str, Any], depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, Mapping) and "key" in value and depth < 3:
            value = cat(value["key"], **_params(cat, value.get("params", {}), depth + 1))
        elif isinstance(value, str) and (name == "colour" or name.endswith("_colour")):
            value = cat.colour(value)
        out[name] = value
    return out


def localize(message: dict[str, Any], lang: str) -> dict[str, Any]:
    """A message as one client receives it, in its language: an ``info`` or ``error``
    built with ``params`` gets its ``text``, a ``turn`` or ``hint`` whose ``words`` is a
    list of notes gets them said one after the other."""
    if "params" in message:
        return {"type": message["type"], "key": message["key"],
                "text": translate(lang, message["key"], message["params"])}
    words = message.get("words")
    if isinstance(words, list):
        return {**message, "words": " ".join(translate(lang, n["key"], n.get("params", {}))
                                             for n in words)}
    return message


def lang_of(accept_language: str) -> str:
    """The first of :data:`LANGS` an ``Accept-Language`` header names, else ``en``."""
    for part in accept_language.split(",")[:20]:
        tag = part.split(";")[0].strip().lower()[:2]
        if tag in LANGS:
            return tag
    return "en"


def said_here(event: Any, kinds: Sequence[str]) -> bool:
    """Whether ``event``, heard from another process sharing the store (data from the
    database), is a server message of the protocol of one of ``kinds`` (``info``,
    ``chat``, ``error``) in every language: else it is not passed on to a client."""
    if not isinstance(event, dict) or event.get("type") not in kinds:
        return False
    try:
        return all(problem(localize(event, lang), "server") is None for lang in LANGS)
    except Exception:  # noqa: BLE001 - a key or params no message of ours has
        return False
