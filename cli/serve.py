"""``lc serve``: the online room of rule text 002 (docs/server.md).

Needs the ``serve`` extra (Starlette, uvicorn); without it, one line saying how to get it.
"""
from __future__ import annotations

import dataclasses
import logging
import sqlite3
from pathlib import Path
from typing import Any, List, Optional, Sequence

import typer

from lostcities.engine import LostCitiesError
from lostcities.engine.tooling import check_path, shown_path
from lostcities.server.clients import LOCAL_HOSTS, proxies
from lostcities.server.guard import OneLine, guarded, open_connection_cap
from lostcities.server.protocol import LIMITS
from lostcities.server.store import StoreError
from lostcities.server.store_pg import is_postgres_url, parse_url

from .common import EXIT_USAGE, fail
from .session import SaveInUse, SaveLock, SessionError, data_dir


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
    allowed_host: Optional[List[str]] = typer.Option(
        None, "--allowed-host", show_default=False,
        help="A host name requests may be sent to (the Host header), besides the --host "
             "address, localhost and IP addresses; repeatable; * lets any in. Others get "
             "400 (DNS rebinding)."),
    forwarded_allow_ips: str = typer.Option(
        "127.0.0.1,::1", "--forwarded-allow-ips", metavar="ADDRESSES",
        help="Comma-separated addresses or networks of the reverse proxies whose "
             "X-Forwarded-For names the client (whose limits then apply to that client); "
             "* trusts any (only when no client can reach the server but through a proxy)."),
    store: Optional[str] = typer.Option(
        None, "--store", metavar="URL", show_default=False,
        help="Keep the rooms in a PostgreSQL database, named by a postgresql:// URL, "
             "instead of the SQLite file in --data (the records stay in --data); several "
             "lc serve processes may share one database and one --data folder "
             "(docs/server.md, \"PostgreSQL\")."),
    limit: Optional[List[str]] = typer.Option(
        None, "--limit", metavar="NAME=VALUE", show_default=False,
        help="Change one of the server's limits (docs/server.md, \"Limits\"): "
             "rooms=200, idle_seconds=60 ...; repeatable."),
) -> None:
    """Run rooms where friends play over the network: open a room (POST /rooms), share its
    link, /join, /start. Prints the address and runs until Ctrl-C.

    Exit 0 after Ctrl-C, 1 when the database cannot be used (damaged, or its --data in
    use by another lc serve), 2 on bad options (a --store database that cannot be used included)
    or without the serve extra (pip install 'lostcities[serve]').
    """
    try:
        import confusable_homoglyphs  # noqa: F401  (server/names.py)
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        fail("lc serve needs the serve extra: pip install 'lostcities[serve]'", EXIT_USAGE)
    from lostcities.server.app import (  # Starlette's application: the serve extra
        WS_SETTINGS, create_app, tune_collector)

    try:
        folder = check_path(data, "--data") if data is not None else data_dir() / "rooms"
        if packs is not None:
            check_path(packs, "--packs")
    except LostCitiesError as err:
        fail(str(err), EXIT_USAGE)
    if store is not None:
        if not is_postgres_url(store):
            fail("--store: a postgresql://USER:PASSWORD@HOST:PORT/DATABASE URL (without "
                 "--store the rooms are in the SQLite file of --data)", EXIT_USAGE)
        try:
            parse_url(store)
        except StoreError as err:
            fail(f"--store: {err}", EXIT_USAGE)
    if durability not in ("full", "normal"):
        fail(f"--durability {durability[:40]!r}: choose full or normal", EXIT_USAGE)
    if folder.exists() and not folder.is_dir():
        fail(f"--data {shown_path(folder)} is not a folder", EXIT_USAGE)
    if packs is not None and not packs.is_dir():
        fail(f"--packs {shown_path(packs)} is not a folder", EXIT_USAGE)
    try:
        limits = changed_limits(LIMITS, limit or ())
    except ValueError as err:
        fail(f"--limit {err}", EXIT_USAGE)
    bound = () if host in ("0.0.0.0", "::", "") else (host,)
    hosts = (*bound, *LOCAL_HOSTS, *(allowed_host or ()))
    lock = None
    try:
        # one lc serve a data folder of an SQLite store, for its whole life (the system
        # drops the lock of a process killed, even with kill -9); with --store, several
        # processes share the database and the records folder
        folder.mkdir(parents=True, exist_ok=True)
        if store is None:
            lock = SaveLock.acquire(folder / "rooms.sqlite3")
    except SaveInUse as err:
        fail(f"--data {shown_path(folder)} is in use by another lc serve (pid {err.pid}); "
             f"stop that one first, or give another --data")
    except (SessionError, OSError) as err:
        fail(f"--data {shown_path(folder)}: {err}")
    _log_to_stderr()
    try:
        # every message received is checked against the protocol's schema; checking every
        # message sent too (create_app's default, which the tests keep) finds the server's
        # own bugs, and in service cost about 60% of the CPU of a move (bench_server.py)
        app = create_app(folder, packs, allow_origins=allow_origin or (), check_messages=False,
                         durable=durability == "full", limits=limits, allowed_hosts=hosts,
                         store_url=store or "")
    except StoreError as err:
        if store is not None:  # the database's fault: a wrong password, another schema...
            fail(f"--store: {err}", EXIT_USAGE)
        fail(f"--data {shown_path(folder)}: {err}")
    except (OSError, sqlite3.Error, LostCitiesError) as err:
        fail(f"--data {shown_path(folder)}: {err}")
    for problem in app.state.hub.shelf.problems:
        typer.echo(f"lc serve: house pack left out: {problem}", err=True)
    shown_host = f"[{host}]" if ":" in host else host
    where = f"rooms in {parse_url(store)[1]}, records in" if store else "data in"
    typer.echo(f"lc serve: rooms at http://{shown_host}:{port}/ ({where} {shown_path(folder)}); "
               f"Ctrl-C stops", err=False)
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    http = guarded(AutoHTTPProtocol, limits.head_seconds,
                   open_connection_cap(limits.open_connections),
                   limits.address_http_connections, proxies(forwarded_allow_ips))
    config = uvicorn.Config(app, host=host, port=port, http=http, **WS_SETTINGS,
                            log_level="warning", lifespan="on", proxy_headers=True,
                            forwarded_allow_ips=forwarded_allow_ips,
                            timeout_keep_alive=limits.keep_alive_seconds)  # type: ignore[arg-type]
    logging.getLogger("uvicorn.error").addFilter(OneLine())
    tune_collector()
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:  # uvicorn has shut down cleanly, then passes the signal on
        pass
    except OSError as err:
        fail(f"cannot serve on {host}:{port}: {err}")
    if lock is not None:
        lock.release()  # a failure above exits holding it: the system drops it
    typer.echo("lc serve: stopped")


def changed_limits(limits: Any, changes: Sequence[str]) -> Any:
    """``limits`` (a :class:`~lostcities.server.protocol.Limits`) with each ``NAME=VALUE``
    of ``changes`` set: a field's name, a positive number of its type (:class:`ValueError`
    in one line otherwise)."""
    fields = {f.name: f for f in dataclasses.fields(limits)}
    values: dict[str, Any] = {}
    for change in changes:
        name, _, text = change.partition("=")
        name = name.strip()
        if name not in fields:
            raise ValueError(f"{change[:60]!r}: NAME=VALUE, NAME one of {', '.join(fields)}")
        kind = int if fields[name].type in (int, "int") else float
        try:
            value = kind(text.strip()[:30])
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise ValueError(f"{name}: {text[:30]!r} is not {what}") from None
        if not 0 < value < 1e9:
            raise ValueError(f"{name}: {text[:30]!r} must be above 0 and under 10^9")
        values[name] = value
    return dataclasses.replace(limits, **values)


def _log_to_stderr() -> None:
    """What the server leaves out or cannot save, one line each on stderr:
    ``lc serve: room ... left out ...``."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("lc serve: %(message)s"))
    logger = logging.getLogger("lostcities.server")
    if logger.handlers:
        return
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
