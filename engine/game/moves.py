"""Moves (whole turns), their text form, and the per-pack action space.

A :class:`Move` bundles one whole turn: the card action (play the card on your
own row of its colour, or discard it on that colour's pile), the board game's
sub-decisions (``pawn``, ``steps``; issue 5), then where to draw from.

Text form, round-tripping through :meth:`Move.parse` and ``str(move)``::

    p r5 deck        play r5, draw from the draw pile
    d r5 g           discard r5, draw the top of the green discard pile
    p r5             play r5 without drawing (the last play after the pile ran out)
    p g3 pawn=0 deck board game: start the green row sending pawn 0 (a leader)
    p g4 step=b deck board game: a step tile then advances the pawn on the blue track
    p g4 step=none deck  board game: the advance the step tile offers is declined

A step tile and a finished track *offer* an advance (001: "permet de faire
avancer", "vous pouvez faire avancer"): each advance due is one ``step=`` word,
a track's key to take it or ``none`` (also ``-``) to decline it; in
``Move.steps`` a declined advance is :data:`NO_STEP` (None).

An *action* is one decision of a turn, a stable integer in a fixed per-pack
space laid out in ranges (see :class:`ActionSpace`): play card k, discard card k,
draw (deck or pile c) and, for board packs, choose pawn p and advance the pawn
on track c, or decline the advance. A duel turn is two actions (card, then draw)
or one (the last play).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, Optional, Sequence

from .cards import Card, CardCodec
from ..errors import InvalidMoveError
from .rules import RulePack, cached_on
from ..safeio import shown_value

#: a pawn number in the notation: ASCII digits only (str.isdigit also takes '²' and '٣')
_PAWN = re.compile(r"[0-9]{1,3}")

PLAY: Literal["play"] = "play"
DISCARD: Literal["discard"] = "discard"
Action = Literal["play", "discard"]

DECK = -1
"""``Move.draw`` for the hidden draw pile; a colour index means that discard pile."""

DrawSource = Optional[int]
"""``DECK``, a colour index (that discard pile's top) or None (no draw)."""

_ACTION_WORDS = {"p": PLAY, "play": PLAY, "d": DISCARD, "discard": DISCARD}

NO_STEP = None
"""A ``Move.steps`` entry: the advance due (a step tile, a finished track) declined."""

#: the ``step=`` words that decline an advance; ``none`` is the one Move.text writes
NO_STEP_WORDS = ("none", "-")


@dataclass(frozen=True, slots=True)
class Move:
    """One whole turn. ``codec`` only serves ``str()`` and is ignored by ``==``."""

    action: Action
    card: Card
    draw: DrawSource = DECK
    pawn: Optional[int] = None
    steps: tuple[Optional[int], ...] = ()
    codec: Optional[CardCodec] = field(default=None, compare=False, repr=False)

    @classmethod
    def parse(cls, text: str, pack: RulePack) -> "Move":
        """Read a move in the text form, e.g. ``"p r5 deck"`` or ``"d r5 g"``.

        Raises :class:`InvalidMoveError` saying what is wrong; legality against a
        state is checked by the engine (:func:`lostcities.engine.apply`).
        """
        codec = pack.cards
        words = text.split()
        if len(words) < 2:
            raise InvalidMoveError(
                f"{shown_value(text)}: write p (play) or d (discard), a card, then where to draw "
                f"(deck or a colour key), e.g. 'p r5 deck' or 'd r5 g'")
        action = _ACTION_WORDS.get(words[0].lower())
        if action is None:
            raise InvalidMoveError(f"{shown_value(text)}: unknown action {shown_value(words[0])}; "
                                   f"write p (play) or d (discard)")
        card = codec.parse(words[1])
        draw: DrawSource = None
        pawn: Optional[int] = None
        steps: list[Optional[int]] = []
        rest = words[2:]
        for i, word in enumerate(rest):
            low = word.lower()
            if low.startswith("pawn="):
                if not _PAWN.fullmatch(low[5:]):
                    raise InvalidMoveError(f"{shown_value(text)}: {shown_value(word)}: a pawn is "
                                           f"a number, e.g. pawn=0")
                pawn = int(low[5:])
            elif low.startswith("step="):
                steps.append(NO_STEP if low[5:] in NO_STEP_WORDS
                             else _colour(low[5:], codec, text, "step"))
            elif i == len(rest) - 1:
                draw = DECK if low == "deck" else _colour(low, codec, text, "draw")
            else:
                raise InvalidMoveError(f"{shown_value(text)}: unexpected {shown_value(word)}; the "
                                       f"draw (deck or a colour key) comes last")
        return cls(action, card, draw, pawn, tuple(steps), codec)

    def text(self, codec: CardCodec | None = None) -> str:
        """The text form; ``codec`` is needed when the move was built without one."""
        codec = codec or self.codec
        if codec is None:
            raise ValueError("Move.text needs the pack's card codec (Move built without one)")
        words = ["p" if self.action == PLAY else "d", codec.format(self.card)]
        if self.pawn is not None:
            words.append(f"pawn={self.pawn}")
        words.extend(f"step={step_text(c, codec)}" for c in self.steps)
        if self.draw is not None:
            words.append(draw_text(self.draw, codec))
        return " ".join(words)

    def __str__(self) -> str:
        if self.codec is None:
            return repr(self)
        return self.text()


def draw_text(draw: DrawSource, codec: CardCodec) -> str:
    """``deck``, a colour key, or ``-`` for no draw."""
    if draw is None:
        return "-"
    return "deck" if draw == DECK else codec.keys[draw]


def step_text(track: Optional[int], codec: CardCodec) -> str:
    """A ``step=`` word's value: the track's colour key, or ``none`` for a declined advance."""
    return NO_STEP_WORDS[0] if track is NO_STEP else codec.keys[track]


def _colour(word: str, codec: CardCodec, text: str, what: str) -> int:
    try:
        return codec.keys.index(word)
    except ValueError:
        raise InvalidMoveError(
            f"{shown_value(text)}: {what} {shown_value(word)} is neither 'deck' nor a colour key "
            f"({', '.join(codec.keys)})" if what == "draw" else
            f"{shown_value(text)}: {what} {shown_value(word)} is neither a colour key "
            f"({', '.join(codec.keys)}) nor none (declining the advance)") from None


class ActionSpace:
    """The fixed action space of one pack: one id per decision of a turn.

    Ranges, in order: ``play`` (one id per card kind), ``discard`` (same),
    ``draw`` (deck, then one per colour's pile), and for board packs ``pawn``
    (one per pawn of a player), ``advance`` (one per track/colour) and
    ``decline`` (one id: the advance due is not taken). ``decline`` comes last,
    so the ids of the other decisions are those of the packs before it.
    """

    def __init__(self, pack: RulePack):
        codec = pack.cards
        self.codec = codec
        k, c = codec.n_kinds, codec.n_colours
        board = pack.board is not None
        pawns = pack.board.pawns if pack.board is not None else 0
        advance = c if board else 0
        sizes = [k, k, 1 + c, pawns, advance, 1 if board else 0]
        names = ["play", "discard", "draw", "pawn", "advance", "decline"]
        self.ranges: dict[str, range] = {}
        start = 0
        for n, z in zip(names, sizes):
            self.ranges[n] = range(start, start + z)
            start += z
        self.num_actions: int = start
        self.draw_deck: int = 2 * k

    def card_action(self, action: Action, card: Card) -> int:
        """The id of playing or discarding ``card``."""
        return card if action == PLAY else self.codec.n_kinds + card

    def draw_action(self, draw: int) -> int:
        """The id of drawing from ``draw`` (``DECK`` or a colour's pile)."""
        return self.draw_deck if draw == DECK else self.draw_deck + 1 + draw

    def advance_action(self, track: Optional[int]) -> int:
        """The id of advancing the pawn on ``track``, or of declining (``NO_STEP``).

        Raises :class:`InvalidMoveError` for a track the pack's board lacks (or no board)."""
        if track is NO_STEP:
            r, aid = self.ranges["decline"], self.ranges["decline"].start
        else:
            r = self.ranges["advance"]
            aid = r.start + track if type(track) is int else -1  # noqa: E721
        if aid not in r:
            raise InvalidMoveError(f"step {track!r} is not a track of this pack's board")
        return aid

    def decode(self, action_id: int) -> tuple[str, int]:
        """``(range name, argument)``: ``("play", card)``, ``("draw", DECK or colour)``...,
        ``("decline", 0)``."""
        for name, r in self.ranges.items():
            if action_id in r:
                arg = action_id - r.start
                return name, (arg - 1 if name == "draw" else arg)
        raise InvalidMoveError(f"action {action_id} is outside 0-{self.num_actions - 1}")

    def name(self, action_id: int) -> str:
        """A readable name: ``play r5``, ``discard rx``, ``draw deck``, ``pawn 0``, ``advance b``,
        ``advance none`` (the decline)."""
        kind, arg = self.decode(action_id)
        if kind in ("play", "discard"):
            return f"{kind} {self.codec.format(arg)}"
        if kind == "draw":
            return f"draw {draw_text(arg, self.codec)}"
        if kind == "advance":
            return f"advance {self.codec.keys[arg]}"
        if kind == "decline":
            return f"advance {NO_STEP_WORDS[0]}"
        return f"pawn {arg}"

    def move_to_actions(self, move: Move) -> tuple[int, ...]:
        """The decisions of ``move`` in turn order: card, [pawn], [steps...], [draw]."""
        ids = [self.card_action(move.action, move.card)]
        if move.pawn is not None:
            ids.append(self.ranges["pawn"].start + move.pawn)
        ids.extend(self.advance_action(c) for c in move.steps)
        if move.draw is not None:
            ids.append(self.draw_action(move.draw))
        return tuple(ids)

    def actions_to_move(self, action_ids: Sequence[int]) -> Move:
        """The inverse of :meth:`move_to_actions`; raises InvalidMoveError on a bad sequence."""
        if not action_ids:
            raise InvalidMoveError("an empty action sequence is not a move")
        kind, card = self.decode(action_ids[0])
        if kind not in (PLAY, DISCARD):
            raise InvalidMoveError(
                f"a move starts with a play or discard action, not {self.name(action_ids[0])!r}")
        pawn: Optional[int] = None
        steps: list[Optional[int]] = []
        draw: DrawSource = None
        for i, aid in enumerate(action_ids[1:], 1):
            sub, arg = self.decode(aid)
            if sub == "draw" and i == len(action_ids) - 1:
                draw = arg
            elif sub == "pawn" and pawn is None and not steps and draw is None:
                pawn = arg
            elif sub == "advance":
                steps.append(arg)
            elif sub == "decline":
                steps.append(NO_STEP)
            else:
                raise InvalidMoveError(
                    f"action {self.name(aid)!r} cannot come at position {i + 1} of a move")
        return Move(kind, card, draw, pawn, tuple(steps), self.codec)  # type: ignore[arg-type]


def action_space(pack: RulePack) -> ActionSpace:
    """The pack's action space, built once and kept on the pack."""
    return cached_on(pack, "_action_space", ActionSpace)


def num_actions(pack: RulePack) -> int:
    """The size of the pack's action space."""
    return action_space(pack).num_actions


def move_to_actions(pack: RulePack, move: Move) -> tuple[int, ...]:
    """The action ids of ``move``'s decisions, in turn order."""
    return action_space(pack).move_to_actions(move)


def actions_to_move(pack: RulePack, action_ids: Sequence[int]) -> Move:
    """The move made of these decisions (inverse of :func:`move_to_actions`)."""
    return action_space(pack).actions_to_move(action_ids)
