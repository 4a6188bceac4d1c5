"""``ismcts``: single-observer information-set Monte Carlo tree search, for the round's end.

A move is searched once the draw pile is short (``SearchParams.horizon`` cards):
there the rest of the round is a few turns that rollouts can play out faithfully.
Earlier, and on board packs, the bot plays the expert's move: measured with
paired seeds, searching earlier made it weaker than the expert, because the
fast rollout policy plays the long rest of a round worse than the expert judges
it (see docs/bots.md and ``benchmarks/bench_bots.py``).

The search:

* **determinisation**: each pass deals the cards the bot cannot see at random,
  consistently with everything it saw (:class:`~.knowledge.Determinizer`: the
  opponents' hands of the right sizes, holding the cards they were seen taking,
  the draw pile's order, the cards under the discard tops it did not see fall,
  the cards removed unseen);
* **root**: the expert's best moves are each tried on the same deal (common
  random numbers), so their differences are measured with little noise; the
  expert's first choice is kept unless another beats it by more than
  ``confidence`` standard errors of the paired differences;
* **below each candidate**: an information-set tree over every player's moves,
  chosen by UCB with availability counts among the moves legal in the current
  deal (Cowling, Powley and Whitehouse 2012), widened progressively (the rollout
  policy's move first); then a rollout to the round's end with a fast rule-based
  policy (:func:`rollout_move`) on the engine's in-place path (``turn.playout``);
  each seat's reward is its score difference at the round's end, normalised (in
  the last round: the match totals).

The budget is a number of iterations per move (:data:`LEVELS`), so a seeded
match is reproducible; ``seconds`` adds a time limit.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Optional

from .bots import Bot, SeatView
from .cards import Card
from .expert import ExpertBot
from .knowledge import Determinizer, SeatMemory
from .moves import DECK, DISCARD, PLAY, DrawSource, Move
from .rules import RulePack
from .state import OVER, GameState
from .tables import NO_NUMBERS
from .turn import illegal_reason, legal_moves, playout, push
from .view import Observation

#: search iterations per move at each level of ``lc play --level`` (3 is the default; on
#: this machine level 3 answers in well under a second, level 5 in a few seconds)
LEVELS: dict[int, int] = {1: 200, 2: 600, 3: 2000, 4: 5000, 5: 10000}
DEFAULT_LEVEL = 3


@dataclass(frozen=True)
class SearchParams:
    """The search's settings."""

    iterations: int = LEVELS[DEFAULT_LEVEL]
    seconds: Optional[float] = None    #: stop earlier once this much time has passed
    exploration: float = 0.7           #: UCB's exploration constant (rewards in 0..1)
    candidates: int = 5                #: the expert's best moves compared at the root
    widening: float = 0.5              #: children allowed below a node: 1 + widening * sqrt(visits)
    confidence: float = 1.0            #: standard errors by which a move must beat the expert's
    horizon: int = 10                  #: search only when the draw pile holds this many cards or fewer
    spread: float = 60.0               #: score difference that moves a round's reward by ~0.25
    final_spread: float = 15.0         #: the same for the match's outcome in its last round


class ISMCTSBot(Bot):
    """Information-set MCTS at the round's end, the expert before (see the module doc);
    ``level`` 1-5 or ``params``."""

    name = "ismcts"

    def __init__(self, level: int = DEFAULT_LEVEL, params: Optional[SearchParams] = None):
        if params is None:
            if level not in LEVELS:
                raise ValueError(f"ismcts level must be one of {', '.join(map(str, LEVELS))}, "
                                 f"not {level!r}")
            params = SearchParams(iterations=LEVELS[level])
        self.params = params
        self.expert = ExpertBot()

    def choose(self, view: SeatView) -> Move:
        if view.pack.board is not None:
            return self.expert.choose(view)
        memory = self.expert.memory(view)
        legal = view.legal_moves
        if len(legal) == 1:
            move = legal[0]
        elif view.observation.phase != "card" or view.observation.draw_pile > self.params.horizon:
            move = self.expert.decide(view, memory)
        else:
            move = search(view.pack, view.observation, memory, legal, view.rng, self.params,
                          self.expert)
        memory.played(move)
        return move


# ----------------------------------------------------------------- rollout policy

#: rollout policy settings: open a colour when its cards in hand score at least
#: OPEN_AT less OPEN_PER_TURN per turn left; play a card skipping at most PLAY_GAP values
OPEN_AT, OPEN_PER_TURN, PLAY_GAP = 5.0, 0.6, 1


