"""Refusals: the engine's one legality check names the rule a move breaks, in any language.

Moves are tampered on every built-in pack and the house-pack fixtures
(tests/refusal_tampering.py), and the key :func:`why_refused` gives is compared with the key
the tampering earns, worked out from how the move was changed, not by the engine. A key may
name a wording of its rule after a dot (``illegal.pawn-missing.both``,
``illegal.step-extra.none``). The French rendering of every refusal holds no English word.
"""
from __future__ import annotations

import ast
import functools
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from enginehelpers import builtin_ids, derived, pack
from lostcities.engine import (IllegalMoveError, Move, Refusal, apply, illegal_reason,
                               legal_moves, load_pack, new_game, why_refused)
from lostcities.engine.game import turn
from lostcities.engine.game.options import ORDERINGS
from lostcities.i18n import Catalogue, load_messages
from refusal_tampering import positions, tampered

ROOT = Path(__file__).resolve().parent.parent
HOUSE = sorted((ROOT / "tests" / "fixtures" / "packs" / "valid").glob("*.yaml"))
#: board rules random play seldom reaches: a round ended by its first bridge crossing, every
#: pawn on a track, a step due while a pawn stands on its track's last space
DERIVED = {
    "one-crossing": lambda: derived("board-classic", round_end={"bridge_crossings": 1},
                                    board={"bridge_after": 1}),
    "two-pawns": lambda: derived("board-classic", board={"pawns": 2}),
    "short-tracks": lambda: derived("board-classic", board={
        "spaces": 4, "bridge_after": 2, "tile_spaces": [1, 2, 3, 4],
        "tiles": [{"kind": "step", "count": 12}]}),
}
PACKS = [*builtin_ids(), *(str(p) for p in HOUSE), *DERIVED]


@functools.lru_cache(maxsize=None)
def a_pack(name: str):
    if name in DERIVED:
        return DERIVED[name]()
    return pack(name) if "/" not in name else load_pack(name)


def names_the_rule(key: str, expected: str) -> bool:
    return key == expected or key.startswith(expected + ".")


# --------------------------------------------------------------------------- no English in French

#: words of the English messages that French never uses (the move notation's own words,
#: ``deck``, ``pawn=``, ``step=``, ``none``, included: French says pioche, pion=, pas=,
#: aucun); words both languages write (a, on, or, action, direction, source) are left out
ENGLISH = frozenset("""
the an is are no not you your yours cannot can this that its it of onto to from with
and only already must has have here due pawn pawns step steps track tracks row card cards
discard discarded draw deck empty match over turn move moves leader leaders ordinary
free first last space value values higher lower goes up down takes sends send add drop none
which one more may advance decline advanced continues every start starting starts lowest hand
holds hold back take just round ended crossing crossings bridge ends sequence
unknown plays discards needs keeps wager before number numbers after there alike
""".split())


def english_in(text: str, params: dict) -> set[str]:
    """The English words of :data:`ENGLISH` in ``text``, leaving out the parameters' own."""
    own = {w.lower() for v in params.values() for w in re.findall(r"[A-Za-z]+", str(v))}
    return {w for w in re.findall(r"[A-Za-z]+", text.lower()) if w in ENGLISH} - own


def test_the_english_check_catches_the_french_players_old_message():
    """What a French player read before: the engine's English sentence in illegal.other."""
    assert english_in("step=y: no pawn advance is due here", {}) >= {"step", "no", "pawn"}
    assert not english_in(Catalogue("fr")("illegal.step-extra", step="y"), {"step": "y"})


def example_params() -> dict:
    return {"card": "r5", "colour": "green", "last": 5, "row": "r3 r5", "lowest": "r3",
            "pack": "duel-classic", "move": "'x'", "action": "'pass'", "draw": "99",
            "pawn": 1, "leader": 0, "alike": 1, "steps": "b", "step": "b", "tracks": "y, b",
            "count": 2}


def refusal_keys() -> list[str]:
    return sorted(k for k in load_messages("en") if k.startswith("illegal."))


