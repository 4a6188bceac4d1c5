"""Parsing formulas: one cached LALR parser, limits checked first, clean syntax errors."""
from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from .source import Source
from .types import LIMIT, MAX_DEPTH, MAX_LENGTH, SYNTAX

if TYPE_CHECKING:
    from lark import Lark, Tree

_OPEN = "(["
_CLOSE = ")]"

#: readable names of the grammar's named terminals
_TERMINAL_NAMES = {
    "NAME": "a name",
    "INT": "a number",
    "COMP_OP": "a comparison",
    "ADD_OP": "`+` or `-`",
    "MUL_OP": "`*`, `//` or `%`",
    "$END": "the end of the formula",
}

#: hints for characters people bring from other languages
_CHAR_HINTS = {
    "/": "integer division is written `//`",
    "!": "negation is written `not`; inequality `!=`",
    "&": "write `and`",
    "|": "write `or`",
    "^": "there is no power operator; multiply",
    "'": "the language has no strings",
    '"': "the language has no strings",
    "{": "use ( ) to group",
    "}": "use ( ) to group",
    ":": "the conditional is written `if COND then A else B`",
    "?": "the conditional is written `if COND then A else B`",
}


@functools.lru_cache(maxsize=1)
def scoring_parser() -> "Lark":
    """The LALR parser of ``scoring.lark``, built once per process."""
    from importlib.resources import files

    from lark import Lark

    grammar = files("lostcities.grammar").joinpath("scoring.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="basic", propagate_positions=True,
                maybe_placeholders=True)


def parse(source: Source) -> "Tree":
    """Parse one formula; raise :class:`ScoringError` (LC101 syntax, LC104 limits)."""
    from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedToken

    text = source.text
    if len(text) > MAX_LENGTH:
        raise source.error(LIMIT, f"formula is {len(text)} characters long; the limit is "
                           f"{MAX_LENGTH}", 0, hint="split it with `let` or simplify it")
    _check_brackets(source)
    if not text.strip():
        raise source.error(SYNTAX, "empty formula", 0, hint="write an expression, e.g. `0`")
    try:
        tree = scoring_parser().parse(text)
    except UnexpectedCharacters as err:
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else ""
        shown = f"`{ch}`" if ch.isprintable() else f"U+{ord(ch):04X}" if ch else "`?`"
        raise source.error(SYNTAX, f"unexpected character {shown}", err.pos_in_stream,
                           hint=_CHAR_HINTS.get(ch, "")) from None
    except UnexpectedToken as err:
        raise _token_error(source, err) from None
    except LarkError as err:  # any other parse failure still gets a position
        raise source.error(SYNTAX, f"cannot parse the formula ({type(err).__name__})", 0) from None
    _check_depth(source, tree)
    return tree


def _check_brackets(source: Source) -> None:
    """Bracket nesting within MAX_DEPTH, checked on the raw text before parsing."""
    depth = 0
    for i, ch in enumerate(source.text):
        if ch in _OPEN:
            depth += 1
            if depth > MAX_DEPTH:
                raise source.error(LIMIT, f"brackets nest more than {MAX_DEPTH} deep", i,
                                   hint="name parts with `let`")
        elif ch in _CLOSE:
            depth -= 1


def _check_depth(source: Source, tree: "Tree") -> None:
    """Syntax-tree nesting within MAX_DEPTH (iterative: never recurses)."""
    from lark import Tree

    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise source.error(LIMIT, f"formula nests more than {MAX_DEPTH} levels deep",
                               node.meta.start_pos, node.meta.end_pos,
                               hint="name parts with `let`")
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))


def _token_error(source: Source, err) -> Exception:
    token = err.token
    expected = set(err.expected or ())
    if token.type == "$END":
        at = len(source.text.rstrip())
        what = "end of formula"
    else:
        at = token.start_pos
        what = f"`{token.value}`"
    hint = ""
    before = source.text[:at]
    if token.type == "IF":
        in_aggregate = re.search(r"\bfor\b", before) and before.count("(") > before.count(")")
        hint = ("filter with `where`, e.g. sum(v for v in values where v > 5)"
                if in_aggregate else "the conditional is written `if COND then A else B`")
    elif token.type == "INT" and before.endswith("."):
        hint = "numbers are whole: there are no fractions"
    elif token.type == "EQUAL":
        hint = "compare with `==`"
    elif token.type == "MUL_OP" and token.value == "*" and source.text[at - 1:at] == "*":
        hint = "there is no power operator; multiply"
    if not hint and expected:
        hint = "expected " + _describe_expected(expected)
    end = at + max(1, len(str(token.value)))
    return source.error(SYNTAX, f"unexpected {what}", at, end, hint=hint)


def _describe_expected(names: set[str]) -> str:
    literal = {t.name: t.pattern.value for t in scoring_parser().terminals
               if t.pattern.type == "str"}
    words = sorted(_TERMINAL_NAMES.get(n) or f"`{literal.get(n, n.lower())}`" for n in names)
    if len(words) > 8:
        words = words[:8] + ["..."]
    return ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1]
