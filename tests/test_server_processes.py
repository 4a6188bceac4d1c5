"""Several real ``lc serve`` processes on one real PostgreSQL database and one shared
``--data`` folder (issue 31 items 2 and 3; docs/server.md, "Several processes on one
database"): no sticky sessions, so a client of either process joins, plays and watches any
room; the last seat raced through two processes; ``kill -9`` of a process mid-match (a
human's, a bot room's, a rated clocked room's nobody comes back to); the database
restarted under the processes; the quick match and the lobby across processes.

Two processes, A and B, are started once for the module on a PostgreSQL cluster of the
module's own (the database-restart test stops and starts it; the session's ``pg_cluster``
is shared with other modules' tests). A test that kills a process leaves it dead; the
``servers`` fixture starts it again before the next test. Each test has rooms of its own.
"""
from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
from websockets.exceptions import ConnectionClosed  # noqa: E402

from pg_support import Cluster, cluster, require_postgres  # noqa: E402
from server_support import (BOUND, TINY_PACK, RoomSocket, free_port,  # noqa: E402
                            lc_command, new_room, start_lc_serve, wait_for)

pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")

#: what every process of the module is started with: a room nobody moved in for 1 s is
#: taken up by any process (its bot played, its clock watched); the per-address caps
#: raised, since every test's client is 127.0.0.1 and the module opens many rooms
LIMITS = ("--limit", "orphan_seconds=1", "--limit", "address_rooms_per_minute=1000",
          "--limit", "address_rooms=1000", "--limit", "address_players_per_minute=1000")
#: a rated room's clock: long enough for a loaded machine's moves, short for the test
TEN_SECONDS_A_MOVE = {"kind": "move", "seconds": 10}
#: a casual room's clock whose first move nobody plays: the shortest there is
FIVE_SECONDS_A_MOVE = {"kind": "move", "seconds": 5}
#: the reconnecting client's back-off, as the page's: the first wait, the longest
BACKOFF_FIRST, BACKOFF_MOST = 0.25, 4.0


# --------------------------------------------------------------------------- the harness

class Server:
    """One ``lc serve`` of the module: its name (``A``, ``B``), port and process; its
    output in a log file of its own (read back when it fails)."""

    def __init__(self, name: str, data: Path, store: str, logs: Path, packs: Path):
        self.name, self.data, self.store, self.port = name, data, store, free_port()
        self.packs = packs
        self.log = logs / f"lc-serve-{name}.log"
        self.proc: Optional[subprocess.Popen] = None
        self.start()

    def start(self) -> None:
        with self.log.open("a", encoding="utf-8") as out:
            out.write(f"--- lc serve {self.name} started at {time.time():.3f}\n")
            out.flush()
            self.proc = start_lc_serve(self.data, self.port, "--store", self.store,
                                       "--packs", str(self.packs), *LIMITS,
                                       stdout=out, stderr=out, log=self.log, bound=BOUND)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """``kill -9``: nothing said, nothing flushed."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=BOUND)

    def stop(self) -> None:
        if self.alive:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=BOUND)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def said(self) -> str:
        """The log's last lines (for an assertion's message)."""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-40:])

    def ws(self, room: str) -> str:
        return f"ws://127.0.0.1:{self.port}/rooms/{room}/ws"

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}",
                                    timeout=BOUND) as answer:
            return json.load(answer)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}",
                                         data=json.dumps(body).encode(), method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=BOUND) as answer:
            return json.load(answer)

    def room(self, room: str) -> dict[str, Any]:
        """``GET /rooms/ID``'s ROOMINFO."""
        return self.get(f"/rooms/{room}")["room"]

    def __repr__(self) -> str:
        return f"lc serve {self.name} (port {self.port})"


