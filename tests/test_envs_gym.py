"""The Gymnasium environment (lostcities.envs.gymnasium_env; lostcities/<pack>-v0 and
lostcities/LostCities-v0): Gymnasium's env_checker passes with its defaults on every id, the
module layout (importing the registration, the old path or the new, never shadows the
constructor), the action mask as action_masks() and in info (int8 0/1, what Gymnasium's own sampler
takes), sb3-contrib's own
check, whole matches against each built-in bot, the rewards add up to the seat's total,
seeding, an illegal id, bad arguments."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install 'lostcities[rl]')")
np = pytest.importorskip("numpy")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from lostcities.engine import InputError, builtin_ids, legal_action_mask, totals  # noqa: E402
from lostcities.envs import GYM_ID, GYM_IDS, gym_env, gym_id  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Gymnasium's advisory warnings for a Box with an infinite bound: a board pack's round scores
#: and totals, which no bound is computed for (docs/rl.md, "Observation bounds")
UNBOUNDED = ("A Box observation space minimum value is -infinity",
             "A Box observation space maximum value is infinity")


def _checked(env) -> list[str]:
    """Gymnasium's check_env with its defaults on ``env``; the warnings it gave (its
    failures are exceptions; an observation outside its Box, for one, is only a warning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    return [str(w.message) for w in caught]


def test_every_builtin_pack_has_an_id_and_the_old_id_stays():
    assert GYM_ID == "lostcities/LostCities-v0" and GYM_IDS[0] == GYM_ID
    assert sorted(GYM_IDS[1:]) == sorted(f"lostcities/{p}-v0" for p in builtin_ids())
    assert all(i in gymnasium.registry for i in GYM_IDS) and gym_id("duel-six") in GYM_IDS


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_env_checker_passes_on_every_id(env_id):
    env = gymnasium.make(env_id)  # the defaults: the expert bot, seat 0, the pack's fewest seats
    pack = env.unwrapped.pack
    assert env_id == GYM_ID and pack.id == "duel-classic" or env_id == gym_id(pack.id)
    warned = _checked(env.unwrapped)
    board = pack.board is not None  # only a board pack's scores are unbounded
    assert [w for w in warned if not (board and any(u in w for u in UNBOUNDED))] == []
    assert board == bool(warned)


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_env_checker_passes_against_each_bot(opponent):
    assert _checked(gymnasium.make(GYM_ID, pack="duel-classic", opponent=opponent).unwrapped) == []


def _run(code: str) -> str:
    """``code`` in a fresh interpreter (the import order matters there); its output."""
    done = subprocess.run([sys.executable, "-W", "error::DeprecationWarning:lostcities.envs",
                           "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


MAKE = ("e = lostcities.envs.gym_env('duel-six', opponent='random'); "
        "print(type(e).__name__, e.pack.id, type(lostcities.envs.gym_env).__name__)")


@pytest.mark.parametrize("first", ["import lostcities.envs.gymnasium_env, lostcities.envs",
                                   "import lostcities.envs; lostcities.envs.gym_env",
                                   "import lostcities.envs.gym_env, lostcities.envs"])
def test_importing_the_registration_never_shadows_the_constructor(first):
    """Either order: the module first, then the constructor; the constructor first, then the
    module; and the deprecated path (which warns, and stays callable)."""
    old = first.startswith("import lostcities.envs.gym_env")
    code = ("import warnings; warnings.simplefilter('ignore', DeprecationWarning); " if old else "")
    got = _run(f"{code}{first}; {MAKE}; import lostcities.envs.gymnasium_env; "
               f"import lostcities.envs.gym_env; {MAKE}" if old else
               f"{first}; {MAKE}; import lostcities.envs.gymnasium_env; {MAKE}")
    lines = got.splitlines()
    assert len(lines) == 2 and all(line.startswith("LostCitiesGym duel-six") for line in lines)
    if not old:
        assert lines == ["LostCitiesGym duel-six function"] * 2


def test_the_old_module_path_warns_and_gives_the_same_names():
    got = _run("import warnings\n"
               "with warnings.catch_warnings(record=True) as w:\n"
               "    warnings.simplefilter('always')\n"
               "    from lostcities.envs.gym_env import gym_env, GYM_ID, LostCitiesGym\n"
               "import lostcities.envs, lostcities.envs.gymnasium_env as new\n"
               "print(gym_env is new.gym_env, GYM_ID, [x.category.__name__ for x in w])\n"
               "print(type(lostcities.envs.gym_env('duel-classic')).__name__)")
    assert got.splitlines() == ["True lostcities/LostCities-v0 ['DeprecationWarning']",
                                "LostCitiesGym"]


def test_gymnasium_imports_the_module_from_the_id():
    got = _run("import gymnasium; "
               "e = gymnasium.make('lostcities.envs.gymnasium_env:lostcities/board-short-v0'); "
               "print(e.unwrapped.pack.id)")
    assert got == "board-short"


def test_action_masks_is_an_int8_array_of_the_legal_ids_gymnasium_samples_from():
    env = gym_env("board-classic", opponent="random", players=3, seat=1)
    obs, info = env.reset(seed=3)
    env.action_space.seed(3)
    n = env.action_space.n
    while True:
        masks = env.action_masks()
        assert masks.dtype == np.int8 and masks.shape == (n,)
        assert masks.tolist() == info["action_mask"].tolist()
        assert masks.tolist() == [int(b) for b in legal_action_mask(env.state)]
        # Gymnasium's own sampler asserts an int8 mask: the mask is usable as it is
        obs, _, done, _, info = env.step(int(env.action_space.sample(mask=masks)))
        assert env.observation_space.contains(obs)
        if done:
            break
    assert not env.action_masks().any() and not info["action_mask"].any()  # the match is over


def test_sb3_contrib_accepts_the_env_without_a_wrapper():
    """sb3-contrib's own test of an env (MaskablePPO refuses one it fails). Optional: it
    needs stable-baselines3 and torch (docs/rl.md, "sb3-contrib": the manual check)."""
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (it needs torch, a 192 MB wheel, "
                        "754 MB installed: not in CI; docs/rl.md says how to run this check)")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    env = gymnasium.make(gym_id("duel-classic"), opponent="random")
    assert is_masking_supported(env)
    vec = make_vec_env(gym_id("duel-classic"), n_envs=2, seed=0, env_kwargs={"opponent": "random"})
    assert is_masking_supported(vec)
    masks = get_action_masks(vec)
    assert masks.shape == (2, env.action_space.n) and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)  # a masked policy never picks an illegal id: no episode ends on one


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
    with pytest.raises(InputError, match="render_mode must be ansi or human") as err:
        gym_env(render_mode="rgb_array")
    assert isinstance(err.value, TypeError)  # stable-baselines3's make_vec_env then builds it without
    with pytest.raises(InputError, match="pack must be a built-in pack id, a pack file or a RulePack"):
        gym_env(pack=3)
