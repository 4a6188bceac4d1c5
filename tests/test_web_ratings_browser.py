"""Players and ratings in a real browser (headless Chromium driven by Playwright against a
real ``lc serve``): two browser contexts each make a player on the landing page (the key
shown once, as a link), one opens a rated room, both take a seat as their player and play
a whole match through the page; both ratings changed once, and each player's page shows
its rating, a chart of one point and the match, the names as text; the link moves a
player to another browser."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("openskill")

import test_web_browser as web  # noqa: E402
from browser_support import BOUND_MS, Player, Server  # noqa: E402
from test_web_browser import duel_turn, open_player  # noqa: E402

#: the web page tests' fixtures: one chromium for the module, the contexts a test opens
browser, players = web.browser, web.players

#: a house pack on duel-classic with one round of 9 turns or a few more (3 colours of 4
#: numbers and a wager: 15 cards, hands of 3, 9 to draw; a card taken from a discard pile
#: makes one more), so that each seat plays enough of its own turns to rate
RATED_PACK = """\
extends: duel-classic
name: Rated tiny duel
description: "House rule of the ratings' browser test: one short round."
house_rule: true
deck:
  colours:
    - {key: y, name: yellow}
    - {key: b, name: blue}
    - {key: r, name: red}
  values: {min: 2, max: 5}
  wagers: 1
hand_size: 3
match:
  rounds: 1
scoring:
  constants: {cost: 0}
"""
RATED_HAND, MOST_TURNS = 3, 30
#: a name a page must show as text
MARKUP_NAME = "<b>Bob</b>&amp;"


@pytest.fixture
def rated_server(tmp_path: Path) -> Iterator[Server]:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "rated-tiny.yaml").write_text(RATED_PACK, encoding="utf-8")
    running = Server(tmp_path, "--packs", str(packs))
    try:
        yield running
    finally:
        running.stop()


def become_player(player: Player, name: str) -> dict[str, str]:
    """Make a player on the landing page; what the page shows once: ``{"link", "key"}``,
    and what it keeps (``id``)."""
    page = player.page
    page.goto(player.server.url + "/")
    page.locator("#player-name").fill(name)
    page.locator("#new-player").click()
    page.locator("#player-once").wait_for(state="visible")
    link = page.locator("#player-link").input_value()
    key = page.locator("#player-key").input_value()
    kept = page.evaluate("() => JSON.parse(localStorage.getItem('lc-player'))")
    assert kept["key"] == key and kept["name"] == name and link.endswith(f"#player={key}")
    assert page.locator("#player-you").inner_text() == f"You play as {name}."
    return {"link": link, "key": key, "id": kept["id"]}


def test_a_rated_match_between_two_browsers_changes_both_ratings_once(
        browser: Any, rated_server: Server, players: list[Player]) -> None:
    server = rated_server
    ada = open_player(players, browser, server, "Ada")
    bob = open_player(players, browser, server, "Bob")
    ada_id = become_player(ada, "Ada")["id"]
    bob_shown = become_player(bob, MARKUP_NAME)
    bob_id = bob_shown["id"]
    # Ada opens a rated room from the landing page: rated and hints exclude each other
    page = ada.page
    page.goto(server.url + "/")
    page.wait_for_selector('select#pack option[value="rated-tiny"]', state="attached")
    page.select_option("#pack", "rated-tiny")
    page.locator("#hints").check()
    page.locator("#rated").check()
    assert not page.locator("#hints").is_checked()
    page.locator("#new-room").click()
    page.wait_for_url(re.compile(r"/r/[a-z2-7]{8}$"), timeout=BOUND_MS)
    room = page.url.rsplit("/r/", 1)[1]
    ada.wait_connected()
    bob.open_room(room)
    assert server.room(room)["room"]["rated"] is True
    for player, seat in ((ada, "0"), (bob, "1")):
        assert not player.page.locator("input#name").is_visible()  # the player's name
        player.page.locator("#btn-join").click()
        player.until("document.body.dataset.seat === arg", seat)
    seats = server.room(room)["room"]["seats"]
    assert [(s["name"], s["player"]) for s in seats] == [("Ada", ada_id), (MARKUP_NAME, bob_id)]
    ada.until("document.querySelectorAll('.seat a.name').length === 2")
    assert ada.page.locator(".seat a.name").nth(1).inner_text() == MARKUP_NAME
    assert ada.page.locator(".seat a.name b").count() == 0
    ada.page.locator("#btn-start").click()
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'playing'")
    by_seat = {0: ada, 1: bob}
    for number in range(MOST_TURNS):
        public = server.room(room)
        if public["room"]["status"] == "over":
            break
        view = public["view"]
        mover = by_seat[view["to_move"]]
        mover.until("document.body.dataset.phase === 'card' && "
                    "Number(document.body.dataset.turns) === arg", number)
        duel_turn(mover, view["to_move"], view, number, hand_size=RATED_HAND)
        for player in (ada, bob):
            player.until_turns(number + 1)
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'over'")
    # both ratings changed once
    for who in (ada_id, bob_id):
        data = server.get(f"/players/{who}.json")
        assert [(r["family"], r["matches"]) for r in data["ratings"]] == [("duel", 1)]
        assert len(data["history"]) == 1 and len(data["matches"]) == 1
        assert data["ratings"][0]["sigma"] < 25 / 3
    # each player's page shows it: its rating, a chart of one point, the match
    for player, me, other in ((ada, ada_id, MARKUP_NAME), (bob, bob_id, "Ada")):
        page = player.page
        page.goto(f"{server.url}/players/{me}")
        page.locator("#ratings tr").nth(1).wait_for()
        rating = server.get(f"/players/{me}.json")["ratings"][0]["rating"]
        assert f"{rating:.1f}" in page.locator("#ratings tr").nth(1).inner_text()
        assert page.locator("#charts svg.chart circle").count() == 1
        rows = page.locator("#matches tr")
        assert rows.count() == 2 and other in rows.nth(1).inner_text()
        assert page.locator("#matches b, #player-name b").count() == 0
        player.screenshot(f"ratings-player-{player.name}.png")
    bob_title = bob.page.locator("#player-name").inner_text()
    assert bob_title == MARKUP_NAME
    # the leaderboard lists both, the names as text
    page = ada.page
    page.goto(f"{server.url}/leaderboard?family=duel")
    page.locator("#board tr").nth(2).wait_for()
    listed = page.locator("#board td a").all_inner_texts()
    assert sorted(listed) == sorted(["Ada", MARKUP_NAME])
    assert page.locator("#board b").count() == 0
    ada.screenshot("ratings-leaderboard.png")
    # the link shown once moves Bob to another browser
    other = open_player(players, browser, server, "Bob elsewhere")
    other.page.goto(bob_shown["link"])
    other.page.locator("#player-known").wait_for(state="visible")
    moved = other.page.evaluate("() => JSON.parse(localStorage.getItem('lc-player'))")
    assert moved == {"id": bob_id, "name": MARKUP_NAME, "key": bob_shown["key"]}
    assert "#player=" not in other.page.url and other.page.locator("#player-key").is_hidden()
    for player in (ada, bob, other):
        player.assert_clean()
