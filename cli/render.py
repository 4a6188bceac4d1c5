"""How ``lc play`` looks: rich renderables built from what a player may see.

Pure functions, no input and no game logic: the table (:func:`table`), a
round's scoring (:func:`round_scores`), the match's end (:func:`match_end`),
the numbered moves (:func:`move_list`), a turn in words (:func:`describe`) and
the session's notes (:func:`note_text`). Cards are chips like ``[r5]`` drawn in
their colour; the letter is always there, so the table reads the same with
``NO_COLOR`` set or in a pipe (rich drops the colours by itself).

The table is built from sections: the expedition rows of every player with the
discard piles between them. A pack with a ``board`` section (pawns on tracks)
adds its tracks as one more section (:func:`_sections`) once the engine deals
board packs.

Text that comes from data (player names from the command line, a save or a record;
a pack's name, description and colour names) never reaches the terminal as it is:
:func:`plain` removes the control and format characters that could move the cursor,
clear the screen, set the window title or reverse the text (one rule with the server and
the rulebooks: :func:`lostcities.engine.safeio.plain_text`), and every renderable here is a
:class:`~rich.text.Text`, never parsed as rich markup (``rich.markup.escape`` is no
substitute: a backslash before the end of the text or before a ``[`` does not print
back as written). :func:`plain_json` writes JSON whose strings escape the same
characters. The other ``lc`` commands that print data (``score``, ``show``,
``packs``, ``replay``) use the same helpers.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence

from rich import box
from rich.color import Color, ColorParseError
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from lostcities.engine import PLAY
from lostcities.engine.tooling import tile_has_value

from lostcities.entry import move_notes
from lostcities.i18n.rulebook import NBSP

from .common import plain, plain_json  # noqa: F401 (plain_json: re-exported, its old place)

if TYPE_CHECKING:
    from lostcities.engine import Move, Observation, RoundResult, RulePack
    from lostcities.i18n import Catalogue

    from .session import Note, Turn

#: rich styles for the expedition colours by their name in the pack; other names are
#: tried as rich colour names, then take a style from PALETTE by position
COLOUR_STYLES: dict[str, str] = {"yellow": "bold yellow", "blue": "bold blue",
                                 "white": "bold bright_white", "green": "bold green",
                                 "red": "bold red", "purple": "bold magenta"}
PALETTE = ("bold cyan", "bold bright_yellow", "bold bright_blue", "bold bright_green",
           "bold bright_red", "bold bright_magenta")
#: the board game's pawns, by seat (numbers tell them apart without colours)
SEAT_STYLES = ("bold cyan", "bold magenta", "bold bright_green", "bold bright_yellow")
#: the board game's event tiles (points tiles show their value: +5)
TILE_MARKS = {"artefact": "◆", "step": "»"}


def colour_style(pack: "RulePack", colour: int) -> str:
    """The rich style of the pack's ``colour`` (an index)."""
    name = pack.colours[colour].name.lower()
    if name in COLOUR_STYLES:
        return COLOUR_STYLES[name]
    try:
        Color.parse(name)
        return f"bold {name}"
    except ColorParseError:
        return PALETTE[colour % len(PALETTE)]


def chip(pack: "RulePack", card: int, *, dim: bool = False) -> Text:
    """A card as ``[r5]`` in its colour (dimmed: a card you can only discard)."""
    style = colour_style(pack, pack.cards.colour_of[card])
    return Text(f"[{pack.cards.format(card)}]", style=f"{style} dim" if dim else style)


def chips(pack: "RulePack", cards: Sequence[int], dim: Sequence[int] = ()) -> Text:
    """Cards as chips separated by spaces."""
    return Text(" ").join(chip(pack, c, dim=c in dim) for c in cards)


def _row_cells(pack: "RulePack", row: Sequence[int]) -> Text:
    """One expedition row in its column: values in play order, ``x`` for a wager."""
    codec = pack.cards
    if not row:
        return Text("·", style="dim")
    style = colour_style(pack, codec.colour_of[row[0]])
    return Text(" ".join(codec.format(c)[1:] for c in row), style=style)


