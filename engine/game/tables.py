"""A rule pack compiled into the flat tables the turn engine runs on.

Built once per pack (:func:`tables_of` caches it on the pack): integer cards,
per-row *row states* and, for every row state, which card slots the row accepts
and the row state after each accepted card. The engine never reads YAML or
compares strings in its hot loop.

A row state encodes what a row's ordering needs to know: ``NO_NUMBERS`` (only
wagers so far, or empty), else ``1 + 3 * (last_slot - 1) + direction`` with the
direction ``UP``, ``DOWN`` or ``OPEN`` (either-direction rows whose number cards
are all equal so far).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from .cards import CardCodec
from .options import (DRAW_PILE_ENDS, NEXT_STARTERS, ORDERINGS, RETAKES, ROW_STARTS, UP,
                      WAGER_TIMES, NextStarter, RowStartRule, discard_keeps, draws_after_discard,
                      next_starter_rule)
from .moves import DECK, DISCARD, PLAY, ActionSpace, Move
from .rules import RulePack, cached_on
from .state import CARD, TRACK_CARD, SetupError
from .tracks import BoardTables, compile_board


#: the row state of a row without number cards (wagers only, or empty); the row rules
#: themselves (ORDERINGS, still importable from here; UP, DOWN, OPEN) are :mod:`.options`'
NO_NUMBERS = 0


def row_state(direction: int, last_slot: int) -> int:
    """The row state of a row whose last number card is in ``last_slot``."""
    return 1 + 3 * (last_slot - 1) + direction


@dataclass(frozen=True)
class Tables:
    """Flat, precomputed facts about one pack's cards and rows."""

    codec: CardCodec
    n_colours: int
    slots: int
    n_kinds: int
    colour_of: tuple[int, ...]
    slot_of: tuple[int, ...]
    value_of: tuple[int, ...]          # a wager's value is 0 here (use is_wager)
    is_wager: tuple[bool, ...]
    #: allowed[row_state] -> one bool per slot: the row accepts a card of that slot
    allowed: tuple[tuple[bool, ...], ...]
    #: after[row_state][slot] -> row state once that card is added (-1: refused)
    after: tuple[tuple[int, ...], ...]
    #: ``rows.start`` compiled (:data:`.options.ROW_STARTS`): ``row_start(slot, held slots)``
    #: says whether a number card may open a row, or None when any may; ``lowest_in_hand``:
    #: there is such a rule (the name of the one rule that has one, kept for its readers)
    lowest_in_hand: bool
    row_start: RowStartRule = field(repr=False, compare=False)
    #: ``turn.retake`` compiled (:data:`.options.RETAKES`): ``discard_keeps[c]``, the discard
    #: piles a player may draw from after discarding a card of colour c (bit mask over
    #: colours); ``retake_own``: every such rule lets that card's own pile be drawn
    discard_keeps: tuple[int, ...]
    retake_own: bool
    #: ``wagers.when`` compiled (:data:`.options.WAGER_TIMES`): a wager may join a row that
    #: holds numbers (``allowed`` says it again, row state by row state)
    wagers_after_numbers: bool
    #: ``rows.ordering`` compiled, for code that follows rows by their last card alone
    #: (envs/vector.py, envs/features.py): every row of numbers goes up (none may go down),
    #: and a row of numbers takes a card equal to its last
    rows_ascend: bool
    equal_follows: bool
    #: ``round_end.draw_pile_empty`` compiled (:data:`.options.DRAW_PILE_ENDS`): once the
    #: draw pile runs out, one more card is played (without a draw) before the round ends
    last_play: bool
    #: ``match.next_starter`` and ``next_starter_tie`` compiled
    #: (:func:`.options.next_starter_rule`): ``next_starter(round scores, totals(), the round's
    #: starter, seats)`` -> the next round's starter
    next_starter: NextStarter = field(repr=False, compare=False)
    turn_cap: int
    hand_size: int
    deck: tuple[int, ...]
    #: ``allowed`` again as bit masks over card kinds (bit k: card k), which the random
    #: move counts and picks from without listing cards: colour_bits[colour] (every card
    #: of the colour) and allowed_bits[row_state][colour] (the cards of the colour a row
    #: in that state accepts)
    colour_bits: tuple[int, ...]
    allowed_bits: tuple[tuple[int, ...], ...]
    #: pile_draws[pile_bits]: the non-empty piles of that mask, by colour (where a turn may
    #: draw besides the deck)
    pile_draws: tuple[tuple[int, ...], ...]
    colours: range
    #: the pack's family, ``duel`` or ``board``: which module plays its turns
    #: (:data:`.turn.FAMILIES`)
    family: str
    #: the kinds of decision a turn asks, as the action space names its ranges (``play``,
    #: ``discard``, ``draw``, then a board pack's ``pawn``, ``advance``, ``decline``): what an
    #: adapter that handles some decisions only checks a pack against
    decisions: tuple[str, ...]
    #: the board game's tracks, pawns and tiles (None in a duel)
    board: Optional["BoardTables"]
    #: the phase a turn starts in: ``state.CARD``, or ``state.TRACK_CARD`` for a board pack
    card_phase: int
    #: what a finished round keeps beyond its scores (the :class:`.state.RoundResult`
    #: fields its family fills): a board's ``crossings``, ``tokens``, ``artefacts`` and
    #: ``pawns``; none in a duel. What a report of a match may read (engine/lab)
    round_facts: tuple[str, ...]
    #: every turn without pawn or steps as a ready, immutable Move, so that the hot loop
    #: builds none: ``moves[action][card][draw]`` (draw a colour index, or DECK = -1, the
    #: last entry) and ``last_moves[action][card]`` (no draw)
    moves: dict[str, tuple[tuple["Move", ...], ...]] = field(repr=False, compare=False)
    last_moves: dict[str, tuple["Move", ...]] = field(repr=False, compare=False)
    #: the ready moves of a card turn by where it may draw, built on first use for each
    #: draw key ``pile_bits << 1 | deck`` by :meth:`turn_moves`; ``legal_moves`` reads it
    #: directly and calls the method only for a key not built yet
    turn_move_table: dict[int, tuple] = field(default_factory=dict, repr=False, compare=False)
    #: the size of the pack's action space (``moves.ActionSpace.num_actions``)
    num_actions: int = 0
    #: how many of a seat's pawns are leaders: pawns ``0 .. leaders-1`` (0 in a duel, which
    #: has no pawns)
    leaders: int = 0
    #: legal_action_mask and legal_actions of a duel's draw decision, built on first use
    #: for each key (:meth:`draw_mask`, :meth:`draw_actions`)
    _draw_masks: dict[int, tuple] = field(default_factory=dict, repr=False, compare=False)

    def after_card(self) -> tuple[tuple[tuple[int, int, int], ...], ...]:
        """``[row_state][card]``: ``(row state once card is added, the cards of its colour
        a row in that state accepts, every other card)`` (bit masks: a seat's
        ``playable_bits`` become ``bits & keeps | accepts``), built on first use (the fused
        playout plays a card with one lookup); ``(-1, 0, -1)`` for a card the row refuses."""
        found = self._draw_masks.get("after_card")
        if found is None:
            out = []
            for rs in range(len(self.after)):
                row = []
                for k in range(self.n_kinds):
                    new, colour = self.after[rs][self.slot_of[k]], self.colour_of[k]
                    row.append((-1, 0, -1) if new < 0 else
                               (new, self.allowed_bits[new][colour], ~self.colour_bits[colour]))
                out.append(tuple(row))
            found = self._draw_masks["after_card"] = tuple(out)
        return found  # type: ignore[return-value]

    def draw_mask(self, pile_bits: int, deck: bool, discarded: int) -> tuple[bool, ...]:
        """The action mask of a duel's draw decision once the card decision is made: the
        non-empty piles ``pile_bits``, cards in the draw pile (``deck``) or not, and
        ``discarded`` the colour just discarded (-1 after a play)."""
        key = ((pile_bits << 1 | deck) * (self.n_colours + 1)) + discarded + 1
        found = self._draw_masks.get(key)
        if found is None:
            mask = [False] * self.num_actions
            draw_deck = 2 * self.n_kinds + 1  # drawing from pile c is action 2 n_kinds + 1 + c
            for d in self.draws(pile_bits, deck, discarded):
                mask[draw_deck + d] = True  # DECK = -1: action 2 n_kinds
            found = self._draw_masks[key] = tuple(mask)
        return found

    def draw_actions(self, pile_bits: int, deck: bool, discarded: int) -> tuple[int, ...]:
        """The legal action ids of that draw decision (see :meth:`draw_mask`), in order."""
        key = -1 - (((pile_bits << 1 | deck) * (self.n_colours + 1)) + discarded + 1)
        found = self._draw_masks.get(key)
        if found is None:
            mask = self.draw_mask(pile_bits, deck, discarded)
            found = self._draw_masks[key] = tuple(a for a, ok in enumerate(mask) if ok)
        return found  # type: ignore[return-value]

    def turn_moves(self, pile_bits: int, deck: bool) -> tuple[tuple[tuple["Move", ...], ...],
                                                              tuple[tuple["Move", ...], ...]]:
        """``(plays, discards)``: for each card kind, the whole turns playing / discarding
        it then drawing, in the order of ``legal_moves``, when the non-empty piles are
        ``pile_bits`` and the draw pile holds cards (``deck``) or not."""
        key = pile_bits << 1 | deck
        found = self.turn_move_table.get(key)
        if found is None:
            base = self.draws(pile_bits, deck, -1)
            plays = tuple(tuple(self.moves[PLAY][k][d] for d in base)
                          for k in range(self.n_kinds))
            discards = tuple(tuple(self.moves[DISCARD][k][d]
                                   for d in self.draws(pile_bits, deck, self.colour_of[k]))
                             for k in range(self.n_kinds))
            found = self.turn_move_table[key] = (plays, discards)
        return found

    def draws(self, pile_bits: int, deck: bool, discarded: int) -> list[int]:
        """Where a turn may draw when the non-empty piles are ``pile_bits`` and the draw
        pile holds cards (``deck``) or not: the draw pile (``DECK``) first, then the piles by
        colour, once a card of colour ``discarded`` is discarded (-1: after a play) as the
        pack's ``turn.retake`` allows (:func:`.options.draws_after_discard`)."""
        base = ([DECK] if deck else []) + list(self.pile_draws[pile_bits])
        if discarded < 0:
            return base
        return draws_after_discard(base, discarded, self.discard_keeps[discarded])

    def move(self, action: str, card: int, draw: Optional[int]) -> "Move":
        """The ready :class:`Move` of ``action`` ``card`` then ``draw`` (None: no draw)."""
        if draw is None:
            return self.last_moves[action][card]
        return self.moves[action][card][draw]

    def accepts(self, row_state_: int, card: int) -> bool:
        """Whether a row in ``row_state_`` accepts ``card`` by the ordering and wager rules."""
        return self.allowed[row_state_][self.slot_of[card]]

    def state_of(self, row: Sequence[int]) -> int:
        """The row state of a row holding ``row`` (cards in play order); -1 if illegal."""
        rs = NO_NUMBERS
        for card in row:
            rs = self.after[rs][self.slot_of[card]]
            if rs < 0:
                return -1
        return rs


