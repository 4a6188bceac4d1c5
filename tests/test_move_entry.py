"""The one move entry (lostcities.entry), on its own: every pack's legal moves typed in
their words complete to exactly that move, in English and in French; a partial turn asks
for what is open; wrong words get the catalogue key that says why; any text at all gives
one clear message; the French it says holds no English but the move notation; and the
words players type are the catalogues', read in either language as lc play always read
them.
"""
from __future__ import annotations

import functools
import random
import re
import string
from pathlib import Path
from typing import Any, Optional

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from enginehelpers import builtin_ids, derived
from lostcities.engine import (DECK, Move, apply, is_over, legal_moves, load_pack, new_game,
                               why_refused)
from lostcities.i18n import LANGS, Catalogue, load_messages
from lostcities.entry import (UNSET, MoveEntry, Outcome, Partial, leader_pawns,
                                   move_notes, option_notes, rule_keys, said, typed_words)

ROOT = Path(__file__).resolve().parents[1]
HOUSE = sorted((ROOT / "tests" / "fixtures" / "packs" / "valid").glob("*.yaml"))
#: board packs whose random play reaches steps and every pawn: short tracks full of step
#: tiles, and two pawns only
DERIVED = {
    "short-tracks": lambda: derived("board-classic", board={
        "spaces": 4, "bridge_after": 2, "tile_spaces": [1, 2, 3, 4],
        "tiles": [{"kind": "step", "count": 12}]}),
    "two-pawns": lambda: derived("board-classic", board={"pawns": 2}),
}
PACKS = [*builtin_ids(), *(str(p) for p in HOUSE), *DERIVED]
CATS = {lang: Catalogue(lang) for lang in LANGS}


@functools.lru_cache(maxsize=None)
def a_pack(name: str) -> Any:
    return DERIVED[name]() if name in DERIVED else load_pack(name)


def positions(name: str, count: int = 4, seed: int = 0) -> list[Any]:
    """``count`` states of a random match of the pack (different depths, new deals)."""
    pack = a_pack(name)
    rng = random.Random(f"{name}:{seed}")
    out = []
    for n in range(count):
        players = rng.randint(pack.min_players, min(pack.max_players, 3))
        state = new_game(pack, [f"p{i}" for i in range(players)], rng.randrange(10**6))
        for _ in range(rng.randrange(2 + 25 * n)):
            if is_over(state):
                break
            state = apply(state, rng.choice(legal_moves(state)))
        if not is_over(state):
            out.append(state)
    return out


def first(key: str, lang: str) -> str:
    """The first word a language's catalogue gives for ``words.KEY``."""
    return load_messages(lang)[f"words.{key}"].split()[0]


def typed(move: Move, pack: Any, lang: str) -> str:
    """The move as a player of ``lang`` types it, each word the catalogue's: ``p r5 pawn=0
    step=b deck`` in English, ``j r5 pion=0 pas=b pioche`` in French (a pile by its
    colour's name when the pack names it in one word)."""
    cat = CATS[lang]
    codec = pack.cards
    words = [first(move.action, lang), codec.format(move.card)]
    if move.pawn is not None:
        words.append(f"{first('pawn', lang)}={move.pawn}")
    for step in move.steps:
        value = first("no-step", lang) if step is None else codec.keys[step]
        words.append(f"{first('step', lang)}={value}")
    if move.draw == DECK:
        words.append(first("deck", lang))
    elif move.draw is not None:
        name = cat.colour(pack.colours[move.draw].name)
        words.append(name if len(name.split()) == 1 else codec.keys[move.draw])
    return " ".join(words)


def start(entry: MoveEntry, line: str) -> Outcome:
    """A whole line of a turn through the entry: the action word, then the rest."""
    head, *rest = line.split()
    return entry.start(typed_words().actions[head.lower()], rest)


def filled(cat: Catalogue, key: str, params: dict) -> bool:
    """Whether every placeholder of ``key``'s template has its parameter."""
    template = load_messages(cat.lang).get(key, "")
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    return bool(template) and names <= set(params)


