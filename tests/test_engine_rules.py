"""One scripted scenario per rule sentence of the turn engine (positions built by hand)."""
from __future__ import annotations

import pytest

from enginehelpers import derived, pack, play, start
from lostcities.engine.errors import IllegalMoveError
from lostcities.engine.game.moves import DECK, Move
from lostcities.engine.game.state import DRAW_PILE_EMPTY, TURN_CAP, Deal, RoundResult, SetupError
from lostcities.engine.game.turn import (apply, continue_match, is_over, legal_moves, live_scores,
                                    new_game, next_starter, round_scores, totals, winners)
from lostcities.engine.game.view import observation


def cards(p, state_cards):
    return " ".join(p.cards.format(c) for c in state_cards)


CLASSIC_HANDS = ["y5 y8 y10 wx g3 g5 r2 r3", "b2 b3 b4 b5 b6 b7 b8 b9"]


# -- a turn: play on your own row of its colour, or discard on that colour's pile

def test_play_puts_the_card_on_the_players_own_row_of_its_colour():
    p = pack("duel-classic")
    s = play(start(p, CLASSIC_HANDS, top="g9"), "p r2 deck")
    assert cards(p, s.rows[0][4]) == "r2"
    assert all(not row for row in s.rows[1])
    assert p.cards.parse("r2") not in s.hands[0]


def test_discard_puts_the_card_on_its_colours_pile():
    p = pack("duel-classic")
    s = play(start(p, CLASSIC_HANDS), "d y10 deck")
    assert cards(p, s.piles[0]) == "y10"
    assert all(not row for row in s.rows[0])


def test_then_draw_from_the_draw_pile_takes_its_top():
    p = pack("duel-classic")
    s0 = start(p, CLASSIC_HANDS, top="g9 g10")
    s = play(s0, "p r2 deck")
    assert p.cards.parse("g9") in s.hands[0]
    assert len(s.deck) == len(s0.deck) - 1
    assert len(s.hands[0]) == p.hand_size


def test_or_draw_the_top_of_any_discard_pile():
    p = pack("duel-classic")
    s = play(start(p, CLASSIC_HANDS), "d y10 deck", "d b9 y")
    assert p.cards.parse("y10") in s.hands[1]
    assert s.piles[0] == []
    # also the pile of the colour just played
    s = play(s, "p y5 b")
    assert p.cards.parse("b9") in s.hands[0] and cards(p, s.rows[0][0]) == "y5"


def test_never_the_card_just_discarded():
    p = pack("duel-classic")
    s = play(start(p, CLASSIC_HANDS), "d r3 deck", "d b2 deck")
    with pytest.raises(IllegalMoveError, match="just discarded"):
        apply(s, "d r2 r")  # the red pile's top would be the r2 just discarded
    assert Move.parse("d r2 r", p) not in legal_moves(s)
    assert Move.parse("d r2 b", p) in legal_moves(s)


def test_retaking_is_allowed_when_the_pack_says_so():
    p = derived("duel-classic", turn={"no_retake_discard": False})
    s = play(start(p, CLASSIC_HANDS), "d r3 r")
    assert p.cards.parse("r3") in s.hands[0] and s.piles[4] == []


def test_no_draw_from_an_empty_pile_and_a_draw_is_required():
    p = pack("duel-classic")
    s = start(p, CLASSIC_HANDS)
    with pytest.raises(IllegalMoveError, match="green discard pile is empty"):
        apply(s, "p r2 g")
    with pytest.raises(IllegalMoveError, match="must end with a draw"):
        apply(s, "p r2")
    with pytest.raises(IllegalMoveError, match="you hold no b2"):
        apply(s, "p b2 deck")


# -- rows follow the pack's ordering

def test_strict_rows_refuse_lower_and_equal_values():
    p = derived("duel-classic", deck={"copies": 2})
    s = play(start(p, ["r5 r5 r4 r6 y2 y3 y4 y5"]*1 + ["b2 b3 b4 b5 b6 b7 b8 b9"]),
             "p r5 deck", "d b2 deck")
    for text in ("p r5 deck", "p r4 deck"):
        with pytest.raises(IllegalMoveError, match="needs a higher value"):
            apply(s, text)
    assert cards(p, play(s, "p r6 deck").rows[0][4]) == "r5 r6"


