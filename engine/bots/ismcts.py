"""``ismcts``: information-set Monte Carlo search with expert-guided lookahead.

Every decision with a choice is searched, in duel packs and on board packs. One
search:

* **the information set**: each pass deals the cards the bot cannot see at
  random, consistently with everything it saw (:class:`~.knowledge.Determinizer`:
  the opponents' hands of the right sizes, holding the cards they were seen
  taking, the draw pile's order, the cards under the discard tops it did not see
  fall, the cards removed unseen; on a board, the board as it stands);
* **the moves compared**: the expert's best few (``SearchParams.candidates``),
  each played on the same deal (common random numbers), so that their
  differences are measured with little noise;
* **the lookahead**: after a candidate, ``depth`` more turns (every player's)
  played by the expert itself as each player would see them
  (:data:`~.expert.REPLY`, on a board :data:`BOARD_REPLY`, with a
  :class:`~.knowledge.WatchedMemory`); then the position is valued by each
  player's outlook, what its rows (on a board, its pawns, plus the tokens and
  artefacts of the round) are expected to score in points, or by the real scores
  if the round ended on the way. The reward is the bot's lead over the best other
  player (in the match's last round: its lead in the match, squashed, since only
  the win counts then);
* **racing**: after ``warmup`` passes, a candidate whose paired difference with
  the expert's first choice stays below zero by more than ``drop`` standard
  errors is no longer played (it could not have been chosen); once none is left,
  the search stops. The passes are the same deals whichever candidates are still
  played, so the moves stay seeded and reproducible;
* **the choice**: the expert's first choice is kept unless another candidate
  beats it by more than ``confidence`` standard errors of the paired differences.

The budget is a number of passes per decision (:data:`LEVELS`, with the lookahead's
turns of :data:`LEVEL_DEPTH`; on a board
:data:`BOARD_LEVELS` with :data:`BOARD_SEARCH`'s shorter lookahead), so a seeded
match is reproducible; ``SearchParams.seconds`` adds a time limit. Measured
against the expert and against the search before issue #15 with paired seeds and
swapped seats in ``benchmarks/bench_ismcts.py`` (docs/bots.md has the figures).
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, replace
from typing import Callable, NamedTuple, Optional

from .base import Bot, SeatView, pick_for
from .expert import (BOARD, OUTLOOK, REPLY, BoardAfter, BoardPlans, Evaluation, ExpertBot,
                     ExpertParams, Shared, SharedPlans)
from .knowledge import Determinizer, SeatMemory, WatchedMemory
from ..game.moves import Move
from ..game.rules import RulePack
from ..game.state import OVER, GameState
from ..game.tables import Tables, tables_of
from ..game.turn import legal_moves, push
from ..game.view import BoardView, Observation, observation

#: passes (deals) searched at most per decision at each level of ``lc play --level`` on a
#: duel pack (2 is the default, the level measured against the expert)
LEVELS: dict[int, int] = {1: 40, 2: 50, 3: 100, 4: 250, 5: 600}
#: the turns each level's lookahead plays after a candidate on a duel pack: at level 1,
#: 2 (the opponent's reply and our next turn), a quick answer; from level 2, 4 turns:
#: levels 2-5 are the search measured before issue #15, with racing (which chose as the
#: full search in 97% of 333 recorded decisions, at 0.76 of its lookaheads), so the
#: default keeps the strength measured against the expert (docs/bots.md)
LEVEL_DEPTH: dict[int, int] = {1: 2, 2: 4, 3: 4, 4: 4, 5: 4}
#: the same on a board pack, whose lookahead (:data:`BOARD_SEARCH`) is shorter
BOARD_LEVELS: dict[int, int] = {1: 8, 2: 16, 3: 32, 4: 80, 5: 200}
DEFAULT_LEVEL = 2
#: our turns in a row without the draw pile shrinking after which the search steps
#: aside for the expert, whose cost of stalling grows with each such turn
STALL_GUARD = 2

#: the expert as a board search's model of every player's replies: the board weights,
#: a deck draw valued without averaging over the unseen cards (as :data:`~.expert.REPLY`)
BOARD_REPLY = replace(BOARD, draw_average=False)
#: a board position's worth in points (as :data:`~.expert.OUTLOOK`): no margins
BOARD_OUTLOOK = replace(BOARD, open_margin=0.0, wager_margin=0.0, soft=0.0, draw_average=False)


@dataclass(frozen=True)
class SearchParams:
    """The search's settings."""

    iterations: int = LEVELS[DEFAULT_LEVEL]  #: deals searched per decision, at most
    seconds: Optional[float] = None    #: stop earlier once this much time has passed
    candidates: int = 4                #: the expert's best moves compared
    depth: int = LEVEL_DEPTH[DEFAULT_LEVEL]  #: turns played by the expert after a candidate
    confidence: float = 1.0            #: standard errors by which a move must beat the expert's
    final_spread: float = 15.0         #: match lead that counts ~76% of a win in the last round
    warmup: int = 8                    #: passes before a trailing candidate may be dropped
    drop: float = 2.0                  #: standard errors below the expert's choice that drop
    #: a candidate (``math.inf``: never; every pass plays every candidate)


