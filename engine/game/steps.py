"""The card game's turn steps: the one seam the board game builds on.

A round is dealt (:func:`shuffle_deal`, :func:`start_round`); a turn is a card decision
(:func:`decide_card`: the card leaves the hand for its row or its pile), then a draw
(:func:`decide_draw`), then the end of the turn (:func:`end_turn`), which ends the round
(:func:`end_round`: scores, the next deal) when the pack's rules say so. Each step keeps the
state's derived fields in step and pushes an exact undo record, which :func:`pop` undoes.
What the player to move may do comes from :func:`card_options` and :func:`draw_sources`
(:func:`card_refusal` and :func:`draw_refusal` say why not, as a :class:`.Refusal`).

:mod:`.turn` (the public turn engine) and :mod:`.board` (the board game, whose pawns move
between the card and the draw) both build on these steps; this module imports neither. A
board pack's own facts reach it only through the objects its tables and state hold
(``tables.board``: ``place_tiles``, ``check_tiles``, ``new_board``; ``state.board``:
``round_inputs``), so the card game's steps never test for a board beyond ``is None``.
"""
from __future__ import annotations

import random
from typing import Optional

from .cards import Card
from .moves import DECK, DISCARD, PLAY, Action, DrawSource, Move, action_space
from .options import draws_after_discard
from .refusals import Refusal
from .rows import row_refusal
from .rules import RulePack
from .state import (DECK_SHARED, DRAW, DRAW_PILE_EMPTY, MOVES_SHARED, OVER, TURN_CAP, Deal,
                    GameState, RoundResult, Seat, SetupError)
from .tables import NO_NUMBERS, tables_of


# --------------------------------------------------------------------------- the undo record

#: The one undo record, as python-chess's ``_BoardState`` keeps a position: what one push
#: (:func:`~.turn.push` or :func:`~.turn.push_action`) changed, each field named once, in
#: this order. The turn's scalars as they were: the ``seat`` to move, ``phase``, ``turn``,
#: ``pending``, ``last_play``. The card decision: ``action`` (None when the push made
#: none), ``card``, its ``index`` in the hand, the row's ``old`` state (-1 for a discard).
#: The draw: ``source`` (None when none), the card ``drawn``. The ``round`` that the turn
#: ended: the fields and lists the next deal replaced (None when it ended none). The
#: ``board`` as it was: a copy (None in a duel). The move a turn appended goes when
#: ``round`` is set or the turn count moved on. :func:`pop` undoes any record.
UNDO_FIELDS = ("seat", "phase", "turn", "pending", "last_play", "action", "card", "index",
               "old", "source", "drawn", "round", "board")
#: where the card decision, the draw, the ended round and the board start in a record
CARD_PART, DRAW_PART, ROUND_PART, BOARD_PART = 5, 9, 11, 12


def open_record(state: GameState) -> list:
    """Open the undo record of a push made step by step: :func:`decide_card`,
    :func:`decide_draw`, :func:`end_turn` and a board's decisions fill its parts in."""
    record = [state.to_move, state.phase, state.turn, state.pending, state.last_play,
              None, None, None, None, None, None, None, None]
    state.undo.append(record)
    return record


# --------------------------------------------------------------------------- dealing

def shuffle_deal(pack: RulePack, players: int, seed: int, round_number: int) -> Deal:
    """The deal of round ``round_number`` for ``seed``: stable across machines and processes.

    A board pack's tiles are laid out by the same generator, after the shuffle.
    """
    t = tables_of(pack)
    rng = random.Random(f"lostcities:{seed}:{round_number}")
    cards = list(t.deck)
    shuffle(rng, cards)
    removed = pack.removed_unseen.get(players, 0)
    hands = tuple(tuple(cards[removed + i * t.hand_size: removed + (i + 1) * t.hand_size])
                  for i in range(players))
    tiles = None if t.board is None else t.board.place_tiles(rng)
    return Deal(hands, tuple(cards[removed + players * t.hand_size:]),
                tuple(cards[:removed]), tiles)


