"""ismcts: determinisations consistent with what a seat saw, the rollout policy, the search."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from enginehelpers import derived, pack
from lostcities.engine import ismcts
from lostcities.engine.bots import BotError, GreedyBot, SeatView, make_bot
from lostcities.engine.expert import ExpertBot
from lostcities.engine.ismcts import SearchParams, rollout_move
from lostcities.engine.knowledge import Determinizer, SeatMemory
from lostcities.engine.simulation import game_seed, play_match
from lostcities.engine.state import OVER
from lostcities.engine.tables import tables_of
from lostcities.engine.turn import illegal_reason, new_game, push, random_move
from lostcities.engine.view import observation


def positions(pack_id: str, seed: int, every: int = 7):
    """Positions of a greedy match, each with the memory the seat to move built up."""
    p = pack(pack_id)
    state = new_game(p, p.min_players, seed)
    rng = random.Random(seed)
    memories = [SeatMemory(tables_of(p), s) for s in range(state.n)]
    step = 0
    while state.phase != OVER and state.round == 1:
        seat = state.to_move
        memory = memories[seat]
        memory.observe(observation(state, seat))
        move = GreedyBot().choose(SeatView(state, seat, rng))
        if step % every == 0:
            yield state, memory
        memory.played(move)
        push(state, move)
        step += 1


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-equal", "board-classic"])
def test_a_determinisation_shows_the_seat_what_it_saw_and_deals_the_rest(pack_id):
    checked = 0
    for state, memory in positions(pack_id, 3):
        seat = state.to_move
        obs = observation(state, seat)
        det = Determinizer(state.pack, obs, memory)
        for k in range(3):
            guess = det.deal(random.Random(k))
            seen = observation(guess, seat)
            for field in ("hand", "hand_sizes", "rows", "pile_tops", "pile_sizes", "draw_pile",
                          "to_move", "turn", "phase", "board"):
                assert getattr(seen, field) == getattr(obs, field), field
            # the cards it could not see are exactly the ones it counts as unseen
            hidden = Counter(c for s in range(state.n) if s != seat for c in guess.hands[s])
            hidden.update(guess.deck)
            hidden.update(guess.deal.removed)
            for pile in guess.piles:
                hidden.update(pile[:-1])
            for s, cards in enumerate(memory.known):
                for card in cards:
                    assert card in guess.hands[s]
            for pile in memory.piles:
                for card in pile[:-1]:
                    if card is not None:
                        hidden[card] -= 1
            for cards in memory.known:
                hidden.subtract(cards)
            unseen = Counter({k: n for k, n in enumerate(memory.unseen()) if n})
            assert +hidden == unseen
            # and the engine plays on from it
            push(guess, random_move(guess, random.Random(k)))
            checked += 1
    assert checked > 10


def test_determinisations_differ_but_repeat_with_the_seed():
    state, memory = next(p for i, p in enumerate(positions("duel-classic", 5)) if i == 3)
    det = Determinizer(state.pack, observation(state, state.to_move), memory)
    a, b, c = det.deal(random.Random(1)), det.deal(random.Random(1)), det.deal(random.Random(2))
    assert a.snapshot() == b.snapshot()
    assert a.deck != c.deck


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-equal", "duel-grenoble"])
def test_the_rollout_policy_always_plays_legal_moves(pack_id):
    p = derived(pack_id, match={"rounds": 1, "continuation": False})
    for seed in range(15):
        state = new_game(p, p.min_players, seed)
        rng = random.Random(seed)
        while state.phase != OVER:
            move = rollout_move(state, rng) if rng.random() < 0.7 else random_move(state, rng)
            assert illegal_reason(state, move) is None, str(move)
            push(state, move)


def test_the_rollout_policy_beats_random():
    p = derived("duel-classic", match={"rounds": 1})

    class Rollout(GreedyBot):
        def choose(self, view):
            return rollout_move(view._state, view.rng)

    wins = 0
    for i in range(10):
        scores = play_match(p, [Rollout(), make_bot("random")], game_seed(1, i)).finished[0].scores
        wins += scores[0] > scores[1]
    assert wins >= 9


def test_a_search_is_reproducible_and_keeps_the_experts_move_without_evidence():
    state, memory = next(p for i, p in enumerate(positions("duel-classic", 8)) if i == 2)
    obs = observation(state, state.to_move)
    from lostcities.engine.turn import legal_moves

    legal = legal_moves(state)
    params = SearchParams(iterations=40)
    first = ismcts.search(state.pack, obs, memory, legal, random.Random(3), params, ExpertBot())
    again = ismcts.search(state.pack, obs, memory, legal, random.Random(3), params, ExpertBot())
    assert first == again and first in legal
    sure = SearchParams(iterations=40, confidence=1e9)
    expert = ExpertBot().decide(SeatView(state, state.to_move, random.Random(0)), memory)
    assert ismcts.search(state.pack, obs, memory, legal, random.Random(3), sure,
                         ExpertBot()) == expert


def test_the_time_limit_stops_the_search(monkeypatch):
    state, memory = next(positions("duel-classic", 2))
    obs = observation(state, state.to_move)
    from lostcities.engine.turn import legal_moves

    calls = []
    real = ismcts._iterate

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(ismcts, "_iterate", counted)
    ismcts.search(state.pack, obs, memory, legal_moves(state), random.Random(0),
                  SearchParams(iterations=500, seconds=0.0), ExpertBot())
    assert len(calls) == SearchParams().candidates  # one pass over the candidates, no more
    calls.clear()
    ismcts.search(state.pack, obs, memory, legal_moves(state), random.Random(0),
                  SearchParams(iterations=50), ExpertBot())
    assert len(calls) == 50


def test_levels_and_their_errors():
    assert make_bot("ismcts").params.iterations == ismcts.LEVELS[ismcts.DEFAULT_LEVEL]
    assert make_bot("ismcts@1").params.iterations == ismcts.LEVELS[1]
    assert make_bot("ismcts", level=5).params.iterations == ismcts.LEVELS[5]
    assert sorted(ismcts.LEVELS) == [1, 2, 3, 4, 5]
    assert [ismcts.LEVELS[k] for k in range(1, 6)] == sorted(ismcts.LEVELS.values())
    with pytest.raises(BotError, match="ismcts level must be one of 1, 2, 3, 4, 5, not 9"):
        make_bot("ismcts@9")
    with pytest.raises(BotError, match="bot 'greedy' has no levels"):
        make_bot("greedy@2")
    with pytest.raises(BotError, match="write a level as a whole number"):
        make_bot("ismcts@high")


def test_it_plays_whole_matches_legally_and_reproducibly():
    p = derived("duel-equal", match={"rounds": 1, "continuation": False})
    runs = [play_match(p, [make_bot("ismcts@1"), ExpertBot()], 6) for _ in range(2)]
    assert runs[0].snapshot() == runs[1].snapshot()
    three = derived("duel-grenoble", match={"rounds": 1})
    play_match(three, [make_bot("ismcts@1"), GreedyBot(), GreedyBot()], 2)


def test_on_a_board_it_plays_the_experts_moves():
    p = derived("board-classic", match={"rounds": 1})
    a = play_match(p, [make_bot("ismcts"), GreedyBot()], 4, ["a", "b"])
    b = play_match(p, [ExpertBot(), GreedyBot()], 4, ["a", "b"])
    assert a.snapshot() == b.snapshot()


def test_it_searches_only_once_the_draw_pile_is_short(monkeypatch):
    piles = []
    real = ismcts.search

    def watched(pack_, obs, *args):
        piles.append(obs.draw_pile)
        return real(pack_, obs, *args)

    monkeypatch.setattr(ismcts, "search", watched)
    p = derived("duel-classic", match={"rounds": 1})
    play_match(p, [make_bot("ismcts@1"), ExpertBot()], 9)
    horizon = SearchParams().horizon
    assert piles and max(piles) <= horizon and min(piles) <= 2
