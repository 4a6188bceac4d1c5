"""Progress lines: ``lc balance`` and ``lc simulate`` say how far they are when stderr is not
a terminal (a pipe, a CI log; issue #13): one line every ``LC_PROGRESS_INTERVAL`` seconds,
none for a run that ends sooner. Tested with a fake clock, then through the real ``lc``;
``LC_PROGRESS_INTERVAL`` is a number of seconds or one error line, whatever it holds
(fuzzed)."""
from __future__ import annotations

import io
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st

from lostcities.cli.common import PROGRESS_INTERVAL, Progress, duration, progress_interval

LC = Path(sys.executable).parent / "lc"
LINE = re.compile(r"^lc (simulate|balance): [\d,]+/[\d,]+ games, \S+ elapsed, ETA \S+$")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def piped(total: int, clock: Clock, interval: float = 15.0) -> tuple[Progress, io.StringIO]:
    stream = io.StringIO()
    return Progress(total, "balancing", "lc balance", stream=stream, clock=clock,
                    interval=interval, terminal=False), stream


def test_a_line_every_interval_and_none_before_the_first() -> None:
    clock = Clock()
    progress, stream = piped(200, clock)
    with progress as tick:
        assert tick is not None
        for at, done in ((5, 5), (14.9, 10)):  # sooner than the interval: nothing
            clock.now = 1000 + at
            tick(done)
        assert stream.getvalue() == ""
        clock.now = 1000 + 252
        tick(37)
        clock.now = 1000 + 260  # 8 s after the last line: nothing
        tick(40)
        clock.now = 1000 + 600
        tick(100)
    assert stream.getvalue().splitlines() == [
        "lc balance: 37/200 games, 4m12s elapsed, ETA 19m",
        "lc balance: 100/200 games, 10m elapsed, ETA 10m",
    ]


def test_a_run_that_ends_quickly_or_a_finished_run_prints_nothing() -> None:
    clock = Clock()
    progress, stream = piped(10, clock)
    with progress as tick:
        for done in range(1, 11):
            clock.now += 1.4  # 14 s in all
            tick(done)
    assert stream.getvalue() == ""
    progress, stream = piped(3, clock)
    with progress as tick:
        clock.now += 100
        tick(3)  # the last game: the report follows, no "3/3" line
    assert stream.getvalue() == ""


def test_interval_zero_turns_the_lines_off_and_a_terminal_keeps_the_bar() -> None:
    clock = Clock()
    progress, stream = piped(50, clock, interval=0)
    with progress as tick:
        assert tick is None
    bar = Progress(50, "balancing", "lc balance", stream=io.StringIO(), clock=clock,
                   terminal=True)
    with bar as tick:
        assert tick == bar.tick  # the rich bar, not lines
    with Progress(1, "balancing", terminal=True, stream=io.StringIO()) as tick:
        assert tick is None


def test_a_closed_log_does_not_stop_the_run() -> None:
    clock = Clock()
    progress, stream = piped(20, clock, interval=1)
    with progress as tick:
        stream.close()
        clock.now += 5
        tick(3)  # ValueError on a closed stream: no more lines, no error
        clock.now += 5
        tick(4)


@pytest.mark.parametrize("seconds, text", [
    (0, "0s"), (42.4, "42s"), (59.6, "1m00s"), (252, "4m12s"), (599, "9m59s"), (600, "10m"),
    (1079, "18m"), (3599, "1h00m"), (7500, "2h05m"), (-3, "0s"),
])
def test_durations(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def test_the_interval_from_the_environment() -> None:
    assert progress_interval({}) == PROGRESS_INTERVAL
    assert 10 <= PROGRESS_INTERVAL <= 30
    assert progress_interval({"LC_PROGRESS_INTERVAL": " 0.5 "}) == 0.5
    assert progress_interval({"LC_PROGRESS_INTERVAL": "0"}) == 0


def lc(*args: str, interval: str | None, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "LC_PROGRESS_INTERVAL"}
    if interval is not None:
        env["LC_PROGRESS_INTERVAL"] = interval
    return subprocess.run([str(LC), *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", "9" * 400])
def test_an_unusable_interval_is_one_error_line(value: str) -> None:
    done = lc("simulate", "-n", "2", interval=value)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("lc: error: LC_PROGRESS_INTERVAL=") and len(line) < 200


def test_simulate_in_a_pipe_prints_progress_lines() -> None:
    """The real lc with stderr a pipe and a tiny interval: progress lines, then the summary
    on stdout as always."""
    done = lc("simulate", "-n", "60", "-b", "greedy,random", "-s", "2", interval="0.001")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(LINE.match(line) for line in lines), lines[:3]
    assert all("/60 games" in line and not line.startswith("lc simulate: 60/")
               for line in lines)
    assert done.stdout.startswith("60 games of duel-classic, seed 2: greedy vs random")


def test_balance_in_a_pipe_prints_progress_lines(tmp_path: Path) -> None:
    done = lc("balance", "duel-six", "-n", "20", "-b", "greedy,greedy", "-w", "1",
              interval="0.001")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    # a line after each batch of 5 but the last
    assert lines and all(LINE.match(line) for line in lines), lines[:3]
    assert [line.split(",")[0] for line in lines] == [
        "lc balance: 5/20 games", "lc balance: 10/20 games", "lc balance: 15/20 games"]


def test_a_quick_run_in_a_pipe_prints_nothing_by_default() -> None:
    done = lc("simulate", "-n", "3", interval=None)
    assert done.returncode == 0 and done.stderr == ""


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=40), st.floats(allow_nan=True).map(repr),
                 st.integers().map(str)))
def test_any_progress_interval_is_a_number_or_one_usage_error(text: str) -> None:
    try:
        value = progress_interval({"LC_PROGRESS_INTERVAL": text})
    except typer.Exit as exit_:
        assert exit_.exit_code == 2
        return
    assert math.isfinite(value) and 0 <= value < 10 ** 9


@pytest.mark.parametrize("text, value", [("", 15.0), ("  ", 15.0), ("30", 30.0), ("1e3", 1000.0)])
def test_progress_interval_examples(text: str, value: float) -> None:
    assert progress_interval({"LC_PROGRESS_INTERVAL": text}) == value