class Fleet:
    """The module's database and its processes A and B."""

    def __init__(self, db: Cluster, url: str, a: Server, b: Server):
        self.db, self.url, self.a, self.b = db, url, a, b

    def turns(self, room: str) -> list[tuple[int, str, str]]:
        """The room's stored turns, read from the database: (number, kind, text)."""
        return [tuple(row) for row in self.db.execute(
            self.url, f"SELECT number, kind, text FROM turns WHERE room='{room}' "
                      "ORDER BY number")]

    def seats(self, room: str) -> list[tuple[int, str, str]]:
        """The room's stored seats: (seat, name, kind)."""
        return [tuple(row) for row in self.db.execute(
            self.url, f"SELECT seat, name, kind FROM seats WHERE room='{room}' ORDER BY seat")]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    """A PostgreSQL cluster of the module's own, one database, one shared ``--data``
    folder, the tiny house pack (``--packs``), and two ``lc serve`` processes on them (no
    cluster can run here: skipped as
    ``pg_cluster`` is, a failure under ``LC_REQUIRE_POSTGRES=1``)."""
    require_postgres()
    folder = tmp_path_factory.mktemp("processes")
    with cluster() as db:
        url = db.database()
        data, packs = folder / "data", folder / "packs"
        packs.mkdir()
        (packs / "tiny.yaml").write_text(TINY_PACK, encoding="utf-8")
        servers: list[Server] = []
        try:
            servers.append(Server("A", data, url, folder, packs))
            servers.append(Server("B", data, url, folder, packs))
            yield Fleet(db, url, *servers)
        finally:
            for server in servers:
                server.stop()


@pytest.fixture
def servers(fleet: Fleet) -> Fleet:
    """The fleet with both processes running (one a previous test killed is started again
    on the same port)."""
    for server in (fleet.a, fleet.b):
        if not server.alive:
            server.start()
    return fleet


def state_of(socket: RoomSocket, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The socket's last state if it passes ``check``, else the next one that does (an
    ``error`` meanwhile fails the test at once: the server refused what the test sent)."""
    if socket.state is not None and check(socket.state):
        return socket.state
    try:
        found = socket.until(lambda m: m["type"] == "error" or (
            m["type"] == "state" and check(m)))
    except TimeoutError:
        raise AssertionError(f"{socket.url}: no such state in {BOUND} s; the last messages: "
                             f"{json.dumps(socket.seen[-4:])[-3000:]}") from None
    assert found["type"] == "state", f"{socket.url}: refused {found}; the messages " \
        f"before: {json.dumps(socket.seen[-4:-1])[-3000:]}"
    return found


def at_turn(socket: RoomSocket, turns: int) -> dict[str, Any]:
    """The socket's state once the room is under way with ``turns`` turns stored."""
    return state_of(socket, lambda m: m["room"]["status"] == "playing"
                    and m["room"]["turns"] == turns)


def seated(server: Server, room: str, name: str, player: str = "") -> RoomSocket:
    """A client of ``server`` that took a seat of ``room`` with ``/join NAME`` (as the
    player of key ``player``, if given)."""
    socket = RoomSocket(server.ws(room), player=player)
    if player:
        socket.until(lambda m: m["type"] == "welcome" and m["player"] is not None)
    socket.until(lambda m: m["type"] == "state")
    socket.send({"type": "line", "text": f"/join {name}".strip()})
    socket.until(lambda m: m["type"] == "seated")
    return socket


def both_seated(sockets: list[RoomSocket], seats: int) -> None:
    """Each socket's state shows ``seats`` seats taken (each process told of the others)."""
    for socket in sockets:
        state_of(socket, lambda m: len(m["room"]["seats"]) == seats)


def mover_of(sockets: list[RoomSocket], turns: int) -> RoomSocket:
    """The socket whose seat is to move at turn ``turns`` (each told of that turn)."""
    states = [at_turn(s, turns) for s in sockets]
    movers = [s for s, state in zip(sockets, states) if state["legal"]]
    assert len(movers) == 1, [s["view"]["to_move"] for s in states]
    return movers[0]


