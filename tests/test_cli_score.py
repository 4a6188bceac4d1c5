"""``lc score``: the table-top calculator, through typer's CliRunner."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lostcities.cli.app import app

EXAMPLE_000 = "y5 y8 y10 wx gx g3 g5 g7 rx rx r2 r3 r5 r7 r8 r10".split()


def lc(*args: str):
    return CliRunner().invoke(app, ["score", *args])


def table_rows(stdout: str) -> dict[str, list[str]]:
    """expedition name -> the other cells of its table line."""
    rows = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if len(cells) > 2 and cells[0] in ("yellow", "blue", "white", "green", "red", "purple"):
            rows[cells[0]] = cells[1:]
    return rows


def test_worked_example_of_000_as_a_table() -> None:
    result = lc("--pack", "duel-classic", *EXAMPLE_000)
    assert result.exit_code == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "expedition" in line)
    assert [c.strip() for c in header.strip("┃ ").split("┃")] == [
        "expedition", "cards", "sum", "cost", "multiplier", "bonus", "score"]
    rows = table_rows(result.stdout)
    assert rows["yellow"] == ["5 8 10", "23", "20", "1", "0", "3"]
    assert rows["white"] == ["x", "0", "20", "2", "0", "-40"]
    assert rows["blue"] == ["-", "0", "0", "1", "0", "0"]
    assert rows["green"] == ["x 3 5 7", "15", "20", "2", "0", "-10"]
    assert rows["red"] == ["x x 2 3 5 7 8 10", "35", "20", "3", "20", "65"]
    assert result.stdout.splitlines()[-1] == "Total: 18"
    assert result.stderr == ""


def test_default_pack_is_duel_classic_and_cards_are_case_insensitive() -> None:
    result = lc(*(c.upper() for c in EXAMPLE_000))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "Total: 18"


def test_json_of_002s_example() -> None:
    result = lc("--json", "bx", "b2", "b6", "b7", "b8", "WX", "w4", "w6", "w8", "w10")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["pack"] == "duel-classic" and doc["total"] == 22
    by_colour = {e["colour"]: e for e in doc["expeditions"]}
    assert list(by_colour) == ["yellow", "blue", "white", "green", "red"]
    assert by_colour["blue"] == {"colour": "blue", "cards": ["bx", "b2", "b6", "b7", "b8"],
                                 "score": 6, "breakdown": {"sum": 23, "cost": 20,
                                                           "multiplier": 2, "bonus": 0}}
    assert by_colour["white"]["score"] == 16
    assert by_colour["red"] == {"colour": "red", "cards": [], "score": 0,
                                "breakdown": {"sum": 0, "cost": 0, "multiplier": 1, "bonus": 0}}


def test_several_players_separated_by_a_slash() -> None:
    result = lc("r5", "r8", "/", "b4", "b9", "gx")
    assert result.exit_code == 0
    out = result.stdout
    assert out.index("Player 1") < out.index("Total: -7") < out.index("Player 2")
    assert out.splitlines()[-1] == "Total: -47"
    doc = json.loads(lc("--json", "r5 r8", "/", "b4 b9/gx").stdout)  # three players
    assert [p["total"] for p in doc["players"]] == [-7, -7, -40]
    assert "expeditions" not in doc


@pytest.mark.parametrize("args, message", [
    (["r5", "r3"], "r3 cannot follow r5 on the red row: this pack needs strictly "
                   "increasing values"),
    (["r5", "rx"], "rx cannot follow r5 on the red row: wagers go before the number cards"),
    (["r5", "r5"], "r5 is given 2 times but the duel-classic deck holds it once"),
    (["r5", "/", "r5"], "r5 is given 2 times"),
    (["b3", "/", "r5", "r2"], "player 2: r2 cannot follow r5 on the red row"),
    (["q5"], "'q5': unknown colour 'q'; this pack's colours are y, b, w, g, r"),
    (["r11"], "'r11': value 11 is outside 2-10"),
    (["--pack", "duel-basic", "rx"], "'rx': this pack has no wager cards"),
])
def test_refused_input_is_one_line_on_stderr_exit_1(args: list[str], message: str) -> None:
    result = lc(*args)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("lc: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["--pack", "duel-clasic", "r5"], "duel-clasic: error LC009 no such built-in pack"),
    (["r5", "/"], "player 2 has no cards"),
    (["/"], "player 1 has no cards"),
])
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = lc(*args)
    assert result.exit_code == 2
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_no_cards_is_a_usage_error() -> None:
    assert lc().exit_code == 2


def test_other_packs_score_by_their_own_formulas(tmp_path: Path) -> None:
    six = lc("--json", "--pack", "duel-six", "p4", "p6")
    assert json.loads(six.stdout)["expeditions"][-1]["colour"] == "purple"
    assert json.loads(six.stdout)["total"] == -10
    equal = lc("--json", "--pack", "duel-equal", "r5", "r5")
    assert equal.exit_code == 1 and "holds it once" in equal.stderr
    house = tmp_path / "cheap.yaml"
    house.write_text("id: cheap\nextends: duel-classic\nscoring:\n  constants:\n"
                     "    cost: 10\n", encoding="utf-8")
    result = lc("--json", "--pack", str(house), "r5", "r8")
    assert json.loads(result.stdout)["total"] == 3


def test_a_broken_pack_file_is_reported_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: broken\nextends: duel-classic\nscoring:\n"
                      "  expedition: points - cots\n", encoding="utf-8")
    result = lc("--pack", str(broken), "r5")
    assert result.exit_code == 1
    assert "broken.yaml:4:24: error LC102 unknown field `cots`" in result.stderr
    assert result.stderr.count("\n") == 1


def test_help_documents_the_player_separator() -> None:
    result = CliRunner().invoke(app, ["score", "--help"])
    assert result.exit_code == 0
    assert "separate their words with /" in result.stdout
