"""Game records: the format the engine writes, reading JSON Lines, and checked replays."""
from __future__ import annotations

import copy
import io
import json
import random
from importlib.resources import files

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enginehelpers import derived, pack
from lostcities.engine.errors import RecordError
from lostcities.engine.lab.records import (RECORD_FORMAT, check_shape, dumps, read_records,
                                          record_of, replay)
from lostcities.engine.game.turn import continue_match, is_over, new_game, push, random_move, totals


def finished(pack_id="duel-classic", players=2, seed=1, p=None):
    p = p or pack(pack_id)
    s = new_game(p, players, seed)
    rng = random.Random(seed)
    while not is_over(s):
        push(s, random_move(s, rng))
    return s


@pytest.fixture(scope="module")
def classic():
    return json.loads(dumps(finished()))


def test_the_record_has_exactly_the_issues_fields(classic):
    assert classic["format"] == RECORD_FORMAT == "lostcities-record/1"
    assert {"format", "pack", "seed", "players", "rounds", "totals"} <= set(classic)
    assert classic["pack"] == "duel-classic" and classic["seed"] == 1
    assert classic["players"] == ["P1", "P2"] and len(classic["rounds"]) == 3
    rnd = classic["rounds"][0]
    assert {"starter", "hands", "draw_pile", "turns", "scores", "end"} <= set(rnd)
    assert len(rnd["hands"]) == 2 and all(len(h) == 8 for h in rnd["hands"])
    assert len(rnd["draw_pile"]) == 44 and rnd["end"] == "draw-pile-empty"
    turn = rnd["turns"][0]
    assert set(turn) == {"player", "card", "action", "draw"}
    assert turn["player"] == rnd["starter"] and turn["action"] in ("play", "discard")
    cards = [c for h in rnd["hands"] for c in h] + rnd["draw_pile"]
    assert all(c[0] in "ybwgr" and (c[1:] == "x" or 2 <= int(c[1:]) <= 10) for c in cards)
    assert sum(r["scores"][0] for r in classic["rounds"]) == classic["totals"][0]
    check_shape(classic, "t")  # the JSON Schema accepts what the engine writes


def test_draw_pile_is_listed_top_first(classic):
    rnd = classic["rounds"][0]
    first_deck_draw = next(i for i, t in enumerate(rnd["turns"]) if t["draw"] == "deck")
    s = new_game(pack("duel-classic"), 2, 1)
    assert pack("duel-classic").cards.format(s.deck[-1]) == rnd["draw_pile"][0]
    assert first_deck_draw >= 0


def test_a_record_is_one_line_and_replays_to_the_same_record(classic):
    line = dumps(finished())
    assert "\n" not in line
    state = replay(json.loads(line))
    assert record_of(state) == classic


def test_last_play_without_drawing_is_null():
    s = finished("duel-equal", seed=3)
    record = json.loads(dumps(s))
    last = [r["turns"][-1]["draw"] for r in record["rounds"]]
    assert last == [None, None, None]
    assert record_of(replay(record)) == record


def test_continued_match_records_replay_only_where_allowed():
    s = continue_match(finished(seed=5))
    rng = random.Random(0)
    while not is_over(s):
        push(s, random_move(s, rng))
    record = json.loads(dumps(s))
    assert len(record["rounds"]) == 4
    assert totals(replay(record)) == tuple(record["totals"])
    equal = json.loads(dumps(finished("duel-equal", seed=6)))
    equal["rounds"].append(copy.deepcopy(equal["rounds"][0]))
    with pytest.raises(RecordError, match="round 4: duel-equal does not allow continuing"):
        replay(equal)


def test_a_foreign_record_without_extra_fields_replays(classic):
    record = copy.deepcopy(classic)
    for key in ("winners", "engine"):
        record.pop(key)
    for rnd in record["rounds"]:
        rnd.pop("removed")
        rnd["note"] = "extra fields are allowed"
    record["by"] = "another tool"
    assert totals(replay(record)) == tuple(classic["totals"])


