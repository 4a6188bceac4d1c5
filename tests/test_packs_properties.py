"""Property tests: the loader never crashes, merging follows its three rules, show round-trips."""
from __future__ import annotations

import copy
import re
import string
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from lostcities.cli.packs import dump_yaml
from lostcities.engine.packs import loader as packs
from lostcities.engine.errors import PackError
from lostcities.engine.packs.loader import (builtin_ids, check_pack, iter_leaves, locate,
                                     resolve_pack, validate_pack)
from lostcities.engine.packs.yamlsafe import parse_yaml

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
CODE = re.compile(r"LC\d{3}")

keys = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=6)
scalars = st.one_of(st.integers(-1000, 1000), st.booleans(), st.none(),
                    st.text(alphabet=string.printable.replace("\r", "").replace("\x0b", "")
                            .replace("\x0c", ""), max_size=12))
documents = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)), max_leaves=25)
mappings = st.dictionaries(keys, documents, max_size=5)


@SETTINGS
@given(mappings)
def test_what_lc_show_writes_loads_back_unchanged(data: dict[str, Any]) -> None:
    assert parse_yaml(dump_yaml(data), "t.yaml").data == data


@SETTINGS
@given(mappings)
def test_every_value_has_an_origin(data: dict[str, Any]) -> None:
    doc = parse_yaml(dump_yaml(data), "t.yaml")
    for path, _value in iter_leaves(doc.data):
        assert doc.origins[path].line >= 1


def _at(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


@SETTINGS
@given(mappings, mappings)
@example(base={"_": {"_": None}}, over={"_": {}})
def test_merge_maps_deeply_scalars_override_lists_replace(base: dict, over: dict) -> None:
    docs = [parse_yaml(dump_yaml(over), "over.yaml"), parse_yaml(dump_yaml(base), "base.yaml")]
    merged, origins = packs._merge_chain(docs)
    over.pop("extends", None)
    base.pop("extends", None)
    # every value the extending file writes is in the result, from that file
    for path, value in iter_leaves(over):
        if not path:
            continue
        if value == {} and isinstance(_lookup(base, path), dict):
            # an empty mapping merges into the base's mapping: it adds nothing
            assert _at(merged, path) == _lookup(base, path)
            continue
        assert _at(merged, path) == value
        assert origins[path].file == "over.yaml"
    # a base value survives unless the extending file wrote the same path, or replaced an
    # ancestor: wrote something at a path where not both files have a mapping
    for path, value in iter_leaves(base):
        if not path:
            continue
        cut = next((i for i in range(1, len(path) + 1)
                    if _lookup(over, path[:i]) is _MISSING
                    or not (isinstance(_lookup(over, path[:i]), dict)
                            and isinstance(_lookup(base, path[:i]), dict))), None)
        if cut is None:  # an empty mapping in both: merged, and both are empty
            assert _at(merged, path) == _at(over, path)
        elif _lookup(over, path[:cut]) is _MISSING:
            assert _at(merged, path) == value
            assert origins[path].file == "base.yaml"
        else:
            assert _at(merged, path[:cut]) == _lookup(over, path[:cut])
            assert origins[path[:cut]].file == "over.yaml"
    # and nothing else appears
    assert {p for p, _ in iter_leaves(merged)} <= \
        {p for p, _ in iter_leaves(over)} | {p for p, _ in iter_leaves(base)}


_MISSING = object()


def _lookup(data: Any, path: tuple) -> Any:
    for part in path:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return _MISSING
    return data


# ------------------------------------------------------------------ never a crash


def _builtin_texts() -> dict[str, str]:
    return {i: locate(i)[0].read_text(encoding="utf-8") for i in builtin_ids()}


TEXTS = _builtin_texts()


def _assert_well_formed(problems: list, file_lines: int, file: str) -> None:
    for problem in problems:
        assert CODE.fullmatch(problem.code), problem
        assert "\n" not in str(problem)
        if problem.file == file:
            assert 0 <= problem.line <= file_lines + 1, problem


@SETTINGS
@given(pack_id=st.sampled_from(sorted(TEXTS)), data=st.data())
def test_mangled_builtin_text_never_crashes_the_loader(pack_id: str, data: st.DataObject,
                                                       tmp_path_factory) -> None:
    text = TEXTS[pack_id]
    for _ in range(data.draw(st.integers(1, 3))):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, min(len(text), start + 30)))
        insert = data.draw(st.text(alphabet=":-[]{}&*!|>#'\"\n x1", max_size=6))
        text = text[:start] + insert + text[end:]
    path = tmp_path_factory.mktemp("mangled") / f"{pack_id}.yaml"
    path.write_text(text, encoding="utf-8")
    problems = check_pack(str(path))
    event(problems[0].code if problems else "valid")
    _assert_well_formed(problems, text.count("\n"), str(path))


override_values = st.one_of(scalars, st.lists(scalars, max_size=3),
                            st.dictionaries(keys, scalars, max_size=2))


@SETTINGS
@given(pack_id=st.sampled_from(builtin_ids()), data=st.data())
def test_any_override_of_any_builtin_is_reported_not_raised(pack_id: str, data: st.DataObject,
                                                            tmp_path_factory) -> None:
    """Replace one value anywhere in a resolved built-in: load it or report, never crash."""
    resolved = resolve_pack(pack_id).data
    leaves = [p for p, _v in iter_leaves(resolved) if p and p[0] != "id"]
    path = data.draw(st.sampled_from(leaves))
    value = data.draw(override_values)
    top = path[0]
    section = copy.deepcopy(resolved[top])
    if len(path) == 1:
        section = value
    else:
        holder = _at(section, path[1:-1])
        holder[path[-1]] = value
    folder = tmp_path_factory.mktemp("override")
    pack = folder / "house.yaml"
    pack.write_text(dump_yaml({"id": "house", "extends": pack_id, top: section}),
                    encoding="utf-8")
    report = validate_pack(str(pack))
    event("valid" if report.valid else "invalid")
    _assert_well_formed(list(report.problems), pack.read_text().count("\n"), str(pack))
    if report.valid:
        assert report.pack is not None and report.pack.id == "house"
    else:
        try:
            packs.load_pack(str(pack))
        except PackError as err:
            assert list(err.problems) == list(report.problems)
        else:  # pragma: no cover - a valid load would contradict the report
            raise AssertionError("load_pack accepted a pack validate_pack rejected")


def test_the_fuzzers_can_see_problems(tmp_path: Path) -> None:
    """A sanity check of the properties above: a known-bad override is reported."""
    pack = tmp_path / "house.yaml"
    pack.write_text(dump_yaml({"id": "house", "extends": "duel-classic", "hand_size": "8"}))
    assert [p.code for p in check_pack(str(pack))] == ["LC032"]
