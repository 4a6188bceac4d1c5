"""Invariants of the board game over random matches of every board pack, at 2, 3 and 4 players.

A plain-Python model of 001's board rules (:class:`Model`, written without the
engine's tables or its board module) follows each random match move by move; at
every turn the engine's board must be the model's, and the properties 001
states are checked on both.
"""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from enginehelpers import board_pack, builtin_ids, pack
from lostcities.engine.game.moves import PLAY
from lostcities.engine.lab.records import dumps, record_of, replay
from lostcities.engine.game.state import BRIDGE_CROSSINGS, DRAW_PILE_EMPTY
from lostcities.engine.game.turn import is_over, push, random_move, totals, winners
from lostcities.engine.game.turn import new_game
from lostcities.engine.game.view import observation

BOARD = [i for i in builtin_ids() if pack(i).family == "board"]
PROPS = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Model:
    """One round of 001's board, followed move by move."""

    def __init__(self, p, n: int, tiles):
        board = p.board
        self.last, self.bridge, self.end = board.spaces, board.bridge_after, p.bridge_crossings
        self.leader = [i < board.leaders for i in range(board.pawns)]
        self.pawns: list[list] = [[None] * board.pawns for _ in range(n)]  # (track, space)
        self.tiles = {(t, s): (k, v) for t, s, k, v in tiles}
        self.artefact_tiles = sum(1 for k, _ in self.tiles.values() if k == "artefact")
        self.crossings = 0
        self.tokens = [0] * n
        self.artefacts = [0] * n

    def pawn_on(self, seat: int, track: int):
        found = [i for i, x in enumerate(self.pawns[seat]) if x is not None and x[0] == track]
        assert len(found) <= 1, "two pawns of one player on one track"
        return found[0] if found else None

    def can_advance(self, seat: int) -> list[int]:
        return [x[0] for x in self.pawns[seat] if x is not None and x[1] < self.last]

    def advance(self, seat: int, i: int) -> tuple[bool, bool]:
        """Move pawn ``i`` one space: (the round ended, a step is due)."""
        track, space = self.pawns[seat][i]
        assert space < self.last, "a pawn moved beyond the last space"
        self.pawns[seat][i] = (track, space + 1)
        if space + 1 == self.bridge + 1:
            self.crossings += 1
            if self.crossings == self.end:  # at once: the tile reached is not resolved
                return True, False
        kind, value = self.tiles.get((track, space + 1), (None, 0))
        if kind == "artefact":
            del self.tiles[(track, space + 1)]
            self.artefacts[seat] += 1
        elif kind == "points":
            self.tokens[seat] += value
        return False, kind == "step"

    def turn(self, seat: int, move, colour: int) -> int:
        """Follow one move; returns how many pawn moves it made, -1 if it ended the round."""
        if move.action != PLAY:
            assert move.pawn is None and not move.steps
            return 0
        steps = list(move.steps)
        i = self.pawn_on(seat, colour)
        if i is None:                          # a row starts: a free pawn goes onto the track
            assert move.pawn is not None and self.pawns[seat][move.pawn] is None
            i = move.pawn
            self.pawns[seat][i] = (colour, 0)
        else:
            assert move.pawn is None
        moved = 0
        if self.pawns[seat][i][1] < self.last:
            ended, due = self.advance(seat, i)
            moved += 1
        else:                                  # a finished track: another pawn may advance
            ended, due = False, True
        while due and not ended and self.can_advance(seat):  # else the step is lost
            track = steps.pop(0)
            if track is None:                  # "permet", "vous pouvez": declined
                break
            j = self.pawn_on(seat, track)
            assert j is not None and track in self.can_advance(seat)
            ended, due = self.advance(seat, j)
            moved += 1
        assert not steps, "a step the turn did not give"
        return -1 if ended else moved

    def places(self, seat: int) -> tuple:
        return tuple((-1, 0, lead) if x is None else (x[0], x[1], lead)
                     for x, lead in zip(self.pawns[seat], self.leader))

    def round_score(self, p, seat: int) -> int:
        """001: the pawns' spaces, the leader's doubled, never below 0; tokens after."""
        spaces = p.scoring_spec.tables["spaces"]
        pawns = sum(spaces[s] * (2 if lead else 1) for _, s, lead in self.places(seat))
        return max(0, pawns) + self.tokens[seat]


def same_board(s, model: Model) -> None:
    """The engine's board is the model's, and what 001 says of it holds."""
    b, bt = s.board, s.tables.board
    for seat in range(s.n):
        assert b.pawn_places(seat, bt.leader) == model.places(seat)
        engaged = [t for t in b.tracks[seat] if t >= 0]
        assert len(engaged) == len(set(engaged)), "two pawns of one player on one track"
        rows = [c for c, row in enumerate(s.rows[seat]) if row]
        assert sorted(engaged) == rows, "a pawn on every started row's track, only there"
    assert sorted(b.placed_tiles(bt)) == sorted((t, sp, k, v) for (t, sp), (k, v)
                                                 in model.tiles.items())
    assert (b.tokens, b.artefacts, b.crossings) == (model.tokens, model.artefacts,
                                                   model.crossings)
    taken = model.artefact_tiles - sum(1 for k, _ in model.tiles.values() if k == "artefact")
    assert sum(b.artefacts) == taken, "an artefact taken twice, or taken without its tile"


def conserved(p, s, deck=None) -> bool:
    """Every card of the pack's deck (``deck``: its Counter, when worked out already) is in
    exactly one place."""
    cards = [c for h in s.hands for c in h] + [c for rows in s.rows for r in rows for c in r]
    cards += [c for pile in s.piles for c in pile] + s.deck + list(s.deal.removed)
    return Counter(cards) == (deck or Counter(p.deck()))


