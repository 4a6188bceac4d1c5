"""The rule options ``turn.retake`` and ``wagers.when`` (engine/game/options.py): one scripted
scenario per rulebook sentence, the house packs that use them, the old boolean spellings
they replace, and random games that never break them."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enginehelpers import derived, pack, play, start
from lostcities.engine import (DECK, DISCARD, IllegalMoveError, Move, apply, is_over,
                               legal_moves, live_scores, load_pack, new_game, playout,
                               random_move, why_refused)
from lostcities.engine.tooling import explain
from lostcities.engine.game.options import RETAKES, WAGER_TIMES
from lostcities.i18n import Catalogue

HANDS = ["y5 y8 y10 wx g3 g5 r2 r3", "b2 b3 b4 b5 b6 b7 b8 b9"]
RETAKE_VALUES = sorted(RETAKES)


def rules_sentences(lang: str) -> dict:
    return json.loads(files("lostcities.i18n").joinpath(f"rules_{lang}.json").read_text("utf-8"))


def retake_pack(value: str):
    return derived("duel-classic", turn={"retake": value})


def draws_after(state, card: str) -> set:
    """Where the player to move may draw after discarding ``card`` (colour indexes, DECK)."""
    k = state.pack.cards.parse(card)
    return {m.draw for m in legal_moves(state) if m.action == DISCARD and m.card == k}


# -- turn.retake: each value's sentence, on the same position

def test_retake_any_lets_the_player_take_back_the_card_just_discarded():
    # "You may even take back the card you have just discarded." (001, the board packs)
    p = retake_pack("any")
    s = play(start(p, HANDS), "d r3 deck", "d b2 deck")
    assert draws_after(s, "r2") == {DECK, 1, 4}  # deck, the blue pile, red (its own)
    s = play(s, "d r2 r")
    assert p.cards.parse("r2") in s.hands[0] and s.piles[4] == [p.cards.parse("r3")]


def test_retake_not_the_same_card_forbids_only_the_discarded_cards_pile():
    # "You may not take back the card you have just discarded." (004, the duel packs)
    p = retake_pack("not-the-same-card")
    s = play(start(p, HANDS), "d r3 deck", "d b2 deck")
    assert draws_after(s, "r2") == {DECK, 1}
    with pytest.raises(IllegalMoveError, match="just discarded") as refused:
        apply(s, "d r2 r")
    assert refused.value.refusal.key == "illegal.retake"


def test_retake_no_discard_pile_sends_a_discarding_player_to_the_draw_pile():
    # "A player who has just discarded draws from the face-down draw pile only, never from a
    # discard pile; after playing a card, any pile is allowed." (a house rule)
    p = pack("duel-deck-after-discard")
    assert p.retake == "no-discard-pile" and p.house_rule
    s = play(start(p, HANDS), "d r3 deck", "d b2 deck")
    assert draws_after(s, "r2") == {DECK}
    for draw in ("b", "r"):  # another's pile, its own
        with pytest.raises(IllegalMoveError, match="draw pile only") as refused:
            apply(s, f"d r2 {draw}")
        assert refused.value.refusal.key == "illegal.discard-then-deck"
        assert refused.value.refusal.params == {"card": "r2"}
    # after playing a card, the piles are open as ever
    assert {m.draw for m in legal_moves(s) if m.card == p.cards.parse("y5")} == {DECK, 1, 4}
    s = play(s, "p y5 b")
    assert p.cards.parse("b2") in s.hands[0]


def test_the_refusal_is_said_in_french_without_english():
    s = play(start(pack("duel-deck-after-discard"), HANDS), "d r3 deck", "d b2 deck")
    refusal = why_refused(s, Move.parse("d r2 b", s.pack))
    french = Catalogue("fr")(refusal.key, **refusal.params)
    assert "pioche" in french and "draw" not in french and "discard" not in french


@pytest.mark.parametrize("value", RETAKE_VALUES)
def test_each_retake_value_has_its_rulebook_sentence_in_both_languages(value):
    book = explain(retake_pack(value), base=pack("duel-classic"))
    keys = [s.key for section in book.sections for s in section.sentences]
    assert f"draw.retake.{value}" in keys
    for lang in ("en", "fr"):
        assert rules_sentences(lang)[f"draw.retake.{value}"]


@pytest.mark.parametrize("value", RETAKE_VALUES)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_the_retake_rule(value, seed):
    """Every move random_move picks is legal, and every discard's draw obeys the rule."""
    p = retake_pack(value)
    state, rng = new_game(p, 2, seed), random.Random(seed)
    while not is_over(state):
        move = random_move(state, rng)
        assert why_refused(state, move) is None, move
        if move.action == DISCARD and move.draw is not None and move.draw != DECK:
            own = move.draw == p.cards.colour_of[move.card]
            assert value == "any" or (value == "not-the-same-card" and not own), move
        state = apply(state, move)
    assert playout(new_game(p, 2, seed), random.Random(seed)).finished == state.finished


