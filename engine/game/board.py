"""The board game on the card game's turn engine: pawns on tracks, event tiles, bridges.

A board pack (``pack.board``) plays the card game's turn (a card, then a draw)
with extra decisions in between, as phases of the same turn (``state.py``):

* ``TRACK_CARD``: the card decision. Every card played moves a pawn of the
  player: the first card of a row sends a pawn onto that colour's track
  (``PAWN``), a later one advances that pawn one space whatever its value; when
  that pawn is on the last space, another of the player's engaged pawns may advance
  instead (``ADVANCE``; nothing moves when none can).
* ``PAWN``: which free pawn starts the row. Pawns ``0 .. leaders-1`` are
  leaders, the others ordinary; pawns of one kind are alike, so the choice offered
  is the first free pawn of each kind.
* ``ADVANCE``: which engaged pawn (one not on its track's last space) a step
  tile or a finished track advances, or none: 001 makes both a may ("permet de
  faire avancer", "vous pouvez faire avancer"), so the player may decline
  (``NO_STEP``, ``step=none``; the ``decline`` action). A step with no such pawn
  is lost.

A pawn landing on a tile resolves it: an artefact is taken off the board, a
points tile gives its value in victory-point tokens and stays, a step tile makes
an ``ADVANCE`` decision (chains; declining ends the chain). A pawn moving from space
``bridge_after`` to the next crosses the bridge; the crossing that makes ``round_end.bridge_crossings``
ends the round at once, mid-turn and mid-chain: the tile it reached is not
resolved and the turn has no draw. Scores come only from the pack's formulas.

The pack compiles once into :class:`BoardTables`; :mod:`.turn` hands a board
pack's phases to the functions here, so the card game's hot path never tests for
a board. The card game's own steps (the card, the draw, the end of the turn and
of the round, undo) are :mod:`.steps`, the one seam this module builds on; it
does not import :mod:`.turn`, and the steps reach a board only through
:class:`BoardTables` and :class:`Board` methods.
"""
from __future__ import annotations

import random
from typing import Optional

from . import steps as card_steps  # the card game's turn steps (the one seam)
from .cards import Card
from .moves import DISCARD, NO_STEP, PLAY, Action, DrawSource, Move, action_space
from .refusals import Refusal
from .state import ADVANCE, BRIDGE_CROSSINGS, DRAW, OVER, PAWN, TRACK_CARD, GameState, Seat

from .tracks import ARTEFACT, CENTRE, STEP, Pawn, PawnPlace, Track


# --------------------------------------------------------------------------- what may move

def free_pawns(state: GameState, seat: Seat) -> list[Pawn]:
    """The pawns ``seat`` may send onto a track: the first free one of each kind."""
    bt = state.tables.board
    tracks, leader = state.board.tracks[seat], bt.leader
    out: list[Pawn] = []
    kinds: set[bool] = set()
    for pawn in range(bt.pawns):
        if tracks[pawn] == CENTRE and leader[pawn] not in kinds:
            kinds.add(leader[pawn])
            out.append(pawn)
    return out


def movable(state: GameState, seat: Seat) -> list[Track]:
    """The tracks where ``seat`` has a pawn that can advance (engaged, not on the last space)."""
    b, last = state.board, state.tables.board.last
    spaces = b.spaces[seat]
    return [track for track, pawn in enumerate(b.on_track[seat])
            if pawn >= 0 and spaces[pawn] < last]


def card_options(state: GameState) -> tuple[list[Card], list[Card]]:
    """The cards the player to move may play and discard: a row starts only with a free pawn."""
    plays, discards = card_steps.card_options(state)
    p = state.to_move
    b = state.board
    if CENTRE not in b.tracks[p]:
        colour_of, on_track = state.tables.colour_of, b.on_track[p]
        plays = [k for k in plays if on_track[colour_of[k]] >= 0]
    return plays, discards


# --------------------------------------------------------------------------- decisions

def _open(state: GameState) -> None:
    """Open a push's undo record (:func:`.steps.open_record`) with the board as it was: the
    card game's steps fill in the rest, :func:`.steps.pop` puts the board copy back."""
    card_steps.open_record(state)[card_steps.BOARD_PART] = state.board.copy()


