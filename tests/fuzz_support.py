"""Mutators and checks shared by the fuzz tests (tests/test_fuzz_*.py) and the long run
(tests/fuzz/run.py).

The promise of issue #12: bad input of any kind gets one clear line, exit 1 or 2, and
nothing else happens. The library side of it is that only
:class:`~lostcities.engine.errors.LostCitiesError` comes out; the CLI side is an exit
code in {0, 1, 2}, at most one ``lc: error:`` line on stderr, no traceback, no raw
control character from the data on the terminal, and no hang or runaway memory.

Every mutator here takes a :class:`random.Random` and the text (or parsed JSON) to
mutate, so that hypothesis (``st.randoms(use_true_random=False)``: reproducible and
shrinkable) and the plain random loop of the long run draw the same inputs.

Nothing in this module is a test: it holds no ``test_`` names.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

# ---------------------------------------------------------------------- hostile values

#: number texts: past Python's 4,300-digit int conversion limit, hex, overflow to inf, nan
HOSTILE_NUMBERS: tuple[str, ...] = (
    "1" + "0" * 5000,
    "-" + "9" * 4400,
    "0x" + "f" * 5000,
    "0x7fffffffffffffffffff",
    "0o" + "7" * 3000,
    "1e999",
    "-1e999",
    "1" + "0" * 400 + ".5",
    ".nan",
    ".inf",
    "-.inf",
    "nan",
    "99999999999999999999",
    "-999999999999",
    "1000000000001",
    "4294967296",
    "9223372036854775808",
    "-1",
    "0",
    "1.5",
    "1_000_000",
)

#: text that is dangerous on a terminal or to a parser: rich markup, escapes, control chars
HOSTILE_TEXT: tuple[str, ...] = (
    "[/bold]",
    "[/]",
    "[link=https://example.com/x]click[/link]",
    "[bold red]loud",
    "\x1b]0;pwned\x07",
    "\x1b[2J\x1b[H",
    "\x1b[31mred",
    "a\x00b",
    "a\rb",
    "a\x08\x08b",
    "\u202eevil",
    "\x7f",
    "é" * 50,
    "x" * 300,
    "{x}",
    "%s%n",
    "$(id)",
    "",
    " ",
)

#: paths that must not be followed blindly (relative to the pack's folder or absolute)
HOSTILE_PATHS: tuple[str, ...] = (
    "/etc/passwd",
    "/dev/zero",
    "/dev/full",
    "/proc/self/environ",
    "../" * 12 + "etc/passwd",
    "../secret.yaml",
    "a" * 300 + ".yaml",
    "a/" * 2100 + "x.yaml",
    ".",
    "..",
    "/",
    "/tmp",
    "",
)

#: marker written in a non-pack file next to the pack: no message may echo it (item 13)
SECRET = "gho_SECRET_IN_HAND"

VALIDATE_SUMMARY = re.compile(r"^\d+ packs? checked")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")


def deep_list(depth: int) -> str:
    """A flow list nested ``depth`` levels: ``[[[...]]]`` (YAML and JSON alike)."""
    return "[" * depth + "]" * depth


def deep_dict_json(depth: int) -> str:
    """A JSON object nested ``depth`` levels."""
    return '{"a":' * depth + "1" + "}" * depth


def hostile_scalar(rng: random.Random) -> str:
    """One hostile YAML scalar, as text to put after ``key: ``."""
    kind = rng.randrange(7)
    if kind <= 1:
        return rng.choice(HOSTILE_NUMBERS)
    if kind == 2:
        return json.dumps(rng.choice(HOSTILE_TEXT))  # double-quoted YAML reads JSON escapes
    if kind == 3:
        return deep_list(rng.choice((3, 40, 200, 2000)))
    if kind == 4:
        return json.dumps("x" * rng.choice((300, 5000, 200_000)))
    if kind == 5:
        return rng.choice(("~", "true", "{}", "[]", "!!python/object:os.system", "*nowhere",
                           "&a [1]", "!!binary aGVsbG8=", "2001-12-14", "yes", "'", '"'))
    return json.dumps(rng.choice(HOSTILE_PATHS))


# ---------------------------------------------------------------------- packs

PACK_DIR = Path(__file__).resolve().parent.parent / "rulepacks"


@lru_cache(maxsize=None)
def builtin_pack_texts() -> dict[str, str]:
    """Built-in pack id -> its YAML text (the starting points of pack mutations)."""
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(PACK_DIR.glob("*.yaml"))}


_SCALAR_LINE = re.compile(r"^(\s*(?:- )?[A-Za-z_][\w-]*:)\s*(\S.*)$")
_FLOW_VALUE = re.compile(r"(\b[A-Za-z_]\w*:\s*)([^,{}\[\]]+)")


def alias_bomb(levels: int = 9) -> str:
    """A "billion laughs" block: each anchor lists the previous one nine times."""
    lines = ["lol0: &l0 [lol]"]
    for i in range(1, levels):
        refs = ", ".join([f"*l{i - 1}"] * 9)
        lines.append(f"lol{i}: &l{i} [{refs}]")
    return "\n".join(lines)


def mutate_pack_text(text: str, rng: random.Random, rounds: int = 0) -> str:
    """``text`` (a pack's YAML) with 1-3 line or scalar mutations."""
    lines = text.split("\n")
    for _ in range(rounds or rng.randint(1, 3)):
        if not lines:
            lines = [""]
        i = rng.randrange(len(lines))
        op = rng.randrange(12)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op in (3, 4, 5, 6):  # replace a block scalar value (most productive)
            candidates = [k for k, line in enumerate(lines) if _SCALAR_LINE.match(line)]
            if candidates:
                k = rng.choice(candidates)
                m = _SCALAR_LINE.match(lines[k])
                assert m
                lines[k] = f"{m.group(1)} {hostile_scalar(rng)}"
        elif op == 7:  # replace a value inside a flow mapping: {key: y, name: yellow}
            candidates = [k for k, line in enumerate(lines) if _FLOW_VALUE.search(line)
                          and "{" in line]
            if candidates:
                k = rng.choice(candidates)
                spots = list(_FLOW_VALUE.finditer(lines[k]))
                m = rng.choice(spots)
                value = hostile_scalar(rng)
                if value.startswith("[") or "," in value or "{" in value:
                    value = json.dumps(value)
                lines[k] = lines[k][:m.start(2)] + value + lines[k][m.end(2):]
        elif op == 8:  # an extends line
            target = rng.choice((*HOSTILE_PATHS, "x" * 300, "duel-classic", "base.yaml",
                                 "./base.yaml", "../up.yaml", "house.yaml", "nowhere"))
            lines = [line for line in lines if not line.startswith("extends:")]
            lines.insert(min(3, len(lines)), f"extends: {json.dumps(target)}")
        elif op == 9:  # truncate
            cut = rng.randrange(len(text) + 1)
            lines = "\n".join(lines)[:cut].split("\n")
        elif op == 10:  # raw characters
            pos = rng.randrange(len(lines[i]) + 1)
            junk = rng.choice(("\t", "\x00", "\x1b", "\ufeff", ":", "- ", "&a ", "*a", "!!",
                               "{", "[", "%", "@", "`", "\\", "'", '"', "#", "|", ">"))
            lines[i] = lines[i][:pos] + junk + lines[i][pos:]
        else:  # structural oddities
            extra = rng.choice((alias_bomb(), f"deep: {deep_list(5000)}", "---", "...",
                                "<<: {id: x}", "? [a, b]\n: c", f"{'k' * 300}: 1",
                                "scoring: {expedition: " + "(" * 3000 + "1" + ")" * 3000 + "}"))
            lines.insert(i, extra)
    return "\n".join(lines)


# ---------------------------------------------------------------------- formulas

#: the scopes' sample arguments: small, typical, and the largest the widest domain a pack
#: allows holds (grammar.bounds.widest_domain: rows of 300 cards, 12 colours and pawns, 99
#: rounds), on which a formula that compiles must run quickly (item 11)
WIDE = list(range(100)) * 3
FORMULA_SAMPLES: dict[str, list[tuple]] = {
    "expedition": [(0, [], 0), (2, [2, 5, 9], 2), (4, WIDE, 9)],
    "pawn": [(0, 0, False), (1, 4, True), (4, 9, False), (11, 50, True)],
    "round": [([], [], 0, 0, 1),
              ([(0, [3, 4], 1, -26), (1, [], 0, 0)], [(0, 2, True, -30)], 10, 2, 3),
              ([(c, WIDE, 9, 9000) for c in range(12)], [(t, 50, False, 50) for t in range(12)],
               999, 600, 99)],
    "match": [([], 0, 0), ([12, -3, 40], 9, 15), (list(range(-49, 50)), 600, 999)],
}
#: arguments beyond every pack's games (900 cards in a row, 13 rows, 900 rounds): a
#: compiled formula refuses them with a ScoringError before running, at once
BIG = list(range(2, 11)) * 100
OVERSIZED_SAMPLES: dict[str, list[tuple]] = {
    "expedition": [(4, BIG, 3)],
    "pawn": [],
    "round": [([(c, BIG, 3, 9000) for c in range(12)], [], 999, 99, 9),
              ([(c, [], 0, 0) for c in range(13)], [], 0, 0, 1),
              ([], [(t, 9, False, 50) for t in range(13)], 0, 0, 1)],
    "match": [(list(range(-50, 50)) * 9, 99, 999)],
}
#: how long refusing an oversized sample may take (a length check: microseconds; the bound
#: is generous for a loaded machine, far below what running the formula on it could take)
OVERSIZED_SECONDS = 2.0

FORMULA_TOKENS: tuple[str, ...] = (
    "(", ")", "[", "]", ",", "+", "-", "*", "//", "%", "**", "==", "<", ">=", "!=", " and ",
    " or ", " not ", " if ", " then ", " else ", " for ", " in ", " where ", ".", ":",
    "sum(", "count(", "min(", "max(", "any(", "all(", "abs(", "e.score", "v for v in values",
    "cards", "points", "values", "wagers", "numbers", "colour", "cost", "bonus", "spaces",
    "space", "leader", "pawns", "expeditions", "rounds", "tokens", "artefacts", "score",
    "artefact_scale", "spaces[space]", "artefact_scale[artefacts]", "x", "e", "r",
    "9" * 5000, "0x" + "f" * 40, "1e999", "1000000000000", "1000000000001", "-0", "0",
    "\x00", "\x1b[2J", "[/bold]", "é", "\n", "#", "\t",
)


def nested_aggregates(rng: random.Random, depth: Optional[int] = None) -> str:
    """``sum(sum(... for a in values) for b in values)``: work that multiplies per level."""
    depth = depth or rng.randint(2, 6)
    inner = "1"
    for level in range(depth):
        inner = f"sum({inner} for v{level} in values)"
    return inner


def mutate_formula(text: str, rng: random.Random) -> str:
    """``text`` (a formula) with 1-3 character-span or token mutations."""
    for _ in range(rng.randint(1, 3)):
        n = len(text)
        op = rng.randrange(7)
        a = rng.randrange(n + 1)
        b = min(n, a + rng.randint(0, 12))
        if op == 0:
            text = text[:a] + text[b:]
        elif op == 1:
            text = text[:a] + text[a:b] * rng.randint(2, 5) + text[a:]
        elif op in (2, 3):
            text = text[:a] + rng.choice(FORMULA_TOKENS) + text[a:]
        elif op == 4:
            text = text[:a] + rng.choice(FORMULA_TOKENS) + text[b:]
        elif op == 5:
            depth = rng.choice((1, 40, 400))
            text = "(" * depth + text + ")" * depth
        else:
            text = nested_aggregates(rng)
    return text


def pack_formulas() -> list[tuple[str, str, dict[str, int], dict[str, tuple[int, ...]]]]:
    """``(scope, formula text, constants, tables)`` of every built-in pack's formulas."""
    from lostcities.engine import resolve_pack
    from lostcities.engine.packs.loader import builtin_ids

    out = []
    for pack_id in builtin_ids():
        scoring = resolve_pack(pack_id).data["scoring"]
        constants = dict(scoring.get("constants") or {})
        tables = {k: tuple(v) for k, v in (scoring.get("tables") or {}).items()}
        for scope in ("expedition", "pawn", "round", "match"):
            if isinstance(scoring.get(scope), str):
                out.append((scope, scoring[scope], constants, tables))
        for text in (scoring.get("breakdown") or {}).values():
            out.append(("expedition", text, constants, tables))
    return out


def hostile_constants(rng: random.Random, constants: dict[str, int]) -> dict[str, int]:
    """``constants`` with one value changed to an extreme (but still a Python int)."""
    if not constants or rng.random() < 0.6:
        return constants
    out = dict(constants)
    key = rng.choice(sorted(out))
    out[key] = rng.choice((0, -1, -999999999999, 10 ** 12, 10 ** 12 + 1, 10 ** 13, -10 ** 40,
                           10 ** 200))
    return out


# ---------------------------------------------------------------------- records (JSON)

class Raw(str):
    """JSON text written as is by :func:`dump_json` (numbers JSON cannot hold, nesting)."""


RAW_JSON: tuple[Raw, ...] = tuple(Raw(t) for t in (
    "1" + "0" * 5000, "-" + "9" * 4400, "1e999", "-1e999", "NaN", "Infinity", "-Infinity",
    "1" + "0" * 70, "18446744073709551617", "-1", "0", "1.5", "-0.0", "true", "false", "null",
    "[]", "{}", '""', deep_list(100_000), deep_list(40), deep_dict_json(5000),
    json.dumps("x" * 2_000_000),
))


def dump_json(value: Any) -> str:
    """Compact JSON of ``value``, with :class:`Raw` parts written verbatim."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(str(k)) + ":" + dump_json(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump_json(v) for v in value) + "]"
    return json.dumps(value)


def _paths(value: Any, path: tuple = ()) -> Iterator[tuple]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, path + (i,))


def _get(value: Any, path: tuple) -> Any:
    for p in path:
        value = value[p]
    return value


def hostile_json_value(rng: random.Random, old: Any = None) -> Any:
    """A replacement for one JSON value: a hostile raw text, wrong type or text."""
    kind = rng.randrange(6)
    if kind <= 1:
        return rng.choice(RAW_JSON)
    if kind == 2:
        return rng.choice(HOSTILE_TEXT + HOSTILE_PATHS + ("os:abort", "builtins:breakpoint",
                                                          "signal:pause", "this:x"))
    if kind == 3:
        return rng.choice((0, 1, -1, 2, 7, 99, 10 ** 12, -10 ** 12, 2 ** 63, 1.5, True, None,
                           [], {}, "", [0], {"a": 1}))
    if kind == 4 and isinstance(old, int) and not isinstance(old, bool):
        return old + rng.choice((-1, 1, 2, 1000))  # a plausible edit (tampering)
    if kind == 5 and isinstance(old, str) and old:
        return old[:-1] if rng.random() < 0.5 else old + rng.choice(("x", "0", "9"))
    return rng.choice(RAW_JSON[:10])


def value_holders(data: Any) -> list[tuple[Any, Any]]:
    """``(container, key)`` of every value inside the parsed JSON ``data`` (lists and
    objects), without recursion: where a mutator may put another value."""
    holders: list[tuple[Any, Any]] = []
    stack = [data] if isinstance(data, (dict, list)) else []
    while stack:
        item = stack.pop()
        for key in (list(item) if isinstance(item, dict) else range(len(item))):
            holders.append((item, key))
            if isinstance(item[key], (dict, list)):
                stack.append(item[key])
    return holders


def mutate_json(data: Any, rng: random.Random, rounds: int = 0) -> Any:
    """A copy of ``data`` (parsed JSON) with 1-3 values replaced, removed or duplicated."""
    data = json.loads(json.dumps(data))
    for _ in range(rounds or rng.randint(1, 3)):
        paths = list(_paths(data))
        path = rng.choice(paths)
        if not path:
            if rng.random() < 0.5:
                return hostile_json_value(rng)
            continue
        parent = _get(data, path[:-1])
        if isinstance(parent, Raw):
            continue
        key = path[-1]
        op = rng.randrange(5)
        if op <= 1:
            parent[key] = hostile_json_value(rng, parent[key])
        elif op == 2:
            del parent[key]
        elif op == 3 and isinstance(parent, list):
            parent.insert(key, json.loads(json.dumps(parent[key])) if not isinstance(
                parent[key], Raw) else parent[key])
        elif op == 3 and isinstance(parent, dict):
            parent[key + "_extra" if isinstance(key, str) else key] = parent[key]
        else:  # nest the value
            depth = rng.choice((2, 50, 3000))
            if isinstance(parent[key], Raw):
                parent[key] = Raw("[" * depth + parent[key] + "]" * depth)
            else:
                parent[key] = Raw("[" * depth + dump_json(parent[key]) + "]" * depth)
    return data


def mutate_json_text(text: str, rng: random.Random) -> str:
    """Byte-level damage of a JSON document: a cut, a stray character, doubled braces."""
    op = rng.randrange(4)
    a = rng.randrange(len(text) + 1)
    if op == 0:
        return text[:a]
    if op == 1:
        return text[:a] + rng.choice(("{", "[", "]", "}", ",", '"', "\\", "\x00", "\n", "\ufeff",
                                      "\udc80", "\x1b")) + text[a:]
    if op == 2:
        return text + "\n" + text[:a]
    return "[" * 5000 + text


@lru_cache(maxsize=None)
def base_records() -> tuple[str, ...]:
    """One JSON line per played match: duel-classic (2 seats), duel-six, board-short (3)."""
    from lostcities.engine import dumps, load_pack, new_game, playout

    lines = []
    for pack_id, players, seed in (("duel-classic", 2, 11), ("duel-six", 2, 5),
                                   ("board-short", 3, 7)):
        pack = load_pack(pack_id)
        state = playout(new_game(pack, players, seed), random.Random(seed))
        lines.append(dumps(state))
    return tuple(lines)


# ---------------------------------------------------------------------- card words, moves

def card_word(rng: random.Random, keys: Sequence[str] = "ybwgrp") -> str:
    """A card word that is sometimes right (``r5``, ``rx``) and often hostile."""
    key = rng.choice(list(keys) + ["", "z", "Y", "é", "\x1b", "[", " ", "R"])
    rest = rng.choice(("x", "X", "5", "10", "1", "0", "11", "01", "-3", "+3", "²", "٣", "5.0",
                       " 5", "5 ", "\x00", "x" * 300, "9" * 5000, "0x5", "1e3", "[/bold]", "",
                       "½", "５", "𝟓"))
    return key + rest


def move_text(rng: random.Random, keys: Sequence[str] = "ybwgrp") -> str:
    """A move text: action, card, pawn/step decisions, a draw; sometimes hostile."""
    words = [rng.choice(("p", "d", "P", "play", "discard", "x", "", "j", "p" * 300))]
    if rng.random() < 0.6:  # a real card, so that the decisions after it are read too
        words.append(rng.choice(list(keys)) + rng.choice(("x", "2", "3", "5", "7", "10")))
    else:
        words.append(card_word(rng, keys))
    for _ in range(rng.randint(0, 3)):
        words.append(rng.choice((
            "pawn=0", "pawn=1", "pawn=" + "9" * 5000, "pawn=²", "pawn=٣", "pawn=-1", "pawn=",
            "pawn=99999999999999999999", "step=" + rng.choice(list(keys)), "step=", "step=zz",
            "step=é", "deck", "DECK", rng.choice(list(keys)), "pile", "=", "pawn==0")))
    sep = rng.choice((" ", "  ", "\t", "\n", "\u00a0", "\u3000"))
    return sep.join(words)


# ---------------------------------------------------------------------- in-process bounds

class Hang(Exception):
    """Raised by :func:`time_bound` when the work runs past its bound (not a LostCitiesError)."""


@contextlib.contextmanager
def time_bound(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the main thread if the block runs longer than ``seconds``.

    Pure-Python loops are interrupted; a single long C call is interrupted when it returns.
    """
    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {seconds:g} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _vm_size() -> int:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@contextlib.contextmanager
def memory_bound(extra_bytes: int = 1536 << 20) -> Iterator[None]:
    """Cap this process's address space at its current size plus ``extra_bytes`` for the
    block (a runaway allocation raises MemoryError, a failure, instead of eating the
    machine); the previous limit is restored after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    size = _vm_size()
    if not size:
        yield
        return
    cap = size + extra_bytes
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def one_line(text: str) -> bool:
    """``text`` (an error's str) is one line without raw control characters."""
    return "\n" not in text and "\r" not in text and not CONTROL.search(text)


# ---------------------------------------------------------------------- the CLI

LC = Path(sys.executable).parent / "lc"
#: the address-space cap of each ``lc`` run (a runaway allocation fails, as a traceback)
CLI_MEMORY = 2 << 30
#: wall-clock bound of each ``lc`` run: a hang is a failure
CLI_TIMEOUT = 60.0


@dataclass
class Run:
    """What one ``lc`` run did."""

    args: list[str]
    code: Optional[int]  # None: killed after the timeout
    stdout: str
    stderr: str
    seconds: float

    def problems(self, *, must_fail: bool = False) -> list[str]:
        """Every way this run broke the promise (empty when it kept it)."""
        out = []
        if self.code is None:
            return [f"no answer after {CLI_TIMEOUT:g} s (a hang)"]
        if self.code not in (0, 1, 2):
            out.append(f"exit code {self.code}"
                       + (f" (signal {-self.code})" if self.code < 0 else ""))
        if must_fail and self.code == 0:
            out.append("exit 0 for input that is not valid")
        for name, text in (("stdout", self.stdout), ("stderr", self.stderr)):
            if "Traceback" in text:
                out.append(f"a traceback on {name}: {last_line(text)}")
            if "\x1b" in text or "\x9b" in text:
                out.append(f"an escape sequence reaches the terminal on {name}")
            elif CONTROL.search(text.replace("\n", "")):
                char = CONTROL.search(text.replace("\n", "")).group()
                out.append(f"a raw control character {char!r} on {name}")
        if self.code not in (0, None):
            lines = self.stderr.splitlines()
            if self.args[:1] == ["validate"]:
                # lc validate is a checker: its report goes to stdout and a summary line
                # (`1 pack checked, 1 with problems (2 problems)`) to stderr (docs/rulepacks.md);
                # a path it cannot use adds one `lc: error:` line before the summary
                if lines and VALIDATE_SUMMARY.match(lines[-1]):
                    lines = lines[:-1]
                    if not lines and self.code == 1:
                        return out
            if len(lines) != 1:
                out.append(f"{len(lines)} lines on stderr (one expected): "
                           f"{' | '.join(lines[:4])[:300]}")
            elif not lines[0].startswith("lc: error: "):
                out.append(f"stderr does not start with 'lc: error: ': {lines[0][:200]}")
        return out

    def show(self) -> str:
        args = " ".join(shorten(a) for a in self.args)
        return f"lc {args} -> exit {self.code}; stderr: {shorten(self.stderr.strip(), 300)}"


def last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return shorten(lines[-1] if lines else "", 200)


def shorten(text: str, limit: int = 80) -> str:
    """``text`` repr'd and cut for a report."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit] + f"...({len(text):,} chars)"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CLI_MEMORY, CLI_MEMORY))
    os.setsid()  # its own process group: a timeout kills it and its children


def run_lc(args: Sequence[str], cwd: Path, *, stdin: str | None = "",
           env: Optional[dict[str, str]] = None, timeout: float = CLI_TIMEOUT) -> Run:
    """Run ``lc ARGS`` in ``cwd`` under the memory and time bounds; ``stdin`` "" is empty
    input, ``None`` a closed (/dev/null) one."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LOSTCITIES"))}
    environ.update(LOSTCITIES_DATA_DIR=str(cwd / "data"), HOME=str(cwd), LANG="C.UTF-8",
                   COLUMNS="100", NO_COLOR="1", PYTHONHASHSEED="0")
    environ.pop("GITHUB_ACTIONS", None)
    environ.update(env or {})
    args = [a.replace("\0", "") for a in args]  # argv cannot hold NUL
    start = time.monotonic()
    proc = subprocess.Popen([str(LC), *args], cwd=cwd, env=environ, text=True,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            encoding="utf-8", errors="replace", preexec_fn=_limit_memory)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
        code: Optional[int] = proc.returncode
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    return Run(list(args), code, out, err, time.monotonic() - start)


