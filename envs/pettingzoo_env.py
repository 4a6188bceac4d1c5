"""PettingZoo AEC environment over any pack: :func:`aec_env` (docs/rl.md).

Agents are ``player_0 .. player_{n-1}`` (seats). The agent to act is the seat to move; a turn
is several decisions (the card, then the draw; the board game's pawn and advances between),
each one ``step`` with an action id of :func:`lostcities.engine.action_space`, so the same
agent often acts several times in a row. Observations are dicts ``{"observation": float32
vector (lostcities.envs.observe), "action_mask": int8 mask of the legal ids}``; each seat's
vector is written once per change (:class:`~lostcities.envs.observe.SeatVectors`) and
``observe`` returns a copy. The match is played in place on ``env.state`` (``push_action``:
no new state a decision; ``env.state.copy()`` keeps a position); an illegal id raises the
engine's one-line error and changes nothing.

Rewards come at the end of each round and of the match (``reward``):

- ``"points"``: at each round's end every seat gets its round score (the pack's formula);
  the sum over a match is the seat's total when the match formula is the plain sum (every
  duel pack); for a board pack the match formula's extra (the artefact scale) is given at
  the match's end, so the sum is the total there too.
- ``"win"``: 0 until the match ends; then +1 to the single winner, 0 to every seat of a
  shared win, -1 to the others (``winners``, with the pack's tie break).

Seeding: ``reset(seed=s)`` plays the match ``new_game(pack, players, s)``; a later
``reset()`` without a seed plays seed ``s + 1``, ``s + 2``... The first seed is the
constructor's ``seed`` (``None``: drawn from the operating system).
"""
from __future__ import annotations

import random
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from lostcities.engine import (action_space, is_over, legal_actions, new_game, push_action, step,
                               totals, winners)
from lostcities.engine.errors import InputError

from .observe import SeatVectors, layout, pack_of
from .text import render

REWARDS = ("points", "win")


def check_reward(reward: str) -> str:
    """``reward`` if it is one of :data:`REWARDS`; :class:`InputError` otherwise."""
    if reward not in REWARDS:
        raise InputError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    return reward


def new_seed(seed: Optional[int]) -> int:
    """``seed``, or a fresh one from the operating system when ``None``."""
    if seed is None:
        return random.SystemRandom().randrange(2**31)
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise InputError(f"seed must be an integer, not {seed!r}")
    return int(seed)


class LostCitiesAEC(AECEnv):
    """A match of ``pack`` (an id or a loaded pack) for ``players`` seats; see the module doc."""

    metadata = {"render_modes": ["ansi", "human"], "name": "lostcities_v0",
                "is_parallelizable": False}

    def __init__(self, pack: Any = "duel-classic", players: int = 2, seed: Optional[int] = None,
                 reward: str = "points", render_mode: Optional[str] = None):
        super().__init__()
        self.pack = pack_of(pack)
        self.players = players
        self.reward_kind = check_reward(reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InputError(f"render_mode must be ansi or human, not {render_mode!r}")
        self.render_mode = render_mode
        self.layout = layout(self.pack, players)
        self.space = action_space(self.pack)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents = self.possible_agents[:]
        n_actions = self.space.num_actions
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(self.layout.low, self.layout.high, (self.layout.size,),
                                      np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
        })
        self._action_space = spaces.Discrete(n_actions)
        self._next_seed = seed
        self.state = new_game(self.pack, players, 0)  # replaced by reset
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        # every seat's vector, written once per change (lostcities.envs.observe.SeatVectors)
        self._vectors = SeatVectors(self.layout, self.state)
        self._rewarded = False  # some reward of the last step is not 0
        self._legal: tuple[int, list[int]] = (-1, [])  # (decision number, legal ids then)
        self._decisions = 0  # decisions made on this state (the legal ids' date)
        self.seed_played: Optional[int] = None
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def _seat(self, agent: str) -> int:
        return self._seats[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's vector (a copy of the one kept up to date) and its mask: 1 for each
        legal id when it is to move, all 0 otherwise and once the match is over."""
        seat = self._seats[agent]
        state = self.state
        legal = bytearray(self.space.num_actions)  # the mask's own buffer, zeros
        if state.to_move == seat and not is_over(state):
            ids = legal_actions(state)
            self._legal = (self._decisions, ids)
            for a in ids:
                legal[a] = 1
        return {"observation": self._vectors.vector(seat).copy(),
                "action_mask": np.frombuffer(legal, np.int8)}

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        played = new_seed(seed if seed is not None else self._next_seed)
        self.seed_played = played
        self._next_seed = played + 1
        self.state = new_game(self.pack, self.players, played)
        self._vectors.reset(self.state)
        self._decisions = 0
        self._legal = (-1, [])
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._rewarded = False
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.state.to_move]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state
        action = int(action)
        when, legal = self._legal
        if when != self._decisions:
            legal = legal_actions(state)
        if action not in legal:
            step(state, action)  # raises the engine's one-line error, leaves the state as it was
        seat, rounds = state.to_move, len(state.finished)
        self._cumulative_rewards[agent] = 0.0
        push_action(state, action)  # in place: one undo record, no new state
        self._decisions += 1
        self._vectors.update(state, seat, action)
        if self._rewarded:
            self.rewards = {a: 0.0 for a in self.agents}
            self._rewarded = False
        if len(state.finished) == rounds and not is_over(state):
            # no round ended: every reward is 0, nothing to accumulate
            self.agent_selection = self.agents[state.to_move]
            if self.render_mode == "human":
                self.render()
            return
        finished = [r.scores for r in state.finished]
        over = is_over(state)
        if self.reward_kind == "points":
            for r in finished[rounds:]:
                for seat, score in enumerate(r):
                    self.rewards[self.agents[seat]] += float(score)
            if over:  # the match formula's extra beyond the sum of the rounds
                for seat, total in enumerate(totals(state)):
                    extra = total - sum(r[seat] for r in finished)
                    self.rewards[self.agents[seat]] += float(extra)
        elif over:
            won = winners(state)
            for seat, a in enumerate(self.agents):
                self.rewards[a] = (1.0 if len(won) == 1 else 0.0) if seat in won else -1.0
        self._rewarded = True
        if over:
            self.terminations = {a: True for a in self.agents}
            # agent_selection stays valid; each agent then steps None to leave (_was_dead_step)
        else:
            self.agent_selection = self.agents[state.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Optional[str]:
        """The table as text (``ansi``: returned; ``human``: printed)."""
        return render(self.state, self.render_mode)

    def close(self) -> None:
        pass


def aec_env(pack: Any = "duel-classic", players: int = 2, seed: Optional[int] = None,
            reward: str = "points", render_mode: Optional[str] = None) -> LostCitiesAEC:
    """A PettingZoo AEC environment of ``pack`` (a built-in id, a pack file or a loaded
    ``RulePack``) for ``players`` seats; ``reward`` ``"points"`` or ``"win"`` (module doc)."""
    return LostCitiesAEC(pack, players, seed, reward, render_mode)
