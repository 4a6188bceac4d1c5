"""The PostgreSQL store (lostcities.server.store_pg) beyond the tests both stores share
(test_server_store.py): the one translation of SQLite's statements, the --store URL and
every way it can be wrong (one line, exit 2, never the password; fuzzed), the schema
migrated from each older version on a real PostgreSQL server, a migration failing halfway,
a newer or foreign database refused, one server a database, a restarted PostgreSQL."""
from __future__ import annotations

import os
import re
import string
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
from typer.testing import CliRunner  # noqa: E402

from lostcities.cli.app import app  # noqa: E402
from lostcities.server.store import (MIGRATIONS, MOVE, SCHEMA_VERSION, StoreError,  # noqa: E402
                                     schema_statements, token_hash)
from lostcities.server.store_pg import (PostgresStore, is_postgres_url, parse_url,  # noqa: E402
                                        postgres_sql)
from pg_support import PASSWORD, cluster, require_postgres  # noqa: E402
from server_support import lc_command  # noqa: E402
from test_server_features import V1  # noqa: E402

#: a seed of 48 bits, as rooms draw them: more than PostgreSQL's INTEGER holds
BIG_SEED = 2 ** 48 - 1


# --------------------------------------------------------------------------- the translation

def test_the_translation_changes_placeholders_and_types_and_leaves_quoted_text() -> None:
    assert postgres_sql("INSERT INTO t VALUES (?, ?, 'a?b')") == \
        "INSERT INTO t VALUES (%s, %s, 'a?b')"
    assert postgres_sql("CREATE TABLE t (seed INTEGER NOT NULL, at REAL, "
                        "note TEXT DEFAULT 'INTEGER REAL')") == \
        ("CREATE TABLE t (seed BIGINT NOT NULL, at DOUBLE PRECISION, "
         "note TEXT DEFAULT 'INTEGER REAL')")
    assert postgres_sql("SELECT 'it''s ?', x FROM t WHERE y LIKE '5%' AND z=?") == \
        "SELECT 'it''s ?', x FROM t WHERE y LIKE '5%%' AND z=%s"
    assert postgres_sql("SELECT realm, integers FROM t") == "SELECT realm, integers FROM t"


def test_every_schema_and_migration_statement_translates_to_postgres_types() -> None:
    statements = schema_statements() + [s for step in MIGRATIONS.values() for s in step]
    for statement in statements:
        unquoted = re.sub(r"'[^']*'", "", postgres_sql(statement))
        assert "?" not in unquoted
        assert not re.search(r"\b(REAL|INTEGER)\b", unquoted), statement


# --------------------------------------------------------------------------- the URL

def test_a_url_gives_its_parts_and_is_shown_without_its_password() -> None:
    keywords, shown = parse_url("postgresql://ada:s%40cret@db.example:6543/rooms"
                                "?sslmode=require&connect_timeout=5")
    assert keywords == {"dbname": "rooms", "host": "db.example", "port": 6543, "user": "ada",
                        "password": "s@cret", "sslmode": "require", "connect_timeout": 5}
    assert shown == "postgresql://ada:***@db.example:6543/rooms"
    keywords, shown = parse_url("postgres://lc@/rooms?host=/run/postgresql")
    assert keywords["host"] == "/run/postgresql" and shown == "postgres://lc@/rooms"
    assert is_postgres_url("postgresql://x/y") and is_postgres_url("POSTGRES://x/y")
    assert not is_postgres_url("rooms.sqlite3") and not is_postgres_url("mysql://x/y")


@pytest.mark.parametrize("url, said", [
    ("postgresql://ada:SECRET@host", "name the database"),
    ("postgresql://ada:SECRET@host/", "name the database"),
    ("postgresql://ada:SECRET@host/a/b", "name the database"),
    ("postgresql://ada:SECRET@host:99999/db", "cannot be read"),
    ("postgresql://ada:SECRET@host:port/db", "cannot be read"),
    ("postgresql://ada:SECRET@host/db?options=-c%20x", "is not a parameter"),
    ("postgresql://ada:SECRET@host/db?sslmode=a&sslmode=b", "twice"),
    ("postgresql://ada:SECRET@host/db?connect_timeout=soon", "not a number"),
    ("postgresql://ada:SECRET@host/db#x", "no #fragment"),
    ("postgresql://ada:SEC RET@host/db", "a space"),
    ("postgresql://ada:SECRÉT@host/db", "non-ASCII"),
    ("mysql://ada:SECRET@host/db", "must start with postgresql://"),
    ("postgresql://ada:SECRET@host/" + "d" * 1000, "longer than"),
])
def test_a_bad_url_is_one_line_without_its_password(url: str, said: str) -> None:
    with pytest.raises(StoreError) as caught:
        parse_url(url)
    assert said in str(caught.value) and "\n" not in str(caught.value)
    assert "SECRET" not in str(caught.value) and "SEC RET" not in str(caught.value)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=120), st.text(string.ascii_letters + string.digits, min_size=12,
                                      max_size=20))