def shuffle(rng: random.Random, cards: list) -> None:
    """``rng.shuffle(cards)``: the same order from the same draws, faster for a plain
    ``random.Random`` (``randrange`` inlined as :data:`SAME_DRAWS` checked)."""
    if type(rng) is not random.Random or not SAME_DRAWS:
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    for i, n, k in _swaps(len(cards)):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


#: the swaps of a shuffle of n cards, by n: (i, i + 1, its bit length), i from n - 1 down
_SWAPS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _swaps(size: int) -> tuple[tuple[int, int, int], ...]:
    found = _SWAPS.get(size)
    if found is None:
        found = tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, size)))
        if len(_SWAPS) < 64:  # a few deck sizes: bounded whatever the packs
            _SWAPS[size] = found
    return found


def _same_draws() -> bool:
    """Whether ``randrange(n)`` is ``getrandbits(n.bit_length())`` with rejection here
    (CPython's way since 3.2), which the fused playout inlines."""
    a, b = random.Random(15), random.Random(15)
    for n in (*range(1, 200), 1000, 12345):
        for _ in range(3):
            k = n.bit_length()
            r = b.getrandbits(k)
            while r >= n:
                r = b.getrandbits(k)
            if a.randrange(n) != r:
                return False
    return True


#: whether this Python's ``randrange(n)`` is ``getrandbits`` with rejection (CPython 3.2+)
SAME_DRAWS = _same_draws()


def check_deal(pack: RulePack, players: int, deal: Deal) -> None:
    """Raise :class:`SetupError` unless ``deal`` is a possible deal of ``pack``."""
    t = tables_of(pack)
    codec = pack.cards
    if len(deal.hands) != players:
        raise SetupError(f"the deal has {len(deal.hands)} hands for {players} players")
    for seat, hand in enumerate(deal.hands):
        if len(hand) != t.hand_size:
            raise SetupError(f"hand {seat + 1} has {len(hand)} cards, the pack deals "
                             f"{t.hand_size}")
    want = pack.removed_unseen.get(players, 0)
    if len(deal.removed) != want:
        raise SetupError(f"{len(deal.removed)} cards removed unseen, the pack removes {want} "
                         f"at {players} players")
    counts = [0] * t.n_kinds
    for card in t.deck:
        counts[card] += 1
    for card in [c for h in deal.hands for c in h] + list(deal.draw_pile) + list(deal.removed):
        if not 0 <= card < t.n_kinds:
            raise SetupError(f"card {card!r} is not a card of {pack.id}")
        counts[card] -= 1
        if counts[card] < 0:
            raise SetupError(f"the deal has more {codec.format(card)} than the pack's deck")
    missing = [codec.format(k) for k, left in enumerate(counts) for _ in range(left)]
    if missing:
        raise SetupError(f"the deal lacks {len(missing)} card(s) of the deck: "
                         f"{' '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}")
    if deal.tiles is not None:
        if t.board is None:
            raise SetupError(f"{pack.id} has no board: a deal of it lays out no tiles")
        t.board.check_tiles(pack, deal.tiles)


