"""Game records: one match per JSON Lines line, format ``lostcities-record/1``.

Written by the engine (:func:`record_of`, :func:`dumps`), read back line by line
(:func:`read_records`) and re-played through the engine (:func:`replay`), which
checks every move, every round end and every score. The format and its JSON
Schema (``record.schema.json``, shipped beside this module) are in docs/records.md.
Every problem is a :class:`RecordError` whose one line names the file and line.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections import OrderedDict
from dataclasses import replace
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, TextIO

from ..errors import InputError, LostCitiesError, PackError, Problem, RecordError
from ..game.tracks import tile_dict
from ..game.moves import DECK, DISCARD, NO_STEP, PLAY, Move, draw_text
from ..game.options import TILE_KINDS, in_old_words, tile_has_value
from ..game.rules import RulePack
from ..game.state import OVER, Deal, GameState, SetupError
from ..game.turn import (check_deal, check_players, continue_match, new_game, push, shuffle_deal,
                         totals, why_refused, winners)
from ..packs.loader import builtin_path, load_pack, validate_pack
from ..safeio import loads_json, read_lines
from .seeds import game_seed

RECORD_FORMAT = "lostcities-record/1"

#: called by :func:`replay` before each turn: (state before the turn, the move)
OnTurn = Callable[[GameState, Move], None]

#: why a match ended before its rules ended it (a record's ``forfeit``): a seat resigned,
#: or a seat ran out of time on a room's clock
FORFEIT_REASONS = ("resign", "time")
#: the ``end`` of the round a forfeit stopped (the record's last)
FORFEIT_END = "forfeit"


def forfeit_winners(state: GameState, seat: int) -> tuple[int, ...]:
    """The winners of the match ``state`` that ``seat`` forfeited (resigned, or ran out
    of time): the other seats with the best total over the finished rounds (several: a
    shared win). The forfeiting seat never wins, whatever its total."""
    scores = totals(state)
    others = [p for p in range(state.n) if p != seat]
    best = max(scores[p] for p in others)
    return tuple(p for p in others if scores[p] == best)


def _forfeit_seat(state: GameState, extra: dict[str, Any]) -> Optional[int]:
    """The seat of the forfeit ``extra`` names, or None; :class:`InputError` in one line
    for one that is not ``{"seat": N, "reason": R}`` of this match (R one of
    :data:`FORFEIT_REASONS`) or a match already over: a record is written only as
    :func:`replay` reads it."""
    given = extra.get("forfeit")
    if given is None:
        return None
    if not (isinstance(given, dict) and set(given) == {"seat", "reason"}
            and type(given["seat"]) is int and 0 <= given["seat"] < state.n
            and given["reason"] in FORFEIT_REASONS) or state.phase == OVER:
        raise InputError(f"forfeit must be {{seat, reason}} of a match under way: a seat of "
                         f"{state.n}, reason one of {', '.join(FORFEIT_REASONS)}")
    return given["seat"]


@lru_cache(maxsize=1)
def engine_version() -> str:
    """The engine a record or save was written by, e.g. ``lostcities 0.1.0`` (looked up once
    a process: reading the installed metadata costs a third of a record)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"lostcities {version('lostcities')}"
    except PackageNotFoundError:
        return "lostcities"


def record_of(state: GameState, **extra: Any) -> dict[str, Any]:
    """The record of ``state``'s finished rounds as a JSON-ready dict (extra fields added;
    with ``forfeit={"seat": N, "reason": "resign" | "time"}`` also the round under way,
    as far as it went: docs/records.md, "A forfeit")."""
    codec = state.pack.cards
    f = codec.format
    return _record(state, lambda r: [_turn_dict(m, seat, codec) for m, seat in
                                     _seats(r.moves, r.starter, state.n)],
                   lambda cards: [f(c) for c in cards], extra)


def _record(state: GameState, turns: Callable[[Any], Any], cards: Callable[[Any], Any],
            extra: dict[str, Any]) -> dict[str, Any]:
    """The record's fields in order, each round's ``turns`` made by ``turns(round)`` and
    each list of cards by ``cards(cards)``."""
    codec = state.pack.cards
    rounds = []
    for r in state.finished:
        rnd: dict[str, Any] = {
            "starter": r.starter,
            "hands": [cards(hand) for hand in r.deal.hands],
            "draw_pile": cards(r.deal.draw_pile),
            "removed": cards(r.deal.removed),
            "turns": turns(r),
            "scores": list(r.scores),
            "end": r.end,
        }
        if r.deal.tiles is not None:
            rnd.update(tiles=[tile_dict(t, codec.keys) for t in r.deal.tiles],
                       tokens=list(r.tokens), artefacts=list(r.artefacts))
        rounds.append(rnd)
    forfeit = _forfeit_seat(state, extra)
    won = winners(state)
    if forfeit is not None:  # the round under way, its turns so far: it scores nothing
        deal = state.deal
        under_way = RoundView(state.starter, tuple(state.moves))
        rnd = {"starter": state.starter, "hands": [cards(hand) for hand in deal.hands],
               "draw_pile": cards(deal.draw_pile), "removed": cards(deal.removed),
               "turns": turns(under_way), "scores": [0] * state.n, "end": FORFEIT_END}
        if deal.tiles is not None:
            rnd["tiles"] = [tile_dict(t, codec.keys) for t in deal.tiles]
        rounds.append(rnd)
        won = forfeit_winners(state, forfeit)
    out: dict[str, Any] = {
        "format": RECORD_FORMAT, "pack": state.pack.id, **pack_claims(state.pack),
        "seed": state.seed, "players": list(state.players), "rounds": rounds,
        "totals": list(totals(state)), "winners": list(won), "engine": engine_version(),
    }
    out.update(extra)
    return out


