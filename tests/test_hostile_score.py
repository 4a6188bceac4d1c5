"""``lc score`` against hostile words: over-long numbers, counts beyond what the formulas
hold, runtime scoring errors, and random words (issue #12, items 5 and 9). Every
refusal is one ``lc: error:`` line, exit 1 or 2, never a traceback. Item 11: lc score
scores only what a game of the pack can produce (cards within the deck's copies, players
within its seats, tokens and artefacts within its tiles), so no formula runs beyond the
bounds the pack loader proved for it."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from typer.testing import CliRunner

from enginehelpers import one_line_error
from lostcities.cli.app import app
from lostcities.cli.score import WORD_CHARS


def lc(*args: str):
    return CliRunner().invoke(app, ["score", *args])


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
def test_tokens_beyond_the_formulas_limit_are_refused_before_any_formula_runs(count):
    """Item 9 then gave the round formula's LC104 (item 11: refused as no game gives it)."""
    line = one_line_error(lc("--pack", "board-classic", "y3", count), 1)
    assert line == (f"lc: error: {count!r}: board-classic's points tiles give a player at "
                    f"most 55 tokens in a round, every one of them taken once\n")


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
    import lostcities.cli.score as command  # lc score calls the public tally
    from lostcities.engine.errors import ScoringError

    def failing(pack, cards):
        raise ScoringError("result 10^13 is beyond the limit", file="f.yaml", line=7, col=16,
                           code="LC104")

    monkeypatch.setattr(command, "tally", failing)
    line = one_line_error(lc(*args), 1)
    assert line == f"{prefix}:7:16: error LC104 result 10^13 is beyond the limit\n"


# ------------------------------------------- item 11: only what a game of the pack can produce
# The pack loader bounds each formula's cost and range over the pack's games (LC104,
# LC106, LC109); lc score runs the formulas only on input such a game can produce.

LC = Path(sys.executable).with_name("lc")

#: a loadable pack (lc validate: valid) whose expedition formula is three nested aggregates
#: over a row's values: 40 values a colour, one copy, so at most 40^3 steps over its games,
#: but 900^3 (the issue's 56 s of CPU) on a row of 900 cards
CUBE = """id: cube
extends: duel-classic
deck:
  values: {min: 0, max: 39}
scoring:
  expedition: sum(sum(sum(1 for c in values) for b in values) for a in values)
"""


