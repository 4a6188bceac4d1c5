"""Start-up: the shipped LALR parser tables, the built-in packs' recorded digests, the fast
``lc --help`` and cheap records keep behaviour identical to the slow paths they replace."""
from __future__ import annotations

import functools

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grammar_strategies import grammar_texts, terminals
from lostcities.grammar import parser as grammar_parser
from lostcities.grammar import scoring_tables

#: What a failing freshness test says.
REGENERATE = "stale: regenerate it with `python tools/regenerate.py`"

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@functools.lru_cache(maxsize=1)
def built_parser() -> lark.Lark:
    return grammar_parser.build_scoring_parser(grammar_parser.grammar_text())


def outcome(parser: lark.Lark, text: str):
    """What a parser makes of a text: its tree with positions, or the error's kind and place."""
    try:
        tree = parser.parse(text)
    except lark.exceptions.UnexpectedToken as err:
        return ("token", err.token.type, err.token.start_pos, sorted(err.expected))
    except lark.exceptions.UnexpectedCharacters as err:
        return ("character", err.pos_in_stream, sorted(err.allowed or ()))
    except lark.exceptions.LarkError as err:
        return ("other", type(err).__name__)
    return (tree, [(t.meta.start_pos, t.meta.end_pos) for t in tree.iter_subtrees()
                   if not t.meta.empty])


def test_shipped_tables_are_fresh():
    """scoring_tables.py was built from this grammar by this lark: regenerate it with
    ``python tools/regenerate.py`` when this fails."""
    assert scoring_tables.GRAMMAR_SHA256 == grammar_parser.grammar_digest(
        grammar_parser.grammar_text()), f"grammar/scoring_tables.py is {REGENERATE}"
    assert scoring_tables.LARK_VERSION == lark.__version__, \
        f"grammar/scoring_tables.py is {REGENERATE}"


def test_the_parser_is_loaded_from_the_tables_not_built():
    parser = grammar_parser.scoring_parser()
    assert parser.source_path == "<deserialized>"
    assert [t.name for t in parser.terminals] == [t.name for t in built_parser().terminals]
    assert parser.options.propagate_positions and parser.options.maybe_placeholders


def test_stale_tables_are_ignored_and_the_parser_built(monkeypatch):
    monkeypatch.setattr(scoring_tables, "GRAMMAR_SHA256", "0" * 64)
    grammar_parser.scoring_parser.cache_clear()
    try:
        parser = grammar_parser.scoring_parser()
        assert parser.source_path != "<deserialized>"
        assert outcome(parser, "1 + 2") == outcome(built_parser(), "1 + 2")
    finally:
        grammar_parser.scoring_parser.cache_clear()
    monkeypatch.setattr(scoring_tables, "LARK_VERSION", "0.0.0")
    try:
        assert grammar_parser.scoring_parser().source_path != "<deserialized>"
    finally:
        grammar_parser.scoring_parser.cache_clear()


@pytest.mark.parametrize("text", [
    "sum(v for v in values where v > 5) + 1", "if a then b else c", "let x = 3 in x * 2",
    "(points - cost) * (1 + wagers)", "1 +", "a ! b", "max(", "", "  ", "x // 0 % 2 == 1",
    "not any(v > 2 for v in values) and all(v < 9 for v in values) or e",
])
def test_loaded_and_built_parsers_agree_on_examples(text):
    assert outcome(grammar_parser.scoring_parser(), text) == outcome(built_parser(), text)


# texts of the grammar drawn as from_lark draws them, with cheap terminals and always
# finished (grammar_strategies: from_lark throws most of its draws away), so the time goes
# to comparing the parsers, not to drawing
@FUZZ
@given(st.one_of(grammar_texts(built_parser(), terminals(built_parser())),
                 st.text(max_size=60),
                 st.text(alphabet="()[]+-*/%<>=!ab12 ifthenelsforwhere,.", max_size=60)))
def test_loaded_and_built_parsers_agree_on_any_text(text):
    assert outcome(grammar_parser.scoring_parser(), text) == outcome(built_parser(), text)


def test_the_loaded_parser_offers_the_analysed_grammar():
    assert grammar_parser.scoring_parser().grammar.rule_defs


# --------------------------------------------------------------- built-in packs' digests

from lostcities.engine.packs import loader as packs  # noqa: E402
from lostcities.engine.packs import pack_digests  # noqa: E402


