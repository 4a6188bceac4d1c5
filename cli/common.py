"""Helpers shared by the command modules: one-line errors and pack completion."""
from __future__ import annotations

import errno
import json
import math
import os
import stat
import sys
import tempfile
import time
from contextlib import AbstractContextManager, nullcontext, redirect_stdout
from typing import Any, Callable, NoReturn, Optional

import typer

from lostcities.engine import builtin_ids
from lostcities.engine.errors import InputError
from lostcities.engine.tooling import check_path, escape_hidden, kind_of, plain_text, shown_path

#: exit codes: 0 ok, 1 a problem found in the input (invalid pack, illegal record...),
#: 2 usage error (bad option, missing or unreadable path)
EXIT_PROBLEM = 1
EXIT_USAGE = 2


def plain(text: object) -> str:
    """``text`` (any value, as ``str``) ready to print or to put in a
    :class:`~rich.text.Text`, by the one rule for data text
    (:func:`lostcities.engine.safeio.plain_text`): what comes from data (a name, a pack's
    strings) cannot drive the terminal or reverse the text. Tabs and line breaks become
    a space."""
    return plain_text(str(text))


def plain_json(data: Any, indent: Optional[int] = 2) -> str:
    """``data`` as JSON text (non-ASCII letters kept as they are) whose strings write
    every character :func:`plain` would remove as a ``\\uXXXX`` escape
    (:func:`lostcities.engine.safeio.escape_hidden`): JSON escapes C0 itself, but would
    print DEL, C1, the bidirectional controls and lone surrogates raw. The document reads
    back the same."""
    return escape_hidden(json.dumps(data, indent=indent, ensure_ascii=False))


def fail(message: str, code: int = EXIT_PROBLEM) -> NoReturn:
    """Print ``lc: error: MESSAGE`` on stderr as one line and exit with ``code``.

    The message goes through :func:`plain`: whatever data it
    quotes, control characters and line breaks cannot reach the terminal.
    """
    sys.stderr.write(f"lc: error: {plain(message)}\n")
    raise typer.Exit(code)


def complete_pack(incomplete: str) -> list[str]:
    """Shell completion: built-in pack ids starting with ``incomplete``."""
    return [n for n in builtin_ids() if n.startswith(incomplete)]


def echo_report(report: Any, as_json: bool, note: Optional[str] = None, err: bool = False
                ) -> None:
    """Print ``report`` (``to_dict()``/``text()``) as one JSON document, or as text then ``note``
    (on stderr with ``err``: when standard output carries the records)."""
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2), err=err)
    else:
        typer.echo(report.text(), err=err)
        if note:
            typer.echo(note, err=err)


#: seconds between two progress lines when standard error is not a terminal (a pipe, a
#: CI log); ``LC_PROGRESS_INTERVAL`` sets it (``0``: no lines)
PROGRESS_INTERVAL = 15.0
PROGRESS_ENV = "LC_PROGRESS_INTERVAL"


def progress_interval(environ: Optional[dict] = None) -> float:
    """The seconds between progress lines: ``LC_PROGRESS_INTERVAL`` (a number of seconds,
    ``0`` for none), else :data:`PROGRESS_INTERVAL`; an unusable value fails in one line."""
    text = (os.environ if environ is None else environ).get(PROGRESS_ENV, "").strip()
    if not text:
        return PROGRESS_INTERVAL
    try:
        value = float(text) if len(text) <= 20 else math.nan
    except ValueError:
        value = math.nan
    if not 0 <= value < 10 ** 9:
        fail(f"{PROGRESS_ENV}={plain(text[:20])}{'...' if len(text) > 20 else ''}: give a "
             f"number of seconds between progress lines (0 for none)", EXIT_USAGE)
    return value


