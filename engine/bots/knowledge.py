"""What one seat knows beyond its current observation: card counting for bots.

An :class:`Observation` shows only each discard pile's top. A seat that watched
every turn knows more: the cards under the tops (it saw them fall) and the cards
an opponent took from a pile (they are in that opponent's hand until played).
:class:`SeatMemory` rebuilds that knowledge from the seat's successive
observations alone, and counts the cards it has never seen (:meth:`unseen`).

Continuity is checked, never assumed: a new match, a new round, an undo or a
skipped turn restarts the memory from what the observation shows, so a bot
object reused across matches plays each match the same way.

:class:`Determinizer` turns that knowledge into full game states: the cards the
seat has not seen dealt at random where it could not see (searches, and the
expert's look at a board move's effects).
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Optional

from ..game.tracks import new_board
from ..game.cards import Card
from ..game.moves import DECK, PLAY, Move
from ..game.rules import RulePack
from ..game.state import PHASE_NAMES, Deal, GameState
from ..game.tables import Tables, tables_of
from ..game.turn import derive, new_game
from ..game.view import BoardView, Observation

if TYPE_CHECKING:
    from ..game.tracks import Board

Pile = list[Optional[Card]]
"""A discard pile, bottom first; ``None`` marks a card this seat did not see fall."""


class SeatMemory:
    """The discard piles' contents and the opponents' known cards, as seen by one seat."""

    def __init__(self, tables: Tables, seat: int):
        self.t = tables
        self.seat = seat
        self.obs: Optional[Observation] = None
        self.piles: list[Pile] = []
        #: known[seat]: cards that seat took from a pile and still holds
        self.known: list[list[Card]] = []
        self.move: Optional[Move] = None
        #: observations in a row (this one included) since the draw pile last shrank
        self.stalled = 0
        #: per seat, the share of the colours it had opened when the match's previous
        #: round ended (as this seat last saw it); empty in a match's first round
        self.opened_before: list[float] = []
        #: copies[card]: how many of that card the pack's deck holds
        self.copies = [0] * tables.n_kinds
        for card in tables.deck:
            self.copies[card] += 1

    def observe(self, obs: Observation) -> None:
        """Take in ``obs``, the seat's next observation (its turn)."""
        prev, move = self.obs, self.move
        self.obs, self.move = obs, None
        n = len(obs.players)
        same = prev is not None and prev.round == obs.round and prev.draw_pile == obs.draw_pile
        self.stalled = self.stalled + 1 if same else 0
        if prev is None or prev.round != obs.round:
            self.opened_before = [] if prev is None or obs.round != prev.round + 1 \
                or len(prev.rows) != n else [opened_share(rows) for rows in prev.rows]
        if (prev is None or prev.round != obs.round or obs.turn != prev.turn + n
                or len(self.piles) != len(obs.pile_sizes)):
            self._restart(obs)
            return
        piles = [p[:] for p in self.piles]
        known = [k[:] for k in self.known]
        mine = move is not None and self._apply_own(prev, obs, move, piles)
        if n == 2 and mine and self._apply_opponent(prev, obs, piles, known):
            self.piles, self.known = piles, known
        else:
            self._reconcile(obs, piles if mine else [p[:] for p in self.piles])
            self.known = [[] for _ in range(n)]
        self._forget_visible(obs)

    def played(self, move: Move) -> None:
        """Remember the move this seat chose (applied at the next :meth:`observe` if played)."""
        self.move = move

    # ------------------------------------------------------------------ updates

    def _restart(self, obs: Observation) -> None:
        self.piles = [[None] * (size - 1) + [top] if size else []
                      for size, top in zip(obs.pile_sizes, obs.pile_tops)]
        self.known = [[] for _ in obs.players]

    def _apply_own(self, prev: Observation, obs: Observation, move: Move,
                   piles: list[Pile]) -> bool:
        """Apply this seat's last move to ``piles`` if ``obs`` shows it was played."""
        t, me = self.t, self.seat
        colour = t.colour_of[move.card]
        if move.action == PLAY:
            if obs.rows[me][colour] != prev.rows[me][colour] + (move.card,):
                return False
        else:
            piles[colour].append(move.card)
        hand = list(prev.hand)
        if move.card not in hand:
            return False
        hand.remove(move.card)
        if move.draw is not None and move.draw != DECK:
            if not piles[move.draw]:
                return False
            hand.append(piles[move.draw].pop())  # type: ignore[arg-type]
        rest = list(obs.hand)
        for card in hand:
            if card is None or card not in rest:
                return False
            rest.remove(card)
        return len(rest) == (1 if move.draw == DECK else 0)

    def _apply_opponent(self, prev: Observation, obs: Observation, piles: list[Pile],
                        known: list[list[Card]]) -> bool:
        """Two players: the one opponent turn between two observations, exactly."""
        opp = 1 - self.seat
        for colour, row in enumerate(obs.rows[opp]):
            if row != prev.rows[opp][colour] and row[-1] in known[opp]:
                known[opp].remove(row[-1])
        for colour, (size, top) in enumerate(zip(obs.pile_sizes, obs.pile_tops)):
            pile = piles[colour]
            if size == len(pile) + 1:
                if top in known[opp]:
                    known[opp].remove(top)  # type: ignore[arg-type]
                pile.append(top)
            elif size == len(pile) - 1:
                taken = pile.pop()
                if taken is not None:
                    known[opp].append(taken)
            elif size != len(pile):
                return False
            if (pile[-1] if pile else None) != top:
                return False
        return True

    def _reconcile(self, obs: Observation, piles: list[Pile]) -> None:
        """Best effort when the turns between observations are not known one by one."""
        out: list[Pile] = []
        for pile, size, top in zip(piles, obs.pile_sizes, obs.pile_tops):
            if size == 0:
                out.append([])
            elif size <= len(pile) and pile[size - 1] == top:
                out.append(pile[:size])
            else:
                keep = pile[:min(len(pile), size - 1)]
                out.append(keep + [None] * (size - 1 - len(keep)) + [top])
        self.piles = out

    def _forget_visible(self, obs: Observation) -> None:
        """Drop known cards that the observation now shows elsewhere (never counted twice)."""
        seen = obs.cards_seen()
        for pile in self.piles:
            seen.extend(c for c in pile[:-1] if c is not None)
        count = [0] * self.t.n_kinds
        for card in seen:
            count[card] += 1
        for cards in self.known:
            for card in cards[:]:
                if count[card] + 1 > self.copies[card]:
                    cards.remove(card)
                count[card] += 1

    # ------------------------------------------------------------------ queries

    def unseen(self) -> list[int]:
        """Per card kind: copies this seat has not seen (opponents' unknown cards, the
        draw pile, cards removed unseen, pile cards it did not see fall)."""
        obs = self.obs
        assert obs is not None
        count = self.copies[:]
        for card in obs.cards_seen():
            count[card] -= 1
        for pile in self.piles:
            for card in pile[:-1]:
                if card is not None:
                    count[card] -= 1
        for cards in self.known:
            for card in cards:
                count[card] -= 1
        return [max(0, c) for c in count]


