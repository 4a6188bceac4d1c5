"""Typing a turn: the one move entry of ``lc play``, ``lc play --connect`` and the page.

A player types a turn in words (``p r5 deck``, ``d r5 g``, ``p r5`` then ``deck``, on a
board ``p g3 leader deck`` or ``p g4 step=b deck``); :class:`MoveEntry` reads them against
the legal moves of the position, whoever gave them (the engine for ``lc play``, the
room's ``legal`` list for ``lc play --connect``), and says what to do next:

- :meth:`MoveEntry.start` (the card and any words after it) and :meth:`MoveEntry.add`
  (more words for the turn under way) give an :class:`Outcome`: the whole ``move`` once
  one legal move is left, ``pending`` with the :class:`Partial` turn while several are,
  or a refusal (a catalogue key and its parameters, and, when the rules can tell the
  reason better, the move to ask them about: :attr:`Outcome.ask`);
- :meth:`MoveEntry.prompt`, :meth:`MoveEntry.choices` and :meth:`MoveEntry.pending_note`
  say what is still open, in the catalogue's language;
- :func:`move_notes` says a move in words (``Ada plays g3 and draws from the deck. The
  leader goes onto the green track.``) and :func:`option_notes` the part of it past the
  card and the draw, the words the web page puts on its choice buttons.

What to ask comes from the legal moves themselves (a move with a ``pawn`` or ``steps``),
never from the pack's family. Every word a player types (actions, commands, the deck,
``pawn=``, ``step=``, ``leader``, a declined step) is the catalogue's ``words.*`` entry
of some language (:func:`typed_words`): as ``lc play`` always has, English and French
words are read whatever the language shown, and a colour by its key or its name in any
language (:func:`lostcities.i18n.colour_words`). What a player reads is the catalogue's.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Literal, Mapping, Optional, Sequence

from lostcities.engine import DECK, LostCitiesError, Move, RulePack, action_space
from lostcities.engine.tooling import draw_text, tables_of

from lostcities.i18n import LANGS, Catalogue, clean, colour_words, load_messages

#: the actions a word may name, and the commands of ``lc play`` (``words.command.NAME``)
ACTION_NAMES: tuple[str, ...] = ("play", "discard")
COMMAND_NAMES: tuple[str, ...] = ("help", "moves", "hint", "undo", "save", "quit", "board")
#: a pawn's number as typed: ASCII digits only (``str.isdigit`` also takes ``²``)
_PAWN = re.compile(r"[0-9]{1,3}")


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""A detail of a turn not said yet (the draw may be None: the last play has no draw)."""


# --------------------------------------------------------------------------- the words typed

@dataclass(frozen=True)
class Words:
    """The words players type, each table the union of every catalogue's ``words.*``."""

    actions: Mapping[str, str]       # word -> play / discard
    commands: Mapping[str, str]      # word -> help, moves, hint, undo, save, quit, board
    deck: frozenset[str]
    pawn: frozenset[str]             # the name before ``=`` of a pawn sent
    step: frozenset[str]             # the name before ``=`` of an advance
    leader: frozenset[str]
    no_step: frozenset[str]          # a ``step=`` value declining the advance
    chat: frozenset[str]             # ``say TEXT`` in a room


def _listed(key: str) -> list[str]:
    """The lower-case words of ``key`` in every catalogue (space-separated there)."""
    out: list[str] = []
    for lang in LANGS:
        for word in load_messages(lang).get(key, "").lower().split():
            if word not in out:
                out.append(word)
    return out


@lru_cache(maxsize=None)
def typed_words() -> Words:
    """The words of every catalogue (read once)."""
    return Words(
        actions={w: name for name in ACTION_NAMES for w in _listed(f"words.{name}")},
        commands={w: name for name in COMMAND_NAMES for w in _listed(f"words.command.{name}")},
        deck=frozenset(_listed("words.deck")), pawn=frozenset(_listed("words.pawn")),
        step=frozenset(_listed("words.step")), leader=frozenset(_listed("words.leader")),
        no_step=frozenset(_listed("words.no-step")), chat=frozenset(_listed("words.chat")))


def leader_pawns(pack: RulePack) -> int:
    """How many of a player's pawns are leaders: pawns ``0 .. N-1`` (0 without pawns), the
    pack's compiled fact. Used only to name a pawn (``leader``); what to ask comes from the
    legal moves."""
    return tables_of(pack).leaders


# --------------------------------------------------------------------------- a turn typed

