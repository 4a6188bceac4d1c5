"""Each pack's scoring, compiled from its YAML, against the rule texts.

The worked examples of 000 and 002, one scenario per scoring sentence of the rule
texts (duel and board), and a property test comparing every duel pack's compiled
formula with an independent Python formula on random legal expeditions.
"""
from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.engine.packs import loader as packs
from lostcities.engine.errors import ScoringError
from lostcities.engine.packs.loader import builtin_dir, builtin_ids, load_pack, validate_pack
from lostcities.engine.game.rules import RulePack
from lostcities.grammar import REQUIRED, RoundScore, Scoring, compile_scoring


@lru_cache(maxsize=None)
def pack(pack_id: str) -> RulePack:
    return load_pack(pack_id)


DUEL = [i for i in builtin_ids() if pack(i).family == "duel"]
BOARD = [i for i in builtin_ids() if pack(i).family == "board"]


def row(pack_: RulePack, *cards: str) -> tuple[int, tuple[int, ...], int]:
    """(colour, values, wagers) of one row written in card notation."""
    codec = pack_.cards
    kinds = [codec.parse(c) for c in cards]
    colour = codec.colour_of[kinds[0]]
    values = tuple(codec.value_of[k] for k in kinds if codec.value_of[k] is not None)
    return colour, values, len(kinds) - len(values)


# -- 000: the duel rules' worked example ----------------------------------------------

EXAMPLE_000 = {
    "yellow": (("y5", "y8", "y10"), 3),
    "white": (("wx",), -40),
    "green": (("gx", "g3", "g5", "g7"), -10),
    "red": (("rx", "rx", "r2", "r3", "r5", "r7", "r8", "r10"), 65),   # 45 + the 20 bonus
}


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-six", "duel-equal"])
def test_worked_example_of_000(pack_id: str) -> None:
    p = pack(pack_id)
    rows = []
    for name, (cards, score) in EXAMPLE_000.items():
        r = row(p, *cards)
        assert p.scoring.expedition(*r) == score, name
        rows.append(r)
    blue = [c.name for c in p.colours].index("blue")  # "Pas d'expédition bleue": empty
    rows.append((blue, (), 0))
    assert p.scoring.expedition(blue, (), 0) == 0
    result = p.scoring.round(rows, [], 0, 0, 1)
    assert result.total == 18
    assert result.expeditions == (3, -40, -10, 65, 0)


def test_breakdown_of_000s_red_row() -> None:
    p = pack("duel-classic")
    assert p.scoring.columns == ("sum", "cost", "multiplier", "bonus")
    assert p.scoring.breakdown(*row(p, *EXAMPLE_000["red"][0])) == {
        "sum": 35, "cost": 20, "multiplier": 3, "bonus": 20}
    assert p.scoring.breakdown(*row(p, "wx")) == {
        "sum": 0, "cost": 20, "multiplier": 2, "bonus": 0}
    assert p.scoring.breakdown(4, (), 0) == {"sum": 0, "cost": 0, "multiplier": 1, "bonus": 0}


# -- 002: the online version's example ------------------------------------------------

def test_worked_example_of_002() -> None:
    p = pack("duel-classic")
    assert p.scoring.expedition(*row(p, "bx", "b2", "b6", "b7", "b8")) == 6
    assert p.scoring.expedition(*row(p, "wx", "w4", "w6", "w8", "w10")) == 16


# -- the duel's scoring sentences (000, 002, 003, 004) ---------------------------------

def test_cost_is_taken_before_the_multiplier_and_losses_multiply_too() -> None:
    # 002: "le résultat est multiplié par deux, trois ou quatre (même lorsque le
    # résultat est négatif !)"
    p = pack("duel-classic")
    assert p.scoring.expedition(*row(p, "gx", "gx", "gx", "g2")) == (2 - 20) * 4
    assert p.scoring.expedition(*row(p, "gx", "gx", "g9", "g10")) == (19 - 20) * 3


def test_untouched_row_scores_nothing() -> None:
    # 000: "vous n'obtenez ou ne perdez aucun point pour une Expédition qui ne comporte
    # pas de cartes"
    for pack_id in DUEL:
        assert pack(pack_id).scoring.expedition(0, (), 0) == 0


def test_bonus_from_eight_cards_wagers_included_never_multiplied() -> None:
    # 000/004: "au moins 8 cartes ... ce bonus n'est pas multiplié par les cartes Pari"
    p = pack("duel-classic")
    seven = row(p, "rx", "r2", "r3", "r4", "r5", "r6", "r7")
    eight = row(p, "rx", "r2", "r3", "r4", "r5", "r6", "r7", "r8")
    assert p.scoring.expedition(*seven) == (27 - 20) * 2
    assert p.scoring.expedition(*eight) == (35 - 20) * 2 + 20
    assert p.scoring.expedition(*row(p, "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9")) == 44 - 20 + 20


def test_grenoble_house_rule_constants() -> None:
    p = pack("duel-grenoble")
    assert p.scoring.expedition(*row(p, "r4", "r5")) == 9 - 15
    seven = row(p, "rx", "r2", "r3", "r4", "r5", "r6", "r7")
    assert p.scoring.expedition(*seven) == (27 - 15) * 2 + 20


