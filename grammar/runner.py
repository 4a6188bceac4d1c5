"""A compiled formula as a plain function of its scope's arguments (what the engine calls).

The function builds the frame (the scope's fields in slot order, then room for
the ``let`` and aggregate names) and runs the formula's closure on it. A
formula ``if FIELD op CONSTANT then A else B`` makes its test in the function
itself. The result is within ±MAX_INT or an LC104 error, checked where the
formula's bounds do not prove it (:func:`.closures.result`).

The expedition scope is the engine's hottest call: its function builds the
frame inline, computes ``points`` only when the formula reads it, tests
``cards`` before building the frame, and runs duel-classic's shape of formula
with no closure call at all (:func:`_inline_sum`).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from .closures import (NSMALL, SMALL, Check, Fn, checked_once, closure, result, sum_parts,
                       as_test)
from .ir import Code, within
from .types import MAX_INT, scope_fields

LO, HI = -MAX_INT, MAX_INT


def expedition_frame(colour: int, values: Sequence[int], wagers: int) -> list:
    """The expedition scope's fields in slot order (see types.EXPEDITION_FIELDS)."""
    n = len(values)
    return [colour, values, wagers, n, n + wagers, sum(values)]


def pawn_frame(track: int, space: int, leader: bool) -> list:
    return [track, space, bool(leader), space > 0]


def round_frame(rows: Sequence[Sequence[Any]], pawns: Sequence[Sequence[Any]], tokens: int,
                artefacts: int, round_number: int) -> list:
    """Rows ``(colour, values, wagers[, score])``, pawns ``(track, space, leader[, score])``."""
    return [[(*expedition_frame(*r[:3]), r[3] if len(r) > 3 else 0) for r in rows],
            [(*pawn_frame(*p[:3]), p[3] if len(p) > 3 else 0) for p in pawns],
            tokens, artefacts, round_number]


def match_frame(round_scores: Sequence[int], artefacts: int, tokens: int) -> list:
    return [list(round_scores), artefacts, tokens]


FRAMES: dict[str, Callable[..., list]] = {
    "expedition": expedition_frame, "pawn": pawn_frame, "round": round_frame,
    "match": match_frame}


def entry(code: Code, scope: str, size: int, uses: frozenset[str],
          check: Check) -> Callable[..., int]:
    """The function of the scope's arguments computing ``code``; ``check`` is its result check.

    ``size`` is the frame's length (the scope's fields, then the let and
    aggregate names); ``uses`` the fields the formula reads.
    """
    if code.constant:
        value = code.value
        return lambda *args: value
    pad = [None] * (size - len(scope_fields(scope)))
    points = "points" in uses
    if scope == "round":  # the frame is not built, so its room for names does not matter
        summed = _round_sum(code, check)
        if summed is not None:
            return summed
    if scope == "expedition" and not pad:
        inline = _inline_sum(code, points, check)
        if inline is not None:
            return inline
    # the plan: f (None for a test), whether f's result needs the check, and a test
    # e[i] == k (eq) or e[i] >= k choosing between (x, fa) and (y, fb)
    f, checked = None, False
    eq, i, k, yes, no = True, 0, 0, (0, None), (0, None)
    found = as_test(code.args[0]) if code.op == "if" else None
    if found is not None:
        op, i, k, neg = found
        _, a, b = code.args
        if neg:
            a, b = b, a
        eq, yes, no = op == "==", _branch(a, check), _branch(b, check)
    elif within(code.bounds):
        f = closure(code)
    else:
        f = checked_once(code, check)
        if f is None:
            f, checked = closure(code), True
    plan = (f, checked, eq, i, k, yes, no)
    if scope == "expedition":
        return _expedition(plan, points, pad, check)
    return _generic(plan, FRAMES[scope], pad, check)


def _branch(code: Code, check: Check) -> tuple[Any, Fn | None]:
    """``(value, None)`` for a constant within the limits, else ``(None, closure)``."""
    if code.constant and LO <= code.value <= HI:
        return code.value, None
    return None, result(code, check)


_CARDS = 4  # the slot of `cards` (types.EXPEDITION_FIELDS)


def plain_sum(code: Code, scope: str) -> str | None:
    """What ``code`` sums when it is a plain sum, read from its compiled shape (never its
    text): ``"expeditions"`` or ``"pawns"`` for a round formula ``sum(e.score for e in
    expeditions)`` (of pawns), ``"rounds"`` for a match formula ``sum(r for r in rounds)``;
    None for any other formula (a filter, another field, anything added)."""
    if code.op != "agg" or code.value[0] != "sum":
        return None
    coll, elem, where = code.args
    slot = code.value[1]
    if where is not None or coll.op != "slot" or coll.off or elem is None:
        return None
    if scope == "match":  # the element itself: sum(r for r in rounds), rounds in slot 0
        plain = coll.value == 0 and elem.op == "slot" and elem.value == slot and not elem.off
        return "rounds" if plain else None
    if scope != "round" or coll.value not in (0, 1) or elem.op != "field" \
            or elem.args[0].op != "slot" or elem.args[0].value != slot or elem.args[0].off:
        return None
    records = "expeditions" if coll.value == 0 else "pawns"  # the round scope's first slots
    if elem.value != len(scope_fields("expedition" if coll.value == 0 else "pawn")):
        return None  # a field other than the record's score
    return records


