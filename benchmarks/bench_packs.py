"""Rule-pack loading speed: cold and cached loads, refusals of hostile files, CLI start-up.

Run: ``python benchmarks/bench_packs.py [--repeat N]``. Prints:

1. a full check of each built-in pack, cold (YAML, extends, schema, LC checks, formulas);
2. ``load_pack`` once cached (a stat per file of the extends chain);
3. how fast hostile files are refused: a billion-laughs file, a 10^5-value list,
   50,000 nested brackets, a file just over the 1 MiB cap;
4. wall time of ``lc --help``, ``lc packs`` and ``lc validate rulepacks/*`` as subprocesses.

Figures, not assertions: nothing here fails on a slow machine.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """The fastest of ``repeat`` runs, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def show(label: str, seconds: float) -> None:
    unit, value = ("ms", seconds * 1e3) if seconds >= 1e-3 else ("µs", seconds * 1e6)
    print(f"  {label:<44} {value:9.2f} {unit}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from lostcities.engine.packs import loader as packs
    from lostcities.engine.errors import PackError

    packs.validate_pack("duel-classic")  # import jsonschema, lark, build the validator
    print("full check of a built-in pack (validate_pack, after imports):")
    for pack_id in packs.builtin_ids():
        show(pack_id, best_of(args.repeat, lambda: packs.validate_pack(pack_id)))

    print("load_pack once cached:")
    packs.load_pack("duel-grenoble")
    show("duel-grenoble (2 files)", best_of(args.repeat * 200,
                                            lambda: packs.load_pack("duel-grenoble")))

    print("refusing hostile files (check_pack, whole call):")
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    hostile = {
        "billion laughs (10^9 values if expanded)": "\n".join(lines) + "\n",
        "100,000-value flow list (cap 20,000)": "a: [" + "1, " * 100_000 + "1]\n",
        "50,000 nested brackets (cap 32 levels)": "a: " + "[" * 50_000 + "]" * 50_000 + "\n",
        "1 MiB + 1 byte (cap, refused unread)": "#" * (1 << 20) + "\n",
    }
    with tempfile.TemporaryDirectory() as folder:
        for label, text in hostile.items():
            path = Path(folder) / "hostile.yaml"
            path.write_text(text)
            codes = {p.code for p in packs.check_pack(str(path))}
            show(f"{label} -> {', '.join(sorted(codes))}",
                 best_of(args.repeat, lambda: packs.check_pack(str(path))))
        try:
            packs.load_pack(str(path))
        except PackError:
            pass

    print("lc as a subprocess (median wall time):")
    root = Path(packs.builtin_dir())
    lc = str(Path(sys.executable).with_name("lc"))
    for label, argv in [("lc --help", [lc, "--help"]),
                        ("lc packs", [lc, "packs"]),
                        ("lc validate rulepacks/*", [lc, "validate",
                                                     *sorted(map(str, root.iterdir()))])]:
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=False)
            runs.append(time.perf_counter() - start)
        show(label, statistics.median(runs))


if __name__ == "__main__":
    main()
