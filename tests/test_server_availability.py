"""One client must not deny the room server to others: a real ``lc serve`` with small
limits (``--limit NAME=VALUE``) and real sockets. Rooms opened by one address, JSON
required to open one, rooms that expire (while the server runs and at its start),
WebSockets by address and by room refused with close code 1013, idle spectators closed,
request heads that never end, the cap on open connections below the file limit, the
``Host`` header, a text frame that is not UTF-8 logged as one line."""
from __future__ import annotations

import http.client
import io
import json
import os
import select
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest

websockets = pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from server_support import BOUND, free_port, lc_command, start_lc_serve, wait_for  # noqa: E402

SMALL = ("--limit", "address_rooms=3", "--limit", "address_rooms_per_minute=1000",
         "--limit", "address_connections=4", "--limit", "address_room_connections=2",
         "--limit", "room_connections=3",
         "--limit", "head_seconds=1", "--limit", "keep_alive_seconds=1",
         "--limit", "lobby_expiry_seconds=4", "--limit", "sweep_seconds=0.2")
ROOM = json.dumps({"pack": "duel-classic"}).encode()


class Server:
    """A running ``lc serve`` on ``port`` (stopped at the end of the test or module)."""

    def __init__(self, data: Path, *extra: str, files: Optional[int] = None):
        self.port = free_port()
        self.log = data.parent / f"{data.name}.log"
        self.log_file = self.log.open("w")
        self.proc = start_lc_serve(data, self.port, *extra, stdout=subprocess.DEVNULL,
                                   stderr=self.log_file, log=self.log, files=files)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(BOUND)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log_file.close()

    def request(self, method: str, path: str, body: Optional[bytes] = None,
                **headers: str) -> tuple[int, Any]:
        """One HTTP request; its status and JSON answer (None: not JSON). Header names are
        given with ``_`` for ``-``: ``x_forwarded_for="10.0.0.1"``."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=BOUND)
        try:
            conn.request(method, path, body=body,
                         headers={k.replace("_", "-"): v for k, v in headers.items()})
            answer = conn.getresponse()
            text = answer.read()
        finally:
            conn.close()
        try:
            return answer.status, json.loads(text)
        except ValueError:
            return answer.status, None

    def open_room(self, address: str = "10.0.0.1", **headers: str) -> tuple[int, Any]:
        headers.setdefault("content_type", "application/json")
        return self.request("POST", "/rooms", ROOM, x_forwarded_for=address, **headers)

    def ws(self, room: str, address: str, **headers: str) -> Any:
        return connect(f"ws://127.0.0.1:{self.port}/rooms/{room}/ws", open_timeout=BOUND,
                       additional_headers={"X-Forwarded-For": address, **headers})


def close_code(ws: Any) -> tuple[Optional[int], list[dict]]:
    """The code ``ws`` is closed with by the server (waited for) and what it said before."""
    said = []
    try:
        while True:
            said.append(json.loads(ws.recv(timeout=BOUND)))
    except ConnectionClosed as closed:
        return (closed.rcvd.code if closed.rcvd is not None else None), said


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("small") / "data", *SMALL)
    yield server
    server.stop()


# ------------------------------------------------------------------ rooms (item 1)

def test_only_a_json_post_opens_a_room(small: Server) -> None:
    """A page of any site may send a form or a text/plain POST without asking: refused."""
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                 "application/jsonx", ""):
        status, answer = small.open_room("10.1.0.1", content_type=kind)
        assert status == 415 and answer["error"] == "error.not-json-type", kind
    status, answer = small.open_room("10.1.0.1", content_type="Application/JSON; charset=utf-8")
    assert status == 201 and len(answer["room"]) == 8


def test_one_address_holds_only_its_share_of_the_rooms(small: Server) -> None:
    for _ in range(3):
        assert small.open_room("10.2.0.1")[0] == 201
    status, answer = small.open_room("10.2.0.1", accept_language="fr")
    assert status == 429 and answer["error"] == "error.rooms-held" and "3 salles" in answer["text"]
    assert small.open_room("10.2.0.2")[0] == 201  # another client is not held up
    # one IPv6 host holds a whole /64: its addresses are one client
    for n in range(3):
        assert small.open_room(f"2001:db8::{n + 1}")[0] == 201
    assert small.open_room("2001:db8::ffff")[0] == 429
    assert small.open_room("2001:db8:0:1::1")[0] == 201


def test_a_room_never_started_expires_and_frees_its_place(small: Server) -> None:
    rooms = [small.open_room("10.3.0.1")[1]["room"] for _ in range(3)]
    assert small.open_room("10.3.0.1")[0] == 429
    wait_for(lambda: all(small.request("GET", f"/rooms/{r}")[0] == 404 for r in rooms),
             "the expired rooms to be gone")
    assert small.open_room("10.3.0.1")[0] == 201


def test_creation_is_counted_by_proxy_only_for_trusted_proxies(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", "--limit", "address_rooms=2",
                    "--forwarded-allow-ips", "10.9.9.9")
    try:  # 127.0.0.1 is no trusted proxy here: X-Forwarded-For changes nothing
        assert [server.open_room(f"10.4.0.{n}")[0] for n in range(3)] == [201, 201, 429]
    finally:
        server.stop()


def test_expired_rooms_are_freed_when_the_server_starts(tmp_path: Path) -> None:
    data = tmp_path / "data"
    options = ("--limit", "lobby_expiry_seconds=1", "--limit", "sweep_seconds=100000")
    server = Server(data, *options)
    try:
        room = server.open_room()[1]["room"]
        opened = time.time()
    finally:
        server.stop()
    wait_for(lambda: time.time() - opened > 1.5, "1.5 s since the room opened")
    server = Server(data, *options)
    try:  # no sweep has run since the start: the start freed it
        assert server.request("GET", f"/rooms/{room}")[0] == 404
    finally:
        server.stop()


def test_a_room_body_that_never_ends_is_answered_408(small: Server) -> None:
    with socket.create_connection(("127.0.0.1", small.port), timeout=BOUND) as slow:
        slow.sendall(b"POST /rooms HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: 10.8.0.1\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"pa")
        assert slow.recv(100).startswith(b"HTTP/1.1 408")


def test_a_bad_limit_option_is_one_line_exit_2(tmp_path: Path) -> None:
    for change in ("rooms=0", "nope=1", "rooms=1.5", "idle_seconds=inf", "rooms"):
        done = subprocess.run(lc_command() + ["serve", "--data", str(tmp_path), "--port", "0",
                                              "--limit", change],
                              capture_output=True, text=True, timeout=BOUND)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, (change, done.stderr)
        assert done.stderr.startswith("lc: error: --limit ") and "Traceback" not in done.stderr


# ------------------------------------------------------------- WebSockets (item 2)

def test_connections_over_a_limit_are_closed_with_1013(small: Server) -> None:
    room, other = (small.open_room("10.5.0.1")[1]["room"] for _ in range(2))
    held = [small.ws(room, "10.5.0.2"), small.ws(room, "10.5.0.2")]
    try:
        code, said = close_code(small.ws(room, "10.5.0.2"))  # a third of one address here
        assert code == 1013 and said[-1]["key"] == "error.too-many-connections"
        held.append(small.ws(room, "10.5.0.3"))  # the room's third: its last place
        code, said = close_code(small.ws(room, "10.5.0.4", **{"Accept-Language": "fr"}))
        assert code == 1013 and said[-1]["key"] == "error.server-busy"
        assert "réessayez" in said[-1]["text"]
        held += [small.ws(other, "10.5.0.2"), small.ws(other, "10.5.0.2")]
        third = small.open_room("10.5.0.1")[1]["room"]
        code, said = close_code(small.ws(third, "10.5.0.2"))  # a fifth of one address
        assert code == 1013 and said[-1]["key"] == "error.too-many-connections"
    finally:
        for ws in held:
            ws.close()
    # closed sockets give their places back
    wait_for(lambda: _welcomed(small, room, "10.5.0.2"), "a welcome")


def _welcomed(server: Server, room: str, address: str) -> bool:
    with server.ws(room, address) as ws:
        try:
            return json.loads(ws.recv(timeout=BOUND))["type"] == "welcome"
        except ConnectionClosed:
            return False


def test_an_idle_spectator_is_closed_a_seated_player_is_kept(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", "--limit", "idle_seconds=1")
    try:
        room = server.open_room()[1]["room"]
        with server.ws(room, "10.6.0.2") as player:
            player.send(json.dumps({"type": "line", "text": "/join Ada"}))
            while json.loads(player.recv(timeout=BOUND))["type"] != "seated":
                pass
            with server.ws(room, "10.6.0.3") as spectator:
                assert close_code(spectator)[0] == 1000  # said nothing for idle_seconds
            player.send(json.dumps({"type": "ping"}))  # idle as long, and still there
            while json.loads(player.recv(timeout=BOUND))["type"] != "pong":
                pass
    finally:
        server.stop()


def test_a_silent_spectator_of_lc_play_connect_pings_and_stays(tmp_path: Path) -> None:
    """The server's ``welcome`` says how often to ping (a third of ``idle_seconds``): a
    terminal that only watches stays connected past the idle limit, while a socket that
    never pings, opened after it, is closed for being idle."""
    pexpect = pytest.importorskip("pexpect")
    server = Server(tmp_path / "data", "--limit", "idle_seconds=3")
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(tmp_path / "home"), "NO_COLOR": "1",
           "COLUMNS": "120", "LINES": "50", "TERM": "xterm"}
    try:
        room = server.open_room()[1]["room"]
        url = f"ws://127.0.0.1:{server.port}/rooms/{room}/ws"
        lc = pexpect.spawn(lc_command()[0], [*lc_command()[1:], "play", "--connect", url,
                                             "--lang", "en"],
                           env=env, encoding="utf-8", timeout=BOUND, dimensions=(50, 120))
        shown = io.StringIO()
        lc.logfile_read = shown
        try:
            lc.expect("spectator")
            with server.ws(room, "10.6.1.3") as silent:  # idle_seconds after the terminal
                assert close_code(silent)[0] == 1000
            lc.sendline("/help")
            # the room's answer, after the idle limit (the terminal may wrap the long line)
            lc.expect(r"Any\s+other\s+line\s+is\s+chat")
            lc.sendeof()
            lc.expect(pexpect.EOF)
        finally:
            lc.close(force=True)
        assert "dropped" not in shown.getvalue()
    finally:
        server.stop()


# ------------------------------------------------------------ slowloris (item 3)

def test_request_heads_that_never_end_are_closed(small: Server) -> None:
    started = time.monotonic()
    slow = [socket.create_connection(("127.0.0.1", small.port), timeout=BOUND)
            for _ in range(40)]
    for n, s in enumerate(slow):  # half send a head's beginning, half nothing
        if n % 2:
            s.sendall(b"GET /packs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
    try:
        for s in slow:
            assert s.recv(100) == b""  # closed by the server
        assert time.monotonic() - started < BOUND
        # one that keeps sending a byte of header now and then is closed as well
        drip = socket.create_connection(("127.0.0.1", small.port), timeout=BOUND)
        drip.settimeout(0.2)
        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline:
            try:
                drip.sendall(b"a")
                if drip.recv(100) == b"":
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        else:
            pytest.fail("a head sent a byte at a time was never closed")
        drip.close()
        # a whole request, then nothing: kept alive keep_alive_seconds, then closed
        kept = socket.create_connection(("127.0.0.1", small.port), timeout=BOUND)
        kept.sendall(b"GET /packs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        seen = b""
        while True:
            chunk = kept.recv(65536)
            if not chunk:
                break
            seen += chunk
        assert seen.startswith(b"HTTP/1.1 200")
        kept.close()
    finally:
        for s in slow:
            s.close()


def test_open_connections_stay_below_the_file_limit(tmp_path: Path) -> None:
    """At ``ulimit -n 160`` the server holds at most 60 connections (160 less 100 kept for
    its files): of 150 silent ones, the others are answered 503 at once and closed; once
    the heads time out, the server answers again."""
    server = Server(tmp_path / "data", "--limit", "head_seconds=3", files=160)
    silent = []
    try:
        for _ in range(150):
            silent.append(socket.create_connection(("127.0.0.1", server.port), timeout=BOUND))
        first: dict[socket.socket, bytes] = {}
        deadline = time.monotonic() + BOUND
        while sum(said.startswith(b"HTTP/1.1 503") for said in first.values()) < 150 - 60:
            assert time.monotonic() < deadline, f"{len(first)} answered"
            ready, _, _ = select.select([s for s in silent if s not in first], [], [], 1.0)
            for s in ready:
                first[s] = s.recv(100)
        for s in silent:
            while s.recv(100):
                pass
        assert server.request("GET", "/packs", host="localhost")[0] == 200
    finally:
        for s in silent:
            s.close()
        server.stop()


def test_one_address_cannot_hold_every_connection(tmp_path: Path) -> None:
    """127.0.0.1 is no trusted proxy here: its silent connections beyond 5 are answered
    503 at once, while another address (127.0.0.2) is served."""
    server = Server(tmp_path / "data", "--forwarded-allow-ips", "10.9.9.9",
                    "--limit", "address_http_connections=5", "--limit", "head_seconds=60")
    silent = [socket.create_connection(("127.0.0.1", server.port), timeout=BOUND)
              for _ in range(5)]
    try:
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", server.port), timeout=BOUND) as more:
                assert more.recv(100).startswith(b"HTTP/1.1 503")
        other = socket.create_connection(("127.0.0.1", server.port), timeout=BOUND,
                                         source_address=("127.0.0.2", 0))
        with other:
            other.sendall(b"GET /packs HTTP/1.1\r\nHost: localhost\r\n\r\n")
            assert other.recv(100).startswith(b"HTTP/1.1 200")
        silent.pop().close()  # a place given back is taken again
        wait_for(lambda: server.request("GET", "/packs", host="localhost")[0] == 200,
                 "the server to answer")
    finally:
        for s in silent:
            s.close()
        server.stop()


# ---------------------------------------------------------------- Host (item 10)

def test_only_the_allowed_hosts_are_served(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", "--allowed-host", "cards.example.org")
    try:
        for host in ("127.0.0.1", f"127.0.0.1:{server.port}", "localhost", "[::1]:80",
                     "cards.example.org", "CARDS.example.org.:443", "192.168.1.20:8000",
                     "[2001:db8::1]"):
            assert server.request("GET", "/packs", host=host)[0] == 200, host
        for host in ("evil.example", "evil.example:8000", "cards.example.org.evil.example",
                     "127.0.0.1.nip.io", ""):
            status, answer = server.request("GET", "/packs", host=host, accept_language="fr")
            assert status == 400 and answer["error"] == "error.bad-host", host
        room = server.open_room(host="localhost")[1]["room"]
        # DNS rebinding: a page of evil.example whose name now points here
        rebound = socket.create_connection(("127.0.0.1", server.port), timeout=BOUND)
        ws = connect(f"ws://evil.example:{server.port}/rooms/{room}/ws", sock=rebound,
                     open_timeout=BOUND,
                     additional_headers={"Origin": f"http://evil.example:{server.port}"})
        assert close_code(ws) == (1008, [])
        port = server.port
        with connect(f"ws://localhost:{port}/rooms/{room}/ws", open_timeout=BOUND,
                     additional_headers={"Origin": f"http://localhost:{port}"}) as ws:
            assert json.loads(ws.recv(timeout=BOUND))["type"] == "welcome"
        with pytest.raises(InvalidStatus):  # an allowed Host, another site's page
            connect(f"ws://localhost:{port}/rooms/{room}/ws", open_timeout=BOUND,
                    additional_headers={"Origin": f"http://evil.example:{port}"})
    finally:
        server.stop()


# ------------------------------------------------------------- the log (item 11)

def test_a_text_frame_not_utf8_is_one_line_in_the_log(small: Server) -> None:
    room = small.open_room("10.7.0.1")[1]["room"]
    for n in range(6):
        with small.ws(room, f"10.7.0.{n + 2}") as ws:
            ws.recv(timeout=BOUND)
            ws.send(b"\xff\xfe{}", text=True)
            assert close_code(ws)[0] == 1007
    with small.ws(room, "10.7.0.9") as ws:  # the server goes on
        assert json.loads(ws.recv(timeout=BOUND))["type"] == "welcome"
    log = small.log.read_text(errors="replace")
    assert "Traceback" not in log
    assert log.count("Invalid UTF-8 sequence received from client") == 1
