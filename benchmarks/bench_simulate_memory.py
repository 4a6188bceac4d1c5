"""Peak memory of ``lc simulate``: 10,000 vs 100,000 random matches (it must stream).

Run: ``python benchmarks/bench_simulate_memory.py [--small N] [--big N] [--workers K]``.

Each run is one ``lc simulate --bots random,random`` in a fresh process; when it
finishes, that process reports ``resource.getrusage`` for itself (the parent:
aggregation, progress) and for its children (the pool's workers, all waited for:
``ru_maxrss`` of the largest). Streaming means both stay flat when the number of
matches grows tenfold. Figures, not assertions.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

PROBE = """
import json, resource, sys
from lostcities.cli.app import main
sys.argv = ["lc", "simulate", "--bots", "random,random", "--games", sys.argv[1],
            "--workers", sys.argv[2], "--json"]
try:
    main()
except SystemExit as done:
    if done.code:
        raise
me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
sys.stderr.write(json.dumps({"parent_kib": me, "children_kib": kids}) + "\\n")
"""


def run(games: int, workers: int) -> tuple[float, dict, dict]:
    """Seconds, the peak memory report, and the summary of one run."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", PROBE, str(games), str(workers)],
                          capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - start
    peak = json.loads(proc.stderr.strip().splitlines()[-1])
    return elapsed, peak, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--big", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"lc simulate --bots random,random --workers {args.workers}: peak resident memory")
    for games in (args.small, args.big):
        elapsed, peak, summary = run(games, args.workers)
        assert summary["games"] == games
        print(f"  {games:>8} matches  parent {peak['parent_kib'] / 1024:7.1f} MiB   "
              f"largest worker {peak['children_kib'] / 1024:7.1f} MiB   "
              f"{elapsed:7.1f} s ({games / elapsed:,.0f} matches/s)", flush=True)


if __name__ == "__main__":
    main()
