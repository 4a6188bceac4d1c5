"""Closure factories: the compiled form of each construct of the scoring language.

A compiled expression is a :class:`Code`: a constant (``K``), a read of frame
slot ``i`` plus an integer offset (``S``, ``e[i] + off``), or a closure
``f(e)`` over the frame list ``e`` (``F``). Factories fold constants and pick a
closure specialised for the operands' kinds, so that a formula such as
``(points - cost) * (1 + wagers)`` runs as one closure reading two slots,
not as five nested calls.
"""
from __future__ import annotations

import operator
from operator import itemgetter
from typing import Any, Callable, Sequence

from .source import Source
from .types import BOOL, DIVISION, INDEX, INT, LIMIT, MAX_INT, Type

K, S, F = 0, 1, 2

Frame = list
Fn = Callable[[Frame], Any]


class Code:
    """One compiled sub-expression with its type and text span (for errors)."""

    __slots__ = ("type", "kind", "value", "off", "start", "end", "test", "field_of", "pick")

    def __init__(self, type: Type, kind: int, value: Any, start: int = 0, end: int = 0,
                 off: int = 0, test: tuple | None = None,
                 field_of: tuple[int, int] | None = None, pick: tuple | None = None):
        self.type = type
        self.kind = kind
        self.value = value
        self.start = start
        self.end = end
        self.off = off
        #: (op, slot, k, negated) when this boolean is ``e[slot] op k`` (op: == or >=)
        self.test = test
        #: (slot, index) when this reads field ``index`` of the record in ``slot``
        self.field_of = field_of
        #: (op, slot, k, x, y) when this is ``x if e[slot] op k else y`` with constants x, y
        self.pick = pick

    def spanning(self, start: int, end: int) -> "Code":
        """The same code, reported at ``start:end``."""
        self.start, self.end = start, end
        return self


class At:
    """A text span of a formula, to raise run-time errors at."""

    __slots__ = ("source", "start", "end")

    def __init__(self, source: Source, code: Code):
        self.source, self.start, self.end = source, code.start, code.end

    def error(self, code: str, message: str, hint: str = "") -> Exception:
        """The ScoringError ``code`` at this span (positioned in the YAML file)."""
        return self.source.error(code, message, self.start, self.end, hint)

    @property
    def text(self) -> str:
        return self.source.snippet(self.start, self.end)


def fn(code: Code) -> Fn:
    """A closure ``f(e)`` computing ``code``."""
    if code.kind == F:
        return code.value
    if code.kind == K:
        value = code.value
        return lambda e: value
    i, off = code.value, code.off
    if off:
        return lambda e: e[i] + off
    return itemgetter(i)


def _f(type: Type, closure: Fn, *spans: Code, **extra: Any) -> Code:
    return Code(type, F, closure, spans[0].start, spans[-1].end, **extra)


# -- arithmetic ---------------------------------------------------------------------------

_FOLD = {"+": operator.add, "-": operator.sub, "*": operator.mul,
         "//": operator.floordiv, "%": operator.mod}


def arith(op: str, a: Code, b: Code, source: Source) -> Code:
    """``a op b`` on integers, folded and specialised by operand kinds."""
    start, end = a.start, b.end
    if op in ("//", "%"):
        return _divide(op, a, b, source)
    if a.kind == K and b.kind == K:
        value = _FOLD[op](a.value, b.value)
        if op == "*" and not -MAX_INT <= value <= MAX_INT:
            raise _too_large(At(source, Code(INT, K, value, start, end)), value)
        return Code(INT, K, value, start, end)
    if op == "+":
        if a.kind == K or (a.kind == F and b.kind == S):
            a, b = b, a
        if a.kind == S and b.kind == K:
            return Code(INT, S, a.value, start, end, off=a.off + b.value)
        closure = _add(a, b)
    elif op == "-":
        if a.kind == S and b.kind == K:
            return Code(INT, S, a.value, start, end, off=a.off - b.value)
        closure = _sub(a, b)
    else:
        if a.kind == K or (a.kind == F and b.kind == S):
            a, b = b, a
        if b.kind == K and b.value == 1:
            return a.spanning(start, end)
        closure = _mul(a, b, At(source, Code(INT, F, None, start, end)))
    return Code(INT, F, closure, start, end)