def start_round(state: GameState, number: int, starter: Seat) -> None:
    """Deal round ``number`` on ``state`` (the given deal, else the seed's), ``starter`` to
    move; a round dealt with an empty draw pile goes to its last plays or ends at once."""
    pack, t, n = state.pack, state.tables, state.n
    if state.deals is None or number > len(state.deals):
        deal = shuffle_deal(pack, n, state.seed, number)
    else:
        deal = state.deals[number - 1]
        check_deal(pack, n, deal)
        if t.board is not None and deal.tiles is None:
            deal = Deal(deal.hands, deal.draw_pile, deal.removed,
                        shuffle_deal(pack, n, state.seed, number).tiles)
    state.round = number
    state.starter = starter
    state.to_move = starter
    state.phase = t.card_phase
    state.turn = 0
    state.deal = deal
    state.hands = [list(h) for h in deal.hands]
    state.rows = [[[] for _ in range(t.n_colours)] for _ in range(n)]
    state.shared_seats = state.shared_hands = state.shared_piles = state.shared_lists = 0
    state.piles = [[] for _ in range(t.n_colours)]
    # derive(state) of a new round's empty rows and piles, from the tables at once
    state.row_states = [[NO_NUMBERS] * t.n_colours for _ in range(n)]
    empty = t.allowed[NO_NUMBERS] * t.n_colours
    state.playable = [list(empty) for _ in range(n)]
    state.playable_bits = [sum(t.allowed_bits[NO_NUMBERS])] * n
    state.held_bits = [sum(1 << k for k in set(hand)) for hand in state.hands]
    state.pile_bits = 0
    state.deck = list(reversed(deal.draw_pile))
    state.last_play = False
    state.pending = None
    state.moves = []
    if t.board is not None:
        state.board = t.board.new_board(state, deal.tiles)  # type: ignore[arg-type]
    if not state.deck:
        if t.last_play:
            state.last_play = True
        else:
            end_round(state, DRAW_PILE_EMPTY)


# --------------------------------------------------------------------------- what may be done

def card_options(state: GameState) -> tuple[list[Card], list[Card]]:
    """The distinct cards the player to move may play, and may discard."""
    t = state.tables
    p = state.to_move
    hand = state.hands[p]
    discards = sorted(set(hand))
    ok = state.playable[p]
    plays = [k for k in discards if ok[k]]
    if t.lowest_in_hand and plays:
        plays = [k for k in plays if starts_lowest(state, p, k)]
    return plays, discards


def starts_lowest(state: GameState, p: Seat, card: Card) -> bool:
    """Whether ``card`` may be played by seat ``p`` by the pack's ``rows.start``, compiled
    (:data:`.options.ROW_STARTS`: ``lowest-in-hand``, the first number card of a row is the
    lowest held); a wager, or a card joining a row of numbers, always may."""
    t = state.tables
    c = t.colour_of[card]
    if t.row_start is None or t.is_wager[card] or state.row_states[p][c] != NO_NUMBERS:
        return True
    return t.row_start(t.slot_of[card], (t.slot_of[k] for k in state.hands[p]
                                         if t.colour_of[k] == c and not t.is_wager[k]))


def base_draws(state: GameState) -> list[DrawSource]:
    """Where the player to move may draw when no card was discarded: deck, non-empty piles."""
    if state.last_play:
        return [None]
    piles = state.piles
    nonempty: list[DrawSource] = [c for c in state.tables.colours if piles[c]]
    return [DECK, *nonempty] if state.deck else nonempty


def draw_ok(state: GameState, discarded: int, draw: DrawSource) -> bool:
    """``draw in draw_sources(state, discarded)`` in constant time (a test keeps them equal)."""
    if state.last_play:
        return draw is None
    if draw == DECK:
        return bool(state.deck)
    t = state.tables
    if type(draw) is not int or not 0 <= draw < t.n_colours:  # noqa: E721
        return False
    if discarded >= 0 and not t.discard_keeps[discarded] >> draw & 1:
        return False  # turn.retake: not after this discard
    return draw == discarded or bool(state.piles[draw])


def after_discard(state: GameState, base: list[DrawSource], colour: int) -> list[DrawSource]:
    """``base`` once a card of ``colour`` is discarded, by the pack's ``turn.retake``."""
    if state.last_play:
        return base
    keeps = state.tables.discard_keeps[colour]
    return draws_after_discard(base, colour, keeps)  # type: ignore[arg-type]


def draw_sources(state: GameState, discarded: int) -> list[DrawSource]:
    """Where the player may draw once the card decision is made.

    ``discarded`` is the colour of the card just discarded, or -1 after a play.
    """
    base = base_draws(state)
    return base if discarded < 0 else after_discard(state, base, discarded)


