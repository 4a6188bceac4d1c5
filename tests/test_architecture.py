"""The code's shape, as the design card and issue #15 ask: one package per concern under
engine/, depending one way, and no module reaching into another's private names.

Read from the sources with :mod:`ast` (imports inside functions included), so a lazy import
that breaks a rule is caught as well as a top-level one.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: our top-level folders -> their package
PACKAGES = {"engine": "lostcities.engine", "cli": "lostcities.cli", "server": "lostcities.server",
            "envs": "lostcities.envs", "i18n": "lostcities.i18n", "grammar": "lostcities.grammar"}
#: data written by ``python tools/regenerate.py`` (big literals, no imports:
#: tests/test_startup*.py check them), not read here
GENERATED = {"grammar/scoring_tables.py", "cli/helptext.py", "engine/packs/pack_digests.py"}
#: engine concern -> the engine concerns (and top-level modules) it may import
ENGINE_LAYERS = {
    "game": {"game", "errors", "safeio"},
    "packs": {"packs", "game", "errors", "safeio"},
    "bots": {"bots", "game", "errors", "safeio"},
    "lab": {"lab", "bots", "game", "packs", "errors", "safeio"},
}


@functools.lru_cache(maxsize=None)
def syntax(path: Path) -> ast.Module:
    """The parsed file, once per run."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def sources() -> list[tuple[str, Path]]:
    """(dotted module name, path) of every Python module of ours."""
    out = []
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.relative_to(ROOT).as_posix() in GENERATED:
                continue
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out.append((".".join((package, *parts)), path))
    return out


