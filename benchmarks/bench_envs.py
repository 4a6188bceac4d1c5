"""Steps per CPU second of each lostcities.envs adapter and of the batched engine, against the
plain duel loop (../shared/bench/plain_duel.py, a hand-written random playout of duel-classic)
measured in the same process and run.

    python benchmarks/bench_envs.py [--rounds 3] [--n 4096] [--steps 1800] [--aec-matches 10]

Every figure is the best of ``--rounds`` interleaved rounds (the machine may be shared), CPU
time of this process (time.process_time). The policy is uniform over the legal action ids
everywhere (the plain loop's is uniform over whole moves, the same thing decision by decision).
A duel-classic match is about 860 decisions (about 143 turns a round, two decisions a turn).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PLAIN = os.path.join(HERE, "..", "..", "shared", "bench")


def plain_duel(matches: int) -> float:
    """Matches per CPU second of the plain loop."""
    sys.path.insert(0, PLAIN)
    import plain_duel as plain  # the yardstick, outside the package

    rng = random.Random(1)
    t = time.process_time()
    for _ in range(matches):
        plain.random_match(rng)
    return matches / (time.process_time() - t)


def aec(matches: int) -> tuple[float, float]:
    """(matches, decisions) per CPU second of the PettingZoo AEC environment: whole random
    duel-classic matches, played as a learner plays them (PettingZoo's loop: ``agent_iter``,
    ``last()``, which builds the agent's observation and mask, a uniform legal id from the
    mask, ``step``), the decisions counted."""
    from lostcities.envs import aec_env

    env = aec_env("duel-classic", seed=1)
    rng = random.Random(0)
    rand = rng.random
    decisions = 0
    t = time.process_time()
    for _ in range(matches):
        env.reset()
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(rand() * len(legal))]))
            decisions += 1
    dt = time.process_time() - t
    return matches / dt, decisions / dt


def gym(decisions: int) -> float:
    from lostcities.envs import gym_env

    env = gym_env("duel-classic", opponent="random", seed=1)
    _, info = env.reset()
    rng = np.random.default_rng(0)
    t = time.process_time()
    for _ in range(decisions):
        _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if done:
            _, info = env.reset()
    return decisions / (time.process_time() - t)  # the agent's decisions (the bot's are extra)


def openspiel(decisions: int) -> float:
    import pyspiel

    from lostcities.envs.openspiel_game import OPENSPIEL_NAME  # registers the game

    game = pyspiel.load_game(OPENSPIEL_NAME, {"pack": "duel-classic"})
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    done = 0
    t = time.process_time()
    while done < decisions:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            done += 1
    return decisions / (time.process_time() - t)


def vector(n: int, steps: int) -> tuple[float, float]:
    """(matches, decisions) per CPU second of VectorEnv with random_actions, no observation
    kept nor read (benchmarks/bench_vector.py measures a learner's loop, with both)."""
    from lostcities.envs import VectorEnv

    env = VectorEnv("duel-classic", n, seed=0, keep_obs=False)
    rng = np.random.default_rng(0)
    for _ in range(900):  # past the first matches, so that matches end all the time
        env.step(env.random_actions(rng))
    before = env.matches_done
    t = time.process_time()
    for _ in range(steps):
        env.step(env.random_actions(rng))
    dt = time.process_time() - t
    return (env.matches_done - before) / dt, steps * n / dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=1800)
    ap.add_argument("--decisions", type=int, default=3000)
    ap.add_argument("--aec-matches", type=int, default=10)
    args = ap.parse_args()
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        figures = {"plain": plain_duel(150), "gym": gym(args.decisions),
                   "openspiel": openspiel(args.decisions // 3)}
        figures["aec_matches"], figures["aec_decisions"] = aec(args.aec_matches)
        figures["vector_matches"], figures["vector_decisions"] = vector(args.n, args.steps)
        figures["plain_after"] = plain_duel(150)
        for k, v in figures.items():
            best[k] = max(best.get(k, 0.0), v)
    plain = max(best["plain"], best["plain_after"])
    print(f"duel-classic, random policies, best of {args.rounds} rounds, per CPU second:")
    print(f"  plain duel loop (yardstick)   {plain:10.0f} matches   "
          f"(~{plain * 860:,.0f} decisions)")
    print(f"  VectorEnv n={args.n:<6}          {best['vector_matches']:10.0f} matches   "
          f"{best['vector_decisions']:,.0f} decisions   {best['vector_matches'] / plain:.2f}x the yardstick")
    print(f"  PettingZoo AEC (last + step)  {best['aec_matches']:10.1f} matches   "
          f"{best['aec_decisions']:,.0f} decisions   {best['aec_matches'] / plain:.3f}x the yardstick")
    for name, label in (("gym", "Gymnasium (vs random)"),
                        ("openspiel", "OpenSpiel python_lostcities")):
        print(f"  {label:<30}{best[name]:10.0f} decisions ({best[name] / 860 / plain:.3f}x the yardstick's matches)")


if __name__ == "__main__":
    main()
