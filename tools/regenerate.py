"""``python tools/regenerate.py`` (a developer's tool, outside the installed packages, run in
the environment where lostcities is installed editable): rewrite the files generated for a
fast start:
``grammar/scoring_tables.py``, the LALR parser of ``scoring.lark`` (after a change of the
grammar or of the lark version), and ``engine/packs/pack_digests.py``, the digests of the built-in
packs that pass schema validation, and ``engine/packs/shipped_packs.json``, their YAML as loaded
and their formulas' parse results (after a change of a built-in pack, of the schema or of
the grammar), and
``cli/helptext.py``, ``lc --help`` as typer renders it (after a change of the command modules
or of typer).
tests/test_startup.py fails while either is stale; a stale file only costs start-up time."""
from __future__ import annotations

from pathlib import Path

from lostcities.grammar.parser import scoring_tables_source


def write_scoring_tables(force: bool = False) -> Path:
    """Write ``grammar/scoring_tables.py``, unless it is fresh (lark numbers its
    states differently from one build to the next: a fresh file is left alone) or ``force``;
    return its path."""
    import lark

    from lostcities.grammar import parser

    path = Path(parser.__file__).with_name("scoring_tables.py")
    try:
        from lostcities.grammar import scoring_tables
        fresh = (scoring_tables.GRAMMAR_SHA256 == parser.grammar_digest(parser.grammar_text())
                 and scoring_tables.LARK_VERSION == lark.__version__)
    except ImportError:
        fresh = False
    if force or not fresh:
        path.write_text(scoring_tables_source(), encoding="utf-8")
    return path


def write_pack_digests() -> Path:
    """Write ``pack_digests.py`` and ``shipped_packs.json`` in the engine's folder and return
    the first one's path."""
    from lostcities.engine.packs import loader as packs

    source, documents = packs.pack_digests_source()
    path = Path(packs.__file__).with_name("pack_digests.py")
    path.with_name(packs.SHIPPED_DOCUMENTS).write_text(documents, encoding="utf-8")
    path.write_text(source, encoding="utf-8")
    return path


def write_help_text() -> Path:
    """Write ``cli/helptext.py``, ``lc --help`` as typer renders it, and return its path."""
    from lostcities.cli import app

    path = Path(app.__file__).with_name("helptext.py")
    path.write_text(app.helptext_source(), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write_scoring_tables())
    print(write_pack_digests())
    print(write_help_text())
