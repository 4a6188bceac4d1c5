"""A finished match turn by turn, for the replay pages (``/matches/ID``, ``/replay``).

A replay is read from a record (docs/records.md) and checked by the library's
:func:`lostcities.engine.replay`, the very check ``lc replay`` makes (every move, round end,
score, total and winner; the record's pack, its seed's deals): the page never judges a
record itself. While the library replays it, this module notes what the table looked like
after each turn, from the engine's public view of each seat
(:func:`lostcities.engine.observation`): the frames both pages step through.

A replay's frames (``frames()``), one after another:

- a round's deal: ``{"round", "turn": 0, "seat": null, "starter", "table"}``;
- each turn: ``{"round", "turn" (1, 2, ... in the round), "seat" (who played), "move" (the
  notation), "words" (the turn said in the reader's language, as the room says it),
  "table"}``, the table as that turn left it;
- the turn that ends a round has ``"table": null`` (the engine deals the next round at
  once) and ``"sheet"``: the round's scoring, as the room's ``round`` message says it
  (:func:`~.room.round_sheet`).

A ``table``: ``to_move``, ``turn``, ``rows`` [seat][colour], ``pile_tops``, ``pile_sizes``,
``draw_pile`` (a count), ``hand_sizes``, ``hands`` (every seat's hand: the match is over),
``live`` (what each seat's round would score now), ``round_scores``, ``totals``, and
``board`` in the board game (as in a VIEW, docs/server.md).
"""
from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Optional

from lostcities.engine import (Move, RecordError, forfeit_winners, live_scores, observation,
                               read_records, replay, totals, winners)

from .protocol import clean_text, localize
from .room import round_sheet, words_of

if TYPE_CHECKING:
    from lostcities.engine import GameState

#: the most rounds a replay shows (a record of a match continued further is refused in
#: one line: its frames would be too many to send)
REPLAY_ROUNDS = 20
#: a player's name as a replay shows it, in characters (a record's labels are data)
NAME_CHARS = 40
#: the keys of a seat's VIEW that a replay's table leaves out (said once for the replay,
#: or its own: the hand of one seat, the decision under way between two turns)
LEFT_OUT = frozenset(("seat", "hand", "players", "rounds", "phase", "pending", "last_play"))


def table_of(state: "GameState") -> dict[str, Any]:
    """The table of ``state`` with every hand shown: each seat's view
    (:func:`lostcities.engine.observation`) joined, and the running scores."""
    codec = state.pack.cards
    views = [observation(state, seat).to_dict(codec) for seat in range(len(state.players))]
    table = {key: value for key, value in views[0].items() if key not in LEFT_OUT}
    table["hands"] = [view["hand"] for view in views]
    table["live"] = [int(score) for score in live_scores(state)]
    return table


class _Recorder:
    """The frames of a replay, noted turn by turn as the library replays the record."""

    def __init__(self, names: list[str], lang: str):
        self.names = names
        self.lang = lang
        self.frames: list[dict[str, Any]] = []
        self.round = 0
        #: the last turn, waiting for the table it left (the next state the replay shows)
        self.waiting: Optional[dict[str, Any]] = None
        self.finished = 0

    def turn(self, state: "GameState", move: Move) -> None:
        """Called by the replay before ``move`` is played on ``state``."""
        self.close(state)
        if state.round != self.round:
            self.round = state.round
            self.frames.append({"round": state.round, "turn": 0, "seat": None,
                                "starter": state.to_move, "table": table_of(state)})
        seat = state.to_move
        notes = words_of(state.pack, state, move, self.names[seat])
        self.waiting = {"round": state.round, "turn": state.turn + 1, "seat": seat,
                        "move": move.text(state.pack.cards),
                        "words": localize({"words": notes}, self.lang)["words"]}
        self.finished = len(state.finished)

    def close(self, state: "GameState") -> None:
        """The waiting turn's frame, now that ``state`` shows what it left: the table, or
        the round's sheet when it ended the round."""
        if self.waiting is None:
            return
        frame, self.waiting = self.waiting, None
        if len(state.finished) > self.finished:
            frame.update(table=None, sheet=round_sheet(state, self.names))
        else:
            frame["table"] = table_of(state)
        self.frames.append(frame)


