"""Per-action features (lostcities.envs.features.ActionFeatures): computed from the seat's
observation vector alone (blind to hidden cards), and saying what each action would do in a
position set up by hand (opening a colour, skipping held cards, a discard that fits the
opponent's row, a pile top that fits the own row)."""
from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install 'lostcities[rl]')")

from hypothesis import given, settings, strategies as st  # noqa: E402

from lostcities.engine import (InputError, action_space, load_pack, new_game, observation,  # noqa: E402
                               random_move, apply, step, with_hidden)
from lostcities.envs import layout  # noqa: E402
from lostcities.envs.features import NAMES, ActionFeatures  # noqa: E402

from enginehelpers import complete_deal, duel_ids  # noqa: E402

COL = {name: i for i, name in enumerate(NAMES)}


def _features(pack, state):
    n = state.n
    return ActionFeatures(pack, n)(layout(pack, n).encode(observation(state, state.to_move)))


def test_features_in_a_position_set_by_hand():
    pack = load_pack("duel-classic")
    space = action_space(pack)
    deal = complete_deal(pack, ["r5 r6 r9 y3", "y4 y7"], top="b2 b3 b4")
    state = new_game(pack, 2, 0, deals=[deal])
    # seat 0 plays r5 and draws the deck; seat 1 plays y4 and draws; seat 0 is to move
    for name in ("play r5", "draw deck"):
        state = step(state, _id(space, name))
    for name in ("play y4", "draw deck"):
        state = step(state, _id(space, name))
    f = _features(pack, state)
    r6, r9, y3 = (_id(space, f"play {c}") for c in ("r6", "r9", "y3"))
    assert f[r6, COL["play_continues"]] == 1 and f[r6, COL["play_gap"]] == 0
    assert f[r9, COL["play_skips_in_hand"]] > 0          # r6 is held and would be lost
    assert f[r9, COL["play_gap"]] > f[r6, COL["play_gap"]]
    assert f[y3, COL["play_opens"]] == 1
    dy3 = _id(space, "discard y3")
    assert f[dy3, COL["discard_helps_opponent"]] == 0     # y3 is below the opponent's y4
    dr6 = _id(space, "discard r6")
    assert f[dr6, COL["discard_playable"]] == 1 and f[dr6, COL["discard_colour_open"]] == 1
    deck = _id(space, "draw deck")
    assert f[deck, COL["deck"]] == 1
    assert f[deck].sum() == f[deck, COL["deck"]] + f[deck, COL["deck_late"]]


def _id(space, name):
    for a in range(space.num_actions):
        if space.name(a) == name:
            return a
    raise AssertionError(name)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(duel_ids()), st.integers(0, 2**31), st.integers(0, 40))
def test_features_are_blind_to_hidden_cards(pack_id, seed, turns):
    """Another seat's hand and the draw pile dealt otherwise: the same features."""
    pack = load_pack(pack_id)
    state = new_game(pack, pack.min_players, seed)
    rng = random.Random(seed)
    for _ in range(turns):
        after = apply(state, random_move(state, rng))
        if after.round != 1:
            break
        state = after
    me = state.to_move
    others = [p for p in range(state.n) if p != me]
    hidden = [c for p in others for c in state.hands[p]] + list(reversed(state.deck))
    rng.shuffle(hidden)
    hands = [list(h) for h in state.hands]
    for p in others:
        hands[p], hidden = hidden[:len(hands[p])], hidden[len(hands[p]):]
    moved = with_hidden(state, hands=hands, draw_pile=hidden)
    a, b = _features(pack, state), _features(pack, moved)
    assert a.shape == (action_space(pack).num_actions, len(NAMES))
    assert np.array_equal(a, b)
    assert np.isfinite(a).all() and np.abs(a).max() <= 4


def test_board_packs_are_refused():
    with pytest.raises(InputError, match=r"ActionFeatures\(board-classic\): board packs"):
        ActionFeatures("board-classic")
