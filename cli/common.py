"""Helpers shared by the command modules: one-line errors and pack completion."""
from __future__ import annotations

import sys
from typing import NoReturn

import typer

#: exit codes: 0 ok, 1 a problem found in the input (invalid pack, illegal record...),
#: 2 usage error (bad option, missing or unreadable path)
EXIT_PROBLEM = 1
EXIT_USAGE = 2


def fail(message: str, code: int = EXIT_PROBLEM) -> NoReturn:
    """Print ``lc: error: MESSAGE`` on stderr as one line and exit with ``code``."""
    sys.stderr.write(f"lc: error: {message}\n")
    raise typer.Exit(code)


def complete_pack(incomplete: str) -> list[str]:
    """Shell completion: built-in pack ids starting with ``incomplete``."""
    from importlib.resources import files

    names = sorted(p.name[:-5] for p in files("lostcities.rulepacks").iterdir()
                   if p.name.endswith(".yaml"))
    return [n for n in names if n.startswith(incomplete)]
