"""French that agrees, and the built-in packs' names in the reader's language.

A colour after a feminine noun (la défausse, la rangée, la piste, la carte) is said in
the feminine (``{colour:f}``: verte, bleue, blanche; jaune, rouge, pourpre do not change),
for the built-in colours and a house pack's own, an unknown name staying as written; a
built-in pack's name and description come from the catalogue (``pack.ID.name``), a house
pack's own stay its own whatever its id. Through ``lc play``'s renderer and session, ``lc
explain``, the room server's localisation and the catalogues themselves.
"""
from __future__ import annotations

import json
import string
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st
from typer.testing import CliRunner

from enginehelpers import builtin_ids, complete_deal
from lostcities.cli import render
from lostcities.cli.app import app
from lostcities.cli.session import HUMAN, Player, Session, Turn
from lostcities.engine import Move, load_pack, new_game
from lostcities.i18n import (FEMININE, FILE_WORDS, LANGS, PARTS, Catalogue, feminine_forms,
                             load_messages)
from lostcities.i18n.rulebook import Words
from lostcities.server.protocol import translate
from test_play_render import text_of

EN, FR = Catalogue("en"), Catalogue("fr")
#: each built-in colour after "la défausse" in French
FEMININE_FR = {"yellow": "jaune", "blue": "bleue", "white": "blanche", "green": "verte",
               "red": "rouge", "purple": "pourpre"}
PLAIN_ENV = {"LANG": "C.UTF-8", "LC_ALL": None, "LC_MESSAGES": None, "COLUMNS": "100"}


def lc(*args: str, input: str = ""):
    return CliRunner().invoke(app, list(args), input=input, env=PLAIN_ENV)