def test_fuzz_any_url_is_read_or_refused_in_one_line_never_showing_its_password(
        noise: str, password: str) -> None:
    assume(password not in noise)
    for url in (noise, f"postgresql://u:{password}@{noise}", f"postgres://u:{password}@h/{noise}",
                f"postgresql://u:{password}@h:{noise}/db", f"postgresql://u:{password}@h/d?{noise}"):
        try:
            keywords, shown = parse_url(url)
        except StoreError as err:
            assert "\n" not in str(err) and password not in str(err)
        else:
            assert password not in shown and keywords["dbname"]


def bad_store_values(password: str):
    """--store values every one of which is refused before a connection is tried."""
    return st.one_of(
        st.text(max_size=60).filter(lambda t: not is_postgres_url(t) and not t.startswith("-")),
        st.just(f"postgresql://u:{password}@h"),
        st.text("abc:/?&", max_size=8).map(lambda t: f"postgresql://u:{password}@h:x{t}/db"),
        st.text(string.ascii_lowercase, min_size=1, max_size=8).filter(
            lambda name: name not in {"sslmode", "sslrootcert", "sslcert", "sslkey", "host",
                                      "port", "connect_timeout", "target_session_attrs"}
        ).map(lambda name: f"postgresql://u:{password}@h/db?{name}=1"),
        st.sampled_from(" \t\x00é\u2028").map(lambda c: f"postgresql://u:{password}@h/d{c}b"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzz_a_bad_store_option_is_one_line_exit_2(tmp_path: Path, data: st.DataObject) -> None:
    password = data.draw(st.text(string.ascii_letters, min_size=12, max_size=16))
    value = data.draw(bad_store_values(password))
    result = CliRunner().invoke(app, ["serve", "--data", str(tmp_path / "d"), "--store", value])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error: --store"), result.stderr
    assert password not in result.output and "Traceback" not in result.output


# --------------------------------------------------------------------------- lc serve refuses

def lc_serve_refusal(tmp_path: Path, url: str) -> str:
    """``lc serve --store URL``, which must stop at once: its one line (exit 2)."""
    out = subprocess.run([*lc_command(), "serve", "--port", "0", "--data",
                          str(tmp_path / "data"), "--store", url],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error: --store: "), out.stderr
    assert "Traceback" not in out.stderr and PASSWORD not in out.stderr + out.stdout
    return lines[0]


def test_lc_serve_refuses_a_wrong_password_and_an_unreachable_server(
        tmp_path: Path, pg_cluster) -> None:
    url = pg_cluster.database()
    said = lc_serve_refusal(tmp_path, url.replace(PASSWORD, PASSWORD + "x"))
    assert "password authentication failed" in said and "lc:***@" in said
    closed = f"postgresql://lc:{PASSWORD}@127.0.0.1:1/db"  # nothing listens on port 1
    assert "Connection refused" in lc_serve_refusal(tmp_path, closed)
    missing = lc_serve_refusal(tmp_path, url.rsplit("/", 1)[0] + "/no_such_database")
    assert 'database "no_such_database" does not exist' in missing


def test_lc_serve_refuses_a_database_of_another_schema_and_leaves_it_as_it_was(
        tmp_path: Path, pg_cluster) -> None:
    url = pg_cluster.database()
    pg_cluster.execute(url, "CREATE TABLE rooms (id TEXT PRIMARY KEY, owner TEXT)")
    said = lc_serve_refusal(tmp_path, url)
    assert "the table rooms has no column" in said and "not a rooms database" in said
    assert pg_cluster.execute(url, "SELECT table_name FROM information_schema.tables WHERE "
                                   "table_schema='public' ORDER BY 1") == [("rooms",)]


def test_a_newer_database_is_refused_in_one_line(tmp_path: Path, pg_cluster) -> None:
    url = pg_cluster.database()
    PostgresStore(url).close()
    pg_cluster.execute(url, "UPDATE meta SET value='99' WHERE key='schema'")
    assert "a database of schema version 99, this server reads versions 1 to" in \
        lc_serve_refusal(tmp_path, url)


# --------------------------------------------------------------------------- migrations

def database_of_version(pg_cluster, version: int) -> str:
    """A new database as a server of schema ``version`` left it: schema 1's tables and
    each migration step before ``version`` (run through the one translation), with one
    room under way (its seed of 48 bits), two seats and two turns."""
    url = pg_cluster.database()
    statements = [postgres_sql(s) for s in V1.split(";") if s.strip()]
    statements += [postgres_sql(s) for step in range(1, version) for s in MIGRATIONS[step]]
    pg_cluster.execute(url, *statements,
                       f"UPDATE meta SET value='{version}' WHERE key='schema'",
                       "INSERT INTO rooms (id, pack, seed, status, labels, created) VALUES "
                       f"('abcdefgh', 'builtin:duel-classic', {BIG_SEED}, 'playing', "
                       "'[\"Ada\", \"Bob\"]', 1.5)",
                       "INSERT INTO seats (room, seat, name, kind, token_hash) VALUES "
                       "('abcdefgh', 0, 'Ada', 'human', 'x'), ('abcdefgh', 1, 'Bob', 'bot', '')",
                       "INSERT INTO turns VALUES ('abcdefgh', 0, 'move', 'p r3 deck'), "
                       "('abcdefgh', 1, 'move', 'd b4 deck')")
    return url


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_a_database_of_each_older_version_is_migrated_and_keeps_its_room(
        pg_cluster, version: int) -> None:
    url = database_of_version(pg_cluster, version)
    store = PostgresStore(url)
    try:
        room = store.room("abcdefgh")
        assert (room.seed, room.status, room.labels) == (BIG_SEED, "playing", ("Ada", "Bob"))
        assert (room.hints, room.listed, room.rated, room.pack_data) == (False, False, False, "")
        assert [(s.name, s.kind, s.seen, s.player) for s in store.seats("abcdefgh")] == \
            [("Ada", "human", 0.0, ""), ("Bob", "bot", 0.0, "")]
        assert [t.text for t in store.turns("abcdefgh")] == ["p r3 deck", "d b4 deck"]
        store.add_turn("abcdefgh", 2, MOVE, "p r5 deck", status="over",
                       finishes=("aaaaaaaaaaaaaaaa", 3))
        assert store.match("aaaaaaaaaaaaaaaa").room == "abcdefgh"
        assert store.create_player("c" * 16, token_hash("k"), "Cy").name == "Cy"
    finally:
        store.close()
    assert pg_cluster.execute(url, "SELECT value FROM meta WHERE key='schema'") == \
        [(str(SCHEMA_VERSION),)]


def test_a_migration_that_fails_halfway_leaves_the_database_as_it_was(pg_cluster) -> None:
    url = database_of_version(pg_cluster, 2)
    # the last step's second statement (seats.player) cannot run: that column is there
    pg_cluster.execute(url, "ALTER TABLE seats ADD COLUMN player TEXT")
    with pytest.raises(StoreError) as caught:
        PostgresStore(url)
    assert "cannot migrate it from schema version 4" in str(caught.value)
    assert "\n" not in str(caught.value) and PASSWORD not in str(caught.value)
    assert pg_cluster.execute(url, "SELECT value FROM meta WHERE key='schema'") == [("2",)]
    tables = {r[0] for r in pg_cluster.execute(
        url, "SELECT table_name FROM information_schema.tables WHERE table_schema='public'")}
    columns = {r[0] for r in pg_cluster.execute(
        url, "SELECT column_name FROM information_schema.columns WHERE table_name='rooms'")}
    assert "matches" not in tables and "listed" not in columns  # steps 2 and 3 undone too


# --------------------------------------------------------------------------- faults

def test_a_restarted_postgresql_is_reconnected_to_by_itself() -> None:
    """The server restarted (its connections dropped): the next read and the next write
    each take a new connection; nothing is lost."""
    require_postgres()  # (skipped, or under LC_REQUIRE_POSTGRES=1 failed)
    with cluster() as own:
        store = PostgresStore(own.database())
        try:
            store.create_room("abcdefgh", "builtin:duel-classic", 7)
            store.add_turn("abcdefgh", 0, MOVE, "p r3 deck")
            own.restart()
            assert [t.text for t in store.turns("abcdefgh")] == ["p r3 deck"]
            store.add_turn("abcdefgh", 1, MOVE, "p r4 deck")
            store.add_chat("abcdefgh", "Ada", "still here")
            assert [c.text for c in store.chat("abcdefgh", 10)] == ["still here"]
        finally:
            store.close()


def test_an_unreachable_database_is_a_store_error_within_the_connect_timeout() -> None:
    started = time.monotonic()
    with pytest.raises(StoreError) as caught:
        PostgresStore("postgresql://u:hidden@10.255.255.1:5432/db?connect_timeout=1")
    assert time.monotonic() - started < 30
    assert "hidden" not in str(caught.value) and "\n" not in str(caught.value)


def test_without_the_postgresql_extra_one_line_exit_2(tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "psycopg.py").write_text("raise ImportError('no psycopg here')\n")
    env = dict(os.environ, PYTHONPATH=str(blocker))
    out = subprocess.run([*lc_command(), "serve", "--port", "0", "--data", str(tmp_path / "d"),
                          "--store", "postgresql://u:hidden@127.0.0.1:1/db"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'lostcities[postgresql]'" in lines[0]
    assert "hidden" not in out.stderr
