"""Closures from the compiled tree: each node becomes a closure ``f(e)`` over the frame ``e``.

The frame holds the scope's fields, then the ``let`` and aggregate names, by
slot. A node's closure is specialised by the kinds of its operands, so that
leaves are read inline rather than called: a constant, a slot read with its
offset (``e[5] - 20``), a test of a slot against a constant (``e[4] >= 8``), a
choice between constants on such a test (``20 if e[4] >= 8 else 0``, a
*pick*), a product of two slots. ``(points - cost) * (1 + wagers) + (if cards >=
bonus_cards then bonus else 0)`` runs as one closure.

A product is checked against ±MAX_INT only when its operands' bounds do not
prove it within (``Code.value`` of a ``*`` node, decided in :mod:`.ir`). A
check first compares with ±SMALL, the integers Python compares fastest, and
only a value beyond is compared with ±MAX_INT. :func:`result` gives the closure
of a formula's whole value, within ±MAX_INT or refused: a sum of a checked
product and a bounded term checks once.
"""
from __future__ import annotations

from operator import itemgetter, mul
from typing import Any, Callable, Sequence

from .ir import (COMPARE, FOLD, At, Code, division_by_zero, index_error, too_large, within)
from .types import BOOL, MAX_INT

Frame = Sequence[Any]
Fn = Callable[[Frame], Any]
Check = Callable[[int], int]
"""``check(value)``: the value if within ±MAX_INT, else it raises LC104."""

LO, HI = -MAX_INT, MAX_INT
#: CPython compares integers within ±(2**30 - 1) fastest (one digit): the first check
SMALL = (1 << 30) - 1
NSMALL = -SMALL


def closure(code: Code) -> Fn:
    """A closure ``f(e)`` computing ``code`` from the frame ``e``."""
    return _LOWER[code.op](code)


# -- operand kinds --------------------------------------------------------------------------

#: op -> (fused op, constant adjustment, negated): e[i] op k  ==  (e[i] fop k + adj) ^ neg
_NORMAL = {"==": ("==", 0, False), "!=": ("==", 0, True), ">=": (">=", 0, False),
           ">": (">=", 1, False), "<": (">=", 0, True), "<=": (">=", 1, True)}

Test = tuple[str, int, Any, bool]
Pick = tuple[str, int, Any, int, int]
Prod = tuple[int, int, int, int]


def as_test(code: Code) -> Test | None:
    """``(op, i, k, negated)`` when the boolean ``code`` is ``e[i] op k``, op ``==`` or ``>=``."""
    if code.op == "slot" and code.type == BOOL:
        return "==", code.value, True, False
    if code.op == "not":
        inner = as_test(code.args[0])
        return None if inner is None else (inner[0], inner[1], inner[2], not inner[3])
    if code.op == "cmp":
        a, b = code.args
        if a.op == "slot" and b.constant:
            if a.type == BOOL:  # booleans compare with == and != only
                return "==", a.value, b.value, code.value == "!="
            fop, adj, neg = _NORMAL[code.value]
            return fop, a.value, b.value - a.off + adj, neg
    return None


def as_pick(code: Code) -> Pick | None:
    """``(op, i, k, x, y)`` when ``code`` is ``x if e[i] op k else y`` with constants x, y."""
    if code.op != "if":
        return None
    test, a, b = code.args
    found = as_test(test)
    if found is None or not (a.constant and b.constant):
        return None
    op, i, k, neg = found
    return (op, i, k, b.value, a.value) if neg else (op, i, k, a.value, b.value)


def as_product(code: Code) -> Prod | None:
    """``(i, p, j, q)`` when ``code`` is the product ``(e[i] + p) * (e[j] + q)``."""
    if code.op == "*" and code.args[0].op == "slot" and code.args[1].op == "slot":
        a, b = code.args
        return a.value, a.off, b.value, b.off
    return None


def _product_check(at: At) -> Check:
    def check(value: int) -> int:
        if LO <= value <= HI:
            return value
        raise too_large(at, value)
    return check


# -- leaves -------------------------------------------------------------------------------

def _const(code: Code) -> Fn:
    value = code.value
    return lambda e: value


def _slot(code: Code) -> Fn:
    i, off = code.value, code.off
    if off:
        return lambda e: e[i] + off
    return itemgetter(i)


# -- arithmetic ---------------------------------------------------------------------------

