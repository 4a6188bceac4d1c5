"""The specialised closures against the plain evaluation of the same compiled tree.

``grammar/closures.py`` and ``grammar/runner.py`` turn a formula into closures
specialised by operand kinds (inline slot reads, fused tests, products checked
only where their bounds need it, duel-classic's shape inlined whole);
``grammar/reference.py`` evaluates the same tree node by node and checks every
product. Both must give the same value, or the same error at the same place:
on a list of formulas that reaches every specialised closure (a test holds it
to that), and on random well-typed formulas of every scope.
"""
from __future__ import annotations

import sys
import types
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lostcities.engine.errors import ScoringError
from lostcities.grammar import MAX_INT, compile_formula, reference
from lostcities.grammar import closures, runner
from lostcities.grammar.bounds import Domain

CONSTANTS = {"cost": 20, "bonus": 20, "bonus_cards": 8}
TABLES = {"spaces": (0, -20, -15, -10, 5, 10, 15, 30, 35, 50), "empty": ()}
BIG = 10**6
#: games whose rows, pawns and rounds hold every sample below (aggregates nest over them)
DOMAIN = Domain(colours=5, min_value=0, max_value=10, copies=2, wagers=3, rounds=5, pawns=5,
                spaces=9)

ARGS: dict[str, list[tuple]] = {
    "expedition": [
        (0, [], 0), (2, [2, 5, 9], 1), (4, [3, 4, 5, 6, 7, 8, 9, 10], 3), (1, [], 2),
        (0, [0, 0], 0), (1, [-5, 7], 2), (3, [5] * 9, 0), (3, [1] * 10, 0),
        (1, [BIG], BIG), (2, [MAX_INT], 1), (2, [MAX_INT - 20], 0), (2, [-MAX_INT], 0),
        (0, [2**30], 0), (0, [2**30 - 1, 1], 1), (4, [BIG, BIG], -1),
    ],
    "pawn": [(0, 0, False), (1, 4, True), (4, 9, False), (2, MAX_INT, True), (3, -1, True),
             (BIG, BIG, False), (0, 2**30, True)],
    "round": [
        ([], [], 0, 0, 1),
        ([(0, [3, 4], 1, -26), (1, [], 0, 0)], [(0, 2, True, -30), (1, 5, False, 10)],
         10, 2, 3),
        ([(2, [BIG], BIG, MAX_INT)], [(0, MAX_INT, True, MAX_INT)], MAX_INT, BIG, 2),
        # records given without their score (0), and scores whose sum passes MAX_INT
        ([(0, [3, 4], 1), (1, [5], 0)], [(0, 2, True), (1, 5, False)], 1, 0, 1),
        ([(0, [], 0, MAX_INT), (1, [], 0, 1)], [(0, 1, True, MAX_INT), (1, 1, True, 1)],
         0, 0, 1),
        ([(0, [], 0, -MAX_INT), (1, [], 0, -1)], [(0, 1, True, -MAX_INT), (1, 1, True, -1)],
         0, 0, 1),
    ],
    "match": [([], 0, 0), ([12, -3, 40], 9, 15), ([MAX_INT, MAX_INT], BIG, 1),
              ([BIG] * 3, BIG, BIG)],
}

