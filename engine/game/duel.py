"""The card duel's family: how a pack without a board plays its turns, fast.

:mod:`.turn` (the public engine) hands each call to the pack's family, ``duel`` (this
module) or ``board`` (:mod:`.board`), which offer the same functions by the same names
(``turn.FAMILIES``): legal moves and actions, the legality check, push and push_action,
apply's and step's work on a fork, random moves and the random playout. Both build on the
card game's steps (:mod:`.steps`); this module adds the duel's fast paths, which play
each turn by the very same steps' rules from the pack's compiled tables (the seeded
digests of tests/test_seeded_digests.py and tests/test_play_paths_agree.py keep them the
same moves).
"""
from __future__ import annotations

import random
from bisect import insort
from typing import Callable, Optional

from .cards import Card
from ..errors import IllegalMoveError
from .moves import DECK, DISCARD, PLAY, Move, action_space
from .refusals import Refusal
from .state import (ALL_SHARED, CARD, DECK_SHARED, DRAW, DRAW_PILE_EMPTY, HANDS_SHARED,
                    MOVES_SHARED, OVER, PILES_SHARED, TURN_CAP, GameState, Seat)
from .steps import (SAME_DRAWS, card_options, card_refusal, choose_card, decide_card,
                    decide_draw, discarded_colour, draw_actions, draw_ok, draw_refusal,
                    draw_sources, draw_turn, end_round, form_refusal, open_record,
                    play_turn, starts_lowest)


def legal_moves(state: GameState) -> list[Move]:
    """Every legal whole turn, in a fixed order (plays first, by card, then by draw).

    In the draw phase (after :func:`~.turn.step` made the card decision) these are the
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
    """:func:`~.turn.why_refused` of a duel: a well-formed legal move is recognised at
    once; anything else is explained by :func:`refusal`, which alone decides what is
    illegal."""
    t = state.tables
    if state.phase == CARD and type(move) is Move and move.pawn is None and not move.steps:
        card, p = move.card, state.to_move
        if type(card) is int and card in state.hands[p]:  # noqa: E721
            if move.action == PLAY:
                if state.playable[p][card] and draw_ok(state, -1, move.draw) and (
                        not t.lowest_in_hand or starts_lowest(state, p, card)):
                    return None
            elif move.action == DISCARD and draw_ok(state, t.colour_of[card], move.draw):
                return None
    return refusal(state, move)


def refusal(state: GameState, move: Move) -> Optional[Refusal]:
    """:func:`why_refused` by the full checks alone, without its fast path."""
    codec = state.tables.codec
    form = form_refusal(state, move)
    if form is not None:
        return form
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


def push(state: GameState, move: Move) -> None:
    """:func:`~.turn.push` of a duel: the common whole turn as one record
    (:func:`~.steps.play_turn`), any other as its steps."""
    if state.phase == CARD:
        t = state.tables
        draw = move.draw
        if not state.last_play and state.turn + 1 < t.turn_cap and draw is not None \
                and (draw != DECK or len(state.deck) > 1 or t.last_play):
            play_turn(state, move)  # the common turn: one undo record, a push of its own
            return
        open_record(state)
        decide_card(state, move.action, move.card, move)
        if state.phase == DRAW:
            decide_draw(state, move.draw, move)
    else:
        open_record(state)
        if state.phase == DRAW:
            decide_draw(state, move.draw, move)


def on_fork(state: GameState, move: Move) -> GameState:
    """A fork of ``state`` with ``move`` played (:func:`~.turn.apply` once it is checked): a duel's
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
    # a fork, then the lists the turn changes built new
    p, card, n = state.to_move, move.card, state.n
    new = state.fork()
    new.pending, new.phase = None, CARD
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
    if mine:
        lists ^= PILES_SHARED
    new.piles, new.pile_bits = piles, pile_bits
    hand.append(drawn)
    held_bits[p] = held | 1 << drawn
    new.moves = state.moves + [move if move.codec is not None else t.move(move.action, card, draw)]
    new.turn = state.turn + 1
    new.to_move = (p + 1) % n
    new.shared_hands ^= 1 << p
    new.shared_piles ^= mine
    new.shared_lists = lists
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


