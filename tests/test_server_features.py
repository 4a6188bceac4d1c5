"""The room server's additions of issue #14's second part: turns and refusals in each
client's language, house packs stored with their room (and ``GET /rooms/ID/pack``),
the store's schema migration, hints, presence and ``/bot`` taking over a seat left
empty (a clock of the test's own: no waiting)."""
from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402
from test_server_protocol import (FAST, Player, connect, join, open_room,  # noqa: E402
                                  seat_and_start)

from lostcities.engine import Move, load_pack, new_game, pack_sha256, why_refused  # noqa: E402
from lostcities.engine.tooling import record_form  # noqa: E402
from lostcities.i18n import Catalogue  # noqa: E402
from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.protocol import Limits  # noqa: E402
from lostcities.server.store import SCHEMA_VERSION, SQLiteStore, StoreError  # noqa: E402


class Clock:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def two_seated(client: TestClient, a: Any, b: Any, room: str) -> tuple[Player, Player]:
    ada, bob = seat_and_start(a, b)
    ada.ping(), bob.ping()
    return ada, bob


def mover_of(ada: Player, bob: Player) -> tuple[Player, Player]:
    return (ada, bob) if ada.state["legal"] else (bob, ada)


# --------------------------------------------------------------------------- turns in words

def expected_words(cat: Catalogue, name: str, move: str, taken: Any, colours: dict) -> str:
    action, card, *rest = move.split()
    action = "play" if action == "p" else "discard"
    draw = rest[-1] if rest else None
    source = "deck" if draw == "deck" else "none" if draw is None else "pile"
    colour = cat.colour(colours[draw]) if source == "pile" else ""
    return cat(f"turn.{action}.{source}", who=name, card=card, taken=taken or "",
               colour=colour)


