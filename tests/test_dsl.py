"""The scoring language itself: every construct, types, names, errors, limits, positions."""
from __future__ import annotations

import pytest

from lostcities.engine.errors import ScoringError
from lostcities.grammar import MAX_DEPTH, MAX_INT, MAX_LENGTH, Formula, compile_formula
from lostcities.grammar.bounds import Domain
from lostcities.grammar.parser import scoring_parser

CONSTANTS = {"cost": 20, "bonus": 20, "bonus_cards": 8}
TABLES = {"spaces": (0, -20, -15, -10, 5, 10, 15, 30, 35, 50), "empty": ()}
#: duel-classic's games: 5 colours, values 2..10 once each, 3 wagers, 3 rounds
DUEL = Domain(colours=5, min_value=2, max_value=10, copies=1, wagers=3, rounds=3)


def expedition(text: str, domain: Domain | None = None) -> Formula:
    return compile_formula(text, "expedition", constants=CONSTANTS, tables=TABLES,
                           domain=domain)


def error_of(text: str, scope: str = "expedition", **kwargs) -> ScoringError:
    kwargs.setdefault("constants", CONSTANTS)
    kwargs.setdefault("tables", TABLES)
    with pytest.raises(ScoringError) as caught:
        compile_formula(text, scope, **kwargs)
    return caught.value


# -- constructs: one example each, on the row rx r4 r6 r9 (colour 4) ------------------

ROW = (4, [4, 6, 9], 1)


@pytest.mark.parametrize("text, expected", [
    ("points", 19),
    ("cards", 4),
    ("numbers", 3),
    ("wagers", 1),
    ("colour", 4),
    ("cost", 20),
    ("7", 7),
    ("points - cost", -1),
    ("2 + 3 * 4", 14),
    ("(2 + 3) * 4", 20),
    ("points // 4", 4),
    ("-points // 4", -5),            # // rounds down, as in Python
    ("points % 4", 3),
    ("-points % 4", 1),              # % takes the divisor's sign
    ("points % -4", -1),
    ("-cards", -4),
    ("- -cards", 4),
    ("+cards", 4),
    ("10 - 3 - 2", 5),               # left to right
    ("100 // 10 // 5", 2),
    ("if cards == 4 then 1 else 2", 1),
    ("if cards != 4 then 1 else 2", 2),
    ("if cards > 3 then 1 else 2", 1),
    ("if cards >= 5 then 1 else 2", 2),
    ("if cards < 4 then 1 else 2", 2),
    ("if cards <= 4 then 1 else 2", 1),
    ("if 3 < cards then 1 else 2", 1),
    ("if 1 <= wagers < cards then 1 else 0", 1),
    ("if 1 <= wagers < 1 then 1 else 0", 0),
    ("if cards > 3 and wagers == 1 then 1 else 0", 1),
    ("if cards > 9 or wagers == 1 then 1 else 0", 1),
    ("if not cards > 9 then 1 else 0", 1),
    ("if true then 1 else 0", 1),
    ("if false or false then 1 else 0", 0),
    ("if true == (cards > 3) then 1 else 0", 1),
    ("if cards == 0 then 0 else if cards < 4 then 1 else 2", 2),
    ("let x = points - cost in x * x", 1),
    ("let x = cards in let y = x + 1 in x * y", 20),
    ("let big = cards > 3 in if big then 1 else 0", 1),
    ("sum(values)", 19),
    ("sum(v for v in values)", 19),
    ("sum(v * v for v in values)", 133),
    ("sum(v for v in values where v > 5)", 15),
    ("count(values)", 3),
    ("count(v for v in values where v % 2 == 0)", 2),
    ("count(v > 5 for v in values)", 2),            # a boolean element counts when true
    ("min(values)", 4),
    ("max(v for v in values)", 9),
    ("max(v for v in values where v > 100)", 0),     # nothing to compare: 0
    ("min(v for v in values where v > 100)", 0),
    ("if any(v == 6 for v in values) then 1 else 0", 1),
    ("if all(v > 4 for v in values) then 1 else 0", 0),
    ("if all(v > 4 for v in values where v > 5) then 1 else 0", 1),
    ("if any(v > 100 for v in values) then 1 else 0", 0),
    ("if all(v > 100 for v in values where v > 100) then 1 else 0", 1),
    ("sum(v * w for v in values for w in values)", None),  # not the language: see below
    ("min(cards, 2)", 2),
    ("max(0, points - cost)", 0),
    ("max(1, 2, cards, 3)", 4),
    ("abs(points - cost)", 1),
    ("spaces[cards]", 5),
    ("spaces[9]", 50),
    ("spaces[min(cards * 10, 9)]", 50),
    ("values[0] + values[2]", 13),
    ("sum(spaces)", 100),
    ("count(empty)", 0),
    ("sum(sum(w for w in values where w <= v) for v in values)", 33),
    ("cards # a comment\n + 1", 5),
    ("(points - cost) * (1 + wagers) + (if cards >= bonus_cards then bonus else 0)", -2),
])
def test_construct(text: str, expected: int | None) -> None:
    if expected is None:
        assert error_of(text).code == "LC101"
        return
    formula = expedition(text, DUEL)  # a duel's rows: aggregates may nest over them
    assert formula(*ROW) == expected
    assert getattr(formula.run, "compute", formula.run)(*ROW) == expected  # closures alone
    assert formula.evaluate(colour=4, values=[4, 6, 9], wagers=1, numbers=3, cards=4,
                            points=19) == expected


