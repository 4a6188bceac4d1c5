"""lostcities.engine: rule packs, the generic turn engine and game records.

The game API (what a bot author uses: a match, its moves and views, bots, simulation,
records, errors) is re-exported here lazily (PEP 562), so that importing this package
stays cheap; the front ends' plumbing is :mod:`lostcities.engine.tooling`. See docs/api.md.
"""
from __future__ import annotations

import importlib
import warnings
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
                     "with_hidden", "push_draw"), ".game.turn"),
    **dict.fromkeys(("Move", "ActionSpace", "action_space", "num_actions", "move_to_actions",
                     "actions_to_move", "DECK"), ".game.moves"),
    **dict.fromkeys(("GameState", "Deal", "RoundResult", "SetupError"), ".game.state"),
    **dict.fromkeys(("Observation", "BoardView", "observation"), ".game.view"),
    **dict.fromkeys(("record_of", "dumps", "read_records", "replay", "pack_sha256", "pack_claims",
                     "embedded_pack", "forfeit_winners", "FORFEIT_REASONS"), ".lab.records"),
    "Refusal": ".game.refusals",
    **dict.fromkeys(("Bot", "SeatView", "RandomBot", "GreedyBot", "BotError"), ".bots.base"),
    **dict.fromkeys(("BOTS", "make_bot"), ".bots.registry"),
    **dict.fromkeys(("simulate", "play_match", "game_seed", "Summary"), ".lab.simulation"),
    **dict.fromkeys(("check_row", "refusal", "check_copies", "group_rows", "tally", "Tally",
                     "ExpeditionTally"), ".game.rows"),
    # the values of Move.action, a board pack's board and its centre, the scores a view shows
    **dict.fromkeys(("PLAY", "DISCARD"), ".game.moves"),
    "BoardSpec": ".game.rules",
    "CENTRE": ".game.tracks",
    "seen_scores": ".game.view",
    **dict.fromkeys(("builtin_ids", "PackReport", "ResolvedPack"), ".packs.loader"),
}

#: the names that moved to :mod:`lostcities.engine.tooling` (the front ends' plumbing): still
#: read here for one release, with a DeprecationWarning (docs/api.md)
DEPRECATED: frozenset[str] = frozenset((
    "draw_text", "builtin_path", "builtin_dir", "schema_text", "format_path", "iter_leaves",
    "loads_as_text", "explain", "Explanation", "Sentence", "Term", "Formula", "Example",
    "RECORD_FORMAT", "engine_version", "check_shape", "strongest", "strongest_with_levels",
    "has_levels", "names_code", "BACKENDS", "cores", "max_workers", "OVERSUBSCRIBE_PER_CORE",
    "balance"))
#: the release that no longer has them here
DEPRECATED_UNTIL = "0.3.0"

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
    if module is None and name in DEPRECATED:
        warnings.warn(f"lostcities.engine.{name} moved to lostcities.engine.tooling.{name}; "
                      f"the old name goes away in {DEPRECATED_UNTIL}", DeprecationWarning,
                      stacklevel=2)
        return getattr(importlib.import_module(".tooling", __name__), name)
    if module is None:
        raise AttributeError(f"module 'lostcities.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
