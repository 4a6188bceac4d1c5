"""``lc play --connect`` in a room with a clock, against a real ``lc serve``: the terminal
client (under a pseudo-terminal) shows each seat's time left in its status line, the
running one marked, and says how the match ended when the other seat resigns."""
from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
pexpect = pytest.importorskip("pexpect")

import test_connect  # noqa: E402
from server_support import new_room  # noqa: E402
from test_connect import ansi_free, seat_ann_and_bob, terminal  # noqa: E402

#: a real lc serve (test_connect's fixture)
server = test_connect.server


def clock_line(lc: "pexpect.spawn") -> str:
    """The rest of the next clock line the terminal prints, its styles taken off."""
    lc.expect(r"Clock \(10 min \+ 5 s a move\)")
    lc.expect(r"\r?\n")
    return ansi_free(lc.before or "").strip()


def test_the_terminal_shows_the_clocks_and_a_resign(server: dict, tmp_path: Path) -> None:
    port = server["port"]
    room = new_room(port, clock={"kind": "fischer", "minutes": 10, "increment": 5})
    lc = terminal(f"http://127.0.0.1:{port}/r/{room}", tmp_path / "home", "--name", "Ann")
    try:
        bob = seat_ann_and_bob(lc, port, room)
        lc.expect("Your turn")
        assert re.search(r"^: ▶ Ann (10:00|9:5\d) · Bob 10:00", clock_line(lc)), lc.before
        lc.sendline("moves")
        lc.expect(r"\d+\s+d \w+ deck")
        lc.sendline("1")
        bob.until(lambda m: m["type"] == "turn" and m["seat"] == 0)
        lc.expect(r"Waiting for Bob to play\.")
        assert re.search(r"^: Ann 10:0\d · ▶ Bob (10:00|9:5\d)", clock_line(lc)), lc.before
        bob.send({"type": "line", "text": "/resign"})
        lc.expect(r"Bob resigns: the match is over\.")
        lc.sendline("quit")
        lc.expect(pexpect.EOF)
        assert "Traceback" not in ansi_free(lc.before or "")
    finally:
        if lc.isalive():
            lc.kill(signal.SIGKILL)
