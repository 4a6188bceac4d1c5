"""Rematch and abandon in the room server (docs/server.md, "Rematch" and "Rooms expire"):
``/rematch`` once a match is over deals a new match in the same room to the same players,
the seats rotated, with a fresh seed, its own record, replay and rating; a player who
leaves lets the offer lapse; a room whose humans have all gone closes after
``Limits.abandoned_seconds``; a casual seat away too long while another human waits gets
a bot. Over real sockets (Starlette's TestClient) and, for the fuzz, the room and its
SQLite store themselves."""
from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from server_support import TINY_PACK  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_server_protocol import FAST, Player, connect, join  # noqa: E402
from test_server_ratings import make_player, play_out, seated, tiny_packs  # noqa: E402

from lostcities.engine import legal_moves, load_pack  # noqa: E402
from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.room import Room, record_name  # noqa: E402
from lostcities.server.store import SCHEMA_VERSION, SQLiteStore, token_hash  # noqa: E402

#: the rooms' limits in these tests: FAST, and the abandon limits short and distinct
LIMITS = replace(FAST, abandoned_seconds=600.0, seat_bot_seconds=120.0)


def packs(tmp_path: Path) -> Path:
    folder = tmp_path / "packs"
    folder.mkdir(exist_ok=True)
    (folder / "tiny.yaml").write_text(TINY_PACK, encoding="utf-8")
    return folder


def tiny_room(client: TestClient, pack: str = "tiny", **more: Any) -> str:
    reply = client.post("/rooms", json={"pack": pack, **more})
    assert reply.status_code == 201, reply.text
    return reply.json()["room"]


def infos(player: Player, key: str) -> list[dict[str, Any]]:
    return [m for m in player.seen if m["type"] == "info" and m["key"] == key]


def errors(player: Player) -> list[str]:
    return [m["key"] for m in player.seen if m["type"] == "error"]


def fresh(player: Player) -> Player:
    """Forget what ``player`` has seen (the next checks look at what comes after)."""
    player.seen.clear()
    return player


def two_humans(client: TestClient, room: str, a: Any, b: Any) -> tuple[Player, Player]:
    ada, bob = Player(a), Player(b)
    join(ada, "Ada")
    join(bob, "Bob")
    ada.line("/start")
    ada.started(), bob.started()
    return ada, bob


def test_a_rematch_deals_a_new_match_to_the_same_players_the_seats_rotated(
        tmp_path: Path) -> None:
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False)
    with TestClient(app) as client:
        room = tiny_room(client)
        hub = app.state.hub
        with connect(client, room) as a, connect(client, room) as b, \
                connect(client, room) as c:
            ada, bob = two_humans(client, room, a, b)
            watcher = Player(c)
            first = play_out([ada, bob])
            seed, turns = hub.rooms[room].seed, hub.rooms[room].turns
            fresh(ada).line("/rematch")
            ada.ping(), bob.ping()
            [asked] = infos(ada, "info.rematch-asked")
            assert asked["text"] == "Ada asks for a rematch (1 of 2)"
            assert bob.state["room"]["rematch"] == [0] and bob.state["room"]["status"] == "over"
            ada.line("/rematch")  # twice: still one of two
            ada.ping()
            assert hub.rooms[room].status == "over" and ada.state["room"]["rematch"] == [0]
            fresh(bob).line("/rematch")
            bob.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
            ada.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
            [started] = infos(bob, "info.rematch")
            assert started["text"] == ("a rematch starts, the seats moved on one: Bob, Ada; "
                                       "Bob plays first")
            info = bob.state["room"]
            assert [s["name"] for s in info["seats"]] == ["Bob", "Ada"]
            assert (ada.state["seat"], bob.state["seat"]) == (1, 0)  # their tokens moved
            assert info["match"] == 2 and info["rematch"] == [] and info["turns"] == turns + 1
            assert bob.state["view"]["to_move"] == 0 and bob.state["legal"]  # Bob starts
            assert bob.state["view"]["round_scores"] == [] and bob.state["view"]["totals"] == [0, 0]
            assert hub.rooms[room].seed != seed
            watcher.ping()
            assert watcher.state["room"]["match"] == 2 and watcher.state["view"]["hand"] is None
            second = play_out([bob, ada])
        assert first["replay"] != second["replay"]
        assert first["record"] == record_name(room, 1) == f"room-{room}-1.jsonl"
        assert second["record"] == f"room-{room}-m2-1.jsonl"
        for said in (first, second):
            assert (tmp_path / "records" / said["record"]).is_file()
            assert client.get(said["replay"]).status_code == 200
            frames = client.get(said["replay"] + "/frames").json()
            assert frames["totals"] == said["totals"]
        assert client.get(second["replay"] + "/frames").json()["players"] == ["Bob", "Ada"]
        assert client.get(f"/rooms/{room}").json()["room"]["replay"] == second["replay"]


