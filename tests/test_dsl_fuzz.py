"""Fuzzing: any text gives a compiled formula or a clean ScoringError, never another exception.

Formulas are drawn from the grammar itself (``grammar_strategies.grammar_texts``, as
``hypothesis.extra.lark.from_lark`` draws them) and from arbitrary text; those that
compile are run on sample arguments of their scope, where they must give an integer
within the limits or a ScoringError.
"""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grammar_strategies import grammar_texts, terminals
from lostcities.engine.errors import ScoringError
from lostcities.grammar import MAX_INT, SCOPES, compile_formula, scope_fields
from lostcities.grammar.parser import scoring_parser

CONSTANTS = {"cost": 20, "bonus": 20, "bonus_cards": 8}
TABLES = {"spaces": (0, -20, -15, -10, 5, 10, 15, 30, 35, 50), "artefact_scale": (-5, 0, 5)}
SAMPLES = {
    "expedition": [(0, [], 0), (2, [2, 5, 9], 2), (4, [0, 0, 7], 0)],
    "pawn": [(0, 0, False), (1, 4, True), (4, 9, False)],
    "round": [([], [], 0, 0, 1),
              ([(0, [3, 4], 1, -26), (1, [], 0, 0)], [(0, 2, True, -30)], 10, 2, 3)],
    "match": [([], 0, 0), ([12, -3, 40], 9, 15)],
}
FUZZ = settings(max_examples=100, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# names the formulas may use, so that generated text reaches the type checker often
NAMES = st.sampled_from(["cards", "points", "values", "wagers", "numbers", "colour", "cost",
                         "spaces", "space", "leader", "pawns", "expeditions", "rounds",
                         "tokens", "artefacts", "score", "v", "e", "x", "sum", "count",
                         "min", "max", "any", "all", "abs", "p", "r"])
INTS = st.sampled_from(["0", "1", "2", "9", "20", "1000000000000", "1000000000001"])
# every regex terminal gets a small explicit strategy: drawing from the regexes is slow
TERMINALS = {
    "NAME": NAMES, "INT": INTS,
    "COMP_OP": st.sampled_from(["==", "!=", "<=", ">=", "<", ">"]),
    "ADD_OP": st.sampled_from(["+", "-"]),
    "MUL_OP": st.sampled_from(["*", "//", "%"]),
    "WS": st.sampled_from([" ", "  ", "\n", "\n    ", "\t"]),
    "COMMENT": st.sampled_from(["# note", "#", "# é ünïcode"]),
}


def outcome(text: str, scopes: tuple[str, ...] = SCOPES) -> list[str]:
    """Compile in each scope and run on the samples; return what happened, by kind."""
    seen = []
    for scope in scopes:
        try:
            formula = compile_formula(text, scope, constants=CONSTANTS, tables=TABLES)
        except ScoringError as err:
            assert err.code.startswith("LC1") and len(str(err).splitlines()) == 1
            seen.append(err.code)
            continue
        for args in SAMPLES[scope]:
            try:
                value = formula(*args)
            except ScoringError as err:
                assert err.code in ("LC104", "LC105", "LC106")
                seen.append(err.code)
                continue
            assert isinstance(value, int) and not isinstance(value, bool)
            assert -MAX_INT <= value <= MAX_INT
            seen.append("ok")
    return seen


# The grammar is deeply recursive (ten precedence rules per nesting level), so most
# draws of from_lark run past hypothesis's span-depth limit and are discarded (about 70
# for each example kept): grammar_texts draws as it does but finishes every text, so this
# test runs 100 examples in a tenth of the time from_lark took for 12; the structured
# strategies below go deeper.
@FUZZ
@given(grammar_texts(scoring_parser(), terminals(scoring_parser(), **TERMINALS)))
def test_grammar_generated_formulas(text: str) -> None:
    assert outcome(text)


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("()[]+-*/%<>=!.,# \nxcardspointvlueif0129")),
               max_size=60))
