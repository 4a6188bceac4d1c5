"""``lc score``: the scoring calculator for a game played with real cards, or on a real board."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, List

import typer
from rich.color import Color, ColorParseError
from rich.console import Console
from rich.table import Table
from rich.text import Text

from lostcities.engine import CENTRE, PackError, check_copies, load_pack, tally
from lostcities.engine.errors import LostCitiesError
from lostcities.engine.tooling import ARTEFACT, POINTS, TILE_KINDS

from .common import ALLOW_OUTSIDE, EXIT_PROBLEM, EXIT_USAGE, fail, plain, plain_json
from .packs import complete_pack_or_file

if TYPE_CHECKING:
    from lostcities.engine import BoardSpec, RulePack, Tally

#: separates the cards of one player from the next
PLAYER_SEPARATOR = "/"
#: after a pawn's space, marks the leader (y7+); ``*`` is read the same (quote it in a shell).
#: Colour keys are single letters (pack.schema.json), so neither can be part of a key.
LEADER_MARKS = "+*"
#: the board notation's counts, word ``name=N``
COUNT_WORDS = ("tokens", "artefacts")
_PAWN = re.compile(r"([a-z])(-?[0-9]+)([+*]?)")
_COUNT = re.compile(r"([a-z]+)=(.*)")
_CARD_ONLY = re.compile(r"[a-z]x")  # a wager card: never a pawn
#: the longest word lc score reads: a card, a pawn or a count (artefacts=N) with a number
#: of up to 20 digits fits; a longer word is refused before any number in it is read
WORD_CHARS = 32


def register(app: typer.Typer) -> None:
    app.command("score")(score)


def score(
    words: List[str] = typer.Argument(
        ..., metavar="WORD...", show_default=False,
        help="The cards on the table: colour key then value, or x for a wager (r5, b10, gx). "
             "A board pack takes pawns instead: colour key then the space the pawn stands "
             "on, + after the leader's (y7+ b9 g4), and tokens=N artefacts=N. "
             "Case-insensitive. A / starts the next player's words."),
    pack_name: str = typer.Option(
        "duel-classic", "--pack", "-p", metavar="PACK", autocompletion=complete_pack_or_file,
        help="Built-in pack id or pack file whose rules and formulas score the cards or pawns."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of tables."),
    allow_outside: bool = ALLOW_OUTSIDE,
) -> None:
    """Score expeditions laid out at the table, or a board round's pawns: each row's
    or pawn's points, then the total.

    Cards of one colour form that colour's row in the order given, checked against
    the pack (ordering, wagers before numbers, copies in the deck). Example, the
    duel rules' worked example (total 18):

      lc score y5 y8 y10 wx gx g3 g5 g7 rx rx r2 r3 r5 r7 r8 r10

    A board pack (pawns on tracks) takes one word per pawn on a track: its colour
    key then its space, + after the leader's (or *, quoted); pawns not written
    are in the centre. tokens=N gives the round's victory-point tokens and
    artefacts=N the artefacts held (counted at the match's end by the pack's
    match formula). Example (round total 115, the 2 artefacts -5 at the end):

      lc score --pack board-classic y7+ b9 g4 r2 tokens=15 artefacts=2

    Several players: separate their words with /, e.g. `lc score r5 r8 / b4 b9`.
    Only what a game of the pack can produce is scored: no card more often than the
    deck holds it, no more players than it seats, no more tokens or artefacts than its
    tiles give. Exit 0 when scored, 1 for a card, pawn, count, row or player the pack
    refuses (or a word over 32 characters), 2 for bad usage.
    """
    pack = _load(pack_name, allow_outside)
    SCORERS[pack.family](pack, words, as_json)


def _score_duel(pack: "RulePack", words: List[str], as_json: bool) -> None:
    """``lc score`` for a duel pack: each player's expeditions of cards."""
    groups = split_players(words, "cards")
    check_seats(pack, groups)
    _refuse_board_words(pack, groups)
    try:
        tallies = tally_players(pack, groups)
        docs = [t.as_dict(pack) for t in tallies]
    except LostCitiesError as err:
        fail(plain(err))
    if as_json:
        typer.echo(plain_json(_document(pack, docs)))
        return
    _print_tables(pack, tallies)


def _document(pack: "RulePack", docs: list[dict]) -> dict:
    """The JSON document: one player's fields next to the pack, or a list of players."""
    return {"pack": pack.id, **docs[0]} if len(docs) == 1 else {"pack": pack.id,
                                                                "players": docs}


