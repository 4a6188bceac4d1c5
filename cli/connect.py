"""``lc play --connect URL``: a seat in a room of ``lc serve`` from the terminal.

The same table, commands and messages as a local game (:mod:`lostcities.cli.play`),
with the room's server deciding every move (docs/server.md, docs/play.md "Playing in
a room"). :func:`room_address` reads the room's link, :class:`TokenFile` keeps the
seat's secret token, :func:`room_pack` loads the room's pack, :class:`MoveEntry`
completes a typed turn from the server's ``legal`` list, and :class:`RoomClient` runs
the connection (a receiving thread, reconnecting with backoff) and the terminal.

Everything the server sends is data: checked before use (``Observation.from_dict``),
printed through :func:`~lostcities.cli.render.plain`, never an instruction.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import stat
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence
from urllib.parse import urlsplit

from rich.console import Console
from rich.text import Text

from lostcities.engine import (LostCitiesError, Observation, builtin_ids, embedded_pack,
                               load_pack, seen_scores)
from lostcities.engine.errors import InputError
from lostcities.engine.tooling import check_path, kind_of, loads_json, read_text, shown_path
from lostcities.i18n import Catalogue, detect_lang
from lostcities.entry import MoveEntry as TypedEntry
from lostcities.entry import Outcome, Partial, rule_keys, typed_words
from lostcities.server.protocol import ROOM_GONE

from .common import EXIT_USAGE, fail
from .render import match_end, move_list, plain, round_message, table
from .session import ACTIONS, COMMANDS, data_dir, temp_path

if TYPE_CHECKING:
    from lostcities.engine import Move, RulePack

#: the longest room link accepted, in characters
URL_CHARS = 2000
#: the characters of a room id (docs/server.md: 8 of base32)
ROOM_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz234567")
ROOM_ID_LENGTH = 8
#: seconds to wait for the server to open the connection and say ``welcome``
OPEN_TIMEOUT = 20.0
#: reconnecting: the first wait and the longest, in seconds (doubling in between)
BACKOFF_FIRST, BACKOFF_MOST = 0.5, 8.0
#: the largest message read from the server, in bytes (a board's state is a few kB)
MESSAGE_BYTES = 1 << 20
#: the largest ``GET /rooms/ID/pack`` answer read, in bytes
PACK_BYTES = 1 << 20
#: the longest seat token kept in a token file (the schema's bound)
TOKEN_CHARS = 100
#: a player key as ``--player`` takes it: what ``secrets.token_urlsafe`` writes, at most
#: the schema's bound
PLAYER_KEY = re.compile(r"[A-Za-z0-9_-]{1,100}")
#: a script's wait for the server to answer a line, in seconds
SCRIPT_WAIT = 60.0
#: seconds between two looks at whether the server asked for pings (before its welcome)
KEEP_ALIVE_CHECK = 5.0
#: the folder of the token files in lc play's data folder
TOKEN_FOLDER = "rooms-joined"


class ConnectError(Exception):
    """The room cannot be joined: one line saying why (``code``: the exit code)."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


# --------------------------------------------------------------------------- the link

@dataclass(frozen=True)
class RoomAddress:
    """Where a room is: its WebSocket (``ws``), the server's HTTP base (``http``), its id."""

    ws: str
    http: str
    room: str
    host: str
    port: int

    @property
    def pack_url(self) -> str:
        return f"{self.http}/rooms/{self.room}/pack"


def room_address(url: str) -> RoomAddress:
    """The room of a link: ``http(s)://HOST[:PORT]/r/ROOM`` (the page's link, what the
    server prints), ``http(s)://HOST[:PORT]/rooms/ROOM`` or the WebSocket itself,
    ``ws(s)://HOST[:PORT]/rooms/ROOM/ws``; a path prefix before ``/r/`` or ``/rooms/``
    (a reverse proxy's) is kept. Raises :class:`ConnectError` naming what is wrong."""
    shown = plain(url if len(url) <= 80 else url[:80] + "...")
    if len(url) > URL_CHARS:
        raise ConnectError(f"--connect: a link of {len(url):,} characters (at most {URL_CHARS})")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as err:
        raise ConnectError(f"--connect {shown}: not a link ({err})") from None
    scheme = parts.scheme.lower()
    secure = {"http": False, "ws": False, "https": True, "wss": True}.get(scheme)
    if secure is None or not parts.hostname:
        raise ConnectError(f"--connect {shown}: give the room's link, http://HOST:PORT/r/ROOM "
                           f"or ws://HOST:PORT/rooms/ROOM/ws")
    words = [w for w in parts.path.split("/") if w]
    room, prefix = None, []
    if len(words) >= 2 and words[-2] == "r":
        room, prefix = words[-1], words[:-2]
    elif len(words) >= 2 and words[-2] == "rooms":
        room, prefix = words[-1], words[:-2]
    elif len(words) >= 3 and words[-3] == "rooms" and words[-1] == "ws":
        room, prefix = words[-2], words[:-3]
    if room is None or len(room) != ROOM_ID_LENGTH or not set(room) <= ROOM_ID_CHARS:
        raise ConnectError(f"--connect {shown}: no room id in the link (a room's link ends "
                           f"/r/ROOM, ROOM 8 letters and digits)")
    host = parts.hostname
    port = port or (443 if secure else 80)
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{port}"
    base = "/".join(["", *prefix])
    return RoomAddress(ws=f"{'wss' if secure else 'ws'}://{netloc}{base}/rooms/{room}/ws",
                       http=f"{'https' if secure else 'http'}://{netloc}{base}",
                       room=room, host=host, port=port)


# --------------------------------------------------------------------------- the token

