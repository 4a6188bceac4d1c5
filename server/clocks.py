"""Time controls of a room (docs/server.md, "Clocks"): none, so many seconds a move, or
Fischer's (minutes for the match plus an increment a move), and each seat's time left.

A seat's time left is a pure function of the room's control, the time the match started
(or was continued), the time each turn was stored and the seat that played it, and now
(:class:`Clocks`): nothing is written for a clock but the turns' times, so it is the same
after a restart or a ``kill -9``, and a test drives it with a clock of its own.

Nothing here knows the network, the store or the engine.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

#: the kinds of time control (``POST /rooms``'s ``clock``; no clock: absent or null)
PER_MOVE, FISCHER = "move", "fischer"
#: the bounds of a control, inclusive (whole numbers): seconds a move; Fischer's minutes
#: and increment in seconds
MOVE_SECONDS = (5, 3600)
FISCHER_MINUTES = (1, 180)
FISCHER_INCREMENT = (0, 60)
#: a seat with less time than this left is shown in the low-time colour (the page's and
#: ``lc play --connect``'s), in seconds
LOW_SECONDS = 10


@dataclass(frozen=True)
class TimeControl:
    """A room's time control: ``kind`` :data:`PER_MOVE` (``seconds`` a move, never
    carried over) or :data:`FISCHER` (``seconds`` for the match, ``increment`` added
    after each move of the seat)."""

    kind: str
    seconds: int
    increment: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The control as ``POST /rooms`` takes it and the room, the lobby and the state
        message say it: ``{"kind": "move", "seconds": 30}``, ``{"kind": "fischer",
        "minutes": 5, "increment": 3}``."""
        if self.kind == PER_MOVE:
            return {"kind": PER_MOVE, "seconds": self.seconds}
        return {"kind": FISCHER, "minutes": self.seconds // 60, "increment": self.increment}

    def stored(self) -> str:
        """The text the store keeps (``rooms.clock``; empty: no clock)."""
        return json.dumps(self.to_dict(), separators=(",", ":"), sort_keys=True)

    def label(self) -> str:
        """A short label, the same in every language: ``30 s``, ``5+3``."""
        if self.kind == PER_MOVE:
            return f"{self.seconds} s"
        return f"{self.seconds // 60}+{self.increment}"


def clock_bounds() -> dict[str, int]:
    """The bounds of a control, as ``error.bad-clock`` says them."""
    return {"move_low": MOVE_SECONDS[0], "move_high": MOVE_SECONDS[1],
            "minutes_low": FISCHER_MINUTES[0], "minutes_high": FISCHER_MINUTES[1],
            "increment_low": FISCHER_INCREMENT[0], "increment_high": FISCHER_INCREMENT[1]}


def _whole(value: Any, low: int, high: int, what: str) -> int:
    """``value`` as a whole number in bounds: an int, or a float with no fraction (JSON's
    ``30.0``, which JSON Schema's ``integer`` takes too), never a bool."""
    if type(value) is float and value.is_integer():
        value = int(value)
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{what} must be a whole number from {low} to {high}")
    return value


def control_of(data: Any) -> Optional[TimeControl]:
    """The time control ``data`` says (``POST /rooms``'s ``clock``, or a stored one read
    back as JSON), None for none (``None``); :class:`ValueError` in one line for anything
    else: an unknown kind, a missing, extra or out-of-bounds field."""
    if data is None:
        return None
    if type(data) is not dict:
        raise ValueError("clock must be an object or null")
    kind = data.get("kind")
    if kind == PER_MOVE:
        if set(data) != {"kind", "seconds"}:
            raise ValueError("a clock of kind move has exactly kind and seconds")
        return TimeControl(PER_MOVE, _whole(data["seconds"], *MOVE_SECONDS, "clock.seconds"))
    if kind == FISCHER:
        if set(data) != {"kind", "minutes", "increment"}:
            raise ValueError("a clock of kind fischer has exactly kind, minutes and increment")
        minutes = _whole(data["minutes"], *FISCHER_MINUTES, "clock.minutes")
        return TimeControl(FISCHER, minutes * 60,
                           _whole(data["increment"], *FISCHER_INCREMENT, "clock.increment"))
    raise ValueError(f"clock.kind must be {PER_MOVE} or {FISCHER}")


def stored_control(text: str) -> Optional[TimeControl]:
    """The control of a room as stored (:meth:`TimeControl.stored`; empty: none);
    :class:`ValueError` when the text is not one this server writes."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError("clock is not JSON") from None
    return control_of(data)


@dataclass(frozen=True)
class Clocks:
    """The seats' clocks of a match at its last event (its start, a turn, a CONT):
    ``left`` each seat's seconds left then (Fischer's; a per-move control's are its
    seconds), ``since`` when that event was. Immutable: each event gives new clocks."""

    control: TimeControl
    left: tuple[float, ...]
    since: float

    @classmethod
    def start(cls, control: TimeControl, seats: int, at: float) -> "Clocks":
        """The clocks of a match of ``seats`` seats started (or continued) at ``at``."""
        return cls(control, (float(control.seconds),) * seats, at)

    def moved(self, seat: int, at: float) -> "Clocks":
        """The clocks after ``seat``'s turn stored at ``at``: per move, every seat's time
        is whole again; Fischer, the seat's time less what it used (never below 0: a turn
        a bot played for a seat out of time leaves it 0), plus the increment."""
        if self.control.kind == PER_MOVE:
            return Clocks(self.control, self.left, at)
        used = max(0.0, at - self.since)
        left = list(self.left)
        left[seat] = max(0.0, left[seat] - used) + self.control.increment
        return Clocks(self.control, tuple(left), at)

    def stopped(self, seat: Optional[int], at: float) -> "Clocks":
        """The clocks stopped at ``at`` (the match ended: a forfeit), ``seat`` the one
        that was running (None: none was): its time less what it used, never below 0."""
        if seat is None:
            return Clocks(self.control, self.left, at)
        left = list(self.left)
        left[seat] = max(0.0, left[seat] - max(0.0, at - self.since))
        return Clocks(self.control, tuple(left), at)

    def remaining(self, to_move: Optional[int], now: float) -> list[float]:
        """Each seat's seconds left at ``now`` with ``to_move`` to move (None: nobody's
        clock runs); the seat to move's may be below 0: out of time."""
        left = list(self.left)
        if to_move is not None:
            left[to_move] -= max(0.0, now - self.since)
        return left

    def due(self, to_move: int) -> float:
        """When ``to_move``'s time runs out (the time, as ``since`` is)."""
        return self.since + self.left[to_move]
