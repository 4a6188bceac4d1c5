"""Deprecated path of lostcities.envs.gymnasium_env (kept for one release, docs/rl.md).

The Gymnasium environment's module was ``lostcities.envs.gym_env``, the same name as the
constructor ``lostcities.envs.gym_env(...)``: importing the module (as docs/rl.md said to, to
register the id) put the module in the constructor's place, and ``lostcities.envs.gym_env(...)``
raised ``TypeError: 'module' object is not callable``. The module is now
``lostcities.envs.gymnasium_env``. This path still imports, with a DeprecationWarning, and
gives the same names (``from lostcities.envs.gym_env import gym_env, GYM_ID`` works); and
since Python sets a submodule as its package's attribute once it is imported, this module
makes itself callable, so that ``lostcities.envs.gym_env(...)`` still builds an environment
whichever was imported first.
"""
from __future__ import annotations

import sys
import types
import warnings
from typing import Any

from . import gymnasium_env as _new
from .gymnasium_env import (ENTRY_POINT, GYM_ID, GYM_IDS, OPPONENTS, LostCitiesGym,  # noqa: F401
                            gym_env, gym_id, register_envs)

__all__ = ["ENTRY_POINT", "GYM_ID", "GYM_IDS", "OPPONENTS", "LostCitiesGym", "gym_env", "gym_id",
           "register_envs"]

warnings.warn("lostcities.envs.gym_env is now lostcities.envs.gymnasium_env (the old module "
              "path goes in the next release); lostcities.envs.gym_env(...) stays the "
              "constructor", DeprecationWarning, stacklevel=2)


class _CallableModule(types.ModuleType):
    """This module, callable as the constructor it shadows as a package attribute."""

    def __call__(self, *args: Any, **kwargs: Any) -> LostCitiesGym:
        return _new.gym_env(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