def _player_label(obs: "Observation", seat: int, cat: "Catalogue",
                  me: Optional[int]) -> Text:
    name = obs.players[seat]
    text = Text()
    if obs.to_move == seat and obs.phase != "over":
        text.append("▶ ", style="bold")
    text.append(plain(name), style="bold" if seat == me else "")
    if seat != me:
        text.append("\n" + cat("table.cards-in-hand", count=obs.hand_sizes[seat]), style="dim")
    return text


#: a colour column's width: even when the terminal has room, down to NARROW when not
#: (every header then takes two lines, key above name, a name longer than the column
#: cut with "…", so that the headers wrap alike)
COLOUR_WIDTH, NARROW = 8, 6


def _rows_table(obs: "Observation", pack: "RulePack", cat: "Catalogue", me: Optional[int],
                live: Sequence[int], width: Optional[int] = None) -> Table:
    """Every player's expedition rows, one column per colour, the discard piles between."""
    table = Table(box=box.ROUNDED, show_lines=False, padding=(0, 1), expand=False,
                  header_style="bold")
    table.add_column("", no_wrap=True, min_width=10)
    n_colours = len(pack.colours)
    # label, colours, score (each with padding), and the borders between them
    score = max(len(cat("table.round-score")), len(cat("table.deck", count=obs.draw_pile)),
                *(len(str(v)) for v in live))
    wide = 12 + n_colours * (COLOUR_WIDTH + 2) + score + 2 + n_colours + 3
    narrow = width is not None and wide > width
    for c, colour in enumerate(pack.colours):
        name = plain(cat.colour(colour.name))
        if narrow:
            name = name if len(name) <= NARROW else name[:NARROW - 1] + "…"
        header = Text(f"{colour.key}{chr(10) if narrow else ' '}{name}",
                      style=colour_style(pack, c), justify="center")
        table.add_column(header, justify="center", min_width=NARROW if narrow else COLOUR_WIDTH,
                         max_width=NARROW if narrow else None)
    table.add_column(cat("table.round-score"), justify="right", no_wrap=True)
    n = len(obs.players)
    bottom = me if me is not None else n - 1
    others = [(bottom + k) % n for k in range(1, n)]
    for seat in others:
        table.add_row(_player_label(obs, seat, cat, me),
                      *(_row_cells(pack, row) for row in obs.rows[seat]),
                      Text(str(live[seat])), end_section=True)
    piles = []
    for c in range(len(pack.colours)):
        top = obs.pile_tops[c]
        if top is None:
            piles.append(Text("·", style="dim"))
        else:
            cell = chip(pack, top)
            if obs.pile_sizes[c] > 1:
                cell.append(f" +{obs.pile_sizes[c] - 1}", style="dim")
            piles.append(cell)
    table.add_row(Text(cat("table.discards"), style="italic"), *piles,
                  Text(cat("table.deck", count=obs.draw_pile), style="italic"),
                  end_section=True)
    table.add_row(_player_label(obs, bottom, cat, me),
                  *(_row_cells(pack, row) for row in obs.rows[bottom]),
                  Text(str(live[bottom]), style="bold" if bottom == me else ""))
    return table


def _sections(obs: "Observation", pack: "RulePack", cat: "Catalogue", me: Optional[int],
              live: Sequence[int], width: Optional[int] = None) -> list[RenderableType]:
    """The table's areas: the board game's tracks (when the pack has a board), then
    every player's rows with the discard piles."""
    rows = _rows_table(obs, pack, cat, me, live, width)
    return [rows] if obs.board is None else [_board(obs, pack, cat), rows]


def seat_mark(seat: int, leader: bool = False) -> Text:
    """A pawn on the board: the seat's number from 1, ``*`` for a leader, in the seat's style."""
    return Text(f"{seat + 1}{'*' if leader else ''}", style=SEAT_STYLES[seat % len(SEAT_STYLES)])


def _tile_mark(kind: str, value: int) -> Text:
    return Text(f"+{value}" if tile_has_value(kind) else TILE_MARKS.get(kind, kind[:1]),
                style="dim")