def discarded_colour(state: GameState, action: Action, card: Card) -> int:
    """The colour of ``card`` when ``action`` discards it, else -1 (the key of
    :func:`draw_sources`)."""
    return state.tables.colour_of[card] if action == DISCARD else -1


def form_refusal(state: GameState, move: Move) -> Optional[Refusal]:
    """Why ``move`` cannot be a move of this match at all, whatever its family: the match
    is over, or it is not a move, its action none, its card none of the pack's."""
    if state.phase == OVER:
        return Refusal("illegal.game-over")
    if not isinstance(move, Move):
        return Refusal("illegal.not-a-move", {"move": repr(move)[:40]})
    if move.action not in (PLAY, DISCARD):
        return Refusal("illegal.action", {"action": repr(move.action)[:40]})
    if not isinstance(move.card, int) or not 0 <= move.card < state.tables.n_kinds:
        return Refusal("illegal.card", {"card": repr(move.card)[:40], "pack": state.pack.id})
    return None


def draw_actions(state: GameState) -> list[int]:
    """The action ids of the draw decision (none once the match is over), by
    :func:`draw_sources`, in any family."""
    if state.phase == OVER:
        return []
    action, card = state.pending  # type: ignore[misc]
    space = action_space(state.pack)
    return [space.draw_action(d)  # type: ignore[arg-type]
            for d in draw_sources(state, discarded_colour(state, action, card))]


def card_refusal(state: GameState, move: Move) -> Optional[Refusal]:
    """Why the player to move may not play or discard ``move.card`` now, or None."""
    t = state.tables
    p = state.to_move
    if move.card not in state.hands[p]:
        return Refusal("illegal.not-held", {"card": t.codec.format(move.card)})
    if move.action == PLAY:
        colour = t.colour_of[move.card]
        if not state.playable[p][move.card]:
            return row_refusal(state.pack, state.rows[p][colour], move.card)
        if t.lowest_in_hand and not starts_lowest(state, p, move.card):
            lowest = min((k for k in state.hands[p] if t.colour_of[k] == colour
                          and not t.is_wager[k]), key=t.slot_of.__getitem__)
            return Refusal("illegal.lowest", {"card": t.codec.format(move.card),
                                              "colour": state.pack.colours[colour].name,
                                              "lowest": t.codec.format(lowest)})
    return None


def draw_refusal(state: GameState, move: Move) -> Optional[Refusal]:
    """Why ``move.draw`` cannot end the turn once its card decision is made, or None."""
    t = state.tables
    draws = draw_sources(state, discarded_colour(state, move.action, move.card))
    if move.draw in draws:
        return None
    if move.draw is None:
        return Refusal("illegal.draw-missing")
    if state.last_play:
        return Refusal("illegal.last-play-draw")
    if move.draw == DECK:
        return Refusal("illegal.deck-empty")
    if not isinstance(move.draw, int) or not 0 <= move.draw < t.n_colours:
        return Refusal("illegal.draw-source", {"draw": repr(move.draw)[:40]})
    if move.action == DISCARD:
        keeps = t.discard_keeps[t.colour_of[move.card]]  # turn.retake, after this discard
        if not keeps >> move.draw & 1:
            key = "illegal.retake" if keeps else "illegal.discard-then-deck"  # no-discard-pile
            return Refusal(key, {"card": t.codec.format(move.card)})
    return Refusal("illegal.pile-empty", {"colour": state.pack.colours[move.draw].name})


# --------------------------------------------------------------------------- the steps