@pytest.mark.parametrize("key", refusal_keys())
def test_every_refusal_key_is_said_in_both_languages_and_french_has_no_english(key):
    params = example_params()
    fr, en = Catalogue("fr")(key, **params), Catalogue("en")(key, **params)
    assert key in load_messages("fr") and fr != en
    assert "{" not in fr and "{" not in en, "a parameter the message does not get"
    assert not english_in(fr, params), fr


def keys_in_engine_sources() -> set[str]:
    """Every ``Refusal("illegal....")`` key written in the engine (f-strings expanded)."""
    from lostcities.engine.game.rows import ORDERING_KEYS

    found: set[str] = set()
    for path in (ROOT / "engine" / "game").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Refusal" \
                    and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant):
                    found.add(arg.value)
                elif isinstance(arg, ast.JoinedStr):
                    head = "".join(v.value for v in arg.values if isinstance(v, ast.Constant))
                    found.update(k for k in refusal_keys() if k.startswith(head))
    found.update(k for by_direction in ORDERING_KEYS.values() for k in by_direction.values())
    return found


def test_every_key_the_engine_builds_is_in_the_catalogue_and_no_catch_all_is_left():
    from lostcities.engine.game.rows import ORDERING_KEYS

    keys = keys_in_engine_sources()
    assert set(ORDERING_KEYS) == set(ORDERINGS)
    assert keys and keys <= set(refusal_keys())
    assert "illegal.other" not in load_messages("en")


# --------------------------------------------------------------------------- the key names the rule

@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(PACKS), st.integers(0, 3), st.randoms(use_true_random=False))
def test_a_tampered_move_is_refused_for_the_rule_it_breaks(name, seed, rng):
    p = a_pack(name)
    for state in rng.sample(positions(p, seed), 2) if len(positions(p, seed)) > 2 \
            else positions(p, seed):
        for how, move, expected in tampered(state, random.Random(rng.random())):
            refusal = why_refused(state, move)
            assert refusal is not None and names_the_rule(refusal.key, expected), \
                (p.id, how, str(move), refusal)
            fr = refusal.text("fr")
            assert not english_in(fr, refusal.params), (how, fr)
            assert illegal_reason(state, move) == refusal.text("en")


def test_every_tampering_is_met_on_the_packs():
    """The tampering reaches each rule it knows (else the property above proves little)."""
    met: set[str] = set()
    for name in ("duel-classic", "duel-equal", "board-classic", *map(str, HOUSE), *DERIVED):
        p = a_pack(name)
        for seed in range(2):
            for state in positions(p, seed):
                met.update(key for _, _, key in tampered(state, random.Random(seed)))
    assert met >= {"illegal.game-over", "illegal.action", "illegal.card", "illegal.not-held",
                   "illegal.no-board", "illegal.draw-missing", "illegal.draw-source",
                   "illegal.pile-empty", "illegal.last-play-draw", "illegal.retake",
                   "illegal.discard-pawn", "illegal.wager", "illegal.order.strict",
                   "illegal.order.non-decreasing", "illegal.pawn-missing",
                   "illegal.pawn-form", "illegal.pawn-placed", "illegal.pawn-extra",
                   "illegal.step-extra", "illegal.steps-form", "illegal.pawn-alike",
                   "illegal.step-missing", "illegal.step-form", "illegal.step-no-pawn",
                   "illegal.crossing-draw", "illegal.step-after-end",
                   "illegal.no-free-pawn", "illegal.lowest", "illegal.step-finished"}, met


def test_a_discard_given_a_step_on_board_classic_is_refused_for_the_step_not_a_retake():
    """The issue's example: ``d r7 step=y r`` read "you cannot take back the card you just
    discarded", although board-classic allows that draw."""
    p = pack("board-classic")
    state = new_game(p, 2, 0)
    card = state.hands[state.to_move][0]
    text = p.cards.format(card)
    move = Move.parse(f"d {text} step={p.cards.keys[0]} {p.cards.keys[p.cards.colour_of[card]]}",
                      p)
    assert why_refused(state, move) == Refusal("illegal.discard-pawn")
    assert illegal_reason(state, move) == "a discarded card moves no pawn: a discard has no " \
                                          "pawn= or step="
    assert Refusal("illegal.discard-pawn").text("fr").startswith("une carte défaussée")


