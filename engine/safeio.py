"""Bounded reading of untrusted files: saves, records, packs and paths from the command line.

Everything lostcities reads from a file is data, and data may be hostile. The
helpers here are the one place that opens such a file or parses its JSON:

- :func:`check_path` refuses a path whose name the file system could not hold
  (a component over 255 bytes, a whole path over 4,096), before any system call
  can fail with ``File name too long``.
- :func:`open_regular` opens without blocking (a FIFO does not hang) and refuses
  anything that is not a regular file: a directory, a device such as
  ``/dev/zero`` or ``/dev/full``, a FIFO, a socket.
- :func:`read_text` reads at most a given number of bytes and refuses a longer
  file without reading the rest; :func:`read_lines` does the same line by line.
- :func:`loads_json` parses JSON with the nesting depth, the length of a number
  and NaN/Infinity refused; :func:`lone_surrogate` finds a string in it that holds a
  lone surrogate (a ``"\\ud800"`` escape: valid JSON, but no character).
- :func:`plain_text` is the one rule for showing text that came from data (a name, a
  chat line, a pack's strings) in a terminal, a page or a log, and
  :func:`escape_hidden` its counterpart for a JSON or YAML document being written.

Every refusal is an :class:`~lostcities.engine.errors.InputError` whose text is
one line: the file (or value) and what is wrong. :data:`LIMITS` holds the caps;
docs/limits.md lists them with the others.
"""
from __future__ import annotations

import functools
import json
import math
import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, TextIO

from .errors import InputError


@dataclass(frozen=True)
class Limits:
    """The caps applied to files and values read from outside."""

    #: one save file (the largest real save is a few kB)
    save_bytes: int = 1 << 20
    #: one line of a record file (one match; a long board match is ~60 kB)
    record_line_bytes: int = 4 << 20
    #: a whole record file read at once (lc replay reads line by line instead)
    record_bytes: int = 256 << 20
    #: one file of a balance run folder (run.json, a batch's results)
    run_file_bytes: int = 1 << 20
    #: nesting of JSON arrays and objects (a record needs 4)
    json_depth: int = 32
    #: digits of a number written in a file (a seed needs at most 20)
    number_digits: int = 64
    #: one component of a path, in bytes (the usual file-system limit)
    name_bytes: int = 255
    #: a whole path, in bytes (Linux's PATH_MAX)
    path_bytes: int = 4096


LIMITS = Limits()


def check_path(path: str | os.PathLike[str], what: str = "") -> Path:
    """``path`` as a :class:`Path`, or :class:`InputError` if its name is empty or too long.

    ``what`` names where the path came from (``--save``, ``extends``) in the error.
    """
    text = os.fspath(path)
    label = f"{what} " if what else ""
    if not text:
        raise InputError(f"{label}'': an empty path; give a file name")
    if "\0" in text:
        raise InputError(f"{label}{shown_value(text, 60)}: a path cannot hold a NUL character")
    raw = os.fsencode(text)
    if len(raw) > LIMITS.path_bytes:
        raise InputError(f"{label}{shown_value(text, 60)}: path longer than {LIMITS.path_bytes:,} bytes")
    for part in raw.split(b"/"):
        if len(part) > LIMITS.name_bytes:
            raise InputError(f"{label}{shown_value(text, 60)}: a file or folder name longer than "
                             f"{LIMITS.name_bytes} bytes")
    return Path(text)


#: a path longer than this is cut in error messages (a usual save path is about 70 characters)
SHOWN_CHARS = 200


def shown_value(text: str, limit: int = 40) -> str:
    """A word or value from outside as an error message quotes it: ``repr`` (so control
    characters show escaped), cut after ``limit`` characters with the length said."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text):,} chars)"


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path as an error message shows it: escaped, and cut when it is long."""
    text = os.fspath(path)
    if text.isprintable() and len(text) <= SHOWN_CHARS:
        return text
    return shown_value(text, SHOWN_CHARS)


#: the Unicode categories of the characters data text never shows as they are: controls
#: (C0, DEL and C1: ESC starts every terminal escape sequence, U+009B is a one-character
#: CSI on some terminals), format characters (the bidirectional embeddings, overrides and
#: isolates, which show text in another order than it is written, and the invisible ones:
#: zero-width spaces and joiners, soft hyphens) and lone surrogates (a YAML or JSON
#: ``\ud800`` escape gives one, and no output can encode it)
HIDDEN = frozenset(("Cc", "Cf", "Cs"))
#: the line and paragraph separators (U+2028, U+2029), which break a line as LF does
BREAKS = frozenset(("Zl", "Zp"))


