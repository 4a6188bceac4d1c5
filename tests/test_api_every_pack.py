"""The shared api check (tests/api_check.py) on every pack: each built-in pack, each pack
file under rulepacks/ that is not one (house packs), and the house-pack fixtures of
tests/fixtures/packs/valid. And the check itself fails on an engine with a planted bug.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import lostcities.engine as engine
from api_check import check_api
from enginehelpers import builtin_ids, pack

ROOT = Path(__file__).resolve().parents[1]
#: games per pack: the fewest and the most players; each game played to the end
GAMES = 2
SEED = 28


def _pack_files() -> list[str]:
    """Every pack file under rulepacks/ but the built-in packs, and the house fixtures."""
    builtin = {ROOT / "rulepacks" / f"{pid}.yaml" for pid in builtin_ids()}
    house = [p for p in sorted((ROOT / "rulepacks").rglob("*.yaml")) if p not in builtin]
    fixtures = sorted((ROOT / "tests" / "fixtures" / "packs" / "valid").glob("*.yaml"))
    return [str(p.relative_to(ROOT)) for p in house + fixtures]


PACKS = [*builtin_ids(), *_pack_files()]


def test_every_built_in_pack_is_a_file_under_rulepacks():
    assert builtin_ids() and all((ROOT / "rulepacks" / f"{pid}.yaml").is_file()
                                 for pid in builtin_ids())


@pytest.mark.parametrize("name", PACKS)
def test_the_api_contract_holds(name):
    check_api(pack(name) if "/" not in name else engine.load_pack(str(ROOT / name)), SEED, GAMES)


# -- the check can fail: a bug planted in the engine's API is caught, with what broke

def _dropping_the_last(real):
    return lambda *args: real(*args)[:-1]


def _apply_in_place(real):
    def apply(state, move):
        after = real(state, move)
        engine.push(state, move)
        return after
    return apply


def _showing_the_next_hand(real):
    def observation(state, seat):
        view = real(state, seat)
        return dataclasses.replace(view, pile_sizes=tuple(state.hands[(seat + 1) % state.n]))
    return observation


def _popping_twice(real):
    def pop(state):
        real(state)
        if state.undo:
            real(state)
    return pop


def _everybody_wins(real):
    return lambda state: tuple(range(state.n))


@pytest.mark.parametrize("name, plant, caught", [
    ("legal_actions", _dropping_the_last, "are not the ids legal_action_mask sets"),
    ("legal_moves", _dropping_the_last, "are not the moves the legal action ids complete"),
    ("apply", _apply_in_place, r"apply\(.*\) changed its state"),
    ("observation", _showing_the_next_hand, "observation changes with cards it cannot see"),
    ("pop", _popping_twice, "pop did not restore"),
    ("winners", _everybody_wins, "do not hold the best total"),
])
def test_a_planted_bug_fails_the_check(monkeypatch, name, plant, caught):
    p = pack("duel-classic")
    check_api(p, SEED, 1)  # sound as shipped
    monkeypatch.setattr(engine, name, plant(getattr(engine, name)))
    with pytest.raises(AssertionError, match=caught):
        check_api(p, SEED, 1)