class RoundView:
    """A round's starter and turns, as a record writes them (a finished round's, or the
    one under way that a forfeit stopped)."""

    def __init__(self, starter: int, moves: tuple[Move, ...]):
        self.starter = starter
        self.moves = moves


def _seats(moves: Iterable[Move], starter: int, n: int) -> Iterator[tuple[Move, int]]:
    for i, m in enumerate(moves):
        yield m, (starter + i) % n


def _turn_dict(move: Move, seat: int, codec) -> dict[str, Any]:
    turn: dict[str, Any] = {"player": seat, "card": codec.format(move.card),
                            "action": move.action,
                            "draw": None if move.draw is None else draw_text(move.draw, codec)}
    if move.pawn is not None:
        turn["pawn"] = move.pawn
    if move.steps:
        turn["steps"] = [None if c is NO_STEP else codec.keys[c] for c in move.steps]
    return turn


#: JSON of one value as ``json.dumps(value, separators=(",", ":"))`` writes it
_encode = json.JSONEncoder(separators=(",", ":")).encode

#: codec id -> (codec, TurnTexts): the JSON of turns already written with that codec
_TURN_TEXT: "OrderedDict[int, tuple[Any, TurnTexts]]" = OrderedDict()
_TURN_TEXT_SIZE = 1 << 16  # moves kept a codec (the engine's own moves are a few hundred)


class TurnTexts:
    """The JSON text of each turn (a move by a seat) written so far with one codec.

    The engine hands out the same :class:`Move` objects turn after turn, so a turn's text
    is found by the move's identity, the move itself kept here so that its id stays its own
    (every table is emptied at once when full); a new move's text is found by its fields,
    or made."""

    def __init__(self, codec: Any) -> None:
        self.codec = codec
        self.kept: dict[int, Move] = {}
        #: per seat: id(move) -> the JSON of that seat's turn
        self.by_seat: list[dict[int, str]] = []
        self.by_fields: dict[tuple, str] = {}
        #: card -> its JSON text (``"r5"`` with the quotes)
        self.card_json: list[str] = []

    def seat(self, seat: int) -> dict[int, str]:
        """The texts of ``seat``'s turns, by the id of their move."""
        while len(self.by_seat) <= seat:
            self.by_seat.append({})
        return self.by_seat[seat]

    def add(self, move: Move, seat: int) -> str:
        """The JSON of ``move`` played by ``seat``, kept for the next time."""
        if len(self.kept) >= _TURN_TEXT_SIZE or len(self.by_fields) >= _TURN_TEXT_SIZE:
            self.kept.clear()
            self.by_fields.clear()
            for table in self.by_seat:
                table.clear()
        key = (seat, move.action, move.card, move.draw, move.pawn, move.steps)
        text = self.by_fields.get(key)
        if text is None:
            text = self.by_fields[key] = _encode(_turn_dict(move, seat, self.codec))
        self.kept[id(move)] = move
        self.seat(seat)[id(move)] = text
        return text


#: the fields of a round that dumps writes as JSON text itself
_RAW = frozenset(("draw_pile", "removed", "turns"))


def _round_field(key: str, value: Any) -> str:
    """The JSON of one field of a round as dumps builds it (cards and turns already JSON)."""
    if key == "hands":
        return "[" + ",".join(value) + "]"
    return value if key in _RAW else _encode(value)


def _turn_texts(codec: Any) -> TurnTexts:
    hit = _TURN_TEXT.get(id(codec))
    if hit is not None and hit[0] is codec:
        return hit[1]
    texts = TurnTexts(codec)
    _TURN_TEXT[id(codec)] = (codec, texts)
    while len(_TURN_TEXT) > 8:
        _TURN_TEXT.popitem(last=False)
    return texts


def dumps(state: GameState, **extra: Any) -> str:
    """The record of ``state`` as one JSON line (no newline).

    The same text as ``json.dumps(record_of(state, **extra), separators=(",", ":"))``,
    written faster: each distinct turn's JSON is made once and reused, each list of cards
    and the pack's claims are joined from JSON already made, and the line is put together
    field by field without the dict of :func:`record_of`.
    """
    return record_line(state, extra)


