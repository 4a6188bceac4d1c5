"""``lc packs``, ``lc show``, ``lc schema``, ``lc new`` and pack-name completion."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from enginehelpers import one_line_error
from lostcities.cli.app import app
from lostcities.cli.common import complete_pack
from lostcities.cli.packs import complete_pack_or_file, house_pack_id
from lostcities.engine.packs.loader import (builtin_ids, check_pack, locate, pack_schema,
                                     resolve_pack, validate_pack)

INVALID = Path(__file__).parent / "fixtures" / "packs" / "invalid"
BUILTIN = Path(__file__).parent.parent / "rulepacks"


def lc(*args: str):
    return CliRunner().invoke(app, list(args))


# ------------------------------------------------------------------ lc packs


def test_packs_table() -> None:
    result = lc("packs")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "FAMILY", "PLAYERS", "HOUSE", "DESCRIPTION"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert sorted(rows) == builtin_ids()
    assert rows["duel-grenoble"].split()[1:4] == ["duel", "3-4", "yes"]
    assert rows["board-classic"].split()[1:3] == ["board", "2-4"]
    assert rows["duel-classic"].split()[1:3] == ["duel", "2"]
    assert "60 cards" in rows["duel-classic"]


def test_packs_json() -> None:
    result = lc("packs", "--json")
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert [r["id"] for r in rows] == builtin_ids()
    grenoble = next(r for r in rows if r["id"] == "duel-grenoble")
    assert grenoble["players"] == {"min": 3, "max": 4} and grenoble["house_rule"] is True
    assert all(r["valid"] and r["description"] for r in rows)


# ------------------------------------------------------------------ lc show


@pytest.mark.parametrize("pack_id", builtin_ids())
def test_show_prints_a_pack_that_loads_back_to_the_same_rules(pack_id: str,
                                                              tmp_path: Path) -> None:
    result = lc("show", pack_id)
    assert result.exit_code == 0
    assert result.stdout.startswith(f"# {pack_id}, resolved: ")
    copy = tmp_path / "copy.yaml"
    copy.write_text(result.stdout.replace(f"id: {pack_id}", "id: copy-of-it", 1))
    assert check_pack(str(copy)) == []
    again = resolve_pack(str(copy)).data
    original = resolve_pack(pack_id).data
    assert {**again, "id": pack_id} == original


def test_show_yaml_keeps_formulas_as_blocks() -> None:
    out = lc("show", "duel-classic").stdout
    assert "  expedition: |\n    if cards == 0 then 0\n" in out
    assert "players: {min: 2, max: 2}" in out


def test_show_json() -> None:
    result = lc("show", "duel-grenoble", "--json")
    data = json.loads(result.stdout)
    assert data == resolve_pack("duel-grenoble").data
    assert data["hand_size"] == 7 and data["turn"]["turn_cap"] == 1000


def test_show_explain_names_file_and_line_of_each_value() -> None:
    result = lc("show", "duel-grenoble", "--explain")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("# duel-grenoble: ") and " extends " in lines[0]
    by_key = {line.split("  ")[-1].strip().split(" = ")[0]: line for line in lines[1:]}
    for key, pack_id, text in [("hand_size", "duel-grenoble", "hand_size: 7"),
                               ("deck.copies", "duel-classic", "  copies: 1"),
                               ("rows.start", "duel-classic", "  start: any")]:
        source = locate(pack_id)[0].read_text().splitlines()
        line = next(i for i, ln in enumerate(source, 1) if ln.startswith(text))
        col = source[line - 1].index(":") + 3
        assert by_key[key].split()[0].endswith(f"{pack_id}.yaml:{line}:{col}"), by_key[key]
    assert by_key["scoring.tables"].startswith("(default)")
    assert by_key["scoring.constants.cost"].endswith("= 15")
    leaves = sum(1 for _ in lines[1:])
    assert leaves == len(json.loads(lc("show", "duel-grenoble", "--explain", "--json")
                                    .stdout)["values"])


def test_show_explain_json() -> None:
    doc = json.loads(lc("show", "board-short", "--explain", "--json").stdout)
    assert doc["id"] == "board-short" and doc["files"][1].endswith("board-classic.yaml")
    values = {v["path"]: v for v in doc["values"]}
    assert values["match.rounds"]["value"] == 1
    assert values["match.rounds"]["file"].endswith("board-short.yaml")
    assert values["board.spaces"]["file"].endswith("board-classic.yaml")
    assert values["scoring.tables.artefact_scale[0]"]["value"] == -10
    assert values["scoring.constants"] == {"path": "scoring.constants", "value": {},
                                           "file": None, "line": None, "col": None,
                                           "default": True}


def test_show_a_file(tmp_path: Path) -> None:
    pack = tmp_path / "h.yaml"
    pack.write_text("id: h\nextends: duel-six\nhand_size: 6\n")
    result = lc("show", str(pack), "--explain")
    assert f"{pack}:3:12" in result.stdout


def test_show_unknown_pack_is_a_usage_error() -> None:
    result = lc("show", "duel-clasic")
    assert result.exit_code == 2
    assert result.stderr == ("lc: error: duel-clasic: error LC009 no such built-in pack or "
                             "file (did you mean `duel-classic`?)\n")


def test_show_invalid_pack_lists_its_problems() -> None:
    result = lc("show", str(INVALID / "LC030-unknown-key.yaml"))
    assert result.exit_code == 1
    assert result.stderr.startswith("lc: error: ") and "LC030" in result.stderr
    assert result.stdout == ""
    cycle = lc("show", str(INVALID / "LC021-extends-cycle.yaml"))
    assert cycle.exit_code == 1 and "LC021" in cycle.stderr


def test_show_of_a_pack_with_several_problems_is_one_line(tmp_path: Path) -> None:
    """Two problems (board-classic without its round_end line) give the first and a count."""
    text = (BUILTIN / "board-classic.yaml").read_text(encoding="utf-8")
    broken = tmp_path / "broken.yaml"
    broken.write_text("".join(line for line in text.splitlines(keepends=True)
                              if not line.lstrip().startswith("round_end:")), encoding="utf-8")
    for args in (("show", str(broken)), ("show", "--explain", str(broken))):
        result = lc(*args)
        assert result.exit_code == 1
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("lc: error: ")
        assert "LC030" in lines[0] and f"(and 1 more; lc validate {broken} lists them all)" in lines[0]


# ------------------------------------------------------------------ lc schema


def test_schema_prints_the_shipped_schema() -> None:
    result = lc("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == pack_schema()


# ------------------------------------------------------------------ lc new


def test_new_writes_a_valid_commented_house_pack(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = lc("new", "Friday Night.yaml", "--from", "duel-classic")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "Friday Night.yaml").read_text()
    assert text.startswith("# yaml-language-server: $schema=")
    schema_ref = text.splitlines()[0].split("$schema=")[1]
    assert Path(schema_ref).name == "pack.schema.json" and Path(schema_ref).is_absolute()
    assert "\nid: friday-night\nextends: duel-classic\n" in text
    assert "house_rule: true" in text
    assert "#     cost: 20" in text  # the base's own values, commented
    report = validate_pack("Friday Night.yaml")
    assert report.valid and report.id == "friday-night"
    assert report.pack.house_rule and report.pack.hand_size == 8
    assert "wrote Friday Night.yaml (id friday-night, extends duel-classic)" in result.stdout
    # no schema copy around it: the modeline is this machine's, and lc new says so
    assert "note: its $schema line points into this Python install" in result.stdout
    assert "lc schema > pack.schema.json" in result.stdout


def test_new_points_to_a_schema_copy_in_the_folder_or_a_parent(tmp_path: Path) -> None:
    """A house pack meant to be shared refers to the schema by a relative path."""
    assert lc("schema").exit_code == 0
    (tmp_path / "pack.schema.json").write_text(lc("schema").stdout)
    (tmp_path / "house" / "club").mkdir(parents=True)
    for target, ref in ((tmp_path / "here.yaml", "pack.schema.json"),
                        (tmp_path / "house" / "club" / "deep.yaml", "../../pack.schema.json")):
        result = lc("new", str(target))
        assert result.exit_code == 0, result.output
        assert target.read_text().splitlines()[0] == f"# yaml-language-server: $schema={ref}"
        assert (target.parent / ref).resolve() == (tmp_path / "pack.schema.json").resolve()
        assert "note:" not in result.stdout
        assert check_pack(str(target)) == []


def test_new_uncommented_examples_still_validate(tmp_path: Path) -> None:
    """The commented lines are the base's values: uncommenting them all keeps it valid."""
    target = tmp_path / "club.yaml"
    assert lc("new", str(target), "--from", "board-classic").exit_code == 0
    lines = target.read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("# Uncomment"))
    target.write_text("\n".join(lines[:start + 1] + [ln[2:] for ln in lines[start + 1:]]) + "\n")
    assert check_pack(str(target)) == []
    assert resolve_pack(str(target)).data["rows"]["ordering"] == "non-decreasing"


