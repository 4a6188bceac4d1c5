"""A real ``lc serve`` for the tests that need one (the room over real sockets, the
terminal client, the browser): a free port, the ``lc`` of this environment, starting the
server and waiting until it answers, opening a room."""
from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO, Any, Callable, Optional, Union

from websockets.sync.client import connect

#: every wait on the server, in seconds (the machine may be loaded)
BOUND = 90.0


def free_port() -> int:
    """A TCP port free on the loopback now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lc_command() -> list[str]:
    """The ``lc`` of this interpreter's environment (.venv/bin/lc beside sys.executable)."""
    beside = Path(sys.executable).parent / "lc"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("lc")
    if found:
        return [found]
    return [sys.executable, "-c", "from lostcities.cli.app import main; main()"]


Output = Union[int, IO[Any], None]


def start_lc_serve(data: Path, port: int, *extra: str, stdout: Output = subprocess.PIPE,
                   stderr: Output = subprocess.PIPE, bound: float = BOUND,
                   log: Optional[Path] = None, files: Optional[int] = None) -> subprocess.Popen:
    """``lc serve --port PORT --data DATA EXTRA...`` started and answering GET /packs
    (waited for up to ``bound`` seconds; an early exit or no answer fails the test with
    what the server printed, read from ``log`` when its output goes there); ``files``:
    the server's file limit (``ulimit -n``)."""
    def limit_files() -> None:
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    proc = subprocess.Popen(lc_command() + ["serve", "--port", str(port), "--data", str(data),
                                            *extra], stdout=stdout, stderr=stderr, text=True,
                            preexec_fn=limit_files if files is not None else None)
    deadline = time.monotonic() + bound
    while True:
        if proc.poll() is not None:
            said = log.read_text(errors="replace") if log is not None else \
                (proc.stderr.read() if proc.stderr else "")
            raise AssertionError(f"lc serve exited {proc.returncode}:\n{said}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/packs", timeout=5).read()
            return proc
        except (OSError, ValueError):
            if time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"lc serve did not answer in {bound} s") from None
            time.sleep(0.1)  # polling a condition, bounded by ``bound``


def stopped(proc: subprocess.Popen, bound: float = BOUND) -> None:
    """``proc`` asked to stop (SIGTERM) and waited for up to ``bound`` seconds, then
    killed."""
    proc.terminate()
    try:
        proc.wait(timeout=bound)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def new_room(port: int, pack: str = "duel-classic", **more: Any) -> str:
    """POST /rooms on the server at ``port``: a new room of ``pack``; its id."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/rooms",
                                     data=json.dumps({"pack": pack, **more}).encode(),
                                     method="POST",
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=BOUND) as answer:
        return json.load(answer)["room"]


def wait_for(check: Callable[[], Any], what: str, bound: Optional[float] = None) -> Any:
    """Poll ``check`` until it returns something true (for at most ``bound`` seconds, the
    module's BOUND by default); that value."""
    deadline = time.monotonic() + (BOUND if bound is None else bound)
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)  # polling a condition, bounded



class RoomSocket:
    """A plain WebSocket client of a room (``url``: its ``ws://.../rooms/ID/ws``): a
    ``hello`` when it has a seat's token or a player key, every message kept (``seen``),
    the last ``state`` and the seat's ``token`` remembered."""

    def __init__(self, url: str, token: str = "", player: str = "", lang: str = "en"):
        self.url = url
        self.ws = connect(url, open_timeout=BOUND).__enter__()  # kept open past a with
        self.state: Any = None
        self.token = token
        self.seen: list[dict[str, Any]] = []
        hello: dict[str, Any] = {"type": "hello", "lang": lang}
        if token:
            hello["token"] = token
        if player:
            hello["player"] = player
        if token or player:
            self.send(hello)

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def until(self, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Messages read (within :data:`BOUND` each) until one passes ``check``: that one."""
        while True:
            message = json.loads(self.ws.recv(timeout=BOUND))
            self.seen.append(message)
            if message["type"] == "state":
                self.state = message
            if message["type"] == "seated":
                self.token = message["token"]
            if check(message):
                return message

    def close(self) -> None:
        self.ws.close()


#: a house pack whose match is one short round (2 colours, values 2-5, hands of 3): the
#: room tests that play whole matches (the browser's, the replays')
TINY_PACK = """\
extends: duel-classic
name: Tiny duel
description: "House rule of the room tests: one short round, 2 colours, hands of 3."
house_rule: true
deck:
  colours:
    - {key: y, name: yellow}
    - {key: b, name: blue}
  values: {min: 2, max: 5}
  wagers: 1
hand_size: 3
match:
  rounds: 1
  continuation: true
scoring:
  constants: {cost: 0}
"""
