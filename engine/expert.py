"""``expert``: a hand-tuned heuristic player that counts cards and plans its rows.

For each move it evaluates the position the move leaves, from its observation
and its memory of the discard piles (:class:`~.knowledge.SeatMemory`):

* **its own rows**: for each colour, the row as it would end if it plays the
  cards of that colour it holds in order, plus the cards it has not seen yet
  weighted by its chance to draw them in time. Every value comes from the
  pack's own expedition formula (costs, multipliers and bonuses are data). A
  colour is opened only if that promise beats a margin, and wagers only if they
  add another margin each. The turns left in the draw pile bound how many cards
  it can still play: when they run short it keeps the best cards (a small
  knapsack over colours);
* **the opponents**: what each could still add to its started rows (cards it
  was seen taking, unseen cards it may hold or draw, and the discard tops it
  could take), bounded by its turns left. A discard that feeds an opponent, a
  pile top left for it, or a draw from the deck that shortens the round while
  it still has cards to play all count against the move;
* **time**: drawing from a discard pile keeps the draw pile (and the round)
  longer, which is worth what the extra turns are worth to each side.

The weights (:class:`ExpertParams`) were tuned on duel-classic with quick
simulations against ``greedy`` (see ``benchmarks/bench_bots.py``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from .bots import Bot, GreedyBot, SeatView
from .cards import Card
from .knowledge import SeatMemory
from .moves import DECK, PLAY, Move
from .tables import Tables, tables_of
from .view import Observation


@dataclass(frozen=True)
class ExpertParams:
    """The expert's weights (points unless said otherwise)."""

    open_margin: float = 6.0      #: what an opened row must promise beyond nothing
    soft: float = 4.0             #: smoothing of the open/not-open choice (credit for near misses)
    wager_margin: float = 8.0     #: what each wager must add beyond the row without it
    opponent: float = 0.8         #: weight of the opponents' prospects against ours
    unstarted: float = 0.15       #: an opponent's use of a card of a colour it has not opened
    play_bias: float = 0.3        #: tie-break toward playing rather than discarding
    trust: float = 0.8            #: how much of the unseen cards' expected worth is counted
    stall: float = 3.0            #: cost of a discard followed by a pile draw (no progress),
    #: times one more for each of our turns in a row that the draw pile did not shrink


class ExpertBot(Bot):
    """Card counting, row planning from the pack's formulas, opponent denial (duel family).

    Keeps a :class:`~.knowledge.SeatMemory` per seat, so one object can play
    several seats; board packs are played by the greedy policy for now.
    """

    name = "expert"

    def __init__(self, params: Optional[ExpertParams] = None):
        self.params = params or ExpertParams()
        self._memories: dict[int, SeatMemory] = {}
        self._fallback = GreedyBot()

    def memory(self, view: SeatView) -> SeatMemory:
        """The seat's memory, updated with its current observation."""
        t = tables_of(view.pack)
        mem = self._memories.get(view.seat)
        if mem is None or mem.t is not t:
            mem = self._memories[view.seat] = SeatMemory(t, view.seat)
        mem.observe(view.observation)
        return mem

    def choose(self, view: SeatView) -> Move:
        if view.pack.board is not None:
            return self._fallback.choose(view)
        mem = self.memory(view)
        move = self.decide(view, mem)
        mem.played(move)
        return move

    def decide(self, view: SeatView, memory: SeatMemory) -> Move:
        """The expert's move for ``view`` given the seat's (already updated) memory."""
        return Evaluation(view.pack, view.observation, memory, self.params).best(view.legal_moves)


@dataclass(frozen=True)
class ColourPlan:
    """One colour's outlook: plays still needed, its value and the unseen cards' credit."""

    need: int
    value: float
    extra: float = 0.0
    extra_need: float = 0.0
    key: tuple = ()     #: (colour, hand, row) to build its curve from


