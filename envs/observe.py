"""The fixed-length observation vector of one seat (docs/rl.md, "Observation layout").

:class:`Layout` is built for a pack and a player count; :meth:`Layout.encode` turns an
:class:`~lostcities.engine.Observation` (what the engine lets that seat see) into a numpy
``float32`` vector whose length depends only on the pack and the player count. It reads
nothing but the observation, so it cannot show another seat's hand, the draw pile's order,
the removed cards or the cards under a discard pile's top.

Seats are written relative to the observer: block 0 is the observer, block 1 the next seat
in playing order, and so on. Every field is a count, a 0/1 flag or a number as the engine
gives it (no scaling), so that a learner may normalise as it likes. :attr:`Layout.low` and
:attr:`Layout.high` bound every entry from the pack (copies of each card kind, the deck, the
turn cap, the scores the pack's formulas can give...); ``inf`` only where no bound is computed
(docs/rl.md, "Observation bounds").
"""
from __future__ import annotations

import itertools
import os
from typing import Any, Callable

import numpy as np

from lostcities.engine import InputError, Observation, RulePack, load_pack, observation

#: the phases of a turn as ``Observation.phase`` names them, in one-hot order
PHASES = ("card", "draw", "pawn", "advance", "over")
#: the board's tile kinds, in one-hot order
TILE_KINDS = ("artefact", "points", "step")


class Layout:
    """The observation vector of ``pack`` at ``players`` players: :attr:`fields` lists
    ``(name, start, size)`` in order, :attr:`size` is the vector's length."""

    def __init__(self, pack: RulePack, players: int):
        codec = pack.cards
        self.pack = pack
        self.players = players
        self.n_kinds = k = codec.n_kinds
        self.n_colours = c = codec.n_colours
        self.slots = codec.slots
        n = players
        fields: list[tuple[str, int]] = [
            ("hand", k),                 # copies of each card kind in the observer's hand
            ("rows", n * k),             # per seat (observer first): cards of each kind played
            ("row_last", n * c),         # per seat and colour: the row's last card's slot + 1, 0 empty
            ("pile_tops", k),            # one-hot: the card on top of each colour's pile
            ("pile_sizes", c),           # cards in each discard pile
            ("draw_pile", 1),            # cards left in the draw pile
            ("hand_sizes", n),           # per seat
            ("round", 1), ("rounds", 1), ("turn", 1),
            ("to_move", n),              # one-hot, relative seat
            ("phase", len(PHASES)),      # one-hot
            ("pending", 2 * k),          # the card decision under way: play k / discard k
            ("last_play", 1),            # the draw pile ran out: this turn has no draw
            ("round_scores", n * pack.rounds),  # finished rounds (first pack.rounds), per seat
            ("totals", n),               # match totals so far, per seat
        ]
        # the family's own fields after the cards' (chosen once: FAMILY_FIELDS)
        family_fields, self._encode_family = FAMILY_FIELDS[pack.family]
        fields += family_fields(pack, n, c)
        self.fields: list[tuple[str, int, int]] = []
        start = 0
        for name, size in fields:
            self.fields.append((name, start, size))
            start += size
        self.size = start
        self._at = {name: (s, z) for name, s, z in self.fields}
        self._bounds: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def low(self) -> np.ndarray:
        """The least value of each entry (float32; docs/rl.md, "Bounds"), computed once."""
        if self._bounds is None:
            self._bounds = _bounds(self)
        return self._bounds[0]

    @property
    def high(self) -> np.ndarray:
        """The most of each entry (float32; ``inf`` only where no bound is computed)."""
        if self._bounds is None:
            self._bounds = _bounds(self)
        return self._bounds[1]

    def slice(self, name: str) -> slice:
        """Where field ``name`` lies in the vector."""
        start, size = self._at[name]
        return slice(start, start + size)

    def encode(self, obs: Observation, out: Any = None) -> np.ndarray:
        """The vector of ``obs`` (``float32``, length :attr:`size`); written into ``out``
        when given (a zeroed or reused array of that length)."""
        v = np.zeros(self.size, np.float32) if out is None else out
        if out is not None:
            v[:] = 0
        k, c, n, at = self.n_kinds, self.n_colours, self.players, self._at
        seat = obs.seat if obs.seat is not None else 0
        order = [(seat + i) % n for i in range(n)]
        h = at["hand"][0]
        for card in obs.hand:
            v[h + card] += 1
        r, last = at["rows"][0], at["row_last"][0]
        slots = self.slots
        for i, p in enumerate(order):
            for colour, row in enumerate(obs.rows[p]):
                for card in row:
                    v[r + i * k + card] += 1
                if row:
                    v[last + i * c + colour] = row[-1] % slots + 1
        t = at["pile_tops"][0]
        for card in obs.pile_tops:
            if card is not None:
                v[t + card] = 1
        v[self.slice("pile_sizes")] = obs.pile_sizes
        v[at["draw_pile"][0]] = obs.draw_pile
        v[self.slice("hand_sizes")] = [obs.hand_sizes[p] for p in order]
        v[at["round"][0]] = obs.round
        v[at["rounds"][0]] = obs.rounds
        v[at["turn"][0]] = obs.turn
        v[at["to_move"][0] + order.index(obs.to_move)] = 1
        v[at["phase"][0] + PHASES.index(obs.phase)] = 1
        if obs.pending is not None:
            action, card = obs.pending
            v[at["pending"][0] + (0 if action == "play" else k) + card] = 1
        v[at["last_play"][0]] = obs.last_play
        rs = at["round_scores"][0]
        for j, scores in enumerate(obs.round_scores[:self.pack.rounds]):
            for i, p in enumerate(order):
                v[rs + j * n + i] = scores[p]
        v[self.slice("totals")] = [obs.totals[p] for p in order]
        self._encode_family(self, obs, order, v)
        return v