def play(sockets: list[RoomSocket], first: int, count: int) -> list[str]:
    """``count`` turns from turn ``first``, each by the seat to move (its first legal move),
    each seen by every socket as a ``turn`` and a new ``state``: the moves sent."""
    sent = []
    for number in range(first, first + count):
        mover = mover_of(sockets, number)
        move = mover.state["legal"][0]
        mover.send({"type": "move", "move": move})
        sent.append(move)
        for socket in sockets:
            told = socket.until(lambda m: m["type"] == "turn" and m["number"] == number)
            assert told["move"] == move, (told, move)
            at_turn(socket, number + 1)
    return sent


def close_code(socket: RoomSocket) -> Optional[int]:
    """Read the socket until it closes (every message kept in ``seen``; at most BOUND
    seconds each): the code the server closed it with (None: no close frame)."""
    try:
        while True:
            socket.until(lambda m: False)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None
    except TimeoutError:
        raise AssertionError(f"the socket stayed open {BOUND} s; its last messages: "
                             f"{socket.seen[-3:]}") from None


def reconnected(server: Server, room: str, token: str, seat: int) -> RoomSocket:
    """A client that comes back to ``seat`` of ``room`` through ``server`` with its token,
    as the page does: a refused or closed attempt is tried again after a back-off
    (0.25 s doubling to 4 s), for at most BOUND seconds."""
    delay, deadline = BACKOFF_FIRST, time.monotonic() + BOUND
    last: Any = None
    while True:
        socket: Optional[RoomSocket] = None
        try:
            socket = RoomSocket(server.ws(room), token=token)
            last = socket.until(lambda m: m["type"] == "error" or (
                m["type"] == "state" and m["seat"] == seat))
            if last["type"] == "state":
                return socket
        except (OSError, ConnectionClosed, TimeoutError) as failed:
            last = failed
        if socket is not None:
            with contextlib.suppress(Exception):
                socket.close()
        if time.monotonic() > deadline:
            raise AssertionError(f"no seat {seat} of {room} through {server} in {BOUND} s "
                                 f"(last: {last!r}):\n{server.said()}")
        time.sleep(delay)  # the back-off between two attempts, not a synchronisation
        delay = min(delay * 2, BACKOFF_MOST)


def public(view: dict[str, Any]) -> dict[str, Any]:
    """What every seat's view of one moment shares: the table, not the hand."""
    return {key: value for key, value in view.items() if key not in ("seat", "hand")}


def closing(*sockets: RoomSocket) -> None:
    for socket in sockets:
        with contextlib.suppress(Exception):
            socket.close()


# --------------------------------------------------------------------------- play across

def test_a_room_of_a_is_played_and_watched_through_b(servers: Fleet) -> None:
    """Ann on A, Bob on B, a spectator on B: each told of the other's join, the deal, every
    turn (a ``turn`` and a fresh ``state``, hands hidden: each sees its own hand only, the
    spectator none, the table the same for all) and a chat line said through A."""
    a, b = servers.a, servers.b
    room = new_room(a.port)
    ann = seated(a, room, "Ann")
    bob = seated(b, room, "Bob")
    watcher = RoomSocket(b.ws(room))
    try:
        both_seated([ann, bob], 2)
        assert [s["name"] for s in ann.state["room"]["seats"]] == ["Ann", "Bob"]
        ann.send({"type": "line", "text": "/start"})
        sent = play([ann, bob], 0, 8)
        watched = at_turn(watcher, 8)
        mine = {0: at_turn(ann, 8), 1: at_turn(bob, 8)}
        for seat, state in mine.items():
            view = state["view"]
            assert state["seat"] == seat and view["seat"] == seat
            assert len(view["hand"]) == view["hand_sizes"][seat]
            assert public(view) == public(watched["view"])
        assert watched["seat"] is None and watched["view"]["hand"] is None
        assert mine[0]["view"]["hand"] != mine[1]["view"]["hand"]
        for seat, socket in enumerate((ann, bob)):  # every state: its own seat's hand only
            for state in (m for m in socket.seen if m["type"] == "state" and m["view"]):
                assert state["seat"] == state["view"]["seat"] == seat
                assert len(state["view"]["hand"]) == state["view"]["hand_sizes"][seat]
        assert all(m["view"]["hand"] is None for m in watcher.seen
                   if m["type"] == "state" and m["view"])
        for socket in (ann, bob, watcher):  # each turn told once, in order
            assert [m["number"] for m in socket.seen if m["type"] == "turn"] == list(range(8))
        ann.send({"type": "line", "text": "a line said through A"})
        for socket in (bob, watcher):
            chat = socket.until(lambda m: m["type"] == "chat")
            assert (chat["name"], chat["text"]) == ("Ann", "a line said through A")
        assert [t[2] for t in servers.turns(room)] == sent
        assert b.room(room)["turns"] == a.room(room)["turns"] == 8
    finally:
        closing(ann, bob, watcher)


