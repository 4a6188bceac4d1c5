"""What the server keeps of a client and of a room (in process, the hub itself): nothing
of a room id that names no room, nothing of a room that expired, and a room in use is
never expired; and the pieces the availability limits are built of, fuzzed (addresses,
hosts, the rooms an address holds, ``lc serve --limit``)."""
from __future__ import annotations

import ipaddress
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from hypothesis import given, settings, strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_server_protocol import FAST, open_room  # noqa: E402

from lostcities.cli.serve import changed_limits  # noqa: E402
from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.clients import (RoomQuota, address_of, host_allowed, host_name,  # noqa: E402
                                       host_names)
from lostcities.server.protocol import LIMITS, Limits  # noqa: E402


def kept_of_rooms(hub: Any) -> dict[str, int]:
    """The size of everything the hub keeps by room id or by client."""
    return {"rooms": len(hub.rooms), "locks": len(hub.locks), "clients": len(hub.clients),
            "bot_tasks": len(hub.bot_tasks), "sockets": len(hub.address_sockets),
            "owners": len(hub.quota.owner), "listed": len(hub.lobby.rooms),
            "listed_order": len(hub.lobby.order), "lobby_pages": len(hub.lobby.watchers),
            "queued": len(hub.waiters), "lobby_sockets": len(hub.lobby_clients),
            "present_elsewhere": len(hub.present_elsewhere)}


def test_room_ids_that_name_no_room_leave_nothing(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST, durable=False)) as client:
        hub = client.app.state.hub
        for n in range(300):
            unknown = f"{n:08d}".translate(str.maketrans("0123456789", "abcdefghij"))
            assert client.get(f"/rooms/{unknown}").status_code == 404
            assert client.get(f"/rooms/{unknown}/pack").status_code == 404
        assert kept_of_rooms(hub) == dict.fromkeys(kept_of_rooms(hub), 0)
        room = open_room(client, "duel-classic")
        with client.websocket_connect(f"/rooms/{room}/ws") as ws:
            ws.receive_json()
            assert kept_of_rooms(hub)["clients"] == 1 and kept_of_rooms(hub)["sockets"] == 1
        deadline = time.monotonic() + 60
        while hub.clients or hub.address_sockets:  # the handler ends after the close
            assert time.monotonic() < deadline
            time.sleep(0.01)  # polling a condition, bounded


def test_a_room_in_use_never_expires_one_left_empty_does(tmp_path: Path) -> None:
    later = [0.0]
    clock = lambda: time.time() + later[0]  # noqa: E731
    with TestClient(create_app(tmp_path, limits=FAST, durable=False, clock=clock)) as client:
        hub = client.app.state.hub
        kept, empty = open_room(client, "duel-classic"), open_room(client, "duel-classic")
        with client.websocket_connect(f"/rooms/{kept}/ws") as ws:
            ws.receive_json()
            later[0] = LIMITS.lobby_expiry_seconds + 1
            assert client.portal.call(hub.sweep) == [empty]
            assert client.get(f"/rooms/{empty}").status_code == 404
            assert client.get(f"/rooms/{kept}").status_code == 200
        deadline = time.monotonic() + 60
        while hub.clients:
            assert time.monotonic() < deadline
            time.sleep(0.01)  # polling a condition, bounded
        assert client.portal.call(hub.sweep) == [kept]
        assert kept_of_rooms(hub) == dict.fromkeys(kept_of_rooms(hub), 0)
        assert hub.store.count_rooms() == 0


# ------------------------------------------------------------------------ fuzz

def is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=60), st.integers(0, 65535))
def test_hosts_fuzz(host: str, port: int) -> None:
    name = host_name(host)
    assert host_allowed(frozenset({"*"}), host)
    assert host_allowed(host_names([host]), host) == bool(name)
    assert host_allowed(frozenset(), host) == (name != "" and is_address(name))
    if name and host.isascii() and ":" not in host and "[" not in host:
        assert host_allowed(host_names([host]), f"{host.strip().upper()}:{port}")
    # a name with something after it is another name
    assert not host_allowed(frozenset({"localhost", "127.0.0.1", "::1"}),
                            f"{host}.evil.example")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.one_of(st.text(max_size=60), st.ip_addresses().map(str)))
def test_addresses_fuzz(host: str) -> None:
    key = address_of({"client": (host, 1234)})
    assert isinstance(key, str) and len(key) <= 100
    assert address_of({"client": None}) == ""


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from("open release prune".split()), st.integers(0, 3),
                          st.integers(0, 9)), max_size=60))
def test_room_quota_fuzz(steps: list[tuple[str, int, int]]) -> None:
    now = [0.0]
    quota = RoomQuota(Limits(address_rooms=3, address_rooms_per_minute=2), clock=lambda: now[0])
    rooms: dict[str, str] = {}
    for step, who, room in steps:
        now[0] += 7.0
        address, room_id = f"10.0.0.{who}", f"room{room}"
        if step == "open" and room_id not in rooms:
            if quota.refusal(address) is None:
                quota.opened(address, room_id)
                rooms[room_id] = address
            else:
                held = sum(a == address for a in rooms.values())
                assert held >= 3 or quota.refusal(address) == "error.rooms-too-fast"
        elif step == "release":
            quota.release(room_id)
            rooms.pop(room_id, None)
        else:
            quota.prune()
        for a in {f"10.0.0.{n}" for n in range(4)}:
            assert quota.held[a] == sum(b == a for b in rooms.values()) <= 3
    assert all(n > 0 for n in quota.held.values())


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.text(max_size=40), max_size=4))
def test_limit_option_fuzz(changes: list[str]) -> None:
    try:
        limits = changed_limits(LIMITS, changes)
    except ValueError as err:
        assert "\n" not in str(err) and len(str(err)) < 800
        return
    assert all(getattr(limits, name) > 0 for name in vars(limits))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["utf8", "http", "write"]),
                          st.floats(min_value=0, max_value=30)), max_size=40))
def test_log_throttle_fuzz(lines: list[tuple[str, float]]) -> None:
    """A kind of log line is written at most once in ``seconds``; each one written says
    how many of its kind were left out since the one before; none is lost uncounted."""
    from lostcities.server.guard import Throttle

    now = [0.0]
    throttle = Throttle(10.0, clock=lambda: now[0])
    written: dict[str, list[float]] = {}
    left_out: dict[str, int] = {}
    for kind, wait in lines:
        now[0] += wait
        said = throttle.allow(kind)
        last = written.get(kind)
        if last and now[0] - last[-1] < 10.0:
            assert said is None
            left_out[kind] = left_out.get(kind, 0) + 1
        else:
            assert said == left_out.pop(kind, 0)
            written.setdefault(kind, []).append(now[0])
