"""The lab's speed where users wait (issue #15): whole ``lc simulate`` processes against the
yardstick's, ``--record``'s cost, the lab's own work per game, and ``lc balance`` extrapolated.

Run: ``python benchmarks/bench_lab.py [--games N] [--rounds R] [--balance M] [--workers K]``.

1. Whole processes, one at a time, each round in turn: the yardstick
   ``../shared/bench/plain_duel.py N`` (issue #15: a plain function playing random
   duel-classic matches), ``lc simulate --games N --bots random,random --workers 1``, the same
   with ``--record FILE``, and both start-ups (``lc simulate --games 0``, ``plain_duel.py 0``).
   Each figure is the CPU time (user + system) of that child process, from
   ``resource.getrusage(RUSAGE_CHILDREN)`` before and after it; the ratio is the yardstick's
   CPU over ``lc simulate``'s in the same round (above 1: ``lc simulate`` is faster), and
   ``--record``'s cost is its CPU over the plain run's in the same round, minus one. Best and
   median over the rounds.
2. In this process, paired rounds: ``simulate()`` against the bare loop it runs
   (``new_game`` + ``playout`` from the same seeds) and against the yardstick: what the lab adds
   to a game beyond the engine's playout.
3. With ``--balance M``: ``lc balance duel-equal --base duel-classic --games M --bots
   expert,expert --workers K`` once, its wall and CPU time, and 1,000 paired games extrapolated
   from it (start-up once, the games in proportion).

Python compiles the project's modules at every start when ``PYTHONDONTWRITEBYTECODE`` is set
(as in some shells here): a fresh install has them compiled, so the children then write their
bytecode to a temporary ``PYTHONPYCACHEPREFIX`` instead (said in the header) and a warm-up run
fills it. The machine may be shared: the header and the end give the load average. Figures,
not assertions.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
YARDSTICK = HERE.parent.parent / "shared" / "bench" / "plain_duel.py"


def lc_command() -> list[str]:
    """How a user starts ``lc``: the console script beside this Python, else ``python -c``."""
    script = Path(sys.executable).with_name("lc")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from lostcities.cli.app import main; main()"]


def child_env(cache: str) -> tuple[dict[str, str], str]:
    """The children's environment and a note on their bytecode."""
    env = dict(os.environ)
    if env.pop("PYTHONDONTWRITEBYTECODE", None) is not None or sys.flags.dont_write_bytecode:
        env["PYTHONPYCACHEPREFIX"] = cache
        return env, f"bytecode cached in {cache} (PYTHONDONTWRITEBYTECODE was set here)"
    return env, "bytecode as this Python caches it"


def child_cpu(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run ``command`` to its end (stdout discarded): its CPU seconds (user + system, from
    ``RUSAGE_CHILDREN``) and its wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"bench_lab: {' '.join(command)} failed: "
                         f"{done.stderr.decode(errors='replace').strip()[-300:]}")
    return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime), wall


def spread(values: list[float]) -> str:
    """``best B, median M`` (best: the largest ratio)."""
    return f"best {max(values):.2f}x, median {statistics.median(values):.2f}x"


def whole_processes(games: int, rounds: int, env: dict[str, str], folder: str) -> None:
    """Section 1: the processes, round after round."""
    lc = lc_command()
    sim = [*lc, "simulate", "--games", str(games), "--bots", "random,random", "--workers", "1",
           "--json"]
    record = os.path.join(folder, "records.jsonl")
    commands = {
        "yardstick": [sys.executable, str(YARDSTICK), str(games)],
        "simulate": sim,
        "simulate --record": [*sim, "--record", record, "--force"],
        "lc simulate --games 0": [*lc, "simulate", "--games", "0", "--json"],
        "plain_duel.py 0": [sys.executable, str(YARDSTICK), "0"],
    }
    child_cpu(commands["lc simulate --games 0"], env)  # warm-up: bytecode written
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for r in range(rounds):
        for name, command in commands.items():
            cpu[name].append(child_cpu(command, env)[0])
        print(f"  round {r + 1}: " + ", ".join(f"{name} {cpu[name][-1]:.3f}" for name in commands)
              + " CPU-s", flush=True)
    ratio = [y / s for y, s in zip(cpu["yardstick"], cpu["simulate"])]
    cost = [rec / s - 1 for rec, s in zip(cpu["simulate --record"], cpu["simulate"])]
    print(f"whole processes, {games} random duel-classic matches, {rounds} rounds "
          f"(CPU of each child process):")
    for name in commands:
        print(f"  {name:<22} best {min(cpu[name]):.3f} CPU-s, median "
              f"{statistics.median(cpu[name]):.3f}")
    print(f"  yardstick process / lc simulate --workers 1 process: {spread(ratio)} "
          f"(min {min(ratio):.2f}x; target 1.2x)")
    print(f"  --record adds: best {min(cost):+.1%}, median {statistics.median(cost):+.1%} "
          f"(target at most +30%)")
    start = [s - p for s, p in zip(cpu["lc simulate --games 0"], cpu["plain_duel.py 0"])]
    per_game = [(s - z) / games * 1000 for s, z in zip(cpu["simulate"],
                                                      cpu["lc simulate --games 0"])]
    yard_game = [(y - z) / games * 1000 for y, z in zip(cpu["yardstick"], cpu["plain_duel.py 0"])]
    print(f"  start-up beyond Python's: median {statistics.median(start):.3f} CPU-s; per game "
          f"(start-up taken off): lc simulate {statistics.median(per_game):.3f} ms, yardstick "
          f"{statistics.median(yard_game):.3f} ms")