def test_a_match_played_to_its_end_across_processes_has_one_record_that_replays(
        servers: Fleet) -> None:
    """A match of the tiny pack, Ann on A and Bob on B, played to its end: both told of it
    with the same record and replay, one record file of the room in the shared ``--data``,
    which ``lc replay --check`` replays, and the replay served by both processes."""
    a, b = servers.a, servers.b
    room = new_room(a.port, "tiny")
    ann = seated(a, room, "Ann")
    bob = seated(b, room, "Bob")
    try:
        both_seated([ann, bob], 2)
        ann.send({"type": "line", "text": "/start"})
        number = 0
        while True:
            states = [state_of(s, lambda m: m["room"]["status"] != "lobby"
                               and m["room"]["turns"] == number) for s in (ann, bob)]
            if states[0]["room"]["status"] == "over":
                break
            mover = next(s for s, state in zip((ann, bob), states) if state["legal"])
            mover.send({"type": "move", "move": mover.state["legal"][0]})
            number += 1
        ends = [next((m for m in s.seen if m["type"] == "match"), None)
                or s.until(lambda m: m["type"] == "match") for s in (ann, bob)]
    finally:
        closing(ann, bob)
    assert ends[0] == ends[1] and number > 0 and len(servers.turns(room)) == number
    records = sorted((servers.a.data / "records").glob(f"room-{room}-*.jsonl"))
    assert [r.name for r in records] == [ends[0]["record"]]
    check = subprocess.run([*lc_command(), "replay", "--check", str(records[0])],
                           capture_output=True, text=True, timeout=BOUND)
    assert check.returncode == 0, check.stdout + check.stderr
    for server in (a, b):
        frames = server.get(f"{ends[0]['replay']}/frames?lang=en")
        assert frames["players"] == ["Ann", "Bob"] and frames["winners"] == ends[0]["winners"]


def test_the_last_seat_raced_through_two_processes_seats_one(servers: Fleet) -> None:
    """A 2-seat room with one seat taken; a client of A and one of B send ``/join`` at the
    same moment (released together from two threads), in three rooms: each time exactly
    one is seated, the other refused with ``error.room-full``, and the database holds two
    seats, as both processes say."""
    a, b = servers.a, servers.b
    for attempt in range(3):
        room = new_room(a.port)
        cy = seated((a, b)[attempt % 2], room, "Cy")
        ann, bob = RoomSocket(a.ws(room)), RoomSocket(b.ws(room))
        try:
            for socket in (ann, bob):
                state_of(socket, lambda m: len(m["room"]["seats"]) == 1)
            answers: dict[str, dict[str, Any]] = {}
            gate = threading.Barrier(2, timeout=BOUND)

            def join(socket: RoomSocket, name: str) -> None:
                gate.wait()
                socket.send({"type": "line", "text": f"/join {name}".strip()})
                answers[name] = socket.until(lambda m: m["type"] in ("seated", "error"))

            racers = [threading.Thread(target=join, args=(s, n))
                      for s, n in ((ann, "Ann"), (bob, "Bob"))]
            for racer in racers:
                racer.start()
            for racer in racers:
                racer.join(BOUND * 2)
            assert sorted(m["type"] for m in answers.values()) == ["error", "seated"], answers
            refused = next(m for m in answers.values() if m["type"] == "error")
            assert refused["key"] == "error.room-full", refused
            winner = next(n for n, m in answers.items() if m["type"] == "seated")
            assert servers.seats(room) == [(0, "Cy", "human"), (1, winner, "human")]
            for server in (a, b):
                assert [s["name"] for s in server.room(room)["seats"]] == ["Cy", winner]
        finally:
            closing(cy, ann, bob)


