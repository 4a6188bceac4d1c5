"""A rulebook worded: :func:`lostcities.engine.tooling.explain` builds it (sections of
sentences as message keys and values); :func:`render` words it through the catalogues
``rules_en.json`` / ``rules_fr.json`` (beside this module) and lays it out as plain
text (wrapped to ``width``), Markdown or a standalone HTML page. ``lc explain`` prints it
and the room server shows it. A built-in pack's name and description are said in the
book's language (:meth:`lostcities.i18n.Catalogue.pack_name`), a house pack's as written;
a colour after a feminine noun agrees with it (``{colour:f}``). Every text taken from the
pack (names, descriptions, colour names, formulas) is data: control characters are removed, and it is escaped for
Markdown and HTML.
"""
from __future__ import annotations

import html
import json
import re
import string
import textwrap
from functools import lru_cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any, Callable, Optional

from . import FEMININE, LANGS, Catalogue, clean
from .words import Formula, Term

if TYPE_CHECKING:
    from lostcities.engine.tooling import Example, Explanation, Sentence

#: the output formats of :func:`render`
FORMATS: tuple[str, ...] = ("text", "md", "html")
#: the no-break space: never a line break while wrapping (text and Markdown output
#: then write a plain space; HTML keeps it)
NBSP = "\u00a0"


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """The sentence catalogue of ``lang`` (``rules_LANG.json``), read once."""
    text = files(__package__).joinpath(f"rules_{lang}.json").read_text(encoding="utf-8")
    return json.loads(text)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]{}|~#])")


def _escape_md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


class Words:
    """The catalogue of one language and one format's escaping."""

    def __init__(self, lang: str, fmt: str):
        self.lang = lang
        self.fmt = fmt
        self.messages = catalogue(lang)
        self.fallback = catalogue(LANGS[0])
        self.play = Catalogue(lang)  # lc play's catalogue: colour names
        self.esc: Callable[[str], str] = {"html": lambda t: html.escape(t, quote=True),
                                          "md": _escape_md}.get(fmt, lambda t: t)

    def literal(self, text: str) -> str:
        """Text of the catalogue or of this module (trusted), escaped for HTML only."""
        return html.escape(text, quote=False) if self.fmt == "html" else text

    def template(self, key: str) -> str:
        return self.messages.get(key) or self.fallback.get(key) or key

    def data(self, text: str) -> str:
        """Text from the pack, made safe for the format."""
        return self.esc(clean(text))

    def term(self, key: str, fallback: str) -> str:
        if key in self.messages or key in self.fallback:
            return self.esc(self.template(key))
        return self.data(self.play.get(key, fallback))

    def value(self, value: Any) -> str:
        """One parameter as text; lists read ``a, b and c`` (``a, b, c`` for text items)."""
        if isinstance(value, bool):
            return self.term("value.yes" if value else "value.no", str(value))
        if isinstance(value, Term):
            return self.term(value.key, value.fallback)
        if isinstance(value, Formula):
            return self.data(" ".join(value.text.split()))
        if isinstance(value, (list, tuple)):
            items = [self.value(v) for v in value]
            if not items:
                return self.term("value.none", "-")
            if all(isinstance(v, str) for v in value):
                out = ""
                items = [item.replace(" ", NBSP) for item in items]  # keep "1: -20" whole
                for raw, item in zip(value, items):
                    out += (" " if raw == "|" or out.endswith("|") else ", " if out else "") + item
                return out
            if len(items) == 1:
                return items[0]
            return f"{', '.join(items[:-1])} {self.esc(self.template('list.and'))} {items[-1]}"
        if isinstance(value, str):
            return self.data(value)
        return self.esc(str(value))

    def say(self, key: str, **params: Any) -> str:
        """The catalogue's sentence ``key`` with its values; template text escaped too."""
        out = []
        for literal, name, spec, _conv in string.Formatter().parse(self.template(key)):
            out.append(self.literal(literal))
            if name is None:
                continue
            value = params.get(name)
            if name not in params:
                out.append("{" + name + "}")
            elif spec == FEMININE and isinstance(value, (Term, str)):  # a colour: {colour:f}
                said = self.play.get(value.key, value.fallback) if isinstance(value, Term) \
                    else value
                out.append(self.data(self.play.feminine(said)))
            else:
                out.append(self.value(value))
        return "".join(out)

    def sentence(self, sentence: "Sentence") -> tuple[str, list[str]]:
        """A sentence's text and the formulas it shows (as written, cleaned, not escaped)."""
        formulas = [clean(v.text, keep_newlines=True).strip("\n")
                    for v in sentence.params.values() if isinstance(v, Formula)]
        return self.say(sentence.key, **sentence.params), formulas

    def setting_value(self, value: Any) -> str:
        """A setting's value in the house rules list: compact, one line."""
        if value is None:
            return self.term("value.none", "-")
        if isinstance(value, bool):
            return self.term("value.yes" if value else "value.no", str(value))
        return self.data(_compact(value))


