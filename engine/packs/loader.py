"""Rule packs: find them, load them safely, merge ``extends``, check them, compile them.

One pipeline serves every entry point::

    locate -> hardened YAML (yamlsafe) -> extends chain -> merge with origins
           -> JSON Schema -> defaults -> LC semantic checks -> RulePack -> formulas

:func:`load_pack` returns the :class:`~lostcities.engine.game.rules.RulePack` (cached) or
raises :class:`~lostcities.engine.errors.PackError` with every problem found;
:func:`validate_pack` and :func:`check_pack` report without raising;
:func:`resolve_pack` gives the merged mapping and where each value came from
(``lc show --explain``). Every problem carries a stable LC code (:data:`CODES`,
documented in docs/rulepacks.md).
"""
from __future__ import annotations

import copy
import difflib
import functools
import hashlib
import json
import os
import re
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from lostcities import rulepacks
from lostcities.grammar import SCOPES, Scoring, compile_formula, parser
from lostcities.grammar.bounds import Domain, check_scoring
from lostcities.grammar.compiler import check_definitions
from lostcities.grammar.parser import tree_from_data
from lostcities.grammar.source import Source

from ..errors import InputError, LostCitiesError, PackError, Problem, ScoringError
from ..game.options import (ARTEFACT, NEXT_STARTERS, OLD_SPELLINGS, POINTS, TILE_KINDS,
                            takes_equal)
from ..game.rules import RulePack
from ..safeio import check_path, read_text, shown_path
from .yamlsafe import (CODES as YAML_CODES, DEFAULT_FILE, KeyPath, Origin, YamlDocument, load_yaml,
                       one_line)

#: An ``extends`` chain may have at most this many links (9 files in all).
MAX_EXTENDS = 8

_EXTENDS_CODES = {
    "LC020": "`extends` names no built-in pack and no file",
    "LC021": "`extends` cycle: a pack extends itself through its chain",
    "LC022": f"`extends` chain deeper than {MAX_EXTENDS} links",
    "LC023": "a pack without `id` whose file name is not a valid id",
    "LC024": "a pack's `id` is the id of a pack it extends, or, taken from its file name, "
             "a built-in pack's id",
    "LC025": "an `extends` path that is absolute, leads out of the folder of the pack named, "
             "or is too long for the file system",
    "LC026": "a file that is not a rule pack (its content is not shown)",
}
_SCHEMA_CODES = {
    "LC030": "unknown key (with the closest known key as a hint)",
    "LC031": "missing required key",
    "LC032": "wrong type (text where a number is expected, `yes` where true/false is...)",
    "LC033": "value not allowed: outside its range, not one of the choices, bad pattern, "
             "too few or repeated items",
}

_IDS = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_FORMULAS = ("expedition", "pawn", "round", "match")
_REQUIRED_FORMULAS = {"duel": ("expedition", "round", "match"), "board": ("pawn", "round", "match")}


# --------------------------------------------------------------------- built-ins


def builtin_dir() -> Path:
    """The folder of the built-in packs (package data of ``lostcities.rulepacks``)."""
    return rulepacks.folder()


def builtin_ids() -> list[str]:
    """The ids of the built-in packs, sorted."""
    return sorted(p.stem for p in builtin_dir().glob("*.yaml"))


def builtin_path(pack_id: str) -> Path | None:
    """The file of built-in pack ``pack_id``, or None."""
    if not _IDS.fullmatch(pack_id):
        return None
    path = builtin_dir() / f"{pack_id}.yaml"
    return path if path.is_file() else None


def _looks_like_path(text: str) -> bool:
    return "/" in text or os.sep in text or text.endswith((".yaml", ".yml"))


