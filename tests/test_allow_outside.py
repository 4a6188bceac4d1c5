"""``--allow-outside`` (issue #12, item 13): a pack's ``extends:`` stays in the folder of the
pack named unless the person at the keyboard allows more, on every command that loads a pack
from a path, down to the worker processes of lc simulate and lc balance.

The club layout of every test: ``club/house.yaml`` extends ``../bases/x.yaml``. Without the
flag each command says LC025 in one line and exits 1; with it, the command works.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from enginehelpers import one_error_line
from lostcities.cli.app import app
from lostcities.engine.lab.balance import BalanceJob, balance, run_batch
from lostcities.engine.errors import LostCitiesError, PackError
from lostcities.engine.packs.loader import load_pack, validate_pack
from lostcities.engine.lab.simulation import simulate

LC = Path(sys.executable).with_name("lc")
FLAG = "--allow-outside"
BOTS = "random,random"


def lc(*args: str, cwd: Path | None = None):
    """``lc ARGS`` in this process, from ``cwd``."""
    old = os.getcwd()
    os.chdir(cwd or old)
    try:
        return CliRunner().invoke(app, list(args))
    finally:
        os.chdir(old)


def lc_process(*args: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess:
    """``lc ARGS`` as its own process: a pool whose workers cannot load the pack would
    start worker after worker, so the timeout turns a hang into a failure."""
    return subprocess.run([str(LC), *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout)


def refused(result, code: int = 1) -> str:
    """The one LC025 line of a refused command (exit ``code``)."""
    exit_code = result.exit_code if hasattr(result, "exit_code") else result.returncode
    assert exit_code == code, (exit_code, result.stdout, result.stderr)
    line = one_error_line(result.stderr)
    assert "LC025" in line, line
    return line


def ok(result) -> str:
    exit_code = result.exit_code if hasattr(result, "exit_code") else result.returncode
    assert exit_code == 0, (exit_code, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


@pytest.fixture
def club(tmp_path: Path) -> Path:
    """``club/house.yaml`` extends ``../bases/x.yaml`` (which extends duel-classic)."""
    (tmp_path / "bases").mkdir()
    (tmp_path / "club").mkdir()
    (tmp_path / "bases" / "x.yaml").write_text(
        "id: club-base\nextends: duel-classic\nname: Club base\n"
        "scoring:\n  constants:\n    cost: 15\n", encoding="utf-8")
    (tmp_path / "club" / "house.yaml").write_text(
        "id: house\nextends: ../bases/x.yaml\nname: House\nhouse_rule: true\n",
        encoding="utf-8")
    return tmp_path


HOUSE = "club/house.yaml"


# ------------------------------------------------------------------ one command each

def validate_refused(result) -> None:
    """lc validate's way: the problem on stdout (one line, LC025), its summary on stderr."""
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and " error LC025 " in lines[0], result.stdout
    assert result.stderr == "1 pack checked, 1 with problems (1 problem)\n"


def test_validate(club):
    validate_refused(lc("validate", HOUSE, cwd=club))
    result = lc("validate", FLAG, HOUSE, cwd=club)
    ok(result)
    assert "all valid" in result.stderr


def test_validate_a_folder(club):
    result = lc("validate", "club", cwd=club)
    assert result.exit_code == 1 and "LC025" in result.stdout
    ok(lc("validate", FLAG, "club", "bases", cwd=club))


def test_show(club):
    refused(lc("show", HOUSE, cwd=club))
    out = ok(lc("show", HOUSE, FLAG, cwd=club))
    assert out.startswith("# house, resolved: club/house.yaml extends bases/x.yaml")
    assert "cost: 15" in out
    explained = ok(lc("show", HOUSE, FLAG, "--explain", "--json", cwd=club))
    assert "bases/x.yaml" in json.loads(explained)["files"]


def test_explain(club):
    refused(lc("explain", HOUSE, cwd=club))
    out = ok(lc("explain", HOUSE, FLAG, "--lang", "en", cwd=club))
    assert "House" in out
    # the worked example's command works as printed: it carries the flag
    assert f"lc score --pack {HOUSE} {FLAG}" in " ".join(out.split())


def test_explain_of_a_pack_inside_its_folder_is_unchanged_by_the_flag(club):
    plain = ok(lc("explain", "bases/x.yaml", "--lang", "en", cwd=club))
    assert ok(lc("explain", "bases/x.yaml", FLAG, "--lang", "en", cwd=club)) == plain
    assert FLAG not in plain


