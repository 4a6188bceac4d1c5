"""The state of a match: plain data, operated on by :mod:`lostcities.engine.game.turn`.

Cards are integer kinds (:mod:`lostcities.engine.game.cards`). Everything that
changes during a round lives in flat lists so that a turn is a handful of list
operations; :meth:`GameState.copy` gives the independent copy that the pure
:func:`~lostcities.engine.game.turn.apply` works on (each seat's rows copied on write: a turn
copies only the rows of the player who plays).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from .cards import Card
from ..errors import LostCitiesError
from .moves import Action, Move
from .rules import RulePack

if TYPE_CHECKING:
    from .tables import Tables

Seat = int
"""A player's index, 0-based, in seating order."""

# phases of a turn: which decision comes next
CARD, DRAW, OVER = 0, 1, 2
#: the board game's (engine/game/board.py): its card decision, the pawn sent to start a row,
#: the pawn a step tile or a finished track advances; its draw is DRAW
TRACK_CARD, PAWN, ADVANCE = 3, 4, 5
PHASE_NAMES = ("card", "draw", "over", "card", "pawn", "advance")

DRAW_PILE_EMPTY = "draw-pile-empty"
TURN_CAP = "turn-cap"
BRIDGE_CROSSINGS = "bridge-crossings"
END_REASONS = (DRAW_PILE_EMPTY, TURN_CAP, BRIDGE_CROSSINGS)

#: bits of :attr:`GameState.shared_lists`: the draw pile, the round's moves are shared
DECK_SHARED, MOVES_SHARED = 1, 2
#: more bits of it: the outer lists a fork shares too, ``hands`` with ``held_bits``
#: (:data:`HANDS_SHARED`), ``rows``, ``row_states``, ``playable`` with ``playable_bits``
#: (:data:`SEATS_SHARED`), ``piles`` (:data:`PILES_SHARED`)
HANDS_SHARED, SEATS_SHARED, PILES_SHARED = 4, 8, 16
#: every bit of :attr:`GameState.shared_lists`
ALL_SHARED = DECK_SHARED | MOVES_SHARED | HANDS_SHARED | SEATS_SHARED | PILES_SHARED


class SetupError(LostCitiesError, ValueError):
    """A game cannot be set up: players out of range, an impossible deal or tile layout."""


TilePlace = tuple[int, int, str, int]
"""An event tile on the board: ``(track, space, kind, value)``; value 0 unless ``points``."""


@dataclass(frozen=True)
class Deal:
    """How one round was dealt: each hand, the draw pile (top first), the removed cards
    and, for a board pack, the event tiles laid out on the tracks (``None`` in a duel)."""

    hands: tuple[tuple[Card, ...], ...]
    draw_pile: tuple[Card, ...]
    removed: tuple[Card, ...] = ()
    tiles: Optional[tuple[TilePlace, ...]] = None


@dataclass(frozen=True)
class RoundResult:
    """A finished round: its deal, turns, per-player round scores and why it ended."""

    number: int                       # 1-based
    starter: Seat
    deal: Deal
    moves: tuple[Move, ...]
    scores: tuple[int, ...]
    end: str
    details: tuple[Any, ...] = ()     # the Scoring's RoundScore per player (display)
    #: board game, per seat: victory-point tokens and artefacts taken this round, and
    #: where the pawns stood at the end, ``(track, space, leader)`` (track -1: centre)
    tokens: tuple[int, ...] = ()
    artefacts: tuple[int, ...] = ()
    pawns: tuple[tuple[tuple[int, int, bool], ...], ...] = ()
    crossings: int = 0                # bridge crossings this round


