"""Hostile saves and options for ``lc play`` (issue #12): a save never imports code, never
overwrites another file, is locked while played, leaves no stale temporary files, is read
within bounds, and an edited save is refused; every refusal is one line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.cli.session import (BOT, HUMAN, LABEL_CHARS, Player, SaveInUse, SaveLock,
                                    Session, SessionError, check_save_target, load_save_key,
                                    lock_path, parse_players, save_mac, temp_path)
from lostcities.engine import RecordError
from lostcities.engine.bots.base import BotError
from lostcities.engine.bots.registry import make_bot, names_code
from lostcities.engine.packs.loader import load_pack
from lostcities.engine.game.turn import legal_moves

LC = str(Path(sys.executable).with_name("lc"))
PLAIN_ENV = {"LANG": "C.UTF-8", "LC_ALL": None, "LC_MESSAGES": None, "COLUMNS": None}
CLASSIC = load_pack("duel-classic")
VS_GREEDY = [Player(HUMAN, "You"), Player(BOT, "greedy", "greedy")]
HOSTILE_BOTS = ["os:abort", "faulthandler:_sigsegv", "signal:pause", "builtins:breakpoint",
                "this:x"]


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("LOSTCITIES_DATA_DIR", str(folder))
    return folder


def lc(*args: str, input: str = "", env: dict | None = None):
    return CliRunner().invoke(app, ["play", *args], input=input, env={**PLAIN_ENV, **(env or {})})


#: what lc play says of a resumed save's check when it takes more than a second (a loaded
#: machine): its progress, then that it passed
CHECK_LINES = ("Checking the saved moves: ", "The saved moves are checked: ")


def check_said_only(stderr: str) -> bool:
    """Whether ``stderr`` holds nothing but the resumed save's check lines, if any."""
    return all(line.startswith(CHECK_LINES) for line in stderr.splitlines())


def one_line_error(result, code: int, *parts: str) -> str:
    """Assert ``result`` (CliRunner or CompletedProcess) failed with ``code`` and one
    ``lc: error:`` line holding ``parts``; returns that line."""
    code_got = getattr(result, "exit_code", getattr(result, "returncode", None))
    # on a loaded machine the check of a resumed save may say its progress first (after
    # 1 s, lc play's CHECK_PROGRESS_EVERY): those lines are not the error
    err = "".join(line for line in result.stderr.splitlines(keepends=True)
                  if not line.startswith(CHECK_LINES))
    assert code_got == code, (code_got, err)
    assert err.startswith("lc: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "Traceback" not in result.stdout
    for part in parts:
        assert part in err, (part, err)
    return err


def played(turns: int = 4, seed: int = 4, players=VS_GREEDY) -> Session:
    s = Session(CLASSIC, players, seed)
    for _ in range(turns):
        if s.to_move.kind == BOT:
            s.play_bot()
        else:
            s.command("1")
    return s


def write_save(path: Path, s: Session | None = None, **changes) -> Path:
    data = (s or played()).to_dict()
    data.update(changes)
    path.write_text(json.dumps(data))
    return path


# --------------------------------------------------------------------------- 1: no code from a save

@pytest.mark.parametrize("name", HOSTILE_BOTS)
def test_make_bot_imports_nothing_unless_allowed(name):
    module = name.partition(":")[0]
    fresh = module not in sys.modules
    assert names_code(name) and not names_code("ismcts@3") and not names_code("greedy")
    with pytest.raises(BotError, match="names code to import"):
        make_bot(name)
    if fresh:
        assert module not in sys.modules


@pytest.mark.parametrize("name", HOSTILE_BOTS)
def test_a_save_naming_code_is_refused_without_importing_it(tmp_path, name):
    """A real process: os:abort would abort it, signal:pause hang it, this:x print the Zen."""
    path = tmp_path / "hostile.json"
    write_save(path, players=[{"kind": "human", "label": "You"},
                              {"kind": "bot", "label": "evil", "bot": name}], moves=[])
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(tmp_path / "data"), "LANG": "C.UTF-8"}
    result = subprocess.run([LC, "play", "--resume", str(path)], capture_output=True, text=True,
                            env=env, timeout=120, stdin=subprocess.DEVNULL)
    one_line_error(result, 1, "players[1] (evil)", repr(name), f"--allow-bot {name}")
    assert "Beautiful is better than ugly" not in result.stdout + result.stderr
    assert not lock_path(path).exists()


