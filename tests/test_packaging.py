"""The built wheel, not only the editable install: layout, package data, entry point."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True, text=True)
    (found,) = out.glob("lostcities-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The wheel unpacked with pip into a target folder, outside the editable install."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, text=True)
    return target


def run_installed(target: Path, code: str) -> subprocess.CompletedProcess:
    # -S: no site processing, so the editable install's path hook is not loaded; the
    # dependencies come from this interpreter's site-packages put after the wheel's folder.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(target), sysconfig.get_paths()["purelib"]]))
    return subprocess.run([sys.executable, "-S", "-c", code], env=env, capture_output=True, text=True,
                          cwd=target)


def test_wheel_installs_under_one_namespace(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.startswith("lostcities-")}
    assert tops == {"lostcities"}
    for package in ("engine", "cli", "grammar", "rulepacks"):
        assert f"lostcities/{package}/__init__.py" in names
    assert "lostcities/engine/py.typed" in names


def test_wheel_ships_packs_schema_and_grammar(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    packs = sorted(p.name for p in (ROOT / "rulepacks").glob("*.yaml"))
    assert packs, "no built-in packs found"
    for name in packs:
        assert f"lostcities/rulepacks/{name}" in names
    assert "lostcities/rulepacks/pack.schema.json" in names
    assert "lostcities/grammar/scoring.lark" in names
    assert "lostcities/engine/lab/record.schema.json" in names
    catalogues = sorted(p.name for p in (ROOT / "i18n").glob("*_*.json"))
    assert {"messages_en.json", "messages_fr.json", "rules_en.json", "rules_fr.json"} \
        <= set(catalogues)
    for name in catalogues:
        assert f"lostcities/i18n/{name}" in names
    assert "lostcities/server/protocol.schema.json" in names


def test_wheel_declares_the_lc_entry_point(wheel):
    zf = zipfile.ZipFile(wheel)
    (ep,) = [n for n in zf.namelist() if n.endswith("entry_points.txt")]
    assert "lc = lostcities.cli.app:main" in zf.read(ep).decode()


def test_installed_wheel_loads_every_builtin_pack(installed):
    code = (
        "import lostcities.engine as e, lostcities.rulepacks as r\n"
        "assert e.__file__.startswith(%r), e.__file__\n"
        "from importlib.resources import files\n"
        "ids = sorted(p.name[:-5] for p in files('lostcities.rulepacks').iterdir() if p.name.endswith('.yaml'))\n"
        "print(len(ids), [e.load_pack(i).id for i in ids] == ids)\n"
    ) % str(installed)
    result = run_installed(installed, code)
    assert result.returncode == 0, result.stderr
    count, ok = result.stdout.split()
    assert int(count) >= 8 and ok == "True"


def test_installed_wheel_runs_lc(installed):
    code = "import sys; sys.argv=['lc', 'validate', 'duel-classic', 'board-classic']; " \
           "from lostcities.cli.app import main; main()"
    result = run_installed(installed, code)
    assert result.returncode == 0, result.stderr