def record_line(state: GameState, extra: dict[str, Any],
                totals: Optional[Sequence[int]] = None,
                winners: Optional[Sequence[int]] = None) -> str:
    """:func:`dumps` of ``state`` with the ``extra`` fields, for a caller that has the
    match's ``totals`` and ``winners`` at hand already (the engine's, as
    :func:`~lostcities.engine.game.turn.totals` and
    :func:`~lostcities.engine.game.turn.winners` give them): they are not worked out
    again. The same line as ``dumps(state, **extra)``."""
    codec = state.pack.cards
    texts = _turn_texts(codec)
    n = state.n
    names = texts.card_json
    if len(names) != codec.n_kinds:
        names[:] = [_encode(codec.format(c)) for c in range(codec.n_kinds)]

    def turns(r: Any) -> str:
        moves = r.moves
        out: list[Any] = [None] * len(moves)
        for i in range(min(n, len(moves))):  # each seat's turns at once
            out[i::n] = map(texts.seat((r.starter + i) % n).get, map(id, moves[i::n]))
        if None in out:
            for j, text in enumerate(out):
                if text is None:
                    out[j] = texts.add(moves[j], (r.starter + j) % n)
        return "[" + ",".join(out) + "]"

    def cards(row: Any) -> str:
        return "[" + ",".join(map(names.__getitem__, row)) + "]"

    if _RECORD_KEYS.isdisjoint(extra):
        return _line(state, turns, cards, extra, totals, winners)
    record = _record(state, turns, cards, extra)  # extra fields replace the record's own
    out = []
    for key, value in record.items():
        if key == "rounds" and "rounds" not in extra:  # our rounds: cards and turns are JSON
            text = "[" + ",".join(
                "{" + ",".join(f"{_encode(k)}:{_round_field(k, v)}" for k, v in rnd.items())
                + "}"
                for rnd in value) + "]"
        else:
            text = _encode(value)
        out.append(f"{_encode(key)}:{text}")
    return "{" + ",".join(out) + "}"


#: the fields :func:`_record` writes (an extra field of the same name replaces one)
_RECORD_KEYS = frozenset(("format", "pack", "pack_sha256", "pack_data", "seed", "players",
                          "rounds", "totals", "winners", "engine", "forfeit"))


def _line(state: GameState, turns: Callable[[Any], str], cards: Callable[[Any], str],
          extra: dict[str, Any], scores: Optional[Sequence[int]],
          won: Optional[Sequence[int]]) -> str:
    """:func:`dumps` when no extra field has the name of one of the record's: the JSON of
    :func:`_record`'s fields in its order, then the extra fields, written directly."""
    if scores is None or won is None:
        scores, won = totals(state), winners(state)
    keys = state.pack.cards.keys
    rounds = []
    for r in state.finished:
        deal = r.deal
        text = (f'{{"starter":{_encode(r.starter)},"hands":['
                + ",".join(map(cards, deal.hands))
                + f'],"draw_pile":{cards(deal.draw_pile)},"removed":{cards(deal.removed)}'
                f',"turns":{turns(r)},"scores":{_ints(r.scores)},"end":{_encode(r.end)}')
        if deal.tiles is not None:
            text += (f',"tiles":{_encode([tile_dict(t, keys) for t in deal.tiles])}'
                     f',"tokens":{_encode(list(r.tokens))}'
                     f',"artefacts":{_encode(list(r.artefacts))}')
        rounds.append(text + "}")
    head = (f'{{"format":{_FORMAT_JSON},"pack":{_encode(state.pack.id)},'
            f'{claims_json(state.pack)},"seed":{_encode(state.seed)},'
            f'"players":{_encode(list(state.players))},"rounds":[')
    tail = (f'],"totals":{_ints(scores)},"winners":{_ints(won)},'
            f'"engine":{_encode(engine_version())}')
    more = "".join(f",{_encode(key)}:{_encode(value)}" for key, value in extra.items())
    return head + ",".join(rounds) + tail + more + "}"


_FORMAT_JSON = json.dumps(RECORD_FORMAT)


def _ints(values: Sequence[int]) -> str:
    """The JSON of a list of numbers, written directly when they are all plain ints."""
    if all(type(v) is int for v in values):
        return "[" + ",".join(map(str, values)) + "]"
    return _encode(list(values))


