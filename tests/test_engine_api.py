"""The engine's public API: moves and their text, action ids, purity, undo, sampling, docs."""
from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest

from enginehelpers import builtin_ids, complete_deal, derived, duel_ids, pack, play_out
from lostcities.engine import Refusal, errors
from lostcities.engine.game.moves import (DECK, ActionSpace, Move, action_space, actions_to_move,
                                     move_to_actions, num_actions)
from lostcities.engine.game.steps import draw_ok, draw_sources
from lostcities.engine.game.turn import (apply, illegal_reason, is_legal, is_over,
                                         legal_action_mask, legal_actions, legal_moves, new_game,
                                         pop, push, push_action, random_move, step, why_illegal)

ROOT = Path(__file__).resolve().parent.parent


def some_states(pack_id, seed=0, every=7, players=None):
    p = pack(pack_id)
    s = new_game(p, players or p.min_players, seed)
    for i, st in enumerate(play_out(s, random.Random(seed))):
        if i % every == 0 and not is_over(st):
            yield st.copy()


# -- moves and their text form

def test_move_text_examples():
    p = pack("duel-classic")
    m = Move.parse("d r5 g", p)
    assert (m.action, p.cards.format(m.card), m.draw) == ("discard", "r5", 3)
    assert str(Move.parse("PLAY R5 DECK", p)) == "p r5 deck"
    assert Move.parse("p r5", p).draw is None and str(Move.parse("p r5", p)) == "p r5"
    assert str(Move.parse("p rx deck", p)) == "p rx deck"


@pytest.mark.parametrize("text,message", [
    ("", "write p (play) or d (discard)"),
    ("x r5 deck", "unknown action 'x'"),
    ("p q5 deck", "unknown colour 'q'"),
    ("p r11 deck", "outside 2-10"),
    ("p r5 sky", "neither 'deck' nor a colour key"),
    ("p r5 deck g", "unexpected 'deck'"),
])
def test_bad_move_text_is_one_clear_line(text, message):
    with pytest.raises(errors.InvalidMoveError, match=re.escape(message)) as info:
        Move.parse(text, pack("duel-classic"))
    assert "\n" not in str(info.value)


def test_apply_accepts_text_and_names_the_move_when_illegal():
    p = pack("duel-classic")
    s = new_game(p, 2, 0, deals=[complete_deal(p, ["r2 r3 r4 r5 r6 r7 r8 r9", "b2"])])
    assert apply(s, "p r2 deck").rows[0][4] == [p.cards.parse("r2")]
    with pytest.raises(errors.IllegalMoveError, match=r"^d r2 r: you cannot take back the card you just discarded \(r2\)$"
                       ) as info:
        apply(s, "d r2 r")
    assert info.value.refusal == Refusal("illegal.retake", {"card": "r2"})


# -- action ids

def test_action_space_layout():
    p = pack("duel-classic")
    space = action_space(p)
    assert num_actions(p) == space.num_actions == 2 * 50 + 1 + 5
    assert space.name(p.cards.parse("r5")) == "play r5"
    assert space.name(50 + p.cards.parse("rx")) == "discard rx"
    assert space.name(100) == "draw deck" and space.name(104) == "draw g"
    assert space.ranges["pawn"] == range(106, 106) and space.ranges["advance"].stop == 106
    board = ActionSpace(pack("board-classic"))
    assert len(board.ranges["pawn"]) == 5 and len(board.ranges["advance"]) == 5
    with pytest.raises(errors.InvalidMoveError, match="outside 0-105"):
        space.decode(106)


def test_moves_and_action_sequences_round_trip():
    for pid in duel_ids():
        p = pack(pid)
        for s in list(some_states(pid, every=50))[:4]:
            for m in legal_moves(s):
                ids = move_to_actions(p, m)
                assert len(ids) == (1 if m.draw is None else 2)
                assert actions_to_move(p, ids) == m


