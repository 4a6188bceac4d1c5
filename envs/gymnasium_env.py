"""Gymnasium single-agent environment: one seat against built-in bots (docs/rl.md).

``lostcities.envs.gym_env(pack, opponent="expert", seat=0, seed=None, reward="points")``, or
``gymnasium.make("lostcities/duel-classic-v0", opponent=...)`` (an id per built-in pack,
``lostcities/<pack id>-v0``; ``lostcities/LostCities-v0`` takes ``pack=``), registered when
this module is first imported: by ``import lostcities.envs.gymnasium_env``, by the first use
of ``lostcities.envs.gym_env`` or ``LostCitiesGym``, or by gymnasium itself given
``gymnasium.make("lostcities.envs.gymnasium_env:lostcities/duel-classic-v0")``. (The module
was ``lostcities.envs.gym_env`` before; that path still imports, deprecated, see gym_env.py.)

An episode is one match. Each ``step`` is one decision of the agent's seat (an action id of
:func:`lostcities.engine.action_space`); the other seats' whole turns are played by their
bots in between. The observation is the seat's float32 vector (lostcities.envs.observe),
bounded by the pack (``Layout.low``/``high``). The legal ids: :meth:`LostCitiesGym.action_masks`
(what sb3-contrib's MaskablePPO calls) and ``info["action_mask"]``, the same int8 0/1 array
(the adapters' one mask convention: what ``action_space.sample(mask=...)`` takes); all 0 once
the match is over.

Rewards as in the AEC environment (lostcities.envs.pettingzoo_env): ``"points"``, the seat's
round score at each round's end (and the match formula's extra at the end), or ``"win"``,
+1 / 0 (shared) / -1 at the match's end. An illegal id ends the episode at once
(``terminated``) with reward ``illegal_reward`` and ``info["illegal"] = True``.

Seeding: ``reset(seed=s)`` plays ``new_game(pack, players, s)`` and seeds the bots from
``s``; a later ``reset()`` without a seed plays ``s + 1``, ``s + 2``...
"""
from __future__ import annotations

import random
from typing import Any, Optional

import gymnasium
import numpy as np
from gymnasium import spaces

from lostcities.engine import (SeatView, action_space, apply, builtin_ids, is_over,
                               legal_action_mask, legal_actions, make_bot, new_game,
                               observation, round_scores, step, totals, winners)
from lostcities.engine.errors import InputError

from .observe import layout, pack_of
from .pettingzoo_env import check_reward, new_seed
from .text import render

#: the first id registered with Gymnasium: any pack, given as ``pack=`` (default duel-classic)
GYM_ID = "lostcities/LostCities-v0"
#: the entry point every id names
ENTRY_POINT = "lostcities.envs.gymnasium_env:LostCitiesGym"
#: the vector entry point of the self-play ids: ``gymnasium.make_vec`` builds the batched
#: self-play environment (lostcities.envs.vector), imported only then
VECTOR_ENTRY_POINT = "lostcities.envs.vector:vector_env"


class RenderModeError(InputError, TypeError):
    """A render mode the environment lacks: an :class:`InputError` and a ``TypeError``, the
    error stable-baselines3's ``make_vec_env`` takes as "build it without": it asks for
    ``render_mode="rgb_array"`` first (text is all this environment renders)."""


def gym_id(pack_id: str) -> str:
    """The Gymnasium id of built-in pack ``pack_id``: ``lostcities/<pack_id>-v0``."""
    return f"lostcities/{pack_id}-v0"


def selfplay_id(pack_id: str) -> str:
    """The ``gymnasium.make_vec`` id of built-in pack ``pack_id``'s batched self-play
    environment: ``lostcities/<pack_id>-selfplay-v0``."""
    return f"lostcities/{pack_id}-selfplay-v0"

#: the built-in bots an opponent may be
OPPONENTS = ("random", "greedy", "expert", "ismcts")


