"""The generic turn engine: one set of rules for every pack, from its data.

A turn: play one card on your own row of its colour or discard it on that
colour's pile, then draw from the draw pile or the top of any discard pile
(never the card just discarded, when the pack says so). Rounds end by the
pack's condition; the next round is dealt at once from the seed, its starter
chosen by the pack's rule. Scores come only from the pack's scoring formulas.
A board pack's turn adds the moves of pawns between the card and the draw: its
own phases, handed to :mod:`.board` (the card game's path never tests for them).
The steps of a turn that both share (deal, card, draw, end of turn and round, undo)
are :mod:`.steps`, the one seam between them.

Two ways to drive it:

* pure: :func:`apply` (a whole turn) and :func:`step` (one decision) return a
  new :class:`GameState` and never change their input;
* mutable fast path: :func:`push` / :func:`pop` change the state in place with
  exact undo (python-chess style), for playouts and search.
"""
from __future__ import annotations

import random
from bisect import insort
from typing import Callable, Optional, Sequence, Union

from . import board as _board  # a board pack's phases only: they are handed to it
from .cards import Card
from ..errors import IllegalMoveError, InputError, InvalidMoveError
from .moves import DECK, DISCARD, NO_STEP, PLAY, Move, action_space
from .refusals import Refusal
from .rules import RulePack
from .state import (ALL_SHARED, CARD, DECK_SHARED, DRAW, DRAW_PILE_EMPTY, HANDS_SHARED,
                    MOVES_SHARED, OVER, PILES_SHARED, TRACK_CARD, TURN_CAP, Deal, GameState, Seat,
                    SetupError)
from .steps import (SAME_DRAWS, card_options, card_refusal, check_deal, choose_card, decide_card,
                    decide_draw, discarded_colour, draw_ok, draw_refusal, draw_sources, draw_turn,
                    end_round, kept, next_starter, play_turn, pop, round_details, shuffle_deal,
                    start_round, starts_lowest, totals)
from .tables import tables_of

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
    state = GameState.__new__(GameState)
    state.pack = pack
    state.tables = tables_of(pack)
    state.players = labels
    state.n = n
    state.seed = seed
    state.deals = None if deals is None else tuple(deals)
    state.rounds_total = pack.rounds
    state.finished = []
    state.undo = []
    state.board = None
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


# --------------------------------------------------------------------------- legality


def legal_moves(state: GameState) -> list[Move]:
    """Every legal whole turn, in a fixed order (plays first, by card, then by draw).

    In the draw phase (after :func:`step` made the card decision) these are the
    moves completing the turn with that card.
    """
    t = state.tables
    if state.phase == CARD and not state.last_play and not t.lowest_in_hand:
        # the common case first (CARD is a duel's card phase): each card's turns by where
        # it may draw, ready in the tables for these piles
        p = state.to_move
        deck = 1 if state.deck else 0
        found = t.turn_move_table.get(state.pile_bits << 1 | deck)  # turn_moves, in line
        play_rows, discard_rows = t.turn_moves(state.pile_bits, bool(deck)) \
            if found is None else found
        ok = state.playable[p]
        cards = sorted(set(state.hands[p]))
        out: list[Move] = []
        for card in cards:
            if ok[card]:
                out += play_rows[card]
        for card in cards:
            out += discard_rows[card]
        return out
    if state.board is not None:
        return _board.legal_moves(state)
    if state.phase == OVER:
        return []
    if state.phase == DRAW:
        action, card = state.pending  # type: ignore[misc]
        return [t.move(action, card, d)
                for d in draw_sources(state, discarded_colour(state, action, card))]
    plays, discards = card_options(state)  # a last play, or rows started lowest in hand
    if not state.last_play:
        play_rows, discard_rows = t.turn_moves(state.pile_bits, bool(state.deck))
        return [m for k in plays for m in play_rows[k]] + \
            [m for k in discards for m in discard_rows[k]]
    return [t.last_moves[PLAY][k] for k in plays] + \
        [t.last_moves[DISCARD][k] for k in discards]