def frames(data: dict[str, Any], lang: str, where: str = "record") -> dict[str, Any]:
    """The replay of the record ``data`` (a match: one line of a record file), checked by
    :func:`lostcities.engine.replay` as ``lc replay`` checks it: ``{"players", "rounds",
    "frames", "totals", "winners", "forfeit"}`` with the turns said in ``lang`` (``forfeit``:
    the record's, the seat that resigned or ran out of time and why, or None); ``"pack"`` is the
    :class:`~lostcities.engine.RulePack` it was played with (the caller says it as it
    needs). :class:`RecordError` (one line naming ``where``) for a record that does not
    replay, or of more than :data:`REPLAY_ROUNDS` rounds."""
    rounds = data.get("rounds")
    if isinstance(rounds, list) and len(rounds) > REPLAY_ROUNDS:
        raise RecordError(f"{where}: {len(rounds)} rounds: a replay shows at most "
                          f"{REPLAY_ROUNDS} (lc replay shows any)")
    players = data.get("players")
    names = [clean_text(str(label), NAME_CHARS) for label in players] \
        if isinstance(players, list) else []
    recorder = _Recorder(names, lang)
    final = replay(data, where=where, on_turn=recorder.turn)
    recorder.close(final)
    forfeit = data.get("forfeit")  # checked by the replay
    won = winners(final) if forfeit is None else forfeit_winners(final, forfeit["seat"])
    return {"pack": final.pack, "players": names, "rounds": len(final.finished),
            "frames": recorder.frames, "totals": [int(t) for t in totals(final)],
            "winners": [int(w) for w in won],
            "forfeit": None if forfeit is None else {"seat": forfeit["seat"],
                                                     "reason": forfeit["reason"]}}


def read_match(text: str, game: int, name: str = "record") -> tuple[dict[str, Any], str, int]:
    """Match ``game`` (from 1) of a record file's ``text`` read as ``lc replay`` reads a
    file (:func:`lostcities.engine.read_records`: each line bounded, its JSON's depth and
    numbers too), where it is (``NAME:LINE``), and how many matches the file holds;
    :class:`RecordError` in one line."""
    chosen: Optional[dict[str, Any]] = None
    where = name
    count = 0
    for lineno, data in read_records(io.StringIO(text), name):
        count += 1
        if count == game:
            chosen = data
            where = f"{name}:{lineno}"
    if count == 0:
        raise RecordError(f"{name}: no records in the file")
    if chosen is None:
        raise RecordError(f"{name} has {count} record(s), not {game}")
    return chosen, where, count


class Desk:
    """What a server keeps for its replays: the frames of the last matches asked for (by
    id and language: a replay is computed once, not on every visit) and how many
    replays are being built at once (:attr:`Limits.replays_at_once`: a dropped file is
    replayed in a worker thread; more at once are refused, ``error.replays-busy``)."""

    def __init__(self, at_once: int, keep: int = 32):
        self.at_once = at_once
        self.busy = 0
        self.keep = keep
        self.kept: dict[tuple[str, str], dict[str, Any]] = {}

    def take(self) -> bool:
        """Whether one more replay may be built now (then :meth:`give_back` it)."""
        if self.busy >= self.at_once:
            return False
        self.busy += 1
        return True

    def give_back(self) -> None:
        """A replay taken with :meth:`take` is built (or failed)."""
        self.busy -= 1

    def kept_frames(self, key: tuple[str, str]) -> Optional[dict[str, Any]]:
        """The answer kept for (match id, language), or None."""
        return self.kept.get(key)

    def keep_frames(self, key: tuple[str, str], answer: dict[str, Any]) -> None:
        """Keep ``answer`` for (match id, language), forgetting the oldest beyond
        :attr:`keep`."""
        self.kept.pop(key, None)
        while len(self.kept) >= self.keep:
            self.kept.pop(next(iter(self.kept)))
        self.kept[key] = answer
