"""Records written fast are byte for byte the records written before: the same JSON text as
``json.dumps(record_of(state), separators=(",", ":"))`` for every pack, bot and extra field,
and the same files for the same seeds as the code they replace wrote."""
from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lostcities.engine.packs.loader import load_pack
from lostcities.engine.lab.records import dumps, engine_version, record_of
from lostcities.engine.lab.simulation import play_match, simulate

HOUSE = Path(__file__).parent / "fixtures" / "packs" / "valid" / "base-house.yaml"
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: SHA-256 of the records simulate() wrote before records were written fast (the
#: json.dumps of record_of for every line): the same seeds must give the same bytes
#: (they change only with a change of play or of the engine's version, which is in them)
GOLDEN = [
    ("duel-classic", ["random", "random"], 60,
     "7074a5869f89cca9804574b48c7bff8d3baae62e0362187a636fb54237f41f48"),
    ("board-classic", ["greedy", "random", "random"], 3,
     "edd413f6f0182ce0cdf0530bd41886843999c064611ddcd248d37aa712c81277"),
    (str(HOUSE), ["random", "random"], 5,
     "d67c47c89cfbf32ab32a9f029e8bd3ca83807d6253de16b184efc11fc7ab099d"),
]


@pytest.mark.parametrize("pack, bots, games, digest", GOLDEN)
def test_records_are_the_bytes_written_before(pack, bots, games, digest):
    assert engine_version() == "lostcities 0.1.0", "the engine's version is in the golden bytes"
    buf = io.StringIO()
    simulate(load_pack(pack), bots, games, 3, workers=1, record=buf)
    assert hashlib.sha256(buf.getvalue().encode("utf-8")).hexdigest() == digest


def slow_dumps(state, **extra) -> str:
    return json.dumps(record_of(state, **extra), separators=(",", ":"))


EXTRAS = st.dictionaries(
    st.sampled_from(["simulation", "rounds", "format", "note", "été", "turns", "x\u2028y"]),
    st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=8),
    max_size=3)


@FUZZ
@given(pack=st.sampled_from(["duel-classic", "duel-six", "board-classic", "board-short",
                             "duel-grenoble", str(HOUSE)]),
       seed=st.integers(0, 2**64 - 1), extra=EXTRAS)
def test_dumps_is_json_dumps_of_the_record(pack, seed, extra):
    from lostcities.engine.bots.registry import make_bot
    rules = load_pack(pack)
    bots = [make_bot("random") for _ in range(rules.min_players)]
    state = play_match(rules, bots, seed)
    assert dumps(state, **extra) == slow_dumps(state, **extra)
    # the cache of turn texts gives the same text the second time
    assert dumps(state, **extra) == slow_dumps(state, **extra)


def test_engine_version_is_looked_up_once():
    engine_version.cache_clear()
    first = engine_version()
    assert engine_version() is first
    assert first.startswith("lostcities")


def test_dumps_stays_exact_when_its_tables_fill_up(monkeypatch):
    from lostcities.engine.lab import records
    from lostcities.engine.bots.registry import make_bot
    monkeypatch.setattr(records, "_TURN_TEXT_SIZE", 5)
    for pack, seats in [("duel-classic", 2), ("duel-grenoble", 4), ("board-classic", 3)]:
        rules = load_pack(pack)
        state = play_match(rules, [make_bot("greedy")] + [make_bot("random")] * (seats - 1), 11)
        assert dumps(state) == slow_dumps(state)
        assert dumps(state, simulation={"seed": 1}) == slow_dumps(state, simulation={"seed": 1})