class SeatVectors:
    """Every seat's observation vector of one match, kept up to date decision by decision
    for the adapters (PettingZoo's ``observe``): each is always equal to
    ``layout.encode(observation(state, seat))`` (tests/test_envs_observe.py checks every seat
    at every decision of whole matches of every pack), but built once per change, and in a
    duel's round only what a decision changed is written: the cards it moved (a hand's
    count, a row's, a pile's top and size) at once, the turn's public numbers (the draw
    pile, the hand sizes, the turn, the seat to move, the phase, the pending card) when the
    seat's vector is next read. A new round, the match's end and every decision of a board
    pack rebuild the vectors whole from :func:`~lostcities.engine.observation`, when read.

    It reads the engine's state (its hands, rows, piles, deck size and turn numbers; never
    another seat's hand into a seat's vector) and never changes it.
    """

    def __init__(self, lay: Layout, state: Any):
        self.layout = lay
        n = lay.players
        self.vectors = [np.zeros(lay.size, np.float32) for _ in range(n)]
        self._fast = WRITES_CHANGES[lay.pack.family]
        k = lay.n_kinds
        self._k = k
        self._colour_of = lay.pack.cards.colour_of
        at = lay._at
        self._hand, self._rows, self._last = at["hand"][0], at["rows"][0], at["row_last"][0]
        self._tops, self._sizes = at["pile_tops"][0], at["pile_sizes"][0]
        self._draw, self._hand_sizes = at["draw_pile"][0], at["hand_sizes"][0]
        self._round, self._turn, self._to_move = at["round"][0], at["turn"][0], at["to_move"][0]
        self._phase, self._pending, self._last_play = (at["phase"][0], at["pending"][0],
                                                       at["last_play"][0])
        #: the engine's phase number -> PHASES index, learned from observation() as seen
        self._phases: dict[int, int] = {}
        self.reset(state)

    def reset(self, state: Any) -> None:
        """A new match (or any state): every vector is rebuilt when next read."""
        n = self.layout.players
        self.state = state
        self._whole = [True] * n      # rebuild from observation() when read
        self._stale = [True] * n      # the turn's public numbers to write when read
        self._finished, self._round = len(state.finished), state.round
        # per seat, the entries its one-hot fields set last: each pile's top, to_move,
        # phase, pending (so that the next write clears them)
        self._top_at = [[-1] * self.layout.n_colours for _ in range(n)]
        self._one_hot = [[-1, -1, -1] for _ in range(n)]

    def update(self, state: Any, seat: int, action: int) -> None:
        """``state`` is the one after seat ``seat``'s decision ``action`` on the state given
        before (to :meth:`reset` or the last :meth:`update`): a new state (``step``) or the
        same one played on in place (``push_action``)."""
        self.state = state
        n = self.layout.players
        if not self._fast or len(state.finished) != self._finished or state.round != self._round:
            self._finished, self._round = len(state.finished), state.round
            self._whole = [True] * n
            return
        self._stale = [True] * n
        k = self._k
        whole = self._whole
        if action < 2 * k:  # a card played or discarded: the seat's hand, a row or a pile
            card = action - k if action >= k else action
            if not whole[seat]:
                hand = state.hands[seat]
                self.vectors[seat][self._hand + card] = hand.count(card)
            colour = self._colour_of[card]
            if action < k:
                row = state.rows[seat][colour]
                count, last = row.count(card), row[-1] % self.layout.slots + 1
                c = self.layout.n_colours
                for s in range(n):
                    if not whole[s]:
                        i = (seat - s) % n
                        v = self.vectors[s]
                        v[self._rows + i * k + card] = count
                        v[self._last + i * c + colour] = last
            else:
                self._pile(state, colour)
        else:  # a draw: the deck or a pile's top into the seat's hand
            if action > 2 * k:
                self._pile(state, action - 2 * k - 1)
            if not whole[seat]:
                hand = state.hands[seat]
                v = self.vectors[seat]
                h = self._hand
                new = hand[-1] if hand else None
                if new is not None and v[h + new] != hand.count(new):
                    v[h + new] = hand.count(new)
                else:  # the card drawn is not last in the hand: count the hand again
                    v[h:h + k] = 0
                    for card in hand:
                        v[h + card] = hand.count(card)

    def _pile(self, state: Any, colour: int) -> None:
        """Pile ``colour`` changed: its top and size in every vector."""
        pile = state.piles[colour]
        top = self._tops + pile[-1] if pile else -1
        size = len(pile)
        for s in range(self.layout.players):
            if not self._whole[s]:
                v = self.vectors[s]
                tops = self._top_at[s]
                if tops[colour] >= 0:
                    v[tops[colour]] = 0
                if top >= 0:
                    v[top] = 1
                tops[colour] = top
                v[self._sizes + colour] = size

    def vector(self, seat: int) -> np.ndarray:
        """Seat ``seat``'s vector now (the object kept up to date: copy it to keep it)."""
        v = self.vectors[seat]
        if self._whole[seat]:
            state = self.state
            obs = observation(state, seat)
            self.layout.encode(obs, out=v)
            self._phases[state.phase] = PHASES.index(obs.phase)
            self._one_hot[seat] = [-1, -1, -1]
            if self._fast and not obs.phase == "over":
                tops = self._top_at[seat]
                for colour, pile in enumerate(state.piles):
                    tops[colour] = self._tops + pile[-1] if pile else -1
                self._public(seat, v, state)  # the same values: records the one-hot entries
            self._whole[seat] = False
            self._stale[seat] = False
        elif self._stale[seat]:
            self._public(seat, v, self.state)
            self._stale[seat] = False
        return v

    def _public(self, seat: int, v: np.ndarray, state: Any) -> None:
        """The turn's public numbers into ``v``: the draw pile, the hand sizes, the turn, the
        seat to move, the phase, the pending card, the last play (the round changes only
        with a new round, which rebuilds the vectors whole). The one-hot fields clear the
        entry they set last."""
        n = self.layout.players
        hands = state.hands
        at = self._hand_sizes
        if n == 2:
            v[at] = len(hands[seat])
            v[at + 1] = len(hands[1 - seat])
        else:
            for i in range(n):
                v[at + i] = len(hands[(seat + i) % n])
        v[self._draw] = len(state.deck)
        v[self._turn] = state.turn
        v[self._last_play] = state.last_play
        phase = self._phases.get(state.phase)
        if phase is None:  # a phase not seen yet: read it from an observation once
            phase = self._phases[state.phase] = PHASES.index(observation(state, seat).phase)
        one = self._one_hot[seat]
        pending = state.pending
        for field, hot in enumerate((
                self._to_move + (state.to_move - seat) % n, self._phase + phase,
                -1 if pending is None else
                self._pending + (0 if pending[0] == "play" else self._k) + pending[1])):
            was = one[field]  # the one-hot field's set index (-1: none)
            if was != hot:
                if was >= 0:
                    v[was] = 0
                if hot >= 0:
                    v[hot] = 1
                one[field] = hot


