"""Variants of the board search measured in docs/bots.md against the default, on the same
paired seeds: ``python benchmarks/bench_ismcts.py --only strength --pairings board2
--board-seeds 100 --bot board_variants:Depth4 --path benchmarks/variants`` (or ``:Endgame``;
``:FullRound`` is timed, not played: see its doc).
"""
from __future__ import annotations

from dataclasses import replace

from lostcities.engine.bots.ismcts import BOARD_SEARCH, ISMCTSBot

#: the draw pile at or below which :class:`Endgame` plays each lookahead to the round's end
ENDGAME = 10


class Depth4(ISMCTSBot):
    """The board search with the duel's 4-turn lookahead (16 passes, 3 candidates)."""

    def __init__(self, level: int = 2):
        super().__init__(level, board_params=replace(BOARD_SEARCH, depth=4))


class Endgame(ISMCTSBot):
    """The board search, its lookahead played to the round's end (the real scores) once
    the draw pile holds :data:`ENDGAME` cards or fewer; the default 2-turn lookahead before."""

    def __init__(self, level: int = 2):
        super().__init__(level)
        self.short = self.board_params
        self.full = replace(self.board_params, depth=999)

    def choose(self, view):
        self.board_params = self.full if view.observation.draw_pile <= ENDGAME else self.short
        return super().choose(view)


class FullRound(ISMCTSBot):
    """The board search with every lookahead played to the round's end (the real scores
    at every decision): what a search valued by outcomes rather than by the expert's
    outlook costs a decision (``bench_ismcts.py --only time --packs board-classic
    --timed board_variants:FullRound --path benchmarks/variants``)."""

    def __init__(self, level: int = 2):
        super().__init__(level, board_params=replace(BOARD_SEARCH, depth=999))
