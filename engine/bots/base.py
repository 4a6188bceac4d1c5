"""The bot interface and the simple bots: :class:`Bot`, :class:`SeatView`, ``random`` and
``greedy``. The registry of the built-in bots by name and ``make_bot`` are in :mod:`.registry`
(above the bots it names).

A bot gets a :class:`SeatView` on its turn (its own observation, the legal
moves, a seeded random generator) and returns one of the legal moves. Bots see
only what the player may see; the engine checks every move they return.
"""
from __future__ import annotations

import random
from functools import cached_property
from typing import Callable, Mapping, Optional, TypeVar

from ..game.cards import Card
from ..errors import LostCitiesError
from ..game.moves import DECK, NO_STEP, PLAY, Move
from ..game.options import ARTEFACT, POINTS, TILE_KINDS
from ..game.view import Observation, observation
from ..game.rules import RulePack
from ..game.state import GameState, Seat
from ..game.tables import NO_NUMBERS, Tables, tables_of
from ..game.turn import legal_moves, random_move

T = TypeVar("T")


class BotError(LostCitiesError, ValueError):
    """A bot could not be found or built, or returned an illegal move."""


class SeatView:
    """A bot's turn: ``observation``, ``legal_moves``, ``rng``, ``pack``, ``seat``."""

    def __init__(self, state: GameState, seat: Seat, rng: random.Random):
        self._state = state
        self.seat = seat
        self.rng = rng
        self.pack: RulePack = state.pack

    @cached_property
    def observation(self) -> Observation:
        """What this seat may see now (built on first use)."""
        return observation(self._state, self.seat)

    @cached_property
    def legal_moves(self) -> list[Move]:
        """Every legal move now (built on first use)."""
        return legal_moves(self._state)

    def random_move(self) -> Move:
        """A legal move drawn uniformly (faster than choosing from ``legal_moves``)."""
        return random_move(self._state, self.rng)


class Bot:
    """Base class: override :meth:`choose`. ``name`` is how records and summaries call it."""

    name = "bot"

    def choose(self, view: SeatView) -> Move:
        """One of ``view.legal_moves``."""
        raise NotImplementedError


class RandomBot(Bot):
    """Uniform over the legal moves."""

    name = "random"

    def choose(self, view: SeatView) -> Move:
        return view.random_move()



def pick_for(pack: RulePack, picked: tuple, parts: Mapping[str, T]) -> tuple[Tables, T]:
    """A bot's family part for ``pack``, chosen once per pack (issue 28: the family is a
    strategy): ``picked``, the ``(tables, part)`` a bot kept from the last pack it saw, when
    ``pack`` has the same tables, else ``parts[family]`` with the new tables."""
    t = tables_of(pack)
    return picked if picked[0] is t else (t, parts[t.family])

class GreedyBot(Bot):
    """A one-ply heuristic that plays sensibly from its observation alone.

    * opens a row only if the pack's own expedition formula, evaluated on the row
      it could build from its hand in the turns likely left, is positive;
    * continues rows with the lowest card that fits, wagers only while they pay;
    * discards what it cannot use, preferring cards no opponent's row accepts;
    * takes a discard pile's top only when it fits one of its worthwhile rows.

    On a board pack (:class:`_BoardPlan`) the same card play moves pawns: it opens
    a track only if the cards it holds of that colour should carry the pawn past
    the negative spaces, sends its leader where it holds the most cards, and
    spends steps where the pawn formula gains most (the leader counts double);
    it declines an advance only when each would lose points by that formula.
    """

    name = "greedy"

    #: the pack's tables last seen and its family's way to choose (:data:`GREEDY_PLANS`),
    #: picked at the first sight of a pack
    _plan_for: tuple[Optional[Tables], Optional[Callable[..., Move]]] = (None, None)

    def choose(self, view: SeatView) -> Move:
        self._plan_for = picked = pick_for(view.pack, self._plan_for, GREEDY_PLANS)
        return picked[1](view.pack, view.observation, view.legal_moves)


def _duel_choice(pack: RulePack, obs: Observation, legal: list[Move]) -> Move:
    """The greedy bot's move on a duel pack: the best card decision, then its best draw."""
    plan = _Plan(pack, obs)
    options: dict[tuple[str, Card], list[Move]] = {}
    for move in legal:
        options.setdefault((move.action, move.card), []).append(move)
    best = max(options, key=lambda o: (plan.value(*o), -o[1], o[0]))
    return max(options[best], key=lambda m: plan.draw_value(m))


