"""The code's shape, as the design card and issue #15 ask: one package per concern under
engine/, depending one way, and no module reaching into another's private names.

Read from the sources with :mod:`ast` (imports inside functions included), so a lazy import
that breaks a rule is caught as well as a top-level one.
"""
from __future__ import annotations

import ast
import functools
import json
import tomllib
from pathlib import Path

import pytest

from lostcities.engine.game import options

ROOT = Path(__file__).resolve().parent.parent
#: our top-level folders -> their package
#: folder -> package, as pyproject.toml maps them (a new package is checked from its start)
PACKAGES = {folder: package for package, folder in tomllib.loads(
    (ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"].items()
    if "/" not in folder}
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
    """No module left loose at the engine's top beside the shared errors and safe reading
    and the two public tables (the game API and the tooling namespace)."""
    top = sorted(p.name for p in (ROOT / "engine").glob("*.py"))
    assert top == ["__init__.py", "errors.py", "safeio.py", "tooling.py"]
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
FRONT_ENDS = ("lostcities.cli", "lostcities.server", "lostcities.envs", "lostcities.i18n",
              "lostcities.entry")
#: all of the engine a front-end may import (docs/api.md): the game API, the tooling
#: namespace of the front ends' plumbing, and the errors
PUBLIC_ENGINE = ("lostcities.engine", "lostcities.engine.tooling", "lostcities.engine.errors")
#: modules another change of issue 28 is rebuilding now (item 4, one move entry: cli/session.py
#: and cli/connect.py): their imports are that change's to move; they are checked as soon as
#: they leave this set
PENDING: dict[str, str] = {}
#: front-end modules below the engine, which the engine itself imports: they may use the
#: engine's bottom modules only (a public table would load the engine, a circle)
BELOW_ENGINE = {"lostcities.i18n": ("lostcities.engine.safeio",)}


def front_end_breaches(module: str, path: Path) -> list[str]:
    """``file:line`` of each import in ``path`` that reaches the engine past its public API:
    one of a concern's modules, or a name the ``__all__`` of ``lostcities.engine`` or
    ``lostcities.engine.tooling`` does not hold (a deprecated alias among them)."""
    import lostcities.engine as engine
    import lostcities.engine.tooling as tooling

    tables = {"lostcities.engine": engine.__all__, "lostcities.engine.tooling": tooling.__all__}
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    wrong = []
    for line, target, names in imports(module, path):
        if target != "lostcities.engine" and not target.startswith("lostcities.engine."):
            continue
        if target not in PUBLIC_ENGINE + BELOW_ENGINE.get(module, ()):
            wrong.append(f"{where}:{line}: imports {target}")
        elif target in tables:
            wrong += [f"{where}:{line}: imports {name} from {target}, not in its __all__"
                      for name in names if name not in tables[target]]
    return wrong


def test_the_front_ends_use_the_engine_only_through_its_public_api():
    """cli/, server/, envs/ and i18n/ import what docs/api.md documents (the names of
    ``lostcities.engine`` and ``lostcities.engine.tooling``, loaded lazily, and the errors),
    never a module of one of the engine's concerns: their layout is the engine's own to
    change. A deprecated alias is not in ``lostcities.engine.__all__``: the front ends
    import the name from its new place."""
    checked = [(module, path) for module, path in sources()
               if any(module == top or module.startswith(top + ".") for top in FRONT_ENDS)
               and module not in PENDING]
    assert {module for module, _ in checked} >= set(FRONT_ENDS)
    wrong = [entry for module, path in checked for entry in front_end_breaches(module, path)]
    assert not wrong, ("the front-ends reach into the engine past its public API "
                       "(add the name to a _LAZY table and docs/api.md):\n" + "\n".join(wrong))


def test_the_front_end_rule_catches_deep_imports(tmp_path):
    """The checker itself: deep, relative, module and non-public imports are all caught."""
    path = tmp_path / "deep.py"
    path.write_text("from lostcities.engine import load_pack\n"
                    "from lostcities.engine.errors import PackError\n"
                    "from lostcities.engine.tooling import shown_path\n"
                    "def f():\n"
                    "    from lostcities.engine.game.moves import PLAY\n"
                    "    import lostcities.engine.game.board as board\n"
                    "    from ..engine.packs import loader\n"
                    "    from lostcities.engine import compile_pack\n"
                    "    from lostcities.engine.safeio import plain_text\n"
                    "    from lostcities.engine import explain\n"
                    "    from lostcities.engine.tooling import load_pack\n", encoding="utf-8")
    found = front_end_breaches("lostcities.cli.deep", path)
    assert [entry.split(": ", 1)[1] for entry in found] == [
        "imports lostcities.engine.game.moves", "imports lostcities.engine.game.board",
        "imports lostcities.engine.packs",
        "imports compile_pack from lostcities.engine, not in its __all__",
        "imports lostcities.engine.safeio",
        "imports explain from lostcities.engine, not in its __all__",
        "imports load_pack from lostcities.engine.tooling, not in its __all__"]
    assert found[0].startswith(f"{path}:5: ")


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


# ------------------------------------------------ the dependency graph (issue 28, items 5 and 6)

#: every folder of ours that holds modules, beside PACKAGES: the built-in packs' folder
#: (the schema and the caps, below the loader and the grammar)
GRAPHED = {**PACKAGES, "rulepacks": "lostcities.rulepacks"}
#: import names of the optional extras (pyproject.toml's serve, rl, plot and ray, and the
#: PostgreSQL store's driver): imported where they are used, inside a function, so that the
#: base install runs without them
OPTIONAL = {"starlette": "serve", "uvicorn": "serve", "websockets": "serve",
            "confusable_homoglyphs": "serve", "openskill": "serve", "numpy": "rl", "gymnasium": "rl",
            "pettingzoo": "rl", "pyspiel": "rl", "matplotlib": "plot", "ray": "ray",
            "psycopg": "postgresql"}
#: the lazy doors: a module and what it imports only in a function, with the reason
LAZY_DOORS = {
    ("lostcities.engine", "*"):
        "the game API's table (PEP 562): importing the engine loads nothing of it",
    ("lostcities.cli.app", "*"):
        "the CLI's command table: lc --help prints the recorded text without typer or a command",
    ("lostcities.grammar.parser", "lark"):
        "built-in packs load their formulas' shipped parse results: no lark at start-up",
    ("lostcities.grammar.parser", "lostcities.grammar.scoring_tables"):
        "the shipped LALR tables (a large literal): read only when a formula is parsed",
    ("lostcities.engine.game.rules", "lostcities.grammar"):
        "a pack's formulas compile on first use (pack.scoring): the engine loads without lark",
    ("lostcities.engine.packs.loader", "jsonschema"):
        "a built-in pack is vouched by its digest: the schema runs only on a house pack",
    ("lostcities.engine.packs.loader", "lostcities.engine.packs.pack_digests"):
        "generated data, read in a try: a checkout without it validates every pack",
    ("lostcities.engine.lab.records", "jsonschema"):
        "the record schema runs only when a record is checked (lc replay)",
    ("lostcities.server.protocol", "jsonschema"):
        "the messages' schema is compiled on the room server's first message",
    ("lostcities.engine.packs.yamlsafe", "yaml"):
        "a built-in pack is read from its shipped form: no YAML parser at start-up",
    ("lostcities.cli.packs", "yaml"): "only lc new writes YAML",
    ("lostcities.cli.serve", "lostcities.server.app"):
        "the room server's application is Starlette's (the serve extra): loaded once it is there",
    ("lostcities.cli.common", "rich"):
        "the progress bar, only on a terminal: lc simulate starts without rich",
    ("lostcities.engine.lab.records", "importlib"):
        "importlib.metadata (it loads email.*): once, when a record is written",
    ("lostcities.engine.lab.backends", "multiprocessing"): "process pools only for workers > 1",
    ("lostcities.engine.lab.simulation", "multiprocessing"): "process pools only for workers > 1",
    ("lostcities.engine.lab.workers", "multiprocessing"): "process pools only for workers > 1",
    ("lostcities.server.guard", "resource"): "a Unix-only module, in a try",
    ("lostcities.cli.session", "fcntl"): "a Unix-only module, in a try: a save's lock",
    ("lostcities.cli.connect", "readline"): "line editing where the platform has it, in a try",
    ("lostcities.rulepacks", "importlib"): "importlib.resources only for a zipped install",
}
#: being rebuilt by another change of issue 28: its imports are that change's
REBUILT = dict(PENDING)


@functools.lru_cache(maxsize=1)
def graphed() -> dict[str, Path]:
    """Every module of ours, dotted name -> path (the generated data modules included:
    they are imported too)."""
    out = {}
    for folder, package in GRAPHED.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = path
    return out


def type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:``: imports for type hints only, which never run."""
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING"))


def runtime_imports(module: str, path: Path, ours: frozenset[str] = frozenset()
                    ) -> list[tuple[int, str, bool]]:
    """(line, module imported, whether in a function) of every import that runs: ``from
    package import module`` names the module; ``if TYPE_CHECKING:`` blocks are left out."""
    ours = ours or frozenset(graphed())
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if type_checking(child):
                for other in child.orelse:
                    visit(other, in_function)
                continue
            if isinstance(child, ast.Import):
                found.extend((child.lineno, alias.name, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                parent = source_of(package, child)
                targets = [f"{parent}.{a.name}" if f"{parent}.{a.name}" in ours else parent
                           for a in child.names]
                found.extend((child.lineno, t, in_function) for t in dict.fromkeys(targets))
            visit(child, in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(syntax(path), False)
    return found


def lazy_tables() -> dict[str, set[str]]:
    """The dependencies that go through a lazy table rather than an import statement: the
    two public namespaces' names and the CLI's command modules."""
    import importlib.util

    import lostcities.cli.app as app
    import lostcities.engine as engine
    import lostcities.engine.tooling as tooling

    return {"lostcities.engine": {importlib.util.resolve_name(m, "lostcities.engine")
                                  for m in engine._LAZY.values()} | {"lostcities.engine.tooling"},
            "lostcities.engine.tooling": {importlib.util.resolve_name(m, "lostcities.engine")
                                          for m in tooling._LAZY.values()},
            "lostcities.cli.app": {f"lostcities.cli.{m}" for m in app.COMMAND_MODULES}}


def import_graph(found: dict[str, Path], extra: dict[str, set[str]] | None = None
                 ) -> dict[str, set[str]]:
    """module -> the modules of ours it imports, at the top or in a function."""
    ours = frozenset(found)
    graph = {}
    for module, path in found.items():
        targets = set()
        for _, target, _ in runtime_imports(module, path, ours):
            while target not in ours and "." in target:
                target = target.rpartition(".")[0]  # ``lostcities.engine.game.turn.x``
            if target in ours and target != module:
                targets.add(target)
        graph[module] = targets | (extra or {}).get(module, set())
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan): each holds a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def strong(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                strong(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            strong(node)
    return found


def unit(module: str) -> str:
    """The package a module counts in: the engine's concerns each (``game``, ``packs``,
    ``bots``, ``lab``, and ``errors``, ``safeio`` and the two public tables at its top),
    else the top-level package (``lostcities.grammar``)."""
    parts = module.split(".")
    return ".".join(parts[:3] if parts[1] == "engine" and len(parts) > 2 else parts[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        out.setdefault(unit(module), set()).update(
            unit(t) for t in targets if unit(t) != unit(module))
    return out


def rebuilt(module: str) -> bool:
    return any(module == top or module.startswith(top + ".") for top in REBUILT)


def test_no_import_circle_between_modules():
    """Imports at the top and in functions, and the lazy tables, all count: a module that
    needs another only in a function still cannot be loaded without it (engine/game's own
    circle, board/moves/rows/state/steps/tables, is gone: tracks.py holds the board's data
    below tables.py)."""
    found = circles(import_graph(graphed(), lazy_tables()))
    wrong = [part for part in found if not all(rebuilt(m) for m in part)]
    assert not wrong, "import circles:\n" + "\n".join(" <-> ".join(p) for p in wrong)


def test_no_import_circle_between_packages():
    found = circles(package_graph(import_graph(graphed(), lazy_tables())))
    assert not found, "import circles between packages:\n" + "\n".join(
        " <-> ".join(part) for part in found)


def test_the_circle_checks_catch_a_planted_circle(tmp_path):
    """A circle made by an import inside a function is found, between modules and between
    the packages that hold them; an import under ``if TYPE_CHECKING:`` makes none."""
    (tmp_path / "a.py").write_text("import lostcities.cli.b\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("def f():\n    from lostcities.grammar import c\n",
                                   encoding="utf-8")
    (tmp_path / "c.py").write_text("from typing import TYPE_CHECKING\n"
                                   "if TYPE_CHECKING:\n    from lostcities.cli import b\n"
                                   "def g():\n    from lostcities.cli.a import x\n",
                                   encoding="utf-8")
    (tmp_path / "d.py").write_text("from typing import TYPE_CHECKING\n"
                                   "if TYPE_CHECKING:\n    from lostcities.cli import b\n",
                                   encoding="utf-8")
    planted = {"lostcities.cli.a": tmp_path / "a.py", "lostcities.cli.b": tmp_path / "b.py",
               "lostcities.grammar.c": tmp_path / "c.py", "lostcities.envs.d": tmp_path / "d.py"}
    graph = import_graph(planted)
    assert graph["lostcities.envs.d"] == set()
    assert circles(graph) == [["lostcities.cli.a", "lostcities.cli.b", "lostcities.grammar.c"]]
    assert circles(package_graph(graph)) == [["lostcities.cli", "lostcities.grammar"]]
    (tmp_path / "e.py").write_text("def g():\n    pass\n", encoding="utf-8")
    assert circles(import_graph({**planted, "lostcities.grammar.c": tmp_path / "e.py"})) == []


def local_import_breaches(found: dict[str, Path]) -> list[str]:
    """``file:line`` of each import in a function that is neither of an optional extra nor at
    a lazy door of :data:`LAZY_DOORS`."""
    ours = frozenset(graphed()) | frozenset(found)
    wrong = []
    for module, path in found.items():
        if rebuilt(module):
            continue
        for line, target, in_function in runtime_imports(module, path, ours):
            top = target.split(".")[0]
            if not in_function or top in OPTIONAL:
                continue
            if any((module, key) in LAZY_DOORS for key in ("*", top, target)):
                continue
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            wrong.append(f"{where}:{line}: imports {target} in a function")
    return wrong


def test_imports_in_functions_only_at_the_lazy_doors_and_for_optional_extras():
    """Every import at the top of its module, where a reader sees what the module needs
    (issue 28, item 5), but for an optional extra and the few lazy doors of
    :data:`LAZY_DOORS`, each with its reason."""
    wrong = local_import_breaches(graphed())
    assert not wrong, ("imports in a function (move them to the top, or name the lazy door "
                       "and why in LAZY_DOORS):\n" + "\n".join(wrong))


def test_every_lazy_door_is_still_used_and_every_extra_is_declared():
    """An allow-list entry with nothing left to allow would hide the next one; the extras'
    import names cover pyproject.toml's extras."""
    import tomllib

    used = {(module, key) for module, path in graphed().items()
            for _, target, in_function in runtime_imports(module, path) if in_function
            for key in ("*", target.split(".")[0], target)}
    assert set(LAZY_DOORS) <= used, sorted(set(LAZY_DOORS) - used)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"]
    assert {"serve", "rl", "plot", "ray"} <= set(extras) and \
        set(OPTIONAL.values()) <= set(extras)


def test_the_local_import_check_catches_a_planted_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("import json\n"
                       "def f():\n    import numpy\n    from lostcities.engine import new_game\n"
                       "class C:\n    def g(self):\n        import re\n", encoding="utf-8")
    assert local_import_breaches({"lostcities.cli.planted": planted}) == [
        f"{planted}:4: imports lostcities.engine in a function",
        f"{planted}:7: imports re in a function"]
    # the same at a lazy door: only what the door lets in
    assert local_import_breaches({"lostcities.cli.common": planted}) == [
        f"{planted}:4: imports lostcities.engine in a function",
        f"{planted}:7: imports re in a function"]
    assert local_import_breaches({"lostcities.cli.app": planted}) == []


def tier_problems(engine_all: list[str], tooling_all: list[str], deprecated: frozenset[str],
                  resolve) -> list[str]:
    """What is wrong with the two tiers: a name in both that is not a deprecated alias, a
    deprecated alias that is not in the tooling tier, a name that does not resolve."""
    wrong = [f"{name} is in both tiers" for name in sorted(set(engine_all) & set(tooling_all))
             if name not in deprecated]
    wrong += [f"{name} is deprecated but not in lostcities.engine.tooling"
              for name in sorted(deprecated - set(tooling_all))]
    for namespace, names in (("lostcities.engine", engine_all),
                             ("lostcities.engine.tooling", tooling_all)):
        for name in names:
            try:
                resolve(namespace, name)
            except AttributeError:
                wrong.append(f"{namespace}.{name} does not resolve")
    return wrong


def resolve_name(namespace: str, name: str) -> object:
    import importlib

    return getattr(importlib.import_module(namespace), name)


def test_the_two_tiers_are_disjoint_and_every_name_resolves():
    """``lostcities.engine`` is the game API, ``lostcities.engine.tooling`` the front ends'
    plumbing (docs/api.md): no name in both, every name loads, and a moved name still reads
    from ``lostcities.engine`` for one release, with a DeprecationWarning."""
    import warnings

    import lostcities.engine as engine
    import lostcities.engine.tooling as tooling

    assert not tier_problems(engine.__all__, tooling.__all__, engine.DEPRECATED, resolve_name)
    for name in sorted(engine.DEPRECATED):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert getattr(engine, name) is getattr(tooling, name)
        assert [w.category for w in caught] == [DeprecationWarning], name
        assert f"lostcities.engine.tooling.{name}" in str(caught[0].message)
        assert name not in engine.__all__ and name not in dir(engine)


def test_the_tier_check_catches_a_planted_breach():
    def resolve(namespace: str, name: str) -> object:
        if name == "ghost":
            raise AttributeError(name)
        return None

    assert tier_problems(["new_game", "explain", "shown_path"], ["shown_path", "explain"],
                         frozenset({"explain", "balance"}), resolve) == [
        "shown_path is in both tiers", "balance is deprecated but not in lostcities.engine.tooling"]
    assert tier_problems(["ghost"], [], frozenset(), resolve) == [
        "lostcities.engine.ghost does not resolve"]


def test_the_cli_and_both_tiers_load_without_the_optional_extras():
    """With every import at the top, a module that needs an extra must stay out of the
    base install's way: the whole ``lc`` app builds and every public name loads with the
    extras missing (a missing extra is then one line from the command that needs it)."""
    import subprocess
    import sys

    code = ("import sys\n"
            f"for name in {sorted(OPTIONAL)!r}:\n    sys.modules[name] = None\n"
            "from lostcities.cli.app import build_app\nbuild_app()\n"
            "import lostcities.engine as engine, lostcities.engine.tooling as tooling\n"
            "for ns in (engine, tooling):\n"
            "    for name in ns.__all__:\n        getattr(ns, name)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            f"{sorted(OPTIONAL)!r} and sys.modules[m] is not None))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert (out.returncode, out.stdout.strip()) == (0, "[]"), out.stderr


