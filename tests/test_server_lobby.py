"""The lobby (GET /lobby, WS /lobby/ws) and the quick match, through the real application
over its sockets: a page's picture of the lobby, built from the snapshot and the deltas
pushed, always equals the server's; unlisted rooms never show; the filter and the bound;
the queue pairs two players of the same pack and forgets a closed socket; a quick match
against a bot seats the page in a started room. The lobby's own state
(:class:`lostcities.server.lobby.Lobby`) is checked alone at the end."""
from __future__ import annotations

import json
import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402
from test_server_protocol import FAST, Player, connect, join  # noqa: E402

from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.lobby import SECTIONS, Lobby, Watcher  # noqa: E402
from lostcities.server.protocol import LIMITS, problem  # noqa: E402


class Page:
    """A lobby page: its socket, every message it got, and the lobby as it pictures it
    from the snapshot and the deltas (rooms by id, ``more``, who waits)."""

    def __init__(self, socket: Any):
        self.socket = socket
        self.raw: list[str] = []
        self.rooms: dict[str, dict[str, Any]] = {}
        self.more: dict[str, int] = {}
        self.waiting: list[dict[str, Any]] = []
        self.pack: Optional[str] = None
        self.matched: Optional[dict[str, Any]] = None
        self.receive()  # the snapshot comes first

    def send(self, message: Any) -> None:
        self.socket.send_text(json.dumps(message))

    def receive(self) -> dict[str, Any]:
        text = self.socket.receive_text()
        message = json.loads(text)
        assert problem(message, "lobby_server") is None, message
        self.raw.append(text)
        kind = message["type"]
        if kind == "lobby":
            self.rooms = {s["room"]: s for s in message["rooms"]}
            self.more, self.waiting, self.pack = message["more"], message["waiting"], \
                message["pack"]
        elif kind in ("added", "changed"):
            assert (message["room"]["room"] in self.rooms) == (kind == "changed"), message
            self.rooms[message["room"]["room"]] = message["room"]
        elif kind == "removed":
            del self.rooms[message["room"]]
        elif kind == "more":
            self.more = message["more"]
        elif kind == "waiting":
            self.waiting = message["waiting"]
        elif kind == "matched":
            self.matched = message
        return message

    def ping(self) -> list[dict[str, Any]]:
        """Every message before the answer to a ping."""
        self.send({"type": "ping"})
        got = []
        while (message := self.receive())["type"] != "pong":
            got.append(message)
        return got

    def until(self, check: Callable[[dict[str, Any]], bool], limit: int = 200) -> dict[str, Any]:
        for _ in range(limit):
            message = self.receive()
            if check(message):
                return message
        raise AssertionError(f"no such message in {limit}")

    def watch(self, pack: Optional[str]) -> None:
        self.send({"type": "watch", "pack": pack})
        self.until(lambda m: m["type"] == "lobby")


def lobby(client: TestClient) -> Any:
    return client.websocket_connect("/lobby/ws")


def new_room(client: TestClient, pack: str = "duel-classic", **more: Any) -> str:
    reply = client.post("/rooms", json={"pack": pack, **more})
    assert reply.status_code == 201, reply.text
    return reply.json()["room"]


def snapshot(client: TestClient, pack: str = "") -> dict[str, dict[str, Any]]:
    answer = client.get("/lobby" + (f"?pack={pack}" if pack else ""))
    assert answer.status_code == 200 and problem(answer.json(), "lobby_server") is None
    return {s["room"]: s for s in answer.json()["rooms"]}


def seat_two(client: TestClient, room: str, names: tuple[str, str] = ("Ada", "Bob"),
             start: bool = True) -> None:
    """Two players take seats in ``room`` (and start its match), then leave their sockets
    (the seats stay theirs)."""
    with connect(client, room) as a, connect(client, room) as b:
        ada, bob = Player(a), Player(b)
        join(ada, names[0])
        join(bob, names[1])
        if start:
            ada.line("/start")
            ada.started(), bob.started()
        ada.ping(), bob.ping()


# --------------------------------------------------------------------------- the feed

