"""The board game's two "may" sentences of 001: an advance offered is never forced.

"Une tuile Étape permet de faire avancer d'un cran un de vos pions déjà engagé" and, on a
finished track, "En y jouant une nouvelle carte légale, vous pouvez faire avancer un autre
de vos pions d'une case." Each advance due is a decision the player may decline:
``step=none`` in the notation, ``NO_STEP`` (None) in ``Move.steps``, the ``decline`` action,
``null`` in a record's ``steps``, ``step=none`` / ``pas=aucun`` in ``lc play``. Scenarios are
dealt by hand as in test_board_rules.py.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import jsonschema

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enginehelpers import board_game, board_pack, builtin_ids, moves_of, pack, place, play
from lostcities.engine.bots.base import GreedyBot, RandomBot, SeatView
from lostcities.engine.errors import IllegalMoveError, InvalidMoveError, RecordError
from lostcities.engine.bots.expert import BOARD as BOARD_PARAMS, Evaluation, ExpertBot
from lostcities.engine.game.moves import (NO_STEP, Move, action_space, actions_to_move,
                                     move_to_actions, num_actions)
from lostcities.engine.lab.records import check_shape, dumps, record_of, replay
from lostcities.engine.lab.simulation import play_match
from lostcities.engine.game.state import ADVANCE, BRIDGE_CROSSINGS, DRAW
from lostcities.engine.game.turn import (apply, describe_move, is_legal, is_over, legal_actions,
                                    legal_moves, new_game, pop, push, push_action, random_move,
                                    step)
from lostcities.engine.game.view import observation

ANY_START = {"rows": {"start": "any"}}
#: what the other player does while a scenario plays: discard white cards
WAIT = "w10 w10 w9 w9 w8 w8 w7 w7"
LC = Path(sys.executable).with_name("lc")
BOARD_IDS = [i for i in builtin_ids() if pack(i).family == "board"]


def step_tile():
    """Seat 0 to play y5 onto a step tile (y2), with its blue pawn engaged on b1."""
    tiles = {"y2": "step", "b2": "artefact"}
    p = board_pack(tiles, **ANY_START)
    s = board_game(p, ["y3 y5 b2 b4 g6 g8 r2 r10", WAIT], tiles)
    return p, play(s, "p b2 pawn=1 deck", "d w10 deck", "p y3 pawn=0 deck", "d w10 deck")


def finished_track():
    """Seat 0 to play y9 on its finished yellow track (last space 2), blue engaged on b1."""
    p = board_pack({}, **ANY_START, board={"spaces": 2, "bridge_after": 1})
    s = board_game(p, ["y3 y5 y7 y9 b2 b4 g6 r10", WAIT], {})
    return p, play(s, "p y3 pawn=0 deck", "d w10 deck", "p y5 deck", "d w10 deck",
                   "p b2 pawn=1 deck", "d w9 deck")


# -- the step tile: "permet de faire avancer" -------------------------------------------------

def test_a_step_tile_may_be_declined_or_taken():
    p, s = step_tile()
    assert moves_of(s, "y5") == ["p y5 step=b deck", "p y5 step=none deck", "p y5 step=y deck"]
    declined = apply(s, "p y5 step=none deck")
    assert place(declined, 0, "y") == (2, True) and place(declined, 0, "b") == (1, False)
    assert declined.moves[-1].steps == (NO_STEP,) and declined.board.artefacts == [0, 0]
    taken = apply(s, "p y5 step=b deck")            # b onto its artefact
    assert place(taken, 0, "b") == (2, False) and taken.board.artefacts == [1, 0]
    assert describe_move(s, Move.parse("p y5 step=none deck", p)) == \
        "plays y5, declines the advance, draws from the deck"


def test_the_old_notation_without_a_step_says_how_to_decline():
    p, s = step_tile()
    with pytest.raises(IllegalMoveError, match=r"one more pawn may advance .a step tile or a "
                                               r"finished track.: add step=TRACK, one of y, "
                                               r"b, or step=none to decline"):
        apply(s, "p y5 deck")


def test_declining_ends_a_chain_and_is_refused_where_no_advance_is_due():
    tiles = {"y2": "step", "b2": "step"}
    p = board_pack(tiles, **ANY_START)
    s = board_game(p, ["y3 y5 b2 b4 g6 g8 r2 r10", WAIT], tiles)
    s = play(s, "p b2 pawn=1 deck", "d w10 deck", "p y3 pawn=0 deck", "d w10 deck")
    # step=b lands blue on the second step tile: a second may, declined or taken
    assert "p y5 step=b step=none deck" in moves_of(s, "y5")
    assert "p y5 step=b step=b deck" in moves_of(s, "y5")
    for text, message in [("p y5 step=none step=b deck", "step=b: no pawn advance is due here"),
                          ("p y5 step=none step=none deck",
                           "step=none: no pawn advance is due here"),
                          ("p g6 pawn=2 step=none deck", "step=none: no pawn advance is due"),
                          ("d g6 step=none deck", "a discarded card moves no pawn")]:
        with pytest.raises(IllegalMoveError, match=message):
            apply(s, text)


# -- the finished track: "vous pouvez faire avancer" ------------------------------------------

def test_a_finished_tracks_advance_may_be_declined_or_taken():
    p, s = finished_track()
    assert place(s, 0, "y") == (2, True)
    assert moves_of(s, "y9") == ["p y9 step=b deck", "p y9 step=none deck"]
    declined = apply(s, "p y9 step=none deck")
    assert place(declined, 0, "b") == (1, False) and len(declined.rows[0][0]) == 3
    assert place(apply(s, "p y9 step=b deck"), 0, "b") == (2, False)
    with pytest.raises(IllegalMoveError, match="add step=TRACK, one of b, or step=none"):
        apply(s, "p y9 deck")


def test_declining_avoids_the_crossing_that_would_end_the_round():
    # the reason to decline: "Une manche s'arrête dès que cinq pions ... ont franchi un pont"
    p = board_pack({}, **ANY_START, board={"spaces": 3, "bridge_after": 1},
                   round_end={"bridge_crossings": 2})
    s = board_game(p, ["y3 y5 y7 y9 b2 b4 g6 r10", WAIT], {})
    s = play(s, "p y3 pawn=0 deck", "d w10 deck", "p y5 deck", "d w10 deck",   # crossing 1
             "p y7 deck", "d w9 deck", "p b2 pawn=1 deck", "d w9 deck")
    assert place(s, 0, "y") == (3, True) and place(s, 0, "b") == (1, False)
    assert moves_of(s, "y9") == ["p y9 step=b", "p y9 step=none deck"]   # crossing 2 ends it
    ended = apply(s, "p y9 step=b")
    assert ended.finished[0].end == BRIDGE_CROSSINGS
    going = apply(s, "p y9 step=none deck")
    assert going.round == 1 and going.board.crossings == 1 and not going.finished


# -- one move, every form: text, actions, push/pop, records -------------------------------------

@pytest.mark.parametrize("scenario, card", [(step_tile, "y5"), (finished_track, "y9")])
def test_the_decline_round_trips_through_text_actions_and_undo(scenario, card):
    p, s = scenario()
    space = action_space(p)
    decline = space.ranges["decline"].start
    for text in (f"p {card} step=none deck", f"p {card} step=- deck", f"P {card} STEP=NONE DECK"):
        move = Move.parse(text, p)
        assert move.steps == (NO_STEP,) and str(move) == f"p {card} step=none deck"
        assert Move.parse(str(move), p) == move and is_legal(s, move)
        ids = move_to_actions(p, move)
        assert ids[1] == decline and actions_to_move(p, ids) == move
        assert space.name(decline) == "advance none"
        # decision by decision: the decline is offered after each track
        t = step(s, ids[0])
        assert t.phase == ADVANCE and legal_actions(t)[-1] == decline
        t = step(t, decline)
        assert t.phase == DRAW and observation(t, 0).board.turn_steps == (NO_STEP,)
        assert observation(t, 0).to_dict(p.cards)["board"]["turn_steps"] == [None]
        assert [str(m) for m in legal_moves(t)][0].startswith(f"p {card} step=none ")
        assert step(t, ids[2]).snapshot() == apply(s, move).snapshot()
        # in place, exactly undone
        before = s.copy()
        push(s, move)
        assert s.snapshot() == apply(before, move).snapshot()
        pop(s)
        assert s.snapshot() == before.snapshot()
        for a in ids:
            push_action(s, a)
        for _ in ids:
            pop(s)
        assert s.snapshot() == before.snapshot()
    with pytest.raises(InvalidMoveError, match="step 'q' is neither a colour key"):
        Move.parse(f"p {card} step=q deck", p)


def test_action_ids_of_other_decisions_are_unchanged_and_the_decline_comes_last():
    board = action_space(pack("board-classic"))
    # ids as before the decline existed (60 card kinds: 5 colours x 12 slots): play 0-59,
    # discard 60-119, draw 120-125, pawn 126-130, advance 131-135; the decline is the one
    # new id, 136
    assert [(n, r.start, r.stop) for n, r in board.ranges.items()] == [
        ("play", 0, 60), ("discard", 60, 120), ("draw", 120, 126), ("pawn", 126, 131),
        ("advance", 131, 136), ("decline", 136, 137)]
    assert num_actions(pack("board-classic")) == 137 and board.advance_action(NO_STEP) == 136
    duel = action_space(pack("duel-classic"))
    assert num_actions(pack("duel-classic")) == 106 and len(duel.ranges["decline"]) == 0
    with pytest.raises(InvalidMoveError, match="step None is not a track"):
        duel.advance_action(NO_STEP)
    with pytest.raises(InvalidMoveError, match="step 9 is not a track"):
        board.advance_action(9)


def test_a_record_with_a_decline_stores_null_and_replays_exactly():
    s = seeded_with_a_decline("board-classic")
    record = json.loads(dumps(s))
    where = [(i, j) for i, r in enumerate(record["rounds"]) for j, t in enumerate(r["turns"])
             if None in t.get("steps", [])]
    i, j = where[0]
    check_shape(record, "a record")                # the schema takes null in steps
    jsonschema.validate(record, json.loads(
        (files("lostcities.engine.lab") / "record.schema.json").read_text()))
    again = replay(record)
    assert NO_STEP in again.finished[i].moves[j].steps and record_of(again) == record
    # the null is the decision: a record without it does not replay
    turn = record["rounds"][i]["turns"][j]
    turn["steps"] = [k for k in turn["steps"] if k is not None]
    with pytest.raises(RecordError, match="one more pawn may advance"):
        replay(record)


def seeded_with_a_decline(pack_id: str):
    """A random board match (random bots) with at least one declined advance."""
    p = pack(pack_id)
    for seed in range(40):
        s = play_match(p, [RandomBot(), RandomBot()], seed)
        if any(NO_STEP in m.steps for r in s.finished for m in r.moves):
            return s
    raise AssertionError("no random match declined an advance")


def run_lc(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(LC), *args], input=stdin, capture_output=True, text=True,
                          timeout=600)


def test_lc_replay_checks_a_record_with_declines_and_an_old_record(tmp_path):
    s = seeded_with_a_decline("board-short")
    path = tmp_path / "declined.jsonl"
    path.write_text(dumps(s) + "\n")
    assert "null" in path.read_text()
    done = run_lc("replay", "--check", str(path))
    assert done.returncode == 0, done.stderr
    # a record the engine wrote when every advance was forced replays as it did
    old = Path(__file__).with_name("fixtures") / "records" / "board-short-forced-advances.jsonl"
    record = json.loads(old.read_text())
    assert all(None not in t.get("steps", []) for r in record["rounds"] for t in r["turns"])
    assert any(t.get("steps") for r in record["rounds"] for t in r["turns"])
    done = run_lc("replay", "--check", str(old))
    assert done.returncode == 0, done.stderr
    again = record_of(replay(record))
    assert [again[k] for k in ("rounds", "totals", "winners")] == \
        [record[k] for k in ("rounds", "totals", "winners")]


# -- lc play ----------------------------------------------------------------------------------

def session_at(p, s, lang: str = "en"):
    from lostcities.cli.session import HUMAN, Player, Session

    session = Session(p, [Player(HUMAN, "A"), Player(HUMAN, "B")], 0, lang=lang)
    session.state = s
    return session


@pytest.mark.parametrize("word", ["step=none", "step=-", "pas=aucun", "STEP=NONE"])
def test_lc_play_offers_the_decline_and_accepts_its_word(word):
    p, s = finished_track()
    session = session_at(p, s)
    reply = session.command("p y9 deck")
    assert reply.kind == "pending" and reply.notes[0].key == "pending.which"
    assert reply.notes[0].params["options"] == "[1] step=b · [2] step=none"
    assert session.command(word).kind == "moved"
    assert session.history[-1][1].steps == (NO_STEP,)
    assert place(session.state, 0, "b") == (1, False)


def test_lc_play_takes_the_decline_in_one_line_and_its_help_says_so():
    from lostcities.i18n import load_messages

    p, s = step_tile()
    session = session_at(p, s, "fr")
    assert session.command("p y5 pas=aucun pioche").kind == "moved"
    assert session.history[-1][1] == Move.parse("p y5 step=none deck", p)
    assert "step=none" in load_messages("en")["rules.board"]
    assert "pas=aucun" in load_messages("fr")["rules.board"]


# -- bots ---------------------------------------------------------------------------------------

def match_end(ahead: bool):
    """board-short (one round: the round's end is the match's), a finished yellow track and
    blue on the bridge; crossing it is the second crossing, which ends the match. The
    points-10 tile goes to the expert (ahead) or to its opponent (behind)."""
    tiles = {"b1": "points 10"} if ahead else {"g1": "points 10"}
    p = board_pack(tiles, base="board-short", **ANY_START,
                   board={"spaces": 4, "bridge_after": 2}, round_end={"bridge_crossings": 2})
    s = board_game(p, ["y2 y3 y4 y5 y6 b2 b3 r10", "g3 w10 w10 w9 w9 w8 w8 w7"], tiles,
                   top="r9 w2 r8 w3 r7 w4 r6 w5 r5 w6 r4 w0")
    s = play(s, "p y2 pawn=0 deck", "p g3 pawn=1 deck", "p y3 deck", "d w10 deck",
             "p y4 deck", "d w10 deck", "p y5 deck", "d w9 deck", "p b2 pawn=1 deck",
             "d w9 deck", "p b3 deck", "d w8 deck")
    assert place(s, 0, "y") == (4, True) and place(s, 0, "b") == (2, False)
    assert s.board.crossings == 1 and s.to_move == 0
    return p, s


@pytest.mark.parametrize("ahead", [False, True])
def test_the_expert_declines_the_crossing_that_ends_a_match_it_would_lose(ahead):
    p, s = match_end(ahead)
    ended = apply(s, "p y6 step=b")
    assert ended.finished[0].end == BRIDGE_CROSSINGS
    scores = ended.finished[0].scores
    assert (scores[0] > scores[1]) is ahead
    view = SeatView(s, 0, random.Random(0))
    bot = ExpertBot()
    values = dict((str(m), v) for v, m in Evaluation(
        p, view.observation, bot.memory(view), BOARD_PARAMS).ranked(view.legal_moves))
    assert (values["p y6 step=none deck"] > values["p y6 step=b"]) is not ahead
    move = ExpertBot().choose(SeatView(s, 0, random.Random(0)))
    after = apply(s, move)
    assert bool(after.finished) is ahead, str(move)   # it ends the match only when winning


def test_greedy_expert_and_ismcts_play_board_matches_with_declines_legally():
    from lostcities.engine.bots.registry import make_bot

    short = pack("board-short")
    for bots in ([GreedyBot(), RandomBot()], [make_bot("expert"), RandomBot()],
                 [RandomBot(), make_bot("ismcts@1")]):
        s = play_match(short, bots, 3)
        assert record_of(replay(json.loads(dumps(s)))) == json.loads(dumps(s))


def test_greedy_takes_an_advance_that_gains_and_declines_none_without_reason():
    p, s = step_tile()
    move = GreedyBot().choose(SeatView(s, 0, random.Random(0)))
    assert NO_STEP not in move.steps


# -- properties across the board packs ----------------------------------------------------------

@pytest.mark.parametrize("pack_id", BOARD_IDS)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_every_declining_move_round_trips_and_undoes_exactly(pack_id, seed):
    p = pack(pack_id)
    space = action_space(p)
    rng = random.Random(seed)
    s = new_game(p, 2, seed)
    checked = 0
    while not is_over(s) and checked < 6:
        moves = legal_moves(s)
        declining = [m for m in moves if NO_STEP in m.steps]
        for m in declining[:2]:
            assert Move.parse(str(m), p) == m and is_legal(s, m)
            ids = move_to_actions(p, m)
            assert space.ranges["decline"].start in ids and actions_to_move(p, ids) == m
            before = s.snapshot()
            push(s, m)
            pop(s)
            assert s.snapshot() == before
            # the same move without its decline is refused, saying how to decline
            i = m.steps.index(NO_STEP)
            cut = Move(m.action, m.card, m.draw, m.pawn, m.steps[:i], p.cards)
            assert not is_legal(s, cut)
            checked += 1
        push(s, random_move(s, rng))
        s.undo.clear()


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.sampled_from(["step=none", "step=-", "step=b", "step=y", "step=",
                                       "step=nonee", "step=--", "STEP=None", "pawn=1", "deck",
                                       "g", "step=aucun"]), max_size=5))
def test_step_words_parse_to_a_move_or_one_invalid_move_line(words):
    p, s = step_tile()
    text = " ".join(["p", "y5", *words])
    try:
        move = Move.parse(text, p)
    except InvalidMoveError as err:
        assert "\n" not in str(err)
        return
    assert Move.parse(str(move), p) == move
    try:
        apply(s, move)
    except IllegalMoveError as err:
        assert "\n" not in str(err) and not is_legal(s, move)
    else:
        assert is_legal(s, move) and move in legal_moves(s)
