"""Formula errors point into the pack's YAML file: line and column of the offending text."""
from __future__ import annotations

from pathlib import Path

import pytest

from lostcities.engine.errors import PackError, ScoringError
from lostcities.engine.packs.loader import load_pack, validate_pack
from lostcities.grammar import compile_formula
from lostcities.grammar.source import Source

HEADER = """\
id: test-formulas
extends: duel-classic
name: formula positions
scoring:
"""


def write_pack(tmp_path: Path, scoring: str) -> Path:
    path = tmp_path / "pack.yaml"
    path.write_text(HEADER + scoring, encoding="utf-8")
    return path


def only_problem(path: Path):
    with pytest.raises(PackError) as caught:
        load_pack(path)
    problems = [p for p in caught.value.problems if p.code.startswith("LC1")]
    assert len(problems) == 1, caught.value.problems
    return problems[0]


def test_unknown_field_in_a_literal_block(tmp_path: Path) -> None:
    path = write_pack(tmp_path, """\
  expedition: |
    if cards == 0 then 0
    else (points - cost) * (1 + wager) + (if cards >= bonus_cards then bonus else 0)
""")
    problem = only_problem(path)
    assert (problem.line, problem.col, problem.code) == (7, 33, "LC102")
    assert problem.message == "unknown field `wager` in scoring.expedition"
    assert problem.hint == "did you mean `wagers`?"
    line = path.read_text().splitlines()[problem.line - 1]
    assert line[problem.col - 1:].startswith("wager)")


def test_type_error_in_a_literal_block_on_an_indented_line(tmp_path: Path) -> None:
    path = write_pack(tmp_path, """\
  expedition: |-
    if cards == 0
      then 0
      else if wagers then 1 else 2
""")
    problem = only_problem(path)
    assert (problem.line, problem.col, problem.code) == (8, 15, "LC103")
    assert "the condition of `if` needs a boolean" in problem.message


def test_error_in_a_folded_block_maps_through_the_folding(tmp_path: Path) -> None:
    path = write_pack(tmp_path, """\
  expedition: >
    if cards == 0 then 0
    else (points - cost)
    * (1 + wagers) + bonuss
""")
    problem = only_problem(path)
    assert (problem.line, problem.col) == (8, 22)
    assert problem.hint.startswith("did you mean `bonus`")


@pytest.mark.parametrize("scalar, col", [
    ("sum(r for r in round)", 25),
    ('"sum(r for r in round)"', 26),
    ("'sum(r for r in round)'", 26),
])
def test_single_line_scalars(tmp_path: Path, scalar: str, col: int) -> None:
    path = write_pack(tmp_path, f"  match: {scalar}\n")
    problem = only_problem(path)
    assert (problem.line, problem.col, problem.code) == (5, col, "LC102")
    assert problem.hint == "did you mean `rounds`?"


def test_breakdown_formulas_are_checked_with_their_key(tmp_path: Path) -> None:
    path = write_pack(tmp_path, """\
  breakdown:
    sum: points
    cost: if cards == 0 then 0 else cots
""")
    problem = only_problem(path)
    assert (problem.line, problem.col) == (7, 37)
    assert problem.message == "unknown field `cots` in scoring.breakdown.cost"


def test_syntax_error_position_and_validate_report(tmp_path: Path) -> None:
    path = write_pack(tmp_path, "  round: sum(e.score for e in expeditions\n")
    report = validate_pack(path)
    problems = [p for p in report.problems if p.code == "LC101"]
    assert [(p.line, p.col) for p in problems] == [(5, 42)]  # just after the last character
    assert "unexpected end of formula" in problems[0].message


def test_run_time_error_carries_the_file_position(tmp_path: Path) -> None:
    path = write_pack(tmp_path, """\
  expedition: |
    points
      // numbers
""")
    pack = load_pack(path)
    assert pack.scoring.expedition(0, [4, 6], 0) == 5
    with pytest.raises(ScoringError) as caught:
        pack.scoring.expedition(0, [], 2)
    err = caught.value
    assert (err.line, err.col, err.code) == (7, 10, "LC105")
    assert err.file.endswith("pack.yaml")
    assert str(err).endswith(":7:10: error LC105 division by zero (`numbers` is 0) in "
                             "scoring.expedition; guard it, e.g. `if numbers == 0 then 0 "
                             "else ...`")
    assert err.excerpt.splitlines() == ["    7 |       // numbers",
                                        "      |          ^^^^^^^"]


def test_mark_without_a_readable_file_maps_by_arithmetic() -> None:
    with pytest.raises(ScoringError) as caught:
        compile_formula("cards +\n  wager", key="scoring.expedition",
                        mark=("missing.yaml", 30, 5, "|"))
    err = caught.value
    assert (err.file, err.line, err.col) == ("missing.yaml", 31, 7)
    assert err.excerpt.splitlines()[0] == "   31 |   wager"


def test_source_locate_plain_multi_line_scalar(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("scoring:\n  round: sum(e.score\n    for e in expeditions) + tokenz\n")
    text = "sum(e.score for e in expeditions) + tokenz"
    source = Source(text, "scoring.round", (str(path), 2, 10, ""))
    assert source.locate(text.index("tokenz"))[1:3] == (3, 29)
