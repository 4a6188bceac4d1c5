"""The parts of lc play --connect without a network: the view read back from its JSON form
(Observation.from_dict, every built-in pack), the live scores from a view, the room's
link, the token file, completing a typed turn from the legal list, and the room's
messages (state, turn, round, match, chat) drawn as lc play draws them."""
from __future__ import annotations

import functools
import io
import json
import os
import random
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st
from rich.console import Console

from lostcities.cli.connect import (ConnectError, MoveEntry, RoomClient, TokenFile,
                                    room_address)
from lostcities.engine import (InputError, apply, is_over, legal_moves, live_scores, load_pack,
                               new_game, observation)
from lostcities.engine.packs.loader import builtin_ids
from lostcities.engine.game.view import Observation, seen_scores
from lostcities.i18n import Catalogue

FUZZ = settings(max_examples=100, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@functools.lru_cache(maxsize=None)
def played(pack_id: str, seed: int, turns: int) -> Any:
    pack = load_pack(pack_id)
    n = min(3, pack.max_players)
    state = new_game(pack, [f"p{i}" for i in range(max(n, pack.min_players))], seed)
    rng = random.Random(seed)
    for _ in range(turns):
        if is_over(state):
            break
        state = apply(state, rng.choice(legal_moves(state)))
    return pack, state


# --------------------------------------------------------------------------- views

@pytest.mark.parametrize("pack_id", builtin_ids())
def test_every_view_reads_back_and_gives_the_live_scores(pack_id: str) -> None:
    pack = load_pack(pack_id)
    n = min(3, pack.max_players)
    state = new_game(pack, [f"p{i}" for i in range(max(n, pack.min_players))], 7)
    rng = random.Random(7)
    seen_over = False
    for turn in range(2000):
        for seat in range(state.n) if turn % 4 == 0 or is_over(state) else ():
            obs = observation(state, seat)
            data = json.loads(json.dumps(obs.to_dict(pack.cards)))  # as the network has it
            assert Observation.from_dict(data, pack) == obs
            assert seen_scores(obs, pack) == live_scores(state)
        if is_over(state):
            seen_over = True
            break
        state = apply(state, rng.choice(legal_moves(state)))
    assert seen_over
    spectator = observation(state, 0).to_dict(pack.cards)
    spectator.update(hand=None, seat=None)
    back = Observation.from_dict(spectator, pack)
    assert back.seat is None and back.hand == ()


def mutations() -> Any:
    junk = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 12, 10 ** 12),
                     st.text(max_size=12), st.lists(st.integers(-3, 60), max_size=8),
                     st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))
    return st.lists(st.tuples(st.integers(0, 10 ** 6), junk), min_size=1, max_size=4)


