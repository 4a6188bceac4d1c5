"""The opponents' prospects shared across a search (issue #15): each opponent colour's
likely use is worked out once per search and read again by every evaluation that asks
the same question, so a shared value must be exactly the value a fresh evaluation works
out, whatever positions the shared caches met before (the same floats, hence the same
moves): positions that differ only in an opponent's known cards, its chance of holding
an unseen card, how readily it opens colours or the colour's unseen cards included.

On a board pack the plans are shared per board context (the tiles left and their worth:
:class:`~lostcities.engine.bots.expert.BoardPlans`), across a bot's decisions and a search's
positions: the same values again, and positions alike but for the tiles left kept apart."""
from __future__ import annotations

import copy
import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enginehelpers import pack
from lostcities.engine import game_seed, play_match
from lostcities.engine.bots.base import GreedyBot, SeatView
from lostcities.engine.bots import expert
from lostcities.engine.bots.expert import (BOARD, DUEL, REPLY, BoardPlans, Evaluation, ExpertBot,
                                           RowScore, SharedPlans)
from lostcities.engine.bots.ismcts import (BOARD_OUTLOOK, BOARD_REPLY, BOARD_SEARCH, Models,
                                           SearchParams, board_deal, board_outlook, candidates,
                                           lookahead)
from lostcities.engine.bots.knowledge import Determinizer, SeatMemory, WatchedMemory
from lostcities.engine.game.state import OVER
from lostcities.engine.game.tables import tables_of
from lostcities.engine.game.turn import legal_moves, new_game, push, random_move
from lostcities.engine.game.view import observation


def walk(pack_id: str, players: int, seed: int, greedy: float = 0.7, every: int = 3):
    """Positions of a match played by greedy (now and then a random move), each with the
    memory the seat to move built up (the cards it saw opponents take from the piles)."""
    p = pack(pack_id)
    state = new_game(p, players, seed)
    rng = random.Random(seed)
    memories = [SeatMemory(tables_of(p), s) for s in range(players)]
    step = 0
    while state.phase != OVER and step < 400:
        seat = state.to_move
        memory = memories[seat]
        memory.observe(observation(state, seat))
        if rng.random() < greedy:
            move = GreedyBot().choose(SeatView(state, seat, rng))
        else:
            move = random_move(state, rng)
        if step % every == 0:
            yield state, seat, memory
        memory.played(move)
        push(state, move)
        step += 1


def same_values(p, state, seat, memory, shared: dict, rng: random.Random) -> None:
    """The shared evaluation's move values and opponent prospects are the fresh one's."""
    obs = observation(state, seat)
    legal = legal_moves(state)
    t = tables_of(p)
    for params, plans in shared.items():
        mine = Evaluation(p, obs, memory, params, plans)
        fresh = Evaluation(p, obs, memory, params)
        assert mine.ranked(legal) == fresh.ranked(legal)
        # other pile tops, draw piles and caps than the moves ask about
        for _ in range(3):
            tops = [rng.choice([None] + [k for k in set(t.deck) if t.colour_of[k] == c])
                    for c in t.colours]
            deck = rng.randint(0, obs.draw_pile)
            cap = rng.choice([None, 0, 1, 3])
            assert mine.opponents_of.total(tops, deck, cap) == \
                fresh.opponents_of.total(tops, deck, cap)


@pytest.mark.parametrize("pack_id,players", [("duel-classic", 2), ("duel-six", 2),
                                             ("duel-equal", 2), ("duel-grenoble", 3)])
def test_shared_prospects_are_the_values_of_a_fresh_evaluation(pack_id, players):
    p = pack(pack_id)
    shared = {params: SharedPlans(p, params) for params in (DUEL, REPLY)}
    rng = random.Random(7)
    positions = known = 0
    again = False
    for seed in (1, 2):
        for state, seat, memory in walk(pack_id, players, seed):
            same_values(p, state, seat, memory, shared, rng)
            positions += 1
            known += any(memory.known)
            if positions % 10 == 0:
                assert asked_again(p, state, seat, memory, shared)
                again = True
    assert positions > 60
    if players == 2:  # the opponents' known cards were part of the questions
        assert known > 5
    for plans in shared.values():
        assert plans.likely and plans.size() >= len(plans.likely)  # counted in the bound
    assert again


