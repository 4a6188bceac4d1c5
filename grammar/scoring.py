"""A pack's compiled scoring: the object the engine calls (docs/architecture.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .bounds import check_scoring
from .compiler import Formula, mark_for, check_definitions, compile_formula
from .runner import plain_sum
from .source import Source
from .types import MISSING, SCOPES

if TYPE_CHECKING:
    from lostcities.engine.game.rules import ScoringSpec

    from .bounds import Domain

#: the formulas each family of packs must define
REQUIRED: dict[str, tuple[str, ...]] = {
    "duel": ("expedition", "round", "match"),
    "board": ("pawn", "round", "match"),
}

Row = Sequence[Any]
"""``(colour, values, wagers)``: one expedition row, values in play order."""
PawnPlace = Sequence[Any]
"""``(track, space, leader)``: one pawn; space 0 is the centre."""


@dataclass(frozen=True)
class RoundScore:
    """One player's score for a round: the total and its parts."""

    total: int
    expeditions: tuple[int, ...]
    pawns: tuple[int, ...]


class Scoring:
    """The compiled formulas of one pack.

    ``expedition(colour, values, wagers)`` and ``pawn(track, space, leader)`` are
    plain functions (0 when the pack has no such formula); ``breakdown``,
    ``round`` and ``match`` are methods. ``columns`` are the breakdown's names.
    """

    __slots__ = ("expedition", "pawn", "formulas", "breakdown_formulas", "columns",
                 "_round", "_match", "_scored", "sums_expeditions", "sums_rounds")

    def __init__(self, formulas: Mapping[str, Formula], breakdown: Mapping[str, Formula]):
        self.formulas: dict[str, Formula] = dict(formulas)
        self.breakdown_formulas: dict[str, Formula] = dict(breakdown)
        self.columns: tuple[str, ...] = tuple(breakdown)
        self._scored = frozenset(k for k in ("expedition", "pawn") if k in formulas)
        zero: Callable[..., int] = lambda *args: 0  # noqa: E731
        self.expedition: Callable[[int, Sequence[int], int], int] = (
            formulas["expedition"].run if "expedition" in formulas else zero)
        self.pawn: Callable[[int, int, bool], int] = (
            formulas["pawn"].run if "pawn" in formulas else zero)
        self._round = formulas.get("round")
        self._match = formulas.get("match")
        #: compiled facts for code that scores in bulk (envs/vector.py): a round's total is
        #: the sum of its expeditions' scores (no pawn scored), a match's the sum of its rounds
        self.sums_expeditions: bool = "pawn" not in formulas and (
            self._round is None or plain_sum(self._round.code, "round") == "expeditions")
        self.sums_rounds: bool = self._match is None or \
            plain_sum(self._match.code, "match") == "rounds"

    def breakdown(self, colour: int, values: Sequence[int], wagers: int) -> dict[str, int]:
        """The pack's display columns for one row, e.g. sum, cost, multiplier, bonus."""
        out: dict[str, int] = {}
        for name, formula in self.breakdown_formulas.items():
            out[name] = formula.run(colour, values, wagers)
        return out

    def round(self, rows: Sequence[Row], pawns: Sequence[PawnPlace], tokens: int,
              artefacts: int, round_number: int) -> RoundScore:
        """Score one player's round: each row, each pawn, then the round formula."""
        expedition, pawn = self.expedition, self.pawn
        row_scores = [expedition(c, v, w) for c, v, w in rows]
        pawn_scores = [pawn(t, s, leader) for t, s, leader in pawns]
        formula = self._round
        if formula is None:
            total = sum(row_scores) + sum(pawn_scores)
        else:
            uses = formula.uses
            frame = [
                [(*r, s) for r, s in zip(rows, row_scores)] if "expeditions" in uses else (),
                [(*p, s) for p, s in zip(pawns, pawn_scores)] if "pawns" in uses else (),
                tokens, artefacts, round_number]
            total = formula.run(*frame)
        return RoundScore(total, tuple(row_scores), tuple(pawn_scores))

    def match(self, round_scores: Sequence[int], artefacts: int, tokens: int) -> int:
        """The match total from the round scores and what is held at the end."""
        if self._match is None:
            return sum(round_scores)
        return self._match.run(round_scores, artefacts, tokens)

    def __repr__(self) -> str:
        return f"<Scoring {', '.join(self.formulas)}>"


def compile_scoring(spec: "ScoringSpec", family: str, *, domain: "Domain | None" = None
                    ) -> Scoring:
    """Compile every formula of a pack's scoring section, once.

    Raises :class:`ScoringError` at the first bad formula, constant or table, with
    its position in the YAML file (``spec.marks``), or when a formula that
    ``family`` needs is missing.

    With ``domain`` (the pack's :class:`~lostcities.grammar.bounds.Domain`) the
    formulas are bounded over it as the pack loader does (``bounds.check_scoring``:
    LC104, LC106, LC109). Without, the loader bounds them when the pack loads; a
    formula not bounded yet is bounded over the widest domain at its first public call.
    """
    marks = spec.marks
    check_definitions(spec.constants, spec.tables, marks)
    needed = REQUIRED.get(family)
    if needed is None:
        raise _missing(marks, f"unknown pack family `{family}`",
                       "the families are " + ", ".join(REQUIRED))
    for scope in needed:
        if scope not in spec.formulas:
            raise _missing(marks, f"the {family} family needs a `scoring.{scope}` formula",
                           f"add e.g. `{scope}: 0` under scoring")
    scored = frozenset(k for k in ("expedition", "pawn") if k in spec.formulas)

    def build(text: str, scope: str, key: str) -> Formula:
        return compile_formula(text, scope, constants=spec.constants, tables=spec.tables,
                               key=key, mark=marks.get(key), scored=scored, bound=False)

    formulas: dict[str, Formula] = {}
    breakdown: dict[str, Formula] = {}
    for scope in SCOPES:
        if scope in spec.formulas:
            formulas[scope] = build(spec.formulas[scope], scope, f"scoring.{scope}")
        if scope == "expedition":
            for column, text in spec.breakdown.items():
                breakdown[column] = build(text, "expedition", f"scoring.breakdown.{column}")
    scoring = Scoring(formulas, breakdown)
    if domain is not None:
        check_scoring(scoring, domain, spec.constants, spec.tables, marks)
    return scoring


def _missing(marks: Mapping[str, Any], message: str, hint: str) -> Exception:
    mark = mark_for(marks, "scoring")
    if mark is None and marks:
        file = next(iter(marks.values()))[0]
        mark = (file, 0, 0, "")
    return Source("", "", mark).error(MISSING, message, hint=hint)

