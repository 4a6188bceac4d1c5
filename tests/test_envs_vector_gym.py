"""The Gymnasium vector environment (lostcities.envs.vector_env): on every built-in pack its
games equal the scalar engine's matches of the same seeds move for move (observations of the
seat to move, boolean masks, every seat's rewards, terminations, the final observation at
auto-reset), on the numpy engine where it plays the pack and on the scalar loop elsewhere;
the interface is Gymnasium's (spaces, SAME_STEP auto-reset, a Gymnasium wrapper runs on it),
every seat's view and sample_masks are right, and bad ids are one line."""
from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install 'lostcities[rl]')")
gym = pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install 'lostcities[rl]')")

from lostcities.engine import (InputError, is_over, legal_action_mask, load_pack,  # noqa: E402
                               new_game, observation, round_scores, step, totals, winners)
from lostcities.envs import layout, sample_masks, vector_env  # noqa: E402

from enginehelpers import builtin_ids  # noqa: E402

#: packs the numpy engine plays (the others run on the scalar loop)
NUMPY = {"duel-basic", "duel-classic", "duel-deck-after-discard", "duel-equal", "duel-grenoble",
         "duel-six"}


def _play_against_scalar(env, pack, players, seed, steps, rng, reward="points"):
    """Step ``env`` with random legal ids from its mask, the same ids in scalar games of the
    same seeds, comparing everything at every step; the number of matches finished."""
    n = env.num_envs
    lay = layout(pack, players)
    games = [new_game(pack, players, seed + i) for i in range(n)]
    seeds = [seed + i for i in range(n)]
    obs, info = env.reset(seed=seed)
    finished = 0
    for _ in range(steps):
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (n, env.single_action_space.n)
        assert np.array_equal(mask, np.array([legal_action_mask(g) for g in games], np.int8))
        assert np.array_equal(env.action_masks(), mask)
        assert info["to_move"].tolist() == [g.to_move for g in games]
        for i, g in enumerate(games):
            assert np.array_equal(obs[i], lay.encode(observation(g, g.to_move))), i
        actions = sample_masks(mask, rng)
        acting = [g.to_move for g in games]
        obs, rewards, term, trunc, info = env.step(actions)
        assert not trunc.any()
        for i in range(n):
            before = len(round_scores(games[i]))
            games[i] = step(games[i], int(actions[i]))
            scores = round_scores(games[i])
            want = np.zeros(players)
            if len(scores) > before and reward == "points":
                want += scores[-1]
            assert term[i] == is_over(games[i])
            if term[i]:
                won = winners(games[i])
                if reward == "points":
                    want += np.array(totals(games[i])) - np.sum(scores, axis=0)
                else:   # written from the rule's words, not from the environment's code
                    want += [(1 if len(won) == 1 else 0) if p in won else -1
                             for p in range(players)]
                assert info["final_info"]["winners"][i].tolist() == [p in won
                                                                     for p in range(players)]
                assert info["_final_obs"][i]
                assert np.array_equal(info["final_obs"][i],
                                      lay.encode(observation(games[i], games[i].to_move)))
                assert info["final_info"]["totals"][i].tolist() == list(totals(games[i]))
                finished += 1
                seeds[i] += n
                games[i] = new_game(pack, players, seeds[i])
            elif "_final_obs" in info:
                assert not info["_final_obs"][i]
            assert info["rewards"][i].tolist() == want.tolist(), i
            assert rewards[i] == want[acting[i]]
    return finished


@pytest.mark.parametrize("pack_id", builtin_ids())
def test_every_pack_equals_the_scalar_engine(pack_id):
    pack = load_pack(pack_id)
    players = pack.min_players
    env = vector_env(pack, 3, seed=40, players=players)
    assert env.backend == ("numpy" if pack_id in NUMPY else "scalar")
    steps = 1200 if pack.family == "duel" else 2000
    finished = _play_against_scalar(env, pack, players, 40, steps, np.random.default_rng(5))
    assert finished >= 1  # the auto-reset and the final observation were compared too


@pytest.mark.parametrize("pack_id,backend", [("duel-classic", "numpy"),
                                             ("duel-classic", "scalar"),
                                             ("duel-grenoble", "numpy"),
                                             ("board-short", "scalar")])
