"""``ismcts``: information-set Monte Carlo search with expert-guided lookahead.

Every decision with a choice is searched (duel packs; on board packs the bot
plays the expert's move). One search:

* **the information set**: each pass deals the cards the bot cannot see at
  random, consistently with everything it saw (:class:`~.knowledge.Determinizer`:
  the opponents' hands of the right sizes, holding the cards they were seen
  taking, the draw pile's order, the cards under the discard tops it did not see
  fall, the cards removed unseen);
* **the moves compared**: the expert's best few (``SearchParams.candidates``),
  each played on the same deal (common random numbers), so that their
  differences are measured with little noise;
* **the lookahead**: after a candidate, ``depth`` more turns (every player's)
  played by the expert itself as each player would see them
  (:data:`~.expert.REPLY`, with a :class:`~.knowledge.WatchedMemory`); then the
  position is valued by each player's :meth:`~.expert.Evaluation.outlook`, what
  its rows are expected to score in points, or by the real scores if the round
  ended on the way. The reward is the bot's lead over the best other player (in
  the match's last round: its lead in the match, squashed, since only the win
  counts then);
* **the choice**: the expert's first choice is kept unless another candidate
  beats it by more than ``confidence`` standard errors of the paired differences.

The budget is a number of passes per decision (:data:`LEVELS`), so a seeded
match is reproducible; ``SearchParams.seconds`` adds a time limit. Measured
against the expert with paired seeds and swapped seats in
``benchmarks/bench_bots.py`` (docs/bots.md has the figures).
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Optional

from .base import Bot, SeatView
from .expert import OUTLOOK, REPLY, Evaluation, ExpertBot, SharedPlans
from .knowledge import Determinizer, SeatMemory, WatchedMemory
from ..game.moves import Move
from ..game.rules import RulePack
from ..game.state import OVER, GameState
from ..game.turn import legal_moves, push
from ..game.view import Observation, observation

#: deals (passes) searched per decision at each level of ``lc play --level`` (2 is the
#: default, the level measured against the expert; on a 2-core laptop it answers in
#: about 0.16 s a move, level 3 in 0.3 s, level 5 in about 1.7 s)
LEVELS: dict[int, int] = {1: 25, 2: 50, 3: 100, 4: 250, 5: 600}
DEFAULT_LEVEL = 2
#: our turns in a row without the draw pile shrinking after which the search steps
#: aside for the expert, whose cost of stalling grows with each such turn
STALL_GUARD = 2


@dataclass(frozen=True)
class SearchParams:
    """The search's settings."""

    iterations: int = LEVELS[DEFAULT_LEVEL]  #: deals searched per decision
    seconds: Optional[float] = None    #: stop earlier once this much time has passed
    candidates: int = 4                #: the expert's best moves compared
    depth: int = 4                     #: turns played by the expert after each candidate
    confidence: float = 1.0            #: standard errors by which a move must beat the expert's
    final_spread: float = 15.0         #: match lead that counts ~76% of a win in the last round


class ISMCTSBot(Bot):
    """Information-set search over the expert's best moves (see the module doc);
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
        elif view.observation.phase != "card" or memory.stalled >= STALL_GUARD:
            move = self.expert.decide(view, memory)
        else:
            move = search(view.pack, view.observation, memory, legal, view.rng, self.params,
                          self.expert)
        memory.played(move)
        return move


def candidates(pack: RulePack, obs: Observation, memory: SeatMemory, legal: list[Move],
               expert: ExpertBot, count: int) -> list[Move]:
    """The ``count`` moves the expert likes best, best first."""
    ranked = Evaluation(pack, obs, memory, expert.params).ranked(legal)
    order = sorted(range(len(ranked)), key=lambda i: -ranked[i][0])
    return [ranked[i][1] for i in order[:count]]


class Models:
    """The search's models of the players, :func:`reply` and :func:`outlook`, with the
    plan caches they share across the positions of one search (same values, less work)."""

    def __init__(self, pack: RulePack):
        self.reply = SharedPlans(pack, REPLY)
        self.outlook = SharedPlans(pack, OUTLOOK)


def reply(state: GameState, models: Optional[Models] = None) -> Move:
    """The expert's move for the player to move in a full ``state``, from what that
    player sees and would remember (the search's model of every player)."""
    legal = legal_moves(state)
    if len(legal) == 1:
        return legal[0]
    seat = state.to_move
    return Evaluation(state.pack, observation(state, seat), WatchedMemory(state, seat),
                      REPLY, models and models.reply).quick_best(legal)


def outlook(state: GameState, seat: int, models: Optional[Models] = None) -> float:
    """What ``seat``'s rows are expected to score by the round's end (points)."""
    return Evaluation(state.pack, observation(state, seat), WatchedMemory(state, seat),
                      OUTLOOK, models and models.outlook).outlook()


def search(pack: RulePack, obs: Observation, memory: SeatMemory, legal: list[Move],
           rng: random.Random, params: SearchParams, expert: ExpertBot) -> Move:
    """The move the search prefers for ``obs`` (see the module doc)."""
    moves = candidates(pack, obs, memory, legal, expert, params.candidates)
    if len(moves) == 1:
        return moves[0]
    det = Determinizer(pack, obs, memory)
    models = Models(pack)
    k = len(moves)
    diffs = [0.0] * k       # paired differences with the expert's first choice
    squares = [0.0] * k
    start = time.perf_counter()
    done = 0
    for _ in range(max(1, params.iterations)):
        if params.seconds is not None and done and time.perf_counter() - start > params.seconds:
            break
        deal = det.deal(rng)
        values = [lookahead(deal, move, obs, params, models) for move in moves]
        done += 1
        for i, v in enumerate(values):
            d = v - values[0]
            diffs[i] += d
            squares[i] += d * d
    best, best_margin = 0, 0.0
    for i in range(1, k):
        mean = diffs[i] / done
        var = max(0.0, squares[i] / done - mean * mean) / max(1, done - 1)
        margin = mean - params.confidence * math.sqrt(var)
        if margin > best_margin:
            best, best_margin = i, margin
    return moves[best]


def lookahead(deal: GameState, move: Move, obs: Observation, params: SearchParams,
              models: Optional[Models] = None) -> float:
    """``move`` on a copy of ``deal``, ``params.depth`` expert turns, and the searcher's
    lead then (see the module doc)."""
    state = deal.copy()
    push(state, move)
    for _ in range(params.depth):
        if state.phase == OVER or state.round != obs.round:
            break
        push(state, reply(state, models))
    if state.phase == OVER or state.round != obs.round:
        scores = list(state.finished[-1].scores)
    else:
        scores = [outlook(state, seat, models) for seat in range(state.n)]
    me = obs.seat
    if obs.round >= obs.rounds:  # the last round: the match's outcome
        scores = [s + total for s, total in zip(scores, obs.totals)]
        lead = scores[me] - max(s for i, s in enumerate(scores) if i != me)
        return 50.0 * math.tanh(lead / params.final_spread)
    return scores[me] - max(s for i, s in enumerate(scores) if i != me)
