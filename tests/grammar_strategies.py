"""Cheap hypothesis strategies for the terminals of the scoring grammar, for
``hypothesis.extra.lark.from_lark(parser, explicit=terminals(parser))``.

Left to itself, ``from_lark`` draws every terminal, even ``(`` or ``where``, through
``st.from_regex`` and a filter, and every ignored token (``WS``, ``COMMENT``) too: most
of a fuzz test's time goes there. Here a literal terminal is ``st.just`` its text (the
only string its regex matches, so the texts drawn are the same), and each regex terminal
of grammar/scoring.lark gets a small strategy over the same strings its regex matches
(shorter ones: cheaper examples, not fewer). A regex terminal this file does not know
(a new one in the grammar) keeps ``from_lark``'s own regex strategy, so nothing goes
untested.
"""
from __future__ import annotations

import string

import lark
from hypothesis import strategies as st

#: the grammar's keywords and built-in names: a NAME that is one of them tells the two
#: lexers' keyword handling apart, where a NAME drawn at random would rarely be one
KEYWORDS = ["if", "then", "else", "let", "in", "or", "and", "not", "where", "for", "true",
            "false", "sum", "count", "min", "max", "any", "all", "abs"]

#: NAME: /[A-Za-z_][A-Za-z0-9_]*/
NAME = st.one_of(
    st.sampled_from(KEYWORDS),
    st.builds(str.__add__, st.sampled_from(string.ascii_letters + "_"),
              st.text(alphabet=string.ascii_letters + string.digits + "_", max_size=10)),
)
#: the regex terminals of grammar/scoring.lark, each over all the strings it matches
REGEX_TERMINALS = {
    "NAME": NAME,
    "INT": st.text(alphabet=string.digits, min_size=1, max_size=20),   # /[0-9]+/
    "COMP_OP": st.sampled_from(["==", "!=", "<=", ">=", "<", ">"]),
    "ADD_OP": st.sampled_from(["+", "-"]),
    "MUL_OP": st.sampled_from(["*", "//", "%"]),
    "WS": st.text(alphabet=" \t\r\n", min_size=1, max_size=6),         # /[ \t\r\n]+/
    "COMMENT": st.builds("#".__add__, st.text(                          # /#[^\n]*/
        st.characters(codec="utf-8", exclude_characters="\n"), max_size=12)),
}


def terminals(parser: lark.Lark,
              **chosen: st.SearchStrategy[str]) -> dict[str, st.SearchStrategy[str]]:
    """The ``explicit`` strategies of ``from_lark`` for ``parser``'s grammar: ``st.just`` for
    each literal terminal, REGEX_TERMINALS for the regex ones, ``chosen`` over both (a test's
    own, narrower strategy for a terminal)."""
    compiled, _, _ = parser.grammar.compile(parser.options.start, ())
    explicit: dict[str, st.SearchStrategy[str]] = {}
    for terminal in compiled:
        if isinstance(terminal.pattern, lark.lexer.PatternStr) and not terminal.pattern.flags:
            explicit[terminal.name] = st.just(terminal.pattern.value)
        elif terminal.name in REGEX_TERMINALS:
            explicit[terminal.name] = REGEX_TERMINALS[terminal.name]
    explicit.update(chosen)
    return explicit