def test_new_refuses_to_overwrite_unless_forced(tmp_path: Path) -> None:
    target = tmp_path / "mine.yaml"
    target.write_text("keep me\n")
    result = lc("new", str(target))
    assert result.exit_code == 2 and "already exists; use --force" in result.stderr
    assert target.read_text() == "keep me\n"
    assert lc("new", str(target), "--force").exit_code == 0
    assert check_pack(str(target)) == []


def test_new_from_a_file_extends_it_by_relative_path(tmp_path: Path) -> None:
    (tmp_path / "bases").mkdir()  # a base below the house pack's folder (packs extend
    base = tmp_path / "bases" / "club.yaml"  # files in their folder or below it)
    base.write_text("id: club\nextends: duel-classic\nhand_size: 7\n")
    target = tmp_path / "club.yaml"
    result = lc("new", str(target), "--from", str(base))
    assert result.exit_code == 0, result.output
    text = target.read_text()
    assert "extends: bases/club.yaml" in text
    assert "id: club-house" in text  # the file name would repeat the base's id
    assert validate_pack(str(target)).pack.hand_size == 7


def test_new_usage_errors(tmp_path: Path) -> None:
    assert lc("new", str(tmp_path / "x.txt")).exit_code == 2
    assert lc("new", str(tmp_path / "no" / "x.yaml")).exit_code == 2
    result = lc("new", str(tmp_path / "x.yaml"), "--from", "duel-nope")
    assert result.exit_code == 2 and "LC009" in result.stderr
    assert not (tmp_path / "x.yaml").exists()
    broken = lc("new", str(tmp_path / "y.yaml"), "--from",
                str(INVALID / "LC030-unknown-key.yaml"))
    assert broken.exit_code == 1 and not (tmp_path / "y.yaml").exists()


