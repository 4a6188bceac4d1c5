"""Pack resolution, extends merging, provenance, the schema and defaults, caching, formulas."""
from __future__ import annotations

import os
from pathlib import Path

import jsonschema
import pytest

import lostcities.engine as engine
from lostcities.engine.packs import loader as packs
from lostcities.engine.errors import PackError
from lostcities.engine.packs.loader import (MAX_EXTENDS, builtin_ids, check_pack, format_path,
                                     iter_leaves, load_pack, locate, pack_schema, resolve_pack,
                                     validate_pack)
from lostcities.engine.game.rules import RulePack

BUILTINS = ["board-classic", "board-short", "board-updown", "duel-basic", "duel-classic",
            "duel-deck-after-discard", "duel-equal", "duel-grenoble", "duel-late-wagers", "duel-six"]


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ built-ins


def test_builtin_ids() -> None:
    assert builtin_ids() == BUILTINS


@pytest.mark.parametrize("pack_id", BUILTINS)
def test_every_builtin_loads_and_names_itself_after_its_file(pack_id: str) -> None:
    pack = load_pack(pack_id)
    assert isinstance(pack, RulePack)
    assert pack.id == pack_id
    assert pack.description and pack.sources


@pytest.mark.parametrize("pack_id,deck,family,players,rounds", [
    ("duel-classic", 60, "duel", (2, 2), 3),
    ("duel-six", 72, "duel", (2, 2), 3),
    ("duel-basic", 45, "duel", (2, 2), 3),
    ("duel-equal", 60, "duel", (2, 2), 3),
    ("duel-grenoble", 60, "duel", (3, 4), 3),
    ("board-classic", 110, "board", (2, 4), 3),
    ("board-short", 110, "board", (2, 4), 1),
    ("board-updown", 110, "board", (2, 4), 3),
])
def test_builtin_rules_as_the_texts_say(pack_id: str, deck: int, family: str,
                                        players: tuple[int, int], rounds: int) -> None:
    pack = load_pack(pack_id)
    assert (pack.deck_size, pack.family, (pack.min_players, pack.max_players), pack.rounds) \
        == (deck, family, players, rounds)


def test_builtin_variants_differ_where_the_texts_differ() -> None:
    assert load_pack("duel-classic").ordering == "strict"
    assert load_pack("duel-equal").ordering == "non-decreasing"
    assert load_pack("duel-equal").draw_pile_empty == "after-last-play"
    assert load_pack("duel-basic").wagers == 0
    assert load_pack("duel-classic").continuation and not load_pack("duel-equal").continuation
    assert load_pack("board-updown").ordering == "either-direction"
    assert load_pack("board-classic").removed_unseen == {2: 30}
    assert load_pack("board-classic").board.tile_count == 25
    grenoble = load_pack("duel-grenoble")
    assert grenoble.house_rule and grenoble.hand_size == 7
    assert grenoble.scoring_spec.constants == {"cost": 15, "bonus": 20, "bonus_cards": 7}
    assert load_pack("board-short").scoring_spec.tables["artefact_scale"][0] == -10
    assert load_pack("board-short").scoring_spec.tables["spaces"] == \
        load_pack("board-classic").scoring_spec.tables["spaces"]


def test_public_api_is_exported_lazily() -> None:
    assert engine.load_pack is load_pack
    assert engine.check_pack is check_pack
    assert engine.validate_pack is validate_pack


# ------------------------------------------------------------------ locating


def test_locate_builtin_and_path(tmp_path: Path) -> None:
    path, _name = locate("duel-classic")
    assert path.name == "duel-classic.yaml"
    pack = write(tmp_path, "x.yaml", "id: x\nextends: duel-classic\n")
    assert locate(str(pack)) == (pack, str(pack))


