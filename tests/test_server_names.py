"""Names in a room (issue #32): nobody passes for somebody else. ``Bob`` and ``Bоb``
(Cyrillic ``о``), ``Bob`` with U+2800 or U+3164 after it, a fullwidth ``Ｂｏｂ`` and
``*Ada*`` (the turn marker of rule text 002 and of the page) were all seated in one room.
The one rule for names (server/names.py) refuses each, with its reason in the client's
language; distinct names of any script are let in, kept and shown in NFKC."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("starlette")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_server_protocol import FAST, Player, connect, join, open_room  # noqa: E402

from lostcities.engine import BOTS, load_pack  # noqa: E402
from lostcities.i18n import Catalogue  # noqa: E402
from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.names import (MARKERS, is_invisible, name_refusal,  # noqa: E402
                                     seat_name, skeleton, turn_marker)
from lostcities.server.room import Room  # noqa: E402
from lostcities.server.store import HUMAN, SQLiteStore  # noqa: E402

#: every impersonation of the issue beside a seated ``Bob``, and a few more of each kind,
#: with the reason's key
IMPOSTORS = [
    ("B\u043eb", "error.name-look-alike"),  # Cyrillic о
    ("Bob\u2800", "error.name-invisible"),  # braille pattern blank
    ("Bob\u3164", "error.name-invisible"),  # Hangul filler
    ("\uff22\uff4f\uff42", "error.name-taken"),  # fullwidth Ｂｏｂ: Bob in NFKC
    ("*Ada*", "error.name-marker"),  # the turn marker
    ("b\u043eB", "error.name-look-alike"),  # case and script both changed
    ("\u0392\u03bfb", "error.name-look-alike"),  # Greek Β and ο
    ("BOB", "error.name-taken"),
    ("B\u200bob", "error.name-invisible"),  # zero-width space
    ("Bob\u202e", "error.name-invisible"),  # right-to-left override
    ("\u115fBob", "error.name-invisible"),  # Hangul choseong filler
    ("Bob\u1160", "error.name-invisible"),  # Hangul jungseong filler
    ("\uffa0Bob", "error.name-invisible"),  # halfwidth Hangul filler
    ("\u2800", "error.name-invisible"),  # nothing but a blank
    ("\u200b\u200d", "error.name-invisible"),  # empty once the invisible ones are gone
    ("Ada\u2217", "error.name-marker"),  # ∗, the asterisk operator
    ("\uff0aAda", "error.name-marker"),  # fullwidth ＊: * in NFKC
    ("\u25b6 Ada", "error.name-marker"),  # the terminal's marker
]
#: distinct names that must all be let in, side by side
LEGITIMATE = ["Ada", "Bob", "Zoë", "José", "李"]


@pytest.fixture(scope="module")
def client(tmp_path_factory: Any) -> Iterator[TestClient]:
    app = create_app(Path(tmp_path_factory.mktemp("names")), limits=FAST, durable=False)
    with TestClient(app) as client:
        yield client


def hello(socket: Any, lang: str = "en") -> Player:
    player = Player(socket)
    player.receive(), player.receive()  # welcome, state
    player.send({"type": "hello", "lang": lang})
    player.ping()
    return player


def seat_names(client: TestClient, room: str) -> list[str]:
    return [s["name"] for s in client.get(f"/rooms/{room}").json()["room"]["seats"]]


@pytest.mark.parametrize("name, key", IMPOSTORS)
def test_every_impersonation_is_refused_with_its_reason(client: TestClient, name: str,
                                                         key: str) -> None:
    room = open_room(client, "duel-classic")
    with connect(client, room) as a, connect(client, room) as b:
        join(Player(a), "Bob")
        impostor = hello(b)
        impostor.line(f"/join {name}")
        got = impostor.ping()
        assert [(m["type"], m.get("key")) for m in got] == [("error", key)], got
        assert "\n" not in got[0]["text"] and impostor.seat is None
        assert seat_names(client, room) == ["Bob"]
        if key == "error.name-look-alike":
            assert got[0]["text"].endswith("looks like Bob, already in this room: "
                                           "choose another")


def test_distinct_names_of_any_script_are_let_in(client: TestClient) -> None:
    room = open_room(client, "board-classic")  # four seats
    with connect(client, room) as a, connect(client, room) as b, \
            connect(client, room) as c, connect(client, room) as d:
        players = [Player(s) for s in (a, b, c, d)]
        for player, name in zip(players, LEGITIMATE):
            join(player, name)
        assert seat_names(client, room) == LEGITIMATE[:4]
        players[0].line("/leave")  # the lobby frees Ada's seat
        players[0].until(lambda m: m["type"] == "state" and m["seat"] is None)
        join_again = players[0]
        join_again.line(f"/join {LEGITIMATE[4]}")
        join_again.until(lambda m: m["type"] == "seated")
        assert seat_names(client, room) == LEGITIMATE[1:]


def test_bots_default_names_pass_and_are_numbered(client: TestClient) -> None:
    room = open_room(client, "board-classic")
    with connect(client, room) as a:
        player = Player(a)
        join(player, "Ada")
        for spec in ("greedy", "greedy", "ismcts@5"):
            player.line(f"/bot {spec}")
            player.until(lambda m: m["type"] == "info" and m["key"] == "info.bot")
        assert seat_names(client, room) == ["Ada", "greedy", "greedy 2", "ismcts@5"]
    assert all(name_refusal(bot, [], 24) is None for bot in BOTS)
    assert name_refusal("Player 1", ["Player 2", "Player 3"], 24) is None


def test_nfkc_is_what_is_stored_and_shown(client: TestClient, tmp_path: Path) -> None:
    room = open_room(client, "duel-classic")
    with connect(client, room) as a, connect(client, room) as b:
        ada = hello(a)
        ada.line("/join \ufb01ona \uff21\uff44\uff41\u00b2")  # ﬁ ligature, fullwidth, ²
        ada.until(lambda m: m["type"] == "seated")
        joined = ada.until(lambda m: m["type"] == "info" and m["key"] == "info.joined")
        assert joined["text"] == "fiona Ada2 takes seat 1"
        assert seat_names(client, room) == ["fiona Ada2"]
        stored = client.app.state.hub.store.seats(room)  # type: ignore[attr-defined]
        assert [s.name for s in stored] == ["fiona Ada2"]
        bob = hello(b)
        bob.line("/join \u2163")  # Ⅳ, the Roman numeral four: IV
        bob.until(lambda m: m["type"] == "seated")
        assert seat_names(client, room) == ["fiona Ada2", "IV"]


def test_a_french_refusal_is_said_in_french(client: TestClient) -> None:
    """Each refusal in French, without an English word of the same message's English."""
    room = open_room(client, "duel-classic")
    english = Catalogue("en")
    with connect(client, room) as a, connect(client, room) as b:
        join(Player(a), "Bob")
        impostor = hello(b, "fr")
        for name, key in IMPOSTORS:
            impostor.line(f"/join {name}")
            got = impostor.ping()
            assert [m.get("key") for m in got] == [key], got
            error = got[0]
            params = {"name": seat_name(name, 24), "other": "Bob",
                      "marker": turn_marker(seat_name(name, 24))}
            shown = set(params.values())
            words = set(re.findall(r"[\w'-]+", english(key, **params))) - shown
            said = set(re.findall(r"[\w'-]+", error["text"])) - shown
            assert said and not words & said, (key, words & said)
            assert error["text"].startswith(("le nom", "un nom"))