@pytest.mark.parametrize("name,taken,expected", [
    ("my-house.yaml", set(), "my-house"),
    ("My House!.yaml", set(), "my-house"),
    ("___.yaml", set(), "house"),
    ("duel-classic.yaml", {"duel-classic"}, "duel-classic-house"),
])
def test_house_pack_id(name: str, taken: set[str], expected: str) -> None:
    assert house_pack_id(Path(name), taken) == expected


# ------------------------------------------------------------------ completion


def test_complete_pack() -> None:
    assert complete_pack("duel-") == [i for i in builtin_ids() if i.startswith("duel-")]
    assert complete_pack("board-s") == ["board-short"]
    assert complete_pack("zzz") == []


def test_complete_pack_or_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "duel-mine.yaml").write_text("")
    (tmp_path / "duel-notes.txt").write_text("")
    (tmp_path / "duel-dir").mkdir()
    assert complete_pack_or_file("duel-s") == ["duel-six"]
    got = complete_pack_or_file("duel-")
    assert got[:len(complete_pack("duel-"))] == complete_pack("duel-")
    assert "duel-mine.yaml" in got and "duel-dir/" in got and "duel-notes.txt" not in got


def test_shell_completion_offers_pack_ids() -> None:
    """Through click's completion protocol, as the shell would ask."""
    result = CliRunner().invoke(app, [], prog_name="lc", env={
        "_LC_COMPLETE": "complete_bash", "COMP_WORDS": "lc show board-u", "COMP_CWORD": "2"})
    assert "board-updown" in result.stdout


# ------------------------------------------------------------------- hostile paths (#12)

@pytest.mark.parametrize("command", [["show"], ["show", "--explain"], ["new"],
                                     ["new", "{tmp}/ok.yaml", "--from"]])
def test_a_path_too_long_for_the_file_system_is_one_line_exit_2(tmp_path: Path, command):
    long = str(tmp_path / ("a" * 300 + ".yaml"))
    line = one_line_error(lc(*(c.format(tmp=tmp_path) for c in command), long), 2)
    assert not (tmp_path / "ok.yaml").exists()
    assert "longer than 255 bytes" in line and len(line) < 400