#: the search on a board pack: fewer candidates and passes (a board turn has many moves,
#: and each reply reads the board on a copy of the position)
BOARD_SEARCH = SearchParams(iterations=BOARD_LEVELS[DEFAULT_LEVEL], candidates=3, depth=2,
                            warmup=6)


class ISMCTSBot(Bot):
    """Information-set search over the expert's best moves (see the module doc);
    ``level`` 1-5 or ``params`` (duel packs) and ``board_params`` (board packs)."""

    name = "ismcts"

    def __init__(self, level: int = DEFAULT_LEVEL, params: Optional[SearchParams] = None,
                 board_params: Optional[SearchParams] = None):
        if level not in LEVELS:
            raise ValueError(f"ismcts level must be one of {', '.join(map(str, LEVELS))}, "
                             f"not {level!r}")
        self.params = params or SearchParams(iterations=LEVELS[level], depth=LEVEL_DEPTH[level])
        self.board_params = board_params or replace(BOARD_SEARCH,
                                                    iterations=BOARD_LEVELS[level])
        self.expert = ExpertBot()

    #: the tables of the pack last seen and its family's search (:data:`FAMILIES`)
    _family: tuple[Optional[Tables], Optional[SearchFamily]] = (None, None)

    def family(self, pack: RulePack) -> SearchFamily:
        """The search's parts for ``pack``'s family (:data:`FAMILIES`), picked at the first
        sight of a pack."""
        self._family = picked = pick_for(pack, self._family, FAMILIES)
        return picked[1]

    def choose(self, view: SeatView) -> Move:
        memory = self.expert.memory(view)
        legal = view.legal_moves
        params = self.family(view.pack).params(self)
        if len(legal) == 1:
            move = legal[0]
        elif view.observation.phase != "card" or memory.stalled >= STALL_GUARD:
            move = self.expert.decide(view, memory)
        else:
            move = search(view.pack, view.observation, memory, legal, view.rng, params,
                          self.expert)
        memory.played(move)
        return move


def candidates(pack: RulePack, obs: Observation, memory: SeatMemory, legal: list[Move],
               expert: ExpertBot, count: int) -> list[Move]:
    """The ``count`` moves the expert likes best, best first (the first is its choice)."""
    ranked = Evaluation(pack, obs, memory, expert.weights(pack)).ranked(legal)
    order = sorted(range(len(ranked)), key=lambda i: -ranked[i][0])
    return [ranked[i][1] for i in order[:count]]


class Models:
    """The search's models of the players, :func:`reply` and :func:`outlook`, with the
    plan caches they share across the positions of one search (same values, less work;
    on a board, per board context: :class:`~.expert.BoardPlans`)."""

    def __init__(self, pack: RulePack):
        #: the pack's family's search (:data:`FAMILIES`): its models' weights and outlook
        self.family = family = FAMILIES[tables_of(pack).family]
        self.reply: Shared = family.plans(pack, family.reply)
        self.outlook: Shared = family.plans(pack, family.outlook)


def reply(state: GameState, models: Optional[Models] = None) -> Move:
    """The expert's move for the player to move in a full ``state``, from what that
    player sees and would remember (the search's model of every player)."""
    legal = legal_moves(state)
    if len(legal) == 1:
        return legal[0]
    seat = state.to_move
    family = models.family if models is not None else FAMILIES[tables_of(state.pack).family]
    return Evaluation(state.pack, observation(state, seat), WatchedMemory(state, seat),
                      family.reply, models and models.reply).quick_best(legal)


def outlook(state: GameState, seat: int, models: Optional[Models] = None) -> float:
    """What ``seat``'s rows are expected to score by the round's end (points); on a
    board, its pawns where its cards should carry them, plus the round's tokens and
    artefacts taken (:func:`board_outlook`)."""
    family = models.family if models is not None else FAMILIES[tables_of(state.pack).family]
    obs = observation(state, seat)
    return family.value(Evaluation(state.pack, obs, WatchedMemory(state, seat),
                                   family.outlook, models and models.outlook), obs)