def asked_again(p, state, seat, memory, shared: dict) -> bool:
    """Whether the moves of a position valued again add no likely use to the shared caches
    (answered from the entries alone)."""
    before = [len(plans.likely) for plans in shared.values()]
    for params, plans in shared.items():
        Evaluation(p, observation(state, seat), memory, params, plans).ranked(legal_moves(state))
    return [len(plans.likely) for plans in shared.values()] == before


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pack_id=st.sampled_from(["duel-classic", "duel-grenoble"]),
       seed=st.integers(0, 10_000), greedy=st.floats(0.0, 1.0),
       every=st.integers(1, 9), order=st.randoms(use_true_random=False))
def test_shared_prospects_hold_for_any_positions_met_before(pack_id, seed, greedy, every,
                                                            order):
    p = pack(pack_id)
    players = p.min_players if order.random() < 0.5 else p.max_players
    found = [snapshot(*position)
             for position in itertools.islice(walk(pack_id, players, seed, greedy, every), 30)]
    order.shuffle(found)  # positions of any turn, in any order, through one cache
    shared = {REPLY: SharedPlans(p, REPLY)}
    rng = random.Random(seed)
    for state, seat, memory in found[:10]:
        same_values(p, state, seat, memory, shared, rng)


def snapshot(state, seat: int, memory: SeatMemory):
    """A position of :func:`walk` kept as it is while the walk goes on."""
    kept = copy.copy(memory)
    kept.piles = [pile[:] for pile in memory.piles]
    kept.known = [cards[:] for cards in memory.known]
    return state.copy(), seat, kept


def lookaheads_with_shared_models(pack_id: str, params, seed: int, every: int, skip):
    """Lookaheads of 3 candidates over 3 deals at positions of a seeded 2-player match
    (``skip(state)``: a position left out), each valued with the search's shared models and
    with fresh ones: the same values, at least 45 of them; the shared models returned."""
    p = pack(pack_id)
    checked = 0
    for state, seat, memory in walk(pack_id, 2, seed, every=every):
        if skip(state) or len(legal_moves(state)) < 2:
            continue
        obs = observation(state, seat)
        moves = candidates(p, obs, memory, legal_moves(state), ExpertBot(), 3)
        det = Determinizer(p, obs, memory)
        models = Models(p)
        rng = random.Random(checked)
        for _ in range(3):
            deal = det.deal(rng)
            if deal.board is not None:
                board_deal(deal, obs)
            for move in moves:
                assert lookahead(deal, move, obs, params, models) == \
                    lookahead(deal, move, obs, params)
                checked += 1
        if checked >= 45:
            break
    assert checked >= 45
    return models


def test_a_search_with_shared_models_looks_ahead_as_one_without():
    """The search's lookaheads, which share their models across the passes and the
    candidates, value each candidate exactly as a lookahead with fresh models does."""
    models = lookaheads_with_shared_models("duel-classic", SearchParams(), 5, 11,
                                           lambda state: state.round != 1)
    assert models.reply is not None and models.reply.likely


def test_a_replying_player_values_the_opponents_as_it_would_alone():
    """The imagined players of a search (a watched memory: every pile card seen) share
    the prospects through one cache across a round of positions."""
    p = pack("duel-classic")
    shared = SharedPlans(p, REPLY)
    state = new_game(p, 2, 11)
    rng = random.Random(11)
    checked = 0
    while state.phase != OVER and state.round == 1:
        seat = state.to_move
        legal = legal_moves(state)
        obs = observation(state, seat)
        mine = Evaluation(p, obs, WatchedMemory(state, seat), REPLY, shared)
        fresh = Evaluation(p, obs, WatchedMemory(state, seat), REPLY)
        assert mine.quick_best(legal) == fresh.quick_best(legal)
        assert mine.ranked(legal) == fresh.ranked(legal)
        checked += 1
        push(state, random_move(state, rng) if rng.random() < 0.5
             else mine.quick_best(legal))
    assert checked > 60 and shared.likely


