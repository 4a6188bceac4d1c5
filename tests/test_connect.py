"""lc play --connect against a real lc serve: the terminal client run for real under a
pseudo-terminal (pexpect), the other seat a plain WebSocket client. Join, start, play
turns both ways, chat both ways, kill the client and come back on the same seat with the
token file, kill the server and see the client reconnect; a bad link and a refused room
each one line, exit 2 (issue #14)."""
from __future__ import annotations

import http.server
import os
import re
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
pexpect = pytest.importorskip("pexpect")

from server_support import RoomSocket, free_port, new_room, start_lc_serve  # noqa: E402

BOUND = 90.0
LC = str(Path(sys.executable).with_name("lc"))


def start_server(data: Path, port: int, *extra: str) -> subprocess.Popen:
    return start_lc_serve(data, port, *extra, stdout=subprocess.DEVNULL, bound=BOUND)


class Seat(RoomSocket):
    """The other player: a plain WebSocket client."""

    def my_turn(self) -> dict:
        if self.state and self.state.get("legal"):
            return self.state
        return self.until(lambda m: m["type"] == "state" and bool(m.get("legal")))

    def play_one(self) -> str:
        legal = self.my_turn()["legal"]
        move = next((m for m in legal if m.startswith("d ")), legal[0])
        self.state = None
        self.send({"type": "move", "move": move})
        return move


@pytest.fixture()
def server(tmp_path: Path):
    port = free_port()
    proc = start_server(tmp_path / "server", port)
    box = {"proc": proc, "port": port, "data": tmp_path / "server"}
    yield box
    for p in (box["proc"],):
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=BOUND)
            except subprocess.TimeoutExpired:
                p.kill()


def terminal(url: str, home: Path, *extra: str) -> Any:
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(home), "NO_COLOR": "1", "COLUMNS": "120",
           "LINES": "50", "TERM": "xterm"}
    env.pop("LOSTCITIES_DEBUG", None)
    return pexpect.spawn(LC, ["play", "--connect", url, "--lang", "en", *extra], env=env,
                         encoding="utf-8", timeout=BOUND, dimensions=(50, 120))


def seat_ann_and_bob(lc: Any, port: int, room: str) -> "Seat":
    """The terminal, a spectator first, takes a seat (``/join``); Bob takes the other
    through his socket; the terminal deals (``/start``). Bob's socket."""
    lc.expect("spectator")
    lc.sendline("/join")
    lc.expect("token is kept in")
    bob = Seat(f"ws://127.0.0.1:{port}/rooms/{room}/ws")
    bob.send({"type": "line", "text": "/join Bob"})
    bob.until(lambda m: m["type"] == "seated")
    lc.expect("Bob")
    lc.sendline("/start")
    return bob


