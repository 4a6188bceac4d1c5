"""The options of the commands that play many games (``lc simulate``, ``lc balance``):
``--bots`` (one bot per seat) and ``--workers``. Apart from :mod:`.common` so that the
commands that play no game do not load the bots and the process pools."""
from __future__ import annotations

import os
import sys
from typing import Any, Optional

from lostcities.engine import BOTS, BotError, make_bot
from lostcities.engine.tooling import OVERSUBSCRIBE_PER_CORE, cores, max_workers

from .common import EXIT_USAGE, fail


def bot_specs(text: Optional[str], pack: Any) -> list[str]:
    """Read ``--bots`` (one bot per seat, comma-separated) for ``pack``, or fail in one line.

    Default: ``random`` at every seat of the pack's smallest table. ``module:Class``
    bots are looked up from the current folder too.
    """
    specs = [s.strip() for s in text.split(",")] if text else ["random"] * pack.min_players
    if not all(specs):
        fail(f"--bots {text!r}: an empty bot name; give one name per seat, e.g. random,greedy",
             EXIT_USAGE)
    if not pack.min_players <= len(specs) <= pack.max_players:
        span = (str(pack.min_players) if pack.min_players == pack.max_players
                else f"{pack.min_players} to {pack.max_players}")
        fail(f"--bots: {len(specs)} bot(s) given, {pack.id} is played by {span} players "
             f"(one bot per seat)", EXIT_USAGE)
    if any(":" in spec for spec in specs) and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # module:Class bots from the current folder
    for spec in specs:
        try:
            make_bot(spec, allow_import=True)  # typed at the keyboard: may name code
        except BotError as err:
            fail(f"--bots: {err}", EXIT_USAGE)
    return specs


def complete_bot(incomplete: str) -> list[str]:
    """Shell completion for --bots: the built-in bot names after the last comma."""
    head, _, last = incomplete.rpartition(",")
    prefix = head + "," if head else ""
    return [prefix + name for name in BOTS if name.startswith(last)]


def check_workers_option(workers: Optional[int], oversubscribe: bool) -> None:
    """Fail in one line (exit 2) when ``--workers`` asks for more processes than cores
    (or, with ``--oversubscribe``, more than the per-core allowance)."""
    if workers is None:
        return
    most = max_workers(oversubscribe)
    if workers > most:
        many = cores()
        more = ("" if oversubscribe else
                f", or add --oversubscribe for up to {many * OVERSUBSCRIBE_PER_CORE}")
        fail(f"--workers {workers}: this machine has {many} core{'s' if many != 1 else ''}; "
             f"give at most {most}{more}", EXIT_USAGE)