def why_refused(state: GameState, move: Move) -> Optional[Refusal]:
    """Why ``move`` is refused in ``state``, as a :class:`~.refusals.Refusal` (the key of
    the rule it breaks and the message's parameters), or None when it is legal: the
    engine's one legality check."""
    t = state.tables
    if state.phase == CARD and type(move) is Move and move.pawn is None and not move.steps:
        # fast path for the common case, a well-formed legal move; anything else is
        # explained by full_refusal, which alone decides what is illegal
        card, p = move.card, state.to_move
        if type(card) is int and card in state.hands[p]:  # noqa: E721
            if move.action == PLAY:
                if state.playable[p][card] and draw_ok(state, -1, move.draw) and (
                        not t.lowest_in_hand or starts_lowest(state, p, card)):
                    return None
            elif move.action == DISCARD and draw_ok(state, t.colour_of[card], move.draw):
                return None
    return full_refusal(state, move)


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


def full_refusal(state: GameState, move: Move) -> Optional[Refusal]:
    """:func:`why_refused` by the full checks alone, without its fast path."""
    t = state.tables
    codec = state.tables.codec
    if state.phase == OVER:
        return Refusal("illegal.game-over")
    if not isinstance(move, Move):
        return Refusal("illegal.not-a-move", {"move": repr(move)[:40]})
    if move.action not in (PLAY, DISCARD):
        return Refusal("illegal.action", {"action": repr(move.action)[:40]})
    if not isinstance(move.card, int) or not 0 <= move.card < t.n_kinds:
        return Refusal("illegal.card", {"card": repr(move.card)[:40], "pack": state.pack.id})
    if state.board is not None:
        return _board.full_refusal(state, move)
    if move.pawn is not None or move.steps:
        return Refusal("illegal.no-board", {"pack": state.pack.id})
    if state.phase == DRAW:
        if (move.action, move.card) != state.pending:
            action, card = state.pending  # type: ignore[misc]
            return Refusal(f"illegal.pending.{action}", {"card": codec.format(card)})
    else:
        refusal = card_refusal(state, move)
        if refusal is not None:
            return refusal
    return draw_refusal(state, move)


def is_legal(state: GameState, move: Move) -> bool:
    """Whether ``move`` is a legal turn (or turn completion) in ``state``."""
    return why_refused(state, move) is None


# --------------------------------------------------------------------------- decisions


# --------------------------------------------------------------------------- whole turns

def push(state: GameState, move: Move) -> None:
    """Play ``move`` in place (trusted: check with :func:`is_legal` first); undo with
    :func:`pop`."""
    if state.phase == CARD:
        t = state.tables
        draw = move.draw
        if not state.last_play and state.turn + 1 < t.turn_cap and draw is not None \
                and (draw != DECK or len(state.deck) > 1 or t.last_play):
            play_turn(state, move)  # the common turn: one undo record, a push of its own
            return
        state.undo.append(None)
        decide_card(state, move.action, move.card, move)
        if state.phase == DRAW:
            decide_draw(state, move.draw, move)
    elif state.board is not None:
        _board.push(state, move)
    else:
        state.undo.append(None)
        if state.phase == DRAW:
            decide_draw(state, move.draw, move)



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
    return _turn_on_fork(state, move)