def _add(code: Code) -> Fn:
    a, b = code.args
    if b.constant:
        k = b.value
        prod = as_product(a)
        if prod is not None:
            return _prod_plus_const(prod, k, a)
        f = closure(a)
        return lambda e: f(e) + k
    if a.op == "slot" or b.op == "slot":
        if a.op != "slot":
            a, b = b, a
        i, p = a.value, a.off
        if b.op == "slot":
            j, k = b.value, p + b.off
            return lambda e: e[i] + e[j] + k
        pick = as_pick(b)
        if pick is not None:  # the offset goes into the branches
            op, t, k, x, y = pick
            x, y = x + p, y + p
            if op == "==":
                return lambda e: e[i] + (x if e[t] == k else y)
            return lambda e: e[i] + (x if e[t] >= k else y)
        g = closure(b)
        if p:
            return lambda e: e[i] + g(e) + p
        return lambda e: e[i] + g(e)
    if as_pick(a) is not None and as_pick(b) is None:
        a, b = b, a  # a pick never fails: evaluating it second changes nothing
    pick = as_pick(b)
    if pick is not None and as_pick(a) is None:
        prod = as_product(a)
        if prod is not None:
            return _prod_plus_pick(prod, pick, a)
        f = closure(a)
        op, t, k, x, y = pick
        if op == "==":
            return lambda e: f(e) + (x if e[t] == k else y)
        return lambda e: f(e) + (x if e[t] >= k else y)
    f, g = closure(a), closure(b)
    return lambda e: f(e) + g(e)


def _prod_plus_const(prod: Prod, k: int, code: Code) -> Fn:
    i, p, j, q = prod
    if not code.value:
        return lambda e: (e[i] + p) * (e[j] + q) + k
    check = _product_check(code.at)
    return lambda e: (r + k if NSMALL <= (r := (e[i] + p) * (e[j] + q)) <= SMALL
                      else check(r) + k)


def _prod_plus_pick(prod: Prod, pick: Pick, code: Code) -> Fn:
    i, p, j, q = prod
    op, t, k, x, y = pick
    if not code.value:
        if op == "==":
            return lambda e: (e[i] + p) * (e[j] + q) + (x if e[t] == k else y)
        return lambda e: (e[i] + p) * (e[j] + q) + (x if e[t] >= k else y)
    check = _product_check(code.at)
    if op == "==":
        return lambda e: ((r if NSMALL <= (r := (e[i] + p) * (e[j] + q)) <= SMALL
                           else check(r)) + (x if e[t] == k else y))
    return lambda e: ((r if NSMALL <= (r := (e[i] + p) * (e[j] + q)) <= SMALL
                       else check(r)) + (x if e[t] >= k else y))


def _sub(code: Code) -> Fn:
    a, b = code.args
    if a.op == "slot" and b.op == "slot":
        i, j, k = a.value, b.value, a.off - b.off
        if k:
            return lambda e: e[i] - e[j] + k
        return lambda e: e[i] - e[j]
    if a.constant:
        if b.op == "slot":
            j, k = b.value, a.value - b.off
            return lambda e: k - e[j]
        k, g = a.value, closure(b)
        return lambda e: k - g(e)
    f, g = closure(a), closure(b)
    return lambda e: f(e) - g(e)


def _mul(code: Code) -> Fn:
    """``a * b``: operands in the order the tree puts them (a constant last, a slot first).

    Checked against ±MAX_INT unless the operands' bounds prove it within (then
    ``code.value`` is false); every checked product is bounded, so no chain of
    products can grow without end.
    """
    a, b = code.args
    if not code.value:
        if b.constant:
            k = b.value
            if a.op == "slot":
                i, p = a.value, a.off
                return lambda e: (e[i] + p) * k
            f = closure(a)
            return lambda e: f(e) * k
        f, g = closure(a), closure(b)
        return lambda e: f(e) * g(e)
    check = _product_check(code.at)
    if a.op == "slot":
        i, p = a.value, a.off
        if b.op == "slot":
            j, q = b.value, b.off
            return lambda e: (r if NSMALL <= (r := (e[i] + p) * (e[j] + q)) <= SMALL
                              else check(r))
        if b.constant:
            k = b.value
            return lambda e: r if NSMALL <= (r := (e[i] + p) * k) <= SMALL else check(r)
        g = closure(b)
        return lambda e: r if NSMALL <= (r := (e[i] + p) * g(e)) <= SMALL else check(r)
    f = closure(a)
    if b.constant:
        k = b.value
        return lambda e: r if NSMALL <= (r := f(e) * k) <= SMALL else check(r)
    g = closure(b)
    return lambda e: r if NSMALL <= (r := f(e) * g(e)) <= SMALL else check(r)