def test_the_turn_under_way_and_the_end_of_the_match_have_their_keys():
    p = pack("duel-classic")
    state = new_game(p, 2, 0)
    hand = state.hands[state.to_move]
    state = turn.step(state, hand[0])  # action k plays card k
    other = next(k for k in hand if k != hand[0])
    refusal = why_refused(state, Move("play", other, -1, codec=p.cards))
    assert refusal == Refusal("illegal.pending.play", {"card": p.cards.format(hand[0])})
    assert why_refused(state, Move("play", hand[0], None, codec=p.cards)).key == \
        "illegal.draw-missing"
    assert why_refused(state, "p r5 deck").key == "illegal.not-a-move"


def test_apply_carries_the_refusal_of_its_one_check(monkeypatch):
    """apply checks once and its error holds the Refusal: a front end says it in the
    player's language without checking again."""
    p = pack("duel-classic")
    state = new_game(p, 2, 0)
    calls = []
    family = turn.FAMILIES[p.family]  # the family's full check, past its fast path
    real = family.refusal
    monkeypatch.setattr(family, "refusal", lambda s, m: calls.append(m) or real(s, m))
    with pytest.raises(IllegalMoveError) as info:
        apply(state, Move("play", state.hands[state.to_move][0], 99, codec=p.cards))
    assert len(calls) == 1
    assert info.value.refusal == Refusal("illegal.draw-source", {"draw": "99"})
    assert str(info.value).endswith(": 99 is not a draw source")


# --------------------------------------------------------------------------- the front ends

def test_the_room_checks_a_move_once_and_says_a_board_refusal_in_french(monkeypatch, tmp_path):
    pytest.importorskip("starlette")
    from lostcities.server.protocol import localize
    from lostcities.server.room import Room
    from lostcities.server.store import SQLiteStore

    p = pack("board-classic")
    store = SQLiteStore(tmp_path / "rooms.sqlite3", durable=False)
    room = Room.create(store, "abcdefgh", p, "board-classic")
    room.line(None, "/join Ann")
    room.line(None, "/join Bob")
    room.line(0, "/start")
    checks = []
    real = turn.why_refused
    monkeypatch.setattr(turn, "why_refused", lambda s, m: checks.append(m) or real(s, m))
    seat = room.state.to_move
    card = p.cards.format(room.state.hands[seat][0])
    outcome = room.move(seat, f"d {card} step=y deck")
    assert len(checks) == 1
    error = next(e for e in outcome.replies if e["type"] == "error")
    assert error["params"]["reason"] == {"key": "illegal.discard-pawn", "params": {}}
    said = localize(error, "fr")["text"]
    assert "défaussée" in said and not english_in(said, {})
    checks.clear()
    room.move(seat, str(legal_moves(room.state)[0]))
    assert len(checks) == 1
    store.close()


def test_lc_play_plays_a_bots_move_with_one_check(monkeypatch):
    from lostcities.cli.session import BOT, Player, Session

    s = Session(pack("duel-classic"), [Player(BOT, "A", "random"), Player(BOT, "B", "random")],
                seed=3)
    checks = []
    real = turn.why_refused
    monkeypatch.setattr(turn, "why_refused", lambda st, m: checks.append(m) or real(st, m))
    s.play_bot()
    assert len(checks) == 1


def test_lc_play_connect_asks_the_room_why_a_board_card_cannot_be_played():
    """A card no legal move takes is sent to the room on a board pack too, whose refusal
    now has a key in the player's language (before: a bare "no legal move plays it")."""
    import io

    from lostcities.cli.connect import RoomClient, TokenFile, room_address
    from rich.console import Console

    sent = []

    class Socket:
        def send(self, text: str) -> None:
            sent.append(text)

        def close(self) -> None:
            pass

    out = io.StringIO()
    console = Console(file=out, width=120, no_color=True)
    c = RoomClient(room_address("http://127.0.0.1:1/r/abcdefgh"), Catalogue("fr"),
                   TokenFile(Path("/nonexistent/t")), interactive=False,
                   connect=lambda url: Socket(), out=console, err=console)
    c.pack = pack("board-classic")
    c.socket = Socket()
    c._settle(None, ("error", ("connect.cannot", {"card": "b2", "action": "play"})))
    assert sent and '"p b2 deck"' in sent[-1]
