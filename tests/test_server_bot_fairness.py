"""The bots' threads shared fairly by the rooms (server/bots.py, docs/server.md "Bots and
hints"): a room's quick bot is not held up behind other rooms' slow ones (on a real
``lc serve`` beside rooms of ismcts@5, and in-process beside a deliberately slow bot
registered in the bot registry for the test), a seat has one hint at a time with an
interval, a full queue refuses hints but never a bot's move; and the scheduler's pieces
fuzzed."""
from __future__ import annotations

import asyncio
import json
import random
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")

from server_support import BOUND, free_port, new_room, start_lc_serve, wait_for  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_server_features import Clock, mover_of, two_seated  # noqa: E402
from test_server_protocol import Player, connect, join, open_room  # noqa: E402

from lostcities.engine import BOTS, Bot, Move, SeatView  # noqa: E402
from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.bots import (BotScheduler, HintGate, Refused,  # noqa: E402
                                    SlicedRandom)
from lostcities.server.protocol import Limits  # noqa: E402

#: CPU seconds the slow bot thinks a move
SLOW_SECONDS = 2.0
#: a pause between two moves of one client on a real server: within its message rate
RATE_PAUSE = 0.15


class SlowBot(Bot):
    """A search's stand-in: thinks ``seconds`` of its thread's CPU time, drawing random
    numbers from its view's rng as a search draws its deals, then plays a legal move."""

    name = "slow"

    def __init__(self, seconds: float = SLOW_SECONDS):
        self.seconds = seconds

    def choose(self, view: SeatView) -> Move:
        end = time.thread_time() + self.seconds
        while time.thread_time() < end:
            view.rng.random()
        return view.legal_moves[0]


@pytest.fixture
def slow_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    """``/bot slow`` seats :class:`SlowBot` (the registry as it was after the test)."""
    monkeypatch.setitem(BOTS, "slow", SlowBot)


def against(client: TestClient, socket: Any, room: str, bot: str) -> Player:
    """A player seated in ``room`` against ``bot``, the match started; if the player is
    to move it moves, so that the bot is to move when this returns."""
    player = Player(socket)
    join(player, "Ada")
    player.line(f"/bot {bot}")
    player.line("/start")
    state = player.started()
    if state["legal"]:
        player.send({"type": "move", "move": state["legal"][0]})
        player.state_at(state["room"]["turns"] + 1)
    return player


def reply_seconds(player: Player) -> float:
    """Seconds from this player's move (it is to move) to the state giving it the turn
    back (the bot moved between)."""
    state = player.state
    turns = state["room"]["turns"]
    sent = time.perf_counter()
    player.send({"type": "move", "move": state["legal"][0]})
    player.until(lambda m: m["type"] == "state" and m["room"]["turns"] > turns + 1
                 and bool(m["legal"]))
    return time.perf_counter() - sent


def test_a_quick_bot_is_not_held_up_behind_other_rooms_slow_bots(
        tmp_path: Path, slow_bot: None) -> None:
    app = create_app(tmp_path, limits=Limits(rate=100000, burst=100000), durable=False)
    hub = app.state.hub
    with TestClient(app) as client:
        slow_rooms = [open_room(client, "duel-classic") for _ in range(3)]
        quick_room = open_room(client, "duel-classic")
        with connect(client, slow_rooms[0]) as s0, connect(client, slow_rooms[1]) as s1, \
                connect(client, slow_rooms[2]) as s2, connect(client, quick_room) as q:
            quick = against(client, q, quick_room, "greedy")
            quick.until(lambda m: m["type"] == "state" and bool(m["legal"]))
            for socket, room in zip((s0, s1, s2), slow_rooms):  # now they think
                against(client, socket, room, "slow")
            replies = [reply_seconds(quick) for _ in range(3)]
            # the slow bots were thinking all along: none has moved yet
            still = [hub.rooms[room].bot_turn() is not None for room in slow_rooms]
    # before: the quick bot waited for two of the slow bots' moves (2 threads, in turn)
    assert max(replies) < SLOW_SECONDS / 2, replies
    assert all(still), "the slow bots finished before the quick room was measured"