def _divide(code: Code) -> Fn:
    a, b = code.args
    op = code.op
    f = closure(a)
    if b.constant:  # never 0: refused when the formula compiled
        k = b.value
        if op == "//":
            return lambda e: f(e) // k
        return lambda e: f(e) % k
    g, func, at = closure(b), FOLD[op], code.at

    def divide(e: Frame) -> int:
        x = f(e)
        d = g(e)
        if d:
            return func(x, d)
        raise division_by_zero(at, op)
    return divide


def _chain(code: Code) -> Fn:
    whole, spans = code.at
    first = closure(code.args[0])
    steps = tuple((FOLD[op], closure(c), spans[n + 1] if op in ("//", "%") else None, op)
                  for n, (op, c) in enumerate(zip(code.value, code.args[1:])))

    def run(e: Frame) -> int:
        acc = first(e)
        for func, g, at, op in steps:
            x = g(e)
            if at is not None and not x:
                raise division_by_zero(at, op)
            acc = func(acc, x)
            if func is mul and not LO <= acc <= HI:
                raise too_large(whole, acc)
        return acc
    return run


def _neg(code: Code) -> Fn:
    a = code.args[0]
    if a.op == "slot":
        i, k = a.value, -a.off
        return lambda e: k - e[i]
    f = closure(a)
    return lambda e: -f(e)


# -- comparisons, logic, conditionals ------------------------------------------------------

_TESTS = {
    ("==", False): lambda i, k: lambda e: e[i] == k,
    ("==", True): lambda i, k: lambda e: e[i] != k,
    (">=", False): lambda i, k: lambda e: e[i] >= k,
    (">=", True): lambda i, k: lambda e: e[i] < k,
}


def _cmp(code: Code) -> Fn:
    found = as_test(code)
    if found is not None:
        op, i, k, neg = found
        return _TESTS[op, neg](i, k)
    a, b = code.args
    func = COMPARE[code.value]
    f = closure(a)
    if b.constant:
        k = b.value
        return lambda e: func(f(e), k)
    g = closure(b)
    return lambda e: func(f(e), g(e))


def _cmps(code: Code) -> Fn:
    fns = [closure(c) for c in code.args]
    pairs = tuple(zip((COMPARE[op] for op in code.value), fns[1:]))
    first = fns[0]

    def run(e: Frame) -> bool:
        left = first(e)
        for func, g in pairs:
            right = g(e)
            if not func(left, right):
                return False
            left = right
        return True
    return run


def _not(code: Code) -> Fn:
    found = as_test(code)
    if found is not None:
        op, i, k, neg = found
        return _TESTS[op, neg](i, k)
    f = closure(code.args[0])
    return lambda e: not f(e)


def _logic(code: Code) -> Fn:
    fns = tuple(closure(c) for c in code.args)
    if len(fns) == 2:
        f, g = fns
        if code.op == "or":
            return lambda e: f(e) or g(e)
        return lambda e: f(e) and g(e)
    if code.op == "or":
        return lambda e: any(f(e) for f in fns)
    return lambda e: all(f(e) for f in fns)


def _if(code: Code) -> Fn:
    test, a, b = code.args
    found = as_test(test)
    if found is not None:
        op, i, k, neg = found
        return _branches(op, i, k, b, a) if neg else _branches(op, i, k, a, b)
    t = closure(test)
    if a.constant and b.constant:
        x, y = a.value, b.value
        return lambda e: x if t(e) else y
    f, g = closure(a), closure(b)
    return lambda e: f(e) if t(e) else g(e)


