"""House packs without ceremony, and every problem of a pack at once (issue #13).

A house pack needs no `id`: it takes its file's name (``my-house.yaml`` is ``my-house``),
which must then be a valid id and not a built-in pack's. ``lc validate`` reports every
problem of a file in one run: the schema's, each LC check whose keys are right, each
constant, table and formula on its own, and the bounds of what compiled.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.engine.errors import PackError
from lostcities.engine.packs.loader import check_pack, load_pack, validate_pack

#: the common case: a base and one change (one round keeps the games short)
TWO_LINES = "extends: duel-classic\nmatch: {rounds: 1}\n"


def lc(*args: str, env: dict | None = None):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200", **(env or {})})


def one_line_error(result, code: int) -> str:
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error:"), result.stderr
    return lines[0]


@pytest.fixture
def house(tmp_path: Path) -> Path:
    path = tmp_path / "my-house.yaml"
    path.write_text(TWO_LINES)
    return path


# -- a pack without `id` takes its file name ------------------------------------------------

def test_the_library_takes_the_id_from_the_file_name(house: Path) -> None:
    pack = load_pack(house)
    assert pack.id == "my-house" and pack.rounds == 1
    assert validate_pack(str(house)).id == "my-house"
    short = house.with_name("short.yml")
    short.write_text(TWO_LINES)
    assert load_pack(short).id == "short"


def test_a_written_id_still_wins(tmp_path: Path) -> None:
    path = tmp_path / "my-house.yaml"
    path.write_text("id: friday\n" + TWO_LINES)
    assert load_pack(path).id == "friday"


def test_lc_validate_and_show_accept_a_two_line_pack(house: Path) -> None:
    result = lc("validate", str(house))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "all valid" in result.stderr
    shown = lc("show", str(house), "--json")
    assert shown.exit_code == 0, shown.stderr
    assert json.loads(shown.stdout)["id"] == "my-house"
    explained = lc("show", str(house), "--explain")
    assert explained.exit_code == 0 and 'id = "my-house"' in explained.stdout


def test_lc_play_accepts_a_two_line_pack(house: Path, tmp_path: Path) -> None:
    result = lc("play", "--pack", str(house), "--players", "bot:random,bot:random", "--seed",
                "1", "--delay", "0", env={"LOSTCITIES_DATA_DIR": str(tmp_path / "data")})
    assert result.exit_code == 0, result.stdout[-2000:] + result.stderr
    assert "my-house" in result.stdout


def test_lc_simulate_accepts_a_two_line_pack(house: Path) -> None:
    result = lc("simulate", "--pack", str(house), "-n", "2", "-w", "1", "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["pack"] == "my-house"


def test_lc_balance_accepts_a_two_line_pack(house: Path) -> None:
    result = lc("balance", str(house), "-n", "2", "-b", "random,random", "-w", "1", "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "my-house" in result.stdout


@pytest.mark.parametrize("name", ["My_House.yaml", "my house.yaml", "-house.yaml",
                                  "x" * 65 + ".yaml", "my.house.yaml"])
def test_a_file_name_that_cannot_be_an_id_says_add_one_or_rename(tmp_path: Path,
                                                                  name: str) -> None:
    path = tmp_path / name
    path.write_text(TWO_LINES)
    [problem] = check_pack(str(path))
    assert problem.code == "LC023" and problem.line == 1
    assert "has no `id`" in problem.message and "add e.g. `id: " in problem.hint
    assert "rename the file" in problem.hint
    result = lc("validate", str(path))
    assert result.exit_code == 1 and "LC023" in result.stdout
    with pytest.raises(PackError, match="LC023"):
        load_pack(path)


@pytest.mark.parametrize("name", ["duel-six.yaml", "duel-classic.yaml", "board-short.yaml"])
def test_a_file_name_that_is_a_built_in_id_is_refused(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(TWO_LINES)
    [problem] = check_pack(str(path))
    assert problem.code == "LC024" and "the id of a built-in pack" in problem.message
    one_line_error(lc("simulate", "--pack", str(path), "-n", "1"), 1)


def test_a_file_name_id_that_its_chain_also_has_is_refused(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "club.yaml").write_text(TWO_LINES)
    top = tmp_path / "club.yaml"
    top.write_text("extends: base/club.yaml\nhand_size: 7\n")
    [problem] = check_pack(str(top))
    assert problem.code == "LC024" and "taken from its file name" in problem.message
    # a base without `id` takes its own file name too
    top.rename(tmp_path / "friday.yaml")
    assert load_pack(tmp_path / "friday.yaml").id == "friday"


def test_a_pack_that_extends_nothing_needs_no_id_either(tmp_path: Path) -> None:
    base = load_pack("duel-classic").data
    whole = {k: v for k, v in base.items() if k not in ("id", "name")}
    path = tmp_path / "standalone.yaml"
    path.write_text(json.dumps(whole))  # JSON is YAML
    pack = load_pack(path)
    assert pack.id == "standalone" and pack.name == "standalone"


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.sampled_from("abcXYZ019-_. é"), min_size=1, max_size=20))
def test_any_file_name_gives_the_id_or_one_problem(tmp_path: Path, stem: str) -> None:
    path = tmp_path / f"{stem}.yaml"
    if stem in (".", "..") or "/" in stem:
        return
    path.write_text(TWO_LINES)
    try:
        problems = check_pack(str(path))
    finally:
        path.unlink()
    if problems:
        assert [p.code for p in problems] in (["LC023"], ["LC024"]), problems
    else:
        assert len(stem) <= 64 and stem[0].isalnum()


# -- every problem of a file at once --------------------------------------------------------

#: a typo key, a text for a number, two bad formulas, a constant that overflows a column
EVERYTHING_WRONG = """\
extends: duel-classic
hand_size: seven
deck:
  colour: []
