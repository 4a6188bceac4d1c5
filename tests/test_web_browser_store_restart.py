"""The room's page in Chromium while the server's PostgreSQL database goes away and comes
back (docs/server.md, "Several processes on one database", Faults): the server closes
the page's socket with 1012, the page says it is reconnecting and offers no move, the
server answers its retries with 1013 while the database is away; once it is back the
page is connected again, shows the table as stored, and plays on."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

import test_web_browser as web
from browser_support import Player, Server
from lostcities.i18n import load_messages
from test_web_browser import SERVER_AWAY, WATCH_PAGE, ada_against_a_bot, duel_turn, \
    never_stale

#: the browser tests' fixtures: one chromium for the module, the contexts a test opens
browser, players = web.browser, web.players

pytest.importorskip("uvicorn")
pytest.importorskip("psycopg")

RESTART = load_messages("en")["web.conn.restart"].split("{")[0]


@pytest.fixture
def pg_server(tmp_path: Path, pg_cluster: Any) -> Iterator[Server]:
    running = Server(tmp_path, "--store", pg_cluster.database())
    try:
        yield running
    finally:
        running.stop()


def test_the_page_says_reconnecting_while_the_database_is_away_then_plays_on(
        browser: Any, pg_server: Server, pg_cluster: Any, players: list[Player]) -> None:
    room, ada, _ = ada_against_a_bot(browser, pg_server, players)
    ada.until("document.body.dataset.phase === 'card' && "
              "Number(document.body.dataset.turns) === 0")
    duel_turn(ada, 0, pg_server.room(room)["view"], 0)
    ada.until("document.body.dataset.phase === 'card' && "
              "Number(document.body.dataset.turns) === 2")  # the bot has answered
    hand, turns = sorted(ada.hand()), ada.turns()
    ada.page.evaluate(WATCH_PAGE)
    pg_cluster.halt()
    try:
        ada.until("document.body.dataset.connected !== '1' && "
                  "document.getElementById('conn').dataset.state === 'restart' && "
                  "document.getElementById('conn').textContent.startsWith(arg)", RESTART)
        assert ada.attr("phase") == "wait", "the page offers a move while the database is away"
    finally:
        pg_cluster.start()
    ada.wait_connected()
    assert (ada.attr("seat"), ada.attr("phase")) == ("0", "card")
    assert ada.page.locator("#conn").get_attribute("data-state") == "online"
    never_stale(ada)
    assert ada.turns() == turns and sorted(ada.hand()) == hand
    duel_turn(ada, 0, pg_server.room(room)["view"], turns)
    ada.until_turns(turns + 2)  # Ada's move stored, and the bot plays on
    ada.forgive(SERVER_AWAY)
    ada.assert_clean()