# --------------------------------------------------------------------------- kill -9

def test_kill_9_of_a_process_mid_match_loses_no_turn_and_plays_none_twice(
        servers: Fleet) -> None:
    """Ann on A, Bob on B; A is killed with SIGKILL the moment Ann has sent her move (not
    yet answered): Ann comes back through B with her token, is seated, finds her move
    either stored (and told to Bob) or not (and plays it again), and the match plays on.
    The database then holds every turn once, numbered without a gap, and each turn was
    told to Bob once."""
    a, b = servers.a, servers.b
    room = new_room(a.port)
    ann = seated(a, room, "Ann")
    bob = seated(b, room, "Bob")
    try:
        both_seated([ann, bob], 2)
        ann.send({"type": "line", "text": "/start"})
        sent = play([ann, bob], 0, 4)
        number = 4
        if mover_of([ann, bob], number) is bob:
            sent += play([ann, bob], number, 1)
            number += 1
        move = at_turn(ann, number)["legal"][0]
        ann.send({"type": "move", "move": move})
        a.kill()
        token = ann.token
        closing(ann)
        ann = reconnected(b, room, token, 0)
        back = ann.state
        if back["room"]["turns"] == number:  # the move died with A: Ann plays it again
            assert back["legal"] and move in back["legal"], back
            ann.send({"type": "move", "move": move})
        else:
            assert back["room"]["turns"] == number + 1, back
        sent.append(move)
        told = bob.until(lambda m: m["type"] == "turn" and m["number"] == number)
        assert told["move"] == move
        at_turn(ann, number + 1), at_turn(bob, number + 1)
        sent += play([ann, bob], number + 1, 5)
        assert [(n, t) for n, _, t in servers.turns(room)] == list(enumerate(sent))
        assert [m["number"] for m in bob.seen if m["type"] == "turn"] == \
            list(range(len(sent)))
        assert b.room(room)["turns"] == len(sent)
        assert b.room(room)["seats"][0]["present"] is True
    finally:
        closing(ann, bob)


def hal_against_random(server: Server, room: str) -> tuple[RoomSocket, int]:
    """Hal seated through ``server`` in ``room`` against the ``random`` bot, the match
    dealt: his socket and his seat."""
    hal = seated(server, room, "Hal")
    try:
        hal.send({"type": "line", "text": "/bot random"})
        state_of(hal, lambda m: len(m["room"]["seats"]) == 2)
        hal.send({"type": "line", "text": "/start"})
        return hal, hal.state["seat"]
    except BaseException:
        closing(hal)
        raise


