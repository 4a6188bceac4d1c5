"""A room the server does not have, in Chromium: the page ``/r/ID`` of no room says so in
one line; a page whose room is gone when it reconnects (the server came back without it)
takes the WebSocket's ``ROOM_GONE`` close as that same line and stops trying again."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

import test_web_browser as web
from browser_support import Player, Server
from lostcities.i18n import load_messages
from test_web_browser import SERVER_AWAY, open_player

#: the browser tests' fixtures: one chromium for the module, the contexts a test opens
browser, players = web.browser, web.players

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

NO_ROOM = load_messages("en")["web.error.no-room"]
GONE = load_messages("en")["web.conn.gone"]


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path)
    try:
        yield running
    finally:
        running.stop()


def says_no_room(player: Player) -> None:
    player.until("document.getElementById('error').textContent === arg[0] && "
                 "!document.getElementById('error').hidden && "
                 "document.getElementById('conn').dataset.state === 'gone' && "
                 "document.getElementById('conn').textContent === arg[1]", [NO_ROOM, GONE])


def test_the_page_of_no_room_says_so_in_one_line(browser: Any, own_server: Server,
                                                 players: list[Player]) -> None:
    ada = open_player(players, browser, own_server, "Ada")
    answer = ada.page.goto(f"{own_server.url}/r/aaaaaaaa")
    assert answer is not None and answer.status == 404
    says_no_room(ada)
    ada.forgive(r"status of 404")  # the browser's own line for the 404 answers
    ada.assert_clean()


def test_a_page_whose_room_is_gone_says_so_and_stops_retrying(
        browser: Any, own_server: Server, players: list[Player]) -> None:
    room = own_server.new_room("duel-classic")
    ada = open_player(players, browser, own_server, "Ada")
    ada.open_room(room)
    own_server.kill()
    ada.until("document.body.dataset.connected !== '1'")
    shutil.rmtree(own_server.data / "rooms")  # the server comes back without the room
    own_server.start()
    says_no_room(ada)
    # no more sockets: the page's state says it will not retry, and none is open
    assert ada.page.evaluate("async () => (await import('/static/state.js')).S.gone") is True
    assert ada.page.evaluate("async () => (await import('/static/state.js')).S.ws") is None
    assert ada.attr("phase") == "wait"
    ada.forgive(SERVER_AWAY)
    ada.assert_clean()
