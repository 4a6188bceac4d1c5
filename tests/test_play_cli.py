"""``lc play`` end to end: piped whole matches, typos and illegal moves, undo, save, quit,
resume, a killed process, Ctrl-C, one-line errors for bad options and files, and the
interactive terminal through a pseudo-terminal (pexpect)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.cli.session import BOT, HUMAN, Player, Session
from lostcities.engine.packs.loader import load_pack
from lostcities.engine.lab.records import replay
from test_session import small_pack

LC = str(Path(sys.executable).with_name("lc"))
PLAIN_ENV = {"LANG": "C.UTF-8", "LC_ALL": None, "LC_MESSAGES": None, "COLUMNS": None}


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("LOSTCITIES_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def small(tmp_path) -> str:
    return str(small_pack(tmp_path))


def lc(*args: str, input: str = "", env: dict | None = None):
    return CliRunner().invoke(app, ["play", *args], input=input, env={**PLAIN_ENV, **(env or {})})


def found(pattern: str, text: str) -> str:
    match = re.search(pattern, text)
    assert match, (pattern, text[-2000:])
    return match.group(1)


def record_of(out: str) -> dict:
    return json.loads(Path(found(r"Game record: (\S+)", out)).read_text())


def human_turns_to_finish(pack_file: str, seed: int, players: list[Player]) -> int:
    """How many "1" lines the humans type in a match played by "1"s (bots as in lc play)."""
    s = Session(load_pack(pack_file), players, seed)
    count = 0
    while s.to_move is not None:
        if s.to_move.kind == BOT:
            s.play_bot()
        else:
            s.command("1")
            count += 1
    return count


YOU_GREEDY = [Player(HUMAN, "You"), Player(BOT, "greedy", "greedy")]


# --------------------------------------------------------------------------- whole matches

def test_a_whole_match_against_a_bot_by_piped_numbers(data, small):
    n = human_turns_to_finish(small, 3, YOU_GREEDY)
    result = lc("--pack", small, "--seed", "3", "--players", "human,bot:greedy",
                input="1\n" * n)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert result.stderr == "" and "\x1b[" not in out
    assert out.startswith("Lost Cities: You and greedy (bot). Seed 3.\n")
    assert found(r"Saving after every turn to (\S+)", out).startswith(str(data / "saves"))
    record = record_of(out)
    assert record["players"] == ["You", "greedy"] and len(record["rounds"]) == 2
    turns = [t for r in record["rounds"] for t in r["turns"]]
    assert sum(t["player"] == 0 for t in turns) == n
    assert len(re.findall(r"^You (play|discard) \[", out, re.M)) == n
    assert len(re.findall(r"^greedy (plays|discards) \[", out, re.M)) == len(turns) - n
    assert out.count("Round 1 is over") == 1 and "Round 2 is over" in out
    winner = "You" if record["totals"][0] > record["totals"][1] else "greedy"
    assert f"Winner: {winner}, with {max(record['totals'])} points!" in out or \
        "sharing the win" in out
    assert replay(record, pack=load_pack(small)).phase == 2
    assert list((data / "saves").iterdir()) == []
    check = CliRunner().invoke(app, ["replay", "--check", "--pack", small,
                                     found(r"Game record: (\S+)", out)])
    assert check.exit_code == 0, check.stderr


def test_cont_plays_on_and_the_record_has_the_extra_round(data, small):
    n = human_turns_to_finish(small, 8, YOU_GREEDY)
    result = lc("--pack", small, "--seed", "8", "--players", "human,bot:greedy",
                input="1\n" * n + "y\n" + "1\n" * 40)
    assert result.exit_code == 0, result.stderr
    first, continued = re.findall(r"Game record: (\S+)", result.stdout)
    assert len(json.loads(Path(first).read_text())["rounds"]) == 2   # recorded before CONT
    record = json.loads(Path(continued).read_text())
    assert len(record["rounds"]) == 3 and "Round 3 is over" in result.stdout


def test_bots_play_a_match_alone(data, small):
    result = lc("--pack", small, "--seed", "5", "--players", "bot:greedy,bot:random")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Watching greedy (bot) and random (bot)" in out
    record = record_of(out)
    turns = sum(len(r["turns"]) for r in record["rounds"])
    assert len(re.findall(r"^(greedy|random) (plays|discards) \[", out, re.M)) == turns
    assert "Your hand" not in out and len(record["rounds"]) == 2   # no CONT offer to bots


def test_hotseat_plays_through_and_refuses_undo(data, small):
    players = [Player(HUMAN, "Ada"), Player(HUMAN, "Bob")]
    n = human_turns_to_finish(small, 2, players)
    result = lc("--pack", small, "--seed", "2", "--players", "human:Ada,human:Bob",
                input="undo\n" + "1\n" * n + "n\n")
    assert result.exit_code == 0
    assert result.stderr == "line 1: undo is only for games against bots\n"
    record = record_of(result.stdout)
    assert record["players"] == ["Ada", "Bob"] and len(record["rounds"]) == 2
    assert "Pass the screen" not in result.stdout   # no pause when the input is a script


# --------------------------------------------------------------------------- refused lines

def two_of_a_colour(seed: int = 0) -> tuple[int, str, str]:
    """A seed whose first hand holds two numbers of one colour: (seed, high, low)."""
    rules = load_pack("duel-classic")
    codec = rules.cards
    while True:
        hand = Session(rules, YOU_GREEDY, seed).state.hands[0]
        numbers = sorted((k for k in hand if codec.value_of[k] is not None), key=codec.sort_key)
        for low, high in zip(numbers, numbers[1:]):
            if codec.colour_of[low] == codec.colour_of[high]:
                return seed, codec.format(high), codec.format(low)
        seed += 1


def test_typos_and_illegal_moves_get_one_line_each_and_the_game_goes_on(data):
    seed, high, low = two_of_a_colour()
    colour = load_pack("duel-classic").colours[
        load_pack("duel-classic").cards.colour_of[load_pack("duel-classic").cards.parse(low)]].name
    lines = ["hello", "p z9", "deck", "p " + high, "sky", "deck", f"p {low} deck", "1"]
    result = lc("--seed", str(seed), "--players", "human,bot:greedy", input="\n".join(lines))
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        "line 1: 'hello': not a move nor a command; type help for the commands",
        "line 2: 'z9' is not a card of this pack: write a colour key (y b w g r) then a value "
        "2-10, or x for a wager",
        "line 3: 'deck': first choose a card with p r5 (play) or d r5 (discard), then the draw",
        "line 5: 'sky': not a move nor a command; type help for the commands",
        f"line 7: {low} cannot go on your {colour} row: its last card is "
        f"{high[1:]} and this pack needs a higher value",
    ]
    out = result.stdout
    assert f"{high} chosen. Now draw: deck" in out
    assert re.search(rf"^You play \[{high}\] and draw from the deck\.$", out, re.M)
    assert len(re.findall(r"^You (play|discard) ", out, re.M)) == 2   # line 8 played
    path = found(r"End of input: game saved to (\S+?)\. Continue with: lc play --resume", out)
    assert "Traceback" not in out + result.stderr
    assert len(Session.load(Path(path)).history) == 4


def test_help_moves_and_hint_in_a_pipe(data):
    result = lc("--seed", "1", "--players", "human,bot:greedy", input="help\nmoves\nhint\n")
    out = result.stdout
    assert result.exit_code == 0 and result.stderr == ""
    assert "Commands, with examples:" in out and "  p r5 deck     play r5" in out
    assert "Rows: each card must be higher than the last card of its row." in out
    count = int(found(r"(\d+) legal moves; type a number to play one:", out))
    assert re.search(rf"\b{count}\s+d \w+ deck", out)
    assert re.search(r"\w+ would play: [pd] \w+ deck", out)


def test_undo_against_a_bot_in_a_pipe(data):
    result = lc("--seed", "6", "--players", "human,bot:greedy", input="2\nundo\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Took back your turn" in out and "and the turn after it." in out
    path = Path(found(r"game saved to (\S+?)\. ", out))
    assert Session.load(path).history == []


# --------------------------------------------------------------------------- save, quit, resume

def test_end_of_input_saves_and_resume_continues_exactly(data, small):
    n = human_turns_to_finish(small, 4, YOU_GREEDY)
    first = lc("--pack", small, "--seed", "4", "--players", "human,bot:greedy",
               input="1\n" * 5)
    assert first.exit_code == 0, first.stderr
    path = Path(found(r"End of input: game saved to (\S+?)\. Continue", first.stdout))
    saved = json.loads(path.read_text())
    assert saved["format"] == "lostcities-save/1" and len(saved["moves"]) == 10
    second = lc("--resume", input="1\n" * (n - 5))
    assert second.exit_code == 0, second.stderr
    assert f"Resumed {path}: round 1, turn 11." in second.stdout
    record = record_of(second.stdout)
    moves = [f"{'p' if t['action'] == 'play' else 'd'} {t['card']} {t['draw']}"
             for t in record["rounds"][0]["turns"]]
    assert moves[:10] == saved["moves"]
    assert not path.exists()
    whole = lc("--pack", small, "--seed", "4", "--players", "human,bot:greedy",
               input="1\n" * n)
    assert record_of(whole.stdout)["rounds"] == record["rounds"]


def test_quit_then_resume_a_named_file(data, small):
    result = lc("--pack", small, "--seed", "4", "--players", "human,bot:greedy",
                "--save", str(data / "mine.json"), input="1\nquit\n1\n")
    assert result.exit_code == 0
    assert f"Game saved to {data / 'mine.json'}. Continue with: lc play --resume " in \
        result.stdout.replace("\n", "")
    assert len(json.loads((data / "mine.json").read_text())["moves"]) == 2
    again = lc(str(data / "mine.json"), input="1\n")
    assert again.exit_code == 0 and "Resumed" in again.stdout
    assert len(json.loads((data / "mine.json").read_text())["moves"]) == 4


#: how long any wait on the child may take: generous, for a loaded machine (every wait
#: is on a condition, a file or a line, never a fixed time)
WAIT = 120.0


def wait_for(predicate, what: str, limit: float = WAIT) -> None:
    end = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.02)


def saved_moves(path: Path) -> int:
    try:
        return len(json.loads(path.read_text())["moves"])
    except (OSError, ValueError):
        return -1


def start(args: list[str], tmp_path: Path, data: Path) -> tuple[subprocess.Popen, Path]:
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(data), "LANG": "C.UTF-8"}
    out = open(tmp_path / "out.txt", "w")
    proc = subprocess.Popen([LC, "play", *args], stdin=subprocess.PIPE, stdout=out,
                            stderr=subprocess.STDOUT, env=env, text=True)
    return proc, tmp_path / "out.txt"


def test_a_killed_game_resumes_where_it_stopped(data, small, tmp_path):
    save = data / "killed.json"
    proc, _ = start(["--pack", small, "--seed", "7", "--players", "human,bot:greedy",
                     "--save", str(save)], tmp_path, data)
    try:
        for turn in range(1, 4):
            proc.stdin.write("1\n")
            proc.stdin.flush()
            wait_for(lambda: saved_moves(save) >= 2 * turn, f"turn {turn} to be saved")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        proc.kill()
    assert proc.returncode == -signal.SIGKILL
    saved = json.loads(save.read_text())
    assert len(saved["moves"]) == 6 and not list(save.parent.glob(".*.tmp"))
    n = human_turns_to_finish(small, 7, YOU_GREEDY)
    result = lc("--resume", str(save), input="1\n" * (n - 3))
    assert result.exit_code == 0, result.stderr
    record = record_of(result.stdout)
    first = record["rounds"][0]["turns"][:6]
    assert [f"{'p' if t['action'] == 'play' else 'd'} {t['card']} {t['draw']}"
            for t in first] == saved["moves"]


def test_ctrl_c_in_a_script_saves_and_stops(data, small, tmp_path):
    save = data / "int.json"
    proc, out = start(["--pack", small, "--seed", "7", "--players", "human,bot:greedy",
                       "--save", str(save)], tmp_path, data)
    try:
        proc.stdin.write("1\n")
        proc.stdin.flush()
        wait_for(lambda: saved_moves(save) >= 2, "the first turn to be saved")
        # and for the table after greedy's turn: lc play then waits for the next line (a
        # loaded machine may still be printing when the save appears)
        wait_for(lambda: re.search(r"greedy (plays|discards) .*Your hand", out.read_text(),
                                   re.S), "the table of the second turn")
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=WAIT)
    finally:
        proc.kill()
    printed = out.read_text()
    assert code == 130, printed[-2000:]
    assert f"Interrupted: game saved to {save}" in printed, printed[-2000:]
    assert saved_moves(save) == 2


# --------------------------------------------------------------------------- bad options and files

@pytest.mark.parametrize("args, code, message", [
    (["--resume", "--seed", "3"], 2, "--seed: a resumed game keeps its own settings"),
    (["--resume", "--pack", "duel-classic", "--players", "human,bot"], 2,
     "--players, --pack: a resumed game keeps its own settings; drop them"),
    (["--resume"], 2, "--resume: no saved game in "),
    (["--lang", "de"], 2, "--lang de: choose en or fr"),
    (["--players", "human,robot"], 2, "--players: 'robot' is not a player"),
    (["--players", "human"], 2, "--players: 1 player(s) given, duel-classic is played by 2"),
    (["--level", "4", "--players", "human,bot:greedy"], 2,
     "--level 4: no bot in this game has levels"),
    (["--level", "0"], 2, "--level 0: bot 'ismcts@0' could not be built"),
    (["--resume", "--level", "2"], 2, "--level: a resumed game keeps its own settings"),
    (["--pack", "no-such-pack"], 2, "no-such-pack"),
    (["no-such-save.json"], 2, "no-such-save.json: no such save file"),
])
def test_bad_options_are_one_line(data, args, code, message):
    result = lc(*args)
    assert result.exit_code == code
    assert result.stderr.startswith("lc: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""


def test_a_board_match_against_a_bot_by_piped_numbers(data):
    players = [Player(HUMAN, "You"), Player(BOT, "greedy", "greedy")]
    n = human_turns_to_finish("board-short", 5, players)
    result = lc("--pack", "board-short", "--seed", "5", "--players", "human,bot:greedy",
                input="1\n" * n)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.count("Board  ·  bridge crossings: ") == n
    assert "* leader  ·  ◆ artefact  ·  » step  ·  +N victory points  ·  ‖ bridge" in out
    assert re.search(r"^ points\s+-20\s+-15\s+-10\s+5\s+10\s+15\s+‖\s+30\s+35\s+50", out, re.M)
    assert re.search(r"goes onto the (yellow|blue|white|green|red) track\.", out)
    record = record_of(out)
    assert len(record["rounds"]) == 1 and replay(record).phase == 2
    assert re.search(r"player\s+pawn\s+space\s+score", out)
    assert "end bonus" in out


def test_an_unwritable_save_path_is_refused(data, tmp_path):
    (tmp_path / "file").write_text("")
    result = lc("--save", str(tmp_path / "file" / "save.json"))
    assert result.exit_code == 2
    assert result.stderr.startswith("lc: error: --save: cannot save to ")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("content, message", [
    ("{not json", "not a lostcities save: not JSON"),
    ('{"format": "lostcities-record/1"}', "a finished game's record, not a save"),
    ('{"format": "lostcities-save/1", "pack": "duel-classic", "seed": 1, "rounds": 3, '
     '"players": [{"kind": "human", "label": "a"}, {"kind": "human", "label": "b"}], '
     '"moves": ["p r99 deck"]}', "move 1 (round 1): "),
])
def test_corrupt_or_foreign_save_files_are_one_line(data, tmp_path, content, message):
    path = tmp_path / "save.json"
    path.write_text(content)
    result = lc("--resume", str(path))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"lc: error: {path}: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_french_from_the_option_and_from_the_locale(data):
    result = lc("--seed", "1", "--lang", "fr", input="aide\nzz\n")
    assert "Commandes, avec des exemples :" in result.stdout
    assert "Graine 1." in result.stdout and "Votre main" in result.stdout
    assert result.stderr == "ligne 2 : « zz » : ni un coup ni une commande ; tapez aide pour " \
                            "les commandes\n"
    assert "Fin de l'entrée : partie sauvegardée dans " in result.stdout
    by_locale = lc("--seed", "1", input="", env={"LANG": "fr_FR.UTF-8"})
    assert "Vous et " in by_locale.stdout


def test_default_players_are_you_and_the_strongest_bot(data):
    from lostcities.cli.session import strongest_bot

    result = lc("--seed", "1", input="quit\n")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"Lost Cities: You and {strongest_bot()} (bot). Seed 1.")


def test_a_second_game_mentions_the_unfinished_one(data):
    lc("--seed", "1", input="quit\n")
    assert "You have an unfinished game; lc play --resume continues it." in \
        lc("--seed", "2", input="quit\n").stdout


def test_play_is_registered_and_cheap_to_import():
    assert "play" in CliRunner().invoke(app, ["--help"]).stdout
    code = ("import sys, lostcities.cli.app; heavy = [m for m in sys.modules if m.startswith("
            "('rich.table', 'lark', 'jsonschema', 'lostcities.engine.game.turn', "
            "'lostcities.cli.session', 'lostcities.cli.render'))]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr


# --------------------------------------------------------------------------- a real terminal

def spawn(args: list[str], data: Path, **env: str) -> pexpect.spawn:
    environment = {**os.environ, "LOSTCITIES_DATA_DIR": str(data), "LANG": "C.UTF-8",
                   "TERM": "xterm-256color", **env}
    environment.pop("COLUMNS", None)
    environment.pop("LINES", None)
    return pexpect.spawn(LC, ["play", *args], env=environment, encoding="utf-8",
                         dimensions=(50, 120), timeout=WAIT)


def test_the_interactive_prompt_and_screen(data, small):
    child = spawn(["--pack", small, "--seed", "3", "--players", "human,bot:greedy"], data,
                  NO_COLOR="1")
    try:
        child.expect_exact("You > ")
        assert not re.search(r"\x1b\[(3\d|9\d)m", child.before)   # NO_COLOR: no colours
        screen = re.sub(r"\x1b\[[\d;]*[A-Za-z]", "", child.before)
        assert "Welcome to Lost Cities" in screen and "Your hand" in screen
        assert "▶ You" in screen and "y yellow" in screen and "greedy" in screen
        hand = re.findall(r"\[([ybwgr][x\d]+)\]", screen.split("Your hand", 1)[1])
        assert len(hand) == 4
        child.sendline("help")
        child.expect_exact("Commands, with examples:")
        child.expect_exact("You > ")
        child.sendline(f"d {hand[0]}")
        child.expect(r"draw from deck.*\(Enter: deck\) > ")
        child.sendline("")
        child.expect_exact("Last turns:")
        style = r"(?:\x1b\[[\d;]*m)*"
        child.expect(rf"You discard {style}\[{hand[0]}\]{style} and draw from the deck\.")
        child.expect(r"greedy(?:\x1b\[[\d;]*m)* (plays|discards) ")
        child.expect_exact("You > ")
        child.sendline("p zz")
        child.expect_exact("'zz' is not a card of this pack")
        child.sendintr()
        child.expect_exact("Save and quit? [Y/n] ")
        child.sendline("n")
        child.expect_exact("You > ")
        child.sendline("quit")
        child.expect(r"Game saved to (\S+)\.")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_the_terminal_is_in_colour_and_hotseat_hides_the_next_hand(data, small):
    child = spawn(["--pack", small, "--seed", "3", "--players", "human:Ada,human:Bob"], data)
    try:
        child.expect_exact("Pass the screen to Ada.")
        child.sendline("")
        child.expect_exact("Ada > ")
        assert re.search(r"\x1b\[[\d;]*3[1-4]m", child.before)  # coloured cards
        child.sendline("1")
        child.expect_exact("Pass the screen to Bob.")
        assert "Bob > " not in child.before
        child.sendline("")
        child.expect_exact("Bob > ")
        child.sendline("undo")
        child.expect_exact("undo is only for games against bots")
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_the_terminal_pauses_at_a_round_end_with_the_breakdown(data, small):
    child = spawn(["--pack", small, "--seed", "3", "--players", "human,bot:greedy"], data,
                  NO_COLOR="1")
    try:
        for _ in range(40):
            if child.expect_exact(["You > ", "Press Enter for round 2."]) == 1:
                break
            child.sendline("1")
        else:
            pytest.fail("round 1 never ended")
        screen = re.sub(r"\x1b\[[\d;]*[A-Za-z]", "", child.before)
        assert "Round 1 is over: the draw pile is empty." in screen
        assert re.search(r"player\s+row\s+cards\s+sum\s+cost\s+×\s+bonus\s+score", screen)
        assert re.search(r"Round 2: first to play, (You|greedy)\.", screen)
        child.sendline("")
        child.expect(r"round 2 of 2")
        child.expect_exact("You > ")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_watching_bots_on_a_terminal_and_ctrl_c_saves(data, small):
    # a long delay: Ctrl-C comes while the bots wait, however late this test reads (with
    # 0.05 s a loaded machine could finish the match before the interrupt)
    child = spawn(["--pack", small, "--seed", "3", "--players", "bot:greedy,bot:random",
                   "--delay", "3", "--save", str(data / "watch.json")], data, NO_COLOR="1")
    try:
        child.expect_exact("Watching ")
        child.expect(r"random(?:\x1b\[[\d;]*m)* (plays|discards)")
        child.sendintr()
        child.expect_exact("Save and quit? [Y/n] ")
        child.sendline("")
        child.expect_exact(f"Game saved to {data / 'watch.json'}")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0 and saved_moves(data / "watch.json") >= 2


def test_a_failing_user_bot_is_one_line_and_the_game_is_kept(data, tmp_path, monkeypatch):
    (tmp_path / "boombot.py").write_text(
        "from lostcities.engine.bots.base import Bot\n"
        "class Boom(Bot):\n"
        "    def choose(self, view):\n"
        "        raise RuntimeError('no idea')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    result = lc("--seed", "1", "--players", "bot:boombot:Boom,human", "--save",
                str(data / "boom.json"))
    assert result.exit_code == 1
    assert result.stderr == "the bot failed: bot 'boombot:Boom' failed at seat 0: " \
                            "RuntimeError: no idea\n"
    assert saved_moves(data / "boom.json") == 0


def test_an_unwritable_record_keeps_the_save(data, small):
    data.mkdir(parents=True)
    (data / "records").write_text("not a folder")
    result = lc("--pack", small, "--seed", "1", "--players", "greedy,random", "--save",
                str(data / "done.json"))
    assert result.exit_code == 1
    assert result.stderr.startswith("could not write the game record: ")
    assert result.stderr.count("\n") == 1
    assert "Game saved to" in result.stdout and Session.load(data / "done.json").to_move is None


def test_an_internal_error_is_one_line_and_the_game_is_kept(data, monkeypatch):
    def broken(self):
        raise KeyError("board")

    monkeypatch.setattr(Session, "play_bot", broken)
    result = lc("--seed", "1", "--players", "human,bot:greedy", "--save",
                str(data / "bug.json"), input="1\n")
    assert result.exit_code == 1
    assert result.stderr == "internal error (please report it): KeyError: 'board'\n"
    assert saved_moves(data / "bug.json") == 1 and "Game saved to" in result.stdout
    monkeypatch.setenv("LOSTCITIES_DEBUG", "1")
    assert isinstance(lc("--seed", "1", "--players", "human,bot:greedy",
                         input="1\n").exception, KeyError)