def _duel_fields(pack: RulePack, n: int, c: int) -> list[tuple[str, int]]:
    """A duel has no board: no fields beside the cards'."""
    return []


def _encode_duel(layout: Layout, obs: Observation, order: list[int], v: np.ndarray) -> None:
    """Nothing beside the cards."""


def _board_fields(pack: RulePack, n: int, c: int) -> list[tuple[str, int]]:
    """The board's fields at ``n`` players and ``c`` tracks."""
    board = pack.board
    pawns, spaces = board.pawns, board.spaces
    return [
        ("pawn_tracks", n * pawns * (c + 1)),  # per seat, pawn: one-hot track, last = centre
        ("pawn_spaces", n * pawns),            # per seat, pawn: space (0 in the centre)
        ("tiles", c * (spaces + 1) * len(TILE_KINDS)),  # per track, space: one-hot kind
        ("tile_values", c * (spaces + 1)),     # per track, space: a points tile's value
        ("tokens", n), ("artefacts", n),       # held in the match, per seat
        ("round_tokens", n), ("round_artefacts", n),
        ("crossings", 1), ("crossings_to_end", 1),
        ("turn_pawn", pawns + 1),              # one-hot: the pawn sent this turn, last none
        ("turn_steps", 1),                     # advances decided this turn
    ]


