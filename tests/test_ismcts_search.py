"""ismcts's search: racing, board packs, its time budget, and that it sees only the bot's view."""
from __future__ import annotations

import math
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enginehelpers import derived, pack
from lostcities.engine.bots import ismcts
from lostcities.engine.bots.base import GreedyBot, SeatView
from lostcities.engine.bots.registry import make_bot
from lostcities.engine.bots.expert import ExpertBot
from lostcities.engine.bots.ismcts import SearchParams
from lostcities.engine.bots.knowledge import Determinizer, SeatMemory
from lostcities.engine.game.state import OVER
from lostcities.engine.game.tables import tables_of
from lostcities.engine.game.turn import legal_actions, legal_moves, push, with_hidden
from lostcities.engine.game.view import observation
from lostcities.engine.lab.simulation import play_match

QUICK = SearchParams(iterations=4, warmup=2)


def greedy_positions(pack_id: str, seed: int, every: int = 5, players: int = 2):
    """Positions of a greedy match (round 1) where the seat to move has a choice, with
    the memory that seat built up."""
    p = pack(pack_id)
    from lostcities.engine.game.turn import new_game

    state = new_game(p, players, seed)
    rng = random.Random(seed)
    memories = [SeatMemory(tables_of(p), s) for s in range(state.n)]
    step = 0
    while state.phase != OVER and state.round == 1:
        seat = state.to_move
        memory = memories[seat]
        memory.observe(observation(state, seat))
        move = GreedyBot().choose(SeatView(state, seat, rng))
        if step % every == 0 and len(legal_moves(state)) > 1:
            yield state.copy(), memory
        memory.played(move)
        push(state, move)
        step += 1


def counting(monkeypatch) -> list[int]:
    """Count the lookaheads the search plays (one per candidate and pass)."""
    calls: list[int] = []
    real = ismcts.lookahead

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(ismcts, "lookahead", counted)
    return calls


# ---------------------------------------------------------------------------- racing


def test_racing_drops_trailing_candidates_and_keeps_the_passes_seeded(monkeypatch):
    """The same deals with and without racing; racing plays fewer lookaheads, and a
    search is the same move every time from the same seed."""
    calls = counting(monkeypatch)
    raced = full = 0
    for state, memory in list(greedy_positions("duel-classic", 8, every=9))[:4]:
        obs = observation(state, state.to_move)
        legal = legal_moves(state)
        moves = []
        for params in (SearchParams(iterations=16), SearchParams(iterations=16, drop=math.inf)):
            calls.clear()
            moves.append(ismcts.search(state.pack, obs, memory, legal, random.Random(5), params,
                                       ExpertBot()))
            if params.drop == math.inf:
                full += len(calls)
            else:
                raced += len(calls)
        assert all(m in legal for m in moves)
        again = ismcts.search(state.pack, obs, memory, legal, random.Random(5),
                              SearchParams(iterations=16), ExpertBot())
        assert again == moves[0]
    assert full == 4 * 16 * SearchParams().candidates
    assert raced < full


def test_the_error_helpers():
    assert ismcts.mean_and_error(0.0, 0.0, 0) == (0.0, 0.0)
    mean, error = ismcts.mean_and_error(6.0, 14.0, 3)   # values 1, 2, 3
    assert mean == 2.0 and math.isclose(error, math.sqrt((14 / 3 - 4) / 2))
    assert ismcts.upper(6.0, 14.0, 3, math.inf) == math.inf
    assert math.isclose(ismcts.upper(6.0, 14.0, 3, 2.0), 2.0 + 2 * error)


# ---------------------------------------------------------------------------- time budget


def test_a_time_limit_stops_after_one_pass_and_passes_bound_the_rest(monkeypatch):
    calls = counting(monkeypatch)
    state, memory = next(greedy_positions("duel-classic", 2))
    obs = observation(state, state.to_move)
    k = len(ismcts.candidates(state.pack, obs, memory, legal_moves(state), ExpertBot(),
                              SearchParams().candidates))
    ismcts.search(state.pack, obs, memory, legal_moves(state), random.Random(0),
                  SearchParams(iterations=500, seconds=0.0), ExpertBot())
    assert len(calls) == k          # one pass over the candidates, no more
    calls.clear()
    ismcts.search(state.pack, obs, memory, legal_moves(state), random.Random(0),
                  SearchParams(iterations=12), ExpertBot())
    assert k <= len(calls) <= 12 * k


def test_the_default_level_and_the_board_search():
    bot = make_bot("ismcts")
    assert bot.params == SearchParams(iterations=ismcts.LEVELS[ismcts.DEFAULT_LEVEL])
    assert bot.board_params == ismcts.BOARD_SEARCH
    assert make_bot("ismcts@4").board_params.iterations == ismcts.BOARD_LEVELS[4]
    assert [make_bot(f"ismcts@{k}").params.depth for k in range(1, 6)] == [2, 4, 4, 4, 4]
    assert sorted(ismcts.LEVEL_DEPTH) == sorted(ismcts.LEVELS)
    assert sorted(ismcts.BOARD_LEVELS) == sorted(ismcts.LEVELS)
    assert [ismcts.BOARD_LEVELS[k] for k in range(1, 6)] == sorted(ismcts.BOARD_LEVELS.values())