def test_arbitrary_text(text: str) -> None:
    assert outcome(text)


@FUZZ
@given(st.text(max_size=40))
def test_any_unicode(text: str) -> None:
    assert outcome(text)


# Structured formulas: every construct nested at random, mostly well-formed, so that
# the type checker, the specialised closures and the run-time checks all get exercised.
LITERALS = ["v", "x", "0", "1", "3", "9", "1000000", "true", "false", "cost", "spaces"]
LEAVES = {scope: st.sampled_from([name for name, _, _ in scope_fields(scope)] + LITERALS)
          for scope in SCOPES}
BINARY = st.sampled_from(["+", "-", "*", "//", "%", "==", "!=", "<", "<=", ">", ">=", "and",
                          "or"])


def _nested(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    var = st.sampled_from(["v", "x"])
    return st.one_of(
        st.tuples(inner, BINARY, inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda c: f"-{c}"),
        inner.map(lambda c: f"(not {c})"),
        st.tuples(inner, inner, inner).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
        st.tuples(var, inner, inner).map(lambda t: f"(let {t[0]} = {t[1]} in {t[2]})"),
        st.tuples(st.sampled_from(["sum", "count", "min", "max", "any", "all"]), inner, var,
                  inner, st.none() | inner).map(
            lambda t: f"{t[0]}({t[1]} for {t[2]} in {t[3]}"
                      + (f" where {t[4]})" if t[4] else ")")),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(inner, st.sampled_from(["score", "cards", "leader", "values", "space"])).map(
            lambda t: f"{t[0]}.{t[1]}"),
        st.tuples(st.sampled_from(["min", "max", "abs", "sum", "count"]),
                  st.lists(inner, min_size=1, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"),
    )


#: each scope's formulas, built once (inside flatmap they were built again per example)
STRUCTURED = {scope: st.tuples(st.just(scope), st.recursive(LEAVES[scope], _nested,
                                                            max_leaves=12))
              for scope in SCOPES}


@FUZZ
@given(st.sampled_from(SCOPES).flatmap(STRUCTURED.__getitem__))
def test_structured_formulas(case: tuple[str, str]) -> None:
    scope, text = case
    assert outcome(text, (scope,))


# Well-typed integer formulas of the expedition scope: they must run, or fail only
# with a run-time scoring error (division by zero, index, size).
INT_LEAVES = st.sampled_from(["cards", "points", "wagers", "numbers", "colour", "cost", "0", "1",
                              "3", "9", "1000000"])
ARITH = st.sampled_from(["+", "-", "*", "//", "%"])
COMPARE = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])


def _typed(ints: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    bools = st.tuples(ints, COMPARE, ints, st.sampled_from(["and", "or", "and not"]), ints,
                      COMPARE, ints).map(lambda t: "({} {} {} {} {} {} {})".format(*t))
    return st.one_of(
        st.tuples(ints, ARITH, ints).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        ints.map(lambda c: f"-{c}"),
        st.tuples(bools, ints, ints).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
        st.tuples(ints, ints).map(lambda t: f"(let y = {t[0]} in y * {t[1]})"),
        st.tuples(st.sampled_from(["sum", "count", "min", "max"]), ARITH, ints, COMPARE, ints).map(
            lambda t: f"{t[0]}(v {t[1]} {t[2]} for v in values where v {t[3]} {t[4]})"),
        st.tuples(st.sampled_from(["spaces", "values"]), ints).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(st.sampled_from(["min", "max"]), ints, ints).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        ints.map(lambda c: f"abs({c})"),
    )


@FUZZ
@given(st.recursive(INT_LEAVES, _typed, max_leaves=10))
def test_well_typed_formulas_run(text: str) -> None:
    results = outcome(text, ("expedition",))
    assert set(results) <= {"ok", "LC104", "LC105", "LC106", "LC108"}
