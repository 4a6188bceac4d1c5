"""The table as plain text, what every seat sees (the adapters' ``render``): each seat's rows,
hand size and total, the discard piles' tops and sizes, the draw pile, the board's pawns."""
from __future__ import annotations

from lostcities.engine import GameState, is_over, observation


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
    if obs.board is not None:
        for seat, pawns in enumerate(obs.board.pawns):
            placed = " ".join(f"{codec.keys[t]}{s}{'*' if lead else ''}"
                              for t, s, lead in pawns if t >= 0) or "-"
            lines.append(f"player_{seat}  pawns {placed}  tokens {obs.board.tokens[seat]}  "
                         f"artefacts {obs.board.artefacts[seat]}")
        lines.append(f"crossings {obs.board.crossings}/{obs.board.crossings_to_end}")
    return "\n".join(lines)
