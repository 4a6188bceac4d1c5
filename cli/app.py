"""The ``lc`` command: a thin typer layer over the lostcities library.

Each command lives in its own module (``lostcities.cli.<name>``) exposing
``register(app)``; heavy imports (lark, jsonschema, the engine) happen inside the
command functions so that ``lc --help`` stays fast.
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Optional, Sequence

import typer
from typer.core import TyperGroup

#: The command modules, in the order ``lc --help`` lists them.
COMMAND_MODULES: tuple[str, ...] = (
    "packs",
    "validate",
    "score",
    "explain",
    "simulate",
    "balance",
    "replay",
    "play",
    "serve",
)

class OneLineErrors(TyperGroup):
    """The ``lc`` group: an option or argument error is one line, like every other error.

    click prints a usage error as a multi-line ``Usage: ... Try ... Error: ...`` box;
    here it is ``lc: error: MESSAGE (lc CMD --help)`` on stderr, exit 2. ``--help``,
    ``--version``, ``typer.Exit`` codes, Ctrl-C (130) and shell completion are click's.
    """

    def main(self, args: Optional[Sequence[str]] = None, prog_name: Optional[str] = None,
             complete_var: Optional[str] = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        usage_error, click_error = _click_errors()
        try:
            code = super().main(args, prog_name or "lc", complete_var, standalone_mode=False,
                                **extra)
        except usage_error as err:
            if type(err).__name__ == "NoArgsIsHelpError":  # `lc` alone, `lc CMD` alone
                err.show()
                sys.exit(err.exit_code)
            command = err.ctx.command_path if err.ctx is not None else "lc"
            sys.stderr.write(f"lc: error: {_one_line(err.format_message())} "
                             f"({command} --help)\n")
            sys.exit(2)
        except click_error as err:
            sys.stderr.write(f"lc: error: {_one_line(err.format_message())}\n")
            sys.exit(err.exit_code)
        except typer.Abort:
            sys.stderr.write("lc: error: aborted\n")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def _click_errors() -> tuple[type, type]:
    """click's UsageError and ClickException, wherever typer takes click from (click
    itself, or its own copy in recent typer), found from the public typer.BadParameter."""
    mro = typer.BadParameter.__mro__
    return (next(c for c in mro if c.__name__ == "UsageError"),
            next(c for c in mro if c.__name__ == "ClickException"))


def _one_line(message: str, limit: int = 300) -> str:
    """A message on one line: line breaks joined, control characters escaped, cut when long
    (a 5,000-digit --games is quoted back by click)."""
    text = "; ".join(part.strip() for part in message.strip().splitlines() if part.strip())
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


app = typer.Typer(
    name="lc",
    cls=OneLineErrors,
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
