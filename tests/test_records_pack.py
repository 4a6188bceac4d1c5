"""Records carry their pack (issue #13): a house pack's record replays on its own.

A record holds ``pack_sha256`` (the resolved rules' sha256) and, for a pack that is not
the built-in of its id, ``pack_data`` (the resolved pack itself). ``lc replay`` checks
the embedded pack like any pack file, refuses one that does not match its sha256, and
``--pack`` replaces it only with the same rules unless ``--force-pack``.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import random
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
from lostcities.engine.packs.loader import load_pack
from lostcities.engine.lab.records import dumps, embedded_pack, pack_sha256, record_form, replay
from lostcities.engine.lab.simulation import play_match

LC = str(Path(sys.executable).with_name("lc"))
HOUSE = "id: my-house\nextends: duel-classic\nturn: {turn_cap: 30}\n"
BOUND = 120  # seconds: generous, the machine is shared


def lc(*args: str, input: str | None = None):
    return CliRunner().invoke(app, list(args), input=input)


def lc_process(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([LC, *args], cwd=cwd, capture_output=True, text=True, timeout=BOUND,
                          env={**os.environ, **(env or {})})


def one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error: "), stderr
    return lines[0]


def sha(data) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@pytest.fixture(scope="module")
def house(tmp_path_factory):
    """A house pack file and one record of it (the file stays; tests copy what they need)."""
    folder = tmp_path_factory.mktemp("house")
    path = folder / "my-house.yaml"
    path.write_text(HOUSE)
    rules = load_pack(str(path))
    return path, rules, dumps(play_match(rules, [GreedyBot(), RandomBot()], 4))


def write(folder: Path, *lines: str, name: str = "games.jsonl") -> Path:
    path = folder / name
    path.write_text("".join(line + "\n" for line in lines))
    return path


# ------------------------------------------------------------ what a record holds

def test_a_house_packs_record_carries_the_resolved_pack_and_its_sha256(house):
    _path, rules, line = house
    record = json.loads(line)
    assert record["pack"] == "my-house"
    assert record["pack_data"] == record_form(rules.data)  # resolved, in the record's form
    assert "extends" not in record["pack_data"]
    assert record["pack_data"]["turn"]["turn_cap"] == 30
    assert record["pack_data"]["deck"] == load_pack("duel-classic").data["deck"]
    assert record["pack_sha256"] == sha(record_form(rules.data)) == pack_sha256(rules)
    # the record's form is the 0.1 words, and it loads back into the same rules
    assert record["pack_data"]["turn"]["no_retake_discard"] is True
    assert "wagers" not in record["pack_data"]
    assert embedded_pack(record).data == rules.data


def test_a_builtin_packs_record_names_it_with_its_sha256_only():
    record = json.loads(dumps(play_match(load_pack("board-short"), [RandomBot()] * 2, 1)))
    assert record["pack"] == "board-short" and "pack_data" not in record
    assert record["pack_sha256"] == sha(record_form(load_pack("board-short").data))


def test_a_pack_with_a_builtin_id_but_other_rules_is_carried(tmp_path):
    # a house file may say `id: duel-classic`: its record must not replay as the built-in
    data = copy.deepcopy(load_pack("duel-classic").data)
    data["turn"]["turn_cap"] = 30
    path = tmp_path / "mine.yaml"
    path.write_text(json.dumps(data))  # a whole pack, extending nothing
    rules = load_pack(str(path))
    line = dumps(play_match(rules, [RandomBot()] * 2, 2))
    record = json.loads(line)
    assert record["pack"] == "duel-classic" and record["pack_data"] == record_form(rules.data)
    path.unlink()
    assert replay(record).pack.turn_cap == 30


def test_the_pack_adds_a_few_kilobytes_to_a_line(house):
    _path, rules, line = house
    record = json.loads(line)
    pack_bytes = len(json.dumps(record["pack_data"], separators=(",", ":")))
    assert pack_bytes < 4096
    without = {k: v for k, v in record.items() if k not in ("pack_data", "pack_sha256")}
    assert len(line) - len(json.dumps(without, separators=(",", ":"))) < pack_bytes + 100


# ------------------------------------------------------------ replaying on its own

def test_lc_simulate_records_of_a_house_pack_replay_from_any_folder_without_the_file(tmp_path):
    made, elsewhere, temp = tmp_path / "made", tmp_path / "elsewhere", tmp_path / "temp"
    for folder in (made, elsewhere, temp):
        folder.mkdir()
    (made / "my-house.yaml").write_text(HOUSE)
    done = lc_process("simulate", "--pack", "my-house.yaml", "-n", "3", "--record",
                      "sim.jsonl", cwd=made)
    assert done.returncode == 0, done.stderr
    (made / "my-house.yaml").unlink()
    done = lc_process("replay", str(made / "sim.jsonl"), "--check", cwd=elsewhere,
                      env={"TMPDIR": str(temp)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("3 match(es) replayed, every move and score agrees\n")
    assert list(temp.iterdir()) == []  # the loader's temporary copy is gone
    done = lc_process("replay", str(made / "sim.jsonl"), "--game", "2", cwd=elsewhere)
    assert done.returncode == 0 and "Round 3 of 3" in done.stdout, done.stderr


def test_lc_play_records_of_a_house_pack_replay_from_any_folder_without_the_file(tmp_path):
    made, elsewhere, data = tmp_path / "made", tmp_path / "elsewhere", tmp_path / "data"
    made.mkdir()
    elsewhere.mkdir()
    (made / "my-house.yaml").write_text(HOUSE)
    done = subprocess.run([LC, "play", "--pack", "my-house.yaml", "--players",
                           "bot:random,bot:greedy", "--seed", "3", "--delay", "0"],
                          cwd=made, capture_output=True, text=True, timeout=BOUND,
                          stdin=subprocess.DEVNULL,
                          env={**os.environ, "LOSTCITIES_DATA_DIR": str(data)})
    assert done.returncode == 0, done.stderr
    records = list((data / "records").glob("*.jsonl"))
    assert len(records) == 1 and "Game record:" in done.stdout
    (made / "my-house.yaml").unlink()
    done = lc_process("replay", str(records[0]), "--check", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert "1 match(es) replayed" in done.stdout


def test_old_records_without_the_pack_fields_replay_as_before(tmp_path, house):
    path, _rules, line = house
    old = {k: v for k, v in json.loads(line).items() if k not in ("pack_data", "pack_sha256")}
    result = lc("replay", str(write(tmp_path, json.dumps(old))), "--check")
    assert result.exit_code == 1
    assert "is not a built-in pack" in one_error_line(result.stderr)
    result = lc("replay", str(write(tmp_path, json.dumps(old))), "--check", "--pack", str(path))
    assert result.exit_code == 0, result.stderr
    builtin = json.loads(dumps(play_match(load_pack("duel-classic"), [RandomBot()] * 2, 5)))
    del builtin["pack_sha256"]
    result = lc("replay", str(write(tmp_path, json.dumps(builtin))), "--check")
    assert result.exit_code == 0, result.stderr


# ------------------------------------------------------------ refusals, one line each

def refused(tmp_path: Path, record: dict, *args: str) -> str:
    result = lc("replay", str(write(tmp_path, json.dumps(record))), "--check", *args)
    assert result.exit_code == 1, (result.stdout, result.stderr)
    return one_error_line(result.stderr)


def test_an_embedded_pack_changed_after_writing_is_refused(tmp_path, house):
    record = json.loads(house[2])
    record["pack_data"]["turn"]["turn_cap"] = 31
    text = refused(tmp_path, record)
    assert "games.jsonl:1: pack_data: does not match pack_sha256" in text
    del record["pack_sha256"]
    assert "comes with its pack_sha256" in refused(tmp_path, record)


def test_an_embedded_pack_is_checked_like_any_pack_file(tmp_path, house):
    record = json.loads(house[2])
    bad = copy.deepcopy(record)
    bad["pack_data"]["turn"]["turn_capp"] = 3  # a typo key, sha256 recomputed
    bad["pack_sha256"] = sha(bad["pack_data"])
    text = refused(tmp_path, bad)
    assert "games.jsonl:1: pack_data: error LC030" in text
    assert "lc-record-pack" not in text and "pack.yaml" not in text
    costly = copy.deepcopy(record)  # a formula too costly is refused at load (LC109)
    costly["pack_data"]["scoring"]["round"] = " + ".join(["sum(expeditions)"] * 4000)
    costly["pack_sha256"] = sha(costly["pack_data"])
    text = refused(tmp_path, costly)
    assert "games.jsonl:1: pack_data: error LC1" in text and len(text) < 600
    other = copy.deepcopy(record)
    other["pack_data"]["id"] = "other"
    other["pack_sha256"] = sha(other["pack_data"])
    assert "its id is 'other', the record's pack is 'my-house'" in refused(tmp_path, other)


def test_an_embedded_pack_missing_a_required_key_is_one_line(tmp_path, house):
    # found by the fuzz test below: the loader raised KeyError('hand_size')
    record = json.loads(house[2])
    del record["pack_data"]["hand_size"]
    record["pack_sha256"] = sha(record["pack_data"])
    text = refused(tmp_path, record)
    assert "games.jsonl:1: pack_data: " in text


def test_an_embedded_pack_never_makes_lc_read_a_file(tmp_path, house):
    secret = tmp_path / "secret.yaml"
    secret.write_text("id: s\nextends: duel-classic\ntoken: gho_SECRET_IN_HAND\n")
    for target in (str(secret), "secret.yaml", "duel-classic"):
        record = json.loads(house[2])
        record["pack_data"]["extends"] = target
        record["pack_sha256"] = sha(record["pack_data"])
        text = refused(tmp_path, record)
        assert "has no extends" in text and "gho_SECRET" not in text


def test_a_pack_given_with_other_rules_is_refused_unless_forced(tmp_path, house):
    path, _rules, line = house
    other = tmp_path / "my-house.yaml"
    other.write_text(HOUSE + "description: the same game, described\n")
    games = write(tmp_path, line)
    result = lc("replay", str(games), "--check", "--pack", str(other))
    assert result.exit_code == 1
    text = one_error_line(result.stderr)
    assert "the pack given has other rules than the record's pack 'my-house'" in text
    assert "content differs" in text and "--force-pack" in text
    result = lc("replay", str(games), "--check", "--pack", str(other), "--force-pack")
    assert result.exit_code == 0, result.stderr
    result = lc("replay", str(games), "--check", "--pack", str(path))  # the same rules
    assert result.exit_code == 0, result.stderr
    result = lc("replay", str(games), "--check", "--force-pack")
    assert result.exit_code == 2 and "--force-pack is for --pack" in one_error_line(
        result.stderr)


def test_a_builtin_whose_rules_changed_since_the_record_is_said(tmp_path):
    record = json.loads(dumps(play_match(load_pack("duel-classic"), [RandomBot()] * 2, 6)))
    record["pack_sha256"] = "0" * 64  # as if written by a lostcities with other rules
    text = refused(tmp_path, record)
    assert "built-in pack 'duel-classic' has other rules than when the record was written" \
        in text and "--pack duel-classic --force-pack" in text
    result = lc("replay", str(write(tmp_path, json.dumps(record))), "--check", "--pack",
                "duel-classic", "--force-pack")
    assert result.exit_code == 0, result.stderr


def test_the_library_refuses_with_record_errors(house):
    record = json.loads(house[2])
    record["pack_data"]["deck"] = "sixty cards"
    record["pack_sha256"] = sha(record["pack_data"])
    with pytest.raises(RecordError, match=r"^games:3: pack_data: error LC032"):
        replay(record, where="games:3")


@settings(max_examples=40, deadline=None)
@given(text=st.text(max_size=40))
def test_any_text_of_an_embedded_pack_survives_the_loader_exactly(house, text):
    record = json.loads(house[2])
    record["pack_data"]["description"] = text
    record["pack_data"]["deck"]["colours"][0]["name"] = text or "x"
    record["pack_sha256"] = sha(record["pack_data"])
    try:
        rules = embedded_pack(record, "r")
    except RecordError as err:  # a lone surrogate is refused, as in a pack file
        assert any(0xD800 <= ord(c) <= 0xDFFF for c in text), err
        return
    assert rules.description == text and rules.colours[0].name == (text or "x")


# ------------------------------------------------------------ the fuzz test

HOSTILE = [None, True, -1, 0, 10 ** 30, 1.5, "", "x", "[/bold]", "\x1b]0;t\x07", "\x85",
           "../../etc/passwd", [], {}, [[[[]]]], "9" * 70, {"extends": "duel-classic"},
           "sum(expeditions) * 1000000000000", "\ud800"]


def mutate_pack(record: dict, rng: random.Random) -> dict:
    """The record with one to three values of its pack_data changed; its sha256 made to
    match most of the time, so that the pack's own checks are reached."""
    record = copy.deepcopy(record)
    for _ in range(rng.randint(1, 3)):
        holders = [(record, "pack_data"), *fz.value_holders(record["pack_data"])]
        container, key = rng.choice(holders)
        value = container[key]
        choice = rng.random()
        if choice < 0.3 and isinstance(value, int) and not isinstance(value, bool):
            container[key] = value + rng.choice((-1, 1, 7, -100, 10 ** 6))
        elif choice < 0.45 and isinstance(container, dict) and container is not record:
            del container[key]
        else:
            container[key] = copy.deepcopy(rng.choice(HOSTILE))
    if rng.random() < 0.8:
        record["pack_sha256"] = sha(record["pack_data"])
    return record


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(rng=st.randoms(use_true_random=False))
def test_mutated_embedded_packs_get_one_line_and_never_a_traceback(tmp_path, house, rng):
    path = tmp_path / "fuzz.jsonl"
    path.write_text(json.dumps(mutate_pack(json.loads(house[2]), rng)) + "\n")
    result = CliRunner().invoke(app, ["replay", str(path), "--check"])
    assert result.exit_code in (0, 1), (result.exception, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    if result.exit_code:
        text = one_error_line(result.stderr)
        assert len(text) < 1000 and "\x1b" not in text and "lc-record-pack" not in text
    else:
        assert "agrees" in result.stdout