def _add(a: Code, b: Code) -> Fn:
    """a + b with a of kind S or F and b not a constant when a is S."""
    if a.kind == F and b.kind == F and (a.pick or b.pick) and not (a.pick and b.pick):
        if a.pick:
            a, b = b, a
        f = a.value
        op, i, k, x, y = b.pick
        if op == "==":
            return lambda e: f(e) + (x if e[i] == k else y)
        return lambda e: f(e) + (x if e[i] >= k else y)
    if a.kind == S:
        i, k = a.value, a.off
        if b.kind == S:
            j = b.value
            k += b.off
            return lambda e: e[i] + e[j] + k
        g = b.value
        return lambda e: e[i] + g(e) + k
    f = a.value
    if b.kind == K:
        k = b.value
        return lambda e: f(e) + k
    g = b.value
    return lambda e: f(e) + g(e)


def _sub(a: Code, b: Code) -> Fn:
    if a.kind == S and b.kind == S:
        i, j, k = a.value, b.value, a.off - b.off
        return lambda e: e[i] - e[j] + k
    if a.kind == K and b.kind == S:
        j, k = b.value, a.value - b.off
        return lambda e: k - e[j]
    if b.kind == K:
        f, k = a.value, b.value
        return lambda e: f(e) - k
    if a.kind == K:
        k, g = a.value, b.value
        return lambda e: k - g(e)
    f, g = fn(a), fn(b)
    return lambda e: f(e) - g(e)


def _mul(a: Code, b: Code, at: "At") -> Fn:
    """a * b with a of kind S or F (commuted so), b any kind but not both constant.

    Every product is bounded (LC104), so no chain of products can grow without end.
    """
    lim, low = MAX_INT, -MAX_INT

    def over(r: int) -> int:
        raise _too_large(at, r)
    if a.kind == S:
        i, p = a.value, a.off
        if b.kind == S:
            j, q = b.value, b.off
            return lambda e: r if low <= (r := (e[i] + p) * (e[j] + q)) <= lim else over(r)
        if b.kind == K:
            k = b.value
            return lambda e: r if low <= (r := (e[i] + p) * k) <= lim else over(r)
        g = b.value
        return lambda e: r if low <= (r := (e[i] + p) * g(e)) <= lim else over(r)
    f = a.value
    if b.kind == K:
        k = b.value
        return lambda e: r if low <= (r := f(e) * k) <= lim else over(r)
    g = fn(b)
    return lambda e: r if low <= (r := f(e) * g(e)) <= lim else over(r)


def _too_large(at: "At", value: int) -> Exception:
    return at.error(LIMIT, f"product {value} is beyond the limit of ±{MAX_INT}",
                    hint="integers in formulas stay within ±10^12")


