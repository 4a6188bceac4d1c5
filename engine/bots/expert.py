"""``expert``: a hand-tuned heuristic player that counts cards and plans its rows.

For each move it evaluates the position the move leaves, from its observation
and its memory of the discard piles (:class:`~.knowledge.SeatMemory`):

* **its own rows**: for each colour, the row as it would end if it plays the
  cards of that colour it holds in order, plus the cards it has not seen yet
  weighted by its chance to draw them in time. Every value comes from the
  pack's own formulas: the expedition formula in a duel (costs, multipliers and
  bonuses are data); on a board, the pawn formula at the space the row's cards
  carry its pawn to, plus the tiles met on the way (an artefact is worth what the
  match formula gives for one more). A colour is opened only if that promise
  beats a margin, and wagers only if they add another margin each. The turns
  left bound how many cards it can still play: when they run short it keeps the
  best cards (a small knapsack over colours);
* **the opponents**: what each could still add to its started rows (cards it
  was seen taking, unseen cards it may hold or draw, and the discard tops it
  could take), bounded by its turns left. A discard that feeds an opponent, a
  pile top left for it, or a draw from the deck that shortens the round while
  it still has cards to play all count against the move;
* **time**: drawing from a discard pile keeps the draw pile (and the round)
  longer; on a board, the bridge crossings bring the round's end nearer, so a
  crossing is worth what the turns it removes are worth to each side (bridge
  timing), and a free leader is kept for the colour where it would gain most
  (leader placement). The board effects of each move (pawn sent, steps, tiles,
  crossings) come from the engine itself, played on a copy of the position. A
  step tile or a finished track only offers an advance, and declining it is one
  more move valued the same way: the expert declines when the position without
  the advance is worth more, e.g. the crossing that would end the round while the
  turns left favour it. In the match's last round, a move that ends it is worth
  ``ExpertParams.decided`` more when it makes a sure win, that much less when a
  sure loss (the round's scores are all public on a board): the expert does not
  end a match it is losing, and ends one it is winning.

The weights (:class:`ExpertParams`: :data:`DUEL`, :data:`BOARD`) were tuned with
quick simulations against ``greedy`` (see ``benchmarks/bench_bots.py``).
"""
from __future__ import annotations

import bisect
import math
import random
from dataclasses import dataclass, replace
from operator import add
from typing import Callable, NamedTuple, Optional, Sequence, Union

from ..game.cards import Card
from ..game.moves import DECK, PLAY, Move, action_space
from ..game.options import ARTEFACT, POINTS, TILE_KINDS
from ..game.rules import RulePack
from ..game.state import GameState
from ..game.tables import Tables, tables_of
from ..game.turn import pop, push_action
from ..game.view import BoardView, Observation
from .base import Bot, SeatView, pick_for
from .knowledge import Determinizer, SeatMemory, opened_share


@dataclass(frozen=True)
class ExpertParams:
    """The expert's weights (points unless said otherwise)."""

    open_margin: float = 6.0      #: what an opened row must promise beyond nothing
    soft: float = 4.0             #: smoothing of the open/not-open choice (credit for near misses)
    wager_margin: float = 8.0     #: what each wager must add beyond the row without it
    opponent: float = 0.8         #: weight of the opponents' prospects against ours
    unstarted: float = 0.15       #: an opponent's use of a card of a colour it has not opened
    ready_from: float = 0.8       #: the share of its colours an opponent opens (this round or
    #: the last) from which it counts as opening colours readily: from 0 there to 1 at all
    play_bias: float = 0.3        #: tie-break toward playing rather than discarding
    trust: float = 0.8            #: how much of the unseen cards' expected worth is counted
    crossing_pace: float = 6.0    #: board: a player's turns per step of a pawn toward its bridge
    stall: float = 3.0            #: cost of a discard followed by a pile draw (no progress),
    #: times one more for each of our turns in a row that the draw pile did not shrink
    draw_average: bool = True     #: value a deck draw as the average over the unseen cards
    #: (off: as the position without the drawn card; about twice as fast, for search replies)
    decided: float = 100.0        #: board, the last round: a move ending the match in a
    #: sure win is worth this much more, in a sure loss this much less (a shared win: 0)


#: the weights for packs without a board (tuned on duel-classic against greedy)
DUEL = ExpertParams()
#: the weights for board packs (tuned on board-classic at 2 and 4 players against greedy):
#: every card is a step, so rows open readily and playing beats holding
BOARD = ExpertParams(open_margin=0.0, play_bias=6.0, trust=0.6)
#: the expert as a search's model of every player's replies (:mod:`.ismcts`): a deck
#: draw is not averaged over the unseen cards, which halves its time per move
REPLY = replace(DUEL, draw_average=False)
#: the weights of :meth:`Evaluation.outlook`, a position's worth in points: no margins
#: for opening or wagering (a row is worth what it is expected to score), no smoothing
OUTLOOK = replace(DUEL, open_margin=0.0, wager_margin=0.0, soft=0.0, draw_average=False)


#: the most entries an expert's shared colour plans hold before they start afresh (a
#: match of duel-classic fills some 30,000; each entry is a few hundred bytes)
SHARED_PLANS = 200_000
#: board packs: the most board contexts (:attr:`RowScore.context`) whose shared plans are
#: kept at once (:class:`BoardPlans`; the least recently asked is dropped first)
BOARD_CONTEXTS = 8


class ExpertBot(Bot):
    """Card counting and row planning from the pack's formulas, with opponent denial.

    Keeps a :class:`~.knowledge.SeatMemory` per seat, so one object can play
    several seats. ``params`` / ``board_params``: the weights for packs without
    and with a board (default :data:`DUEL`, :data:`BOARD`).
    """

    name = "expert"

    def __init__(self, params: Optional[ExpertParams] = None,
                 board_params: Optional[ExpertParams] = None):
        self.params = params or DUEL
        self.board_params = board_params or BOARD
        self._memories: dict[int, SeatMemory] = {}
        self._shared: Optional[Shared] = None

    #: the tables of the pack last seen and its family's parts (:data:`FAMILIES`)
    _family: tuple[Optional[Tables], Optional[ExpertFamily]] = (None, None)

    def family(self, pack: RulePack) -> ExpertFamily:
        """The expert's parts for ``pack``'s family (:data:`FAMILIES`), picked at the first
        sight of a pack."""
        self._family = picked = pick_for(pack, self._family, FAMILIES)
        return picked[1]

    def weights(self, pack: RulePack) -> ExpertParams:
        """The weights this bot plays ``pack`` with: ``params`` in a duel, ``board_params``
        on a board (read at each call: a subclass may change them between decisions)."""
        return self.family(pack).weights(self)

    def memory(self, view: SeatView) -> SeatMemory:
        """The seat's memory, updated with its current observation."""
        t = tables_of(view.pack)
        mem = self._memories.get(view.seat)
        if mem is None or mem.t is not t:
            mem = self._memories[view.seat] = SeatMemory(t, view.seat)
        mem.observe(view.observation)
        return mem

    def choose(self, view: SeatView) -> Move:
        mem = self.memory(view)
        move = self.decide(view, mem)
        mem.played(move)
        return move

    def decide(self, view: SeatView, memory: SeatMemory) -> Move:
        """The expert's move for ``view`` given the seat's (already updated) memory."""
        return Evaluation(view.pack, view.observation, memory, self.weights(view.pack),
                          self.shared(view.pack)).best(view.legal_moves)

    def shared(self, pack: RulePack) -> Shared:
        """The colour plans this bot's decisions share (the same values as worked out
        anew, keyed by all they depend on; on a board pack, per board context:
        :class:`BoardPlans`), started afresh for another pack and once they hold
        :data:`SHARED_PLANS` entries."""
        shared = self._shared
        if shared is None or shared.t is not tables_of(pack) or shared.size() > SHARED_PLANS:
            family = self.family(pack)
            shared = self._shared = family.plans(pack, family.weights(self))
        return shared


TrackPlace = tuple[int, bool, int]
"""Board packs: our pawn on a colour's track as ``(space, leader, number cards in the row)``;
``(0, False, 0)`` while no pawn is there."""


@dataclass(frozen=True)
class BoardAfter:
    """Board packs: what one move does to the board, read from the engine."""

    tracks: tuple[TrackPlace, ...]   #: our pawn on each track afterwards
    gained: float                    #: tokens and artefacts (valued) this move takes
    ended: bool                      #: the move's crossing ends the round
    crossings_left: int              #: crossings still to come before the round ends (0: none)
    distances: tuple[int, ...]       #: steps each engaged pawn (anyone's) needs to cross
    leader_free: bool                #: our leader is still in the centre
    outcome: float = 0.0             #: the move ends the match: 1 we win, -1 we lose, 0 shared
    #: (0 too when the match goes on)


class ColourPlan(NamedTuple):
    """One colour's outlook: plays still needed, its value and the unseen cards' credit."""

    need: int
    value: float
    extra: float = 0.0
    extra_need: float = 0.0
    key: tuple = ()     #: (colour, chain, held wagers, row, track) to build its curve from


Choice = tuple[float, float, float, float, int]
"""One number of held wagers to play in a colour's plan: the row's score with the held
chain, the unseen cards' credit before their chance, the margin of the wagers played, the
plan's value (less the margins) and the plays it needs."""

