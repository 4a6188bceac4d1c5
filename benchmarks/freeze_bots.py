"""Freeze the bots of an earlier commit into a package of their own, to play them against
today's (``bench_bots.py --against``, ``bench_ismcts.py --expert/--baseline``,
``bench_same_moves.py``), so that "at least as strong as before" is measured on paired seeds.

Run: ``python benchmarks/freeze_bots.py COMMIT FOLDER [--name NAME]``, e.g.
``python benchmarks/freeze_bots.py b290f08 /tmp/frozen --name expert_filed``, then
``PYTHONPATH=/tmp/frozen python benchmarks/bench_bots.py --only strength --pairings
expert-against --against expert_filed.expert:ExpertBot``.

It writes ``FOLDER/NAME/`` with the commit's ``expert.py``, ``knowledge.py`` and
``ismcts.py`` (from ``engine/bots/`` or, before the engine was split into packages,
``engine/``), their imports of each other kept inside the frozen package and their imports
of the engine pointed at today's modules (``lostcities.engine.game``, the bot interface
of ``lostcities.engine.bots.base``). The frozen bots then run on today's engine, which must
still offer what they import: a missing name is an ImportError when the bot is made.
Check that a frozen bot plays as it did (a few seeded self-play matches on its own install
and on today's give the same moves) before trusting a comparison. The files are read
with ``git show`` from this repository: it needs the commit in its history.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the bots' modules frozen together
BOTS = ("expert", "knowledge", "ismcts")
#: today's module of each engine module an earlier bot imports relatively
TODAY = {**{name: f"lostcities.engine.game.{name}" for name in
            ("board", "cards", "moves", "refusals", "rows", "rules", "state", "steps",
             "tables", "turn", "view")},
         "bots": "lostcities.engine.bots.base", "base": "lostcities.engine.bots.base",
         "registry": "lostcities.engine.bots.registry",
         "errors": "lostcities.engine.errors"}
IMPORT = re.compile(r"^(\s*)from \.{1,2}(?:game\.|bots\.)?(\w+) import ", re.M)


def source(commit: str, module: str) -> str:
    """The commit's text of the bot ``module``, wherever the engine kept it then."""
    for path in (f"engine/bots/{module}.py", f"engine/{module}.py"):
        shown = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=ROOT,
                               capture_output=True, text=True)
        if shown.returncode == 0:
            return shown.stdout
    raise SystemExit(f"freeze_bots: {commit} has no {module}.py under engine/ or engine/bots/")


def frozen(text: str, package: str) -> str:
    """``text`` with its relative imports made absolute: the bots' own into ``package``,
    the engine's into today's modules (unknown ones are an error here, not later)."""
    def absolute(match: re.Match) -> str:
        indent, module = match.group(1), match.group(2)
        if module in BOTS:
            return f"{indent}from {package}.{module} import "
        if module not in TODAY:
            raise SystemExit(f"freeze_bots: no module of today's engine for '.{module}'")
        return f"{indent}from {TODAY[module]} import "
    return IMPORT.sub(absolute, text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit", help="the commit whose bots to freeze")
    parser.add_argument("folder", type=Path, help="where the package goes (put it on PYTHONPATH)")
    parser.add_argument("--name", default="frozen", help="the package's name (default: frozen)")
    args = parser.parse_args()
    if not args.name.isidentifier():
        raise SystemExit(f"freeze_bots: --name {args.name!r} is not a Python name")
    package = args.folder / args.name
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(f'"""The bots of commit {args.commit}, frozen."""\n')
    for module in BOTS:
        (package / f"{module}.py").write_text(frozen(source(args.commit, module), args.name))
    print(f"{package}: {', '.join(BOTS)} of {args.commit}; e.g. "
          f"{args.name}.expert:ExpertBot, {args.name}.ismcts:ISMCTSBot", file=sys.stderr)


if __name__ == "__main__":
    main()
