"""The board game through the public API: moves and action ids, observations, records,
lc simulate and lc replay, errors, and the greedy bot."""
from __future__ import annotations

import copy
import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from enginehelpers import board_game, board_pack, builtin_ids, layout, pack, play_out
from lostcities.cli.app import app
from lostcities.engine.bots.base import GreedyBot, RandomBot, SeatView
from lostcities.engine.errors import InvalidMoveError, RecordError
from lostcities.engine.game.moves import Move, action_space, actions_to_move, move_to_actions
from lostcities.engine.lab.records import _surely_valid, _validator, dumps, record_of, replay
from lostcities.engine.lab.simulation import play_match, simulate
from lostcities.engine.game.state import Deal, SetupError
from lostcities.engine.game.turn import (apply, describe_move, is_over, legal_action_mask, legal_moves,
                                    live_scores, new_game, step)
from lostcities.engine.game.view import observation

BOARD = [i for i in builtin_ids() if pack(i).family == "board"]
TILES = {"y2": "step", "b2": "step", "b3": "artefact"}


def lc(*args: str):
    return CliRunner().invoke(app, list(args))


def chain_position():
    """Seat 0 to move with a step chain ahead: its yellow card lands on a step tile."""
    p = board_pack(TILES, rows={"start": "any"})
    s = board_game(p, ["y3 y5 b2 b4 g6 g8 r2 r10", "w10 w10 w9 w9 w8 w8 w7 w7"], TILES)
    for text in ("p b2 pawn=1 deck", "d w10 deck", "p y3 pawn=0 deck", "d w10 deck"):
        s = apply(s, text)
    return p, s


def some_states(pack_id: str, players: int, seed: int, every: int = 9):
    p = pack(pack_id)
    for i, s in enumerate(play_out(new_game(p, players, seed), random.Random(seed))):
        if i % every == 0 and not is_over(s):
            yield s.copy()


# -- moves, text and action ids -------------------------------------------------------------

def test_board_move_text_round_trips_with_pawn_and_steps():
    p, s = chain_position()
    texts = [str(m) for m in legal_moves(s)]
    assert "p y5 step=b step=b deck" in texts and "p y3 pawn=0 deck" not in texts
    for m in legal_moves(s):
        assert Move.parse(str(m), p) == m and str(Move.parse(str(m), p)) == str(m)
    m = Move.parse("P G3 PAWN=0 STEP=B STEP=Y DECK", p)
    assert (m.pawn, m.steps, str(m)) == (0, (1, 0), "p g3 pawn=0 step=b step=y deck")
    assert Move.parse("p g3 pawn=1", p).draw is None      # a turn ended by a crossing
    for text, message in [("p g3 pawn=x deck", "a pawn is a number"),
                          ("p g3 step=q deck", "step 'q' is neither a colour key "
                                               r"\(y, b, w, g, r\) nor none")]:
        with pytest.raises(InvalidMoveError, match=message):
            Move.parse(text, p)