class TokenFile:
    """The file that keeps a seat's token: read through :mod:`lostcities.engine.safeio`,
    written whole (a temporary file, then a rename) with mode 0600, and never over
    something that is not a regular file."""

    def __init__(self, path: Path):
        self.path = Path(path)

    @staticmethod
    def default(data: Path, address: RoomAddress) -> Path:
        """The token file of a room in lc play's data folder: one per host, port and room."""
        host = "".join(c if c.isalnum() or c in ".-" else "_" for c in address.host)[:100]
        return Path(data) / TOKEN_FOLDER / f"{host}-{address.port}-{address.room}.token"

    def check(self) -> None:
        """Raise :class:`ConnectError` unless the path may hold the token: missing, or a
        regular file (a folder, a device, a FIFO, a dangling link are refused)."""
        try:
            check_path(self.path, "--token")
        except InputError as err:
            raise ConnectError(str(err)) from None
        try:
            st = os.stat(self.path)
        except (FileNotFoundError, NotADirectoryError):
            if os.path.islink(self.path):
                raise ConnectError(f"--token {shown_path(self.path)}: a link to nothing; give "
                                   f"another file") from None
            return
        except OSError as err:
            raise ConnectError(f"--token {shown_path(self.path)}: {err.strerror or err}") \
                from None
        if not stat.S_ISREG(st.st_mode):
            raise ConnectError(f"--token {shown_path(self.path)}: {kind_of(st.st_mode)}, not "
                               f"a regular file")

    def read(self) -> Optional[str]:
        """The token kept, or None (no file yet). Raises :class:`ConnectError` for a file
        that cannot be a token (too large, not text, not a token)."""
        if not os.path.lexists(self.path):
            return None
        try:
            text = read_text(self.path, 4 * TOKEN_CHARS, "--token").strip()
        except InputError as err:
            raise ConnectError(str(err), 1) from None
        if not text:
            return None
        if len(text) > TOKEN_CHARS or not text.isascii() or not text.isprintable() or \
                any(c.isspace() for c in text):
            raise ConnectError(f"--token {shown_path(self.path)}: not a seat token", 1)
        return text

    def write(self, token: str) -> None:
        """Keep ``token``: a temporary file of mode 0600 beside the file, then a rename.
        Raises :class:`OSError` without writing when the path is not a regular file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode = os.lstat(self.path).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise OSError(f"{kind_of(mode)}, not a regular file; not replaced")
        tmp = temp_path(self.path)
        try:
            if os.path.lexists(tmp):
                os.unlink(tmp)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL |
                         getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(token + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        finally:
            if os.path.lexists(tmp):
                os.unlink(tmp)


# --------------------------------------------------------------------------- the pack

def room_pack(address: RoomAddress, pack_id: str, timeout: float = OPEN_TIMEOUT) -> "RulePack":
    """The room's pack: ``GET /rooms/ID/pack`` (``{"pack", "kind", "data"}``), a house
    pack's ``data`` through the hardened loader as records load their ``pack_data``; a
    built-in pack by its id when the server has no such endpoint. Raises
    :class:`ConnectError`."""
    answer = _get_json(address.pack_url, timeout)
    if answer is None:  # an older server: no /pack
        if pack_id in builtin_ids():
            return load_pack(pack_id)
        raise ConnectError(f"the room's pack {plain(pack_id)[:80]} is not a built-in pack and "
                           f"this server does not give its packs (GET /rooms/ID/pack)", 1)
    if not isinstance(answer, dict) or answer.get("pack") != pack_id:
        raise ConnectError(f"{address.pack_url}: not the room's pack", 1)
    if answer.get("kind") == "builtin" and pack_id in builtin_ids():
        return load_pack(pack_id)
    data = answer.get("data")
    if not isinstance(data, dict):
        raise ConnectError(f"{address.pack_url}: data: expected the pack's rules", 1)
    record = {"pack": pack_id, "pack_data": data, "pack_sha256": _canonical_sha256(data)}
    try:
        return embedded_pack(record, where=f"{address.pack_url}")
    except LostCitiesError as err:
        raise ConnectError(str(err), 1) from None


def _canonical_sha256(data: Any) -> str:
    """The sha256 of ``data`` in the canonical form records name packs by (JSON, sorted
    keys, no spaces, ASCII escapes): the pack is checked by the loader, not by this."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _get_json(url: str, timeout: float) -> Any:
    """The JSON at ``url`` (bounded), None for a 404; :class:`ConnectError` otherwise."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 - http(s)
            body = answer.read(PACK_BYTES + 1)
    except urllib.error.HTTPError as err:
        if err.code in (404, 405):
            return None
        raise ConnectError(f"{url}: the server answered {err.code}", 1) from None
    except (urllib.error.URLError, OSError) as err:
        raise ConnectError(f"{url}: {getattr(err, 'reason', err)}", 1) from None
    if len(body) > PACK_BYTES:
        raise ConnectError(f"{url}: an answer over {PACK_BYTES:,} bytes", 1)
    try:
        return loads_json(body.decode("utf-8", errors="replace"), url)
    except LostCitiesError as err:
        raise ConnectError(str(err), 1) from None


# --------------------------------------------------------------------------- typing a turn

class MoveEntry:
    """A turn typed as in ``lc play`` (``p r5 deck``, ``d r5 g``, ``p r5`` then the draw,
    ``p g3 pawn=0 step=b deck``), completed from the server's ``legal`` list by the one
    move entry (:class:`lostcities.entry.MoveEntry`); this keeps the turn under way
    between lines and gives the client its outcomes as ``(kind, value)``."""

    def __init__(self, pack: "RulePack", legal: Sequence[str], cat: Optional["Catalogue"] = None):
        self.pack = pack
        self.entry = TypedEntry.from_texts(pack, legal, cat)
        self.moves: list["Move"] = self.entry.legal
        self.partial: Optional[Partial] = None

    @property
    def fits(self) -> list["Move"]:
        """The legal moves that still fit the turn under way."""
        return [] if self.partial is None else self.entry.fits(self.partial)

    @property
    def draw_given(self) -> bool:
        return self.partial is not None and not self.entry.asks_draw(self.partial)

    def draw_word(self, word: str) -> Optional[int]:
        """DECK or a colour index for a draw word, else None."""
        return self.entry.draw_word(word)

    def start(self, action: str, words: Sequence[str]) -> tuple[str, Any]:
        """``action`` with the card and details ``words``: ``("move", Move)`` when one move
        fits, ``("pending", choices)`` when more do, ``("error", (key, params))``."""
        return self._outcome(self.entry.start(action, words))

    def add(self, words: Sequence[str]) -> tuple[str, Any]:
        """More details for the turn under way (the draw, ``pawn=N``, ``step=K``, ``leader``)."""
        if self.partial is None:
            return "error", ("error.no-card", {"action": "play"})
        return self._outcome(self.entry.add(self.partial, words))

    def enter(self) -> Optional[tuple[str, Any]]:
        """An empty line: the deck when the draw is asked (``Enter: deck``), else None."""
        outcome = None if self.partial is None else self.entry.enter(self.partial)
        return None if outcome is None else self._outcome(outcome)

    def choose(self, number: int, words: int) -> tuple[str, Any]:
        """The numbered choice ``number`` of the prompt (a pawn, steps), as :meth:`add`."""
        if self.partial is None:
            return "error", ("error.no-card", {"action": "play"})
        return self._outcome(self.entry.choose(self.partial, number, words))

    def choices(self) -> str:
        """What is left to say: the draws (``deck, y, g``) or the rest of each fitting move."""
        return "" if self.partial is None else self.entry.choices(self.partial)

    def prompt(self) -> str:
        """The prompt asking for the rest of the turn under way."""
        return "" if self.partial is None else self.entry.prompt(self.partial)

    def _outcome(self, outcome: Outcome) -> tuple[str, Any]:
        if outcome.kind == "move":
            return "move", outcome.move
        if outcome.kind == "pending":
            self.partial = outcome.partial
            return "pending", self.choices()
        return "error", (outcome.key, dict(outcome.params))


# --------------------------------------------------------------------------- the client

#: the messages kept while the hello's answer is awaited (the server's chat and turn backlog)
HELD_MESSAGES = 200

#: command words of lc play that make sense in a room (the rest: ``not in a room``)
LOCAL_ONLY = ("undo", "save")


class RoomClient:
    """One terminal at a room: reads lines, sends them, prints what the server says.

    ``connect`` opens a WebSocket (the ``websockets`` sync client, or a test's stand-in);
    a receiving thread reads the server's messages and reconnects with backoff when the
    connection drops (``hello`` with the token file's token brings the seat back)."""

    def __init__(self, address: RoomAddress, cat: "Catalogue", token: TokenFile, *,
                 name: str = "", interactive: bool, connect: Callable[[str], Any],
                 out: Any = None, err: Any = None, player: str = ""):
        self.address = address
        self.cat = cat
        self.token = token
        self.name = name
        #: the player key said in every ``hello`` (``--player``; empty: nobody)
        self.player = player
        self.interactive = interactive
        self.connect = connect
        plain_opts: dict[str, Any] = {}
        if not interactive:
            plain_opts = {"no_color": True, "color_system": None, "soft_wrap": True}
            if "COLUMNS" not in os.environ:
                plain_opts["width"] = 100
        self.out = out or Console(highlight=False, markup=False, emoji=False, **plain_opts)
        self.err = err or Console(highlight=False, markup=False, emoji=False, stderr=True,
                                  **plain_opts)
        self.lock = threading.RLock()
        #: notified on every ``state`` and ``pong`` (a script waits on them)
        self.changed = threading.Condition(self.lock)
        #: ``ping`` messages sent and ``pong`` answers read on the socket now open
        self.pings = self.pongs = 0
        #: how often the server wants a ``ping`` (its ``welcome``; None: it said nothing)
        self.ping_every: Optional[int] = None
        #: the highest ``number`` of the ``turn`` and ``chat`` messages printed: a socket
        #: that connects again is sent the last ones again, and those are not printed twice
        self.printed: dict[str, int] = {}
        self.socket: Any = None
        #: the ``welcome`` messages read on the socket now open: the server welcomes a new
        #: socket at once, as a spectator, then again in answer to the ``hello`` (with the
        #: token's seat); only from that second one on is what it sends this client's own
        self.welcomes = 0
        #: the close code the server gave when the socket last closed (None: none read)
        self.close_code: Optional[int] = None
        self.closing = threading.Event()
        self.pack: Optional["RulePack"] = None
        self.room: dict[str, Any] = {}
        #: the seats' clocks of the last state (its ``clock``), or None: no clock
        self.clock: Optional[dict[str, Any]] = None
        self.seat: Optional[int] = None
        self.view: Any = None            # the Observation of the last state
        self.legal: Optional[list[str]] = None
        self.entry: Optional[MoveEntry] = None
        self.shown: Any = None           # what the table drawn last showed
        self.prompting = ""
        self.thread: Optional[threading.Thread] = None

    # ----------------------------------------------------------------- connection

    def open(self) -> None:
        """Connect, say ``hello``, read ``welcome`` and load the room's pack; raises
        :class:`ConnectError` (the room refused, the server not there, the pack)."""
        first = self._dial()
        welcome, held = self._receive_welcome(first)
        self.pack = room_pack(self.address, str(welcome.get("pack", ""))[:200])
        self._welcome(welcome)
        self.socket = first
        for message in held:  # the chat and turns sent before it, with the pack to say them
            self.handle(message)

    def _dial(self) -> Any:
        socket = self.connect(self.address.ws)
        self._hello(socket)
        return socket

    def _hello(self, socket: Any) -> None:
        hello: dict[str, Any] = {"type": "hello", "lang": self.cat.lang}
        try:
            token = self.token.read()
        except ConnectError as err:
            self.say_error(str(err))
            token = None
        if token:
            hello["token"] = token
        if self.player:
            hello["player"] = self.player
        socket.send(json.dumps(hello))

    def _receive_welcome(self, socket: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Read up to the ``welcome`` that answers the hello (the socket's second: the
        first, and the spectator's ``state`` after it, are not this seat's, so a player
        back with a token never sees the room as a spectator first), and the messages
        read before it to handle (chat and turns; not those two)."""
        self.welcomes = 0
        held: list[dict[str, Any]] = []
        while True:
            message = self._read(socket, OPEN_TIMEOUT)
            if message is None:
                if self.close_code == ROOM_GONE:
                    raise ConnectError(f"{self.address.ws}: the server has no room "
                                       f"{self.address.room}", EXIT_USAGE)
                raise ConnectError(f"{self.address.ws}: the server closed the connection")
            kind = message.get("type")
            if kind == "welcome" and isinstance(message.get("pack"), str):
                self.welcomes += 1
                if self.welcomes >= 2:
                    return message, held
            elif kind != "state" and len(held) < HELD_MESSAGES:
                held.append(message)

    def _read(self, socket: Any, timeout: Optional[float] = None) -> Optional[dict[str, Any]]:
        """The next message that is a JSON object (others are skipped), None when closed."""
        while True:
            try:
                text = socket.recv(timeout) if timeout is not None else socket.recv()
            except TimeoutError:
                raise ConnectError(f"{self.address.ws}: no answer in {timeout:g} s") from None
            except Exception as err:  # the connection closed or broke
                if _closed(err):
                    self.close_code = close_code(err)
                    return None
                raise
            if not isinstance(text, str) or len(text) > MESSAGE_BYTES:
                continue
            try:
                message = loads_json(text, "message")
            except LostCitiesError:
                continue
            if isinstance(message, dict):
                return message

    def start(self) -> None:
        """The receiving thread: messages as they come, reconnecting when the link drops."""
        self.thread = threading.Thread(target=self._receive, name="lc-room", daemon=True)
        self.thread.start()
        threading.Thread(target=self._keep_alive, name="lc-room-ping", daemon=True).start()

    def _keep_alive(self) -> None:
        """A ``ping`` as often as the server asks (``welcome``'s ``ping``), so a spectator
        watching without a word is not closed as an idle socket."""
        while not self.closing.wait(self.ping_every or KEEP_ALIVE_CHECK):
            if self.ping_every is not None:
                self.ping()

    def ping(self) -> Optional[int]:
        """Send a ``ping``: the count of pings sent on this socket (its ``pong`` comes after
        the answers to every message sent before it), None when the link is down."""
        with self.lock:
            if not self.send({"type": "ping"}, quiet=True):
                return None
            self.pings += 1
            return self.pings

    def _receive(self) -> None:
        wait = BACKOFF_FIRST
        while not self.closing.is_set():
            socket = self.socket
            if socket is not None:
                try:
                    while not self.closing.is_set():
                        message = self._read(socket)
                        if message is None:
                            break
                        wait = BACKOFF_FIRST
                        self.handle(message)
                except Exception as err:  # noqa: BLE001 - a broken link: reconnect
                    if not _closed(err) and os.environ.get("LOSTCITIES_DEBUG"):
                        raise
                with self.lock:
                    self.socket = None
                if self.closing.is_set():
                    return
                if self.close_code == ROOM_GONE:  # the room is no more: nothing to reconnect to
                    self.say_error(self.cat("connect.gone", room=self.address.room))
                    return
                self.say_error(self.cat.get("connect.lost",
                                            "The connection to the room dropped; reconnecting..."))
            if self.closing.wait(wait):
                return
            wait = min(wait * 2, BACKOFF_MOST)
            try:
                socket = self._dial()
            except Exception as err:  # noqa: BLE001 - the server is not back yet
                if close_code(err) == ROOM_GONE:  # back, without the room
                    self.say_error(self.cat("connect.gone", room=self.address.room))
                    return
                continue
            with self.lock:
                self.socket = socket
                self.welcomes = 0  # a new socket: welcomed as a spectator, then answered
                self.pings = self.pongs = 0  # a new socket: pings lost with the old one
                self.shown = None  # the table drawn again from the next state
            self.say(self.cat.get("connect.back", "Connected to the room again."))
            time.sleep(0)

    def send(self, message: dict[str, Any], quiet: bool = False) -> bool:
        """Send ``message`` now; False (said, unless ``quiet``) when the link is down."""
        with self.lock:
            socket = self.socket
        if socket is None:
            if quiet:
                return False
            self.say_error(self.cat.get("connect.down",
                                        "Not connected to the room right now; try again in a "
                                        "moment."))
            return False
        try:
            socket.send(json.dumps(message))
        except Exception:  # noqa: BLE001 - dropped: the receiving thread reconnects
            if quiet:
                return False
            self.say_error(self.cat.get("connect.down",
                                        "Not connected to the room right now; try again in a "
                                        "moment."))
            return False
        return True

    def close(self) -> None:
        self.closing.set()
        with self.lock:
            socket, self.socket = self.socket, None
        if socket is not None:
            try:
                socket.close()
            except Exception:  # noqa: BLE001 - closing anyway
                pass

    # ----------------------------------------------------------------- the server's messages

    def handle(self, message: dict[str, Any]) -> None:
        """One message from the server, printed as lc play would say it."""
        kind = message.get("type")
        cat = self.cat
        number = message.get("number")
        if kind in ("turn", "chat") and type(number) is int:
            if number <= self.printed.get(kind, -1):
                return  # already printed, before a reconnection
            self.printed[kind] = number
        if kind == "welcome":
            self.welcomes += 1
        if kind in ("welcome", "state") and self.welcomes < 2:
            return  # a new socket's spectator welcome and view: the hello's answer follows
        try:
            if kind == "state":
                self._state(message)
            elif kind == "welcome":
                self._welcome(message)
            elif kind == "seated":
                self._seated(message)
            elif kind == "chat":
                name = plain(message.get("name") or cat.get("connect.spectator", "spectator"))
                self.say(f"<{name[:40]}> {plain(message.get('text', ''))[:1000]}")
            elif kind == "info":
                self.say(plain(message.get("text", ""))[:2000])
            elif kind == "error":
                self.say_error(plain(message.get("text") or message.get("key", ""))[:1000])
            elif kind == "turn":
                self._turn(message)
            elif kind == "round":
                self._round(message)
            elif kind == "match":
                self._match(message)
            elif kind == "pong":
                with self.changed:
                    self.pongs += 1
                    self.changed.notify_all()
            elif kind == "hint":
                line = cat("hint", bot=cat.get("connect.the-room", "The room"),
                           move=plain(message.get("move", ""))[:200])
                words = message.get("words")
                if isinstance(words, str) and words:
                    line += f" ({plain(words)[:500]})"
                self.say(line)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as err:
            self.say_error(cat.get("connect.unreadable",
                                   "The server sent a message this client cannot read: {what}")
                           .replace("{what}", plain(f"{kind}: {err}")[:200]))

    def _welcome(self, message: dict[str, Any]) -> None:
        seat = message.get("seat")
        self.seat = seat if type(seat) is int else None
        every = message.get("ping")
        self.ping_every = every if type(every) is int and every >= 1 else None

    def _seated(self, message: dict[str, Any]) -> None:
        token = message.get("token")
        seat = message.get("seat")
        if isinstance(token, str) and 0 < len(token) <= TOKEN_CHARS:
            try:
                self.token.write(token)
            except OSError as err:
                self.say_error(self.cat.get(
                    "connect.token-unsaved",
                    "Your seat's token could not be kept in {path}: {reason}").format(
                    path=plain(self.token.path), reason=plain(err.strerror or err)))
            else:
                self.say(self.cat.get("connect.token-saved",
                                      "Your seat's token is kept in {path}: lc play --connect "
                                      "takes the seat back with it.").format(
                    path=plain(self.token.path)))
        if type(seat) is int:
            self.seat = seat

    def _state(self, message: dict[str, Any]) -> None:
        assert self.pack is not None
        room = message.get("room")
        self.room = room if isinstance(room, dict) else {}
        seat = message.get("seat")
        self.seat = seat if type(seat) is int else None
        clock = message.get("clock")
        self.clock = clock if isinstance(clock, dict) else None
        legal = message.get("legal")
        self.legal = [str(m) for m in legal] if isinstance(legal, list) else None
        if self.entry is not None and self.legal is None:
            self.entry = None
        view = message.get("view")
        if view is None:
            self.view = None
        else:
            try:
                self.view = Observation.from_dict(view, self.pack, "the room's view")
            except LostCitiesError as err:
                self.view = None
                self.say_error(str(err))
        seats = [{k: v for k, v in s.items() if k != "present"} if isinstance(s, dict) else s
                 for s in self.room.get("seats") or []][:10]
        shown = (self.room.get("status"), self.room.get("turns"), self.seat,
                 json.dumps(seats, sort_keys=True)[:5000],
                 self.legal is not None)
        if shown != self.shown:
            self.shown = shown
            self.draw()
        with self.changed:
            self.changed.notify_all()

    def _turn(self, message: dict[str, Any]) -> None:
        words = message.get("words")
        name = plain(message.get("name", ""))
        if not (isinstance(words, str) and words):
            words = message.get("move", "")
        line = plain(words)
        if name and name not in line and not (self.seat is not None
                                              and message.get("seat") == self.seat):
            line = f"{name}: {line}"
        self.say(line[:500])

    def _round(self, message: dict[str, Any]) -> None:
        assert self.pack is not None
        self.say(round_message(message, self.pack, self.cat))

    def _match(self, message: dict[str, Any]) -> None:
        seats = self.room.get("seats") or []
        labels = [plain(s.get("name", "")) for s in seats if isinstance(s, dict)]
        forfeit = message.get("forfeit")
        if isinstance(forfeit, dict) and type(forfeit.get("seat")) is int and \
                0 <= forfeit["seat"] < len(labels) and forfeit.get("reason") in ("resign", "time"):
            self.say(Text(self.cat.get(f"connect.forfeit.{forfeit['reason']}",
                                       "{name} forfeits the match.").format(
                name=labels[forfeit["seat"]]), style="bold"))
        rounds = [[int(x) for x in r] for r in message.get("rounds", [])][:100]
        totals = [int(x) for x in message.get("totals", [])]
        winners = [int(w) for w in message.get("winners", []) if 0 <= int(w) < len(labels)]
        n = len(labels)
        if n and winners and len(totals) == n and all(len(r) == n for r in rounds):
            self.say(match_end(labels, rounds, totals, winners, self.cat))
        else:
            names = ", ".join(plain(x) for x in message.get("names", []))
            self.say(self.cat.get("result.match-over", "The match is over") + f" {names}")
        record = message.get("record")
        if isinstance(record, str):
            self.say(self.cat.get("connect.record",
                                  "The server wrote the match's record: {record}").format(
                record=plain(record)[:200]))
        if message.get("can_continue"):
            self.say(self.cat.get("connect.cont",
                                  "Type /cont to play on (the scores add up), once every "
                                  "player asks."))
        if self.seat is not None:
            self.say(self.cat.get("connect.rematch",
                                  "Type /rematch for a new match with the same players, the "
                                  "seats moved on one, once every player asks."))

    # ----------------------------------------------------------------- showing

    def draw(self) -> None:
        """The table as this seat sees it (a spectator: no hand), or the lobby."""
        cat = self.cat
        room = self.room
        obs = self.view
        if obs is None:
            seats = [s for s in room.get("seats") or [] if isinstance(s, dict)]
            names = ", ".join(plain(s.get("name", ""))[:40] for s in seats) or "-"
            self.say(Text(cat.get("connect.lobby",
                                  "Room {room} ({pack}), waiting to start. Seated: {names}.")
                          .format(room=self.address.room, pack=plain(room.get("pack", ""))[:80],
                                  names=names), style="bold"))
            self.say(Text(self._how(), style="dim"))
            return
        assert self.pack is not None
        me = self.seat if self.seat is not None and self.seat < len(obs.players) else None
        playable = None
        if self.legal is not None:
            entry = MoveEntry(self.pack, self.legal)
            playable = {m.card for m in entry.moves if m.action == "play"}
        discard_only = [c for c in obs.hand if playable is not None and c not in playable]
        self.say(table(obs, self.pack, cat, me=me, live=seen_scores(obs, self.pack),
                       discard_only=discard_only, width=self.out.width))
        status = room.get("status")
        if status == "playing" and self.legal is not None:
            self.say(Text(cat.get("connect.your-turn", "Your turn: p CARD deck, d CARD KEY, "
                                  "moves, hint, say TEXT, help."), style="bold"))
        elif status == "playing" and 0 <= obs.to_move < len(obs.players):
            self.say(Text(cat.get("connect.waiting", "Waiting for {name} to play.").format(
                name=plain(obs.players[obs.to_move])), style="dim"))
        if self.clock is not None:
            self.say(clock_line(self.clock, list(obs.players), cat))
        if me is None:
            self.say(Text(self._how(), style="dim"))

    def _how(self) -> str:
        return self.cat.get("connect.spectating",
                            "You watch as a spectator: /join NAME takes a free seat, /help "
                            "lists the room's commands, say TEXT chats.") \
            if self.seat is None else self.cat.get(
            "connect.seated", "You are seated: /start deals once enough players are seated, "
                              "/bot greedy seats a bot.")

    def say(self, renderable: Any) -> None:
        """Print above the prompt (the line being typed is kept)."""
        with self.lock:
            self._above_prompt(lambda: self.out.print(renderable))

    def say_error(self, text: str) -> None:
        with self.lock:
            if self.interactive:
                self._above_prompt(lambda: self.out.print(Text(plain(text), style="bold red")))
            else:
                self.err.print(Text(plain(text)))

    def _above_prompt(self, show: Callable[[], None]) -> None:
        prompting = self.interactive and self.prompting
        if prompting:
            self.out.file.write("\r\x1b[2K")
        show()
        if prompting:
            self.out.file.write(self.prompting + _typed())
            self.out.file.flush()

    # ----------------------------------------------------------------- lines typed

    def prompt(self) -> str:
        if self.entry is not None and self.entry.fits:
            return self.entry.prompt()
        name = self.name
        obs = self.view
        if self.seat is not None and obs is not None and self.seat < len(obs.players):
            name = obs.players[self.seat]
        return self.cat("prompt", name=plain(name or self.address.room))

    def command(self, line: str) -> bool:
        """Carry out one typed line; False when the player quits."""
        text = line.strip()
        words = text.split()
        cat = self.cat
        if not words:
            enter = None if self.entry is None else self.entry.enter()
            if enter is not None and self.entry is not None:  # Enter at the draw prompt: deck
                self._settle(self.entry, enter)
            else:
                self.draw()
            return True
        if text.startswith("/"):
            if words[0].lower() == "/join" and len(words) == 1 and self.name:
                text = f"/join {self.name}"
            self.send({"type": "line", "text": text[:1000]})
            return True
        head = words[0].lower()
        if head in typed_words().chat and len(words) > 1:
            self.send({"type": "line", "text": text.split(None, 1)[1][:1000]})
            return True
        if self.entry is not None and head not in COMMANDS and head not in ACTIONS \
                and not head.isdigit():
            return self._details(words)
        name = COMMANDS.get(head)
        if name == "quit":
            return False
        if name == "help":
            self._help()
        elif name == "board":
            self.draw()
        elif name == "moves":
            self._moves()
        elif name == "hint":
            self._hint()
        elif name in LOCAL_ONLY:
            self.say_error(cat.get("connect.local-only",
                                   "{command}: only in a local game, not in a room")
                           .format(command=head))
        elif head.isdigit() and self.entry is not None and self.entry.fits \
                and self.entry.draw_given:  # one of the prompt's numbered choices
            self._settle(self.entry, self.entry.choose(int(head) if len(head) < 7 else 0,
                                                       len(words)))
        elif head.isdigit():
            self._pick(head, len(words))
        elif head in ACTIONS:
            self._start(ACTIONS[head], words[1:])
        else:
            self.say_error(cat.get("connect.unknown",
                                   "'{text}': not a move nor a command; say TEXT chats, help "
                                   "lists the commands").format(text=_cut(text)))
        return True

    def _my_turn(self) -> Optional[MoveEntry]:
        if self.pack is None or self.legal is None:
            obs = self.view
            if self.seat is None:
                self.say_error(self.cat.get("connect.not-seated",
                                            "You are not seated: /join NAME takes a free seat."))
            elif obs is not None and 0 <= obs.to_move < len(obs.players):
                self.say_error(self.cat("error.not-your-turn", name=plain(
                    obs.players[obs.to_move])))
            else:
                self.say_error(self.cat.get("connect.no-turn", "No turn to play right now."))
            return None
        return MoveEntry(self.pack, self.legal, self.cat)

    def _start(self, action: str, words: Sequence[str]) -> None:
        entry = self._my_turn()
        if entry is None:
            return
        self._settle(entry, entry.start(action, words))

    def _details(self, words: Sequence[str]) -> bool:
        entry = self.entry
        if entry is None:
            return True
        if self.legal is None:
            self.entry = None
            return True
        self._settle(entry, entry.add(words))
        return True

    def _settle(self, entry: MoveEntry, outcome: tuple[str, Any]) -> None:
        kind, value = outcome
        if kind == "move":
            self.entry = None
            self.send({"type": "move", "move": value.text()})
        elif kind == "pending":
            self.entry = entry
            if not self.interactive:
                self.say(self.prompt())
        elif value[0] == "connect.cannot" and self.pack is not None:
            # no legal move with this card: the server says why, as lc play does (the
            # engine's refusal in this client's language, a board pack's as a duel's), and
            # changes nothing
            action = "p" if value[1]["action"] == "play" else "d"
            self.send({"type": "move", "move": f"{action} {value[1]['card']} deck"})
        else:
            key, params = value
            params = {k: plain(v) if isinstance(v, str) else v for k, v in params.items()}
            self.say_error(self.cat(key, **params))

    def _moves(self) -> None:
        entry = self._my_turn()
        if entry is None:
            return
        self.say(self.cat("moves.title", count=len(entry.moves)))
        self.say(move_list(entry.moves, self.cat, self.out.width))

    def _pick(self, word: str, count: int) -> None:
        entry = self._my_turn()
        if entry is None:
            return
        number = int(word) if len(word) < 7 else 0
        if count > 1 or not 1 <= number <= len(entry.moves):
            self.say_error(self.cat("error.bad-number", number=number, count=len(entry.moves)))
            return
        self.entry = None
        self.send({"type": "move", "move": entry.moves[number - 1].text()})

    def _hint(self) -> None:
        if not self.room.get("hints"):
            self.say_error(self.cat("error.no-hints"))  # the room's own words for it
            return
        self.send({"type": "hint"})

    def _help(self) -> None:
        pack = self.pack
        cat = self.cat
        lines = [cat.get("connect.help",
                         "Commands in a room, with examples:\n"
                         "  p r5 deck     play r5 on your red row, then draw from the deck\n"
                         "  d r5 g        discard r5, then take the top card of the green pile\n"
                         "  p r5          play r5, then say where to draw\n"
                         "  moves         your legal moves, numbered; then 7 plays move 7\n"
                         "  hint          the room's suggestion (rooms opened with hints)\n"
                         "  say TEXT      chat with the room\n"
                         "  /join NAME    take a free seat; /leave gives it up\n"
                         "  /start        deal; /bot greedy seats a bot; /cont plays on\n"
                         "  /help         the room's commands\n"
                         "  board         draw the table again (so does an empty line)\n"
                         "  quit          leave; your seat stays yours (the token file)")]
        if pack is not None:
            lines += [cat(key) for key in rule_keys(pack)]
        for line in lines:
            self.say(line)

    # ----------------------------------------------------------------- the loop

    def settle(self) -> None:
        """A script (standard input not a terminal): wait until the server has answered
        every line sent (a ``ping``'s ``pong``), then, in a match where this seat is
        seated, until it is its turn or the match stops, as lc play reads a pipe's next
        line when a human is to move."""
        with self.changed:
            sent = self.ping()
            if sent is not None:  # every ping answered: so is every line before them
                self.changed.wait_for(lambda: self.pongs >= sent or self.closing.is_set(),
                                      timeout=SCRIPT_WAIT)
        with self.changed:
            self.changed.wait_for(lambda: self.closing.is_set() or not self._waiting())

    def _waiting(self) -> bool:
        """Seated in a match that is on, and another seat to move."""
        return (self.room.get("status") == "playing" and self.seat is not None
                and self.legal is None and self.view is not None)

    def run(self, read: Callable[[str], Optional[str]]) -> int:
        """Read lines with ``read(prompt)`` (None: the end of input) until ``quit``."""
        self.start()
        try:
            while True:
                if not self.interactive:
                    self.settle()
                with self.lock:
                    self.prompting = self.prompt()
                prompt = self.prompting if self.interactive else ""
                try:
                    line = read(prompt)
                finally:
                    with self.lock:
                        self.prompting = ""
                if line is None or not self.command(line):
                    break
        except KeyboardInterrupt:
            if self.interactive:
                self.out.print()
        except Exception as err:  # a bug here: one line, the seat kept by the server
            if os.environ.get("LOSTCITIES_DEBUG"):
                raise
            self.close()
            self.say_error(self.cat("error.internal", error=f"{type(err).__name__}: {err}"))
            return 1
        finally:
            self.close()
        self.say(self.cat.get("connect.bye",
                              "You left the room. Your seat stays yours: the same lc play "
                              "--connect takes it back."))
        return 0


#: below this many ms a seat's clock is shown as low (server/clocks.py ``LOW_SECONDS``)
LOW_MS = 10_000


def clock_time(ms: int) -> str:
    """A clock's time left: ``m:ss``, with tenths under 10 s (``7.4``), as the page shows it."""
    ms = max(0, ms)
    if ms < LOW_MS:
        return f"{ms // 100 / 10:.1f}"
    seconds = ms // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def clock_line(clock: dict[str, Any], names: Sequence[str], cat: Catalogue) -> Text:
    """The status line of the seats' clocks as the ``state`` message said them (each seat's
    time left then; the running one marked ``▶``, in red when low): ``Clock (5 min + 3 s
    a move): ▶ Ada 4:51 · Bob 5:00``. The server alone says who ran out of time."""
    control = clock.get("control") if isinstance(clock.get("control"), dict) else {}
    if control.get("kind") == "move":
        said = cat.get("connect.clock.move", "{seconds} s a move").format(
            seconds=int(control.get("seconds", 0)))
    else:
        said = cat.get("connect.clock.fischer", "{minutes} min + {increment} s a move").format(
            minutes=int(control.get("minutes", 0)), increment=int(control.get("increment", 0)))
    left = clock.get("left") if isinstance(clock.get("left"), list) else []
    running = clock.get("running")
    line = Text(cat.get("connect.clock", "Clock ({control}):").format(control=said) + " ",
                style="dim")
    for seat, name in enumerate(names[:len(left)]):
        ms = int(left[seat]) if type(left[seat]) is int else 0
        mark = "▶ " if seat == running else ""
        if seat:
            line.append(" · ", style="dim")
        style = "bold red" if seat == running and ms < LOW_MS else "bold" if seat == running \
            else ""
        line.append(f"{mark}{plain(name)[:24]} {clock_time(ms)}", style=style)
    return line


def _typed() -> str:
    """The line being typed at the prompt (readline's buffer), to show it again."""
    try:
        import readline
    except ImportError:  # pragma: no cover - no readline (Windows)
        return ""
    try:
        return readline.get_line_buffer()
    except Exception:  # noqa: BLE001 - not reading now
        return ""


def _cut(text: str, limit: int = 60) -> str:
    text = plain(text)
    return text if len(text) <= limit else text[:limit] + "..."


def _closed(err: BaseException) -> bool:
    """Whether ``err`` says the connection closed or broke (not a bug here)."""
    if isinstance(err, (OSError, EOFError)):
        return True
    try:
        from websockets.exceptions import WebSocketException
    except ImportError:  # pragma: no cover
        return False
    return isinstance(err, WebSocketException)


# --------------------------------------------------------------------------- the command

def websocket_opener() -> Callable[[str], Any]:
    """``websockets``' sync client with this client's bounds: ``open(url)`` -> a
    connection with ``send``, ``recv(timeout)`` and ``close``. Raises ImportError without
    the serve extra."""
    from websockets.sync.client import connect

    def open_socket(url: str) -> Any:
        socket = connect(url, open_timeout=OPEN_TIMEOUT, max_size=MESSAGE_BYTES,
                         close_timeout=2, user_agent_header="lostcities-lc-play")
        # the connection outlives any with block (the receiving thread holds it; close()
        # ends it): entered by hand, as websockets 17 asks of a connection kept open
        return socket.__enter__()

    return open_socket


def close_code(err: BaseException) -> Optional[int]:
    """The close code the server sent, when ``err`` is the connection closing with one."""
    received = getattr(err, "rcvd", None)  # websockets' ConnectionClosed: the close frame
    code = getattr(received, "code", None)
    return code if isinstance(code, int) else None


def refusal(err: BaseException, address: RoomAddress) -> str:
    """The one line saying why the room could not be reached."""
    if close_code(err) == ROOM_GONE:  # accepted, then closed: the server has no such room
        return f"{address.ws}: the server has no room {address.room}"
    status = getattr(getattr(err, "response", None), "status_code", None)
    if status is not None:
        if status in (403, 404):  # lc serve answers a missing room with 4404, never these
            return f"{address.ws}: no room socket there (HTTP {status}): is it an lc serve?"
        return f"{address.ws}: the server refused the connection (HTTP {status})"
    if isinstance(err, ConnectionRefusedError):
        return f"{address.ws}: nothing answers at {address.host}:{address.port} (is lc serve " \
               f"running?)"
    if isinstance(err, TimeoutError):
        return f"{address.ws}: no answer in {OPEN_TIMEOUT:g} s"
    reason = getattr(err, "strerror", None) or str(err) or type(err).__name__
    return f"{address.ws}: {plain(reason)[:200]}"


def run(url: str, *, lang: Optional[str], name: Optional[str], token: Optional[Path],
        player: Optional[str] = None) -> int:
    """``lc play --connect URL``: the exit code (0 after quit, EOF or Ctrl-C); a bad link,
    a refused room or a server not there is one ``lc: error:`` line, exit 2."""
    try:
        opener = websocket_opener()
    except ImportError:
        fail("lc play --connect needs the serve extra: pip install 'lostcities[serve]'",
             EXIT_USAGE)
    try:
        address = room_address(url)
        path = token if token is not None else TokenFile.default(data_dir(), address)
        tokens = TokenFile(path)
        tokens.check()
    except ConnectError as err:
        fail(str(err), err.code)
    if name is not None:
        name = plain(name).strip()
        if not name or len(name) > 24:
            fail("--name: give a name of 1 to 24 characters", EXIT_USAGE)
    if player is not None and not PLAYER_KEY.fullmatch(player):
        fail("--player: give the player key the server's first page showed (letters, "
             "digits, - and _, at most 100)", EXIT_USAGE)
    cat = Catalogue(lang or detect_lang())
    interactive = sys.stdin.isatty()
    client = RoomClient(address, cat, tokens, name=name or "", interactive=interactive,
                        connect=opener, player=player or "")
    try:
        client.open()
    except ConnectError as err:
        client.close()
        fail(str(err), err.code)
    except KeyboardInterrupt:
        client.close()
        return 0
    except Exception as err:  # noqa: BLE001 - refused, unreachable, a bad handshake
        client.close()
        fail(refusal(err, address), EXIT_USAGE)
    return client.run(_reader(client, interactive))


def _reader(client: RoomClient, interactive: bool) -> Callable[[str], Optional[str]]:
    """Lines from the terminal (with line editing) or from a pipe; None at the end."""
    if interactive:
        try:
            importlib.import_module("readline")  # line editing for input()
        except ImportError:  # pragma: no cover - Windows
            pass

        def read(prompt: str) -> Optional[str]:
            try:
                return input(prompt)
            except EOFError:
                client.out.print()
                return None
        return read

    def read_pipe(prompt: str) -> Optional[str]:
        line = sys.stdin.readline()
        return line.rstrip("\n") if line else None
    return read_pipe
