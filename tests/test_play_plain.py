"""lc play's own lines (the greeting, "X starts round 2", where the game is saved, the
record's path, a resumed game's greeting) print names and paths as written: no rich
markup, no terminal control characters, whatever a save's labels or a path hold."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.engine.safeio import is_hidden
from test_session import small_pack

PLAIN_ENV = {"LANG": "C.UTF-8", "LC_ALL": None, "LC_MESSAGES": None, "COLUMNS": None}
#: a file name with a window-title escape, a screen clear (ESC and the one-byte CSI) and
#: markup-like text: all allowed in a path
HOSTILE_NAME = "g\x1b]0;pwned\x07\x1b[2J\x9b2J[b]x.json"
NAMES = "human:[b]Ada[/b],human:[link=http://x]Bob[/link]"


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("LOSTCITIES_DATA_DIR", str(folder))
    return folder


def lc(*args: str, input: str = ""):
    return CliRunner().invoke(app, ["play", *args], input=input, env=PLAIN_ENV)


def no_controls(text: str) -> None:
    bad = sorted({f"U+{ord(c):04X}" for c in text if is_hidden(c)
                  and c != "\n"})
    assert not bad, bad


def test_a_whole_match_prints_markup_like_names_and_a_hostile_path_as_text(data, tmp_path):
    save = tmp_path / HOSTILE_NAME
    result = lc("--pack", str(small_pack(tmp_path)), "--seed", "3", "--players", NAMES,
                "--save", str(save), input="1\n" * 400)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    no_controls(out)
    no_controls(result.stderr)
    shown = "g]0;pwned[2J2J[b]x.json"        # the controls dropped, the rest as written
    assert f"Saving after every turn to {tmp_path / shown}" in out
    assert any(f"Round 2: first to play, {name}." in out
               for name in ("[b]Ada[/b]", "[link=http://x]Bob[/link]"))
    assert "[b]Ada[/b] and [link=http://x]Bob[/link]" in out
    record = [line for line in out.splitlines() if line.startswith("Game record: ")]
    assert record and shown.replace(".json", "-2.jsonl") in record[0]   # named by its rounds


def test_a_resumed_save_with_a_hostile_path_and_names(data, tmp_path):
    save = tmp_path / HOSTILE_NAME
    first = lc("--seed", "3", "--players", NAMES, "--save", str(save), input="1\n1\n")
    assert first.exit_code == 0, first.stderr
    no_controls(first.stdout)
    assert json.loads(save.read_text())["players"][0]["label"] == "[b]Ada[/b]"
    result = lc("--resume", str(save), input="")
    assert result.exit_code == 0, result.stderr
    no_controls(result.stdout)
    shown = str(tmp_path / "g]0;pwned[2J2J[b]x.json")
    assert f"Resumed {shown}: round 1, turn 3." in result.stdout
    assert f"End of input: game saved to {shown}. Continue with: lc play --resume {shown}" \
        in result.stdout
    assert "[b]Ada[/b] > " not in result.stdout  # no prompts in a pipe, but the table:
    assert "[b]Ada[/b]" in result.stdout


def test_quit_and_refused_lines_print_paths_and_text_without_controls(data, tmp_path):
    save = tmp_path / HOSTILE_NAME
    result = lc("--seed", "3", "--players", "human,bot:greedy", "--save", str(save),
                input="p \x1b[2Jz9\nquit\n")
    assert result.exit_code == 0, result.stderr
    no_controls(result.stdout)
    no_controls(result.stderr)
    assert "line 1: '[2Jz9' is not a card of this pack" in result.stderr
    assert "Game saved to " in result.stdout
