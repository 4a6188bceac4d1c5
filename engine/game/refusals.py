"""Why a move is refused, as a key of the message catalogue and its parameters.

The engine's one legality check (:func:`lostcities.engine.why_refused`) answers a refused
move with a :class:`Refusal`: the key of the rule the move breaks (``illegal.*`` in
:mod:`lostcities.i18n`) and what the message says about it. Every rule has its own key,
in English and French; :func:`lostcities.engine.illegal_reason` is the English rendering
of the same refusal, and a front end renders it in the player's language
(:meth:`Refusal.text`). Parameters named ``colour`` hold a pack colour's *name*
(``yellow``), which the catalogue says in its language (``{colour:f}``); ``card`` and
``row`` are in the card notation.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from lostcities.i18n import Catalogue


@dataclass(frozen=True)
class Refusal:
    """Why a move is refused: a catalogue key and its parameters (docs/api.md lists the
    keys).

    >>> Refusal("illegal.pile-empty", {"colour": "green"}).text("fr")
    'la défausse verte est vide'
    """

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def text(self, lang: str = "en") -> str:
        """The refusal said in ``lang`` (``en`` or ``fr``) by that language's catalogue."""
        return Catalogue(lang)(self.key, **self.params)

    def __str__(self) -> str:
        return self.text()


__all__ = ["Refusal"]