def _board(obs: "Observation", pack: "RulePack", cat: "Catalogue") -> Group:
    """The tracks, one row per colour: the tiles still on the board and every pawn
    (seat number, ``*`` for a leader), the bridge, the points of each space, and each
    player's tokens, artefacts and pawns in the centre."""
    board = obs.board
    assert board is not None
    spaces = range(1, board.spaces + 1)
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), header_style="bold", pad_edge=False)
    table.add_column(cat("board.space"), no_wrap=True)
    for space in spaces:
        table.add_column(str(space), justify="center", min_width=3)
        if space == board.bridge_after:
            table.add_column("‖", justify="center", width=1)

    def line(label: Text, cells: dict[int, Text]) -> list[Text]:
        out = [label]
        for space in spaces:
            out.append(cells.get(space, Text("·", style="dim")))
            if space == board.bridge_after:
                out.append(Text("‖", style="dim"))
        return out

    values = {tuple(pack.scoring.pawn(t, space, False) for space in spaces)
              for t in range(len(pack.colours))}
    if len(values) == 1:  # the same points on every track: one row says them
        points = dict(zip(spaces, (Text(str(v), style="dim") for v in values.pop())))
        table.add_row(*line(Text(cat("board.points"), style="dim"), points), end_section=True)
    cells: dict[tuple[int, int], Text] = {}
    for track, space, kind, value in board.tiles:
        cells[track, space] = _tile_mark(kind, value)
    for seat, pawns in enumerate(board.pawns):
        for track, space, leader in pawns:
            if track >= 0:
                cell = cells.setdefault((track, space), Text())
                cell.append_text(Text(" ") if cell.plain else Text()).append_text(
                    seat_mark(seat, leader))
    for track, colour in enumerate(pack.colours):
        label = Text(f"{colour.key} {plain(cat.colour(colour.name))}",
                     style=colour_style(pack, track))
        table.add_row(*line(label, {space: cells[t, space] for t, space in cells
                                    if t == track}))
    title = cat("board.title", crossings=board.crossings, end=board.crossings_to_end) \
        if board.crossings_to_end else cat("board.title-open", crossings=board.crossings)
    players = []
    for seat, name in enumerate(obs.players):
        centre = [leader for track, _, leader in board.pawns[seat] if track < 0]
        text = Text()
        text.append_text(seat_mark(seat))
        text.append(" " + cat("board.player", mark="", name=plain(name),
                              tokens=board.tokens[seat],
                              artefacts=board.artefacts[seat],
                              centre=f"{len(centre)}{' (*)' if any(centre) else ''}").strip())
        players.append(text)
    return Group(Text(title, style="bold"), table, *players,
                 Text(cat("board.legend"), style="dim"))


def table(obs: "Observation", pack: "RulePack", cat: "Catalogue", *, me: Optional[int],
          live: Sequence[int], hide_hand: bool = False,
          discard_only: Sequence[int] = (), width: Optional[int] = None) -> Group:
    """The whole table as ``me`` sees it (``me`` None: a spectator, no hand shown), under
    the pack's name (a built-in pack's in the catalogue's language, a house pack's as written).

    ``live``: each player's score if the round ended now; ``discard_only``: cards of
    the hand no row accepts (drawn dimmed); ``width``: the terminal's, to narrow the
    colour columns when six do not fit.
    """
    head = Text()
    head.append(plain(cat.pack_name(pack.id, pack.name)), style="bold")
    head.append("  ·  " + cat("table.round", round=obs.round, rounds=obs.rounds))
    head.append("  ·  " + cat("table.turn", turn=obs.turn + 1))
    parts: list[RenderableType] = [head, *_sections(obs, pack, cat, me, live, width)]
    if me is not None:
        hand = Text(cat("table.hand", name=plain(obs.players[me])) + "  ", style="bold")
        if hide_hand:
            hand.append(cat("table.hand-hidden"), style="dim")
        else:
            hand.append_text(chips(pack, obs.hand, discard_only))
        parts.append(hand)
    if obs.round_scores:
        parts.append(Text(cat("table.totals", rounds=len(obs.round_scores)) + "  " + "  ·  ".join(
            f"{plain(name)}: {score}" for name, score in zip(obs.players, obs.totals))))
    return Group(*parts)


# --------------------------------------------------------------------------- turns and notes

