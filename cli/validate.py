"""``lc validate``: check rule packs for CI, reporting every problem of every pack."""
from __future__ import annotations

import json
import os
import re
import stat
import sys
from enum import Enum
from typing import TYPE_CHECKING, List, Optional

import typer

from lostcities.engine import PackReport, validate_pack
from lostcities.engine.errors import InputError, LostCitiesError, PackError
from lostcities.engine.tooling import builtin_path, check_path, kind_of, plain_text, shown_path

from .common import ALLOW_OUTSIDE, EXIT_PROBLEM, EXIT_USAGE
from .packs import complete_pack_or_file

if TYPE_CHECKING:
    from lostcities.engine.errors import Problem

PACK_SUFFIXES = (".yaml", ".yml")


class Format(str, Enum):
    text = "text"
    json = "json"
    github = "github"


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)


def validate(
    targets: List[str] = typer.Argument(
        ..., metavar="PATH_OR_ID...", autocompletion=complete_pack_or_file, show_default=False,
        help="Pack files, folders (their .yaml/.yml files) or built-in pack ids."),
    output: Optional[Format] = typer.Option(
        None, "--format", "-f", case_sensitive=False,
        help="text (file:line:col: error LC0xx message), json (one document) or github "
             "(workflow annotations). Default: github under GitHub Actions, else text."),
    allow_outside: bool = ALLOW_OUTSIDE,
) -> None:
    """Check rule packs: YAML, extends, schema, LC rules and scoring formulas.

    Exit 0 when every pack is valid, 1 when any pack has a problem, 2 when a path
    is empty, does not exist, is not a file or folder, or cannot be read (the other
    packs are still checked and reported). Files other than .yaml/.yml are skipped,
    so `lc validate rulepacks/*` works. An `extends:` path stays in the folder of the
    pack checked unless --allow-outside (LC025).
    """
    chosen = output or (Format.github if os.environ.get("GITHUB_ACTIONS") == "true"
                        else Format.text)
    sources, skipped, unusable = expand_targets(targets)
    for message in unusable:
        sys.stderr.write(f"lc: error: {message}\n")
    if not sources:
        if not unusable:
            sys.stderr.write("lc: error: nothing to validate: no .yaml/.yml pack files given\n")
        raise typer.Exit(EXIT_USAGE)
    reports, failed = [], []
    for source in sources:
        report = _report(source, allow_outside)
        if isinstance(report, str):
            failed.append(report)
        else:
            reports.append(report)
    if chosen is Format.json:
        typer.echo(json.dumps({
            "packs": [r.as_dict() for r in reports],
            "checked": len(reports),
            "invalid": sum(not r.valid for r in reports),
            "skipped": skipped,
            "unusable": unusable,
            "failed": failed,
        }, indent=2, ensure_ascii=False))
        for message in failed:
            sys.stderr.write(f"lc: error: {message}\n")
    else:
        emit = _github_line if chosen is Format.github else _text_line
        seen: set[Problem] = set()
        for report in reports:
            for item in report.problems:
                if item not in seen:  # a shared base's problem shows once, not per extension
                    seen.add(item)
                    typer.echo(emit(item))
        for message in failed:
            sys.stderr.write(f"lc: error: {message}\n")
        if reports:  # with none checked, the error lines above are the whole story
            sys.stderr.write(summary(reports, skipped, len(unusable), len(failed)) + "\n")
    if unusable:
        raise typer.Exit(EXIT_USAGE)
    if failed or any(not r.valid for r in reports):
        raise typer.Exit(EXIT_PROBLEM)


def _report(source: str, allow_outside: bool = False) -> "PackReport | str":
    """The pack report of ``source``, or the one line saying why it could not be checked.

    validate_pack reports a bad pack rather than raising; should it raise all the same
    (a library error, or a bug), that file is reported and the batch goes on.
    """
    try:
        return validate_pack(source, allow_outside=allow_outside)
    except PackError as err:
        return PackReport(source, source, tuple(err.problems))
    except LostCitiesError as err:
        return _one_line(f"{source}: {err}")
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as err:  # a bug: one line naming the file, never a traceback
        return _one_line(f"{source}: internal error while checking it: "
                         f"{type(err).__name__}: {err}")


