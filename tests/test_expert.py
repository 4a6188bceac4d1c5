"""The expert bot and the seat memory it counts cards with."""
from __future__ import annotations

import random

import pytest

from enginehelpers import complete_deal, derived, duel_ids, pack
from lostcities.engine.bots.base import GreedyBot, RandomBot, SeatView
from lostcities.engine.bots.registry import make_bot
from lostcities.engine.bots.expert import BOARD, DUEL, Evaluation, ExpertBot
from lostcities.engine.bots.knowledge import SeatMemory
from lostcities.engine.game.moves import DISCARD, PLAY, Move
from lostcities.engine.lab.simulation import game_seed, play_match
from lostcities.engine.game.tables import tables_of
from lostcities.engine.game.turn import new_game, push, totals, winners


class Spy(ExpertBot):
    """The expert, checking its memory against the real state (which it never reads)."""

    checked = 0

    def choose(self, view):
        memory = self.memory(view)
        state = view._state
        for mine, real in zip(memory.piles, state.piles):
            assert len(mine) == len(real)
            assert all(c is None or c == r for c, r in zip(mine, real))
        for seat, cards in enumerate(memory.known):
            for card in cards:
                assert cards.count(card) <= state.hands[seat].count(card)
        if state.n == 2:  # one opponent turn between two observations: nothing unknown
            assert all(None not in pile for pile in memory.piles)
        unseen = memory.unseen()
        hidden = [c for s in range(state.n) if s != view.seat for c in state.hands[s]] \
            + state.deck + list(state.deal.removed)
        for seat, cards in enumerate(memory.known):
            for card in cards:
                hidden.remove(card)
        assert sorted(k for k, n in enumerate(unseen) for _ in range(n)) == sorted(hidden)
        Spy.checked += 1
        move = self.decide(view, memory)
        memory.played(move)
        return move


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-equal", "board-classic"])
def test_the_memory_rebuilds_piles_and_cards_seen_taken_exactly(pack_id):
    Spy.checked = 0
    for seed in range(3):
        play_match(pack(pack_id), [Spy(), GreedyBot()] if seed % 2 else [GreedyBot(), Spy()],
                   seed)
    assert Spy.checked > 100


def test_the_memory_restarts_for_a_new_match_so_a_reused_bot_plays_the_same():
    p = pack("duel-classic")
    reused = ExpertBot()
    play_match(p, [reused, GreedyBot()], 1)
    again = play_match(p, [reused, GreedyBot()], 2)
    fresh = play_match(p, [ExpertBot(), GreedyBot()], 2)
    assert again.snapshot() == fresh.snapshot()
    # one object at both seats keeps one memory per seat
    shared = ExpertBot()
    both = play_match(p, [shared, shared], 3)
    assert both.snapshot() == play_match(p, [ExpertBot(), ExpertBot()], 3).snapshot()


def test_the_memory_counts_only_the_tops_when_it_joins_mid_round():
    p = pack("duel-classic")
    state = new_game(p, 2, 5)
    rng = random.Random(0)
    for _ in range(12):
        push(state, GreedyBot().choose(SeatView(state, state.to_move, rng)))
    memory = SeatMemory(tables_of(p), state.to_move)
    view = SeatView(state, state.to_move, rng)
    memory.observe(view.observation)
    assert [len(m) for m in memory.piles] == [len(r) for r in state.piles]
    assert [m[-1] if m else None for m in memory.piles] == [r[-1] if r else None
                                                            for r in state.piles]
    assert all(c is None for m in memory.piles for c in m[:-1])
    assert sum(memory.unseen()) == 60 - len(view.observation.cards_seen())


def _view(p, hands, seed=0, top=""):
    state = new_game(p, 2, seed, deals=[complete_deal(p, hands, top)])
    return SeatView(state, 0, random.Random(0))


def test_it_opens_a_colour_only_when_the_packs_formula_says_it_pays():
    hands = ["r2 r3 r4 y2 b3 w4 g5 g6", "y10 b10 w10 g10 r10 y9 b9 w9"]
    move = ExpertBot().choose(_view(pack("duel-classic"), hands))
    assert move.action == DISCARD, str(move)
    cheap = derived("duel-classic", scoring={"constants": {"cost": 0}})
    move = ExpertBot().choose(_view(cheap, hands))
    assert move.action == PLAY, str(move)