def test_a_listed_room_is_pushed_from_its_creation_to_its_match_and_out(tmp_path: Path) -> None:
    later = [0.0]
    clock = lambda: time.time() + later[0]  # noqa: E731
    with TestClient(create_app(tmp_path, limits=FAST, clock=clock)) as client, \
            lobby(client) as socket:
        page = Page(socket)
        assert page.rooms == {} and page.more == {"waiting": 0, "playing": 0}
        room = new_room(client)
        page.ping()
        assert page.rooms[room] == {"room": room, "pack": "duel-classic", "section": "waiting",
                                    "players": [], "seats": 0, "total": 2, "min": 2,
                                    "hints": False, "rated": False}
        seat_two(client, room, start=False)
        page.ping()
        assert [p["name"] for p in page.rooms[room]["players"]] == ["Ada", "Bob"]
        assert page.rooms[room]["seats"] == 2 and page.rooms[room]["section"] == "waiting"
        assert page.rooms == snapshot(client)
        hub = client.app.state.hub
        # started by a seat: the room moves to the matches to watch
        other = new_room(client, hints=True)
        with connect(client, other) as a, connect(client, other) as b:
            ada, bob = Player(a), Player(b)
            join(ada, "Cy")
            join(bob, "<b>Dee</b>")
            ada.line("/start")
            ada.started(), bob.started()
            page.ping()
            assert page.rooms[other]["section"] == "playing" and page.rooms[other]["hints"]
            assert page.rooms[other]["players"][1] == {"name": "<b>Dee</b>", "bot": False}
            turns = len(page.raw)
            mover = ada if ada.state["legal"] else bob
            mover.send({"type": "move", "move": mover.state["legal"][0]})
            ada.state_at(1), bob.state_at(1)
            page.ping()
            assert len(page.raw) == turns + 1  # a move changes nothing the lobby shows
        assert page.rooms == snapshot(client)
        # a room that expires leaves the lobby
        later[0] = LIMITS.lobby_expiry_seconds + 1
        assert room in client.portal.call(hub.sweep)
        page.ping()
        assert room not in page.rooms and page.rooms == snapshot(client)


