"""A change of speed is never a change of play (issue #15): seeded games digested move by move.

Each case plays seeded games of a built-in pack (every pack, board packs included, at its
fewest and most players) and digests every move of every round, with the round scores,
into one SHA-256. The digests below were computed from the engine *before* its hot path
was made faster; every later speed step must give the very same games:

* ``playout``: the engine's random playout (``random_move`` + ``push``, fused or not);
* ``moves``: the loop docs/api.md teaches, a uniform choice in ``legal_moves`` then ``apply``;
* ``actions``: the action-id loop, a uniform choice in ``legal_actions`` then ``step``
  (and the same choice from ``legal_action_mask``);
* ``match-*``: ``play_match`` with the random, greedy and expert bots;
* ``ismcts``: a few decisions of the search bot, which plays on copies with ``push``.

Regenerate (only when the rules themselves change, never for speed):
``python tests/test_seeded_digests.py``.
"""
from __future__ import annotations

import hashlib
import random
import sys
from typing import Callable, Iterator

import pytest

from enginehelpers import builtin_ids, pack
from lostcities.engine import (SeatView, apply, is_over, legal_action_mask, legal_actions,
                               legal_moves, make_bot, new_game, play_match, playout, step,
                               totals)

SEEDS = (0, 1, 2)


def _players(p) -> list[int]:
    return sorted({p.min_players, p.max_players})


def _digest_games(states: Iterator) -> str:
    h = hashlib.sha256()
    for state in states:
        codec = state.pack.cards
        for r in state.finished:
            h.update(f"R{r.number} s{r.starter} {r.end} {r.scores}|".encode())
            h.update(" ".join(m.text(codec) for m in r.moves).encode())
            h.update(b"\n")
        h.update(f"T{totals(state)}\n".encode())
    return h.hexdigest()[:32]


def _by_moves(p, n: int, seed: int):
    state, rng = new_game(p, n, seed), random.Random(seed)
    while not is_over(state):
        state = apply(state, rng.choice(legal_moves(state)))
    return state


def _by_actions(p, n: int, seed: int, mask: bool = False):
    state, rng = new_game(p, n, seed), random.Random(seed)
    while not is_over(state):
        if mask:
            ids = [a for a, ok in enumerate(legal_action_mask(state)) if ok]
        else:
            ids = legal_actions(state)
        state = step(state, rng.choice(ids))
    return state


def _matches(p, n: int, seeds, spec: tuple[str, ...]):
    for seed in seeds:
        bots = [make_bot(spec[i % len(spec)]) for i in range(n)]
        yield play_match(p, bots, seed)


def _ismcts_choices(p) -> str:
    """Three decisions of ismcts@1 from positions reached by random play."""
    bot = make_bot("ismcts@1")
    out = []
    for seed in (0, 1, 2):
        state, rng = new_game(p, 2, seed), random.Random(seed)
        for _ in range(10 + 7 * seed):
            state = apply(state, rng.choice(legal_moves(state)))
        move = bot.choose(SeatView(state, state.to_move, random.Random(seed)))
        out.append(move.text(p.cards))
    return hashlib.sha256(" ".join(out).encode()).hexdigest()[:32]


def cases() -> dict[str, Callable[[], str]]:
    """Every case's name and how to compute its digest."""
    out: dict[str, Callable[[], str]] = {}
    for pid in builtin_ids():
        p = pack(pid)
        board = p.board is not None
        for n in _players(p):
            key = f"{pid}@{n}"
            out[f"playout {key}"] = (lambda p=p, n=n: _digest_games(
                playout(new_game(p, n, s), random.Random(s)) for s in SEEDS))
            out[f"moves {key}"] = (lambda p=p, n=n: _digest_games(
                _by_moves(p, n, s) for s in SEEDS[:2]))
            out[f"actions {key}"] = (lambda p=p, n=n: _digest_games(
                _by_actions(p, n, s) for s in SEEDS[:2]))
            out[f"match-random-greedy {key}"] = (lambda p=p, n=n: _digest_games(
                _matches(p, n, SEEDS, ("random", "greedy"))))
        n = p.min_players
        out[f"match-expert-greedy {pid}@{n}"] = (lambda p=p, n=n: _digest_games(
            _matches(p, n, SEEDS[:1 if board else 2], ("expert", "greedy"))))
    out["ismcts duel-classic@2"] = lambda: _ismcts_choices(pack("duel-classic"))
    return out


