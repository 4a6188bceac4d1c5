"""The room store's turns under concurrent writers (group commit), and what a room tells
its clients about seats and running scores (lostcities.server); the store tests run on
each store, SQLite and PostgreSQL (a real throwaway server: pg_support)."""
from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostcities.engine import live_scores, load_pack
from lostcities.server.protocol import is_plain_move, localize, problem, schema
from lostcities.server.room import Outcome, Room
from lostcities.server.ratings import MatchResult, Placing
from lostcities.server.store import MOVE, SeatRow, Store, StoreError, token_hash

WRITERS = 12


def rooms(store: Store, count: int) -> list[str]:
    ids = [f"room{i:04d}" for i in range(count)]
    for room_id in ids:
        store.create_room(room_id, "builtin:duel-classic", 1)
    return ids


def at_once(work: list) -> list:
    """Run each callable in a thread of its own, all released together; what each
    returned or raised."""
    barrier = threading.Barrier(len(work))
    results: list = [None] * len(work)

    def run(i: int) -> None:
        barrier.wait(timeout=60)
        try:
            results[i] = work[i]()
        except Exception as err:  # noqa: BLE001 - the result under test
            results[i] = err

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(work))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return results


@pytest.mark.parametrize("durable", [True, False])
def test_turns_written_by_many_rooms_at_once_are_all_committed_in_order(
        open_store, durable: bool) -> None:
    store = open_store(durable=durable)
    ids = rooms(store, WRITERS)
    for number in range(5):
        results = at_once([lambda r=r, n=number: store.add_turn(r, n, MOVE, f"p r{n} deck")
                           for r in ids])
        assert results == [None] * WRITERS
    store.close()
    again = open_store()  # what a restarted server reads
    for room_id in ids:
        assert [(t.number, t.text) for t in again.turns(room_id)] == \
            [(n, f"p r{n} deck") for n in range(5)]
    again.close()


def test_a_refused_turn_among_concurrent_ones_refuses_no_other(open_store) -> None:
    store = open_store()
    ids = rooms(store, WRITERS)
    store.add_turn(ids[0], 0, MOVE, "p r2 deck")
    work = [lambda r=r: store.add_turn(r, 0, MOVE, "p r3 deck") for r in ids]  # ids[0]: taken
    work.append(lambda: store.add_turn(ids[1], 5, MOVE, "p r4 deck"))  # not the next number
    results = at_once(work)
    assert isinstance(results[0], StoreError)
    assert isinstance(results[-1], StoreError)
    assert all(r is None for r in results[2:-1])
    assert [t.text for t in store.turns(ids[0])] == ["p r2 deck"]
    for room_id in ids[2:]:
        assert [t.text for t in store.turns(room_id)] == ["p r3 deck"]
    # the next turn after a refusal is numbered as if nothing happened
    store.add_turn(ids[0], 1, MOVE, "d r5 deck", status="over")
    assert store.room(ids[0]).status == "over"
    with pytest.raises(StoreError, match="not the next"):
        store.add_turn(ids[0], 3, MOVE, "p r6 deck")
    store.close()


