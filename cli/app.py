"""The ``lc`` command: a thin typer layer over the lostcities library.

Each command lives in its own module (``lostcities.cli.<name>``) exposing
``register(app)`` and importing what it needs at its top; this module is the lazy door to
them (the command table): ``lc CMD ...`` imports and builds only the module of CMD (typer
builds every parameter of every command registered); ``lc --help`` prints the text typer renders,
recorded in :mod:`lostcities.cli.helptext`, without importing typer while our sources it
was rendered from and typer's release are unchanged.
"""
from __future__ import annotations

import functools
import importlib
import os
import sys
from typing import Any, Optional, Sequence

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

#: Each command, and the module that registers it.
COMMANDS: dict[str, str] = {
    "packs": "packs", "show": "packs", "schema": "packs", "new": "packs",
    **{name: name for name in COMMAND_MODULES if name != "packs"},
}

#: the line of a command stopped by Ctrl-C (exit 130)
INTERRUPTED = "lc: interrupted\n"

#: ``lc``'s one-line description, its group help.
DESCRIPTION = "Lost Cities: play, score, validate rule packs, simulate bots and replay records."


#: a hyphen as held while help text is wrapped (U+2011, a non-breaking hyphen: one column too)
_HELD_HYPHEN = "\u2011"


@functools.lru_cache(maxsize=1)
def help_context() -> type:
    """The click context class of ``lc`` and its commands: typer's, with a help formatter
    that wraps at spaces only (made on first use: it derives from typer's)."""
    import typer

    class WholeWords(typer.Context.formatter_class):  # type: ignore[name-defined,misc]
        """click's help formatter, never cutting a word: textwrap also breaks a line after
        a hyphen (``duel-`` / ``classic``), so the hyphens of the text are held as
        non-breaking ones while it is wrapped, then given back."""

        def _whole(self, write: Any, *args: Any) -> None:
            start = len(self.buffer)
            write(*args)
            self.buffer[start:] = [part.replace(_HELD_HYPHEN, "-")
                                   for part in self.buffer[start:]]

        def write_text(self, text: str) -> None:
            self._whole(super().write_text, text.replace("-", _HELD_HYPHEN))

        def write_dl(self, rows: Any, col_max: int = 30, col_spacing: int = 2) -> None:
            held = [(first, second.replace("-", _HELD_HYPHEN)) for first, second in rows]
            self._whole(super().write_dl, held, col_max, col_spacing)

    class WholeWordsContext(typer.Context):
        formatter_class = WholeWords

    return WholeWordsContext


@functools.lru_cache(maxsize=1)
def command_class() -> type:
    """The click command class of each ``lc`` command: typer's, with :func:`help_context`."""
    from typer.core import TyperCommand

    class Command(TyperCommand):
        context_class = help_context()

    return Command


@functools.lru_cache(maxsize=1)
def group_class() -> type:
    """The click group class of ``lc`` (made on first use: it derives from typer's)."""
    from typer.core import TyperGroup

    class OneLineErrors(TyperGroup):
        """The ``lc`` group: an option or argument error is one line, like every other error.

        click prints a usage error as a multi-line ``Usage: ... Try ... Error: ...`` box;
        here it is ``lc: error: MESSAGE (lc CMD --help)`` on stderr, exit 2. ``--help``,
        ``--version``, ``typer.Exit`` codes and shell completion are click's. Ctrl-C in a
        command that does not handle it itself is ``lc: interrupted`` on stderr, exit 130
        (typer turns the interrupt into that code and would say nothing).
        """

        context_class = help_context()

        def invoke(self, ctx: Any) -> Any:
            try:
                return super().invoke(ctx)
            except KeyboardInterrupt:
                sys.stderr.write(INTERRUPTED)
                sys.stderr.flush()
                raise

        def main(self, args: Optional[Sequence[str]] = None, prog_name: Optional[str] = None,
                 complete_var: Optional[str] = None, standalone_mode: bool = True,
                 **extra: Any) -> Any:
            if not standalone_mode:
                return super().main(args, prog_name, complete_var, standalone_mode=False,
                                    **extra)
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
            except typer_abort():
                sys.stderr.write("lc: error: aborted\n")
                sys.exit(1)
            sys.exit(code if isinstance(code, int) else 0)

    return OneLineErrors


def _click_errors() -> tuple[type, type]:
    """click's UsageError and ClickException, wherever typer takes click from (click
    itself, or its own copy in recent typer), found from the public typer.BadParameter."""
    import typer

    mro = typer.BadParameter.__mro__
    return (next(c for c in mro if c.__name__ == "UsageError"),
            next(c for c in mro if c.__name__ == "ClickException"))


def _one_line(message: str, limit: int = 300) -> str:
    """A message on one line: line breaks joined, control characters escaped, cut when long
    (a 5,000-digit --games is quoted back by click)."""
    text = "; ".join(part.strip() for part in message.strip().splitlines() if part.strip())
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def typer_abort() -> type:
    """typer's Abort exception."""
    import typer

    return typer.Abort


