"""The last turns sent again to a client that connects (``Room.turn_backlog``, as the chat's
last lines are): exactly the ``turn`` messages the clients there all along were sent,
numbered and worded as they were, in each client's language; rebuilt the same by a
restarted server (a CONT between matches takes a number and is no turn); the same bytes
to a spectator and to each seat."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402
from test_server_protocol import FAST, Player, connect, open_room, seat_and_start  # noqa: E402

from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.room import TURN_BACKLOG  # noqa: E402
from lostcities.server.store import CONT  # noqa: E402

#: a house pack whose match is one short round (2 colours of 4 numbers and a wager, hands
#: of 3) and may go on by CONT: many matches, so many CONTs, in a few dozen turns
SHORT = """\
extends: duel-classic
deck:
  colours:
    - {key: y, name: yellow}
    - {key: b, name: blue}
  values: {min: 2, max: 5}
  wagers: 1
hand_size: 3
match:
  rounds: 1
  continuation: true
"""


def play(players: list[Player], moves: int, rng: random.Random) -> None:
    """Play ``moves`` turns from where the room is: the seat to move picks one of its
    legal moves; a match over, every seat asks ``/cont`` and the room plays on."""
    turns = players[0].state["room"]["turns"]
    while moves:
        states = [p.state_at(turns) for p in players]
        if states[0]["room"]["status"] == "over":
            for player in players:
                player.line("/cont")
        else:
            mover = next(p for p, s in zip(players, states) if s["legal"])
            mover.send({"type": "move", "move": rng.choice(mover.state["legal"])})
            moves -= 1
        turns += 1
    for player in players:
        player.state_at(turns)


def said(player: Player, kind: str = "turn") -> list[dict[str, Any]]:
    """The ``kind`` messages ``player`` received, in order."""
    return [m for m in player.seen if m["type"] == kind]


def raw_turns(player: Player) -> list[str]:
    """The ``turn`` messages ``player`` received, as the bytes that came."""
    return [text for text, m in zip(player.raw, player.seen) if m["type"] == "turn"]


def newcomer(client: TestClient, room: str, lang: str = "en",
             token: str = "") -> Player:
    """A client connecting now (Accept-Language ``lang``; with ``token``: its hello takes
    that seat), read up to the answer to its first message; what came before the turns
    is checked: ``welcome``, ``state``, the chat lines."""
    with connect(client, room, **{"accept-language": lang}) as socket:
        player = Player(socket)
        if token:
            player.send({"type": "hello", "token": token})
            player.until(lambda m: m["type"] == "welcome" and m["seat"] is not None)
            player.until(lambda m: m["type"] == "state")
        else:
            player.ping()
    kinds = [m["type"] for m in player.seen]
    turns = kinds.count("turn")
    chat = kinds.count("chat")
    assert kinds[:2 + chat + turns] == ["welcome", "state"] + ["chat"] * chat + ["turn"] * turns
    return player


def back(socket: Any, token: str) -> Player:
    """A seat's player back on ``socket``: its hello with ``token`` answered."""
    player = Player(socket)
    player.send({"type": "hello", "token": token})
    player.until(lambda m: m["type"] == "welcome" and m["seat"] is not None)
    player.until(lambda m: m["type"] == "state")
    player.ping()
    return player