def test_unknown_pack_suggests_the_closest_id() -> None:
    with pytest.raises(PackError) as caught:
        locate("duel-clasic")
    assert caught.value.code == "LC009"
    assert "duel-classic" in caught.value.problems[0].hint
    assert check_pack("no/such/file.yaml")[0].code == "LC009"


# ------------------------------------------------------------------ merging


def test_maps_merge_scalars_override_lists_replace(tmp_path: Path) -> None:
    pack = write(tmp_path, "h.yaml", """\
id: h
extends: duel-classic
players: {max: 2}
deck:
  colours: [{key: r, name: red}, {key: b, name: blue}]
scoring:
  constants: {cost: 10}
""")
    data = resolve_pack(str(pack)).data
    assert data["players"] == {"min": 2, "max": 2}
    assert data["deck"]["colours"] == [{"key": "r", "name": "red"}, {"key": "b", "name": "blue"}]
    assert data["deck"]["values"] == {"min": 2, "max": 10}          # untouched sibling
    assert data["scoring"]["constants"] == {"cost": 10, "bonus": 20, "bonus_cards": 8}
    assert "extends" not in data


def test_a_scalar_may_replace_a_map_and_the_schema_then_objects(tmp_path: Path) -> None:
    pack = write(tmp_path, "h.yaml", "id: h\nextends: duel-classic\nrows: none\n")
    [problem] = check_pack(str(pack))
    assert (problem.code, problem.line, problem.file) == ("LC032", 3, str(pack))


def test_provenance_follows_every_value_through_the_chain(tmp_path: Path) -> None:
    base = write(tmp_path, "base.yaml", "id: base\nextends: duel-classic\nhand_size: 7\n")
    top = write(tmp_path, "top.yaml", "id: top\nextends: base.yaml\nmatch:\n  rounds: 5\n")
    resolved = resolve_pack(str(top))
    classic = Path(locate("duel-classic")[0]).name
    assert resolved.files[0] == str(top) and resolved.files[1] == str(base)
    assert resolved.files[2].endswith(classic)
    where = {format_path(p): resolved.origins[p] for p, _v in iter_leaves(resolved.data)}
    assert (where["id"].file, where["id"].line) == (str(top), 1)
    assert (where["match.rounds"].file, where["match.rounds"].line) == (str(top), 4)
    assert (where["hand_size"].file, where["hand_size"].line) == (str(base), 3)
    assert where["match.continuation"].file.endswith(classic)
    assert where["turn.turn_cap"].file.endswith(classic)
    assert where["deck.copies"].file.endswith(classic)
    assert resolved.origins[("deck", "removed_unseen")].file.endswith(classic)
    # the schema's defaults are marked as such
    assert resolved.origins[("rows", "start")].file.endswith(classic)
    assert resolved.origins[("scoring", "tables")].is_default


def test_every_leaf_has_an_origin_for_every_builtin() -> None:
    for pack_id in BUILTINS:
        resolved = resolve_pack(pack_id)
        for path, _value in iter_leaves(resolved.data):
            origin = resolved.origins[path]
            assert origin.is_default or origin.line > 0, (pack_id, path)


