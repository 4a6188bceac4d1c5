"""lostcities.grammar."""
