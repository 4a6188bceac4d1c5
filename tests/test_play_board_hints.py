"""``hint`` in ``lc play`` on every board pack, over many seeded positions: the move it
suggests is always one of the legal moves of the position (so never a card that cannot be
played, a pawn that cannot go, a step that cannot be taken), whoever is to move, hotseat or
against bots, in the middle of a typed turn too.

(Issue 30 asked whether it could: 8,283 hints over 40 seeds of each board pack, played at
random, found none that was not legal; this keeps a smaller sweep of them in the suite.)"""
from __future__ import annotations

import random

import pytest

from enginehelpers import builtin_ids
from lostcities.cli.session import Session, parse_players
from lostcities.engine import legal_moves, load_pack

BOARD_PACKS = [p for p in builtin_ids() if load_pack(p).family == "board"]


@pytest.mark.parametrize("pack_id", BOARD_PACKS)
def test_a_hint_is_always_a_legal_move_of_the_position(pack_id: str) -> None:
    pack = load_pack(pack_id)
    hints = plays = 0
    for seed in range(4):
        players = 2 + seed % 3
        seats = (["human"] + ["bot:greedy"] * (players - 1)) if seed % 2 else \
            [f"human:P{i}" for i in range(players)]
        game = Session(pack, parse_players(",".join(seats), pack), seed=seed)
        rng = random.Random(seed)
        while game.to_move is not None:
            if game.to_move.kind == "bot":
                game.play_bot()
                continue
            legal = legal_moves(game.state)
            if rng.random() < 0.5:
                if rng.random() < 0.3:  # a turn being typed: the hint is the position's
                    game.command(f"p {pack.cards.format(rng.choice(legal).card)}")
                reply = game.command("hint")
                assert reply.kind == "info", reply
                hinted = reply.notes[0].params["move"]
                assert hinted in [m.text() for m in legal], (pack_id, seed, hinted)
                hints += 1
                plays += hinted.startswith("p ")
            game.command(rng.choice(legal).text())
    assert hints > 100 and plays > 10