def test_recorded_digests_are_fresh():
    """Every built-in pack passes full validation and its recorded digest is its bytes':
    regenerate with ``python tools/regenerate.py`` when this fails."""
    assert pack_digests.SCHEMA_SHA256 == packs.text_digest(packs.schema_text()), \
        f"engine/packs/pack_digests.py is {REGENERATE}"
    paths = [packs.builtin_dir() / f"{pack_id}.yaml" for pack_id in packs.builtin_ids()]
    assert pack_digests.VOUCHED == {packs.file_digest(path) for path in paths}, \
        f"engine/packs/pack_digests.py is {REGENERATE}"
    for path in paths:
        assert not packs.validate_pack(path, schema_check=True).problems, path.name


@pytest.mark.parametrize("pack_id", packs.builtin_ids())
def test_a_vouched_builtin_reports_as_a_schema_validated_one(pack_id):
    path = packs.builtin_dir() / f"{pack_id}.yaml"
    assert packs.schema_vouched([path])
    fast = packs.validate_pack(pack_id)
    full = packs.validate_pack(pack_id, schema_check=True)
    assert fast.problems == full.problems == ()
    assert fast.resolved.data == full.resolved.data
    assert fast.resolved.origins == full.resolved.origins
    assert fast.pack.deck_size == full.pack.deck_size


def test_house_packs_and_edited_builtins_are_schema_validated(tmp_path, monkeypatch):
    text = (packs.builtin_dir() / "duel-classic.yaml").read_text(encoding="utf-8")
    house = tmp_path / "duel-classic.yaml"  # the same bytes, but not the built-in file
    house.write_text(text, encoding="utf-8")
    assert not packs.schema_vouched([house])
    bad = tmp_path / "typo.yaml"
    bad.write_text(text + "\nhand_sise: 8\n", encoding="utf-8")
    assert not packs.schema_vouched([bad])
    assert [p.code for p in packs.validate_pack(bad).problems] == ["LC030"]
    # a built-in whose digest no longer matches (edited in place) is validated too
    name = "duel-classic.yaml"
    digest = packs.file_digest(packs.builtin_dir() / name)
    monkeypatch.setattr(pack_digests, "VOUCHED", pack_digests.VOUCHED - {digest})
    assert not packs.schema_vouched([packs.builtin_dir() / name])
    monkeypatch.undo()
    monkeypatch.setattr(pack_digests, "SCHEMA_SHA256", "0" * 64)
    assert not packs.schema_vouched([packs.builtin_dir() / name])


def test_loading_a_builtin_pack_does_not_import_jsonschema():
    import subprocess
    import sys
    code = ("import sys; from lostcities.engine.packs.loader import load_pack; "
            "load_pack('duel-classic'); load_pack('board-classic'); "
            "print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------- lc --help and one command

import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

from lostcities.cli import app as lc_app  # noqa: E402
from lostcities.cli import helptext  # noqa: E402

BOUND = 300


def run_lc(*args: str, columns: str = "80", full: bool = False) -> subprocess.CompletedProcess:
    """``lc ARGS`` in a fresh process: through main() (its fast paths), or ``full``: the
    whole typer app with every command, as before."""
    code = ("from lostcities.cli.app import build_app; build_app()()" if full else
            "from lostcities.cli.app import main; main()")
    env = {**os.environ, "COLUMNS": columns}
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=BOUND)


def test_recorded_help_is_fresh():
    """cli/helptext.py matches our sources; under the typer release it was rendered with it
    is typer's text, under any other typer ``lc --help`` is typer's own rendering."""
    assert helptext.KEY == lc_app.help_key(), f"cli/helptext.py is {REGENERATE}"
    full = lc_app.rendered_help()
    if helptext.TYPER_VERSION == lc_app.typer_version():
        assert helptext.ROOT_HELP == full, f"cli/helptext.py is {REGENERATE}"
        assert lc_app.recorded_help() == helptext.ROOT_HELP
    else:  # another typer release (a CI machine): the recorded text is not used
        assert lc_app.recorded_help() is None
        assert run_lc("--help").stdout == full


