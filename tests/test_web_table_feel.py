"""How the room's table feels in a real browser (headless Chromium against a real
``lc serve``, as tests/test_web_browser.py): another player's play and draw travel across
the table (CSS animations), and none runs under ``prefers-reduced-motion: reduce``; whole
duel turns played by the keyboard alone, each in at most four keys, the focus staying in
the table and the page never scrolled back to the top; on a 390x844 phone the board game
folds its board away (a button, remembered) so the hand is on the first screen; the
words that say how to point come in a mouse's form and a finger's ("click", "tap"); the
board game asks for the pawn and each advance, in words, before the draw.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest

import test_web_browser as web
from browser_support import (Player, Server, WsSeat, may_join_row, row_of)
from lostcities.engine import Move, load_pack
from lostcities.entry import option_notes, said
from lostcities.i18n import Catalogue, load_messages
from test_web_browser import STILL, keep_for_readme, open_player

#: the browser tests' fixtures: one chromium and one server for the module, the contexts a
#: test opens
browser, server, players = web.browser, web.server, web.players

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")

#: a phone's screen (CSS pixels), as Playwright's iPhone 12 to 14
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
#: the most turns of Ada's in the dusk duel until she draws back a dusk card
DUSK_TURNS = 6
#: the board game's turns tapped on the phone before it is photographed
PHONE_TURNS = 3
#: the most keys a whole duel turn may take
MOST_KEYS = 4
#: the duel turns played by the keyboard
KEYBOARD_TURNS = 12
#: the most turns of the board game played until a pawn and an advance were both asked
BOARD_TURNS = 30
#: of every three turns of Ada's, the one that discards, and the one after it that draws
#: from a discard pile
DISCARD_AT, PILE_AT = 1, 2

#: a house pack with a colour keyed d, the letter that draws from the deck elsewhere
DUSK_PACK = """\
extends: duel-classic
name: Dusk duel
description: "House rule of the keyboard test: a colour keyed d."
house_rule: true
deck:
  colours:
    - {key: y, name: yellow}
    - {key: b, name: blue}
    - {key: d, name: dusk}
"""

#: records, in the page, each animation that starts (its name and the card it moves) and,
#: at every change of the page, how many animations run then
RECORD_MOTION = """() => {
  window.__started = [];
  window.__running = [];
  document.addEventListener("animationstart", (e) => window.__started.push({
    name: e.animationName, card: e.target.dataset.shown || e.target.dataset.card || "",
    hand: !!e.target.closest("#hand"), flyer: e.target.classList.contains("flyer")}));
  new MutationObserver(() => window.__running.push(document.getAnimations().length))
    .observe(document.body, {subtree: true, childList: true, attributes: true,
                             attributeFilter: ["class"]});
}"""


@pytest.fixture(scope="module")
def dusk_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A real lc serve whose --packs folder holds DUSK_PACK as dusk-duel.yaml."""
    tmp_path = tmp_path_factory.mktemp("serve")
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "dusk-duel.yaml").write_text(DUSK_PACK, encoding="utf-8")
    running = Server(tmp_path, "--packs", str(packs))
    try:
        yield running
    finally:
        running.stop()


def seated_duel(players: list[Player], browser: Any, server: Server, pack: str = "duel-classic",
                **options: Any) -> tuple[Player, WsSeat, str]:
    """A room of ``pack``: Ada in the browser (seat 0, to move first), Bob over a plain
    socket (seat 1), the match started; and the room's id."""
    room = server.new_room(pack)
    ada = Player(browser, server, name="Ada", **options)
    players.append(ada)
    ada.open_room(room)
    ada.type_line("/join Ada")
    ada.until("document.body.dataset.seat === '0'")
    bob = WsSeat(server, room, "Bob")
    ada.until("document.querySelectorAll('.seat[data-seat]').length >= 2")
    ada.page.locator("#btn-start").click()
    ada.until("document.body.dataset.phase === 'card'")
    return ada, bob, room


