"""The room's Rules page in Chromium: it looks like the table (the parchment sheets, their
ink, the serif headings of table.css) and its policy lets its one inline style in, so the
browser reports no refused style."""
from __future__ import annotations

from typing import Any

import pytest

import test_web_browser as web
from browser_support import Player, Server
from test_web_browser import open_player

#: the browser tests' fixtures: one chromium for the module, a server, the contexts a test opens
browser, players, server = web.browser, web.players, web.server

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

LOOK = """() => {
  const of = (el) => getComputedStyle(el);
  return {body: of(document.body).backgroundColor, ink: of(document.body).color,
          font: of(document.body).fontFamily, heading: of(document.querySelector('h2')).fontFamily,
          page: of(document.documentElement).backgroundColor};
}"""


def test_the_rules_page_is_styled_like_the_table(browser: Any, server: Server,
                                                 players: list[Player]) -> None:
    room = server.new_room("board-classic")
    ada = open_player(players, browser, server, "Ada")
    ada.open_room(room)
    sheet = ada.page.evaluate("""() => {
      const probe = document.createElement('section');
      probe.className = 'sheet';
      document.body.append(probe);
      const look = getComputedStyle(probe);
      const out = {background: look.backgroundColor, ink: look.color,
                   font: getComputedStyle(document.documentElement).fontFamily};
      probe.remove();
      return out;
    }""")
    answer = ada.page.goto(f"{server.url}/rooms/{room}/rules?lang=fr")
    assert answer is not None and answer.status == 200
    look = ada.page.evaluate(LOOK)
    assert look["body"] == sheet["background"] == "rgb(246, 239, 220)"  # --parchment
    assert look["ink"] == sheet["ink"] == "rgb(44, 36, 24)"  # --ink
    assert look["font"] == sheet["font"] and "DejaVu Sans" in look["font"]
    assert look["heading"].startswith("Georgia")
    assert look["page"] == "rgb(21, 17, 12)"  # the table's dark wood
    ada.assert_clean()  # no style refused by the page's policy
