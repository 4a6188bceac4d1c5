"""``lc serve``: the online room of rule text 002 (docs/server.md).

Needs the ``serve`` extra (Starlette, uvicorn); without it, one line saying how to get it.
"""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .common import EXIT_USAGE, fail


def register(app: typer.Typer) -> None:
    """Add ``lc serve`` to the app."""
    app.command("serve")(serve)


def serve(
    host: str = typer.Option("127.0.0.1", "--host",
                             help="Address to listen on (0.0.0.0: every interface; put a "
                                  "reverse proxy with TLS in front, docs/server.md)."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port to listen on."),
    data: Optional[Path] = typer.Option(
        None, "--data", show_default=False,
        help="Folder of the rooms' database and the finished matches' records "
             "(default: lc play's data folder, rooms/)."),
    packs: Optional[Path] = typer.Option(
        None, "--packs", show_default=False,
        help="A folder of house packs (*.yaml) rooms may be opened with, besides the "
             "built-in ones."),
    durability: str = typer.Option(
        "full", "--durability", metavar="full|normal",
        help="How each turn is kept before anyone hears of it: full (default) synced to "
             "disk, so neither a killed server nor a power cut loses a turn; normal: a killed "
             "server (kill -9) loses none, a power cut or system crash may lose the last "
             "turns (less disk work)."),
    allow_origin: Optional[List[str]] = typer.Option(
        None, "--allow-origin", show_default=False,
        help="A web origin (https://example.org) whose pages may open the WebSocket, "
             "besides this server's own; repeatable; * lets any in."),
) -> None:
    """Run rooms where friends play over the network: open a room (POST /rooms), share its
    link, /join, /start. Prints the address and runs until Ctrl-C.

    Exit 0 after Ctrl-C, 1 when the database cannot be used, 2 on bad options or
    without the serve extra (pip install 'lostcities[serve]').
    """
    try:
        import confusable_homoglyphs  # noqa: F401  (server/names.py)
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        fail("lc serve needs the serve extra: pip install 'lostcities[serve]'", EXIT_USAGE)
    import sqlite3

    from lostcities.engine import LostCitiesError
    from lostcities.engine.safeio import check_path, shown_path

    from lostcities.server.app import create_app
    from lostcities.server.store import StoreError

    from .session import data_dir

    try:
        folder = check_path(data, "--data") if data is not None else data_dir() / "rooms"
        if packs is not None:
            check_path(packs, "--packs")
    except LostCitiesError as err:
        fail(str(err), EXIT_USAGE)
    if durability not in ("full", "normal"):
        fail(f"--durability {durability[:40]!r}: choose full or normal", EXIT_USAGE)
    if folder.exists() and not folder.is_dir():
        fail(f"--data {shown_path(folder)} is not a folder", EXIT_USAGE)
    if packs is not None and not packs.is_dir():
        fail(f"--packs {shown_path(packs)} is not a folder", EXIT_USAGE)
    try:
        # every message received is checked against the protocol's schema; checking every
        # message sent too (create_app's default, which the tests keep) finds the server's
        # own bugs, and in service cost about 60% of the CPU of a move (bench_server.py)
        app = create_app(folder, packs, allow_origins=allow_origin or (), check_messages=False,
                         durable=durability == "full")
    except (StoreError, OSError, sqlite3.Error, LostCitiesError) as err:
        fail(f"--data {shown_path(folder)}: {err}")
    for problem in app.state.hub.shelf.problems:
        typer.echo(f"lc serve: house pack left out: {problem}", err=True)
    shown_host = f"[{host}]" if ":" in host else host
    typer.echo(f"lc serve: rooms at http://{shown_host}:{port}/ (data in {shown_path(folder)}); "
               f"Ctrl-C stops", err=False)
    config = uvicorn.Config(app, host=host, port=port, ws="auto", ws_max_size=65536,
                            log_level="warning", lifespan="on")
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:  # uvicorn has shut down cleanly, then passes the signal on
        pass
    except OSError as err:
        fail(f"cannot serve on {host}:{port}: {err}")
    typer.echo("lc serve: stopped")