@dataclass(frozen=True)
class Partial:
    """A turn being typed: the card decision and the details said so far (the draw,
    and in the board game the pawn sent, ``leader``, the tracks steps advance)."""

    action: str
    card: int
    draw: Any = UNSET
    pawn: Optional[int] = None
    leader: bool = False
    steps: Optional[tuple[Optional[int], ...]] = None

    def but(self, **changes: Any) -> "Partial":
        return replace(self, **changes)

    def fits(self, move: Move, leaders: int) -> bool:
        """Whether ``move`` completes this turn (``leaders``: the pack's leader pawns)."""
        return (move.action == self.action and move.card == self.card
                and (self.draw is UNSET or move.draw == self.draw)
                and (self.pawn is None or move.pawn == self.pawn)
                and (not self.leader or move.pawn is not None and move.pawn < leaders)
                and (self.steps is None or move.steps[:len(self.steps)] == self.steps))

    def tried(self, codec: Any) -> Move:
        """The move this turn says so far (the draw from the deck when none was said, the
        first pawn for ``leader``): what the rules are asked about when no legal move fits."""
        pawn = 0 if self.pawn is None and self.leader else self.pawn
        return Move(self.action, self.card,  # type: ignore[arg-type]
                    DECK if self.draw is UNSET else self.draw, pawn, self.steps or (), codec)


Detail = tuple[str, Any]
"""What a word after the card says: ``("draw", DECK or a colour)``, ``("pawn", N)``,
``("leader", True)`` or ``("step", a colour or None)``."""


@dataclass(frozen=True)
class Outcome:
    """What typing did: ``move`` (one legal move left: :attr:`move`), ``pending``
    (several: :attr:`partial`, the :attr:`fits`) or ``error`` (:attr:`key`,
    :attr:`params`; :attr:`ask`: a move, not legal, whose refusal by the rules says the
    reason better, when there is one)."""

    kind: Literal["move", "pending", "error"]
    move: Optional[Move] = None
    partial: Optional[Partial] = None
    fits: tuple[Move, ...] = ()
    key: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    ask: Optional[Move] = None