def test_a_restarted_server_rebuilds_the_rematch_and_writes_a_missing_record(
        tmp_path: Path) -> None:
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False)
    with TestClient(app) as client:
        room = tiny_room(client)
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = two_humans(client, room, a, b)
            first = play_out([ada, bob])
            ada.line("/rematch"), bob.line("/rematch")
            bob.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
            mover = bob if bob.state["legal"] else ada
            mover.send({"type": "move", "move": mover.state["legal"][0]})
            ada.ping(), bob.ping()
            mover.ping()
        before = app.state.hub.rooms[room]
        tokens = (ada.token, bob.token)
    (tmp_path / "records" / first["record"]).unlink()  # killed before it was written
    again = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False)
    with TestClient(again) as client:
        with connect(client, room) as a:
            ada = Player(a)
            ada.send({"type": "hello", "token": tokens[0]})
            ada.ping()
            assert ada.state["seat"] == 1 and ada.state["room"]["match"] == 2
        rebuilt = again.state.hub.rooms[room]
        assert (rebuilt.seed, rebuilt.turns, rebuilt.match_number) == \
            (before.seed, before.turns, 2)
        assert rebuilt.state.hands == before.state.hands and \
            rebuilt.state.deck == before.state.deck
        assert [s.name for s in rebuilt.seats] == ["Bob", "Ada"]
        assert (tmp_path / "records" / first["record"]).is_file()
        assert client.get(first["replay"] + "/frames").status_code == 200
        # the turns said again to a newcomer are the new match's, named by its seats
        with connect(client, room) as c:
            watcher = Player(c)
            watcher.ping()
            said = [m for m in watcher.seen if m["type"] == "turn"]
            assert len(said) == 1 and said[0]["name"] == "Bob"


def test_a_bot_agrees_at_once_and_plays_first_when_its_seat_comes_first(
        tmp_path: Path) -> None:
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False)
    with TestClient(app) as client:
        room = tiny_room(client)
        with connect(client, room) as a:
            ada = Player(a)
            join(ada, "Ada")
            ada.line("/bot greedy")
            ada.line("/start")
            ada.started()
            play_out([ada])
            ada.line("/rematch")  # the only human: at once
            ada.until(lambda m: m["type"] == "info" and m["key"] == "info.rematch")
            # the bot, now seat 0, plays the new match's first turn by itself
            turn = ada.until(lambda m: m["type"] == "turn")
            assert turn["seat"] == 0
            state = ada.until(lambda m: m["type"] == "state" and m["room"]["match"] == 2)
            assert [s["kind"] for s in state["room"]["seats"]] == ["bot", "human"]
            assert state["seat"] == 1


def test_rematch_is_refused_at_odd_times_in_one_line(tmp_path: Path) -> None:
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False)
    with TestClient(app) as client:
        room = tiny_room(client)
        with connect(client, room) as a, connect(client, room) as b, \
                connect(client, room) as c:
            ada, bob = Player(a), Player(b)
            join(ada, "Ada")
            ada.line("/rematch")  # in the lobby
            assert ada.ping()[-1]["key"] == "error.not-over"
            join(bob, "Bob")
            ada.line("/start")
            ada.started(), bob.started()
            spectator = Player(c)
            spectator.line("/rematch")
            [said] = [m for m in spectator.ping() if m["type"] == "error"]
            assert said["key"] == "error.not-seated"
            fresh(ada).line("/rematch")  # the match under way
            [said] = [m for m in ada.ping() if m["type"] == "error"]
            assert said == {"type": "error", "key": "error.not-over",
                            "text": "the match is not over"}
            assert ada.state["room"]["rematch"] == [] and ada.state["room"]["match"] == 1


