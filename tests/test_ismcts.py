"""ismcts: determinisations consistent with what a seat saw, the imagined players, the search."""
from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from enginehelpers import derived, pack
from lostcities.engine.bots import ismcts
from lostcities.engine.bots.base import BotError, GreedyBot, SeatView
from lostcities.engine.bots.registry import make_bot
from lostcities.engine.bots.expert import ExpertBot
from lostcities.engine.bots.ismcts import SearchParams
from lostcities.engine.bots.knowledge import Determinizer, SeatMemory, WatchedMemory
from lostcities.engine.lab.simulation import game_seed, play_match
from lostcities.engine.game.state import OVER
from lostcities.engine.game.tables import tables_of
from lostcities.engine.game.turn import illegal_reason, new_game, push, random_move
from lostcities.engine.game.view import observation


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
def test_the_imagined_players_reply_legally_as_the_expert_would(pack_id):
    """reply() is the expert (REPLY weights) seeing the state as the player to move."""
    from lostcities.engine.bots.expert import REPLY, Evaluation

    p = derived(pack_id, match={"rounds": 1, "continuation": False})
    checked = 0
    for seed in range(6):
        state = new_game(p, p.min_players, seed)
        rng = random.Random(seed)
        while state.phase != OVER:
            move = ismcts.reply(state)
            assert illegal_reason(state, move) is None, str(move)
            if checked % 5 == 0:
                seat = state.to_move
                ev = Evaluation(p, observation(state, seat), WatchedMemory(state, seat), REPLY)
                from lostcities.engine.game.turn import legal_moves
                assert move == ev.quick_best(legal_moves(state))
            checked += 1
            push(state, move if rng.random() < 0.8 else random_move(state, rng))
    assert checked > 100


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-six", "duel-grenoble", "board-classic"])
def test_shared_plans_change_no_value(pack_id):
    """One SharedPlans serves thousands of evaluations of a search: each evaluation's
    values must be exactly those it works out alone (plans are keyed by all they use).
    On a board a SharedPlans made without a board context is never used (a board's values
    hold for its context only: expert.BoardPlans keeps one per context, tested in
    test_shared_prospects.py): that none of its caches gains one entry proves it, so a
    board pack plays one seeded round (276 positions), a duel pack three."""
    from lostcities.engine.bots.expert import DUEL, OUTLOOK, REPLY, Evaluation, SharedPlans
    from lostcities.engine.game.turn import legal_moves

    p = pack(pack_id)
    shared = {params: SharedPlans(p, params) for params in (DUEL, REPLY, OUTLOOK)}
    checked = 0
    for seed in range(3 if p.board is None else 1):
        state = new_game(p, p.min_players, seed)
        rng = random.Random(seed)
        while state.phase != OVER and state.round == 1:
            seat = state.to_move
            legal = legal_moves(state)
            for params, plans in shared.items():
                def evaluation(cache):
                    return Evaluation(p, observation(state, seat), WatchedMemory(state, seat),
                                      params, cache)
                assert evaluation(plans).ranked(legal) == evaluation(None).ranked(legal)
                if params is OUTLOOK:
                    assert evaluation(plans).outlook() == evaluation(None).outlook()
            checked += 1
            push(state, random_move(state, rng))
    assert checked > 60
    if p.board is None:  # the caches did fill, so the equality above compared shared values
        assert all(len(plans.plans) > 100 for plans in shared.values())
    else:  # a board's values depend on the board: nothing shared, in any cache
        for plans in shared.values():
            caches = {name: cache for name, cache in vars(plans).items()
                      if isinstance(cache, dict)}
            assert "plans" in caches and not any(caches.values()) and plans.size() == 0, \
                {name: len(cache) for name, cache in caches.items()}


def test_shared_plans_refuse_another_pack_or_other_weights():
    from lostcities.engine.bots.expert import DUEL, REPLY, Evaluation, SharedPlans

    state = new_game(pack("duel-classic"), 2, 1)
    obs, memory = observation(state, 0), WatchedMemory(state, 0)
    with pytest.raises(ValueError, match="another pack or other weights"):
        Evaluation(state.pack, obs, memory, DUEL, SharedPlans(state.pack, REPLY))
    with pytest.raises(ValueError, match="another pack or other weights"):
        Evaluation(state.pack, obs, memory, DUEL, SharedPlans(pack("duel-six"), DUEL))


