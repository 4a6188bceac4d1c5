"""Storage faults of ``lc serve``: a damaged stored row leaves its room out (503, one log
line) and every other room plays; a damaged chat row is skipped; a scrambled or
incomplete database stops the server at start in one line; a write refused by a full
disk gets that client one error and keeps its connection (a bot tries again later);
a second server on one data folder is refused, and a server killed with ``kill -9``
leaves no lock behind. Real ``lc serve`` processes where the issue says so; the fuzz
damages random cells in process (``create_app``)."""
from __future__ import annotations

import json
import resource
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

websockets = pytest.importorskip("websockets")
pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402
from test_server_protocol import FAST, Player, connect  # noqa: E402
from websockets.sync.client import connect as ws_connect  # noqa: E402

from lostcities.engine import load_pack  # noqa: E402
from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.room import Room  # noqa: E402
from lostcities.server.store import BOT, OVER, PLAYING, SeatRow, SQLiteStore  # noqa: E402
from server_support import BOUND, free_port, lc_command, new_room, start_lc_serve, wait_for  # noqa: E402,E501

pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")

#: the rooms of a prepared data folder: a match under way (a human and a bot, turns and
#: chat lines stored) in each of the first, a lobby with one seat in the last
PLAYED = ("seedroom", "labelsxx", "seenroom", "chatroom", "goodroom")
LOBBY_ROOM = "lobbyrmx"


def prepared(data: Path, rooms: tuple[str, ...] = PLAYED) -> Path:
    """A data folder whose rooms were played through the room itself (no server): in
    each, Ada and a greedy bot, the match started, two chat lines, a few turns each way,
    Ada to move; and a lobby. Its database's path."""
    data.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(data / "rooms.sqlite3", durable=False)
    pack = load_pack("duel-classic")
    for room_id in rooms:
        room = Room.create(store, room_id, pack, "builtin:duel-classic")
        room.line(None, "/join Ada")
        room.line(0, "/bot greedy")
        room.line(0, "/start")
        room.line(0, "hello")
        room.line(None, "a spectator's word")
        while room.turns < 6 or room.bot_turn() is not None:
            turn = room.bot_turn()
            if turn is not None:
                room.bot_move(turn, turn.choose(room.bots))
            else:
                room.move(0, room.view_for(0)["legal"][0])
    lobby = Room.create(store, LOBBY_ROOM, pack, "builtin:duel-classic")
    lobby.line(None, "/join Cy")
    store.close()
    return data / "rooms.sqlite3"


def damage(database: Path, *statements: str) -> None:
    db = sqlite3.connect(database)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def http_get(port: int, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=BOUND) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


class ServerLog:
    """What a real server writes on stderr (a pipe: a file would be refused too, once
    the test refuses the server's writes), read as it comes by a thread of its own."""

    def __init__(self, server: subprocess.Popen):
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, args=(server.stderr,), daemon=True)
        self.reader.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    def when(self, check: Callable[[list[str]], bool]) -> list[str]:
        """The lines so far once ``check`` holds for them (waited for up to BOUND)."""
        wait_for(lambda: check(list(self.lines)), f"the log to show it:\n{self.lines}")
        return list(self.lines)


def stop(server: subprocess.Popen) -> None:
    server.send_signal(signal.SIGINT)
    try:
        server.wait(BOUND)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


class Socket:
    """A real WebSocket client of a real server: each message received, in order."""

    def __init__(self, port: int, room: str):
        self.ws = ws_connect(f"ws://127.0.0.1:{port}/rooms/{room}/ws", open_timeout=BOUND)
        self.state: Any = None

    def receive(self) -> dict:
        message = json.loads(self.ws.recv(timeout=BOUND))
        if message["type"] == "state":
            self.state = message
        return message

    def until(self, check: Callable[[dict], bool]) -> dict:
        while True:
            message = self.receive()
            if check(message):
                return message

    def send(self, message: dict) -> None:
        self.ws.send(json.dumps(message))

    def ping(self) -> list[dict]:
        """Every message received before the answer to a ping (the connection is open)."""
        self.send({"type": "ping"})
        got = []
        while (message := self.receive())["type"] != "pong":
            got.append(message)
        return got


# --------------------------------------------------------------------------- damaged rows

