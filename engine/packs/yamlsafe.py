"""Hardened YAML for untrusted rule packs: plain values plus where each came from.

``yaml.safe_load`` semantics, made stricter and bounded:

- Scalars follow the YAML 1.2 core schema: only ``true``/``false`` (any case
  form ``True``, ``TRUE``) are booleans, so ``yes``/``no``/``on``/``off`` stay
  strings; ``010`` is ten, not eight; ``1:30`` is a string. Mapping keys are
  always the key's text.
- Only the core tags (``!!str !!int !!float !!bool !!null !!seq !!map``) and the
  ``<<`` merge key are allowed; anything else (``!!python/object``,
  ``!!binary``, ``!!timestamp``, custom ``!tags``) is refused.
- Duplicate keys are errors. The file size, the nesting depth (also after
  aliases are expanded), the number of alias uses and the number of values once
  aliases are expanded are capped, so a "billion laughs" file is refused in
  milliseconds without expanding anything.

Every refusal is a :class:`~lostcities.engine.errors.Problem` with its LC code
and 1-based line and column, raised inside a
:class:`~lostcities.engine.errors.PackError`.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeAlias

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import yaml
    from yaml.nodes import Node

from ..errors import InputError, PackError, Problem
from ..safeio import open_regular, shown_path

KeyPath: TypeAlias = tuple[str | int, ...]
"""Where a value sits in a document: mapping keys and list indexes from the root."""


@dataclass(frozen=True)
class Limits:
    """The caps applied to an untrusted YAML file."""

    max_bytes: int = 1 << 20
    max_depth: int = 32
    max_aliases: int = 100
    max_values: int = 20_000
    #: characters of a number written in a pack (a pack needs a handful)
    max_number: int = 64


LIMITS = Limits()

#: The loader's rule codes (the pack-level codes live in lostcities.engine.packs.loader).
CODES: dict[str, str] = {
    "LC001": "YAML syntax error (also an undefined alias or a repeated anchor)",
    "LC002": f"file larger than {LIMITS.max_bytes // (1 << 20)} MiB",
    "LC003": f"nesting deeper than {LIMITS.max_depth} levels (counted after aliases are expanded)",
    "LC004": f"more than {LIMITS.max_aliases} alias uses (*name)",
    "LC005": f"more than {LIMITS.max_values:,} values once aliases are expanded, or an alias "
             "inside its own anchor",
    "LC006": "duplicate key in a mapping",
    "LC007": "YAML tag not allowed (only the core tags), or a value that does not fit its tag",
    "LC008": "not one YAML mapping: empty file, several documents, or a list/scalar at the top",
    "LC009": "file cannot be read: missing, not a file, no permission, or not UTF-8 text",
    "LC010": "a mapping key that is not a plain text key, or a `<<` merge of something other "
             "than mappings",
    "LC011": f"a number longer than {LIMITS.max_number} characters, or a decimal beyond the "
             "range of a float (1e999)",
}

_CORE = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_CORE + t for t in ("str", "int", "float", "bool", "null"))
_SEQ, _MAP, _MERGE = _CORE + "seq", _CORE + "map", _CORE + "merge"

_INT_RE = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")
_BOOLS = {"true": True, "True": True, "TRUE": True,
          "false": False, "False": False, "FALSE": False}
_NULLS = {"", "~", "null", "Null", "NULL"}
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Origin:
    """Where one value of a document was written (all positions 1-based).

    ``line``/``col`` is where the value starts; ``key_line``/``key_col`` where its
    key starts (the value's own position for list items and the root);
    ``text_line``/``text_col`` where a scalar's text starts (after a quote; for a
    ``|`` or ``>`` block, the line after the indicator at the block's
    indentation) and ``style`` is the scalar style: ``|``, ``>``, ``"``, ``'``
    or ``""`` for plain. ``file`` is ``"(default)"`` for a value the schema
    filled in.
    """

    file: str
    line: int
    col: int
    key_line: int = 0
    key_col: int = 0
    text_line: int = 0
    text_col: int = 0
    style: str = ""

    @property
    def is_default(self) -> bool:
        return self.file == DEFAULT_FILE

    def where(self) -> str:
        """``file:line:col`` (just ``file`` when the position is unknown)."""
        return f"{self.file}:{self.line}:{self.col}" if self.line else self.file


DEFAULT_FILE = "(default)"


@dataclass
class YamlDocument:
    """A loaded YAML file: plain Python ``data`` and the :class:`Origin` of every value."""

    file: str
    data: Any
    origins: dict[KeyPath, Origin] = field(default_factory=dict)


class _Refused(Exception):
    """A limit or rule hit while composing; carries the problem (internal)."""

    def __init__(self, code: str, mark: yaml.Mark | None, message: str, hint: str = ""):
        super().__init__(message)
        self.code, self.mark, self.message, self.hint = code, mark, message, hint


def _import_yaml() -> None:
    """Import PyYAML and make the loader, on the first YAML parsed (a built-in pack read
    from its shipped form needs neither): sets this module's ``yaml``, node and event
    classes and ``_Loader``."""
    global yaml, AliasEvent, StreamEndEvent, MappingNode, ScalarNode, SequenceNode, _Loader
    if "_Loader" in globals():
        return
    import yaml
    from yaml.events import AliasEvent, StreamEndEvent
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    class _Loader(yaml.SafeLoader):
        """Composes nodes only, with the YAML 1.2 core resolver and counted aliases and depth."""

        limits: Limits = LIMITS

        def __init__(self, stream: str, limits: Limits) -> None:
            super().__init__(stream)
            self.limits = limits
            self._depth = 0
            self._aliases = 0
            self._nodes = 0

        def resolve(self, kind: type, value: str | None, implicit: tuple[bool, bool]) -> str:
            if kind is ScalarNode:
                if not implicit[0] or value is None:
                    return _STR
                if value == "<<":
                    return _MERGE
                if value in _NULLS:
                    return _NULL
                if value in _BOOLS:
                    return _BOOL
                if _INT_RE.fullmatch(value):
                    return _INT
                if _FLOAT_RE.fullmatch(value):
                    return _FLOAT
                return _STR
            return _SEQ if kind is SequenceNode else _MAP

        def compose_node(self, parent: Node | None, index: Any) -> Node:
            if self.check_event(AliasEvent):
                self._aliases += 1
                if self._aliases > self.limits.max_aliases:
                    raise _Refused("LC004", self.peek_event().start_mark,
                                   f"more than {self.limits.max_aliases} alias uses",
                                   "aliases are capped so a file cannot expand without bound")
                return super().compose_node(parent, index)
            self._depth += 1
            self._nodes += 1
            try:
                if self._nodes > self.limits.max_values:
                    raise _Refused("LC005", self.peek_event().start_mark,
                                   f"the document holds more than {self.limits.max_values:,} values")
                if self._depth > self.limits.max_depth:
                    raise _Refused("LC003", self.peek_event().start_mark,
                                   f"nesting deeper than {self.limits.max_depth} levels")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

        def get_single_node(self) -> Node | None:
            self.get_event()  # stream start
            node = None
            if not self.check_event(StreamEndEvent):
                node = self.compose_document()
            if not self.check_event(StreamEndEvent):
                raise _Refused("LC008", self.get_event().start_mark,
                               "a second YAML document; a pack is exactly one document",
                               "remove the `---` line and what follows, or split the file")
            self.get_event()
            return node


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def one_line(text: str) -> str:
    r"""``text`` with control characters escaped, so a message stays on one line (``\n``)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def loads_as_text(text: str) -> bool:
    """Whether ``text`` written as a plain scalar loads back as this text (not 10, true...)."""
    return (text not in _NULLS and text not in _BOOLS and text != "<<"
            and not _INT_RE.fullmatch(text) and not _FLOAT_RE.fullmatch(text))


