"""``python -m lostcities.grammar.regenerate``: rewrite ``scoring_tables.py``, the shipped
LALR parser of ``scoring.lark``, after a change of the grammar or of the lark version
(tests/test_startup.py fails while the shipped tables are stale)."""
from __future__ import annotations

from pathlib import Path

from .parser import scoring_tables_source


def write_scoring_tables() -> Path:
    """Write ``scoring_tables.py`` next to this module and return its path."""
    path = Path(__file__).with_name("scoring_tables.py")
    path.write_text(scoring_tables_source(), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write_scoring_tables())