def test_a_damaged_room_is_left_out_and_every_other_room_plays(tmp_path: Path) -> None:
    """A text seed, labels that are not a JSON list, a text ``seats.seen``: each room is
    left out with one log line and answers 503 (HTTP; WebSocket: one error, then closed),
    while the others are played; a chat row with a text number is skipped, said once."""
    database = prepared(tmp_path / "data")
    damage(database, "UPDATE rooms SET seed='x7' WHERE id='seedroom'",
           "UPDATE rooms SET labels='Ada,greedy' WHERE id='labelsxx'",
           "UPDATE seats SET seen='yesterday' WHERE room='seenroom' AND seat=0",
           "UPDATE chat SET number='two' WHERE room='chatroom' AND number=0")
    port = free_port()
    server = start_lc_serve(tmp_path / "data", port)
    log = ServerLog(server)
    try:
        damaged = {"seedroom": "seed", "labelsxx": "labels", "seenroom": "seen"}
        lines = log.when(lambda lines: all(any(r in line for line in lines) for r in damaged))
        for room, column in damaged.items():
            said = [line for line in lines if room in line]
            assert len(said) == 1 and column in said[0] and "left out" in said[0], lines
            status, answer = http_get(port, f"/rooms/{room}")
            assert status == 503 and answer["error"] == "error.room-unavailable"
            with ws_connect(f"ws://127.0.0.1:{port}/rooms/{room}/ws",
                            open_timeout=BOUND) as ws:
                error = json.loads(ws.recv(timeout=BOUND))
                assert error["type"] == "error" and error["key"] == "error.room-unavailable"
                with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                    ws.recv(timeout=BOUND)
                assert closed.value.rcvd.code == 1011
        assert http_get(port, f"/rooms/{LOBBY_ROOM}")[0] == 200
        for room in ("goodroom", "chatroom"):
            assert http_get(port, f"/rooms/{room}")[0] == 200
            first, second = Socket(port, room), Socket(port, room)
            got = first.ping()
            assert [m["text"] for m in got if m["type"] == "chat"] == \
                (["a spectator's word"] if room == "chatroom" else
                 ["hello", "a spectator's word"])
            first.send({"type": "line", "text": "still here"})
            assert first.until(lambda m: m["type"] == "chat")["text"] == "still here"
            assert second.until(lambda m: m["type"] == "chat" and m["text"] == "still here")
            second.ping()
        lines = log.when(lambda lines: any("chatroom" in line for line in lines))
        assert len([line for line in lines if "chatroom" in line]) == 1, lines
        assert "chat row" in next(line for line in lines if "chatroom" in line)
        assert not any("Traceback" in line for line in lines), lines
    finally:
        stop(server)


def test_a_chat_row_with_a_text_number_drops_no_connection(tmp_path: Path) -> None:
    """In process: the backlog skips the row, a new line is numbered after the good
    ones, every client of the room stays."""
    database = prepared(tmp_path, ("chatroom",))
    damage(database, "UPDATE chat SET number='x' WHERE room='chatroom' AND number=1")
    with TestClient(create_app(tmp_path, limits=FAST, durable=False)) as client:
        with connect(client, "chatroom") as a, connect(client, "chatroom") as b:
            ada, bob = Player(a), Player(b)
            got = ada.ping()
            assert [m["text"] for m in got if m["type"] == "chat"] == ["hello"]
            ada.line("again")
            line = ada.until(lambda m: m["type"] == "chat" and m["text"] == "again")
            assert line["number"] == 1  # after the good rows: 'x' is no number
            bob.until(lambda m: m["type"] == "chat" and m["text"] == "again")
            bob.ping()


# --------------------------------------------------------------------------- the database at start

def scramble_last_page(database: Path) -> None:
    size = database.stat().st_size
    with open(database, "r+b") as stream:
        stream.seek(size - 4096)
        stream.write(bytes(range(256)) * 16)


@pytest.mark.parametrize("fault", ["scrambled last page", "no turns table",
                                   "a column missing"])
def test_a_damaged_database_stops_lc_serve_in_one_line(tmp_path: Path, fault: str) -> None:
    database = prepared(tmp_path / "data", ("goodroom",))
    if fault == "scrambled last page":
        scramble_last_page(database)
    elif fault == "no turns table":
        damage(database, "DROP TABLE turns")
    else:
        damage(database, "ALTER TABLE seats RENAME COLUMN seen TO seen_at")
    done = subprocess.run(lc_command() + ["serve", "--port", str(free_port()), "--data",
                                          str(tmp_path / "data")],
                          capture_output=True, text=True, timeout=BOUND)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("lc: error: --data"), \
        done.stderr
    said = {"scrambled last page": "damaged (SQLite quick_check",
            "no turns table": "the table turns is missing",
            "a column missing": "the table seats has no column seen"}[fault]
    assert said in done.stderr


