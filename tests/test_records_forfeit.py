"""Records of a match a seat forfeited (a resign, or out of time on a room's clock:
docs/records.md, "A forfeit"): ``dumps(state, forfeit=...)`` writes the finished rounds and
the round the forfeit stopped, ``replay`` checks it as strictly as the rest (the seat, the
reason, the last round's end and scores, the winners), ``lc replay`` shows and checks it;
any duel or board match stopped at any point replays."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from enginehelpers import pack
from lostcities.cli.app import app
from lostcities.engine import (InputError, RecordError, apply, dumps, forfeit_winners, is_over,
                               new_game, random_move, replay, totals)


def stopped(pack_id: str, seed: int, turns: int):
    """A match of ``pack_id`` dealt with ``seed``, ``turns`` random moves in (or to its end)."""
    state = new_game(pack(pack_id), 2, seed)
    rng = random.Random(seed)
    for _ in range(turns):
        if is_over(state):
            break
        state = apply(state, random_move(state, rng))
    return state


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["duel-classic", "board-classic"]), st.integers(0, 2**32),
       st.integers(0, 150), st.integers(0, 1), st.sampled_from(["resign", "time"]))
def test_a_match_stopped_anywhere_replays_with_its_forfeit(pack_id, seed, turns, seat, reason):
    state = stopped(pack_id, seed, turns)
    if is_over(state):
        return
    data = json.loads(dumps(state, forfeit={"seat": seat, "reason": reason}))
    assert data["forfeit"] == {"seat": seat, "reason": reason}
    assert len(data["rounds"]) == len(state.finished) + 1
    last = data["rounds"][-1]
    assert last["end"] == "forfeit" and last["scores"] == [0, 0]
    assert len(last["turns"]) == len(state.moves)
    assert data["winners"] == list(forfeit_winners(state, seat)) and seat not in data["winners"]
    again = replay(data)
    assert again.round == state.round and list(totals(again)) == list(totals(state))
    assert again.moves == state.moves


def forfeited() -> dict:
    return json.loads(dumps(stopped("duel-classic", 7, 40), forfeit={"seat": 0,
                                                                     "reason": "time"}))


@pytest.mark.parametrize("tamper, said", [
    (lambda d: d.update(winners=[0]), "(seat 0 forfeited)"),
    (lambda d: d["forfeit"].update(seat=2), "forfeit: seat 2 of 2 players"),
    (lambda d: d["forfeit"].update(reason="bored"), "forfeit.reason"),
    (lambda d: d["forfeit"].update(extra=1), "forfeit"),
    (lambda d: d.update(forfeit=[0, "time"]), "forfeit"),
    (lambda d: d.pop("forfeit"), "end 'forfeit' is only the last round's"),
    (lambda d: d["rounds"][-1].update(scores=[0, 5]), "a round a forfeit stopped scores nothing"),
    (lambda d: d["rounds"][-1].update(end="draw-pile-empty"), "the record's forfeit ends this"),
    (lambda d: d["rounds"][-1]["turns"].pop(), None),
])
def test_a_tampered_forfeit_is_one_error_line(tamper, said):
    data = forfeited()
    tamper(data)
    if said is None:  # one turn fewer: still a forfeit under way, a record that replays
        replay(data)
        return
    with pytest.raises(RecordError) as caught:
        replay(data)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_forfeit_after_the_round_ended_is_refused():
    state = stopped("duel-classic", 3, 100_000)  # to its end
    assert is_over(state)
    data = json.loads(dumps(state))
    data["forfeit"] = {"seat": 1, "reason": "resign"}
    data["rounds"][-1]["end"] = "forfeit"
    data["rounds"][-1]["scores"] = [0, 0]
    with pytest.raises(RecordError) as caught:
        replay(data)
    assert "before the forfeit" in str(caught.value)


def test_lc_replay_shows_and_checks_a_forfeit(tmp_path):
    path = tmp_path / "forfeit.jsonl"
    path.write_text(json.dumps(forfeited()) + "\n", encoding="utf-8")
    runner = CliRunner()
    shown = runner.invoke(app, ["replay", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "stopped after 40 turns" in shown.output and "ran out of time, and forfeits" \
        in shown.output
    checked = runner.invoke(app, ["replay", "--check", str(path)])
    assert checked.exit_code == 0 and "every move and score agrees" in checked.output


@pytest.mark.parametrize("forfeit", [{"seat": 2, "reason": "time"}, {"seat": 0},
                                     {"seat": 0, "reason": "bored"}, [0, "time"],
                                     {"seat": "0", "reason": "time"},
                                     {"seat": 0, "reason": "time", "more": 1}])
def test_a_forfeit_is_written_only_as_replay_reads_it(forfeit):
    with pytest.raises(InputError) as caught:
        dumps(stopped("duel-classic", 7, 10), forfeit=forfeit)
    assert "\n" not in str(caught.value)
    with pytest.raises(InputError):  # a match already over was not forfeited
        dumps(stopped("duel-classic", 3, 100_000), forfeit={"seat": 0, "reason": "time"})
