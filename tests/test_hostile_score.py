"""``lc score`` against hostile words: over-long numbers, counts beyond what the formulas
hold, runtime scoring errors, and random words (issue #12, items 5 and 9). Every
refusal is one ``lc: error:`` line, exit 1 or 2, never a traceback."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.cli.score import WORD_CHARS


def lc(*args: str):
    return CliRunner().invoke(app, ["score", *args])


def one_line_error(result, code: int) -> str:
    """The error line, after checking the exit code, the one line and no traceback."""
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stderr.startswith("lc: error: ") and result.stderr.count("\n") == 1, \
        result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.stderr


@pytest.mark.parametrize("args", [
    ["y" + "9" * 5000],                                        # a card (duel pack)
    ["r5", "/", "b" + "1" * 5000],                             # the second player's card
    ["--pack", "board-classic", "y" + "9" * 5000],             # a pawn's space
    ["--pack", "board-classic", "y3", "tokens=" + "9" * 5000],
    ["--pack", "board-classic", "y3", "artefacts=" + "9" * 5000],
])
def test_an_over_long_number_is_refused_naming_the_word(args):
    line = one_line_error(lc(*args), 1)
    assert "5,0" in line and f"at most {WORD_CHARS}" in line and len(line) < 200


def test_a_word_as_long_as_the_limit_is_read():
    longest = "tokens=" + "7".rjust(WORD_CHARS - len("tokens="), "0")
    assert len(longest) == WORD_CHARS
    assert lc("--pack", "board-classic", "y3", longest).exit_code == 0
    one_line_error(lc("--pack", "board-classic", "y3", longest + "0"), 1)


@pytest.mark.parametrize("count", ["tokens=99999999999999999999", "tokens=10000000000000"])
def test_tokens_beyond_the_formulas_limit_is_one_line_with_the_scoring_error(count):
    line = one_line_error(lc("--pack", "board-classic", "y3", count), 1)
    assert line.count("error LC") == 1 and "LC104" in line and "<formula>" not in line


@pytest.mark.parametrize("args, code, says", [
    (["y3", "artefacts=99999999999999999999"], 1, "at most 27"),
    (["y3", "tokens=-1"], 2, "whole number"),
    (["y3", "artefacts=-5"], 2, "whole number"),
    (["y3", "tokens=1e9"], 2, "whole number"),
    (["y3", "tokens=٣"], 2, "whole number"),  # an Arabic-Indic digit
    (["y3", "tokens="], 2, "whole number"),
    (["y3", "coins=3"], 2, "unknown count"),
    (["y3", "tokens=1", "tokens=2"], 2, "twice"),
    (["y3", "=3"], 2, "neither a pawn nor a count"),
])
def test_every_count_word_of_the_board_notation(args, code, says):
    assert says in one_line_error(lc("--pack", "board-classic", *args), code)


def test_a_runtime_scoring_error_is_its_own_line_once(tmp_path: Path):
    pack = tmp_path / "cost.yaml"
    pack.write_text("id: cost-house\nextends: duel-classic\n"
                    "scoring:\n  constants:\n    cost: -999999999999\n")
    for args in (["y5", "y6"], ["y5", "/", "y6"]):
        line = one_line_error(lc("--pack", str(pack), *args), 1)
        assert line.count("error LC") == 1 and "LC104" in line, line
        assert "<formula>" not in line and "LC100" not in line


@pytest.mark.parametrize("args, prefix", [(["y5"], "lc: error: f.yaml"),
                                          (["y5", "/", "b4"], "lc: error: player 1: f.yaml")])
def test_a_scoring_error_while_scoring_a_row_is_printed_once(monkeypatch, args, prefix):
    """A formula failing at run time (here forced): its own line, not wrapped in LC100."""
    from lostcities.engine import rows
    from lostcities.engine.errors import ScoringError

    def failing(pack, cards):
        raise ScoringError("result 10^13 is beyond the limit", file="f.yaml", line=7, col=16,
                           code="LC104")

    monkeypatch.setattr(rows, "tally", failing)
    line = one_line_error(lc(*args), 1)
    assert line == f"{prefix}:7:16: error LC104 result 10^13 is beyond the limit\n"


# --------------------------------------------------------------------------- fuzzing

KEYS = "ybwgrpxz"
WORD = st.one_of(
    st.builds(lambda k, v, m: k + v + m, st.sampled_from(KEYS + "YB"),
              st.one_of(st.integers(-20, 10**25).map(str), st.just("x"), st.just("")),
              st.sampled_from(["", "+", "*", "x", "++"])),
    st.builds(lambda k, v: f"{k}={v}", st.sampled_from(["tokens", "artefacts", "coins", ""]),
              st.one_of(st.integers(-5, 10**30).map(str), st.text(max_size=4))),
    st.sampled_from(["/", " ", "//", "y5/b3"]),
    st.text(max_size=40),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["duel-classic", "board-classic", "duel-six", "board-updown"]),
       st.lists(WORD, min_size=1, max_size=8), st.booleans())
def test_random_words_give_a_score_or_one_error_line(pack, words, as_json):
    args = ["--pack", pack, *(["--json"] if as_json else []), "--", *words]
    result = lc(*args)
    assert result.exit_code in (0, 1, 2), (args, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        (args, result.exception)
    assert "Traceback" not in result.stdout + result.stderr
    if result.exit_code:
        assert result.stderr.startswith("lc: error: ") and result.stderr.count("\n") == 1, \
            (args, result.stderr)
    else:
        assert result.stderr == ""
