"""lostcities.engine: rule packs, the generic turn engine and game records.

The public API is re-exported here lazily (PEP 562), so that importing this
package stays cheap; see docs/api.md.
"""
from __future__ import annotations

import importlib
from typing import Any

from .errors import (IllegalMoveError, InputError, InvalidMoveError, LostCitiesError, PackError,
                     Problem, RecordError, ScoringError)

#: public name -> module (relative to this package) that defines it
_LAZY: dict[str, str] = {
    "RulePack": ".game.rules",
    "CardCodec": ".game.cards",
    "load_pack": ".packs.loader",
    "check_pack": ".packs.loader",
    "validate_pack": ".packs.loader",
    "resolve_pack": ".packs.loader",
    **dict.fromkeys(("new_game", "legal_moves", "is_legal", "illegal_reason", "why_refused",
                     "apply", "push",
                     "pop", "random_move", "playout", "legal_actions", "legal_action_mask",
                     "push_action", "step", "is_over", "round_scores", "live_scores", "totals",
                     "winners", "continue_match", "describe_move", "shuffle_deal", "derive",
                     "with_hidden"), ".game.turn"),
    **dict.fromkeys(("Move", "ActionSpace", "action_space", "num_actions", "move_to_actions",
                     "actions_to_move", "DECK"), ".game.moves"),
    **dict.fromkeys(("GameState", "Deal", "RoundResult", "SetupError"), ".game.state"),
    **dict.fromkeys(("Observation", "BoardView", "observation"), ".game.view"),
    **dict.fromkeys(("record_of", "dumps", "read_records", "replay", "pack_sha256", "pack_claims",
                     "embedded_pack"), ".lab.records"),
    "Refusal": ".game.refusals",
    **dict.fromkeys(("Bot", "SeatView", "RandomBot", "GreedyBot", "BotError"), ".bots.base"),
    **dict.fromkeys(("BOTS", "make_bot"), ".bots.registry"),
    **dict.fromkeys(("simulate", "play_match", "game_seed", "Summary"), ".lab.simulation"),
    **dict.fromkeys(("check_row", "refusal", "check_copies", "group_rows", "tally", "Tally",
                     "ExpeditionTally"), ".game.rows"),
    # for tools built on the library (the front-ends: lc, the room server, the rulebooks)
    **dict.fromkeys(("PLAY", "DISCARD", "draw_text"), ".game.moves"),
    "BoardSpec": ".game.rules",
    "CENTRE": ".game.board",
    "seen_scores": ".game.view",
    **dict.fromkeys(("builtin_ids", "builtin_path", "builtin_dir", "schema_text", "format_path",
                     "iter_leaves", "PackReport", "ResolvedPack"), ".packs.loader"),
    "loads_as_text": ".packs.yamlsafe",
    **dict.fromkeys(("explain", "Explanation", "Sentence", "Term", "Formula", "Example"),
                    ".packs.explain"),
    **dict.fromkeys(("RECORD_FORMAT", "engine_version", "check_shape"), ".lab.records"),
    **dict.fromkeys(("strongest", "strongest_with_levels", "has_levels", "names_code"),
                    ".bots.registry"),
    **dict.fromkeys(("BACKENDS", "cores", "max_workers", "OVERSUBSCRIBE_PER_CORE"),
                    ".lab.backends"),
    "balance": ".lab.balance",
}

__all__ = ["IllegalMoveError", "InputError", "InvalidMoveError", "LostCitiesError", "PackError",
           "Problem", "RecordError", "ScoringError", "compilable_modules", "compiled_modules", *_LAZY]


def compilable_modules() -> tuple[str, ...]:
    """The modules a compiled build makes C extensions of, as dotted names, in the order of
    ``compiled_modules.txt`` (beside this file; comments and blank lines left out), whether
    this install runs them compiled or not (:func:`compiled_modules` tells that)."""
    from pathlib import Path

    listed = Path(__file__).with_name("compiled_modules.txt").read_text(encoding="utf-8")
    out = []
    for line in listed.splitlines():
        source = line.strip()
        if source and not source.startswith("#"):
            out.append("lostcities." + source.removesuffix(".py").replace("/", "."))
    return tuple(out)


def compiled_modules() -> tuple[str, ...]:
    """The modules this install runs compiled, as dotted names; ``()`` for pure Python.

    A wheel built with ``LOSTCITIES_COMPILE=1 pip install .`` ships the modules of
    :func:`compilable_modules` as C extensions that Cython made from the very same source,
    next to the ``.py`` files; Python imports an extension when there is one. The plain and
    the editable install run pure Python. The answer comes from the files beside the
    sources, so nothing is imported to find it (``lc --version`` stays quick).
    """
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    here = Path(__file__).parent
    grammar = importlib.util.find_spec("lostcities.grammar")  # found, not imported
    folders = {"engine": here,
               "grammar": Path(next(iter(grammar.submodule_search_locations or ()), here))}
    found = []
    for name in compilable_modules():
        top, *rest = name.split(".")[1:]
        module = folders[top].joinpath(*rest)
        if any(module.with_name(module.name + suffix).is_file()
               for suffix in importlib.machinery.EXTENSION_SUFFIXES):
            found.append(name)
    return tuple(found)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lostcities.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
