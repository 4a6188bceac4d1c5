"""The compiled form of a formula: a small typed tree, folded and bounded.

The compiler builds one :class:`Code` per construct with the builders below.
They fold what is known when the pack loads (constants, ``points - 20`` read as
one slot with an offset, a test against a constant branch), refuse what can
never run (a constant division by zero, a constant index out of range, a
constant product beyond the limit) and give integer nodes the bounds of their
value when they are known (``bounds``), so that only products that could leave
±MAX_INT are checked when the formula runs.

The tree is run by :mod:`.closures` (closures specialised by operand kinds)
and evaluated node by node by :mod:`.reference` (the plain evaluation that
tests hold the closures to). Both raise run-time errors through the ``At``
spans recorded here, with the messages of the helpers at the end.
"""
from __future__ import annotations

import operator
from typing import Any, Sequence

from .source import Source
from .types import BOOL, DIVISION, INDEX, INT, LIMIT, MAX_INT, Coll, Type

Bounds = tuple[int, int] | None
"""``(lo, hi)``: the value is always within, or None when unknown."""

FOLD = {"+": operator.add, "-": operator.sub, "*": operator.mul,
        "//": operator.floordiv, "%": operator.mod}
COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
           ">": operator.gt, ">=": operator.ge}
_FLIP = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
WITHIN: tuple[int, int] = (-MAX_INT, MAX_INT)


class At:
    """A text span of a formula, to raise run-time errors at."""

    __slots__ = ("source", "start", "end")

    def __init__(self, source: Source, start: int, end: int):
        self.source, self.start, self.end = source, start, end

    def error(self, code: str, message: str, hint: str = "") -> Exception:
        """The ScoringError ``code`` at this span (positioned in the YAML file)."""
        return self.source.error(code, message, self.start, self.end, hint)

    @property
    def text(self) -> str:
        return self.source.snippet(self.start, self.end)


class Code:
    """One node of a compiled formula.

    ``op`` says what it computes from ``args`` (child nodes) and ``value``:

    ============  ==============================  =========================
    op            value                           args
    ============  ==============================  =========================
    const         the constant                    ()
    slot          frame slot i (read e[i] + off)  ()
    + - * // %    for ``*``: whether it is        (a, b)
                  checked against ±MAX_INT
    chain         the operators, in order         the operands (a long chain)
    neg, not      None                            (a,)
    cmp           the comparison operator         (a, b)
    cmps          the operators of a chain        the operands
    and, or       None                            the operands
    if            None                            (test, then, else)
    let           the slot of the name            (value, body)
    index         (label, hint) for errors        (collection, index)
    field         the record field's position     (record,)
    call          min, max or abs                 the arguments
    agg           (name, slot of the variable)    (collection, element|None, where|None)
    ============  ==============================  =========================

    ``bounds`` are the value's bounds for an integer, the elements' for a
    collection of integers, None when unknown. ``at`` is where a run-time
    error of this node is reported.
    """

    __slots__ = ("op", "type", "args", "value", "off", "start", "end", "bounds", "at")

    def __init__(self, op: str, type: Type, args: tuple["Code", ...] = (), value: Any = None,
                 start: int = 0, end: int = 0, bounds: Bounds = None, off: int = 0,
                 at: Any = None):
        self.op = op
        self.type = type
        self.args = args
        self.value = value
        self.off = off
        self.start = start
        self.end = end
        self.bounds = bounds
        self.at = at

    def spanning(self, start: int, end: int) -> "Code":
        """The same node, reported at ``start:end``."""
        self.start, self.end = start, end
        return self

    def copy(self) -> "Code":
        return Code(self.op, self.type, self.args, self.value, self.start, self.end,
                    self.bounds, self.off, self.at)

    @property
    def constant(self) -> bool:
        return self.op == "const"

    def __repr__(self) -> str:
        inner = ", ".join(map(repr, self.args))
        return f"{self.op}[{self.value!r}{'+' + str(self.off) if self.off else ''}]({inner})"


