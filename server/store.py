"""Where rooms, seats, chat lines and turns are kept: one small interface, :class:`Store`,
and its embedded implementation, :class:`SQLiteStore` (stdlib sqlite3, WAL mode).

Everything a room is lives here; a server's memory holds only a cache of it (rebuilt by
replaying the stored turns through the engine) and its open connections, so a server
killed with SIGKILL comes back where it was, and a store on a shared database server
would let several processes serve the same rooms.

A seat's secret token is never stored: only its SHA-256 (:func:`token_hash`); nor is a
player's key (the same digest). Since schema 3 the store also keeps the players, their
ratings (one a family of packs) and every rated match's result, the ratings changed in
the very transaction that stores the match's last turn (:meth:`SQLiteStore.add_turn`),
keyed by the match's id: applied once, or not at all.

Storage faults stay where they are: the database is checked when it is opened (SQLite's
``quick_check`` and every table and column this server reads; :class:`StoreError` in one
line otherwise); a stored cell of the wrong type or an unreadable value makes its
room's rows a :class:`DamagedRow` (the transport leaves that room out, every other
works); a damaged chat row is skipped; a write the database refuses (a full disk, an I/O
error) is a :class:`StoreError` and changes nothing.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import math
import os
import signal
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Protocol, Sequence

from .ratings import BOT_PREFIX, MatchResult, Rating, ranks, update

#: the schema of the SQLite database: an older one is migrated when it is opened
#: (:data:`MIGRATIONS`), a newer one refused
SCHEMA_VERSION = 8

#: room status: seats being taken, a match under way, a match over (CONT possible)
LOBBY, PLAYING, OVER = "lobby", "playing", "over"
#: seat kinds; a ``left`` seat is a started match's seat whose human left (a bot may take it)
HUMAN, BOT, LEFT = "human", "bot", "left"
#: turn kinds: a move in the engine's notation, the CONT that played on, the rematch that
#: dealt a new match (its text: ``{"seed": N, "labels": [...]}``, the seats rotated)
MOVE, CONT, REMATCH = "move", "cont", "rematch"
#: turn kinds since schema 7: a move a bot played for a seat out of time (the engine's
#: notation), and a forfeit that ended the match (a resign or a seat out of time in a
#: rated room; its text the JSON ``{"seat": N, "reason": "resign" | "time"}``)
TIMEOUT, FORFEIT = "timeout", "forfeit"


#: the quick-match queue's one rule (:meth:`Store.queue_join`): the longest waiting of
#: the same pack and clock, of a process still running ({alive}: the store's condition;
#: {lock}: PostgreSQL's row lock, so two processes never pair one waiter twice)
QUEUE_PAIR = ("SELECT id FROM waiting WHERE pack=? AND clock=? AND id<>? AND {alive} "
              "ORDER BY since, id LIMIT 1{lock}")
QUEUE_SUMMARY = ("SELECT pack, clock, COUNT(*) FROM waiting WHERE {alive} "
                 "GROUP BY pack, clock ORDER BY pack, clock")

#: the longest message :meth:`Store.announce` sends, in bytes of JSON (PostgreSQL's
#: NOTIFY takes up to 8000)
ANNOUNCE_BYTES = 7900

#: where the store says what it skipped (one line each; ``lc serve`` shows them)
log = logging.getLogger(__name__)
#: damaged chat rows said in the log, at most (each once; then they are skipped quietly)
SAID_MOST = 10_000


class StoreError(Exception):
    """The store cannot be used (another schema version, a damaged database, a write
    refused: a full disk, an I/O error)."""


class StaleRoom(StoreError):
    """A write of room :attr:`room`'s state from a copy older than the stored room: another
    process (on a shared database) wrote it first. Nothing was written; the writer reads
    the room again and decides again (docs/server.md, "Several processes on one
    database")."""

    def __init__(self, room: str, version: int):
        super().__init__(f"room {room}: changed since version {version} was read")
        self.room = room


class DamagedRow(StoreError):
    """A stored row of room :attr:`room` that cannot be read: a cell of the wrong type
    (text where a number belongs) or a value no row of this server holds. The room
    cannot be rebuilt; the others are untouched."""

    def __init__(self, room: str, message: str):
        super().__init__(f"room {room}: {message}")
        self.room = room


@dataclass(frozen=True)
class RoomRow:
    """A stored room: its pack (``builtin:ID`` or ``house:NAME``), seed, status, the
    player labels the match was dealt with (empty in the lobby), and since schema 2 the
    pack's resolved rules as JSON text (``pack_data``: a house pack's, kept with the room
    so an edited or removed file changes nothing; empty for a built-in one), their
    sha256 (``pack_sha256``, empty in rooms made before) and whether the room gives
    hints; since schema 4 whether the lobby lists it (``listed``; rooms made before were
    link only, as they stay); since schema 5 whether it is rated (its finished matches
    change its players' ratings); since schema 7 its time control (``clock``, the JSON of
    :meth:`~.clocks.TimeControl.stored`; empty: none) and when its match was dealt
    (``started``, seconds since the epoch; 0: not yet, or before schema 7); since schema 8
    its ``version``: one more at each write of its state (seats, start, turns), the
    check that keeps processes sharing a database from writing over each other."""

    id: str
    pack: str
    seed: int
    status: str
    labels: tuple[str, ...]
    created: float
    pack_data: str = ""
    pack_sha256: str = ""
    hints: bool = False
    listed: bool = False
    rated: bool = False
    clock: str = ""
    started: float = 0.0
    version: int = 0


@dataclass(frozen=True)
class SeatRow:
    """A stored seat: its number, name, kind (``human``, ``bot``, ``left``), bot name,
    the hash of its token (humans), whether its player asked to continue (CONT), when a
    connection last held it (``seen``, seconds since the epoch; 0: unknown), and in a
    rated room the player it was dealt to (``player``: a player id, a bot's
    ``bot-NAME``; kept when the player leaves or a bot takes the seat over); since
    schema 6 whether its player asked for a rematch (``wants_rematch``)."""

    seat: int
    name: str
    kind: str
    bot: str
    token_hash: str
    wants_cont: bool
    seen: float = 0.0
    player: str = ""
    wants_rematch: bool = False


@dataclass(frozen=True)
class PlayerRow:
    """A player: its public id, its name, when it was made, and for a bot strength's
    player the bot's spec (``greedy``, ``ismcts@5``; empty for a person). Its key is
    never stored, only the key's SHA-256 (:func:`token_hash`)."""

    id: str
    name: str
    created: float
    bot: str = ""


@dataclass(frozen=True)
class Placed:
    """One seat of a rated match, as a player's page lists it: the match, its room, pack
    and family, when it ended, the seat, the name it played under, its score and rank,
    the rating before and after (equal when the match changed none of this player's),
    why (the note of :func:`~.ratings.verdict`), and the other seats' names."""

    match: str
    room: str
    pack: str
    family: str
    at: float
    seat: int
    name: str
    score: int
    rank: int
    before: Rating
    after: Rating
    note: str
    others: tuple[str, ...]


@dataclass(frozen=True)
class TurnRow:
    """A stored turn: its number in the room (0, 1, ...), kind (``move``, ``cont``, ``rematch``,
    ``timeout``, ``forfeit``), text, and since schema 7 when it was stored (``at``,
    seconds since the epoch; 0 for the turns stored before: a room's clocks read it)."""

    number: int
    kind: str
    text: str
    at: float = 0.0


@dataclass(frozen=True)
class MatchRow:
    """A finished match's public id (its replay page, ``/matches/ID``), the room it was
    played in, its rounds and (since schema 6) its number among the room's matches (1,
    then one more a rematch): its record is ``records/room-ROOM-ROUNDS.jsonl``
    (``room-ROOM-mNUMBER-ROUNDS.jsonl`` from the second match on). Kept when the room
    expires (the record stays)."""

    id: str
    room: str
    rounds: int
    finished: float
    number: int = 1


@dataclass(frozen=True)
class ChatRow:
    """A stored chat line."""

    number: int
    name: str
    text: str
    at: float


@dataclass
class _QueuedTurn:
    """A turn waiting for the group commit of :meth:`SQLiteStore.add_turn`."""

    room: str
    number: int
    kind: str
    text: str
    status: Optional[str]
    #: the public id, the rounds and the number in its room (1 when not given) of the
    #: match this turn finishes (its replay), or None
    finishes: Optional[tuple[Any, ...]] = None
    result: Optional[MatchResult] = None
    at: float = 0.0
    #: the version of the room its writer read (None: not checked)
    version: Optional[int] = None
    done: bool = False
    error: Optional[StoreError] = None


def token_hash(token: str) -> str:
    """What the store keeps of a seat's token: its SHA-256, hex. Any text has one (a lone
    surrogate, which no real token holds, is hashed as its code point, never an error)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


# ------------------------------------------------------------- reading a stored cell
# SQLite keeps whatever a cell was given (text in an INTEGER column, a blob anywhere):
# each cell read is checked to be what this server writes there.

def _text(room: str, where: str, value: object, allowed: Sequence[str] = ()) -> str:
    if type(value) is not str or (allowed and value not in allowed):
        raise DamagedRow(room, f"{where} is not " + (f"one of {', '.join(allowed)}"
                                                     if allowed else "text"))
    return value


def _integer(room: str, where: str, value: object) -> int:
    if type(value) is not int:
        raise DamagedRow(room, f"{where} is not an integer")
    return value


def _number(room: str, where: str, value: object) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):  # type: ignore[arg-type]
        raise DamagedRow(room, f"{where} is not a finite number")
    return float(value)  # type: ignore[arg-type]


def _labels(room: str, value: object) -> tuple[str, ...]:
    try:
        labels = json.loads(_text(room, "labels", value))
    except ValueError:
        labels = None
    if not isinstance(labels, list) or not all(type(label) is str for label in labels):
        raise DamagedRow(room, "labels is not a JSON list of names")
    return tuple(labels)


def room_row(room_id: str, cells: Sequence[object]) -> RoomRow:
    """A ``rooms`` row (id, pack, seed, status, labels, created, pack_data, pack_sha256,
    hints, listed, rated, clock, started, version) as a :class:`RoomRow`; :class:`DamagedRow` when a
    cell is not what this server writes there (every store reads its rows through these
    functions)."""
    (rid, pack, seed, status, labels, created, data, sha, hints, listed, rated, clock,
     started, version) = cells
    return RoomRow(_text(room_id, "id", rid), _text(room_id, "pack", pack),
                   _integer(room_id, "seed", seed),
                   _text(room_id, "status", status, (LOBBY, PLAYING, OVER)),
                   _labels(room_id, labels), _number(room_id, "created", created),
                   _text(room_id, "pack_data", data), _text(room_id, "pack_sha256", sha),
                   bool(_integer(room_id, "hints", hints)),
                   bool(_integer(room_id, "listed", listed)),
                   bool(_integer(room_id, "rated", rated)),
                   _text(room_id, "clock", clock), _number(room_id, "started", started),
                   _integer(room_id, "version", version))


def seat_rows(room: str, rows: Sequence[Sequence[object]]) -> list[SeatRow]:
    """``seats`` rows (seat, name, kind, bot, token_hash, wants_cont, seen, player,
    wants_rematch) in order as :class:`SeatRow`; :class:`DamagedRow` when a cell is not
    what this server writes there or a number is missing."""
    seats = []
    for number, name, kind, bot, digest, wants_cont, seen, player, wants_rematch in rows:
        where = f"seat {number!r}"[:40]
        seats.append(SeatRow(_integer(room, "a seat's number", number),
                             _text(room, f"{where}: name", name),
                             _text(room, f"{where}: kind", kind, (HUMAN, BOT, LEFT)),
                             _text(room, f"{where}: bot", bot),
                             _text(room, f"{where}: token_hash", digest),
                             bool(_integer(room, f"{where}: wants_cont", wants_cont)),
                             _number(room, f"{where}: seen", seen),
                             _text(room, f"{where}: player", player),
                             bool(_integer(room, f"{where}: wants_rematch", wants_rematch))))
    if [s.seat for s in seats] != list(range(len(seats))):
        raise DamagedRow(room, "its seats are not numbered 0, 1, ...")
    return seats


def turn_rows(room_id: str, rows: Sequence[Sequence[object]],
              since: int = 0) -> list[TurnRow]:
    """``turns`` rows (number, kind, text, at) in order as :class:`TurnRow`, numbered
    ``since``, ``since`` + 1, ...; :class:`DamagedRow` when a cell is not what this server
    writes there or a number is missing."""
    turns = [TurnRow(_integer(room_id, "a turn's number", n),
                     _text(room_id, f"turn {n!r}: kind"[:40], k,
                           (MOVE, CONT, REMATCH, TIMEOUT, FORFEIT)),
                     _text(room_id, f"turn {n!r}: text"[:40], t),
                     _number(room_id, f"turn {n!r}: at"[:40], at))
             for n, k, t, at in rows]
    if [t.number for t in turns] != list(range(since, since + len(turns))):
        raise DamagedRow(room_id, "its turns are not numbered 0, 1, ...")
    return turns


def chat_row(room: str, cells: Sequence[object]) -> ChatRow:
    """A ``chat`` row (number, name, text, at) as a :class:`ChatRow`; :class:`DamagedRow`
    when a cell is not what this server writes there."""
    number, name, text, at = cells
    return ChatRow(_integer(room, "a chat line's number", number),
                   _text(room, "a chat line's name", name),
                   _text(room, "a chat line's text", text),
                   _number(room, "a chat line's time", at))


def match_row(cells: Sequence[object]) -> Optional[MatchRow]:
    """A ``matches`` row (id, room, rounds, finished, number) as a :class:`MatchRow`, or
    None for a row this server did not write."""
    mid, room, rounds, finished, number = cells
    if not (type(mid) is str and type(room) is str and type(rounds) is int
            and type(finished) in (int, float) and type(number) is int and number >= 1):
        return None
    return MatchRow(mid, room, rounds, float(finished), number)  # type: ignore[arg-type]


class Store(Protocol):
    """The rooms' storage. Every method is one transaction; a write that returns has been
    committed."""

    def create_room(self, room_id: str, pack: str, seed: int, *, pack_data: str = "",
                    pack_sha256: str = "", hints: bool = False,
                    listed: bool = False, rated: bool = False, clock: str = "") -> RoomRow:
        """A new room in the lobby (``listed``: the lobby lists it; ``rated``: its
        finished matches change its players' ratings; ``clock``: its time control as
        stored, empty for none); :class:`StoreError` if the id is taken."""

    def room(self, room_id: str) -> Optional[RoomRow]:
        """The room, or None."""

    def open_rooms(self) -> list[str]:
        """The ids of every room, oldest first."""

    def count_rooms(self) -> int:
        """How many rooms there are."""

    def last_visits(self) -> list[tuple[str, str, float]]:
        """Every room's id, status and the last time anyone was there that the store
        knows of: its creation, a seat's ``seen``, its last chat line, the last time a
        process held it (:meth:`hold`)."""

    def hold(self, room_ids: Sequence[str], at: float) -> None:
        """A process holds these rooms at ``at`` (a connection, a bot at work): no other
        process sharing the store expires them meanwhile."""

    def delete_rooms(self, room_ids: Sequence[str]) -> None:
        """Remove these rooms with their seats, turns and chat lines."""

    def unpeopled_rooms(self) -> set[str]:
        """The rooms that have seats and none of them a human's (every seat a bot's or
        left): their humans have all gone."""

    def seats(self, room_id: str) -> list[SeatRow]:
        """The room's seats, by number."""

    def put_seat(self, room_id: str, seat: SeatRow, version: Optional[int] = None) -> None:
        """Add or replace a seat.

        Each write of a room's state (this, :meth:`remove_seat`, :meth:`start`,
        :meth:`add_turn`, :meth:`rematch`) adds one to the room's ``version`` in its
        transaction; given the ``version`` the writer's copy of the room has, it is a
        :class:`StaleRoom` (nothing written) when the stored one is another."""

    def remove_seat(self, room_id: str, seat: int, version: Optional[int] = None) -> None:
        """Free a seat (lobby only: the seats after it move up one)."""

    def touch_seat(self, room_id: str, seat: int, at: float) -> None:
        """A connection held the seat until ``at`` (its ``seen``)."""

    def start(self, room_id: str, labels: Sequence[str], at: float = 0.0,
              version: Optional[int] = None) -> None:
        """The match is dealt with these player labels at ``at``: status ``playing``."""

    def add_turn(self, room_id: str, number: int, kind: str, text: str,
                 status: Optional[str] = None,
                 finishes: Optional[tuple[Any, ...]] = None,
                 result: Optional[MatchResult] = None, at: float = 0.0,
                 version: Optional[int] = None) -> None:
        """Append turn ``number`` stored at ``at`` (the count of turns so far: a concurrent writer that
        appended first makes this a :class:`StoreError`), setting the room's status if
        given; a CONT also clears every seat's ``wants_cont`` and ``wants_rematch``.
        ``finishes``: the turn ends a match, which gets this public id, number of rounds
        and (a third item, 1 when left out) number in the room (:class:`MatchRow`), in the
        same transaction. ``result``: the turn ends a rated match: its players'
        ratings change in the same transaction (:func:`~.ratings.update` of the ratings
        stored then), keyed by the match's id (a second result of one match is a
        :class:`StoreError`, and its turn is refused)."""

    def rematch(self, room_id: str, number: int, text: str, seats: Sequence[SeatRow],
                at: float = 0.0, version: Optional[int] = None) -> None:
        """Append turn ``number``, a rematch (kind ``rematch``, ``text`` its seed and
        labels), stored at ``at``, and put the room's seats as ``seats`` (rotated, nobody
        asking for anything), status ``playing``, the new match dealt at ``at`` (its
        clocks start then): one transaction. :class:`StoreError` when ``number`` is not
        the next turn."""

    def match(self, match_id: str) -> Optional[MatchRow]:
        """The finished match of this public id, or None."""

    def room_matches(self, room_id: str) -> list[str]:
        """The public ids of the room's finished matches, the first finished first."""

    def turns(self, room_id: str, since: int = 0) -> list[TurnRow]:
        """The room's turns from number ``since`` on (every one by default), in order."""

    def stalled_rooms(self, before: float) -> list[str]:
        """The rooms under way whose last turn (or deal) is older than ``before``."""

    # several processes on one database (PostgreSQL); the SQLite store is one process's
    #: whether other processes may write this store's rooms (PostgreSQL: True)
    shared: bool

    def listen(self, heard: Callable[[dict[str, Any]], None],
               lost: Callable[[], None], back: Callable[[], None]) -> None:
        """Hear what other processes announce (:meth:`announce`): ``heard(message)`` for
        each, ``lost()`` when the database is out of reach, ``back()`` when it is again
        (each called from a thread of the store's: the caller hands them to its loop).
        Nothing for a store of one process."""

    def announce(self, message: dict[str, Any]) -> None:
        """Tell every process listening (:meth:`listen`) ``message`` (a JSON object of at
        most :data:`ANNOUNCE_BYTES`); nothing for a store of one process."""

    def set_present(self, room_id: str, seats: Sequence[int]) -> None:
        """The seats of the room a connection of this process holds now (another
        process's clients see them present: :meth:`present_elsewhere`); announced."""

    def present_elsewhere(self, room_ids: Sequence[str]) -> dict[str, set[int]]:
        """The seats of these rooms that connections of the other processes, those still
        running, hold now (none for a store of one process)."""

    def queue_join(self, waiter: str, pack: str, clock: str, at: float) -> Optional[str]:
        """``waiter`` asks for a quick match of ``pack`` with the clock ``clock`` (its
        stored text): the waiter it is paired with (the longest waiting for the same pack
        and clock, of a process still running: out of the queue now), or None (it waits
        now, since ``at``)."""

    def queue_leave(self, waiter: str) -> bool:
        """``waiter`` waits no more; whether it waited."""

    def queue_summary(self) -> list[tuple[str, str, int]]:
        """Who waits: (pack, clock, how many), by pack and clock."""

    def tidy(self) -> None:
        """Forget the waiters and the presence of processes gone (``lc serve`` calls it at
        each sweep)."""

    def add_chat(self, room_id: str, name: str, text: str) -> ChatRow:
        """Append a chat line, keeping the last ``keep`` lines of the room."""

    def chat(self, room_id: str, limit: int) -> list[ChatRow]:
        """The room's last ``limit`` chat lines, oldest first."""

    def create_player(self, player_id: str, key_hash: str, name: str) -> PlayerRow:
        """A new player, its key kept as ``key_hash``; :class:`StoreError` if the id or the
        key's hash is taken."""

    def player(self, player_id: str) -> Optional[PlayerRow]:
        """The player, or None."""

    def count_players(self) -> int:
        """How many players there are (bot strengths' included)."""

    def player_by_key(self, key_hash: str) -> Optional[PlayerRow]:
        """The player whose key has this hash (:func:`token_hash`), or None."""

    def ratings(self, player_id: str) -> dict[str, Rating]:
        """The player's rating in each family it has played rated matches of."""

    def leaderboard(self, family: str, limit: int) -> list[tuple[PlayerRow, Rating]]:
        """The ``limit`` best-rated players of ``family``, best first (by ``mu - 3 sigma``)."""

    def placings(self, player_id: str, limit: int) -> list[Placed]:
        """The player's last ``limit`` rated matches, newest first."""

    def close(self) -> None:
        """Release the database."""


