"""OpenSpiel (lostcities.envs.openspiel_game, python_lostcities): OpenSpiel's random simulation
checks, a serialisation round trip, chance nodes over the unseen cards, no hidden card in
another seat's information state, every chance outcome kept by the engine (a match's deals
and moves replay), illegal actions refused in one line. Resampling and OpenSpiel's ISMCTS:
tests/test_envs_openspiel_resample.py."""
from __future__ import annotations

import pickle

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install 'lostcities[rl]')")
np = pytest.importorskip("numpy")

from lostcities.engine import load_pack, observation  # noqa: E402
from lostcities.envs.openspiel_game import OPENSPIEL_NAME  # noqa: E402  (registers the game)
from lostcities.envs.observe import layout  # noqa: E402


def _game(**params):
    return pyspiel.load_game(OPENSPIEL_NAME, params)


@pytest.mark.parametrize("params", [{"pack": "duel-classic"}, {"pack": "board-short", "players": 3}])
def test_openspiel_random_simulation_checks(params):
    """OpenSpiel's own checks of a game, serialisation round trips at every state included."""
    pyspiel.random_sim_test(_game(**params), num_sims=1, serialize=True, verbose=False)


def _walk(state, rng, decisions):
    """Play on at random (chance by its probabilities) for ``decisions`` steps or to the end."""
    for _ in range(decisions):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_serialisation_round_trip_mid_match():
    game = _game(pack="duel-six")
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    for _ in range(4):
        _walk(state, rng, 120)
        text = pyspiel.serialize_game_and_state(game, state)
        game2, back = pyspiel.deserialize_game_and_state(text)
        assert str(back) == str(state) and back.history() == state.history()
        assert back.current_player() == state.current_player()
        for p in range(2):
            assert back.information_state_string(p) == state.information_state_string(p)
            assert back.observation_tensor(p) == state.observation_tensor(p)
        assert pickle.loads(pickle.dumps(state)).history() == state.history()
        if not state.is_terminal() and not state.is_chance_node():
            assert back.legal_actions() == state.legal_actions()


def test_chance_nodes_draw_from_the_unseen_cards():
    game = _game(pack="duel-classic")
    pack = load_pack("duel-classic")
    state = game.new_initial_state()
    outcomes = dict(state.chance_outcomes())
    assert state.is_chance_node() and len(outcomes) == pack.cards.n_kinds  # 50 kinds, 60 cards
    assert abs(sum(outcomes.values()) - 1) < 1e-9
    wager = pack.cards.parse("yx")
    assert outcomes[wager] == pytest.approx(3 / 60)
    for _ in range(16):  # the two hands, card by card
        assert state.is_chance_node()
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 0
    hand = observation(state.match.state, 0).hand
    assert len(hand) == 8 and len(observation(state.match.state, 1).hand) == 8
    state.apply_action([a for a in state.legal_actions() if a >= pack.cards.n_kinds][0])  # discard
    state.apply_action(game.num_distinct_actions() - 1 - 5)  # draw deck: id 2K
    assert state.is_chance_node()
    drawn = dict(state.chance_outcomes())
    assert sum(drawn.values()) == pytest.approx(1)
    left = {}
    for card in pack.deck():
        left[card] = left.get(card, 0) + 1
    engine = state.match.state
    for card in [c for h in engine.hands for c in h] + [c for pile in engine.piles for c in pile]:
        left[card] -= 1
    assert drawn == pytest.approx({k: v / 44 for k, v in left.items() if v})  # 60 - 16 in hands
    # the other seat's information state shows seat 0's cards as ?
    words = state.information_state_string(1).split()
    assert words[:2] == ["duel-classic", "p1"] and "d0:?" in words
    assert all(not w.startswith("d0:") or w == "d0:?" for w in words)
    vec = np.array(state.observation_tensor(0), np.float32)
    assert np.array_equal(vec, layout(pack, 2).encode(observation(state.match.state, 0)))


@pytest.mark.parametrize("pack_id", ["duel-classic", "board-classic"])
def test_the_deals_and_moves_of_a_match_replay_through_the_engine(pack_id):
    """Each chance outcome went through the engine (with_hidden, push_draw), so the rounds'
    deals and moves the engine kept play the same match again from new_game(deals=...)."""
    from lostcities.engine import apply, new_game, round_scores

    game = _game(pack=pack_id)
    state = _walk(game.new_initial_state(), np.random.default_rng(5), 10 ** 6)
    assert state.is_terminal()
    engine = state.match.state
    again = new_game(engine.pack, engine.n, 0, deals=[r.deal for r in engine.finished])
    for result in engine.finished:
        for move in result.moves:
            again = apply(again, move)
    assert round_scores(again) == round_scores(engine) and len(engine.finished) == 3


def test_an_illegal_action_or_outcome_is_one_clear_error():
    game = _game(pack="duel-classic")
    state = game.new_initial_state()
    with pytest.raises(Exception) as err:
        state.apply_action(game.num_distinct_actions() + 3)  # a chance node: no such card
    assert "not a card left to draw" in str(err.value) and "\n" not in str(err.value)
    for _ in range(16):
        state.apply_action(state.chance_outcomes()[0][0])
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(Exception) as err:
        state.apply_action(illegal)
    assert "is not legal now" in str(err.value) and "\n" not in str(err.value)


def test_bad_parameters_are_refused():
    for params in ({"pack": "../../etc/passwd"}, {"pack": "duel-classic", "players": 5},
                   {"pack": "no-such-pack"}):
        with pytest.raises(Exception) as err:
            _game(**params)
        assert "Traceback" not in str(err.value)


def test_push_draw_draws_the_card_named_from_the_pile_or_the_removed_cards():
    """The engine's chance draw (lostcities.engine.push_draw): the card named is drawn, from
    the pile or from the removed cards (board-classic at two removes 30), the deal follows;
    a seen card is refused in one line; pop takes the draw back."""
    from lostcities.engine import action_space, legal_actions, new_game, pop, push_action, push_draw

    pack = load_pack("board-classic")
    state = new_game(pack, 2, 4)
    draw_deck = action_space(pack).draw_deck
    while draw_deck not in legal_actions(state):
        push_action(state, legal_actions(state)[-1])
    removed, pile = list(state.deal.removed), list(state.deck)
    p = state.to_move
    hand = list(state.hands[p])
    push_draw(state, removed[0])  # a removed card, drawn
    assert sorted(state.hands[p]) == sorted(hand + [removed[0]])
    assert state.deck == pile[:-1] and sorted(state.deal.removed) == sorted(removed[1:] + [pile[-1]])
    pop(state)
    assert sorted(state.hands[p]) == sorted(hand)
    push_draw(state, pile[0])  # the pile's bottom card
    assert sorted(state.hands[p]) == sorted(hand + [pile[0]]) and len(state.deck) == len(pile) - 1
    pop(state)
    seen = next(c for c in range(pack.cards.n_kinds)
                if c not in state.deck and c not in state.deal.removed)
    with pytest.raises(Exception) as err:
        push_draw(state, seen)
    assert str(err.value).startswith("push_draw:") and "\n" not in str(err.value)