def _divide(op: str, a: Code, b: Code, source: Source) -> Code:
    word = "division" if op == "//" else "modulo"
    at = At(source, b)
    if b.kind == K and b.value == 0:
        raise at.error(DIVISION, f"{word} by zero", hint="the divisor is always 0")
    func = _FOLD[op]
    if a.kind == K and b.kind == K:
        return Code(INT, K, func(a.value, b.value), a.start, b.end)
    f = fn(a)
    if b.kind == K:
        k = b.value
        closure = (lambda e: f(e) // k) if op == "//" else (lambda e: f(e) % k)
        return Code(INT, F, closure, a.start, b.end)
    g = fn(b)

    def divide(e: Frame) -> int:
        x = f(e)
        d = g(e)
        if d:
            return func(x, d)
        raise at.error(DIVISION, f"{word} by zero (`{at.text}` is 0)",
                       hint=f"guard it, e.g. `if {at.text} == 0 then 0 else ...`")
    return Code(INT, F, divide, a.start, b.end)


def chain(ops: Sequence[str], codes: Sequence[Code], source: Source) -> Code:
    """A long ``a + b - c ...`` chain as one loop, so closures never nest deeply."""
    first = fn(codes[0])
    steps = tuple((_FOLD[op], fn(c), At(source, c) if op in ("//", "%") else None,
                   "division" if op == "//" else "modulo")
                  for op, c in zip(ops, codes[1:]))

    whole = At(source, Code(INT, F, None, codes[0].start, codes[-1].end))
    lim, low = MAX_INT, -MAX_INT

    def run(e: Frame) -> int:
        acc = first(e)
        for func, g, at, word in steps:
            x = g(e)
            if at is not None and not x:
                raise at.error(DIVISION, f"{word} by zero (`{at.text}` is 0)")
            acc = func(acc, x)
            if not low <= acc <= lim and func is operator.mul:
                raise _too_large(whole, acc)
        return acc
    return Code(INT, F, run, codes[0].start, codes[-1].end)


def negative(a: Code) -> Code:
    """Unary ``-a``."""
    if a.kind == K:
        return Code(INT, K, -a.value, a.start, a.end)
    f = fn(a)
    return Code(INT, F, lambda e: -f(e), a.start, a.end)


# -- comparisons, logic, conditionals ------------------------------------------------------

_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}
_FLIP = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
#: op -> (fused op, constant adjustment, negated): e[i] op k  ==  (e[i] fop k + adj) ^ neg
_NORMAL = {"==": ("==", 0, False), "!=": ("==", 0, True), ">=": (">=", 0, False),
           ">": (">=", 1, False), "<": (">=", 0, True), "<=": (">=", 1, True)}
_TESTS = {
    ("==", False): lambda i, k: lambda e: e[i] == k,
    ("==", True): lambda i, k: lambda e: e[i] != k,
    (">=", False): lambda i, k: lambda e: e[i] >= k,
    (">=", True): lambda i, k: lambda e: e[i] < k,
}


def compare(op: str, a: Code, b: Code) -> Code:
    """``a op b``; a slot against a constant becomes a fused test for ``if``."""
    start, end = a.start, b.end
    func = _COMPARE[op]
    if a.kind == K and b.kind == K:
        return Code(BOOL, K, func(a.value, b.value), start, end)
    if a.kind == K:
        a, b, op = b, a, _FLIP[op]
    if a.kind == S and b.kind == K:
        fop, adj, neg = _NORMAL[op]
        k = b.value - a.off + adj if a.type == INT else b.value
        test = (fop, a.value, k, neg)
        return Code(BOOL, F, _TESTS[fop, neg](a.value, k), start, end, test=test)
    f = fn(a)
    if b.kind == K:
        k = b.value
        return Code(BOOL, F, lambda e: func(f(e), k), start, end)
    g = fn(b)
    return Code(BOOL, F, lambda e: func(f(e), g(e)), start, end)


def compare_chain(ops: Sequence[str], codes: Sequence[Code]) -> Code:
    """``a < b <= c``: each neighbouring pair holds; every operand evaluated once at most."""
    fns = [fn(c) for c in codes]
    pairs = tuple(zip((_COMPARE[op] for op in ops), fns[1:]))
    first = fns[0]

    def run(e: Frame) -> bool:
        left = first(e)
        for func, g in pairs:
            right = g(e)
            if not func(left, right):
                return False
            left = right
        return True
    return Code(BOOL, F, run, codes[0].start, codes[-1].end)


def negate(a: Code) -> Code:
    """``not a``; a fused test stays fused, with its sense reversed."""
    if a.kind == K:
        return Code(BOOL, K, not a.value, a.start, a.end)
    if a.test is not None:
        op, i, k, neg = a.test
        return Code(BOOL, F, _TESTS[op, not neg](i, k), a.start, a.end, test=(op, i, k, not neg))
    f = fn(a)
    return Code(BOOL, F, lambda e: not f(e), a.start, a.end)


