"""Hostile records (issue #12): what lc replay reads is bounded, and every claim is checked.

Items 5, 6, 8, 12 and 13 for records: a device, a FIFO, a folder, an over-long name,
an endless line, deep JSON, a 5,000-digit seed; winners, totals and seed claims that
the replay does not derive; a record's ``pack`` naming a file. Each gets one line,
exit 1 (the record) or 2 (the path); a fuzz test throws mutated records at it.
"""
from __future__ import annotations

import copy
import json
import os
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import fuzz_support as fz
from lostcities.cli.app import app
from lostcities.engine.bots.base import GreedyBot, RandomBot
from lostcities.engine.errors import RecordError
from lostcities.engine.packs.loader import builtin_path
from lostcities.engine.lab.records import dumps, replay
from lostcities.engine.lab.simulation import game_seed, play_match

LC = Path(sys.executable).with_name("lc")


def _limits() -> None:  # a regression must fail, not eat the machine's memory
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def lc_process(*args: str, stdin: bytes | None = None, cwd: Path | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the installed ``lc`` (a hang or a runaway read fails instead of blocking)."""
    return subprocess.run([str(LC), *args], input=stdin, capture_output=True, timeout=timeout,
                          preexec_fn=_limits, cwd=cwd)


def lc(*args: str, input: str | None = None):
    return CliRunner().invoke(app, list(args), input=input)


def one_error_line(stderr: str) -> str:
    """The single ``lc: error:`` line of ``stderr`` (asserting there is exactly one)."""
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error: "), stderr
    return lines[0]


@pytest.fixture(scope="module")
def line() -> str:
    """One record line as lc simulate writes it (with its simulation claim)."""
    state = play_match(builtin_pack(), [GreedyBot(), RandomBot()], game_seed(7, 2))
    return dumps(state, simulation={"seed": 7, "game": 2, "bots": ["greedy", "random"]})


def builtin_pack():
    from lostcities.engine.packs.loader import load_pack

    return load_pack("duel-classic")


def write(tmp_path: Path, *lines: str, name: str = "games.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(text + "\n" for text in lines))
    return path


# ------------------------------------------------------------ item 8: what is read

def test_replay_refuses_what_is_not_a_regular_file_in_one_line(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)  # opening it for reading used to block for ever
    cases = [("/dev/zero", "is a device"), (str(fifo), "is a pipe"),
             (str(tmp_path), "is a directory"), (str(tmp_path / "none.jsonl"), "no such file"),
             ("x" * 300, "longer than 255 bytes")]
    for path, message in cases:
        done = lc_process("replay", path, "--check")
        assert done.returncode == 2, (path, done.stderr)
        assert message in one_error_line(done.stderr.decode()), path


def test_standard_input_still_works_and_its_lines_are_capped(line):
    done = lc_process("replay", "-", "--check", stdin=(line + "\n").encode())
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith("<stdin>: 1 match(es) replayed")
    endless = b"\0" * (5 << 20)  # /dev/zero through a pipe: no line end, ever
    done = lc_process("replay", "-", "--check", stdin=endless)
    assert done.returncode == 1
    assert "<stdin>:1: a line longer than" in one_error_line(done.stderr.decode())


@pytest.mark.parametrize("text, message", [
    ("[" * 100_000 + "]" * 100_000, "nested deeper than"),
    ('{"format": "lostcities-record/1", "seed": ' + "9" * 5000 + "}", "a number of 5,000"),
    ('{"format": "lostcities-record/1", "seed": NaN}', "NaN is not a number JSON allows"),
])
def test_deep_json_and_long_numbers_are_one_line(tmp_path, text, message):
    result = lc("replay", str(write(tmp_path, text)), "--check")
    assert result.exit_code == 1, result.stderr
    assert message in one_error_line(result.stderr)


# ------------------------------------------------------------ item 12: every claim

def claims(line: str, change) -> dict:
    record = json.loads(line)
    change(record)
    return record


def other_seats(record: dict) -> list[int]:
    return [s for s in range(len(record["players"])) if s not in record["winners"]] or [0]


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(winners=other_seats(r)), "winners are seats"),
    (lambda r: r.update(totals=list(reversed(r["totals"]))), "totals are"),
    (lambda r: r.update(seed=r["seed"] + 1), "but simulation seed 7 game 2 plays seed"),
    (lambda r: (r.pop("simulation"), r.update(seed=r["seed"] + 1)),
     "round 1: hands[0] is not what seed"),
    (lambda r: r["simulation"].update(game=3), "but simulation seed 7 game 3 plays seed"),
    (lambda r: r["rounds"][2]["draw_pile"].reverse(), "round 3: draw_pile is not what seed"),
])
def test_replay_check_compares_every_claim(tmp_path, line, change, message):
    record = claims(line, change)
    with pytest.raises(RecordError, match=r"^games\.jsonl:1: "):
        replay(record, where="games.jsonl:1")
    result = lc("replay", str(write(tmp_path, json.dumps(record))), "--check")
    assert result.exit_code == 1
    assert message in one_error_line(result.stderr)


def test_the_issues_winner_at_minus_115_against_minus_61_does_not_agree(tmp_path, line):
    # the issue's record: seat 1 claimed the win with the lower total
    record = json.loads(line)
    loser = min(range(2), key=lambda s: record["totals"][s])
    if record["totals"][0] == record["totals"][1]:
        pytest.skip("a shared win")
    record["winners"] = [loser]
    result = lc("replay", str(write(tmp_path, json.dumps(record))), "--check")
    assert result.exit_code == 1 and "winners are seats" in one_error_line(result.stderr)
    assert "agrees" not in result.stdout


# ------------------------------------------------------------ item 13: the record's pack

def test_a_records_pack_never_opens_nor_echoes_a_file(tmp_path, line):
    secret = tmp_path / "secret.yaml"
    secret.write_text("id: duel-classic\ntoken: [gho_SECRET_IN_HAND\n")
    for name in (str(secret), "secret.yaml", "../secret", "Duel-Classic", "duel-classic\n",
                 "x" * 5000):
        record = json.loads(line)
        record["pack"] = name
        result = CliRunner().invoke(app, ["replay", str(write(tmp_path, json.dumps(record))),
                                          "--check"])
        assert result.exit_code == 1, name
        text = one_error_line(result.stderr)
        assert "is not a built-in pack" in text and "gho_SECRET" not in text, name
        assert len(text) < 400


def test_a_pack_file_given_on_the_command_line_is_used(tmp_path):
    from lostcities.engine.packs.loader import load_pack

    house = tmp_path / "short.yaml"
    house.write_text("id: short\nextends: duel-classic\nturn: {turn_cap: 30}\n")
    state = play_match(load_pack(str(house)), [RandomBot(), RandomBot()], 4)
    old = {k: v for k, v in json.loads(dumps(state)).items()
           if k not in ("pack_data", "pack_sha256")}  # a record written before they existed
    path = write(tmp_path, json.dumps(old))
    assert lc("replay", str(path), "--check").exit_code == 1  # 'short' is no built-in
    result = lc("replay", str(path), "--check", "--pack", str(house))
    assert result.exit_code == 0, result.stderr
    path = write(tmp_path, dumps(state), name="new.jsonl")  # carries its pack
    result = lc("replay", str(path), "--check", "--pack", str(house))
    assert result.exit_code == 0, result.stderr


def test_builtin_ids_are_the_only_pack_names_a_record_may_hold():
    assert builtin_path("duel-classic") is not None
    for name in ("../duel-classic", "/etc/passwd", "duel-classic.yaml", ""):
        assert builtin_path(name) is None


# ------------------------------------------------------------ the fuzz test

HOSTILE = [None, True, -1, 0, 10 ** 30, 2 ** 63, 1.5, "", "x", "[/bold]", "\x1b]0;title\x07",
           "r5", "deck", [], {}, [[[[]]]], "9" * 70, ["r5"] * 3, {"track": "y"}]


def mutate(record: dict, rng: random.Random) -> str:
    """One record line, changed in one to three random places (or cut short)."""
    record = copy.deepcopy(record)
    for _ in range(rng.randint(1, 3)):
        container, key = rng.choice(fz.value_holders(record))
        value = container[key]
        choice = rng.random()
        if choice < 0.3 and isinstance(value, int) and not isinstance(value, bool):
            container[key] = value + rng.choice((-1, 1, 7, -100))
        elif choice < 0.45 and isinstance(container, dict):
            del container[key]
        elif choice < 0.55 and isinstance(value, list) and value:
            rng.shuffle(value)
        else:
            container[key] = copy.deepcopy(rng.choice(HOSTILE))
    text = json.dumps(record)
    if rng.random() < 0.1:
        text = text[:rng.randrange(len(text))]
    return text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(rng=st.randoms(use_true_random=False))
def test_mutated_records_get_one_line_and_exit_0_1_or_2(tmp_path, line, rng):
    path = tmp_path / "fuzz.jsonl"
    path.write_text(mutate(json.loads(line), rng) + "\n")
    result = CliRunner().invoke(app, ["replay", str(path), "--check"])
    assert result.exit_code in (0, 1, 2), result.exception
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    if result.exit_code:
        one_error_line(result.stderr)
    else:
        assert "agrees" in result.stdout
