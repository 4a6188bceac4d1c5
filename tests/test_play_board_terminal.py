"""The board game in a real terminal (pexpect, 24 lines of 80 columns): ``moves`` fits the
screen, the pawn prompt offers numbered choices that a number takes, and ``--resume``
recalls the last turns above the prompt."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

from lostcities.cli.render import MOVE_LIST_LINES

LC = str(Path(sys.executable).with_name("lc"))
WAIT = 120  # a generous bound for a loaded machine: every wait is on a condition
PROMPT = r"You > "


def unstyled(text: str) -> str:
    return re.sub(r"\x1b\[[\d;?]*[A-Za-z]", "", text).replace("\r", "")


def spawn(args: list[str], data: Path) -> pexpect.spawn:
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(data), "LANG": "C.UTF-8",
           "TERM": "xterm-256color", "NO_COLOR": "1"}
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    return pexpect.spawn(LC, ["play", *args], env=env, encoding="utf-8", dimensions=(24, 80),
                         timeout=WAIT)


@pytest.fixture
def game(tmp_path: Path):
    save = tmp_path / "board.json"
    child = spawn(["--pack", "board-classic", "--seed", "3", "--players", "human,bot:greedy",
                   "--save", str(save)], tmp_path / "data")
    yield child, save, tmp_path / "data"
    if child.isalive():
        child.terminate(force=True)


def test_moves_the_numbered_pawn_prompt_and_the_resumed_last_turns(game) -> None:
    child, save, data = game
    child.expect(PROMPT)
    child.sendline("moves")
    child.expect(PROMPT)
    shown = unstyled(child.before).split("legal moves; type a number to play one:", 1)[1]
    lines = [line for line in shown.splitlines()[1:] if line.strip()]
    assert 0 < len(lines) <= MOVE_LIST_LINES and all(len(line) <= 80 for line in lines)
    assert re.search(r"^  \[y9\]\s+p 1 pawn=0 · 2 pawn=1", shown, re.M), shown
    # the pawn, asked with numbered choices, taken by its number
    child.sendline("p y9")
    child.expect(r"draw from deck")
    child.sendline("")
    child.expect(re.escape("y9, which one? [1] pawn=0 (leader) · [2] pawn=1 "
                           "(a number, or type it) > "))
    child.sendline("3")
    child.expect(re.escape("3: type a number from 1 to 2"))
    child.sendline("2")
    child.expect(PROMPT)  # the bot answered: the human's turn again
    child.sendline("d b1 deck")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    saved = save.read_text(encoding="utf-8")
    assert '"p y9 pawn=1 deck"' in saved
    # resumed: the last turns are under the first table, above the prompt
    again = spawn(["--resume", str(save)], data)
    try:
        again.expect(PROMPT)
        screen = unstyled(again.before)
        recalled = screen.split("Last turns:", 1)[1]
        assert re.search(r"You discard \[b1\] and draw from the deck\.", recalled)
        assert re.search(r"greedy (plays|discards) \[\w+\]", recalled)
        again.sendline("quit")
        again.expect(pexpect.EOF)
    finally:
        if again.isalive():
            again.terminate(force=True)