Options = tuple[int, list[Choice], tuple]
"""A colour's plan before the draw chance: how many unseen cards fit, each
:data:`Choice`, and the plan's key (:attr:`ColourPlan.key`)."""

Likely = tuple[float, float, float, dict[Card, float], dict[Card, float]]
"""An opponent's likely use of one colour: the weight of its use, what its held and
unseen cards promise (points, plays), what each number card that fits its row adds,
and what each card offered on a pile adds (:meth:`OpponentProspects._offered`)."""


class SharedPlans:
    """Caches that several evaluations of one pack and weights can share (a search
    evaluates thousands of positions that differ in a few cards).

    Each entry is keyed by everything its value depends on (the colour's row, the held
    cards that can still follow it, the colour's unseen cards and the draw chance, the
    very float the plan is worked out with, from the turns left and the number of cards
    unseen in all), so a shared entry is the value the evaluation would work out itself.
    On a board pack the values depend on the board too: the track places are in the
    keys, and the rest (the tiles left and their worth) is the ``context``
    (:attr:`RowScore.context`) the plans are made for; an evaluation of another board
    context does not use them (:meth:`for_board`; :class:`BoardPlans` keeps one per
    context). ``board_free``: plans of the same pack and weights whose caches that do not
    depend on the board (chains, fittings, unseen names) these share.
    """

    def __init__(self, pack: RulePack, params: ExpertParams, context: Optional[tuple] = None,
                 board_free: Optional[SharedPlans] = None):
        self.pack = pack
        self.t = tables_of(pack)
        self.params = params
        #: board packs: the board context these values hold for (None: a duel's, or no board)
        self.context = context
        #: board packs: what a row scores, by colour, space, leader and the space it reaches
        #: (:meth:`RowScore.at`)
        self.scores: dict[tuple, float] = {}
        self.plans: dict[tuple, ColourPlan] = {}
        #: the same plans by the colour's held cards themselves (before the chain that
        #: follows the row is worked out), the row, the draw chance, the track and the
        #: colour's unseen numbers
        self.by_hand: dict[tuple, ColourPlan] = {}
        self.curves: dict[tuple, list[float]] = {}
        #: per colour, held cards, row and the colour's unseen cards: each drawn card's
        #: plan options (:meth:`RowPlans.draws`)
        self.drawn: dict[tuple, list] = {}
        #: board packs, keyed as :attr:`drawn`: the chain each drawn card's plan counts
        #: (:meth:`RowPlans._board_drawn`; the same on every board)
        self.drawn_chains: dict[tuple, list] = {}
        #: per colour's row, held chain and wagers: its score and the unseen cards' credit
        self.extras: dict[tuple, Options] = {}
        self.opponent_rows: dict[tuple, tuple[float, list[float], dict[Card, float]]] = {}
        #: per opponent's colour: its likely use (:meth:`OpponentProspects.likely`), keyed by
        #: the row, its track place, the colour's unseen numbers, the opponent's known cards
        #: of the colour and its chance of holding an unseen card; for a colour it has not
        #: opened, also how readily it opens colours and how many it has opened
        self.likely: dict[tuple, Likely] = {}
        #: per opponent's colour: what each card offered on a pile adds to its prospect
        #: (:meth:`OpponentProspects._offered`), keyed as :attr:`likely` but by the number
        #: of unseen cards it may expect rather than the chance they are worked out from
        self.offered: dict[tuple, dict[Card, float]] = {}
        #: per row and the colour's held cards: the held numbers that follow it, wagers
        self.chains: dict[tuple, tuple[tuple[int, ...], int]] = {}
        #: per colour, row state and the colour's unseen numbers: the values that fit
        self.fitting: dict[tuple, list[int]] = {}
        #: whether a card a row state refuses is refused by every state after it too
        #: (worked out when first asked: :meth:`refusals_last`)
        self._refusals_last: Optional[bool] = None
        #: a short name for each colour's unseen number cards met, for the keys
        self.unseen: dict[tuple, int] = {}
        #: the card kinds of each colour in the pack's deck, in order
        self.kinds: list[list[Card]] = kinds_by_colour(self.t) if board_free is None \
            else board_free.kinds
        if board_free is not None:
            self.chains, self.fitting, self.unseen, self.drawn_chains = \
                board_free.chains, board_free.fitting, board_free.unseen, board_free.drawn_chains
            self._refusals_last = board_free.refusals_last()

    def refusals_last(self) -> bool:
        """Whether every card a row state refuses stays refused once any card is added
        (true of the usual rising rows): then a drawn card the row refuses cannot join
        the held cards that follow it, and leaves the colour's plan as it is."""
        if self._refusals_last is None:
            after = self.t.after
            self._refusals_last = all(
                after[nxt][x] < 0
                for state in after for x, to in enumerate(state) if to < 0
                for nxt in state if nxt >= 0)
        return self._refusals_last

    def size(self) -> int:
        """How many entries the caches hold in all."""
        return self.board_size() + len(self.unseen) + len(self.chains) + len(self.fitting) \
            + len(self.drawn_chains)

    def board_size(self) -> int:
        """How many entries the caches whose values may depend on the board hold (all
        but the chains, the drawn cards' chains, the fittings and the unseen names)."""
        return len(self.plans) + len(self.by_hand) + len(self.curves) + len(self.extras) \
            + len(self.drawn) + len(self.opponent_rows) + len(self.likely) + len(self.offered) \
            + len(self.scores)

    def for_board(self, context: Optional[tuple]) -> SharedPlans:
        """The plans an evaluation of board ``context`` shares: these if made for it (a
        duel: None), else fresh ones (a board's values hold for their context only)."""
        if context == self.context:
            return self
        return SharedPlans(self.pack, self.params, context)


class BoardPlans:
    """Board packs: the :class:`SharedPlans` of each board context met (the tiles left
    and their worth, :attr:`RowScore.context`), for one pack and weights, so that the
    evaluations of a board share what a fresh one would work out for that board: at
    most :data:`BOARD_CONTEXTS` contexts, the least recently asked dropped first. The
    caches that do not depend on the board are shared by all the contexts."""

    def __init__(self, pack: RulePack, params: ExpertParams):
        self.pack = pack
        self.t = tables_of(pack)
        self.params = params
        #: the caches every context shares (its own board caches stay empty)
        self.board_free = SharedPlans(pack, params)
        self.boards: dict[tuple, SharedPlans] = {}

    def for_board(self, context: Optional[tuple]) -> SharedPlans:
        """The shared plans of board ``context`` (made when first asked)."""
        boards = self.boards
        shared = boards.pop(context, None)
        if shared is None:
            if len(boards) >= BOARD_CONTEXTS:
                del boards[next(iter(boards))]
            shared = SharedPlans(self.pack, self.params, context, self.board_free)
        boards[context] = shared  # the most recently asked last
        return shared

    def size(self) -> int:
        """How many entries the contexts' caches hold in all."""
        return self.board_free.size() + sum(shared.board_size()
                                            for shared in self.boards.values())


Shared = Union[SharedPlans, BoardPlans]
"""What evaluations share: a :class:`SharedPlans`, or on a board pack a :class:`BoardPlans`
(one per board context)."""


def kinds_by_colour(t: Tables) -> list[list[Card]]:
    """The card kinds of each colour in the pack's deck, in order."""
    kinds: list[list[Card]] = [[] for _ in t.colours]
    for card in sorted(set(t.deck)):
        kinds[t.colour_of[card]].append(card)
    return kinds


class Unseen:
    """The cards a seat has not seen, as the other steps read them (``kinds``: the
    deck's card kinds by colour, :func:`kinds_by_colour`, when already worked out)."""

    def __init__(self, t: Tables, memory: SeatMemory, names: dict[tuple, int],
                 kinds: Optional[list[list[Card]]] = None):
        counts = self.counts = memory.unseen()
        #: how many cards are unseen in all (at least 1, a divisor)
        self.hidden = max(1, sum(counts))
        #: unseen number cards by colour (with repeats for copies)
        self.numbers: list[list[Card]] = []
        #: unseen cards by colour, wagers included, as (card, copies unseen)
        self.cards: list[list[tuple[Card, int]]] = []
        is_wager = t.is_wager
        for colour_kinds in kinds or kinds_by_colour(t):
            cards = [(card, counts[card]) for card in colour_kinds if counts[card]]
            numbers: list[Card] = []
            for card, count in cards:
                if not is_wager[card]:
                    if count == 1:
                        numbers.append(card)
                    else:
                        numbers.extend([card] * count)
            self.cards.append(cards)
            self.numbers.append(numbers)
        #: each colour's unseen number cards by short name: what a shared plan depends
        #: on beyond the colour's own cards and the draw chance
        self.keys = [names.setdefault(cards, len(names)) for cards in map(tuple, self.numbers)]
        #: the same for all the colour's unseen cards, wagers included, with their copies
        self.all_keys = [names.setdefault(cards, len(names)) for cards in map(tuple, self.cards)]


