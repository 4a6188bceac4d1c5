"""Bot matches and simulation: seeds, workers, summaries, the bots themselves."""
from __future__ import annotations

import hashlib
import io
import json
import math
import random
import statistics

import pytest

from enginehelpers import complete_deal, derived, duel_ids, pack
from lostcities.engine.bots.base import BotError, GreedyBot, RandomBot, SeatView
from lostcities.engine.bots.registry import make_bot
from lostcities.engine.lab.records import replay
from lostcities.engine.lab.simulation import (RunningStats, game_seed, play_match, simulate,
                                          wilson)
from lostcities.engine.game.state import SetupError
from lostcities.engine.game.turn import apply, new_game, winners


def test_game_seeds_are_a_stable_hash_of_seed_and_index():
    digest = hashlib.sha256(b"lostcities-simulate:7:3").digest()
    assert game_seed(7, 3) == int.from_bytes(digest[:6], "big")
    assert len({game_seed(7, i) for i in range(1000)}) == 1000


def test_results_do_not_depend_on_the_number_of_workers():
    runs = []
    for workers in (1, 2):
        out = io.StringIO()
        summary = simulate("duel-classic", ["random", "greedy"], 12, 99, workers=workers,
                           record=out, chunk=2)
        runs.append((summary.to_dict(), out.getvalue()))
    assert runs[0] == runs[1]
    lines = runs[0][1].splitlines()
    assert [json.loads(x)["simulation"]["game"] for x in lines] == list(range(12))
    for line in lines[:3]:
        record = json.loads(line)
        assert record["seed"] == game_seed(99, record["simulation"]["game"])
        replay(record)


def test_summary_counts_wins_shared_wins_scores_rounds_and_ends():
    done = []
    summary = simulate(pack("duel-basic"), ["random", "random"], 30, 1, progress=done.append)
    d = summary.to_dict()
    assert done == list(range(1, 31)) and d["games"] == 30
    wins = [s["wins"] for s in d["seats"]]
    assert sum(wins) + d["shared_games"] == 30
    assert d["by_bot"]["random"]["wins"] == sum(wins)
    assert d["by_bot"]["random"]["seat_games"] == 60
    assert d["rounds_per_match"]["mean"] == 3
    assert sum(d["round_ends"].values()) == 90
    # the figures are those of the matches themselves
    totals, ends = [], []
    for i in range(30):
        s = play_match(pack("duel-basic"), [RandomBot(), RandomBot()], game_seed(1, i))
        totals.append(s.finished and [sum(r.scores[0] for r in s.finished)])
        ends += [r.end for r in s.finished]
    assert d["seats"][0]["score"]["mean"] == round(statistics.mean(t[0] for t in totals), 3)
    assert d["round_ends"] == {e: ends.count(e) for e in set(ends)}
    text = summary.text()
    assert "95% interval" in text and "rounds ended by: draw-pile-empty 90" in text


def test_shared_wins_are_counted_as_such():
    from lostcities.engine.lab.simulation import GameResult, Summary

    summary = Summary("p", ("a", "b", "c"), 0)
    summary.add(GameResult(0, 1, (5, 5, 1), (0, 1), (10,), ("turn-cap",)))
    summary.add(GameResult(1, 2, (1, 5, 1), (1,), (12,), ("draw-pile-empty",)))
    assert summary.wins == [0, 1, 0] and summary.shared == [1, 1, 0]
    assert summary.shared_games == 1 and summary.ends == {"turn-cap": 1, "draw-pile-empty": 1}


