"""The rule options a pack names, each written once: the pack says a name, this module says
what the name means, and :mod:`.tables` compiles the meaning into the flat facts the turn
engine, the bots and the adapters read (they never compare a pack's strings;
tests/test_architecture.py checks that no module outside this one compares a setting with
a registry's names).

* ``rows.ordering`` (:data:`ORDERINGS`): which number cards a row accepts after its last;
* ``turn.retake`` (:data:`RETAKES`): which discard piles a player may draw from after
  discarding;
* ``wagers.when`` (:data:`WAGER_TIMES`): whether a wager may join a row that holds numbers;
* ``rows.start`` (:data:`ROW_STARTS`): which number card may open a row;
* ``round_end.draw_pile_empty`` (:data:`DRAW_PILE_ENDS`): whether the round ends when the
  draw pile runs out, or after one more card;
* ``match.next_starter`` and ``next_starter_tie`` (:data:`NEXT_STARTERS`): who starts the
  next round (:func:`next_starter_rule` chains them);
* ``board.tiles[].kind`` (:data:`TILE_KINDS`): what an event tile does.

Adding a value to one of them is one entry here, its rulebook sentence (i18n/rules_*.json),
its schema enum (rulepacks/pack.schema.json), its docs and tests: docs/architecture.md,
"Adding a rule option", walks through it. A new option gets its registry here and a fact
on :class:`.tables.Tables`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

#: a row's direction once it has number cards (part of a row state: :mod:`.tables`)
UP, DOWN, OPEN = 0, 1, 2

# --------------------------------------------------------------------------- rows.ordering

#: ordering step: (direction or None if the row has no number yet, last slot, slot)
#: -> (new direction, new last slot), or None if the row refuses that slot
OrderingStep = Callable[[Optional[int], int, int], Optional[tuple[int, int]]]


def _strict(direction: int | None, last: int, slot: int) -> tuple[int, int] | None:
    return (UP, slot) if direction is None or slot > last else None


def _non_decreasing(direction: int | None, last: int, slot: int) -> tuple[int, int] | None:
    return (UP, slot) if direction is None or slot >= last else None


def _either_direction(direction: int | None, last: int, slot: int) -> tuple[int, int] | None:
    if direction is None:
        return (OPEN, slot)
    if direction == OPEN:
        if slot == last:
            return (OPEN, slot)
        return (UP if slot > last else DOWN, slot)
    if direction == UP:
        return (UP, slot) if slot >= last else None
    return (DOWN, slot) if slot <= last else None


#: the pack's ``rows.ordering`` names the strategy
ORDERINGS: dict[str, OrderingStep] = {
    "strict": _strict,
    "non-decreasing": _non_decreasing,
    "either-direction": _either_direction,
}



def takes_equal(ordering: str) -> bool:
    """Whether a row under ``ordering`` takes a number card equal to its last one (so that
    several copies of a value may join one row); raises KeyError for a name that is no rule."""
    step = ORDERINGS[ordering]
    direction, last = step(None, 0, 1) or (UP, 1)
    return step(direction, last, 1) is not None

# --------------------------------------------------------------------------- turn.retake

#: a retake rule: (the colour of the card just discarded, how many colours) -> the discard
#: piles the player may then draw from, as a bit mask over colours (bit c: pile c; the
#: discarded card's own pile is bit ``colour``). The draw pile is always allowed, and a
#: pile must hold a card (the discarded card's own pile always does).
RetakeRule = Callable[[int, int], int]

RETAKES: dict[str, RetakeRule] = {
    # 001: "la carte du dessus d'une des défausses", nothing forbidden
    "any": lambda colour, n_colours: (1 << n_colours) - 1,
    # 004: never take back the card just discarded
    "not-the-same-card": lambda colour, n_colours: ((1 << n_colours) - 1) ^ (1 << colour),
    # a house rule: after discarding, draw from the draw pile only
    "no-discard-pile": lambda colour, n_colours: 0,
}

#: the old spelling ``turn.no_retake_discard`` (a bool) -> its ``turn.retake`` name
RETAKE_OF_BOOL = {True: "not-the-same-card", False: "any"}


def discard_keeps(retake: str, n_colours: int) -> tuple[int, ...]:
    """``retake``'s piles by colour discarded (see :data:`RetakeRule`); raises KeyError for
    a name that is no rule."""
    rule = RETAKES[retake]
    return tuple(rule(colour, n_colours) for colour in range(n_colours))


def draws_after_discard(base: Sequence[int], colour: int, keeps: int) -> list[int]:
    """Where a player may draw after discarding a card of ``colour``: of ``base`` (the draw
    pile ``-1`` first, then the non-empty piles by colour, as before the discard) those the
    rule ``keeps`` (a mask from :data:`RETAKES`), and the discarded card's own pile when it
    keeps that one, in the same order."""
    out = [d for d in base if d < 0 or keeps >> d & 1]
    if keeps >> colour & 1 and colour not in out:
        out.append(colour)
        out.sort()
    return out

# --------------------------------------------------------------------------- wagers.when

#: ``wagers.when`` -> whether a wager may join a row that already holds number cards (it
#: multiplies the whole row wherever it lies: the scoring counts a row's wagers)
WAGER_TIMES: dict[str, bool] = {
    # 000: "à condition que cette Expédition ne contienne encore aucune carte Expédition"
    "before-numbers": False,
    "any-time": True,          # a house rule
}

#: the old spelling ``rows.wagers_before_numbers`` (a bool) -> its ``wagers.when`` name
WAGER_TIME_OF_BOOL = {True: "before-numbers", False: "any-time"}

# --------------------------------------------------------------------------- rows.start

#: a row-start rule: (the slot of the number card that would open a row, the slots of the
#: number cards of that colour in the player's hand) -> whether it may open the row; None
#: for a rule that lets any card open a row (the hand is then never looked at)
RowStartRule = Optional[Callable[[int, Iterable[int]], bool]]

ROW_STARTS: dict[str, RowStartRule] = {
    "any": None,
    # a house rule: a row's first number card is the lowest of its colour in hand
    "lowest-in-hand": lambda slot, held: all(s >= slot for s in held),
}

# --------------------------------------------------------------------------- round_end

#: ``round_end.draw_pile_empty`` -> whether, once a turn draws the last card of the draw
#: pile, the next player still plays one card (without a draw) before the round ends
DRAW_PILE_ENDS: dict[str, bool] = {
    "immediately": False,      # 000: the round ends when the last card is drawn
    "after-last-play": True,
}

# --------------------------------------------------------------------------- match.next_starter


@dataclass(frozen=True)
class StarterRule:
    """A rule choosing the next round's starter (``match.next_starter`` and its tie rule).

    ``keep(seats, round_scores, totals, prev, n)``: of the candidate ``seats`` (a non-empty
    list, in seating order), those the rule keeps (never none); ``round_scores`` the round
    just played's scores by seat, ``totals()`` the match totals so far (asked only by a rule
    that needs them), ``prev`` the starter of the round just played, ``n`` the seats.
    ``ties``: the rule may keep several seats (a tie the ``next_starter_tie`` rule breaks)."""

    keep: Callable[[list[int], Sequence[int], Callable[[], Sequence[int]], int, int], list[int]]
    ties: bool


def _best(seats: list[int], score: Sequence[int]) -> list[int]:
    best = max(score[p] for p in seats)
    return [p for p in seats if score[p] == best]


def _after(seats: list[int], prev: int, n: int) -> list[int]:
    """The first of ``seats`` after ``prev`` in seating order."""
    return [min(seats, key=lambda p: (p - prev - 1) % n)]


NEXT_STARTERS: dict[str, StarterRule] = {
    "best-round-score": StarterRule(lambda seats, last, totals, prev, n: _best(seats, last),
                                    ties=True),
    "best-total": StarterRule(lambda seats, last, totals, prev, n: _best(seats, totals()),
                              ties=True),
    "alternate": StarterRule(lambda seats, last, totals, prev, n: _after(seats, prev, n),
                             ties=False),
    "same": StarterRule(lambda seats, last, totals, prev, n:
                        [prev] if prev in seats else _after(seats, prev, n), ties=False),
}

#: what breaks a tie the ``next_starter_tie`` rule leaves (at two players: the other player)
LAST_TIE_BREAK = "alternate"

#: the compiled rule: (the round just played's scores, totals(), its starter, seats) -> the
#: next round's starter
NextStarter = Callable[[Sequence[int], Callable[[], Sequence[int]], int, int], int]


def next_starter_rule(rule: str, tie: str) -> NextStarter:
    """``match.next_starter`` ``rule`` and ``next_starter_tie`` ``tie`` as one function:
    ``rule`` picks among every seat, ``tie`` among the seats it leaves tied, then
    :data:`LAST_TIE_BREAK`; raises KeyError for a name that is no rule."""
    keeps = tuple(NEXT_STARTERS[name].keep for name in (rule, tie, LAST_TIE_BREAK))

    def next_starter(last: Sequence[int], totals: Callable[[], Sequence[int]], prev: int,
                     n: int) -> int:
        seats = list(range(n))
        for keep in keeps:
            seats = keep(seats, last, totals, prev, n)
            if len(seats) == 1:
                break
        return seats[0]
    return next_starter

# --------------------------------------------------------------------------- board.tiles


@dataclass(frozen=True)
class TileKind:
    """What an event tile of the board game does when a pawn reaches its space:
    ``effect`` (:data:`ARTEFACT`, :data:`POINTS` or :data:`STEP`: :mod:`.board` applies
    it), and whether the tile carries a ``value`` (the points it is worth)."""

    effect: int
    valued: bool


ARTEFACT, POINTS, STEP = 0, 1, 2

#: the pack's ``board.tiles[].kind`` names the tile
TILE_KINDS: dict[str, TileKind] = {
    "artefact": TileKind(ARTEFACT, valued=False),   # 001: an artefact, 5 points at match end
    "points": TileKind(POINTS, valued=True),        # 001: a victory-point token
    "step": TileKind(STEP, valued=False),           # 001: the pawn advances one more space
}



def tile_has_value(kind: object) -> bool:
    """Whether a tile of ``kind`` carries a value (False for a name that is no tile kind)."""
    found = TILE_KINDS.get(kind) if isinstance(kind, str) else None
    return found is not None and found.valued

# --------------------------------------------------------------------------- old spellings

#: settings that had a boolean spelling in lostcities 0.1: (old section, old key, bool ->
#: name, new section, new key). The loader reads the old words file by file; a record keeps
#: writing its pack in them whenever they can say it (:func:`in_old_words`)
OLD_SPELLINGS = (("rows", "wagers_before_numbers", WAGER_TIME_OF_BOOL, "wagers", "when"),
                 ("turn", "no_retake_discard", RETAKE_OF_BOOL, "turn", "retake"))


def in_old_words(data: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    """A resolved pack's data (defaults filled) with each setting of :data:`OLD_SPELLINGS`
    said in its 0.1 words, as a pack resolved then read: the form whose SHA-256 records
    claim, so that records written before the new words still name the same rules, and the
    same seeds still write the same bytes. None when a value has no old words
    (``retake: no-discard-pile``)."""
    out = dict(data)
    for section, old, of_bool, new_section, new in OLD_SPELLINGS:
        part = out.get(new_section)
        if not isinstance(part, dict) or new not in part:
            continue
        value = next((b for b, name in of_bool.items() if name == part[new]), None)
        if value is None:
            return None
        if new_section == section:  # the old key where the new one stands
            out[section] = {(old if k == new else k): (value if k == new else v)
                            for k, v in part.items()}
            continue
        rest = {k: v for k, v in part.items() if k != new}
        if rest:
            out[new_section] = rest
        else:
            del out[new_section]
        # the old key at its place in 0.1's files and schema: after the section's first key
        items = list(out.get(section, {}).items())
        out[section] = dict(items[:1] + [(old, value)] + items[1:])
    return out