def random_move(state: GameState, rng: random.Random) -> Move:
    """:func:`~.turn.random_move` of a duel: a legal move drawn uniformly from
    :func:`legal_moves`, without listing them all.

    It counts and picks the cards from the state's bit masks, in the order of
    :func:`legal_moves` (by card, then by draw), so that it needs no list of moves.
    """
    if state.phase != CARD:
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
    columns = n_draws + t.retake_own
    cells = options * columns
    k = cells.bit_length()
    getrandbits = rng.getrandbits
    while True:
        r = getrandbits(k)
        while r >= cells:
            r = getrandbits(k)
        option, column = divmod(r, columns)
        move = _cell(t, held, plays, n_plays, piles, draws, deck, n_draws, option, column)
        if move is not None:
            return move


def _sample_move(state: GameState, t, p: Seat, held: int, plays: int, n_plays: int,
                 options: int, below: Callable[[int], int]) -> Move:
    """:func:`random_move` of a card turn with a draw: ``below(n)`` draws in ``range(n)``.

    Uniform over the cells (option, column) that are legal moves (:func:`_cell`): columns
    are the draws (the deck, then the non-empty piles by colour), plus one for the
    discarded card's own pile when it may be retaken.
    """
    piles = state.pile_bits
    draws = t.pile_draws[piles]
    deck = 1 if state.deck else 0
    n_draws = deck + len(draws)
    columns = n_draws + t.retake_own
    while True:
        option, column = divmod(below(options * columns), columns)
        move = _cell(t, held, plays, n_plays, piles, draws, deck, n_draws, option, column)
        if move is not None:
            return move


def _cell(t, held: int, plays: int, n_plays: int, piles: int, draws: tuple[int, ...],
          deck: int, n_draws: int, option: int, column: int) -> Optional[Move]:
    """The move of the cell (``option``, ``column``) a random move drew, or None when the
    cell is no legal move (the draw is drawn again): an option is a card to play (the first
    ``n_plays``, of the bits ``plays``) or to discard (of ``held``); a column a draw (the
    deck, then the non-empty piles ``draws``), or past them the discarded card's own pile
    when it was empty. ``turn.retake`` decides by the tables' ``discard_keeps``."""
    if column < n_draws:
        draw = DECK if column < deck else draws[column - deck]
        if option < n_plays:
            return t.moves[PLAY][nth_bit(plays, option)][draw]
        card = nth_bit(held, option - n_plays)
        if draw == DECK or t.discard_keeps[t.colour_of[card]] >> draw & 1:
            return t.moves[DISCARD][card][draw]
        return None
    if option >= n_plays:  # the extra column: retake from a pile that was empty
        card = nth_bit(held, option - n_plays)
        colour = t.colour_of[card]
        if not piles >> colour & 1:
            return t.moves[DISCARD][card][colour]
    return None


def random_playout(state: GameState, rng: random.Random) -> None:
    """:func:`~.turn.playout` with :func:`random_move` for a duel pack, each turn fused.

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
    next_seat = tuple([(q + 1) % n for q in range(n)])
    state.own_all()  # the lists played on below are this state's own
    # a fused turn starts with cards in the draw pile (else the round is over or at its
    # last plays): its draws are the deck and the non-empty piles; by pile mask, those
    # draws by column (the deck first) and how many
    draws_of = tuple([(DECK, *d) for d in pile_draws])
    draw_columns = tuple([len(d) for d in draws_of])
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


def action_ok(state: GameState, action_id: int) -> bool:
    """``action_id in legal_actions(state)``, a duel's card decision without listing them."""
    t = state.tables
    k = t.n_kinds
    if state.phase == DRAW:
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
    if state.phase == CARD and not t.lowest_in_hand:  # the ids straight from the cards
        p = state.to_move
        ok = state.playable[p]
        cards = sorted(set(state.hands[p]))
        k = t.n_kinds  # play card c is action c, discard it n_kinds + c
        return [c for c in cards if ok[c]] + [k + c for c in cards]
    if state.phase == DRAW and not state.last_play:
        action, card = state.pending  # type: ignore[misc]
        return list(t.draw_actions(state.pile_bits, bool(state.deck),
                                   t.colour_of[card] if action == DISCARD else -1))
    if state.phase == OVER or state.phase == DRAW:
        return draw_actions(state)
    space = action_space(state.pack)
    plays, discards = card_options(state)
    return [space.card_action(PLAY, k) for k in plays] + \
           [space.card_action(DISCARD, k) for k in discards]


