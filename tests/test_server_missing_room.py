"""A room the server does not have, against a real ``lc serve``: its page ``/r/ID``, its
JSON and its WebSocket each say so as a 404 (the socket: accepted, then closed with the
application code ``ROOM_GONE`` and its reason), never a 403; ``lc play --connect`` turns it
into one line."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
from websockets.exceptions import ConnectionClosed  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from lostcities.server.protocol import ROOM_GONE, ROOM_GONE_REASON  # noqa: E402
from server_support import BOUND, free_port, new_room, start_lc_serve  # noqa: E402

LC = str(Path(sys.executable).with_name("lc"))
MISSING = "aaaaaaaa"  # the form of a room id, of no room


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Any:
    port = free_port()
    proc = start_lc_serve(tmp_path_factory.mktemp("server"), port)
    yield port
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=BOUND)
    except subprocess.TimeoutExpired:
        proc.kill()


def get(port: int, path: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=BOUND) as answer:
            return answer.status, answer.headers["content-type"], answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["content-type"], err.read().decode()


def test_the_page_and_the_json_of_a_missing_room_are_404(port: int) -> None:
    status, kind, body = get(port, f"/r/{MISSING}")
    assert status == 404 and kind.startswith("text/html") and 'id="conn"' in body
    for path in (f"/rooms/{MISSING}", f"/rooms/{MISSING}/table", f"/rooms/{MISSING}/pack"):
        status, kind, body = get(port, path)
        assert (status, json.loads(body)) == (404, {"error": "room", "text": "no such room"})
    room = new_room(port)
    assert get(port, f"/r/{room}")[0] == 200


@pytest.mark.parametrize("room", [MISSING, "nope"])
def test_the_websocket_of_a_missing_room_closes_with_room_gone(port: int, room: str) -> None:
    with connect(f"ws://127.0.0.1:{port}/rooms/{room}/ws", open_timeout=BOUND) as ws:
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=BOUND)
    assert closed.value.rcvd is not None
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (ROOM_GONE, ROOM_GONE_REASON)


def test_lc_play_connect_to_a_missing_room_is_one_line(port: int, tmp_path: Path) -> None:
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(tmp_path)}
    env.pop("LOSTCITIES_DEBUG", None)
    result = subprocess.run([LC, "play", "--connect", f"http://127.0.0.1:{port}/r/{MISSING}"],
                            capture_output=True, text=True, env=env, timeout=BOUND,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    assert result.stderr == (f"lc: error: ws://127.0.0.1:{port}/rooms/{MISSING}/ws: the server "
                             f"has no room {MISSING}\n")
