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

Every chance outcome goes through the engine: a completed deal is the round's hands
(``with_hidden``), a draw is ``push_draw`` (the named card drawn from the deck), every
decision ``push_action`` after its check against the legal ids. The match is its list of
events; a clone shares the engine's state until either changes (one copy then).

Player actions are the pack's action ids (:func:`lostcities.engine.action_space`). Returns
at the end: +1 to a single winner and -1 to the other seats at two players; in general each
winner gets ``1/w`` and each other seat ``-1/(n-w)`` (``w`` winners, by the pack's tie break;
all 0 when every seat shares the win): zero-sum, within [-1, 1].

Observations: ``observation_tensor`` is the seat's vector of lostcities.envs.observe;
``observation_string`` the table and the seat's hand; ``information_state_string`` the
seat's whole history (every decision, the seat's own cards dealt and drawn, the others'
as ``?``: perfect recall); ``information_state_tensor`` is the observation vector (not
perfect recall). Each is built once per position and seat.

``resample_from_infostate(p, sampler)`` (ISMCTS) rebuilds the match from its first state:
the same decisions, seat ``p``'s own cards, and every card ``p`` never saw dealt again
(:func:`resample_events`), all replayed through the engine, so the new state's history,
information states and serialisation agree and hold nothing ``p`` could not know.
"""
from __future__ import annotations

import base64
import dataclasses
import pickle
import random
import re
from typing import Any, Callable, Optional

import numpy as np
import pyspiel

from lostcities.engine import (GameState, IllegalMoveError, InvalidMoveError, Observation,
                               RulePack, action_space, is_over, legal_actions, load_pack,
                               new_game, observation, push_action, push_draw, winners,
                               with_hidden)
from lostcities.engine.errors import InputError
from lostcities.engine.tooling import tables_of

from .observe import layout
from .text import table_text

#: the name OpenSpiel knows the game by
OPENSPIEL_NAME = "python_lostcities"
_PACK_ID = re.compile(r"[a-z][a-z0-9-]{0,39}")
CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
#: how many worlds :func:`resample_events` draws at most before it settles (module doc)
RESAMPLE_TRIES = 400
#: an empty Python ``__dict__`` as OpenSpiel serialises one (base64 of its pickle)
_NO_DICT = base64.b64encode(pickle.dumps({})).decode("ascii")

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
        codec = self.pack.cards
        self.n_kinds, self.n_colours = codec.n_kinds, codec.n_colours
        self.draw_deck = self.space.draw_deck
        #: copies of each card kind in the pack's deck
        self.deck_counts = [0] * self.n_kinds
        for card in self.pack.deck():
            self.deck_counts[card] += 1
        per_turn = TURN_DECISIONS[self.pack.family](self.pack)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.space.num_actions,
            max_chance_outcomes=self.n_kinds,
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
        match = first.copy()
        match._prefix = {}
        return match

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
    -1): OpenSpiel's history, one event per action. ``state`` changes in place; a copy
    shares it until either changes it (``_shared``: the one that does copies it first);
    pickled as its events (replayed).
    During a deal the engine's state holds the round as the engine dealt it, which nothing
    reads: the hands dealt so far are ``dealt``, and the deal's last card hands the engine
    the round's true hands (``with_hidden``)."""

    __slots__ = ("game", "state", "events", "dealt", "to_deal", "left", "draw_pending",
                 "player", "_legal", "_words", "_seen", "_shared", "_prefix")

    def __init__(self, game: LostCitiesGame):
        self.game = game
        self.events: list[tuple] = []
        self.state: GameState = new_game(game.pack, game.players, game.tiles_seed)
        self._words: list[Optional[tuple[int, str]]] = [None] * (game.players + 1)
        self._shared = False
        #: (seat, round) -> (the events up to that round's end, the match after it redrawn
        #: for that seat): shared by this match's copies (resample_match)
        self._prefix: dict[tuple[int, int], tuple[list, "Match"]] = {}
        self._begin_deal()

    # -- copying and pickling
    def copy(self) -> "Match":
        new = Match.__new__(Match)
        new.game, new.state, new.events = self.game, self.state, self.events[:]
        new._shared = self._shared = True
        new._prefix = self._prefix
        new.dealt = None if self.dealt is None else [h[:] for h in self.dealt]
        new.left, new._words = self.left[:], self._words[:]
        (new.to_deal, new.draw_pending, new.player, new._legal, new._seen) = (
            self.to_deal, self.draw_pending, self.player, self._legal, self._seen)
        return new

    def __deepcopy__(self, memo: dict) -> "Match":
        return self.copy()

    def __getstate__(self) -> dict:
        return {"params": {"pack": self.game.pack.id, "players": self.game.players,
                           "seed": self.game.tiles_seed}, "events": self.events}

    def __setstate__(self, data: dict) -> None:
        fresh = Match.replay(LostCitiesGame(data["params"]), data["events"])
        for name in Match.__slots__:
            setattr(self, name, getattr(fresh, name))

    @staticmethod
    def replay(game: LostCitiesGame, events: list) -> "Match":
        """The match of ``events`` played from the first deal through the engine (raises
        :class:`IllegalMoveError` or :class:`InputError` at the first event that does not
        fit)."""
        match = game.initial_match()
        for event in events:
            match.apply(event[2])
        return match

    # -- what changes
    def _changed(self) -> None:
        self._legal = None
        self._seen = None

    def _begin_deal(self) -> None:
        """A round begins: its hands are dealt by chance nodes."""
        game = self.game
        self.dealt: Optional[list[list[int]]] = [[] for _ in range(game.players)]
        self.to_deal = game.players * game.pack.hand_size
        #: copies of each kind nobody has seen: not yet dealt, then not yet drawn
        self.left = game.deck_counts[:]
        self.draw_pending = False
        self.player = CHANCE
        self._changed()

    def _finish_deal(self) -> None:
        """The deal's last card: the engine's round gets these hands; the rest of the cards,
        all unseen, lie in the draw pile and among the removed ones (in no particular order:
        each draw names its card)."""
        s = self.state
        rest = [k for k, copies in enumerate(self.left) for _ in range(copies)]
        pile = len(s.deck)
        self.state = with_hidden(s, hands=self.dealt, draw_pile=rest[:pile], removed=rest[pile:])
        self._shared = False
        self.dealt = None
        self.player = TERMINAL if is_over(self.state) else self.state.to_move

    def _own(self) -> GameState:
        """The engine's state, this match's own (copied first while a copy shares it)."""
        if self._shared:
            self.state = self.state.copy()
            self._shared = False
        return self.state

    def _advance(self, round_before: int) -> None:
        """After a decision or a draw: whose turn; a new round begins with its deal."""
        s = self.state
        if is_over(s):
            self.player = TERMINAL
        elif s.round != round_before:
            self._begin_deal()
        else:
            self.player = s.to_move

    def apply(self, action: int) -> None:
        """One OpenSpiel action: a chance outcome (a card) or a decision (an action id)."""
        if self.player == CHANCE:
            self.chance(action)
        elif self.player == TERMINAL:
            raise InputError("the match is over: no action applies")
        else:
            self.act(action)

    def chance(self, card: int) -> None:
        left = self.left
        if type(card) is not int or not 0 <= card < len(left) or left[card] <= 0:  # noqa: E721
            raise InputError(f"chance outcome {card!r} is not a card left to draw")
        left[card] -= 1
        self._changed()
        if self.to_deal:
            hand_size = self.game.pack.hand_size
            seat = self.game.players - 1 - (self.to_deal - 1) // hand_size
            self.dealt[seat].append(card)  # type: ignore[index]
            self.to_deal -= 1
            self.events.append(("deal", seat, card))
            if not self.to_deal:
                self._finish_deal()
            return
        s = self._own()
        self.events.append(("draw", s.to_move, card))
        self.draw_pending = False
        before = s.round
        push_draw(s, card)
        self._advance(before)

    def act(self, action: int) -> None:
        if action not in self.legal():
            space = self.game.space
            name = space.name(action) if type(action) is int and 0 <= action < \
                space.num_actions else "not an action id"  # noqa: E721
            raise IllegalMoveError(f"action {action!r} ({name}) is not legal now")
        g, p = self.game, self.player
        self._changed()
        if action == g.draw_deck:  # the card drawn is the chance node's outcome
            self.events.append(("act", p, action, -1))
            self.draw_pending = True
            self.player = CHANCE
            return
        s = self._own()
        self.events.append(("act", p, action, s.piles[action - g.draw_deck - 1][-1]
                            if g.draw_deck < action <= g.draw_deck + g.n_colours else -1))
        before = s.round
        push_action(s, action)
        self._advance(before)

    # -- what is read
    def legal(self) -> list[int]:
        """The legal decisions now, sorted (computed once per position)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = sorted(legal_actions(self.state))
        return legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = self.left
        total = sum(left)
        return [(k, copies / total) for k, copies in enumerate(left) if copies]

    def observation(self, seat: int) -> Observation:
        """The engine's observation of ``seat``; during a deal, with the cards dealt so far."""
        obs = observation(self.state, seat)
        if self.dealt is None:
            return obs
        return dataclasses.replace(obs, hand=tuple(sorted(self.dealt[seat])),
                                   hand_sizes=tuple(len(h) for h in self.dealt),
                                   draw_pile=sum(self.left) - len(self.state.deal.removed))

    def vector(self, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (built once per position and seat; read-only)."""
        seen = self._seen
        if seen is None:
            seen = self._seen = {}
        vec = seen.get(seat)
        if vec is None:
            vec = seen[seat] = self.game.layout.encode(self.observation(seat))
            vec.flags.writeable = False
        return vec

    def history_text(self, seat: int) -> str:
        """The seat's information state: every decision, its own cards, ``?`` for others'
        (``seat`` -1: the public history, every card ``?``)."""
        words = self._words
        cached = words[seat]
        count, text = cached if cached is not None else \
            (0, f"{self.game.pack.id} p{seat % len(words)}")
        events = self.events
        if count < len(events):
            me = seat % len(words)
            text += " " + " ".join(
                f"a{e[1]}:{e[2]}" if e[0] == "act" else
                f"{e[0][0]}{e[1]}:{e[2] if e[1] == me else '?'}" for e in events[count:])
            words[seat] = (len(events), text)
        return text

    def current_player(self) -> int:
        return self.player


class LostCitiesState(pyspiel.State):
    """A position of ``python_lostcities``: see the module doc."""

    def __init__(self, game: LostCitiesGame):
        super().__init__(game)
        self.match = game.initial_match()

    def current_player(self) -> int:
        return self.match.player

    def _legal_actions(self, player: int) -> list[int]:
        return self.match.legal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.match.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.match.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        game = self.match.game
        if player == CHANCE:
            return f"card {game.pack.cards.format(action)}"
        return game.space.name(action)

    def is_terminal(self) -> bool:
        return self.match.player == TERMINAL

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
        """A state seat ``player_id`` cannot tell from this one, drawn uniformly from the
        worlds consistent with what it saw (:func:`resample_events`), its whole history
        rebuilt through the engine. ``probability_sampler``: OpenSpiel's sampler (a callable
        giving floats in [0, 1)), a ``random.Random``, an int seed, or None (fresh entropy)."""
        match = resample_match(self.match, int(player_id), _rng(probability_sampler))
        # OpenSpiel's own form of a Python state (PyState::Deserialize): the history of the
        # match's events, and the match itself, rebuilt from the same events
        history = ",".join(f"{CHANCE if e[0] != 'act' else e[1]}:{e[2]}" for e in match.events)
        state = self.get_game().deserialize_state(
            f"history={history}\nmove_number={len(match.events)}\n__dict__={_NO_DICT}")
        state.match = match
        return state

    def __str__(self) -> str:
        return table_text(self.match.state) + "\n" + self.match.history_text(-1)


def _rng(sampler: Any) -> random.Random:
    """The randomness of a resampling: see :meth:`LostCitiesState.resample_from_infostate`."""
    if isinstance(sampler, random.Random):
        return sampler
    if sampler is None:
        return random.Random()
    if isinstance(sampler, int) and not isinstance(sampler, bool):
        return random.Random(sampler)
    if callable(sampler):
        return random.Random(int(sampler() * 2 ** 53) * 2 ** 53 + int(sampler() * 2 ** 53))
    raise InputError(f"probability_sampler must be a sampler, a random.Random or a seed, "
                     f"not {type(sampler).__name__}")


class _DeadEnd(Exception):
    """A drawn world that does not fit the history: draw again."""


def resample_events(match: Match, seat: int, rng: random.Random) -> list[tuple]:
    """The events of :func:`resample_match`: OpenSpiel's history of the world drawn."""
    return resample_match(match, seat, rng).events


