"""The engine's documented contract (docs/api.md), checked on any pack: one shared check that
every pack runs, as pgx's ``api_test(env, num)`` is for every pgx game.

``check_api(pack, seed, games)`` plays ``games`` random matches of ``pack`` to the end (every
round; the pack's fewest and most players in turn), the moves mixed between a uniform choice
in ``legal_moves`` and ``random_move``, and checks at every turn (the costly checks every few
turns, see :func:`check_api`):

* ``new_game`` gives the same match for the same seed;
* ``legal_moves`` is not empty until ``is_over``, and is exactly the moves the legal action
  ids complete (every path of ``legal_actions`` walked with ``step``); each move is
  ``is_legal``, ``why_refused`` gives ``None``, its text (``Move.parse``) and its action ids
  read back to it, and ``describe_move`` says it;
* ``legal_actions`` are the ids ``legal_action_mask`` sets; ``random_move`` is legal;
* ``apply`` leaves its state as it was and equals ``push`` on a copy; ``step`` too, against
  ``push_action`` on a copy, decision by decision, and its decisions reach ``apply``'s state;
* ``observation(state, seat)`` for every seat, between turns and mid-turn (after ``step``),
  shows that seat's hand and the sizes, and shows the same when every card the seat cannot
  see is dealt otherwise (``with_hidden``);
* ``pop`` undoes every ``push`` exactly, back to the first position;

and at the end: ``legal_moves`` is empty, the match played every round, ``round_scores``
are the rounds' scores, ``totals`` are the pack's match formula over them and ``winners``
the best totals (ties broken by ``match.tie_break``); a record of the game (``record_of``,
``dumps``, ``read_records``, ``replay``) replays to the same final state; and ``playout``
from the same deal ends a match that passes the same checks, with no undo record left.

The engine's functions are looked up on ``lostcities.engine`` at each call, so a test can
plant a bug there (tests/test_api_every_pack.py does) and see this check fail.
"""
from __future__ import annotations

import io
import json
import random

import lostcities.engine as engine


def check_api(pack, seed: int, games: int = 2, every: int = 3, hidden_every: int = 4) -> None:
    """Raise AssertionError, saying where, if ``pack`` breaks the engine's contract in any
    of ``games`` random matches from ``seed``. Every turn is checked; the costly checks run
    every ``every`` turns and on each round's first turn (each legal move's checks: on the
    other turns only the move played and ``random_move``'s; the walk of every action path)
    and every ``hidden_every`` turns (the redeal of what a seat cannot see)."""
    counts = sorted({pack.min_players, pack.max_players})
    for game in range(games):
        _check_a_match(pack, counts[game % len(counts)], seed + game, every, hidden_every)


def _check_a_match(pack, players: int, seed: int, every: int, hidden_every: int) -> None:
    e = engine
    where = f"{pack.id} at {players} players, seed {seed}"
    state = e.new_game(pack, players, seed)
    assert state.snapshot() == e.new_game(pack, players, seed).snapshot(), \
        f"{where}: new_game gave another match for the same seed"
    start = state.snapshot()
    rng = random.Random(seed)
    history = []
    turn = 0
    while not e.is_over(state):
        at = f"{where}, round {state.round} turn {state.turn}"
        moves = e.legal_moves(state)
        assert moves, f"{at}: no legal move before the end"
        assert len(set(moves)) == len(moves), f"{at}: legal_moves lists a move twice"
        ids = e.legal_actions(state)
        assert sorted(ids) == [a for a, ok in enumerate(e.legal_action_mask(state)) if ok], \
            f"{at}: legal_actions {ids} are not the ids legal_action_mask sets"
        drawn = e.random_move(state, rng)
        assert drawn in moves, f"{at}: random_move gave {drawn}, not a legal move"
        move = rng.choice(moves) if rng.random() < 0.5 else drawn
        if turn % every == 0 or state.turn == 0:
            _check_the_moves(pack, state, moves, at)
            walked = _moves_by_actions(pack, state)
            assert sorted(map(str, walked)) == sorted(map(str, moves)), \
                f"{at}: legal_moves are not the moves the legal action ids complete"
        else:
            _check_the_moves(pack, state, [move, drawn], at)
        if turn % hidden_every == 0:
            _check_the_observations(state, rng, at)
        before = state.snapshot()
        after = e.apply(state, move)
        assert state.snapshot() == before, f"{at}: apply({move}) changed its state"
        pushed = state.copy()
        e.push(pushed, move)
        assert pushed.snapshot() == after.snapshot(), f"{at}: apply({move}) is not push on a copy"
        stepped = state
        for action in e.move_to_actions(pack, move):
            assert action in e.legal_actions(stepped), f"{at}: {move}'s action {action} not legal"
            new = e.step(stepped, action)
            copy = stepped.copy()
            e.push_action(copy, action)
            assert new.snapshot() == copy.snapshot(), \
                f"{at}: step({action}) is not push_action on a copy"
            stepped = new
            if turn % hidden_every == 0 and stepped.pending is not None:  # mid-turn views
                _check_the_observations(stepped, rng, f"{at}, after step({action})")
        assert state.snapshot() == before, f"{at}: step changed its state"
        assert stepped.snapshot() == after.snapshot(), \
            f"{at}: {move}'s action ids stepped do not reach apply's state"
        history.append(before)
        e.push(state, move)
        assert state.snapshot() == after.snapshot(), f"{at}: push({move}) is not apply"
        turn += 1
    _check_the_end(pack, state, where)
    _check_the_observations(state, rng, f"{where}, at the end")
    _check_the_record(pack, state, where)
    ended = e.playout(e.new_game(pack, players, seed), random.Random(seed))
    _check_the_end(pack, ended, f"{where}, playout")
    assert ended.undo == [], f"{where}: playout left {len(ended.undo)} undo records"
    _check_the_record(pack, ended, f"{where}, playout")
    while history:
        e.pop(state)
        assert state.snapshot() == history.pop(), \
            f"{where}: pop did not restore turn {len(history)}'s position"
    assert state.snapshot() == start
    assert not state.undo, f"{where}: undo records left after popping every push"