def const(type: Type, value: Any, start: int = 0, end: int = 0) -> Code:
    """A constant: an integer, a boolean or a table (a tuple of integers)."""
    if type == INT:
        bounds: Bounds = (value, value)
    elif isinstance(type, Coll) and type.elem == INT and value:
        bounds = (min(value), max(value))
    else:
        bounds = None
    return Code("const", type, (), value, start, end, bounds)


def slot(type: Type, index: int, bounds: Bounds = None) -> Code:
    """A read of frame slot ``index``: a field of the scope, a let or aggregate name."""
    return Code("slot", type, (), index, bounds=bounds)


def within(bounds: Bounds, limits: tuple[int, int] = WITHIN) -> bool:
    """Whether values within ``bounds`` are surely within ``limits``."""
    return bounds is not None and limits[0] <= bounds[0] and bounds[1] <= limits[1]


def _union(a: Bounds, b: Bounds) -> Bounds:
    if a is None or b is None:
        return None
    return min(a[0], b[0]), max(a[1], b[1])


def _shift(bounds: Bounds, k: int) -> Bounds:
    return None if bounds is None else (bounds[0] + k, bounds[1] + k)


# -- arithmetic ---------------------------------------------------------------------------

def arith(op: str, a: Code, b: Code, source: Source) -> Code:
    """``a op b`` on integers, folded; constants end up on the right of ``+`` and ``*``."""
    start, end = a.start, b.end
    if op in ("//", "%"):
        return _divide(op, a, b, source)
    if a.constant and b.constant:
        value = FOLD[op](a.value, b.value)
        if op == "*" and not -MAX_INT <= value <= MAX_INT:
            raise too_large(At(source, start, end), value)
        return const(INT, value, start, end)
    if op == "-" and b.constant:
        op, b = "+", const(INT, -b.value, b.start, b.end)
    if op == "+":
        if a.constant:
            a, b = b, a
        if b.constant:
            if a.op == "slot":  # points - cost: one read, e[i] - 20
                return Code("slot", INT, (), a.value, start, end, _shift(a.bounds, b.value),
                            a.off + b.value)
            if b.value == 0:
                return a.copy().spanning(start, end)
            if a.op == "+" and a.args[1].constant:  # (f + 1) + 2 == f + 3
                k = a.args[1].value + b.value
                a, b = a.args[0], const(INT, k, b.start, b.end)
        bounds = None if a.bounds is None or b.bounds is None else \
            (a.bounds[0] + b.bounds[0], a.bounds[1] + b.bounds[1])
        return Code("+", INT, (a, b), None, start, end, bounds)
    if op == "-":
        bounds = None if a.bounds is None or b.bounds is None else \
            (a.bounds[0] - b.bounds[1], a.bounds[1] - b.bounds[0])
        return Code("-", INT, (a, b), None, start, end, bounds)
    if a.constant or (a.op != "slot" and b.op == "slot"):
        a, b = b, a
    if b.constant and b.value == 1:
        return a.copy().spanning(start, end)
    raw = _product_bounds(a.bounds, b.bounds)
    checked = not within(raw)
    bounds = raw
    if checked:  # a checked product is within the limit once it has passed its check
        bounds = WITHIN if raw is None or raw[0] > MAX_INT or raw[1] < -MAX_INT else \
            (max(raw[0], -MAX_INT), min(raw[1], MAX_INT))
    return Code("*", INT, (a, b), checked, start, end, bounds, at=At(source, start, end))


def _product_bounds(a: Bounds, b: Bounds) -> Bounds:
    if a is None or b is None:
        return None
    products = [x * y for x in a for y in b]
    return min(products), max(products)