def test_extends_path_is_relative_to_the_extending_file(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub", "base.yaml", "id: base\nextends: duel-classic\nhand_size: 6\n")
    top = write(tmp_path, "top.yaml", "id: top\nextends: sub/base.yaml\n")
    monkeypatch.chdir("/")
    assert load_pack(str(top)).hand_size == 6


def test_extends_hint_for_a_file_written_as_an_id(tmp_path: Path) -> None:
    write(tmp_path, "club.yaml", "id: club\nextends: duel-classic\n")
    top = write(tmp_path, "top.yaml", "id: top\nextends: club\n")
    [problem] = check_pack(str(top))
    assert problem.code == "LC020" and "extends: club.yaml" in problem.hint


def test_extends_must_be_text(tmp_path: Path) -> None:
    top = write(tmp_path, "top.yaml", "id: top\nextends: [duel-classic]\n")
    assert [(p.code, p.line) for p in check_pack(str(top))] == [("LC020", 2)]


def test_self_extension_is_a_cycle(tmp_path: Path) -> None:
    top = write(tmp_path, "me.yaml", "id: me\nextends: me.yaml\n")
    [problem] = check_pack(str(top))
    assert (problem.code, problem.line) == ("LC021", 2)
    assert "me.yaml -> " in problem.message


def test_chain_of_exactly_the_maximum_is_fine(tmp_path: Path) -> None:
    # MAX_EXTENDS links: file 0 extends 1 ... extends MAX-1, which extends duel-classic
    for i in range(MAX_EXTENDS):
        target = f"{i + 1}.yaml" if i < MAX_EXTENDS - 1 else "duel-classic"
        write(tmp_path, f"{i}.yaml", f"id: link-{i}\nextends: {target}\n")
    assert load_pack(str(tmp_path / "0.yaml")).id == "link-0"
    write(tmp_path, "deeper.yaml", "id: deeper\nextends: 0.yaml\n")
    assert [p.code for p in check_pack(str(tmp_path / "deeper.yaml"))] == ["LC022"]


def test_problems_in_a_base_are_problems_of_the_pack(tmp_path: Path) -> None:
    write(tmp_path, "base.yaml", "id: base\nextends: duel-classic\nhand_size: 7\nhand_size: 8\n")
    top = write(tmp_path, "top.yaml", "id: top\nextends: base.yaml\n")
    [problem] = check_pack(str(top))
    assert (problem.code, problem.file, problem.line) == ("LC006", str(tmp_path / "base.yaml"), 4)


# ------------------------------------------------------------------ schema


def test_the_schema_is_valid_draft_2020_12() -> None:
    schema = pack_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def _walk_properties(schema: dict, path: str = "") -> list[tuple[str, dict]]:
    out = []
    for name, sub in schema.get("properties", {}).items():
        out.append((f"{path}.{name}".lstrip("."), sub))
        out += _walk_properties(sub, f"{path}.{name}")
        items = sub.get("items")
        if isinstance(items, dict):
            out += _walk_properties(items, f"{path}.{name}[]")
    return out


def test_every_property_has_a_description_and_examples_and_objects_are_closed() -> None:
    for path, sub in _walk_properties(pack_schema()):
        if path.startswith("else"):
            continue
        assert sub.get("description"), path
        assert sub.get("examples"), path
        if sub.get("type") == "object" and "properties" in sub:
            assert sub.get("additionalProperties") is False, path


def test_schema_defaults_are_the_defaults_the_model_uses() -> None:
    """RulePack.from_mapping without the optional keys == with the schema's defaults filled."""
    bare = {"id": "bare", "players": {"min": 2, "max": 3},
            "deck": {"colours": [{"key": "r", "name": "red"}], "values": {"min": 1, "max": 9}},
            "hand_size": 5, "scoring": {"expedition": "0", "round": "0", "match": "0"}}
    filled, _origins = packs._with_defaults(bare, {(): None})
    assert filled != bare
    assert RulePack.from_mapping(bare) == RulePack.from_mapping(filled)
    board = {**bare, "family": "board",
             "board": {"pawns": 3, "spaces": 5, "bridge_after": 3,
                       "tiles": [{"kind": "step", "count": 1}]}}
    filled, _origins = packs._with_defaults(board, {(): None})
    assert filled["board"]["leaders"] == 1 and filled["board"]["tiles"][0]["value"] == 0
    assert RulePack.from_mapping(board) == RulePack.from_mapping(filled)


def test_an_extending_pack_need_not_repeat_required_keys() -> None:
    """The editor schema accepts a house pack file as written (the `if extends` branch)."""
    validator = jsonschema.Draft202012Validator(pack_schema())
    assert not list(validator.iter_errors({"id": "h", "extends": "duel-classic",
                                           "deck": {"wagers": 0}, "players": {"max": 4}}))
    assert list(validator.iter_errors({"id": "h", "deck": {"wagers": 0}}))


def test_floats_and_booleans_are_not_integers(tmp_path: Path) -> None:
    top = write(tmp_path, "t.yaml", "id: t\nextends: duel-classic\nhand_size: 8.0\n"
                "match:\n  rounds: true\n")
    assert [(p.code, p.line) for p in check_pack(str(top))] == [("LC032", 3), ("LC032", 5)]


def test_unknown_keys_point_at_the_key_with_a_suggestion(tmp_path: Path) -> None:
    top = write(tmp_path, "t.yaml", "id: t\nextends: duel-classic\nrows:\n  orderin: strict\n"
                "  colour: red\n")
    found = check_pack(str(top))
    assert [(p.code, p.line, p.col) for p in found] == [("LC030", 4, 3), ("LC030", 5, 3)]
    assert found[0].message == "unknown key `orderin` in `rows`"
    assert found[0].hint == "did you mean `ordering`?"
    assert found[1].hint.startswith("allowed here: ordering, ")


def test_missing_required_key_in_a_nested_section(tmp_path: Path) -> None:
    top = write(tmp_path, "t.yaml", "id: t\nplayers: {min: 2}\ndeck:\n  colours: "
                "[{key: r, name: red}]\n  values: {min: 1, max: 9}\nhand_size: 3\n")
    found = [(p.code, p.line, p.message) for p in check_pack(str(top))]
    assert ("LC031", 2, "missing required key `max` in `players`") in found


def test_all_schema_problems_are_reported_at_once(tmp_path: Path) -> None:
    top = write(tmp_path, "t.yaml", "id: T\nextends: duel-classic\nhand_size: -1\n"
                "family: cards\nrows: {ordering: strict, start: first}\n")
    assert [p.code for p in check_pack(str(top))] == ["LC033"] * 4


# ------------------------------------------------------------------ semantic checks


def test_semantic_checks_run_unless_what_they_read_is_wrong(tmp_path: Path) -> None:
    # an unknown key elsewhere does not hide the deck check (issue #13: every problem at once)
    top = write(tmp_path, "t.yaml", "id: t\nextends: duel-classic\nhand_size: 30\nbogus: 1\n")
    assert [(p.code, p.line) for p in check_pack(str(top))] == [("LC040", 3), ("LC030", 4)]
    # a hand size that is not a number is not also "too large for the deck"
    top = write(tmp_path, "t.yaml", "id: t\nextends: duel-classic\nhand_size: '30'\n"
                "match:\n  first_starter: 5\n")
    assert [(p.code, p.line) for p in check_pack(str(top))] == [("LC032", 3), ("LC055", 5)]


def test_all_semantic_problems_are_reported_at_once(tmp_path: Path) -> None:
    top = write(tmp_path, "t.yaml", "id: t\nextends: duel-classic\nhand_size: 30\n"
                "match:\n  first_starter: 5\n")
    assert [(p.code, p.line) for p in check_pack(str(top))] == [("LC040", 3), ("LC055", 5)]


def test_deck_check_names_the_player_count(tmp_path: Path) -> None:
    top = write(tmp_path, "t.yaml", "id: t\nextends: duel-classic\nplayers: {min: 2, max: 8}\n")
    [problem] = check_pack(str(top))
    assert problem.code == "LC040" and "at 8 players" in problem.message


def test_every_code_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "rulepacks.md").read_text()
    for code, title in packs.CODES.items():
        assert f"| {code} |" in doc, code
    assert len(packs.CODES) == len(set(packs.CODES))


