"""The facts a pack compiles into, which code that batches or sums the rules reads instead of
the pack's strings (issue 28, item 2): envs/vector.py and envs/features.py decide from these,
never from a formula's text or an option's name; and the rule options' registries
(engine/game/options.py) these facts are compiled from."""
from __future__ import annotations

from dataclasses import replace

import pytest

from enginehelpers import derived, pack
from lostcities.engine import SetupError
from lostcities.engine.game.options import (ORDERINGS, POINTS, TILE_KINDS, takes_equal,
                                            tile_has_value)
from lostcities.engine.game.rows import ORDERING_KEYS, ORDERING_RULES
from lostcities.engine.tooling import tables_of


@pytest.mark.parametrize("round_text, match_text, sums", [
    ("sum(e.score for e in expeditions)", "sum(r for r in rounds)", (True, True)),
    ("sum( e.score\n  for   e in expeditions )", "sum(x for x in rounds)", (True, True)),
    ("sum(e.score for e in expeditions) + round", "sum(r for r in rounds) * 2", (False, False)),
    ("sum(e.score for e in expeditions where e.cards > 0)", "sum(r for r in rounds where r > 0)",
     (False, False)),
    ("sum(e.points for e in expeditions)", "max(rounds)", (False, False)),
])
def test_the_scoring_says_how_its_totals_add_up_from_its_compiled_shape(round_text, match_text,
                                                                        sums):
    p = derived("duel-classic", scoring={"round": round_text, "match": match_text})
    assert (p.scoring.sums_expeditions, p.scoring.sums_rounds) == sums


def test_a_board_packs_round_is_not_its_expeditions_sum():
    scoring = pack("board-classic").scoring
    assert not scoring.sums_expeditions and not scoring.sums_rounds


@pytest.mark.parametrize("ordering, ascend, equal", [
    ("strict", True, False), ("non-decreasing", True, True),
    ("either-direction", False, True)])
def test_the_tables_say_how_rows_go(ordering, ascend, equal):
    t = tables_of(derived("duel-equal", rows={"ordering": ordering}))
    assert (t.rows_ascend, t.equal_follows) == (ascend, equal)


@pytest.mark.parametrize("retake, keeps", [
    ("any", (31, 31, 31, 31, 31)),
    ("not-the-same-card", (30, 29, 27, 23, 15)),
    ("no-discard-pile", (0, 0, 0, 0, 0))])
def test_the_tables_say_which_piles_a_discard_may_draw(retake, keeps):
    t = tables_of(derived("duel-classic", turn={"retake": retake}))
    assert t.discard_keeps == keeps and t.retake_own == (retake == "any")


@pytest.mark.parametrize("start", ["any", "lowest-in-hand"])
def test_the_tables_say_which_card_may_open_a_row(start):
    t = tables_of(derived("duel-classic", rows={"start": start}))
    assert t.lowest_in_hand == (start == "lowest-in-hand")
    if start == "any":
        assert t.row_start is None
    else:  # the slot of the card that opens, the slots of its colour's numbers in hand
        assert t.row_start(3, [3, 5, 9]) and not t.row_start(3, [2, 3]) and t.row_start(4, [])


@pytest.mark.parametrize("end, last_play", [("immediately", False), ("after-last-play", True)])
def test_the_tables_say_how_the_round_ends_with_the_draw_pile(end, last_play):
    assert tables_of(derived("duel-classic", round_end={"draw_pile_empty": end})).last_play \
        is last_play


