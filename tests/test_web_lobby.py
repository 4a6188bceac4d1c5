"""The lobby and the quick match in a real browser (headless Chromium against a real
``lc serve``, as tests/test_web_browser.py): play now against a bot from the landing page
and play a few turns; two pages paired by the queue land in the same room; a room opened
in one context shows in another's lobby without a reload, an unlisted one never does;
names with markup are shown as text; a picture of the lobby for the README."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

import test_web_browser as web
from browser_support import BOUND_MS, Player, Server
from test_web_browser import duel_turn, keep_for_readme, landing_room, open_player

#: the browser tests' fixtures: one chromium for the module, the contexts a test opens
browser, players = web.browser, web.players

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")


@pytest.fixture
def lobby_server(tmp_path: Path) -> Iterator[Server]:
    """A real lc serve of its own: its lobby holds this test's rooms only."""
    running = Server(tmp_path)
    try:
        yield running
    finally:
        running.stop()


def at_lobby(player: Player) -> None:
    """The landing page, its lobby's snapshot drawn; a marker that a reload would lose."""
    player.page.goto(player.server.url + "/")
    player.until("document.body.dataset.lobby === '1'")
    player.page.evaluate("() => { window.__sameLoad = true; }")


def listed(player: Player, room: str) -> str:
    return f"#lobby li[data-room='{room}']"


def test_play_now_against_a_bot_then_a_few_turns(browser: Any, lobby_server: Server,
                                                 players: list[Player]) -> None:
    ada = open_player(players, browser, lobby_server, "Ada")
    at_lobby(ada)
    ada.page.wait_for_selector("select#strength option[value='easy']", state="attached")
    ada.page.select_option("#quick-pack", "duel-classic")
    ada.page.select_option("#strength", "easy")
    ada.page.locator("#quick-bot").click()
    ada.page.wait_for_url(re.compile(r"/r/[a-z2-7]{8}$"), timeout=BOUND_MS)
    room = ada.page.url.rsplit("/r/", 1)[1]
    ada.wait_connected()
    ada.until("document.body.dataset.seat === '0'")  # seated by the token the lobby gave
    info = lobby_server.room(room)["room"]
    assert info["status"] == "playing"
    assert [(s["kind"], s["bot"]) for s in info["seats"]] == [("human", ""), ("bot", "greedy")]
    for number in range(0, 6, 2):  # Ada, the bot, Ada, the bot, Ada, the bot
        ada.until("document.body.dataset.phase === 'card' && "
                  "Number(document.body.dataset.turns) === arg", number)
        duel_turn(ada, 0, lobby_server.room(room)["view"], number)
    ada.until_turns(6)
    assert lobby_server.room(room)["room"]["turns"] >= 6
    ada.assert_clean()


def test_two_pages_paired_by_the_queue_land_in_one_room(browser: Any, lobby_server: Server,
                                                         players: list[Player]) -> None:
    ada = open_player(players, browser, lobby_server, "Ada")
    bob = open_player(players, browser, lobby_server, "Bob")
    for player in (ada, bob):
        at_lobby(player)
        player.page.select_option("#quick-pack", "duel-classic")
    ada.page.locator("#quick-human").click()
    ada.until("!document.getElementById('quick-status').hidden")
    # Bob's lobby shows someone waiting for the duel, pushed
    bob.page.wait_for_selector("#lobby-queue li[data-queue='duel-classic']")
    assert bob.page.evaluate("() => window.__sameLoad") is True
    bob.page.locator("#quick-human").click()
    for player in (ada, bob):
        player.page.wait_for_url(re.compile(r"/r/[a-z2-7]{8}$"), timeout=BOUND_MS)
        player.wait_connected()
    assert ada.page.url == bob.page.url
    ada.until("document.body.dataset.seat === '0'")
    bob.until("document.body.dataset.seat === '1'")
    room = ada.page.url.rsplit("/r/", 1)[1]
    assert lobby_server.room(room)["room"]["status"] == "playing"
    for player in (ada, bob):
        player.assert_clean()


