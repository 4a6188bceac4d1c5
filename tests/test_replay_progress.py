"""``lc replay --check`` of a long record file says how far it is when stderr is not a
terminal, as ``lc simulate`` does: one line every ``LC_PROGRESS_INTERVAL`` seconds, counting
the file's lines; none for standard input, one match (--game) or a quick run."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostcities.cli.replay import line_count

LC = Path(sys.executable).parent / "lc"
LINE = re.compile(r"^lc replay: [\d,]+/([\d,]+) lines, \S+ elapsed, ETA \S+$")
BOUND = 300


def lc(*args: str, interval: str = "0.001", stdin=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "LC_PROGRESS_INTERVAL": interval}
    return subprocess.run([str(LC), *args], env=env, capture_output=True, text=True,
                          timeout=BOUND, stdin=stdin)


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("records") / "records.jsonl"
    made = lc("simulate", "-n", "30", "-s", "3", "--record", str(path), interval="0")
    assert made.returncode == 0, made.stderr
    # a blank line counts as a line of the file, not as a record
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    return path


def test_replay_check_in_a_pipe_prints_progress_lines(records: Path) -> None:
    done = lc("replay", "--check", str(records))
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(LINE.match(line) for line in lines), lines[:3]
    assert {LINE.match(line).group(1) for line in lines} == {"31"}
    assert not any(line.startswith("lc replay: 31/") for line in lines)
    assert done.stdout == f"{records}: 30 match(es) replayed, every move and score agrees\n"


def test_no_progress_lines_by_default_from_stdin_or_for_one_match(records: Path) -> None:
    quiet = lc("replay", "--check", str(records), interval="")
    assert (quiet.returncode, quiet.stderr) == (0, "")
    with records.open("rb") as handle:
        piped = lc("replay", "--check", "-", stdin=handle)
    assert (piped.returncode, piped.stderr) == (0, "")
    assert piped.stdout.startswith("<stdin>: 30 match(es) replayed")
    one = lc("replay", "--check", "--game", "4", str(records))
    assert (one.returncode, one.stderr) == (0, "")


def test_a_bad_record_is_still_one_error_line(records: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(records.read_text(encoding="utf-8") + "[1]\n", encoding="utf-8")
    done = lc("replay", "--check", str(bad), interval="3600")
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("lc: error: ")
    assert "bad.jsonl:32" in done.stderr and "Traceback" not in done.stderr


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300), st.integers(1, 7))
def test_line_count_counts_the_lines_without_moving_the_stream(tmp_path_factory, data: bytes,
                                                                chunk: int) -> None:
    path = tmp_path_factory.mktemp("count") / "f.jsonl"
    path.write_bytes(data)
    with path.open("r", encoding="latin-1", newline="") as stream:
        stream.read(1)
        where = stream.tell()
        expected = data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))
        assert line_count(stream, chunk=chunk) == expected
        assert stream.tell() == where


def test_line_count_of_what_is_not_a_regular_file() -> None:
    assert line_count(io.StringIO("a\nb\n")) == 0
    assert line_count(sys.stdin) == 0
