"""Fuzzing what a server hears from the other processes sharing its database (PostgreSQL's
NOTIFY payloads are data any client of the database can send): ``Hub.heard`` with any
JSON object, made of the announcements' own fields (``room``, ``version``, ``listed``,
``gone``, ``said``, ``present``, ``queue``, ``matched``, ``move``) with values of any
type, the room's real id among them. After each: no exception, every task it started
finished without one, the room under way unchanged in the store and in memory, and both
players' connections still answer ``ping``."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
import test_server_fuzz as fuzz  # noqa: E402
from test_server_fuzz import Table  # noqa: E402

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

SCALARS = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
           | st.floats(allow_nan=False) | st.text(max_size=30))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
FIELDS = ("room", "version", "listed", "gone", "said", "present", "queue", "matched", "move")
#: the events a process announces, with values of any type in their fields
EVENTS = st.fixed_dictionaries({"type": st.sampled_from(["info", "chat", "turn", "state"])},
                               optional={"name": VALUES, "text": VALUES, "number": VALUES,
                                         "key": VALUES, "params": VALUES})


#: test_server_fuzz's room under way (a module's own: its fixture, taken here)
table = fuzz.table


def heard_ids(room: str) -> Any:
    return st.sampled_from([room, "abcdefgh", "", "ROOM", "a" * 500]) | VALUES


@SETTINGS
@given(st.data())
def test_anything_heard_from_the_database_leaves_the_rooms_as_they_are(table: Table,
                                                                       data: Any) -> None:
    table.ready()
    hub = table.app.state.hub
    message = data.draw(st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6),
                                        VALUES, max_size=6))
    message["room"] = data.draw(st.just(table.room) | heard_ids(table.room))
    said = data.draw(st.lists(EVENTS | VALUES, max_size=3))
    #: a chat line another process said, as it says it: passed on beside the rest
    line = {"type": "chat", "name": "Cy", "text": f"from afar {len(said)}", "number": 10**6}
    message["said"] = [*said, line]
    for player in table.players:
        player.ping()
    before = table.facts()

    async def hear() -> None:
        hub.heard(message)
        while hub.background:  # every task it started, to its end (and none failed)
            done, _ = await asyncio.wait(list(hub.background), timeout=60)
            for task in done:
                assert task.exception() is None, task.exception()

    table.client.portal.call(hear)
    assert table.facts() == before
    for player in table.players:
        got = player.ping()
        assert all(m["type"] in ("info", "chat", "state") for m in got), got
        if message["room"] == table.room and message.get("gone") is not True:
            assert line in got, got
