"""docs/bots.md: the custom bot example runs as written and does what the text says."""
from __future__ import annotations

import re
from pathlib import Path

from enginehelpers import pack
from lostcities.engine.bots.base import RandomBot
from lostcities.engine.game.moves import PLAY
from lostcities.engine.lab.simulation import play_match
from lostcities.engine.game.turn import totals

DOC = Path(__file__).resolve().parent.parent / "docs" / "bots.md"


def example_class():
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### A complete example"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    return namespace["Cautious"]


def test_the_example_bot_opens_only_colours_held_three_times_and_beats_random():
    cautious = example_class()
    seen = []

    class Watched(cautious):
        def choose(self, view):
            move = super().choose(view)
            obs, codec = view.observation, view.pack.cards
            colour = codec.colour_of[move.card]
            if move.action == PLAY and not obs.rows[view.seat][colour]:
                seen.append(sum(codec.colour_of[k] == colour for k in obs.hand))
            return move

    wins = 0
    for seed in range(10):
        state = play_match(pack("duel-classic"), [Watched(), RandomBot()], seed)
        mine, theirs = totals(state)
        wins += mine > theirs
    assert seen and min(seen) >= 3
    assert wins >= 9


def test_the_example_bot_plays_a_board_pack_and_replays_identically():
    cautious = example_class()
    runs = [play_match(pack("board-classic"), [cautious(), cautious(), cautious()], 4)
            for _ in range(2)]
    assert runs[0].snapshot() == runs[1].snapshot()
    assert all(r.moves for r in runs[0].finished)


def test_the_documented_ismcts_levels_are_the_code_s():
    """docs/play.md and docs/bots.md list ismcts.LEVELS and the default level."""
    from lostcities.engine.bots.ismcts import DEFAULT_LEVEL, LEVELS

    play = (DOC.parent / "play.md").read_text(encoding="utf-8")
    listed = re.search(r"deals it searches per move \((.*?); see docs", play, re.S).group(1)
    pairs = re.findall(r"(\d): ([\d,]+)( \(the default\))?", listed)
    assert {int(lvl): int(n.replace(",", "")) for lvl, n, _ in pairs} == LEVELS
    assert [int(lvl) for lvl, _, default in pairs if default] == [DEFAULT_LEVEL]
    bots = DOC.read_text(encoding="utf-8")
    budget = re.search(r"level 1-5 = ([\d,\s]+)", bots).group(1).strip().rstrip(",")
    assert [int(n) for n in budget.split(",")] == list(LEVELS.values())


def test_the_doc_gives_the_readiness_threshold_the_expert_uses():
    """docs/bots.md says from which share of colours opened an opponent counts as opening
    colours readily: the value of ``ExpertParams.ready_from``."""
    from lostcities.engine.bots.expert import DUEL, ExpertParams

    text = DOC.read_text(encoding="utf-8")
    assert "`ExpertParams.ready_from`" in text and "`SeatMemory.opened_before`" in text
    assert f"`ExpertParams.ready_from`, {DUEL.ready_from:g}" in text
    assert ExpertParams().ready_from == DUEL.ready_from