# --------------------------------------------------------------------------- the rule

#: names built to clash: letters and their look-alikes, case, fullwidth forms, invisible
#: and marker characters, combining marks
PIECES = st.sampled_from([
    "a", "b", "o", "B", "O", "0", "l", "I", "1", "rn", "m", "e", "é", "e\u0301", "\u043e",
    "\u0430", "\u0392", "\uff42", "\uff2f", "\u2800", "\u3164", "\u200b", "*", "\u2217",
    "\ufe0f", " ", "Zoë", "李", "\u00b2", "\ufb01", "\u25b6"])
NAMES = st.lists(PIECES, min_size=1, max_size=4).map("".join) | st.text(min_size=1,
                                                                          max_size=8)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(wanted=st.lists(NAMES, min_size=2, max_size=6))
def test_accepted_names_never_clash_and_are_shown_as_stored(tmp_path: Path,
                                                            wanted: list[str]) -> None:
    """Any names asked for in turn in one room: each one let in is NFKC, shows no
    invisible character nor the marker, clashes with no other one let in (the same but
    for case, or the same skeleton with case or without), and every message and the
    store say it exactly as it was let in."""
    store = SQLiteStore(tmp_path / "rooms.sqlite3", durable=False)
    try:
        room = Room.create(store, f"r{len(store.open_rooms()):07d}",
                           load_pack("board-classic"), "builtin:board-classic")
        for text in wanted:
            outcome = room.line(None, f"/join {text}")
            if outcome.token is None:
                assert [m["type"] for m in outcome.replies] in ([], ["error"])
                continue
            joined = outcome.events[0]["params"]["name"]
            assert joined == room.seats[-1].name == store.seats(room.id)[-1].name
            assert joined == room.info()["seats"][-1]["name"]
        names = [s.name for s in room.seats if s.kind == HUMAN]
        assert names == [s.name for s in store.seats(room.id)]
        for i, name in enumerate(names):
            assert name == unicodedata.normalize("NFKC", name) and name.strip() == name
            assert not any(is_invisible(ch) for ch in name)
            assert not any(marker in name for marker in MARKERS)
            for other in names[i + 1:]:
                assert name.casefold() != other.casefold()
                assert skeleton(name) != skeleton(other)
                assert skeleton(name.casefold()) != skeleton(other.casefold())
    finally:
        store.close()
