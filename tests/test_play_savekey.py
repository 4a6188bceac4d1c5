"""Signed saves: a save carries an HMAC-SHA256 of its content under a per-user key in the
data directory, so an unedited save of ours resumes without deriving the bot moves again,
while an edited, unsigned or foreign save takes the slow check (and is signed again when
it passes). The key file is made once, exclusively, mode 0600, and a file there that
cannot be the key is replaced or refused, never trusted."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.cli.session import (BOT, HUMAN, SAVE_KEY_BYTES, Player, Session, SessionError,
                                    load_save_key, save_key_path, save_mac, signed_by)
from lostcities.engine import RecordError
from lostcities.engine.packs.loader import load_pack
from lostcities.engine.game.turn import legal_moves

CLASSIC = load_pack("duel-classic")
VS_GREEDY = [Player(HUMAN, "You"), Player(BOT, "greedy", "greedy")]
KEY_A, KEY_B = b"a" * SAVE_KEY_BYTES, b"b" * SAVE_KEY_BYTES
PLAIN_ENV = {"LANG": "C.UTF-8", "LC_ALL": None, "LC_MESSAGES": None, "COLUMNS": None}


def played(path: Path, key: bytes | None, turns: int = 10) -> Session:
    s = Session(CLASSIC, VS_GREEDY, 4, save_path=path, key=key)
    for _ in range(turns):
        if s.to_move.kind == BOT:
            s.play_bot()
        else:
            s.command("1")
    return s


# --------------------------------------------------------------------------- the fast path

def test_an_unedited_save_resumes_without_deriving_the_bot_moves(tmp_path, bot_calls):
    s = played(tmp_path / "g.json", KEY_A)
    assert signed_by(json.loads((tmp_path / "g.json").read_text()), KEY_A)
    bot_calls.clear()
    back = Session.load(tmp_path / "g.json", key=KEY_A)
    assert bot_calls == [] and back.checked_by == "key"
    assert back.state.snapshot() == s.state.snapshot() and len(back.history) == 10


def test_the_slow_check_is_entered_only_without_a_good_mac(tmp_path):
    played(tmp_path / "g.json", KEY_A)
    entered: list[str] = []

    class Spinner:
        def __enter__(self):
            entered.append("in")

        def __exit__(self, *exc):
            return False

    Session.load(tmp_path / "g.json", key=KEY_A, checking=Spinner)
    assert entered == []
    Session.load(tmp_path / "g.json", key=KEY_B, checking=Spinner)
    assert entered == ["in"]


def test_a_signed_save_still_has_its_moves_checked_by_the_engine(tmp_path):
    """The MAC skips only the bots' re-derivation: a move the rules refuse is refused."""
    s = played(tmp_path / "g.json", KEY_A)
    data = s.to_dict()
    data["moves"][0] = "p r99 deck"
    data["mac"] = save_mac(data, KEY_A)  # as if signed with the key
    (tmp_path / "g.json").write_text(json.dumps(data))
    with pytest.raises(RecordError, match=r"move 1 \(round 1\)"):
        Session.load(tmp_path / "g.json", key=KEY_A)


# --------------------------------------------------------------------------- the slow path

def test_an_edited_save_is_derived_again_and_refused(tmp_path, bot_calls):
    s = played(tmp_path / "g.json", KEY_A)
    before, bot_move = s.history[1]
    other = next(m for m in legal_moves(before) if m != bot_move)
    data = json.loads((tmp_path / "g.json").read_text())
    data["moves"] = data["moves"][:1] + [other.text()]  # the mac kept: it no longer checks
    (tmp_path / "g.json").write_text(json.dumps(data))
    bot_calls.clear()
    with pytest.raises(RecordError, match="the save was edited"):
        Session.load(tmp_path / "g.json", key=KEY_A)
    assert bot_calls == [1]


@pytest.mark.parametrize("field, value", [("lang", "fr"), ("engine", "other"), ("extra", 1),
                                          ("mac", "0" * 64), ("mac", 7), ("mac", "é" * 64),
                                          ("mac", None)])
def test_any_change_to_a_signed_save_takes_the_slow_check(tmp_path, bot_calls, field, value):
    s = played(tmp_path / "g.json", KEY_A, turns=4)
    data = s.to_dict()
    data[field] = value
    (tmp_path / "g.json").write_text(json.dumps(data))
    bot_calls.clear()
    back = Session.load(tmp_path / "g.json", key=KEY_A)
    assert back.checked_by == "bots" and bot_calls == [1, 3]  # derived again


def test_a_save_from_another_machine_is_derived_again_then_signed_with_ours(tmp_path,
                                                                            bot_calls):
    s = played(tmp_path / "g.json", KEY_A)
    bot_calls.clear()
    back = Session.load(tmp_path / "g.json", key=KEY_B)   # another user's key
    assert back.checked_by == "bots" and bot_calls == [i for i, (state, _) in
                                                       enumerate(s.history)
                                                       if s.players[state.to_move].kind == BOT]
    assert back.state.snapshot() == s.state.snapshot()
    back.autosave_or_fail()                                # lc play saves at once on resume
    assert signed_by(json.loads((tmp_path / "g.json").read_text()), KEY_B)
    bot_calls.clear()
    assert Session.load(tmp_path / "g.json", key=KEY_B).checked_by == "key"
    assert bot_calls == []


