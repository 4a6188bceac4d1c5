"""OpenSpiel: any built-in pack as the Python game ``python_lostcities`` (docs/rl.md).

``pyspiel.load_game("python_lostcities", {"pack": "duel-six", "players": 2, "seed": 0})``
once this module is imported (``import lostcities.envs.openspiel_game``, or
:func:`register_openspiel`). Parameters: ``pack`` (a built-in pack id), ``players``, ``seed``
(a board pack's event-tile layouts: public, laid by the engine from this seed as in
``new_game``; it decides nothing hidden).

Chance (explicit stochastic): the cards are chance nodes, drawn when they are dealt or drawn.

- At the start of each round, ``players * hand_size`` chance nodes deal the hands card by
  card (seat 0's first, then seat 1's...); each outcome is a card kind (an id ``0 .. K-1``)
  with probability (copies of it not yet dealt) / (cards not yet dealt).
- A decision "draw deck" (id ``2K``) is followed by one chance node: the card drawn, over
  the cards nobody has seen (the draw pile and the cards removed unseen together), each
  kind weighted by its copies there. Drawing uniformly from the unseen cards at each draw
  is the same distribution as a shuffled pile; the round still ends when the pile's count
  runs out.

Player actions are the pack's action ids (:func:`lostcities.engine.action_space`). Returns
at the end: +1 to a single winner and -1 to the other seats at two players; in general each
winner gets ``1/w`` and each other seat ``-1/(n-w)`` (``w`` winners, by the pack's tie break;
all 0 when every seat shares the win): zero-sum, within [-1, 1].

Observations: ``observation_tensor`` is the seat's vector of lostcities.envs.observe;
``observation_string`` the table and the seat's hand; ``information_state_string`` the
seat's whole history (every decision, the seat's own cards dealt and drawn, the others'
as ``?``: perfect recall); ``information_state_tensor`` is the observation vector (not
perfect recall). ``resample_from_infostate`` (ISMCTS) deals the other seats' unknown cards
and the pile again uniformly from the cards the seat has not seen (no inference from play).
"""
from __future__ import annotations

import random
import re
from typing import Any, Callable, Optional

import numpy as np
import pyspiel

from lostcities.engine import (GameState, RulePack, action_space, derive, is_over,
                               legal_actions, load_pack, new_game, observation, step, winners)
from lostcities.engine.errors import InputError

from .observe import layout
from .text import table_text

#: the name OpenSpiel knows the game by
OPENSPIEL_NAME = "python_lostcities"
_PACK_ID = re.compile(r"[a-z][a-z0-9-]{0,39}")

_GAME_TYPE = pyspiel.GameType(
    short_name=OPENSPIEL_NAME,
    long_name="Lost Cities (lostcities rule packs)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"pack": "duel-classic", "players": 2, "seed": 0})


def _builtin_pack(pack_id: Any):
    if not isinstance(pack_id, str) or not _PACK_ID.fullmatch(pack_id):
        raise InputError(f"pack must be a built-in pack id, not {str(pack_id)[:60]!r}")
    return load_pack(pack_id)


def _duel_turn(pack: RulePack) -> int:
    """A duel's turn: a card, then a draw."""
    return 2


def _board_turn(pack: RulePack) -> int:
    """A board turn at its longest: a card and a draw, one pawn decision, and a step for
    each space of each pawn."""
    board = pack.board
    return 3 + board.pawns * board.spaces


#: family -> the most decisions one of its turns takes (for ``max_game_length``)
TURN_DECISIONS: dict[str, Callable[[RulePack], int]] = {"duel": _duel_turn, "board": _board_turn}


class LostCitiesGame(pyspiel.Game):
    """The game ``python_lostcities`` of one pack and player count (module doc)."""

    def __init__(self, params: Optional[dict] = None):
        params = dict(params or {})
        self.pack = _builtin_pack(params.get("pack", "duel-classic"))
        players = int(params.get("players", 2))
        if not self.pack.min_players <= players <= self.pack.max_players:
            raise InputError(f"{self.pack.id} is for {self.pack.min_players}-"
                             f"{self.pack.max_players} players, not {players}")
        self.players = players
        self.tiles_seed = int(params.get("seed", 0))
        self.space = action_space(self.pack)
        self.layout = layout(self.pack, players)
        per_turn = TURN_DECISIONS[self.pack.family](self.pack)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.space.num_actions,
            max_chance_outcomes=self.pack.cards.n_kinds,
            num_players=players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=self.pack.rounds * self.pack.turn_cap * per_turn)
        super().__init__(_GAME_TYPE, info, {"pack": self.pack.id, "players": players,
                                            "seed": self.tiles_seed})

    def new_initial_state(self) -> "LostCitiesState":
        return LostCitiesState(self)

    def initial_match(self) -> "Match":
        """A fresh copy of the match before its first deal (built once)."""
        first = self.__dict__.get("_first")
        if first is None:
            first = self.__dict__["_first"] = Match(self)
        return first.__deepcopy__({})

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "_Observer":
        return _Observer(self, iig_obs_type, params)

    def observation_tensor_shape(self) -> list[int]:  # noqa: D102 (OpenSpiel's)
        return [self.layout.size]

    def information_state_tensor_shape(self) -> list[int]:  # noqa: D102
        return [self.layout.size]