def split_players(args: List[str], what: str = "cards") -> list[list[str]]:
    """The words of each player: arguments split on whitespace and on ``/``; a word
    over :data:`WORD_CHARS` characters is refused in one line (exit 1)."""
    groups: list[list[str]] = [[]]
    for arg in args:
        for i, part in enumerate(arg.split(PLAYER_SEPARATOR)):
            if i:
                groups.append([])
            groups[-1].extend(part.split())
    for n, group in enumerate(groups, 1):
        for word in group:
            if len(word) > WORD_CHARS:
                fail(_for_player(n, len(groups), f"{word[:WORD_CHARS // 2]!r}... is a word of "
                                 f"{len(word):,} characters; a card, pawn or count is at most "
                                 f"{WORD_CHARS}"))
    for n, group in enumerate(groups, 1):
        if not group:
            who = f"player {n}" if len(groups) > 1 else "the player"
            more = " (tokens=0 for one whose pawns are all in the centre)" \
                if what == "pawns" else ""
            fail(f"{who} has no {what}: give each player's {what}, separated by "
                 f"{PLAYER_SEPARATOR}{more}", EXIT_USAGE)
    return groups


def check_seats(pack: "RulePack", groups: list[list[str]]) -> None:
    """No more players than the pack seats: ``fail`` in one line otherwise (exit 1).

    Fewer are fine (one player's rows can be scored alone). With the checks of each
    player's words (:func:`tally_players`, :func:`read_board_round`) and of what the
    players share (copies, :func:`check_shared`), every input ``lc score`` scores is one
    that a game of the pack can produce: the formulas run only on the rows, pawns and
    counts the pack loader bounded their cost and range over."""
    if len(groups) > pack.max_players:
        fail(f"{len(groups)} players given (separated by {PLAYER_SEPARATOR}), but {pack.id} "
             f"seats at most {pack.max_players}")


def tally_players(pack: "RulePack", groups: list[list[str]]) -> "list[Tally]":
    """Parse and score each player's cards; copies are counted over all players.

    The copies check bounds every row by what the pack deals: no card more often than
    its copies, so at most ``(max - min + 1) × copies`` number cards and ``wagers``
    wagers of a colour, one row per colour (900 cards on duel-classic stop here).

    A card or row a player's words get wrong is ``fail``-ed in one line naming the
    player (when there are several) then the library error's own line, once; the
    copies check raises its :class:`~lostcities.engine.errors.LostCitiesError`."""
    parsed = []
    for n, words in enumerate(groups, 1):
        try:
            parsed.append([pack.cards.parse(w) for w in words])
        except LostCitiesError as err:
            fail(_for_player(n, len(groups), plain(err)))
    check_copies(pack, [card for player in parsed for card in player])
    tallies = []
    for n, player in enumerate(parsed, 1):
        try:
            tallies.append(tally(pack, player))
        except LostCitiesError as err:
            fail(_for_player(n, len(groups), plain(err)))
    return tallies


def _for_player(n: int, players: int, message: str) -> str:
    return f"player {n}: {message}" if players > 1 else message


def _load(name: str, allow_outside: bool = False) -> "RulePack":
    """The pack, or a one-line error: exit 2 when it does not exist, 1 when it is invalid.
    ``allow_outside``: its `extends` may leave its folder (``--allow-outside``)."""
    try:
        return load_pack(name, allow_outside=allow_outside)
    except PackError as err:
        problems = err.problems
        missing = len(problems) == 1 and problems[0].code == "LC009"
        more = f" (and {len(problems) - 1} more problems: run lc validate {name})" \
            if len(problems) > 1 else ""
        fail(f"{err}{more}", EXIT_USAGE if missing else EXIT_PROBLEM)


def _console() -> "Console":
    """The console of lc score's tables: no markup, no emoji codes, nothing highlighted
    (every text from the pack is :func:`~lostcities.cli.render.plain` in a ``Text``)."""
    return Console(highlight=False, markup=False, emoji=False)


def _print_tables(pack: "RulePack", tallies: "list[Tally]") -> None:

    console = _console()
    columns = pack.scoring.columns
    codec = pack.cards
    for n, player in enumerate(tallies, 1):
        title = f"Player {n}" if len(tallies) > 1 else None
        table = Table(title=title, title_justify="left")
        table.add_column("expedition")
        table.add_column("cards")
        for column in columns:
            table.add_column(column, justify="right")
        table.add_column("score", justify="right")
        for row in player.expeditions:
            name = pack.colours[row.colour].name
            cells = " ".join(codec.format(c)[1:] for c in row.cards) or "-"
            table.add_row(Text(plain(name), style=_style(name)), cells,
                          *(str(row.breakdown[c]) for c in columns), str(row.score))
        console.print(table)
        console.print(f"Total: {player.total}")


