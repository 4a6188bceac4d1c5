"""A rule pack explained in words: the rulebook of any pack, generated from the pack alone.

:func:`explain` reads a :class:`~lostcities.engine.RulePack` (and, for a house pack,
its base) and returns an :class:`Explanation`: a language-neutral structure of
sections, each a list of :class:`Sentence` (a message key and its parameters),
the house rules that differ from the base, and a worked example scored by the
pack's own formulas. Nothing here is English or French: ``lc explain``
(``lostcities.cli.explain``) renders the keys through its catalogues
(``i18n/rules_en.json``, ``i18n/rules_fr.json``) as text, Markdown or HTML, and a
web page can do the same with ``Explanation.to_dict()``.

Every number comes from the pack: the deck's counts from its data, the track values
and the words about scoring from its compiled formulas. The words about a formula
(``words.*`` sentences) are found by evaluating it over a grid of inputs (every colour,
rows of every length from the lowest and the highest cards, every number of wagers;
every space of every track) and fitting a simple shape (``(points - K) * m + bonus``,
``value[space] * L``, a sum with a floor...); they are given only when every
evaluation fits, and the formula as written is always shown beside them. The worked
example goes through the same calls as ``lc score`` (``tally`` for cards, the
``round`` and ``match`` formulas for pawns), so its numbers are ``lc score``'s.

Only the public engine API is used (``lostcities.engine`` and docs/api.md).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Optional, Sequence

from lostcities.i18n.words import Formula, Term

from ..errors import LostCitiesError, PackError
from ..game.options import ARTEFACT, POINTS, TILE_KINDS, takes_equal
from ..game.rows import tally
from .loader import load_pack, validate_pack

if TYPE_CHECKING:
    from ..game.rules import BoardSpec, RulePack

#: top-level settings that say what a pack is rather than how it plays: shown in the
#: heading, never listed among a house pack's changed rules
IDENTITY: tuple[str, ...] = ("id", "extends", "name", "description", "house_rule", "sources")

#: the section keys, in rulebook order (a section without sentences is left out)
SECTIONS: tuple[str, ...] = ("about", "setup", "board", "turn", "rows", "wagers", "draw",
                             "round_end", "match", "starter", "scoring")

#: the most player counts for which the draw pile's starting size is listed
_MOST_COUNTS = 8
#: rows of these lengths (and the full row) are scored to find a formula's shape
_PROBE_LENGTHS = 16
#: artefact counts probed for the match formula's scale
_MOST_ARTEFACTS = 60


# --------------------------------------------------------------------------- the structure


@dataclass(frozen=True)
class Sentence:
    """One sentence of the rulebook: a catalogue key and the values it names.

    ``params`` hold ints, bools, text taken from the pack (data, to escape), :class:`Term`,
    :class:`Formula` or lists of these. ``settings`` are the dotted settings the sentence
    states (``rows.ordering``); ``changed`` is true in a house pack when the base's
    rulebook does not say the same sentence with the same values in that section.
    """
    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    settings: tuple[str, ...] = ()
    changed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "params": {k: _jsonable(v) for k, v in self.params.items()},
                "settings": list(self.settings), "changed": self.changed}


@dataclass(frozen=True)
class Section:
    """A titled part of the rulebook (``setup``, ``scoring``...): its key and sentences."""

    key: str
    sentences: tuple[Sentence, ...]

    @property
    def changed(self) -> bool:
        return any(s.changed for s in self.sentences)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "sentences": [s.to_dict() for s in self.sentences]}


@dataclass(frozen=True)
class Change:
    """One house rule: the dotted ``setting``, the base's value and the house pack's
    (None where one of them does not have the key)."""

    setting: str
    base: Any
    house: Any

    def to_dict(self) -> dict[str, Any]:
        return {"setting": self.setting, "base": self.base, "house": self.house}


@dataclass(frozen=True)
class ExampleLine:
    """One row (duel) or pawn (board) of the worked example, as scored.

    A row: ``colour`` index, ``cards`` in notation, ``parts`` the pack's breakdown
    columns. A pawn: ``colour`` is its track (-1 in the centre), ``space`` and
    ``leader``. ``score`` is the pack's expedition or pawn formula.
    """
    colour: int
    cards: tuple[str, ...] = ()
    parts: Mapping[str, int] = field(default_factory=dict)
    space: int = 0
    leader: bool = False
    score: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"colour": self.colour, "cards": list(self.cards), "parts": dict(self.parts),
                "space": self.space, "leader": self.leader, "score": self.score}


@dataclass(frozen=True)
class Example:
    """The worked example: ``words`` as ``lc score`` takes them, each line's score and
    the round ``total`` by the pack's formulas.

    Board packs add ``tokens`` and ``artefacts`` (given), ``artefact_points`` (what the
    artefacts add at the match's end: the match formula over one round of 0) and
    ``match_total`` (the match formula over this round, for a one-round match).
    ``error`` is the formulas' one-line error when they cannot score the example.
    """
    family: str
    words: tuple[str, ...]
    lines: tuple[ExampleLine, ...] = ()
    tokens: int = 0
    artefacts: int = 0
    total: Optional[int] = None
    artefact_points: Optional[int] = None
    match_total: Optional[int] = None
    error: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {"family": self.family, "words": list(self.words),
                "lines": [line.to_dict() for line in self.lines], "tokens": self.tokens,
                "artefacts": self.artefacts, "total": self.total,
                "artefact_points": self.artefact_points, "match_total": self.match_total,
                "error": self.error}


@dataclass(frozen=True)
class Explanation:
    """A pack's rulebook, language-neutral: heading, house rules, sections, example.

    ``source`` is how the pack was named (a built-in id or a file: what ``lc score
    --pack`` takes); ``colours`` the colour names as terms, in the pack's order. ``base``
    is the id of the pack it extends, None for a pack that extends nothing; ``changes`` its house rules (settings outside :data:`IDENTITY` whose value
    differs from the base's), in the pack's key order.
    """
    pack_id: str
    name: str
    description: str
    family: str
    house_rule: bool
    sources: tuple[str, ...]
    base: Optional[str]
    changes: tuple[Change, ...]
    sections: tuple[Section, ...]
    example: Example
    colours: tuple[Term, ...] = ()
    source: str = ""

    def section(self, key: str) -> Optional[Section]:
        """The section ``key``, or None when the pack has nothing to say there."""
        return next((s for s in self.sections if s.key == key), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: keys and parameters, for a renderer in another language or process."""
        return {"pack": self.pack_id, "source": self.source, "name": self.name, "description": self.description,
                "family": self.family, "house_rule": self.house_rule,
                "sources": list(self.sources), "base": self.base,
                "colours": [c.to_dict() for c in self.colours],
                "changes": [c.to_dict() for c in self.changes],
                "sections": [s.to_dict() for s in self.sections],
                "example": self.example.to_dict()}


def _jsonable(value: Any) -> Any:
    if isinstance(value, (Term, Formula)):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


# --------------------------------------------------------------------------- entry point


def explain(pack: "RulePack | str | os.PathLike[str]", base: "RulePack | None" = None
            ) -> Explanation:
    """The rulebook of ``pack`` (a :class:`RulePack`, a built-in id or a pack file).

    For a pack that ``extends`` another, ``base`` is that pack; when not given it is
    loaded from the pack's ``extends`` chain. Raises :class:`~lostcities.engine.PackError`
    for a pack (or base) that does not load; a formula that cannot score the worked
    example is reported in ``example.error``, not raised.

    >>> book = explain("duel-classic")
    >>> book.example.total, [s.key for s in book.sections][:3]
    (18, ['about', 'setup', 'turn'])
    """
    if hasattr(pack, "scoring_spec"):
        source = pack.path  # type: ignore[union-attr]
    else:
        source = os.fspath(pack)  # type: ignore[arg-type]
    if base is None and source:
        report = validate_pack(source)  # the pack and its chain in one pass
        if report.problems or report.pack is None or report.resolved is None:
            raise PackError(list(report.problems))
        if isinstance(pack, (str, os.PathLike)):
            pack = report.pack
        paths = report.resolved.paths
        base = load_pack(str(paths[1])) if len(paths) > 1 else None
    elif isinstance(pack, (str, os.PathLike)):
        pack = load_pack(source)
    assert not isinstance(pack, (str, os.PathLike))
    changes = tuple(_changes(base.data, pack.data)) if base is not None else ()
    book = book_of(pack)
    book.build()
    if base is not None:
        before = book_of(base)
        before.build()
        book.mark(before)
    return Explanation(
        pack_id=pack.id, name=pack.name, description=pack.description, family=pack.family,
        house_rule=pack.house_rule, sources=tuple(pack.sources),
        base=None if base is None else base.id,
        changes=changes,
        sections=tuple(Section(k, tuple(book.sections[k])) for k in SECTIONS
                       if book.sections.get(k)),
        example=worked_example(pack),
        colours=tuple(_colour(c.name) for c in pack.colours),
        source=source or pack.id)


def _changes(base: Mapping[str, Any], house: Mapping[str, Any], path: str = ""
             ) -> Iterator[Change]:
    """Every setting whose value differs: mappings compared key by key, lists whole."""
    for key in list(house) + [k for k in base if k not in house]:
        where = f"{path}.{key}" if path else key
        if not path and key in IDENTITY:
            continue
        old, new = base.get(key), house.get(key)
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            yield from _changes(old, new, where)
        elif old != new:
            yield Change(where, old, new)


def _colour(name: str) -> Term:
    return Term(f"colour.{name.lower()}", name)


# --------------------------------------------------------------------------- the sentences


class _Book:
    """Builds the sections of one pack, marking the sentences whose settings changed: the
    duel's book, which the board's (:class:`_BoardBook`) extends with its own sentences."""

    #: what a round's score adds up (``words.round.<parts>``)
    round_parts = "expeditions"

    def __init__(self, pack: "RulePack"):
        self.pack = pack
        self.sections: dict[str, list[Sentence]] = {}
        self.shapes = self.fitting(pack)

    @staticmethod
    def fitting(pack: "RulePack") -> "_Shapes":
        return _Shapes(pack)

    def say(self, section: str, key: str, settings: Sequence[str] = (), **params: Any) -> None:
        self.sections.setdefault(section, []).append(Sentence(key, params, tuple(settings)))

    def mark(self, base: "_Book") -> None:
        """Mark ``changed`` every sentence the base's rulebook does not say word for word
        (same key, same values), in the same section."""
        def said(section: str, sentence: Sentence) -> str:
            return repr((section, sentence.key, _jsonable(dict(sentence.params))))

        known = {said(k, x) for k, sentences in base.sections.items() for x in sentences}
        for key, sentences in self.sections.items():
            self.sections[key] = [x if said(key, x) in known else
                                  Sentence(x.key, x.params, x.settings, True)
                                  for x in sentences]

    def build(self) -> None:
        self.about()
        self.setup()
        self.board()
        self.turn()
        self.rows()
        self.wagers()
        self.draw()
        self.round_end()
        self.match()
        self.starter()
        self.scoring()

    # ---------------------------------------------------------------- about, setup

    def about(self) -> None:
        p = self.pack
        self.say("about", f"about.family.{p.family}", ["family"])
        if p.house_rule:
            self.say("about", "about.house_rule", ["house_rule"])
        if p.sources:
            # each rule text by what it is (the online rules); a house pack's own as written
            self.say("about", "about.sources", ["sources"],
                     sources=[Term(f"source.{name}", name) for name in p.sources])
        elif not p.house_rule:
            self.say("about", "about.no-sources", ["sources", "house_rule"])

    def setup(self) -> None:
        p = self.pack
        players = ["players.min", "players.max"]
        if p.min_players == p.max_players:
            self.say("setup", "setup.players.one", players, players=p.min_players)
        else:
            self.say("setup", "setup.players.range", players, min=p.min_players,
                     max=p.max_players)
        colours = [_colour(c.name) for c in p.colours]
        self.say("setup", "setup.colours", ["deck.colours"], count=len(colours),
                 colours=colours)
        self.say("setup", "setup.keys", ["deck.colours"],
                 keys=[f"{c.key}" for c in p.colours], example=p.cards.format(
                     p.cards.card(0, p.max_value)))
        numbers = p.max_value - p.min_value + 1
        copies = "one" if p.copies == 1 else "copies"
        self.say("setup", f"setup.numbers.{copies}", ["deck.values.min", "deck.values.max",
                                                      "deck.copies"],
                 min=p.min_value, max=p.max_value, copies=p.copies, count=numbers * p.copies)
        if p.wagers:
            self.say("setup", "setup.wagers", ["deck.wagers"], wagers=p.wagers,
                     card=p.cards.format(p.cards.card(0, None)))
        else:
            self.say("setup", "setup.wagers.none", ["deck.wagers"])
        self.say("setup", "setup.deck", ["deck"], size=p.deck_size,
                 per_colour=numbers * p.copies + p.wagers)
        removed = sorted(p.removed_unseen.items())
        for players_at, cards in removed:
            self.say("setup", "setup.removed", ["deck.removed_unseen"], players=players_at,
                     cards=cards)
        if not any(cards for _, cards in removed):
            self.say("setup", "setup.removed.none", ["deck.removed_unseen"])
        self.say("setup", "setup.deal", ["hand_size"], hand=p.hand_size)
        for players_at in range(p.min_players, p.max_players + 1)[:_MOST_COUNTS]:
            pile = p.deck_size - p.removed_unseen.get(players_at, 0) - players_at * p.hand_size
            key = "setup.pile.one" if p.min_players == p.max_players else "setup.pile"
            self.say("setup", key, ["hand_size", "deck", "players"], players=players_at,
                     pile=pile)

    def board(self) -> None:
        """A duel has no board section."""

    # ---------------------------------------------------------------- play

    def turn(self) -> None:
        p = self.pack
        self.say("turn", "turn.order", [])
        self.say("turn", "turn.play", [])
        self.say("turn", "turn.discard", ["deck.colours"], piles=len(p.colours))

    def rows(self) -> None:
        p = self.pack
        self.say("rows", "rows.one-per-colour", [])
        self.say("rows", f"rows.ordering.{p.ordering}", ["rows.ordering"])
        self.say("rows", f"rows.start.{p.row_start}", ["rows.start"])

    def wagers(self) -> None:
        p = self.pack
        rule = f"wagers.when.{p.wagers_when}"  # one sentence per value of wagers.when
        if p.wagers:
            self.say("wagers", rule, ["wagers.when", "deck.wagers"], wagers=p.wagers)
        else:
            self.say("wagers", f"{rule}.unused", ["wagers.when", "deck.wagers"])

    def draw(self) -> None:
        p = self.pack
        self.say("draw", "draw.choice", ["hand_size"], hand=p.hand_size)
        self.say("draw", f"draw.retake.{p.retake}", ["turn.retake"])  # one per turn.retake

    def round_end(self) -> None:
        p = self.pack
        self.say("round_end", f"round_end.{p.draw_pile_empty}", ["round_end.draw_pile_empty"])
        self.crossings()
        self.say("round_end", "round_end.turn_cap", ["turn.turn_cap"], cap=p.turn_cap)

    def crossings(self) -> None:
        """A duel's round ends by no bridge crossing."""

    def match(self) -> None:
        p = self.pack
        if p.rounds == 1:
            self.say("match", "match.one-round", ["match.rounds"])
        else:
            self.say("match", "match.rounds", ["match.rounds"], rounds=p.rounds)
        self.between_rounds()
        if p.continuation:
            self.say("match", "match.continuation", ["match.continuation"], rounds=p.rounds)
        else:
            self.say("match", "match.no-continuation", ["match.continuation"], rounds=p.rounds)
        self.say("match", "match.winner", [])
        if p.tie_break:
            self.say("match", "match.tie_break", ["match.tie_break"],
                     criteria=[Term(f"tie.{t}", t) for t in p.tie_break])
        else:
            self.say("match", "match.tie.share", ["match.tie_break"])

    def between_rounds(self) -> None:
        """A duel has no board to set up again between rounds."""

    def starter(self) -> None:
        p = self.pack
        self.say("starter", "starter.first", ["match.first_starter"], seat=p.first_starter + 1)
        self.say("starter", f"starter.next.{p.next_starter}", ["match.next_starter"])
        self.say("starter", f"starter.tie.{p.next_starter_tie}", ["match.next_starter_tie"])

    # ---------------------------------------------------------------- scoring

    def scoring(self) -> None:
        p = self.pack
        spec = p.scoring_spec
        if spec.constants:
            self.say("scoring", "scoring.constants", ["scoring.constants"],
                     constants=[f"{k} = {v}" for k, v in spec.constants.items()])
        for name, values in spec.tables.items():
            self.say("scoring", "scoring.table", [f"scoring.tables.{name}"], name=name,
                     values=[str(v) for v in values], size=len(values))
        words = ["scoring.constants", "scoring.tables"]
        for scope in ("expedition", "pawn", "round", "match"):
            text = spec.formulas.get(scope)
            if text is None:
                continue
            self.say("scoring", f"scoring.formula.{scope}", [f"scoring.{scope}"],
                     formula=Formula(text))
            settings = [f"scoring.{scope}", *words]
            if scope == "expedition":
                self.expedition_words(settings)
            elif scope == "pawn":
                self.pawn_words(settings)
            elif scope == "round":
                self.round_words(settings + ["scoring.expedition", "scoring.pawn"])
            else:
                self.match_words(settings + ["board.tiles", "match.rounds"])
        for name, text in spec.breakdown.items():
            self.say("scoring", "scoring.column", [f"scoring.breakdown.{name}"], name=name,
                     formula=Formula(text))

    def expedition_words(self, settings: list[str]) -> None:
        shape = self.shapes.expedition
        if shape is None:
            self.say("scoring", "words.as-written", settings)
            return
        if shape.empty == 0:
            self.say("scoring", "words.expedition.empty.zero", settings)
        else:
            self.say("scoring", "words.expedition.empty", settings, value=shape.empty)
        if shape.cost:
            self.say("scoring", "words.expedition.cost", settings, cost=shape.cost)
        else:
            self.say("scoring", "words.expedition.sum", settings)
        wagers = list(range(1, len(shape.factors) + 1))
        if wagers and any(f != 1 for f in shape.factors):
            self.say("scoring", "words.expedition.factors" + (".one" if len(wagers) == 1
                                                                else ""),
                     settings, wagers=wagers, factors=list(shape.factors))
        if shape.bonus:
            self.say("scoring", "words.expedition.bonus", settings, cards=shape.bonus_cards,
                     bonus=shape.bonus)

    def pawn_words(self, settings: list[str]) -> None:
        shape = self.shapes.pawn
        if shape is None:
            self.say("scoring", "words.as-written", settings)
            return
        self.say("scoring", "words.pawn.space", settings)
        self.leader_words(shape, settings)

    def leader_words(self, shape: "PawnShape", settings: list[str]) -> None:
        """A duel has no leader."""

    def round_words(self, settings: list[str]) -> None:
        shape = self.shapes.round
        if shape is None:
            self.say("scoring", "words.as-written", settings)
            return
        self.say("scoring", f"words.round.{self.round_parts}", settings)
        if shape.floor is not None:
            self.say("scoring", "words.round.floor", settings, floor=shape.floor)
        if shape.tokens:
            self.say("scoring", "words.round.tokens" if shape.tokens == 1
                     else "words.round.tokens.times", settings, factor=shape.tokens)

    def match_words(self, settings: list[str]) -> None:
        shape = self.shapes.match
        if shape is None:
            self.say("scoring", "words.as-written", settings)
            return
        self.say("scoring", "words.match.sum", settings)
        scale = shape.artefacts
        if len(scale) > 1 and any(v != scale[0] for v in scale):
            self.say("scoring", "words.match.artefacts", settings, scale=_scale_line(scale))
        elif scale and scale[0]:
            self.say("scoring", "words.match.offset", settings, value=scale[0])
        if shape.tokens:
            self.say("scoring", "words.match.tokens", settings, factor=shape.tokens)


class _BoardBook(_Book):
    """The board game's book: the duel's, with the board section, the pawns that follow the
    rows, the bridge crossings, the board set up again, the leaders' worth."""

    round_parts = "pawns"

    @staticmethod
    def fitting(pack: "RulePack") -> "_Shapes":
        return _BoardShapes(pack)

    @property
    def spec(self) -> "BoardSpec":
        """The pack's board."""
        return _board_spec(self.pack)

    def board(self) -> None:
        p = self.pack
        b = self.spec
        self.say("board", "board.tracks", ["deck.colours", "board.spaces"],
                 tracks=len(p.colours), spaces=b.spaces)
        self.say("board", "board.bridge", ["board.bridge_after"], after=b.bridge_after,
                 next=b.bridge_after + 1)
        leaders = "none" if b.leaders == 0 else ("one" if b.leaders == 1 else "many")
        self.say("board", "board.pawns", ["board.pawns"], pawns=b.pawns)
        self.say("board", f"board.leaders.{leaders}", ["board.leaders"], leaders=b.leaders,
                 ordinary=b.pawns - b.leaders)
        values = self.shapes.pawn
        settings = ["scoring.pawn", "scoring.tables", "scoring.constants", "board.spaces",
                    "board.bridge_after"]
        if values is not None:
            tracks = values.tracks
            if all(t == tracks[0] for t in tracks):
                self.say("board", "board.values", settings,
                         values=_spaces_line(tracks[0], b.bridge_after))
            else:
                for colour, track in zip(p.colours, tracks):
                    self.say("board", "board.values.track", settings, colour=_colour(colour.name),
                             values=_spaces_line(track, b.bridge_after))
        else:
            self.say("board", "board.values.formula", settings)
        if b.tile_spaces and b.tiles:
            self.say("board", "board.tile_spaces", ["board.tile_spaces", "board.tiles"],
                     spaces=list(b.tile_spaces), tiles=b.tile_count,
                     slots=len(b.tile_spaces) * len(p.colours))
        else:
            self.say("board", "board.no-tiles", ["board.tile_spaces", "board.tiles"],
                     spaces=list(b.tile_spaces))
        for tile in b.tiles:
            self.say("board", f"board.tile.{tile.kind}", ["board.tiles"], count=tile.count,
                     value=tile.value)

    def rows(self) -> None:
        super().rows()
        self.say("rows", "rows.pawn", ["board"])
        self.say("rows", "rows.finished", ["board.spaces"])

    def crossings(self) -> None:
        p = self.pack
        if p.bridge_crossings:
            self.say("round_end", "round_end.bridges", ["round_end.bridge_crossings"],
                     crossings=p.bridge_crossings)
        else:
            self.say("round_end", "round_end.bridges.off", ["round_end.bridge_crossings"])

    def between_rounds(self) -> None:
        p = self.pack
        if p.rounds > 1 or p.continuation:
            self.say("match", "match.board-reset", [])

    def leader_words(self, shape: "PawnShape", settings: list[str]) -> None:
        if self.spec.leaders:
            if shape.leader == 2:
                self.say("scoring", "words.pawn.leader.double", settings)
            elif shape.leader != 1:
                self.say("scoring", "words.pawn.leader", settings, factor=shape.leader)


#: family -> its book, chosen once per pack (:func:`book_of`)
BOOKS: dict[str, type[_Book]] = {"duel": _Book, "board": _BoardBook}


def book_of(pack: "RulePack") -> _Book:
    """The book that writes ``pack``'s rulebook: its family's."""
    return BOOKS[pack.family](pack)


def _spaces_line(values: Sequence[int], bridge_after: int) -> list[str]:
    """``0: 0``, ``1: -20`` ... with ``|`` (the bridge) after ``bridge_after``."""
    out = []
    for space, value in enumerate(values):
        out.append(f"{space}: {value}")
        if space == bridge_after:
            out.append("|")
    return out


def _scale_line(scale: Sequence[int]) -> list[str]:
    """``0: -20``, ..., ``9+: 30``: the last value stands for every count from there on."""
    last = len(scale) - 1
    while last > 0 and scale[last - 1] == scale[-1]:
        last -= 1
    items = [f"{n}: {v}" for n, v in enumerate(scale[:last])]
    items.append(f"{last}+: {scale[last]}" if last < len(scale) - 1 else f"{last}: {scale[last]}")
    return items


# --------------------------------------------------------------------------- formula shapes


@dataclass(frozen=True)
class ExpeditionShape:
    """``(points - cost) * factors[wagers - 1] + (bonus if cards >= bonus_cards)`` for a
    row with cards, ``empty`` without; ``factors`` for 1.. wagers (1 without wagers)."""

    empty: int
    cost: int
    factors: tuple[int, ...]
    bonus: int
    bonus_cards: int


@dataclass(frozen=True)
class PawnShape:
    """A pawn scores ``tracks[track][space]``, times ``leader`` for a leader."""

    tracks: tuple[tuple[int, ...], ...]
    leader: int


@dataclass(frozen=True)
class RoundShape:
    """``max(floor, sum of scores) + tokens * tokens`` (no floor when None)."""

    floor: Optional[int]
    tokens: int


@dataclass(frozen=True)
class MatchShape:
    """``sum(rounds) + artefacts[held] + tokens * tokens`` (``artefacts`` probed from 0)."""

    artefacts: tuple[int, ...]
    tokens: int


class _Shapes:
    """The simple shapes the pack's formulas fit, each None when it does not (lazily): a
    duel's, which the board's (:class:`_BoardShapes`) extends with pawns, tokens and
    artefacts."""

    #: token counts the match formula is probed with (a duel takes none)
    match_tokens: tuple[int, ...] = (0,)

    def __init__(self, pack: "RulePack"):
        self.pack = pack
        self._cache: dict[str, Any] = {}

    def _get(self, name: str, fit: Callable[[], Any]) -> Any:
        if name not in self._cache:
            try:
                self._cache[name] = fit()
            except (LostCitiesError, ArithmeticError):  # a formula failing on a probe
                self._cache[name] = None
        return self._cache[name]

    @property
    def expedition(self) -> Optional[ExpeditionShape]:
        return self._get("expedition", self._fit_expedition)

    @property
    def pawn(self) -> Optional[PawnShape]:
        return self._get("pawn", self._fit_pawn)

    @property
    def round(self) -> Optional[RoundShape]:
        return self._get("round", self._fit_round)

    @property
    def match(self) -> Optional[MatchShape]:
        return self._get("match", self._fit_match)

    def rows(self) -> list[tuple[int, tuple[int, ...], int]]:
        """Rows ``(colour, values, wagers)`` to probe: every colour, every number of wagers,
        the lowest and the highest numbers of each length up to the full row."""
        p = self.pack
        numbers = [v for v in range(p.min_value, p.max_value + 1) for _ in range(p.copies)]
        lengths = sorted(set(range(min(len(numbers), _PROBE_LENGTHS) + 1)) | {len(numbers)})
        shapes = set()
        for n in lengths:
            shapes.add(tuple(numbers[:n]))
            shapes.add(tuple(numbers[len(numbers) - n:]))
        out = []
        for colour in range(len(p.colours)):
            for values in sorted(shapes, key=lambda v: (len(v), v)):
                for wagers in range(p.wagers + 1):
                    out.append((colour, values, wagers))
        return out

    def _fit_expedition(self) -> Optional[ExpeditionShape]:
        p = self.pack
        if "expedition" not in p.scoring_spec.formulas:
            return None
        score = p.scoring.expedition
        rows = [(c, v, w, score(c, v, w)) for c, v, w in self.rows()]
        empty = {s for c, v, w, s in rows if not v and not w}
        singles = [(v[0], s) for c, v, w, s in rows if len(v) == 1 and w == 0]
        if len(empty) != 1 or not singles:
            return None
        cost = singles[0][0] - singles[0][1]
        factors = []
        for wagers in range(1, p.wagers + 1):
            found = {s // (v[0] - cost) if s % (v[0] - cost) == 0 else None
                     for c, v, w, s in rows if len(v) == 1 and w == wagers and v[0] != cost}
            if len(found) != 1 or None in found:
                return None
            factors.append(found.pop())
        factor = [1, *factors]

        def base(v: tuple[int, ...], w: int) -> int:
            return (sum(v) - cost) * factor[w]

        extra = sorted((len(v) + w, s - base(v, w)) for c, v, w, s in rows if v or w)
        bonus_cards, bonus = next(((n, r) for n, r in extra if r), (0, 0))
        untouched = next(iter(empty))
        for c, v, w, s in rows:
            cards = len(v) + w
            expected = (untouched if not cards else
                        base(v, w) + (bonus if bonus and cards >= bonus_cards else 0))
            if s != expected:
                return None
        return ExpeditionShape(untouched, cost, tuple(factors), bonus, bonus_cards)

    def _fit_pawn(self) -> Optional[PawnShape]:
        return None  # a duel has no pawns

    def _fit_round(self) -> Optional[RoundShape]:
        p = self.pack
        scoring = p.scoring
        results = []
        for rows, pawns, tokens, artefacts, number in self.round_cases():
            result = scoring.round(rows, pawns, tokens, artefacts, number)
            results.append((self.parts(result), tokens, result.total))
        zero = [(s, total) for s, t, total in results if t == 0]
        floor_candidates = {total for s, total in zero if total != s}
        floor = floor_candidates.pop() if len(floor_candidates) == 1 else None
        if len(floor_candidates) > 1:
            return None
        with_tokens = [(s, t, total) for s, t, total in results if t]
        per_token = 0
        if with_tokens:
            s, t, total = with_tokens[0]
            base = max(floor, s) if floor is not None else s
            if (total - base) % t:
                return None
            per_token = (total - base) // t
        for s, t, total in results:
            base = max(floor, s) if floor is not None else s
            if total != base + per_token * t:
                return None
        return RoundShape(floor, per_token)

    def round_cases(self) -> list[tuple[list, list, int, int, int]]:
        """The round formula's probes, ``(rows, pawns, tokens, artefacts, round number)``:
        rows of every colour, picked across the row shapes."""
        p = self.pack
        rows = self.rows()
        by_colour = [[r for r in rows if r[0] == c] for c in range(len(p.colours))]
        return [([r[(i * (k + 3)) % len(r)] for k, r in enumerate(by_colour)], [], 0, 0,
                 1 + i % max(1, p.rounds)) for i in range(max(len(r) for r in by_colour))]

    @staticmethod
    def parts(result: Any) -> int:
        """What a round's total adds up before its floor and tokens: the expeditions."""
        return sum(result.expeditions)

    def artefacts_held(self) -> int:
        """The most artefacts a player can hold in a match: a duel has none."""
        return 0

    def token_value(self, match: Callable[..., int], scale: tuple[int, ...]) -> int:
        """What a token adds to the match's score: a duel has no tokens."""
        return 0

    def _fit_match(self) -> Optional[MatchShape]:
        p = self.pack
        match = p.scoring.match
        held = min(self.artefacts_held(), _MOST_ARTEFACTS)
        scale = tuple(match([0], n, 0) for n in range(held + 1))
        per_token = self.token_value(match, scale)
        samples = [[0], [5], [-7], [3, 11], [-20, 40, 0], [0] * p.rounds,
                   list(range(-p.rounds, p.rounds))]
        for rounds in samples:
            for n in range(held + 1):
                for tokens in self.match_tokens:
                    if match(rounds, n, tokens) != sum(rounds) + scale[n] + per_token * tokens:
                        return None
        return MatchShape(scale, per_token)


class _BoardShapes(_Shapes):
    """The shapes of a board pack's formulas: pawns on tracks, tokens and artefacts."""

    match_tokens = (0, 1, 9)

    @property
    def spec(self) -> "BoardSpec":
        """The pack's board."""
        return _board_spec(self.pack)

    def _fit_pawn(self) -> Optional[PawnShape]:
        p = self.pack
        b = self.spec
        if "pawn" not in p.scoring_spec.formulas:
            return None
        score = p.scoring.pawn
        tracks = tuple(tuple(score(t, s, False) for s in range(b.spaces + 1))
                       for t in range(len(p.colours)))
        leads = [(tracks[t][s], score(t, s, True)) for t in range(len(p.colours))
                 for s in range(b.spaces + 1)]
        ratios = {lead // value for value, lead in leads if value and lead % value == 0}
        leader = ratios.pop() if len(ratios) == 1 else (1 if not any(v for v, _ in leads) else 0)
        if any(lead != value * leader for value, lead in leads) or not leader:
            return None
        return PawnShape(tracks, leader)

    def round_cases(self) -> list[tuple[list, list, int, int, int]]:
        """Pawns at every space, 0 to all of them engaged (leaders first), with 0, 1 or 7
        tokens."""
        p, b = self.pack, self.spec
        cases: list[tuple[list, list, int, int, int]] = []
        tracks = min(b.pawns, len(p.colours))
        for space in range(b.spaces + 1):
            for engaged in range(tracks + 1):
                # the first `engaged` pawns on their own track at `space`, leaders first
                pawns = [(t if t < engaged and space else -1, space if t < engaged else 0,
                          t < b.leaders) for t in range(tracks)]
                pawns += [(-1, 0, False)] * (b.pawns - tracks)
                for tokens in (0, 1, 7):
                    cases.append(([], pawns, tokens, engaged % 3,
                                  1 + space % max(1, p.rounds)))
        return cases

    @staticmethod
    def parts(result: Any) -> int:
        return sum(result.pawns)

    def artefacts_held(self) -> int:
        return sum(t.count for t in self.spec.tiles
                   if TILE_KINDS[t.kind].effect == ARTEFACT) * self.pack.rounds

    def token_value(self, match: Callable[..., int], scale: tuple[int, ...]) -> int:
        return match([0], 0, 1) - scale[0]


# --------------------------------------------------------------------------- the example


def _example_rows(pack: "RulePack") -> list[list[int]]:
    """A legal row of cards per colour, like 000's example: three numbers; untouched; a
    wager alone; a wager and three numbers; two wagers and six numbers; the rest untouched.
    Without wagers the same rows without them."""
    codec = pack.cards
    values = list(range(pack.min_value, pack.max_value + 1))
    top = len(values) - 1

    def pick(*fractions: float) -> list[int]:
        """The values at these fractions of the range, ascending, each at most as often
        as the deck holds it (once under strictly increasing rows): legal in any order."""
        wanted = sorted(values[min(top, round(f * top))] for f in fractions)
        most = pack.copies if takes_equal(pack.ordering) else 1
        return [v for i, v in enumerate(wanted) if wanted[:i].count(v) < most]

    wager = codec.card
    designs: list[tuple[int, list[int]]] = [
        (0, pick(3 / 8, 6 / 8, 1)),
        (0, []),
        (1, [] if pack.wagers else pick(0)),
        (1, pick(1 / 8, 3 / 8, 5 / 8)),
        (2, pick(0, 1 / 8, 3 / 8, 5 / 8, 6 / 8, 1)),
    ]
    rows = []
    for colour in range(len(pack.colours)):
        wagers, numbers = designs[colour] if colour < len(designs) else (0, [])
        wagers = min(wagers, pack.wagers)
        rows.append([wager(colour, None)] * wagers + [wager(colour, v) for v in numbers])
    return rows


def _example_pawns(pack: "RulePack") -> list[tuple[int, int, bool]]:
    """Pawns as ``lc score`` takes them: the leader just past the bridge, a pawn on the last
    space, one halfway, one on space 2; the others in the centre."""
    b = _board_spec(pack)
    spots = [min(b.spaces, b.bridge_after + 1), b.spaces, max(1, b.spaces // 2),
             min(2, b.spaces)]
    leaders, ordinary = b.leaders, b.pawns - b.leaders
    out = []
    for track, space in enumerate(spots[:min(len(pack.colours), b.pawns)]):
        lead = leaders > 0 and (track == 0 or ordinary == 0)
        if lead:
            leaders -= 1
        elif ordinary:
            ordinary -= 1
        else:
            break
        out.append((track, space, lead))
    return out


def worked_example(pack: "RulePack") -> Example:
    """The worked example of ``pack``, scored as ``lc score`` scores it: its family's
    (:data:`EXAMPLES`)."""
    return EXAMPLES[pack.family](pack)


def _board_spec(pack: "RulePack") -> "BoardSpec":
    """A board-family pack's board (it has one: LC047)."""
    return pack.board  # type: ignore[return-value]


def _duel_example(pack: "RulePack") -> Example:
    """Rows of cards (:func:`_example_rows`), tallied."""
    codec = pack.cards
    rows = _example_rows(pack)
    cards = [c for row in rows for c in row]
    words = tuple(codec.format(c) for c in cards)
    try:
        scored = tally(pack, cards)
    except LostCitiesError as err:
        return Example("duel", words, error=str(err))
    lines = tuple(ExampleLine(e.colour, tuple(codec.format(c) for c in e.cards),
                              dict(e.breakdown), score=e.score) for e in scored.expeditions)
    return Example("duel", words, lines, total=scored.total)


def _board_example(pack: "RulePack") -> Example:
    """Pawns (:func:`_example_pawns`), tokens and artefacts, through the round and match
    formulas."""
    codec = pack.cards
    b = _board_spec(pack)
    written = _example_pawns(pack)
    points = sorted({t.value for t in b.tiles if TILE_KINDS[t.kind].effect == POINTS})
    tokens = sum(points[:2])
    artefact_tiles = sum(t.count for t in b.tiles if TILE_KINDS[t.kind].effect == ARTEFACT)
    artefacts = min(2, artefact_tiles * pack.rounds)
    keys = codec.keys
    words = tuple(f"{keys[t]}{s}{'+' if lead else ''}" for t, s, lead in written) + (
        f"tokens={tokens}", f"artefacts={artefacts}")
    places: list[tuple[int, int, bool]] = []
    for leader, kind in ((True, b.leaders), (False, b.pawns - b.leaders)):
        mine = [p for p in written if p[2] == leader]
        places += mine + [(-1, 0, leader)] * (kind - len(mine))
    scoring = pack.scoring
    try:
        result = scoring.round((), places, tokens, artefacts, 1)
        artefact_points = scoring.match([0], artefacts, 0)
        match_total = (scoring.match([result.total], artefacts, tokens)
                       if pack.rounds == 1 else None)
    except LostCitiesError as err:
        return Example("board", words, tokens=tokens, artefacts=artefacts, error=str(err))
    lines = tuple(ExampleLine(t, (), {}, s, lead, score)
                  for (t, s, lead), score in zip(places, result.pawns))
    return Example("board", words, lines, tokens, artefacts, result.total, artefact_points,
                   match_total)


#: family -> its worked example
EXAMPLES: dict[str, Callable[["RulePack"], Example]] = {"duel": _duel_example,
                                                          "board": _board_example}
