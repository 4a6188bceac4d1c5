"""``lc simulate`` through typer's runner: summaries, records, options and errors."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.engine.lab.records import read_records, replay


def lc(*args: str):
    return CliRunner().invoke(app, list(args))


def test_text_summary():
    result = lc("simulate", "--pack", "duel-classic", "--games", "20", "--seed", "3",
                "--bots", "greedy,random")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.startswith("20 games of duel-classic, seed 3: greedy vs random")
    assert "95% interval" in out and "turns per round: mean" in out
    assert "rounds ended by: draw-pile-empty 60" in out
    assert result.stderr == ""  # no progress bar when stderr is not a terminal


def test_json_summary_is_one_document_and_matches_the_library():
    from lostcities.engine.lab.simulation import simulate

    result = lc("simulate", "-p", "duel-equal", "-n", "6", "-s", "11", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data == simulate("duel-equal", ["random", "random"], 6, 11).to_dict()
    assert data["bots"] == ["random", "random"] and len(data["seats"]) == 2
    assert set(data["seats"][0]) >= {"wins", "win_rate", "win_95", "shared", "score"}


def test_records_are_written_one_per_game_and_replay(tmp_path):
    path = tmp_path / "games.jsonl"
    result = lc("simulate", "-p", "duel-grenoble", "-n", "4", "-b", "random,greedy,random",
                "--record", str(path), "--workers", "2")
    assert result.exit_code == 0, result.stderr
    assert f"records: {path} (4 lines)" in result.stdout
    with open(path) as stream:
        records = list(read_records(stream, str(path)))
    assert [n for n, _ in records] == [1, 2, 3, 4]
    for n, record in records:
        assert record["players"] == ["random", "greedy", "random"]
        replay(record, where=f"{path}:{n}")


def test_default_bots_fill_the_smallest_table():
    result = lc("simulate", "-p", "duel-grenoble", "-n", "1", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["bots"] == ["random"] * 3


def test_usage_errors_exit_2_with_one_line():
    cases = [
        (["--pack", "duel-clasic"], "LC009"),
        (["--bots", "random,wizard"], "unknown bot 'wizard'"),
        (["--bots", "random"], "1 bot(s) given, duel-classic is played by 2 players"),
        (["--bots", "random,,greedy"], "an empty bot name"),
        (["--record", "/nonexistent/dir/x.jsonl"], "cannot write"),
        (["--backend", "spark"], "--backend 'spark': choose one of local, ray"),
        (["--address", "x:1"], "--address is for --backend ray"),
        (["--backend", "ray", "-w", "2"], "--workers is for --backend local"),
    ]
    for args, message in cases:
        result = lc("simulate", "-n", "1", *args)
        assert result.exit_code == 2, (args, result.stderr)
        assert result.stderr.startswith("lc: error: ") and message in result.stderr, args
        assert result.stderr.count("\n") == 1
    result = lc("simulate", "--workers", "0")
    assert result.exit_code == 2


def test_a_bot_playing_an_illegal_move_exits_1():
    result = lc("simulate", "-n", "1", "-b", "random,enginehelpers:CheatBot")
    assert result.exit_code == 1
    assert result.stderr.startswith("lc: error: bot 'cheat' (seat 2) played")


def test_an_invalid_pack_file_exits_1(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\nextends: duel-classic\nhand_size: -3\n")
    result = lc("simulate", "-p", str(bad), "-n", "1")
    assert result.exit_code == 1 and result.stderr.startswith("lc: error: ")
    assert result.stderr.count("\n") == 1