def _made(state: GameState, draw: DrawSource) -> Move:
    """The move this turn made, with ``draw`` as its end."""
    action, card = state.pending  # type: ignore[misc]
    b = state.board
    return Move(action, card, draw, b.turn_pawn, tuple(b.turn_steps), state.tables.codec)


def _decide_card(state: GameState, action: Action, card: Card) -> None:
    b = state.board
    b.turn_pawn = None
    b.turn_steps = []
    card_steps.decide_card(state, action, card, settle=False)
    if action == DISCARD:
        _settle(state)
        return
    p = state.to_move
    pawn = b.on_track[p][state.tables.colour_of[card]]
    if pawn < 0:
        state.phase = PAWN
    elif b.spaces[p][pawn] < state.tables.board.last:
        _advance(state, p, pawn)
    else:  # a finished track: another pawn advances
        _due(state, p)


def _decide_pawn(state: GameState, pawn: Pawn) -> None:
    b = state.board
    p = state.to_move
    track = state.tables.colour_of[state.pending[1]]  # type: ignore[index]
    b.tracks[p][pawn] = track
    b.on_track[p][track] = pawn
    b.turn_pawn = pawn
    _advance(state, p, pawn)


def _decide_advance(state: GameState, track: Optional[Track]) -> None:
    b = state.board
    p = state.to_move
    b.turn_steps.append(track)
    if track is NO_STEP:  # declined: nothing moves, the board part of the turn is done
        _settle(state)
    else:
        _advance(state, p, b.on_track[p][track])


def _advance(state: GameState, p: Seat, pawn: Pawn) -> None:
    """Move ``pawn`` one space; then the round ends, a step is due, or the board part is done."""
    b, bt = state.board, state.tables.board
    space = b.spaces[p][pawn] + 1
    b.spaces[p][pawn] = space
    if space == bt.bridge_after + 1:
        b.crossings += 1
        if b.crossings == bt.crossings_to_end:  # at once: the tile reached is not resolved
            card_steps.end_turn(state, None, _made(state, None), BRIDGE_CROSSINGS)
            return
    track = b.tracks[p][pawn]
    kind = b.tiles[track][space]
    if kind >= 0:
        effect = bt.effect[kind]
        if effect == STEP:
            _due(state, p)
            return
        if effect == ARTEFACT:
            b.tiles[track][space] = -1
            b.artefacts[p] += 1
        else:
            b.tokens[p] += bt.value[kind]
    _settle(state)


def _due(state: GameState, p: Seat) -> None:
    """One more pawn of ``p`` may advance: an ADVANCE decision, or lost when none can."""
    if movable(state, p):
        state.phase = ADVANCE
    else:
        _settle(state)


def _settle(state: GameState) -> None:
    """The turn's board decisions are done: the draw comes next (none after the last play)."""
    if state.last_play:
        card_steps.end_turn(state, None, _made(state, None))
    else:
        state.phase = DRAW


def _decide_draw(state: GameState, draw: DrawSource) -> None:
    card_steps.decide_draw(state, draw, _made(state, draw))


def push(state: GameState, move: Move) -> None:
    """:func:`.turn.push` for a board pack: the rest of the turn ``move`` describes."""
    _open(state)
    if state.phase == TRACK_CARD:
        _decide_card(state, move.action, move.card)
    if state.phase == PAWN:
        _decide_pawn(state, move.pawn)  # type: ignore[arg-type]
    while state.phase == ADVANCE:
        _decide_advance(state, move.steps[len(state.board.turn_steps)])
    if state.phase == DRAW:
        _decide_draw(state, move.draw)


def push_action(state: GameState, action_id: int) -> None:
    """:func:`.turn.push_action` for a board pack: one decision, an action id (the walks
    below push and pop decisions so too)."""
    decide(state, *action_space(state.pack).decode(action_id))