def test_long_chains_run_as_loops_with_the_same_result() -> None:
    n = 40
    assert expedition(" + ".join(["cards"] * n))(*ROW) == 4 * n
    assert expedition(" - ".join(["cards"] * n))(*ROW) == 4 - 4 * (n - 1)
    assert expedition("1000 // " + " // ".join(["wagers"] * 20))(*ROW) == 1000
    with pytest.raises(ScoringError) as caught:
        expedition("1000 // " + " // ".join(["wagers"] * 20))(0, [], 0)
    assert caught.value.code == "LC105"
    assert expedition("if " + " and ".join(["cards > 1"] * 30) + " then 1 else 0")(*ROW) == 1
    assert expedition("if " + " or ".join(["cards > 9"] * 30) + " then 1 else 0")(*ROW) == 0


def test_constants_are_folded_and_a_constant_formula_needs_no_fields() -> None:
    formula = expedition("cost * 2 + bonus_cards - 8")
    assert formula.constant == 40
    assert formula.uses == frozenset()
    assert formula(0, [], 0) == 40


def test_the_formula_records_which_fields_it_reads() -> None:
    assert expedition("points - cost + (if cards > 0 then 1 else 0)").uses == {"points", "cards"}


def test_other_scopes() -> None:
    pawn = compile_formula("if leader then 2 * spaces[space] else spaces[space]", "pawn",
                           tables=TABLES)
    assert pawn(0, 1, True) == -40 and pawn(0, 1, False) == -20 and pawn(0, 0, True) == 0
    engaged = compile_formula("if engaged then track else -1", "pawn")
    assert engaged(3, 2, False) == 3 and engaged(3, 0, False) == -1
    rnd = compile_formula("sum(e.score for e in expeditions where e.cards > 0) + tokens "
                          "+ count(p for p in pawns where p.leader) * 100 + round", "round")
    rows = [(0, [5, 8, 10], 0, 3), (1, [], 0, 0), (2, [], 1, -40)]
    pawns = [(0, 3, True, 0), (1, 2, False, 0)]
    assert rnd(rows, pawns, 7, 0, 2) == 3 - 40 + 7 + 100 + 2
    assert rnd.evaluate(expeditions=[{"score": 5, "cards": 1}, {"score": 9}], tokens=1) == 6
    match = compile_formula("sum(r for r in rounds where r > 0) + artefacts * 10 - tokens",
                            "match")
    assert match([5, -3, 8], 2, 1) == 32


# -- types -----------------------------------------------------------------------------

