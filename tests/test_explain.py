"""``lc explain``: every setting of every pack is in its rulebook, the worked example is
``lc score``'s, both languages and all three formats render, errors are one line."""
from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path
from typing import Any, Iterator

import pytest
import typer
from typer.testing import CliRunner

from lostcities.cli import explain as explain_cli
from lostcities.cli import score as score_cli
from lostcities.engine import load_pack, validate_pack
from lostcities.engine.packs.explain import IDENTITY, explain

BUILTINS = sorted(p.name[:-5] for p in files("lostcities.rulepacks").iterdir()
                  if p.name.endswith(".yaml"))
SCHEMA = json.loads(files("lostcities.rulepacks").joinpath("pack.schema.json").read_text())


def cli(*commands: Any) -> typer.Typer:
    app = typer.Typer()
    for module in commands:
        module.register(app)

    @app.callback()
    def _root() -> None:
        """lc, with the commands under test only."""

    return app


APP = cli(explain_cli, score_cli)


def lc(*args: str):
    return CliRunner().invoke(APP, list(args), env={"COLUMNS": "80"})


def body(text: str, source: str = "") -> str:
    """A text rulebook without its house rules section and markers, the pack's file name
    and the line breaks: the rules themselves."""
    text = re.sub(r"\nHouse rules\n-+\n.*?\n\n", "\n", text, flags=re.S)
    text = text.replace("[house rule] ", "")
    return " ".join((text.replace(source, "PACK") if source else text).split())


def house_section(text: str) -> str:
    found = re.search(r"\nHouse rules\n-+\n(.*?)\n\n", text, flags=re.S)
    return found.group(1) if found else ""


def rulebook(source: str) -> str:
    result = lc("explain", source, "--lang", "en", "--format", "text")
    assert result.exit_code == 0, result.output
    return result.stdout


# --------------------------------------------------------------------------- every setting


