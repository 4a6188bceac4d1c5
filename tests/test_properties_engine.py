"""Invariants of the turn engine over random matches of every built-in pack (duel and board).

Each example plays a whole match with random moves (random seeds and player counts)
and checks, at every turn, what the rules promise. The checks are written
independently of the engine's tables (plain Python over the cards).
"""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enginehelpers import builtin_ids, derived, pack
from lostcities.engine.game.moves import DECK, DISCARD, PLAY
from lostcities.engine.lab.records import dumps, record_of, replay
from lostcities.engine.game.rows import check_row
from lostcities.engine.game.state import BRIDGE_CROSSINGS, DRAW_PILE_EMPTY, TURN_CAP
from lostcities.engine.game.turn import apply, is_over, legal_moves, new_game, push, random_move, totals
from lostcities.engine.game.view import observation

PROPS = settings(max_examples=10, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


def row_ok(p, row):
    """The ordering and wager rules, written out plainly."""
    c = p.cards
    if len({c.colour_of[k] for k in row}) > 1:
        return False
    values = [c.value_of[k] for k in row]
    numbers = [v for v in values if v is not None]
    if p.wagers_before_numbers:
        first = next((i for i, v in enumerate(values) if v is not None), len(values))
        if any(v is None for v in values[first:]):
            return False
    pairs = list(zip(numbers, numbers[1:]))
    if p.ordering == "strict":
        return all(a < b for a, b in pairs)
    if p.ordering == "non-decreasing":
        return all(a <= b for a, b in pairs)
    return all(a <= b for a, b in pairs) or all(a >= b for a, b in pairs)


def conserved(p, s, deck=None):
    """Every card of the pack's deck (``deck``: its Counter, when worked out already) is in
    exactly one place."""
    everything = [c for h in s.hands for c in h] + [c for rows in s.rows for r in rows for c in r]
    everything += [c for pile in s.piles for c in pile] + s.deck + list(s.deal.removed)
    return Counter(everything) == (deck or Counter(p.deck()))


def check_observations(s):
    for seat in range(s.n):
        obs = observation(s, seat)
        assert Counter(obs.hand) == Counter(s.hands[seat])
        assert obs.rows == tuple(tuple(tuple(r) for r in rows) for rows in s.rows)
        assert obs.pile_tops == tuple(p[-1] if p else None for p in s.piles)
        public = Counter(s.hands[seat]) + Counter(c for rows in s.rows for r in rows for c in r) \
            + Counter(p[-1] for p in s.piles if p)
        assert not Counter(obs.cards_seen()) - public, "an observation shows a hidden card"
        assert obs.draw_pile == len(s.deck) and isinstance(obs.draw_pile, int)
        text = json.dumps(obs.to_dict(s.pack.cards))
        assert "deck" not in obs.to_dict(s.pack.cards) and "removed" not in text


def check_round_end(p, result):
    """The round ended exactly by the pack's condition."""
    moves = result.moves
    from_deck = sum(1 for m in moves if m.draw == DECK)
    pile = len(result.deal.draw_pile)
    if result.end == BRIDGE_CROSSINGS:  # the board game: at once, mid-turn, without a draw
        assert p.board is not None and result.crossings == p.bridge_crossings
        assert moves[-1].draw is None and from_deck < pile
        return
    if result.end == TURN_CAP:
        # the cap, not the pile: the pile still had cards (or, after-last-play, the
        # draw that emptied it was the capped turn)
        assert len(moves) == p.turn_cap
        assert from_deck < pile or (p.draw_pile_empty == "after-last-play" and from_deck == pile)
        return
    assert result.end == DRAW_PILE_EMPTY and from_deck == pile
    if p.draw_pile_empty == "immediately":
        assert moves[-1].draw == DECK and len(moves) <= p.turn_cap
    else:  # one last play without drawing, after the draw that emptied the pile
        assert moves[-1].draw is None and moves[-2].draw == DECK
        assert all(m.draw is not None for m in moves[:-1])


def check_scores(p, s, result):
    """Round scores are the pack's formulas over the rows rebuilt from the moves (and, in
    the board game, the pawns, tokens and artefacts of the round)."""
    c = p.cards
    for seat in range(s.n):
        rows = [[] for _ in p.colours]
        for i, m in enumerate(result.moves):
            if (result.starter + i) % s.n == seat and m.action == PLAY:
                rows[c.colour_of[m.card]].append(m.card)
        spec = []
        for colour, row in enumerate(rows):
            values, wagers = check_row(p, row)  # the DSL engineer's row checker agrees
            spec.append((colour, list(values), wagers))
        board = (result.pawns[seat], result.tokens[seat], result.artefacts[seat]) \
            if p.board is not None else ((), 0, 0)
        assert result.scores[seat] == p.scoring.round(spec, *board, result.number).total


def play_checked(p, players, seed, rng_seed):
    s = new_game(p, players, seed)
    rng = random.Random(rng_seed)
    deck = Counter(p.deck())
    finished = 0
    step = 0
    while not is_over(s):
        assert conserved(p, s, deck)
        assert all(len(h) == p.hand_size for h in s.hands), "hand size after a full turn"
        assert s.deck or s.last_play
        for rows in s.rows:
            assert all(row_ok(p, r) for r in rows)
        if step % 7 == 0:
            check_observations(s)
        move = random_move(s, rng)
        c = p.cards
        row = s.rows[s.to_move][c.colour_of[move.card]]
        if move.action == PLAY and p.row_start == "lowest-in-hand" and \
                c.value_of[move.card] is not None and all(c.value_of[k] is None for k in row):
            held = [c.value_of[k] for k in s.hands[s.to_move]
                    if c.colour_of[k] == c.colour_of[move.card] and c.value_of[k] is not None]
            assert c.value_of[move.card] == min(held), "a row started above the lowest held"
        if move.action == DISCARD and p.no_retake_discard:
            assert move.draw != p.cards.colour_of[move.card], "drew back the discarded card"
        if step % 25 == 0:  # the pure path: apply leaves its input as it was
            before = s.snapshot()
            after = apply(s, move)
            assert s.snapshot() == before
            push(s, move)
            assert s.snapshot()[:-1] == after.snapshot()[:-1]
        else:
            push(s, move)
        s.undo.clear()
        step += 1
        while finished < len(s.finished):
            result = s.finished[finished]
            check_round_end(p, result)
            check_scores(p, s, result)
            finished += 1
    assert len(s.finished) == p.rounds and legal_moves(s) == []
    return s


def play_again(p, players, seed, rng_seed):
    """The match play_checked plays, by the same calls to the engine (random_move, apply
    every 25 steps, push, undo cleared) without the checks, which only read the state."""
    s = new_game(p, players, seed)
    rng = random.Random(rng_seed)
    step = 0
    while not is_over(s):
        move = random_move(s, rng)
        if step % 25 == 0:
            apply(s, move)
        push(s, move)
        s.undo.clear()
        step += 1
    return s


@pytest.mark.parametrize("pack_id", builtin_ids())
@PROPS
@given(data=st.data(), seed=st.integers(0, 2**40), rng_seed=st.integers(0, 2**32))
def test_random_matches_keep_every_rule(pack_id, data, seed, rng_seed):
    p = pack(pack_id)
    players = data.draw(st.integers(p.min_players, p.max_players), label="players")
    s = play_checked(p, players, seed, rng_seed)
    line = dumps(s)
    record = json.loads(line)
    replayed = replay(record, where="property")
    assert record_of(replayed) == record
    assert totals(replayed) == totals(s) == tuple(record["totals"])
    # same seed, same moves: the same record
    assert dumps(play_again(p, players, seed, rng_seed)) == line


#: rule values no built-in duel pack uses, on top of the built-in packs
VARIANTS = {
    "turn-cap": ("duel-classic", {"turn": {"turn_cap": 40}}),
    "either-lowest": ("duel-equal", {"deck": {"copies": 2},
                                     "rows": {"ordering": "either-direction",
                                              "start": "lowest-in-hand"}}),
    "retake-removed": ("duel-grenoble", {"turn": {"no_retake_discard": False},
                                         "deck": {"removed_unseen": [{"players": 3, "cards": 6},
                                                                     {"players": 4, "cards": 2}]},
                                         "match": {"next_starter": "best-total",
                                                   "next_starter_tie": "same"}}),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**40), rng_seed=st.integers(0, 2**32))
def test_random_matches_of_rule_variants(variant, data, seed, rng_seed):
    base, sections = VARIANTS[variant]
    p = derived(base, **sections)
    players = data.draw(st.integers(p.min_players, p.max_players), label="players")
    s = play_checked(p, players, seed, rng_seed)
    record = json.loads(dumps(s))
    assert record_of(replay(record, pack=p)) == record


@pytest.mark.parametrize("pack_id", builtin_ids())
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**40), turns=st.integers(0, 120), rng_seed=st.integers(0, 2**16))
def test_undo_restores_any_position(pack_id, seed, turns, rng_seed):
    p = pack(pack_id)
    s = new_game(p, p.max_players, seed)
    rng = random.Random(rng_seed)
    snaps = []
    for _ in range(turns):
        if is_over(s):
            break
        snaps.append(s.snapshot())
        push(s, random_move(s, rng))
    for snap in reversed(snaps):
        from lostcities.engine.game.turn import pop

        pop(s)
        assert s.snapshot() == snap
