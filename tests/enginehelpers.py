"""Helpers shared by the engine, records, simulate and property tests.

``pack(id_or_mapping_overrides)`` loads a built-in pack through
``lostcities.engine.packs.loader.load_pack``; ``derived(base, **sections)`` builds a
pack from a built-in one with some sections overridden (to test a rule value no
built-in pack uses). ``deal(...)`` writes a round's deal in card notation.
"""
from __future__ import annotations

import copy
import random
from functools import lru_cache
from importlib.resources import files
from typing import Any, Iterator, Sequence

from lostcities.engine.game.rules import RulePack
from lostcities.engine.game.state import Deal


def builtin_ids() -> list[str]:
    """Every built-in pack id."""
    return sorted(p.name[:-5] for p in files("lostcities.rulepacks").iterdir()
                  if p.name.endswith(".yaml"))


@lru_cache(maxsize=None)
def pack(pack_id: str) -> RulePack:
    """A built-in pack, loaded once."""
    from lostcities.engine.packs.loader import load_pack

    return load_pack(pack_id)


def duel_ids() -> list[str]:
    """The built-in packs the engine plays today (family duel)."""
    return [i for i in builtin_ids() if pack(i).family == "duel"]


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def derived(base: str, **sections: Any) -> RulePack:
    """A pack like ``base`` with some sections replaced (dicts merge, lists replace)."""
    data = _merge(dict(pack(base).data), sections)
    data["id"] = f"{base}-test"
    data.pop("extends", None)
    return RulePack.from_mapping(data, path=f"<{base} derived in a test>")


def deal(p: RulePack, hands: Sequence[str], draw_pile: str, removed: str = "") -> Deal:
    """A Deal from card notation: ``deal(p, ["r2 r3 ...", "..."], "g5 g6 ...")`` (top first)."""
    c = p.cards

    def cards(text: str) -> tuple[int, ...]:
        return tuple(c.parse(w) for w in text.split())

    return Deal(tuple(cards(h) for h in hands), cards(draw_pile), cards(removed))


def start(p: RulePack, hands: Sequence[str], top: str = "", players: int | None = None,
          seed: int = 0) -> Any:
    """A match of ``p`` whose first round is :func:`complete_deal` of these hands and top."""
    from lostcities.engine.game.turn import new_game

    return new_game(p, players or len(hands), seed,
                    deals=[complete_deal(p, hands, top, players, seed)])


def complete_deal(p: RulePack, hands: Sequence[str], top: str = "", players: int | None = None,
                  seed: int = 0) -> Deal:
    """A valid deal whose hands hold the given cards (filled up to the hand size from
    the rest of the deck, shuffled by ``seed``) and whose draw pile starts with ``top``."""
    c = p.cards
    n = players or len(hands)
    want = [[c.parse(w) for w in h.split()] for h in list(hands) + [""] * (n - len(hands))]
    top_cards = [c.parse(w) for w in top.split()]
    rest = list(p.deck())
    for card in [x for h in want for x in h] + top_cards:
        rest.remove(card)
    random.Random(seed).shuffle(rest)
    removed = [rest.pop() for _ in range(p.removed_unseen.get(n, 0))]
    for hand in want:
        while len(hand) < p.hand_size:
            hand.append(rest.pop())
    return Deal(tuple(tuple(h) for h in want), tuple(top_cards + rest), tuple(removed))


def play_out(state, rng: random.Random) -> Iterator:
    """Yield each state of a random playout to the end of the match (mutating a copy)."""
    from lostcities.engine.game.turn import is_over, push, random_move

    state = state.copy()
    yield state
    while not is_over(state):
        push(state, random_move(state, rng))
        yield state


class FirstMoveBot:
    """A user bot loaded as ``enginehelpers:FirstMoveBot``: the first legal move."""

    name = "first"

    def choose(self, view):
        return view.legal_moves[0]


