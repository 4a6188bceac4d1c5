"""A local worker pool stopped in the middle of a run returns at once and leaves no process
behind: after a worker's error (a ``module:Class`` bot that fails in one game while the
other worker is still inside its chunk), a worker that dies, Ctrl-C, or a consumer that
stops reading; and a run that succeeds is the same on one worker or two.

``multiprocessing.Pool`` could hang when stopped that way (a worker killed while it held a
lock of the pool's shared queues: CPython issue 96995; a worker that died took its task
with it); the pool of :mod:`.backends` gives each worker a pipe of its own. Every run that
could hang runs in a process of its own with a generous timeout, so a hang fails the test
instead of stopping the suite. The other worker is busy for sure: its bot waits (bounded,
far beyond the tests' bounds) for a file that never comes, and the failing bot fails only
once that worker has said it is waiting.
"""
from __future__ import annotations

import io
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from enginehelpers import one_error_line
from lostcities.engine.lab.backends import batches, game_played, run_batches
from lostcities.engine.lab.simulation import game_seed, simulate

LC = Path(sys.executable).with_name("lc")
#: the bound of one run that must stop promptly (seconds)
PROMPT = 30
#: the bound of a whole subprocess of this file (seconds)
TIMEOUT = 120

BOT = '''
"""Random moves. In game {fail} (seed 0) after 5 decisions, once a "busy-PID" file is in
the current folder: {failure}. In games {wait} (seed 0): write "busy-PID", then wait for
the file "go", which never comes (at most 120 s)."""
import os
import time

from lostcities.engine.bots.base import RandomBot
from lostcities.engine.lab.simulation import game_seed

FAIL = game_seed(0, {fail})
WAIT = {{game_seed(0, game) for game in {wait}}}


def wait_for(done, seconds):
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.01)


class Fail(RandomBot):
    name = "fail"

    def __init__(self):
        self.decisions = 0

    def choose(self, view):
        seed = view._state.seed
        if seed == FAIL:
            self.decisions += 1
            if self.decisions > 5:
                wait_for(lambda: any(name.startswith("busy-") for name in os.listdir()), 60)
                {failure}
        elif seed in WAIT:
            open(f"busy-{{os.getpid()}}", "w").close()
            wait_for(lambda: os.path.exists("go"), 120)
        return super().choose(view)
'''

#: 200 games on 2 workers are chunks of 12: chunk 0 (game 3 fails) goes to one worker, and
#: chunk 1 (game 15 waits) to the other
RAISE = "raise RuntimeError('the bot lost its cards')"
DIE = "os._exit(7)"


