"""The authoritative room of rule text 002: seats, the commands (``/join``, ``/leave``,
``/bot``, ``/start``, ``/cont``, ``/rematch``, ``/help``), chat, and the match itself,
which only the engine plays (public API of :mod:`lostcities.engine`).

A :class:`Room` knows no network: each call returns an :class:`Outcome` (messages for
the caller alone, messages for everyone, whether every client's view changed) and the
transport (:mod:`.app`) delivers it, building each client's view with
:meth:`Room.view_for`, which shows a seat its own hand and the public table, and a
spectator the public table only. Every change is written to the :class:`~.store.Store`
before the call returns, so the room is rebuilt exactly by :meth:`Room.load` (its turns
replayed through the engine from the stored seed). A move can also be made in three
steps, so that only the store's write need leave the transport's event loop:
:meth:`Room.plan_move` (the engine checks and applies it; nothing changes),
:meth:`Room.store_turn` (the commit), :meth:`Room.played` (the room moves on).

Calls on one room must not run at the same time (the transport holds a lock per room).
"""
from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import random
import secrets
import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from lostcities.engine import (BOTS, DECK, FORFEIT_REASONS, IllegalMoveError, LostCitiesError, Move,
                               SeatView, apply, continue_match, dumps, embedded_pack,
                               forfeit_winners, is_over, legal_moves, live_scores, make_bot,
                               new_game, observation, pack_sha256, totals, winners)
from lostcities.engine.tooling import loads_json, record_form
from lostcities.entry import move_notes

from .clocks import Clocks, TimeControl, stored_control
from .names import name_refusal, seat_name
from .protocol import LIMITS, Limits, clean_text
from .ratings import MatchResult, Placing, bot_player
from .store import (BOT, CONT, FORFEIT, HUMAN, LEFT, LOBBY, MOVE, OVER, PLAYING, REMATCH,
                    TIMEOUT, PlayerRow, RoomRow, SeatRow, Store, StoreError, TurnRow,
                    token_hash)

if TYPE_CHECKING:
    from lostcities.engine import GameState, RulePack

#: a room id (the web pages check its form too): 8 characters of base32 (40 random bits)
ROOM_ID_CHARS = "abcdefghijklmnopqrstuvwxyz234567"


def new_room_id() -> str:
    """A short shareable room id: 8 lower-case base32 characters from ``secrets``."""
    return base64.b32encode(secrets.token_bytes(5)).decode("ascii").lower()


def is_room_id(text: str) -> bool:
    """Whether ``text`` has the form of a room id."""
    return len(text) == 8 and all(c in ROOM_ID_CHARS for c in text)


def new_match_id() -> str:
    """A finished match's public id (its replay, ``/matches/ID``): 16 lower-case base32
    characters (80 bits from ``secrets``), nothing of its room's id."""
    return base64.b32encode(secrets.token_bytes(10)).decode("ascii").lower()


def is_match_id(text: str) -> bool:
    """Whether ``text`` has the form of a match's public id."""
    return len(text) == 16 and all(c in ROOM_ID_CHARS for c in text)


def record_name(room_id: str, rounds: int, match: int = 1) -> str:
    """The file name of the record of room ``room_id``'s match that ended after ``rounds``
    rounds, in the server's ``records/`` folder; ``match``: its number in the room (1, then
    one more a rematch: ``room-ID-m2-ROUNDS.jsonl``), so each match has a name (and a
    rated match an id) of its own."""
    return f"room-{room_id}-{rounds}.jsonl" if match == 1 else \
        f"room-{room_id}-m{match}-{rounds}.jsonl"


def rotated(seats: Sequence[SeatRow], rated: bool) -> list[SeatRow]:
    """The seats of a rematch: seat i's player moves to seat i+1 (the last to seat 0, so
    the first to play changes), nobody asking for anything; in a rated room a bot plays
    for itself (a bot that took a player's seat over no longer stands for that player,
    who is not dragged into the rematch)."""
    n = len(seats)
    moved = [replace(s, seat=(s.seat + 1) % n, wants_cont=False, wants_rematch=False,
                     player=bot_player(s.bot) if rated and s.kind == BOT else s.player)
             for s in seats]
    return sorted(moved, key=lambda s: s.seat)


def rematch_deal(text: str, where: str, seats: int) -> tuple[int, list[str]]:
    """The seed and labels of a stored rematch turn (``{"seed": N, "labels": [...]}``);
    :class:`RoomError` when it is not what the server writes there."""
    try:
        data = loads_json(text, where)
    except LostCitiesError as err:
        raise RoomError(str(err)) from None
    seed = data.get("seed") if isinstance(data, dict) else None
    labels = data.get("labels") if isinstance(data, dict) else None
    if type(seed) is not int or not isinstance(labels, list) or len(labels) != seats or \
            not all(type(label) is str for label in labels):
        raise RoomError(f"{where}: not a rematch's seed and {seats} labels")
    return seed, labels


def finishing(after: "GameState") -> Optional[str]:
    """The public id the match gets when the turn that led to ``after`` ends it, else None."""
    return new_match_id() if is_over(after) else None


#: the bot ``/bot`` seats when no name is given; the bot that plays a move for a seat out
#: of time in a casual room
DEFAULT_BOT = "greedy"
#: the bot whose choice a hint is (``{"type": "hint"}``)
HINT_BOT = "expert"
#: move notations remembered for one pack's cards (:meth:`Room.move_text`; more: it
#: starts again), and packs' cards they are remembered for (more: it starts again)
MOVE_TEXTS = 4096
TEXT_PACKS = 64
#: the notation of moves said so far, by a pack's card codec, then by move: one for all
#: the rooms of a pack (a move's notation depends on the move and the pack's cards only)
_TEXTS: dict[Any, dict[Move, str]] = {}


def move_texts(codec: Any) -> dict[Move, str]:
    """The remembered notations of moves of the cards ``codec`` (a pack's)."""
    texts = _TEXTS.get(codec)
    if texts is None:
        if len(_TEXTS) >= TEXT_PACKS:
            _TEXTS.clear()  # the rooms that hold one keep it
        texts = _TEXTS[codec] = {}
    return texts

#: where a room says what it could not write (one line each; ``lc serve`` shows them)
log = logging.getLogger(__name__)
#: ``turn`` messages a room keeps and sends a client that connects
#: (:meth:`Room.turn_backlog`): as many as the page lists (static/state.js ``MAX_TURNS``)
TURN_BACKLOG = 30


class RoomError(Exception):
    """A stored room that cannot be rebuilt (its pack is gone, a stored turn is refused)."""


def note(kind: str, key: str, **params: Any) -> dict[str, Any]:
    """An ``info`` or ``error`` message before its text is put in the client's language:
    ``{"type": kind, "key": key, "params": params}`` (the transport turns ``params``
    into ``text``)."""
    return {"type": kind, "key": key, "params": params}


def error(key: str, **params: Any) -> dict[str, Any]:
    """An ``error`` message for the caller (see :func:`note`)."""
    return note("error", key, **params)


@dataclass
class Outcome:
    """What a call changed: ``replies`` go to the caller only, ``events`` to every client
    of the room, ``changed``: every client gets its view again. ``token``: the secret of
    the seat the caller just took (sent to it alone, once)."""

    replies: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    changed: bool = False
    token: Optional[str] = None


def refused(key: str, **params: Any) -> Outcome:
    """An outcome that changed nothing: one error to the caller."""
    return Outcome(replies=[error(key, **params)])


def words_of(pack: "RulePack", before: "GameState", move: Move, name: str, *,
             you: bool = False) -> list[dict[str, Any]]:
    """A turn in words, as notes of the catalogue's ``turn.*`` keys for each client's
    language (:func:`~.protocol.localize`), the very notes ``lc play`` says it with
    (:func:`lostcities.entry.move_notes`): ``Ada discards r4 and takes g7 from the
    green pile.``, then the pawn sent and each pawn moved on. ``you``: in the second
    person (a hint)."""
    taken = taken_card(pack, before, move)
    said = "" if taken is None else pack.cards.format(taken)
    return [{"key": key, "params": params}
            for key, params in move_notes(pack, move, name, taken=said, you=you)]


