"""OpenSpiel (lostcities.envs.openspiel_game, python_lostcities): OpenSpiel's random simulation
checks, a serialisation round trip, chance nodes over the unseen cards, no hidden card in
another seat's information state, and a whole duel-classic match of OpenSpiel's ISMCTS bot
against a random bot through the adapter."""
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
    pyspiel.random_sim_test(_game(**params), num_sims=1, serialize=False, verbose=False)


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


def test_ismcts_bot_plays_a_whole_match_against_random():
    from open_spiel.python.algorithms import ismcts

    game = _game(pack="duel-classic")

    class NoRollout:
        """A cheap evaluator: no rollouts (the test checks the adapter, not the strength)."""

        def evaluate(self, state):
            return np.zeros(game.num_players())

        def prior(self, state):
            legal = state.legal_actions()
            return [(a, 1 / len(legal)) for a in legal]

    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, NoRollout(), 2.0, max_simulations=4, random_state=rng,
                           allow_inconsistent_action_sets=True)
    random_bot = pyspiel.make_uniform_random_bot(1, 7)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            bot_now = bot if state.current_player() == 0 else random_bot
            state.apply_action(bot_now.step(state))
            decisions += 1
    assert decisions > 300 and len(state.match.state.finished) == 3
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_bad_parameters_are_refused():
    for params in ({"pack": "../../etc/passwd"}, {"pack": "duel-classic", "players": 5},
                   {"pack": "no-such-pack"}):
        with pytest.raises(Exception) as err:
            _game(**params)
        assert "Traceback" not in str(err.value)