def duration(seconds: float) -> str:
    """``42s``, ``4m12s`` under ten minutes, ``18m`` under an hour, then ``2h05m``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    minutes = (seconds + 30) // 60
    if minutes < 60:
        return f"{minutes}m"
    return f"{minutes // 60}h{minutes % 60:02d}m"


class Progress:
    """How far a long run is, on stderr.

    On a terminal, a rich progress bar with an ETA. Elsewhere (a pipe, a CI log), one
    line every ``interval`` seconds (:func:`progress_interval`), e.g.
    ``lc balance: 37/200 games, 4m12s elapsed, ETA 18m``: a run that ends sooner
    prints none, and no line says a run is complete (its report follows). A line is
    written when a game (or batch) finishes, so none between two.

    ``with Progress(total, label, command) as tick:`` gives ``tick(done)`` or None. The
    bar (and its refresh thread) starts on the first call, after any worker processes
    are forked. ``stream``, ``clock`` (seconds, monotonic), ``interval`` and
    ``terminal`` are for tests; by default stderr, :func:`time.monotonic`, the
    interval above and whether stderr is a terminal. ``unit`` names what is counted
    (``games``; ``lc replay --check`` counts the ``lines`` of its file).
    """

    def __init__(self, total: int, label: str, command: str = "lc", *,
                 stream: Any = None, clock: Optional[Callable[[], float]] = None,
                 interval: Optional[float] = None, terminal: Optional[bool] = None,
                 unit: str = "games"):
        self.total = total
        self.label = label
        self.command = command
        self.unit = unit
        self.stream = stream
        self.clock = clock or time.monotonic
        self.interval = progress_interval() if interval is None else interval
        self.terminal = terminal
        self.bar: Any = None
        self.task: Any = None
        self.started = 0.0
        self.shown = 0.0

    def __enter__(self) -> Optional[Callable[[int], None]]:
        stream = self.stream or sys.stderr
        terminal = stream.isatty() if self.terminal is None else self.terminal
        if terminal:
            return self.tick if self.total >= 2 else None
        if self.interval <= 0 or self.total < 1:
            return None
        self.started = self.shown = self.clock()
        return self.line

    def line(self, done: int) -> None:
        """Write ``done`` finished games as one line, if ``interval`` has passed since the
        start or the last line and the run is not over."""
        now = self.clock()
        if now - self.shown < self.interval or done >= self.total:
            return
        self.shown = now
        elapsed = now - self.started
        text = (f"{self.command}: {done:,}/{self.total:,} {self.unit}, "
                f"{duration(elapsed)} elapsed")
        if done > 0:
            text += f", ETA {duration(elapsed * (self.total - done) / done)}"
        stream = self.stream or sys.stderr
        try:
            stream.write(text + "\n")
            stream.flush()
        except (OSError, ValueError):  # the log went away: the run goes on without it
            self.interval = float("inf")

    def tick(self, done: int) -> None:
        """Show ``done`` finished games, starting the bar on the first call."""
        if self.bar is None:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn,
                                       TimeRemainingColumn)

            self.bar = Bar(TextColumn(self.label), BarColumn(), MofNCompleteColumn(),
                           TextColumn(f"{self.unit}, ETA"), TimeRemainingColumn(),
                           console=Console(file=self.stream or sys.stderr), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.unit, total=self.total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


#: ``--allow-outside`` of every command that loads a pack from a path: the person at the
#: keyboard lets ``extends:`` name an absolute path or leave the pack's folder (LC025)
ALLOW_OUTSIDE = typer.Option(
    False, "--allow-outside",
    help="Let extends: name files outside the pack's folder (absolute paths, ..)")


#: ``--seed`` holds at most this many digits: records store it, and their readers refuse
#: longer numbers (``safeio.LIMITS.number_digits``)
SEED_DIGITS = 20
#: ``--games`` of ``lc simulate`` and ``lc balance``: at most this many matches
MAX_GAMES = 10 ** 12


def report_stdout(backend: str) -> AbstractContextManager:
    """Keep standard output for the report (and ``--record -``) while a run is on Ray.

    Ray's driver prints its notes on a worker process that died (Ray then runs its task
    again) on standard output, from a thread of its own, until the run ends its
    connection: with ``--backend ray`` they go to standard error instead. A stream
    opened on standard output before (``Output("-")``) keeps writing there."""
    return redirect_stdout(sys.stderr) if backend == "ray" else nullcontext()


def check_seed(value: Optional[int]) -> Optional[int]:
    """Typer callback of ``--seed``: refuse a seed of more than :data:`SEED_DIGITS` digits."""
    if value is not None and abs(value) >= 10 ** SEED_DIGITS:
        raise typer.BadParameter(f"a seed of {len(str(abs(value))):,} digits; "
                                 f"at most {SEED_DIGITS}")
    return value


class WriteError(Exception):
    """Writing an output file failed (disk full, a closed pipe): one line, already cleaned up."""


class Output:
    """A file ``lc`` writes results to (``--record FILE``), safely:

    - ``-`` is standard output (for a pipe);
    - anything that is not a regular file (a device such as ``/dev/full``, a FIFO, a
      folder) is refused, and so is an existing file unless ``force`` (replace it) or
      ``append`` (add to its end);
    - a new or replaced file is written to a temporary file beside it and renamed
      only once every line is written, so a failed or interrupted run leaves the
      old file (or none), never half a file; an appended file is cut back to its
      old length.

    ``with Output(path, "--record") as out:`` gives a stream whose ``write`` raises
    :class:`WriteError` (one line) when the system refuses the write. Usage problems
    fail at once (exit 2).
    """

    def __init__(self, path: str, option: str, *, force: bool = False, append: bool = False):
        self.path = path
        self.option = option
        self.force = force
        self.append = append
        self.stream: Any = None
        self.tmp: Optional[str] = None
        self.size: Optional[int] = None
        self.error: Optional[OSError] = None

    @property
    def shown(self) -> str:
        """The path as messages show it."""
        return "standard output" if self.path == "-" else shown_path(self.path)

    def __enter__(self) -> "Output":
        if self.path == "-":
            self.stream = sys.stdout
            return self
        try:
            check_path(self.path, self.option)
        except InputError as err:
            fail(str(err), EXIT_USAGE)
        where = f"{self.option} {self.shown}"
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as err:
            fail(f"{where}: cannot write: {err.strerror or err}", EXIT_USAGE)
        if mode is not None and not stat.S_ISREG(mode):
            fail(f"{where}: is {kind_of(mode)}, not a regular file; give a file (or - for standard "
                 f"output)", EXIT_USAGE)
        if mode is not None and not (self.force or self.append):
            fail(f"{where}: already exists; add --append to add to it or --force to "
                 f"replace it", EXIT_USAGE)
        try:
            if self.append and mode is not None:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0))
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    os.close(fd)
                    fail(f"{where}: not a regular file", EXIT_USAGE)
                self.size = os.fstat(fd).st_size
                self.stream = os.fdopen(fd, "a", encoding="utf-8", newline="\n")
                if self.size and not self._ends_with_newline():
                    self.write("\n")
            else:
                folder, name = os.path.split(self.path)
                fd, self.tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp",
                                                dir=folder or ".")
                umask = os.umask(0o022)
                os.umask(umask)
                os.fchmod(fd, 0o666 & ~umask)
                self.stream = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        except OSError as err:
            self._discard()
            fail(f"{where}: cannot write: {err.strerror or err}", EXIT_USAGE)
        return self

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as tail:
            tail.seek(-1, 2)
            return tail.read(1) == b"\n"

    def write(self, text: str) -> None:
        """Write ``text``; :class:`WriteError` in one line if the system refuses."""
        try:
            self.stream.write(text)
        except OSError as err:
            self._failed(err)

    def _failed(self, err: OSError) -> None:
        if self.path == "-" and err.errno == errno.EPIPE:  # the reader went away
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
                os.close(devnull)
            except (OSError, ValueError):
                pass
        raise WriteError(f"{self.option} {self.shown}: cannot write: {err.strerror or err}"
                         + ("" if self.path == "-" else "; nothing was kept")) from None

    def __exit__(self, kind: Any, value: Any, tb: Any) -> None:
        if self.path == "-":
            if kind is None:
                try:
                    self.stream.flush()
                except OSError as err:
                    self._failed(err)
            return
        if kind is None:
            try:
                self.stream.flush()
                os.fsync(self.stream.fileno())
                self.stream.close()
                if self.tmp is not None:
                    if self.force:
                        os.replace(self.tmp, self.path)
                    else:  # never over a file that appeared meanwhile
                        os.link(self.tmp, self.path)
                        os.unlink(self.tmp)
                    self.tmp = None
                return
            except FileExistsError:
                self._discard()
                fail(f"{self.option} {self.shown}: appeared while the games were played; "
                     f"nothing was written (add --force to replace it)", EXIT_USAGE)
            except OSError as err:
                self._discard()
                self._failed(err)
        self._discard()

    def _discard(self) -> None:
        """Undo what was written: remove the temporary file, cut an appended file back."""
        if self.stream is not None:
            try:
                self.stream.close()
            except OSError:
                pass
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            self.tmp = None
        if self.size is not None:
            try:
                os.truncate(self.path, self.size)
            except OSError:
                pass
            self.size = None