def test_score(club):
    refused(lc("score", "--pack", HOUSE, "r5", "r8", cwd=club))
    out = ok(lc("score", "--pack", HOUSE, FLAG, "--json", "r5", "r8", cwd=club))
    assert json.loads(out)["pack"] == "house"
    assert json.loads(out)["total"] == 5 + 8 - 15  # the base's cost: 15


@pytest.mark.parametrize("workers", ["1", "2"])
def test_simulate(club, workers):
    args = ("simulate", "--pack", HOUSE, "--games", "2", "--bots", BOTS,
            "--workers", workers, "--json")
    refused(lc_process(*args, cwd=club))
    summary = json.loads(ok(lc_process(*args, FLAG, cwd=club)))
    assert summary["pack"] == "house" and summary["games"] == 2


def test_simulate_results_do_not_depend_on_workers(club):
    args = ("simulate", "--pack", HOUSE, "--games", "6", "--bots", BOTS, "--json", FLAG)
    one = json.loads(ok(lc_process(*args, "--workers", "1", cwd=club)))
    two = json.loads(ok(lc_process(*args, "--workers", "2", cwd=club)))
    assert one == two


def test_balance(club):
    args = ("balance", HOUSE, "--base", "bases/x.yaml", "--games", "4", "--bots", BOTS,
            "--workers", "1", "--json")
    line = refused(lc(*args, cwd=club))
    assert line.startswith("lc: error: HOUSE_PACK: ")
    report = json.loads(ok(lc(*args, FLAG, cwd=club)))
    assert (report["house"], report["base"], report["games"]) == ("house", "club-base", 4)


def test_balance_base_pack_too(club):
    # the --base pack is loaded with the flag as well
    args = ("balance", "duel-classic", "--base", HOUSE, "--games", "4", "--bots", BOTS,
            "--workers", "1", "--json")
    assert refused(lc(*args, cwd=club)).startswith("lc: error: --base: ")
    assert json.loads(ok(lc(*args, FLAG, cwd=club)))["base"] == "house"


def test_balance_with_two_workers(club):
    args = ("balance", HOUSE, "--games", "10", "--bots", BOTS, "--workers", "2", "--json")
    refused(lc_process(*args, cwd=club))
    assert json.loads(ok(lc_process(*args, FLAG, cwd=club)))["games"] == 10


def test_replay_pack(club):
    record = club / "games.jsonl"
    ok(lc("simulate", "--pack", HOUSE, FLAG, "--games", "2", "--bots", BOTS,
          "--record", str(record), cwd=club))
    refused(lc("replay", "--check", "--pack", HOUSE, str(record), cwd=club))
    out = ok(lc("replay", "--check", "--pack", HOUSE, FLAG, str(record), cwd=club))
    assert "2 match(es) replayed" in out
    shown = ok(lc("replay", "--pack", HOUSE, FLAG, "--game", "2", str(record), cwd=club))
    assert "Every move and every score checked." in shown


# ------------------------------------------------------------------------ lc new

def test_new_refuses_before_writing(club):
    line = refused(lc("new", "club/friday.yaml", "--from", "bases/x.yaml", cwd=club))
    assert "nothing was written" in line and FLAG in line
    assert sorted(p.name for p in (club / "club").iterdir()) == ["house.yaml"]


def test_new_refuses_before_replacing_with_force(club):
    target = club / "club" / "friday.yaml"
    target.write_text("id: mine\nextends: duel-classic\n", encoding="utf-8")
    refused(lc("new", "club/friday.yaml", "--from", "bases/x.yaml", "--force", cwd=club))
    assert target.read_text(encoding="utf-8") == "id: mine\nextends: duel-classic\n"


def test_new_with_the_flag_writes_a_valid_pack(club):
    out = ok(lc("new", "club/friday.yaml", "--from", "bases/x.yaml", FLAG, cwd=club))
    assert f"lc validate {FLAG} club/friday.yaml" in out
    text = (club / "club" / "friday.yaml").read_text(encoding="utf-8")
    assert "extends: ../bases/x.yaml\n" in text
    assert f"lc validate {FLAG} club/friday.yaml" in text  # its own comment says so too
    pack = club / "club" / "friday.yaml"
    assert validate_pack(pack, allow_outside=True).valid
    assert [p.code for p in validate_pack(pack).problems] == ["LC025"]


