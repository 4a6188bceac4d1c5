"""Cards and their text notation.

A card is a small integer, its *kind*: ``colour * slots + slot`` where slot 0 is
the wager of that colour and slot ``1 + (value - min_value)`` a number card.
Copies of the same card share a kind (hands are multisets of kinds).

The notation is the colour's key letter then the value, or ``x`` for a wager:
``r5``, ``b10``, ``g0``, ``rx``; case-insensitive on input, lower-case on output.
"""
from __future__ import annotations

from typing import Sequence, TypeAlias

from ..errors import InvalidMoveError
from ..safeio import shown_value

Card: TypeAlias = int
"""A card kind: ``colour * slots + slot`` (see module doc)."""
Colour: TypeAlias = int
"""A colour index, in the pack's colour order."""

WAGER = "x"


class CardCodec:
    """Encodes cards of one pack as integers and reads/writes their notation."""

    __slots__ = ("keys", "min_value", "max_value", "slots", "n_colours", "n_kinds",
                 "_by_text", "_text", "colour_of", "value_of")

    def __init__(self, keys: Sequence[str], min_value: int, max_value: int,
                 wagers: bool = True):
        self.keys = tuple(k.lower() for k in keys)
        self.min_value = min_value
        self.max_value = max_value
        self.slots = 1 + (max_value - min_value + 1)
        self.n_colours = len(self.keys)
        self.n_kinds = self.n_colours * self.slots
        self._text: list[str] = []
        self._by_text: dict[str, Card] = {}
        #: colour_of[card] -> colour index; value_of[card] -> value, or None for a wager
        self.colour_of: tuple[int, ...] = tuple(c // self.slots for c in range(self.n_kinds))
        self.value_of: tuple[int | None, ...] = tuple(
            None if c % self.slots == 0 else min_value + c % self.slots - 1
            for c in range(self.n_kinds))
        for card in range(self.n_kinds):
            v = self.value_of[card]
            text = self.keys[self.colour_of[card]] + (WAGER if v is None else str(v))
            self._text.append(text)
            if v is not None or wagers:
                self._by_text[text] = card

    def card(self, colour: Colour, value: int | None) -> Card:
        """The card of ``colour`` with ``value`` (None for a wager)."""
        if value is None:
            return colour * self.slots
        return colour * self.slots + 1 + value - self.min_value

    def is_wager(self, card: Card) -> bool:
        return card % self.slots == 0

    def format(self, card: Card) -> str:
        """``r5``, ``rx``."""
        return self._text[card]

    def parse(self, text: str) -> Card:
        """Read one card in the notation; raise :class:`InvalidMoveError` naming it."""
        t = text.strip().lower()
        card = self._by_text.get(t)
        if card is not None:
            return card
        if not t:
            raise InvalidMoveError("empty card: write a colour key then a value, e.g. r5 or rx")
        key, rest = t[0], t[1:]
        if key not in self.keys:
            raise InvalidMoveError(f"{shown_value(text)}: unknown colour {key!r}; this pack's "
                                   f"colours are {', '.join(self.keys)}")
        if rest == WAGER:
            raise InvalidMoveError(f"{shown_value(text)}: this pack has no wager cards")
        if not rest.isdigit():
            raise InvalidMoveError(f"{shown_value(text)}: expected a value {self.min_value}-"
                                   f"{self.max_value} or x after {key!r}")
        value = rest if len(rest) <= 40 else shown_value(rest)
        raise InvalidMoveError(f"{shown_value(text)}: value {value} is outside "
                               f"{self.min_value}-{self.max_value}")

    def sort_key(self, card: Card) -> tuple[int, int]:
        """Sort by colour, wagers first, then by value."""
        return (self.colour_of[card], card % self.slots)