def test_wilson_interval_and_running_stats():
    lo, hi = wilson(5, 10)
    assert math.isclose(lo, 0.2366, abs_tol=1e-4) and math.isclose(hi, 0.7634, abs_tol=1e-4)
    assert wilson(0, 10)[0] == 0 and math.isclose(wilson(0, 10)[1], 0.2775, abs_tol=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    xs = [3, -7, 12, 0, 5.5]
    r = RunningStats()
    for x in xs:
        r.add(x)
    assert math.isclose(r.mean, statistics.mean(xs)) and math.isclose(r.sd, statistics.stdev(xs))
    assert (r.low, r.high) == (-7, 12)


def test_greedy_clearly_beats_random_from_either_seat():
    """Greedy wins more than 80% of its games from either seat. It won 200 of 200 of these
    seeds' first games (so its rate is above 0.985 at 95%); 40 games a seat with at least
    35 won pass at that rate all but 3e-5 of the time, and tell a rate of 0.8 apart better
    than more than 80 of 100 did (it would pass 16% of the time, not 46%; at 0.7, 0.9% as
    before)."""
    first = simulate("duel-classic", ["greedy", "random"], 40, 2024)
    second = simulate("duel-classic", ["random", "greedy"], 40, 2025)
    assert first.wins[0] >= 35 and second.wins[1] >= 35
    assert first.scores[0].mean > 0 > first.scores[1].mean


def test_greedy_plays_every_duel_pack_at_every_table_size():
    for pid in duel_ids():
        p = pack(pid)
        for n in range(p.min_players, p.max_players + 1):
            s = play_match(p, [GreedyBot()] * n, game_seed(5, n))
            assert winners(s)


def test_greedy_does_not_open_a_row_it_cannot_pay_for():
    hands = ["r2 r3 r4 y2 b3 w4 g5 g6", "y10 b10 w10 g10 r10 y9 b9 w9"]
    p = pack("duel-classic")
    s = new_game(p, 2, 0, deals=[complete_deal(p, hands)])
    move = GreedyBot().choose(SeatView(s, 0, random.Random(0)))
    assert move.action == "discard", str(move)
    # the threshold comes from the pack's expedition formula: cheap expeditions get opened
    cheap = derived("duel-classic", scoring={"constants": {"cost": 5}})
    s = new_game(cheap, 2, 0, deals=[complete_deal(cheap, hands)])
    move = GreedyBot().choose(SeatView(s, 0, random.Random(0)))
    assert str(move).startswith("p r2"), str(move)


def test_greedy_avoids_feeding_the_opponents_rows():
    p = derived("duel-classic", match={"first_starter": 1})
    hands = ["r9 y2 b2 w2 g2 y3 b3 w3", "r4 r5 y10 b10 w10 g10 b9 w9"]
    s = new_game(p, 2, 0, deals=[complete_deal(p, hands)])
    s = apply(s, "p r4 deck")          # seat 1 opens red
    move = GreedyBot().choose(SeatView(s, 0, random.Random(0)))
    # nothing worth opening: it discards, and not the r9 that seat 1's red row would take
    assert move.action == "discard" and p.cards.format(move.card) != "r9", str(move)
    assert p.cards.format(move.card) in hands[0].split()[1:5]  # a low, dead card


def test_greedy_decides_from_the_observation_only():
    p = pack("duel-classic")
    s = new_game(p, 2, 8)
    rng = random.Random(8)
    for _ in range(30):
        s = apply(s, RandomBot().choose(SeatView(s, s.to_move, rng)))
    # the same observation with another opponent hand and another draw pile order
    other = s.copy()
    me, opp = s.to_move, 1 - s.to_move
    pool = other.hands[opp] + other.deck
    random.Random(1).shuffle(pool)
    other.hands[opp], other.deck = pool[:len(s.hands[opp])], pool[len(s.hands[opp]):]
    a = GreedyBot().choose(SeatView(s, me, random.Random(3)))
    b = GreedyBot().choose(SeatView(other, me, random.Random(3)))
    assert a == b


def test_bots_by_name_or_module_path():
    assert isinstance(make_bot("random"), RandomBot) and make_bot(" greedy ").name == "greedy"
    assert make_bot("enginehelpers:FirstMoveBot", allow_import=True).name == "first"
    s = play_match(pack("duel-basic"), [make_bot("enginehelpers:FirstMoveBot", allow_import=True), RandomBot()], 1)
    assert len(s.finished) == 3


@pytest.mark.parametrize("spec,message", [
    ("wizard", "unknown bot 'wizard'; built-in bots: random, greedy"),
    ("no_such_module_xyz:Bot", "cannot import 'no_such_module_xyz'"),
    ("enginehelpers:Nothing", "enginehelpers has no 'Nothing'"),
    ("enginehelpers:pack", "could not be built"),
    ("enginehelpers:builtin_ids", "has no choose(view) method"),
])
def test_bad_bot_names_are_one_line_errors(spec, message):
    with pytest.raises(BotError) as info:
        make_bot(spec, allow_import=True)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_an_illegal_move_from_a_bot_is_reported_with_the_bot_and_seat():
    with pytest.raises(BotError, match=r"bot 'cheat' \(seat 2\) played p .* you hold no"):
        play_match(pack("duel-classic"), [RandomBot(), make_bot("enginehelpers:CheatBot", allow_import=True)], 3)


def test_bot_count_must_fit_the_pack():
    with pytest.raises(SetupError, match="give that many bots"):
        simulate("duel-grenoble", ["random", "random"], 1)


def test_a_failing_bot_is_reported_in_one_line():
    with pytest.raises(BotError, match=r"^bot 'crash' \(seat 1\) failed: AttributeError: "):
        play_match(pack("duel-classic"), [make_bot("enginehelpers:CrashBot", allow_import=True), RandomBot()], 3)
    with pytest.raises(BotError, match="bot 'crash'"):
        simulate("duel-classic", ["random", "enginehelpers:CrashBot"], 4, workers=2,
                 allow_import=True)


def test_a_summary_reports_the_board_facts_its_packs_rounds_keep():
    """A match's crossings, artefacts and tokens come from the facts the pack's rounds keep
    (tables.round_facts): a duel's summary has none, a board's has each."""
    from lostcities.engine.game.tables import tables_of

    duel = simulate("duel-classic", ["random", "random"], 3, 1, workers=1)
    assert tables_of(pack("duel-classic")).round_facts == ()
    assert "board" not in duel.to_dict() and "bridges crossed" not in duel.text()
    board = simulate("board-classic", ["random", "random"], 3, 1, workers=1)
    assert set(tables_of(pack("board-classic")).round_facts) >= {"crossings", "tokens",
                                                                 "artefacts"}
    facts = board.to_dict()["board"]
    assert board.crossings.count == board.rounds.mean * board.games  # one per round played
    assert len(facts["artefacts_per_match"]) == len(facts["tokens_per_match"]) == 2
    assert [a.count for a in board.artefacts] == [3, 3] and "bridges crossed" in board.text()
