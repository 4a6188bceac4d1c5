"""The rooms' store on a PostgreSQL server: :class:`PostgresStore`, the same :class:`~.store.Store`
as the embedded SQLite one, chosen by ``lc serve --store postgresql://...`` (psycopg 3, the
``postgresql`` extra; docs/server.md, "PostgreSQL").

One schema for both stores: :data:`~.store.MIGRATIONS` and the schema's statements are
SQLite's, run here through :func:`postgres_sql`, the one place that says what PostgreSQL
spells differently (placeholders, and the column types whose SQLite meaning is wider than
PostgreSQL's of the same name). The reads whose SQL is the same are the same code
(:class:`~.store.SQLReads`), and every row is read and checked by the same functions
(:func:`~.store.room_row`, :func:`~.store.seat_rows` ...).

Calls come from the server's worker threads, as with SQLite; each takes a connection of a
small pool of its own (:data:`POOL_SIZE`), and every write is one transaction. A turn is
unique by the primary key (room, number): a second turn N is refused by the database,
never applied twice, whoever wrote the first; a rated match's id is the key of
``rated_matches``, and its players' rows are locked while their ratings change. A
connection the server dropped (a restart of PostgreSQL) is replaced by a new one.

Several ``lc serve`` processes may share one database (docs/server.md, "Several processes
on one database"): every write of a room's state checks and bumps the room's ``version``
(:class:`~.store.StaleRoom` when another process wrote it first), and each change is
announced on the channel :data:`CHANNEL` (``NOTIFY``), which every process hears on a
connection of its own (:meth:`PostgresStore.listen`).
"""
from __future__ import annotations

import contextlib
import functools
import json
import logging
import math
import os
import re
import select
import signal
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Sequence
from urllib.parse import parse_qsl, unquote, urlsplit

from .ratings import BOT_PREFIX, MatchResult, Rating, ranks, update
from .store import (ANNOUNCE_BYTES, CONT, LOBBY, PLAYING, QUEUE_PAIR, QUEUE_SUMMARY, REMATCH,
                    SAID_MOST, SCHEMA_VERSION,
                    ChatRow, DamagedRow, Placed, PlayerRow, RoomRow, SeatRow, SQLReads,
                    StaleRoom, StoreError, chat_row,
                    columns_problem, migration_steps, placed_row, schema_statements)

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger(__name__)

#: the URL schemes that name a PostgreSQL server
SCHEMES = ("postgresql", "postgres")
#: the longest ``--store`` URL read, and its longest query value
URL_CHARS, VALUE_CHARS = 1000, 200
#: the libpq parameters a URL may give besides user, password, host, port and database
PARAMETERS = frozenset({"sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout",
                        "target_session_attrs", "host", "port"})
#: seconds a connection to the server may take (a URL's ``connect_timeout`` changes it)
CONNECT_SECONDS = 10
#: connections a store keeps (the server's worker threads share them); a call finding
#: none free waits up to :data:`POOL_WAIT_SECONDS`
POOL_SIZE, POOL_WAIT_SECONDS = 16, 30
#: the advisory lock key of the schema's creation and migration (a transaction's)
SCHEMA_LOCK = 0x4C430001
#: the channel of :meth:`PostgresStore.announce` (NOTIFY) and :meth:`PostgresStore.listen`
CHANNEL = "lc_rooms"
#: the listening connection: seconds between its checks that the server is still there
#: (a query), and between its attempts to connect again once it is not
LISTEN_CHECK_SECONDS, LISTEN_RETRY_SECONDS = 2.0, 1.0

#: SQLite's column types as PostgreSQL must spell them: SQLite's INTEGER holds 64 bits
#: (a room's seed has 48), its REAL is a double (the timestamps)
_TYPES = {"INTEGER": "BIGINT", "REAL": "DOUBLE PRECISION"}
#: a turn appended if its number is the next of its room (and nobody wrote it meanwhile:
#: the primary key); (room, number, kind, text, number, room) -> its number, or no row
_NEXT_TURN = ("INSERT INTO turns (room, number, kind, text, at) SELECT ?, ?, ?, ?, ? WHERE ? = "
              "(SELECT COALESCE(MAX(number) + 1, 0) FROM turns WHERE room=?) "
              "ON CONFLICT DO NOTHING RETURNING number")
#: a plain move in one statement: the room's version checked and bumped (no row: another
#: process wrote the room first) and the turn appended, or neither;
#: (room, version, room, number, kind, text, at) -> the turn's number, or no row
_MOVE = ("WITH bumped AS (UPDATE rooms SET version=version+1 WHERE id=? AND version=? "
         "RETURNING id, {notify}) INSERT INTO turns (room, number, kind, text, at) "
         "SELECT ?, ?, ?, ?, ? FROM bumped RETURNING number")