def test_library_load_imports_nothing(tmp_path):
    assert "this" not in sys.modules
    path = write_save(tmp_path / "zen.json", players=[
        {"kind": "human", "label": "You"}, {"kind": "bot", "label": "zen", "bot": "this:x"}])
    with pytest.raises(RecordError, match=r"--allow-bot this:x"):
        Session.load(path)
    with pytest.raises(SessionError, match="names code to import"):
        Session(CLASSIC, [Player(HUMAN, "You"), Player(BOT, "zen", "this:x")], 1)
    assert "this" not in sys.modules


def test_a_user_bot_resumes_only_when_the_command_line_allows_it_again(data):
    spec = "enginehelpers:FirstMoveBot"
    first = lc("--seed", "3", "--players", f"human,bot:{spec}", "--save",
               str(data / "user.json"), input="1\n")
    assert first.exit_code == 0, first.stderr
    assert json.loads((data / "user.json").read_text())["players"][1]["bot"] == spec
    one_line_error(lc("--resume", str(data / "user.json"), input="1\n"), 1,
                   f"--allow-bot {spec}")
    again = lc("--resume", str(data / "user.json"), "--allow-bot", spec, input="1\n")
    assert again.exit_code == 0, again.stderr
    assert len(json.loads((data / "user.json").read_text())["moves"]) == 4
    one_line_error(lc("--allow-bot", spec), 2, "--allow-bot: only for resuming")


def test_built_in_bots_and_levels_resume_without_asking(tmp_path):
    players = [Player(HUMAN, "You"), Player(BOT, "ismcts@1", "ismcts@1")]
    s = played(turns=3, players=players)
    loaded = Session.load(write_save(tmp_path / "lv.json", s))
    assert [m for _, m in loaded.history] == [m for _, m in s.history]


# --------------------------------------------------------------------------- 2: no overwritten file

def test_a_new_game_never_saves_over_an_existing_file(data, tmp_path):
    precious = tmp_path / "notes.txt"
    precious.write_text("precious")
    one_line_error(lc("--save", str(precious), input="1\n"), 2, "the file exists")
    assert precious.read_text() == "precious"
    other = write_save(tmp_path / "other-game.json")
    before = other.read_text()
    one_line_error(lc("--save", str(other), input="1\n"), 2, "the file exists")
    assert other.read_text() == before


@pytest.mark.parametrize("kind", ["folder", "fifo", "device"])
def test_a_save_path_that_is_not_a_regular_file_is_refused(data, tmp_path, kind):
    if kind == "folder":
        path = tmp_path / "folder"
        path.mkdir()
    elif kind == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    else:
        path = Path("/dev/full")
    mode = os.stat(path).st_mode
    one_line_error(lc("--save", str(path), input="1\n"), 2, "not a regular file")
    assert os.stat(path).st_mode == mode
    with pytest.raises(SessionError, match="not a regular file"):
        check_save_target(path)


def test_a_resumed_game_saves_over_its_own_file_only(data, tmp_path):
    mine = write_save(tmp_path / "mine.json")
    again = lc("--resume", str(mine), "--save", str(mine), input="1\n")
    assert again.exit_code == 0, again.stderr
    assert len(json.loads(mine.read_text())["moves"]) == 6
    other = write_save(tmp_path / "other.json", played(seed=9))
    before = other.read_text()
    one_line_error(lc("--resume", str(mine), "--save", str(other)), 2, "the file exists")
    assert other.read_text() == before


def test_the_save_command_writes_no_copy_over_another_file(tmp_path):
    s = Session(CLASSIC, VS_GREEDY, 4, save_path=tmp_path / "game.json")
    s.command("1")
    s.play_bot()
    precious = tmp_path / "precious.txt"
    precious.write_text("precious")
    reply = s.command(f"save {precious}")
    assert reply.kind == "error" and "the file exists" in reply.notes[0].params["reason"]
    assert precious.read_text() == "precious"
    assert s.command(f"save {tmp_path / 'game.json'}").kind == "info"  # its own save