def decide_card(state: GameState, action: Action, card: Card,
                 move: Optional[Move] = None, settle: bool = True) -> None:
    """The card decision: the card leaves the hand for its row or its pile (undoable).

    Then the draw comes (none after the last play), unless ``settle`` is False: a
    board pack's pawns move first (:mod:`.board` settles the turn itself).
    """
    p = state.to_move
    index, old = place_card(state, p, action, card)
    state.undo[-1][CARD_PART:DRAW_PART] = action, card, index, old
    state.pending = (action, card)
    if not settle:
        return
    if state.last_play:
        end_turn(state, None, move)
    else:
        state.phase = DRAW


def place_card(state: GameState, p: Seat, action: Action, card: Card) -> tuple[int, int]:
    """Seat ``p``'s ``card`` leaves its hand for its row (``PLAY``) or its colour's pile, the
    bits and row state kept in step; return the card's index in the hand and the row's
    previous state (-1 for a discard), what the undo record keeps."""
    t = state.tables
    if state.shared_hands >> p & 1:
        state.own_hand(p)
    hand = state.hands[p]
    index = hand.index(card)
    del hand[index]
    if card not in hand:
        state.held_bits[p] ^= 1 << card
    colour = t.colour_of[card]
    old = -1
    if action == PLAY:
        if state.shared_seats >> p & 1:
            state.own_seat(p)
        state.rows[p][colour].append(card)
        old = state.row_states[p][colour]
        new = t.after[old][t.slot_of[card]]
        if new != old:
            set_row_state(state, p, colour, new)
    else:
        if state.shared_piles >> colour & 1:
            state.own_pile(colour)
        state.piles[colour].append(card)
        state.pile_bits |= 1 << colour
    return index, old


def take_card(state: GameState, source: DrawSource) -> Card:
    """The top card of the draw pile (``DECK``) or of pile ``source``, taken off it (the
    pile bits kept in step); the caller puts it in a hand."""
    if source == DECK:
        if state.shared_lists & DECK_SHARED:
            state.own_deck()
        return state.deck.pop()
    if state.shared_piles >> source & 1:  # type: ignore[operator]
        state.own_pile(source)  # type: ignore[arg-type]
    pile = state.piles[source]  # type: ignore[index]
    card = pile.pop()
    if not pile:
        state.pile_bits ^= 1 << source  # type: ignore[operator]
    return card


def play_turn(state: GameState, move: Move) -> None:
    """A duel's whole turn in place: ``move`` (trusted) is a card decision then a draw that
    neither ends the round nor is a last play (the caller checks), made as
    :func:`decide_card`, :func:`decide_draw` and :func:`end_turn` make it, with one undo
    record instead of three, which is a whole push by itself (:func:`pop` undoes it alone,
    no ``None`` before it).

    The hot path of every search and loop on :func:`~.turn.push`: :func:`place_card` and
    :func:`take_card` written out in line, the lists they change owned first, all at once
    (:func:`own_turn`; tests/test_undo_and_copies.py plays both ways)."""
    t = state.tables
    p = state.to_move
    action, card, source = move.action, move.card, move.draw
    colour = t.colour_of[card]
    if state.shared_hands | state.shared_seats | state.shared_piles | state.shared_lists:
        own_turn(state, p, action, colour, source)
    # place_card
    hand = state.hands[p]
    index = hand.index(card)
    del hand[index]
    held_bits = state.held_bits
    held = held_bits[p]
    if card not in hand:
        held ^= 1 << card
    if action == PLAY:
        state.rows[p][colour].append(card)
        old = state.row_states[p][colour]
        new = t.after[old][t.slot_of[card]]
        if new != old:
            set_row_state(state, p, colour, new)
    else:
        old = -1
        state.piles[colour].append(card)
        state.pile_bits |= 1 << colour
    # take_card
    if source == DECK:
        deck = state.deck
        drawn = deck.pop()
        if not deck:
            state.last_play = True  # only a pack that plays on after the pile ran out
    else:
        pile = state.piles[source]
        drawn = pile.pop()
        if not pile:
            state.pile_bits ^= 1 << source
    hand.append(drawn)
    held_bits[p] = held | 1 << drawn
    state.moves.append(move if move.codec is not None else t.move(action, card, source))
    state.undo.append([p, state.phase, state.turn, None, False, action, card, index, old,
                       source, drawn, None, None])
    state.turn += 1
    state.to_move = (p + 1) % state.n


