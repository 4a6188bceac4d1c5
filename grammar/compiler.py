"""From a parsed formula to closures: name resolution, type checking, compilation.

The compiler walks lark's tree once (its depth is capped before, so recursion is
bounded), checks every name against the scope's declared fields, the pack's
constants and tables and the ``let``/aggregate names in view, checks types
(integer, boolean, record, collection; never mixed) and builds the formula's
tree (:mod:`.ir`); the :class:`Formula` runs it as closures (:mod:`.closures`)
that read fields from a frame list by slot index.
"""
from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from lostcities.engine.errors import ScoringError

from . import ir
from .bounds import Domain, bound_cost
from .closures import closure
from .ir import Code
from .parser import parse
from .runner import entry, memoised
from .source import Mark, Source
from .types import (AGGREGATES, BOOL, CLASH, COST, FUNCTIONS, INT, LIMIT, MAX_AGGREGATE_NESTING,
                    MAX_INT, SCOPES, TYPE, UNKNOWN, Coll, Record, Type, all_field_names,
                    describe, scope_fields)

if TYPE_CHECKING:
    from lark import Token, Tree

#: a chain of more operands than this runs as one loop rather than nested closures
_CHAIN_FUSE = 8


class Formula:
    """One compiled formula of a scope, callable with the scope's own arguments.

    - expedition: ``f(colour, values, wagers)``
    - pawn: ``f(track, space, leader)``
    - round: ``f(rows, pawns, tokens, artefacts, round_number)`` with rows
      ``(colour, values, wagers, score)`` and pawns ``(track, space, leader, score)``
    - match: ``f(round_scores, artefacts, tokens)``

    >>> compile_formula("(points - 20) * (1 + wagers)")(0, [4, 6, 8, 10], 1)
    16

    Called so (or by :meth:`evaluate`), a formula first compares its collections with
    the :class:`~.bounds.Domain` its work was bounded for (``domain``): a longer one is a
    ScoringError (LC109) at once. ``run`` is the same function without that check (what
    the engine calls, with its pack's rows).
    """

    __slots__ = ("source", "scope", "code", "uses", "size", "fields", "scored", "domain",
                 "run")

    def __init__(self, source: Source, scope: str, code: Code, uses: frozenset[str],
                 size: int, fields: tuple[str, ...],
                 scored: frozenset[str] = frozenset(SCOPES)):
        self.source = source
        self.scope = scope
        self.code = code
        #: the scope fields the formula reads
        self.uses = uses
        #: the frame's length: the scope's fields then the let/aggregate slots
        self.size = size
        self.fields = fields
        #: the scopes with formulas (a round's records carry their ``score``)
        self.scored = scored
        #: the domain the formula's work is bounded for (None: not yet; its first call
        #: bounds it over the widest domain)
        self.domain: Domain | None = None
        #: the formula as a plain function of the scope's arguments (what the engine calls)
        self.run: Callable[..., Any] = _runner(self)

    @property
    def text(self) -> str:
        return self.source.text

    @property
    def key(self) -> str:
        return self.source.key

    @property
    def constant(self) -> int | None:
        """The formula's value when it does not depend on any field, else None."""
        return self.code.value if self.code.constant else None

    def body(self) -> Callable[[list], Any]:
        """The closure over a frame list (the scope's fields, then local slots)."""
        return closure(self.code)

    def __call__(self, *args: Any) -> int:
        self.admit(args)
        return self.run(*args)

    def admit(self, args: Sequence[Any]) -> None:
        """Raise ScoringError (LC109) if a collection in ``args`` (the scope's arguments, or
        its frame) is longer than the domain this formula's work was bounded for holds."""
        domain = self.domain or bound_cost(self, None, self.scored)
        problem = domain.oversize(self.scope, args)
        if problem:
            raise self.source.error(COST, problem, 0, len(self.text.rstrip()),
                                    hint="score rows, pawns and rounds that a game can hold")

    def evaluate(self, **fields: Any) -> int:
        """Evaluate with field values given by name (missing ones are 0, false or empty).

        Records of the round scope may be given as mappings of their fields.
        """
        frame: list = []
        for name, type, _ in scope_fields(self.scope):
            value = fields.pop(name, None)
            if isinstance(type, Coll) and isinstance(type.elem, Record):
                value = [_record(type.elem, r) for r in value or ()]
            frame.append(_default(type) if value is None else value)
        if fields:
            raise TypeError(f"{self.scope} scope has no field {', '.join(sorted(fields))}")
        self.admit(frame)
        frame.extend([None] * (self.size - len(frame)))
        return check_result(self, closure(self.code)(frame))

    def __repr__(self) -> str:
        return f"<Formula {self.key or self.scope}: {self.text.strip()!r}>"


