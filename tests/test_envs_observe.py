"""The observation vector (lostcities.envs.observe): fixed length per pack and player count,
and blind to hidden information: two matches that differ only in what a seat cannot see
(other hands, the draw pile beyond what was drawn, the removed cards) encode the same for it."""
from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install 'lostcities[rl]')")

from hypothesis import given, settings, strategies as st  # noqa: E402

from lostcities.engine import Deal, apply, load_pack, new_game, observation, random_move  # noqa: E402
from lostcities.envs import layout  # noqa: E402

from enginehelpers import builtin_ids  # noqa: E402

PACKS = builtin_ids()


def _played(pack, players, seed, turns):
    """A match of round 1 played ``turns`` random moves (fewer if the round would end)."""
    state = new_game(pack, players, seed)
    rng = random.Random(seed)
    moves = []
    for _ in range(turns):
        move = random_move(state, rng)
        after = apply(state, move)
        if after.round != 1:
            break
        state = after
        moves.append(move)
    return state, moves


def _hidden_swap(state, moves, seat, rng):
    """The same round-1 deal with cards another seat never showed swapped with cards of the
    draw pile that were not drawn yet and with the removed cards (under ``rows.start:
    lowest-in-hand`` a hand decides which moves are legal: only the pile and the removed
    cards are swapped there)."""
    deal = state.deal
    hands = [list(h) for h in deal.hands]
    pile = list(deal.draw_pile)
    drawn = len(deal.draw_pile) - observation(state, seat).draw_pile
    played = {}
    for m in moves:
        played[m.card] = played.get(m.card, 0) + 1
    spots = []  # (where, index) of cards nobody saw
    for p, hand in enumerate(hands):
        if p == seat or state.pack.row_start == "lowest-in-hand":
            continue
        held = list(state.hands[p])  # what p still holds: never played
        for i, card in enumerate(hand):
            if card in held and not played.get(card):
                held.remove(card)
                spots.append(("hand", p, i))
    spots += [("pile", 0, i) for i in range(drawn, len(pile))]
    spots += [("removed", 0, i) for i in range(len(deal.removed))]
    removed = list(deal.removed)
    box = {"pile": pile, "removed": removed}
    cards = [hands[p][i] if w == "hand" else box[w][i] for w, p, i in spots]
    rng.shuffle(cards)
    for (w, p, i), card in zip(spots, cards):
        if w == "hand":
            hands[p][i] = card
        else:
            box[w][i] = card
    return Deal(tuple(tuple(h) for h in hands), tuple(pile), tuple(removed), deal.tiles)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(PACKS), st.integers(0, 2**31), st.integers(0, 60), st.data())
def test_hidden_information_never_shows(pack_id, seed, turns, data):
    pack = load_pack(pack_id)
    players = data.draw(st.integers(pack.min_players, pack.max_players))
    seat = data.draw(st.integers(0, players - 1))
    state, moves = _played(pack, players, seed, turns)
    other_deal = _hidden_swap(state, moves, seat, random.Random(seed + 1))
    other = new_game(pack, players, seed, deals=[other_deal])
    for m in moves:
        other = apply(other, m)
    lay = layout(pack, players)
    mine, theirs = lay.encode(observation(state, seat)), lay.encode(observation(other, seat))
    assert mine.dtype == np.float32 and mine.shape == (lay.size,)
    assert np.array_equal(mine, theirs)


@pytest.mark.parametrize("pack_id", PACKS)
def test_fixed_length_and_fields(pack_id):
    pack = load_pack(pack_id)
    for players in range(pack.min_players, pack.max_players + 1):
        lay = layout(pack, players)
        assert sum(size for _, _, size in lay.fields) == lay.size
        state, _ = _played(pack, players, 5, 30)
        for seat in range(players):
            obs = observation(state, seat)
            v = lay.encode(obs)
            assert v.shape == (lay.size,)
            assert v[lay.slice("hand")].sum() == len(obs.hand)   # own hand, counted by kind
            assert v[lay.slice("draw_pile")][0] == obs.draw_pile
            assert v[lay.slice("to_move")][(obs.to_move - seat) % players] == 1
            if pack.board is None:
                assert "tiles" not in [name for name, _, _ in lay.fields]
            else:
                assert v[lay.slice("tiles")].sum() == len(obs.board.tiles)