def fifo(path: Path) -> Path:
    """A named pipe at ``path`` (nobody writes to it: reading it would block)."""
    if not path.exists():
        os.mkfifo(path)
    return path


# ---------------------------------------------------------------------- saves

def base_save(folder: Path, *, seed: int = 3, moves: int = 6) -> dict[str, Any]:
    """A real save (human against random) of duel-classic after a few turns, made by lc play."""
    save = folder / "base-save.json"
    if save.exists():
        save.unlink()
    script = "".join("1\n" for _ in range(moves))  # "1" plays the first legal move
    result = run_lc(["play", "--players", "human,bot:random", "--seed", str(seed),
                     "--save", str(save)], folder, stdin=script)
    if not save.is_file():
        raise RuntimeError(f"lc play wrote no save: {result.show()}")
    return json.loads(save.read_text(encoding="utf-8"))


def hostile_option(rng: random.Random, folder: Path) -> str:
    """A hostile value for an option: numbers, paths, special files."""
    return rng.choice((
        "inf", "-inf", "nan", "1e999", "-1", "0", "-0", "1" + "0" * 5000, "99999999999999999999",
        "0x10", "1_000", "", " ", "a" * 300, str(folder / ("a" * 300)), "/dev/zero", "/dev/full",
        str(fifo(folder / "pipe")), str(folder), str(folder / "missing.yaml"), "/",
        "[/bold]", "\x1b]0;t\x07", "-", "--help", "random,random,random,random,random,random,"
        "random,random,random", "os:abort", "1000", "1e3"))



