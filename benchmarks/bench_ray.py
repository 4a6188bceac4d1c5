"""CPU seconds per 1,000 expert matches on the local pool and on Ray (same machine), Ray's
cost per task, and the batch size that keeps that cost under 10% (issue 31, item 8).

Run: ``python benchmarks/bench_ray.py [--games N] [--workers K] [--noop M] [--idle S]
[--batch B ...]`` (needs the ray extra).

1. Local pool: ``simulate(duel-classic, ["expert", "expert"], N, workers=K)``; its CPU is
   this process's and its pool workers' (``getrusage`` SELF and CHILDREN: the pool joins
   its workers before it returns).
2. Ray: a local Ray instance of K CPUs started here (``ray.init(num_cpus=K)``, its start-up
   not counted), used by ``simulate(..., backend="ray")`` as it would use a cluster. A Ray
   figure is the CPU of every process of the instance (this process's descendants: GCS,
   raylet, agents, workers; ``/proc/PID/stat`` user + system, with the children they
   reaped) plus this process's own, sampled before and after.

   a. idle: the instance's CPU per second while nothing runs, over S seconds (its daemons
      poll): a run pays it for its wall time;
   b. per task: M tasks of an empty batch (``run_batches`` with a function that plays
      nothing), their CPU and wall time per task, minus the idle CPU of that time;
   c. warm-up: the first run on fresh workers (each imports lostcities, loads the pack,
      builds the bots), 2K games, reported alone;
   d. the same N games as 1 (seed 1), in batches of ``batch_size(N)`` (the default), its
      summary compared with the local pool's; then N games in batches of each B, each
      with a seed of its own (a new job: workers build fresh bots, whose caches would
      otherwise make a repeated game cheaper).

3. The batch size for an overhead under 10%: ``B >= per-task CPU / (0.10 x CPU per match)``.

The machine may be shared: the header and the end give the load average. Figures, not
assertions.
"""
from __future__ import annotations

import argparse
import math
import os
import resource
import time
from pathlib import Path

import ray

from lostcities.engine import load_pack, simulate
from lostcities.engine.lab.backends import batch_size, batches, cores, run_batches

BOTS = ["expert", "expert"]
PACK = "duel-classic"


def self_and_children_cpu() -> float:
    """This process's CPU and that of the children it waited for (seconds)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def tree_cpu() -> float:
    """This process's CPU and that of all its descendants alive now (with what they
    reaped), in seconds: a local Ray instance's processes are all descendants."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        times[pid] = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    family = {os.getpid()}
    grown = True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in family} - family
        family |= more
        grown = bool(more)
    family.discard(os.getpid())
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime + sum(times.get(pid, 0) for pid in family) / tick


def measure(run, cpu=tree_cpu) -> tuple[float, float]:
    """``run()``'s CPU and wall seconds."""
    cpu0, wall0 = cpu(), time.perf_counter()
    run()
    return cpu() - cpu0, time.perf_counter() - wall0


def nothing(job, start, stop):
    """A batch that plays nothing: what a task costs beyond its games."""
    return None


def say(*args) -> None:
    print(*args, flush=True)  # a long run shows each figure as it comes


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="expert matches a run")
    parser.add_argument("--workers", type=int, default=min(2, cores()),
                        help="local workers and Ray CPUs")
    parser.add_argument("--noop", type=int, default=200, help="empty tasks for the per-task cost")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle Ray measured")
    parser.add_argument("--batch", type=int, action="append", default=[],
                        help="a batch size to try on Ray besides the default (repeatable)")
    args = parser.parse_args()
    n, k = args.games, args.workers
    pack = load_pack(PACK)
    say(f"bench_ray: {n} matches of {','.join(BOTS)} on {PACK}, {k} workers/CPUs, "
          f"{os.cpu_count()} cores here, ray {ray.__version__}; {load()}")

    local = {}

    def run_local():
        local["summary"] = simulate(pack, BOTS, n, seed=1, workers=k)

    cpu, wall = measure(run_local, self_and_children_cpu)
    per_match = cpu / n
    rows = [("local pool, seed 1", "-", cpu, wall)]
    say(f"local pool, seed 1: {cpu:.1f} CPU-s, {wall:.1f} s wall; {1000 * per_match:.0f} CPU-s "
          f"per 1,000 matches")

    ray.init(num_cpus=k, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        time.sleep(2.0)  # the instance settles (its agents start)
        idle_cpu, idle_wall = measure(lambda: time.sleep(args.idle))
        idle = idle_cpu / idle_wall
        say(f"ray idle: {idle:.3f} CPU-s per second ({idle_cpu:.2f} over {idle_wall:.1f} s)")

        def run_noop():
            list(run_batches(nothing, None, batches(args.noop, 1), backend="ray"))

        run_noop()  # its workers started and warm
        cpu, wall = measure(run_noop)
        task_cpu = max(0.0, cpu - idle * wall) / args.noop
        say(f"ray per task: {1000 * task_cpu:.2f} CPU-ms beyond idle "
              f"({1000 * cpu / args.noop:.2f} with it), {1000 * wall / args.noop:.2f} ms wall "
              f"({args.noop} empty tasks)")

        cpu, wall = measure(lambda: simulate(pack, BOTS, 2 * k, seed=2, backend="ray", chunk=1))
        say(f"ray warm-up (fresh workers import lostcities, load the pack, build the bots): "
              f"{cpu:.1f} CPU-s, {wall:.1f} s wall for {2 * k} matches in {2 * k} tasks")

        for seed, size in enumerate([batch_size(n), *args.batch], start=1):
            got = {}

            def run_ray():
                got["summary"] = simulate(pack, BOTS, n, seed=seed, backend="ray", chunk=size)

            cpu, wall = measure(run_ray)
            rows.append((f"ray, batches of {size}, seed {seed}", str(math.ceil(n / size)),
                         cpu, wall))
            same = "" if seed != 1 else " (summary " + (
                "equal to" if got["summary"].to_dict() == local["summary"].to_dict()
                else "DIFFERENT from") + " the local pool's)"
            say(f"ray, batches of {size}, seed {seed}: {cpu:.1f} CPU-s, {wall:.1f} s wall{same}")
    finally:
        ray.shutdown()

    print()
    print("| run | tasks | CPU-s | wall s | CPU-s per 1,000 matches | vs local | "
          "without idle daemons | vs local |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    base = rows[0][2]
    for name, tasks, cpu, wall in rows:
        busy = cpu if name.startswith("local") else cpu - idle * wall
        print(f"| {name} | {tasks} | {cpu:.1f} | {wall:.1f} | {1000 * cpu / n:.0f} | "
              f"{100 * (cpu / base - 1):+.1f}% | {1000 * busy / n:.0f} | "
              f"{100 * (busy / base - 1):+.1f}% |")
    floor = task_cpu / (0.10 * per_match)
    print()
    print(f"per task {1000 * task_cpu:.2f} CPU-ms against {1000 * per_match:.0f} CPU-ms a match:"
          f" batches of {max(1, math.ceil(floor))} match(es) or more keep Ray's per-task cost "
          f"under 10% (the default, batch_size(games), is 5 to 200); idle daemons add "
          f"{idle:.3f} CPU-s per second of wall time. {load()}")


if __name__ == "__main__":
    main()
