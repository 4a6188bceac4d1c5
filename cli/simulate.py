"""``lc simulate``: bot matches with a summary of wins, scores and round lengths."""
from __future__ import annotations

from contextlib import nullcontext
from typing import Optional

import typer

from lostcities.engine import load_pack, simulate as run
from lostcities.engine.errors import BackendError, LostCitiesError, PackError
from lostcities.engine.tooling import BACKENDS

from .common import (ALLOW_OUTSIDE, EXIT_PROBLEM, EXIT_USAGE, MAX_GAMES, Output, Progress,
                     WriteError, check_seed, complete_pack, echo_report, fail, report_stdout)
from .matches import bot_specs, check_workers_option, complete_bot


def register(app: typer.Typer) -> None:
    """Add ``lc simulate`` to the app."""
    app.command("simulate")(simulate)


def simulate(
    pack: str = typer.Option(
        "duel-classic", "--pack", "-p", autocompletion=complete_pack,
        help="Built-in pack id or pack file."),
    games: int = typer.Option(100, "--games", "-n", min=0, max=MAX_GAMES,
                              help="Number of matches."),
    seed: int = typer.Option(0, "--seed", "-s", callback=check_seed,
                             help="Seed (at most 20 digits); game i uses a seed derived from it."),
    bots: Optional[str] = typer.Option(
        None, "--bots", "-b", autocompletion=complete_bot, show_default=False,
        help="One bot per seat, comma-separated: random, greedy, expert, ismcts (ismcts@LEVEL, "
             "1-5) or module:Class (a Bot "
             "class importable from the current folder); the number of bots is the number "
             "of players. Default: random at every seat of the pack's smallest table."),
    record: Optional[str] = typer.Option(
        None, "--record", "-r", show_default=False,
        help="Write every match as a JSON Lines record (lostcities-record/1) to this new "
             "file (- for standard output: the summary then goes to standard error). The "
             "file appears once every match is written; a device or an existing file is "
             "refused unless --append or --force."),
    append: bool = typer.Option(False, "--append",
                                help="With --record: add the records to the end of an "
                                     "existing file."),
    force: bool = typer.Option(False, "--force",
                               help="With --record: replace an existing file."),
    workers: int = typer.Option(1, "--workers", "-w", min=1,
                                help="Worker processes, at most one per core; results do not "
                                     "depend on it."),
    oversubscribe: bool = typer.Option(
        False, "--oversubscribe",
        help="Allow --workers beyond the number of cores (up to 8 per core)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON document."),
    backend: str = typer.Option("local", "--backend",
                                help="local (this process or --workers processes) or ray "
                                     "(pip install 'lostcities[ray]'); results do not depend "
                                     "on it."),
    address: Optional[str] = typer.Option(
        None, "--address", show_default=False,
        help="Ray cluster address (default: RAY_ADDRESS, else a local Ray instance)."),
    allow_outside: bool = ALLOW_OUTSIDE,
) -> None:
    """Play bot matches and summarise them: wins per seat and per bot with 95% intervals,
    mean and spread of scores, rounds, turns per round, how rounds ended.

    Exit 0 when done, 1 when the pack is invalid, a bot plays an illegal move or the
    records cannot be written, 2 on bad options (unknown pack or bot, wrong number of
    bots, too many workers, an existing or unwritable --record file, Ray missing or
    unreachable).
    """
    if backend not in BACKENDS:
        fail(f"--backend {backend!r}: choose one of {', '.join(BACKENDS)}", EXIT_USAGE)
    if address is not None and backend != "ray":
        fail("--address is for --backend ray", EXIT_USAGE)
    if workers != 1 and backend != "local":
        fail("--workers is for --backend local (Ray schedules its own workers)", EXIT_USAGE)
    if (append or force) and record is None:
        fail("--append and --force are for --record FILE", EXIT_USAGE)
    if append and force:
        fail("--append adds to the file, --force replaces it: give one", EXIT_USAGE)
    check_workers_option(workers, oversubscribe)
    try:
        rules = load_pack(pack, allow_outside=allow_outside)
    except PackError as err:
        fail(str(err), EXIT_USAGE if err.code == "LC009" else EXIT_PROBLEM)
    except LostCitiesError as err:
        fail(f"--pack: {err}", EXIT_USAGE)
    specs = bot_specs(bots, rules)
    output = nullcontext(None) if record is None else \
        Output(record, "--record", force=force, append=append)
    try:
        with output as out, Progress(games, "simulating", "lc simulate") as tick, \
                report_stdout(backend):
            summary = run(rules, specs, games, seed, workers=workers, record=out, progress=tick,
                          oversubscribe=oversubscribe, allow_import=True,
                          allow_outside=allow_outside, backend=backend, address=address)
    except WriteError as err:
        fail(str(err), EXIT_PROBLEM)
    except BackendError as err:
        fail(str(err), EXIT_USAGE)
    except LostCitiesError as err:
        fail(str(err), EXIT_PROBLEM)
    note = None if record is None else \
        f"records: {'standard output' if record == '-' else record} ({summary.games} lines)"
    echo_report(summary, as_json, note, err=record == "-")