# ---------------------------------------------------------------------- library targets
#
# Each target takes one input and returns the ways the library broke its promise on it
# (an empty list: it kept it). The tests assert the list is empty; the long run counts.

#: per-input bounds in process (the machine is shared and loaded: generous)
LIBRARY_SECONDS = 30.0
FORMULA_SECONDS = 10.0


def _error_problems(err: BaseException, what: str) -> list[str]:
    """An expected LostCitiesError: it must still be one line and never echo the secret."""
    out = []
    text = str(err)
    if not one_line(text):
        out.append(f"{what}: {type(err).__name__} is not one clean line: {shorten(text, 200)}")
    if SECRET in text:
        out.append(f"{what}: the message echoes a value of a file that is not a pack: "
                   f"{shorten(text, 200)}")
    return out


def _unexpected(err: BaseException, what: str) -> str:
    import traceback

    frames = traceback.extract_tb(err.__traceback__)
    at = ""
    for frame in reversed(frames):
        if "/site-packages/" not in frame.filename and "fuzz_support" not in frame.filename:
            at = f" at {Path(frame.filename).name}:{frame.lineno} ({frame.name})"
            break
    return f"{what}: {type(err).__name__}{at}: {shorten(str(err), 200)}"


def write_pack_folder(folder: Path, text: str) -> Path:
    """``folder/house/house.yaml`` holding ``text``, with a valid ``base.yaml`` beside it, a
    valid ``up.yaml`` one folder up and a non-pack ``secret.yaml`` (holding :data:`SECRET`)
    beside it and one folder up."""
    house = folder / "house"
    house.mkdir(parents=True, exist_ok=True)
    base = builtin_pack_texts()["duel-classic"].replace("id: duel-classic", "id: base")
    (house / "base.yaml").write_text(base, encoding="utf-8")
    (folder / "up.yaml").write_text(base.replace("id: base", "id: up"), encoding="utf-8")
    for where in (house, folder):
        (where / "secret.yaml").write_text(f"token: {SECRET}\nnote: [{SECRET}]\n",
                                           encoding="utf-8")
    path = house / "house.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    return path


