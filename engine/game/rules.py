"""The rules of one pack as frozen, typed values.

A :class:`RulePack` is built once from a resolved (``extends`` merged) and
schema-valid pack mapping; the engine reads only this, never YAML. Every rule
variant is a field here, named after the game (see docs/rulepacks.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping, TypeVar

from .cards import CardCodec
from .options import OLD_SPELLINGS, RETAKES, WAGER_TIMES

Ordering = Literal["strict", "non-decreasing", "either-direction"]
RowStart = Literal["any", "lowest-in-hand"]
PileEnd = Literal["immediately", "after-last-play"]
NextStarter = Literal["best-round-score", "best-total", "alternate", "same"]
TieBreak = Literal["artefacts", "tokens"]
TileKind = Literal["artefact", "points", "step"]


@dataclass(frozen=True)
class ColourSpec:
    key: str
    name: str


@dataclass(frozen=True)
class TileSpec:
    kind: TileKind
    count: int
    value: int = 0


@dataclass(frozen=True)
class BoardSpec:
    """The board game's tracks, pawns and event tiles."""

    pawns: int
    leaders: int
    spaces: int
    bridge_after: int
    tile_spaces: tuple[int, ...]
    tiles: tuple[TileSpec, ...]

    @property
    def tile_count(self) -> int:
        return sum(t.count for t in self.tiles)


