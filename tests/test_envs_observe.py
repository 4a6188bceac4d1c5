"""The observation vector (lostcities.envs.observe): fixed length per pack and player count,
and blind to hidden information: two matches that differ only in what a seat cannot see
(other hands, the draw pile beyond what was drawn, the removed cards) encode the same for it."""
from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install 'lostcities[rl]')")

from hypothesis import given, settings, strategies as st  # noqa: E402

from lostcities.engine import (Deal, InputError, PackError, apply, is_over, legal_actions,  # noqa: E402
                               load_pack, new_game, observation, random_move, step)
from lostcities.envs import encode, layout  # noqa: E402

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


def test_layout_takes_a_pack_id_a_pack_file_or_a_pack():
    pack = load_pack("duel-classic")
    by_id = layout("duel-classic", 2)
    assert by_id is layout(pack, 2) and by_id.size == 337
    assert layout(pack.path, 2).size == 337 and layout("board-classic", 2).size == 684
    state = new_game(pack, 2, 1)
    assert np.array_equal(encode(observation(state, 0), "duel-classic"),
                          by_id.encode(observation(state, 0)))
    with pytest.raises(PackError, match="no such built-in pack") as err:
        layout("duel-clasic", 2)
    assert "\n" not in str(err.value)
    with pytest.raises(InputError, match="pack must be a built-in pack id, a pack file or a RulePack"):
        layout(None, 2)
    with pytest.raises(InputError, match="players must be a whole number of seats"):
        layout("duel-classic", "2")


@pytest.mark.parametrize("pack_id", PACKS)
def test_bounds_hold_every_value_of_whole_matches(pack_id):
    """Layout.low/high (the Gymnasium and PettingZoo Boxes) hold every seat's vector at every
    decision of a whole random match; infinite only where docs/rl.md says: a board pack's
    round scores and totals."""
    pack = load_pack(pack_id)
    players = pack.max_players
    lay = layout(pack, players)
    assert lay.low.dtype == lay.high.dtype == np.float32 and (lay.low < lay.high).all()
    unbounded = {name for name, start, size in lay.fields
                 if not np.isfinite(lay.low[start:start + size]).all()
                 or not np.isfinite(lay.high[start:start + size]).all()}
    assert unbounded == (set() if pack.board is None else {"round_scores", "totals"})
    state, rng, decisions = new_game(pack, players, 3), random.Random(3), 0
    while True:
        for seat in range(players):
            v = lay.encode(observation(state, seat))
            outside = [name for name, start, size in lay.fields
                       if ((v[start:start + size] < lay.low[start:start + size])
                           | (v[start:start + size] > lay.high[start:start + size])).any()]
            assert outside == [], (decisions, seat)
        if is_over(state):
            break
        state = step(state, rng.choice(legal_actions(state)))
        decisions += 1
    assert decisions > 100


@pytest.mark.parametrize("pack_id", PACKS)
def test_seat_vectors_equal_the_encoded_observation_at_every_decision(pack_id):
    """SeatVectors (what PettingZoo's observe returns), written once per change, equals the
    whole encoding of every seat's observation after every decision of whole random matches
    (each seat read at a different pace: the one to move at every decision, the others
    every few, so that changes pile up between reads), across round ends and the match's end."""
    from lostcities.envs.observe import SeatVectors

    pack = load_pack(pack_id)
    for players in sorted({pack.min_players, pack.max_players}):
        lay = layout(pack, players)
        state, rng, decisions = new_game(pack, players, 8), random.Random(8), 0
        vectors = SeatVectors(lay, state)
        while not is_over(state):
            seats = [state.to_move] + [s for s in range(players) if rng.random() < 0.3]
            for seat in seats:
                assert np.array_equal(vectors.vector(seat),
                                      lay.encode(observation(state, seat))), (decisions, seat)
            action = rng.choice(legal_actions(state))
            mover, state = state.to_move, step(state, action)
            vectors.update(state, mover, action)
            decisions += 1
        for seat in range(players):
            assert np.array_equal(vectors.vector(seat), lay.encode(observation(state, seat)))
        assert decisions > 100 and len(state.finished) == pack.rounds