def _deref(sub: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in sub:
        target = SCHEMA
        for part in sub["$ref"][2:].split("/"):
            target = target[part]
        return {**target, **{k: v for k, v in sub.items() if k != "$ref"}, "ref": sub["$ref"]}
    return sub


NEW_NAME = "t_added"


def settings(schema: dict[str, Any], data: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every setting the schema allows, with the pack's value: leaves of its properties,
    lists whole, and each entry of a name -> value mapping (constants, tables, breakdown)
    plus a new one."""
    for key, sub in schema.get("properties", {}).items():
        sub = _deref(sub)
        if sub.get("deprecated"):
            continue  # an old spelling of a setting listed too (tests/test_rule_options.py)
        here = data.get(key) if isinstance(data, dict) else None
        if sub.get("type") == "object" and "properties" in sub:
            yield from settings(sub, here or {}, path + (key,))
        elif sub.get("type") == "object" and isinstance(sub.get("additionalProperties"), dict):
            value_schema = _deref(sub["additionalProperties"])
            for name, value in (here or {}).items():
                yield path + (key, name), value_schema, value
            yield path + (key, NEW_NAME), value_schema, None
        else:
            yield path + (key,), sub, here


def candidates(path: tuple, sub: dict[str, Any], value: Any, data: dict[str, Any]) -> list:
    """Other values the schema allows at ``path`` (some of which the pack's checks refuse)."""
    kind = sub.get("type")
    if "enum" in sub:
        return [v for v in sub["enum"] if v != value]
    if kind == "boolean":
        return [not value]
    if kind == "integer":
        low, high = sub.get("minimum", -50), sub.get("maximum", 10 ** 4)
        base = 3 if value is None else value
        tries = [base + 1, base - 1, base + 2, base - 2, low, high, 1, 2]
        return [v for v in dict.fromkeys(tries) if low <= v <= high and v != value]
    if sub.get("ref") == "#/$defs/formula":
        return ["points", "1", "tokens"] if value is None else [f"({value}) + 1"]
    if kind == "string":
        return [f"{value or 'text'} (changed)"]
    if kind == "array":
        items = _deref(sub.get("items", {}))
        value = value or []
        out: list = []
        if len(value) > 1:
            out += [value[:-1], value[1:]]
        if items.get("type") == "object":
            first = value[0] if value else dict(items["examples"][0])
            for field, field_schema in items["properties"].items():
                for other in candidates((), _deref(field_schema), first.get(field), data)[:3]:
                    changed = {**first, field: other}
                    out += [[changed, *value[1:]], [*value, changed]]
            if not value:
                example = dict(items["examples"][0])
                for field, field_value in example.items():
                    if isinstance(field_value, int):
                        example[field] = data["players"]["min"] if field == "players" else 1
                out.append([example])
        elif items.get("type") == "integer":
            out += [[*value, v] for v in (max(value, default=0) + 1, 1) if v not in value]
            if value:
                out.append([value[0] + 1, *value[1:]])
        elif "enum" in items:
            out += [[*value, v] for v in items["enum"] if v not in value]
        else:
            out.append([*value, "changed.txt"])
        return out
    return []


def to_board(data: dict[str, Any]) -> dict[str, Any]:
    """What turns a duel pack into a board pack: the family and what it needs."""
    return {"family": "board", "board": {"pawns": 2, "spaces": 4, "bridge_after": 2},
            "scoring": {"pawn": "space", "round": "sum(p.score for p in pawns)"}}


def with_companions(override: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """The same change with what the pack's checks then require of other settings: no
    fewer players at most than at least; no cards removed at a player count now outside
    the range; rows that take equal values when there are copies; a space values table of one
    value per space (the last value repeated) when the tracks grow or shrink."""
    out = copy.deepcopy(override)
    players = {**data["players"], **out.get("players", {})}
    if players["min"] > players["max"]:
        out.setdefault("players", {})["max"] = players["max"] = players["min"]
    removed = data["deck"].get("removed_unseen", [])
    kept = [r for r in removed if players["min"] <= r["players"] <= players["max"]]
    if kept != removed:
        out.setdefault("deck", {})["removed_unseen"] = kept
    copies = out.get("deck", {}).get("copies", data["deck"]["copies"])
    if copies > 1 and data["rows"]["ordering"] == "strict":
        out.setdefault("rows", {})["ordering"] = "non-decreasing"
    spaces = out.get("board", {}).get("spaces")
    table = data.get("scoring", {}).get("tables", {}).get("spaces")
    if spaces is not None and table is not None:
        resized = (table + [table[-1]] * spaces)[:spaces + 1]
        out.setdefault("scoring", {}).setdefault("tables", {})["spaces"] = resized
        tile_spaces = [s for s in data["board"].get("tile_spaces", []) if s <= spaces]
        out["board"]["tile_spaces"] = tile_spaces
    return out


def nested(path: tuple, value: Any) -> dict[str, Any]:
    out: Any = value
    for key in reversed(path):
        out = {key: out}
    return out


#: settings no house pack of that family can change alone (the pack's own checks
#: refuse any other value): a duel has no board, and a board section cannot be deleted
def unchangeable(family: str, setting: str) -> bool:
    if family == "duel":
        return setting.startswith("board.") or setting in ("round_end.bridge_crossings",
                                                           "scoring.pawn")
    return setting == "family"


@pytest.mark.parametrize("pack_id", BUILTINS)
def test_every_setting_of_every_pack_shows_in_its_explanation(pack_id: str,
                                                              tmp_path: Path) -> None:
    data = load_pack(pack_id).data
    house = tmp_path / "t.yaml"
    house.write_text(json.dumps({"id": "t", "extends": pack_id}))
    unchanged = body(rulebook(str(house)), str(house))
    found_unchangeable = []
    checked = 0
    for path, sub, value in settings(SCHEMA, data):
        setting = ".".join(path)
        if setting in ("id", "extends"):
            continue  # the house pack's own: tested below
        if unchangeable(data["family"], setting):
            continue  # no value of it is valid alone in this family (the board of a duel)
        tries = [to_board(data)] if setting == "family" and value == "duel" else [
            nested(path, v) for v in candidates(path, sub, value, data)]
        for n, override in enumerate(o for t in tries for o in (t, with_companions(t, data))):
            house = tmp_path / f"t{checked}-{n}.yaml"
            house.write_text(json.dumps({"id": "t", "extends": pack_id, **override}))
            result = lc("explain", str(house), "--lang", "en", "--format", "text")
            if result.exit_code == 0:
                break
            assert result.exit_code == 1 and "LC" in result.stderr, result.output
        else:
            found_unchangeable.append(setting)
            continue
        checked += 1
        text = result.stdout
        assert body(text, str(house)) != unchanged, \
            f"{pack_id}: {setting} = {override} changes nothing"
        if path[0] not in IDENTITY:
            assert re.search(rf"^- {re.escape(setting)}(\.|:)", house_section(text), re.M), \
                f"{pack_id}: the house rules do not name {setting}:\n{house_section(text)}"
    assert not found_unchangeable, f"{pack_id}: no valid value found for {found_unchangeable}"
    assert checked > 30


def test_the_heading_names_the_pack_and_its_base(tmp_path: Path) -> None:
    house = tmp_path / "friday.yaml"
    house.write_text("id: friday\nextends: duel-six\nhand_size: 7\n")
    text = rulebook(str(house))
    assert "friday: house rules on top of duel-six" in text
    assert "- hand_size: 8 -> 7" in house_section(text)
    assert "[house rule] Shuffle the deck and deal 7 cards" in text
    assert "Pack duel-classic" in rulebook("duel-classic")


def test_a_house_pack_without_changes_says_so(tmp_path: Path) -> None:
    house = tmp_path / "same.yaml"
    house.write_text("id: same\nextends: board-classic\n")
    text = rulebook(str(house))
    assert "Built on board-classic, with the same rules." in text
    assert "[house rule]" not in text


def test_the_schema_walk_sees_every_section() -> None:
    """The list of settings comes from the schema: a new section there is walked too."""
    seen = {path[0] for path, _, _ in settings(SCHEMA, load_pack("board-classic").data)}
    assert seen == set(SCHEMA["properties"])


# --------------------------------------------------------------------------- worked example


@pytest.mark.parametrize("pack_id", BUILTINS)
def test_the_worked_example_is_lc_scores(pack_id: str) -> None:
    example = explain(pack_id).example
    assert example.error is None and example.total is not None
    result = lc("score", "--pack", pack_id, "--json", *example.words)
    assert result.exit_code == 0, result.output
    scored = json.loads(result.stdout)
    assert scored["total"] == example.total
    if example.family == "board":
        assert [p["score"] for p in scored["pawns"]] == [line.score for line in example.lines]
        assert scored["artefact_points"] == example.artefact_points
        assert scored["match_total"] == example.match_total
    else:
        assert [e["score"] for e in scored["expeditions"]] == [line.score
                                                              for line in example.lines]
    assert f"Round total, by the round formula: {example.total}." in rulebook(pack_id)


def test_duel_classic_worked_example_is_000s() -> None:
    text = rulebook("duel-classic")
    assert "lc score --pack duel-classic y5 y8 y10 wx gx g3 g5 g7 rx rx r2 r3 r5 r7 r8 r10" \
        in " ".join(text.split())
    assert "- red: x x 2 3 5 7 8 10 — sum 35, cost 20, multiplier 3, bonus 20: 65" in text
    assert "Round total, by the round formula: 18." in text


def test_formulas_are_shown_and_explained() -> None:
    text = rulebook("duel-classic")
    assert "      else (points - cost) * (1 + wagers) + (if cards >= bonus_cards then bonus" \
           " else 0)" in text
    flat = " ".join(text.split())
    assert "take away 20 (the expedition's cost)" in flat
    assert "With 1, 2 and 3 wagers, multiply the result by 2, 3 and 4 respectively" in flat
    assert "at least 8 cards, wagers included, earns 20 points more" in flat
    board = " ".join(rulebook("board-classic").split())
    assert "The leader counts its space's value double" in board
    assert "never goes below 0" in board
    assert "9+: 30" in board and "6: 15 | 7: 30" in board


def test_a_formula_without_a_simple_shape_is_shown_as_written(tmp_path: Path) -> None:
    house = tmp_path / "squares.yaml"
    house.write_text("id: squares\nextends: duel-classic\nscoring:\n"
                     "  expedition: sum(v * v for v in values)\n")
    text = " ".join(rulebook(str(house)).split())
    assert "sum(v * v for v in values)" in text
    assert "In words: see the formula as written." in text
    assert "take away" not in text


# --------------------------------------------------------------------------- languages, formats


class Balanced(HTMLParser):
    VOID = {"meta", "br", "hr", "img", "link", "input"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def well_formed(page: str) -> Balanced:
    parser = Balanced()
    parser.feed(page)
    parser.close()
    assert not parser.errors and not parser.stack, (parser.errors, parser.stack)
    assert page.startswith("<!DOCTYPE html>") and parser.tags[:3] == ["html", "head", "meta"]
    return parser


@pytest.mark.parametrize("pack_id", BUILTINS)
def test_english_and_french_in_every_format(pack_id: str) -> None:
    for lang, title in (("en", "Setting up"), ("fr", "Mise en place")):
        for fmt in ("text", "md", "html"):
            result = lc("explain", pack_id, "--lang", lang, "--format", fmt)
            assert result.exit_code == 0, result.output
            out = result.stdout
            assert title in out and not re.search(r"\{[a-z_]+\}", out), out
            if fmt == "html":
                assert f'<html lang="{lang}">' in out
                well_formed(out)
            if fmt == "md":
                assert out.startswith("# ") and "\n## " in out


def test_every_sentence_has_both_languages() -> None:
    en = json.loads(files("lostcities.i18n").joinpath("rules_en.json").read_text())
    fr = json.loads(files("lostcities.i18n").joinpath("rules_fr.json").read_text())
    assert set(en) == set(fr)
    for pack_id in BUILTINS:
        for section in explain(pack_id).sections:
            assert f"section.{section.key}" in en
            for sentence in section.sentences:
                assert sentence.key in en, sentence.key


def test_pack_text_is_data_escaped_and_stripped(tmp_path: Path) -> None:
    house = tmp_path / "evil.yaml"
    house.write_text(json.dumps({
        "id": "evil", "extends": "duel-classic",
        "name": "<script>alert(1)</script> \u001b[31mred\u001b[0m",
        "description": "a & b <b>bold</b> `tick` *star*",
        "deck": {"colours": [{"key": "y", "name": "<script>x</script>"},
                             {"key": "b", "name": "blue"}]},
        "scoring": {"round": "sum(e.score for e in expeditions)  # </pre><script>"}}))
    page = lc("explain", str(house), "--format", "html")
    assert page.exit_code == 0, page.output
    assert "<script>" not in page.stdout and "&lt;script&gt;" in page.stdout
    assert "\u001b" not in page.stdout
    well_formed(page.stdout)
    text = lc("explain", str(house), "--format", "text")
    assert text.exit_code == 0 and "\u001b" not in text.stdout and "[31mred" in text.stdout
    md = lc("explain", str(house), "--format", "md")
    assert md.exit_code == 0 and "<script>" not in md.stdout.split("```")[0]
    assert "\\*star\\*" in md.stdout


def test_a_lone_surrogate_in_a_pack_string_is_refused_at_load(tmp_path: Path) -> None:
    """YAML's "\\ud800" escape gives a string no output can encode: the loader refuses the
    pack (LC007 at the string), so every format says so in one line."""
    house = tmp_path / "odd.yaml"
    house.write_text('id: odd\nextends: duel-classic\nname: "odd \\ud800 name"\n')
    for fmt in ("text", "md", "html"):
        result = lc("explain", str(house), "--format", fmt)
        assert result.exit_code == 1 and result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and "odd.yaml:3:7: error LC007" in lines[0]


def test_library_structure_is_json_ready() -> None:
    book = explain("board-classic")
    doc = json.loads(json.dumps(book.to_dict()))
    assert doc["pack"] == "board-classic" and doc["base"] is None
    assert doc["example"]["total"] == 115
    assert {s["key"] for s in doc["sections"]} >= {"setup", "board", "scoring"}
    tiles = [s for s in doc["sections"] if s["key"] == "board"][0]["sentences"]
    assert {"key": "board.tile.points", "params": {"count": 3, "value": 10},
            "settings": ["board.tiles"], "changed": False} in tiles


# --------------------------------------------------------------------------- errors


def one_line_error(result, code: int) -> str:
    assert result.exit_code == code, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error:"), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_one_line_errors(tmp_path: Path) -> None:
    assert "no such built-in pack" in one_line_error(lc("explain", "duel-clasic"), 2)
    assert "--lang 'de'" in one_line_error(lc("explain", "duel-classic", "--lang", "de"), 2)
    assert "--format 'pdf'" in one_line_error(
        lc("explain", "duel-classic", "--format", "pdf"), 2)
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: broken\nextends: duel-classic\nhand_size: eight\nrows: {order: x}\n")
    line = one_line_error(lc("explain", str(broken)), 1)
    assert "LC0" in line and "more problems" in line


def test_a_deep_copy_of_the_data_is_not_needed() -> None:
    """explain reads the pack; it never changes the loaded pack's data."""
    pack = load_pack("duel-grenoble")
    before = copy.deepcopy(dict(pack.data))
    explain(pack)
    assert dict(pack.data) == before


# --------------------------------------------------------------------------- fuzz

from hypothesis import HealthCheck, given, settings as hsettings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def duel_house_packs(draw) -> dict[str, Any]:
    low = draw(st.integers(0, 20))
    high = draw(st.integers(low, low + draw(st.integers(0, 12))))
    ordering = draw(st.sampled_from(["strict", "non-decreasing", "either-direction"]))
    copies = 1 if ordering == "strict" else draw(st.integers(1, 3))
    colours = draw(st.integers(1, 7))
    keys = "ybwgrpc"
    name = draw(st.text(min_size=1, max_size=12))
    return {"id": "fuzz", "extends": "duel-classic", "name": name,
            "description": draw(st.text(max_size=20)), "hand_size": 1,
            "deck": {"values": {"min": low, "max": high}, "copies": copies,
                     "wagers": draw(st.integers(0, 4)),
                     "colours": [{"key": keys[i], "name": f"{name}{i}"}
                                 for i in range(colours)]},
            "rows": {"ordering": ordering,
                     "wagers_before_numbers": draw(st.booleans())},
            "scoring": {"constants": {"cost": draw(st.integers(-30, 30)),
                                      "bonus_cards": draw(st.integers(0, 12))}}}


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(duel_house_packs())
def test_any_duel_house_pack_explains_and_its_example_scores(data: dict[str, Any]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.yaml"
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        report = validate_pack(str(path))
        if not report.valid:  # e.g. too few cards to deal
            return
        book = explain(str(path))
        assert book.example.error is None
        result = lc("score", "--pack", str(path), "--json", *book.example.words)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["total"] == book.example.total
        page = lc("explain", str(path), "--format", "html")
        assert page.exit_code == 0, page.output
        well_formed(page.stdout)
        assert "<" not in page.stdout.split("<h1>", 1)[1].split("</h1>", 1)[0]
        text = lc("explain", str(path), "--lang", "fr")
        assert text.exit_code == 0 and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text.stdout)
