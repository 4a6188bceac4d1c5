"""Whole expedition rows checked against a pack's rules, with reasons in words.

The row rules themselves (the ``ORDERINGS`` strategies and the wagers-first rule)
are compiled once per pack into row-state tables by :mod:`.tables`; this module
walks a row through those tables and, at the first card the row refuses, says
which card, after which card, and why. ``lc score`` uses it to check rows typed
at the table; the engine may use :func:`refusal` for its own messages.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from .cards import Card
from ..errors import IllegalMoveError
from .refusals import Refusal
from .rules import RulePack
from .options import DOWN, OPEN, UP
from .tables import NO_NUMBERS, tables_of

#: why an ordering refuses a card, by the pack's ``rows.ordering``
ORDERING_RULES: dict[str, str] = {
    "strict": "this pack needs strictly increasing values",
    "non-decreasing": "this pack needs values that never decrease",
    "either-direction": "this row {direction}; its direction was set by its first card "
                        "that differs from its first card",
}
_DIRECTION_WORDS = {UP: "goes up", DOWN: "goes down", OPEN: "has no direction yet"}

#: the refusal key of a number card a row refuses, by the pack's ``rows.ordering`` and the
#: direction the row's values took (a test keeps it in step with ``ORDERINGS``)
ORDERING_KEYS: dict[str, dict[int, str]] = {
    "strict": {UP: "illegal.order.strict"},
    "non-decreasing": {UP: "illegal.order.non-decreasing"},
    "either-direction": {UP: "illegal.order.either-direction.up",
                         DOWN: "illegal.order.either-direction.down"},
}


def row_refusal(pack: RulePack, row: Sequence[Card], card: Card) -> Refusal | None:
    """Why the player's row holding ``row`` (play order, all of ``card``'s colour) cannot
    take ``card`` next, as a :class:`Refusal`; None if it can.

    >>> from lostcities.engine import load_pack
    >>> pack = load_pack("duel-classic"); c = pack.cards
    >>> row_refusal(pack, [c.parse("r5")], c.parse("r3"))
    Refusal(key='illegal.order.strict', params={'card': 'r3', 'colour': 'red', 'last': 5, \
'row': 'r5'})
    """
    tables = tables_of(pack)
    state = tables.state_of(row)
    if state >= 0 and tables.accepts(state, card):
        return None
    codec = tables.codec
    params = {"card": codec.format(card), "colour": pack.colours[tables.colour_of[card]].name}
    numbers = [tables.value_of[k] for k in row if not tables.is_wager[k]]
    if tables.is_wager[card]:
        return Refusal("illegal.wager", {**params, "row": " ".join(map(codec.format, row))})
    direction = UP if state <= NO_NUMBERS else (state - 1) % 3
    keys = ORDERING_KEYS[pack.ordering]
    return Refusal(keys.get(direction, keys[UP]),
                   {**params, "last": numbers[-1] if numbers else "",
                    "row": " ".join(map(codec.format, row))})


def refusal(pack: RulePack, row: Sequence[Card], card: Card) -> str | None:
    """Why a row holding ``row`` (play order) cannot take ``card`` next; None if it can.

    >>> from lostcities.engine import load_pack
    >>> pack = load_pack("duel-classic"); c = pack.cards
    >>> refusal(pack, [c.parse("r5")], c.parse("r3"))
    'r3 cannot follow r5 on the red row: this pack needs strictly increasing values'
    """
    tables = tables_of(pack)
    codec = tables.codec
    colour = tables.colour_of[card]
    name = pack.colours[colour].name
    state = tables.state_of(row)
    if row and any(tables.colour_of[c] != colour for c in row):
        return f"{codec.format(card)} is not a card of the {name} row"
    if state < 0:
        return "the row is already illegal"
    if tables.accepts(state, card):
        return None
    after = f"{codec.format(card)} cannot follow {codec.format(row[-1])} on the {name} row"
    if tables.is_wager[card]:
        return f"{after}: wagers go before the number cards"
    rule = ORDERING_RULES.get(pack.ordering, f"the {pack.ordering} ordering refuses it")
    direction = NO_NUMBERS if state == NO_NUMBERS else (state - 1) % 3
    return f"{after}: {rule.format(direction=_DIRECTION_WORDS.get(direction, ''))}"


def check_row(pack: RulePack, row: Sequence[Card]) -> tuple[tuple[int, ...], int]:
    """Check one row (cards of one colour in play order); return ``(values, wagers)``.

    Raises :class:`IllegalMoveError` naming the first card the pack's rules refuse.
    """
    tables = tables_of(pack)
    for i, card in enumerate(row):
        reason = refusal(pack, row[:i], card)
        if reason is not None:
            raise IllegalMoveError(reason)
    values = tuple(tables.value_of[c] for c in row if not tables.is_wager[c])
    return values, len(row) - len(values)


def check_copies(pack: RulePack, cards: Iterable[Card]) -> None:
    """Raise :class:`IllegalMoveError` if a card appears more often than the deck holds it."""
    held = Counter(pack.deck())
    codec = pack.cards
    for card, count in Counter(cards).items():
        if count > held[card]:
            times = "once" if held[card] == 1 else f"{held[card]} times"
            raise IllegalMoveError(f"{codec.format(card)} is given {count} times but the "
                                   f"{pack.id} deck holds it {times}")


def group_rows(pack: RulePack, cards: Iterable[Card]) -> list[list[Card]]:
    """Cards grouped into one row per colour (pack colour order), each in the order given."""
    rows: list[list[Card]] = [[] for _ in pack.colours]
    colour_of = pack.cards.colour_of
    for card in cards:
        rows[colour_of[card]].append(card)
    return rows


@dataclass(frozen=True)
class ExpeditionTally:
    """One colour's row as scored: its cards, score and the pack's breakdown columns."""

    colour: int
    cards: tuple[Card, ...]
    score: int
    breakdown: dict[str, int]


@dataclass(frozen=True)
class Tally:
    """One player's rows as scored by the pack: one entry per colour, and the round total."""

    expeditions: tuple[ExpeditionTally, ...]
    total: int

    def as_dict(self, pack: RulePack) -> dict:
        """JSON-ready: colours by name, cards in notation."""
        codec = pack.cards
        return {
            "expeditions": [{"colour": pack.colours[e.colour].name,
                             "cards": [codec.format(c) for c in e.cards],
                             "score": e.score, "breakdown": e.breakdown}
                            for e in self.expeditions],
            "total": self.total,
        }


def tally(pack: RulePack, cards: Sequence[Card]) -> Tally:
    """Score cards laid out in rows: grouped by colour in the order given, each row checked.

    Raises :class:`IllegalMoveError` for a refused card or more copies than the deck
    holds; the total is the pack's round formula over the rows (no pawns, tokens
    or artefacts).
    """
    check_copies(pack, cards)
    scoring = pack.scoring
    rows = []
    entries = []
    for colour, row in enumerate(group_rows(pack, cards)):
        values, wagers = check_row(pack, row)
        rows.append((colour, values, wagers))
        score = scoring.expedition(colour, values, wagers)
        entries.append(ExpeditionTally(colour, tuple(row), score,
                                       scoring.breakdown(colour, values, wagers)))
    total = scoring.round(rows, (), 0, 0, 1).total
    return Tally(tuple(entries), total)
