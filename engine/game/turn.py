"""The generic turn engine: one set of rules for every pack, from its data.

A turn: play one card on your own row of its colour or discard it on that
colour's pile, then draw from the draw pile or the top of any discard pile
(as the pack's ``turn.retake`` allows after a discard). Rounds end by the
pack's condition; the next round is dealt at once from the seed, its starter
chosen by the pack's rule. Scores come only from the pack's scoring formulas.

This module is the public face: each call goes to the pack's family
(:data:`FAMILIES`, chosen by the pack's ``family`` setting when its tables are built),
:mod:`.duel` or :mod:`.board` (whose turns add the moves of pawns between the card and
the draw), which offer the same functions. The steps of a turn that both share (deal,
card, draw, end of turn and round, undo) are :mod:`.steps`, the one seam between them;
the rule options a pack names are :mod:`.options`.

Two ways to drive it:

* pure: :func:`apply` (a whole turn) and :func:`step` (one decision) return a
  new :class:`GameState` and never change their input;
* mutable fast path: :func:`push` / :func:`pop` change the state in place with
  exact undo (python-chess style), for playouts and search.
"""
from __future__ import annotations

import random
from typing import Callable, Optional, Sequence, Union

from . import board, duel
from .cards import Card
from ..errors import IllegalMoveError, InputError, InvalidMoveError
from .moves import DECK, NO_STEP, PLAY, Move, action_space
from .refusals import Refusal
from .rules import RulePack
from .state import DECK_SHARED, OVER, Deal, GameState, Seat, SetupError
from .steps import (check_deal, kept, next_starter, pop, round_details, shuffle_deal, start_round,
                    totals)
from .tables import tables_of

#: a pack's family (its ``family`` setting, ``tables.family``) -> the module that plays its
#: turns; both offer the same functions by the same names: legal_moves, why_refused,
#: refusal, push, on_fork (apply's work), random_move, random_playout, legal_actions,
#: legal_action_mask, push_action, action_ok, step_on_fork, leader_note (docs/architecture.md)
FAMILIES = {"duel": duel, "board": board}

Players = Union[int, Sequence[str]]


# --------------------------------------------------------------------------- setup

def new_game(pack: RulePack, players: Players = 2, seed: int = 0, *,
             deals: Optional[Sequence[Deal]] = None) -> GameState:
    """Start a match of ``pack``: ``players`` is a count or the players' labels.

    The same pack, players and seed give the same match on any machine. ``deals``
    replaces the shuffle for the first rounds (replays, scripted positions); each
    is checked against the pack's deck (and tiles); later rounds are shuffled from
    the seed. A board pack's deal without ``tiles`` takes the seed's layout.
    Raises :class:`SetupError`.
    """
    if isinstance(players, int):
        labels = tuple(f"P{i + 1}" for i in range(players))
    else:
        labels = tuple(str(p) for p in players)
    n = len(labels)
    check_players(pack, n)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise SetupError(f"seed must be an integer, not {seed!r}")
    if pack.first_starter >= n:
        raise SetupError(f"{pack.id}: match.first_starter {pack.first_starter} is not a seat "
                         f"of {n} players")
    pack.scoring  # compile the formulas now: errors surface here, never mid-match
    state = GameState.first(pack, tables_of(pack), labels, seed,
                            None if deals is None else tuple(deals))
    start_round(state, 1, pack.first_starter)
    return state


def check_players(pack: RulePack, n: int) -> None:
    """Raise :class:`SetupError` unless ``pack`` is played by ``n`` players."""
    if not pack.min_players <= n <= pack.max_players:
        span = (str(pack.min_players) if pack.min_players == pack.max_players
                else f"{pack.min_players}-{pack.max_players}")
        raise SetupError(f"{pack.id}: {n} players, the pack is for {span}")




def derive(state: GameState) -> None:
    """Compute the state's derived fields from its hands, rows and piles: ``row_states``,
    ``playable`` and the bit masks. The engine keeps them in step itself; call this after
    building or changing a position by hand (e.g. dealing a guess at hidden cards)."""
    t = state.tables
    state.row_states = [[t.state_of(row) for row in rows] for rows in state.rows]
    state.playable = [[ok for rs in states for ok in t.allowed[rs]]
                      for states in state.row_states]
    state.playable_bits = [sum(t.allowed_bits[rs][c] for c, rs in enumerate(states))
                           for states in state.row_states]
    state.held_bits = [sum(1 << k for k in set(hand)) for hand in state.hands]
    state.pile_bits = sum(1 << c for c, pile in enumerate(state.piles) if pile)