def note_text(note: "Note", cat: "Catalogue") -> str:
    """A session note in the catalogue's language (colour names translated; text
    parameters, names and paths from data, :func:`plain`)."""
    params = {k: plain(cat.colour(v) if k == "colour" or k.endswith("_colour") else v)
              if isinstance(v, str) else v for k, v in note.params.items()}
    return cat(note.key, **params)


def describe(turn: "Turn", pack: "RulePack", label: str, cat: "Catalogue", *,
             you: bool = False) -> Text:
    """A turn in words: ``greedy discards [r4] and takes [g7] from the green pile.``

    ``you``: the turn is the (lone) human's, said in the second person.
    """
    move = turn.move
    (key, params), *more = move_notes(pack, move, "\0who\0", you=you)
    colour = plain(cat.colour(params["colour"])) if params["colour"] else ""
    cards = {"card": move.card, "taken": turn.taken}
    sentence = cat(key, who="\0who\0", card="\0card\0", taken="\0taken\0", colour=colour)
    text = Text()
    for i, part in enumerate(sentence.split("\0")):
        if i % 2 == 0:
            text.append(part)
        elif part == "who":
            text.append(plain(label), style="bold")
        elif cards.get(part) is not None:
            text.append_text(chip(pack, cards[part]))  # type: ignore[arg-type]
    for key, params in more:  # the board game: the pawn sent, the pawns moved on
        text.append(" " + cat(key, **{name: plain(cat.colour(value)) if name == "colour" else value
                                      for name, value in params.items()}))
    return text


def move_list(moves: Sequence["Move"], cat: "Catalogue", width: int = 80) -> RenderableType:
    """The legal moves numbered from 1 (a number plays that move), never longer than
    :data:`MOVE_LIST_LINES` lines at ``width`` columns: in columns when they fit and no
    move has a board decision (a pawn, steps), else grouped by card (:func:`moves_by_card`)."""
    texts = [f"{i:>3}  {m.text()}" for i, m in enumerate(moves, 1)]
    board = any(m.pawn is not None or m.steps for m in moves)
    if not board and _column_rows(texts, width) <= MOVE_LIST_LINES:
        return Columns([Text(t) for t in texts], padding=(0, COLUMN_GAP), column_first=True)
    return Text("\n".join(moves_by_card(moves, cat, width)))


#: the most lines ``moves`` prints under its title: with the title and the prompt, a
#: 24-line terminal shows the whole list
MOVE_LIST_LINES = 22
#: spaces between two columns of numbered moves
COLUMN_GAP = 3