# ------------------------------------------------ the family is asked once (issue 28, item 2)

#: where a module outside engine/game may ask a pack's family: to draw it
DRAWING = {"cli/render.py": "the terminal draws a board pack's tracks and pawns"}
#: the modules that still ask whether a pack has a board, and how often: issue 28, item 2's
#: remaining work, none left (the last were the bots' and the lab's). A count may only go
#: down: a new question fails this test, and a module that asks less must lower its count here.
STILL_ASKING: dict[str, int] = {}


#: the families' names, as a pack's ``family`` spells them
FAMILY_NAMES = ("duel", "board")
#: where a name is bound afresh: its own scope for :func:`family_questions`' aliases
SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _named(node: ast.AST) -> str | None:
    """``x.board``, ``board`` and ``x["board"]`` -> ``"board"``; anything else -> None."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, str):
        return node.slice.value
    return node.id if isinstance(node, ast.Name) else None


def _names_a_family(node: ast.AST) -> bool:
    """``"board"``, or a tuple, list or set that holds a family's name."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_family(e) for e in node.elts)
    return isinstance(node, ast.Constant) and node.value in FAMILY_NAMES


def _read_as_truth(node: ast.AST) -> list[ast.expr]:
    """The expressions ``node`` reads as true or false: an ``if``'s, ``while``'s, ternary's,
    ``assert``'s or comprehension's test, the operands of ``and``, ``or``, ``not``, ``bool()``."""
    if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
        return [node.test]
    if isinstance(node, ast.BoolOp):
        return node.values
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return [node.operand]
    if isinstance(node, ast.comprehension):
        return node.ifs
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "bool":
        return node.args[:1]
    return []