def own_turn(state: GameState, p: Seat, action: Optional[Action], colour: int,
             source: Optional[DrawSource]) -> None:
    """Give ``state`` its own copy of each list that a whole turn of seat ``p`` changes,
    ``action`` on ``colour`` then a draw from ``source``, or that its undo changes back
    (the same lists): the hand, the seat's rows (a play) or the colour's pile (a
    discard), the draw pile or the pile drawn from, and the round's moves (``action`` or
    ``source`` None: no card decision or no draw)."""
    if state.shared_hands >> p & 1:
        state.own_hand(p)
    if action == PLAY:
        if state.shared_seats >> p & 1:
            state.own_seat(p)
    elif action is not None and state.shared_piles >> colour & 1:
        state.own_pile(colour)
    if source == DECK:
        if state.shared_lists & DECK_SHARED:
            state.own_deck()
    elif source is not None and state.shared_piles >> source & 1:  # type: ignore[operator]
        state.own_pile(source)  # type: ignore[arg-type]
    if state.shared_lists & MOVES_SHARED:
        state.own_moves()


def set_row_state(state: GameState, p: Seat, colour: int, rs: int) -> None:
    """Seat ``p``'s row of ``colour`` is now in row state ``rs``: what it accepts follows."""
    t = state.tables
    state.row_states[p][colour] = rs
    s = t.slots
    state.playable[p][colour * s:(colour + 1) * s] = t.allowed[rs]
    state.playable_bits[p] = (state.playable_bits[p] & ~t.colour_bits[colour]) \
        | t.allowed_bits[rs][colour]


def decide_draw(state: GameState, source: DrawSource, move: Optional[Move] = None) -> None:
    """The draw: the top of the draw pile (``DECK``) or of pile ``source`` joins the hand
    (undoable); then the turn ends (``move``: as made, if given)."""
    p = state.to_move
    card = draw_card(state, p, source)
    state.undo[-1][DRAW_PART:ROUND_PART] = source, card
    end_turn(state, source, move)


def draw_card(state: GameState, p: Seat, source: DrawSource) -> Card:
    """The top card of the draw pile (``DECK``) or of pile ``source`` joins seat ``p``'s
    hand (:func:`pop` puts it back); return it."""
    card = take_card(state, source)
    if state.shared_hands >> p & 1:
        state.own_hand(p)
    state.hands[p].append(card)
    state.held_bits[p] |= 1 << card
    return card


def choose_card(state: GameState, action: Action, card: Card) -> None:
    """A duel's card decision of :func:`~.turn.push_action` that is not the last play:
    :func:`decide_card`'s work with one record, ``"chose"``, a whole push by itself
    (:func:`pop` undoes it alone, no ``None`` before it)."""
    p = state.to_move
    record = [p, state.phase, state.turn, state.pending, state.last_play, action, card, 0, 0,
              None, None, None, None]
    record[7], record[8] = place_card(state, p, action, card)  # index, old
    state.undo.append(record)
    state.pending = (action, card)
    state.phase = DRAW


def draw_turn(state: GameState, source: DrawSource) -> bool:
    """A duel's draw decision of :func:`~.turn.push_action` (trusted) when it does not end
    the round: :func:`decide_draw` and :func:`end_turn`'s work with one record,
    ``"drew"``, a whole push by itself. False, and nothing done, when it would end the
    round (the generic path saves the round)."""
    t = state.tables
    if state.turn + 1 >= t.turn_cap:
        return False
    last_play = state.last_play
    if source == DECK and len(state.deck) == 1:
        if not t.last_play:
            return False
        last_play = True  # only a pack that plays on after the pile ran out
    if state.shared_lists & MOVES_SHARED:
        state.own_moves()
    p = state.to_move
    drawn = draw_card(state, p, source)
    pending = state.pending
    action, card = pending  # type: ignore[misc]
    state.moves.append(t.moves[action][card][source])  # type: ignore[index]
    state.undo.append([p, DRAW, state.turn, pending, state.last_play, None, None, None, None,
                       source, drawn, None, None])
    state.turn += 1
    state.pending = None
    state.last_play = last_play
    state.to_move = (p + 1) % state.n
    state.phase = t.card_phase
    return True


