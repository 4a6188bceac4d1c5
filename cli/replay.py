"""``lc replay``: re-play game records through the engine, showing or only checking them."""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, TextIO

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from lostcities.engine import (DECK, DISCARD, PLAY, describe_move, forfeit_winners, load_pack,
                               read_records, replay as run, totals, winners)
from lostcities.engine.errors import LostCitiesError, PackError
from lostcities.engine.tooling import check_shape, open_text, shown_path

from .common import ALLOW_OUTSIDE, EXIT_PROBLEM, EXIT_USAGE, Progress, complete_pack, fail
from .render import colour_style, plain

if TYPE_CHECKING:
    from lostcities.engine import GameState

def register(app: typer.Typer) -> None:
    """Add ``lc replay`` to the app."""
    app.command("replay")(replay)


def replay(
    file: Path = typer.Argument(..., metavar="FILE", dir_okay=False, show_default=False,
                                help="A JSON Lines file of records (- reads standard input)."),
    game: Optional[int] = typer.Option(
        None, "--game", "-g", min=1, show_default=False,
        help="The match to replay: its position in the file, from 1. Default: the first "
             "(with --check: every match)."),
    check: bool = typer.Option(False, "--check",
                               help="Only verify: every move, round end and score, the "
                                    "totals, the winners, and that the seed deals each "
                                    "recorded round."),
    pack: Optional[str] = typer.Option(
        None, "--pack", "-p", autocompletion=complete_pack, show_default=False,
        help="Use this pack file or id instead of the record's own pack (the pack it "
             "carries, or a built-in id: a record never names a file to open)."),
    force_pack: bool = typer.Option(
        False, "--force-pack",
        help="With --pack: replay with that pack even though its rules differ from the "
             "ones the record was made with (its sha256)."),
    allow_outside: bool = ALLOW_OUTSIDE,
) -> None:
    """Re-play game records through the engine, checking every move and every score,
    and show a match turn by turn (or, with --check, only verify; a long check of a file
    says how far it is on stderr, as lc simulate does).

    A record carries its pack: a built-in's id and the sha256 of its rules, or a house
    pack whole, so it replays from any folder with nothing else. --pack replaces it
    (with the same rules, unless --force-pack); --allow-outside is for --pack.

    Exit 0 when the records replay cleanly, 1 on the first record that does not
    (one line naming the file's line), 2 when the file cannot be read.
    """
    if force_pack and pack is None:
        fail("--force-pack is for --pack FILE_OR_ID", EXIT_USAGE)
    rules = None
    if pack is not None:
        try:
            rules = load_pack(pack, allow_outside=allow_outside)
        except PackError as err:
            fail(str(err), EXIT_USAGE if err.code == "LC009" else EXIT_PROBLEM)
        except LostCitiesError as err:
            fail(f"--pack: {err}", EXIT_USAGE)

    text = str(file)
    # the file's name starts every message: as given, unless it holds control characters
    name = "<stdin>" if text == "-" else text if text.isprintable() and len(text) < 256 \
        else shown_path(text)
    try:  # a regular file only (never blocks on a FIFO); lines are capped as they are read
        stream: TextIO = sys.stdin if str(file) == "-" else open_text(file)
    except LostCitiesError as err:
        fail(str(err), EXIT_USAGE)
    try:
        with stream:
            if check:
                checked = _check(stream, name, game, rules, force_pack)
                typer.echo(plain(f"{name}: {checked} match(es) replayed, every move and "
                                 f"score agrees"))
            else:
                _show(stream, name, game or 1, rules, force_pack)
    except LostCitiesError as err:
        fail(plain(err), EXIT_PROBLEM)


def _check(stream: TextIO, name: str, game: Optional[int], rules: Any,
           force_pack: bool = False) -> int:
    count = 0
    lines = line_count(stream) if game is None else 0
    with Progress(lines, "replaying", "lc replay", unit="lines") as tick:
        for index, (lineno, data) in enumerate(read_records(stream, name), 1):
            if game is None or index == game:
                run(data, pack=rules, where=f"{name}:{lineno}", force_pack=force_pack)
                count += 1
                if tick is not None:
                    tick(min(lineno, lines))
    if count == 0:
        _missing(name, game)
    return count


def line_count(stream: TextIO, chunk: int = 1 << 20) -> int:
    """The lines of a regular file opened as ``stream``, counted from its bytes without
    moving its position (0 for standard input or anything else: no progress is shown)."""
    try:
        fd = stream.fileno()
        if stream is sys.stdin or not stat.S_ISREG(os.fstat(fd).st_mode):
            return 0
        lines, offset, last = 0, 0, b"\n"
        while True:
            data = os.pread(fd, chunk, offset)
            if not data:
                break
            lines += data.count(b"\n")
            offset += len(data)
            last = data[-1:]
    except (OSError, ValueError, AttributeError):
        return 0
    return lines + (last != b"\n")


def _missing(name: str, game: Optional[int]) -> None:
    if game is None:
        fail(f"{name}: no records in the file", EXIT_PROBLEM)
    fail(f"--game {game}: {name} has fewer than {game} records", EXIT_USAGE)


def _show(stream: TextIO, name: str, game: int, rules: Any, force_pack: bool = False) -> None:

    for index, (lineno, data) in enumerate(read_records(stream, name), 1):
        if index == game:
            check_shape(data, f"{name}:{lineno}")
            # text from the record is never markup and loses its control characters
            console = Console(highlight=False, markup=False, emoji=False)
            view = _Viewer(console)
            players = ", ".join(map(str, data.get("players", [])))
            console.print(Text.assemble((plain(data.get("pack")), "bold"), plain(
                f", seed {data.get('seed')}: {players} ({name} line {lineno})")))
            final = run(data, pack=rules, where=f"{name}:{lineno}", on_turn=view.turn,
                        force_pack=force_pack)
            view.close_round(final)
            view.match(final, data.get("forfeit"))
            return
    _missing(name, game)


