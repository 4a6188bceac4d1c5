"""Hostile rule packs (issue #12, items 5, 6, 11 and 13): every bad input is one problem
with its position, never a traceback, a hang, or a quote of a file that is not a pack."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lostcities.engine import PackError
from lostcities.engine.packs.loader import check_pack, load_pack, validate_pack

LC = Path(sys.executable).with_name("lc")
SECRET = "gho_SECRET_IN_HAND"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def only(problems) -> tuple[str, int, int]:
    assert len(problems) == 1, [str(p) for p in problems]
    (p,) = problems
    assert "\n" not in str(p)
    return p.code, p.line, p.col


# -- item 5: numbers beyond Python's 4,300-digit conversion limit --------------------------

@pytest.mark.parametrize("text, line, col", [
    ("id: n\nextends: duel-classic\nhand_size: " + "9" * 5000 + "\n", 3, 12),
    ("id: n\nextends: duel-classic\nhand_size: 0x" + "f" * 5000 + "\n", 3, 12),
    ("id: n\nextends: duel-classic\nscoring:\n  constants:\n    cost: -" + "9" * 5000 + "\n",
     5, 11),
    ("id: n\nextends: board-classic\nboard:\n  tile_spaces: [2, " + "7" * 4400 + "]\n", 4, 20),
    ("id: n\nextends: duel-classic\nscoring:\n  match: " + "9" * 5000 + "\n", 4, 10),
    ("id: n\nextends: duel-classic\nhand_size: 1" + "0" * 70 + ".5\n", 3, 12),
])
def test_an_over_long_number_is_one_problem_at_its_position(tmp_path, text, line, col) -> None:
    pack = write(tmp_path, "n.yaml", text)
    assert only(check_pack(pack)) == ("LC011", line, col)
    with pytest.raises(PackError):
        load_pack(pack)


def test_a_decimal_beyond_a_float_is_refused(tmp_path) -> None:
    pack = write(tmp_path, "f.yaml", "id: f\nextends: duel-classic\nhand_size: 1e999\n")
    assert only(check_pack(pack)) == ("LC011", 3, 12)


def test_one_bad_pack_in_a_batch_keeps_the_other_reports(tmp_path) -> None:
    good = write(tmp_path, "a.yaml", "id: a\nextends: duel-classic\nhand_size: 7\n")
    bad = write(tmp_path, "b.yaml", "id: b\nextends: duel-classic\nhand_size: "
                + "9" * 5000 + "\n")
    also = write(tmp_path, "c.yaml", "id: c\nextends: duel-classic\nhand_size: 40\n")
    run = subprocess.run([str(LC), "validate", str(good), str(bad), str(also)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    assert "LC011" in run.stdout and "LC033" in run.stdout
    assert "3 packs checked, 2 with problems" in run.stderr


# -- item 6: names too long, files that are not regular files -------------------------------

def test_extends_too_long_for_the_file_system(tmp_path) -> None:
    pack = write(tmp_path, "x.yaml", f"id: x\nextends: {'a' * 300}.yaml\n")
    assert only(check_pack(pack)) == ("LC025", 2, 10)
    deep = write(tmp_path, "y.yaml", f"id: y\nextends: {'b/' * 2100}base.yaml\n")
    assert only(check_pack(deep))[0] == "LC025"


def test_an_id_too_long_for_a_file_name_is_no_built_in(tmp_path) -> None:
    pack = write(tmp_path, "x.yaml", f"id: x\nextends: {'a' * 300}\n")
    assert only(check_pack(pack)) == ("LC020", 2, 10)


@pytest.mark.parametrize("name", ["a" * 300 + ".yaml", "d/" * 2100 + "p.yaml", ""])
def test_a_pack_path_too_long_is_one_problem(name) -> None:
    with pytest.raises(PackError) as caught:
        load_pack(name)
    assert caught.value.code == "LC009" and "\n" not in str(caught.value)
    assert only(check_pack(name))[0] == "LC009"


def test_a_pack_path_too_long_on_the_command_line() -> None:
    run = subprocess.run([str(LC), "score", "--pack", "a" * 300 + ".yaml", "y5"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode in (1, 2) and "Traceback" not in run.stderr
    assert run.stderr.startswith("lc: error:") and run.stderr.count("\n") == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_a_pack_does_not_block(tmp_path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    code = ("from lostcities.engine.packs.loader import load_pack, check_pack\n"
            f"print(check_pack({str(fifo)!r})[0].code)\n"
            "try:\n"
            f"    load_pack({str(fifo)!r})\n"
            "except Exception as err:\n"
            "    print(type(err).__name__)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.stdout.split() == ["LC009", "PackError"], run.stderr


def test_extending_a_fifo_or_a_device_is_refused(tmp_path) -> None:
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.yaml")
        pack = write(tmp_path, "p.yaml", "id: p\nextends: pipe.yaml\n")
        assert only(check_pack(pack))[0] == "LC020"  # not a file to extend


# -- item 13: extends stays in the root, files that are not packs are never quoted ----------

def test_extends_may_not_be_absolute(tmp_path) -> None:
    secret = write(tmp_path / "elsewhere", "secret.yaml", f"token:\n  value: {SECRET}\n")
    pack = write(tmp_path / "packs", "p.yaml", f"id: p\nextends: {secret}\n")
    problems = check_pack(pack)
    assert only(problems) == ("LC025", 2, 10)
    assert SECRET not in str(problems[0])


def test_extends_may_not_leave_the_root(tmp_path) -> None:
    write(tmp_path, "base.yaml", "id: base\nextends: duel-classic\n")
    pack = write(tmp_path / "packs", "p.yaml", "id: p\nextends: ../base.yaml\n")
    assert only(check_pack(pack)) == ("LC025", 2, 10)
    inner = write(tmp_path / "packs" / "house", "q.yaml", "id: q\nextends: ../../base.yaml\n")
    top = write(tmp_path / "packs", "top.yaml", "id: top\nextends: house/q.yaml\n")
    assert only(check_pack(top))[0] == "LC025"  # the root is the folder of the pack named
    assert only(check_pack(inner))[0] == "LC025"
    assert validate_pack(pack, allow_outside=True).valid
    assert load_pack(pack, allow_outside=True).id == "p"
    with pytest.raises(PackError):
        load_pack(pack)


def test_dotdot_inside_the_root_is_fine(tmp_path) -> None:
    write(tmp_path, "base.yaml", "id: base\nextends: duel-classic\nhand_size: 7\n")
    write(tmp_path / "house", "mid.yaml", "id: mid\nextends: ../base.yaml\n")
    top = write(tmp_path, "top.yaml", "id: top\nextends: house/mid.yaml\n")
    assert load_pack(top).hand_size == 7


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_symbolic_link_out_of_the_root_is_refused(tmp_path) -> None:
    base = write(tmp_path / "elsewhere", "base.yaml", "id: base\nextends: duel-classic\n")
    (tmp_path / "packs").mkdir()
    os.symlink(base, tmp_path / "packs" / "base.yaml")
    pack = write(tmp_path / "packs", "p.yaml", "id: p\nextends: base.yaml\n")
    assert only(check_pack(pack))[0] == "LC025"
    assert validate_pack(pack, allow_outside=True).valid


@pytest.mark.parametrize("content", [
    f"token:\n  value: {SECRET}\n",                 # a mapping with none of a pack's keys
    f"{SECRET}: [\n",                                # not YAML
    f"- {SECRET}\n- !!python/name:os.system\n",      # a list with a refused tag
    f"a: 1\na: {SECRET}\n",                          # a duplicate key
    f"name: {SECRET}\ndescription: [1]\n",           # pack keys, but no pack
])
def test_a_file_that_is_not_a_pack_is_never_quoted(tmp_path, content) -> None:
    write(tmp_path, "notes.yaml", content)
    pack = write(tmp_path, "p.yaml", "id: p\nextends: notes.yaml\n")
    for source in (pack, tmp_path / "notes.yaml"):
        problems = check_pack(source)
        assert problems and all(SECRET not in str(p) + p.excerpt for p in problems), \
            [str(p) for p in problems]
    assert only(check_pack(pack))[0] in ("LC026", "LC008")
    run = subprocess.run([str(LC), "validate", str(pack), str(tmp_path / "notes.yaml")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and SECRET not in run.stdout + run.stderr


# -- item 11: deck size, turn cap ------------------------------------------------------------

HUGE = """\
id: huge
extends: duel-classic
players: {min: 2, max: 8}
deck:
  colours: [{key: a, name: a}, {key: b, name: b}, {key: c, name: c}, {key: d, name: d},
            {key: e, name: e}, {key: f, name: f}, {key: g, name: g}, {key: h, name: h},
            {key: i, name: i}, {key: j, name: j}, {key: k, name: k}, {key: l, name: l}]
  values: {min: 0, max: 99}
  copies: 9
