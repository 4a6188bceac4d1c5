"""Start-up: a vouched built-in pack's formulas are compiled from their parse results shipped
in engine/packs/shipped_packs.json (no lark), into the very scoring that parsing them builds."""
from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lostcities.engine import LostCitiesError
from lostcities.engine.packs import loader as packs
from lostcities.engine.packs import pack_digests
from lostcities.grammar import compiler as grammar_compiler
from lostcities.grammar import parser as grammar_parser
from lostcities.grammar.source import Source

REGENERATE = "stale: regenerate it with `python tools/regenerate.py`"
BOUND = 300
FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BUILTINS = packs.builtin_ids()
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "packs" / "valid"


def builtin(pack_id: str):
    return packs.builtin_dir() / f"{pack_id}.yaml"


def count_parses(monkeypatch) -> list[str]:
    """The texts the compiler parses from now on (it parses through ``compiler.parse``)."""
    seen: list[str] = []
    real = grammar_compiler.parse

    def parse(source):
        seen.append(source.text)
        return real(source)

    monkeypatch.setattr(grammar_compiler, "parse", parse)
    return seen


def test_shipped_parse_results_are_fresh():
    assert pack_digests.GRAMMAR_SHA256 == grammar_parser.grammar_digest(
        grammar_parser.grammar_text()), f"engine/packs/pack_digests.py is {REGENERATE}"
    for pack_id in BUILTINS:
        shipped = packs.shipped_trees([builtin(pack_id)])
        scoring = packs.shipped_document(builtin(pack_id), pack_id).data.get("scoring", {})
        texts = [scoring[k] for k in ("expedition", "pawn", "round", "match") if k in scoring]
        texts += list(scoring.get("breakdown", {}).values())
        assert set(shipped) == set(texts), f"{pack_id}: engine/packs/shipped_packs.json is {REGENERATE}"
        for text in texts:
            parsed = grammar_parser.parse(Source(text, "", None))
            assert shipped[text] == grammar_parser.tree_data(parsed), pack_id


@pytest.mark.parametrize("pack_id", BUILTINS)
def test_a_vouched_builtin_is_compiled_without_parsing(pack_id, monkeypatch):
    parsed = count_parses(monkeypatch)
    report = packs.validate_pack(pack_id)
    assert report.problems == () and report.pack is not None
    assert parsed == []
    full = packs.validate_pack(pack_id, schema_check=True)
    scoring = full.pack.scoring
    assert sorted(parsed) == sorted(f.text for f in (*scoring.formulas.values(),
                                                      *scoring.breakdown_formulas.values()))


def test_a_house_pack_parses_only_the_formulas_it_writes(tmp_path, monkeypatch):
    """A house pack is checked against the schema, but the formulas it inherits from vouched
    built-ins come from their shipped parse results; the ones it writes are parsed, and the
    pack scores exactly as when everything is parsed."""
    parsed = count_parses(monkeypatch)
    house = packs.validate_pack(str(FIXTURES / "base-house.yaml"))
    assert house.problems == () and parsed == []
    own = "if cards == 0 then 0 else (points - cost) * (2 + wagers)"
    changed = tmp_path / "house.yaml"
    changed.write_text("id: house\nextends: duel-classic\nhouse_rule: true\n"
                       f"scoring:\n  expedition: {own}\n")
    report = packs.validate_pack(str(changed))
    assert report.problems == (), report.problems
    assert parsed == [own]
    full = packs.validate_pack(str(changed), schema_check=True)
    assert sorted(parsed[1:]) == sorted(f.text for f in (*full.pack.scoring.formulas.values(),
                                                          *full.pack.scoring.breakdown_formulas.values()))


def outcome(call, *args):
    try:
        return ("value", call(*args))
    except LostCitiesError as err:
        return ("error", str(err))


@functools.lru_cache(maxsize=None)
def fast_and_slow(pack_id):
    """The built-in ``pack_id`` compiled from its shipped parse results (fast) and from its
    parsed text (slow, schema-checked): loaded once, read only by the fuzz test below."""
    return (packs.validate_pack(pack_id).pack,
            packs.validate_pack(pack_id, schema_check=True).pack)


@pytest.mark.parametrize("pack_id", BUILTINS)
def test_shipped_and_parsed_formulas_are_alike(pack_id):
    """The formulas of a built-in compiled from the shipped parse result and from its parsed
    text have the same text, scope, fields, size and value domain."""
    fast, slow = fast_and_slow(pack_id)
    a, b = fast.scoring, slow.scoring
    assert a.columns == b.columns and set(a.formulas) == set(b.formulas)
    for name in a.formulas:
        fa, fb = a.formulas[name], b.formulas[name]
        assert (fa.text, fa.scope, fa.uses, fa.size, fa.fields, fa.scored, fa.constant) == \
            (fb.text, fb.scope, fb.uses, fb.size, fb.fields, fb.scored, fb.constant)
        assert fa.domain is not None and vars(fa.domain) == vars(fb.domain)


