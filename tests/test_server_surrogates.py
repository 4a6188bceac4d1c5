"""Lone surrogates in a message (issue #32): ``{"type": "hello", "token": "\\ud800"}`` is
valid JSON within the schema, but its string holds no character (no UTF-8 encoding, no
hash). The room's reader refuses any message with such a string in one ``error``
(``error.bad-text``) and the connection stays; nothing after it meets one. Tested over
Starlette's TestClient, as the other protocol tests, and fuzzed with hypothesis over
every client message type with any text in every string field."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("starlette")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_server_protocol import FAST, Player, connect, join, open_room  # noqa: E402

from lostcities.engine.safeio import lone_surrogate, loads_json  # noqa: E402
from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.protocol import clean_text, schema  # noqa: E402
from lostcities.server.store import token_hash  # noqa: E402


@pytest.fixture(scope="module")
def room(tmp_path_factory: Any) -> Iterator[tuple[Any, TestClient, str]]:
    """A duel-classic room with Ada seated, over an in-process app."""
    app = create_app(Path(tmp_path_factory.mktemp("text")), limits=FAST, durable=False)
    with TestClient(app) as client:
        room_id = open_room(client, "duel-classic")
        with connect(client, room_id) as socket:
            join(Player(socket), "Ada")
        yield app, client, room_id


def reply_to(client: TestClient, room_id: str, text: str, lang: str = "en"
             ) -> list[dict[str, Any]]:
    """What a new client of the room hears after sending the raw text frame ``text``,
    up to the pong of the ping sent after it (the connection still answers)."""
    with connect(client, room_id, **{"accept-language": lang}) as socket:
        player = Player(socket)
        player.receive(), player.receive()  # welcome, state
        player.ping()  # the backlog
        player.socket.send_text(text)
        got = player.ping()
        if json.loads(text) == {"type": "ping"}:  # its pong was the reply; then ours
            got += [{"type": "pong"}, *player.ping()]
        return got


@pytest.mark.parametrize("message, field", [
    ({"type": "hello", "token": "\ud800"}, "token"),
    ({"type": "hello", "token": "abc\udfff", "lang": "fr"}, "token"),
    ({"type": "line", "text": "/join Bob\ud83d"}, "text"),
    ({"type": "line", "text": "hi \udc80 there"}, "text"),
    ({"type": "move", "move": "p r5 deck\ud800"}, "move"),
    ({"type": "hello", "lang": "\ud800"}, "lang"),
    ({"type": "ping", "\udc00": 1}, "\\udc00"),
])
def test_a_lone_surrogate_in_any_field_gets_one_error_and_the_connection_stays(
        room: tuple[Any, TestClient, str], message: dict[str, Any], field: str) -> None:
    app, client, room_id = room
    seats = stored_seats(app, room_id)
    got = reply_to(client, room_id, json.dumps(message))  # \\ud800 escapes: valid JSON
    assert [m["type"] for m in got] == ["error"], got
    assert got[0]["key"] == "error.bad-text" and field in got[0]["text"]
    assert "\n" not in got[0]["text"]
    assert stored_seats(app, room_id) == seats  # nothing changed


def stored_seats(app: Any, room_id: str) -> list[Any]:
    """The room's stored seats but for ``seen``, which Ada's closing join socket stores
    on its own time (a loaded machine stored it during the first case)."""
    return [replace(seat, seen=0.0) for seat in app.state.hub.store.seats(room_id)]


def test_the_refusal_is_in_the_clients_language(room: tuple[Any, TestClient, str]) -> None:
    _, client, room_id = room
    got = reply_to(client, room_id, '{"type": "hello", "token": "\\ud800"}', lang="fr")
    assert got[0]["key"] == "error.bad-text"
    assert got[0]["text"].startswith("ce message contient un seizet d'indirection isolé")


def test_a_surrogate_pair_is_one_character_and_passes(room: tuple[Any, TestClient, str]
                                                      ) -> None:
    _, client, room_id = room
    got = reply_to(client, room_id, '{"type": "line", "text": "hi \\ud83d\\ude00"}')
    assert [(m["type"], m.get("text")) for m in got] == [("chat", "hi \U0001f600")]


def test_the_token_hash_takes_any_text() -> None:
    """The store's hash of a token never raises (the reader refuses such a token first;
    the hash is safe by itself too), and differs from a real token's."""
    assert len(token_hash("\ud800")) == 64
    assert token_hash("\ud800") != token_hash("\udc00") != token_hash("?")


def test_where_the_lone_surrogate_is() -> None:
    data = loads_json('{"a": [1, {"b": "x\\udfff"}], "c": "\\ud83d\\ude00"}', "m")
    assert lone_surrogate(data) == "a/1/b"
    assert lone_surrogate(loads_json('{"\\ud800\\n": 1}', "m")) == "\\ud800\\n"
    assert lone_surrogate(loads_json('"\\ud800"', "m")) == ""
    assert lone_surrogate(loads_json('[{"k": "caf\\u00e9"}, 3, null]', "m")) is None


# --------------------------------------------------------------------------- fuzz

def _string_fields() -> dict[str, list[str]]:
    """Each client message type and its string fields (the schema's)."""
    defs = schema()["$defs"]
    out = {}
    for ref in defs["client"]["oneOf"]:
        props = defs[ref["$ref"].rsplit("/", 1)[1]]["properties"]
        out[props["type"]["const"]] = sorted(
            name for name, spec in props.items()
            if name != "type" and (spec.get("type") == "string" or "enum" in spec))
    return out


STRING_FIELDS = _string_fields()
SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
TEXTS = st.text(st.characters() | SURROGATES, max_size=30) | st.builds(
    lambda a, s, b: a + s + b, st.text(max_size=10), SURROGATES, st.text(max_size=10))


@st.composite
def messages(draw: Any) -> dict[str, Any]:
    """A client message of any type, any of its string fields with any text (lone
    surrogates often), now and then a seat number or a key of any text."""
    kind = draw(st.sampled_from(sorted(STRING_FIELDS)))
    message: dict[str, Any] = {"type": kind}
    for name in STRING_FIELDS[kind]:
        if draw(st.booleans()):
            message[name] = draw(TEXTS)
    if kind == "line":
        message.setdefault("text", draw(TEXTS))
    if kind == "move":
        message.setdefault("move", draw(TEXTS))
        if draw(st.booleans()):
            message["seat"] = draw(st.integers(0, 1))
    if draw(st.integers(0, 9)) == 0:
        message[draw(TEXTS)] = draw(TEXTS)
    return message


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(message=messages())
def test_any_text_in_any_field_gets_a_reply_and_the_connection_stays(
        room: tuple[Any, TestClient, str], message: dict[str, Any]) -> None:
    _, client, room_id = room
    got = reply_to(client, room_id, json.dumps(message))  # the pong came: still connected
    errors = [m for m in got if m["type"] == "error"]
    assert len(errors) <= 1 and all("\n" not in m["text"] for m in errors), got
    if lone_surrogate(message) is not None:
        assert [m.get("key") for m in got] == ["error.bad-text"], got
    elif message["type"] != "line" or clean_text(message["text"], 1000):
        assert got, message  # only a blank chat line is said nothing to
