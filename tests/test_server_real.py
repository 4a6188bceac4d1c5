"""lc serve as a real process: play over real WebSockets, SIGKILL the server mid-match,
restart it on the same data folder (or the same PostgreSQL database, ``--store``: a real
throwaway server of pg_support), reconnect with the seat tokens and play on with no turn
lost (issue #14)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest

websockets = pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
from websockets.sync.client import connect  # noqa: E402

from pg_support import cluster, require_postgres  # noqa: E402
from server_support import (TINY_PACK, RoomSocket, free_port, lc_command,  # noqa: E402
                            new_room, start_lc_serve, wait_for)

pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")
BOUND = 120.0


def start(data: Path, port: int, durability: str = "full", *extra: str) -> subprocess.Popen:
    return start_lc_serve(data, port, "--durability", durability, *extra, bound=BOUND)


class Seat:
    def __init__(self, url: str):
        self.ws = connect(url, open_timeout=BOUND)
        self.state: Any = None
        self.token = None

    def until(self, check: Any) -> dict:
        while True:
            message = json.loads(self.ws.recv(timeout=BOUND))
            if message["type"] == "state":
                self.state = message
            if message["type"] == "seated":
                self.token = message["token"]
            if check(message):
                return message

    def at(self, turns: int) -> dict:
        if self.state and self.state["room"]["turns"] >= turns and \
                self.state["room"]["status"] == "playing":
            return self.state
        def check(message: dict) -> bool:
            assert message["type"] != "error", message  # (a move refused: say why)
            return message["type"] == "state" and message["room"]["turns"] >= turns \
                and message["room"]["status"] == "playing"

        return self.until(check)

    def send(self, message: dict) -> None:
        self.ws.send(json.dumps(message))


def play(seats: list[Seat], first: int, count: int) -> int:
    turn = first
    for _ in range(count):
        states = [s.at(turn) for s in seats]
        mover = next(s for s, st in zip(seats, states) if st["legal"])
        mover.send({"type": "move", "move": mover.state["legal"][-1]})
        turn += 1
    for s in seats:
        s.at(turn)
    return turn


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
@pytest.mark.parametrize("durability", ["full", "normal"])
def test_sigkill_and_restart_lose_no_turn(tmp_path: Path, durability: str, store: str,
                                          request: pytest.FixtureRequest) -> None:
    """Either durability survives kill -9 (normal gives up only a power cut's safety), on
    either store."""
    extra = ("--store", request.getfixturevalue("pg_cluster").database()) \
        if store == "postgresql" else ()
    port = free_port()
    server = start(tmp_path, port, durability, *extra)
    try:
        request = urllib.request.Request(f"http://127.0.0.1:{port}/rooms", method="POST",
                                         data=b'{"pack": "duel-classic"}',
                                         headers={"content-type": "application/json"})
        room = json.loads(urllib.request.urlopen(request, timeout=BOUND).read())["room"]
        url = f"ws://127.0.0.1:{port}/rooms/{room}/ws"
        ada, bob = Seat(url), Seat(url)
        for seat, name in ((ada, "Ada"), (bob, "Bob")):
            seat.until(lambda m: m["type"] == "state")
            seat.send({"type": "line", "text": f"/join {name}"})
            seat.until(lambda m: m["type"] == "seated")
        ada.send({"type": "line", "text": "/start"})
        turn = play([ada, bob], 0, 7)
        before = (ada.state, bob.state)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=BOUND)
        for seat in (ada, bob):
            seat.ws.close()
        server = start(tmp_path, port, "full", *extra)
        again = [Seat(url), Seat(url)]
        for new, old in zip(again, (ada, bob)):
            new.until(lambda m: m["type"] == "state")
            new.send({"type": "hello", "token": old.token})
            new.until(lambda m: m["type"] == "welcome")
            new.until(lambda m: m["type"] == "state")
            new.token = old.token
        for seat in again:  # each hears that the other is back
            if not all(s["present"] for s in seat.state["room"]["seats"]):
                seat.until(lambda m: m["type"] == "state"
                           and all(s["present"] for s in m["room"]["seats"]))
        assert (again[0].state, again[1].state) == before  # no turn lost, nothing more
        turn = play(again, turn, 5)
        assert again[0].state["room"]["turns"] == 12
        for seat in again:
            seat.ws.close()
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=BOUND)
            except subprocess.TimeoutExpired:
                server.kill()
    assert server.returncode == 0, server.stderr.read()
    assert "lc serve: stopped" in server.stdout.read()


def test_without_the_serve_extra_one_line_exit_2(tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "uvicorn.py").write_text("raise ImportError('no uvicorn here')\n")
    env = dict(os.environ, PYTHONPATH=str(blocker))
    proc = subprocess.run([*lc_command(), "serve", "--data", str(tmp_path / "d")],
                          capture_output=True, text=True, env=env, timeout=BOUND)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error:")
    assert "pip install 'lostcities[serve]'" in lines[0] and "Traceback" not in proc.stderr


def test_lc_serve_durability_is_full_or_normal(tmp_path: Path) -> None:
    """A bad --durability is one line, exit 2, before anything is served."""
    out = subprocess.run([*lc_command(), "serve", "--durability",
                          "sometimes", "--data", str(tmp_path / "rooms")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error: --durability")
    assert not (tmp_path / "rooms").exists()


def test_a_match_played_on_postgresql_is_kept_by_a_restart(tmp_path: Path, pg_cluster) -> None:
    """A real ``lc serve --store postgresql://`` plays a whole match over its sockets; its
    turns, its room and its replay are in the database and the data folder, and a
    restarted server (Ctrl-C, then a new process) serves them as they were."""
    url = pg_cluster.database()
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "tiny.yaml").write_text(TINY_PACK, encoding="utf-8")
    port = free_port()
    extra = ("--packs", str(packs), "--store", url)
    server = start_lc_serve(tmp_path / "data", port, *extra, bound=BOUND)
    try:
        room = new_room(port, "tiny")
        ws = f"ws://127.0.0.1:{port}/rooms/{room}/ws"
        ada, bob = RoomSocket(ws), RoomSocket(ws)
        for seat, name in ((ada, "Ada"), (bob, "Bob")):
            seat.until(lambda m: m["type"] == "state")
            seat.send({"type": "line", "text": f"/join {name}"})
            seat.until(lambda m: m["type"] == "seated")
        ada.send({"type": "line", "text": "/start"})
        turns = 0
        while True:
            states = [s.state if s.state["room"]["turns"] >= turns
                      and s.state["room"]["status"] != "lobby" else
                      s.until(lambda m: m["type"] == "state" and m["room"]["turns"] >= turns
                              and m["room"]["status"] != "lobby") for s in (ada, bob)]
            if states[0]["room"]["status"] == "over":
                break
            mover = next(s for s, st in zip((ada, bob), states) if st["legal"])
            mover.send({"type": "move", "move": mover.state["legal"][0]})
            turns += 1
        end = next((m for m in ada.seen if m["type"] == "match"), None) or \
            ada.until(lambda m: m["type"] == "match")
        for seat in (ada, bob):
            seat.close()
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=BOUND) == 0
        stored = pg_cluster.execute(url, f"SELECT COUNT(*) FROM turns WHERE room='{room}'")
        assert stored == [(turns,)] and turns > 0
        assert (tmp_path / "data" / "records" / end["record"]).exists()
        server = start_lc_serve(tmp_path / "data", port, *extra, bound=BOUND)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/rooms/{room}",
                                    timeout=BOUND) as answer:
            public = json.load(answer)["room"]
        assert (public["status"], public["turns"], public["replay"]) == \
            ("over", turns, end["replay"])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{end['replay']}/frames?lang=en",
                                    timeout=BOUND) as answer:
            frames = json.load(answer)
        assert frames["players"] == ["Ada", "Bob"] and frames["winners"] == end["winners"]
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=BOUND)
            except subprocess.TimeoutExpired:
                server.kill()


def welcomed(url: str, token: str) -> "RoomSocket | None":
    """A socket to ``url`` that the server seated with ``token`` (its state read), or None
    when the server closed it (1013: its database is not back yet)."""
    try:
        socket = RoomSocket(url, token=token)
        socket.until(lambda m: m["type"] == "state" and m["seat"] is not None)
        return socket
    except (websockets.exceptions.ConnectionClosed, OSError):
        return None


def test_a_move_while_postgresql_is_down_is_never_stored_then_played_once_it_is_back(
        tmp_path: Path) -> None:
    """PostgreSQL stopped under a running ``lc serve --store``: a move sent then is refused
    (``error.cannot-save``, nothing stored, nothing told) or its socket closed first; the
    server closes every socket with 1012 within its listener's check, and refuses new ones
    with 1013 while the database is away (docs/server.md, "Several processes", Faults);
    PostgreSQL started again, the client reconnects with its token (as the page does, with
    back-off), the same move is played and stored once, without restarting ``lc serve``."""
    require_postgres()  # (skipped, or under LC_REQUIRE_POSTGRES=1 failed)
    with cluster() as own:
        url = own.database()
        port = free_port()
        server = start_lc_serve(tmp_path / "data", port, "--store", url, bound=BOUND)
        try:
            room = new_room(port)
            ws = f"ws://127.0.0.1:{port}/rooms/{room}/ws"
            ada, bob = RoomSocket(ws), RoomSocket(ws)
            for seat, name in ((ada, "Ada"), (bob, "Bob")):
                seat.until(lambda m: m["type"] == "state")
                seat.send({"type": "line", "text": f"/join {name}"})
                seat.until(lambda m: m["type"] == "seated")
            ada.send({"type": "line", "text": "/start"})
            states = [s.until(lambda m: m["type"] == "state"
                              and m["room"]["status"] == "playing") for s in (ada, bob)]
            mover = next(s for s, st in zip((ada, bob), states) if st["legal"])
            move = mover.state["legal"][0]
            own.halt()
            try:
                mover.send({"type": "move", "move": move})
                said = mover.until(lambda m: m["type"] in ("error", "state"))
                assert said["type"] == "error" and said["key"] == "error.cannot-save"
            except websockets.exceptions.ConnectionClosed:
                pass  # (closed before the move was read: as well)
            for seat in (ada, bob):  # every socket closed: "service restart"
                with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                    seat.until(lambda m: False)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
            while_away = RoomSocket(ws)  # a socket opened meanwhile: "try again later"
            with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                while_away.until(lambda m: False)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
            own.start()
            back = wait_for(lambda: welcomed(ws, mover.token), "the server back")
            back.send({"type": "move", "move": move})
            played = back.until(lambda m: m["type"] in ("error", "state")
                                and (m["type"] == "error" or m["room"]["turns"] == 1))
            assert played["type"] == "state", played
            assert own.execute(url, f"SELECT text FROM turns WHERE room='{room}'") == [(move,)]
            back.close()
        finally:
            if server.poll() is None:
                server.send_signal(signal.SIGINT)
                try:
                    server.wait(timeout=BOUND)
                except subprocess.TimeoutExpired:
                    server.kill()
