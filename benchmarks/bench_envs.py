"""Steps per CPU second of each lostcities.envs adapter and of the batched engine, against the
plain duel loop (../shared/bench/plain_duel.py, a hand-written random playout of duel-classic)
measured in the same process and run.

    python benchmarks/bench_envs.py [--rounds 3] [--n 4096] [--steps 1800] [--aec-matches 10]
                                    [--openspiel 20]

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


def openspiel(matches: int, observe: str = "") -> tuple[float, float]:
    """(matches, decisions) per CPU second of whole random matches of ``python_lostcities``
    through ``state.apply_action``, chance nodes included (each outcome drawn by its
    probability), a uniform legal id at each decision (``random.Random``, as the plain loop
    draws). ``observe``: the seat to move's observation read before each decision, as
    ``state.observation_tensor(seat)`` (``"tensor"``: OpenSpiel's list of floats) or through
    ``open_spiel.python.observation.make_observation(game).set_from(state, seat)``
    (``"observer"``: the numpy vector, no list)."""
    import pyspiel

    from lostcities.envs.openspiel_game import OPENSPIEL_NAME  # registers the game

    game = pyspiel.load_game(OPENSPIEL_NAME, {"pack": "duel-classic"})
    if observe == "observer":
        from open_spiel.python.observation import make_observation

        observer = make_observation(game)
    rng = random.Random(0)
    decisions = 0
    t = time.process_time()
    for _ in range(matches):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                r = rng.random()
                for outcome, p in state.chance_outcomes():
                    r -= p
                    if r < 0:
                        break
                state.apply_action(outcome)
            else:
                if observe == "tensor":
                    state.observation_tensor(state.current_player())
                elif observe == "observer":
                    observer.set_from(state, state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
    dt = time.process_time() - t
    return matches / dt, decisions / dt


def vector(n: int, steps: int) -> tuple[float, float]:
    """(matches, decisions) per CPU second of VectorEnv with random_actions, no observation
    kept nor read (benchmarks/bench_vector.py measures a learner's loop, with both), after
    900 steps (past the first matches, so that matches end all the time)."""
    from bench_vector import bare_loop  # the same loop, beside this script

    return bare_loop(n, steps, 900)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=1800)
    ap.add_argument("--decisions", type=int, default=3000)
    ap.add_argument("--aec-matches", type=int, default=10)
    ap.add_argument("--openspiel", type=int, default=20, help="OpenSpiel matches a round")
    args = ap.parse_args()
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        figures = {"plain": plain_duel(150), "gym": gym(args.decisions)}
        figures["aec_matches"], figures["aec_decisions"] = aec(args.aec_matches)
        figures["openspiel_matches"], figures["openspiel"] = openspiel(args.openspiel)
        for how in ("observer", "tensor"):
            figures[f"openspiel_{how}_matches"], figures[f"openspiel_{how}"] = openspiel(
                args.openspiel // 2, observe=how)
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
    for name, label in (("gym", "Gymnasium (vs random)"),):
        print(f"  {label:<30}{best[name]:10.0f} decisions ({best[name] / 860 / plain:.3f}x the yardstick's matches)")
    for name, label in (("openspiel", "OpenSpiel python_lostcities"),
                        ("openspiel_observer", "  + make_observation set_from"),
                        ("openspiel_tensor", "  + state.observation_tensor")):
        print(f"  {label:<30}{best[name + '_matches']:10.1f} matches   {best[name]:,.0f} decisions   "
              f"{best[name + '_matches'] / plain:.3f}x the yardstick (whole random matches, "
              f"chance nodes included)")


if __name__ == "__main__":
    main()
