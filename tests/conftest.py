"""Session hooks and shared fixtures: the compiled core's build (tests/test_compiled.py)
runs beside the suite; ``bot_calls`` counts the bot moves lc play derives; the throwaway
PostgreSQL server and the stores' fixture come from tests/pg_support.py (``pg_cluster``,
started by the first test that asks for it; ``open_store``).

When tests of tests/test_compiled.py are collected, their build starts at once in the
background (tests/compiled_build.py: minutes of Cython and C on the machine's other core)
and those tests are moved to the end of the run, where they wait for it. A run of other
files starts no build, nor does ``--collect-only`` (it only counts the tests).
"""
from __future__ import annotations

import compiled_build
import pytest

pytest_plugins = ("pg_support",)

COMPILED_TESTS = "test_compiled.py"


def _is_compiled_test(item) -> bool:
    return item.path.name == COMPILED_TESTS


def pytest_collection_modifyitems(session, config, items) -> None:
    items.sort(key=_is_compiled_test)  # a stable sort: the others keep their order


def pytest_collection_finish(session) -> None:
    if session.config.option.collectonly:  # counting the tests builds nothing
        return
    if any(_is_compiled_test(item) for item in session.items):
        compiled_build.start()


def pytest_sessionfinish(session, exitstatus) -> None:
    if compiled_build.current is not None:
        compiled_build.current.remove()


@pytest.fixture
def bot_calls(monkeypatch) -> list:
    """Every bot move lc play's session derives (played, or derived again to check a
    resumed save), by the history's length when it was asked for."""
    from lostcities.cli.session import Session

    calls: list = []
    real = Session._suggest

    def counting(self, *args, **kwargs):
        calls.append(len(self.history))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Session, "_suggest", counting)
    return calls