def opened_share(rows: tuple[tuple[Card, ...], ...]) -> float:
    """The share of a seat's colours that its ``rows`` have opened (0 to 1)."""
    return sum(1 for row in rows if row) / max(1, len(rows))


class WatchedMemory:
    """What a seat that watched the whole round knows of a full ``state``: every discard
    pile card by card (it saw each fall) and, of the other hands, the draw pile and the
    cards removed, only that it has not seen them. Searches give it to the players they
    imagine (:mod:`.ismcts`); it answers what :class:`SeatMemory` answers."""

    __slots__ = ("t", "seat", "piles", "known", "stalled", "opened_before", "_unseen")

    def __init__(self, state: GameState, seat: int):
        t = self.t = state.tables
        self.seat = seat
        self.piles: list[Pile] = [list(p) for p in state.piles]
        self.known: list[list[Card]] = [[] for _ in range(state.n)]
        self.stalled = 0
        self.opened_before: list[float] = []   # the round alone: no earlier rounds seen
        unseen = [0] * t.n_kinds
        for other, hand in enumerate(state.hands):
            if other != seat:
                for card in hand:
                    unseen[card] += 1
        for card in state.deck:
            unseen[card] += 1
        for card in state.deal.removed:
            unseen[card] += 1
        self._unseen = unseen

    def unseen(self) -> list[int]:
        """Per card kind: copies in the other hands, the draw pile and the removed cards."""
        return self._unseen