class Match:
    """The adapter's own match: the engine's state, the chance still due and the history.

    ``events`` holds ``("deal"|"draw", seat, card)`` for chance and ``("act", seat, id,
    card_taken)`` for decisions (``card_taken``: the card drawn from a discard pile, else
    -1). Copied cheaply for OpenSpiel's ``clone``; pickled as its events alone (replayed)."""

    def __init__(self, game: LostCitiesGame):
        self.game = game
        self.events: list[tuple] = []
        #: per seat, the words of its information state; [n]: the public words
        self.words: list[list[str]] = [[f"{game.pack.id} p{p}"] for p in range(game.players + 1)]
        self.removed: list[int] = []
        self.draw_pending = False
        self.to_deal = 0
        self.state: GameState = new_game(game.pack, game.players, game.tiles_seed)
        self.rounds_dealt = 0
        self._start_deal()

    # -- copying and pickling
    def __deepcopy__(self, memo: dict) -> "Match":
        new = Match.__new__(Match)
        new.game, new.events, new.removed = self.game, self.events[:], self.removed[:]
        new.words = [w[:] for w in self.words]
        new.draw_pending, new.to_deal, new.rounds_dealt = (self.draw_pending, self.to_deal,
                                                          self.rounds_dealt)
        new.state = self.state.copy()
        return new

    def __getstate__(self) -> dict:
        return {"params": {"pack": self.game.pack.id, "players": self.game.players,
                           "seed": self.game.tiles_seed}, "events": self.events}

    def __setstate__(self, data: dict) -> None:
        fresh = Match(LostCitiesGame(data["params"]))
        for event in data["events"]:
            if event[0] == "act":
                fresh.act(event[2])
            else:
                fresh.chance(event[2])
        self.__dict__.update(fresh.__dict__)

    # -- chance
    def _start_deal(self) -> None:
        """A round begins: its hands are dealt by chance nodes."""
        s = self.state.copy()
        s.hands = [[] for _ in range(s.n)]
        s.deck = []
        derive(s)
        self.state = s
        self.removed = []
        self.to_deal = s.n * self.game.pack.hand_size
        self.rounds_dealt = len(s.finished) + 1

    def unseen(self) -> dict[int, int]:
        """Copies of each card kind the chance node draws from now."""
        counts: dict[int, int] = {}
        if self.to_deal:
            for card in self.game.pack.deck():
                counts[card] = counts.get(card, 0) + 1
            for hand in self.state.hands:
                for card in hand:
                    counts[card] -= 1
        else:
            for card in self.state.deck + self.removed:
                counts[card] = counts.get(card, 0) + 1
        return {k: v for k, v in counts.items() if v > 0}

    def chance(self, card: int) -> None:
        counts = self.unseen()
        if counts.get(card, 0) <= 0:
            raise InputError(f"chance outcome {card} is not a card left to draw")
        s = self.state.copy()
        if self.to_deal:
            hand_size = self.game.pack.hand_size
            seat = (s.n * hand_size - self.to_deal) // hand_size
            s.hands[seat].append(card)
            self.to_deal -= 1
            self._log(("deal", seat, card))
            if not self.to_deal:  # the rest is the pile and the removed cards, all unseen
                rest = counts
                rest[card] -= 1
                cards = [k for k, v in sorted(rest.items()) for _ in range(v)]
                gone = self.game.pack.removed_unseen.get(s.n, 0)
                self.removed, s.deck = cards[:gone], cards[gone:]
            derive(s)
            self.state = s
            return
        # the draw from the pile: put the chosen card on top (top is last), then draw it
        if card in s.deck:
            i = len(s.deck) - 1 - s.deck[::-1].index(card)
            s.deck[i], s.deck[-1] = s.deck[-1], s.deck[i]
        else:
            i = self.removed.index(card)
            self.removed[i], s.deck[-1] = s.deck[-1], card
        self.draw_pending = False
        self._log(("draw", s.to_move, card))
        self.state = step(s, self.game.space.draw_deck)
        self._after_step()

    # -- decisions
    def act(self, action: int) -> None:
        s = self.state
        if action == self.game.space.draw_deck and action in legal_actions(s):
            self._log(("act", s.to_move, action, -1))
            self.draw_pending = True
            return
        taken = -1
        kind, arg = self.game.space.decode(action)
        if kind == "draw" and 0 <= arg < len(s.piles) and s.piles[arg]:
            taken = s.piles[arg][-1]
        self._log(("act", s.to_move, action, taken))
        self.state = step(s, action)
        self._after_step()

    def _after_step(self) -> None:
        s = self.state
        if not is_over(s) and len(s.finished) >= self.rounds_dealt:
            self._start_deal()

    def current_player(self) -> int:
        if is_over(self.state):
            return pyspiel.PlayerId.TERMINAL
        if self.to_deal or self.draw_pending:
            return pyspiel.PlayerId.CHANCE
        return self.state.to_move

    def _log(self, event: tuple) -> None:
        self.events.append(event)
        if event[0] == "act":
            word = f"a{event[1]}:{event[2]}"
            for words in self.words:
                words.append(word)
            return
        hidden = f"{event[0][0]}{event[1]}:?"
        for p, words in enumerate(self.words):
            words.append(f"{event[0][0]}{event[1]}:{event[2]}" if p == event[1] else hidden)

    def history_text(self, seat: int) -> str:
        """The seat's information state: every decision, its own cards, ``?`` for others'
        (``seat`` -1: the public history, every card ``?``)."""
        return " ".join(self.words[seat])