class RowScore:
    """What a row of number values and wagers scores: by the expedition formula, or on
    a board, the pawn formula at the space its cards carry the pawn to, plus the tiles
    met on the way (an artefact is worth what the match formula gives for one more)."""

    def __init__(self, pack: RulePack, obs: Observation):
        self.f: Callable[[int, Sequence[int], int], int] = pack.scoring.expedition
        self.board = obs.board
        self.artefact = 0
        self.tile_worth: dict[tuple[int, int], float] = {}
        #: board packs: all a row's score depends on beyond its colour and track place (the
        #: last space, and each tile's worth by track and space: the tiles left, an
        #: artefact at what one more is worth to the seat); None in a duel
        self.context: Optional[tuple] = None
        #: board packs: the scores worked out, by (colour, space, leader, reach), shared
        #: by the evaluations of one context (:attr:`SharedPlans.scores`)
        self.memo: dict[tuple, float] = {}
        FAMILIES[tables_of(pack).family].score(self, pack, obs)

    def __call__(self, colour: int, values: Sequence[int], wagers: int,
                 track: Optional[TrackPlace] = None) -> float:
        if track is None:
            return self.f(colour, values, wagers)
        return self.at(colour, len(values), track)

    def at(self, colour: int, cards: int, track: TrackPlace) -> float:
        """Board: the score of a row of ``cards`` cards (their values and the wagers do
        not move the pawn) with the pawn at ``track``, worked out once per context."""
        space, leader, before = track
        reach = min(self.spaces, space + cards - before)
        if reach <= 0:
            return 0.0
        key = (colour, space, leader, reach)
        score = self.memo.get(key)
        if score is None:
            gain = 0.0
            for s in range(space + 1, reach + 1):
                gain += self.tile_worth.get((colour, s), 0.0)
            score = self.memo[key] = self.pawn(colour, reach, leader) + gain
        return score

    def steps_worth(self, colour: int, values: list[int], track: TrackPlace,
                    steps: float) -> float:
        """Board: the row's score after ``steps`` more cards (a fraction interpolates)."""
        whole = int(steps)
        cards = len(values) + whole
        low = self.at(colour, cards, track)
        if steps == whole:
            return low
        high = self.at(colour, cards + 1, track)
        return low + (steps - whole) * (high - low)


