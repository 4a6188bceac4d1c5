"""Vector environments (docs/rl.md, "Vector environments" and "The batched engine").

:func:`vector_env` (:class:`LostCitiesVectorEnv`) is a ``gymnasium.vector.VectorEnv`` over
any pack: the numpy engine :class:`VectorEnv` where it plays the pack, else
:class:`ScalarBatch`, the scalar engine's public API looped game by game behind the same
interface (board packs). Below, the numpy engine: ``VectorEnv(pack, n, seed=...)`` plays
``n`` duel-family matches in lockstep as numpy arrays.

Every game is at one decision; ``step(actions)`` takes one action id per game (the ids of
:func:`lostcities.engine.action_space`) and applies them all with array operations;
``legal_mask()`` is an int8 0/1 array ``(n, num_actions)``. A game whose match ends starts
the next match at once (auto-reset). Slot ``i`` plays the matches of seeds ``seed + i``,
``seed + i + n``, ``seed + i + 2n``..., each dealt exactly as ``new_game(pack, players,
that_seed)`` deals it (``round_deal``), so a slot's match equals the scalar engine's match
of that seed move for move (tests/test_envs_vector.py).

Rules covered: every pack of the duel family (rows ``strict`` or ``non-decreasing``, wagers
before numbers, ``rows.start: any``, one copy of each number card, either round end, the
turn cap, every ``turn.retake``, every next-starter rule). Anything else (pawn and tile
decisions: the board packs; ``either-direction`` rows, ``lowest-in-hand``, several copies)
raises :class:`InputError` naming what is not supported. The rules are read from the pack's
compiled tables (``tables_of``), never from its settings' names. Scores come from the pack's
own formulas: each expedition's score is asked of ``pack.scoring`` once per distinct row and
kept in a table.
"""
from __future__ import annotations

import sys
from typing import Any, Optional

import numpy as np

import gymnasium as gym
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from lostcities.engine import (Deal, action_space, is_over, legal_action_mask, new_game,
                               observation, push_action, round_scores, shuffle_deal, totals,
                               winners)
from lostcities.engine.tooling import tables_of
from lostcities.engine.errors import InputError

from .bulkshuffle import agrees_with_python, shuffle_orders
from .observe import layout
from .pettingzoo_env import check_reward, new_seed, pack_of

def round_deal(pack: Any, players: int, seed: int, round_number: int) -> Deal:
    """The deal of round ``round_number`` of ``new_game(pack, players, seed)``: the
    engine's :func:`lostcities.engine.shuffle_deal` (``pack`` an id or a loaded pack)."""
    return shuffle_deal(pack_of(pack), players, seed, round_number)


#: the decisions the batched engine plays (the ranges of the action space it steps)
BATCHED_DECISIONS = ("play", "discard", "draw")


def supported(pack: Any) -> Optional[str]:
    """Why the batched engine cannot play ``pack`` (a phrase), or None when it can."""
    t = tables_of(pack)  # the pack's rules as the engine compiled them
    others = [d for d in t.decisions if d not in BATCHED_DECISIONS]
    if others:
        return (f"board packs (pawns and tiles: {', '.join(others)} decisions) are not "
                "batched: use the scalar engine")
    if not t.rows_ascend:
        return f"rows.ordering {pack.ordering} is not batched"
    if t.lowest_in_hand:
        return f"rows.start {pack.row_start} is not batched"
    if pack.copies != 1:
        return f"{pack.copies} copies of each number card are not batched"
    if pack.wagers and t.wagers_after_numbers:
        return "wagers after numbers are not batched"
    if pack.tie_break:
        return f"match.tie_break {', '.join(pack.tie_break)} is not batched"
    return None


