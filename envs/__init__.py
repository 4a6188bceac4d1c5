"""lostcities.envs: the standard interfaces of game-AI libraries over any rule pack
(PettingZoo, Gymnasium, OpenSpiel) and a batched engine; ``pip install 'lostcities[rl]'``
(docs/rl.md)."""