@pytest.mark.parametrize("text, message, hint", [
    ("if cards then 1 else 0", "the condition of `if` needs a boolean, got an integer",
     "compare it, e.g. `cards > 0`"),
    ("if cards > 0 then 1 else true", "the branches of `if` differ", ""),
    ("cards > 0", "the expedition formula must give an integer, not a boolean",
     "if ... then 1 else 0"),
    ("points + values", "`+` needs an integer, got a collection of integers",
     "aggregate it, e.g. `sum(values)`"),
    ("true + 1", "`+` needs an integer, got a boolean", "if ... then 1 else 0"),
    ("if cards and true then 1 else 0", "`and` needs a boolean, got an integer", ""),
    ("if not cards then 1 else 0", "`not` needs a boolean", ""),
    ("if values == 1 then 1 else 0", "`==` compares integers or booleans", ""),
    ("if cards == true then 1 else 0", "`==` compares an integer with a boolean", ""),
    ("if cards < true then 1 else 0", "`<` needs an integer, got a boolean", ""),
    ("cards[0]", "`[...]` indexes a table or collection, not an integer", ""),
    ("spaces[cards > 1]", "an index needs an integer, got a boolean", ""),
    ("values.score", "`.score`: a collection of integers has no fields", ""),
    ("min(1)", "`min` takes two or more integers or one collection, got 1 argument", ""),
    ("abs(1, 2)", "`abs` takes one integer, got 2 arguments", ""),
    ("sum(1, 2)", "`sum` takes one collection or a `for` expression", ""),
    ("sum(v > 1 for v in values)", "`sum` adds up integers, got a boolean", ""),
    ("if any(v for v in values) then 1 else 0", "`any` needs booleans, got an integer", ""),
    ("sum(v for v in cards)", "`for ... in` needs a collection, got an integer", ""),
    ("sum(v for v in values where v)", "`where` needs a boolean, got an integer", ""),
    ("cost(1)", "`cost` is not a function", ""),
    ("sum + 1", "`sum` is a function", "call it, e.g. `sum(values)`"),
])
def test_type_errors(text: str, message: str, hint: str) -> None:
    err = error_of(text)
    assert err.code == "LC103"
    assert message in err.message
    assert hint in err.hint


def test_record_types_in_the_round_scope() -> None:
    err = error_of("sum(e for e in expeditions)", "round")
    assert err.code == "LC103" and "got an expedition elements" in err.message
    err = error_of("expeditions.score", "round")
    assert err.code == "LC103"
    assert err.hint == "aggregate over it, e.g. `sum(x.score for x in expeditions)`"


# -- names -----------------------------------------------------------------------------

def test_unknown_field_suggests_the_closest_name() -> None:
    err = error_of("(points - cost) * (1 + wager)")
    assert (err.code, err.message, err.hint) == ("LC102", "unknown field `wager`",
                                                 "did you mean `wagers`?")
    assert err.col == 24
    assert str(err) == "<formula>:1:24: error LC102 unknown field `wager`; did you mean `wagers`?"


def test_unknown_name_without_a_close_match_lists_the_scope() -> None:
    err = error_of("zzz")
    assert err.code == "LC102"
    assert "cards, colour, cost" in err.hint


def test_unknown_record_field_and_score_without_its_formula() -> None:
    err = error_of("sum(e.scor for e in expeditions)", "round")
    assert err.code == "LC102" and err.hint.startswith("did you mean `score`")
    err = error_of("sum(e.score for e in expeditions)", "round", scored=frozenset({"pawn"}))
    assert err.code == "LC102"
    assert err.hint == "`score` needs a `scoring.expedition` formula in the pack"


@pytest.mark.parametrize("text, hint", [
    ("avg(values)", "the functions are"),
    ("maxx(1, 2)", "did you mean `max`?"),
    ("len(values)", "use `count(...)`"),
    ("avg(v for v in values)", "the aggregates are"),
    ("eval(1)", "the functions are"),
    ("__import__(1)", "the functions are"),
])
def test_unknown_functions(text: str, hint: str) -> None:
    err = error_of(text)
    assert err.code == "LC102" and hint in err.hint


def test_nothing_of_python_is_reachable() -> None:
    for text in ("values.__class__", "cards.real", "spaces.index"):
        assert error_of(text).code == "LC103"
    for text in ("__builtins__", "self", "e"):
        assert error_of(text).code == "LC102"