def resample_match(match: Match, seat: int, rng: random.Random) -> Match:
    """The match with every card ``seat`` did not see dealt again, uniformly among the
    worlds consistent with what it saw, replayed through the engine (docs/rl.md,
    "Resampling").

    Kept: every decision (public), ``seat``'s own cards dealt and drawn, and the card of
    every pile draw (public). Redrawn: the cards another seat was dealt or drew from the
    deck. Per round and per other seat, each card that seat later played or discarded (and
    did not hold from a pile) goes to one of its own dealt or drawn cards before that
    play, chosen uniformly among those still free (a play opening a row under
    ``rows.start: lowest-in-hand`` also keeps lower cards of its colour out of that seat's
    hand then); the cards left unseen are shuffled into its other slots and the draw pile.
    Where duplicate cards make a world reachable by several such choices, it is kept with
    probability 1 / their number, so that every consistent world is equally likely (packs
    without ``lowest-in-hand``; with it, the choice is uniform among the fitting slots).
    Each round drawn is replayed through the engine; one that does not fit is drawn again
    (:data:`RESAMPLE_TRIES` times at most, then the last one that fits is kept without
    that correction). A finished round is drawn once per seat and kept for the later
    resamplings of this match and its copies (nothing after a round depends on its hidden
    cards).
    """
    game = match.game
    if type(seat) is not int or not 0 <= seat < game.players:  # noqa: E721
        raise InputError(f"resample: {seat!r} is not a seat of {game.players} players")
    events = match.events
    rounds: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(events) + 1):
        if i == len(events) or (events[i][0] == "deal" and events[i - 1][0] != "deal"):
            rounds.append((start, i))
            start = i
    finished = len(rounds) if match.player == TERMINAL else len(rounds) - 1
    cache = match._prefix
    base, first = game.initial_match(), 0
    for r in range(finished - 1, -1, -1):
        hit = cache.get((seat, r))
        if hit is not None and hit[0] == events[:rounds[r][1]]:
            base, first = hit[1].copy(), r + 1
            break
    for r in range(first, len(rounds)):
        a, b = rounds[r]
        base = _redraw_round(game, events, a, b, seat, rng, base)
        if r < finished:
            cache[(seat, r)] = (events[:b], base)
            base = base.copy()
    return base


