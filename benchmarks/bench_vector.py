"""Whole random matches per CPU second of the vector environment (lostcities.envs.vector_env)
as a learner drives it, against the plain duel loop (../shared/bench/plain_duel.py, a
hand-written random playout of duel-classic) measured in the same process and run.

    python benchmarks/bench_vector.py [--rounds 3] [--n 4096] [--steps 1800]
                                      [--board-n 4096] [--board-steps 3]

Each step reads the observation (the vector of each game's seat to move) and the boolean
mask the step returns, and picks a uniform legal id from the mask (``sample_masks``), as a
learner's policy would pick from its logits. Figures, best of ``--rounds`` interleaved rounds
(the machine may be shared), CPU time of this process (time.process_time):

- duel-classic, numpy engine, n games: ``vector_env(copy=False)`` (the observation is the
  environment's kept array), ``vector_env()`` (a new array each step: Gymnasium's default
  copy), the engine under it without the Gymnasium layer (``observe_view`` +
  ``legal_mask`` + ``sample_masks`` + ``step``), and the bare engine (its own bit-mask random
  policy, no observation, no mask) for reference. Matches counted: whole matches finished
  during the timed steps, after a warm-up long enough that matches end all the time.
- board-classic, the scalar loop behind the same interface: at ``--board-n`` games a few
  steps are timed (decisions per CPU second; no match finishes in so few steps, so matches
  per second are decisions per second divided by the mean decisions of a random
  board-classic match, measured here), and at 16 games whole matches are counted.
- peak memory: tracemalloc's peak while the environment is built and steps 200 times (numpy
  arrays included), outside the timed runs; and the process's peak resident size at the end.
"""
from __future__ import annotations

import argparse
import random
import resource
import time
import tracemalloc

import numpy as np

from bench_envs import plain_duel  # the yardstick's loop, beside this script





def gym_loop(pack: str, n: int, steps: int, warmup: int, copy: bool) -> tuple[float, float]:
    """(matches, decisions) per CPU second of vector_env stepped with sample_masks."""
    from lostcities.envs import sample_masks, vector_env

    env = vector_env(pack, n, seed=0, copy=copy)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(warmup):
        obs, _, _, _, info = env.step(sample_masks(info["action_mask"], rng))
    matches = 0
    t = time.process_time()
    for _ in range(steps):
        obs, _, term, _, info = env.step(sample_masks(info["action_mask"], rng))
        matches += int(term.sum())
    dt = time.process_time() - t
    assert obs.shape == (n, env.single_observation_space.shape[0])
    return matches / dt, steps * n / dt


