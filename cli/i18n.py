"""Message catalogues of ``lc play``: English and French, chosen by ``--lang`` or the locale.

The catalogues are JSON files shipped beside this module (``messages_en.json``,
``messages_fr.json``), one ``key -> text`` mapping each; texts are
``str.format`` templates (``"you hold no {card}"``). A key missing from a
catalogue falls back to English, then to the key itself, so a message is
never lost (a test keeps the French catalogue complete).
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from importlib.resources import files
from typing import Any, Mapping

#: the languages with a catalogue; the first is the fallback
LANGS: tuple[str, ...] = ("en", "fr")


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


@lru_cache(maxsize=None)
def load_messages(lang: str) -> dict[str, str]:
    """The catalogue of ``lang`` as a dict (read once)."""
    text = files("lostcities.cli").joinpath(f"messages_{lang}.json").read_text(encoding="utf-8")
    return json.loads(text)


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
