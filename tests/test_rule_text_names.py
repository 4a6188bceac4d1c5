"""What a player reads names the rule texts by what they are ("the online rules", "the
Kosmos 1999 Q&A"), never by their file names (``001_4683525d467c865e.txt``) nor their
numbers (``003's listing``): ``lc packs``, ``lc explain`` and the room's Rules page, in
every language and format; the README and the docs send no user to ``../shared``."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from enginehelpers import builtin_ids
from lostcities.cli.app import app
from lostcities.engine import load_pack
from lostcities.engine.tooling import explain
from lostcities.i18n import LANGS
from lostcities.i18n.rulebook import FORMATS, render

ROOT = Path(__file__).resolve().parents[1]
#: a rule text's file name, or a text named by its number ("003's", "de 000")
SPEC_NAME = re.compile(r"\b\d{3}_[0-9a-f]{16}(\.txt)?|\b00\d's\b|\bde 00\d\b|\b00\d\b")


def test_lc_packs_names_no_rule_text_file_nor_number() -> None:
    for lang in LANGS:
        for extra in ([], ["--json"]):
            result = CliRunner().invoke(app, ["packs", "--lang", lang, *extra])
            assert result.exit_code == 0, result.output
            assert not SPEC_NAME.search(result.stdout), (lang, extra, SPEC_NAME.findall(
                result.stdout))


@pytest.mark.parametrize("pack_id", builtin_ids())
def test_the_rulebook_names_each_rule_text_by_what_it_is(pack_id: str) -> None:
    book = explain(load_pack(pack_id))
    for lang in LANGS:
        for fmt in FORMATS:
            text = render(book, lang, fmt)
            assert not SPEC_NAME.search(text), (lang, fmt, SPEC_NAME.findall(text))


def test_the_rulebook_says_which_texts_a_pack_follows() -> None:
    english = render(explain(load_pack("duel-classic")), "en", "text")
    assert "It follows the full rules of the duel (Lost Cities – Le Duel), the online\n" \
           "  rules and the Kosmos 1999 Q&A." in english
    french = render(explain(load_pack("duel-equal")), "fr", "text")
    assert "Elle suit une fiche de règles avec un mode de base et un mode avancé." in \
           " ".join(french.split())


def test_a_house_packs_own_source_is_said_as_written(tmp_path: Path) -> None:
    house = tmp_path / "house.yaml"
    house.write_text("id: my-house\nextends: duel-classic\nhouse_rule: true\n"
                     "sources: [our club notes]\n", encoding="utf-8")
    text = render(explain(load_pack(str(house))), "en", "text")
    assert "It follows our club notes." in " ".join(text.split())


def test_readme_and_docs_send_no_user_to_the_shared_folder() -> None:
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(\.\./|/work/)shared\b", text), path.name
        assert not re.search(r"\b\d{3}_[0-9a-f]{16}", text), path.name


def test_the_rules_page_of_every_built_in_pack_names_no_rule_text_file(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from lostcities.server.app import create_app

    with TestClient(create_app(tmp_path, None, durable=False)) as client:
        for pack_id in builtin_ids():
            answer = client.post("/rooms", json={"pack": pack_id})
            assert answer.status_code == 201, answer.text
            room = answer.json()["room"]
            for lang in LANGS:
                page = client.get(f"/rooms/{room}/rules?lang={lang}")
                assert page.status_code == 200
                assert not SPEC_NAME.search(page.text), (pack_id, lang)