class LostCitiesState(pyspiel.State):
    """A position of ``python_lostcities``: see the module doc."""

    def __init__(self, game: LostCitiesGame):
        super().__init__(game)
        self.match = game.initial_match()

    def current_player(self) -> int:
        return self.match.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(legal_actions(self.match.state))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        counts = self.match.unseen()
        total = sum(counts.values())
        return [(k, v / total) for k, v in sorted(counts.items())]

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            self.match.chance(int(action))
        else:
            self.match.act(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        pack = self.match.game.pack
        if player == pyspiel.PlayerId.CHANCE:
            return f"card {pack.cards.format(action)}"
        return self.match.game.space.name(action)

    def is_terminal(self) -> bool:
        return is_over(self.match.state)

    def returns(self) -> list[float]:
        s = self.match.state
        n = s.n
        if not is_over(s):
            return [0.0] * n
        won = winners(s)
        if len(won) == n:
            return [0.0] * n
        return [1.0 / len(won) if p in won else -1.0 / (n - len(won)) for p in range(n)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> Any:
        """A state this seat cannot tell from this one: the other seats' unknown cards and
        the pile dealt again uniformly (module doc); ``probability_sampler`` is not used
        beyond seeding."""
        rng = random.Random(probability_sampler() if callable(probability_sampler) else None)
        clone = self.clone()
        m = clone.match
        if m.to_deal:
            return clone
        s = m.state.copy()
        known = _known_held(m, s.n)
        unknown: list[int] = list(s.deck) + list(m.removed)
        keep: list[list[int]] = []
        for p in range(s.n):
            mine = []
            if p == player_id:
                keep.append(s.hands[p][:])
                continue
            left = dict(known[p])
            for card in s.hands[p]:
                if left.get(card, 0) > 0:
                    left[card] -= 1
                    mine.append(card)
                else:
                    unknown.append(card)
            keep.append(mine)
        rng.shuffle(unknown)
        for p in range(s.n):
            if p != player_id:
                need = len(s.hands[p]) - len(keep[p])
                keep[p] += unknown[:need]
                unknown = unknown[need:]
        s.hands = keep
        gone = len(m.removed)
        m.removed, s.deck = unknown[:gone], unknown[gone:]
        derive(s)
        m.state = s
        return clone

    def __str__(self) -> str:
        return table_text(self.match.state) + "\n" + self.match.history_text(-1)


def _known_held(m: Match, n: int) -> list[dict[int, int]]:
    """Per seat, the cards everybody saw it take from a discard pile and still holds."""
    known: list[dict[int, int]] = [{} for _ in range(n)]
    space = m.game.space
    for e in m.events:
        if e[0] != "act":
            continue
        seat, action, taken = e[1], e[2], e[3]
        if taken >= 0:
            known[seat][taken] = known[seat].get(taken, 0) + 1
            continue
        kind, arg = space.decode(action)
        if kind in ("play", "discard") and known[seat].get(arg, 0) > 0:
            known[seat][arg] -= 1
    return known


class _Observer:
    """OpenSpiel's PyObserver: the seat's vector, and its history or table as a string."""

    def __init__(self, game: LostCitiesGame, iig_obs_type: Any, params: Any):
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.game = game
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.private = (iig_obs_type is None or iig_obs_type.private_info
                        == pyspiel.PrivateInfoType.SINGLE_PLAYER)
        self.tensor = np.zeros(game.layout.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: LostCitiesState, player: int) -> None:
        self.game.layout.encode(observation(state.match.state, player), out=self.tensor)
        if not self.private:
            self.tensor[self.game.layout.slice("hand")] = 0

    def string_from(self, state: LostCitiesState, player: int) -> str:
        m = state.match
        if self.perfect_recall:
            return m.history_text(player)
        text = table_text(m.state)
        if self.private:
            codec = self.game.pack.cards
            hand = observation(m.state, player).hand
            text += f"\nplayer_{player} holds " + " ".join(codec.format(c) for c in hand)
        return text


def register_openspiel() -> None:
    """Register ``python_lostcities`` with OpenSpiel (done when this module is imported)."""
    if OPENSPIEL_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_GAME_TYPE, LostCitiesGame)


register_openspiel()