def bot_folder(folder: Path, failure: str = RAISE, fail: int = 3,
               wait: str = "(15,)") -> Path:
    """``folder`` (made) holding ``failbot.py`` (see :data:`BOT`)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "failbot.py").write_text(BOT.format(failure=failure, fail=fail, wait=wait),
                                       encoding="utf-8")
    return folder


def busy(folder: Path) -> list[int]:
    """The pids of the workers that wrote they were waiting in ``folder``."""
    return [int(p.name.split("-")[1]) for p in folder.glob("busy-*")]


LOOP = '''
import multiprocessing, os, sys, time
sys.path.insert(0, os.getcwd())
from lostcities.engine.errors import LostCitiesError
from lostcities.engine.lab.simulation import simulate


def children():
    """Processes whose parent is this one, zombies included (from /proc)."""
    mine = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                if int(stat.read().rsplit(")", 1)[1].split()[1]) == os.getpid():
                    mine.append(entry)
        except (OSError, IndexError, ValueError):
            continue
    return mine


top = os.getcwd()
for run in range(int(sys.argv[1])):
    os.makedirs(f"{top}/run-{run}")
    os.chdir(f"{top}/run-{run}")  # the workers' busy files of this run only
    start = time.monotonic()
    try:
        simulate("duel-classic", ["failbot:Fail", "random"], 200, 0, workers=2,
                 allow_import=True, progress=(lambda done: None) if run % 2 else None)
        error = "no error"
    except LostCitiesError as err:
        error = str(err)
    print(round(time.monotonic() - start, 3), len(multiprocessing.active_children()),
          len(children()), error, flush=True)
'''


def run_loop(folder: Path, runs: int) -> list[tuple[float, int, int, str]]:
    """``runs`` simulations on 2 workers in one fresh process: (seconds, active children,
    children in /proc, error) of each."""
    done = subprocess.run([sys.executable, "-c", LOOP, str(runs)], cwd=folder,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0 and "Traceback" not in done.stderr, (done.stdout, done.stderr)
    out = []
    for line in done.stdout.splitlines():
        seconds, active, listed, error = line.split(" ", 3)
        out.append((float(seconds), int(active), int(listed), error))
    assert len(out) == runs, done.stdout
    return out


def test_a_bot_failing_mid_run_stops_both_workers_at_once_every_time(tmp_path: Path) -> None:
    """Ten runs (half of them with a progress callback): each says the bot's error within
    seconds, though the other worker is still inside its chunk, and leaves no child
    process, running or zombie."""
    folder = bot_folder(tmp_path)
    for seconds, active, listed, error in run_loop(folder, 10):
        assert error.startswith("bot 'fail' (seat 1) failed: RuntimeError: the bot lost its "
                                f"cards (match seed {game_seed(0, 3)}, round 1,"), error
        assert seconds < PROMPT and active == 0 and listed == 0, (seconds, active, listed)
    assert [len(busy(folder / f"run-{run}")) for run in range(10)] == [1] * 10


def test_a_worker_that_dies_mid_run_is_one_error_not_a_hang(tmp_path: Path) -> None:
    """A bot that ends its worker process (``os._exit``): a Pool waited for its chunk
    forever."""
    for seconds, active, listed, error in run_loop(bot_folder(tmp_path, DIE), 2):
        assert error == "a worker process ended with exit code 7 in the middle of the run"
        assert seconds < PROMPT and active == 0 and listed == 0, (seconds, active, listed)


def test_lc_simulate_says_the_bot_error_in_one_line_and_exits_1(tmp_path: Path) -> None:
    for run, bots in enumerate(("failbot:Fail,random", "random,failbot:Fail")):
        folder = bot_folder(tmp_path / f"run-{run}")
        start = time.monotonic()
        done = subprocess.run([str(LC), "simulate", "-n", "200", "-w", "2", "-b", bots,
                               "--record", "games.jsonl"], cwd=folder, capture_output=True,
                              text=True, timeout=TIMEOUT)
        assert time.monotonic() - start < PROMPT
        assert done.returncode == 1, (done.stdout, done.stderr)
        line = one_error_line(done.stderr)
        assert f"(seat {run + 1}) failed: RuntimeError: the bot lost its cards" in line, line
        assert not (folder / "games.jsonl").exists() and len(busy(folder)) == 1
        assert not any(map(alive, busy(folder)))


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (neither reaped nor a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_ctrl_c_stops_lc_simulate_and_its_busy_workers(tmp_path: Path) -> None:
    """SIGINT to the whole process group (a terminal's Ctrl-C) while both workers wait
    inside a game: exit 130 and the one line ``lc: interrupted`` (typer alone would say
    nothing), not a word from the workers (a Pool's printed their KeyboardInterrupt
    tracebacks), both gone."""
    folder = bot_folder(tmp_path, fail=-1, wait="range(20)")
    proc = subprocess.Popen([str(LC), "simulate", "-n", "20", "-w", "2",
                             "-b", "failbot:Fail,random"], cwd=folder, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        while len(busy(folder)) < 2 and proc.poll() is None:
            assert time.monotonic() < deadline, "the workers never started their games"
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=PROMPT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert err.splitlines()[-1:] == ["lc: interrupted"], err
    assert err.count("interrupted") == 1, err  # the parent's line, none from the workers
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert len(busy(folder)) == 2 and not any(map(alive, busy(folder)))


def _batch(job: str, start: int, stop: int) -> dict:
    """A batch function: its games' seeds and its process. With job "wait" or "fail",
    batch 1 waits (bounded) for a file that never comes, and batch 0 returns ("wait") or
    fails ("fail") once batch 1 is waiting."""
    if job != "plain":
        if start == 0:
            deadline = time.monotonic() + 60
            while not list(Path.cwd().glob("busy-*")) and time.monotonic() < deadline:
                time.sleep(0.01)
            if job == "fail":
                raise ValueError("batch 0 cannot be played")
        else:
            Path(f"busy-{os.getpid()}").touch()
            deadline = time.monotonic() + 120
            while not Path("go").exists() and time.monotonic() < deadline:
                time.sleep(0.01)
    for _ in range(start, stop):
        game_played()
    return {"games": [game_seed(7, i) for i in range(start, stop)], "pid": os.getpid()}


BATCHES = '''
import multiprocessing, sys, time
sys.path.insert(0, {tests!r})
from test_pool_errors import _batch
from lostcities.engine.lab.backends import batches, run_batches
start = time.monotonic()
done = run_batches(_batch, sys.argv[1], batches(10, 5), workers=2)
try:
    print(next(done)[0].index)
except ValueError as err:
    print(err)
done.close()
print(round(time.monotonic() - start, 3), len(multiprocessing.active_children()))
'''


@pytest.mark.parametrize("job, said", [("wait", "0"), ("fail", "batch 0 cannot be played")])
def test_run_batches_stops_a_busy_worker_when_closed_or_failed(tmp_path: Path, job: str,
                                                               said: str) -> None:
    """lc balance's batches: the consumer closes the run after batch 0 ("wait"), or batch 0
    fails ("fail"), while the other worker is still inside batch 1."""
    code = BATCHES.format(tests=str(Path(__file__).parent))
    done = subprocess.run([sys.executable, "-c", code, job], cwd=tmp_path, capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert done.returncode == 0 and "Traceback" not in done.stderr, (done.stdout, done.stderr)
    first, timing = done.stdout.splitlines()
    seconds, active = timing.split()
    assert first == said and float(seconds) < PROMPT and active == "0", done.stdout
    assert len(busy(tmp_path)) == 1 and not any(map(alive, busy(tmp_path)))


def _big_batch(job: None, start: int, stop: int) -> bytes:
    """A batch function whose results (16 MB) fill a pipe many times over; batch 2 fails."""
    if start == 10:
        raise ValueError("batch 2 cannot be played")
    return bytes([start % 251]) * (16 << 20)


BIG = '''
import multiprocessing, sys, time
sys.path.insert(0, {tests!r})
from test_pool_errors import _big_batch
from lostcities.engine.lab.backends import batches, run_batches
for run in range(int(sys.argv[1])):
    start = time.monotonic()
    try:
        for batch, result in run_batches(_big_batch, None, batches(200, 5), workers=2):
            assert result == bytes([batch.start % 251]) * (16 << 20)
        said = "no error"
    except ValueError as err:
        said = str(err)
    print(round(time.monotonic() - start, 3), len(multiprocessing.active_children()), said,
          flush=True)
'''


def test_a_failed_batch_stops_workers_that_are_sending_big_results(tmp_path: Path) -> None:
    """Ten runs whose workers send results far bigger than a pipe holds when a batch fails:
    they are stopped in the middle of a send. (A Pool then waited forever for the lock of
    its result queue: three loops of these ten runs on it hung, at runs 1, 1 and 4.)"""
    code = BIG.format(tests=str(Path(__file__).parent))
    done = subprocess.run([sys.executable, "-c", code, "10"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0 and "Traceback" not in done.stderr, (done.stdout, done.stderr)
    runs = [line.split(" ", 2) for line in done.stdout.splitlines()]
    assert len(runs) == 10, done.stdout
    for seconds, active, said in runs:
        assert said == "batch 2 cannot be played" and float(seconds) < PROMPT \
            and active == "0", done.stdout


def test_runs_that_succeed_are_the_same_on_one_worker_or_two() -> None:
    records = [io.StringIO(), io.StringIO()]
    seen: list[int] = []
    one = simulate("duel-classic", ["random", "greedy"], 30, 5, record=records[0])
    two = simulate("duel-classic", ["random", "greedy"], 30, 5, workers=2, chunk=2,
                   record=records[1], progress=seen.append)
    assert one.to_dict() == two.to_dict() and one.games == 30
    assert records[0].getvalue() == records[1].getvalue()
    assert [json.loads(line)["simulation"]["game"]
            for line in records[1].getvalue().splitlines()] == list(range(30))
    assert seen == sorted(seen) and seen[-1] == 30
    todo = batches(23, 5)
    alone = list(run_batches(_batch, "plain", todo, workers=1))
    played: list[int] = []
    pooled = list(run_batches(_batch, "plain", todo, workers=2, played=played.append))
    assert [b for b, _ in pooled] == todo == [b for b, _ in alone]
    assert [r["games"] for _, r in pooled] == [r["games"] for _, r in alone]
    pids = {r["pid"] for _, r in pooled}
    assert len(pids) == 2 and os.getpid() not in pids  # both workers played
    assert played == sorted(played) and played[-1] == 23
    assert multiprocessing.active_children() == []
