"""A game of ``lc play`` without a terminal: players, bot turns, commands, undo, saves.

:class:`Session` holds one match (a :class:`~lostcities.engine.GameState`), who
sits at each seat (a human or a named bot) and every move played. The front end
(``cli/play.py``) reads lines and passes them to :meth:`Session.command`, plays
bots with :meth:`Session.play_bot` and renders what comes back. Nothing here
prints or knows the language: replies carry :class:`Note` keys of the message
catalogue (:mod:`lostcities.i18n`) with their parameters.

Commands (``help`` in the catalogue lists them with examples)::

    p r5 deck   play r5, draw from the deck     d r5 g   discard r5, take the green pile's top
    p r5        play r5, then say where to draw (deck, a colour key or name)
    moves       the legal moves, numbered; a number plays that move
    hint        the strongest bot's suggestion  undo     take back your last turn (vs bots)
    save [FILE] where the game is saved         quit     save and stop

Save files (``lostcities-save/1``, docs/play.md) hold the settings and the moves;
:meth:`Session.load` re-plays them through the engine, which checks every move, and
plays every bot turn again to check that the bot did play the saved move (a bot's
choice depends only on the seed and the position), so an edited save is refused.
That check costs the bots' thinking again (tens of seconds for the search bot), so a
save carries a ``mac``: an HMAC-SHA256 of its content under a per-user key in the
data directory (:func:`load_save_key`). A save whose MAC checks was written by this
user's ``lc play`` and resumes without re-deriving the bot moves (the engine still
checks every move); any other save (edited, unsigned, from another machine) takes
the slow check and is signed again when it passes. lc play runs that check beside the
game (``check_bots_later``, :class:`SavedGame`, :mod:`lostcities.cli.botcheck`); a save
signed meanwhile names the moves still to check (``unchecked``), so a stopped check goes
on from there and the MAC never vouches for a move nobody checked.
A save is data: it never names code to import (a ``module:Class`` bot is imported on
resume only when the command line allows it again), its names are bounded, and it is
read through :mod:`lostcities.engine.safeio`. Every save is written atomically (a
temporary file, then a rename), only over the game's own save, and
:class:`SaveLock` keeps a second ``lc play`` off a save in use.
"""
from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import random
import stat
import time
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import (TYPE_CHECKING, Any, Callable, Collection, ContextManager, Literal, Mapping,
                    Optional, Sequence)

from lostcities.engine import (BOTS, DISCARD, BotError, IllegalMoveError, Move, SeatView,
                               SetupError, apply, continue_match, dumps, is_over, legal_moves,
                               load_pack, make_bot, new_game, why_refused)
from lostcities.engine.errors import InputError, LostCitiesError, PackError, RecordError
from lostcities.engine.tooling import (LIMITS, RECORD_FORMAT, check_path, engine_version,
                                       has_levels, kind_of, loads_json, names_code, read_text,
                                       shown_path, shown_value, strongest, strongest_with_levels)
from lostcities.i18n import LANGS, Catalogue
# UNSET and Partial lived here before the entry was one module: the old names keep working
from lostcities.entry import (UNSET, MoveEntry, Outcome, Partial,  # noqa: F401
                                   rule_keys, typed_words)

if TYPE_CHECKING:
    from lostcities.engine import Bot, GameState, RoundResult, RulePack

SAVE_FORMAT = "lostcities-save/1"
HUMAN: Literal["human"] = "human"
BOT: Literal["bot"] = "bot"
#: the longest player name (``--players human:NAME``, a save's ``label``), in characters
LABEL_CHARS = 40
#: the longest bot name (``bot:NAME``, a save's ``bot``), in characters
BOT_NAME_CHARS = 100
#: the longest save file name, in bytes: ``.NAME.PID.tmp`` and ``.NAME.lock`` are
#: written beside it and must fit the file system's 255
SAVE_NAME_BYTES = 240
#: the largest ``--seed`` (and a save's seed), in digits
SEED_DIGITS = 20
#: how many names a match's record tries (NAME-3.jsonl, NAME-3-2.jsonl...) before giving up
RECORD_NAME_TRIES = 100
#: the file in the data directory that holds the key saves are signed with
SAVE_KEY_NAME = "save.key"
#: the save key's length, in bytes (random, made once per data directory)
SAVE_KEY_BYTES = 32

#: the words players type, from the catalogues (:mod:`lostcities.entry`): command
#: words -> command, action words -> play or discard, the deck, the leader, a declined step
COMMANDS: Mapping[str, str] = typed_words().commands
ACTIONS: Mapping[str, str] = typed_words().actions
DECK_WORDS: tuple[str, ...] = tuple(sorted(typed_words().deck))
LEADER_WORDS: tuple[str, ...] = tuple(sorted(typed_words().leader))
NO_STEP_WORDS: tuple[str, ...] = tuple(sorted(typed_words().no_step))


class SessionError(LostCitiesError, ValueError):
    """Bad settings for a game (players, pack, save path): one line saying which."""


class SaveInUse(SessionError):
    """The save is open in another ``lc play`` (its :class:`SaveLock` is held);
    :attr:`pid`: that process's id, as its lock file says (``unknown`` if it does not)."""

    def __init__(self, message: str, pid: str = "unknown"):
        super().__init__(message)
        self.pid = pid


@dataclass(frozen=True)
class Player:
    """Who sits at a seat: a human, or a bot given by its registry name."""

    kind: Literal["human", "bot"]
    label: str
    bot: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"kind": self.kind, "label": self.label}
        if self.kind == BOT:
            out["bot"] = self.bot
        return out


@dataclass(frozen=True)
class Note:
    """One thing to tell the player: a catalogue key and its parameters.

    Parameters named ``colour`` or ``*_colour`` hold a pack colour's name, to be
    translated by the catalogue.
    """

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Turn:
    """A turn just played: by whom, the move, and the round or match it ended."""

    seat: int
    move: "Move"
    round: int
    taken: Optional[int] = None       # the card drawn from a discard pile (public)
    ended: Optional["RoundResult"] = None
    over: bool = False


ReplyKind = Literal["moved", "pending", "info", "error", "quit", "undone", "board"]