def version_text() -> str:
    """What ``lc --version`` prints: the installed version, and which core runs."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        line = f"lc (lostcities) {version('lostcities')}"
    except PackageNotFoundError:  # running from a source tree that is not installed
        line = "lc (lostcities) unknown version"
    from lostcities.engine import compiled_modules

    compiled = len(compiled_modules())
    core = (f"core: compiled, {compiled} modules (LOSTCITIES_COMPILE=1)" if compiled
            else "core: pure Python")
    return f"{line}\n{core}\n"


def _version(value: bool) -> None:
    import typer

    if value:
        typer.echo(version_text(), nl=False)
        raise typer.Exit()


def build_app(modules: Sequence[str] = COMMAND_MODULES) -> Any:
    """The ``lc`` typer app with the commands of ``modules`` (all of them by default)."""
    import typer

    built = typer.Typer(
        name="lc",
        cls=group_class(),
        help=DESCRIPTION,
        no_args_is_help=True,
        add_completion=True,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
    )

    def root(
        version: Optional[bool] = typer.Option(
            None, "--version", callback=_version, is_eager=True,
            help="Print the version and exit."),
    ) -> None:
        """Lost Cities: play, score, validate rule packs, simulate bots and replay records."""

    built.callback()(root)
    for name in modules:
        importlib.import_module(f"lostcities.cli.{name}").register(built)
    for info in built.registered_commands:  # their help wrapped as lc's is
        info.cls = command_class()
    return built


@functools.lru_cache(maxsize=1)
def full_app() -> Any:
    """The ``lc`` app with every command (what ``lostcities.cli.app.app`` is)."""
    return build_app()


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole app, built on first use (``from lostcities.cli.app import app``)
        return full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def modules_for(args: Sequence[str]) -> tuple[str, ...]:
    """The command modules ``lc ARGS`` needs: the one of its command when it names one
    first, else all (options first, an unknown command, shell completion)."""
    if args and args[0] in COMMANDS and not any(k.endswith("_COMPLETE") and k.startswith("_")
                                                 for k in os.environ):
        return (COMMANDS[args[0]],)
    return COMMAND_MODULES


def help_key() -> str:
    """The SHA-256 of our sources ``lc --help`` is rendered from: this module and the command
    modules, read as bytes without importing them (typer's part is :func:`typer_version`)."""
    import hashlib
    from pathlib import Path

    here = Path(__file__)
    digest = hashlib.sha256()
    for path in (here, *(here.with_name(f"{name}.py") for name in COMMAND_MODULES)):
        try:
            data = path.read_bytes()
        except OSError:
            return ""
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def typer_version() -> str:
    """The installed typer's version, read from its ``__init__.py`` without importing it
    (``""`` when typer is missing or the version cannot be read there)."""
    import re
    from importlib.util import find_spec

    spec = find_spec("typer")
    if spec is None or spec.origin is None:
        return ""
    try:
        with open(spec.origin, encoding="utf-8") as handle:
            head = handle.read(4096)
    except (OSError, ValueError):
        return ""
    found = re.search(r"""^__version__\s*=\s*["']([^"'\n]{1,40})["']""", head, re.M)
    return found.group(1) if found else ""


def rendered_help() -> str:
    """``lc --help`` as typer renders it at the full width (80 columns or more), in a fresh
    process as a user sees it."""
    import subprocess

    code = "from lostcities.cli.app import build_app; build_app()()"
    env = {**os.environ, "COLUMNS": "80"}
    return subprocess.run([sys.executable, "-c", code, "--help"], env=env, capture_output=True,
                          text=True, check=True, timeout=300).stdout


def helptext_source() -> str:
    """The text of ``helptext.py``: :func:`rendered_help` under :func:`help_key` and
    :func:`typer_version`. Regenerate it with ``python tools/regenerate.py``
    (a stale file, or another typer release, only costs time: typer renders the help)."""
    return ('"""``lc --help`` as typer renders it at 80 columns or more, generated by\n'
            '``python tools/regenerate.py``; do not edit. Used while KEY is\n'
            '``lostcities.cli.app.help_key()`` and TYPER_VERSION the installed typer\'s."""\n'
            f"KEY = {help_key()!r}\n"
            f"TYPER_VERSION = {typer_version()!r}\n"
            f"ROOT_HELP = {rendered_help()!r}\n")


def recorded_help() -> Optional[str]:
    """``lc --help``'s text when the recorded one applies (our sources unchanged, the same
    typer release, full width), else None."""
    import shutil

    if shutil.get_terminal_size().columns < 80:
        return None
    try:
        from . import helptext
    except ImportError:
        return None
    fresh = (helptext.KEY and helptext.KEY == help_key()
             and getattr(helptext, "TYPER_VERSION", "") == typer_version() != "")
    return helptext.ROOT_HELP if fresh else None


def main() -> None:
    """Entry point of the ``lc`` console script."""
    args = sys.argv[1:]
    if args == ["--version"]:  # as the option prints it, without building every command
        sys.stdout.write(version_text())
        sys.stdout.flush()
        sys.exit(0)
    if args == ["--help"]:
        text = recorded_help()
        if text is not None:
            sys.stdout.write(text)
            sys.stdout.flush()
            sys.exit(0)
    try:
        build_app(modules_for(args))()
    except KeyboardInterrupt:
        sys.stderr.write(INTERRUPTED)
        sys.exit(130)