def test_turns_in_each_clients_language(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = two_seated(client, a, b, room)
            ada.send({"type": "hello", "lang": "fr"})
            ada.ping()
            pack = app.state.hub.rooms[room].pack
            colours = {pack.cards.keys[i]: c.name for i, c in enumerate(pack.colours)}
            # a discard, then a take from that pile by the other seat
            mover, other = mover_of(ada, bob)
            discard = next(m for m in mover.state["legal"] if m.startswith("d "))
            mover.send({"type": "move", "move": discard})
            other.state_at(1)
            key = discard.split()[1][0]
            take = next((m for m in other.state["legal"] if m.split()[-1] == key), None)
            other.send({"type": "move", "move": take or other.state["legal"][0]})
            ada.state_at(2), bob.state_at(2)
            for player, lang in ((ada, "fr"), (bob, "en")):
                turns = [m for m in player.seen if m["type"] == "turn"]
                assert len(turns) == 2
                for turn in turns:
                    assert turn["action"] in ("play", "discard")
                    assert turn["move"].split()[1] == turn["card"]
                    assert turn["draw"] == turn["move"].split()[-1]
                    assert turn["words"] == expected_words(
                        Catalogue(lang), turn["name"], turn["move"], turn["taken"], colours)
                assert turns[0]["taken"] is None
                if take is not None:
                    assert turns[1]["taken"] == discard.split()[1]
                    assert turns[1]["draw"] == key
            french = [m for m in ada.seen if m["type"] == "turn"][1]["words"]
            english = [m for m in bob.seen if m["type"] == "turn"][1]["words"]
            assert french != english
            if take is not None:
                assert Catalogue("fr").colour(colours[key]) in french


def test_board_turns_say_the_pawns(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        room = open_room(client, "board-classic")
        with connect(client, room) as a:
            ada = Player(a)
            join(ada, "Ada")
            ada.send({"type": "hello", "lang": "fr"})
            ada.line("/bot greedy")
            ada.line("/start")
            ada.started()
            for turn in range(12):
                state = ada.state_at(turn)
                if state["legal"]:
                    pawned = [m for m in state["legal"] if "pawn=" in m]
                    ada.send({"type": "move", "move": (pawned or state["legal"])[0]})
            ada.state_at(12)
            cat = Catalogue("fr")
            sent = [m for m in ada.seen if m["type"] == "turn" and "pawn=" in m["move"]]
            assert sent
            for turn in sent:
                pawn = int(turn["move"].split("pawn=")[1].split()[0])
                first = cat("turn.sends", pawn=pawn, colour="\0").split("\0")[0]
                leader = cat("turn.sends-leader", colour="\0").split("\0")[0]
                assert first in turn["words"] or leader in turn["words"]


# --------------------------------------------------------------------------- refusals

def test_why_refused_names_the_reason_with_colour_names() -> None:
    pack = load_pack("duel-classic")
    state = new_game(pack, ["a", "b"], 5)
    hand = state.hands[state.to_move]
    missing = next(k for k in range(len(pack.cards.colour_of)) if k not in hand)
    refusal = why_refused(state, Move.parse(f"p {pack.cards.format(missing)} deck", pack))
    assert refusal.key == "illegal.not-held"
    assert refusal.params == {"card": pack.cards.format(missing)}
    held = hand[0]
    empty = next(c for c in range(len(pack.colours)) if not state.piles[c])
    refusal = why_refused(state, Move.parse(
        f"p {pack.cards.format(held)} {pack.cards.keys[empty]}", pack))
    assert refusal.key == "illegal.pile-empty"
    assert refusal.params["colour"] == pack.colours[empty].name  # a name, for any language
    assert why_refused(state, Move.parse(f"p {pack.cards.format(held)} deck", pack)) is None


def test_refusals_in_the_clients_language(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = two_seated(client, a, b, room)
            mover, _ = mover_of(ada, bob)
            mover.send({"type": "hello", "lang": "fr"})
            mover.ping()
            fr = Catalogue("fr")
            hub = app.state.hub
            state, pack = hub.rooms[room].state, hub.rooms[room].pack
            hand = state.hands[state.to_move]
            missing = pack.cards.format(next(k for k in range(len(pack.cards.colour_of))
                                             if k not in hand))
            empty = next(c for c in range(len(pack.colours)) if not state.piles[c])
            held = pack.cards.format(hand[0])
            cases = {
                f"p {missing} deck": fr("error.illegal", reason=fr("illegal.not-held",
                                                                   card=missing)),
                f"p {held} {pack.cards.keys[empty]}": fr("error.illegal", reason=fr(
                    "illegal.pile-empty", colour=fr.colour(pack.colours[empty].name))),
                "fly": fr("error.bad-move", reason=fr("move.unreadable.short")),
                f"zz {held} deck": fr("error.bad-move", reason=fr("move.unreadable.action",
                                                                  word="zz")),
                "p q99 deck": fr("error.bad-move", reason=fr(
                    "move.unreadable.card", card="q99", keys=", ".join(pack.cards.keys))),
            }
            for text, expected in cases.items():
                mover.send({"type": "move", "move": text})
                got = mover.ping()
                assert [m["type"] for m in got] == ["error"], (text, got)
                assert got[0]["text"] == expected, text
            pile_text = cases[f"p {held} {pack.cards.keys[empty]}"]
            assert fr.colour(pack.colours[empty].name) in pile_text


# --------------------------------------------------------------------------- house packs

HOUSE = "extends: duel-classic\nmatch: {rounds: 1}\n"


def play_some(players: list[Player], first: int, count: int) -> int:
    turn = first
    for _ in range(count):
        states = [p.state_at(turn) for p in players]
        mover = next(p for p, s in zip(players, states) if s["legal"])
        mover.send({"type": "move", "move": mover.state["legal"][-1]})
        turn += 1
    for p in players:
        p.state_at(turn)
    return turn


def back(client: TestClient, room: str, sockets: list[Any], tokens: list[str]) -> list[Player]:
    again = []
    for socket, token in zip(sockets, tokens):
        player = Player(socket)
        player.receive(), player.receive()
        player.send({"type": "hello", "token": token})
        player.until(lambda m: m["type"] == "welcome")
        again.append(player)
    for player in again:
        player.ping()
    return again


def test_get_packs_names_each_house_pack_by_its_own_cleaned_name(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "samedi.yaml").write_text('extends: duel-classic\nname: "Notre duel\\u202e\\e[2J '
                                       'du   samedi"\ndescription: "' + "très " * 100 + '"\n'
                                       "players: {min: 2, max: 2}\n", encoding="utf-8")
    (packs / "broken.yaml").write_text("extends: nowhere\n", encoding="utf-8")
    with TestClient(create_app(tmp_path / "data", packs, limits=FAST)) as client:
        listed = {p["pack"]: p for p in client.get("/packs").json()["packs"]}
    house = listed["samedi"]
    assert house["kind"] == "house" and house["name"] == "Notre duel[2J du samedi"
    assert house["description"] == "très " * 60 and house["family"] == "duel"  # cut at 300
    assert "broken" not in listed and {p["kind"] for p in listed.values()} == {"builtin", "house"}


@pytest.mark.parametrize("change", ["edited", "deleted"])
def test_a_house_pack_is_stored_with_its_room(tmp_path: Path, change: str) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "friday.yaml").write_text(HOUSE)
    data = tmp_path / "data"
    with TestClient(create_app(data, packs, limits=FAST)) as client:
        listed = {p["pack"]: p for p in client.get("/packs").json()["packs"]}
        base = load_pack("duel-classic")  # the pack it extends: its name and description too
        assert listed["friday"] == {"pack": "friday", "kind": "house", "name": base.name,
                                    "description": base.description, "family": "duel",
                                    "players": [2, 2]}
        room = open_room(client, "friday")
        shown = client.get(f"/rooms/{room}/pack").json()
        assert shown["pack"] == "friday" and shown["kind"] == "house"
        rules = load_pack(packs / "friday.yaml")
        assert shown["data"] == json.loads(json.dumps(record_form(rules.data)))
        assert "extends" not in shown["data"] and shown["data"]["match"]["rounds"] == 1
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = two_seated(client, a, b, room)
            turn = play_some([ada, bob], 0, 6)
            snapshot = client.app.state.hub.rooms[room].state.snapshot()
            views = (ada.state, bob.state)
            tokens = [ada.token, bob.token]
    if change == "edited":
        (packs / "friday.yaml").write_text("extends: duel-classic\nhand_size: 6\n"
                                           "match: {rounds: 2}\n")
    else:
        (packs / "friday.yaml").unlink()
    with TestClient(create_app(data, packs, limits=FAST)) as client:
        hub = client.app.state.hub
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = back(client, room, [a, b], tokens)
            assert hub.rooms[room].state.snapshot() == snapshot
            assert (ada.state, bob.state) == views
            assert client.get(f"/rooms/{room}/pack").json() == shown
            assert pack_sha256(hub.rooms[room].pack) == pack_sha256(rules)
            play_some([ada, bob], turn, 4)
        # a new room takes the file as it is now
        if change == "edited":
            fresh = open_room(client, "friday")
            assert client.get(f"/rooms/{fresh}/pack").json()["data"]["hand_size"] == 6
        else:
            assert client.post("/rooms", json={"pack": "friday"}).status_code == 404


def test_the_pack_of_a_builtin_room_and_of_no_room(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, durable=False)) as client:
        room = open_room(client, "board-classic")
        shown = client.get(f"/rooms/{room}/pack").json()
        assert shown["kind"] == "builtin" and shown["pack"] == "board-classic"
        assert shown["data"] == json.loads(json.dumps(record_form(load_pack("board-classic").data)))
        assert client.get("/rooms/zzzzzzzz/pack").status_code == 404
        assert client.get("/rooms/nope/pack").status_code == 404


# --------------------------------------------------------------------------- the store's schema

V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE rooms (
    id TEXT PRIMARY KEY, pack TEXT NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL, labels TEXT NOT NULL DEFAULT '[]', created REAL NOT NULL);
CREATE TABLE seats (
    room TEXT NOT NULL REFERENCES rooms(id), seat INTEGER NOT NULL,
    name TEXT NOT NULL, kind TEXT NOT NULL, bot TEXT NOT NULL DEFAULT '',
    token_hash TEXT NOT NULL DEFAULT '', wants_cont INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (room, seat));
CREATE TABLE turns (
    room TEXT NOT NULL REFERENCES rooms(id), number INTEGER NOT NULL,
    kind TEXT NOT NULL, text TEXT NOT NULL, PRIMARY KEY (room, number));
CREATE TABLE chat (
    room TEXT NOT NULL REFERENCES rooms(id), number INTEGER NOT NULL,
    name TEXT NOT NULL, text TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (room, number));
INSERT INTO meta VALUES ('schema', '1');
"""


def test_a_schema_1_database_is_migrated_and_its_room_plays_on(tmp_path: Path) -> None:
    from lostcities.server.store import token_hash

    db = sqlite3.connect(tmp_path / "rooms.sqlite3")
    db.executescript(V1)
    # created now: a room nobody visited for Limits.empty_expiry_seconds would expire
    db.execute("INSERT INTO rooms VALUES ('abcdefgh', 'builtin:duel-classic', 7, 'playing', "
               "'[\"Ada\", \"Bob\"]', ?)", (time.time(),))
    for seat, name, token in ((0, "Ada", "tok-a"), (1, "Bob", "tok-b")):
        db.execute("INSERT INTO seats VALUES ('abcdefgh', ?, ?, 'human', '', ?, 0)",
                   (seat, name, token_hash(token)))
    pack = load_pack("duel-classic")
    from lostcities.engine import apply, legal_moves

    state = new_game(pack, ["Ada", "Bob"], 7)
    for number in range(3):
        move = legal_moves(state)[0]
        db.execute("INSERT INTO turns VALUES ('abcdefgh', ?, 'move', ?)", (number, str(move)))
        state = apply(state, move)
    db.commit()
    db.close()
    with TestClient(create_app(tmp_path, limits=FAST)) as client:
        public = client.get("/rooms/abcdefgh").json()
        assert public["room"]["turns"] == 3 and public["room"]["hints"] is False
        # a room made before the lobby was reached by its link only: it stays unlisted
        assert client.get("/lobby").json()["rooms"] == []
        assert public["room"]["rated"] is False  # schema 5: no room before it was rated
        assert [s["player"] for s in public["room"]["seats"]] == ["", ""]
        assert [s["present"] for s in public["room"]["seats"]] == [False, False]
        # schema 6: nobody asked for a rematch, the room's first match
        assert public["room"]["rematch"] == [] and public["room"]["match"] == 1
        with connect(client, "abcdefgh") as a, connect(client, "abcdefgh") as b:
            ada, bob = back(client, "abcdefgh", [a, b], ["tok-a", "tok-b"])
            assert client.app.state.hub.rooms["abcdefgh"].state.snapshot() == state.snapshot()
            play_some([ada, bob], 3, 2)
    db = sqlite3.connect(tmp_path / "rooms.sqlite3")
    assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == \
        str(SCHEMA_VERSION)
    # version 3's finished matches (their replays): none finished before the migration
    assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 0
    db.close()
    store = SQLiteStore(tmp_path / "rooms.sqlite3")
    try:
        assert store.match("aaaaaaaaaaaaaaaa") is None
    finally:
        store.close()


def test_a_schema_3_database_gets_the_listed_flag_and_its_rooms_stay_link_only(
        tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST, durable=False)) as client:
        room = open_room(client, "duel-classic")
        assert room in [s["room"] for s in client.get("/lobby").json()["rooms"]]
    db = sqlite3.connect(tmp_path / "rooms.sqlite3")  # as schema 3 stored it: what
    db.execute("ALTER TABLE rooms DROP COLUMN listed")  # what steps 3 to 4 and on add, gone
    db.execute("ALTER TABLE rooms DROP COLUMN rated")
    db.execute("ALTER TABLE seats DROP COLUMN player")
    db.execute("ALTER TABLE seats DROP COLUMN wants_rematch")  # and 5 to 6
    db.execute("ALTER TABLE matches DROP COLUMN number")
    for table, column in (("rooms", "clock"), ("rooms", "started"), ("turns", "at")):
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")  # and 6 to 7
    for column in ("version", "held"):  # and 7 to 8
        db.execute(f"ALTER TABLE rooms DROP COLUMN {column}")
    db.execute("DROP TABLE waiting")
    db.execute("DROP TABLE present")
    for table in ("players", "ratings", "rated_matches", "placings"):
        db.execute(f"DROP TABLE {table}")
    db.execute("UPDATE meta SET value='3' WHERE key='schema'")
    db.commit()
    db.close()
    with TestClient(create_app(tmp_path, limits=FAST, durable=False)) as client:
        assert client.get("/lobby").json()["rooms"] == []
        assert client.get(f"/rooms/{room}").status_code == 200
        assert client.app.state.hub.store.room(room).listed is False
    db = sqlite3.connect(tmp_path / "rooms.sqlite3")
    assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == \
        str(SCHEMA_VERSION)
    db.close()


def test_a_newer_database_is_refused_in_one_line(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "rooms.sqlite3")
    db.executescript(V1.replace("'schema', '1'", "'schema', '99'"))
    db.close()
    with pytest.raises(StoreError) as caught:
        SQLiteStore(tmp_path / "rooms.sqlite3")
    assert "schema version 99" in str(caught.value) and "\n" not in str(caught.value)


# --------------------------------------------------------------------------- hints

def test_hints_to_the_seat_to_move_alone(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        reply = client.post("/rooms", json={"pack": "duel-classic", "hints": True})
        assert reply.status_code == 201
        room = reply.json()["room"]
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = two_seated(client, a, b, room)
            assert ada.state["room"]["hints"] is True
            mover, other = mover_of(ada, bob)
            mover.send({"type": "hello", "lang": "fr"})
            mover.ping()
            mover.send({"type": "hint"})
            got = mover.ping()
            assert [m["type"] for m in got] == ["hint"], got
            assert got[0]["move"] in mover.state["legal"]
            action = "play" if got[0]["move"].startswith("p ") else "discard"
            assert got[0]["words"].startswith(Catalogue("fr")(
                f"turn.you.{action}.deck", card="\0").split("\0")[0])
            assert other.ping() == []
            other.send({"type": "hint"})
            assert [m.get("key") for m in other.ping()] == ["error.not-your-turn"]
            assert app.state.hub.store.turns(room) == []  # a hint plays nothing
        plain = open_room(client, "duel-classic")
        with connect(client, plain) as a, connect(client, plain) as b:
            ada, bob = two_seated(client, a, b, plain)
            assert ada.state["room"]["hints"] is False
            mover, _ = mover_of(ada, bob)
            mover.send({"type": "hint"})
            assert [m.get("key") for m in mover.ping()] == ["error.no-hints"]
        assert client.post("/rooms", json={"pack": "duel-classic",
                                           "hints": "yes"}).status_code == 400


# --------------------------------------------------------------------------- presence, take-over

def test_presence_and_a_bot_taking_over_an_empty_seat(tmp_path: Path) -> None:
    clock = Clock()
    limits = Limits(rate=100000, burst=100000, takeover_seconds=30)
    app = create_app(tmp_path, limits=limits, clock=clock)
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room) as a:
            with connect(client, room) as b:
                ada, bob = two_seated(client, a, b, room)
                assert [s["present"] for s in ada.state["room"]["seats"]] == [True, True]
                if ada.state["legal"]:  # Bob to move when he goes
                    ada.send({"type": "move", "move": ada.state["legal"][0]})
                    bob.state_at(1)
                turns = ada.state_at(bob.state["room"]["turns"])["room"]["turns"]
                ada.line("/bot")  # nobody is away: every seat is taken
                assert [m.get("key") for m in ada.ping()] == ["error.room-full"]
            gone = ada.until(lambda m: m["type"] == "state"
                             and not m["room"]["seats"][1]["present"])
            assert gone["room"]["seats"][0]["present"] is True
            clock.now += 10
            ada.line("/bot expert")
            got = ada.ping()
            assert [m.get("key") for m in got] == ["error.takeover-wait"]
            assert "20" in got[0]["text"]
            # Bob comes back in time: his seat is never taken
            with connect(client, room) as b:
                bob2 = back(client, room, [b], [bob.token])[0]
                assert bob2.state["seat"] == 1
                ada.until(lambda m: m["type"] == "state" and m["room"]["seats"][1]["present"])
                clock.now += 1000
                ada.line("/bot")
                assert [m.get("key") for m in ada.ping()] == ["error.room-full"]
            ada.until(lambda m: m["type"] == "state" and not m["room"]["seats"][1]["present"])
            clock.now += 31
            ada.line("/bot expert")
            taken = ada.until(lambda m: m["type"] == "info")
            assert taken["key"] == "info.takeover" and "31" in taken["text"]
            # the bot plays at once
            ada.until(lambda m: m["type"] == "turn" and m["seat"] == 1)
            seats = ada.state_at(turns + 1)["room"]["seats"]
            assert seats[1]["kind"] == "bot" and seats[1]["bot"] == "expert"
            assert seats[1]["name"] == "Bob"
    # stored: a restarted server has the bot in that seat
    with TestClient(create_app(tmp_path, limits=limits, clock=clock)) as client:
        seats = client.get(f"/rooms/{room}").json()["room"]["seats"]
        assert seats[1]["kind"] == "bot" and seats[1]["bot"] == "expert"
        with connect(client, room) as b:
            player = Player(b)
            player.receive(), player.receive()
            assert {m["type"] for m in player.ping()} == {"turn"}  # the last turns again
            player.send({"type": "hello", "token": bob.token})
            assert [m["type"] for m in player.ping()] == ["error", "welcome", "state"]


# --------------------------------------------------------------------------- refusals' words

def test_an_unknown_pack_and_a_full_server_are_one_line_in_the_language_asked(
        tmp_path: Path) -> None:
    """POST /rooms and GET /lobby say no in the catalogue's words (French asked: French),
    never in a sentence of the code's own."""
    fr, en = Catalogue("fr"), Catalogue("en")
    limits = dataclasses.replace(FAST, rooms=1)
    with TestClient(create_app(tmp_path, limits=limits, durable=False)) as client:
        french = {"accept-language": "fr-FR,fr;q=0.9"}
        for answer in (client.post("/rooms", json={"pack": "<b>nope</b>"}, headers=french),
                       client.get("/lobby?pack=%3Cb%3Enope%3C/b%3E", headers=french)):
            assert answer.status_code == 404
            assert answer.json() == {"error": "error.no-pack",
                                     "text": fr("error.no-pack", pack="<b>nope</b>")}
        assert client.post("/rooms", json={"pack": "duel-classic"}).status_code == 201
        full = client.post("/rooms?lang=en", json={"pack": "duel-classic"}, headers=french)
        assert full.status_code == 503
        assert full.json() == {"error": "error.rooms-full", "text": en("error.rooms-full", rooms=1)}
