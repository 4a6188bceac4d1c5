"""The words of a sentence that the engine builds and a catalogue words: a :class:`Term` to
translate and a :class:`Formula` as a pack writes it.

The engine's rulebook (:func:`lostcities.engine.tooling.explain`) is made of them and
:mod:`lostcities.i18n.rulebook` words them; they live here, below both, so that the wording
needs nothing of the engine (the engine's refusals already read this package's catalogue).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """A word to translate (``colour.yellow``, ``tile.artefact``); ``fallback`` when the
    catalogue has no such key (a colour name of the pack's own)."""

    key: str
    fallback: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"term": self.key, "fallback": self.fallback}


@dataclass(frozen=True)
class Formula:
    """A formula's text exactly as written in the pack (pack data: escape it when shown)."""

    text: str

    def to_dict(self) -> dict[str, str]:
        return {"formula": self.text}