def core_loop(n: int, steps: int, warmup: int) -> tuple[float, float]:
    """The numpy engine without the Gymnasium layer: the kept observation, the mask, a
    uniform id from the mask, the step."""
    from lostcities.envs import VectorEnv, sample_masks

    env = VectorEnv("duel-classic", n, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(warmup):
        env.step(sample_masks(env.legal_mask(), rng))
    before = env.matches_done
    t = time.process_time()
    for _ in range(steps):
        obs = env.observe_view()
        env.step(sample_masks(env.legal_mask(), rng))
    dt = time.process_time() - t
    assert obs.shape[0] == n
    return (env.matches_done - before) / dt, steps * n / dt


def bare_loop(n: int, steps: int, warmup: int) -> tuple[float, float]:
    """The numpy engine with its own bit-mask random policy, no observation, no mask (and
    no observation kept: ``keep_obs=False``)."""
    from lostcities.envs import VectorEnv

    env = VectorEnv("duel-classic", n, seed=0, keep_obs=False)
    rng = np.random.default_rng(0)
    for _ in range(warmup):
        env.step(env.random_actions(rng))
    before = env.matches_done
    t = time.process_time()
    for _ in range(steps):
        env.step(env.random_actions(rng))
    dt = time.process_time() - t
    return (env.matches_done - before) / dt, steps * n / dt


def breakdown(n: int, steps: int, warmup: int) -> dict[str, float]:
    """CPU milliseconds a step of each part of the learner's loop at n games (duel-classic):
    the engine's step without and with the kept observations, the mask, the draw from it, and
    the whole vector_env(copy=False) step with its draw (the Gymnasium layer is the rest)."""
    from lostcities.envs import VectorEnv, sample_masks, vector_env

    out = {"step_bare": 0.0, "step_kept": 0.0, "mask": 0.0, "sample": 0.0, "gym": 0.0}
    clock = time.process_time
    for keep in (False, True):
        env = VectorEnv("duel-classic", n, seed=0, keep_obs=keep)
        rng = np.random.default_rng(0)
        for _ in range(warmup):
            env.step(env.random_actions(rng))
        for _ in range(steps):
            t0 = clock()
            mask = env.legal_mask()
            t1 = clock()
            a = sample_masks(mask, rng)
            t2 = clock()
            env.step(a)
            t3 = clock()
            out["step_kept" if keep else "step_bare"] += t3 - t2
            if keep:
                out["mask"] += t1 - t0
                out["sample"] += t2 - t1
    env = vector_env("duel-classic", n, seed=0, copy=False)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(warmup):
        _, _, _, _, info = env.step(sample_masks(info["action_mask"], rng))
    t = clock()
    for _ in range(steps):
        _, _, _, _, info = env.step(sample_masks(info["action_mask"], rng))
    out["gym"] = clock() - t
    return {k: v / steps * 1e3 for k, v in out.items()}


def board_decisions_per_match(matches: int = 20) -> float:
    """Mean decisions of a random board-classic match (scalar engine, uniform legal ids)."""
    from lostcities.engine import is_over, legal_action_mask, load_pack, new_game, push_action

    rng = random.Random(3)
    pack = load_pack("board-classic")
    total = 0
    for seed in range(matches):
        g = new_game(pack, 2, seed)
        while not is_over(g):
            push_action(g, rng.choice([i for i, ok in enumerate(legal_action_mask(g)) if ok]))
            total += 1
    return total / matches


def peak_memory(pack: str, n: int, steps: int = 200) -> float:
    """tracemalloc's peak (MiB) while vector_env(pack, n) is built and stepped."""
    from lostcities.envs import sample_masks, vector_env

    tracemalloc.start()
    env = vector_env(pack, n, seed=0, copy=False)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        _, _, _, _, info = env.step(sample_masks(info["action_mask"], rng))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del env
    return peak / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=1800)
    ap.add_argument("--warmup", type=int, default=900)
    ap.add_argument("--board-n", type=int, default=4096)
    ap.add_argument("--board-steps", type=int, default=3)
    ap.add_argument("--board-small-n", type=int, default=16)
    ap.add_argument("--breakdown", action="store_true",
                    help="also time each part of a step (CPU ms), after the figures")
    args = ap.parse_args()
    best: dict[str, float] = {}

    def keep(name: str, value: float) -> None:
        best[name] = max(best.get(name, 0.0), value)

    per_match = board_decisions_per_match()
    for _ in range(args.rounds):
        keep("plain", plain_duel(150))
        for copy in (False, True):
            m, d = gym_loop("duel-classic", args.n, args.steps, args.warmup, copy)
            keep(f"gym_copy{copy}_m", m)
            keep(f"gym_copy{copy}_d", d)
        m, d = core_loop(args.n, args.steps, args.warmup)
        keep("core_m", m)
        keep("core_d", d)
        m, d = bare_loop(args.n, args.steps, args.warmup)
        keep("bare_m", m)
        keep("bare_d", d)
        keep("plain", plain_duel(150))
        _, d = gym_loop("board-classic", args.board_n, args.board_steps, 1, False)
        keep("board_d", d)
        small = args.board_small_n
        m, d = gym_loop("board-classic", small, int(per_match * 2.5), 0, False)
        keep("board_small_m", m)
        keep("board_small_d", d)
        keep("plain", plain_duel(150))
    plain = best["plain"]
    print(f"per CPU second, best of {args.rounds} rounds; the yardstick (plain duel loop, same "
          f"process): {plain:,.0f} duel-classic matches (~{plain * 860:,.0f} decisions)")
    print(f"duel-classic, n={args.n}, numpy engine, an observation and an int8 mask read "
          "every step, ids drawn from the mask:")
    rows = [("vector_env(copy=False)", "gym_copyFalse"), ("vector_env() (copies the observation)",
                                                          "gym_copyTrue"),
            ("VectorEnv without the Gymnasium layer", "core"),
            ("bare VectorEnv (no observation, no mask)", "bare")]
    for label, key in rows:
        m, d = best[f"{key}_m"], best[f"{key}_d"]
        print(f"  {label:<42}{m:9,.0f} matches {d:12,.0f} decisions   {m / plain:5.2f}x the yardstick")
    d = best["board_d"]
    print(f"board-classic, scalar loop behind the same interface (a random match: "
          f"{per_match:,.0f} decisions):")
    print(f"  n={args.board_n:<6} ({args.board_steps} steps)                  {d / per_match:9,.1f} "
          f"matches (estimated from {d:,.0f} decisions)   {d / per_match / plain:6.3f}x")
    m = best["board_small_m"]
    print(f"  n={args.board_small_n:<6} (whole matches counted)          {m:9,.1f} matches "
          f"({best['board_small_d']:,.0f} decisions)   {m / plain:6.3f}x")
    if args.breakdown:
        ms = breakdown(args.n, args.steps, args.warmup)
        budget = 1e3 * args.n / (4 * plain * 860)
        print(f"where a step's time goes at n={args.n} (CPU ms a step, one run; 4x the "
              f"yardstick would be {budget:.2f} ms a step of 4096 decisions):")
        print(f"  engine step, no observation kept {ms['step_bare']:.3f}; with the kept "
              f"observation {ms['step_kept']:.3f} (the observation's upkeep "
              f"{ms['step_kept'] - ms['step_bare']:.3f}); legal_mask {ms['mask']:.3f}; "
              f"sample_masks {ms['sample']:.3f}; vector_env(copy=False) step with its draw "
              f"{ms['gym']:.3f} (the Gymnasium layer "
              f"{ms['gym'] - ms['step_kept'] - ms['mask'] - ms['sample']:.3f})")
    duel_peak = peak_memory("duel-classic", args.n)
    board_peak = peak_memory("board-classic", args.board_n, 2)
    print(f"peak memory (tracemalloc, build + steps): duel-classic n={args.n}: {duel_peak:,.0f} MiB; "
          f"board-classic n={args.board_n}: {board_peak:,.0f} MiB; process peak resident size "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")


if __name__ == "__main__":
    main()
