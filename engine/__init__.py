"""lostcities.engine."""