def house(tmp_path: Path, text: str, name: str = "house.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def pile_draw(pack, colour_key: str, cat: Catalogue, you: bool = False) -> str:
    """``lc play``'s words for seat 0 discarding a card and taking the top of the pile of
    ``colour_key``."""
    codec = pack.cards
    card = next(c for c in range(len(codec.colour_of))
                if pack.colours[codec.colour_of[c]].key != colour_key)
    taken = next(c for c in range(len(codec.colour_of))
                 if pack.colours[codec.colour_of[c]].key == colour_key)
    move = Move.parse(f"d {codec.format(card)} {colour_key}", pack)
    return text_of(render.describe(Turn(0, move, 1, taken=taken), pack, "Ada", cat, you=you),
                   width=300).strip()


# --------------------------------------------------------------------------- colours agree

def test_a_pile_draw_in_each_built_in_colour_says_la_defausse_in_the_feminine() -> None:
    six = load_pack("duel-six")
    assert [c.name for c in six.colours] == list(FEMININE_FR)
    for colour in six.colours:
        said = FEMININE_FR[colour.name]
        assert pile_draw(six, colour.key, FR).endswith(f"sur la défausse {said}."), colour
        assert pile_draw(six, colour.key, FR, you=True).endswith(f"sur la défausse {said}.")
        assert pile_draw(six, colour.key, EN).endswith(f"from the {colour.name} pile.")


def test_the_room_server_says_the_same_turn_lines() -> None:
    for colour, said in FEMININE_FR.items():
        params = {"who": "Ada", "card": "r5", "taken": "g7", "colour": colour}
        assert translate("fr", "turn.discard.pile", params) == \
            f"Ada défausse r5 et prend g7 sur la défausse {said}."
        assert translate("en", "turn.discard.pile", params) == \
            f"Ada discards r5 and takes g7 from the {colour} pile."
        refused = {"key": "illegal.pile-empty", "params": {"colour": colour}}
        assert translate("fr", "error.illegal", {"reason": refused}) == \
            f"ce coup n'est pas permis : la défausse {said} est vide"


HOUSE_COLOURS = """\
extends: duel-classic
id: colours-of-our-own
name: Our own colours
description: A house pack whose colours are named by its players.
deck:
  colours:
    - {key: o, name: orange}
    - {key: g, name: vert}
    - {key: w, name: Blanc}
    - {key: n, name: bleu-nuit}
    - {key: c, name: cyan}
"""


def test_a_house_packs_colours_agree_when_known_and_stay_as_written_otherwise(
        tmp_path: Path) -> None:
    pack = load_pack(house(tmp_path, HOUSE_COLOURS))
    said = {"o": "orange", "g": "verte", "w": "Blanche", "n": "bleu-nuit", "c": "cyan"}
    for key, word in said.items():
        assert pile_draw(pack, key, FR).endswith(f"sur la défausse {word}."), key
    assert pile_draw(pack, "c", EN).endswith("from the cyan pile.")
    assert pile_draw(pack, "g", EN).endswith("from the vert pile.")  # English: as written
    for name in ("orange", "cyan", "bleu-nuit", "rose", "marron", "noir", ""):
        assert FR.feminine(name) == name  # no naive "+e"


def test_a_french_refusal_for_a_row_agrees() -> None:
    classic = load_pack("duel-classic")
    s = Session(classic, [Player(HUMAN, "Ada"), Player(HUMAN, "Bob")], 1)
    s.state = new_game(classic, ["Ada", "Bob"], 1, deals=[complete_deal(
        classic, ["w6 w3 b5 b2 g9 g4 y2 r3", "g10 g8 y9 y10 w2 w4 w5 w7"], top="r9 b3")])
    for line in ("p w6 deck", "d g8 deck", "p b5 deck", "d g10 deck"):
        assert s.command(line).kind == "moved", line
    for line, french, english in (
            ("p w3 deck", "w3 ne va pas dans votre rangée blanche : sa dernière carte est 6",
             "w3 cannot go on your white row: its last card is 6"),
            ("p b2 deck", "b2 ne va pas dans votre rangée bleue : sa dernière carte est 5",
             "b2 cannot go on your blue row: its last card is 5")):
        reply = s.command(line)
        assert reply.kind == "error", line
        assert [render.note_text(n, FR).startswith(french) for n in reply.notes] == [True]
        assert [render.note_text(n, EN).startswith(english) for n in reply.notes] == [True]


def test_a_board_packs_pawn_goes_onto_the_track_in_the_feminine() -> None:
    board = load_pack("board-classic")
    for colour in board.colours:
        move = Move.parse(f"p {colour.key}4 pawn=2 deck", board)
        text = text_of(render.describe(Turn(0, move, 1), board, "Ada", FR), width=300)
        assert f"Le pion 2 part sur la piste {FEMININE_FR[colour.name]}." in text


def test_the_rulebook_says_a_track_colour_in_the_feminine() -> None:
    from lostcities.engine.packs.explain import Term

    for lang, said in (("fr", "piste de couleur blanche"), ("en", "the white track")):
        words = Words(lang, "text")
        text = words.say("board.values.track", colour=Term("colour.white", "white"),
                         values=["1: -20"])
        assert said in text, text
    own = Words("fr", "html").say("board.values.track", colour=Term("colour.vert", "Vert<b>"),
                                  values=["1"])
    assert "Vert&lt;b&gt;" in own  # a house colour no catalogue knows: as written, escaped


# --------------------------------------------------------------------------- pack names

def test_lc_explain_titles_a_built_in_pack_in_the_chosen_language() -> None:
    for lang, name, description in (
            ("fr", "Les Cités perdues – le duel", "Le duel de Kosmos (1999)"),
            ("en", "Lost Cities – the duel", "The Kosmos 1999 duel")):
        for fmt, title in (("text", "{name}\n"), ("md", "# {name}\n"),
                           ("html", "<h1>{name}</h1>")):
            result = lc("explain", "duel-classic", "--lang", lang, "--format", fmt)
            assert result.exit_code == 0, result.output
            assert title.format(name=name) in result.stdout, result.stdout[:300]
            assert description in result.stdout


def test_a_house_packs_name_is_shown_as_written_whatever_its_id(tmp_path: Path) -> None:
    classic = (files("lostcities.rulepacks") / "duel-classic.yaml").read_text(encoding="utf-8")
    own = classic.replace("name: Lost Cities – the duel", "name: Our Saturday duel")
    assert own != classic
    path = house(tmp_path, own, "saturday.yaml")  # its id stays duel-classic
    result = lc("explain", str(path), "--lang", "fr")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Our Saturday duel\n")
    assert "Les Cités perdues – le duel" not in result.stdout
    pack = load_pack(path)
    assert pack.id == "duel-classic"
    assert FR.pack_name(pack.id, pack.name) == "Our Saturday duel"
    assert FR.pack_description(pack.id, pack.description).startswith("Le duel de Kosmos")
    inherits = house(tmp_path, "extends: duel-classic\nid: ours\n", "ours.yaml")
    result = lc("explain", str(inherits), "--lang", "fr")  # the built-in's name, not its id
    assert result.exit_code == 0 and result.stdout.startswith("Lost Cities – the duel\n")


def test_lc_play_heads_the_table_with_the_packs_name_in_french(tmp_path: Path,
                                                              monkeypatch) -> None:
    monkeypatch.setenv("LOSTCITIES_DATA_DIR", str(tmp_path / "data"))
    result = lc("play", "--lang", "fr", "--seed", "3", "--players", "human,bot:greedy",
                input="quitter\n\n")
    assert result.exit_code == 0, result.output
    assert "Les Cités perdues – le duel  ·  manche 1 sur 3  ·  tour 1" in result.stdout
    path = house(tmp_path, HOUSE_COLOURS)
    result = lc("play", "--lang", "fr", "--pack", str(path), "--seed", "3",
                "--players", "human,bot:greedy", input="quitter\n\n")
    assert result.exit_code == 0, result.output
    assert "Our own colours  ·  manche 1 sur 3" in result.stdout


# --------------------------------------------------------------------------- the catalogues

@lru_cache(maxsize=None)
def builtin_texts() -> dict[str, tuple[str, str]]:
    """Each built-in pack's name and description, as its file writes them."""
    out = {}
    for pack_id in builtin_ids():
        data = yaml.safe_load((files("lostcities.rulepacks") / f"{pack_id}.yaml")
                              .read_text(encoding="utf-8"))
        out[pack_id] = (data["name"], data["description"])
    return out


def test_every_built_in_pack_has_a_name_and_description_in_both_languages() -> None:
    texts = builtin_texts()
    assert len(texts) >= 8
    en, fr = load_messages("en"), load_messages("fr")
    for pack_id, (name, description) in texts.items():
        assert en[f"pack.{pack_id}.name"] == name, pack_id  # the pack file's own words
        # the pack file's words, or those FILE_WORDS recognises where the catalogue rewords them
        assert description in (en[f"pack.{pack_id}.description"],
                               FILE_WORDS.get(f"pack.{pack_id}.description")), pack_id
        assert EN.pack_description(pack_id, description) == en[f"pack.{pack_id}.description"]
        assert FR.pack_description(pack_id, description) == fr[f"pack.{pack_id}.description"]
        for key in (f"pack.{pack_id}.name", f"pack.{pack_id}.description"):
            assert fr[key].strip() and fr[key] != en[key], key
        assert FR.pack_name(pack_id, name) == fr[f"pack.{pack_id}.name"]
        assert EN.pack_name(pack_id, name) == name
    packs = {k.split(".")[1] for k in en if k.startswith("pack.")}
    assert packs == set(texts)  # no name of a pack that is not built in


def test_every_french_colour_has_its_feminine_form() -> None:
    for lang in LANGS:
        messages = load_messages(lang)
        colours = [k for k in messages if k.startswith("colour.") and k.count(".") == 1]
        assert len(colours) >= 6
        for key in colours:
            assert messages[f"{key}.f"].strip(), key
            if lang == "en":
                assert messages[f"{key}.f"] == messages[key]  # English: one form
    fr = load_messages("fr")
    for colour, said in FEMININE_FR.items():
        assert fr[f"colour.{colour}.f"] == said
        assert feminine_forms("fr")[fr[f"colour.{colour}"]] == said


def fields(text: str) -> list[tuple[str, str]]:
    return sorted((name, spec or "") for _, name, spec, _ in string.Formatter().parse(text)
                  if name is not None)


def test_both_languages_have_the_same_placeholders_and_specs() -> None:
    """Every part of the catalogue and the rulebook's sentences: the same keys in both
    languages, the same placeholders with the same format specs (only ``f``, only on a
    colour); a key whose French says a colour in the feminine says ``{colour:f}`` in
    English too, where it is the plain name."""
    sources = [f"{part}_{{}}.json" for part in PARTS] + ["rules_{}.json"]
    feminine_keys = 0
    for source in sources:
        en, fr = (json.loads((files("lostcities.i18n") / source.format(lang))
                             .read_text(encoding="utf-8")) for lang in ("en", "fr"))
        assert set(en) == set(fr), source
        for key in en:
            assert fields(en[key]) == fields(fr[key]), (source, key)
            for name, spec in fields(fr[key]):
                assert spec in ("", FEMININE), (key, spec)
                if spec == FEMININE:
                    assert name == "colour" or name.endswith("_colour"), key
                    feminine_keys += 1
    assert feminine_keys >= 16


@pytest.mark.parametrize("noun", ["la défausse", "votre rangée", "la piste", "carte"])
def test_no_french_message_puts_a_plain_colour_after_a_feminine_noun(noun: str) -> None:
    for source in ("messages_fr.json", "web_fr.json", "rules_fr.json"):
        for key, text in json.loads((files("lostcities.i18n") / source)
                                    .read_text(encoding="utf-8")).items():
            assert f"{noun} {{colour}}" not in text, (source, key)
            assert f"{noun} de couleur {{colour}}" not in text, (source, key)


# --------------------------------------------------------------------------- fuzz

@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_colour_name_is_said_whole_or_as_its_known_feminine(name: str) -> None:
    for cat in (EN, FR):
        said = cat.feminine(name)
        if name.lower() in feminine_forms(cat.lang):
            assert said.lower() == feminine_forms(cat.lang)[name.lower()].lower()
        else:
            assert said == name
        assert said in cat("illegal.pile-empty", colour=name)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(builtin_ids() + ["", "my-house", "pack.x"]), st.text(max_size=60))