# --------------------------------------------------------------------------- a full disk

def limit_file_size(pid: int, size: int) -> None:
    """The largest file offset process ``pid`` may write at (``RLIMIT_FSIZE``): a write
    beyond it fails (EFBIG) as on a full disk; Python's servers ignore SIGXFSZ."""
    hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)[1]
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (size, hard))


full_disk = pytest.mark.skipif(not hasattr(resource, "prlimit"),
                               reason="needs prlimit (Linux) to refuse the server's writes")


@full_disk
def test_a_write_refused_gets_one_error_and_the_connection_stays(tmp_path: Path) -> None:
    port = free_port()
    server = start_lc_serve(tmp_path / "data", port)
    log = ServerLog(server)
    try:
        room = new_room(port)
        ada, bob = Socket(port, room), Socket(port, room)
        ada.send({"type": "line", "text": "/join Ada"})
        ada.until(lambda m: m["type"] == "seated")
        bob.send({"type": "line", "text": "/join Bob"})
        bob.until(lambda m: m["type"] == "seated")
        ada.send({"type": "line", "text": "/start"})
        for s in (ada, bob):
            s.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        mover, other = (ada, bob) if ada.state["legal"] else (bob, ada)
        move = mover.state["legal"][0]

        limit_file_size(server.pid, 1)  # every write of the server fails from now
        mover.send({"type": "line", "text": "not saved"})
        mover.send({"type": "move", "move": move})
        got = mover.ping()  # the connection stays: pong
        assert [(m["type"], m.get("key")) for m in got] == \
            [("error", "error.cannot-save")] * 2, got
        assert "cannot save" in got[0]["text"]
        assert not [m for m in other.ping() if m["type"] in ("chat", "turn", "state")]
        assert http_get(port, f"/rooms/{room}")[1]["room"]["turns"] == 0

        limit_file_size(server.pid, resource.RLIM_INFINITY)  # space is back
        mover.send({"type": "move", "move": move})
        for s in (mover, other):
            assert s.until(lambda m: m["type"] == "turn")["move"] == move
        other.send({"type": "line", "text": "saved"})
        assert mover.until(lambda m: m["type"] == "chat")["text"] == "saved"
        assert http_get(port, f"/rooms/{room}")[1]["room"]["turns"] == 1
        lines = log.when(lambda lines: any("refused a write" in line for line in lines))
        assert not any("Traceback" in line for line in lines), lines
    finally:
        stop(server)


@full_disk
def test_a_bot_whose_move_cannot_be_saved_plays_it_when_it_can(tmp_path: Path) -> None:
    """Two bots play a stored match on their own; their writes refused, the room's
    runner waits and tries again (the log says it), and plays on once space is back."""
    data = tmp_path / "data"
    data.mkdir()
    store = SQLiteStore(data / "rooms.sqlite3")
    store.create_room("botsroom", "builtin:duel-classic", 11)
    for seat in (0, 1):
        store.put_seat("botsroom", SeatRow(seat, f"bot {seat + 1}", BOT, "ismcts@1", "", False))
    store.start("botsroom", ["bot 1", "bot 2"])
    store.close()
    port = free_port()
    server = start_lc_serve(data, port)
    log = ServerLog(server)
    try:
        limit_file_size(server.pid, 1)
        log.when(lambda lines: any("botsroom" in line and "refused a write" in line
                                   for line in lines))
        stuck = http_get(port, "/rooms/botsroom")[1]["room"]["turns"]
        limit_file_size(server.pid, resource.RLIM_INFINITY)
        wait_for(lambda: http_get(port, "/rooms/botsroom")[1]["room"]["turns"] >= stuck + 2,
                 "the bots to play on")
        assert not any("Traceback" in line for line in log.lines), log.lines
    finally:
        stop(server)


# --------------------------------------------------------------------------- one server a folder

