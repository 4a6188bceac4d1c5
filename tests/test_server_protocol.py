"""Helpers of the server tests (tests/test_server_*.py): a protocol client over Starlette's
TestClient that keeps every message it received."""
from __future__ import annotations

import json
from typing import Any, Callable, Optional

from lostcities.server.protocol import problem


class Player:
    """One WebSocket client of a room: every message received is kept in ``seen``."""

    def __init__(self, socket: Any):
        self.socket = socket
        self.seen: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.seat: Optional[int] = None
        self.token: Optional[str] = None
        self.state: Optional[dict[str, Any]] = None

    def send(self, message: dict[str, Any]) -> None:
        self.socket.send_text(json.dumps(message))

    def receive(self) -> dict[str, Any]:
        text = self.socket.receive_text()
        message = json.loads(text)
        assert problem(message, "server") is None, message
        self.raw.append(text)
        self.seen.append(message)
        if message["type"] == "seated":
            self.seat, self.token = message["seat"], message["token"]
        if message["type"] == "state":
            self.state = message
        return message

    def until(self, check: Callable[[dict[str, Any]], bool], limit: int = 20000) -> dict[str, Any]:
        """Read messages until one passes ``check`` (at most ``limit`` messages)."""
        for _ in range(limit):
            message = self.receive()
            if check(message):
                return message
        raise AssertionError(f"no such message in {limit}")

    def state_at(self, turns: int) -> dict[str, Any]:
        """Read until the state after ``turns`` stored turns."""
        if self.state is not None and self.state["room"]["turns"] >= turns:
            return self.state
        return self.until(lambda m: m["type"] == "state" and m["room"]["turns"] >= turns)

    def started(self) -> dict[str, Any]:
        """Read until the state of a match under way."""
        if self.state is not None and self.state["room"]["status"] == "playing":
            return self.state
        return self.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")

    def line(self, text: str) -> None:
        self.send({"type": "line", "text": text})

    def ping(self) -> list[dict[str, Any]]:
        """Send a ping and return every message received before its pong."""
        self.send({"type": "ping"})
        got = []
        while True:
            message = self.receive()
            if message["type"] == "pong":
                return got
            got.append(message)


# --------------------------------------------------------------------------- the tests

import random  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from lostcities.engine import live_scores, load_pack, observation  # noqa: E402
from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.protocol import Limits  # noqa: E402

#: no rate to wait for, and one test client (one address) may open the rooms it needs
FAST = Limits(rate=100000, burst=100000, address_rooms=1000, address_rooms_per_minute=1000)


def open_room(client: TestClient, pack: str) -> str:
    reply = client.post("/rooms", json={"pack": pack})
    assert reply.status_code == 201, reply.text
    return reply.json()["room"]


def connect(client: TestClient, room: str, **headers: str) -> Any:
    return client.websocket_connect(f"/rooms/{room}/ws", headers=dict(headers))


def join(player: Player, name: str) -> None:
    player.receive()  # welcome
    player.receive()  # state
    player.line(f"/join {name}")
    player.until(lambda m: m["type"] == "seated")


def seat_and_start(a: Any, b: Any) -> tuple[Player, Player]:
    """Ada on socket ``a`` and Bob on ``b`` seated, the match started, both told."""
    ada, bob = Player(a), Player(b)
    join(ada, "Ada")
    join(bob, "Bob")
    ada.line("/start")
    ada.started(), bob.started()
    return ada, bob


def hidden_facts(app: Any, room: str) -> tuple[Any, list[list[str]], str]:
    """The engine's state, every seat's hand and the draw pile's order as text."""
    state = app.state.hub.rooms[room].state
    codec = app.state.hub.rooms[room].pack.cards
    hands = [sorted(codec.format(c) for c in hand) for hand in state.hands]
    return state, hands, json.dumps([codec.format(c) for c in state.deck])


def check_view(app: Any, room: str, message: dict[str, Any], seat: Optional[int]) -> None:
    """A state message shows ``seat`` its own hand and nobody else's, and the draw pile's
    size only; a spectator's shows no hand."""
    state, hands, deck = hidden_facts(app, room)
    view = message["view"]
    if view is None or message["room"]["turns"] != app.state.hub.rooms[room].turns:
        return  # an earlier state (a bot moved since): checked when it was current
    pack = app.state.hub.rooms[room].pack
    expected = observation(state, seat if seat is not None else 0).to_dict(pack.cards)
    if seat is None:
        assert view["hand"] is None and view["seat"] is None
        expected["hand"], expected["seat"] = None, None
    else:
        assert sorted(view["hand"]) == hands[seat]
    # the engine's observation and the running scores of the public table, nothing more
    expected["live"] = [int(s) for s in live_scores(state)]
    assert view == expected
    assert isinstance(view["draw_pile"], int)
    text = json.dumps(message)
    # the pile's order never shows (checked while it holds 4 cards or more: a shorter run
    # of cards may well be in a hand or the legal moves by chance)
    assert (len(state.deck) < 4 or deck[1:-1] not in text) and "deck" not in view