def test_non_decreasing_rows_take_equal_values():
    p = derived("duel-equal", deck={"copies": 2})
    s = play(start(p, ["r5 r5 r4 r6 y2 y3 y4 y5", "b2 b3 b4 b5 b6 b7 b8 b9"]),
             "p r5 deck", "d b2 deck", "p r5 deck", "d b3 deck")
    assert cards(p, s.rows[0][4]) == "r5 r5"
    with pytest.raises(IllegalMoveError, match="its last card is 5 and this pack needs 5 or more"):
        apply(s, "p r4 deck")


def test_either_direction_rows_take_their_direction_from_the_first_differing_card():
    p = derived("duel-classic", deck={"copies": 2}, rows={"ordering": "either-direction"})
    hands = ["r5 r5 r3 r3 r2 r6 r8 y2", "b2 b3 b4 b5 b6 b7 b8 b9"]
    s = play(start(p, hands), "p r5 deck", "d b2 deck", "p r5 deck", "d b3 deck")
    # equal values keep the direction open: both r3 and r6 fit
    assert {"p r3 deck", "p r6 deck"} <= {str(m) for m in legal_moves(s)}
    s = play(s, "p r3 deck", "d b4 deck")         # now descending
    with pytest.raises(IllegalMoveError, match=r"r6 cannot go on your red row \(r5 r5 r3\): the row goes down"):
        apply(s, "p r6 deck")
    s = play(s, "p r3 deck", "d b5 deck", "p r2 deck")  # equal, then lower
    assert cards(p, s.rows[0][4]) == "r5 r5 r3 r3 r2"


def test_wagers_only_before_any_number_of_that_colour():
    p = pack("duel-classic")
    s = play(start(p, ["rx rx rx r2 r3 y2 y3 y4", "b2 b3 b4 b5 b6 b7 b8 b9"]),
             "p rx deck", "d b2 deck", "p rx deck", "d b3 deck", "p r2 deck", "d b4 deck")
    with pytest.raises(IllegalMoveError, match="rx cannot go on your red row: a wager goes only before its first number"):
        apply(s, "p rx deck")
    assert cards(p, s.rows[0][4]) == "rx rx r2"
    assert Move.parse("d rx deck", p) in legal_moves(s)  # it can still be discarded


def test_wagers_anywhere_when_the_pack_allows():
    p = derived("duel-classic", rows={"wagers_before_numbers": False})
    s = play(start(p, ["rx r2 r3 y2 y3 y4 y5 y6", "b2 b3 b4 b5 b6 b7 b8 b9"]),
             "p r2 deck", "d b2 deck", "p rx deck")
    assert cards(p, s.rows[0][4]) == "r2 rx"


def test_lowest_in_hand_row_start():
    p = derived("duel-classic", rows={"start": "lowest-in-hand"})
    s = start(p, ["rx r7 r3 y2 y3 y4 y5 y6", "b2 b3 b4 b5 b6 b7 b8 b9"])
    with pytest.raises(IllegalMoveError, match=r"lowest red card in your hand \(r3\)"):
        apply(s, "p r7 deck")
    # a wager does not start the numbers: the first number is still the lowest held
    s = play(s, "p rx deck", "d b2 deck")
    with pytest.raises(IllegalMoveError, match="lowest red card"):
        apply(s, "p r7 deck")
    s = play(s, "p r3 deck", "d b3 deck", "p r7 deck")
    assert cards(p, s.rows[0][4]) == "rx r3 r7"


# -- the round ends by the pack's condition

def short(base, **sections):
    """``base`` with hands of 29: two cards left in the draw pile at 2 players."""
    return derived(base, hand_size=29, **sections)


def test_round_ends_at_once_when_the_last_card_is_drawn():
    p = short("duel-classic")
    s = start(p, ["r2", "b2"])
    assert len(s.deck) == 2
    s = play(s, "d r2 deck")
    assert s.round == 1 and len(s.deck) == 1
    s = play(s, "d b2 deck")
    assert s.round == 2 and s.finished[0].end == DRAW_PILE_EMPTY
    assert len(s.finished[0].moves) == 2 and s.turn == 0


