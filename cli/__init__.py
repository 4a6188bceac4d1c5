"""lostcities.cli."""
