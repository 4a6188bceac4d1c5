"""The ``lc`` command: a thin typer layer over the lostcities library.

Each command lives in its own module (``lostcities.cli.<name>``) exposing
``register(app)``; heavy imports (lark, jsonschema, the engine) happen inside the
command functions so that ``lc --help`` stays fast.
"""
from __future__ import annotations

import importlib
import sys
from typing import Optional

import typer

#: The command modules, in the order ``lc --help`` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "packs",
    "validate",
    "score",
    "simulate",
    "balance",
    "replay",
    "play",
)

app = typer.Typer(
    name="lc",
    help="Lost Cities: play, score, validate rule packs, simulate bots and replay records.",
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"lc (lostcities) {version('lostcities')}")
        except PackageNotFoundError:  # running from a source tree that is not installed
            typer.echo("lc (lostcities) unknown version")
        raise typer.Exit()


@app.callback()
def _root(
    version: Optional[bool] = typer.Option(
        None, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """Lost Cities: play, score, validate rule packs, simulate bots and replay records."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"lostcities.cli.{_name}").register(app)


def main() -> None:
    """Entry point of the ``lc`` console script."""
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
