"""The narrow error hierarchy of lostcities.

Every error the library raises on bad input derives from :class:`LostCitiesError`
and says what went wrong and where, in one line (``str(err)``). The CLI prints
that line and exits; it never shows a traceback for these.
"""
from __future__ import annotations

from dataclasses import dataclass


class LostCitiesError(Exception):
    """Base class of every error lostcities raises on bad input."""


@dataclass(frozen=True)
class Problem:
    """One problem found in a rule pack, with its position in the YAML file.

    ``line`` and ``col`` are 1-based; 0 means "unknown" (the whole file).
    """

    file: str
    line: int
    col: int
    code: str
    message: str
    hint: str = ""
    #: a caret excerpt of the source (formula problems), shown under the line in text output
    excerpt: str = ""

    def __str__(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}:{self.col or 1}"
        text = f"{where}: error {self.code} {self.message}"
        return f"{text} ({self.hint})" if self.hint else text

    def as_dict(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
            "excerpt": self.excerpt,
        }


class PackError(LostCitiesError):
    """A rule pack could not be loaded: one or more :class:`Problem`.

    ``str(err)`` is the first problem's one-line form; ``err.problems`` holds all.
    """

    def __init__(self, problems: list[Problem] | Problem):
        if isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        first = self.problems[0] if self.problems else None
        super().__init__(str(first) if first else "invalid rule pack")

    def __reduce__(self) -> tuple:
        # rebuilt from its problems, not its message, when it crosses a process (a pool worker)
        return (type(self), (self.problems,))

    @property
    def file(self) -> str:
        return self.problems[0].file

    @property
    def line(self) -> int:
        return self.problems[0].line

    @property
    def col(self) -> int:
        return self.problems[0].col

    @property
    def code(self) -> str:
        return self.problems[0].code


class ScoringError(LostCitiesError):
    """A scoring formula is malformed, ill-typed, too large, or failed at run time.

    ``file``/``line``/``col`` point into the pack's YAML file when known;
    ``excerpt`` is a caret excerpt of the formula for display.
    """

    def __init__(self, message: str, *, file: str = "", line: int = 0, col: int = 0,
                 code: str = "LC100", excerpt: str = "", hint: str = "",
                 also: tuple["ScoringError", ...] = ()):
        self.message = message
        #: more problems of the same formula found with this one (every unknown name)
        self.also = tuple(also)
        self.file = file
        self.line = line
        self.col = col
        self.code = code
        self.excerpt = excerpt
        self.hint = hint
        super().__init__(self.one_line())

    def __reduce__(self) -> tuple:
        return (_scoring_error, (self.message, self.file, self.line, self.col, self.code,
                                 self.excerpt, self.hint, self.also))

    def one_line(self) -> str:
        where = self.file or "<formula>"
        if self.line:
            where += f":{self.line}:{self.col or 1}"
        text = f"{where}: error {self.code} {self.message}"
        return f"{text}; {self.hint}" if self.hint else text

    def as_problem(self) -> Problem:
        return Problem(self.file, self.line, self.col, self.code, self.message, self.hint,
                       self.excerpt)


def _scoring_error(message: str, file: str, line: int, col: int, code: str, excerpt: str,
                   hint: str, also: tuple[ScoringError, ...] = ()) -> ScoringError:
    """A :class:`ScoringError` rebuilt from its fields (unpickling)."""
    return ScoringError(message, file=file, line=line, col=col, code=code, excerpt=excerpt,
                        hint=hint, also=also)


class InvalidMoveError(LostCitiesError, ValueError):
    """A move or card could not be read: bad notation, unknown colour, bad value."""


class IllegalMoveError(LostCitiesError, ValueError):
    """A well-formed move that the rules forbid in the current state.

    ``refusal`` is why, as :func:`lostcities.engine.why_refused` says it (a
    ``Refusal``: a catalogue key and its parameters) when the error comes from the
    move check (:func:`lostcities.engine.apply`), else None.
    """

    def __init__(self, message: str, refusal: object = None):
        super().__init__(message)
        self.refusal = refusal

    def __reduce__(self) -> tuple:
        return (type(self), (str(self), self.refusal))


class RecordError(LostCitiesError):
    """A game record or save file is malformed, foreign, or does not replay."""


class InputError(LostCitiesError, ValueError):
    """A file, path or value from outside was refused before it was used: not a regular
    file, too large, a name too long, JSON nested too deep, a number too long."""


class BackendError(LostCitiesError, ValueError):
    """A backend cannot run: Ray missing or unreachable, a run directory that does not fit,
    a worker process that ended in the middle of a run (:mod:`.lab.backends`)."""
