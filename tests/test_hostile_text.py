"""Text from packs, records and saves reaches the terminal as text: rich markup shows as
written, control characters (escape sequences, bidirectional overrides) never pass
(issue #12, item 7). Through ``lc score``, ``lc show``, ``lc packs``, ``lc replay``
and ``lc play``'s renderables, and :func:`lostcities.cli.render.plain` itself."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from hypothesis import given, settings, strategies as st
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner

from lostcities.cli import render
from lostcities.cli.app import app
from lostcities.engine.safeio import is_hidden
from lostcities.i18n import Catalogue

#: a window-title escape, a screen clear, a C1 CSI and a right-to-left override
CONTROLS = "\x1b]0;pwned\x07 \x1b[2J \x9b2J \u202eevil"
HOSTILE_NAME = "[/bold] [link=https://x]me" + CONTROLS
COLOURS = {"y": "yel[/bold]" + CONTROLS, "b": "[link=https://x]blue", "w": "white\x1b[2J",
           "g": "green", "r": "red"}


def forbidden(text: str) -> list[str]:
    """The control characters in ``text`` (none may reach the terminal)."""
    return [hex(ord(ch)) for ch in text if is_hidden(ch)
            and ch != "\n"]


def hostile_pack(folder: Path) -> Path:
    path = folder / "evil.yaml"
    colours = "".join(f"    - {{key: {k}, name: {json.dumps(v)}}}\n" for k, v in COLOURS.items())
    path.write_text(f"id: evil-house\nextends: duel-classic\n"
                    f"name: {json.dumps('Evil [/bold] ' + CONTROLS)}\n"
                    f"description: {json.dumps('desc [link=https://x]click[/link]' + CONTROLS)}\n"
                    f"deck:\n  colours:\n{colours}", encoding="utf-8")
    return path


def lc(*args: str):
    return CliRunner().invoke(app, list(args))


def assert_clean(result, code: int = 0) -> None:
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert forbidden(result.stdout) == [] and forbidden(result.stderr) == []
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


# --------------------------------------------------------------------------- plain()

@settings(max_examples=200, deadline=None)
@given(st.text())
def test_plain_leaves_no_control_character_and_prints_back_through_a_markup_console(text):
    shown = render.plain(text)
    assert forbidden(shown) == [] and "\n" not in shown
    out = io.StringIO()
    console = Console(file=out, markup=True, highlight=False, width=10_000, color_system=None,
                      soft_wrap=True)
    console.print(Text(shown), end="")  # a Text is never parsed as markup nor :emoji:
    assert out.getvalue() == shown


def test_plain_keeps_words_apart_and_everything_visible():
    assert render.plain("a\tb\nc\x1b[2Jd\u202ee\x9bf") == "a b c[2Jdef"
    assert render.plain("[/bold] Zoë 名前") == "[/bold] Zoë 名前"


def test_plain_json_reads_back_the_same_with_every_control_escaped():
    data = {"name": "x" + CONTROLS + "\x7f\x85", "é": ["\u2066"]}
    text = render.plain_json(data)
    assert forbidden(text) == [] and "é" in text
    assert json.loads(text) == data


# --------------------------------------------------------------------------- lc score

def test_score_shows_a_packs_colour_names_as_written_without_controls(tmp_path: Path):
    result = lc("score", "--pack", str(hostile_pack(tmp_path)), "y5", "b3", "w4")
    assert_clean(result)
    assert "yel[/bold]" in result.stdout and "[link=https://x]blue" in result.stdout
    assert "white[2J" in result.stdout and "Total: -48" in result.stdout


def test_score_json_escapes_the_controls_and_reads_back(tmp_path: Path):
    result = lc("score", "--json", "--pack", str(hostile_pack(tmp_path)), "y5")
    assert_clean(result)
    doc = json.loads(result.stdout)
    assert [e["colour"] for e in doc["expeditions"]] == list(COLOURS.values())


def test_score_error_naming_a_colour_is_one_clean_line(tmp_path: Path):
    result = lc("score", "--pack", str(hostile_pack(tmp_path)), "y5", "y3")
    assert_clean(result, 1)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("lc: error: ")
    assert "yel[/bold]" in result.stderr


# --------------------------------------------------------------------------- lc show, packs

def test_show_yaml_escapes_the_controls_and_reads_back(tmp_path: Path):
    result = lc("show", str(hostile_pack(tmp_path)))
    assert_clean(result)
    data = yaml.safe_load(result.stdout)
    assert data["name"] == "Evil [/bold] " + CONTROLS
    assert [c["name"] for c in data["deck"]["colours"]] == list(COLOURS.values())


def test_show_json_and_explain_escape_the_controls(tmp_path: Path):
    pack = str(hostile_pack(tmp_path))
    result = lc("show", "--json", pack)
    assert_clean(result)
    assert json.loads(result.stdout)["description"].endswith(CONTROLS)
    explained = lc("show", "--explain", pack)
    assert_clean(explained)
    assert "deck.colours[1].name = \"[link=https://x]blue\"" in explained.stdout
    assert_clean(lc("show", "--explain", "--json", pack))


def test_packs_lists_without_controls():
    assert_clean(lc("packs"))
    assert_clean(lc("packs", "--json"))


# --------------------------------------------------------------------------- lc replay

def hostile_record(folder: Path, pack: str = "duel-classic") -> Path:
    record = folder / "one.jsonl"
    result = lc("simulate", "-n", "1", "--pack", pack, "--seed", "7", "--record", str(record))
    assert result.exit_code == 0, result.stderr
    data = json.loads(record.read_text())
    data["players"] = [HOSTILE_NAME, "[bold]x[/]:smile:"]
    record.write_text(json.dumps(data) + "\n")
    return record


def test_replay_shows_names_as_written_without_controls(tmp_path: Path):
    record = str(hostile_record(tmp_path))
    result = lc("replay", record)
    assert_clean(result)
    assert "[/bold] [link=https://x]me" in result.stdout
    assert "[bold]x[/]:smile:" in result.stdout and "totals: [/bold]" in result.stdout
    assert_clean(lc("replay", "--check", record))


def test_replay_through_a_terminal_writes_only_riches_own_colour_codes(tmp_path: Path):
    """On a terminal rich colours with SGR codes (ESC [ ... m); nothing else may pass."""
    import re

    record = hostile_record(tmp_path)
    lc_bin = Path(sys.executable).with_name("lc")
    out = subprocess.run([str(lc_bin), "replay", str(record)], capture_output=True,
                         text=True, timeout=120,
                         env={**os.environ, "FORCE_COLOR": "1", "TERM": "xterm",
                              "COLUMNS": "100"})
    assert out.returncode == 0, out.stderr
    assert "\x1b[" in out.stdout  # colours are on
    rest = re.sub(r"\x1b\[[0-9;]*m", "", out.stdout)
    assert forbidden(rest) == [] and "[/bold] [link=https://x]me" in rest
    assert "\x1b]8;" not in out.stdout  # no hyperlink


# --------------------------------------------------------------------------- lc play's table

def test_play_renders_hostile_names_and_pack_strings_as_text(tmp_path: Path):
    import random

    from lostcities.engine import load_pack
    from lostcities.engine.game.turn import (live_scores, new_game, playout, round_scores, totals,
                                        winners)
    from lostcities.engine.game.view import observation

    pack = load_pack(str(hostile_pack(tmp_path)))
    names = [HOSTILE_NAME, "[bold]x[/]"]
    cat = Catalogue("en")
    state = new_game(pack, names, 3)
    start = render.table(observation(state, 0), pack, cat, me=0, live=live_scores(state))
    final = playout(new_game(pack, names, 3), random.Random(3))
    shown = [start, render.pass_screen(HOSTILE_NAME, cat),
             render.round_scores(final.finished[0], names, pack, cat, totals(final)),
             render.match_end(names, round_scores(final), totals(final), winners(final), cat)]
    for renderable in shown:
        out = io.StringIO()
        # a console that does parse markup: the renderables never give it any
        Console(file=out, width=200, markup=True, color_system=None).print(renderable)
        text = out.getvalue()
        assert forbidden(text) == [], text
        assert "[/bold] [link=https://x]me" in text
    assert "Evil [/bold]" in text_of(start) and "yel[/bold]" in text_of(start)


def text_of(renderable) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(renderable)
    return out.getvalue()


def test_play_with_a_hostile_pack_and_name_prints_no_control(tmp_path: Path):
    """lc play itself, quitting at once: the table, the names, the pack's strings."""
    lc_bin = Path(sys.executable).with_name("lc")
    out = subprocess.run([str(lc_bin), "play", "--players", "human:[/bold] [link=x]me,greedy",
                          "--pack", str(hostile_pack(tmp_path)),
                          "--save", str(tmp_path / "g.json")], input="q\ny\n",
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert forbidden(out.stdout) == [] and forbidden(out.stderr) == []
    assert "[/bold] [link=x]me" in out.stdout and "Evil [/bold]" in out.stdout