def taken_card(pack: "RulePack", before: "GameState", move: Move) -> Optional[int]:
    """The card ``move`` takes from a discard pile (public: the pile's top), or None."""
    if move.draw is None or move.draw == DECK or not 0 <= move.draw < len(before.piles):
        return None
    if move.action != "play" and pack.cards.colour_of[move.card] == move.draw:
        return move.card  # a pack that lets a discard be taken straight back
    pile = before.piles[move.draw]
    return pile[-1] if pile else None


def round_sheet(state: "GameState", names: Sequence[str]) -> dict[str, Any]:
    """The last finished round's scoring, as ``lc play`` shows it: each started row with
    the pack's breakdown columns and score, each engaged pawn with its space and score,
    the tokens and artefacts taken, each seat's round score (``names``: each seat's
    name); the totals after it. The room's ``round`` message and a replay's round ends
    (:mod:`.replays`) both say a round with it."""
    result = state.finished[-1]
    pack = state.pack
    codec = pack.cards
    keys = codec.keys
    n = len(state.players)
    rows: list[list[list[int]]] = [[[] for _ in pack.colours] for _ in range(n)]
    for i, move in enumerate(result.moves):
        if move.action == "play":
            rows[(result.starter + i) % n][codec.colour_of[move.card]].append(move.card)
    scoring = pack.scoring
    expeditions = "expedition" in pack.scoring_spec.formulas
    columns = list(scoring.columns) if expeditions else []
    seats = []
    for seat in range(n):
        shown = []
        for colour, row in enumerate(rows[seat] if expeditions else []):
            if not row:
                continue
            values = [codec.value_of[k] for k in row if codec.value_of[k] is not None]
            wagers = len(row) - len(values)
            parts = scoring.breakdown(colour, values, wagers)
            shown.append({"colour": keys[colour], "cards": [codec.format(k) for k in row],
                          "parts": {name: int(parts[name]) for name in columns},
                          "score": int(scoring.expedition(colour, values, wagers))})
        pawns = [{"track": keys[track], "space": space, "leader": bool(leader),
                  "score": int(scoring.pawn(track, space, leader))}
                 for track, space, leader in (result.pawns[seat] if result.pawns else ())
                 if track >= 0]
        seats.append({"name": names[seat], "rows": shown, "pawns": pawns,
                      "tokens": int(result.tokens[seat]) if result.tokens else 0,
                      "artefacts": int(result.artefacts[seat]) if result.artefacts else 0,
                      "score": int(result.scores[seat])})
    return {"number": result.number, "end": result.end,
            "columns": columns, "seats": seats, "totals": [int(t) for t in totals(state)]}


def unreadable(text: str, pack: "RulePack", reason: str) -> dict[str, Any]:
    """Why ``text`` is not a move of ``pack``, as a note of the catalogue's
    ``move.unreadable.*`` keys (``reason``: the engine's English sentence, kept for
    what the catalogue has no words for)."""
    words = text.split()
    keys = ", ".join(pack.cards.keys)
    if len(words) < 2:
        return {"key": "move.unreadable.short", "params": {}}
    try:
        Move.parse(f"p {words[1]} deck", pack)
    except LostCitiesError:
        return {"key": "move.unreadable.card", "params": {"card": clean_text(words[1], 20),
                                                          "keys": keys}}
    try:
        Move.parse(f"{words[0]} {words[1]} deck", pack)
    except LostCitiesError:
        return {"key": "move.unreadable.action", "params": {"word": clean_text(words[0], 20)}}
    return {"key": "move.unreadable.other", "params": {"reason": reason}}


@dataclass(frozen=True)
class BotTurn:
    """The bot to move: run :meth:`choose` in a worker thread, hand the move to
    :meth:`Room.bot_move`."""

    number: int
    seat: int
    bot: str
    state: "GameState"
    seed: int

    def choose(self, bots: dict[tuple[int, str], Any],
               draws: Callable[[str], random.Random] = random.Random) -> Move:
        """The bot's move, from its seat's view and an rng seeded by the room's seed and
        the turn's number (the same move after a restart). ``bots`` caches one bot per
        seat and name; ``draws`` builds the rng from its seed (the server's scheduler
        gives one that yields at each draw: :class:`~.bots.SlicedRandom`)."""
        key = (self.seat, self.bot)
        if key not in bots:
            bots[key] = make_bot(self.bot)
        rng = draws(f"lostcities-serve:{self.seed}:{self.number}")
        return bots[key].choose(SeatView(self.state, self.seat, rng))


@dataclass(frozen=True)
class HintTurn:
    """A hint asked by the seat to move: run :meth:`choose` in a worker thread (the
    expert bot thinks), then :meth:`Room.hint_message` says it."""

    number: int
    seat: int
    state: "GameState"
    seed: int

    def choose(self, draws: Callable[[str], random.Random] = random.Random) -> Move:
        """The expert bot's move for this seat, from its view only (a bot of its own:
        hints never share a bot another thread may be using); ``draws`` as
        :meth:`BotTurn.choose`'s."""
        rng = draws(f"lostcities-hint:{self.seed}:{self.number}")
        return make_bot(HINT_BOT).choose(SeatView(self.state, self.seat, rng))


@dataclass(frozen=True)
class Due:
    """The seat to move of a room with a clock: turn ``number``, its ``seat`` and when its
    time runs out (``at``, the room's clock)."""

    number: int
    seat: int
    at: float


@dataclass(frozen=True)
class PlannedTurn:
    """A legal move the engine has applied that nobody has heard of yet: the room is
    unchanged until :meth:`Room.store_turn` has committed it (the store's write: the
    transport runs it in a worker thread) and :meth:`Room.played` made it the room's.
    Planning and applying are engine work of microseconds; only the commit waits."""

    number: int
    move: Move
    before: "GameState"
    after: "GameState"
    #: the public id the match gets when this turn ends it (:func:`finishing`), else None
    match: Optional[str] = None
    #: when it was played (the room's clock; its seat's clock stops then)
    at: float = 0.0
    #: ``move``, or ``timeout``: a bot's move for a seat out of time
    kind: str = MOVE
    #: the room's version it was planned on (:attr:`Room.version`)
    version: int = 0


