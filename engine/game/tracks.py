"""The board game's board as data: its compiled tables (:class:`BoardTables`, built once
per pack into :attr:`.tables.Tables.board`) and the board of a round (:class:`Board`),
with the tiles' layout. :mod:`.board` plays the board game's turns on them; this module is
below both it and :mod:`.tables`, so that a pack's tables are built without the turns.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence

from .options import ARTEFACT, POINTS, STEP  # noqa: F401 (the effects, importable from here)
from .options import TILE_KINDS, tile_has_value
from .rules import RulePack
from .state import Seat, SetupError, TilePlace

if TYPE_CHECKING:
    from .state import GameState

Pawn = int
"""A pawn's index among a player's pawns; ``0 .. leaders-1`` are the leaders."""
Track = int
"""A track's index: the colour's index in the pack."""

#: tile kind -> its effect (:data:`.options.TILE_KINDS` says what each kind does; the
#: effects ARTEFACT, POINTS and STEP are still importable from here)
EFFECTS = {name: kind.effect for name, kind in TILE_KINDS.items()}
CENTRE = -1
"""``Board.tracks`` of a pawn still in the centre (its space is 0)."""
PawnPlace = tuple[int, int, bool]
"""A pawn as the scoring sees it: ``(track, space, leader)``; track -1 in the centre."""


@dataclass(frozen=True)
class BoardTables:
    """A board pack's tracks, pawns and tiles as flat values (built once per pack)."""

    pawns: int
    leader: tuple[bool, ...]           # leader[pawn]
    last: int                          # the last space of a track
    bridge_after: int                  # the crossing moves a pawn from here to the next space
    crossings_to_end: int              # crossings that end the round (0: never)
    tracks: int
    tile_spaces: tuple[int, ...]
    kinds: tuple[tuple[str, int], ...]  # each distinct tile: (kind, value)
    effect: tuple[int, ...]            # effect[kind index]: ARTEFACT, POINTS or STEP
    value: tuple[int, ...]             # value[kind index]: a points tile's tokens
    bag: tuple[int, ...]               # every tile of the pack, as kind indices

    # what the card game's steps (:mod:`.steps`) ask of a board pack, through its tables

    def place_tiles(self, rng: random.Random) -> tuple[TilePlace, ...]:
        """:func:`place_tiles` of these tables: a round's layout from ``rng``."""
        return place_tiles(self, rng)

    def check_tiles(self, pack: RulePack, tiles: tuple[TilePlace, ...]) -> None:
        """:func:`check_tiles` of these tables (raises :class:`SetupError`)."""
        check_tiles(pack, self, tiles)

    def new_board(self, state: GameState, tiles: tuple[TilePlace, ...]) -> "Board":
        """:func:`new_board`: the board of the round ``state`` starts, ``tiles`` laid out."""
        return new_board(state, tiles)


def compile_board(pack: RulePack) -> BoardTables:
    """The flat tables of ``pack.board`` (:func:`.tables.tables_of` keeps them)."""
    spec = pack.board
    assert spec is not None
    kinds: list[tuple[str, int]] = []
    bag: list[int] = []
    for tile in spec.tiles:
        key = (tile.kind, tile.value)
        if key not in kinds:
            kinds.append(key)
        bag.extend([kinds.index(key)] * tile.count)
    return BoardTables(
        pawns=spec.pawns, leader=tuple(i < spec.leaders for i in range(spec.pawns)),
        last=spec.spaces, bridge_after=spec.bridge_after,
        crossings_to_end=pack.bridge_crossings, tracks=len(pack.colours),
        tile_spaces=spec.tile_spaces, kinds=tuple(kinds),
        effect=tuple(EFFECTS[k] for k, _ in kinds), value=tuple(v for _, v in kinds),
        bag=tuple(bag))


