"""lostcities.rulepacks."""