class Room:
    """One room: its pack, seats, match state and records folder."""

    def __init__(self, store: Store, room_id: str, pack: "RulePack", pack_ref: str, seed: int,
                 *, records: Optional[Path] = None, limits: Limits = LIMITS,
                 hints: bool = False, clock: Callable[[], float] = time.time,
                 listed: bool = False, rated: bool = False,
                 control: Optional[TimeControl] = None):
        self.store = store
        self.id = room_id
        self.pack = pack
        self.pack_ref = pack_ref
        self.seed = seed
        self.records = records
        self.limits = limits
        #: whether a seated player may ask for a hint (the expert bot's move)
        self.hints = hints
        #: whether the lobby lists the room (else it is reached by its link only)
        self.listed = listed
        #: whether its finished matches change its players' ratings (each seat held by a
        #: player, one seat a player: docs/server.md, "Players and ratings")
        self.rated = rated
        #: the wall clock (seconds) seats' absences and the seats' clocks are measured with
        self.clock = clock
        #: the room's time control (None: no clock; docs/server.md, "Clocks"), the seats'
        #: clocks at the match's last event (None before the deal or without a control)
        self.control = control
        self.clocks: Optional[Clocks] = None
        #: how the match ended when a seat forfeited it (``{"seat": N, "reason": "resign"
        #: | "time"}``), else None
        self.forfeit: Optional[dict[str, Any]] = None
        #: the seats a connection holds now (set by the transport, which alone knows the
        #: connections; a room alone has nobody present)
        self.presence: Callable[[], set[int]] = set
        self.status = LOBBY
        self.seats: list[SeatRow] = []
        self.state: Optional["GameState"] = None
        #: turns stored so far (moves and CONTs): the next turn's number
        self.turns = 0
        #: records written, by file name (the last one is the current match's)
        self.record_names: list[str] = []
        #: the public ids of the room's finished matches (their replays), oldest first
        self.replays: list[str] = []
        #: the current match's number in the room: 1, then one more a rematch
        self.match_number = 1
        #: the bots of this room, one per seat and name (a cache: bots hold no state
        #: the room needs; their moves are seeded by the turn number)
        self.bots: dict[tuple[int, str], Any] = {}
        #: the running scores of a state (:meth:`live`), kept until the state changes
        self._live: tuple[Optional["GameState"], list[int]] = (None, [])
        #: the notation of moves said so far, shared by the rooms of a pack (:meth:`move_text`)
        self._texts = move_texts(pack.cards)
        #: the ``turn`` messages of the last turns, oldest first (:meth:`turn_backlog`)
        self._turns: deque[dict[str, Any]] = deque(maxlen=TURN_BACKLOG)
        #: the room's version this copy has: each write of its state is checked against
        #: it (:class:`~.store.StaleRoom`: another process wrote first; :meth:`refresh`)
        self.version = 0
        #: the records of the matches this copy played through (:meth:`_catch_up`):
        #: (file name, text), each written by :meth:`load` when it is missing
        self._ended: list[tuple[str, str]] = []

    # ------------------------------------------------------------- building

    @classmethod
    def create(cls, store: Store, room_id: str, pack: "RulePack", pack_ref: str, *,
               records: Optional[Path] = None, limits: Limits = LIMITS, hints: bool = False,
               clock: Callable[[], float] = time.time, listed: bool = False,
               rated: bool = False, control: Optional[TimeControl] = None) -> "Room":
        """A new room in the lobby, stored (``listed``: the lobby lists it, else it is
        reached by its link only; ``rated``: its finished matches change its players'
        ratings); its deal's seed drawn from ``secrets``. A
        house pack (``pack_ref`` ``house:NAME``) is stored with the room, resolved, with
        its sha256: the room is rebuilt from that copy, whatever becomes of the file."""
        seed = secrets.randbits(48)
        data = json.dumps(record_form(pack.data), ensure_ascii=False) \
            if pack_ref.startswith("house:") else ""
        store.create_room(room_id, pack_ref, seed, pack_data=data,
                          pack_sha256=pack_sha256(pack), hints=hints, listed=listed,
                          rated=rated, clock="" if control is None else control.stored())
        return cls(store, room_id, pack, pack_ref, seed, records=records, limits=limits,
                   hints=hints, clock=clock, listed=listed, rated=rated, control=control)

    @classmethod
    def load(cls, store: Store, room_id: str, find_pack: Callable[[str], "RulePack"], *,
             records: Optional[Path] = None, limits: Limits = LIMITS,
             clock: Callable[[], float] = time.time) -> Optional["Room"]:
        """The stored room rebuilt: its pack (the stored copy of a house pack, checked
        against its sha256 and loaded as a record's embedded pack is; a built-in one by
        ``find_pack``), its seats, and its match dealt from the stored seed and labels
        with every stored turn replayed through the engine (each checked), the last ones
        said again as they were (:meth:`turn_backlog`). None when there is no such room;
        :class:`RoomError` when it cannot be rebuilt."""
        row = store.room(room_id)
        if row is None:
            return None
        try:
            if row.pack_data:
                data = loads_json(row.pack_data, f"room {room_id}: pack_data")
                pack = embedded_pack({"pack": data.get("id") if isinstance(data, dict) else None,
                                      "pack_sha256": row.pack_sha256, "pack_data": data},
                                     where=f"room {room_id}")
            else:
                pack = find_pack(row.pack)
        except (LostCitiesError, RoomError) as err:
            raise RoomError(f"room {room_id}: its pack {row.pack[:80]}: {err}") from None
        try:
            control = stored_control(row.clock)
        except ValueError as err:
            raise RoomError(f"room {room_id}: its clock: {err}") from None
        room = cls(store, room_id, pack, row.pack, row.seed, records=records, limits=limits,
                   hints=row.hints, clock=clock, listed=row.listed, rated=row.rated,
                   control=control)
        now = clock()
        room._catch_up(row, since=0)
        for i, seat in enumerate(room.seats):  # absent since now, as far as anyone knows
            if seat.kind == HUMAN and not seat.seen:
                with contextlib.suppress(StoreError):  # else measured from now all the same
                    store.touch_seat(room_id, seat.seat, now)
                room.seats[i] = replace(seat, seen=now)
        for name, text in room._ended:  # killed between the last turn and its record
            if room.records is not None and not (room.records / name).exists():
                room._write_record(name, text)
        return room

    def refresh(self, moved_to: Optional[int] = None) -> Optional[Outcome]:
        """Bring this copy up to the stored room, which another process sharing the
        store has written (docs/server.md, "Several processes on one database"): its seats,
        status and the turns since this copy's last, played through as :meth:`load`
        plays them. The outcome tells this process's clients what they missed (each new
        turn's ``turn`` message, the ``round`` and ``match`` ones a turn ended; every
        view changed), or None when the stored room is this copy's version.
        :class:`RoomError` when it cannot be (a damaged row, a refused turn: the room is
        left out) or is gone (expired).

        ``moved_to``: the version a plain move (a turn that changed nothing else: no seat,
        no status, no match end) of another process brought the room to, as it announced
        it: when that is this copy's next, only the turns are read (one query) and
        played; the copy then says ``moved_to`` (or an older version, never a newer one,
        when more was written since: its next write reads the rest)."""
        if moved_to is not None and moved_to <= self.version:
            return None  # (caught up meanwhile)
        rounds = len(self.state.finished) if self.state is not None else 0
        status, match = self.status, self.match_number
        turns = self.store.turns(self.id, self.turns) if moved_to == self.version + 1 \
            and self.status == PLAYING and self.state is not None else []
        if len(turns) == 1 and turns[0].kind in (MOVE, TIMEOUT):
            events = self._play_turns(turns)
            self.version = moved_to  # type: ignore[assignment]
        else:  # (anything else, or more written since: the room read whole)
            row = self.store.room(self.id)
            if row is None:
                raise RoomError(f"room {self.id} is gone")
            if row.version == self.version:
                return None
            events = self._catch_up(row, since=self.turns)
        state = self.state
        if state is not None and self.match_number == match and \
                len(state.finished) > rounds:
            events.append(self._round_message(state))
        if state is not None and self.status == OVER and status != OVER:
            events.append(self._match_message(state, self.replays[-1] if self.replays
                                              else None))
        return Outcome(events=events, changed=True)

    def _catch_up(self, row: RoomRow, since: int) -> list[dict[str, Any]]:
        """Take the stored ``row``'s version, status and seats, deal the match when it is
        dealt and this copy has none, play the stored turns from number ``since`` (this
        copy's count) through the engine (:meth:`_play_turns`), and take the room's
        finished matches. :meth:`load` (``since`` 0) and :meth:`refresh` (after a write
        of another process) both; the ``turn`` messages it said."""
        store, room_id = self.store, self.id
        self.version = row.version  # (read first: this copy is never said newer than it is)
        self.seats = store.seats(room_id)
        self._check_seats(row.labels if row.status != LOBBY else None)
        self.status = row.status
        control = self.control
        said: list[dict[str, Any]] = []
        if row.status == LOBBY:
            self.replays = store.room_matches(room_id)
            return said
        if self.state is None:
            try:
                self.state = new_game(self.pack, list(row.labels), row.seed)
            except LostCitiesError as err:
                raise RoomError(f"room {room_id}: its deal: {err}") from None
            if control is not None:
                self.clocks = Clocks.start(control, len(row.labels), row.started)
        said = self._play_turns(store.turns(room_id, since))
        self.replays = store.room_matches(room_id)
        return said

    def _play_turns(self, turns: Sequence[TurnRow]) -> list[dict[str, Any]]:
        """Play ``turns`` (the stored ones after this copy's last) through the engine,
        each checked: a CONT, a rematch (its own seed and labels, the last match's record
        kept for :attr:`_ended`), a forfeit, a move (the last :data:`TURN_BACKLOG` of the
        current match said again as they were: :meth:`turn_backlog`), the clocks
        following each; the ``turn`` messages it said (the current match's)."""
        room_id, control = self.id, self.control
        said: list[dict[str, Any]] = []
        #: the records of the matches before a rematch, then the current one if over:
        #: (file name, text)
        self._ended = []
        try:
            state = self.state
            assert state is not None
            # the backlog's turns: the last TURN_BACKLOG moves of the current match (a
            # bot's for a seat out of time too; a CONT or a forfeit is no turn; the
            # seats were others before a rematch)
            rematch = max((i for i, turn in enumerate(turns) if turn.kind == REMATCH),
                          default=-1)
            moves = [i for i, turn in enumerate(turns)
                     if turn.kind in (MOVE, TIMEOUT) and i > rematch]
            first = moves[-TURN_BACKLOG:][0] if moves else len(turns)
            for i, turn in enumerate(turns):
                if turn.kind == CONT:
                    state = continue_match(state)
                    if control is not None:
                        self.clocks = Clocks.start(control, len(state.players), turn.at)
                elif turn.kind == REMATCH:
                    seed, labels = rematch_deal(turn.text, f"room {room_id}: turn "
                                                f"{self.turns}", len(self.seats))
                    rounds = self._rounds(state, self.forfeit is not None)
                    self._ended.append((self._record_name(rounds), self._record_text(state)))
                    state = new_game(self.pack, labels, seed)
                    self.seed = seed
                    self.match_number += 1
                    self.forfeit = None
                    self.bots = {}
                    self._turns.clear()
                    said.clear()
                    if control is not None:  # the new match's clocks start whole
                        self.clocks = Clocks.start(control, len(labels), turn.at)
                elif turn.kind == FORFEIT:
                    self.forfeit = self._stored_forfeit(turn.text, len(state.players))
                    if self.clocks is not None:  # stopped as forfeit_match stops them
                        seat = self.forfeit["seat"]
                        self.clocks = self.clocks.stopped(
                            seat if state.to_move == seat else None, turn.at)
                else:
                    move = Move.parse(turn.text, self.pack)
                    if i >= first:  # said as played() said it, from the state before
                        said.append(self._turn_message(state, move,
                                                       timeout=turn.kind == TIMEOUT))
                        self._turns.append(said[-1])
                    if self.clocks is not None:
                        self.clocks = self.clocks.moved(state.to_move, turn.at)
                    state = apply(state, move)
                self.turns += 1
        except LostCitiesError as err:
            raise RoomError(f"room {room_id}: turn {self.turns}: {err}") from None
        self.state = state
        self._ended += [(self._record_name(n), self._record_text(state))
                        for n in self._matches_over()]
        self.record_names = [name for name, _ in self._ended]
        return said

    @staticmethod
    def _stored_forfeit(text: str, seats: int) -> dict[str, Any]:
        """A stored forfeit turn's ``{"seat", "reason"}`` (:class:`LostCitiesError`, the
        room left out, when it is not what this server writes)."""
        data = loads_json(text, "a forfeit turn")
        if not (isinstance(data, dict) and set(data) == {"seat", "reason"}
                and type(data["seat"]) is int and 0 <= data["seat"] < seats
                and data["reason"] in FORFEIT_REASONS):
            raise LostCitiesError("a forfeit turn is not {seat, reason} of this match")
        return {"seat": data["seat"], "reason": data["reason"]}

    def _check_seats(self, labels: Optional[tuple[str, ...]]) -> None:
        """:class:`RoomError` unless the stored seats can play: one a label once the match
        is dealt (``labels``), and a bot the server has on each bot seat."""
        if labels is not None and len(labels) != len(self.seats):
            raise RoomError(f"room {self.id}: {len(self.seats)} seats for a match dealt to "
                            f"{len(labels)} players")
        for seat in self.seats:
            if seat.kind == BOT:
                try:
                    make_bot(seat.bot)  # never allow_import: only the built-in names
                except LostCitiesError:
                    raise RoomError(f"room {self.id}: seat {seat.seat}: no bot called "
                                    f"{seat.bot[:40]!r} here") from None

    def _stored(self, write: Callable[..., None], *args: Any, **more: Any) -> None:
        """One write of the room's state, ``write(room id, *args, version=...)`` (a
        :class:`~.store.Store` method), checked against the version this copy has (a
        :class:`~.store.StaleRoom` when another process wrote the room first: nothing
        written); this copy is one version on."""
        write(self.id, *args, version=self.version, **more)
        self.version += 1

    # ------------------------------------------------------------- who is who

    def seat_of(self, token_digest: Optional[str]) -> Optional[int]:
        """The seat whose token has this hash (:func:`~.store.token_hash`), or None."""
        if not token_digest:
            return None
        for seat in self.seats:
            if seat.kind == HUMAN and secrets.compare_digest(seat.token_hash, token_digest):
                return seat.seat
        return None

    def name_of(self, seat: int) -> str:
        """The name shown for ``seat``."""
        return self.seats[seat].name if 0 <= seat < len(self.seats) else f"#{seat}"

    # ------------------------------------------------------------- what a client sees

    def info(self) -> dict[str, Any]:
        """The room's public description (``roominfo`` in the schema)."""
        present = self.presence()
        return {
            "id": self.id, "pack": self.pack.id, "status": self.status,
            "seats": [{"seat": s.seat, "name": s.name, "kind": s.kind, "bot": s.bot,
                       "present": s.kind == HUMAN and s.seat in present,
                       "player": s.player}
                      for s in self.seats],
            "hints": self.hints, "rated": self.rated,
            "min_players": self.pack.min_players, "max_players": self.pack.max_players,
            "continuation": bool(self.pack.continuation),
            "cont": [s.seat for s in self.seats if s.wants_cont],
            "rematch": [s.seat for s in self.seats if s.wants_rematch],
            "match": self.match_number,
            "turns": self.turns,
            "replay": f"/matches/{self.replays[-1]}" if self.replays else None,
            "clock": self.time_control, "forfeit": self.forfeit,
        }

    @property
    def time_control(self) -> Optional[dict[str, Any]]:
        """The room's time control as the protocol says it (``{"kind": "move", "seconds":
        30}``, ``{"kind": "fischer", "minutes": 5, "increment": 3}``), None for none: the
        lobby's summary shows it (:data:`.lobby.OPTIONAL_FIELDS`)."""
        return None if self.control is None else self.control.to_dict()

    def clock_view(self) -> Optional[dict[str, Any]]:
        """The seats' clocks as the ``state`` message says them: each seat's time left in
        ms (``left``, never below 0), whose clock runs (``running``: the seat to move, or
        null), the server's time it was read at (``now``, ms since the epoch) and how
        long each seat has in all (``control``); None in a room without a clock or before
        the deal. The page counts down from ``left``; the server alone says who ran out."""
        if self.clocks is None:
            return None
        running = self._running()
        now = self.clock()
        return {"control": self.time_control,
                "left": [max(0, int(x * 1000)) for x in self.clocks.remaining(running, now)],
                "running": running, "now": int(now * 1000)}

    def _running(self) -> Optional[int]:
        """The seat whose clock runs now, or None (no match under way)."""
        state = self.state
        if state is None or self.status != PLAYING or is_over(state):
            return None
        return state.to_move

    def due(self) -> Optional[Due]:
        """The seat to move of a room with a clock and when its time runs out, or None
        (no clock, no match under way)."""
        if self.clocks is None:  # most rooms: nothing more to work out each move
            return None
        running = self._running()
        if running is None:
            return None
        return Due(self.turns, running, self.clocks.due(running))

    def out_of_time(self, seat: int) -> bool:
        """Whether ``seat`` is to move and its time has run out."""
        due = self.due()
        return due is not None and due.seat == seat and self.clock() >= due.at

    def view_for(self, seat: Optional[int]) -> dict[str, Any]:
        """The ``state`` message for ``seat`` (None: a spectator): the room, and the
        engine's observation of that seat (its own hand, the public table, counts); a
        spectator's has no hand (``hand`` and ``seat`` null); ``live``: what each seat's
        round would score if it ended now (:func:`lostcities.engine.live_scores`, public).
        ``legal``: the seat's legal moves when it is to move, in the move notation."""
        view = None
        legal = None
        state = self.state
        if state is not None:
            obs = observation(state, seat if seat is not None else 0)
            view = obs.to_dict(self.pack.cards)
            view["live"] = self.live()
            if seat is None:
                view["hand"] = None
                view["seat"] = None
            elif self.status == PLAYING and state.to_move == seat and not is_over(state):
                legal = [self.move_text(m) for m in legal_moves(state)]
        return {"type": "state", "room": self.info(), "seat": seat, "view": view,
                "legal": legal, "clock": self.clock_view()}

    def move_text(self, move: Move) -> str:
        """``str(move)``, the move notation, remembered (a seat's legal moves are said
        after every turn, mostly the same ones; up to :data:`MOVE_TEXTS` of them, for all
        the rooms of the pack)."""
        text = self._texts.get(move)
        if text is None:
            if len(self._texts) >= MOVE_TEXTS:
                self._texts.clear()
            text = self._texts[move] = str(move)
        return text

    def live(self) -> list[int]:
        """What each seat's round would score if it ended now (the public table's
        running scores), worked out once per state whatever the number of views."""
        state = self.state
        if state is None:
            return []
        if self._live[0] is not state:
            self._live = (state, [int(s) for s in live_scores(state)])
        return list(self._live[1])

    # ------------------------------------------------------------- lines

    def line(self, seat: Optional[int], text: str,
             player: Optional[PlayerRow] = None) -> Outcome:
        """A line typed in the room's chat by ``seat`` (None: a spectator): a command
        when it starts with ``/``, else a chat line. ``player``: who the client said it
        is (its player key, checked): a seat of a rated room goes to a player only."""
        stripped = text.strip()
        if not stripped.startswith("/"):
            return self._chat(seat, text)
        word, _, rest = stripped.partition(" ")
        if word.lower() == "/join":  # the one command that needs to know the player
            return self._join(seat, rest.strip(), player)
        command = {"/leave": self._leave, "/bot": self._bot, "/start": self._start,
                   "/cont": self._cont, "/rematch": self._rematch, "/help": self._help,
                   "/resign": self._resign}.get(word.lower())
        if command is None:
            return refused("error.unknown-command", command=clean_text(word, 30))
        return command(seat, rest.strip())

    def _chat(self, seat: Optional[int], text: str) -> Outcome:
        text = clean_text(text, self.limits.chat_chars)
        if not text:
            return Outcome()
        name = self.name_of(seat) if seat is not None else ""
        row = self.store.add_chat(self.id, name, text)
        return Outcome(events=[{"type": "chat", "name": name, "text": text,
                                "number": row.number}])

    def chat_backlog(self) -> list[dict[str, Any]]:
        """The last chat lines, as ``chat`` messages (sent to a client that connects)."""
        return [{"type": "chat", "name": r.name, "text": r.text, "number": r.number}
                for r in self.store.chat(self.id, self.limits.chat_backlog)]

    def turn_backlog(self) -> list[dict[str, Any]]:
        """The ``turn`` messages of the last :data:`TURN_BACKLOG` turns, oldest first, as
        they were sent (sent to a client that connects; rebuilt by :meth:`load`)."""
        return list(self._turns)

    def _help(self, seat: Optional[int], rest: str) -> Outcome:
        return Outcome(replies=[note("info", "info.help", bots=", ".join(BOTS),
                                     min=self.pack.min_players)])

    def _names(self) -> list[str]:
        """The names held in the room (a left seat's is free for whoever takes the seat)."""
        return [s.name for s in self.seats if s.kind != LEFT]

    def _free_name(self, default: str) -> str:
        """The first of ``default``, ``default 2``, ``default 3``... that the one rule for
        names (:mod:`.names`) lets into the room."""
        taken, limit = self._names(), self.limits.name_chars
        return next((seat_name(name, limit) for name in
                     (default, *(f"{default} {n}" for n in range(2, 100)))
                     if name_refusal(name, taken, limit) is None), default)

    def _join(self, seat: Optional[int], rest: str,
              player: Optional[PlayerRow] = None) -> Outcome:
        if seat is not None:
            return refused("error.already-seated", seat=seat + 1)
        if self.rated:
            if player is None:
                return refused("error.rated-needs-player")
            held = self.seat_of_player(player.id)
            if held is not None and self.seats[held].kind != LEFT:
                return refused("error.player-seated", seat=held + 1)
        number = self._free_seat(player.id if self.rated and player is not None else None)
        if number is None:
            return refused("error.room-full")
        default = (self.seats[number].name if number < len(self.seats)
                   else player.name if self.rated and player is not None
                   else f"Player {number + 1}")
        if rest:  # by the one rule for names: refused as it says, or kept as it says
            why = name_refusal(rest, self._names(), self.limits.name_chars)
            if why is not None:
                return refused(why[0], **why[1])
        name = seat_name(rest, self.limits.name_chars) if rest else self._free_name(default)
        token = secrets.token_urlsafe(32)
        row = SeatRow(number, name, HUMAN, "", token_hash(token), False, self.clock(),
                      player.id if self.rated and player is not None else "")
        self._stored(self.store.put_seat, row)
        self._set_seat(row)
        return Outcome(events=[note("info", "info.joined", name=name, seat=number + 1)],
                       changed=True, token=token)

    def _free_seat(self, player: Optional[str] = None) -> Optional[int]:
        """The seat a newcomer takes: the next one in the lobby, a left one after (a
        ``player`` of a rated room: only the left seat dealt to that player)."""
        if self.status == LOBBY:
            return len(self.seats) if len(self.seats) < self.pack.max_players else None
        return next((s.seat for s in self.seats if s.kind == LEFT
                     and (player is None or s.player == player)), None)

    def seat_of_player(self, player: str) -> Optional[int]:
        """The seat dealt to ``player`` (a player id) in this room, or None."""
        return next((s.seat for s in self.seats if player and s.player == player), None)

    def _set_seat(self, row: SeatRow) -> None:
        if row.seat < len(self.seats):
            self.seats[row.seat] = row
        else:
            self.seats.append(row)

    def _leave(self, seat: Optional[int], rest: str) -> Outcome:
        if seat is None:
            return refused("error.not-seated")
        name = self.name_of(seat)
        if self.status == LOBBY:
            self._stored(self.store.remove_seat, seat)
            self.seats = self.store.seats(self.id)
        else:  # gone since now: the room's abandonment is measured from it
            row = replace(self.seats[seat], kind=LEFT, token_hash="", wants_cont=False,
                          wants_rematch=False, seen=self.clock())
            self._stored(self.store.put_seat, row)
            self._set_seat(row)
        events = [note("info", "info.left", name=name, seat=seat + 1)]
        return Outcome(events=events + self._lapse(name), changed=True)

    def _lapse(self, name: str) -> list[dict[str, Any]]:
        """``name`` left the room (or a bot took the seat over): a rematch asked for lapses,
        said in words, so that nobody is dragged into a match with someone else. Stored."""
        if not any(s.wants_rematch for s in self.seats):
            return []
        for s in self.seats:
            if s.wants_rematch:
                row = replace(s, wants_rematch=False)
                self._stored(self.store.put_seat, row)
                self._set_seat(row)
        return [note("info", "info.rematch-lapsed", name=name)]

    def _bot(self, seat: Optional[int], rest: str) -> Outcome:
        if seat is None:
            return refused("error.not-seated")
        spec = rest.split()[0] if rest.split() else DEFAULT_BOT
        shown = clean_text(spec, 40)
        name, _, _ = spec.partition("@")
        if name not in BOTS:
            key = "error.bot-import" if ":" in spec else "error.bad-bot"
            return refused(key, name=shown, bots=", ".join(BOTS))
        try:
            make_bot(spec)  # never allow_import: only the built-in names
        except LostCitiesError:
            return refused("error.bad-bot", name=shown, bots=", ".join(BOTS))
        if self.rated and self.status == LOBBY:  # a bot strength is a player: one seat
            held = self.seat_of_player(bot_player(spec))
            if held is not None:
                return refused("error.player-seated", seat=held + 1)
        number = self._free_seat()
        if number is None and self.status != LOBBY:
            return self._take_over(spec)
        if number is None:
            return refused("error.room-full")
        label = self._free_name(spec) if self.status == LOBBY else self.seats[number].name
        player = bot_player(spec) if self.rated and self.status == LOBBY else \
            self.seats[number].player if number < len(self.seats) else ""
        row = SeatRow(number, label, BOT, spec, "", False, 0.0, player)
        self._stored(self.store.put_seat, row)
        self._set_seat(row)
        return Outcome(events=[note("info", "info.bot", name=row.name, bot=spec,
                                    seat=number + 1)],
                       changed=True)

    def _take_over(self, spec: str) -> Outcome:
        """``/bot`` in a match with no left seat: the bot takes the human seat nobody has
        held for longest, once that is over ``Limits.takeover_seconds``; a seat a
        connection holds now is never taken."""
        present = self.presence()
        now = self.clock()
        absent = sorted((s for s in self.seats if s.kind == HUMAN and s.seat not in present),
                        key=lambda s: (s.seen, s.seat))
        if not absent:
            return refused("error.room-full")
        seat = absent[0]
        away = max(0.0, now - seat.seen)
        wait = self.limits.takeover_seconds - away
        if wait > 0:
            return refused("error.takeover-wait", name=seat.name, seconds=f"{wait:.0f}",
                           limit=f"{self.limits.takeover_seconds:g}")
        row = replace(seat, kind=BOT, bot=spec, token_hash="", wants_cont=False,
                      wants_rematch=False)
        self._stored(self.store.put_seat, row)
        self._set_seat(row)
        return Outcome(events=[note("info", "info.takeover", name=row.name, bot=spec,
                                    seat=row.seat + 1, seconds=f"{away:.0f}"),
                               *self._lapse(row.name)], changed=True)

    def away_too_long(self, now: float) -> list[SeatRow]:
        """The seats of a casual match under way that have been away (left, or no
        connection holds them) longer than ``Limits.seat_bot_seconds`` while another human
        is present (:meth:`seat_bot` gives them a bot); none when the room is rated (a
        rated seat is its player's), not under way, or nobody is there to wait."""
        if self.rated or self.status != PLAYING:
            return []
        present = self.presence()
        if not any(s.kind == HUMAN and s.seat in present for s in self.seats):
            return []
        return [s for s in self.seats
                if (s.kind == LEFT or (s.kind == HUMAN and s.seat not in present))
                and now - s.seen > self.limits.seat_bot_seconds]

    def seat_bot(self, now: float) -> Outcome:
        """The default bot takes each seat :meth:`away_too_long` names (it keeps the
        player's name), so the one who stayed plays on; said in words."""
        events = []
        for seat in self.away_too_long(now):
            row = replace(seat, kind=BOT, bot=DEFAULT_BOT, token_hash="", wants_cont=False,
                          wants_rematch=False)
            self._stored(self.store.put_seat, row)
            self._set_seat(row)
            events.append(note("info", "info.seat-bot", name=row.name, bot=DEFAULT_BOT,
                               seat=row.seat + 1,
                               minutes=f"{self.limits.seat_bot_seconds / 60:g}"))
        return Outcome(events=events, changed=bool(events))

    def touch(self, seat: int) -> None:
        """The last connection holding ``seat`` closed: its absence starts now (stored,
        so a restarted server measures it the same)."""
        if 0 <= seat < len(self.seats) and self.seats[seat].kind == HUMAN:
            now = self.clock()
            self.store.touch_seat(self.id, seat, now)
            self.seats[seat] = replace(self.seats[seat], seen=now)

    def _start(self, seat: Optional[int], rest: str) -> Outcome:
        if seat is None:
            return refused("error.not-seated")
        if self.status != LOBBY:
            return refused("error.started", what="/start")
        if len(self.seats) < self.pack.min_players:
            return refused("error.need-players", min=self.pack.min_players,
                           count=len(self.seats))
        labels = [s.name for s in self.seats]
        try:
            state = new_game(self.pack, labels, self.seed)
        except LostCitiesError as err:
            return refused("error.room-unavailable", reason=str(err))
        now = self.clock()
        self._stored(self.store.start, labels, now)
        self.state = state
        self.status = PLAYING
        if self.control is not None:
            self.clocks = Clocks.start(self.control, len(labels), now)
        return Outcome(events=[note("info", "info.started", names=", ".join(labels))],
                       changed=True)

    def _cont(self, seat: Optional[int], rest: str) -> Outcome:
        if seat is None or self.seats[seat].kind != HUMAN:
            return refused("error.not-seated")
        if not self.pack.continuation:
            return refused("error.no-continue")
        if self.rated:  # a rated match is rated once, as it ended
            return refused("error.rated-no-cont")
        if self.status != OVER or self.state is None:
            return refused("error.not-over")
        if self.forfeit is not None:  # a match a seat forfeited is over for good
            return refused("error.no-continue")
        waiting = self._ask(seat, "wants_cont", "info.cont-asked")
        if waiting is not None:
            return waiting
        state = continue_match(self.state)
        now = self.clock()
        self._stored(self.store.add_turn, self.turns, CONT, "cont", status=PLAYING, at=now)
        self.turns += 1
        self.state = state
        self.status = PLAYING
        if self.control is not None:
            self.clocks = Clocks.start(self.control, len(state.players), now)
        self.seats = [replace(s, wants_cont=False, wants_rematch=False) for s in self.seats]
        return Outcome(events=[note("info", "info.continued", round=state.round)],
                       changed=True)

    def _ask(self, seat: int, wish: str, key: str) -> Optional[Outcome]:
        """``seat`` asks for what its ``wish`` field says (``wants_cont``,
        ``wants_rematch``): None when every seated human has asked now (the caller does
        it), else the ask stored and said (``key``: "Ada asks ... (1 of 2)")."""
        row = replace(self.seats[seat], **{wish: True})
        humans = [s for s in self.seats if s.kind == HUMAN]
        asked = sum(1 for s in humans if getattr(s, wish) or s.seat == seat)
        if asked == len(humans):
            return None
        self._stored(self.store.put_seat, row)
        self._set_seat(row)
        return Outcome(events=[note("info", key, name=row.name, asked=asked,
                                    needed=len(humans))], changed=True)

    def _rematch(self, seat: Optional[int], rest: str) -> Outcome:
        """``/rematch``: once the match is over, each seated human asks (a bot agrees at
        once); when all have, a new match of the same pack is dealt in this room with a
        fresh seed, the same players, the seats rotated (:func:`rotated`). A CONT plays
        the same match on (scores adding up); a rematch starts another one from nothing:
        its own record, replay and, in a rated room, rating. A seat left empty (a player
        who went) must be taken first (``/join``, ``/bot``)."""
        if seat is None or self.seats[seat].kind != HUMAN:
            return refused("error.not-seated")
        if self.status != OVER or self.state is None:
            return refused("error.not-over")
        left = next((s for s in self.seats if s.kind == LEFT), None)
        if left is not None:
            return refused("error.rematch-seat-left", name=left.name, seat=left.seat + 1)
        waiting = self._ask(seat, "wants_rematch", "info.rematch-asked")
        if waiting is not None:
            return waiting
        seats = rotated(self.seats, self.rated)
        labels = [s.name for s in seats]
        seed = secrets.randbits(48)
        try:
            state = new_game(self.pack, labels, seed)
        except LostCitiesError as err:
            return refused("error.room-unavailable", reason=str(err))
        now = self.clock()
        self._stored(self.store.rematch, self.turns,
                     json.dumps({"seed": seed, "labels": labels}, ensure_ascii=False), seats,
                     at=now)
        self.turns += 1
        self.forfeit = None  # (the last match's: its record is written)
        if self.control is not None:  # the new match's clocks start whole
            self.clocks = Clocks.start(self.control, len(seats), now)
        self.seats = seats
        self.state = state
        self.seed = seed
        self.status = PLAYING
        self.match_number += 1
        self.bots = {}
        self._turns.clear()  # the last turns said are the new match's
        return Outcome(events=[note("info", "info.rematch", names=", ".join(labels),
                                    first=self.name_of(state.to_move))], changed=True)

    # ------------------------------------------------------------- moves

    def move(self, seat: Optional[int], text: str, claimed: Optional[int] = None) -> Outcome:
        """A move sent by ``seat`` in the move notation (``p r5 deck``, ``d r5 g``,
        ``p g3 pawn=0 step=b deck``); ``claimed``: the seat the message says it plays for.
        The engine decides whether it is legal; a refused move changes nothing. A legal
        one is stored, then played (:meth:`plan_move`, :meth:`store_turn`, :meth:`played`
        in one call)."""
        planned = self.plan_move(seat, text, claimed)
        if isinstance(planned, Outcome):
            return planned
        self.store_turn(planned)
        return self.played(planned)

    def plan_move(self, seat: Optional[int], text: str,
                  claimed: Optional[int] = None) -> "Outcome | PlannedTurn":
        """A move sent by ``seat`` (as :meth:`move`) checked and applied by the engine,
        not stored nor played yet: the :class:`PlannedTurn`, or an outcome with one error
        (the room unchanged either way)."""
        if seat is None:
            return refused("error.not-seated")
        if claimed is not None and claimed != seat:
            return refused("error.not-your-seat", seat=claimed)
        state = self.state
        if state is None or self.status != PLAYING:
            return refused("error.no-match")
        if state.to_move != seat:
            return refused("error.not-your-turn", name=self.name_of(state.to_move))
        if self.out_of_time(seat):  # the server's clock says so, whatever the client's
            return refused("error.out-of-time")
        try:
            move = Move.parse(text, self.pack)
        except LostCitiesError as err:
            return refused("error.bad-move", reason=unreadable(text, self.pack, str(err)))
        try:  # the one check: the engine's own, as it applies the move
            after = apply(state, move)
        except IllegalMoveError as err:
            refusal = err.refusal
            return refused("error.illegal", reason={"key": refusal.key,
                                                    "params": dict(refusal.params)})
        return PlannedTurn(self.turns, move, state, after, finishing(after), self.clock(),
                           version=self.version)

    def hint(self, seat: Optional[int]) -> "Outcome | HintTurn":
        """A hint for ``seat``: the :class:`HintTurn` to think about, or an outcome with
        one error (no seat, no hints in this room, no match, not its turn)."""
        if seat is None:
            return refused("error.not-seated")
        if not self.hints:
            return refused("error.no-hints")
        state = self.state
        if state is None or self.status != PLAYING or is_over(state):
            return refused("error.no-match")
        if state.to_move != seat:
            return refused("error.not-your-turn", name=self.name_of(state.to_move))
        return HintTurn(self.turns, seat, state, self.seed)

    def hint_message(self, turn: HintTurn, move: Move) -> dict[str, Any]:
        """The ``hint`` message for the move the expert bot chose (to that seat alone)."""
        return {"type": "hint", "move": str(move),
                "words": words_of(self.pack, turn.state, move, self.name_of(turn.seat),
                                  you=True)}

    def bot_turn(self) -> Optional[BotTurn]:
        """The bot to move now, or None (no match, a human to move, the match over)."""
        state = self.state
        if state is None or self.status != PLAYING or is_over(state):
            return None
        row = self.seats[state.to_move]
        if row.kind != BOT:
            return None
        return BotTurn(self.turns, row.seat, row.bot, state, self.seed)

    def bot_move(self, turn: BotTurn, move: Move) -> Outcome:
        """Play the move a bot chose for ``turn``, unless the room moved on meanwhile
        (stored, then played, as :meth:`move`)."""
        planned = self.plan_bot(turn, move)
        if isinstance(planned, Outcome):
            return planned
        self.store_turn(planned)
        return self.played(planned)

    def plan_bot(self, turn: BotTurn, move: Move) -> "Outcome | PlannedTurn":
        """The move a bot chose for ``turn`` applied (as :meth:`plan_move`), or an empty
        outcome when the room moved on meanwhile."""
        if turn.number != self.turns or self.bot_turn() is None or \
                self.seats[turn.seat].bot != turn.bot:
            return Outcome()
        before = self.state
        assert before is not None
        try:
            after = apply(before, move)
            return PlannedTurn(self.turns, move, before, after, finishing(after),
                               self.clock(), version=self.version)
        except IllegalMoveError as err:  # a built-in bot never does this; refuse, not crash
            raise RoomError(f"room {self.id}: bot {turn.bot} chose an illegal move: "
                            f"{err.refusal}") from None

    def store_turn(self, planned: PlannedTurn) -> None:
        """Commit a planned turn to the store (and, when it ends the match, write the
        match's record): what makes it happen, before anyone hears of it. Only the store
        and the records folder are touched (no room attribute): the transport runs this
        in a worker thread. :class:`RoomError` when the room moved on since the plan."""
        if planned.number != self.turns or planned.before is not self.state:
            raise RoomError(f"room {self.id}: turn {planned.number} was planned on a "
                            f"state the room has left")
        over = is_over(planned.after)
        rounds = len(planned.after.finished)
        self.store.add_turn(self.id, planned.number, planned.kind, str(planned.move),
                            status=OVER if over else None,
                            finishes=None if planned.match is None
                            else (planned.match, rounds, self.match_number),
                            result=self.result(planned.after) if over and self.rated else None,
                            at=planned.at, version=planned.version)
        if over:
            self._write_record(self._record_name(rounds), self._record_text(planned.after))

    def played(self, planned: PlannedTurn) -> Outcome:
        """Make a stored turn the room's (:meth:`store_turn` has committed it): the
        ``turn`` message (kept for :meth:`turn_backlog`), and the ``round`` and ``match``
        ones when it ends them."""
        before, after, move = planned.before, planned.after, planned.move
        over = is_over(after)
        turn = self._turn_message(before, move, timeout=planned.kind == TIMEOUT)
        self._turns.append(turn)
        events: list[dict[str, Any]] = [turn]
        self.turns += 1
        self.version = planned.version + 1
        self.state = after
        if self.clocks is not None:
            self.clocks = self.clocks.moved(before.to_move, planned.at)
        if len(after.finished) > len(before.finished):
            events.append(self._round_message(after))
        if over:
            self.status = OVER
            if planned.match is not None:
                self.replays.append(planned.match)
            events.append(self._match_message(after, planned.match))
        return Outcome(events=events, changed=True)

    def _turn_message(self, before: "GameState", move: Move, *,
                      timeout: bool = False) -> dict[str, Any]:
        """The ``turn`` message of ``move`` played on ``before`` as turn :attr:`turns`:
        public, the same for every client (``words`` said in each one's language; a move
        a bot played for a seat out of time, ``timeout``, says so first)."""
        seat = before.to_move
        codec = self.pack.cards
        taken = taken_card(self.pack, before, move)
        words = words_of(self.pack, before, move, self.name_of(seat))
        if timeout:
            words = [{"key": "turn.timeout", "params": {"name": self.name_of(seat)}}, *words]
        return {
            "type": "turn", "number": self.turns, "seat": seat, "name": self.name_of(seat),
            "move": str(move), "action": move.action, "card": codec.format(move.card),
            "draw": None if move.draw is None else "deck" if move.draw == DECK
            else codec.keys[move.draw],
            "taken": None if taken is None else codec.format(taken),
            "words": words, **({"timeout": True} if timeout else {})}

    # ------------------------------------------------------------- round and match end

    def _round_message(self, state: "GameState") -> dict[str, Any]:
        """The ``round`` message of the round that just ended (:func:`round_sheet`)."""
        return {"type": "round", **round_sheet(state, [self.name_of(seat) for seat in
                                                       range(len(state.players))])}

    def result(self, state: "GameState", forfeit: Optional[int] = None) -> MatchResult:
        """The rated result of the finished match ``state`` (or of the match ``forfeit``,
        a seat, forfeited: that seat ranked last): each seat's player (the one it was
        dealt to), name, match total, whether that player still holds it (not left, not
        taken over by a bot) and how many turns it played. Its id is the record's name
        without ``.jsonl``: one a match of the room."""
        n = len(state.players)
        played = [0] * n
        for result in state.finished:
            for i in range(len(result.moves)):
                played[(result.starter + i) % n] += 1
        if forfeit is not None:  # the round under way counts too
            for i in range(len(state.moves)):
                played[(state.starter + i) % n] += 1
        scores = totals(state)
        placings = []
        for seat in self.seats:
            bot = seat.bot if seat.kind == BOT and seat.player == bot_player(seat.bot) else ""
            stayed = seat.kind == HUMAN or bool(bot)
            placings.append(Placing(seat.seat, seat.player, seat.name, int(scores[seat.seat]),
                                    stayed and bool(seat.player), played[seat.seat], bot,
                                    forfeit == seat.seat))
        rounds = self._rounds(state, forfeit is not None)
        return MatchResult(self._record_name(rounds).removesuffix(".jsonl"),
                           self.id, self.pack.id, self.pack.family, tuple(placings))

    @staticmethod
    def _rounds(state: "GameState", forfeited: bool) -> int:
        """The rounds a match's record holds: the finished ones, and the one a forfeit
        stopped."""
        return len(state.finished) + (1 if forfeited else 0)

    def _record_text(self, state: "GameState") -> str:
        """The record of the match ``state`` as its file holds it (with the room's forfeit,
        when a seat forfeited it)."""
        extra = {} if self.forfeit is None else {"forfeit": dict(self.forfeit)}
        return dumps(state, **extra) + "\n"

    # ------------------------------------------------------------- forfeits and clocks

    def _resign(self, seat: Optional[int], rest: str) -> Outcome:
        if seat is None:
            return refused("error.not-seated")
        if self.status != PLAYING or self.state is None or is_over(self.state):
            return refused("error.no-match")
        return self.forfeit_match(seat, "resign")

    def forfeit_match(self, seat: int, reason: str) -> Outcome:
        """``seat`` forfeits the match under way (``reason``: ``resign``, or ``time``: out
        of time in a rated room): stored as a turn of its own that ends the match (with
        its public id, and in a rated room its ratings, ``seat`` ranked last), its record
        written; everyone is told, then the ``match`` message. The caller checked that a
        match is under way."""
        state = self.state
        assert state is not None
        now = self.clock()
        forfeit = {"seat": seat, "reason": reason}
        match = new_match_id()
        rounds = self._rounds(state, True)
        self._stored(self.store.add_turn, self.turns, FORFEIT,
                     json.dumps(forfeit, separators=(",", ":")), status=OVER,
                     finishes=(match, rounds, self.match_number),
                     result=self.result(state, seat) if self.rated else None, at=now)
        self.forfeit = forfeit
        self.turns += 1
        self.status = OVER
        if self.clocks is not None:
            self.clocks = self.clocks.stopped(seat if state.to_move == seat else None, now)
        self.replays.append(match)
        self._write_record(self._record_name(rounds), self._record_text(state))
        key = "info.resigned" if reason == "resign" else "info.out-of-time"
        return Outcome(events=[note("info", key, name=self.name_of(seat), seat=seat + 1),
                               self._match_message(state, match)], changed=True)

    def timeout_turn(self) -> Optional[BotTurn]:
        """The bot's move to think of for the seat to move of a casual room when its time
        has run out (:data:`DEFAULT_BOT` plays it, from that seat's view), else None (a
        rated room forfeits instead: :meth:`forfeit_match`; a bot seat plays its own)."""
        due = self.due()
        state = self.state
        if due is None or state is None or self.rated or self.clock() < due.at or \
                self.seats[due.seat].kind == BOT:
            return None
        return BotTurn(self.turns, due.seat, DEFAULT_BOT, state, self.seed)

    def plan_timeout(self, turn: BotTurn, move: Move) -> "Outcome | PlannedTurn":
        """The move a bot chose for a seat out of time (:meth:`timeout_turn`) applied, a
        ``timeout`` turn; an empty outcome when the room moved on meanwhile."""
        if turn.number != self.turns or not self.out_of_time(turn.seat):
            return Outcome()
        before = self.state
        assert before is not None
        try:
            after = apply(before, move)
        except IllegalMoveError as err:  # a built-in bot never does this; refuse, not crash
            raise RoomError(f"room {self.id}: bot {turn.bot} chose an illegal move: "
                            f"{err.refusal}") from None
        return PlannedTurn(self.turns, move, before, after, finishing(after), self.clock(),
                           TIMEOUT, self.version)

    def _matches_over(self) -> list[int]:
        """The number of finished rounds at each match end so far (one per CONT, plus the
        current match when it is over)."""
        ends = []
        state = self.state
        if state is not None and self.status == OVER:
            ends.append(self._rounds(state, self.forfeit is not None))
        return ends

    def _record_name(self, rounds: int) -> str:
        return record_name(self.id, rounds, self.match_number)

    def _match_message(self, state: "GameState", match: Optional[str]) -> dict[str, Any]:
        """The ``match`` message (its record written by :meth:`store_turn`); ``replay``:
        the page of the match's replay (its public id ``match``); ``forfeit``: the seat
        that forfeited it and why (it never wins: :func:`lostcities.engine.forfeit_winners`)."""
        forfeit = self.forfeit
        name = self._record_name(self._rounds(state, forfeit is not None))
        self.record_names.append(name)
        won = winners(state) if forfeit is None else forfeit_winners(state, forfeit["seat"])
        return {"type": "match", "rounds": [list(r.scores) for r in state.finished],
                "totals": [int(t) for t in totals(state)],
                "winners": [int(w) for w in won],
                "names": [self.name_of(w) for w in won],
                "record": name,
                "can_continue": bool(self.pack.continuation) and forfeit is None,
                **({} if match is None else {"replay": f"/matches/{match}"}),
                **({} if forfeit is None else {"forfeit": dict(forfeit)})}

    def _write_record(self, name: str, text: str) -> None:
        """Write a match record beside the database, atomically (a temporary file renamed);
        one that cannot be written (a full disk) is said in the log and left for the
        room's next :meth:`load`, which writes every missing record of its matches."""
        if self.records is None:
            return
        path = self.records / name
        temp = path.with_name(f".{name}.{os.getpid()}.tmp")
        try:
            self.records.mkdir(parents=True, exist_ok=True)
            with open(temp, "w", encoding="utf-8") as stream:
                stream.write(text)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temp, path)
        except OSError as err:  # its turns are stored: the room's next load writes it
            with contextlib.suppress(OSError):
                temp.unlink()
            log.warning("room %s: the record %s is not written (%s); it will be when the "
                        "room is next loaded", self.id, name, err.strerror or err)
