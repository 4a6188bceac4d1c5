"""A small policy trained against the greedy bot with the Gymnasium environment (numpy only).

    python benchmarks/train_greedy.py [--episodes 600] [--seed 0] [--lr 0.02]

A linear softmax policy over the legal action ids (logits = W x + b, illegal ids masked out),
x the seat's observation vector scaled by a running maximum of each field, trained by
REINFORCE with a running-mean baseline on the match's points margin over the greedy bot
(``reward="points"`` summed, minus the bot's total, divided by 100). It prints the win rate
and the mean margin over each block of 100 matches; docs/rl.md quotes a run.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from lostcities.engine import totals
from lostcities.envs.gym_env import gym_env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=600)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--pack", default="duel-classic")
    args = ap.parse_args()
    env = gym_env(args.pack, opponent="greedy", seed=args.seed, reward="points")
    rng = np.random.default_rng(args.seed)
    size, actions = env.observation_space.shape[0], env.action_space.n
    W = np.zeros((actions, size))
    b = np.zeros(actions)
    scale = np.ones(size)
    baseline, wins, margins, start = 0.0, [], [], time.process_time()
    for episode in range(1, args.episodes + 1):
        obs, info = env.reset()
        grads_W, grads_b = np.zeros_like(W), np.zeros_like(b)
        done = False
        while not done:
            scale = np.maximum(scale, np.abs(obs))
            x = obs / scale
            legal = info["action_mask"].astype(bool)
            logits = W @ x + b
            logits[~legal] = -np.inf
            p = np.exp(logits - logits[legal].max())
            p /= p.sum()
            a = int(rng.choice(actions, p=p))
            g = -p
            g[a] += 1.0
            grads_W += np.outer(g, x)
            grads_b += g
            obs, _, done, _, info = env.step(a)
        mine, theirs = totals(env.state)
        margin = (mine - theirs) / 100.0
        baseline += 0.05 * (margin - baseline)
        W += args.lr * (margin - baseline) * grads_W
        b += args.lr * (margin - baseline) * grads_b
        wins.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
        margins.append(mine - theirs)
        if episode % 100 == 0:
            print(f"matches {episode - 99}-{episode}: win rate {np.mean(wins[-100:]):.2f} "
                  f"against greedy, mean margin {np.mean(margins[-100:]):+.1f} points "
                  f"({time.process_time() - start:.0f} CPU s)", flush=True)


if __name__ == "__main__":
    main()