def _display(path: Path) -> str:
    """A file name for messages: relative to the working folder when inside it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def locate(id_or_path: str | os.PathLike[str]) -> tuple[Path, str]:
    """The file of a pack given by built-in id or path, and its name for messages.

    Raises :class:`PackError` (LC009) when it is neither, when the name is too long
    for the file system, or when it names something other than a regular file.
    """
    text = os.fspath(id_or_path)
    if not _looks_like_path(text):
        path = builtin_path(text)
        if path is not None:
            return path, _display(path)
    try:
        path = check_path(text)
        is_file, exists = path.is_file(), os.path.lexists(path)
    except (InputError, OSError, ValueError) as err:
        reason = err.args[0] if isinstance(err, InputError) else str(err)
        raise PackError(Problem(shown_path(text), 0, 0, "LC009",
                                _without_path(reason, text))) from None
    if is_file:
        return path, text
    if exists:  # a folder, a FIFO, a device: load_yaml says which, without opening a FIFO
        load_yaml(path, text)
    close = difflib.get_close_matches(text, builtin_ids(), n=1)
    hint = f"did you mean `{close[0]}`?" if close else "`lc packs` lists the built-in packs"
    raise PackError(Problem(text, 0, 0, "LC009", "no such built-in pack or file", hint))


def _without_path(message: str, path: str) -> str:
    """An :class:`InputError` message about ``path`` without the path (the problem names it)."""
    for shown in (shown_path(path), "''"):
        if message.startswith(shown + ": "):
            return message[len(shown) + 2:]
    return message


# --------------------------------------------------------------------- results


@dataclass(frozen=True)
class ResolvedPack:
    """A pack's merged mapping (``extends`` applied, defaults filled) and its provenance.

    ``origins`` maps every key path of ``data`` to the :class:`Origin` it came from;
    ``files`` names the chain, this pack first; ``paths`` are those files on disk.
    """

    source: str
    file: str
    files: tuple[str, ...]
    paths: tuple[Path, ...]
    data: dict[str, Any]
    origins: dict[KeyPath, Origin]

    def origin(self, path: KeyPath) -> Origin:
        """Where the value at ``path`` (or its nearest written ancestor) came from."""
        return _nearest(self.origins, path)


@dataclass(frozen=True)
class PackReport:
    """Everything found about one pack: its problems and, when valid, the pack."""

    source: str
    file: str
    problems: tuple[Problem, ...]
    resolved: ResolvedPack | None = field(default=None, repr=False)
    pack: RulePack | None = field(default=None, repr=False)

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def id(self) -> str | None:
        if self.resolved is None:
            return None
        value = self.resolved.data.get("id")
        return value if isinstance(value, str) else None

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "file": self.file, "id": self.id, "valid": self.valid,
                "problems": [p.as_dict() for p in self.problems]}


# --------------------------------------------------------------------- paths


def format_path(path: KeyPath) -> str:
    """``("deck", "colours", 0, "key")`` -> ``deck.colours[0].key``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def iter_leaves(value: Any, path: KeyPath = ()) -> Iterator[tuple[KeyPath, Any]]:
    """Every scalar (and empty list or mapping) of ``value`` with its key path."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from iter_leaves(item, path + (key,))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from iter_leaves(item, path + (index,))
    else:
        yield path, value


def _iter_paths(value: Any, path: KeyPath) -> Iterator[KeyPath]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _iter_paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _iter_paths(item, path + (index,))


def _nearest(origins: Mapping[KeyPath, Origin], path: KeyPath) -> Origin:
    while path:
        found = origins.get(path)
        if found is not None and not found.is_default:
            return found
        path = path[:-1]
    return origins[()]


# --------------------------------------------------------------------- extends


#: codes of problems whose message may quote the file's text (a key, a value, a character)
_QUOTING_CODES = frozenset({"LC001", "LC006", "LC007"})
#: a line that only a pack's text holds (used on a file that does not parse)
_PACK_LINE = re.compile(r"^(?:id|extends|deck)[ \t]*:", re.MULTILINE)


def _not_a_pack(doc: YamlDocument | None, problems: list[Problem], path: Path) -> bool:
    """Whether the file at ``path`` is not a rule pack at all, so that nothing it holds may be
    quoted: a mapping with neither `extends` nor `deck`, or a file that does not parse
    and has no `id:`, `extends:` or `deck:` line."""
    if doc is not None:
        return isinstance(doc.data, dict) and not ("extends" in doc.data or "deck" in doc.data)
    if not any(p.code in _QUOTING_CODES for p in problems):
        return False  # the problems say what is wrong with the file, not what it holds
    try:
        text = read_text(path, 1 << 20)
    except InputError:
        return True
    return _PACK_LINE.search(text) is None


def _within(target: Path, root: Path) -> bool:
    """Whether ``target`` (symbolic links followed) lies in the folder ``root``."""
    real, top = os.path.realpath(target), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _load_chain(path: Path, display: str, allow_outside: bool = False, shipped: bool = True
                ) -> tuple[list[YamlDocument], list[Path], list[Problem]]:
    """The pack and every pack it extends (this one first); stops at the first broken link.

    A path in `extends` is relative to the folder of the file that extends; it may not be
    absolute nor lead out of the folder of the first pack (its *root*), unless
    ``allow_outside``. A file that is not a pack is named, never quoted.
    """
    docs: list[YamlDocument] = []
    paths: list[Path] = []
    seen: dict[str, str] = {}
    root = path.parent
    link: Problem | None = None  # the `extends` that led to this file
    while True:
        doc: YamlDocument | None = None
        problems: list[Problem] = []
        try:
            doc = (shipped and shipped_document(path, display)) or load_yaml(path, display)
        except PackError as err:
            problems = list(err.problems)
        if _not_a_pack(doc, problems, path):
            what = f"`{display}` is not a rule pack"
            why = ("it does not parse as YAML" if doc is None else
                   "it has neither `extends:` nor `deck:`")
            hint = "its content is not shown"
            if link is None:
                return docs, paths, [Problem(display, 0, 0, "LC026", f"{what}: {why}", hint)]
            return docs, paths, [replace(link, code="LC026", message=f"`extends`: {what}: "
                                         f"{why}", hint=hint)]
        if doc is None:
            return docs, paths, problems
        docs.append(doc)
        paths.append(path)
        seen[os.path.realpath(path)] = display
        if "extends" not in doc.data:
            return docs, paths, []
        value = doc.data["extends"]
        where = doc.origins[("extends",)]
        problem = functools.partial(Problem, display, where.line, where.col)
        if not isinstance(value, str) or not value:
            return docs, paths, [problem("LC020", "`extends` must name a built-in pack or a "
                                         "file, as text")]
        if _looks_like_path(value):
            refused = _refused_extends(value, path, root, allow_outside)
            if refused:
                return docs, paths, [problem("LC025", *refused)]
            target = path.parent / value
            if not target.is_file():
                return docs, paths, [problem("LC020", f"`extends: {value}`: no such file "
                                             f"(looked for {_display(target)})",
                                             "a path is relative to the file that extends")]
            target_display = os.path.normpath(os.path.join(os.path.dirname(display), value))
        else:
            found = builtin_path(value)
            if found is None:
                return docs, paths, [problem("LC020", f"`extends: {one_line(value)[:64]}`: no "
                                             "built-in pack has this id",
                                             _extends_hint(value, path))]
            target, target_display = found, _display(found)
        real = os.path.realpath(target)
        if real in seen:
            chain = " -> ".join([*seen.values(), target_display])
            return docs, paths, [problem("LC021", f"`extends` cycle: {chain}")]
        if len(docs) > MAX_EXTENDS:
            return docs, paths, [problem("LC022", f"`extends` chain deeper than {MAX_EXTENDS} "
                                         "links", "extend a pack nearer the top instead")]
        link = problem("LC020", "")
        path, display = target, target_display


def _refused_extends(value: str, path: Path, root: Path, allow_outside: bool
                     ) -> tuple[str, str] | None:
    """``(message, hint)`` when the `extends` path ``value`` may not be followed, else None."""
    try:
        check_path(value)
        check_path(path.parent / value)
    except InputError as err:
        return (f"`extends`: {_without_path(err.args[0], value)}",
                "name a file next to this pack, or a built-in pack's id")
    if allow_outside:
        return None
    if os.path.isabs(value):
        return ("`extends` is an absolute path; a path is relative to the file that extends",
                "copy the base next to this pack, or allow packs outside its folder")
    try:
        outside = not _within(path.parent / value, root)
    except (OSError, ValueError):
        outside = True
    if outside:
        return (f"`extends: {shown_path(value)}` leads out of the folder of the pack named "
                f"({_display(root) or '.'})", "packs extend files in their own folder or "
                "below it, unless packs outside it are allowed")
    return None


def _extends_hint(value: str, path: Path) -> str:
    try:
        beside = (path.parent / check_path(f"{value}.yaml")).is_file()
    except (InputError, OSError, ValueError):
        beside = False
    if beside:
        return f"for the file next to this one write `extends: {value}.yaml`"
    close = difflib.get_close_matches(value, builtin_ids(), n=1)
    return f"did you mean `{close[0]}`?" if close else "`lc packs` lists the built-in packs"


def file_id(path: str | os.PathLike[str]) -> str:
    """The id a pack file without `id` takes: its file name less ``.yaml``/``.yml``
    (``my-house.yaml`` -> ``my-house``); not necessarily a valid id."""
    name = os.path.basename(os.fspath(path))
    for ending in (".yaml", ".yml"):
        if name.endswith(ending) and len(name) > len(ending):
            return name[:-len(ending)]
    return name


def _id_like(name: str) -> str:
    """A valid id close to the file name ``name`` (for a hint)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:64].rstrip("-") or "my-house"


def _chain_id_problems(docs: list[YamlDocument], paths: list[Path]) -> list[Problem]:
    """Give each pack of the chain without `id` the id of its file name, and report the ids
    that cannot be: a file name that is not an id (LC023), a file name that is a built-in
    pack's id, or an id that a pack it extends also has (LC024)."""
    out: list[Problem] = []
    builtins = set(builtin_ids())
    for doc, path in zip(docs, paths):
        if "id" in doc.data:
            continue
        where = doc.origins.get(("extends",), doc.origins[()])
        problem = functools.partial(Problem, doc.file, where.key_line, where.key_col)
        derived = file_id(path)
        if not _IDS.fullmatch(derived):
            out.append(problem("LC023", f"this pack has no `id`, and its file name "
                               f"`{shown_path(os.path.basename(path))}` cannot be one: an id is "
                               "lower-case letters, digits and hyphens (at most 64)",
                               f"add e.g. `id: {_id_like(derived)}`, or rename the file"))
            continue
        if derived in builtins and os.path.realpath(builtin_dir() / f"{derived}.yaml") \
                != os.path.realpath(path):
            out.append(problem("LC024", f"this pack has no `id`, and its file name gives "
                               f"`{derived}`, the id of a built-in pack",
                               "add an `id:` of its own, or rename the file"))
            continue
        doc.data = {"id": derived, **doc.data}
        doc.origins[("id",)] = Origin(doc.file, 0, 0)
    for index, doc in enumerate(docs[:-1]):
        own_id = doc.data.get("id")
        if own_id is None:
            continue
        for base in docs[index + 1:]:
            if base.data.get("id") == own_id:
                where = doc.origins[("id",)]
                taken = "" if where.line else " (taken from its file name)"
                out.append(Problem(doc.file, where.line, where.col, "LC024",
                                   f"`id: {own_id}`{taken} is also the id of the pack it "
                                   f"extends ({base.file})", "give this pack an id of its own"
                                   + ("" if where.line else ": add `id:` or rename the file")))
                break
    return out


