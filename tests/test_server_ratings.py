"""Players and ratings of the room server (docs/server.md, "Players and ratings"): a player
made by ``POST /players`` and known by its key, rated rooms seating players only (one seat
a player), each finished rated match changing its players' ratings once, in the
transaction of its last turn, the leaderboard and a player's page in JSON; hostile keys,
names and farming; the schema migration to version 3."""
from __future__ import annotations

import sqlite3
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("openskill")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_server_features import V1  # noqa: E402
from test_server_protocol import FAST, Player, connect  # noqa: E402

from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.ratings import (ABANDONED, MIN_OWN_TURNS, RATED, SELF_PLAY,  # noqa: E402
                                       TOO_SHORT, MatchResult, Placing, Rating, bot_player,
                                       ranks, shown, update, verdict)
from lostcities.server.store import (SCHEMA_VERSION, SQLiteStore, StoreError,  # noqa: E402
                                     token_hash)

#: a duel of one round, 12 cards, hands of 3: six turns, three a seat
TINY = """\
id: tiny-duel
name: A tiny duel
players: {min: 2, max: 2}
deck:
  colours:
    - {key: r, name: red}
    - {key: g, name: green}
    - {key: b, name: blue}
  values: {min: 1, max: 4}
hand_size: 3
match:
  rounds: 1
scoring:
  expedition: if cards == 0 then 0 else points - 5
  round: sum(e.score for e in expeditions)
  match: sum(r for r in rounds)
"""


def tiny_packs(tmp_path: Path) -> Path:
    """A ``--packs`` folder holding :data:`TINY`."""
    folder = tmp_path / "packs"
    folder.mkdir(exist_ok=True)
    (folder / "tiny-duel.yaml").write_text(TINY, encoding="utf-8")
    return folder


def make_player(client: TestClient, name: str) -> dict[str, Any]:
    reply = client.post("/players", json={"name": name})
    assert reply.status_code == 201, reply.text
    return reply.json()


def rated_room(client: TestClient, pack: str = "tiny-duel") -> str:
    reply = client.post("/rooms", json={"pack": pack, "rated": True})
    assert reply.status_code == 201, reply.text
    return reply.json()["room"]


def hello(player: Player, key: str) -> list[dict[str, Any]]:
    """Say hello with a player key; the messages up to the pong."""
    player.send({"type": "hello", "player": key})
    return player.ping()


def seated(player: Player, key: str) -> None:
    player.receive(), player.receive()  # welcome, state
    hello(player, key)
    player.line("/join")
    player.until(lambda m: m["type"] == "seated")
    player.ping()


def play_out(players: list[Player]) -> dict[str, Any]:
    """Each seat plays its first legal move until the match is over (a bot's turn waited
    for); the ``match`` message. The one who moved pings first: its pong comes after its
    move was played and told to everyone, so the others' pings then find it."""
    moved = players[0]
    for _ in range(200):
        for p in [moved] + [p for p in players if p is not moved]:
            p.ping()
        over = [m for p in players for m in p.seen if m["type"] == "match"]
        if over:
            return over[0]
        mover = next((p for p in players if p.state and p.state["legal"]), None)
        if mover is None:  # a bot to move: its move comes (never waited for in vain)
            state = players[0].state
            assert state is not None and state["room"]["status"] == "playing" and \
                state["room"]["seats"][state["view"]["to_move"]]["kind"] == "bot", \
                players[0].seen[-6:]
            players[0].until(lambda m: m["type"] in ("turn", "match"))
            continue
        mover.send({"type": "move", "move": mover.state["legal"][0]})
        moved = mover
    raise AssertionError("the match did not end")


def ratings_of(client: TestClient, player: str) -> dict[str, Any]:
    reply = client.get(f"/players/{player}.json")
    assert reply.status_code == 200, reply.text
    return reply.json()


# --------------------------------------------------------------------------- the model

def placing(seat: int, player: str, score: int, stayed: bool = True,
            turns: int = MIN_OWN_TURNS) -> Placing:
    return Placing(seat, player, player.upper(), score, stayed, turns)


