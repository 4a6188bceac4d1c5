"""Every fixture pack: each invalid one is rejected with exactly its code, at its line.

An invalid fixture's first line says what it expects::

    # expect: LC040 line 5              (the problem is in this file)
    # expect: LC022 line 3 in _chain/8.yaml   (in a file of its extends chain)

Files starting with ``_`` are helpers that other fixtures extend.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from lostcities.engine.packs import loader as packs
from lostcities.engine.packs.loader import check_pack, validate_pack

FIXTURES = Path(__file__).parent / "fixtures" / "packs"
INVALID = sorted(p for p in (FIXTURES / "invalid").glob("LC*.yaml"))
VALID = sorted((FIXTURES / "valid").glob("*.yaml"))
EXPECT = re.compile(r"# expect: (LC\d{3}) line (\d+)(?: in (\S+))?")
#: fixtures that also show other codes now that every stage runs whatever the others find
#: (issue #13): LC031-missing-key.yaml has no scoring formulas either
ALSO = {"LC031-missing-key.yaml": {"LC056"}}
#: codes a committed fixture cannot show, each tested where the test makes the condition
MADE_IN_TESTS = {
    "LC002": "a file over 1 MiB: tests/test_yamlsafe.py::test_file_size_is_checked_before_parsing",
}


def expectation(path: Path) -> tuple[str, int, Path]:
    found = EXPECT.match(path.read_bytes().split(b"\n", 1)[0].decode("ascii"))
    assert found, f"{path.name}: first line must be '# expect: LC0xx line N [in FILE]'"
    return found[1], int(found[2]), path.parent / found[3] if found[3] else path


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_invalid_fixture_is_rejected_with_its_code_and_line(path: Path) -> None:
    code, line, where = expectation(path)
    assert path.name.startswith(code)
    problems = check_pack(str(path))
    assert {p.code for p in problems} == {code} | ALSO.get(path.name, set()), \
        [str(p) for p in problems]
    assert any(p.code == code and p.line == line and Path(p.file).resolve() == where.resolve() for p in problems), \
        [str(p) for p in problems]
    for problem in problems:
        assert "\n" not in str(problem)


def test_every_code_has_a_fixture() -> None:
    covered = {p.name[:5] for p in INVALID}
    assert set(packs.CODES) - covered == set(MADE_IN_TESTS)


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_valid_fixture_loads(path: Path) -> None:
    report = validate_pack(str(path))
    assert report.problems == ()
    assert report.pack is not None and report.pack.id == path.stem.replace("base-house",
                                                                           "club-base")


def test_valid_fixtures_resolve_as_written() -> None:
    merged = validate_pack(str(FIXTURES / "valid" / "anchors-and-merge.yaml")).pack
    assert merged is not None
    assert [c.key for c in merged.colours] == ["r", "b", "g", "o"]
    assert merged.rounds == 4 and merged.continuation is False
    club = validate_pack(str(FIXTURES / "valid" / "club-long.yaml")).pack
    assert club is not None
    assert (club.hand_size, club.rounds, club.scoring_spec.constants["bonus_cards"]) == (7, 5, 7)
    assert club.house_rule