def end_turn(state: GameState, source: DrawSource, move: Optional[Move],
              ended: Optional[str] = None) -> None:
    """Close the turn (``move``: as made); the round ends by ``ended`` or the pack's rules."""
    t = state.tables
    if move is None or move.codec is None:
        action, card = state.pending  # type: ignore[misc]
        move = t.move(action, card, source)
    reason = None
    last_play = state.last_play
    if source is None:  # the last play, or the round ended mid-turn (``ended``)
        reason = ended or DRAW_PILE_EMPTY
    elif not state.deck and source == DECK:
        if t.last_play:
            last_play = True
        else:
            reason = DRAW_PILE_EMPTY
    if reason is None and state.turn + 1 >= t.turn_cap:
        reason = TURN_CAP
    if state.shared_lists & MOVES_SHARED:
        state.own_moves()
    if reason is None:  # the common case: the next player's turn (the record has its fields)
        state.moves.append(move)
        state.turn += 1
        state.pending = None
        state.last_play = last_play
        state.to_move = (state.to_move + 1) % state.n
        state.phase = t.card_phase
        return
    state.undo[-1][ROUND_PART] = (
        state.round, state.rounds_total, state.starter, state.deal, state.hands, state.rows,
        state.row_states, state.playable, state.piles, state.deck, state.moves,
        len(state.finished), state.held_bits, state.playable_bits, state.pile_bits)
    state.moves.append(move)
    state.turn += 1
    state.pending = None
    state.last_play = last_play
    end_round(state, reason)


def row_spec(state: GameState, seat: Seat) -> list[tuple[int, list[int], int]]:
    """``(colour, number values in play order, wagers)`` for each of the seat's rows."""
    t = state.tables
    value_of, is_wager = t.value_of, t.is_wager
    out = []
    for colour, row in enumerate(state.rows[seat]):
        values = [value_of[k] for k in row if not is_wager[k]] if row else []
        out.append((colour, values, len(row) - len(values)))
    return out


def round_details(state: GameState) -> tuple:
    """Each seat's ``RoundScore`` of the round under way, by the pack's round formula."""
    scoring = state.pack.scoring
    if state.board is None:
        return tuple(scoring.round(row_spec(state, p), (), 0, 0, state.round)
                     for p in range(state.n))
    board, leader = state.board, state.tables.board.leader
    return tuple(scoring.round(row_spec(state, p), *board.round_inputs(p, leader), state.round)
                 for p in range(state.n))


def end_round(state: GameState, reason: str) -> None:
    """Score the round (ended by ``reason``) into ``state.finished``, then deal the next
    round, or end the match."""
    details = round_details(state)
    scores = tuple(d.total for d in details)
    b = state.board
    board = {} if b is None else {
        "tokens": tuple(b.tokens), "artefacts": tuple(b.artefacts), "crossings": b.crossings,
        "pawns": tuple(b.pawn_places(p, state.tables.board.leader) for p in range(state.n))}
    state.finished = [*state.finished, RoundResult(  # a new list: forks share the old one
        state.round, state.starter, state.deal, tuple(state.moves), scores, reason, details,
        **board)]
    state.pending = None
    if state.round < state.rounds_total:
        start_round(state, state.round + 1, next_starter(state))
    else:
        state.phase = OVER


