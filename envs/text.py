"""The table as plain text, what every seat sees (the adapters' ``render``): each seat's rows,
hand size and total, the discard piles' tops and sizes, the draw pile, the board's pawns."""
from __future__ import annotations

from typing import Callable, Optional, Sequence

from lostcities.engine import GameState, Observation, is_over, observation


def table_text(state: GameState) -> str:
    """Public information only: never a hand's cards nor the draw pile's order."""
    obs = observation(state, 0)
    codec = state.pack.cards
    f = codec.format
    lines = [f"{state.pack.id}  round {obs.round}/{obs.rounds}  turn {obs.turn}  "
             + ("match over" if is_over(state) else f"to move: player_{obs.to_move} ({obs.phase})")]
    for seat in range(len(obs.players)):
        rows = "  ".join(f"{codec.keys[c]}:{' '.join(f(k) for k in row) or '-'}"
                         for c, row in enumerate(obs.rows[seat]))
        lines.append(f"player_{seat}  hand {obs.hand_sizes[seat]}  total {obs.totals[seat]}  {rows}")
    piles = "  ".join(f"{codec.keys[c]}:{'-' if top is None else f(top)}({size})"
                      for c, (top, size) in enumerate(zip(obs.pile_tops, obs.pile_sizes)))
    lines.append(f"discards {piles}  draw pile {obs.draw_pile}")
    lines += FAMILY_LINES[state.pack.family](obs, codec.keys)
    return "\n".join(lines)


def render(state: GameState, render_mode: Optional[str]) -> Optional[str]:
    """The adapters' ``render()``: the table as text, printed for ``"human"`` (then None),
    returned for ``"ansi"``."""
    text = table_text(state)
    if render_mode == "human":
        print(text)
        return None
    return text


def _duel_lines(obs: Observation, keys: Sequence[str]) -> list[str]:
    """A duel has nothing on the table beside the cards."""
    return []


def _board_lines(obs: Observation, keys: Sequence[str]) -> list[str]:
    """Each seat's pawns (``*`` a leader), tokens and artefacts, and the bridge crossings."""
    board = obs.board
    lines = []
    for seat, pawns in enumerate(board.pawns):
        placed = " ".join(f"{keys[t]}{s}{'*' if lead else ''}"
                          for t, s, lead in pawns if t >= 0) or "-"
        lines.append(f"player_{seat}  pawns {placed}  tokens {board.tokens[seat]}  "
                     f"artefacts {board.artefacts[seat]}")
    lines.append(f"crossings {board.crossings}/{board.crossings_to_end}")
    return lines


#: family -> the lines of its own beside the cards'
FAMILY_LINES: dict[str, Callable[[Observation, Sequence[str]], list[str]]] = {
    "duel": _duel_lines, "board": _board_lines}
