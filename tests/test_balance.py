"""``lc balance``: paired statistics, per-match measures, workers, resume, early stop, CLI."""
from __future__ import annotations

import json
import math
import random
import re
import statistics

import pytest
from typer.testing import CliRunner

from enginehelpers import derived, pack
from lostcities.cli.app import app
from lostcities.engine.lab import balance as bal
from lostcities.engine.lab.balance import (MEASURES, BalanceReport, Moments, balance, match_measures,
                                       paired_interval)
from lostcities.engine.bots.base import GreedyBot
from lostcities.engine.game.moves import DECK, PLAY
from lostcities.engine.lab.simulation import Z95, game_seed, play_match
from lostcities.engine.game.turn import new_game, push, totals, winners

HOUSE = """id: cheap-duel
extends: duel-classic
house_rule: true
scoring:
  constants:
    cost: 15
"""


def lc(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def house_file(tmp_path):
    path = tmp_path / "cheap.yaml"
    path.write_text(HOUSE, encoding="utf-8")
    return path


def test_moments_merge_like_one_pass_and_paired_interval_is_the_textbook_one():
    rng = random.Random(4)
    xs = [rng.gauss(3, 7) for _ in range(101)]
    whole, parts = Moments(), [Moments(), Moments(), Moments()]
    for i, x in enumerate(xs):
        whole.add(x)
        parts[i % 3].add(x)
    merged = Moments()
    for p in parts:
        merged.merge(p)
    assert merged.count == 101
    assert math.isclose(merged.mean, statistics.mean(xs))
    assert math.isclose(merged.sd, statistics.stdev(xs))
    assert math.isclose(whole.sd, statistics.stdev(xs))
    lo, hi = paired_interval(whole)
    half = Z95 * statistics.stdev(xs) / math.sqrt(101)
    assert math.isclose(lo, statistics.mean(xs) - half) and math.isclose(hi, statistics.mean(xs) + half)
    assert Moments.from_list(whole.to_list()) == whole


def _rows_at_round_ends(p, seed):
    """Each finished round's rows, seen on the board just before the round's last turn."""
    bots = [GreedyBot(), GreedyBot()]
    from lostcities.engine.bots.base import SeatView

    state = new_game(p, 2, seed)
    rng = random.Random(f"lostcities-bots:{seed}")
    ends, pile_draws = [], 0
    while state.phase != 2:
        move = bots[state.to_move].choose(SeatView(state, state.to_move, rng))
        rows = [[list(r) for r in rs] for rs in state.rows]
        seat, number = state.to_move, state.round
        if move.action == PLAY:
            rows[seat][p.cards.colour_of[move.card]].append(move.card)
        pile_draws += move.draw is not None and move.draw != DECK
        push(state, move)
        if state.round != number or state.phase == 2:
            ends.append(rows)
    return state, ends, pile_draws


def test_match_measures_count_what_the_rows_show():
    p = pack("duel-classic")
    for seed in (3, 8):
        state, ends, pile_draws = _rows_at_round_ends(p, seed)
        assert totals(state) == totals(play_match(p, [GreedyBot(), GreedyBot()], seed))
        m = match_measures(state)
        per = 2 * len(ends)
        rows = [row for end in ends for seat in end for row in seat]
        assert m["rows_opened"] == sum(1 for r in rows if r) / per
        assert m["wagers"] == sum(1 for r in rows for k in r if p.cards.is_wager(k)) / per
        assert m["bonuses"] == sum(1 for r in rows if len(r) >= 8) / per
        assert m["discard_draws"] == pile_draws / per
        assert m["turns"] == statistics.mean(len(r.moves) for r in state.finished)
        scores = totals(state)
        assert m["score"] == sum(scores) / 2
        assert m["margin"] == abs(scores[0] - scores[1])
        assert m["close"] == (abs(scores[0] - scores[1]) < 10)
        first = state.finished[0].starter
        assert m["first_player_wins"] == (first in winners(state)) / len(winners(state))
        assert m["turn_cap"] == 0 and "crossings" not in m


def test_turn_cap_rounds_and_packs_without_a_bonus_column():
    import copy

    from lostcities.engine.game.rules import RulePack

    data = copy.deepcopy(dict(derived("duel-classic", turn={"turn_cap": 6}).data))
    data["scoring"]["breakdown"] = {"sum": "points"}
    p = RulePack.from_mapping(data, path="<no bonus column>")
    state = play_match(p, [GreedyBot(), GreedyBot()], 1)
    m = match_measures(state)
    assert m["turn_cap"] == 1.0 and m["turns"] == 6
    assert "bonuses" not in m


def test_board_packs_measure_crossings_and_artefacts():
    p = pack("board-classic")
    state = play_match(p, [GreedyBot(), GreedyBot()], 2)
    m = match_measures(state)
    assert m["crossings"] == statistics.mean(r.crossings for r in state.finished)
    assert m["artefacts"] == sum(sum(r.artefacts) for r in state.finished) / 2


def test_a_pack_against_itself_differs_in_nothing():
    p = pack("duel-classic")
    report = balance(p, p, ["greedy", "greedy"], 12, 5, workers=1)
    assert report.games == 12
    for row in report.rows():
        d = row["difference"]
        assert d["mean"] == 0 and not d["significant"], row["measure"]
        assert row["house"] == row["base"]


def test_a_cheaper_expedition_raises_scores_significantly(house_file):
    from lostcities.engine.packs.loader import load_pack

    report = balance(load_pack(str(house_file)), pack("duel-classic"), ["greedy", "greedy"], 40,
                     1, workers=1)
    rows = {r["measure"]: r for r in report.rows()}
    score = rows["score"]["difference"]
    assert score["significant"] and score["low"] > 0
    assert rows["rows_opened"]["difference"]["mean"] > 0
    # the paired difference is the mean of per-game differences, with its own interval
    house, base = load_pack(str(house_file)), pack("duel-classic")
    diffs = []
    for i in range(40):
        seed = game_seed(1, i)
        h = match_measures(play_match(house, [GreedyBot(), GreedyBot()], seed))["score"]
        b = match_measures(play_match(base, [GreedyBot(), GreedyBot()], seed))["score"]
        diffs.append(h - b)
    assert math.isclose(score["mean"], statistics.mean(diffs))
    half = Z95 * statistics.stdev(diffs) / math.sqrt(40)
    assert math.isclose(score["high"] - score["low"], 2 * half)
    spread = rows["spread"]
    assert spread["base"]["mean"] > 0 and spread["difference"]["n"] == 80


def test_the_report_is_the_same_for_any_number_of_workers(house_file):
    from lostcities.engine.packs.loader import load_pack

    house, base = load_pack(str(house_file)), pack("duel-classic")
    one = balance(house, base, ["greedy", "random"], 24, 9, workers=1, size=5)
    two = balance(house, base, ["greedy", "random"], 24, 9, workers=2, size=5)
    assert one.to_dict() == two.to_dict()
    assert one.text() == two.text()


def test_an_interrupted_run_resumes_to_the_same_result(house_file, tmp_path, monkeypatch):
    from lostcities.engine.packs.loader import load_pack

    house, base = load_pack(str(house_file)), pack("duel-classic")
    whole = balance(house, base, ["greedy", "greedy"], 20, 4, workers=1, size=4)

    def interrupt(done):
        if done >= 8:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        balance(house, base, ["greedy", "greedy"], 20, 4, workers=1, size=4,
                run_dir=str(tmp_path / "run"), progress=interrupt)
    assert sorted(p.name for p in (tmp_path / "run").glob("batch-*")) == \
        ["batch-000000.json", "batch-000001.json"]
    played = []
    real = bal.run_batch

    def counting(job, start, stop):
        played.append(start)
        return real(job, start, stop)

    monkeypatch.setattr(bal, "run_batch", counting)
    resumed = balance(house, base, ["greedy", "greedy"], 20, 4, workers=1, size=4,
                      run_dir=str(tmp_path / "run"))
    assert played == [8, 12, 16]
    assert resumed.to_dict() == whole.to_dict()


def test_precision_stops_early_at_the_same_games_for_any_workers():
    p = pack("duel-classic")
    q = derived("duel-classic", scoring={"constants": {"cost": 15}})
    runs = [balance(q, p, ["random", "random"], 400, 2, workers=w, size=10, precision=0.5)
            for w in (1, 2)]
    games = runs[0].games
    assert runs[0].stopped_early and bal.MIN_GAMES <= games < 400 and games % 10 == 0
    assert runs[0].to_dict() == runs[1].to_dict()
    assert runs[0].precise(0.5) and not runs[0].precise(0.001)
    # the first batch boundary at which the intervals were narrow enough
    shorter = balance(q, p, ["random", "random"], games - 10, 2, workers=1, size=10)
    assert games - 10 < bal.MIN_GAMES or not shorter.precise(0.5)
    plain = balance(q, p, ["random", "random"], games, 2, workers=1, size=10)
    assert plain.to_dict()["measures"] == runs[0].to_dict()["measures"]


def test_mismatched_players_and_bots_are_refused_in_one_line():
    from lostcities.engine.bots.base import BotError
    from lostcities.engine.game.state import SetupError

    p = pack("duel-classic")
    with pytest.raises(SetupError, match="3 players"):
        balance(p, p, ["greedy"] * 3, 4)
    with pytest.raises(BotError, match="unknown bot 'nobody'"):
        balance(p, p, ["greedy", "nobody"], 4)


def test_cli_text_json_and_every_measure(house_file):
    result = lc("balance", str(house_file), "--games", "10", "--bots", "greedy,greedy",
                "-w", "1", "--seed", "3")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("cheap-duel against duel-classic: 10 paired games (seed 3, bots "
                        "greedy,greedy)")
    table = parse_table(result.stdout)
    assert {m.label for m in MEASURES if not m.board} <= {label for label, _, _ in table}
    assert result.stderr == ""
    result = lc("balance", str(house_file), "-n", "10", "-b", "greedy,greedy", "-w", "2",
                "-s", "3", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["games"] == 10 and doc["house"] == "cheap-duel" and doc["base"] == "duel-classic"
    assert {r["measure"] for r in doc["measures"]} >= {"first_player_wins", "score", "spread",
                                                       "close", "turn_cap"}
    assert sum(doc["scores"]["house"].values()) == 20


def test_cli_plot_draws_a_png_or_says_matplotlib_is_missing(house_file, tmp_path):
    out = tmp_path / "balance.png"
    result = lc("balance", str(house_file), "-n", "6", "-b", "greedy,greedy", "-w", "1",
                "--plot", str(out))
    from importlib.util import find_spec

    if find_spec("matplotlib") is None:
        assert result.exit_code == 2
        assert result.stderr == ("lc: error: --plot needs matplotlib: "
                                 "pip install 'lostcities[plot]'\n")
        return
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20000


def test_cli_plot_without_matplotlib_is_one_line(house_file, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = lc("balance", str(house_file), "-n", "6", "--plot", str(tmp_path / "x.png"))
    assert result.exit_code == 2
    assert result.stderr == "lc: error: --plot needs matplotlib: pip install 'lostcities[plot]'\n"


@pytest.mark.parametrize("args, message", [
    (["--backend", "spark"], "--backend 'spark': choose one of local, ray"),
    (["--address", "x:1"], "--address is for --backend ray"),
    (["--backend", "ray", "-w", "2"], "--workers is for --backend local (Ray schedules its own"),
    (["-b", "greedy"], "--bots: 1 bot(s) given, cheap-duel is played by 2 players"),
    (["-b", "greedy,nobody"], "--bots: unknown bot 'nobody'"),
    (["-b", "ismcts@9,greedy"], "--bots: bot 'ismcts@9' could not be built: ismcts level must be"),
    (["--base", "no-such-pack"], "--base: "),
    (["--games", "0"], "Invalid value for '--games'"),
])
def test_cli_bad_options_are_one_line(house_file, args, message):
    result = lc("balance", str(house_file), "-n", "4", *args)
    assert result.exit_code == 2, result.stdout
    assert message in result.stderr
    if result.stderr.startswith("lc: error:"):
        assert result.stderr.count("\n") == 1


def test_cli_resume_folder_of_another_run_is_refused(house_file, tmp_path):
    run = tmp_path / "run"
    assert lc("balance", str(house_file), "-n", "5", "-b", "greedy,greedy", "-w", "1",
              "--resume", str(run)).exit_code == 0
    again = lc("balance", str(house_file), "-n", "5", "-b", "greedy,greedy", "-w", "1",
               "--resume", str(run))
    assert again.exit_code == 0 and again.stdout.startswith("cheap-duel against duel-classic")
    other = lc("balance", str(house_file), "-n", "5", "-b", "greedy,random", "-w", "1",
               "--resume", str(run))
    assert other.exit_code == 2
    assert "holds another run (different bots); use a new folder" in other.stderr
    assert other.stderr.count("\n") == 1


def test_report_text_marks_significance():
    report = BalanceReport("h", "b", ("greedy", "greedy"), 0, 4)
    report.add({"games": 4, "measures": {"score": {
        "house": Moments(4, 12.0, 6.0).to_list(), "base": Moments(4, 10.0, 6.0).to_list(),
        "diff": Moments(4, 2.0, 0.03).to_list()}}, "scores": {"house": {"12": 8},
                                                            "base": {"10": 8}}})
    rows = {label: (values, sig) for label, values, sig in parse_table(report.text())}
    values, sig = rows["mean score per player and match"]
    assert sig == "yes" and values[2][0] == "+2.00" and values[2][1].split()[0].startswith("+")


def parse_table(text: str) -> list[tuple[str, list[tuple[str, str]], str]]:
    """The measures of a balance text table: (label, [(value, interval)] for base, house
    and difference, sig.), each label joined from the lines it is wrapped over."""
    value_line = re.compile(r"^(?P<label>\S.*?)\s+(\S+)\s+(\S+)\s+(\S+)\s+(yes|no)$")
    interval = re.compile(r"\[(\S+), (\S+)\]")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("measure")) + 2
    table: list = []
    for i in range(start, len(lines)):
        line = lines[i]
        if not line:
            break
        found = value_line.match(line)
        if found and "[" not in line:
            table.append([found["label"], [(found[n], "") for n in (2, 3, 4)], found[5]])
        elif interval.search(line):
            label = line[:line.index("[")].strip()
            bounds = interval.findall(line)
            assert len(bounds) == 3, line
            table[-1][1] = [(v, f"{lo} {hi}") for (v, _), (lo, hi) in zip(table[-1][1], bounds)]
            if label:
                table[-1][0] += " " + label
        else:
            table[-1][0] += " " + line.strip()
    return [(label, values, sig) for label, values, sig in table]


def test_the_table_fits_80_columns_and_shows_every_number_whole(house_file):
    """Issue #13: the table was 135 columns wide and wrapped inside numbers at 80. At
    COLUMNS=80 no line is wider, and every value and bound of the JSON report is in it,
    whole, beside its measure's full label."""
    args = ["balance", str(house_file), "-n", "10", "-b", "greedy,greedy", "-w", "1", "-s", "3"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "80", "LC_PROGRESS_INTERVAL": "0"})
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    doc = json.loads(lc(*args, "--json").stdout)
    table = {label: values for label, values, _ in parse_table(result.stdout)}
    assert set(table) == {m["label"] for m in doc["measures"]}
    for m in doc["measures"]:
        percent = m["measure"] in {x.key for x in MEASURES if x.proportion}
        for (value, bounds), side in zip(table[m["label"]], ("base", "house", "difference")):
            low, high = bounds.split()
            for shown, exact in ((value, m[side]["mean"]), (low, m[side]["low"]),
                                 (high, m[side]["high"])):
                if percent:
                    assert shown.endswith("%") and abs(float(shown[:-1]) - 100 * exact) <= 0.051
                else:
                    assert re.fullmatch(r"[+-]?\d+\.\d\d?", shown), shown
                    assert abs(float(shown) - exact) <= 0.051, (m["label"], side, shown, exact)
    wide = CliRunner().invoke(app, args, env={"COLUMNS": "200", "LC_PROGRESS_INTERVAL": "0"})
    assert "first player wins (share of matches)" in wide.stdout  # room: labels on one line
    assert max(len(line) for line in wide.stdout.splitlines()) <= 200


def test_cli_warns_in_one_line_when_the_packs_play_different_numbers_of_rounds():
    result = lc("balance", "board-short", "--base", "board-classic", "-n", "2",
                "-b", "greedy,greedy", "-w", "1")
    assert result.exit_code == 0, result.stderr
    warning = [line for line in result.stderr.splitlines() if line.startswith("lc: warning:")]
    assert warning == ["lc: warning: board-short plays 1 round(s) a match and board-classic 3: "
                       "the per-match measures (wins, scores, margins) compare matches of "
                       "different lengths"]
    assert "warning" not in result.stdout
    same = lc("balance", "board-short", "--base", "board-short", "-n", "2", "-b",
              "greedy,greedy", "-w", "1")
    assert same.exit_code == 0 and "warning" not in same.stderr
