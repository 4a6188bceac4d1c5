"""``lc packs --lang``: the built-in packs listed in English or French (issue #15's noticed list)."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.i18n import Catalogue

LOCALE = ("LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE")


def lc(*args: str, **env: str):
    """``lc ARGS`` in process, with no locale but the one given."""
    return CliRunner().invoke(app, list(args),
                                              env={**dict.fromkeys(LOCALE), **env})


def test_french_headings_families_and_descriptions():
    done = lc("packs", "--lang", "fr")
    assert done.exit_code == 0, done.output
    head, *rows = done.stdout.splitlines()
    assert head.split() == ["ID", "FAMILLE", "JOUEURS", "MAISON", "DESCRIPTION"]
    by_id = {row.split()[0]: row for row in rows}
    assert by_id["board-classic"].split()[1] == "plateau"
    assert by_id["duel-classic"].endswith(Catalogue("fr").pack_description(
        "duel-classic", Catalogue("en")("pack.duel-classic.description")))
    assert "Le duel de Kosmos (1999)" in by_id["duel-classic"]
    assert by_id["duel-grenoble"].split()[3] == "oui"


def test_the_locale_chooses_when_lang_is_not_given_and_lang_wins_over_it():
    assert lc("packs", LANG="fr_FR.UTF-8").stdout.splitlines()[0].split()[1] == "FAMILLE"
    assert lc("packs", "--lang", "en", LANG="fr_FR.UTF-8").stdout.splitlines()[0].split()[1] == "FAMILY"
    assert lc("packs").stdout.splitlines()[0].split()[1] == "FAMILY"


def test_json_names_and_descriptions_follow_the_language_and_the_rest_stays_data():
    en = json.loads(lc("packs", "--json", "--lang", "en").stdout)
    fr = json.loads(lc("packs", "--json", "--lang", "fr").stdout)
    assert [r["id"] for r in en] == [r["id"] for r in fr]
    for e, f in zip(en, fr):
        assert {k: v for k, v in e.items() if k not in ("name", "description")} == \
               {k: v for k, v in f.items() if k not in ("name", "description")}
        assert f["name"] == Catalogue("fr").pack_name(e["id"], e["name"]) != e["name"]
    assert {r["family"] for r in fr} == {"duel", "board"}  # a value, not a word


@settings(max_examples=25, deadline=None)
@given(st.text(min_size=1, max_size=12).filter(lambda t: t not in ("en", "fr")
                                                and not t.startswith("-") and "\x00" not in t))
def test_any_other_language_is_one_usage_line(lang):
    done = lc("packs", "--lang", lang)
    assert done.exit_code == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error: --lang ")
    assert isinstance(done.exception, SystemExit)  # an exit, not a crash