def test_the_opponents_known_cards_are_part_of_the_question():
    """Two positions alike but for one swap: we hold X and the opponent was seen taking Y,
    or we hold Y and it was seen taking X (same colour, the same cards unseen, the same
    chance): the opponent's prospects differ, and a cache shared by both gives each its
    own."""
    p = pack("duel-classic")
    t = tables_of(p)
    swapped = 0
    for state, me, _ in walk("duel-classic", 2, 3, greedy=1.0, every=1):
        opp = 1 - me
        rows = state.rows[opp]

        def fits(card):  # a number card the opponent's opened row of its colour takes
            row = tuple(rows[t.colour_of[card]])
            return bool(row) and not t.is_wager[card] \
                and t.after[t.state_of(row)][t.slot_of[card]] >= 0

        pairs = [(x, y) for x in state.hands[me] for y in state.hands[opp]
                 if t.colour_of[x] == t.colour_of[y] and x != y and fits(x) and fits(y)]
        if not pairs:
            continue
        x, y = pairs[0]
        positions = []
        for mine, theirs in ((x, y), (y, x)):
            twin = state.copy()
            twin.hands = [list(h) for h in state.hands]
            twin.hands[me][twin.hands[me].index(x)] = mine
            twin.hands[opp][twin.hands[opp].index(y)] = theirs
            memory = SeatMemory(t, me)
            memory.observe(observation(twin, me))
            memory.known[opp] = [theirs]
            positions.append((twin, memory))
        shared = SharedPlans(p, REPLY)
        values = []
        for twin, memory in positions + positions[::-1]:
            obs = observation(twin, me)
            mine_ = Evaluation(p, obs, memory, REPLY, shared)
            fresh = Evaluation(p, obs, memory, REPLY)
            tops = list(obs.pile_tops)
            assert memory.unseen() == positions[0][1].unseen()  # the same cards unseen
            assert mine_.opponents_of.total(tops, obs.draw_pile, None) == \
                fresh.opponents_of.total(tops, obs.draw_pile, None)
            assert mine_.ranked(legal_moves(twin)) == fresh.ranked(legal_moves(twin))
            values.append(fresh.opponents_of.total(tops, obs.draw_pile, None))
        swapped += values[0] != values[1]
        if swapped >= 3:
            break
    assert swapped >= 3  # the swap did change what the opponent may add


# ---------------------------------------------------------------------- board packs


@pytest.mark.parametrize("pack_id,players,seeds,every", [("board-classic", 2, (1, 2), 4),
                                                         ("board-updown", 4, (1,), 5),
                                                         ("board-short", 3, (1, 2), 5)])
def test_board_plans_shared_across_positions_are_the_values_of_a_fresh_evaluation(
        pack_id, players, seeds, every):
    """The positions of seeded board matches, most of them after tiles were taken, valued
    through one BoardPlans per weights: every move's value, the opponents' prospects and
    the search's outlook are a fresh evaluation's, and entries were shared across them."""
    p = pack(pack_id)
    shared = {params: BoardPlans(p, params) for params in (BOARD, BOARD_REPLY)}
    outlooks = BoardPlans(p, BOARD_OUTLOOK)
    rng = random.Random(7)
    positions = 0
    contexts = set()
    fresh_scores = 0  # the row scores fresh evaluations work out, one position at a time
    for seed in seeds:
        for state, seat, memory in walk(pack_id, players, seed, every=every):
            same_values(p, state, seat, memory, shared, rng)
            obs = observation(state, seat)
            mine = Evaluation(p, obs, memory, BOARD_OUTLOOK, outlooks)
            fresh = Evaluation(p, obs, memory, BOARD_OUTLOOK)
            assert board_outlook(mine, obs) == board_outlook(fresh, obs)
            fresh_scores += len(fresh.score.memo)
            contexts.add(fresh.score.context)
            positions += 1
    assert positions > 35
    assert len(contexts) > 5  # tiles were taken on the way (and artefacts' worth changed)
    kept = outlooks.boards.values()
    assert 0 < sum(len(plans.scores) for plans in kept) < fresh_scores  # shared, not redone
    assert all(plans.context is not None for plans in kept)


def tile_taken(state, seat: int):
    """Twins of ``state`` without one artefact tile ahead of a pawn of ``seat`` (as if taken)."""
    board = observation(state, seat).board
    for track, space, kind, _ in board.tiles:
        if kind == "artefact" and any(on == track and spot < space
                                      for on, spot, _ in board.pawns[seat]):
            twin = state.copy()
            twin.board.tiles[track][space] = -1
            yield twin


def artefact_held(state, seat: int):
    """The twin of ``state`` where ``seat`` holds one more artefact (what one more is worth
    changes with the artefacts held)."""
    twin = state.copy()
    twin.board.artefacts[seat] += 1
    yield twin