def test_a_player_who_leaves_lets_the_offer_lapse_and_is_never_dragged_in(
        tmp_path: Path) -> None:
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False)
    with TestClient(app) as client:
        room = tiny_room(client)
        with connect(client, room) as a, connect(client, room) as b, \
                connect(client, room) as c:
            ada, bob = two_humans(client, room, a, b)
            play_out([ada, bob])
            ada.line("/rematch")
            ada.ping()
            fresh(ada)
            bob.line("/leave")
            bob.ping(), ada.ping()
            [lapsed] = infos(ada, "info.rematch-lapsed")
            assert lapsed["text"] == "Bob left: the rematch asked for lapses"
            assert ada.state["room"]["rematch"] == []
            ada.line("/rematch")
            [said] = [m for m in ada.ping() if m["type"] == "error"]
            assert said["key"] == "error.rematch-seat-left" and "Bob left seat 2" in said["text"]
            assert app.state.hub.rooms[room].status == "over"
            # someone takes the seat: a rematch with them
            cy = Player(c)
            join(cy, "Cy")
            ada.line("/rematch"), cy.line("/rematch")
            state = cy.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
            assert [s["name"] for s in state["room"]["seats"]] == ["Cy", "Ada"]
        with connect(client, room) as a:  # French words
            fr = Player(a)
            fr.send({"type": "hello", "lang": "fr", "token": ada.token})
            fr.line("/rematch")
            assert fr.ping()[-1]["text"] == "la partie n'est pas finie"


def test_cont_and_rematch_are_two_asks_and_whichever_all_ask_first_clears_both(
        tmp_path: Path) -> None:
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False)
    with TestClient(app) as client:
        room = tiny_room(client)
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = two_humans(client, room, a, b)
            play_out([ada, bob])
            ada.line("/rematch")
            bob.line("/cont")  # one of each: nothing is dealt
            bob.ping(), ada.ping()  # (bob's pong first: his /cont is out to ada before hers)
            info = ada.state["room"]
            assert info["status"] == "over" and info["rematch"] == [0] and info["cont"] == [1]
            ada.line("/cont")  # every human asked CONT: the same match plays on
            state = ada.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
            assert state["room"]["match"] == 1 and state["view"]["round"] == 2
            assert state["room"]["rematch"] == [] and state["room"]["cont"] == []
            assert [s["name"] for s in state["room"]["seats"]] == ["Ada", "Bob"]
            fresh(ada), fresh(bob)
            play_out([ada, bob])
            bob.line("/cont"), ada.line("/rematch"), bob.line("/rematch")
            state = bob.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
            assert state["room"]["match"] == 2 and state["room"]["cont"] == []
            assert state["view"]["round"] == 1 and state["view"]["totals"] == [0, 0]
        # the continued match's record and the rematch's each have their own name
        assert sorted(p.name for p in (tmp_path / "records").iterdir()) == \
            [f"room-{room}-1.jsonl", f"room-{room}-2.jsonl"]


def test_a_bot_taking_a_seat_over_lets_the_offer_lapse_in_french_too(tmp_path: Path) -> None:
    later = [0.0]
    clock = lambda: time.time() + later[0]  # noqa: E731
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False, clock=clock)
    with TestClient(app) as client:
        room = tiny_room(client)
        with connect(client, room) as a:
            with connect(client, room) as b:
                ada, bob = two_humans(client, room, a, b)
                play_out([ada, bob])
            ada.send({"type": "hello", "lang": "fr"})
            ada.line("/rematch")
            ada.ping()
            [asked] = infos(ada, "info.rematch-asked")
            assert asked["text"] == "Ada demande une revanche (1 sur 2)"
            later[0] = LIMITS.takeover_seconds + 5
            fresh(ada).line("/bot")
            ada.ping()
            [lapsed] = infos(ada, "info.rematch-lapsed")
            assert lapsed["text"] == "Bob est parti : la revanche demandée n'aura pas lieu"
            assert ada.state["room"]["rematch"] == []
            ada.line("/rematch")  # the bot agrees at once: Ada and the bot, rotated
            state = ada.until(lambda m: m["type"] == "state" and m["room"]["match"] == 2)
            assert [(s["name"], s["kind"]) for s in state["room"]["seats"]] == \
                [("Bob", "bot"), ("Ada", "human")]
            [started] = infos(ada, "info.rematch")
            assert started["text"].startswith("la revanche commence, chacun décalé d'une place")