def _branches(op: str, i: int, k: Any, a: Code, b: Code) -> Fn:
    """``a if e[i] op k else b``, the test inline, constant branches inline."""
    eq = op == "=="
    if a.constant and b.constant:
        x, y = a.value, b.value
        if eq:
            return lambda e: x if e[i] == k else y
        return lambda e: x if e[i] >= k else y
    if a.constant:
        x, g = a.value, closure(b)
        if eq:
            return lambda e: x if e[i] == k else g(e)
        return lambda e: x if e[i] >= k else g(e)
    if b.constant:
        f, y = closure(a), b.value
        if eq:
            return lambda e: f(e) if e[i] == k else y
        return lambda e: f(e) if e[i] >= k else y
    f, g = closure(a), closure(b)
    if eq:
        return lambda e: f(e) if e[i] == k else g(e)
    return lambda e: f(e) if e[i] >= k else g(e)


def _let(code: Code) -> Fn:
    slot = code.value
    v, b = (closure(c) for c in code.args)

    def run(e: list) -> Any:
        e[slot] = v(e)
        return b(e)
    return run


# -- collections, records, functions -----------------------------------------------------

def _index(code: Code) -> Fn:
    coll, idx = code.args
    label, hint = code.value
    at = code.at
    c, f = closure(coll), closure(idx)

    def run(e: Frame) -> Any:
        items = c(e)
        i = f(e)
        if 0 <= i < len(items):
            return items[i]
        raise index_error(at, label, i, len(items), hint)
    return run


def _field(code: Code) -> Fn:
    record, = code.args
    position = code.value
    if record.op == "slot":
        slot = record.value
        return lambda e: e[slot][position]
    r = closure(record)
    return lambda e: r(e)[position]


def _call(code: Code) -> Fn:
    name = code.value
    func = {"min": min, "max": max, "abs": abs}[name]
    if name == "abs":
        f = closure(code.args[0])
        return lambda e: abs(f(e))
    consts = [a.value for a in code.args if a.constant]
    others = [closure(a) for a in code.args if not a.constant]
    if len(others) == 1 and len(consts) == 1:
        f, k = others[0], consts[0]
        return lambda e: func(f(e), k)
    if consts:
        k = func(consts)
        others.append(lambda e: k)
    fns = tuple(others)
    return lambda e: func([g(e) for g in fns])


def _agg(code: Code) -> Fn:
    coll, elem, where = code.args
    name, slot = code.value
    c = closure(coll)
    direct = elem is None or (elem.op == "slot" and elem.value == slot and not elem.off)
    of_var = (elem is not None and elem.op == "field" and elem.args[0].op == "slot"
              and elem.args[0].value == slot)
    if where is None and (direct or of_var):
        return _direct_aggregate(name, c, None if direct else elem)
    x = closure(elem) if elem is not None else itemgetter(slot)
    counting_bools = name == "count" and elem is not None and elem.type == BOOL
    if name == "count" and not counting_bools:  # an integer element is never evaluated
        if where is None:
            return lambda e: len(c(e))
        w = closure(where)
        return lambda e: sum([1 for e[slot] in c(e) if w(e)])
    if where is None:
        return _loop(name, c, slot, x)
    return _filtered_loop(name, c, slot, x, closure(where))


def _direct_aggregate(name: str, c: Fn, elem: Code | None) -> Fn:
    if elem is not None:
        get = itemgetter(elem.value)
        if name == "sum":
            return lambda e: sum(map(get, c(e)))
        if name == "min":
            return lambda e: min(map(get, c(e)), default=0)
        if name == "max":
            return lambda e: max(map(get, c(e)), default=0)
        if name == "count":
            if elem.type == BOOL:
                return lambda e: sum(map(bool, map(get, c(e))))
            return lambda e: len(c(e))
        func = any if name == "any" else all
        return lambda e: func(map(get, c(e)))
    if name == "min":
        return lambda e: min(c(e), default=0)
    if name == "max":
        return lambda e: max(c(e), default=0)
    if name == "count":
        return lambda e: len(c(e))
    return lambda e: sum(c(e))  # no collection holds booleans: any/all take a `for`


def _loop(name: str, c: Fn, slot: int, x: Fn) -> Fn:
    if name == "sum":
        return lambda e: sum([x(e) for e[slot] in c(e)])
    if name == "min":
        return lambda e: min([x(e) for e[slot] in c(e)], default=0)
    if name == "max":
        return lambda e: max([x(e) for e[slot] in c(e)], default=0)
    if name == "count":
        return lambda e: sum([1 for e[slot] in c(e) if x(e)])
    if name == "any":
        return lambda e: any(x(e) for e[slot] in c(e))
    return lambda e: all(x(e) for e[slot] in c(e))