def _check_the_moves(pack, state, moves, at: str) -> None:
    e = engine
    for move in moves:
        assert e.is_legal(state, move), f"{at}: {move} is listed but not is_legal"
        refusal = e.why_refused(state, move)
        assert refusal is None, f"{at}: {move} is listed but refused: {refusal}"
        parsed = e.Move.parse(str(move), pack)
        assert parsed == move and str(parsed) == str(move), f"{at}: {move}'s text does not read back"
        assert e.actions_to_move(pack, e.move_to_actions(pack, move)) == move, \
            f"{at}: {move}'s action ids do not read back"
        said = e.describe_move(state, move)
        assert isinstance(said, str) and said, f"{at}: describe_move({move}) said {said!r}"


def _moves_by_actions(pack, state) -> list:
    """Every whole move the legal action ids complete from ``state``, by ``step``."""
    e = engine
    out, todo = [], [(state, ())]
    while todo:
        here, ids = todo.pop()
        for action in e.legal_actions(here):
            nxt = e.step(here, action)
            path = ids + (action,)
            if nxt.pending is None or e.is_over(nxt):  # the turn is done
                out.append(e.actions_to_move(pack, path))
            else:
                todo.append((nxt, path))
    return out


def _check_the_observations(state, rng: random.Random, at: str) -> None:
    """Every seat's view: its own hand sorted and the public sizes; and the same view when
    the cards the seat cannot see (the other hands, the draw pile, the removed cards) are
    dealt otherwise."""
    e = engine
    for seat in range(state.n):
        view = e.observation(state, seat)
        assert view.seat == seat and view.hand == tuple(sorted(state.hands[seat])), \
            f"{at}: seat {seat}'s observation does not show its own hand"
        assert view.hand_sizes == tuple(len(h) for h in state.hands), f"{at}: hand sizes"
        assert view.draw_pile == len(state.deck), f"{at}: the draw pile's size"
        unseen = [c for s, hand in enumerate(state.hands) if s != seat for c in hand]
        unseen += list(state.deck) + list(state.deal.removed)
        rng.shuffle(unseen)
        hands = [list(hand) if s == seat else [unseen.pop() for _ in hand]
                 for s, hand in enumerate(state.hands)]
        pile = [unseen.pop() for _ in state.deck]
        guess = e.with_hidden(state, hands=hands, draw_pile=pile, removed=unseen)
        assert e.observation(guess, seat) == view, \
            f"{at}: seat {seat}'s observation changes with cards it cannot see"


def _check_the_end(pack, state, where: str) -> None:
    e = engine
    assert e.is_over(state), f"{where}: the match is not over"
    assert e.legal_moves(state) == [], f"{where}: legal moves after the end"
    assert len(state.finished) == state.rounds_total, \
        f"{where}: {len(state.finished)} rounds played of {state.rounds_total}"
    scores = e.round_scores(state)
    assert scores == [r.scores for r in state.finished], f"{where}: round_scores"
    assert all(len(s) == state.n for s in scores), f"{where}: a round's scores miss a seat"
    finished = state.finished
    afresh = tuple(pack.scoring.match([s[p] for s in scores],
                                      sum(r.artefacts[p] for r in finished if r.artefacts),
                                      sum(r.tokens[p] for r in finished if r.tokens))
                   for p in range(state.n))
    totals = e.totals(state)
    assert tuple(totals) == afresh, f"{where}: totals {totals} are not the match formula's {afresh}"
    won = e.winners(state)
    best = max(totals)
    assert won and all(totals[p] == best for p in won), \
        f"{where}: winners {won} do not hold the best total {best} of {totals}"
    if not pack.tie_break:
        assert won == tuple(p for p in range(state.n) if totals[p] == best), \
            f"{where}: winners {won} are not every seat with the best total"


def _check_the_record(pack, state, where: str) -> None:
    e = engine
    line = e.dumps(state)
    assert "\n" not in line and json.loads(line) == json.loads(json.dumps(e.record_of(state))), \
        f"{where}: dumps is not one line of record_of"
    [(number, record)] = list(e.read_records(io.StringIO(line + "\n"), "api-check"))
    assert number == 1
    again = e.replay(record, pack=pack)
    again = again.copy()
    again.deals = state.deals  # the replay is dealt the record's deals; the original its seed
    assert again.snapshot() == state.snapshot(), f"{where}: the record replays to another state"
