"""What ``lc play`` shows: the table, turns in words, round and match results, and the
English and French catalogues."""
from __future__ import annotations

import io
import json
import re
from importlib.resources import files

import pytest
from rich.console import Console

from enginehelpers import complete_deal, pack
from lostcities.cli import render
from lostcities.i18n import LANGS, Catalogue, detect_lang, load_messages
from lostcities.cli.session import BOT, HUMAN, Player, Session
from lostcities.engine.game.turn import live_scores, totals
from lostcities.engine.game.view import observation

CLASSIC = pack("duel-classic")
EN, FR = Catalogue("en"), Catalogue("fr")


def text_of(renderable, *, color: bool = False, width: int = 120) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, no_color=not color,
                      color_system="standard" if color else None, force_terminal=color)
    console.print(renderable)
    return out.getvalue()


def position() -> Session:
    """Seat 0 ("You") has played r3 r5 and a wager on blue; seat 1 discarded g9 then g8."""
    from lostcities.engine.game.turn import new_game

    s = Session(CLASSIC, [Player(HUMAN, "You"), Player(HUMAN, "greedy")], 1)
    s.state = new_game(CLASSIC, ["You", "greedy"], 1, deals=[complete_deal(
        CLASSIC, ["r3 r5 bx b4 y2 w6 w7 g2", "g9 g8 y9 y10 w2 w3 w4 w5"], top="r9 b2 y3 y4")])
    for line in ("p r3 deck", "d g9 deck", "p bx deck", "d g8 deck", "p r5 deck"):
        assert s.command(line).kind == "moved", line
    return s


def board(s: Session, cat=EN, **kw) -> str:
    obs = observation(s.state, 0)
    return text_of(render.table(obs, s.pack, cat, me=0, live=live_scores(s.state), **kw))


def test_the_table_shows_rows_piles_hand_and_scores_without_colour():
    s = position()
    out = board(s)
    lines = out.splitlines()
    assert "Lost Cities – the duel  ·  round 1 of 3  ·  turn 6" in lines[0]
    header = next(l for l in lines if "yellow" in l)
    for name in ("y yellow", "b blue", "w white", "g green", "r red"):
        assert name in header
    greedy = next(i for i, l in enumerate(lines) if "greedy" in l)
    piles = next(i for i, l in enumerate(lines) if "discards" in l)
    you = next(i for i, l in enumerate(lines) if "You" in l and "hand" not in l)
    assert greedy < piles < you                 # the opponent above, you below
    assert "8 cards" in lines[greedy + 1]
    assert "[g8] +1" in lines[piles] and "deck: 39" in lines[piles]
    assert re.search(r"│\s+x\s+│.*│\s+3 5\s+│", lines[you])  # blue wager, red 3 5
    assert "▶ greedy" in lines[greedy] and "▶" not in lines[you]
    assert lines[you].rstrip("│ ").endswith(str(live_scores(s.state)[0]))
    hand = next(l for l in lines if l.startswith("Your hand"))
    obs = observation(s.state, 0)
    assert hand.split("  ", 1)[1].split() == [f"[{CLASSIC.cards.format(c)}]" for c in obs.hand]
    assert obs.hand == tuple(sorted(obs.hand, key=CLASSIC.cards.sort_key))


@pytest.mark.parametrize("width", [80, 100])
def test_six_colours_fit_an_80_column_terminal(width):
    six = pack("duel-six")
    s = Session(six, [Player(HUMAN, "You"), Player(HUMAN, "greedy")], 4)
    obs = observation(s.state, 0)
    out = text_of(render.table(obs, six, EN, me=0, live=live_scores(s.state), width=width),
                  width=width)
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= width
    table = [line for line in lines if line[:1] in "╭│├╰"]
    assert all(line.endswith(("╮", "│", "┤", "╯")) for line in table)   # nothing cropped
    assert any("round" in line for line in table) and any("deck: " in line for line in table)
    for name in ("yellow", "purple"):
        assert any(name in line for line in table)
    header = next(i for i, line in enumerate(table) if "purple" in line)
    # with room, every colour header holds on one line; at 80 columns key above name
    assert ("y yellow" in table[header]) == (width == 100)