def _merge(base: Any, base_origins: Mapping[KeyPath, Origin], over: Any,
           over_origins: Mapping[KeyPath, Origin], path: KeyPath,
           out: dict[KeyPath, Origin]) -> Any:
    """Maps merge key by key, anything else from ``over`` replaces ``base`` whole."""
    if not (isinstance(base, dict) and isinstance(over, dict)):
        for sub in _iter_paths(over, path):
            out[sub] = over_origins[sub]
        return over
    out[path] = over_origins[path]
    merged: dict[str, Any] = {}
    for key, value in base.items():
        if key in over:
            merged[key] = _merge(value, base_origins, over[key], over_origins, path + (key,), out)
        else:
            merged[key] = value
            for sub in _iter_paths(value, path + (key,)):
                out[sub] = base_origins[sub]
    for key, value in over.items():
        if key not in base:
            merged[key] = value
            for sub in _iter_paths(value, path + (key,)):
                out[sub] = over_origins[sub]
    return merged


def _modern(doc: YamlDocument) -> tuple[Any, dict[KeyPath, Origin]]:
    """``doc``'s data and origins with each old boolean spelling (``rows.wagers_before_numbers``,
    ``turn.no_retake_discard``) written as its new setting (``wagers.when``, ``turn.retake``)
    at the same place in the file, so that a pack in the old words extends one in the new
    (and the other way round); a value that is not a bool stays for the schema to report,
    and an old key beside its new one in the same file for LC064."""
    data, origins = doc.data, doc.origins
    for section, old, of_bool, new_section, new in OLD_SPELLINGS:
        part = data.get(section) if isinstance(data, dict) else None
        if not isinstance(part, dict) or not isinstance(part.get(old), bool):
            continue
        target = data.get(new_section, {}) if new_section != section else part
        if not isinstance(target, dict) or new in target:
            continue
        value, where = part[old], origins[(section, old)]
        data, origins = dict(data), dict(origins)
        data[section] = {k: v for k, v in part.items() if k != old}
        del origins[(section, old)]
        data[new_section] = {**data.get(new_section, {}), new: of_bool[value]}
        origins.setdefault((new_section,), where)
        origins[(new_section, new)] = where
    return data, origins


def _merge_chain(docs: list[YamlDocument]) -> tuple[dict[str, Any], dict[KeyPath, Origin]]:
    data, origins = _modern(docs[-1])
    for doc in reversed(docs[:-1]):
        merged_origins: dict[KeyPath, Origin] = {}
        doc_data, doc_origins = _modern(doc)
        data = _merge(data, origins, doc_data, doc_origins, (), merged_origins)
        origins = merged_origins
    data = dict(data)
    data.pop("extends", None)
    return data, {p: o for p, o in origins.items() if not p or p[0] != "extends"}


# --------------------------------------------------------------------- schema


#: the shipped schema, as text and as a mapping (read in :mod:`lostcities.rulepacks`, which the
#: grammar's bounds read too)
schema_text = rulepacks.schema_text
pack_schema = rulepacks.pack_schema


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    base = jsonschema.Draft202012Validator
    # a pack's integers are ints: 3.0 is not a hand size, and true is not 1
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool))
    return jsonschema.validators.extend(base, type_checker=checker)(pack_schema())


_TYPE_WORDS = {"integer": "a whole number", "string": "text", "boolean": "true or false",
               "object": "a mapping of keys", "array": "a list", "number": "a number"}


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f"the text `{value}`" if len(value) <= 40 else "a long text"
    if isinstance(value, float):
        return f"the decimal `{value}`"
    if value is None:
        return "empty (null)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"`{value}`"


