"""``lc --help`` and every ``lc CMD --help`` wrap their lines at spaces only: no word is cut,
at 80 columns nor at a narrow 60 (a line used to break after the hyphen of ``duel-classic``)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from lostcities.cli.app import COMMANDS, app

BOUND = 300


def words(text: str) -> set[str]:
    """The words of a help text; a command's short help cut with ``...`` gives its last
    whole word."""
    return {word.removesuffix("...") for word in text.split()} - {""}


def unwrapped(*args: str) -> set[str]:
    """The words of the help rendered wide enough that nothing wraps."""
    result = CliRunner().invoke(app, [*args, "--help"], terminal_width=10_000,
                                max_content_width=10_000)
    assert result.exit_code == 0, result.output
    return words(result.stdout)


@pytest.mark.parametrize("columns", [80, 60])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_commands_help_cuts_no_word(command: str, columns: int) -> None:
    result = CliRunner().invoke(app, [command, "--help"], terminal_width=columns)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns
    cut = words(result.stdout) - unwrapped(command)
    assert not cut, f"lc {command} --help at {columns} columns cuts: {sorted(cut)}"


@pytest.mark.parametrize("columns", [80, 60])
def test_lc_help_cuts_no_word(columns: int) -> None:
    """The command as a user runs it (its recorded text at 80 columns, typer's at 60)."""
    out = subprocess.run([sys.executable, "-c", "from lostcities.cli.app import main; main()",
                          "--help"], env={**os.environ, "COLUMNS": str(columns)},
                         capture_output=True, text=True, timeout=BOUND)
    assert out.returncode == 0, out.stderr
    assert max(len(line) for line in out.stdout.splitlines()) <= columns
    full = CliRunner().invoke(app, ["--help"], terminal_width=10_000, max_content_width=10_000)
    cut = words(out.stdout) - words(full.stdout)
    assert not cut, f"lc --help at {columns} columns cuts: {sorted(cut)}"
