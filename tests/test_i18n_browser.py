"""The web page in French, in a real browser (headless Chromium against a real ``lc serve``,
as tests/test_web_browser.py): the landing page lists the built-in packs by their French
names (a house pack of ``--packs`` by its own name and id), the room's header names its pack in the
page's language (a house pack's own name as written), a pile draw's turn line says the
colour in the feminine ("la défausse verte"), and the page's own formatter says
``{colour:f}`` as lostcities.i18n does.
"""
from __future__ import annotations

from typing import Any, Iterator

import pytest

import test_web_browser as web
from browser_support import Player, Server, WsSeat
from lostcities.i18n import load_messages
from test_web_browser import landing_room, open_player

#: the browser tests' fixtures: one chromium for the module, the contexts a test opens
browser, players = web.browser, web.players

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")

#: a house pack of the server's --packs, with a name of its own
HOUSE_PACK = """\
extends: duel-classic
name: "Notre duel du samedi"
description: "Our house rule: the duel as we play it on Saturdays."
house_rule: true
"""
#: duel-classic's colours by key, said after "la défausse"
FEMININE_FR = {"y": "jaune", "b": "bleue", "w": "blanche", "g": "verte", "r": "rouge"}
OPTIONS = ("() => [...document.querySelectorAll('select#pack option')]"
           ".map(o => [o.value, o.textContent, o.title])")


@pytest.fixture(scope="module")
def house_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A real lc serve whose --packs folder holds HOUSE_PACK as samedi.yaml, for the
    module's tests (each in rooms of its own)."""
    tmp_path = tmp_path_factory.mktemp("serve")
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "samedi.yaml").write_text(HOUSE_PACK, encoding="utf-8")
    running = Server(tmp_path, "--packs", str(packs))
    try:
        yield running
    finally:
        running.stop()


def options_of(player: Player) -> dict[str, tuple[str, str]]:
    """The landing page's pack list, once it is there: value -> (text, title)."""
    player.page.goto(player.server.url + "/")
    player.page.wait_for_selector('select#pack option[value="samedi"]', state="attached")
    return {value: (text, title) for value, text, title in player.page.evaluate(OPTIONS)}


def test_the_french_page_names_the_packs_in_french(browser: Any, house_server: Server,
                                                   players: list[Player]) -> None:
    french, english = load_messages("fr"), load_messages("en")
    builtin = sorted(k.split(".")[1] for k in english if k.startswith("pack.")
                     and k.endswith(".name"))
    marie = open_player(players, browser, house_server, "Marie", locale="fr-FR")
    john = open_player(players, browser, house_server, "John", locale="en-GB")
    shown = options_of(marie)
    for pack_id in builtin:
        assert shown[pack_id] == (french[f"pack.{pack_id}.name"],
                                  french[f"pack.{pack_id}.description"]), pack_id
    assert shown["samedi"] == (f"Notre duel du samedi · samedi ({french['web.landing.house']})",
                               "Our house rule: the duel as we play it on Saturdays.")
    assert options_of(john)["duel-classic"] == (english["pack.duel-classic.name"],
                                                english["pack.duel-classic.description"])
    marie.screenshot("french-landing.png")
    marie.page.select_option("select#lang", "en")  # the switch says them again
    marie.until("document.querySelector('select#pack option[value=\"duel-classic\"]')"
                ".textContent === arg", english["pack.duel-classic.name"])
    marie.page.select_option("select#lang", "fr")
    marie.until("document.querySelector('select#pack option[value=\"duel-classic\"]')"
                ".textContent === arg", french["pack.duel-classic.name"])

    landing_room(marie, "duel-classic")
    marie.until("document.querySelector('#pack-name').textContent === arg",
                french["pack.duel-classic.name"])
    marie.until("document.title.endsWith(arg)", french["pack.duel-classic.name"])
    # the page's own formatter: {colour:f} in the feminine, an unknown colour as written
    said = marie.page.evaluate(
        "() => import('/static/i18n.js').then(m => ['vert', 'blanc', 'Bleu', 'orange', 'jaune']"
        ".map(c => m.t('illegal.pile-empty', { colour: c })))")
    assert said == [f"la défausse {c} est vide" for c in
                    ("verte", "blanche", "Bleue", "orange", "jaune")]

    room = landing_room(john, "samedi")  # a house pack: its own name, in any language
    john.until("document.querySelector('#pack-name').textContent === arg",
               "Notre duel du samedi")
    marie.open_room(room)
    marie.until("document.querySelector('#pack-name').textContent === arg",
                "Notre duel du samedi")
    marie.assert_clean()
    john.assert_clean()


def test_a_pile_draw_reads_la_defausse_in_the_feminine(browser: Any, house_server: Server,
                                                       players: list[Player]) -> None:
    room = house_server.new_room("duel-classic")
    ada, bob = WsSeat(house_server, room, "Ada"), WsSeat(house_server, room, "Bob")
    try:
        marie = open_player(players, browser, house_server, "Marie", locale="fr-FR")
        marie.open_room(room)
        ada.send({"type": "line", "text": "/start"})
        first, second = (s.at(0) for s in (ada, bob))
        mover, other = (ada, bob) if first["legal"] else (bob, ada)
        discard = next(m for m in mover.state["legal"]
                       if m.startswith("d ") and m.endswith(" deck"))
        key = discard.split()[1][0]
        mover.send({"type": "move", "move": discard})
        other.at(1)
        take = next(m for m in other.state["legal"] if m.split()[-1] == key)
        other.send({"type": "move", "move": take})
        marie.until_turns(2)
        line = f"sur la défausse {FEMININE_FR[key]}."
        marie.until("document.querySelector('#turns').innerText.includes(arg)", line)
        marie.screenshot("french-pile-draw.png")
        marie.assert_clean()
    finally:
        ada.close()
        bob.close()
