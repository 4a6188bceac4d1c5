"""Moves tampered on purpose, each with the refusal key the tampering must earn.

A legal move of a real position is changed in one way (its card replaced by one not in
hand, a draw from the pile just discarded on, a step given to a discard...) and the key of
the rule that change breaks is written down from *how* the move was changed and from plain
facts of the position (the hand, the rows, the piles, where the pawns stand, the pack's
settings), never from the engine's legality check: tests/test_refusals.py compares it with
the key :func:`lostcities.engine.why_refused` gives, and benchmarks the old and new
answers on 1,200 tampered board-classic moves.
"""
from __future__ import annotations

import dataclasses
import random
from functools import lru_cache
from typing import Optional

from lostcities.engine import DECK, DISCARD, PLAY, Move, legal_moves, new_game, push, random_move
from lostcities.engine.game.state import OVER, GameState

ORDER_KEY = {"strict": "illegal.order.strict", "non-decreasing": "illegal.order.non-decreasing"}
"""The ordering key of a refused number card, by the pack's ``rows.ordering`` (the
either-direction key names the row's direction, worked out from its values below)."""


def positions(pack, seed: int, every: int = 7) -> tuple[GameState, ...]:
    """Copies of the positions of one random match of ``pack`` (every ``every``-th turn,
    each last play once the deck is empty, the finished match), kept for the next call."""
    return _positions(_Key(pack), seed, every)


class _Key:
    """A pack as a cache key, by identity (a pack holds dicts: it has no hash)."""

    def __init__(self, pack):
        self.pack = pack

    def __hash__(self) -> int:
        return id(self.pack)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and other.pack is self.pack


@lru_cache(maxsize=64)
def _positions(key: _Key, seed: int, every: int) -> tuple[GameState, ...]:
    pack = key.pack
    rng = random.Random(seed)
    state = new_game(pack, pack.min_players, seed)
    out = []
    turn = 0
    while state.phase != OVER:
        if turn % every == 0 or not state.deck:  # and each last play after the deck
            out.append(state.copy())
        push(state, random_move(state, rng))
        turn += 1
    out.append(state.copy())
    return tuple(out)


def _card(pack, k: int) -> str:
    return pack.cards.format(k)


