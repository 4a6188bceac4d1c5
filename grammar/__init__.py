"""lostcities.grammar: the scoring language of rule packs (docs/scoring-dsl.md).

``compile_scoring(spec, family)`` compiles a pack's formulas once into a
:class:`Scoring`; ``compile_formula(text, scope)`` compiles one formula, its work
bounded over a :class:`Domain` (the pack's when given, else :func:`widest_domain`).
lark is imported only when a formula is first parsed.
"""
from __future__ import annotations

from .bounds import MAX_COST, Domain, widest_domain
from .compiler import Formula, compile_formula
from .scoring import REQUIRED, RoundScore, Scoring, compile_scoring
from .types import MAX_AGGREGATE_NESTING, MAX_DEPTH, MAX_INT, MAX_LENGTH, SCOPES, scope_fields

__all__ = ["Domain", "Formula", "MAX_AGGREGATE_NESTING", "MAX_COST", "MAX_DEPTH", "MAX_INT",
           "MAX_LENGTH", "REQUIRED", "RoundScore", "SCOPES", "Scoring", "compile_formula",
           "compile_scoring", "scope_fields", "widest_domain"]
