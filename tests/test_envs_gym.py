"""The Gymnasium environment (lostcities.envs.gym_env, lostcities/LostCities-v0): Gymnasium's
env_checker passes, the action mask is in info, whole matches against each built-in bot, the
rewards add up to the seat's total, seeding, an illegal id, bad arguments."""
from __future__ import annotations

import warnings

import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install 'lostcities[rl]')")
np = pytest.importorskip("numpy")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from lostcities.engine import InputError, legal_action_mask, totals  # noqa: E402
from lostcities.envs.gym_env import GYM_ID, gym_env  # noqa: E402


@pytest.mark.parametrize("opponent", ["random", "greedy", "expert"])
def test_env_checker_passes(opponent):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # advisory: an unbounded Box (scores have no fixed range)
        env = gymnasium.make(GYM_ID, pack="duel-classic", opponent=opponent)
        check_env(env.unwrapped, skip_render_check=True)


def _match(env, seed, rng):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.tolist() == [int(b) for b in legal_action_mask(env.state)]
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert obs.shape == env.observation_space.shape and not truncated
        total += reward
        steps += 1
        if terminated:
            return total, steps


@pytest.mark.parametrize("pack_id,players,seat", [("duel-classic", 2, 1), ("board-classic", 3, 2),
                                                  ("duel-grenoble", 4, 0)])
def test_points_add_up_to_the_seats_total(pack_id, players, seat):
    env = gym_env(pack_id, opponent="greedy", players=players, seat=seat)
    total, steps = _match(env, 4, np.random.default_rng(0))
    assert steps > 50 and total == totals(env.state)[seat]


def test_same_seed_same_match_and_next_seed():
    env = gym_env("duel-classic", opponent="expert", seed=9, reward="win")
    a = _match(env, 9, np.random.default_rng(2))
    first = env.state.snapshot()
    b = _match(env, 9, np.random.default_rng(2))
    assert a == b and env.state.snapshot() == first and a[0] in (-1.0, 0.0, 1.0)
    env.reset()
    assert env.seed_played == 10


def test_illegal_id_ends_the_episode():
    env = gym_env("duel-classic", opponent="random", illegal_reward=-5)
    obs, info = env.reset(seed=1)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(bad)
    assert terminated and reward == -5 and info["illegal"]


def test_bad_arguments_raise_one_clear_error():
    with pytest.raises(InputError, match="opponent must be one of"):
        gym_env(opponent="os:system")
    with pytest.raises(InputError, match="seat must be 0-1"):
        gym_env(seat=2)
    with pytest.raises(InputError, match="reward must be one of"):
        gym_env(reward="x")
