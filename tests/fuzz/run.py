"""The long fuzz run of issue #12, by hand: the fuzz suite's mutators at many more examples.

Usage::

    .venv/bin/python tests/fuzz/run.py --minutes 10            # library and a CLI sample
    .venv/bin/python tests/fuzz/run.py --minutes 2 --seed 7 --no-cli
    .venv/bin/python tests/fuzz/run.py --minutes 30 --cli-share 0.5 --targets packs,cli-save

It loops over the targets in turn, drawing each input from one ``random.Random`` (the
seed, default 0, makes a run repeatable), for ``--minutes`` of wall-clock time:

- in process: ``packs`` (mutated built-in pack YAML through check_pack, load_pack and one
  random match), ``formulas`` (mutated pack formulas compiled and run on samples),
  ``records`` and ``record-text`` (mutated records through read_records and replay),
  ``words`` (card words and move texts through CardCodec.parse, Move.parse, apply);
- a sample of real ``lc`` runs (``--cli-share`` of the time, default 0.3): ``cli-pack``
  (validate, show, score), ``cli-record`` (replay --check, replay), ``cli-save`` (play
  --resume with empty input), ``cli-score`` and ``cli-option`` (every hostile option case
  of the suite in turn).

The checks are the suite's (tests/fuzz_support.py): only LostCitiesError from the
library; exit 0/1/2, one ``lc: error:`` line, no traceback, no escape sequence, no hang
(60 s), 2 GiB of address space at most for each ``lc``. At the end it prints how many
inputs each target tried and every distinct failure (the shortest input that showed it),
and exits 1 if there was any. ``--json FILE`` also writes them as JSON.

This file is not collected by pytest (its name does not start with ``test_``).
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fuzz_support as fz  # noqa: E402

LIBRARY = ("packs", "formulas", "records", "record-text", "words")
CLI = ("cli-pack", "cli-record", "cli-save", "cli-score", "cli-option")


def _signature(target: str, failure: str) -> str:
    """What a failure is, without its input: quoted text, numbers and paths removed."""
    text = re.sub(r"^lc .*? -> exit", "lc -> exit", failure)
    text = re.sub(r"stderr: '.*?': ", "", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"|/tmp/\S+|\d+", "_", text)
    return f"{target}: {text[:160]}"


class Campaign:
    """Tries inputs target by target and keeps each distinct failure's shortest input."""

    def __init__(self, seed: int, folder: Path):
        self.rng = random.Random(seed)
        self.folder = folder
        self.tried: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.failures: dict[str, tuple[str, str]] = {}  # signature -> (failure, input)
        self.formulas = fz.pack_formulas()
        self.packs = sorted(fz.builtin_pack_texts())
        self._save: str | None = None
        self._cases: list | None = None
        self._case = 0

    def fresh(self) -> Path:
        return Path(tempfile.mkdtemp(prefix="run-", dir=self.folder))

    def record(self, target: str, failures: list[str], shown: str) -> None:
        self.tried[target] += 1
        if failures:
            self.failed[target] += 1
        for failure in failures:
            sig = _signature(target, failure)
            old = self.failures.get(sig)
            if old is None or len(shown) < len(old[1]):
                self.failures[sig] = (failure, shown)

    # ------------------------------------------------------------------ targets

    def packs_(self) -> tuple[list[str], str]:
        text = fz.mutate_pack_text(fz.builtin_pack_texts()[self.rng.choice(self.packs)], self.rng)
        return fz.check_pack_text(text, self.fresh()), text

    def formulas_(self) -> tuple[list[str], str]:
        scope, text, constants, tables = self.rng.choice(self.formulas)
        text = fz.mutate_formula(text, self.rng)
        constants = fz.hostile_constants(self.rng, constants)
        return fz.check_formula(scope, text, constants, tables), f"{scope}: {text} {constants}"

    def records_(self) -> tuple[list[str], str]:
        data = fz.mutate_json(json.loads(self.rng.choice(fz.base_records())), self.rng)
        text = fz.dump_json(data)
        return fz.check_record_text(text), text

    def record_text_(self) -> tuple[list[str], str]:
        text = fz.mutate_json_text(self.rng.choice(fz.base_records()), self.rng)
        return fz.check_record_text(text), text

    def words_(self) -> tuple[list[str], str]:
        from lostcities.engine import load_pack

        pack_id = self.rng.choice(("duel-classic", "duel-six", "duel-basic", "board-classic",
                                   "duel-equal"))
        keys = load_pack(pack_id).cards.keys
        word, move = fz.card_word(self.rng, keys), fz.move_text(self.rng, keys)
        return fz.check_words(pack_id, word, move), f"{pack_id}: {word!r} / {move!r}"

    def cli_pack_(self) -> tuple[list[str], str]:
        text = fz.mutate_pack_text(fz.builtin_pack_texts()[self.rng.choice(self.packs)], self.rng)
        commands = self.rng.choice((("validate", "show", "score"), ("show --explain",),
                                    ("simulate",)))
        return fz.cli_pack(text, self.fresh(), commands), text

    def cli_record_(self) -> tuple[list[str], str]:
        data = fz.mutate_json(json.loads(self.rng.choice(fz.base_records())), self.rng)
        text = fz.dump_json(data) + "\n"
        return fz.cli_record(text, self.fresh()), text

    def cli_save_(self) -> tuple[list[str], str]:
        if self._save is None:
            self._save = json.dumps(fz.base_save(self.fresh()), indent=1)
        if self.rng.random() < 0.8:
            text = fz.dump_json(fz.mutate_json(json.loads(self._save), self.rng))
        else:
            text = fz.mutate_json_text(self._save, self.rng)
        return fz.cli_save(text, self.fresh(), self.rng.choice(("", None))), text

    def cli_score_(self) -> tuple[list[str], str]:
        pack_id = self.rng.choice(("duel-classic", "duel-six", "board-classic"))
        words = fz.score_words(self.rng, pack_id.startswith("board"))
        return fz.cli_score(pack_id, words, self.fresh()), f"{pack_id}: {words}"

    def cli_option_(self) -> tuple[list[str], str]:
        folder = self.fresh()
        cases = fz.option_cases(folder)
        case = cases[self._case % len(cases)]
        self._case += 1
        return fz.cli_option(case, folder), f"{case[0]}: {case[1]}"

    def step(self, target: str) -> None:
        method: Callable[[], tuple[list[str], str]] = getattr(
            self, target.replace("-", "_") + "_")
        try:
            failures, shown = method()
        except Exception as err:  # noqa: BLE001 - a broken generator is reported, not fatal
            failures, shown = [f"the fuzz run itself failed: {type(err).__name__}: {err}"], ""
        self.record(target, failures, shown)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cli-share", type=float, default=0.3,
                        help="share of the time spent on real lc runs (0 to 1)")
    parser.add_argument("--no-cli", action="store_true", help="the library only")
    parser.add_argument("--targets", default="", help="comma-separated subset of: "
                        + ", ".join(LIBRARY + CLI))
    parser.add_argument("--json", type=Path, help="also write counts and failures here")
    args = parser.parse_args(argv)

    chosen = [t for t in args.targets.split(",") if t] or list(LIBRARY + CLI)
    unknown = set(chosen) - set(LIBRARY + CLI)
    if unknown:
        parser.error(f"unknown targets: {', '.join(sorted(unknown))}")
    library = [t for t in chosen if t in LIBRARY]
    cli = [] if args.no_cli else [t for t in chosen if t in CLI]
    share = 0.0 if not cli else (1.0 if not library else args.cli_share)

    end = time.monotonic() + args.minutes * 60
    spent = {"library": 0.0, "cli": 0.0}
    with tempfile.TemporaryDirectory(prefix="lc-fuzz-run-") as tmp:
        campaign = Campaign(args.seed, Path(tmp))
        turn = Counter[str]()
        last_report = time.monotonic()
        while time.monotonic() < end:
            total = spent["library"] + spent["cli"]
            kind = "cli" if cli and (not library or spent["cli"] <= share * total) else "library"
            targets = cli if kind == "cli" else library
            target = targets[turn[kind] % len(targets)]
            turn[kind] += 1
            start = time.monotonic()
            campaign.step(target)
            spent[kind] += time.monotonic() - start
            if time.monotonic() - last_report > 60:
                last_report = time.monotonic()
                print(f"... {sum(campaign.tried.values()):,} inputs, "
                      f"{len(campaign.failures)} distinct failures", flush=True)

    print(f"\nInputs tried per target ({args.minutes:g} min, seed {args.seed}):")
    for target in chosen:
        if campaign.tried[target]:
            print(f"  {target:12} {campaign.tried[target]:>8,}   "
                  f"failing: {campaign.failed[target]:,}")
    print(f"  {'total':12} {sum(campaign.tried.values()):>8,}")
    print(f"\n{len(campaign.failures)} distinct failure(s)")
    for sig in sorted(campaign.failures):
        failure, shown = campaign.failures[sig]
        print(f"\n* {sig.split(':')[0]}: {failure}\n  input: {fz.shorten(shown, 400)}")
    if args.json:
        doc: dict[str, Any] = {
            "minutes": args.minutes, "seed": args.seed, "tried": dict(campaign.tried),
            "failing": dict(campaign.failed),
            "failures": [{"signature": s, "failure": f, "input": i[:2000]}
                         for s, (f, i) in sorted(campaign.failures.items())]}
        args.json.write_text(json.dumps(doc, indent=1))
    return 1 if campaign.failures else 0


if __name__ == "__main__":
    sys.exit(main())