def check_result(formula: Formula, value: int) -> int:
    """``value`` if within ±MAX_INT, else the LC104 error of ``formula``."""
    if -MAX_INT <= value <= MAX_INT:
        return value
    raise formula.source.error(LIMIT, f"result {value} is beyond the limit of ±{MAX_INT}",
                               0, len(formula.text.rstrip()),
                               hint="integers in formulas stay within ±10^12")


def _default(type: Type) -> Any:
    return 0 if type == INT else False if type == BOOL else ()


def _record(record: Record, value: Any) -> tuple:
    if isinstance(value, Mapping):
        return tuple(value.get(name, _default(t)) for name, t in record.fields)
    return tuple(value)


def compile_formula(text: str, scope: str = "expedition", *,
                    constants: Mapping[str, int] | None = None,
                    tables: Mapping[str, Sequence[int]] | None = None,
                    key: str = "", mark: Mark | None = None,
                    scored: frozenset[str] = frozenset(SCOPES),
                    domain: Domain | None = None, bound: bool = True,
                    tree: Any = None) -> Formula:
    """Parse, check and compile one formula of ``scope``; raise ScoringError if it is bad.

    ``constants`` and ``tables`` are the pack's ``scoring.constants``/``tables``;
    ``key`` (``scoring.round``) and ``mark`` locate the text in the YAML file;
    ``scored`` names the scopes that have formulas (their records get ``score``).

    The formula's work is bounded over ``domain`` (a pack's
    :class:`~lostcities.grammar.bounds.Domain`), else over the widest domain the pack
    caps allow (``bounds.widest_domain()``): one call that can cost more than
    ``bounds.MAX_COST`` steps there is refused (LC109). ``bound=False`` leaves that to
    the caller (``compile_scoring`` bounds a pack's formulas together).

    ``tree`` is this very text's parse result shipped with the package (a vouched built-in
    pack's, :func:`.parser.tree_from_data`): it is compiled as the parsed one would be, and
    the text is not parsed (lark is not imported). Without it the text is parsed.
    """
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; the scopes are {', '.join(SCOPES)}")
    constants = dict(constants or {})
    tables = {name: tuple(values) for name, values in (tables or {}).items()}
    check_definitions(constants, tables, {})
    source = Source(text, key, mark)
    if tree is None:
        tree = parse(source)
    compiler = _Compiler(source, scope, scored, constants, tables)
    try:
        code = compiler.visit(tree)
    except ScoringError as err:
        if err.code != UNKNOWN:
            raise
        raise compiler.every_unknown(tree, err) from None
    if code.type != INT:
        hint = "e.g. `if ... then 1 else 0`" if code.type == BOOL else ""
        raise source.error(TYPE, f"the {scope} formula must give an integer, not "
                           f"{describe(code.type)}", code.start, code.end, hint=hint)
    formula = Formula(source, scope, code, frozenset(compiler.used), compiler.size,
                      tuple(name for name, _, _ in compiler.field_specs), scored)
    if code.constant:
        check_result(formula, code.value)
    if bound:
        bound_cost(formula, domain, scored)
    return formula


