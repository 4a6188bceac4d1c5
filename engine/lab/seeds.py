"""The seed of each game of a simulation: what ``lc simulate`` plays and what its records are
checked against (below both :mod:`.simulation` and :mod:`.records`, so that neither imports
the other for it)."""
from __future__ import annotations

import hashlib


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a simulation seeded ``seed`` (stable everywhere)."""
    digest = hashlib.sha256(f"lostcities-simulate:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")
