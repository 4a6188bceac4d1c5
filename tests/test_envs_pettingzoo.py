"""The PettingZoo AEC environment (lostcities.envs.aec_env): PettingZoo's own API and seed
tests with their defaults, whole matches whose rewards add up to the engine's totals, every
observation and mask of whole matches equal to the engine's (the vectors are written once per
change), an illegal id, the text render."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install 'lostcities[rl]')")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from lostcities.engine import (IllegalMoveError, InputError, legal_action_mask, new_game,  # noqa: E402
                               observation, totals, winners)
from lostcities.envs import aec_env, layout  # noqa: E402

#: PettingZoo's advisory warnings for an observation that is a dict (the observation and its
#: action mask, as PettingZoo's own classic environments give)
DICT_OBSERVATION = ("Observation space for each agent probably should be gymnasium.spaces.box",
                    "Observation is not a NumPy array")


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-six", "duel-grenoble", "board-classic"])
def test_pettingzoo_api_and_seed_tests(pack_id):
    players = 3 if pack_id == "duel-grenoble" else 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec_env(pack_id, players=players, seed=1))
        seed_test(lambda: aec_env(pack_id, players=players))
    assert {str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION)} \
        == set()


def _play(env, rng):
    env.reset(seed=11)
    got = {a: 0.0 for a in env.possible_agents}
    decisions = 0
    for agent in env.agent_iter(max_iter=100_000):
        obs, reward, term, trunc, _ = env.last()
        got[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
        decisions += 1
    return got, decisions


@pytest.mark.parametrize("pack_id,players", [("duel-classic", 2), ("board-classic", 3)])
def test_points_rewards_add_up_to_the_totals(pack_id, players):
    env = aec_env(pack_id, players=players, reward="points")
    got, decisions = _play(env, np.random.default_rng(0))
    assert decisions > 100 and not env.agents
    assert [got[a] for a in env.possible_agents] == [float(t) for t in totals(env.state)]


def test_win_rewards_and_observations_of_the_seat():
    env = aec_env("duel-classic", reward="win")
    got, _ = _play(env, np.random.default_rng(1))
    won = winners(env.state)
    for seat, a in enumerate(env.possible_agents):
        assert got[a] == ((1.0 if len(won) == 1 else 0.0) if seat in won else -1.0)
    env.reset(seed=5)
    fresh = new_game(env.pack, 2, 5)
    obs = env.observe("player_1")
    assert np.array_equal(obs["observation"], layout(env.pack, 2).encode(observation(fresh, 1)))
    assert not obs["action_mask"].any()  # seat 0 moves first: nothing is legal for seat 1
    assert env.observe("player_0")["action_mask"].sum() > 0


@pytest.mark.parametrize("pack_id,players", [("duel-classic", 2), ("duel-grenoble", 4),
                                             ("board-classic", 3)])
def test_every_observation_equals_the_engines(pack_id, players):
    """Through PettingZoo's loop, each agent's vector (written once per change, in place) is
    the whole encoding of its observation and its mask the engine's legal ids, for every
    agent at every decision of a whole match; what observe returned before stays as it was."""
    env = aec_env(pack_id, players=players, seed=2)
    env.reset()
    lay = layout(env.pack, players)
    rng = np.random.default_rng(2)
    kept, decisions = [], 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        for seat, other in enumerate(env.possible_agents):
            seen = env.observe(other)
            assert np.array_equal(seen["observation"], lay.encode(observation(env.state, seat)))
            moving = not term and env.state.to_move == seat
            expected = [int(b) for b in legal_action_mask(env.state)] if moving else \
                [0] * env.space.num_actions
            assert seen["action_mask"].dtype == np.int8 and seen["action_mask"].tolist() == expected
        if term or trunc:
            env.step(None)
            continue
        kept.append((obs["observation"], obs["observation"].copy()))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        decisions += 1
    assert decisions > 100 and all(np.array_equal(a, b) for a, b in kept)


def test_an_illegal_id_is_one_error_and_changes_nothing():
    env = aec_env("duel-classic", seed=4)
    env.reset()
    before = env.state.snapshot()
    seen = env.observe("player_0")
    bad = int(np.flatnonzero(seen["action_mask"] == 0)[0])
    with pytest.raises(IllegalMoveError, match=f"action {bad} .* is not legal now"):
        env.step(bad)
    assert env.state.snapshot() == before and env.agent_selection == "player_0"
    assert np.array_equal(env.observe("player_0")["observation"], seen["observation"])


def test_render_shows_the_table_but_no_hand():
    env = aec_env("duel-classic", seed=3, render_mode="ansi")
    env.reset()
    text = env.render()
    hand = observation(env.state, 0).hand
    assert "duel-classic  round 1/3" in text and "draw pile 44" in text
    assert not any(env.pack.cards.format(c) in text for c in hand)


def test_bad_arguments_raise_one_clear_error():
    with pytest.raises(InputError, match="reward must be one of points, win"):
        aec_env(reward="money")
    with pytest.raises(InputError, match="render_mode"):
        aec_env(render_mode="rgb_array")