#: schema 3's tables: the players (a key's SHA-256, never the key; a bot strength's
#: player has none), their ratings by family, each rated match (its id unique: a match
#: is rated once) and each seat's placing in it with the rating before and after
_PLAYERS_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS players (id TEXT PRIMARY KEY, key_hash TEXT UNIQUE, "
    "name TEXT NOT NULL, created REAL NOT NULL, bot TEXT NOT NULL DEFAULT '')",
    "CREATE TABLE IF NOT EXISTS ratings (player TEXT NOT NULL REFERENCES players(id), "
    "family TEXT NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL, "
    "matches INTEGER NOT NULL, PRIMARY KEY (player, family))",
    "CREATE INDEX IF NOT EXISTS ratings_by_family ON ratings (family, matches)",
    "CREATE TABLE IF NOT EXISTS rated_matches (id TEXT PRIMARY KEY, room TEXT NOT NULL, "
    "pack TEXT NOT NULL, family TEXT NOT NULL, at REAL NOT NULL, note TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS placings (match TEXT NOT NULL REFERENCES rated_matches(id), "
    "player TEXT NOT NULL REFERENCES players(id), seat INTEGER NOT NULL, "
    "name TEXT NOT NULL, score INTEGER NOT NULL, rank INTEGER NOT NULL, "
    "mu_before REAL NOT NULL, sigma_before REAL NOT NULL, mu_after REAL NOT NULL, "
    "sigma_after REAL NOT NULL, matches INTEGER NOT NULL, PRIMARY KEY (match, seat))",
    "CREATE INDEX IF NOT EXISTS placings_by_player ON placings (player)",
)