def _round_sum(code: Code, check: Check) -> Callable[..., int] | None:
    """The round function of ``sum(e.score for e in expeditions)`` (duel-classic's round;
    or the same of ``pawns``): the sum of the scores the records were given, with no
    frame built; None for any other formula.

    :func:`round_frame` gives each record the score it was given (0 when none), and the
    sum's closure adds those scores and nothing else, so the two agree (checked against
    the reference evaluator by tests/test_dsl_reference.py, records without a score and
    sums past MAX_INT included)."""
    summed = plain_sum(code, "round")
    if summed is None:
        return None
    records = summed == "pawns"

    def run(rows: Sequence[Sequence[Any]], pawns: Sequence[Sequence[Any]], tokens: int,
            artefacts: int, round_number: int) -> int:
        r = sum([x[3] if len(x) > 3 else 0 for x in (pawns if records else rows)])
        return r if NSMALL <= r <= SMALL else check(r)
    return run


def _inline_sum(code: Code, points: bool, check: Check) -> Callable[..., int] | None:
    """The expedition function of ``if cards == G then C else PRODUCT + TERM``, all inline
    (duel-classic's shape, see :func:`.closures.sum_parts`); else None.

    One Python call per row: ``cards`` tested before the frame is built, then
    the sum, checked once.
    """
    found = as_test(code.args[0]) if code.op == "if" else None
    if found is None or found[:2] != ("==", _CARDS):
        return None
    _, _, g, neg = found
    _, a, b = code.args
    if neg:
        a, b = b, a
    parts = sum_parts(b, check)
    if parts is None or not (a.constant and LO <= a.value <= HI):
        return None
    gx = a.value
    i, p, j, q, eq, t, k, x, y, low, high, slow = parts
    if eq:
        def guarded(colour: int, values: Sequence[int], wagers: int) -> int:
            n = len(values)
            cards = n + wagers
            if cards == g:
                return gx
            e = (colour, values, wagers, n, cards, sum(values) if points else 0)
            r = (s := (e[i] + p) * (e[j] + q)) + (x if e[t] == k else y)
            return r if low <= r <= high else slow(s, r)
    else:
        def guarded(colour: int, values: Sequence[int], wagers: int) -> int:
            n = len(values)
            cards = n + wagers
            if cards == g:
                return gx
            e = (colour, values, wagers, n, cards, sum(values) if points else 0)
            r = (s := (e[i] + p) * (e[j] + q)) + (x if e[t] >= k else y)
            return r if low <= r <= high else slow(s, r)
    return guarded


def _expedition(plan: tuple, points: bool, pad: list, check: Check) -> Callable[..., int]:
    """The expedition function of the other formulas.

    The frame is built inline, with ``sum(values)`` only if the formula reads
    ``points``; a test ``cards == K`` is made before it is built, and a constant
    branch is returned without one.
    """
    f, checked, eq, i, k, (x, fa), (y, fb) = plan
    if f is None and eq and i == _CARDS:
        def by_cards(colour: int, values: Sequence[int], wagers: int) -> int:
            n = len(values)
            cards = n + wagers
            if cards == k:
                if fa is None:
                    return x
                g = fa
            elif fb is None:
                return y
            else:
                g = fb
            e = (colour, values, wagers, n, cards, sum(values) if points else 0)
            return g([*e, *pad] if pad else e)
        return by_cards

    def expedition(colour: int, values: Sequence[int], wagers: int) -> int:
        n = len(values)  # the frame inline: a call to build it costs more than most formulas
        e = (colour, values, wagers, n, n + wagers, sum(values) if points else 0)
        if pad:  # room for the let and aggregate names
            e = [*e, *pad]
        if f is None:
            if e[i] == k if eq else e[i] >= k:
                return x if fa is None else fa(e)
            return y if fb is None else fb(e)
        r = f(e)
        return check(r) if checked and not NSMALL <= r <= SMALL else r
    return expedition


def _generic(plan: tuple, frame: Callable[..., list], pad: list,
             check: Check) -> Callable[..., int]:
    """The function of the pawn, round and match scopes: the frame built by ``frame``."""
    f, checked, eq, i, k, (x, fa), (y, fb) = plan

    def run(*args: Any) -> int:
        e = frame(*args) + pad
        if f is None:
            if e[i] == k if eq else e[i] >= k:
                return x if fa is None else fa(e)
            return y if fb is None else fb(e)
        r = f(e)
        return check(r) if checked and not NSMALL <= r <= SMALL else r
    return run


#: most rows an expedition formula remembers (further rows are computed, not stored)
MEMO_SIZE = 1 << 14


def memoised(compute: Callable[[int, Sequence[int], int], int],
             by_colour: bool) -> Callable[[int, Sequence[int], int], int]:
    """The expedition function remembering its results by ``(values, wagers[, colour])``.

    A formula is a pure function of its row, and play asks about the same rows
    again and again (every evaluation of a position). Errors are not remembered.
    ``.compute`` is the function without the memo (the closures alone); ``.memo`` the
    results remembered, at most :data:`MEMO_SIZE` (to read, not to change).
    """
    memo: dict[tuple, int] = {}
    get = memo.get

    def expedition(colour: int, values: Sequence[int], wagers: int) -> int:
        key = (tuple(values), wagers, colour) if by_colour else (tuple(values), wagers)
        r = get(key)
        if r is None:
            r = compute(colour, values, wagers)
            if len(memo) < MEMO_SIZE:
                memo[key] = r
        return r
    expedition.compute = compute  # type: ignore[attr-defined]
    expedition.memo = memo  # type: ignore[attr-defined]  # read-only: how much it holds
    return expedition