class VectorEnv:
    """``n`` matches of ``pack`` (an id or a loaded duel-family pack) for ``players`` seats,
    stepped together; see the module doc. Arrays (read them, do not write them):
    ``hands (n, P, K)`` copies held, ``rows (n, P, K)`` cards played, ``last (n, P, C)`` the
    slot of each row's last card (-1: empty), ``piles (n, C, depth)`` and ``depth (n, C)``,
    ``deck (n, D)`` in draw order and ``drawn (n,)`` cards drawn from it, ``to_move``,
    ``phase`` (0 card, 1 draw), ``round``, ``turn``, ``scores (n, rounds, P)``,
    ``seeds (n,)`` the seed of each slot's match under way."""

    def __init__(self, pack: Any, n: int, seed: Optional[int] = None, players: int = 2,
                 keep_obs: bool = True):
        self.pack = pack = pack_of(pack)
        #: keep the seat to move's vectors up to date at each step (False: observe() builds
        #: them on each call, and steps that no one observes are faster)
        self.keep_obs = bool(keep_obs)
        why = supported(pack)
        if why:
            raise InputError(f"VectorEnv({pack.id}): {why}")
        if not isinstance(n, int) or not 1 <= n <= 1_000_000:
            raise InputError(f"VectorEnv: n must be 1-1000000 games, not {n!r}")
        if not pack.min_players <= players <= pack.max_players:
            raise InputError(f"VectorEnv({pack.id}): {players} players, the pack is for "
                             f"{pack.min_players}-{pack.max_players}")
        codec = pack.cards
        tables = tables_of(pack)
        self.n, self.players = n, players
        self.K, self.C, self.S = codec.n_kinds, codec.n_colours, codec.slots
        self.space = action_space(pack)
        self.num_actions = self.space.num_actions
        self.colour_of = np.array(codec.colour_of, np.int64)
        self.slot_of = (np.arange(self.K) % self.S).astype(np.int8)
        self._games = np.arange(n)
        self._colours = np.arange(self.C)
        if self.K > 64:
            raise InputError(f"VectorEnv({pack.id}): {self.K} card kinds, at most 64 are batched")
        self._kbits = np.arange(self.K, dtype=np.uint64)
        one = np.uint64(1)
        #: allowed[c, last + 1]: the kinds of colour c that a row whose last slot is `last` accepts
        self.allowed = np.zeros((self.C, self.S + 1), np.uint64)
        for c in range(self.C):
            for last in range(-1, self.S):
                bits = 0
                for slot in range(self.S):
                    eq = slot == 0 or tables.equal_follows
                    if slot > last or (slot == last and eq):
                        bits |= 1 << (c * self.S + slot)
                self.allowed[c, last + 1] = np.uint64(bits)
        self._one = one
        #: colour_bits[c]: the kinds of colour c; accept0: the kinds empty rows accept
        self.colour_bits = np.array([sum(1 << k for k in range(self.K) if codec.colour_of[k] == c)
                                     for c in range(self.C)], np.uint64)
        self._accept0 = np.bitwise_or.reduce(self.allowed[:, 0])
        #: _nth_pile[bits, j]: the j-th colour (from the lowest) of a set of piles `bits`
        self._nth_pile = np.zeros((1 << self.C, self.C), np.int64) if self.C <= 10 else None
        if self._nth_pile is not None:
            for bits in range(1 << self.C):
                on = [c for c in range(self.C) if bits >> c & 1]
                self._nth_pile[bits, :len(on)] = on
        # a card is accepted by a row whose last slot is `last` when slot > last, or equal
        # and (non-decreasing rows or a wager after wagers)
        self.equal_ok = (self.slot_of == 0) | tables.equal_follows
        self.hand_size = pack.hand_size
        self.removed = pack.removed_unseen.get(players, 0)
        self.deck_len = pack.deck_size - self.removed - players * pack.hand_size
        self.pile_cap = len(pack.deck()) // self.C
        self.rounds = pack.rounds
        self.immediately = not tables.last_play  # round_end.draw_pile_empty, compiled
        self._next_starter = tables.next_starter  # match.next_starter(_tie), compiled
        #: _exp_table[colour, code]: an expedition's score by the pack's expedition formula
        #: (``scoring.expedition(colour, values, wagers)``, one row's alone, whatever the
        #: round), code = the row's number slots as bits 1..S-1 plus wagers << S (filled on
        #: first use)
        self._exp_table = np.full((self.C, (pack.wagers + 1) << self.S),
                                  np.iinfo(np.int32).min, np.int32)
        self._code_of = np.where(np.arange(self.K) % self.S == 0, 1 << self.S,
                                 1 << (np.arange(self.K) % self.S)).astype(np.int32)
        #: the engine's compiled turn.retake: _discard_keeps[c] the piles a discard of colour c
        #: may draw (bits by colour), and at [-1] (no discard: pending_colour -1) every pile
        self._discard_keeps = np.array([*tables.discard_keeps, (1 << self.C) - 1], np.int64)
        # how the pack's formulas add up, as the scoring compiled them (never their text)
        self._sum_rounds = pack.scoring.sums_expeditions
        self._sum_match = pack.scoring.sums_rounds
        self._values = np.array([0] + [codec.min_value + s - 1 for s in range(1, self.S)])
        self._deck_list = list(pack.deck())
        self.layout = layout(pack, players)
        self._o = {name: start for name, start, _size in self.layout.fields}  # field offsets
        if (self._o["hand"], self._o["rows"], self._o["row_last"]) != (
                0, self.K, self.K + players * self.K):  # what _seat_blocks copies as one block
            raise InputError(f"VectorEnv({pack.id}): the observation layout's first fields "
                             "are not hand, rows, row_last")
        #: the legal mask as bit words (unpacked with numpy's little bit order: x86, ARM)
        self._words = -(-self.num_actions // 64)
        self._little = sys.byteorder == "little"
        self._deck_kinds = np.array(self._deck_list, np.int8)
        self._bulk = self._bulk_agrees()
        self._orders: dict[int, np.ndarray] = {}   # match number -> (n, rounds, deck) kinds
        self.seed0 = new_seed(seed)
        self.reset(self.seed0)

    # ------------------------------------------------------------------ set-up
    def reset(self, seed: Optional[int] = None) -> np.ndarray:
        """Start every slot's first match again (slot ``i``: seed ``seed + i``); the mask."""
        if seed is not None:
            self.seed0 = new_seed(seed)
        self._orders = {}
        n, P, K, C = self.n, self.players, self.K, self.C
        self.hands = np.zeros((n, P, K), np.int8)
        self.held_bits = np.zeros((n, P), np.uint64)
        self.rows = np.zeros((n, P, K), np.int8)
        self.row_code = np.zeros((n, P, C), np.int32)   # see _exp_table
        self.last = np.full((n, P, C), -1, np.int8)
        self.piles = np.zeros((n, C, self.pile_cap), np.int16)
        self.depth = np.zeros((n, C), np.int16)
        self.deck = np.zeros((n, max(self.deck_len, 1)), np.int16)
        self.drawn = np.zeros(n, np.int64)
        self.to_move = np.zeros(n, np.int64)
        self.starter = np.zeros(n, np.int64)
        self.phase = np.zeros(n, np.int8)
        self.pending_colour = np.full(n, -1, np.int64)   # the colour just discarded, else -1
        self.pending_action = np.full(n, -1, np.int64)   # the card decision of the turn, else -1
        self.last_play = np.zeros(n, bool)
        self.round = np.ones(n, np.int64)
        self.turn = np.zeros(n, np.int64)
        self.scores = np.zeros((n, self.rounds, P), np.int64)
        self.seeds = self.seed0 + np.arange(n, dtype=np.int64)
        self.accept_bits = np.zeros((n, P), np.uint64)   # kinds each seat's rows accept
        self.pile_bits = np.zeros(n, np.int64)           # bit c: pile c is not empty
        # flat views for the hot paths (index (game * P + seat) * K + kind...)
        self._hands_f, self._held_f = self.hands.reshape(-1), self.held_bits.reshape(-1)
        self._rows_f, self._code_f = self.rows.reshape(-1), self.row_code.reshape(-1)
        self._last_f, self._accept_f = self.last.reshape(-1), self.accept_bits.reshape(-1)
        self._piles_f, self._depth_f = self.piles.reshape(-1), self.depth.reshape(-1)
        self._deck_f = self.deck.reshape(-1)
        self._hands2 = self.hands.reshape(n * P, K)      # row game * P + seat
        self._rows2, self._last2 = self.rows.reshape(n * P, K), self.last.reshape(n * P, C)
        self.matches_started = n
        self.matches_done = 0
        self.last_totals = np.zeros((n, P), np.int64)
        self.last_winners = np.zeros((n, P), bool)
        self.rewards = np.zeros((n, P), np.float32)
        self.done = np.zeros(n, bool)
        #: _obs: the seat to move's observation vector of every game, kept up to date by each
        #: step (only the fields it changes); _seat_scores: finished rounds' scores and the
        #: totals so far per absolute seat, what the seat-relative fields are read from
        self._obs = np.zeros((n, self.layout.size), np.float32)
        self._obs_f = self._obs.reshape(-1)
        self._base = np.arange(n) * self.layout.size     # game g's vector in _obs_f
        self._seat_scores = np.zeros((n, P, self.rounds + 1), np.float32)
        #: _blk[g, s]: the first fields of seat s's vector of game g (its hand, the rows and
        #: the rows' last slots + 1 in its relative order: layout fields hand, rows, row_last,
        #: one after the other) as int8, kept by each step for every seat, so a turn passing
        #: on copies the new seat's block (one take) instead of rebuilding it field by field
        self._W = W = K + P * K + P * C
        self._blk = np.zeros((n, P, W), np.int8)
        self._blk_f, self._blk2 = self._blk.reshape(-1), self._blk.reshape(n * P, W)
        self._score_width = P * self.rounds + P
        self._score_views = np.zeros((n, P, self._score_width), np.float32)
        self._score_views2 = self._score_views.reshape(n * P, self._score_width)
        #: final_obs[i]: the observation at the end of slot i's last finished match (of its
        #: seat to move then, phase "over"); final_extra[i]: what its match formula added
        #: beyond the sum of its rounds
        self.final_obs = np.zeros((n, self.layout.size), np.float32)
        self.final_extra = np.zeros((n, P), np.int64)
        games = np.arange(n)
        self.starter[:] = self.pack.first_starter
        self._deal(games)
        return self.legal_mask()

    def _deal(self, games: np.ndarray) -> None:
        """Deal the round ``self.round[g]`` of each game ``g`` (its hands, rows and piles
        emptied), started by ``self.starter[g]``."""
        if not len(games):
            return
        P, h = self.players, self.hand_size
        rem = self.removed
        cards = self._shuffled(games)
        G, K = len(games), self.K
        hands = cards[:, rem: rem + P * h].reshape(G * P, h)
        at = (np.arange(G * P)[:, None] * K + hands).reshape(-1)
        self.hands[games] = np.bincount(at, minlength=G * P * K).reshape(G, P, K)
        if self.keep_obs:
            self._blk[games] = 0
            self._blk[games, :, :K] = self.hands[games]
        self.held_bits[games] = np.bitwise_or.reduce(
            self._one << hands.astype(np.uint64), axis=-1).reshape(G, P)
        self.deck[games, :self.deck_len] = cards[:, rem + P * h:]
        self.drawn[games] = 0
        self.rows[games] = 0
        self.row_code[games] = 0
        self.last[games] = -1
        self.depth[games] = 0
        self.accept_bits[games] = self._accept0
        self.pile_bits[games] = 0
        self.to_move[games] = self.starter[games]
        self.phase[games] = 0
        self.pending_colour[games] = -1
        self.pending_action[games] = -1
        self.last_play[games] = False
        self.turn[games] = 0
        if self.deck_len == 0:  # nothing to draw: the last play at once, or no round at all
            if self.immediately:
                self._end_rounds(games)
                return
            self.last_play[games] = True
        if self.keep_obs:
            self._obs[games] = self._dealt_vectors(games)

    def _dealt_vectors(self, g: np.ndarray) -> np.ndarray:
        """``(len(g), size)``: the vectors of games ``g`` just dealt, of their seat to move
        (what :meth:`_encode` gives then, from the few fields a deal sets: no card played,
        no pile, turn 0, the card decision)."""
        o, P = self._o, self.players
        v = np.zeros((len(g), self.layout.size), np.float32)
        at = g * P + self.to_move[g]
        v[:, :self._W] = np.take(self._blk2, at, axis=0)
        v[:, o["draw_pile"]] = self.deck_len
        v[:, o["hand_sizes"]:o["hand_sizes"] + P] = self.hand_size
        v[:, o["round"]] = self.round[g]
        v[:, o["rounds"]] = self.rounds
        v[:, o["to_move"]] = 1
        v[:, o["phase"]] = 1
        v[:, o["last_play"]] = self.last_play[g]
        rs = o["round_scores"]
        v[:, rs:rs + self._score_width] = np.take(self._score_views2, at, axis=0)
        return v

    def _shuffled(self, games: np.ndarray) -> np.ndarray:
        """``(len(games), deck)``: each game's deck for its round now, shuffled as
        ``round_deal`` shuffles it (by :func:`shuffle_orders`, a batch of matches ahead)."""
        if not self._bulk:
            return np.array([self._engine_cards(s, r) for s, r in
                             zip(self.seeds[games].tolist(), self.round[games].tolist())], np.int64)
        n = self.n
        level = (self.seeds[games] - self.seed0 - games) // n      # the slot's match number
        out = np.empty((len(games), len(self._deck_list)), np.int64)
        for m in np.unique(level).tolist():
            if m not in self._orders:
                self._deal_ahead(m)
            at = level == m
            out[at] = self._orders[m][games[at], self.round[games[at]] - 1]
        return out

    def _engine_cards(self, seed: int, round_number: int) -> list[int]:
        """The engine's deal of that round as one list: removed, hands, then the pile."""
        deal = shuffle_deal(self.pack, self.players, seed, round_number)
        return [*deal.removed, *(c for hand in deal.hands for c in hand), *deal.draw_pile]

    def _bulk_agrees(self) -> bool:
        """Whether :func:`shuffle_orders` deals a few rounds exactly as the engine does
        (else every deal is asked of :func:`shuffle_deal`, slower)."""
        if not agrees_with_python():
            return False
        pairs = [(s, r) for s in (0, 1, -7, 2**40) for r in (1, 2)]
        orders = shuffle_orders([f"lostcities:{s}:{r}" for s, r in pairs], len(self._deck_list))
        return all(self._deck_kinds[row].tolist() == self._engine_cards(s, r)
                   for (s, r), row in zip(pairs, orders))

    def _deal_ahead(self, m: int) -> None:
        """Shuffle every round of the matches numbered ``m`` onwards of every slot (enough
        matches for about 1,024 deals), forgetting the matches every slot has left."""
        n, R = self.n, self.rounds
        done = int(((self.seeds - self.seed0 - self._games) // n).min())
        for old in [k for k in self._orders if k < done]:
            del self._orders[old]
        levels = range(m, m + max(1, -(-1024 // (n * R))))
        keys = [f"lostcities:{self.seed0 + i + k * n}:{r}"
                for k in levels for i in range(n) for r in range(1, R + 1)]
        kinds = self._deck_kinds[shuffle_orders(keys, len(self._deck_list))]
        kinds = kinds.reshape(len(levels), n, R, -1)
        for j, k in enumerate(levels):
            self._orders[k] = kinds[j]

    # ------------------------------------------------------------------ legality
    def _by_decision(self) -> tuple[Optional[np.ndarray], Optional[np.ndarray]]:
        """The games at a card decision and those at a draw (None for none; every game
        as the one ``_games`` array when all are at the same decision)."""
        card = self.phase == 0
        if card.all():
            return self._games, None
        if not card.any():
            return None, self._games
        return np.flatnonzero(card), np.flatnonzero(~card)

    def legal_mask(self) -> np.ndarray:
        """``(n, num_actions)`` int8 0/1 (the adapters' one mask convention, docs/rl.md):
        the legal ids of each game's decision now (a new array, unpacked from bit words of
        the rows' and piles' bit masks)."""
        if not self._little:
            return self._legal_mask_slow()
        n, K, C = self.n, self.K, self.C
        words = np.zeros((n, self._words), np.uint64)
        g, d = self._by_decision()
        if g is not None:
            held, play = self._card_bits(g)
            _place(words, g, play, 0, K)
            _place(words, g, held, K, K)
        if d is not None:
            piles = (self.pile_bits[d] & self._discard_keeps[self.pending_colour[d]])
            bits = (piles.astype(np.uint64) << self._one) | self._one     # deck, then piles
            _place(words, d, bits, 2 * K, C + 1)
        return np.unpackbits(words.view(np.uint8), axis=1, count=self.num_actions,
                             bitorder="little").view(np.int8)

    def _legal_mask_slow(self) -> np.ndarray:
        n, K = self.n, self.K
        mask = np.zeros((n, self.num_actions), np.int8)
        card = self.phase == 0
        g, d = np.flatnonzero(card), np.flatnonzero(~card)
        mask[g, :2 * K] = self._card_block(g)
        mask[d, 2 * K:] = self._draw_block(d)
        return mask

    def _card_bits(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(held, playable)`` bit masks (bit k: card kind k) of the seat to move in games
        ``g``: the kinds it holds, and those of them its rows accept."""
        gp = g * self.players + self.to_move[g]
        held = self._held_f[gp]
        return held, held & self._accept_f[gp]

    def _card_block(self, g: np.ndarray) -> np.ndarray:
        """``(len(g), 2K)``: the legal plays then discards of games ``g`` (card phase)."""
        K = self.K
        held, play = self._card_bits(g)
        out = np.empty((len(g), 2 * K), bool)
        out[:, :K] = (play[:, None] >> self._kbits) & self._one
        out[:, K:] = (held[:, None] >> self._kbits) & self._one
        return out

    def _draw_block(self, d: np.ndarray) -> np.ndarray:
        """``(len(d), 1 + C)``: the deck then each pile, for games ``d`` (draw phase)."""
        out = np.empty((len(d), 1 + self.C), bool)
        out[:, 0] = True
        keeps = self._discard_keeps[self.pending_colour[d]]  # turn.retake, compiled
        out[:, 1:] = (self.depth[d] > 0) & ((keeps[:, None] >> self._colours) & 1).astype(bool)
        return out

    def observe(self) -> np.ndarray:
        """``(n, size)`` float32: each game's observation vector of the seat to move, the
        same as ``layout(pack, players).encode(observation(state, state.to_move))`` of the
        scalar engine (lostcities.envs.observe). A new array (:meth:`observe_view` is the
        kept one, without a copy)."""
        if not self.keep_obs:
            return self._encode(self._games, self.to_move)
        return self._obs.copy()

    def observe_view(self) -> np.ndarray:
        """The array :meth:`observe` copies: kept up to date by every step (read it, do not
        write it; it changes with the next step); built now without ``keep_obs``."""
        if not self.keep_obs:
            self._obs[:] = self._encode(self._games, self.to_move)
        return self._obs

    def observe_all(self) -> np.ndarray:
        """``(n, P, size)`` float32: ``[i, p]`` is seat ``p``'s observation vector of game
        ``i`` (its own block first), built from the arrays on each call."""
        n, P = self.n, self.players
        games = np.repeat(self._games, P)
        seats = np.tile(np.arange(P), n)
        return self._encode(games, seats).reshape(n, P, -1)

    def _encode(self, g: np.ndarray, seat: np.ndarray, over: bool = False) -> np.ndarray:
        """``(len(g), size)``: the observation vectors of games ``g`` seen by ``seat`` (one
        seat a game), from the arrays; ``over``: at the end of the match (phase ``over``,
        every round scored)."""
        lay = self.layout
        G, P, K, C = len(g), self.players, self.K, self.C
        v = np.zeros((G, lay.size), np.float32)
        rows = np.arange(G)
        seats = (seat[:, None] + np.arange(P)) % P                      # relative order
        gs = g[:, None]
        v[:, lay.slice("hand")] = self.hands[g, seat]
        v[:, lay.slice("rows")] = self.rows[gs, seats].reshape(G, P * K)
        v[:, lay.slice("row_last")] = (self.last[gs, seats] + 1).reshape(G, P * C)
        depth = self.depth[g]
        top = self.piles[gs, self._colours, np.maximum(depth - 1, 0)]   # (G, C)
        has = depth > 0
        v[np.nonzero(has)[0], lay.slice("pile_tops").start + top[has]] = 1
        v[:, lay.slice("pile_sizes")] = depth
        v[:, lay.slice("draw_pile")] = (self.deck_len - self.drawn[g])[:, None]
        v[:, lay.slice("hand_sizes")] = self.hands[g].sum(-1)[rows[:, None], seats]
        v[:, lay.slice("round")] = self.round[g][:, None]
        v[:, lay.slice("rounds")] = self.rounds
        v[:, lay.slice("turn")] = self.turn[g][:, None]
        v[rows, lay.slice("to_move").start + (self.to_move[g] - seat) % P] = 1
        phase = np.full(G, 4) if over else self.phase[g].astype(np.int64)  # card 0, draw 1
        v[rows, lay.slice("phase").start + phase] = 1
        if not over:
            pend = self.pending_action[g]
            v[np.flatnonzero(pend >= 0), lay.slice("pending").start + pend[pend >= 0]] = 1
        v[:, lay.slice("last_play")] = self.last_play[g][:, None]
        played = self.round[g] if over else self.round[g] - 1             # finished rounds
        done = np.arange(self.rounds)[None, :] < played[:, None]
        scores = np.where(done[:, :, None], self.scores[g], 0)[rows[:, None], :, seats]
        v[:, lay.slice("round_scores")] = scores.transpose(0, 2, 1).reshape(G, -1)
        if self._sum_match:
            totals = scores.sum(-1)
        else:
            totals = np.array([[self.pack.scoring.match(
                [int(x) for x in self.scores[i, :int(r)].T[q]], 0, 0) for q in order]
                for i, r, order in zip(g.tolist(), played.tolist(), seats.tolist())])
        v[:, lay.slice("totals")] = totals
        return v

    def _seat_blocks(self, g: Any) -> None:
        """Write the seat-relative fields of the kept vectors of games ``g`` (an index array
        or ``slice(None)``) for their seat to move now (after a turn passed on): its hand,
        the rows and their last slots in relative order (the seat's block ``_blk``, one
        take), the hand sizes (every hand is full then), the round scores and totals
        (``_score_views``, kept per seat from one round end to the next)."""
        V, o, P = self._obs, self._o, self.players
        at = self._games[g] * P + self.to_move[g]        # row of the seat in the (n * P) views
        V[g, :self._W] = np.take(self._blk2, at, axis=0)
        V[g, o["hand_sizes"]:o["hand_sizes"] + P] = self.hand_size
        rs = o["round_scores"]
        V[g, rs:rs + self._score_width] = np.take(self._score_views2, at, axis=0)

    def _set_score_views(self, g: np.ndarray) -> None:
        """``_score_views[g, s]``: the fields ``round_scores`` and ``totals`` (they follow
        each other) of seat ``s``'s vector, for games ``g`` after a round ended."""
        P, R = self.players, self.rounds
        seats = (np.arange(P)[:, None] + np.arange(P)) % P                # [s, i]: i-th from s
        sc = self._seat_scores[g][:, seats]                                # (G, s, i, R + 1)
        view = np.empty((len(g), P, self._score_width), np.float32)
        view[:, :, :P * R] = sc[..., :R].transpose(0, 1, 3, 2).reshape(len(g), P, P * R)
        view[:, :, P * R:] = sc[..., R]
        self._score_views[g] = view

    # ------------------------------------------------------------------ stepping
    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """Apply one action id per game (trusted: take them from :meth:`legal_mask`, or
        check them with :meth:`checked_step`). Returns ``(rewards, done)``: ``rewards (n,
        P)`` each seat's round score for a game whose round ended on this step (0
        otherwise); ``done (n,)`` the games whose match ended (their slot starts its next
        match at once: ``last_totals`` holds the finished match's totals). The next
        decisions' legal ids: :meth:`legal_mask`."""
        a = np.asarray(actions, np.int64)
        K = self.K
        n = self.n
        self.rewards = np.zeros((n, self.players), np.float32)
        self.done = np.zeros(n, bool)
        card = self.phase == 0
        if card.all():
            self._cards(self._games, a)
        elif not card.any():
            self._draws(self._games, a - 2 * K - 1)
        else:
            g, d = np.flatnonzero(card), np.flatnonzero(~card)
            self._cards(g, a[g])
            self._draws(d, a[d] - 2 * K - 1)
        return self.rewards, self.done

    def checked_step(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`step` after checking every id is legal (:class:`InputError` naming the
        first game whose id is not)."""
        return self.step(check_actions(actions, self.n, self.legal_mask()))

    def _cards(self, g: np.ndarray, act: np.ndarray) -> None:
        K, C, P = self.K, self.C, self.players
        ix = slice(None) if len(g) == self.n else g      # every game: plain slices
        gp = g * P + self.to_move[ix]
        play = act < K
        kind = np.where(play, act, act - K)
        colour = self.colour_of[kind]
        # the kept vectors (of the seat to move): V by game and field, F flat at b + field
        V, F, o, b = self._obs, self._obs_f, self._o, self._base[ix]
        keep = self.keep_obs
        W, blk = self._W, self._blk_f
        if keep:
            F[b + (o["pending"] + act)] = 1
            V[ix, o["hand_sizes"]] -= 1
            V[ix, o["phase"]:o["phase"] + 2] = (0, 1)
        hi = gp * K + kind
        left = self._hands_f[hi] - 1
        self._hands_f[hi] = left
        if keep:
            F[b + (o["hand"] + kind)] = left
            blk[gp * W + kind] = left
        # the kinds no longer held (a bit cleared where no copy is left)
        self._held_f[gp] &= ~((left == 0).astype(np.uint64) << kind.astype(np.uint64))
        ip = np.flatnonzero(play)          # the games that play (index arrays: take)
        if len(ip) == len(g):
            idc = ip[:0]
        else:
            idc = np.flatnonzero(~play) if len(ip) else self._games[:len(g)]
        if len(ip):
            gpp, kp, cp = gp.take(ip), kind.take(ip), colour.take(ip)
            self._rows_f[gpp * K + kp] += 1
            ci = gpp * C + cp
            self._code_f[ci] += self._code_of.take(kp)
            slot = self.slot_of.take(kp)
            self._last_f[ci] = slot
            if keep:  # (a row may hold several wagers of a kind)
                bp = b.take(ip)
                last1 = slot + 1
                F[bp + (o["row_last"] + cp)] = last1
                F[bp + (o["rows"] + kp)] += 1
                w = gpp * W
                blk[w + (kp + K)] += 1                             # the mover's block
                blk[w + (cp + (K + P * K))] = last1
                tm = gpp % P
                for r in range(1, P):   # seat mover + r sees the mover's rows at place P - r
                    ow = (gpp + np.where(tm + r >= P, r - P, r)) * W
                    blk[ow + (kp + K + (P - r) * K)] += 1
                    blk[ow + (cp + K + P * K + (P - r) * C)] = last1
            self._accept_f[gpp] = ((self._accept_f.take(gpp) & ~self.colour_bits.take(cp))
                                   | self.allowed[cp, slot.astype(np.int64) + 1])
        if len(idc):
            gd, kd, cd = g.take(idc), kind.take(idc), colour.take(idc)
            di = gd * C + cd
            dep = self._depth_f.take(di)
            at = di * self.pile_cap
            if keep:  # the old top off (an empty pile: the new card's own entry, set next)
                bd = b.take(idc)
                old = self._piles_f.take(at + np.maximum(dep - 1, 0))
                F[bd + (o["pile_tops"] + np.where(dep > 0, old, kd))] = 0
                F[bd + (o["pile_tops"] + kd)] = 1
                F[bd + (o["pile_sizes"] + cd)] = dep + 1
            self._piles_f[at + dep] = kd
            self._depth_f[di] = dep + 1
            self.pile_bits[gd] |= 1 << cd
        self.pending_colour[ix] = np.where(play, -1, colour)
        self.pending_action[ix] = act
        lp = self.last_play[ix]
        if lp.any():  # the last play: no draw, the round is over
            ended, ix = g[lp], g[~lp]   # (lp may be a view that the new deals change)
            self.turn[ended] += 1
            self._end_rounds(ended)
        self.phase[ix] = 1

    def _draws(self, d: np.ndarray, src: np.ndarray) -> None:
        K, P, one = self.K, self.players, self._one
        ix = slice(None) if len(d) == self.n else d      # every game: plain slices
        gp = d * P + self.to_move[ix]
        V, F, o = self._obs, self._obs_f, self._o
        keep = self.keep_obs
        from_deck = src < 0
        ipile = np.flatnonzero(~from_deck)          # the games that take a pile's top
        if not len(ipile):
            dd, dk, gpd = ix, d, gp
        else:
            dk = d.take(np.flatnonzero(from_deck))
            dd, gpd = dk, gp.take(np.flatnonzero(from_deck))
        if len(dk):
            at = self.drawn[dd]
            cards = self._deck_f[dk * self.deck.shape[1] + at].astype(np.int64)
            self.drawn[dd] = at = at + 1     # (at was a view of drawn when dd is a slice)
            if keep:
                V[dd, o["draw_pile"]] = self.deck_len - at
                self._blk_f[gpd * self._W + cards] += 1
            self._hands_f[gpd * K + cards] += 1
            self._held_f[gpd] |= one << cards.astype(np.uint64)
        if len(ipile):
            dp, cp, gpp = d.take(ipile), src.take(ipile), gp.take(ipile)
            di = dp * self.C + cp
            dep = self._depth_f.take(di) - 1
            self._depth_f[di] = dep
            at = di * self.pile_cap
            taken = self._piles_f.take(at + dep).astype(np.int64)
            if keep:  # the card under the taken one on top (an emptied pile: nothing)
                bp = self._base.take(dp)
                F[bp + (o["pile_tops"] + taken)] = 0
                F[bp + (o["pile_sizes"] + cp)] = dep
                still = dep > 0
                below = self._piles_f.take(at + np.maximum(dep - 1, 0))
                F[bp + (o["pile_tops"] + np.where(still, below, taken))] = still
                self._blk_f[gpp * self._W + taken] += 1
            self._hands_f[gpp * K + taken] += 1
            self._held_f[gpp] |= one << taken.astype(np.uint64)
            self.pile_bits[dp] &= ~((dep == 0).astype(np.int64) << cp)
        # close the turns
        turn = self.turn[ix] + 1
        self.turn[ix] = turn
        if keep:
            V[ix, o["turn"]] = turn
        empty = from_deck & (self.drawn[ix] >= self.deck_len)
        ended = turn >= self.pack.turn_cap
        if empty.any():
            if self.immediately:
                ended |= empty
            else:
                self.last_play[d[empty]] = True
                if keep:
                    V[d[empty], o["last_play"]] = 1
        # the turn passes on in every game, but a game whose round ended keeps its seat to
        # move (its final observation's); its next deal rewrites all of this
        any_ended = ended.any()
        tm = self.to_move[ix]
        nxt = tm + 1
        nxt[nxt == P] = 0
        self.to_move[ix] = np.where(ended, tm, nxt) if any_ended else nxt
        if keep:
            F[self._base[ix] + (o["pending"] + self.pending_action[ix])] = 0
            V[ix, o["phase"]:o["phase"] + 2] = (1, 0)
            self._seat_blocks(ix)     # (the hand sizes too: every hand is full)
        self.phase[ix] = 0
        self.pending_colour[ix] = -1
        self.pending_action[ix] = -1
        if any_ended:
            self._end_rounds(d[ended])

    # ------------------------------------------------------------------ rounds and scores
    def _expedition_scores(self, games: np.ndarray) -> np.ndarray:
        """``(len(games), P)`` round scores by the pack's formulas (through the table)."""
        if not self._sum_rounds:
            P, C, S = self.players, self.C, self.S
            return self._scores_by_formula(games, self.rows[games].reshape(len(games), P, C, S))
        codes = self.row_code[games]                                 # (G, P, C)
        table = self._exp_table
        got = table[self._colours, codes]
        missing = got == np.iinfo(np.int32).min
        if missing.any():
            cb = np.broadcast_to(self._colours, codes.shape)[missing].tolist()
            expedition = self.pack.scoring.expedition
            for c, code in set(zip(cb, codes[missing].tolist())):
                values = [int(self._values[s]) for s in range(1, self.S) if code >> s & 1]
                table[c, code] = expedition(c, values, code >> self.S)
            got = table[self._colours, codes]
        return got.sum(-1)

    def _scores_by_formula(self, games: np.ndarray, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((len(games), self.players), np.int64)
        for i, g in enumerate(games.tolist()):
            for p in range(self.players):
                spec = [(c, [int(self._values[s]) for s in range(1, self.S)
                             if rows[i, p, c, s]], int(rows[i, p, c, 0])) for c in range(self.C)]
                out[i, p] = self.pack.scoring.round(spec, (), 0, 0, int(self.round[g])).total
        return out

    def totals_of(self, games: np.ndarray) -> np.ndarray:
        """``(len(games), P)`` match totals of those games' finished matches (every round
        scored), by the pack's match formula."""
        if self._sum_match:
            return self.scores[games].sum(1)
        out = np.zeros((len(games), self.players), np.int64)
        for i, g in enumerate(games.tolist()):
            for p in range(self.players):
                out[i, p] = self.pack.scoring.match([int(x) for x in self.scores[g, :, p]], 0, 0)
        return out

    def _end_rounds(self, games: np.ndarray) -> None:
        scores = self._expedition_scores(games)
        r = self.round[games] - 1
        self.scores[games, r] = scores
        self.rewards[games] = scores
        over = self.round[games] >= self.rounds
        more = games[~over]
        if len(more):
            rm = r[~over]
            self._seat_scores[more, :, rm] = scores[~over]
            if self._sum_match:
                self._seat_scores[more, :, -1] += scores[~over]
            else:
                for g, last in zip(more.tolist(), rm.tolist()):
                    self._seat_scores[g, :, -1] = [self.pack.scoring.match(
                        [int(x) for x in self.scores[g, :last + 1, q]], 0, 0)
                        for q in range(self.players)]
            if self.keep_obs:
                self._set_score_views(more)
            self._next_starters(more)
            self.round[more] += 1
        fin = games[over]
        if len(fin):
            self.done[fin] = True
            self.last_totals[fin] = self.totals_of(fin)
            best = self.last_totals[fin].max(1, keepdims=True)     # no tie break: supported()
            self.last_winners[fin] = self.last_totals[fin] == best
            self.final_extra[fin] = self.last_totals[fin] - self.scores[fin].sum(1)
            self.final_obs[fin] = self._encode(fin, self.to_move[fin], over=True)
            self._seat_scores[fin] = 0
            self._score_views[fin] = 0
            self.matches_done += len(fin)
            self.seeds[fin] += self.n
            self.matches_started += len(fin)
            self.round[fin] = 1
            self.scores[fin] = 0
            self.starter[fin] = self.pack.first_starter
        # one deal for the next rounds and the next matches together
        self._deal(games if len(more) and len(fin) else more if len(more) else fin)

    def _next_starters(self, games: np.ndarray) -> None:
        """Each game's starter of its next round, by the pack's compiled next-starter rule
        (the match totals, asked only by ``best-total``, by the pack's match formula)."""
        P = self.players
        for g in games.tolist():
            r = int(self.round[g]) - 1
            done = self.scores[g, :r + 1]                           # (rounds played, P)

            def match_totals(done: np.ndarray = done) -> Any:
                if self._sum_match:
                    return done.sum(0)
                return [self.pack.scoring.match([int(x) for x in done[:, q]], 0, 0)
                        for q in range(P)]

            self.starter[g] = self._next_starter(self.scores[g, r], match_totals,
                                                 int(self.starter[g]), P)

    # ------------------------------------------------------------------ helpers
    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """One legal id per game, uniformly among its legal ids (a random policy)."""
        out = np.empty(self.n, np.int64)
        g, d = self._by_decision()
        if g is not None:
            held, play = self._card_bits(g)
            n_play = np.bitwise_count(play).astype(np.int64)
            total = n_play + np.bitwise_count(held)
            pick = (rng.random(len(g)) * total).astype(np.int64)
            is_play = pick < n_play
            kind = select_bit(np.where(is_play, play, held), np.where(is_play, pick, pick - n_play))
            out[g if d is not None else slice(None)] = np.where(is_play, kind, kind + self.K)
        if d is not None:
            piles = self.pile_bits[d] & self._discard_keeps[self.pending_colour[d]]
            pick = (rng.random(len(d)) * (1 + np.bitwise_count(piles))).astype(np.int64)
            pile = np.maximum(pick - 1, 0)
            if self._nth_pile is not None:
                colour = self._nth_pile[piles, pile]
            else:
                colour = select_bit(piles.astype(np.uint64), np.minimum(pile, np.maximum(
                    np.bitwise_count(piles).astype(np.int64) - 1, 0)))
            out[d] = np.where(pick == 0, 2 * self.K, 2 * self.K + 1 + colour)
        return out


#: _SEL[b, k]: the index of the byte b's k-th set bit (from the lowest)
_SEL = np.zeros((256, 8), np.int64)
for _b in range(256):
    _on = [i for i in range(8) if _b >> i & 1]
    _SEL[_b, :len(_on)] = _on
#: times a word of eight 0/1 bytes, its top byte holds them as bits (byte i: bit i)
_GATHER = np.uint64(0x0102040810204080)


def sample_masks(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One id per row of ``mask (n, num_actions)`` (int8 0/1 as the adapters give it, or
    bool), uniformly among the row's legal (nonzero) entries (-1 for a row with none): a
    random policy over the legal ids. Each row is read as words of eight booleans; the
    chosen id's word is found by counting, its place in the word by a table, about one
    pass over the mask in all."""
    mask = np.asarray(mask)
    n, A = mask.shape
    if sys.byteorder != "little":
        mask = mask != 0
        counts = mask.sum(1)
        pick = (rng.random(n) * counts).astype(np.int64)
        ids = np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1)
        return np.where(counts > 0, ids, -1)
    B = -(-A // 8)
    pad = np.zeros((n, 8 * B), bool)
    pad[:, :A] = mask                                  # (nonzero -> True, as a copy)
    words = pad.view(np.uint64)                                        # (n, B)
    cum = np.ascontiguousarray(np.bitwise_count(words).T, dtype=np.int16)  # (B, n)
    for i in range(1, B):
        cum[i] += cum[i - 1]
    total = cum[-1]
    pick = (rng.random(n) * total).astype(np.int16)
    j = np.count_nonzero(cum <= pick, axis=0)                           # the word
    np.minimum(j, B - 1, out=j)
    rows = np.arange(n)            # (flat indices and take: faster than 2-d fancy indexing)
    below = cum.reshape(-1).take(j * n + rows - n, mode="clip")        # Trues before it
    below[j == 0] = 0
    byte = (words.reshape(-1).take(rows * B + j) * _GATHER) >> np.uint64(56)
    ids = j * 8 + _SEL.reshape(-1).take(byte.astype(np.int64) * 8 + (pick - below))
    if not total.all():
        ids[total == 0] = -1
    return ids


def _place(words: np.ndarray, rows: np.ndarray, bits: np.ndarray, offset: int,
           width: int) -> None:
    """OR the ``width``-bit fields ``bits`` (uint64, one per row) into bit ``offset`` on of
    ``words[rows]`` (rows of uint64 words, bit ``i`` in word ``i // 64``)."""
    j, s = divmod(offset, 64)
    all_rows = len(rows) == len(words)
    ix = slice(None) if all_rows else rows
    words[ix, j] |= bits << np.uint64(s)
    if s and s + width > 64:
        words[ix, j + 1] |= bits >> np.uint64(64 - s)


def select_bit(bits: np.ndarray, k: np.ndarray) -> np.ndarray:
    """For each uint64 of ``bits``, the index of its ``k``-th set bit (0-based, from the
    lowest); ``k`` must be below the number of set bits."""
    pos = np.zeros(len(bits), np.uint64)
    k = k.astype(np.int64)
    for w in (32, 16, 8, 4, 2, 1):
        low = (bits >> pos) & np.uint64((1 << w) - 1)
        c = np.bitwise_count(low).astype(np.int64)
        go = k >= c
        k = k - np.where(go, c, 0)
        pos = pos + np.where(go, np.uint64(w), np.uint64(0))
    return pos.astype(np.int64)


class ScalarBatch:
    """``n`` matches of any pack (board packs too) stepped one by one through the scalar
    engine's public API (``new_game``, ``push_action``, ``legal_action_mask``,
    ``observation``), behind the interface of :class:`VectorEnv`: the same arrays and
    methods (``legal_mask``, ``step``, ``observe``, ``observe_all``, ``final_obs``...), the
    same seeds. A correct first version for the packs the numpy engine does not play: each
    step costs a scalar decision and an observation encoded in Python per game (docs/rl.md,
    "Vector environments")."""

    def __init__(self, pack: Any, n: int, seed: Optional[int] = None, players: int = 2):
        self.pack = pack = pack_of(pack)
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 1_000_000:
            raise InputError(f"ScalarBatch: n must be 1-1000000 games, not {n!r}")
        if not pack.min_players <= players <= pack.max_players:
            raise InputError(f"ScalarBatch({pack.id}): {players} players, the pack is for "
                             f"{pack.min_players}-{pack.max_players}")
        self.n, self.players = n, players
        self.num_actions = action_space(pack).num_actions
        self.layout = layout(pack, players)
        self.seed0 = new_seed(seed)
        self.reset(self.seed0)

    def reset(self, seed: Optional[int] = None) -> np.ndarray:
        """Start every slot's first match again (slot ``i``: seed ``seed + i``); the mask."""
        if seed is not None:
            self.seed0 = new_seed(seed)
        n, P, size = self.n, self.players, self.layout.size
        self.seeds = self.seed0 + np.arange(n, dtype=np.int64)
        self.games = [new_game(self.pack, P, int(s)) for s in self.seeds.tolist()]
        self._rounds_seen = [0] * n
        self.matches_started, self.matches_done = n, 0
        self.last_totals = np.zeros((n, P), np.int64)
        self.last_winners = np.zeros((n, P), bool)
        self.rewards = np.zeros((n, P), np.float32)
        self.done = np.zeros(n, bool)
        self.final_obs = np.zeros((n, size), np.float32)
        self.final_extra = np.zeros((n, P), np.int64)
        self._obs = np.zeros((n, size), np.float32)
        for i, g in enumerate(self.games):
            self.layout.encode(observation(g, g.to_move), out=self._obs[i])
        return self.legal_mask()

    @property
    def to_move(self) -> np.ndarray:
        """``(n,)`` each game's seat to move."""
        return np.fromiter((g.to_move for g in self.games), np.int64, self.n)

    def legal_mask(self) -> np.ndarray:
        """``(n, num_actions)`` int8 0/1: the legal ids of each game's decision now."""
        return np.array([legal_action_mask(g) for g in self.games], np.int8).reshape(
            self.n, self.num_actions)

    def observe(self) -> np.ndarray:
        """``(n, size)`` float32: each game's vector of its seat to move (a new array)."""
        return self._obs.copy()

    def observe_view(self) -> np.ndarray:
        """The array :meth:`observe` copies (rewritten by every step)."""
        return self._obs

    def observe_all(self) -> np.ndarray:
        """``(n, P, size)`` float32: ``[i, p]`` is seat ``p``'s vector of game ``i``."""
        out = np.zeros((self.n, self.players, self.layout.size), np.float32)
        for i, g in enumerate(self.games):
            for p in range(self.players):
                self.layout.encode(observation(g, p), out=out[i, p])
        return out

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`VectorEnv.step`: one trusted id per game; ``(rewards, done)``."""
        a = np.asarray(actions, np.int64).tolist()
        n, P, lay = self.n, self.players, self.layout
        self.rewards = np.zeros((n, P), np.float32)
        self.done = np.zeros(n, bool)
        for i, g in enumerate(self.games):
            push_action(g, a[i])
            scores = round_scores(g)
            if len(scores) > self._rounds_seen[i]:
                self.rewards[i] = scores[-1]
                self._rounds_seen[i] = len(scores)
            if is_over(g):
                self.done[i] = True
                self.last_totals[i] = totals(g)
                self.last_winners[i] = [p in winners(g) for p in range(P)]
                self.final_extra[i] = self.last_totals[i] - np.sum(scores, axis=0)
                lay.encode(observation(g, g.to_move), out=self.final_obs[i])
                self.matches_done += 1
                self.matches_started += 1
                self.seeds[i] += n
                g = self.games[i] = new_game(self.pack, P, int(self.seeds[i]))
                self._rounds_seen[i] = 0
            lay.encode(observation(g, g.to_move), out=self._obs[i])
        return self.rewards, self.done

    def checked_step(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`step` after checking every id is legal (:class:`InputError` naming the
        first game whose id is not)."""
        check_actions(actions, self.n, self.legal_mask())
        return self.step(actions)

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """One legal id per game, uniformly among its legal ids (a random policy)."""
        return sample_masks(self.legal_mask(), rng)


def check_actions(actions: Any, n: int, mask: np.ndarray) -> np.ndarray:
    """``actions`` as ``(n,)`` int64 ids, each legal in ``mask``; :class:`InputError` (one
    line naming the first game whose id is not) otherwise."""
    try:
        a = np.asarray(actions)
    except (TypeError, ValueError):
        raise InputError(f"step: {n} action ids expected, not {actions!r:.60}") from None
    if a.shape != (n,) or not np.issubdtype(a.dtype, np.integer):
        raise InputError(f"step: {n} action ids expected (integers), got shape {a.shape} "
                         f"of {a.dtype}")
    a = a.astype(np.int64, copy=False)
    A = mask.shape[1]
    if int(a.min()) >= 0 and int(a.max()) < A:
        legal = mask.reshape(-1)[np.arange(n) * A + a]
    else:
        inside = (a >= 0) & (a < A)
        legal = np.zeros(n, bool)
        legal[inside] = mask[np.flatnonzero(inside), a[inside]]
    if not legal.all():
        i = int(np.flatnonzero(legal == 0)[0])
        raise InputError(f"step: game {i}: action {int(a[i])} is not legal now")
    return a


def _core(pack: Any, n: int, seed: Optional[int], players: int, backend: str) -> Any:
    """The batched engine of ``pack``: :class:`VectorEnv` (numpy) where it plays the pack,
    else :class:`ScalarBatch`; ``backend`` ``"auto"``, ``"numpy"`` or ``"scalar"``."""
    if backend not in BACKENDS:
        raise InputError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    pack = pack_of(pack)
    if backend == "scalar" or (backend == "auto" and supported(pack)):
        return ScalarBatch(pack, n, seed, players)
    return VectorEnv(pack, n, seed, players)


#: the batched engines a vector environment may run on
BACKENDS = ("auto", "numpy", "scalar")


class LostCitiesVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` matches of ``pack`` as a :class:`gymnasium.vector.VectorEnv` (docs/rl.md,
    "Vector environments"): every decision of every seat is a step (self-play), the
    observation is the vector of each game's seat to move, a finished match starts the next
    at once (``autoreset_mode`` ``SAME_STEP``: the last observation in ``infos["final_obs"]``).
    ``infos["action_mask"]`` and :meth:`action_masks` are the masks of the next decisions
    (int8 0/1, what ``action_space.sample(mask=...)`` takes). ``reward`` as the scalar
    adapters': ``"points"`` (round scores as rounds end, and the match formula's extra) or
    ``"win"`` (0 until a match ends; then +1 to a single winner, 0 to each seat of a shared
    win, -1 to the others). ``rewards[i]`` is the reward, on this step, of the seat that made game ``i``'s
    decision; every seat's is ``infos["rewards"] (n, players)``."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, pack: Any = "duel-classic", num_envs: int = 1,
                 seed: Optional[int] = None, players: int = 2, backend: str = "auto",
                 copy: bool = True, check: bool = True, reward: str = "points"):
        self.reward_kind = check_reward(reward)
        self.core = _core(pack, num_envs, seed, players, backend)
        self.pack = self.core.pack
        self.backend = "numpy" if isinstance(self.core, VectorEnv) else "scalar"
        self.num_envs, self.players = num_envs, players
        self.copy, self.check = bool(copy), bool(check)
        lay = self.layout = self.core.layout
        low = getattr(lay, "low", None)
        high = getattr(lay, "high", None)
        self.single_observation_space = gym.spaces.Box(
            -np.inf if low is None else low, np.inf if high is None else high,
            (lay.size,), np.float32)
        self.single_action_space = gym.spaces.Discrete(self.core.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.agents = [f"player_{i}" for i in range(players)]
        self._rows = np.arange(num_envs)
        self._mask = self.core.legal_mask()
        self._started = False

    # -------------------------------------------------------------- gymnasium interface
    def reset(self, *, seed: Optional[int] = None,
              options: Optional[dict[str, Any]] = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a match in every slot: with ``seed``, slot ``i`` plays the seeds ``seed +
        i``, ``seed + i + n``...; without, the first reset keeps the constructor's seed and
        a later one goes on to matches of the same slots not played yet."""
        core = self.core
        if seed is None and self._started:
            level = int(((core.seeds - core.seed0 - self._rows) // self.num_envs).max())
            seed = core.seed0 + (level + 1) * self.num_envs
        self._started = True
        self._mask = core.reset(seed)
        obs = core.observe() if self.copy else core.observe_view()
        return obs, {"action_mask": self._mask, "to_move": core.to_move.copy()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """One decision per game: ``(obs, rewards, terminations, truncations, infos)``."""
        core = self.core
        if self.check:
            actions = check_actions(actions, self.num_envs, self._mask)
        acting = core.to_move.copy()
        seat_rewards, done = core.step(actions)
        ended = done.any()
        if self.reward_kind == "points":
            rewards = seat_rewards.astype(np.float32)
            if ended:
                rewards[done] += core.final_extra[done]
        else:
            rewards = np.zeros(seat_rewards.shape, np.float32)
            if ended:
                won = core.last_winners[done]
                single = won.sum(1, keepdims=True) == 1
                rewards[done] = np.where(won, np.where(single, 1.0, 0.0), -1.0)
        infos: dict[str, Any] = {}
        if ended:
            final = np.zeros(core.final_obs.shape, np.float32)  # (calloc: untouched pages are free)
            final[done] = core.final_obs[done]
            infos["final_obs"] = final
            infos["_final_obs"] = done.copy()
            infos["final_info"] = {"totals": core.last_totals.copy(), "_totals": done.copy(),
                                   "winners": core.last_winners.copy(), "_winners": done.copy()}
            infos["_final_info"] = done.copy()
        self._mask = core.legal_mask()
        infos["action_mask"] = self._mask
        infos["to_move"] = core.to_move.copy()
        infos["rewards"] = rewards
        obs = core.observe() if self.copy else core.observe_view()
        return (obs, rewards.reshape(-1).take(self._rows * self.players + acting),
                done.copy(),
                np.zeros(self.num_envs, bool), infos)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, num_actions)`` int8 0/1: the legal ids of each game's next decision
        (what sb3-contrib's maskable algorithms call)."""
        return self._mask

    # -------------------------------------------------------------- every seat
    def observe_all(self) -> np.ndarray:
        """``(num_envs, players, size)``: every seat's observation vector now."""
        return self.core.observe_all()

    def seat_view(self) -> dict[str, dict[str, np.ndarray]]:
        """A PettingZoo-style view of every seat: ``{"player_p": {"observation": (n, size),
        "action_mask": (n, num_actions)}}``, the mask all 0 in the games where the seat
        is not to move (as the AEC environment's)."""
        every = self.core.observe_all()
        to_move = self.core.to_move
        return {agent: {"observation": every[:, p],
                        "action_mask": self._mask & (to_move == p)[:, None]}
                for p, agent in enumerate(self.agents)}


def vector_env(pack: Any = "duel-classic", num_envs: int = 1, seed: Optional[int] = None,
               players: int = 2, backend: str = "auto", copy: bool = True,
               check: bool = True, reward: str = "points") -> LostCitiesVectorEnv:
    """A :class:`LostCitiesVectorEnv` of ``num_envs`` matches of ``pack``."""
    return LostCitiesVectorEnv(pack, num_envs, seed, players, backend, copy, check, reward)