class Board:
    """The board of the round in progress: where each pawn stands, the tiles left,
    the crossings, each seat's tokens and artefacts of this round, and the board
    decisions made so far this turn. The engine's own, mutable; read it, never
    change it (``observation(...).board`` is the public copy)."""

    __slots__ = ("spaces", "tracks", "on_track", "tiles", "crossings", "tokens", "artefacts",
                 "turn_pawn", "turn_steps")

    spaces: list[list[int]]            # spaces[seat][pawn]: 0 in the centre
    tracks: list[list[Track]]          # tracks[seat][pawn]: CENTRE or the track
    on_track: list[list[Pawn]]         # on_track[seat][track]: the pawn there, or -1
    tiles: list[list[int]]             # tiles[track][space]: a kind index, or -1
    crossings: int                     # bridge crossings this round, all players
    tokens: list[int]                  # victory-point tokens taken this round, per seat
    artefacts: list[int]               # artefacts taken this round, per seat
    turn_pawn: Optional[Pawn]          # the pawn this turn sent onto a track
    turn_steps: list[Optional[Track]]  # this turn's ADVANCE decisions: a track, or NO_STEP

    def copy(self) -> "Board":
        """An independent copy."""
        new = Board.__new__(Board)
        new.spaces = [s[:] for s in self.spaces]
        new.tracks = [t[:] for t in self.tracks]
        new.on_track = [o[:] for o in self.on_track]
        new.tiles = [t[:] for t in self.tiles]
        new.crossings = self.crossings
        new.tokens = self.tokens[:]
        new.artefacts = self.artefacts[:]
        new.turn_pawn = self.turn_pawn
        new.turn_steps = self.turn_steps[:]
        return new

    def snapshot(self) -> tuple:
        """Every field, as comparable values."""
        return (tuple(map(tuple, self.spaces)), tuple(map(tuple, self.tracks)),
                tuple(map(tuple, self.on_track)), tuple(map(tuple, self.tiles)), self.crossings,
                tuple(self.tokens), tuple(self.artefacts), self.turn_pawn,
                tuple(self.turn_steps))

    def pawn_places(self, seat: Seat, leader: tuple[bool, ...]) -> tuple[PawnPlace, ...]:
        """``(track, space, leader)`` of each of ``seat``'s pawns (track -1: in the centre)."""
        return tuple(zip(self.tracks[seat], self.spaces[seat], leader))

    def round_inputs(self, seat: Seat,
                     leader: tuple[bool, ...]) -> tuple[tuple[PawnPlace, ...], int, int]:
        """``(pawns, tokens, artefacts)`` of ``seat`` this round, as ``scoring.round`` takes
        them (the card game's steps score a board pack's round with them)."""
        return self.pawn_places(seat, leader), self.tokens[seat], self.artefacts[seat]

    def placed_tiles(self, bt: BoardTables) -> tuple[TilePlace, ...]:
        """The tiles still on the board, ``(track, space, kind, value)``, by track and space."""
        return tuple((track, space, *bt.kinds[k]) for track, row in enumerate(self.tiles)
                     for space, k in enumerate(row) if k >= 0)


# --------------------------------------------------------------------------- setup

def place_tiles(bt: BoardTables, rng: random.Random) -> tuple[TilePlace, ...]:
    """The pack's tiles laid at random, at most one per tile space of each track."""
    slots = [(track, space) for track in range(bt.tracks) for space in bt.tile_spaces]
    chosen = rng.sample(slots, len(bt.bag))
    return tuple(sorted((track, space, *bt.kinds[k])
                        for (track, space), k in zip(chosen, bt.bag)))


def check_tiles(pack: RulePack, bt: BoardTables, tiles: tuple[TilePlace, ...]) -> None:
    """Raise :class:`SetupError` unless ``tiles`` is a layout of exactly the pack's tiles."""
    names = [c.name for c in pack.colours]
    seen: set[tuple[int, int]] = set()
    left = list(bt.bag)
    for place in tiles:
        if len(place) != 4:
            raise SetupError(f"tile {place!r}: a tile is (track, space, kind, value)")
        track, space, kind, value = place
        if not (type(track) is int and 0 <= track < bt.tracks):  # noqa: E721
            raise SetupError(f"tile {place!r}: track {track!r} is not one of 0-{bt.tracks - 1}")
        if space not in bt.tile_spaces:
            raise SetupError(f"tile on the {names[track]} track: space {space!r} holds no tile "
                             f"(tile spaces: {', '.join(map(str, bt.tile_spaces))})")
        if (track, space) in seen:
            raise SetupError(f"two tiles on space {space} of the {names[track]} track")
        seen.add((track, space))
        key = (kind, value)
        if key not in bt.kinds or bt.kinds.index(key) not in left:
            raise SetupError(f"tile on space {space} of the {names[track]} track: "
                             f"{_tile_name(kind, value)} is not one of the pack's tiles left")
        left.remove(bt.kinds.index(key))
    if left:
        missing = ", ".join(sorted({_tile_name(*bt.kinds[k]) for k in left}))
        raise SetupError(f"the layout lacks {len(left)} of the pack's tiles ({missing})")


def _tile_name(kind: object, value: object) -> str:
    return f"{kind} {value}" if tile_has_value(kind) else str(kind)


def tile_dict(place: TilePlace, keys: Sequence[str]) -> dict[str, Any]:
    """A tile as records and observations write it: track key, space, kind, value (points)."""
    track, space, kind, value = place
    out: dict[str, Any] = {"track": keys[track], "space": space, "kind": kind}
    if tile_has_value(kind):
        out["value"] = value
    return out


def new_board(state: GameState, tiles: tuple[TilePlace, ...]) -> Board:
    """A round's board: every pawn in the centre, ``tiles`` laid out."""
    bt = state.tables.board
    b = Board.__new__(Board)
    n = state.n
    b.spaces = [[0] * bt.pawns for _ in range(n)]
    b.tracks = [[CENTRE] * bt.pawns for _ in range(n)]
    b.on_track = [[-1] * bt.tracks for _ in range(n)]
    b.tiles = [[-1] * (bt.last + 1) for _ in range(bt.tracks)]
    for track, space, kind, value in tiles:
        b.tiles[track][space] = bt.kinds.index((kind, value))
    b.crossings = 0
    b.tokens = [0] * n
    b.artefacts = [0] * n
    b.turn_pawn = None
    b.turn_steps = []
    return b
