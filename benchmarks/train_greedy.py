"""A small policy trained against the greedy bot with the Gymnasium environment (numpy only).

    python benchmarks/train_greedy.py [--warmup 100] [--episodes 800] [--eval 200] [--seed 0]

The policy scores each legal action id from that action's features
(:class:`lostcities.envs.features.ActionFeatures`: play or discard, the card's value, the
gap to its row's last card, whether it opens a colour, the cards of its colour in hand,
whether a discard fits the opponent's rows, deck or pile and whether the pile's top fits):
``p(a) = softmax(features(obs)[a] @ w)`` over the legal ids, one weight per feature, ``w``
starting at 0 (uniform over the legal ids). It learns by REINFORCE: each decision is
credited with its round's score (the environment's ``reward="points"``: the seat's round
score at the round's end), minus a running mean of that score for that round (the baseline),
divided by 100; Adam steps once per match (``--decay`` below 1 shrinks the step over the
greedy matches). Curriculum: ``--warmup`` matches against the
``random`` bot, then ``--episodes`` against ``greedy``.

It prints the training curve (win rate and mean margin per block of matches, the policy
sampling) and an evaluation against greedy on the same ``--eval`` seeds before training
(uniform) and after (sampling, then taking its most likely id), each win rate with its 95%
Wilson interval. docs/rl.md quotes a run.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from lostcities.engine import round_scores, totals, winners
from lostcities.envs.features import NAMES, ActionFeatures
from lostcities.envs import gym_env

EVAL_SEEDS = 1_000_000  # evaluation matches use seeds from here, training from --seed


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``wins / n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(env, feats, w, rng, seed=None, sample=True):
    """One match: (won, final margin, per round the score-function gradients of its
    decisions, per round the seat's score)."""
    obs, info = env.reset(seed=seed)
    grads: list[list[np.ndarray]] = [[] for _ in range(env.pack.rounds)]
    done = False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        x = feats(obs)[legal]
        z = x @ w
        p = np.exp(z - z.max())
        p /= p.sum()
        i = int(rng.choice(len(legal), p=p)) if sample else int(np.argmax(z))
        r = len(round_scores(env.state))
        grads[min(r, len(grads) - 1)].append(x[i] - p @ x)
        obs, _, done, _, info = env.step(int(legal[i]))
    seat = env.seat
    won = winners(env.state)
    mine, theirs = totals(env.state)[seat], totals(env.state)[1 - seat]
    points = [s[seat] for s in round_scores(env.state)]   # the env's points rewards, per round
    return (seat in won and len(won) == 1), mine - theirs, grads, points


def evaluate(pack, opponent, feats, w, matches, sample):
    env = gym_env(pack, opponent=opponent, seed=EVAL_SEEDS)
    rng = np.random.default_rng(0)
    wins, margins = 0, []
    for i in range(matches):
        won, margin, _, _ = play(env, feats, w, rng, seed=EVAL_SEEDS + i, sample=sample)
        wins += won
        margins.append(margin)
    return wins, float(np.mean(margins))


def report(label, wins, n, margin):
    lo, hi = wilson(wins, n)
    print(f"{label}: won {wins} of {n} = {wins / n:.2f} (95% interval {lo:.2f}-{hi:.2f}), "
          f"mean margin {margin:+.1f} points", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warmup", type=int, default=100, help="matches against random first")
    ap.add_argument("--episodes", type=int, default=800, help="matches against greedy")
    ap.add_argument("--eval", type=int, default=200, help="evaluation matches, before and after")
    ap.add_argument("--block", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=0.1, help="Adam's step")
    ap.add_argument("--decay", type=float, default=1.0, help="the step's share left at the "
                    "end, decaying linearly over the matches against greedy (1: constant)")
    ap.add_argument("--pack", default="duel-classic")
    args = ap.parse_args()
    start = time.process_time()
    feats = ActionFeatures(args.pack)
    w = np.zeros(len(NAMES))
    m, v = np.zeros_like(w), np.zeros_like(w)      # Adam's moments
    b1, b2, step = 0.9, 0.999, 0
    if args.eval:
        wins, margin = evaluate(args.pack, "greedy", feats, w, args.eval, True)
        report("before training (uniform over the legal ids) against greedy", wins, args.eval,
               margin)
    rng = np.random.default_rng(args.seed)
    baseline = np.zeros(feats.pack.rounds)
    seed = args.seed
    schedule = [("random", args.warmup), ("greedy", args.episodes)]
    for opponent, count in schedule:
        env = gym_env(args.pack, opponent=opponent, seed=seed)
        wins, margins = 0, []
        for episode in range(1, count + 1):
            won, margin, grads, round_points = play(env, feats, w, rng, seed=seed)
            seed += 1
            g = np.zeros_like(w)
            for r, (gr, mr) in enumerate(zip(grads, round_points)):
                if gr:
                    g += (mr - baseline[r]) / 100.0 * np.sum(gr, axis=0)
                baseline[r] += 0.05 * (mr - baseline[r])
            step += 1
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            lr = args.lr if opponent == "random" else \
                args.lr * max(args.decay, 1 - (1 - args.decay) * episode / count)
            w += lr * (m / (1 - b1 ** step)) / (np.sqrt(v / (1 - b2 ** step)) + 1e-8)
            wins += won
            margins.append(margin)
            if episode % args.block == 0:
                lo, hi = wilson(wins, args.block)
                print(f"training against {opponent}, matches {episode - args.block + 1}-{episode}: "
                      f"win rate {wins / args.block:.2f} ({lo:.2f}-{hi:.2f}), mean margin "
                      f"{np.mean(margins):+.1f} points ({time.process_time() - start:.0f} CPU s)",
                      flush=True)
                wins, margins = 0, []
    if args.eval:
        wins, margin = evaluate(args.pack, "greedy", feats, w, args.eval, True)
        report("after training against greedy (sampling)", wins, args.eval, margin)
        wins, margin = evaluate(args.pack, "greedy", feats, w, args.eval, False)
        report("after training against greedy (most likely id)", wins, args.eval, margin)
    print("weights: " + ", ".join(f"{n} {x:+.2f}" for n, x in zip(NAMES, w)))
    print(f"{time.process_time() - start:.0f} CPU s in all")


if __name__ == "__main__":
    main()