class MoveEntry:
    """The typed-move entry for one position: the pack, its legal moves, a catalogue."""

    def __init__(self, pack: RulePack, legal: Sequence[Move], cat: Optional[Catalogue] = None):
        self.pack = pack
        self.legal: list[Move] = list(legal)
        self.cat = cat if cat is not None else Catalogue(LANGS[0])
        self.leaders = leader_pawns(pack)

    @classmethod
    def from_texts(cls, pack: RulePack, texts: Sequence[Any],
                   cat: Optional[Catalogue] = None) -> "MoveEntry":
        """An entry for moves in the text form (a room's ``legal`` list, which is data):
        a move this pack cannot read is not offered; at most 10,000 are read."""
        moves: list[Move] = []
        for text in list(texts)[:10_000]:
            try:
                moves.append(Move.parse(str(text)[:200], pack))
            except LostCitiesError:
                continue
        return cls(pack, moves, cat)

    # ----------------------------------------------------------------- words

    def draw_word(self, word: str) -> Optional[int]:
        """DECK or a colour index for a draw word (a deck word, a colour key or a colour's
        name in any language), else None."""
        low = word.lower()
        if low in typed_words().deck:
            return DECK
        for index, colour in enumerate(self.pack.colours):
            if low == colour.key or low in colour_words(colour.name):
                return index
        return None

    def detail(self, word: str) -> Optional[Detail]:
        """What a word after the card says (:data:`Detail`), or None."""
        words = typed_words()
        low = word.lower()
        name, eq, value = low.partition("=")
        if eq and name in words.pawn:
            return ("pawn", int(value)) if _PAWN.fullmatch(value) else None
        if eq and name in words.step:
            if value in words.no_step:
                return ("step", None)
            step = self.draw_word(value)
            return None if step is None or step == DECK else ("step", step)
        if low in words.leader:
            return ("leader", True)
        draw = self.draw_word(low)
        return None if draw is None else ("draw", draw)

    def card(self, word: str) -> Optional[int]:
        """The card ``word`` names in this pack, or None."""
        try:
            return self.pack.cards.parse(word)
        except LostCitiesError:
            return None

    # ----------------------------------------------------------------- typing

    def start(self, action: str, words: Sequence[str]) -> Outcome:
        """``action`` (play or discard) with the card and any details typed with it."""
        codec = self.pack.cards
        if not words:
            return self._error("error.no-card", action=action)
        card = self.card(words[0])
        if card is None:
            return self._error("error.bad-card" if self.pack.wagers else "error.bad-card-plain",
                               card=words[0], keys=" ".join(codec.keys), low=codec.min_value,
                               high=codec.max_value)
        if not any(m.action == action and m.card == card for m in self.legal):
            tried = Move(action, card, DECK, codec=codec)  # type: ignore[arg-type]
            return self._error("connect.cannot", ask=tried, card=codec.format(card),
                               action=action)
        return self.add(Partial(action, card), words[1:])

    def add(self, partial: Partial, words: Sequence[str]) -> Outcome:
        """More details (the draw, ``pawn=N``, ``leader``, ``step=K``) for ``partial``:
        the move once only one fits, else the turn still pending. A refused line leaves
        ``partial`` as it was (the caller keeps it)."""
        keys = " ".join(self.pack.cards.keys)
        for word in words:
            detail = self.detail(word)
            if detail is None:
                return self._error("error.bad-draw", text=word, keys=keys)
            kind, value = detail
            if kind == "draw":
                if partial.draw is not UNSET and partial.draw != value:
                    return self._error("error.bad-draw", text=" ".join(words), keys=keys)
                partial = partial.but(draw=value)
            elif kind == "pawn":
                partial = partial.but(pawn=value)
            elif kind == "leader":
                partial = partial.but(leader=True)
            else:
                partial = partial.but(steps=(partial.steps or ()) + (value,))
        fits = self.fits(partial)
        if not fits:
            tried = partial.tried(self.pack.cards)
            if tried in self.legal:  # leader, where the first pawn is no leader
                return self._error("error.no-leader", text=" ".join(words))
            return self._error("error.no-such-move", ask=tried, move=tried.text())
        if len(fits) == 1 and (partial.draw is not UNSET or fits[0].draw is None):
            return Outcome("move", move=fits[0])
        return Outcome("pending", partial=partial, fits=tuple(fits))

    def enter(self, partial: Partial) -> Optional[Outcome]:
        """An empty line for ``partial``: the deck when the draw is asked and the deck is
        one of the draws (``Enter: deck``), else None (nothing to add)."""
        if partial.draw is UNSET and any(m.draw == DECK for m in self.fits(partial)):
            return self.add(partial, [self._deck_word()])
        return None

    def fits(self, partial: Partial) -> list[Move]:
        """The legal moves that complete ``partial``."""
        return [m for m in self.legal if partial.fits(m, self.leaders)]

    def _deck_word(self) -> str:
        return draw_text(DECK, self.pack.cards)

    def _error(self, key: str, ask: Optional[Move] = None, **params: Any) -> Outcome:
        return Outcome("error", key=key, params=params, ask=ask)

    # ----------------------------------------------------------------- what is open

    def asks_draw(self, partial: Partial) -> bool:
        """Whether the draw is what ``partial`` still needs said (else the rest of a move:
        a pawn, a step; so too on a last play, which has no draw)."""
        return partial.draw is UNSET and any(m.draw is not None for m in self.fits(partial))

    def choices(self, partial: Partial, leader: Optional[str] = None) -> str:
        """What is left to say: the draws (``deck, y, g``) or, once the draw is known, the
        rest of each fitting move, a leader pawn marked with the catalogue's word
        (``pawn=0 (leader) deck, pawn=1 deck``; ``leader``: another word for it)."""
        moves = self.fits(partial)
        codec = self.pack.cards
        if self.asks_draw(partial):
            return ", ".join(dict.fromkeys(draw_text(m.draw, codec) for m in moves))
        mark = self.cat("result.leader") if leader is None else leader

        def rest(move: Move) -> str:
            words = move.text(codec).split(" ")[2:]
            sends_leader = move.pawn is not None and move.pawn < self.leaders
            return " ".join(f"{w} ({mark})" if sends_leader and w.startswith("pawn=") else w
                            for w in words)

        return ", ".join(rest(m) for m in moves)

    def numbered(self, partial: Partial, leader: Optional[str] = None) -> str:
        """The moves that complete ``partial`` once its draw is known (or it has none), as
        numbered choices of what is left to say: ``[1] pawn=0 (leader) · [2] pawn=1``
        (:meth:`choose` takes the number)."""
        mark = self.cat("result.leader") if leader is None else leader
        codec = self.pack.cards
        out = []
        for number, move in enumerate(self.fits(partial), 1):
            words = move.text(codec).split(" ")[2:]
            if move.draw is not None:
                words = words[:-1]  # the draw is said already
            sends_leader = move.pawn is not None and move.pawn < self.leaders
            out.append(f"[{number}] " + " ".join(
                f"{w} ({mark})" if sends_leader and w.startswith("pawn=") else w
                for w in words))
        return " · ".join(out)

    def choose(self, partial: Partial, number: int, words: int = 1) -> Outcome:
        """The choice ``number`` of :meth:`numbered` (``words``: the words typed, one)."""
        fits = self.fits(partial)
        if self.asks_draw(partial) or words != 1 or not 1 <= number <= len(fits):
            return self._error("error.bad-choice", number=number, count=len(fits))
        return Outcome("move", move=fits[number - 1])

    def pending_note(self, partial: Partial, leader: Optional[str] = None
                     ) -> tuple[str, dict[str, Any]]:
        """The message for a turn still pending: ``pending`` (draw now: ``draws``) or
        ``pending.which`` (several moves fit: ``options``, numbered), as a key and its
        parameters."""
        card = self.pack.cards.format(partial.card)
        if self.asks_draw(partial):
            return "pending", {"card": card, "action": partial.action,
                               "draws": self.choices(partial, leader)}
        return "pending.which", {"card": card, "options": self.numbered(partial, leader)}

    def prompt(self, partial: Partial) -> str:
        """The prompt that asks for the rest of ``partial``, in the catalogue's language:
        the draws, or the numbered choices of a pawn or steps."""
        card = self.pack.cards.format(partial.card)
        if self.asks_draw(partial):
            return self.cat("prompt.draw", card=card, draws=self.choices(partial))
        return self.cat("prompt.which", card=card, options=self.numbered(partial))

    def say(self, outcome: Outcome) -> str:
        """A refusal's or a pending turn's message in the catalogue's language, one line:
        the words typed in it are said as data text is (:func:`lostcities.i18n.clean`)."""
        if outcome.kind == "pending" and outcome.partial is not None:
            key, params = self.pending_note(outcome.partial)
        else:
            key, params = outcome.key, dict(outcome.params)
        return self.cat(key, **{k: clean(v) if isinstance(v, str) else v
                                for k, v in params.items()})