# (scope, formula): together they reach every closure of closures.py and runner.py
SHAPES: list[tuple[str, str]] = [(scope, text) for scope, texts in {
    "expedition": [
        # runner: constants, duel-classic's shape inlined (guarded or not, == or >= pick,
        # a constant term), the cards test first, the frame-first test, safe and checked
        "cost * 2",
        "if cards == 0 then 0 else (points - cost) * (1 + wagers) "
        "+ (if cards >= bonus_cards then bonus else 0)",
        "if cards != 0 then (points - cost) * (1 + wagers) + (if cards == 8 then 5 else 0) "
        "else 7",
        "(points - cost) * (1 + wagers) + (if cards >= 8 then 20 else 0)",
        "(if numbers == 3 then 20 else -20) + (points - 1) * (wagers + 2)",
        "(points - cost) * (1 + wagers) - 5",
        "if cards == 0 then 0 else points",
        "if cards == 1 then points + numbers else 3",
        "if cards == 0 then 1000000000000 + 1 else 0",
        "if wagers >= 1 then points else 0",
        "if wagers >= 1 then sum(v for v in values where v > 2) else 0",
        "let x = spaces[min(cards, 9)] in x * x",
        "if points >= 10 then 1 else 2",
        "min(cards, 8) * 2",
        "points * wagers",
        "let x = points in x + x",
        "if cards == 0 then 0 else let x = points * 2 in x",
        # arithmetic: slot + const, F + const, slot + slot, slot + pick, slot + F,
        # F + pick, F + F, products with a constant or a pick added
        "points + 5",
        "points * 2 + 1",
        "points + cards + 1",
        "points + (if cards == 3 then 1 else 2)",
        "points + (if cards >= 3 then 1 else 2)",
        "(points - 1) + numbers * 2",
        "points + numbers * 2",
        "points * 2 + (if cards == 3 then 1 else 2)",
        "(if cards >= 3 then 1 else 2) + points * 2",
        "points * 2 + numbers * 3",
        "points * wagers + 7 + numbers",
        "(points + 1) * wagers + (if cards == 3 then 4 else 5) + numbers",
        "(points + 1) * wagers + (if cards >= 3 then 4 else 5) + numbers",
        "sum((v + 1) * (v - 1) + 5 for v in spaces) + points",
        "sum((v + 1) * (v - 1) + (if v == 5 then 1 else 0) for v in spaces) + points",
        "sum((v + 1) * (v - 1) + (if v >= 10 then 1 else 0) for v in spaces) + points",
        # subtraction
        "(points + 1) - cards", "points - cards", "20 - cards", "20 - points * 2",
        "points * 2 - cards",
        # products: unchecked (bounded operands) and checked, by operand kinds
        "sum((v + 1) * 3 for v in spaces) + points",
        "spaces[min(cards, 9)] * 2 + points",
        "spaces[min(cards, 9)] * spaces[min(wagers, 9)] + points",
        "points * spaces[min(cards, 9)]",
        "(points + 1) * 1000000", "points * 2 * 3", "(points * 2) * (numbers + cards * 2)",
        "points * 1000000 * 1000000 // 1000000",
        # division, modulo, long chains, negation
        "points // 3", "points % 3", "points // numbers", "points % (cards - wagers)",
        " + ".join(["cards"] * 9) + " * points // numbers * 1000000 * 1000000",
        "-points", "-(points * 2)", "- -cards",
        # comparisons, logic, conditionals (tests outside a root `if`)
        "if cards == 3 and wagers >= 1 then 1 else 0",
        "if cards != 3 or wagers < 1 then 1 else 0",
        "if points * 2 > 5 then 1 else 2",
        "if points * 2 > cards then numbers else wagers",
        "if 1 <= wagers < cards then 1 else 0",
        "if not (points * 2 > 5) then 1 else 0",
        "if cards > 3 and not (points * 2 > 5) then 1 else 0",
        "if cards > 1 and wagers > 0 and points > 3 then 1 else 0",
        "if cards > 9 or wagers > 2 or points > 30 then 1 else 0",
        "1 + (if cards == 3 then 5 else 7)", "1 + (if cards >= 3 then 5 else 7)",
        "1 + (if cards == 3 then 5 else points)", "1 + (if cards >= 3 then 5 else points)",
        "1 + (if cards == 3 then points else 7)", "1 + (if cards >= 3 then points else 7)",
        "1 + (if cards == 3 then points else numbers)",
        "1 + (if cards >= 3 then points else numbers)",
        "1 + (if points * 2 > 5 then 3 else 4)",
        "if (let big = cards > 3 in big) then 1 else 0",
        # indexing, functions, aggregates
        "spaces[cards]", "values[0] + values[numbers - 1]", "abs(points - cost)",
        "max(0, points - cost)", "max(1, 2, cards, 3)", "min(points, numbers, wagers)",
        "sum(values)", "min(values)", "max(values)", "count(values)",
        "sum(spaces) + points",
        "count(v + 1 for v in values)", "count(v for v in values where v > 4)",
        "sum(v * v for v in values)", "min(v * 2 for v in values)",
        "max(v * 2 for v in values)", "count(v > 5 for v in values)",
        "if any(v == 6 for v in values) then 1 else 0",
        "if all(v > 4 for v in values) then 1 else 0",
        "sum(v * v for v in values where v > 5)", "min(v * 2 for v in values where v > 5)",
        "max(v * 2 for v in values where v > 5)", "count(v > 5 for v in values where v < 9)",
        "if any(v > 5 for v in values where v < 9) then 1 else 0",
        "if all(v > 5 for v in values where v < 9) then 1 else 0",
        "sum(sum(w for w in values where w <= v) for v in values)",
    ],
    "pawn": [
        "if leader then 2 * spaces[space] else spaces[space]",
        "if engaged then track else -1",
        "if leader == false then 1 else 0",
        "(track + 1) * (space - 2) + (if leader then 5 else 0)",
        "(track + 1) * (space - 2) + (if space >= 3 then 5 else 0)",
        "track * space + 1",
        "let x = track * 2 in x",
        "if space == 0 then 0 else track",
        "space",
    ],
    "round": [
        # runner: the sum of the records' scores with no frame (duel-classic's round), of
        # the rows or the pawns; the same shapes but another field or a filter are not it
        "sum(e.score for e in expeditions)",
        "sum(p.score for p in pawns)",
        "sum(e.cards for e in expeditions)",
        "sum(p.space for p in pawns)",
        "max(0, sum(p.score for p in pawns)) + tokens",
        "min(e.score for e in expeditions) + max(e.score for e in expeditions)",
        "count(p.leader for p in pawns) + count(e.cards for e in expeditions)",
        "if any(p.leader for p in pawns) then 1 else 0",
        "if all(p.leader for p in pawns) then 1 else 0",
        "sum(e.score for e in expeditions where e.cards > 0) + tokens "
        "+ count(p for p in pawns where p.leader) * 100 + round",
        "sum(sum(e.values) for e in expeditions)",
        "tokens * artefacts",
        "expeditions[0].score + pawns[round - 1].space",
    ],
    "match": [
        "sum(r for r in rounds) + artefacts * 10 - tokens",
        "sum(rounds) + spaces[min(artefacts, 9)]",
        "rounds[0] * rounds[1]",
    ],
}.items() for text in texts]