class CheatBot(FirstMoveBot):
    """A user bot that returns an illegal move (a card from outside its hand)."""

    name = "cheat"

    def choose(self, view):
        from lostcities.engine.game.moves import DECK, Move

        held = set(view.observation.hand)
        card = next(k for k in range(view.pack.cards.n_kinds) if k not in held)
        return Move("play", card, DECK, codec=view.pack.cards)


class CrashBot(FirstMoveBot):
    """A user bot with a bug."""

    name = "crash"

    def choose(self, view):
        return view.no_such_attribute


# -- the board game -----------------------------------------------------------------------

def _tile(text: str) -> tuple[str, int]:
    """``"step"``, ``"artefact"`` or ``"points 5"`` as ``(kind, value)``."""
    kind, _, value = text.partition(" ")
    return kind, int(value or 0)


def board_pack(tiles: dict[str, str], base: str = "board-classic", **sections: Any) -> RulePack:
    """``base`` with exactly the event tiles ``tiles`` (``{"y2": "step", "b3": "points 5"}``),
    every space of a track a tile space, and other sections overridden
    (``board={"spaces": 4}``)."""
    counts: dict[tuple[str, int], int] = {}
    for text in tiles.values():
        counts[_tile(text)] = counts.get(_tile(text), 0) + 1
    spec = [{"kind": k, "count": n, **({"value": v} if k == "points" else {})}
            for (k, v), n in counts.items()]
    board = sections.pop("board", {})
    spaces = board.get("spaces", pack(base).board.spaces)
    board = {"tiles": spec, "tile_spaces": list(range(1, spaces + 1)), **board}
    return derived(base, board=board, **sections)


def layout(p: RulePack, tiles: dict[str, str]) -> tuple[tuple[int, int, str, int], ...]:
    """``{"y2": "step"}`` as a Deal's tiles: ``((track, space, kind, value), ...)``."""
    keys = p.cards.keys
    return tuple(sorted((keys.index(where[0]), int(where[1:]), *_tile(text))
                        for where, text in tiles.items()))


def board_game(p: RulePack, hands: Sequence[str], tiles: dict[str, str], top: str = "",
               players: int | None = None):
    """A match of the board pack ``p`` whose first round deals ``hands`` (filled up from the
    deck), draws ``top`` first and lays out ``tiles``."""
    from dataclasses import replace

    from lostcities.engine.game.turn import new_game

    first = replace(complete_deal(p, hands, top, players), tiles=layout(p, tiles))
    return new_game(p, players or len(hands), 0, deals=[first])


# --------------------------------------------------------------------------- one-line errors

def one_error_line(stderr: str) -> str:
    """The single ``lc: error:`` line of ``stderr``, after checking there is no traceback."""
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lc: error: "), stderr
    return lines[0]


def one_line_error(result: Any, code: int) -> str:
    """A CliRunner result's error line, after checking the exit code, the one line and that
    nothing but the exit was raised."""
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stderr.startswith("lc: error: ") and result.stderr.count("\n") == 1, \
        result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.stderr


# --------------------------------------------------------------------------- board scenarios

def play(s: Any, *moves: str) -> Any:
    """Apply the moves in turn; the state after them."""
    from lostcities.engine.game.turn import apply

    for text in moves:
        s = apply(s, text)
    return s


def place(s: Any, seat: int, colour: str) -> Any:
    """``(space, leader)`` of ``seat``'s pawn on the track of ``colour``, or None."""
    track = s.pack.cards.keys.index(colour)
    for t, space, leader in s.board.pawn_places(seat, s.tables.board.leader):
        if t == track:
            return space, leader
    return None


def moves_of(s: Any, card: str) -> list[str]:
    """The legal plays of ``card`` that draw from the deck (or do not draw)."""
    from lostcities.engine.game.moves import DECK
    from lostcities.engine.game.turn import legal_moves

    return sorted(str(m) for m in legal_moves(s) if s.pack.cards.format(m.card) == card
                  and m.action == "play" and m.draw in (DECK, None))