#: the announcement of a room's new version, sent by the statement that bumps it (a
#: ``RETURNING`` expression: delivered when its transaction commits, never before, never
#: for a write rolled back): ``{"room", "version", "listed"}``
_CHANGED = (f"pg_notify('{CHANNEL}', json_build_object('room', id, 'version', version, "
            f"'listed', listed{{more}})::text)")
#: a plain move's says so (``"move": true``): a process behind by that one turn reads only
#: the turns (:meth:`~.room.Room.refresh`)
_MOVE = _MOVE.format(notify=_CHANGED.format(more=", 'move', true"))
_CHANGED = _CHANGED.format(more="")
#: a process's name in the tables it shares (who waits, who is present): its listening
#: session's pid and start, so that a process gone (its session ended) is known gone
_PROCESS = "pid || '@' || extract(epoch FROM backend_start)"
_ME = f"SELECT {_PROCESS} FROM pg_stat_activity WHERE pid=pg_backend_pid()"
_ALIVE = f"process IN (SELECT {_PROCESS} FROM pg_stat_activity)"
_QUOTED = re.compile(r"('(?:[^']|'')*')")
_TYPE_WORD = re.compile(r"\b(INTEGER|REAL)\b")


@functools.lru_cache(maxsize=512)
def postgres_sql(statement: str) -> str:
    """A statement written for SQLite as PostgreSQL (psycopg) reads it: each ``?``
    placeholder as ``%s`` (a ``%`` as ``%%``), the types ``INTEGER`` as ``BIGINT`` and
    ``REAL`` as ``DOUBLE PRECISION``; quoted text is left as it is.

    >>> postgres_sql("CREATE TABLE t (n INTEGER, at REAL, s TEXT DEFAULT 'REAL?')")
    "CREATE TABLE t (n BIGINT, at DOUBLE PRECISION, s TEXT DEFAULT 'REAL?')"
    >>> postgres_sql("SELECT x FROM t WHERE a=? AND b LIKE 'a%'")
    "SELECT x FROM t WHERE a=%s AND b LIKE 'a%%'"
    """
    parts = _QUOTED.split(statement)
    for i in range(0, len(parts), 2):  # the text outside the quotes
        parts[i] = _TYPE_WORD.sub(lambda m: _TYPES[m.group(1)],
                                  parts[i].replace("%", "%%").replace("?", "%s"))
    for i in range(1, len(parts), 2):
        parts[i] = parts[i].replace("%", "%%")
    return "".join(parts)


def is_postgres_url(text: str) -> bool:
    """Whether ``--store`` names a PostgreSQL server (its scheme), rather than a file."""
    return text.split(":", 1)[0].lower() in SCHEMES and "://" in text[:20]


def parse_url(url: str) -> tuple[dict[str, Any], str]:
    """The connection parameters of a ``postgresql://USER:PASSWORD@HOST:PORT/DATABASE?...``
    URL (libpq's form; ``postgres://`` too; ``?host=/run/postgresql`` for a unix socket)
    and the URL as it may be shown (the password as ``***``); :class:`StoreError` in one
    line, never with the password, for anything else."""
    if len(url) > URL_CHARS:
        raise StoreError(f"the URL is longer than {URL_CHARS} characters")
    if any(not 0x21 <= ord(c) <= 0x7E for c in url):
        raise StoreError("the URL holds a space, a control or a non-ASCII character "
                         "(percent-encode them)")
    try:
        parts = urlsplit(url)
        port = parts.port
        password = None if parts.password is None else unquote(parts.password)
    except ValueError as err:
        raise StoreError(f"the URL cannot be read: {_without(str(err), url)}") \
            from None
    if parts.scheme.lower() not in SCHEMES:
        raise StoreError("the URL must start with postgresql:// or postgres://")
    shown = f"{parts.scheme}://" + (
        f"{parts.username}{':***' if password is not None else ''}@"
        if parts.username is not None else "") + parts.netloc.rpartition("@")[2] + parts.path
    if parts.fragment:
        raise StoreError(f"{shown}: the URL has no #fragment")
    database = unquote(parts.path[1:]) if parts.path.startswith("/") else ""
    if not database or "/" in database:
        raise StoreError(f"{shown}: name the database: postgresql://USER@HOST/DATABASE")
    keywords: dict[str, Any] = {"dbname": database, "connect_timeout": CONNECT_SECONDS}
    if parts.hostname:
        keywords["host"] = unquote(parts.hostname)
    if port is not None:
        keywords["port"] = port
    if parts.username:
        keywords["user"] = unquote(parts.username)
    if password is not None:
        keywords["password"] = password
    try:
        query = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        raise StoreError(f"{shown}: its ?query is not NAME=VALUE&...") from None
    seen: set[str] = set()
    for name, value in query:
        if name not in PARAMETERS:
            raise StoreError(f"{shown}: ?{name[:40]}= is not a parameter read here (one of "
                             f"{', '.join(sorted(PARAMETERS))})")
        if name in seen or len(value) > VALUE_CHARS or not value:
            raise StoreError(f"{shown}: ?{name}= is given twice, empty or too long")
        seen.add(name)
        keywords[name] = value
    for number in ("port", "connect_timeout"):
        value = str(keywords.get(number, "1"))
        if not value.isdigit() or not 0 < int(value) < 65536:
            raise StoreError(f"{shown}: {number} is not a number from 1 to 65535")
        if number in keywords:
            keywords[number] = int(value)
    return keywords, shown