def test_a_seat_has_one_hint_at_a_time_and_an_interval(tmp_path: Path) -> None:
    clock = Clock()
    limits = Limits(rate=100000, burst=100000, hint_seconds=30)
    app = create_app(tmp_path, limits=limits, durable=False, clock=clock)
    with TestClient(app) as client:
        room = client.post("/rooms", json={"pack": "duel-classic", "hints": True}).json()["room"]
        with connect(client, room) as a, connect(client, room) as b:
            mover, _ = mover_of(*two_seated(client, a, b, room))
            mover.send({"type": "hint"})
            assert [m["type"] for m in mover.ping()] == ["hint"]
            mover.send({"type": "hint"})
            refused = mover.ping()
            assert [m.get("key") for m in refused] == ["error.hint-wait"]
            assert "30" in refused[0]["text"] and "\n" not in refused[0]["text"]
            mover.send({"type": "hello", "lang": "fr"})
            mover.ping()
            clock.now += 29
            mover.send({"type": "hint"})
            refused = mover.ping()
            assert [m.get("key") for m in refused] == ["error.hint-wait"]
            assert "indice" in refused[0]["text"]
            clock.now += 1
            mover.send({"type": "hint"})
            assert [m["type"] for m in mover.ping()] == ["hint"]


def test_a_full_bot_queue_refuses_hints_never_a_bots_move(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "slow", lambda: SlowBot(0.5))
    limits = Limits(rate=100000, burst=100000, bot_threads=1, bot_queue=1)
    app = create_app(tmp_path, limits=limits, durable=False)
    hub = app.state.hub
    with TestClient(app) as client:
        hinted = client.post("/rooms", json={"pack": "duel-classic", "hints": True}).json()["room"]
        slow_rooms = [open_room(client, "duel-classic") for _ in range(2)]
        with connect(client, hinted) as a, connect(client, hinted) as b, \
                connect(client, slow_rooms[0]) as s0, connect(client, slow_rooms[1]) as s1:
            mover, _ = mover_of(*two_seated(client, a, b, hinted))
            players = [against(client, socket, room, "slow")
                       for socket, room in zip((s0, s1), slow_rooms)]
            waiting = [hub.rooms[room].bot_turn() is not None for room in slow_rooms]
            mover.send({"type": "hint"})
            refused = mover.ping()
            # both slow bots still to move: one thinking, the other's move the one queued
            assert all(waiting)
            assert [m.get("key") for m in refused] == ["error.bots-busy"], refused
            assert "\n" not in refused[0]["text"]
            for player in players:  # each bot's move is played, in its turn
                turns = player.state["room"]["turns"]
                player.until(lambda m: m["type"] == "state" and m["room"]["turns"] > turns)


class HeldBot(Bot):
    """A hint bot that answers only once ``release`` is set: the first legal move of the
    position it was asked about."""

    name = "held"
    release = threading.Event()

    def choose(self, view: SeatView) -> Move:
        assert self.release.wait(BOUND), "the test never released the hint"
        return view.legal_moves[0]


def test_a_hint_thought_of_while_the_seat_played_is_not_sent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The seat asks a hint on one connection (the page), then plays on another that holds
    it too (the terminal, with its token) before the hint is ready: the hint, for a position
    gone (it names the card just played), is dropped; the next one is the position's."""
    monkeypatch.setitem(BOTS, "held", HeldBot)
    monkeypatch.setattr("lostcities.server.room.HINT_BOT", "held")
    HeldBot.release = threading.Event()
    limits = Limits(rate=100000, burst=100000, hint_seconds=0)
    app = create_app(tmp_path, limits=limits, durable=False)
    with TestClient(app) as client:
        room = client.post("/rooms", json={"pack": "duel-classic", "hints": True}).json()["room"]
        with connect(client, room) as a, connect(client, room) as b, \
                connect(client, room) as c:
            mover, other = mover_of(*two_seated(client, a, b, room))
            again = Player(c)  # the same seat on a second connection
            again.send({"type": "hello", "lang": "en", "token": mover.token})
            again.until(lambda m: m["type"] == "welcome" and m["seat"] == mover.seat)
            turns = mover.state["room"]["turns"]
            first = mover.state["legal"][0]
            mover.send({"type": "hint"})  # held: thought of for this position
            again.send({"type": "move", "move": first})
            other.state_at(turns + 1)
            other.send({"type": "move", "move": other.state["legal"][0]})
            now = mover.state_at(turns + 2)
            HeldBot.release.set()
            hints = []
            for _ in range(200):  # until the held hint is done with: the next one answers
                mover.send({"type": "hint"})
                hints = [m for m in mover.ping() if m["type"] == "hint"]
                if hints:
                    break
                time.sleep(0.05)  # polling a condition, bounded by the loop
            assert len(hints) == 1 and hints[0]["move"] in now["legal"], hints
            # the held hint (the first move of the position gone) never came
            assert [m for m in mover.seen if m["type"] == "hint"] == hints