def test_the_table_in_colour_and_hidden_hands():
    s = position()
    coloured = text_of(render.table(observation(s.state, 0), CLASSIC, EN, me=0, live=(0, 0)),
                       color=True)
    assert "\x1b[" in coloured and "[r" not in board(s, hide_hand=True).split("Your hand")[1]
    assert "(hidden)" in board(s, hide_hand=True)
    spectator = text_of(render.table(observation(s.state, 0), CLASSIC, EN, me=None, live=(0, 0)))
    assert "Your hand" not in spectator and "You" in spectator and "greedy" in spectator


def test_the_table_in_french():
    out = board(position(), FR)
    assert "manche 1 sur 3" in out and "y jaune" in out and "défausses" in out
    assert "Votre main" in out and "pioche 39" in out


def test_unknown_colour_names_still_get_a_style():
    assert render.colour_style(CLASSIC, 0) == "bold yellow"
    six = pack("duel-six")
    assert render.colour_style(six, 5) == "bold magenta"


def test_turns_in_words():
    s = Session(CLASSIC, [Player(HUMAN, "You"), Player(HUMAN, "Bob")], 1)
    from lostcities.engine.game.turn import new_game

    s.state = new_game(CLASSIC, ["You", "Bob"], 1, deals=[complete_deal(
        CLASSIC, ["r3 r5 bx b4 y2 w6 w7 g2", "g9 g8 y9 y10 w2 w3 w4 w5"], top="r9")])
    first = s.command("d w6 deck").turns[0]
    second = s.command("p g9 w").turns[0]
    assert text_of(render.describe(first, CLASSIC, "You", EN, you=True)).strip() == \
        "You discard [w6] and draw from the deck."
    assert text_of(render.describe(second, CLASSIC, "Bob", EN)).strip() == \
        "Bob plays [g9] and takes [w6] from the white pile."
    assert text_of(render.describe(second, CLASSIC, "Bob", FR)).strip() == \
        "Bob pose [g9] et prend [w6] sur la défausse blanche."


def test_round_scores_show_the_packs_breakdown():
    s = Session(CLASSIC, [Player(BOT, "greedy", "greedy"), Player(BOT, "random", "random")], 3)
    turn = s.play_bot()
    while turn.ended is None:
        turn = s.play_bot()
    result = turn.ended
    out = text_of(render.round_scores(result, ["greedy", "random"], CLASSIC, EN,
                                      totals(s.state)))
    assert out.startswith("Round 1 is over: the draw pile is empty.")
    assert re.search(r"player\s+row\s+cards\s+sum\s+cost\s+×\s+bonus\s+score", out)
    rows = render.round_rows(result, 2, CLASSIC)
    codec = CLASSIC.cards
    for seat, label in enumerate(["greedy", "random"]):
        for colour, row in enumerate(rows[seat]):
            if not row:
                continue
            values = [codec.value_of[k] for k in row if codec.value_of[k] is not None]
            parts = CLASSIC.scoring.breakdown(colour, values, len(row) - len(values))
            score = CLASSIC.scoring.expedition(colour, values, len(row) - len(values))
            cells = " ".join(codec.format(k)[1:] for k in row)
            pattern = (rf"{CLASSIC.colours[colour].name}\s+{re.escape(cells)}\s+{parts['sum']}\s+"
                       rf"{parts['cost']}\s+{parts['multiplier']}\s+{parts['bonus']}\s+{score}\b")
            assert re.search(pattern, out), (pattern, out)
        assert re.search(rf"round score\s+{result.scores[seat]}\b", out)
    assert f"Totals after round 1:  greedy: {totals(s.state)[0]}  ·  random: " in out
    # every played card is in the rows once
    assert sum(len(r) for rows_ in rows for r in rows_) == sum(
        m.action == "play" for m in result.moves)


def test_match_end_names_the_winner_or_the_shared_win():
    out = text_of(render.match_end(["You", "greedy"], [(10, 5), (3, 20)], (13, 25), (1,), EN))
    assert re.search(r"You\s+10\s+3\s+13", out) and "Winner: greedy, with 25 points!" in out
    shared = text_of(render.match_end(["A", "B"], [(4, 4)], (4, 4), (0, 1), FR))
    assert "Victoire partagée : A et B, avec 4 points chacun !" in shared


def test_move_list_is_numbered_from_one():
    s = position()
    from lostcities.engine.game.turn import legal_moves

    moves = legal_moves(s.state)
    out = text_of(render.move_list(moves, EN))
    for i, move in enumerate(moves, 1):
        assert re.search(rf"(^|\s){i}\s+{re.escape(str(move))}(\s|$)", out, re.M)


