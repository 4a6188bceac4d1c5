"""The replay pages in a real Chromium against a real ``lc serve``: a match played to its end
in a room, then ``/matches/ID`` stepped through with the keys, every frame equal to what the
library's replay of the room's record goes through (every hand, row, pile and the deck; the
round sheets' totals); a record file chosen or dropped on ``/replay`` shown the same way,
a board game's with its board, and a bad one refused in one line."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Iterator

import pytest

import test_web_browser as web
from browser_support import Player, Server, WsSeat
from lostcities.engine import dumps, load_pack, new_game, observation, playout, replay
from test_web_browser import keep_for_readme, scores_shown

#: the browser tests' fixtures: one chromium for the module, the contexts a test opens
browser, players = web.browser, web.players

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")

#: what the page shows of the frame on screen, read in one go
SHOWN = """() => {
  const bySeat = (a, b) => Number(a.dataset.seat) - Number(b.dataset.seat);
  const cards = (node) => [...node.querySelectorAll('.card')].map((c) => c.dataset.card);
  const table = document.getElementById('table');
  const sheet = document.getElementById('sheet');
  return {
    frame: Number(document.body.dataset.frame),
    words: document.getElementById('words').textContent,
    table: table.hidden ? null : {
      hands: [...table.querySelectorAll('.replay-hand')].sort(bySeat).map(cards),
      rows: [...table.querySelectorAll('.replay-seat')].sort(bySeat)
        .map((s) => [...s.querySelectorAll('.row-cell')].map(cards)),
      tops: [...table.querySelectorAll('.pile')].map((p) => p.dataset.top || null),
      deck: Number(document.getElementById('deck-count').textContent),
      pawns: document.querySelectorAll('#board .pawn').length,
    },
    sheet: sheet.hidden ? null : document.getElementById('sheet-totals').textContent,
    match: !document.getElementById('match-box').hidden,
  };
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A real lc serve for the module whose clients may send as fast as they like (a whole
    match is played over two sockets at once)."""
    running = Server(tmp_path_factory.mktemp("serve"), "--limit", "rate=10000",
                     "--limit", "burst=10000")
    try:
        yield running
    finally:
        running.stop()


def expected(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The frames the page must show for ``record``, from the library's replay alone: a
    round's deal and each turn that does not end it show the state before the next move
    (every hand, the rows, the piles' tops, the deck, the pawns), the last turn of a round
    its sheet (the totals after it)."""
    befores: list[dict[str, Any]] = []

    def note(state: Any, move: Any) -> None:
        codec = state.pack.cards
        views = [observation(state, s).to_dict(codec) for s in range(state.n)]
        befores.append({"hands": [v["hand"] for v in views], "rows": views[0]["rows"],
                        "tops": views[0]["pile_tops"], "deck": views[0]["draw_pile"],
                        "pawns": sum(len(p) for p in views[0]["board"]["pawns"])
                        if "board" in views[0] else 0})
        totals_before.append(list(views[0]["totals"]))
    totals_before: list[list[int]] = []
    replay(record, on_turn=note)
    frames: list[dict[str, Any]] = []
    at = 0
    for number, rnd in enumerate(record["rounds"], 1):
        moves = len(rnd["turns"])
        frames.append({"table": befores[at], "turn": None})
        for k in range(moves):
            turn = rnd["turns"][k]
            if k < moves - 1:
                frames.append({"table": befores[at + k + 1], "turn": turn})
            else:  # the totals after the round (the pack's match formula): the next deal's
                after = totals_before[at + moves] if number < len(record["rounds"]) \
                    else record["totals"]
                frames.append({"table": None, "turn": turn, "totals": after})
        at += moves
    assert at == len(befores)
    return frames


def check_frame(shown: dict[str, Any], want: dict[str, Any], players: list[str]) -> None:
    """The frame on screen is the one wanted."""
    if want["table"] is None:
        assert shown["table"] is None and shown["sheet"] is not None, shown
        assert all(scores_shown(shown["sheet"], total) for total in want["totals"]), shown
    else:
        assert shown["table"] == want["table"], (shown, want)
    turn = want["turn"]
    if turn is not None:  # the turn said: its player and its card
        assert shown["words"].startswith(players[turn["player"]]), shown["words"]
        assert turn["card"] in shown["words"], (shown["words"], turn)


def step_through(player: Player, record: dict[str, Any]) -> None:
    """Step from the first frame to the last with the keys (right arrow and j in turn),
    checking each frame against the record's replay; then back one (k), to the deal
    (Home) and to the end (End)."""
    page = player.page
    wanted = expected(record)
    player.until("document.body.dataset.ready === '1'")
    assert int(player.attr("frames")) == len(wanted)
    page.locator("body").click(position={"x": 5, "y": 5})  # the keys go to the page
    for index, want in enumerate(wanted):
        player.until("Number(document.body.dataset.frame) === arg", index)
        check_frame(page.evaluate(SHOWN), want, record["players"])
        if index < len(wanted) - 1:
            page.keyboard.press("ArrowRight" if index % 2 == 0 else "j")
    assert page.evaluate(SHOWN)["match"], "the last frame shows the match's sheet"
    page.keyboard.press("ArrowRight")  # nothing after the last
    assert int(player.attr("frame")) == len(wanted) - 1
    page.keyboard.press("k")
    player.until("Number(document.body.dataset.frame) === arg", len(wanted) - 2)
    page.keyboard.press("Home")
    player.until("document.body.dataset.frame === '0'")
    check_frame(page.evaluate(SHOWN), wanted[0], record["players"])
    page.keyboard.press("End")
    player.until("Number(document.body.dataset.frame) === arg", len(wanted) - 1)


def play_to_the_end(seats: tuple[WsSeat, WsSeat]) -> dict[str, Any]:
    """The seated players play their first legal move until the match is over; its
    ``match`` message (with the replay's link)."""
    heard: list[dict[str, Any]] = []

    def state_after(seat: WsSeat, turns: int) -> dict[str, Any]:
        while seat.state is None or seat.state["view"] is None or \
                seat.state["room"]["turns"] < turns:
            message = json.loads(seat.ws.recv(timeout=web.BOUND))
            if message["type"] == "match":
                heard.append(message)
            if message["type"] == "state":
                seat.state = message
        return seat.state

    turns = 0
    while True:
        states = [state_after(seat, turns) for seat in seats]
        if states[0]["room"]["status"] == "over":
            break
        mover = next(s for s, st in zip(seats, states) if st["legal"])
        mover.send({"type": "move", "move": mover.state["legal"][0]})
        turns += 1
    while not heard:
        message = json.loads(seats[0].ws.recv(timeout=web.BOUND))
        if message["type"] == "match":
            heard.append(message)
    return heard[0]


def test_a_finished_match_is_replayed_turn_by_turn_with_the_keys(
        browser: Any, server: Server, players: list[Player]) -> None:
    room = server.new_room("duel-classic")
    ada, bob = WsSeat(server, room, "Ada"), WsSeat(server, room, "Bob")
    watcher = Player(browser, server, name="watcher")
    players.append(watcher)
    # before the end: the room's match has no replay, its room's id opens none
    watcher.page.goto(f"{server.url}/matches/{room}")
    assert "no finished match" in watcher.page.inner_text("body")
    watcher.forgive(r"status of 404")
    ada.send({"type": "line", "text": "/start"})
    end = play_to_the_end((ada, bob))
    ada.close(), bob.close()
    record = json.loads((server.data / "rooms" / "records" / end["record"]).read_text())
    link = end["replay"]
    # the room's page, opened after the end, links to the replay from the match's sheet
    watcher.open_room(room)
    watcher.until("!document.getElementById('match-replay').hidden")
    assert watcher.page.get_attribute("#match-replay", "href") == link
    watcher.page.goto(server.url + link)
    step_through(watcher, record)
    assert watcher.page.input_value("#share-url") == f"{server.url}{link}#{int(watcher.attr('frame'))}"
    # the share link opens the same turn; the buttons step too
    middle = 37
    watcher.page.goto(f"{server.url}{link}#{middle}")
    watcher.until("document.body.dataset.ready === '1' && document.body.dataset.frame === arg",
                  str(middle))
    check_frame(watcher.page.evaluate(SHOWN), expected(record)[middle], record["players"])
    watcher.page.locator("#btn-next").click()
    watcher.until("document.body.dataset.frame === arg", str(middle + 1))
    watcher.page.locator("#btn-prev").click()
    watcher.until("document.body.dataset.frame === arg", str(middle))
    watcher.screenshot("replay-duel.png")
    keep_for_readme("replay-duel.png", "replay-duel.png")
    # in French: the labels and the turns' words
    watcher.page.select_option("#lang", "fr")
    watcher.until("document.getElementById('btn-next').textContent.includes('Suivant')")
    watcher.until("document.getElementById('words').textContent.includes(' et ')")
    watcher.assert_clean()


#: a player's name in a record that would be markup if a page took it for HTML (within the
#: 40 characters a replay shows of a name)
MARKUP_NAME = "<img src=x onerror=window.__pwned=1>"


def record_lines(pack: str, seeds: tuple[int, ...],
                 names: tuple[str, str] = ("Ada", "Bob")) -> list[str]:
    """Records of random matches of ``pack``, one a seed (as lc simulate --record writes)."""
    rules = load_pack(pack)
    return [dumps(playout(new_game(rules, list(names), seed), random.Random(seed)))
            for seed in seeds]


def test_a_chosen_record_file_is_replayed_and_a_bad_one_refused_in_one_line(
        browser: Any, server: Server, players: list[Player], tmp_path: Path) -> None:
    lines = record_lines("duel-classic", (11,)) + \
        record_lines("duel-classic", (12,), (MARKUP_NAME, "Bob"))
    file = tmp_path / "two-matches.jsonl"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reader = Player(browser, server, name="reader")
    players.append(reader)
    reader.page.goto(f"{server.url}/replay")
    reader.page.set_input_files("#file", str(file))
    step_through(reader, json.loads(lines[0]))
    assert not reader.page.is_visible("#share"), "a dropped file has no link to share"
    reader.page.select_option("#game", "2")  # the file's second match
    reader.until("document.body.dataset.frame === '0'")
    step_through(reader, json.loads(lines[1]))
    assert reader.page.evaluate("() => [window.__pwned, document.querySelectorAll("
                                "'main img').length]") == [None, 0]
    assert MARKUP_NAME in reader.page.inner_text("#felt")  # shown as the text it is
    # dropped on the page (a real drop event), changed: lc replay's refusal, in one line
    changed = json.loads(lines[0])
    changed["totals"][0] += 5
    reader.page.evaluate("""(text) => {
        const data = new DataTransfer();
        data.items.add(new File([text], 'changed.jsonl', {type: 'application/x-ndjson'}));
        document.getElementById('drop').dispatchEvent(
            new DragEvent('drop', {dataTransfer: data, bubbles: true, cancelable: true}));
    }""", json.dumps(changed))
    reader.until("!document.getElementById('error').hidden")
    said = reader.page.inner_text("#error")
    assert said.startswith("this record does not replay: changed.jsonl:1: totals are ")
    assert "\n" not in said and reader.attr("ready") == "0"
    # a server's 400 for a bad file is the page's own message, not a console error
    reader.forgive(r"status of 400")
    reader.assert_clean()


def test_a_dropped_board_game_record_shows_its_board(
        browser: Any, server: Server, players: list[Player], tmp_path: Path) -> None:
    line = record_lines("board-classic", (5,))[0]
    file = tmp_path / "board.jsonl"
    file.write_text(line + "\n", encoding="utf-8")
    reader = Player(browser, server, locale="fr-FR", name="reader")
    players.append(reader)
    reader.page.goto(f"{server.url}/replay")
    reader.page.set_input_files("#file", str(file))
    step_through(reader, json.loads(line))
    reader.page.keyboard.press("Home")
    reader.until("document.body.dataset.frame === '0'")
    assert reader.page.is_visible("#board .track")
    assert "distribuée" in reader.page.inner_text("#words")
    reader.assert_clean()