def test_a_plain_move_the_database_refuses_among_concurrent_ones_refuses_no_other(
        open_store) -> None:
    # a plain move is one INSERT without a savepoint of its own (SQLite) or a transaction
    # of its own (PostgreSQL): refused by the database (here its room is not stored: the
    # foreign key), it must undo itself alone
    store = open_store()
    ids = rooms(store, WRITERS)
    for number in range(3):
        work = [lambda r=r, n=number: store.add_turn(r, n, MOVE, f"p r{n + 2} deck")
                for r in ids]
        work.insert(WRITERS // 2, lambda n=number: store.add_turn("nosuchid", n, MOVE,
                                                                  "p r9 deck"))
        results = at_once(work)
        assert isinstance(results.pop(WRITERS // 2), StoreError)
        assert results == [None] * WRITERS
    for room_id in ids:
        assert [t.text for t in store.turns(room_id)] == ["p r2 deck", "p r3 deck",
                                                          "p r4 deck"]
    assert store.turns("nosuchid") == []
    store.close()


def test_one_turn_written_by_many_writers_at_once_is_stored_once(open_store) -> None:
    """Turn 0 of one room sent by every writer together: one is stored, every other
    refused (on PostgreSQL the primary key (room, number) decides, whichever connection
    wrote first)."""
    store = open_store()
    (room,) = rooms(store, 1)
    results = at_once([lambda i=i: store.add_turn(room, 0, MOVE, f"p r{i % 9 + 2} deck")
                       for i in range(WRITERS)])
    stored = [i for i, r in enumerate(results) if r is None]
    assert len(stored) == 1 and all(isinstance(r, StoreError) for r in results if r is not None)
    assert [t.text for t in store.turns(room)] == [f"p r{stored[0] % 9 + 2} deck"]
    store.close()


def test_a_finished_match_is_stored_with_its_last_turn_or_not_at_all(open_store) -> None:
    """The match's public id is written in the transaction of the turn that ends it: a
    refused turn leaves no match behind, and the id outlives the room (its record stays)."""
    store = open_store()
    ids = rooms(store, 2)
    store.add_turn(ids[0], 0, MOVE, "p r2 deck")
    with pytest.raises(StoreError):  # turn 0 again: refused, and its match with it
        store.add_turn(ids[0], 0, MOVE, "p r3 deck", status="over",
                       finishes=("aaaaaaaaaaaaaaaa", 3))
    assert store.match("aaaaaaaaaaaaaaaa") is None
    store.add_turn(ids[0], 1, MOVE, "p r3 deck", status="over",
                   finishes=("aaaaaaaaaaaaaaaa", 3))
    found = store.match("aaaaaaaaaaaaaaaa")
    assert (found.room, found.rounds) == (ids[0], 3)
    store.delete_rooms([ids[0]])  # the room expired: its replay stays
    store.close()
    again = open_store()
    assert again.room(ids[0]) is None and again.match("aaaaaaaaaaaaaaaa") == found
    again.close()


def test_info_texts_number_seats_from_one_and_the_protocol_from_zero(open_store) -> None:
    store = open_store()
    room = Room.create(store, "abcdefgh", load_pack("duel-classic"), "builtin:duel-classic")
    joined = room.line(None, "/join Ada")
    assert isinstance(joined, Outcome) and joined.token
    en = localize(joined.events[0], "en")
    fr = localize(joined.events[0], "fr")
    assert en["text"] == "Ada takes seat 1" and fr["text"] == "Ada prend la place 1"
    assert room.info()["seats"][0]["seat"] == 0
    bot = localize(room.line(0, "/bot").events[0], "en")
    assert bot["text"] == "the bot greedy (greedy) takes seat 2"
    assert room.info()["seats"][1]["seat"] == 1
    again = localize(room.line(0, "/join Eve").replies[0], "en")
    assert again["text"] == "you already have seat 1"
    store.close()


def test_every_state_view_carries_the_running_scores_of_the_public_table(
        open_store) -> None:
    store = open_store()
    room = Room.create(store, "abcdefgh", load_pack("duel-classic"), "builtin:duel-classic")
    assert room.view_for(None)["view"] is None  # the lobby: no table yet
    room.line(None, "/join Ada")
    room.line(None, "/join Bob")
    room.line(0, "/start")
    for _ in range(12):
        state = room.state
        seat = state.to_move
        legal = room.view_for(seat)["legal"]
        plays = [m for m in legal if m.startswith("p ")] or legal
        assert room.move(seat, plays[0]).changed
        expected = [int(s) for s in live_scores(room.state)]
        for who in (0, 1, None):
            assert room.view_for(who)["view"]["live"] == expected
    assert any(expected)  # cards were played: a row scores something
    store.close()


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["type", "move", "seat", "text", "lang"]),
                       st.one_of(st.sampled_from(["move", "line", "hello"]),
                                 st.text(max_size=210), st.integers(-3, 20), st.booleans(),
                                 st.floats(0, 20), st.none()), max_size=4))
def test_the_quick_check_of_a_move_message_agrees_with_the_schema(message: dict) -> None:
    from jsonschema import Draft202012Validator

    whole = schema()
    validator = Draft202012Validator({"$ref": "#/$defs/client", "$defs": whole["$defs"]})
    if is_plain_move(message):  # said valid without the validator: the validator agrees
        assert validator.is_valid(message)
    assert (problem(message, "client") is None) == validator.is_valid(message)


