"""What a pack's formulas can produce in its games, and what they can cost, found at load.

A formula compiles once its text is right, but a pack's numbers can still make it
fail in every game: a constant so large that a product leaves ±MAX_INT (LC104), a
table shorter than the indexes the game reaches (LC106). :func:`check_scoring`
finds these when the pack loads, by *interval arithmetic* over the compiled tree
(:mod:`.ir`): every input of a scope has a range known from the pack (a
:class:`Domain`: card values, cards per colour, wagers, rounds, spaces, tiles), and
each node's range follows from its operands' (``+ - * // %``, ``min``/``max``/``abs``,
``if``, aggregates over at most so many items, table lookups). The analysis is
sound: a formula it accepts never fails with LC104 or LC106 on a table in a game of
the pack (an index into a row's ``values`` depends on the row and stays a run-time
check). A test of a field against a constant narrows the field in each branch, so
that ``if artefacts < 3 then scale[artefacts] else 0`` passes.

The same walk bounds the work of one call: each node counts one step, an
aggregate's body as many times as its collection can hold items. A formula whose
worst case exceeds :data:`MAX_COST` steps is refused (LC109): scoring cannot hang.
:func:`bound_cost` makes only that walk, for a formula compiled outside a pack
(``compile_formula``): over the domain given, else over :func:`widest_domain`, the
widest that the pack caps allow. The domain a formula was bounded for is kept on it
(``formula.domain``), and its public call refuses collections longer than that domain
holds (:meth:`Domain.oversize`) before running.

An error points at what holds the bad number: the constant or table in the YAML
file (a house pack's line, not the built-in formula that reads it), or the tile
whose value makes ``tokens`` too large; else at the formula.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple

from lostcities.rulepacks import MAX_DECK, pack_schema

from .ir import Code
from .source import Mark, Source
from .types import BOOL, COST, INDEX, INT, LIMIT, MAX_INT, SCOPES

if TYPE_CHECKING:
    from .compiler import Formula
    from .scoring import Scoring

#: most steps (nodes evaluated) one call of a formula may take in the worst case
MAX_COST = 200_000


class Iv(NamedTuple):
    """The integers ``lo..hi``."""

    lo: int
    hi: int


class Many(NamedTuple):
    """A collection of at most ``most`` elements, each within ``elem``."""

    elem: Any
    most: int


class Rec(NamedTuple):
    """A record whose fields are within ``fields`` (in slot order)."""

    fields: tuple


FLAG = "bool"  # a boolean: nothing to bound


@dataclass(frozen=True)
class Domain:
    """The ranges of the scopes' inputs in one pack's games.

    ``marks`` locate in the YAML file the pack keys an input's range comes from,
    by field name (``tokens`` at the tile whose value is the largest, ``round``
    at ``match.rounds``...): an error that no constant explains points there.
    """

    colours: int
    min_value: int
    max_value: int
    copies: int
    wagers: int
    rounds: int
    pawns: int = 0
    spaces: int = 0
    #: victory points one player can take from tiles in one round, lowest and highest
    tokens: tuple[int, int] = (0, 0)
    #: artefacts one player can take in one round
    artefacts: int = 0
    marks: Mapping[str, Mark] = field(default_factory=dict)
    #: the most cards one row can hold whatever the values and copies (the deck's cap); 0: none
    row_cards: int = 0
    #: what the domain is, for messages: "duel-classic's games", "the widest a pack allows"
    label: str = "this pack's games"

    @property
    def numbers(self) -> int:
        """The most number cards one row can hold: every copy of every value of a colour."""
        n = max(0, self.max_value - self.min_value + 1) * self.copies
        return min(n, self.row_cards) if self.row_cards else n

    def expedition(self) -> tuple:
        n = self.numbers
        high, left = 0, n  # the n highest cards of a colour
        for value in range(self.max_value, self.min_value - 1, -1):
            take = min(left, self.copies)
            high, left = high + take * value, left - take
            if not left:
                break
        return (Iv(0, max(0, self.colours - 1)), Many(Iv(self.min_value, self.max_value), n),
                Iv(0, self.wagers), Iv(0, n), Iv(0, n + self.wagers), Iv(0, max(0, high)))

    def pawn(self) -> tuple:
        return (Iv(-1, max(0, self.colours - 1)), Iv(0, self.spaces), FLAG, FLAG)  # -1: not engaged

    def round(self, expedition: Iv | None, pawn: Iv | None) -> tuple:
        rows = self.expedition() + ((expedition,) if expedition is not None else ())
        pawns = self.pawn() + ((pawn,) if pawn is not None else ())
        return (Many(Rec(rows), self.colours), Many(Rec(pawns), self.pawns),
                Iv(*self.tokens), Iv(0, self.artefacts), Iv(1, max(1, self.rounds)))

    def match(self, round_: Iv) -> tuple:
        r = max(1, self.rounds)
        lo, hi = self.tokens
        return (Many(round_, r), Iv(0, r * self.artefacts), Iv(r * lo, r * hi))

    def inputs(self, scope: str, scored: frozenset[str] = frozenset(SCOPES)) -> tuple:
        """The ranges of ``scope``'s fields, the other formulas' results any integer (records
        carry ``score`` for the scopes in ``scored``)."""
        if scope == "expedition":
            return self.expedition()
        if scope == "pawn":
            return self.pawn()
        if scope == "round":
            return self.round(_ANY if "expedition" in scored else None,
                              _ANY if "pawn" in scored else None)
        return self.match(_ANY)

    def oversize(self, scope: str, args: tuple) -> str:
        """What in ``args`` (a call's arguments, or a frame, of ``scope``) is longer than this
        domain holds, in one sentence; "" when nothing is.

        Only lengths are compared: they are what a formula's work grows with.
        """
        try:
            if scope == "expedition":
                return _longer("`values`", len(args[1]), self.numbers, "number cards", self)
            if scope == "round":
                rows, pawns = args[0], args[1]
                found = (_longer("`expeditions`", len(rows), self.colours, "rows", self)
                         or _longer("`pawns`", len(pawns), self.pawns, "pawns", self))
                for row in () if found else rows:
                    found = _longer("a row's `values`", len(row[1]), self.numbers,
                                    "number cards", self)
                    if found:
                        break
                return found
            if scope == "match":
                return _longer("`rounds`", len(args[0]), max(1, self.rounds), "rounds", self)
        except (TypeError, IndexError, KeyError):  # not collections: the formula says so
            return ""
        return ""


_ANY = Iv(-MAX_INT, MAX_INT)


def _longer(what: str, n: int, most: int, unit: str, domain: Domain) -> str:
    if n <= most:
        return ""
    return (f"{what} holds {n:,} {unit}, more than the {most:,} of {domain.label} that "
            "this formula's work was bounded for")


@functools.cache
def widest_domain() -> Domain:
    """The widest domain the pack caps allow: what a formula compiled outside a pack is
    bounded over.

    Derived from the caps themselves, the pack schema's maxima
    (rulepacks/pack.schema.json: colours, values, copies, wagers, rounds, pawns, spaces)
    and the loader's deck cap (``lostcities.rulepacks.MAX_DECK``, which caps a row): 12 colours,
    values 0..99, 9 copies and 9 wagers, rows of at most 300 cards, 99 rounds, 12 pawns,
    50 spaces. Tiles fit on the tile spaces (at most one per space of every track), so a
    round takes at most ``spaces × colours`` artefacts; a points tile's value has no cap
    but the formulas' (a pack's tokens are bounded when it loads), so ``tokens`` is any
    integer within ±MAX_INT.
    """
    top = pack_schema()["properties"]
    deck, board = top["deck"]["properties"], top["board"]["properties"]
    values = deck["values"]["properties"]
    colours = deck["colours"]["maxItems"]
    spaces = board["spaces"]["maximum"]
    return Domain(colours, values["min"]["minimum"], values["max"]["maximum"],
                  deck["copies"]["maximum"], deck["wagers"]["maximum"],
                  top["match"]["properties"]["rounds"]["maximum"],
                  pawns=board["pawns"]["maximum"], spaces=spaces, tokens=(-MAX_INT, MAX_INT),
                  artefacts=spaces * colours, row_cards=MAX_DECK,
                  label="the widest games a pack allows")


def bound_cost(formula: "Formula", domain: Domain | None = None,
               scored: frozenset[str] = frozenset(SCOPES)) -> Domain:
    """Refuse ``formula`` (LC109, at the formula) if one call can cost more than
    :data:`MAX_COST` steps over ``domain`` (else :func:`widest_domain`), and record on it
    the domain it is bounded for; return that domain.

    Only the work is bounded: what the formula produces is checked when it runs (LC104,
    LC106), since the caller's numbers are not a pack's. ``scored`` is as for
    ``compile_formula``.
    """
    domain = domain or widest_domain()
    if not formula.code.constant:
        _Walk(formula, domain.inputs(formula.scope, scored), domain, {}, {}, {},
              ranges=False).result()
    formula.domain = domain
    return domain


def check_scoring(scoring: "Scoring", domain: Domain, constants: Mapping[str, int],
                  tables: Mapping[str, tuple[int, ...]], marks: Mapping[str, Mark]) -> None:
    """Refuse a pack whose formulas can leave ±MAX_INT, index a table past its end, or
    cost more than :data:`MAX_COST` steps, in some game of ``domain``.

    ``constants``, ``tables`` and ``marks`` are the pack's (``ScoringSpec``): an error
    points at the constant or table responsible. Raises :class:`ScoringError`. Each
    formula then keeps ``domain`` as the domain it is bounded for.
    """
    formulas = scoring.formulas
    known: dict[str, Iv] = {}
    for scope in ("expedition", "pawn", "round", "match"):
        formula = formulas.get(scope)
        if formula is None:
            continue
        if scope == "expedition":
            fields = domain.expedition()
        elif scope == "pawn":
            fields = domain.pawn()
        elif scope == "round":
            fields = domain.round(known.get("expedition"), known.get("pawn"))
        else:
            round_ = known.get("round")
            if round_ is None:  # no round formula: a round is its rows' and pawns' sum
                row, pawn = known.get("expedition", Iv(0, 0)), known.get("pawn", Iv(0, 0))
                round_ = Iv(domain.colours * min(0, row.lo) + domain.pawns * min(0, pawn.lo),
                            domain.colours * max(0, row.hi) + domain.pawns * max(0, pawn.hi))
            fields = domain.match(round_)
        feeds = {"round": ("expedition", "pawn"), "match": ("expedition", "pawn", "round")}
        upstream = frozenset(word for other in feeds.get(scope, ()) if other in formulas
                             for word in _NAME.findall(formulas[other].text))
        known[scope] = _Walk(formula, fields, domain, constants, tables, marks,
                             upstream).result()
    for formula in scoring.breakdown_formulas.values():
        _Walk(formula, domain.expedition(), domain, constants, tables, marks).result()
    for formula in (*formulas.values(), *scoring.breakdown_formulas.values()):
        formula.domain = domain


def _show(n: int) -> str:
    """An integer for a message, without ever writing thousands of digits."""
    if abs(n) < 10**24:
        return f"{n:,}"
    return f"{'-' if n < 0 else ''}about 10^{int(abs(n).bit_length() * 0.30103)}"


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Walk:
    """One formula's interval evaluation over its scope's domain."""

    def __init__(self, formula: Any, fields: tuple, domain: Domain,
                 constants: Mapping[str, int], tables: Mapping[str, tuple[int, ...]],
                 marks: Mapping[str, Mark], upstream: frozenset[str] = frozenset(),
                 ranges: bool = True):
        self.formula = formula
        #: refuse what the formula can produce (LC104, LC106), not only its cost
        self.ranges = ranges
        #: names in the formulas whose results this one reads (a round reads the rows' scores)
        self.upstream = upstream
        self.source: Source = formula.source
        self.env: list[Any] = list(fields) + [None] * (formula.size - len(fields))
        self.names = formula.fields
        self.domain = domain
        self.constants = constants
        self.tables = tables
        self.marks = marks
        self.steps = 0

    def result(self) -> Iv:
        value, cost = self.eval(self.formula.code, self.env)
        if cost > MAX_COST:
            raise self.source.error(
                COST, f"one call can take about {_show(cost)} steps in {self.domain.label}; "
                f"the limit is {MAX_COST:,}", 0, len(self.source.text.rstrip()),
                hint="nested aggregates multiply: aggregate once, or over a smaller collection"
                + ("" if self.ranges or self.domain.marks else
                   " (or compile it over its pack's domain: compile_formula(..., domain=...))"))
        self.check(value, self.formula.code, "its result")
        return value

    # -- errors -------------------------------------------------------------------------------

    def check(self, value: Iv, node: Code, what: str) -> None:
        if -MAX_INT <= value.lo and value.hi <= MAX_INT or not self.ranges:
            return
        span = f"{_show(value.lo)}..{_show(value.hi)}"
        message = (f"{what} can reach {span} in {self.domain.label}, beyond ±{MAX_INT} "
                   f"({self.source.key or 'the formula'}: `{self.source.snippet(node.start, node.end)}`)")
        raise self.blame(node, message, "keep the pack's numbers small enough that every "
                         "product and result stays within ±10^12")

    def blame(self, node: Code, message: str, hint: str) -> Exception:
        """The error at what holds the largest number among the constants and tables in
        ``node``'s text or in the formulas whose results this one reads (``upstream``), and
        the inputs in its text whose range the pack sets; else at the node."""
        words = set(_NAME.findall(self.source.text[node.start:node.end]))
        held: list[tuple[int, int, str, str]] = []
        for name in words | self.upstream:
            if name in self.constants:
                held.append((abs(self.constants[name]), 1, "constants", name))
            elif name in self.tables and self.tables[name]:
                held.append((max(map(abs, self.tables[name])), 1, "tables", name))
        for slot, name in enumerate(self.names):
            value = self.env[slot]
            if name in words and name in self.domain.marks and isinstance(value, Iv):
                held.append((max(abs(value.lo), abs(value.hi)), 0, "fields", name))
        while held:
            best = max(held)
            held.remove(best)
            _, _, kind, name = best
            if kind == "fields":
                return Source(name, "", self.domain.marks[name]).error(
                    LIMIT, f"`{name}` is too large: {message}", hint=hint)
            mark = self.marks.get(f"scoring.{kind}.{name}")
            if mark is not None:
                what = "constant" if kind == "constants" else "table"
                return Source(name, "", mark).error(LIMIT, f"{what} `{name}`: {message}",
                                                    hint=hint)
        return self.source.error(LIMIT, message, node.start, node.end, hint=hint)

    # -- evaluation ---------------------------------------------------------------------------

    def eval(self, code: Code, env: list) -> tuple[Any, int]:
        """``(range of the value, worst-case steps)`` of ``code`` with the slots in ``env``."""
        op = code.op
        method = getattr(self, "_" + _METHODS.get(op, op))
        return method(code, env)

    def ints(self, codes: tuple, env: list) -> tuple[list[Iv], int]:
        out, cost = [], 0
        for c in codes:
            v, k = self.eval(c, env)
            out.append(v)
            cost += k
        return out, cost

    def _const(self, code: Code, env: list) -> tuple[Any, int]:
        if code.type == INT:
            return Iv(code.value, code.value), 1
        if code.type == BOOL:
            return FLAG, 1
        values = code.value
        return Many(Iv(min(values), max(values)) if values else Iv(0, 0), len(values)), 1

    def _slot(self, code: Code, env: list) -> tuple[Any, int]:
        value = env[code.value]
        if value is None:  # a slot the walk has not bound: any integer (never happens)
            value = Iv(-MAX_INT, MAX_INT) if code.type == INT else FLAG
        if code.off and isinstance(value, Iv):
            value = Iv(value.lo + code.off, value.hi + code.off)
        return value, 1

    def _arith(self, code: Code, env: list) -> tuple[Any, int]:
        (a, b), cost = self.ints(code.args, env)
        return self.apply(code.op, a, b, code), cost + 1

    def apply(self, op: str, a: Iv, b: Iv, code: Code) -> Iv:
        if op == "+":
            return Iv(a.lo + b.lo, a.hi + b.hi)
        if op == "-":
            return Iv(a.lo - b.hi, a.hi - b.lo)
        if op == "*":
            ends = [x * y for x in a for y in b]
            value = Iv(min(ends), max(ends))
            self.check(value, code, "a product")
            if not self.ranges:  # the cost alone: keep the numbers small, products nest
                value = Iv(*(min(max(end, -MAX_INT), MAX_INT) for end in value))
            return value
        divisors = [d for d in {b.lo, b.hi, -1, 1} if b.lo <= d <= b.hi and d]
        if not divisors:  # always 0: LC105 when it runs
            return Iv(0, 0)
        if op == "//":
            ends = [x // d for x in a for d in divisors]
            return Iv(min(ends), max(ends))
        if b.lo > 0:
            return Iv(0, b.hi - 1)
        if b.hi < 0:
            return Iv(b.lo + 1, 0)
        return Iv(min(0, b.lo + 1), max(0, b.hi - 1))

    def _chain(self, code: Code, env: list) -> tuple[Any, int]:
        values, cost = self.ints(code.args, env)
        acc = values[0]
        for op, value in zip(code.value, values[1:]):
            acc = self.apply(op, acc, value, code)
        return acc, cost + len(values)

    def _neg(self, code: Code, env: list) -> tuple[Any, int]:
        a, cost = self.eval(code.args[0], env)
        return Iv(-a.hi, -a.lo), cost + 1

    def _flag(self, code: Code, env: list) -> tuple[Any, int]:
        _, cost = self.ints(code.args, env)
        return FLAG, cost + 1

    def _if(self, code: Code, env: list) -> tuple[Any, int]:
        test, a, b = code.args
        _, cost = self.eval(test, env)
        x, ca = self.eval(a, _narrow(env, test, True))
        y, cb = self.eval(b, _narrow(env, test, False))
        return _join(x, y), cost + max(ca, cb) + 1

    def _let(self, code: Code, env: list) -> tuple[Any, int]:
        value, body = code.args
        v, cv = self.eval(value, env)
        inner = list(env)
        inner[code.value] = v
        r, cb = self.eval(body, inner)
        return r, cv + cb + 1

    def _index(self, code: Code, env: list) -> tuple[Any, int]:
        coll, idx = code.args
        c, cc = self.eval(coll, env)
        i, ci = self.eval(idx, env)
        if self.ranges and coll.constant and not (0 <= i.lo and i.hi < len(coll.value)):
            size = len(coll.value)
            name = self.source.snippet(coll.start, coll.end)
            reach = f"{_show(i.lo)}..{_show(i.hi)}"
            message = (f"table `{name}` has {size} entr{'y' if size == 1 else 'ies'} "
                       f"(indexes 0..{size - 1}), but {self.source.key or 'the formula'} reads "
                       f"it at `{self.source.snippet(idx.start, idx.end)}`, which reaches "
                       f"{reach} in {self.domain.label}")
            hint = (f"give `{name}` {i.hi + 1} entries, or clamp the index with min(..., "
                    f"{size - 1})" if i.lo >= 0 else "clamp the index with max(0, ...)")
            key = f"scoring.tables.{name}"
            mark = self.marks.get(key)
            if name in self.tables and mark is not None:
                raise Source(name, "", mark).error(INDEX, message, hint=hint)
            raise self.source.error(INDEX, message, idx.start, idx.end, hint=hint)
        return c.elem, cc + ci + 1

    def _field(self, code: Code, env: list) -> tuple[Any, int]:
        record, cost = self.eval(code.args[0], env)
        return record.fields[code.value], cost + 1

    def _call(self, code: Code, env: list) -> tuple[Any, int]:
        values, cost = self.ints(code.args, env)
        if code.value == "abs":
            a = values[0]
            low = 0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi))
            return Iv(low, max(abs(a.lo), abs(a.hi))), cost + 1
        pick = min if code.value == "min" else max
        return Iv(pick(v.lo for v in values), pick(v.hi for v in values)), cost + 1

    def _agg(self, code: Code, env: list) -> tuple[Any, int]:
        coll, elem, where = code.args
        name, slot = code.value
        c, cost = self.eval(coll, env)
        n = c.most
        inner = env
        if slot >= 0:
            inner = list(env)
            inner[slot] = c.elem
        each = 1
        if where is not None:
            _, cw = self.eval(where, inner)
            each += cw
            inner = _narrow(inner, where, True)
        value = c.elem
        if elem is not None:
            value, ce = self.eval(elem, inner)
            each += ce
        cost += n * each + 1
        if name in ("any", "all"):
            return FLAG, cost
        if name == "count":
            return Iv(0, n), cost
        if name == "sum":
            return Iv(min(0, n * value.lo), max(0, n * value.hi)), cost
        return _join(value, Iv(0, 0)), cost  # min/max of nothing is 0


_METHODS = {"+": "arith", "-": "arith", "*": "arith", "//": "arith", "%": "arith",
            "cmp": "flag", "cmps": "flag", "not": "flag", "and": "flag", "or": "flag"}


def _join(a: Any, b: Any) -> Any:
    """The smallest range holding both ``a`` and ``b``."""
    if isinstance(a, Iv) and isinstance(b, Iv):
        return Iv(min(a.lo, b.lo), max(a.hi, b.hi))
    if isinstance(a, Many) and isinstance(b, Many):
        return Many(_join(a.elem, b.elem), max(a.most, b.most))
    if isinstance(a, Rec) and isinstance(b, Rec):
        return Rec(tuple(_join(x, y) for x, y in zip(a.fields, b.fields)))
    return a


def _narrow(env: list, test: Code, truth: bool) -> list:
    """``env`` with the slots that ``test`` compares to a constant narrowed, where ``test``
    is ``truth``: ``x < 3`` true keeps x within ..2, false within 3.."""
    if test.op == "not":
        return _narrow(env, test.args[0], not truth)
    if test.op in ("and", "or") and truth == (test.op == "and"):
        for part in test.args:
            env = _narrow(env, part, truth)
        return env
    if test.op != "cmp":
        return env
    a, b = test.args
    if not (a.op == "slot" and b.constant and a.type == INT):
        return env
    value = env[a.value]
    if not isinstance(value, Iv):
        return env
    k = b.value - a.off  # e[i] + off op K  <=>  e[i] op K - off
    op = test.value if truth else _NEGATED[test.value]
    lo, hi = value
    if op == "<":
        hi = min(hi, k - 1)
    elif op == "<=":
        hi = min(hi, k)
    elif op == ">":
        lo = max(lo, k + 1)
    elif op == ">=":
        lo = max(lo, k)
    elif op == "==":
        lo, hi = max(lo, k), min(hi, k)
    if lo > hi:  # the branch never runs: nothing it reads matters
        lo = hi = min(max(k, value.lo), value.hi)
    out = list(env)
    out[a.value] = Iv(lo, hi)
    return out


_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
