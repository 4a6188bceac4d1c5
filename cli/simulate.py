"""``lc simulate``: bot matches with a summary of wins, scores and round lengths."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from .common import EXIT_PROBLEM, EXIT_USAGE, complete_pack, fail


def register(app: typer.Typer) -> None:
    """Add ``lc simulate`` to the app."""
    app.command("simulate")(simulate)


def complete_bot(incomplete: str) -> list[str]:
    """Shell completion for --bots: the built-in bot names after the last comma."""
    head, _, last = incomplete.rpartition(",")
    prefix = head + "," if head else ""
    return [prefix + name for name in ("random", "greedy") if name.startswith(last)]


def simulate(
    pack: str = typer.Option(
        "duel-classic", "--pack", "-p", autocompletion=complete_pack,
        help="Built-in pack id or pack file."),
    games: int = typer.Option(100, "--games", "-n", min=0, help="Number of matches."),
    seed: int = typer.Option(0, "--seed", "-s", help="Seed; game i uses a seed derived from it."),
    bots: Optional[str] = typer.Option(
        None, "--bots", "-b", autocompletion=complete_bot, show_default=False,
        help="One bot per seat, comma-separated: random, greedy or module:Class (a Bot "
             "class importable from the current folder); the number of bots is the number "
             "of players. Default: random at every seat of the pack's smallest table."),
    record: Optional[Path] = typer.Option(
        None, "--record", "-r", dir_okay=False, show_default=False,
        help="Write every match as a JSON Lines record (lostcities-record/1) to this file."),
    workers: int = typer.Option(1, "--workers", "-w", min=1,
                                help="Worker processes; results do not depend on it."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON document."),
) -> None:
    """Play bot matches and summarise them: wins per seat and per bot with 95% intervals,
    mean and spread of scores, rounds, turns per round, how rounds ended.

    Exit 0 when done, 1 when the pack is invalid or a bot plays an illegal move,
    2 on bad options (unknown pack or bot, wrong number of bots, unwritable file).
    """
    import json

    from lostcities.engine.bots import BotError, make_bot
    from lostcities.engine.errors import LostCitiesError, PackError
    from lostcities.engine.packs import load_pack
    from lostcities.engine.simulation import simulate as run

    try:
        rules = load_pack(pack)
    except PackError as err:
        fail(str(err), EXIT_USAGE if err.code == "LC009" else EXIT_PROBLEM)
    specs = [s.strip() for s in bots.split(",")] if bots else ["random"] * rules.min_players
    if not all(specs):
        fail(f"--bots {bots!r}: an empty bot name; give one name per seat, e.g. random,greedy",
             EXIT_USAGE)
    if not rules.min_players <= len(specs) <= rules.max_players:
        span = (str(rules.min_players) if rules.min_players == rules.max_players
                else f"{rules.min_players} to {rules.max_players}")
        fail(f"--bots: {len(specs)} bot(s) given, {rules.id} is played by {span} players "
             f"(one bot per seat)", EXIT_USAGE)
    if any(":" in spec for spec in specs) and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # module:Class bots from the current folder
    for spec in specs:
        try:
            make_bot(spec)
        except BotError as err:
            fail(f"--bots: {err}", EXIT_USAGE)
    out = None
    if record is not None:
        try:
            out = open(record, "w", encoding="utf-8", newline="\n")
        except OSError as err:
            fail(f"--record {record}: cannot write: {err.strerror}", EXIT_USAGE)
    try:
        with _progress(games) as tick:
            summary = run(rules, specs, games, seed, workers=workers, record=out, progress=tick)
    except LostCitiesError as err:
        fail(str(err), EXIT_PROBLEM)
    finally:
        if out is not None:
            out.close()
    if as_json:
        typer.echo(json.dumps(summary.to_dict(), indent=2))
    else:
        typer.echo(summary.text())
        if record is not None:
            typer.echo(f"records: {record} ({summary.games} lines)")


class _progress:
    """A rich progress bar on stderr when it is a terminal; otherwise nothing.

    The bar (and its refresh thread) starts on the first finished game, after the
    worker processes are forked.
    """

    def __init__(self, total: int):
        self.total = total
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
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeRemainingColumn)

            self.bar = Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
                                TimeRemainingColumn(), console=Console(stderr=True),
                                transient=True)
            self.bar.start()
            self.task = self.bar.add_task("games", total=self.total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