# ---------------------------------------------------------------------------- board packs


def test_a_board_deal_takes_the_engines_moves_as_the_real_position_does():
    """The seat's own moves depend on its hand and the public board only: the same in
    every deal, as the Determinizer deals it (the board's card phase, not the card
    game's); the search's deal plays the match's rounds."""
    checked = 0
    for state, memory in greedy_positions("board-classic", 3, every=6):
        obs = observation(state, state.to_move)
        deal = Determinizer(state.pack, obs, memory).deal(random.Random(checked))
        assert deal.phase == state.phase and legal_actions(deal) == legal_actions(state)
        assert legal_moves(deal) == legal_moves(state)
        ismcts.board_deal(deal, obs)
        assert deal.rounds_total == obs.rounds
        move = legal_moves(deal)[-1]
        push(deal, move)           # and the engine plays on from it
        checked += 1
    assert checked >= 5


def test_on_a_board_it_searches_and_sometimes_differs_from_the_expert(monkeypatch):
    calls = counting(monkeypatch)
    params = SearchParams(iterations=10, candidates=3, depth=2, warmup=4)
    differ = searched = 0
    for state, memory in list(greedy_positions("board-classic", 4, every=4))[:10]:
        seat = state.to_move
        obs = observation(state, seat)
        legal = legal_moves(state)
        calls.clear()
        move = ismcts.search(state.pack, obs, memory, legal, random.Random(1), params,
                             ExpertBot())
        assert move in legal
        searched += len(calls) > 0
        expert = ExpertBot().decide(SeatView(state, seat, random.Random(0)), memory)
        differ += move != expert
    assert searched >= 8       # a board decision with a choice is searched
    assert differ >= 1         # and the search does not merely echo the expert


def test_on_a_board_it_plays_legal_reproducible_matches():
    p = derived("board-classic", match={"rounds": 1})
    quick = SearchParams(iterations=3, candidates=2, depth=1, warmup=2)

    def bots():
        return [ismcts.ISMCTSBot(params=quick, board_params=quick), ExpertBot()]

    a, b = (play_match(p, bots(), 4, ["a", "b"]) for _ in range(2))
    assert a.phase == OVER and a.snapshot() == b.snapshot()


def test_the_board_as_it_stands_reads_as_the_expert_reads_a_moves_effects():
    """board_now (what the outlook values) gives, after a move, the terms the expert's own
    reading of that move gives (tracks, crossings left, distances, the free leader)."""
    from lostcities.engine.bots.expert import BOARD, Evaluation
    from lostcities.engine.bots.knowledge import WatchedMemory

    checked = 0
    for state, memory in greedy_positions("board-classic", 6, every=4):
        seat = state.to_move
        ev = Evaluation(state.pack, observation(state, seat), memory, BOARD)
        for move in legal_moves(state)[::7]:
            read = ev.board_after(move)
            after = state.copy()
            push(after, move)
            if after.round != state.round or after.phase == OVER:
                continue
            obs = observation(after, seat)
            now = ismcts.board_now(obs.board, obs)
            assert now.tracks == read.tracks and now.leader_free == read.leader_free
            assert now.crossings_left == read.crossings_left
            assert sorted(now.distances) == sorted(read.distances)
            value = ismcts.board_outlook(Evaluation(after.pack, obs, WatchedMemory(after, seat),
                                                    ismcts.BOARD_OUTLOOK), obs)
            assert math.isfinite(value)
            checked += 1
    assert checked > 20


# ---------------------------------------------------------------------------- no leak


def hidden_redealt(state, seat: int, rng: random.Random):
    """``state`` with every card ``seat`` cannot see dealt otherwise (same sizes)."""
    others = [s for s in range(state.n) if s != seat]
    pool = [c for s in others for c in state.hands[s]] + list(state.deck) \
        + list(state.deal.removed)
    rng.shuffle(pool)
    hands = [list(h) for h in state.hands]
    for s in others:
        hands[s], pool = pool[:len(hands[s])], pool[len(hands[s]):]
    deck, removed = pool[:len(state.deck)], pool[len(state.deck):]
    return with_hidden(state, hands=hands, draw_pile=deck, removed=removed)


POSITIONS = {pack_id: list(greedy_positions(pack_id, 11, every=6))
             for pack_id in ("duel-classic", "board-classic")}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pack_id=st.sampled_from(sorted(POSITIONS)), index=st.integers(0, 10_000),
       shuffle=st.integers(0, 2**32 - 1), seed=st.integers(0, 2**32 - 1))
def test_two_states_alike_in_the_bots_view_get_the_same_move(pack_id, index, shuffle, seed):
    """The search sees only the bot's view: other hands, the draw pile's order and the
    removed cards dealt otherwise change nothing."""
    state, _ = POSITIONS[pack_id][index % len(POSITIONS[pack_id])]
    seat = state.to_move
    other = hidden_redealt(state, seat, random.Random(shuffle))
    assert observation(other, seat) == observation(state, seat)
    moves = []
    for s in (state, other):
        bot = ismcts.ISMCTSBot(params=QUICK, board_params=QUICK)
        moves.append(bot.choose(SeatView(s, seat, random.Random(seed))))
    assert moves[0] == moves[1]
    assert moves[0] in legal_moves(state)
