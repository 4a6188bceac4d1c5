"""Fuzzing the real ``lc`` with hostile command lines and files (issue #12).

Each run is a subprocess of the installed ``lc`` (next to ``sys.executable``) in a fresh
folder (``LOSTCITIES_DATA_DIR`` and ``HOME`` in it), under an address-space cap of 2 GiB
(a runaway allocation dies as a MemoryError traceback: a failure) and a 60 s timeout (a
hang is a failure). For every run: the exit code is 0, 1 or 2 (0 only where the input is
fine: a pack the library finds valid, records that replay); when it is not 0, stderr is
exactly one line starting ``lc: error:``; no ``Traceback`` and no escape sequence or raw
control character anywhere in the output; no file that is not the command's own is
overwritten, and a save that cannot be resumed is left as it was.

Runs are reproducible (derandomized, no example database) and few per test: each ``lc``
takes about a second on a loaded machine. The mutators are ``tests/fuzz_support.py``'s,
shared with the long run ``tests/fuzz/run.py``.
"""
from __future__ import annotations

import json
import os
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz_support as fz

CLI = settings(max_examples=12, deadline=None, database=None, derandomize=True,
               print_blob=False,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.function_scoped_fixture])
RANDOMS = st.randoms(use_true_random=False)


def _folder() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="lc-fuzz-cli-")


