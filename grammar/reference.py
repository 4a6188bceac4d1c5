"""The plain evaluation of a compiled formula, node by node: what the closures must agree with.

Nothing here is specialised and every product is checked, whatever its bounds.
Tests run formulas both ways (``run(formula, *args)`` against ``formula(*args)``)
and expect the same value or the same error at the same place.
"""
from __future__ import annotations

from typing import Any

from .compiler import Formula, check_result
from .ir import COMPARE, FOLD, Code, division_by_zero, index_error, too_large
from .runner import FRAMES
from .types import BOOL, MAX_INT


def run(formula: Formula, *args: Any) -> int:
    """``formula(*args)`` evaluated plainly (no memo, no specialised closure)."""
    frame = FRAMES[formula.scope](*args)
    frame += [None] * (formula.size - len(frame))
    return check_result(formula, evaluate(formula.code, frame))


def evaluate(code: Code, e: list) -> Any:
    """The value of ``code`` on the frame ``e``."""
    op, args = code.op, code.args
    if op == "const":
        return code.value
    if op == "slot":
        return e[code.value] + code.off if code.off else e[code.value]
    if op in ("+", "-", "*"):
        value = FOLD[op](evaluate(args[0], e), evaluate(args[1], e))
        if op == "*" and not -MAX_INT <= value <= MAX_INT:
            raise too_large(code.at, value)
        return value
    if op in ("//", "%"):
        x, d = evaluate(args[0], e), evaluate(args[1], e)
        if d == 0:
            raise division_by_zero(code.at, op)
        return FOLD[op](x, d)
    if op == "chain":
        whole, spans = code.at
        acc = evaluate(args[0], e)
        for word, arg, at in zip(code.value, args[1:], spans[1:]):
            x = evaluate(arg, e)
            if word in ("//", "%") and x == 0:
                raise division_by_zero(at, word)
            acc = FOLD[word](acc, x)
            if word == "*" and not -MAX_INT <= acc <= MAX_INT:
                raise too_large(whole, acc)
        return acc
    if op == "neg":
        return -evaluate(args[0], e)
    if op == "cmp":
        return COMPARE[code.value](evaluate(args[0], e), evaluate(args[1], e))
    if op == "cmps":
        left = evaluate(args[0], e)
        for word, arg in zip(code.value, args[1:]):
            right = evaluate(arg, e)
            if not COMPARE[word](left, right):
                return False
            left = right
        return True
    if op in ("and", "or"):
        decides = op == "or"
        for arg in args:
            if bool(evaluate(arg, e)) == decides:
                return decides
        return not decides
    if op == "not":
        return not evaluate(args[0], e)
    if op == "if":
        return evaluate(args[1] if evaluate(args[0], e) else args[2], e)
    if op == "let":
        e[code.value] = evaluate(args[0], e)
        return evaluate(args[1], e)
    if op == "index":
        items, i = evaluate(args[0], e), evaluate(args[1], e)
        if 0 <= i < len(items):
            return items[i]
        label, hint = code.value
        raise index_error(code.at, label, i, len(items), hint)
    if op == "field":
        return evaluate(args[0], e)[code.value]
    if op == "call":
        values = [evaluate(arg, e) for arg in args]
        return {"min": min, "max": max, "abs": abs}[code.value](*values)
    assert op == "agg", op
    return _aggregate(code, e)


def _aggregate(code: Code, e: list) -> Any:
    coll, elem, where = code.args
    name, slot = code.value
    kept = []
    for item in evaluate(coll, e):
        if slot >= 0:
            e[slot] = item
        if where is not None and not evaluate(where, e):
            continue
        if name == "count" and (elem is None or elem.type != BOOL):
            kept.append(1)  # an integer element is never evaluated
            continue
        value = item if elem is None else evaluate(elem, e)
        if name == "any" and value:
            return True
        if name == "all" and not value:
            return False
        kept.append(value)
    if name in ("any", "all"):
        return name == "all"
    if name == "count":
        return sum(1 for value in kept if value)
    if name == "sum":
        return sum(kept)
    return (min if name == "min" else max)(kept, default=0)
