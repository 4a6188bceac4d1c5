"""The lobby (docs/server.md, "The lobby"): the listed rooms a visitor may join or watch,
pushed to each watcher as a snapshot then deltas, and the quick-match queue that pairs
the players waiting for the same pack.

Nothing here knows the network: :class:`Lobby` keeps one summary a listed room
(:func:`room_summary`, the one place that says what the lobby shows of a room) and tells
each :class:`Watcher` what changed among the rooms its filter shows, the newest
``shown`` of each section (the others counted: ``more``); :class:`MatchQueue` keeps who
waits for what. The transport (:mod:`.lobby_web`) encodes, sends and reads the sockets.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional

from .clocks import stored_control
from .store import BOT, LEFT, LOBBY, OVER

if TYPE_CHECKING:
    from .room import Room

#: the rooms of one section a watcher is sent at most (the newest); the rest are counted
SHOWN = 100
#: the lobby's sections: rooms waiting for players, matches under way (to watch)
WAITING, PLAYING = "waiting", "playing"
SECTIONS = (WAITING, PLAYING)
#: what a room tells the lobby when it has it, by the summary's field: its clock (the
#: feature that adds it gives the room the attribute named here; a value None is not
#: shown). ``Room.clock`` is the wall clock, hence ``time_control``.
OPTIONAL_FIELDS = {"clock": "time_control"}
#: quick match against a bot: each strength the page offers and the bot (``/bot``) it seats
STRENGTHS = {"beginner": "random", "easy": "greedy", "good": "expert", "strong": "ismcts@2"}

Summary = dict[str, Any]


def room_summary(room: "Room") -> Optional[Summary]:
    """The room as the lobby lists it, or None when the lobby does not list it (an
    unlisted room, a match over): ``room`` its id, ``pack``, ``section`` (``waiting``:
    seats being taken; ``playing``: a match to watch), ``players`` (each seated name, and
    whether it is a bot), ``seats`` taken of ``total`` (the pack's most players),
    ``min`` players to start, ``hints``, ``rated``; and each of :data:`OPTIONAL_FIELDS`
    the room has.
    Names are data text (cleaned by the room); a page shows them as text."""
    if not room.listed or room.status == OVER:
        return None
    seated = [s for s in room.seats if s.kind != LEFT]
    summary: Summary = {
        "room": room.id, "pack": room.pack.id,
        "section": WAITING if room.status == LOBBY else PLAYING,
        "players": [{"name": s.name, "bot": s.kind == BOT} for s in seated],
        "seats": len(seated), "total": room.pack.max_players, "min": room.pack.min_players,
        "hints": room.hints, "rated": room.rated,
    }
    for name, attribute in OPTIONAL_FIELDS.items():
        value = getattr(room, attribute, None)
        if value is not None:
            summary[name] = value
    return summary


class Watcher:
    """One lobby page (its socket): its filter (``pack``: only that pack's rooms; None:
    every pack) and the rooms it has been sent, by section. ``send`` takes a message's
    text (encoded once for every watcher it goes to)."""

    def __init__(self, send: Callable[[str], None], pack: Optional[str] = None):
        self.send = send
        self.pack = pack
        self.shown: dict[str, set[str]] = {section: set() for section in SECTIONS}
        #: the rooms its filter takes, by section (shown or not)
        self.count: dict[str, int] = {section: 0 for section in SECTIONS}

    def wants(self, summary: Optional[Summary]) -> bool:
        """Whether ``summary`` passes this watcher's filter."""
        return summary is not None and (self.pack is None or summary["pack"] == self.pack)

    def more(self) -> dict[str, int]:
        """The rooms its filter takes that it was not sent, by section."""
        return {section: self.count[section] - len(self.shown[section])
                for section in SECTIONS}


class Lobby:
    """The listed rooms (their summaries, newest last) and the watchers told of them.
    ``encode`` turns a message into the text sent (the same for every watcher)."""

    def __init__(self, encode: Callable[[dict[str, Any]], str], shown: int = SHOWN):
        self.encode = encode
        self.shown = shown
        self.rooms: dict[str, Summary] = {}
        #: each listed room's place in the order rooms came into the lobby
        self.order: dict[str, int] = {}
        self._next = 0
        self.watchers: set[Watcher] = set()
        #: what the quick-match queue has waiting (``waiting`` message), sent with a snapshot
        self.queue: list[dict[str, Any]] = []

    # ------------------------------------------------------------- rooms

    def put(self, room_id: str, summary: Optional[Summary]) -> None:
        """The room's summary now (None: no longer listed); each watcher is told what it
        sees change: ``added``, ``changed``, ``removed``, ``more``."""
        old = self.rooms.get(room_id)
        if summary == old:
            return
        if summary is None:
            del self.rooms[room_id]
            del self.order[room_id]
        else:
            if old is None:
                self.order[room_id] = self._next
                self._next += 1
            self.rooms[room_id] = summary
        texts: dict[str, str] = {}

        def said(message: dict[str, Any]) -> str:  # each message encoded once for all
            kind = message["type"]
            if kind not in texts:
                texts[kind] = self.encode(message)
            return texts[kind]

        for watcher in list(self.watchers):
            self._tell(watcher, room_id, old, summary, said)

    def _tell(self, watcher: Watcher, room_id: str, old: Optional[Summary],
              new: Optional[Summary], said: Callable[[dict[str, Any]], str]) -> None:
        before = watcher.more()
        was, now = watcher.wants(old), watcher.wants(new)
        if was:
            watcher.count[old["section"]] -= 1  # type: ignore[index]
        if now:
            watcher.count[new["section"]] += 1  # type: ignore[index]
        section = next((s for s in SECTIONS if room_id in watcher.shown[s]), None)
        if section is not None and now and new["section"] == section:  # type: ignore[index]
            watcher.send(said({"type": "changed", "room": new}))
        elif section is not None:
            watcher.shown[section].discard(room_id)
            watcher.send(said({"type": "removed", "room": room_id}))
            if now:
                self._add(watcher, new, said)  # type: ignore[arg-type]
            self._fill(watcher, section)
        elif now:
            self._add(watcher, new, said)  # type: ignore[arg-type]
        if watcher.more() != before:
            watcher.send(self.encode({"type": "more", "more": watcher.more()}))

    def _add(self, watcher: Watcher, summary: Summary,
             said: Callable[[dict[str, Any]], str]) -> None:
        """Send ``summary`` to ``watcher`` if it is among the newest ``shown`` rooms of its
        section (the oldest shown one then makes way: ``removed``), else it is counted."""
        shown = watcher.shown[summary["section"]]
        if len(shown) >= self.shown:
            oldest = min(shown, key=self.order.__getitem__)
            if self.order[oldest] > self.order[summary["room"]]:
                return
            shown.discard(oldest)
            watcher.send(self.encode({"type": "removed", "room": oldest}))
        shown.add(summary["room"])
        watcher.send(said({"type": "added", "room": summary}))

    def _fill(self, watcher: Watcher, section: str) -> None:
        """A room left ``section`` of ``watcher``: the newest one it was not sent takes
        its place, if any."""
        if watcher.count[section] <= len(watcher.shown[section]):
            return
        waiting = [s for s in self.newest() if s["section"] == section and watcher.wants(s)
                   and s["room"] not in watcher.shown[section]]
        if waiting:
            watcher.shown[section].add(waiting[0]["room"])
            watcher.send(self.encode({"type": "added", "room": waiting[0]}))

    def newest(self) -> list[Summary]:
        """Every listed room's summary, the newest first."""
        return sorted(self.rooms.values(), key=lambda s: -self.order[s["room"]])

    # ------------------------------------------------------------- watchers

    def snapshot(self, watcher: Watcher) -> dict[str, Any]:
        """The ``lobby`` message for ``watcher`` as its filter is now (what it was sent
        is reset to it): the newest rooms of each section, at most ``shown`` each, how
        many more, and who waits in the quick-match queue."""
        rooms: list[Summary] = []
        for section in SECTIONS:
            taken = [s for s in self.newest() if s["section"] == section and watcher.wants(s)]
            watcher.count[section] = len(taken)
            watcher.shown[section] = {s["room"] for s in taken[:self.shown]}
            rooms.extend(taken[:self.shown])
        return {"type": "lobby", "pack": watcher.pack, "rooms": rooms, "more": watcher.more(),
                "waiting": self.queue, "strengths": list(STRENGTHS)}

    def watch(self, watcher: Watcher, pack: Optional[str]) -> None:
        """``watcher`` watches (again) with the filter ``pack``: sent its snapshot."""
        watcher.pack = pack
        self.watchers.add(watcher)
        watcher.send(self.encode(self.snapshot(watcher)))

    def leave(self, watcher: Watcher) -> None:
        """``watcher``'s socket closed."""
        self.watchers.discard(watcher)

    def waiting(self, queue: list[dict[str, Any]]) -> None:
        """The quick-match queue now (``[{"pack": ID, "players": N}, ...]``): every
        watcher is told when it changed."""
        if queue == self.queue:
            return
        self.queue = queue
        text = self.encode({"type": "waiting", "waiting": queue})
        for watcher in list(self.watchers):
            watcher.send(text)


# --------------------------------------------------------------------------- quick match

@dataclass(frozen=True)
class QueueKey:
    """What two waiting players must share to be paired: the pack and the clock (its
    :meth:`~.clocks.TimeControl.stored` text, empty for none; a rating band is a field to
    add here)."""

    pack: str
    clock: str = ""

    def said(self) -> dict[str, Any]:
        """The key as the ``waiting`` list and ``queued`` say it: ``pack``, and ``clock``
        when there is one."""
        control = stored_control(self.clock)
        return {"pack": self.pack, **({} if control is None else {"clock": control.to_dict()})}