# --------------------------------------------------------------------------- every move, typed

@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", PACKS)
def test_every_legal_move_typed_in_its_words_is_that_move(name: str, lang: str) -> None:
    pack = a_pack(name)
    tried = 0
    for state in positions(name):
        legal = legal_moves(state)
        entry = MoveEntry(pack, legal, CATS[lang])
        for move in legal:
            line = typed(move, pack, lang)
            outcome = start(entry, line)
            assert outcome.kind == "move" and outcome.move == move, (line, outcome)
            tried += 1
    assert tried


@pytest.mark.parametrize("name", ["board-classic", "board-short", "two-pawns", "short-tracks"])
def test_a_leader_sent_by_its_word(name: str) -> None:
    """``leader`` (``chef``) instead of ``pawn=N`` sends the leader, when one is free."""
    pack = a_pack(name)
    sent = 0
    for state in positions(name, 6):
        legal = legal_moves(state)
        entry = MoveEntry(pack, legal)
        for move in legal:
            if move.pawn is None or move.pawn >= leader_pawns(pack):
                continue
            for lang in LANGS:
                line = typed(move, pack, lang).replace(f"{first('pawn', lang)}={move.pawn}",
                                                       first("leader", lang))
                outcome = start(entry, line)
                alike = [m for m in legal if m.pawn is not None and m.pawn < leader_pawns(pack)
                         and (m.action, m.card, m.draw, m.steps)
                         == (move.action, move.card, move.draw, move.steps)]
                if len(alike) == 1:
                    assert outcome.kind == "move" and outcome.move == move, line
                    sent += 1
    assert sent


# --------------------------------------------------------------------------- what is open

@pytest.mark.parametrize("name", PACKS)
def test_a_card_alone_asks_for_the_draw_then_for_the_rest(name: str) -> None:
    pack = a_pack(name)
    for state in positions(name, 3):
        legal = legal_moves(state)
        for lang, cat in CATS.items():
            entry = MoveEntry(pack, legal, cat)
            for action, card in dict.fromkeys((m.action, m.card) for m in legal):
                shown = pack.cards.format(card)
                mine = [m for m in legal if (m.action, m.card) == (action, card)]
                outcome = entry.start(action, [shown])
                if len(mine) == 1 and mine[0].draw is None:  # the last play: nothing to ask
                    assert outcome.kind == "move" and outcome.move == mine[0]
                    continue
                assert outcome.kind == "pending" and outcome.partial is not None
                partial = outcome.partial
                assert partial.draw is UNSET and set(outcome.fits) == set(mine)
                if all(m.draw is None for m in mine):  # a last play: the pawn is asked
                    assert not entry.asks_draw(partial)
                    assert entry.prompt(partial).startswith(shown)
                    assert entry.say(outcome) == cat("pending.which", card=shown,
                                                     options=entry.numbered(partial))
                    continue
                draws = entry.choices(partial).split(", ")
                assert draws == list(dict.fromkeys(
                    "deck" if m.draw == DECK else "-" if m.draw is None else pack.cards.keys[m.draw]
                    for m in mine))
                prompt = entry.prompt(partial)
                assert prompt == cat("prompt.draw", card=shown, draws=", ".join(draws))
                assert entry.say(outcome) == cat("pending", card=shown, action=action,
                                                 draws=", ".join(draws))
                for draw in dict.fromkeys(m.draw for m in mine):
                    if draw is None:
                        continue
                    word = "deck" if draw == DECK else pack.cards.keys[draw]
                    rest = [m for m in mine if m.draw == draw]
                    after = entry.add(partial, [word])
                    if len(rest) == 1:
                        assert after.kind == "move" and after.move == rest[0]
                        continue
                    assert after.kind == "pending" and set(after.fits) == set(rest)
                    options = entry.choices(after.partial).split(", ")
                    assert len(options) == len(rest)
                    numbered = entry.numbered(after.partial).split(" · ")
                    assert entry.prompt(after.partial) == cat(
                        "prompt.which", card=shown, options=" · ".join(numbered))
                    for number, (option, choice, move) in enumerate(
                            zip(options, numbered, rest), 1):  # typed or by number: its move
                        words = re.sub(r" \([^)]*\)", "", option).split()
                        last = entry.add(partial, words)
                        assert last.kind == "move" and last.move == move, (option, last)
                        assert choice.startswith(f"[{number}] ") and word not in choice.split()
                        picked = entry.choose(after.partial, number)
                        assert picked.kind == "move" and picked.move == move
                    for wrong in (0, len(rest) + 1):
                        assert entry.choose(after.partial, wrong).key == "error.bad-choice"


