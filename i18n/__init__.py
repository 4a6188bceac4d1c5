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
"""
from __future__ import annotations

import json
import os
import unicodedata
from functools import lru_cache
from importlib.resources import files
from typing import Any, Mapping

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


class Catalogue:
    """Translated messages of one language: ``cat("key", name=value)``."""

    def __init__(self, lang: str):
        if lang not in LANGS:
            raise ValueError(f"no catalogue for language {lang!r}; choose {' or '.join(LANGS)}")
        self.lang = lang
        self._messages = load_messages(lang)
        self._fallback = load_messages(LANGS[0])

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
            return template.format(**params)
        except (KeyError, IndexError, ValueError):  # a template naming a missing parameter
            return template

    def get(self, key: str, default: str) -> str:
        """The message of ``key`` without parameters, or ``default`` when no catalogue has it."""
        return self(key) if self.has(key) else default

    def colour(self, name: str) -> str:
        """A pack's colour name (``yellow``) in this language; unknown names stay as they are."""
        return self.get(f"colour.{name.lower()}", name)


def clean(text: str, keep_newlines: bool = False) -> str:
    """Pack text without control or format characters, nor lone surrogates (which a
    YAML `\\ud800` escape can give and no output can encode); a tab becomes a space."""
    out = []
    for ch in text:
        if ch == "\n" and keep_newlines:
            out.append(ch)
        elif ch in "\t\n\r":
            out.append(" ")
        elif unicodedata.category(ch) not in ("Cc", "Cf", "Cs"):
            out.append(ch)
    return "".join(out)