def outcome(call: Callable[[], int]) -> tuple:
    try:
        return ("value", call())
    except ScoringError as err:
        return ("error", err.code, err.message, err.line, err.col)


def agree(scope: str, text: str, args: tuple) -> None:
    """The closures, alone and behind the memo, give what the reference gives."""
    try:
        formula = compile_formula(text, scope, constants=CONSTANTS, tables=TABLES,
                                  domain=DOMAIN)
    except ScoringError:
        return
    expected = outcome(lambda: reference.run(formula, *args))
    alone = getattr(formula.run, "compute", formula.run)
    assert outcome(lambda: alone(*args)) == expected, (text, args)
    assert outcome(lambda: formula(*args)) == expected, (text, args)
    if expected[0] == "value":
        assert isinstance(expected[1], int) and -MAX_INT <= expected[1] <= MAX_INT


@pytest.mark.parametrize("scope, text", SHAPES, ids=[t[:60] for _, t in SHAPES])
def test_each_shape_agrees_with_the_reference(scope: str, text: str) -> None:
    compile_formula(text, scope, constants=CONSTANTS, tables=TABLES, domain=DOMAIN)  # compiles
    for args in ARGS[scope]:
        agree(scope, text, args)


def specialised_closures() -> dict[types.CodeType, str]:
    """Every function made inside a factory of closures.py and runner.py, by code object."""
    found: dict[types.CodeType, str] = {}

    def walk(code: types.CodeType) -> None:
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                if const.co_name not in ("<genexpr>", "<listcomp>"):
                    found[const] = f"{const.co_filename.rsplit('/', 1)[-1]}:{const.co_firstlineno}"
                walk(const)
    for module in (closures, runner):
        for value in vars(module).values():
            for obj in value.values() if isinstance(value, dict) else [value]:
                if isinstance(obj, types.FunctionType) and obj.__module__ == module.__name__:
                    walk(obj.__code__)
    return found