def _asks_itself(node: ast.AST, aliases: set[str]) -> bool:
    """``X.board is None`` / ``is not None`` / ``== None`` (either side, or a name of
    ``aliases`` for ``X.board``), ``family ==``, ``!=``, ``in`` or ``not in`` a family's name,
    ``getattr``/``hasattr(X, "board")``, ``isinstance(X, ...Board...)``, a ``try`` that reads
    ``X.board`` and catches AttributeError; ``X["family"]`` and ``X["board"]`` as well."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = node.ops[0]
        for one, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
            if (_named(one) == "board" or isinstance(one, ast.Name) and one.id in aliases) and isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) \
                    and isinstance(other, ast.Constant) and other.value is None:
                return True
            if _named(one) == "family" and _names_a_family(other) \
                    and isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
                return True
    if isinstance(node, ast.Try):  # try: x.board.pawns ... except AttributeError
        caught = [h.type for h in node.handlers if h.type is not None]
        caught = [e for t in caught for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
        return any(_named(e) == "AttributeError" for e in caught) and any(
            isinstance(n, ast.Attribute) and n.attr == "board"
            for part in node.body for n in ast.walk(part))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        args = node.args
        if node.func.id in ("getattr", "hasattr") and len(args) >= 2 \
                and isinstance(args[1], ast.Constant) and args[1].value == "board":
            return True
        if node.func.id == "isinstance" and len(args) == 2:
            kinds = args[1].elts if isinstance(args[1], ast.Tuple) else [args[1]]
            return any("Board" in (_named(kind) or "") for kind in kinds)
    return False


def _scope_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of ``scope`` outside the functions nested in it."""
    out, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return out


