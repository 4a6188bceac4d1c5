"""What one player may see: :func:`observation`.

Own hand, every row, each discard pile's top and size, the draw pile's size,
the scores and, in the board game, the whole board (:class:`BoardView`); never
another player's hand, the draw pile's order, the removed cards nor the cards
under a discard pile's top.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from .cards import Card
from ..errors import InputError, LostCitiesError
from .board import held
from .moves import Action
from .options import tile_has_value
from .state import PHASE_NAMES, GameState, Seat, TilePlace
from .steps import totals
from .tracks import tile_dict


@dataclass(frozen=True)
class BoardView:
    """The board game's board, all of it public.

    ``pawns[seat][pawn]`` is ``(track, space, leader)``: track -1 and space 0 for
    a pawn still in the centre; pawns ``0 .. leaders-1`` are the leaders.
    ``tiles`` are the event tiles still on the board, ``(track, space, kind,
    value)`` (artefacts taken are gone; points and step tiles stay).
    """

    spaces: int                         # the last space of every track
    bridge_after: int                   # a pawn crosses moving from here to the next space
    crossings: int                      # bridge crossings this round, all players
    crossings_to_end: int               # the crossing that ends the round (0: never)
    pawns: tuple[tuple[tuple[int, int, bool], ...], ...]
    tiles: tuple[TilePlace, ...]
    tokens: tuple[int, ...]             # victory-point tokens held, per seat (all rounds)
    artefacts: tuple[int, ...]          # artefacts held, per seat (all rounds)
    round_tokens: tuple[int, ...]       # taken this round (what the round formula adds)
    round_artefacts: tuple[int, ...]
    turn_pawn: Optional[int]            # the pawn this turn sent onto a track, if any
    turn_steps: tuple[Optional[int], ...]  # this turn's advances: tracks, None when declined

    def to_dict(self, keys: Sequence[str]) -> dict[str, Any]:
        """JSON-ready form; tracks as colour keys (``keys`` = ``pack.cards.keys``), a declined
        advance in ``turn_steps`` as None."""
        return {
            "spaces": self.spaces, "bridge_after": self.bridge_after,
            "crossings": self.crossings, "crossings_to_end": self.crossings_to_end,
            "pawns": [[{"track": None if track < 0 else keys[track], "space": space,
                        "leader": leader} for track, space, leader in pawns]
                      for pawns in self.pawns],
            "tiles": [tile_dict(t, keys) for t in self.tiles],
            "tokens": list(self.tokens), "artefacts": list(self.artefacts),
            "round_tokens": list(self.round_tokens),
            "round_artefacts": list(self.round_artefacts),
            "turn_pawn": self.turn_pawn,
            "turn_steps": [None if c is None else keys[c] for c in self.turn_steps],
        }

    @classmethod
    def from_dict(cls, data: Any, keys: Sequence[str], players: int,
                  where: str = "board") -> "BoardView":
        """The inverse of :meth:`to_dict`, for a board that came over the network or from a
        file: every field checked for its type, size and range against the pack's colour
        ``keys`` and the number of ``players``; :class:`~.errors.InputError` naming
        ``where`` and the field otherwise."""
        reader = _Reader(where)
        d = reader.mapping(data, "")
        spaces = reader.count(d, "spaces")

        def track(value: Any, at: str) -> int:
            return reader.key_index(value, keys, at)

        def pawn(value: Any, at: str) -> tuple[int, int, bool]:
            p = reader.mapping(value, at)
            place = -1 if p.get("track") is None else track(p["track"], f"{at}.track")
            return (place, reader.count(p, "space", at, spaces),
                    reader.flag(p, "leader", at))

        pawns = reader.items(d, "pawns", players, exact=True)
        tiles = []
        for i, tile in enumerate(reader.items(d, "tiles", len(keys) * (spaces + 1))):
            t = reader.mapping(tile, f"tiles[{i}]")
            kind = reader.text(t, "kind", f"tiles[{i}]")
            value = reader.count(t, "value", f"tiles[{i}]") if tile_has_value(kind) else 0
            tiles.append((track(t.get("track"), f"tiles[{i}].track"),
                          reader.count(t, "space", f"tiles[{i}]", spaces), kind, value))
        turn_pawn = d.get("turn_pawn")
        return cls(
            spaces=spaces, bridge_after=reader.count(d, "bridge_after", "", spaces),
            crossings=reader.count(d, "crossings"),
            crossings_to_end=reader.count(d, "crossings_to_end"),
            pawns=tuple(tuple(pawn(p, f"pawns[{s}][{i}]")
                              for i, p in enumerate(reader.items({"p": seat}, "p",
                                                                 _MANY, at=f"pawns[{s}]")))
                        for s, seat in enumerate(pawns)),
            tiles=tuple(tiles),
            tokens=reader.numbers(d, "tokens", players),
            artefacts=reader.numbers(d, "artefacts", players),
            round_tokens=reader.numbers(d, "round_tokens", players),
            round_artefacts=reader.numbers(d, "round_artefacts", players),
            turn_pawn=None if turn_pawn is None else reader.count(d, "turn_pawn"),
            turn_steps=tuple(None if c is None else track(c, f"turn_steps[{i}]")
                             for i, c in enumerate(reader.items(d, "turn_steps", _MANY))))


@dataclass(frozen=True)
class Observation:
    """A player's view of the match (public information plus their own hand)."""

    seat: Seat
    players: tuple[str, ...]
    round: int                          # 1-based
    rounds: int
    turn: int                           # turns played this round
    to_move: Seat
    phase: str                          # "card", "pawn", "advance", "draw" or "over"
    hand: tuple[Card, ...]              # sorted
    hand_sizes: tuple[int, ...]
    rows: tuple[tuple[tuple[Card, ...], ...], ...]   # rows[seat][colour], play order
    pile_tops: tuple[Optional[Card], ...]
    pile_sizes: tuple[int, ...]
    draw_pile: int                      # cards left in the draw pile
    last_play: bool                     # the draw pile ran out: this turn has no draw
    pending: Optional[tuple[Action, Card]]  # the card decision of the turn under way
    round_scores: tuple[tuple[int, ...], ...]  # finished rounds
    totals: tuple[int, ...]
    board: Optional[BoardView] = None   # the board game's board; None in a duel

    def cards_seen(self) -> list[Card]:
        """Every card this observation shows (hand, rows, pile tops, pending card)."""
        seen = list(self.hand)
        for rows in self.rows:
            for row in rows:
                seen.extend(row)
        seen.extend(c for c in self.pile_tops if c is not None)
        return seen

    def to_dict(self, codec: Any) -> dict[str, Any]:
        """JSON-ready form with cards in notation (``codec`` = ``pack.cards``)."""
        f = codec.format
        return {
            "seat": self.seat, "players": list(self.players), "round": self.round,
            "rounds": self.rounds, "turn": self.turn, "to_move": self.to_move,
            "phase": self.phase, "hand": [f(c) for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "rows": [[[f(c) for c in row] for row in rows] for rows in self.rows],
            "pile_tops": [None if c is None else f(c) for c in self.pile_tops],
            "pile_sizes": list(self.pile_sizes), "draw_pile": self.draw_pile,
            "last_play": self.last_play,
            "pending": None if self.pending is None else [self.pending[0], f(self.pending[1])],
            "round_scores": [list(r) for r in self.round_scores], "totals": list(self.totals),
            **({} if self.board is None else {"board": self.board.to_dict(codec.keys)}),
        }

    @classmethod
    def from_dict(cls, data: Any, pack: Any, where: str = "view") -> "Observation":
        """The inverse of :meth:`to_dict` (``pack``: the :class:`~.rules.RulePack` the view
        is of), for a view that came over the network (``lc play --connect``) or from a
        file. Everything is checked before use: the fields' types, the cards in the pack's
        notation, one row per colour and one entry per player (at most the pack's
        ``max_players``), numbers within bounds; :class:`~.errors.InputError` naming
        ``where`` and the field otherwise. A spectator's view (``seat`` and ``hand``
        null) reads with ``seat`` None and an empty hand."""
        codec = pack.cards
        reader = _Reader(where)
        d = reader.mapping(data, "")
        players = tuple(reader.plain_text(p, f"players[{i}]")
                        for i, p in enumerate(reader.items(d, "players", pack.max_players)))
        n = len(players)
        if n == 0:
            raise reader.bad("players", "at least one player")
        colours = codec.n_colours

        def card(value: Any, at: str) -> Card:
            if not isinstance(value, str) or len(value) > 8:
                raise reader.bad(at, "a card in the notation, e.g. r5")
            try:
                return codec.parse(value)
            except LostCitiesError as err:
                raise reader.bad(at, f"a card of this pack ({err})") from None

        def cards(values: Any, at: str) -> tuple[Card, ...]:
            return tuple(card(c, f"{at}[{i}]") for i, c in enumerate(
                reader.items({"c": values}, "c", len(codec.colour_of), at=at)))

        seat = d.get("seat")
        if seat is not None:
            seat = reader.count(d, "seat", "", n - 1)
        hand = () if d.get("hand") is None else cards(d["hand"], "hand")
        rows = tuple(tuple(cards(row, f"rows[{s}][{c}]") for c, row in enumerate(
            reader.items({"r": seat_rows}, "r", colours, exact=True, at=f"rows[{s}]")))
            for s, seat_rows in enumerate(reader.items(d, "rows", n, exact=True)))
        tops = tuple(None if top is None else card(top, f"pile_tops[{c}]")
                     for c, top in enumerate(reader.items(d, "pile_tops", colours, exact=True)))
        phase = d.get("phase")
        if phase not in PHASE_NAMES:
            raise reader.bad("phase", f"one of {', '.join(sorted(set(PHASE_NAMES)))}")
        pending = d.get("pending")
        if pending is not None:
            if not (isinstance(pending, list) and len(pending) == 2
                    and pending[0] in ("play", "discard")):
                raise reader.bad("pending", "null or [action, card]")
            pending = (pending[0], card(pending[1], "pending[1]"))
        rounds = reader.count(d, "rounds")
        scores = tuple(reader.numbers({"s": r}, "s", n, signed=True, at=f"round_scores[{i}]")
                       for i, r in enumerate(reader.items(d, "round_scores", _MANY)))
        board = d.get("board")
        if board is not None:
            if pack.board is None:
                raise reader.bad("board", "null (the pack has no board)")
            board = BoardView.from_dict(board, codec.keys, n, f"{where}: board")
            shape = (pack.board.spaces, pack.board.bridge_after)
            if (board.spaces, board.bridge_after) != shape:
                raise reader.bad("board", "the pack's tracks: %d spaces, the bridge after "
                                 "space %d" % shape)
        return cls(
            seat=seat, players=players, round=reader.count(d, "round"), rounds=rounds,
            turn=reader.count(d, "turn"), to_move=reader.count(d, "to_move", "", n - 1),
            phase=phase, hand=hand, hand_sizes=reader.numbers(d, "hand_sizes", n),
            rows=rows, pile_tops=tops, pile_sizes=reader.numbers(d, "pile_sizes", colours),
            draw_pile=reader.count(d, "draw_pile"), last_play=reader.flag(d, "last_play"),
            pending=pending, round_scores=scores,
            totals=reader.numbers(d, "totals", n, signed=True), board=board)


def observation(state: GameState, seat: Seat) -> Observation:
    """What ``seat`` may see of ``state``."""
    if not 0 <= seat < state.n:
        raise IndexError(f"seat {seat} is not one of the {state.n} seats")
    return Observation(
        seat=seat,
        players=state.players,
        round=state.round,
        rounds=state.rounds_total,
        turn=state.turn,
        to_move=state.to_move,
        phase=PHASE_NAMES[state.phase],
        hand=tuple(sorted(state.hands[seat])),
        hand_sizes=tuple(len(h) for h in state.hands),
        rows=tuple(tuple(tuple(r) for r in rows) for rows in state.rows),
        pile_tops=tuple(p[-1] if p else None for p in state.piles),
        pile_sizes=tuple(len(p) for p in state.piles),
        draw_pile=len(state.deck),
        last_play=state.last_play,
        pending=state.pending,
        round_scores=tuple(r.scores for r in state.finished),
        totals=totals(state),
        board=None if state.board is None else board_view(state),
    )


def board_view(state: GameState) -> BoardView:
    """The public board of a board pack's ``state``."""
    b, bt = state.board, state.tables.board
    return BoardView(
        spaces=bt.last, bridge_after=bt.bridge_after, crossings=b.crossings,
        crossings_to_end=bt.crossings_to_end,
        pawns=tuple(b.pawn_places(p, bt.leader) for p in range(state.n)),
        tiles=b.placed_tiles(bt), tokens=held(state, "tokens"),
        artefacts=held(state, "artefacts"), round_tokens=tuple(b.tokens),
        round_artefacts=tuple(b.artefacts), turn_pawn=b.turn_pawn,
        turn_steps=tuple(b.turn_steps))


def seen_scores(obs: Observation, pack: Any) -> tuple[int, ...]:
    """What each seat would score for this round if it ended now, from what ``obs`` shows
    (the rows, and in the board game the pawns and this round's tokens and artefacts):
    the same numbers as :func:`~.turn.live_scores` of the state it was taken from, for a
    front end that has only the view (``lc play --connect``)."""
    codec = pack.cards
    out = []
    for seat, rows in enumerate(obs.rows):
        spec = []
        for colour, row in enumerate(rows):
            values = [codec.value_of[k] for k in row if codec.value_of[k] is not None]
            spec.append((colour, values, len(row) - len(values)))
        b = obs.board
        board: tuple[Any, int, int] = ((), 0, 0) if b is None else \
            (b.pawns[seat], b.round_tokens[seat], b.round_artefacts[seat])
        out.append(pack.scoring.round(spec, *board, obs.round).total)
    return tuple(out)


#: the most items a list of a view may hold when nothing else bounds it
_MANY = 10_000
#: the largest number a view may hold (a score, a count)
_BIGGEST = 10 ** 9


class _Reader:
    """Checks the fields of a view read from outside; every problem one :class:`InputError`
    line naming ``where`` and the field."""

    def __init__(self, where: str):
        self.where = where

    def bad(self, at: str, what: str) -> InputError:
        return InputError(f"{self.where}: {at or 'the view'}: expected {what}")

    @staticmethod
    def _at(at: str, name: str) -> str:
        return f"{at}.{name}" if at else name

    def mapping(self, value: Any, at: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.bad(at, "an object")
        return value

    def items(self, d: dict[str, Any], name: str, most: int, *, exact: bool = False,
              at: str = "") -> list[Any]:
        value = d.get(name)
        shown = at or name
        if not isinstance(value, list):
            raise self.bad(shown, "a list")
        if len(value) > most or exact and len(value) != most:
            raise self.bad(shown, f"a list of {'' if exact else 'at most '}{most}")
        return value

    def count(self, d: dict[str, Any], name: str, at: str = "", most: int = _BIGGEST) -> int:
        value = d.get(name)
        if type(value) is not int or not 0 <= value <= most:
            raise self.bad(self._at(at, name), f"a whole number from 0 to {most}")
        return value

    def numbers(self, d: dict[str, Any], name: str, n: int, *, signed: bool = False,
                at: str = "") -> tuple[int, ...]:
        values = self.items(d, name, n, exact=True, at=at)
        low = -_BIGGEST if signed else 0
        for i, v in enumerate(values):
            if type(v) is not int or not low <= v <= _BIGGEST:
                raise self.bad(f"{at or name}[{i}]", f"a whole number from {low} to {_BIGGEST}")
        return tuple(values)

    def flag(self, d: dict[str, Any], name: str, at: str = "") -> bool:
        value = d.get(name)
        if type(value) is not bool:
            raise self.bad(self._at(at, name), "true or false")
        return value

    def text(self, d: dict[str, Any], name: str, at: str = "") -> str:
        return self.plain_text(d.get(name), self._at(at, name))

    def plain_text(self, value: Any, at: str) -> str:
        if not isinstance(value, str) or len(value) > 200:
            raise self.bad(at, "a text of at most 200 characters")
        return value

    def key_index(self, value: Any, keys: Sequence[str], at: str) -> int:
        if not isinstance(value, str) or value not in keys:
            raise self.bad(at, f"a colour key ({', '.join(keys)})")
        return list(keys).index(value)
