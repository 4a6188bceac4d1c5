"""apply and step are pure (issue #15): on every built-in pack, at any position, the state
they are given stays equal to a copy of it taken before (its snapshot: every field that defines
the position), and the new state equals the same move pushed on a copy. A fork shares every
list with its parent copy-on-write, so the property is checked across generations too: a fork
played on in place (push, pop, more applies) never changes its parent or its siblings.
"""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from enginehelpers import builtin_ids, pack
from lostcities.engine import (apply, is_over, legal_actions, legal_moves, new_game, playout, pop,
                               push, push_action, random_move, step)

PACKS = builtin_ids()


def position(data):
    """A random position of a random built-in pack, some random turns in (a round may have
    ended and the next been dealt on the way), and the rng that played them."""
    p = pack(data.draw(st.sampled_from(PACKS), label="pack"))
    n = data.draw(st.integers(p.min_players, p.max_players), label="players")
    state = new_game(p, n, data.draw(st.integers(0, 2**32), label="seed"))
    rng = random.Random(data.draw(st.integers(0, 999), label="rng"))
    for _ in range(data.draw(st.integers(0, 400), label="turns")):
        if is_over(state):
            break
        state = apply(state, random_move(state, rng))  # each position a fork of the last
    return state, rng


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_apply_leaves_its_state_as_it_was_and_equals_push_on_a_copy(data):
    state, rng = position(data)
    if is_over(state):
        return
    before = state.snapshot()
    moves = legal_moves(state)
    for move in rng.sample(moves, min(6, len(moves))):
        after = apply(state, move)
        assert state.snapshot() == before, move
        pushed = state.copy()
        push(pushed, move)
        assert after.snapshot() == pushed.snapshot(), move
        # the new state played on in place: its parent stays as it was
        if not is_over(after):
            push(after, random_move(after, rng))
            assert state.snapshot() == before
            pop(after)
            assert after.snapshot() == pushed.snapshot()
        playout(after, rng)
        assert state.snapshot() == before


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_step_leaves_its_state_as_it_was_and_equals_push_action_on_a_copy(data):
    state, rng = position(data)
    before = state.snapshot()
    for _ in range(data.draw(st.integers(1, 12), label="decisions")):
        if is_over(state):
            break
        for action in legal_actions(state):
            new = step(state, action)
            assert state.snapshot() == before, action
            pushed = state.copy()
            push_action(pushed, action)
            assert new.snapshot() == pushed.snapshot(), action
        # one step on, and the new state played out in place: the older ones stay
        child = step(state, rng.choice(legal_actions(state)))
        child_before = child.snapshot()
        sibling = step(state, rng.choice(legal_actions(state)))
        sibling_before = sibling.snapshot()
        on_a_copy = rng.random() < 0.5
        playout(child.copy() if on_a_copy else child, rng)
        assert state.snapshot() == before and sibling.snapshot() == sibling_before
        if on_a_copy:  # played out on a copy: the child stays too
            assert child.snapshot() == child_before
        state, before = sibling, sibling_before


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_a_chain_of_applies_keeps_every_earlier_state(data):
    state, rng = position(data)
    chain = [(state, state.snapshot())]
    for _ in range(data.draw(st.integers(1, 60), label="applies")):
        last = chain[-1][0]
        if is_over(last):
            break
        new = apply(last, rng.choice(legal_moves(last)))
        if rng.random() < 0.3:  # sometimes a turn pushed in place on a new state
            if not is_over(new):
                push(new, random_move(new, rng))
        chain.append((new, new.snapshot()))
    for earlier, snap in chain:
        assert earlier.snapshot() == snap