def _redraw_round(game: LostCitiesGame, events: list, a: int, b: int, seat: int,
                  rng: random.Random, base: Match) -> Match:
    """``base`` played on through the round ``events[a:b]`` redrawn (:func:`resample_match`)."""
    fallback: Optional[Match] = None
    for _ in range(RESAMPLE_TRIES):
        try:
            new, weight_one = _redeal_round(game, events, a, b, seat, rng)
            if not weight_one and fallback is not None:
                continue
            replay = base.copy()
            for event in new:
                replay.apply(event[2])
        except (_DeadEnd, IllegalMoveError, InvalidMoveError, InputError):
            continue
        if weight_one:
            return replay
        fallback = replay
    if fallback is None:
        raise InputError(f"resample: no consistent deal of round {base.state.round} found in "
                         f"{RESAMPLE_TRIES} draws")
    return fallback


def _redeal_round(game: LostCitiesGame, events: list, a: int, b: int, seat: int,
                  rng: random.Random) -> tuple[list[tuple], bool]:
    """The round ``events[a:b]`` with its hidden cards dealt again (:func:`resample_match`),
    and False when the world drawn must be dropped (its weight)."""
    k, tables = game.n_kinds, tables_of(game.pack)
    colour_of, slot_of, is_wager = tables.colour_of, tables.slot_of, tables.is_wager
    # rows.start compiled: rule(slot, held slots) says whether a number card of that slot may
    # open a row while the seat holds those (None: any may)
    rule = tables.row_start

    def fits(card: int, rules: Any) -> bool:
        """Whether ``card`` may be held through the openings ``rules`` ((colour, slot)s)."""
        return not rules or is_wager[card] or all(
            colour_of[card] != colour or rule(slot, (slot_of[card],)) for colour, slot in rules)

    free: dict[int, list[int]] = {}          # seat -> its slots not yet matched, in order
    held: dict[int, dict[int, int]] = {}     # seat -> cards it holds from a pile
    numbers: dict[int, set[int]] = {}        # seat -> colours its rows have numbers of
    opened: dict[int, list[tuple[int, int]]] = {}  # slot -> the rows opened while it was held
    card_of: dict[int, int] = {}             # slot -> its card
    spent: list[tuple[int, int, int]] = []   # (seat, event, card) matched to a slot
    pool = game.deck_counts[:]
    for i in range(a, b):
        e = events[i]
        kind, who = e[0], e[1]
        if who == seat:
            if kind != "act":
                pool[e[2]] -= 1
            continue
        if kind != "act":
            free.setdefault(who, []).append(i)
            continue
        action = e[2]
        if e[3] >= 0:
            mine = held.setdefault(who, {})
            mine[e[3]] = mine.get(e[3], 0) + 1
            continue
        if action >= 2 * k:
            continue
        card = action if action < k else action - k
        mine = held.setdefault(who, {})
        if mine.get(card, 0) > 0:
            mine[card] -= 1
        else:
            slots = free.get(who, [])
            choices = [s for s in slots if fits(card, opened.get(s))]
            if not choices:
                raise _DeadEnd
            slot = choices[rng.randrange(len(choices))]
            slots.remove(slot)
            card_of[slot] = card
            pool[card] -= 1
            spent.append((who, i, card))
        if action < k and not is_wager[card]:
            rows = numbers.setdefault(who, set())
            colour = colour_of[card]
            if rule is not None and colour not in rows:
                for s in free.get(who, ()):
                    opened.setdefault(s, []).append((colour, slot_of[card]))
            rows.add(colour)
    unseen = [c for c, copies in enumerate(pool) for _ in range(copies)]
    rng.shuffle(unseen)
    rest = [s for slots in free.values() for s in slots]
    for s in sorted(rest, key=lambda s: -len(opened.get(s, ()))):
        rules = opened.get(s)
        if not rules:
            card_of[s] = unseen.pop()
            continue
        choices = [j for j, c in enumerate(unseen) if fits(c, rules)]
        if not choices:
            raise _DeadEnd
        j = choices[rng.randrange(len(choices))]
        card_of[s] = unseen[j]
        unseen[j] = unseen[-1]
        unseen.pop()
    out = events[a:b]
    for s, card in card_of.items():
        e = out[s - a]
        out[s - a] = (e[0], e[1], card)
    if rule is not None:
        return out, True
    # the worlds with several matchings of the played cards to the slots: keep with 1 / that
    ways = 1
    used: dict[tuple[int, int], int] = {}
    for who, i, card in spent:
        before = sum(1 for s in card_of if s < i and events[s][1] == who and card_of[s] == card)
        ways *= before - used.get((who, card), 0)
        used[(who, card)] = used.get((who, card), 0) + 1
    return out, ways == 1 or rng.random() * ways < 1


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
        self.tensor[:] = state.match.vector(player)
        if not self.private:
            self.tensor[self.game.layout.slice("hand")] = 0

    def string_from(self, state: LostCitiesState, player: int) -> str:
        m = state.match
        if self.perfect_recall:
            return m.history_text(player)
        text = table_text(m.state)
        if self.private:
            codec = self.game.pack.cards
            hand = m.observation(player).hand
            text += f"\nplayer_{player} holds " + " ".join(codec.format(c) for c in hand)
        return text


def register_openspiel() -> None:
    """Register ``python_lostcities`` with OpenSpiel (done when this module is imported)."""
    if OPENSPIEL_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_GAME_TYPE, LostCitiesGame)


register_openspiel()