def _divide(op: str, a: Code, b: Code, source: Source) -> Code:
    word = "division" if op == "//" else "modulo"
    at = At(source, b.start, b.end)
    if b.constant and b.value == 0:
        raise at.error(DIVISION, f"{word} by zero", hint="the divisor is always 0")
    if a.constant and b.constant:
        return const(INT, FOLD[op](a.value, b.value), a.start, b.end)
    bounds: Bounds = None
    if b.constant:
        k = b.value
        if op == "%":
            bounds = (0, k - 1) if k > 0 else (k + 1, 0)
        elif a.bounds is not None:
            ends = (a.bounds[0] // k, a.bounds[1] // k)
            bounds = (min(ends), max(ends))
    elif op == "//" and a.bounds is not None:  # |a // d| <= |a| when d != 0
        m = max(abs(a.bounds[0]), abs(a.bounds[1]))
        bounds = (-m, m)
    elif op == "%" and b.bounds is not None:  # |a % d| < |d|
        m = max(abs(b.bounds[0]), abs(b.bounds[1]))
        bounds = (-m, m)
    return Code(op, INT, (a, b), None, a.start, b.end, bounds, at=at)


def chain(ops: Sequence[str], codes: Sequence[Code], source: Source) -> Code:
    """A long ``a + b - c ...`` chain, run as one loop so that closures never nest deeply.

    ``at`` is ``(the whole chain, the span of each operand)``: a product beyond the
    limit is reported on the chain, a division by zero on its divisor.
    """
    whole = At(source, codes[0].start, codes[-1].end)
    spans = tuple(At(source, c.start, c.end) for c in codes)
    return Code("chain", INT, tuple(codes), tuple(ops), codes[0].start, codes[-1].end,
                at=(whole, spans))


def negative(a: Code) -> Code:
    """Unary ``-a``."""
    if a.constant:
        return const(INT, -a.value, a.start, a.end)
    if a.op == "neg":
        return a.args[0].copy().spanning(a.start, a.end)
    bounds = None if a.bounds is None else (-a.bounds[1], -a.bounds[0])
    return Code("neg", INT, (a,), None, a.start, a.end, bounds)


# -- comparisons, logic, conditionals ------------------------------------------------------

def compare(op: str, a: Code, b: Code) -> Code:
    """``a op b``; a constant operand ends up on the right."""
    start, end = a.start, b.end
    if a.constant and b.constant:
        return const(BOOL, COMPARE[op](a.value, b.value), start, end)
    if a.constant:
        a, b, op = b, a, _FLIP[op]
    return Code("cmp", BOOL, (a, b), op, start, end)


def compare_chain(ops: Sequence[str], codes: Sequence[Code]) -> Code:
    """``a < b <= c``: each neighbouring pair holds; every operand evaluated once at most."""
    return Code("cmps", BOOL, tuple(codes), tuple(ops), codes[0].start, codes[-1].end)


def negate(a: Code) -> Code:
    """``not a``."""
    if a.constant:
        return const(BOOL, not a.value, a.start, a.end)
    if a.op == "not":
        return a.args[0].copy().spanning(a.start, a.end)
    return Code("not", BOOL, (a,), None, a.start, a.end)


def logic(op: str, codes: Sequence[Code]) -> Code:
    """``a and b and ...`` / ``a or b or ...`` with short-circuit and constant folding."""
    start, end = codes[0].start, codes[-1].end
    stop = op == "or"  # the value that decides the whole chain
    rest = []
    for c in codes:
        if c.constant:
            if c.value == stop:
                return const(BOOL, stop, start, end)
            continue
        rest.append(c)
    if not rest:
        return const(BOOL, not stop, start, end)
    if len(rest) == 1:
        return rest[0].copy().spanning(start, end)
    return Code(op, BOOL, tuple(rest), None, start, end)


def cond(test: Code, a: Code, b: Code) -> Code:
    """``if test then a else b``; a constant test keeps only its branch."""
    start, end = test.start, b.end
    if test.constant:
        return (a if test.value else b).copy().spanning(start, end)
    if test.op == "not":
        test, a, b = test.args[0], b, a
    return Code("if", a.type, (test, a, b), None, start, end, _union(a.bounds, b.bounds))


def bind(slot_index: int, value: Code, body: Code) -> Code:
    """``let``: store ``value`` in ``slot_index``, then evaluate ``body``."""
    if body.constant:
        return body
    return Code("let", body.type, (value, body), slot_index, value.start, body.end, body.bounds)


# -- collections, records, functions -----------------------------------------------------

def index(coll: Code, idx: Code, source: Source) -> Code:
    """``coll[idx]`` with the index checked: 0 <= idx < len(coll), else LC106."""
    at = At(source, idx.start, idx.end)
    label = source.snippet(coll.start, coll.end)
    elem = coll.type.elem
    if coll.constant:
        size = len(coll.value)
        hint = f"clamp it, e.g. `{label}[min({at.text}, {size - 1})]`" if size else ""
    else:
        hint = f"check its size first with `count({label})`"
    if coll.constant and idx.constant:
        if 0 <= idx.value < len(coll.value):
            return const(elem, coll.value[idx.value], coll.start, idx.end)
        raise index_error(at, label, idx.value, len(coll.value), hint)
    bounds = coll.bounds if elem == INT else None
    return Code("index", elem, (coll, idx), (label, hint), coll.start, idx.end, bounds, at=at)


def field(record: Code, position: int, type: Type, start: int, end: int) -> Code:
    """``record.name``: element ``position`` of the record tuple."""
    return Code("field", type, (record,), position, start, end)


def call(name: str, args: Sequence[Code], start: int, end: int) -> Code:
    """``min(a, b, ...)``, ``max(...)``, ``abs(a)`` on integers."""
    func = {"min": min, "max": max, "abs": abs}[name]
    if all(a.constant for a in args):
        return const(INT, func(*(a.value for a in args)), start, end)
    known = [a.bounds for a in args]
    bounds: Bounds = None
    if all(b is not None for b in known):
        if name == "abs":
            lo, hi = known[0]  # type: ignore[misc]
            bounds = (0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))
        else:
            bounds = (func(b[0] for b in known), func(b[1] for b in known))  # type: ignore
    return Code("call", INT, tuple(args), name, start, end, bounds)