def test_any_other_pack_name_stays_as_written(pack_id: str, name: str) -> None:
    english = builtin_texts().get(pack_id, ("", ""))
    for cat in (EN, FR):
        if name != english[0]:
            assert cat.pack_name(pack_id, name) == name
        if name != english[1]:
            assert cat.pack_description(pack_id, name) == name


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(load_messages("en"))),
       st.dictionaries(st.sampled_from(["colour", "card", "who", "count", "row", "last"]),
                       st.one_of(st.text(max_size=20), st.integers(-5, 100)), max_size=6))
def test_any_message_with_any_parameters_gives_text(key: str, params: dict) -> None:
    for cat in (EN, FR):
        assert isinstance(cat(key, **params), str)


def test_the_words_for_a_colour_are_its_names_in_every_language():
    from lostcities.i18n import colour_words

    assert colour_words("White") == {"white", "blanc", "blanche"}
    assert colour_words("yellow") == {"yellow", "jaune"}
    assert colour_words("orange") == {"orange"}  # a house pack's own colour: as written


def test_french_says_rangee_for_a_row_and_never_serie() -> None:
    """One French word for a row of cards: the rule texts say *rangée* (17 times in texts
    000, 001 and 004) more than *série* (14, all in text 002), so every French catalogue
    says *rangée* and none says *série*."""
    rangee = 0
    for source in ("messages_fr.json", "web_fr.json", "rules_fr.json"):
        text = (files("lostcities.i18n") / source).read_text(encoding="utf-8").lower()
        assert "série" not in text and "serie" not in text, source
        rangee += text.count("rangée")
    assert rangee >= 40