class RowPlans:
    """What our rows are worth: each colour's plan (:class:`ColourPlan`) from the cards
    held that can follow its row, the unseen cards' credit, the margins for opening and
    wagering, and the rows together within the turns left (a knapsack when they bind)."""

    def __init__(self, t: Tables, params: ExpertParams, score: RowScore, unseen: Unseen,
                 shared: SharedPlans):
        self.t, self.p, self.score, self.unseen = t, params, score, unseen
        self._shared = shared.plans
        self._curves = shared.curves
        self._drawn = shared.drawn
        self._drawn_chains = shared.drawn_chains
        self._extras = shared.extras
        self._by_hand = shared.by_hand
        self._chains = shared.chains
        self._fittings = shared.fitting
        self._refusals_last = shared.refusals_last
        self._chances: dict[int, float] = {}
        #: per turns left, the last hand and rows asked (their colours' very tuples), the
        #: board after and their plans: the moves of a decision change one colour each
        self._last: dict[int, tuple[tuple, tuple, Optional[BoardAfter], list[ColourPlan]]] = {}

    def plans(self, hand: Sequence[tuple[Card, ...]], rows: Sequence[tuple[Card, ...]],
              future: int, after: Optional[BoardAfter] = None) -> list[ColourPlan]:
        """Every colour's plan (``hand`` and ``rows`` by colour); a colour whose cards are
        the very tuples of the last call with these turns left keeps its plan."""
        plan = self.plan
        hand, rows = tuple(hand), tuple(rows)
        last = self._last.get(future)
        if last is not None and last[2] is after:
            last_hand, last_rows, _, last_plans = last
            out = [last_plans[c] if hand[c] is last_hand[c] and rows[c] is last_rows[c]
                   else plan(c, hand[c], rows[c], future,
                             None if after is None else after.tracks[c])
                   for c in self.t.colours]
        elif after is None:
            out = [plan(c, hand[c], rows[c], future) for c in self.t.colours]
        else:
            out = [plan(c, hand[c], rows[c], future, after.tracks[c]) for c in self.t.colours]
        self._last[future] = (hand, rows, after, out)
        return out

    def combine(self, plans: list[ColourPlan], future: int) -> float:
        """The rows together: their values and, as far as the spare turns go, the unseen
        cards' credit; the best cards only (:meth:`knapsack`) when the plays do not fit."""
        need = 0
        for p in plans:
            need += p.need
        if need <= future:
            spare = future - need
            xneed = 0.0
            for p in plans:
                xneed += p.extra_need
            scale = 1.0 if xneed <= spare else spare / xneed
            total = 0.0
            for p in plans:
                total += p.value + scale * p.extra
            return total
        return self.knapsack(plans, future)

    def knapsack(self, plans: list[ColourPlan], slots: int) -> float:
        """Best total when only ``slots`` more cards can be played (no unseen credit)."""
        best = [0.0] * (slots + 1)
        curves = self._curves
        for plan in plans:
            curve = curves.get(plan.key)
            if curve is None:
                curve = self.curve(*plan.key)
            # the best of best[used - k] + curve[k] over the k plays of this colour
            best = [max(map(add, best[used::-1], curve)) for used in range(slots + 1)]
        return best[slots]

    def chain(self, row: tuple[Card, ...], hand: tuple[Card, ...]) -> tuple[tuple[int, ...], int]:
        """The values of the held numbers that follow the row in order, and the wagers
        playable (all a plan depends on among the held cards; shared)."""
        key = (row, hand)
        out = self._chains.get(key)
        if out is None:
            t = self.t
            chain: list[int] = []
            state = rs = t.state_of(row)
            for card in hand:
                if t.is_wager[card]:
                    continue
                nxt = t.after[state][t.slot_of[card]]
                if nxt >= 0:
                    chain.append(t.value_of[card])
                    state = nxt
            held = sum(1 for k in hand if t.is_wager[k]) if t.allowed[rs][0] else 0
            out = self._chains[key] = (tuple(chain), held)
        return out

    def plan(self, colour: int, hand: tuple[Card, ...], row: tuple[Card, ...],
             future: int, track: Optional[TrackPlace] = None) -> ColourPlan:
        """The outlook of one of our colours (shared: by the very cards held, and by the
        hands whose cards that can follow the row are the same; on a board, as many)."""
        # a plan depends on the turns left and the number unseen only through the draw
        # chance: keyed by that very float, computed as the plan uses it
        chance = self._chances.get(future)
        if chance is None:
            chance = self.chance(future)
        unseen = self.unseen.keys[colour]
        by_hand = (colour, hand, row, chance, track, unseen)
        plan = self._by_hand.get(by_hand)
        if plan is None:
            chain, held = self.chain(row, hand)
            if track is not None:  # on a board each card is a step whatever its value
                # (:meth:`RowScore.at`): the chain counts by its length alone
                chain = (0,) * len(chain)
            plan = self._by_hand[by_hand] = self.chained(colour, chain, held, row, chance,
                                                         track, unseen)
        return plan

    def chained(self, colour: int, chain: tuple[int, ...], held: int, row: tuple[Card, ...],
                chance: float, track: Optional[TrackPlace], unseen: int) -> ColourPlan:
        """The plan of a colour whose held cards that follow ``row`` are ``chain`` and
        ``held`` wagers (:meth:`chain`; on a board, as many zeros), with the draw
        ``chance`` and the colour's ``unseen`` numbers (their short name): shared."""
        key = (colour, chain, held, row, chance, track, unseen)
        plan = self._shared.get(key)
        if plan is None:
            plan = self._shared[key] = self._plan(colour, chain, held, row, chance, track)
        return plan

    def chance(self, future: int) -> float:
        """The chance that counts an unseen card toward a plan (``trust`` times the draws
        after this turn over the cards unseen), worked out once per decision and turns."""
        chance = self._chances.get(future)
        if chance is None:
            chance = self._chances[future] = \
                self.p.trust * max(0, future - 1) / self.unseen.hidden
        return chance

    def _plan(self, colour: int, chain: tuple[int, ...], held_wagers: int,
              row: tuple[Card, ...], chance: float,
              track: Optional[TrackPlace]) -> ColourPlan:
        if track is None:  # each card adds its own value: the same for every turns left
            key = (colour, row, chain, held_wagers, self.unseen.keys[colour])
            options = self._extras.get(key)
            if options is None:
                options = self._extras[key] = self._options(colour, chain, held_wagers, row)
        else:  # each card adds a step: the expected steps, one after the other
            options = self._board_options(colour, chain, held_wagers, row, track, chance)
        return self._with_chance(options, row, chance, track is None)

    def _with_chance(self, options: Options, row: tuple[Card, ...], chance: float,
                     credit: bool) -> ColourPlan:
        """The plan from its ``options`` and the draw chance (``credit``: the unseen
        cards' credit is still to be multiplied by it, as in a duel)."""
        p = self.p
        fitting, choices, key = options
        best = None
        best_score = 0.0
        for choice in choices:
            extra = choice[1] * chance if credit else choice[1]
            score = choice[0] + extra - choice[2]
            if best is None or score > best_score:
                best, best_score, best_extra = choice, score, extra
        assert best is not None
        _, _, _, value, need = best
        extra = best_extra
        xneed = chance * fitting
        if row:
            return ColourPlan(need, value, extra, xneed, key)
        gain = value + extra
        soft = p.soft * math.log1p(math.exp(min(50.0, gain / p.soft))) if p.soft > 0 \
            else max(0.0, gain)
        if gain <= 0:
            return ColourPlan(0, soft, key=key)
        return ColourPlan(need, soft - extra, extra, xneed, key)

    def _choices(self, colour: int, chain: tuple[int, ...], held_wagers: int,
                 row: tuple[Card, ...], track: Optional[TrackPlace],
                 by_wagers: list[tuple[float, float]]) -> tuple[list[Choice], tuple]:
        """Each number of held wagers played as a :data:`Choice`, and the plan's key:
        what does not depend on the draw chance, worked out once."""
        p = self.p
        wagers = 0
        for k in row:
            if self.t.is_wager[k]:
                wagers += 1
        # margins are charged alike before and after a row is opened, so that opening
        # or wagering is chosen for what it promises, never for a margin it would drop
        choices = [(base, extra, w * p.wager_margin,
                    base - p.open_margin - (wagers + w) * p.wager_margin, len(chain) + w)
                   for w, (base, extra) in enumerate(by_wagers)]
        return choices, (colour, chain, held_wagers, row, track)

    def _fitting(self, colour: int, rs: int) -> list[int]:
        """The values of the colour's unseen number cards that the row still takes."""
        key = (colour, rs, self.unseen.keys[colour])
        out = self._fittings.get(key)
        if out is None:
            t = self.t
            out = self._fittings[key] = [t.value_of[k] for k in self.unseen.numbers[colour]
                                         if t.after[rs][t.slot_of[k]] >= 0]
        return out

    def _options(self, colour: int, chain: tuple[int, ...], held_wagers: int,
                 row: tuple[Card, ...]) -> Options:
        """For each number of held wagers played: the row's score with the held chain,
        and what the unseen cards that fit add to it in all (before their chance)."""
        t, f = self.t, self.score.f  # a duel's row: the expedition formula itself
        extras = self._fitting(colour, t.state_of(row))
        values = [t.value_of[k] for k in row if not t.is_wager[k]]
        wagers = len(row) - len(values)
        plan_values = values + list(chain)
        each = [sorted(plan_values + [v]) for v in extras]  # the row with each unseen card
        out = []
        for w in range(held_wagers + 1):
            base = f(colour, plan_values, wagers + w)
            extra = 0.0
            for with_card in each:
                extra += f(colour, with_card, wagers + w) - base
            out.append((base, extra))
        return (len(extras), *self._choices(colour, chain, held_wagers, row, None, out))

    def _board_options(self, colour: int, chain: tuple[int, ...], held_wagers: int,
                       row: tuple[Card, ...], track: TrackPlace, chance: float
                       ) -> Options:
        """:meth:`_options` on a board, where each card is a step (credit after chance)."""
        t, f = self.t, self.score
        extras = self._fitting(colour, t.state_of(row))
        values = [t.value_of[k] for k in row if not t.is_wager[k]]
        wagers = len(row) - len(values)
        plan_values = values + list(chain)
        out = []
        for w in range(held_wagers + 1):
            base = f(colour, plan_values, wagers + w, track)
            out.append((base, f.steps_worth(colour, plan_values, track,
                                            chance * len(extras)) - base))
        return (len(extras), *self._choices(colour, chain, held_wagers, row, track, out))

    def curve(self, colour: int, chain: tuple[int, ...], held_wagers: int,
              row: tuple[Card, ...], track: Optional[TrackPlace] = None) -> list[float]:
        """Value of the colour with 0, 1, 2... more plays from hand (the best cards)."""
        key = (colour, chain, held_wagers, row, track)
        curve = self._curves.get(key)
        if curve is None:
            curve = self._curves[key] = self._curve(colour, chain, held_wagers, row, track)
        return curve

    def _curve(self, colour: int, chain: tuple[int, ...], held_wagers: int,
               row: tuple[Card, ...], track: Optional[TrackPlace]) -> list[float]:
        t, f, p = self.t, self.score, self.p
        values = [t.value_of[k] for k in row if not t.is_wager[k]]
        wagers = len(row) - len(values)
        sunk = p.open_margin + wagers * p.wager_margin
        curve = [f(colour, values, wagers, track) - sunk if row else 0.0]
        ordered = sorted(chain)
        for k in range(1, len(chain) + held_wagers + 1):
            best = -math.inf
            for w in range(min(k, held_wagers) + 1):
                if k - w > len(chain):
                    continue
                numbers = ordered[len(chain) - (k - w):] if k > w else []
                score = f(colour, values + numbers, wagers + w, track) - w * p.wager_margin - sunk
                best = max(best, score)
            curve.append(best)
        return curve

    def draws(self, colour: int, hand: tuple[Card, ...], row: tuple[Card, ...], future: int,
              track: Optional[TrackPlace]) -> tuple[int, float, int, float,
                                                    list[tuple[int, ColourPlan]]]:
        """The draw's value for one colour: what drawing an unseen card of ``colour`` does
        to its plan. The number of such cards, the sum of their plans' worth (value and
        credit), the most plays, and plays plus credited plays, one of them needs, and
        each card's copies unseen and plan."""
        count = 0
        total = 0.0
        most_need = 0
        most_both = 0.0
        each = []
        same: Optional[ColourPlan] = None
        if track is None:  # what each drawn card makes of the plan, whatever the chance
            key = (colour, hand, row, self.unseen.all_keys[colour])
            drawn = self._drawn.get(key)
            if drawn is None:
                drawn = self._drawn[key] = self._drawn_options(colour, hand, row)
            chance = self.chance(future)
            with_chance = self._with_chance
            for times, options in drawn:
                if options is None:
                    if same is None:
                        same = self.plan(colour, hand, row, future)
                    q = same
                else:
                    q = with_chance(options, row, chance, True)
                each.append((times, q))
        else:  # each drawn card's chain (shared), the plan by its length and the chance
            key = (colour, hand, row, self.unseen.all_keys[colour])
            chains = self._drawn_chains.get(key)
            if chains is None:
                chains = self._drawn_chains[key] = self._board_drawn(colour, hand, row)
            chance = self.chance(future)
            unseen = self.unseen.keys[colour]
            chained = self.chained
            for times, chain in chains:
                if chain is None:
                    if same is None:
                        same = self.plan(colour, hand, row, future, track)
                    q = same
                else:
                    q = chained(colour, chain[0], chain[1], row, chance, track, unseen)
                each.append((times, q))
        for times, q in each:
            count += times
            total += times * (q.value + q.extra)
            if q.need > most_need:
                most_need = q.need
            if q.need + q.extra_need > most_both:
                most_both = q.need + q.extra_need
        return count, total, most_need, most_both, each

    def _refused(self, row: tuple[Card, ...], card: Card) -> bool:
        """Whether a drawn ``card`` leaves the colour's plan as it is: a card the row
        refuses leaves the held cards that follow it as they are (a wager: while the row
        takes no wager; a number: while refused cards stay refused)."""
        t = self.t
        rs = t.state_of(row)
        if rs < 0:
            return False
        if t.is_wager[card]:
            return not t.allowed[rs][0]
        return self._refusals_last() and t.after[rs][t.slot_of[card]] < 0

    def _board_drawn(self, colour: int, hand: tuple[Card, ...], row: tuple[Card, ...]
                     ) -> list[tuple[int, Optional[tuple[tuple[int, ...], int]]]]:
        """Board packs: for each unseen card of ``colour``, its copies unseen and the chain
        the plan with it in hand counts (as many zeros as cards, and the wagers; None: the
        hand's own plan, a card the row refuses), the same on every board."""
        out: list[tuple[int, Optional[tuple[tuple[int, ...], int]]]] = []
        for card, times in self.unseen.cards[colour]:
            if self._refused(row, card):
                out.append((times, None))
            else:
                chain, held = self.chain(row, _insert(hand, card))
                out.append((times, ((0,) * len(chain), held)))
        return out

    def _drawn_options(self, colour: int, hand: tuple[Card, ...], row: tuple[Card, ...]
                       ) -> list[tuple[int, Optional[Options]]]:
        """Duel packs: for each unseen card of ``colour``, its copies unseen and the
        options of the plan with it in hand (None: the hand's own plan, a card the row
        refuses); shared across decisions, the draw chance applied afterwards."""
        out: list[tuple[int, Optional[Options]]] = []
        for card, times in self.unseen.cards[colour]:
            if self._refused(row, card):
                out.append((times, None))
                continue
            chain, held = self.chain(row, _insert(hand, card))
            key = (colour, row, chain, held, self.unseen.keys[colour])
            options = self._extras.get(key)
            if options is None:
                options = self._extras[key] = self._options(colour, chain, held, row)
            out.append((times, options))
        return out


