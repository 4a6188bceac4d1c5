"""Hostile command lines (issue #12): one line for every option error, safe output files,
bounded workers and counts, and lc validate that never loses a report nor claims "all valid"
after an error.

Items 6, 9, 11 (workers), 14 and the batched lc validate; each test asserts the exit
code, exactly one ``lc: error:`` line on stderr and no traceback.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from enginehelpers import one_error_line
from lostcities.cli.app import app
from lostcities.engine.lab.backends import (MAX_BATCHES, BackendError, OVERSUBSCRIBE_PER_CORE,
                                        batch_size, batches, cores)
from lostcities.engine.lab.simulation import simulate

LC = Path(sys.executable).with_name("lc")
LONG = "n" * 300  # one name longer than any file system holds


def lc(*args: str, input: str | None = None):
    return CliRunner().invoke(app, list(args), input=input)


def lc_process(*args: str, cwd: Path | None = None, timeout: float = 120, fsize: int = 0,
               env: dict | None = None) -> subprocess.CompletedProcess:
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        if fsize:  # files larger than this cannot be written: EFBIG, as a full disk would
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run([str(LC), *args], capture_output=True, timeout=timeout, cwd=cwd,
                          preexec_fn=limits, env=None if env is None else {**os.environ, **env},
                          text=True)


# ------------------------------------------------------------ item 14: option errors

@pytest.mark.parametrize("args, message", [
    (["simulate", "--games", "x"], "Invalid value for '--games'"),
    (["simulate", "--frobnicate"], "No such option: --frobnicate"),
    (["replay"], "Missing argument 'FILE'"),
    (["validate"], "Missing argument"),
    (["no-such-command"], "No such command"),
    (["simulate", "--seed", "1" * 30], "a seed of 30 digits; at most 20"),
    (["balance", "duel-classic", "--seed", "-" + "9" * 25], "at most 20"),
    (["simulate", "--games", "9" * 5000], "Invalid value for '--games'"),
    (["simulate", "--games", str(10 ** 13)], "Invalid value for '--games'"),
    (["replay", "--game", "0", "x.jsonl"], "Invalid value for '--game'"),
])
def test_an_option_error_is_one_line_exit_2(args, message):
    result = lc(*args)
    assert result.exit_code == 2, result.output
    text = one_error_line(result.stderr)
    assert message in text and text.endswith("--help)") and "Usage:" not in result.output
    assert len(text) < 500  # a 5,000-digit value is not echoed whole


def test_the_installed_command_gives_the_same_one_line():
    done = lc_process("simulate", "--games", "x")
    assert done.returncode == 2
    text = one_error_line(done.stderr)
    assert text.startswith("lc: error: Invalid value for '--games' / '-n': ")
    assert text.endswith(" (lc simulate --help)")
    assert done.stdout == ""


def test_help_version_exit_codes_and_completion_still_behave():
    result = lc("simulate", "--help")
    assert result.exit_code == 0 and result.stdout.startswith("Usage: lc simulate")
    assert "--oversubscribe" in result.stdout and "--append" in result.stdout
    result = lc("--version")
    assert result.exit_code == 0 and result.stdout.startswith("lc (lostcities)")
    assert lc().exit_code == 2 and "Usage: lc" in lc().output  # lc alone: the help
    assert lc("validate", "duel-classic").exit_code == 0
    assert lc("replay", "/nonexistent/x.jsonl").exit_code == 2  # a typer.Exit code passes
    done = lc_process(env={"_LC_COMPLETE": "complete_bash", "COMP_WORDS": "lc simulate --pack duel-cl",
                           "COMP_CWORD": "3"})
    assert done.returncode == 0 and "duel-classic" in done.stdout.split()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=st.lists(st.sampled_from(
    ["simulate", "replay", "validate", "balance", "--games", "-n", "--seed", "--workers", "-w",
     "--record", "--pack", "--bogus", "x", "-1", "0", "9" * 60, "", "--json", "--force",
     "--append", "--oversubscribe", "--game", "--check", "\x1b[2J", "[/bold]"]),
    min_size=1, max_size=5))
def test_fuzzed_command_lines_exit_0_1_or_2_with_one_line(tmp_path_factory, args):
    if args[0] == "simulate" and "-n" not in args and "--games" not in args:
        args = [*args, "-n", "1"]
    if args[0] == "balance":
        args = [*args, "-n", "1", "-b", "random,random", "-w", "1"]
    cwd = tmp_path_factory.mktemp("fuzz")
    old = os.getcwd()
    os.chdir(cwd)  # a --record x lands here
    try:
        result = lc(*args)
    finally:
        os.chdir(old)
    assert result.exit_code in (0, 1, 2), (args, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        (args, repr(result.exception))
    if args[0] == "validate" and result.exit_code:  # a line per path, then the summary
        assert "Traceback" not in result.output
        assert all(line.startswith("lc: error: ") or " checked, " in line
                   for line in result.stderr.splitlines()), result.stderr
    elif result.exit_code and "Usage:" not in result.stderr:  # the help for `lc CMD` alone
        one_error_line(result.stderr)
    assert "\x1b" not in result.stderr


def test_ctrl_c_exits_130_and_leaves_no_file(tmp_path):
    out = tmp_path / "games.jsonl"
    proc = subprocess.Popen([str(LC), "simulate", "-n", "1000000", "--record", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not any(p.name.endswith(".tmp") and p.stat().st_size for p in tmp_path.iterdir()):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # neither the records nor the temporary file


# ------------------------------------------------------------ item 9: --record

def test_record_onto_a_device_or_a_folder_is_refused(tmp_path):
    for target, message in (("/dev/full", "is a device, not a regular file"),
                            (str(tmp_path), "is a folder"),
                            (LONG, "longer than 255 bytes"),
                            (str(tmp_path / "no" / "x.jsonl"), "cannot write")):
        result = lc("simulate", "-n", "1", "--record", target)
        assert result.exit_code == 2, target
        assert message in one_error_line(result.stderr), target


def test_a_full_disk_leaves_no_half_written_file(tmp_path):
    done = lc_process("simulate", "-n", "200", "--record", "games.jsonl", cwd=tmp_path,
                      fsize=50_000)
    assert done.returncode == 1
    text = one_error_line(done.stderr)
    assert "--record games.jsonl: cannot write: File too large; nothing was kept" in text
    assert list(tmp_path.iterdir()) == [] and "records:" not in done.stdout


def test_an_existing_file_is_kept_unless_append_or_force(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text("my notes\n")
    result = lc("simulate", "-n", "2", "--record", str(path))
    assert result.exit_code == 2 and "already exists" in one_error_line(result.stderr)
    assert path.read_text() == "my notes\n"
    path.unlink()
    assert lc("simulate", "-n", "2", "--record", str(path)).exit_code == 0
    assert lc("simulate", "-n", "3", "-s", "1", "--record", str(path), "--append").exit_code == 0
    assert len(path.read_text().splitlines()) == 5
    check = lc("replay", str(path), "--check")
    assert check.exit_code == 0 and "5 match(es)" in check.stdout
    assert lc("simulate", "-n", "1", "--record", str(path), "--force").exit_code == 0
    assert len(path.read_text().splitlines()) == 1
    for args in (["--append"], ["--force"], ["--record", str(path), "--append", "--force"]):
        result = lc("simulate", "-n", "1", *args)
        assert result.exit_code == 2 and one_error_line(result.stderr)


def test_records_to_standard_output_pipe_into_replay():
    result = lc("simulate", "-n", "3", "--record", "-")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and all(line.startswith('{"format"') for line in lines)
    assert "records: standard output (3 lines)" in result.stderr
    check = lc("replay", "-", "--check", input=result.stdout)
    assert check.exit_code == 0 and "3 match(es)" in check.stdout


# ------------------------------------------------------------ item 11: workers and counts

def test_workers_beyond_the_cores_need_oversubscribe():
    many = cores() * OVERSUBSCRIBE_PER_CORE
    for command in (["simulate", "-n", "1"], ["balance", "duel-classic", "-n", "1"]):
        result = lc(*command, "--workers", "1000")
        assert result.exit_code == 2
        assert f"give at most {cores()}, or add --oversubscribe" in one_error_line(result.stderr)
        result = lc(*command, "--workers", str(many + 1), "--oversubscribe")
        assert result.exit_code == 2 and f"at most {many}" in one_error_line(result.stderr)
    assert lc("simulate", "-n", "2", "-w", str(cores() + 1), "--oversubscribe").exit_code == 0
    with pytest.raises(BackendError, match="at most"):
        simulate("duel-classic", ["random", "random"], 1, workers=1000)


def test_a_huge_run_has_a_bounded_number_of_batches():
    assert batch_size(1000) == 25 and batch_size(100_000) == 200  # unchanged below 20 M
    assert len(batches(10 ** 9, batch_size(10 ** 9))) <= MAX_BATCHES


# ------------------------------------------------------------ item 6: long paths

def test_a_300_character_path_is_one_line_exit_2(tmp_path):
    for args in (["validate", LONG], ["replay", LONG], ["simulate", "-n", "1", "--record", LONG],
                 ["balance", "duel-classic", "-n", "1", "--resume", LONG],
                 ["balance", "duel-classic", "-n", "1", "--resume", str(tmp_path / LONG)]):
        result = lc(*args)
        assert result.exit_code == 2, args
        assert "longer than 255 bytes" in one_error_line(result.stderr), args


# ------------------------------------------------------------ item 5: run folders

def test_run_folder_files_are_bounded_and_a_tampered_batch_plays_again(tmp_path):
    args = ["balance", "duel-classic", "-n", "10", "-b", "random,random", "-w", "1", "--json"]
    first = lc(*args, "--resume", str(tmp_path / "run"))
    assert first.exit_code == 0
    batch = sorted((tmp_path / "run").glob("batch-*.json"))[0]
    for text in ('{"games": "x"}', "[" * 10_000, '{"games": ' + "9" * 5000 + "}"):
        batch.write_text(text)
        again = lc(*args, "--resume", str(tmp_path / "run"))
        assert again.exit_code == 0 and json.loads(again.stdout) == json.loads(first.stdout)
    (tmp_path / "run" / "run.json").write_text("[" * 10_000)
    result = lc(*args, "--resume", str(tmp_path / "run"))
    assert result.exit_code == 2 and "nested deeper" in one_error_line(result.stderr)
    (tmp_path / "run" / "run.json").unlink()
    (tmp_path / "run" / "run.json").symlink_to("/dev/zero")
    result = lc(*args, "--resume", str(tmp_path / "run"))
    assert result.exit_code == 2 and "is a device" in one_error_line(result.stderr)


# ------------------------------------------------------------ item 14: lc validate

@pytest.mark.parametrize("target, message", [
    ("", "an empty path"),
    ("/dev/zero", "is a device, not a pack file"),
    ("none.yaml", "none.yaml: no such file, folder or built-in pack"),
    (LONG, "longer than 255 bytes"),
])
def test_validate_refuses_a_bad_path_and_never_claims_all_valid(target, message):
    result = lc("validate", target)
    assert result.exit_code == 2
    assert message in one_error_line(result.stderr) and "all valid" not in result.output
    result = lc("validate", target, "duel-classic")
    assert result.exit_code == 2 and "all valid" not in result.output
    assert "1 pack checked, no problems in it; 1 path could not be used" in result.stderr


def test_validate_a_fifo_does_not_block(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    done = lc_process("validate", str(tmp_path / "pipe.yaml"))
    assert done.returncode == 2 and "is a pipe (FIFO)" in one_error_line(done.stderr)


def test_one_bad_pack_never_loses_the_report_of_the_others(tmp_path, monkeypatch):
    huge = tmp_path / "huge.yaml"
    huge.write_text(f"id: huge\nextends: duel-classic\nmatch: {{rounds: {'9' * 5000}}}\n")
    result = lc("validate", str(huge), "duel-classic")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "2 packs checked, 1 with problems" in result.stderr
    import lostcities.cli.validate as command  # lc validate calls the public validate_pack

    real = command.validate_pack

    def crash(source, **options):  # a bug in the checks: one line naming the file, the batch goes on
        if "huge" in str(source):
            raise RuntimeError("boom\nsecond line")
        return real(source, **options)

    monkeypatch.setattr(command, "validate_pack", crash)
    result = lc("validate", str(huge), "duel-classic")
    assert result.exit_code == 1 and "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("lc: error:")]
    assert errors == [f"lc: error: {huge}: internal error while checking it: RuntimeError: "
                      f"boom second line"]
    assert "1 pack checked, no problems in it; 1 pack could not be checked" in result.stderr