def _pos(mark: yaml.Mark | None) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag


class _Builder:
    """Turns a composed node tree into plain values, recording origins and problems."""

    def __init__(self, file: str, text: str, limits: Limits) -> None:
        self.file = file
        self.text = text
        self.limits = limits
        self.origins: dict[KeyPath, Origin] = {}
        self.problems: list[Problem] = []

    def problem(self, code: str, node: Node, message: str, hint: str = "") -> None:
        line, col = _pos(node.start_mark)
        self.problems.append(Problem(self.file, line, col, code, one_line(message),
                                     one_line(hint)))

    def measure(self, root: Node) -> None:
        """Refuse a tree that expands beyond the caps, without expanding it."""
        sizes: dict[int, tuple[int, int]] = {}
        active: set[int] = set()

        def visit(node: Node, depth: int) -> tuple[int, int]:
            if depth > self.limits.max_depth:
                raise _Refused("LC003", node.start_mark,
                               f"nesting deeper than {self.limits.max_depth} levels once aliases "
                               "are expanded")
            key = id(node)
            known = sizes.get(key)
            if known is not None:
                if depth + known[1] - 1 > self.limits.max_depth:
                    raise _Refused("LC003", node.start_mark,
                                   f"nesting deeper than {self.limits.max_depth} levels once "
                                   "aliases are expanded")
                return known
            if key in active:
                raise _Refused("LC005", node.start_mark,
                               "an alias used inside its own anchor (a recursive structure)")
            active.add(key)
            size, height = 1, 1
            if isinstance(node, SequenceNode):
                children = node.value
            elif isinstance(node, MappingNode):
                children = [n for pair in node.value for n in pair]
            else:
                children = []
            for child in children:
                s, h = visit(child, depth + 1)
                size += s
                height = max(height, h + 1)
                if size > self.limits.max_values:
                    raise _Refused(
                        "LC005", root.start_mark,
                        f"the document expands to more than {self.limits.max_values:,} values",
                        "aliases are expanded where they are used; a pack needs far fewer")
            active.discard(key)
            sizes[key] = (size, height)
            return size, height

        visit(root, 1)

    def text_start(self, node: ScalarNode) -> tuple[int, int]:
        """1-based line and column where the scalar's text starts in the file."""
        line, col = _pos(node.start_mark)
        style = node.style or ""
        if style in ("'", '"'):
            return line, col + 1
        if style not in ("|", ">"):
            return line, col
        text, end = self.text, node.end_mark.index
        pos = text.find("\n", node.start_mark.index) + 1
        first = ""
        while 0 < pos < end:
            stop = text.find("\n", pos)
            stop = end if stop < 0 or stop > end else stop
            if text[pos:stop].strip():
                first = text[pos:stop]
                break
            pos = stop + 1
        value_first = next((ln for ln in node.value.split("\n") if ln.strip()), "")
        indent = (len(first) - len(first.lstrip(" "))) - (len(value_first) - len(value_first.lstrip(" ")))
        return line + 1, max(indent, 0) + 1

    def record(self, path: KeyPath, node: Node, key: Node | None) -> None:
        line, col = _pos(node.start_mark)
        key_line, key_col = _pos(key.start_mark) if key is not None else (line, col)
        if isinstance(node, ScalarNode):
            text_line, text_col = self.text_start(node)
            style = node.style or ""
        else:
            text_line, text_col, style = line, col, ""
        self.origins[path] = Origin(self.file, line, col, key_line, key_col,
                                    text_line, text_col, style)

    def build(self, node: Node, path: KeyPath = (), key: Node | None = None) -> Any:
        self.record(path, node, key)
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                self.problem("LC007", node, f"tag {_tag_name(node.tag)} is not allowed",
                             "packs use plain YAML lists and mappings")
            return [self.build(child, path + (i,)) for i, child in enumerate(node.value)]
        if node.tag != _MAP:
            self.problem("LC007", node, f"tag {_tag_name(node.tag)} is not allowed",
                         "packs use plain YAML lists and mappings")
        return self.mapping(node, path)

    def mapping(self, node: MappingNode, path: KeyPath) -> dict[str, Any]:
        out: dict[str, Any] = {}
        first_seen: dict[str, int] = {}
        merges: list[MappingNode] = []
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag == _MERGE:
                merges.extend(self.merge_sources(value_node))
                continue
            key = self.key_text(key_node)
            if key is None:
                continue
            if key in out:
                self.problem("LC006", key_node, f"duplicate key `{key}`",
                             f"first given on line {first_seen[key]}")
                continue
            first_seen[key] = key_node.start_mark.line + 1
            out[key] = self.build(value_node, path + (key,), key_node)
        for source in merges:
            for key_node, value_node in source.value:
                key = self.key_text(key_node)
                if key is not None and key not in out:
                    out[key] = self.build(value_node, path + (key,), key_node)
        return out

    def merge_sources(self, node: Node) -> list[MappingNode]:
        if isinstance(node, MappingNode):
            return [node]
        if isinstance(node, SequenceNode) and all(isinstance(n, MappingNode) for n in node.value):
            return list(node.value)
        self.problem("LC010", node, "a `<<` merge key needs a mapping or a list of mappings")
        return []

    def key_text(self, node: Node) -> str | None:
        if not isinstance(node, ScalarNode):
            self.problem("LC010", node, "a mapping key must be plain text, not a list or mapping")
            return None
        if node.tag == _NULL and node.value in ("", "~") and not node.style:
            self.problem("LC010", node, "empty mapping key")
            return None
        if node.tag not in (_STR, _INT, _FLOAT, _BOOL, _NULL):
            self.problem("LC007", node, f"tag {_tag_name(node.tag)} is not allowed on a key")
        self.check_text(node)
        return node.value

    def check_text(self, node: ScalarNode) -> None:
        """A problem if the text holds a lone surrogate (a ``"\\ud800"`` escape): no file,
        terminal or JSON encoder can write it back out as UTF-8."""
        if _SURROGATE.search(node.value):
            self.problem("LC007", node, "a \\u escape gives a lone surrogate (U+D800-U+DFFF), "
                         "which is not a character", "write the character itself")

    def scalar(self, node: ScalarNode) -> Any:
        tag, text = node.tag, node.value
        if tag == _STR:
            self.check_text(node)
            return text
        if tag in (_INT, _FLOAT) and len(text) > self.limits.max_number:
            self.problem("LC011", node, f"a number of {len(text):,} characters (at most "
                         f"{self.limits.max_number})", "no value of a pack needs so many digits")
            return 0
        if tag == _NULL and text in _NULLS:
            return None
        if tag == _BOOL and text in _BOOLS:
            return _BOOLS[text]
        if tag == _INT and _INT_RE.fullmatch(text):
            if text.startswith(("0o", "0x")):
                return int(text[2:], 8 if text[1] == "o" else 16)
            return int(text, 10)
        if tag == _FLOAT and _FLOAT_RE.fullmatch(text):
            lowered = text.lower()
            if lowered.endswith("nan"):
                return math.nan
            if lowered.endswith("inf"):
                return -math.inf if lowered.startswith("-") else math.inf
            value = float(text)
            if math.isinf(value):
                self.problem("LC011", node, f"`{text}` is beyond the range of a decimal number",
                             "write a smaller number")
                return 0
            return value
        if tag in (_NULL, _BOOL, _INT, _FLOAT):
            self.problem("LC007", node, f"`{text}` is not a valid {_tag_name(tag)} value")
        else:
            self.problem("LC007", node, f"tag {_tag_name(tag)} is not allowed",
                         "only the YAML core tags !!str !!int !!float !!bool !!null are")
        return text


