"""The board game's rules (001), one scripted scenario per rule sentence.

Each test quotes the sentence of 001 it plays out. Positions are dealt by hand
(``board_game``) on board-classic variants with exactly the tiles a scenario
needs (``board_pack``); the pack's own numbers (bridge, crossings, spaces) are
changed only where a scenario needs a shorter track.
"""
from __future__ import annotations

import pytest

from enginehelpers import board_game, board_pack, moves_of, pack, place, play
from lostcities.engine.errors import IllegalMoveError
from lostcities.engine.game.moves import Move, action_space
from lostcities.engine.game.state import (ADVANCE, BRIDGE_CROSSINGS, DRAW, DRAW_PILE_EMPTY, OVER, PAWN,
                                     RoundResult)
from lostcities.engine.game.turn import (apply, legal_actions, legal_moves, new_game, shuffle_deal,
                                    step, totals, winners)
from lostcities.engine.game.view import observation

ANY_START = {"rows": {"start": "any"}}
#: what the other player does while a scenario plays: discard white cards
WAIT = "w10 w10 w9 w9 w8 w8 w7 w7"


# -- starting a row -------------------------------------------------------------------------

def test_a_row_starts_with_the_lowest_card_held_and_the_chosen_pawn():
    # "Pour commencer une expédition, posez devant vous la plus faible carte de sa couleur
    # que vous avez en main et avancez un pion vers sa première case. Vous choisissez à ce
    # moment quel personnage engager, notamment votre chef."
    p = board_pack({})
    s = board_game(p, ["y3 y5 y7 b2 b4 g6 g8 r10", WAIT], {})
    assert moves_of(s, "y5") == []          # not the lowest yellow held
    # pawn 0 is the leader; ordinary pawns are alike, so the first free one is offered
    assert moves_of(s, "y3") == ["p y3 pawn=0 deck", "p y3 pawn=1 deck"]
    with pytest.raises(IllegalMoveError, match=r"y5 cannot start your yellow row: this pack starts a "
                                               r"row with the lowest yellow card in your hand \(y3\)"):
        apply(s, "p y5 pawn=0 deck")
    with pytest.raises(IllegalMoveError, match=r"starting the yellow row sends a pawn onto "
                                               r"its track: add pawn=0 \(leader\) or pawn=1"):
        apply(s, "p y3 deck")
    with pytest.raises(IllegalMoveError, match="pawn 2 and pawn 1 are alike .ordinary pawns.: "
                                               "send the first free one, pawn=1"):
        apply(s, "p y3 pawn=2 deck")
    with pytest.raises(IllegalMoveError, match=r"pawn 7 is not a pawn \(0-4\)"):
        apply(s, "p y3 pawn=7 deck")
    s = apply(s, "p y3 pawn=0 deck")
    assert place(s, 0, "y") == (1, True) and s.board.tracks[0][0] == 0


def test_the_pawn_decision_is_one_action_offering_each_kind_of_free_pawn():
    p = board_pack({}, **ANY_START)
    s = board_game(p, ["y3 y5 b2 b4 g6 g8 r2 r10", WAIT], {})
    space = action_space(p)
    s = step(s, space.card_action("play", p.cards.parse("y3")))
    assert s.phase == PAWN and [space.name(a) for a in legal_actions(s)] == ["pawn 0", "pawn 1"]
    s = step(s, space.ranges["pawn"].start + 1)
    assert s.phase == DRAW and place(s, 0, "y") == (1, False)
    s = play(step(s, space.draw_deck), "d w10 deck")
    s = step(s, space.card_action("play", p.cards.parse("b2")))
    assert [space.name(a) for a in legal_actions(s)] == ["pawn 0", "pawn 2"]