def decide(state: GameState, kind: str, arg: int) -> None:
    """One decision of a board pack, decoded (:meth:`.moves.ActionSpace.decode`)."""
    _open(state)
    if kind == "draw":
        _decide_draw(state, arg)
    elif kind == "pawn":
        _decide_pawn(state, arg)
    elif kind == "advance":
        _decide_advance(state, arg)
    elif kind == "decline":
        _decide_advance(state, NO_STEP)
    else:
        _decide_card(state, kind, arg)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- legality

def legal_actions(state: GameState) -> list[int]:
    """The action ids of the decision to make now: a board decision (phases TRACK_CARD,
    PAWN, ADVANCE; an advance decision offers each movable pawn's track, then the
    decline), or the card game's draw."""
    if state.phase == DRAW or state.phase == OVER:
        return card_steps.draw_actions(state)
    space = action_space(state.pack)
    if state.phase == PAWN:
        start = space.ranges["pawn"].start
        return [start + pawn for pawn in free_pawns(state, state.to_move)]
    if state.phase == ADVANCE:
        start = space.ranges["advance"].start
        return [start + track for track in movable(state, state.to_move)] + \
            [space.ranges["decline"].start]
    plays, discards = card_options(state)
    return [space.card_action(PLAY, k) for k in plays] + \
           [space.card_action(DISCARD, k) for k in discards]


Path = tuple[Optional[Pawn], tuple[Optional[Track], ...], bool]
"""The board decisions of one way to play a card: pawn sent, advance decisions (a
track, or NO_STEP), and whether the round ended during them (then the turn has no draw)."""


def legal_moves(state: GameState) -> list[Move]:
    """Every legal completion of the turn: each card's board decisions, then its draws."""
    if state.phase == OVER:
        return []
    codec = state.tables.codec
    if state.phase != TRACK_CARD:
        action, card = state.pending  # type: ignore[misc]
        discarded = state.tables.colour_of[card] if action == DISCARD else -1
        return _moves(action, card, _walk(state), card_steps.draw_sources(state, discarded), codec)
    out: list[Move] = []
    for action, card, paths, draws in _options(state):
        out.extend(_moves(action, card, paths, draws, codec))
    return out


def random_move(state: GameState, rng: random.Random) -> Move:
    """A move drawn uniformly from :func:`legal_moves`, building only the chosen one (a
    turn's card decision; any later decision chooses among its legal moves)."""
    if state.phase != TRACK_CARD:
        return rng.choice(legal_moves(state))
    options = _options(state)
    sizes = [_count(paths, draws) for _, _, paths, draws in options]
    i = rng.randrange(sum(sizes))
    for (action, card, paths, draws), size in zip(options, sizes):
        if i < size:
            return _nth_move(state, action, card, paths, draws, i)
        i -= size
    raise AssertionError("unreachable: i < sum(sizes)")


def _count(paths: list[Path], draws: list[DrawSource]) -> int:
    """How many moves :func:`_moves` makes of these paths and draws."""
    if len(paths) == 1:
        return 1 if paths[0][2] else len(draws)
    return sum(1 if ended else len(draws) for _, _, ended in paths)


def _nth_move(state: GameState, action: Action, card: Card, paths: list[Path],
              draws: list[DrawSource], i: int) -> Move:
    """``_moves(action, card, paths, draws, codec)[i]``, without building the others."""
    t = state.tables
    for pawn, steps, ended in paths:
        n = 1 if ended else len(draws)
        if i < n:
            draw = None if ended else draws[i]
            if pawn is None and not steps:
                return t.move(action, card, draw)
            return Move(action, card, draw, pawn, steps, t.codec)
        i -= n
    raise AssertionError("unreachable: i < _count(paths, draws)")


_NO_PATH: list[Path] = [(None, (), False)]
"""The board decisions of a discard: none."""