def test_draws_from_piles_do_not_end_the_round():
    p = short("duel-classic")
    s = play(start(p, ["r2", "b2"]), "d r2 deck", "d b2 r")
    assert s.round == 1 and len(s.deck) == 1


def test_after_last_play_the_next_player_plays_once_without_drawing():
    p = short("duel-equal")
    s = play(start(p, ["r2 y3", "b2"]), "d r2 deck", "d b2 deck")
    assert s.round == 1 and s.last_play and not s.deck
    assert all(m.draw is None for m in legal_moves(s))
    with pytest.raises(IllegalMoveError, match="draw pile is empty"):
        apply(s, "p y3 deck")
    hand_before = len(s.hands[0])
    last = legal_moves(s)[0]
    s = apply(s, last)
    assert s.round == 2 and s.finished[0].end == DRAW_PILE_EMPTY
    assert s.finished[0].moves[-1].draw is None
    assert len(s.finished[0].moves) == 3 and hand_before == 29
    assert str(s.finished[0].moves[-1]).count(" ") == 1  # "p r5": no draw in the text


def test_turn_cap_ends_the_round_with_its_reason():
    p = derived("duel-classic", turn={"turn_cap": 4})
    s = play(start(p, CLASSIC_HANDS), "d r2 deck", "d b2 deck", "d r3 deck")
    assert s.round == 1 and s.turn == 3
    s = play(s, "d b3 deck")
    assert s.round == 2 and s.finished[0].end == TURN_CAP and len(s.finished[0].moves) == 4


def test_removed_unseen_cards_are_taken_out_before_dealing_and_never_shown():
    p = derived("duel-classic", deck={"removed_unseen": [{"players": 2, "cards": 10}]})
    s = new_game(p, 2, 5)
    assert len(s.deal.removed) == 10 and len(s.deck) == 60 - 16 - 10
    removed = set(s.deal.removed)
    for seat in (0, 1):
        shown = observation(s, seat)
        assert len(shown.hand) == 8 and shown.draw_pile == 34
        assert not any(getattr(shown, f) == s.deal.removed for f in shown.__dataclass_fields__)
    # the removed cards are not in any hand nor the pile (counting copies)
    everything = sorted([c for h in s.hands for c in h] + s.deck + list(s.deal.removed))
    assert everything == sorted(p.deck())
    assert removed


# -- rounds, starters, match totals, continuation

def fake_round(number, starter, scores):
    return RoundResult(number, starter, Deal((), ()), (), tuple(scores), DRAW_PILE_EMPTY)


@pytest.mark.parametrize("rule,tie,finished,expected", [
    ("best-round-score", "alternate", [(0, (10, 30))], 1),
    ("best-round-score", "alternate", [(1, (30, 10))], 0),
    ("best-round-score", "alternate", [(0, (20, 20))], 1),     # tie: the other player
    ("best-round-score", "same", [(0, (20, 20))], 0),          # tie: the same starter
    ("best-total", "alternate", [(0, (50, 0)), (0, (0, 40))], 0),
    ("best-total", "alternate", [(0, (10, 0)), (1, (0, 10))], 0),  # tie after seat 1 started
    ("alternate", "alternate", [(1, (90, 0))], 0),
    ("same", "alternate", [(1, (90, 0))], 1),
])
def test_next_starter_rules(rule, tie, finished, expected):
    p = derived("duel-classic", match={"next_starter": rule, "next_starter_tie": tie})
    s = new_game(p, 2, 0)
    s.finished = [fake_round(i + 1, st, sc) for i, (st, sc) in enumerate(finished)]
    assert next_starter(s) == expected


def test_next_starter_tie_among_three_picks_the_first_tied_seat_after_the_starter():
    p = pack("duel-grenoble")
    s = new_game(p, 3, 0)
    s.finished = [fake_round(1, 1, (5, -3, 5))]
    assert next_starter(s) == 2  # seats 0 and 2 tie; 2 comes first after starter 1
    s.finished = [fake_round(1, 0, (5, 5, 5))]
    assert next_starter(s) == 1