class OpponentProspects:
    """What each opponent may still add to its rows, and what a card is worth to it.

    For each opponent's colour: the cards it was seen taking and still holds, the unseen
    cards it may hold or draw (weighted by its chance to get them), and the discard top
    it could take, all bounded by its turns left. A pile top is valued by what it adds
    to that opponent's likely row: a number card by the points it adds, a wager by what
    doubling (by the pack's formula) the likely row adds, and for a colour it has not
    opened, what opening with that card would bring over leaving the colour unopened
    (a low card alone brings nothing; a wager or a low card next to the cards it may
    hold can)."""

    def __init__(self, t: Tables, obs: Observation, memory: SeatMemory, params: ExpertParams,
                 score: RowScore, unseen: Unseen, shared: SharedPlans):
        self.t, self.obs, self.memory, self.p = t, obs, memory, params
        self.score, self.unseen = score, unseen
        self.me = obs.seat
        self.n = len(obs.players)
        self._colour_rows = shared.opponent_rows
        self._shared_likely = shared.likely
        self._shared_offered = shared.offered
        self._cache: dict[tuple, float] = {}
        #: per opponent and chance of holding an unseen card: each colour's weight, what
        #: its unseen and known cards promise (points, plays), and what each top adds
        self._held: dict[tuple, list[Likely]] = {}
        self._rows: dict[int, list[tuple[float, list[float], dict[Card, float]]]] = {}
        #: the card kinds of each colour, in order
        self.kinds: list[list[Card]] = shared.kinds
        #: per seat, how readily it opens colours (:meth:`readiness`; on a board, where
        #: every card is a step whatever its value, 0: the tuned BOARD weights as before)
        family = FAMILIES[t.family]
        self.ready: list[float] = family.ready(self)
        #: per seat and colour, its pawn's place on the colour's track (None in a duel)
        self.tracks: list[list[Optional[TrackPlace]]] = family.tracks(t, obs)

    def readiness(self, share: float) -> float:
        """How readily an opponent opens colours, from the share of its colours it opened
        (this round, or the last round as it ended): 0 up to ``ready_from``, 1 for all.
        An opponent that opens every colour will open one it has not opened yet, so a card
        of that colour is worth to it what it adds to the row it will build there."""
        low = self.p.ready_from
        return 0.0 if share <= low else min(1.0, (share - low) / (1.0 - low))

    def total(self, tops: Sequence[Optional[Card]], deck: int, cap: Optional[int]) -> float:
        """What the opponents may still add to their rows (cached per position)."""
        key = (tuple(tops), deck, cap)
        value = self._cache.get(key)
        if value is None:
            value = self._cache[key] = sum(
                self.prospect(s, tops, deck, cap) for s in range(self.n) if s != self.me)
        return value

    def prospect(self, seat: int, tops: Sequence[Optional[Card]], deck: int,
                 cap: Optional[int]) -> float:
        """What one opponent may still add, with these pile tops on offer."""
        ahead = (seat - self.me) % self.n
        future = max(0, (deck - ahead + self.n) // self.n) if deck else 0
        if cap is not None:
            future = min(future, cap)
        known = self.memory.known[seat] if self.memory.known else []
        unknown_hand = self.obs.hand_sizes[seat] - len(known)
        chance = (unknown_hand + max(0, future - 1)) / self.unseen.hidden
        held = self._held.get((seat, chance))
        if held is None:  # the same for every discard top: worked out once
            held = self._held[(seat, chance)] = self._likely(seat, known, chance)
        gains = 0.0
        need = 0.0
        fed = 0.0  # what the pile tops on offer add, of that
        for (weight, points, plays, fits, offered), top in zip(held, tops):
            bonus = 0.0
            if top is not None:
                worth = offered.get(top)
                if worth is not None:  # a wager, or a card of a colour it has not opened
                    bonus = worth
                    if worth > 0:
                        need += 1
                        fed += worth
                else:
                    delta = fits.get(top)
                    if delta is not None:
                        points += delta
                        plays += 1
                        if delta > 0:
                            fed += weight * delta
            if points > 0:
                gains += weight * points
                need += plays
            gains += bonus
        if need > future:
            share = future / need if need else 0.0
            gains *= share
            # an opponent that opens colours readily plays every card that fits: what it
            # takes from a pile counts in full, not as a share of the turns it has left
            ready = self.ready[seat]
            if ready:
                gains += ready * fed * (1.0 - share)
        return gains

    def _likely(self, seat: int, known: Sequence[Card], chance: float) -> list[Likely]:
        """Per colour: the weight of its use, what its held and unseen cards promise
        (points, plays), and what each card that could top a pile adds to that (shared:
        :attr:`SharedPlans.likely`, keyed by all a colour's entry depends on)."""
        out = []
        rows = self.obs.rows[seat]
        tracks = self.tracks[seat]
        keys = self.unseen.keys
        colour_of = self.t.colour_of
        shared = self._shared_likely
        ready = self.ready[seat]
        opened = sum(1 for row in rows if row)
        for colour, entry in enumerate(self.opponent_rows(seat)):
            row = rows[colour]
            track = tracks[colour]
            # of the known cards, only the colour's own count (in the order they are held)
            held = tuple(card for card in known if colour_of[card] == colour)
            key = (colour, row, track, keys[colour], held, chance) if row else \
                (colour, row, track, keys[colour], held, chance, ready, opened)
            likely = shared.get(key)
            if likely is None:
                likely = shared[key] = self._colour_likely(seat, colour, row, track, held,
                                                           chance, entry)
            out.append(likely)
        return out

    def _colour_likely(self, seat: int, colour: int, row: tuple[Card, ...],
                       track: Optional[TrackPlace], known: Sequence[Card], chance: float,
                       entry: tuple[float, list[float], dict[Card, float]]) -> Likely:
        """One colour's entry of :meth:`_likely` (``entry``: its :meth:`opponent_rows`)."""
        weight, unseen, fits = entry
        ready = self.ready[seat]
        if not row and ready > weight:  # it will open this colour too
            weight = ready
        points = plays = 0.0
        for delta in unseen:
            points += chance * delta
            plays += chance
        for card in known:
            delta = fits.get(card)
            if delta is not None:
                points += delta
                plays += 1
        # on a board every card is a step whatever its value (the tuned weights of
        # BOARD count the rows as before)
        offered = {} if track is not None else \
            self._offered(seat, colour, row, track, known, chance)
        return (weight, points, plays, fits, offered)

    def _offered(self, seat: int, colour: int, row: tuple[Card, ...], track: Optional[TrackPlace],
                 known: Sequence[Card], chance: float) -> dict[Card, float]:
        """What a wager of ``colour``, or any card of it while the colour is not opened,
        adds to the opponent's prospect there if it tops a pile (points, at least 0)."""
        t = self.t
        rs = t.state_of(row)
        opened = bool(row)
        if opened and not any(t.is_wager[card] and t.after[rs][t.slot_of[card]] >= 0
                              for card in self.kinds[colour]):
            return {}  # an opened row that takes no more wagers: nothing on offer adds
        pool = sorted(t.value_of[k] for k in self.unseen.numbers[colour]
                      if t.after[rs][t.slot_of[k]] >= 0)
        expect = int(round(chance * len(pool)))
        # the chance counts only through the number of unseen cards expected: shared by
        # that (and, for a colour not opened, how readily the opponent opens colours)
        key = (colour, row, track, self.unseen.keys[colour], tuple(known), expect)
        if not opened:
            key += (self.ready[seat], sum(1 for r in self.obs.rows[seat] if r))
        offered = self._shared_offered.get(key)
        if offered is None:
            offered = self._shared_offered[key] = \
                self._offers(seat, colour, row, track, known, rs, pool, expect)
        return offered

    def _offers(self, seat: int, colour: int, row: tuple[Card, ...],
                track: Optional[TrackPlace], known: Sequence[Card], rs: int,
                pool: list[int], expect: int) -> dict[Card, float]:
        """:meth:`_offered` worked out: ``rs`` the row's state, ``pool`` the values of the
        unseen numbers that fit it, sorted, of which the opponent may ``expect`` some."""
        t, f = self.t, self.score
        opened = bool(row)
        values = [t.value_of[k] for k in row if not t.is_wager[k]]
        wagers = len(row) - len(values)
        # the likely row: its cards, the numbers it holds that fit, and as many of the
        # unseen numbers that fit as it may expect to get (spread over their values)
        fitting = sorted(t.value_of[k] for k in known if t.colour_of[k] == colour
                         and not t.is_wager[k] and t.after[rs][t.slot_of[k]] >= 0)
        if expect and pool:
            step = len(pool) / expect
            fitting += [pool[min(len(pool) - 1, int(i * step + step / 2))] for i in range(expect)]
        likely = sorted(values + fitting)
        now = f(colour, likely, wagers, track)
        # an opponent that opens colours readily will open this one too: weighted by the
        # square of the share of its colours it has opened (all: 1), at least ``unstarted``
        rows = self.obs.rows[seat]
        weight = 1.0 if opened else max(self.p.unstarted,
                                        (sum(1 for r in rows if r) / max(1, len(rows))) ** 2)
        ready = self.ready[seat]
        offered: dict[Card, float] = {}
        for card in self.kinds[colour]:
            if t.after[rs][t.slot_of[card]] < 0:
                continue
            if t.is_wager[card]:
                worth = f(colour, likely, wagers + 1, track) - now
            elif not opened:
                worth = f(colour, sorted(likely + [t.value_of[card]]), wagers, track) - now
            else:
                continue
            if not opened:
                # an unopened colour: worth what it brings beyond leaving it alone, but to
                # an opponent that opens colours readily, what it adds to the row it builds
                clipped = max(0.0, max(0.0, now + worth) - max(0.0, now))
                offered[card] = max(0.0, ready * worth + (1.0 - ready) * weight * clipped)
            else:
                offered[card] = weight * max(0.0, worth)
        return offered

    def opponent_rows(self, seat: int) -> list[tuple[float, list[float], dict[Card, float]]]:
        """Per colour of an opponent's rows: its weight, what each unseen card that fits
        would add, and what each number card of the colour that fits would add (by card);
        the same for every move of a decision, so worked out once."""
        rows = self._rows.get(seat)
        if rows is not None:
            return rows
        rows = []
        for colour, row in enumerate(self.obs.rows[seat]):
            track = self.tracks[seat][colour]
            key = (colour, row, track, self.unseen.keys[colour])
            entry = self._colour_rows.get(key)
            if entry is None:
                entry = self._colour_rows[key] = self._opponent_row(colour, row, track)
            rows.append(entry)
        self._rows[seat] = rows
        return rows

    def _opponent_row(self, colour: int, row: Sequence[Card], track: Optional[TrackPlace]
                      ) -> tuple[float, list[float], dict[Card, float]]:
        t, f = self.t, self.score
        rs = t.state_of(row)
        values = [t.value_of[k] for k in row if not t.is_wager[k]]
        wagers = len(row) - len(values)
        base = f(colour, values, wagers, track)
        fits: dict[Card, float] = {}
        for card in t.deck:
            if t.colour_of[card] == colour and not t.is_wager[card] and card not in fits \
                    and t.after[rs][t.slot_of[card]] >= 0:
                fits[card] = f(colour, values + [t.value_of[card]], wagers, track) - base
        unseen = [fits[card] for card in self.unseen.numbers[colour] if card in fits]
        return (1.0 if row else self.p.unstarted, unseen, fits)


class BoardReading:
    """Board packs: what a move does to the board (played by the engine on a copy of
    the position), and whether a move that ends the match wins it."""

    def __init__(self, pack: RulePack, obs: Observation, memory: SeatMemory, t: Tables,
                 artefact: float):
        self.pack, self.obs, self.memory, self.t = pack, obs, memory, t
        self.board = obs.board
        self.me = obs.seat
        self.n = len(obs.players)
        self.artefact = artefact
        self._after: dict[tuple, BoardAfter] = {}
        self._state: Optional[GameState] = None

    def bias(self, bias: float, after: BoardAfter, params: ExpertParams) -> float:
        """A move's ``bias`` once it is known to end the match: ``params.decided`` more
        for a sure win, that much less for a sure loss (:attr:`BoardAfter.outcome`)."""
        return bias + params.decided * after.outcome

    def after(self, move: Move) -> BoardAfter:
        """What ``move``'s card, pawn and steps do to the board (the draw does not matter)."""
        key = (move.action, move.card, move.pawn, move.steps)
        after = self._after.get(key)
        if after is None:
            after = self._after[key] = self._read(move)
        return after

    def _read(self, move: Move) -> BoardAfter:
        if self._state is None:
            self._state = Determinizer(self.pack, self.obs, self.memory).deal(random.Random(0))
        state, me, t = self._state, self.me, self.t
        space = action_space(self.pack)
        decisions = []
        if self.obs.pending is None:
            decisions.append(space.card_action(move.action, move.card))
        if move.pawn is not None:
            decisions.append(space.ranges["pawn"].start + move.pawn)
        decisions.extend(space.advance_action(track) for track in move.steps)
        before = self.board
        for action in decisions:
            push_action(state, action)
        outcome = 0.0
        if state.finished:  # the round ended during the move
            end = state.finished[-1]
            places, tokens, artefacts = end.pawns[me], end.tokens[me], end.artefacts[me]
            ended, crossings, everyone = True, before.crossings_to_end, end.pawns
            if self.obs.round >= self.obs.rounds:
                outcome = self.outcome(end.scores, end.tokens, end.artefacts)
        else:
            b = state.board
            bt = t.board
            everyone = tuple(b.pawn_places(p, bt.leader) for p in range(state.n))
            places, tokens, artefacts = everyone[me], b.tokens[me], b.artefacts[me]
            ended, crossings = False, b.crossings
        for _ in decisions:
            pop(state)
        rows = [len(r) for r in self.obs.rows[me]]
        if move.action == PLAY and self.obs.pending is None:
            rows[t.colour_of[move.card]] += 1
        tracks = [(0, False, rows[c]) for c in t.colours]
        for track, spot, leader in places:
            if track >= 0:
                tracks[track] = (spot, leader, rows[track])
        limit = before.bridge_after
        distances = tuple(limit + 1 - spot for pawns in everyone for track, spot, _ in pawns
                          if track >= 0 and spot <= limit)
        gained = (tokens - before.round_tokens[me]) \
            + self.artefact * (artefacts - before.round_artefacts[me])
        return BoardAfter(tuple(tracks), float(gained), ended,
                          max(0, before.crossings_to_end - crossings)
                          if before.crossings_to_end else 0, distances,
                          any(track < 0 and leader for track, _, leader in places), outcome)

    def outcome(self, scores: Sequence[int], tokens: Sequence[int],
                artefacts: Sequence[int]) -> float:
        """The match ending with this round's ``scores``, ``tokens`` and ``artefacts``
        (per seat): 1 if we alone win, -1 if we do not win, 0 for a shared win; totals and
        tie-breaks worked out as :func:`.turn.totals` and :func:`.turn.winners` do, from the
        finished rounds' public scores and holdings."""
        obs, board, match = self.obs, self.board, self.pack.scoring.match
        held = {"tokens": [board.tokens[p] - board.round_tokens[p] + tokens[p]
                           for p in range(self.n)],
                "artefacts": [board.artefacts[p] - board.round_artefacts[p] + artefacts[p]
                              for p in range(self.n)]}
        totals = [match([r[p] for r in obs.round_scores] + [scores[p]], held["artefacts"][p],
                        held["tokens"][p]) for p in range(self.n)]
        best = max(totals)
        tied = [p for p in range(self.n) if totals[p] == best]
        for measure in self.pack.tie_break:
            if len(tied) < 2:
                break
            top = max(held[measure][p] for p in tied)
            tied = [p for p in tied if held[measure][p] == top]
        if self.me not in tied:
            return -1.0
        return 1.0 if len(tied) == 1 else 0.0


class DeckDraw:
    """What our rows are worth on average once a card is drawn from the deck, over the
    cards unseen (each with its copies): while every card drawn leaves the rows' plans
    within the turns left (the usual case), the rows add up, so the average is our
    rows' worth plus, colour by colour, what a card of that colour changes on average
    (:meth:`RowPlans.draws`, shared by the moves that leave the colour as it is);
    otherwise each card is combined (:meth:`each_card`)."""

    def __init__(self, t: Tables, rows: RowPlans):
        self.t, self.rows = t, rows
        #: each colour's draw (:meth:`RowPlans.draws`) by (colour, hand, row, turns, track)
        self._draws: dict[tuple, tuple] = {}

    def average(self, hand: list[tuple[Card, ...]], rows: list[tuple[Card, ...]], future: int,
                after: Optional[BoardAfter], mine: Optional[list[ColourPlan]] = None) -> float:
        """Our rows' expected worth after the draw (``hand`` and ``rows`` by colour,
        ``future`` our turns left after it; ``mine``: their plans if worked out)."""
        rows_ = self.rows
        if mine is None:
            mine = rows_.plans(hand, rows, future, after)
        need = 0
        xneed = 0.0
        worth = 0.0
        for plan in mine:
            need += plan.need
            xneed += plan.extra_need
            worth += plan.value + plan.extra
        gain = 0.0
        weight = 0
        simple = need <= future and xneed <= future - need
        entries = []
        draws = self._draws
        for c in self.t.colours:
            track = None if after is None else after.tracks[c]
            key = (c, hand[c], rows[c], future, track)
            entry = draws.get(key)
            if entry is None:
                entry = draws[key] = rows_.draws(c, hand[c], rows[c], future, track)
            entries.append(entry)
            count, total, most_need, most_both, _ = entry
            if not count or not simple:
                continue
            m = mine[c]
            room = future - need + m.need
            if most_need > room or most_both > room + m.extra_need - xneed:
                simple = False
                continue
            gain += total - count * (m.value + m.extra)
            weight += count
        if simple:
            return worth + gain / weight if weight else rows_.combine(mine, future)
        return self.each_card(mine, entries, future, need, xneed)

    def each_card(self, mine: list[ColourPlan], entries: list[tuple], future: int,
                  need: int, xneed: float) -> float:
        """The average over the unseen cards card by card (when the turns left bind):
        the rows' sums with one colour's plan changed, or the knapsack when its plays
        no longer fit the turns left."""
        rows_ = self.rows
        values = extras = 0.0
        for plan in mine:
            values += plan.value
            extras += plan.extra
        total = 0.0
        weight = 0
        for c, entry in enumerate(entries):
            m = mine[c]
            for times, q in entry[4]:
                n = need - m.need + q.need
                if n <= future:
                    spare = future - n
                    x = xneed - m.extra_need + q.extra_need
                    scale = 1.0 if x <= spare else spare / x
                    worth = values - m.value + q.value + scale * (extras - m.extra + q.extra)
                else:
                    plans = mine[:]
                    plans[c] = q
                    worth = rows_.knapsack(plans, future)
                total += times * worth
                weight += times
        return total / weight if weight else rows_.combine(mine, future)


class TurnsLeft:
    """Time: our turns still to come, from the draw pile and, on a board, the bridge
    crossings that end the round (bridge timing, at a rough guess)."""

    def __init__(self, n: int, board: Optional[BoardView], params: ExpertParams):
        self.n, self.board, self.p = n, board, params

    def future(self, deck: int, after: Optional[BoardAfter]) -> int:
        """Our turns still to come once the draw pile holds ``deck`` cards (and, on a
        board, before the bridge crossings that end the round)."""
        turns = deck // self.n
        cap = self.crossing_turns(after)
        return turns if cap is None else min(turns, cap)

    def crossing_turns(self, after: Optional[BoardAfter]) -> Optional[int]:
        """Each player's turns until the crossings that end the round, roughly: a pawn
        ``d`` steps from its bridge crosses in about ``crossing_pace * d`` turns of its
        player; the round ends with the ``k``-th such crossing still to come."""
        if after is None or not after.crossings_left:
            return None
        times = sorted(after.distances) + [self.board.bridge_after + 1] * after.crossings_left
        return max(1, round(self.p.crossing_pace * times[after.crossings_left - 1]))


class BoardGains:
    """Board packs: what a move takes this turn (tokens, artefacts valued) and where the
    free leader may go (leader placement: the colour where leading would gain most)."""

    def __init__(self, rows: RowPlans):
        self.rows = rows

    def __call__(self, hand: Sequence[tuple[Card, ...]], future: int,
                 after: Optional[BoardAfter]) -> float:
        if after is None:
            return 0.0
        extra = after.gained
        if after.leader_free:
            best = 0.0
            for c, track in enumerate(after.tracks):
                if track[0] or track[2]:
                    continue  # engaged already
                ordinary = self.rows.plan(c, hand[c], (), future, track)
                led = self.rows.plan(c, hand[c], (), future, (0, True, 0))
                best = max(best, led.value + led.extra - ordinary.value - ordinary.extra)
            extra += best
        return extra


class Evaluation:
    """The expert's view of one decision: values of the positions its moves leave.

    The steps, each its own object: :class:`Unseen` (the cards not seen), :class:`RowScore`
    (what a row scores), :class:`RowPlans` (what our rows are worth), :class:`DeckDraw`
    (their average over a card drawn from the deck), :class:`OpponentProspects` (what the
    opponents may add, and what a card is worth to each), :class:`TurnsLeft` (time: the
    draw pile, the bridge crossings), :class:`BoardReading` (what a move does to the
    board) and :class:`BoardGains` (what it takes, the free leader); this class values
    each move: the hand, rows and pile tops its card decision leaves, then its draw (a
    pile's top joins the hand, or the deck's average), less the opponents' prospects.

    ``shared``: caches to share with other evaluations of the same pack and weights
    (:class:`SharedPlans`; on a board pack, one serves only the board context it was made
    for, and a :class:`BoardPlans` gives each context its own); the values are the same
    with or without them.
    """

    def __init__(self, pack: RulePack, obs: Observation, memory: SeatMemory,
                 params: ExpertParams, shared: Optional[Shared] = None):
        self.pack = pack
        self.t: Tables = tables_of(pack)
        self.obs = obs
        self.memory = memory
        self.p = params
        self.me = obs.seat
        self.n = len(obs.players)
        t = self.t
        self.board = obs.board
        if shared is not None and (shared.t is not t or shared.params is not params):
            raise ValueError("shared plans made for another pack or other weights")
        family = FAMILIES[t.family]
        self.score = RowScore(pack, obs)
        context = self.score.context
        shared = SharedPlans(pack, params, context) if shared is None \
            else shared.for_board(context)
        self.score.memo = shared.scores
        self.unseen = Unseen(t, memory, shared.unseen, shared.kinds)
        self.rows = RowPlans(t, params, self.score, self.unseen, shared)
        self.opponents_of = OpponentProspects(t, obs, memory, params, self.score,
                                              self.unseen, shared)
        self.deck = DeckDraw(t, self.rows)
        self.turns = TurnsLeft(self.n, self.board, params)
        #: what a move takes this turn and the free leader (:class:`BoardGains`; 0 in a duel)
        self.gains: Callable[[Sequence[tuple[Card, ...]], int, Optional[BoardAfter]], float] = \
            family.gains(self.rows)
        #: what a move does to the board (:class:`BoardReading`; in a duel, nothing)
        self.reading: Union[BoardReading, NoBoard] = \
            family.reading(pack, obs, memory, t, self.score.artefact)

    # ------------------------------------------------------------------ moves

    def best(self, legal: Sequence[Move]) -> Move:
        """The legal move of highest value (ties: the first in the engine's order)."""
        return max(self.ranked(legal), key=lambda vm: vm[0])[1]

    def quick_best(self, legal: Sequence[Move]) -> Move:
        """:meth:`best` in two steps, for search replies: the card decision valued with a
        draw from the deck (or none), then the draw for that card decision."""
        first = [i for i, m in enumerate(legal) if m.draw is None or m.draw == DECK] \
            or list(range(len(legal)))
        # each move's value by its place in ``legal``: a move of the second step that the
        # first one valued keeps its value (ties: the first in the engine's order)
        values = dict(zip(first, (v for v, _ in self.ranked([legal[i] for i in first]))))
        move = legal[max(first, key=values.__getitem__)]
        same = [i for i, m in enumerate(legal) if m.action == move.action
                and m.card == move.card and m.pawn == move.pawn and m.steps == move.steps]
        if len(same) < 2:
            return move
        rest = [i for i in same if i not in values]
        values.update(zip(rest, (v for v, _ in self.ranked([legal[i] for i in rest]))))
        return legal[max(same, key=values.__getitem__)]

    def outlook(self) -> float:
        """What the seat's rows are expected to score by the round's end, in points, from
        its hand, its rows and the cards it has not seen (use with :data:`OUTLOOK`)."""
        obs = self.obs
        ahead = (self.me - obs.to_move) % self.n
        future = max(0, -(-(obs.draw_pile - ahead) // self.n))  # our turns left
        return self.rows.combine(self.rows.plans(self.by_colour(obs.hand), obs.rows[self.me],
                                                 future), future)

    def by_colour(self, hand: Sequence[Card]) -> list[tuple[Card, ...]]:
        """The hand's cards of each colour, sorted (how positions are valued)."""
        colour_of = self.t.colour_of
        out: list[list[Card]] = [[] for _ in self.t.colours]
        for card in sorted(hand):
            out[colour_of[card]].append(card)
        return [tuple(cards) for cards in out]

    def board_after(self, move: Move) -> BoardAfter:
        """Board packs: what ``move``'s card, pawn and steps do to the board."""
        after = self.reading.after(move)
        assert after is not None, "a pack without a board"
        return after

    def ranked(self, legal: Sequence[Move]) -> list[tuple[float, Move]]:
        """Each legal move with its value, in the engine's order."""
        obs, t, reading = self.obs, self.t, self.reading
        hand = self.by_colour(obs.hand)
        rows = list(obs.rows[self.me])
        tops = list(obs.pile_tops)
        under = [p[-2] if len(p) > 1 else None for p in self.memory.piles]
        out: list[tuple[float, Move]] = []
        #: per card decision (the moves that differ only in their draw): the hand, rows
        #: and pile tops it leaves, and their plans by turns left (worked out once)
        leaves: dict[tuple, tuple] = {}
        for move in legal:
            action, card = move.action, move.card
            decision = (action, card, move.pawn, move.steps)
            left = leaves.get(decision)
            if left is None:
                h, r, piles_top = hand, rows, tops
                if obs.pending is None:
                    c = t.colour_of[card]
                    h = hand[:]
                    i = h[c].index(card)
                    h[c] = h[c][:i] + h[c][i + 1:]
                    if action == PLAY:
                        r = rows[:]
                        r[c] = r[c] + (card,)
                    else:
                        piles_top = tops[:]
                        piles_top[c] = card
                after = reading.after(move)
                bias = reading.bias(self.p.play_bias if action == PLAY else 0.0, after, self.p)
                left = leaves[decision] = (h, r, piles_top, bias, after, {})
            h, r, piles_top, bias, after, known = left
            out.append((bias + self.draw_value(h, r, piles_top, under, move.draw, action, card,
                                               after, known), move))
        return out

    # ------------------------------------------------------------------ the draw

    def draw_value(self, hand: list[tuple[Card, ...]], rows: list[tuple[Card, ...]],
                   tops: list[Optional[Card]], under: list[Optional[Card]], draw,
                   action: str, card: Card, after: Optional[BoardAfter],
                   known: Optional[dict[int, list[ColourPlan]]] = None) -> float:
        """The position's value once the move's draw is made: a pile's top joins the hand
        (less ``stall`` after a discard), the deck gives the average over unseen cards.
        ``known``: the plans of ``hand`` and ``rows`` by turns left, filled as worked out
        (the moves of one card decision share them)."""
        deck = self.obs.draw_pile
        if draw is None or (after is not None and after.ended):  # nothing more to come
            return self.value(hand, rows, 0, tops, deck, after)
        if draw == DECK:
            future = self.future(deck - 1, after)
            if not self.p.draw_average:
                return self.value(hand, rows, future, tops, deck - 1, after)
            return self.deck_average(hand, rows, future, tops, deck - 1, after,
                                     self._plans(hand, rows, future, after, known))
        taken = tops[draw]
        new_tops = tops[:]
        retaken = action != PLAY and self.t.colour_of[card] == draw
        new_tops[draw] = self.obs.pile_tops[draw] if retaken else under[draw]
        if taken is None:
            return -math.inf
        stall = self.p.stall * (1 + self.memory.stalled) if action != PLAY else 0.0
        future = self.future(deck, after)
        colour = self.t.colour_of[taken]
        new_hand = _with(hand, colour, taken)
        # the hand's plans but the taken card's colour: the value of the new position
        plans = self._plans(hand, rows, future, after, known)[:]
        plans[colour] = self.rows.plan(colour, new_hand[colour], rows[colour], future,
                                       None if after is None else after.tracks[colour])
        return self.rows.combine(plans, future) + self.board_extra(new_hand, future, after) \
            - self.p.opponent * self.opponents(new_tops, deck, after) - stall

    def _plans(self, hand: list[tuple[Card, ...]], rows: list[tuple[Card, ...]], future: int,
               after: Optional[BoardAfter], known: Optional[dict[int, list[ColourPlan]]]
               ) -> list[ColourPlan]:
        """Every colour's plan for ``hand`` and ``rows``, from ``known`` when there."""
        if known is None:
            return self.rows.plans(hand, rows, future, after)
        plans = known.get(future)
        if plans is None:
            plans = known[future] = self.rows.plans(hand, rows, future, after)
        return plans

    def deck_average(self, hand: list[tuple[Card, ...]], rows: list[tuple[Card, ...]],
                     future: int, tops: list[Optional[Card]], deck: int,
                     after: Optional[BoardAfter],
                     mine: Optional[list[ColourPlan]] = None) -> float:
        """The expected value after drawing an unseen card from the draw pile: our rows'
        average over the cards drawn (:class:`DeckDraw`), the board's extras, less the
        opponents' prospects. ``mine``: the plans of ``hand`` and ``rows`` if already
        worked out."""
        return self.deck.average(hand, rows, future, after, mine) \
            + self.board_extra(hand, future, after) \
            - self.p.opponent * self.opponents(tops, deck, after)

    # ------------------------------------------------------------------ values

    def value(self, hand: Sequence[tuple[Card, ...]], rows: Sequence[tuple[Card, ...]],
              future: int, tops: list[Optional[Card]], deck: int,
              after: Optional[BoardAfter] = None) -> float:
        """Our rows' outlook less the opponents' (weighted) for a position after our turn:
        ``hand`` and ``rows`` by colour (:meth:`by_colour`)."""
        return self.rows.combine(self.rows.plans(hand, rows, future, after), future) \
            + self.board_extra(hand, future, after) \
            - self.p.opponent * self.opponents(tops, deck, after)

    def opponents(self, tops: list[Optional[Card]], deck: int,
                  after: Optional[BoardAfter] = None) -> float:
        """What the opponents may still add to their rows (:class:`OpponentProspects`)."""
        cap = None if after is None else (0 if after.ended else self.crossing_turns(after))
        return self.opponents_of.total(tops, deck, cap)

    def future(self, deck: int, after: Optional[BoardAfter]) -> int:
        """Our turns still to come once the draw pile holds ``deck`` cards
        (:meth:`TurnsLeft.future`)."""
        return self.turns.future(deck, after)

    def crossing_turns(self, after: Optional[BoardAfter]) -> Optional[int]:
        """Each player's turns until the crossings that end the round, roughly
        (:meth:`TurnsLeft.crossing_turns`)."""
        return self.turns.crossing_turns(after)

    def board_extra(self, hand: Sequence[tuple[Card, ...]], future: int,
                    after: Optional[BoardAfter]) -> float:
        """On a board: this turn's tokens and artefacts, and where the free leader may go
        (:class:`BoardGains`); 0 in a duel."""
        return self.gains(hand, future, after)


def _insert(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """Sorted ``cards`` with ``card`` added in order."""
    i = bisect.bisect_right(cards, card)
    return cards[:i] + (card,) + cards[i:]


def _with(hand: list[tuple[Card, ...]], colour: int, card: Card) -> list[tuple[Card, ...]]:
    """``hand`` (by colour, sorted) with ``card`` of ``colour`` added in order."""
    out = hand[:]
    out[colour] = _insert(hand[colour], card)
    return out


# ---------------------------------------------------------------------- the families

class NoBoard:
    """Duel packs' :class:`BoardReading`: a move does nothing beyond its cards."""

    def after(self, move: Move) -> None:
        """No board effects (:meth:`BoardReading.after`)."""
        return None

    def bias(self, bias: float, after: None, params: ExpertParams) -> float:
        """A duel's move ends no match by the board: its bias as it is."""
        return bias


_NO_BOARD = NoBoard()


class ExpertFamily(NamedTuple):
    """What the expert does its own way in each family (:data:`FAMILIES`): each field is
    that family's code, picked once per pack by ``tables.family``."""

    #: which of a bot's weights it plays with (read at each call)
    weights: Callable[[ExpertBot], ExpertParams]
    #: the plans a bot's decisions share (:class:`SharedPlans`, :class:`BoardPlans`)
    plans: Callable[[RulePack, ExpertParams], Shared]
    #: the rest of a :class:`RowScore`'s setup (on a board: the pawn formula, the tiles)
    score: Callable[[RowScore, RulePack, Observation], None]
    #: per seat, how readily it opens colours (:meth:`OpponentProspects.readiness`)
    ready: Callable[[OpponentProspects], list[float]]
    #: per seat and colour, its pawn's place (:data:`TrackPlace`; None in a duel)
    tracks: Callable[[Tables, Observation], list[list[Optional[TrackPlace]]]]
    #: what a move does to the board (:class:`BoardReading`, :class:`NoBoard`)
    reading: Callable[[RulePack, Observation, SeatMemory, Tables, float],
                      Union[BoardReading, NoBoard]]
    #: what a move takes this turn beyond its cards (:class:`BoardGains`; nothing in a duel)
    gains: Callable[[RowPlans], Callable[[Sequence[tuple[Card, ...]], int, Optional[BoardAfter]],
                                         float]]


def _duel_weights(bot: ExpertBot) -> ExpertParams:
    return bot.params


def _board_weights(bot: ExpertBot) -> ExpertParams:
    return bot.board_params


def _duel_score(score: RowScore, pack: RulePack, obs: Observation) -> None:
    """A duel's row scores by the expedition formula alone: nothing more to set up."""


def _board_score(score: RowScore, pack: RulePack, obs: Observation) -> None:
    """A board's row scores: the pawn formula, the last space, each tile's worth (an
    artefact at what one more is worth to the seat), and the context they make."""
    board = obs.board
    score.pawn = pack.scoring.pawn
    score.spaces = board.spaces
    match = pack.scoring.match
    held = board.artefacts[obs.seat]
    score.artefact = match([0], held + 1, 0) - match([0], held, 0)
    for track, space, kind, value in board.tiles:
        effect = TILE_KINDS[kind].effect
        if effect == ARTEFACT:
            score.tile_worth[(track, space)] = float(score.artefact)
        elif effect == POINTS:
            score.tile_worth[(track, space)] = float(value)
    score.context = (score.spaces, tuple(sorted(score.tile_worth.items())))


def _duel_ready(prospects: OpponentProspects) -> list[float]:
    """Per seat, how readily it opens colours, from the share of its colours it opened
    this round or the last (:meth:`OpponentProspects.readiness`)."""
    obs, n = prospects.obs, prospects.n
    before = getattr(prospects.memory, "opened_before", ())
    return [prospects.readiness(max(opened_share(obs.rows[seat]),
                                    before[seat] if len(before) == n else 0.0))
            for seat in range(n)]


def _board_ready(prospects: OpponentProspects) -> list[float]:
    """On a board, where every card is a step whatever its value, 0 for every seat (the
    tuned :data:`BOARD` weights as before)."""
    return [0.0] * prospects.n


def _duel_tracks(t: Tables, obs: Observation) -> list[list[Optional[TrackPlace]]]:
    """No pawns in a duel: None for each seat's colours."""
    return [[None] * t.n_colours for _ in obs.players]


def _board_tracks(t: Tables, obs: Observation) -> list[list[Optional[TrackPlace]]]:
    """Each seat's pawn on each colour's track, ``(0, False, cards)`` where it has none."""
    out: list[list[Optional[TrackPlace]]] = []
    for seat, rows in enumerate(obs.rows):
        tracks: list[Optional[TrackPlace]] = [(0, False, len(row)) for row in rows]
        for track, spot, leader in obs.board.pawns[seat]:
            if track >= 0:
                tracks[track] = (spot, leader, len(rows[track]))
        out.append(tracks)
    return out


def _no_reading(pack: RulePack, obs: Observation, memory: SeatMemory, t: Tables,
                artefact: float) -> NoBoard:
    return _NO_BOARD


def _nothing_gained(hand: Sequence[tuple[Card, ...]], future: int, after: None) -> float:
    """A duel's move takes nothing beyond its cards."""
    return 0.0


def _no_gains(rows: RowPlans) -> Callable[[Sequence[tuple[Card, ...]], int, None], float]:
    return _nothing_gained


#: the expert's parts by the pack's family (``tables.family``): each bot and evaluation
#: picks its family's once, and its code never asks again
FAMILIES: dict[str, ExpertFamily] = {
    "duel": ExpertFamily(_duel_weights, SharedPlans, _duel_score, _duel_ready, _duel_tracks,
                         _no_reading, _no_gains),
    "board": ExpertFamily(_board_weights, BoardPlans, _board_score, _board_ready,
                          _board_tracks, BoardReading, BoardGains),
}