def test_every_specialised_closure_runs_against_the_reference() -> None:
    called: set[types.CodeType] = set()

    def tracer(frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "call":
            called.add(frame.f_code)
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        for scope, text in SHAPES:
            for args in ARGS[scope]:
                agree(scope, text, args)
    finally:
        sys.settrace(previous)
    missed = sorted(where for code, where in specialised_closures().items() if code not in called)
    assert not missed, f"closures no shape runs: {missed}"


# -- random formulas ------------------------------------------------------------------------

INT_LEAVES = {
    "expedition": ["colour", "wagers", "numbers", "cards", "points"],
    "pawn": ["track", "space"],
    "round": ["tokens", "artefacts", "round"],
    "match": ["artefacts", "tokens"],
}
BOOL_LEAVES = {"pawn": ["leader", "engaged"]}
NUMBERS = ["0", "1", "2", "3", "8", "20", "cost", "999999", "1000000", "1000001",
           "1000000000000"]
ARITH = st.sampled_from(["+", "-", "*", "*", "//", "%"])
COMPARE = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])
VARS = st.sampled_from(["x", "y"])


def typed(scope: str) -> st.SearchStrategy[str]:
    """Well-typed integer formulas of ``scope`` (name clashes aside), built as (int, bool) pairs."""
    ints = st.sampled_from(INT_LEAVES[scope] + NUMBERS)
    bools = st.sampled_from(BOOL_LEAVES.get(scope, []) + ["true", "false"]) | st.tuples(
        st.sampled_from(INT_LEAVES[scope]), COMPARE, st.sampled_from(NUMBERS)).map(" ".join)
    colls = {"expedition": "values", "match": "rounds"}.get(scope, "spaces")

    def extend(pairs: st.SearchStrategy[tuple[str, str]]) -> st.SearchStrategy[tuple[str, str]]:
        two = st.tuples(pairs, pairs)
        return st.one_of(
            st.tuples(pairs, ARITH, pairs, st.sampled_from(["and", "or"])).map(
                lambda t: (f"({t[0][0]} {t[1]} {t[2][0]})", f"({t[0][1]} {t[3]} {t[2][1]})")),
            st.tuples(pairs, COMPARE, pairs).map(
                lambda t: (f"(if {t[0][1]} then {t[0][0]} else {t[2][0]})",
                           f"({t[0][0]} {t[1]} {t[2][0]})")),
            st.tuples(pairs, COMPARE, ints, COMPARE, pairs).map(
                lambda t: (f"(-{t[0][0]})", f"({t[0][0]} {t[1]} {t[2]} {t[3]} {t[4][0]})")),
            st.tuples(two, st.sampled_from(["min", "max"])).map(
                lambda t: (f"{t[1]}({t[0][0][0]}, {t[0][1][0]})", f"(not {t[0][0][1]})")),
            two.map(lambda t: (f"abs({t[0][0]})", f"(if {t[0][1]} then {t[1][1]} else false)")),
            st.tuples(VARS, two).map(
                lambda t: (f"(let {t[0]} = {t[1][0][0]} in {t[0]} * {t[1][1][0]})",
                           f"(let {t[0]} = {t[1][0][1]} in {t[0]} or {t[1][1][1]})")),
            st.tuples(st.sampled_from(["sum", "count", "min", "max"]), ARITH, pairs, COMPARE,
                      pairs).map(
                lambda t: (f"{t[0]}(v {t[1]} {t[2][0]} for v in {colls} where v {t[3]} {t[4][0]})",
                           f"any(v {t[3]} {t[2][0]} for v in {colls})")),
            pairs.map(lambda t: (f"spaces[{t[0]}]", f"all(v > {t[0]} for v in {colls})")),
            st.tuples(pairs, st.sampled_from(NUMBERS), st.sampled_from(NUMBERS)).map(
                lambda t: (f"(({t[0][0]} + {t[1]}) * ({t[0][0]} - {t[2]}) "
                           f"+ (if {t[0][1]} then {t[1]} else {t[2]}))", t[0][1])),
        )
    return st.recursive(st.tuples(ints, bools), extend, max_leaves=8).map(lambda t: t[0])