class GameState:
    """A match in progress. Treat as read-only outside the engine; see docs/api.md.

    Attributes read by callers: ``pack``, ``players`` (labels), ``seed``,
    ``round`` (1-based), ``to_move``, ``phase``, ``turn`` (turns played this
    round), ``finished`` (the :class:`RoundResult` of every finished round).
    A board pack's state also has ``board`` (:class:`~.board.Board`: pawns, tiles,
    crossings, tokens, artefacts); it is ``None`` in a duel.
    """

    __slots__ = ("pack", "tables", "players", "n", "seed", "deals", "round", "rounds_total",
                 "starter", "to_move", "phase", "turn", "hands", "rows", "row_states",
                 "playable", "piles", "deck", "deal", "last_play", "pending", "moves",
                 "finished", "undo", "board", "held_bits", "playable_bits", "pile_bits",
                 "shared_seats", "shared_hands", "shared_piles", "shared_lists")

    pack: RulePack
    tables: Tables
    players: tuple[str, ...]
    n: int
    seed: int
    deals: Optional[tuple[Deal, ...]]     # given deals (replays, scripted tests) by round
    round: int
    rounds_total: int                     # pack.rounds plus rounds added by continuation
    starter: Seat
    to_move: Seat
    phase: int
    turn: int
    hands: list[list[Card]]
    rows: list[list[list[Card]]]          # rows[seat][colour]: cards in play order
    row_states: list[list[int]]           # row_states[seat][colour] (see tables.py)
    playable: list[list[bool]]            # playable[seat][card]: the row accepts it
    piles: list[list[Card]]               # piles[colour]: bottom first
    deck: list[Card]                      # the draw pile, top LAST (list.pop draws)
    deal: Deal
    last_play: bool                       # the pile ran out: this turn has no draw
    pending: Optional[tuple[Action, Card]]  # the card decision made, before the draw
    moves: list[Move]                     # this round's turns
    finished: list[RoundResult]
    undo: list[tuple]
    board: Any                            # a board.Board for board packs, else None
    #: hands, playable and piles again as bit masks, kept in step by the engine (see
    #: turn.derive): held_bits[seat] has bit k while the seat holds a card k,
    #: playable_bits[seat] bit k while its row accepts k, pile_bits bit c while pile c
    #: is not empty
    held_bits: list[int]
    playable_bits: list[int]
    pile_bits: int
    #: bit p while seat p's rows (each row's list), row states and playable list are shared
    #: with a copy of this state (copy-on-write: the engine calls :meth:`own_seat` before
    #: it changes them)
    shared_seats: int
    #: the same for the other lists a turn changes: bit p of ``shared_hands`` while
    #: ``hands[p]`` is shared, bit c of ``shared_piles`` while ``piles[c]`` is, and
    #: :data:`DECK_SHARED`, :data:`MOVES_SHARED` in ``shared_lists`` for ``deck`` and
    #: ``moves``; :data:`HANDS_SHARED`, :data:`SEATS_SHARED`, :data:`PILES_SHARED` while
    #: the outer lists themselves are shared (only :meth:`fork` shares them, and it marks
    #: every inner list shared too: an inner list is this state's own only when its outer
    #: list is; the engine calls :meth:`own_hand`, :meth:`own_seat`, :meth:`own_pile`,
    #: :meth:`own_deck`, :meth:`own_moves` before it changes them). A bit may be set for a
    #: list that is in fact this state's own (a copy made too many is harmless); never the
    #: other way round. ``finished`` is never changed in place (a round's end makes a new
    #: list), so it is shared freely.
    shared_hands: int
    shared_piles: int
    shared_lists: int

    @staticmethod
    def first(pack: RulePack, tables: "Tables", players: tuple[str, ...], seed: int,
              deals: Optional[tuple[Deal, ...]]) -> "GameState":
        """A match's state before its first round is dealt (:func:`~.turn.new_game` deals
        it): the fields that live the whole match, the round's own lists to come."""
        state = GameState.__new__(GameState)
        (state.pack, state.tables, state.players, state.n, state.seed, state.deals,
         state.rounds_total, state.finished, state.undo, state.board) = (
            pack, tables, players, len(players), seed, deals, pack.rounds, [], [], None)
        return state

    def fork(self) -> "GameState":
        """A copy that shares every list with this state, copy-on-write (the outer lists
        too), so that it costs a few attribute copies; either state copies a list before it
        changes it. The one place a state is copied: :meth:`copy`, :func:`~.turn.apply`'s
        and :func:`~.turn.step`'s new states all start here, then build the lists they
        change (and clear their bits of the ``shared_*`` fields)."""
        new = GameState.__new__(GameState)
        (new.pack, new.tables, new.players, new.n, new.seed, new.deals, new.round,
         new.rounds_total, new.starter, new.to_move, new.phase, new.turn, new.deal,
         new.last_play, new.pending, new.pile_bits, new.deck, new.moves, new.hands, new.rows,
         new.row_states, new.playable, new.piles, new.finished, new.held_bits,
         new.playable_bits) = (
            self.pack, self.tables, self.players, self.n, self.seed, self.deals, self.round,
            self.rounds_total, self.starter, self.to_move, self.phase, self.turn, self.deal,
            self.last_play, self.pending, self.pile_bits, self.deck, self.moves, self.hands,
            self.rows, self.row_states, self.playable, self.piles, self.finished,
            self.held_bits, self.playable_bits)
        new.undo = []
        new.board = None if self.board is None else self.board.copy()
        new.shared_seats = self.shared_seats = new.shared_hands = self.shared_hands = \
            (1 << self.n) - 1
        new.shared_piles = self.shared_piles = (1 << len(self.piles)) - 1
        new.shared_lists = self.shared_lists = ALL_SHARED
        return new

    def copy(self) -> "GameState":
        """An independent copy (without the undo stack of :func:`~.turn.push`): its hands,
        piles, draw pile and moves are its own lists, which the caller may change (then
        call :func:`~.turn.derive`). A :meth:`fork` whose lists a caller changes are built
        new; each seat's rows, row states and playable list stay shared until either state
        changes them."""
        hands, piles, lists = self.shared_hands, self.shared_piles, self.shared_lists
        new = self.fork()
        # this state shares with the copy only each seat's rows (the fork marked all)
        self.shared_hands, self.shared_piles, self.shared_lists = hands, piles, lists
        copy = list.copy
        new.hands = list(map(copy, self.hands))
        new.rows = self.rows[:]
        new.row_states = self.row_states[:]
        new.playable = self.playable[:]
        new.piles = list(map(copy, self.piles))
        new.deck = self.deck[:]
        new.moves = self.moves[:]
        new.finished = self.finished[:]
        new.held_bits = self.held_bits[:]
        new.playable_bits = self.playable_bits[:]
        new.shared_hands = new.shared_piles = new.shared_lists = 0
        return new

    def share_all(self) -> None:
        """Mark every list a turn changes as perhaps shared with a fork (after an undo
        put back lists that a fork may hold)."""
        self.shared_seats = self.shared_hands = (1 << self.n) - 1
        self.shared_piles = (1 << len(self.piles)) - 1
        self.shared_lists = ALL_SHARED

    def own_hand(self, seat: int) -> None:
        """Give this state its own copy of ``hands[seat]`` (and of the outer ``hands`` and
        ``held_bits`` lists, if shared; see :attr:`shared_hands`)."""
        if self.shared_lists & HANDS_SHARED:
            self.hands = self.hands[:]
            self.held_bits = self.held_bits[:]
            self.shared_lists &= ~HANDS_SHARED
        self.hands[seat] = self.hands[seat][:]
        self.shared_hands &= ~(1 << seat)

    def own_pile(self, colour: int) -> None:
        """Give this state its own copy of ``piles[colour]`` (and of the outer ``piles``
        list, if shared; see :attr:`shared_piles`)."""
        if self.shared_lists & PILES_SHARED:
            self.piles = self.piles[:]
            self.shared_lists &= ~PILES_SHARED
        self.piles[colour] = self.piles[colour][:]
        self.shared_piles &= ~(1 << colour)

    def own_deck(self) -> None:
        """Give this state its own copy of the draw pile (see :attr:`shared_lists`)."""
        self.deck = self.deck[:]
        self.shared_lists &= ~DECK_SHARED

    def own_moves(self) -> None:
        """Give this state its own copy of the round's moves (see :attr:`shared_lists`)."""
        self.moves = self.moves[:]
        self.shared_lists &= ~MOVES_SHARED

    def own_all(self) -> None:
        """Give this state its own copy of every list it shares with a fork."""
        for seat in range(self.n):
            if self.shared_seats >> seat & 1:
                self.own_seat(seat)
            if self.shared_hands >> seat & 1:
                self.own_hand(seat)
        for colour in range(len(self.piles)):
            if self.shared_piles >> colour & 1:
                self.own_pile(colour)
        if self.shared_lists & DECK_SHARED:
            self.own_deck()
        if self.shared_lists & MOVES_SHARED:
            self.own_moves()
        if self.shared_lists:  # outer lists marked shared with no inner one: own them too
            self.hands, self.held_bits, self.piles = self.hands[:], self.held_bits[:], \
                self.piles[:]
            self.rows, self.row_states, self.playable, self.playable_bits = (
                self.rows[:], self.row_states[:], self.playable[:], self.playable_bits[:])
            self.shared_lists = 0

    def own_seat(self, seat: int) -> None:
        """Give this state its own copy of ``seat``'s rows, row states and playable list
        (and of the outer ``rows``, ``row_states``, ``playable`` and ``playable_bits``
        lists, if shared; see :attr:`shared_seats`)."""
        if self.shared_lists & SEATS_SHARED:
            self.rows, self.row_states, self.playable, self.playable_bits = (
                self.rows[:], self.row_states[:], self.playable[:], self.playable_bits[:])
            self.shared_lists &= ~SEATS_SHARED
        self.rows[seat] = [row[:] for row in self.rows[seat]]
        self.row_states[seat] = self.row_states[seat][:]
        self.playable[seat] = self.playable[seat][:]
        self.shared_seats &= ~(1 << seat)

    def snapshot(self) -> tuple:
        """Every field that defines the position, as comparable values (tests, undo)."""
        return (self.players, self.seed, self.deals, self.round, self.rounds_total,
                self.starter, self.to_move, self.phase, self.turn,
                tuple(tuple(h) for h in self.hands),
                tuple(tuple(tuple(r) for r in rows) for rows in self.rows),
                tuple(tuple(r) for r in self.row_states),
                tuple(tuple(p) for p in self.playable),
                tuple(tuple(p) for p in self.piles), tuple(self.deck), self.deal,
                self.last_play, self.pending, tuple(self.moves),
                None if self.board is None else self.board.snapshot(), tuple(self.finished),
                tuple(self.held_bits), tuple(self.playable_bits), self.pile_bits)

    def __repr__(self) -> str:
        return (f"<GameState {self.pack.id} round {self.round}/{self.rounds_total} "
                f"turn {self.turn} to_move {self.to_move} {PHASE_NAMES[self.phase]}>")