def test_a_rated_rematch_is_rated_once_under_its_own_id(tmp_path: Path) -> None:
    pytest.importorskip("openskill")
    # (a match of the ratings' tiny duel is long enough to be rated: three turns a seat)
    app = create_app(tmp_path, tiny_packs(tmp_path), limits=LIMITS, durable=False)
    with TestClient(app) as client:
        ada, bob = make_player(client, "Ada"), make_player(client, "Bob")
        room = tiny_room(client, pack="tiny-duel", rated=True)
        with connect(client, room) as a, connect(client, room) as b:
            pa, pb = Player(a), Player(b)
            seated(pa, ada["key"])
            seated(pb, bob["key"])
            pa.line("/start")
            pa.started(), pb.started()
            play_out([pa, pb])
            pa.line("/rematch"), pb.line("/rematch")
            state = pb.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
            assert [s["player"] for s in state["room"]["seats"]] == [bob["player"],
                                                                      ada["player"]]
            play_out([fresh(pb), fresh(pa)])
    again = create_app(tmp_path, tiny_packs(tmp_path), limits=LIMITS, durable=False)
    with TestClient(again) as client:  # a restart rates nothing again
        client.get(f"/rooms/{room}")
        for who in (ada, bob):
            page = client.get(f"/players/{who['player']}.json").json()
            assert [r["matches"] for r in page["ratings"]] == [2]
            ids = [m["match"] for m in page["matches"]]
            assert sorted(ids) == [f"room-{room}-1", f"room-{room}-m2-1"]


# --------------------------------------------------------------------------- abandon

def test_a_room_whose_humans_all_left_closes_and_its_replays_stay(tmp_path: Path) -> None:
    later = [0.0]
    clock = lambda: time.time() + later[0]  # noqa: E731
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False, clock=clock)
    with TestClient(app) as client, client.websocket_connect("/lobby/ws") as lobby:
        hub = app.state.hub
        room, kept = tiny_room(client), tiny_room(client)
        with connect(client, room) as a, connect(client, kept) as k:
            ada = Player(a)
            join(ada, "Ada")
            ada.line("/bot greedy")
            ada.line("/start")
            ada.started()
            match = play_out([ada])
            ada.line("/rematch")
            ada.until(lambda m: m["type"] == "info" and m["key"] == "info.rematch")
            ada.line("/leave")  # only the bot is left
            ada.ping()
            stays = Player(k)  # a human seated, away: the room waits for them
            join(stays, "Bob")
        assert hub.rooms[room].status == "playing"
        assert room in hub.lobby.rooms
        later[0] = LIMITS.abandoned_seconds - 30
        assert client.portal.call(hub.sweep) == []
        later[0] = LIMITS.abandoned_seconds + 5
        assert client.portal.call(hub.sweep) == [room]
        assert room not in hub.lobby.rooms and kept in hub.lobby.rooms
        said = []
        while True:  # the lobby page was told at once
            message = json.loads(lobby.receive_text())
            said.append(message)
            if message["type"] == "removed" and message["room"] == room:
                break
        assert client.get(f"/rooms/{room}").status_code == 404
        assert client.get(match["replay"]).status_code == 200
        assert client.get(match["replay"] + "/frames").json()["totals"] == match["totals"]
        assert client.get(f"/rooms/{kept}").status_code == 200
        # nobody at all: every human left a started room, no bot
        empty = tiny_room(client)
        with connect(client, empty) as a, connect(client, empty) as b:
            ada, bob = two_humans(client, empty, a, b)
            ada.line("/leave"), bob.line("/leave")
            ada.ping(), bob.ping()
        assert client.portal.call(hub.sweep) == []
        later[0] += LIMITS.abandoned_seconds + 5
        assert empty in client.portal.call(hub.sweep)


