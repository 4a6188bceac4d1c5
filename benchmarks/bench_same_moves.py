"""Two versions of a bot on the very same decisions, in turns: their CPU a move, and proof
that they choose the same moves.

Run: ``python benchmarks/bench_same_moves.py BEFORE NOW [--path DIR] [--pack ID]
[--moves N] [--rounds N] [--yardstick PATH]``, e.g. with a frozen copy of the search
before a change (a package under ``--path``)::

    python benchmarks/bench_same_moves.py before.ismcts:ISMCTSBot ismcts@2 --path /tmp/frozen

Each round plays seeded duel matches against the expert; at every decision of the timed
seat both bots decide on the same view (each with its own copy of the random stream, so
a search deals the same cards), one after the other (which goes first alternates), and
their CPU times (this process's ``time.process_time``) are added up: the load of a
shared machine falls on both alike. A move that differs stops the run with the
position's turn (a change of speed must never be a change of play). After each round,
the yardstick (``../shared/bench/plain_duel.py``) runs in the same process; the table
gives each bot's best and median CPU ms a move over the rounds, its ratio to the first
bot, and the yardstick's random matches per CPU second. Figures, not assertions.
"""
from __future__ import annotations

import argparse
import copy
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from bench_ismcts import yardstick  # the yardstick timed as bench_ismcts times it

#: the yardstick: one plain function playing random duel-classic matches
YARDSTICK = Path(__file__).resolve().parents[2] / "shared" / "bench" / "plain_duel.py"


class Twins:
    """Two bots deciding every position in turns; the first one's move is played."""

    name = "twins"

    def __init__(self, first: Any, second: Any, moves: int, stand_in: Any):
        self.bots = (first, second)
        self.cpu = [0.0, 0.0]
        self.decisions = 0
        self.moves = moves
        self.stand_in = stand_in

    def choose(self, view: Any) -> Any:
        """Both bots' move for ``view`` (the same, or the run stops)."""
        if self.decisions >= self.moves:
            return self.stand_in.choose(view)
        start = view.rng.getstate()
        order = (0, 1) if self.decisions % 2 == 0 else (1, 0)
        chosen: list[Any] = [None, None]
        after = None
        for i in order:
            own = copy.copy(view)
            own.rng = random.Random()
            own.rng.setstate(start)
            cpu = time.process_time()
            chosen[i] = self.bots[i].choose(own)
            self.cpu[i] += time.process_time() - cpu
            if i == 0:
                after = own.rng.getstate()
        if chosen[0] != chosen[1]:
            raise SystemExit(f"bench_same_moves: the bots chose {chosen[0]} and {chosen[1]} "
                             f"at turn {view.observation.turn} (decision {self.decisions})")
        view.rng.setstate(after)
        self.decisions += 1
        return chosen[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="the first bot (a name or module:Class)")
    parser.add_argument("now", help="the second bot (a name or module:Class)")
    parser.add_argument("--path", default="", help="a folder put first on sys.path "
                        "(holding a frozen bot's package)")
    parser.add_argument("--pack", default="duel-classic")
    parser.add_argument("--moves", type=int, default=20, help="decisions timed per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--yardstick", default=str(YARDSTICK))
    args = parser.parse_args()
    if args.path and args.path not in sys.path:
        sys.path.insert(0, args.path)
    from lostcities.engine.bots.registry import make_bot
    from lostcities.engine.lab.simulation import game_seed, play_match
    from lostcities.engine.packs.loader import load_pack

    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"bench_same_moves: {args.before} then {args.now} on {args.pack}, {args.moves} "
          f"decisions a round; Python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"load average {load}", flush=True)
    pack = load_pack(args.pack)
    runs: list[tuple[float, float, float]] = []
    match = 0
    for turn in range(args.rounds):
        # names typed by the person running the benchmark: a module:Class is imported
        twins = Twins(make_bot(args.before, allow_import=True),
                      make_bot(args.now, allow_import=True), args.moves, make_bot("expert"))
        while twins.decisions < args.moves:
            bots: list[Any] = [twins, make_bot("expert")]
            if match % 2:
                bots.reverse()
            play_match(pack, bots, game_seed(99, match))
            match += 1
        pace = yardstick(Path(args.yardstick))
        n = twins.decisions
        before, now = (cpu / n * 1000 for cpu in twins.cpu)
        runs.append((before, now, pace))
        print(f"  round {turn + 1}: {args.before} {before:7.1f} ms  {args.now} {now:7.1f} ms"
              f"  ratio {now / before:.3f}  ({n} same moves; yardstick {pace:.0f} random "
              f"matches per CPU s)", flush=True)
    for i, name in enumerate((args.before, args.now)):
        ms = sorted(run[i] for run in runs)
        ratios = sorted(run[i] / run[0] for run in runs)
        print(f"  {name:<30} best {ms[0]:7.1f}  median {ms[len(ms) // 2]:7.1f} ms a move;  "
              f"ratio to {args.before}: best {ratios[0]:.3f}, median "
              f"{ratios[len(ratios) // 2]:.3f}", flush=True)
    paces = sorted(run[2] for run in runs)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"  yardstick: best {paces[-1]:.0f}, median {paces[len(paces) // 2]:.0f} random "
          f"matches per CPU s; load average now {load}", flush=True)


if __name__ == "__main__":
    main()
