"""The facts a pack compiles into, which code that batches or sums the rules reads instead of
the pack's strings (issue 28, item 2): envs/vector.py and envs/features.py decide from these,
never from a formula's text or an ordering's name."""
from __future__ import annotations

import pytest

from enginehelpers import derived, pack
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


@pytest.mark.parametrize("pack_id, changes, leaders", [
    ("duel-classic", {}, 0), ("board-classic", {}, 1),
    ("board-classic", {"board": {"leaders": 0}}, 0),
    ("board-classic", {"board": {"leaders": 2}}, 2)])
def test_the_tables_say_how_many_pawns_lead(pack_id, changes, leaders):
    """The leaders are pawns 0 .. leaders-1 (the move entry names a pawn by it); a duel has
    no pawns, so none leads."""
    assert tables_of(derived(pack_id, **changes) if changes else pack(pack_id)).leaders == leaders