def _style(name: str) -> str:
    """A colour's name as its rich style when rich knows it, else no style."""
    try:
        Color.parse(name)
    except ColorParseError:
        return ""
    return name


# --------------------------------------------------------------------------- board packs

@dataclass
class BoardRound:
    """One player's round on the board, as written: pawns on tracks, tokens, artefacts."""

    #: ``(track, space, leader)`` of each pawn written, in the order given
    pawns: list[tuple[int, int, bool]] = field(default_factory=list)
    tokens: int = 0
    artefacts: int = 0
    #: the word of the pawn on each track, for the error naming a second one
    words: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BoardCounts:
    """The most ``tokens=N`` and ``artefacts=N`` a player's round can show in a game of a
    board pack, from its board's tiles: the ranges the pack loader bounds the formulas over
    (docs/scoring-dsl.md, "What a pack's numbers let a formula reach")."""

    #: tokens one player takes in a round: every points tile of a positive value, once
    tokens: int
    #: the artefacts that ``artefacts=N`` may give, for one player and for all of them:
    #: a match's (every round's tiles), or one round's when the round formula reads
    #: ``artefacts`` (it counts the artefacts taken this round)
    artefacts: int
    #: why ``artefacts`` is the most, as a clause
    artefacts_why: str

    @classmethod
    def of(cls, pack: "RulePack") -> "BoardCounts":
        """The counts of board pack ``pack``."""
        spec = pack.board
        effects = [(TILE_KINDS[t.kind].effect, t) for t in spec.tiles]
        tokens = sum(t.value * t.count for effect, t in effects if effect == POINTS and t.value > 0)
        tiles = sum(t.count for effect, t in effects if effect == ARTEFACT)
        held = f"{pack.id}'s board holds {tiles} artefact tile{'s' if tiles != 1 else ''} a round"
        round_formula = pack.scoring.formulas.get("round")
        if round_formula is not None and "artefacts" in round_formula.uses:
            return cls(tokens, tiles, f"{held}, and its round formula counts the "
                                      f"artefacts taken in the round scored")
        most = tiles * pack.rounds
        return cls(tokens, most, f"{held}, at most {most} in its {pack.rounds}-round match")

    def refusal(self, pack: "RulePack", name: str, value: int) -> str | None:
        """Why one player's ``name=value`` (tokens or artefacts) is more than a game of
        ``pack`` gives; None if it is not."""
        if name == "artefacts":
            return self.artefacts_why if value > self.artefacts else None
        if value <= self.tokens:
            return None
        if not self.tokens:
            return f"{pack.id}'s board has no points tiles worth tokens: tokens=0"
        return (f"{pack.id}'s points tiles give a player at most {self.tokens} tokens in a "
                f"round, every one of them taken once")


def _refuse_board_words(pack: "RulePack", groups: list[list[str]]) -> None:
    """A duel pack given the board notation (y7+, tokens=N): say which notation it takes."""
    for n, words in enumerate(groups, 1):
        for word in words:
            if word[-1:] in LEADER_MARKS or "=" in word:
                example = "r5, gx" if pack.wagers else "r5, g3"
                fail(_for_player(n, len(groups),
                                 f"{word!r} is board notation (pawns, tokens, artefacts), but "
                                 f"{pack.id} scores expeditions of cards: give cards, colour "
                                 f"key then value{' or x for a wager' if pack.wagers else ''} "
                                 f"({example})"))