@pytest.mark.parametrize("pack_id", BOARD)
def test_every_legal_move_is_its_action_sequence_step_by_step(pack_id):
    p = pack(pack_id)
    space = action_space(p)
    for s in list(some_states(pack_id, 3, 5, every=13))[:12]:
        moves = legal_moves(s)
        assert len(set(moves)) == len(moves)
        for m in moves[:: max(1, len(moves) // 6)]:
            ids = move_to_actions(p, m)
            assert actions_to_move(p, ids) == m
            t = s
            for a in ids:
                mask = legal_action_mask(t)
                assert mask[a], (str(m), space.name(a))
                t = step(t, a)
            assert t.snapshot() == apply(s, m).snapshot()


def test_mid_turn_legal_moves_complete_the_decisions_already_made():
    p, s = chain_position()
    space = action_space(p)
    t = step(s, space.card_action("play", p.cards.parse("y5")))
    t = step(t, space.ranges["advance"].start + 1)        # the first step to blue
    # blue reached a second step tile: blue or yellow may advance next
    assert sorted(str(m) for m in legal_moves(t) if m.draw == -1) == \
        ["p y5 step=b step=b deck", "p y5 step=b step=none deck", "p y5 step=b step=y deck"]
    with pytest.raises(Exception, match=r"this turn's advance decisions are made already \(b;"):
        apply(t, "p y5 step=y deck")
    assert apply(t, "p y5 step=b step=b deck").snapshot() == \
        apply(s, "p y5 step=b step=b deck").snapshot()


@pytest.mark.parametrize("card, pawn, steps, message", [
    ("g6", "x", (), "pawn 'x' is not a pawn (0-4)"),
    ("g6", 0, None, "steps None is not a sequence of tracks"),
    ("y5", None, ("b",), "step 'b' is not a track (0-4)"),
    ("y5", None, (9,), "step 9 is not a track (0-4)"),
])
def test_malformed_board_moves_are_refused_in_one_line(card, pawn, steps, message):
    from lostcities.engine.game.turn import illegal_reason

    p, s = chain_position()          # g6 starts the green row; y5 lands on a step tile
    reason = illegal_reason(s, Move("play", p.cards.parse(card), -1, pawn, steps))
    assert reason is not None and message in reason and "\n" not in reason


def test_describe_move_names_the_pawn_and_the_steps():
    p, s = chain_position()
    assert describe_move(s, Move.parse("p y5 step=b step=b deck", p)) == \
        "plays y5, advances the blue pawn, advances the blue pawn, draws from the deck"
    assert describe_move(s, Move.parse("p g6 pawn=0 g", p)) == \
        "plays g6, sends pawn 0 (leader) onto the green track, takes the green pile's top"


# -- observations ---------------------------------------------------------------------------

def test_the_whole_board_is_public_and_only_the_own_hand():
    p, s = chain_position()
    s = apply(s, "p y5 step=b step=b deck")
    views = [observation(s, seat) for seat in range(2)]
    assert views[0].board == views[1].board
    board = views[1].board
    assert board.pawns[0][:2] == ((0, 2, True), (1, 3, False))
    assert board.pawns[1] == ((-1, 0, True),) + ((-1, 0, False),) * 4
    assert board.tiles == tuple(sorted(layout(p, {"y2": "step", "b2": "step"})))
    assert (board.artefacts, board.round_artefacts, board.crossings) == ((1, 0), (1, 0), 0)
    assert (board.spaces, board.bridge_after, board.crossings_to_end) == (9, 6, 5)
    data = views[1].to_dict(p.cards)
    assert data["board"]["pawns"][0][0] == {"track": "y", "space": 2, "leader": True}
    assert data["board"]["tiles"][0] == {"track": "y", "space": 2, "kind": "step"}
    assert sorted(data["hand"]) == sorted(p.cards.format(c) for c in s.hands[1])
    assert views[0].hand != views[1].hand and "hands" not in data and "deck" not in data
    assert "board" not in observation(new_game(pack("duel-classic"), 2, 0), 0).to_dict(
        pack("duel-classic").cards)


def test_live_scores_use_the_pawns_and_tokens():
    p, s = chain_position()
    spaces = p.scoring_spec.tables["spaces"]
    assert live_scores(s) == (max(0, 2 * spaces[1] + spaces[1]), 0) == (0, 0)
    t = board_game(board_pack({"y1": "points 10"}), ["y1 b4 b6 b8 g6 g8 r2 r10", "w10"],
                   {"y1": "points 10"})
    assert live_scores(apply(t, "p y1 pawn=1 deck")) == (10, 0)


# -- records --------------------------------------------------------------------------------

def finished(pack_id: str = "board-classic", players: int = 2, seed: int = 4):
    p = pack(pack_id)
    return play_match(p, [GreedyBot()] + [RandomBot()] * (players - 1), seed)


def test_records_carry_tiles_pawns_steps_tokens_and_replay_every_score():
    s = finished()
    record = json.loads(dumps(s))
    rnd = record["rounds"][0]
    assert len(rnd["tiles"]) == 25 and {"track", "space", "kind"} <= set(rnd["tiles"][0])
    assert rnd["tokens"] == list(s.finished[0].tokens)
    assert rnd["artefacts"] == list(s.finished[0].artefacts)
    turns = [t for r in record["rounds"] for t in r["turns"]]
    assert any("pawn" in t for t in turns) and any("steps" in t for t in turns)
    assert _surely_valid(record) and not list(_validator().iter_errors(record))
    assert record_of(replay(record)) == record


@pytest.mark.parametrize("change, message", [
    (lambda r: r["rounds"][0]["tiles"][0].update(space=1), "space 1 holds no tile"),
    (lambda r: r["rounds"][0]["tiles"].pop(), "the layout lacks 1 of the pack's tiles"),
    (lambda r: r["rounds"][0]["tiles"][0].update(track="q"), "track 'q' is not a colour"),
    (lambda r: r["rounds"][0]["tokens"].__setitem__(0, 999), "tokens are [999"),
    (lambda r: r["rounds"][0]["artefacts"].__setitem__(1, 7), "artefacts are ["),
    (lambda r: next(t for t in r["rounds"][0]["turns"] if "pawn" in t).pop("pawn"),
     "sends a pawn onto its track: add pawn="),
])
def test_a_tampered_board_record_fails_in_one_line(change, message):
    record = json.loads(dumps(finished()))
    change(record)
    with pytest.raises(RecordError) as info:
        replay(record, where="games.jsonl:2")
    assert str(info.value).startswith("games.jsonl:2: ") and message in str(info.value)
    assert "\n" not in str(info.value)


def test_a_record_without_tiles_uses_the_seeds_layout():
    record = json.loads(dumps(finished()))
    for rnd in record["rounds"]:
        del rnd["tiles"]
    assert replay(record).finished[0].deal.tiles == finished().finished[0].deal.tiles


def test_a_duel_record_refuses_tiles():
    record = json.loads(dumps(play_match(pack("duel-classic"), [RandomBot()] * 2, 1)))
    record["rounds"][0]["tiles"] = []
    with pytest.raises(RecordError, match="tiles: duel-classic has no board"):
        replay(record)


SMALL = json.loads(dumps(play_match(
    board_pack({"y2": "step", "b1": "artefact", "g1": "points 5"}, hand_size=38),
    [GreedyBot(), RandomBot()], 3)))


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3)
                    | st.sampled_from(["", "y", "q", "step", "points", "artefact", "deck", "yy"]),
                    lambda inner: st.lists(inner, max_size=2)
                    | st.dictionaries(st.sampled_from(["track", "space", "kind", "value", "x"]),
                                      inner, max_size=3), max_leaves=5)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_the_fast_shape_check_never_accepts_a_board_record_the_schema_refuses(data):
    from lostcities.engine.packs.loader import iter_leaves

    record = copy.deepcopy(SMALL)
    paths = sorted({leaf[:i] for leaf, _ in iter_leaves(record) for i in range(1, len(leaf) + 1)
                    if leaf[0] == "rounds"}, key=repr)
    path = data.draw(st.sampled_from(paths), label="path")
    target = record
    for key in path[:-1]:
        target = target[key]
    if data.draw(st.booleans(), label="delete") and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = data.draw(JSON, label="value")
    if _surely_valid(record):
        assert not list(_validator().iter_errors(record)), path