def check_definitions(constants: Mapping[str, Any], tables: Mapping[str, Any],
                      marks: Mapping[str, Mark]) -> None:
    """Constants and tables: integers within limits, names that clash with nothing."""
    taken = all_field_names()
    reserved = set(AGGREGATES) | set(FUNCTIONS)
    for kind, defs in (("constants", constants), ("tables", tables)):
        for raw_name, value in defs.items():
            name = " ".join(str(raw_name).split())
            key = f"scoring.{kind}.{name}"
            source = Source(str(name), key, mark_for(marks, key))
            what = "constant" if kind == "constants" else "table"
            if name in taken or name in reserved:
                role = "field" if name in taken else "function"
                raise source.error(CLASH, f"{what} `{name}` has the name of a {role}",
                                   hint="rename it")
            if kind == "tables" and name in constants:
                raise source.error(CLASH, f"`{name}` is both a constant and a table",
                                   hint="rename one")
            items = [value] if kind == "constants" else value
            for item in items:
                if isinstance(item, bool) or not isinstance(item, int):
                    raise source.error(TYPE, f"{what} `{name}` must hold integers, got "
                                       f"{item!r}")
                if not -MAX_INT <= item <= MAX_INT:
                    raise source.error(LIMIT, f"{what} `{name}` holds {item}, beyond ±{MAX_INT}")


def mark_for(marks: Mapping[str, Mark], key: str) -> Mark | None:
    """The mark (file, line, column) of the pack key ``key`` or of its nearest enclosing key, as
    the loader recorded them in ``marks``; ``None`` when no enclosing key has one."""
    while key:
        if key in marks:
            return marks[key]
        key = key.rpartition(".")[0]
    return None


