"""The expert against ``opener`` (tests/bots_opener.py), the rule-based bot that opens every
colour and takes every discard that fits its rows (issue #15): it must not feed it."""
from __future__ import annotations

import random
from dataclasses import replace

from bots_opener import OpenerBot
from enginehelpers import pack
from lostcities.engine import SeatView, game_seed, make_bot, new_game, play_match, push, totals
from lostcities.engine.bots.expert import DUEL, Evaluation
from lostcities.engine.bots.knowledge import SeatMemory
from lostcities.engine.game.tables import tables_of


def test_opener_opens_every_colour_it_can_and_takes_a_discard_that_fits():
    p = pack("duel-six")
    codec = p.cards
    state = new_game(p, seed=3)
    bot = OpenerBot()
    for _ in range(40):
        view = SeatView(state, state.to_move, random.Random(0))
        move = bot.choose(view)
        legal = view.legal_moves
        assert move in legal
        plays = [m for m in legal if m.action == "play"]
        if plays:  # it plays whenever a card fits, the lowest (a wager first)
            assert move.action == "play"
            assert codec.sort_key(move.card)[1] == min(codec.sort_key(m.card)[1] for m in plays)
        push(state, move)
        if state.finished:
            break


def test_the_expert_beats_opener_on_seeded_duel_six_and_duel_classic():
    for pack_id in ("duel-six", "duel-classic"):
        p = pack(pack_id)
        wins = 0.0
        for i in range(4):
            for seat in (0, 1):
                bots = [OpenerBot(), OpenerBot()]
                bots[seat] = make_bot("expert")
                scores = totals(play_match(p, bots, game_seed(15, i)))
                wins += (scores[seat] > scores[1 - seat]) + 0.5 * (scores[seat] == scores[1 - seat])
        assert wins >= 6, (pack_id, wins)  # of 8: the benchmark measures it over thousands


def test_a_wager_or_a_card_of_an_unopened_colour_on_a_pile_counts_for_the_opponent():
    """Leaving a wager where an opponent's row still takes wagers, or a high card of a
    colour an opponent that opens every colour has not opened yet, costs the move more
    than leaving nothing there (before, wagers never fitted and an unopened colour only
    counted a card that scored at once)."""
    p = pack("duel-classic")
    c = p.cards
    state = new_game(p, seed=2)
    seat = state.to_move
    opponent = 1 - seat
    obs = SeatView(state, seat, random.Random(0)).observation
    colours = len(obs.rows[opponent])
    # the opponent opened every colour but the last with a wager
    rows = [(c.card(k, None),) if k < colours - 1 else () for k in range(colours)]
    obs = replace(obs, rows=tuple(obs.rows[s] if s != opponent else tuple(rows)
                                  for s in range(len(obs.rows))))
    memory = SeatMemory(tables_of(p), seat)
    memory.observe(obs)
    ev = Evaluation(p, obs, memory, DUEL)
    empty = [None] * len(obs.pile_tops)
    deck = obs.draw_pile
    nothing = ev.opponents(empty, deck)
    wager = list(empty)
    wager[0] = c.card(0, None)
    assert ev.opponents(wager, deck) > nothing
    high = list(empty)
    high[colours - 1] = c.card(colours - 1, 10)
    assert ev.opponents(high, deck) > nothing