def paths(value: Any, at: tuple = ()) -> list[tuple]:
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(paths(v, at + (k,)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(paths(v, at + (i,)))
    return out


@pytest.mark.parametrize("pack_id", ["duel-classic", "board-classic"])
@FUZZ
@given(changes=mutations(), seed=st.integers(0, 50))
@example(changes=[(603, 10)], seed=11)  # board-classic: 10 spaces, past the pack's points
def test_a_hostile_view_is_one_input_error(pack_id: str, changes: list, seed: int) -> None:
    pack, state = played(pack_id, seed, 30)
    data = observation(state, 0).to_dict(pack.cards)
    for pick, value in changes:
        places = paths(data)
        at = places[pick % len(places)]
        if not at:
            data = value
            break
        target = data
        for step in at[:-1]:
            target = target[step]
        target[at[-1]] = value
    try:
        obs = Observation.from_dict(data, pack)
    except InputError as err:
        assert str(err).startswith("view: ") and "\n" not in str(err)
        return
    from lostcities.cli.render import table  # what it read can be drawn

    Console(file=io.StringIO(), width=100).print(table(
        obs, pack, Catalogue("en"), me=obs.seat, live=seen_scores(obs, pack), width=100))


# --------------------------------------------------------------------------- the link

@pytest.mark.parametrize("url, ws, http", [
    ("http://127.0.0.1:8000/r/abcdefgh", "ws://127.0.0.1:8000/rooms/abcdefgh/ws",
     "http://127.0.0.1:8000"),
    ("https://cards.example.org/r/abcdefgh", "wss://cards.example.org:443/rooms/abcdefgh/ws",
     "https://cards.example.org:443"),
    ("ws://h:9/rooms/abcdefgh/ws", "ws://h:9/rooms/abcdefgh/ws", "http://h:9"),
    ("wss://h/game/rooms/abcdefgh/ws", "wss://h:443/game/rooms/abcdefgh/ws",
     "https://h:443/game"),
    ("http://[::1]:8000/rooms/abcdefgh", "ws://[::1]:8000/rooms/abcdefgh/ws",
     "http://[::1]:8000"),
])
def test_the_room_links(url: str, ws: str, http: str) -> None:
    address = room_address(url)
    assert (address.ws, address.http, address.room) == (ws, http, "abcdefgh")


@FUZZ
@given(st.text(max_size=120) | st.from_regex(r"(https?|wss?)://[a-z.]{0,9}(:[0-9]{0,6})?"
                                            r"(/[a-z0-9/]{0,20})?", fullmatch=True))
def test_any_link_is_a_room_or_one_line(url: str) -> None:
    try:
        address = room_address(url)
    except ConnectError as err:
        assert str(err).startswith("--connect") and "\n" not in str(err)
        return
    assert address.ws.endswith(f"/rooms/{address.room}/ws")


# --------------------------------------------------------------------------- the token file

def test_the_token_file_is_private_whole_and_never_over_a_non_file(tmp_path: Path) -> None:
    tokens = TokenFile(tmp_path / "deep" / "room.token")
    assert tokens.read() is None
    tokens.write("abc-DEF_123")
    assert tokens.read() == "abc-DEF_123"
    assert stat.S_IMODE(tokens.path.stat().st_mode) == 0o600
    tokens.write("second")
    assert tokens.read() == "second"
    assert [p.name for p in tokens.path.parent.iterdir()] == ["room.token"]  # no temp left
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        TokenFile(fifo).write("x")
    with pytest.raises(ConnectError):
        TokenFile(fifo).check()
    with pytest.raises(ConnectError):
        TokenFile(tmp_path).check()
    big = tmp_path / "big.token"
    big.write_text("x" * 5000)
    with pytest.raises(ConnectError) as err:
        TokenFile(big).read()
    assert err.value.code == 1
    odd = tmp_path / "odd.token"
    odd.write_text("two words\n")
    with pytest.raises(ConnectError):
        TokenFile(odd).read()


# --------------------------------------------------------------------------- typing a turn

def test_a_turn_is_completed_from_the_legal_list_as_lc_play_does() -> None:
    pack, state = played("duel-classic", 3, 6)
    legal = [str(m) for m in legal_moves(state)]
    entry = MoveEntry(pack, legal)
    play = next(m for m in entry.moves if m.action == "play")
    card = pack.cards.format(play.card)
    kind, choices = entry.start("play", [card])
    assert kind == "pending" and "deck" in choices
    kind, move = entry.add(["deck"])
    assert kind == "move" and move.text() == f"p {card} deck"
    assert MoveEntry(pack, legal).start("play", [card, "pioche"])[1].text() == f"p {card} deck"
    # a pile by its colour's name, in French too
    discards = [m for m in entry.moves if m.action == "discard" and m.draw >= 0]
    if discards:
        m = discards[0]
        name = {"y": "jaune", "b": "bleu", "w": "blanc", "g": "vert", "r": "rouge"}[
            pack.cards.keys[m.draw]]
        kind, move = MoveEntry(pack, legal).start("discard", [pack.cards.format(m.card), name])
        assert kind == "move" and move == m
        said = {"b": "bleue", "w": "blanche", "g": "verte"}.get(pack.cards.keys[m.draw], name)
        kind, move = MoveEntry(pack, legal).start("discard", [pack.cards.format(m.card), said])
        assert kind == "move" and move == m  # the feminine form French uses for the pile
    assert MoveEntry(pack, legal).start("play", ["q9"])[0] == "error"
    assert MoveEntry(pack, legal).start("play", [])[0] == "error"
    assert MoveEntry(pack, legal).start("play", [card, "nowhere"])[0] == "error"
    assert MoveEntry(pack, ["junk", "p zz deck"]).moves == []


def test_a_board_turn_asks_for_the_pawn() -> None:
    pack, state = played("board-classic", 5, 0)
    legal = [str(m) for m in legal_moves(state)]
    entry = MoveEntry(pack, legal)
    play = next(m for m in entry.moves if m.action == "play")
    card = pack.cards.format(play.card)
    kind, _ = entry.start("play", [card])
    assert kind == "pending"
    kind, rest = entry.add(["deck"])
    fits = [m for m in entry.moves if m.action == "play" and m.card == play.card and m.draw == -1]
    if len(fits) > 1:
        assert kind == "pending" and "pawn=" in rest
        kind, move = entry.add([f"pawn={fits[0].pawn}"])
        if kind == "move":
            assert move.pawn == fits[0].pawn


def test_a_board_turns_pawn_is_taken_by_its_number_in_a_room() -> None:
    """The prompt's numbered choices, as in lc play: the client sends the chosen move."""
    pack, state = played("board-classic", 3, 0)
    legal = [str(m) for m in legal_moves(state)]
    c, text = client()
    c.pack, c.legal, c.seat = pack, legal, 0
    sent: list[dict] = []
    c.send = lambda message, quiet=False: sent.append(message) or True  # type: ignore
    entry = MoveEntry(pack, legal)
    play = next(m for m in entry.moves if m.action == "play" and m.pawn is not None)
    card = pack.cards.format(play.card)
    c.command(f"p {card} deck")
    assert c.prompt().startswith(f"{card}, which one? [1] pawn=0 (leader) · [2] pawn=1")
    c.command("9")
    assert "9: type a number from 1 to 2" in text.getvalue() and not sent
    c.command("2")
    assert sent == [{"type": "move", "move": f"p {card} pawn=1 deck"}]


# --------------------------------------------------------------------------- the room's messages

class Quiet:
    def send(self, text: str) -> None:
        self.sent = text

    def close(self) -> None:
        pass


def client(lang: str = "en") -> tuple[RoomClient, io.StringIO]:
    text = io.StringIO()
    console = Console(file=text, width=120, no_color=True, highlight=False, markup=False,
                      emoji=False)
    address = room_address("http://127.0.0.1:1/r/abcdefgh")
    c = RoomClient(address, Catalogue(lang), TokenFile(Path("/nonexistent/t")),
                   interactive=False, connect=lambda url: Quiet(), out=console, err=console)
    c.pack = load_pack("duel-classic")
    c.welcomes = 2  # as open() leaves it: past the hello's answer, the room's messages are its own
    return c, text


def test_a_new_sockets_spectator_welcome_and_view_are_not_shown() -> None:
    """The server welcomes a socket as a spectator before it answers the hello: the
    client keeps quiet until that answer (its second welcome), then draws its seat's view."""
    c, text = client()
    c.welcomes = 0
    state = {"type": "state", "room": {"status": "lobby", "pack": "duel-classic",
                                        "seats": [{"name": "Ann"}]}, "seat": None,
             "view": None, "legal": None}
    c.handle({"type": "welcome", "room": "abcdefgh", "pack": "duel-classic", "seat": None})
    c.handle(state)
    assert text.getvalue() == "" and c.seat is None
    c.handle({"type": "welcome", "room": "abcdefgh", "pack": "duel-classic", "seat": 0})
    c.handle({**state, "seat": 0})
    assert c.seat == 0 and "Seated: Ann" in text.getvalue()
    assert "spectator" not in text.getvalue()


def room_messages(pack_id: str) -> list[dict]:
    """The messages of a real Room (the server's own class) over a whole match."""
    pytest.importorskip("starlette")
    import tempfile

    from lostcities.server.room import Room
    from lostcities.server.store import SQLiteStore

    pack = load_pack(pack_id)
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteStore(Path(folder) / "rooms.sqlite3", durable=False)
        room = Room.create(store, "abcdefgh", pack, pack_id)
        room.line(None, "/join Ann\x1b[2J")
        room.line(None, "/join Bob")
        room.line(0, "/start")
        events = []
        rng = random.Random(1)
        while room.state is not None and not is_over(room.state):
            moves = legal_moves(room.state)
            outcome = room.move(room.state.to_move, str(rng.choice(moves)))
            events.extend(outcome.events)
        events.append(room.view_for(0))
        store.close()
    return events


@pytest.mark.parametrize("pack_id", ["duel-classic", "board-classic"])
def test_a_rooms_messages_are_drawn_as_lc_play_draws_them(pack_id: str) -> None:
    c, text = client()
    c.pack = load_pack(pack_id)
    events = room_messages(pack_id)
    c.handle(events[-1])  # the state: rows, names; then every turn, round and match
    for message in events[:-1]:
        c.handle(message)
    out = text.getvalue()
    assert "\x1b" not in out
    assert "round 1" in out.lower() or "Round 1" in out
    rounds = [m for m in events if m["type"] == "round"]
    assert rounds and all(str(seat["score"]) in out for m in rounds for seat in m["seats"])
    assert "The match is over" in out or "match" in out.lower()
    assert "/cont" in out or not any(m.get("can_continue") for m in events)
    # a seated player is told how to ask for a rematch (seat 0's state: seated)
    assert "Type /rematch for a new match with the same players" in out
    assert "cannot read" not in out


def test_a_spectator_is_not_offered_a_rematch() -> None:
    c, text = client()
    c.pack = load_pack("duel-classic")
    events = room_messages("duel-classic")
    state = events[-1]
    c.handle({**state, "seat": None, "view": {**state["view"], "seat": None, "hand": None}})
    for message in events[:-1]:
        c.handle(message)
    assert "The match is over" in text.getvalue() and "/rematch" not in text.getvalue()


def test_turns_and_chat_sent_again_after_a_reconnection_are_printed_once() -> None:
    """A socket that connects again is sent the room's last turns and chat lines again
    (the backlog): what this client printed before is not printed twice."""
    c, text = client()
    turn = {"type": "turn", "number": 4, "seat": 1, "name": "Bob", "move": "play r4 deck",
            "words": "Bob plays r4 and draws from the deck."}
    chat = {"type": "chat", "name": "Eve", "text": "hello", "number": 2}
    for message in (turn, chat, turn, chat, {**turn, "number": 3}):  # then a reconnection
        c.handle(message)
    c.handle({**turn, "number": 5, "words": "Bob discards g7 and draws from the deck."})
    out = text.getvalue()
    assert out.count("Bob plays r4") == 1 and out.count("hello") == 1
    assert "Bob discards g7" in out


def test_chat_info_and_errors_are_plain_text() -> None:
    c, text = client()
    c.handle({"type": "chat", "name": "Eve\x1b]0;x\x07", "text": "hi\x1b[31m there", "number": 1})
    c.handle({"type": "info", "key": "info.joined", "text": "Eve\u202e takes seat 1"})
    c.handle({"type": "error", "key": "error.illegal", "text": "no\x9b2J"})
    c.handle({"type": "round", "number": "x"})
    c.handle({"type": "state", "room": {"status": "playing"}, "seat": 0, "view": {"seat": 0},
              "legal": None})
    out = text.getvalue()
    assert "\x1b" not in out and "\u202e" not in out and "\x9b" not in out
    assert "<Eve]0;x> hi[31m there" in out
    assert "cannot read" in out and "the room's view" in out
