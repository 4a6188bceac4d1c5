"""A policy trained by self-play on the batched engine, evaluated against the greedy bot.

    python benchmarks/learn_vector.py train RUN [--minutes 15] [--n 1024] [--seed 0]
    python benchmarks/learn_vector.py train RUN --resume        # go on from RUN's checkpoint
    python benchmarks/learn_vector.py eval RUN [--seeds 500]     # paired matches against greedy
    python benchmarks/learn_vector.py plot RUN                   # RUN/curve.png (matplotlib)

The policy scores each legal action id from its :class:`lostcities.envs.ActionFeatures` row
(29 numbers: play or discard, the card's value, the gap to its row's last card, whether it
opens a colour...), ``p(a) = softmax(features[a] @ w)`` over the legal ids, ``w`` starting at
0 (uniform). The features are computed for all ``--n`` games of a
:class:`lostcities.envs.VectorEnv` at once (:class:`BatchFeatures`, equal to
``ActionFeatures`` row for row: tests/test_learn_vector.py).

Training is self-play: one policy takes every decision of both seats of ``--n`` duel-classic
matches stepped in lockstep. Each decision is credited with its round's **margin** (the
deciding seat's round score minus the other seat's, / 100: zero-sum, so no baseline is
needed) by REINFORCE: the score function ``x_a - E_p[x]`` of each decision is summed per
game, seat and round, and multiplied by the margin when the round ends. One Adam step every
``--update`` steps of the batch (an average over the rounds that ended meanwhile).

Training runs in **chunks** of ``--chunk`` CPU seconds; after each, the run folder gets a
checkpoint (``checkpoint.npz``: weights, Adam's moments and step, the generator's state;
``run.json``: the options, CPU seconds, decisions and matches so far) and a row of
``curve.csv`` (CPU seconds trained, matches, the policy's greedy-move win rate on
``--curve-seeds`` paired seeds against greedy, the mean margin). ``--minutes`` bounds one
invocation's training CPU time (keep it under 20); ``--resume`` continues a run folder
where it stopped (each chunk plays fresh seeds). ``eval`` plays the checkpoint (taking its
most likely id; ``--sample`` draws instead) against the scalar engine's ``greedy`` bot
through the Gymnasium environment, each seed twice with the seats swapped, and prints the
win rate with its 95% Wilson interval (a shared win counts as not won).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import time
from pathlib import Path

import numpy as np

from train_greedy import wilson  # the 95% interval of a win rate, beside this script

PACK = "duel-classic"
EVAL_SEEDS = 1_000_000        # evaluation and curve matches, as train_greedy.py
#: train's options, kept in run.json; --resume keeps them unless given again (n and seed:
#: always the run's own)
DEFAULTS = {"n": 1024, "lr": 0.05, "update": 10, "chunk": 120.0,
            "curve_seeds": 50, "seed": 0}
CURVE = ("cpu_s", "matches", "decisions", "curve_matches", "win_rate", "lo", "hi",
         "mean_margin")


class BatchFeatures:
    """:class:`ActionFeatures` for a batch: ``(n, size)`` observation vectors of the seats
    to move give ``(n, num_actions, 29)`` float32, row ``[i, a]`` equal to
    ``ActionFeatures(pack)(obs[i])[a]``."""

    def __init__(self, pack: str = PACK, players: int = 2):
        from lostcities.envs import ActionFeatures
        self.one = one = ActionFeatures(pack, players)
        self.K, self.C, self.S = one.K, one.C, one.S
        self.names = one.names
        self.P = players
        self._oh = (one.colour[:, None] == np.arange(one.C)[None, :]).astype(np.float32)
        # below[k, j]: j is of k's colour and a lower slot (the test of slots above the
        # row's last card is per game)
        self._lower = one._same & (one.slot[None, :] < one.slot[:, None])

    def _accepts(self, last: np.ndarray) -> np.ndarray:
        """(n, K): a row of each kind's colour whose last slot is ``last[:, colour]``
        accepts the kind."""
        one = self.one
        lk = last[:, one.colour]
        return (one.slot > lk) | ((one.slot == lk) & one.equal_ok)

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        one, K, C, P = self.one, self.K, self.C, self.P
        s = one._s
        n = len(obs)
        hand = obs[:, s["hand"]]
        rows = obs[:, s["rows"]].reshape(n, P, K)
        last = obs[:, s["row_last"]].reshape(n, P, C).astype(np.int64) - 1
        mine = last[:, 0]
        top = one.top
        late = (1.0 - obs[:, s["draw_pile"]][:, 0] / one.deck_full).astype(np.float32)
        held = hand > 0
        accepts = self._accepts(mine)
        open_row = mine >= 0
        oh = self._oh
        row_sum = (rows[:, 0] * one.value) @ oh
        up = held & accepts & ~one.wager
        up_sum = (up * one.value) @ oh
        in_hand = hand @ oh
        wagers = (rows[:, 0] * one.wager) @ oh
        potential = (row_sum + up_sum - 2 * top) * (1 + wagers) / (10 * top)
        col = one.colour
        f = np.zeros((n, one.total_actions, len(self.names)), np.float32)
        p = f[:, :K]
        opens = ~open_row[:, col]
        latec = late[:, None]
        p[:, :, 0] = 1
        p[:, :, 1] = opens
        p[:, :, 2] = opens * latec
        p[:, :, 3] = ~opens
        p[:, :, 4] = one.value / top
        p[:, :, 5] = one.wager
        lastc = mine[:, col]
        gap = np.where(opens, one.slot, one.slot - lastc - 1)
        p[:, :, 6] = np.maximum(gap, 0) / one.S
        above = one.slot[None, None, :] > lastc[:, :, None]              # (n, k, j)
        p[:, :, 7] = (self._lower[None] & above & held[:, None, :]).sum(2) / 4.0
        p[:, :, 8] = in_hand[:, col] / 8.0
        p[:, :, 9] = up_sum[:, col] / (5 * top)
        p[:, :, 10] = row_sum[:, col] / (5 * top)
        pot = potential[:, col]
        p[:, :, 11] = pot
        p[:, :, 12] = opens * pot
        p[:, :, 13] = opens * pot * latec
        p[:, :, 14] = one.wager * (row_sum + up_sum - 2 * top)[:, col] \
            * (2 + wagers[:, col]) / (10 * top)
        d = f[:, K:2 * K]
        d[:, :, 15] = 1
        d[:, :, 16] = one.value / top
        d[:, :, 17] = accepts
        d[:, :, 18] = open_row[:, col] & ~accepts
        theirs = np.zeros((n, K), bool)
        for q in range(1, P):
            theirs |= (last[:, q][:, col] >= 0) & self._accepts(last[:, q])
        d[:, :, 19] = theirs * (1 + one.value / top) / 2
        d[:, :, 20] = open_row[:, col]
        d[:, :, 21] = one.wager
        f[:, 2 * K, 22] = 1
        f[:, 2 * K, 23] = late
        tops = obs[:, s["pile_tops"]][:, :K] > 0                          # (n, K)
        sizes = obs[:, s["pile_sizes"]]
        # each pile's top kind (the one-hot's only kind of that colour), if the pile has cards
        has = (tops[:, None, :] & (col[None, None, :] == np.arange(C)[None, :, None]))
        any_top = has.any(2) & (sizes > 0)                                 # (n, C)
        k = np.argmax(has, axis=2)                                         # (n, C)
        g = np.arange(n)[:, None]
        fits = accepts[g, k] & any_top
        dr = f[:, 2 * K + 1:2 * K + 1 + C]
        dr[:, :, 24] = 1
        dr[:, :, 25] = fits
        dr[:, :, 26] = fits & open_row
        dr[:, :, 27] = fits * one.value[k] / top
        dr[:, :, 28] = theirs[g, k] & any_top
        return f


def policy(x: np.ndarray, mask: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Softmax probabilities ``(n, A)`` over each row's legal ids."""
    z = x @ w
    z = np.where(mask, z, -np.inf)
    z -= z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def sample(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One id per row of the probabilities ``p`` (inverse CDF)."""
    c = np.cumsum(p, 1)
    u = rng.random(len(p))[:, None] * c[:, -1:]
    return np.minimum((c <= u).sum(1), p.shape[1] - 1)


# ---------------------------------------------------------------------- checkpoints
def save(run: Path, state: dict, meta: dict, rng: np.random.Generator) -> None:
    """Write the checkpoint (atomically: a temporary file renamed) and run.json."""
    tmp = run / "checkpoint.tmp.npz"
    np.savez(tmp, **state)
    os.replace(tmp, run / "checkpoint.npz")
    meta = dict(meta, rng=rng.bit_generator.state)
    (run / "run.tmp.json").write_text(json.dumps(meta, indent=1, default=int) + "\n")
    os.replace(run / "run.tmp.json", run / "run.json")


def load(run: Path) -> tuple[dict, dict]:
    try:
        meta = json.loads((run / "run.json").read_text())
        with np.load(run / "checkpoint.npz") as z:
            state = {k: z[k] for k in z.files}
    except (OSError, ValueError) as err:
        raise SystemExit(f"{run}: no checkpoint to resume ({type(err).__name__}: {err})")
    return state, meta


# ---------------------------------------------------------------------- evaluation
def play_greedy(w: np.ndarray, seeds: range, sample_policy: bool = False,
                rng_seed: int = 0) -> tuple[int, int, float, int]:
    """Each seed twice against ``greedy`` (the policy in seat 0, then seat 1) through the
    Gymnasium environment: (wins, matches, mean margin, ties)."""
    from lostcities.engine import totals, winners
    from lostcities.envs import ActionFeatures, gym_env
    feats = ActionFeatures(PACK)
    rng = np.random.default_rng(rng_seed)
    wins = ties = played = 0
    margins = []
    for seat in (0, 1):
        env = gym_env(PACK, opponent="greedy", seat=seat, seed=seeds.start)
        for s in seeds:
            obs, info = env.reset(seed=s)
            done = False
            while not done:
                legal = np.flatnonzero(info["action_mask"])
                z = feats(obs)[legal] @ w
                if sample_policy:
                    q = np.exp(z - z.max())
                    i = int(rng.choice(len(legal), p=q / q.sum()))
                else:
                    i = int(np.argmax(z))
                obs, _, done, _, info = env.step(int(legal[i]))
            won = winners(env.state)
            t = totals(env.state)
            wins += seat in won and len(won) == 1
            ties += len(won) > 1
            margins.append(t[seat] - t[1 - seat])
            played += 1
    return wins, played, float(np.mean(margins)), ties


# ---------------------------------------------------------------------- training
def train(args: argparse.Namespace) -> None:
    from lostcities.envs import VectorEnv
    run = Path(args.run)
    nf = 29
    if args.resume:
        state, meta = load(run)
        opts = meta["options"]
        for key in ("n", "lr", "update", "chunk", "curve_seeds", "seed"):
            given = getattr(args, key)
            if key in ("n", "seed") and given is not None and given != opts[key]:
                raise SystemExit(f"{run}: its matches are --{key} {opts[key]}; "
                                 f"--resume cannot change it")
            if given is None or key in ("n", "seed"):      # the run's own games and seeds
                setattr(args, key, opts[key])
            elif given != opts[key]:                       # e.g. a smaller step from now on
                meta.setdefault("changes", []).append(
                    {"cpu_s": round(meta["cpu_s"], 1), key: given})
                opts[key] = given
        rng = np.random.default_rng()
        rng.bit_generator.state = meta["rng"]
    else:
        for key, default in DEFAULTS.items():
            if getattr(args, key) is None:
                setattr(args, key, default)
        if (run / "checkpoint.npz").exists():
            raise SystemExit(f"{run}: already has a checkpoint (add --resume to go on)")
        run.mkdir(parents=True, exist_ok=True)
        state = {"w": np.zeros(nf), "m": np.zeros(nf), "v": np.zeros(nf),
                 "t": np.array(0)}
        meta = {"options": {k: getattr(args, k) for k in
                            ("n", "lr", "update", "chunk", "curve_seeds", "seed")},
                "pack": PACK, "cpu_s": 0.0, "decisions": 0, "matches": 0, "chunks": 0,
                "updates": 0}
        rng = np.random.default_rng(args.seed)
        with open(run / "curve.csv", "w", newline="") as fh:
            csv.writer(fh).writerow(CURVE)
        if args.curve_seeds:
            _curve_row(run, state["w"], meta, args.curve_seeds)
    feats = BatchFeatures(PACK)
    w, m, v, t = state["w"], state["m"], state["v"], int(state["t"])
    budget = args.minutes * 60.0
    spent = 0.0
    n = args.n
    games = np.arange(n)
    print(f"{run}: training from {meta['cpu_s']:.0f} CPU s, {meta['matches']} matches "
          f"(n={n}, lr={args.lr}, update every {args.update} steps)",
          flush=True)
    while spent < budget:
        start = time.process_time()
        chunk = meta["chunks"]
        env = VectorEnv(PACK, n, seed=args.seed + (chunk + 1) * 10_000_000)
        acc = np.zeros((n, 2, nf))                 # score functions of the round under way
        grad = np.zeros(nf)
        rounds_credited = 0
        steps = decisions = matches = 0
        limit = min(args.chunk, budget - spent)
        while time.process_time() - start < limit:
            obs = env.observe_view()
            mask = env.legal_mask()
            x = feats(obs)
            p = policy(x, mask, w)
            a = sample(p, rng)
            mean_x = np.einsum("na,naf->nf", p, x)
            seat = env.to_move.astype(np.int64)
            acc[games, seat] += x[games, a] - mean_x
            before = env.round.copy()
            env.step(a)
            rewards, done = env.rewards, env.done
            ended = np.flatnonzero((env.round != before) | done)
            if len(ended):
                r = rewards[ended].astype(np.float64)
                margin = (r[:, 0] - r[:, 1]) / 100.0
                grad += margin @ acc[ended, 0] - margin @ acc[ended, 1]
                acc[ended] = 0
                rounds_credited += len(ended)
            steps += 1
            decisions += n
            matches += int(done.sum())
            if steps % args.update == 0 and rounds_credited:
                g = grad / max(rounds_credited, 1)
                t += 1
                m = 0.9 * m + 0.1 * g
                v = 0.999 * v + 0.001 * g * g
                w = w + args.lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
                grad[:] = 0
                rounds_credited = 0
                meta["updates"] += 1
        used = time.process_time() - start
        spent += used
        meta["cpu_s"] += used
        meta["decisions"] += decisions
        meta["matches"] += matches
        meta["chunks"] += 1
        state = {"w": w, "m": m, "v": v, "t": np.array(t)}
        save(run, state, meta, rng)
        print(f"chunk {chunk + 1}: {used:.0f} CPU s, {matches} matches, {decisions} decisions "
              f"({decisions / used:.0f} a CPU s); {meta['cpu_s']:.0f} CPU s trained in all",
              flush=True)
        if args.curve_seeds:
            _curve_row(run, w, meta, args.curve_seeds)
    print("weights: " + ", ".join(f"{k} {x:+.2f}" for k, x in zip(feats.names, w)))


def _curve_row(run: Path, w: np.ndarray, meta: dict, seeds: int) -> None:
    wins, played, margin, _ = play_greedy(w, range(EVAL_SEEDS, EVAL_SEEDS + seeds))
    lo, hi = wilson(wins, played)
    with open(run / "curve.csv", "a", newline="") as fh:
        csv.writer(fh).writerow([f"{meta['cpu_s']:.1f}", meta["matches"], meta["decisions"],
                                 played, f"{wins / played:.4f}", f"{lo:.4f}", f"{hi:.4f}",
                                 f"{margin:.1f}"])
    print(f"  against greedy ({played} curve matches, most likely id): won {wins / played:.2f} "
          f"({lo:.2f}-{hi:.2f}), mean margin {margin:+.1f}", flush=True)


def evaluate(args: argparse.Namespace) -> None:
    run = Path(args.run)
    state, meta = load(run)
    start = time.process_time()
    first = EVAL_SEEDS + args.offset
    wins, played, margin, ties = play_greedy(state["w"], range(first, first + args.seeds),
                                             args.sample)
    lo, hi = wilson(wins, played)
    how = "sampling" if args.sample else "most likely id"
    line = (f"{run} ({meta['cpu_s'] / 60:.1f} CPU min trained, {meta['matches']} matches) "
            f"against greedy, {args.seeds} seeds from {first} each played twice with the seats "
            f"swapped ({how}): won {wins} of {played} = {wins / played:.3f} (95% interval "
            f"{lo:.3f}-{hi:.3f}), {ties} shared, mean margin {margin:+.1f} points "
            f"({time.process_time() - start:.0f} CPU s)")
    print(line)
    with open(run / "eval.txt", "a") as fh:
        fh.write(line + "\n")


def plot(args: argparse.Namespace) -> None:
    run = Path(args.run)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("plot needs matplotlib: pip install 'lostcities[plot]'")
    try:
        with open(run / "curve.csv", newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as err:
        raise SystemExit(f"{run}: no curve.csv ({err.strerror})")
    xs = [float(r["cpu_s"]) / 60 for r in rows]
    ys = [float(r["win_rate"]) for r in rows]
    lo = [float(r["lo"]) for r in rows]
    hi = [float(r["hi"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=90)
    ax.fill_between(xs, lo, hi, alpha=0.25, label="95% interval")
    ax.plot(xs, ys, marker="o", label="win rate against greedy")
    ax.axhline(0.55, color="grey", linestyle="--", linewidth=1, label="target 0.55")
    ax.set_xlabel("CPU minutes of self-play training (batched engine)")
    ax.set_ylabel("matches won")
    ax.set_ylim(0, 1)
    played = int(rows[-1]["curve_matches"]) if rows else 0
    ax.set_title(f"learn_vector.py: {played} matches against greedy a point "
                 f"({played // 2} seeds x 2 seats)", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(run / "curve.png")
    print(f"{run / 'curve.png'}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    tr = sub.add_parser("train", help="train (or --resume) a run folder")
    tr.add_argument("run")
    tr.add_argument("--resume", action="store_true", help="go on from the run's checkpoint")
    tr.add_argument("--minutes", type=float, default=15.0,
                    help="training CPU minutes of this invocation (keep it under 20)")
    tr.add_argument("--n", type=int, help="games stepped together (1024)")
    tr.add_argument("--lr", type=float, help="Adam's step (0.05)")
    tr.add_argument("--update", type=int, help="steps between Adam steps (10)")
    tr.add_argument("--chunk", type=float, help="CPU s between checkpoints (120)")
    tr.add_argument("--curve-seeds", type=int,
                    help="paired seeds against greedy after each chunk (50; 0: no curve)")
    tr.add_argument("--seed", type=int, help="the first training seed (0)")
    ev = sub.add_parser("eval", help="paired matches against greedy of a run's checkpoint")
    ev.add_argument("run")
    ev.add_argument("--seeds", type=int, default=500, help="seeds, each played twice")
    ev.add_argument("--offset", type=int, default=1000,
                    help="first seed after 1,000,000 (the curve uses the first ones)")
    ev.add_argument("--sample", action="store_true", help="draw from the policy")
    pl = sub.add_parser("plot", help="the curve as RUN/curve.png")
    pl.add_argument("run")
    args = ap.parse_args(argv)
    for key in ("n", "update", "seeds", "curve_seeds"):
        val = getattr(args, key, None)
        if val is not None and val < (0 if key == "curve_seeds" else 1):
            ap.error(f"--{key.replace('_', '-')} must be at least 1, not {val}")
    {"train": train, "eval": evaluate, "plot": plot}[args.command](args)


if __name__ == "__main__":
    main()
