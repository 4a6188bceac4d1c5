"""Per-action features for learners: what each legal action id would do, as a small vector
(docs/rl.md, "Action features").

A policy over the raw observation vector has to learn that "play r7" is good when the red
row's last card is r5 and bad when it is r8; a linear map over the vector cannot pair the
two. :class:`ActionFeatures` pairs them: ``features(obs)`` is an ``(num_actions, F)`` array
whose row ``a`` describes action id ``a`` from the acting seat's point of view (a play
or discard: the card's value, the gap to the row's last card, whether it opens a colour,
the cards of its colour still in hand, whether the discard fits an opponent's row; a draw:
the deck or the pile's top, whether it fits a row). It reads only the observation vector
of :mod:`lostcities.envs.observe` (what the seat may see), so a policy scoring
``features(obs) @ w`` over the legal ids sees nothing hidden. Duel-family packs only (the
pawn decisions of a board pack have no features).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from lostcities.engine import action_space
from lostcities.engine.tooling import tables_of
from lostcities.engine.errors import InputError

from .observe import layout
from .pettingzoo_env import pack_of

#: the feature names, in column order (docs/rl.md lists what each means)
NAMES = (
    "play", "play_opens", "play_opens_late", "play_continues", "play_value", "play_wager",
    "play_gap", "play_skips_in_hand", "play_colour_in_hand", "play_colour_sum",
    "play_row_sum", "play_potential", "play_opens_potential", "play_opens_potential_late",
    "play_wager_potential",
    "discard", "discard_value", "discard_playable", "discard_dead", "discard_helps_opponent",
    "discard_colour_open", "discard_wager",
    "deck", "deck_late", "pile", "pile_fits", "pile_fits_open_row", "pile_value_fits",
    "pile_denies_opponent",
)

#: the decisions whose ids have features (a pack whose turns ask others is refused)
FEATURED_DECISIONS = ("play", "discard", "draw")


class ActionFeatures:
    """``ActionFeatures(pack, players=2)``: call it on an observation vector (of the seat
    to move) to get ``(num_actions, len(NAMES))`` float32 features; values lie in about
    ``[-2, 2]``. Rows of ids that are not card or draw decisions are zero."""

    names = NAMES

    def __init__(self, pack: Any = "duel-classic", players: int = 2):
        self.pack = pack = pack_of(pack)
        others = [d for d in tables_of(pack).decisions if d not in FEATURED_DECISIONS]
        if others:
            raise InputError(f"ActionFeatures({pack.id}): board packs have no action features "
                             f"(for their {', '.join(others)} decisions)")
        codec = pack.cards
        self.layout = layout(pack, players)
        self.K, self.C, self.S = K, C, S = codec.n_kinds, codec.n_colours, codec.slots
        self.colour = np.array(codec.colour_of, np.int64)
        self.slot = np.arange(K) % S
        values = np.array([0] + [codec.min_value + s - 1 for s in range(1, S)], np.float32)
        self.value = values[self.slot]
        self.top = float(max(codec.max_value, 1))
        self.wager = self.slot == 0
        self.equal_ok = self.wager | tables_of(pack).equal_follows  # rows.ordering, compiled
        self.deck_full = float(max(pack.deck_size - players * pack.hand_size, 1))
        self.num_actions = 2 * K + 1 + C
        self.total_actions = action_space(pack).num_actions
        self._same = self.colour[:, None] == self.colour[None, :]           # (K, K)
        lay = self.layout
        self._s = {name: lay.slice(name) for name in
                   ("hand", "rows", "row_last", "pile_tops", "pile_sizes", "draw_pile")}

    def _accepts(self, last: np.ndarray) -> np.ndarray:
        """(K,) for each kind: a row of its colour whose last slot is ``last[colour]``
        (-1: empty) accepts it."""
        lk = last[self.colour]
        return (self.slot > lk) | ((self.slot == lk) & self.equal_ok)

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """The features of every action id for this observation vector."""
        s, K, C = self._s, self.K, self.C
        hand = obs[s["hand"]]
        rows = obs[s["rows"]].reshape(-1, K)
        last = obs[s["row_last"]].reshape(-1, C).astype(np.int64) - 1       # -1: empty
        mine, others = last[0], last[1:]
        top = self.top
        late = 1.0 - float(obs[s["draw_pile"]][0]) / self.deck_full
        held = hand > 0
        accepts = self._accepts(mine)
        open_row = mine >= 0
        # per colour: my row's points and the playable numbers I hold
        row_sum = np.bincount(self.colour, rows[0] * self.value, C)
        up = held & accepts & ~self.wager
        up_sum = np.bincount(self.colour, up * self.value, C)
        in_hand = np.bincount(self.colour, hand, C)
        wagers = np.bincount(self.colour, rows[0] * self.wager, C)
        potential = (row_sum + up_sum - 2 * top) * (1 + wagers) / (10 * top)
        col = self.colour
        f = np.zeros((self.total_actions, len(NAMES)), np.float32)
        # plays
        p = f[:K]
        opens = ~open_row[col]
        p[:, 0] = 1
        p[:, 1] = opens
        p[:, 2] = opens * late
        p[:, 3] = ~opens
        p[:, 4] = self.value / top
        p[:, 5] = self.wager
        gap = np.where(opens, self.slot - 0, self.slot - mine[col] - 1)
        p[:, 6] = np.maximum(gap, 0) / self.S
        below = self._same & (self.slot[None, :] < self.slot[:, None]) \
            & (self.slot[None, :] > mine[col][:, None]) & held[None, :]
        p[:, 7] = below.sum(1) / 4.0
        p[:, 8] = in_hand[col] / 8.0
        p[:, 9] = up_sum[col] / (5 * top)
        p[:, 10] = row_sum[col] / (5 * top)
        p[:, 11] = potential[col]
        p[:, 12] = opens * potential[col]
        p[:, 13] = opens * potential[col] * late
        # a wager: what the row would be worth with it and the numbers held
        p[:, 14] = self.wager * (row_sum + up_sum - 2 * top)[col] * (2 + wagers[col]) / (10 * top)
        # discards
        d = f[K:2 * K]
        d[:, 15] = 1
        d[:, 16] = self.value / top
        d[:, 17] = accepts
        d[:, 18] = open_row[col] & ~accepts
        theirs = np.zeros(K, bool)
        for row in others:
            theirs |= (row[col] >= 0) & self._accepts(row)
        d[:, 19] = theirs * (1 + self.value / top) / 2
        d[:, 20] = open_row[col]
        d[:, 21] = self.wager
        # draws: the deck, then each pile's top
        f[2 * K, 22] = 1
        f[2 * K, 23] = late
        tops = obs[s["pile_tops"]].reshape(-1)
        sizes = obs[s["pile_sizes"]]
        for c in range(C):
            row = f[2 * K + 1 + c]
            row[24] = 1
            if sizes[c] <= 0:
                continue
            kinds = np.flatnonzero(tops[:K] * (col == c))
            if not len(kinds):
                continue
            k = int(kinds[0])
            fits = bool(accepts[k])
            row[25] = fits
            row[26] = fits and bool(open_row[c])
            row[27] = fits * self.value[k] / top
            row[28] = float(theirs[k])
        return f
