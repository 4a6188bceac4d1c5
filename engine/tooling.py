"""lostcities.engine.tooling: the front ends' plumbing, beside the game API.

``lostcities.engine`` is what a bot author needs (a match, its moves and views, bots,
simulation, records, errors). This namespace holds what the front ends built on it use
besides (``lc``, the room server, the learning adapters, the rulebooks' wording): the
built-in packs' files and the schema, key paths, the rulebook's language-neutral form,
the record format's helpers, the bot registry's questions, the run backends, and the safe
reading and printing of outside text. docs/api.md lists both tiers.

Loaded lazily like ``lostcities.engine`` (PEP 562): importing this module loads nothing
else of the engine.
"""
from __future__ import annotations

import importlib
from typing import Any

#: public name -> module (relative to lostcities.engine) that defines it
_LAZY: dict[str, str] = {
    # moves
    "draw_text": ".game.moves",
    # pack files
    **dict.fromkeys(("builtin_path", "builtin_dir", "schema_text", "format_path", "iter_leaves"),
                    ".packs.loader"),
    "loads_as_text": ".packs.yamlsafe",
    # rulebooks
    **dict.fromkeys(("explain", "Explanation", "Sentence", "Term", "Formula", "Example"),
                    ".packs.explain"),
    # records
    **dict.fromkeys(("RECORD_FORMAT", "engine_version", "check_shape", "record_form"),
                    ".lab.records"),
    # a pack's compiled facts (its rule options as tables: what each row state accepts, the
    # piles a discard may draw...), read by adapters that batch the rules (envs/vector.py)
    **dict.fromkeys(("Tables", "tables_of"), ".game.tables"),
    # what a board's event tile of each kind does (its effect, whether it carries a value),
    # read by front ends that draw or count tiles
    **dict.fromkeys(("TILE_KINDS", "TileKind", "ARTEFACT", "POINTS", "STEP", "tile_has_value"),
                    ".game.options"),
    # the bot registry
    **dict.fromkeys(("strongest", "strongest_with_levels", "has_levels", "names_code"),
                    ".bots.registry"),
    # workers and balance
    **dict.fromkeys(("BACKENDS", "cores", "max_workers", "OVERSUBSCRIBE_PER_CORE"),
                    ".lab.backends"),
    "balance": ".lab.balance",
    # reading and showing outside text safely
    **dict.fromkeys(("LIMITS", "Limits", "check_path", "kind_of", "open_regular", "open_text",
                     "read_text", "loads_json", "lone_surrogate", "shown_path", "shown_value",
                     "plain_text", "is_hidden", "escape_hidden"), ".safeio"),
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lostcities.engine.tooling' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, "lostcities.engine"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