@pytest.mark.parametrize("played", [0, 7, TURN_BACKLOG, TURN_BACKLOG + 17])
def test_a_client_that_comes_in_late_gets_the_last_turns_as_they_were_said(
        tmp_path: Path, played: int) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room) as a, connect(client, room) as b, \
                connect(client, room, **{"accept-language": "fr"}) as w:
            ada, bob = seat_and_start(a, b)
            watcher = Player(w)  # French, there from the start
            watcher.started()
            ada.line("a chat line")
            ada.until(lambda m: m["type"] == "chat")
            play([ada, bob], played, random.Random(played))
            watcher.state_at(played)
            for heard in (ada, bob, watcher):
                assert [m["number"] for m in said(heard)] == list(range(played))
            shown = min(played, TURN_BACKLOG)
            english = newcomer(client, room)
            french = newcomer(client, room, "fr")
            assert said(english) == said(ada)[played - shown:]
            assert said(french) == said(watcher)[played - shown:]
            assert [m["text"] for m in said(english, "chat")] == ["a chat line"]
            if shown:
                assert said(english)[-1]["number"] == played - 1
                assert said(french)[0]["words"] != said(english)[0]["words"]
            # a client there when a turn is played is told of it once, as the others are
            with connect(client, room) as late:
                third = Player(late)
                third.ping()
                mover = ada if ada.state["legal"] else bob
                mover.send({"type": "move", "move": mover.state["legal"][0]})
                third.state_at(played + 1), ada.state_at(played + 1)
                assert said(third) == said(english) + said(ada)[-1:]
                assert said(third)[-1]["number"] == played


def test_a_restarted_server_sends_the_same_backlog_across_conts(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "short.yaml").write_text(SHORT, encoding="utf-8")
    data = tmp_path / "data"
    with TestClient(create_app(data, packs, limits=FAST)) as client:
        room = open_room(client, "short")
        with connect(client, room) as a, connect(client, room) as b, \
                connect(client, room, **{"accept-language": "fr"}) as w:
            ada, bob = seat_and_start(a, b)
            watcher = Player(w)
            watcher.started()
            play([ada, bob], TURN_BACKLOG + 9, random.Random(5))
            watcher.state_at(ada.state["room"]["turns"])
            live = said(ada)[-TURN_BACKLOG:]
            live_fr = said(watcher)[-TURN_BACKLOG:]
            before = newcomer(client, room)
            assert said(before) == live
        stored = client.app.state.hub.store.turns(room)
    conts = [t.number for t in stored if t.kind == CONT]
    numbers = [m["number"] for m in live]
    # CONTs took numbers among the last turns: the backlog counts turns, not numbers
    assert len([n for n in conts if numbers[0] < n < numbers[-1]]) >= 2
    assert len(live) == TURN_BACKLOG and numbers[-1] == len(stored) - 1
    assert set(numbers) == {t.number for t in stored if t.kind != CONT} & set(
        range(numbers[0], len(stored)))
    with TestClient(create_app(data, packs, limits=FAST)) as client:
        assert said(newcomer(client, room)) == live
        assert said(newcomer(client, room, "fr")) == live_fr
        # and it goes on from there as one backlog: the turns after the restart join it
        with connect(client, room) as a, connect(client, room) as b:
            ada2, bob2 = back(a, ada.token), back(b, bob.token)
            assert said(ada2) == live
            play([ada2, bob2], 2, random.Random(6))
            after = newcomer(client, room)
            assert said(after) == said(ada2)[-TURN_BACKLOG:] == live[2:] + said(ada2)[-2:]


def test_a_spectator_and_each_seat_get_the_same_public_backlog(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, limits=FAST, durable=False)) as client:
        room = open_room(client, "duel-classic")
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = seat_and_start(a, b)
            play([ada, bob], TURN_BACKLOG + 3, random.Random(11))
            sent = raw_turns(ada)[-TURN_BACKLOG:]
            assert raw_turns(bob)[-TURN_BACKLOG:] == sent  # live: the same bytes to all
            spectator = newcomer(client, room)
            seats = [newcomer(client, room, token=p.token) for p in (ada, bob)]
        assert [p.state["seat"] for p in seats] == [0, 1]
        for player in (spectator, *seats):
            assert raw_turns(player) == sent
        # nothing but the turn's public fields (the card played, the top of a pile taken)
        fields = {"type", "number", "seat", "name", "move", "action", "card", "draw", "taken",
                  "words"}
        assert all(set(m) == fields for m in said(spectator))
