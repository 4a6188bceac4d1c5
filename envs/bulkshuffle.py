"""Many shuffles at once, each equal to Python's ``random.Random(key).shuffle``.

The engine deals round ``r`` of the match of seed ``s`` by shuffling the pack's deck with
``random.Random(f"lostcities:{s}:{r}")`` (docs/api.md). The batched engine needs thousands of
such deals a second; :func:`shuffle_orders` computes them with numpy, all keys together:
Python's string seeding (the key's bytes followed by their SHA-512, as one big-endian
integer, fed to MT19937's ``init_by_array``), the generator's first outputs, and the
shuffle's rejection sampling (``_randbelow`` by ``getrandbits``), each step vectorised over
the keys. A key whose shuffle needs more outputs than are computed is shuffled by Python
itself, so every row is exactly ``random.Random(key).shuffle``'s permutation.
"""
from __future__ import annotations

import hashlib
import random
from typing import Sequence

import numpy as np

_N, _M = 624, 397
#: at most this many keys' generator states at once (each 624 uint32)
CHUNK = 16384
#: generator outputs computed per key and card (a 60-card shuffle needs about 85 outputs,
#: rarely above 120), at most the 227 of the state's first twist
OUTPUTS_PER_CARD = 2.5


def _init_genrand(s: int) -> np.ndarray:
    mt = [s]
    for i in range(1, _N):
        prev = mt[-1]
        mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return np.array(mt, np.uint32)


_BASE = _init_genrand(19650218)


def _key_words(keys: Sequence[str]) -> dict[int, tuple[list[int], np.ndarray]]:
    """Python's seed words of each key, grouped by their count: ``{L: (indices, (L, B))}``
    (least significant word first, as ``init_by_array`` reads them)."""
    sha = hashlib.sha512
    groups: dict[int, tuple[list[int], list[bytes]]] = {}
    for i, key in enumerate(keys):
        b = key.encode()
        b += sha(b).digest()
        words = (len(b) + 3) // 4
        idx, raw = groups.setdefault(words, ([], []))
        idx.append(i)
        raw.append(bytes(4 * words - len(b)) + b)
    out = {}
    for words, (idx, raw) in groups.items():
        arr = np.frombuffer(b"".join(raw), ">u4").reshape(len(idx), words)
        out[words] = (idx, np.ascontiguousarray(arr[:, ::-1].T).astype(np.uint32))
    return out


def _states(kw: np.ndarray) -> np.ndarray:
    """``init_by_array`` of each column of ``kw (L, B)``: the states ``(624, B)``."""
    L, B = kw.shape
    mt = np.empty((_N, B), np.uint32)
    mt[:] = _BASE[:, None]
    tmp = np.empty(B, np.uint32)
    m1, m2 = np.uint32(1664525), np.uint32(1566083941)
    # init_by_array adds key word j and j: added together once (uint32 wraps the same)
    kw = kw + np.arange(L, dtype=np.uint32)[:, None]
    i = 1
    for k in range(max(_N, L)):
        p = mt[i - 1]
        np.right_shift(p, 30, out=tmp)
        np.bitwise_xor(tmp, p, out=tmp)
        np.multiply(tmp, m1, out=tmp)
        row = mt[i]
        np.bitwise_xor(row, tmp, out=row)
        np.add(row, kw[k % L], out=row)
        i += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
    for _ in range(_N - 1):
        p = mt[i - 1]
        np.right_shift(p, 30, out=tmp)
        np.bitwise_xor(tmp, p, out=tmp)
        np.multiply(tmp, m2, out=tmp)
        row = mt[i]
        np.bitwise_xor(row, tmp, out=row)
        np.subtract(row, np.uint32(i), out=row)
        i += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
    mt[0] = 0x80000000
    return mt


def _outputs(mt: np.ndarray, count: int) -> np.ndarray:
    """The first ``count`` (at most 227) tempered outputs of each state: ``(count, B)``."""
    u = np.uint32
    x = np.bitwise_and(mt[:count], u(0x80000000))      # two arrays, the rest in place
    t = np.bitwise_and(mt[1:count + 1], u(0x7FFFFFFF))
    x |= t                                              # y
    np.bitwise_and(x, u(1), out=t)
    t *= u(0x9908B0DF)
    x >>= u(1)
    x ^= mt[_M:_M + count]
    x ^= t                                              # the twisted word, then tempered
    np.right_shift(x, u(11), out=t)
    x ^= t
    np.left_shift(x, u(7), out=t)
    t &= u(0x9D2C5680)
    x ^= t
    np.left_shift(x, u(15), out=t)
    t &= u(0xEFC60000)
    x ^= t
    np.right_shift(x, u(18), out=t)
    x ^= t
    return x


def _shuffle(out: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The permutations of ``range(size)`` that ``shuffle`` makes from the outputs ``out
    (count, B)``, and which keys ran out of outputs (their rows are then wrong)."""
    count, B = out.shape
    cols = np.arange(B)
    order = np.tile(np.arange(size, dtype=np.int16), (B, 1))
    ptr = np.zeros(B, np.int64)
    last = count - 1
    for i in range(size - 1, 0, -1):
        n = i + 1
        shift = 32 - n.bit_length()
        r = out[np.minimum(ptr, last), cols] >> shift
        bad = np.flatnonzero(r >= n)
        while len(bad):
            ptr[bad] += 1
            r[bad] = out[np.minimum(ptr[bad], last), bad] >> shift
            bad = bad[(r[bad] >= n) & (ptr[bad] <= last)]
        ptr += 1
        r = np.minimum(r, np.uint32(i))  # only where outputs ran out (redone by Python)
        j = r.astype(np.int64)
        held = order[:, i].copy()
        order[:, i] = order[cols, j]
        order[cols, j] = held
    return order, ptr > last


def shuffle_orders(keys: Sequence[str], size: int) -> np.ndarray:
    """``(len(keys), size)`` int16: row ``i`` is ``list(range(size))`` after
    ``random.Random(keys[i]).shuffle`` (so ``[deck[j] for j in row]`` is the shuffled deck)."""
    result = np.empty((len(keys), size), np.int16)
    if not len(keys) or size < 1:
        return result
    count = min(227, int(OUTPUTS_PER_CARD * size) + 8)
    for start in range(0, len(keys), CHUNK):
        part = keys[start:start + CHUNK]
        for idx, kw in _key_words(part).values():
            order, short = _shuffle(_outputs(_states(kw), count), size)
            rows = np.array(idx) + start
            result[rows] = order
            for i in np.flatnonzero(short).tolist():
                again = list(range(size))
                random.Random(part[idx[i]]).shuffle(again)
                result[rows[i]] = again
    return result


def agrees_with_python() -> bool:
    """Whether :func:`shuffle_orders` gives this Python's ``random.shuffle`` permutations on
    a few keys (checked before the batched engine relies on it)."""
    keys = [f"lostcities:{s}:{r}" for s in (0, 7, -3, 10**12) for r in (1, 2)]
    got = shuffle_orders(keys, 60)
    for key, row in zip(keys, got.tolist()):
        want = list(range(60))
        random.Random(key).shuffle(want)
        if row != want:
            return False
    return True