def test_a_casual_seat_away_too_long_gets_a_bot_when_another_human_waits(
        tmp_path: Path) -> None:
    later = [0.0]
    clock = lambda: time.time() + later[0]  # noqa: E731
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False, clock=clock)
    with TestClient(app) as client:
        hub = app.state.hub
        room = tiny_room(client)
        with connect(client, room) as a:
            with connect(client, room) as b:
                ada, bob = two_humans(client, room, a, b)
            ada.until(lambda m: m["type"] == "state" and not m["room"]["seats"][1]["present"])
            later[0] = LIMITS.seat_bot_seconds - 10
            client.portal.call(hub.sweep)
            ada.ping()
            assert ada.state["room"]["seats"][1]["kind"] == "human"
            later[0] = LIMITS.seat_bot_seconds + 5
            fresh(ada)
            client.portal.call(hub.sweep)
            said = ada.until(lambda m: m["type"] == "info" and m["key"] == "info.seat-bot")
            assert said["text"] == ("Bob has been away from seat 2 for more than 2 min: "
                                    "the bot greedy plays it now")
            ada.ping()
            assert ada.state["room"]["seats"][1]["kind"] == "bot"
            assert ada.state["room"]["seats"][1]["name"] == "Bob"
            play_out([ada])  # the bot plays Bob's turns: the match ends
        # a seat given up with /leave gets a bot the same way
        left = tiny_room(client)
        with connect(client, left) as a, connect(client, left) as b:
            ada, bob = two_humans(client, left, a, b)
            bob.line("/leave")
            ada.until(lambda m: m["type"] == "state" and m["room"]["seats"][1]["kind"] == "left")
            later[0] += LIMITS.seat_bot_seconds + 5
            client.portal.call(hub.sweep)
            ada.until(lambda m: m["type"] == "info" and m["key"] == "info.seat-bot")
            assert [s.kind for s in hub.rooms[left].seats] == ["human", "bot"]
        # nobody waits: an away seat stays its player's
        alone = tiny_room(client)
        with connect(client, alone) as a, connect(client, alone) as b:
            ada, bob = two_humans(client, alone, a, b)
        later[0] += LIMITS.seat_bot_seconds * 3
        client.portal.call(hub.sweep)
        assert [s.kind for s in hub.rooms[alone].seats] == ["human", "human"]


def test_a_rated_seat_away_is_never_given_to_a_bot_by_the_server(tmp_path: Path) -> None:
    pytest.importorskip("openskill")
    later = [0.0]
    clock = lambda: time.time() + later[0]  # noqa: E731
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False, clock=clock)
    with TestClient(app) as client:
        ada, bob = make_player(client, "Ada"), make_player(client, "Bob")
        room = tiny_room(client, rated=True)
        with connect(client, room) as a:
            pa = Player(a)
            seated(pa, ada["key"])
            with connect(client, room) as b:
                pb = Player(b)
                seated(pb, bob["key"])
                pa.line("/start")
                pa.started()
            later[0] = LIMITS.seat_bot_seconds * 10
            client.portal.call(app.state.hub.sweep)
            pa.ping()
            assert [s["kind"] for s in pa.state["room"]["seats"]] == ["human", "human"]


# --------------------------------------------------------------------------- fuzz

