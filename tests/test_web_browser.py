"""The room's web page in a real browser (issue #14): headless Chromium (Debian's
``chromium``) driven by Playwright against a real ``lc serve`` process. Two browser
contexts (two players, each its own localStorage) open a room from the landing page, join,
start and play a whole duel round with drag and drop and with clicks, one reloading the page
mid-round; a spectator never sees a hand; names and any chat line stay text; French labels
and refusals; the rules one click away; a page whose server was killed comes back by itself;
illegal targets dimmed; the board game's tracks and pawns; a whole match of a one-round
house pack (``--packs``) to its match-end panel and on through CONT, pressed by both
players. No console error or page error anywhere. Screenshots are written to
build/test-artifacts/ (or $LC_ARTIFACTS); with LC_UPDATE_SCREENSHOTS=1 the duel and board
ones are copied to docs/img/ for the README.

Only the DOM contract of the page is used (docs: the contract of issue #14): body data
attributes, ``#hand .card[data-card]``, ``[data-target]``, ``[data-draw]``, ``#chat-*``...
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import pytest

from browser_support import (BOUND, BOUND_MS, CHROMIUM_ARGS, ROOT, Player, Server,
                             WsSeat, artefacts_dir, chromium_path, may_join_row, no_browser,
                             row_of, wait_for)
from server_support import TINY_PACK
from lostcities.engine import Move, load_pack
from lostcities.i18n import Catalogue
from lostcities.entry import option_notes, said

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")

#: a whole duel-classic round is 44 draws from the deck; a few more for the pile draws
MOST_TURNS = 90
#: the turn after which one player reloads the page
RELOAD_AT = 10
#: the (click) turn whose selected card and lit targets are photographed for the README
SELECTED_AT = 31
#: every how many turns a discard pile is drawn from when one may be
PILE_EVERY = 7
#: a house pack on duel-classic whose whole match is one round of 4 turns (2 colours of
#: 4 numbers and 1 wager: 10 cards, hands of 3, 4 to draw), no expedition cost (so a
#: played number scores), continuation allowed
#: the tiny pack's hand size, and its turns in a round (the cards left to draw)
TINY_HAND, TINY_TURNS = 3, 4
#: no card travels across the table (motion.js) any more: a screenshot shows them still
STILL = "document.querySelectorAll('.flyer, .travel').length === 0"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium for the whole module (contexts keep the tests apart)."""
    executable = chromium_path()
    if executable is None:
        where = os.environ.get("LC_CHROMIUM") or "/usr/bin/chromium nor on PATH"
        no_browser(f"no chromium at {where} ($LC_CHROMIUM chooses one): "
                   "apt-get install chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        no_browser("the playwright package is not installed (the test extra lists it)")
    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS,
                                              timeout=BOUND_MS)
    except Exception:
        playwright.stop()
        raise
    try:
        yield chromium
    finally:
        chromium.close()
        playwright.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A real lc serve with its own data folder, killed at the end of the module: its tests
    each play in rooms of their own (the landing page lists no rooms), and none kills it
    (the one that does has its own: ``own_server``)."""
    running = Server(tmp_path_factory.mktemp("serve"))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Server]:
    """A real lc serve with its own data folder for one test, killed at its end."""
    running = Server(tmp_path)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def house_server(tmp_path: Path) -> Iterator[Server]:
    """A real lc serve with ``--packs`` a folder holding TINY_PACK as tiny-duel.yaml."""
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "tiny-duel.yaml").write_text(TINY_PACK, encoding="utf-8")
    running = Server(tmp_path, "--packs", str(packs))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def players(browser: Any, request: Any) -> Iterator[list[Player]]:
    """The contexts a test opens (``players.append``), closed at the end; when the test
    failed, each page is photographed first (FAILED-test-name.png in the artefacts) and
    what it logged is printed."""
    opened: list[Player] = []
    failed_before = request.session.testsfailed
    yield opened
    failed = request.session.testsfailed > failed_before
    for index, player in enumerate(opened):
        if failed:
            try:
                player.screenshot(f"FAILED-{request.node.name}-{index}.png")
                body = player.page.evaluate("() => ({...document.body.dataset})")
            except Exception as error:  # the page may be gone: say so and go on
                body = f"gone ({error})"
            print(f"{player.name}: body {body}; logged {player.problems}")
        player.close()


def open_player(players: list[Player], browser: Any, server: Server, name: str,
                locale: str = "en-GB") -> Player:
    player = Player(browser, server, locale=locale, name=name)
    players.append(player)
    return player


# ------------------------------------------------------------------ playing through the page

def select(player: Player, card: str, key: str = "") -> None:
    """Click ``card`` in the hand (or focus it and press ``key``: Enter, Space) and wait
    until it is the selected one."""
    element = player.page.locator(f'#hand .card[data-card="{card}"]').first
    if key:
        element.focus()
        element.press(key)
    else:
        element.click()
    player.until("!!document.querySelector(`#hand .card.selected[data-card='${arg}']`)", card)


def cheapest_first(hand: list[str]) -> list[str]:
    """The hand from the lowest card up (wagers first): a plain but honest way to play."""
    return sorted(hand, key=lambda c: (0 if c[1:] == "x" else int(c[1:]), c))


def choose(hand: list[str], view: dict[str, Any], seat: int) -> tuple[str, bool]:
    """A plain but honest duel turn: the lowest card that goes onto an expedition already
    started; else the lowest card of a colour held three times or more, opening its row;
    else a discard, the lowest card of a colour not started. ``(card, play?)``."""
    started = {c[0] for row in view["rows"][seat] for c in row[:1]}
    ordered = cheapest_first(hand)
    for card in ordered:
        if card[0] in started and may_join_row(card, row_of(view, seat, card[0])):
            return card, True
    for card in ordered:
        if card[0] not in started and sum(c[0] == card[0] for c in hand) >= 3:
            return card, True
    spare = [c for c in ordered if c[0] not in started] or ordered
    return spare[0], False


def duel_turn(player: Player, seat: int, view: dict[str, Any], number: int,
              shot: str = "", hand_size: int = 8, plan: Any = None) -> str:
    """Play one duel-classic turn through the page of the player to move (``choose``):
    by drag and drop on even turns, on odd ones by selecting the card (a click, or the
    keyboard: Enter, Space) then clicking the target (checking then that exactly the
    legal targets are lit); then a click on the deck, or every PILE_EVERY
    turns on a discard pile that may be drawn. ``shot``: a screenshot's name, taken with
    the card selected (on a click turn); ``hand_size``: the pack's; ``plan``: how the card
    is chosen, ``choose`` unless given. The move, as the test meant it."""
    hand = player.hand()
    assert len(hand) == hand_size, f"turn {number}: the hand shows {hand}"
    card, play = (plan or choose)(hand, view, seat)
    colour = card[0]
    target = f"play:{colour}" if play else f"discard:{colour}"
    may_play = may_join_row(card, row_of(view, seat, colour))
    if number % 2 == 0:
        player.page.locator(f'#hand .card[data-card="{card}"]').first.drag_to(
            player.page.locator(f'[data-target="{target}"]'))
    else:
        select(player, card, {1: "", 3: "Enter", 5: "Space"}[number % 6])
        live = set(player.live("[data-target]", "data-target"))
        expected = {f"discard:{colour}"} | ({f"play:{colour}"} if may_play else set())
        assert live == expected, f"turn {number}: {card} lights {sorted(live)}"
        if shot:
            player.until(STILL)
            player.screenshot(shot)
        player.page.locator(f'[data-target="{target}"]').click()
    player.until("document.body.dataset.phase === 'draw'")
    draws = player.live("[data-draw]", "data-draw")
    assert "deck" in draws, f"turn {number}: the deck is dimmed ({draws})"
    piles = [d for d in draws if d != "deck"]
    if target.startswith("discard"):
        assert colour not in piles, f"turn {number}: the pile just discarded on is lit"
    draw = piles[0] if piles and number % PILE_EVERY == PILE_EVERY - 1 else "deck"
    player.page.locator(f'[data-draw="{draw}"]').first.click()
    return f"{target[0]} {card} {draw}"


def seat_0_wins(hand: list[str], view: dict[str, Any], seat: int) -> tuple[str, bool]:
    """A plan whose winner is known (with no expedition cost): seat 0 plays the lowest
    number that may join its row (there is one in any hand of 3 of TINY_PACK: it has 2
    wagers), every other seat discards its lowest card."""
    ordered = cheapest_first(hand)
    if seat == 0:
        for card in ordered:
            if card[1:] != "x" and may_join_row(card, row_of(view, seat, card[0])):
                return card, True
    return ordered[0], False


def numbers(cards: list[str]) -> set[str]:
    """The number cards among ``cards``: each is one of a kind (a wager has twins, one may
    be in a hand and another on the table)."""
    return {c for c in cards if c[1:] != "x"}


def landing_room(player: Player, pack: str, shot: str = "") -> str:
    """Open a room of ``pack`` from the landing page (#pack, #new-room), photographed as
    ``shot`` when given; the room's id."""
    page = player.page
    page.goto(player.server.url + "/")
    page.wait_for_selector(f'select#pack option[value="{pack}"]', state="attached")
    page.select_option("#pack", pack)
    if shot:
        player.screenshot(shot)
    page.locator("#new-room").click()
    page.wait_for_url(re.compile(r"/r/[A-Za-z0-9]+$"), timeout=BOUND_MS)
    player.wait_connected()
    return page.url.rsplit("/r/", 1)[1]


def keep_for_readme(shot: str, name: str) -> None:
    """With ``LC_UPDATE_SCREENSHOTS=1``, copy the artefact ``shot`` to docs/img/NAME (the
    README's pictures); a plain test run leaves the working tree alone."""
    if os.environ.get("LC_UPDATE_SCREENSHOTS") == "1":
        (ROOT / "docs" / "img").mkdir(exist_ok=True)
        shutil.copyfile(artefacts_dir() / shot, ROOT / "docs" / "img" / name)


def texts_of(player: Player, selector: str) -> str:
    return " ".join(player.page.locator(selector).all_inner_texts())


def scores_shown(text: str, score: int) -> bool:
    """Whether ``score`` is written in ``text`` (a minus sign may be typographic)."""
    text = text.replace("\u2212", "-")
    return re.search(rf"(?<![\d-]){re.escape(str(score))}(?!\d)", text) is not None


# ------------------------------------------------------------------ the tests

def test_two_players_play_a_duel_round_with_drag_clicks_and_a_reload(
        browser: Any, server: Server, players: list[Player]) -> None:
    ada = open_player(players, browser, server, "Ada")
    bob = open_player(players, browser, server, "Bob")
    room = landing_room(ada, "duel-classic", "landing.png")
    bob.open_room(room)
    if ada.page.locator("input#name").count():  # the page's name box, when it has one
        ada.page.locator("input#name").fill("Ada")
    ada.page.locator("#btn-join").click()
    ada.until("document.body.dataset.seat === '0'")
    bob.type_line("/join Bob")
    bob.until("document.body.dataset.seat === '1'")
    for player in (ada, bob):
        player.until("document.querySelectorAll('.seat[data-seat]').length >= 2")
    ada.screenshot("lobby.png")
    ada.page.locator("#btn-start").click()
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'playing'")
    by_seat = {0: ada, 1: bob}
    number = 0
    while True:
        info = server.room(room)
        view = info["view"]
        if view["round_scores"] or view["round"] > 1:
            break
        assert number < MOST_TURNS, "the round did not end"
        assert info["room"]["turns"] == number
        mover = by_seat[view["to_move"]]
        other = by_seat[1 - view["to_move"]]
        mover.until("document.body.dataset.phase === 'card' && "
                    "Number(document.body.dataset.turns) === arg", number)
        other.until("document.body.dataset.phase === 'wait'")
        assert mover.page.locator(f'.seat[data-seat="{view["to_move"]}"]').evaluate(
            "e => e.classList.contains('to-move')")
        if number % 5 == 0:  # the table as the server has it; nobody sees the other's hand
            name = view["players"][view["to_move"]]
            for player in (ada, bob):
                page = player.page
                assert page.locator("#deck-count").inner_text().strip() == \
                    str(view["draw_pile"]), f"{player.name}: the deck count"
                assert f"*{name}*" in page.locator(".seat.to-move").inner_text()
                assert page.locator(".seat[data-seat] .score").count() == 2
            for me, them in ((ada, bob), (bob, ada)):
                shown = me.page.locator("[data-card]").evaluate_all(
                    "els => els.map(e => e.dataset.card)")
                leaked = numbers(them.hand()) & set(shown)
                assert not leaked, f"{me.name}'s page shows {them.name}'s cards {leaked}"
        move = duel_turn(mover, view["to_move"], view, number,
                         "selected.png" if number == SELECTED_AT else "")
        number += 1
        for player in (ada, bob):
            player.until_turns(number)
            player.until("document.querySelector('#turns').innerText.includes(arg)",
                         move.split()[1])  # the last turns, in words
        if number == RELOAD_AT:
            ada.screenshot("mid-round.png")
            before = bob.hand()
            bob.page.reload()
            bob.wait_connected()
            bob.until("document.body.dataset.seat === '1' && "
                      "Number(document.body.dataset.turns) >= arg", number)
            assert sorted(bob.hand()) == sorted(before), "the reload lost the hand"
            assert bob.page.evaluate("(room) => !!localStorage.getItem('lc-token-' + room)",
                                     room)
    assert number >= 44, f"a duel-classic round is at least 44 turns, it took {number}"
    scores = view["round_scores"][0]
    names = view["players"]
    for player in (ada, bob):
        result = player.page.locator("#round-result")
        result.wait_for(state="visible")
        text = result.inner_text()
        for name, score in zip(names, scores):
            assert name in text, f"{player.name}: #round-result has no {name}: {text!r}"
            assert scores_shown(text, score), \
                f"{player.name}: #round-result has not {name}'s {score}: {text!r}"
    totals_shown = ada.page.locator("#round-result").inner_text()
    for total in view["totals"]:
        assert scores_shown(totals_shown, total), f"#round-result lacks the total {total}"
    ada.screenshot("round-result.png")
    for player in (ada, bob):
        player.assert_clean()
    keep_for_readme("selected.png", "table-duel.png")


def test_a_spectator_sees_no_hand(browser: Any, server: Server,
                                  players: list[Player]) -> None:
    room = server.new_room("duel-classic")
    ada, bob = WsSeat(server, room, "Ada"), WsSeat(server, room, "Bob")
    try:
        watcher = open_player(players, browser, server, "Watcher")
        watcher.open_room(room)
        ada.send({"type": "line", "text": "/start"})
        for number in range(6):
            states = [s.at(number) for s in (ada, bob)]
            mover = next(s for s, st in zip((ada, bob), states) if st["legal"])
            mover.send({"type": "move", "move": mover.state["legal"][number % 3]})
            watcher.until_turns(number + 1)
            for seat in (ada, bob):
                seat.at(number + 1)
            assert watcher.attr("seat") == ""
            assert watcher.attr("phase") == "wait"
            assert watcher.hand() == [], "a spectator's page shows a hand"
            shown = set(watcher.page.locator("[data-card]").evaluate_all(
                "els => els.map(e => e.dataset.card)"))
            html = watcher.page.content()
            for seat in (ada, bob):
                hand = numbers(seat.hand())
                assert not hand & shown, f"the spectator sees {hand & shown}"
                for card in hand:
                    assert f'data-card="{card}"' not in html
        watcher.assert_clean()
    finally:
        ada.close()
        bob.close()


def test_a_page_that_only_watches_pings_and_stays_connected(
        browser: Any, tmp_path: Path, players: list[Player]) -> None:
    """A spectator's page sends the ``ping`` its ``welcome`` asks for (a third of the
    server's ``idle_seconds``), so watching without a word never gets it closed as an idle
    socket: a plain socket that never pings, opened after the page, is closed first."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    server = Server(tmp_path, "--limit", "idle_seconds=3")
    try:
        room = server.new_room("duel-classic")
        watcher = open_player(players, browser, server, "Watcher")
        watcher.open_room(room)
        watcher.page.evaluate("""() => {
          window.__connStates = [];
          new MutationObserver(() => window.__connStates.push(
            document.getElementById("conn").dataset.state)).observe(
            document.getElementById("conn"), {attributes: true});
        }""")
        with connect(f"ws://127.0.0.1:{server.port}/rooms/{room}/ws",
                     open_timeout=BOUND) as silent:
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    silent.recv(timeout=BOUND)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1000
        assert watcher.page.evaluate("() => window.__connStates") == []
        assert watcher.attr("connected") == "1"
        watcher.assert_clean()
    finally:
        server.stop()


HOSTILE_NAME = "<img src=x onerror=f()>"
HOSTILE_TEXT = ("<script>window.__pwned = 1</script>"
                "<img src=x onerror=\"window.__pwned = 2\"><b id=injected>bold</b>")


def test_names_and_chat_are_shown_as_text(browser: Any, server: Server,
                                          players: list[Player]) -> None:
    room = server.new_room("duel-classic")
    mallory = open_player(players, browser, server, HOSTILE_NAME)
    reader = open_player(players, browser, server, "Reader")
    for player in (mallory, reader):
        player.open_room(room)
        player.page.evaluate("() => { window.f = () => { window.__pwned = 3; }; }")
    mallory.type_line(f"/join {HOSTILE_NAME}")
    mallory.until("document.body.dataset.seat === '0'")
    mallory.type_line(HOSTILE_TEXT)
    for player in (mallory, reader):
        player.until("[...document.querySelectorAll('#chat-log .chat-line')]"
                     ".some(e => e.textContent.includes(arg))", HOSTILE_TEXT)
        player.until("[...document.querySelectorAll('.seat')]"
                     ".some(e => e.textContent.includes(arg))", HOSTILE_NAME)
        injected = player.page.evaluate(
            "() => ({pwned: window.__pwned === undefined ? null : window.__pwned,"
            " tags: document.querySelectorAll('#chat-log script, #chat-log img, [onerror],"
            " .seat img, #injected').length})")
        assert injected == {"pwned": None, "tags": 0}, f"{player.name}: {injected}"
        line = player.page.locator("#chat-log .chat-line", has_text="window.__pwned = 1")
        assert HOSTILE_NAME in line.last.inner_text() or \
            HOSTILE_NAME in texts_of(player, "#chat-log")
    mallory.assert_clean()
    reader.assert_clean()


#: pieces of chat lines: markup, quotes, template and entity syntax, accents, CJK, emoji
CHAT_PIECES = ["<script>window.__pwned = 4</script>", "<img src=x onerror=f()>", "</div>",
               "<b>", "&amp;", "&lt;", "\"", "'", "`${f()}`", "{{x}}", "javascript:f()",
               "é", "ü€", "日本", "\U0001F642", "a", "Zz", "42", " ", "=", ";"]


def test_any_chat_line_is_shown_as_typed(browser: Any, server: Server,
                                         players: list[Player]) -> None:
    from hypothesis import HealthCheck, given, settings, strategies as st
    room = server.new_room("duel-classic")
    writer = open_player(players, browser, server, "Writer")
    writer.open_room(room)
    writer.page.evaluate("() => { window.f = () => { window.__pwned = 5; }; }")

    @settings(max_examples=15, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(st.sampled_from(CHAT_PIECES), min_size=1, max_size=12))
    def typed(pieces: list[str]) -> None:
        text = "".join(pieces).strip()
        if not text or text.startswith("/"):
            return
        writer.type_line(text)
        writer.until("[...document.querySelectorAll('#chat-log .chat-line')]"
                     ".some(e => e.textContent.includes(arg))", text)
        assert writer.page.evaluate(
            "() => [window.__pwned === undefined, document.querySelectorAll("
            "'#chat-log script, #chat-log img, #chat-log [onerror]').length]"
        ) == [True, 0], text

    typed()
    writer.assert_clean()


def test_french_labels_and_refusals(browser: Any, server: Server,
                                    players: list[Player]) -> None:
    from lostcities.i18n import load_messages
    french = load_messages("fr")
    english = load_messages("en")
    room = server.new_room("duel-classic")
    marie = open_player(players, browser, server, "Marie", locale="fr-FR")
    john = open_player(players, browser, server, "John", locale="en-GB")
    marie.open_room(room)
    john.open_room(room)
    assert marie.page.locator("select#lang").input_value() == "fr"
    assert john.page.locator("select#lang").input_value() == "en"
    fr_join = marie.page.locator("#btn-join").inner_text().strip()
    en_join = john.page.locator("#btn-join").inner_text().strip()
    assert fr_join and fr_join != en_join, (fr_join, en_join)
    assert fr_join in {v.strip() for v in french.values()}, fr_join
    assert en_join in {v.strip() for v in english.values()}, en_join
    marie.type_line("/start")  # not seated: refused, in French
    marie.until("(document.querySelector('#error').textContent || '').includes(arg)",
                french["error.not-seated"])
    marie.screenshot("french-refusal.png")
    john.page.select_option("select#lang", "fr")  # the switch re-renders every label
    john.until("document.querySelector('#btn-join').innerText.trim() === arg", fr_join)
    john.type_line("/start")
    john.until("(document.querySelector('#error').textContent || '').includes(arg)",
               french["error.not-seated"])
    john.page.reload()  # the choice is kept
    john.wait_connected()
    assert john.page.locator("select#lang").input_value() == "fr"
    marie.assert_clean()
    john.assert_clean()


COUNT_CARDS = ("(cards) => cards.map(c => document.body.innerText.split(c).length - 1)"
               ".reduce((a, b) => a + b, 0)")


def test_a_room_with_hints_gives_one(browser: Any, server: Server,
                                     players: list[Player]) -> None:
    ada = open_player(players, browser, server, "Ada")
    page = ada.page
    page.goto(server.url + "/")
    page.wait_for_selector('select#pack option[value="duel-classic"]', state="attached")
    page.select_option("#pack", "duel-classic")
    page.locator("input#hints").check()
    page.locator("#new-room").click()
    page.wait_for_url(re.compile(r"/r/[A-Za-z0-9]+$"), timeout=BOUND_MS)
    room = page.url.rsplit("/r/", 1)[1]
    assert server.room(room)["room"].get("hints") is True
    ada.wait_connected()
    ada.type_line("/join Ada")
    ada.until("document.body.dataset.seat === '0'")
    page.locator("#btn-bot").click()
    ada.until("document.querySelectorAll('.seat[data-seat]').length >= 2")
    page.locator("#btn-start").click()
    ada.until("document.body.dataset.phase === 'card'")
    hint = page.locator("#btn-hint")
    hint.wait_for(state="visible")
    hand = sorted(set(ada.hand()))
    before = page.evaluate(COUNT_CARDS, hand)
    hint.click()  # the words name one of my cards: one more mention of it on the page
    ada.until(f"({COUNT_CARDS})(arg.hand) > arg.before", {"hand": hand, "before": before})
    assert not page.locator("#error").inner_text().strip()
    ada.assert_clean()


def test_the_rules_are_one_click_away(browser: Any, server: Server,
                                     players: list[Player]) -> None:
    room = server.new_room("duel-classic")
    marie = open_player(players, browser, server, "Marie", locale="fr-FR")
    marie.open_room(room)
    with marie.context.expect_page(timeout=BOUND_MS) as opened:
        marie.page.locator("#btn-rules").click()
    rules = opened.value
    rules.wait_for_load_state()
    assert f"/rooms/{room}/rules" in rules.url and "lang=fr" in rules.url, rules.url
    text = rules.locator("body").inner_text()
    assert len(text) > 500, text  # the rulebook written out from the pack, in French
    assert "manche" in text.lower(), text[:300]
    marie.assert_clean()


#: what Chromium itself logs while the server is away (not the page's code): the socket
#: that cannot connect, a request cut off by the kill (a network error, not an HTTP status)
SERVER_AWAY = (r"^console\.error: (WebSocket connection to '[^']*/ws' failed"
               r"|Failed to load resource: net::ERR_)")


#: records in window.__seen the page's connection, seat, phase and hand size at each change
WATCH_PAGE = """() => {
  window.__seen = [];
  const note = () => {
    const d = document.body.dataset;
    window.__seen.push({ connected: d.connected, seat: d.seat, phase: d.phase,
      hand: document.querySelectorAll('#hand .card[data-card]').length });
  };
  const watch = new MutationObserver(note);
  watch.observe(document.body, { attributes: true });
  watch.observe(document.getElementById('hand'), { childList: true });
}"""


def never_stale(player: Player, seat: str = "0", hand: int = 8) -> None:
    """Every moment :data:`WATCH_PAGE` saw: an outage among them; connected, the page was
    never stale nor empty (its ``seat`` to play a card, ``hand`` cards); away, the old
    table was shown, but nothing could be played on it."""
    seen = player.page.evaluate("() => window.__seen")
    assert any(s["connected"] != "1" for s in seen), "the outage was not seen"
    for moment in seen:
        if moment["connected"] == "1":
            assert (moment["seat"], moment["phase"], moment["hand"]) == (seat, "card", hand), \
                f"the page showed {moment} while connected"
        else:
            assert moment["phase"] == "wait", f"the page showed {moment} while offline"


def ada_against_a_bot(browser: Any, server: Server, players: list[Player],
                      rewrite: Optional[Callable[[str], str]] = None
                      ) -> tuple[str, Player, list[str]]:
    """A duel-classic room where Ada (typing the commands) plays the greedy bot, every
    message from the server passed through ``rewrite`` on its way to her page when one is
    given; the room, Ada, and the URLs her page asks for (filled as it goes)."""
    room = server.new_room("duel-classic")
    ada = open_player(players, browser, server, "Ada")

    def route(ws: Any) -> None:
        real = ws.connect_to_server()
        real.on_message(lambda message: ws.send(rewrite(message)))
        ws.on_message(real.send)

    if rewrite is not None:
        ada.page.route_web_socket(re.compile(r"/rooms/[a-z2-7]+/ws$"), route)
    asked: list[str] = []
    ada.page.on("request", lambda request: asked.append(request.url))
    ada.open_room(room)
    ada.type_line("/join Ada")
    ada.until("document.body.dataset.seat === '0'")
    ada.type_line("/bot")
    ada.until("document.querySelectorAll('.seat[data-seat]').length >= 2")
    ada.type_line("/start")
    return room, ada, asked


def test_the_page_comes_back_after_the_server_is_killed(browser: Any, own_server: Server,
                                                         players: list[Player]) -> None:
    server = own_server  # killed and started again: not the module's
    room, ada, _ = ada_against_a_bot(browser, server, players)
    for number in range(0, 4, 2):  # Ada, the bot, Ada, the bot
        ada.until("document.body.dataset.phase === 'card' && "
                  "Number(document.body.dataset.turns) === arg", number)
        duel_turn(ada, 0, server.room(room)["view"], number)
    ada.until("document.body.dataset.phase === 'card'")
    hand = sorted(ada.hand())
    turns = ada.turns()
    # every change of the body's attributes or of the hand from now on, as the page had it
    ada.page.evaluate(WATCH_PAGE)
    server.kill()
    ada.until("document.body.dataset.connected !== '1'")
    assert ada.attr("phase") == "wait", "the page offers a move while offline"
    server.start()  # the same port and data folder: the room is rebuilt from its turns
    ada.wait_connected()
    # at once, with no barrier: connected means the server answered the page's hello
    assert (ada.attr("seat"), ada.attr("phase")) == ("0", "card")
    never_stale(ada)
    ada.forgive(SERVER_AWAY)
    assert ada.turns() == turns and sorted(ada.hand()) == hand
    duel_turn(ada, 0, server.room(room)["view"], turns)
    ada.until_turns(turns + 1)
    ada.assert_clean()


def test_illegal_targets_are_dimmed(browser: Any, server: Server,
                                    players: list[Player]) -> None:
    room = server.new_room("duel-classic")
    ada = open_player(players, browser, server, "Ada")
    ada.open_room(room)
    ada.type_line("/join Ada")
    ada.until("document.body.dataset.seat === '0'")
    ada.page.locator("#btn-bot").click()
    ada.until("document.querySelectorAll('.seat[data-seat]').length >= 2")
    ada.page.locator("#btn-start").click()
    high = None
    for _ in range(12):
        ada.until("document.body.dataset.phase === 'card'")
        view = server.room(room)["view"]
        hand = ada.hand()
        if high is not None:
            row = row_of(view, 0, high[0])
            lower = [c for c in hand if c[0] == high[0] and not may_join_row(c, row)]
            if lower:
                select(ada, lower[0])
                dim = ada.page.locator(f'[data-target="play:{high[0]}"]')
                assert "dim" in (dim.get_attribute("class") or "").split()
                assert ada.live("[data-target]", "data-target") == [f"discard:{high[0]}"]
                break
        # play the highest number of a colour with a lower card beside it, else discard
        numbers = [c for c in hand if c[1:] != "x"]
        pairs = [c for c in numbers if any(o != c and o[0] == c[0] and
                                           (o[1:] == "x" or int(o[1:]) < int(c[1:]))
                                           for o in hand)]
        card = max(pairs, key=lambda c: int(c[1:])) if pairs and high is None else None
        if card is not None and may_join_row(card, row_of(view, 0, card[0])):
            high = card
            target = f"play:{card[0]}"
        else:
            card = cheapest_first([c for c in hand if high is None or c[0] != high[0]]
                                  or hand)[0]
            target = f"discard:{card[0]}"
        select(ada, card)
        ada.page.locator(f'[data-target="{target}"]').click()
        ada.until("document.body.dataset.phase === 'draw'")
        ada.page.locator('[data-draw="deck"]').click()
        ada.until("document.body.dataset.phase !== 'draw'")
    else:
        pytest.fail(f"no card lower than {high} came in 12 turns")
    ada.assert_clean()


#: the chooser of the moves left (a pawn, a step) is shown
CHOICE_SHOWN = ("!!document.querySelector('#choice') && !document.querySelector('#choice').hidden"
                " && !!document.querySelector('#choice [data-choice]')")
#: the page waits for my draw (arg: not drawn yet), my choice, or the other players
CHOOSING = (f"(arg) => ({CHOICE_SHOWN}) || Number(document.body.dataset.turns) > arg.turns"
            " || (document.body.dataset.phase === 'draw' && !arg.drawn)")


def say_choices_as_lc_play(page: Any, pack: Any) -> int:
    """The choice buttons shown say each answer of the decision asked (a pawn, an advance:
    ``data-choice``, ``pawn=0``, ``step=b``) in the words lc play and the turn log use
    (:func:`lostcities.entry.option_notes`, the same catalogue keys): the count
    compared."""
    cat = Catalogue("en")
    card = page.locator("#hand .card.selected").get_attribute("data-card")
    shown = page.evaluate("() => [...document.querySelectorAll('#choice [data-choice]')]"
                          ".map(b => [b.dataset.choice, b.textContent])")
    for decision, words in shown:
        move = Move.parse(" ".join(filter(None, ["p", card, decision, "deck"])), pack)
        assert words == (said(option_notes(pack, move), cat) or cat("web.choice.plain")), \
            decision
    return len(shown)


def test_a_board_game_shows_tracks_and_pawns(browser: Any, server: Server,
                                             players: list[Player]) -> None:
    ada = open_player(players, browser, server, "Ada")
    room = landing_room(ada, "board-classic")
    ada.type_line("/join Ada")
    ada.until("document.body.dataset.seat === '0'")
    ada.type_line("/bot")
    ada.until("document.querySelectorAll('.seat[data-seat]').length >= 2")
    ada.page.locator("#btn-start").click()
    ada.until("document.body.dataset.status === 'playing'")
    page = ada.page
    pack = load_pack("board-classic")
    choices = 0
    for number in range(6):
        ada.until("document.body.dataset.phase === 'card'")
        turns = ada.turns()
        card = sorted(ada.hand(), key=lambda c: int(c[1:]) if c[1:].isdigit() else 0)[0]
        select(ada, card)
        live = ada.live("[data-target]", "data-target")
        assert live, f"{card}: every target dimmed"
        play = f"play:{card[0]}"
        target = play if play in live else live[0]
        page.locator(f'[data-target="{target}"]').click()
        drawn = False
        while True:  # the draw, then a pawn or step chooser when the moves left differ
            page.wait_for_function(CHOOSING, arg={"drawn": drawn, "turns": turns},
                                   timeout=BOUND_MS)
            if ada.turns() > turns:
                break
            if page.evaluate(f"() => ({CHOICE_SHOWN})"):
                choices += say_choices_as_lc_play(page, pack)
                page.locator("#choice [data-choice]").first.click()
            elif ada.attr("phase") == "draw" and not drawn:
                page.locator('[data-draw="deck"]').click()
                drawn = True
            else:
                break
        ada.until_turns(2 * number + 1)
    assert choices, "no turn of six asked which pawn to send"
    board = page.locator("#board")
    board.wait_for(state="visible")
    tracks = page.locator("#board .track[data-track]")
    assert tracks.count() == 5
    view = server.room(room)["view"]
    engaged = [p for seat in view["board"]["pawns"] for p in seat if p["track"] is not None]
    assert engaged, "no pawn left its start in six turns"
    wait_for(lambda: page.locator("#board .pawn[data-seat]").count() >= len(engaged),
             "the engaged pawns on the board")
    leaders = [p for p in engaged if p["leader"]]
    if leaders:
        assert page.locator('#board .pawn[data-leader="1"]').count() >= 1
    if view["board"]["tiles"]:
        assert page.locator("#board .tile").count() >= 1, "the board shows no tile"
    crossings = re.findall(r"\d+", page.locator("#crossings").inner_text())
    assert crossings and int(crossings[0]) == view["board"]["crossings"], crossings
    board.scroll_into_view_if_needed()
    page.evaluate("() => window.scrollTo(0, 0)")
    ada.until(STILL)
    ada.screenshot("board.png")
    ada.assert_clean()
    keep_for_readme("board.png", "table-board.png")


def with_live(message: str, shown: dict[str, Any]) -> str:
    """A server's message on its way to the page: a ``state`` whose view has no running
    scores (``live``, an older server) is given marker ones that only this route could
    have made (1000 + 10 x turns + seat); the live scores the page was sent are kept in
    ``shown``."""
    data = json.loads(message)
    view = data.get("view") if data.get("type") == "state" else None
    if isinstance(view, dict):
        if "live" not in view:
            view["live"] = [1000 + 10 * data["room"]["turns"] + seat
                            for seat in range(len(view["players"]))]
        shown["live"] = view["live"]
        return json.dumps(data)
    return message


def test_running_scores_come_with_the_state(browser: Any, server: Server,
                                            players: list[Player]) -> None:
    shown: dict[str, Any] = {}
    room, ada, asked = ada_against_a_bot(browser, server, players,
                                         lambda message: with_live(message, shown))
    for number in range(0, 6, 2):  # Ada, the bot, ...
        ada.until("document.body.dataset.phase === 'card' && "
                  "Number(document.body.dataset.turns) === arg", number)
        live = [str(score) for score in shown["live"]]
        ada.until("[...document.querySelectorAll('.seat[data-seat] .score')]"
                  ".map(e => e.textContent.replace('\u2212', '-')).join() === arg", ",".join(live))
        duel_turn(ada, 0, server.room(room)["view"], number)
    ada.until_turns(6)
    per_turn = [url for url in asked if "/scores" in url]
    assert not per_turn, f"the page asked for the scores with `live` in the state: {per_turn}"
    ada.assert_clean()


class Ear:
    """A spectator over a plain WebSocket there from the start: the words of every turn
    the server said, as it said them (English)."""

    def __init__(self, server: Server, room: str):
        from websockets.sync.client import connect
        self.ws = connect(f"ws://127.0.0.1:{server.port}/rooms/{room}/ws",
                          additional_headers={"Accept-Language": "en"}, open_timeout=BOUND)
        self.words: list[str] = []

    def heard(self) -> list[str]:
        """Every turn's words so far, oldest first (read up to the answer to a ping)."""
        self.ws.send('{"type": "ping"}')
        while True:
            message = json.loads(self.ws.recv(timeout=BOUND))
            if message["type"] == "pong":
                return list(self.words)
            if message["type"] == "turn":
                self.words.append(message["words"])

    def close(self) -> None:
        self.ws.close()


def play_turns(seats: tuple[WsSeat, WsSeat], first: int, count: int) -> int:
    """Play ``count`` turns from turn ``first`` over the seats' sockets (each the first of
    its legal moves); the turns stored then."""
    for number in range(first, first + count):
        states = [s.at(number) for s in seats]
        mover = next(s for s, st in zip(seats, states) if st["legal"])
        mover.send({"type": "move", "move": mover.state["legal"][0]})
    for seat in seats:
        seat.at(first + count)
    return first + count


def turn_lines(player: Player, count: int) -> list[str]:
    """The lines of the page's turns panel (#turns, newest first), once it has ``count``
    (or what it has when it did not come to that: the caller's assert says the rest)."""
    from playwright.sync_api import TimeoutError as Timeout

    with contextlib.suppress(Timeout):
        player.until("document.querySelectorAll('#turns li').length === arg", count)
    return player.page.locator("#turns li").all_inner_texts()


def test_a_page_that_comes_in_mid_match_lists_the_last_turns(
        browser: Any, server: Server, players: list[Player]) -> None:
    """A page opened mid-match is sent the last turns (30, what the page lists): it shows
    them as a page there all along does, and says only the turns before the first one
    (none when it has them all); a reload shows them again, none twice."""
    from lostcities.i18n import load_messages
    english = load_messages("en")
    room = server.new_room("duel-classic")
    ear = Ear(server, room)
    ada, bob = WsSeat(server, room, "Ada"), WsSeat(server, room, "Bob")
    try:
        ada.send({"type": "line", "text": "/start"})
        turns = play_turns((ada, bob), 0, 3)
        watcher = open_player(players, browser, server, "Watcher")
        watcher.open_room(room)
        watcher.until_turns(turns)
        assert turn_lines(watcher, 3) == ear.heard()[::-1]  # all of them: nothing before
        turns = play_turns((ada, bob), turns, 31)  # 34: the page lists the last 30
        said = ear.heard()
        assert len(said) == turns
        watcher.until_turns(turns)
        assert turn_lines(watcher, 30) == said[-30:][::-1]
        late = open_player(players, browser, server, "Late")
        late.open_room(room)
        late.until_turns(turns)
        before = english["web.turns.before"].replace("{count}", str(turns - 30))
        assert turn_lines(late, 31) == said[-30:][::-1] + [before]
        late.page.reload()
        late.wait_connected()
        late.until_turns(turns)
        assert turn_lines(late, 31) == said[-30:][::-1] + [before]
        turns = play_turns((ada, bob), turns, 1)  # the oldest goes, and with it the note
        said = ear.heard()
        late.until_turns(turns)
        late.until("document.querySelector('#turns li').innerText === arg", said[-1])
        assert turn_lines(late, 30) == said[-30:][::-1]
        for player in (watcher, late):
            player.assert_clean()
    finally:
        for socket in (ada, bob, ear):
            socket.close()


class Gate:
    """The page's WebSockets through the test (``page.route_web_socket``): passed on to
    the server while open; ``shut`` closes them and refuses the page's new ones (it is
    offline); ``reaches``: from then on a new socket is passed only the turns from that
    number on (as a server whose backlog does not reach back that far)."""

    def __init__(self) -> None:
        self.closed = False
        self.reaches = 0
        self.routes: list[Any] = []

    def route(self, ws: Any) -> None:
        if self.closed:
            ws.close()
            return
        real = ws.connect_to_server()
        reaches = self.reaches

        def forward(message: Any) -> None:
            if isinstance(message, str) and reaches:
                data = json.loads(message)
                if data.get("type") == "turn" and data.get("number", 0) < reaches:
                    return
            ws.send(message)

        real.on_message(forward)
        ws.on_message(real.send)
        self.routes.append(ws)

    def shut(self) -> None:
        self.closed = True
        for ws in self.routes:
            ws.close()
        self.routes.clear()


def test_a_page_back_online_fills_in_the_turns_it_missed(
        browser: Any, server: Server, players: list[Player]) -> None:
    """A page offline for a few turns is sent them on reconnecting: its list is whole, as
    if it had never gone, each turn once; turns the server no longer sends are one gap
    line ("... 2 turns while this page was offline")."""
    from lostcities.i18n import load_messages
    english = load_messages("en")
    room = server.new_room("duel-classic")
    ear = Ear(server, room)
    ada, bob = WsSeat(server, room, "Ada"), WsSeat(server, room, "Bob")
    gate = Gate()
    try:
        ada.send({"type": "line", "text": "/start"})
        turns = play_turns((ada, bob), 0, 3)
        watcher = open_player(players, browser, server, "Watcher")
        watcher.page.route_web_socket(re.compile(r"/rooms/[a-z2-7]+/ws$"), gate.route)
        watcher.open_room(room)
        assert turn_lines(watcher, 3) == ear.heard()[::-1]
        for missed, reaches in ((5, 0), (4, 10)):
            gate.shut()
            watcher.until("document.body.dataset.connected !== '1'")
            turns = play_turns((ada, bob), turns, missed)
            gate.closed, gate.reaches = False, reaches
            watcher.page.evaluate("() => window.dispatchEvent(new Event('online'))")
            watcher.wait_connected()
            watcher.until_turns(turns)
        said = ear.heard()
        gap = english["web.turns.missed"].replace("{count}", "2")  # turns 8 and 9
        assert turn_lines(watcher, 11) == said[10:][::-1] + [gap] + said[:8][::-1]
        watcher.forgive(SERVER_AWAY)
        watcher.assert_clean()
    finally:
        for socket in (ada, bob, ear):
            socket.close()


def without_live(message: str) -> str:
    """A server's message on its way to the page, as an older server sent it: a ``state``
    whose view has no running scores (``live``)."""
    data = json.loads(message)
    if data.get("type") == "state" and isinstance(data.get("view"), dict):
        data["view"].pop("live", None)
        return json.dumps(data)
    return message


def test_running_scores_are_asked_for_when_the_state_has_none(
        browser: Any, server: Server, players: list[Player]) -> None:
    room, ada, asked = ada_against_a_bot(browser, server, players, without_live)
    for number in range(0, 6, 2):
        ada.until("document.body.dataset.phase === 'card' && "
                  "Number(document.body.dataset.turns) === arg", number)
        live = [str(s) for s in server.get(f"/rooms/{room}/scores")["live"]]
        ada.until("[...document.querySelectorAll('.seat[data-seat] .score')]"
                  ".map(e => e.textContent.replace('\u2212', '-')).join() === arg", ",".join(live))
        duel_turn(ada, 0, server.room(room)["view"], number)
    ada.until_turns(6)
    asked_scores = [url for url in asked if url.endswith(f"/rooms/{room}/scores")]
    assert len(asked_scores) >= 6, f"the page asked for the scores {len(asked_scores)} times"
    ada.assert_clean()


def test_the_last_plays_are_announced(browser: Any, server: Server,
                                      players: list[Player]) -> None:
    """The view's ``last_play`` (the draw pile ran out: turns without a draw) is said in
    the turns' panel; the states are rewritten by the test, the deck being long to empty."""
    from lostcities.i18n import load_messages
    french = load_messages("fr")
    room = server.new_room("duel-classic")
    ada, bob = WsSeat(server, room, "Ada"), WsSeat(server, room, "Bob")

    def last_play(message: str) -> str:
        data = json.loads(message)
        if data.get("type") == "state" and isinstance(data.get("view"), dict):
            data["view"]["last_play"] = True
            return json.dumps(data)
        return message

    def route(ws: Any) -> None:
        real = ws.connect_to_server()
        real.on_message(lambda message: ws.send(last_play(message)))
        ws.on_message(real.send)

    try:
        ada.send({"type": "line", "text": "/start"})
        ada.at(0)
        watcher = open_player(players, browser, server, "Watcher", locale="fr-FR")
        watcher.page.route_web_socket(re.compile(r"/rooms/[a-z2-7]+/ws$"), route)
        watcher.open_room(room)
        watcher.until("document.querySelector('#turns .from-view') && document.querySelector"
                      "('#turns .from-view').textContent === arg", french["web.turns.last-play"])
        watcher.assert_clean()
    finally:
        ada.close()
        bob.close()


def test_a_whole_match_ends_and_cont_plays_on_once_both_asked(
        browser: Any, house_server: Server, players: list[Player]) -> None:
    """A whole (one-round) match of a house pack played by clicks: ``#match-end`` gives
    the winner and the server's totals; the first ``#btn-cont`` alone deals nothing, the
    second deals round 2 whose totals start from the match's."""
    from lostcities.i18n import load_messages
    english = load_messages("en")
    server = house_server
    assert {(p["pack"], p["kind"]) for p in server.get("/packs")["packs"]} >= {
        ("tiny-duel", "house"), ("duel-classic", "builtin")}
    room = server.new_room("tiny-duel")
    ada = open_player(players, browser, server, "Ada")
    bob = open_player(players, browser, server, "Bob")
    for player in (ada, bob):
        player.open_room(room)
    ada.page.locator("input#name").fill("Ada")
    ada.page.locator("#btn-join").click()
    ada.until("document.body.dataset.seat === '0'")
    bob.type_line("/join Bob")
    bob.until("document.body.dataset.seat === '1'")
    ada.until("document.querySelectorAll('.seat[data-seat]').length === 2")
    ada.page.locator("#btn-start").click()
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'playing'")
    by_seat = {0: ada, 1: bob}
    for number in range(TINY_TURNS):
        view = server.room(room)["view"]
        assert server.room(room)["room"]["turns"] == number
        mover = by_seat[view["to_move"]]
        mover.until("document.body.dataset.phase === 'card' && "
                    "Number(document.body.dataset.turns) === arg", number)
        by_seat[1 - view["to_move"]].until("document.body.dataset.phase === 'wait'")
        duel_turn(mover, view["to_move"], view, number, hand_size=TINY_HAND,
                  plan=seat_0_wins)
        for player in (ada, bob):
            player.until_turns(number + 1)
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'over' && "
                     "Number(document.body.dataset.turns) === arg", TINY_TURNS)
    info = server.room(room)
    assert info["room"]["status"] == "over" and info["room"]["cont"] == []
    view = info["view"]
    totals, names = view["totals"], view["players"]
    assert len(view["round_scores"]) == 1 and names == ["Ada", "Bob"]
    assert totals[0] > 0 == totals[1], f"Ada played, Bob discarded, yet totals {totals}"
    said = english["result.winner"].replace("{names}", "Ada").replace(
        "{score}", str(totals[0]))
    for player in (ada, bob):
        assert player.attr("round") == "1"
        panel = player.page.locator("#match-end")
        panel.wait_for(state="visible")
        winner = player.page.locator("#match-winner").inner_text()
        assert winner.strip() == said, f"{player.name}: #match-winner {winner!r}"
        cells = [row.replace("\u2212", "-").split("\t") for row in player.page.locator(
            "#match-table tr").all_inner_texts()[1:]]
        shown = {row[0].strip(): row[-1].strip() for row in cells}
        assert shown == {name: str(total) for name, total in zip(names, totals)}, \
            f"{player.name}: #match-end shows {shown}, the server {totals}"
        assert player.page.locator("#btn-cont").is_visible(), f"{player.name}: no CONT"
        # the panel's muted lines (the CONT count) readable on its parchment: the WCAG
        # contrast of their colour against the panel's background at least 4.5:1
        contrast = player.page.evaluate("""() => {
            const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(
                v => { v = v / 255; return v <= 0.03928 ? v / 12.92
                                                       : ((v + 0.055) / 1.055) ** 2.4; });
                return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
            const panel = document.getElementById('match-end');
            const line = panel.querySelector('.muted');
            if (!line) return null;
            const style = getComputedStyle(line);
            const a = lum(style.color), b = lum(getComputedStyle(panel).backgroundColor);
            return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) * Number(style.opacity);
        }""")
        assert contrast is not None and contrast >= 4.5, f"{player.name}: muted contrast {contrast}"
    panel.screenshot(path=str(artefacts_dir() / "match-end.png"))
    ada.page.locator("#btn-cont").click()
    wait_for(lambda: server.room(room)["room"]["cont"] == [0], "the server to hold Ada's CONT")
    ada.until("document.getElementById('btn-cont').disabled")
    asked = english["web.match.cont"].replace("{asked}", "1").replace("{needed}", "2")
    for player in (ada, bob):
        player.until("document.getElementById('match-cont').textContent === arg", asked)
    bob.until("document.querySelector('.seat[data-seat=\"0\"]').innerText.includes('CONT')")
    info = server.room(room)
    assert info["room"]["status"] == "over", "one CONT alone dealt a round"
    assert info["view"]["round"] == 1 and info["room"]["turns"] == TINY_TURNS
    for player in (ada, bob):
        assert player.attr("status") == "over" and player.attr("round") == "1"
    assert not bob.page.locator("#btn-cont").is_disabled(), "Bob's CONT is disabled already"
    bob.page.locator("#btn-cont").click()
    for player in (ada, bob):
        player.until("document.body.dataset.status === 'playing' && "
                     "document.body.dataset.round === '2'")
    info = server.room(room)
    assert info["room"]["status"] == "playing" and info["room"]["cont"] == []
    view = info["view"]
    assert view["round"] == 2 and view["totals"] == totals, view["totals"]
    for player in (ada, bob):
        player.page.locator("#match-end").wait_for(state="hidden")
        assert len(player.hand()) == TINY_HAND, f"{player.name}: round 2 dealt no hand"
        for seat, total in enumerate(totals):
            said = english["web.seat.total"].replace("{total}", str(total))
            text = player.page.locator(f'.seat[data-seat="{seat}"]').inner_text()
            assert said in text.replace("\u2212", "-"), \
                f"{player.name}: seat {seat} shows {text!r}, not the total {total}"
        # the CONT took a number but is no turn: the match's turns, and no gap line
        lines = turn_lines(player, TINY_TURNS)
        gaps = player.page.locator("#turns .from-view").count()
        assert len(lines) == TINY_TURNS and not gaps, f"{player.name}: {lines}"
        player.assert_clean()