scoring:
  constants:
    big: 100000000000
  expedition: "points - - cost +"
  round: "sum(e.score for e in expeditions"
  breakdown:
    huge: points * big
"""


def test_lc_validate_reports_every_problem_of_a_file_in_one_run(tmp_path: Path) -> None:
    path = tmp_path / "messy.yaml"
    path.write_text(EVERYTHING_WRONG)
    result = lc("validate", "--format", "json", str(path))
    assert result.exit_code == 1, result.stderr
    [report] = json.loads(result.stdout)["packs"]
    found = [(p["code"], p["line"]) for p in report["problems"] if p["file"] == str(path)]
    assert sorted(found) == [("LC030", 4), ("LC032", 2), ("LC101", 8), ("LC101", 9),
                             ("LC104", 7)], found
    text = lc("validate", str(path))
    for where in (":2:", ":4:", ":8:", ":9:", ":7:"):
        assert f"messy.yaml{where}" in text.stdout, text.stdout


def test_each_formula_is_compiled_on_its_own(tmp_path: Path) -> None:
    path = tmp_path / "formulas.yaml"
    path.write_text("extends: duel-classic\nscoring:\n  expedition: 'points +'\n"
                    "  round: 'sum(e.score for e in)'\n  match: 'nothing_here'\n"
                    "  breakdown:\n    sum: 'points *'\n")
    problems = check_pack(str(path))
    assert [(p.code[:3], p.line) for p in problems] == [("LC1", 3), ("LC1", 4), ("LC1", 5),
                                                         ("LC1", 7)], problems


def test_a_formula_of_a_wrong_constant_is_not_also_reported(tmp_path: Path) -> None:
    path = tmp_path / "consts.yaml"
    path.write_text("extends: duel-classic\nscoring:\n  constants:\n    cost: twenty\n"
                    "  round: 'sum(e.score for e in'\n")
    problems = check_pack(str(path))
    # cost is wrong (LC032); the expedition formula that uses it is not "unknown name"
    assert [(p.code, p.line) for p in problems] == [("LC032", 4), ("LC101", 5)], problems


def test_formulas_are_checked_when_the_deck_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text("extends: duel-classic\ndeck:\n  copies: two\n"
                    "scoring:\n  expedition: 'points -'\n")
    problems = check_pack(str(path))
    assert [(p.code, p.line) for p in problems] == [("LC032", 3), ("LC101", 5)], problems


def test_a_valid_pack_still_loads_with_its_formulas_bounded(house: Path) -> None:
    pack = load_pack(house)
    assert pack.scoring.formulas["expedition"].domain is not None