class Evaluation:
    """The expert's view of one decision: values of the positions its moves leave."""

    def __init__(self, pack, obs: Observation, memory: SeatMemory, params: ExpertParams):
        self.pack = pack
        self.t: Tables = tables_of(pack)
        self.f: Callable[[int, Sequence[int], int], int] = pack.scoring.expedition
        self.obs = obs
        self.memory = memory
        self.p = params
        self.me = obs.seat
        self.n = len(obs.players)
        t = self.t
        self.unseen = memory.unseen()
        self.hidden = max(1, sum(self.unseen))
        #: unseen number cards by colour (with repeats for copies)
        self.unseen_by_colour: list[list[Card]] = [[] for _ in t.colours]
        for card, count in enumerate(self.unseen):
            if count and not t.is_wager[card]:
                self.unseen_by_colour[t.colour_of[card]].extend([card] * count)
        self._cache: dict[tuple, ColourPlan] = {}
        self._curve_cache: dict[tuple, list[float]] = {}
        self._opp_cache: dict[tuple, float] = {}

    # ------------------------------------------------------------------ moves

    def best(self, legal: Sequence[Move]) -> Move:
        """The legal move of highest value (ties: the first in the engine's order)."""
        return max(self.ranked(legal), key=lambda vm: vm[0])[1]

    def ranked(self, legal: Sequence[Move]) -> list[tuple[float, Move]]:
        """Each legal move with its value, in the engine's order."""
        obs, t = self.obs, self.t
        hand = list(obs.hand)
        rows = [list(r) for r in obs.rows[self.me]]
        tops = list(obs.pile_tops)
        under = [p[-2] if len(p) > 1 else None for p in self.memory.piles]
        out: list[tuple[float, Move]] = []
        for move in legal:
            action, card = move.action, move.card
            h, r, piles_top = hand, rows, tops
            if obs.pending is None:
                h = hand[:]
                h.remove(card)
                if action == PLAY:
                    r = [row[:] for row in rows]
                    r[t.colour_of[card]].append(card)
                else:
                    piles_top = tops[:]
                    piles_top[t.colour_of[card]] = card
            bias = self.p.play_bias if action == PLAY else 0.0
            out.append((bias + self._after_draw(h, r, piles_top, under, move.draw, action, card),
                        move))
        return out

    def _after_draw(self, hand: list[Card], rows: list[list[Card]], tops: list[Optional[Card]],
                    under: list[Optional[Card]], draw, action: str, card: Card) -> float:
        deck = self.obs.draw_pile
        if draw is None:  # the last play: nothing more to come
            return self.value(hand, rows, 0, tops, deck)
        if draw == DECK:
            future = (deck - 1) // self.n
            base = self.value(hand, rows, future, tops, deck - 1)
            return self._deck_average(hand, rows, future, tops, deck - 1, base)
        taken = tops[draw]
        new_tops = tops[:]
        retaken = action != PLAY and self.t.colour_of[card] == draw
        new_tops[draw] = self.obs.pile_tops[draw] if retaken else under[draw]
        if taken is None:
            return -math.inf
        stall = self.p.stall * (1 + self.memory.stalled) if action != PLAY else 0.0
        return self.value(hand + [taken], rows, deck // self.n, new_tops, deck) - stall

    def _deck_average(self, hand: list[Card], rows: list[list[Card]], future: int,
                      tops: list[Optional[Card]], deck: int, base: float) -> float:
        """The expected value after drawing an unseen card from the draw pile."""
        t = self.t
        total = 0.0
        weight = 0
        by_colour = [[k for k in hand if t.colour_of[k] == c] for c in t.colours]
        mine = self._plans(by_colour, rows, future)
        for card, count in enumerate(self.unseen):
            if not count:
                continue
            c = t.colour_of[card]
            plans = mine[:]
            plans[c] = self.plan(c, tuple(sorted(by_colour[c] + [card])), tuple(rows[c]), future)
            total += count * self._combine(plans, future)
            weight += count
        if not weight:
            return base
        return total / weight - self.p.opponent * self.opponents(tops, deck)

    # ------------------------------------------------------------------ values

    def value(self, hand: list[Card], rows: list[list[Card]], future: int,
              tops: list[Optional[Card]], deck: int) -> float:
        """Our rows' outlook less the opponents' (weighted) for a position after our turn."""
        t = self.t
        by_colour = [[k for k in hand if t.colour_of[k] == c] for c in t.colours]
        return self._combine(self._plans(by_colour, rows, future), future) \
            - self.p.opponent * self.opponents(tops, deck)

    def _plans(self, by_colour: list[list[Card]], rows: list[list[Card]],
               future: int) -> list[ColourPlan]:
        return [self.plan(c, tuple(sorted(by_colour[c])), tuple(rows[c]), future)
                for c in self.t.colours]

    def _combine(self, plans: list[ColourPlan], future: int) -> float:
        need = sum(p.need for p in plans)
        if need <= future:
            spare = future - need
            xneed = sum(p.extra_need for p in plans)
            scale = 1.0 if xneed <= spare else spare / xneed
            return sum(p.value + scale * p.extra for p in plans)
        return self._knapsack(plans, future)

    def _knapsack(self, plans: list[ColourPlan], slots: int) -> float:
        """Best total when only ``slots`` more cards can be played (no unseen credit)."""
        best = [0.0] * (slots + 1)
        for plan in plans:
            curve = self.curve(*plan.key)
            new = [-math.inf] * (slots + 1)
            for used in range(slots + 1):
                for k, v in enumerate(curve[:used + 1]):
                    value = best[used - k] + v
                    if value > new[used]:
                        new[used] = value
            best = new
        return best[slots]

    def plan(self, colour: int, hand: tuple[Card, ...], row: tuple[Card, ...],
             future: int) -> ColourPlan:
        """The outlook of one of our colours (cached per decision)."""
        key = (colour, hand, row, future)
        plan = self._cache.get(key)
        if plan is None:
            plan = self._cache[key] = self._plan(colour, hand, row, future)
        return plan

    def _plan(self, colour: int, hand: tuple[Card, ...], row: tuple[Card, ...],
              future: int) -> ColourPlan:
        t, f, p = self.t, self.f, self.p
        rs = t.state_of(row)
        values = [t.value_of[k] for k in row if not t.is_wager[k]]
        wagers = len(row) - len(values)
        chain, held_wagers = self._chain(rs, hand)
        extras = [t.value_of[k] for k in self.unseen_by_colour[colour]
                  if t.after[rs][t.slot_of[k]] >= 0]
        chance = p.trust * max(0, future - 1) / self.hidden
        best: Optional[tuple[float, float, int, float]] = None
        for w in range(held_wagers + 1):
            plan_values = values + chain
            base = f(colour, plan_values, wagers + w)
            extra = 0.0
            for v in extras:
                extra += f(colour, sorted(plan_values + [v]), wagers + w) - base
            extra *= chance
            score = base + extra - w * p.wager_margin
            if best is None or score > best[0]:
                best = (score, base, w, extra)
        assert best is not None
        _, base, w, extra = best
        need = len(chain) + w
        xneed = chance * len(extras)
        key = (colour, hand, row)
        # margins are charged alike before and after a row is opened, so that opening
        # or wagering is chosen for what it promises, never for a margin it would drop
        value = base - p.open_margin - (wagers + w) * p.wager_margin
        if row:
            return ColourPlan(need, value, extra, xneed, key)
        gain = value + extra
        soft = p.soft * math.log1p(math.exp(min(50.0, gain / p.soft))) if p.soft > 0 \
            else max(0.0, gain)
        if gain <= 0:
            return ColourPlan(0, soft, key=key)
        return ColourPlan(need, soft - extra, extra, xneed, key)

    def curve(self, colour: int, hand: tuple[Card, ...], row: tuple[Card, ...]) -> list[float]:
        """Value of the colour with 0, 1, 2... more plays from hand (the best cards)."""
        key = (colour, hand, row)
        curve = self._curve_cache.get(key)
        if curve is None:
            curve = self._curve_cache[key] = self._curve(colour, hand, row)
        return curve

    def _curve(self, colour: int, hand: tuple[Card, ...], row: tuple[Card, ...]) -> list[float]:
        t, f, p = self.t, self.f, self.p
        rs = t.state_of(row)
        values = [t.value_of[k] for k in row if not t.is_wager[k]]
        wagers = len(row) - len(values)
        chain, held_wagers = self._chain(rs, hand)
        sunk = p.open_margin + wagers * p.wager_margin
        curve = [f(colour, values, wagers) - sunk if row else 0.0]
        for k in range(1, len(chain) + held_wagers + 1):
            best = -math.inf
            for w in range(min(k, held_wagers) + 1):
                if k - w > len(chain):
                    continue
                numbers = sorted(sorted(chain)[len(chain) - (k - w):]) if k > w else []
                score = f(colour, values + numbers, wagers + w) - w * p.wager_margin - sunk
                best = max(best, score)
            curve.append(best)
        return curve

    def _chain(self, rs: int, hand: tuple[Card, ...]) -> tuple[list[int], int]:
        """The values of the held numbers that follow the row in order, and wagers playable."""
        t = self.t
        chain: list[int] = []
        state = rs
        for card in hand:
            if t.is_wager[card]:
                continue
            nxt = t.after[state][t.slot_of[card]]
            if nxt >= 0:
                chain.append(t.value_of[card])
                state = nxt
        held = sum(1 for k in hand if t.is_wager[k]) if t.allowed[rs][0] else 0
        return chain, held

    # ------------------------------------------------------------------ opponents

    def opponents(self, tops: list[Optional[Card]], deck: int) -> float:
        """What the opponents may still add to their rows (cached per position)."""
        key = (tuple(tops), deck)
        value = self._opp_cache.get(key)
        if value is None:
            value = self._opp_cache[key] = sum(
                self._opponent(s, tops, deck) for s in range(self.n) if s != self.me)
        return value

    def _opponent(self, seat: int, tops: list[Optional[Card]], deck: int) -> float:
        t, f, obs = self.t, self.f, self.obs
        # turns left to this opponent if everyone draws from the deck
        ahead = (seat - self.me) % self.n
        future = max(0, (deck - ahead + self.n) // self.n) if deck else 0
        known = self.memory.known[seat] if self.memory.known else []
        unknown_hand = obs.hand_sizes[seat] - len(known)
        chance = (unknown_hand + max(0, future - 1)) / self.hidden
        gains: list[tuple[float, float]] = []  # (expected points, expected plays)
        for colour, row in enumerate(obs.rows[seat]):
            rs = t.state_of(row)
            values = [t.value_of[k] for k in row if not t.is_wager[k]]
            wagers = len(row) - len(values)
            base = f(colour, values, wagers)
            weight = 1.0 if row else self.p.unstarted
            points = plays = 0.0
            for card in self.unseen_by_colour[colour]:
                if t.after[rs][t.slot_of[card]] >= 0:
                    points += chance * (f(colour, values + [t.value_of[card]], wagers) - base)
                    plays += chance
            for card in list(known) + [tops[colour]]:
                if card is not None and t.colour_of[card] == colour and not t.is_wager[card] \
                        and t.after[rs][t.slot_of[card]] >= 0:
                    points += f(colour, values + [t.value_of[card]], wagers) - base
                    plays += 1
            if points > 0:
                gains.append((weight * points, plays))
        need = sum(g[1] for g in gains)
        total = sum(g[0] for g in gains)
        if need > future:
            total *= future / need if need else 0.0
        return total