def source_of(package: str, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` in ``package`` imports from."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


@functools.lru_cache(maxsize=None)
def imports(module: str, path: Path) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, absolute module imported from, names) of every import in the file."""
    tree = syntax(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, source_of(package, node),
                          tuple(alias.name for alias in node.names)))
    return found


def test_the_rule_reads_relative_imports_right():
    """The checker itself: a relative import in a sub-package resolves to the module meant."""
    path = ROOT / "engine" / "bots" / "ismcts.py"
    targets = {target for _, target, _ in imports("lostcities.engine.bots.ismcts", path)}
    assert "lostcities.engine.bots.expert" in targets
    assert "lostcities.engine.game.turn" in targets


def test_no_module_imports_another_modules_private_names():
    private = [f"{path.relative_to(ROOT)}:{line}: from {target} import {name}"
               for module, path in sources()
               for line, target, names in imports(module, path) for name in names
               if name.startswith("_") and not name.startswith("__")]
    assert not private, "private names imported across modules:\n" + "\n".join(private)


def concern(module: str) -> str:
    """``lostcities.engine.game.turn`` -> ``game``; ``lostcities.engine.errors`` -> ``errors``."""
    return module.split(".")[2]


@pytest.mark.parametrize("layer", sorted(ENGINE_LAYERS))
def test_engine_concerns_depend_one_way(layer):
    for module, path in sources():
        if module.startswith("lostcities.engine.") and concern(module) == layer:
            check_layer(module, path)


def check_layer(module: str, path: Path) -> None:
    """Every import of ``module`` stays inside what its concern may import."""
    allowed = ENGINE_LAYERS[concern(module)]
    wrong = [f"{path.relative_to(ROOT)}:{line}: imports {target}"
             for line, target, names in imports(module, path)
             if target.startswith("lostcities.engine.") and concern(target) not in allowed]
    # ``from lostcities.engine import X`` reaches the public API, which re-exports every
    # concern: inside the engine that would hide a dependency, so it counts as one too
    wrong += [f"{path.relative_to(ROOT)}:{line}: imports lostcities.engine's public {name}"
              for line, target, names in imports(module, path) if target == "lostcities.engine"
              for name in names if name not in ("errors", "safeio")]
    assert not wrong, f"{concern(module)} may import only {sorted(allowed)}:\n" + "\n".join(wrong)


def test_every_engine_module_belongs_to_a_concern():
    """No module left loose at the engine's top beside the shared errors and safe reading."""
    top = sorted(p.name for p in (ROOT / "engine").glob("*.py"))
    assert top == ["__init__.py", "errors.py", "safeio.py"]
    assert sorted(p.name for p in (ROOT / "engine").iterdir()
                  if p.is_dir() and (p / "__init__.py").exists()) == sorted(ENGINE_LAYERS)


@functools.lru_cache(maxsize=None)
def module_names(module: str, path: Path) -> dict[str, str]:
    """Local name -> our module it is bound to by an import (``from . import turn``,
    ``import lostcities.engine.game.board as board``)."""
    tree = syntax(path)
    ours = {m for m, _ in sources()}
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in ours and alias.asname:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            parent = source_of(package, node)
            for alias in node.names:
                if f"{parent}.{alias.name}" in ours:
                    bound[alias.asname or alias.name] = f"{parent}.{alias.name}"
    return bound


def test_no_module_reaches_into_another_modules_private_names():
    """``turn._end_turn`` through an imported module is the same breach as importing it."""
    private = []
    for module, path in sources():
        bound = module_names(module, path)
        private += [f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.id}.{node.attr}"
                    for node in ast.walk(syntax(path))
                    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound and bound[node.value.id] != module
                    and node.attr.startswith("_") and not node.attr.startswith("__")]
    assert not private, "private names of other modules used:\n" + "\n".join(private)


def test_the_board_game_builds_on_the_card_games_steps_not_its_turn():
    """One seam between the two families: board.py uses steps.py's public functions, and
    only turn.py knows both (it hands a board pack's phases to board.py)."""
    def uses(name: str) -> set[str]:
        module = f"lostcities.engine.game.{name}"
        path = ROOT / "engine" / "game" / f"{name}.py"
        return ({target for _, target, _ in imports(module, path)}
                | set(module_names(module, path).values()))

    assert "lostcities.engine.game.turn" not in uses("board")
    assert "lostcities.engine.game.steps" in uses("board")
    assert not {"lostcities.engine.game.turn", "lostcities.engine.game.board"} & uses("steps")


#: the thin front-ends: lc, the room server, the learning adapters, the rulebooks' wording
FRONT_ENDS = ("lostcities.cli", "lostcities.server", "lostcities.envs", "lostcities.i18n")
#: all of the engine a front-end may import: the public API (docs/api.md) and the two
#: documented top-level modules
PUBLIC_ENGINE = ("lostcities.engine", "lostcities.engine.errors", "lostcities.engine.safeio")


def front_end_breaches(module: str, path: Path) -> list[str]:
    """``file:line`` of each import in ``path`` that reaches the engine past its public API:
    one of a concern's modules, or a name ``lostcities.engine.__all__`` does not hold."""
    import lostcities.engine as engine

    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    wrong = []
    for line, target, names in imports(module, path):
        if target != "lostcities.engine" and not target.startswith("lostcities.engine."):
            continue
        if target not in PUBLIC_ENGINE:
            wrong.append(f"{where}:{line}: imports {target}")
        elif target == "lostcities.engine":
            wrong += [f"{where}:{line}: imports {name} from lostcities.engine, not in its __all__"
                      for name in names if name not in engine.__all__]
    return wrong


def test_the_front_ends_use_the_engine_only_through_its_public_api():
    """cli/, server/, envs/ and i18n/ import what docs/api.md documents (the names of
    ``lostcities.engine``, loaded lazily, and ``errors`` and ``safeio``), never a module of
    one of the engine's concerns: their layout is the engine's own to change."""
    checked = [(module, path) for module, path in sources()
               if any(module == top or module.startswith(top + ".") for top in FRONT_ENDS)]
    assert {module for module, _ in checked} >= set(FRONT_ENDS)
    wrong = [entry for module, path in checked for entry in front_end_breaches(module, path)]
    assert not wrong, ("the front-ends reach into the engine past its public API "
                       "(add the name to lostcities.engine's _LAZY and docs/api.md):\n"
                       + "\n".join(wrong))


def test_the_front_end_rule_catches_deep_imports(tmp_path):
    """The checker itself: deep, relative, module and non-public imports are all caught."""
    path = tmp_path / "deep.py"
    path.write_text("from lostcities.engine import load_pack\n"
                    "from lostcities.engine.errors import PackError\n"
                    "def f():\n"
                    "    from lostcities.engine.game.moves import PLAY\n"
                    "    import lostcities.engine.game.board as board\n"
                    "    from ..engine.packs import loader\n"
                    "    from lostcities.engine import compile_pack\n", encoding="utf-8")
    found = front_end_breaches("lostcities.cli.deep", path)
    assert [entry.split(": ", 1)[1] for entry in found] == [
        "imports lostcities.engine.game.moves", "imports lostcities.engine.game.board",
        "imports lostcities.engine.packs",
        "imports compile_pack from lostcities.engine, not in its __all__"]
    assert found[0].startswith(f"{path}:4: ")


#: the libraries under the front ends, and the front ends that run as programs
LIBRARIES = ("lostcities.engine", "lostcities.grammar")
PROGRAMS = ("lostcities.cli", "lostcities.server", "lostcities.envs")


def program_imports(found: list[tuple[str, Path]]) -> list[str]:
    """Where a library module of ``found`` imports a program (at the top or in a
    function): the programs build on the libraries, never the other way."""
    return [f"{path}:{line}: imports {target}"
            for module, path in found if module.startswith(LIBRARIES)
            for line, target, _ in imports(module, path)
            if target.startswith(PROGRAMS)]


def test_the_libraries_never_import_a_program():
    """The tool that rewrites the generated files (``tools/regenerate.py``, which writes
    ``lc --help`` from the CLI) lives outside the installed packages, so the grammar no
    longer imports the CLI (issue 28, item 5)."""
    wrong = program_imports(sources())
    assert not wrong, "a library imports a program:\n" + "\n".join(wrong)


def test_the_library_rule_catches_a_program_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("def f():\n    from lostcities.cli import app\n", encoding="utf-8")
    assert program_imports([("lostcities.grammar.planted", planted)]) == [
        f"{planted}:2: imports lostcities.cli"]