def _suggest(name: str, candidates: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(f"`{c}`" for c in close) + "?"
    return ""


class _Compiler:
    """Walks one formula's tree; every method returns a :class:`Code` for its node."""

    def __init__(self, source: Source, scope: str, scored: frozenset[str],
                 constants: Mapping[str, int], tables: Mapping[str, tuple[int, ...]]):
        self.source = source
        self.scope = scope
        self.field_specs = scope_fields(scope, scored)
        self.fields = {name: (slot, type) for slot, (name, type, _) in enumerate(self.field_specs)}
        self.constants = constants
        self.tables = tables
        self.locals: list[tuple[str, Code]] = []
        self.size = len(self.field_specs)
        self.used: set[str] = set()
        self.aggregates = 0

    # -- helpers -----------------------------------------------------------------------

    def error(self, code: str, message: str, at: "Code | Tree | Token", hint: str = "") -> Exception:
        start, end = _span(at)
        return self.source.error(code, message, start, end, hint)

    def text(self, at: "Code | Tree | Token") -> str:
        return self.source.snippet(*_span(at))

    def expect(self, code: Code, type: Type, what: str) -> Code:
        """``code`` if it has ``type``, else an LC103 error saying what needed it."""
        if code.type == type:
            return code
        hint = ""
        if type == BOOL and code.type == INT:
            hint = f"compare it, e.g. `{self.text(code)} > 0`"
        elif type == INT and isinstance(code.type, Coll):
            hint = f"aggregate it, e.g. `sum({self.text(code)})`"
        elif type == INT and code.type == BOOL:
            hint = "turn it into a number with `if ... then 1 else 0`"
        raise self.error(TYPE, f"{what} needs {describe(type)}, got {describe(code.type)}",
                         code, hint)

    def visible(self) -> list[str]:
        return ([n for n, _ in self.locals] + list(self.fields) + list(self.constants)
                + list(self.tables))

    def declare(self, token: "Token") -> str:
        """A new let/aggregate name: it may not hide any name in view."""
        name = str(token)
        if name in self.visible() or name in AGGREGATES or name in FUNCTIONS:
            raise self.error(CLASH, f"`{name}` is already a name here", token,
                             hint="choose another name")
        return name

    def new_slot(self) -> int:
        self.size += 1
        return self.size - 1

    def every_unknown(self, tree: "Tree", first: ScoringError) -> ScoringError:
        """``first`` (the compiler's first unknown name) with every other name or function
        of the formula that names nothing in view (:attr:`ScoringError.also`), in text
        order, so that one run of ``lc validate`` shows them all."""
        errors = {(first.line, first.col): first}
        known = sorted({*self.fields, *self.constants, *self.tables})
        functions = sorted(set(AGGREGATES) | set(FUNCTIONS))
        for token, function in _unknown_names(tree, set(known), ()):
            if function:
                hint = _suggest(str(token), functions) or "the functions are " + ", ".join(
                    functions)
            else:
                hint = _suggest(str(token), known) or (
                    f"the names of the {self.scope} scope are " + ", ".join(known))
            error = self.error(UNKNOWN, f"unknown {'function' if function else 'field'} "
                               f"`{token}`", token, hint)
            errors.setdefault((error.line, error.col), error)
        ordered = [errors[at] for at in sorted(errors)]
        head = ordered[0]
        head.also = tuple(ordered[1:])
        return head

    def visit(self, node: "Tree") -> Code:
        code = getattr(self, "_" + str(node.data))(node)
        return code.spanning(node.meta.start_pos, node.meta.end_pos)

    # -- leaves --------------------------------------------------------------------------

    def _number(self, node: "Tree") -> Code:
        token = node.children[0]
        digits = str(token).lstrip("0") or "0"
        if len(digits) > len(str(MAX_INT)) or int(digits) > MAX_INT:
            shown = str(token) if len(token) <= 24 else f"of {len(token):,} digits"
            raise self.error(LIMIT, f"number {shown} is beyond the limit of {MAX_INT}", token)
        return ir.const(INT, int(digits))

    def _true(self, node: "Tree") -> Code:
        return ir.const(BOOL, True)

    def _false(self, node: "Tree") -> Code:
        return ir.const(BOOL, False)

    def _name(self, node: "Tree") -> Code:
        token = node.children[0]
        name = str(token)
        for local, code in reversed(self.locals):
            if local == name:
                return code.copy()
        if name in self.fields:
            slot, type = self.fields[name]
            self.used.add(name)
            return ir.slot(type, slot)
        if name in self.constants:
            return ir.const(INT, self.constants[name])
        if name in self.tables:
            return ir.const(Coll(INT), self.tables[name])
        if name in AGGREGATES or name in FUNCTIONS:
            raise self.error(TYPE, f"`{name}` is a function", token,
                             hint=f"call it, e.g. `{name}(values)`" if name in AGGREGATES
                             else f"call it, e.g. `{name}(cards, 8)`")
        hint = _suggest(name, self.visible())
        if not hint:
            hint = f"the names of the {self.scope} scope are " + ", ".join(sorted(self.visible()))
        raise self.error(UNKNOWN, f"unknown field `{name}`", token, hint)

    # -- operators -----------------------------------------------------------------------

    def _arith(self, node: "Tree") -> Code:
        operands = node.children[0::2]
        words = [str(op) for op in node.children[1::2]]
        codes = []
        for i, child in enumerate(operands):
            op = words[max(0, i - 1)]
            codes.append(self.expect(self.visit(child), INT, f"`{op}`"))
        if len(codes) > _CHAIN_FUSE:
            return ir.chain(words, codes, self.source)
        acc = codes[0]
        for op, code in zip(words, codes[1:]):
            acc = ir.arith(op, acc, code, self.source)
        return acc

    _term = _arith

    def _unary(self, node: "Tree") -> Code:
        op, child = node.children
        code = self.expect(self.visit(child), INT, f"unary `{op}`")
        return ir.negative(code) if str(op) == "-" else code

    def _comparison(self, node: "Tree") -> Code:
        codes = [self.visit(c) for c in node.children[0::2]]
        words = [str(op) for op in node.children[1::2]]
        for op, left, right in zip(words, codes, codes[1:]):
            if op in ("==", "!="):
                if left.type not in (INT, BOOL):
                    raise self.error(TYPE, f"`{op}` compares integers or booleans, got "
                                     f"{describe(left.type)}", left)
                if right.type != left.type:
                    raise self.error(TYPE, f"`{op}` compares {describe(left.type)} with "
                                     f"{describe(right.type)}", right)
            else:
                self.expect(left, INT, f"`{op}`")
                self.expect(right, INT, f"`{op}`")
        if len(codes) == 2:
            return ir.compare(words[0], codes[0], codes[1])
        return ir.compare_chain(words, codes)

    def _logic(self, node: "Tree", word: str) -> Code:
        codes = [self.expect(self.visit(c), BOOL, f"`{word}`") for c in node.children]
        return ir.logic(word, codes)

    def _or_test(self, node: "Tree") -> Code:
        return self._logic(node, "or")

    def _and_test(self, node: "Tree") -> Code:
        return self._logic(node, "and")

    def _not_(self, node: "Tree") -> Code:
        return ir.negate(self.expect(self.visit(node.children[0]), BOOL, "`not`"))

    def _cond(self, node: "Tree") -> Code:
        test, yes, no = (self.visit(c) for c in node.children)
        self.expect(test, BOOL, "the condition of `if`")
        if yes.type != no.type:
            raise self.error(TYPE, f"the branches of `if` differ: `then` gives "
                             f"{describe(yes.type)}, `else` gives {describe(no.type)}", no)
        return ir.cond(test, yes, no)

    def _let(self, node: "Tree") -> Code:
        token, value_node, body_node = node.children
        name = self.declare(token)
        value = self.visit(value_node)
        if value.op in ("const", "slot"):
            slot, bound = -1, value
        else:
            slot = self.new_slot()
            bound = ir.slot(value.type, slot, value.bounds)
        self.locals.append((name, bound))
        body = self.visit(body_node)
        self.locals.pop()
        return body if slot < 0 else ir.bind(slot, value, body)

    # -- collections, records, calls -------------------------------------------------------

    def _index(self, node: "Tree") -> Code:
        coll = self.visit(node.children[0])
        if not isinstance(coll.type, Coll):
            raise self.error(TYPE, f"`[...]` indexes a table or collection, not "
                             f"{describe(coll.type)}", coll)
        idx = self.expect(self.visit(node.children[1]), INT, "an index")
        return ir.index(coll, idx, self.source)

    def _field(self, node: "Tree") -> Code:
        record_node, token = node.children
        record = self.visit(record_node)
        name = str(token)
        start, end = node.meta.start_pos, node.meta.end_pos
        if not isinstance(record.type, Record):
            hint = ""
            if isinstance(record.type, Coll) and isinstance(record.type.elem, Record):
                hint = (f"aggregate over it, e.g. `sum(x.{name} for x in "
                        f"{self.text(record)})`")
            raise self.error(TYPE, f"`.{name}`: {describe(record.type)} has no fields",
                             token, hint)
        position = record.type.index(name)
        if position is None:
            hint = _suggest(name, [f for f, _ in record.type.fields])
            if name == "score":
                hint = (f"`score` needs a `scoring.{record.type.kind}` formula in the pack")
            elif not hint:
                hint = "its fields are " + ", ".join(f for f, _ in record.type.fields)
            raise self.error(UNKNOWN, f"unknown field `{name}` of {describe(record.type)}",
                             token, hint)
        return ir.field(record, position, record.type.fields[position][1], start, end)

    def _call(self, node: "Tree") -> Code:
        token = node.children[0]
        name = str(token)
        args = [self.visit(c) for c in node.children[1:] if c is not None]
        start, end = node.meta.start_pos, node.meta.end_pos
        if name in AGGREGATES and len(args) == 1 and isinstance(args[0].type, Coll):
            coll = args[0]
            self.check_elements(name, coll.type.elem, coll)
            return ir.aggregate(name, coll, -1, None, None, start, end)
        if name in FUNCTIONS:
            low, high = FUNCTIONS[name]
            if len(args) < low or (high is not None and len(args) > high):
                wanted = "one integer" if high == 1 else "two or more integers"
                extra = " or one collection" if name in AGGREGATES else ""
                raise self.error(TYPE, f"`{name}` takes {wanted}{extra}, got {len(args)} "
                                 "argument" + ("s" if len(args) != 1 else ""), node)
            for arg in args:
                self.expect(arg, INT, f"`{name}`")
            return ir.call(name, args, start, end)
        if name in AGGREGATES:
            raise self.error(TYPE, f"`{name}` takes one collection or a `for` expression",
                             node, hint=f"e.g. `{name}(x for x in values)`")
        if name in self.visible():
            raise self.error(TYPE, f"`{name}` is not a function", token)
        functions = sorted(set(AGGREGATES) | set(FUNCTIONS))
        hint = _suggest(name, functions) or "the functions are " + ", ".join(functions)
        if name == "len":
            hint = "use `count(...)`"
        raise self.error(UNKNOWN, f"unknown function `{name}`", token, hint)

    def check_elements(self, name: str, elem: Type, at: Code) -> None:
        if name in ("sum", "min", "max") and elem != INT:
            raise self.error(TYPE, f"`{name}` adds up integers, got {describe(elem)} elements",
                             at, hint="pick a field, e.g. `sum(e.score for e in expeditions)`")
        if name in ("any", "all") and elem != BOOL:
            raise self.error(TYPE, f"`{name}` needs booleans, got {describe(elem)} elements",
                             at, hint=f"e.g. `{name}(x > 0 for x in values)`")

    def _aggregate(self, node: "Tree") -> Code:
        func, elem_node, var, coll_node, where_node = node.children
        name = str(func)
        start, end = node.meta.start_pos, node.meta.end_pos
        if name not in AGGREGATES:
            hint = _suggest(name, AGGREGATES) or "the aggregates are " + ", ".join(AGGREGATES)
            raise self.error(UNKNOWN, f"unknown aggregate `{name}`", func, hint)
        coll = self.visit(coll_node)
        if not isinstance(coll.type, Coll):
            raise self.error(TYPE, f"`for ... in` needs a collection, got {describe(coll.type)}",
                             coll)
        self.aggregates += 1
        if self.aggregates > MAX_AGGREGATE_NESTING:
            raise self.error(LIMIT, f"aggregates nest more than {MAX_AGGREGATE_NESTING} deep",
                             node)
        var_name = self.declare(var)
        slot = self.new_slot()
        self.locals.append((var_name, ir.slot(coll.type.elem, slot, coll.bounds)))
        elem = self.visit(elem_node)
        where = None
        if where_node is not None:
            where = self.expect(self.visit(where_node), BOOL, "`where`")
        self.locals.pop()
        self.aggregates -= 1
        if name != "count":
            self.check_elements(name, elem.type, elem)
        return ir.aggregate(name, coll, slot, elem, where, start, end)


def _unknown_names(node: Any, known: set[str], local: tuple[str, ...]
                   ) -> list[tuple["Token", bool]]:
    """The names under ``node`` that name nothing (``known``: the scope's fields, the
    pack's constants and tables; ``local``: the ``let`` and ``for`` names in view), each
    with whether it is called as a function. The tree's depth is capped by the parser."""
    kind = str(getattr(node, "data", ""))
    if not kind:
        return []
    children = node.children
    if kind == "name":
        name = str(children[0])
        bare = name in known or name in local or name in AGGREGATES or name in FUNCTIONS
        return [] if bare else [(children[0], False)]
    found: list[tuple["Token", bool]] = []
    if kind == "call":
        name = str(children[0])
        if name not in AGGREGATES and name not in FUNCTIONS and name not in known \
                and name not in local:
            found.append((children[0], True))
        for child in children[1:]:
            found += _unknown_names(child, known, local)
    elif kind == "aggregate":
        func, elem, var, coll, where = children
        if str(func) not in AGGREGATES:
            found.append((func, True))
        found += _unknown_names(coll, known, local)
        inner = local + (str(var),)
        found += _unknown_names(elem, known, inner) + _unknown_names(where, known, inner)
    elif kind == "let":
        var, value, body = children
        found += _unknown_names(value, known, local)
        found += _unknown_names(body, known, local + (str(var),))
    elif kind == "field":
        found += _unknown_names(children[0], known, local)
    else:
        for child in children:
            found += _unknown_names(child, known, local)
    return found


def _span(at: Any) -> tuple[int, int]:
    if isinstance(at, Code):
        return at.start, at.end
    meta = getattr(at, "meta", None)
    if meta is not None:
        return meta.start_pos, meta.end_pos
    return at.start_pos, at.end_pos


# -- running a formula with the scope's own arguments ------------------------------------

def _runner(formula: Formula) -> Callable[..., Any]:
    """The formula as a function of its scope's arguments, its result checked.

    The expedition formula remembers the rows it has scored (``.compute`` is
    the same function without the memo: the closures alone).
    """
    run = entry(formula.code, formula.scope, formula.size, formula.uses,
                lambda value: check_result(formula, value))
    if formula.scope == "expedition" and not formula.code.constant:
        return memoised(run, "colour" in formula.uses)
    return run
