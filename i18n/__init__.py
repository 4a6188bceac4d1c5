"""The message catalogues of lostcities' front ends (``lc play``, ``lc explain``, the room
server and its web page): English and French, chosen by ``--lang``, the locale or the
browser.

The catalogues are JSON files shipped beside this module (``messages_en.json``,
``messages_fr.json``, and the web page's labels ``web_en.json``, ``web_fr.json``), one
``key -> text`` mapping each; texts are
``str.format`` templates (``"you hold no {card}"``). A key missing from a
catalogue falls back to English, then to the key itself, so a message is
never lost (a test keeps the French catalogue complete).

A message with a ``count`` parameter may have plural forms: ``KEY.zero``,
``KEY.one`` and ``KEY.other`` (:func:`plural_form` picks one by the language's
rule: French says "1 tour" and "0 tour", English "1 turn" and "0 turns"); a form
missing falls back to ``KEY.other``, then to ``KEY``.

A colour's name agrees with the noun it follows: a template says ``{colour:f}`` after a
feminine noun (``la défausse {colour:f}``) and gets the feminine form, ``colour.NAME.f``
(``verte``; English keeps the plain name), of the colour it is given, whether by its pack
name (``green``) or already said in the language (``vert``); a name no catalogue knows
stays as written. A built-in pack's name and description are ``pack.ID.name`` and
``pack.ID.description`` (:meth:`Catalogue.pack_name`); a house pack's own stay its own.
"""
from __future__ import annotations

import json
import os
import string
from functools import lru_cache
from importlib.resources import files
from typing import Any, Mapping

from lostcities.engine.safeio import plain_text

#: the languages with a catalogue; the first is the fallback
LANGS: tuple[str, ...] = ("en", "fr")
#: the counts each language says in the singular
SINGULAR: dict[str, tuple[int, ...]] = {"en": (1,), "fr": (0, 1)}


def plural_form(lang: str, count: int) -> str:
    """The plural form of ``count`` in ``lang``: ``zero``, ``one`` or ``other``
    (``zero`` is tried first, so a message may say "nothing" its own way).

    >>> plural_form("en", 0), plural_form("en", 1), plural_form("fr", 0), plural_form("fr", 2)
    ('zero', 'one', 'zero', 'other')
    """
    if count == 0:
        return "zero"
    return "one" if count in SINGULAR.get(lang, (1,)) else "other"


def detect_lang(environ: Mapping[str, str] = os.environ) -> str:
    """The language of the POSIX locale: LC_ALL, then LC_MESSAGES, then LANG.

    >>> detect_lang({"LANG": "fr_FR.UTF-8"}), detect_lang({"LC_ALL": "C", "LANG": "fr_FR"})
    ('fr', 'en')
    """
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(var, "")
        if value:
            code = value.split(".")[0].split("@")[0].split("_")[0].lower()
            return code if code in LANGS else LANGS[0]
    return LANGS[0]


#: the files of one language's catalogue, ``NAME_LANG.json``: the messages of ``lc play``
#: and the room server, and the labels of the web page (no key in two of them)
PARTS: tuple[str, ...] = ("messages", "web")


@lru_cache(maxsize=None)
def load_messages(lang: str) -> dict[str, str]:
    """The catalogue of ``lang`` as a dict (read once): every part of :data:`PARTS`."""
    messages: dict[str, str] = {}
    for part in PARTS:
        source = files(__package__).joinpath(f"{part}_{lang}.json")
        if source.is_file():
            messages.update(json.loads(source.read_text(encoding="utf-8")))
    return messages


#: the format spec of a placeholder that says a colour in the feminine (``{colour:f}``)
FEMININE = "f"


@lru_cache(maxsize=None)
def feminine_forms(lang: str) -> dict[str, str]:
    """The feminine colour names of ``lang``'s catalogue, keyed by the lower-case pack name
    (``green``) and by the name as the language says it (``vert``): ``verte``."""
    messages = load_messages(lang)
    forms: dict[str, str] = {}
    for key, text in messages.items():
        base = key[len("colour."):-len(".f")]
        if key.startswith("colour.") and key.endswith(".f") and base and "." not in base:
            forms[base] = text
    for base, text in list(forms.items()):
        said = messages.get(f"colour.{base}", "").lower()
        if said:
            forms.setdefault(said, text)
    return forms


@lru_cache(maxsize=None)
def colour_words(name: str) -> frozenset[str]:
    """Every lower-case word that names the pack colour ``name`` in some language of
    :data:`LANGS`: the pack's own name and each catalogue's plain and feminine forms
    (``green``: green, vert, verte), what a player may type for a draw from its pile."""
    base = name.lower()
    words = {base}
    for lang in LANGS:
        messages = load_messages(lang)
        words.update((messages.get(f"colour.{base}", "").lower(),
                      messages.get(f"colour.{base}.{FEMININE}", "").lower()))
    return frozenset(words - {""})


