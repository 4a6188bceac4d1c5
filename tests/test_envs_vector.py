"""The batched engine (lostcities.envs.VectorEnv): every duel pack's games, played in lockstep,
equal the scalar engine's matches of the same seeds move for move (the same legal masks, the
same round scores, totals and match ends, the same observation vectors), its deals are new_game's, unsupported packs and
bad ids are refused in one line."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install 'lostcities[rl]')")

from lostcities.engine import (InputError, is_over, legal_action_mask, load_pack, new_game,  # noqa: E402
                               round_scores, step, totals)
from lostcities.engine import observation  # noqa: E402
from lostcities.envs import VectorEnv, layout, round_deal  # noqa: E402

from enginehelpers import derived, duel_ids  # noqa: E402

#: the duel packs the batched engine plays (duel-late-wagers' wagers after numbers are not
#: batched: test_unsupported_packs_and_bad_ids_are_refused)
DUELS = [i for i in duel_ids() if load_pack(i).wagers_when == "before-numbers"]


def _house_scoring():
    """duel-classic with round and match formulas that are not plain sums (scored game by
    game, not through the expedition table)."""
    return derived("duel-classic", scoring={"round": "sum(e.score for e in expeditions) + round",
                                            "match": "sum(r for r in rounds) * 2"})


def _best_total_by_its_formula():
    """duel-classic whose next round is started by the best total, the totals by a match
    formula that is no sum (the batched engine asks the formula, as the scalar one does)."""
    return derived("duel-classic", match={"next_starter": "best-total", "rounds": 4},
                   scoring={"match": "max(rounds)"})


HOUSE = {"house-scoring": _house_scoring, "house-best-total": _best_total_by_its_formula}


@pytest.mark.parametrize("pack_id", DUELS + sorted(HOUSE))
def test_lockstep_games_equal_the_scalar_engine(pack_id):
    pack = HOUSE[pack_id]() if pack_id in HOUSE else load_pack(pack_id)
    players = pack.min_players
    n, seed = 6, 100
    env = VectorEnv(pack, n, seed=seed, players=players)
    games = [new_game(pack, players, seed + i) for i in range(n)]
    rounds_seen = [0] * n
    rng = np.random.default_rng(7)
    mask = env.legal_mask()
    finished = 0
    lay = layout(pack, players)
    for turn in range(3000):
        want = np.array([legal_action_mask(g) for g in games])
        assert np.array_equal(mask, want)
        if turn % 7 == 0:
            seen = env.observe()
            for i, g in enumerate(games):
                assert np.array_equal(seen[i], lay.encode(observation(g, g.to_move))), i
        actions = env.random_actions(rng)
        rewards, done = env.step(actions)
        mask = env.legal_mask()
        for i in range(n):
            games[i] = step(games[i], int(actions[i]))
            scores = round_scores(games[i])
            if len(scores) > rounds_seen[i]:
                assert rewards[i].tolist() == list(scores[-1])
                rounds_seen[i] = len(scores)
            else:
                assert not rewards[i].any()
            assert bool(done[i]) == is_over(games[i])
            if done[i]:
                assert env.last_totals[i].tolist() == list(totals(games[i]))
                finished += 1
                games[i] = new_game(pack, players, int(env.seeds[i]))
                rounds_seen[i] = 0
                assert (env.seeds[i] - seed - i) % n == 0 and env.seeds[i] > seed + i
    assert finished >= 1 or pack_id == "duel-grenoble"


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-grenoble"])
def test_round_deal_is_new_games_deal(pack_id):
    pack = load_pack(pack_id)
    for players in range(pack.min_players, pack.max_players + 1):
        for seed in (0, 5, 2**40):
            assert round_deal(pack, players, seed, 1) == new_game(pack, players, seed).deal


def test_unsupported_packs_and_bad_ids_are_refused():
    with pytest.raises(InputError, match=r"VectorEnv\(board-classic\): board packs"):
        VectorEnv("board-classic", 4)
    with pytest.raises(InputError, match=r"VectorEnv\(duel-late-wagers\): wagers after numbers"):
        VectorEnv("duel-late-wagers", 4)
    assert "duel-deck-after-discard" in DUELS  # every turn.retake is batched
    with pytest.raises(InputError, match="n must be"):
        VectorEnv("duel-classic", 0)
    env = VectorEnv("duel-classic", 3, seed=1)
    mask = env.legal_mask()
    bad = np.array([int(np.flatnonzero(mask[0])[0]), int(np.flatnonzero(mask[1] == 0)[0]), 0])
    with pytest.raises(InputError, match="step: game 1: action .* is not legal now"):
        env.checked_step(bad)
    with pytest.raises(InputError, match="3 action ids expected"):
        env.checked_step([0])


def test_bulk_shuffles_equal_pythons_shuffle():
    """shuffle_orders (numpy MT19937, the batched engine's deals) gives random.shuffle's
    permutation for every key, also keys of other lengths and one forced to run out of
    generator outputs (then shuffled by Python)."""
    import random

    from lostcities.envs import bulkshuffle

    seeds = list(range(-40, 400)) + [2**40, 10**18]
    keys = [f"lostcities:{s}:{r}" for s in seeds for r in (1, 2, 3)]
    keys += ["", "x" * 300]
    for size in (60, 1, 2, 72):
        got = bulkshuffle.shuffle_orders(keys, size).tolist()
        for key, row in zip(keys, got):
            want = list(range(size))
            random.Random(key).shuffle(want)
            assert row == want, (key, size)
    assert bulkshuffle.agrees_with_python()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-2**62, 2**62), min_size=1, max_size=20), st.integers(1, 6))
def test_bulk_shuffles_fuzzed_seeds(seeds, round_number):
    import random

    from lostcities.envs.bulkshuffle import shuffle_orders

    keys = [f"lostcities:{s}:{round_number}" for s in seeds]
    for key, row in zip(keys, shuffle_orders(keys, 60).tolist()):
        want = list(range(60))
        random.Random(key).shuffle(want)
        assert row == want


def test_deals_ahead_follow_many_matches():
    """A small VectorEnv deals its slots' matches from batches computed ahead: every round
    of the first matches of each slot is round_deal's."""
    pack = load_pack("duel-classic")
    env = VectorEnv(pack, 3, seed=11)
    rng = np.random.default_rng(3)
    seen = 0
    while seen < 40:
        before = (env.seeds.copy(), env.round.copy())
        env.step(env.random_actions(rng))
        changed = (env.seeds != before[0]) | (env.round != before[1])
        for i in np.flatnonzero(changed).tolist():
            deal = round_deal(pack, 2, int(env.seeds[i]), int(env.round[i]))
            for seat in range(2):
                want = np.bincount(deal.hands[seat], minlength=env.K)
                assert env.hands[i, seat].tolist() == want.tolist()
            assert env.deck[i, :env.deck_len].tolist() == list(deal.draw_pile)
            seen += 1


def test_observations_built_on_demand_equal_the_kept_ones():
    """keep_obs=False (no vector kept at each step) observes the same vectors, on call."""
    kept = VectorEnv("duel-grenoble", 4, seed=21, players=3)
    lazy = VectorEnv("duel-grenoble", 4, seed=21, players=3, keep_obs=False)
    rng = np.random.default_rng(2)
    for t in range(700):
        assert np.array_equal(kept.legal_mask(), lazy.legal_mask())
        if t % 5 == 0:
            assert np.array_equal(kept.observe(), lazy.observe())
            assert np.array_equal(kept.observe_view(), lazy.observe_view())
        a = kept.random_actions(rng)
        kept.step(a)
        lazy.step(a)
    assert np.array_equal(kept.final_obs, lazy.final_obs) and kept.matches_done >= 1


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(DUELS), st.integers(0, 2), st.integers(-2**40, 2**40), st.integers(1, 9))
def test_kept_vectors_equal_vectors_built_whole(pack_id, extra_players, seed, n):
    """The vectors a step keeps (only the fields it changes, each seat's block of hand, rows
    and last slots copied when the turn passes) equal the vectors built from the arrays
    whole, at every step of random play, every pack and seat count; so do every seat's
    kept blocks (``_blk``) against its own vector."""
    pack = load_pack(pack_id)
    players = min(pack.min_players + extra_players, pack.max_players)
    env = VectorEnv(pack, n, seed=seed, players=players)
    rng = np.random.default_rng(seed % 1000)
    W = env._W
    for _ in range(400):
        assert np.array_equal(env.observe_view(), env._encode(env._games, env.to_move))
        every = env.observe_all()
        assert np.array_equal(every[:, :, :W], env._blk.astype(np.float32))
        env.step(env.random_actions(rng))