#: what the fuzz does, one step at a time: who (a seat, or None: a spectator) sends what;
#: ``play``: whoever is to move plays its first legal move (the way to a match's end)
STEPS = st.lists(st.tuples(st.sampled_from([0, 1, None]),
                           st.sampled_from(["/rematch"] * 4 + ["play"] * 4 +
                                           ["/REMATCH", "/rematch now", "move", "/cont",
                                            "/leave", "/join", "/bot"])),
                 max_size=60)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_rematch_at_odd_times_keeps_the_room_whole_and_rebuildable(
        tmp_path_factory: Any, steps: list[tuple[Any, str]]) -> None:
    """``/rematch`` (and what goes around it) at any time, from a seat, twice, from a
    spectator, during a match: each call is one error or the room's events, the room's
    seats stay numbered, a rematch needs every human's ask, and the store rebuilds
    exactly the room the calls made."""
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "tiny.yaml").write_text(TINY_PACK, encoding="utf-8")
    pack = load_pack(folder / "tiny.yaml")
    store = SQLiteStore(folder / "rooms.sqlite3", durable=False)
    try:
        room = Room.create(store, "abcdefgh", pack, f"house:{pack.id}")
        tokens = [room.line(None, "/join Ada").token, room.line(None, "/join Bob").token]
        room.line(0, "/start")
        for who, what in steps:
            seat = None if who is None or tokens[who] is None else \
                room.seat_of(token_hash(tokens[who]))
            matches, status = room.match_number, room.status
            asked = {s.seat for s in room.seats if s.wants_rematch}
            if what == "play" and room.status == "playing" and room.state is not None:
                outcome = room.move(room.state.to_move,
                                    room.move_text(legal_moves(room.state)[0]))
            elif what in ("move", "play"):
                outcome = room.move(seat, "p y5 deck")
            elif what == "/join":
                outcome = room.line(None, "/join Cy")
                if outcome.token is not None and who is not None:
                    tokens[who] = outcome.token
            else:
                outcome = room.line(seat, what)
            errors = [m for m in outcome.replies if m["type"] == "error"]
            assert len(errors) <= 1
            assert not (errors and (outcome.events or outcome.changed))
            assert [s.seat for s in room.seats] == list(range(len(room.seats)))
            if room.match_number != matches:  # a rematch: every human had asked
                assert status == "over" and what.lower().startswith("/rematch")
                humans = {s.seat for s in room.seats if s.kind == "human"}
                assert room.match_number == matches + 1 and room.status == "playing"
                assert len(asked | {seat}) >= len(humans)
                assert not any(s.wants_rematch for s in room.seats)
            if what.lower().startswith("/rematch") and status != "over":
                assert errors and room.match_number == matches
        rebuilt = Room.load(store, "abcdefgh", lambda ref: pack)
        assert rebuilt is not None
        assert (rebuilt.status, rebuilt.turns, rebuilt.match_number, rebuilt.seed) == \
            (room.status, room.turns, room.match_number, room.seed)
        assert [replace(s, seen=0.0) for s in rebuilt.seats] == \
            [replace(s, seen=0.0) for s in room.seats]
        if room.state is not None:
            assert rebuilt.state.hands == room.state.hands
            assert rebuilt.state.to_move == room.state.to_move
    finally:
        store.close()


def test_a_schema_5_database_gets_the_rematch_columns_and_its_replays_stay(
        tmp_path: Path) -> None:
    app = create_app(tmp_path, packs(tmp_path), limits=LIMITS, durable=False)
    with TestClient(app) as client:
        room = tiny_room(client)
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = two_humans(client, room, a, b)
            match = play_out([ada, bob])
            ada.line("/rematch")
            ada.ping()
    db = sqlite3.connect(tmp_path / "rooms.sqlite3")  # as schema 5 stored it
    db.execute("ALTER TABLE seats DROP COLUMN wants_rematch")
    db.execute("ALTER TABLE matches DROP COLUMN number")
    for table, column in (("rooms", "clock"), ("rooms", "started"), ("turns", "at")):
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")  # (and 6 to 7's)
    for column in ("version", "held"):  # and 7 to 8
        db.execute(f"ALTER TABLE rooms DROP COLUMN {column}")
    db.execute("DROP TABLE waiting")
    db.execute("DROP TABLE present")
    db.execute("UPDATE meta SET value='5' WHERE key='schema'")
    db.commit()
    db.close()
    with TestClient(create_app(tmp_path, packs(tmp_path), limits=LIMITS,
                               durable=False)) as client:
        info = client.get(f"/rooms/{room}").json()["room"]
        assert info["rematch"] == [] and info["match"] == 1 and info["status"] == "over"
        assert info["replay"] == match["replay"]
        assert client.get(match["replay"] + "/frames").json()["totals"] == match["totals"]
    db = sqlite3.connect(tmp_path / "rooms.sqlite3")
    assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == \
        str(SCHEMA_VERSION)
    assert db.execute("SELECT number FROM matches").fetchall() == [(1,)]
    db.close()