def _refuse(file: str, code: str, line: int, col: int, message: str, hint: str = "") -> NoReturn:
    raise PackError(Problem(file, line, col, code, message, hint))


def parse_yaml(text: str, file: str, limits: Limits = LIMITS) -> YamlDocument:
    """Load one YAML document from ``text``; ``file`` names it in problems.

    Raises :class:`PackError` with every problem found (one for a syntax error or a
    refused limit, since loading stops there; all duplicate keys and bad tags).

    >>> parse_yaml("a: yes\\nb: true\\nc: 010", "x.yaml").data
    {'a': 'yes', 'b': True, 'c': 10}
    """
    _import_yaml()
    loader: _Loader | None = None
    try:
        loader = _Loader(text, limits)
        root = loader.get_single_node()
    except _Refused as refused:
        _refuse(file, refused.code, *_pos(refused.mark), refused.message, refused.hint)
    except yaml.MarkedYAMLError as err:
        line, col = _pos(err.problem_mark or err.context_mark)
        message = err.problem or err.context or "invalid YAML"
        if err.context and err.problem:
            message = f"{message} ({err.context}"
            if err.context_mark is not None and err.context_mark.line != err.problem_mark.line:
                message += f" on line {err.context_mark.line + 1}"
            message += ")"
        _refuse(file, "LC001", line, col, f"YAML syntax: {message}")
    except yaml.reader.ReaderError as err:
        line, col = _line_col(text, err.position)
        _refuse(file, "LC001", line, col,
                f"YAML syntax: character #x{err.character:04x} is not allowed ({err.reason})"
                if isinstance(err.character, int) else f"YAML syntax: {err.reason}")
    except yaml.YAMLError as err:  # any other parser complaint, still one line
        _refuse(file, "LC001", 0, 0, "YAML syntax: " + " ".join(str(err).split()))
    finally:
        if loader is not None:
            loader.dispose()
    if root is None:
        _refuse(file, "LC008", 0, 0, "the file holds no YAML document; a pack is one mapping")
    builder = _Builder(file, text, limits)
    try:
        builder.measure(root)
    except _Refused as refused:
        _refuse(file, refused.code, *_pos(refused.mark), refused.message, refused.hint)
    data = builder.build(root)
    if not isinstance(data, dict):
        builder.problem("LC008", root, f"the top level is a {_kind(data)}; a pack is a mapping "
                        "of keys such as `id:` and `deck:`")
    if builder.problems:
        raise PackError(builder.problems)
    return YamlDocument(file, data, builder.origins)


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "list"
    return "text" if isinstance(value, str) else "single value"