# --------------------------------------------------------------------------- a real lc serve

class Table(threading.Thread):
    """A client of a real server seated against ``bot`` that moves as soon as it may (its
    own thread): the room's bot thinks nearly all the time. ``times``: seconds from each
    of its moves to its turn again (the bot's thinking, and the server's)."""

    def __init__(self, port: int, bot: str, stop: threading.Event):
        super().__init__(daemon=True)
        from websockets.sync.client import connect

        room = new_room(port)
        self.ws = connect(f"ws://127.0.0.1:{port}/rooms/{room}/ws", open_timeout=BOUND)
        self.stop = stop
        self.times: list[float] = []
        for text in ("/join", f"/bot {bot}", "/start"):
            self.ws.send(json.dumps({"type": "line", "text": text}))

    def my_turn(self, after: int) -> dict[str, Any]:
        """The first state after turn ``after`` that gives this seat the turn."""
        while True:
            message = json.loads(self.ws.recv(timeout=BOUND))
            if message["type"] == "state" and message["legal"] and \
                    message["room"]["turns"] > after:
                return message

    def move(self, state: dict[str, Any]) -> float:
        """Play a legal move of ``state``; the time it was sent."""
        self.ws.send(json.dumps({"type": "move", "move": state["legal"][0]}))
        return time.perf_counter()

    def run(self) -> None:
        try:
            state = self.my_turn(-1)
            while not self.stop.is_set():
                sent = self.move(state)
                state = self.my_turn(state["room"]["turns"])
                self.times.append(time.perf_counter() - sent)
        except Exception:
            if not self.stop.is_set():  # the server stopping ends the table
                raise


@pytest.mark.filterwarnings("ignore:connect\\(\\) must be used:DeprecationWarning")
def test_a_greedy_reply_beside_rooms_of_ismcts_on_a_real_server(tmp_path: Path) -> None:
    pytest.importorskip("websockets")
    pytest.importorskip("uvicorn")
    port = free_port()
    server = start_lc_serve(tmp_path, port)
    stop = threading.Event()
    try:
        quick = Table(port, "greedy", stop)
        state = quick.my_turn(-1)
        searching = [Table(port, "ismcts@5", stop) for _ in range(3)]
        for table in searching:
            table.start()
        greedy: list[float] = []
        # greedy replies until the searches have made 3 moves (each one's thinking), 40
        # at most (a match is longer), within the server's rate of 10 messages a second
        while len(greedy) < 6 or (sum(len(t.times) for t in searching) < 3
                                  and len(greedy) < 40):
            time.sleep(RATE_PAUSE)
            sent = quick.move(state)
            state = quick.my_turn(state["room"]["turns"])
            greedy.append(time.perf_counter() - sent)
        wait_for(lambda: any(t.times for t in searching), "a search's move")
        search = statistics.median(t for table in searching for t in table.times)
    finally:
        stop.set()
        server.terminate()
        server.wait(timeout=BOUND)
    # before: the greedy move waited for a search (or two) to end, about as long as one
    assert max(greedy) < search / 4, (greedy, search)


# --------------------------------------------------------------------------- fuzzed pieces

CALLS = st.lists(st.sampled_from(["random", "randrange", "shuffle", "choice", "sample",
                                  "getrandbits", "uniform", "randint"]), max_size=30)


