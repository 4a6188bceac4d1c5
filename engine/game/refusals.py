"""Why a move is refused, in words a front end can translate.

:func:`illegal_reason` (:mod:`.turn`) decides whether a move is legal and says why not
in English; :func:`why_refused` says the same as a :class:`Refusal`: a key of the
message catalogue (``illegal.*``, :mod:`lostcities.i18n`) and its parameters, so
``lc play``, the room server and its web page give the reason in the player's
language. Parameters named ``colour`` hold a pack colour's *name* (``yellow``), for the
catalogue to translate (:meth:`lostcities.i18n.Catalogue.colour`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from .moves import DECK, PLAY, Move
from .state import GameState
from .turn import illegal_reason, legal_moves


@dataclass(frozen=True)
class Refusal:
    """Why a move is refused: a catalogue key (``illegal.not-held``, ``illegal.wager``,
    ``illegal.lowest``, ``illegal.order.ORDERING[.up|.down]``, ``illegal.deck-empty``,
    ``illegal.retake``, ``illegal.pile-empty``, ``illegal.other``) and its parameters
    (``card`` and ``row`` in the card notation, ``colour`` a colour's name, ``last`` a
    value, ``reason`` the engine's English sentence for ``illegal.other``)."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)


def why_refused(state: GameState, move: Move) -> Optional[Refusal]:
    """Why ``move`` is refused in ``state``, or None when it is legal.

    The engine decides legality (:func:`~lostcities.engine.illegal_reason`); this only
    names the reason: the card not held, the row it cannot join (its last card and the
    pack's ordering), the draw it cannot take; anything else is ``illegal.other`` with
    the engine's sentence.
    """
    reason = illegal_reason(state, move)
    if reason is None:
        return None
    other = Refusal("illegal.other", {"reason": reason})
    pack = state.pack
    codec = pack.cards
    if not isinstance(move, Move) or not isinstance(move.card, int) \
            or not 0 <= move.card < len(codec.colour_of):
        return other
    card = codec.format(move.card)
    hand = state.hands[state.to_move]
    colour_index = codec.colour_of[move.card]
    colour = pack.colours[colour_index].name
    if move.card not in hand:
        return Refusal("illegal.not-held", {"card": card})
    if not any(m.action == move.action and m.card == move.card for m in legal_moves(state)):
        row = state.rows[state.to_move][colour_index]
        numbers = [codec.value_of[k] for k in row if codec.value_of[k] is not None]
        shown_row = " ".join(codec.format(k) for k in row)
        if move.action == PLAY and codec.value_of[move.card] is None:
            return Refusal("illegal.wager", {"card": card, "colour": colour, "row": shown_row})
        if move.action == PLAY and not numbers and pack.row_start == "lowest-in-hand":
            same = [k for k in hand if codec.colour_of[k] == colour_index
                    and codec.value_of[k] is not None]
            if same:
                lowest = min(same, key=codec.sort_key)
                return Refusal("illegal.lowest", {"card": card, "colour": colour,
                                                  "lowest": codec.format(lowest)})
        if move.action == PLAY and numbers:
            key = f"illegal.order.{pack.ordering}"
            steps = [b - a for a, b in zip(numbers, numbers[1:]) if b != a]
            if pack.ordering == "either-direction" and steps:
                key += ".up" if steps[0] > 0 else ".down"   # the direction the row took
            return Refusal(key, {"card": card, "colour": colour, "last": numbers[-1],
                                 "row": shown_row})
        return other
    if move.draw == DECK and not state.deck:
        return Refusal("illegal.deck-empty", {})
    if move.draw is not None and 0 <= move.draw < len(pack.colours):
        if move.action != PLAY and move.draw == colour_index:
            return Refusal("illegal.retake", {"card": card})
        if not state.piles[move.draw]:
            return Refusal("illegal.pile-empty", {"colour": pack.colours[move.draw].name})
    return other


__all__ = ["Refusal", "why_refused"]