def tampered(state: GameState, rng: random.Random) -> list[tuple[str, Move, str]]:
    """Every tampering that applies to ``state``: ``(how, move, expected key)``."""
    pack = state.pack
    codec = pack.cards
    out: list[tuple[str, Move, str]] = []
    if not legal_moves(state):
        any_move = Move(PLAY, 0, DECK, codec=codec)
        return [("the match is over", any_move, "illegal.game-over")]
    p = state.to_move
    legal = legal_moves(state)
    hand = list(state.hands[p])  # read after legal_moves: a board pack's walk may leave the
    move = rng.choice(legal)     # list held before it one card short (the state has a new one)

    def but(**changes) -> Move:
        return dataclasses.replace(move, **changes)

    out.append(("an unknown action", but(action="pass"), "illegal.action"))
    out.append(("a card number past the deck", but(card=codec.n_kinds + 7), "illegal.card"))
    missing = [k for k in range(codec.n_kinds) if k not in hand]
    if missing:
        out.append(("the card replaced by one not in hand", but(card=rng.choice(missing)),
                    "illegal.not-held"))
    if pack.board is None:
        out.append(("a pawn given in a duel", but(pawn=0), "illegal.no-board"))
        out.append(("a step given in a duel", but(steps=(0,)), "illegal.no-board"))
    last_play = move.draw is None and not state.deck  # no draw: the last play, or a crossing
    # the draw
    if move.draw is not None:
        out.append(("the draw left out", but(draw=None), "illegal.draw-missing"))
        out.append(("a draw from nowhere", but(draw=99), "illegal.draw-source"))
        empty = [c for c in range(len(pack.colours)) if not state.piles[c]
                 and not (move.action == DISCARD and c == codec.colour_of[move.card])]
        if empty:  # (after a discard in a deck-only pack, that rule is the one broken)
            out.append(("a draw from an empty pile", but(draw=rng.choice(empty)),
                        "illegal.discard-then-deck" if move.action == DISCARD
                        and pack.retake == "no-discard-pile" else "illegal.pile-empty"))
    elif last_play:
        out.append(("a draw after the last card of the deck", but(draw=DECK),
                    "illegal.last-play-draw"))
    else:  # a board move whose bridge crossing ended the round
        out.append(("a draw after the round's last bridge crossing", but(draw=DECK),
                    "illegal.crossing-draw"))
    discards = [m for m in legal if m.action == DISCARD and m.draw is not None]
    if discards and pack.retake == "not-the-same-card":
        d = rng.choice(discards)
        out.append(("a draw from the pile just discarded on",
                    dataclasses.replace(d, draw=codec.colour_of[d.card]), "illegal.retake"))
    if discards and pack.retake == "no-discard-pile":  # any pile, its own or another's
        d = rng.choice(discards)
        out.append(("a discard's draw from a discard pile",
                    dataclasses.replace(d, draw=rng.randrange(len(pack.colours))),
                    "illegal.discard-then-deck"))
    if pack.board is not None and discards:
        d = rng.choice(discards)
        out.append(("a step given to a discard",
                    dataclasses.replace(d, steps=(rng.randrange(len(pack.colours)),)),
                    "illegal.discard-pawn"))
        out.append(("a pawn given to a discard", dataclasses.replace(d, pawn=0),
                    "illegal.discard-pawn"))
    # the rows
    rows = state.rows[p]
    for k in sorted(set(hand)):
        colour = codec.colour_of[k]
        numbers = [codec.value_of[c] for c in rows[colour] if codec.value_of[c] is not None]
        draw = next((m.draw for m in legal if m.draw is not None), None)
        value = codec.value_of[k]
        wrong = Move(PLAY, k, draw, None, (), codec)  # the card is checked before the pawns
        if value is None and numbers and pack.wagers_when == "before-numbers":
            out.append(("a wager after numbers", wrong, "illegal.wager"))
        elif value is not None and numbers and _refused(pack.ordering, numbers, value):
            out.append(("a number out of the row's order", wrong,
                        _order_key(pack.ordering, numbers)))
        elif value is not None and not numbers and pack.row_start == "lowest-in-hand" and any(
                codec.value_of[c] is not None and codec.value_of[c] < value
                and codec.colour_of[c] == colour for c in hand):
            out.append(("a row started above the lowest in hand", wrong, "illegal.lowest"))
    if pack.board is not None:
        out += _board_tampering(state, legal, rng)
    return out


def _refused(ordering: str, numbers: list[int], value: int) -> bool:
    last = numbers[-1]
    if ordering == "strict":
        return value <= last
    if ordering == "non-decreasing":
        return value < last
    direction = _direction(numbers)
    return direction > 0 and value < last or direction < 0 and value > last


def _direction(numbers: list[int]) -> int:
    steps = [b - a for a, b in zip(numbers, numbers[1:]) if b != a]
    return 0 if not steps else (1 if steps[0] > 0 else -1)


def _order_key(ordering: str, numbers: list[int]) -> str:
    if ordering in ORDER_KEY:
        return ORDER_KEY[ordering]
    return "illegal.order.either-direction." + ("up" if _direction(numbers) > 0 else "down")


