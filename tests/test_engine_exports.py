"""The determinization API (issue #15, for lostcities.envs and search): shuffle_deal, derive
and with_hidden exported by lostcities.engine, with_hidden checked."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lostcities.engine as engine
from enginehelpers import builtin_ids, pack
from lostcities.engine import (InputError, derive, is_over, legal_actions, new_game, observation,
                               playout, random_move, shuffle_deal, step, with_hidden)


def test_the_names_are_public_and_documented():
    from pathlib import Path

    api = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
    for name in ("shuffle_deal", "derive", "with_hidden"):
        assert name in engine.__all__ and callable(getattr(engine, name))
        assert f"`{name}" in api


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-grenoble", "board-classic"])
def test_shuffle_deal_is_the_deal_new_game_deals(pack_id):
    p = pack(pack_id)
    for seed in (0, 7, 2**40):
        assert new_game(p, p.min_players, seed).deal == shuffle_deal(p, p.min_players, seed, 1)


def _position(data):
    p = pack(data.draw(st.sampled_from(builtin_ids()), label="pack"))
    n = data.draw(st.integers(p.min_players, p.max_players), label="players")
    state = new_game(p, n, data.draw(st.integers(0, 2**32), label="seed"))
    rng = random.Random(data.draw(st.integers(0, 999), label="rng"))
    for _ in range(data.draw(st.integers(0, 150), label="decisions")):
        if is_over(state):
            break
        state = step(state, rng.choice(legal_actions(state)))
    return state, rng


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_with_hidden_deals_the_unseen_cards_again_and_shows_a_seat_the_same(data):
    state, rng = _position(data)
    seat = state.to_move
    unseen = [c for s, h in enumerate(state.hands) if s != seat for c in h] + \
        list(state.deck) + list(state.deal.removed)
    rng.shuffle(unseen)
    hands = []
    for s, h in enumerate(state.hands):
        hands.append(list(h) if s == seat else [unseen.pop() for _ in h])
    pile = [unseen.pop() for _ in state.deck]
    before = state.snapshot()
    guess = with_hidden(state, hands=hands, draw_pile=pile, removed=unseen)
    assert state.snapshot() == before
    assert guess.hands == hands and guess.deck == pile[::-1]
    assert guess.deal.hands == tuple(map(tuple, hands)) and guess.deal.removed == tuple(unseen)
    assert observation(guess, seat) == observation(state, seat)
    rebuilt = guess.copy()
    derive(rebuilt)  # the derived fields were already in step
    assert rebuilt.snapshot() == guess.snapshot()
    if not is_over(guess):
        assert random_move(guess, rng) is not None
        playout(guess, rng)
        assert is_over(guess)
    assert state.snapshot() == before


@settings(max_examples=25, deadline=None)
@given(st.data(), st.integers(0, 3))
def test_with_hidden_refuses_anything_but_the_unseen_cards(data, how):
    state, rng = _position(data)
    t = state.tables
    hands = [list(h) for h in state.hands]
    pile = list(reversed(state.deck))
    if how == 0:  # a hand of another size
        hands[0] = hands[0] + [0]
    elif how == 1:  # a card not of the pack
        hands[0] = [t.n_kinds] + hands[0][1:] if hands[0] else [t.n_kinds]
    elif how == 2:  # one card changed: another multiset
        if not hands[0]:
            return
        hands[0][0] = (hands[0][0] + 1) % t.n_kinds
    else:  # a hand short: one seat missing
        hands = hands[1:]
    with pytest.raises(InputError, match="^with_hidden: "):
        with_hidden(state, hands=hands, draw_pile=pile)


@pytest.mark.parametrize("kwargs", [{"hands": "ab"}, {"hands": None, "draw_pile": 5},
                                    {"draw_pile": [True] * 44}, {"removed": [0]}])
def test_with_hidden_says_what_is_wrong_in_one_line(kwargs):
    state = new_game(pack("duel-classic"), 2, 1)
    with pytest.raises(InputError) as caught:
        with_hidden(state, **kwargs)
    assert "\n" not in str(caught.value) and str(caught.value).startswith("with_hidden: ")


def test_every_public_name_of_both_tiers_is_in_docs_api_and_its_modules_own():
    """docs/api.md's index lists each name of ``lostcities.engine`` (the game API) and of
    ``lostcities.engine.tooling`` (the front ends' plumbing) in its tier, and the deprecated
    aliases with the release they go away in; each name is its defining module's object."""
    import importlib
    from pathlib import Path

    import lostcities.engine.tooling as tooling

    api = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
    index = api[api.index("## Every public name"):]
    game, tools = index.split("### `lostcities.engine.tooling`")
    for name in engine.__all__:
        assert f"`{name}" in game, f"{name} is not in docs/api.md's index of lostcities.engine"
    for name in tooling.__all__:
        assert f"`{name}" in tools, f"{name} is not in docs/api.md's index of the tooling tier"
        module = importlib.import_module(tooling._LAZY[name], "lostcities.engine")
        assert getattr(tooling, name) is getattr(module, name)
    aliases = api[api.index("### Deprecated aliases"):api.index("## Every public name")]
    assert engine.DEPRECATED_UNTIL in aliases
    for name in engine.DEPRECATED:
        assert f"`{name}`" in aliases, f"{name} is not among docs/api.md's deprecated aliases"