# --------------------------------------------------------------------------- 3, 4: the lock

def wait_for(predicate, what: str, limit: float = 120.0) -> None:
    end = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.02)


def start(args: list[str], tmp_path: Path) -> subprocess.Popen:
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(tmp_path / "data"), "LANG": "C.UTF-8"}
    return subprocess.Popen([LC, "play", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            text=True)


def saved_moves(path: Path) -> int:
    try:
        return len(json.loads(path.read_text())["moves"])
    except (OSError, ValueError):
        return -1


def test_a_second_lc_play_on_a_save_in_use_is_refused(tmp_path):
    save = tmp_path / "shared.json"
    first = start(["--seed", "5", "--players", "human,bot:greedy", "--save", str(save)],
                  tmp_path)
    try:
        wait_for(lambda: saved_moves(save) == 0 and lock_path(save).exists(), "the first game")
        env = {**os.environ, "LOSTCITIES_DATA_DIR": str(tmp_path / "data"), "LANG": "C.UTF-8"}
        second = subprocess.run([LC, "play", "--resume", str(save)], input="1\n",
                                capture_output=True, text=True, env=env, timeout=120)
        one_line_error(second, 1, f"{save} is open in another lc play (pid {first.pid})")
        first.stdin.write("1\n")
        first.stdin.flush()
        wait_for(lambda: saved_moves(save) == 2, "the first game's turn")
        first.stdin.write("quit\n")
        first.stdin.flush()
        assert first.wait(timeout=120) == 0
    finally:
        first.kill()
        first.wait()
    assert saved_moves(save) == 2 and not lock_path(save).exists()
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_lock_is_refused_in_process_and_released(tmp_path):
    save = tmp_path / "g.json"
    with SaveLock.acquire(save):
        assert lock_path(save).read_text().strip() == str(os.getpid())
        with pytest.raises(SaveInUse, match=rf"is open in another lc play \(pid {os.getpid()}\)"):
            SaveLock.acquire(save)
    assert not lock_path(save).exists()
    SaveLock.acquire(save).release()


def test_a_killed_game_leaves_a_lock_file_that_does_not_block(tmp_path):
    save = tmp_path / "killed.json"
    proc = start(["--seed", "5", "--players", "human,bot:greedy", "--save", str(save)],
                 tmp_path)
    try:
        wait_for(lambda: saved_moves(save) == 0 and lock_path(save).exists(), "the game")
    finally:
        proc.kill()
        proc.wait()
    assert lock_path(save).exists()  # kill -9 leaves the file, not the lock
    result = lc("--resume", str(save), input="1\n",
                env={"LOSTCITIES_DATA_DIR": str(tmp_path / "data")})
    assert result.exit_code == 0, result.stderr
    assert not lock_path(save).exists()


def test_stale_temporary_files_are_removed_at_start(data, tmp_path):
    save = write_save(tmp_path / "game.json")
    stale = [temp_path(save, pid) for pid in (1, 4_194_303, 999_999_999)]
    for path in stale:
        path.write_text("half a save")
    keep = [tmp_path / ".game.json.notes.tmp", tmp_path / ".other.json.12.tmp"]
    for path in keep:
        path.write_text("not ours")
    result = lc("--resume", str(save), input="1\n")
    assert result.exit_code == 0, result.stderr
    assert not any(p.exists() for p in stale) and all(p.exists() for p in keep)


# --------------------------------------------------------------------------- 8, 9, 6: bounded input

def test_saves_are_read_within_bounds(data, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    one_line_error(lc("--resume", str(deep)), 1, "nested deeper than")
    huge_seed = write_save(tmp_path / "seed.json")
    huge_seed.write_text(huge_seed.read_text().replace('"seed": 4', '"seed": ' + "7" * 5000))
    one_line_error(lc("--resume", str(huge_seed)), 1, "a number of 5,000 characters")
    one_line_error(lc("--resume", "/dev/zero"), 1, "/dev/zero: is a device, not a regular file")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    one_line_error(lc("--resume", str(fifo)), 1, "is a pipe (FIFO), not a regular file")
    big = tmp_path / "big.json"
    big.write_text(" " * (2 << 20))
    one_line_error(lc("--resume", str(big)), 1, "larger than 1,048,576 bytes")
    long_seed = write_save(tmp_path / "long.json", seed=10 ** 30)
    one_line_error(lc("--resume", str(long_seed)), 1, "seed: expected an integer of at most 20")


def test_a_saves_lang_is_checked(data, tmp_path):
    path = write_save(tmp_path / "xx.json", lang="xx")
    one_line_error(lc("--resume", str(path)), 1, "lang: 'xx' is not a language of lc play")


@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "1e308", "-1", "61"])
def test_delay_is_bounded(data, value):
    one_line_error(lc("--players", "greedy,random", "--delay", value), 2,
                   f"--delay {float(value)}: give seconds from 0 to 60")


