"""Start-up and whole-process cost of ``lc``, next to the yardstick's own process.

Run: ``python benchmarks/bench_startup.py [--repeat R] [--games N] [--cold] [--skip-long]``.

Prints the CPU time (user + system of the child process) of:

1. the yardstick's start-up, ``python plain_duel.py 0`` (../shared/bench/plain_duel.py);
2. ``lc --help`` (target under 0.1 s), ``lc simulate --games 0`` (under 0.25 s; and the same
   with the built-in pack's formulas parsed rather than read from their shipped parse
   results, for comparison), ``lc validate`` of one pack, a built-in and a house pack
   (under 0.3 s);
3. unless ``--skip-long``: the whole ``lc simulate --games N --bots random,random --workers 1``
   process against the whole ``python plain_duel.py N`` process (target: lc at least 1.2x as
   fast), and the same run with ``--record`` to a file (target: at most 30% more).

Every command runs ``R`` times in turns (the machine is shared); each figure is the best CPU
time, and ratios are of the best times of the same run. By default the commands run as an
installed package does, with compiled bytecode (written to a temporary ``PYTHONPYCACHEPREFIX``
and warmed first, so the work tree gets no ``__pycache__``); ``--cold`` runs them without
bytecode (``PYTHONDONTWRITEBYTECODE=1``, every module compiled at every start), as a bare
editable checkout does. Figures, not assertions: nothing here fails on a slow machine.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
YARDSTICK = ROOT.parent / "shared" / "bench" / "plain_duel.py"
PACK = ROOT / "rulepacks" / "duel-classic.yaml"
HOUSE = ROOT / "tests" / "fixtures" / "packs" / "valid" / "base-house.yaml"


#: ``lc simulate --games 0`` with the built-in packs' shipped parse results ignored, as a house
#: pack's formulas are compiled (lark imported, the parser tables loaded): what they save
PARSED = ("import sys\nsys.argv = ['lc', 'simulate', '--games', '0']\n"
          "from lostcities.engine import packs\npacks.shipped_trees = lambda paths: {}\n"
          "from lostcities.cli.app import main\nmain()")


def lc_command() -> list[str]:
    """The ``lc`` console script next to this Python, else its entry point run by Python."""
    script = Path(sys.executable).with_name("lc")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from lostcities.cli.app import main; main()"]


def child_cpu(argv: list[str], env: dict[str, str]) -> float:
    """Run one command to its end (output discarded); its CPU seconds, user + system."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0,):
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each command (best kept)")
    ap.add_argument("--games", type=int, default=1500, help="matches of the long runs")
    ap.add_argument("--cold", action="store_true", help="no bytecode: compile at every start")
    ap.add_argument("--skip-long", action="store_true", help="start-up figures only")
    args = ap.parse_args()

    env = dict(os.environ)
    cache = tempfile.TemporaryDirectory(prefix="lc-bench-pyc-")
    if args.cold:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache.name
    lc = lc_command()
    out = tempfile.TemporaryDirectory(prefix="lc-bench-rec-")
    record = os.path.join(out.name, "records.jsonl")
    n = str(args.games)
    runs: dict[str, list[str]] = {
        "yardstick start-up (plain_duel.py 0)": [sys.executable, str(YARDSTICK), "0"],
        "lc --help": lc + ["--help"],
        "lc simulate --games 0": lc + ["simulate", "--games", "0"],
        "  the same, formulas parsed (no shipped parse results)": [sys.executable, "-c", PARSED],
        "lc validate duel-classic.yaml": lc + ["validate", str(PACK)],
        "lc validate base-house.yaml (house pack)": lc + ["validate", str(HOUSE)],
    }
    if not args.skip_long:
        runs[f"yardstick process (plain_duel.py {n})"] = [sys.executable, str(YARDSTICK), n]
        runs[f"lc simulate --games {n} (random, 1 worker)"] = lc + [
            "simulate", "--games", n, "--bots", "random,random", "--workers", "1"]
        runs["  the same with --record FILE"] = lc + [
            "simulate", "--games", n, "--bots", "random,random", "--workers", "1",
            "--record", record, "--force"]
    # warm the bytecode cache (and the disk cache) once, not measured
    for argv in list(runs.values())[:6]:
        child_cpu(argv, env)
    best = {name: float("inf") for name in runs}
    for _ in range(args.repeat):
        for name, argv in runs.items():
            best[name] = min(best[name], child_cpu(argv, env))
    mode = "cold (no bytecode)" if args.cold else "with bytecode"
    print(f"CPU seconds, best of {args.repeat}, {mode}; Python {sys.version.split()[0]}")
    width = max(map(len, runs))
    yard = best["yardstick start-up (plain_duel.py 0)"]
    targets = {"lc --help": 0.1, "lc simulate --games 0": 0.25,
               "lc validate duel-classic.yaml": 0.3,
               "lc validate base-house.yaml (house pack)": 0.3}
    for name, cpu in best.items():
        note = ""
        if name in targets:
            note = (f"  {cpu / yard:5.1f}x the yardstick's start-up; target < {targets[name]} s"
                    f" {'met' if cpu < targets[name] else 'NOT met'}")
        print(f"  {name:<{width}}  {cpu:7.3f} s{note}")
    if not args.skip_long:
        plain = best[f"yardstick process (plain_duel.py {n})"]
        sim = best[f"lc simulate --games {n} (random, 1 worker)"]
        rec = best["  the same with --record FILE"]
        print(f"whole process, lc simulate against the yardstick: {plain / sim:.2f}x "
              f"(target >= 1.2x)")
        print(f"--record adds {100 * (rec - sim) / sim:.0f}% (target <= 30%)")


if __name__ == "__main__":
    main()