def test_the_typer_version_is_read_without_importing_typer():
    code = ("import sys; from lostcities.cli.app import typer_version\n"
            "print(typer_version(), 'typer' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=BOUND, check=True)
    import typer
    assert out.stdout.split() == [typer.__version__, "False"]


def test_another_typer_release_gets_typers_own_help():
    code = ("import sys; from lostcities.cli import helptext\n"
            "helptext.TYPER_VERSION = '0.0.0'\n"
            "from lostcities.cli.app import main\n"
            "try:\n    main()\nexcept SystemExit as e:\n"
            "    print('typer' in sys.modules, e.code, file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code, "--help"],
                         env={**os.environ, "COLUMNS": "80"},
                         capture_output=True, text=True, timeout=BOUND)
    assert out.stderr.strip() == "True 0"
    assert out.stdout == lc_app.rendered_help()


@pytest.mark.parametrize("columns", ["80", "200", "60"])
def test_lc_help_is_typers_help(columns):
    fast, full = run_lc("--help", columns=columns), run_lc("--help", columns=columns, full=True)
    assert (fast.returncode, fast.stdout, fast.stderr) == (0, full.stdout, "")
    assert full.returncode == 0 and "Commands:" in fast.stdout


def test_lc_help_does_not_import_typer():
    code = ("import sys; sys.argv = ['lc', '--help']\n"
            "from lostcities.cli.app import main\n"
            "try:\n    main()\nexcept SystemExit as e:\n"
            "    print('typer' in sys.modules, e.code, file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "COLUMNS": "100"},
                         capture_output=True, text=True, timeout=BOUND)
    if helptext.TYPER_VERSION == lc_app.typer_version():
        assert out.stderr.strip() == "False 0"
        assert out.stdout == helptext.ROOT_HELP
    else:  # another typer release: typer renders it (test_another_typer_release_...)
        assert out.stderr.strip() == "True 0"
        assert out.stdout == lc_app.rendered_help()


def test_a_stale_recorded_help_falls_back_to_typer(monkeypatch):
    monkeypatch.setattr(helptext, "KEY", "0" * 64)
    assert lc_app.recorded_help() is None


@pytest.mark.parametrize("args", [
    ["simulate", "--help"], ["show", "--help"], ["validate", "--help"], ["balance", "--help"],
    ["simulate", "--games", "-1"], ["simulate", "--gmaes", "1"], ["simulate", "--bots"],
    ["nosuch"], ["simulat", "--games", "0"], ["--version"], [], ["schema", "--bad"],
    ["simulate", "--games", "0", "--workers", "0"], ["replay"],
])
def test_one_command_behaves_as_the_whole_app(args):
    fast, full = run_lc(*args), run_lc(*args, full=True)
    assert (fast.returncode, fast.stdout, fast.stderr) == \
        (full.returncode, full.stdout, full.stderr)
    assert "Traceback" not in fast.stderr


def test_lc_version_alone_builds_no_command(monkeypatch, capsys):
    """``lc --version`` prints what the option prints (the test above compares the two
    processes) without typer building every command (0.2 s of CPU before)."""
    def refused(*modules):
        raise AssertionError(f"the app was built for --version: {modules}")
    monkeypatch.setattr(lc_app, "build_app", refused)
    monkeypatch.setattr(sys, "argv", ["lc", "--version"])
    with pytest.raises(SystemExit) as stopped:
        lc_app.main()
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("lc (lostcities) ") and "core: " in out and out.endswith("\n")


def test_modules_for_a_command_line():
    assert lc_app.modules_for(["simulate", "--games", "0"]) == ("simulate",)
    assert lc_app.modules_for(["show", "duel-classic"]) == ("packs",)
    assert lc_app.modules_for(["--version"]) == lc_app.COMMAND_MODULES
    assert lc_app.modules_for(["nosuch"]) == lc_app.COMMAND_MODULES
    assert lc_app.modules_for([]) == lc_app.COMMAND_MODULES
    assert set(lc_app.COMMANDS) == set(lc_app.full_app().registered_commands and
                                       [c.name for c in lc_app.full_app().registered_commands])


@pytest.mark.parametrize("pack_id", packs.builtin_ids())
@pytest.mark.parametrize("display", ["rulepacks/{id}.yaml", "{id}", "./x/{id}.yaml"])
def test_a_shipped_document_is_the_yaml_as_loaded(pack_id, display):
    from lostcities.engine.packs.yamlsafe import load_yaml
    path = packs.builtin_dir() / f"{pack_id}.yaml"
    name = display.format(id=pack_id)
    shipped = packs.shipped_document(path, name)
    loaded = load_yaml(path, name)
    assert shipped is not None
    assert (shipped.file, shipped.data, shipped.origins) == \
        (loaded.file, loaded.data, loaded.origins)
    shipped.data["id"] = "changed"  # each load gets its own copy
    assert packs.shipped_document(path, name).data == loaded.data


def test_only_shipped_bytes_are_read_from_the_shipped_form(tmp_path, monkeypatch):
    name = "duel-classic.yaml"
    copy = tmp_path / name
    copy.write_bytes((packs.builtin_dir() / name).read_bytes())
    assert packs.shipped_document(copy, name) is None
    digest = packs.file_digest(packs.builtin_dir() / name)
    monkeypatch.setattr(pack_digests, "VOUCHED", pack_digests.VOUCHED - {digest})
    assert packs.shipped_document(packs.builtin_dir() / name, name) is None


def test_loading_a_builtin_pack_does_not_import_yaml():
    code = ("import sys; from lostcities.engine.packs.loader import load_pack; "
            "load_pack('duel-six'); print('yaml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=BOUND, check=True)
    assert out.stdout.strip() == "False"
