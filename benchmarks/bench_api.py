"""The engine's in-process loops against the yardstick, as ratios measured in the same run.

Run: ``python benchmarks/bench_api.py [--games N] [--rounds R] [--yardstick PATH]``.

The yardstick is ``../shared/bench/plain_duel.py`` (issue #15): one plain function playing
random duel-classic matches, imported here by its path. Each contender plays ``N`` random
duel-classic matches (2 players, 3 rounds) per round, in turns with the yardstick, for ``R``
rounds; the figure is CPU time (``time.process_time``) and each ratio is matches per CPU
second of the contender over the yardstick's, best round against best round, and the median
of the paired rounds (the same round's timings: the machine is shared, absolute times drift).

Contenders, fastest path first (as docs/api.md teaches them):

* ``playout``: ``playout(new_game(...), rng)``, the engine's fused random playout;
* ``random_move + push``: the same random moves pushed one by one (python-chess style);
* ``legal_moves + push/pop``: a uniform choice in ``legal_moves``, pushed in place;
* ``legal_moves + apply``: the same choice, each turn a new state (``apply`` copies);
* ``legal_action_mask + step``: the action-id loop of learning code (a mask, the legal ids
  picked from it with ``itertools.compress``, then ``step``);
* ``legal_action_mask + step, ids a tuple``: the same loop with the ids kept as a tuple
  (``tuple(range(num_actions(pack)))``): ``compress`` walks a tuple faster than a range;
* ``legal_actions + step``: the same decisions, the legal ids listed by ``legal_actions``;
* ``legal_actions + push_action/pop``: the action-id loop in place, as a search on action
  ids runs it (the stack unwound at the end);
* ``(mask picks alone, no engine)``: the mask loop's picking (``compress`` over the whole
  mask, ``rng.choice``) as many times as a match has decisions, with no engine at all:
  the ceiling of that loop, however fast ``legal_action_mask`` and ``step`` are; and the
  same picks with the ids a tuple.

The load average is printed before and after (a shared machine). Then the peak memory (tracemalloc) of one match of each. Figures, not assertions.
"""
from __future__ import annotations

import argparse
import importlib.util
from itertools import compress
import os
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_YARDSTICK = HERE.parent.parent / "shared" / "bench" / "plain_duel.py"