# ------------------------------------------------------------------ formulas


def test_formula_marks_point_at_the_formula_text() -> None:
    pack = load_pack("duel-grenoble")
    marks = pack.scoring_spec.marks
    file, line, col, style = marks["scoring.expedition"]
    assert file.endswith("duel-classic.yaml") and style == "|"
    text = Path(locate("duel-classic")[0]).read_text().splitlines()
    assert text[line - 1][col - 1:] == pack.scoring_spec.formulas["expedition"].splitlines()[0]
    file, line, col, style = marks["scoring.breakdown.multiplier"]
    assert style == "" and text[line - 1][col - 1:] == "1 + wagers"
    assert set(marks) == {"scoring.expedition", "scoring.round", "scoring.match",
                          "scoring.breakdown.sum", "scoring.breakdown.cost",
                          "scoring.breakdown.multiplier", "scoring.breakdown.bonus",
                          "scoring.constants.cost", "scoring.constants.bonus",
                          "scoring.constants.bonus_cards"}
    file, line, col, style = marks["scoring.constants.bonus_cards"]
    assert Path(file).read_text().splitlines()[line - 1][col - 1:].startswith(
        str(pack.scoring_spec.constants["bonus_cards"]))


def test_with_the_dsl_formulas_are_compiled_and_errors_located(tmp_path: Path) -> None:
    assert validate_pack("duel-classic").valid
    top = write(tmp_path, "t.yaml", "id: t\nextends: duel-classic\nscoring:\n"
                "  round: sum(e.score for e in\n")
    problems = check_pack(str(top))
    assert problems and problems[0].file == str(top) and problems[0].line == 4


