"""``lc balance``: what a house pack changes, measured on paired games against a base pack."""
from __future__ import annotations

import shutil
from importlib.util import find_spec
from pathlib import Path
from typing import Optional

import typer

from lostcities.engine import load_pack
from lostcities.engine.errors import BackendError, LostCitiesError, PackError
from lostcities.engine.tooling import BACKENDS, balance as run, check_path

from .common import (ALLOW_OUTSIDE, EXIT_PROBLEM, EXIT_USAGE, MAX_GAMES, Progress, check_seed,
                     complete_pack, echo_report, fail, plain, report_stdout)
from .matches import bot_specs, check_workers_option, complete_bot


def register(app: typer.Typer) -> None:
    """Add ``lc balance`` to the app."""
    app.command("balance")(balance)


def balance(
    house: str = typer.Argument(..., metavar="HOUSE_PACK", autocompletion=complete_pack,
                                help="The pack to measure: a pack file or a built-in id."),
    base: str = typer.Option("duel-classic", "--base", autocompletion=complete_pack,
                             help="The pack to compare with (built-in id or file)."),
    games: int = typer.Option(1000, "--games", "-n", min=1, max=MAX_GAMES,
                              help="Paired games: each seed is played on both packs."),
    bots: Optional[str] = typer.Option(
        "expert,expert", "--bots", "-b", autocompletion=complete_bot,
        help="One bot per seat for both packs, comma-separated: random, greedy, expert, "
             "ismcts (ismcts@LEVEL) or module:Class."),
    seed: int = typer.Option(0, "--seed", "-s", callback=check_seed,
                             help="Seed (at most 20 digits); game i uses a seed derived from it."),
    workers: Optional[int] = typer.Option(
        None, "--workers", "-w", min=1, show_default=False,
        help="Local worker processes (default and at most: all cores); results do not "
             "depend on it."),
    oversubscribe: bool = typer.Option(
        False, "--oversubscribe",
        help="Allow --workers beyond the number of cores (up to 8 per core)."),
    precision: Optional[float] = typer.Option(
        None, "--precision", min=0.0, show_default=False,
        help="Stop early once every difference's 95% interval is this narrow (half-width): "
             "absolute for proportions (0.02 = 2 points of percentage), relative to the "
             "base's mean for other measures (0.02 = 2%)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as one JSON document."),
    plot: Optional[Path] = typer.Option(
        None, "--plot", dir_okay=False, show_default=False,
        help="Draw score distributions and differences to this PNG (needs matplotlib: "
             "pip install 'lostcities[plot]')."),
    backend: str = typer.Option("local", "--backend",
                                help="local (process pool) or ray (pip install 'lostcities[ray]')."),
    address: Optional[str] = typer.Option(
        None, "--address", show_default=False,
        help="Ray cluster address (default: RAY_ADDRESS, else a local Ray instance)."),
    resume: Optional[Path] = typer.Option(
        None, "--resume", file_okay=False, show_default=False,
        help="Run folder: finished batches are written there; run again with the same "
             "folder to resume an interrupted run without replaying them."),
    allow_outside: bool = ALLOW_OUTSIDE,
) -> None:
    """Play HOUSE_PACK and --base on the same seeds and compare, each with a 95% interval
    and whether the difference is significant: first-player wins, scores (mean, spread,
    margins, close matches), turns per round, rows opened, wagers, long-expedition
    bonuses, draws from discard piles, rounds ended by the turn cap, and for board packs
    bridges crossed and artefacts taken.

    --allow-outside lets both packs extend files outside their folders; it is not part
    of a --resume folder's run (the games are the same), so give it again to resume.

    Exit 0 when done, 1 when a pack is invalid or a bot fails, 2 on bad options (too
    many workers, a --resume folder of another run or one that cannot be used).
    """
    if backend not in BACKENDS:
        fail(f"--backend {backend!r}: choose one of {', '.join(BACKENDS)}", EXIT_USAGE)
    if address is not None and backend != "ray":
        fail("--address is for --backend ray", EXIT_USAGE)
    if workers is not None and backend != "local":
        fail("--workers is for --backend local (Ray schedules its own workers)", EXIT_USAGE)
    if backend == "local":
        check_workers_option(workers, oversubscribe)
    for option, path in (("--resume", resume), ("--plot", plot)):
        if path is not None:
            try:
                check_path(path, option)
            except LostCitiesError as err:
                fail(str(err), EXIT_USAGE)
    if plot is not None:
        if find_spec("matplotlib") is None:
            fail("--plot needs matplotlib: pip install 'lostcities[plot]'", EXIT_USAGE)
    packs = []
    for option, ref in (("HOUSE_PACK", house), ("--base", base)):
        try:
            packs.append(load_pack(ref, allow_outside=allow_outside))
        except PackError as err:
            fail(f"{option}: {err}", EXIT_USAGE if err.code == "LC009" else EXIT_PROBLEM)
        except LostCitiesError as err:
            fail(f"{option}: {err}", EXIT_USAGE)
    if packs[0].rounds != packs[1].rounds:
        typer.echo(f"lc: warning: {plain(packs[0].id)} plays {packs[0].rounds} round(s) a match "
                   f"and {plain(packs[1].id)} {packs[1].rounds}: the per-match measures (wins, "
                   f"scores, margins) compare matches of different lengths", err=True)
    specs = bot_specs(bots, packs[0])
    if not packs[1].min_players <= len(specs) <= packs[1].max_players:
        fail(f"--bots: {len(specs)} bot(s), but {packs[1].id} is played by "
             f"{packs[1].min_players}-{packs[1].max_players} players", EXIT_USAGE)
    try:
        with Progress(games, "balancing", "lc balance") as tick, report_stdout(backend):
            report = run(packs[0], packs[1], specs, games, seed, workers=workers,
                         precision=precision, backend=backend, address=address,
                         run_dir=None if resume is None else str(resume), progress=tick,
                         oversubscribe=oversubscribe, allow_import=True,
                         allow_outside=allow_outside)
    except BackendError as err:
        fail(str(err), EXIT_USAGE)
    except LostCitiesError as err:
        fail(str(err), EXIT_PROBLEM)
    if plot is not None:
        try:
            report.plot(str(plot))
        except OSError as err:
            fail(f"--plot {plot}: cannot write: {err.strerror or err}", EXIT_USAGE)
    note = None if plot is None else f"plot: {plot}"
    if as_json:
        echo_report(report, as_json, note)
    else:  # the table fits the terminal (80 columns at least: a pipe, a narrow window)

        typer.echo(report.text(shutil.get_terminal_size((80, 24)).columns))
        if note:
            typer.echo(note)