def check_pack_text(text: str, folder: Path) -> list[str]:
    """``check_pack`` and ``load_pack`` of ``text`` as a pack file, then one random match of it.

    Promise: check_pack never raises; load_pack raises only PackError; they agree; a pack
    that loads plays a match through without any error (issue #12, item 10).
    """
    from lostcities.engine import LostCitiesError, check_pack, load_pack, new_game, playout

    path = write_pack_folder(folder, text)
    out: list[str] = []
    problems: Optional[list] = None
    try:
        with time_bound(LIBRARY_SECONDS), memory_bound():
            problems = check_pack(path)
    except Exception as err:  # noqa: BLE001 - any other exception is the failure we look for
        out.append(_unexpected(err, "check_pack raised"))
    for problem in problems or []:
        out += _error_problems(Exception(str(problem)), "check_pack problem")
    pack = None
    try:
        with time_bound(LIBRARY_SECONDS), memory_bound():
            pack = load_pack(path)
    except LostCitiesError as err:
        out += _error_problems(err, "load_pack")
    except Exception as err:  # noqa: BLE001
        out.append(_unexpected(err, "load_pack raised"))
    if problems is not None and (pack is None) != bool(problems) and not out:
        out.append(f"check_pack found {len(problems)} problem(s) but load_pack "
                   f"{'failed' if pack is None else 'loaded the pack'}")
    if pack is not None:
        try:
            with time_bound(LIBRARY_SECONDS), memory_bound():
                playout(new_game(pack, pack.min_players, 1), random.Random(1))
        except Exception as err:  # noqa: BLE001 - a valid pack must play
            out.append(_unexpected(err, "a pack that loads does not play one random match"))
    return out


