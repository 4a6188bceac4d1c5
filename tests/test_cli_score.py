"""``lc score``: the table-top calculator, through typer's CliRunner."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lostcities.cli.app import app

EXAMPLE_000 = "y5 y8 y10 wx gx g3 g5 g7 rx rx r2 r3 r5 r7 r8 r10".split()


def lc(*args: str):
    return CliRunner().invoke(app, ["score", *args])


def table_rows(stdout: str) -> dict[str, list[str]]:
    """expedition name -> the other cells of its table line."""
    rows = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if len(cells) > 2 and cells[0] in ("yellow", "blue", "white", "green", "red", "purple"):
            rows[cells[0]] = cells[1:]
    return rows


def test_worked_example_of_000_as_a_table() -> None:
    result = lc("--pack", "duel-classic", *EXAMPLE_000)
    assert result.exit_code == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "expedition" in line)
    assert [c.strip() for c in header.strip("┃ ").split("┃")] == [
        "expedition", "cards", "sum", "cost", "multiplier", "bonus", "score"]
    rows = table_rows(result.stdout)
    assert rows["yellow"] == ["5 8 10", "23", "20", "1", "0", "3"]
    assert rows["white"] == ["x", "0", "20", "2", "0", "-40"]
    assert rows["blue"] == ["-", "0", "0", "1", "0", "0"]
    assert rows["green"] == ["x 3 5 7", "15", "20", "2", "0", "-10"]
    assert rows["red"] == ["x x 2 3 5 7 8 10", "35", "20", "3", "20", "65"]
    assert result.stdout.splitlines()[-1] == "Total: 18"
    assert result.stderr == ""


def test_default_pack_is_duel_classic_and_cards_are_case_insensitive() -> None:
    result = lc(*(c.upper() for c in EXAMPLE_000))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "Total: 18"


def test_json_of_002s_example() -> None:
    result = lc("--json", "bx", "b2", "b6", "b7", "b8", "WX", "w4", "w6", "w8", "w10")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["pack"] == "duel-classic" and doc["total"] == 22
    by_colour = {e["colour"]: e for e in doc["expeditions"]}
    assert list(by_colour) == ["yellow", "blue", "white", "green", "red"]
    assert by_colour["blue"] == {"colour": "blue", "cards": ["bx", "b2", "b6", "b7", "b8"],
                                 "score": 6, "breakdown": {"sum": 23, "cost": 20,
                                                           "multiplier": 2, "bonus": 0}}
    assert by_colour["white"]["score"] == 16
    assert by_colour["red"] == {"colour": "red", "cards": [], "score": 0,
                                "breakdown": {"sum": 0, "cost": 0, "multiplier": 1, "bonus": 0}}


def test_several_players_separated_by_a_slash() -> None:
    result = lc("r5", "r8", "/", "b4", "b9", "gx")
    assert result.exit_code == 0
    out = result.stdout
    assert out.index("Player 1") < out.index("Total: -7") < out.index("Player 2")
    assert out.splitlines()[-1] == "Total: -47"
    # three players: duel-grenoble seats 3 or 4 (its cost is 15)
    doc = json.loads(lc("--json", "--pack", "duel-grenoble", "r5 r8", "/", "b4 b9/gx").stdout)
    assert [p["total"] for p in doc["players"]] == [-2, -2, -30]
    assert "expeditions" not in doc


@pytest.mark.parametrize("args, message", [
    (["r5", "r3"], "r3 cannot follow r5 on the red row: this pack needs strictly "
                   "increasing values"),
    (["r5", "rx"], "rx cannot follow r5 on the red row: wagers go before the number cards"),
    (["r5", "r5"], "r5 is given 2 times but the duel-classic deck holds it once"),
    (["r5", "/", "r5"], "r5 is given 2 times"),
    (["b3", "/", "r5", "r2"], "player 2: r2 cannot follow r5 on the red row"),
    (["q5"], "'q5': unknown colour 'q'; this pack's colours are y, b, w, g, r"),
    (["r11"], "'r11': value 11 is outside 2-10"),
    (["--pack", "duel-basic", "rx"], "'rx': this pack has no wager cards"),
])
def test_refused_input_is_one_line_on_stderr_exit_1(args: list[str], message: str) -> None:
    result = lc(*args)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("lc: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["--pack", "duel-clasic", "r5"], "duel-clasic: error LC009 no such built-in pack"),
    (["r5", "/"], "player 2 has no cards"),
    (["/"], "player 1 has no cards"),
])
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = lc(*args)
    assert result.exit_code == 2
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_no_cards_is_a_usage_error() -> None:
    assert lc().exit_code == 2


def test_other_packs_score_by_their_own_formulas(tmp_path: Path) -> None:
    six = lc("--json", "--pack", "duel-six", "p4", "p6")
    assert json.loads(six.stdout)["expeditions"][-1]["colour"] == "purple"
    assert json.loads(six.stdout)["total"] == -10
    equal = lc("--json", "--pack", "duel-equal", "r5", "r5")
    assert equal.exit_code == 1 and "holds it once" in equal.stderr
    house = tmp_path / "cheap.yaml"
    house.write_text("id: cheap\nextends: duel-classic\nscoring:\n  constants:\n"
                     "    cost: 10\n", encoding="utf-8")
    result = lc("--json", "--pack", str(house), "r5", "r8")
    assert json.loads(result.stdout)["total"] == 3


def test_a_broken_pack_file_is_reported_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: broken\nextends: duel-classic\nscoring:\n"
                      "  expedition: points - cots\n", encoding="utf-8")
    result = lc("--pack", str(broken), "r5")
    assert result.exit_code == 1
    assert "broken.yaml:4:24: error LC102 unknown field `cots`" in result.stderr
    assert result.stderr.count("\n") == 1


def test_help_documents_the_player_separator() -> None:
    result = CliRunner().invoke(app, ["score", "--help"])
    assert result.exit_code == 0
    assert "separate their words with /" in result.stdout


# --------------------------------------------------------------------------- board packs
# board-classic: spaces [0, -20, -15, -10, 5, 10, 15, 30, 35, 50] (index 0 the centre),
# the leader doubles its space, round = max(0, sum of pawns) + tokens, match = sum of
# rounds + artefact_scale[min(artefacts, 9)], artefact_scale [-20, -10, -5, 0, 5, ...].

def board_rows(stdout: str) -> list[list[str]]:
    """The body lines of every pawn table: [track, space, leader, points]."""
    rows = []
    for line in stdout.splitlines():
        if line.startswith("│"):
            rows.append([c.strip() for c in line.strip("│").split("│")])
    return rows


def house_pack(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"id: {name}\nextends: board-classic\n{text}", encoding="utf-8")
    return str(path)


#: three pawns, two of them leaders, six spaces; a leader triples; a pawn left in the
#: centre is worth 100 by the round formula; two artefact tiles, two rounds
TRIO = """board:
  pawns: 3
  leaders: 2
  spaces: 6
  bridge_after: 4
  tile_spaces: [2, 3, 4, 5]
  tiles:
    - {kind: artefact, count: 2}
    - {kind: points, value: 5, count: 3}
