"""Engine speed: random duel-classic matches, generic engine vs a hand-specialised loop.

Run: ``python benchmarks/bench_engine.py [--games N] [--rounds R] [--sim-games N]``. Prints:

1. the baseline: a random-playout loop written by hand for duel-classic only
   (tuples for cards, its rules and scoring hard-coded), choosing uniformly
   among the legal moves it lists each turn; and the same loop sampling a move
   without listing them (the engine's own trick: the fair comparison, same work);
2. the generic engine doing the same work: ``play_match`` with two ``random``
   bots (uniform over the legal moves, from the pack's compiled tables), which
   is one ``playout``; and the same random moves through the bot interface (a
   view per turn, each move checked), what any other bot pays;
3. the board family through the same engine: random board-classic matches;
   and the yardstick of issue #15, ``../shared/bench/plain_duel.py`` (when it is there),
   each engine figure also as a ratio to it (``bench_api.py`` has the API loops);
4. ``lc simulate`` as a subprocess with ``--workers 1`` and ``--workers 2``;
5. peak memory of ``lc simulate`` for a small and a 10x larger run (streaming:
   it should not grow with the number of games).

The machine may be shared: the loops run in turns, the same matches in each of
``R`` rounds, and each figure is the best round's CPU time of this process (other
processes' load shows in wall time, much less in CPU time); ratios are also given
round by round (paired: the same round's timings), their median and spread.
Figures, not assertions: nothing here fails on a slow machine.
"""
from __future__ import annotations

import argparse
import tempfile
import os
import random
import resource
import statistics
import subprocess
import sys
import time

COLOURS = 5
WAGERS = 3
VALUES = range(2, 11)