def check_formula(scope: str, text: str, constants: dict[str, int],
                  tables: dict[str, tuple[int, ...]]) -> list[str]:
    """Compile ``text`` in ``scope`` and run it on the scope's samples.

    Promise: compile raises only ScoringError; a compiled formula gives an int within
    ±MAX_INT or raises ScoringError, quickly (docs: no formula can make scoring hang), on
    the samples a pack's games can hold, and refuses the oversized ones with a
    ScoringError at once.
    """
    from lostcities.engine import LostCitiesError, ScoringError
    from lostcities.grammar import MAX_INT, compile_formula

    out: list[str] = []
    try:
        with time_bound(FORMULA_SECONDS), memory_bound():
            formula = compile_formula(text, scope, constants=constants, tables=tables)
    except LostCitiesError as err:
        return _error_problems(err, "compile_formula")
    except Exception as err:  # noqa: BLE001
        return [_unexpected(err, f"compile_formula ({scope}) raised")]
    for args in FORMULA_SAMPLES[scope]:
        try:
            with time_bound(FORMULA_SECONDS), memory_bound():
                value = formula(*args)
        except LostCitiesError as err:
            out += _error_problems(err, "formula run")
            continue
        except Exception as err:  # noqa: BLE001
            out.append(_unexpected(err, f"the {scope} formula raised on a sample"))
            continue
        if not isinstance(value, int) or isinstance(value, bool) or not -MAX_INT <= value <= MAX_INT:
            out.append(f"the {scope} formula gave {shorten(repr(value))}, not an int within ±{MAX_INT}")
    for args in OVERSIZED_SAMPLES[scope]:
        try:
            with time_bound(OVERSIZED_SECONDS), memory_bound():
                value = formula(*args)
        except ScoringError as err:
            out += _error_problems(err, "oversized formula run")
            continue
        except Exception as err:  # noqa: BLE001 - a Hang included: it ran instead of refusing
            out.append(_unexpected(err, f"the {scope} formula on an oversized sample raised"))
            continue
        out.append(f"the {scope} formula ran on an oversized sample (gave "
                   f"{shorten(repr(value))}) instead of refusing it")
    return out