@pytest.mark.parametrize("option", ["--save", "--resume", "SAVE", "data"])
def test_paths_too_long_are_one_line(data, tmp_path, option):
    long = str(tmp_path / ("n" * 300))
    if option == "SAVE":
        result = lc(long)
    elif option == "data":
        result = lc("--seed", "1", env={"LOSTCITIES_DATA_DIR": long})
    else:
        result = lc(option, long)
    one_line_error(result, 2, "longer than 255 bytes")


def test_a_save_name_too_long_for_its_temporary_file_is_refused(data, tmp_path):
    one_line_error(lc("--save", str(tmp_path / ("n" * 250))), 2, "a save file name longer than")


# --------------------------------------------------------------------------- names

@pytest.mark.parametrize("spec, message", [
    ("human:" + "A" * (LABEL_CHARS + 1), f"at most {LABEL_CHARS}"),
    ("human:a\x1b]0;owned\x07", "control characters"),
    ("human,bot:" + "m" * 500 + ":C", "a bot name of 502 characters"),
])
def test_names_on_the_command_line_are_bounded(data, spec, message):
    one_line_error(lc("--players", spec + (",bot" if spec.startswith("human:") else "")),
                   2, message)


@pytest.mark.parametrize("label, message", [
    ("x" * (1 << 19), "players[0].label: a name of 524,288 characters"),
    ("a\x1b[2Jb", "players[0].label: a name cannot hold control characters"),
    ("", "players[0].label: a name cannot be empty"),
])
def test_names_in_a_save_are_bounded(tmp_path, label, message):
    path = write_save(tmp_path / "names.json", players=[{"kind": "human", "label": label},
                                                          {"kind": "bot", "label": "greedy",
                                                           "bot": "greedy"}])
    with pytest.raises(RecordError) as err:
        Session.load(path)
    assert message in str(err.value) and len(str(err.value)) < 400


def test_generated_labels_stay_within_the_bound():
    players = parse_players(f"human:{'A' * LABEL_CHARS},human:{'A' * LABEL_CHARS}", CLASSIC)
    assert all(len(p.label) <= LABEL_CHARS for p in players)
    assert players[0].label != players[1].label
    bot = "enginehelpers:" + "FirstMoveBot"
    long = parse_players(f"human,bot:{bot}", CLASSIC)  # a long module:Class keeps its name
    assert long[1].bot == bot and len(long[1].label) <= LABEL_CHARS


# --------------------------------------------------------------------------- 12: tamper evidence

def test_a_save_with_a_bot_move_replaced_is_refused(tmp_path):
    s = played(turns=6)
    before, bot_move = s.history[1]
    other = next(m for m in legal_moves(before) if m != bot_move)
    data = s.to_dict()
    data["moves"] = data["moves"][:1] + [other.text()]
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RecordError) as err:
        Session.load(path)
    assert f"move 2 (round 1): the save says greedy played {other.text()!r}" in str(err.value)
    assert "the save was edited" in str(err.value) and "\n" not in str(err.value)
    write_save(path, s)
    assert Session.load(path).state.snapshot() == s.state.snapshot()