def test_notes_translate_colour_parameters():
    from lostcities.cli.session import Note

    note = Note("illegal.pile-empty", {"colour": "green"})
    assert render.note_text(note, EN) == "the green discard pile is empty"
    assert render.note_text(note, FR) == "la défausse verte est vide"


# --------------------------------------------------------------------------- catalogues

def placeholders(text: str) -> set[str]:
    return set(re.findall(r"{(\w+)}", text))


def test_french_has_every_english_key_with_the_same_placeholders():
    en, fr = load_messages("en"), load_messages("fr")
    assert set(en) == set(fr)
    for key in en:
        assert placeholders(en[key]) == placeholders(fr[key]), key
        assert fr[key].strip(), key


def test_catalogues_load_as_package_resources():
    for lang in LANGS:
        assert json.loads(files("lostcities.i18n").joinpath(f"messages_{lang}.json").read_text())


def test_no_key_is_in_two_parts_of_a_catalogue():
    from lostcities.i18n import PARTS

    for lang in LANGS:
        seen: dict[str, str] = {}
        for part in PARTS:
            source = files("lostcities.i18n").joinpath(f"{part}_{lang}.json")
            for key in (json.loads(source.read_text()) if source.is_file() else {}):
                assert key not in seen, f"{key} in {seen.get(key)} and {part}"
                seen[key] = part


def test_every_key_the_code_uses_is_in_the_catalogue():
    from pathlib import Path

    root = Path(render.__file__).parent
    used: set[str] = set()
    for name in ("session.py", "render.py", "play.py"):
        source = (root / name).read_text()
        used |= set(re.findall(r'(?:cat|self\.cat|_error|Note)\(\s*f?"([a-z][\w.-]*)"', source))
    en = load_messages("en")
    missing = {k for k in used if "{" not in k and k not in en}
    assert not missing
    assert len(used) > 30


@pytest.mark.parametrize("env, lang", [
    ({}, "en"), ({"LANG": "fr_FR.UTF-8"}, "fr"), ({"LANG": "fr"}, "fr"),
    ({"LANG": "de_DE.UTF-8"}, "en"), ({"LC_ALL": "C", "LANG": "fr_FR.UTF-8"}, "en"),
    ({"LC_MESSAGES": "fr_CA", "LANG": "en_US"}, "fr"), ({"LC_ALL": "fr_BE@euro"}, "fr"),
    ({"LC_ALL": "", "LANG": "fr_FR"}, "fr"),
])
def test_language_from_the_locale(env, lang):
    assert detect_lang(env) == lang


def test_catalogue_fallbacks():
    assert EN("no.such.key") == "no.such.key"
    assert EN("illegal.not-held") == "you hold no {card}"   # a missing parameter: the template
    assert FR.colour("purple") == "pourpre" and FR.colour("orange") == "orange"
    with pytest.raises(ValueError):
        Catalogue("de")


# --------------------------------------------------------------------------- the board game

def board_position():
    from lostcities.engine.game.turn import apply, legal_moves, new_game

    board = pack("board-classic")
    state = new_game(board, ["Ada", "Bob"], 3)
    for _ in range(12):
        moves = legal_moves(state)
        state = apply(state, next((m for m in moves if m.pawn is not None), moves[0]))
    return board, state


def cell_at(header: str, line: str, label: str) -> str:
    """The text of ``line`` under the header's column ``label`` (a space number)."""
    at = re.search(rf"(?<=\s){re.escape(label)}(?=\s|$)", header).start()
    return line[at - 2:at + len(label) + 2].strip()


