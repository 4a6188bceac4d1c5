"""lostcities.rulepacks: the built-in packs and the pack schema (package data), and the caps
every pack is held to.

Below both the pack loader (``lostcities.engine.packs``) and the scoring grammar
(``lostcities.grammar``, whose widest domain is the caps'): each reads the schema and the
caps here, so that neither imports the other for them (issue 28, item 5).
"""
from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

#: the most cards a pack's deck may hold (wagers included): board-classic has 110, duel-six 72
MAX_DECK = 300


@functools.lru_cache(maxsize=1)
def folder() -> Path:
    """The folder of the built-in packs and the schema, this package's own (importlib.resources,
    and the zipfile module it imports, only for a package that is not a plain folder)."""
    here = Path(__file__).parent
    if os.path.isdir(here):
        return here
    from importlib.resources import files  # a zipped install only, never at start-up

    return Path(str(files(__name__)))


@functools.lru_cache(maxsize=1)
def schema_text() -> str:
    """The pack JSON Schema (draft 2020-12) as shipped, as text."""
    return (folder() / "pack.schema.json").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def pack_schema() -> dict[str, Any]:
    """The pack JSON Schema as a mapping (do not modify)."""
    return json.loads(schema_text())
