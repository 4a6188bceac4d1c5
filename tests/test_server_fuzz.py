"""Fuzzing the room's WebSocket protocol (issue #14): random JSON values, random strings,
messages built from the schema's field names with values of any type, oversize texts,
random commands with random arguments and random move texts, sent over Starlette's
TestClient to a room in the middle of a match. After each one: at most one ``error`` and
nothing else wrong, the room unchanged when an error came, the connection still answers
``ping``, and no message to a seat shows another seat's hand or the draw pile's order."""
from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_server_protocol import FAST, Player, check_view, connect, join  # noqa: E402

from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.protocol import schema  # noqa: E402
from lostcities.server.store import HUMAN  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


class Table:
    """A duel-classic room with two seated players in the middle of a match; a new one
    when a message ended the match or emptied a seat."""

    def __init__(self, app: Any, client: TestClient):
        self.app = app
        self.client = client
        self.stack = contextlib.ExitStack()
        self.room = ""
        self.players: list[Player] = []

    def fresh(self) -> None:
        self.stack.close()
        self.stack = contextlib.ExitStack()
        reply = self.client.post("/rooms", json={"pack": "duel-classic", "hints": True})
        self.room = reply.json()["room"]
        self.players = [Player(self.stack.enter_context(connect(self.client, self.room)))
                        for _ in range(2)]
        for player, name in zip(self.players, ("Ada", "Bob")):
            join(player, name)
        self.players[0].line("/start")
        for player in self.players:
            player.started()
            player.ping()
        mover = self.mover()
        mover.send({"type": "move", "move": mover.state["legal"][0]})  # mid-match
        for player in self.players:
            player.state_at(1)
            player.ping()

    def hub_room(self) -> Any:
        return self.app.state.hub.rooms[self.room]

    def ready(self) -> None:
        """A room under way where both players hold their seats (else a new one)."""
        if not self.room:
            return self.fresh()
        room = self.hub_room()
        if room.status != "playing" or any(s.kind != HUMAN for s in room.seats):
            return self.fresh()
        for player in self.players:  # a hello with another token made it a spectator
            if player.state is None or player.state["seat"] is None:
                player.send({"type": "hello", "token": player.token})
                player.ping()
        if any(p.state["seat"] is None for p in self.players):
            self.fresh()

    def mover(self) -> Player:
        return next(p for p in self.players if p.state["legal"])

    def facts(self) -> tuple[Any, ...]:
        hub, room = self.app.state.hub, self.hub_room()
        info = room.info()  # who is connected aside (a hello with a wrong token leaves)
        info["seats"] = [{k: v for k, v in s.items() if k != "present"} for s in info["seats"]]
        seats = [(s.seat, s.name, s.kind, s.bot, s.token_hash, s.wants_cont)
                 for s in hub.store.seats(self.room)]
        return (room.state.snapshot(), info, room.status, hub.store.turns(self.room), seats)


@pytest.fixture(scope="module")
def table(tmp_path_factory: Any) -> Any:
    app = create_app(Path(tmp_path_factory.mktemp("fuzz")), limits=FAST, durable=False)
    with TestClient(app) as client:
        table = Table(app, client)
        yield table
        table.stack.close()


def hands_of(table: Table) -> list[list[str]]:
    room = table.hub_room()
    codec = room.pack.cards
    return [[codec.format(c) for c in hand] for hand in room.state.hands]


def exchange(table: Table, send: Any, who: int) -> None:
    """Send one message from player ``who`` and check what came back."""
    table.ready()
    for player in table.players:  # nothing left over from an example that failed
        player.ping()
    sender = table.players[who]
    other = table.players[1 - who]
    before = table.facts()
    send(sender)
    got = sender.ping()  # the connection still answers ping, after all its replies
    heard = other.ping()
    errors = [m for m in got if m["type"] == "error"]
    assert len(errors) <= 1, got
    if errors:
        assert errors[0]["text"] and "\n" not in errors[0]["text"]
        assert table.facts() == before  # an error changes nothing
        assert all(m["type"] == "state" for m in heard), heard  # a seat's hello at most
        assert all(m["type"] in ("welcome", "state") for m in got if m is not errors[0])
    room = table.hub_room()
    if room.state is not None:
        hands = hands_of(table)
        for player, messages in ((sender, got), (other, heard)):
            for message in messages:
                if message["type"] == "state":
                    check_view(table.app, table.room, message, message["seat"])
                seat = message.get("seat") if message["type"] == "state" else None
                text = json.dumps(message)
                for n, hand in enumerate(hands):
                    if n != seat and len(hand) >= 4 and message["type"] not in ("error",):
                        assert json.dumps(sorted(hand)) not in text