def rollout_move(state: GameState, rng: random.Random) -> Move:
    """A quick rule-based turn for the player to move (own hand and public cards only).

    Continues its rows with the lowest card that follows, opens a colour when the
    pack's formula says its cards in hand (plus some credit for the turns left)
    would pay, plays cards that skip values only when time runs short, discards
    the card least useful to it and to the opponents, and draws a pile's top only
    when it continues one of its rows closely.
    """
    t = state.tables
    f = state.pack.scoring.expedition
    p = state.to_move
    hand = sorted(state.hands[p])
    rows = state.rows[p]
    playable = state.playable[p]
    turns = len(state.deck) // state.n + 1
    colour_of, slot_of, value_of, is_wager = t.colour_of, t.slot_of, t.value_of, t.is_wager
    best_play: Optional[Card] = None
    best_gap = 1 << 30
    need = 0
    useful: set[Card] = set()
    i = 0
    while i < len(hand):
        c = colour_of[hand[i]]
        j = i
        while j < len(hand) and colour_of[hand[j]] == c:
            j += 1
        group = hand[i:j]
        i = j
        row = rows[c]
        rs = state.row_states[p][c]
        chain: list[int] = []
        cards: list[Card] = []
        wager: Optional[Card] = None
        s = rs
        for card in group:
            if is_wager[card]:
                if playable[card] and wager is None:
                    wager = card
                continue
            nxt = t.after[s][slot_of[card]]
            if nxt >= 0:
                cards.append(card)
                chain.append(value_of[card])
                s = nxt
        if not cards:
            continue
        if len(chain) > turns:
            chain = chain[-turns:]
        if not row:
            est = f(c, chain, 0)
            if est + OPEN_PER_TURN * turns < OPEN_AT:
                continue
            if wager is not None and turns > 8 and f(c, chain, 1) > est + 10:
                cards = [wager] + cards
        useful.update(cards)
        need += len(cards)
        first = cards[0]
        if not playable[first]:
            continue
        last = 0 if rs == NO_NUMBERS else (rs - 1) // 3 + 1
        gap = 0 if is_wager[first] else slot_of[first] - last - 1
        if not row and not is_wager[first]:
            gap = max(0, gap - 2)  # the first card of a row: low cards are rare anyway
        if gap < best_gap:
            best_play, best_gap = first, gap
    discard = _discard_choice(state, hand, useful)
    if best_play is not None and (best_gap <= PLAY_GAP or need >= turns - 1
                                  or discard in useful):
        action, card = PLAY, best_play
    else:
        action, card = DISCARD, discard
    if state.last_play:
        return Move(action, card, None, codec=t.codec)
    return Move(action, card, _draw_choice(state, p, action, card, t.no_retake), codec=t.codec)


def _discard_choice(state: GameState, hand: list[Card], useful: set[Card]) -> Card:
    t = state.tables
    best, best_cost = hand[0], math.inf
    for card in hand:
        c = t.colour_of[card]
        cost = (20.0 + t.value_of[card]) if card in useful else 0.0
        for seat in range(state.n):
            if seat != state.to_move and state.rows[seat][c] and state.playable[seat][card]:
                cost += 10.0 + t.value_of[card]
        if cost < best_cost:
            best, best_cost = card, cost
    return best


def _draw_choice(state: GameState, p: int, action: str, card: Card, no_retake: bool) -> DrawSource:
    t = state.tables
    discarded = t.colour_of[card] if action == DISCARD else -1
    for c, pile in enumerate(state.piles):
        if not pile or (c == discarded and no_retake):
            continue
        top = pile[-1]
        rs = state.row_states[p][c]
        if state.rows[p][c] and not (action == PLAY and t.colour_of[card] == c) \
                and state.playable[p][top] and not t.is_wager[top]:
            last = 0 if rs == NO_NUMBERS else (rs - 1) // 3 + 1
            if t.slot_of[top] - last <= 2:
                return c
    if state.deck:
        return DECK
    for c, pile in enumerate(state.piles):
        if pile and not (c == discarded and no_retake):
            return c
    return DECK  # pragma: no cover - the engine always leaves a draw


# ----------------------------------------------------------------- the search

