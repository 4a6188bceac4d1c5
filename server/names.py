"""The one rule for a seat's name in a room (docs/server.md, "Names"), so that nobody can
pass for somebody else at the table:

- a name is kept and shown in Unicode's compatibility form (NFKC: a fullwidth ``Ｂｏｂ``
  is ``Bob``), variation selectors dropped, cleaned as all data text is
  (:func:`~.protocol.clean_text`) and cut to ``Limits.name_chars``;
- a name holding an invisible character (a zero-width one, a bidi control, the Hangul
  fillers, the blank braille pattern...: :func:`is_invisible`) or a marker of the player
  to move (:data:`MARKERS`: ``*`` of the page and rule text 002, ``▶`` of the terminal,
  or a character that looks like one) is refused;
- a name that clashes with a seated one (:func:`clashes`) is refused: the same but for
  case, or a look-alike by Unicode's table of confusable characters (UTS #39's
  confusables.txt, as the ``confusable-homoglyphs`` package ships it: ``Bоb`` with a
  Cyrillic ``о`` looks like ``Bob``).

Each refusal is a catalogue key (:func:`name_refusal`) the room sends in the client's
language.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any, Iterable, Optional

from .protocol import clean_text

#: the characters that mark the player to move: the page puts ``*`` around the name
#: (rule text 002: ``*Ada*``), the terminal (``lc play --connect``) ``▶`` before it
MARKERS = ("*", "\u25b6")

#: characters that show nothing, or nothing of their own: Unicode's
#: Default_Ignorable_Code_Point (zero-width spaces and joiners, bidi controls, the soft
#: hyphen, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, tags...), and the blank
#: braille pattern U+2800, which is not one but shows as a space (the variation
#: selectors, ignorable too, are dropped instead: :data:`VARIATION_SELECTORS`)
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u2800\u3164\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
#: variation selectors: they choose how the character before them is drawn (an emoji's
#: colour form), nothing of their own; dropped rather than refused
VARIATION_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")


def seat_name(text: str, limit: int) -> str:
    """``text`` as a seat's name is kept and shown: NFKC, variation selectors dropped,
    cleaned (:func:`~.protocol.clean_text`), cut to ``limit`` characters.

    >>> seat_name("  Ｂｏｂ\\ufe0f ", 24)
    'Bob'
    """
    text = VARIATION_SELECTORS.sub("", unicodedata.normalize("NFKC", text))
    return unicodedata.normalize("NFKC", clean_text(text, limit))


def is_invisible(ch: str) -> bool:
    """Whether ``ch`` shows nothing of its own (:data:`INVISIBLE`)."""
    return INVISIBLE.match(ch) is not None


def name_refusal(text: str, taken: Iterable[str], limit: int
                 ) -> Optional[tuple[str, dict[str, Any]]]:
    """Why ``text`` (as typed after ``/join``) cannot name a seat beside the ``taken``
    names, as a catalogue key and its parameters, or None when it can (then
    :func:`seat_name` is the name). A blank ``text`` is for the caller (a default name).

    >>> name_refusal("Bоb", ["Bob"], 24)[0]
    'error.name-look-alike'
    >>> name_refusal("Zoë", ["Zoe", "Ada"], 24) is None
    True
    """
    plain = VARIATION_SELECTORS.sub("", text)
    if any(is_invisible(ch) for ch in plain + unicodedata.normalize("NFKC", plain)):
        return "error.name-invisible", {}
    name = seat_name(text, limit)
    if not name:  # nothing left but control characters
        return "error.name-invisible", {}
    marker = turn_marker(name)
    if marker is not None:
        return "error.name-marker", {"marker": marker}
    for other in taken:
        how = clashes(name, other)
        if how is not None:
            return how, {"name": name, "other": other}
    return None


def turn_marker(name: str) -> Optional[str]:
    """The one of :data:`MARKERS` that ``name`` holds, or a character confusable with
    (``∗``, ``⁎``, ``٭``...), or None."""
    shape = skeleton(name)
    return next((m for m in MARKERS if skeleton(m) in shape), None)


def clashes(name: str, other: str) -> Optional[str]:
    """How ``name`` clashes with the seated ``other``: ``error.name-taken`` (the same but
    for case), ``error.name-look-alike`` (they look alike: the same skeleton, with case
    or without), or None."""
    if name.casefold() == other.casefold():
        return "error.name-taken"
    if skeleton(name) == skeleton(other) or \
            skeleton(name.casefold()) == skeleton(other.casefold()):
        return "error.name-look-alike"
    return None


def skeleton(text: str) -> str:
    """``text`` with each character replaced by the one standing for all those it may be
    confused with (UTS #39's skeleton: two texts that look alike have the same one).

    >>> skeleton("Bоb") == skeleton("Bob") != skeleton("Bab")
    True
    """
    table = _prototypes()
    text = unicodedata.normalize("NFD", text)
    for _ in range(2):  # a prototype of several characters is mapped once more
        text = "".join(table.get(ch, ch) for ch in text)
    return unicodedata.normalize("NFD", text)


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each confusable character and the text standing for its class, from the table
    ``confusable-homoglyphs`` ships (Unicode's confusables.txt read into JSON, loaded from
    the package's own file: never the network). That table lists, for a character, its
    prototype and, for a prototype, the characters confused with it; the classes are the
    connected groups, each stood for by its prototype of several characters if it has one
    (``rn`` for ``m``), else by its smallest character."""
    from confusable_homoglyphs.confusables import confusables_data

    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for key, glyphs in confusables_data.items():
        for glyph in glyphs:
            a, b = root(_bare(key)), root(_bare(glyph["c"]))
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[str, list[str]] = {}
    for member in parent.keys() | set(parent.values()):
        groups.setdefault(root(member), []).append(member)
    table: dict[str, str] = {}
    for members in groups.values():
        longer = sorted(m for m in members if len(m) > 1)
        stands = longer[0] if longer else min(members)
        table.update((m, stands) for m in members if len(m) == 1)
    return table


def _bare(text: str) -> str:
    # the table wraps right-to-left characters in left-to-right marks, for display
    return text.replace("\u200e", "")