def twins(change):
    """A position of a seeded board-classic match and a twin (``change``) whose moves'
    values differ: the same cards, memory and pawns, so every key of the shared plans is
    alike in both, and only the board context (the tiles left and their worth) tells them
    apart."""
    p = pack("board-classic")
    for state, seat, memory in walk("board-classic", 2, 1, greedy=1.0, every=1):
        legal = legal_moves(state)
        for twin in change(state, seat):
            values = [Evaluation(p, observation(s, seat), memory, BOARD).ranked(legal)
                      for s in (state, twin)]
            if values[0] != values[1]:
                return p, (state, twin), seat, snapshot(state, seat, memory)[2], values
    raise AssertionError("no twin changed the values")


@pytest.mark.parametrize("change", [tile_taken, artefact_held])
def test_a_board_context_keeps_apart_positions_alike_but_for_the_tiles_left(change,
                                                                            monkeypatch):
    p, positions, seat, memory, fresh = twins(change)
    legal = legal_moves(positions[0])
    contexts = [RowScore(p, observation(s, seat)).context for s in positions]
    assert contexts[0] != contexts[1]
    plans = BoardPlans(p, BOARD)
    for i in (0, 1, 0, 1):
        obs = observation(positions[i], seat)
        assert Evaluation(p, obs, memory, BOARD, plans).ranked(legal) == fresh[i]
    assert len(plans.boards) == 2
    # the twins do collide: with the context left out of the sharing, the second one is
    # given values worked out for the first
    monkeypatch.setattr(BoardPlans, "for_board", lambda self, context: blind(self))
    plans = BoardPlans(p, BOARD)
    values = [Evaluation(p, observation(s, seat), memory, BOARD, plans).ranked(legal)
              for s in positions]
    assert values[0] == fresh[0] and values[1] != fresh[1]


def blind(plans: BoardPlans) -> SharedPlans:
    """One SharedPlans for every board context (the context left out)."""
    if not plans.boards:
        plans.boards[()] = SharedPlans(plans.pack, plans.params, None, plans.board_free)
    return plans.boards[()]


def test_a_board_plans_keeps_its_most_recent_contexts_and_shares_the_rest():
    p = pack("board-classic")
    plans = BoardPlans(p, BOARD)
    most = expert.BOARD_CONTEXTS
    made = [plans.for_board((9, (((0, k), 5.0),))) for k in range(most + 3)]
    assert list(plans.boards) == [one.context for one in made[3:]]  # the first asked dropped
    assert plans.for_board(made[3].context) is made[3]  # asked again: now the most recent
    plans.for_board((9, ()))
    assert made[3].context in plans.boards and made[4].context not in plans.boards
    assert all(one.chains is plans.board_free.chains and one.unseen is plans.board_free.unseen
               for one in plans.boards.values())
    made[3].chains[((), ())] = ((), 0)
    made[3].scores[(0, 0, False, 1)] = -20.0
    assert plans.size() == 2  # the chains all contexts share counted once


class CheckedOnBoard(ExpertBot):
    """The expert on a board, checking each decision against a fresh evaluation."""

    decisions = 0

    def decide(self, view, memory):
        move = super().decide(view, memory)
        obs, legal = view.observation, view.legal_moves
        fresh = Evaluation(view.pack, obs, memory, BOARD).ranked(legal)
        assert Evaluation(view.pack, obs, memory, BOARD, self.shared(view.pack)).ranked(legal) \
            == fresh
        assert move == max(fresh, key=lambda vm: vm[0])[1]
        CheckedOnBoard.decisions += 1
        return move


def test_the_expert_shares_its_board_plans_across_its_decisions():
    """One expert playing both seats of a seeded board-short match: its decisions share
    one BoardPlans (several contexts: the tiles taken, each seat's artefacts) and each is
    the fresh evaluation's choice."""
    bot = CheckedOnBoard()
    play_match(pack("board-short"), [bot, bot], game_seed(5, 2))
    assert CheckedOnBoard.decisions > 40
    shared = bot.shared(pack("board-short"))
    assert isinstance(shared, BoardPlans) and len(shared.boards) > 1 and shared.size() > 0


def test_a_board_search_with_shared_models_looks_ahead_as_one_without():
    """The board search's lookaheads share their models (BoardPlans of the replies and the
    outlooks) across passes and candidates, and value each candidate as fresh ones do."""
    models = lookaheads_with_shared_models("board-classic", BOARD_SEARCH, 4, 7,
                                           lambda state: False)
    assert isinstance(models.reply, BoardPlans) and models.reply.size() > 0