def logic(op: str, codes: Sequence[Code]) -> Code:
    """``a and b and ...`` / ``a or b or ...`` with short-circuit and constant folding."""
    start, end = codes[0].start, codes[-1].end
    stop = op == "or"  # the value that decides the whole chain
    rest = []
    for c in codes:
        if c.kind == K:
            if c.value == stop:
                return Code(BOOL, K, stop, start, end)
            continue
        rest.append(fn(c))
    if not rest:
        return Code(BOOL, K, not stop, start, end)
    if len(rest) == 1:
        only = rest[0]
        return Code(BOOL, F, lambda e: bool(only(e)), start, end)
    fns = tuple(rest)
    if len(fns) == 2:
        f, g = fns
        closure = (lambda e: f(e) or g(e)) if stop else (lambda e: f(e) and g(e))
    elif stop:
        closure = lambda e: any(f(e) for f in fns)  # noqa: E731
    else:
        closure = lambda e: all(f(e) for f in fns)  # noqa: E731
    return Code(BOOL, F, closure, start, end)


def cond(test: Code, a: Code, b: Code) -> Code:
    """``if test then a else b``; a fused slot test is evaluated inline."""
    start, end = test.start, b.end
    if test.kind == K:
        return (a if test.value else b).spanning(start, end)
    if test.kind == S:  # a boolean field or let name: e[i] == True
        test = Code(BOOL, F, fn(test), test.start, test.end, test=("==", test.value, True, False))
    if test.test is not None:
        op, i, k, neg = test.test
        if neg:
            a, b = b, a
        check = _eq_branches if op == "==" else _ge_branches
        pick = (op, i, k, a.value, b.value) if a.kind == K and b.kind == K else None
        return Code(a.type, F, check(i, k, a, b), start, end, pick=pick)
    t = test.value
    if a.kind == K and b.kind == K:
        x, y = a.value, b.value
        return Code(a.type, F, lambda e: x if t(e) else y, start, end)
    f, g = fn(a), fn(b)
    return Code(a.type, F, lambda e: f(e) if t(e) else g(e), start, end)


def _eq_branches(i: int, k: Any, a: Code, b: Code) -> Fn:
    if a.kind == K and b.kind == K:
        x, y = a.value, b.value
        return lambda e: x if e[i] == k else y
    if a.kind == K:
        x, g = a.value, fn(b)
        return lambda e: x if e[i] == k else g(e)
    f, g = fn(a), fn(b)
    return lambda e: f(e) if e[i] == k else g(e)


def _ge_branches(i: int, k: Any, a: Code, b: Code) -> Fn:
    if a.kind == K and b.kind == K:
        x, y = a.value, b.value
        return lambda e: x if e[i] >= k else y
    if b.kind == K:
        f, y = fn(a), b.value
        return lambda e: f(e) if e[i] >= k else y
    f, g = fn(a), fn(b)
    return lambda e: f(e) if e[i] >= k else g(e)


def bind(slot: int, value: Code, body: Code) -> Code:
    """``let``: store ``value`` in ``slot``, then evaluate ``body``."""
    if body.kind == K:
        return body
    v, b = fn(value), fn(body)

    def run(e: Frame) -> Any:
        e[slot] = v(e)
        return b(e)
    return Code(body.type, F, run, value.start, body.end)


# -- collections, records, functions -----------------------------------------------------

def index(coll: Code, idx: Code, source: Source) -> Code:
    """``coll[idx]`` with the index checked: 0 <= idx < len(coll), else LC106."""
    at = At(source, idx)
    label = source.snippet(coll.start, coll.end)
    elem = coll.type.elem
    if coll.kind == K:
        size = len(coll.value)
        hint = f"clamp it, e.g. `{label}[min({at.text}, {size - 1})]`" if size else ""
    else:
        hint = f"check its size first with `count({label})`"
    if coll.kind == K and idx.kind == K:
        if 0 <= idx.value < len(coll.value):
            return Code(elem, K, coll.value[idx.value], coll.start, idx.end)
        raise _index_error(at, label, idx.value, len(coll.value), hint)
    c, f = fn(coll), fn(idx)

    def run(e: Frame) -> Any:
        items = c(e)
        i = f(e)
        if 0 <= i < len(items):
            return items[i]
        raise _index_error(at, label, i, len(items), hint)
    return Code(elem, F, run, coll.start, idx.end)