def determinize(pack: RulePack, obs: Observation, memory: SeatMemory,
                rng: random.Random) -> GameState:
    """A full game state that ``obs`` (and ``memory``) could be looking at.

    Hidden cards are dealt at random from those the seat has not seen; the match
    is cut to end with the current round (searches look no further).
    """
    return Determinizer(pack, obs, memory).deal(rng)


class Determinizer:
    """Builds random full states consistent with one observation (fast when repeated)."""

    def __init__(self, pack: RulePack, obs: Observation, memory: SeatMemory):
        t = tables_of(pack)
        self.t = t
        self.obs = obs
        n = len(obs.players)
        pool = [card for card, count in enumerate(memory.unseen()) for _ in range(count)]
        known = memory.known if len(memory.known) == n else [[] for _ in range(n)]
        piles = [list(p) for p in memory.piles]
        removed = pack.removed_unseen.get(n, 0)
        slots = (sum(size - len(known[s]) for s, size in enumerate(obs.hand_sizes)
                     if s != obs.seat) + obs.draw_pile + removed
                 + sum(p.count(None) for p in piles))
        if slots != len(pool):  # memory out of step with the pack: count only the tops
            known = [[] for _ in range(n)]
            piles = [[None] * (size - 1) + [top] if size else []
                     for size, top in zip(obs.pile_sizes, obs.pile_tops)]
            seen = [0] * t.n_kinds
            for card in obs.cards_seen():
                seen[card] += 1
            pool = []
            for card in t.deck:
                if seen[card]:
                    seen[card] -= 1
                else:
                    pool.append(card)
        self.pool = pool
        self.known = known
        self.piles = piles
        self.removed = removed
        template = new_game(pack, obs.players, 0)
        template.round = obs.round
        template.rounds_total = obs.round
        template.starter = obs.to_move
        template.to_move = obs.to_move
        template.turn = obs.turn
        template.last_play = obs.last_play
        template.pending = obs.pending
        # the phase as the engine numbers it: a board pack's card decision has its own
        # (TRACK_CARD, the tables' card_phase), which "card" names as the card game's does
        template.phase = t.card_phase if obs.phase == "card" else PHASE_NAMES.index(obs.phase)
        template.rows = [[list(r) for r in rows] for rows in obs.rows]
        template.moves = []
        template.finished = []
        template.undo = []
        template.board = BOARDS[t.family](template, obs.board)
        self.template = template

    def deal(self, rng: random.Random) -> GameState:
        """One random state consistent with the observation."""
        obs = self.obs
        pool = self.pool[:]
        rng.shuffle(pool)
        hands: list[list[Card]] = []
        for seat, size in enumerate(obs.hand_sizes):
            if seat == obs.seat:
                hands.append(list(obs.hand))
            else:
                hand = list(self.known[seat])
                for _ in range(size - len(hand)):
                    hand.append(pool.pop())
                hands.append(hand)
        piles = [[pool.pop() if c is None else c for c in pile] for pile in self.piles]
        deck = [pool.pop() for _ in range(obs.draw_pile)]
        state = self.template.copy()
        state.hands = hands
        state.piles = piles  # type: ignore[assignment]
        state.deck = deck
        state.deal = Deal(tuple(tuple(h) for h in hands), tuple(reversed(deck)), tuple(pool))
        state.seed = rng.getrandbits(48)
        derive(state)
        return state


def no_board(state: GameState, view: None) -> None:
    """A duel's state has no board (what :func:`board_from_view` is to a board pack)."""
    return None


def board_from_view(state: GameState, view: BoardView) -> "Board":
    """The engine's board for ``state`` (a board pack) as ``view`` shows it."""
    board = new_board(state, view.tiles)
    for seat, pawns in enumerate(view.pawns):
        for pawn, (track, space, _) in enumerate(pawns):
            board.tracks[seat][pawn] = track
            board.spaces[seat][pawn] = space
            if track >= 0:
                board.on_track[seat][track] = pawn
    board.crossings = view.crossings
    board.tokens = list(view.round_tokens)
    board.artefacts = list(view.round_artefacts)
    board.turn_pawn = view.turn_pawn
    board.turn_steps = list(view.turn_steps)
    return board


#: a seat's view of the board as the engine's, by the pack's family (``tables.family``)
BOARDS = {"duel": no_board, "board": board_from_view}