def _turn_on_fork(state: GameState, move: Move) -> GameState:
    """A fork of ``state`` with ``move`` played (:func:`apply` once it is checked): a duel's
    whole turn that neither ends the round nor is a last play builds only the lists it
    changes, any other turn is pushed on the fork."""
    t = state.tables
    deck = state.deck
    draw = move.draw
    if state.phase != CARD or state.last_play or type(move) is not Move or move.steps \
            or move.pawn is not None or state.turn + 1 >= t.turn_cap \
            or (draw == DECK and len(deck) == 1 and not t.last_play):
        new = state.fork()
        push(new, move)
        new.undo.clear()
        return new
    # the new state built at once: the fields a turn keeps, then the lists it changes
    p, card, n = state.to_move, move.card, state.n
    new = GameState.__new__(GameState)
    (new.pack, new.tables, new.players, new.n, new.seed, new.deals, new.round,
     new.rounds_total, new.starter, new.phase, new.deal, new.pending, new.finished, new.board,
     new.undo, new.rows, new.row_states, new.playable, new.playable_bits) = (
        state.pack, t, state.players, n, state.seed, state.deals, state.round,
        state.rounds_total, state.starter, CARD, state.deal, None, state.finished, None, [],
        state.rows, state.row_states, state.playable, state.playable_bits)
    hands = new.hands = state.hands[:]
    hand = hands[p] = hands[p][:]
    hand.remove(card)  # its first copy, as push removes it
    held_bits = new.held_bits = state.held_bits[:]
    held = held_bits[p]
    if card not in hand:
        held ^= 1 << card
    colour = t.colour_of[card]
    lists = ALL_SHARED ^ HANDS_SHARED ^ MOVES_SHARED  # the outer lists built here
    pile_bits = state.pile_bits
    mine = 0  # the piles this state has its own copy of
    piles = state.piles
    if move.action == PLAY:
        _play_on_fork(new, state, p, colour, card)
    else:
        piles = piles[:]
        piles[colour] = piles[colour] + [card]
        mine = 1 << colour
        pile_bits |= mine
    if draw == DECK:
        drawn = deck[-1]
        new.deck = deck[:-1]
        lists ^= DECK_SHARED
        new.last_play = len(deck) == 1  # the pack plays on after the pile ran out
    else:
        new.deck = deck
        new.last_play = False
        if not mine:
            piles = piles[:]
        pile = piles[draw]  # type: ignore[index]
        drawn = pile[-1]
        if mine >> draw & 1:  # type: ignore[operator]
            pile.pop()
        else:
            pile = piles[draw] = pile[:-1]  # type: ignore[index]
            mine |= 1 << draw  # type: ignore[operator]
        if not pile:
            pile_bits ^= 1 << draw  # type: ignore[operator]
    all_piles = (1 << len(piles)) - 1
    if mine:
        lists ^= PILES_SHARED
    new.piles, new.pile_bits, new.shared_piles = piles, pile_bits, all_piles ^ mine
    hand.append(drawn)
    held_bits[p] = held | 1 << drawn
    new.moves = state.moves + [move if move.codec is not None else t.move(move.action, card, draw)]
    new.turn = state.turn + 1
    new.to_move = (p + 1) % n
    everyone = (1 << n) - 1
    new.shared_seats, new.shared_hands, new.shared_lists = everyone, everyone ^ 1 << p, lists
    # this state shares its lists with the new one now
    state.shared_seats = state.shared_hands = everyone
    state.shared_piles = all_piles
    state.shared_lists = ALL_SHARED
    return new


def _play_on_fork(new: GameState, state: GameState, p: Seat, colour: int, card: Card) -> None:
    """Seat ``p`` of ``new``, a fresh :meth:`~GameState.fork` of ``state``, plays ``card`` on
    its row of ``colour``: only the lists that change are built (the outer rows, that seat's
    rows and that row; its row state, playable list and bits when the row state changes).
    The seat's other rows stay shared, so its bit of ``shared_seats`` stays set."""
    t = state.tables
    rows = new.rows = state.rows[:]
    seat = rows[p] = rows[p][:]
    seat[colour] = seat[colour] + [card]
    old = state.row_states[p][colour]
    rs = t.after[old][t.slot_of[card]]
    if rs != old:
        row_states = new.row_states = state.row_states[:]
        mine = row_states[p] = row_states[p][:]
        mine[colour] = rs
        playable = new.playable = state.playable[:]
        ok = playable[p] = playable[p][:]
        s = t.slots
        ok[colour * s:(colour + 1) * s] = t.allowed[rs]
        bits = new.playable_bits = state.playable_bits[:]
        bits[p] = (bits[p] & ~t.colour_bits[colour]) | t.allowed_bits[rs][colour]


def _move_text(state: GameState, move: object) -> str:
    if isinstance(move, Move):
        try:
            return move.text(state.pack.cards)
        except (IndexError, TypeError, ValueError):
            return repr(move)
    return repr(move)