def aggregate(name: str, coll: Code, slot_index: int, elem: Code | None, where: Code | None,
              start: int, end: int) -> Code:
    """``name(elem for x in coll where ...)`` (``elem`` None: the elements themselves).

    sum/count of nothing is 0, min/max of nothing is 0, any of nothing is false,
    all of nothing is true. ``count`` counts the elements kept by ``where`` and,
    when the element expression is a boolean, those for which it is true; it
    never evaluates an integer element.
    """
    result = BOOL if name in ("any", "all") else INT
    bounds: Bounds = None
    if name in ("min", "max"):
        elems = coll.bounds if elem is None else elem.bounds
        bounds = _union(elems, (0, 0))
    return Code("agg", result, (coll, elem, where), (name, slot_index), start, end, bounds)


# -- run-time errors (shared by the closures and the reference evaluation) ---------------

def too_large(at: At, value: int) -> Exception:
    return at.error(LIMIT, f"product {value} is beyond the limit of ±{MAX_INT}",
                    hint="integers in formulas stay within ±10^12")


def division_by_zero(at: At, op: str) -> Exception:
    word = "division" if op == "//" else "modulo"
    return at.error(DIVISION, f"{word} by zero (`{at.text}` is 0)",
                    hint=f"guard it, e.g. `if {at.text} == 0 then 0 else ...`")


def index_error(at: At, label: str, i: int, size: int, hint: str) -> Exception:
    span = f"0..{size - 1}" if size else "none: it is empty"
    return at.error(INDEX, f"index {i} is out of range for `{label}` (valid: {span})", hint=hint)