def result(*placings: Placing) -> MatchResult:
    return MatchResult("room-abcdefgh-1", "abcdefgh", "tiny-duel", "duel", placings)


def test_the_winner_goes_up_and_the_loser_down_for_two_to_four_players() -> None:
    for n in (2, 3, 4):
        match = result(*(placing(i, f"p{i}", 10 * (n - i)) for i in range(n)))
        note, after = update(match, {})
        assert note == RATED and set(after) == {f"p{i}" for i in range(n)}
        assert after["p0"].mu > Rating().mu > after[f"p{n - 1}"].mu
        assert all(r.matches == 1 and r.sigma < Rating().sigma for r in after.values())
        shown_after = [shown(after[f"p{i}"]) for i in range(n)]
        assert shown_after == sorted(shown_after, reverse=True)


def test_equal_scores_share_a_rank_and_leavers_come_last() -> None:
    assert ranks([placing(0, "a", 5), placing(1, "b", 5), placing(2, "c", 1)]) == [1, 1, 2]
    assert ranks([placing(0, "a", 90, stayed=False), placing(1, "b", 1)]) == [2, 1]


def test_a_player_in_two_seats_changes_no_rating() -> None:
    note, after = update(result(placing(0, "a", 50), placing(1, "a", 0)), {})
    assert (note, after) == (SELF_PLAY, {})
    assert verdict(result(placing(0, "", 5), placing(1, "b", 0))) == (SELF_PLAY, set())


def test_a_match_given_up_changes_only_the_leavers_rating_and_only_down() -> None:
    # the leaver scored more (a bot played on for it): it still ranks last
    match = result(placing(0, "a", 80, stayed=False, turns=0), placing(1, "b", 10))
    note, after = update(match, {"b": Rating(30.0, 2.0, 40)})
    assert note == ABANDONED and set(after) == {"a"} and after["a"].mu < Rating().mu


def test_a_match_too_short_to_say_anything_rates_nobody() -> None:
    match = result(placing(0, "a", 10, turns=MIN_OWN_TURNS - 1), placing(1, "b", 0))
    assert update(match, {}) == (TOO_SHORT, {})


def test_a_bot_strength_is_a_player() -> None:
    assert bot_player("greedy") == "bot-greedy" and bot_player("ismcts@5") == "bot-ismcts-5"


# --------------------------------------------------------------------------- the store

def test_a_rating_is_applied_once_with_its_turn_and_a_second_one_is_refused(
        open_store) -> None:
    store = open_store(durable=False)
    store.create_room("abcdefgh", "builtin:duel-classic", 1, rated=True)
    for player in ("a", "b"):
        store.create_player(player * 16, token_hash(player), player)
    match = result(placing(0, "a" * 16, 10), placing(1, "b" * 16, 0))
    store.add_turn("abcdefgh", 0, "move", "p r1 deck", status="over", result=match)
    once = store.ratings("a" * 16)
    with pytest.raises(StoreError, match="rated already"):
        store.add_turn("abcdefgh", 1, "move", "p r2 deck", result=match)
    assert store.ratings("a" * 16) == once and once["duel"].matches == 1
    assert len(store.turns("abcdefgh")) == 1  # the refused turn took nothing with it
    assert [p.match for p in store.placings("b" * 16, 10)] == ["room-abcdefgh-1"]
    store.close()