def check_record_text(text: str) -> list[str]:
    """``read_records`` then ``replay`` of every record of the JSON Lines ``text``.

    Promise: only LostCitiesError (RecordError) comes out, in one line, quickly.
    """
    import io

    from lostcities.engine import LostCitiesError, read_records, replay

    try:
        with time_bound(LIBRARY_SECONDS), memory_bound():
            for lineno, data in read_records(io.StringIO(text), "fuzz.jsonl"):
                replay(data, where=f"fuzz.jsonl:{lineno}")
    except LostCitiesError as err:
        return _error_problems(err, "read_records/replay")
    except Exception as err:  # noqa: BLE001
        return [_unexpected(err, "read_records/replay raised")]
    return []


def check_words(pack_id: str, word: str, move: str) -> list[str]:
    """``CardCodec.parse(word)``, ``Move.parse(move)`` and ``apply`` on a new game of ``pack_id``.

    Promise: a card parses to a card that formats back to the same text, or
    InvalidMoveError; a move parses or InvalidMoveError; apply raises only
    InvalidMoveError/IllegalMoveError.
    """
    from lostcities.engine import LostCitiesError, Move, apply, load_pack, new_game

    pack = load_pack(pack_id)
    out: list[str] = []
    with time_bound(LIBRARY_SECONDS):
        try:
            card = pack.cards.parse(word)
        except LostCitiesError as err:
            out += _error_problems(err, "CardCodec.parse")
        except Exception as err:  # noqa: BLE001
            out.append(_unexpected(err, "CardCodec.parse raised"))
        else:
            if pack.cards.parse(pack.cards.format(card)) != card:
                out.append(f"CardCodec.parse({word!r}) does not round-trip")
        try:
            Move.parse(move, pack)
        except LostCitiesError as err:
            out += _error_problems(err, "Move.parse")
        except Exception as err:  # noqa: BLE001
            out.append(_unexpected(err, "Move.parse raised"))
        try:
            apply(new_game(pack, pack.min_players, 1), move)
        except LostCitiesError as err:
            out += _error_problems(err, "apply")
        except Exception as err:  # noqa: BLE001
            out.append(_unexpected(err, "apply(state, text) raised"))
    return out