def _options(state: GameState) -> list[tuple[Action, Card, list[Path], list[DrawSource]]]:
    """Each card decision of the turn with its board paths and its draws."""
    plays, discards = card_options(state)
    base = card_steps.base_draws(state)
    colour_of = state.tables.colour_of
    after: dict[int, list[DrawSource]] = {}  # the draws after a discard, by its colour
    for k in discards:
        colour = colour_of[k]
        if colour not in after:
            after[colour] = card_steps.after_discard(state, base, colour)
    return [(PLAY, k, _paths(state, k), base) for k in plays] + \
        [(DISCARD, k, _NO_PATH, after[colour_of[k]]) for k in discards]


def _moves(action: Action, card: Card, paths: list[Path], draws: list[DrawSource],
           codec: object) -> list[Move]:
    return [Move(action, card, d, pawn, steps, codec)  # type: ignore[arg-type]
            for pawn, steps, ended in paths for d in ((None,) if ended else draws)]


def _paths(state: GameState, card: Card) -> list[Path]:
    """The board decisions playing ``card`` can lead to; walked only when there is a choice."""
    b, bt = state.board, state.tables.board
    p = state.to_move
    track = state.tables.colour_of[card]
    pawn = b.on_track[p][track]
    space = b.spaces[p][pawn] if pawn >= 0 else 0
    if space < bt.last:  # the card's own pawn advances: a choice only if it lands on a step
        if space == bt.bridge_after and b.crossings + 1 == bt.crossings_to_end:
            return [(None if pawn >= 0 else q, (), True) for q in
                    ([pawn] if pawn >= 0 else free_pawns(state, p))]
        kind = b.tiles[track][space + 1]
        if kind < 0 or bt.effect[kind] != STEP:
            return [(None, (), False)] if pawn >= 0 else \
                [(q, (), False) for q in free_pawns(state, p)]
    push_action(state, card)  # play card k is action k
    try:
        return _walk(state)
    finally:
        card_steps.pop(state)


def _walk(state: GameState) -> list[Path]:
    """The paths of the turn's remaining board decisions, expanded depth-first (undone)."""
    out: list[Path] = []
    _collect(state, (len(state.finished), state.turn), out)
    return out


def _collect(state: GameState, key: tuple[int, int], out: list[Path]) -> None:
    if (len(state.finished), state.turn) != key:  # the turn ended among its board decisions
        move = (state.finished[-1].moves if len(state.finished) != key[0] else state.moves)[-1]
        out.append((move.pawn, move.steps, True))
        return
    if state.phase == DRAW:
        out.append((state.board.turn_pawn, tuple(state.board.turn_steps), False))
        return
    for action_id in legal_actions(state):
        push_action(state, action_id)
        _collect(state, key, out)
        card_steps.pop(state)