def random_move(state: GameState, rng: random.Random) -> Move:
    """A legal move drawn uniformly from :func:`legal_moves`, without listing them all.

    It counts and picks the cards from the state's bit masks, in the order of
    :func:`legal_moves` (by card, then by draw), so that it needs no list of moves.
    """
    if state.phase != CARD:
        if state.phase == TRACK_CARD:
            return _board.random_move(state, rng)
        return rng.choice(legal_moves(state))
    t = state.tables
    p = state.to_move
    held = state.held_bits[p]
    plays = held & state.playable_bits[p]
    if t.lowest_in_hand and plays:
        plays = sum(1 << k for k in card_options(state)[0])
    n_plays = plays.bit_count()
    options = n_plays + held.bit_count()
    if state.last_play:
        i = rng.randrange(options)
        if i < n_plays:
            return t.last_moves[PLAY][nth_bit(plays, i)]
        return t.last_moves[DISCARD][nth_bit(held, i - n_plays)]
    if type(rng) is not random.Random or not SAME_DRAWS:
        return _sample_move(state, t, p, held, plays, n_plays, options, rng.randrange)
    # _sample_move with ``randrange`` inlined (the same draws: SAME_DRAWS)
    piles = state.pile_bits
    draws = t.pile_draws[piles]
    deck = 1 if state.deck else 0
    n_draws = deck + len(draws)
    keeps = t.discard_keeps  # turn.retake: the piles a discard of each colour may draw
    columns = n_draws + t.retake_own
    cells = options * columns
    k = cells.bit_length()
    getrandbits = rng.getrandbits
    while True:
        r = getrandbits(k)
        while r >= cells:
            r = getrandbits(k)
        option, column = divmod(r, columns)
        if column < n_draws:
            draw = DECK if column < deck else draws[column - deck]
            if option < n_plays:
                while option:  # nth_bit(plays, option)
                    plays &= plays - 1
                    option -= 1
                return t.moves[PLAY][(plays & -plays).bit_length() - 1][draw]
            card = nth_bit(held, option - n_plays)
            if draw == DECK or keeps[t.colour_of[card]] >> draw & 1:
                return t.moves[DISCARD][card][draw]
        elif option >= n_plays:  # the extra column: retake from a pile that was empty
            card = nth_bit(held, option - n_plays)
            colour = t.colour_of[card]
            if not piles >> colour & 1:
                return t.moves[DISCARD][card][colour]


def _sample_move(state: GameState, t, p: Seat, held: int, plays: int, n_plays: int,
                 options: int, below: Callable[[int], int]) -> Move:
    """:func:`random_move` of a card turn with a draw: ``below(n)`` draws in ``range(n)``.

    Uniform over the cells (option, column) that are legal moves: columns are the
    draws (the deck, then the non-empty piles by colour), plus one for the discarded
    card's own pile when it may be retaken.
    """
    piles = state.pile_bits
    draws = t.pile_draws[piles]
    deck = 1 if state.deck else 0
    n_draws = deck + len(draws)
    keeps = t.discard_keeps  # turn.retake: the piles a discard of each colour may draw
    columns = n_draws + t.retake_own
    while True:
        option, column = divmod(below(options * columns), columns)
        if column < n_draws:
            draw = DECK if column < deck else draws[column - deck]
            if option < n_plays:
                return t.moves[PLAY][nth_bit(plays, option)][draw]
            card = nth_bit(held, option - n_plays)
            if draw == DECK or keeps[t.colour_of[card]] >> draw & 1:
                return t.moves[DISCARD][card][draw]
        elif option >= n_plays:  # the extra column: retake from a pile that was empty
            card = nth_bit(held, option - n_plays)
            colour = t.colour_of[card]
            if not piles >> colour & 1:
                return t.moves[DISCARD][card][colour]


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
    if policy is random_move and state.board is None:
        _random_playout(state, rng)
        return state
    while state.phase != OVER:
        push(state, policy(state, rng))
        undo.clear()
    return state