def check_views(s) -> None:
    """The whole board is public; each player sees only their own hand."""
    views = [observation(s, seat) for seat in range(s.n)]
    assert len({v.board for v in views}) == 1
    for seat, view in enumerate(views):
        assert Counter(view.hand) == Counter(s.hands[seat])
        text = json.dumps(view.to_dict(s.pack.cards))
        assert json.loads(text)["board"]["crossings"] == s.board.crossings


def play_checked(p, players: int, seed: int, rng_seed: int):
    s = new_game(p, players, seed)
    rng = random.Random(rng_seed)
    model = Model(p, players, s.deal.tiles)
    held = [0] * players
    deck = Counter(p.deck())
    turns = 0
    while not is_over(s):
        assert conserved(p, s, deck)
        same_board(s, model)
        if turns % 11 == 0:
            check_views(s)
        seat, rounds = s.to_move, len(s.finished)
        move = random_move(s, rng)
        before = [sp[:] for sp in s.board.spaces]
        moved = model.turn(seat, move, s.tables.colour_of[move.card])
        push(s, move)
        s.undo.clear()
        turns += 1
        if len(s.finished) == rounds:
            # pawns move only forward, one space per legal card or step, the mover's only
            gained = [[a - b for a, b in zip(now, then)]
                      for now, then in zip(s.board.spaces, before)]
            assert all(d >= 0 for row in gained for d in row)
            assert all(not any(row) for q, row in enumerate(gained) if q != seat)
            assert sum(gained[seat]) == moved
            assert move.draw is not None or s.last_play
            continue
        result = s.finished[-1]
        for q in range(players):
            assert result.pawns[q] == model.places(q)
            assert result.scores[q] == model.round_score(p, q)
        assert (list(result.tokens), list(result.artefacts)) == (model.tokens, model.artefacts)
        if moved < 0:   # the deciding crossing: at once, without a draw
            assert result.end == BRIDGE_CROSSINGS and move.draw is None
            assert result.crossings == p.bridge_crossings
        else:
            assert result.end == DRAW_PILE_EMPTY and result.crossings < p.bridge_crossings
            assert sum(1 for m in result.moves if m.draw == -1) == len(result.deal.draw_pile)
        held = [h + a for h, a in zip(held, result.artefacts)]
        if not is_over(s):
            assert all(t == -1 for row in s.board.tracks for t in row)
            model = Model(p, players, s.deal.tiles)
    scale = p.scoring_spec.tables["artefact_scale"]
    assert list(totals(s)) == [sum(r.scores[q] for r in s.finished) + scale[min(held[q], 9)]
                               for q in range(players)]
    return s


@pytest.mark.parametrize("pack_id", BOARD)
@pytest.mark.parametrize("players", [2, 3, 4])
@PROPS
@given(seed=st.integers(0, 2**40), rng_seed=st.integers(0, 2**32))
def test_random_board_matches_keep_every_rule(pack_id, players, seed, rng_seed):
    p = pack(pack_id)
    s = play_checked(p, players, seed, rng_seed)
    record = json.loads(dumps(s))
    assert record_of(replay(record, where="property")) == record
    best = max(totals(s))
    assert set(winners(s)) <= {q for q, t in enumerate(totals(s)) if t == best}


_TILES = {"y2": "step", "y3": "step", "b2": "step", "b3": "artefact", "g2": "points 5",
          "g3": "artefact", "w2": "step", "r2": "artefact"}
#: short tracks so that random play reaches the crossings that end a round; the second
#: also with two leaders among three pawns and a last play after the pile runs out
SHORT_BRIDGE = {
    "short": board_pack(_TILES, board={"bridge_after": 2, "spaces": 4},
                        round_end={"bridge_crossings": 3}),
    "three-pawns": board_pack(_TILES, board={"bridge_after": 2, "spaces": 4, "pawns": 3,
                                             "leaders": 2},
                              round_end={"bridge_crossings": 4,
                                         "draw_pile_empty": "after-last-play"}),
}


@pytest.mark.parametrize("variant", sorted(SHORT_BRIDGE))
@pytest.mark.parametrize("players", [2, 3, 4])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**40), rng_seed=st.integers(0, 2**32))
@example(seed=96577182, rng_seed=1070)  # no round of it ends at a crossing (2 players)
def test_rounds_end_exactly_at_the_deciding_crossing(variant, players, seed, rng_seed):
    """Every round ends at its deciding crossing or when the pile runs out, as
    :func:`play_checked` checks round by round (a random match may end none at a crossing:
    :func:`test_random_play_reaches_the_deciding_crossing` shows the short tracks do)."""
    p = SHORT_BRIDGE[variant]
    s = play_checked(p, players, seed, rng_seed)
    event(f"rounds ended at a crossing: {sum(r.end == BRIDGE_CROSSINGS for r in s.finished)}")
    record = json.loads(dumps(s))
    assert record_of(replay(record, pack=p)) == record


@pytest.mark.parametrize("variant", sorted(SHORT_BRIDGE))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_play_reaches_the_deciding_crossing(variant, players):
    """The short tracks make random play end rounds at the deciding crossing, so the
    property test above checks that ending: among the first seeds, one does (seed 96577182
    with 2 players of three-pawns ends its three rounds when the pile runs out, which a
    former ``any`` in the property test took for a failure)."""
    p = SHORT_BRIDGE[variant]
    assert any(r.end == BRIDGE_CROSSINGS for seed in range(30)
               for r in play_checked(p, players, seed, seed).finished)