def run_lc(*args: str) -> subprocess.CompletedProcess:
    """The real ``lc``, bounded generously against a hang (the machine is shared)."""
    return subprocess.run([str(LC), *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def one_stderr_line(proc: subprocess.CompletedProcess, code: int) -> str:
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("lc: error: ") and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


def test_900_cards_to_three_nested_aggregates_is_one_line_through_the_real_lc(tmp_path: Path):
    pack = tmp_path / "cube.yaml"
    pack.write_text(CUBE, encoding="utf-8")
    full_row = [f"r{v}" for v in range(40)]  # the longest row of a cube game
    scored = run_lc("score", "--json", "--pack", str(pack), *full_row)
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["total"] == 40 ** 3
    nine_hundred = [f"r{v % 40}" for v in range(900)]
    line = one_stderr_line(run_lc("score", "--pack", str(pack), *nine_hundred), 1)
    assert line == "lc: error: r0 is given 23 times but the cube deck holds it once\n"
    every_card = [f"{k}{v}" for k in "ybwgr" for v in range(2, 11)] * 18  # 810 + 90 wagers
    line = one_stderr_line(run_lc("score", *every_card, *["rx"] * 90), 1)
    assert "holds it once" in line


@pytest.mark.parametrize("args, says", [
    # more number cards of a colour than the pack deals: r2 .. r10 is all of them
    (["r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r10"],
     "r10 is given 2 times but the duel-classic deck holds it once"),
    (["rx", "rx", "rx", "rx", "r2"], "rx is given 4 times but the duel-classic deck holds it "
                                     "3 times"),
    (["--pack", "duel-equal", "g3", "g3", "g3"], "g3 is given 3 times"),
    # shared by all players, who play from one deck
    (["bx", "bx", "/", "bx", "bx"], "bx is given 4 times"),
])
def test_a_row_holds_no_more_cards_than_the_pack_deals(args, says):
    assert says in one_line_error(lc(*args), 1)


@pytest.mark.parametrize("args, says", [
    (["r5", "/", "b4", "/", "g3"], "3 players given (separated by /), but duel-classic seats "
                                   "at most 2"),
    (["--pack", "board-classic", "y1", "/", "b2", "/", "w3", "/", "g4", "/", "r5"],
     "5 players given (separated by /), but board-classic seats at most 4"),
    (["--pack", "duel-grenoble", *"r2 / r3 / r4 / r5 / r6".split()], "seats at most 4"),
])
def test_no_more_players_than_the_pack_seats(args, says):
    assert says in one_line_error(lc(*args), 1)
    # a player scored alone is fine, and the pack's largest table
    assert lc("--pack", "duel-grenoble", *"r2 / r3 / r4 / r5".split()).exit_code == 0
    assert lc("--pack", "duel-classic", "r2").exit_code == 0


def board_pack(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"id: {name}\nextends: board-classic\n{text}", encoding="utf-8")
    return str(path)


def test_tokens_at_most_what_the_points_tiles_give_a_player(tmp_path: Path):
    # board-classic: points tiles 5 × 5 and 3 × 10
    assert json.loads(lc("--json", "--pack", "board-classic", "y3", "tokens=55").stdout)[
        "tokens"] == 55
    line = one_line_error(lc("--pack", "board-classic", "y3", "/", "b2", "tokens=56"), 1)
    assert line == ("lc: error: player 2: 'tokens=56': board-classic's points tiles give a "
                    "player at most 55 tokens in a round, every one of them taken once\n")
    # each player takes the points tiles for themselves: 55 each is possible
    assert lc("--pack", "board-classic", "tokens=55", "/", "tokens=55").exit_code == 0
    bare = board_pack(tmp_path, "bare", "board:\n  tiles:\n    - {kind: artefact, count: 9}\n"
                                        "    - {kind: points, value: -5, count: 2}\n")
    assert lc("--pack", bare, "y3", "tokens=0").exit_code == 0
    line = one_line_error(lc("--pack", bare, "y3", "tokens=1"), 1)
    assert "'tokens=1': bare's board has no points tiles worth tokens: tokens=0" in line


#: a round formula that reads the artefacts taken in the round, through a table sized for
#: the 9 artefact tiles of one round (the loader checks bonus[artefacts] over 0..9)
BONUS = """scoring:
  tables:
    bonus: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
  round: max(0, sum(p.score for p in pawns)) + tokens + bonus[artefacts]
"""


def test_artefacts_a_round_when_the_round_formula_counts_them(tmp_path: Path):
    pack = board_pack(tmp_path, "bonus", BONUS)
    assert json.loads(lc("--json", "--pack", pack, "y5", "artefacts=9").stdout)["total"] == 19
    line = one_line_error(lc("--pack", pack, "y5", "artefacts=10"), 1)
    assert line == ("lc: error: 'artefacts=10': bonus's board holds 9 artefact tiles a round, "
                    "and its round formula counts the artefacts taken in the round scored\n")
    line = one_line_error(lc("--pack", pack, "artefacts=5", "/", "artefacts=5"), 1)
    assert line.startswith("lc: error: artefacts: the players hold 10 in all, but bonus's "
                           "board holds 9 artefact tiles a round")
    # board-classic's round formula does not read them: a match's 27 may be held
    assert lc("--pack", "board-classic", "y5", "artefacts=27").exit_code == 0


def test_pawns_stay_within_what_the_pack_gives():
    """Already refused (tests/test_cli_score.py has each message): space, one pawn a track,
    pawns and leaders; here the words a game cannot produce, all together."""
    for words in (["y10"], ["y0"], ["y1", "y2"], ["y1+", "b1+"], "y1 b1 w1 g1 r1".split()):
        one_line_error(lc("--pack", "board-classic", *words), 1)


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


def deck_words(pack_id: str) -> list[str]:
    """Every card of the pack once, as lc score words (wagers first, then values up)."""
    from lostcities.engine import load_pack

    pack = load_pack(pack_id)
    codec = pack.cards
    return list(dict.fromkeys(codec.format(card) for card in pack.deck()))


DUEL_PACKS = ["duel-classic", "duel-equal", "duel-basic", "duel-six", "duel-grenoble"]


@st.composite
def card_multisets(draw):
    """A duel pack and players' cards: any multiset of its cards (a card up to 4 times,
    more than the deck may hold), in the order written or sorted into rows, split among
    1 to the pack's seats + 1 players."""
    from lostcities.engine import load_pack

    pack_id = draw(st.sampled_from(DUEL_PACKS))
    cards = deck_words(pack_id)
    counts = draw(st.lists(st.tuples(st.sampled_from(cards),
                                     st.one_of(st.just(1), st.integers(1, 4))),
                           min_size=1, max_size=25, unique_by=lambda wn: wn[0]))
    words = [w for w, n in counts for _ in range(n)]
    if draw(st.booleans()):
        words = sorted(words, key=cards.index)  # rows in play order: mostly legal
    else:
        words = draw(st.permutations(words))
    seats = load_pack(pack_id).max_players
    players = draw(st.integers(1, min(seats + 1, len(words))))  # each player has a card
    cuts = sorted(draw(st.lists(st.integers(1, max(1, len(words) - 1)),
                                min_size=players - 1, max_size=players - 1, unique=True)))
    groups = [words[a:b] for a, b in zip([0, *cuts], [*cuts, len(words)])]
    return pack_id, groups


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(card_multisets(), st.booleans())
def test_random_card_multisets_give_a_score_or_one_line(case, as_json):
    from lostcities.engine import load_pack

    pack_id, groups = case
    pack = load_pack(pack_id)
    words = [w for g in groups for w in [*g, "/"]][:-1]
    result = lc("--pack", pack_id, *(["--json"] if as_json else []), "--", *words)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        (words, result.exception)
    assert "Traceback" not in result.stdout + result.stderr
    held = Counter(pack.deck())
    given_ = Counter(pack.cards.parse(w) for g in groups for w in g)
    impossible = len(groups) > pack.max_players or any(n > held[c] for c, n in given_.items())
    if impossible:  # no game of the pack deals this: refused, whatever the rows' order
        one_line_error(result, 1)
    elif result.exit_code:  # a row out of order: refused in one line naming the card
        assert "cannot follow" in one_line_error(result, 1), result.stderr
    else:
        assert result.stderr == ""
        if as_json:
            doc = json.loads(result.stdout)
            totals = [p["total"] for p in doc.get("players", [doc])]
            assert len(totals) == len(groups) and all(isinstance(t, int) for t in totals)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["board-classic", "board-short", "board-updown"]),
       st.lists(st.tuples(st.integers(0, 70), st.integers(0, 30)), min_size=1, max_size=5))
def test_random_board_counts_are_scored_only_within_the_tiles(pack_id, counts):
    """tokens and artefacts a game of the pack can give are scored; others are one line."""
    from lostcities.cli.score import BoardCounts
    from lostcities.engine import load_pack

    pack = load_pack(pack_id)
    limit = BoardCounts.of(pack)
    words = [w for tokens, artefacts in counts
             for w in ["y3", f"tokens={tokens}", f"artefacts={artefacts}", "/"]][:-1]
    result = lc("--pack", pack_id, "--json", "--", *words)
    possible = (len(counts) <= pack.max_players
                and all(t <= limit.tokens and a <= limit.artefacts for t, a in counts)
                and sum(a for _, a in counts) <= limit.artefacts)
    if possible:
        assert result.exit_code == 0, (words, result.stderr)
    else:
        one_line_error(result, 1)