def test_the_watched_memory_knows_every_pile_and_counts_the_rest_unseen():
    p = pack("duel-grenoble")
    for state, _ in positions("duel-grenoble", 4, every=5):
        for seat in range(state.n):
            memory = WatchedMemory(state, seat)
            assert memory.piles == [list(pile) for pile in state.piles]
            assert memory.known == [[] for _ in range(state.n)] and memory.stalled == 0
            hidden = Counter(c for s in range(state.n) if s != seat for c in state.hands[s])
            hidden.update(state.deck)
            hidden.update(state.deal.removed)
            assert Counter({k: n for k, n in enumerate(memory.unseen()) if n}) == hidden
            assert sum(memory.unseen()) == len(tables_of(p).deck) - len(state.hands[seat]) - sum(
                len(r) for rows in state.rows for r in rows) - sum(len(x) for x in state.piles)


def test_the_outlook_is_the_score_when_no_turn_is_left():
    """With no turn left to a player, its outlook is what its rows score now."""
    from lostcities.engine.game.turn import live_scores

    checked = 0
    for seed in range(8):
        p = pack("duel-classic")
        state = new_game(p, 2, seed)
        rng = random.Random(seed)
        while len(state.deck) > 1:
            push(state, ismcts.reply(state) if rng.random() < 0.7 else random_move(state, rng))
        other = 1 - state.to_move          # one card left: only the player to move plays
        assert ismcts.outlook(state, other) == live_scores(state)[other]
        # the player to move still has a turn: its outlook counts what it may still play
        assert ismcts.outlook(state, state.to_move) >= live_scores(state)[state.to_move] - 1e-9
        checked += 1
    assert checked == 8


def test_a_search_is_reproducible_and_keeps_the_experts_move_without_evidence():
    state, memory = next(p for i, p in enumerate(positions("duel-classic", 8)) if i == 2)
    obs = observation(state, state.to_move)
    from lostcities.engine.game.turn import legal_moves

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
    from lostcities.engine.game.turn import legal_moves

    calls = []
    real = ismcts.lookahead

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(ismcts, "lookahead", counted)
    ismcts.search(state.pack, obs, memory, legal_moves(state), random.Random(0),
                  SearchParams(iterations=500, seconds=0.0), ExpertBot())
    assert len(calls) == SearchParams().candidates  # one pass over the candidates, no more
    calls.clear()
    ismcts.search(state.pack, obs, memory, legal_moves(state), random.Random(0),
                  SearchParams(iterations=20, drop=math.inf), ExpertBot())
    assert len(calls) == 20 * SearchParams().candidates   # no racing: every candidate


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
    quick = SearchParams(iterations=6)
    runs = [play_match(p, [ismcts.ISMCTSBot(params=quick), ExpertBot()], 6) for _ in range(2)]
    assert runs[0].snapshot() == runs[1].snapshot()
    three = derived("duel-grenoble", match={"rounds": 1})
    play_match(three, [ismcts.ISMCTSBot(params=quick), GreedyBot(), GreedyBot()], 2)


@pytest.mark.parametrize("pack_id", ["duel-basic", "duel-six", "duel-equal"])
def test_every_duel_pack_a_legal_round_that_ends_by_the_draw_pile(pack_id):
    """Every move checked by play_match; no stalling to the turn cap."""
    p = derived(pack_id, match={"rounds": 1, "continuation": False})
    bots = [ismcts.ISMCTSBot(params=SearchParams(iterations=4)) for _ in range(p.min_players)]
    state = play_match(p, bots, game_seed(12, len(pack_id)))
    assert state.phase == OVER and state.finished[0].end == "draw-pile-empty"


def test_it_searches_every_choice_but_steps_aside_when_stalling(monkeypatch):
    searched, stalled = [], []
    real_search, real_decide = ismcts.search, ExpertBot.decide

    def watched(pack_, obs, memory, legal, *args):
        searched.append(len(legal))
        return real_search(pack_, obs, memory, legal, *args)

    def decide(self, view, memory):
        stalled.append(memory.stalled)
        return real_decide(self, view, memory)

    monkeypatch.setattr(ismcts, "search", watched)
    p = derived("duel-classic", match={"rounds": 1})
    bot = ismcts.ISMCTSBot(params=SearchParams(iterations=6))
    monkeypatch.setattr(ExpertBot, "decide", decide)
    play_match(p, [bot, GreedyBot()], 9)
    assert len(searched) > 15 and min(searched) > 1
    assert all(s >= ismcts.STALL_GUARD for s in stalled)   # the expert decides only then
    # a seat whose draw pile has not shrunk for STALL_GUARD of its turns gets the expert's move
    state, memory = next(positions("duel-classic", 2))
    view = SeatView(state, state.to_move, random.Random(0))
    bot = ismcts.ISMCTSBot(1)
    bot.expert._memories[state.to_move] = memory
    memory.observe = lambda obs: None
    memory.stalled = ismcts.STALL_GUARD
    searched.clear()
    stalled.clear()
    bot.choose(view)
    assert not searched and stalled == [ismcts.STALL_GUARD]
