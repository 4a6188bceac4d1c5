"""The optional compiled core (setup.py, ``LOSTCITIES_COMPILE=1 pip install .``, issue #15).

The same source, built with Cython, must play move for move as pure Python: the seeded
digests of tests/test_seeded_digests.py and the engine's rule, purity and seam tests run on a
compiled wheel, unpacked outside the editable install. The build takes minutes; it starts in
the background when these tests are collected and they run last (tests/conftest.py).
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import compiled_build
import lostcities.engine as engine

ROOT = Path(__file__).resolve().parents[1]
#: the engine's tests that run again on the compiled core: the seeded move digests first
#: then the rules, purity, seam and the api check of every pack; then bad arguments and
#: fuzzed input: the same errors
ON_THE_COMPILED_CORE = ("test_seeded_digests.py", "test_apply_is_pure.py",
                        "test_engine_rules.py", "test_board_rules.py", "test_rows.py",
                        "test_game_seam.py", "test_play_paths_agree.py",
                        "test_undo_and_copies.py", "test_expert_steps.py", "test_engine_api.py",
                        "test_engine_exports.py", "test_api_every_pack.py", "test_scoring.py",
                        "test_fuzz_library.py")
#: the build waits on a compiler: generous, for a loaded machine
BUILD_SECONDS = 1800


def listed_modules() -> list[str]:
    """The modules of engine/compiled_modules.txt, each with a source file in the tree."""
    names = list(engine.compilable_modules())
    assert names and all((ROOT / Path(*name.split(".")[1:])).with_suffix(".py").is_file()
                         for name in names), names
    return names


@pytest.fixture(scope="module")
def compiled_site() -> Path:
    return compiled_build.start().wait(BUILD_SECONDS)


def run_compiled(site: Path, *args: str) -> subprocess.CompletedProcess:
    """Python on the compiled install alone: -S keeps the editable install's path hook out;
    the dependencies come from this interpreter's site-packages, after the compiled wheel."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), sysconfig.get_paths()["purelib"]]))
    return subprocess.run([sys.executable, "-S", *args], env=env, capture_output=True, text=True,
                          cwd=ROOT, timeout=BUILD_SECONDS)


def test_the_editable_install_is_pure_python_and_every_listed_module_exists():
    assert engine.compiled_modules() == ()
    version = subprocess.run([sys.executable, "-c", "import sys; sys.argv = ['lc', '--version'];"
                              "from lostcities.cli.app import main; main()"],
                             capture_output=True, text=True)
    assert version.stdout.splitlines()[1:] == ["core: pure Python"], version
    for name in listed_modules():
        assert importlib.util.find_spec(name).origin.endswith(".py"), name


def test_the_compiled_wheel_runs_every_listed_module_compiled(compiled_site):
    done = run_compiled(compiled_site, "-c",
                        "import lostcities.engine as e, lostcities.engine.game.turn as t;"
                        "print(','.join(e.compiled_modules())); print(t.__file__)")
    assert done.returncode == 0, done.stderr
    names, turn_file = done.stdout.splitlines()
    assert names.split(",") == listed_modules()
    assert Path(turn_file).parent == compiled_site / "lostcities" / "engine" / "game"
    assert Path(turn_file).suffix == ".so" or Path(turn_file).suffix == ".pyd"
    # the pure source ships beside each extension: the reference, and what a reader reads
    assert (compiled_site / "lostcities" / "engine" / "game" / "turn.py").is_file()
    version = run_compiled(compiled_site, "-c", "import sys; sys.argv = ['lc', '--version'];"
                           "from lostcities.cli.app import main; main()")
    assert version.stdout.splitlines()[1:] == [f"core: compiled, {len(listed_modules())} "
                                               "modules (LOSTCITIES_COMPILE=1)"], version


def test_the_compiled_core_plays_move_for_move_as_pure_python(compiled_site):
    files = [str(ROOT / "tests" / name) for name in ON_THE_COMPILED_CORE]
    done = run_compiled(compiled_site, "-m", "pytest", "-o", "addopts=", "-q", "-p",
                        "no:cacheprovider", *files)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert re.search(r"\d+ passed", summary) and not re.search(r"skipped|failed|error", summary), summary


def test_the_compiled_state_has_typed_fields_and_copies_as_pure(compiled_site):
    # state.pxd makes GameState an extension type: its fields are C slots (getset
    # descriptors, not the pure class's member descriptors of __slots__); a field keeps its
    # Python value, copy.copy and copy.deepcopy give the same position as in pure Python,
    # and a seat field takes no value that is not an integer
    done = run_compiled(compiled_site, "-c", """
import copy, random
from lostcities.engine import load_pack, new_game, random_move, push
from lostcities.engine.game.state import GameState
state = new_game(load_pack("duel-classic"), 2, 7)
rng = random.Random(7)
for _ in range(30):
    push(state, random_move(state, rng))
print(type(GameState.__dict__["turn"]).__name__, type(state.turn).__name__, state.turn)
print(copy.deepcopy(state).snapshot() == state.snapshot(),
      copy.copy(state).snapshot() == state.snapshot())
try:
    state.to_move = "north"
except TypeError:
    print("TypeError")
""")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["getset_descriptor", "int", "30", "True", "True", "TypeError"]


@pytest.mark.parametrize("value, code, out", [
    ("yes", 1, "setup.py: error: LOSTCITIES_COMPILE must be 0 or 1, not 'yes'"),
    ("0", 0, "lostcities"),
    ("", 0, "lostcities"),
])
def test_the_build_reads_lostcities_compile_strictly(value, code, out):
    done = subprocess.run([sys.executable, "setup.py", "--name"], cwd=ROOT, capture_output=True,
                          text=True, env=dict(os.environ, LOSTCITIES_COMPILE=value))
    assert done.returncode == code
    assert (done.stdout if code == 0 else done.stderr).strip().splitlines()[-1] == out
    assert "Traceback" not in done.stderr