@pytest.mark.parametrize("pack_id", BUILTINS)
@FUZZ
@given(data=st.data())
def test_shipped_and_parsed_scoring_agree(pack_id, data):
    """Every formula of every built-in, compiled from the shipped parse result and from its
    parsed text, gives the same result (or the same error) on the same inputs (both
    compiled once per pack: formulas are pure)."""
    fast, slow = fast_and_slow(pack_id)
    a, b = fast.scoring, slow.scoring
    assert a.columns == b.columns and set(a.formulas) == set(b.formulas)
    colours = len(fast.colours)
    value = st.integers(fast.min_value - 1, fast.max_value + 1)
    row = st.tuples(st.integers(0, colours - 1), st.lists(value, max_size=12),
                    st.integers(0, max(fast.wagers, 1)))
    spaces = fast.board.spaces if fast.board else 9
    pawn = st.tuples(st.integers(-1, 4), st.integers(0, spaces), st.booleans())
    rows = data.draw(st.lists(row, max_size=colours), "rows")
    pawns = data.draw(st.lists(pawn, max_size=5), "pawns")
    tokens = data.draw(st.integers(-30, 60), "tokens")
    artefacts = data.draw(st.integers(0, 10), "artefacts")
    round_number = data.draw(st.integers(1, fast.rounds), "round")
    for c, v, w in rows:
        assert outcome(a.expedition, c, v, w) == outcome(b.expedition, c, v, w)
        assert outcome(a.breakdown, c, v, w) == outcome(b.breakdown, c, v, w)
        pairs = [(a.breakdown_formulas[k], b.breakdown_formulas[k]) for k in a.columns]
        if "expedition" in a.formulas:
            pairs.append((a.formulas["expedition"], b.formulas["expedition"]))
        for fa, fb in pairs:
            assert outcome(fa, c, v, w) == outcome(fb, c, v, w)
    for t, s, leader in pawns:
        assert outcome(a.pawn, t, s, leader) == outcome(b.pawn, t, s, leader)
    args = (rows, pawns, tokens, artefacts, round_number)
    assert outcome(a.round, *args) == outcome(b.round, *args)
    scores = data.draw(st.lists(st.integers(-200, 400), min_size=1, max_size=fast.rounds))
    assert outcome(a.match, scores, artefacts, tokens) == \
        outcome(b.match, scores, artefacts, tokens)


def run_python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=BOUND, check=True)
    return out.stdout.strip()


def test_loading_every_builtin_does_not_import_lark():
    code = ("import sys; from lostcities.engine.packs.loader import builtin_ids, load_pack\n"
            "for p in builtin_ids(): load_pack(p)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('lark', 'yaml', 'jsonschema')))")
    assert run_python(code) == "[]"


def test_lc_simulate_games_0_does_not_import_lark():
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('lark' in sys.modules,\n"
            "    'lostcities.grammar.scoring_tables' in sys.modules))\n"
            "sys.argv = ['lc', 'simulate', '--games', '0']\n"
            "from lostcities.cli.app import main; main()")
    assert run_python(code).splitlines()[-1] == "False False"


def test_stale_parse_results_fall_back_to_parsing(monkeypatch):
    name = "duel-classic"
    # another grammar: no shipped parse result is used
    monkeypatch.setattr(pack_digests, "GRAMMAR_SHA256", "0" * 64)
    assert packs.shipped_trees([builtin(name)]) == {}
    parsed = count_parses(monkeypatch)
    assert packs.validate_pack(name).problems == ()
    assert parsed
    monkeypatch.undo()
    # an edited built-in (its digest no longer vouched): parsed, as a house pack is
    digest = packs.file_digest(builtin(name))
    monkeypatch.setattr(pack_digests, "VOUCHED", pack_digests.VOUCHED - {digest})
    assert packs.shipped_trees([builtin(name)]) == {}
    monkeypatch.undo()
    # a copy outside the built-ins' folder is a house pack
    assert packs.shipped_trees([]) == {}


def test_data_that_is_not_a_parse_result_is_parsed(monkeypatch):
    name = "duel-classic"
    good = packs.shipped_trees([builtin(name)])
    bad = {text: {"rule": "number", "span": [0, 1], "children": [["INT", "7", -1, 1]]}
           for text in good}
    monkeypatch.setattr(packs, "shipped_trees", lambda paths: bad)
    parsed = count_parses(monkeypatch)
    report = packs.validate_pack(name)
    assert report.problems == ()
    assert sorted(parsed) == sorted(good)
    assert report.pack.scoring.formulas["expedition"](0, [2, 3, 10], 1) == \
        packs.validate_pack(name, schema_check=True).pack.scoring.formulas["expedition"](
            0, [2, 3, 10], 1)


@pytest.mark.parametrize("data", [
    None, [], ["INT", "7", 0], ["INT", 7, 0, 1], ["INT", "7", True, 1],
    {"rule": "x"}, {"rule": 1, "span": None, "children": []},
    {"rule": "x", "span": [0], "children": []}, {"rule": "x", "span": None, "children": 3},
    "text", 5])
def test_tree_from_data_refuses_other_shapes(data):
    if data is None:
        assert grammar_parser.tree_from_data(None) is None
        return
    with pytest.raises(ValueError):
        grammar_parser.tree_from_data(data)


def test_tree_from_data_refuses_deep_nesting():
    node = ["INT", "1", 0, 1]
    for _ in range(200):
        node = {"rule": "unary", "span": [0, 1], "children": [["ADD_OP", "-", 0, 1], node]}
    with pytest.raises(ValueError):
        grammar_parser.tree_from_data(node)


@FUZZ
@given(st.sampled_from(["points - 20", "sum(v for v in values where v > 5) * (1 + wagers)",
                        "let x = count(values) in if x >= 8 then 20 else 0",
                        "max(0, min(3, wagers)) % 2", "values[0] + colour"]))
def test_a_formula_compiled_from_its_data_is_the_parsed_one(text):
    tree = grammar_parser.tree_from_data(grammar_parser.tree_data(
        grammar_parser.parse(Source(text, "", None))))
    a = grammar_compiler.compile_formula(text, tree=tree)
    b = grammar_compiler.compile_formula(text)
    for args in [(0, [], 0), (1, [2, 3, 4], 2), (4, list(range(2, 11)), 3)]:
        assert outcome(a, *args) == outcome(b, *args)