@settings(max_examples=60, deadline=None)
@given(seed=st.text(max_size=20), calls=CALLS)
def test_sliced_random_draws_randoms_very_numbers(seed: str, calls: list[str]) -> None:
    pauses = []
    sliced, plain = SlicedRandom(seed, lambda: pauses.append(1)), random.Random(seed)

    def draw(rng: random.Random, call: str) -> Any:
        items = list(range(10))
        return {"random": lambda: rng.random(), "randrange": lambda: rng.randrange(1000),
                "shuffle": lambda: (rng.shuffle(items), items)[1],
                "choice": lambda: rng.choice(items), "sample": lambda: rng.sample(items, 3),
                "getrandbits": lambda: rng.getrandbits(70), "uniform": lambda: rng.uniform(0, 5),
                "randint": lambda: rng.randint(-3, 3)}[call]()

    assert [draw(sliced, c) for c in calls] == [draw(plain, c) for c in calls]
    assert len(pauses) >= len(calls)  # every call went through a pause point


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["open", "close", "wait"]),
                                st.integers(0, 2), st.floats(0, 3)), max_size=40))
def test_hint_gate_against_a_model(steps: list[tuple[str, int, float]]) -> None:
    now = [0.0]
    gate = HintGate(1.0, clock=lambda: now[0])
    last: dict[int, float] = {}
    asking: set[int] = set()
    for action, seat, seconds in steps:
        if action == "wait":
            now[0] += seconds
        elif action == "close":
            gate.close(seat)
            asking.discard(seat)
        else:
            allowed = seat not in asking and (seat not in last or now[0] - last[seat] >= 1.0)
            try:
                gate.open(seat)
            except Refused as refusal:
                assert not allowed and refusal.key == "error.hint-wait"
                assert refusal.params["seconds"] >= 1
            else:
                assert allowed
                last[seat] = now[0]
                asking.add(seat)


@settings(max_examples=25, deadline=None)
@given(jobs=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 200), st.booleans()),
                     min_size=1, max_size=25),
       threads=st.integers(1, 4), queue=st.integers(1, 6))
def test_scheduler_runs_every_move_one_job_a_room_one_thinking(
        jobs: list[tuple[int, int, bool]], threads: int, queue: int) -> None:
    """Jobs of rooms 0-3 drawing up to 200 numbers each, some of them hints: every bot
    move is done, in its room's order; a hint is refused only when ``queue`` jobs wait;
    never two jobs of a room at once, never two thinking at once."""
    lock = threading.Lock()
    rooms_in: dict[int, int] = {}
    thinking = [0]
    worst = {"room": 0, "thinking": 0}

    def work(room: int, draws_count: int, number: int) -> Any:
        def run(draws: Any) -> int:
            with lock:
                rooms_in[room] = rooms_in.get(room, 0) + 1
                thinking[0] += 1
                worst["room"] = max(worst["room"], rooms_in[room])
                worst["thinking"] = max(worst["thinking"], thinking[0])
            rng = draws(f"{room}:{number}")
            with lock:
                thinking[0] -= 1
            for _ in range(draws_count):  # a pause point each: the thread may step aside
                rng.random()
            with lock:
                thinking[0] += 1
                worst["thinking"] = max(worst["thinking"], thinking[0])
                thinking[0] -= 1
                rooms_in[room] -= 1
            return number
        return run

    async def main() -> None:
        scheduler = BotScheduler(Limits(bot_threads=threads, bot_queue=queue),
                                 slice_seconds=0.0005)
        order: dict[int, list[int]] = {}
        refused = 0

        async def one(number: int, room: int, count: int, hint: bool) -> None:
            nonlocal refused
            if hint:
                busy = scheduler.waiting >= queue
                try:
                    await scheduler.hint(str(room), number, work(room, count, number))
                except Refused as refusal:
                    assert busy and refusal.key == "error.bots-busy"
                    refused += 1
                return
            done = await scheduler.think(str(room), work(room, count, number))
            order.setdefault(room, []).append(done)

        try:
            await asyncio.gather(*(one(n, room, count, hint)
                                   for n, (room, count, hint) in enumerate(jobs)))
        finally:
            scheduler.close()
        for room, done in order.items():
            expected = [n for n, (r, _, hint) in enumerate(jobs) if r == room and not hint]
            assert done == expected
        assert sum(map(len, order.values())) == sum(1 for *_, hint in jobs if not hint)
        assert scheduler.waiting == 0

    asyncio.run(main())
    assert worst["room"] <= 1 and worst["thinking"] <= 1