class _Viewer:
    """Prints a replay turn by turn, with each round's rows and scores."""

    def __init__(self, console: Any):
        self.console = console
        self.shown = 0           # rounds whose summary is printed
        self.current = 0

    def turn(self, state: "GameState", move: Any) -> None:
        """Print one turn (called by replay before the move is played)."""
        if len(state.finished) > self.shown:
            self.close_round(state)
        if state.round != self.current:
            self.current = state.round
            # "first to play: NAME" reads right whatever the name ("You", "Vous", "ismcts 1")
            self.console.rule(Text(plain(f"Round {state.round} of {state.rounds_total} - "
                                         f"first to play: {state.players[state.starter]}")))
        text = Text(plain(_with_card_taken(state, move, describe_move(state, move))))
        card = state.pack.cards.format(move.card)
        at = text.plain.find(card)
        if at >= 0:
            text.stylize(colour_style(state.pack, state.tables.colour_of[move.card]), at,
                         at + len(card))
        who = plain(state.players[state.to_move])
        self.console.print(Text(f"{state.turn + 1:>4}  {who:<12} ").append_text(text))

    def close_round(self, state: "GameState") -> None:
        """Print the rows and scores of every finished round not shown yet."""
        while self.shown < len(state.finished):
            result = state.finished[self.shown]
            self.shown += 1
            pack = state.pack
            table = Table(title=Text(plain(f"Round {result.number}: ended by {result.end} "
                                           f"after {len(result.moves)} turns")),
                          title_justify="left")
            table.add_column("player")
            for index, colour in enumerate(pack.colours):
                table.add_column(colour.key, style=colour_style(pack, index))
            board = bool(result.pawns)
            if board:
                table.add_column("tokens", justify="right")
                table.add_column("artef.", justify="right")
            table.add_column("score", justify="right")
            for seat, label in enumerate(state.players):
                cells = _rows(state, result, seat)
                if board:
                    cells = [f"{row}  {pawn}".strip() for row, pawn in
                             zip(cells, _pawns(pack, result.pawns[seat]))]
                    cells += [str(result.tokens[seat]), str(result.artefacts[seat])]
                table.add_row(Text(plain(label)), *cells, str(result.scores[seat]))
            if board:
                table.caption = (f"pawn positions after each row: @space, * the leader; "
                                 f"{result.crossings} bridge crossing(s)")
            self.console.print(table)

    def match(self, state: "GameState", forfeit: Optional[dict[str, Any]] = None) -> None:
        """Print the totals and the winner(s); ``forfeit``: the record's (checked by the
        replay), the seat that resigned or ran out of time, which never wins."""
        if forfeit is not None:
            why = "resigned" if forfeit["reason"] == "resign" else "ran out of time"
            self.console.print(Text(plain(
                f"Round {state.round} stopped after {len(state.moves)} turns: "
                f"{state.players[forfeit['seat']]} {why}, and forfeits the match."),
                style="bold"))
        scores = totals(state)
        # a colon after each name: "ismcts 1: 247", never "ismcts 1 247"
        self.console.print(Text(plain("totals: " + " · ".join(
            f"{label}: {score}" for label, score in zip(state.players, scores)))))
        best = winners(state) if forfeit is None else forfeit_winners(state, forfeit["seat"])
        names = plain(" and ".join(state.players[s] for s in best))
        score = scores[best[0]] if best else 0
        # the names are not the sentence's subject: right for any name, "You" included
        said = (f"Winners, sharing the win: {names}, with {score} points each." if len(best) > 1
                else f"Winner: {names}, with {score} points.")
        self.console.print(Text(said, style="bold"))
        self.console.print("Every move and every score checked.")


def _with_card_taken(state: "GameState", move: Any, sentence: str) -> str:
    """``sentence`` (the engine's ``describe_move``) saying which card a pile draw takes:
    ``takes g7 from the green pile``. Called before the move: the card taken is the
    pile's top after the move's discard."""
    if move.draw is None or move.draw == DECK:
        return sentence
    name = state.pack.colours[move.draw].name
    vague = f"takes the {name} pile's top"
    if not sentence.endswith(vague):
        return sentence  # the engine already says it
    pile = list(state.piles[move.draw])
    if move.action == DISCARD and state.tables.colour_of[move.card] == move.draw:
        pile.append(move.card)
    if not pile:
        return sentence
    card = state.pack.cards.format(pile[-1])
    return f"{sentence[:-len(vague)]}takes {card} from the {name} pile"


def _pawns(pack: Any, places: Any) -> list[str]:
    """Per colour, where the seat's pawn on that track ended (``@7*``: space 7, the leader)."""
    marks = [""] * len(pack.colours)
    for track, space, leader in places:
        if track >= 0:
            marks[track] = f"@{space}{'*' if leader else ''}"
    return marks


def _rows(state: "GameState", result: Any, seat: int) -> list[str]:
    """The seat's rows at the end of a finished round, rebuilt from its moves."""
    pack = state.pack
    rows: list[list[str]] = [[] for _ in pack.colours]
    for i, move in enumerate(result.moves):
        if (result.starter + i) % state.n == seat and move.action == PLAY:
            rows[state.tables.colour_of[move.card]].append(
                pack.cards.format(move.card)[1:])
    return [" ".join(r) or "-" for r in rows]