def with_hidden(state: GameState, *, hands: Optional[Sequence[Sequence[Card]]] = None,
                draw_pile: Optional[Sequence[Card]] = None,
                removed: Optional[Sequence[Card]] = None) -> GameState:
    """A new state with ``state``'s hidden cards dealt otherwise (determinization for
    ISMCTS, OpenSpiel chance): ``hands`` (one per seat), ``draw_pile`` (top first, as in
    :class:`Deal`) and the cards ``removed`` unseen, each left as it is when not given.

    Each hand keeps its size, the draw pile and the removed cards theirs, and together
    they hold the same cards as before (the same multiset of unseen cards: rows, piles and
    the board are public and stay). The new state's ``deal`` is this position's, hands and
    draw pile as given (the round's real deal is hidden information too); the derived
    fields follow (:func:`derive`). ``state`` is left unchanged. Raises
    :class:`~.errors.InputError` for anything else, saying what and where.
    """
    t = state.tables
    n_kinds = t.n_kinds

    def cards(value: object, what: str, size: int) -> list[Card]:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise InputError(f"with_hidden: {what} must be a sequence of cards, "
                             f"not {type(value).__name__}")
        if len(value) != size:
            raise InputError(f"with_hidden: {what} has {len(value)} cards, the state has {size}")
        out = list(value)
        for i, card in enumerate(out):
            if type(card) is not int or not 0 <= card < n_kinds:  # noqa: E721
                raise InputError(f"with_hidden: {what}[{i}] = {card!r} is not a card of "
                                 f"{state.pack.id} (0-{n_kinds - 1})")
        return out

    new_hands = [h[:] for h in state.hands]
    if hands is not None:
        if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence) \
                or len(hands) != state.n:
            raise InputError(f"with_hidden: hands must be {state.n} hands, one per seat")
        new_hands = [cards(h, f"hands[{seat}]", len(state.hands[seat]))
                     for seat, h in enumerate(hands)]
    new_pile = list(reversed(state.deck)) if draw_pile is None else \
        cards(draw_pile, "draw_pile", len(state.deck))
    new_removed = list(state.deal.removed) if removed is None else \
        cards(removed, "removed", len(state.deal.removed))
    counts = [0] * n_kinds
    for card in [*(c for h in state.hands for c in h), *state.deck, *state.deal.removed]:
        counts[card] += 1
    for card in [*(c for h in new_hands for c in h), *new_pile, *new_removed]:
        counts[card] -= 1
    wrong = [t.codec.format(k) for k, left in enumerate(counts) if left]
    if wrong:
        raise InputError(f"with_hidden: the hidden cards given are not the state's unseen "
                         f"cards (other counts of {' '.join(wrong[:8])}"
                         f"{' ...' if len(wrong) > 8 else ''})")
    new = state.copy()
    new.hands = new_hands
    new.deck = new_pile[::-1]
    new.deal = Deal(tuple(map(tuple, new_hands)), tuple(new_pile), tuple(new_removed),
                    state.deal.tiles)
    derive(new)
    return new


def push_draw(state: GameState, card: Card) -> None:
    """Make the decision "draw from the deck" in place (:func:`push_action` of
    ``action_space(pack).draw_deck``) with ``card`` the card drawn: any card no seat has
    seen (one of the draw pile's or of the cards removed unseen), since the pile's order is
    hidden (a chance node's outcome: OpenSpiel). ``card`` first trades places with the
    pile's top (a removed card with the top card, which is then removed instead), in the
    state's ``deal`` too, so that the round's deal and moves still replay; the other cards
    keep their places. Trusted as :func:`push_action` is (the draw must be the decision
    due); undo with :func:`pop` (the pile keeps its new order). Raises
    :class:`IllegalMoveError` when the draw pile is empty, :class:`~.errors.InputError` when
    ``card`` is not an unseen card.
    """
    deck = state.deck
    if not deck:
        raise IllegalMoveError("draw deck: the draw pile is empty")
    top_card = deck[-1]
    if top_card != card:
        dealt = state.deal
        pile = list(dealt.draw_pile)
        top = len(pile) - len(deck)  # the deal's index of the pile's top (drawn: the ones before)
        removed = dealt.removed
        if card in deck:
            i = len(deck) - 1 - deck[::-1].index(card)
            if top >= 0 and pile[top] == top_card and pile[len(pile) - 1 - i] == card:
                pile[top], pile[len(pile) - 1 - i] = card, top_card
        elif card in removed:
            gone = list(removed)
            gone[gone.index(card)] = top_card
            removed = tuple(gone)
            i = -1
            if top >= 0 and pile[top] == top_card:
                pile[top] = card
        else:
            raise InputError(f"push_draw: {card!r} is not a card left unseen in "
                             f"{state.pack.id}'s draw pile or removed cards")
        if state.shared_lists & DECK_SHARED:
            state.own_deck()
        deck = state.deck
        deck[i], deck[-1] = top_card, card
        state.deal = Deal(dealt.hands, tuple(pile), removed, dealt.tiles)
    push_action(state, action_space(state.pack).draw_deck)


