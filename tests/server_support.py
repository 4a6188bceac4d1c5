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