#: schema 7's step (from 6): the rooms' time control and the time their match was dealt, each
#: turn's time (a seat's clock is worked out from them: :mod:`.clocks`)
_CLOCKS_STEP = (
    "ALTER TABLE rooms ADD COLUMN clock TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE rooms ADD COLUMN started REAL NOT NULL DEFAULT 0",
    "ALTER TABLE turns ADD COLUMN at REAL NOT NULL DEFAULT 0",
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY, pack TEXT NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL, labels TEXT NOT NULL DEFAULT '[]', created REAL NOT NULL,
    pack_data TEXT NOT NULL DEFAULT '', pack_sha256 TEXT NOT NULL DEFAULT '',
    hints INTEGER NOT NULL DEFAULT 0, listed INTEGER NOT NULL DEFAULT 0,
    rated INTEGER NOT NULL DEFAULT 0, clock TEXT NOT NULL DEFAULT '',
    started REAL NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 0,
    held REAL NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS seats (
    room TEXT NOT NULL REFERENCES rooms(id), seat INTEGER NOT NULL,
    name TEXT NOT NULL, kind TEXT NOT NULL, bot TEXT NOT NULL DEFAULT '',
    token_hash TEXT NOT NULL DEFAULT '', wants_cont INTEGER NOT NULL DEFAULT 0,
    seen REAL NOT NULL DEFAULT 0, player TEXT NOT NULL DEFAULT '',
    wants_rematch INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room, seat));