def ansi_free(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def test_a_terminal_and_a_websocket_share_a_room(server: dict, tmp_path: Path) -> None:
    port = server["port"]
    room = new_room(port)
    url = f"http://127.0.0.1:{port}/r/{room}"
    ws_url = f"ws://127.0.0.1:{port}/rooms/{room}/ws"
    home = tmp_path / "home"
    lc = terminal(url, home, "--name", "Ann")
    try:
        lc.expect("spectator")
        lc.sendline("/join")                         # --name gives the name
        lc.expect("token is kept in")
        token_file = home / "rooms-joined" / f"127.0.0.1-{port}-{room}.token"
        assert token_file.is_file()
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        bob = Seat(ws_url)
        bob.send({"type": "line", "text": "/join Bob"})
        bob.until(lambda m: m["type"] == "seated")
        lc.expect("Bob")
        lc.sendline("/start")
        lc.expect("Your hand")
        # seat 0 (Ann, the terminal) starts: the numbered moves, then one picked by number
        lc.expect("Your turn")
        lc.sendline("moves")
        lc.expect(r"legal moves")
        lc.expect(r"\d+\s+d \w+ deck")
        lc.sendline("1")
        bob.until(lambda m: m["type"] == "turn" and m["seat"] == 0)
        moved = bob.play_one()
        # the other side's turn reaches the terminal, and it is Ann's turn again
        lc.expect(re.escape(moved.split()[1]))
        lc.expect("Your turn")
        # partial entry: the card, then the draw asked for
        lc.sendline("moves")
        lc.expect(r"\d+\s+p (\w+) deck")
        card = lc.match.group(1)
        lc.sendline(f"p {card}")
        lc.expect("draw from")
        lc.sendline("deck")
        turn = bob.until(lambda m: m["type"] == "turn" and m["seat"] == 0)
        assert turn["move"] == f"p {card} deck"
        # chat both ways
        lc.sendline("say hello Bob")
        chat = bob.until(lambda m: m["type"] == "chat" and m["name"] == "Ann")
        assert chat["text"] == "hello Bob"
        bob.send({"type": "line", "text": "hi Ann"})
        lc.expect("<Bob> hi Ann")
        # the terminal goes away (killed), comes back with its token file, same seat
        lc.kill(signal.SIGKILL)
        lc.wait()
        bob.play_one()
        lc = terminal(url, home)
        lc.expect("Your hand")
        lc.expect("Your turn")
        lc.sendline("moves")
        lc.expect(r"\d+\s+d \w+ deck")
        lc.sendline("1")
        turn = bob.until(lambda m: m["type"] == "turn" and m["seat"] == 0)
        assert turn["name"] == "Ann"
        # the server is killed and restarted: the client reconnects and plays on
        bob.play_one()
        lc.expect("Your turn")
        server["proc"].kill()
        server["proc"].wait()
        lc.expect("reconnecting")
        server["proc"] = start_server(server["data"], port)
        lc.expect("Connected to the room again")
        bob = Seat(ws_url, bob.token)                 # back before Ann plays: sees her turn
        bob.until(lambda m: m["type"] == "welcome" and m["seat"] == 1)
        lc.expect("Your turn")
        lc.sendline("moves")
        lc.expect(r"\d+\s+d \w+ deck")
        lc.sendline("1")
        turn = bob.until(lambda m: m["type"] == "turn" and m["seat"] == 0)
        assert turn["name"] == "Ann"
        lc.sendline("quit")
        lc.expect("seat stays yours")
        lc.expect(pexpect.EOF)
        lc.close()
        assert lc.exitstatus == 0
        assert "Traceback" not in ansi_free(lc.before or "")
    finally:
        if lc.isalive():
            lc.kill(signal.SIGKILL)


def test_a_spectator_sees_the_table_and_is_told_how_to_join(server: dict,
                                                           tmp_path: Path) -> None:
    port = server["port"]
    room = new_room(port)
    ws_url = f"ws://127.0.0.1:{port}/rooms/{room}/ws"
    ann, bob = Seat(ws_url), Seat(ws_url)
    ann.send({"type": "line", "text": "/join Ann"})
    ann.until(lambda m: m["type"] == "seated")
    bob.send({"type": "line", "text": "/join Bob"})
    bob.until(lambda m: m["type"] == "seated")
    ann.send({"type": "line", "text": "/start"})
    ann.play_one()
    lc = terminal(ws_url, tmp_path / "home")
    try:
        lc.expect("turn 2")
        lc.expect("spectator")
        lc.sendline("p r5 deck")
        lc.expect("not seated")
        lc.sendline("hint")
        lc.expect("no hints")
        lc.sendline("undo")
        lc.expect("only in a local game")
        lc.sendline("/help")
        lc.expect("/join")
        lc.sendeof()
        lc.expect(pexpect.EOF)
        lc.close()
        assert lc.exitstatus == 0
    finally:
        if lc.isalive():
            lc.kill(signal.SIGKILL)


def test_a_house_pack_room_with_hints(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "my-house.yaml").write_text("extends: duel-classic\nname: Friday house rules\n"
                                         "match: {rounds: 1}\n")
    port = free_port()
    proc = start_server(tmp_path / "server", port, "--packs", str(packs))
    lc = None
    try:
        room = new_room(port, "my-house", hints=True)
        lc = terminal(f"http://127.0.0.1:{port}/r/{room}", tmp_path / "home", "--name", "Ann")
        lc.expect("Friday house rules|waiting to start")
        lc.sendline("/join")
        lc.expect("token is kept in")
        bob = Seat(f"ws://127.0.0.1:{port}/rooms/{room}/ws")
        bob.send({"type": "line", "text": "/join Bob"})
        bob.until(lambda m: m["type"] == "seated")
        lc.sendline("/start")
        lc.expect("Friday house rules")    # the table, drawn with the room's own pack
        lc.expect("Your turn")
        lc.sendline("hint")
        lc.expect(r"would play: ([pd] \w+ \S+)")
        lc.sendline(lc.match.group(1))
        turn = bob.until(lambda m: m["type"] == "turn")
        assert turn["seat"] == 0
        lc.sendline("quit")
        lc.expect(pexpect.EOF)
    finally:
        if lc is not None and lc.isalive():
            lc.kill(signal.SIGKILL)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            proc.kill()


def run_lc(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(home)}
    return subprocess.run([LC, "play", *args], capture_output=True, text=True, env=env,
                          timeout=BOUND, stdin=subprocess.DEVNULL)


def one_line(result: subprocess.CompletedProcess, code: int = 2) -> str:
    assert result.returncode == code, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error:"), result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    return lines[0]


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/r/abcdefgh", "http://127.0.0.1:8000/",
                                 "http://127.0.0.1:8000/r/ABC", "not a link",
                                 "http://[::1/r/abcdefgh", "http://h:99999/r/abcdefgh",
                                 "ws://h/rooms/abcdefgh/wss", "x" * 3000])
