"""``lc packs``, ``lc show``, ``lc schema`` and ``lc new``: list, inspect and start rule packs."""
from __future__ import annotations

import glob
import json
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Optional

import typer

from lostcities.engine import builtin_ids, validate_pack
from lostcities.engine.errors import InputError
from lostcities.engine.tooling import (builtin_dir, builtin_path, check_path, escape_hidden,
                                       format_path, is_hidden, iter_leaves, kind_of, loads_as_text,
                                       schema_text, shown_path)
from lostcities.i18n import LANGS, Catalogue, detect_lang

from .common import ALLOW_OUTSIDE, EXIT_PROBLEM, EXIT_USAGE, complete_pack, fail, plain, plain_json

if TYPE_CHECKING:
    from lostcities.engine import PackReport, ResolvedPack


def register(app: typer.Typer) -> None:
    app.command("packs")(packs)
    app.command("show")(show)
    app.command("schema")(schema)
    app.command("new")(new)


def complete_pack_or_file(incomplete: str) -> list[str]:
    """Shell completion: built-in pack ids, then .yaml/.yml files and folders."""
    found = [p + os.sep if os.path.isdir(p) else p
             for p in sorted(glob.glob(glob.escape(incomplete) + "*"))
             if os.path.isdir(p) or p.endswith((".yaml", ".yml"))]
    return complete_pack(incomplete) + found


def _report_or_fail(source: str, what: str = "PACK", allow_outside: bool = False
                    ) -> PackReport:
    """The pack's report; on any problem print each on stderr and exit (2 if not found,
    or if the path is too long: ``what`` names the argument then). ``allow_outside``:
    its `extends` may leave its folder (``--allow-outside``)."""
    _check_path(source, what)
    report = validate_pack(source, allow_outside=allow_outside)
    if report.valid:
        return report
    unreadable = report.resolved is None and report.problems[0].code == "LC009" \
        and report.problems[0].file == report.file
    _fail_problems(report, EXIT_USAGE if unreadable else EXIT_PROBLEM)


def _fail_problems(report: PackReport, code: int) -> NoReturn:
    """Exit with ``code`` after one line: the pack's first problem, and how many more there are
    (``lc validate`` lists them all)."""
    first, more = report.problems[0], len(report.problems) - 1
    tail = f" (and {more} more; lc validate {report.file} lists them all)" if more else ""
    fail(f"{plain(first)}{plain(tail)}", code)


def _check_path(path: Any, what: str) -> Path:
    """``path`` as a :class:`Path`, or a one-line usage error (exit 2) if the file system
    could not hold its name (empty, a NUL, a component over 255 bytes, over 4,096 in all)."""
    try:
        return check_path(path, what)
    except InputError as err:
        fail(str(err), EXIT_USAGE)


# ------------------------------------------------------------------- lc packs


