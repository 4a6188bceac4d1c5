"""Hostile words in the move notation: only InvalidMoveError, and short messages."""
from __future__ import annotations

import pytest

from lostcities.engine import BotError, InvalidMoveError, Move, load_pack, make_bot


@pytest.mark.parametrize("word", ["pawn=²", "pawn=٣", "pawn=" + "9" * 5000, "pawn=-1", "pawn=1e3"])
def test_a_pawn_is_ascii_digits_only(word: str) -> None:
    """str.isdigit takes '²' (int() then fails) and '٣' (read as 3): both refused."""
    with pytest.raises(InvalidMoveError) as caught:
        Move.parse(f"p y3 {word} deck", load_pack("board-classic"))
    assert "a pawn is a number" in str(caught.value) and len(str(caught.value)) < 200


def test_a_pawn_number_still_reads() -> None:
    move = Move.parse("p y3 pawn=1 deck", load_pack("board-classic"))
    assert move.pawn == 1 and move.text() == "p y3 pawn=1 deck"


@pytest.mark.parametrize("text", ["p y" + "9" * 5000 + " deck", "p " + "q" * 5000 + " deck",
                                  "zz" * 3000 + " y3 deck", "p y3 " + "w" * 5000])
def test_long_words_are_quoted_cut(text: str) -> None:
    """An over-long word is quoted cut, with its length: the error stays one short line."""
    with pytest.raises(InvalidMoveError) as caught:
        Move.parse(text, load_pack("duel-classic"))
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300 and "chars)" in message


@pytest.mark.parametrize("spec", ["ismcts@²", "ismcts@٣", "ismcts@" + "9" * 5000, "ismcts@-1"])
def test_a_bot_level_is_ascii_digits_only(spec: str) -> None:
    with pytest.raises(BotError):
        make_bot(spec)