def test_it_wagers_early_on_a_strong_colour_not_on_a_weak_one():
    strong = ["rx r6 r7 r8 r9 r10 y2 b3", "y10 b10 w10 g10 y9 b9 w9 g9"]
    ranked = dict((str(m), v) for v, m in
                  Evaluation(pack("duel-classic"), _view(pack("duel-classic"), strong).observation,
                             _memory(pack("duel-classic"), strong), DUEL)
                  .ranked(_view(pack("duel-classic"), strong).legal_moves))
    assert max(ranked, key=ranked.get) == "p rx deck"
    weak = ["rx r2 r3 y4 b5 w6 g7 y8", "y10 b10 w10 g10 y9 b9 w9 g9"]
    move = ExpertBot().choose(_view(pack("duel-classic"), weak))
    assert str(move) != "p rx deck"


def _memory(p, hands):
    view = _view(p, hands)
    memory = SeatMemory(tables_of(p), 0)
    memory.observe(view.observation)
    return memory


def test_it_does_not_feed_an_opponents_row():
    p = derived("duel-classic", match={"first_starter": 1})
    hands = ["y2 y3 y4 b2 w2 w3 g2 r9", "r4 r5 y10 b10 w10 g10 b9 w9"]
    state = new_game(p, 2, 0, deals=[complete_deal(p, hands)])
    push(state, Move.parse("p r4 deck", p))  # the opponent starts red
    move = ExpertBot().choose(SeatView(state, 0, random.Random(0)))
    assert not (move.action == DISCARD and p.cards.format(move.card) == "r9"), str(move)


def test_two_experts_never_stall_a_round_to_the_turn_cap():
    p = pack("duel-classic")
    for seed in range(3):
        state = play_match(p, [ExpertBot(), ExpertBot()], game_seed(11, seed))
        assert all(r.end != "turn-cap" for r in state.finished)
        assert all(len(r.moves) < 120 for r in state.finished)


def test_it_plays_every_pack_at_every_table_size():
    for pid in duel_ids() + ["board-classic", "board-short"]:
        p = derived(pid, match={"rounds": 1, "continuation": False})
        for n in range(p.min_players, p.max_players + 1):
            state = play_match(p, [ExpertBot()] + [GreedyBot()] * (n - 1), game_seed(3, n))
            assert len(totals(state)) == n


def test_it_beats_greedy_and_random_on_seeded_duels():
    p = pack("duel-classic")
    wins = {"greedy": 0, "random": 0}
    for name, games in (("greedy", 12), ("random", 3)):
        for i in range(games):
            seed = game_seed(2024, i)
            for seat in (0, 1):
                bots = [make_bot(name), make_bot(name)]
                bots[seat] = ExpertBot()
                scores = totals(play_match(p, bots, seed))
                wins[name] += scores[seat] > scores[1 - seat]
    assert wins["random"] == 6
    assert wins["greedy"] >= 19  # of 24: the benchmark measures it over thousands


def test_it_beats_greedy_on_the_board_at_two_and_four_players():
    # a win is the rules' (winners: equal totals go to the most artefacts, 001), which the
    # expert plays for when it ends a match
    p = derived("board-classic", match={"rounds": 1})
    wins = 0
    for i in range(6):
        for seat in (0, 1):
            bots: list = [GreedyBot(), GreedyBot()]
            bots[seat] = ExpertBot()
            wins += winners(play_match(p, bots, game_seed(7, i))) == (seat,)
    # of 12, where an equal player would win about 6: one-round matches are close (over
    # these seeds' first 60 it wins 34-36, whether advances are forced or may be declined)
    assert wins >= 7
    wins = 0
    for i in range(3):
        for seat in range(4):
            bots = [GreedyBot() for _ in range(4)]
            bots[seat] = ExpertBot()
            wins += winners(play_match(p, bots, game_seed(8, i))) == (seat,)
    assert wins >= 6  # of 12, where an equal player would win about 3


def test_board_weights_differ_where_the_board_needs_it():
    assert BOARD.play_bias > DUEL.play_bias and BOARD.open_margin < DUEL.open_margin
    assert RandomBot.name == "random"
