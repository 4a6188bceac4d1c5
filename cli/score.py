"""``lc score``: the scoring calculator for a game played with real cards."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, List

import typer

from .common import EXIT_PROBLEM, EXIT_USAGE, fail
from .packs import complete_pack_or_file

if TYPE_CHECKING:
    from lostcities.engine.rows import Tally
    from lostcities.engine.rules import RulePack

#: separates the cards of one player from the next
PLAYER_SEPARATOR = "/"


def register(app: typer.Typer) -> None:
    app.command("score")(score)


def score(
    cards: List[str] = typer.Argument(
        ..., metavar="CARD...", show_default=False,
        help="The cards on the table: colour key then value, or x for a wager (r5, b10, gx); "
             "case-insensitive. A / starts the next player's cards."),
    pack_name: str = typer.Option(
        "duel-classic", "--pack", "-p", metavar="PACK", autocompletion=complete_pack_or_file,
        help="Built-in pack id or pack file whose rules and formulas score the cards."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of tables."),
) -> None:
    """Score expeditions laid out at the table: each row's breakdown, then the total.

    Cards of one colour form that colour's row in the order given, checked against
    the pack (ordering, wagers before numbers, copies in the deck). Example, the
    duel rules' worked example (total 18):

      lc score y5 y8 y10 wx gx g3 g5 g7 rx rx r2 r3 r5 r7 r8 r10

    Several players: separate their cards with /, e.g. `lc score r5 r8 / b4 b9`.
    Exit 0 when scored, 1 for a card or row the pack refuses, 2 for bad usage.
    """
    from lostcities.engine.errors import LostCitiesError

    groups = split_players(cards)
    pack = _load(pack_name)
    if "expedition" not in pack.scoring.formulas:
        fail(f"{pack.id} scores pawns on tracks, not expeditions: lc score needs a pack "
             "with a `scoring.expedition` formula")
    try:
        tallies = tally_players(pack, groups)
    except LostCitiesError as err:
        fail(str(err))
    if as_json:
        docs = [t.as_dict(pack) for t in tallies]
        doc = {"pack": pack.id, **docs[0]} if len(docs) == 1 else {"pack": pack.id,
                                                                    "players": docs}
        typer.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    _print_tables(pack, tallies)


def split_players(args: List[str]) -> list[list[str]]:
    """The card words of each player: arguments split on whitespace and on ``/``."""
    groups: list[list[str]] = [[]]
    for arg in args:
        for i, part in enumerate(arg.split(PLAYER_SEPARATOR)):
            if i:
                groups.append([])
            groups[-1].extend(part.split())
    for n, group in enumerate(groups, 1):
        if not group:
            who = f"player {n}" if len(groups) > 1 else "the player"
            fail(f"{who} has no cards: give each player's cards, separated by "
                 f"{PLAYER_SEPARATOR}", EXIT_USAGE)
    return groups


def tally_players(pack: "RulePack", groups: list[list[str]]) -> "list[Tally]":
    """Parse and score each player's cards; copies are counted over all players."""
    from lostcities.engine.errors import LostCitiesError
    from lostcities.engine.rows import check_copies, tally

    parsed = []
    for n, words in enumerate(groups, 1):
        try:
            parsed.append([pack.cards.parse(w) for w in words])
        except LostCitiesError as err:
            raise type(err)(_for_player(n, len(groups), str(err))) from None
    check_copies(pack, [card for player in parsed for card in player])
    tallies = []
    for n, player in enumerate(parsed, 1):
        try:
            tallies.append(tally(pack, player))
        except LostCitiesError as err:
            raise type(err)(_for_player(n, len(groups), str(err))) from None
    return tallies


def _for_player(n: int, players: int, message: str) -> str:
    return f"player {n}: {message}" if players > 1 else message


def _load(name: str) -> "RulePack":
    """The pack, or a one-line error: exit 2 when it does not exist, 1 when it is invalid."""
    from lostcities.engine import PackError, load_pack

    try:
        return load_pack(name)
    except PackError as err:
        problems = err.problems
        missing = len(problems) == 1 and problems[0].code == "LC009"
        more = f" (and {len(problems) - 1} more problems: run lc validate {name})" \
            if len(problems) > 1 else ""
        fail(f"{err}{more}", EXIT_USAGE if missing else EXIT_PROBLEM)


def _print_tables(pack: "RulePack", tallies: "list[Tally]") -> None:
    from rich.color import Color, ColorParseError
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
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
            try:
                Color.parse(name)
                style = name
            except ColorParseError:
                style = ""
            cells = " ".join(codec.format(c)[1:] for c in row.cards) or "-"
            table.add_row(Text(name, style=style), cells,
                          *(str(row.breakdown[c]) for c in columns), str(row.score))
        console.print(table)
        console.print(f"Total: {player.total}")