# --------------------------------------------------------------------------- strategies

SCALARS = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


def _client_fields() -> tuple[list[str], list[str]]:
    defs = schema()["$defs"]
    names = [ref["$ref"].rsplit("/", 1)[1] for ref in defs["client"]["oneOf"]]
    types = [defs[n]["properties"]["type"]["const"] for n in names]
    fields = sorted({f for n in names for f in defs[n]["properties"]} - {"type"})
    return types, fields


TYPES, FIELDS = _client_fields()
MESSAGES = st.builds(
    lambda kind, extra: {"type": kind, **extra},
    st.sampled_from(TYPES) | VALUES,
    st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), VALUES, max_size=3))
COMMANDS = st.sampled_from(["/join", "/leave", "/bot", "/start", "/cont", "/help", "/JOIN",
                            "/frob", "/", ""])
ARGS = st.lists(st.sampled_from(["greedy", "expert", "ismcts@9", "os:system", "random@x",
                                 "Ada", "Bob", "<script>", "@", ""]) | st.text(max_size=12),
                max_size=3).map(" ".join)
CARDS = st.sampled_from(["r5", "y2", "bx", "w10", "g9", "r0", "q3", "x", "", "R5", "rx"])
DRAWS = st.sampled_from(["deck", "y", "b", "w", "g", "r", "pawn=0", "step=none", "z", "-"])
MOVE_TEXTS = st.builds(lambda a, c, d, junk: " ".join(x for x in (a, c, *d, junk) if x),
                       st.sampled_from(["p", "d", "P", "play", "x", ""]), CARDS,
                       st.lists(DRAWS, max_size=3), st.text(max_size=8))


# --------------------------------------------------------------------------- the tests

@SETTINGS
@given(value=VALUES, who=st.integers(0, 1))
def test_random_json_values(table: Table, value: Any, who: int) -> None:
    exchange(table, lambda p: p.socket.send_text(json.dumps(value)), who)


@SETTINGS
@given(text=st.text(max_size=300), who=st.integers(0, 1))
def test_random_strings(table: Table, text: str, who: int) -> None:
    exchange(table, lambda p: p.socket.send_text(text), who)


@SETTINGS
@given(message=MESSAGES, who=st.integers(0, 1))
def test_messages_from_the_schemas_fields_with_any_values(table: Table, message: Any,
                                                          who: int) -> None:
    exchange(table, lambda p: p.socket.send_text(json.dumps(message)), who)


@settings(SETTINGS, max_examples=10)
@given(size=st.integers(4097, 60000), kind=st.sampled_from(["line", "move", "hello"]))
def test_oversize_texts(table: Table, size: int, kind: str) -> None:
    field = {"line": "text", "move": "move", "hello": "token"}[kind]
    exchange(table, lambda p: p.send({"type": kind, field: "x" * size}), 0)


@SETTINGS
@given(command=COMMANDS, args=ARGS, who=st.integers(0, 1))
def test_random_commands(table: Table, command: str, args: str, who: int) -> None:
    exchange(table, lambda p: p.line(f"{command} {args}"), who)


@SETTINGS
@given(text=MOVE_TEXTS, who=st.integers(0, 1), legal=st.integers(0, 30), pick=st.booleans())
def test_random_moves(table: Table, text: str, who: int, legal: int, pick: bool) -> None:
    def send(player: Player) -> None:
        moves = player.state["legal"] or []
        chosen = moves[legal % len(moves)] if pick and moves else text
        player.send({"type": "move", "move": chosen} if chosen else {"type": "move"})
    exchange(table, send, who)