def test_duel_match_adds_the_rounds() -> None:
    for pack_id in DUEL:
        assert pack(pack_id).scoring.match([18, -40, 7], 0, 0) == -15


# -- the board game's scoring sentences (001) --------------------------------------------

SPACES = (0, -20, -15, -10, 5, 10, 15, 30, 35, 50)   # board-classic's table


@pytest.mark.parametrize("pack_id", BOARD)
def test_leader_doubles_its_space_even_when_negative(pack_id: str) -> None:
    # 001: "Le chef double la valeur de sa case au décompte de la manche, y compris si
    # cette valeur est négative."
    pawn = pack(pack_id).scoring.pawn
    for space, value in enumerate(SPACES):
        assert pawn(2, space, False) == value
        assert pawn(2, space, True) == 2 * value
    assert pawn(0, 1, True) == -40


@pytest.mark.parametrize("pack_id", BOARD)
def test_round_value_never_below_zero_and_tokens_added_after(pack_id: str) -> None:
    # 001: "La valeur obtenue pour la manche ne descend pas sous zéro." The victory-point
    # tokens are kept whatever the pawns are worth ("Vous conservez vos jetons Points").
    scoring = pack(pack_id).scoring
    pawns = [(0, 1, True), (1, 2, False)]           # -40 and -15
    result = scoring.round([], pawns, 10, 1, 1)
    assert result == RoundScore(total=10, expeditions=(), pawns=(-40, -15))
    assert scoring.round([], pawns, 0, 0, 1).total == 0
    assert scoring.round([], [(0, 9, True), (1, 1, False)], 5, 0, 2).total == 100 - 20 + 5
    rows = [(0, (1, 2), 0)]                          # rows score nothing on the board
    assert scoring.round(rows, [], 0, 0, 1).expeditions == (0,)


@pytest.mark.parametrize("pack_id, scale", [
    ("board-classic", (-20, -10, -5, 0, 5, 10, 15, 20, 25, 30)),
    ("board-updown", (-20, -10, -5, 0, 5, 10, 15, 20, 25, 30)),
    ("board-short", (-10, -5, 0, 5, 10, 15, 20, 25, 30, 35)),
])
def test_artefact_scale_at_match_end(pack_id: str, scale: tuple[int, ...]) -> None:
    # 001: "Après la troisième manche, ajoutez le bonus ou la pénalité d'artefacts
    # indiqué par le barème"; the short game "utilise ... un autre barème d'artefacts".
    match = pack(pack_id).scoring.match
    for artefacts, bonus in enumerate(scale):
        assert match([30, 0, 12], artefacts, 0) == 42 + bonus
    assert match([30], 14, 0) == 30 + scale[-1]        # beyond the scale: its last value


# -- every duel pack against an independent formula -------------------------------------

@st.composite
def legal_rows(draw: st.DrawFn, pack_id: str) -> tuple[int, tuple[int, ...], int]:
    """A legal row of the pack: wagers first, values ordered as the pack orders them."""
    p = pack(pack_id)
    values = draw(st.lists(st.sampled_from(range(p.min_value, p.max_value + 1)), max_size=12))
    pool = sorted(values)
    if p.ordering == "strict":
        pool = sorted(set(pool))
    else:  # at most `copies` of a value
        pool = [v for i, v in enumerate(pool) if pool[:i].count(v) < p.copies]
    wagers = draw(st.integers(0, p.wagers))
    return draw(st.integers(0, len(p.colours) - 1)), tuple(pool), wagers


def independent(values: tuple[int, ...], wagers: int, cost: int, bonus: int,
                bonus_cards: int) -> int:
    """The duel expedition score as the rules say it, written without the DSL."""
    if not values and not wagers:
        return 0
    score = (sum(values) - cost) * (wagers + 1)
    return score + bonus if len(values) + wagers >= bonus_cards else score


RULE_CONSTANTS = {"duel-classic": (20, 20, 8), "duel-six": (20, 20, 8),
                  "duel-equal": (20, 20, 8), "duel-basic": (20, 20, 8),
                  "duel-grenoble": (15, 20, 7), "duel-deck-after-discard": (20, 20, 8),
                  "duel-late-wagers": (20, 20, 8)}


def test_every_duel_pack_is_covered() -> None:
    assert sorted(RULE_CONSTANTS) == sorted(DUEL)


@pytest.mark.parametrize("pack_id", DUEL)
def test_compiled_duel_formula_matches_independent_formula(pack_id: str) -> None:
    p = pack(pack_id)
    cost, bonus, bonus_cards = RULE_CONSTANTS[pack_id]

    @settings(max_examples=60, deadline=None)
    @given(legal_rows(pack_id))
    def check(r: tuple[int, tuple[int, ...], int]) -> None:
        colour, values, wagers = r
        expected = independent(values, wagers, cost, bonus, bonus_cards)
        assert p.scoring.expedition(colour, values, wagers) == expected
        assert p.scoring.expedition.compute(colour, list(values), wagers) == expected
        parts = p.scoring.breakdown(colour, values, wagers)
        if values or wagers:
            assert (parts["sum"] - parts["cost"]) * parts["multiplier"] + parts["bonus"] \
                == expected
        total = p.scoring.round([r, r], [], 0, 0, 1)
        assert total == RoundScore(2 * expected, (expected, expected), ())
    check()


