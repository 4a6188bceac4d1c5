"""The records of lc play: a finished match is recorded when it finishes, whatever comes
after (CONT playing on, the process stopped before the continued match ends); records
are named by rounds, as the room server names its own, and never written over a file."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from lostcities.cli.session import BOT, Player, Session
from lostcities.engine.packs.loader import load_pack

LC = str(Path(sys.executable).with_name("lc"))
PLAIN_ENV = {"LANG": "C.UTF-8"}
#: "1" lines that play duel-classic's 3 rounds against greedy on seed 3 (the CONT
#: question comes right after the last one)
THREE_ROUNDS = 69


def lc(args: list[str], data: Path, lines: list[str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "COLUMNS")}
    env.update(PLAIN_ENV, LOSTCITIES_DATA_DIR=str(data))
    return subprocess.run([LC, *args], input="".join(f"{line}\n" for line in lines),
                          capture_output=True, text=True, env=env, timeout=300)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_match_continued_by_cont_keeps_the_record_of_its_first_rounds(tmp_path):
    data, save = tmp_path / "data", tmp_path / "game.json"
    first = lc(["play", "--players", "human,bot:greedy", "--seed", "3", "--save", str(save)],
               data, ["1"] * THREE_ROUNDS + ["y"] + ["1"] * 5)
    assert first.returncode == 0, first.stderr
    assert "Round 4: first to play, greedy." in first.stdout  # CONT was answered, then stopped
    three = data / "records" / "game-3.jsonl"
    assert f"Game record: {three}" in first.stdout
    assert json.loads(save.read_text())["rounds"] == 4      # the save goes on with round 4
    record = json.loads(three.read_text())
    assert len(record["rounds"]) == 3 and record["seed"] == 3
    checked = lc(["replay", str(three), "--check"], data, [])
    assert checked.returncode == 0, checked.stdout + checked.stderr
    kept = digest(three)

    # the continued match ends (the CONT question then reads "1": no): its own record
    second = lc(["play", "--resume", str(save)], data, ["1"] * 200)
    assert second.returncode == 0, second.stderr
    four = data / "records" / "game-4.jsonl"
    assert f"Game record: {four}" in second.stdout and f"Game record: {three}" not in second.stdout
    assert len(json.loads(four.read_text())["rounds"]) == 4
    assert lc(["replay", str(four), "--check"], data, []).returncode == 0
    assert digest(three) == kept and not save.exists()
    assert sorted(p.name for p in (data / "records").iterdir()) == ["game-3.jsonl", "game-4.jsonl"]


def finished(tmp_path: Path) -> Session:
    pack = load_pack("duel-classic")
    s = Session(pack, [Player(BOT, "greedy", "greedy"), Player(BOT, "random", "random")], 5,
                save_path=tmp_path / "match.json")
    while s.to_move is not None:
        s.play_bot()
    return s


def test_a_record_is_never_written_over_another_file(tmp_path):
    s = finished(tmp_path)
    folder = tmp_path / "records"
    folder.mkdir()
    other = folder / "match-3.jsonl"
    other.write_text("another game's record\n")
    path = s.write_record(folder)
    assert path == folder / "match-3-2.jsonl"
    assert other.read_text() == "another game's record\n"
    assert json.loads(path.read_text())["seed"] == 5


def test_recording_the_same_match_again_keeps_one_record(tmp_path):
    # killed at the CONT question: the resumed game shows the match's end and records it
    # again; the record already there is that very record, not a new file
    s = finished(tmp_path)
    first = s.write_record(tmp_path / "records")
    again = Session.load(tmp_path / "match.json").write_record(tmp_path / "records")
    assert again == first and len(list((tmp_path / "records").iterdir())) == 1
    assert (tmp_path / "match.json").exists()   # recording does not end the game
    s.drop_save()
    assert not (tmp_path / "match.json").exists()