def test_every_call_of_the_store_reads_back_what_it_wrote(open_store) -> None:
    """The Store interface call by call, the same on each store: rooms, seats (replaced,
    freed: the later ones move up), absences, chat (the last ``chat_keep`` kept), finished
    matches, players, ratings and the leaderboard, rooms deleted."""
    store = open_store(chat_keep=3)
    first = store.create_room("aaaaaaaa", "builtin:duel-classic", 2 ** 48 - 1, hints=True,
                              listed=True)
    store.create_room("bbbbbbbb", "builtin:board-classic", 5, rated=True)
    with pytest.raises(StoreError, match="exists"):
        store.create_room("aaaaaaaa", "builtin:duel-classic", 1)
    assert store.room("aaaaaaaa") == first and store.room("nosuchrm") is None
    assert store.open_rooms() == ["aaaaaaaa", "bbbbbbbb"] and store.count_rooms() == 2
    for number, name in enumerate(("Ada", "Bob", "Cy")):
        store.put_seat("aaaaaaaa", SeatRow(number, name, "human", "", token_hash(name), False))
    store.put_seat("aaaaaaaa", SeatRow(1, "Bea", "bot", "greedy", "", True, 0.0, "bot-greedy"))
    store.remove_seat("aaaaaaaa", 0)
    assert [(s.seat, s.name, s.kind, s.wants_cont, s.player)
            for s in store.seats("aaaaaaaa")] == [(0, "Bea", "bot", True, "bot-greedy"),
                                                  (1, "Cy", "human", False, "")]
    store.touch_seat("aaaaaaaa", 1, first.created + 100)
    store.start("aaaaaaaa", ["Bea", "Cy"])
    assert store.room("aaaaaaaa").labels == ("Bea", "Cy")
    assert store.room("aaaaaaaa").status == "playing"
    visits = {room: (status, last) for room, status, last in store.last_visits()}
    assert visits["aaaaaaaa"] == ("playing", first.created + 100)
    store.add_turn("aaaaaaaa", 0, "cont", "cont")  # a CONT clears every seat's wish
    assert [s.wants_cont for s in store.seats("aaaaaaaa")] == [False, False]
    for n in range(5):
        line = store.add_chat("aaaaaaaa", "Cy", f"line {n}")
    assert line.number == 4
    assert [c.text for c in store.chat("aaaaaaaa", 10)] == ["line 2", "line 3", "line 4"]
    assert [c.text for c in store.chat("aaaaaaaa", 2)] == ["line 3", "line 4"]
    store.add_turn("aaaaaaaa", 1, MOVE, "p r3 deck", status="over",
                   finishes=("mmmmmmmmmmmmmmm1", 1))
    store.add_turn("aaaaaaaa", 2, MOVE, "p r4 deck", status="over",
                   finishes=("mmmmmmmmmmmmmmm2", 2))
    assert store.room_matches("aaaaaaaa") == ["mmmmmmmmmmmmmmm1", "mmmmmmmmmmmmmmm2"]
    ada = store.create_player("a" * 16, token_hash("ka"), "Ada")
    store.create_player("b" * 16, token_hash("kb"), "Bob")
    with pytest.raises(StoreError):  # the same key: refused
        store.create_player("c" * 16, token_hash("ka"), "Cy")
    assert store.player("a" * 16) == ada and store.player_by_key(token_hash("kb")).name == "Bob"
    assert store.count_players() == 2
    match = MatchResult("room-bbbbbbbb-1", "bbbbbbbb", "builtin:board-classic", "board",
                        (Placing(0, "a" * 16, "Ada", 30, True, 9),
                         Placing(1, "b" * 16, "Bob", 10, True, 9),
                         Placing(2, "bot-greedy", "greedy", 0, True, 9, bot="greedy")))
    store.add_turn("bbbbbbbb", 0, MOVE, "p r3 deck", status="over", result=match)
    board = store.leaderboard("board", 10)
    assert [p.id for p, _ in board] == ["a" * 16, "b" * 16, "bot-greedy"]
    assert [r.matches for _, r in board] == [1, 1, 1] and board[0][1].mu > board[1][1].mu
    assert store.ratings("a" * 16) == {"board": board[0][1]}
    (placed,) = store.placings("b" * 16, 10)
    assert (placed.match, placed.rank, placed.others) == ("room-bbbbbbbb-1", 2, ("Ada", "greedy"))
    assert (placed.before.matches, placed.after.matches) == (0, 1)
    assert store.player("bot-greedy").bot == "greedy"  # a bot strength: made at its first
    store.delete_rooms(["aaaaaaaa", "bbbbbbbb"])
    assert store.open_rooms() == [] and store.turns("aaaaaaaa") == []
    assert store.match("mmmmmmmmmmmmmmm2").room == "aaaaaaaa"  # a replay outlives its room
    store.close()