match:
  rounds: 2
scoring:
  tables:
    spaces: [0, -5, 0, 5, 10, 20, 40]
  pawn: if leader then 3 * spaces[space] else spaces[space]
  round: sum(p.score for p in pawns) + tokens + 100 * count(p for p in pawns where p.track < 0)
  match: sum(r for r in rounds) + 7 * artefacts + tokens
"""


def test_board_round_as_a_table() -> None:
    result = lc("--pack", "board-classic", "y7+", "b9", "g4", "r2", "tokens=15", "artefacts=2")
    assert result.exit_code == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "track" in line)
    assert [c.strip() for c in header.strip("┃ ").split("┃")] == [
        "track", "space", "leader", "points"]
    # y7 leader 2 * 30, b9 50, g4 5, r2 -15; white's pawn is in the centre
    assert board_rows(result.stdout) == [
        ["yellow", "7", "yes", "60"], ["blue", "9", "", "50"], ["green", "4", "", "5"],
        ["red", "2", "", "-15"], ["centre", "0", "", "0"]]
    lines = result.stdout.splitlines()
    assert "Pawns: 100  Tokens: 15" in lines
    assert "Round total: 115 (round formula: max(0, sum(p.score for p in pawns)) + tokens)" \
        in lines
    # artefact_scale[2] = -5; holding none would be artefact_scale[0] = -20
    assert lines[-1] == ("Artefacts: 2, worth -5 at the match's end by the match formula "
                         "(-20 with none)")
    assert not any(line.startswith("Match total") for line in lines)  # a 3-round match
    assert result.stderr == ""


def test_board_round_never_below_zero_but_tokens_on_top() -> None:
    # r1 leader 2 * -20, b2 -15, w3 -10: -65 floored at 0, then the 10 tokens
    result = lc("--json", "--pack", "board-classic", "R1*", "b2", "W3", "TOKENS=10")
    doc = json.loads(result.stdout)
    assert [p["score"] for p in doc["pawns"]] == [-40, -15, -10, 0, 0]
    assert doc["total"] == 10 and doc["tokens"] == 10 and doc["artefacts"] == 0
    assert doc["artefact_points"] == -20


def test_board_players_and_json() -> None:
    args = ["--pack", "board-classic", "y7+ b9 g4 r2 tokens=15 artefacts=2", "/",
            "r1+", "b2", "w3", "tokens=10", "artefacts=1/g9+", "y8", "w6", "b5", "r4",
            "artefacts=5"]
    table = lc(*args)
    assert table.exit_code == 0, table.stderr
    out = table.stdout
    assert out.index("Player 1") < out.index("Round total: 115") < out.index("Player 2") \
        < out.index("Round total: 10 ") < out.index("Player 3") < out.index("Round total: 165")
    doc = json.loads(lc("--json", *args).stdout)
    assert doc["pack"] == "board-classic" and "pawns" not in doc
    first, second, third = doc["players"]
    assert first == {
        "pawns": [{"track": "yellow", "space": 7, "leader": True, "score": 60},
                  {"track": "blue", "space": 9, "leader": False, "score": 50},
                  {"track": "green", "space": 4, "leader": False, "score": 5},
                  {"track": "red", "space": 2, "leader": False, "score": -15},
                  {"track": None, "space": 0, "leader": False, "score": 0}],
        "tokens": 15, "artefacts": 2, "artefact_points": -5, "total": 115,
        "match_total": None}
    # the leader comes first, as the engine numbers pawns; the rest in the order given
    assert [(p["track"], p["leader"], p["score"]) for p in second["pawns"]] == [
        ("red", True, -40), ("blue", False, -15), ("white", False, -10),
        (None, False, 0), (None, False, 0)]
    assert (second["total"], second["artefact_points"]) == (10, -10)
    # g9 leader 2 * 50, y8 35, w6 15, b5 10, r4 5; artefact_scale[5] = 10
    assert [p["score"] for p in third["pawns"]] == [100, 35, 15, 10, 5]
    assert (third["total"], third["tokens"], third["artefact_points"]) == (165, 0, 10)


def test_a_player_with_every_pawn_in_the_centre() -> None:
    result = lc("--json", "--pack", "board-classic", "y3", "/", "tokens=0")
    second = json.loads(result.stdout)["players"][1]
    assert second["pawns"] == [{"track": None, "space": 0, "leader": leader, "score": 0}
                               for leader in (True, False, False, False, False)]
    assert second["total"] == 0


def test_board_short_gives_the_match_total_of_its_one_round() -> None:
    # board-short: board-classic in one round, artefact_scale [-10, -5, 0, 5, ...]
    args = ["--pack", "board-short", "y7+", "b9", "tokens=5", "artefacts=3"]
    result = lc(*args)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "Round total: 115 (round formula: max(0, sum(p.score for p in pawns)) + tokens)" \
        in lines
    assert "Artefacts: 3, worth 5 at the match's end by the match formula (-10 with none)" \
        in lines
    assert lines[-1].startswith("Match total: 120 (a one-round match")
    doc = json.loads(lc("--json", *args).stdout)
    assert (doc["pack"], doc["total"], doc["artefact_points"], doc["match_total"]) == \
        ("board-short", 115, 5, 120)


def test_board_updown_scores_pawns_like_board_classic() -> None:
    doc = json.loads(lc("--json", "--pack", "board-updown", "w5+", "g8", "artefacts=9").stdout)
    # w5 leader 2 * 10, g8 35; artefact_scale[9] = 30
    assert (doc["pack"], doc["total"], doc["artefact_points"]) == ("board-updown", 55, 30)


def test_a_house_board_pack_scores_by_its_own_board_and_formulas(tmp_path: Path) -> None:
    trio = house_pack(tmp_path, "trio", TRIO)
    result = lc("--json", "--pack", trio, "y5+", "b4", "tokens=5", "artefacts=1")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    # y5 leader 3 * 20, the second leader in the centre, b4 10: 70 + 5 tokens + 100
    assert doc["pawns"] == [{"track": "yellow", "space": 5, "leader": True, "score": 60},
                            {"track": None, "space": 0, "leader": True, "score": 0},
                            {"track": "blue", "space": 4, "leader": False, "score": 10}]
    assert doc["total"] == 175
    assert doc["artefact_points"] == 7 and doc["match_total"] is None  # two rounds
    refused = lc("--pack", trio, "y1+", "b6+", "w1+")
    assert refused.exit_code == 1
    assert "'w1+': a leader too many, trio gives each player only 2 leader pawns" \
        in refused.stderr
    assert "'r7': space 7 is outside 1-6" in lc("--pack", trio, "r7").stderr
    assert "'w2': a pawn too many, trio gives each player 3 pawns, 2 of them leaders" \
        in lc("--pack", trio, "y5+", "r4", "w2").stderr
    assert "holds 2 artefact tiles a round, at most 4 in its 2-round match" \
        in lc("--pack", trio, "artefacts=5").stderr


def test_board_refusals_from_other_house_packs(tmp_path: Path) -> None:
    flat = house_pack(tmp_path, "flat", "board:\n  leaders: 0\n")
    result = lc("--pack", flat, "y3", "b4+")
    assert result.exit_code == 1
    assert result.stderr == "lc: error: 'b4+' marks a leader, but flat has no leader pawns\n"
    rows = house_pack(tmp_path, "rows", "scoring:\n  round: sum(p.score for p in pawns) + "
                                        "count(e for e in expeditions)\n")
    result = lc("--pack", rows, "y3")
    assert result.exit_code == 1
    assert "the round formula of rows scores card rows as well as pawns" in result.stderr


def assert_one_line_error(result, code: int, message: str) -> None:
    """``lc score`` refused: exit ``code``, nothing on stdout, one error line with ``message``."""
    assert result.exit_code == code
    assert result.stdout == ""
    assert result.stderr.startswith("lc: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["y10"], "'y10': space 10 is outside 1-9, the spaces of a board-classic track"),
    (["y0"], "'y0': space 0 is outside 1-9, the spaces of a board-classic track (a pawn in "
             "the centre is not written)"),
    (["g-3"], "'g-3': space -3 is outside 1-9"),
    (["y5", "y8"], "'y8': a second pawn on the yellow track, where 'y5' stands; a player "
                   "has one pawn per track"),
    (EXAMPLE_000, "'y8': a second pawn on the yellow track, where 'y5' stands; a player has "
                  "one pawn per track (one word per pawn: board-classic scores pawns on "
                  "tracks, not cards)"),
    (["b3", "/", "r5", "R6"], "player 2: 'R6': a second pawn on the red track, where 'r5'"),
    (["y5+", "b3*"], "'b3*': a leader too many, board-classic gives each player only 1 "
                     "leader pawn"),
    (["y1", "b2", "w3", "g4", "r5"], "'r5': a pawn too many, board-classic gives each player "
                                     "5 pawns, 1 of them the leader (mark the leader's word "
                                     "with +)"),
    (["q5"], "'q5': unknown colour 'q'; this pack's colours are y, b, w, g, r"),
    (["y5", "wx"], "'wx' is a card, but board-classic scores pawns on tracks, not "
                   "expeditions: write one word per pawn on a track, its colour key then its "
                   "space 1-9 (y7, r9+ for a leader), and tokens=N artefacts=N"),
    (["artefacts=28"], "'artefacts=28': board-classic's board holds 9 artefact tiles a "
                       "round, at most 27 in its 3-round match"),
    (["y2 artefacts=20", "/", "artefacts=8"], "artefacts: the players hold 28 in all, but "
                                              "board-classic's board holds 9 artefact tiles"),
])
def test_board_input_the_pack_refuses_exits_1(args: list[str], message: str) -> None:
    assert_one_line_error(lc("--pack", "board-classic", *args), 1, message)


@pytest.mark.parametrize("args, message", [
    (["hello"], "'hello' is neither a pawn nor a count: write one word per pawn on a track"),
    (["y5", "/", "y5", "7"], "player 2: '7' is neither a pawn nor a count"),
    (["tokens=-3"], "'tokens=-3': tokens is a whole number, 0 or more (e.g. tokens=12)"),
    (["tokens=1.5"], "'tokens=1.5': tokens is a whole number, 0 or more"),
    (["tokens="], "'tokens=': tokens is a whole number, 0 or more"),
    (["artefacts=two"], "'artefacts=two': artefacts is a whole number, 0 or more"),
    (["tokens=3", "y2", "tokens=4"], "'tokens=4': tokens is given twice (one tokens=N per "
                                     "player)"),
    (["coins=3"], "'coins=3': unknown count coins=; the board notation counts tokens=N and "
                  "artefacts=N"),
    (["y5", "/"], "player 2 has no pawns: give each player's pawns, separated by / "
                  "(tokens=0 for one whose pawns are all in the centre)"),
])
def test_board_usage_errors_exit_2(args: list[str], message: str) -> None:
    assert_one_line_error(lc("--pack", "board-classic", *args), 2, message)


@pytest.mark.parametrize("args, message", [
    (["y7+"], "'y7+' is board notation (pawns, tokens, artefacts), but duel-classic scores "
              "expeditions of cards: give cards, colour key then value or x for a wager "
              "(r5, gx)"),
    (["r5", "/", "b3", "artefacts=2"], "player 2: 'artefacts=2' is board notation"),
    (["--pack", "duel-basic", "r5", "tokens=3"], "'tokens=3' is board notation (pawns, "
                                                 "tokens, artefacts), but duel-basic scores "
                                                 "expeditions of cards: give cards, colour "
                                                 "key then value (r5, g3)"),
])
def test_a_duel_pack_refuses_the_board_notation(args: list[str], message: str) -> None:
    result = lc(*args)
    assert result.exit_code == 1
    assert result.stderr.startswith("lc: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_help_documents_the_board_notation() -> None:
    result = CliRunner().invoke(app, ["score", "--help"])
    assert "lc score --pack board-classic y7+ b9 g4 r2 tokens=15 artefacts=2" in result.stdout
    # the example's round total, as the help states it
    doc = json.loads(lc("--json", "--pack", "board-classic", *"y7+ b9 g4 r2 tokens=15 "
                        "artefacts=2".split()).stdout)
    assert "round total 115, the 2 artefacts -5" in " ".join(result.stdout.split())
    assert (doc["total"], doc["artefact_points"]) == (115, -5)
