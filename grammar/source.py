"""Where a formula comes from, and errors that point into the pack's YAML file.

A formula's text starts at ``mark = (file, line, col, style)`` in the YAML file
(``style`` is the scalar style: ``|`` literal, ``>`` folded, ``"``/``'`` quoted,
``""`` plain). An offset inside the text maps back to the file: directly for
literal blocks (each text line is a file line at the block's indentation), and
for the other styles by walking the file's lines alongside the text, since
folding turned line breaks into spaces.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from lostcities.engine.errors import ScoringError

Mark = tuple[str, int, int, str]


@dataclass(frozen=True)
class Source:
    """One formula's text, its dotted key (``scoring.round``) and its YAML mark."""

    text: str
    key: str
    mark: Mark | None = None

    def error(self, code: str, message: str, start: int = 0, end: int | None = None,
              hint: str = "") -> ScoringError:
        """A :class:`ScoringError` at text offsets ``start:end``, positioned in the file."""
        file, line, col, excerpt = self.locate(start, end)
        return ScoringError(f"{message} in {self.key}" if self.key else message, file=file,
                            line=line, col=col, code=code, excerpt=excerpt, hint=hint)

    def snippet(self, start: int, end: int, limit: int = 40) -> str:
        """The text at ``start:end`` on one line (whitespace collapsed), shortened to ``limit``."""
        text = " ".join(self.text[start:end].split())
        return text if len(text) <= limit else text[:limit - 3] + "..."

    def locate(self, start: int, end: int | None = None) -> tuple[str, int, int, str]:
        """``(file, line, col, excerpt)`` of text offset ``start`` (1-based line and col)."""
        text = self.text
        start = max(0, min(start, len(text)))
        end = start + 1 if end is None or end <= start else min(end, len(text))
        line = text.count("\n", 0, start) + 1
        line_start = text.rfind("\n", 0, start) + 1
        col = start - line_start + 1
        text_line = text[line_start:].split("\n", 1)[0]
        if self.mark is None:
            return "", line, col, caret_excerpt(line, text_line, col, end - start)
        file, mline, mcol, style = self.mark
        lines = _read_lines(file)
        if style.startswith("|") or lines is None:
            fline = mline + line - 1
            fcol = mcol + col - 1
        else:
            fline, fcol = _align(lines, mline, mcol, style, text, start)
        if lines is not None and 0 < fline <= len(lines):
            return file, fline, fcol, caret_excerpt(fline, lines[fline - 1], fcol, end - start)
        return file, fline, fcol, caret_excerpt(fline, text_line, col, end - start)


def caret_excerpt(line: int, text: str, col: int, width: int = 1) -> str:
    """Two lines: ``  12 | the source line`` and a caret line under column ``col``."""
    text = text.rstrip("\r\n").expandtabs(1)
    width = max(1, min(width, len(text) - col + 1))
    gutter = f"{line:>5} | "
    return f"{gutter}{text}\n{' ' * (len(gutter) - 2)}| {' ' * (col - 1)}{'^' * width}"


def _read_lines(file: str) -> list[str] | None:
    if not file or file.startswith("<"):
        return None
    try:
        with open(file, encoding="utf-8") as handle:
            return handle.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return None


def _align(lines: Sequence[str], line: int, col: int, style: str, text: str,
           offset: int) -> tuple[int, int]:
    """Walk the file from (line, col) consuming ``text[:offset]``; return where it ends.

    A text character equal to the file's next character advances one column; a
    space or newline at the end of a file line stands for the line break (YAML
    folding); other mismatches (escape sequences) advance one column.
    """
    if line < 1 or line > len(lines):
        return line, col + offset
    current = lines[line - 1]
    if style in ("'", '"') and current[col - 1:col] == style and not text.startswith(style):
        col += 1  # the mark points at the opening quote
    tail = " \t\r" + (style if style in ("'", '"') else "")
    i = 0
    while i < offset:
        current = lines[line - 1]
        ch = text[i]
        if col - 1 < len(current) and current[col - 1] == ch:
            col += 1
            i += 1
            continue
        if not current[col - 1:].strip(tail):
            if line >= len(lines):
                break
            line += 1
            nxt = lines[line - 1]
            col = len(nxt) - len(nxt.lstrip(" \t")) + 1
            if ch in " \n":
                i += 1
            continue
        col += 1
        i += 1
    return line, col