def test_an_unlisted_room_never_appears_in_the_lobby_or_its_feed(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client, lobby(client) as socket:
        page = Page(socket)
        hidden = new_room(client, unlisted=True)
        seat_two(client, hidden)
        shown = new_room(client)
        page.ping()
        assert list(page.rooms) == [shown]
        assert all(hidden not in text for text in page.raw)
        assert hidden not in snapshot(client) and hidden not in snapshot(client, "duel-classic")
        assert client.get(f"/rooms/{hidden}").status_code == 200  # its link still works
    with TestClient(create_app(tmp_path, limits=FAST)) as client, lobby(client) as socket:
        page = Page(socket)  # after a restart: the stored flag keeps it out
        assert list(page.rooms) == [shown] and hidden not in page.raw[0]


def test_the_lobby_is_rebuilt_after_a_restart(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client:
        waiting, playing = new_room(client), new_room(client, "board-classic")
        seat_two(client, playing)
        before = snapshot(client)
    with TestClient(create_app(tmp_path, limits=FAST)) as client:
        after = snapshot(client)
        assert after == before and after[waiting]["section"] == "waiting"
        assert after[playing]["section"] == "playing"


def test_the_filter_and_the_bound_with_a_more_count(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client, \
            lobby(client) as s1, lobby(client) as s2:
        client.app.state.hub.lobby.shown = 3
        every, boards = Page(s1), Page(s2)
        boards.watch("board-classic")
        duels = [new_room(client) for _ in range(2)]
        board = [new_room(client, "board-classic") for _ in range(4)]
        every.ping(), boards.ping()
        assert set(boards.rooms) == set(board[1:]) and boards.more == {"waiting": 1, "playing": 0}
        assert set(every.rooms) == set(board[1:]) and every.more == {"waiting": 3, "playing": 0}
        assert boards.rooms == snapshot(client, "board-classic")
        # a shown room leaves the waiting rooms: the newest unshown one takes its place
        seat_two(client, board[3])
        every.ping(), boards.ping()
        assert set(boards.rooms) == set(board) and boards.more == {"waiting": 0, "playing": 0}
        assert boards.rooms[board[3]]["section"] == "playing"
        assert set(every.rooms) == {board[3], *board[:3]}
        assert every.more == {"waiting": 2, "playing": 0}
        for page, pack in ((every, ""), (boards, "board-classic")):
            assert page.rooms == snapshot(client, pack)
        every.watch("duel-classic")
        assert set(every.rooms) == set(duels) and every.more == {"waiting": 0, "playing": 0}
        assert client.get("/lobby?pack=nope").status_code == 404


def test_bad_lobby_messages_get_one_error_each(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client, lobby(client) as socket:
        page = Page(socket)
        for message, key in (({"type": "watch", "pack": "nope"}, "error.no-pack"),
                             ({"type": "queue", "pack": "nope"}, "error.no-pack"),
                             ({"type": "play_bot", "pack": "duel-classic", "strength": "god"},
                              "error.bad-message"),
                             ({"type": "move", "move": "p r5 deck"}, "error.bad-message"),
                             ("x" * 5000, "error.too-big"), ([1], "error.bad-message")):
            got = page.ping()
            assert got == []
            page.send(message)
            got = page.ping()
            assert [m.get("key") for m in got] == [key], (message, got)
        page.socket.send_text("{not json")
        assert [m.get("key") for m in page.ping()] == ["error.not-json"]


def test_rated_is_shown_and_a_clock_when_a_room_has_one(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client, lobby(client) as socket:
        page = Page(socket)
        room = new_room(client)
        reply = client.post("/rooms", json={"pack": "duel-classic", "rated": True})
        assert reply.status_code == 201
        rated = reply.json()["room"]
        page.ping()
        assert page.rooms[room]["rated"] is False and "clock" not in page.rooms[room]
        assert page.rooms[rated]["rated"] is True
        fischer = {"kind": "fischer", "minutes": 5, "increment": 3}
        reply = client.post("/rooms", json={"pack": "duel-classic", "rated": True,
                                            "clock": fischer})
        assert reply.status_code == 201
        timed = reply.json()["room"]
        page.ping()
        assert page.rooms[timed]["rated"] is True and page.rooms[timed]["clock"] == fischer
        assert page.rooms == snapshot(client)


# --------------------------------------------------------------------------- quick match

def seated_in(client: TestClient, matched: dict[str, Any]) -> Player:
    """A room socket of the page that got ``matched``, having said hello with its token."""
    socket = connect(client, matched["room"]).__enter__()
    player = Player(socket)
    player.until(lambda m: m["type"] == "state")
    player.send({"type": "hello", "token": matched["token"]})
    player.until(lambda m: m["type"] == "state" and m["seat"] == matched["seat"])
    return player


def test_play_now_against_a_bot_of_a_chosen_strength(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client, \
            lobby(client) as s1, lobby(client) as s2:
        page, other = Page(s1), Page(s2)
        page.send({"type": "play_bot", "pack": "duel-classic", "strength": "easy"})
        matched = page.until(lambda m: m["type"] == "matched")
        assert matched["seat"] == 0
        player = seated_in(client, matched)
        try:
            room = player.state["room"]
            assert room["status"] == "playing"
            assert [(s["kind"], s["bot"]) for s in room["seats"]] == [("human", ""),
                                                                      ("bot", "greedy")]
            # it plays: the human's move, then the bot's
            for number in range(2):
                player.state_at(number)
                if player.state["legal"]:
                    player.send({"type": "move", "move": player.state["legal"][0]})
            player.state_at(2)
        finally:
            player.socket.__exit__(None, None, None)
        other.ping()
        assert other.rooms[matched["room"]]["section"] == "playing"
        assert other.rooms[matched["room"]]["players"] == [
            {"name": "Player 1", "bot": False}, {"name": "greedy", "bot": True}]


def test_two_players_queued_for_one_pack_are_paired_in_one_room(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client, \
            lobby(client) as s1, lobby(client) as s2, lobby(client) as s3:
        ada, bob, cy = Page(s1), Page(s2), Page(s3)
        ada.send({"type": "queue", "pack": "duel-classic"})
        ada.until(lambda m: m["type"] == "queued")
        cy.send({"type": "queue", "pack": "board-classic"})  # another pack: no pair
        cy.until(lambda m: m["type"] == "queued")
        bob.ping()
        assert bob.waiting == [{"pack": "board-classic", "players": 1},
                               {"pack": "duel-classic", "players": 1}]
        bob.send({"type": "queue", "pack": "duel-classic"})
        bob.until(lambda m: m["type"] == "matched")
        ada.until(lambda m: m["type"] == "matched")
        assert ada.matched["room"] == bob.matched["room"]  # type: ignore[index]
        assert (ada.matched["seat"], bob.matched["seat"]) == (0, 1)  # type: ignore[index]
        players = [seated_in(client, p.matched) for p in (ada, bob)]  # type: ignore[arg-type]
        try:
            assert players[0].state["room"]["status"] == "playing"
            assert [p.state["seat"] for p in players] == [0, 1]
        finally:
            for player in players:
                player.socket.__exit__(None, None, None)
        cy.ping()
        assert cy.waiting == [{"pack": "board-classic", "players": 1}]


def test_a_queue_place_goes_with_its_socket(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client, lobby(client) as s2:
        watcher = Page(s2)
        with lobby(client) as s1:
            ada = Page(s1)
            ada.send({"type": "queue", "pack": "duel-classic"})
            ada.until(lambda m: m["type"] == "queued")
            watcher.until(lambda m: m["type"] == "waiting" and m["waiting"])
        watcher.until(lambda m: m["type"] == "waiting" and m["waiting"] == [])
        watcher.send({"type": "queue", "pack": "duel-classic"})
        assert watcher.until(lambda m: m["type"] in ("queued", "matched"))["type"] == "queued"
        watcher.send({"type": "leave_queue"})
        watcher.until(lambda m: m["type"] == "waiting" and m["waiting"] == [])
        hub = client.app.state.hub
        assert hub.waiters == {} and hub.store.queue_summary() == []


# --------------------------------------------------------------------------- the state alone

def summary(room: str, pack: str = "duel-classic", section: str = "waiting") -> dict[str, Any]:
    return {"room": room, "pack": pack, "section": section, "players": [], "seats": 0,
            "total": 2, "min": 2, "hints": False}


def test_the_lobby_state_keeps_each_watcher_equal_to_its_snapshot() -> None:
    rng = random.Random(7)
    lobby_state = Lobby(json.dumps, shown=4)
    told: list[list[dict[str, Any]]] = [[], [], []]
    watchers = [Watcher(lambda text, i=i: told[i].append(json.loads(text)), pack)
                for i, pack in enumerate((None, "duel-classic", "board-classic"))]
    for watcher in watchers:
        lobby_state.watch(watcher, watcher.pack)
    ids = [f"room{n:04d}" for n in range(30)]
    for _ in range(600):
        room = rng.choice(ids)
        if rng.random() < 0.3:
            lobby_state.put(room, None)
        else:
            lobby_state.put(room, summary(room, rng.choice(["duel-classic", "board-classic"]),
                                          rng.choice(SECTIONS)))
    for watcher, messages in zip(watchers, told):
        pictured: dict[str, Any] = {}
        more: dict[str, int] = {}
        for message in messages:
            if message["type"] == "lobby":
                pictured = {s["room"]: s for s in message["rooms"]}
                more = message["more"]
            elif message["type"] in ("added", "changed"):
                pictured[message["room"]["room"]] = message["room"]
            elif message["type"] == "removed":
                del pictured[message["room"]]
            elif message["type"] == "more":
                more = message["more"]
        taken = {r: s for r, s in lobby_state.rooms.items() if watcher.wants(s)}
        assert set(pictured) <= set(taken) and all(pictured[r] == taken[r] for r in pictured)
        for section in SECTIONS:  # the newest 4 of each section, and how many more
            mine = {r for r in pictured if pictured[r]["section"] == section}
            every = sorted((r for r in taken if taken[r]["section"] == section),
                           key=lobby_state.order.__getitem__, reverse=True)
            assert mine == set(every[:4]), (section, mine, every)
            assert more[section] == len(every) - len(mine)


def test_a_quick_match_keeps_to_the_room_cap(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=replace(FAST, rooms=1))) as client, \
            lobby(client) as socket:
        page = Page(socket)
        new_room(client)
        page.ping()  # its added
        page.send({"type": "play_bot", "pack": "duel-classic", "strength": "easy"})
        got = page.ping()
        assert [m.get("key") for m in got] == ["error.rooms-full"], got
        assert client.app.state.hub.store.count_rooms() == 1


def test_a_quick_match_needs_a_pack_two_can_play(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "three.yaml").write_text(
        "extends: board-classic\nid: three\nplayers: {min: 3, max: 4}\n"
        "deck:\n  removed_unseen: []\n", encoding="utf-8")
    with TestClient(create_app(tmp_path / "data", packs, limits=FAST)) as client, \
            lobby(client) as socket:
        page = Page(socket)
        assert client.app.state.hub.shelf.problems == []
        for message in ({"type": "queue", "pack": "three"},
                        {"type": "play_bot", "pack": "three", "strength": "easy"}):
            page.send(message)
            got = page.ping()
            assert [m.get("key") for m in got] == ["error.quick-players"], got
            assert "3" in got[0]["text"]
        assert client.app.state.hub.store.count_rooms() == 0 and page.waiting == []
