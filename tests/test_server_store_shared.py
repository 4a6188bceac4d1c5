"""Several processes on one store (docs/server.md, "Several processes on one database"):
each write of a room's state checks and bumps the room's version, so a copy that is behind
writes nothing (StaleRoom); on PostgreSQL every such write is announced to every listening
store when it commits, never when it is rolled back. Two PostgresStore objects on one
database are two processes' stores (each its own connections)."""
from __future__ import annotations

import queue
import threading
from typing import Any

import pytest

from lostcities.server.store import (HUMAN, LOBBY, MOVE, PLAYING, SeatRow, StaleRoom,
                                     StoreError)
from tests.server_support import BOUND


def seat(number: int, name: str) -> SeatRow:
    return SeatRow(number, name, HUMAN, "", f"hash-{name}", False, 1.0)


def test_every_write_of_a_room_bumps_its_version_and_a_stale_one_writes_nothing(
        open_store) -> None:
    store = open_store()
    store.create_room("abcdefgh", "builtin:duel-classic", 7)
    assert store.room("abcdefgh").version == 0
    store.put_seat("abcdefgh", seat(0, "Ada"), version=0)
    store.put_seat("abcdefgh", seat(1, "Bob"), version=1)
    with pytest.raises(StaleRoom):  # a copy that read version 1: Bob's seat came since
        store.put_seat("abcdefgh", seat(1, "Cyd"), version=1)
    assert [s.name for s in store.seats("abcdefgh")] == ["Ada", "Bob"]
    with pytest.raises(StaleRoom):
        store.start("abcdefgh", ["Ada", "Bob"], 5.0, version=0)
    assert store.room("abcdefgh").status == LOBBY
    store.start("abcdefgh", ["Ada", "Bob"], 5.0, version=2)
    for number in range(3):  # a plain move, one statement on PostgreSQL
        store.add_turn("abcdefgh", number, MOVE, "p r5 deck", at=6.0 + number,
                       version=3 + number)
    with pytest.raises(StaleRoom):
        store.add_turn("abcdefgh", 3, MOVE, "p r5 deck", at=9.0, version=5)
    with pytest.raises(StaleRoom):  # and one that changes the status
        store.add_turn("abcdefgh", 3, MOVE, "p r5 deck", status=PLAYING, at=9.0, version=5)
    assert len(store.turns("abcdefgh")) == 3 and store.room("abcdefgh").version == 6
    assert [t.number for t in store.turns("abcdefgh", 1)] == [1, 2]
    with pytest.raises(StaleRoom):
        store.remove_seat("abcdefgh", 1, version=0)
    with pytest.raises(StaleRoom):
        store.rematch("abcdefgh", 3, '{"seed": 1, "labels": ["Bob", "Ada"]}',
                      [seat(0, "Bob"), seat(1, "Ada")], 10.0, version=0)
    assert store.room("abcdefgh").version == 6  # (nothing refused wrote)
    # a room under way whose last turn is older than the bound is stalled (taken up by
    # any process), one moved since is not
    assert store.stalled_rooms(100.0) == ["abcdefgh"]
    assert store.stalled_rooms(7.5) == []  # (its last turn at 8.0)


def test_a_room_held_by_a_process_is_not_expired_by_another(open_store) -> None:
    store = open_store()
    store.create_room("abcdefgh", "builtin:duel-classic", 7)
    created = dict((i, last) for i, _, last in store.last_visits())["abcdefgh"]
    store.hold(["abcdefgh"], created + 1000.0)
    assert dict((i, last) for i, _, last in store.last_visits())["abcdefgh"] == \
        created + 1000.0


