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
    st.builds(str.__add__, st.sampled_from(string.ascii_letters + "_"),
              st.text(alphabet=string.ascii_letters + string.digits + "_", max_size=10)),
    st.sampled_from(KEYWORDS),
    st.sampled_from(string.ascii_lowercase),
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


def grammar_texts(parser: lark.Lark, explicit: dict[str, st.SearchStrategy[str]],
                  symbols: int = 5, line_ends: frozenset[str] = frozenset({"COMMENT"})
                  ) -> st.SearchStrategy[str]:
    """Texts of ``parser``'s grammar, drawn as ``from_lark`` draws them (each rule's
    expansions from the shortest, an ignored token after a symbol one time in four), but
    always finished: once ``symbols`` symbols are drawn, each rule still open takes one of
    its expansions that ends soonest. ``from_lark`` instead throws away every draw that
    nests past hypothesis's limits, which with this grammar's ten precedence rules per
    level is most of them (about 70 draws for each example kept).

    ``explicit``: a strategy for every terminal (:func:`terminals`); ``line_ends``: the
    ignored terminals that run to the end of the line (a comment), followed by a newline
    three times in four, else the rest of the text is part of the comment."""
    compiled, rules, ignored = parser.grammar.compile(parser.options.start, ())
    expansions: dict[str, list[tuple[tuple[str, bool], ...]]] = {}
    for rule in rules:
        expansions.setdefault(rule.origin.name, []).append(
            tuple((s.name, s.is_term) for s in rule.expansion))
    for options in expansions.values():
        options.sort(key=len)
    missing = {t.name for t in compiled} - set(explicit)
    if missing:
        raise ValueError(f"no strategy for the terminals {sorted(missing)}")
    # the fewest levels of rules each rule needs to end (a fixed point over the grammar)
    height: dict[str, float] = dict.fromkeys(expansions, float("inf"))

    def levels(option: tuple[tuple[str, bool], ...]) -> float:
        return 1 + max((0 if term else height[name] for name, term in option), default=0)

    changed = True
    while changed:
        changed = False
        for name, options in expansions.items():
            best = min(levels(option) for option in options)
            if best < height[name]:
                height[name], changed = best, True
    soonest = {name: [o for o in options if levels(o) == height[name]]
               for name, options in expansions.items()}
    pick = {name: st.sampled_from(options) for name, options in expansions.items()}
    pick_soonest = {name: st.sampled_from(options) for name, options in soonest.items()}
    ignore = st.sampled_from(sorted(ignored)) if ignored else None

    @st.composite
    def texts(draw: st.DrawFn) -> str:
        out: list[str] = []
        left = [symbols]

        def walk(name: str, term: bool) -> None:
            left[0] -= 1
            if term:
                out.append(draw(explicit[name]))
                return
            option = draw((pick if left[0] > 0 else pick_soonest)[name])
            for child, child_term in option:
                walk(child, child_term)
                if ignore is not None and draw(st.integers(0, 3)) == 0:
                    ignored_name = draw(ignore)
                    out.append(draw(explicit[ignored_name]))
                    if ignored_name in line_ends and draw(st.integers(0, 3)):
                        out.append("\n")  # a comment ends its line, most times

        for start in parser.options.start:
            walk(start, False)
        return "".join(out)

    return texts()