def family_questions(path: Path) -> int:
    """How often ``path`` asks whether a pack (or state, view, tables) has a board: ``X.board
    is None`` / ``is not None``, a ``family`` compared with a family's name, and the same
    question in other spellings: ``X.board`` read as true or false (``if X.board:``,
    ``X.board and ...``, ``not X.board``), or a name bound to ``X.board`` in the same function
    read so or compared with None (``b = pack.board`` ... ``if b:``, ``b is None``), a ``try``
    that reads ``X.board`` and catches AttributeError, ``getattr``/``hasattr(X, "board", ...)``,
    ``isinstance(X, Board...)``."""
    count = 0
    for scope in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(scope, SCOPES):
            continue
        nodes = _scope_nodes(scope)
        aliases = {target.id for node in nodes if isinstance(node, ast.Assign)
                   and isinstance(node.value, ast.Attribute) and node.value.attr == "board"
                   for target in node.targets if isinstance(target, ast.Name)}
        for node in nodes:
            count += _asks_itself(node, aliases)
            count += sum(1 for read in _read_as_truth(node)
                         if (isinstance(read, ast.Attribute) and read.attr == "board")
                         or (isinstance(read, ast.Name) and read.id in aliases))
    return count


def family_question_counts(root: Path) -> dict[str, int]:
    out = {}
    for top in ("engine", "cli", "server", "envs", "entry", "i18n", "grammar"):
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith("engine/game/") or rel in DRAWING:
                continue
            found = family_questions(path)
            if found:
                out[rel] = found
    return out


