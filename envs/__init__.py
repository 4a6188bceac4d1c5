"""lostcities.envs: the standard interfaces of game-AI libraries over any rule pack
(PettingZoo, Gymnasium, OpenSpiel) and a batched engine; ``pip install 'lostcities[rl]'``
(docs/rl.md).

Names load lazily (PEP 562): ``import lostcities.envs`` needs none of the optional libraries;
each adapter imports its own library when first used.
"""
from __future__ import annotations

import importlib
from typing import Any

#: public name -> module (relative to this package) that defines it
_LAZY: dict[str, str] = {
    **dict.fromkeys(("Layout", "layout", "encode", "PHASES", "TILE_KINDS"), ".observe"),
    **dict.fromkeys(("LostCitiesAEC", "aec_env"), ".pettingzoo_env"),
    # the Gymnasium module is gymnasium_env, named apart from its constructor gym_env, so
    # that importing it never puts a module in the constructor's place (gym_env.py: the old
    # path, deprecated); the first use of any of these registers the Gymnasium ids
    **dict.fromkeys(("LostCitiesGym", "gym_env", "GYM_ID", "GYM_IDS", "gym_id",
                     "register_envs", "SELFPLAY_IDS", "selfplay_id"), ".gymnasium_env"),
    **dict.fromkeys(("LostCitiesGame", "LostCitiesState", "register_openspiel",
                     "OPENSPIEL_NAME"), ".openspiel_game"),
    **dict.fromkeys(("VectorEnv", "round_deal", "ScalarBatch", "LostCitiesVectorEnv",
                     "vector_env", "sample_masks"), ".vector"),
    **dict.fromkeys(("ActionFeatures",), ".features"),
    **dict.fromkeys(("shuffle_orders",), ".bulkshuffle"),
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lostcities.envs' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