def _index_error(at: At, label: str, i: int, size: int, hint: str) -> Exception:
    span = f"0..{size - 1}" if size else "none: it is empty"
    return at.error(INDEX, f"index {i} is out of range for `{label}` (valid: {span})", hint=hint)


def field(record: Code, position: int, type: Type, start: int, end: int) -> Code:
    """``record.name``: element ``position`` of the record tuple."""
    if record.kind == S:
        slot = record.value
        return Code(type, F, lambda e: e[slot][position], start, end,
                    field_of=(slot, position))
    r = fn(record)
    return Code(type, F, lambda e: r(e)[position], start, end)


def call(name: str, args: Sequence[Code], start: int, end: int) -> Code:
    """``min(a, b, ...)``, ``max(...)``, ``abs(a)`` on integers."""
    func = {"min": min, "max": max, "abs": abs}[name]
    if all(a.kind == K for a in args):
        return Code(INT, K, func(*(a.value for a in args)), start, end)
    if name == "abs":
        f = fn(args[0])
        return Code(INT, F, lambda e: abs(f(e)), start, end)
    consts = [a.value for a in args if a.kind == K]
    others = [fn(a) for a in args if a.kind != K]
    if len(others) == 1 and len(consts) <= 1:
        f = others[0]
        if consts:
            k = consts[0]
            return Code(INT, F, lambda e: func(f(e), k), start, end)
    if consts:
        k = func(consts)
        others.append(lambda e: k)
    fns = tuple(others)
    return Code(INT, F, lambda e: func([g(e) for g in fns]), start, end)


def aggregate(name: str, coll: Code, slot: int, elem: Code | None, where: Code | None,
              start: int, end: int) -> Code:
    """``name(elem for x in coll where ...)`` (``elem`` None: the elements themselves).

    sum/count of nothing is 0, min/max of nothing is 0, any of nothing is false,
    all of nothing is true. ``count`` counts the elements kept by ``where`` and,
    when the element expression is a boolean, those for which it is true.
    """
    result = BOOL if name in ("any", "all") else INT
    c = fn(coll)
    direct = elem is None or (elem.kind == S and elem.value == slot and not elem.off)
    if where is None and (direct or (elem is not None and elem.field_of is not None
                                     and elem.field_of[0] == slot)):
        return Code(result, F, _direct_aggregate(name, c, None if direct else elem), start, end)
    x = fn(elem) if elem is not None else itemgetter(slot)
    w = fn(where) if where is not None else None
    counting_bools = name == "count" and elem is not None and elem.type == BOOL
    if name == "count" and not counting_bools:
        if w is None:
            return Code(INT, F, lambda e: len(c(e)), start, end)
        closure = lambda e: sum([1 for e[slot] in c(e) if w(e)])  # noqa: E731
    elif w is None:
        closure = _loop(name, c, slot, x)
    else:
        closure = _filtered_loop(name, c, slot, x, w)
    return Code(result, F, closure, start, end)


def _direct_aggregate(name: str, c: Fn, elem: Code | None) -> Fn:
    if elem is not None:
        get = itemgetter(elem.field_of[1])
        if name == "sum":
            return lambda e: sum(map(get, c(e)))
        if name == "min":
            return lambda e: min(map(get, c(e)), default=0)
        if name == "max":
            return lambda e: max(map(get, c(e)), default=0)
        if name == "count":
            return lambda e: sum(map(bool, map(get, c(e)))) if elem.type == BOOL else len(c(e))
        func = any if name == "any" else all
        return lambda e: func(map(get, c(e)))
    if name == "min":
        return lambda e: min(c(e), default=0)
    if name == "max":
        return lambda e: max(c(e), default=0)
    if name == "count":
        return lambda e: len(c(e))
    func = {"sum": sum, "any": any, "all": all}[name]
    return lambda e: func(c(e))


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