@dataclass(frozen=True)
class Reply:
    """What :meth:`Session.command` did: ``kind``, notes to show, turns played, moves listed."""

    kind: ReplyKind
    notes: tuple[Note, ...] = ()
    turns: tuple[Turn, ...] = ()
    moves: tuple["Move", ...] = ()


def _error(key: str, **params: Any) -> Reply:
    return Reply("error", (Note(key, params),))


# --------------------------------------------------------------------------- settings

def strongest_bot(pack: Optional["RulePack"] = None) -> str:
    """The default opponent, which also gives the hints: the engine registry's strongest
    bot (for ``pack``: on a board pack, the strongest there)."""
    return strongest(pack)


def parse_players(text: Optional[str], pack: "RulePack", *, you: str = "You",
                  player: str = "Player {n}", level: Optional[int] = None) -> list[Player]:
    """Read ``--players``: comma-separated ``human``, ``human:NAME``, ``bot``, ``bot:NAME``.

    ``bot`` alone is the strongest bot; a bare registry name (``greedy``) is a bot too.
    ``None`` means one human against the strongest bot at the pack's smallest table.
    Human labels: ``you`` for a lone human, ``player`` (with ``{n}``, the seat from 1)
    for several. ``level`` (``--level``) goes to every bot that takes one (``ismcts``
    becomes ``ismcts@LEVEL``), and a plain ``bot`` is then the strongest bot with
    levels. Raises :class:`SessionError` naming the bad item.
    """
    items = ["human"] + ["bot"] * (pack.min_players - 1) if text is None else \
        [item.strip() for item in text.split(",")]
    kinds: list[tuple[str, str]] = []
    for item in items:
        word, _, name = item.partition(":")
        word = word.strip().lower()
        if word == HUMAN:
            if name.strip():
                problem = label_problem(name.strip())
                if problem:
                    raise SessionError(f"--players: human:{_cut(name.strip())}: {problem}")
            kinds.append((HUMAN, name.strip()))
        elif word == BOT:
            bot = name.strip()
            problem = bot_name_problem(bot) if bot else ""
            if problem:
                raise SessionError(f"--players: bot:{_cut(bot)}: {problem}")
            kinds.append((BOT, bot or (_levelled_bot() if level is not None
                                       else strongest_bot(pack))))
        elif word in BOTS:
            kinds.append((BOT, word))
        else:
            raise SessionError(f"--players: {_cut(item)!r} is not a player; write human, human:NAME, "
                               f"bot or bot:NAME (bots: {', '.join(BOTS)}), comma-separated")
    if not pack.min_players <= len(kinds) <= pack.max_players:
        span = (str(pack.min_players) if pack.min_players == pack.max_players
                else f"{pack.min_players} to {pack.max_players}")
        raise SessionError(f"--players: {len(kinds)} player(s) given, {pack.id} is played by "
                           f"{span}")
    if level is not None:
        kinds = _with_level(kinds, level)
    humans = sum(kind == HUMAN for kind, _ in kinds)
    out: list[Player] = []
    for seat, (kind, name) in enumerate(kinds):
        if kind == BOT:
            try:
                make_bot(name, allow_import=True)  # typed on the command line
            except BotError as err:
                raise SessionError(f"--players: {err}") from None
            out.append(Player(BOT, bot_label(name), name))
        else:
            out.append(Player(HUMAN, name or (you if humans == 1 else player.format(n=seat + 1))))
    return _distinct(out)


def _levelled_bot() -> str:
    name = strongest_with_levels()
    if name is None:  # pragma: no cover - the registry has ismcts
        raise SessionError("--level: no built-in bot has levels")
    return name


def _with_level(kinds: list[tuple[str, str]], level: int) -> list[tuple[str, str]]:
    """``--level``: ``name@LEVEL`` for each bot seat whose bot takes a level."""
    out: list[tuple[str, str]] = []
    took = False
    for kind, name in kinds:
        if kind == BOT and has_levels(name.partition("@")[0]):
            if "@" in name:
                raise SessionError(f"--level {level}: bot:{name} gives its own level; "
                                   f"give it once")
            name = f"{name}@{level}"
            try:
                make_bot(name, allow_import=True)
            except BotError as err:
                raise SessionError(f"--level {level}: {err}") from None
            took = True
        out.append((kind, name))
    if not took:
        raise SessionError(f"--level {level}: no bot in this game has levels (bots with "
                           f"levels: {_levelled_bot()}, e.g. --players human,bot:"
                           f"{_levelled_bot()})")
    return out


def _distinct(players: list[Player]) -> list[Player]:
    """Labels made unique by the seat number (two greedy bots: ``greedy 1``, ``greedy 2``),
    still at most :data:`LABEL_CHARS` long."""
    labels = [p.label for p in players]
    return [Player(p.kind, f"{p.label[:LABEL_CHARS - 3]} {seat + 1}", p.bot)
            if labels.count(p.label) > 1 else p for seat, p in enumerate(players)]


def label_problem(label: str) -> str:
    """What is wrong with a player's name, or ``""``: 1 to :data:`LABEL_CHARS` printable
    characters (no control characters, no line breaks)."""
    if not label.strip():
        return "a name cannot be empty"
    if len(label) > LABEL_CHARS:
        return f"a name of {len(label):,} characters (at most {LABEL_CHARS})"
    if not label.isprintable():
        return "a name cannot hold control characters"
    return ""


def bot_name_problem(name: str) -> str:
    """What is wrong with a bot's name as text, or ``""`` (its length and characters;
    whether the bot exists is :func:`~lostcities.engine.make_bot`'s to say)."""
    if len(name) > BOT_NAME_CHARS:
        return f"a bot name of {len(name):,} characters (at most {BOT_NAME_CHARS})"
    if not name.isprintable() or any(c.isspace() for c in name):
        return "a bot name cannot hold spaces or control characters"
    return ""


def bot_label(name: str) -> str:
    """The name shown for the bot ``name``: the name, cut to :data:`LABEL_CHARS`."""
    return name if len(name) <= LABEL_CHARS else name[:LABEL_CHARS - 1] + "…"


def _cut(text: str, limit: int = LABEL_CHARS) -> str:
    """``text`` for an error message: control characters escaped, cut to ``limit``."""
    shown = text if text.isprintable() else repr(text)[1:-1]
    return shown if len(shown) <= limit else shown[:limit] + f"... ({len(text):,} chars)"


