"""Helpers shared by the command modules: one-line errors and pack completion."""
from __future__ import annotations

import sys
from typing import Any, Callable, NoReturn, Optional

import typer

#: exit codes: 0 ok, 1 a problem found in the input (invalid pack, illegal record...),
#: 2 usage error (bad option, missing or unreadable path)
EXIT_PROBLEM = 1
EXIT_USAGE = 2


def fail(message: str, code: int = EXIT_PROBLEM) -> NoReturn:
    """Print ``lc: error: MESSAGE`` on stderr as one line and exit with ``code``."""
    sys.stderr.write(f"lc: error: {message}\n")
    raise typer.Exit(code)


def complete_pack(incomplete: str) -> list[str]:
    """Shell completion: built-in pack ids starting with ``incomplete``."""
    from importlib.resources import files

    names = sorted(p.name[:-5] for p in files("lostcities.rulepacks").iterdir()
                   if p.name.endswith(".yaml"))
    return [n for n in names if n.startswith(incomplete)]


def bot_specs(text: Optional[str], pack: Any) -> list[str]:
    """Read ``--bots`` (one bot per seat, comma-separated) for ``pack``, or fail in one line.

    Default: ``random`` at every seat of the pack's smallest table. ``module:Class``
    bots are looked up from the current folder too.
    """
    import os

    from lostcities.engine.bots import BotError, make_bot

    specs = [s.strip() for s in text.split(",")] if text else ["random"] * pack.min_players
    if not all(specs):
        fail(f"--bots {text!r}: an empty bot name; give one name per seat, e.g. random,greedy",
             EXIT_USAGE)
    if not pack.min_players <= len(specs) <= pack.max_players:
        span = (str(pack.min_players) if pack.min_players == pack.max_players
                else f"{pack.min_players} to {pack.max_players}")
        fail(f"--bots: {len(specs)} bot(s) given, {pack.id} is played by {span} players "
             f"(one bot per seat)", EXIT_USAGE)
    if any(":" in spec for spec in specs) and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # module:Class bots from the current folder
    for spec in specs:
        try:
            make_bot(spec)
        except BotError as err:
            fail(f"--bots: {err}", EXIT_USAGE)
    return specs


def echo_report(report: Any, as_json: bool, note: Optional[str] = None) -> None:
    """Print ``report`` (``to_dict()``/``text()``) as one JSON document, or as text then ``note``."""
    import json

    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        typer.echo(report.text())
        if note:
            typer.echo(note)


def complete_bot(incomplete: str) -> list[str]:
    """Shell completion for --bots: the built-in bot names after the last comma."""
    from lostcities.engine.bots import BOTS

    head, _, last = incomplete.rpartition(",")
    prefix = head + "," if head else ""
    return [prefix + name for name in BOTS if name.startswith(last)]


class Progress:
    """A rich progress bar with an ETA on stderr when it is a terminal; otherwise nothing.

    ``with Progress(total, label) as tick:`` gives ``tick(done)`` or None. The bar
    (and its refresh thread) starts on the first call, after any worker processes
    are forked.
    """

    def __init__(self, total: int, label: str):
        self.total = total
        self.label = label
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> Optional[Callable[[int], None]]:
        if not sys.stderr.isatty() or self.total < 2:
            return None
        return self.tick

    def tick(self, done: int) -> None:
        """Show ``done`` finished games, starting the bar on the first call."""
        if self.bar is None:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, TextColumn,
                                       TimeRemainingColumn)
            from rich.progress import Progress as Bar

            self.bar = Bar(TextColumn(self.label), BarColumn(), MofNCompleteColumn(),
                           TextColumn("games, ETA"), TimeRemainingColumn(),
                           console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("games", total=self.total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