def test_win_rewards_equal_the_scalar_engines_winners(pack_id, backend):
    pack = load_pack(pack_id)
    players = pack.min_players
    env = vector_env(pack, 3, seed=21, players=players, backend=backend, reward="win")
    steps = 1500 if pack.family == "duel" else 2000
    finished = _play_against_scalar(env, pack, players, 21, steps, np.random.default_rng(8),
                                    reward="win")
    assert finished >= 1


def test_an_unknown_reward_is_one_line():
    with pytest.raises(InputError, match="reward must be one of points, win, not 'money'"):
        vector_env("duel-classic", 2, reward="money")


def test_scalar_backend_on_a_duel_pack():
    """The scalar loop behind the same interface, forced on a pack the numpy engine plays
    (duel-grenoble's three seats run on the numpy engine in the test above)."""
    pack = load_pack("duel-classic")
    env = vector_env(pack, 2, seed=3, backend="scalar")
    assert env.backend == "scalar"
    assert _play_against_scalar(env, pack, 2, 3, 900, np.random.default_rng(1)) >= 1


def test_gymnasium_interface():
    env = vector_env("duel-classic", 4, seed=1)
    assert isinstance(env, gym.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    assert env.single_action_space == gym.spaces.Discrete(106)
    assert env.action_space.shape == (4,)
    assert env.single_observation_space.shape == (337,)
    assert env.observation_space.shape == (4, 337)
    obs, info = env.reset(seed=9)
    assert obs in env.observation_space
    again, _ = vector_env("duel-classic", 4, seed=123).reset(seed=9)
    assert np.array_equal(obs, again)
    # a reset without a seed goes on to matches of the same slots not played yet
    env.step(sample_masks(info["action_mask"], np.random.default_rng(0)))
    _, info2 = env.reset()
    assert ((env.core.seeds - 9 - np.arange(4)) % 4 == 0).all() and (env.core.seeds > 12).all()
    # copy=False hands out the kept array, rewritten by the next step
    lean = vector_env("duel-classic", 4, seed=1, copy=False)
    first, info = lean.reset(seed=9)
    assert np.array_equal(first, obs)
    kept = first.copy()
    second = lean.step(sample_masks(info["action_mask"], np.random.default_rng(0)))[0]
    assert second is first and not np.array_equal(first, kept)


def test_a_gymnasium_wrapper_runs_with_its_defaults():
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = RecordEpisodeStatistics(vector_env("duel-six", 3, seed=2))
    _, info = env.reset(seed=2)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(2000):
        _, _, term, _, info = env.step(sample_masks(info["action_mask"], rng))
        if term.any():
            ended += int(term.sum())
            assert info["episode"]["l"][term].min() > 100
    assert ended >= 1


def test_every_seat_and_the_seat_view():
    pack = load_pack("duel-classic")
    lay = layout(pack, 2)
    for backend in ("numpy", "scalar"):
        env = vector_env(pack, 3, seed=4, backend=backend)
        _, info = env.reset(seed=4)
        rng = np.random.default_rng(3)
        for _ in range(7):
            _, _, _, _, info = env.step(sample_masks(info["action_mask"], rng))
        games = [new_game(pack, 2, 4 + i) for i in range(3)]
        every = env.observe_all()
        view = env.seat_view()
        assert sorted(view) == ["player_0", "player_1"]
        for i in range(3):
            g = env.core.games[i] if backend == "scalar" else None
            for p in range(2):
                if g is not None:
                    assert np.array_equal(every[i, p], lay.encode(observation(g, p)))
                mine = view[f"player_{p}"]
                assert np.array_equal(mine["observation"][i], every[i, p])
                moving = info["to_move"][i] == p
                assert np.array_equal(mine["action_mask"][i],
                                      info["action_mask"][i] if moving else np.zeros(106, np.int8))
                assert mine["action_mask"].dtype == np.int8
            mover = info["to_move"][i]
            assert np.array_equal(every[i, mover], env.core.observe()[i])
        assert len(games) == 3


def test_numpy_every_seat_equals_the_scalar_engine():
    pack = load_pack("duel-deck-after-discard")
    lay = layout(pack, 2)
    env = vector_env(pack, 3, seed=8)
    games = [new_game(pack, 2, 8 + i) for i in range(3)]
    _, info = env.reset(seed=8)
    rng = np.random.default_rng(4)
    for t in range(400):
        if t % 9 == 0:
            every = env.observe_all()
            for i, g in enumerate(games):
                for p in range(2):
                    assert np.array_equal(every[i, p], lay.encode(observation(g, p)))
        a = sample_masks(info["action_mask"], rng)
        _, _, term, _, info = env.step(a)
        games = [new_game(pack, 2, int(env.core.seeds[i])) if term[i] else step(g, int(a[i]))
                 for i, g in enumerate(games)]


def test_sample_masks_draws_legal_ids_uniformly():
    rng = np.random.default_rng(0)
    mask = np.zeros((5, 137), bool)
    mask[0, [0, 70, 136]] = True
    mask[1, 64] = True
    mask[2, :] = True
    mask[4, [3, 130]] = True
    draws = np.array([sample_masks(mask, rng) for _ in range(3000)])
    assert set(draws[:, 0].tolist()) == {0, 70, 136}
    assert (np.bincount(draws[:, 0], minlength=137)[[0, 70, 136]] > 850).all()
    assert set(draws[:, 1].tolist()) == {64}
    assert len(set(draws[:, 2].tolist())) == 137
    assert set(draws[:, 3].tolist()) == {-1}
    assert set(draws[:, 4].tolist()) == {3, 130}


def test_bad_input_is_one_line():
    env = vector_env("duel-classic", 3, seed=1)
    _, info = env.reset()
    mask = info["action_mask"]
    bad = np.array([np.flatnonzero(mask[0])[0], np.flatnonzero(mask[1] == 0)[0], 0])
    with pytest.raises(InputError, match="step: game 1: action .* is not legal now"):
        env.step(bad)
    for wrong in ([0], "x", [[0, 1, 2]], [0.5, 1.0, 2.0]):
        with pytest.raises(InputError, match="3 action ids expected"):
            env.step(wrong)
    with pytest.raises(InputError, match="backend must be one of auto, numpy, scalar"):
        vector_env("duel-classic", 2, backend="gpu")
    with pytest.raises(InputError, match=r"VectorEnv\(board-classic\): board packs"):
        vector_env("board-classic", 2, backend="numpy")
    with pytest.raises(InputError, match="n must be"):
        vector_env("board-classic", 0)


def test_sample_masks_reads_the_int8_masks_as_their_booleans():
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    mask = np.random.default_rng(1).random((64, 106)) < 0.1
    mask[7] = False
    assert np.array_equal(sample_masks(mask.astype(np.int8), rng_a), sample_masks(mask, rng_b))


@pytest.mark.parametrize("pack", ["duel-classic", "board-short"])
def test_gymnasiums_own_sampler_takes_the_vector_masks(pack):
    """The batch space's sampler asserts int8 masks: a whole run of steps drawn by
    ``action_space.sample(mask=tuple(masks))`` is legal on both backends."""
    env = vector_env(pack, 4, seed=2)
    _, info = env.reset(seed=2)
    env.action_space.seed(2)
    for _ in range(150):
        actions = env.action_space.sample(mask=tuple(info["action_mask"]))
        _, _, _, _, info = env.step(actions)       # checked: an illegal id would raise


@pytest.mark.parametrize("pack_id", builtin_ids())
def test_make_vec_builds_the_batched_self_play_environment_of_every_pack(pack_id):
    """``gymnasium.make_vec("lostcities/<pack>-selfplay-v0", num_envs=n, ...)`` is the
    vector environment itself (its vector entry point), keywords passed through; its games
    are vector_env's of the same seed."""
    from lostcities.envs import SELFPLAY_IDS, selfplay_id
    assert selfplay_id(pack_id) in SELFPLAY_IDS
    pack = load_pack(pack_id)
    env = gym.make_vec(selfplay_id(pack_id), num_envs=3, seed=6, players=pack.min_players)
    assert isinstance(env, gym.vector.VectorEnv) and env.num_envs == 3
    assert env.spec.id == selfplay_id(pack_id) and env.pack.id == pack_id
    assert env.backend == ("numpy" if pack_id in NUMPY else "scalar")
    twin = vector_env(pack_id, 3, seed=6, players=pack.min_players)
    obs, info = env.reset(seed=6)
    obs2, info2 = twin.reset(seed=6)
    rng = np.random.default_rng(0)
    for _ in range(60):
        assert np.array_equal(obs, obs2) and np.array_equal(info["action_mask"],
                                                            info2["action_mask"])
        a = sample_masks(info["action_mask"], rng)
        obs, _, _, _, info = env.step(a)
        obs2, _, _, _, info2 = twin.step(a)


def test_a_self_play_id_is_not_a_single_environment():
    with pytest.raises(gym.error.Error, match="entry_point is not specified"):
        gym.make("lostcities/duel-classic-selfplay-v0")