def test_new_from_a_base_in_its_folder_needs_no_flag(club):
    (club / "club" / "base").mkdir()
    (club / "club" / "base" / "y.yaml").write_text("id: y\nextends: duel-classic\n",
                                                   encoding="utf-8")
    out = ok(lc("new", "club/friday.yaml", "--from", "club/base/y.yaml", cwd=club))
    assert FLAG not in out
    assert "extends: base/y.yaml\n" in (club / "club" / "friday.yaml").read_text()
    assert validate_pack(club / "club" / "friday.yaml").valid


def test_new_from_a_link_that_leads_outside(club):
    (club / "club" / "link.yaml").symlink_to(club / "bases" / "x.yaml")
    refused(lc("new", "club/friday.yaml", "--from", "club/link.yaml", cwd=club))
    assert not (club / "club" / "friday.yaml").exists()
    ok(lc("new", "club/friday.yaml", "--from", "club/link.yaml", FLAG, cwd=club))
    assert "extends: ./link.yaml\n" in (club / "club" / "friday.yaml").read_text()


_PART = st.sampled_from(["a", "b"])


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(base_dir=st.lists(_PART, max_size=2), pack_dir=st.lists(_PART, max_size=2))
def test_new_refuses_exactly_what_the_loader_refuses(base_dir, pack_dir):
    """Whatever the folders of the base and the new pack, lc new without the flag refuses
    (writing nothing) exactly when the pack it writes with the flag fails LC025 without it."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        base = root.joinpath(*base_dir, "x.yaml")
        base.parent.mkdir(parents=True, exist_ok=True)
        base.write_text("id: x\nextends: duel-classic\n", encoding="utf-8")
        target = root.joinpath(*pack_dir, "h.yaml")
        target.parent.mkdir(parents=True, exist_ok=True)
        plain = lc("new", str(target.relative_to(root)), "--from",
                   str(base.relative_to(root)), cwd=root)
        assert plain.exit_code in (0, 1), plain.stderr
        if plain.exit_code:
            refused(plain)
            assert not target.exists()
            ok(lc("new", str(target.relative_to(root)), "--from",
                  str(base.relative_to(root)), FLAG, cwd=root))
        assert validate_pack(target, allow_outside=True).valid
        codes = [p.code for p in validate_pack(target).problems]
        assert codes == (["LC025"] if plain.exit_code else [])


# ------------------------------------------------------------------------ library

def test_simulate_library_keyword(club):
    house = club / "club" / "house.yaml"
    with pytest.raises(PackError) as err:
        simulate(str(house), ["random", "random"], 2)
    assert err.value.code == "LC025"
    one = simulate(str(house), ["random", "random"], 4, allow_outside=True)
    two = simulate(str(house), ["random", "random"], 4, workers=2, allow_outside=True)
    assert one.to_dict() == two.to_dict() and one.pack == "house"


def test_workers_that_cannot_load_the_pack_say_so(club):
    """A RulePack loaded with the permission, given without it: the workers cannot load it
    again, and the run says so in one error instead of starting workers forever."""
    code = (
        "import sys\n"
        "from lostcities.engine.errors import LostCitiesError\n"
        "from lostcities.engine.packs.loader import load_pack\n"
        "from lostcities.engine.lab.simulation import simulate\n"
        "pack = load_pack(sys.argv[1], allow_outside=True)\n"
        "try:\n"
        "    simulate(pack, ['random', 'random'], 4, workers=2)\n"
        "except LostCitiesError as err:\n"
        "    print(err)\n"
        "    sys.exit(3)\n")
    done = subprocess.run([sys.executable, "-c", code, str(club / "club" / "house.yaml")],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "a worker process could not load the pack" in done.stdout
    assert "LC025" in done.stdout and "Traceback" not in done.stderr


def test_balance_job_carries_the_flag_to_workers_that_load_again(club):
    """Ray workers (and any fresh process) load the packs from the job's references."""
    house = str(club / "club" / "house.yaml")
    base = str(club / "bases" / "x.yaml")
    job = BalanceJob(house, base, ("random", "greedy"), 7)
    with pytest.raises(PackError) as err:
        run_batch(job, 0, 1)
    assert err.value.code == "LC025"
    allowed = BalanceJob(house, base, ("random", "greedy"), 7, allow_outside=True)
    assert run_batch(allowed, 0, 2)["games"] == 2