def read_board_round(pack: "RulePack", words: list[str], who: str = "") -> BoardRound:
    """One player's words in the board notation, checked against the pack; ``fail`` in
    one line naming the word (and ``who``, e.g. ``player 2: ``) otherwise.

    Each word is checked as it is read: a pawn's colour and space, one pawn a track, no
    more pawns or leaders than the pack gives, ``tokens``/``artefacts`` within
    :class:`BoardCounts`. What the players share is :func:`check_shared`'s."""
    spec = pack.board
    keys = pack.cards.keys
    ordinary_pawns = spec.pawns - spec.leaders
    counts = BoardCounts.of(pack)
    out = BoardRound()
    given: set[str] = set()
    leaders = ordinary = 0
    for word in words:
        text = word.lower()
        count = _COUNT.fullmatch(text)
        if count:
            name, value = count.groups()
            if name not in COUNT_WORDS:
                fail(f"{who}{word!r}: unknown count {name}=; the board notation counts "
                     f"tokens=N and artefacts=N", EXIT_USAGE)
            if not value.isascii() or not value.isdigit():
                fail(f"{who}{word!r}: {name} is a whole number, 0 or more (e.g. {name}=12)",
                     EXIT_USAGE)
            if name in given:
                fail(f"{who}{word!r}: {name} is given twice (one {name}=N per player)",
                     EXIT_USAGE)
            given.add(name)
            too_many = counts.refusal(pack, name, int(value))
            if too_many:
                fail(f"{who}{word!r}: {too_many}")
            setattr(out, name, int(value))
            continue
        pawn = _PAWN.fullmatch(text)
        if pawn is None:
            if _CARD_ONLY.fullmatch(text) and text[0] in keys:
                fail(f"{who}{word!r} is a card, but {pack.id} scores pawns on tracks, not "
                     f"expeditions: {_board_notation(pack)}")
            fail(f"{who}{word!r} is neither a pawn nor a count: {_board_notation(pack)}",
                 EXIT_USAGE)
        key, digits, mark = pawn.groups()
        if key not in keys:
            fail(f"{who}{word!r}: unknown colour {key!r}; this pack's colours are "
                 f"{', '.join(keys)}")
        track, space, leader = keys.index(key), int(digits), bool(mark)
        if not 1 <= space <= spec.spaces:
            centre = " (a pawn in the centre is not written)" if space == 0 else ""
            fail(f"{who}{word!r}: space {space} is outside 1-{spec.spaces}, the spaces of a "
                 f"{pack.id} track{centre}")
        if track in out.words:
            fail(f"{who}{word!r}: a second pawn on the {plain(pack.colours[track].name)} track, "
                 f"where "
                 f"{out.words[track]!r} stands; a player has one pawn per track (one word "
                 f"per pawn: {pack.id} scores pawns on tracks, not cards)")
        if leader:
            leaders += 1
            if not spec.leaders:
                fail(f"{who}{word!r} marks a leader, but {pack.id} has no leader pawns")
            if leaders > spec.leaders:
                fail(f"{who}{word!r}: a leader too many, {pack.id} gives each player only "
                     f"{spec.leaders} leader pawn{'s' if spec.leaders > 1 else ''}")
        else:
            ordinary += 1
            if ordinary > ordinary_pawns:
                fail(f"{who}{word!r}: a pawn too many, {pack.id} gives each player "
                     f"{_pawns_of(spec)}" + (" (mark the leader's word with +)"
                                             if spec.leaders and not leaders else ""))
        out.words[track] = word
        out.pawns.append((track, space, leader))
    return out


def _pawns_of(spec: "BoardSpec") -> str:
    """``5 pawns, 1 of them the leader``: what a board pack gives each player."""
    pawns = f"{spec.pawns} pawn{'s' if spec.pawns > 1 else ''}"
    if not spec.leaders:
        return pawns
    return f"{pawns}, {spec.leaders} of them {'the leader' if spec.leaders == 1 else 'leaders'}"


def _board_notation(pack: "RulePack") -> str:
    """The board notation in one clause, with examples from the pack's own keys and spaces."""
    spec = pack.board
    keys = pack.cards.keys
    first, last = keys[0], keys[-1]
    space = max(1, spec.spaces - 2)
    leader = f", {last}{spec.spaces}+ for a leader" if spec.leaders else ""
    return (f"write one word per pawn on a track, its colour key then its space 1-"
            f"{spec.spaces} ({first}{space}{leader}), and tokens=N artefacts=N")