def _compact(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_compact(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return " ".join(value.split())
    return str(value)


# --------------------------------------------------------------------------- the book


class _Part:
    """One rendered entry: its text, formulas shown under it, whether it changed."""

    def __init__(self, text: str, formulas: Optional[list[str]] = None, changed: bool = False,
                 bullet: bool = True):
        self.text = text
        self.formulas = formulas or []
        self.changed = changed
        self.bullet = bullet


def _parts(book: "Explanation", words: Words) -> tuple[list[tuple[str, list[_Part]]], str]:
    """The sections as (title, entries), the house rules first and the example last;
    and the heading's second line."""
    out: list[tuple[str, list[_Part]]] = []
    if book.base is not None:
        house = [_Part(words.say("house.intro", base=book.base) if book.changes
                       else words.say("house.none", base=book.base), bullet=False)]
        arrow = words.literal(" -> ")
        house += [_Part(f"{words.data(c.setting)}: {words.setting_value(c.base)}"
                        f"{arrow}{words.setting_value(c.house)}") for c in book.changes]
        if book.changes:
            house.append(_Part(words.say("house.marked", base=book.base,
                                         marker=words.template("marker.changed")),
                               bullet=False))
        out.append((words.say("section.house"), house))
        subtitle = words.say("heading.house", id=book.pack_id, base=book.base)
    else:
        subtitle = words.say("heading.pack", id=book.pack_id)
    for section in book.sections:
        entries = []
        for sentence in section.sentences:
            text, formulas = words.sentence(sentence)
            entries.append(_Part(text, formulas, sentence.changed))
        out.append((words.say(f"section.{section.key}"), entries))
    out.append((words.say("section.example"), _example(book, words)))
    return out, subtitle


def _example(book: "Explanation", words: Words) -> list[_Part]:
    ex: Example = book.example
    command = " ".join(ex.words)
    # one introduction per family (example.intro.duel, example.intro.board), and its
    # family's wording of a line (a row of cards, a pawn)
    parts = [_Part(words.say(f"example.intro.{ex.family}", tokens=ex.tokens,
                             artefacts=ex.artefacts, pack=book.source, words=command),
                   bullet=False)]
    if ex.error is not None:
        parts.append(_Part(words.say("example.error", error=ex.error)))
        return parts
    line_words = LINE_WORDS[ex.family]
    for line in ex.lines:
        colour = book.colours[line.colour] if 0 <= line.colour < len(book.colours) else None
        parts.append(_Part(line_words(line, colour, words)))
    parts.append(_Part(words.say("example.total", total=ex.total)))
    if ex.artefact_points is not None:  # a board's artefacts (a duel has none)
        parts.append(_Part(words.say("example.artefacts", artefacts=ex.artefacts,
                                     points=ex.artefact_points)))
    if ex.match_total is not None:
        parts.append(_Part(words.say("example.match-total", total=ex.match_total)))
    return parts


def _row_line(line: Any, colour: Optional[Term], words: Words) -> str:
    """A duel's line: a row of cards (untouched, with its breakdown, or plain)."""
    cards = " ".join(c[1:] for c in line.cards)
    if not line.cards:
        return words.say("example.untouched", colour=colour, score=line.score)
    if line.parts:
        detail = [f"{name} {value}" for name, value in line.parts.items()]
        return words.say("example.row", colour=colour, cards=cards, parts=detail,
                         score=line.score)
    return words.say("example.row.plain", colour=colour, cards=cards, score=line.score)


def _pawn_line(line: Any, colour: Optional[Term], words: Words) -> str:
    """A board's line: a pawn (a leader or not) on its track's space, or in the centre."""
    if colour is None:
        key = "example.centre.leader" if line.leader else "example.centre"
    else:
        key = "example.leader" if line.leader else "example.pawn"
    return words.say(key, colour=colour, space=line.space, score=line.score)


#: family -> how a line of its worked example reads
LINE_WORDS: dict[str, Callable[[Any, Optional[Term], Words], str]] = {
    "duel": _row_line, "board": _pawn_line}


def render(book: "Explanation", lang: str = "en", fmt: str = "text", width: int = 80,
           style: Optional[str] = None) -> str:
    """The rulebook ``book`` in ``lang`` as ``fmt`` (text, md or html), ending in a newline;
    ``style``: the HTML page's stylesheet, put inline (by default a plain one; the room
    server gives its table's)."""
    words = Words(lang, fmt)
    sections, subtitle = _parts(book, words)
    marker = words.esc(words.template("marker.changed"))
    name = words.data(words.play.pack_name(book.pack_id, book.name))
    description = words.data(words.play.pack_description(book.pack_id, book.description))
    if fmt == "md":
        return _markdown(name, subtitle, description, sections, marker)
    if fmt == "html":
        return _html(name, subtitle, description, sections, marker, lang,
                     _STYLE if style is None else style)
    return _text(name, subtitle, description, sections, marker, width)


def _text(name: str, subtitle: str, description: str,
          sections: list[tuple[str, list[_Part]]], marker: str, width: int) -> str:
    lines = [name, "=" * min(width, max(len(name), 1)), subtitle]
    if description:
        lines += textwrap.wrap(description, width)
    for title, parts in sections:
        lines += ["", title, "-" * min(width, len(title))]
        for part in parts:
            text = f"{marker} {part.text}" if part.changed else part.text
            lead = "- " if part.bullet else ""
            lines += textwrap.wrap(text, width, initial_indent=lead,
                                   subsequent_indent=" " * len(lead),
                                   break_on_hyphens=False, break_long_words=False) or [lead]
            for formula in part.formulas:
                lines += ["      " + row if row.strip() else "" for row in formula.split("\n")]
    # no-break spaces kept "1: -20" and French "valeur :" whole while wrapping
    return "\n".join(lines).replace(NBSP, " ") + "\n"


def _fence(text: str) -> str:
    """A Markdown code fence longer than any run of backticks in ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _markdown(name: str, subtitle: str, description: str,
              sections: list[tuple[str, list[_Part]]], marker: str) -> str:
    lines = [f"# {name}", "", f"*{subtitle}*", ""]
    if description:
        lines += [description, ""]
    for title, parts in sections:
        lines += [f"## {title}", ""]
        for part in parts:
            if not part.bullet:
                lines += ["", part.text, ""]
                continue
            lines.append(f"- **{marker}** {part.text}" if part.changed else f"- {part.text}")
            for formula in part.formulas:
                fence = _fence(formula)
                lines += ["", f"  {fence}"] + [f"  {row}" for row in formula.split("\n")] \
                    + [f"  {fence}", ""]
        lines.append("")
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n") + "\n"
    return text.replace(NBSP, " ")


_STYLE = """body{font-family:system-ui,sans-serif;max-width:46em;margin:2em auto;padding:0 1em;
line-height:1.45}h1{margin-bottom:.2em}.subtitle{color:#555;margin-top:0}
pre{background:#f4f4f4;padding:.5em .8em;overflow-x:auto}
li.changed{background:#fff6d6}.marker{color:#8a5a00}"""


def _html(name: str, subtitle: str, description: str,
          sections: list[tuple[str, list[_Part]]], marker: str, lang: str, style: str) -> str:
    out = ["<!DOCTYPE html>", f'<html lang="{html.escape(lang)}">', "<head>",
           '<meta charset="utf-8">', '<meta name="viewport" content="width=device-width, '
           'initial-scale=1">', f"<title>{name}</title>", f"<style>{style}</style>",
           "</head>", "<body>", f"<h1>{name}</h1>", f'<p class="subtitle">{subtitle}</p>']
    if description:
        out.append(f"<p>{description}</p>")
    for title, parts in sections:
        out += ["<section>", f"<h2>{title}</h2>"]
        listing = False
        for part in parts:
            if not part.bullet:
                if listing:
                    out.append("</ul>")
                    listing = False
                out.append(f"<p>{part.text}</p>")
                continue
            if not listing:
                out.append("<ul>")
                listing = True
            item = (f'<li class="changed"><strong class="marker">{marker}</strong> {part.text}'
                    if part.changed else f"<li>{part.text}")
            for formula in part.formulas:
                item += f"<pre><code>{html.escape(formula)}</code></pre>"
            out.append(item + "</li>")
        out += ["</ul>", "</section>"] if listing else ["</section>"]
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
