"""``lc simulate``: bot matches with a summary of wins, scores and round lengths."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .common import (EXIT_PROBLEM, EXIT_USAGE, Progress, bot_specs, complete_bot, complete_pack,
                     echo_report, fail)


def register(app: typer.Typer) -> None:
    """Add ``lc simulate`` to the app."""
    app.command("simulate")(simulate)


def simulate(
    pack: str = typer.Option(
        "duel-classic", "--pack", "-p", autocompletion=complete_pack,
        help="Built-in pack id or pack file."),
    games: int = typer.Option(100, "--games", "-n", min=0, help="Number of matches."),
    seed: int = typer.Option(0, "--seed", "-s", help="Seed; game i uses a seed derived from it."),
    bots: Optional[str] = typer.Option(
        None, "--bots", "-b", autocompletion=complete_bot, show_default=False,
        help="One bot per seat, comma-separated: random, greedy, expert, ismcts (ismcts@LEVEL, "
             "1-5) or module:Class (a Bot "
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
    from lostcities.engine.errors import LostCitiesError, PackError
    from lostcities.engine.packs import load_pack
    from lostcities.engine.simulation import simulate as run

    try:
        rules = load_pack(pack)
    except PackError as err:
        fail(str(err), EXIT_USAGE if err.code == "LC009" else EXIT_PROBLEM)
    specs = bot_specs(bots, rules)
    out = None
    if record is not None:
        try:
            out = open(record, "w", encoding="utf-8", newline="\n")
        except OSError as err:
            fail(f"--record {record}: cannot write: {err.strerror}", EXIT_USAGE)
    try:
        with Progress(games, "simulating") as tick:
            summary = run(rules, specs, games, seed, workers=workers, record=out, progress=tick)
    except LostCitiesError as err:
        fail(str(err), EXIT_PROBLEM)
    finally:
        if out is not None:
            out.close()
    echo_report(summary, as_json,
                None if record is None else f"records: {record} ({summary.games} lines)")