def packs(as_json: bool = typer.Option(False, "--json", help="One JSON list instead of a table."),
          lang: Optional[str] = typer.Option(
              None, "--lang", metavar="LANG",
              help="en or fr: the headings, names and descriptions (default: the locale's "
                   "language, else en).")) -> None:
    """List the built-in rule packs: id, family, players, house rule, description."""
    chosen = lang if lang is not None else detect_lang()
    if chosen not in LANGS:
        fail(f"--lang {lang!r}: choose {' or '.join(LANGS)}", EXIT_USAGE)
    cat = Catalogue(chosen)
    rows: list[dict[str, Any]] = []
    broken = False
    for pack_id in builtin_ids():
        report = validate_pack(pack_id)
        data = report.resolved.data if report.resolved is not None else {}
        players = data.get("players", {})
        row = {"id": pack_id, "family": data.get("family", "?"),
               "players": {"min": players.get("min"), "max": players.get("max")},
               "house_rule": bool(data.get("house_rule", False)),
               "name": cat.pack_name(pack_id, data.get("name", pack_id)),
               "description": cat.pack_description(pack_id, data.get("description", "")),
               "valid": report.valid}
        if not report.valid:
            broken = True
            row["description"] = f"INVALID: {report.problems[0]}"
        rows.append(row)

    if as_json:
        typer.echo(plain_json(rows))
    else:
        table = [tuple(cat(f"packs.{column}") for column in
                       ("id", "family", "players", "house", "description"))]
        for row in rows:
            low, high = row["players"]["min"], row["players"]["max"]
            table.append((row["id"], plain(cat.get(f"packs.family.{row['family']}", row["family"])),
                          str(low) if low == high else f"{low}-{high}",
                          cat("packs.house.yes") if row["house_rule"] else "",
                          plain(row["description"])))
        widths = [max(len(r[i]) for r in table) for i in range(4)]
        for r in table:
            typer.echo("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])
    if broken:
        raise typer.Exit(EXIT_PROBLEM)


# ------------------------------------------------------------------- lc show


def show(
    pack: str = typer.Argument(..., metavar="PACK", autocompletion=complete_pack_or_file,
                               help="A built-in pack id or a pack file."),
    explain: bool = typer.Option(False, "--explain",
                                 help="Say which file and line each value came from."),
    as_json: bool = typer.Option(False, "--json", help="JSON instead of YAML (or text)."),
    allow_outside: bool = ALLOW_OUTSIDE,
) -> None:
    """Print the resolved pack: extends merged, defaults filled in.

    Text from the pack never reaches the terminal as control characters: YAML and
    JSON write them as escapes (``\\e``, ``\\u202e``), the rest drops them.
    """
    resolved = _report_or_fail(pack, allow_outside=allow_outside).resolved
    assert resolved is not None
    if explain:
        typer.echo(explain_json(resolved) if as_json else explain_text(resolved), nl=False)
    elif as_json:
        typer.echo(plain_json(resolved.data))
    else:
        chain = plain(_chain(resolved, shown_files(resolved)))
        typer.echo(f"# {resolved.data['id']}, resolved: {chain}; defaults filled in\n"
                   + dump_yaml(resolved.data), nl=False)


def dump_yaml(data: dict[str, Any]) -> str:
    """The pack as block YAML: formulas as ``|`` blocks, short mappings and lists inline.

    A string holding a control character other than a line break is double-quoted
    with it escaped (PyYAML escapes C0, DEL and C1 itself; the bidirectional
    controls, which it would write as they are, become ``\\u202e``...), so the text
    reads back the same and the terminal shows it as written.
    """
    import yaml


    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        # PyYAML quotes by YAML 1.1; packs load by 1.2 (0o17 is a number there, yes is text)
        if any(is_hidden(ch) and ch != "\n" for ch in value):
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
        style = "|" if "\n" in value else (None if loads_as_text(value) else "'")
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    def mapping(dumper: yaml.SafeDumper, value: dict[str, Any]) -> yaml.Node:
        flat = (0 < len(value) <= 3 and all(isinstance(v, (int, bool)) or
                                            (isinstance(v, str) and "\n" not in v)
                                            for v in value.values())
                and sum(len(str(k)) + len(str(v)) for k, v in value.items()) < 50)
        return dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=flat)

    def sequence(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.Node:
        flat = all(isinstance(v, (int, bool)) or (isinstance(v, str) and len(v) < 30)
                   for v in value)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flat)

    Dumper.add_representer(str, text)
    Dumper.add_representer(dict, mapping)
    Dumper.add_representer(list, sequence)
    dumped = yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100)
    # left in a string only, always a double-quoted one (above), where \uXXXX reads back
    return escape_hidden(dumped, yaml=True)


def shown_files(resolved: ResolvedPack) -> dict[str, str]:
    """How ``lc show`` names each file of the pack's chain (by the loader's name): a
    built-in pack by its file name (``duel-classic.yaml``, wherever the package is
    installed), another file relative to the working folder, absolute only outside it."""
    builtins = builtin_dir().resolve()
    here = Path(os.path.abspath(os.getcwd()))
    shown = {}
    for name, path in zip(resolved.files, resolved.paths):
        full = Path(os.path.abspath(path))  # the name it was reached by, not a link's target
        if Path(path).resolve().parent == builtins:
            shown[name] = full.name
        elif full.is_relative_to(here):
            shown[name] = str(full.relative_to(here))
        else:
            shown[name] = str(full)
    return shown


def _chain(resolved: ResolvedPack, shown: dict[str, str]) -> str:
    """``house.yaml extends duel-classic.yaml (built-in)``."""
    builtins = builtin_dir().resolve()
    return " extends ".join(
        shown.get(name, name) + (" (built-in)" if Path(path).resolve().parent == builtins
                                 else "")
        for name, path in zip(resolved.files, resolved.paths))


