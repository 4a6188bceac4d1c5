"""Fuzzing the lobby's WebSocket (WS /lobby/ws): random JSON values, random strings,
messages built from the lobby schema's field names with values of any type, oversize
texts. After each: a message off the protocol gets exactly one ``error`` line and nothing
else; one on it gets its answer (a snapshot, ``queued``, ``matched``: an unknown pack one
error); the socket still answers ``ping``; every message the server sent is on the
protocol; no unlisted room ever shows."""
from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("starlette")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_server_lobby import Page, new_room  # noqa: E402
from test_server_protocol import FAST  # noqa: E402

from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.protocol import problem, schema  # noqa: E402

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

#: the lobby's client fields (lobby_client's branches in protocol.schema.json)
FIELDS = sorted({name for ref in schema()["$defs"]["lobby_client"]["oneOf"]
                 for name in schema()["$defs"][ref["$ref"].rsplit("/", 1)[1]]["properties"]})
TYPES = ["watch", "queue", "leave_queue", "play_bot", "ping", "hello", "move", "line", "",
         "WATCH"]
PACKS = ["duel-classic", "board-classic", "nope", "", "duel-classic\u202e", "x" * 81]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
shaped = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES) | json_values},
    optional={"pack": st.sampled_from(PACKS) | st.none() | json_values,
              "strength": st.sampled_from(["easy", "beginner", "god", ""]) | json_values,
              "lang": st.sampled_from(["en", "fr", "de"]) | json_values,
              **{name: json_values for name in FIELDS if name not in
                 ("type", "pack", "strength", "lang")},
              "extra": json_values})
texts = st.one_of(shaped.map(json.dumps), json_values.map(json.dumps),
                  st.text(max_size=200), st.just("x" * 5000), st.just("{\"type\": \"watch\""))

ANSWERS = {"watch": {"lobby"}, "queue": {"queued", "matched", "waiting"},
           "leave_queue": {"waiting"}, "play_bot": {"matched", "waiting", "added", "changed",
                                                    "removed", "more"}}


@pytest.fixture(scope="module")
def lobby_app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    app = create_app(tmp_path_factory.mktemp("lobby-fuzz"), limits=FAST, durable=False)
    with TestClient(app) as client, client.websocket_connect("/lobby/ws") as socket:
        hidden = new_room(client, unlisted=True)
        yield client, Page(socket), hidden


@SETTINGS
@given(text=texts)
def test_any_lobby_message_gets_its_answer_or_one_error(lobby_app: Any, text: str) -> None:
    client, page, hidden = lobby_app
    try:
        message = json.loads(text)
    except ValueError:
        message = None
    valid = message is not None and problem(message, "lobby_client") is None
    seen = len(page.raw)
    page.socket.send_text(text)
    got = page.ping()  # the socket answers, and every message was on the protocol
    errors = [m for m in got if m["type"] == "error"]
    if not valid:
        assert len(got) == 1 and len(errors) == 1, (text[:200], got)
        assert "\n" not in errors[0]["text"]
    elif errors:  # on the protocol, but a pack this server does not have
        assert [e["key"] for e in errors] == ["error.no-pack"] and len(got) == 1, got
    else:
        kinds = {m["type"] for m in got} - {"added", "changed", "removed", "more", "waiting"}
        assert kinds <= ANSWERS.get(message["type"], set()), (message, got)
    assert all(hidden not in raw for raw in page.raw[seen:])
    if page.matched is not None:  # leave no one waiting for the next example
        page.matched = None
    page.send({"type": "leave_queue"})
    page.ping()