def test_one_row_and_one_pawn_per_colour():
    # "Une seule de vos rangées et un seul de vos pions sont autorisés par couleur."
    p = board_pack({}, **ANY_START)
    s = board_game(p, ["y3 y5 y7 b2 b4 g6 g8 r10", WAIT], {})
    s = play(s, "p y3 pawn=1 deck", "d w10 deck")
    with pytest.raises(IllegalMoveError, match="y5 continues a row: no pawn is sent "
                                               r"\(drop pawn=0\)"):
        apply(s, "p y5 pawn=0 deck")
    s = play(s, "p y5 deck", "d w10 deck")
    assert place(s, 0, "y") == (2, False)
    assert sum(1 for t in s.board.tracks[0] if t >= 0) == 1
    with pytest.raises(IllegalMoveError, match="pawn 1 is already on the yellow track"):
        apply(s, "p b2 pawn=1 deck")


def test_a_board_pack_with_fewer_pawns_than_tracks_starts_no_row_without_a_free_pawn():
    p = board_pack({}, **ANY_START, board={"pawns": 1})
    s = play(board_game(p, ["y3 y5 b2 b4 g6 g8 r2 r10", WAIT], {}), "p y3 pawn=0 deck",
             "d w10 deck")
    assert moves_of(s, "b2") == [] and moves_of(s, "y5") == ["p y5 deck"]
    with pytest.raises(IllegalMoveError, match="every pawn of yours is on a track: none can "
                                               "start the blue row"):
        apply(s, "p b2 pawn=0 deck")


# -- advancing ------------------------------------------------------------------------------

def test_each_further_card_advances_the_pawn_one_space_whatever_its_value():
    # "Chaque carte jouée fait avancer votre pion d'une étape, quelle que soit sa valeur."
    # "Pour poursuivre, ajoutez à la rangée une carte de la même couleur, de valeur
    # supérieure ou égale à la dernière."
    p = board_pack({}, **ANY_START)
    s = board_game(p, ["y1 y2 y2 y9 y10 b2 g6 r10", WAIT], {})
    s = play(s, "p y1 pawn=0 deck", "d w10 deck", "p y2 deck", "d w10 deck",
             "p y2 deck", "d w9 deck")      # an equal value is allowed
    assert place(s, 0, "y") == (3, True)
    s = play(s, "p y10 deck", "d w9 deck")   # a jump of eight values: still one space
    assert place(s, 0, "y") == (4, True)
    with pytest.raises(IllegalMoveError, match="y9 cannot go on your yellow row: its last card is 10"):
        apply(s, "p y9 deck")


def test_board_updown_sets_each_rows_direction_by_its_second_card():
    # "une variante permet aussi de former des suites décroissantes"
    p = board_pack({}, base="board-updown", **ANY_START)
    s = board_game(p, ["y7 y5 y6 y3 b2 g6 g8 r10", WAIT], {})
    s = play(s, "p y7 pawn=0 deck", "d w10 deck", "p y5 deck", "d w10 deck")
    assert place(s, 0, "y") == (2, True)
    with pytest.raises(IllegalMoveError, match="the row goes down"):
        apply(s, "p y6 deck")
    assert place(play(s, "p y3 deck"), 0, "y") == (3, True)


# -- event tiles ----------------------------------------------------------------------------

def test_an_artefact_is_taken_and_removed_from_the_board():
    # "Une tuile Artefact est prise puis retirée du plateau."
    p = board_pack({"y2": "artefact"}, **ANY_START)
    s = board_game(p, ["y3 y5 b2 b4 g6 g8 r2 r10", "y4 y6 w10 w10 w9 w9 w8 w8"], {"y2": "artefact"})
    s = play(s, "p y3 pawn=0 deck", "p y4 pawn=1 deck", "p y5 deck")
    assert s.board.artefacts == [1, 0]
    view = observation(s, 1)
    assert view.board.tiles == () and view.board.artefacts == (1, 0)
    s = play(s, "p y6 deck")                 # seat 1 reaches the same space: nothing there now
    assert place(s, 1, "y") == (2, False) and s.board.artefacts == [1, 0]


def test_a_points_tile_gives_its_value_and_stays():
    # "Une tuile Points de Victoire donne sa valeur mais reste en place pour les pions
    # suivants." "Il ne double pas les points gagnés en passant sur une tuile Points."
    p = board_pack({"y2": "points 5"}, **ANY_START)
    s = board_game(p, ["y3 y5 b2 b4 g6 g8 r2 r10", "y4 y6 w10 w10 w9 w9 w8 w8"],
                   {"y2": "points 5"})
    s = play(s, "p y3 pawn=0 deck", "p y4 pawn=1 deck", "p y5 deck")   # the leader lands
    assert s.board.tokens == [5, 0]                                    # not doubled
    assert observation(s, 0).board.tiles == ((0, 2, "points", 5),)
    s = play(s, "p y6 deck")
    assert s.board.tokens == [5, 5]


