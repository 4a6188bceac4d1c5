"""The PettingZoo AEC environment (lostcities.envs.aec_env): PettingZoo's own API and seed
tests, whole matches whose rewards add up to the engine's totals, the text render."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install 'lostcities[rl]')")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from lostcities.engine import InputError, new_game, observation, totals, winners  # noqa: E402
from lostcities.envs import aec_env, layout  # noqa: E402


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-six", "board-classic"])
def test_pettingzoo_api_and_seed_tests(pack_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dict observation's advisory warnings
        api_test(aec_env(pack_id, seed=1), num_cycles=200, verbose_progress=False)
        seed_test(lambda: aec_env(pack_id), num_cycles=200)


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