def test_a_bot_room_of_a_killed_process_is_played_on_by_the_other(servers: Fleet) -> None:
    """Hal against the ``random`` bot in a room opened on A, Hal on A; A is killed the
    moment Hal has sent a move: Hal comes back through B, and B plays the bot's turns
    (the room taken up), every turn stored once."""
    a, b = servers.a, servers.b
    room = new_room(a.port)
    hal, seat = hal_against_random(a, room)
    try:
        def hal_to_move(after: int) -> dict[str, Any]:
            """Hal's state once more than ``after`` turns are stored and Hal is to move."""
            return state_of(hal, lambda m: m["room"]["status"] == "playing"
                            and m["room"]["turns"] > after and m["legal"] is not None)

        number = -1
        for _ in range(2):  # Hal moves, the bot answers, on A
            state = hal_to_move(number)
            number = state["room"]["turns"]
            hal.send({"type": "move", "move": state["legal"][0]})
            hal.until(lambda m: m["type"] == "turn" and m["number"] == number)
        state = hal_to_move(number)
        before, move = state["room"]["turns"], state["legal"][0]
        hal.send({"type": "move", "move": move})
        a.kill()
        token = hal.token
        closing(hal)
        hal = reconnected(b, room, token, seat)
        number = before - 1
        for _ in range(3):  # B's bot answers every move of Hal's
            state = hal_to_move(number)
            number = state["room"]["turns"]
            hal.send({"type": "move", "move": state["legal"][0]})
            hal.until(lambda m: m["type"] == "turn" and m["number"] == number)
            bot = hal.until(lambda m: m["type"] == "turn" and m["number"] == number + 1)
            assert bot["seat"] != seat
            number += 1
        stored = servers.turns(room)
        assert [n for n, _, _ in stored] == list(range(len(stored)))
        assert len(stored) >= before + 6 and stored[before][2] == move  # played once
    finally:
        closing(hal)


def test_a_clocked_bot_room_nobody_comes_back_to_is_played_on_by_the_other(
        servers: Fleet) -> None:
    """Hal against the ``random`` bot in a casual room of 5 s a move, opened on A, Hal on
    A; A is killed while Hal is to move, and nobody comes back: B takes the room up, and
    once Hal's stored time is out (not earlier) plays Hal's move (a ``timeout`` turn), then
    the bot's; Hal, back through B, resigns."""
    a, b = servers.a, servers.b
    room = new_room(a.port, clock=FIVE_SECONDS_A_MOVE)
    hal, seat = hal_against_random(a, room)
    try:
        before = state_of(hal, lambda m: m["room"]["status"] == "playing"
                          and m["legal"] is not None)["room"]["turns"]
        a.kill()
    finally:
        closing(hal)
    wait_for(lambda: len(servers.turns(room)) >= before + 2,
             f"B to play Hal's timed-out turn and the bot's:\n{b.said()}")
    stored = servers.turns(room)
    assert [n for n, _, _ in stored] == list(range(len(stored)))
    assert stored[before][1] == "timeout" and stored[before + 1][1] == "move"
    at = [row[0] for row in servers.db.execute(
        servers.url, f"SELECT at FROM turns WHERE room='{room}' ORDER BY number")]
    started = servers.db.execute(servers.url, f"SELECT started FROM rooms WHERE id='{room}'")
    last = at[before - 1] if before else started[0][0]
    assert at[before] - last >= FIVE_SECONDS_A_MOVE["seconds"] - 0.01  # never early
    hal = reconnected(b, room, hal.token, seat)
    try:
        hal.send({"type": "line", "text": "/resign"})
        over = hal.until(lambda m: m["type"] == "match")
        assert over["forfeit"] == {"seat": seat, "reason": "resign"}
    finally:
        closing(hal)