def test_a_step_tile_advances_an_engaged_pawn_whose_new_space_resolves_in_turn():
    # "Une tuile Étape permet de faire avancer d'un cran un de vos pions déjà engagé ; si sa
    # nouvelle case porte un événement, résolvez-le également."
    tiles = {"y2": "step", "b2": "step", "b3": "artefact"}
    p = board_pack(tiles, **ANY_START)
    s = board_game(p, ["y3 y5 b2 b4 g6 g8 r2 r10", WAIT], tiles)
    s = play(s, "p b2 pawn=1 deck", "d w10 deck", "p y3 pawn=0 deck", "d w10 deck")
    # "permet": each advance may be declined (step=none), which ends the chain
    assert moves_of(s, "y5") == [
        "p y5 step=b step=b deck", "p y5 step=b step=none deck", "p y5 step=b step=y deck",
        "p y5 step=none deck", "p y5 step=y deck"]
    for text, message in [
            ("p y5 deck", "one more pawn may advance .a step tile or a finished track.: add "
                          "step=TRACK, one of y, b, or step=none to decline"),
            ("p y5 step=b deck", "one more pawn may advance"),
            ("p y5 step=none step=b deck", "step=b: no pawn advance is due here"),
            ("p y5 step=g deck", "step=g: you have no pawn on the green track"),
            ("p y5 step=b step=b step=y deck", "step=y: no pawn advance is due here"),
            ("p y5 pawn=2 step=b step=b deck", "y5 continues a row: no pawn is sent")]:
        with pytest.raises(IllegalMoveError, match=message):
            apply(s, text)
    after = apply(s, "p y5 step=b step=b deck")   # y to 2 (step), b to 2 (step), b to 3
    assert place(after, 0, "y") == (2, True) and place(after, 0, "b") == (3, False)
    assert after.board.artefacts == [1, 0] and after.moves[-1].steps == (1, 1)
    # the same chain decision by decision
    space = action_space(p)
    t = step(s, space.card_action("play", p.cards.parse("y5")))
    assert t.phase == ADVANCE and [space.name(a) for a in legal_actions(t)] == \
        ["advance y", "advance b", "advance none"]
    t = step(step(t, space.ranges["advance"].start + 1), space.ranges["advance"].start + 1)
    assert step(t, space.draw_deck).snapshot() == after.snapshot()


def test_a_step_with_no_pawn_able_to_advance_is_lost():
    p = board_pack({"y2": "step"}, **ANY_START, board={"spaces": 2, "bridge_after": 1})
    s = board_game(p, ["y3 y5 b2 b4 g6 g8 r2 r10", WAIT], {"y2": "step"})
    s = play(s, "p y3 pawn=0 deck", "d w10 deck")
    assert moves_of(s, "y5") == ["p y5 deck"]     # y on the last space: nothing to advance
    assert place(play(s, "p y5 deck"), 0, "y") == (2, True)


def test_a_finished_track_moves_another_pawn_and_nothing_when_none_can():
    # "Quand un de vos pions atteint la dernière case d'une expédition, la rangée de cartes
    # de sa couleur reste utile. En y jouant une nouvelle carte légale, vous pouvez faire
    # avancer un autre de vos pions d'une case." "Le pion déjà arrivé ne progresse plus."
    p = board_pack({}, **ANY_START, board={"spaces": 2, "bridge_after": 1})
    s = board_game(p, ["y3 y5 y7 y9 b2 b4 g6 r10", WAIT], {})
    s = play(s, "p y3 pawn=0 deck", "d w10 deck", "p y5 deck", "d w10 deck")
    assert place(s, 0, "y") == (2, True)
    assert moves_of(s, "y7") == ["p y7 deck"]      # no other pawn engaged: nothing moves
    s = play(s, "p y7 deck", "d w9 deck")
    assert place(s, 0, "y") == (2, True) and s.moves[-2] == Move.parse("p y7 deck", p)
    s = play(s, "p b2 pawn=1 deck", "d w9 deck")
    assert moves_of(s, "y9") == ["p y9 step=b deck", "p y9 step=none deck"]   # "vous pouvez"
    with pytest.raises(IllegalMoveError, match="step=y: the yellow pawn is on the last space"):
        apply(s, "p y9 step=y deck")
    s = apply(s, "p y9 step=b deck")
    assert place(s, 0, "y") == (2, True) and place(s, 0, "b") == (2, False)


