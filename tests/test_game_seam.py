"""The seam between the card game and the board game (issue #15): the card game's turn steps
are one public module, engine/game/steps.py, that the turn engine and the board game both
build on; the board game does not import the turn engine, the steps import neither, and the
turn engine imports the board game only to hand it a board pack's phases.

Read from the sources with :mod:`ast` (imports inside functions too); the steps' behaviour is
covered by the seeded move digests (tests/test_seeded_digests.py) and the board tests.
"""
from __future__ import annotations

import ast
import random
from pathlib import Path

from lostcities.engine import load_pack, new_game, playout
from lostcities.engine.game import board, steps, turn

GAME = Path(__file__).resolve().parent.parent / "engine" / "game"


def imported(module: str) -> set[tuple[str, str]]:
    """(module imported from, relative to engine/game, name) of each import in the file."""
    tree = ast.parse((GAME / f"{module}.py").read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out.update((node.module or "", alias.name) for alias in node.names)
    return out


def test_the_board_game_builds_on_the_steps_and_not_on_the_turn_engine():
    found = imported("board")
    assert ("", "steps") in found
    assert not any(mod == "turn" or name == "turn" for mod, name in found)


def test_the_steps_import_neither_the_turn_engine_nor_the_board_game():
    found = imported("steps")
    assert not any(mod in ("turn", "board") or name in ("turn", "board") for mod, name in found)


def test_the_turn_engine_takes_the_board_game_as_a_whole_and_no_private_step():
    found = imported("turn")
    assert ("", "board") in found  # the board pack's phases, handed to it
    assert not any(name.startswith("_") for _, name in found)


def test_the_turn_engine_and_the_board_game_share_the_same_steps():
    for name in ("decide_card", "decide_draw", "card_options", "draw_sources", "pop", "totals",
                 "kept", "shuffle_deal", "check_deal", "next_starter"):
        assert getattr(steps, name).__doc__, name
    assert turn.pop is steps.pop and turn.totals is steps.totals
    assert turn.shuffle_deal is steps.shuffle_deal and turn.check_deal is steps.check_deal
    assert board.card_steps is steps


def test_a_board_match_deals_scores_and_continues_through_the_steps():
    state = playout(new_game(load_pack("board-classic"), 2, 7), random.Random(7))
    assert len(state.finished) == state.rounds_total
    for result in state.finished:  # scored with the board's pawns, tokens and artefacts
        assert len(result.pawns) == 2 and len(result.tokens) == 2 and len(result.artefacts) == 2
    assert turn.totals(state) == steps.totals(state)


def test_the_fast_shuffle_is_random_shuffle_for_any_deck_size_and_its_cache_stays_bounded():
    """steps.shuffle inlines randrange for a plain Random and keeps each deck size's swaps:
    the same order as ``random.shuffle`` for every size, and at most 64 sizes kept."""
    import random

    from lostcities.engine.game import steps

    for size in range(0, 150):
        ours, theirs = list(range(size)), list(range(size))
        steps.shuffle(random.Random(size), ours)
        random.Random(size).shuffle(theirs)
        assert ours == theirs, size
    assert len(steps._SWAPS) <= 64
