"""The expert against ``opener`` (tests/bots_opener.py), the rule-based bot that opens every
colour and takes every discard that fits its rows (issue #15): it must not feed it."""
from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bots_opener import OpenerBot
from enginehelpers import complete_deal, pack
from lostcities.engine import (SeatView, game_seed, make_bot, new_game, play_match, push,
                               refusal, totals)
from lostcities.engine.bots.expert import DUEL, Evaluation, ExpertBot
from lostcities.engine.game.moves import DISCARD
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


@pytest.mark.parametrize("hand, fed", [
    ("yx y10 b3 b10 w3 g4 r3 r9", "yx"),   # a wager of a colour the opponent has not opened
    ("y5 b2 w6 g2 g7 g10 r3 r7", "b2"),    # a low card of such a colour
])
def test_a_card_the_opener_would_take_is_kept_once_the_opponent_opens_every_colour(hand, fed):
    """The first decision of a round, the opponent's rows all empty: the expert as it
    was (readiness never counted, ``ready_from=1``) discards ``fed``, which an opponent
    that opens every colour takes (it fits the empty row); once the expert's memory says
    that opponent opened every colour last round, it keeps it (plays or discards another
    card), because the card is worth to that opponent what it adds to the row it builds."""
    p = pack("duel-classic")
    c = p.cards
    state = new_game(p, deals=[complete_deal(p, [hand], players=2)])
    seat = state.to_move
    view = SeatView(state, seat, random.Random(0))
    obs = view.observation
    card = c.parse(fed)
    colour = c.colour_of[card]
    assert refusal(p, obs.rows[1 - seat][colour], card) is None  # the opener would take it
    memory = SeatMemory(tables_of(p), seat)
    memory.observe(obs)
    assert memory.opened_before == []  # a match's first round: nothing seen before
    before = replace(DUEL, ready_from=1.0)
    old = Evaluation(p, obs, memory, before).best(view.legal_moves)
    assert (old.action, old.card) == (DISCARD, card)
    memory.opened_before = [1.0, 1.0]  # every seat opened every colour last round
    ev = Evaluation(p, obs, memory, DUEL)
    assert ev.opponents_of.ready[1 - seat] == 1.0
    new = ev.best(view.legal_moves)
    assert (new.action, new.card) != (DISCARD, card)
    tops = list(obs.pile_tops)
    fed_tops = tops[:]
    fed_tops[colour] = card
    worth_now = ev.opponents(fed_tops, obs.draw_pile) - ev.opponents(tops, obs.draw_pile)
    old_ev = Evaluation(p, obs, memory, before)
    worth_before = (old_ev.opponents(fed_tops, obs.draw_pile)
                    - old_ev.opponents(tops, obs.draw_pile))
    assert worth_now > worth_before


class Remembering(ExpertBot):
    """The expert, keeping what its memory says of the last round at each decision."""

    def __init__(self):
        super().__init__()
        self.seen: list[tuple[int, list[float]]] = []

    def decide(self, view, memory):
        self.seen.append((view.observation.round, list(memory.opened_before)))
        return super().decide(view, memory)


def test_the_memory_keeps_how_many_colours_each_seat_opened_last_round():
    p = pack("duel-classic")
    bot = Remembering()
    for seed in (1, 2):  # the same object plays a second match: it starts afresh
        bot.seen.clear()
        play_match(p, [bot, OpenerBot()], game_seed(15, seed))
        rounds = {r for r, _ in bot.seen}
        assert rounds == {1, 2, 3}
        for r, before in bot.seen:
            if r == 1:
                assert before == []
            else:  # the opener opened (nearly) every colour; the expert some of its own
                assert len(before) == 2 and before[1] >= 0.8 and 0.0 <= before[0] <= 1.0