# --------------------------------------------------------------------------- legality

def legal_moves(state: GameState) -> list[Move]:
    """Every legal whole turn, in a fixed order (plays first, by card, then by draw; a
    board pack's each card's board decisions, then its draws).

    In the draw phase (after :func:`step` made the card decision) these are the
    moves completing the turn with that card.
    """
    return FAMILIES[state.tables.family].legal_moves(state)


def why_refused(state: GameState, move: Move) -> Optional[Refusal]:
    """Why ``move`` is refused in ``state``, as a :class:`~.refusals.Refusal` (the key of
    the rule it breaks and the message's parameters), or None when it is legal: the
    engine's one legality check."""
    return FAMILIES[state.tables.family].why_refused(state, move)


def full_refusal(state: GameState, move: Move) -> Optional[Refusal]:
    """:func:`why_refused` by the full checks alone, without a family's fast path for a
    well-formed legal move (the two agree: tests/test_engine_api.py)."""
    return FAMILIES[state.tables.family].refusal(state, move)


def illegal_reason(state: GameState, move: Move) -> Optional[str]:
    """Why ``move`` is illegal in ``state``, in English (the en catalogue's rendering of
    :func:`why_refused`), or None if it is legal."""
    refusal = why_refused(state, move)
    return None if refusal is None else refusal.text()


def why_illegal(state: GameState, move: Move) -> Optional[str]:
    """:func:`illegal_reason` by the full checks alone, without its fast path for a legal
    duel move (the two agree: tests/test_engine_api.py)."""
    refusal = full_refusal(state, move)
    return None if refusal is None else refusal.text()




def is_legal(state: GameState, move: Move) -> bool:
    """Whether ``move`` is a legal turn (or turn completion) in ``state``."""
    return why_refused(state, move) is None


# --------------------------------------------------------------------------- whole turns

def push(state: GameState, move: Move) -> None:
    """Play ``move`` in place (trusted: check with :func:`is_legal` first); undo with
    :func:`pop`."""
    FAMILIES[state.tables.family].push(state, move)


def apply(state: GameState, move: Union[Move, str]) -> GameState:
    """The state after ``move`` (a Move or its text); ``state`` is left unchanged.

    Raises :class:`InvalidMoveError` for unreadable text and
    :class:`IllegalMoveError` for a move the rules forbid: its message says why in English,
    its ``refusal`` is the :class:`~.refusals.Refusal` (a front end says it in the player's
    language without checking the move again).
    """
    if isinstance(move, str):
        move = Move.parse(move, state.pack)
    refusal = why_refused(state, move)
    if refusal is not None:
        raise IllegalMoveError(f"{_move_text(state, move)}: {refusal.text()}", refusal)
    return FAMILIES[state.tables.family].on_fork(state, move)


def _move_text(state: GameState, move: object) -> str:
    if isinstance(move, Move):
        try:
            return move.text(state.pack.cards)
        except (IndexError, TypeError, ValueError):
            return repr(move)
    return repr(move)


def random_move(state: GameState, rng: random.Random) -> Move:
    """A legal move drawn uniformly from :func:`legal_moves`, without listing them all
    where the family can (a duel counts and picks the cards from the state's bit masks, in
    the order of :func:`legal_moves`)."""
    return FAMILIES[state.tables.family].random_move(state, rng)


def playout(state: GameState, rng: random.Random,
            policy: Callable[[GameState, random.Random], Move] = random_move) -> GameState:
    """Play ``state`` on to the end of the match in place, each move ``policy(state, rng)``
    (default :func:`random_move`), and return it: random matches and search rollouts.

    The policy is trusted to give legal moves, so none is checked; each is pushed as
    :func:`push` does, and the undo stack is emptied: a playout is not popped. The
    same ``rng`` gives the same match as pushing the policy's moves one by one.
    With the default policy, a duel pack's turns are chosen and played in one fused
    step that keeps no undo record (the same moves from the same draws).
    """
    undo = state.undo
    undo.clear()
    if policy is random_move:
        FAMILIES[state.tables.family].random_playout(state, rng)
        return state
    while state.phase != OVER:
        push(state, policy(state, rng))
        undo.clear()
    return state


# --------------------------------------------------------------------------- actions