def test_new_never_writes_over_a_folder_a_pipe_or_through_a_link(tmp_path: Path) -> None:
    import os

    folder = tmp_path / "dir.yaml"
    folder.mkdir()
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    kept = tmp_path / "kept.yaml"
    kept.write_text("keep me\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(kept)
    dangling = tmp_path / "dangling.yaml"
    dangling.symlink_to(tmp_path / "nowhere.yaml")
    for target, says in ((folder, "is a folder"), (fifo, "is a pipe"),
                         (link, "symbolic link"), (dangling, "symbolic link")):
        for force in ([], ["--force"]):  # a FIFO with --force used to block forever
            assert says in one_line_error(lc("new", str(target), *force), 2)
    assert kept.read_text() == "keep me\n" and not (tmp_path / "nowhere.yaml").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "dangling.yaml", "dir.yaml", "kept.yaml", "link.yaml", "pipe.yaml"]


def test_new_with_force_replaces_the_file_whole_and_leaves_no_temporary(tmp_path: Path):
    target = tmp_path / "mine.yaml"
    target.write_text("old\n")
    assert lc("new", str(target), "--force").exit_code == 0
    assert target.read_text().startswith("# yaml-language-server")
    assert [p.name for p in tmp_path.iterdir()] == ["mine.yaml"]


def _locations(stdout: str) -> list[str]:
    return [line.split()[0] for line in stdout.splitlines()[1:]]


@pytest.mark.parametrize("where", ["elsewhere", "package"])
def test_show_explain_names_builtins_by_file_name(where: str, tmp_path: Path,
                                                  monkeypatch) -> None:
    """Issue #13: built-ins were shown by their site-packages path (150-column lines); now
    ``duel-classic.yaml:49:12`` wherever the package is installed and whatever the working
    folder (even the one holding the package's rulepacks folder)."""
    from lostcities.engine.packs.loader import builtin_dir

    monkeypatch.chdir(tmp_path if where == "elsewhere" else builtin_dir().parent)
    result = lc("show", "duel-grenoble", "--explain")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == ("# duel-grenoble: duel-grenoble.yaml (built-in) extends "
                        "duel-classic.yaml (built-in)")
    assert str(builtin_dir()) not in result.stdout
    files = {loc.rsplit(":", 2)[0] for loc in _locations(result.stdout) if loc != "(default)"}
    assert files == {"duel-grenoble.yaml", "duel-classic.yaml"}
    source = locate("duel-classic")[0].read_text().splitlines()
    line = next(i for i, text in enumerate(source, 1) if text.startswith("  copies: 1"))
    assert any(row.startswith(f"duel-classic.yaml:{line}:11 ") and "deck.copies = 1" in row
               for row in lines)
    plain = lc("show", "duel-grenoble").stdout.splitlines()[0]
    assert plain == ("# duel-grenoble, resolved: duel-grenoble.yaml (built-in) extends "
                     "duel-classic.yaml (built-in); defaults filled in")


def test_show_explain_names_files_from_the_working_folder(tmp_path: Path,
                                                          monkeypatch) -> None:
    club = tmp_path / "club"
    club.mkdir()
    (club / "base.yaml").write_text("id: club-base\nextends: duel-six\nhand_size: 7\n")
    (club / "house.yaml").write_text("id: house\nextends: ./base.yaml\nhand_size: 6\n")
    monkeypatch.chdir(tmp_path)
    for given in (str(club / "house.yaml"), "club/house.yaml", "./club/../club/house.yaml"):
        result = lc("show", given, "--explain")
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert lines[0] == ("# house: club/house.yaml extends club/base.yaml extends "
                            "duel-six.yaml (built-in) extends duel-classic.yaml (built-in)")
        assert any(row.startswith("club/house.yaml:3:12 ") and "hand_size = 6" in row
                   for row in lines)
        assert str(tmp_path) not in result.stdout
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # outside the working folder: absolute
    result = lc("show", "../club/house.yaml", "--explain")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith(
        f"# house: {club / 'house.yaml'} extends {club / 'base.yaml'} extends duel-six.yaml")
    assert f"{club / 'house.yaml'}:3:12 " in result.stdout
    assert not any(".." in loc for loc in _locations(result.stdout))