# --------------------------------------------------------------------------- files

def data_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Where saves and records go: $LOSTCITIES_DATA_DIR, else $XDG_DATA_HOME/lostcities,
    else ~/.local/share/lostcities."""
    if environ.get("LOSTCITIES_DATA_DIR"):
        return Path(environ["LOSTCITIES_DATA_DIR"])
    base = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "lostcities"


def new_save_path(data: Path, pack_id: str, seed: int) -> Path:
    """A fresh save file name in ``data/saves``: start time, pack and seed.

    Raises :class:`SessionError` when ``data`` is a path the file system cannot hold.
    """
    try:
        check_path(data / "saves" / ("x" * SAVE_NAME_BYTES), "the data directory")
    except InputError:
        raise SessionError(f"the data directory {shown_path(data)}: a path too long for the "
                           f"file system (set LOSTCITIES_DATA_DIR to a shorter one)") from None
    stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{pack_id[:64]}-{seed}"
    path = data / "saves" / f"{stem}.json"
    n = 2
    while path.exists():
        path = data / "saves" / f"{stem}-{n}.json"
        n += 1
    return path


def latest_save(data: Path) -> Optional[Path]:
    """The save file in ``data/saves`` played last, or None."""
    folder = data / "saves"
    try:
        saves = [p for p in folder.iterdir() if p.suffix == ".json" and p.is_file()]
    except OSError:
        return None
    return max(saves, key=lambda p: (p.stat().st_mtime, p.name), default=None)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never half a file.

    Raises :class:`OSError` without writing when ``path`` exists and is not a regular
    file (a folder, a device such as ``/dev/full``, a FIFO): the rename would replace it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise OSError(errno.EEXIST, f"{kind_of(mode)}, not a regular file; not replaced",
                      str(path))
    _write_through_temp(path, text, os.replace)


def write_new(path: Path, text: str) -> None:
    """Write ``text`` to a new file ``path``, whole (a temporary file, then a link):
    raises :class:`FileExistsError`, writing nothing, when ``path`` exists."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_through_temp(path, text, os.link)