def test_the_board_shows_tiles_pawns_bridge_points_and_holdings():
    board, state = board_position()
    obs = observation(state, 0)
    out = text_of(render.table(obs, board, EN, me=0, live=live_scores(state)))
    lines = out.splitlines()
    view = obs.board
    assert f"Board  ·  bridge crossings: {view.crossings} of 5" in out
    header = next(l for l in lines if l.lstrip().startswith("space"))
    assert "‖" in header and header.index("‖") > header.index(" 6 ") > 0
    points = next(l for l in lines if l.lstrip().startswith("points"))
    for space in range(1, 10):
        assert cell_at(header, points, str(space)) == str(board.scoring.pawn(0, space, False))
    rows = {c.key: next(l for l in lines if l.lstrip().startswith(f"{c.key} {c.name}"))
            for c in board.colours}
    engaged = 0
    for seat, pawns in enumerate(view.pawns):
        for track, space, leader in pawns:
            if track >= 0:
                engaged += 1
                cell = cell_at(header, rows[board.cards.keys[track]], str(space))
                assert f"{seat + 1}{'*' if leader else ''}" in cell.split(), (track, space, cell)
    assert engaged >= 4
    for track, space, kind, value in view.tiles:
        cell = cell_at(header, rows[board.cards.keys[track]], str(space))
        assert ({"artefact": "◆", "step": "»"}.get(kind) or f"+{value}") in cell.split()
    for seat, name in enumerate(["Ada", "Bob"]):
        centre = sum(track < 0 for track, _, _ in view.pawns[seat])
        assert re.search(rf"^{seat + 1} {name}: tokens {view.tokens[seat]} · artefacts "
                         rf"{view.artefacts[seat]} · in the centre {centre}", out, re.M)
    assert "‖ bridge" in out and out.index("Board") < out.index("discards")


def test_board_round_scores_list_every_engaged_pawn():
    from lostcities.engine.game.turn import apply, random_move, new_game
    import random

    board = pack("board-short")
    state = new_game(board, ["Ada", "Bob"], 8)
    rng = random.Random(8)
    while not state.finished:
        state = apply(state, random_move(state, rng))
    result = state.finished[0]
    out = text_of(render.round_scores(result, ["Ada", "Bob"], board, FR, totals(state)))
    assert "Fin de la manche 1" in out and re.search(r"joueur\s+pion\s+case\s+points", out)
    for seat in range(2):
        for track, space, leader in result.pawns[seat]:
            if track >= 0:
                name = FR.colour(board.colours[track].name) + (" (chef)" if leader else "")
                score = board.scoring.pawn(track, space, leader)
                assert re.search(rf"{re.escape(name)}\s+{space}\s+{score}\b", out), name
        assert re.search(rf"jetons\s+{result.tokens[seat]}\b", out)
        assert f"artefacts : {result.artefacts[seat]}" in out
    assert "sum" not in out and "somme" not in out   # no expedition formula in a board pack
    end = text_of(render.match_end(["Ada", "Bob"], [result.scores], totals(state),
                                   (0,), EN))
    bonus = [t - r for t, r in zip(totals(state), result.scores)]
    assert re.search(rf"Ada\s+{result.scores[0]}\s+{bonus[0]}\s+{totals(state)[0]}", end)


def test_board_turns_say_which_pawn_and_steps():
    from lostcities.cli.session import Turn
    from lostcities.engine.game.moves import Move

    board = pack("board-classic")
    move = Move.parse("p g4 pawn=0 step=b step=r deck", board)
    text = text_of(render.describe(Turn(0, move, 1), board, "Ada", EN), width=300).strip()
    assert text == ("Ada plays [g4] and draws from the deck. The leader goes onto the green "
                    "track. The blue pawn moves on one more space. The red pawn moves on one "
                    "more space.")
    move = Move.parse("p g4 pawn=2 deck", board)
    assert "Le pion 2 part sur la piste verte." in text_of(
        render.describe(Turn(0, move, 1), board, "Ada", FR))
    declined = Move.parse("p g4 pawn=0 step=b step=none deck", board)
    text = text_of(render.describe(Turn(0, declined, 1), board, "Ada", EN), width=300).strip()
    assert text.endswith("The blue pawn moves on one more space. No pawn moves on: the "
                         "advance is declined.")
    assert "l'avance est refusée" in text_of(render.describe(Turn(0, declined, 1), board,
                                                             "Ada", FR), width=300)


def test_the_next_starter_and_the_totals_read_for_any_name():
    """'You starts round 2' and 'ismcts 1 247' (the seat number running into the score):
    the name is never the verb's subject, and a colon separates it from its score."""
    assert EN("result.next", name="You", round=2) == "Round 2: first to play, You."
    assert FR("result.next", name="Vous", round=2) == "Manche 2 : premier à jouer, Vous."
    out = text_of(render.match_end(["ismcts 1", "ismcts 2"], [(247, 201)], (247, 201), (0,), EN))
    assert "Winner: ismcts 1, with 247 points!" in out
