"""engine.safeio: the one place that opens untrusted files and parses their JSON."""
from __future__ import annotations

import io
import json
import os
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostcities.engine import InputError
from lostcities.engine.safeio import (LIMITS, check_path, escape_hidden, is_hidden, loads_json,
                                      open_regular, plain_text, read_lines, read_text,
                                      shown_path, shown_value)


@pytest.mark.parametrize("path, says", [
    ("", "an empty path"), ("a\0b", "NUL"), ("x" * 256, "longer than 255 bytes"),
    ("d/" * 2100 + "f", "longer than 4,096 bytes"), ("é" * 128, "longer than 255 bytes")])
def test_names_the_file_system_cannot_hold(path: str, says: str) -> None:
    with pytest.raises(InputError, match=says) as caught:
        check_path(path, "--save")
    assert str(caught.value).startswith("--save ") and len(str(caught.value)) < 200


def test_a_name_of_255_bytes_is_fine() -> None:
    assert str(check_path("x" * 255)) == "x" * 255


def test_only_regular_files_are_opened(tmp_path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    try:
        for path, kind in ((fifo, "is a pipe (FIFO)"), (tmp_path, "is a folder"),
                           ("/dev/zero", "is a device"), (tmp_path / "sock", "is a socket"),
                           (tmp_path / "none", "no such file")):
            with pytest.raises(InputError, match=kind.replace("(", r"\(").replace(")", r"\)")):
                read_text(path, 100)  # a FIFO with no writer: refused, not blocked
    finally:
        sock.close()
    good = tmp_path / "good.json"
    good.write_text("{}", encoding="utf-8")
    os.close(open_regular(good))


def test_sizes_are_capped_before_reading_it_all(tmp_path) -> None:
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(InputError, match="larger than 100 bytes"):
        read_text(big, 100)
    assert read_text(big, 101) == "x" * 101
    big.write_bytes(b"\xff")
    with pytest.raises(InputError, match="not UTF-8"):
        read_text(big, 100)


def test_lines_are_capped() -> None:
    lines = list(read_lines(io.StringIO("ab\ncd\n"), "f", max_line=3))
    assert lines == [(1, "ab\n"), (2, "cd\n")]
    with pytest.raises(InputError, match="f:2: a line longer than 3 characters"):
        list(read_lines(io.StringIO("ab\n" + "z" * 10_000), "f", max_line=3))


@pytest.mark.parametrize("text, says", [
    ("[" * 5000 + "]" * 5000, "nested deeper than 32"),
    ("[" * 33 + "]" * 33, "nested deeper than 32"),
    ('{"seed": ' + "9" * 5000 + "}", "a number of 5,000 characters"),
    ("[1e999999]", "beyond the range of a decimal number"),
    ("[NaN]", "NaN is not a number JSON allows"), ("[-Infinity]", "-Infinity"),
    ("{", "not JSON")])
def test_hostile_json_is_one_line(text: str, says: str) -> None:
    with pytest.raises(InputError, match=says) as caught:
        loads_json(text, "save.json")
    assert str(caught.value).startswith("save.json: ") and "\n" not in str(caught.value)


def test_json_within_the_limits_loads() -> None:
    nested = "[" * LIMITS.json_depth + "]" * LIMITS.json_depth
    assert loads_json(nested, "f") == json.loads(nested)
    assert loads_json('{"seed": ' + "9" * 64 + ', "x": 1.5}', "f") == {"seed": int("9" * 64),
                                                                       "x": 1.5}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_loads_or_is_one_input_error(text: str) -> None:
    try:
        loads_json(text, "f")
    except InputError as err:
        assert "\n" not in str(err)


def test_values_and_paths_are_shown_short_and_escaped() -> None:
    assert shown_value("r5") == "'r5'"
    assert shown_value("\x1b[2J" + "y" * 100).startswith("'\\x1b[2J") and "(104 chars)" in \
        shown_value("\x1b[2J" + "y" * 100)
    assert shown_path("/tmp/a.json") == "/tmp/a.json"
    assert "\x1b" not in shown_path("/tmp/\x1b]0;x\x07")


def test_errors_keep_their_fields_across_processes() -> None:
    """A PackError or ScoringError raised in a pool worker comes back whole (pickled), not
    rebuilt from its message (PackError.problems became a list of characters)."""
    import pickle

    from lostcities.engine import PackError, Problem, ScoringError

    problem = Problem("h.yaml", 3, 7, "LC025", "`extends` leads out", "allow it")
    back = pickle.loads(pickle.dumps(PackError([problem, problem])))
    assert back.problems == [problem, problem] and str(back) == str(problem)
    err = ScoringError("result too big", file="f.yaml", line=2, col=5, code="LC104",
                       excerpt="x", hint="smaller")
    again = pickle.loads(pickle.dumps(err))
    assert (again.message, again.file, again.line, again.col, again.code, again.excerpt,
            again.hint, str(again)) == (err.message, "f.yaml", 2, 5, "LC104", "x", "smaller",
                                        str(err))


# --------------------------------------------------------------------------- data text shown

#: what data text may hold that must not reach a screen as it is, and what it shows as
HOSTILE_TEXT = [
    ("a\tb\nc\rd\x0be\x0cf\x85g\u2028h\u2029i", "a b c d e f g h i"),   # breaks: a space each
    ("\x1b[2J\x1b]0;title\x07x", "[2J]0;titlex"),                  # ESC and BEL, C0
    ("\x7f\x9b2Jy", "2Jy"),                                          # DEL, a C1 CSI
    ("\u202eevil\u2066z\u2069", "evilz"),                            # bidi override, isolate
    ("zero\u200bwidth\u200djoin\u00adsoft\ufefftag\U000e0041", "zerowidthjoinsofttag"),
    ("lone\ud800surrogate", "lonesurrogate"),
]


@pytest.mark.parametrize("text, shown", HOSTILE_TEXT)
def test_plain_text_removes_what_could_drive_a_screen(text: str, shown: str) -> None:
    assert plain_text(text) == shown
    assert not any(is_hidden(ch) for ch in shown)


def test_plain_text_keeps_letters_of_any_script_and_no_break_spaces() -> None:
    text = "Zoë 名前 مرحبا\u00a0: «\u202fbonjour\u202f» \ue000 \U0001f600 [/bold]"
    assert plain_text(text) == text
    assert plain_text("a\nb\r\nc\u2028d", keep_newlines=True) == "a\nb \nc d"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_the_cli_the_server_and_the_rulebooks_show_data_text_by_one_rule(text: str) -> None:
    from lostcities.cli.render import plain
    from lostcities.i18n import clean
    from lostcities.server.protocol import clean_text

    shown = plain_text(text)
    assert not any(is_hidden(ch) for ch in shown)
    assert plain_text(shown) == shown and len(shown) <= len(text)
    assert plain(text) == clean(text) == shown
    assert clean_text(text, 20) == " ".join(shown.split())[:20]
    kept = plain_text(text, keep_newlines=True)
    assert kept.replace("\n", " ") == shown and kept.count("\n") == text.count("\n")


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.text(max_size=20) | st.integers(),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8))
def test_a_json_document_written_escapes_every_hidden_character_and_reads_back(data) -> None:
    written = escape_hidden(json.dumps(data, indent=1, ensure_ascii=False))
    assert json.loads(written) == data
    assert not any(is_hidden(ch) for ch in written if ch != "\n")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=30))
def test_a_double_quoted_yaml_string_written_escapes_every_hidden_character(text: str) -> None:
    import yaml

    written = escape_hidden(yaml.dump({"name": text}, default_style='"', allow_unicode=True),
                            yaml=True)
    assert yaml.safe_load(written) == {"name": text}
    assert not any(is_hidden(ch) for ch in written if ch != "\n")