def test_names_cannot_hide_other_names() -> None:
    assert error_of("let cards = 1 in cards").code == "LC108"
    assert error_of("let cost = 1 in cost").code == "LC108"
    assert error_of("let x = 1 in let x = 2 in x").code == "LC108"
    assert error_of("sum(points for points in values)").code == "LC108"
    assert error_of("let sum = 1 in sum").code == "LC108"
    # the same name twice side by side is fine
    assert expedition("sum(v for v in values) + count(v for v in values)")(*ROW) == 22
    assert expedition("(let x = 1 in x) + (let x = 2 in x)")(*ROW) == 3


@pytest.mark.parametrize("constants, tables, code, text", [
    ({"cards": 1}, {}, "LC108", "constant `cards` has the name of a field"),
    ({"score": 1}, {}, "LC108", "constant `score` has the name of a field"),
    ({}, {"max": (1,)}, "LC108", "table `max` has the name of a function"),
    ({"t": 1}, {"t": (1,)}, "LC108", "`t` is both a constant and a table"),
    ({"c": True}, {}, "LC103", "constant `c` must hold integers"),
    ({}, {"t": (1, "2")}, "LC103", "table `t` must hold integers"),
    ({"c": MAX_INT + 1}, {}, "LC104", "beyond"),
])
def test_bad_constants_and_tables(constants, tables, code, text) -> None:
    err = error_of("1", constants=constants, tables=tables)
    assert err.code == code and text in err.message


# -- syntax ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, col, hint", [
    ("points / 2", 8, "integer division is written `//`"),
    ("if cards = 0 then 0 else 1", 10, "compare with `==`"),
    ("points if cards > 0 else 0", 8, "the conditional is written `if COND then A else B`"),
    ("sum(v for v in values if v > 2)", 23, "filter with `where`"),
    ("points ** 2", 9, "there is no power operator"),
    ("!true", 1, "negation is written `not`"),
    ("cards && true", 7, "write `and`"),
    ("points +", 9, "expected"),
    ("(points", 8, "expected `)`"),
    ("points)", 7, "expected"),
    ("let x 3 in x", 7, "expected `=`"),
    ("if cards > 0 then 1", 20, "expected"),
    ("values[0", 9, "expected"),
    ("'x'", 1, "the language has no strings"),
    ("1.5", 3, "numbers are whole"),
])
def test_syntax_errors_say_where_and_hint(text: str, col: int, hint: str) -> None:
    err = error_of(text)
    assert err.code == "LC101"
    assert (err.line, err.col) == (1, col), err
    assert hint in err.hint


def test_keywords_are_reserved() -> None:
    for text in ("let if = 1 in 2", "in", "then + 1", "values.for"):
        assert error_of(text).code == "LC101"


def test_empty_formula() -> None:
    err = error_of("  \n ")
    assert err.code == "LC101" and err.message == "empty formula"


def test_error_on_a_later_line_of_the_formula() -> None:
    err = error_of("if cards == 0 then 0\nelse points - costs")
    assert (err.line, err.col) == (2, 15)
    assert err.excerpt.splitlines() == ["    2 | else points - costs",
                                        "      |               ^^^^^"]


# -- limits ----------------------------------------------------------------------------