def test_rooms_appear_without_a_reload_unlisted_ones_never(browser: Any, lobby_server: Server,
                                                           players: list[Player]) -> None:
    ada = open_player(players, browser, lobby_server, "Ada")
    bob = open_player(players, browser, lobby_server, "Bob")
    at_lobby(ada)
    # Bob opens an unlisted room from the landing page, then a listed one
    bob.page.goto(lobby_server.url + "/")
    bob.page.wait_for_selector('select#pack option[value="duel-classic"]', state="attached")
    bob.page.locator("#unlisted").check()
    bob.page.locator("#new-room").click()
    bob.page.wait_for_url(re.compile(r"/r/[a-z2-7]{8}$"), timeout=BOUND_MS)
    hidden = bob.page.url.rsplit("/r/", 1)[1]
    shown = landing_room(bob, "duel-classic")
    ada.page.wait_for_selector(listed(ada, shown))
    # the feed is in order: the unlisted room, opened first, would be there by now
    assert ada.page.locator(listed(ada, hidden)).count() == 0
    assert hidden not in ada.page.content()
    # a name with markup is shown as text
    bob.type_line("/join <b>Bo</b><img src=x>")  # 20 characters: a whole name
    bob.until("document.body.dataset.seat === '0'")
    ada.until("document.querySelector(arg)?.textContent.includes('<b>Bo</b><img src=x>')",
              listed(ada, shown))
    assert ada.page.locator("#lobby img, #lobby b").count() == 0
    assert ada.page.evaluate("() => window.__sameLoad") is True  # no reload all along
    # the filter: another pack's rooms only
    ada.page.select_option("#lobby-pack", "board-classic")
    ada.page.wait_for_selector(listed(ada, shown), state="detached")
    board = lobby_server.new_room("board-classic")
    ada.page.wait_for_selector(listed(ada, board))
    assert hidden not in ada.page.content()
    for player in (ada, bob):
        player.assert_clean()


def test_the_lobby_in_french(browser: Any, lobby_server: Server, players: list[Player]) -> None:
    room = lobby_server.new_room("board-classic")
    ada = open_player(players, browser, lobby_server, "Ada", locale="fr-FR")
    at_lobby(ada)
    ada.page.wait_for_selector(listed(ada, room))
    assert ada.page.locator("#lobby h3").first.text_content() == "Salles qui attendent des joueurs"
    row = ada.page.locator(listed(ada, room)).text_content() or ""
    assert "0/4 places" in row and "Rejoindre" in row and "personne" in row, row
    assert ada.page.locator("#strength option[value='easy']").text_content() == \
        "Facile (gourmand)"
    ada.page.select_option("#lang", "en")  # the switch draws the lobby again
    ada.until("document.querySelector(arg)?.textContent.includes('0/4 seats')",
              listed(ada, room))
    assert ada.page.locator("#strength option[value='easy']").text_content() == "Easy (greedy)"
    ada.assert_clean()


def test_a_picture_of_the_lobby(browser: Any, lobby_server: Server,
                                players: list[Player]) -> None:
    ada = open_player(players, browser, lobby_server, "Ada")
    for pack in ("duel-classic", "board-classic", "duel-classic"):
        lobby_server.new_room(pack)
    watched = lobby_server.new_room("duel-classic", hints=True)
    bob = open_player(players, browser, lobby_server, "Bob")
    bob.open_room(watched)
    bob.type_line("/join Bob")
    bob.until("document.body.dataset.seat === '0'")
    bob.type_line("/bot expert")
    bob.until("document.querySelectorAll('.seat[data-seat]').length >= 2")
    bob.type_line("/start")
    bob.until("document.body.dataset.phase === 'card'")
    at_lobby(ada)
    ada.until("document.querySelectorAll('#lobby li[data-room]').length === 4")
    ada.page.locator("#lobby-playing li[data-room]").wait_for()
    ada.page.set_viewport_size({"width": 1280, "height": 1440})
    ada.screenshot("lobby-page.png")
    keep_for_readme("lobby-page.png", "lobby.png")
    ada.assert_clean()