def plan(hand: list[str], view: dict[str, Any], number: int) -> tuple[str, bool]:
    """Seat 0's turn ``number``: the lowest card that may go onto its row, else (and every
    third turn) a discard of the lowest card. ``(card, play?)``."""
    ordered = sorted(hand, key=lambda c: (0 if c[1:] == "x" else int(c[1:]), c))
    for card in ordered:
        if may_join_row(card, row_of(view, 0, card[0])) and number // 2 % 3 != DISCARD_AT:
            return card, True
    return ordered[0], False


def keyboard_turn(ada: Player, view: dict[str, Any], number: int) -> tuple[str, list[str]]:
    """Ada's duel turn by the keyboard alone: the card's number in the hand, P or D, then
    D (the deck) or a pile's letter; the move meant and the keys pressed."""
    page = ada.page
    hand = ada.hand()
    card, play = plan(hand, view, number)
    keys = [str(hand.index(card) + 1)]
    page.keyboard.press(keys[-1])
    ada.until("!!document.querySelector(`#hand .card.selected[data-card='${arg}']`)", card)
    keys.append("p" if play else "d")
    page.keyboard.press(keys[-1])
    ada.until("document.body.dataset.phase === 'draw'")
    piles = [d for d in ada.live("[data-draw]", "data-draw") if d != "deck"]
    draw = piles[0] if piles and number // 2 % 3 == PILE_AT else "deck"
    keys.append("d" if draw == "deck" else draw.upper())
    page.keyboard.press(keys[-1])
    return f"{'p' if play else 'd'} {card} {draw}", keys


def bob_plays(bob: WsSeat, number: int) -> str:
    """Bob plays turn ``number`` (his first legal move); the move."""
    state = bob.at(number)
    move = state["legal"][0]
    bob.send({"type": "move", "move": move})
    return move


def turn_message(bob: WsSeat, number: int) -> dict[str, Any]:
    """The ``turn`` message of turn ``number``, as Bob's socket was sent it."""
    return bob.until(lambda m: m["type"] == "turn" and m["number"] == number)


# ------------------------------------------------------------------ motion

@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_an_opponents_play_and_draw_travel_unless_motion_is_reduced(
        browser: Any, server: Server, players: list[Player], motion: str) -> None:
    ada, bob, room = seated_duel(players, browser, server, reduced_motion=motion)
    try:
        page = ada.page
        assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches") \
            == (motion == "reduce")
        page.evaluate(RECORD_MOTION)
        mine, _ = keyboard_turn(ada, server.room(room)["view"], 0)
        assert turn_message(bob, 0)["move"] == mine
        ada.until_turns(1)
        if motion != "reduce":  # my own draw travels into my hand
            ada.until("window.__started.some(a => a.name === 'travel' && a.hand)")
        theirs = bob_plays(bob, 1)
        turn = turn_message(bob, 1)
        ada.until_turns(2)
        ada.until("document.body.dataset.phase === 'card'")
        card = turn["card"]
        if motion == "reduce":
            # whatever changed on the page, no animation ran then, nor started since
            running = page.evaluate("() => window.__running")
            assert running and not any(running), running
            assert page.evaluate("() => window.__started") == []
            assert page.locator(".flyer, .travel").count() == 0
        else:
            ada.until("window.__started.some(a => a.name === 'travel' && a.card === arg"
                      " && !a.hand)", card)
            if turn["draw"]:
                ada.until("window.__started.some(a => a.name === 'fly' && a.flyer)")
            assert max(page.evaluate("() => window.__running")) > 0
            ada.until(STILL)
        assert theirs.split()[1] == card
        ada.assert_clean()
    finally:
        bob.close()


# ------------------------------------------------------------------ the keyboard