class _Node:
    """A decision in the shared tree: visits, summed reward of its mover, availability."""

    __slots__ = ("children", "visits", "reward", "avail", "seat")

    def __init__(self, seat: int):
        self.children: dict[Move, _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 0
        self.seat = seat          # who made the move leading here


def candidates(pack: RulePack, obs: Observation, memory: SeatMemory, legal: list[Move],
               expert: ExpertBot, count: int) -> list[Move]:
    """The ``count`` moves the expert likes best, best first."""
    from .expert import Evaluation

    ranked = Evaluation(pack, obs, memory, expert.params).ranked(legal)
    order = sorted(range(len(ranked)), key=lambda i: -ranked[i][0])
    return [ranked[i][1] for i in order[:count]]


def search(pack: RulePack, obs: Observation, memory: SeatMemory, legal: list[Move],
           rng: random.Random, params: SearchParams, expert: ExpertBot) -> Move:
    """The move the search prefers for ``obs`` (see the module doc).

    The expert's best few moves are each tried on the same random deals (common
    random numbers: their differences are measured with little noise), each
    followed by a descent of its own information-set tree and a rollout. The
    expert's first choice is kept unless another beats it by more than
    ``params.confidence`` standard errors of the paired differences.
    """
    moves = candidates(pack, obs, memory, legal, expert, params.candidates)
    if len(moves) == 1:
        return moves[0]
    det = Determinizer(pack, obs, memory)
    roots = [_Node(obs.seat) for _ in moves]
    k = len(moves)
    sums = [0.0] * k
    diffs = [0.0] * k       # paired differences with the first candidate
    squares = [0.0] * k
    final = obs.round >= obs.rounds
    start = time.perf_counter()
    passes = max(1, params.iterations // k)
    done = 0
    for _ in range(passes):
        if params.seconds is not None and done and time.perf_counter() - start > params.seconds:
            break
        base = det.deal(rng)
        seed = rng.getrandbits(32)
        rewards = []
        for move, root in zip(moves, roots):
            state = base.copy()
            push(state, move)
            rewards.append(_iterate(state, root, random.Random(seed), params, final, obs))
        done += 1
        for i, r in enumerate(rewards):
            sums[i] += r
            d = r - rewards[0]
            diffs[i] += d
            squares[i] += d * d
    best = 0
    best_margin = 0.0
    for i in range(1, k):
        mean = diffs[i] / done
        var = max(0.0, squares[i] / done - mean * mean) / max(1, done - 1)
        margin = mean - params.confidence * math.sqrt(var)
        if margin > best_margin:
            best, best_margin = i, margin
    return moves[best]


def _iterate(state: GameState, root: _Node, rng: random.Random, params: SearchParams,
             final: bool, obs: Observation) -> float:
    """One descent below a candidate move, a rollout, and the backup; the searcher's reward."""
    node = root
    path = [root]
    while state.phase != OVER:
        policy = rollout_move(state, rng)
        children = node.children
        allowed = 1 + int(params.widening * math.sqrt(node.visits))
        mover = state.to_move
        if policy not in children:
            move = policy
        else:
            legal_kids = [m for m in children if _legal(state, m)]
            if len(children) < allowed:
                extra = legal_moves(state)
                fresh = [m for m in extra if m not in children]
                move = fresh[rng.randrange(len(fresh))] if fresh else None
            else:
                move = None
            if move is None:
                c = params.exploration
                best, best_ucb = None, -math.inf
                for m in legal_kids:
                    kid = children[m]
                    kid.avail += 1
                    ucb = kid.reward / kid.visits + c * math.sqrt(math.log(kid.avail) / kid.visits)
                    if ucb > best_ucb:
                        best, best_ucb = m, ucb
                node = children[best]  # type: ignore[index]
                push(state, best)  # type: ignore[arg-type]
                path.append(node)
                continue
        child = children[move] = _Node(mover)
        child.avail = 1
        push(state, move)
        path.append(child)
        break
    playout(state, rng, rollout_move)
    rewards = _rewards(state, obs, params, final)
    for node in path:
        node.visits += 1
        node.reward += rewards[node.seat]
    return rewards[obs.seat]


def _legal(state: GameState, move: Move) -> bool:
    return illegal_reason(state, move) is None


def _rewards(state: GameState, obs: Observation, params: SearchParams,
             final: bool) -> list[float]:
    """Each seat's reward in 0..1 from the round just finished (and the totals, if last)."""
    scores = state.finished[-1].scores
    if final:
        scores = tuple(s + total for s, total in zip(scores, obs.totals))
        spread = params.final_spread
    else:
        spread = params.spread
    out = []
    for seat, mine in enumerate(scores):
        best_other = max(s for o, s in enumerate(scores) if o != seat)
        out.append(0.5 + 0.5 * math.tanh((mine - best_other) / spread))
    return out