def test_a_bad_link_is_one_line_exit_2(url: str, tmp_path: Path) -> None:
    assert "--connect" in one_line(run_lc("--connect", url, home=tmp_path))


def test_a_refused_room_and_a_server_not_there_are_one_line_exit_2(server: dict,
                                                                  tmp_path: Path) -> None:
    port = server["port"]
    line = one_line(run_lc("--connect", f"http://127.0.0.1:{port}/r/aaaaaaaa", home=tmp_path))
    assert line.endswith("/rooms/aaaaaaaa/ws: the server has no room aaaaaaaa")
    line = one_line(run_lc("--connect", f"http://127.0.0.1:{free_port()}/r/aaaaaaaa",
                           home=tmp_path))
    assert "nothing answers" in line


@pytest.mark.parametrize("status", [403, 404])
def test_a_web_server_that_is_not_lc_serve_is_one_line_exit_2(status: int,
                                                              tmp_path: Path) -> None:
    """A server that answers the room's socket with HTTP 403 or 404 (another web server, or
    a proxy in front of none) is not said to be a missing room: lc serve closes the socket
    of a missing room with 4404 (the test above)."""
    class Refuse(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # (a WebSocket client reads no HTTP/1.0 answer)

        def do_GET(self) -> None:
            self.send_error(status)

        def log_message(self, *args: Any) -> None:
            pass

    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    try:
        port = web.server_address[1]
        line = one_line(run_lc("--connect", f"http://127.0.0.1:{port}/r/aaaaaaaa",
                               home=tmp_path))
    finally:
        web.shutdown()
        web.server_close()
    assert line.endswith(f"/rooms/aaaaaaaa/ws: no room socket there (HTTP {status}): "
                         "is it an lc serve?")


def test_connect_refuses_local_game_options_and_bad_token_files(tmp_path: Path) -> None:
    url = "http://127.0.0.1:1/r/abcdefgh"
    assert "--pack" in one_line(run_lc("--connect", url, "--pack", "duel-classic",
                                       home=tmp_path))
    assert "only with --connect" in one_line(run_lc("--name", "Ann", home=tmp_path))
    folder = tmp_path / "a-folder"
    folder.mkdir()
    assert "not a regular file" in one_line(run_lc("--connect", url, "--token", str(folder),
                                                   home=tmp_path))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "not a regular file" in one_line(run_lc("--connect", url, "--token", str(fifo),
                                                   home=tmp_path))
    assert "--name" in one_line(run_lc("--connect", url, "--name", "x" * 30, home=tmp_path))


def test_without_the_serve_extra_one_line_says_how_to_get_it(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "websockets"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no websockets here')\n")
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(shadow.parent), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([LC, "play", "--connect", "http://127.0.0.1:1/r/abcdefgh"],
                            capture_output=True, text=True, env=env, timeout=BOUND,
                            stdin=subprocess.DEVNULL)
    assert one_line(result) == ("lc: error: lc play --connect needs the serve extra: "
                                "pip install 'lostcities[serve]'")
