"""Issue #13, fuzzed: ``lc validate --format github`` carries any file name and message as
data (one workflow command per problem, read back to the same text), and
``LC_PROGRESS_INTERVAL`` is a number of seconds or one error line, whatever it holds."""
from __future__ import annotations

import math
import re

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.cli.common import progress_interval
from lostcities.engine.safeio import is_hidden

COMMAND = re.compile(r"^::error (?P<props>[^:]*)::(?P<message>[^\r\n]*)$")


def unescape(text: str) -> str:
    return (text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":")
            .replace("%2C", ",").replace("%25", "%"))


# file names the file system holds: no "/" or NUL, not "." or ".."
names = st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)),
                min_size=1, max_size=30).filter(lambda s: s not in (".", ".."))
keys = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=names, key=keys)
def test_github_lines_carry_any_name_and_key(tmp_path_factory, name: str, key: str) -> None:
    folder = tmp_path_factory.mktemp("gh")
    path = folder / (name + ".yaml")
    try:
        path.write_text('id: bad\nextends: duel-classic\n'
                        + f'"{key.encode("unicode_escape").decode().replace(chr(34), "")}": 1\n')
    except OSError:  # a name too long for this file system
        return
    result = CliRunner().invoke(app, ["validate", "-f", "github", str(path)],
                                env={"GITHUB_ACTIONS": ""})
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.stdout.splitlines()
    assert lines, result.output
    for line in lines:
        found = COMMAND.match(line)
        assert found, line
        props = dict(p.split("=", 1) for p in found["props"].split(","))
        assert set(props) <= {"file", "line", "col", "title"}
        assert re.fullmatch(r"LC\d{3}", props["title"])
        assert not found["message"].startswith(props["title"])
        shown = unescape(props["file"])
        assert not any(is_hidden(ch) and ch not in "\r\n" for ch in shown)
        assert not any(is_hidden(ch) and ch not in "\r\n\t"
                       for ch in unescape(found["message"]))


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=40), st.floats(allow_nan=True).map(repr),
                 st.integers().map(str)))
def test_any_progress_interval_is_a_number_or_one_usage_error(text: str) -> None:
    try:
        value = progress_interval({"LC_PROGRESS_INTERVAL": text})
    except typer.Exit as exit_:
        assert exit_.exit_code == 2
        return
    assert math.isfinite(value) and 0 <= value < 10 ** 9


@pytest.mark.parametrize("text, value", [("", 15.0), ("  ", 15.0), ("30", 30.0), ("1e3", 1000.0)])
def test_progress_interval_examples(text: str, value: float) -> None:
    assert progress_interval({"LC_PROGRESS_INTERVAL": text}) == value