def test_whole_duel_turns_by_keyboard_in_four_keys_at_most(
        browser: Any, server: Server, players: list[Player]) -> None:
    ada, bob, room = seated_duel(players, browser, server,
                                 viewport={"width": 1280, "height": 560})
    messages = load_messages("en")
    try:
        page = ada.page
        legend = page.locator("#keys")
        legend.wait_for(state="visible")
        said_keys = legend.inner_text()
        for words in ("web.keys.card", "web.keys.play", "web.keys.discard", "web.keys.deck",
                      "web.keys.pile", "web.keys.back"):
            assert messages[words] in said_keys, words
        assert {"1–8", "P", "D", "Y", "B", "W", "G", "R", "Esc"} <= set(
            page.locator("#keys kbd").all_inner_texts())
        page.locator("#hand").scroll_into_view_if_needed()
        page.evaluate("() => window.scrollBy(0, 40)")
        scrolled = page.evaluate("() => window.scrollY")
        assert scrolled > 0, "the page does not scroll: the test would not see it jump"
        pile_draws = 0
        for mine in range(KEYBOARD_TURNS):
            number = 2 * mine
            move, keys = keyboard_turn(ada, server.room(room)["view"], number)
            assert len(keys) <= MOST_KEYS, keys
            assert turn_message(bob, number)["move"] == move, keys
            pile_draws += not move.endswith(" deck")
            ada.until_turns(number + 1)
            where = page.evaluate("() => [!!document.activeElement.closest('.felt'),"
                                  " document.activeElement.id || document.activeElement.className,"
                                  " window.scrollY]")
            assert where[0], f"turn {number}: the focus went to {where[1]}"
            assert where[2] >= scrolled, f"turn {number}: the page scrolled up to {where[2]}"
            bob_plays(bob, number + 1)
            turn_message(bob, number + 1)
            ada.until_turns(number + 2)
            ada.until("document.body.dataset.phase === 'card'")
        assert pile_draws, "no turn drew from a discard pile"
        # Esc chooses again: the card and its target given up, the turn as it was
        page.keyboard.press("1")
        ada.until("!!document.querySelector('#hand .card.selected')")
        page.keyboard.press("Escape")
        ada.until("!document.querySelector('#hand .card.selected')")
        # a key typed in the chat is a letter of the chat, not a move
        page.locator("#chat-input").focus()
        page.keyboard.type("1p")
        assert page.locator("#chat-input").input_value() == "1p"
        assert not page.locator("#hand .card.selected").count()
        ada.assert_clean()
    finally:
        bob.close()


#: the keys a fuzzed player presses: the table's, their other case, keys the table does not
#: use, and the keys that act on the element focused (Tab is left out: it may reach the
#: Leave button, which Enter would press)
FUZZ_KEYS = ["1", "2", "3", "5", "8", "9", "0", "p", "d", "P", "D", "y", "b", "w", "g", "r",
             "Y", "x", ".", "q", "Escape", "Enter", " ", "ArrowLeft", "Backspace"]
#: my turn again, or the match over: whatever the keys sent, the server has answered it
ANSWERED = "['card', 'choice', 'draw', 'over'].includes(document.body.dataset.phase)"


def test_any_keys_pressed_send_only_legal_moves(
        browser: Any, server: Server, players: list[Player]) -> None:
    """Keys pressed at random on a duel against a bot: the page never sends a move the
    server refuses, never fails, and the match goes on."""
    from hypothesis import HealthCheck, given, settings, strategies as st
    room = server.new_room("duel-classic")
    ada = open_player(players, browser, server, "Ada")
    ada.open_room(room)
    ada.type_line("/join Ada")
    ada.until("document.body.dataset.seat === '0'")
    ada.type_line("/bot")
    ada.until("document.querySelectorAll('.seat[data-seat]').length >= 2")
    ada.page.locator("#btn-start").click()
    ada.until("document.body.dataset.phase === 'card'")
    page = ada.page

    @settings(max_examples=25, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(st.sampled_from(FUZZ_KEYS), min_size=1, max_size=12))
    def pressed(keys: list[str]) -> None:
        for key in keys:
            page.keyboard.press(key)
        ada.until(ANSWERED)
        assert page.locator("#error").is_hidden(), (keys, page.locator("#error").inner_text())

    pressed()
    assert ada.turns() > 0, "no key sequence played a turn"
    ada.assert_clean()