def test_a_rated_clocked_match_of_a_killed_process_is_forfeited_on_time_by_the_other(
        servers: Fleet) -> None:
    """Ann and Bob, players, in a rated room of 10 s a move opened on A, both on A; three
    turns each, then A is killed and nobody comes back: B takes the room up and the seat
    to move forfeits on time, no earlier than its stored clock says; one rated match, each
    rating changed once (also after A is started again)."""
    a, b = servers.a, servers.b
    ann_p, bob_p = a.post("/players", {"name": "Ann"}), a.post("/players", {"name": "Bob"})
    room = new_room(a.port, rated=True, clock=TEN_SECONDS_A_MOVE)
    ann = seated(a, room, "", player=ann_p["key"])
    bob = seated(a, room, "", player=bob_p["key"])
    try:
        both_seated([ann, bob], 2)
        ann.send({"type": "line", "text": "/start"})
        play([ann, bob], 0, 6)
        late = mover_of([ann, bob], 6).state["seat"]
        a.kill()
    finally:
        closing(ann, bob)
    over = wait_for(lambda: (lambda r: r if r["status"] == "over" else None)(b.room(room)),
                    f"B to forfeit the room of the killed A:\n{b.said()}")
    assert over["forfeit"] == {"seat": late, "reason": "time"} and over["turns"] == 7
    stored = servers.turns(room)
    assert [kind for _, kind, _ in stored].count("forfeit") == 1
    assert stored[-1][1] == "forfeit" and json.loads(stored[-1][2])["seat"] == late
    at = [row[0] for row in servers.db.execute(
        servers.url, f"SELECT at FROM turns WHERE room='{room}' ORDER BY number")]
    assert at[-1] - at[-2] >= TEN_SECONDS_A_MOVE["seconds"] - 0.01  # never early
    assert servers.db.execute(
        servers.url, f"SELECT COUNT(*) FROM rated_matches WHERE room='{room}'") == [(1,)]
    loser = (ann_p, bob_p)[late]["player"]
    a.start()
    for server in (b, a):  # rated once, whichever process is asked, after A's restart too
        for who in (ann_p, bob_p):
            page = server.get(f"/players/{who['player']}.json")
            [rating] = page["ratings"]
            assert rating["matches"] == 1 and len(page["matches"]) == 1, page
            assert page["matches"][0]["note"] == "forfeit"
            assert (rating["mu"] < 25.0) == (who["player"] == loser)
        assert server.room(room)["status"] == "over"


# --------------------------------------------------------------------------- the lobby

