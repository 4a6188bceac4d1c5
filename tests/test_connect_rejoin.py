"""``lc play --connect`` back at its seat with the token it kept, against a real ``lc serve``:
it shows the room as that seat sees it from the first line, never as a spectator first (the
server welcomes every new socket as a spectator before it answers the hello and its token),
in the lobby and in a match; a restart of the server brings the seat back the same way."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
pexpect = pytest.importorskip("pexpect")

from server_support import BOUND, free_port, new_room, start_lc_serve  # noqa: E402

LC = str(Path(sys.executable).with_name("lc"))
#: what a spectator is told (connect.spectating); a seated player never reads it
SPECTATOR = "spectator"


@pytest.fixture
def server(tmp_path: Path) -> Any:
    box = {"port": free_port(), "data": tmp_path / "server"}
    box["proc"] = start_lc_serve(box["data"], box["port"])
    yield box
    if box["proc"].poll() is None:
        box["proc"].send_signal(signal.SIGINT)
        try:
            box["proc"].wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            box["proc"].kill()


def environment(home: Path) -> dict[str, str]:
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(home), "NO_COLOR": "1", "COLUMNS": "120",
           "LINES": "50", "TERM": "xterm"}
    env.pop("LOSTCITIES_DEBUG", None)
    return env


def piped(url: str, home: Path, lines: str) -> str:
    result = subprocess.run([LC, "play", "--connect", url, "--lang", "en", "--name", "Ann"],
                            input=lines, capture_output=True, text=True, env=environment(home),
                            timeout=BOUND * 2)
    assert result.returncode == 0, result.stderr
    return result.stdout


def rejoin(url: str, home: Path) -> Any:
    return pexpect.spawn(LC, ["play", "--connect", url, "--lang", "en"], env=environment(home),
                         encoding="utf-8", timeout=BOUND, dimensions=(50, 120))


def shown_before(child: Any, pattern: str) -> str:
    """What the terminal showed up to ``pattern`` (which it must show)."""
    child.expect(pattern)
    return re.sub(r"\x1b\[[\d;?]*[A-Za-z]", "", (child.before or "") + (child.after or ""))


def test_back_in_the_lobby_and_in_a_match_never_as_a_spectator_first(server: dict,
                                                                       tmp_path: Path) -> None:
    port = server["port"]
    room = new_room(port)
    url = f"http://127.0.0.1:{port}/r/{room}"
    home = tmp_path / "home"
    assert "token is kept in" in piped(url, home, "/join\nquit\n")
    child = rejoin(url, home)  # in the lobby: seated, waiting to start
    try:
        seen = shown_before(child, "You are seated")
        assert SPECTATOR not in seen and "Seated: Ann" in seen
        child.sendline("/bot greedy")
        child.expect("greedy")
        child.sendline("/start")
        child.expect("Your hand")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.kill(signal.SIGKILL)
    child = rejoin(url, home)  # in the match: its hand from the first table
    try:
        seen = shown_before(child, "Your hand")
        assert SPECTATOR not in seen
        # the server restarts: the seat comes back, and no spectator's view shows meanwhile
        server["proc"].kill()
        server["proc"].wait(timeout=BOUND)
        child.expect("reconnecting")
        server["proc"] = start_lc_serve(server["data"], port)
        seen = shown_before(child, "Your hand")
        assert "Connected to the room again" in seen and SPECTATOR not in seen
        child.sendline("quit")
        child.expect("seat stays yours")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.kill(signal.SIGKILL)
