"""``moves`` on a board pack (and wherever the numbered list would not fit): the legal moves
grouped by card, one card a line, each number still playing its move, and the whole list
never over one 24-line screen (with its title and the prompt), at 80 columns and at 60."""
from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings, strategies as st

from enginehelpers import builtin_ids
from lostcities.cli.render import MOVE_LIST_LINES, move_list, moves_by_card
from lostcities.engine import apply, is_over, legal_moves, load_pack, new_game
from lostcities.i18n import LANGS, Catalogue
from test_play_render import text_of

BOARD_PACKS = [p for p in builtin_ids() if load_pack(p).family == "board"]
#: a line of a card: its chip, then per action ``p``/``d`` and its choices
CARD_LINE = re.compile(r"^  \[(\w+)\]\s+")
RANGE = re.compile(r"(?<![\w=-])(\d+)(?:-(\d+))?(?![\w-])")


def positions(pack_id: str, seed: int, players: int, every: int = 3):
    """States of a seeded random match, every few turns."""
    pack = load_pack(pack_id)
    state = new_game(pack, [f"P{i}" for i in range(players)], seed)
    rng = random.Random(seed)
    turn = 0
    while not is_over(state) and turn < 400:
        if turn % every == 0:
            yield state
        state = apply(state, rng.choice(legal_moves(state)))
        turn += 1


def numbers_of(lines: list[str]) -> list[int]:
    """Every move number the card lines name (a range N-M names N to M)."""
    out = []
    for line in lines:
        for low, high in RANGE.findall(line.split("]", 1)[-1] if "[" in line else line):
            out += range(int(low), int(high or low) + 1)
    return out


@pytest.mark.parametrize("pack_id", BOARD_PACKS)
@pytest.mark.parametrize("width", [80, 60])
def test_every_board_position_lists_its_moves_by_card_on_one_screen(pack_id: str,
                                                                    width: int) -> None:
    worst = 0
    for seed in range(4):
        for state in positions(pack_id, seed, 2 + seed % 3):
            moves = legal_moves(state)
            for lang in LANGS:
                lines = moves_by_card(moves, Catalogue(lang), width)
                worst = max(worst, len(moves))
                assert len(lines) <= MOVE_LIST_LINES, (len(moves), lines)
                assert all(len(line) <= width for line in lines), lines
                assert sorted(numbers_of([ln for ln in lines if CARD_LINE.match(ln)
                                          or ln.startswith("   ")])) == \
                    list(range(1, len(moves) + 1)), lines
                cards = [CARD_LINE.match(ln).group(1) for ln in lines if CARD_LINE.match(ln)]
                assert len(cards) == len(set(cards)) == len({m.card for m in moves})
    assert worst > 60  # positions with many step choices were seen


def test_a_range_plays_one_choice_with_each_draw_in_turn() -> None:
    """``p 1-4 step=y`` is that play with the draws the legend names, in that order."""
    for state in positions("board-classic", 5, 2, every=1):
        moves = legal_moves(state)
        if not any(m.steps for m in moves):
            continue
        lines = moves_by_card(moves, Catalogue("en"), 80)
        draws = lines[0].rsplit(": ", 1)[1].rstrip(".").split(", ")
        for line in lines[1:]:
            for low, high, rest in re.findall(r"(\d+)-(\d+) ((?:step=\w+ ?|pawn=\d+ ?)*)",
                                              line):
                span = moves[int(low) - 1:int(high)]
                texts = [m.text() for m in span]
                if "(" in line.split(f"{low}-{high}", 1)[1][:2]:
                    continue  # its own draws are given after it
                assert [t.split(" ")[-1] for t in texts] == draws[:len(texts)], (line, texts)
                assert all(" ".join(t.split(" ")[2:-1]) == rest.strip() for t in texts)
        return
    raise AssertionError("no position with step choices")


def test_the_duel_keeps_its_numbered_columns_when_they_fit() -> None:
    state = new_game(load_pack("duel-classic"), ["A", "B"], 1)
    out = text_of(move_list(legal_moves(state), Catalogue("en")))
    assert re.search(r"(^|\s)1\s+p \w+ deck", out) and "[" not in out


@settings(max_examples=40, deadline=None)
@given(count=st.integers(1, 400), width=st.integers(40, 200))
def test_any_number_of_moves_stays_on_one_screen(count: int, width: int) -> None:
    """However many moves a house pack gives (a long hand, many piles), at any width."""
    state = next(positions("board-classic" if count % 2 else "duel-classic", count % 7, 2))
    moves = (legal_moves(state) * (count // len(legal_moves(state)) + 1))[:count]
    lines = text_of(move_list(moves, Catalogue("fr"), width), width=width).splitlines()
    assert len(lines) <= MOVE_LIST_LINES