def test_the_deck_key_is_a_full_stop_when_a_colour_is_keyed_d(
        browser: Any, dusk_server: Server, players: list[Player]) -> None:
    """In a pack with a colour keyed d, D still discards a card chosen, and in the draw
    D takes that colour's pile; the deck is drawn with "." (and the legend says so). Ada
    discards a dusk card while their pile is empty, another card once it is not (she may
    not take back the card just discarded), Bob discards his dusk cards."""
    ada, bob, room = seated_duel(players, browser, dusk_server, "dusk-duel")
    try:
        page = ada.page
        page.locator("#keys").wait_for(state="visible")
        keys = page.locator("#keys kbd").all_inner_texts()
        assert "." in keys and {"Y", "B", "D"} <= set(keys), keys
        drawn = set()
        for number in range(0, 2 * DUSK_TURNS, 2):
            hand = ada.hand()
            dusk_pile = dusk_server.room(room)["view"]["pile_sizes"][2]
            card = next((c for c in hand if (c[0] == "d") == (not dusk_pile)), hand[0])
            for key in (str(hand.index(card) + 1), "d"):
                page.keyboard.press(key)
            ada.until("document.body.dataset.phase === 'draw'")
            draw = "d" if "d" in ada.live("[data-draw]", "data-draw") else "deck"
            page.keyboard.press("d" if draw == "d" else ".")
            assert turn_message(bob, number)["move"] == f"d {card} {draw}"
            drawn.add(draw)
            if drawn == {"d", "deck"}:
                break
            legal = bob.at(number + 1)["legal"]
            bob.send({"type": "move", "move": next(
                (m for m in legal if m.startswith("d d") and m.endswith(" deck")),
                next(m for m in legal if m.endswith(" deck")))})
            turn_message(bob, number + 1)
            ada.until_turns(number + 2)
            ada.until("document.body.dataset.phase === 'card'")
        assert drawn == {"d", "deck"}, drawn
        ada.assert_clean()
    finally:
        bob.close()


# ------------------------------------------------------------------ the phone

def board_against_a_bot(ada: Player) -> str:
    """Open a board-classic room, seat Ada and a bot, start; the room's id."""
    room = ada.server.new_room("board-classic")
    ada.open_room(room)
    ada.type_line("/join Ada")
    ada.until("document.body.dataset.seat === '0'")
    ada.type_line("/bot")
    ada.until("document.querySelectorAll('.seat[data-seat]').length >= 2")
    ada.page.locator("#btn-start").click()
    ada.until("document.body.dataset.phase === 'card'")
    return room


def tap_turn(ada: Player) -> None:
    """Ada's board turn by taps on a touch screen: her lowest card onto its row (else onto
    a pile), the first answer of each decision asked, the deck; then the bot's turn."""
    page = ada.page
    turns = ada.turns()
    card = sorted(ada.hand(), key=lambda c: int(c[1:]) if c[1:].isdigit() else 0)[0]
    page.locator(f'#hand .card[data-card="{card}"]').first.tap()
    ada.until("!!document.querySelector('#hand .card.selected')")
    live = ada.live("[data-target]", "data-target")
    target = f"play:{card[0]}" if f"play:{card[0]}" in live else live[0]
    page.locator(f'[data-target="{target}"]').tap()
    while ada.turns() == turns:
        ada.until("document.body.dataset.phase !== 'card' || "
                  "Number(document.body.dataset.turns) > arg", turns)
        if ada.attr("phase") == "choice":
            depth = page.locator("#choice").get_attribute("data-depth")
            page.locator("#choice [data-choice]").first.tap()
            ada.until("document.body.dataset.phase !== 'choice' || "
                      "document.querySelector('#choice').dataset.depth !== arg", depth)
        elif ada.attr("phase") == "draw":
            page.locator('[data-draw="deck"]').tap()
            ada.until("Number(document.body.dataset.turns) > arg", turns)
    ada.until("document.body.dataset.phase === 'card'")


