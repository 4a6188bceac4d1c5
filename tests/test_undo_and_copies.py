"""Undo and copies: ``pop`` undoes exactly whichever path a turn took (a whole turn by
``push``, one decision by ``push_action``), the state's derived fields (the bit masks
``random_move`` counts from, the cached totals) follow every push and pop, and states that
share their lists copy-on-write (a copy, a fork, the child of ``apply`` or ``step``) never
see each other's turns, on every built-in pack.

That the paths reach the same states: tests/test_play_paths_agree.py.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enginehelpers import builtin_ids, pack
from lostcities.engine import (apply, derive, is_over, legal_actions, legal_moves, new_game,
                               playout, pop, push, push_action, random_move, step, totals)
from lostcities.engine.game.steps import UNDO_FIELDS

PACKS = builtin_ids()


def _game(data):
    p = pack(data.draw(st.sampled_from(PACKS), label="pack"))
    n = data.draw(st.integers(p.min_players, p.max_players), label="players")
    return p, new_game(p, n, data.draw(st.integers(0, 2**32), label="seed"))


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_push_action_and_pop_undo_each_decision_exactly(data):
    p, state = _game(data)
    rng = random.Random(data.draw(st.integers(0, 999), label="rng"))
    snaps = []
    for _ in range(data.draw(st.integers(1, 200), label="decisions")):
        if is_over(state):
            break
        snaps.append(state.snapshot())
        push_action(state, rng.choice(legal_actions(state)))
    while snaps:
        pop(state)
        assert state.snapshot() == snaps.pop()


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_every_push_leaves_one_record_of_the_one_kind(data):
    """Undo is one record type (issue 28, item 1): whatever a push made (a whole turn, a
    card decision, a draw, a pawn's steps, a round's end), it leaves exactly one record on
    the stack, with every field of UNDO_FIELDS, and pop takes exactly that one off."""
    p, state = _game(data)
    rng = random.Random(data.draw(st.integers(0, 999), label="rng"))
    whole = data.draw(st.booleans(), label="whole turns")
    for _ in range(data.draw(st.integers(1, 300), label="pushes")):
        if is_over(state):
            break
        before, rounds = len(state.undo), len(state.finished)
        if whole:
            push(state, random_move(state, rng))
        else:
            push_action(state, rng.choice(legal_actions(state)))
        assert len(state.undo) == before + 1
        record = state.undo[-1]
        assert type(record) is list and len(record) == len(UNDO_FIELDS)
        ended = record[UNDO_FIELDS.index("round")]
        assert (ended is not None) == (len(state.finished) > rounds)
        assert (record[UNDO_FIELDS.index("board")] is not None) == (p.board is not None)
    while state.undo:
        before = len(state.undo)
        pop(state)
        assert len(state.undo) == before - 1


def _opened(data, most: int):
    """A game of a drawn pack played ``apply`` by ``apply`` for up to ``most`` random turns,
    and the rng that played them; None when the match ended on the way."""
    _, state = _game(data)
    rng = random.Random(data.draw(st.integers(0, 999), label="rng"))
    for _ in range(data.draw(st.integers(0, most), label="opening")):
        if is_over(state):
            return None
        state = apply(state, random_move(state, rng))
    return None if is_over(state) else (state, rng)


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_a_copy_and_its_original_stay_independent_whichever_plays_on(data):
    """Rows are shared copy-on-write: playing on either state never shows in the other."""
    opened = _opened(data, 60)
    if opened is None:
        return
    state, rng = opened
    child = apply(state, random_move(state, rng))
    copied = state.copy()
    before = state.snapshot()
    assert copied.snapshot() == before
    for _ in range(data.draw(st.integers(1, 40), label="on")):  # the original plays on
        if is_over(copied):
            break
        push(copied, random_move(copied, rng))
    playout(child, rng)  # and the child to the end
    assert state.snapshot() == before
    push(state, legal_moves(state)[-1])  # the original itself, pushed and popped
    pop(state)
    assert state.snapshot() == before


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_whole_turns_pushed_and_popped_on_a_shared_state_leave_its_forks_alone(data):
    """push/pop's whole turn owns, all at once, the lists it changes (steps.own_turn): a
    state sharing its lists with a child of apply, with a copy and with a fork plays turns
    in place and undoes them all, and none of the four ever shows the other's turns."""
    opened = _opened(data, 80)
    if opened is None:
        return
    state, rng = opened
    before = state.snapshot()
    child = apply(state, random_move(state, rng))
    child_before = child.snapshot()
    copied, forked = state.copy(), state.fork()
    for _ in range(data.draw(st.integers(1, 60), label="pushed")):
        if is_over(state):
            break
        push(state, rng.choice(legal_moves(state)))
    assert copied.snapshot() == forked.snapshot() == before  # while the turns are on
    assert child.snapshot() == child_before
    while state.undo:
        pop(state)
    assert state.snapshot() == before == copied.snapshot() == forked.snapshot()
    assert child.snapshot() == child_before
    for _ in range(data.draw(st.integers(1, 60), label="child pushed")):  # and the other way
        if is_over(child):
            break
        push(child, rng.choice(legal_moves(child)))
    assert state.snapshot() == before == forked.snapshot()
    while child.undo:
        pop(child)
    assert child.snapshot() == child_before


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_a_stepped_state_and_its_parent_stay_independent(data):
    """step shares the parent's hands, piles, draw pile and moves copy-on-write: playing on
    either never shows in the other, nor in a copy."""
    p, state = _game(data)
    rng = random.Random(data.draw(st.integers(0, 999), label="rng"))
    for _ in range(data.draw(st.integers(0, 120), label="opening")):
        if is_over(state):
            return
        state = step(state, rng.choice(legal_actions(state)))
    if is_over(state):
        return
    before = state.snapshot()
    child = step(state, rng.choice(legal_actions(state)))
    child_before = child.snapshot()
    copied = state.copy()
    for _ in range(data.draw(st.integers(1, 40), label="on")):  # the parent plays on in place
        if is_over(state):
            break
        push_action(state, rng.choice(legal_actions(state)))
    while state.undo:
        pop(state)
    assert state.snapshot() == before == copied.snapshot()
    assert child.snapshot() == child_before
    while not is_over(child):  # and the child to the end
        child = step(child, rng.choice(legal_actions(child)))
    assert state.snapshot() == before