#: computed from the engine before the speed work of issue #15 (see the module docstring)
DIGESTS: dict[str, str] = {
    'actions board-classic@2': 'e8e2ac28174844f3e959bf346e384e86',
    'actions board-classic@4': '1ccc9e82bcb3302aed1dc4d72de07c2f',
    'actions board-short@2': '6ad1f9191c9542616771925739f010ea',
    'actions board-short@4': '43701ca1e13e236f556ab5f2c2781a70',
    'actions board-updown@2': 'c4400790f1fae3196cbee80fdf0d48f1',
    'actions board-updown@4': '69b171580181c4da89ebdbb141ac66be',
    'actions duel-basic@2': '01ed7395241c8f3db68fa5c6ef1330fa',
    'actions duel-classic@2': '8b447881deaef9f91f31b55d8f2d6801',
    'actions duel-deck-after-discard@2': 'a6553a58e26fdfdeb4fed8ac39cab30b',
    'actions duel-equal@2': 'b0cb2a8182341dec5374f08453804a21',
    'actions duel-grenoble@3': 'c3dfb60db22cc44355ec87194c6c6b11',
    'actions duel-grenoble@4': 'f6b95654d51aac69c804472369d54525',
    'actions duel-late-wagers@2': '594fa92cdadec004513cfb20713dc9ce',
    'actions duel-six@2': 'ec824d9f59c05762b7d46c4c547aa145',
    'ismcts duel-classic@2': '3041b6b5a138c2fd3b92cd6f64ffad28',
    'match-expert-greedy board-classic@2': '63d5f27607440a987cffed1302e4059d',
    'match-expert-greedy board-short@2': '8c7014c789eaeb81fa0d51f0862cf827',
    'match-expert-greedy board-updown@2': 'b86d85cf199ca8bce43de7090d2d47e9',
    'match-expert-greedy duel-basic@2': '93a85030e1144a8736b0c9eae9ffc9ce',
    'match-expert-greedy duel-classic@2': 'e196f6670dab76c0789f9577a78d3e39',
    'match-expert-greedy duel-deck-after-discard@2': 'e196f6670dab76c0789f9577a78d3e39',
    'match-expert-greedy duel-equal@2': '683f262c64cf966d7c09966b1369beb8',
    'match-expert-greedy duel-grenoble@3': 'a7f67dc61d5ae98ca8db5c3534ac27bf',
    'match-expert-greedy duel-late-wagers@2': '6ef57a8b69f1c85d0d32a6636ed6c82a',
    'match-expert-greedy duel-six@2': 'a2aea40a5a0f3664413ff8df585526ee',
    'match-random-greedy board-classic@2': 'a0b0fcd9eaaf3351ec82d75971260369',
    'match-random-greedy board-classic@4': '8f8e3c45c09e0bca6c7e1dfbef57a7c6',
    'match-random-greedy board-short@2': '8b922642185c2966e96e882ff8f3fe97',
    'match-random-greedy board-short@4': '7f2344f60ded4e33ffef89bd32806aeb',
    'match-random-greedy board-updown@2': '342895477cb949e15a394c2e5e092eef',
    'match-random-greedy board-updown@4': 'cc5d9719948c903f09a01ba48517d1b4',
    'match-random-greedy duel-basic@2': 'ba0cdfc3110ba815482623e4859b2052',
    'match-random-greedy duel-classic@2': '8a124e4ba153fd5bb9bf9c7fb914b91c',
    'match-random-greedy duel-deck-after-discard@2': '7be6da3c402611e709a43191d930dd5a',
    'match-random-greedy duel-equal@2': 'acf8f9663d0b3854b8cc59307316a85c',
    'match-random-greedy duel-grenoble@3': '14006410a5ba9ef92535ff105ab8860a',
    'match-random-greedy duel-grenoble@4': '3275bef8f89d49411c47deb29d6c0b9d',
    'match-random-greedy duel-late-wagers@2': '811543bfbeb2cb332e69a2a9a2c16a5e',
    'match-random-greedy duel-six@2': '6372c448e990a18ad4f24a38cdf06079',
    'moves board-classic@2': '73101c6d9f9aa0223f49d2372ad8ac2b',
    'moves board-classic@4': 'a9e39ca876030961e379c3ed99f29e90',
    'moves board-short@2': '7561a4a7d7091a28beb37150642a1e63',
    'moves board-short@4': '137645c69fa4e957cd356f299bdff20e',
    'moves board-updown@2': '1dbf44f4abde9e5e6427c4cc6141c4fb',
    'moves board-updown@4': 'ab7e976f7ebeb35af729bcdb3a7c6f17',
    'moves duel-basic@2': '65f1fa1080ffae8c178d140188a8a2ad',
    'moves duel-classic@2': 'd3f82ba3ceb4098eddca0d3e1768e1bd',
    'moves duel-deck-after-discard@2': '17fc3ac9e723ca9006d124794fd4706a',
    'moves duel-equal@2': 'bf451ed3faf3b879e008990764f24656',
    'moves duel-grenoble@3': '6b1bf0fdfd0581ff613ecd1ee25c6487',
    'moves duel-grenoble@4': '5a8d1a6b16842e549dbf1f754f662fe5',
    'moves duel-late-wagers@2': 'c6f6003fd7a6db2d0d6145d7fd26a973',
    'moves duel-six@2': '9d8c264cae23e325aa4351b060102822',
    'playout board-classic@2': '4a21352117b969846edb2673061d6db6',
    'playout board-classic@4': 'ea43b0b4bc46f84ef9bb2e84bc8a4ffa',
    'playout board-short@2': 'bef58145d2df0c787941b6e59b97630e',
    'playout board-short@4': 'bcab1f56925069d050050a91e3a05204',
    'playout board-updown@2': 'dde0899f6362c6b02f3131e8ef9f7276',
    'playout board-updown@4': 'ee1da77b6929d08785abcfe26f9193c4',
    'playout duel-basic@2': '84f269515dbdc8d87590e7a05477cd66',
    'playout duel-classic@2': 'f42387b4099e80078c0bdd72355f3adb',
    'playout duel-deck-after-discard@2': '1253e3fc12a84799b729009c28816078',
    'playout duel-equal@2': '683ed9ab4157553527964cec1155798c',
    'playout duel-grenoble@3': '88e68679c83ee17f537dd16e6a6c6cee',
    'playout duel-grenoble@4': 'f94cb85d5c63eab1f9c92b7ee4341cba',
    'playout duel-late-wagers@2': '69d06ad6f9570fb4b370191a01dc9a7b',
    'playout duel-six@2': '89c360e797cb8d0764e918194609e96e',
}


@pytest.mark.parametrize("name", sorted(cases()))
def test_seeded_games_play_move_for_move_as_before(name):
    assert cases()[name]() == DIGESTS[name], f"{name}: the games changed"


@pytest.mark.parametrize("pack_id", ["duel-classic", "duel-grenoble", "board-classic"])
def test_the_action_mask_chooses_what_legal_actions_chooses(pack_id):
    p = pack(pack_id)
    n = p.min_players
    for seed in SEEDS[:2]:
        assert _digest_games([_by_actions(p, n, seed, mask=True)]) == \
            _digest_games([_by_actions(p, n, seed)])


if __name__ == "__main__":
    for name, compute in sorted(cases().items()):
        print(f"    {name!r}: {compute()!r},", flush=True)
        sys.stdout.flush()