def test_stepping_decisions_equals_applying_the_move():
    for pid in duel_ids():
        p = pack(pid)
        for s in list(some_states(pid, every=31))[:8]:
            m = legal_moves(s)[len(legal_moves(s)) // 2]
            ids = move_to_actions(p, m)
            t = s
            for a in ids:
                mask = legal_action_mask(t)
                assert mask[a] and sum(mask) == len(legal_actions(t))
                t = step(t, a)
            assert t.snapshot() == apply(s, m).snapshot()


def test_the_draw_decision_offers_only_the_legal_draws():
    p = pack("duel-classic")
    s = new_game(p, 2, 0, deals=[complete_deal(p, ["r2 r3", "b2"])])
    s = apply(s, "d r2 deck")
    s = apply(s, "d b2 deck")
    space = action_space(p)
    t = step(s, space.card_action("discard", p.cards.parse("r3")))
    assert [space.name(a) for a in legal_actions(t)] == ["draw deck", "draw b"]
    assert {str(m) for m in legal_moves(t)} == {"d r3 deck", "d r3 b"}
    with pytest.raises(errors.IllegalMoveError, match="draw r"):
        step(t, space.draw_action(4))
    with pytest.raises(errors.InvalidMoveError):
        step(t, 10_000)


# -- purity and undo

def test_apply_and_step_never_change_their_input():
    for pid in duel_ids():
        for s in list(some_states(pid, every=23))[:10]:
            before = s.snapshot()
            for m in legal_moves(s)[::9]:
                apply(s, m)
            for a in legal_actions(s)[::3]:
                step(s, a)
            assert s.snapshot() == before


def test_pop_restores_exactly_across_turns_rounds_and_the_match_end():
    for pid in duel_ids():
        p = pack(pid)
        rng = random.Random(1)
        s = new_game(p, p.max_players, 11)
        snaps = [s.snapshot()]
        while not is_over(s):
            push(s, random_move(s, rng))
            snaps.append(s.snapshot())
        rounds = len(s.finished)
        assert rounds == p.rounds
        while len(snaps) > 1:
            snaps.pop()
            pop(s)
            assert s.snapshot() == snaps[-1]
        with pytest.raises(IndexError):
            pop(s)


def test_push_action_and_pop_undo_single_decisions():
    p = pack("duel-equal")
    s = new_game(p, 2, 3)
    rng = random.Random(3)
    for _ in range(300):
        before = s.snapshot()
        a = rng.choice(legal_actions(s))
        push_action(s, a)
        after = s.snapshot()
        pop(s)
        assert s.snapshot() == before
        push_action(s, a)
        assert s.snapshot() == after


# -- legality helpers agree with each other

def test_constant_time_draw_check_agrees_with_the_draw_list():
    for pid in duel_ids():
        p = pack(pid)
        for s in some_states(pid, every=13):
            for discarded in range(-1, len(p.colours)):
                allowed = draw_sources(s, discarded)
                for d in [None, DECK, *range(len(p.colours))]:
                    assert draw_ok(s, discarded, d) == (d in allowed)


def test_fast_legality_path_agrees_with_the_full_reasons():
    rng = random.Random(5)
    for pid in duel_ids():
        p = pack(pid)
        for s in list(some_states(pid, every=17))[:12]:
            legal = set(legal_moves(s))
            for _ in range(40):
                m = Move(rng.choice(["play", "discard"]), rng.randrange(p.cards.n_kinds),
                         rng.choice([None, DECK, *range(len(p.colours))]))
                assert (illegal_reason(s, m) is None) == (why_illegal(s, m) is None) \
                    == (m in legal) == is_legal(s, m)


# -- uniform random moves

@pytest.mark.parametrize("pack_id,sections", [
    ("duel-classic", {}),
    ("duel-classic", {"turn": {"no_retake_discard": False}}),
    ("duel-equal", {"hand_size": 29}),
])
def test_random_move_is_uniform_over_the_legal_moves(pack_id, sections):
    p = derived(pack_id, **sections)
    rng = random.Random(9)
    s = new_game(p, 2, 2)
    if sections.get("hand_size"):  # the last play, without drawing
        while not s.last_play:
            push(s, random_move(s, rng))
    else:
        for _ in range(25):  # a position with some discard piles
            push(s, random_move(s, rng))
    legal = legal_moves(s)
    draws = 8000 if len(legal) < 200 else 20000
    counts = Counter(random_move(s, rng) for _ in range(draws))
    assert set(counts) == set(legal)
    expected = draws / len(legal)
    chi2 = sum((counts[m] - expected) ** 2 / expected for m in legal)
    # 99.9% quantile of chi-square with k-1 degrees of freedom, Wilson-Hilferty
    k = len(legal) - 1
    limit = k * (1 - 2 / (9 * k) + 3.09 * (2 / (9 * k)) ** 0.5) ** 3
    assert chi2 < limit


# -- determinism

def test_same_seed_same_match_other_seed_other_match():
    p = pack("duel-classic")

    def moves(seed):
        return [str(m) for m in _play(p, seed)]

    assert moves(4) == moves(4)
    assert moves(4) != moves(5)


def _play(p, seed):
    s = new_game(p, 2, seed)
    rng = random.Random(seed)
    while not is_over(s):
        push(s, random_move(s, rng))
    return [m for r in s.finished for m in r.moves]


def test_new_game_rejects_bad_arguments():
    p = pack("duel-classic")
    with pytest.raises(errors.LostCitiesError, match="seed must be an integer"):
        new_game(p, 2, "x")  # type: ignore[arg-type]
    with pytest.raises(errors.LostCitiesError, match="hand 2 has 7 cards"):
        new_game(p, 2, 0, deals=[_short_hand(p)])


def _short_hand(p):
    from lostcities.engine.game.state import Deal

    d = complete_deal(p, [""], players=2)
    return Deal((d.hands[0], d.hands[1][:7]), d.draw_pile + d.hands[1][7:], d.removed)


# -- rules are data: no pack id in the engine's code

def code_strings(source: str) -> list[str]:
    """Every string constant of a module's code, docstrings left out."""
    import ast

    tree = ast.parse(source)
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in docs]


def test_no_built_in_pack_id_appears_in_engine_code():
    ids = builtin_ids()
    assert "duel-classic" in ids
    assert code_strings('"""doc naming duel-classic"""\nx = "duel-classic"') == ["duel-classic"]
    paths = sorted((ROOT / "engine").rglob("*.py"))  # every concern's package too
    assert any(path.parent.name == "game" for path in paths)
    for path in paths:
        for text in code_strings(path.read_text()):
            for pid in ids:
                where = path.relative_to(ROOT)
                assert pid not in text, f"{where} names the pack {pid} in {text!r}"


# -- docs/api.md's example runs

def test_api_doc_example_runs():
    text = (ROOT / "docs" / "api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "docs/api.md has a python example"
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/api.md", "exec"), namespace)


def test_public_names_stay_functions_after_every_submodule_is_imported():
    import importlib
    import types

    import lostcities.engine as engine

    for path in sorted((ROOT / "engine").rglob("*.py")):  # every concern's package too
        parts = path.relative_to(ROOT / "engine").with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        importlib.import_module(".".join(("lostcities.engine", *parts)))
    for name in engine.__all__:
        assert not isinstance(getattr(engine, name), types.ModuleType), name