def _board_tampering(state: GameState, legal: list[Move],
                     rng: random.Random) -> list[tuple[str, Move, str]]:
    pack = state.pack
    board = state.board
    p = state.to_move
    leaders = pack.board.leaders
    out: list[tuple[str, Move, str]] = []
    plays = [m for m in legal if m.action == PLAY]
    if all(track >= 0 for track in board.tracks[p]):
        draw = next((m.draw for m in legal if m.draw is not None), DECK)
        for k in sorted(set(state.hands[p])):
            colour = pack.cards.colour_of[k]
            lower = [c for c in state.hands[p] if pack.cards.colour_of[c] == colour
                     and pack.cards.value_of[c] is not None and pack.cards.value_of[k] is not None
                     and pack.cards.value_of[c] < pack.cards.value_of[k]]
            if board.on_track[p][colour] < 0:
                key = "illegal.lowest" if pack.row_start == "lowest-in-hand" and lower \
                    else "illegal.no-free-pawn"
                out.append(("a row started with every pawn on a track",
                            Move(PLAY, k, draw, None, (), pack.cards), key))
    sends = [m for m in plays if m.pawn is not None]
    if sends:
        m = rng.choice(sends)
        out.append(("the pawn of a row start left out", dataclasses.replace(m, pawn=None),
                    "illegal.pawn-missing"))
        out.append(("a pawn number past the pawns", dataclasses.replace(m, pawn=99),
                    "illegal.pawn-form"))
        placed = [q for q in range(pack.board.pawns) if board.tracks[p][q] >= 0]
        if placed:
            out.append(("a pawn already on a track sent",
                        dataclasses.replace(m, pawn=rng.choice(placed)), "illegal.pawn-placed"))
        free = [q for q in range(pack.board.pawns) if board.tracks[p][q] < 0]
        first = {q < leaders: q for q in reversed(free)}  # the first free pawn of each kind
        alike = [q for q in free if q != first[q < leaders]]
        if alike:
            out.append(("a free pawn sent before the first one of its kind",
                        dataclasses.replace(m, pawn=rng.choice(alike)), "illegal.pawn-alike"))
    goes_on = [m for m in plays if m.pawn is None]
    if goes_on:
        m = rng.choice(goes_on)
        out.append(("a pawn sent by a card that continues its row",
                    dataclasses.replace(m, pawn=0), "illegal.pawn-extra"))
    drawn = [m for m in plays if m.draw is not None]
    if drawn:
        m = rng.choice(drawn)
        extra = rng.choice([None, rng.randrange(len(pack.colours))])
        out.append(("a step after the turn's last advance",
                    dataclasses.replace(m, steps=tuple(m.steps) + (extra,)),
                    "illegal.step-extra"))
    stepped = [m for m in plays if m.steps]
    if stepped:
        m = rng.choice(stepped)
        out.append(("the last advance decision left out",
                    dataclasses.replace(m, steps=tuple(m.steps)[:-1]), "illegal.step-missing"))
        out.append(("a step that is no track", dataclasses.replace(m, steps=("b",)),
                    "illegal.step-form"))
        sent = pack.cards.colour_of[m.card] if m.pawn is not None else -1
        pawnless = [c for c in range(len(pack.colours))
                    if board.on_track[p][c] < 0 and c != sent]
        if pawnless:
            out.append(("an advance of a track without a pawn",
                        dataclasses.replace(m, steps=(rng.choice(pawnless),)),
                        "illegal.step-no-pawn"))
        last = state.tables.board.last
        finished = [c for c in range(len(pack.colours)) if board.on_track[p][c] >= 0
                    and board.spaces[p][board.on_track[p][c]] >= last]
        if finished:
            out.append(("an advance of a pawn on its track's last space",
                        dataclasses.replace(m, steps=(rng.choice(finished),)),
                        "illegal.step-finished"))
    crossings = [m for m in plays if m.draw is None] if state.deck else []
    if crossings:  # the round ends at this move's bridge crossing: no draw, no step after it
        m = rng.choice(crossings)
        out.append(("a draw after the round's last bridge crossing",
                    dataclasses.replace(m, draw=DECK), "illegal.crossing-draw"))
        out.append(("a step after the round's last bridge crossing",
                    dataclasses.replace(m, steps=tuple(m.steps) + (None,)),
                    "illegal.step-after-end"))
    if plays:
        out.append(("steps that are no sequence", dataclasses.replace(plays[0], steps=5),
                    "illegal.steps-form"))
    return out


def tampered_one(state: GameState, rng: random.Random) -> Optional[tuple[str, Move, str]]:
    """One tampering of ``state`` chosen by ``rng`` (None when none applies)."""
    found = tampered(state, rng)
    return rng.choice(found) if found else None