def read_records(stream: TextIO, name: str = "<records>") -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, record dict)`` for each non-blank line of a JSON Lines stream.

    Read through :mod:`.safeio`: a line is at most ``LIMITS.record_line_bytes``
    characters (refused without reading the rest of it), its JSON at most
    ``LIMITS.json_depth`` deep with numbers of at most ``LIMITS.number_digits``
    characters. Every refusal is a :class:`RecordError` naming ``name:line``.
    """
    try:
        for lineno, line in read_lines(stream, name):
            if not line.strip():
                continue
            data = loads_json(line, f"{name}:{lineno}")
            if not isinstance(data, dict):
                raise RecordError(f"{name}:{lineno}: a record is a JSON object, "
                                  f"not {type(data).__name__}")
            yield lineno, data
    except InputError as err:
        raise RecordError(str(err)) from None


@lru_cache(maxsize=1)
def _validator() -> Any:
    from importlib.resources import files

    from jsonschema import Draft202012Validator

    schema = json.loads(files("lostcities.engine.lab").joinpath("record.schema.json").read_text())
    return Draft202012Validator(schema)


def check_shape(data: dict[str, Any], where: str) -> None:
    """Raise :class:`RecordError` unless ``data`` matches the record schema."""
    if data.get("format") != RECORD_FORMAT:
        found = data.get("format")
        raise RecordError(f"{where}: not a {RECORD_FORMAT} record (format is "
                          f"{'missing' if found is None else repr(found)})")
    if _surely_valid(data):
        return
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
        message = err.message if len(err.message) <= 200 else \
            f"{err.message[:200]}... ({len(err.message):,} chars)"
        raise RecordError(f"{where}: {path.lstrip('.') or 'record'}: {message}")


_CARD = re.compile(r"[A-Za-z]([xX]|[0-9]+)")
_KEY = re.compile(r"[A-Za-z]")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_ENDS = ("draw-pile-empty", "turn-cap", "bridge-crossings", FORFEIT_END)


def _surely_valid(data: dict[str, Any]) -> bool:
    """A fast check that ``data`` matches the schema (jsonschema takes ~20 ms a match).

    True only if the schema accepts ``data`` (a test holds it to that); False sends
    the record to jsonschema, which finds and words the problem.
    """
    def ints(v: Any, low: Optional[int] = None) -> bool:
        return type(v) is list and all(type(x) is int and (low is None or x >= low) for x in v)

    def cards(v: Any) -> bool:
        return type(v) is list and all(type(c) is str and _CARD.fullmatch(c) for c in v)

    def key(v: Any) -> bool:
        return type(v) is str and _KEY.fullmatch(v) is not None

    def tile(v: Any) -> bool:
        return (type(v) is dict and key(v["track"]) and type(v["space"]) is int
                and v["space"] >= 0 and v["kind"] in TILE_KINDS
                and (not tile_has_value(v["kind"]) or type(v["value"]) is int)
                and set(v) <= {"track", "space", "kind", "value"})

    try:
        if not (data["format"] == RECORD_FORMAT and type(data["pack"]) is str and data["pack"]
                and type(data["seed"]) is int
                and type(data["players"]) is list and data["players"]
                and all(type(p) is str for p in data["players"])
                and ints(data["totals"]) and data["totals"]
                and type(data["rounds"]) is list and data["rounds"]
                and ints(data.get("winners", []), 0)
                and type(data.get("engine", "")) is str
                and (type(data.get("pack_sha256", "0" * 64)) is str
                     and _SHA256.fullmatch(data.get("pack_sha256", "0" * 64)) is not None)
                and type(data.get("pack_data", {})) is dict
                and "forfeit" not in data):  # rare: the schema checks it
            return False
        for rnd in data["rounds"]:
            if not (type(rnd) is dict and type(rnd["starter"]) is int and rnd["starter"] >= 0
                    and type(rnd["hands"]) is list and rnd["hands"]
                    and all(cards(h) for h in rnd["hands"]) and cards(rnd["draw_pile"])
                    and cards(rnd.get("removed", [])) and ints(rnd["scores"])
                    and rnd["scores"] and rnd["end"] in _ENDS and type(rnd["turns"]) is list
                    and ints(rnd.get("tokens", [])) and ints(rnd.get("artefacts", []), 0)
                    and type(rnd.get("tiles", [])) is list
                    and all(tile(t) for t in rnd.get("tiles", []))):
                return False
            for turn in rnd["turns"]:
                draw = turn["draw"]
                pawn = turn.get("pawn")
                if not (type(turn["player"]) is int and turn["player"] >= 0
                        and type(turn["card"]) is str and _CARD.fullmatch(turn["card"])
                        and turn["action"] in ("play", "discard")
                        and (draw is None or draw == "deck" or key(draw))
                        and (pawn is None or type(pawn) is int and pawn >= 0)
                        and type(turn.get("steps", [])) is list
                        and all(k is None or key(k) for k in turn.get("steps", []))
                        and set(turn) <= {"player", "card", "action", "draw", "pawn", "steps"}):
                    return False
    except (KeyError, TypeError):
        return False
    return True


def _cards(pack: RulePack, items: list[str], where: str) -> tuple[int, ...]:
    try:
        return tuple(pack.cards.parse(c) for c in items)
    except LostCitiesError as err:
        raise RecordError(f"{where}: {err}") from None


def _tiles(pack: RulePack, rnd: dict[str, Any], where: str) -> Optional[tuple]:
    """The round's tile layout as ``(track, space, kind, value)``; None when not recorded."""
    if "tiles" not in rnd:
        return None
    return TILES[pack.family](pack, rnd["tiles"], where)