def explain_text(resolved: ResolvedPack) -> str:
    """One line a value: ``file:line:col  path = value`` (``(default)`` for schema defaults);
    files are named as :func:`shown_files` says."""
    shown = shown_files(resolved)

    def where(path: tuple) -> str:
        origin = resolved.origin(path)
        name = shown.get(origin.file, origin.file)
        return plain(f"{name}:{origin.line}:{origin.col}" if origin.line else name)

    rows = [(where(p) if not resolved.origins[p].is_default else "(default)",
             f"{plain(format_path(p))} = {plain_json(v, indent=None)}")
            for p, v in iter_leaves(resolved.data)]
    width = max(len(w) for w, _ in rows)
    head = f"# {resolved.data['id']}: {plain(_chain(resolved, shown))}\n"
    return head + "".join(f"{w.ljust(width)}  {v}\n" for w, v in rows)


def explain_json(resolved: ResolvedPack) -> str:
    values = []
    for path, value in iter_leaves(resolved.data):
        o = resolved.origins[path]
        values.append({"path": format_path(path), "value": value,
                       "file": None if o.is_default else o.file,
                       "line": o.line or None, "col": o.col or None,
                       "default": o.is_default})

    return plain_json({"id": resolved.data["id"], "files": list(resolved.files),
                       "values": values}) + "\n"


# ------------------------------------------------------------------- lc schema


def schema() -> None:
    """Print the rule-pack JSON Schema (draft 2020-12), e.g. `lc schema > pack.schema.json`."""
    typer.echo(schema_text(), nl=False)


# ------------------------------------------------------------------- lc new