def test_formula_length_cap() -> None:
    ok = "1" + " + 1" * ((MAX_LENGTH - 1) // 4)
    assert len(ok) <= MAX_LENGTH and expedition(ok)(0, [], 0) == (MAX_LENGTH - 1) // 4 + 1
    err = error_of("1" + " " * MAX_LENGTH)
    assert err.code == "LC104" and f"the limit is {MAX_LENGTH}" in err.message


def test_bracket_nesting_cap_is_checked_before_parsing() -> None:
    assert expedition("(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH)(0, [], 0) == 1
    err = error_of("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1))
    assert err.code == "LC104" and err.col == MAX_DEPTH + 1
    # unbalanced, far too deep: still the limit, not a parser failure
    assert error_of("[" * 900).code == "LC104"


def test_tree_depth_cap() -> None:
    assert error_of("if " + "not " * 40 + "true then 1 else 0").code == "LC104"
    assert error_of("-" * 60 + "1").code == "LC104"
    assert error_of("let a = 1 in " * 40 + "1").code == "LC104"
    assert expedition("if " + "not " * 20 + "true then 1 else 0")(0, [], 0) == 1


def test_aggregate_nesting_cap() -> None:
    three = "sum(sum(sum(1 for c in values) for b in values) for a in values)"
    assert expedition(three, DUEL)(*ROW) == 27
    err = error_of("sum(" + three + " for d in values)")
    assert err.code == "LC104" and "aggregates nest" in err.message


def test_integer_caps() -> None:
    assert expedition(str(MAX_INT))(0, [], 0) == MAX_INT
    assert error_of(str(MAX_INT + 1)).code == "LC104"
    assert error_of("9" * 5000).code == "LC104"   # never converted: no int() blow-up
    assert error_of("0" * 20 + "1" * 20).code == "LC104"
    assert expedition("000000000000000000042")(0, [], 0) == 42
    err = error_of(f"{MAX_INT} * 2")
    assert err.code == "LC104" and "beyond the limit" in err.message
    big = expedition(f"points * {MAX_INT}")
    assert big(0, [1], 0) == MAX_INT
    with pytest.raises(ScoringError) as caught:
        big(0, [2], 0)
    assert caught.value.code == "LC104"
    # every product is bounded too, so nothing can grow without end
    with pytest.raises(ScoringError) as caught:
        expedition(f"points * {MAX_INT} * {MAX_INT} // {MAX_INT} // {MAX_INT}")(0, [3], 0)
    assert caught.value.code == "LC104" and "product" in caught.value.message
    squares = "".join(f"let a{i} = a{i - 1} * a{i - 1} in " for i in range(1, 7))
    with pytest.raises(ScoringError) as caught:
        expedition(f"let a0 = points in {squares} a6")(0, [999], 0)
    assert caught.value.code == "LC104"
    assert error_of("let a = 999999 * 999999 in let b = a * a in b").code == "LC104"
    long_product = " * ".join(["cards"] * 50)
    assert expedition(long_product)(0, [1], 0) == 1
    with pytest.raises(ScoringError):
        expedition(long_product)(0, [1, 1], 0)


# -- run-time errors --------------------------------------------------------------------

def test_division_by_zero_at_run_time_is_a_scoring_error() -> None:
    formula = expedition("points // numbers")
    assert formula(0, [4, 6], 0) == 5
    for _ in range(2):  # errors are never remembered as results
        with pytest.raises(ScoringError) as caught:
            formula(0, [], 1)
        err = caught.value
        assert (err.code, err.line, err.col) == ("LC105", 1, 11)
        assert err.message == "division by zero (`numbers` is 0)"
    with pytest.raises(ScoringError) as caught:
        expedition("points % (cards - wagers)")(0, [], 2)
    assert caught.value.message == "modulo by zero (`cards - wagers` is 0)"


def test_division_by_a_constant_zero_fails_at_compile_time() -> None:
    err = error_of("points // (cost - 20)")
    assert err.code == "LC105" and err.hint == "the divisor is always 0"


def test_index_out_of_range() -> None:
    formula = expedition("spaces[cards]")
    assert formula(0, [1] * 9, 0) == 50
    with pytest.raises(ScoringError) as caught:
        formula(0, [1] * 10, 0)
    err = caught.value
    assert err.code == "LC106"
    assert err.message == "index 10 is out of range for `spaces` (valid: 0..9)"
    assert err.hint == "clamp it, e.g. `spaces[min(cards, 9)]`"
    with pytest.raises(ScoringError) as caught:
        expedition("spaces[wagers - 1]")(0, [], 0)
    assert caught.value.message.startswith("index -1 is out of range")
    assert error_of("spaces[10]").code == "LC106"
    assert error_of("empty[0]").message == "index 0 is out of range for `empty` (valid: none: it is empty)"
    with pytest.raises(ScoringError) as caught:
        expedition("values[3]")(*ROW)
    assert caught.value.hint == "check its size first with `count(values)`"


# -- the parser -------------------------------------------------------------------------

def test_the_parser_is_built_once() -> None:
    assert scoring_parser() is scoring_parser()
    assert scoring_parser().options.parser == "lalr"
