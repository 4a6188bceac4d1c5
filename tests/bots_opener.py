"""``opener``: a rule-based test opponent that opens every colour early and takes
every discard that fits its rows (the kind of published bot issue #15 measured the
expert against). Load it as ``bots_opener:OpenerBot`` with ``tests/`` on the path.

Policy, from the observation and the legal moves alone (public API only):

* **card**: play the lowest card that fits one of its rows (a wager before a number,
  so every unopened colour gets opened, wagers first); when nothing fits, discard
  the lowest card;
* **draw**: take the top of a discard pile that fits its row of that colour (after
  this turn's play), the highest such top first; otherwise draw from the deck.

Duel packs only (on a board it plays the first legal move).
"""
from __future__ import annotations

from lostcities.engine import DECK, Bot, Move, SeatView, refusal


class OpenerBot(Bot):
    """Opens every colour it can, takes every discard that fits (see the module)."""

    name = "opener"

    def choose(self, view: SeatView) -> Move:
        obs, pack, legal = view.observation, view.pack, view.legal_moves
        if obs.board is not None:
            return legal[0]
        codec = pack.cards
        plays = [m for m in legal if m.action == "play"]
        pool = plays or legal

        def low(move: Move) -> tuple[int, int]:  # wagers (slot 0) first, then by value
            colour, slot = codec.sort_key(move.card)
            return (slot, colour)

        first = min(pool, key=low)
        same = [m for m in legal if m.action == first.action and m.card == first.card]
        rows = list(obs.rows[obs.seat])
        if first.action == "play":
            colour = codec.sort_key(first.card)[0]
            rows[colour] = rows[colour] + (first.card,)
        best, best_value = None, None
        for move in same:
            if move.draw is None or move.draw == DECK:
                continue
            top = obs.pile_tops[move.draw]
            if first.action == "discard" and codec.sort_key(first.card)[0] == move.draw:
                continue  # the card just discarded (the engine refuses it anyway)
            if top is None or refusal(pack, rows[move.draw], top) is not None:
                continue
            value = codec.sort_key(top)[1]
            if best_value is None or value > best_value:
                best, best_value = move, value
        if best is not None:
            return best
        return next((m for m in same if m.draw == DECK), same[0])