def plain_text(text: str, keep_newlines: bool = False) -> str:
    """``text`` from data as the CLI, the server and the rulebooks show it: a :data:`HIDDEN`
    character is removed, but a tab or a line break of any kind (CR, VT, FF, NEL, the
    :data:`BREAKS`) becomes a space, so words stay apart; a line feed stays one when
    ``keep_newlines``. Every other character is kept as written (letters of any script,
    no-break spaces, private-use and not yet assigned code points)."""
    if text.isprintable():  # none of those: the common case, at once
        return text
    out = []
    for ch in text:
        if is_hidden(ch):
            if ch.isspace():
                out.append("\n" if keep_newlines and ch == "\n" else " ")
        else:
            out.append(ch)
    return "".join(out)


def is_hidden(ch: str) -> bool:
    """Whether :func:`plain_text` would not show the character ``ch`` as it is."""
    category = unicodedata.category(ch)
    return category in HIDDEN or category in BREAKS


@functools.lru_cache(maxsize=1)
def _beyond_ascii() -> "re.Pattern[str]":
    """The characters a JSON or YAML writer may leave raw that :func:`escape_hidden` looks
    at: DEL and beyond (both writers escape C0 in a quoted string themselves); compiled
    on first use (``re`` is not imported at start-up)."""
    return re.compile("[\x7f-\U0010ffff]")


def _escape(yaml: bool, found: Any) -> str:
    """The character ``found`` as written in a JSON (``yaml``: YAML) string: escaped when
    :func:`is_hidden` says so, else as it is."""
    ch = found.group()
    if not is_hidden(ch):
        return ch
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    if yaml:
        return f"\\U{code:08x}"
    high, low = divmod(code - 0x10000, 0x400)  # beyond the BMP, JSON writes a surrogate pair
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def escape_hidden(document: str, yaml: bool = False) -> str:
    """A JSON document (``yaml``: a YAML one whose strings holding such characters are
    double-quoted) with every character that :func:`is_hidden` says written as the
    format's escape (``\\uXXXX``; beyond U+FFFF a surrogate pair in JSON, ``\\UXXXXXXXX``
    in YAML), which it reads back as the same character: the document shows as written
    in a terminal and loads back the same. Both writers escape C0 themselves."""
    if document.isascii() and "\x7f" not in document:
        return document
    return _beyond_ascii().sub(functools.partial(_escape, yaml), document)


