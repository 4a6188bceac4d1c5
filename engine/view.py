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
from .moves import Action
from .state import PHASE_NAMES, GameState, Seat, TilePlace


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
        from .board import tile_dict

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


def observation(state: GameState, seat: Seat) -> Observation:
    """What ``seat`` may see of ``state``."""
    from .turn import totals

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
    from .board import held

    b, bt = state.board, state.tables.board
    return BoardView(
        spaces=bt.last, bridge_after=bt.bridge_after, crossings=b.crossings,
        crossings_to_end=bt.crossings_to_end,
        pawns=tuple(b.pawn_places(p, bt.leader) for p in range(state.n)),
        tiles=b.placed_tiles(bt), tokens=held(state, "tokens"),
        artefacts=held(state, "artefacts"), round_tokens=tuple(b.tokens),
        round_artefacts=tuple(b.artefacts), turn_pawn=b.turn_pawn,
        turn_steps=tuple(b.turn_steps))