@pytest.fixture(scope="module")
def save_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A real save of lc play (human against random, a few turns in)."""
    return json.dumps(fz.base_save(tmp_path_factory.mktemp("base-save")), indent=1)


def test_lc_is_next_to_the_interpreter() -> None:
    assert fz.LC.is_file(), f"no lc console script at {fz.LC}"


# ---------------------------------------------------------------------- packs

@settings(CLI, max_examples=6)
@given(st.sampled_from(sorted(fz.builtin_pack_texts())), RANDOMS)
def test_mutated_packs_through_validate_show_score(pack_id: str, rng: random.Random) -> None:
    text = fz.mutate_pack_text(fz.builtin_pack_texts()[pack_id], rng)
    with _folder() as folder:
        assert fz.cli_pack(text, Path(folder)) == []


@settings(CLI, max_examples=4)
@given(st.sampled_from(["duel-classic", "duel-six", "board-short"]), RANDOMS)
def test_mutated_packs_through_simulate(pack_id: str, rng: random.Random) -> None:
    text = fz.mutate_pack_text(fz.builtin_pack_texts()[pack_id], rng)
    with _folder() as folder:
        assert fz.cli_pack(text, Path(folder), ("simulate",)) == []


# ---------------------------------------------------------------------- records

@settings(CLI, max_examples=8)
@given(st.sampled_from(range(len(fz.base_records()))), RANDOMS)
def test_mutated_records_through_replay(which: int, rng: random.Random) -> None:
    data = fz.mutate_json(json.loads(fz.base_records()[which]), rng)
    with _folder() as folder:
        assert fz.cli_record(fz.dump_json(data) + "\n", Path(folder)) == []


@pytest.mark.parametrize("name", ["[/bold]", "[link=https://example.com/x]me[/link]",
                                  "\x1b]0;pwned\x07", "\x1b[2J\x1b[H", "a\rb"])
def test_player_names_from_a_record_are_shown_as_text(tmp_path: Path, name: str) -> None:
    data = json.loads(fz.base_records()[0])
    data["players"][0] = name
    assert fz.cli_record(json.dumps(data) + "\n", tmp_path) == []


# ---------------------------------------------------------------------- saves

def test_the_unmutated_save_resumes(tmp_path: Path, save_text: str) -> None:
    assert fz.cli_save(save_text, tmp_path) == []
    run = fz.run_lc(["play", "--resume", str(tmp_path / "game.json")], tmp_path)
    assert run.code == 0, run.show()


@settings(CLI, max_examples=10)
@given(RANDOMS, st.booleans())
def test_mutated_saves_through_resume(save_text: str, rng: random.Random, closed: bool) -> None:
    data = fz.mutate_json(json.loads(save_text), rng)
    with _folder() as folder:
        assert fz.cli_save(fz.dump_json(data), Path(folder), None if closed else "") == []


@settings(CLI, max_examples=5)
@given(RANDOMS)
def test_damaged_save_text_through_resume(save_text: str, rng: random.Random) -> None:
    with _folder() as folder:
        assert fz.cli_save(fz.mutate_json_text(save_text, rng), Path(folder)) == []


@pytest.mark.parametrize("bot", ["os:abort", "faulthandler:_sigsegv", "signal:pause",
                                 "builtins:breakpoint", "this:x", "evilbot:Bot"])
def test_a_save_naming_code_imports_nothing(tmp_path: Path, save_text: str, bot: str) -> None:
    """A save's bot is data: naming a module:Class exits 1 in one line, importing nothing
    (item 1). ``evilbot`` is importable (PYTHONPATH) and would leave a mark if imported."""
    (tmp_path / "evilbot.py").write_text(
        "import pathlib\npathlib.Path(__file__).with_name('IMPORTED').write_text('yes')\n"
        "class Bot:\n    def choose(self, view):\n        return view.legal_moves[0]\n")
    data = json.loads(save_text)
    seat = next(i for i, p in enumerate(data["players"]) if p["kind"] == "bot")
    data["players"][seat]["bot"] = bot
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    run = fz.run_lc(["play", "--resume", str(path)], tmp_path, stdin="",
                    env={"PYTHONPATH": str(tmp_path)})
    assert run.problems(must_fail=True) == [], run.show()
    assert run.code == 1, run.show()
    assert not (tmp_path / "IMPORTED").exists(), "the save's bot module was imported"
    assert "Zen of Python" not in run.stdout + run.stderr
    assert path.read_bytes() == before


# ---------------------------------------------------------------------- lc score

@settings(CLI, max_examples=12)
@given(st.sampled_from(["duel-classic", "duel-six", "board-classic"]), RANDOMS)
def test_score_words(pack_id: str, rng: random.Random) -> None:
    with _folder() as folder:
        words = fz.score_words(rng, pack_id.startswith("board"))
        assert fz.cli_score(pack_id, words, Path(folder)) == []


# ---------------------------------------------------------------------- hostile options

def _cases() -> list[tuple[str, list[str], bool]]:
    with _folder() as folder:  # the cases name files of a folder made again per run
        return [(label, [a.replace(folder, "{dir}") for a in args], fail)
                for label, args, fail in fz.option_cases(Path(folder))]


CASES = _cases()


@settings(CLI, max_examples=25)
@given(st.sampled_from(CASES))
def test_hostile_option_values(case: tuple[str, list[str], bool]) -> None:
    label, args, must_fail = case
    with _folder() as folder:
        fz.option_cases(Path(folder))  # makes the pipe, the record, the device copy
        args = [a.replace("{dir}", folder) for a in args]
        assert fz.cli_option((label, args, must_fail), Path(folder)) == []


# a device node can be made only as root (elsewhere the case is left out, not skipped)
@pytest.mark.parametrize("target", ["pipe", "folder", "other"]
                         + (["full"] if os.geteuid() == 0 else []))
def test_save_is_never_written_over_something_else(tmp_path: Path, target: str) -> None:
    """--save onto a FIFO, a folder, a file that is not a save or a device: refused (item 2)."""
    cases = {c[0] + " " + c[1][-1]: c for c in fz.option_cases(tmp_path)
             if c[0] == "play --save"}
    path = {"pipe": tmp_path / "pipe", "folder": tmp_path, "other": tmp_path / "other.txt",
            "full": fz.device_like_full(tmp_path)}[target]
    assert path is not None
    case = cases[f"play --save {path}"]
    assert fz.cli_option(case, tmp_path) == []