def test_random_move_is_uniform_over_the_legal_moves_under_the_deck_only_rule():
    s = play(start(pack("duel-deck-after-discard"), HANDS), "d r3 deck", "d b2 deck")
    legal = legal_moves(s)
    rng = random.Random(7)
    counts = {m: 0 for m in legal}
    draws = 300 * len(legal)
    for _ in range(draws):
        counts[random_move(s, rng)] += 1
    assert set(counts) == set(legal)
    assert min(counts.values()) > 150 and max(counts.values()) < 450, counts


# -- wagers.when

def test_wagers_before_numbers_refuses_a_wager_after_a_number():
    # "Wager cards go on a row only before its first number card" (000)
    p = pack("duel-classic")
    assert p.wagers_when == "before-numbers"
    s = play(start(p, ["rx r2 r3 y2 y3 y4 y5 y6", HANDS[1]]), "p r2 deck", "d b2 deck")
    with pytest.raises(IllegalMoveError) as refused:
        apply(s, "p rx deck")
    assert refused.value.refusal.key == "illegal.wager"


def test_wagers_any_time_joins_a_numbered_row_and_multiplies_it_whole():
    # "Wager cards may join a row at any time, even after its number cards; each still
    # multiplies the whole row." (a house rule)
    p = pack("duel-late-wagers")
    assert p.wagers_when == "any-time" and p.house_rule
    s = play(start(p, ["rx r2 r3 y2 y3 y4 y5 y6", HANDS[1]]), "p r2 deck", "d b2 deck",
             "p r3 deck", "d b3 deck")
    before = live_scores(s)[0]
    assert before == (2 + 3 - 20)
    s = play(s, "p rx deck")
    assert " ".join(p.cards.format(c) for c in s.rows[0][4]) == "r2 r3 rx"
    assert live_scores(s)[0] == (2 + 3 - 20) * 2
    book = explain(p)
    keys = [x.key for section in book.sections for x in section.sentences]
    assert "wagers.when.any-time" in keys and "wagers.when.before-numbers" not in keys


@pytest.mark.parametrize("value", sorted(WAGER_TIMES))
def test_each_wager_time_has_its_rulebook_sentence_in_both_languages(value):
    for lang in ("en", "fr"):
        for key in (f"wagers.when.{value}", f"wagers.when.{value}.unused"):
            assert rules_sentences(lang)[key]


# -- the old spellings

OLD_AND_NEW = [
    ({"turn": {"no_retake_discard": True}}, {"turn": {"retake": "not-the-same-card"}}),
    ({"turn": {"no_retake_discard": False}}, {"turn": {"retake": "any"}}),
    ({"rows": {"wagers_before_numbers": True}}, {"wagers": {"when": "before-numbers"}}),
    ({"rows": {"wagers_before_numbers": False}}, {"wagers": {"when": "any-time"}}),
]


def _yaml(sections: dict) -> str:
    lines = []
    for section, values in sections.items():
        lines.append(f"{section}:")
        lines += [f"  {k}: {str(v).lower() if isinstance(v, bool) else v}"
                  for k, v in values.items()]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("old,new", OLD_AND_NEW)
def test_an_old_spelling_means_its_new_setting_file_by_file(tmp_path: Path, old, new):
    """A house pack in the old words over a built-in in the new ones (and one in the new words
    over a file in the old ones) means what it says: the later file wins."""
    (tmp_path / "old.yaml").write_text(f"id: old-words\nextends: duel-classic\n{_yaml(old)}")
    (tmp_path / "new.yaml").write_text(f"id: new-words\nextends: duel-classic\n{_yaml(new)}")
    (tmp_path / "over.yaml").write_text(f"id: over-old\nextends: old.yaml\n{_yaml(new)}")
    a, b = load_pack(tmp_path / "old.yaml"), load_pack(tmp_path / "new.yaml")
    assert (a.retake, a.wagers_when) == (b.retake, b.wagers_when)
    assert a.no_retake_discard == b.no_retake_discard == (b.retake != "any")
    assert a.wagers_before_numbers == (b.wagers_when == "before-numbers")
    c = load_pack(tmp_path / "over.yaml")
    assert (c.retake, c.wagers_when) == (b.retake, b.wagers_when)


def test_a_wrong_value_is_one_line_with_file_and_line(tmp_path: Path):
    path = tmp_path / "bad.yaml"
    path.write_text("id: bad\nextends: duel-classic\nturn:\n  retake: sometimes\n")
    lc = Path(sys.executable).with_name("lc")  # the installed command, as a maintainer runs it
    run = subprocess.run([str(lc), "validate", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1, run.stderr
    lines = [x for x in (run.stdout + run.stderr).splitlines() if "bad.yaml" in x]
    assert lines and ":4:" in lines[0] and "retake" in lines[0], run.stdout + run.stderr
    assert "Traceback" not in run.stderr
