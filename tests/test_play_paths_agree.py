"""The engine's fast paths give exactly what the plain paths give.

``playout`` (random matches, search rollouts) against pushing the same moves one by
one through ``apply``; ``play_match`` of random bots against the same bots through
the bot interface; the state's bit masks (what ``random_move`` counts and picks
from) against a fresh derivation from hands, rows and piles, through pushes and
pops; the ready moves of the pack's tables against plain ``Move`` values.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from enginehelpers import builtin_ids, derived, pack
from lostcities.engine.bots.base import RandomBot
from lostcities.engine.game.moves import DECK, DISCARD, PLAY, Move
from lostcities.engine.lab.records import dumps
from lostcities.engine.lab.simulation import play_match
from lostcities.engine.game.tables import tables_of
from lostcities.engine.game.turn import (apply, derive, is_legal, is_over, legal_actions,
                                    legal_moves, new_game, playout, pop, push, push_action,
                                    random_move)


def _players(p):
    return sorted({p.min_players, p.max_players})


@pytest.mark.parametrize("pack_id", builtin_ids())
def test_playout_is_the_match_of_the_same_moves_applied_one_by_one(pack_id):
    p = pack(pack_id)
    for players in _players(p):
        for seed in range(2 if p.board is not None else 4):
            fast = playout(new_game(p, players, seed), random.Random(seed))
            plain = new_game(p, players, seed)
            rng = random.Random(seed)
            while not is_over(plain):
                move = random_move(plain, rng)
                assert is_legal(plain, move)
                plain = apply(plain, move)  # checked, on a copy
            assert fast.snapshot() == plain.snapshot()
            assert dumps(fast) == dumps(plain)
            assert fast.undo == []


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


def test_ready_moves_are_the_plain_moves():
    p = pack("duel-classic")
    t = tables_of(p)
    for card in range(t.n_kinds):
        for action in (PLAY, DISCARD):
            for draw in (None, DECK, *t.colours):
                ready = t.move(action, card, draw)
                assert ready == Move(action, card, draw) and ready.codec is p.cards
                assert str(ready) == str(Move(action, card, draw, codec=p.cards))