CREATE TABLE IF NOT EXISTS turns (
    room TEXT NOT NULL REFERENCES rooms(id), number INTEGER NOT NULL,
    kind TEXT NOT NULL, text TEXT NOT NULL, at REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (room, number));
CREATE TABLE IF NOT EXISTS chat (
    room TEXT NOT NULL REFERENCES rooms(id), number INTEGER NOT NULL,
    name TEXT NOT NULL, text TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (room, number));
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY, room TEXT NOT NULL, rounds INTEGER NOT NULL, finished REAL NOT NULL,
    number INTEGER NOT NULL DEFAULT 1);
CREATE TABLE IF NOT EXISTS waiting (
    id TEXT PRIMARY KEY, pack TEXT NOT NULL, clock TEXT NOT NULL, process TEXT NOT NULL,
    since REAL NOT NULL);
CREATE TABLE IF NOT EXISTS present (
    room TEXT NOT NULL, seat INTEGER NOT NULL, process TEXT NOT NULL,
    PRIMARY KEY (room, seat, process));
""" + "".join(f"{statement};\n" for statement in _PLAYERS_SCHEMA)

#: schema 8's step (from 7): each room's version (several processes on one database), and
#: the quick-match queue shared by them (who waits, for which pack and clock, held by
#: which process: a PostgreSQL backend's pid, gone with its session)
_SHARED_STEP = (
    "ALTER TABLE rooms ADD COLUMN version INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE rooms ADD COLUMN held REAL NOT NULL DEFAULT 0",
    "CREATE TABLE IF NOT EXISTS waiting (id TEXT PRIMARY KEY, pack TEXT NOT NULL, "
    "clock TEXT NOT NULL, process TEXT NOT NULL, since REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS present (room TEXT NOT NULL, seat INTEGER NOT NULL, "
    "process TEXT NOT NULL, PRIMARY KEY (room, seat, process))",
)

#: version -> the statements that bring a database of that version to the next one
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: ("ALTER TABLE rooms ADD COLUMN pack_data TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE rooms ADD COLUMN pack_sha256 TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE rooms ADD COLUMN hints INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE seats ADD COLUMN seen REAL NOT NULL DEFAULT 0"),
    # the finished matches' public ids (their replays); matches finished before have none
    2: ("CREATE TABLE IF NOT EXISTS matches (id TEXT PRIMARY KEY, room TEXT NOT NULL, "
        "rounds INTEGER NOT NULL, finished REAL NOT NULL)",),
    # the lobby: whether it lists the room (those made before were link only: not listed)
    3: ("ALTER TABLE rooms ADD COLUMN listed INTEGER NOT NULL DEFAULT 0",),
    # players and ratings: the rooms' rated flag, the seats' player
    4: ("ALTER TABLE rooms ADD COLUMN rated INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE seats ADD COLUMN player TEXT NOT NULL DEFAULT ''",
        *_PLAYERS_SCHEMA),
    # rematch: who asked for one; each finished match's number in its room (1 before)
    5: ("ALTER TABLE seats ADD COLUMN wants_rematch INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE matches ADD COLUMN number INTEGER NOT NULL DEFAULT 1"),
    # clocks: the room's time control, when its match was dealt, when each turn was stored
    6: _CLOCKS_STEP,
    # several processes: the rooms' versions, the shared quick-match queue
    7: _SHARED_STEP,
}


@functools.lru_cache(maxsize=1)
def expected_columns() -> dict[str, frozenset[str]]:
    """Each table of :data:`_SCHEMA` and its columns: what an opened database must have."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: frozenset(r[1] for r in db.execute(f"PRAGMA table_info({t})"))
                for t in tables}
    finally:
        db.close()