def load_yardstick(path: Path):
    """The yardstick module, imported from its file."""
    spec = importlib.util.spec_from_file_location("plain_duel", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"bench_api: cannot import the yardstick {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def contenders(yardstick) -> dict:
    """Name -> ``run(i)`` playing match ``i``."""
    from lostcities.engine import (apply, is_over, legal_action_mask, legal_actions, legal_moves,
                                   load_pack, new_game, num_actions, playout, pop, push,
                                   push_action, random_move, step)

    duel = load_pack("duel-classic")
    playout(new_game(duel, 2, 0), random.Random(0))  # warm up: tables, formulas

    def plain(i: int) -> None:
        yardstick.random_match(random.Random(i))

    def fused(i: int) -> None:
        playout(new_game(duel, 2, i), random.Random(i))

    def random_push(i: int) -> None:
        state, rng = new_game(duel, 2, i), random.Random(i)
        while not is_over(state):
            push(state, random_move(state, rng))

    def moves_push(i: int) -> None:
        state, rng = new_game(duel, 2, i), random.Random(i)
        while not is_over(state):
            push(state, rng.choice(legal_moves(state)))
        while state.undo:  # the stack a search would unwind
            pop(state)

    def moves_apply(i: int) -> None:
        state, rng = new_game(duel, 2, i), random.Random(i)
        while not is_over(state):
            state = apply(state, rng.choice(legal_moves(state)))

    ids = range(num_actions(duel))
    id_tuple = tuple(ids)

    def mask_step(i: int) -> None:
        state, rng = new_game(duel, 2, i), random.Random(i)
        while not is_over(state):
            state = step(state, rng.choice(list(compress(ids, legal_action_mask(state)))))

    def mask_step_tuple(i: int) -> None:
        state, rng = new_game(duel, 2, i), random.Random(i)
        while not is_over(state):
            state = step(state, rng.choice(list(compress(id_tuple, legal_action_mask(state)))))

    def actions_step(i: int) -> None:
        state, rng = new_game(duel, 2, i), random.Random(i)
        while not is_over(state):
            state = step(state, rng.choice(legal_actions(state)))

    def actions_push(i: int) -> None:
        state, rng = new_game(duel, 2, i), random.Random(i)
        while not is_over(state):
            push_action(state, rng.choice(legal_actions(state)))
        while state.undo:  # the stack a search would unwind
            pop(state)

    # the mask loop's own work without the engine: as many picks from a mask as a match
    # has decisions (the ceiling of that loop however fast the engine)
    sample = new_game(duel, 2, 0)
    decisions, mask = 0, legal_action_mask(sample)
    while not is_over(sample):
        sample = step(sample, random.Random(decisions).choice(legal_actions(sample)))
        decisions += 1

    def mask_picks(i: int) -> None:
        rng = random.Random(i)
        for _ in range(decisions):
            rng.choice(list(compress(ids, mask)))

    def mask_picks_tuple(i: int) -> None:
        rng = random.Random(i)
        for _ in range(decisions):
            rng.choice(list(compress(id_tuple, mask)))

    return {"yardstick (plain_duel.py)": plain, "playout": fused,
            "random_move + push": random_push, "legal_moves + push/pop": moves_push,
            "legal_moves + apply": moves_apply, "legal_action_mask + step": mask_step,
            "mask + step, ids a tuple": mask_step_tuple, "legal_actions + step": actions_step,
            "legal_actions + push_action/pop": actions_push,
            "(mask picks alone, no engine)": mask_picks,
            "(the same, ids a tuple)": mask_picks_tuple}


def measure(runs: dict, games: int, rounds: int) -> dict[str, list[float]]:
    """Every round's CPU seconds per contender, the contenders taking turns in each round."""
    cpus: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(rounds):
        for name, run in runs.items():
            start = time.process_time()
            for i in range(r * games, (r + 1) * games):
                run(i)
            cpus[name].append(time.process_time() - start)
    return cpus


def peak_memory(run) -> int:
    """Peak bytes allocated while playing one match (tracemalloc)."""
    tracemalloc.start()
    run(10_000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="matches per contender per round")
    parser.add_argument("--rounds", type=int, default=7, help="paired rounds")
    parser.add_argument("--yardstick", type=Path, default=DEFAULT_YARDSTICK)
    args = parser.parse_args()
    yardstick = load_yardstick(args.yardstick)
    runs = contenders(yardstick)
    from lostcities.engine import compiled_modules

    compiled = len(compiled_modules())
    print(f"python {sys.version.split()[0]}, "
          f"{f'compiled core ({compiled} modules)' if compiled else 'pure Python'}, "
          f"load average {os.getloadavg()[0]:.2f}; random "
          f"duel-classic matches, {args.games} per contender per round, {args.rounds} paired "
          f"rounds, CPU time of this process")
    cpus = measure(runs, args.games, args.rounds)
    base_name = next(iter(runs))
    base = cpus[base_name]
    for name, times in cpus.items():
        best = min(times)
        paired = [b / t for b, t in zip(base, times)]
        print(f"  {name:<28}{args.games / best:>8.1f} matches/CPU-s  "
              f"ratio to the yardstick: best {min(base) / best:.2f}x, paired median "
              f"{statistics.median(paired):.2f}x (min {min(paired):.2f}, max {max(paired):.2f})")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    print("peak memory of one match (tracemalloc):")
    for name, run in runs.items():
        print(f"  {name:<28}{peak_memory(run) / 1024:>8.1f} KiB")


if __name__ == "__main__":
    main()