def compile_tables(pack: RulePack) -> Tables:
    """Compile ``pack`` into :class:`Tables` (prefer :func:`tables_of`, which caches)."""
    step = ORDERINGS.get(pack.ordering)
    if step is None:
        raise SetupError(f"{pack.id}: unknown row ordering {pack.ordering!r}; "
                         f"expected one of {', '.join(ORDERINGS)}")
    for setting, value, registry in (
            ("turn.retake", pack.retake, RETAKES), ("wagers.when", pack.wagers_when, WAGER_TIMES),
            ("rows.start", pack.row_start, ROW_STARTS),
            ("round_end.draw_pile_empty", pack.draw_pile_empty, DRAW_PILE_ENDS),
            ("match.next_starter", pack.next_starter, NEXT_STARTERS),
            ("match.next_starter_tie", pack.next_starter_tie, NEXT_STARTERS)):
        if value not in registry:
            raise SetupError(f"{pack.id}: unknown {setting} {value!r}; expected one of "
                             f"{', '.join(registry)}")
    codec = pack.cards
    keeps = discard_keeps(pack.retake, codec.n_colours)
    slots = codec.slots
    n_states = 1 + 3 * (slots - 1)
    allowed: list[tuple[bool, ...]] = []
    after: list[tuple[int, ...]] = []
    for rs in range(n_states):
        if rs == NO_NUMBERS:
            direction, last = None, 0
        else:
            direction, last = (rs - 1) % 3, (rs - 1) // 3 + 1
        ok_row: list[bool] = []
        next_row: list[int] = []
        for slot in range(slots):
            if slot == 0:  # a wager: never changes the ordering
                ok = direction is None or WAGER_TIMES[pack.wagers_when]
                ok_row.append(ok)
                next_row.append(rs if ok else -1)
                continue
            moved = step(direction, last, slot)
            ok_row.append(moved is not None)
            next_row.append(-1 if moved is None else row_state(*moved))
        allowed.append(tuple(ok_row))
        after.append(tuple(next_row))
    slot_of = tuple(k % slots for k in range(codec.n_kinds))
    allowed_bits = tuple(tuple(sum(1 << (c * slots + s) for s in range(slots) if ok[s])
                               for c in range(codec.n_colours)) for ok in allowed)
    draws = [*range(codec.n_colours), DECK]  # DECK = -1 indexes the last entry
    moves = {a: tuple(tuple(Move(a, k, d, codec=codec) for d in draws)
                      for k in range(codec.n_kinds)) for a in (PLAY, DISCARD)}
    last_moves = {a: tuple(Move(a, k, None, codec=codec) for k in range(codec.n_kinds))
                  for a in (PLAY, DISCARD)}
    space = ActionSpace(pack)
    return Tables(
        codec=codec,
        n_colours=codec.n_colours,
        slots=slots,
        n_kinds=codec.n_kinds,
        colour_of=codec.colour_of,
        slot_of=slot_of,
        value_of=tuple(v or 0 for v in codec.value_of),
        is_wager=tuple(v is None for v in codec.value_of),
        allowed=tuple(allowed),
        after=tuple(after),
        lowest_in_hand=ROW_STARTS[pack.row_start] is not None,
        row_start=ROW_STARTS[pack.row_start],
        discard_keeps=keeps,
        retake_own=all(bits >> c & 1 for c, bits in enumerate(keeps)),
        wagers_after_numbers=WAGER_TIMES[pack.wagers_when],
        rows_ascend=all(after[NO_NUMBERS][s] < 0 or (after[NO_NUMBERS][s] - 1) % 3 == UP
                        for s in range(1, slots)),
        equal_follows=all(allowed[row_state(UP, s)][s] for s in range(1, slots)),
        last_play=DRAW_PILE_ENDS[pack.draw_pile_empty],
        next_starter=next_starter_rule(pack.next_starter, pack.next_starter_tie),
        turn_cap=pack.turn_cap,
        hand_size=pack.hand_size,
        deck=tuple(pack.deck()),
        colour_bits=tuple(((1 << slots) - 1) << (c * slots) for c in range(codec.n_colours)),
        allowed_bits=allowed_bits,
        pile_draws=tuple(tuple(c for c in range(codec.n_colours) if bits >> c & 1)
                         for bits in range(1 << codec.n_colours)),
        colours=range(codec.n_colours),
        family=pack.family,
        decisions=tuple(name for name, ids in space.ranges.items() if ids),
        board=None if pack.board is None else compile_board(pack),
        card_phase=CARD if pack.board is None else TRACK_CARD,
        round_facts=ROUND_FACTS[pack.family],
        moves=moves,
        last_moves=last_moves,
        num_actions=space.num_actions,
        leaders=0 if pack.board is None else pack.board.leaders,
    )


#: :attr:`Tables.round_facts` by the pack's family
ROUND_FACTS: dict[str, tuple[str, ...]] = {
    "duel": (), "board": ("crossings", "tokens", "artefacts", "pawns")}


def tables_of(pack: RulePack) -> Tables:
    """The pack's compiled tables, built on first use and kept on the pack."""
    return cached_on(pack, "_tables", compile_tables)