def same_case(text: str, like: str) -> str:
    """``text`` in the case of ``like``: all capitals, a capital first, or as it is.

    >>> same_case("verte", "VERT"), same_case("verte", "Vert"), same_case("verte", "vert")
    ('VERTE', 'Verte', 'verte')
    """
    if len(like) > 1 and like.isupper():
        return text.upper()
    return text[:1].upper() + text[1:] if like[:1].isupper() else text


class _Formatter(string.Formatter):
    """``str.format`` that also understands ``{colour:f}`` (:data:`FEMININE`)."""

    def __init__(self, catalogue: "Catalogue"):
        self.catalogue = catalogue

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == FEMININE:
            return self.catalogue.feminine(str(value))
        return super().format_field(value, format_spec)


#: what a built-in pack file says of itself where the English catalogue words it otherwise
#: (``pack.ID.description``): the file keeps its words, which a record's ``pack_sha256``
#: covers, and is recognised as that built-in pack by them (its texts named the rule
#: texts by their numbers, which a player does not know)
FILE_WORDS: dict[str, str] = {
    "pack.duel-basic.description":
        "003's basic mode; duel-equal without wager cards (45 cards).",
    "pack.duel-equal.description":
        "003's listing; rows non-decreasing, wagers on, one last play without drawing once "
        "the pile is empty.",
    "pack.duel-six.description":
        "000's long version with the sixth (purple) expedition; 72 cards.",
}


class Catalogue:
    """Translated messages of one language: ``cat("key", name=value)``."""

    def __init__(self, lang: str):
        if lang not in LANGS:
            raise ValueError(f"no catalogue for language {lang!r}; choose {' or '.join(LANGS)}")
        self.lang = lang
        self._messages = load_messages(lang)
        self._fallback = load_messages(LANGS[0])
        self._formatter = _Formatter(self)

    def has(self, key: str) -> bool:
        return key in self._messages or key in self._fallback

    def __call__(self, key: str, /, **params: Any) -> str:
        count = params.get("count")
        if isinstance(count, int) and not isinstance(count, bool):
            form = plural_form(self.lang, count)
            forms = [f"{key}.{form}"] + ([f"{key}.one"] if form == "zero" and count in
                                         SINGULAR.get(self.lang, (1,)) else []) + [f"{key}.other"]
            key = next((k for k in forms if self.has(k)), key)
        template = self._messages.get(key) or self._fallback.get(key) or key
        try:
            if f":{FEMININE}}}" in template:  # {colour:f}; str.format alone is 5x quicker
                return self._formatter.vformat(template, (), params)
            return template.format(**params)
        except (KeyError, IndexError, ValueError, AttributeError):  # a missing parameter
            return template

    def get(self, key: str, default: str) -> str:
        """The message of ``key`` without parameters, or ``default`` when no catalogue has it."""
        return self(key) if self.has(key) else default

    def colour(self, name: str) -> str:
        """A pack's colour name (``yellow``) in this language; unknown names stay as they are."""
        return self.get(f"colour.{name.lower()}", name)

    def feminine(self, name: str) -> str:
        """A colour's name in the feminine, as after ``la défausse`` or ``la rangée``: the
        ``colour.NAME.f`` of a pack name (``green``) or of a name said in this language
        (``vert``), both ``verte``, in the case ``name`` is written in; a name no catalogue
        knows (``orange``, a house pack's own) stays as written.

        >>> Catalogue("fr").feminine("vert"), Catalogue("fr").feminine("white")
        ('verte', 'blanche')
        >>> Catalogue("fr").feminine("orange"), Catalogue("en").feminine("green")
        ('orange', 'green')
        """
        form = feminine_forms(self.lang).get(name.lower())
        return name if form is None else same_case(form, name)

    def pack_name(self, pack_id: str, name: str) -> str:
        """A pack's name in this language: a built-in pack's (``name`` is the English
        ``pack.ID.name``) from the catalogue; any other name, a house pack's own whatever
        its id, stays as written."""
        return self._pack_text(pack_id, "name", name)

    def pack_description(self, pack_id: str, description: str) -> str:
        """A pack's description in this language, as :meth:`pack_name` says its name."""
        return self._pack_text(pack_id, "description", description)

    def _pack_text(self, pack_id: str, field: str, text: str) -> str:
        key = f"pack.{pack_id}.{field}"
        if not text or text not in (self._fallback.get(key), FILE_WORDS.get(key)):
            return text
        return self._messages.get(key) or text


def clean(text: str, keep_newlines: bool = False) -> str:
    """Pack text as the rulebooks show it: the one rule for data text
    (:func:`lostcities.engine.safeio.plain_text`: control and format characters and lone
    surrogates removed, a tab or a line break a space, a line feed kept when
    ``keep_newlines``)."""
    return plain_text(text, keep_newlines)
