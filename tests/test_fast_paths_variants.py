"""The fast paths on the rules no built-in pack has (issue #15): a pack whose discarded card
may be drawn straight back, one that plays on after the draw pile ran out, one whose rows
start with the lowest card in hand, one whose rows run either way. On each, ``playout`` is
the match of the same random moves pushed one by one, ``push``'s one-record turn is undone
exactly by ``pop``, and ``apply`` / ``step`` equal ``push`` / ``push_action`` on a copy and
leave their state as it was.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enginehelpers import derived
from lostcities.engine import (apply, is_over, legal_actions, legal_moves, move_to_actions,
                               new_game, playout, pop, push, push_action, random_move, step)

VARIANTS = {
    "retake": {"turn": {"no_retake_discard": False}},
    "last-play": {"round_end": {"draw_pile_empty": "after-last-play"}},
    "retake-last-play": {"turn": {"no_retake_discard": False},
                         "round_end": {"draw_pile_empty": "after-last-play"}},
    "lowest-in-hand": {"rows": {"start": "lowest-in-hand"}},
    "either-way": {"rows": {"ordering": "either-direction"}},
}
PACKS = {name: derived("duel-classic", **sections) for name, sections in VARIANTS.items()}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_playout_is_the_match_of_the_same_moves_pushed_one_by_one(name):
    p = PACKS[name]
    for seed in range(3):
        fast = playout(new_game(p, 2, seed), random.Random(seed))
        plain, rng = new_game(p, 2, seed), random.Random(seed)
        while not is_over(plain):
            push(plain, random_move(plain, rng))
        assert fast.snapshot() == plain.snapshot(), (name, seed)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(VARIANTS)), st.integers(0, 2**32), st.integers(0, 999),
       st.integers(1, 500))
def test_push_pop_apply_and_step_agree_and_undo_exactly(name, seed, rng_seed, turns):
    state, rng = new_game(PACKS[name], 2, seed), random.Random(rng_seed)
    stack = []
    for _ in range(turns):
        if is_over(state):
            break
        move = rng.choice(legal_moves(state))
        before = state.snapshot()
        applied = apply(state, move)
        assert state.snapshot() == before
        stepped = state
        for action in move_to_actions(state.pack, move):
            assert action in legal_actions(stepped)
            new = step(stepped, action)
            copy = stepped.copy()
            push_action(copy, action)
            assert new.snapshot() == copy.snapshot()
            stepped = new
        assert state.snapshot() == before
        push(state, move)
        assert state.snapshot() == applied.snapshot() == stepped.snapshot()
        stack.append(before)
    while stack:
        pop(state)
        assert state.snapshot() == stack.pop()
