"""Resuming a save lc play did not sign: the game is back at once, while every saved bot
move is derived again in another process (the check that refuses an edited save), with
progress lines on stderr in a pipe; nothing trusts the saved moves before that check
passed (no record, no signed save), and an edited save is still refused in one line."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lostcities.cli.session import (BOT, HUMAN, Player, Session, load_save_key,
                                    signed_by)
from lostcities.engine.game.turn import legal_moves
from lostcities.engine.packs.loader import load_pack

LC = str(Path(sys.executable).with_name("lc"))
CLASSIC = load_pack("duel-classic")
#: the slow bot: the search at its default level (0.2-0.3 s a move on the test machine)
SLOW = [Player(HUMAN, "You"), Player(BOT, "ismcts", "ismcts")]
GREEDY = [Player(HUMAN, "You"), Player(BOT, "greedy", "greedy")]
KEY = b"a" * 32
#: saved moves in the slow save (half of them the bot's)
MOVES = 36
#: a generous bound on anything the tests wait for (a loaded machine)
PATIENCE = 240.0


def unsigned_save(path: Path, players: list[Player], moves: int, seed: int = 3) -> Session:
    """A save written without a key (by an older lc play, or where no key could be made)."""
    s = Session(CLASSIC, players, seed, save_path=path)
    while len(s.history) < moves:
        s.play_bot() if s.to_move.kind == BOT else s.command("1")
    assert "mac" not in json.loads(path.read_text())
    return s


def start(args: list[str], data: Path, tmp_path: Path) -> tuple[subprocess.Popen, Path, Path]:
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "COLUMNS")}
    env.update(LANG="C.UTF-8", LOSTCITIES_DATA_DIR=str(data))
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    proc = subprocess.Popen([LC, "play", *args], stdin=subprocess.PIPE, stdout=out.open("w"),
                            stderr=err.open("w"), env=env, text=True)
    return proc, out, err


def wait_for(text: str, path: Path, proc: subprocess.Popen) -> float:
    """Seconds until ``text`` is in the file ``path`` (the process still running)."""
    began = time.monotonic()
    while text not in path.read_text():
        assert proc.poll() is None, path.read_text()[-2000:]
        assert time.monotonic() - began < PATIENCE, path.read_text()[-2000:]
        time.sleep(0.02)
    return time.monotonic() - began


@pytest.fixture(scope="module")
def slow_save(tmp_path_factory) -> tuple[Path, float]:
    """An unsigned save against the slow bot, and what deriving its bot moves costs (the
    check that lc play --resume made the player wait for before the first move)."""
    path = tmp_path_factory.mktemp("slow") / "slow.json"
    unsigned_save(path, SLOW, MOVES)
    began = time.monotonic()
    back = Session.load(path)
    assert back.checked_by == "bots"
    return path, time.monotonic() - began


def test_an_unsigned_save_is_back_at_once_and_checked_beside_the_game(slow_save, tmp_path):
    saved, derive = slow_save
    path = tmp_path / "game.json"
    path.write_bytes(saved.read_bytes())
    began = time.monotonic()
    proc, out, err = start(["--resume", str(path)], tmp_path / "data", tmp_path)
    wait_for("Your hand", out, proc)             # the table, waiting for the human's move
    back = time.monotonic() - began
    assert back < derive / 3, (back, derive)     # the whole process, startup included
    proc.stdin.write("quit\n")                   # leaving waits for the check
    proc.stdin.close()
    assert proc.wait(PATIENCE) == 0, err.read_text()
    lines = err.read_text().splitlines()
    progress = [line for line in lines if line.startswith("Checking the saved moves: ")]
    assert progress and all(line.endswith(f" of {MOVES}…") for line in progress), lines
    assert lines[-1] == f"The saved moves are checked: each bot move is the bot's own " \
                        f"(moves checked: {MOVES}).", lines
    assert f"derived again in the background while you play (moves to check: {MOVES})" \
        in out.read_text()
    assert "mac" in json.loads(path.read_text())  # checked, so signed: the next resume is quick


def test_ctrl_c_stops_the_check_and_the_save_says_where(slow_save, tmp_path):
    saved, _ = slow_save
    path = tmp_path / "game.json"
    path.write_bytes(saved.read_bytes())
    proc, out, err = start(["--resume", str(path)], tmp_path / "data", tmp_path)
    wait_for("Your hand", out, proc)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(PATIENCE) == 130, err.read_text()
    done = int(found(rf"The check of the saved moves stopped at (\d+) of {MOVES}; it goes on "
                     rf"from there when you resume\.", err.read_text()))
    data = json.loads(path.read_text())
    assert len(data["moves"]) == MOVES and data["unchecked"] == [done, MOVES]
    assert signed_by(data, load_save_key(tmp_path / "data"))   # so nobody else can shorten it


def test_a_stopped_check_goes_on_from_where_it_stopped(tmp_path, bot_calls):
    path = tmp_path / "g.json"
    unsigned_save(path, GREEDY, 12)
    bot_calls.clear()
    s = Session.load(path, key=KEY, check_bots_later=True)
    assert s.checked_by == "later" and s.unchecked.first == 0 and bot_calls == []
    s.checked_up_to(6)
    s.autosave()
    assert json.loads(path.read_text())["unchecked"] == [6, 12]
    again = Session.load(path, key=KEY)
    assert again.checked_by == "bots" and bot_calls == [7, 9, 11]   # greedy's moves after 6
    bot_calls.clear()
    assert Session.load(path, key=b"k" * 32).checked_by == "bots"   # another key: all again
    assert bot_calls == [1, 3, 5, 7, 9, 11]
    s.bots_checked()
    assert "unchecked" not in json.loads(path.read_text())
    bot_calls.clear()
    assert Session.load(path, key=KEY).checked_by == "key" and bot_calls == []


def test_an_undo_into_the_saved_moves_keeps_only_what_is_left_to_check(tmp_path):
    path = tmp_path / "g.json"
    unsigned_save(path, GREEDY, 12)
    s = Session.load(path, key=KEY, check_bots_later=True)
    s.checked_up_to(4)
    assert s.command("undo").kind == "undone" and len(s.history) == 10
    assert s.to_dict()["unchecked"] == [4, 10]
    for _ in range(3):
        s.command("undo")
    assert len(s.history) == 4 and "unchecked" not in s.to_dict()   # all checked before 4


def found(pattern: str, text: str) -> str:
    match = re.search(pattern, text)
    assert match, (pattern, text)
    return match.group(1)


def edited(tmp_path: Path) -> Path:
    """A save against greedy whose second move (greedy's) was replaced by another legal one."""
    s = unsigned_save(tmp_path / "g.json", GREEDY, 4)
    before, bot_move = s.history[1]
    other = next(m for m in legal_moves(before) if m != bot_move)
    data = s.to_dict()
    data["moves"] = [data["moves"][0], other.text()]
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return path


def test_an_edited_save_played_to_the_end_gets_no_record_and_stays_refused(tmp_path):
    path = edited(tmp_path)
    before = path.read_text()
    proc, out, err = start(["--resume", str(path)], tmp_path / "data", tmp_path)
    proc.stdin.write("1\n" * 200)                # the script plays on, to the match's end
    proc.stdin.close()
    assert proc.wait(PATIENCE) == 1
    assert err.read_text().splitlines()[-1].startswith(
        f"lc: error: {path}: move 2 (round 1): the save says greedy played"), err.read_text()
    assert "the save was edited" in err.read_text() and "Traceback" not in err.read_text()
    assert not (tmp_path / "data" / "records").exists() and "Game record" not in out.read_text()
    data = json.loads(path.read_text())
    assert data["moves"][:2] == json.loads(before)["moves"]
    assert data.get("unchecked", [0, 2])[0] == 0   # signed or not, the edit is still to check
    proc, out, err = start(["--resume", str(path)], tmp_path / "data", tmp_path)
    proc.stdin.close()
    assert proc.wait(PATIENCE) == 1 and "the save was edited" in err.read_text()


def test_where_no_process_can_be_started_the_check_runs_before_the_game(tmp_path,
                                                                         monkeypatch):
    import errno

    from typer.testing import CliRunner

    from lostcities.cli import botcheck
    from lostcities.cli.app import app

    def refused(self, saved):  # what the system says at its process limit (fork: EAGAIN)
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(botcheck.BotCheck, "__init__", refused)
    monkeypatch.setenv("LOSTCITIES_DATA_DIR", str(tmp_path / "data"))
    env = {"LANG": "C.UTF-8", "LC_ALL": None, "LC_MESSAGES": None, "COLUMNS": None}
    result = CliRunner().invoke(app, ["play", "--resume", str(edited(tmp_path))], env=env)
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("lc: error: ") and "the save was edited" in result.stderr
    path = tmp_path / "ok.json"
    unsigned_save(path, GREEDY, 6)
    result = CliRunner().invoke(app, ["play", "--resume", str(path)], env=env)
    assert result.exit_code == 0, result.stderr
    assert "unchecked" not in json.loads(path.read_text()) and "mac" in json.loads(path.read_text())
