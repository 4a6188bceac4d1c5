"""Playing many games: simulation, balance runs, worker backends and game records."""