def new(
    file: Path = typer.Argument(..., metavar="FILE", help="The house pack to write (.yaml)."),
    base: str = typer.Option("duel-classic", "--from", autocompletion=complete_pack_or_file,
                             help="The pack it extends: a built-in id or a pack file."),
    force: bool = typer.Option(False, "--force", help="Overwrite FILE if it exists."),
    allow_outside: bool = ALLOW_OUTSIDE,
) -> None:
    """Write a short, commented house pack that extends BASE, ready to edit and validate.

    FILE must not exist (--force replaces a regular file, never a folder, a link, a
    device or a pipe); the file appears whole or not at all. A BASE file outside
    FILE's folder (../bases/club.yaml) needs --allow-outside, here and wherever the
    new pack is used; without it nothing is written.
    """
    _check_path(file, "FILE")
    where = shown_path(file)
    if file.suffix not in (".yaml", ".yml"):
        fail(f"{where}: a pack file name ends in .yaml or .yml", EXIT_USAGE)
    _check_target(file, force)
    if not file.parent.is_dir():
        fail(f"{where}: folder {shown_path(file.parent)} does not exist", EXIT_USAGE)
    resolved = _report_or_fail(base, "--from", allow_outside).resolved
    assert resolved is not None
    is_builtin = "/" not in base and builtin_path(base) is not None
    outside = not is_builtin and not _inside(Path(base), file.parent)
    flag = " --allow-outside" if outside else ""  # what every command on it then needs
    if is_builtin:
        extends = base
    else:
        # relative to the folder as the system resolves it, so `..` leads where it says
        extends = os.path.relpath(os.path.join(os.path.realpath(os.path.dirname(base) or "."),
                                               os.path.basename(base)),
                                  os.path.realpath(file.parent))
        extends = extends.replace(os.sep, "/")
        extends = extends if "/" in extends else f"./{extends}"
        if outside and not allow_outside:
            # the new pack would be refused (LC025): say so before writing anything
            fail(f"--from {shown_path(base)}: error LC025 `extends: {extends}` would lead "
                 f"out of the folder of {where} ({shown_path(file.parent)}); nothing was "
                 f"written (add --allow-outside, here and wherever the pack is used, or "
                 f"keep the base in that folder or below)")
    modeline, portable = schema_ref(file.parent)
    taken = {resolved.data["id"]} | {Path(f).stem for f in resolved.files}
    text = house_pack_text(file, resolved.data, extends, modeline, taken, flag)
    _write_new(file, text, force)
    report = validate_pack(str(file), allow_outside=allow_outside)
    if not report.valid:  # the template is meant to validate; say so loudly if it does not
        _fail_problems(report, EXIT_PROBLEM)
    typer.echo(plain(f"wrote {file} (id {report.id}, extends {extends}); "
                     f"edit it, then run: lc validate{flag} {file}"))
    if not portable:
        typer.echo(plain(f"note: its $schema line points into this Python install (for "
                         f"editor completion); for a pack you share, keep a copy next to "
                         f"it: lc schema > {(file.parent / SCHEMA_NAME).as_posix()} (lc new "
                         f"then points to it)"))


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` (links followed) lies in ``folder`` or below, as the pack loader
    decides it for an `extends` (the folder of the pack named is its root)."""
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _check_target(file: Path, force: bool) -> None:
    """Refuse, in one line, a FILE that exists (unless ``force`` and a regular file)."""
    where = shown_path(file)
    try:
        mode = os.lstat(file).st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        fail(f"{where}: cannot be written: {err.strerror or err}", EXIT_USAGE)
    if stat.S_ISLNK(mode):
        fail(f"{where}: is a symbolic link; lc new writes a file, not through a link "
             f"(give the path it points to)", EXIT_USAGE)
    if not stat.S_ISREG(mode):
        fail(f"{where}: is {kind_of(mode)}, not a regular file; lc new writes a new pack file",
             EXIT_USAGE)
    if not force:
        fail(f"{where} already exists; use --force to overwrite it", EXIT_USAGE)


def _write_new(file: Path, text: str, force: bool) -> None:
    """Write ``text`` to ``file`` whole or not at all: without ``force`` only if it still
    does not exist (created exclusively, never through a link); with it, a temporary
    file in the same folder then renamed over the old one."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    target = file.with_name(f".{file.name}.{os.getpid()}.tmp") if force else file
    try:
        fd = os.open(target, flags, 0o666)
    except FileExistsError:
        fail(f"{shown_path(file)} already exists; use --force to overwrite it", EXIT_USAGE)
    except OSError as err:
        fail(f"{shown_path(file)}: cannot write: {err.strerror or err}", EXIT_USAGE)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        if force:
            os.replace(target, file)
    except OSError as err:
        target.unlink(missing_ok=True)
        fail(f"{shown_path(file)}: cannot write: {err.strerror or err}", EXIT_USAGE)


#: the file name ``lc new`` looks for (and ``lc schema`` suggests) next to a house pack
SCHEMA_NAME = "pack.schema.json"


def schema_ref(folder: Path) -> tuple[str, bool]:
    """The ``$schema`` reference of the editor modeline of a pack in ``folder``, and
    whether it travels with the pack: a ``pack.schema.json`` in the folder or one of its
    parents (a relative path, good in a shared repository), else the installed schema
    (an absolute path, good on this machine only)."""
    here = folder.resolve()
    for place in (here, *here.parents):
        if (place / SCHEMA_NAME).is_file():
            return os.path.relpath(place / SCHEMA_NAME, here).replace(os.sep, "/"), True
    return (builtin_dir() / SCHEMA_NAME).as_posix(), False


def house_pack_id(file: Path, taken: set[str]) -> str:
    """A pack id from the file name: ``My House.yaml`` -> ``my-house``, never a base's id."""
    pack_id = re.sub(r"[^a-z0-9]+", "-", file.stem.lower()).strip("-")[:58] or "house"
    return f"{pack_id}-house" if pack_id in taken else pack_id


def house_pack_text(file: Path, base: dict[str, Any], extends: str, schema_ref: str,
                    taken: set[str], flag: str = "") -> str:
    """The commented starting text of a house pack extending ``base`` (``flag``: what
    its commands need, `` --allow-outside`` for a base outside its folder)."""
    pack_id = house_pack_id(file, taken)
    name = json.dumps(pack_id.replace("-", " ").capitalize() + " (house rule)",
                      ensure_ascii=False)
    description = json.dumps(f"House rule: {base['id']} with ... (say what you changed).")
    players = base["players"]
    lines = [
        f"# yaml-language-server: $schema={schema_ref}",
        f"# House rules on top of {base['id']}. Only what you write here changes:",
        "# mappings merge key by key, a list (colours, tiles...) replaces the base's list",
        f"# whole, and everything else comes from {plain(extends)}.",
        f"# Check it: lc validate{flag} {plain(file)}    See the result: lc show{flag} "
        f"{plain(file)} --explain",
        f"id: {pack_id}",
        f"extends: {extends}",
        f"name: {name}",
        f"description: {description}",
        "house_rule: true",
        "",
        f"# Uncomment and edit what you change; the values shown are {base['id']}'s.",
        f"# players: {{min: {players['min']}, max: {players['max']}}}",
        f"# hand_size: {base['hand_size']}",
        "# rows:",
        f"#   ordering: {base['rows']['ordering']}   # strict | non-decreasing | either-direction",
        "# match:",
        f"#   rounds: {base['match']['rounds']}",
    ]
    constants = base.get("scoring", {}).get("constants", {})
    if constants:
        lines += ["# scoring:", "#   constants:"]
        lines += [f"#     {k}: {v}" for k, v in constants.items()]
    return "\n".join(lines) + "\n"
