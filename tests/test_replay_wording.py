"""``lc replay``'s sentences (issue #13, "Wording"): right for any player's name, the card a
pile draw takes, and totals that keep the name apart from the score."""
from __future__ import annotations

import copy
import json
import re

from typer.testing import CliRunner

from lostcities.cli.app import app
from lostcities.engine.bots.base import GreedyBot, RandomBot
from lostcities.engine.game.moves import DECK
from lostcities.engine.packs.loader import load_pack
from lostcities.engine.lab.records import dumps, replay
from lostcities.engine.lab.simulation import play_match
from lostcities.engine.game.turn import push


def shown(tmp_path, record: dict) -> str:
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(record) + "\n")
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def record_of(pack_id: str, seed: int, names: list[str]) -> dict:
    record = json.loads(dumps(play_match(load_pack(pack_id), [GreedyBot(), RandomBot()], seed)))
    record["players"] = names  # labels are the record's own: lc play writes "You", "Vous"
    return record


def test_who_starts_a_round_reads_right_for_any_name(tmp_path):
    record = record_of("duel-classic", 3, ["You", "ismcts 1"])
    out = shown(tmp_path, record)
    for number, rnd in enumerate(record["rounds"], 1):
        starter = record["players"][rnd["starter"]]
        assert f"Round {number} of 3 - first to play: {starter}" in out
    assert " starts" not in out  # "You starts" was the sentence


def test_the_winner_line_is_a_sentence_for_any_name(tmp_path):
    record = record_of("duel-classic", 3, ["You", "Vous"])
    out = shown(tmp_path, record)
    best = max(record["totals"])
    winners = [record["players"][s] for s in record["winners"]]
    if len(winners) == 1:
        assert f"Winner: {winners[0]}, with {best} points.\nEvery move and every score " \
               f"checked.\n" in out
    else:
        assert f"Winners, sharing the win: {' and '.join(winners)}" in out
    assert " wins" not in out and "every move and score checks" not in out


def test_a_shared_win_is_said_as_one(tmp_path):
    state = play_match(load_pack("duel-classic"), [RandomBot(), RandomBot()], 126)
    record = json.loads(dumps(state))  # this seed ends with equal totals
    assert len(record["winners"]) == 2
    record["players"] = ["You", "Bob"]
    out = shown(tmp_path, record)
    score = record["totals"][0]
    assert f"Winners, sharing the win: You and Bob, with {score} points each.\n" \
           f"Every move and every score checked.\n" in out
    assert "share the win" not in out


def test_totals_keep_each_name_apart_from_its_score(tmp_path):
    record = record_of("duel-classic", 5, ["ismcts 1", "ismcts 2"])
    out = shown(tmp_path, record)
    first, second = record["totals"]
    assert f"totals: ismcts 1: {first} · ismcts 2: {second}\n" in out
    assert not re.search(r"ismcts [12] -?\d", out.split("totals:")[1])


def test_a_pile_draw_says_the_card_it_takes(tmp_path):
    record = record_of("duel-classic", 2, ["greedy", "random"])
    # the card each pile draw takes, from the hands: what is in hand after the turn and was not
    taken = []

    def note(state, move):
        if move.draw is not None and move.draw != DECK:
            after = copy.deepcopy(state)
            seat = after.to_move
            before = list(after.hands[seat])
            push(after, move)
            hand = list(after.hands[seat])
            for card in before:
                if card in hand:
                    hand.remove(card)
            taken.append((state.turn + 1, state.pack.cards.format(hand[0]),
                          state.pack.colours[move.draw].name))

    replay(record, on_turn=note)
    assert taken, "this seed's match has pile draws"
    out = shown(tmp_path, record)
    assert "pile's top" not in out
    lines = out.splitlines()
    for turn, card, colour in taken:
        assert any(re.match(rf"\s*{turn}\s", line) and line.endswith(
            f"takes {card} from the {colour} pile") for line in lines), (turn, card, colour)
