"""The clocks of a real ``lc serve`` survive ``kill -9``: a Fischer room, turns played by
two WebSocket clients, the server killed with SIGKILL and started again on its data
folder; a spectator then reads each seat's time left as the stored turns' times make it
(the waiting seat's to the millisecond, the running seat's less the time that passed),
and the match plays on."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

from server_support import RoomSocket, free_port, new_room, start_lc_serve  # noqa: E402


def test_the_clocks_after_kill_9_are_the_stored_turns_clocks(tmp_path: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    proc = start_lc_serve(data, port, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        room = new_room(port, clock={"kind": "fischer", "minutes": 10, "increment": 5})
        url = f"ws://127.0.0.1:{port}/rooms/{room}/ws"
        ada, bob = RoomSocket(url), RoomSocket(url)
        for seat, name in ((ada, "Ada"), (bob, "Bob")):
            seat.send({"type": "line", "text": f"/join {name}"})
            seat.until(lambda m: m["type"] == "seated")
        ada.send({"type": "line", "text": "/start"})
        for number in range(3):
            mover = next(s for s in (ada, bob) if (s.until(
                lambda m: m["type"] == "state" and m["room"]["status"] == "playing"
                and m["room"]["turns"] == number)["legal"]))
            mover.send({"type": "move", "move": mover.state["legal"][0]})
        watcher = RoomSocket(url)
        before = watcher.until(lambda m: m["type"] == "state" and m["room"]["turns"] == 3)
        ada.close(), bob.close(), watcher.close()
        proc.kill()  # SIGKILL: nothing said, nothing flushed
        proc.wait()
        proc = start_lc_serve(data, port, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        watcher = RoomSocket(url)
        after = watcher.until(lambda m: m["type"] == "state")
        was, now = before["clock"], after["clock"]
        running = was["running"]
        assert now["running"] == running and now["control"] == was["control"]
        passed = now["now"] - was["now"]
        assert passed > 0
        for seat in (0, 1):
            if seat == running:  # the time the server was down counted: its seat was to move
                assert abs(was["left"][seat] - passed - now["left"][seat]) <= 2
            else:
                assert now["left"][seat] == was["left"][seat]
        assert all(left > 590_000 for left in now["left"])
        # the match plays on: the seat to move moves, its clock gets the increment
        mover = RoomSocket(url, token=(ada, bob)[running].token)
        legal = mover.until(lambda m: m["type"] == "state" and m["seat"] == running)["legal"]
        mover.send({"type": "move", "move": legal[0]})
        moved = watcher.until(lambda m: m["type"] == "state" and m["room"]["turns"] == 4)
        assert moved["clock"]["running"] == 1 - running
        assert moved["clock"]["left"][running] > now["left"][running]  # + 5 s, less a little
        mover.close(), watcher.close()
    finally:
        proc.kill()
        proc.wait()
