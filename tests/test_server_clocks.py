"""Clocks and forfeits of the room server (docs/server.md, "Clocks" and "Resign"): the
time left of each seat as a pure function of the control and the turns' times (per
move, Fischer, after a restart), the time control chosen by ``POST /rooms`` and checked,
a seat out of time (a casual room: a bot plays its move; a rated one: it loses, both
ratings changed once), ``/resign`` in casual and rated rooms and at odd times, the
forfeit stored as a turn that a restart, the record and the replay know; the schema
step 5 to 6. The server runs with a wall clock of the test's own."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("openskill")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_server_features import Clock  # noqa: E402
from test_server_lobby import Page, lobby  # noqa: E402
from test_server_protocol import FAST, Player, connect, join  # noqa: E402
from test_server_ratings import hello, make_player, ratings_of  # noqa: E402

from lostcities.engine import read_records, replay  # noqa: E402
from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.clocks import (FISCHER, FISCHER_INCREMENT, FISCHER_MINUTES,  # noqa: E402
                                      MOVE_SECONDS, PER_MOVE, Clocks, TimeControl,
                                      control_of, stored_control)
from lostcities.server.protocol import schema  # noqa: E402
from lostcities.server.store import SCHEMA_VERSION, SQLiteStore  # noqa: E402

#: a clock's timer looks again every 20 ms (the test's clock jumps; real time does not)
TIMED = FAST.__class__(**{**FAST.__dict__, "clock_check_seconds": 0.02})
#: the timer sleeps an hour of real time: a seat out of time is never flagged meanwhile
SLEEPY = FAST.__class__(**{**FAST.__dict__, "clock_check_seconds": 3600.0})
PER_30 = {"kind": "move", "seconds": 30}
FISCHER_1_2 = {"kind": "fischer", "minutes": 1, "increment": 2}


# --------------------------------------------------------------------------- the function

def test_per_move_each_turn_has_the_whole_time_and_only_the_mover_runs() -> None:
    clocks = Clocks.start(TimeControl(PER_MOVE, 30), 2, 100.0)
    assert clocks.remaining(0, 112.5) == [17.5, 30.0]
    assert clocks.due(0) == 130.0
    clocks = clocks.moved(0, 125.0)
    assert clocks.remaining(1, 125.0) == [30.0, 30.0]
    assert clocks.remaining(1, 170.0) == [30.0, -15.0]  # out of time: below 0
    assert clocks.remaining(None, 999.0) == [30.0, 30.0]


def test_fischer_carries_the_time_over_and_adds_the_increment() -> None:
    clocks = Clocks.start(TimeControl(FISCHER, 60, 2), 2, 0.0)
    clocks = clocks.moved(0, 10.0)   # 60 - 10 + 2
    assert clocks.left == (52.0, 60.0)
    clocks = clocks.moved(1, 40.0)   # 60 - 30 + 2
    assert clocks.left == (52.0, 32.0) and clocks.due(0) == 92.0
    # a move a bot played for a seat out of time leaves it 0, plus the increment
    late = clocks.moved(0, 500.0)
    assert late.left == (2.0, 32.0)
    assert clocks.stopped(0, 45.0).left == (47.0, 32.0)
    assert clocks.stopped(None, 45.0).left == clocks.left


@given(st.lists(st.tuples(st.sampled_from([0, 1, 2, None]), st.floats(0, 1000)), max_size=30),
       st.sampled_from([TimeControl(PER_MOVE, 30), TimeControl(FISCHER, 300, 3),
                        TimeControl(FISCHER, 60, 0)]))
def test_a_clock_never_has_less_than_nothing_after_a_turn(events, control) -> None:
    """Whatever the turns' times (a room, live or rebuilt from the store, folds them with
    Clocks.start and Clocks.moved: Room._catch_up, Room.played)."""
    at, timeline = 0.0, []
    for seat, gap in events:
        at += gap
        timeline.append((seat, at))
    clocks = Clocks.start(control, 3, 0.0)
    for seat, when in timeline:
        clocks = Clocks.start(control, 3, when) if seat is None else clocks.moved(seat, when)
        assert min(clocks.left) >= 0


def test_a_control_is_read_strictly_and_the_schema_has_the_same_bounds() -> None:
    assert control_of(None) is None
    assert control_of(PER_30) == TimeControl(PER_MOVE, 30)
    assert control_of(FISCHER_1_2) == TimeControl(FISCHER, 60, 2)
    # JSON's 30.0 is a whole number, as JSON Schema's integer says: the schema and this agree
    assert control_of({"kind": "move", "seconds": 30.0}) == TimeControl(PER_MOVE, 30)
    for control in (TimeControl(PER_MOVE, 30), TimeControl(FISCHER, 600, 5)):
        assert stored_control(control.stored()) == control
        assert control_of(control.to_dict()) == control
    assert stored_control("") is None
    for bad in ({"kind": "move", "seconds": 4}, {"kind": "move", "seconds": 3601},
                {"kind": "move", "seconds": 30.5}, {"kind": "move", "seconds": True},
                {"kind": "move"}, {"kind": "move", "seconds": 30, "increment": 1},
                {"kind": "fischer", "minutes": 0, "increment": 0},
                {"kind": "fischer", "minutes": 5, "increment": 61},
                {"kind": "hourglass"}, [], "5+3", 30):
        with pytest.raises(ValueError):
            control_of(bad)
    with pytest.raises(ValueError):
        stored_control("{nope")
    branches = schema()["$defs"]["time_control"]["oneOf"]
    seconds = branches[0]["properties"]["seconds"]
    minutes, increment = (branches[1]["properties"][k] for k in ("minutes", "increment"))
    assert (seconds["minimum"], seconds["maximum"]) == MOVE_SECONDS
    assert (minutes["minimum"], minutes["maximum"]) == FISCHER_MINUTES
    assert (increment["minimum"], increment["maximum"]) == FISCHER_INCREMENT


# --------------------------------------------------------------------------- the server

def timed_room(client: TestClient, clock: Any = PER_30, **more: Any) -> str:
    reply = client.post("/rooms", json={"pack": "duel-classic", "clock": clock, **more})
    assert reply.status_code == 201, reply.text
    return reply.json()["room"]


def started(a: Any, b: Any) -> tuple[Player, Player]:
    ada, bob = Player(a), Player(b)
    join(ada, "Ada")
    join(bob, "Bob")
    ada.line("/start")
    ada.started(), bob.started()
    ada.ping(), bob.ping()
    return ada, bob


def seated_players(*pairs: tuple[Any, dict[str, Any]]) -> list[Player]:
    """Each socket says its player's key and takes a seat (a rated room's way)."""
    players = []
    for socket, who in pairs:
        player = Player(socket)
        player.receive(), player.receive()
        hello(player, who["key"])
        player.line("/join")
        player.until(lambda m: m["type"] == "seated")
        players.append(player)
    return players


def mover(ada: Player, bob: Player) -> tuple[Player, Player]:
    """(the player to move, the other), by the last state each has."""
    return (ada, bob) if ada.state["legal"] else (bob, ada)


def play(players: tuple[Player, Player], turns: int) -> None:
    """The seat to move plays its first legal move, ``turns`` times, both told."""
    for _ in range(turns):
        first, other = mover(*players)
        number = first.state["room"]["turns"]
        first.send({"type": "move", "move": first.state["legal"][0]})
        first.state_at(number + 1), other.state_at(number + 1)


def test_the_state_says_each_seats_time_and_a_late_move_is_refused(tmp_path: Path) -> None:
    clock = Clock()
    with TestClient(create_app(tmp_path, limits=SLEEPY, clock=clock)) as client:
        room = timed_room(client)
        assert client.get(f"/rooms/{room}").json()["room"]["clock"] == PER_30
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = started(a, b)
            shown = ada.state["clock"]
            first, other = mover(ada, bob)
            assert shown == {"control": PER_30, "left": [30000, 30000],
                             "running": first.state["seat"], "now": int(clock.now * 1000)}
            clock.now += 12.5
            first.ping()
            first.send({"type": "line", "text": "a word"})  # any change: a new state
            first.ping()
            first.line("/help")
            first.send({"type": "hint"})
            first.ping()
            play((ada, bob), 1)
            left = other.state["clock"]["left"]
            assert left == [30000, 30000] and other.state["clock"]["running"] == other.state["seat"]
            clock.now += 30.0  # the other is out of time now; the timer has not looked yet
            other.send({"type": "move", "move": other.state["legal"][0]})
            assert [m.get("key") for m in other.ping()] == ["error.out-of-time"]


def test_a_casual_seat_out_of_time_gets_a_bot_move_and_its_clock_goes_on(
        tmp_path: Path) -> None:
    clock = Clock()
    with TestClient(create_app(tmp_path, limits=TIMED, clock=clock)) as client:
        room = timed_room(client)
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = started(a, b)
            late, other = mover(ada, bob)
            seat = late.state["seat"]
            clock.now += 30.0
            turn = other.until(lambda m: m["type"] == "turn")
            assert turn["seat"] == seat and turn["timeout"] is True
            assert turn["words"].startswith(f"{late.state['room']['seats'][seat]['name']} is "
                                            f"out of time: a bot plays for them.")
            after = other.state_at(1)
            late.state_at(1)
            assert after["room"]["status"] == "playing"
            assert after["clock"]["running"] == other.state["seat"]
            assert after["clock"]["left"] == [30000, 30000]
            # the other plays in time; the late seat has its whole 30 s again
            play((ada, bob), 1)
            assert late.state_at(2)["clock"]["left"] == [30000, 30000]
            clock.now += 29.0
            late.send({"type": "move", "move": late.state["legal"][0]})
            late.state_at(3)
    with TestClient(create_app(tmp_path, limits=SLEEPY, clock=clock)) as client:
        # a restarted server says the timeout turn as it was said
        with connect(client, room) as a:
            spectator = Player(a)
            turns = [spectator.until(lambda m: m["type"] == "turn") for _ in range(3)]
            assert [t.get("timeout", False) for t in turns] == [True, False, False]


def test_fischer_survives_a_restart_to_the_millisecond(tmp_path: Path) -> None:
    clock = Clock()
    with TestClient(create_app(tmp_path, limits=SLEEPY, clock=clock)) as client:
        room = timed_room(client, FISCHER_1_2)
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = started(a, b)
            for gap in (7.25, 11.5, 3.0):
                clock.now += gap
                play((ada, bob), 1)
            before = ada.state["clock"]
    clock.now += 4.0
    with TestClient(create_app(tmp_path, limits=SLEEPY, clock=clock)) as client:
        again = client.get(f"/rooms/{room}")
        with connect(client, room) as a:
            spectator = Player(a)
            state = spectator.until(lambda m: m["type"] == "state")
        left = before["left"]
        running = before["running"]
        expected = [x - (4000 if seat == running else 0) for seat, x in enumerate(left)]
        assert state["clock"]["left"] == expected and state["clock"]["running"] == running
        assert sorted(left) == [60000 - 11500 + 2000, 60000 - 7250 - 3000 + 4000]
    assert again.status_code == 200


def test_a_rated_seat_out_of_time_loses_and_both_ratings_change_once(tmp_path: Path) -> None:
    clock = Clock()
    app = create_app(tmp_path, limits=TIMED, clock=clock)
    with TestClient(app) as client:
        ada_p, bob_p = make_player(client, "Ada"), make_player(client, "Bob")
        room = timed_room(client, rated=True)
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = seated_players((a, ada_p), (b, bob_p))
            ada.line("/start")
            ada.started(), bob.started()
            ada.ping(), bob.ping()
            play((ada, bob), 6)  # three turns each: a match that rates
            late, other = mover(ada, bob)
            seat = late.state["seat"]
            clock.now += 31.0
            match = other.until(lambda m: m["type"] == "match")
            assert match["forfeit"] == {"seat": seat, "reason": "time"}
            assert match["winners"] == [1 - seat] and match["can_continue"] is False
            info = [m for m in other.seen if m["type"] == "info"][-1]
            assert info["key"] == "info.out-of-time"
            final = other.until(lambda m: m["type"] == "state")
            assert final["room"]["status"] == "over" and final["room"]["forfeit"] == \
                match["forfeit"] and final["clock"]["running"] is None
            assert final["clock"]["left"][seat] == 0
            late.send({"type": "move", "move": "p r5 deck"})
            assert [m.get("key") for m in late.ping() if m["type"] == "error"] == \
                ["error.no-match"]
        loser = (ada_p, bob_p)[seat]["player"]
        for who in (ada_p, bob_p):
            page = ratings_of(client, who["player"])
            [rating] = page["ratings"]
            assert rating["matches"] == 1 and page["matches"][0]["note"] == "forfeit"
            assert (rating["mu"] < 25.0) == (who["player"] == loser)
            assert page["matches"][0]["rank"] == (2 if who["player"] == loser else 1)
        record = tmp_path / "records" / match["record"]
        [(_, data)] = list(read_records(record.open(encoding="utf-8"), record.name))
        assert data["forfeit"] == match["forfeit"] and data["rounds"][-1]["end"] == "forfeit"
        replay(data)
        frames = client.get(f"{match['replay']}/frames?lang=en")
        assert frames.status_code == 200, frames.text
    with TestClient(create_app(tmp_path, limits=TIMED, clock=clock)) as client:
        state = client.get(f"/rooms/{room}").json()
        assert state["room"]["status"] == "over" and state["room"]["forfeit"] == match["forfeit"]
        with connect(client, room) as s:  # the clocks stopped as they were at the forfeit
            again = Player(s).until(lambda m: m["type"] == "state")["clock"]
            assert again == {**final["clock"], "now": again["now"]}
        for who in (ada_p, bob_p):  # rated once, whatever the restarts
            assert ratings_of(client, who["player"])["ratings"][0]["matches"] == 1


def test_resign_in_a_casual_room_ends_the_match_with_the_resigning_seat_last(
        tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client:
        room = client.post("/rooms", json={"pack": "duel-classic"}).json()["room"]
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = started(a, b)
            play((ada, bob), 3)
            bob.line("/resign")  # not his turn, or his: either way, at once
            match = ada.until(lambda m: m["type"] == "match")
            assert match["forfeit"] == {"seat": 1, "reason": "resign"}
            assert match["winners"] == [0] and match["names"] == ["Ada"]
            assert ada.until(lambda m: m["type"] == "state")["room"]["status"] == "over"
            assert ada.state["clock"] is None  # a room without a clock
            ada.line("/cont")
            assert [m.get("key") for m in ada.ping()] == ["error.no-continue"]
            bob.line("/resign")
            assert [m.get("key") for m in bob.ping()][-1] == "error.no-match"
        record = tmp_path / "records" / match["record"]
        assert match["record"] == f"room-{room}-1.jsonl"
        [(_, data)] = list(read_records(record.open(encoding="utf-8"), record.name))
        assert len(data["rounds"][-1]["turns"]) == 3
        state = replay(data)
        assert len(state.moves) == 3
        frames = client.get(f"{match['replay']}/frames?lang=fr").json()
        assert frames["winners"] == [0]


def test_resign_in_a_rated_room_is_a_loss_rated_once(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client:
        ada_p, bob_p = make_player(client, "Ada"), make_player(client, "Bob")
        room = client.post("/rooms", json={"pack": "duel-classic", "rated": True}).json()["room"]
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = seated_players((a, ada_p), (b, bob_p))
            ada.line("/start")
            ada.started(), bob.started()
            ada.ping(), bob.ping()
            play((ada, bob), 7)
            ada.line("/resign")
            match = bob.until(lambda m: m["type"] == "match")
            assert match["forfeit"] == {"seat": 0, "reason": "resign"}
            assert match["winners"] == [1]
        ada_r = ratings_of(client, ada_p["player"])["ratings"][0]
        bob_r = ratings_of(client, bob_p["player"])["ratings"][0]
        assert ada_r["matches"] == bob_r["matches"] == 1
        assert ada_r["mu"] < 25.0 < bob_r["mu"]


def test_a_match_resigned_at_once_in_a_rated_room_costs_only_the_resigner(
        tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client:
        ada_p, bob_p = make_player(client, "Ada"), make_player(client, "Bob")
        room = client.post("/rooms", json={"pack": "duel-classic", "rated": True}).json()["room"]
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = seated_players((a, ada_p), (b, bob_p))
            ada.line("/start")
            ada.started()
            bob.line("/resign")
            bob.until(lambda m: m["type"] == "match")
        assert ratings_of(client, ada_p["player"])["ratings"] == []  # fed nothing
        [lost] = ratings_of(client, bob_p["player"])["ratings"]
        assert lost["mu"] < 25.0 and lost["matches"] == 1


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) |
                    st.floats(allow_nan=False, allow_infinity=False) |
                    st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4) |
                    st.dictionaries(st.sampled_from(["kind", "seconds", "minutes",
                                                     "increment", "x"]) | st.text(max_size=5),
                                    inner, max_size=4), max_leaves=12)
       | st.fixed_dictionaries({"kind": st.sampled_from(["move", "fischer"]),
                                "seconds": st.integers(-5, 4000) | st.sampled_from(
                                    [30.0, 30.5, 4.0, 1e300, -0.0])})
       | st.fixed_dictionaries({"kind": st.just("fischer"), "minutes": st.integers(-2, 200),
                                "increment": st.integers(-2, 70)}))
def test_any_clock_field_opens_that_clock_or_gets_one_error_line(tmp_path: Path,
                                                                  clock: Any) -> None:
    with TestClient(create_app(tmp_path, limits=FAST, durable=False)) as client:
        reply = client.post("/rooms", json={"pack": "duel-classic", "clock": clock})
        try:
            expected = control_of(clock)
        except ValueError:
            assert reply.status_code == 400, (clock, reply.text)
            body = reply.json()
            assert body["error"] == "error.bad-message" and "\n" not in body["text"]
            return
        assert reply.status_code == 201, (clock, reply.text)
        room = client.get(f"/rooms/{reply.json()['room']}").json()["room"]
        assert room["clock"] == (None if expected is None else expected.to_dict())


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["spectator", "lobby-seated", "start", "seated", "move",
                                 "over"]), min_size=1, max_size=8))
def test_resign_at_odd_times_is_one_error_and_changes_nothing(tmp_path: Path,
                                                              steps: list[str]) -> None:
    """``/resign`` by a spectator, before the deal, after the match: one error each,
    nothing stored; by a seated player during a match: the match ends, once."""
    with TestClient(create_app(tmp_path, limits=FAST, durable=False)) as client:
        room = timed_room(client)
        hub = client.app.state.hub
        with connect(client, room) as a, connect(client, room) as b, connect(client, room) as c:
            ada, bob, spy = Player(a), Player(b), Player(c)
            join(ada, "Ada")
            join(bob, "Bob")
            spy.receive(), spy.receive()
            for step in steps:
                for player in (ada, bob, spy):  # what the last step told everyone, read
                    player.ping()
                status = hub.rooms[room].status
                turns = hub.rooms[room].turns
                who = {"spectator": spy, "lobby-seated": bob, "seated": bob}.get(step)
                if step == "start":
                    ada.line("/start")
                    ada.ping()
                elif step == "move":
                    if status == "playing":
                        first, _ = mover(ada, bob)
                        first.ping()
                        first.send({"type": "move", "move": first.state["legal"][0]})
                        first.ping()
                elif step == "over":
                    ada.line("/resign")
                    got = [m for m in ada.ping() if m["type"] in ("error", "match")]
                    assert [m["type"] for m in got] == (["match"] if status == "playing"
                                                        else ["error"])
                else:
                    who.line("/resign")
                    got = [m for m in who.ping() if m["type"] in ("error", "match")]
                    if who is spy:
                        assert [m.get("key") for m in got] == ["error.not-seated"]
                    elif status != "playing":
                        assert [m.get("key") for m in got] == ["error.no-match"]
                    else:
                        assert [m["type"] for m in got] == ["match"]
                room_now = hub.rooms[room]
                if room_now.status == "over" and status == "over":
                    assert room_now.turns == turns  # nothing more stored


def test_a_schema_6_database_gets_the_clock_columns_and_keeps_its_rooms(
        tmp_path: Path) -> None:
    clock = Clock()
    with TestClient(create_app(tmp_path, limits=FAST, clock=clock)) as client:
        room = client.post("/rooms", json={"pack": "duel-classic"}).json()["room"]
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = started(a, b)
            play((ada, bob), 2)
    db = sqlite3.connect(tmp_path / "rooms.sqlite3")  # as schema 6 stored it
    for table, column in (("rooms", "clock"), ("rooms", "started"), ("turns", "at"),
                          ("rooms", "version"), ("rooms", "held")):  # (and schema 8's)
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    db.execute("DROP TABLE waiting")
    db.execute("DROP TABLE present")
    db.execute("UPDATE meta SET value='6' WHERE key='schema'")
    db.commit()
    db.close()
    store = SQLiteStore(tmp_path / "rooms.sqlite3")
    try:
        row = store.room(room)
        assert row is not None and row.clock == "" and row.started == 0.0
        assert [t.at for t in store.turns(room)] == [0.0, 0.0]
    finally:
        store.close()
    with TestClient(create_app(tmp_path, limits=FAST, clock=clock)) as client:
        state = client.get(f"/rooms/{room}").json()
        assert state["room"]["turns"] == 2 and state["room"]["clock"] is None
    db = sqlite3.connect(tmp_path / "rooms.sqlite3")
    assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == \
        str(SCHEMA_VERSION)
    db.close()


def test_a_damaged_stored_clock_or_forfeit_leaves_that_room_out(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client:
        timed = timed_room(client)
        plain = client.post("/rooms", json={"pack": "duel-classic"}).json()["room"]
        with connect(client, plain) as a, connect(client, plain) as b:
            ada, bob = started(a, b)
            ada.line("/resign")
            ada.until(lambda m: m["type"] == "match")
    db = sqlite3.connect(tmp_path / "rooms.sqlite3")
    db.execute("UPDATE rooms SET clock='{\"kind\": \"sundial\"}' WHERE id=?", (timed,))
    db.execute("UPDATE turns SET text=? WHERE room=? AND kind='forfeit'",
               (json.dumps({"seat": 7, "reason": "resign"}), plain))
    db.commit()
    db.close()
    with TestClient(create_app(tmp_path, limits=FAST)) as client:
        for room in (timed, plain):
            reply = client.get(f"/rooms/{room}")
            assert reply.status_code == 503 and "\n" not in reply.json()["text"]


def test_the_quick_match_pairs_by_pack_and_clock(tmp_path: Path) -> None:
    fischer = {"kind": "fischer", "minutes": 5, "increment": 3}
    with TestClient(create_app(tmp_path, limits=FAST)) as client, \
            lobby(client) as s1, lobby(client) as s2, lobby(client) as s3:
        ada, bob, cy = Page(s1), Page(s2), Page(s3)
        ada.send({"type": "queue", "pack": "duel-classic", "clock": fischer})
        assert ada.until(lambda m: m["type"] == "queued")["clock"] == fischer
        cy.send({"type": "queue", "pack": "duel-classic"})  # no clock: no pair
        cy.until(lambda m: m["type"] == "queued")
        bob.ping()
        assert bob.waiting == [{"pack": "duel-classic", "players": 1},
                               {"pack": "duel-classic", "clock": fischer, "players": 1}]
        bob.send({"type": "queue", "pack": "duel-classic", "clock": PER_30})  # another clock
        bob.until(lambda m: m["type"] == "queued")
        bob.send({"type": "queue", "pack": "duel-classic", "clock": fischer})
        bob.until(lambda m: m["type"] == "matched")
        ada.until(lambda m: m["type"] == "matched")
        assert ada.matched["room"] == bob.matched["room"]  # type: ignore[index]
        room = client.get(f"/rooms/{bob.matched['room']}").json()["room"]  # type: ignore[index]
        assert room["clock"] == fischer and room["status"] == "playing"
        cy.ping()
        assert cy.waiting == [{"pack": "duel-classic", "players": 1}]
        cy.send({"type": "queue", "pack": "duel-classic", "clock": {"kind": "move",
                                                                   "seconds": 2}})
        assert [m.get("key") for m in cy.ping()] == ["error.bad-message"]
        cy.send({"type": "play_bot", "pack": "duel-classic", "strength": "easy",
                 "clock": PER_30})
        played = cy.until(lambda m: m["type"] == "matched")
        assert client.get(f"/rooms/{played['room']}").json()["room"]["clock"] == PER_30


def test_a_rematch_after_a_resign_starts_whole_clocks_and_keeps_the_forfeit_in_its_record(
        tmp_path: Path) -> None:
    """A timed match ended by a resign, then a rematch: the new match's clocks start whole
    at the rematch and run for its first seat, no forfeit is left on the room, and the
    resigned match's record keeps its forfeit; a restarted server says the same."""
    clock = Clock()
    with TestClient(create_app(tmp_path, limits=SLEEPY, clock=clock)) as client:
        room = timed_room(client, FISCHER_1_2)
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = started(a, b)
            clock.now += 20.0
            play((ada, bob), 3)
            bob.line("/resign")
            match = ada.until(lambda m: m["type"] == "match")
            assert match["forfeit"] == {"seat": 1, "reason": "resign"}
            ada.ping(), bob.ping()
            clock.now += 100.0  # the time between the matches counts for nobody
            ada.line("/rematch")
            ada.ping()
            bob.line("/rematch")
            state = bob.until(lambda m: m["type"] == "state"
                              and m["room"]["status"] == "playing")
            assert state["room"]["match"] == 2 and state["room"]["forfeit"] is None
            assert state["clock"]["left"] == [60000, 60000]
            assert state["clock"]["now"] == int(clock.now * 1000)
            first = state["view"]["to_move"]
            assert state["clock"]["running"] == first
    with TestClient(create_app(tmp_path, limits=SLEEPY, clock=clock)) as client:
        info = client.get(f"/rooms/{room}").json()
        assert info["room"]["match"] == 2 and info["room"]["forfeit"] is None
        with connect(client, room) as a:
            watcher = Player(a)
            shown = watcher.until(lambda m: m["type"] == "state")
            assert shown["clock"]["left"] == [60000, 60000]
            assert shown["clock"]["running"] == first
    record = tmp_path / "records" / match["record"]
    [(_, data)] = list(read_records(record.open(encoding="utf-8"), record.name))
    assert data["forfeit"] == {"seat": 1, "reason": "resign"}
    assert len(replay(data).moves) == 3