# ---------------------------------------------------------------------- CLI targets

def device_like_full(folder: Path) -> Optional[Path]:
    """A character device like /dev/full made in ``folder`` (root only; else None), so that a
    command told to write there can only damage this copy, never the machine's /dev/full."""
    import stat

    path = folder / "full"
    if path.exists():
        return path
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except (PermissionError, OSError, AttributeError):
        return None
    return path


def pack_is_valid(path: Path) -> Optional[bool]:
    """The library's verdict on a pack file (None if the library itself broke)."""
    from lostcities.engine import check_pack

    try:
        with time_bound(LIBRARY_SECONDS), memory_bound():
            return not check_pack(path)
    except Exception:  # noqa: BLE001 - reported by the library targets
        return None


def records_are_valid(text: str) -> Optional[bool]:
    """Whether every record of ``text`` replays (None if the library itself broke)."""
    import io

    from lostcities.engine import LostCitiesError, read_records, replay

    try:
        with time_bound(LIBRARY_SECONDS), memory_bound():
            for lineno, data in read_records(io.StringIO(text), "fuzz.jsonl"):
                replay(data, where=f"fuzz.jsonl:{lineno}")
    except LostCitiesError:
        return False
    except Exception:  # noqa: BLE001
        return None
    return True


PACK_COMMANDS: dict[str, list[str]] = {
    "validate": ["validate", "{pack}"],
    "show": ["show", "{pack}"],
    "show --explain": ["show", "--explain", "{pack}"],
    "score": ["score", "--pack", "{pack}", "y5", "y8", "rx", "r3"],
    "simulate": ["simulate", "--pack", "{pack}", "--games", "1"],
}


def cli_pack(text: str, folder: Path, commands: Sequence[str] = ("validate", "show", "score")
             ) -> list[str]:
    """``lc validate/show/score/simulate`` of ``text`` as a house pack file."""
    path = write_pack_folder(folder, text)
    valid = pack_is_valid(path)
    out = []
    for name in commands:
        args = [a.replace("{pack}", str(path)) for a in PACK_COMMANDS[name]]
        run = run_lc(args, folder)
        must_fail = valid is False and name in ("validate", "show", "simulate")
        out += [f"{run.show()}: {p}" for p in run.problems(must_fail=must_fail)]
        if name == "validate" and valid and run.code != 0:
            out.append(f"{run.show()}: the library finds the pack valid, lc validate does not")
    return out


def cli_record(text: str, folder: Path) -> list[str]:
    """``lc replay --check FILE`` and ``lc replay FILE`` of the JSON Lines ``text``."""
    path = folder / "games.jsonl"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    valid = records_are_valid(text)
    out = []
    for args in (["replay", "--check", str(path)], ["replay", str(path)]):
        run = run_lc(args, folder)
        out += [f"{run.show()}: {p}" for p in run.problems(must_fail=valid is False)]
        if valid and args[1] == "--check" and run.code != 0:
            out.append(f"{run.show()}: the library replays the records, lc replay --check fails")
    return out


def cli_save(text: str, folder: Path, stdin: Optional[str] = "") -> list[str]:
    """``lc play --resume SAVE`` of the save ``text`` with empty (or closed) input: the
    promise, and a save that cannot be resumed is left exactly as it was."""
    path = folder / "game.json"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    before = path.read_bytes()
    run = run_lc(["play", "--resume", str(path)], folder, stdin=stdin)
    out = [f"{run.show()}: {p}" for p in run.problems()]
    if not path.is_file():
        out.append(f"{run.show()}: the save file is gone")
    elif run.code != 0 and path.read_bytes() != before:
        out.append(f"{run.show()}: a save that could not be resumed was rewritten")
    stale = [p.name for p in folder.glob("*.tmp")] + [p.name for p in folder.glob(".*.tmp")]
    if stale:
        out.append(f"{run.show()}: temporary files left behind: {stale[:3]}")
    return out