def _filtered_loop(name: str, c: Fn, slot: int, x: Fn, w: Fn) -> Fn:
    if name == "sum":
        return lambda e: sum([x(e) for e[slot] in c(e) if w(e)])
    if name == "min":
        return lambda e: min([x(e) for e[slot] in c(e) if w(e)], default=0)
    if name == "max":
        return lambda e: max([x(e) for e[slot] in c(e) if w(e)], default=0)
    if name == "count":
        return lambda e: sum([1 for e[slot] in c(e) if w(e) and x(e)])
    if name == "any":
        return lambda e: any(x(e) for e[slot] in c(e) if w(e))
    return lambda e: all(x(e) for e[slot] in c(e) if w(e))


_LOWER: dict[str, Callable[[Code], Fn]] = {
    "const": _const, "slot": _slot, "+": _add, "-": _sub, "*": _mul, "//": _divide,
    "%": _divide, "chain": _chain, "neg": _neg, "cmp": _cmp, "cmps": _cmps, "not": _not,
    "and": _logic, "or": _logic, "if": _if, "let": _let, "index": _index, "field": _field,
    "call": _call, "agg": _agg,
}


# -- a formula's whole value ----------------------------------------------------------------

def result(code: Code, check: Check) -> Fn:
    """A closure of ``code`` whose value passed ``check`` (the formula's result check).

    No check when the bounds of ``code`` prove it within ±MAX_INT; a sum of a
    checked product and a constant or pick checks once (:func:`checked_once`).
    """
    if code.constant:
        value = code.value
        return lambda e: check(value)
    if within(code.bounds):
        return closure(code)
    merged = checked_once(code, check)
    if merged is not None:
        return merged
    if code.op == "slot":
        i, off = code.value, code.off
        return lambda e: r if NSMALL <= (r := e[i] + off) <= SMALL else check(r)
    f = closure(code)
    return lambda e: r if NSMALL <= (r := f(e)) <= SMALL else check(r)


def checked_once(code: Code, check: Check) -> Fn | None:
    """A sum of a checked product and a term that cannot fail, checked once; else None.

    See :func:`sum_parts`.
    """
    parts = sum_parts(code, check)
    if parts is None:
        return None
    i, p, j, q, eq, t, k, x, y, low, high, slow = parts
    if eq:
        return lambda e: (r if low <= (r := (s := (e[i] + p) * (e[j] + q))
                                       + (x if e[t] == k else y)) <= high else slow(s, r))
    return lambda e: (r if low <= (r := (s := (e[i] + p) * (e[j] + q))
                                   + (x if e[t] >= k else y)) <= high else slow(s, r))


SumParts = tuple[int, int, int, int, bool, int, Any, int, int, int, int, Callable[[int, int], int]]


def sum_parts(code: Code, check: Check) -> SumParts | None:
    """``(i, p, j, q, eq, t, k, x, y, low, high, slow)`` when ``code`` is a checked product
    plus a term that cannot fail: ``(e[i] + p) * (e[j] + q) + (x if e[t] op k else y)``
    (op ``==`` if ``eq``, else ``>=``; a constant term is ``x if e[i] >= 0 else x``).

    The sum ``r`` needs one check: with the term within ``[tl, th]`` and M =
    MAX_INT, a total within ``[-M + th, M + tl]`` and within ±M passes both the
    product's check and the result's, since the product ``r - t`` is within
    ``[-M + th - th, M + tl - tl]``. ``[low, high]`` is that range narrowed to
    ±SMALL; any other total goes to ``slow(product, total)``, which checks the
    long way (the product first, then the result), as two separate checks would.
    """
    if code.op != "+":
        return None
    a, b = code.args
    if as_product(b) is not None:
        a, b = b, a
    prod, pick = as_product(a), as_pick(b)
    if prod is None or not a.value or not (b.constant or pick is not None):
        return None
    i, p, j, q = prod
    if pick is None:
        op, t, k, x, y = ">=", i, 0, b.value, b.value
    else:
        op, t, k, x, y = pick
    product_check = _product_check(a.at)

    def slow(product: int, total: int) -> int:
        product_check(product)
        return check(total)
    low, high = max(NSMALL, LO + max(x, y)), min(SMALL, HI + min(x, y))
    return i, p, j, q, op == "==", t, k, x, y, low, high, slow