def _score_board(pack: "RulePack", words: List[str], as_json: bool) -> None:
    """``lc score`` for a board pack: each player's pawns, tokens and artefacts."""
    groups = split_players(words, "pawns")
    check_seats(pack, groups)
    round_formula = pack.scoring.formulas.get("round")
    if round_formula is not None and "expeditions" in round_formula.uses:
        fail(f"the round formula of {pack.id} scores card rows as well as pawns: lc score "
             f"takes the cards or the pawns of a round, not both")
    players = len(groups)
    rounds = [read_board_round(pack, words, _for_player(n, players, ""))
              for n, words in enumerate(groups, 1)]
    check_shared(pack, rounds)
    spec = pack.board
    docs = []
    for n, played in enumerate(rounds, 1):
        # the engine's order: the leaders (pawns 0 .. leaders-1), then the ordinary
        # pawns; the ones not written stand in the centre, as the formulas see them
        places: list[tuple[int, int, bool]] = []
        for leader, kind in ((True, spec.leaders), (False, spec.pawns - spec.leaders)):
            mine = [p for p in played.pawns if p[2] == leader]
            places += mine + [(CENTRE, 0, leader)] * (kind - len(mine))
        try:  # tokens=10^15: the round formula's result is beyond its limits (LC104)
            docs.append(_board_doc(pack, places, played))
        except LostCitiesError as err:
            fail(_for_player(n, players, plain(err)))
    if as_json:
        typer.echo(plain_json(_document(pack, docs)))
        return
    try:
        _print_board(pack, docs)
    except LostCitiesError as err:  # the match formula over no artefacts
        fail(plain(err))


def check_shared(pack: "RulePack", rounds: list[BoardRound]) -> None:
    """The players together hold no more artefacts than the board's tiles give (each
    artefact tile is taken once); each player's own counts are :func:`read_board_round`'s."""
    counts = BoardCounts.of(pack)
    held = sum(p.artefacts for p in rounds)
    if held > counts.artefacts:
        fail(f"artefacts: the players hold {held} in all, but {counts.artefacts_why}")


def _board_doc(pack: "RulePack", places: list[tuple[int, int, bool]],
               played: BoardRound) -> dict:
    """One player's round scored by the pack's formulas, JSON-ready.

    ``artefact_points`` is the match formula over one round of 0 points with the
    artefacts held and no tokens: what the artefacts add at the match's end.
    ``match_total`` is the match formula over this round when the match is this one
    round (None otherwise).
    """
    scoring = pack.scoring
    result = scoring.round((), places, played.tokens, played.artefacts, 1)
    return {
        "pawns": [{"track": pack.colours[track].name if track >= 0 else None, "space": space,
                   "leader": leader, "score": points}
                  for (track, space, leader), points in zip(places, result.pawns)],
        "tokens": played.tokens,
        "artefacts": played.artefacts,
        "artefact_points": scoring.match([0], played.artefacts, 0),
        "total": result.total,
        "match_total": (scoring.match([result.total], played.artefacts, played.tokens)
                        if pack.rounds == 1 else None),
    }


def _print_board(pack: "RulePack", docs: list[dict]) -> None:

    console = _console()
    formulas = pack.scoring.formulas
    round_text = plain(formulas["round"].source.text) if "round" in formulas else None
    match = formulas.get("match")
    counts_artefacts = match is not None and "artefacts" in match.uses
    none = pack.scoring.match([0], 0, 0)
    for n, player in enumerate(docs, 1):
        title = f"Player {n}" if len(docs) > 1 else None
        table = Table(title=title, title_justify="left")
        table.add_column("track")
        table.add_column("space", justify="right")
        table.add_column("leader")
        table.add_column("points", justify="right")
        for pawn in player["pawns"]:
            name = pawn["track"]
            track = Text(plain(name), style=_style(name)) if name else Text("centre", style="dim")
            table.add_row(track, str(pawn["space"]), "yes" if pawn["leader"] else "",
                          str(pawn["score"]))
        console.print(table)
        pawns = sum(p["score"] for p in player["pawns"])
        console.print(f"Pawns: {pawns}  Tokens: {player['tokens']}")
        how = f" (round formula: {round_text})" if round_text else ""
        console.print(f"Round total: {player['total']}{how}", soft_wrap=True)
        held = player["artefacts"]
        if counts_artefacts:
            versus = f" ({none} with none)" if held else ""
            console.print(f"Artefacts: {held}, worth {player['artefact_points']} at the match's "
                          f"end by the match formula{versus}", soft_wrap=True)
        else:
            console.print(f"Artefacts: {held} ({pack.id}'s match formula does not count "
                          f"them)", soft_wrap=True)
        if player["match_total"] is not None:
            console.print(f"Match total: {player['match_total']} (a one-round match: the "
                          f"match formula over this round, its artefacts and tokens)",
                          soft_wrap=True)


#: family -> how ``lc score`` reads and scores its words (cards, or pawns and counts)
SCORERS: dict[str, Callable[["RulePack", List[str], bool], None]] = {
    "duel": _score_duel, "board": _score_board}
