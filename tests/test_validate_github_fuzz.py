"""``lc validate --format github``, fuzzed (issue #13): any file name and message is carried
as data, one workflow command per problem, read back to the same text, with no hidden
character. (``LC_PROGRESS_INTERVAL`` fuzzed: tests/test_cli_progress.py.)"""
from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lostcities.cli.app import app
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