def play_out(app: Any, room: str, players: list[Player], seed: int,
             spectator: Optional[Player] = None) -> dict[str, Any]:
    """Play the match to its end: the seat to move picks one of its legal moves."""
    rng = random.Random(seed)
    turns = players[0].state["room"]["turns"]
    for _ in range(3000):
        states = [p.state_at(turns) for p in players]
        for p, message in zip(players, states):
            check_view(app, room, message, p.seat)
        if states[0]["room"]["status"] != "playing":
            break
        mover = next((p for p, s in zip(players, states) if s["legal"]), None)
        if mover is None:  # a bot is to move
            turns += 1
            continue
        mover.send({"type": "move", "move": rng.choice(mover.state["legal"])})
        turns += 1
    ends = [m for m in players[0].seen if m["type"] == "match"]
    assert ends, "the match did not end"
    if spectator is not None:
        spectator.state_at(turns)
        for message in spectator.seen:
            if message["type"] == "state" and message["view"] is not None:
                assert message["view"]["hand"] is None
    return ends[-1]


def test_duel_classic_whole_match_two_humans(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room) as a, connect(client, room) as b, connect(client, room) as s:
            ada, bob, spec = Player(a), Player(b), Player(s)
            join(ada, "Ada")
            join(bob, "Bob")
            ada.line("/start")
            spec.started(), ada.started(), bob.started()
            end = play_out(app, room, [ada, bob], 1, spectator=spec)
            rounds = [m for m in ada.seen if m["type"] == "round"]
            assert len(rounds) == 3 and end["winners"]
            assert all(m in bob.seen for m in rounds)
            # every state message to a seat matched the engine's observation of that seat
            record = tmp_path / "records" / end["record"]
            assert record.is_file()
    from lostcities.cli.app import app as lc
    from typer.testing import CliRunner

    result = CliRunner().invoke(lc, ["replay", "--check", str(record)])
    assert result.exit_code == 0, result.output


def test_board_classic_whole_match_human_and_bot(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        room = open_room(client, "board-classic")
        with connect(client, room) as a:
            ada = Player(a)
            join(ada, "Ada")
            ada.line("/bot greedy")
            ada.until(lambda m: m["type"] == "info" and m["key"] == "info.bot")
            ada.line("/start")
            ada.started()
            end = play_out(app, room, [ada], 2)
            rounds = [m for m in ada.seen if m["type"] == "round"]
            assert rounds and all(seat["pawns"] is not None for seat in rounds[0]["seats"])
            assert len(end["totals"]) == 2




BAD = {
    "not JSON": lambda p: p.socket.send_text("{not json"),
    "too big": lambda p: p.socket.send_text(json.dumps({"type": "line", "text": "x" * 5000})),
    "binary": lambda p: p.socket.send_bytes(b'{"type": "ping"}'),
    "wrong schema": lambda p: p.send({"type": "move"}),
    "unknown type": lambda p: p.send({"type": "shout", "text": "hi"}),
    "extra field": lambda p: p.send({"type": "ping", "x": 1}),
    "deep JSON": lambda p: p.socket.send_text("[" * 200 + "]" * 200),
    "unknown command": lambda p: p.line("/frobnicate now"),
    "for another seat": lambda p: p.send({"type": "move", "move": p.state["legal"][0],
                                          "seat": 1 - p.seat}),
    "illegal move": lambda p: p.send({"type": "move", "move": illegal(p)}),
    "unreadable move": lambda p: p.send({"type": "move", "move": "fly to the moon"}),
    "out of turn": lambda p: p.other.send({"type": "move", "move": p.state["legal"][0]}),
    "bot naming code": lambda p: p.line("/bot os:system"),
    "second start": lambda p: p.line("/start"),
    "cont too early": lambda p: p.line("/cont"),
}


def illegal(p: Player) -> str:
    hand = p.state["view"]["hand"]
    legal = set(p.state["legal"])
    for card in hand:
        for text in (f"p {card} deck", f"d {card} deck", f"p {card} y"):
            if text not in legal:
                return text
    raise AssertionError("every move is legal")


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_message_one_error_to_that_client_nothing_changes(tmp_path: Path, kind: str) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = seat_and_start(a, b)
            bob.ping(), ada.ping()
            mover, other = (ada, bob) if ada.state["legal"] else (bob, ada)
            mover.other = other  # type: ignore[attr-defined]
            hub = app.state.hub
            before = (hub.rooms[room].state.snapshot(), hub.rooms[room].info(),
                      hub.store.turns(room), hub.store.seats(room))
            sender = other if kind == "out of turn" else mover
            BAD[kind](mover)
            got = sender.ping()
            assert [m["type"] for m in got] == ["error"], got
            assert got[0]["text"] and "\n" not in got[0]["text"]
            silent = (mover if sender is other else other).ping()
            assert silent == []  # the other client heard nothing
            after = (hub.rooms[room].state.snapshot(), hub.rooms[room].info(),
                     hub.store.turns(room), hub.store.seats(room))
            assert after == before


def test_errors_in_the_clients_language(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room) as a:
            ada = Player(a)
            ada.receive(), ada.receive()
            ada.send({"type": "hello", "lang": "fr"})
            ada.until(lambda m: m["type"] == "state")
            ada.line("/frob")
            assert ada.ping()[0]["text"].startswith("commande inconnue")


def test_too_fast_is_one_error_a_message(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=Limits(rate=1, burst=5), durable=False)
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room) as a:
            ada = Player(a)
            ada.receive(), ada.receive()
            for _ in range(30):
                ada.send({"type": "line", "text": "hello"})
            got = [ada.receive() for _ in range(30)]
            errors = [m for m in got if m["type"] == "error"]
            chats = [m for m in got if m["type"] == "chat"]
            assert len(errors) + len(chats) == 30 and errors and len(chats) <= 7
            assert all(m["key"] == "error.too-fast" for m in errors)
            assert len(app.state.hub.store.chat(room, 100)) == len(chats)