def file_problem(db: sqlite3.Connection) -> Optional[str]:
    """Why the database file of ``db`` is damaged (SQLite's ``quick_check``: a scrambled
    page, a broken b-tree), in one line, or None."""
    checked = [str(r[0]) for r in db.execute("PRAGMA quick_check(1)")]
    if checked == ["ok"]:
        return None
    said = " ".join(" ".join(checked).split())
    return f"the database file is damaged (SQLite quick_check: {said[:200]})"


def schema_statements() -> list[str]:
    """The statements that create :data:`_SCHEMA` in an empty database (each store runs
    them, the PostgreSQL one through its translation)."""
    return [statement for statement in _SCHEMA.split(";") if statement.strip()]


def migration_steps(where: str, stored: str) -> list[tuple[int, str]]:
    """Each statement of :data:`MIGRATIONS` that brings a database of schema version
    ``stored`` (the text kept in ``meta``) to :data:`SCHEMA_VERSION`, with the version it
    migrates from; :class:`StoreError` (saying ``where``) for a version this server does
    not read."""
    version = int(stored) if stored.isdigit() and len(stored) < 6 else -1
    if not 1 <= version <= SCHEMA_VERSION:
        raise StoreError(f"{where}: a database of schema version {stored[:20]}, "
                         f"this server reads versions 1 to {SCHEMA_VERSION}")
    return [(step, statement) for step in range(version, SCHEMA_VERSION)
            for statement in MIGRATIONS[step]]


def schema_problem(db: sqlite3.Connection) -> Optional[str]:
    """Which table or column of :data:`_SCHEMA` the database ``db`` lacks, in one line, or
    None."""
    return columns_problem(lambda table: {r[1] for r in db.execute(
        f"PRAGMA table_info({table})")})


def columns_problem(columns_of: Callable[[str], set[str]]) -> Optional[str]:
    """Which table or column of :data:`_SCHEMA` is missing, in one line, or None:
    ``columns_of(table)`` is the set of the table's columns in the database (empty: no
    such table)."""
    for table, columns in expected_columns().items():
        found = columns_of(table)
        if not found:
            return f"the table {table} is missing"
        if columns - found:
            return f"the table {table} has no column {', '.join(sorted(columns - found))}"
    return None


class SQLReads:
    """The reads both stores make with the same SQL and read back with the same checks:
    rooms, seats, turns, finished matches, players, ratings. A store gives
    :meth:`_read` (its connection, and for PostgreSQL :func:`~.store_pg.postgres_sql`'s
    translation); the reads whose SQL differs (``last_visits``, ``chat``, ``placings``)
    are each store's own."""

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        raise NotImplementedError

    def room(self, room_id: str) -> Optional[RoomRow]:
        """The room, or None; :class:`DamagedRow` when a cell of its row is not what this
        server writes there."""
        rows = self._read("SELECT id, pack, seed, status, labels, created, pack_data, "
                          "pack_sha256, hints, listed, rated, clock, started, version "
                          "FROM rooms WHERE id=?", (room_id,))
        return room_row(room_id, rows[0]) if rows else None

    def open_rooms(self) -> list[str]:
        return [r[0] for r in self._read("SELECT id FROM rooms ORDER BY created, id")]

    def count_rooms(self) -> int:
        return int(self._read("SELECT COUNT(*) FROM rooms")[0][0])

    def unpeopled_rooms(self) -> set[str]:
        return {str(r[0]) for r in self._read(
            "SELECT room FROM seats GROUP BY room "
            "HAVING SUM(CASE WHEN kind='human' THEN 1 ELSE 0 END) = 0")}

    def seats(self, room_id: str) -> list[SeatRow]:
        """The room's seats, numbered 0, 1, ...; :class:`DamagedRow` when a cell is not
        what this server writes there or a number is missing."""
        return seat_rows(room_id, self._read(
            "SELECT seat, name, kind, bot, token_hash, wants_cont, seen, player, "
            "wants_rematch FROM seats WHERE room=? ORDER BY seat", (room_id,)))

    def turns(self, room_id: str, since: int = 0) -> list[TurnRow]:
        """The room's turns from number ``since`` on, numbered ``since``, ``since`` + 1,
        ...; :class:`DamagedRow` when a cell is not what this server writes there or a
        number is missing."""
        return turn_rows(room_id, self._read("SELECT number, kind, text, at FROM turns "
                                             "WHERE room=? AND number>=? ORDER BY number",
                                             (room_id, since)), since)

    def hold(self, room_ids: Sequence[str], at: float) -> None:
        ids = list(room_ids)
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            self._execute(f"UPDATE rooms SET held=? WHERE id IN ({','.join('?' * len(part))})",
                          (at, *part))

    def _execute(self, sql: str, params: tuple = ()) -> None:
        raise NotImplementedError

    def stalled_rooms(self, before: float) -> list[str]:
        return [str(r[0]) for r in self._read(
            "SELECT id FROM rooms WHERE status=? AND started<? AND COALESCE((SELECT at FROM "
            "turns WHERE room=rooms.id ORDER BY number DESC LIMIT 1), 0)<? ORDER BY id",
            (PLAYING, before, before))]

    def match(self, match_id: str) -> Optional[MatchRow]:
        """The finished match, or None (also for a row this server did not write)."""
        rows = self._read("SELECT id, room, rounds, finished, number FROM matches WHERE id=?",
                          (match_id,))
        return match_row(rows[0]) if rows else None

    def room_matches(self, room_id: str) -> list[str]:
        return [str(r[0]) for r in self._read("SELECT id FROM matches WHERE room=? "
                                              "ORDER BY number, rounds, finished", (room_id,))]

    def player(self, player_id: str) -> Optional[PlayerRow]:
        rows = self._read("SELECT id, name, created, bot FROM players WHERE id=?", (player_id,))
        return player_row(rows[0]) if rows else None

    def count_players(self) -> int:
        return int(self._read("SELECT COUNT(*) FROM players")[0][0])

    def player_by_key(self, key_hash: str) -> Optional[PlayerRow]:
        rows = self._read("SELECT id, name, created, bot FROM players WHERE key_hash=?",
                          (key_hash,))
        return player_row(rows[0]) if rows else None

    def ratings(self, player_id: str) -> dict[str, Rating]:
        return {str(family): rating_row(mu, sigma, matches) for family, mu, sigma, matches in
                self._read("SELECT family, mu, sigma, matches FROM ratings WHERE player=? "
                           "ORDER BY family", (player_id,))}

    def leaderboard(self, family: str, limit: int) -> list[tuple[PlayerRow, Rating]]:
        rows = self._read("SELECT p.id, p.name, p.created, p.bot, r.mu, r.sigma, r.matches "
                          "FROM ratings r JOIN players p ON p.id=r.player WHERE r.family=? "
                          "ORDER BY r.mu - 3 * r.sigma DESC, p.id LIMIT ?", (family, limit))
        return [(player_row(row[:4]), rating_row(*row[4:])) for row in rows]