# -- the round's end --------------------------------------------------------------------------

def test_the_deciding_crossing_ends_the_round_at_once_mid_chain_tile_unresolved():
    # "Une manche s'arrête dès que cinq pions ... ont franchi un pont." "Si le mouvement
    # décisif atteint une tuile Événement, son effet n'est pas résolu : la manche est déjà
    # terminée." Here the bridge lies after space 1 and two crossings end the round.
    tiles = {"y2": "step", "g2": "artefact"}
    p = board_pack(tiles, **ANY_START, round_end={"bridge_crossings": 2},
                   board={"bridge_after": 1})
    s = board_game(p, ["y3 y5 g3 b4 b6 b8 r2 r10", WAIT], tiles)
    s = play(s, "p g3 pawn=1 deck", "d w10 deck", "p y3 pawn=0 deck", "d w10 deck")
    # y crosses (1) onto the step; stepping g crosses again (2): the round ends there
    assert "p y5 step=g" in moves_of(s, "y5") and "p y5 step=g deck" not in moves_of(s, "y5")
    with pytest.raises(IllegalMoveError, match="this turn's bridge crossing ends the round "
                                               r"\(2 crossings\): the turn has no draw"):
        apply(s, "p y5 step=g deck")
    with pytest.raises(IllegalMoveError, match="step=y: the round already ended"):
        apply(s, "p y5 step=g step=y")
    hand = sorted(s.hands[0])
    after = apply(s, "p y5 step=g")
    result = after.finished[0]
    assert result.end == BRIDGE_CROSSINGS and result.crossings == 2
    assert result.moves[-1] == Move.parse("p y5 step=g", p) and result.moves[-1].draw is None
    assert result.artefacts == (0, 0)             # the artefact on g2 was not taken
    assert result.pawns[0][:2] == ((0, 2, True), (3, 2, False))   # y and g both on space 2
    assert after.round == 2 and sorted(after.hands[0]) != hand


def test_the_deciding_crossing_by_a_card_leaves_its_step_tile_unresolved():
    p = board_pack({"y2": "step"}, **ANY_START, round_end={"bridge_crossings": 1},
                   board={"bridge_after": 1})
    s = board_game(p, ["y3 y5 g3 b4 b6 b8 r2 r10", WAIT], {"y2": "step"})
    s = play(s, "p g3 pawn=1 deck", "d w10 deck", "p y3 pawn=0 deck", "d w10 deck")
    assert moves_of(s, "y5") == ["p y5"]          # no step decision, no draw
    assert apply(s, "p y5").finished[0].end == BRIDGE_CROSSINGS


def test_five_crossings_on_one_track_end_the_round():
    # "Ces cinq pions ne doivent pas nécessairement se trouver sur cinq expéditions
    # différentes." Four players' pawns cross the same bridge (bridge after space 1).
    p = board_pack({}, **ANY_START, round_end={"bridge_crossings": 5},
                   board={"bridge_after": 1})
    hands = ["y1 y2 b1 b2 g6 g8 r9 r10", "y1 y2 b3 b4 g7 g9 r8 r8", "y3 y4 b5 b6 w1 w2 w3 w4",
             "y5 y6 b7 b8 w5 w6 w7 w8"]
    s = board_game(p, hands, {}, players=4)
    s = play(s, "p y1 pawn=0 deck", "p y1 pawn=0 deck", "p y3 pawn=0 deck", "p y5 pawn=0 deck",
             "p y2 deck", "p y2 deck", "p y4 deck", "p y6 deck")
    assert s.board.crossings == 4 and s.round == 1
    s = play(s, "p b1 pawn=1 deck", "p b3 pawn=1 deck", "p b5 pawn=1 deck", "p b7 pawn=1 deck",
             "p b2")                              # the fifth crossing: no draw
    assert s.finished[0].end == BRIDGE_CROSSINGS and s.finished[0].crossings == 5


