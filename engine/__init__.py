"""lostcities.engine: rule packs, the generic turn engine and game records.

The public API is re-exported here lazily (PEP 562), so that importing this
package stays cheap; see docs/api.md.
"""
from __future__ import annotations

import importlib
from typing import Any

from .errors import (IllegalMoveError, InvalidMoveError, LostCitiesError, PackError, Problem,
                     RecordError, ScoringError)

#: public name -> module (relative to this package) that defines it
_LAZY: dict[str, str] = {
    "RulePack": ".rules",
    "CardCodec": ".cards",
    "load_pack": ".packs",
    "check_pack": ".packs",
    "validate_pack": ".packs",
    "resolve_pack": ".packs",
}

__all__ = ["IllegalMoveError", "InvalidMoveError", "LostCitiesError", "PackError", "Problem",
           "RecordError", "ScoringError", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lostcities.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