def in_process(games: int, rounds: int) -> None:
    """Section 2: what ``simulate()`` adds to the engine's playout, in this process."""
    import importlib.util

    from lostcities.engine.game.turn import new_game, playout
    from lostcities.engine.lab.simulation import game_seed, simulate
    from lostcities.engine.packs.loader import load_pack

    spec = importlib.util.spec_from_file_location("plain_duel", YARDSTICK)
    yardstick = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(yardstick)
    pack = load_pack("duel-classic")
    labels = ["random", "random"]

    def bare(r: int) -> None:
        for i in range(games):
            seed = game_seed(r, i)
            playout(new_game(pack, labels, seed), random.Random(f"lostcities-bots:{seed}"))

    def lab(r: int) -> None:
        simulate(pack, labels, games, r)

    def plain(r: int) -> None:
        rng = random.Random(r)
        for _ in range(games):
            yardstick.random_match(rng)

    lab(99)  # warm up: tables and formulas compiled
    cpu: dict[str, list[float]] = {"bare playout": [], "simulate()": [], "yardstick": []}
    for r in range(rounds):
        for name, run in zip(cpu, (bare, lab, plain)):
            start = time.process_time()
            run(r)
            cpu[name].append(time.process_time() - start)
    added = [s / b - 1 for s, b in zip(cpu["simulate()"], cpu["bare playout"])]
    extra_us = statistics.median(s - b for s, b in zip(cpu["simulate()"], cpu["bare playout"]))
    extra_us *= 1e6 / games
    print(f"in this process, {games} matches a round, {rounds} rounds:")
    for name, values in cpu.items():
        print(f"  {name:<14} best {min(values):.3f} CPU-s, median {statistics.median(values):.3f}")
    print(f"  simulate() beyond new_game + playout: median {statistics.median(added):+.1%} "
          f"(best {min(added):+.1%}); per game {extra_us:.0f} us")
    print(f"  yardstick / simulate(): "
          f"{spread([y / s for y, s in zip(cpu['yardstick'], cpu['simulate()'])])}; "
          f"yardstick / bare playout: "
          f"{spread([y / b for y, b in zip(cpu['yardstick'], cpu['bare playout'])])}")


def expert_decision_ms(matches: int = 2) -> tuple[float, int]:
    """The expert's mean CPU milliseconds a decision over ``matches`` expert-against-expert
    duel-classic matches in this process, and the decisions a match."""
    from lostcities.engine.bots.registry import make_bot
    from lostcities.engine.lab.simulation import game_seed, play_match
    from lostcities.engine.packs.loader import load_pack

    pack = load_pack("duel-classic")
    bots = [make_bot("expert"), make_bot("expert")]
    decisions = [0]
    for bot in bots:
        choose = bot.choose

        def counted(view, choose=choose):
            decisions[0] += 1
            return choose(view)

        bot.choose = counted
    start = time.process_time()
    for i in range(matches):
        play_match(pack, bots, game_seed(0, i))
    return (time.process_time() - start) / decisions[0] * 1000, decisions[0] // matches


def balance_run(games: int, workers: int, env: dict[str, str]) -> None:
    """Section 3: one ``lc balance`` of expert against expert, extrapolated to 1,000 games."""
    ms, per_match = expert_decision_ms()
    print(f"the expert now: {ms:.2f} CPU-ms a decision, {per_match} decisions a match "
          f"(duel-classic, in this process)")
    lc = lc_command()
    start_cpu, start_wall = child_cpu([*lc, "simulate", "--games", "0", "--json"], env)
    command = [*lc, "balance", "duel-equal", "--base", "duel-classic", "--games", str(games),
               "--bots", "expert,expert", "--workers", str(workers), "--json"]
    cpu, wall = child_cpu(command, env)
    per_game = (wall - start_wall) / games
    print(f"lc balance duel-equal --base duel-classic, expert against expert, {games} paired "
          f"games ({2 * games} matches), --workers {workers}:")
    print(f"  {wall:.1f} s wall, {cpu:.1f} CPU-s in all its processes "
          f"({cpu / (2 * games):.3f} CPU-s a match)")
    idle = (cpu - start_cpu) / games * 1000 / workers + start_cpu
    print(f"  1,000 paired games extrapolated: {(start_wall + 1000 * per_game) / 60:.1f} min wall "
          f"at this load, {cpu / games * 1000 / 60:.1f} CPU-min in all; on {workers} idle cores "
          f"(its CPU shared evenly) {idle / 60:.1f} min (target under 10 min on 2 cores)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1500, help="matches per process")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (best and median)")
    parser.add_argument("--in-process-games", type=int, default=300,
                        help="matches a round in this process")
    parser.add_argument("--balance", type=int, default=0, metavar="M",
                        help="paired games of lc balance, expert against expert (0: none)")
    parser.add_argument("--workers", type=int, default=2, help="lc balance --workers")
    parser.add_argument("--only", choices=("processes", "in-process", "balance"),
                        help="run one section only (balance: with --balance M)")
    args = parser.parse_args()
    if not YARDSTICK.exists():
        raise SystemExit(f"bench_lab: the yardstick is not at {YARDSTICK}")
    with tempfile.TemporaryDirectory() as folder:
        env, note = child_env(os.path.join(folder, "pycache"))
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
              f"{os.getloadavg()[0]:.2f}; {note}")
        if args.only in (None, "processes"):
            whole_processes(args.games, args.rounds, env, folder)
        if args.only in (None, "in-process"):
            in_process(args.in_process_games, args.rounds)
        if args.balance and args.only in (None, "balance"):
            balance_run(args.balance, args.workers, env)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
