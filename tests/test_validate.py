"""``lc validate``: formats, exit codes, summaries, and the shipped pre-commit hook."""
from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.engine.packs.loader import builtin_dir

ROOT = Path(__file__).resolve().parents[1]
INVALID = ROOT / "tests" / "fixtures" / "packs" / "invalid"
VALID = ROOT / "tests" / "fixtures" / "packs" / "valid"


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, ["validate", *args], env={"GITHUB_ACTIONS": "", **(env or {})})


def test_every_builtin_pack_file_is_valid() -> None:
    """What CI runs: `lc validate rulepacks/*` (non-YAML files are skipped)."""
    files = sorted(str(p) for p in builtin_dir().iterdir())
    result = run(*files)
    assert result.exit_code == 0, result.output
    assert " error " not in result.stdout
    assert result.stderr.startswith("10 packs checked, all valid")
    assert "skipped (not .yaml/.yml)" in result.stderr


def test_builtin_ids_and_folders() -> None:
    assert run("duel-classic", "board-short").exit_code == 0
    result = run(str(VALID))
    assert result.exit_code == 0
    assert result.stderr.startswith(f"{len(list(VALID.glob('*.yaml')))} packs checked")


def test_text_lines_and_summary(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\nextends: duel-classic\nhand_sise: 7\nrows:\n  ordering: up\n")
    result = run(str(bad), "duel-classic")
    assert result.exit_code == 1
    errors = [line for line in result.stdout.splitlines() if " error " in line]
    assert errors == [
        f"{bad}:3:1: error LC030 unknown key `hand_sise` (did you mean `hand_size`?)",
        f"{bad}:5:13: error LC033 `rows.ordering` must be one of strict, non-decreasing, "
        "either-direction; not the text `up`",
    ]
    assert result.stderr == "2 packs checked, 1 with problems (2 problems)\n"


def test_all_problems_of_all_files_are_reported() -> None:
    files = sorted(str(p) for p in INVALID.glob("LC*.yaml"))
    result = run(*files)
    assert result.exit_code == 1
    codes = {line.split(" error ")[1][:5] for line in result.stdout.splitlines()
             if " error " in line}
    assert codes == {Path(f).name[:5] for f in files}
    assert result.stderr.startswith(f"{len(files)} packs checked, {len(files)} with problems")


def test_every_unknown_name_of_a_formula_is_reported_with_its_file_and_line(
        tmp_path: Path) -> None:
    """Not only the first: every unknown field and function of each formula, in text
    order, each on its own line with file, line and column (a name bound by ``let`` or
    ``for`` is known where it is in view, and a known name is not reported)."""
    bad = tmp_path / "names.yaml"
    bad.write_text("id: names\nextends: duel-classic\nhouse_rule: true\nscoring:\n"
                   "  expedition: sum(values) + foo * bar - baz\n"
                   "  round: let q = 1 in sum(e.score for e in expeditions) + q + e + frob(2)\n",
                   encoding="utf-8")
    result = run(str(bad))
    assert result.exit_code == 1
    errors = [line.split(" (")[0].split(";")[0] for line in result.stdout.splitlines()
              if " error " in line]
    assert errors == [
        f"{bad}:5:29: error LC102 unknown field `foo` in scoring.expedition",
        f"{bad}:5:35: error LC102 unknown field `bar` in scoring.expedition",
        f"{bad}:5:41: error LC102 unknown field `baz` in scoring.expedition",
        f"{bad}:6:63: error LC102 unknown field `e` in scoring.round",
        f"{bad}:6:67: error LC102 unknown function `frob` in scoring.round",
    ]
    assert result.stderr == "1 pack checked, 1 with problems (5 problems)\n"
    problems = json.loads(run("--format", "json", str(bad)).stdout)["packs"][0]["problems"]
    assert [(p["line"], p["col"]) for p in problems] == [(5, 29), (5, 35), (5, 41), (6, 63),
                                                         (6, 67)]


def test_json_is_one_document(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\nextends: duel-classic\nhand_size: 30\n")
    result = run("--format", "json", str(bad), "duel-six")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert (doc["checked"], doc["invalid"]) == (2, 1)
    first, second = doc["packs"]
    assert first["valid"] is False and first["id"] == "bad"
    assert first["problems"] == [{"file": str(bad), "line": 3, "col": 12, "code": "LC040",
                                  "message": first["problems"][0]["message"],
                                  "hint": first["problems"][0]["hint"], "excerpt": ""}]
    assert second["valid"] is True and second["problems"] == []


def test_a_formula_problem_shows_its_caret_excerpt(tmp_path: Path) -> None:
    bad = tmp_path / "typo.yaml"
    bad.write_text("id: typo\nextends: duel-classic\nscoring:\n  expedition: |\n"
                   "    if cards == 0 then 0\n    else (points - cost) * (1 + wager)\n")
    result = run(str(bad))
    assert result.exit_code == 1
    first, *excerpt = result.stdout.splitlines()
    assert first == (f"{bad}:6:33: error LC102 unknown field `wager` in scoring.expedition "
                     "(did you mean `wagers`?)")
    assert excerpt[0] == "    6 |     else (points - cost) * (1 + wager)"  # the file's own line
    # the carets stand under `wager`, whatever the width of the line-number gutter
    assert excerpt[1].index("^") == excerpt[0].index("wager)") and excerpt[1].count("^") == 5
    doc = json.loads(run("--format", "json", str(bad)).stdout)
    [problem] = doc["packs"][0]["problems"]
    assert problem["excerpt"].splitlines() == excerpt


def test_github_annotations(tmp_path: Path) -> None:
    bad = tmp_path / "a,b.yaml"
    bad.write_text("id: bad\nextends: duel-classic\nmatch:\n  rounds: 0\n")
    result = run("-f", "github", str(bad))
    assert result.exit_code == 1
    [line] = [x for x in result.stdout.splitlines() if x.startswith("::error")]
    escaped = str(bad).replace(":", "%3A").replace(",", "%2C")
    # the title is the code (GitHub shows it in bold), the message does not repeat it
    assert line == (f"::error file={escaped},line=4,col=11,title=LC033::"
                    "`match.rounds` must be at least 1, not 0")


def test_github_annotations_escape_the_data_they_carry(tmp_path: Path, monkeypatch) -> None:
    """Issue #13: the file name and the message are data: ``%``, CR and LF are escaped
    everywhere, ``,`` and ``:`` in properties, and a hint follows the message."""
    monkeypatch.chdir(tmp_path)
    name = "50%,a:b\r\nc.yaml"
    (tmp_path / name).write_text('id: bad\nextends: duel-classic\nhand_sise: 7\n'
                                 '"k%25:,\\r\\n": 1\n')
    result = run("-f", "github", name)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "::error file=50%25%2Ca%3Ab%0D%0Ac.yaml,line=3,col=1,title=LC030::"
        "unknown key `hand_sise` (did you mean `hand_size`?)",
        "::error file=50%25%2Ca%3Ab%0D%0Ac.yaml,line=4,col=1,title=LC030::"
        "unknown key `k%2525:,\\r\\n` (allowed here: id, extends, name, description, family, "
        "house_rule, sources, players, deck, hand_size, rows, wagers, turn, round_end, match, board, "
        "scoring)",
    ]
    assert "LC030::LC030" not in result.stdout


def test_github_is_automatic_under_github_actions(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\nextends: duel-classic\nhand_size: 0\n")
    result = run(str(bad), env={"GITHUB_ACTIONS": "true"})
    assert result.stdout.startswith("::error file=")
    assert run("-f", "text", str(bad), env={"GITHUB_ACTIONS": "true"}).stdout.startswith(
        str(bad))


def test_a_file_level_problem_has_no_line_in_annotations(tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    result = run("-f", "github", str(empty))
    assert result.stdout.startswith(f"::error file={empty},title=LC008::")
    assert run(str(empty)).stdout.startswith(f"{empty}: error LC008 ")


def test_yaml_errors_broken_extends_and_limits_are_problems_not_crashes() -> None:
    for name in ("LC001-syntax-error.yaml", "LC020-unknown-base.yaml",
                 "LC005-billion-laughs.yaml", "LC009-not-utf8.yaml"):
        result = run(str(INVALID / name))
        assert result.exit_code == 1, name
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert "Traceback" not in result.output


def test_missing_path_is_a_usage_error_but_the_rest_is_checked(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nope.yaml"), "duel-classic")
    assert result.exit_code == 2
    assert f"lc: error: {tmp_path / 'nope.yaml'}: no such file, folder or built-in pack" \
        in result.stderr
    assert "1 pack checked, no problems in it; 1 path could not be used" in result.stderr
    assert "all valid" not in result.stderr


def test_no_arguments_or_nothing_to_check_is_a_usage_error(tmp_path: Path) -> None:
    assert run().exit_code == 2
    (tmp_path / "notes.txt").write_text("x")
    result = run(str(tmp_path / "notes.txt"))
    assert result.exit_code == 2 and "nothing to validate" in result.stderr
    assert run("--format", "xml", "duel-classic").exit_code == 2


def test_unreadable_file_is_a_usage_error(tmp_path: Path, monkeypatch) -> None:
    locked = tmp_path / "locked.yaml"
    locked.write_text("id: x\n")
    import lostcities.cli.validate as command
    # as if without read permission (which root, running tests in CI images, ignores)
    monkeypatch.setattr(command.os, "access", lambda path, mode: Path(path) != locked)
    result = run(str(locked), "duel-classic")
    assert result.exit_code == 2
    assert f"lc: error: {locked}: cannot be read (permission denied)" in result.stderr
    assert "1 pack checked, no problems in it; 1 path could not be used" in result.stderr
    assert "all valid" not in result.stderr


def test_notes_from_a_shared_base_are_printed_once() -> None:
    result = run("duel-classic", "duel-six", "duel-equal")
    notes = [line for line in result.stdout.splitlines() if " note " in line]
    assert len(notes) == len(set(notes))


def test_pre_commit_hook_runs_lc_validate() -> None:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "lc-validate"
    assert hook["entry"] == "lc validate"
    assert hook["language"] == "python"
    pattern = re.compile(hook["files"])
    assert pattern.search("rulepacks/duel-classic.yaml") and pattern.search("packs/x.yml")
    assert not pattern.search(".github/workflows/ci.yaml")


def test_a_missing_path_alone_is_one_error_line_and_no_summary(tmp_path: Path,
                                                                monkeypatch) -> None:
    """Issue #13: `lc validate none.yaml` said the error, then "0 packs checked, all valid"."""
    monkeypatch.chdir(tmp_path)
    result = run("none.yaml")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr == "lc: error: none.yaml: no such file, folder or built-in pack\n"
    assert result.stdout == ""


def test_the_summary_after_an_error_reads_naturally(tmp_path: Path, monkeypatch) -> None:
    """Never "all valid" after an error; "it" for one pack, "them" for more, counts with
    their nouns."""
    monkeypatch.chdir(tmp_path)
    result = run("duel-classic", "duel-six", "none.yaml", "gone.yml")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "2 packs checked, no problems in them; 2 paths could not be used")
    import lostcities.cli.validate as command  # lc validate calls the public validate_pack
    import lostcities.engine.errors as errors

    real = command.validate_pack

    def refuse(source, **options):  # a library error other than a pack's problems
        if source == "duel-six":
            raise errors.InputError("duel-six: cannot be read")
        return real(source, **options)

    monkeypatch.setattr(command, "validate_pack", refuse)
    result = run("duel-classic", "duel-six")
    assert result.exit_code == 1
    assert result.stderr == ("lc: error: duel-six: duel-six: cannot be read\n"
                             "1 pack checked, no problems in it; 1 pack could not be checked\n")
    result = run("duel-six")  # none could be checked: the error line says it all
    assert result.exit_code == 1
    assert result.stderr == "lc: error: duel-six: duel-six: cannot be read\n"


def test_summary_wording() -> None:
    from lostcities.cli.validate import summary
    from lostcities.engine.errors import Problem
    from lostcities.engine.packs.loader import PackReport

    good = PackReport("a", "a.yaml", ())
    bad = PackReport("b", "b.yaml", (Problem("b.yaml", 1, 1, "LC030", "x"),))
    assert summary([good, good], []) == "2 packs checked, all valid"
    assert summary([good, bad], ["n.txt"]) == (
        "2 packs checked, 1 with problems (1 problem); 1 file skipped (not .yaml/.yml)")
    assert summary([good], [], unusable=1) == "1 pack checked, no problems in it; " \
        "1 path could not be used"
    assert summary([], [], failed=2) == "no pack could be checked"
    assert summary([], [], unusable=3) == "no pack could be checked; 3 paths could not be used"
