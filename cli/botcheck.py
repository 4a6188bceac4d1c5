"""The slow check of a resumed save, in another process while the game goes on.

A save that lc play did not sign with this user's key may have had its bot moves edited,
so every bot move is derived again and compared with the saved one
(:meth:`~lostcities.cli.session.SavedGame.check_bots`). That costs what the bots thought
when they played (25 s for 40 moves against ``ismcts@5``). Rather than make the player
wait for it before the first move, :class:`BotCheck` runs it in a child process, at a
lower priority, and the front end asks how it goes (:meth:`BotCheck.poll`) between turns,
waits for it (:meth:`BotCheck.wait`) before anything that trusts the saved moves (the
match's record, leaving with a signed save), and refuses the game when it fails.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from lostcities.engine.errors import RecordError

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from .session import SavedGame

#: how much lower the check runs than the game (``os.nice``): the bot to move goes first
CHECK_NICENESS = 5


@dataclass(frozen=True)
class Progress:
    """How far the check is: the saved moves before index ``done`` are checked, up to
    ``moves``; ``passed`` once every bot move agreed; ``refused``: the one line saying
    why one did not."""

    done: int
    moves: int
    passed: bool = False
    refused: str = ""

    @property
    def over(self) -> bool:
        return self.passed or bool(self.refused)


class BotCheck:
    """:meth:`SavedGame.check_bots` running in a child process (``spawn``: nothing of
    this process's state is shared). The child ignores Ctrl-C (the player's, meant for
    the game), writes nothing to the terminal, and stops when this process goes away."""

    def __init__(self, saved: "SavedGame"):
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe(duplex=False)
        self._process = context.Process(target=_check_in_child, args=(saved, child),
                                        name="lc-play-bot-check", daemon=True)
        self._process.start()
        child.close()
        self.progress = Progress(saved.first, saved.last)

    def poll(self) -> Progress:
        """What the check has said so far, without waiting."""
        while not self.progress.over and self._received(0):
            pass
        return self.progress

    def wait(self, every: float, report: Callable[[Progress], None]) -> Progress:
        """Wait until the check is over, calling ``report`` every ``every`` seconds."""
        while not self.progress.over:
            deadline = time.monotonic() + every
            while not self.progress.over and time.monotonic() < deadline:
                self._received(max(0.0, deadline - time.monotonic()))
            if not self.progress.over:
                report(self.progress)
        return self.progress

    def stop(self) -> None:
        """End the child (the check unfinished: the save stays unsigned)."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join(5)
        self._conn.close()

    def _received(self, timeout: float) -> bool:
        """Read one message if one comes within ``timeout`` seconds."""
        try:
            if not self._conn.poll(timeout):
                return False
            kind, *values = self._conn.recv()
        except (EOFError, OSError):  # the child died without a verdict
            kind, values = "refused", [f"the check of the saved bot moves stopped (exit "
                                       f"code {self._exit_code()}); resume again to check "
                                       f"them"]
        if kind == "progress":
            self.progress = Progress(values[0], self.progress.moves)
        elif kind == "passed":
            self.progress = Progress(self.progress.moves, self.progress.moves, passed=True)
        else:
            self.progress = Progress(self.progress.done, self.progress.moves, refused=values[0])
        return True

    def _exit_code(self) -> Any:
        self._process.join(1)
        return self._process.exitcode


def _check_in_child(saved: "SavedGame", conn: "Connection") -> None:
    """The child: run the check, say how it goes, then the verdict."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _quiet()
    try:
        os.nice(CHECK_NICENESS)
    except OSError:  # pragma: no cover - not allowed here: run at the game's priority
        pass
    last = 0.0

    def progress(done: int, moves: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= 0.1 or done == moves:  # the game reads a few a second at most
            last = now
            conn.send(("progress", done))

    try:
        saved.check_bots(progress)
    except RecordError as err:
        conn.send(("refused", str(err)))
    except Exception as err:  # a bug in the engine or a user's bot: one line, refused
        conn.send(("refused", f"{saved.where}: the check of the saved bot moves failed: "
                              f"{type(err).__name__}: {err}"))
    else:
        conn.send(("passed",))
    conn.close()


def _quiet() -> None:
    """Point the child's standard output and error at nothing: it holds no pipe of the
    game's open (a script reading lc play's output sees its end when the game ends)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.close(null)
    except OSError:  # pragma: no cover
        pass