def open_regular(path: str | os.PathLike[str], what: str = "") -> int:
    """Open ``path`` for reading and return the file descriptor, if it is a regular file.

    Opened with ``O_NONBLOCK`` so that a FIFO does not block; refused, with one
    line, when it is missing, unreadable, a directory, a device, a FIFO or a socket.
    """
    where = shown_path(check_path(path, what))
    label = f"{what} " if what else ""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise InputError(f"{label}{where}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{label}{where}: is a folder, not a file") from None
    except OSError as err:
        try:  # a socket cannot be opened at all (ENXIO): say what it is
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise InputError(f"{label}{where}: {_kind_of(mode)}, not a regular file") from None
        raise InputError(f"{label}{where}: cannot be read: {err.strerror or err}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"{label}{where}: {_kind_of(mode)}, not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words: ``a folder``, ``a pipe (FIFO)``,
    ``a socket``, ``a device``, ``a symbolic link``, ``a regular file``, ``a special file``."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a special file"


def _kind_of(mode: int) -> str:
    return f"is {kind_of(mode)}"


def read_bytes(path: str | os.PathLike[str], max_bytes: int, what: str = "") -> bytes:
    """The content of the regular file ``path``, refused if larger than ``max_bytes``."""
    fd = open_regular(path, what)
    with os.fdopen(fd, "rb") as stream:
        raw = stream.read(max_bytes + 1)
    if len(raw) > max_bytes:
        label = f"{what} " if what else ""
        raise InputError(f"{label}{shown_path(path)}: larger than {max_bytes:,} bytes; "
                         f"refused without reading it all")
    return raw


def read_text(path: str | os.PathLike[str], max_bytes: int, what: str = "") -> str:
    """The UTF-8 text of the regular file ``path`` (see :func:`read_bytes`)."""
    raw = read_bytes(path, max_bytes, what)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        label = f"{what} " if what else ""
        raise InputError(f"{label}{shown_path(path)}: not UTF-8 text (byte {err.start + 1})"
                         ) from None


def open_text(path: str | os.PathLike[str], what: str = "") -> TextIO:
    """The regular file ``path`` opened as UTF-8 text (for :func:`read_lines`)."""
    return os.fdopen(open_regular(path, what), "r", encoding="utf-8", newline="")


def read_lines(stream: TextIO, name: str, max_line: int = LIMITS.record_line_bytes
               ) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for each line of ``stream``, refusing a line over ``max_line``
    characters without reading the rest of it (``/dev/zero`` through a pipe stops here)."""
    lineno = 0
    try:
        while True:
            line = stream.readline(max_line + 1)
            if not line:
                return
            lineno += 1
            if len(line) > max_line and not line.endswith("\n"):
                raise InputError(f"{name}:{lineno}: a line longer than {max_line:,} characters")
            yield lineno, line
    except UnicodeDecodeError as err:
        raise InputError(f"{name}:{lineno + 1}: not UTF-8 text ({err.reason})") from None


def loads_json(text: str, where: str) -> Any:
    """Parse the JSON ``text``, refusing deep nesting, over-long numbers, NaN and Infinity.

    ``where`` starts every error line (a file name, ``file:line``).
    """
    digits = LIMITS.number_digits

    def number(kind: type) -> Any:
        def parse(token: str) -> Any:
            if len(token) > digits:
                raise _Refused(f"a number of {len(token):,} characters (at most {digits})")
            value = kind(token)
            if kind is float and math.isinf(value):
                raise _Refused(f"{token} is beyond the range of a decimal number")
            return value
        return parse

    def constant(token: str) -> Any:
        raise _Refused(f"{token} is not a number JSON allows")

    try:
        data = json.loads(text, parse_int=number(int), parse_float=number(float),
                          parse_constant=constant)
    except _Refused as err:
        raise InputError(f"{where}: {err}") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested deeper than {LIMITS.json_depth} levels"
                         ) from None
    except json.JSONDecodeError as err:
        raise InputError(f"{where}: not JSON: {err.msg} at line {err.lineno} column {err.colno}"
                         ) from None
    if _depth(data) > LIMITS.json_depth:
        raise InputError(f"{where}: JSON nested deeper than {LIMITS.json_depth} levels")
    return data


def lone_surrogate(data: Any) -> str | None:
    """Where parsed JSON ``data`` has a string (a value or a key) holding a lone surrogate
    (U+D800-U+DFFF: JSON's ``"\\ud800"`` escape gives one; no UTF-8 output, hash or
    file can take it), as a path of keys and indexes (``token``, ``seats/0/name``; ``""``:
    ``data`` itself; a key not printable is escaped, so the path is printable text),
    or None when it has none. Without recursion, like :func:`_depth`.

    >>> lone_surrogate(loads_json('{"type": "hello", "token": "\\\\ud800"}', "message"))
    'token'
    >>> lone_surrogate(loads_json('["\\\\ud83d\\\\ude00"]', "message")) is None  # a pair
    True
    """
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if _has_surrogate(value):
                return path
        elif isinstance(value, dict):
            for key, item in value.items():
                shown = key if key.isprintable() else repr(key)[1:-1]  # escaped: one line
                where = f"{path}/{shown}" if path else shown
                if _has_surrogate(key):
                    return where
                stack.append((item, where))
        elif isinstance(value, list):
            stack.extend((item, f"{path}/{i}" if path else str(i))
                         for i, item in enumerate(value))
    return None


def _has_surrogate(text: str) -> bool:
    # printable text has none (the common case, at once)
    return not text.isprintable() and any(unicodedata.category(ch) == "Cs" for ch in text)


class _Refused(ValueError):
    """A value refused while parsing (internal to :func:`loads_json`)."""


def _depth(data: Any) -> int:
    """The nesting depth of parsed JSON (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        elif not isinstance(value, list):
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > LIMITS.json_depth:
                return deepest
        stack.extend((item, depth) for item in value)
    return deepest