# ------------------------------------------------------------------ cache


def test_load_pack_is_cached_until_a_file_changes(tmp_path: Path) -> None:
    assert load_pack("duel-classic") is load_pack("duel-classic")
    base = write(tmp_path, "base.yaml", "id: base\nextends: duel-classic\nhand_size: 7\n")
    top = write(tmp_path, "top.yaml", "id: top\nextends: base.yaml\n")
    first = load_pack(str(top))
    assert load_pack(str(top)) is first
    base.write_text("id: base\nextends: duel-classic\nhand_size: 6\n")
    os.utime(base, ns=(1, 1))  # a different stamp even within the clock's resolution
    second = load_pack(str(top))
    assert second is not first and second.hand_size == 6


def test_an_invalid_pack_is_not_cached(tmp_path: Path) -> None:
    top = write(tmp_path, "t.yaml", "id: t\nextends: duel-classic\nhand_size: 99\n")
    with pytest.raises(PackError):
        load_pack(str(top))
    top.write_text("id: t\nextends: duel-classic\nhand_size: 5\n")
    assert load_pack(str(top)).hand_size == 5


def test_load_pack_raises_every_problem(tmp_path: Path) -> None:
    top = write(tmp_path, "t.yaml", "id: t\nextends: duel-classic\nhand_sise: 1\nfamly: x\n")
    with pytest.raises(PackError) as caught:
        load_pack(str(top))
    assert [p.line for p in caught.value.problems] == [3, 4]
    assert str(caught.value).startswith(f"{top}:3:1: error LC030")


def test_each_family_gets_its_own_checks_chosen_once():
    """The LC checks of one family (the board's tracks, tiles and leaders; the duel's
    refusal of a board section, a pawn formula or bridge crossings) run for that family's
    packs alone, beside every pack's checks, in the order they are registered; a family the
    schema found wrong gets every pack's checks alone."""
    board, duel = packs.FAMILY_CHECKS["board"], packs.FAMILY_CHECKS["duel"]
    assert sorted(board) == ["LC047", "LC050", "LC051", "LC052", "LC053", "LC058", "LC059",
                             "LC060", "LC062"]
    assert sorted(duel) == ["LC048", "LC049", "LC057"]
    every = [code for code in packs.SEMANTIC_CHECKS if code not in board + duel]
    assert "LC056" in every and "LC040" in every
    assert packs.checks_of(None) == tuple(every)
    for family, own in (("board", board), ("duel", duel)):
        assert packs.checks_of(family) == tuple(
            code for code in packs.SEMANTIC_CHECKS if code in every or code in own)
