"""What lc play shows and says, as a new user met it (issue #13): the hotseat's scrollback,
the key line's examples (from the hand, undo only where allowed), the board's leader in the
pawn prompt, the wording (plural forms, French capitals), the six-colour header at 80
columns, and docs/play.md's piped example."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from rich.console import Console
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.i18n import Catalogue, load_messages, plural_form
from lostcities.cli.render import table
from lostcities.cli.session import HUMAN, Player, Session, parse_players
from lostcities.engine.packs.loader import load_pack
from lostcities.engine.game.turn import legal_moves, live_scores, new_game
from lostcities.engine.game.view import observation
from test_session import small_pack

LC = str(Path(sys.executable).with_name("lc"))
PLAIN_ENV = {"LANG": "C.UTF-8", "LC_ALL": None, "LC_MESSAGES": None, "COLUMNS": None}
DOCS = Path(__file__).resolve().parents[1] / "docs" / "play.md"
#: a generous bound for a loaded machine: every wait is on a condition, never a fixed time
WAIT = 120


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("LOSTCITIES_DATA_DIR", str(folder))
    return folder


def spawn(args: list[str], data: Path, **env: str) -> pexpect.spawn:
    environment = {**os.environ, "LOSTCITIES_DATA_DIR": str(data), "LANG": "C.UTF-8",
                   "TERM": "xterm-256color", **env}
    environment.pop("COLUMNS", None)
    environment.pop("LINES", None)
    return pexpect.spawn(LC, ["play", *args], env=environment, encoding="utf-8",
                         dimensions=(50, 120), timeout=WAIT)


def unstyled(text: str) -> str:
    return re.sub(r"\x1b\[[\d;?]*[A-Za-z]", "", text)


# --------------------------------------------------------------------------- hotseat

def test_hotseat_clears_the_scrollback_after_the_last_hand(data, tmp_path):
    child = spawn(["--pack", str(small_pack(tmp_path)), "--seed", "3", "--players",
                   "human:Ada,human:Bob"], data, NO_COLOR="1")
    try:
        child.expect_exact("Pass the screen to Ada.")
        child.sendline("")
        child.expect_exact("Ada > ")
        child.sendline("1")
        child.expect_exact("Pass the screen to Bob.")
        shown = child.before
        assert "\x1b[3J" in shown, "the scrollback is not cleared"
        assert shown.rindex("\x1b[3J") > shown.rfind("Your hand")  # after Ada's hand
        assert shown.rindex("\x1b[3J") > shown.rfind("\x1b[2J")     # after the clear
        child.sendline("")
        child.expect_exact("Bob > ")
        keys = unstyled(child.before).splitlines()
        line = next(l for l in keys if "·  moves  ·" in l)
        assert "undo" not in line  # refused in a hotseat game: not offered
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_a_pipe_gets_no_clear_and_no_scrollback_erase(data, tmp_path):
    result = CliRunner().invoke(app, ["play", "--pack", str(small_pack(tmp_path)), "--seed",
                                      "3", "--players", "human:Ada,human:Bob"],
                                input="1\n1\n", env=PLAIN_ENV)
    assert result.exit_code == 0 and "\x1b" not in result.stdout


# --------------------------------------------------------------------------- the key line

@pytest.mark.parametrize("seed", [3, 7, 11])
def test_the_key_line_shows_cards_of_the_hand_and_a_legal_move(data, seed):
    child = spawn(["--seed", str(seed), "--players", "human,bot:greedy"], data, NO_COLOR="1")
    try:
        child.expect_exact("You > ")
        screen = unstyled(child.before)
        hand = re.findall(r"\[([ybwgr][x\d]+)\]", screen.split("Your hand", 1)[1])
        line = re.search(r"p (\S+) deck  ·  d (\S+) (\S+)  ·  moves  ·  hint  ·  undo  ·  "
                         r"help  ·  quit", screen)
        assert line, screen[-800:]
        card, discard, pile = line.groups()
        assert card in hand and discard in hand
        s = Session(load_pack("duel-classic"), parse_players("human,bot:greedy",
                                                              load_pack("duel-classic")), seed)
        texts = {m.text() for m in legal_moves(s.state)}
        assert f"p {card} deck" in texts and f"d {discard} {pile}" in texts
        child.sendline(f"p {card} deck")
        child.expect(rf"You play (?:\x1b\[[\d;]*m)*\[{card}\]")
        child.expect_exact("You > ")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_the_piped_example_of_the_docs_is_true(tmp_path):
    command = next(line for line in DOCS.read_text().splitlines()
                   if line.startswith("printf ") and "| lc play" in line)
    command = command.replace("| lc play", f"| {LC} play")
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(tmp_path / "data"), "LANG": "C.UTF-8"}
    result = subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=env,
                            timeout=WAIT)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr          # no "line 1: you hold no r5"
    assert "End of input: game saved to" in result.stdout


# --------------------------------------------------------------------------- board packs

@pytest.mark.parametrize("lang, word", [("en", "leader"), ("fr", "chef")])
def test_the_pawn_prompt_says_which_is_the_leader(data, lang, word):
    board = load_pack("board-classic")
    s = Session(board, [Player(HUMAN, "A"), Player(HUMAN, "B")], 3)
    card = board.cards.format(next(m for m in legal_moves(s.state) if m.pawn is not None).card)
    result = CliRunner().invoke(app, ["play", "--pack", "board-classic", "--seed", "3",
                                      "--players", "human:A,human:B", "--lang", lang],
                                input=f"p {card}\ndeck\n", env=PLAIN_ENV)
    assert result.exit_code == 0, result.stderr
    assert f"[1] pawn=0 ({word}) · [2] pawn=1" in result.stdout


# --------------------------------------------------------------------------- wording

@pytest.mark.parametrize("lang, counts", [
    ("en", {0: "Took back your turn p b10 deck.",
            1: "Took back your turn p b10 deck and the turn after it.",
            3: "Took back your turn p b10 deck and the 3 turns after it."}),
    ("fr", {0: "Votre tour p b10 deck est repris.",
            1: "Votre tour p b10 deck est repris, avec le tour qui a suivi.",
            2: "Votre tour p b10 deck est repris, avec les 2 tours qui ont suivi."}),
])
def test_undo_says_the_turns_taken_back_in_proper_plural_forms(lang, counts):
    cat = Catalogue(lang)
    for count, text in counts.items():
        assert cat("undone", move="p b10 deck", count=count) == text
    assert "(s)" not in json.dumps(load_messages(lang), ensure_ascii=False)


def test_plural_forms_by_language():
    assert [plural_form("en", n) for n in (0, 1, 2)] == ["zero", "one", "other"]
    assert [plural_form("fr", n) for n in (0, 1, 2)] == ["zero", "one", "other"]
    assert Catalogue("fr")("table.cards-in-hand", count=0) == "0 carte"
    assert Catalogue("en")("table.cards-in-hand", count=0) == "0 cards"
    assert Catalogue("en")("table.cards-in-hand", count=1) == "1 card"


def test_french_writes_pari_in_lower_case_mid_sentence():
    for key, text in load_messages("fr").items():
        assert not re.search(r"(?<![.!?:\n]) Pari", text), key


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("pack_id", ["duel-six", "duel-classic"])
def test_the_colour_headers_wrap_evenly_at_80_columns(lang, pack_id):
    rules = load_pack(pack_id)
    state = new_game(rules, ["You", "greedy"], 3)
    console = Console(width=80, no_color=True, color_system=None, record=True,
                      file=open(os.devnull, "w"))
    console.print(table(observation(state, 0), rules, Catalogue(lang), me=0,
                        live=live_scores(state), width=80))
    lines = console.export_text().splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert lines[1].endswith("╮")  # the whole table fits
    header = []
    for line in lines[2:]:
        if line.startswith("├"):
            break
        header.append([cell.strip() for cell in line.split("│")[2:-2]])
    keys = [c.key for c in rules.colours]
    if len(header) == 1:  # one line: every cell "key name"
        assert [cell.split()[0] for cell in header[0]] == keys
    else:                 # two lines: every key above its name
        assert len(header) == 2 and header[0] == keys
        assert all(name and " " not in name for name in header[1])
