"""The engine's ways to play a turn agree: ``apply``, ``push``, ``step``, ``push_action``,
``playout``, ``random_move``, ``play_match`` and the tables' ready moves give exactly what the
plain paths give, on every built-in pack and on the rules no built-in pack has (``VARIANTS``:
the discarded card drawn straight back, play on after the draw pile ran out, both, rows
started by the lowest card in hand, rows that run either way).

``playout`` (random matches, search rollouts) against the same random moves applied and
pushed one by one; ``apply`` / ``step`` against ``push`` / ``push_action`` on a copy, each
leaving its state as it was; the action mask against the legal actions; ``play_match`` of
random bots against the same bots through the bot interface; ``random_move``'s pick against
a uniform choice in ``legal_moves``; the tables' ready moves against plain ``Move`` values.
Undo and copies: tests/test_undo_and_copies.py; the seeded games themselves, digested move
by move: tests/test_seeded_digests.py.
"""
from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enginehelpers import builtin_ids, derived, pack
from lostcities.engine.bots.base import RandomBot
from lostcities.engine.game.moves import DECK, DISCARD, PLAY, Move, move_to_actions
from lostcities.engine.game.tables import tables_of
from lostcities.engine.game.turn import (apply, is_legal, is_over, legal_action_mask,
                                         legal_actions, legal_moves, new_game, playout, pop,
                                         push, push_action, random_move, step)
from lostcities.engine.lab.records import dumps
from lostcities.engine.lab.simulation import play_match

#: rules no built-in pack has, each on duel-classic
VARIANTS = {
    "retake": {"turn": {"no_retake_discard": False}},
    "last-play": {"round_end": {"draw_pile_empty": "after-last-play"}},
    "retake-last-play": {"turn": {"no_retake_discard": False},
                         "round_end": {"draw_pile_empty": "after-last-play"}},
    "lowest-in-hand": {"rows": {"start": "lowest-in-hand"}},
    "either-way": {"rows": {"ordering": "either-direction"}},
}
#: every built-in pack by its id, and each variant by its name above
PACKS = [*builtin_ids(), *sorted(VARIANTS)]


@lru_cache(maxsize=None)
def a_pack(name: str):
    return derived("duel-classic", **VARIANTS[name]) if name in VARIANTS else pack(name)


def _players(p):
    return sorted({p.min_players, p.max_players})


def _game(data):
    p = a_pack(data.draw(st.sampled_from(PACKS), label="pack"))
    n = data.draw(st.integers(p.min_players, p.max_players), label="players")
    return p, new_game(p, n, data.draw(st.integers(0, 2**32), label="seed"))


def _check_the_mask(state, action=None):
    mask = legal_action_mask(state)
    assert [a for a, ok in enumerate(mask) if ok] == sorted(legal_actions(state))
    assert action is None or mask[action]


# -- apply, push, step and push_action

@settings(max_examples=55, deadline=None)
@given(st.data())
def test_apply_push_step_and_push_action_reach_the_same_states(data):
    """One match played in place by ``push``; at each turn its move also applied and stepped
    (decision by decision, each step against ``push_action`` on a copy) from the pushed
    state, which neither changes; and the same moves played by ``apply`` alone and by
    ``step`` alone from the start: all reach the same state. ``pop`` then undoes every turn."""
    p, state = _game(data)
    rng = random.Random(data.draw(st.integers(0, 999), label="rng"))
    by_apply, by_step = state.copy(), state.copy()
    history = []
    for _ in range(data.draw(st.integers(1, 500), label="turns")):
        if is_over(state):
            break
        moves = legal_moves(state)
        move = rng.choice(moves) if rng.random() < 0.5 else random_move(state, rng)
        assert move in moves
        before = state.snapshot()
        applied = apply(state, move)
        stepped = state
        for action in move_to_actions(p, move):
            _check_the_mask(stepped, action)
            new = step(stepped, action)
            copy = stepped.copy()
            push_action(copy, action)
            assert new.snapshot() == copy.snapshot()  # step is push_action on a copy
            stepped = new
        assert state.snapshot() == before  # apply and step leave their input as it was
        by_apply = apply(by_apply, move)
        for action in move_to_actions(p, move):
            _check_the_mask(by_step, action)
            by_step = step(by_step, action)
        history.append(before)
        push(state, move)
        assert state.snapshot() == applied.snapshot() == stepped.snapshot()
        assert state.snapshot() == by_apply.snapshot() == by_step.snapshot()
    while history:  # pop undoes every turn exactly
        pop(state)
        assert state.snapshot() == history.pop()


# -- playout