def test_a_last_play_with_a_pawn_to_choose_asks_for_the_pawn_not_a_draw() -> None:
    """The draw pile is empty: a row started on the last play still sends a pawn, and the
    prompt asks which (it asked "draw from -" before)."""
    pack = a_pack("board-classic")
    codec = pack.cards
    card = codec.parse("g3")
    legal = [Move("play", card, None, 0, (), codec), Move("play", card, None, 1, (), codec)]
    entry = MoveEntry(pack, legal)
    outcome = entry.start("play", ["g3"])
    assert outcome.kind == "pending" and not entry.asks_draw(outcome.partial)
    assert entry.prompt(outcome.partial) == \
        "g3, which one? [1] pawn=0 (leader) · [2] pawn=1 (a number, or type it) > "
    assert entry.choose(outcome.partial, 2).move == legal[1]
    assert entry.add(outcome.partial, ["pawn=1"]).move == legal[1]
    assert entry.add(outcome.partial, ["leader"]).move == legal[0]
    assert entry.enter(outcome.partial) is None


def test_enter_at_the_draw_prompt_is_the_deck() -> None:
    pack = a_pack("duel-classic")
    state = positions("duel-classic", 1)[0]
    entry = MoveEntry(pack, legal_moves(state))
    move = next(m for m in legal_moves(state) if m.draw == DECK and m.action == "play")
    partial = entry.start("play", [pack.cards.format(move.card)]).partial
    assert partial is not None
    done = entry.enter(partial)
    assert done is not None and done.kind == "move" and done.move == move
    assert entry.enter(partial.but(draw=DECK)) is None  # the draw said: nothing to add


# --------------------------------------------------------------------------- wrong words

def test_wrong_words_get_the_key_that_says_why() -> None:
    duel = a_pack("duel-classic")
    state = positions("duel-classic", 1)[0]
    legal = legal_moves(state)
    entry = MoveEntry(duel, legal)
    assert entry.start("play", []).key == "error.no-card"
    bad = entry.start("play", ["q99"])
    assert (bad.key, bad.params["card"]) == ("error.bad-card", "q99")
    plain = MoveEntry(a_pack("duel-basic"), [])
    assert plain.start("discard", ["q99"]).key == "error.bad-card-plain"
    held = {m.card for m in legal}
    other = next(c for c in range(len(duel.cards.colour_of)) if c not in held)
    cannot = entry.start("play", [duel.cards.format(other)])
    assert cannot.key == "connect.cannot" and cannot.ask == Move("play", other, DECK)
    assert why_refused(state, cannot.ask).key == "illegal.not-held"
    card = duel.cards.format(next(m for m in legal if m.action == "play").card)
    nowhere = entry.start("play", [card, "nowhere"])
    assert (nowhere.key, nowhere.params["text"]) == ("error.bad-draw", "nowhere")
    twice = entry.start("play", [card, "deck", duel.cards.keys[0]])
    assert twice.key == "error.bad-draw" and twice.params["text"] == f"deck {duel.cards.keys[0]}"
    # a pawn on a pack without pawns: no legal move fits; the rules say why
    for word in ("leader", "chef", "pawn=1", "pion=1", "step=b"):
        none = entry.start("play", [card, word, "deck"])
        assert none.key == "error.no-such-move" and none.ask is not None, word
        assert why_refused(state, none.ask).key == "illegal.no-board", word