def _write_through_temp(path: Path, text: str, place: Callable[[Path, Path], None]) -> None:
    """``text`` written and flushed to disk in :func:`temp_path`, then ``place(tmp, path)``;
    the temporary file is gone afterwards, whatever happened."""
    tmp = temp_path(path)
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        place(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _holds(path: Path, text: str) -> bool:
    """Whether ``path`` is a regular file holding exactly ``text`` (read within its size)."""
    try:
        if not path.is_file() or path.stat().st_size != len(text.encode("utf-8")):
            return False
        return path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False


def temp_path(path: Path, pid: Optional[int] = None) -> Path:
    """The temporary file :func:`write_atomic` writes beside ``path``: ``.NAME.PID.tmp``."""
    return path.with_name(f".{path.name}.{os.getpid() if pid is None else pid}.tmp")


def lock_path(path: Path) -> Path:
    """The lock file of the save ``path``: ``.NAME.lock`` beside it (see :class:`SaveLock`)."""
    return path.with_name(f".{path.name}.lock")




def check_save_target(path: Path, own: Optional[Path] = None, what: str = "--save") -> Path:
    """Refuse ``path`` as the file a game saves to, unless it is "this game's save".

    A game saves to a new file, or over ``own``: the save it was resumed from (the
    same file, under any name). Anything else that exists is refused, with one line:
    another file (another game's save included), a folder, a device, a FIFO. A name
    too long for the file system (with the ``.NAME.PID.tmp`` written beside it) is
    refused too. Raises :class:`SessionError`; ``what`` names the option.
    """
    try:
        check_path(path, what)
    except InputError as err:
        raise SessionError(str(err)) from None
    shown = shown_path(path)
    if len(os.fsencode(path.name)) > SAVE_NAME_BYTES:
        raise SessionError(f"{what} {shown}: a save file name longer than {SAVE_NAME_BYTES} "
                           f"bytes (lc play writes .NAME.PID.tmp beside it)")
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        if os.path.islink(path):
            raise SessionError(f"{what} {shown}: a link to nothing; give a new file "
                               f"name") from None
        return path  # a new file (a missing folder is said when the game saves)
    except OSError as err:
        raise SessionError(f"{what} {shown}: {err.strerror or err}") from None
    if not stat.S_ISREG(st.st_mode):
        raise SessionError(f"{what} {shown}: {kind_of(st.st_mode)}, not a regular file")
    if own is not None:
        try:
            mine = os.stat(own)
        except OSError:
            mine = None
        if mine is not None and (mine.st_dev, mine.st_ino) == (st.st_dev, st.st_ino):
            return path
    raise SessionError(f"{what} {shown}: the file exists; a game saves only to a new file "
                       f"or over its own save (to continue that game: lc play --resume "
                       f"{shown})")


class SaveLock:
    """An advisory lock on a save, held for the whole game, so that a second ``lc play``
    on the same save is refused instead of both writing it (``lc serve`` holds one on
    its rooms' database the same way, for the server's life).

    The lock is taken on ``.NAME.lock`` beside the save (:func:`lock_path`), not on the
    save itself: every save renames a new file over the old one, and a lock on the
    old file would go with it. The lock file holds the owner's process id, for the
    refusal's message. On acquiring, the temporary files a killed ``lc play`` left
    (``.NAME.PID.tmp``) are removed: no other process writes this save while we hold
    its lock. :meth:`release` (or leaving the ``with`` block) removes the lock file.
    A process killed with ``kill -9`` leaves the file but not the lock (the system
    drops it). Without ``fcntl`` (Windows) there is no lock and the temporary files
    are not cleaned (documented in docs/play.md).
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.lock_file = lock_path(self.path)
        self._fd: Optional[int] = None

    @classmethod
    def acquire(cls, path: Path) -> "SaveLock":
        """Lock the save ``path``, or raise :class:`SessionError`: ``FILE is open in another
        lc play (pid N)``, or why the lock file cannot be made."""
        lock = cls(path)
        lock._lock()
        return lock

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no lock (docs/play.md)
            return
        shown = shown_path(self.path)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            while True:
                fd = os.open(self.lock_file, flags, 0o644)
                try:
                    if not stat.S_ISREG(os.fstat(fd).st_mode):
                        raise SessionError(f"{shown_path(self.lock_file)}: not a regular file; "
                                           f"remove it to play {shown}")
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        pid = _read_pid(fd)
                        raise SaveInUse(f"{shown} is open in another lc play (pid "
                                        f"{pid}); finish or quit that one first",
                                        pid) from None
                except BaseException:
                    os.close(fd)
                    raise
                # the last holder may have removed the file between our open and lock
                try:
                    now = os.stat(self.lock_file, follow_symlinks=False)
                    here = os.fstat(fd)
                    same = (now.st_dev, now.st_ino) == (here.st_dev, here.st_ino)
                except FileNotFoundError:
                    same = False
                if same:
                    break
                os.close(fd)
            self._fd = fd
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as err:
            self.release()
            raise SessionError(f"cannot save to {shown}: {err.strerror or err}") from None
        self._clean_temps()

    def _clean_temps(self) -> None:
        """Remove the ``.NAME.PID.tmp`` files of this save (left by a killed process)."""
        folder = self.path.parent
        head, tail = f".{self.path.name}.", ".tmp"
        try:
            names = os.listdir(folder)
        except OSError:
            return
        for name in names:
            middle = name[len(head):-len(tail)] if name.startswith(head) and \
                name.endswith(tail) else ""
            if middle.isdigit():
                try:
                    if stat.S_ISREG(os.lstat(folder / name).st_mode):
                        os.unlink(folder / name)
                except OSError:
                    pass

    def release(self) -> None:
        """Remove the lock file and drop the lock (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.unlink(self.lock_file)  # while still holding it: see _lock
        except OSError:
            pass
        os.close(fd)

    def __enter__(self) -> "SaveLock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_pid(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return text if text.isdigit() else "unknown"


# --------------------------------------------------------------------------- the save key

def save_key_path(data: Path) -> Path:
    """Where the key that signs saves is kept: ``DATA/save.key``."""
    return Path(data) / SAVE_KEY_NAME


def load_save_key(data: Path) -> bytes:
    """The key this user's saves are signed with (:func:`save_mac`), made on first use.

    The key is :data:`SAVE_KEY_BYTES` random bytes (``os.urandom``) in
    :func:`save_key_path`, a file readable only by its owner (mode 0600). It is made
    whole in a temporary file, then linked into place, which fails if another
    process made the key meanwhile (theirs is then read): two ``lc play`` never
    overwrite each other's key, and nobody reads half a key. A key file of this user
    that cannot be the key (not 32 bytes, or readable by others, so maybe known) is
    replaced by a new key; saves signed by the old one then take the slow check once.
    Raises :class:`SessionError` without touching it when the file is not ours to
    replace: a symbolic link, a folder, a device, a FIFO, another user's file (or
    when the data directory cannot be written); the caller then plays without a key.
    """
    path = save_key_path(data)
    shown = shown_path(path)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    for _ in range(5):  # another process may make or replace the key between our steps
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            _make_key(path, replace=False)
            continue
        except OSError as err:
            if err.errno == errno.ELOOP or os.path.islink(path):
                raise SessionError(f"the save key {shown} is a symbolic link; remove it and "
                                   f"lc play makes a new key") from None
            if err.errno == errno.ENOENT:  # the data directory itself is missing
                _make_key(path, replace=False)
                continue
            raise SessionError(f"the save key {shown}: {err.strerror or err}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise SessionError(f"the save key {shown} is {kind_of(st.st_mode)}, not a "
                                   f"regular file; remove it and lc play makes a new key")
            if hasattr(os, "getuid") and st.st_uid != os.getuid():
                raise SessionError(f"the save key {shown} belongs to another user; remove it "
                                   f"and lc play makes a new key")
            key = os.read(fd, SAVE_KEY_BYTES + 1)
        finally:
            os.close(fd)
        private = os.name != "posix" or not st.st_mode & 0o077
        if len(key) == SAVE_KEY_BYTES and private:
            return key
        _make_key(path, replace=True)  # ours but not a key (cut short, or others can read it)
    raise SessionError(f"the save key {shown} keeps changing; is another program writing "
                       f"it?")


def _make_key(path: Path, *, replace: bool) -> None:
    """Write a new random key to ``path``: whole, mode 0600; only if there is none
    (``replace`` False: a link, which fails if the file exists) or over ours."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = temp_path(path)
        if os.path.lexists(tmp):
            os.unlink(tmp)  # a killed process of our pid's number left it
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
        try:
            try:
                os.write(fd, os.urandom(SAVE_KEY_BYTES))
                os.fsync(fd)
            finally:
                os.close(fd)
            if replace:
                os.replace(tmp, path)
            else:
                try:
                    os.link(tmp, path)
                except FileExistsError:
                    pass  # another lc play made it first: we read theirs
        finally:
            if os.path.lexists(tmp):
                os.unlink(tmp)
    except OSError as err:
        raise SessionError(f"cannot make the save key {shown_path(path)}: "
                           f"{err.strerror or err}") from None


def save_mac(content: Mapping[str, Any], key: bytes) -> str:
    """The ``mac`` of a save's content: HMAC-SHA256 under ``key``, in hex, of the
    canonical JSON of every field but ``mac`` (keys sorted, no spaces, ASCII escapes),
    after the format's name (a MAC of a save is never one of anything else)."""
    body = {name: value for name, value in content.items() if name != "mac"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, f"{SAVE_FORMAT}\0{text}".encode("ascii"), hashlib.sha256).hexdigest()


def signed_by(content: Mapping[str, Any], key: Optional[bytes]) -> bool:
    """Whether the save ``content`` carries a ``mac`` that checks under ``key``."""
    mac = content.get("mac")
    return (key is not None and isinstance(mac, str) and mac.isascii()
            and hmac.compare_digest(mac, save_mac(content, key)))


# --------------------------------------------------------------------------- the session

class Session:
    """One match of ``lc play``: the state, the seats, the moves, the save file."""

    def __init__(self, pack: "RulePack", players: Sequence[Player], seed: int, *,
                 lang: str = "en", save_path: Optional[Path] = None, pack_source: str = "",
                 allow_bots: Collection[str] = (), key: Optional[bytes] = None):
        """``allow_bots``: the ``module:Class`` bot names this game may import (those the
        person at the keyboard gave: ``--players``, ``--allow-bot``); any other such name
        at a seat is refused with :class:`SessionError`, nothing imported. ``key``: the
        save key (:func:`load_save_key`) the saves are signed with; None: unsigned."""
        self.pack = pack
        self.players: tuple[Player, ...] = tuple(players)
        self.seed = seed
        self.lang = lang
        self.save_path = save_path
        self.pack_source = pack_source or pack.id
        self.allow_bots = frozenset(allow_bots)
        self.key = key
        #: how a resumed game's bot moves were checked: ``"key"`` (the save's MAC),
        #: ``"bots"`` (every bot move derived again), ``"later"`` (to be derived again
        #: elsewhere: :attr:`unchecked`); ``""`` for a new game
        self.checked_by: Literal["key", "bots", "later", ""] = ""
        #: the saved game whose bot moves are still to be checked (``checked_by`` "later");
        #: until :meth:`bots_checked` the saves name those moves (``unchecked``)
        self.unchecked: Optional[SavedGame] = None
        try:
            self.state: GameState = new_game(pack, [p.label for p in players], seed)
        except SetupError as err:
            raise SessionError(str(err)) from None
        #: every move played, with the state before it (undo, saves)
        self.history: list[tuple[GameState, Move]] = []
        #: the turn being typed, waiting for its draw (or a pawn or step to choose)
        self.pending: Optional[Partial] = None
        self._bots: dict[object, Bot] = {}
        self._engine = engine_version()
        for seat, p in enumerate(self.players):
            if p.kind == BOT:
                try:
                    self.bot(p.bot, seat)
                except LostCitiesError as err:
                    raise SessionError(str(err)) from None

    # ----------------------------------------------------------------- who plays

    @property
    def to_move(self) -> Optional[Player]:
        """The player to move, or None when the match is over."""
        return None if is_over(self.state) else self.players[self.state.to_move]

    @property
    def humans(self) -> list[int]:
        """The seats of the human players."""
        return [seat for seat, p in enumerate(self.players) if p.kind == HUMAN]

    def viewer(self) -> Optional[int]:
        """The seat whose hand the table shows: the human to move, else the only human."""
        player = self.to_move
        if player is not None and player.kind == HUMAN:
            return self.state.to_move
        humans = self.humans
        return humans[0] if len(humans) == 1 else None

    def bot(self, name: str, key: object = None) -> "Bot":
        """The bot ``name`` built once per ``key`` (a seat has its own; hints share one)."""
        key = name if key is None else key
        if key not in self._bots:
            self._bots[key] = make_bot(name, allow_import=name in self.allow_bots)
        return self._bots[key]

    def _suggest(self, bot_name: str, key: object = None, check: bool = True) -> "Move":
        """The move ``bot_name`` would play for the player to move, from its observation
        (checked unless ``check`` is False: the caller plays it, which checks it)."""
        state = self.state
        rng = random.Random(f"lostcities-play:{self.seed}:{len(self.history)}")
        try:
            move = self.bot(bot_name, key).choose(SeatView(state, state.to_move, rng))
        except LostCitiesError:
            raise
        except Exception as err:  # a user's module:Class bot failing
            raise BotError(f"bot {bot_name!r} failed at seat {state.to_move}: "
                           f"{type(err).__name__}: {err}") from None
        refusal = why_refused(state, move) if check else None
        if refusal is not None:
            raise BotError(f"bot {bot_name!r} chose an illegal move: {refusal.text()}")
        return move

    def play_bot(self) -> Turn:
        """Play the turn of the bot to move (deterministic for a seed and position); the
        move is checked once, by the engine as it plays it."""
        player = self.to_move
        if player is None or player.kind != BOT:
            raise SessionError("it is not a bot's turn")
        try:
            return self._play(self._suggest(player.bot, self.state.to_move, check=False))
        except IllegalMoveError as err:
            raise BotError(f"bot {player.bot!r} chose an illegal move: {err}") from None

    def _play(self, move: "Move") -> Turn:
        before = self.state
        self.state = apply(before, move)
        self.history.append((before, move))
        self.pending = None
        ended = self.state.finished[-1] if len(self.state.finished) > len(before.finished) \
            else None
        self.autosave()
        return Turn(before.to_move, move, before.round, self._taken(before, move), ended,
                    is_over(self.state))

    def _taken(self, before: GameState, move: "Move") -> Optional[int]:
        """The card ``move`` took from a discard pile in ``before`` (None: the deck)."""
        if move.draw is None or move.draw < 0:
            return None
        if move.action == DISCARD and self.pack.cards.colour_of[move.card] == move.draw:
            return move.card  # retaken
        return before.piles[move.draw][-1]

    def last_turns(self, count: int) -> list[Turn]:
        """The last ``count`` turns played in the round under way, oldest first (what a
        resumed game recalls under its first table)."""
        turns = []
        for before, move in reversed(self.history):
            if len(turns) >= count or before.round != self.state.round \
                    or len(before.finished) != len(self.state.finished):
                break
            turns.append(Turn(before.to_move, move, before.round, self._taken(before, move)))
        return turns[::-1]

    # ----------------------------------------------------------------- commands

    def command(self, line: str) -> Reply:
        """Carry out one line typed by the human to move (see the module doc)."""
        words = line.split()
        player = self.to_move
        if player is None or player.kind != HUMAN:
            return _error("error.not-human-turn")
        entry = self.entry()
        if not words:
            enter = None if self.pending is None else entry.enter(self.pending)
            return Reply("board") if enter is None else self._outcome(enter)  # Enter: deck
        head = words[0].lower()
        if self.pending is not None and all(entry.detail(w) is not None for w in words):
            return self._outcome(entry.add(self.pending, words))
        name = COMMANDS.get(head)
        if name is not None:
            return getattr(self, f"_cmd_{name}")(words[1:])
        if head.isdigit() and self.pending is not None and not entry.asks_draw(self.pending):
            number = int(head) if len(head) < 7 else 0  # one of the numbered choices asked
            return self._outcome(entry.choose(self.pending, number, len(words)))
        if head.isdigit():
            return self._pick(int(head), len(words))
        if head in ACTIONS:
            return self._outcome(entry.start(ACTIONS[head], words[1:]))
        if len(words) == 1 and entry.draw_word(head) is not None:
            return _error("error.card-first", draw=words[0])
        if entry.card(head) is not None:
            return _error("error.action-first", card=head)
        return _error("error.unknown", text=line.strip())

    def entry(self, cat: Optional[Catalogue] = None) -> MoveEntry:
        """The typed-move entry of the position (:mod:`lostcities.entry`), saying
        things in ``cat``'s language (by default the game's)."""
        return MoveEntry(self.pack, self._legal(), cat or Catalogue(self.lang))

    def _outcome(self, outcome: Outcome) -> Reply:
        """What typing gave: the move played, the turn left pending (a refused line leaves
        the pending turn as it was), or why not, the engine's reason when it has one."""
        if outcome.kind == "move":
            assert outcome.move is not None
            return self._finish(outcome.move)
        if outcome.kind == "pending":
            assert outcome.partial is not None
            self.pending = outcome.partial
            key, params = self.entry().pending_note(outcome.partial)
            return Reply("pending", (Note(key, params),))
        note = Note(outcome.key, dict(outcome.params))
        if outcome.ask is not None:  # the rules' own reason (a key of theirs), if any
            note = self.explain(outcome.ask) or note
        return Reply("error", (note,))

    def pending_moves(self) -> list["Move"]:
        """The legal moves that complete the turn being typed."""
        return [] if self.pending is None else self.entry().fits(self.pending)

    def pending_choices(self, leader: Optional[str] = None) -> str:
        """What is left to say for the turn being typed: the draws (``deck, y, g``) or,
        once the draw is known, the rest of each fitting move, a leader pawn marked with
        ``leader`` (by default the game language's word: ``pawn=0 (leader) deck, pawn=1
        deck``)."""
        return "" if self.pending is None else self.entry().choices(self.pending, leader)

    def _finish(self, move: "Move") -> Reply:
        return Reply("moved", turns=(self._play(move),))

    def _legal(self) -> list["Move"]:
        return legal_moves(self.state)

    def _pick(self, number: int, words: int) -> Reply:
        legal = self._legal()
        if words > 1 or not 1 <= number <= len(legal):
            return _error("error.bad-number", number=number, count=len(legal))
        return self._finish(legal[number - 1])

    def _cmd_help(self, args: list[str]) -> Reply:
        notes = [Note("help", {"keys": " ".join(self.pack.cards.keys)})]
        return Reply("info", tuple(notes + [Note(key) for key in rule_keys(self.pack)]))

    def _cmd_board(self, args: list[str]) -> Reply:
        return Reply("board")

    def _cmd_moves(self, args: list[str]) -> Reply:
        return Reply("info", (Note("moves.title", {"count": len(self._legal())}),),
                     moves=tuple(self._legal()))

    def _cmd_hint(self, args: list[str]) -> Reply:
        bot = strongest_bot(self.pack)
        move = self._suggest(bot)
        return Reply("info", (Note("hint", {"move": move.text(), "bot": bot}),))

    def _cmd_undo(self, args: list[str]) -> Reply:
        humans = self.humans
        if len(humans) != 1 or len(self.players) == 1:
            return _error("error.undo-hotseat")
        seat = humans[0]
        index = next((i for i in range(len(self.history) - 1, -1, -1)
                      if self.history[i][0].to_move == seat), None)
        if index is None:
            return _error("error.undo-nothing")
        taken = [move.text() for _, move in self.history[index:]]
        self.state = self.history[index][0]
        del self.history[index:]
        self.pending = None
        self.autosave()
        # count: the turns taken back after yours (the catalogue's plural forms say them)
        return Reply("undone", (Note("undone", {"move": taken[0], "count": len(taken) - 1}),))

    def _cmd_save(self, args: list[str]) -> Reply:
        if len(args) > 1:
            return _error("error.save-args")
        try:
            if args:
                path = check_save_target(Path(args[0]).expanduser(), self.save_path, "save")
                write_atomic(path, self.dumps())
            else:
                path = self.autosave_or_fail()
        except (OSError, SessionError) as err:
            return _error("error.save-failed", reason=str(err))
        return Reply("info", (Note("saved", {"path": str(path)}),))

    def _cmd_quit(self, args: list[str]) -> Reply:
        return Reply("quit")

    # ----------------------------------------------------------------- explanations

    def explain(self, move: "Move") -> Optional[Note]:
        """Why ``move`` is refused, as a note (None when it is legal).

        The engine's one check (:func:`lostcities.engine.why_refused`) names the rule the
        move breaks: a catalogue key and its parameters, which the front end says in the
        player's language.
        """
        refusal = why_refused(self.state, move)
        return None if refusal is None else Note(refusal.key, dict(refusal.params))

    # ----------------------------------------------------------------- match end

    def continue_match(self) -> None:
        """Play on for one more round (CONT), when the pack allows it."""
        self.state = continue_match(self.state)
        self.autosave()

    def write_record(self, folder: Path) -> Path:
        """Write the finished match as a ``lostcities-record/1`` file in ``folder``, at
        once, whatever comes after (CONT continues the match; the save stays). Returns
        the record's path.

        The record is named like the save file and by the match's rounds, as the room
        server names its records (``NAME-3.jsonl``; after CONT, ``NAME-4.jsonl``), so a
        continued match never overwrites its first record. An existing file is never
        written over: one holding this very record (a resumed game whose match end was
        recorded already) is the record; another file moves the name on
        (``NAME-3-2.jsonl``)."""
        stem = self.save_path.stem if self.save_path else f"{self.pack.id}-{self.seed}"
        text = dumps(self.state) + "\n"
        name = f"{stem}-{len(self.state.finished)}"
        for n in range(1, RECORD_NAME_TRIES + 1):
            path = folder / (f"{name}.jsonl" if n == 1 else f"{name}-{n}.jsonl")
            try:
                write_new(path, text)
                return path
            except FileExistsError:
                if _holds(path, text):
                    return path
        raise OSError(errno.EEXIST, f"{RECORD_NAME_TRIES} files named {name}*.jsonl exist "
                                    f"already", str(folder))

    def drop_save(self) -> None:
        """Delete the save file: the match is over and recorded, nobody continues it."""
        if self.save_path is not None and self.save_path.exists():
            self.save_path.unlink()

    # ----------------------------------------------------------------- saves

    def to_dict(self) -> dict[str, Any]:
        """The save file's content (``lostcities-save/1``, docs/play.md), with its
        ``mac`` when the session has a key."""
        content: dict[str, Any] = {
            "format": SAVE_FORMAT, "pack": self.pack.id, "pack_source": self.pack_source,
            "seed": self.seed, "players": [p.to_dict() for p in self.players],
            "lang": self.lang, "rounds": self.state.rounds_total,
            "moves": [move.text() for _, move in self.history], "engine": self._engine}
        if self.key is not None:
            span = self.unchecked_span()
            if span is not None:
                content["unchecked"] = list(span)
            content["mac"] = save_mac(content, self.key)
        return content

    def unchecked_span(self) -> Optional[tuple[int, int]]:
        """The moves of the history whose bot moves are still to check (``first``,
        ``last``: indices, the last excluded), or None. An undo that took some back leaves
        fewer; the moves played since the resume are the bots' own."""
        if self.unchecked is None:
            return None
        last = min(self.unchecked.last, len(self.history))
        first = min(self.unchecked.first, last)
        return None if first == last else (first, last)

    def checked_up_to(self, done: int) -> None:
        """The check has derived the saved bot moves before index ``done`` again: the next
        save (signed) keeps only the rest to check, so a stopped check goes on from there."""
        if self.unchecked is not None and done > self.unchecked.first:
            self.unchecked = replace(self.unchecked, first=min(done, self.unchecked.last))

    def bots_checked(self) -> None:
        """The saved bot moves were derived again and agree (:meth:`SavedGame.check_bots`):
        the saves carry no ``unchecked`` from now on, starting with one at once."""
        self.unchecked = None
        self.checked_by = "bots"
        self.autosave()

    def dumps(self) -> str:
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n"

    def autosave(self) -> None:
        """Save to :attr:`save_path` (if any); a failure here never stops the game."""
        try:
            self.autosave_or_fail()
        except (OSError, SessionError):
            pass

    def autosave_or_fail(self) -> Path:
        """Save to :attr:`save_path`; raise :class:`SessionError` saying why it failed."""
        if self.save_path is None:
            raise SessionError("this game has no save file")
        try:
            write_atomic(self.save_path, self.dumps())
        except OSError as err:
            raise SessionError(f"cannot save to {self.save_path}: {err.strerror or err}") from None
        return self.save_path

    @classmethod
    def load(cls, path: Path, *, allow_bots: Collection[str] = (), key: Optional[bytes] = None,
             checking: Optional[Callable[[], ContextManager[Any]]] = None,
             allow_outside: bool = False, check_bots_later: bool = False) -> "Session":
        """Resume the game saved in ``path``, re-playing every move through the engine.

        Unless the save's ``mac`` checks under ``key`` (:func:`signed_by`: this user's
        ``lc play`` wrote it as it is), every bot turn is played again and must give
        the saved move (bots are deterministic for a seed and a position): a save whose
        bot moves or seed were edited is refused. ``checking`` (lc play's spinner) is
        entered for that slow check only; :attr:`checked_by` says which check ran. The
        session keeps ``key``, so its next save is signed again. A seat whose bot is a
        ``module:Class`` name is refused unless that name is in ``allow_bots`` (the command line's ``--allow-bot``):
        a save never imports code by itself. ``allow_outside`` (the command line's
        ``--allow-outside``) lets the pack's ``extends`` leave its folder: a game started
        with it resumes only when it is given again. ``check_bots_later``: a save that
        needs the slow check is resumed at once (its moves through the engine only) and
        the check is left to the caller (:attr:`unchecked`, :meth:`SavedGame.check_bots`;
        lc play runs it in another process while the game goes on); its saves name the
        moves still to check (``unchecked``, under the MAC) until :meth:`bots_checked`.
        A save of ours with ``unchecked`` has only those bot moves derived again.
        Raises :class:`RecordError` with one
        line naming the file and what is wrong (not a regular file, too large, not
        JSON, not a save, a field of the wrong type or size, a bot not allowed, a
        move the rules refuse, a bot move that is not the bot's).
        """
        where = shown_path(path)
        try:
            text = read_text(path, LIMITS.save_bytes)
            data = loads_json(text, f"{where}: not a lostcities save")
        except InputError as err:
            raise RecordError(str(err)) from None
        fmt = data.get("format") if isinstance(data, dict) else None
        if fmt == RECORD_FORMAT:
            raise RecordError(f"{where}: a finished game's record, not a save; "
                              f"lc replay {where} shows it")
        if fmt != SAVE_FORMAT:
            raise RecordError(f"{where}: not a {SAVE_FORMAT} file (format is "
                              f"{'missing' if fmt is None else repr(fmt)})")
        _check_fields(data, where)
        for seat, p in enumerate(data["players"]):
            if p["kind"] == BOT and names_code(p["bot"]) and p["bot"] not in allow_bots:
                raise RecordError(f"{where}: players[{seat}] ({p['label']}) is the bot "
                                  f"{p['bot']!r}, code to import; a save imports none: if you "
                                  f"trust it, resume with --allow-bot {p['bot']}")
        source = data.get("pack_source") or data["pack"]
        try:
            pack = load_pack(source, allow_outside=allow_outside)
        except PackError as err:
            trust = "; if you trust it, resume with --allow-outside" \
                if err.code == "LC025" and not allow_outside else ""
            raise RecordError(f"{where}: pack {shown_value(source)}: {err}{trust}") from None
        except LostCitiesError as err:
            raise RecordError(f"{where}: pack {shown_value(source)}: {err}") from None
        if pack.id != data["pack"]:
            raise RecordError(f"{where}: the game is of pack {data['pack']!r}, {source} is now "
                              f"pack {pack.id!r}")
        players = [Player(p["kind"], p["label"], p.get("bot", "")) for p in data["players"]]
        try:
            session = cls(pack, players, data["seed"], lang=data.get("lang", "en"),
                          save_path=Path(path), pack_source=source, allow_bots=allow_bots,
                          key=key)
        except SessionError as err:
            raise RecordError(f"{where}: {err}") from None
        moves, signed = data["moves"], signed_by(data, key)
        if not signed:
            first, last = 0, len(moves)         # anyone's: every bot move is checked
        elif "unchecked" in data:
            first, last = data["unchecked"]     # ours, saved while its check was unfinished
        else:
            first = last = len(moves)           # ours: checked when it was written
        if first == last:  # nothing to derive again
            session.checked_by = "key" if signed else "bots"
            session._replay(moves, data["rounds"], where, check=range(0))
        elif check_bots_later:
            session.checked_by = "later"
            session.unchecked = SavedGame(where, source, allow_outside, session.players,
                                          data["seed"], tuple(moves), data["rounds"],
                                          tuple(allow_bots), first, last)
            session._replay(moves, data["rounds"], where, check=range(0))
        else:
            session.checked_by = "bots"
            with checking() if checking is not None else nullcontext():
                session._replay(moves, data["rounds"], where, check=range(first, last))
        return session

    def _replay(self, moves: Sequence[str], rounds: int, where: str, *, check: range,
                progress: Optional[Callable[[int, int], None]] = None) -> None:
        """Play the saved ``moves`` through the engine (which refuses an illegal one);
        for the moves whose index is in ``check``, also derive the bot's move again and
        refuse one that differs, calling ``progress(moves done, check.stop)`` after each."""
        for i, text in enumerate(moves, 1):
            state = self.state
            try:
                if is_over(state):
                    state = continue_match(state)
                move = Move.parse(text, self.pack)
                self.state = state
                player = self.players[state.to_move]
                if i - 1 in check and player.kind == BOT:  # the bot's own, or edited
                    played = self._suggest(player.bot, state.to_move)
                    if played != move:
                        raise RecordError(
                            f"{where}: move {i} (round {state.round}): the save says "
                            f"{player.label} played {move.text()!r} but that bot plays "
                            f"{played.text()!r} here: the save was edited (its moves or its "
                            f"seed) and cannot be resumed")
                    if progress is not None:
                        progress(i, check.stop)
                self.state = apply(state, move)
            except RecordError:
                raise
            except LostCitiesError as err:
                raise RecordError(f"{where}: move {i} (round {state.round}): {err}") from None
            self.history.append((state, move))
        while is_over(self.state) and self.state.rounds_total < rounds:
            try:
                self.state = continue_match(self.state)
            except LostCitiesError as err:
                raise RecordError(f"{where}: rounds: {err}") from None


@dataclass(frozen=True)
class SavedGame:
    """A resumed save's settings and moves as plain data (it can be sent to another
    process): what :meth:`check_bots` needs to derive its bot moves again."""

    where: str                      # the save file, as said in messages
    pack_source: str
    allow_outside: bool
    players: tuple[Player, ...]
    seed: int
    moves: tuple[str, ...]
    rounds: int
    allow_bots: tuple[str, ...]
    #: the saved moves still to check: indices ``first`` to ``last`` (excluded); the
    #: moves before ``first`` were checked already (a save signed with ``unchecked``)
    first: int = 0
    last: int = 0

    def check_bots(self, progress: Optional[Callable[[int, int], None]] = None) -> None:
        """Play the moves again from the deal, the bot moves from ``first`` to ``last``
        derived again: the slow check of :meth:`Session.load`. Raises :class:`RecordError`
        (one line) at the first bot move that is not the bot's; ``progress(moves done,
        last)`` after each."""
        try:
            pack = load_pack(self.pack_source, allow_outside=self.allow_outside)
            game = Session(pack, self.players, self.seed, allow_bots=self.allow_bots)
        except (LostCitiesError, SessionError) as err:
            raise RecordError(f"{self.where}: {err}") from None
        game._replay(self.moves, self.rounds, self.where, check=range(self.first, self.last),
                     progress=progress)


def _check_fields(data: dict[str, Any], where: str) -> None:
    """Raise :class:`RecordError` unless the save's fields have their types."""
    def bad(name: str, what: str) -> RecordError:
        return RecordError(f"{where}: {name}: expected {what}")

    for name, kind, what in (("pack", str, "a pack id"), ("seed", int, "an integer"),
                             ("rounds", int, "an integer"), ("players", list, "a list"),
                             ("moves", list, "a list of moves")):
        if not isinstance(data.get(name), kind) or isinstance(data.get(name), bool):
            raise bad(name, what)
    if len(str(abs(data["seed"]))) > SEED_DIGITS:
        raise bad("seed", f"an integer of at most {SEED_DIGITS} digits")
    if not isinstance(data.get("pack_source", ""), str):
        raise bad("pack_source", "text")
    source = data.get("pack_source", "")
    if source:
        try:
            check_path(source, "pack_source")
        except InputError as err:
            raise RecordError(f"{where}: {err}") from None
    lang = data.get("lang", "en")
    if lang not in LANGS:
        raise RecordError(f"{where}: lang: {_cut(str(lang))!r} is not a language of lc play "
                          f"(expected {' or '.join(LANGS)})")
    for i, p in enumerate(data["players"]):
        if not (isinstance(p, dict) and p.get("kind") in (HUMAN, BOT)
                and isinstance(p.get("label"), str)
                and (p["kind"] == HUMAN or isinstance(p.get("bot"), str) and p["bot"])):
            raise bad(f"players[{i}]", '{"kind": "human" or "bot", "label": text, '
                                       '"bot": a bot name for bots}')
        problem = label_problem(p["label"]) or (p["kind"] == BOT and bot_name_problem(p["bot"]))
        if problem:
            field = "label" if label_problem(p["label"]) else "bot"
            raise RecordError(f"{where}: players[{i}].{field}: {problem}")
    for i, m in enumerate(data["moves"]):
        if not isinstance(m, str):
            raise bad(f"moves[{i}]", "a move in the text form, e.g. 'p r5 deck'")
    if "unchecked" in data:
        span = data["unchecked"]
        if not (isinstance(span, list) and len(span) == 2
                and all(isinstance(n, int) and not isinstance(n, bool) for n in span)
                and 0 <= span[0] <= span[1] <= len(data["moves"])):
            raise bad("unchecked", f"[FROM, TO], the saved moves still to check, "
                                   f"0 <= FROM <= TO <= {len(data['moves'])}")
