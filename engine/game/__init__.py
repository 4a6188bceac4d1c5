"""The rules engine: cards, rows, moves, the game state, the turn and the board game."""