def test_a_second_lc_serve_on_one_data_folder_is_refused_and_kill_9_leaves_no_lock(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = start_lc_serve(data, free_port())
    try:
        second = subprocess.run(lc_command() + ["serve", "--port", str(free_port()),
                                                "--data", str(data)],
                                capture_output=True, text=True, timeout=BOUND)
        assert second.returncode == 1, second.stderr
        assert second.stderr == f"lc: error: --data {data} is in use by another lc serve " \
            f"(pid {first.pid}); stop that one first, or give another --data\n"
    finally:
        first.kill()  # kill -9: the system drops its lock
        first.wait()
    port = free_port()
    again = start_lc_serve(data, port)
    try:
        new_room(port)
    finally:
        stop(again)


# --------------------------------------------------------------------------- fuzz

#: the cells the fuzz may damage: table -> columns (a row's room id is kept, so that the
#: damage stays in the room it was made in)
CELLS = {"rooms": ("pack", "seed", "status", "labels", "created", "pack_data", "pack_sha256",
                   "hints"),
         "seats": ("seat", "name", "kind", "bot", "token_hash", "wants_cont", "seen"),
         "turns": ("number", "kind", "text"),
         "chat": ("number", "name", "text", "at")}
VALUES = st.one_of(st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=False),
                   st.text(max_size=12), st.binary(max_size=6),
                   st.sampled_from(["[]", '["Ada"]', '["Ada", "Bob", "Cy"]', "lobby",
                                    "playing", "over", "human", "bot", "left", "move", "cont",
                                    "greedy", "p r2 deck", "builtin:board-classic", "1e999",
                                    "-0", "0", "1", "2"]))
DAMAGE = st.tuples(st.sampled_from(PLAYED + (LOBBY_ROOM,)),
                   st.sampled_from(sorted(CELLS)), st.integers(0, 99))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return prepared(tmp_path_factory.mktemp("template"))


def damage_cells(database: Path, picks: list, data: Any) -> set[str]:
    """Put a drawn value in a drawn cell of a drawn row of each picked room; the rooms
    damaged."""
    db = sqlite3.connect(database)
    rooms = set()
    for room, table, row in picks:
        key = "id" if table == "rooms" else "room"
        rowids = [r[0] for r in db.execute(f"SELECT rowid FROM {table} WHERE {key}=?",
                                           (room,))]
        if not rowids:
            continue
        column = data.draw(st.sampled_from(CELLS[table]))
        value = data.draw(VALUES)
        db.execute(f"UPDATE OR IGNORE {table} SET {column}=? WHERE rowid=?",
                   (value, rowids[row % len(rowids)]))
        rooms.add(room)
    db.commit()
    db.close()
    return rooms


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(picks=st.lists(DAMAGE, min_size=1, max_size=3), data=st.data())
def test_fuzz_damaged_cells_leave_every_other_room_playing(template: Path, picks: list,
                                                           data: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(template, Path(folder) / "rooms.sqlite3")
        damaged = damage_cells(Path(folder) / "rooms.sqlite3", picks, data)
        with TestClient(create_app(Path(folder), limits=FAST, durable=False)) as client:
            for room in PLAYED + (LOBBY_ROOM,):
                answer = client.get(f"/rooms/{room}")
                if room not in damaged:
                    assert answer.status_code == 200, answer.text
                else:
                    assert answer.status_code in (200, 503), answer.text
                with connect(client, room) as socket:
                    player = Player(socket)
                    first = player.receive()
                    if answer.status_code == 503:
                        assert first["key"] == "error.room-unavailable"
                        with pytest.raises(WebSocketDisconnect):
                            player.receive()
                        continue
                    assert first["type"] == "welcome"
                    player.ping()
                    player.line("/help")
                    player.until(lambda m: m.get("key") == "info.help")
            assert set(client.app.state.hub.quarantined) <= damaged


# --------------------------------------------------------------------------- a record not written

def test_a_record_that_cannot_be_written_loses_no_turn(tmp_path: Path,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    """The match's last turn is stored and played though its record cannot be written
    (one log line); the room's next load writes it."""
    records = tmp_path / "records"
    records.write_text("a file where the records folder should be")
    store = SQLiteStore(tmp_path / "rooms.sqlite3", durable=False)
    room = Room.create(store, "lastturn", load_pack("duel-classic"), "builtin:duel-classic",
                       records=records)
    room.line(None, "/join Ada")
    room.line(0, "/bot greedy")
    room.line(0, "/start")
    while room.status == PLAYING:
        turn = room.bot_turn()
        if turn is not None:
            room.bot_move(turn, turn.choose(room.bots))
        else:
            room.move(0, room.view_for(0)["legal"][0])
    assert room.status == OVER and len(store.turns("lastturn")) == room.turns
    said = [r.getMessage() for r in caplog.records if "lastturn" in r.getMessage()]
    assert len(said) == 1 and "is not written" in said[0], said
    records.unlink()
    Room.load(store, "lastturn", lambda ref: load_pack(ref.partition(":")[2]),
              records=records)
    assert [p.name for p in records.iterdir()] == [room.record_names[-1]]