class LobbyPage:
    """A lobby page of one process (``WS /lobby/ws``): every message kept."""

    def __init__(self, server: Server):
        self.socket = RoomSocket(f"ws://127.0.0.1:{server.port}/lobby/ws")
        self.snapshot = self.until(lambda m: m["type"] == "lobby")

    def send(self, message: dict[str, Any]) -> None:
        self.socket.send(message)

    def until(self, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        return self.socket.until(check)

    def about(self, room: str, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The next ``added`` or ``changed`` of ``room`` whose summary passes ``check``."""
        return self.until(lambda m: m["type"] in ("added", "changed")
                          and m["room"]["room"] == room and check(m["room"]))

    def close(self) -> None:
        self.socket.close()


def test_the_quick_match_pairs_a_page_of_a_with_a_page_of_b(servers: Fleet) -> None:
    """A page on A waits for a duel (B's lobby shows it waiting), a page on B asks for one:
    both are matched to one room, the first waiting in seat 0; each takes its seat with
    its token through the other process, and the match plays."""
    a, b = servers.a, servers.b
    first, second = LobbyPage(a), LobbyPage(b)
    sockets: list[Any] = [first, second]
    try:
        first.send({"type": "queue", "pack": "duel-classic"})
        first.until(lambda m: m["type"] == "queued")
        second.until(lambda m: m["type"] == "waiting" and any(
            w["pack"] == "duel-classic" and w["players"] == 1 for w in m["waiting"]))
        second.send({"type": "queue", "pack": "duel-classic"})
        one = first.until(lambda m: m["type"] in ("matched", "error"))
        two = second.until(lambda m: m["type"] in ("matched", "error"))
        assert one["type"] == two["type"] == "matched", (one, two)
        assert one["room"] == two["room"] and (one["seat"], two["seat"]) == (0, 1)
        room = one["room"]
        ann = RoomSocket(b.ws(room), token=one["token"])  # each through the other process
        bob = RoomSocket(a.ws(room), token=two["token"])
        sockets += [ann, bob]
        for socket, seat in ((ann, 0), (bob, 1)):
            state = socket.until(lambda m: m["type"] == "state" and m["seat"] == seat)
            assert state["room"]["status"] == "playing", (socket.url, state["room"])  # fresh
        sent = play([ann, bob], 0, 2)
        assert [t for _, _, t in servers.turns(room)] == sent
        assert len(servers.seats(room)) == 2
    finally:
        closing(*sockets)


def test_a_listed_room_of_a_shows_in_the_lobby_of_b_with_its_seats(servers: Fleet) -> None:
    """B's lobby page is told of a listed room opened through A (``added``), of each seat
    taken through A (``changed``), and of the match started through A."""
    a, b = servers.a, servers.b
    page = LobbyPage(b)
    sockets: list[Any] = [page]
    try:
        room = new_room(a.port)
        added = page.until(lambda m: m["type"] == "added" and m["room"]["room"] == room)
        assert added["room"]["players"] == [] and added["room"]["section"] == "waiting"
        ann = seated(a, room, "Ann")
        sockets.append(ann)
        page.about(room, lambda r: [p["name"] for p in r["players"]] == ["Ann"])
        bob = seated(a, room, "Bob")
        sockets.append(bob)
        page.about(room, lambda r: [p["name"] for p in r["players"]] == ["Ann", "Bob"])
        ann.send({"type": "line", "text": "/start"})
        page.about(room, lambda r: r["section"] == "playing")
        unlisted = new_room(a.port, unlisted=True)
        late = LobbyPage(b)  # a page opened now: the snapshot has the room, playing
        sockets.append(late)
        shown = {s["room"]: s for s in late.snapshot["rooms"]}
        assert shown[room]["section"] == "playing" and unlisted not in shown
    finally:
        closing(*sockets)


# --------------------------------------------------------------------------- the database

def test_the_database_restarted_closes_the_sockets_and_the_clients_play_on(
        servers: Fleet) -> None:
    """Ann on A, Bob on B, a few turns; PostgreSQL stopped: a move sent then is never
    played (an error, or the socket closed), each process closes its room sockets with
    1012 and answers a new room socket with 1013; PostgreSQL started again, the clients
    come back with a back-off as the page does, find the table as it was stored, and play
    on, each turn stored once."""
    a, b = servers.a, servers.b
    room = new_room(a.port)
    ann = seated(a, room, "Ann")
    bob = seated(b, room, "Bob")
    sockets: list[RoomSocket] = [ann, bob]
    try:
        both_seated([ann, bob], 2)
        ann.send({"type": "line", "text": "/start"})
        sent = play([ann, bob], 0, 3)
        mover = mover_of([ann, bob], 3)
        servers.db.halt()
        try:
            with contextlib.suppress(ConnectionClosed):  # (closed already: nothing sent)
                mover.send({"type": "move", "move": mover.state["legal"][0]})
            codes = [close_code(s) for s in (ann, bob)]
            assert codes == [1012, 1012], codes
            for socket in (ann, bob):  # the move sent while the database was down: not played
                assert not any(m["type"] == "turn" for m in socket.seen
                               if m.get("number", -1) >= 3), socket.seen
                assert [m for m in socket.seen
                        if m["type"] == "state"][-1]["room"]["turns"] == 3
            for server in (a, b):  # a new room socket meanwhile: closed with 1013
                refused = RoomSocket(server.ws(room))
                sockets.append(refused)
                assert close_code(refused) == 1013
                assert not any(m["type"] == "state" and m["room"]["status"] == "playing"
                               and m["legal"] for m in refused.seen), refused.seen
        finally:
            servers.db.start()
        ann = reconnected(a, room, ann.token, 0)
        bob = reconnected(b, room, bob.token, 1)
        sockets += [ann, bob]
        assert at_turn(ann, 3)["room"]["turns"] == at_turn(bob, 3)["room"]["turns"] == 3
        sent += play([ann, bob], 3, 4)
        assert [(n, t) for n, _, t in servers.turns(room)] == list(enumerate(sent))
    finally:
        closing(*sockets)