def test_two_stores_on_one_database_see_each_others_writes_and_hear_them(
        pg_cluster) -> None:
    from lostcities.server.store_pg import PostgresStore

    url = pg_cluster.database()
    ann, bob = PostgresStore(url), PostgresStore(url)
    heard: "queue.Queue[dict[str, Any]]" = queue.Queue()
    states: list[str] = []
    listening = threading.Event()
    try:
        bob.listen(heard.put, lambda: states.append("lost"),
                   lambda: states.append("back"))
        # the listener is up once an announcement comes (Ann's: Bob's own are known to
        # Bob's process already, and not passed over)
        for _ in range(int(BOUND * 10)):
            ann.announce({"probe": True})
            try:
                if heard.get(timeout=0.1) == {"probe": True}:
                    listening.set()
                    break
            except queue.Empty:
                continue
        assert listening.is_set()
        ann.create_room("abcdefgh", "builtin:duel-classic", 7, listed=True)
        assert heard.get(timeout=BOUND) == {"room": "abcdefgh", "version": 0, "listed": 1}
        ann.put_seat("abcdefgh", seat(0, "Ada"), version=0)
        assert heard.get(timeout=BOUND) == {"room": "abcdefgh", "version": 1, "listed": 1}
        with pytest.raises(StaleRoom):  # Bob's process read version 0: refused, unheard
            bob.put_seat("abcdefgh", seat(0, "Bob"), version=0)
        ann.start("abcdefgh", ["Ada"], 1.0, version=1)
        ann.add_turn("abcdefgh", 0, MOVE, "p r5 deck", at=2.0, version=2)
        said = [heard.get(timeout=BOUND) for _ in range(2)]
        assert [m["version"] for m in said] == [2, 3]  # in the order of the commits
        # a plain move says so (a process one turn behind reads only the turns)
        assert "move" not in said[0] and said[1]["move"] is True
        bob.put_seat("abcdefgh", seat(1, "Bob"), version=3)  # Bob's own: not passed over
        ann.announce({"probe": 2})
        assert heard.get(timeout=BOUND) == {"probe": 2}
        ann.announce({"room": "abcdefgh", "said": [{"type": "chat", "text": "hi"}]})
        assert heard.get(timeout=BOUND)["said"] == [{"type": "chat", "text": "hi"}]
        with pytest.raises(StoreError):  # too long for a NOTIFY: refused, in one line
            ann.announce({"text": "x" * 8000})
        ann.delete_rooms(["abcdefgh"])
        assert heard.get(timeout=BOUND) == {"room": "abcdefgh", "gone": True}
        assert heard.empty() and states == []
    finally:
        ann.close()
        bob.close()


def test_the_quick_match_queue_pairs_the_longest_waiting_of_the_same_pack_and_clock(
        open_store) -> None:
    store = open_store()
    if open_store.kind == "postgresql":  # (a waiter is its listening process's)
        listening(store)
    assert store.queue_join("ann", "duel-classic", "", 1.0) is None
    assert store.queue_join("bob", "board-classic", "", 2.0) is None
    assert store.queue_join("cyd", "duel-classic", '{"kind":"move","seconds":30}', 3.0) is None
    assert store.queue_join("dan", "duel-classic", "", 4.0) == "ann"  # the one waiting
    assert store.queue_summary() == [("board-classic", "", 1),
                                     ("duel-classic", '{"kind":"move","seconds":30}', 1)]
    assert store.queue_join("eve", "board-classic", "", 5.0) == "bob"
    assert store.queue_join("cyd", "duel-classic", "", 6.0) is None  # changed its mind
    assert store.queue_summary() == [("duel-classic", "", 1)]
    assert store.queue_leave("cyd") and not store.queue_leave("cyd")
    assert store.queue_summary() == []


def listening(store) -> None:
    """``store`` listening, its process named (its listening session up)."""
    from tests.server_support import wait_for

    store.listen(lambda message: None, lambda: None, lambda: None)
    wait_for(lambda: store.process, "the listening session")


def test_a_process_gone_leaves_neither_a_waiter_nor_a_seat_present(
        pg_cluster) -> None:
    from lostcities.server.store_pg import PostgresStore
    from tests.server_support import wait_for

    url = pg_cluster.database()
    ann, bob = PostgresStore(url), PostgresStore(url)
    try:
        listening(ann)
        listening(bob)
        ann.create_room("abcdefgh", "builtin:duel-classic", 7)
        ann.set_present("abcdefgh", [0])
        bob.set_present("abcdefgh", [1])
        assert bob.present_elsewhere(["abcdefgh", "nosuchrm"]) == {"abcdefgh": {0}}
        assert ann.present_elsewhere(["abcdefgh"]) == {"abcdefgh": {1}}
        assert ann.queue_join("w-ann", "duel-classic", "", 1.0) is None
        ann.close()  # its sessions end (as a process killed: the server sees them go)
        wait_for(lambda: not bob.present_elsewhere(["abcdefgh"]), "Ann's presence gone")
        assert bob.queue_join("w-bob", "duel-classic", "", 2.0) is None  # not Ann's waiter
        bob.tidy()
        assert bob.queue_summary() == [("duel-classic", "", 1)]
        assert pg_cluster.execute(url, "SELECT COUNT(*) FROM present") == [(1,)]
    finally:
        ann.close()
        bob.close()