def board_outlook(ev: Evaluation, obs: Observation) -> float:
    """A board position's worth to ``obs``'s seat, in points: each track's pawn at the
    space the cards held (and those it may draw) should carry it to, by the pack's pawn
    formula and the tiles met on the way, within the turns left before the draw pile
    or the bridge crossings end the round; plus the free leader's best use, and the
    tokens and artefacts (at what one more is worth) taken this round."""
    board = obs.board
    me = obs.seat
    after = board_now(board, obs)
    n = len(obs.players)
    ahead = (me - obs.to_move) % n
    future = max(0, -(-(obs.draw_pile - ahead) // n))  # our turns left by the draw pile
    cap = ev.crossing_turns(after)
    if cap is not None:
        future = min(future, cap)
    hand = ev.by_colour(obs.hand)
    rows = ev.rows
    return rows.combine(rows.plans(hand, obs.rows[me], future, after), future) \
        + ev.board_extra(hand, future, after) + board.round_tokens[me] \
        + ev.score.artefact * board.round_artefacts[me]


def board_now(board: BoardView, obs: Observation) -> BoardAfter:
    """The board as it stands for ``obs``'s seat, in the terms the expert values a
    move's effects in (:class:`~.expert.BoardAfter`, nothing gained yet)."""
    me = obs.seat
    rows = obs.rows[me]
    tracks = [(0, False, len(row)) for row in rows]
    for track, space, leader in board.pawns[me]:
        if track >= 0:
            tracks[track] = (space, leader, len(rows[track]))
    limit = board.bridge_after
    distances = tuple(limit + 1 - space for pawns in board.pawns for track, space, _ in pawns
                      if track >= 0 and space <= limit)
    left = max(0, board.crossings_to_end - board.crossings) if board.crossings_to_end else 0
    free = any(track < 0 and leader for track, _, leader in board.pawns[me])
    return BoardAfter(tuple(tracks), 0.0, False, left, distances, free)


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
    counts = [0] * k        # passes each candidate was played in
    live = list(range(1, k))
    start = time.perf_counter()
    done = 0
    for _ in range(max(1, params.iterations)):
        if not live:
            break
        if params.seconds is not None and done and time.perf_counter() - start > params.seconds:
            break
        deal = det.deal(rng)
        models.family.ready(deal, obs)
        first = lookahead(deal, moves[0], obs, params, models)
        done += 1
        for i in live:
            d = lookahead(deal, moves[i], obs, params, models) - first
            diffs[i] += d
            squares[i] += d * d
            counts[i] += 1
        if done >= params.warmup:
            live = [i for i in live if upper(diffs[i], squares[i], counts[i], params.drop) > 0]
    best, best_margin = 0, 0.0
    for i in range(1, k):
        mean, error = mean_and_error(diffs[i], squares[i], counts[i])
        margin = mean - params.confidence * error
        if counts[i] and margin > best_margin:
            best, best_margin = i, margin
    return moves[best]


def upper(total: float, squares: float, count: int, errors: float) -> float:
    """The mean paired difference plus ``errors`` standard errors (``inf``: always)."""
    if errors == math.inf:
        return math.inf
    mean, error = mean_and_error(total, squares, count)
    return mean + errors * error


def board_deal(deal: GameState, obs: Observation) -> None:
    """Ready a board pack's deal for the search: the match's number of rounds (a deal is
    cut to end with the current round), so that the imagined players weigh a round's end
    as they would (a round that ends is a match that ends only in the last round)."""
    deal.rounds_total = obs.rounds


def mean_and_error(total: float, squares: float, count: int) -> tuple[float, float]:
    """The mean of ``count`` values from their sum and sum of squares, and its standard
    error (0 for fewer than two values)."""
    if not count:
        return 0.0, 0.0
    mean = total / count
    var = max(0.0, squares / count - mean * mean) / max(1, count - 1)
    return mean, math.sqrt(var)


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


# ---------------------------------------------------------------------- the families

class SearchFamily(NamedTuple):
    """What the search does its own way in each family (:data:`FAMILIES`): each field is
    that family's code or weights, picked once per pack by ``tables.family``."""

    #: which of a bot's settings it searches with (read at each call)
    params: Callable[[ISMCTSBot], SearchParams]
    #: the expert's weights as the model of every player's replies, and of a position's worth
    reply: ExpertParams
    outlook: ExpertParams
    #: the plans the models share across a search (:class:`~.expert.SharedPlans`,
    #: :class:`~.expert.BoardPlans`)
    plans: Callable[[RulePack, ExpertParams], Shared]
    #: a position's worth to a seat, in points, from its evaluation (:func:`outlook`)
    value: Callable[[Evaluation, Observation], float]
    #: readies a deal for the search (:func:`board_deal`; nothing in a duel)
    ready: Callable[[GameState, Observation], None]


def _duel_params(bot: ISMCTSBot) -> SearchParams:
    return bot.params


def _board_params(bot: ISMCTSBot) -> SearchParams:
    return bot.board_params


def _rows_outlook(ev: Evaluation, obs: Observation) -> float:
    """A duel position's worth: what the seat's rows are expected to score
    (:meth:`~.expert.Evaluation.outlook`)."""
    return ev.outlook()


def _duel_deal(deal: GameState, obs: Observation) -> None:
    """A duel's deal is ready as dealt."""


#: the search's parts by the pack's family (``tables.family``)
FAMILIES: dict[str, SearchFamily] = {
    "duel": SearchFamily(_duel_params, REPLY, OUTLOOK, SharedPlans, _rows_outlook, _duel_deal),
    "board": SearchFamily(_board_params, BOARD_REPLY, BOARD_OUTLOOK, BoardPlans, board_outlook,
                          board_deal),
}