def _encode_board(layout: Layout, obs: Observation, order: list[int], v: np.ndarray) -> None:
    """The board's fields of ``obs``: pawns, tiles, tokens, artefacts, crossings, the turn's
    pawn and steps."""
    b = obs.board
    at, c = layout._at, layout.n_colours
    spec = layout.pack.board
    pawns, spaces = spec.pawns, spec.spaces
    tr, sp = at["pawn_tracks"][0], at["pawn_spaces"][0]
    for i, p in enumerate(order):
        for j, (track, space, _leader) in enumerate(b.pawns[p]):
            v[tr + (i * pawns + j) * (c + 1) + (c if track < 0 else track)] = 1
            v[sp + i * pawns + j] = space
    ti, tv = at["tiles"][0], at["tile_values"][0]
    for track, space, kind, value in b.tiles:
        place = track * (spaces + 1) + space
        v[ti + place * len(TILE_KINDS) + TILE_KINDS.index(kind)] = 1
        v[tv + place] = value
    for name in ("tokens", "artefacts", "round_tokens", "round_artefacts"):
        seq = getattr(b, name)
        v[layout.slice(name)] = [seq[p] for p in order]
    v[at["crossings"][0]] = b.crossings
    v[at["crossings_to_end"][0]] = b.crossings_to_end
    v[at["turn_pawn"][0] + (pawns if b.turn_pawn is None else b.turn_pawn)] = 1
    v[at["turn_steps"][0]] = len(b.turn_steps)


#: family -> its fields beside the cards' and how an observation fills them
FAMILY_FIELDS: dict[str, tuple[Callable[[RulePack, int, int], list[tuple[str, int]]],
                               Callable[[Layout, Observation, list[int], np.ndarray], None]]] = {
    "duel": (_duel_fields, _encode_duel), "board": (_board_fields, _encode_board)}


_LAYOUTS: dict[tuple[int, int], Layout] = {}


def pack_of(pack: Any) -> RulePack:
    """A loaded pack: ``pack`` itself, or the built-in id or pack file it names (one
    :class:`~lostcities.engine.PackError` line for an unknown id or a bad file, one
    :class:`~lostcities.engine.InputError` line for anything else)."""
    if isinstance(pack, RulePack):
        return pack
    if isinstance(pack, (str, os.PathLike)):
        return load_pack(pack)
    raise InputError(f"pack must be a built-in pack id, a pack file or a RulePack, "
                     f"not {type(pack).__name__} {pack!r:.40}")


def layout(pack: Any, players: int) -> Layout:
    """The :class:`Layout` of ``pack`` (a built-in id, a pack file or a loaded
    :class:`RulePack`) at ``players`` players (built once per pack object)."""
    pack = pack_of(pack)
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or players < 1:
        raise InputError(f"players must be a whole number of seats ({pack.id}: "
                         f"{pack.min_players}-{pack.max_players}), not {players!r}")
    key = (id(pack), int(players))
    found = _LAYOUTS.get(key)
    if found is None or found.pack is not pack:
        found = _LAYOUTS[key] = Layout(pack, int(players))
    return found


def encode(obs: Observation, pack: Any) -> np.ndarray:
    """The observation vector of ``obs`` (a seat's :func:`~lostcities.engine.observation`);
    ``pack`` as for :func:`layout`."""
    return layout(pack, len(obs.players)).encode(obs)


# ------------------------------------------------------------------------------ bounds

#: the most rows of one colour whose score is asked of the pack's formula to bound it
_MOST_ROWS = 200_000


def _kind_copies(pack: RulePack) -> list[int]:
    """How many copies of each card kind the deck holds."""
    copies = [0] * pack.cards.n_kinds
    for card in pack.deck():
        copies[card] += 1
    return copies