# -- setup errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("tiles, message", [
    (((0, 1, "step", 0),), "space 1 holds no tile"),
    (((9, 2, "step", 0),), "track 9 is not one of 0-4"),
    (((0, 2, "step", 0), (0, 2, "artefact", 0)), "two tiles on space 2 of the yellow track"),
    (((0, 2, "points", 7),), "points 7 is not one of the pack's tiles left"),
    (((0, 2, "step", 0),), "the layout lacks 24 of the pack's tiles"),
])
def test_an_impossible_tile_layout_is_one_line(tiles, message):
    p = pack("board-classic")
    deal = replace(new_game(p, 2, 0).deal, tiles=tiles)
    with pytest.raises(SetupError, match=message) as info:
        new_game(p, 2, 0, deals=[deal])
    assert "\n" not in str(info.value)
    with pytest.raises(SetupError, match="duel-classic has no board"):
        d = new_game(pack("duel-classic"), 2, 0).deal
        new_game(pack("duel-classic"), 2, 0, deals=[Deal(d.hands, d.draw_pile, d.removed, ())])


# -- lc simulate and lc replay ----------------------------------------------------------------

def test_lc_simulate_and_replay_a_board_pack(tmp_path):
    path = tmp_path / "board.jsonl"
    result = lc("simulate", "--pack", "board-short", "-n", "3", "-b", "greedy,random,random",
                "--record", str(path))
    assert result.exit_code == 0, result.stderr
    assert "bridges crossed per round: mean" in result.stdout
    assert "artefacts / tokens per match: seat 1 " in result.stdout
    checked = lc("replay", str(path), "--check")
    assert checked.exit_code == 0 and "3 match(es) replayed" in checked.stdout
    shown = lc("replay", str(path), "--game", "2")
    assert shown.exit_code == 0 and "sends pawn" in shown.stdout
    data = json.loads(lc("simulate", "-p", "board-short", "-n", "2", "--json").stdout)
    assert set(data["board"]) == {"crossings_per_round", "artefacts_per_match",
                                  "tokens_per_match"}