def _random_playout(state: GameState, rng: random.Random) -> None:
    """:func:`playout` with :func:`random_move` for a duel pack, each turn fused.

    A turn that neither ends the round nor is the last play is chosen as
    :func:`random_move` chooses it (the same draws of ``rng``: ``randrange`` inlined)
    and played as :func:`push` plays it, without undo records; any other turn goes
    through :func:`random_move` and :func:`push` themselves. Within a round the loop
    keeps each seat's distinct cards in order (the n-th discard option is an index
    there) and leaves the ``playable`` lists to be set from the row states when it
    hands the state back (they follow the row states, which it keeps in step). A turn
    that ends the round ends it as :func:`~.steps.end_turn` does (scores, the next deal).
    """
    t = state.tables
    undo = state.undo
    fused = (type(rng) is random.Random and SAME_DRAWS and not t.lowest_in_hand
             and t.card_phase == CARD)
    getrandbits = rng.getrandbits
    colour_of = t.colour_of
    after_card = t.after_card()
    play_moves, discard_moves = t.moves[PLAY], t.moves[DISCARD]
    pile_draws, retake, discard_keeps = t.pile_draws, t.retake_own, t.discard_keeps
    deck_ends = not t.last_play
    turn_cap, n = t.turn_cap, state.n
    next_seat = tuple((p + 1) % n for p in range(n))
    state.own_all()  # the lists played on below are this state's own
    # a fused turn starts with cards in the draw pile (else the round is over or at its
    # last plays): its draws are the deck and the non-empty piles; by pile mask, those
    # draws by column (the deck first) and how many
    draws_of = tuple((DECK, *d) for d in pile_draws)
    draw_columns = tuple(map(len, draws_of))
    while state.phase != OVER:
        if not fused or state.last_play or state.phase != CARD:
            push(state, random_move(state, rng))
            undo.clear()
            continue
        # one round's turns, with the round's lists at hand
        hands, rows, row_states = state.hands, state.rows, state.row_states
        piles_of, deck = state.piles, state.deck
        add_move, draw_deck = state.moves.append, deck.pop
        held_bits, playable_bits = state.held_bits, state.playable_bits
        # each seat's hand, its distinct cards in order, its row states and rows
        seats = [(hands[q], sorted(set(hands[q])), row_states[q], rows[q]) for q in range(n)]
        piles = state.pile_bits
        draws, n_draws = draws_of[piles], draw_columns[piles]  # kept with piles below
        p = state.to_move
        turn = state.turn
        while True:
            held = held_bits[p]
            hand, mine, rs, my_rows = seats[p]
            plays = held & playable_bits[p]
            n_plays = plays.bit_count()
            # the choice: random_move's cells (option, column), inlined
            columns = n_draws + retake
            cells = (n_plays + len(mine)) * columns
            k = cells.bit_length()
            while True:
                r = getrandbits(k)
                while r >= cells:
                    r = getrandbits(k)
                option = r // columns
                column = r - option * columns
                if option < n_plays:
                    if column >= n_draws:
                        continue
                    while option:  # card = nth_bit(plays, option)
                        plays &= plays - 1
                        option -= 1
                    card = (plays & -plays).bit_length() - 1
                    draw = draws[column]
                    move = play_moves[card][draw]
                    play = True
                    break
                card = mine[option - n_plays]  # nth_bit(held, option - n_plays)
                play = False
                if column < n_draws:
                    draw = draws[column]
                    if draw == DECK or discard_keeps[colour_of[card]] >> draw & 1:
                        move = discard_moves[card][draw]
                        break
                else:  # the extra column: retake from a pile that was empty
                    draw = colour_of[card]
                    if not piles >> draw & 1:
                        move = discard_moves[card][draw]
                        break
            # the turn, as push plays it
            hand.remove(card)  # its first copy, as push removes it
            if card not in hand:
                held ^= 1 << card
                mine.remove(card)
            colour = colour_of[card]
            if play:
                old = rs[colour]
                my_rows[colour].append(card)
                new, accepts, keeps = after_card[old][card]
                if new != old:
                    rs[colour] = new
                    playable_bits[p] = playable_bits[p] & keeps | accepts
            else:
                pile = piles_of[colour]
                pile.append(card)
                if len(pile) == 1:
                    piles |= 1 << colour
                    draws, n_draws = draws_of[piles], draw_columns[piles]
            if draw == DECK:
                drawn = draw_deck()
            else:
                pile = piles_of[draw]
                drawn = pile.pop()
                if not pile:
                    piles ^= 1 << draw
                    draws, n_draws = draws_of[piles], draw_columns[piles]
            hand.append(drawn)
            if not held >> drawn & 1:
                insort(mine, drawn)
            held_bits[p] = held | 1 << drawn
            add_move(move)
            turn += 1
            if not deck or turn >= turn_cap:  # the round ends, or its last plays begin
                state.turn, state.pile_bits = turn, piles
                state.playable = _playable_of(t, row_states)
                if turn >= turn_cap or (not deck and deck_ends):  # as end_turn ends it
                    state.to_move = p
                    state.last_play = not deck and not deck_ends
                    end_round(state, DRAW_PILE_EMPTY if not deck and deck_ends else TURN_CAP)
                else:  # the pack plays on after the pile ran out: the last plays
                    state.to_move = next_seat[p]
                    state.last_play = True
                break
            p = next_seat[p]


