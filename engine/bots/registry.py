"""The bots by name: the registry of the built-in bots and :func:`make_bot`.

Above the bots it names (:mod:`.base`'s simple ones, :mod:`.expert`, :mod:`.ismcts`), which
never import it: the registry imports them, not the other way (issue 28, item 5).

A ``module:Class`` name imports code, so :func:`make_bot` builds one only when its
caller says the name comes from the person at the keyboard (``allow_import=True``:
a command-line option); a name read from anywhere else (a saved game, a simulation
record, a room message) never imports anything (:func:`names_code` tells them apart).
"""
from __future__ import annotations

import importlib
import inspect
from typing import Callable, Optional

from ..game.rules import RulePack
from .base import Bot, BotError, GreedyBot, RandomBot
from .expert import ExpertBot
from .ismcts import DEFAULT_LEVEL, ISMCTSBot


def _expert() -> Bot:
    return ExpertBot()


def _ismcts(level: Optional[int] = None) -> Bot:
    return ISMCTSBot(DEFAULT_LEVEL if level is None else level)


#: bots by name; ``module:Class`` names load any other Bot subclass. A factory that
#: takes ``level`` gives a bot with levels (``ismcts@2``, ``make_bot("ismcts", level=2)``)
BOTS: dict[str, Callable[..., Bot]] = {"random": RandomBot, "greedy": GreedyBot,
                                       "expert": _expert, "ismcts": _ismcts}

#: the built-in bots from strongest to weakest (measured with paired seeds and swapped
#: seats on duel-classic: benchmarks/bench_bots.py)
STRENGTH: tuple[str, ...] = ("ismcts", "expert", "greedy", "random")
#: the same on board packs, where the board search is not the stronger: ismcts wins under
#: half of its paired board-classic matches against the expert at 2 players
#: (benchmarks/bench_ismcts.py; docs/bots.md has the figures)
BOARD_STRENGTH: tuple[str, ...] = ("expert", "ismcts", "greedy", "random")


def _duel_strength() -> tuple[str, ...]:
    return STRENGTH


def _board_strength() -> tuple[str, ...]:
    return BOARD_STRENGTH


#: the order of :func:`strongest` by the pack's family (each read when asked: a caller may
#: set :data:`STRENGTH` or :data:`BOARD_STRENGTH` anew)
STRENGTHS: dict[str, Callable[[], tuple[str, ...]]] = {"duel": _duel_strength,
                                                       "board": _board_strength}


def strongest(pack: Optional[RulePack] = None) -> str:
    """The name of the strongest built-in bot (the first of :data:`STRENGTH` in
    :data:`BOTS`; for a ``pack`` with a board, of :data:`BOARD_STRENGTH`)."""
    order = STRENGTH if pack is None else STRENGTHS[pack.family]()
    return next(name for name in order if name in BOTS)


def has_levels(name: str) -> bool:
    """Whether the registry bot ``name`` takes a level (``name@LEVEL``)."""
    factory = BOTS.get(name)
    return factory is not None and _takes_level(factory)


def _takes_level(factory: Callable[..., Bot]) -> bool:
    try:
        inspect.signature(factory).bind(level=1)
    except (TypeError, ValueError):
        return False
    return True


def strongest_with_levels() -> Optional[str]:
    """The strongest built-in bot that takes a level (what ``lc play --level`` plays), or None."""
    return next((name for name in STRENGTH if has_levels(name)), None)


def names_code(spec: str) -> bool:
    """Whether the bot name ``spec`` is a ``module:Class`` path (code to import) rather
    than a built-in name of :data:`BOTS` (``greedy``, ``ismcts@3``)."""
    name = spec.strip().partition("@")[0]
    return name not in BOTS and ":" in spec


def make_bot(spec: str, level: Optional[int] = None, *, allow_import: bool = False) -> Bot:
    """Build a bot from its name in :data:`BOTS` (``name@LEVEL`` for a level) or a
    ``module:Class`` path. ``level`` is for bots with levels (e.g. ``ismcts``, 1-5).

    A ``module:Class`` path is imported only with ``allow_import=True``, which a
    caller passes for a name the person at the keyboard typed (a command-line
    option), never for one read from a file; otherwise :class:`BotError`, and
    nothing is imported.
    """
    spec = spec.strip()
    name, at, level_text = spec.partition("@")
    if at and name in BOTS:
        if not (level_text.isascii() and level_text.isdigit() and len(level_text) <= 3):
            raise BotError(f"bot {spec!r}: write a level as a whole number, e.g. {name}@3")
        level = int(level_text)
        spec = name
    shown = f"{spec}@{level}" if level is not None else spec
    factory: Optional[Callable[..., Bot]] = BOTS.get(spec)
    if factory is None and ":" in spec:
        if not allow_import:
            raise BotError(f"bot {spec!r} names code to import (module:Class); only a name "
                           f"given on the command line is imported")
        module_name, _, attr = spec.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as err:
            raise BotError(f"bot {spec!r}: cannot import {module_name!r} ({err})") from None
        factory = getattr(module, attr, None)
        if factory is None:
            raise BotError(f"bot {spec!r}: {module_name} has no {attr!r}")
    if factory is None:
        raise BotError(f"unknown bot {spec!r}; built-in bots: {', '.join(BOTS)}, "
                       f"or give module:Class")
    try:
        if level is None:
            bot = factory()
        else:
            if not _takes_level(factory):
                raise BotError(f"bot {spec!r} has no levels")
            bot = factory(level=level)
    except BotError:
        raise
    except Exception as err:  # a user class failing in __init__, a level out of range
        raise BotError(f"bot {shown!r} could not be built: {err}") from None
    if not callable(getattr(bot, "choose", None)):
        raise BotError(f"bot {spec!r} has no choose(view) method")
    return bot