def cli_score(pack_id: str, words: Sequence[str], folder: Path) -> list[str]:
    """``lc score --pack PACK WORDS...``."""
    run = run_lc(["score", "--pack", pack_id, "--", *words], folder)
    return [f"{run.show()}: {p}" for p in run.problems()]


def score_words(rng: random.Random, board: bool) -> list[str]:
    """Words for ``lc score``: cards, or a board's pawns and tokens=/artefacts=, often hostile."""
    keys = "ybwgr"
    words = []
    for _ in range(rng.randint(1, 6)):
        if board:
            word = rng.choice(keys) + rng.choice(("1", "5", "9", "10", "0", "-1", "9" * 5000,
                                                  "x", "")) + rng.choice(("", "+", "*", "++"))
            word = rng.choice((word, word, "tokens=" + rng.choice(("1", "99999999999999999999",
                                                                     "9" * 5000, "-5", "x", "")),
                               "artefacts=" + rng.choice(("2", "9" * 30, "-1", "1e3", "")),
                               "/", "[/bold]"))
        else:
            word = rng.choice((card_word(rng, keys), card_word(rng, keys), "/",
                               rng.choice(HOSTILE_TEXT) or "y5"))
        words.append(word)
    return words


#: option values that are not fine, by option (no value that would legitimately run for
#: long, and nothing that writes outside the test's folder)
def option_cases(folder: Path) -> list[tuple[str, list[str], bool]]:
    """``(label, lc arguments, must_fail)`` runs with one hostile option value each."""
    pipe = str(fifo(folder / "pipe"))
    long_name = str(folder / ("a" * 300))
    deep = str(folder / ("a/" * 2100)) + "x"
    full = device_like_full(folder)
    other = folder / "other.txt"
    if not other.exists():
        other.write_text("not a save; must survive\n")
    record = folder / "one.jsonl"
    if not record.exists():
        record.write_text(base_records()[0] + "\n")
    numbers_bad = ["inf", "-inf", "nan", "1e999", "1" + "0" * 5000, "", " ", "abc", "0x10",
                   "[/bold]", "\x1b]0;t\x07"]
    files_bad = ["", long_name, deep, "/dev/zero", pipe, str(folder), str(folder / "missing"),
                 "/"]
    sim = ["simulate", "--games", "1"]
    play_bots = ["play", "--players", "bot:random,bot:random", "--seed", "1"]
    play_human = ["play", "--players", "human,bot:random", "--seed", "1"]
    cases: list[tuple[str, list[str], bool]] = []
    for v in numbers_bad + ["-1", "0"]:
        cases.append(("simulate --workers", [*sim, "--workers", v], True))
    for v in numbers_bad + ["-1"]:
        cases.append(("simulate --games", ["simulate", "--games", v], True))
        cases.append(("replay --game", ["replay", "--game", v, str(record)], True))
    for v in numbers_bad:
        cases.append(("simulate --seed", [*sim, "--seed", v], True))
        cases.append(("play --seed", [*play_human, "--seed", v], True))
        cases.append(("play --delay", [*play_bots, "--delay", v], True))
        cases.append(("play --level", [*play_human, "--level", v], True))
    for v in ["-1", "0", "6", "99999999999999999999"]:
        cases.append(("play --level", [*play_human, "--level", v], True))
    for v in ["xx", "", "[/bold]", "../../etc", "\x1b[2J", "e" * 300]:
        cases.append(("play --lang", [*play_human, "--lang", v], True))
    for v in files_bad:
        cases.append(("simulate --pack", [*sim, "--pack", v], True))
        cases.append(("score --pack", ["score", "--pack", v, "y5"], True))
        cases.append(("validate", ["validate", v], True))
        cases.append(("show", ["show", v], True))
        cases.append(("replay", ["replay", "--check", v], True))
        cases.append(("replay --pack", ["replay", "--pack", v, str(record)], True))
        cases.append(("play --resume", ["play", "--resume", v], True))
        cases.append(("play --pack", [*play_human, "--pack", v], True))
    for v in ["", long_name, deep, pipe, str(folder), str(other), "/"] + (
            [str(full)] if full else []):
        cases.append(("simulate --record", [*sim, "--record", v], True))
        cases.append(("play --save", [*play_human, "--save", v], True))
    for v in [",", "random,", "os:abort", "faulthandler:_sigsegv", "nosuchbot",
              "random," * 9 + "random", "ismcts@99999999999999999999", "ismcts@" + "9" * 5000,
              "[/bold]", "\x1b]0;t\x07"]:
        cases.append(("simulate --bots", [*sim, "--bots", v], True))
    for v in ["bot:os:abort", "human:[/bold]", "human:\x1b]0;t\x07", "bot:nosuch",
              "human," * 20 + "human", "bot:ismcts@" + "9" * 5000]:
        cases.append(("play --players", ["play", "--players", v, "--seed", "1"], True))
    return cases


def cli_option(case: tuple[str, list[str], bool], folder: Path) -> list[str]:
    """One run of :func:`option_cases`; files it may not touch are checked afterwards."""
    label, args, must_fail = case
    other = folder / "other.txt"
    before = other.read_bytes() if other.exists() else None
    run = run_lc(args, folder, stdin="")
    out = [f"{run.show()}: {p}" for p in run.problems(must_fail=must_fail)]
    if before is not None and (not other.is_file() or other.read_bytes() != before):
        out.append(f"{run.show()}: overwrote {other.name}, a file that is not a save or record")
    full = folder / "full"
    if full.exists() and not full.is_char_device():
        out.append(f"{run.show()}: replaced a device node with a regular file")
        full.unlink()
    return out
