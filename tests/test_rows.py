"""engine/game/rows.py: whole rows checked against each ordering, with the refused card named."""
from __future__ import annotations

from dataclasses import replace

import pytest

from lostcities.engine.errors import IllegalMoveError
from lostcities.engine.packs.loader import load_pack
from lostcities.engine.game.rows import check_copies, check_row, group_rows, refusal, tally
from lostcities.engine.game.rules import RulePack


def cards(pack: RulePack, text: str) -> list[int]:
    return [pack.cards.parse(word) for word in text.split()]


def refused(pack: RulePack, text: str) -> str:
    with pytest.raises(IllegalMoveError) as caught:
        check_row(pack, cards(pack, text))
    return str(caught.value)


def test_strict_rows() -> None:
    # 000: "chaque carte ajoutée doit avoir une valeur supérieure à celle de la carte qui
    # a été posée en dernier"
    p = load_pack("duel-classic")
    assert check_row(p, cards(p, "rx rx r2 r3 r5 r7 r8 r10")) == ((2, 3, 5, 7, 8, 10), 2)
    assert refused(p, "r5 r3") == ("r3 cannot follow r5 on the red row: this pack needs "
                                   "strictly increasing values")
    assert refused(p, "b4 b4").startswith("b4 cannot follow b4 on the blue row")


def test_wagers_only_before_numbers() -> None:
    # 000: "Vous pouvez jouer une carte Pari ... à condition que cette Expédition ne
    # contienne encore aucune carte Expédition"
    p = load_pack("duel-classic")
    assert check_row(p, cards(p, "gx gx gx")) == ((), 3)
    assert refused(p, "gx g3 gx") == ("gx cannot follow g3 on the green row: wagers go "
                                      "before the number cards")
    loose = replace(p, wagers_when="any-time")
    assert check_row(loose, cards(loose, "gx g3 gx")) == ((3,), 2)


def test_non_decreasing_rows() -> None:
    # 003: "La nouvelle carte doit avoir une valeur supérieure ou égale à la précédente"
    p = load_pack("board-classic")
    assert check_row(p, cards(p, "y0 y0 y4 y4 y10")) == ((0, 0, 4, 4, 10), 0)
    assert refused(p, "y4 y3") == ("y3 cannot follow y4 on the yellow row: this pack "
                                   "needs values that never decrease")


def test_either_direction_rows_take_the_direction_of_the_first_different_card() -> None:
    # 001's variant: rows may descend, their direction set by the first card that
    # differs from the first card
    p = load_pack("board-updown")
    assert check_row(p, cards(p, "r5 r5 r3 r3 r0"))[0] == (5, 5, 3, 3, 0)
    assert check_row(p, cards(p, "r5 r5 r7 r7 r9"))[0] == (5, 5, 7, 7, 9)
    assert refused(p, "r5 r5 r7 r3").startswith("r3 cannot follow r7 on the red row: this "
                                                "row goes up")
    assert refused(p, "r5 r3 r4").startswith("r4 cannot follow r3 on the red row: this "
                                             "row goes down")


def test_refusal_is_none_for_a_legal_card_and_says_why_otherwise() -> None:
    p = load_pack("duel-classic")
    row = cards(p, "wx w4")
    assert refusal(p, row, p.cards.parse("w5")) is None
    assert refusal(p, row, p.cards.parse("w3")).endswith("strictly increasing values")
    assert refusal(p, row, p.cards.parse("r5")) == "r5 is not a card of the red row"


def test_copies_counted_against_the_deck() -> None:
    p = load_pack("duel-classic")
    check_copies(p, cards(p, "rx rx rx r5"))
    with pytest.raises(IllegalMoveError, match="rx is given 4 times but the duel-classic deck "
                                               "holds it 3 times"):
        check_copies(p, cards(p, "rx rx rx rx"))
    board = load_pack("board-classic")
    check_copies(board, cards(board, "g3 g3"))
    with pytest.raises(IllegalMoveError, match="g3 is given 3 times"):
        check_copies(board, cards(board, "g3 g3 g3"))


def test_group_rows_keeps_the_order_given_within_each_colour() -> None:
    p = load_pack("duel-classic")
    rows = group_rows(p, cards(p, "r8 b2 rx r9 y3"))
    assert [[p.cards.format(c) for c in r] for r in rows] == [
        ["y3"], ["b2"], [], [], ["r8", "rx", "r9"]]


def test_tally_scores_every_colour_and_totals_with_the_round_formula() -> None:
    p = load_pack("duel-classic")
    result = tally(p, cards(p, "y5 y8 y10 wx gx g3 g5 g7 rx rx r2 r3 r5 r7 r8 r10"))
    assert [e.score for e in result.expeditions] == [3, 0, -40, -10, 65]
    assert result.total == 18
    doc = result.as_dict(p)
    assert doc["total"] == 18
    assert doc["expeditions"][4] == {
        "colour": "red", "cards": ["rx", "rx", "r2", "r3", "r5", "r7", "r8", "r10"],
        "score": 65, "breakdown": {"sum": 35, "cost": 20, "multiplier": 3, "bonus": 20}}
    with pytest.raises(IllegalMoveError, match="r3 cannot follow r5"):
        tally(p, cards(p, "r5 r3"))