def test_an_unsigned_save_and_no_key_take_the_slow_check(tmp_path, bot_calls):
    played(tmp_path / "old.json", None)  # a save written before saves were signed
    assert "mac" not in json.loads((tmp_path / "old.json").read_text())
    bot_calls.clear()
    assert Session.load(tmp_path / "old.json", key=KEY_A).checked_by == "bots" and bot_calls
    played(tmp_path / "new.json", KEY_A)
    bot_calls.clear()
    assert Session.load(tmp_path / "new.json").checked_by == "bots" and bot_calls


def test_the_mac_covers_the_canonical_content():
    content = {"format": "lostcities-save/1", "seed": 1, "moves": ["p r5 deck"], "x": "é\ud800"}
    mac = save_mac(content, KEY_A)
    assert len(mac) == 64 and mac == save_mac(dict(reversed(content.items())), KEY_A)
    assert mac == save_mac({**content, "mac": "anything"}, KEY_A)
    assert mac != save_mac({**content, "seed": 2}, KEY_A) != save_mac(content, KEY_B)


# --------------------------------------------------------------------------- the key file

def test_the_key_is_made_once_private_and_kept(tmp_path):
    data = tmp_path / "data"
    key = load_save_key(data)
    path = save_key_path(data)
    assert len(key) == SAVE_KEY_BYTES and path.read_bytes() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_save_key(data) == key
    assert not [p for p in data.iterdir() if p.name != "save.key"]  # no temporary file left


@pytest.mark.parametrize("content, mode", [(b"", 0o600), (b"short", 0o600),
                                           (b"x" * 33, 0o600), (b"k" * 32, 0o644),
                                           (b"k" * 32, 0o660)])
def test_a_key_file_of_ours_that_cannot_be_the_key_is_replaced(tmp_path, content, mode):
    path = save_key_path(tmp_path)
    path.write_bytes(content)
    path.chmod(mode)
    key = load_save_key(tmp_path)
    assert len(key) == SAVE_KEY_BYTES and key != content and path.read_bytes() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("kind", ["link", "dangling", "folder", "fifo"])
def test_a_key_file_that_is_not_ours_to_replace_is_refused_and_left(tmp_path, kind):
    path = save_key_path(tmp_path)
    target = tmp_path / "elsewhere"
    if kind == "link":
        target.write_bytes(b"k" * 32)
        target.chmod(0o600)
        path.symlink_to(target)
    elif kind == "dangling":
        path.symlink_to(target)
    elif kind == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    with pytest.raises(SessionError, match=r"the save key .*save\.key") as err:
        load_save_key(tmp_path)
    assert "\n" not in str(err.value)
    assert os.path.lexists(path) and (kind != "link" or target.read_bytes() == b"k" * 32)
    assert kind != "dangling" or not target.exists()


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=64), mode=st.sampled_from([0o600, 0o400, 0o644, 0o666]))
def test_fuzzed_key_files_give_a_private_key_of_32_bytes(tmp_path, content, mode):
    path = save_key_path(tmp_path)
    path.unlink(missing_ok=True)
    path.write_bytes(content)
    path.chmod(mode)
    key = load_save_key(tmp_path)
    assert len(key) == SAVE_KEY_BYTES and path.read_bytes() == key
    private = not mode & 0o077
    assert (key == content) == (len(content) == SAVE_KEY_BYTES and private)


# --------------------------------------------------------------------------- lc play

def test_lc_play_signs_its_saves_and_re_signs_a_foreign_one(tmp_path):
    data = tmp_path / "data"
    env = {**PLAIN_ENV, "LOSTCITIES_DATA_DIR": str(data)}
    save = tmp_path / "g.json"
    run = CliRunner().invoke(app, ["play", "--seed", "4", "--players", "human,bot:greedy",
                                   "--save", str(save)], input="1\n1\n", env=env)
    assert run.exit_code == 0, run.stderr
    key = save_key_path(data).read_bytes()
    assert signed_by(json.loads(save.read_text()), key)
    content = json.loads(save.read_text())
    content["mac"] = save_mac(content, KEY_B)          # signed on another machine
    save.write_text(json.dumps(content))
    run = CliRunner().invoke(app, ["play", "--resume", str(save)], input="", env=env)
    assert run.exit_code == 0, run.stderr
    assert signed_by(json.loads(save.read_text()), key)  # checked, then ours


def test_lc_play_without_a_usable_key_says_so_and_plays_on(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    save_key_path(data).mkdir()
    env = {**PLAIN_ENV, "LOSTCITIES_DATA_DIR": str(data)}
    save = tmp_path / "g.json"
    run = CliRunner().invoke(app, ["play", "--seed", "4", "--players", "human,bot:greedy",
                                   "--save", str(save)], input="1\n", env=env)
    assert run.exit_code == 0, run.stderr
    assert "Saves are not signed (the save key" in run.stdout
    assert "mac" not in json.loads(save.read_text())