def _board_choice(pack: RulePack, obs: Observation, legal: list[Move]) -> Move:
    """The greedy bot's move on a board pack (:class:`_BoardPlan`)."""
    return _BoardPlan(pack, obs).choose(legal)


class _Plan:
    """The greedy bot's estimates for one observation."""

    def __init__(self, pack: RulePack, obs: Observation):
        self.t: Tables = tables_of(pack)
        self.expedition: Callable[..., int] = pack.scoring.expedition
        self.obs = obs
        t = self.t
        self.me = obs.seat
        self.hand = obs.hand
        self.states = [[t.state_of(row) for row in rows] for rows in obs.rows]
        # turns this player still gets if everyone draws from the deck
        self.turns_left = max(1, obs.draw_pile // len(obs.players))
        self.worth = [self._potential(c) for c in range(t.n_colours)]

    def _row_gain(self, colour: int, extra: list[Card]) -> int:
        t = self.t
        row = list(self.obs.rows[self.me][colour]) + extra
        values = [t.value_of[k] for k in row if not t.is_wager[k]]
        return self.expedition(colour, values, len(row) - len(values))

    def _plan_cards(self, colour: int) -> list[Card]:
        """The cards of ``colour`` in hand that could follow the row, in play order."""
        t = self.t
        rs = self.states[self.me][colour]
        out: list[Card] = []
        for card in sorted(k for k in self.hand if t.colour_of[k] == colour):
            nxt = t.after[rs][t.slot_of[card]]
            if nxt >= 0:
                out.append(card)
                rs = nxt
        return out

    def _potential(self, colour: int) -> int:
        """Best score gain of the row from cards in hand, within the turns likely left."""
        t = self.t
        cards = self._plan_cards(colour)
        wagers = [k for k in cards if t.is_wager[k]]
        numbers = [k for k in cards if not t.is_wager[k]][-self.turns_left:]
        now = self._row_gain(colour, [])
        best = self._row_gain(colour, numbers) - now
        for w in range(1, len(wagers) + 1):
            if w + len(numbers) <= self.turns_left:
                best = max(best, self._row_gain(colour, wagers[:w] + numbers) - now)
        return best

    def _accepted_by_others(self, card: Card) -> bool:
        t = self.t
        colour = t.colour_of[card]
        for seat, states in enumerate(self.states):
            if seat != self.me and states[colour] >= 0 and t.accepts(states[colour], card) \
                    and self.obs.rows[seat][colour]:
                return True
        return False

    def value(self, action: str, card: Card) -> float:
        """How much the bot likes playing or discarding ``card`` (higher is better)."""
        t = self.t
        colour = t.colour_of[card]
        started = bool(self.obs.rows[self.me][colour])
        plan = self._plan_cards(colour)
        if action == PLAY:
            first = next((k for k in plan if not t.is_wager[k]), None)
            if not t.is_wager[card] and card != first:
                return -100.0  # a higher card would waste the lower ones held
            if t.is_wager[card]:
                numbers = [k for k in plan if not t.is_wager[k]]
                with_wager = self._row_gain(colour, [card] + numbers)
                return 60.0 if with_wager > self._row_gain(colour, numbers) > 0 \
                    and len(numbers) + 1 <= self.turns_left else -100.0
            if not started and self.worth[colour] <= 0:
                return -100.0  # a row it cannot pay for
            rs = self.states[self.me][colour]
            gap = abs(t.slot_of[card] - (0 if rs == NO_NUMBERS else (rs - 1) // 3 + 1))
            return 100.0 - 5 * gap - (0 if started else 20)
        # discard: keep cards of worthwhile rows; never feed an opponent's row
        keep = 30.0 + t.value_of[card] if card in plan and (started or self.worth[colour] > 0) \
            else 0.0
        feed = 25.0 + t.value_of[card] if self._accepted_by_others(card) else 0.0
        return -keep - feed - t.value_of[card] / 10

    def draw_value(self, move: Move) -> float:
        """Deck by default; a pile's top only when it fits a worthwhile row of ours."""
        if move.draw is None or move.draw == DECK:
            return 0.0
        top = self.obs.pile_tops[move.draw]
        if top is None:  # the pile the move itself discards onto (no_retake off)
            return -1.0
        t = self.t
        colour = t.colour_of[top]
        rs = self.states[self.me][colour]
        played = move.action == PLAY and t.colour_of[move.card] == colour
        if rs < 0 or played or not t.accepts(rs, top):
            return -1.0
        started = bool(self.obs.rows[self.me][colour])
        return 1.0 + t.value_of[top] if started or self.worth[colour] > 0 else -1.0


class _BoardPlan(_Plan):
    """The greedy bot's estimates on a board pack: each move's pawn moves, by the pack's
    pawn formula, plus the card-keeping judgement of :class:`_Plan`."""

    def __init__(self, pack: RulePack, obs: Observation):
        board = self.board = obs.board
        self.pawn: Callable[[int, int, bool], int] = pack.scoring.pawn
        self.mine = {track: (space, leader) for track, space, leader in board.pawns[obs.seat]
                     if track >= 0}
        super().__init__(pack, obs)  # its ``worth`` comes from _potential, below
        t = self.t
        self.leader_free = any(track < 0 and leader for track, _, leader in board.pawns[self.me])
        held = [sum(1 for k in self.hand if t.colour_of[k] == c) for c in t.colours]
        closed = [c for c in t.colours if c not in self.mine]
        self.leader_colour = max(closed, key=lambda c: (held[c], self.worth[c]), default=-1)
        self.tiles = {(track, space): (kind, value) for track, space, kind, value in board.tiles}
        artefacts, match = board.artefacts[self.me], pack.scoring.match
        self.artefact = match([0], artefacts + 1, 0) - match([0], artefacts, 0)

    def _potential(self, colour: int, leader: Optional[bool] = None) -> int:
        """What our pawn on ``colour``'s track should be worth, by the pack's pawn formula, at
        the space the cards held (and a few to draw) should carry it to; ``leader`` for a
        pawn not on the track yet (default: an ordinary one)."""
        cards = len(self._plan_cards(colour))
        space, on_track_leader = self.mine.get(colour, (0, False))
        future = self.turns_left // 16  # cards of the colour still to come, roughly
        reach = min(self.board.spaces, space + min(cards, self.turns_left) + future)
        return self.pawn(colour, reach, on_track_leader if leader is None else leader)

    def choose(self, legal: list[Move]) -> Move:
        """The legal move of best value."""
        return max(legal, key=lambda m: (self.move_value(m), -m.card, m.action))

    def move_value(self, move: Move) -> float:
        """The card's value to the rows, what its pawn moves gain, and the draw's value."""
        t = self.t
        colour = t.colour_of[move.card]
        if move.action != PLAY:
            return self.value(move.action, move.card) + self.draw_value(move)
        plan = self._plan_cards(colour)
        first = next((k for k in plan if not t.is_wager[k]), None)
        if not t.is_wager[move.card] and move.card != first:
            return -100.0 + self.draw_value(move)  # a higher card would waste lower ones
        pawns = dict(self.mine)
        tiles = dict(self.tiles)
        gain = 0.0
        if move.pawn is not None:  # opening this track
            leader = self.board.pawns[self.me][move.pawn][2]
            worth = self._potential(colour, leader)
            if worth <= 0:
                return -100.0 + self.draw_value(move)  # it could not pass the negative spaces
            gain += 40.0 + worth / 2
            if self.leader_free and (colour == self.leader_colour) != leader:
                gain -= 30.0  # the leader goes where the most cards of a colour are held
            pawns[colour] = (0, leader)
            gain += self._step(pawns, tiles, colour, immediate=False)
        elif colour in pawns and pawns[colour][0] < self.board.spaces:
            rs = self.states[self.me][colour]
            gap = t.slot_of[move.card] - (0 if rs == NO_NUMBERS else (rs - 1) // 3 + 1)
            gain += 100.0 - 5 * abs(gap) + self._step(pawns, tiles, colour)
        else:  # a finished track: the card only serves the step it gives
            gain += 20.0
        for track in move.steps:
            if track is not NO_STEP:  # a declined advance moves nothing, gains nothing
                gain += self._step(pawns, tiles, track)
        return gain + self.draw_value(move)

    def _step(self, pawns: dict[int, tuple[int, bool]], tiles: dict, track: int,
              immediate: bool = True) -> float:
        """Move our pawn on ``track`` one space in ``pawns``; what it gains."""
        space, leader = pawns[track]
        pawns[track] = (space + 1, leader)
        gain = float(self.pawn(track, space + 1, leader) - self.pawn(track, space, leader)) \
            if immediate else 0.0
        kind, value = tiles.get((track, space + 1), ("", 0))
        effect = TILE_KINDS[kind].effect if kind else None
        if effect == ARTEFACT:
            del tiles[(track, space + 1)]
            gain += self.artefact
        elif effect == POINTS:
            gain += value
        return gain


#: the greedy bot's way to choose, by the pack's family (``tables.family``), picked once
#: per pack
GREEDY_PLANS: dict[str, Callable[[RulePack, Observation, list[Move]], Move]] = {
    "duel": _duel_choice, "board": _board_choice}