# --------------------------------------------------------------------------- the rules recalled

def rule_keys(pack: RulePack) -> list[str]:
    """The catalogue keys of the rules ``help`` recalls beside the commands: the rows'
    ordering, wagers, how a row starts, and the pawns when a turn of this pack may send
    one (its action space has pawn decisions)."""
    keys = [f"rules.{pack.ordering}"]
    if pack.wagers:
        keys.append("rules.wagers")
    if tables_of(pack).row_start is not None:  # rows.start, compiled: a rule on the first card
        keys.append(f"rules.{pack.row_start}")
    if len(action_space(pack).ranges["pawn"]):
        keys.append("rules.board")
    return keys


# --------------------------------------------------------------------------- a move in words

Note = tuple[str, dict[str, Any]]
"""A catalogue key and its parameters; a parameter named ``colour`` holds a pack colour's
name (``green``), which the front end says in its language."""


def move_notes(pack: RulePack, move: Move, who: str, *, taken: str = "",
               you: bool = False) -> list[Note]:
    """A turn in words, as catalogue notes: ``turn.[you.]ACTION.SOURCE`` (``who`` plays
    ``card`` and draws, or takes ``taken`` from the ``colour`` pile), then what
    :func:`option_notes` says. ``you``: in the second person."""
    codec = pack.cards
    source = "none" if move.draw is None else "deck" if move.draw == DECK else "pile"
    params: dict[str, Any] = {"who": who, "card": codec.format(move.card), "taken": taken,
                              "colour": pack.colours[move.draw].name if source == "pile" else ""}
    return [(f"turn.{'you.' if you else ''}{move.action}.{source}", params),
            *option_notes(pack, move)]


def option_notes(pack: RulePack, move: Move) -> list[Note]:
    """What ``move`` does past its card and its draw, as catalogue notes: the pawn it
    sends onto the card's track (``turn.sends-leader`` for a leader, else ``turn.sends``)
    and each advance (``turn.step``, or ``turn.step-none`` when declined). The web page
    says a move's choice button with the same keys (server/static/moves.js)."""
    notes: list[Note] = []
    if move.pawn is not None:
        leader = move.pawn < leader_pawns(pack)
        notes.append(("turn.sends-leader" if leader else "turn.sends", {
            "pawn": move.pawn, "colour": pack.colours[pack.cards.colour_of[move.card]].name}))
    for step in move.steps:
        notes.append(("turn.step-none", {}) if step is None else
                     ("turn.step", {"colour": pack.colours[step].name}))
    return notes


def said(notes: Sequence[Note], cat: Catalogue) -> str:
    """Notes said one after the other in ``cat``'s language, colours translated."""
    return " ".join(cat(key, **{k: cat.colour(v) if k == "colour" and isinstance(v, str) else v
                                for k, v in params.items()}) for key, params in notes)


__all__ = ["ACTION_NAMES", "COMMAND_NAMES", "UNSET", "Words", "typed_words", "leader_pawns",
           "Partial", "Detail", "Outcome", "MoveEntry", "rule_keys", "Note", "move_notes",
           "option_notes", "said"]