@pytest.mark.parametrize("seed", range(5, 11))
def test_a_save_with_its_seed_changed_is_refused(tmp_path, seed):
    path = write_save(tmp_path / "seed.json", played(turns=10), seed=seed)
    with pytest.raises(RecordError, match=r"move \d+ \(round 1\)"):
        Session.load(path)


def test_an_edited_save_is_one_line_on_the_command_line(data, tmp_path):
    s = played(turns=4)
    before, bot_move = s.history[1]
    other = next(m for m in legal_moves(before) if m != bot_move)
    path = write_save(tmp_path / "edited.json", s,
                      moves=[s.to_dict()["moves"][0], other.text()])
    one_line_error(lc("--resume", str(path)), 1, "the save was edited")


# --------------------------------------------------------------------------- fuzz

BASE = played(turns=6).to_dict()


def _mutations():
    scalar = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 30, 10 ** 30),
                       st.text(max_size=50), st.floats(allow_nan=False, allow_infinity=False))
    value = st.recursive(scalar, lambda inner: st.lists(inner, max_size=4)
                         | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=8)
    return st.dictionaries(st.sampled_from(sorted(BASE) + ["extra", "unchecked"]), value,
                           max_size=3)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=_mutations(), cut=st.integers(0, len(BASE["moves"])))
def test_fuzzed_saves_resume_or_give_one_line(tmp_path, changes, cut):
    data = {**BASE, "moves": BASE["moves"][:cut], **changes}
    path = tmp_path / "fuzz.json"
    path.write_text(json.dumps(data))
    try:
        Session.load(path)
    except RecordError as err:
        assert "\n" not in str(err) and len(str(err)) < 1000


def _spans():
    """``unchecked`` values: near the valid ``[FROM, TO]`` (0 <= FROM <= TO <= moves), and
    other JSON."""
    index = st.integers(-3, len(BASE["moves"]) + 3)
    return st.one_of(st.tuples(index, index).map(list), st.lists(index, max_size=4),
                     st.lists(st.one_of(st.booleans(), st.none(), st.text(max_size=3),
                                        st.floats(allow_nan=False, allow_infinity=False)),
                              min_size=2, max_size=2),
                     st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                     st.dictionaries(st.text(max_size=3), index, max_size=2))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(span=_spans(), signed=st.booleans())
@example(span=[2, 6], signed=True).via("a save of ours, checked up to move 2")
@example(span=[3, 7], signed=True).via("past the moves")
def test_fuzzed_unchecked_spans_resume_or_give_one_line(data, tmp_path, span, signed):
    """The saved moves still to check (``unchecked``, in a save signed while its check was
    unfinished), damaged, signed with the user's key or not: the game resumes (its check
    passes: the moves are genuine) or one line, exit 1."""
    content = {**BASE, "unchecked": span}
    if signed:
        content["mac"] = save_mac(content, load_save_key(data))
    path = tmp_path / "span.json"
    path.write_text(json.dumps(content))
    result = lc("--resume", str(path))
    if result.exit_code:
        one_line_error(result, 1, f"{path}: unchecked: expected [FROM, TO]")
    else:
        assert "Traceback" not in result.stdout + result.stderr
        assert check_said_only(result.stderr), result.stderr  # no error: at most the check's
        assert "unchecked" not in json.loads(path.read_text())   # checked to the end


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, 5), pick=st.integers(0, 200))
def test_fuzzed_bot_moves_are_caught(tmp_path, index, pick):
    """Any legal replacement of a bot's move is refused (the human's moves are the human's)."""
    s = played(turns=6)
    seat = s.history[index][0].to_move
    before, move = s.history[index]
    options = [m for m in legal_moves(before) if m != move]
    data = s.to_dict()
    data["moves"] = data["moves"][:index] + [options[pick % len(options)].text()]
    path = tmp_path / "fuzzmove.json"
    path.write_text(json.dumps(data))
    if s.players[seat].kind == BOT:
        with pytest.raises(RecordError, match="the save was edited"):
            Session.load(path)
    else:
        assert len(Session.load(path).history) == index + 1