ARG_STRATEGIES: dict[str, st.SearchStrategy[tuple]] = {
    "expedition": st.tuples(
        st.integers(0, 4),
        st.lists(st.integers(-3, 12) | st.sampled_from([BIG, MAX_INT, -MAX_INT, 2**30]),
                 max_size=10),
        st.integers(0, 3) | st.sampled_from([-1, BIG, MAX_INT])),
    "pawn": st.tuples(st.integers(0, 4), st.integers(-1, 10) | st.sampled_from([BIG, MAX_INT]),
                      st.booleans()),
    "round": st.tuples(
        st.lists(st.tuples(st.integers(0, 4), st.lists(st.integers(2, 10), max_size=3),
                           st.integers(0, 3), st.integers(-60, 100) | st.just(MAX_INT)),
                 max_size=3),
        st.lists(st.tuples(st.integers(0, 4), st.integers(0, 9), st.booleans(),
                           st.integers(-40, 100)), max_size=3),
        st.integers(0, 20) | st.just(BIG), st.integers(0, 5), st.integers(1, 3)),
    "match": st.tuples(st.lists(st.integers(-50, 300) | st.just(MAX_INT), max_size=4),
                       st.integers(0, 12) | st.just(BIG), st.integers(0, 40)),
}


#: each scope's formulas and arguments, built once (flatmap would build the recursive
#: strategy again for every example: most of the test's time)
CASES = {scope: st.tuples(st.just(scope), typed(scope),
                          st.lists(ARG_STRATEGIES[scope], min_size=1, max_size=4))
         for scope in sorted(ARG_STRATEGIES)}


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.sampled_from(sorted(CASES)).flatmap(CASES.__getitem__))
def test_random_formulas_agree_with_the_reference(case: tuple[str, str, list[tuple]]) -> None:
    scope, text, many = case
    for args in many:
        agree(scope, text, args)


# -- bounds: which products are checked ------------------------------------------------------

def products(text: str, scope: str = "expedition") -> list[bool]:
    """Whether each product of the compiled formula is checked, in tree order."""
    found: list[bool] = []

    def walk(code: Any) -> None:
        if code is None:
            return
        if code.op == "*":
            found.append(code.value)
        for arg in code.args:
            walk(arg)
    walk(compile_formula(text, scope, constants=CONSTANTS, tables=TABLES).code)
    return found


def test_products_of_bounded_operands_are_not_checked() -> None:
    assert products("if leader then 2 * spaces[space] else spaces[space]", "pawn") == [False]
    assert products("sum((v + 1) * (v - 1) for v in spaces)") == [False]
    assert products("(if cards > 3 then 999999 else 2) * 1000000") == [False]
    assert products("let x = spaces[min(cards, 9)] in x * x") == [False]
    # a field can hold any integer, and a bounded operand times 1000001 can pass 10^12
    assert products("(points - cost) * (1 + wagers)") == [True]
    assert products("(if cards > 3 then 999999 else 2) * 1000002") == [True]
    assert products("spaces[space] * 100000000000", "pawn") == [True]


def test_huge_numbers_are_still_refused_on_every_path() -> None:
    classic = "if cards == 0 then 0 else (points - cost) * (1 + wagers) " \
              "+ (if cards >= bonus_cards then bonus else 0)"
    formula = compile_formula(classic, constants=CONSTANTS)
    assert formula.run.compute.__name__ == "guarded"  # the inlined shape
    assert formula(0, [MAX_INT // 2 + 20], 1) == MAX_INT   # the product is just within
    for args, what in [((0, [MAX_INT + 21], 0), "product"),          # the product is beyond
                       ((0, [MAX_INT // 2 + 14] + [1] * 6, 1), "result"),  # + 20
                       ((0, [-MAX_INT], 3), "product")]:
        with pytest.raises(ScoringError) as caught:
            formula.run.compute(*args)
        assert caught.value.code == "LC104" and caught.value.message.startswith(what)
        assert outcome(lambda: reference.run(formula, *args)) == outcome(lambda: formula(*args))
    pawn = "if leader then 2 * spaces[space] else spaces[space]"
    assert compile_formula(pawn, "pawn", tables={"spaces": (0, MAX_INT // 2)})(0, 1, True) \
        == MAX_INT
    with pytest.raises(ScoringError) as caught:
        compile_formula(pawn, "pawn", tables={"spaces": (0, MAX_INT)})(0, 1, True)
    assert caught.value.code == "LC104" and "product" in caught.value.message
    squares = compile_formula("let a = points * points in let b = a * a in b * b")
    with pytest.raises(ScoringError) as caught:
        squares(0, [1001], 0)
    assert caught.value.code == "LC104" and "product" in caught.value.message