def full_refusal(state: GameState, move: Move) -> Optional[Refusal]:
    """Why ``move`` cannot complete the turn of a board pack, as a :class:`.Refusal`, or
    None.

    The caller (:func:`refusal`) has checked the move's form. The
    turn's remaining decisions are walked on ``state`` itself and undone.
    """
    b = state.board
    p = state.to_move
    if not isinstance(move.steps, (tuple, list)):
        return Refusal("illegal.steps-form", {"steps": repr(move.steps)[:40]})
    if state.phase == TRACK_CARD:
        refusal = card_steps.card_refusal(state, move)
        if refusal is not None:
            return refusal
        colour = state.tables.colour_of[move.card]
        if move.action == PLAY and b.on_track[p][colour] < 0 and CENTRE not in b.tracks[p]:
            return Refusal("illegal.no-free-pawn", {"colour": state.pack.colours[colour].name})
        if move.action == DISCARD and move.pawn is None and not move.steps:
            return card_steps.draw_refusal(state, move)
        if move.action == PLAY:  # the common case: one of the card's paths, a legal draw
            for pawn, steps, ended in _paths(state, move.card):
                if pawn == move.pawn and steps == tuple(move.steps):
                    draw_ok = move.draw is None if ended else \
                        card_steps.draw_refusal(state, move) is None
                    if draw_ok:
                        return None
                    break  # the walk below says what is wrong
        made = 0
    else:
        refusal = _made_refusal(state, move)
        if refusal is not None:
            return refusal
        made = len(b.turn_steps)
    if move.action == DISCARD and (move.pawn is not None or move.steps):
        return Refusal("illegal.discard-pawn")
    key = (len(state.finished), state.turn)
    space = action_space(state.pack)
    pushed = 0
    try:
        if state.phase == TRACK_CARD:
            push_action(state, space.card_action(move.action, move.card))
            pushed += 1
        sent = state.board.turn_pawn is not None
        if (len(state.finished), state.turn) == key and state.phase == PAWN:
            refusal = _pawn_refusal(state, move.pawn)
            if refusal is not None:
                return refusal
            pawn_id = space.ranges["pawn"].start + move.pawn  # type: ignore[operator]
            push_action(state, pawn_id)
            pushed += 1
        elif move.pawn is not None and not sent:
            return Refusal("illegal.pawn-extra", {"card": state.tables.codec.format(move.card),
                                                  "pawn": repr(move.pawn)[:40]})
        i = made
        while (len(state.finished), state.turn) == key and state.phase == ADVANCE:
            if i >= len(move.steps):
                keys = ", ".join(state.tables.codec.keys[c] for c in movable(state, p))
                return Refusal("illegal.step-missing", {"tracks": keys})
            refusal = _advance_refusal(state, move.steps[i])
            if refusal is not None:
                return refusal
            push_action(state, space.advance_action(move.steps[i]))
            pushed += 1
            i += 1
        ended = (len(state.finished), state.turn) != key
        crossed = ended and len(state.finished) != key[0] \
            and state.finished[-1].end == BRIDGE_CROSSINGS
        if i < len(move.steps):
            return _step_refusal(state, "illegal.step-after-end" if crossed
                                 else "illegal.step-extra", move.steps[i])
        if not ended:
            return card_steps.draw_refusal(state, move)
        if move.draw is None:
            return None
        if crossed:
            return Refusal("illegal.crossing-draw", {"count": state.pack.bridge_crossings})
        return Refusal("illegal.last-play-draw")
    finally:
        for _ in range(pushed):
            card_steps.pop(state)


def _made_refusal(state: GameState, move: Move) -> Optional[Refusal]:
    """Why ``move`` disagrees with the decisions this turn already made, or None."""
    codec = state.tables.codec
    b = state.board
    action, card = state.pending  # type: ignore[misc]
    if (move.action, move.card) != (action, card):
        return Refusal(f"illegal.pending.{action}", {"card": codec.format(card)})
    if b.turn_pawn is not None and move.pawn != b.turn_pawn:
        return Refusal("illegal.pending.pawn", {"pawn": b.turn_pawn})
    done = tuple(b.turn_steps)
    if tuple(move.steps[:len(done)]) != done:
        return Refusal("illegal.pending.steps",
                       {"steps": " ".join("-" if c is NO_STEP else codec.keys[c] for c in done)})
    return None


def _pawn_refusal(state: GameState, pawn: object) -> Optional[Refusal]:
    """Why ``pawn`` cannot start the row of the card just played, or None."""
    bt = state.tables.board
    p = state.to_move
    track = state.tables.colour_of[state.pending[1]]  # type: ignore[index]
    name = state.pack.colours[track].name
    free = free_pawns(state, p)
    if pawn is None:
        leaders = [q for q in free if bt.leader[q]]
        others = [q for q in free if not bt.leader[q]]
        key = "illegal.pawn-missing." + ("both" if leaders and others else
                                         "leader" if leaders else "ordinary")
        return Refusal(key, {"colour": name, "leader": leaders[0] if leaders else "",
                             "pawn": others[0] if others else ""})
    if type(pawn) is not int or not 0 <= pawn < bt.pawns:  # noqa: E721
        return Refusal("illegal.pawn-form", {"pawn": repr(pawn)[:40], "last": bt.pawns - 1})
    b = state.board
    if b.tracks[p][pawn] != CENTRE:
        return Refusal("illegal.pawn-placed",
                       {"pawn": pawn, "colour": state.pack.colours[b.tracks[p][pawn]].name})
    if pawn not in free:
        alike = next(q for q in free if bt.leader[q] == bt.leader[pawn])
        kind = "leader" if bt.leader[pawn] else "ordinary"
        return Refusal(f"illegal.pawn-alike.{kind}", {"pawn": pawn, "alike": alike})
    return None