def test_removed_cards_are_recorded_and_checked():
    p = derived("duel-classic", deck={"removed_unseen": [{"players": 2, "cards": 6}]})
    record = json.loads(dumps(finished(p=p)))
    assert all(len(r["removed"]) == 6 for r in record["rounds"])
    assert record_of(replay(record, pack=p)) == record


def broken(classic, change):
    record = copy.deepcopy(classic)
    change(record)
    return record


def set_(path, value):
    def change(record):
        target = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def swap_first_turn_card(record):
    rnd = record["rounds"][0]
    turn = rnd["turns"][0]
    hand = rnd["hands"][turn["player"]]
    turn["card"] = next(c for c in rnd["hands"][1 - turn["player"]] if c not in hand)


@pytest.mark.parametrize("change,message", [
    (set_(["format"], "chess-pgn"), "not a lostcities-record/1 record (format is 'chess-pgn')"),
    (lambda r: r.pop("totals"), "record: 'totals' is a required property"),
    (set_(["rounds", 0, "turns", 0, "action"], "pass"), "rounds[0].turns[0].action: 'pass'"),
    (set_(["rounds", 0, "turns", 0, "card"], "q5"), "round 1 turn 1: 'q5': unknown colour"),
    (set_(["pack"], "no-such-pack"), "pack 'no-such-pack' is not a built-in pack"),
    (set_(["pack"], "/etc/passwd"), "pack '/etc/passwd' is not a built-in pack"),
    (lambda r: r.update(winners=[s for s in (0, 1) if s not in r["winners"]] or [0]),
     "winners are seats ["),
    (set_(["seed"], 12345), "round 1: hands[0] is not what seed 12345 deals"),
    (lambda r: r["rounds"][1]["draw_pile"].reverse(), "round 2: draw_pile is not what seed"),
    (swap_first_turn_card, "round 1 turn 1: "),
    (set_(["rounds", 0, "turns", 0, "player"], 5), "round 1 turn 1: player is seat 5"),
    (set_(["rounds", 1, "starter"], 7), "round 2: starter is seat 7, the rules say seat"),
    (set_(["rounds", 2, "scores"], [1, 2]), "round 3: scores are [1, 2], the pack's formulas"),
    (set_(["rounds", 0, "end"], "turn-cap"), "round 1: end is 'turn-cap'"),
    (set_(["totals"], [0, 0]), "totals are [0, 0]"),
    (lambda r: r["rounds"][0]["turns"].pop(), "round 1: the record stops after"),
    (lambda r: r["rounds"][0]["turns"].append(r["rounds"][0]["turns"][0]),
     "the round already ended"),
    (lambda r: r["rounds"].pop(), "the record has 2 round(s), the match has 3"),
    (lambda r: r["rounds"][1]["hands"][0].pop(), "round 2: hand 1 has 7 cards"),
    (lambda r: r["rounds"][0]["draw_pile"].append("r5"), "round 1: the deal has more r5"),
    (lambda r: r["players"].append("P3"), "3 players, the pack is for 2"),
])
def test_bad_records_get_one_line_naming_where(classic, change, message):
    with pytest.raises(RecordError) as info:
        replay(broken(classic, change), where="games.jsonl:4")
    text = str(info.value)
    assert text.startswith("games.jsonl:4: ") and message in text and "\n" not in text


def test_replay_refuses_a_pack_other_than_the_records(classic):
    with pytest.raises(RecordError, match="of pack 'duel-classic', not 'duel-six'"):
        replay(classic, pack=pack("duel-six"))


def test_read_records_names_the_line():
    good = dumps(finished(seed=2))
    stream = io.StringIO(f"{good}\n\n{good}\n[1, 2]\n")
    seen = []
    with pytest.raises(RecordError, match=r"^f.jsonl:4: a record is a JSON object, not list$"):
        for lineno, data in read_records(stream, "f.jsonl"):
            seen.append(lineno)
    assert seen == [1, 3]
    with pytest.raises(RecordError, match=r"^f.jsonl:2: not JSON: "):
        list(read_records(io.StringIO(good + "\n{oops\n"), "f.jsonl"))
    binary = io.TextIOWrapper(io.BytesIO(b"\xff\xfe{}\n"), encoding="utf-8")
    with pytest.raises(RecordError, match="not UTF-8"):
        list(read_records(binary, "f.jsonl"))