def _no_tiles(pack: RulePack, tiles: list, where: str) -> tuple:
    """A duel pack's record gives no tiles: one error line."""
    raise RecordError(f"{where}: tiles: {pack.id} has no board")


def _board_tiles(pack: RulePack, tiles: list, where: str) -> tuple:
    """A board pack's recorded tiles as ``(track, space, kind, value)``."""
    keys = pack.cards.keys
    out = []
    for i, tile in enumerate(tiles):
        track = tile["track"].lower()
        if track not in keys:
            raise RecordError(f"{where}: tiles[{i}]: track {tile['track']!r} is not a colour "
                              f"of {pack.id}")
        out.append((keys.index(track), tile["space"], tile["kind"], tile.get("value", 0)))
    return tuple(out)


#: how a record's tiles are read, by the pack's family
TILES: dict[str, Callable[[RulePack, list, str], tuple]] = {"duel": _no_tiles,
                                                          "board": _board_tiles}


def _deal(pack: RulePack, rnd: dict[str, Any], where: str) -> Deal:
    hands = tuple(_cards(pack, h, f"{where} hands") for h in rnd["hands"])
    pile = _cards(pack, rnd["draw_pile"], f"{where} draw_pile")
    if "removed" in rnd:
        removed = _cards(pack, rnd["removed"], f"{where} removed")
    else:  # a foreign record: the cards nobody saw are the removed ones
        left = list(pack.deck())
        for card in [c for h in hands for c in h] + list(pile):
            if card in left:
                left.remove(card)
        removed = tuple(left)
    return Deal(hands, pile, removed, _tiles(pack, rnd, where))


def _move(pack: RulePack, turn: dict[str, Any], where: str) -> Move:
    codec = pack.cards
    card = _cards(pack, [turn["card"]], where)[0]
    draw = turn["draw"]
    if draw is None:
        source = None
    elif draw == "deck":
        source = DECK
    elif draw.lower() in codec.keys:
        source = codec.keys.index(draw.lower())
    else:
        raise RecordError(f"{where}: draw {draw!r} is neither deck nor a colour of {pack.id}")
    steps: list[Optional[int]] = []
    for key in turn.get("steps", ()):
        if key is None:  # the advance due was declined (step=none)
            steps.append(NO_STEP)
            continue
        if key.lower() not in codec.keys:
            raise RecordError(f"{where}: step {key!r} is not a colour of {pack.id}")
        steps.append(codec.keys.index(key.lower()))
    return Move(PLAY if turn["action"] == "play" else DISCARD, card, source,
                turn.get("pawn"), tuple(steps), codec)