def test_a_rating_that_cannot_be_worked_out_refuses_its_turn_whole(
        open_store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model missing (openskill not importable): the last turn is refused with one
    StoreError, nothing of it kept, the store still writes; once the model is back the
    same turn is stored and rated."""
    store = open_store(durable=False)
    store.create_room("abcdefgh", "builtin:duel-classic", 1, rated=True)
    for player in ("a", "b"):
        store.create_player(player * 16, token_hash(player), player)
    match = result(placing(0, "a" * 16, 10), placing(1, "b" * 16, 0))
    monkeypatch.setitem(sys.modules, "openskill.models", None)
    with pytest.raises(StoreError, match="cannot be rated: ModuleNotFoundError"):
        store.add_turn("abcdefgh", 0, "move", "p r1 deck", status="over", result=match)
    assert store.turns("abcdefgh") == [] and store.ratings("a" * 16) == {}
    store.add_chat("abcdefgh", "a", "still writing")  # no transaction left open
    monkeypatch.undo()
    store.add_turn("abcdefgh", 0, "move", "p r1 deck", status="over", result=match)
    assert store.ratings("a" * 16)["duel"].matches == 1
    store.close()


V2_ROOM = ("INSERT INTO rooms VALUES ('abcdefgh', 'builtin:duel-classic', 7, 'lobby', '[]', "
           "?, '', '', 0)")


def test_a_schema_2_database_gets_the_players_tables_and_keeps_its_rooms(
        tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(V1)
    for statement in ("ALTER TABLE rooms ADD COLUMN pack_data TEXT NOT NULL DEFAULT ''",
                      "ALTER TABLE rooms ADD COLUMN pack_sha256 TEXT NOT NULL DEFAULT ''",
                      "ALTER TABLE rooms ADD COLUMN hints INTEGER NOT NULL DEFAULT 0",
                      "ALTER TABLE seats ADD COLUMN seen REAL NOT NULL DEFAULT 0"):
        db.execute(statement)
    db.execute("UPDATE meta SET value='2' WHERE key='schema'")
    db.execute(V2_ROOM, (time.time(),))
    db.execute("INSERT INTO seats VALUES ('abcdefgh', 0, 'Ada', 'human', '', 'x', 0, 5)")
    db.commit()
    db.close()
    store = SQLiteStore(path)
    room = store.room("abcdefgh")
    assert room is not None and room.rated is False and not room.hints
    assert [(s.name, s.player, s.seen) for s in store.seats("abcdefgh")] == [("Ada", "", 5.0)]
    assert store.create_player("c" * 16, token_hash("k"), "Cy").name == "Cy"
    assert store.player_by_key(token_hash("k")).id == "c" * 16
    store.close()
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == \
        str(SCHEMA_VERSION)
    db.close()


def test_a_migration_that_fails_halfway_leaves_the_schema_2_database_as_it_was(
        tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(V1)
    db.execute("UPDATE meta SET value='2' WHERE key='schema'")  # yet without schema 2's columns
    # the step's first statement (rooms.rated) goes through, its second (seats.player) not
    db.execute("ALTER TABLE seats ADD COLUMN player TEXT")
    db.commit()
    db.close()
    with pytest.raises(StoreError) as caught:
        SQLiteStore(path)
    # (the steps run in one transaction: 2 to 3 and 3 to 4 went through, 4 to 5 did not)
    assert "cannot migrate it from schema version 4" in str(caught.value)
    assert "\n" not in str(caught.value)
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == "2"
    assert "rated" not in {r[1] for r in db.execute("PRAGMA table_info(rooms)")}
    db.close()


# --------------------------------------------------------------------------- the server

def test_a_rated_match_changes_both_ratings_once_and_shows_them(tmp_path: Path) -> None:
    app = create_app(tmp_path, tiny_packs(tmp_path), limits=FAST, durable=False)
    with TestClient(app) as client:
        ada, bob = make_player(client, "Ada"), make_player(client, "Bob")
        room = rated_room(client)
        with connect(client, room) as a, connect(client, room) as b:
            pa, pb = Player(a), Player(b)
            seated(pa, ada["key"])
            seated(pb, bob["key"])
            pa.ping()
            assert [s["player"] for s in pb.state["room"]["seats"]] == [ada["player"],
                                                                         bob["player"]]
            assert pb.state["room"]["rated"] is True
            pa.line("/start")
            match = play_out([pa, pb])
            pa.line("/cont")
            assert pa.ping()[-1]["key"] in ("error.rated-no-cont", "error.no-continue")
        winners = {ada["player"] if w == 0 else bob["player"] for w in match["winners"]}
        for who in (ada, bob):
            page = ratings_of(client, who["player"])
            assert page["name"] == who["name"] and len(page["matches"]) == 1
            [rating] = page["ratings"]
            assert rating["family"] == "duel" and rating["matches"] == 1
            assert len(page["history"]) == 1
            went_up = rating["mu"] > 25.0
            assert went_up == (who["player"] in winners and len(winners) == 1) or \
                len(winners) == 2
            assert page["matches"][0]["others"] == ["Bob" if who is ada else "Ada"]
        board = client.get("/leaderboard.json?family=duel").json()
        assert {p["player"] for p in board["players"]} == {ada["player"], bob["player"]}
        assert [p["rank"] for p in board["players"]] == [1, 2]
        assert client.get("/leaderboard.json?family=board").json()["players"] == []
        assert client.get("/leaderboard.json?family=<b>").status_code == 400


#: :data:`TINY` for three: 18 cards, hands of 3, nine turns (three a seat)
TINY_THREE = TINY.replace("id: tiny-duel", "id: tiny-three").replace(
    "players: {min: 2, max: 2}", "players: {min: 3, max: 3}").replace("max: 4}", "max: 6}")


def test_three_players_are_ranked_by_their_totals_at_once(tmp_path: Path) -> None:
    packs = tiny_packs(tmp_path)
    (packs / "tiny-three.yaml").write_text(TINY_THREE, encoding="utf-8")
    app = create_app(tmp_path, packs, limits=FAST, durable=False)
    with TestClient(app) as client:
        ada, bob = make_player(client, "Ada"), make_player(client, "Bob")
        room = rated_room(client, "tiny-three")
        with connect(client, room) as a, connect(client, room) as b:
            pa, pb = Player(a), Player(b)
            seated(pa, ada["key"])
            seated(pb, bob["key"])
            pa.line("/bot random")
            pa.line("/start")
            match = play_out([pa, pb])
        ids = [ada["player"], bob["player"], "bot-random"]
        pages = [ratings_of(client, p) for p in ids]
        assert all(p["ratings"][0]["matches"] == 1 for p in pages)
        totals = match["totals"]
        ranked = [p["matches"][0]["rank"] for p in pages]
        assert ranked == [1 + sorted(set(totals), reverse=True).index(t) for t in totals]
        mus = [p["ratings"][0]["mu"] for p in pages]
        best, worst = totals.index(max(totals)), totals.index(min(totals))
        assert max(totals) == min(totals) or mus[best] > mus[worst]


def test_a_rated_room_seats_players_only_and_one_seat_each(tmp_path: Path) -> None:
    app = create_app(tmp_path, tiny_packs(tmp_path), limits=FAST, durable=False)
    with TestClient(app) as client:
        ada = make_player(client, "Ada")
        room = rated_room(client)
        with connect(client, room) as a, connect(client, room) as b, \
                connect(client, room) as c:
            nobody, forged, twin = Player(a), Player(b), Player(c)
            for p in (nobody, forged, twin):
                p.receive(), p.receive()
            nobody.line("/join Eve")
            assert nobody.ping()[-1]["key"] == "error.rated-needs-player"
            got = hello(forged, ada["key"] + "x")  # a forged key is nobody's
            assert [m["key"] for m in got if m["type"] == "error"] == ["error.bad-player"]
            assert [m["player"] for m in got if m["type"] == "welcome"] == [None]
            forged.line("/join")
            assert forged.ping()[-1]["key"] == "error.rated-needs-player"
            seated_ada = Player(a)
            hello(seated_ada, ada["key"])
            seated_ada.line("/join")
            seated_ada.until(lambda m: m["type"] == "seated")
            got = hello(twin, ada["key"])  # the same key on a second socket: no second seat
            assert [m["player"] for m in got if m["type"] == "welcome"] == [
                {"id": ada["player"], "name": "Ada"}]
            twin.line("/join Ada2")
            assert twin.ping()[-1]["key"] == "error.player-seated"
            seated_ada.line("/bot greedy")
            seated_ada.line("/bot greedy")  # a bot strength is a player: one seat too
            errors = [m for m in seated_ada.ping() if m["type"] == "error"]
            assert [m["key"] for m in errors] == ["error.player-seated"]
        assert client.post("/rooms", json={"pack": "tiny-duel", "rated": True,
                                           "hints": True}).status_code == 400


def test_a_bot_strength_gets_a_rating_a_newcomer_can_measure_against(tmp_path: Path) -> None:
    app = create_app(tmp_path, tiny_packs(tmp_path), limits=FAST, durable=False)
    with TestClient(app) as client:
        ada = make_player(client, "Ada")
        room = rated_room(client)
        with connect(client, room) as a:
            pa = Player(a)
            seated(pa, ada["key"])
            pa.line("/bot ismcts@1")
            pa.line("/start")
            play_out([pa])
        bot = ratings_of(client, "bot-ismcts-1")
        assert bot["bot"] == bot["name"] == "ismcts@1" and bot["ratings"][0]["matches"] == 1
        players = client.get("/leaderboard.json").json()["players"]
        assert {p["player"] for p in players} == {ada["player"], "bot-ismcts-1"}
        assert [p["bot"] for p in players if p["player"] == "bot-ismcts-1"] == ["ismcts@1"]


def test_giving_a_match_up_at_once_feeds_nobody(tmp_path: Path) -> None:
    """A second key that leaves at once and lets a bot lose for it: the other player's
    rating does not move; the leaver's goes down."""
    clock = [1_000_000.0]
    app = create_app(tmp_path, tiny_packs(tmp_path), limits=FAST, durable=False,
                     clock=lambda: clock[0])
    with TestClient(app) as client:
        ada, alt = make_player(client, "Ada"), make_player(client, "Alt")
        room = rated_room(client)
        with connect(client, room) as a:
            pa = Player(a)
            seated(pa, ada["key"])
            with connect(client, room) as b:
                pb = Player(b)
                seated(pb, alt["key"])
                pa.line("/start")
                pa.started()
                pb.line("/leave")
                pb.ping()
            pa.line("/bot random")  # the left seat goes to a bot at once
            play_out([pa])
        assert ratings_of(client, ada["player"])["ratings"] == []
        [placed] = ratings_of(client, ada["player"])["matches"]
        assert placed["note"] == "abandoned" and placed["change"] == 0
        [lost] = ratings_of(client, alt["player"])["ratings"]
        assert lost["mu"] < 25.0 and lost["matches"] == 1


def test_names_with_markup_are_kept_as_text_and_refusals_are_one_line(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        evil = make_player(client, "<img src=x onerror=alert(1)>")
        assert evil["name"] == "<img src=x onerror=alert(1)>"[:24]
        assert ratings_of(client, evil["player"])["name"] == evil["name"]
        for name, key in (("*Ada*", "error.name-marker"), ("A\u200bda", "error.name-invisible")):
            reply = client.post("/players", json={"name": name})
            assert reply.status_code == 400 and reply.json()["error"] == key
        assert client.post("/players", content="name=x",
                           headers={"content-type": "text/plain"}).status_code == 415
        assert client.get("/players/nosuchplayerxxxx.json").status_code == 404
        assert client.get("/players/..%2f..%2fetc.json").status_code == 404
        page = client.get(f"/players/{evil['player']}")
        assert page.status_code == 200 and "onerror" not in page.text


def test_players_made_too_fast_from_one_address_are_refused(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=FAST, durable=False)
    with TestClient(app) as client:
        codes = [client.post("/players", json={"name": f"P{i}"}).status_code
                 for i in range(FAST.address_players_per_minute + 1)]
        assert codes[-1] == 429 and set(codes[:-1]) == {201}
        # looking keys up shares that bucket: guessing keys is as slow as making players
        assert client.post("/players/me", json={"key": "guess"}).status_code == 429


def test_a_server_holds_so_many_players(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=replace(FAST, players=1), durable=False)
    with TestClient(app) as client:
        make_player(client, "Ada")
        reply = client.post("/players", json={"name": "Bob"})
        assert reply.status_code == 503 and reply.json()["error"] == "error.players-full"


def test_a_key_moves_a_player_and_a_forged_one_is_nobody(tmp_path: Path) -> None:
    app = create_app(tmp_path, limits=replace(FAST, address_players_per_minute=100),
                     durable=False)
    with TestClient(app) as client:
        ada = make_player(client, "Ada")
        reply = client.post("/players/me", json={"key": ada["key"]})
        assert reply.status_code == 200 and reply.json() == {"player": ada["player"],
                                                             "name": "Ada"}
        for forged in (ada["key"][:-1], ada["key"] + "=", token_hash(ada["key"]),
                       ada["player"]):
            reply = client.post("/players/me", json={"key": forged[:100]})
            assert reply.status_code == 404 and reply.json()["error"] == "error.bad-player"
        assert "key" not in ratings_of(client, ada["player"])
        assert ada["key"] not in client.get(f"/players/{ada['player']}.json").text


def test_a_left_seat_of_a_rated_match_is_its_players_alone(tmp_path: Path) -> None:
    app = create_app(tmp_path, tiny_packs(tmp_path), limits=FAST, durable=False)
    with TestClient(app) as client:
        ada, alt, eve = (make_player(client, n) for n in ("Ada", "Alt", "Eve"))
        room = rated_room(client)
        with connect(client, room) as a, connect(client, room) as b, \
                connect(client, room) as c:
            pa, pb, pe = Player(a), Player(b), Player(c)
            seated(pa, ada["key"])
            seated(pb, alt["key"])
            pa.line("/start")
            pa.started()
            pb.line("/leave")
            pb.ping()
            pe.receive(), pe.receive()
            hello(pe, eve["key"])
            pe.line("/join")  # another player: the seat is not Eve's
            assert pe.ping()[-1]["key"] == "error.room-full"
            pb.line("/join")  # its player takes it back
            pb.until(lambda m: m["type"] == "seated")
            pb.ping()
            seats = pb.state["room"]["seats"]
            assert [(s["kind"], s["player"]) for s in seats] == [
                ("human", ada["player"]), ("human", alt["player"])]
            play_out([pa, pb])
        for who in (ada, alt):
            assert ratings_of(client, who["player"])["ratings"][0]["matches"] == 1
        assert ratings_of(client, eve["player"])["matches"] == []


# --------------------------------------------------------------------------- fuzz

@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.one_of(st.text(max_size=120), st.integers(), st.none(), st.lists(st.text())),
       name=st.one_of(st.text(max_size=140), st.integers(), st.none(),
                      st.dictionaries(st.text(max_size=5), st.text(max_size=5))),
       rated=st.one_of(st.booleans(), st.integers(), st.text(max_size=5), st.none()))
def test_any_player_field_gets_one_clear_answer(tmp_path_factory: Any, key: Any,
                                                name: Any, rated: Any) -> None:
    tmp = tmp_path_factory.mktemp("fuzz")
    app = create_app(tmp, limits=FAST, durable=False)
    with TestClient(app) as client:
        reply = client.post("/players", json={"name": name})
        assert reply.status_code in (201, 400), reply.text
        assert set(reply.json()) in ({"player", "name", "key"}, {"error", "text"})
        reply = client.post("/players/me", json={"key": key})
        assert reply.status_code in (400, 404) and set(reply.json()) == {"error", "text"}
        reply = client.post("/rooms", json={"pack": "duel-classic", "rated": rated})
        assert reply.status_code == (201 if isinstance(rated, bool) else 400), reply.text
        room = client.post("/rooms", json={"pack": "duel-classic", "rated": True}).json()["room"]
        with connect(client, room) as socket:
            p = Player(socket)
            p.receive(), p.receive()
            p.send({"type": "hello", "player": key})
            got = p.ping()
            errors = [m for m in got if m["type"] == "error"]
            assert len(errors) <= 1 and all("\n" not in m["text"] for m in errors)
            if errors:
                assert errors[0]["key"] in ("error.bad-message", "error.bad-player",
                                            "error.bad-text")
            p.line("/join")
            assert p.ping()[-1]["key"] == "error.rated-needs-player"