def test_the_round_also_ends_when_the_last_hidden_card_is_drawn():
    # "Une autre fin possible est la prise de la dernière carte cachée de la pioche."
    p = board_pack({}, **ANY_START, hand_size=39)       # 110 - 30 - 2 * 39: two to draw
    s = board_game(p, ["y1 y2", WAIT], {})
    s = play(s, "d y1 deck")
    assert len(s.deck) == 1 and s.round == 1
    s = apply(s, "d w10 deck")
    assert s.finished[0].end == DRAW_PILE_EMPTY and s.round == 2


# -- scores ---------------------------------------------------------------------------------

def test_round_score_leader_doubled_negative_too_floor_zero_then_tokens():
    # "Additionnez les positions de vos pions en doublant celle du chef. La valeur obtenue
    # pour la manche ne descend pas sous zéro." Tokens are kept whatever the pawns are worth.
    tiles = {"r1": "points 5"}
    p = board_pack(tiles, **ANY_START, round_end={"bridge_crossings": 1},
                   board={"bridge_after": 1})
    s = board_game(p, ["y3 y5 g3 b4 b6 b8 r2 r10", "b3 r3 w10 w10 w9 w9 w8 w8"], tiles)
    s = play(s, "p y3 pawn=0 deck", "p b3 pawn=1 deck", "p g3 pawn=1 deck",
             "p r3 pawn=0 deck", "p y5")          # the leader crosses: the round ends
    result = s.finished[0]
    spaces = p.scoring_spec.tables["spaces"]
    # seat 0: leader on yellow 2 (doubled), g on 1; seat 1: b on 1, leader on red 1 (+5)
    assert result.details[0].pawns == (2 * spaces[2], spaces[1], 0, 0, 0)
    assert result.details[1].pawns == (2 * spaces[1], spaces[1], 0, 0, 0)
    assert result.tokens == (0, 5) and result.scores == (0, 5)


def test_round_score_counts_positive_spaces_with_the_leader_doubled():
    p = board_pack({}, **ANY_START, round_end={"bridge_crossings": 1},
                   board={"bridge_after": 5})
    s = board_game(p, ["y1 y2 y3 y4 y5 y6 b1 r10", WAIT], {})
    s = play(s, "p y1 pawn=0 deck", "d w10 deck", "p y2 deck", "d w10 deck", "p y3 deck",
             "d w9 deck", "p y4 deck", "d w9 deck", "p y5 deck", "d w8 deck", "p y6")
    spaces = p.scoring_spec.tables["spaces"]
    assert s.finished[0].scores == (2 * spaces[6], 0) == (30, 0)


def test_tokens_and_artefacts_carry_over_rounds_pawns_return_tiles_are_laid_again():
    # "Les points gagnés et les artefacts acquis sont conservés entre les manches, mais les
    # pions repartent du centre et les cartes sont remélangées." "remettez les tuiles au
    # hasard" ... "Après la troisième manche, ajoutez le bonus ou la pénalité d'artefacts"
    tiles = {"y1": "artefact", "b1": "points 10"}
    p = board_pack(tiles, **ANY_START, round_end={"bridge_crossings": 1},
                   board={"bridge_after": 1}, match={"rounds": 2})
    s = board_game(p, ["y3 y5 b3 b4 b6 b8 r2 r10", WAIT], tiles)
    s = play(s, "p y3 pawn=0 deck", "d w10 deck", "p b3 pawn=1 deck", "d w10 deck", "p y5")
    first = s.finished[0]
    assert (first.artefacts, first.tokens) == ((1, 0), (10, 0))
    assert s.round == 2 and all(t == -1 for t in s.board.tracks[0])
    assert observation(s, 1).board.artefacts == (1, 0)
    assert observation(s, 1).board.tokens == (10, 0)
    assert s.board.artefacts == [0, 0] and s.board.tokens == [0, 0]
    # round 2's tiles are laid again by its own seeded generator, both back on the board
    assert s.deal.tiles == shuffle_deal(p, 2, 0, 2).tiles and len(s.deal.tiles) == 2
    assert sorted(observation(s, 0).board.tiles) == sorted(s.deal.tiles)
    while s.phase != OVER:
        s = apply(s, legal_moves(s)[-1])
    scale = p.scoring_spec.tables["artefact_scale"]
    art = sum(r.artefacts[0] for r in s.finished)
    assert totals(s)[0] == sum(r.scores[0] for r in s.finished) + scale[min(art, 9)]