def test_the_schema_ships_with_the_package():
    schema = json.loads(files("lostcities.engine.lab").joinpath("record.schema.json").read_text())
    assert schema["properties"]["format"]["const"] == RECORD_FORMAT
    assert set(schema["required"]) == {"format", "pack", "seed", "players", "rounds", "totals"}


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-1, 1)
                    | st.sampled_from(["", "deck", "r5", "rx", "R10", "r", "q", "play",
                                       "discard", "turn-cap", "r5\n", "x5"]),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(["player", "card", "pawn", "x"]), inner,
                                      max_size=3), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_fast_shape_check_never_accepts_what_the_schema_refuses(data):
    from lostcities.engine.lab.records import _surely_valid, _validator

    record = copy.deepcopy(SMALL)
    from lostcities.engine.packs.loader import iter_leaves

    # every leaf and every container above one
    paths = sorted({leaf[:i] for leaf, _ in iter_leaves(record) for i in range(1, len(leaf) + 1)},
                   key=repr)
    path = data.draw(st.sampled_from(paths), label="path")
    target = record
    for key in path[:-1]:
        target = target[key]
    how = data.draw(st.sampled_from(["replace", "delete", "add"]), label="how")
    if how == "delete":
        del target[path[-1]]
    elif how == "add" and isinstance(target, dict):
        target[data.draw(st.sampled_from(["pawn", "steps", "extra"]))] = data.draw(JSON)
    else:
        target[path[-1]] = data.draw(JSON, label="value")
    if _surely_valid(record):
        assert not list(_validator().iter_errors(record)), path


SMALL = json.loads(dumps(finished(p=derived("duel-classic", hand_size=28, turn={"turn_cap": 6}))))


def test_records_the_engine_writes_take_the_fast_shape_check(classic):
    from lostcities.engine.lab.records import _surely_valid, _validator

    assert _surely_valid(classic) and _surely_valid(SMALL)
    assert not list(_validator().iter_errors(SMALL))


EXTRA = st.dictionaries(
    st.sampled_from(["simulation", "note", "seed", "rounds", "engine", "pack_data", "x"]),
    st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=6),
    max_size=3)


@settings(max_examples=60, deadline=None)
@given(pack_id=st.sampled_from(["duel-classic", "duel-six", "board-classic", "board-short"]),
       players=st.integers(2, 3), seed=st.integers(0, 10**9), extra=EXTRA)
def test_dumps_writes_exactly_json_dumps_of_record_of(pack_id, players, seed, extra):
    """dumps and record_line put the line together field by field: the very text of
    json.dumps(record_of(...)), extra fields (even ones named like the record's) included."""
    from lostcities.engine.game.turn import winners
    from lostcities.engine.lab.records import record_line

    p = pack(pack_id)
    state = finished(players=min(players, p.max_players), seed=seed, p=p)
    want = json.dumps(record_of(state, **extra), separators=(",", ":"))
    assert dumps(state, **extra) == want
    assert record_line(state, extra, totals(state), winners(state)) == want


def test_the_claims_kept_as_json_stay_right_and_bounded_over_many_packs(tmp_path):
    """dumps keeps the JSON of a few packs' claims: with more packs than it keeps, each
    record is still json.dumps(record_of(...)), and at most 8 packs' are kept."""
    from lostcities.engine import load_pack, new_game, playout
    from lostcities.engine.lab import records
    from lostcities.engine.packs.loader import builtin_ids

    packs = [load_pack(p) for p in builtin_ids()]
    for n in range(4):
        house = tmp_path / f"house{n}.yaml"
        house.write_text(f"id: house{n}\nextends: duel-classic\nhouse_rule: true\n"
                         f"hand_size: {5 + n}\n")
        packs.append(load_pack(str(house)))
    for _ in range(2):
        for p in packs:
            state = playout(new_game(p, p.min_players, 7), random.Random(7))
            assert dumps(state) == json.dumps(record_of(state), separators=(",", ":"))
    assert len(records._CLAIMS_JSON) <= 8