def _expedition_bounds(pack: RulePack) -> tuple[float, float]:
    """The least and the most a round's expeditions can score together, each colour's row
    asked of the pack's expedition formula for every number of wagers and every set of its
    numbers (in rising and falling order); ``(-inf, inf)`` when a colour has too many."""
    codec, scoring = pack.cards, pack.scoring
    copies = _kind_copies(pack)
    low = high = 0.0
    for colour in range(codec.n_colours):
        kinds = [k for k in range(codec.n_kinds) if codec.colour_of[k] == colour and copies[k]]
        wagers = sum(copies[k] for k in kinds if codec.value_of[k] is None)
        numbers = [(codec.value_of[k], copies[k]) for k in kinds if codec.value_of[k] is not None]
        rows = wagers + 1
        for _, n in numbers:
            rows *= n + 1
        if rows > _MOST_ROWS:
            return -np.inf, np.inf
        scores = [0]  # an empty row is not scored
        for counts in itertools.product(*[range(n + 1) for _, n in numbers]):
            values = sorted(v for (v, _), c in zip(numbers, counts) for _ in range(c))
            for w in range(wagers + 1):
                scores.append(scoring.expedition(colour, values, w))
                scores.append(scoring.expedition(colour, values[::-1], w))
        low += min(scores)
        high += max(scores)
    return low, high


def _bounds(lay: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Per entry of ``lay``'s vector, the least and the most it can hold (float32)."""
    pack, n = lay.pack, lay.players
    copies = _kind_copies(pack)
    deck = float(sum(copies))
    per_colour = [0.0] * lay.n_colours
    for k, m in enumerate(copies):
        per_colour[pack.cards.colour_of[k]] += m
    scoring = pack.scoring
    if scoring.sums_expeditions:
        round_low, round_high = _expedition_bounds(pack)
    else:  # pawns, tokens and artefacts in a round formula of the pack's own: not bounded here
        round_low, round_high = -np.inf, np.inf
    if scoring.sums_rounds:
        total_low, total_high = min(0.0, pack.rounds * round_low), max(0.0, pack.rounds * round_high)
    else:
        total_low, total_high = -np.inf, np.inf
    zero = {"hand": copies, "rows": copies * n, "row_last": lay.slots, "pile_sizes": per_colour,
            "draw_pile": deck, "hand_sizes": deck, "round": pack.rounds, "turn": pack.turn_cap}
    low = np.zeros(lay.size, np.float64)
    high = np.ones(lay.size, np.float64)  # one-hot fields and flags
    for name, value in zero.items():
        high[lay.slice(name)] = value
    low[lay.slice("rounds")] = high[lay.slice("rounds")] = pack.rounds
    low[lay.slice("round_scores")] = min(0.0, round_low)
    high[lay.slice("round_scores")] = max(0.0, round_high)
    low[lay.slice("totals")], high[lay.slice("totals")] = total_low, total_high
    FAMILY_BOUNDS[pack.family](lay, low, high)
    # an entry that is always the same (the rounds, a card kind the deck lacks) gets [v, v + 1]:
    # a Box whose low equals its high somewhere is flagged by Gymnasium's checker
    high[high == low] += 1
    return low.astype(np.float32), high.astype(np.float32)


def _duel_bounds(lay: Layout, low: np.ndarray, high: np.ndarray) -> None:
    """A duel has no fields beside the cards'."""


def _board_bounds(lay: Layout, low: np.ndarray, high: np.ndarray) -> None:
    """The board fields' bounds: spaces, tile values, what advances can collect."""
    pack = lay.pack
    spec = pack.board
    advances = spec.pawns * spec.spaces  # every advance moves a pawn one space on
    points = [t.value for t in spec.tiles] or [0]  # a tile without a value holds 0
    artefacts = max(spec.tile_count, sum(t.count for t in spec.tiles))  # each taken once a round
    round_tokens = advances * max(0, max(points))
    high[lay.slice("pawn_spaces")] = spec.spaces
    low[lay.slice("tile_values")] = min(0, min(points))
    high[lay.slice("tile_values")] = max(0, max(points))
    high[lay.slice("round_tokens")] = round_tokens
    high[lay.slice("tokens")] = round_tokens * pack.rounds
    high[lay.slice("round_artefacts")] = artefacts
    high[lay.slice("artefacts")] = artefacts * pack.rounds
    high[lay.slice("crossings")] = high[lay.slice("crossings_to_end")] = pack.bridge_crossings
    high[lay.slice("turn_steps")] = advances


#: family -> how its own fields' bounds are set (after the cards')
FAMILY_BOUNDS: dict[str, Callable[[Layout, np.ndarray, np.ndarray], None]] = {
    "duel": _duel_bounds, "board": _board_bounds}
#: family -> whether SeatVectors writes only what a decision changed (a duel's cards and
#: turn) or rebuilds the vectors whole after each decision (the board's pawns and tiles)
WRITES_CHANGES: dict[str, bool] = {"duel": True, "board": False}