def test_origin_checked(tmp_path: Path) -> None:
    app = create_app(tmp_path, durable=False)
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with pytest.raises(WebSocketDisconnect):
            with connect(client, room, origin="http://evil.example") as s:
                s.receive_text()
        with connect(client, room, origin="http://testserver") as s:
            assert json.loads(s.receive_text())["type"] == "welcome"
    app = create_app(tmp_path / "other", durable=False, allow_origins=["http://evil.example"])
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room, origin="http://evil.example") as s:
            assert json.loads(s.receive_text())["type"] == "welcome"


def test_names_and_chat_cleaned(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room) as a:
            ada = Player(a)
            ada.receive(), ada.receive()
            ada.line("/join <b>Ada</b>\x1b[31m\x07" + "z" * 100)
            ada.until(lambda m: m["type"] == "seated")
            name = ada.until(lambda m: m["type"] == "state")["room"]["seats"][0]["name"]
            assert name.startswith("<b>Ada</b>[31m") and len(name) == 24
            assert all(c.isprintable() for c in name)
            ada.line("hi\x00 there\r\n\x07" + "y" * 900)
            chat = ada.until(lambda m: m["type"] == "chat")
            assert chat["text"].startswith("hi there ") and len(chat["text"]) == 300


def test_http_api(tmp_path: Path) -> None:
    app = create_app(tmp_path, durable=False)
    with TestClient(app) as client:
        page = client.get("/")  # the web page (server/web.py)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        listed = {p["pack"]: p for p in client.get("/packs").json()["packs"]}
        board = load_pack("board-classic")
        assert listed["board-classic"] == {
            "pack": "board-classic", "kind": "builtin", "name": board.name,
            "description": board.description, "family": "board",
            "players": [board.min_players, board.max_players]}
        assert listed["duel-classic"]["family"] == "duel" and len(listed) == 10
        assert client.post("/rooms", json={"pack": "nope"}).status_code == 404
        as_json = {"content-type": "application/json"}
        assert client.post("/rooms", content=b"{", headers=as_json).status_code == 400
        assert client.post("/rooms", json={"pack": "duel-classic", "x": 1}).status_code == 400
        assert client.post("/rooms", content=b" " * 5000, headers=as_json).status_code == 413
        room = open_room(client, "duel-classic")
        assert len(room) == 8
        public = client.get(f"/rooms/{room}").json()
        assert public["room"]["status"] == "lobby" and public["view"] is None
        assert client.get("/rooms/zzzzzzzz").status_code == 404
        assert client.get("/rooms/..%2F..").status_code == 404


def test_room_survives_a_restart_exactly(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST)) as client:
        app = client.app
        room = open_room(client, "duel-classic")
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = seat_and_start(a, b)
            rng = random.Random(3)
            for turn in range(9):
                mover = ada if ada.state_at(turn)["legal"] else bob
                bob.state_at(turn)
                mover.send({"type": "move", "move": rng.choice(mover.state["legal"])})
            ada.state_at(9), bob.state_at(9)
            ada.line("a chat line")
            ada.until(lambda m: m["type"] == "chat")
            snapshot = app.state.hub.rooms[room].state.snapshot()
            views = (ada.state, bob.state)
    with TestClient(create_app(tmp_path, limits=FAST)) as client:
        app = client.app
        with connect(client, room) as a, connect(client, room) as b:
            ada2, bob2 = Player(a), Player(b)
            for new, old in ((ada2, ada), (bob2, bob)):
                new.receive(), new.receive()
                new.send({"type": "hello", "token": old.token})
                welcome = new.until(lambda m: m["type"] == "welcome")
                assert welcome["seat"] == old.seat
                new.until(lambda m: m["type"] == "state")
            ada2.ping(), bob2.ping()  # both back: each has heard the other is present
            assert app.state.hub.rooms[room].state.snapshot() == snapshot
            assert (ada2.state, bob2.state) == views
            mover = ada2 if ada2.state["legal"] else bob2
            mover.send({"type": "move", "move": mover.state["legal"][0]})
            assert ada2.state_at(10)["room"]["turns"] == 10
            # a wrong token is a spectator, told so once
            ada2.send({"type": "hello", "token": "not-a-token"})
            assert [m["type"] for m in ada2.ping()] == ["error", "welcome", "state"]