@pytest.mark.parametrize("rule, tie, last, totals, prev, n, starter", [
    # best-round-score: the best round; on a tie, the tie rule; then the seat after prev
    ("best-round-score", "alternate", (10, 30), (50, 0), 1, 2, 1),
    ("best-round-score", "alternate", (30, 30), (0, 50), 1, 2, 0),
    ("best-round-score", "same", (30, 30), (0, 50), 1, 2, 1),
    ("best-round-score", "best-total", (30, 30), (0, 50), 0, 2, 1),
    ("best-round-score", "alternate", (30, 30, 30), (0, 0, 0), 2, 3, 0),
    ("best-round-score", "same", (5, 30, 30), (0, 0, 0), 0, 3, 1),  # prev not tied: alternate
    # best-total: the best total so far
    ("best-total", "alternate", (30, 10), (0, 50), 1, 2, 1),
    ("best-total", "best-round-score", (30, 10), (50, 50), 1, 2, 0),
    # alternate and same never look at a score
    ("alternate", "alternate", (99, 0), (99, 0), 0, 2, 1),
    ("alternate", "alternate", (0, 0, 0), (0, 0, 0), 2, 3, 0),
    ("same", "alternate", (99, 0), (99, 0), 1, 2, 1),
])
def test_the_tables_say_who_starts_the_next_round(rule, tie, last, totals, prev, n, starter):
    t = tables_of(derived("duel-classic", match={"next_starter": rule, "next_starter_tie": tie}))
    asked = []

    def total() -> tuple:
        asked.append(1)
        return totals

    assert t.next_starter(last, total, prev, n) == starter
    # the totals are worked out only when a rule that reads them is reached
    assert bool(asked) == ("best-total" in (rule, tie) and
                           (rule == "best-total" or last.count(max(last)) > 1))


def test_the_tables_say_which_decisions_a_turn_asks():
    assert tables_of(pack("duel-classic")).decisions == ("play", "discard", "draw")
    assert tables_of(pack("board-classic")).decisions == \
        ("play", "discard", "draw", "pawn", "advance", "decline")


@pytest.mark.parametrize("ordering", ["strict", "non-decreasing", "either-direction"])
def test_whether_an_ordering_takes_an_equal_card_is_the_tables_equal_follows(ordering):
    """The loader's LC046 asks options.takes_equal; the engine's tables compile the same
    rule into equal_follows."""
    t = tables_of(derived("duel-equal", rows={"ordering": ordering}))
    assert takes_equal(ordering) is t.equal_follows


@pytest.mark.parametrize("kind, value, has", [
    ("points", 3, True), ("artefact", 0, False), ("step", 0, False), ("dragon", 0, False),
    (["points"], 0, False)])
def test_a_tile_kind_says_whether_it_carries_a_value(kind, value, has):
    assert tile_has_value(kind) is has
    if has:
        assert TILE_KINDS[kind].effect == POINTS


def test_the_row_messages_are_keyed_by_every_ordering_and_no_other():
    """rows.py says why a row refuses a card from tables keyed by the ordering's name: they
    say, they do not decide, and they name each of ORDERINGS."""
    assert set(ORDERING_RULES) == set(ORDERING_KEYS) == set(ORDERINGS)


@pytest.mark.parametrize("pack_id, changes, leaders", [
    ("duel-classic", {}, 0), ("board-classic", {}, 1),
    ("board-classic", {"board": {"leaders": 0}}, 0),
    ("board-classic", {"board": {"leaders": 2}}, 2)])
def test_the_tables_say_how_many_pawns_lead(pack_id, changes, leaders):
    """The leaders are pawns 0 .. leaders-1 (the move entry names a pawn by it); a duel has
    no pawns, so none leads."""
    assert tables_of(derived(pack_id, **changes) if changes else pack(pack_id)).leaders == leaders


@pytest.mark.parametrize("field, setting", [
    ("retake", "turn.retake"), ("wagers_when", "wagers.when"), ("row_start", "rows.start"),
    ("draw_pile_empty", "round_end.draw_pile_empty"),
    ("next_starter", "match.next_starter"), ("next_starter_tie", "match.next_starter_tie")])
def test_a_rule_name_no_registry_knows_is_one_setup_error_naming_the_setting(field, setting):
    """A pack built by hand (past the schema) with a name no registry of options.py knows
    is refused when its tables are compiled: one line naming the setting and its choices,
    never a KeyError from deep in the engine."""
    odd = replace(pack("duel-classic"), **{field: "no-such-rule"})
    with pytest.raises(SetupError) as raised:
        tables_of(odd)
    message = str(raised.value)
    assert f"unknown {setting} 'no-such-rule'" in message and "expected one of" in message
    assert "\n" not in message