def _without(text: str, *secrets: Optional[str]) -> str:
    """``text`` in one line of at most 300 characters, with none of ``secrets`` in it."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return " ".join(text.split())[:300]


def _dropped(db: "psycopg.Connection") -> bool:
    """Whether the server dropped this idle connection: it has something to read (the
    server's farewell, or the end of the stream), which an idle session of ours never
    has. No round trip."""
    try:
        readable, _, _ = select.select([db.fileno()], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class _Pool:
    """At most ``size`` connections made by ``connect``, lent one at a time; a connection
    found broken (the server dropped it) is closed and never lent again."""

    def __init__(self, connect: Callable[[], "psycopg.Connection"], size: int,
                 closing: Callable[["psycopg.Connection"], None] = lambda db: None):
        self._connect = connect
        #: called with each connection the pool closes, before it is closed
        self._closing = closing
        self._idle: list["psycopg.Connection"] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(size)

    @contextlib.contextmanager
    def connection(self) -> Iterator["psycopg.Connection"]:
        if not self._slots.acquire(timeout=POOL_WAIT_SECONDS):
            raise StoreError(f"no connection to the database came free in "
                             f"{POOL_WAIT_SECONDS} s")
        try:
            with self._lock:
                db = self._idle.pop() if self._idle else None
            if db is not None and _dropped(db):
                self._closing(db)
                db.close()
                db = None
            if db is None:
                db = self._connect()
            try:
                yield db
            finally:
                if db.closed or db.broken:
                    self._closing(db)
                    db.close()
                else:
                    with self._lock:
                        self._idle.append(db)
        finally:
            self._slots.release()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for db in idle:
            db.close()


class PostgresStore(SQLReads):
    """:class:`~.store.Store` on a PostgreSQL database named by a URL
    (:func:`parse_url`). ``durable``: each commit waits for the server's WAL to reach its
    disk (``synchronous_commit=on``, PostgreSQL's default); False: ``off`` (a crash of the
    database server may lose the last commits; a killed ``lc serve`` loses none).
    ``chat_keep`` and ``crash_at`` as :class:`~.store.SQLiteStore`'s.

    Opening it checks the database (every table and column the server reads), creates
    or migrates the schema in one transaction (PostgreSQL's DDL is transactional: a
    failed step leaves it as it was); each fault is one
    :class:`~.store.StoreError` line that never holds the password."""

    #: other processes may write its rooms (docs/server.md, "Several processes")
    shared = True

    def __init__(self, url: str, *, durable: bool = True, chat_keep: int = 200,
                 crash_at: str = ""):
        self._keywords, self.shown = parse_url(url)
        #: the listening thread (:meth:`listen`) and what stops it
        self._listener: Optional[threading.Thread] = None
        self._closing = threading.Event()
        #: this process's name in the shared tables (:data:`_PROCESS`), once it listens
        self.process = ""
        #: the server pids of this store's own connections: what they announce, this
        #: process knows already (the listener passes it over)
        self._own_pids: set[int] = set()
        self._password = self._keywords.get("password")
        self.durable = durable
        self.chat_keep = chat_keep
        self.crash_at = crash_at
        self._said: set[tuple[str, int]] = set()
        self._pool = _Pool(self._connect, POOL_SIZE, self._forget_pid)
        self._needs_psycopg()
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------- connections

    @staticmethod
    def _needs_psycopg() -> Any:
        """psycopg, or :class:`~.store.StoreError` in one line without it (the extra)."""
        try:
            import psycopg
            return psycopg
        except ImportError:
            raise StoreError("--store postgresql:// needs the postgresql extra: "
                             "pip install 'lostcities[postgresql]'") from None

    def _connect(self) -> "psycopg.Connection":
        psycopg = self._needs_psycopg()
        try:
            db = psycopg.connect(**self._keywords, autocommit=True,
                                 application_name=f"lc serve pid {os.getpid()}")
            if not self.durable:
                db.execute("SET synchronous_commit TO off")
        except psycopg.Error as err:
            raise StoreError(f"{self.shown}: {self._said_error(err)}") from None
        self._own_pids.add(db.info.backend_pid)
        return db

    def _forget_pid(self, db: "psycopg.Connection") -> None:
        """A connection closed: its server pid is no more this store's."""
        with contextlib.suppress(Exception):
            self._own_pids.discard(db.info.backend_pid)

    def _said_error(self, err: Exception) -> str:
        text = str(err) or type(err).__name__
        # psycopg says "connection failed: connection to server at ... failed: FATAL: ..."
        return _without(text.replace("connection failed: ", "", 1), self._password)

    def _open(self) -> None:
        """Create or migrate the schema (one transaction, under the schema's lock: two
        servers starting together create it once), then check every table and column."""
        import psycopg

        with self._write() as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            db.execute(postgres_sql("CREATE TABLE IF NOT EXISTS meta "
                                    "(key TEXT PRIMARY KEY, value TEXT NOT NULL)"))
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                for statement in schema_statements():
                    db.execute(postgres_sql(statement))
                db.execute(postgres_sql("INSERT INTO meta VALUES ('schema', ?)"),
                           (str(SCHEMA_VERSION),))
            else:
                for version, statement in migration_steps(self.shown, str(row[0])):
                    try:
                        db.execute(postgres_sql(statement))
                    except psycopg.Error as err:
                        raise StoreError(f"{self.shown}: cannot migrate it from schema "
                                         f"version {version}: {self._said_error(err)}") \
                            from None
                db.execute(postgres_sql("UPDATE meta SET value=? WHERE key='schema'"),
                           (str(SCHEMA_VERSION),))
            missing = columns_problem(lambda table: {r[0] for r in db.execute(
                "SELECT column_name FROM information_schema.columns WHERE "
                "table_schema=current_schema() AND table_name=%s", (table,))})
            if missing is not None:
                raise StoreError(f"{self.shown}: {missing}: not a rooms database of this "
                                 f"server (restore it from a backup)")

    @contextlib.contextmanager
    def _write(self) -> Iterator["psycopg.Connection"]:
        """One transaction on a pooled connection: committed when the block ends, rolled
        back when it raises; a write the database refuses is a :class:`StoreError`. A
        connection the server dropped meanwhile (found at ``BEGIN``, before anything was
        written) is replaced by a new one once."""
        import psycopg

        for attempt in (1, 2):
            with self._pool.connection() as db:
                try:
                    db.execute("BEGIN")
                except psycopg.OperationalError as err:
                    if attempt == 2:
                        raise StoreError(f"{self.shown}: not saved: "
                                         f"{self._said_error(err)}") from None
                    continue  # (the pool closes a broken connection)
                except psycopg.Error as err:
                    raise StoreError(f"{self.shown}: not saved: "
                                     f"{self._said_error(err)}") from None
                try:
                    yield db
                    db.execute("COMMIT")
                except BaseException as err:
                    with contextlib.suppress(psycopg.Error):
                        db.execute("ROLLBACK")
                    if isinstance(err, psycopg.Error):
                        raise StoreError(f"{self.shown}: not saved: "
                                         f"{self._said_error(err)}") from None
                    raise
                return

    def _execute(self, sql: str, params: Sequence[object] = ()) -> None:
        with self._write() as db:
            db.execute(postgres_sql(sql), params)

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:
        """The rows of one query (``sql`` in SQLite's words, :func:`postgres_sql`). A
        connection the server dropped meanwhile is tried once more on a new one."""
        import psycopg

        for attempt in (1, 2):
            try:
                with self._pool.connection() as db:
                    return db.execute(postgres_sql(sql), params).fetchall()
            except psycopg.OperationalError as err:
                if attempt == 2:
                    raise StoreError(f"{self.shown}: cannot read: "
                                     f"{self._said_error(err)}") from None
            except psycopg.Error as err:
                raise StoreError(f"{self.shown}: cannot read: "
                                 f"{self._said_error(err)}") from None
        raise AssertionError("unreachable")

    @staticmethod
    def _one(db: "psycopg.Connection", sql: str, params: Sequence[object] = ()) -> Any:
        """The first row of ``sql`` run on ``db`` in the caller's transaction, or None."""
        return db.execute(postgres_sql(sql), params).fetchone()

    def _bump(self, db: "psycopg.Connection", room_id: str, version: Optional[int]) -> None:
        """The room's version one more, its row locked until the caller's transaction
        ends (writes of one room one after the other, whichever process makes them);
        :class:`~.store.StaleRoom` when ``version`` is given and the stored one is
        another (another process wrote the room since this one read it)."""
        if version is None:
            self._one(db, f"UPDATE rooms SET version=version+1 WHERE id=? RETURNING {_CHANGED}",
                      (room_id,))
        elif self._one(db, f"UPDATE rooms SET version=version+1 WHERE id=? AND version=? "
                           f"RETURNING {_CHANGED}", (room_id, version)) is None:
            raise StaleRoom(room_id, version)

    # ------------------------------------------------------------- other processes

    def announce(self, message: dict[str, Any]) -> None:
        """``NOTIFY`` on :data:`CHANNEL` (delivered to every listening session, this
        process's included, in the order of their commits); a message longer than
        :data:`~.store.ANNOUNCE_BYTES` is not sent (a caller sends less)."""
        import psycopg

        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        if len(text.encode()) > ANNOUNCE_BYTES:
            raise StoreError(f"an announcement of {len(text.encode())} bytes (at most "
                             f"{ANNOUNCE_BYTES})")
        try:
            with self._pool.connection() as db:
                db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, text))
        except psycopg.Error as err:
            raise StoreError(f"{self.shown}: not announced: {self._said_error(err)}") \
                from None

    def listen(self, heard: Callable[[dict[str, Any]], None],
               lost: Callable[[], None], back: Callable[[], None]) -> None:
        """A thread of its own on a connection of its own: ``LISTEN`` on :data:`CHANNEL`,
        ``heard(message)`` for each announcement (a JSON object; anything else is
        skipped), a query every :data:`LISTEN_CHECK_SECONDS` to find a server gone;
        when the connection is lost, ``lost()``, then a new one tried every
        :data:`LISTEN_RETRY_SECONDS` until it listens again: ``back()`` (what was
        announced meanwhile is lost: the caller reads again what it holds)."""
        if self._listener is not None:
            raise StoreError("already listening")
        self._listener = threading.Thread(target=self._listen, args=(heard, lost, back),
                                          name="lc-listen", daemon=True)
        self._listener.start()

    def _listen(self, heard: Callable[[dict[str, Any]], None],
                lost: Callable[[], None], back: Callable[[], None]) -> None:
        import psycopg

        reachable = True
        while not self._closing.is_set():
            try:
                db = self._connect()
            except StoreError:
                if reachable:
                    reachable = False
                    lost()
                self._closing.wait(LISTEN_RETRY_SECONDS)
                continue
            try:
                db.execute(f"LISTEN {CHANNEL}")
                self.process = str(db.execute(_ME).fetchone()[0])
                if not reachable:
                    reachable = True
                    back()
                while not self._closing.is_set():
                    for notice in db.notifies(timeout=LISTEN_CHECK_SECONDS):
                        if notice.pid in self._own_pids:
                            continue  # (this process's own write: known here already)
                        try:
                            message = json.loads(notice.payload)
                        except ValueError:
                            continue
                        if isinstance(message, dict):
                            heard(message)
                    db.execute("SELECT 1")  # a server gone is found here, at the latest
            except psycopg.Error:
                if not self._closing.is_set():
                    reachable = False
                    self._own_pids.clear()  # (the connections go: their pids anyone's)
                    lost()
                    self._closing.wait(LISTEN_RETRY_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    db.close()

    def set_present(self, room_id: str, seats: Sequence[int]) -> None:
        with self._write() as db:
            db.execute(postgres_sql("DELETE FROM present WHERE room=? AND process=?"),
                       (room_id, self.process))
            for seat in sorted(set(seats)):
                db.execute(postgres_sql("INSERT INTO present VALUES (?, ?, ?) "
                                        "ON CONFLICT DO NOTHING"),
                           (room_id, seat, self.process))
            db.execute("SELECT pg_notify(%s, %s)",
                       (CHANNEL, json.dumps({"room": room_id, "present": True})))

    def present_elsewhere(self, room_ids: Sequence[str]) -> dict[str, set[int]]:
        found: dict[str, set[int]] = {}
        for room, seat in self._read(f"SELECT room, seat FROM present WHERE room = ANY(?) "
                                     f"AND process<>? AND {_ALIVE}",
                                     (list(room_ids), self.process)):
            if type(seat) is int:
                found.setdefault(str(room), set()).add(seat)
        return found

    def tidy(self) -> None:
        """Forget what processes gone (their sessions ended) left in the shared tables:
        their waiters and their presence."""
        with self._write() as db:
            for table in ("waiting", "present"):
                db.execute(f"DELETE FROM {table} WHERE NOT {_ALIVE}")

    def queue_join(self, waiter: str, pack: str, clock: str, at: float) -> Optional[str]:
        with self._write() as db:
            db.execute(postgres_sql("DELETE FROM waiting WHERE id=?"), (waiter,))
            row = self._one(db, QUEUE_PAIR.format(alive=_ALIVE, lock=" FOR UPDATE SKIP LOCKED"),
                            (pack, clock, waiter))
            if row is not None:
                db.execute(postgres_sql("DELETE FROM waiting WHERE id=?"), (row[0],))
            else:
                db.execute(postgres_sql("INSERT INTO waiting VALUES (?, ?, ?, ?, ?)"),
                           (waiter, pack, clock, self.process, at))
            db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps({"queue": True})))
        return None if row is None else str(row[0])

    def queue_leave(self, waiter: str) -> bool:
        with self._write() as db:
            gone = self._one(db, "DELETE FROM waiting WHERE id=? RETURNING id", (waiter,))
            if gone is not None:
                db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps({"queue": True})))
        return gone is not None

    def queue_summary(self) -> list[tuple[str, str, int]]:
        return [(str(p), str(c), int(n)) for p, c, n in
                self._read(QUEUE_SUMMARY.format(alive=_ALIVE))]

    # ------------------------------------------------------------- rooms

    def create_room(self, room_id: str, pack: str, seed: int, *, pack_data: str = "",
                    pack_sha256: str = "", hints: bool = False,
                    listed: bool = False, rated: bool = False, clock: str = "") -> RoomRow:
        now = time.time()
        with self._write() as db:
            if self._one(db, "INSERT INTO rooms (id, pack, seed, status, labels, created, "
                             "pack_data, pack_sha256, hints, listed, rated, clock) "
                             "VALUES (?, ?, ?, ?, '[]', ?, ?, ?, ?, ?, ?, ?) "
                             "ON CONFLICT DO NOTHING RETURNING id",
                         (room_id, pack, seed, LOBBY, now, pack_data, pack_sha256,
                          int(hints), int(listed), int(rated), clock)) is None:
                raise StoreError(f"room {room_id} exists")
            self._one(db, f"SELECT {_CHANGED} FROM rooms WHERE id=?", (room_id,))
        return RoomRow(room_id, pack, seed, LOBBY, (), now, pack_data, pack_sha256, hints,
                       listed, rated, clock)

    def last_visits(self) -> list[tuple[str, str, float]]:
        rows = self._read(
            "SELECT id, status, GREATEST(created, held, "
            "COALESCE((SELECT MAX(seen) FROM seats WHERE room=rooms.id), 0), "
            "COALESCE((SELECT MAX(at) FROM chat WHERE room=rooms.id), 0)) FROM rooms")
        return [(str(i), str(status), float(last)) for i, status, last in rows]

    def delete_rooms(self, room_ids: Sequence[str]) -> None:
        with self._write() as db:
            for room_id in room_ids:  # (heard once the rows are gone: committed)
                db.execute("SELECT pg_notify(%s, %s)",
                           (CHANNEL, json.dumps({"room": room_id, "gone": True})))
            for table, key in (("chat", "room"), ("turns", "room"), ("seats", "room"),
                               ("rooms", "id")):
                db.execute(postgres_sql(f"DELETE FROM {table} WHERE {key} = ANY(?)"),
                           (list(room_ids),))

    def start(self, room_id: str, labels: Sequence[str], at: float = 0.0,
              version: Optional[int] = None) -> None:
        with self._write() as db:
            self._bump(db, room_id, version)
            db.execute(postgres_sql("UPDATE rooms SET status=?, labels=?, started=? WHERE id=?"),
                       (PLAYING, json.dumps(list(labels)), at, room_id))

    # ------------------------------------------------------------- seats

    def put_seat(self, room_id: str, seat: SeatRow, version: Optional[int] = None) -> None:
        with self._write() as db:
            self._bump(db, room_id, version)
            self._put_seat(db, room_id, seat)

    @staticmethod
    def _put_seat(db: "psycopg.Connection", room_id: str, seat: SeatRow) -> None:
        db.execute(postgres_sql(
            "INSERT INTO seats (room, seat, name, kind, bot, token_hash, wants_cont, "
            "seen, player, wants_rematch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (room, seat) DO UPDATE SET name=EXCLUDED.name, kind=EXCLUDED.kind, "
            "bot=EXCLUDED.bot, token_hash=EXCLUDED.token_hash, "
            "wants_cont=EXCLUDED.wants_cont, seen=EXCLUDED.seen, player=EXCLUDED.player, "
            "wants_rematch=EXCLUDED.wants_rematch"),
            (room_id, seat.seat, seat.name, seat.kind, seat.bot, seat.token_hash,
             int(seat.wants_cont), seat.seen, seat.player, int(seat.wants_rematch)))

    def touch_seat(self, room_id: str, seat: int, at: float) -> None:
        with self._write() as db:
            db.execute(postgres_sql("UPDATE seats SET seen=? WHERE room=? AND seat=?"),
                       (at, room_id, seat))

    def remove_seat(self, room_id: str, seat: int, version: Optional[int] = None) -> None:
        with self._write() as db:
            self._bump(db, room_id, version)  # (the room's row locked: seats renumbered once)
            db.execute(postgres_sql("DELETE FROM seats WHERE room=? AND seat=?"),
                       (room_id, seat))
            later = db.execute(postgres_sql("SELECT seat FROM seats WHERE room=? AND seat>? "
                                            "ORDER BY seat"), (room_id, seat)).fetchall()
            for (number,) in later:
                db.execute(postgres_sql("UPDATE seats SET seat=? WHERE room=? AND seat=?"),
                           (number - 1, room_id, number))

    # ------------------------------------------------------------- turns

    def add_turn(self, room_id: str, number: int, kind: str, text: str,
                 status: Optional[str] = None,
                 finishes: Optional[tuple[Any, ...]] = None,
                 result: Optional[MatchResult] = None, at: float = 0.0,
                 version: Optional[int] = None) -> None:
        # One transaction a turn, on a connection of its own: turns of several rooms are
        # written side by side, and PostgreSQL flushes the WAL of commits arriving together
        # at once. A plain move is one statement (one round trip, its own transaction).
        # The room's version, checked and bumped in the same statement, refuses a turn
        # from a process whose copy of the room is behind; the primary key (room,
        # number) a turn N written before, by this process or any other.
        row = (room_id, number, kind, text, at, number, room_id)
        if status is None and kind != CONT and finishes is None and result is None \
                and version is not None:
            if self._inserted((room_id, version, room_id, number, kind, text, at)) is None:
                raise StaleRoom(room_id, version)
            return
        with self._write() as db:
            self._bump(db, room_id, version)
            if self._one(db, _NEXT_TURN, row) is None:
                raise self._not_next(room_id, number)
            if status is not None:
                db.execute(postgres_sql("UPDATE rooms SET status=? WHERE id=?"),
                           (status, room_id))
            if kind == CONT:
                db.execute(postgres_sql("UPDATE seats SET wants_cont=0, wants_rematch=0 "
                                        "WHERE room=?"), (room_id,))
            if finishes is not None:
                db.execute(postgres_sql("INSERT INTO matches (id, room, rounds, finished, "
                                        "number) VALUES (?, ?, ?, ?, ?)"),
                           (finishes[0], room_id, finishes[1], time.time(),
                            finishes[2] if len(finishes) > 2 else 1))
            if result is not None:
                self._rate(db, result)
                if self.crash_at == "before":
                    os.kill(os.getpid(), signal.SIGKILL)
        if result is not None and self.crash_at == "after":
            os.kill(os.getpid(), signal.SIGKILL)

    def rematch(self, room_id: str, number: int, text: str, seats: Sequence[SeatRow],
                at: float = 0.0, version: Optional[int] = None) -> None:
        with self._write() as db:
            self._bump(db, room_id, version)
            if self._one(db, _NEXT_TURN, (room_id, number, REMATCH, text, at, number,
                                          room_id)) is None:
                raise self._not_next(room_id, number)
            db.execute(postgres_sql("UPDATE rooms SET status=?, started=? WHERE id=?"),
                       (PLAYING, at, room_id))
            db.execute(postgres_sql("DELETE FROM seats WHERE room=?"), (room_id,))
            for seat in seats:
                self._put_seat(db, room_id, seat)

    def _inserted(self, row: Sequence[object]) -> Optional[tuple]:
        """:data:`_MOVE` run alone (its own transaction); its row, or None."""
        import psycopg

        try:
            with self._pool.connection() as db:
                return db.execute(postgres_sql(_MOVE), row).fetchone()
        except psycopg.Error as err:
            raise StoreError(f"{self.shown}: not saved: {self._said_error(err)}") from None

    def _not_next(self, room_id: str, number: int) -> StoreError:
        """Why turn ``number`` was not appended: it exists, or it is not the next."""
        last = self._read("SELECT MAX(number) FROM turns WHERE room=?", (room_id,))[0][0]
        count = 0 if last is None else last + 1
        if number < count:
            return StoreError(f"room {room_id}: turn {number} exists")
        return StoreError(f"room {room_id}: turn {number} is not the next ({count} stored)")

    def _rate(self, db: "psycopg.Connection", result: MatchResult) -> None:
        """Store a rated match's result and change its players' ratings, in the caller's
        transaction (the match's last turn's). The players' rows are locked first (in id
        order) so that two matches of one player, written at once, change its rating one
        after the other; a match already rated is a :class:`StoreError`."""
        placings = result.placings
        now = time.time()
        for p in placings:
            if p.bot and p.player.startswith(BOT_PREFIX):  # a bot strength's: made at its first
                db.execute(postgres_sql("INSERT INTO players (id, key_hash, name, created, "
                                        "bot) VALUES (?, NULL, ?, ?, ?) ON CONFLICT DO "
                                        "NOTHING"), (p.player, p.bot, now, p.bot))
        ids = sorted({p.player for p in placings})
        present = {r[0] for r in db.execute(postgres_sql(
            "SELECT id FROM players WHERE id = ANY(?) ORDER BY id FOR UPDATE"), (ids,))}
        current = {player: Rating(float(mu), float(sigma), int(matches))
                   for player, mu, sigma, matches in db.execute(postgres_sql(
                       "SELECT player, mu, sigma, matches FROM ratings WHERE family=? AND "
                       "player = ANY(?)"), (result.family, ids))
                   if math.isfinite(mu) and math.isfinite(sigma)}
        try:
            note, changed = update(result, current)
        except Exception as err:  # noqa: BLE001 - the turn is refused whole, never half kept
            raise StoreError(f"room {result.room}: match {result.id} cannot be rated: "
                             f"{type(err).__name__}: {str(err)[:200]}") from None
        if self._one(db, "INSERT INTO rated_matches VALUES (?, ?, ?, ?, ?, ?) "
                         "ON CONFLICT DO NOTHING RETURNING id",
                     (result.id, result.room, result.pack, result.family, now, note)) is None:
            raise StoreError(f"room {result.room}: match {result.id} is rated already")
        for p, rank in zip(placings, ranks(placings)):
            if p.player not in present:
                continue  # a seat of no player (never in a rated room): nothing to keep
            before = current.get(p.player, Rating())
            after = changed.get(p.player, before)
            db.execute(postgres_sql("INSERT INTO placings VALUES "
                                    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                       (result.id, p.player, p.seat, p.name, p.score, rank, before.mu,
                        before.sigma, after.mu, after.sigma, after.matches))
            if p.player in changed:
                db.execute(postgres_sql(
                    "INSERT INTO ratings VALUES (?, ?, ?, ?, ?) ON CONFLICT (player, family) "
                    "DO UPDATE SET mu=EXCLUDED.mu, sigma=EXCLUDED.sigma, "
                    "matches=EXCLUDED.matches"),
                    (p.player, result.family, after.mu, after.sigma, after.matches))

    # ------------------------------------------------------------- chat

    def add_chat(self, room_id: str, name: str, text: str) -> ChatRow:
        now = time.time()
        with self._write() as db:
            # the room's row locked: two lines of one room are numbered one after the other
            self._one(db, "SELECT 1 FROM rooms WHERE id=? FOR UPDATE", (room_id,))
            last = self._one(db, "SELECT MAX(number) FROM chat WHERE room=?", (room_id,))[0]
            number = 0 if last is None else int(last) + 1
            db.execute(postgres_sql("INSERT INTO chat VALUES (?, ?, ?, ?, ?)"),
                       (room_id, number, name, text, now))
            db.execute(postgres_sql("DELETE FROM chat WHERE room=? AND number<=?"),
                       (room_id, number - self.chat_keep))
        return ChatRow(number, name, text, now)

    def chat(self, room_id: str, limit: int) -> list[ChatRow]:
        """The room's last ``limit`` chat lines, oldest first; a damaged row (a time that
        is not a finite number) is skipped, and said once in the log."""
        rows = self._read("SELECT number, name, text, at FROM chat WHERE room=? "
                          "ORDER BY number DESC LIMIT ?", (room_id, limit))
        lines = []
        for cells in reversed(rows):
            try:
                lines.append(chat_row(room_id, cells))
            except DamagedRow as err:
                if (room_id, cells[0]) not in self._said and len(self._said) < SAID_MOST:
                    self._said.add((room_id, cells[0]))
                    log.warning("%s (chat line %s skipped)", err, cells[0])
        return lines

    # ------------------------------------------------------------- players

    def create_player(self, player_id: str, key_hash: str, name: str) -> PlayerRow:
        now = time.time()
        with self._write() as db:
            if self._one(db, "INSERT INTO players (id, key_hash, name, created, bot) "
                             "VALUES (?, ?, ?, ?, '') ON CONFLICT DO NOTHING RETURNING id",
                         (player_id, key_hash, name, now)) is None:
                raise StoreError(f"player {player_id} exists")
        return PlayerRow(player_id, name, now)

    def placings(self, player_id: str, limit: int) -> list[Placed]:
        return [placed_row(row) for row in self._read(
            "SELECT m.id, m.room, m.pack, m.family, m.at, s.seat, s.name, s.score, s.rank, "
            "s.mu_before, s.sigma_before, s.mu_after, s.sigma_after, s.matches, m.note, "
            "(SELECT json_agg(o.name ORDER BY o.seat) FROM placings o WHERE "
            "o.match=m.id AND o.seat<>s.seat) "
            "FROM placings s JOIN rated_matches m ON m.id=s.match WHERE s.player=? "
            "ORDER BY m.at DESC, m.id LIMIT ?", (player_id, limit))]

    def close(self) -> None:
        """Close every connection (the listening one within :data:`LISTEN_CHECK_SECONDS`)."""
        self._closing.set()
        self._pool.close()