def test_a_board_pawn_that_is_no_pawn_is_the_rules_refusal() -> None:
    board = a_pack("board-classic")
    state = positions("board-classic", 1)[0]
    legal = legal_moves(state)
    entry = MoveEntry(board, legal)
    move = next(m for m in legal if m.pawn is not None)
    card = board.cards.format(move.card)
    wrong = entry.start(move.action, [card, "pawn=99", "deck"])
    assert wrong.key == "error.no-such-move" and wrong.params["move"] == f"p {card} pawn=99 deck"
    assert why_refused(state, wrong.ask).key == "illegal.pawn-form"
    assert entry.start(move.action, [card, "pawn=²"]).key == "error.bad-draw"  # digits only


def test_a_line_that_names_a_legal_move_another_way_is_never_asked_about() -> None:
    """No fit, and the move tried is legal (leader on a pack whose leaders are none):
    nothing to ask the rules (a room would play it), only the entry's own words."""
    flat = derived("board-classic", board={"leaders": 0})
    state = new_game(flat, ["a", "b"], 1)
    legal = legal_moves(state)
    move = next(m for m in legal if m.pawn == 0 and m.draw == DECK)
    outcome = MoveEntry(flat, legal).start("play", [flat.cards.format(move.card), "leader",
                                                    "deck"])
    assert outcome.key == "error.no-leader" and outcome.ask is None


# --------------------------------------------------------------------------- any text

WORDS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["deck", "pioche", "leader", "chef", "pawn=0", "pion=1", "pawn=",
                     "step=b", "pas=aucun", "step=none", "step=deck", "step=", "=", "-", "x",
                     "r5", "b10", "gx", "y1", "vert", "VERTE", "none", "pawn=٣", "pawn=0000",
                     "pile", "\x00", "‮", "{card}", "{0}", "%s"]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pack_name=st.sampled_from(["duel-classic", "board-classic", "short-tracks"]),
       lang=st.sampled_from(LANGS), action=st.sampled_from(["play", "discard"]),
       words=st.lists(WORDS, max_size=6), more=st.lists(WORDS, max_size=4))
def test_any_text_gives_a_move_a_pending_turn_or_one_clear_message(
        pack_name: str, lang: str, action: str, words: list[str], more: list[str]) -> None:
    pack = a_pack(pack_name)
    state = positions(pack_name, 2)[-1]
    legal = legal_moves(state)
    entry = MoveEntry(pack, legal, CATS[lang])
    partial: Optional[Partial] = None
    for outcome in (entry.start(action, words),):
        if outcome.kind == "pending":
            partial = outcome.partial
        check(entry, outcome, legal)
    if partial is None:
        card = next((m.card for m in legal if m.action == action), None)
        if card is None:
            return
        partial = Partial(action, card)
    check(entry, entry.add(partial, more), legal)
    assert isinstance(entry.prompt(partial), str)
    entered = entry.enter(partial)
    if entered is not None:
        check(entry, entered, legal)


def check(entry: MoveEntry, outcome: Outcome, legal: list[Move]) -> None:
    if outcome.kind == "move":
        assert outcome.move in legal
        return
    if outcome.kind == "pending":
        assert outcome.fits and all(m in legal for m in outcome.fits)
        assert isinstance(entry.say(outcome), str)
        return
    assert outcome.kind == "error"
    assert filled(entry.cat, outcome.key, dict(outcome.params)), outcome
    text = entry.say(outcome)
    assert text and "\n" not in text
    assert outcome.ask is None or outcome.ask not in legal


# --------------------------------------------------------------------------- French

#: English words a French player must never read in what the entry says (the move
#: notation, ``deck``, ``pawn=N``, ``step=K``, ``none``, and colour keys, is the same in
#: both languages: lc play's moves list prints it, and the choices are typed as shown)
ENGLISH = frozenset("""
the an is are no not you your yours from with and draw which more may card cards moves
pawn pawns step leader play plays discard discards choose type then now or turn several
legal fits fit lists list write value colour key pile wager
""".split())
NOTATION = re.compile(r"^(pawn|step)=\S+$|^(deck|none|-)$")