def _column_rows(texts: Sequence[str], width: int) -> int:
    """The rows rich's :class:`Columns` takes for ``texts`` (one width for all) at ``width``."""
    cell = max((len(t) for t in texts), default=0) + COLUMN_GAP
    across = max(1, (width + COLUMN_GAP) // max(cell, 1))
    return -(-len(texts) // across)


@dataclass
class _Choice:
    """Consecutive moves of :func:`moves_by_card` that differ only in their draw: moves
    ``first`` to ``last`` (numbered from 1), the draws in their order."""

    action: str       # as the move's text says it: p, d
    card: int
    rest: str         # the words between the card and the draw: pawn=1, step=r step=none
    first: int
    last: int
    draws: tuple[str, ...]

    def numbers(self) -> str:
        return _span(self.first, self.last)


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def moves_by_card(moves: Sequence["Move"], cat: "Catalogue", width: int = 80) -> list[str]:
    """The numbered moves grouped by card, one card a line (``[y6]  p 1-4 step=y · 5-8
    step=w   d 37-40``): a range is one choice of the card taken with each of its draws in
    turn, in the order the line above them says (``deck, y, w, g``; another order is given
    after its range). Lines longer than ``width`` wrap, never inside a choice; when that
    would take more than :data:`MOVE_LIST_LINES` lines, each card gives its ranges per
    action only, then the cards share lines, and at last the lines past the screen give way
    to one saying to type the card instead (a list no pack deals: a room's, which is data)."""
    choices: list[_Choice] = []
    for number, move in enumerate(moves, 1):
        words = move.text().split(" ")
        rest = " ".join(words[2:-1] if move.draw is not None else words[2:])
        draw = (words[-1],) if move.draw is not None else ()
        last = choices[-1] if choices else None
        if last is not None and (last.action, last.card, last.rest, last.last) == \
                (words[0], move.card, rest, number - 1):
            last.last, last.draws = number, last.draws + draw
        else:
            choices.append(_Choice(words[0], move.card, rest, number, number, draw))
    drawn = [c.draws for c in choices if len(c.draws) > 1]
    common = max(drawn, key=drawn.count) if drawn else ()
    if 2 * drawn.count(common) <= len(drawn):  # no order most ranges share: each says its own
        common = ()
    legend = cat("moves.ranges", draws=", ".join(common)) if common else \
        cat("moves.ranges-listed") if drawn else ""
    codec = moves[0].codec if moves else None
    cards = sorted(dict.fromkeys(c.card for c in choices),
                   key=codec.sort_key if codec is not None else None)
    shown = {card: f"[{codec.format(card) if codec is not None else card}]" for card in cards}
    pad = max((len(label) for label in shown.values()), default=0) + 2

    def whole(text: str) -> str:  # a choice is never cut by a line break
        return text.replace(" ", NBSP)

    def wrapped(text: str, first: str, rest: str) -> list[str]:
        return [line.replace(NBSP, " ") for line in textwrap.wrap(
            text, max(width - 1, 20), initial_indent=first, subsequent_indent=rest,
            break_on_hyphens=False, break_long_words=False)]

    def by_action(card: int) -> list[list[_Choice]]:
        mine = [c for c in choices if c.card == card]
        return [[c for c in mine if c.action == action]
                for action in dict.fromkeys(c.action for c in mine)]

    def detailed(card: int) -> str:
        return "   ".join(whole(f"{group[0].action} ") + " · ".join(
            whole(" ".join(filter(None, (c.numbers(), c.rest, "" if c.draws == common or
                                         len(c.draws) < 2 else f"({' '.join(c.draws)})"))))
            for c in group) for group in by_action(card))

    def brief(card: int) -> str:  # the ranges only, consecutive choices merged
        said = []
        for group in by_action(card):
            spans: list[list[int]] = []
            for c in group:
                if spans and spans[-1][1] == c.first - 1:
                    spans[-1][1] = c.last
                else:
                    spans.append([c.first, c.last])
            said.append(whole(f"{group[0].action} ") + ", ".join(_span(*x) for x in spans))
        return " · ".join(said)

    head = wrapped(legend, "", "") if legend else []
    for say in (detailed, brief):
        lines = list(head)
        for card in cards:
            lines += wrapped(whole(f"{shown[card]:<{pad}}") + say(card), "  ", " " * (pad + 4))
        if len(lines) <= MOVE_LIST_LINES:
            return lines
    flowed = "  ·  ".join(whole(f"{shown[card]} ") + brief(card) for card in cards)
    lines = head + wrapped(flowed, "  ", "  ")
    if len(lines) <= MOVE_LIST_LINES:
        return lines
    cut = wrapped(cat("moves.cut"), "  ", "  ")
    return lines[:MOVE_LIST_LINES - len(cut)] + cut


# --------------------------------------------------------------------------- round and match end

def round_rows(result: "RoundResult", players: int, pack: "RulePack") -> list[list[list[int]]]:
    """Each seat's rows at the end of a finished round, rebuilt from its moves."""
    rows: list[list[list[int]]] = [[[] for _ in pack.colours] for _ in range(players)]
    for i, move in enumerate(result.moves):
        if move.action == PLAY:
            rows[(result.starter + i) % players][pack.cards.colour_of[move.card]].append(move.card)
    return rows


def round_scores(result: "RoundResult", labels: Sequence[str], pack: "RulePack",
                 cat: "Catalogue", totals: Sequence[int]) -> Group:
    """A finished round: each started row with the pack's breakdown columns and its
    score (packs that score expeditions), each engaged pawn with its space and score,
    tokens and artefacts (packs with a board), each player's round score, and the
    totals so far."""
    labels = [plain(label) for label in labels]
    title = Text(cat("result.title", round=result.number,
                     reason=cat.get(f"end.{result.end}", result.end)), style="bold")
    parts: list[RenderableType] = [title]
    if "expedition" in pack.scoring_spec.formulas:
        parts.append(_row_scores(result, labels, pack, cat))
    if result.pawns:
        parts.append(_pawn_scores(result, labels, pack, cat))
    parts.append(Text(cat("table.totals", rounds=result.number) + "  " + "  ·  ".join(
        f"{name}: {score}" for name, score in zip(labels, totals))))
    return Group(*parts)


def _result_table(cat: "Catalogue", first: str, columns: Sequence[str]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), header_style="bold")
    table.add_column(cat("result.player"))
    table.add_column(first)
    for name in columns:
        table.add_column(Text(plain(name)), justify="right")
    table.add_column(cat("result.score"), justify="right", style="bold")
    return table


def _row_scores(result: "RoundResult", labels: Sequence[str], pack: "RulePack",
                cat: "Catalogue") -> Table:
    """Each started row: its cards, the pack's breakdown columns, its score."""
    scoring = pack.scoring
    codec = pack.cards
    columns = list(scoring.columns)
    table = _result_table(cat, cat("result.row"),
                          [cat("result.cards"), *(cat.get(f"column.{n}", n) for n in columns)])
    rows = round_rows(result, len(labels), pack)
    for seat, label in enumerate(labels):
        first = True
        for colour, row in enumerate(rows[seat]):
            if not row:
                continue
            values = [codec.value_of[k] for k in row if codec.value_of[k] is not None]
            wagers = len(row) - len(values)
            parts = scoring.breakdown(colour, values, wagers)
            table.add_row(Text(label if first else ""),
                          Text(plain(cat.colour(pack.colours[colour].name)),
                               style=colour_style(pack, colour)),
                          _row_cells(pack, row), *(str(parts[name]) for name in columns),
                          str(scoring.expedition(colour, values, wagers)))
            first = False
        if not result.pawns:
            table.add_row(Text(label if first else ""), Text(cat("result.round-total"),
                                                       style="italic"),
                          "", *("" for _ in columns), str(result.scores[seat]),
                          end_section=True)
    return table


def _pawn_scores(result: "RoundResult", labels: Sequence[str], pack: "RulePack",
                 cat: "Catalogue") -> Table:
    """The board game: each engaged pawn's track, space and score by the pack's pawn
    formula, then the tokens and artefacts taken and the round score."""
    table = _result_table(cat, cat("result.pawn"), [cat("result.space")])
    for seat, label in enumerate(labels):
        first = True
        for track, space, leader in result.pawns[seat]:
            if track < 0:
                continue
            name = Text(plain(cat.colour(pack.colours[track].name)),
                        style=colour_style(pack, track))
            if leader:
                name.append(f" ({cat('result.leader')})")
            table.add_row(Text(label if first else ""), name, str(space),
                          str(pack.scoring.pawn(track, space, leader)))
            first = False
        table.add_row(Text(label if first else ""), Text(cat("result.tokens"), style="italic"),
                      "",
                      str(result.tokens[seat]))
        table.add_row("", Text(cat("result.artefacts", count=result.artefacts[seat]),
                               style="italic"), "", "")
        table.add_row("", Text(cat("result.round-total"), style="italic"), "",
                      str(result.scores[seat]), end_section=True)
    return table


def match_end(labels: Sequence[str], rounds: Sequence[Sequence[int]], totals: Sequence[int],
              winners: Sequence[int], cat: "Catalogue") -> Group:
    """The match's end: every round's score per player, the totals and the winner(s)."""
    labels = [plain(label) for label in labels]
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), header_style="bold")
    table.add_column(cat("result.player"))
    for i in range(len(rounds)):
        table.add_column(cat("result.round-n", round=i + 1), justify="right")
    # what the match formula adds to the rounds (the board game's artefacts): its own column
    bonus = [totals[seat] - sum(r[seat] for r in rounds) for seat in range(len(labels))]
    if any(bonus):
        table.add_column(cat("result.match-bonus"), justify="right")
    table.add_column(cat("result.total"), justify="right", style="bold")
    for seat, label in enumerate(labels):
        table.add_row(Text(label), *(str(r[seat]) for r in rounds),
                      *([str(bonus[seat])] if any(bonus) else []), str(totals[seat]))
    names = [labels[s] for s in winners]
    key = "result.winner" if len(names) == 1 else "result.shared"
    return Group(Text(cat("result.match-over"), style="bold"), table,
                 Text(cat(key, names=cat("result.and").join(names), score=totals[winners[0]]),
                      style="bold green"))