def _playable_of(t, row_states: list[list[int]]) -> list[list[bool]]:
    """``state.playable`` of these row states (one bool per card kind and seat)."""
    allowed = t.allowed
    return [[ok for rs in states for ok in allowed[rs]] for states in row_states]


#: NTH_OF_CHUNK[b]: the set bits of ``b`` (below ``1 << CHUNK``), lowest first
CHUNK = 10
NTH_OF_CHUNK = tuple(tuple(k for k in range(CHUNK) if b >> k & 1) for b in range(1 << CHUNK))


def nth_bit(bits: int, i: int) -> int:
    """The index of the ``i``-th set bit of ``bits``, counting from the lowest (0-based),
    by table lookups of :data:`CHUNK` bits at a time; ``bits`` must have more than ``i``."""
    base = 0
    table, mask = NTH_OF_CHUNK, (1 << CHUNK) - 1
    while True:
        row = table[bits & mask]
        if i < len(row):
            return base + row[i]
        i -= len(row)
        bits >>= CHUNK
        base += CHUNK


# --------------------------------------------------------------------------- actions

def _action_ok(state: GameState, action_id: int) -> bool:
    """``action_id in legal_actions(state)``, a duel's card decision without listing them."""
    t = state.tables
    k = t.n_kinds
    if state.phase == DRAW and state.board is None:
        action, card = state.pending  # type: ignore[misc]
        # drawing from the deck is action 2 n_kinds, from pile c 2 n_kinds + 1 + c
        return action_id >= 2 * k and draw_ok(state, discarded_colour(state, action, card),
                                                action_id - 2 * k - 1)
    if state.phase != CARD or t.lowest_in_hand:
        return action_id in legal_actions(state)
    p = state.to_move
    card = action_id if action_id < t.n_kinds else action_id - t.n_kinds
    if card >= t.n_kinds or card not in state.hands[p]:
        return False
    return action_id != card or state.playable[p][card]


def legal_actions(state: GameState) -> list[int]:
    """The legal action ids of the decision to make now (see :class:`ActionSpace`)."""
    t = state.tables
    if state.board is None:  # a duel: the ids straight from the cards and draws
        if state.phase == CARD and not t.lowest_in_hand:
            p = state.to_move
            ok = state.playable[p]
            cards = sorted(set(state.hands[p]))
            k = t.n_kinds  # play card c is action c, discard it n_kinds + c
            return [c for c in cards if ok[c]] + [k + c for c in cards]
        if state.phase == DRAW and not state.last_play:
            action, card = state.pending  # type: ignore[misc]
            return list(t.draw_actions(state.pile_bits, bool(state.deck),
                                       t.colour_of[card] if action == DISCARD else -1))
    space = action_space(state.pack)
    if state.phase >= TRACK_CARD:
        return _board.legal_actions(state)
    if state.phase == OVER:
        return []
    if state.phase == DRAW:
        action, card = state.pending  # type: ignore[misc]
        return [space.draw_action(d)  # type: ignore[arg-type]
                for d in draw_sources(state, discarded_colour(state, action, card))]
    plays, discards = card_options(state)
    return [space.card_action(PLAY, k) for k in plays] + \
           [space.card_action(DISCARD, k) for k in discards]


def legal_action_mask(state: GameState) -> list[bool]:
    """One bool per action id of the pack: legal now (a card decision: one pass over
    the hand)."""
    t = state.tables
    if state.phase == DRAW and state.board is None and not state.last_play:
        action, card = state.pending  # type: ignore[misc]
        return list(t.draw_mask(state.pile_bits, bool(state.deck),
                                t.colour_of[card] if action == DISCARD else -1))
    mask = [False] * t.num_actions
    if state.phase == CARD and not t.lowest_in_hand:
        p = state.to_move
        ok = state.playable[p]
        discard = t.n_kinds
        for card in state.hands[p]:
            mask[discard + card] = True  # discard card k is action n_kinds + k
            if ok[card]:
                mask[card] = True  # play card k is action k
        return mask
    if state.phase == DRAW and state.board is None:
        action, card = state.pending  # type: ignore[misc]
        deck = 2 * t.n_kinds + 1  # drawing from pile c is action 2 n_kinds + 1 + c, DECK -1
        for d in draw_sources(state, discarded_colour(state, action, card)):
            mask[deck + d] = True  # type: ignore[operator]
        return mask
    for a in legal_actions(state):
        mask[a] = True
    return mask