# -- the Scoring object ---------------------------------------------------------------------

def test_scoring_is_compiled_once_per_pack() -> None:
    p = pack("duel-classic")
    assert isinstance(p.scoring, Scoring)
    assert p.scoring is p.scoring


def test_a_family_without_a_scope_scores_zero_there() -> None:
    duel, board = pack("duel-classic").scoring, pack("board-classic").scoring
    assert duel.pawn(0, 5, True) == 0
    assert board.expedition(0, (5, 6), 1) == 0
    assert board.breakdown(0, (5, 6), 1) == {} and board.columns == ()


def test_missing_formula_for_the_family() -> None:
    spec = pack("duel-classic").scoring_spec
    formulas = {k: v for k, v in spec.formulas.items() if k != "round"}
    with pytest.raises(ScoringError) as caught:
        compile_scoring(replace(spec, formulas=formulas), "duel")
    assert caught.value.code == "LC107"
    assert caught.value.message == "the duel family needs a `scoring.round` formula"
    with pytest.raises(ScoringError) as caught:
        compile_scoring(spec, "solitaire")
    assert caught.value.code == "LC107"


@pytest.mark.parametrize("base, scope", [(base, scope)
                                         for base in ("duel-classic", "board-classic")
                                         for scope in REQUIRED[pack(base).family]])
def test_a_missing_formula_is_reported_once(tmp_path, base: str, scope: str) -> None:
    """The loader's LC056 alone: `lc validate` does not repeat it as the DSL's LC107."""
    data = yaml.safe_load((builtin_dir() / f"{base}.yaml").read_text(encoding="utf-8"))
    del data["scoring"][scope]
    path = tmp_path / f"without-{scope}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert [p.code for p in validate_pack(str(path)).problems] == ["LC056"]
    result = CliRunner().invoke(app, ["validate", "--format", "json", str(path)])
    problems = json.loads(result.stdout)["packs"][0]["problems"]
    assert result.exit_code == 1 and [p["code"] for p in problems] == ["LC056"]
    assert f"`scoring.{scope}`" in problems[0]["message"]


def test_the_loader_and_the_dsl_require_the_same_formulas() -> None:
    assert packs._REQUIRED_FORMULAS == REQUIRED  # else one of LC056/LC107 would fire alone


def test_pack_formula_errors_point_at_the_formula_key() -> None:
    spec = pack("duel-classic").scoring_spec
    bad = replace(spec, formulas={**spec.formulas, "match": "sum(r for r in round)"})
    with pytest.raises(ScoringError) as caught:
        compile_scoring(bad, "duel")
    err = caught.value
    assert err.code == "LC102" and err.file.endswith("duel-classic.yaml")
    assert err.message == "unknown field `round` in scoring.match"
    problem = err.as_problem()
    assert (problem.line, problem.col) == (err.line, err.col) and problem.line > 0


def test_memo_is_bounded_and_agrees_with_the_closures() -> None:
    from lostcities.grammar import runner

    scoring = compile_scoring(pack("duel-classic").scoring_spec, "duel")
    for n in range(runner.MEMO_SIZE + 50):
        values = (n,)
        assert scoring.expedition(0, values, 0) == scoring.expedition.compute(0, values, 0)
    assert len(scoring.expedition.memo) == runner.MEMO_SIZE


def test_memo_keeps_colour_apart_when_the_formula_reads_it() -> None:
    spec = pack("duel-classic").scoring_spec
    coloured = replace(spec, formulas={**spec.formulas, "expedition": "points + colour * 100"})
    scoring = compile_scoring(coloured, "duel")
    assert scoring.expedition(0, (5,), 0) == 5
    assert scoring.expedition(3, (5,), 0) == 305


@pytest.mark.parametrize("pack_id", BOARD)
def test_compiled_board_formulas_match_independent_formulas(pack_id: str) -> None:
    p = pack(pack_id)
    spaces = p.scoring_spec.tables["spaces"]
    scale = p.scoring_spec.tables["artefact_scale"]
    pawn_places = st.tuples(st.integers(0, len(p.colours) - 1),
                            st.integers(0, p.board.spaces), st.booleans())

    @settings(max_examples=60, deadline=None)
    @given(st.lists(pawn_places, max_size=p.board.pawns), st.integers(0, 40),
           st.integers(0, 12), st.lists(st.integers(0, 300), min_size=1, max_size=3))
    def check(pawns, tokens, artefacts, rounds) -> None:
        values = [spaces[s] * (2 if leader else 1) for _, s, leader in pawns]
        result = p.scoring.round([], pawns, tokens, artefacts, 1)
        assert result.pawns == tuple(values)
        assert result.total == max(0, sum(values)) + tokens
        assert p.scoring.match(rounds, artefacts, tokens) == \
            sum(rounds) + scale[min(artefacts, len(scale) - 1)]
    check()