def english_in(text: str, own: set[str]) -> set[str]:
    words = [w.strip(",;:.()«»'\"?") for w in text.split()]
    kept = " ".join(w for w in words if w and not NOTATION.match(w) and w.lower() not in own)
    return {w for w in re.findall(r"[A-Za-z]+", kept.lower()) if w in ENGLISH}


@pytest.mark.parametrize("name", ["duel-classic", "board-classic", "short-tracks"])
def test_what_the_entry_says_in_french_holds_no_english(name: str) -> None:
    pack = a_pack(name)
    fr = CATS["fr"]
    seen = 0
    for state in positions(name, 3):
        legal = legal_moves(state)
        entry = MoveEntry(pack, legal, fr)
        own = {pack.cards.format(m.card).lower() for m in legal} | set(pack.cards.keys)
        outcomes = []
        for action, card in dict.fromkeys((m.action, m.card) for m in legal):
            shown = pack.cards.format(card)
            outcomes.append(entry.start(action, [shown]))
            outcomes.append(entry.start(action, [shown, "deck"]))
            outcomes.append(entry.start(action, [shown, "nowhere", "deck"]))
            outcomes.append(entry.start(action, [shown, "pion=99", "pioche"]))
        outcomes += [entry.start("play", []), entry.start("play", ["q99"])]
        held = {m.card for m in legal}
        other = next(c for c in range(len(pack.cards.colour_of)) if c not in held)
        outcomes.append(entry.start("discard", [pack.cards.format(other)]))
        for outcome in outcomes:
            if outcome.kind == "move":
                continue
            said_fr = entry.say(outcome)
            if outcome.kind == "pending":
                said_fr += " " + entry.prompt(outcome.partial)
            else:
                own_params = {w.lower() for v in outcome.params.values()
                              for w in str(v).split()}
                own = own | own_params
            assert not english_in(said_fr, own), (outcome, said_fr)
            seen += 1
    assert seen


#: every key the entry says (its refusals, its prompts and notes, a move in words)
ENTRY_KEYS = ["error.no-card", "error.bad-card", "error.bad-card-plain", "error.bad-draw",
              "error.no-such-move", "error.no-leader", "connect.cannot", "pending",
              "pending.which", "prompt.draw", "prompt.which", "result.leader", "error.bad-choice",
              *(f"turn.{you}{action}.{source}" for you in ("", "you.")
                for action in ("play", "discard") for source in ("deck", "pile", "none")),
              "turn.sends", "turn.sends-leader", "turn.step", "turn.step-none"]


@pytest.mark.parametrize("key", ENTRY_KEYS)
def test_every_french_message_of_the_entry_holds_no_english(key: str) -> None:
    params = {"card": "g3", "keys": "y b w g r", "low": 2, "high": 10, "text": "zz",
              "move": "p g3 pawn=0 deck", "action": "play", "draws": "deck, y",
              "options": "pawn=0 deck, pawn=1 deck", "who": "Ada", "taken": "y4",
              "colour": "green", "pawn": 1}
    said_fr = CATS["fr"](key, **params)
    assert not english_in(said_fr, {"g3", "y4", "zz", "ada", "y", "b", "w", "g", "r"}), said_fr


def test_the_english_check_catches_english() -> None:
    assert english_in("r5: draw from deck, y (Enter: deck) >", set()) == {"draw", "from"}
    assert english_in("pawn=0 (leader) deck", set()) == {"leader"}
    assert not english_in(CATS["fr"]("prompt.which", card="g3",
                                      options="pawn=0 (chef) deck, pawn=1 deck"), set())


# --------------------------------------------------------------------------- the words typed