def pass_screen(name: str, cat: "Catalogue") -> Any:
    """The hotseat pause that hides the next hand."""
    return Panel(Text(cat("hotseat.pass", name=plain(name)), justify="center"), box=box.DOUBLE,
                 padding=(1, 4))


# --------------------------------------------------------------------------- a room's messages

def round_message(message: dict[str, Any], pack: "RulePack", cat: "Catalogue") -> Group:
    """A finished round as a room's ``round`` message gives it (docs/server.md): the same
    breakdown as :func:`round_scores` (each started row with the pack's columns and its
    score; each engaged pawn with its space and score, the tokens and artefacts), drawn
    from the message alone. Every text is :func:`plain`; raises :class:`ValueError` for a
    message that does not have the shape (the caller says so in one line)."""
    try:
        return _round_message(message, pack, cat)
    except (KeyError, TypeError, IndexError, AttributeError) as err:
        raise ValueError(f"a round message the client cannot read ({type(err).__name__})") \
            from None


def _round_message(message: dict[str, Any], pack: "RulePack", cat: "Catalogue") -> Group:
    codec = pack.cards
    keys = list(codec.keys)
    end = plain(message["end"])
    title = Text(cat("result.title", round=int(message["number"]),
                     reason=cat.get(f"end.{end}", end)), style="bold")
    parts: list[RenderableType] = [title]
    seats = list(message["seats"])[:pack.max_players]
    labels = [plain(seat["name"]) for seat in seats]
    columns = [plain(c) for c in list(message.get("columns") or [])[:20]]

    def colour_name(key: Any) -> Text:
        index = keys.index(key) if key in keys else None
        if index is None:
            return Text(plain(key))
        return Text(plain(cat.colour(pack.colours[index].name)), style=colour_style(pack, index))

    def cards_cell(cards: Sequence[Any]) -> Text:
        shown = []
        for text in list(cards)[:len(codec.colour_of)]:
            try:
                shown.append(codec.parse(str(text)))
            except Exception:  # noqa: BLE001 - data: shown as text below
                return Text(" ".join(plain(c) for c in cards))
        return _row_cells(pack, shown)

    if any(seat.get("rows") for seat in seats) or columns:
        table = _result_table(cat, cat("result.row"),
                              [cat("result.cards"), *(cat.get(f"column.{n}", n) for n in columns)])
        for seat, label in zip(seats, labels):
            first = True
            for row in list(seat.get("rows") or [])[:len(keys)]:
                table.add_row(Text(label if first else ""), colour_name(row["colour"]),
                              cards_cell(row["cards"]),
                              *(plain(row["parts"].get(name, "")) for name in columns),
                              plain(row["score"]))
                first = False
            if not seat.get("pawns"):
                table.add_row(Text(label if first else ""),
                              Text(cat("result.round-total"), style="italic"), "",
                              *("" for _ in columns), plain(seat["score"]), end_section=True)
        parts.append(table)
    if any(seat.get("pawns") for seat in seats) or pack.board is not None:
        table = _result_table(cat, cat("result.pawn"), [cat("result.space")])
        for seat, label in zip(seats, labels):
            first = True
            for pawn in list(seat.get("pawns") or [])[:50]:
                name = colour_name(pawn["track"])
                if pawn.get("leader"):
                    name.append(f" ({cat('result.leader')})")
                table.add_row(Text(label if first else ""), name, plain(pawn["space"]),
                              plain(pawn["score"]))
                first = False
            table.add_row(Text(label if first else ""),
                          Text(cat("result.tokens"), style="italic"), "",
                          plain(seat.get("tokens", 0)))
            table.add_row("", Text(cat("result.artefacts", count=int(seat.get("artefacts", 0))),
                                   style="italic"), "", "")
            table.add_row("", Text(cat("result.round-total"), style="italic"), "",
                          plain(seat["score"]), end_section=True)
        parts.append(table)
    totals = list(message["totals"])
    parts.append(Text(cat("table.totals", rounds=int(message["number"])) + "  " + "  ·  ".join(
        f"{name}: {plain(score)}" for name, score in zip(labels, totals))))
    return Group(*parts)