def _advance_refusal(state: GameState, track: object) -> Optional[Refusal]:
    """Why the pawn on ``track`` cannot take the advance due (NO_STEP: declining it), or None."""
    if track is NO_STEP:
        return None
    bt = state.tables.board
    if type(track) is not int or not 0 <= track < bt.tracks:  # noqa: E721
        return Refusal("illegal.step-form", {"step": repr(track)[:40], "last": bt.tracks - 1})
    b = state.board
    pawn = b.on_track[state.to_move][track]
    params = {"step": state.tables.codec.keys[track], "colour": state.pack.colours[track].name}
    if pawn < 0:
        return Refusal("illegal.step-no-pawn", params)
    if b.spaces[state.to_move][pawn] >= bt.last:
        return Refusal("illegal.step-finished", params)
    return None


def _step_refusal(state: GameState, key: str, track: object) -> Refusal:
    """``key`` for a ``step=`` the turn has no use for: its ``.none`` form for a declined
    advance, else with the step as written (a colour key, or the value itself)."""
    keys = state.tables.codec.keys
    if track is NO_STEP:
        return Refusal(key + ".none")
    step = keys[track] if type(track) is int and 0 <= track < len(keys) \
        else repr(track)[:40]  # noqa: E721
    return Refusal(key, {"step": step})


# --------------------------------------------------------------------------- scores

def round_inputs(state: GameState, seat: Seat) -> tuple[tuple[PawnPlace, ...], int, int]:
    """``(pawns, tokens, artefacts)`` of ``seat`` this round, as ``scoring.round`` takes them."""
    return state.board.round_inputs(seat, state.tables.board.leader)


def held(state: GameState, what: str) -> tuple[int, ...]:
    """Per seat, the ``tokens`` or ``artefacts`` of the finished rounds and the one under way."""
    kept = card_steps.kept(state, what)
    if state.phase == OVER:  # the last board's are counted in the last round already
        return kept
    return tuple(x + y for x, y in zip(kept, getattr(state.board, what)))


# --------------------------------------------------------------------------- the family's face

def why_refused(state: GameState, move: Move) -> Optional[Refusal]:
    """:func:`.turn.why_refused` for a board pack (no fast path: :func:`refusal`)."""
    return refusal(state, move)


def refusal(state: GameState, move: Move) -> Optional[Refusal]:
    """Why ``move`` is refused: its form (:func:`.steps.form_refusal`), then the board's
    rules (:func:`full_refusal`)."""
    return card_steps.form_refusal(state, move) or full_refusal(state, move)


def on_fork(state: GameState, move: Move) -> GameState:
    """:func:`.turn.apply`'s work once ``move`` is checked: pushed on a fork."""
    new = state.fork()
    push(new, move)
    new.undo.clear()
    return new


def random_playout(state: GameState, rng: random.Random) -> None:
    """:func:`.turn.playout` with the random policy: :func:`random_move` pushed."""
    undo = state.undo
    while state.phase != OVER:
        push(state, random_move(state, rng))
        undo.clear()


def legal_action_mask(state: GameState) -> list[bool]:
    """One bool per action id of the pack: :func:`legal_actions` as a mask."""
    mask = [False] * state.tables.num_actions
    for a in legal_actions(state):
        mask[a] = True
    return mask


def action_ok(state: GameState, action_id: int) -> bool:
    """Whether ``action_id`` is among :func:`legal_actions`."""
    return action_id in legal_actions(state)


def step_on_fork(state: GameState, action_id: int) -> Optional[GameState]:
    """None: a board pack's decision is made by the generic :func:`.turn.step`."""
    return None


def leader_note(state: GameState, pawn: int) -> str:
    """:func:`.turn.describe_move`'s note on a pawn sent: `` (leader)`` for a leader."""
    bt = state.tables.board
    return " (leader)" if 0 <= pawn < bt.pawns and bt.leader[pawn] else ""