def test_round_one_starter_is_the_packs_first_starter():
    p = derived("duel-classic", match={"first_starter": 1})
    assert new_game(p, 2, 0).to_move == 1


def test_the_best_score_of_a_round_starts_the_next():
    p = short("duel-classic")
    # seat 1 opens no row and seat 0 opens a losing red row: seat 1 leads
    s = play(start(p, ["r2", "b2"]), "p r2 deck", "d b2 deck")
    assert s.finished[0].scores[0] < s.finished[0].scores[1] == 0
    assert s.starter == 1 and s.to_move == 1


def test_match_plays_the_packs_rounds_then_is_over():
    p = short("duel-classic")
    s = new_game(p, 2, 3)
    while not is_over(s):
        s = apply(s, legal_moves(s)[-1])
    assert len(s.finished) == p.rounds == 3 and legal_moves(s) == []
    with pytest.raises(IllegalMoveError, match="match is over"):
        apply(s, Move.parse("p r2 deck", p))
    assert totals(s) == tuple(sum(r.scores[i] for r in s.finished) for i in range(2))
    assert round_scores(s) == [r.scores for r in s.finished]
    best = max(totals(s))
    assert winners(s) == tuple(i for i, t in enumerate(totals(s)) if t == best)


def test_continuation_adds_a_round_when_the_pack_allows_it():
    p = short("duel-classic")
    s = new_game(p, 2, 4)
    while not is_over(s):
        s = apply(s, legal_moves(s)[0])
    before = totals(s)
    c = continue_match(s)
    assert not is_over(c) and c.round == 4 and c.rounds_total == 4 and is_over(s)
    while not is_over(c):
        c = apply(c, legal_moves(c)[0])
    assert totals(c) == tuple(b + x for b, x in zip(before, c.finished[3].scores))


def test_continuation_refused_by_packs_without_it():
    p = short("duel-equal")
    s = new_game(p, 2, 4)
    with pytest.raises(IllegalMoveError, match="only a finished match"):
        continue_match(s)
    while not is_over(s):
        s = apply(s, legal_moves(s)[0])
    with pytest.raises(IllegalMoveError, match="does not allow continuing"):
        continue_match(s)


# -- scores come from the pack's formulas

def with_rows(p, rows_text):
    s = new_game(p, 2, 0)
    for colour, text in enumerate(rows_text):
        s.rows[0][colour] = [p.cards.parse(w) for w in text.split()]
    return s


def test_rule_000_worked_example_scores_18():
    p = pack("duel-classic")
    # yellow 5 8 10; blue none; white one wager; green wager 3 5 7; red 2 wagers 2 3 5 7 8 10
    s = with_rows(p, ["y5 y8 y10", "", "wx", "gx g3 g5 g7", "rx rx r2 r3 r5 r7 r8 r10"])
    assert live_scores(s) == (18, 0)


def test_rule_002_examples_blue_6_and_white_16():
    p = pack("duel-classic")
    s = with_rows(p, ["", "bx b2 b6 b7 b8", "", "", ""])
    assert live_scores(s)[0] == 6
    s = with_rows(p, ["", "", "wx w4 w6 w8 w10", "", ""])
    assert live_scores(s)[0] == 16


# -- players

def test_players_from_two_to_the_packs_maximum():
    p = pack("duel-grenoble")
    for n in (3, 4):
        s = new_game(p, n, 1)
        assert len(s.hands) == n and all(len(h) == 7 for h in s.hands)
        for turn in range(2 * n):
            assert s.to_move == turn % n
            s = apply(s, legal_moves(s)[0])
    with pytest.raises(SetupError, match="2 players, the pack is for 3-4"):
        new_game(p, 2, 0)
    with pytest.raises(SetupError, match="3 players, the pack is for 2"):
        new_game(pack("duel-classic"), ["a", "b", "c"], 0)


def test_board_packs_play_through_the_same_engine():
    s = new_game(pack("board-classic"), 2, 0)
    assert s.board is not None and s.deal.tiles is not None and len(s.deal.tiles) == 25
    assert new_game(pack("duel-classic"), 2, 0).board is None


def test_deck_draw_source_constant():
    assert Move.parse("p r5 deck", pack("duel-classic")).draw == DECK
