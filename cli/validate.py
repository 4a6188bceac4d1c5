"""``lc validate``: check rule packs for CI, reporting every problem of every pack."""
from __future__ import annotations

import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer

from .common import EXIT_PROBLEM, EXIT_USAGE
from .packs import complete_pack_or_file

if TYPE_CHECKING:
    from lostcities.engine.errors import Problem
    from lostcities.engine.packs import PackReport

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
) -> None:
    """Check rule packs: YAML, extends, schema, LC rules and scoring formulas.

    Exit 0 when every pack is valid, 1 when any pack has a problem, 2 when a path
    does not exist or cannot be read. Files other than .yaml/.yml are skipped, so
    `lc validate rulepacks/*` works.
    """
    from lostcities.engine.packs import validate_pack

    chosen = output or (Format.github if os.environ.get("GITHUB_ACTIONS") == "true"
                        else Format.text)
    sources, skipped, unusable = expand_targets(targets)
    for message in unusable:
        sys.stderr.write(f"lc: error: {message}\n")
    if not sources and not unusable:
        sys.stderr.write("lc: error: nothing to validate: no .yaml/.yml pack files given\n")
        raise typer.Exit(EXIT_USAGE)
    reports = [validate_pack(source) for source in sources]
    if chosen is Format.json:
        typer.echo(json.dumps({
            "packs": [r.as_dict() for r in reports],
            "checked": len(reports),
            "invalid": sum(not r.valid for r in reports),
            "skipped": skipped,
            "unusable": unusable,
        }, indent=2, ensure_ascii=False))
    else:
        emit = _github_line if chosen is Format.github else _text_line
        seen: set[Problem] = set()
        for report in reports:
            for item in report.problems:
                if item not in seen:  # a shared base's problem shows once, not per extension
                    seen.add(item)
                    typer.echo(emit(item))
        sys.stderr.write(summary(reports, skipped) + "\n")
    if unusable:
        raise typer.Exit(EXIT_USAGE)
    if any(not r.valid for r in reports):
        raise typer.Exit(EXIT_PROBLEM)


def expand_targets(targets: List[str]) -> tuple[list[str], list[str], list[str]]:
    """(pack sources to check, files skipped as not YAML, messages for unusable targets)."""
    from lostcities.engine.packs import builtin_path

    sources: list[str] = []
    skipped: list[str] = []
    unusable: list[str] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*")
                           if p.suffix in PACK_SUFFIXES and p.is_file())
            sources.extend(str(p) for p in found)
        elif path.is_file():
            if path.suffix not in PACK_SUFFIXES:
                skipped.append(target)
            elif not os.access(path, os.R_OK):
                unusable.append(f"{target}: cannot be read (permission denied)")
            else:
                sources.append(target)
        elif "/" not in target and builtin_path(target) is not None:
            sources.append(target)
        else:
            unusable.append(f"{target}: no such file, folder or built-in pack")
    return sources, skipped, unusable


def summary(reports: list[PackReport], skipped: list[str]) -> str:
    """``3 packs checked, 1 with problems (2 problems)`` and what was skipped."""
    bad = [r for r in reports if not r.valid]
    text = f"{len(reports)} pack{'s' if len(reports) != 1 else ''} checked, "
    if bad:
        count = sum(len(r.problems) for r in bad)
        text += f"{len(bad)} with problems ({count} problem{'s' if count != 1 else ''})"
    else:
        text += "all valid"
    if skipped:
        text += f"; {len(skipped)} file{'s' if len(skipped) != 1 else ''} skipped (not .yaml/.yml)"
    return text


def _text_line(item: Problem) -> str:
    # the one-line problem, then (formulas) the caret excerpt under it, as compilers do
    return f"{item}\n{item.excerpt.rstrip()}" if item.excerpt else str(item)


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _github_line(item: Problem) -> str:
    """A GitHub Actions workflow command: ``::error file=...,line=...,col=...,title=...::msg``."""
    props = [f"file={_escape(item.file, True)}"]
    if item.line:
        props += [f"line={item.line}", f"col={item.col or 1}"]
    props.append(f"title={_escape(item.code, True)}")
    message = f"{item.code} {item.message}" + (f" ({item.hint})" if item.hint else "")
    return f"::error {','.join(props)}::{_escape(message)}"
