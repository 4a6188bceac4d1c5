"""Types, scopes, limits and error codes of the scoring language.

A value is an integer, a boolean, a record (one expedition or pawn, with named
fields) or a collection of one of those. Each scope (``expedition``, ``pawn``,
``round``, ``match``) declares its fields; formulas are checked against them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

#: longest formula text, in characters
MAX_LENGTH = 2000
#: deepest nesting of the formula's syntax tree (and of brackets)
MAX_DEPTH = 32
#: deepest nesting of aggregates (sum(... for ...) inside another one)
MAX_AGGREGATE_NESTING = 3
#: largest magnitude of an integer literal, constant, table entry or formula result
MAX_INT = 10**12

# Stable error codes of the scoring language (docs/scoring-dsl.md, "Errors").
SYNTAX = "LC101"
UNKNOWN = "LC102"
TYPE = "LC103"
LIMIT = "LC104"
DIVISION = "LC105"
INDEX = "LC106"
MISSING = "LC107"
CLASH = "LC108"
COST = "LC109"

INT = "int"
BOOL = "bool"


@dataclass(frozen=True)
class Coll:
    """A collection whose elements all have type ``elem``."""

    elem: "Type"


@dataclass(frozen=True)
class Record:
    """One expedition or pawn seen from the round scope: named fields, in slot order."""

    kind: str
    fields: tuple[tuple[str, "Type"], ...]

    def index(self, name: str) -> int | None:
        """The position of field ``name`` in the record's tuple, or None."""
        for i, (field, _) in enumerate(self.fields):
            if field == name:
                return i
        return None

    def type_of(self, name: str) -> "Type":
        return self.fields[self.index(name)][1]  # type: ignore[index]


Type = Union[str, Coll, Record]


def describe(t: Type) -> str:
    """``an integer``, ``a collection of expeditions``... for error messages."""
    if t == INT:
        return "an integer"
    if t == BOOL:
        return "a boolean"
    if isinstance(t, Record):
        return f"an {t.kind}" if t.kind[0] in "aeiou" else f"a {t.kind}"
    assert isinstance(t, Coll)
    elem = t.elem
    if elem == INT:
        return "a collection of integers"
    if elem == BOOL:
        return "a collection of booleans"
    if isinstance(elem, Record):
        return f"a collection of {elem.kind}s"
    return "a collection of collections"


# The fields of each scope, in frame-slot order, with what they mean.
EXPEDITION_FIELDS: tuple[tuple[str, Type, str], ...] = (
    ("colour", INT, "the colour's index in the pack's colour list (0 = first)"),
    ("values", Coll(INT), "the number cards' values, in play order"),
    ("wagers", INT, "how many wager cards the row holds"),
    ("numbers", INT, "how many number cards the row holds"),
    ("cards", INT, "how many cards the row holds, wagers included"),
    ("points", INT, "the sum of the number cards' values"),
)
PAWN_FIELDS: tuple[tuple[str, Type, str], ...] = (
    ("track", INT, "the track's (colour's) index"),
    ("space", INT, "the space the pawn stands on; 0 = the centre (not engaged)"),
    ("leader", BOOL, "whether the pawn is the player's leader"),
    ("engaged", BOOL, "whether the pawn left the centre (space > 0)"),
)
SCORE_DOC = "the score of this row/pawn by the pack's own formula"

SCOPES = ("expedition", "pawn", "round", "match")


def record_type(kind: str, scored: bool) -> Record:
    """The record of one expedition/pawn in the round scope (``score`` if it has a formula)."""
    base = EXPEDITION_FIELDS if kind == "expedition" else PAWN_FIELDS
    fields = tuple((name, t) for name, t, _ in base)
    if scored:
        fields += (("score", INT),)
    return Record(kind, fields)


def scope_fields(scope: str, scored: frozenset[str] = frozenset(SCOPES)
                 ) -> tuple[tuple[str, Type, str], ...]:
    """The fields of ``scope`` in slot order: ``(name, type, meaning)``.

    ``scored`` names the scopes that have a formula: a round's records carry a
    ``score`` field only when their own formula exists.
    """
    if scope == "expedition":
        return EXPEDITION_FIELDS
    if scope == "pawn":
        return PAWN_FIELDS
    if scope == "round":
        return (
            ("expeditions", Coll(record_type("expedition", "expedition" in scored)),
             "the player's rows, one record per colour (fields: the expedition scope's, + score)"),
            ("pawns", Coll(record_type("pawn", "pawn" in scored)),
             "the player's pawns (fields: the pawn scope's, + score)"),
            ("tokens", INT, "victory points from tiles taken this round"),
            ("artefacts", INT, "artefacts taken this round"),
            ("round", INT, "the round's number, from 1"),
        )
    if scope == "match":
        return (
            ("rounds", Coll(INT), "the player's round scores, in order"),
            ("artefacts", INT, "artefacts held at the end of the match"),
            ("tokens", INT, "all victory-point tokens of the match"),
        )
    raise ValueError(f"unknown scope {scope!r}; the scopes are {', '.join(SCOPES)}")


#: functions callable with plain arguments: name -> (min args, max args or None)
FUNCTIONS = {"min": (2, None), "max": (2, None), "abs": (1, 1)}
#: aggregates over a collection: sum(x for x in c where ...), or sum(c)
AGGREGATES = ("sum", "count", "min", "max", "any", "all")
KEYWORDS = ("if", "then", "else", "let", "in", "for", "where", "and", "or", "not",
            "true", "false")


def all_field_names() -> frozenset[str]:
    """Every field name of every scope (a constant may not reuse one)."""
    names = {"score"}
    for scope in SCOPES:
        names.update(name for name, _, _ in scope_fields(scope))
    return frozenset(names)
