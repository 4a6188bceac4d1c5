"""The whole flow in a real browser (headless Chromium against a real ``lc serve``, as
tests/test_web_browser.py): from the lobby, a quick match against a bot of a one-round
house pack (tests/server_support.TINY_PACK) played to its end through the page, then the
rematch button, and the new match starts with the seats rotated (the bot first) and is
played to its end too, with a replay of its own, whose end asks for the next rematch; two humans paired by the quick-match
queue, one of them on a phone (390x844, touch), play a whole match and ask for a rematch,
one from the match's sheet and one from the table's buttons. No console error anywhere.
Pictures of the phone go to the artefacts (with LC_UPDATE_SCREENSHOTS=1, one to docs/img).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

import test_web_browser as web
from browser_support import BOUND_MS, Player, Server, may_join_row, row_of
from server_support import TINY_PACK
from test_web_browser import (STILL, TINY_HAND, choose, duel_turn, keep_for_readme,
                              open_player)
from test_web_lobby import at_lobby

#: the browser tests' fixtures: one chromium for the module, the contexts a test opens
browser, players = web.browser, web.players

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")

#: a phone's screen, as the issue asks (CSS pixels), touch and no mouse
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture
def tiny_server(tmp_path: Path) -> Iterator[Server]:
    """A real lc serve of its own with ``--packs`` holding TINY_PACK as tiny-duel."""
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "tiny-duel.yaml").write_text(TINY_PACK, encoding="utf-8")
    running = Server(tmp_path, "--packs", str(packs))
    try:
        yield running
    finally:
        running.stop()


def room_of(player: Player) -> str:
    player.page.wait_for_url(re.compile(r"/r/[a-z2-7]{8}$"), timeout=BOUND_MS)
    player.wait_connected()
    return player.page.url.rsplit("/r/", 1)[1]


def tap_turn(player: Player, seat: int, view: dict[str, Any]) -> None:
    """One turn by taps (a phone): the card ``choose`` picks, its row or discard pile,
    then the deck."""
    hand = player.hand()
    assert len(hand) == TINY_HAND, f"{player.name}: the hand shows {hand}"
    card, play = choose(hand, view, seat)
    if play and not may_join_row(card, row_of(view, seat, card[0])):
        play = False
    player.page.locator(f'#hand .card[data-card="{card}"]').first.tap()
    player.until("!!document.querySelector(`#hand .card.selected[data-card='${arg}']`)", card)
    player.page.locator(f'[data-target="{"play" if play else "discard"}:{card[0]}"]').tap()
    player.until("document.body.dataset.phase === 'draw'")
    player.page.locator('[data-draw="deck"]').first.tap()


def play_match(server: Server, room: str, by_seat: dict[int, Player],
               shot: Any = None) -> dict[str, Any]:
    """Play the room's match to its end through the pages of ``by_seat`` (a seat missing
    there is a bot's: its turns are waited for); ``shot(number)`` is called before each
    human turn. The room as the server has it at the end."""
    for _ in range(40):
        public = server.room(room)
        info, view = public["room"], public["view"]
        if info["status"] == "over":
            return public
        number = info["turns"]
        mover = by_seat.get(view["to_move"])
        if mover is None:  # the bot's turn: it comes by itself
            for player in by_seat.values():
                player.until_turns(number + 1)
            continue
        mover.until("document.body.dataset.phase === 'card' && "
                    "Number(document.body.dataset.turns) === arg", number)
        if shot is not None:
            shot(number)
        if mover.page.evaluate("() => matchMedia('(pointer: coarse)').matches"):
            tap_turn(mover, view["to_move"], view)
        else:
            duel_turn(mover, view["to_move"], view, number, hand_size=TINY_HAND)
        for player in by_seat.values():
            player.until_turns(number + 1)
    raise AssertionError("the match did not end")


def test_lobby_quick_match_against_a_bot_to_the_end_then_a_rematch_seats_rotated(
        browser: Any, tiny_server: Server, players: list[Player]) -> None:
    server = tiny_server
    ada = open_player(players, browser, server, "Ada")
    at_lobby(ada)
    ada.page.wait_for_selector("select#quick-pack option[value='tiny-duel']", state="attached")
    ada.page.select_option("#quick-pack", "tiny-duel")
    ada.page.select_option("#strength", "easy")
    ada.page.locator("#quick-bot").click()
    room = room_of(ada)
    ada.until("document.body.dataset.seat === '0'")
    info = server.room(room)["room"]
    assert [(s["kind"], s["bot"]) for s in info["seats"]] == [("human", ""), ("bot", "greedy")]
    assert info["status"] == "playing" and info["match"] == 1
    first = play_match(server, room, {0: ada})
    ada.until("document.body.dataset.status === 'over'")
    ada.page.locator("#match-end").wait_for(state="visible")
    replay = ada.page.locator("#match-replay").get_attribute("href")
    assert replay == first["room"]["replay"] and replay.startswith("/matches/")
    button = ada.page.locator("#match-rematch-btn")
    assert button.is_visible() and button.inner_text().strip() == "Rematch"
    ada.screenshot("rematch-match-end.png")
    turns = first["room"]["turns"]
    button.click()
    # the bot agrees at once: a new match, the seats rotated, so the bot (seat 0) begins
    ada.until("document.body.dataset.status === 'playing' && "
              "document.body.dataset.seat === '1'")
    ada.page.locator("#match-end").wait_for(state="hidden")
    ada.until_turns(turns + 2)  # the rematch took a number, the bot played the first turn
    public = server.room(room)
    info = public["room"]
    me, bot = (s["name"] for s in first["room"]["seats"])
    assert [(s["kind"], s["name"]) for s in info["seats"]] == [("bot", bot), ("human", me)]
    assert info["match"] == 2 and public["view"]["totals"] == [0, 0]
    assert len(ada.hand()) == TINY_HAND
    assert ada.page.locator('.seat[data-seat="1"]').evaluate("e => e.classList.contains('me')")
    second = play_match(server, room, {1: ada})
    ada.until("document.body.dataset.status === 'over'")
    ada.page.locator("#match-end").wait_for(state="visible")
    assert second["room"]["replay"] != first["room"]["replay"]
    ada.until("document.getElementById('match-replay').getAttribute('href') === arg",
              second["room"]["replay"])
    # each match is watched again on its own page, its players in their seats then
    for said, names in ((first, [me, bot]), (second, [bot, me])):
        frames = server.get(said["room"]["replay"] + "/frames")
        assert frames["players"] == names and frames["totals"] == said["view"]["totals"]
    # the replay's end offers the player a rematch in the room, for the room's last match
    # only (the first one's room has moved on)
    for said, offered in ((first, False), (second, True)):
        ada.page.goto(server.url + said["room"]["replay"])
        ada.until("document.body.dataset.ready === '1'")
        ada.page.keyboard.press("End")
        ada.page.locator("#match-box").wait_for(state="visible")
        assert ada.page.locator("#rematch-box").is_visible() == offered
    ada.page.locator("#btn-rematch").click()
    ada.page.wait_for_url(re.compile(rf"/r/{room}$"), timeout=BOUND_MS)
    ada.wait_connected()
    ada.until("document.body.dataset.status === 'playing' && "
              "document.body.dataset.seat === '0'")  # rotated again: Ada first
    assert server.room(room)["room"]["match"] == 3
    ada.assert_clean()


def test_two_humans_paired_by_the_queue_play_and_rematch_one_on_a_phone(
        browser: Any, tiny_server: Server, players: list[Player]) -> None:
    server = tiny_server
    ada = open_player(players, browser, server, "Ada")
    bob = Player(browser, server, name="Bob", **PHONE)
    players.append(bob)
    for player in (ada, bob):
        at_lobby(player)
        player.page.wait_for_selector("select#quick-pack option[value='tiny-duel']",
                                      state="attached")
        player.page.select_option("#quick-pack", "tiny-duel")
    ada.page.locator("#quick-human").click()
    ada.until("!document.getElementById('quick-status').hidden")
    bob.page.wait_for_selector("#lobby-queue li[data-queue='tiny-duel']")
    bob.page.locator("#quick-human").tap()
    room = room_of(ada)
    assert room_of(bob) == room
    ada.until("document.body.dataset.seat === '0'")
    bob.until("document.body.dataset.seat === '1'")

    def phone_picture(number: int) -> None:
        if number == 1:  # the phone's player to move, mid-match
            bob.until(STILL)
            bob.screenshot("rematch-phone-playing.png")

    first = play_match(server, room, {0: ada, 1: bob}, phone_picture)
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'over'")
        player.page.locator("#match-end").wait_for(state="visible")
    # Ada asks from the table's buttons (the sheet closed), Bob from the sheet on his phone
    ada.page.locator("#match-end .sheet-close").click()
    ada.page.locator("#btn-rematch").click()
    ada.until("document.getElementById('btn-rematch').disabled")
    bob.until("document.getElementById('match-rematch').textContent.includes('1 of 2')")
    bob.until("document.querySelector('.seat[data-seat=\"0\"]').innerText.includes('rematch')")
    assert server.room(room)["room"]["rematch"] == [0]
    assert server.room(room)["room"]["status"] == "over"
    bob.page.locator("#round-result .sheet-close").tap()  # the round's sheet read
    bob.page.locator("#match-rematch-btn").scroll_into_view_if_needed()
    bob.until(STILL)
    # the sheet's four buttons wrap on a phone: none goes past the screen's edge
    assert bob.page.evaluate("""() => [...document.querySelectorAll('#match-end .sheet-buttons > *')]
        .filter(b => !b.hidden).every(b => b.getBoundingClientRect().right <= innerWidth)""")
    bob.screenshot("rematch-phone-match-end.png")
    keep_for_readme("rematch-phone-match-end.png", "rematch-phone.png")
    bob.page.locator("#match-rematch-btn").tap()
    ada.until("document.body.dataset.status === 'playing' && "
              "document.body.dataset.seat === '1'")
    bob.until("document.body.dataset.status === 'playing' && "
              "document.body.dataset.seat === '0'")
    info = server.room(room)["room"]
    assert [s["name"] for s in info["seats"]] == [first["room"]["seats"][1]["name"],
                                                  first["room"]["seats"][0]["name"]]
    assert info["match"] == 2 and info["rematch"] == []
    # Bob, first to wait, now sits first and plays first; the last turns start afresh
    bob.until("document.body.dataset.phase === 'card'")
    ada.until("document.body.dataset.phase === 'wait'")
    assert ada.page.locator("#turns .turn-line:not(.from-view)").count() == 0
    play_match(server, room, {0: bob, 1: ada})
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'over'")
        player.assert_clean()