class SQLiteStore(SQLReads):
    """:class:`Store` in one SQLite file (WAL mode, ``synchronous=FULL`` by default:
    a committed turn survives the process being killed and the machine losing power;
    ``durable=False`` (``NORMAL``) survives a killed process only).

    One connection, shared by the threads of one process under a lock. Turns written
    by several threads at once (several rooms) are committed together: one transaction,
    one sync to disk, each turn in a savepoint of its own (one refused turn refuses no
    other), each committed before its :meth:`add_turn` returns."""

    #: one process's: nobody else writes its rooms
    shared = False

    def __init__(self, path: Path, *, durable: bool = True, chat_keep: int = 200,
                 crash_at: str = ""):
        self.path = Path(path)
        self.chat_keep = chat_keep
        #: a test's hook (``lc serve`` reads it from ``LC_SERVE_CRASH_AT_RATING``): the
        #: process kills itself (SIGKILL, as ``kill -9``) just ``before`` or ``after`` the
        #: commit of a turn that changes ratings; empty: never
        self.crash_at = crash_at
        self._lock = threading.Lock()
        self._queue_lock = threading.Lock()
        self._queue: list[_QueuedTurn] = []
        self._db = sqlite3.connect(str(self.path), check_same_thread=False,
                                   isolation_level=None, timeout=30)
        #: the damaged chat rows said so far (each is said once, then skipped quietly)
        self._said: set[tuple[str, int]] = set()
        try:
            self._open(durable)
        except (StoreError, sqlite3.Error) as err:
            self._db.close()
            if isinstance(err, StoreError):
                raise
            raise StoreError(f"{self.path}: {err}") from None

    def _open(self, durable: bool) -> None:
        """Check the file (SQLite's ``quick_check``), create or migrate the schema, check
        every table and column this server reads (:func:`schema_problem`)."""
        db = self._db
        damage = file_problem(db)
        if damage is not None:
            raise StoreError(f"{self.path}: {damage}; restore it from a backup")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        db.execute("PRAGMA foreign_keys=ON")
        with self._write() as db:
            db.execute("CREATE TABLE IF NOT EXISTS meta "
                       "(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                for statement in schema_statements():
                    db.execute(statement)
                db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            else:
                self._migrate(db, str(row[0]))
            db.execute("DELETE FROM waiting")  # (their sockets closed with the last server)
        missing = schema_problem(db)
        if missing is not None:
            raise StoreError(f"{self.path}: {missing}: not a rooms database of this server "
                             f"(restore it from a backup)")

    def _migrate(self, db: sqlite3.Connection, stored: str) -> None:
        """Bring a database of schema version ``stored`` to :data:`SCHEMA_VERSION` (the
        caller's transaction: all or nothing), or refuse it."""
        for version, statement in migration_steps(str(self.path), stored):
            try:
                db.execute(statement)
            except sqlite3.Error as err:
                raise StoreError(f"{self.path}: cannot migrate it from schema version "
                                 f"{version}: {err}") from None
        db.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))

    # ------------------------------------------------------------- transactions

    class _Txn:
        """One write transaction under the store's lock: committed when its block ends,
        rolled back when it raises. A write the database refuses (a full disk, an I/O
        error, a lock) is a :class:`StoreError`, and nothing of the block is kept."""

        def __init__(self, store: "SQLiteStore"):
            self.store = store

        def __enter__(self) -> sqlite3.Connection:
            self.store._lock.acquire()
            try:
                self.store._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                self.store._lock.release()
                raise StoreError(f"{self.store.path.name}: not saved: {err}") from None
            return self.store._db

        def __exit__(self, kind: object, error: object, trace: object) -> None:
            db = self.store._db
            try:
                if kind is None:
                    try:
                        db.execute("COMMIT")
                        return
                    except sqlite3.Error as err:
                        error = err
                # SQLite rolls back by itself after some failures: then there is none
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                if isinstance(error, sqlite3.Error):
                    raise StoreError(f"{self.store.path.name}: not saved: {error}") from None
            finally:
                self.store._lock.release()

    def _write(self) -> "SQLiteStore._Txn":
        return SQLiteStore._Txn(self)

    @staticmethod
    def _bump(db: sqlite3.Connection, room_id: str, version: Optional[int]) -> None:
        """The room's version one more, in the caller's transaction, one statement;
        :class:`StaleRoom`, nothing written, when ``version`` is given and the stored one
        is another (never, with one process; the same check as PostgreSQL's)."""
        if version is None:
            db.execute("UPDATE rooms SET version=version+1 WHERE id=?", (room_id,))
        elif db.execute("UPDATE rooms SET version=version+1 WHERE id=? AND version=?",
                        (room_id, version)).rowcount != 1:  # (no row: nothing written)
            raise StaleRoom(room_id, version)

    def listen(self, heard: Callable[[dict[str, Any]], None],
               lost: Callable[[], None], back: Callable[[], None]) -> None:
        """Nothing to hear: no other process writes this file."""

    def _execute(self, sql: str, params: tuple = ()) -> None:
        with self._write() as db:
            db.execute(sql, params)

    def set_present(self, room_id: str, seats: Sequence[int]) -> None:
        """Nothing: the one process's connections are all there is."""

    def present_elsewhere(self, room_ids: Sequence[str]) -> dict[str, set[int]]:
        return {}

    def tidy(self) -> None:
        """Nothing: no other process leaves anything."""

    def queue_join(self, waiter: str, pack: str, clock: str, at: float) -> Optional[str]:
        with self._write() as db:
            db.execute("DELETE FROM waiting WHERE id=?", (waiter,))
            row = db.execute(QUEUE_PAIR.format(alive="1=1", lock=""),
                             (pack, clock, waiter)).fetchone()
            if row is not None:
                db.execute("DELETE FROM waiting WHERE id=?", (row[0],))
                return str(row[0])
            db.execute("INSERT INTO waiting VALUES (?, ?, ?, '', ?)", (waiter, pack, clock, at))
            return None

    def queue_leave(self, waiter: str) -> bool:
        with self._write() as db:
            return db.execute("DELETE FROM waiting WHERE id=?", (waiter,)).rowcount > 0

    def queue_summary(self) -> list[tuple[str, str, int]]:
        return [(str(p), str(c), int(n)) for p, c, n in
                self._read(QUEUE_SUMMARY.format(alive="1=1"))]

    def announce(self, message: dict[str, Any]) -> None:
        """Nobody else to tell."""

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as err:
                raise StoreError(f"{self.path.name}: cannot read: {err}") from None

    # ------------------------------------------------------------- rooms

    def create_room(self, room_id: str, pack: str, seed: int, *, pack_data: str = "",
                    pack_sha256: str = "", hints: bool = False,
                    listed: bool = False, rated: bool = False, clock: str = "") -> RoomRow:
        now = time.time()
        with self._write() as db:
            try:
                db.execute("INSERT INTO rooms (id, pack, seed, status, labels, created, "
                           "pack_data, pack_sha256, hints, listed, rated, clock) "
                           "VALUES (?, ?, ?, ?, '[]', ?, ?, ?, ?, ?, ?, ?)",
                           (room_id, pack, seed, LOBBY, now, pack_data, pack_sha256,
                            int(hints), int(listed), int(rated), clock))
            except sqlite3.IntegrityError:
                raise StoreError(f"room {room_id} exists") from None
        return RoomRow(room_id, pack, seed, LOBBY, (), now, pack_data, pack_sha256, hints,
                       listed, rated, clock)

    def last_visits(self) -> list[tuple[str, str, float]]:
        rows = self._read(
            "SELECT id, status, MAX(created, held, "
            "COALESCE((SELECT MAX(seen) FROM seats WHERE room=rooms.id "
            "AND typeof(seen) IN ('real', 'integer')), 0), "
            "COALESCE((SELECT MAX(at) FROM chat WHERE room=rooms.id "
            "AND typeof(at) IN ('real', 'integer')), 0)) FROM rooms "
            "WHERE typeof(created) IN ('real', 'integer') AND typeof(held) IN "
            "('real', 'integer')")
        return [(str(i), str(status), float(last)) for i, status, last in rows]

    def delete_rooms(self, room_ids: Sequence[str]) -> None:
        with self._write() as db:
            for table, key in (("chat", "room"), ("turns", "room"), ("seats", "room"),
                               ("rooms", "id")):
                db.executemany(f"DELETE FROM {table} WHERE {key}=?",
                               [(room_id,) for room_id in room_ids])

    def start(self, room_id: str, labels: Sequence[str], at: float = 0.0,
              version: Optional[int] = None) -> None:
        with self._write() as db:
            self._bump(db, room_id, version)
            db.execute("UPDATE rooms SET status=?, labels=?, started=? WHERE id=?",
                       (PLAYING, json.dumps(list(labels)), at, room_id))

    # ------------------------------------------------------------- seats

    def put_seat(self, room_id: str, seat: SeatRow, version: Optional[int] = None) -> None:
        with self._write() as db:
            self._bump(db, room_id, version)
            self._put_seat(db, room_id, seat)

    @staticmethod
    def _put_seat(db: sqlite3.Connection, room_id: str, seat: SeatRow) -> None:
        db.execute("INSERT OR REPLACE INTO seats (room, seat, name, kind, bot, token_hash, "
                   "wants_cont, seen, player, wants_rematch) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (room_id, seat.seat, seat.name, seat.kind, seat.bot, seat.token_hash,
                    int(seat.wants_cont), seat.seen, seat.player, int(seat.wants_rematch)))

    def touch_seat(self, room_id: str, seat: int, at: float) -> None:
        with self._write() as db:
            db.execute("UPDATE seats SET seen=? WHERE room=? AND seat=?", (at, room_id, seat))

    def remove_seat(self, room_id: str, seat: int, version: Optional[int] = None) -> None:
        with self._write() as db:
            self._bump(db, room_id, version)
            db.execute("DELETE FROM seats WHERE room=? AND seat=?", (room_id, seat))
            later = db.execute("SELECT seat FROM seats WHERE room=? AND seat>? ORDER BY seat",
                               (room_id, seat)).fetchall()
            for (number,) in later:
                db.execute("UPDATE seats SET seat=? WHERE room=? AND seat=?",
                           (number - 1, room_id, number))

    # ------------------------------------------------------------- turns

    def add_turn(self, room_id: str, number: int, kind: str, text: str,
                 status: Optional[str] = None,
                 finishes: Optional[tuple[Any, ...]] = None,
                 result: Optional[MatchResult] = None, at: float = 0.0,
                 version: Optional[int] = None) -> None:
        # Group commit: the turn is queued, and whichever writer gets the lock first
        # commits every queued turn in one transaction (one fsync for many rooms); a
        # writer whose turn another committed meanwhile finds it done. Still committed
        # before this returns.
        turn = _QueuedTurn(room_id, number, kind, text, status, finishes, result, at,
                           version)
        with self._queue_lock:
            self._queue.append(turn)
        with self._lock:
            if not turn.done:
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                self._commit_turns(batch)
        if turn.error is not None:
            raise turn.error

    def _commit_turns(self, batch: list["_QueuedTurn"]) -> None:
        """Write ``batch`` in one transaction, each turn in a savepoint of its own (a
        refused turn changes nothing and refuses no other). The caller holds the lock."""
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            for turn in batch:
                # a plain move writes one row: a refused INSERT changes nothing by itself
                # (SQLite undoes the statement, not the transaction); anything more is
                # undone whole by its savepoint
                alone = turn.kind == MOVE and turn.status is None and \
                    turn.finishes is None and turn.result is None
                if not alone:
                    db.execute("SAVEPOINT turn")
                try:
                    # the last number, from the primary key's index (a COUNT(*) would
                    # read every turn of the room, each move)
                    last = db.execute("SELECT number FROM turns WHERE room=? ORDER BY "
                                      "number DESC LIMIT 1", (turn.room,)).fetchone()
                    if last is not None and type(last[0]) is not int:
                        raise DamagedRow(turn.room, "a turn's number is not an integer")
                    count = 0 if last is None else last[0] + 1
                    if count != turn.number:
                        raise StoreError(f"room {turn.room}: turn {turn.number} is not the "
                                         f"next ({count} stored)")
                    self._bump(db, turn.room, turn.version)  # (checked before any write)
                    db.execute("INSERT INTO turns (room, number, kind, text, at) "
                               "VALUES (?, ?, ?, ?, ?)",
                               (turn.room, turn.number, turn.kind, turn.text, turn.at))
                    if turn.status is not None:
                        db.execute("UPDATE rooms SET status=? WHERE id=?",
                                   (turn.status, turn.room))
                    if turn.kind == CONT:
                        db.execute("UPDATE seats SET wants_cont=0, wants_rematch=0 "
                                   "WHERE room=?", (turn.room,))
                    if turn.finishes is not None:
                        db.execute("INSERT INTO matches (id, room, rounds, finished, number) "
                                   "VALUES (?, ?, ?, ?, ?)",
                                   (turn.finishes[0], turn.room, turn.finishes[1], time.time(),
                                    turn.finishes[2] if len(turn.finishes) > 2 else 1))
                    if turn.result is not None:
                        self._rate(db, turn.result)
                except (StoreError, sqlite3.IntegrityError) as err:
                    if not alone:
                        db.execute("ROLLBACK TO turn")
                    turn.error = err if isinstance(err, StoreError) else StoreError(
                        f"room {turn.room}: turn {turn.number} exists")
                if not alone:
                    db.execute("RELEASE turn")
            rates = any(t.result is not None and t.error is None for t in batch)
            if rates and self.crash_at == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            db.execute("COMMIT")
            if rates and self.crash_at == "after":
                os.kill(os.getpid(), signal.SIGKILL)
        except sqlite3.Error as err:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            for turn in batch:
                turn.error = turn.error or StoreError(f"room {turn.room}: turn "
                                                      f"{turn.number} not stored: {err}")
        finally:
            for turn in batch:
                turn.done = True

    def _rate(self, db: sqlite3.Connection, result: MatchResult) -> None:
        """Store a rated match's result and change its players' ratings (the caller's
        transaction, the one of the match's last turn). A match already rated is a
        :class:`StoreError` (the match id is the table's key: never applied twice)."""
        placings = result.placings
        current: dict[str, Rating] = {}
        # (a model that cannot rate, e.g. openskill missing, refuses the turn in one line)
        for p in placings:
            row = db.execute("SELECT mu, sigma, matches FROM ratings WHERE player=? AND "
                             "family=?", (p.player, result.family)).fetchone()
            if row is not None and all(type(v) in (int, float) and math.isfinite(v)
                                       for v in row):
                current[p.player] = Rating(float(row[0]), float(row[1]), int(row[2]))
        try:
            note, changed = update(result, current)
        except Exception as err:  # noqa: BLE001 - the turn is refused whole, never half kept
            raise StoreError(f"room {result.room}: match {result.id} cannot be rated: "
                             f"{type(err).__name__}: {str(err)[:200]}") from None
        now = time.time()
        try:
            db.execute("INSERT INTO rated_matches VALUES (?, ?, ?, ?, ?, ?)",
                       (result.id, result.room, result.pack, result.family, now, note))
        except sqlite3.IntegrityError:
            raise StoreError(f"room {result.room}: match {result.id} is rated already") \
                from None
        for p, rank in zip(placings, ranks(placings)):
            if p.bot and p.player.startswith(BOT_PREFIX):  # a bot strength's: made at its first
                db.execute("INSERT OR IGNORE INTO players (id, key_hash, name, created, bot) "
                           "VALUES (?, NULL, ?, ?, ?)", (p.player, p.bot, now, p.bot))
            if db.execute("SELECT 1 FROM players WHERE id=?", (p.player,)).fetchone() is None:
                continue  # a seat of no player (never in a rated room): nothing to keep
            before = current.get(p.player, Rating())
            after = changed.get(p.player, before)
            db.execute("INSERT INTO placings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (result.id, p.player, p.seat, p.name, p.score, rank, before.mu,
                        before.sigma, after.mu, after.sigma, after.matches))
            if p.player in changed:
                db.execute("INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, ?, ?)",
                           (p.player, result.family, after.mu, after.sigma, after.matches))

    def rematch(self, room_id: str, number: int, text: str, seats: Sequence[SeatRow],
                at: float = 0.0, version: Optional[int] = None) -> None:
        with self._write() as db:
            self._bump(db, room_id, version)
            last = db.execute("SELECT number FROM turns WHERE room=? ORDER BY number DESC "
                              "LIMIT 1", (room_id,)).fetchone()
            if last is not None and type(last[0]) is not int:
                raise DamagedRow(room_id, "a turn's number is not an integer")
            count = 0 if last is None else last[0] + 1
            if count != number:
                raise StoreError(f"room {room_id}: turn {number} is not the next "
                                 f"({count} stored)")
            db.execute("INSERT INTO turns (room, number, kind, text, at) VALUES (?, ?, ?, ?, ?)",
                       (room_id, number, REMATCH, text, at))
            db.execute("UPDATE rooms SET status=?, started=? WHERE id=?", (PLAYING, at, room_id))
            db.execute("DELETE FROM seats WHERE room=?", (room_id,))
            for seat in seats:
                self._put_seat(db, room_id, seat)

    # ------------------------------------------------------------- chat

    def add_chat(self, room_id: str, name: str, text: str) -> ChatRow:
        now = time.time()
        with self._write() as db:
            # the numbers this server wrote (a damaged row's text sorts above them all)
            last = db.execute("SELECT MAX(number) FROM chat WHERE room=? AND "
                              "typeof(number)='integer'", (room_id,)).fetchone()[0]
            number = 0 if last is None else int(last) + 1
            db.execute("INSERT INTO chat VALUES (?, ?, ?, ?, ?)",
                       (room_id, number, name, text, now))
            db.execute("DELETE FROM chat WHERE room=? AND number<=?",
                       (room_id, number - self.chat_keep))
        return ChatRow(number, name, text, now)

    def chat(self, room_id: str, limit: int) -> list[ChatRow]:
        """The room's last ``limit`` chat lines, oldest first; a damaged row (a cell not
        what this server writes there) is skipped, and said once in the log."""
        rows = self._read("SELECT rowid, number, name, text, at FROM chat WHERE room=? "
                          "ORDER BY number DESC LIMIT ?", (room_id, limit))
        lines = []
        for rowid, *cells in reversed(rows):
            try:
                lines.append(chat_row(room_id, cells))
            except DamagedRow as err:
                if (room_id, rowid) not in self._said and len(self._said) < SAID_MOST:
                    self._said.add((room_id, rowid))
                    log.warning("%s (chat row %s skipped)", err, rowid)
        return lines

    # ------------------------------------------------------------- players

    def create_player(self, player_id: str, key_hash: str, name: str) -> PlayerRow:
        now = time.time()
        with self._write() as db:
            try:
                db.execute("INSERT INTO players (id, key_hash, name, created, bot) "
                           "VALUES (?, ?, ?, ?, '')", (player_id, key_hash, name, now))
            except sqlite3.IntegrityError:
                raise StoreError(f"player {player_id} exists") from None
        return PlayerRow(player_id, name, now)

    def placings(self, player_id: str, limit: int) -> list[Placed]:
        rows = self._read(
            "SELECT m.id, m.room, m.pack, m.family, m.at, s.seat, s.name, s.score, s.rank, "
            "s.mu_before, s.sigma_before, s.mu_after, s.sigma_after, s.matches, m.note, "
            "(SELECT json_group_array(o.name) FROM (SELECT name FROM placings WHERE "
            "match=m.id AND seat<>s.seat ORDER BY seat) o) "
            "FROM placings s JOIN rated_matches m ON m.id=s.match WHERE s.player=? "
            "ORDER BY m.at DESC, m.id LIMIT ?", (player_id, limit))
        return [placed_row(row) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def player_row(row: Sequence[object]) -> PlayerRow:
    """A ``players`` row (id, name, created, bot) as a :class:`PlayerRow`."""
    return PlayerRow(str(row[0]), str(row[1]), float(row[2]),  # type: ignore[arg-type]
                     str(row[3]))


def placed_row(row: Sequence[object]) -> Placed:
    """A rated match's row as :meth:`Store.placings` reads it (the match's id, room, pack,
    family, time, the seat, its name, score, rank, the rating before and after, the
    player's matches, the note, the other seats' names: a JSON list, as text or decoded)
    as a :class:`Placed`."""
    (match, room, pack, family, at, seat, name, score, rank, mu0, sigma0, mu1,
     sigma1, matches, note, others) = row
    after = rating_row(mu1, sigma1, matches)
    changed = (mu0, sigma0) != (mu1, sigma1)
    before = rating_row(mu0, sigma0, after.matches - 1 if changed else after.matches)
    names = json.loads(others) if isinstance(others, str) else others
    if not isinstance(names, list):
        names = []
    return Placed(str(match), str(room), str(pack), str(family), float(at),  # type: ignore
                  int(seat), str(name), int(score), int(rank), before, after,  # type: ignore
                  str(note), tuple(str(n) for n in names))


def rating_row(mu: object, sigma: object, matches: object) -> Rating:
    return Rating(float(mu), float(sigma), int(matches))  # type: ignore[arg-type]