def _suggest(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else ""


def file_digest(path: Path) -> str | None:
    """The SHA-256 of a file's bytes, or None when it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def schema_vouched(paths: tuple[Path, ...] | list[Path]) -> bool:
    """Whether every file of a chain is a built-in pack, byte for byte as it was when its
    schema validation passed at build time (its SHA-256 among the digests vouched for in
    :mod:`lostcities.engine.packs.pack_digests`, under the same schema): the schema would find no
    problem, so it need not run (nor jsonschema be imported). Any other file, a house pack
    or an edited built-in, is validated. The table holds digests only: no pack is known
    here by its name."""
    if not paths:
        return False
    try:
        from . import pack_digests
    except ImportError:
        return False
    if pack_digests.SCHEMA_SHA256 != text_digest(schema_text()):
        return False
    home = os.path.realpath(builtin_dir())
    for path in paths:
        real = os.path.realpath(path)
        if os.path.dirname(real) != home or file_digest(Path(real)) not in pack_digests.VOUCHED:
            return False
    return True


def text_digest(text: str) -> str:
    """The SHA-256 of a text (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: The YAML of the vouched built-in packs as loaded, keyed by each file's SHA-256 (data,
#: generated with :mod:`lostcities.engine.packs.pack_digests`).
SHIPPED_DOCUMENTS = "shipped_packs.json"


@functools.lru_cache(maxsize=1)
def _shipped_documents() -> dict[str, Any]:
    """The recorded YAML documents of the built-in packs (empty when the file is missing or
    unreadable: every pack is then parsed)."""
    try:
        with open(Path(__file__).with_name(SHIPPED_DOCUMENTS), encoding="utf-8") as handle:
            table = json.load(handle)
    except (OSError, ValueError):
        return {}
    return table if isinstance(table, dict) else {}


def shipped_document(path: Path, display: str) -> YamlDocument | None:
    """The loaded YAML of a built-in pack file byte for byte as shipped, from its parsed form
    recorded beside :mod:`lostcities.engine.packs.pack_digests` under its SHA-256 (no YAML parsed,
    PyYAML not even imported), named ``display`` as :func:`~.yamlsafe.load_yaml` names it;
    None for any other file."""
    try:
        from . import pack_digests
    except ImportError:
        return None
    real = os.path.realpath(path)
    if os.path.dirname(real) != os.path.realpath(builtin_dir()):
        return None
    digest = file_digest(Path(real))
    shipped = _shipped_documents().get(digest) if digest in pack_digests.VOUCHED else None
    if shipped is None:
        return None
    return YamlDocument(display, _fresh(shipped["data"]),
                        {tuple(key): Origin(display, *where) for key, where in shipped["origins"]})


def _fresh(value: Any) -> Any:
    """A new copy of plain data (mappings and lists copied, scalars shared)."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value


def pack_digests_source() -> tuple[str, str]:
    """The texts of ``pack_digests.py`` and ``shipped_packs.json``: the SHA-256 of each
    built-in pack that passes full validation now, schema included, and of the schema; and
    each such pack's YAML as loaded (data and origins) under its SHA-256, read instead of the
    file while its bytes match. Regenerate them with ``python tools/regenerate.py``
    after changing a built-in pack or the schema (a stale entry only costs time: that pack
    is then parsed and validated)."""
    documents: dict[str, Any] = {}
    for pack_id in builtin_ids():
        path = builtin_dir() / f"{pack_id}.yaml"
        if not validate_pack(path, schema_check=True).problems:
            doc = load_yaml(path, path.name)
            entry = {"data": doc.data, "formulas": _parsed_formulas(doc.data), "origins": [
                [list(key), [o.line, o.col, o.key_line, o.key_col, o.text_line, o.text_col,
                             o.style]] for key, o in doc.origins.items()]}
            if json.loads(json.dumps(entry))["data"] != doc.data:
                continue  # not plain JSON data (a number key): parsed at every load
            documents[file_digest(path)] = entry

    lines = "".join(f"    {digest!r},\n" for digest in sorted(documents))
    source = ('"""SHA-256 of the built-in pack files that passed schema validation when this '
              'file was\ngenerated (``python tools/regenerate.py``; do not edit): '
              'a built-in pack file\nwhose digest is here skips the JSON Schema at load (see '
              '``lostcities.engine.packs.loader.schema_vouched``)\nand is read from its YAML as loaded, '
              'kept under the same digest in ``shipped_packs.json``\n'
              '(``lostcities.engine.packs.loader.shipped_document``), its formulas parsed (under '
              'the grammar\'s\nSHA-256: ``lostcities.engine.packs.loader.shipped_trees``)."""\n'
              f"SCHEMA_SHA256 = {text_digest(schema_text())!r}\n"
              f"GRAMMAR_SHA256 = {parser.grammar_digest(parser.grammar_text())!r}\n"
              f"VOUCHED = frozenset({{\n{lines}}})\n")
    return source, json.dumps(documents, ensure_ascii=False, separators=(",", ":")) + "\n"


def _formula_texts(data: Any) -> list[str]:
    """The formula texts of one pack file's data (its scoring's scopes and breakdown)."""
    scoring = data.get("scoring") if isinstance(data, dict) else None
    if not isinstance(scoring, dict):
        return []
    texts = [scoring[k] for k in _FORMULAS if isinstance(scoring.get(k), str)]
    breakdown = scoring.get("breakdown")
    if isinstance(breakdown, dict):
        texts += [t for t in breakdown.values() if isinstance(t, str)]
    return texts


def _parsed_formulas(data: Any) -> dict[str, Any]:
    """Each formula text of one pack file -> its parse result as data (``tree_data``)."""
    return {text: parser.tree_data(parser.parse(Source(text, "", None)))
            for text in _formula_texts(data)}


def shipped_trees(paths: tuple[Path, ...] | list[Path]) -> dict[str, Any]:
    """Formula text -> its parse result as data, recorded in ``shipped_packs.json`` for the
    files of a chain of vouched built-in packs (:func:`schema_vouched`), when they were
    parsed by this very grammar (its SHA-256 in :mod:`lostcities.engine.packs.pack_digests`);
    empty otherwise: the formulas are then parsed. A formula missing here is parsed too."""
    try:
        from . import pack_digests
    except ImportError:
        return {}

    if getattr(pack_digests, "GRAMMAR_SHA256", None) != parser.grammar_digest(
            parser.grammar_text()):
        return {}
    trees: dict[str, Any] = {}
    for path in paths:
        digest = file_digest(Path(os.path.realpath(path)))
        entry = _shipped_documents().get(digest) if digest in pack_digests.VOUCHED else None
        formulas = entry.get("formulas") if isinstance(entry, dict) else None
        if isinstance(formulas, dict):
            trees.update(formulas)
    return trees


def _schema_problems(data: dict[str, Any], origins: Mapping[KeyPath, Origin]
                     ) -> tuple[list[Problem], set[KeyPath]]:
    """The schema's problems, and the key paths whose values cannot be read as the schema
    says (wrong, missing or badly named; an unknown key leaves the rest readable)."""
    out: list[Problem] = []
    bad: set[KeyPath] = set()
    for err in _validator().iter_errors(data):
        out.extend(_explain(err, origins))
        path: KeyPath = tuple(err.absolute_path)
        if "propertyNames" in err.absolute_schema_path:
            bad.add(path + (err.instance,))
        elif err.validator == "required":
            bad.update(path + (k,) for k in err.validator_value if k not in err.instance)
        elif not (err.validator == "additionalProperties" and err.validator_value is False):
            bad.add(path)
    return out, bad


def _touches(bad: set[KeyPath], path: KeyPath) -> bool:
    """Whether a wrong value lies at ``path``, inside it, or around it."""
    return any(b[:len(path)] == path or path[:len(b)] == b for b in bad)


def _explain(err: Any, origins: Mapping[KeyPath, Origin]) -> Iterator[Problem]:
    """One or more problems, with file and line, from a jsonschema error."""
    path: KeyPath = tuple(err.absolute_path)
    where = format_path(path)
    inside = f" in `{where}`" if path else ""
    keyword, expected, value = err.validator, err.validator_value, err.instance

    def at(p: KeyPath, code: str, message: str, hint: str = "", key: bool = False) -> Problem:
        o = _nearest(origins, p)
        line, col = (o.key_line, o.key_col) if key else (o.line, o.col)
        return Problem(o.file, line, col, code, message, hint)

    if "propertyNames" in err.absolute_schema_path:  # the key itself is badly named
        help_ = err.schema.get("patternErrorMessage", f"must match {err.schema.get('pattern')}")
        yield at(path + (value,), "LC033", f"name `{value}`{inside} is not allowed: {help_}",
                 key=True)
    elif keyword == "additionalProperties" and expected is False:
        known = list(err.schema.get("properties", {}))
        for extra in (k for k in value if k not in known):
            hint = _suggest(extra, known) or ("allowed here: " + ", ".join(known))
            yield at(path + (extra,), "LC030", f"unknown key `{extra}`{inside}", hint, key=True)
    elif keyword == "required":
        for missing in (k for k in expected if k not in value):
            yield at(path, "LC031", f"missing required key `{missing}`{inside}", key=True)
    elif keyword == "type":
        words = " or ".join(_TYPE_WORDS.get(t, t) for t in
                            ([expected] if isinstance(expected, str) else expected))
        hint = ""
        if expected == "boolean" and isinstance(value, str):
            hint = "only true and false are booleans in a pack; yes/no/on/off are text"
        elif isinstance(value, str) and expected in ("integer", "number") \
                and re.fullmatch(r"\s*[-+]?[0-9]+(\.[0-9]*)?\s*", value):
            hint = "write the number without quotes"
        yield at(path, "LC032", f"`{where or 'the pack'}` must be {words}, not {_describe(value)}",
                 hint)
    elif keyword == "enum":
        hint = _suggest(str(value), [str(v) for v in expected])
        yield at(path, "LC033", f"`{where}` must be one of {', '.join(map(str, expected))}; "
                 f"not {_describe(value)}", hint)
    elif keyword in ("minimum", "maximum"):
        bound = "at least" if keyword == "minimum" else "at most"
        yield at(path, "LC033", f"`{where}` must be {bound} {expected}, not {value}")
    elif keyword in ("minItems", "maxItems"):
        bound = "at least" if keyword == "minItems" else "at most"
        yield at(path, "LC033", f"`{where}` needs {bound} {expected} item"
                 f"{'s' if expected != 1 else ''}, not {len(value)}")
    elif keyword == "uniqueItems":
        yield at(path, "LC033", f"`{where}` lists an item more than once")
    elif keyword == "minLength":
        yield at(path, "LC033", f"`{where}` must not be empty")
    elif keyword == "pattern":
        help_ = err.schema.get("patternErrorMessage", f"must match {expected}")
        yield at(path, "LC033", f"`{where}` {_describe(value)} is not allowed: {help_}")
    else:
        yield at(path, "LC033", f"`{where or 'the pack'}`: " + " ".join(err.message.split()))


def _deref(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return {**pack_schema()["$defs"][ref[len("#/$defs/"):]], **schema}
    return schema


def _fill_defaults(data: Any, schema: Mapping[str, Any], origins: dict[KeyPath, Origin],
                   path: KeyPath, default: Origin) -> None:
    """Write the schema's defaults into a schema-valid ``data``, marking their origin."""
    if isinstance(data, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(data):
                _fill_defaults(item, _deref(items), origins, path + (index,), default)
        return
    if not isinstance(data, dict):
        return
    for key, sub in schema.get("properties", {}).items():
        sub = _deref(sub)
        if key not in data and "default" in sub:
            data[key] = copy.deepcopy(sub["default"])
            for p in _iter_paths(data[key], path + (key,)):
                origins[p] = default
        if key in data:
            _fill_defaults(data[key], sub, origins, path + (key,), default)


def _with_defaults(data: dict[str, Any], origins: dict[KeyPath, Origin]
                   ) -> tuple[dict[str, Any], dict[KeyPath, Origin]]:
    data, origins = copy.deepcopy(data), dict(origins)
    default = Origin(DEFAULT_FILE, 0, 0)
    _fill_defaults(data, pack_schema(), origins, (), default)
    if "name" not in data and "id" in data:
        data["name"] = data["id"]
        origins[("name",)] = default
    return data, origins


# --------------------------------------------------------------------- LC checks


@dataclass(frozen=True)
class Finding:
    """One semantic problem: the key path it is about, what is wrong, how to fix it."""

    path: KeyPath
    message: str
    hint: str = ""
    key: bool = False  # point at the key rather than the value


Check = Callable[[dict[str, Any]], Iterator[Finding]]

#: code -> (one-line title, check); each check reads a defaults-filled pack whose sections
#: it reads (:data:`CHECK_READS`) are schema-valid
SEMANTIC_CHECKS: dict[str, tuple[str, Check]] = {}
#: code -> the key paths its check reads: it runs when the schema found none of them wrong
CHECK_READS: dict[str, tuple[KeyPath, ...]] = {}
#: family -> the codes of the checks that only its packs get (every pack gets the others):
#: the family is chosen once, by :func:`checks_of`, and a family's check never asks it again
FAMILY_CHECKS: dict[str, list[str]] = {"duel": [], "board": []}


def _check(code: str, title: str, *reads: str, family: str | None = None
           ) -> Callable[[Check], Check]:
    """Register a check of ``code``; ``reads`` are the dotted keys it reads (``deck``,
    ``scoring.tables``); ``family``: the one family whose packs it checks (None: every pack)."""
    def register(fn: Check) -> Check:
        SEMANTIC_CHECKS[code] = (title, fn)
        CHECK_READS[code] = tuple(tuple(key.split(".")) for key in reads)
        if family is not None:
            FAMILY_CHECKS[family].append(code)
        return fn
    return register


BoardCheck = Callable[[dict[str, Any], dict[str, Any]], Iterator[Finding]]


def _board_check(code: str, title: str, *reads: str) -> Callable[[BoardCheck], BoardCheck]:
    """Register a check of the board family that reads the pack's ``board`` section, handed
    to it beside the pack: it runs when the section is there (LC047 says when it is not)."""
    def register(fn: BoardCheck) -> BoardCheck:
        def check(d: dict[str, Any]) -> Iterator[Finding]:
            if "board" in d:
                yield from fn(d, d["board"])
        _check(code, title, "family", "board", *reads, family="board")(check)
        return fn
    return register


def _deck_size(d: dict[str, Any]) -> int:
    deck = d["deck"]
    numbers = max(0, deck["values"]["max"] - deck["values"]["min"] + 1)
    return (numbers * deck["copies"] + deck["wagers"]) * len(deck["colours"])


def _removed(d: dict[str, Any]) -> dict[int, tuple[int, int]]:
    """player count -> (cards removed unseen, index in the list)."""
    return {r["players"]: (r["cards"], i) for i, r in enumerate(d["deck"]["removed_unseen"])}


@_check("LC040", "the deck cannot deal every hand and leave a draw pile, at some player count",
        "deck", "hand_size", "players")
def _deck_too_small(d: dict[str, Any]) -> Iterator[Finding]:
    size, hand, removed = _deck_size(d), d["hand_size"], _removed(d)
    for n in range(d["players"]["max"], d["players"]["min"] - 1, -1):
        cards, index = removed.get(n, (0, -1))
        if size - cards - n * hand >= 1:
            continue
        left = f"{size} cards" + (f", {cards} removed unseen," if cards else "")
        message = (f"at {n} players the deck has {left} but dealing {n} hands of {hand} "
                   f"needs {n * hand} plus at least 1 for the draw pile")
        if cards and size - n * hand >= 1:
            yield Finding(("deck", "removed_unseen", index, "cards"), message,
                          "remove fewer cards unseen")
        else:
            yield Finding(("hand_size",), message,
                          "lower hand_size or players.max, or add colours, values or copies")
        return


#: the most cards a pack's deck may hold (kept in :mod:`lostcities.rulepacks`)
MAX_DECK = rulepacks.MAX_DECK


@_check("LC064", "a setting given both in its 0.1 spelling and in its own words", "rows",
        "wagers", "turn")
def _both_spellings(d: dict[str, Any]) -> Iterator[Finding]:
    # the loader writes an old spelling in the new words file by file (_modern) unless the
    # same file gives the new key too: then both stand here, and they may disagree
    for section, old, _, new_section, new in OLD_SPELLINGS:
        if old in d.get(section, {}) and new in d.get(new_section, {}):
            yield Finding((section, old), f"`{section}.{old}` is the 0.1 spelling of "
                          f"`{new_section}.{new}`, which this file gives too",
                          f"keep `{new_section}.{new}` alone")


@_check("LC063", f"the deck holds more than {MAX_DECK} cards", "deck")
def _deck_too_large(d: dict[str, Any]) -> Iterator[Finding]:
    size = _deck_size(d)
    if size > MAX_DECK:
        deck = d["deck"]
        numbers = max(0, deck["values"]["max"] - deck["values"]["min"] + 1)
        yield Finding(("deck",), f"the deck holds {size:,} cards ({len(deck['colours'])} "
                      f"colours × ({numbers} values × {deck['copies']} copies + "
                      f"{deck['wagers']} wagers)); a deck holds at most {MAX_DECK}",
                      "use fewer colours, values or copies: a round plays through the deck, "
                      "and the bots search it", key=True)


@_check("LC041", "two colours share a key (keys ignore case)", "deck")
def _colour_keys(d: dict[str, Any]) -> Iterator[Finding]:
    first: dict[str, int] = {}
    for i, colour in enumerate(d["deck"]["colours"]):
        key = colour["key"].lower()
        if key in first:
            yield Finding(("deck", "colours", i, "key"),
                          f"colour key `{colour['key']}` is also the key of colour {first[key] + 1}",
                          "each colour needs its own letter")
        first.setdefault(key, i)


@_check("LC042", "colour key `x`, which the card notation keeps for wagers (`rx`)", "deck")
def _colour_key_x(d: dict[str, Any]) -> Iterator[Finding]:
    for i, colour in enumerate(d["deck"]["colours"]):
        if colour["key"].lower() == "x":
            yield Finding(("deck", "colours", i, "key"), "colour key `x` is kept for wagers "
                          "(`rx` is the red wager)", "choose another letter")


@_check("LC043", "two colours share a name", "deck")
def _colour_names(d: dict[str, Any]) -> Iterator[Finding]:
    seen: set[str] = set()
    for i, colour in enumerate(d["deck"]["colours"]):
        name = colour["name"].strip().lower()
        if name in seen:
            yield Finding(("deck", "colours", i, "name"), f"colour name `{colour['name']}` "
                          "is used twice")
        seen.add(name)


@_check("LC044", "`deck.values.min` is greater than `deck.values.max`", "deck")
def _value_range(d: dict[str, Any]) -> Iterator[Finding]:
    values = d["deck"]["values"]
    if values["min"] > values["max"]:
        yield Finding(("deck", "values", "max"), f"values.max {values['max']} is below "
                      f"values.min {values['min']}")


@_check("LC045", "`players.min` is greater than `players.max`", "players")
def _player_range(d: dict[str, Any]) -> Iterator[Finding]:
    players = d["players"]
    if players["min"] > players["max"]:
        yield Finding(("players", "max"), f"players.max {players['max']} is below "
                      f"players.min {players['min']}")


@_check("LC046", "strictly increasing rows with more than one copy of each value", "rows", "deck")
def _strict_copies(d: dict[str, Any]) -> Iterator[Finding]:
    if not takes_equal(d["rows"]["ordering"]) and d["deck"]["copies"] > 1:
        yield Finding(("deck", "copies"), f"with `rows.ordering: {d['rows']['ordering']}` "
                      f"only one of the {d['deck']['copies']} copies of a value can ever "
                      "join a row",
                      "use `ordering: non-decreasing`, or `copies: 1`")


@_check("LC047", "a board-family pack without the `board` section", "family", "board",
        family="board")
def _board_missing(d: dict[str, Any]) -> Iterator[Finding]:
    if "board" not in d:
        yield Finding(("family",), "`family: board` needs a `board` section (pawns, spaces, "
                      "bridge_after, tiles)")


@_check("LC048", "a duel-family pack with a `board` section", "family", "board",
        family="duel")
def _board_in_duel(d: dict[str, Any]) -> Iterator[Finding]:
    if "board" in d:
        yield Finding(("board",), "a `board` section in a duel pack", "set `family: board`, "
                      "or remove the section", key=True)


@_check("LC049", "`round_end.bridge_crossings` set in a duel-family pack", "family", "round_end",
        family="duel")
def _bridges_in_duel(d: dict[str, Any]) -> Iterator[Finding]:
    if d["round_end"]["bridge_crossings"]:
        yield Finding(("round_end", "bridge_crossings"), "bridge crossings end a round only in "
                      "the board game", "use 0 in a duel pack")


@_board_check("LC050", "more event tiles than tile spaces on all tracks", "deck")
def _tiles_fit(d: dict[str, Any], board: dict[str, Any]) -> Iterator[Finding]:
    tiles = sum(t["count"] for t in board["tiles"])
    room = len(board["tile_spaces"]) * len(d["deck"]["colours"])
    if tiles > room:
        yield Finding(("board", "tiles"), f"{tiles} event tiles but only {room} tile spaces "
                      f"({len(board['tile_spaces'])} per track × {len(d['deck']['colours'])} "
                      "tracks)", "add tile_spaces or use fewer tiles", key=True)


@_board_check("LC051", "a tile space beyond the last space of a track")
def _tile_spaces(d: dict[str, Any], board: dict[str, Any]) -> Iterator[Finding]:
    for i, space in enumerate(board["tile_spaces"]):
        if space > board["spaces"]:
            yield Finding(("board", "tile_spaces", i), f"tile space {space} is beyond the "
                          f"track's {board['spaces']} spaces")


@_board_check("LC052", "the bridge is not before the last space")
def _bridge(d: dict[str, Any], board: dict[str, Any]) -> Iterator[Finding]:
    if board["bridge_after"] >= board["spaces"]:
        yield Finding(("board", "bridge_after"), f"bridge_after {board['bridge_after']} must "
                      f"be below spaces ({board['spaces']}): the bridge lies between two spaces")


@_board_check("LC053",
              "the `spaces` scoring table does not have one value per space plus the centre",
              "scoring.tables")
def _spaces_table(d: dict[str, Any], board: dict[str, Any]) -> Iterator[Finding]:
    table = d["scoring"]["tables"].get("spaces")
    if table is not None and len(table) != board["spaces"] + 1:
        yield Finding(("scoring", "tables", "spaces"), f"table `spaces` has {len(table)} "
                      f"values; a track of {board['spaces']} spaces needs "
                      f"{board['spaces'] + 1} (index 0 is the centre)")


@_check("LC054", "`removed_unseen` names a player count outside `players`, or one twice",
        "players", "deck")
def _removed_counts(d: dict[str, Any]) -> Iterator[Finding]:
    low, high = d["players"]["min"], d["players"]["max"]
    seen: set[int] = set()
    for i, entry in enumerate(d["deck"]["removed_unseen"]):
        n = entry["players"]
        if n in seen:
            yield Finding(("deck", "removed_unseen", i, "players"), f"{n} players is listed "
                          "twice in removed_unseen")
        elif not low <= n <= high:
            yield Finding(("deck", "removed_unseen", i, "players"), f"{n} players is outside "
                          f"this pack's {low}-{high}", "drop the entry; a pack that narrows "
                          "`players` lists its own `deck.removed_unseen` (lists replace)")
        seen.add(n)


@_check("LC055", "`match.first_starter` is not a seat at the smallest player count",
        "match", "players")
def _first_starter(d: dict[str, Any]) -> Iterator[Finding]:
    seat, low = d["match"]["first_starter"], d["players"]["min"]
    if seat >= low:
        yield Finding(("match", "first_starter"), f"seat {seat} does not exist with {low} "
                      f"players (seats are 0-{low - 1})")


@_check("LC056", "a scoring formula the family needs is missing", "family",
        *(f"scoring.{name}" for name in _FORMULAS))
def _formulas_present(d: dict[str, Any]) -> Iterator[Finding]:
    for name in _REQUIRED_FORMULAS[d["family"]]:
        if name not in d["scoring"]:
            yield Finding(("family",), f"a {d['family']} pack needs the formula "
                          f"`scoring.{name}`", "see docs/rulepacks.md, Scoring")


@_check("LC057", "a `pawn` formula in a duel-family pack", "family", "scoring.pawn",
        family="duel")
def _pawn_in_duel(d: dict[str, Any]) -> Iterator[Finding]:
    if "pawn" in d["scoring"]:
        yield Finding(("scoring", "pawn"), "a duel pack has no pawns: `scoring.pawn` would "
                      "never be used", key=True)


@_board_check("LC058", "more leaders than pawns")
def _leaders(d: dict[str, Any], board: dict[str, Any]) -> Iterator[Finding]:
    if board["leaders"] > board["pawns"]:
        yield Finding(("board", "leaders"), f"{board['leaders']} leaders but only "
                      f"{board['pawns']} pawns per player")


@_board_check("LC059", "more pawns per player than tracks (one pawn per colour)", "deck")
def _pawns(d: dict[str, Any], board: dict[str, Any]) -> Iterator[Finding]:
    tracks = len(d["deck"]["colours"])
    if board["pawns"] > tracks:
        yield Finding(("board", "pawns"), f"{board['pawns']} pawns per player but only "
                      f"{tracks} tracks; a player engages at most one pawn per colour")


@_board_check("LC060", "`bridge_crossings` can never be reached at the smallest player count",
              "round_end", "players")
def _crossings(d: dict[str, Any], board: dict[str, Any]) -> Iterator[Finding]:
    need = d["round_end"]["bridge_crossings"]
    if need > board["pawns"] * d["players"]["min"]:
        have = board["pawns"] * d["players"]["min"]
        yield Finding(("round_end", "bridge_crossings"), f"{need} bridge crossings, but "
                      f"{d['players']['min']} players have only {have} pawns")


@_check("LC061", "`next_starter_tie` repeats the rule whose tie it must break", "match")
def _tie_rule(d: dict[str, Any]) -> Iterator[Finding]:
    match = d["match"]
    if NEXT_STARTERS[match["next_starter"]].ties \
            and match["next_starter_tie"] == match["next_starter"]:
        yield Finding(("match", "next_starter_tie"), f"a tie on {match['next_starter']} "
                      "cannot be broken by the same rule", "use alternate or same")


#: the tile kinds that carry a value (LC062)
VALUED_TILES = tuple(name for name, kind in TILE_KINDS.items() if kind.valued)


@_board_check("LC062", "a `points` tile worth 0, or a `value` on a tile that is not `points`")
def _tile_values(d: dict[str, Any], board: dict[str, Any]) -> Iterator[Finding]:
    for i, tile in enumerate(board["tiles"]):
        valued = TILE_KINDS[tile["kind"]].valued  # what the kind's tiles carry
        if valued and tile["value"] == 0:
            yield Finding(("board", "tiles", i), f"a {tile['kind']} tile needs a non-zero "
                          "`value`")
        elif not valued and tile["value"] != 0:
            yield Finding(("board", "tiles", i, "value"), f"a {tile['kind']} tile has no "
                          f"value; only {' and '.join(VALUED_TILES)} tiles do")


def checks_of(family: str | None) -> tuple[str, ...]:
    """The codes of the checks a pack of ``family`` gets, in the order they are registered:
    every pack's, and its family's own (:data:`FAMILY_CHECKS`); None (a family the schema
    found wrong): every pack's alone."""
    own = FAMILY_CHECKS.get(family or "", [])
    others = {code for codes in FAMILY_CHECKS.values() for code in codes}.difference(own)
    return tuple(code for code in SEMANTIC_CHECKS if code not in others)


def _semantic_problems(data: dict[str, Any], origins: Mapping[KeyPath, Origin],
                       bad: set[KeyPath]) -> tuple[list[Problem], set[KeyPath]]:
    """The LC checks' problems, and the key paths they are about: the checks of the pack's
    family (:func:`checks_of`). A check runs when none of the keys it reads holds a value the
    schema found wrong (``bad``)."""
    out: list[Problem] = []
    about: set[KeyPath] = set()
    for code in checks_of(None if _touches(bad, ("family",)) else data["family"]):
        check = SEMANTIC_CHECKS[code][1]
        if any(_touches(bad, read) for read in CHECK_READS[code]):
            continue
        for found in check(data):
            o = _nearest(origins, found.path)
            line, col = (o.key_line, o.key_col) if found.key else (o.line, o.col)
            out.append(Problem(o.file, line, col, code, found.message, found.hint))
            about.add(found.path)
    return out, about


#: every code a pack can get, with its one-line title (docs/rulepacks.md lists them all)
CODES: dict[str, str] = {**YAML_CODES, **_EXTENDS_CODES, **_SCHEMA_CODES,
                         **{code: title for code, (title, _fn) in SEMANTIC_CHECKS.items()}}


# --------------------------------------------------------------------- formulas


def formula_marks(resolved: ResolvedPack) -> dict[str, tuple[str, int, int, str]]:
    """``scoring.<key>`` -> (file, line, col, style) where each formula's text starts, and
    where each constant's value and each table is written (``scoring.constants.cost``)."""
    marks: dict[str, tuple[str, int, int, str]] = {}
    scoring = resolved.data.get("scoring", {})
    if not isinstance(scoring, dict):
        return marks
    keys = [(k,) for k in _FORMULAS if k in scoring]
    keys += [(kind, k) for kind in ("breakdown", "constants", "tables")
             if isinstance(scoring.get(kind), dict) for k in scoring[kind]]
    for key in keys:
        o = resolved.origin(("scoring", *key))
        marks["scoring." + ".".join(key)] = (o.file, o.text_line or o.line, o.text_col or o.col,
                                             o.style)
    return marks


def _mark(resolved: ResolvedPack, path: KeyPath) -> tuple[str, int, int, str]:
    o = resolved.origin(path)
    return (o.file, o.line, o.col, o.style)


def scoring_domain(pack: RulePack, resolved: ResolvedPack) -> Any:
    """The ranges of the formulas' inputs in ``pack``'s games (a ``grammar.bounds.Domain``),
    with where in the YAML files each range comes from: the cards' for every pack, and the
    family's own (:data:`FAMILY_DOMAINS`)."""
    marks = {name: _mark(resolved, ("deck", "values")) for name in
             ("values", "points", "numbers", "cards")}
    marks["wagers"] = _mark(resolved, ("deck", "wagers"))
    marks["round"] = marks["rounds"] = _mark(resolved, ("match", "rounds"))
    return Domain(len(pack.colours), pack.min_value, pack.max_value, pack.copies, pack.wagers,
                  pack.rounds, marks=marks,
                  **FAMILY_DOMAINS[pack.family](pack, resolved, marks))


def _duel_domain(pack: RulePack, resolved: ResolvedPack, marks: dict[str, Any]
                 ) -> dict[str, Any]:
    """A duel's formulas read no pawn, space, token or artefact."""
    return {}


def _board_domain(pack: RulePack, resolved: ResolvedPack, marks: dict[str, Any]
                  ) -> dict[str, Any]:
    """The ranges of a board pack's pawns, spaces, tokens and artefacts (``marks`` gains
    where the tokens' and the spaces' come from)."""
    board = pack.board
    points = [(i, t) for i, t in enumerate(board.tiles) if TILE_KINDS[t.kind].effect == POINTS]
    low = sum(t.value * t.count for _, t in points if t.value < 0)
    high = sum(t.value * t.count for _, t in points if t.value > 0)
    artefacts = sum(t.count for t in board.tiles if TILE_KINDS[t.kind].effect == ARTEFACT)
    if points:
        i, _ = max(points, key=lambda it: abs(it[1].value) * it[1].count)
        marks["tokens"] = _mark(resolved, ("board", "tiles", i, "value"))
    marks["space"] = _mark(resolved, ("board", "spaces"))
    return {"pawns": board.pawns, "spaces": board.spaces, "tokens": (low, high),
            "artefacts": artefacts}


#: family -> the ranges of the inputs its formulas alone read, as ``Domain``'s arguments
FAMILY_DOMAINS: dict[str, Callable[[RulePack, ResolvedPack, dict[str, Any]], dict[str, Any]]] = {
    "duel": _duel_domain, "board": _board_domain}


#: what a pack's formulas are bounded over (``scoring_domain``) and what building its
#: RulePack reads: no bound is computed while the schema or an LC check finds one wrong
_BOUNDS_READS: tuple[KeyPath, ...] = tuple((key,) for key in (
    "family", "sources", "players", "deck", "rows", "wagers", "turn", "round_end", "match",
    "board", "scoring"))
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _as_problem(err: LostCitiesError, file: str) -> Problem:
    as_problem = getattr(err, "as_problem", None)
    problem = as_problem() if as_problem else Problem(file, 0, 0, "LC100", str(err))
    return problem if problem.file else replace(problem, file=file)


#: the formulas whose results another formula reads (bounds follow them)
_FEEDS = {"round": frozenset({"expedition", "pawn"}),
          "match": frozenset({"expedition", "pawn", "round"})}


@dataclass
class _Compiled:
    """What :func:`_compiled_formulas` found: problems, the formulas that compiled, the
    scopes present that did not, and whether the whole scoring section compiled."""

    problems: list[Problem] = field(default_factory=list)
    formulas: dict[str, Any] = field(default_factory=dict)
    breakdown: dict[str, Any] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)
    complete: bool = False
    constants: dict[str, int] = field(default_factory=dict)
    tables: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def scoring(self, whole: bool) -> Any:
        """A ``Scoring`` of every formula (``whole``; None unless all compiled), or of those
        whose inputs compiled too, for bounding what can be bounded."""
        if whole:
            return Scoring(self.formulas, self.breakdown) if self.complete else None
        return Scoring({s: f for s, f in self.formulas.items()
                        if not self.failed & _FEEDS.get(s, frozenset())}, self.breakdown)


def _compiled_formulas(data: dict[str, Any], marks: Mapping[str, tuple[str, int, int, str]],
                       bad: set[KeyPath], file: str, trees: Mapping[str, Any] | None = None
                       ) -> _Compiled:
    """Each constant, table and formula of the pack's scoring checked on its own, so that one
    bad formula hides no other. A formula whose text the schema found wrong, or that names a
    constant or table that is itself wrong, is left out (the constant's problem is the one to
    fix); so is every formula when the scoring section, its constants or its tables are not
    mappings. ``trees`` (:func:`shipped_trees`) holds the parse results shipped for the
    formulas of a vouched built-in: those are compiled from them, not parsed."""
    found = _Compiled()
    scoring = data.get("scoring")
    if not isinstance(scoring, dict) or any(p in bad for p in
                                            (("scoring",), ("scoring", "constants"),
                                             ("scoring", "tables"))):
        found.failed.update(_FORMULAS)
        return found
    problems = found.problems
    wrong: set[str] = set()
    constants, tables = found.constants, found.tables
    for kind, defs, keep in (("constants", scoring.get("constants", {}), constants),
                             ("tables", scoring.get("tables", {}), tables)):
        for name, value in defs.items():
            if _touches(bad, ("scoring", kind, name)):
                wrong.add(name)
                continue
            try:
                if kind == "constants":
                    check_definitions({name: value}, {}, marks)
                else:
                    check_definitions(constants, {name: value}, marks)
            except LostCitiesError as err:
                problems.append(_as_problem(err, file))
                wrong.add(name)
                continue
            keep[name] = value if kind == "constants" else tuple(value)
    # the rows and pawns the family scores have a `score` even while their formula is
    # missing: that is LC056's to say, not an unknown field of the round
    family = data.get("family") if not _touches(bad, ("family",)) else None
    needed = _REQUIRED_FORMULAS.get(family, ()) if isinstance(family, str) else ()
    scored = frozenset(k for k in ("expedition", "pawn") if k in scoring or k in needed)
    formulas, breakdown = found.formulas, found.breakdown
    complete = not problems and isinstance(scoring.get("breakdown", {}), dict)
    for scope in SCOPES:
        todo = [(scope, (scope,), formulas)] if scope in scoring else []
        if scope == "expedition" and isinstance(scoring.get("breakdown"), dict):
            todo += [("expedition", ("breakdown", column), breakdown)
                     for column in scoring["breakdown"]]
        for formula_scope, key, out in todo:
            text = scoring[key[0]] if len(key) == 1 else scoring[key[0]][key[1]]
            if _touches(bad, ("scoring", *key)) or not isinstance(text, str) \
                    or wrong.intersection(_WORD.findall(text)):
                complete = False
                found.failed.add(key[0])
                continue
            dotted = "scoring." + ".".join(key)
            tree = None
            if trees and text in trees:
                try:
                    tree = tree_from_data(trees[text])
                except ValueError:
                    tree = None  # not a parse result: the text is parsed
            try:
                out[key[-1]] = compile_formula(text, formula_scope, constants=constants,
                                               tables=tables, key=dotted,
                                               mark=marks.get(dotted), scored=scored,
                                               bound=False, tree=tree)
            except ScoringError as err:  # with every other unknown name of the formula
                problems.extend(_as_problem(each, file) for each in (err, *err.also))
                complete = False
                found.failed.add(key[0])
            except LostCitiesError as err:
                problems.append(_as_problem(err, file))
                complete = False
                found.failed.add(key[0])
    found.complete = complete
    return found


# --------------------------------------------------------------------- pipeline


def _sorted(problems: list[Problem]) -> tuple[Problem, ...]:
    """Unique, in file order, each message on one line whatever text the pack held."""
    unique = dict.fromkeys(replace(p, message=one_line(p.message), hint=one_line(p.hint))
                           for p in problems)
    return tuple(sorted(unique, key=lambda p: (p.file, p.line, p.col, p.code)))


def validate_pack(id_or_path: str | os.PathLike[str], *, allow_outside: bool = False,
                  schema_check: bool = False) -> PackReport:
    """Check one pack completely and report, never raising for a bad pack.

    Every stage runs as far as what it reads is sound, and all their problems are
    reported together: the ids, the schema, each LC semantic check whose keys the schema
    found right, each constant, table and formula on its own, and (when nothing they
    depend on is wrong) the bounds of the formulas over the pack's games. Only a file
    that does not load or a broken `extends` stops the rest.
    ``allow_outside`` lets `extends` name absolute paths and files outside the
    folder of the pack named (refused with LC025 by default). For a chain of unmodified
    built-in packs, the YAML is read from its shipped parsed form (:func:`shipped_document`)
    and the JSON Schema skipped (:func:`schema_vouched`: it passed at build time; the report
    is the same), and its formulas are compiled from their shipped parse results
    (:func:`shipped_trees`: lark is not imported), unless ``schema_check``: then every file
    is parsed and validated. A house pack on top of built-ins is validated against the schema,
    and only the formulas its own files write are parsed. The bounds of the formulas run for
    every pack, vouched or not.
    """
    source = os.fspath(id_or_path)
    try:
        path, display = locate(source)
    except PackError as err:
        return PackReport(source, source, tuple(err.problems))
    docs, paths, problems = _load_chain(path, display, allow_outside, not schema_check)
    if not docs:
        return PackReport(source, display, _sorted(problems))
    broken = bool(problems)  # a broken `extends`: the chain's end is missing
    problems += _chain_id_problems(docs, paths)
    data, origins = _merge_chain(docs)
    raw = ResolvedPack(source, display, tuple(d.file for d in docs), tuple(paths), data, origins)
    if broken:
        return PackReport(source, display, _sorted(problems), resolved=raw)
    # a formula text parses the same wherever it is written: a house pack's formulas that
    # its vouched built-in parents wrote come from their shipped parse results too
    trees: dict[str, Any] = {} if schema_check else shipped_trees(paths)
    if not schema_check and schema_vouched(paths):
        schema, bad = [], set()
    else:
        schema, bad = _schema_problems(data, origins)
    problems += schema
    data, origins = _with_defaults(data, origins)
    resolved = ResolvedPack(source, display, raw.files, raw.paths, data, origins)
    semantic, about = _semantic_problems(data, origins, bad)
    problems += semantic
    marks = formula_marks(resolved)
    compiled = _compiled_formulas(data, marks, bad, display, trees)
    problems += compiled.problems
    pack = None
    if isinstance(data.get("id"), str) and not any(
            _touches(about, read) or (read != ("scoring",) and _touches(bad, read))
            for read in _BOUNDS_READS):
        # the formulas that compiled, and whose inputs did, are bounded over the pack's games
        # (with the constants and tables that are right: a wrong one was reported)

        wrong_scoring = _touches(bad, ("scoring",))
        basis = {**data, "scoring": {}} if wrong_scoring else dict(data)
        hand = basis.get("hand_size")
        if not isinstance(hand, int) or isinstance(hand, bool):
            basis["hand_size"] = 1  # wrong or missing (reported): no formula's domain reads it
        pack = RulePack.from_mapping(basis, path=display, marks=marks)
        scoring = compiled.scoring(whole=compiled.complete)
        try:
            check_scoring(scoring, scoring_domain(pack, resolved), compiled.constants,
                          compiled.tables, marks)
        except LostCitiesError as err:
            problems.append(_as_problem(err, display))
        if compiled.complete and not wrong_scoring:
            pack.use_scoring(scoring)
    if problems or pack is None:
        return PackReport(source, display, _sorted(problems), raw if schema else resolved)
    return PackReport(source, display, _sorted(problems), resolved, pack)


def check_pack(id_or_path: str | os.PathLike[str], *, allow_outside: bool = False
               ) -> list[Problem]:
    """Every problem of one pack (an empty list when it is valid); never raises for bad input."""
    return list(validate_pack(id_or_path, allow_outside=allow_outside).problems)


def resolve_pack(id_or_path: str | os.PathLike[str], *, allow_outside: bool = False
                 ) -> ResolvedPack:
    """The valid pack's merged mapping with defaults and origins; raises :class:`PackError`."""
    report = validate_pack(id_or_path, allow_outside=allow_outside)
    if report.problems or report.resolved is None:
        raise PackError(list(report.problems))
    return report.resolved


@dataclass(frozen=True)
class _Cached:
    paths: tuple[Path, ...]
    stamps: tuple[tuple[int, int], ...]
    pack: RulePack


_CACHE: OrderedDict[str, _Cached] = OrderedDict()
_CACHE_SIZE = 64


def _stamps(paths: tuple[Path, ...]) -> tuple[tuple[int, int], ...] | None:
    try:
        return tuple((s.st_mtime_ns, s.st_size) for s in (p.stat() for p in paths))
    except OSError:
        return None


def load_pack(id_or_path: str | os.PathLike[str], *, allow_outside: bool = False) -> RulePack:
    """The :class:`RulePack` of a built-in id or a pack file; raises :class:`PackError`.

    Loaded once: later calls return the same object while no file of its
    ``extends`` chain changed on disk (modification time and size).
    ``allow_outside``: see :func:`validate_pack`.

    >>> load_pack("duel-classic").deck_size
    60
    """
    path, display = locate(id_or_path)
    key = f"{os.path.realpath(path)}\0{display}\0{allow_outside}"
    hit = _CACHE.get(key)
    if hit is not None and _stamps(hit.paths) == hit.stamps:
        _CACHE.move_to_end(key)
        return hit.pack
    report = validate_pack(id_or_path, allow_outside=allow_outside)
    if report.problems or report.pack is None or report.resolved is None:
        raise PackError(list(report.problems))
    stamps = _stamps(report.resolved.paths)
    if stamps is not None:
        _CACHE[key] = _Cached(report.resolved.paths, stamps, report.pack)
        _CACHE.move_to_end(key)
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return report.pack
