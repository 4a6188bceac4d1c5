"""The build's one hook: an optional compiled core. The package is declared in pyproject.toml.

``pip install .`` installs pure Python and needs no compiler. ``LOSTCITIES_COMPILE=1 pip
install .`` also compiles the modules listed in ``engine/compiled_modules.txt`` with Cython,
from the very same source, into C extensions that the wheel ships beside the ``.py`` files
(they stay the reference: Python imports the extension when there is one). Cython joins the
build's requirements only then. ``lostcities.engine.compiled_modules()`` tells which modules
an install runs compiled; docs/api.md has the figures.

An editable install (``pip install -e .``) is always pure Python: a compiled module beside
its source would hide every later edit of it. Every build starts from an empty build folder,
so that no compiled module of an earlier build lands in a later wheel.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build import build
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
#: the project's folders that hold compiled modules -> their package (pyproject.toml's package-dir)
PACKAGES = {"engine": "lostcities.engine", "grammar": "lostcities.grammar"}


def compile_requested() -> bool:
    """LOSTCITIES_COMPILE=1 asks for the compiled core; unset, empty or 0 for pure Python."""
    value = os.environ.get("LOSTCITIES_COMPILE", "").strip()
    if value not in ("", "0", "1"):
        raise SystemExit(f"setup.py: error: LOSTCITIES_COMPILE must be 0 or 1, not {value!r}")
    return value == "1"


def compiled_sources() -> list[str]:
    """The source paths of engine/compiled_modules.txt (comments and blank lines left out)."""
    text = (ROOT / "engine" / "compiled_modules.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def module_name(source: str) -> str:
    """``engine/game/turn.py`` -> ``lostcities.engine.game.turn``."""
    top, _, rest = source.partition("/")
    return PACKAGES[top] + "." + rest.removesuffix(".py").replace("/", ".")


class CleanBuild(build):
    """A build that empties its output folder first (a stale extension would be shipped)."""

    def run(self) -> None:
        shutil.rmtree(self.build_lib, ignore_errors=True)
        super().run()


class CythonBuildExt(build_ext):
    """Turns the listed ``.py`` modules into C with Cython when the build starts (not when
    this file is read: Cython is only installed in the build's environment by then)."""

    def finalize_options(self) -> None:
        if self.inplace or getattr(self, "editable_mode", False):
            raise SystemExit("setup.py: error: LOSTCITIES_COMPILE=1 is for `pip install .`; "
                             "an editable install stays pure Python (a compiled module beside "
                             "its source would hide every later edit)")
        from Cython.Build import cythonize

        # the declaration files (.pxd) cimport each other by their installed names
        # (``lostcities.engine.game.state``), but the project's folders are mapped
        # (engine/ is lostcities.engine): Cython finds them in a copy laid out as installed
        include = Path("build") / "cython-include"
        shutil.rmtree(include, ignore_errors=True)
        for top, package in PACKAGES.items():
            for pxd in (ROOT / top).rglob("*.pxd"):
                target = include.joinpath(*package.split("."), pxd.parent.relative_to(ROOT / top),
                                          pxd.name)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(pxd, target)
        # before build_ext's own options, which prepare each extension cythonize returns;
        # force: the C is always made anew from the source being built. Python's own
        # semantics: annotations stay hints (annotation_typing off: an `int` or `float`
        # annotation would otherwise become a C type or a type check that raises TypeError
        # where the engine gives its own error), functions stay introspectable (binding), and an
        # attribute of a typed state that is None raises AttributeError as in Python
        # (nonecheck) instead of reading a NULL.
        self.distribution.ext_modules[:] = cythonize(
            self.distribution.ext_modules, language_level=3, quiet=True, force=True,
            build_dir="build/cython", include_path=[str(include)],
            compiler_directives={"binding": True, "annotation_typing": False,
                                 "nonecheck": True})
        super().finalize_options()

if compile_requested():
    setup(ext_modules=[Extension(module_name(s), [s], extra_compile_args=["-g0"])
                       for s in compiled_sources()],
          cmdclass={"build": CleanBuild, "build_ext": CythonBuildExt},
          setup_requires=["Cython>=3.0"])
else:
    setup(cmdclass={"build": CleanBuild})