def test_balance_library_keyword(club):
    house = load_pack(club / "club" / "house.yaml", allow_outside=True)
    base = load_pack(club / "bases" / "x.yaml")
    report = balance(house, base, ["random", "random"], 4, workers=1, allow_outside=True)
    assert report.to_dict()["house"] == "house" and report.games == 4


def test_balance_resume_needs_the_flag_again(club):
    """The flag is not part of the run folder: a run started with it resumes only with it
    (without, the pack is refused before the folder is read), and its batches are kept."""
    args = ["balance", HOUSE, "--games", "10", "--bots", BOTS, "--workers", "1", "--json",
            "--resume", "runs/friday"]
    first = json.loads(ok(lc(*args, FLAG, cwd=club)))
    spec = json.loads((club / "runs" / "friday" / "run.json").read_text())
    assert not any("outside" in key for key in spec)
    batches = sorted(p.name for p in (club / "runs" / "friday").glob("batch-*.json"))
    refused(lc(*args, cwd=club))
    again = json.loads(ok(lc(*args, FLAG, cwd=club)))
    assert again == first
    assert sorted(p.name for p in (club / "runs" / "friday").glob("batch-*.json")) == batches


def test_a_run_started_without_the_flag_resumes_with_it(club):
    args = ["balance", "bases/x.yaml", "--games", "10", "--bots", BOTS, "--workers", "1",
            "--json", "--resume", "runs/plain"]
    first = json.loads(ok(lc(*args, cwd=club)))
    assert json.loads(ok(lc(*args, FLAG, cwd=club))) == first


def test_the_option_is_defined_once():
    """Every command that loads a pack from a path takes the same option, with one help."""
    from lostcities.cli import common

    for command in ("validate", "show", "new", "explain", "score", "simulate", "balance",
                    "replay", "play"):
        result = CliRunner().invoke(app, [command, "--help"], terminal_width=200)
        assert result.exit_code == 0
        assert FLAG in result.stdout, command
    assert common.ALLOW_OUTSIDE.help == (
        "Let extends: name files outside the pack's folder (absolute paths, ..)")


def test_an_absolute_extends_with_and_without_the_flag(club):
    pack = club / "club" / "abs.yaml"
    pack.write_text(f"id: abs\nextends: {club / 'bases' / 'x.yaml'}\n", encoding="utf-8")
    validate_refused(lc("validate", "club/abs.yaml", cwd=club))
    ok(lc("validate", "club/abs.yaml", FLAG, cwd=club))
    ok(lc("score", "--pack", "club/abs.yaml", FLAG, "r5", cwd=club))


def test_errors_other_than_lc025_are_unchanged_by_the_flag(club):
    (club / "club" / "broken.yaml").write_text("id: broken\nextends: ../bases/none.yaml\n",
                                               encoding="utf-8")
    for command in (("validate",), ("show",), ("explain",)):
        result = lc(*command, "club/broken.yaml", FLAG, cwd=club)
        assert result.exit_code == 1
        if command != ("validate",):
            assert "LC020" in one_error_line(result.stderr)
    with pytest.raises(LostCitiesError):
        load_pack(club / "club" / "broken.yaml", allow_outside=True)


def test_play_and_its_resume(club):
    """lc play --pack takes the flag; the save stores none, so a resume needs it again."""
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(club / "data")}

    def play(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(LC), "play", *args], capture_output=True, text=True,
                              cwd=club, env=env, input="", timeout=240)

    refused(play("--pack", HOUSE, "--players", "human,bot:random", "--save", "g.json"))
    assert not (club / "g.json").exists()
    started = play("--pack", HOUSE, FLAG, "--players", "human,bot:random", "--seed", "3",
                   "--save", "g.json")
    assert started.returncode == 0, started.stderr
    assert json.loads((club / "g.json").read_text(encoding="utf-8"))["pack"] == "house"
    line = refused(play("--resume", "g.json"))
    assert line.endswith("; if you trust it, resume with --allow-outside")
    resumed = play("--resume", "g.json", FLAG)
    assert resumed.returncode == 0, resumed.stderr