def _totals_afresh(state):
    """Match totals by the pack's match formula, worked out here from the finished rounds."""
    match, finished = state.pack.scoring.match, state.finished
    return tuple(match([r.scores[p] for r in finished],
                       sum(r.artefacts[p] for r in finished if r.artefacts),
                       sum(r.tokens[p] for r in finished if r.tokens)) for p in range(state.n))


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_totals_follow_rounds_ending_undone_and_other_matches(data):
    """totals() keeps the last answer by the very list of finished rounds: it must follow
    a round's end, its undo, and positions of other matches asked in between."""
    p, state = _game(data)
    other = new_game(p, state.n, data.draw(st.integers(0, 2**32), label="other seed"))
    rng = random.Random(data.draw(st.integers(0, 999), label="rng"))
    pushed = 0
    while not is_over(state) and pushed < 400:
        push(state, random_move(state, rng))
        pushed += 1
        if not is_over(other):
            push(other, random_move(other, rng))
        for s in (state, other):
            assert totals(s) == _totals_afresh(s)
    while pushed:
        pop(state)
        pushed -= 1
        assert totals(state) == _totals_afresh(state)
        assert totals(other) == _totals_afresh(other)


def _derived_fields(state):
    return (state.row_states, state.playable, state.held_bits, state.playable_bits,
            state.pile_bits)


def _fresh_fields(state):
    fresh = state.copy()
    derive(fresh)
    return _derived_fields(fresh)


@pytest.mark.parametrize("pack_id", builtin_ids())
def test_bit_masks_follow_hands_rows_and_piles_through_push_and_pop(pack_id):
    p = pack(pack_id)
    rng = random.Random(4)
    s = new_game(p, p.max_players, 6)
    seen = [_derived_fields(s.copy())]
    while not is_over(s):
        if rng.random() < 0.3:  # one decision at a time too
            push_action(s, rng.choice(legal_actions(s)))
        else:
            push(s, random_move(s, rng))
        assert _derived_fields(s) == _fresh_fields(s)
        seen.append(_derived_fields(s.copy()))
    while s.undo:
        pop(s)
        seen.pop()
        assert _derived_fields(s) == seen[-1] == _fresh_fields(s)