def push_action(state: GameState, action_id: int) -> None:
    """Make one decision in place (trusted); undo with :func:`pop`."""
    if state.board is None:
        t = state.tables
        k = t.n_kinds
        if 0 <= action_id < 2 * k:  # play card k is action k, discard it n_kinds + k
            action, card = (PLAY, action_id) if action_id < k else (DISCARD, action_id - k)
            if state.last_play:  # the turn ends with this card: the generic records
                state.undo.append(None)
                decide_card(state, action, card)
            else:
                choose_card(state, action, card)  # one record, a push by itself
            return
        # drawing from the deck (DECK = -1) is action 2 n_kinds, from pile c 2 n_kinds + 1 + c
        if state.phase == DRAW and 2 * k <= action_id <= 2 * k + t.n_colours \
                and draw_turn(state, action_id - 2 * k - 1):
            return
    space = action_space(state.pack)
    kind, arg = space.decode(action_id)
    if state.board is not None:
        _board.push_action(state, kind, arg)
        return
    state.undo.append(None)
    if kind == "draw":
        decide_draw(state, arg)
    else:
        decide_card(state, kind, arg)  # type: ignore[arg-type]


def step(state: GameState, action_id: int) -> GameState:
    """The state after one decision (an action id); ``state`` is left unchanged."""
    t = state.tables
    if state.board is None and type(action_id) is int and not state.last_play:  # noqa: E721
        # a duel's decision that does not end the round: made on a fork, without undo
        k = t.n_kinds
        phase = state.phase
        if phase == CARD and 0 <= action_id < 2 * k and not t.lowest_in_hand:
            return _step_card(state, t, action_id, k)
        if phase == DRAW and 2 * k <= action_id <= 2 * k + t.n_colours:
            new = _step_draw(state, t, action_id - 2 * k - 1)
            if new is not None:
                return new
    space = action_space(state.pack)
    if not isinstance(action_id, int) or not 0 <= action_id < space.num_actions:
        raise InvalidMoveError(f"action {action_id!r} is outside 0-{space.num_actions - 1}")
    if not _action_ok(state, action_id):
        raise IllegalMoveError(f"action {action_id} ({space.name(action_id)}) is not legal now")
    new = state.copy()
    push_action(new, action_id)
    new.undo.clear()
    return new


def _step_card(state: GameState, t, action_id: int, k: int) -> GameState:
    """:func:`step` of a duel's card decision (not the last play), as :func:`decide_card`
    makes it, on a new state built at once (the lists it changes, the others shared);
    raises IllegalMoveError as step does."""
    p = state.to_move
    card = action_id - k if action_id >= k else action_id
    hand = state.hands[p]
    if card not in hand or (action_id < k and not state.playable[p][card]):
        raise IllegalMoveError(f"action {action_id} ({action_space(state.pack).name(action_id)}) "
                               f"is not legal now")
    n = state.n
    new = GameState.__new__(GameState)
    (new.pack, new.tables, new.players, new.n, new.seed, new.deals, new.round,
     new.rounds_total, new.starter, new.to_move, new.phase, new.turn, new.deal,
     new.last_play, new.deck, new.moves, new.finished, new.board, new.undo, new.rows,
     new.row_states, new.playable, new.playable_bits) = (
        state.pack, t, state.players, n, state.seed, state.deals, state.round,
        state.rounds_total, state.starter, p, DRAW, state.turn, state.deal, False,
        state.deck, state.moves, state.finished, None, [], state.rows, state.row_states,
        state.playable, state.playable_bits)
    hands = new.hands = state.hands[:]
    hand = hands[p] = hand[:]
    hand.remove(card)  # its first copy, as decide_card removes it
    held = new.held_bits = state.held_bits[:]
    if card not in hand:
        held[p] ^= 1 << card
    lists = ALL_SHARED ^ HANDS_SHARED
    colour = t.colour_of[card]
    all_piles = (1 << len(state.piles)) - 1
    if action_id < k:
        _play_on_fork(new, state, p, colour, card)
        new.pending = (PLAY, card)
        new.piles, new.pile_bits, new.shared_piles = state.piles, state.pile_bits, all_piles
    else:
        piles = new.piles = state.piles[:]
        piles[colour] = piles[colour] + [card]
        new.shared_piles = all_piles ^ 1 << colour
        lists ^= PILES_SHARED
        new.pile_bits = state.pile_bits | 1 << colour
        new.pending = (DISCARD, card)
    everyone = (1 << n) - 1
    new.shared_seats, new.shared_hands, new.shared_lists = everyone, everyone ^ 1 << p, lists
    # this state shares its lists with the new one now
    state.shared_seats = state.shared_hands = everyone
    state.shared_piles = all_piles
    state.shared_lists = ALL_SHARED
    return new