def _over(p, scores: list[tuple[int, ...]], artefacts: list[tuple[int, ...]]):
    """A finished match of ``p`` whose rounds scored ``scores`` and took ``artefacts``."""
    s = new_game(p, len(scores[0]), 0)
    s.finished = [RoundResult(i + 1, 0, s.deal, (), sc, DRAW_PILE_EMPTY, (),
                              tokens=(0,) * len(sc), artefacts=a)
                  for i, (sc, a) in enumerate(zip(scores, artefacts))]
    s.phase = OVER
    return s


def test_ties_go_to_more_artefacts_then_are_shared():
    # "Le plus grand total de jetons gagne ; une égalité se départage par le nombre
    # d'artefacts, puis partage la victoire."
    p = pack("board-short")          # one round; scale -10 -5 0 5 ... by artefacts held
    s = _over(p, [(50, 45, 60, 10)], [(2, 3, 1, 0)])
    assert totals(s) == (50, 50, 55, 0)
    assert winners(s) == (2,)
    s = _over(p, [(60, 55, 40)], [(1, 2, 0)])  # 60-5 and 55+0: 55 each; seat 1 has more
    assert totals(s) == (55, 55, 30) and winners(s) == (1,)
    s = _over(p, [(40, 40)], [(3, 3)])
    assert winners(s) == (0, 1)                  # equal totals and artefacts: shared
    duel = pack("duel-classic")                  # no tie_break: equal totals share
    t = new_game(duel, 2, 0)
    t.finished = [RoundResult(1, 0, t.deal, (), (5, 5), DRAW_PILE_EMPTY)]
    t.phase, t.rounds_total = OVER, 1
    assert winners(t) == (0, 1)


# -- the deal -------------------------------------------------------------------------------

@pytest.mark.parametrize("players, removed", [(2, 30), (3, 0), (4, 0)])
def test_two_players_remove_thirty_cards_unseen_hands_of_eight(players, removed):
    # "Chacun ... reçoit huit cartes. ... À deux joueurs, retirez trente cartes au hasard
    # avant la distribution, sans les regarder. Les cartes vont de zéro à dix dans chacune
    # des cinq couleurs, avec deux exemplaires de chaque valeur."
    p = pack("board-classic")
    s = new_game(p, players, 11)
    assert p.deck_size == 110 and len(s.deal.removed) == removed
    assert all(len(h) == 8 for h in s.hands)
    assert len(s.deck) == 110 - removed - 8 * players


def test_the_tiles_are_laid_at_random_on_the_tile_spaces_one_per_space():
    # "Placez les vingt-cinq tuiles Événement au hasard sur les emplacements du plateau"
    p = pack("board-classic")
    layouts = [new_game(p, 2, seed).deal.tiles for seed in range(4)]
    for tiles in layouts:
        assert len(tiles) == 25 and len({(t, s) for t, s, _, _ in tiles}) == 25
        assert all(s in p.board.tile_spaces for _, s, _, _ in tiles)
        kinds = sorted((k, v) for _, _, k, v in tiles)
        assert kinds == sorted([("artefact", 0)] * 9 + [("points", 5)] * 5
                               + [("points", 10)] * 3 + [("step", 0)] * 8)
    assert len(set(layouts)) == 4 and new_game(p, 2, 2).deal.tiles == layouts[2]
