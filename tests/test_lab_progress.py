"""Issue #15: a long ``lc simulate`` or ``lc balance`` run on worker processes says how far it
is while its workers are still in the middle of a batch, not only when one comes back; and a
run's per-match results are the same with one worker or two (expert bots included, whose
caches outlive a match).

The progress tests run the real ``lc`` with stderr a pipe and a bot (from the test's own
folder) that stops in the middle of the first batches until a file appears: the test makes
that file only once it has read a progress line counting games of unfinished batches, so a
run that reported only finished batches would never be let go (the bot gives up after a
generous bound and the run fails in one line)."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lostcities.engine.lab.backends import batches, game_played, polled, run_batches
from lostcities.engine.lab.balance import BalanceJob, run_batch
from lostcities.engine.lab.simulation import simulate
from lostcities.engine.packs.loader import load_pack

LC = Path(sys.executable).parent / "lc"
LINE = re.compile(r"^lc (simulate|balance): ([\d,]+)/([\d,]+) games, \S+ elapsed, ETA \S+$")

GATE_BOT = '''
"""Random moves; after about two matches in a process, waits for the file "go" (bounded)."""
import os
import time

from lostcities.engine.bots.base import RandomBot

DECISIONS = [0]


class Gate(RandomBot):
    name = "gate"

    def choose(self, view):
        DECISIONS[0] += 1
        if DECISIONS[0] == 1000:  # two random matches are about 860 decisions
            deadline = time.monotonic() + 240
            while not os.path.exists("go"):
                if time.monotonic() > deadline:
                    raise RuntimeError("no progress line came while the batch was running")
                time.sleep(0.01)
        return super().choose(view)
'''


def gated_run(tmp_path: Path, *args: str) -> tuple[list[str], list[int], str]:
    """Run ``lc ARGS`` in ``tmp_path`` with the gate bot and a tiny progress interval; make
    the file "go" at the first progress line. Its stderr lines, the counts of games they
    gave before "go" existed, and its stdout."""
    (tmp_path / "gatebot.py").write_text(GATE_BOT)
    env = {**os.environ, "LC_PROGRESS_INTERVAL": "0.001"}
    proc = subprocess.Popen([str(LC), *args], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines, before = [], []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # ends when lc exits: the gate bot's wait is bounded
            lines.append(line.rstrip("\n"))
            match = LINE.match(lines[-1])
            if match and not (tmp_path / "go").exists():
                before.append(int(match.group(2).replace(",", "")))
                (tmp_path / "go").touch()
        out, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, lines[-3:]
    return lines, before, out


def test_balance_on_two_workers_counts_games_inside_a_batch(tmp_path: Path) -> None:
    # 10 paired games in 2 batches of 5: both workers stop inside their batch
    lines, before, out = gated_run(tmp_path, "balance", "duel-classic", "-n", "10",
                                   "-b", "gatebot:Gate,gatebot:Gate", "-w", "2")
    assert lines and all(LINE.match(line) for line in lines), lines[:3]
    # the gate holds both workers inside their first batch: any line before "go" counts
    # games of unfinished batches (a run that counted only finished batches gives none)
    assert before and 0 < before[0] < 10
    counts = [int(LINE.match(line).group(2)) for line in lines]
    assert counts == sorted(counts) and all(c < 10 for c in counts)
    assert "10 paired games" in out


def test_simulate_on_two_workers_counts_games_inside_a_chunk(tmp_path: Path) -> None:
    # 60 matches in chunks of 3: both workers stop inside their first chunk
    lines, before, out = gated_run(tmp_path, "simulate", "-n", "60",
                                   "-b", "gatebot:Gate,gatebot:Gate", "-w", "2")
    assert lines and all(LINE.match(line) for line in lines), lines[:3]
    assert before and 0 < before[0] < 60  # as above: no chunk had come back
    counts = [int(LINE.match(line).group(2)) for line in lines]
    assert counts == sorted(counts) and all(c < 60 for c in counts)
    assert out.startswith("60 games of duel-classic")


def test_game_played_counts_only_in_a_pool_worker() -> None:
    game_played()  # this process: nothing to count, nothing raised

    class Ticking:
        """An imap iterator whose first two waits time out."""

        def __init__(self) -> None:
            self.waits = 0

        def next(self, seconds: float) -> str:
            from multiprocessing import TimeoutError as Waiting

            self.waits += 1
            if self.waits <= 2:
                raise Waiting
            if self.waits == 3:
                return "batch"
            raise StopIteration

    seen: list[int] = []
    assert list(polled(Ticking(), [3, 0, 4], seen.append, 0.0)) == ["batch"]
    assert seen == [7, 7, 7]  # the workers' counts added up: each wait, then the batch


def _count_games(games: int) -> tuple:
    """A pool task: ``games`` games counted (:func:`game_played`); which worker counted them."""
    from lostcities.engine.lab.workers import worker_index

    for _ in range(games):
        game_played()
    return worker_index(), games


def test_each_worker_counts_its_games_in_a_slot_of_its_own() -> None:
    """The games counter holds one slot per worker, written by that worker alone (no lock
    between processes, so a worker killed at any moment cannot stop the parent's reads):
    each slot holds exactly the games of the tasks that ran on its worker."""
    import multiprocessing as mp

    from lostcities.engine.lab.backends import counted_pool

    ctx = mp.get_context("fork")
    pool, counter = counted_pool(ctx, 2, True)
    with pool:
        done = list(pool.imap_unordered(_count_games, [5, 1, 7, 3, 11, 2]))
    assert sorted(games for _, games in done) == [1, 2, 3, 5, 7, 11]
    by_worker = [sum(g for w, g in done if w == slot) for slot in range(2)]
    assert list(counter) == by_worker and sum(counter) == 29
    assert not hasattr(counter, "get_lock")  # nothing to hold


def test_expert_records_are_the_same_on_one_worker_or_two() -> None:
    """Every move of every match (the records) with 1 and 2 workers, chunks of one match:
    a worker's expert has played other matches before, or none."""
    pack = load_pack("duel-classic")
    runs = []
    for workers in (1, 2):
        out = io.StringIO()
        simulate(pack, ["expert", "greedy"], 4, 11, workers=workers, record=out, chunk=1)
        runs.append(out.getvalue().splitlines())
    assert len(runs[0]) == 4 and runs[0] == runs[1]


def test_balance_per_match_results_are_the_same_on_one_worker_or_two() -> None:
    """Batches of one paired game are per-match results: the same measures from 1 and 2
    workers, whichever process played which match before."""
    job = BalanceJob("duel-six", "duel-classic", ("expert", "greedy"), 5)
    todo = batches(4, 1)
    one = [result for _, result in run_batches(run_batch, job, todo, workers=1)]
    two = [result for _, result in run_batches(run_batch, job, todo, workers=2)]
    assert len(one) == 4 and one == two
    assert len({str(result["measures"]) for result in one}) == 4  # four different matches


@pytest.mark.parametrize("workers", [1, 2])
def test_balance_progress_never_goes_down(workers: int) -> None:
    from lostcities.engine.lab.balance import balance

    p, q = load_pack("duel-classic"), load_pack("duel-six")
    seen: list[int] = []
    report = balance(q, p, ["random", "random"], 30, 3, workers=workers, size=5,
                     progress=seen.append)
    assert seen == sorted(set(seen)) and seen[-1] == report.games == 30