def test_no_module_asks_the_family_more_than_its_count():
    """engine/game picks a pack's family once (turn.FAMILIES, by the pack's ``family``), and
    the public turn engine never asks again; outside engine/game only the drawing may ask.
    The modules of :data:`STILL_ASKING` are item 2's remaining work: none may ask more."""
    assert family_questions(ROOT / "engine" / "game" / "turn.py") == 0
    found = family_question_counts(ROOT)
    more = {m: n for m, n in found.items() if n > STILL_ASKING.get(m, 0)}
    assert not more, f"new questions of a pack's family outside engine/game: {more}"
    fewer = {m: (found.get(m, 0), n) for m, n in STILL_ASKING.items() if found.get(m, 0) < n}
    assert not fewer, f"these modules ask less now: lower their count in STILL_ASKING: {fewer}"


def test_the_family_check_catches_a_planted_question(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("def f(pack, state):\n    if pack.board is None:\n        return 1\n"
                       "    return state.tables.family == 'board'\n", encoding="utf-8")
    assert family_questions(planted) == 2
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "x.py").write_text(planted.read_text(), encoding="utf-8")
    assert family_question_counts(tmp_path) == {"engine/x.py": 2}


#: the same question in other spellings, one per line (each counts once)
DISGUISED = [
    "if pack.board:\n    pass",
    "if not view.board:\n    pass",
    "x = pack.board and pack.board.pawns",
    "x = 1 if state.board else 0",
    "x = [p for p in packs if p.board]",
    "x = bool(obs.board)",
    "while pack.board:\n    break",
    "x = getattr(pack, 'board', None)",
    "x = hasattr(pack, 'board')",
    "x = isinstance(spec, BoardTables)",
    "x = None is pack.board",
    "x = pack.board == None",
    "x = 'duel' != tables.family",
    "x = pack.family in ('board', 'other')",
    "def f(pack):\n    b = pack.board\n    if b:\n        pass",
    "def f(pack):\n    b = pack.board\n    return 1 if b is None else b.pawns",
    "x = d['family'] == 'board'",
    "x = d['board'] is not None",
    "try:\n    x = pack.board.pawns\nexcept (KeyError, AttributeError):\n    x = 0",
]
#: what asks nothing: the board's data read where a duel has none, and a name that is not
#: bound to a board in its own function
INNOCENT = [
    "for pawn in view.pawns:\n    pass",
    "x = pack.board.spaces",
    "x = state.family",
    "def f(pack):\n    b = pack.board\ndef g(b):\n    if b:\n        pass",
    "if pack.colours:\n    pass",
    "x = getattr(pack, 'colours', None)",
    "x = isinstance(spec, dict)",
    "x = d['family']",
    "try:\n    x = pack.board.pawns\nexcept KeyError:\n    x = 0",
]


