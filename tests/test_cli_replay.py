"""``lc replay`` through typer's runner: showing, checking, and one-line errors."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from enginehelpers import derived, pack
from lostcities.cli.app import app
from lostcities.engine.bots.base import GreedyBot, RandomBot
from lostcities.engine.lab.records import dumps
from lostcities.engine.lab.simulation import play_match


def lc(*args: str, input: str | None = None):
    return CliRunner().invoke(app, list(args), input=input)


def write(tmp_path, lines, name="games.jsonl"):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines))
    return path


def games(n, pack_id="duel-classic"):
    return [dumps(play_match(pack(pack_id), [GreedyBot(), RandomBot()], seed))
            for seed in range(n)]


def test_check_verifies_every_game(tmp_path):
    path = write(tmp_path, games(3))
    result = lc("replay", str(path), "--check")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{path}: 3 match(es) replayed, every move and score agrees\n"
    result = lc("replay", str(path), "--check", "--game", "2")
    assert result.exit_code == 0 and "1 match(es)" in result.stdout


def test_show_prints_the_match_turn_by_turn(tmp_path):
    lines = games(2, "duel-equal")
    path = write(tmp_path, lines)
    result = lc("replay", str(path), "--game", "2")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    record = json.loads(lines[1])
    assert out.splitlines()[0].startswith("duel-equal, seed 1: greedy, random")
    assert "Round 1 of 3" in out and "Round 3 of 3" in out
    first = record["rounds"][0]["turns"][0]
    verb = "plays" if first["action"] == "play" else "discards"
    assert f"   1  {record['players'][first['player']]:<12} {verb} {first['card']}," in out
    assert "without drawing" in out  # duel-equal's last play
    assert f"totals: greedy: {record['totals'][0]} · random: {record['totals'][1]}" in out
    assert "Every move and every score checked." in out
    assert out.count("ended by draw-pile-empty") == 3


def test_stdin_and_a_pack_file(tmp_path):
    p = derived("duel-classic", turn={"turn_cap": 30})
    path = tmp_path / "short.yaml"
    path.write_text("id: short\nextends: duel-classic\nturn: {turn_cap: 30}\n")
    from lostcities.engine.packs.loader import load_pack

    short = load_pack(str(path))
    line = dumps(play_match(short, [RandomBot(), RandomBot()], 4))
    assert p.turn_cap == short.turn_cap
    result = lc("replay", "-", "--check", "--pack", str(path), input=line + "\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("<stdin>: 1 match(es)")


def test_a_bad_record_names_its_line_and_exits_1(tmp_path):
    lines = games(3)
    bad = json.loads(lines[2])
    bad["rounds"][1]["scores"] = [0, 0]
    path = write(tmp_path, [lines[0], "", lines[1], json.dumps(bad)])
    result = lc("replay", str(path), "--check")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"lc: error: {path}:4: round 2: scores are [0, 0]")
    assert result.stderr.count("\n") == 1
    path = write(tmp_path, ["{not json"], "broken.jsonl")
    result = lc("replay", str(path))
    assert result.exit_code == 1 and f"{path}:1: not JSON" in result.stderr
    path = write(tmp_path, ['{"format": "chess"}'], "foreign.jsonl")
    result = lc("replay", str(path), "--check")
    assert result.exit_code == 1 and "not a lostcities-record/1 record" in result.stderr


def test_usage_errors_exit_2(tmp_path):
    result = lc("replay", str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 2 and ": no such file" in result.stderr
    path = write(tmp_path, games(1))
    result = lc("replay", str(path), "--game", "5")
    assert result.exit_code == 2 and "fewer than 5 records" in result.stderr
    result = lc("replay", str(path), "--pack", "nope")
    assert result.exit_code == 2 and "LC009" in result.stderr
    empty = write(tmp_path, [], "empty.jsonl")
    result = lc("replay", str(empty), "--check")
    assert result.exit_code == 1 and "no records" in result.stderr


def test_show_a_board_match_ends_rounds_with_pawns_tokens_and_artefacts(tmp_path):
    line = games(1, "board-short")[0]
    record = json.loads(line)
    result = lc("replay", str(write(tmp_path, [line])))
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    state = play_match(pack("board-short"), [GreedyBot(), RandomBot()], 0)
    final = state.finished[-1]
    assert f"{final.crossings} bridge crossing(s)" in out
    engaged = [(space, leader) for seat in range(2)
               for track, space, leader in final.pawns[seat] if track >= 0]
    assert engaged and out.count("@") == len(engaged) + 1  # + the caption's "@space"
    for space, leader in engaged:
        assert f"@{space}{'*' if leader else ''}" in out
    assert f"totals: greedy: {record['totals'][0]} · random: {record['totals'][1]}" in out