def _reason(message: str, path: str | os.PathLike[str]) -> str:
    """What :mod:`.safeio` said about ``path``, without the path (the problem names the file)."""
    for shown in (shown_path(path), "''"):
        if message.startswith(shown + ": "):
            return message[len(shown) + 2:]
    return message


def load_yaml(path: str | os.PathLike[str], file: str | None = None,
              limits: Limits = LIMITS) -> YamlDocument:
    """Read and load the YAML file at ``path``; ``file`` is its name in problems (default: path).

    Only a regular file is read (a FIFO or a device is refused without blocking, a
    name too long for the file system is refused before it is opened), and its size
    is checked before anything is parsed. Raises :class:`PackError`.
    """
    name = os.fspath(path) if file is None else file
    try:
        fd = open_regular(path)
    except InputError as err:
        _refuse(shown_path(name), "LC009", 0, 0, _reason(str(err), path))
    try:
        with os.fdopen(fd, "rb") as stream:
            raw = stream.read(limits.max_bytes + 1)
    except OSError as err:
        _refuse(name, "LC009", 0, 0, f"cannot be read: {err.strerror or err}")
    if len(raw) > limits.max_bytes:
        _refuse(name, "LC002", 0, 0,
                f"file larger than {limits.max_bytes:,} bytes; refused without parsing")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        col = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        _refuse(name, "LC009", line, col, f"not UTF-8 text (byte 0x{raw[err.start]:02x})",
                "save the pack as UTF-8")
    return parse_yaml(text, name, limits)
