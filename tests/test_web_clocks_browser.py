"""Clocks and resigning in a real browser (headless Chromium driven by Playwright against a
real ``lc serve``): a rated room with a clock of 5 s a move shows both seats' clocks, the
running one counting down, and the seat that lets it run out loses the match, said on the
match's sheet; a rated Fischer room (5 min + 3 s), two turns played, photographed
(docs/img/rated-clocks.png with ``LC_UPDATE_SCREENSHOTS=1``), listed in the lobby with its
clock in words, then resigned through the Resign button and its confirmation; its replay
page says how it ended; the lobby's form opens a room with a clock."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("openskill")

import test_web_browser as web  # noqa: E402
from browser_support import BOUND_MS, Player, Server  # noqa: E402
from test_web_browser import STILL, duel_turn, keep_for_readme, open_player  # noqa: E402
from test_web_ratings_browser import become_player  # noqa: E402

#: the web page tests' fixtures: one chromium for the module, the contexts a test opens
browser, players = web.browser, web.players


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path)
    try:
        yield running
    finally:
        running.stop()


def seated_pair(browser: Any, server: Server, players: list[Player],
                clock: dict[str, Any]) -> tuple[str, Player, Player, dict[str, str],
                                                dict[str, str]]:
    """Ada and Bob made players, seated in a new rated duel-classic room with ``clock``,
    the match started: (room, ada, bob, Ada's player, Bob's player)."""
    ada = open_player(players, browser, server, "Ada")
    bob = open_player(players, browser, server, "Bob")
    ada_p, bob_p = become_player(ada, "Ada"), become_player(bob, "Bob")
    room = server.new_room("duel-classic", rated=True, clock=clock)
    for player, seat in ((ada, "0"), (bob, "1")):
        player.open_room(room)
        player.page.locator("#btn-join").click()
        player.until("document.body.dataset.seat === arg", seat)
    ada.page.locator("#btn-start").click()
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'playing'")
    return room, ada, bob, ada_p, bob_p


def test_a_rated_seat_that_runs_out_of_time_loses_and_the_page_says_so(
        browser: Any, server: Server, players: list[Player]) -> None:
    room, ada, bob, ada_p, bob_p = seated_pair(browser, server, players,
                                               {"kind": "move", "seconds": 5})
    late = server.room(room)["view"]["to_move"]
    for player in (ada, bob):  # both clocks, on both pages, beside each seat
        player.until("document.querySelectorAll('#seats .clock:not([hidden])').length === 2")
        player.until("document.querySelectorAll('#seats .clock.running').length === 1")
    page = ada.page
    running = page.locator(f'#seats .clock[data-clock-seat="{late}"]')
    assert "running" in (running.get_attribute("class") or "")
    first = float(running.get_attribute("data-ms") or "0")
    assert 0 < first <= 5000
    ada.until(f"Number(document.querySelector('#seats .clock[data-clock-seat=\"{late}\"]')"
              f".dataset.ms) < arg", first - 500)  # it counts down
    other = page.locator(f'#seats .clock[data-clock-seat="{1 - late}"]')
    assert other.get_attribute("data-ms") == "5000" and other.inner_text() == "5.0"
    ada.until(f"document.querySelector('#seats .clock[data-clock-seat=\"{late}\"]')"
              f".classList.contains('low')")  # under 10 s: low time
    # the seat to move does nothing: the server's clock ends the match, a loss
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'over'")
        player.until("document.querySelector('#match-winner').dataset.forfeit === 'time'")
    loser, winner = ("Ada", "Bob") if late == 0 else ("Bob", "Ada")
    said = ada.page.locator("#match-winner").inner_text()
    assert said.startswith(f"{loser} ran out of time.") and winner in said
    public = server.room(room)["room"]
    assert public["forfeit"] == {"seat": late, "reason": "time"}
    lost = (ada_p, bob_p)[late]["id"]
    ratings = server.get(f"/players/{lost}.json")["ratings"]
    assert [(r["family"], r["matches"]) for r in ratings] == [("duel", 1)]
    assert ratings[0]["mu"] < 25.0
    for player in (ada, bob):
        assert player.problems == []


def test_a_rated_fischer_table_shows_its_clocks_and_the_resign_button_ends_it(
        browser: Any, server: Server, players: list[Player]) -> None:
    room, ada, bob, _, _ = seated_pair(browser, server, players,
                                       {"kind": "fischer", "minutes": 5, "increment": 3})
    by_seat = {0: ada, 1: bob}
    for number in range(2):
        view = server.room(room)["view"]
        mover = by_seat[view["to_move"]]
        mover.until("document.body.dataset.phase === 'card' && "
                    "Number(document.body.dataset.turns) === arg", number)
        duel_turn(mover, view["to_move"], view, number)
        for player in (ada, bob):
            player.until_turns(number + 1)
    ada.until("document.querySelectorAll('.band-label .clock:not([hidden])').length === 2")
    shown = ada.page.locator('#seats .clock[data-clock-seat="0"]').inner_text()
    assert shown.startswith(("5:0", "4:5")), shown  # 5 min, a few seconds used, + 3 s
    ada.until(STILL)
    keep_for_readme(ada.screenshot("rated-clocks.png").name, "rated-clocks.png")
    # the lobby lists the match with its clock in words; its form opens a room with a clock
    cy = open_player(players, browser, server, "Cy")
    cy.page.goto(server.url + "/")
    listed = cy.page.locator(f'#lobby-playing li[data-room="{room}"] .tag.clock')
    listed.wait_for()
    assert listed.inner_text() == "clock: 5 min + 3 s a move"
    cy.page.wait_for_selector('select#pack option[value="duel-classic"]', state="attached")
    cy.page.select_option("#pack", "duel-classic")
    cy.page.select_option("#clock", "move:30")
    cy.page.locator("#new-room").click()
    cy.page.wait_for_url(re.compile(r"/r/[a-z2-7]{8}$"), timeout=BOUND_MS)
    opened = cy.page.url.rsplit("/r/", 1)[1]
    assert server.room(opened)["room"]["clock"] == {"kind": "move", "seconds": 30}
    cy.until("document.getElementById('status-line').textContent.includes('30 s a move')")
    # Bob resigns: the button asks first; "No" keeps the match going
    bob.page.locator("#btn-resign").click()
    bob.page.locator("#resign-ask").wait_for(state="visible")
    bob.page.locator("#btn-resign-no").click()
    bob.until("document.querySelector('#resign-ask').hidden")
    assert server.room(room)["room"]["status"] == "playing"
    bob.page.locator("#btn-resign").click()
    bob.page.locator("#btn-resign-yes").click()
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'over'")
        player.until("document.querySelector('#match-winner').dataset.forfeit === 'resign'")
    assert ada.page.locator("#match-winner").inner_text().startswith("Bob resigned.")
    assert server.room(room)["room"]["forfeit"] == {"seat": 1, "reason": "resign"}
    assert ada.page.locator("#btn-resign").is_hidden()
    for player in (ada, bob):
        assert player.problems == []
    # the replay page steps to the turn the match stopped at and says how it ended
    ada.until("!document.getElementById('match-replay').hidden")
    ada.page.goto(server.url + (ada.page.get_attribute("#match-replay", "href") or ""))
    ada.until("document.body.dataset.ready === '1'")
    ada.page.keyboard.press("End")
    ada.until("document.querySelector('#match-winner').dataset.forfeit === 'resign'")
    assert ada.page.locator("#sheet-title").inner_text() == "Bob resigned."
    assert ada.page.locator("#match-winner").inner_text().startswith("Bob resigned. ")
    assert ada.problems == []
