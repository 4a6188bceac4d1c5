"""Fuzzing the library with hostile input (issue #12): mutated rule packs, scoring formulas,
records, card words and move texts.

Whatever the input, only a :class:`~lostcities.engine.errors.LostCitiesError` may come
out, its text one line (no raw control character) that never echoes a value of a file
that is not a pack; every call ends within a time bound (a hang raises ``Hang``, a
failure) and under an address-space cap (a runaway allocation raises ``MemoryError``, a
failure). A pack that loads must also play a random match through (item 10).

The mutators and checks live in ``tests/fuzz_support.py``, shared with the long run
``tests/fuzz/run.py``. Runs are reproducible (derandomized, no example database).
"""
from __future__ import annotations

import json
import random
import re
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz_support as fz
from lostcities.engine import PackError, RecordError, check_pack, load_pack, replay

FUZZ = settings(max_examples=40, deadline=timedelta(seconds=5), database=None,
                derandomize=True, print_blob=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
RANDOMS = st.randoms(use_true_random=False)


def _folder() -> tempfile.TemporaryDirectory:
    """A fresh folder per example (load_pack caches by path, size and modification time)."""
    return tempfile.TemporaryDirectory(prefix="lc-fuzz-")


# ---------------------------------------------------------------------- packs

@FUZZ
@given(st.sampled_from(sorted(fz.builtin_pack_texts())), RANDOMS)
def test_mutated_packs_give_pack_errors_only(pack_id: str, rng: random.Random) -> None:
    text = fz.mutate_pack_text(fz.builtin_pack_texts()[pack_id], rng)
    with _folder() as folder:
        assert fz.check_pack_text(text, Path(folder)) == []


@settings(FUZZ, max_examples=30)
@given(st.sampled_from(sorted(fz.builtin_pack_texts())),
       st.lists(st.sampled_from(fz.HOSTILE_NUMBERS), min_size=1, max_size=1), RANDOMS)
def test_packs_with_hostile_numbers(pack_id: str, numbers: list[str], rng: random.Random) -> None:
    """Every number of a pack in turn replaced by an over-long, hex, infinite or NaN one."""
    lines = fz.builtin_pack_texts()[pack_id].split("\n")
    spots = [i for i, line in enumerate(lines)
             if re.search(r":\s*-?\d+\s*(#.*)?$", line) or re.search(r"\b\d+\b", line)]
    i = rng.choice(spots)
    lines[i] = re.sub(r"-?\b\d+\b", numbers[0], lines[i], count=1)
    with _folder() as folder:
        assert fz.check_pack_text("\n".join(lines), Path(folder)) == []


@pytest.mark.parametrize("target", [
    "ABSOLUTE_BASE", "../up.yaml", "../secret.yaml", "ABSOLUTE_SECRET", "x" * 300,
    "/dev/zero", "/proc/self/environ", "../" * 12 + "etc/passwd", "."])
def test_extends_outside_the_pack_folder_is_refused(tmp_path: Path, target: str) -> None:
    """extends is relative to the pack's folder: an absolute path or a climb out of the
    folder is refused, and nothing of a non-pack file is echoed (item 13)."""
    house = fz.write_pack_folder(tmp_path, "")
    target = {"ABSOLUTE_BASE": str(house.parent / "base.yaml"),
              "ABSOLUTE_SECRET": str(tmp_path / "secret.yaml")}.get(target, target)
    house.write_text(f"id: house\nextends: {json.dumps(target)}\nname: House\n")
    problems = check_pack(house)
    assert problems, f"extends: {target!r} accepted"
    assert all(fz.SECRET not in str(p) and fz.one_line(str(p)) for p in problems), problems
    with pytest.raises(PackError):
        load_pack(house)


# ---------------------------------------------------------------------- formulas

FORMULAS = fz.pack_formulas()


@settings(FUZZ, max_examples=60)
@given(st.sampled_from(FORMULAS), RANDOMS)
def test_mutated_formulas_give_scoring_errors_only(formula: tuple, rng: random.Random) -> None:
    scope, text, constants, tables = formula
    text = fz.mutate_formula(text, rng)
    assert fz.check_formula(scope, text, fz.hostile_constants(rng, constants), tables) == []


@settings(FUZZ, max_examples=10)
@given(st.integers(2, 6), st.sampled_from(["expedition", "round"]))
def test_nested_aggregates_are_bounded(depth: int, scope: str) -> None:
    """Aggregates nested over 900 cards: refused at compile time or quick (item 11)."""
    inner = "1"
    collection = "values" if scope == "expedition" else "expeditions"
    for level in range(depth):
        inner = f"sum({inner} for v{level} in {collection})"
    assert fz.check_formula(scope, inner, {}, {}) == []


# ---------------------------------------------------------------------- records

@settings(FUZZ, max_examples=40)
@given(st.sampled_from(range(len(fz.base_records()))), RANDOMS)
def test_mutated_records_give_record_errors_only(which: int, rng: random.Random) -> None:
    data = fz.mutate_json(json.loads(fz.base_records()[which]), rng)
    assert fz.check_record_text(fz.dump_json(data) + "\n") == []


@settings(FUZZ, max_examples=20)
@given(st.sampled_from(range(len(fz.base_records()))), RANDOMS)
def test_damaged_record_text_gives_record_errors_only(which: int, rng: random.Random) -> None:
    assert fz.check_record_text(fz.mutate_json_text(fz.base_records()[which], rng)) == []


@pytest.mark.parametrize("raw", fz.RAW_JSON, ids=lambda r: fz.shorten(r, 30))
def test_every_hostile_json_value_as_the_seed(raw: str) -> None:
    data = json.loads(fz.base_records()[0])
    data["seed"] = fz.Raw(raw)
    assert fz.check_record_text(fz.dump_json(data)) == []


def test_the_unmutated_records_replay() -> None:
    """The starting points are good records (else the mutations prove nothing)."""
    for line in fz.base_records():
        assert fz.check_record_text(line) == []
        replay(json.loads(line))


@pytest.mark.parametrize("field", ["seed", "winners", "totals", "score", "starter"])
def test_a_tampered_record_does_not_agree(field: str) -> None:
    """Changing what a record claims, the seed and the winners included, is refused (item 12)."""
    data = json.loads(fz.base_records()[0])
    if field == "seed":
        data["seed"] += 1
    elif field == "winners":
        data["winners"] = [1 - data["winners"][0]] if len(data["winners"]) == 1 else [0]
    elif field == "totals":
        data["totals"][0] += 1
    elif field == "score":
        data["rounds"][0]["scores"][1] -= 5
    else:
        data["rounds"][1]["starter"] = 1 - data["rounds"][1]["starter"]
    with pytest.raises(RecordError):
        replay(data)


# ---------------------------------------------------------------------- card words, moves

WORD_PACKS = ["duel-classic", "duel-six", "duel-basic", "board-classic", "duel-equal"]


@settings(FUZZ, max_examples=80, deadline=timedelta(seconds=5))
@given(st.sampled_from(WORD_PACKS), RANDOMS)
def test_card_words_and_moves_give_move_errors_only(pack_id: str, rng: random.Random) -> None:
    keys = load_pack(pack_id).cards.keys
    assert fz.check_words(pack_id, fz.card_word(rng, keys), fz.move_text(rng, keys)) == []


@settings(FUZZ, max_examples=60)
@given(st.sampled_from(WORD_PACKS), st.text(max_size=40), st.text(max_size=40))
def test_any_text_as_card_or_move(pack_id: str, word: str, move: str) -> None:
    assert fz.check_words(pack_id, word, move) == []