def replay(data: dict[str, Any], *, pack: Optional[RulePack] = None, where: str = "record",
           on_turn: Optional[OnTurn] = None, force_pack: bool = False) -> GameState:
    """Re-play a record through the engine, checking every turn, round end and score.

    The pack is :func:`record_pack`'s: ``pack`` if given (with the record's rules unless
    ``force_pack``), else the one the record carries, else its built-in. Returns the final state;
    raises :class:`RecordError` naming ``where`` (e.g. ``games.jsonl:3``), the
    round and the turn on the first disagreement.
    """
    check_shape(data, where)
    pack = record_pack(data, where, pack=pack, force_pack=force_pack)
    players = data["players"]
    rounds = data["rounds"]
    n = len(players)
    try:
        check_players(pack, n)
    except SetupError as err:
        raise RecordError(f"{where}: players: {err}") from None
    forfeit = data.get("forfeit")
    if forfeit is not None and forfeit["seat"] >= n:
        raise RecordError(f"{where}: forfeit: seat {forfeit['seat']} of {n} players")
    for i, rnd in enumerate(rounds, 1):
        last = forfeit is not None and i == len(rounds)
        if (rnd["end"] == FORFEIT_END) != last:
            said = (f"end is {rnd['end']!r}, the record's forfeit ends this round" if last
                    else f"end {FORFEIT_END!r} is only the last round's of a record with a "
                         f"forfeit")
            raise RecordError(f"{where}: round {i}: {said}")
    deals = [_deal(pack, r, f"{where}: round {i}") for i, r in enumerate(rounds, 1)]
    for i, deal in enumerate(deals, 1):
        try:
            check_deal(pack, n, deal)
        except SetupError as err:
            raise RecordError(f"{where}: round {i}: {err}") from None
    try:
        state = new_game(pack, players, data["seed"], deals=deals)
    except SetupError as err:
        raise RecordError(f"{where}: {err}") from None
    _check_simulation_seed(data, where)
    for i, rnd in enumerate(rounds, 1):
        at = f"{where}: round {i}"
        if state.phase == OVER and i > pack.rounds:  # over: the record continues the match
            try:
                state = continue_match(state)
            except LostCitiesError as err:
                raise RecordError(f"{at}: {err}") from None
        if len(state.finished) != i - 1 or state.round != i:
            raise RecordError(f"{at}: the match has only {len(state.finished)} round(s)")
        if rnd["starter"] != state.starter:
            raise RecordError(f"{at}: starter is seat {rnd['starter']}, the rules say seat "
                              f"{state.starter}")
        _check_seeded_deal(pack, n, data["seed"], i, rnd, deals[i - 1], at)
        for j, turn in enumerate(rnd["turns"], 1):
            tw = f"{at} turn {j}"
            if len(state.finished) >= i:
                raise RecordError(f"{tw}: the round already ended "
                                  f"({state.finished[i - 1].end}) after turn {j - 1}")
            if turn["player"] != state.to_move:
                raise RecordError(f"{tw}: player is seat {turn['player']}, seat "
                                  f"{state.to_move} is to move")
            move = _move(pack, turn, tw)
            refusal = why_refused(state, move)
            if refusal is not None:
                raise RecordError(f"{tw}: {move.text(pack.cards)}: {refusal}")
            if on_turn is not None:
                on_turn(state, move)
            push(state, move)
            state.undo.clear()
        if forfeit is not None and i == len(rounds):  # the round the forfeit stopped
            if len(state.finished) >= i:
                raise RecordError(f"{at}: the round ended ({state.finished[i - 1].end}) "
                                  f"before the forfeit")
            if any(rnd["scores"]):
                raise RecordError(f"{at}: scores are {_quoted(rnd['scores'])}, a round a "
                                  f"forfeit stopped scores nothing")
            break
        if len(state.finished) < i:
            raise RecordError(f"{at}: the record stops after {len(rnd['turns'])} turns, "
                              f"the round is not over")
        result = state.finished[i - 1]
        if rnd["end"] != result.end:
            raise RecordError(f"{at}: end is {rnd['end']!r}, the round ended by {result.end!r}")
        if list(rnd["scores"]) != list(result.scores):
            raise RecordError(f"{at}: scores are {rnd['scores']}, the pack's formulas give "
                              f"{list(result.scores)}")
        for what in ("tokens", "artefacts"):
            if what in rnd and list(rnd[what]) != list(getattr(result, what)):
                raise RecordError(f"{at}: {what} are {rnd[what]}, the round's moves give "
                                  f"{list(getattr(result, what))}")
    if state.phase != OVER and forfeit is None:
        raise RecordError(f"{where}: the record has {len(rounds)} round(s), the match has "
                          f"{state.rounds_total}")
    if list(data["totals"]) != list(totals(state)):
        raise RecordError(f"{where}: totals are {_quoted(data['totals'])}, the pack's formulas "
                          f"give {list(totals(state))}")
    won = winners(state) if forfeit is None else forfeit_winners(state, forfeit["seat"])
    if "winners" in data and list(data["winners"]) != list(won):
        raise RecordError(f"{where}: winners are seats {_quoted(data['winners'])}, the totals "
                          f"{list(totals(state))} make the winners seats {list(won)}"
                          + ("" if forfeit is None else
                             f" (seat {forfeit['seat']} forfeited)"))
    return state


# --------------------------------------------------------------------- the record's pack


def pack_sha256(pack: RulePack) -> str:
    """The sha256 of ``pack``'s resolved rules (:attr:`RulePack.data`, ``extends`` merged and
    defaults filled) in a record's form (:func:`record_form`) and canonical: JSON with
    sorted keys, no spaces, ASCII escapes."""
    return _canonical_sha256(record_form(pack.data))


def record_form(data: Any) -> Any:
    """A resolved pack's data as a record writes it (``pack_data``) and hashes it: settings
    that lostcities 0.1 spelled as booleans in those words whenever they can say the value
    (:func:`~lostcities.engine.game.options.in_old_words`), so that the records written
    before them still name the same rules and the same seeds write the same bytes."""
    old = in_old_words(data) if isinstance(data, dict) else None
    return data if old is None else old


