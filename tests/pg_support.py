"""A real, throwaway PostgreSQL server for the tests: ``initdb`` and ``pg_ctl`` of Debian's
``postgresql`` package (``/usr/lib/postgresql/*/bin``) in a temporary folder, listening on
127.0.0.1 on a free port and on a unix socket in that folder, never a system cluster.

PostgreSQL refuses to run as root: as root (CI) the cluster's programs run as the
``postgres`` user the package makes (else ``nobody``) through ``runuser``, the folder
given to that user. Local connections (the socket) are trusted; TCP ones need the
password :data:`PASSWORD` (scram-sha-256), so a wrong password is a real refusal.

Without the programs or psycopg the fixture skips with the reason, unless
``LC_REQUIRE_POSTGRES=1`` (``.ci/run``), which makes that a failure.
"""
from __future__ import annotations

import contextlib
import glob
import importlib.util
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator, Optional

import pytest

#: the cluster's superuser and its password (TCP connections need it)
USER, PASSWORD = "lc", "lc-test-password"
#: a start, a stop: the programs' own bound
PG_SECONDS = 60
_numbers = itertools.count()


def pg_bin() -> Optional[Path]:
    """The folder of ``initdb`` and ``pg_ctl``: the newest of ``/usr/lib/postgresql/*/bin``,
    else wherever ``initdb`` is on the PATH; None without one."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name)
                   if Path(p).parent.parent.name.isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).resolve().parent if on_path else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A PostgreSQL server of its own in ``folder`` (data in ``folder/data``, the socket in
    ``folder``); :meth:`database` makes a fresh database and gives its URL."""

    def __init__(self, bin_dir: Path, folder: Path, *, fsync: bool = False):
        self.bin_dir, self.folder, self.port = bin_dir, folder, free_port()
        self.data = folder / "data"
        self.runner: list[str] = []
        if os.geteuid() == 0:  # initdb and postgres refuse root: the package's user runs them
            user = "postgres" if _user_exists("postgres") else "nobody"
            entry = pwd.getpwnam(user)
            os.chown(folder, entry.pw_uid, entry.pw_gid)
            self.runner = ["runuser", "-u", user, "--"]
        password = folder / "password"
        password.write_text(PASSWORD + "\n", encoding="utf-8")
        if self.runner:
            os.chown(password, pwd.getpwnam(self.runner[2]).pw_uid, -1)
        self._run("initdb", "-D", str(self.data), "-U", USER, "--auth-local=trust",
                  "--auth-host=scram-sha-256", f"--pwfile={password}", "--no-sync",
                  "-E", "UTF8", "--locale=C")
        self.options = (f"-c listen_addresses=127.0.0.1 -p {self.port} "
                        f"-c unix_socket_directories={folder} -c max_connections=200 "
                        f"-c fsync={'on' if fsync else 'off'}")
        self.start()

    def start(self) -> None:
        """Start the server (``pg_ctl start``, waited for)."""
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-o",
                  self.options, "-w", "-t", str(PG_SECONDS), "start")

    def halt(self) -> None:
        """Stop the server at once, as a crash (``pg_ctl stop -m immediate``)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def _run(self, program: str, *args: str) -> None:
        out = subprocess.run([*self.runner, str(self.bin_dir / program), *args],
                             capture_output=True, text=True, timeout=PG_SECONDS * 2)
        if out.returncode != 0:
            raise RuntimeError(f"{program} failed: {out.stderr.strip()[-2000:]}")

    def url(self, database: str = "postgres", password: str = PASSWORD) -> str:
        """The TCP URL of ``database`` (what ``lc serve --store`` is given)."""
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{database}"

    def admin(self):  # -> psycopg.Connection
        """A connection to the cluster's ``postgres`` database over the socket (autocommit)."""
        import psycopg

        return psycopg.connect(host=str(self.folder), port=self.port, user=USER,
                               dbname="postgres", autocommit=True)

    def database(self, prefix: str = "t") -> str:
        """A new empty database's URL."""
        name = f"{prefix}{os.getpid()}_{next(_numbers)}"
        with self.admin() as db:
            db.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def execute(self, url: str, *statements: str) -> list:
        """Run ``statements`` on the database of ``url`` in one transaction; the last
        one's rows (if it returns any)."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(host=str(self.folder), port=self.port, user=USER,
                             dbname=name) as db:
            rows: list = []
            for statement in statements:
                cursor = db.execute(statement)
                rows = cursor.fetchall() if cursor.description else []
            return rows

    def restart(self) -> None:
        """Stop the server at once (as a crash) and start it again on the same port."""
        self.halt()
        self.start()

    def stop(self) -> None:
        """Stop the server and remove its folder."""
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self.halt()
        shutil.rmtree(self.folder, ignore_errors=True)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def why_not() -> Optional[str]:
    """Why no cluster can be started here (None: one can)."""
    if importlib.util.find_spec("psycopg") is None:
        return "psycopg is not installed (the postgresql extra)"
    if pg_bin() is None:
        return "PostgreSQL's initdb is not installed (Debian: apt-get install postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser"
    return None


@contextlib.contextmanager
def cluster(fsync: bool = False) -> Iterator[Cluster]:
    """A started :class:`Cluster` in a fresh temporary folder, stopped (``pg_ctl stop -m
    immediate``) and removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="lc-pg-"))
    try:
        started = Cluster(pg_bin(), folder, fsync=fsync)  # type: ignore[arg-type]
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    try:
        yield started
    finally:
        started.stop()


def require_postgres() -> None:
    """Skip the test with the reason where no cluster can run here; under
    ``LC_REQUIRE_POSTGRES=1`` (``.ci/run``) fail it instead."""
    reason = why_not()
    if reason is not None:
        if os.environ.get("LC_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"LC_REQUIRE_POSTGRES=1 but {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """The session's throwaway PostgreSQL server (skipped with the reason where none can
    run, a failure under ``LC_REQUIRE_POSTGRES=1``)."""
    require_postgres()
    with cluster() as started:
        yield started


@pytest.fixture(params=["sqlite", "postgresql"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path):
    """Each store the server can use, in turn: a function opening the test's own store
    (SQLite: ``tmp_path/rooms.sqlite3``; PostgreSQL: a fresh database of the session's
    cluster), the same one at every call (a second call is what a restarted server
    reads); ``open_store.url`` is the PostgreSQL database's URL ("" for SQLite)."""
    from lostcities.server.store import SQLiteStore
    from lostcities.server.store_pg import PostgresStore

    opened: list = []
    if request.param == "sqlite":
        def opener(**options):
            opened.append(SQLiteStore(tmp_path / "rooms.sqlite3", **options))
            return opened[-1]
        opener.url = ""
    else:
        url = request.getfixturevalue("pg_cluster").database()

        def opener(**options):
            opened.append(PostgresStore(url, **options))
            return opened[-1]
        opener.url = url
    opener.kind = request.param
    yield opener
    for store in opened:
        with contextlib.suppress(Exception):
            store.close()