def test_the_words_typed_are_the_catalogues_in_every_language() -> None:
    words = typed_words()
    for lang in LANGS:
        messages = load_messages(lang)
        for key, table in (("deck", words.deck), ("pawn", words.pawn), ("step", words.step),
                           ("leader", words.leader), ("no-step", words.no_step),
                           ("chat", words.chat)):
            assert set(messages[f"words.{key}"].lower().split()) <= table, (lang, key)
        for name in ("play", "discard"):
            assert all(words.actions[w] == name for w in messages[f"words.{name}"].split())
    assert {"pioche", "deck"} <= words.deck and {"chef", "leader"} <= words.leader
    assert {"pion", "pawn"} <= words.pawn and {"pas", "step"} <= words.step
    assert {"aucun", "none", "-"} <= words.no_step
    tables = [set(words.actions), set(words.commands), words.deck, words.leader, words.chat]
    for i, one in enumerate(tables):  # a word says one thing
        for other in tables[i + 1:]:
            assert not one & other


def test_either_languages_words_are_read_whatever_the_language_shown() -> None:
    """As lc play always did: pioche and chef in an English game, deck and leader in a
    French one."""
    pack = a_pack("board-classic")
    state = new_game(pack, ["a", "b"], 3)
    legal = legal_moves(state)
    move = next(m for m in legal if m.pawn == 0 and m.draw == DECK)
    card = pack.cards.format(move.card)
    for lang in LANGS:
        entry = MoveEntry(pack, legal, CATS[lang])
        for words in (["chef", "pioche"], ["leader", "deck"], ["pion=0", "draw"],
                      ["pawn=0", "pile"]):
            outcome = entry.start("play", [card, *words])
            assert outcome.kind == "move" and outcome.move == move, (lang, words)


def test_no_front_end_writes_a_word_players_type() -> None:
    """The words are the catalogue's: none of them is a literal of the entry or of the two
    terminal front ends any more."""
    french = ["pion", "pas", "chef", "pioche", "aucun", "aucune", "jouer", "défausser",
              "coups", "aide", "indice", "annuler", "quitter", "sauver", "dire"]
    for path in ("entry/__init__.py", "cli/session.py", "cli/connect.py"):
        source = (ROOT / path).read_text(encoding="utf-8")
        for word in french:
            assert f'"{word}"' not in source and f"'{word}'" not in source, (path, word)


# --------------------------------------------------------------------------- a move in words

def test_a_move_in_words_is_the_same_for_lc_play_and_the_room() -> None:
    from lostcities.server.room import words_of

    pack = a_pack("short-tracks")
    for state in positions("short-tracks", 3):
        for move in legal_moves(state)[:40]:
            notes = [{"key": k, "params": p} for k, p in move_notes(pack, move, "Ada")]
            room = words_of(pack, state, move, "Ada")
            assert [n["key"] for n in room] == [n["key"] for n in notes]
            assert room[1:] == notes[1:]
            assert option_notes(pack, move) == [(n["key"], n["params"]) for n in notes[1:]]


def test_option_words_name_the_leader_and_each_advance() -> None:
    pack = a_pack("board-classic")
    codec = pack.cards
    green = next(i for i, c in enumerate(pack.colours) if c.name == "green")
    blue = next(i for i, c in enumerate(pack.colours) if c.name == "blue")
    card = next(c for c in range(len(codec.colour_of)) if codec.colour_of[c] == green)
    move = Move("play", card, DECK, 0, (blue, None), codec)
    assert said(option_notes(pack, move), CATS["en"]) == (
        "The leader goes onto the green track. The blue pawn moves on one more space. "
        "No pawn moves on: the advance is declined.")
    assert said(option_notes(pack, Move("play", card, DECK, 1, (), codec)), CATS["fr"]) == \
        "Le pion 1 part sur la piste verte."


def test_help_recalls_the_pawns_where_a_turn_may_send_one() -> None:
    assert "rules.board" in rule_keys(a_pack("board-classic"))
    assert "rules.board" not in rule_keys(a_pack("duel-classic"))
    assert rule_keys(a_pack("duel-classic"))[0] == "rules.strict"