def _canonical_sha256(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


#: the claims of the last packs recorded, by identity of their data (a simulation records
#: thousands of matches of one pack): (data, claims)
_CLAIMS: "OrderedDict[int, tuple[Any, dict[str, Any]]]" = OrderedDict()


def claims_json(pack: RulePack) -> str:
    """:func:`pack_claims` as the JSON of the fields of a record, without the braces
    (``"pack_sha256":"…"`` and any ``"pack_data":{…}``), made once a pack."""
    claims = pack_claims(pack)
    hit = _CLAIMS_JSON.get(id(claims))
    if hit is not None and hit[0] is claims:
        return hit[1]
    text = ",".join(f"{_encode(key)}:{_encode(value)}" for key, value in claims.items())
    _CLAIMS_JSON[id(claims)] = (claims, text)
    while len(_CLAIMS_JSON) > 8:
        _CLAIMS_JSON.popitem(last=False)
    return text


#: id of a pack's claims (:func:`pack_claims`) -> (those claims, their JSON)
_CLAIMS_JSON: "OrderedDict[int, tuple[dict[str, Any], str]]" = OrderedDict()


def pack_claims(pack: RulePack) -> dict[str, Any]:
    """What a record says of its pack beside its id: ``pack_sha256`` always, and
    ``pack_data``, the resolved pack itself, when it is not the built-in pack of that id
    (a house pack), so that the record replays on its own (docs/records.md)."""
    hit = _CLAIMS.get(id(pack.data))
    if hit is not None and hit[0] is pack.data:
        _CLAIMS.move_to_end(id(pack.data))
        return hit[1]
    sha = pack_sha256(pack)
    claims: dict[str, Any] = {"pack_sha256": sha}
    if _builtin_sha256(pack.id) != sha:
        claims["pack_data"] = record_form(pack.data)
    _CLAIMS[id(pack.data)] = (pack.data, claims)
    while len(_CLAIMS) > 8:
        _CLAIMS.popitem(last=False)
    return claims


@lru_cache(maxsize=None)
def _builtin_sha256(pack_id: str) -> Optional[str]:
    """The sha256 of the built-in pack ``pack_id`` as this lostcities ships it, or None."""
    if builtin_path(pack_id) is None:
        return None
    try:
        return pack_sha256(load_pack(pack_id))
    except LostCitiesError:
        return None


def record_pack(data: dict[str, Any], where: str = "record", *,
                pack: Optional[RulePack] = None, force_pack: bool = False) -> RulePack:
    """The pack a (shape-checked) record replays through, or :class:`RecordError`.

    - ``pack`` given (``lc replay --pack``): it must have the record's pack id and, when
      the record has ``pack_sha256``, those very rules, unless ``force_pack``.
    - else the pack the record carries (``pack_data``), once its ``pack_sha256`` matches
      it, through every check of a pack file (:func:`embedded_pack`);
    - else the built-in pack of that id (:func:`builtin_pack`), which must still have the
      rules of ``pack_sha256`` when the record gives it.

    Records without ``pack_sha256`` (written before it) replay as before.
    """
    claimed = data.get("pack_sha256")
    if pack is not None:
        if pack.id != data["pack"]:
            raise RecordError(f"{where}: the record is of pack {_quoted(data['pack'])}, "
                              f"not {pack.id!r}")
        given = pack_sha256(pack)
        if claimed is not None and given != claimed and not force_pack:
            raise RecordError(f"{where}: the pack given has other rules than the record's "
                              f"pack {pack.id!r} (its content differs: sha256 {given[:12]}..., "
                              f"the record's {claimed[:12]}...); lc replay --force-pack "
                              f"replays with it anyway")
        return pack
    if "pack_data" in data:
        return embedded_pack(data, where)
    found = builtin_pack(data["pack"], where)
    if claimed is not None and pack_sha256(found) != claimed:
        made = data.get("engine")
        by = f" by {_quoted(made, 40)}" if isinstance(made, str) else ""
        raise RecordError(f"{where}: built-in pack {found.id!r} has other rules than when the "
                          f"record was written{by} (sha256 {pack_sha256(found)[:12]}..., the "
                          f"record's {claimed[:12]}...); lc replay --pack {found.id} "
                          f"--force-pack replays with today's rules")
    return found


#: embedded packs already checked, by sha256 (a file of many matches carries one pack)
_EMBEDDED: "OrderedDict[str, RulePack]" = OrderedDict()


def embedded_pack(data: dict[str, Any], where: str = "record") -> RulePack:
    """The pack a record carries in ``pack_data``, or :class:`RecordError`.

    ``pack_data`` is data like any pack file: it must match the record's ``pack_sha256``
    and ``pack``, hold no ``extends`` (it is resolved: nothing else is read), and pass
    the same hardened loading and every check of :func:`lostcities.engine.load_pack`
    (YAML limits, schema, LC checks, formula bounds). Problems name ``WHERE: pack_data``.
    """
    claimed = data.get("pack_sha256")
    embedded = data["pack_data"]
    at = f"{where}: pack_data"
    if claimed is None:
        raise RecordError(f"{at}: an embedded pack comes with its pack_sha256, which the "
                          f"record lacks")
    if _canonical_sha256(embedded) != claimed:
        raise RecordError(f"{at}: does not match pack_sha256 (the pack in the record was "
                          f"changed after it was written)")
    if embedded.get("id") != data["pack"]:
        raise RecordError(f"{at}: its id is {_quoted(embedded.get('id'))}, the record's pack "
                          f"is {_quoted(data['pack'])}")
    if "extends" in embedded:
        raise RecordError(f"{at}: an embedded pack is resolved and has no extends (a record "
                          f"never names a file to read)")
    hit = _EMBEDDED.get(claimed)
    if hit is not None:
        _EMBEDDED.move_to_end(claimed)
        return hit
    pack = _load_embedded(embedded, at)
    _EMBEDDED[claimed] = pack
    while len(_EMBEDDED) > 8:
        _EMBEDDED.popitem(last=False)
    return pack


#: characters written as escapes in an embedded pack's YAML text: those YAML refuses in a
#: stream, and the ones it reads as line breaks (NEL, U+2028, U+2029) or a byte-order mark
_UNPRINTABLE = re.compile(r"[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
                          r"\U00010000-\U0010ffff]")


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _load_embedded(embedded: dict[str, Any], at: str) -> RulePack:
    """Load an embedded pack through the pack loader's whole pipeline.

    The loader reads packs from files, so the pack is written as YAML (a key a line, each
    value as JSON: every text double-quoted, which YAML reads back exactly) to a private
    temporary folder and validated there; no ``extends`` is followed, and problems name
    ``at``, not that file.
    """
    # one top-level key a line, as a pack file has them (the loader looks for `deck:`)
    text = "".join(f"{key if _PLAIN_KEY.fullmatch(key) else json.dumps(key)}: "
                   f"{json.dumps(value, separators=(', ', ': '), ensure_ascii=False)}\n"
                   for key, value in embedded.items()) or "{}\n"
    text = _UNPRINTABLE.sub(lambda m: _escape(m.group()), text)
    with tempfile.TemporaryDirectory(prefix="lc-record-pack-") as folder:
        path = os.path.join(folder, "pack.yaml")
        with open(path, "x", encoding="utf-8") as out:
            out.write(text)
        try:
            report = validate_pack(path)
        except Exception as err:  # noqa: BLE001 - as lc validate: a loader bug is one line
            if isinstance(err, LostCitiesError):
                raise RecordError(f"{at}: {err}".replace(path, "pack_data")) from None
            raise RecordError(f"{at}: internal error while checking it: "
                              f"{type(err).__name__}: {_quoted(str(err))}") from None
    if report.pack is not None and not report.problems:
        pack = report.pack
        spec = pack.scoring_spec
        marks = {k: (at, 0, 0, style) for k, (_f, _l, _c, style) in spec.marks.items()}
        return replace(pack, path=at, scoring_spec=replace(spec, marks=marks))

    def named(problem: Problem) -> Problem:
        return replace(problem, file=at, line=0, col=0, excerpt="",
                       message=problem.message.replace(path, "pack_data").replace(folder, ""),
                       hint=problem.hint.replace(path, "pack_data").replace(folder, ""))

    problems = [named(p) for p in report.problems] or [
        Problem(at, 0, 0, "LC026", "not a rule pack")]
    more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    raise RecordError(f"{PackError(problems)}{more}")


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def builtin_pack(pack_id: str, where: str = "record") -> RulePack:
    """The built-in pack a record names, or :class:`RecordError`.

    A record is data: its ``pack`` may only name a built-in pack (an id of
    lowercase letters, digits and hyphens), never a file, so that replaying a
    record never opens, nor echoes a line of, a file the user did not name. A
    record of a pack file is replayed with that file given explicitly
    (``replay(data, pack=load_pack(FILE))``, ``lc replay --pack FILE``).
    """
    if builtin_path(pack_id) is None:
        raise RecordError(f"{where}: pack {_quoted(pack_id)} is not a built-in pack; a record "
                          f"of a pack file replays with that file given (lc replay --pack FILE)")
    try:
        return load_pack(pack_id)
    except LostCitiesError as err:
        raise RecordError(f"{where}: pack {pack_id!r}: {err}") from None


def _check_simulation_seed(data: dict[str, Any], where: str) -> None:
    """Raise :class:`RecordError` unless a record written by ``lc simulate`` has the seed its
    ``simulation`` seed and game index give."""
    sim = data.get("simulation")
    if isinstance(sim, dict) and type(sim.get("seed")) is int and type(sim.get("game")) is int \
            and sim["game"] >= 0:
        derived = game_seed(sim["seed"], sim["game"])
        if derived != data["seed"]:
            raise RecordError(f"{where}: seed is {data['seed']}, but simulation seed "
                              f"{sim['seed']} game {sim['game']} plays seed {derived}")


def _check_seeded_deal(pack: RulePack, n: int, seed: int, number: int, rnd: dict[str, Any],
                       deal: Deal, at: str) -> None:
    """Raise :class:`RecordError` unless round ``number``'s recorded deal is the one ``seed``
    deals: its hands, draw pile, removed cards and tiles, as far as the record gives them."""
    dealt = shuffle_deal(pack, n, seed, number)
    fields = [(f"hands[{i}]", hand, dealt.hands[i]) for i, hand in enumerate(deal.hands)]
    fields.append(("draw_pile", deal.draw_pile, dealt.draw_pile))
    if "removed" in rnd:
        fields.append(("removed", deal.removed, dealt.removed))
    if "tiles" in rnd and deal.tiles is not None and dealt.tiles is not None:
        fields.append(("tiles", sorted(deal.tiles), sorted(dealt.tiles)))
    for name, recorded, seeded in fields:
        if tuple(recorded) != tuple(seeded):
            raise RecordError(f"{at}: {name} is not what seed {seed} deals "
                              f"(the seed or the deal was changed)")


def _quoted(value: Any, limit: int = 60) -> str:
    """A value from a record as a message shows it: repr'd, cut when long."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} chars)"
