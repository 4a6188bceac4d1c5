"""The hardened YAML loader: core-schema scalars, refusals with codes and lines, origins."""
from __future__ import annotations

import math

import pytest
import yaml

from lostcities.engine.errors import PackError
from lostcities.engine.packs.yamlsafe import Limits, load_yaml, parse_yaml


def problems(text: str, limits: Limits | None = None) -> list[tuple[str, int]]:
    """(code, line) of every problem ``text`` raises; fails the test if it loads."""
    with pytest.raises(PackError) as caught:
        parse_yaml(text, "t.yaml", limits or Limits())
    return [(p.code, p.line) for p in caught.value.problems]


# ------------------------------------------------------------------ scalars


@pytest.mark.parametrize("text", ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "On"])
def test_yaml11_booleans_stay_text(text: str) -> None:
    assert parse_yaml(f"a: {text}", "t.yaml").data == {"a": text}


@pytest.mark.parametrize("text,value", [("true", True), ("True", True), ("TRUE", True),
                                        ("false", False), ("False", False), ("FALSE", False)])
def test_only_true_and_false_are_booleans(text: str, value: bool) -> None:
    assert parse_yaml(f"a: {text}", "t.yaml").data["a"] is value


@pytest.mark.parametrize("text,value", [
    ("010", 10),          # YAML 1.1 would read octal 8
    ("0o17", 15), ("0x1F", 31), ("-7", -7), ("+3", 3),
    ("1:30", "1:30"),     # YAML 1.1 would read sexagesimal 90
    ("1_000", "1_000"),   # YAML 1.1 would read 1000
    ("2001-12-14", "2001-12-14"),  # no implicit timestamps
    ("1.5", 1.5), ("1e3", 1000.0), ("~", None), ("null", None), ("", None),
    ("'12'", "12"), ('"true"', "true"),
])
def test_core_schema_scalars(text: str, value: object) -> None:
    assert parse_yaml(f"a: {text}", "t.yaml").data["a"] == value


def test_special_floats() -> None:
    data = parse_yaml("a: .inf\nb: -.Inf\nc: .nan", "t.yaml").data
    assert data["a"] == math.inf and data["b"] == -math.inf and math.isnan(data["c"])


def test_keys_are_always_their_text() -> None:
    assert parse_yaml("1: a\ntrue: b\nnull: c", "t.yaml").data == {"1": "a", "true": "b",
                                                                  "null": "c"}


def test_explicit_core_tags_are_allowed() -> None:
    assert parse_yaml("a: !!str 12\nb: !!int '7'\nc: !!bool true", "t.yaml").data == \
        {"a": "12", "b": 7, "c": True}


# ------------------------------------------------------------------ refusals


def test_duplicate_keys_are_all_reported_with_the_first_line_as_hint() -> None:
    with pytest.raises(PackError) as caught:
        parse_yaml("a: 1\nb: 2\na: 3\nc:\n  d: 1\n  d: 2\n", "t.yaml")
    found = caught.value.problems
    assert [(p.code, p.line, p.col) for p in found] == [("LC006", 3, 1), ("LC006", 6, 3)]
    assert "first given on line 1" in found[0].hint


def test_unsafe_tags_are_refused_without_running_anything() -> None:
    assert problems("a: !!python/object/apply:os.system ['exit 1']") == [("LC007", 1)]
    assert problems("a: !!binary aGk=\nb: !custom x") == [("LC007", 1), ("LC007", 2)]
    assert problems("a: !!set {x, y}") == [("LC007", 1)]
    assert problems("a: !!int twelve") == [("LC007", 1)]


@pytest.mark.parametrize("text,code,line", [
    ("a: [1, 2\nb: 3\n", "LC001", 2),        # syntax errors have a line
    ("a: b: c\n", "LC001", 1),
    ("a: *missing\n", "LC001", 1),
    ("a: \x07\n", "LC001", 1),
    ("", "LC008", 0),                         # not one mapping
    ("# only a comment\n", "LC008", 0),
    ("a: 1\n---\nb: 2\n", "LC008", 2),
    ("- 1\n- 2\n", "LC008", 1),
    ("just text\n", "LC008", 1),
    ("? [a]\n: 1\n", "LC010", 1),             # keys that are not plain text
    ("? {a: 1}\n: 1\n", "LC010", 1),
    ("~: 1\n", "LC010", 1),
    ("? \n: 1\n", "LC010", 1),
    ("a:\n  <<: 5\n", "LC010", 2),
])
def test_refused_documents(text: str, code: str, line: int) -> None:
    assert problems(text) == [(code, line)]


def test_nesting_cap() -> None:
    ok = "a: " + "[" * 30 + "]" * 30
    assert parse_yaml(ok, "t.yaml").data["a"]
    assert problems("a: " + "[" * 33 + "]" * 33) == [("LC003", 1)]
    # much deeper than Python's recursion limit: refused, never a RecursionError
    assert problems("a: " + "[" * 50_000 + "]" * 50_000) == [("LC003", 1)]


def test_nesting_cap_counts_expanded_aliases() -> None:
    text = "x: &x " + "[" * 20 + "1" + "]" * 20 + "\ny: " + "[" * 20 + "*x" + "]" * 20
    assert problems(text)[0][0] == "LC003"


def test_alias_use_cap() -> None:
    uses = ", ".join(["*v"] * 5)
    assert parse_yaml(f"v: &v 1\nw: [{uses}]", "t.yaml").data["w"] == [1] * 5
    assert problems(f"v: &v 1\nw: [{uses}]", Limits(max_aliases=4)) == [("LC004", 2)]