def legal_action_mask(state: GameState) -> list[bool]:
    """One bool per action id of the pack: legal now (a card decision: one pass over
    the hand)."""
    t = state.tables
    if state.phase == DRAW and not state.last_play:
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
    if state.phase == DRAW:
        action, card = state.pending  # type: ignore[misc]
        deck = 2 * t.n_kinds + 1  # drawing from pile c is action 2 n_kinds + 1 + c, DECK -1
        for d in draw_sources(state, discarded_colour(state, action, card)):
            mask[deck + d] = True  # type: ignore[operator]
        return mask
    for a in legal_actions(state):
        mask[a] = True
    return mask


def push_action(state: GameState, action_id: int) -> None:
    """:func:`~.turn.push_action` of a duel."""
    t = state.tables
    k = t.n_kinds
    if 0 <= action_id < 2 * k:  # play card k is action k, discard it n_kinds + k
        action, card = (PLAY, action_id) if action_id < k else (DISCARD, action_id - k)
        if state.last_play:  # the turn ends with this card: the generic records
            open_record(state)
            decide_card(state, action, card)
        else:
            choose_card(state, action, card)  # one record, a push by itself
        return
    # drawing from the deck (DECK = -1) is action 2 n_kinds, from pile c 2 n_kinds + 1 + c
    if state.phase == DRAW and 2 * k <= action_id <= 2 * k + t.n_colours \
            and draw_turn(state, action_id - 2 * k - 1):
        return
    kind, arg = action_space(state.pack).decode(action_id)
    open_record(state)
    if kind == "draw":
        decide_draw(state, arg)
    else:
        decide_card(state, kind, arg)  # type: ignore[arg-type]


def step_on_fork(state: GameState, action_id: int) -> Optional[GameState]:
    """:func:`~.turn.step` of a decision that does not end the round, made on a fork
    without undo (raises IllegalMoveError as step does); None for any other decision (the
    generic step makes it)."""
    t = state.tables
    if type(action_id) is int and not state.last_play:  # noqa: E721
        k = t.n_kinds
        phase = state.phase
        if phase == CARD and 0 <= action_id < 2 * k and not t.lowest_in_hand:
            return _step_card(state, t, action_id, k)
        if phase == DRAW and 2 * k <= action_id <= 2 * k + t.n_colours:
            return _step_draw(state, t, action_id - 2 * k - 1)
    return None


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
    new = state.fork()
    new.phase, new.last_play = DRAW, False
    hands = new.hands = state.hands[:]
    hand = hands[p] = hand[:]
    hand.remove(card)  # its first copy, as decide_card removes it
    held = new.held_bits = state.held_bits[:]
    if card not in hand:
        held[p] ^= 1 << card
    lists = ALL_SHARED ^ HANDS_SHARED
    colour = t.colour_of[card]
    if action_id < k:
        _play_on_fork(new, state, p, colour, card)
        new.pending = (PLAY, card)
    else:
        piles = new.piles = state.piles[:]
        piles[colour] = piles[colour] + [card]
        new.shared_piles ^= 1 << colour
        lists ^= PILES_SHARED
        new.pile_bits = state.pile_bits | 1 << colour
        new.pending = (DISCARD, card)
    new.shared_hands ^= 1 << p
    new.shared_lists = lists
    return new


def _step_draw(state: GameState, t, draw: int) -> Optional[GameState]:
    """:func:`step` of a duel's draw from ``draw`` (DECK or a colour) on a new state built
    at once, when it is legal and does not end the round (else None: the generic path
    decides)."""
    action, card = state.pending  # type: ignore[misc]
    deck = state.deck
    piles = state.piles
    pile_bits = state.pile_bits
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
    p = state.to_move
    new = state.fork()
    (new.to_move, new.phase, new.turn, new.last_play, new.pending, new.deck, new.piles,
     new.pile_bits) = ((p + 1) % state.n, CARD, state.turn + 1, last_play, None, deck, piles,
                       pile_bits)
    hands = new.hands = state.hands[:]
    hands[p] = hands[p] + [drawn]
    held = new.held_bits = state.held_bits[:]
    held[p] |= 1 << drawn
    new.moves = state.moves + [t.moves[action][card][draw]]
    new.shared_hands ^= 1 << p
    new.shared_piles ^= mine
    new.shared_lists = lists
    return new


def leader_note(state: GameState, pawn: int) -> str:
    """:func:`~.turn.describe_move`'s note on a pawn: none in a duel (no pawns)."""
    return ""