class LostCitiesGym(gymnasium.Env):
    """Seat ``seat`` of a ``pack`` match against ``opponent`` bots; see the module doc."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, pack: Any = "duel-classic", opponent: str = "expert", seat: int = 0,
                 seed: Optional[int] = None, players: Optional[int] = None, reward: str = "points",
                 illegal_reward: float = -1.0, render_mode: Optional[str] = None):
        self.pack = pack_of(pack)
        if players is None:  # the pack's fewest: 2 for a duel, 3 for duel-grenoble
            players = self.pack.min_players
        names = [opponent] * (players - 1) if isinstance(opponent, str) else list(opponent)
        for name in names:
            if name.split("@")[0] not in OPPONENTS:
                raise InputError(f"opponent must be one of {', '.join(OPPONENTS)}, not {name!r}")
        if len(names) != players - 1:
            raise InputError(f"{players} players need {players - 1} opponent(s), not {len(names)}")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise InputError(f"seat must be 0-{players - 1}, not {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RenderModeError(f"render_mode must be ansi or human, not {render_mode!r}")
        self.opponents = names
        self.players, self.seat = players, seat
        self.reward_kind = check_reward(reward)
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.layout = layout(self.pack, players)
        self.space = action_space(self.pack)
        self.observation_space = spaces.Box(self.layout.low, self.layout.high,
                                            (self.layout.size,), np.float32)
        self.action_space = spaces.Discrete(self.space.num_actions)
        self._next_seed = seed
        self.seed_played: Optional[int] = None
        self.state = new_game(self.pack, players, 0)  # replaced by reset
        self._bots: dict[int, Any] = {}
        self._rng = random.Random(0)

    # ------------------------------------------------------------------ helpers
    def _mask(self) -> np.ndarray:
        mask = np.zeros(self.space.num_actions, np.int8)
        if not is_over(self.state) and self.state.to_move == self.seat:
            mask[:] = legal_action_mask(self.state)
        return mask

    def action_masks(self) -> np.ndarray:
        """The legal action ids now, an int8 0/1 array of ``action_space.n`` (sb3-contrib's
        ``MaskablePPO`` calls it before each step); all 0 once the match is over."""
        return self._mask()

    def _obs(self) -> np.ndarray:
        return self.layout.encode(observation(self.state, self.seat))

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask(), "seed": self.seed_played}

    def _reward(self, rounds_before: int) -> float:
        finished = round_scores(self.state)
        over = is_over(self.state)
        if self.reward_kind == "points":
            got = float(sum(r[self.seat] for r in finished[rounds_before:]))
            if over:
                got += totals(self.state)[self.seat] - sum(r[self.seat] for r in finished)
            return got
        if not over:
            return 0.0
        won = winners(self.state)
        return (1.0 if len(won) == 1 else 0.0) if self.seat in won else -1.0

    def _bots_play(self) -> None:
        """The other seats play their turns until the agent's seat is to move (or the end)."""
        while not is_over(self.state) and self.state.to_move != self.seat:
            p = self.state.to_move
            move = self._bots[p].choose(SeatView(self.state, p, self._rng))
            self.state = apply(self.state, move)

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        played = new_seed(seed if seed is not None else self._next_seed)
        self.seed_played, self._next_seed = played, played + 1
        self.state = new_game(self.pack, self.players, played)
        self._rng = random.Random(f"lostcities-gym:{played}")
        others = [p for p in range(self.players) if p != self.seat]
        self._bots = {p: make_bot(name) for p, name in zip(others, self.opponents)}
        self._bots_play()
        return self._obs(), self._info()

    def step(self, action: Any):
        a = int(action)
        if is_over(self.state):
            raise InputError("the match is over: call reset()")
        if a not in legal_actions(self.state):
            info = self._info()
            info["illegal"] = True
            return self._obs(), self.illegal_reward, True, False, info
        before = len(round_scores(self.state))
        self.state = step(self.state, a)
        self._bots_play()
        reward = self._reward(before)
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, is_over(self.state), False, self._info()

    def render(self) -> Optional[str]:
        """The table as text (``ansi``: returned; ``human``: printed)."""
        return render(self.state, self.render_mode)


def gym_env(pack: Any = "duel-classic", opponent: str = "expert", seat: int = 0,
            seed: Optional[int] = None, **kwargs: Any) -> LostCitiesGym:
    """A Gymnasium environment: seat ``seat`` of ``pack`` against ``opponent`` (a built-in
    bot name, or a list of one per other seat); keywords ``players`` (default: the pack's
    fewest), ``reward``,
    ``illegal_reward``, ``render_mode`` (module doc)."""
    return LostCitiesGym(pack, opponent, seat, seed, **kwargs)


def register_envs() -> list[str]:
    """Register every id with Gymnasium (done on import; again only for a missing id):
    :data:`GYM_ID` and ``lostcities/<pack id>-v0`` for each built-in pack (the ids
    returned), and each pack's self-play id for ``gymnasium.make_vec`` (:func:`selfplay_id`,
    :data:`SELFPLAY_IDS`: a vector entry point only; ``gymnasium.make`` of one is
    Gymnasium's error, there is no single self-play environment)."""
    ids = {GYM_ID: {}}
    ids.update((gym_id(p), {"pack": p}) for p in builtin_ids())
    for env_id, kwargs in ids.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs=kwargs)
    for p in builtin_ids():
        if selfplay_id(p) not in gymnasium.registry:
            gymnasium.register(id=selfplay_id(p), vector_entry_point=VECTOR_ENTRY_POINT,
                               kwargs={"pack": p})
    return list(ids)


#: every id registered for ``gymnasium.make``: GYM_ID, then one per built-in pack
GYM_IDS: tuple[str, ...] = tuple(register_envs())
#: every id registered for ``gymnasium.make_vec`` only: one per built-in pack
SELFPLAY_IDS: tuple[str, ...] = tuple(selfplay_id(p) for p in builtin_ids())