def test_billion_laughs_is_refused_before_expansion() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    # 10^9 values if expanded: a loader that expanded them would not come back
    assert problems("\n".join(lines)) == [("LC005", 1)]


def test_many_plain_values_are_capped_while_composing() -> None:
    assert problems("a: [" + ", ".join(["1"] * 50) + "]", Limits(max_values=20))[0][0] == "LC005"


def test_recursive_alias() -> None:
    assert problems("a: &a [1, *a]\n") == [("LC005", 1)]
    assert problems("a: &a {b: *a}\n") == [("LC005", 1)]


def test_file_size_is_checked_before_parsing(tmp_path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a: [" + b"1, " * 400_000 + b"1]\n")  # ~1.2 MB
    with pytest.raises(PackError) as caught:
        load_yaml(path)
    assert [(p.code, p.line) for p in caught.value.problems] == [("LC002", 0)]


def test_unreadable_files(tmp_path) -> None:
    with pytest.raises(PackError, match="no such file") as caught:
        load_yaml(tmp_path / "missing.yaml")
    assert caught.value.code == "LC009"
    with pytest.raises(PackError, match="is a folder"):
        load_yaml(tmp_path)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"a: 1\nname: caf\xe9\n")
    with pytest.raises(PackError) as caught:
        load_yaml(latin)
    assert (caught.value.code, caught.value.line, caught.value.col) == ("LC009", 2, 10)


def test_byte_order_mark_is_accepted(tmp_path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert load_yaml(path).data == {"a": 1}


def test_problems_are_one_line() -> None:
    with pytest.raises(PackError) as caught:
        parse_yaml("a:\n  - b\n  c: d\n", "t.yaml")
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith("t.yaml:3:")


# ------------------------------------------------------------------ merge keys


def test_merge_key_explicit_keys_win() -> None:
    data = parse_yaml("base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n", "t.yaml").data
    assert data["c"] == {"y": 3, "x": 1}


def test_merge_key_list_earlier_wins() -> None:
    text = "a: &a {x: 1}\nb: &b {x: 2, y: 2}\nc:\n  <<: [*a, *b]\n"
    assert parse_yaml(text, "t.yaml").data["c"] == {"x": 1, "y": 2}


# ------------------------------------------------------------------ origins


def test_origins_of_values_keys_and_list_items() -> None:
    doc = parse_yaml("id: x\ndeck:\n  colours:\n    - {key: r, name: red}\n", "p.yaml")
    o = doc.origins
    assert (o[("id",)].line, o[("id",)].col, o[("id",)].key_col) == (1, 5, 1)
    assert (o[("deck", "colours")].key_line, o[("deck", "colours")].line) == (3, 4)
    assert (o[("deck", "colours", 0, "name")].line, o[("deck", "colours", 0, "name")].col) \
        == (4, 22)
    assert o[()].file == "p.yaml"


@pytest.mark.parametrize("text,start,style", [
    ("f: a + b\n", (1, 4), ""),
    ('f: "a + b"\n', (1, 5), '"'),
    ("f: 'a + b'\n", (1, 5), "'"),
    ("f: |\n  a +\n    b\n", (2, 3), "|"),
    ("f: >\n    a +\n    b\n", (2, 5), ">"),
    ("f: |2\n     a\n", (2, 3), "|"),          # explicit indentation: text keeps 3 spaces
    ("s:\n  f: |  # comment\n\n    a\n", (3, 5), "|"),  # leading blank line is line 1
])
def test_formula_text_start(text: str, start: tuple[int, int], style: str) -> None:
    origin = parse_yaml(text, "t.yaml").origins[("s", "f") if text.startswith("s:") else ("f",)]
    assert (origin.text_line, origin.text_col) == start
    assert origin.style == style


def test_text_start_maps_the_formula_back_to_the_file() -> None:
    text = "x: 1\nf: |\n  first\n  second line\n"
    doc = parse_yaml(text, "t.yaml")
    origin = doc.origins[("f",)]
    file_lines = text.splitlines()
    for i, formula_line in enumerate(doc.data["f"].splitlines()):
        source = file_lines[origin.text_line - 1 + i]
        assert source[origin.text_col - 1:] == formula_line


def test_loader_agrees_with_safe_load_on_plain_documents() -> None:
    text = "id: a\nn: [1, 2, {k: v}]\nm: {x: 'q', y: -3}\nt: |\n  line\n"
    assert parse_yaml(text, "t.yaml").data == yaml.safe_load(text)


@pytest.mark.parametrize("text, col", [('name: "a \\ud800 b"\n', 7), ('"\\udc00": 1\n', 1),
                                       ("name: \"\\ud83d\\ude00\"\n", 7)])
def test_a_lone_surrogate_is_refused(text: str, col: int) -> None:
    """A YAML \\u escape may name a surrogate, which no UTF-8 output can write (lc score --json
    crashed with UnicodeEncodeError): refused where it is written, in a value or a key."""
    with pytest.raises(PackError) as caught:
        parse_yaml(text, "p.yaml")
    problem = caught.value.problems[0]
    assert (problem.code, problem.line, problem.col) == ("LC007", 1, col)
    assert "lone surrogate" in problem.message


def test_real_characters_beyond_the_bmp_load() -> None:
    assert parse_yaml('name: "\\U0001F600 ok"\n', "p.yaml").data == {"name": "\U0001F600 ok"}