@pytest.mark.parametrize("name", PACKS)
def test_playout_is_the_match_of_the_same_moves_applied_or_pushed_one_by_one(name):
    p = a_pack(name)
    for players in _players(p):
        for seed in range(2 if p.board is not None else 4):
            fast = playout(new_game(p, players, seed), random.Random(seed))
            applied, rng = new_game(p, players, seed), random.Random(seed)
            while not is_over(applied):
                move = random_move(applied, rng)
                assert is_legal(applied, move)
                applied = apply(applied, move)  # checked, on a copy
            pushed, rng = new_game(p, players, seed), random.Random(seed)
            while not is_over(pushed):
                push(pushed, random_move(pushed, rng))
            assert fast.snapshot() == applied.snapshot() == pushed.snapshot(), (name, seed)
            assert dumps(fast) == dumps(applied)
            assert fast.undo == []


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_the_fused_playout_is_random_move_pushed_turn_by_turn(data):
    p, state = _game(data)
    seed = data.draw(st.integers(0, 2**32), label="rng")
    plain = state.copy()
    playout(state, random.Random(seed))
    rng = random.Random(seed)
    while not is_over(plain):
        push(plain, random_move(plain, rng))
    plain.undo.clear()
    assert state.snapshot() == plain.snapshot()


class CountingRandom(random.Random):
    """A subclass of random.Random: the playout takes its generic path, the same games."""


def test_a_random_subclass_plays_the_same_playout():
    p = pack("duel-classic")
    a = playout(new_game(p, 2, 5), random.Random(9))
    b = playout(new_game(p, 2, 5), CountingRandom(9))
    assert a.snapshot() == b.snapshot()


def test_playout_takes_any_policy_and_empties_the_undo_stack():
    p = pack("duel-classic")
    first = lambda state, rng: legal_moves(state)[0]  # noqa: E731
    fast = new_game(p, 2, 3)
    push(fast, legal_moves(fast)[-1])
    plain = fast.copy()
    playout(fast, random.Random(0), first)
    while not is_over(plain):
        plain = apply(plain, legal_moves(plain)[0])
    assert fast.snapshot() == plain.snapshot()
    assert fast.undo == []
    with pytest.raises(IndexError):
        pop(fast)


# -- play_match

class ViewRandomBot(RandomBot):
    """The random bot, but through the bot interface: a view per turn, every move checked."""

    name = "random"


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-equal", "board-classic"])
def test_play_match_of_random_bots_is_their_match_through_the_bot_interface(pack_id):
    p = pack(pack_id)
    for seed in range(3):
        fast = play_match(p, [RandomBot(), RandomBot()], seed)
        plain = play_match(p, [ViewRandomBot(), ViewRandomBot()], seed)
        assert dumps(fast) == dumps(plain)


# -- random_move: uniform over legal_moves

def _assert_uniform(p, state, rng):
    legal = legal_moves(state)
    draws = 40 * len(legal)
    counts = Counter(random_move(state, rng) for _ in range(draws))
    assert set(counts) == set(legal)
    expected = draws / len(legal)
    chi2 = sum((counts[m] - expected) ** 2 / expected for m in legal)
    k = len(legal) - 1  # 99.9% quantile of chi-square, k degrees of freedom (Wilson-Hilferty)
    assert chi2 < k * (1 - 2 / (9 * k) + 3.09 * (2 / (9 * k)) ** 0.5) ** 3


@pytest.mark.parametrize("sections", [
    {"rows": {"start": "lowest-in-hand"}},
    {"rows": {"ordering": "either-direction"}, "turn": {"no_retake_discard": False}},
    {"round_end": {"draw_pile_empty": "after-last-play"}},
])
def test_random_move_stays_uniform_on_other_row_and_round_rules(sections):
    p = derived("duel-classic", **sections)
    rng = random.Random(11)
    s = new_game(p, 2, 5)
    checked = 0
    while not is_over(s) and checked < 6:
        for _ in range(rng.randrange(20, 40)):
            if is_over(s):
                break
            push(s, random_move(s, rng))
        if not is_over(s):
            _assert_uniform(p, s, rng)
            checked += 1
    assert checked


def test_random_move_is_uniform_on_a_board_with_pawn_and_step_choices():
    p = pack("board-classic")
    rng = random.Random(2)
    s = new_game(p, 2, 1)
    checked = 0
    while not is_over(s) and checked < 4:
        legal = legal_moves(s)
        if len({(m.action, m.card) for m in legal}) < len(legal) - 20 and \
                any(m.pawn is not None or m.steps for m in legal):
            _assert_uniform(p, s, rng)
            checked += 1
        push(s, random_move(s, rng))
    assert checked


# -- the tables' ready moves

def test_ready_moves_are_the_plain_moves():
    p = pack("duel-classic")
    t = tables_of(p)
    for card in range(t.n_kinds):
        for action in (PLAY, DISCARD):
            for draw in (None, DECK, *t.colours):
                ready = t.move(action, card, draw)
                assert ready == Move(action, card, draw) and ready.codec is p.cards
                assert str(ready) == str(Move(action, card, draw, codec=p.cards))