def legal_actions(state: GameState) -> list[int]:
    """The legal action ids of the decision to make now (see :class:`ActionSpace`)."""
    return FAMILIES[state.tables.family].legal_actions(state)


def legal_action_mask(state: GameState) -> list[bool]:
    """One bool per action id of the pack: legal now (a card decision: one pass over
    the hand)."""
    return FAMILIES[state.tables.family].legal_action_mask(state)


def push_action(state: GameState, action_id: int) -> None:
    """Make one decision in place (trusted); undo with :func:`pop`."""
    FAMILIES[state.tables.family].push_action(state, action_id)


def step(state: GameState, action_id: int) -> GameState:
    """The state after one decision (an action id); ``state`` is left unchanged."""
    family = FAMILIES[state.tables.family]
    new = family.step_on_fork(state, action_id)
    if new is not None:
        return new
    space = action_space(state.pack)
    if not isinstance(action_id, int) or not 0 <= action_id < space.num_actions:
        raise InvalidMoveError(f"action {action_id!r} is outside 0-{space.num_actions - 1}")
    if not family.action_ok(state, action_id):
        raise IllegalMoveError(f"action {action_id} ({space.name(action_id)}) is not legal now")
    new = state.copy()
    family.push_action(new, action_id)
    new.undo.clear()
    return new
















# --------------------------------------------------------------------------- results

def is_over(state: GameState) -> bool:
    """Whether the match is finished (see :func:`continue_match`)."""
    return state.phase == OVER


def round_scores(state: GameState) -> list[tuple[int, ...]]:
    """Each finished round's scores, one per seat."""
    return [r.scores for r in state.finished]


def live_scores(state: GameState) -> tuple[int, ...]:
    """What each seat would score for this round if it ended now (rows, pawns, tiles)."""
    return tuple(d.total for d in round_details(state))


def winners(state: GameState) -> tuple[Seat, ...]:
    """The seats with the best total (several: a shared win); empty before the end.

    Equal totals are broken by the pack's ``match.tie_break`` measures in order
    (``artefacts``, ``tokens``: the most held wins); seats still equal share the win.
    """
    if state.phase != OVER:
        return ()
    scores = totals(state)
    best = max(scores)
    tied = [p for p, s in enumerate(scores) if s == best]
    for measure in state.pack.tie_break:
        if len(tied) < 2:
            break
        held = kept(state, measure)
        top = max(held[p] for p in tied)
        tied = [p for p in tied if held[p] == top]
    return tuple(tied)



def continue_match(state: GameState) -> GameState:
    """A finished match played on for one more round, scores adding up (CONT).

    Raises :class:`IllegalMoveError` when the match is not over or the pack does
    not allow continuation (``match.continuation: false``).
    """
    if state.phase != OVER:
        raise IllegalMoveError("only a finished match can be continued")
    if not state.pack.continuation:
        raise IllegalMoveError(f"{state.pack.id} does not allow continuing a finished match "
                               f"(match.continuation is false)")
    new = state.copy()
    new.rounds_total += 1
    start_round(new, new.round + 1, next_starter(new))
    return new


def describe_move(state: GameState, move: Move) -> str:
    """A sentence for a move, e.g. ``plays r5, draws from the deck``; with a board,
    ``plays g3, sends pawn 0 (leader) onto the green track, advances the blue pawn, ...``;
    a declined advance (``step=none``) reads ``declines the advance``."""
    codec = state.tables.codec
    colours = state.pack.colours
    words = [f"{'plays' if move.action == PLAY else 'discards'} {codec.format(move.card)}"]
    if move.pawn is not None:
        leader = FAMILIES[state.tables.family].leader_note(state, move.pawn)
        words.append(f"sends pawn {move.pawn}{leader} onto the "
                     f"{colours[state.tables.colour_of[move.card]].name} track")
    words.extend("declines the advance" if c is NO_STEP else f"advances the {colours[c].name} pawn"
                 for c in move.steps)
    if move.draw is None:
        words.append("without drawing")
    elif move.draw == DECK:
        words.append("draws from the deck")
    else:
        words.append(f"takes the {colours[move.draw].name} pile's top")
    return ", ".join(words)


__all__ = ["new_game", "check_players", "shuffle_deal", "check_deal", "derive", "with_hidden",
           "push_draw",
           "legal_moves", "illegal_reason", "why_refused", "is_legal",
           "push", "pop", "apply", "random_move", "playout", "legal_actions", "legal_action_mask",
           "push_action", "step", "is_over", "round_scores", "live_scores", "totals", "winners",
           "next_starter", "continue_match", "describe_move"]