@pytest.mark.parametrize("code", DISGUISED)
def test_the_family_check_sees_a_disguised_question(tmp_path, code):
    planted = tmp_path / "planted.py"
    planted.write_text(code + "\n", encoding="utf-8")
    assert family_questions(planted) == 1


@pytest.mark.parametrize("code", INNOCENT)
def test_the_family_check_counts_no_innocent_reading(tmp_path, code):
    planted = tmp_path / "planted.py"
    planted.write_text(code + "\n", encoding="utf-8")
    assert family_questions(planted) == 0


# ------------------------------------------ each rule option written once (issue 28, item 2)

#: every registry of engine/game/options.py: the names a pack may give the option, and the
#: names a setting of it goes by in code (the pack's field, its key in the pack file, and
#: ``rule`` / ``kind``, the words a function handed one uses)
OPTION_REGISTRIES = {
    "ORDERINGS": (options.ORDERINGS, {"ordering"}),
    "RETAKES": (options.RETAKES, {"retake", "no_retake_discard"}),
    "WAGER_TIMES": (options.WAGER_TIMES, {"wagers_when", "when"}),
    "ROW_STARTS": (options.ROW_STARTS, {"row_start", "start"}),
    "DRAW_PILE_ENDS": (options.DRAW_PILE_ENDS, {"draw_pile_empty"}),
    "NEXT_STARTERS": (options.NEXT_STARTERS, {"next_starter", "next_starter_tie", "rule"}),
    "TILE_KINDS": (options.TILE_KINDS, {"kind"}),
}
#: where a setting may be compared with a registry's names: the registries themselves, and
#: the reading of a pack's mapping into the RulePack's fields (the schema's level)
OPTION_READERS = {
    "engine/game/options.py": "the registries: what each name means",
    "engine/game/rules.py": "RulePack.from_mapping reads the settings as the schema spells them",
}
#: the modules that still compare a setting with a registry's names, and how often: a board
#: tile's kind (options.TILE_KINDS says what it does: ``effect``, ``valued``), in the bots and
#: the lab (another part of issue 28's item 2) and in two front ends (which may read only the
#: public tiers, where TILE_KINDS is not yet). A count may only go down, as in STILL_ASKING.
STILL_NAMING: dict[str, int] = {}