def _one_line(text: str, limit: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def expand_targets(targets: List[str]) -> tuple[list[str], list[str], list[str]]:
    """(pack sources to check, files skipped as not YAML, messages for unusable targets)."""
    sources: list[str] = []
    skipped: list[str] = []
    unusable: list[str] = []
    for target in targets:
        try:
            path = check_path(target)  # an empty name or one the file system cannot hold
        except InputError as err:
            unusable.append(str(err))
            continue
        shown = target if target.isprintable() and len(target) < 256 else shown_path(target)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            mode = None
        except OSError as err:
            unusable.append(f"{shown}: cannot be read ({err.strerror or err})")
            continue
        if mode is None:
            if "/" not in target and builtin_path(target) is not None:
                sources.append(target)
            else:
                unusable.append(f"{shown}: no such file, folder or built-in pack")
        elif stat.S_ISDIR(mode):
            found = sorted(p for p in path.rglob("*")
                           if p.suffix in PACK_SUFFIXES and p.is_file())
            sources.extend(str(p) for p in found)
        elif not stat.S_ISREG(mode):
            unusable.append(f"{shown}: is {kind_of(mode)}, not a pack file")
        elif path.suffix not in PACK_SUFFIXES:
            skipped.append(target)
        elif not os.access(path, os.R_OK):
            unusable.append(f"{shown}: cannot be read (permission denied)")
        else:
            sources.append(target)
    return sources, skipped, unusable


def summary(reports: list[PackReport], skipped: list[str], unusable: int = 0,
            failed: int = 0) -> str:
    """``3 packs checked, 1 with problems (2 problems)``, what was skipped and, when a path
    could not be used or a pack not checked, that too: "all valid" only when nothing went
    wrong, and ``no pack could be checked`` when none was."""
    def count(n: int, word: str) -> str:
        return f"{n} {word}{'s' if n != 1 else ''}"

    bad = [r for r in reports if not r.valid]
    if not reports:
        text = "no pack could be checked"
    else:
        text = f"{count(len(reports), 'pack')} checked, "
        if bad:
            text += (f"{len(bad)} with problems "
                     f"({count(sum(len(r.problems) for r in bad), 'problem')})")
        elif unusable or failed:
            text += f"no problems in {'it' if len(reports) == 1 else 'them'}"
        else:
            text += "all valid"
        if failed:
            text += f"; {count(failed, 'pack')} could not be checked"
    if unusable:
        text += f"; {count(unusable, 'path')} could not be used"
    if skipped:
        text += f"; {count(len(skipped), 'file')} skipped (not .yaml/.yml)"
    return text


def _text_line(item: Problem) -> str:
    # the one-line problem, then (formulas) the caret excerpt under it, as compilers do
    return f"{item}\n{item.excerpt.rstrip()}" if item.excerpt else str(item)


def _escape(text: str, prop: bool = False) -> str:
    """``text`` as GitHub's workflow commands carry it: ``%``, CR and LF always escaped
    (``%25``, ``%0D``, ``%0A``), ``:`` and ``,`` too in a property (``%3A``, ``%2C``);
    the other characters data text never shows (:func:`lostcities.engine.safeio.plain_text`:
    ESC would colour GitHub's log) are dropped, a tab becomes a space."""
    text = "".join(part if part in ("\r", "\n") else plain_text(part)
                   for part in re.split("([\r\n])", text))
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _github_line(item: Problem) -> str:
    """A GitHub Actions workflow command: ``::error file=...,line=...,col=...,title=LC0xx::msg``.

    GitHub shows the title (the code) in bold above the message, so the message does not
    repeat it; every property and the message are escaped (they quote the pack's data).
    """
    props = [f"file={_escape(item.file, True)}"]
    if item.line:
        props += [f"line={item.line}", f"col={item.col or 1}"]
    props.append(f"title={_escape(item.code, True)}")
    message = item.message + (f" ({item.hint})" if item.hint else "")
    return f"::error {','.join(props)}::{_escape(message)}"