def _step_draw(state: GameState, t, draw: int) -> Optional[GameState]:
    """:func:`step` of a duel's draw from ``draw`` (DECK or a colour) on a new state built
    at once, when it is legal and does not end the round (else None: the generic path
    decides)."""
    action, card = state.pending  # type: ignore[misc]
    deck = state.deck
    piles = state.piles
    pile_bits = state.pile_bits
    all_piles = (1 << len(piles)) - 1
    mine = 0
    if draw == DECK:
        if not deck or (len(deck) == 1 and not t.last_play) or state.turn + 1 >= t.turn_cap:
            return None
        drawn = deck[-1]
        deck = deck[:-1]
        lists = ALL_SHARED ^ DECK_SHARED ^ MOVES_SHARED ^ HANDS_SHARED
        last_play = not deck  # the pack plays on after the pile ran out
    else:
        pile = piles[draw]
        if not pile or (
                action == DISCARD and not t.discard_keeps[t.colour_of[card]] >> draw & 1) \
                or state.turn + 1 >= t.turn_cap:
            return None
        drawn = pile[-1]
        piles = piles[:]
        pile = piles[draw] = pile[:-1]
        mine = 1 << draw
        lists = ALL_SHARED ^ PILES_SHARED ^ MOVES_SHARED ^ HANDS_SHARED
        if not pile:
            pile_bits ^= 1 << draw
        last_play = False
    p, n = state.to_move, state.n
    new = GameState.__new__(GameState)
    (new.pack, new.tables, new.players, new.n, new.seed, new.deals, new.round,
     new.rounds_total, new.starter, new.to_move, new.phase, new.turn, new.deal,
     new.last_play, new.pending, new.deck, new.piles, new.pile_bits, new.finished, new.board,
     new.undo, new.rows, new.row_states, new.playable, new.playable_bits) = (
        state.pack, t, state.players, n, state.seed, state.deals, state.round,
        state.rounds_total, state.starter, (p + 1) % n, CARD, state.turn + 1, state.deal,
        last_play, None, deck, piles, pile_bits, state.finished, None, [], state.rows,
        state.row_states, state.playable, state.playable_bits)
    hands = new.hands = state.hands[:]
    hands[p] = hands[p] + [drawn]
    held = new.held_bits = state.held_bits[:]
    held[p] |= 1 << drawn
    new.moves = state.moves + [t.moves[action][card][draw]]
    everyone = (1 << n) - 1
    new.shared_seats, new.shared_hands, new.shared_piles, new.shared_lists = (
        everyone, everyone ^ 1 << p, all_piles ^ mine, lists)
    # this state shares its lists with the new one now
    state.shared_seats = state.shared_hands = everyone
    state.shared_piles = all_piles
    state.shared_lists = ALL_SHARED
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
        leader = state.tables.board is not None and 0 <= move.pawn < state.tables.board.pawns \
            and state.tables.board.leader[move.pawn]
        words.append(f"sends pawn {move.pawn}{' (leader)' if leader else ''} onto the "
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
           "legal_moves", "illegal_reason", "why_refused", "is_legal",
           "push", "pop", "apply", "random_move", "playout", "legal_actions", "legal_action_mask",
           "push_action", "step", "is_over", "round_scores", "live_scores", "totals", "winners",
           "next_starter", "continue_match", "describe_move"]