def pop(state: GameState) -> None:
    """Undo the last :func:`~.turn.push` or :func:`~.turn.push_action` exactly, by its one
    record (:data:`UNDO_FIELDS`): the round it ended dealt back, the move it appended
    removed, the card drawn back on its pile, the card decided back in the hand at its
    place, the scalars and the board as they were. The lists it changes back are owned
    first, all at once (:func:`own_turn`)."""
    undo = state.undo
    if not undo:
        raise IndexError("pop from a state with nothing pushed")
    (p, phase, turn, pending, last_play, action, card, index, old, source, drawn, ended,
     board) = undo.pop()
    if ended is not None:  # the round this turn ended, as it was
        (state.round, state.rounds_total, state.starter, state.deal, state.hands, state.rows,
         state.row_states, state.playable, state.piles, state.deck, state.moves, finished,
         state.held_bits, state.playable_bits, state.pile_bits) = ended
        state.finished = state.finished[:finished]  # never changed in place: forks share it
        state.share_all()  # the lists as they were: perhaps shared with a fork
    t = state.tables
    colour = -1 if action is None else t.colour_of[card]
    if state.shared_hands | state.shared_seats | state.shared_piles | state.shared_lists:
        own_turn(state, p, action, colour, source)
    if ended is not None or state.turn != turn:
        state.moves.pop()
    if source is not None or action is not None:
        hand = state.hands[p]
        held_bits = state.held_bits
        held = held_bits[p]
        if source is not None:  # the card drawn, back on top of its pile
            hand.pop()
            if drawn not in hand:
                held ^= 1 << drawn
            if source == DECK:
                state.deck.append(drawn)
            else:
                state.piles[source].append(drawn)
                state.pile_bits |= 1 << source
        if action is not None:  # the card decided, off its row or pile, back in the hand
            if action == PLAY:
                state.rows[p][colour].pop()
                if state.row_states[p][colour] != old:
                    set_row_state(state, p, colour, old)
            else:
                pile = state.piles[colour]
                pile.pop()
                if not pile:
                    state.pile_bits ^= 1 << colour
            hand.insert(index, card)
            held |= 1 << card
        held_bits[p] = held
    state.to_move, state.phase, state.turn, state.pending, state.last_play = (
        p, phase, turn, pending, last_play)
    if board is not None:
        state.board = board


# --------------------------------------------------------------------------- results

def kept(state: GameState, what: str) -> tuple[int, ...]:
    """Per seat, the ``tokens`` or ``artefacts`` of the finished rounds (0 in a duel)."""
    return tuple(sum(getattr(r, what)[p] for r in state.finished if getattr(r, what))
                 for p in range(state.n))


#: the last :func:`totals` worked out: ``(finished, scoring, totals)``, the very list of
#: finished rounds (never changed in place: a round's end makes a new one, which forks and
#: copies share) and the pack's scoring; one tuple, swapped whole (safe across threads)
_LAST_TOTALS: tuple = (None, None, ())


def totals(state: GameState) -> tuple[int, ...]:
    """Match totals over the finished rounds, by the pack's match formula (worked out once
    for the positions of a round: a search asks for them at every position it values)."""
    global _LAST_TOTALS
    finished, scoring = state.finished, state.pack.scoring
    last = _LAST_TOTALS
    if last[0] is finished and last[1] is scoring and len(last[2]) == state.n:
        return last[2]
    artefacts, tokens = kept(state, "artefacts"), kept(state, "tokens")
    out = tuple(scoring.match([r.scores[p] for r in finished], artefacts[p], tokens[p])
                for p in range(state.n))
    _LAST_TOTALS = (finished, scoring, out)
    return out



def next_starter(state: GameState) -> Seat:
    """The starter of the round after the last finished one, by the pack's
    ``match.next_starter`` and ``next_starter_tie``, compiled
    (:data:`.options.NEXT_STARTERS` says what each rule means)."""
    last = state.finished[-1]
    return state.tables.next_starter(last.scores, lambda: totals(state), last.starter, state.n)