rows: {ordering: non-decreasing}
"""


def test_a_deck_beyond_the_cap_is_refused(tmp_path) -> None:
    pack = write(tmp_path, "h.yaml", HUGE)
    code, line, _ = only(check_pack(pack))
    assert (code, line) == ("LC063", 4)
    assert "10,836 cards" in str(check_pack(pack)[0])


def test_the_turn_cap_is_capped(tmp_path) -> None:
    pack = write(tmp_path, "t.yaml", "id: t\nextends: duel-classic\nturn:\n  turn_cap: 1"
                 + "0" * 60 + "\n")
    problems = check_pack(pack)
    assert only(problems) == ("LC033", 4, 13) and "at most 10000" in str(problems[0])
    ok = write(tmp_path, "u.yaml", "id: u\nextends: duel-classic\nturn:\n  turn_cap: 10000\n")
    assert load_pack(ok).turn_cap == 10000


def test_the_built_in_packs_are_within_every_cap() -> None:
    from lostcities.engine.packs.loader import builtin_ids

    for pack_id in builtin_ids():
        assert check_pack(pack_id) == [], pack_id


@pytest.mark.parametrize("base", ["duel-classic", "board-classic"])
def test_a_whole_pack_without_any_one_top_level_key_is_problems_only(tmp_path, base) -> None:
    """Each top-level key left out of a pack that extends nothing gives problems (LC031 for a
    required one), never a crash of the loader (a missing hand_size was a KeyError)."""
    import yaml as pyyaml

    from lostcities.engine.packs.loader import builtin_path, pack_schema

    data = pyyaml.safe_load(builtin_path(base).read_text(encoding="utf-8"))
    required = set(pack_schema().get("required", []))
    for key in data:
        if key == "id":
            continue
        rest = {k: v for k, v in data.items() if k != key}
        path = tmp_path / f"no-{key.replace('_', '-')}.yaml"
        path.write_text(pyyaml.safe_dump({**rest, "id": f"no-{key.replace('_', '-')}"}),
                        encoding="utf-8")
        codes = {p.code for p in check_pack(path)}
        if key in required:
            assert "LC031" in codes, (key, codes)
        assert "LC100" not in codes, (key, codes)  # no internal error turned into a problem