# -- the greedy bot -------------------------------------------------------------------------

def test_greedy_beats_random_clearly_on_board_classic_at_two_players():
    summary = simulate("board-classic", ["greedy", "random"], 16, seed=5)
    greedy = summary.by_bot()["greedy"]
    assert greedy["wins"] == 16 and greedy["win_95"][0] > 0.75
    swapped = simulate("board-classic", ["random", "greedy"], 8, seed=6).by_bot()["greedy"]
    assert swapped["wins"] == 8


def greedy_move(s) -> Move:
    return GreedyBot().choose(SeatView(s, s.to_move, random.Random(0)))


def test_greedy_sends_its_leader_where_it_holds_most_cards():
    p = board_pack({})
    s = board_game(p, ["b2 b4 b5 b7 b8 y3 y6 r9", "w10 w10 w9 w9 w8 w8 w7 w7"], {})
    move = greedy_move(s)
    assert (p.cards.format(move.card), move.pawn) == ("b2", 0)


def test_greedy_opens_no_track_it_cannot_carry_past_the_negative_spaces():
    # four players: 19 turns each to come; two cards of a colour cannot reach space 4,
    # board-classic's first positive space, three can
    p = board_pack({})
    s = board_game(p, ["y1 b2 w3 g4 r5 y9 b10 g10", "w10 w10"], {}, players=4)
    assert greedy_move(s).action == "discard"
    s = board_game(p, ["y1 y3 y4 b2 w3 g4 r5 r6", "w10 w10"], {}, players=4)
    assert str(greedy_move(s)) == "p y1 pawn=0 deck"


def test_greedy_spends_a_step_on_the_leader():
    p = board_pack({"b2": "step"}, rows={"start": "any"})
    s = board_game(p, ["y3 y5 y6 y7 b2 b4 b6 b8", "w10 w10 w9 w9 w8 w8 w7 w7"], {"b2": "step"},
                   top="r10 r10 r9 r9")
    for text in ("p y3 pawn=0 deck", "d w10 deck", "p b2 pawn=1 deck", "d w10 deck"):
        s = apply(s, text)
    # seat 0: the leader on yellow 1, an ordinary pawn on blue 1; b4 lands on the step
    # tile of blue 2: a step on the leader gains twice what one on the blue pawn gains
    options = {str(m) for m in legal_moves(s) if p.cards.format(m.card) == "b4"}
    assert {"p b4 step=y deck", "p b4 step=b deck"} <= options
    assert str(greedy_move(s)) == "p b4 step=y deck"
