"""``lc play --connect`` and the rematch, against a real ``lc serve`` (the terminal client
under a pseudo-terminal, as tests/test_connect.py; the other seat a plain WebSocket
client): a whole match of the one-round house pack, the client told how to ask for a
rematch, ``/rematch`` typed, and the new match played from the seat it moved to."""
from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
pexpect = pytest.importorskip("pexpect")

from server_support import TINY_PACK, free_port, new_room, start_lc_serve  # noqa: E402
from test_connect import BOUND, ansi_free, seat_ann_and_bob, terminal  # noqa: E402


def my_turn(lc: Any) -> None:
    """Wait for the terminal's turn and play its first legal move by number."""
    lc.expect("Your turn")
    lc.sendline("moves")
    lc.expect("legal moves")
    lc.sendline("1")


def test_a_terminal_asks_for_a_rematch_and_plays_it_from_its_new_seat(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "tiny.yaml").write_text(TINY_PACK, encoding="utf-8")
    port = free_port()
    proc = start_lc_serve(tmp_path / "server", port, "--packs", str(packs),
                          stdout=subprocess.DEVNULL, bound=BOUND)
    lc = None
    try:
        room = new_room(port, "tiny")
        lc = terminal(f"http://127.0.0.1:{port}/r/{room}", tmp_path / "home", "--name", "Ann")
        bob = seat_ann_and_bob(lc, port, room)
        for _ in range(2):  # four turns: Ann (seat 1 for people), Bob, Ann, Bob
            my_turn(lc)
            bob.until(lambda m: m["type"] == "turn" and m["seat"] == 0)
            bob.play_one()
        lc.expect("The match is over")
        lc.expect("Type /rematch for a new match with the same players")
        lc.sendline("/rematch")
        lc.expect(re.escape("Ann asks for a rematch (1 of 2)"))
        bob.send({"type": "line", "text": "/rematch"})
        lc.expect(re.escape("a rematch starts, the seats moved on one: Bob, Ann; "
                            "Bob plays first"))
        state = bob.until(lambda m: m["type"] == "state" and m["room"].get("match") == 2)
        assert state["seat"] == 0 and [s["name"] for s in state["room"]["seats"]] == \
            ["Bob", "Ann"]
        bob.play_one()  # Bob first now; then the terminal plays from seat 1
        my_turn(lc)
        turn = bob.until(lambda m: m["type"] == "turn" and m["name"] == "Ann")
        assert turn["seat"] == 1
        lc.sendline("quit")
        lc.expect(pexpect.EOF)
        lc.close()
        assert lc.exitstatus == 0
        assert "Traceback" not in ansi_free(lc.before or "")
    finally:
        if lc is not None and lc.isalive():
            lc.kill(signal.SIGKILL)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=BOUND)
            except subprocess.TimeoutExpired:
                proc.kill()
