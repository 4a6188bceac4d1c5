"""The board packs say what rule text 001 says, and mark what it does not say (issue #13).

001 lets the end-of-turn draw take "la carte supérieure d'une défausse" and forbids
nothing about the card just discarded, so a board player may draw it back. 001's
variant only says rows may descend: every choice board-updown makes beyond that is
marked ASSUMPTION in the pack, as the other board numbers are.
"""
from __future__ import annotations

import re

import pytest

from enginehelpers import board_game, board_pack, pack
from lostcities.engine.game.moves import Move
from lostcities.engine.packs.loader import builtin_path
from lostcities.engine.game.turn import apply, legal_moves

BOARD_PACKS = ("board-classic", "board-short", "board-updown")
WAIT = "w10 w10 w9 w9 w8 w8 w7 w7"


@pytest.mark.parametrize("pack_id", BOARD_PACKS)
def test_a_board_player_may_draw_back_the_card_just_discarded(pack_id):
    assert pack(pack_id).retake == "any"
    p = board_pack({}, base=pack_id)  # the pack's rules, no event tiles in the way
    s = board_game(p, ["y3 y5 y7 b2 b4 g6 g8 r10", WAIT], {})
    move = Move.parse("d y7 y", p)
    assert move in legal_moves(s)
    after = apply(s, move)
    assert p.cards.parse("y7") in after.hands[0]
    assert after.piles[p.cards.keys.index("y")] == []


def test_the_duel_still_refuses_it():
    # 004: "cannot take back the card just discarded" (duel-classic's source)
    assert pack("duel-classic").retake == "not-the-same-card"


def _comment_above(lines: list[str], key: str) -> str:
    """The comment lines directly above the line that sets ``key`` (indented or not)."""
    index = next(i for i, line in enumerate(lines) if re.match(rf"\s*{key}\s*:", line))
    above: list[str] = []
    for line in reversed(lines[:index]):
        if not line.strip().startswith("#"):
            break
        above.insert(0, line.strip())
    return " ".join(above)


def test_board_classic_cites_001_for_drawing_back_a_discard():
    lines = builtin_path("board-classic").read_text(encoding="utf-8").splitlines()
    comment = _comment_above(lines, "retake")
    assert "001" in comment and "défausse" in comment


def test_every_choice_of_board_updown_beyond_001_is_an_assumption():
    lines = builtin_path("board-updown").read_text(encoding="utf-8").splitlines()
    rows = pack("board-updown").data["rows"]
    assert rows["ordering"] == "either-direction" and rows["start"] == "lowest-in-hand"
    for key in ("ordering", "start"):
        assert "ASSUMPTION" in _comment_above(lines, key), key
    # the header quotes what 001 does say
    assert "suites décroissantes" in "\n".join(lines[:6])