def hand_on_first_screen(ada: Player) -> dict[str, float]:
    """The hand's box, the page not scrolled."""
    page = ada.page
    page.evaluate("() => window.scrollTo(0, 0)")
    return page.evaluate("() => { const r = document.querySelector('#hand')"
                         ".getBoundingClientRect(); return {top: r.top, bottom: r.bottom,"
                         " scroll: window.scrollY, height: window.innerHeight}; }")


def test_a_phone_shows_the_board_games_hand_on_the_first_screen(
        browser: Any, server: Server, players: list[Player]) -> None:
    ada = Player(browser, server, name="Ada", **PHONE)
    players.append(ada)
    board_against_a_bot(ada)
    page = ada.page
    toggle = page.locator("#btn-board")
    messages = load_messages("en")
    assert toggle.is_visible() and toggle.inner_text() == messages["web.board.show"]
    assert page.locator("#board").is_hidden(), "a phone starts with the board folded"
    for _ in range(PHONE_TURNS):
        tap_turn(ada)
    ada.until(STILL)
    box = hand_on_first_screen(ada)
    assert box["scroll"] == 0 and 0 <= box["top"] and box["bottom"] <= 844, box
    shot = ada.screenshot("phone-board.png")
    assert shot.stat().st_size > 0
    keep_for_readme("phone-board.png", "table-phone-board.png")
    toggle.click()
    page.locator("#board .track[data-track]").first.wait_for(state="visible")
    assert toggle.inner_text() == messages["web.board.hide"]
    for folded in (False, True):  # remembered: a reload keeps the board as it was left
        page.reload()
        ada.wait_connected()
        ada.until("document.body.dataset.phase === 'card'")
        assert page.locator("#board").is_hidden() == folded
        if not folded:
            box = hand_on_first_screen(ada)
            assert box["bottom"] > 844, f"the open board should push the hand down: {box}"
            toggle.click()
    box = hand_on_first_screen(ada)
    assert box["bottom"] <= 844, box
    ada.assert_clean()


# ------------------------------------------------------------------ words for a pointer

@pytest.mark.parametrize("pointer,lang", [("fine", "en"), ("coarse", "en"), ("coarse", "fr")])
def test_the_words_say_click_for_a_mouse_and_never_on_a_touch_screen(
        browser: Any, server: Server, players: list[Player], pointer: str, lang: str) -> None:
    options = PHONE if pointer == "coarse" else {}
    locale = {"en": "en-GB", "fr": "fr-FR"}[lang]
    room = server.new_room("duel-classic")
    ada = Player(browser, server, locale=locale, name="Ada", **options)
    players.append(ada)
    messages = load_messages(lang)
    ada.open_room(room)
    page = ada.page
    assert page.evaluate("() => matchMedia('(pointer: coarse)').matches") == (pointer == "coarse")
    ada.type_line("/join Ada")
    ada.until("document.body.dataset.seat === '0'")
    ada.type_line("/bot")
    ada.until("document.querySelectorAll('.seat[data-seat]').length >= 2")
    page.locator("#btn-start").click()
    ada.until("document.body.dataset.phase === 'card'")
    shown = []
    ada.until("document.querySelector('#prompt').textContent === arg",
              messages[f"web.prompt.card.{pointer}"])
    shown.append(page.locator("body").inner_text())
    card = ada.hand()[0]
    page.locator(f'#hand .card[data-card="{card}"]').first.click()
    page.locator(f'[data-target="discard:{card[0]}"]').click()
    ada.until("document.body.dataset.phase === 'draw'")
    ada.until("document.querySelector('#prompt').textContent === arg",
              messages[f"web.prompt.draw.{pointer}"])
    shown.append(page.locator("body").inner_text())
    clicks = re.compile(r"click|cliqu", re.IGNORECASE)
    for text in shown:
        if pointer == "coarse":
            assert not clicks.search(text), clicks.search(text)
        else:
            assert clicks.search(text), "a mouse is told to click"
    assert page.locator("#keys").is_visible() == (pointer == "fine")
    ada.assert_clean()


