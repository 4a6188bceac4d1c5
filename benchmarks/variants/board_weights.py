"""The expert with other board weights, one weight moved at a time, measured in
docs/bots.md against today's expert on seeds apart from the board search's:
``python benchmarks/bench_ismcts.py --only strength --pairings board2 --board-base 40
--board-seeds 150 --workers 2 --bot board_weights:PaceHi --path benchmarks/variants``.

Each class is the expert with :data:`~lostcities.engine.bots.expert.BOARD` changed in one
weight; a sweep asks whether the board search's model of the players (the expert) has
a better setting near today's, since a search can only be as good as what it searches
with.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from lostcities.engine.bots.expert import BOARD, ExpertBot


def weights(name: str, **changes: Any) -> type:
    """An expert class named ``name`` playing board packs with BOARD's ``changes``."""
    params = replace(BOARD, **changes)

    def __init__(self: ExpertBot, level: int = 2) -> None:
        ExpertBot.__init__(self, board_params=params)

    doc = f"The expert with board weights {', '.join(f'{k}={v}' for k, v in changes.items())}."
    return type(name, (ExpertBot,), {"__init__": __init__, "__doc__": doc, "name": name})


Same = weights("Same")  # today's weights: every match the same as the expert's (a check)
OppLo = weights("OppLo", opponent=0.5)
OppHi = weights("OppHi", opponent=1.1)
PaceLo = weights("PaceLo", crossing_pace=4.0)
PaceHi = weights("PaceHi", crossing_pace=9.0)
TrustLo = weights("TrustLo", trust=0.4)
TrustHi = weights("TrustHi", trust=0.8)
BiasLo = weights("BiasLo", play_bias=3.0)
BiasHi = weights("BiasHi", play_bias=10.0)
StallLo = weights("StallLo", stall=1.5)
StallHi = weights("StallHi", stall=5.0)