def _setting_word(node: ast.expr) -> str | None:
    """The word an expression names a setting by: ``pack.row_start``, ``d["rows"]["start"]``,
    ``match.get("next_starter")``, ``rule``; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value if isinstance(node.slice.value, str) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "get" and node.args and isinstance(node.args[0], ast.Constant):
        return node.args[0].value if isinstance(node.args[0].value, str) else None
    return None


def _option_names(node: ast.expr) -> set[str] | None:
    """The strings ``node`` is made of (a constant, or a tuple, list or set of constants)."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    if items and all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
        return {i.value for i in items}  # type: ignore[attr-defined]
    return None


def _names_an_option(setting: ast.expr, names: ast.expr) -> bool:
    word, said = _setting_word(setting), _option_names(names)
    return word is not None and said is not None and any(
        word in words and said <= set(registry) for registry, words in OPTION_REGISTRIES.values())


def option_comparisons(path: Path) -> list[str]:
    """Where ``path`` compares a pack's setting with a rule option's names (``==``, ``!=``,
    ``in``, ``not in``, ``is``, or a ``match`` statement's cases): ``line: code``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, sides, sides[1:]):
                if isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)) \
                        and (_names_an_option(left, right) or _names_an_option(right, left)):
                    found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Match):
            for case in node.cases:
                values = [p.value for p in ast.walk(case.pattern) if isinstance(p, ast.MatchValue)]
                if any(_names_an_option(node.subject, v) for v in values):
                    found.append(f"{case.pattern.lineno}: case {ast.unparse(case.pattern)}")
    return found


def option_comparison_counts(root: Path) -> dict[str, list[str]]:
    out = {}
    for folder in PACKAGES:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel in OPTION_READERS or rel in GENERATED:
                continue
            found = option_comparisons(path)
            if found:
                out[rel] = found
    return out


def test_every_setting_is_decided_by_its_registry():
    """A rule option's meaning is written once, in engine/game/options.py: outside it (and
    the reading of a pack's mapping), no module compares a pack's setting with one of the
    option's names; it reads the registry (``TILE_KINDS[kind].valued``) or the facts the
    pack's tables compiled from it (``tables_of(pack).last_play``). The modules of
    :data:`STILL_NAMING` are the remaining work: none may compare more."""
    found = option_comparison_counts(ROOT)
    more = {m: lines for m, lines in found.items() if len(lines) > STILL_NAMING.get(m, 0)}
    assert not more, f"a setting compared with an option's names outside options.py: {more}"
    fewer = {m: (len(found.get(m, ())), n) for m, n in STILL_NAMING.items()
             if len(found.get(m, ())) < n}
    assert not fewer, f"these modules compare less now: lower their count in STILL_NAMING: {fewer}"


def test_the_option_check_catches_a_planted_comparison(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "def f(pack, d, match, rule, kind, t):\n"
        "    if pack.row_start == 'lowest-in-hand':\n"           # a field
        "        return 1\n"
        "    if d['rows']['ordering'] != 'strict':\n"            # the pack file's key
        "        return 2\n"
        "    if match.get('next_starter') in ('best-round-score', 'best-total'):\n"
        "        return 3\n"
        "    if 'after-last-play' == pack.draw_pile_empty:\n"     # either side
        "        return 4\n"
        "    match rule:\n"
        "        case 'same':\n"
        "            return 5\n"
        "    if kind == 'points' or t.kind not in {'artefact', 'step'}:\n"
        "        return 6\n"
        # not comparisons of a setting: a registry lookup, a word no option uses, a
        # name that is no setting, and a string that is none of the option's names
        "    return (options.ROW_STARTS['any'], pack.ordering == 'sideways',\n"
        "            pack.reward_kind == 'points', pack.id == 'strict')\n",
        encoding="utf-8")
    assert sorted(int(line.split(":")[0]) for line in option_comparisons(planted)) == \
        [2, 4, 6, 8, 11, 13, 13]
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "x.py").write_text(planted.read_text(), encoding="utf-8")
    (tmp_path / "engine" / "game").mkdir()
    (tmp_path / "engine" / "game" / "options.py").write_text(planted.read_text(), encoding="utf-8")
    assert {m: len(lines) for m, lines in option_comparison_counts(tmp_path).items()} == \
        {"engine/x.py": 7}


def test_every_registry_names_exactly_its_settings_values_in_the_schema():
    """The schema's enum of each option is its registry's names (a name the schema accepts
    always has a meaning, and every meaning can be named)."""
    schema = json.loads((ROOT / "rulepacks" / "pack.schema.json").read_text(encoding="utf-8"))

    def enums(node: object, path: tuple[str, ...] = ()):
        if isinstance(node, dict):
            if "enum" in node:
                yield path, node["enum"]
            for key, value in node.items():
                yield from enums(value, path + (key,))
        elif isinstance(node, list):
            for value in node:
                yield from enums(value, path)

    by_key = {}
    for path, values in enums(schema):
        key = [p for p in path if p not in ("properties", "items", "$defs", "definitions")][-1]
        by_key.setdefault(key, set()).update(values)
    for registry, key in (("ORDERINGS", "ordering"), ("RETAKES", "retake"),
                          ("WAGER_TIMES", "when"), ("ROW_STARTS", "start"),
                          ("DRAW_PILE_ENDS", "draw_pile_empty"),
                          ("NEXT_STARTERS", "next_starter"), ("NEXT_STARTERS", "next_starter_tie"),
                          ("TILE_KINDS", "kind")):
        assert by_key.get(key) == set(OPTION_REGISTRIES[registry][0]), (registry, key)
