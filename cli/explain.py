"""``lc explain``: a rule pack written out as a readable rulebook, in English or French.

The rulebook itself is built by :func:`lostcities.engine.tooling.explain` (sections of
sentences as message keys and values) and worded by :func:`lostcities.i18n.rulebook.render`
(plain text wrapped to the terminal, Markdown or a standalone HTML page); this module is
the command.
"""
from __future__ import annotations

import shutil
from dataclasses import replace
from typing import TYPE_CHECKING, Optional

import typer

from lostcities.engine import PackError, load_pack, validate_pack
from lostcities.engine.tooling import explain as build
from lostcities.i18n import LANGS, detect_lang
from lostcities.i18n.rulebook import FORMATS, render

from .common import ALLOW_OUTSIDE, EXIT_PROBLEM, EXIT_USAGE, fail
from .packs import complete_pack_or_file

if TYPE_CHECKING:
    from lostcities.engine.tooling import Explanation

#: text output is wrapped to the terminal's width, within these bounds
MIN_WIDTH, MAX_WIDTH = 40, 100


def register(app: typer.Typer) -> None:
    app.command("explain")(explain)


def explain(
    pack: str = typer.Argument(..., metavar="PACK", autocompletion=complete_pack_or_file,
                               help="A built-in pack id or a pack file."),
    lang: Optional[str] = typer.Option(
        None, "--lang", metavar="LANG",
        help="en or fr (default: the locale's language, else en)."),
    fmt: str = typer.Option("text", "--format", metavar="FORMAT",
                            help="text (wrapped to the terminal), md (Markdown) or html "
                                 "(a standalone page)."),
    allow_outside: bool = ALLOW_OUTSIDE,
) -> None:
    """Write the rules of a pack as a rulebook: setup, a turn, rows, wagers, the draw,
    the end of a round and of the match, who starts, scoring with the pack's own
    formulas and a worked example scored by them, and the board of a board pack.

    For a house pack (one that extends another) the settings that differ from the
    base come first, and the sentences that changed are marked.

      lc explain duel-classic --lang fr --format html > regles.html
    """
    chosen = lang if lang is not None else detect_lang()
    if chosen not in LANGS:
        fail(f"--lang {lang!r}: choose {' or '.join(LANGS)}", EXIT_USAGE)
    if fmt not in FORMATS:
        fail(f"--format {fmt!r}: choose {', '.join(FORMATS[:-1])} or {FORMATS[-1]}", EXIT_USAGE)
    book = _explanation(pack, allow_outside)
    width = max(MIN_WIDTH, min(MAX_WIDTH, shutil.get_terminal_size((80, 24)).columns))
    typer.echo(render(book, chosen, fmt, width), nl=False)


def _explanation(name: str, allow_outside: bool = False) -> "Explanation":
    """The pack's rulebook, or a one-line error: exit 2 when the pack does not exist,
    1 when it (or its base) is invalid. ``allow_outside``: its `extends` may leave its
    folder (``--allow-outside``)."""
    try:
        try:
            return build(name)
        except PackError as err:
            if not allow_outside or all(p.code != "LC025" for p in err.problems):
                raise
        # a chain that leaves the pack's folder, allowed: the pack and its base are loaded
        # here with the permission, and the worked example's lc score command carries it
        report = validate_pack(name, allow_outside=True)
        if report.problems or report.pack is None or report.resolved is None:
            raise PackError(list(report.problems))
        paths = report.resolved.paths
        base = load_pack(str(paths[1]), allow_outside=True) if len(paths) > 1 else None
        return replace(build(report.pack, base), source=f"{name} --allow-outside")
    except PackError as err:
        problems = err.problems
        missing = len(problems) == 1 and problems[0].code == "LC009" \
            and problems[0].file == name
        more = f" (and {len(problems) - 1} more problems: run lc validate {name})" \
            if len(problems) > 1 else ""
        fail(f"{err}{more}", EXIT_USAGE if missing else EXIT_PROBLEM)