@dataclass(frozen=True)
class ScoringSpec:
    """The pack's scoring section, as text: formulas are compiled by lostcities.grammar.

    ``formulas`` maps a scope (``expedition``, ``pawn``, ``round``, ``match``) to
    its DSL text; ``breakdown`` maps a display column to an expedition-scope
    formula; ``marks`` maps a dotted key (``scoring.round``) to the
    ``(file, line, col, style)`` where its text starts in the YAML file.
    """

    formulas: Mapping[str, str]
    breakdown: Mapping[str, str]
    constants: Mapping[str, int]
    tables: Mapping[str, tuple[int, ...]]
    marks: Mapping[str, tuple[str, int, int, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class RulePack:
    """One rule variant of Lost Cities, resolved and checked."""

    id: str
    name: str
    description: str
    family: Literal["duel", "board"]
    house_rule: bool
    sources: tuple[str, ...]
    min_players: int
    max_players: int
    colours: tuple[ColourSpec, ...]
    min_value: int
    max_value: int
    copies: int
    wagers: int
    removed_unseen: Mapping[int, int]
    hand_size: int
    ordering: Ordering
    #: ``wagers.when`` (:data:`.options.WAGER_TIMES`): ``before-numbers`` or ``any-time``
    wagers_when: str
    row_start: RowStart
    #: ``turn.retake`` (:data:`.options.RETAKES`): ``any``, ``not-the-same-card``,
    #: ``no-discard-pile``
    retake: str
    turn_cap: int
    draw_pile_empty: PileEnd
    bridge_crossings: int
    rounds: int
    first_starter: int
    next_starter: NextStarter
    next_starter_tie: NextStarter
    continuation: bool
    tie_break: tuple[TieBreak, ...]
    board: BoardSpec | None
    scoring_spec: ScoringSpec
    path: str = ""
    data: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def cards(self) -> CardCodec:
        """The card codec of this pack (colour keys and value range)."""
        codec = self.__dict__.get("_codec")
        if codec is None:
            codec = CardCodec([c.key for c in self.colours], self.min_value, self.max_value,
                              wagers=self.wagers > 0)
            object.__setattr__(self, "_codec", codec)
        return codec

    @property
    def scoring(self):
        """The pack's scoring formulas compiled once (a ``lostcities.grammar.Scoring``).

        Compiled on first use; :func:`lostcities.engine.load_pack` touches it so that
        formula errors surface when the pack loads, never during play.
        """
        compiled = self.__dict__.get("_scoring")
        if compiled is None:
            from lostcities.grammar import compile_scoring

            compiled = compile_scoring(self.scoring_spec, family=self.family)
            object.__setattr__(self, "_scoring", compiled)
        return compiled

    def use_scoring(self, scoring: Any) -> None:
        """Keep ``scoring`` (a ``lostcities.grammar.Scoring`` compiled from this pack's
        ``scoring_spec``) as :attr:`scoring`: the loader compiles and bounds each formula
        itself, to report every problem of a pack at once."""
        object.__setattr__(self, "_scoring", scoring)

    @property
    def no_retake_discard(self) -> bool:
        """The 0.1 name, kept for code written for 0.1 (``retake`` replaces it): whether
        the card just discarded may not be taken back."""
        return not RETAKES[self.retake](0, len(self.colours)) & 1

    @property
    def wagers_before_numbers(self) -> bool:
        """The 0.1 name, kept for code written for 0.1 (``wagers_when`` replaces it):
        whether wagers go only before a row's first number card."""
        return not WAGER_TIMES[self.wagers_when]

    @property
    def deck_size(self) -> int:
        per_colour = (self.max_value - self.min_value + 1) * self.copies + self.wagers
        return per_colour * len(self.colours)

    def deck(self) -> list[int]:
        """Every card of the pack, as card kinds, in a fixed order."""
        codec = self.cards
        out: list[int] = []
        for c in range(len(self.colours)):
            out.extend([codec.card(c, None)] * self.wagers)
            for v in range(self.min_value, self.max_value + 1):
                out.extend([codec.card(c, v)] * self.copies)
        return out

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, path: str = "",
                     marks: Mapping[str, tuple[str, int, int, str]] | None = None) -> "RulePack":
        """Build from a resolved, schema-valid mapping (defaults already filled or taken here)."""
        deck = data["deck"]
        rows = data.get("rows", {})
        turn = data.get("turn", {})
        end = data.get("round_end", {})
        match = data.get("match", {})
        scoring = data.get("scoring", {})
        board = data.get("board")
        formulas = {k: scoring[k] for k in ("expedition", "pawn", "round", "match") if k in scoring}
        return cls(
            id=data["id"],
            name=data.get("name", data["id"]),
            description=data.get("description", ""),
            family=data.get("family", "duel"),
            house_rule=bool(data.get("house_rule", False)),
            sources=tuple(data.get("sources", ())),
            min_players=data["players"]["min"],
            max_players=data["players"]["max"],
            colours=tuple(ColourSpec(c["key"].lower(), c["name"]) for c in deck["colours"]),
            min_value=deck["values"]["min"],
            max_value=deck["values"]["max"],
            copies=deck.get("copies", 1),
            wagers=deck.get("wagers", 0),
            removed_unseen={r["players"]: r["cards"] for r in deck.get("removed_unseen", ())},
            hand_size=data["hand_size"],
            ordering=rows.get("ordering", "strict"),
            wagers_when=_spelled(data, "wagers", "when", "before-numbers"),
            row_start=rows.get("start", "any"),
            retake=_spelled(data, "turn", "retake", "not-the-same-card"),
            turn_cap=turn.get("turn_cap", 1000),
            draw_pile_empty=end.get("draw_pile_empty", "immediately"),
            bridge_crossings=end.get("bridge_crossings", 0),
            rounds=match.get("rounds", 3),
            first_starter=match.get("first_starter", 0),
            next_starter=match.get("next_starter", "best-round-score"),
            next_starter_tie=match.get("next_starter_tie", "alternate"),
            continuation=bool(match.get("continuation", False)),
            tie_break=tuple(match.get("tie_break", ())),
            board=None if board is None else BoardSpec(
                pawns=board["pawns"], leaders=board.get("leaders", 1), spaces=board["spaces"],
                bridge_after=board["bridge_after"], tile_spaces=tuple(board.get("tile_spaces", ())),
                tiles=tuple(TileSpec(t["kind"], t["count"], t.get("value", 0))
                            for t in board.get("tiles", ()))),
            scoring_spec=ScoringSpec(
                formulas=formulas,
                breakdown=dict(scoring.get("breakdown", {})),
                constants=dict(scoring.get("constants", {})),
                tables={k: tuple(v) for k, v in scoring.get("tables", {}).items()},
                marks=dict(marks or {})),
            path=path,
            data=data,
        )


def _spelled(data: Mapping[str, Any], section: str, key: str, default: str) -> str:
    """The setting ``section.key``, which had a boolean spelling in 0.1
    (:data:`.options.OLD_SPELLINGS`): the loader turns the old key into the new one file by
    file, before ``extends`` merges them; a mapping built otherwise may still hold the old
    key (over the new one a base pack gave: the old one is the later word)."""
    old_section, old_key, of_bool = next((s, o, b) for s, o, b, new_section, new in OLD_SPELLINGS
                                         if (new_section, new) == (section, key))
    old = data.get(old_section, {}).get(old_key)
    if isinstance(old, bool):
        return of_bool[old]
    value = data.get(section, {}).get(key, default)
    return value if isinstance(value, str) else default


T = TypeVar("T")


def cached_on(pack: RulePack, key: str, build: Callable[[RulePack], T]) -> T:
    """``build(pack)`` computed once and kept on the (frozen) pack under ``key``."""
    value = pack.__dict__.get(key)
    if value is None:
        value = build(pack)
        object.__setattr__(pack, key, value)
    return value