def test_every_pointer_word_has_a_mouse_and_a_finger_form() -> None:
    """Each key the page says through tPointer has its .fine and .coarse forms in both
    languages, and no .coarse form says click."""
    asked = set()
    for name in ("table.js", "moves.js", "keys.js", "board.js"):
        text = (web.ROOT / "server" / "static" / name).read_text(encoding="utf-8")
        asked |= set(re.findall(r'\btPointer\("([a-z][a-z0-9.-]+)"', text))
    assert {"web.prompt.card", "web.prompt.draw"} <= asked
    for lang in ("en", "fr"):
        messages = load_messages(lang)
        for key in asked:
            assert f"{key}.fine" in messages and f"{key}.coarse" in messages, (lang, key)
            assert not re.search(r"click|cliqu", messages[f"{key}.coarse"], re.I), (lang, key)
        for key, text in messages.items():  # nothing else says click either
            if re.search(r"click|cliqu", text, re.I):
                assert key.endswith(".fine"), (lang, key, text)


# ------------------------------------------------------------------ the pawn before the draw

def test_the_board_game_asks_the_pawn_and_each_advance_before_the_draw(
        browser: Any, server: Server, players: list[Player]) -> None:
    ada = open_player(players, browser, server, "Ada")
    board_against_a_bot(ada)
    page = ada.page
    pack = load_pack("board-classic")
    cat = Catalogue("en")
    messages = load_messages("en")
    asked = {"pawn": 0, "step": 0}
    for _ in range(BOARD_TURNS):
        ada.until("document.body.dataset.phase === 'card'")
        turns = ada.turns()
        hand = ada.hand()
        card = sorted(hand, key=lambda c: int(c[1:]) if c[1:].isdigit() else 0)[0]
        page.keyboard.press(str(hand.index(card) + 1))
        ada.until("!!document.querySelector('#hand .card.selected')")
        live = ada.live("[data-target]", "data-target")
        page.keyboard.press("p" if f"play:{card[0]}" in live else "d")
        while True:
            ada.until("['choice', 'draw', 'wait'].includes(document.body.dataset.phase)")
            phase = ada.attr("phase")
            if phase != "choice":
                break
            # asked before the draw: no pile nor the deck may be taken yet
            assert ada.live("[data-draw]", "data-draw") == [], "a draw is lit during the choice"
            question = page.locator("#choice .choice-title").inner_text()
            buttons = page.evaluate("() => [...document.querySelectorAll('#choice [data-choice]')]"
                                    ".map(b => [b.dataset.choice, b.textContent, b.title])")
            kind = buttons[0][0].split("=")[0]
            asked[kind] += 1
            colour = pack.colours[pack.cards.colour_of[Move.parse(f"p {card} deck", pack)
                                                        .card]].name
            expected = (cat("web.choice.pawn", colour=cat.colour(colour)) if kind == "pawn"
                        else messages["web.choice.step"])
            assert question == expected
            assert page.locator("#prompt").inner_text() == expected
            for decision, words, title in buttons:
                assert "=" not in words and "=" not in title, (decision, words, title)
                move = Move.parse(f"p {card} {decision} deck", pack)
                assert words == said(option_notes(pack, move), cat), decision
            depth = page.locator("#choice").get_attribute("data-depth")
            page.keyboard.press("1")  # the first answer, by its number
            ada.until("document.body.dataset.phase !== 'choice' || "
                      "document.querySelector('#choice').dataset.depth !== arg", depth)
        if ada.attr("phase") == "draw":
            page.keyboard.press("d")
        ada.until("Number(document.body.dataset.turns) > arg", turns)
        if asked["pawn"] and asked["step"]:
            break
    assert asked["pawn"] and asked["step"], f"a decision never asked: {json.dumps(asked)}"
    ada.assert_clean()