def baseline_match(rng: random.Random, sample: bool = False) -> tuple[list[int], int]:
    """One random duel-classic match, rules written out by hand; (totals, turns).

    It lists the legal moves and picks one; with ``sample`` it instead draws a
    (card option, draw) cell and retries the only illegal cells (discarding then
    retaking the same pile), as the engine's ``random_move`` does.
    """
    deck0 = [(c, 0) for c in range(COLOURS) for _ in range(WAGERS)] + \
            [(c, v) for c in range(COLOURS) for v in VALUES]
    totals = [0, 0]
    starter = 0
    turns_played = 0
    for _ in range(3):
        deck = deck0[:]
        rng.shuffle(deck)
        hands = [deck[:8], deck[8:16]]
        deck = deck[16:]
        rows = [[[] for _ in range(COLOURS)] for _ in range(2)]
        last = [[-1] * COLOURS for _ in range(2)]   # -1 empty, 0 wagers only, else last value
        piles: list[list[tuple[int, int]]] = [[] for _ in range(COLOURS)]
        p = starter
        turns = 0
        while True:
            hand, lp = hands[p], last[p]
            draws = [-1] + [c for c in range(COLOURS) if piles[c]]
            if sample:
                cards = sorted(set(hand))
                options = [(True, k) for k in cards
                           if (k[1] > lp[k[0]] if k[1] else lp[k[0]] <= 0)]
                options += [(False, k) for k in cards]
                while True:
                    i = rng.randrange(len(options) * len(draws))
                    play, card = options[i // len(draws)]
                    d = draws[i % len(draws)]
                    if play or d != card[0]:
                        break
            else:
                moves = []
                for card in set(hand):
                    c, v = card
                    if v > lp[c] if v else lp[c] <= 0:
                        moves.extend((True, card, d) for d in draws)
                    moves.extend((False, card, d) for d in draws if d != c)
                play, card, d = rng.choice(moves)
            hand.remove(card)
            c, v = card
            if play:
                rows[p][c].append(card)
                lp[c] = v
            else:
                piles[c].append(card)
            hand.append(deck.pop() if d < 0 else piles[d].pop())
            turns += 1
            if not deck or turns >= 1000:
                break
            p = 1 - p
        scores = []
        for seat in range(2):
            score = 0
            for row in rows[seat]:
                if row:
                    wagers = sum(1 for _, v in row if v == 0)
                    score += (sum(v for _, v in row) - 20) * (1 + wagers) + \
                        (20 if len(row) >= 8 else 0)
            scores.append(score)
            totals[seat] += score
        starter = (0 if scores[0] > scores[1] else 1 if scores[1] > scores[0]
                   else 1 - starter)
        turns_played += turns
    return totals, turns_played


def engine_match(pack, bots, seed: int) -> int:
    """One match through the generic engine; returns its number of turns."""
    from lostcities.engine.lab.simulation import play_match

    state = play_match(pack, bots, seed)
    return sum(len(r.moves) for r in state.finished)


def timed_round(run, first: int, games: int) -> tuple[float, float, int]:
    """``run(i)`` for ``games`` match indices from ``first``: (CPU s, wall s, turns)."""
    cpu, wall = time.process_time(), time.perf_counter()
    turns = sum(run(i) for i in range(first, first + games))
    return time.process_time() - cpu, time.perf_counter() - wall, turns


def interleaved(contenders: dict[str, object], games: int, rounds: int) -> dict[str, tuple]:
    """Each contender plays the same ``games`` matches per round, in turns, for ``rounds``
    rounds; per contender the best round's (CPU s, wall s, turns) and every round's CPU s."""
    best: dict[str, tuple] = {}
    cpus: dict[str, list[float]] = {name: [] for name in contenders}
    for r in range(rounds):
        for name, run in contenders.items():
            cpu, wall, turns = timed_round(run, r * games, games)
            cpus[name].append(cpu)
            if name not in best or cpu < best[name][0]:
                best[name] = (cpu, wall, turns)
    return {name: (*best[name], cpus[name]) for name in contenders}


LC = [sys.executable, "-c", "from lostcities.cli.app import main; main()"]


def run_cli(*commands: list[str]) -> tuple[float, int, float]:
    """``lc ARGS`` for each command, in subprocesses run at once: wall time, peak RSS of a
    process (KiB), CPU seconds of them all."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    procs = [subprocess.Popen([*LC, *args], stdout=subprocess.DEVNULL) for args in commands]
    for proc, args in zip(procs, commands):
        if proc.wait():
            raise SystemExit(f"lc {' '.join(args)} failed")
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return elapsed, max(after.ru_maxrss, before.ru_maxrss), cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="matches per contender per round")
    parser.add_argument("--rounds", type=int, default=9,
                        help="interleaved rounds (each figure is the best round)")
    parser.add_argument("--board-games", type=int, default=10,
                        help="board-classic matches per round")
    parser.add_argument("--sim-games", type=int, default=1000, help="matches per lc simulate run")
    parser.add_argument("--only", choices=("loops", "simulate"),
                        help="run only the in-process loops or only lc simulate")
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f} (other work on the machine skews wall times; rates are "
          f"per CPU second of this process, best of {args.rounds} interleaved rounds)")
    if args.only != "simulate":
        loops(args.games, args.board_games, args.rounds)
    if args.only != "loops":
        simulate_runs(args.sim_games)


def loops(games: int, board_games: int, rounds: int) -> None:
    """The hand-specialised loops and the engine, in this process, interleaved."""
    from lostcities.engine.bots.base import RandomBot
    from lostcities.engine.packs.loader import load_pack

    class ViewRandomBot(RandomBot):
        """The random bot through the bot interface: a view per turn, each move checked."""

    duel, board = load_pack("duel-classic"), load_pack("board-classic")
    bots = [RandomBot(), RandomBot()]
    viewing = [ViewRandomBot(), ViewRandomBot()]
    engine_match(duel, bots, 0)  # warm up: compile tables and formulas
    engine_match(board, bots, 0)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_api import DEFAULT_YARDSTICK, load_yardstick

    yardstick = load_yardstick(DEFAULT_YARDSTICK) if DEFAULT_YARDSTICK.exists() else None
    contenders = {
        "baseline, lists moves": lambda i: baseline_match(random.Random(i))[1],
        "baseline, samples cells": lambda i: baseline_match(random.Random(i), sample=True)[1],
        "engine, play_match random bots": lambda i: engine_match(duel, bots, i),
        "engine, through the bot interface": lambda i: engine_match(duel, viewing, i),
    }
    if yardstick is not None:  # issue #15's yardstick: its turns are not counted (0)
        contenders["yardstick (plain_duel.py)"] = \
            lambda i: yardstick.random_match(random.Random(i)) and 0
    print(f"random duel-classic matches, 2 players, 3 rounds; {games} matches per round")
    results = interleaved(contenders, games, rounds)
    for name, (cpu, wall, turns, _) in results.items():
        print(f"  {name:<34}{games / cpu:>8.1f} matches/s {turns / cpu:>9.0f} turns/s "
              f"(best round {cpu:.3f} CPU-s, {wall:.3f} s wall)")
    names = list(results)
    for base in names[:2]:
        for eng in names[2:]:
            paired = [b / e for b, e in zip(results[base][3], results[eng][3])]
            print(f"  {eng} / {base}: best {results[base][0] / results[eng][0]:.2f}x, "
                  f"paired rounds median {statistics.median(paired):.2f}x "
                  f"(min {min(paired):.2f}, max {max(paired):.2f})")
    if yardstick is not None:
        ys = results["yardstick (plain_duel.py)"][3]
        for eng in names[2:4]:
            paired = [y / e for y, e in zip(ys, results[eng][3])]
            print(f"  {eng} / the yardstick: best {min(ys) / results[eng][0]:.2f}x, paired "
                  f"median {statistics.median(paired):.2f}x (min {min(paired):.2f}, "
                  f"max {max(paired):.2f}); benchmarks/bench_api.py: the API loops")
    print(f"random board-classic matches, 2 players; {board_games} matches per round")
    results = interleaved({"engine, play_match random bots": lambda i: engine_match(board, bots, i),
                           "engine, through the bot interface":
                               lambda i: engine_match(board, viewing, i)}, board_games, rounds)
    for name, (cpu, wall, turns, _) in results.items():
        print(f"  {name:<34}{board_games / cpu:>8.1f} matches/s {turns / cpu:>9.0f} turns/s "
              f"(best round {cpu:.3f} CPU-s, {wall:.3f} s wall)")


def simulate_runs(games: int, repeats: int = 3) -> None:
    """lc simulate in subprocesses: 1 vs 2 workers, and peak memory.

    Also, as a control, two independent ``--workers 1`` processes of half the matches
    each, run at once: what two busy processes cost on this machine without any
    exchange between them. Each figure is the best of ``repeats`` interleaved runs.
    """
    def sim(n: int, workers: int) -> list[str]:
        return ["simulate", "--pack", "duel-classic", "--games", str(n), "--bots",
                "random,random", "--workers", str(workers), "--json"]

    runs: dict[str, list[tuple[float, int, float]]] = {"one": [], "two": [], "halves": []}
    for _ in range(repeats):
        runs["one"].append(run_cli(sim(games, 1)))
        runs["two"].append(run_cli(sim(games, 2)))
        runs["halves"].append(run_cli(sim(games // 2, 1), sim(games - games // 2, 1)))
    (one, _, cpu1), (two, _, cpu2), (halves, _, cpu_h) = (
        min(r, key=lambda x: x[0]) for r in runs.values())
    print(f"lc simulate, {games} random duel-classic matches, best of {repeats} interleaved runs "
          f"(start-up included: about 0.17 CPU-s a process; bench_lab.py pairs it with "
          f"the yardstick)")
    print(f"  --workers 1: {games / one:9.1f} matches/s ({one:.2f} s wall; {cpu1:.2f} CPU-s)")
    print(f"  --workers 2: {games / two:9.1f} matches/s ({two:.2f} s wall; {cpu2:.2f} CPU-s in all "
          f"processes); speed-up {one / two:.2f}x, CPU {cpu2 / cpu1:.2f}x that of 1 worker")
    print(f"  control, two independent --workers 1 processes of half the matches at once: "
          f"{halves:.2f} s wall, {cpu_h:.2f} CPU-s ({cpu_h / cpu1:.2f}x)")
    print(f"  on two idle cores the speed-up would be about {2 * cpu1 / cpu2:.2f}x")

    with tempfile.TemporaryDirectory() as tmp:
        small, big = max(1, games // 10), games
        _, peak_small, _ = run_cli(["simulate", "--games", str(small), "--record",
                                 os.path.join(tmp, "a.jsonl"), "--json"])
        _, peak_big, _ = run_cli(["simulate", "--games", str(big), "--record",
                               os.path.join(tmp, "b.jsonl"), "--json"])
        size = os.path.getsize(os.path.join(tmp, "b.jsonl"))
    print(f"  peak memory of lc simulate --record: {peak_small / 1024:.1f} MiB for {small} matches,"
          f" {peak_big / 1024:.1f} MiB for {big} matches (records written: "
          f"{size / 1e6:.1f} MB)")
    print(f"  load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
