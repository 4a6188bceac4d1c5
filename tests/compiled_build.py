"""The compiled core's build for tests/test_compiled.py, started in the background.

``LOSTCITIES_COMPILE=1 pip wheel .`` of a copy of the project (so that the working tree
gets no build folder), in pip's isolated build environment as a user's build, then the
wheel unpacked with pip into a target folder. It takes minutes (Cython, then a C compiler
over 14 modules), so tests/conftest.py starts it as soon as the compiled tests are
collected, on the machine's other core, and runs those tests last: they wait for it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: what a copy of the project leaves out: no build state, no environment, no history
SKIPPED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                                 ".hypothesis", ".pytest_cache", "*.so", "*.c")


class CompiledBuild:
    """One background build: :meth:`wait` gives the target folder or raises with pip's output."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="lc-compiled-"))
        self.site = self.folder / "site"
        self.error: str | None = None
        self._thread = threading.Thread(target=self._build, name="compiled-build", daemon=True)
        self._thread.start()

    def _run(self, *args: str, **env: str) -> None:
        done = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True,
                              text=True, env=dict(os.environ, **env))
        if done.returncode != 0:
            raise RuntimeError(f"pip {' '.join(args[:1])} failed ({done.returncode}):\n"
                               f"{done.stdout[-4000:]}\n{done.stderr[-8000:]}")

    def _build(self) -> None:
        try:
            source, wheels = self.folder / "source", self.folder / "wheels"
            shutil.copytree(ROOT, source, ignore=SKIPPED)
            self._run("wheel", "--no-deps", "-q", "-w", str(wheels), str(source),
                      LOSTCITIES_COMPILE="1")
            (wheel,) = wheels.glob("lostcities-*.whl")
            self._run("install", "--no-deps", "-q", "--target", str(self.site), str(wheel))
        except Exception as exc:  # reported by wait(), in the test that needs the build
            self.error = f"{type(exc).__name__}: {exc}"

    def wait(self, timeout: float) -> Path:
        """The unpacked compiled install, once built (at most ``timeout`` seconds more)."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"the compiled build took more than {timeout:.0f} s more")
        if self.error is not None:
            raise RuntimeError(self.error)
        return self.site

    def remove(self) -> None:
        """Deletes the build's folder (after the session; a build still running keeps it)."""
        if not self._thread.is_alive():
            shutil.rmtree(self.folder, ignore_errors=True)


#: the session's build, started by tests/conftest.py when compiled tests are collected
current: CompiledBuild | None = None


def start() -> CompiledBuild:
    """Starts the session's build once; later calls give the same build."""
    global current
    if current is None:
        current = CompiledBuild()
    return current