def test_rematch_clocks_and_forfeits_are_stored_alike_on_both_stores(open_store) -> None:
    """What the rematch and the clocks write (the room's time control and start, each
    turn's time, the kinds timeout, forfeit and rematch, the seats' wants_rematch, each
    finished match's number in its room, the rooms whose humans have all gone) reads back
    the same from either store, and after a restart."""
    from lostcities.server.store import CONT, FORFEIT, REMATCH, TIMEOUT

    store = open_store()
    room = store.create_room("aaaaaaaa", "builtin:duel-classic", 1,
                             clock='{"kind":"move","seconds":30}')
    assert room.clock == '{"kind":"move","seconds":30}' and room.started == 0.0
    for number, name in enumerate(("Ada", "Bob")):
        store.put_seat("aaaaaaaa", SeatRow(number, name, "human", "", token_hash(name), False,
                                           5.0, "", wants_rematch=number == 1))
    store.start("aaaaaaaa", ["Ada", "Bob"], at=100.5)
    store.add_turn("aaaaaaaa", 0, MOVE, "p r5 deck", at=101.25)
    store.add_turn("aaaaaaaa", 1, TIMEOUT, "d b3 deck", at=131.5)
    store.add_turn("aaaaaaaa", 2, FORFEIT, '{"seat":0,"reason":"resign"}', status="over",
                   finishes=("m" * 16, 1, 1), at=140.0)
    rotated = [SeatRow(0, "Bob", "human", "", token_hash("Bob"), False, 5.0),
               SeatRow(1, "Ada", "human", "", token_hash("Ada"), False, 5.0)]
    with pytest.raises(StoreError, match="turn 2 "):  # (exists, or is not the next)
        store.rematch("aaaaaaaa", 2, '{"seed":7,"labels":["Bob","Ada"]}', rotated, at=150.0)
    store.rematch("aaaaaaaa", 3, '{"seed":7,"labels":["Bob","Ada"]}', rotated, at=150.0)
    store.add_turn("aaaaaaaa", 4, CONT, "cont", status="playing", at=151.0)
    store.create_room("bbbbbbbb", "builtin:duel-classic", 2)
    store.put_seat("bbbbbbbb", SeatRow(0, "Cy", "left", "", "", False, 9.0))
    store.put_seat("bbbbbbbb", SeatRow(1, "Dee", "bot", "greedy", "", False))
    for restarted in (False, True):
        if restarted:  # what a restarted server reads
            store.close()
            store = open_store()
        reader = store
        row = reader.room("aaaaaaaa")
        assert (row.status, row.started, row.clock) == ("playing", 150.0,
                                                        '{"kind":"move","seconds":30}')
        assert [(t.kind, t.at) for t in reader.turns("aaaaaaaa")] == [
            (MOVE, 101.25), (TIMEOUT, 131.5), (FORFEIT, 140.0), (REMATCH, 150.0),
            (CONT, 151.0)]
        assert [(s.name, s.wants_rematch) for s in reader.seats("aaaaaaaa")] == [
            ("Bob", False), ("Ada", False)]
        assert reader.match("m" * 16).number == 1
        assert reader.room_matches("aaaaaaaa") == ["m" * 16]
        assert reader.unpeopled_rooms() == {"bbbbbbbb"}
    store.close()
