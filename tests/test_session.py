"""The game session of ``lc play`` without a terminal: players, commands, explanations,
undo, hints, bots, saves and records."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from enginehelpers import complete_deal, derived, pack
from lostcities.cli import session as session_module
from lostcities.cli.session import (BOT, HUMAN, Player, Session, SessionError, data_dir,
                                    latest_save, new_save_path, parse_players, strongest_bot,
                                    write_atomic)
from lostcities.engine import RecordError
from lostcities.engine.game.moves import Move
from lostcities.engine.lab.records import replay
from lostcities.engine.game.turn import apply, is_over, legal_moves, new_game

CLASSIC = pack("duel-classic")

#: a house pack for quick matches: 30 cards, hands of 4, 2 rounds (continuation allowed)
SMALL_PACK = """\
id: play-small
extends: duel-classic
name: A small duel for tests
house_rule: true
hand_size: 4
deck:
  values: {min: 2, max: 6}
  wagers: 1
match:
  rounds: 2
"""


def small_pack(folder: Path) -> Path:
    """Write the small test pack in ``folder``; returns its path."""
    path = folder / "play-small.yaml"
    path.write_text(SMALL_PACK)
    return path
VS_GREEDY = [Player(HUMAN, "You"), Player(BOT, "greedy", "greedy")]


def make(seed: int = 1, players=VS_GREEDY, rules=CLASSIC, tmp: Path | None = None) -> Session:
    return Session(rules, players, seed, save_path=tmp / "game.json" if tmp else None)


def keys(reply) -> list[str]:
    return [n.key for n in reply.notes]


def at(session: Session, hands, pile: str, rules=CLASSIC) -> Session:
    """Put ``session`` on a scripted deal (seat 0 to move)."""
    session.state = new_game(rules, [p.label for p in session.players], session.seed,
                             deals=[complete_deal(rules, hands, top=pile)])
    return session


def small_deal(rules=CLASSIC):
    return complete_deal(rules, ["r5 r7 r3 rx g4 b2 y9 w6", "g7 g8 g9 y2 y3 b5 b6 b7"],
                         top="w2 w3 w4")


def scripted(session: Session, rules=CLASSIC) -> Session:
    session.state = new_game(rules, [p.label for p in session.players], session.seed,
                             deals=[small_deal(rules)])
    return session


# --------------------------------------------------------------------------- players

def test_default_players_are_you_against_the_strongest_bot():
    players = parse_players(None, CLASSIC)
    assert players == [Player(HUMAN, "You"), Player(BOT, strongest_bot(), strongest_bot())]
    grenoble = parse_players(None, pack("duel-grenoble"), you="Vous")
    assert [p.kind for p in grenoble] == [HUMAN, BOT, BOT]
    assert grenoble[0].label == "Vous" and grenoble[1].label != grenoble[2].label


def test_strongest_bot_follows_the_engine_registry_strength_order(monkeypatch):
    from lostcities.engine.bots import registry as bots

    assert strongest_bot() == bots.STRENGTH[0] and strongest_bot() in bots.BOTS
    monkeypatch.setattr(bots, "STRENGTH", ("greedy", "expert", "random"))
    assert strongest_bot() == "greedy"
    monkeypatch.setattr(bots, "BOTS", {k: v for k, v in bots.BOTS.items() if k != "greedy"})
    assert strongest_bot() == "expert"


def test_on_a_board_pack_the_default_opponent_and_hints_are_the_board_strongest(monkeypatch):
    from lostcities.engine.bots import registry as bots

    board = pack("board-classic")
    assert strongest_bot(board) == bots.BOARD_STRENGTH[0] == "expert"
    assert strongest_bot(CLASSIC) == bots.STRENGTH[0] == "ismcts"
    assert parse_players(None, board) == [Player(HUMAN, "You"), Player(BOT, "expert", "expert")]
    # a plain bot is the board's strongest too; --level still plays the bot with levels
    assert parse_players("human,bot", board)[1].bot == "expert"
    assert parse_players("human,bot", board, level=3)[1].bot == "ismcts@3"
    monkeypatch.setattr(bots, "BOARD_STRENGTH", ("greedy", "expert"))
    assert strongest_bot(board) == "greedy" and strongest_bot(CLASSIC) == "ismcts"
    game = Session(board, parse_players(None, board), 3)
    reply = game.command("hint")
    assert reply.kind == "info" and reply.notes[0].params["bot"] == "greedy"


def test_players_spec_humans_bots_and_names():
    players = parse_players("human:Ada, human ,bot:random", pack("duel-grenoble"),
                            player="Player {n}")
    assert players == [Player(HUMAN, "Ada"), Player(HUMAN, "Player 2"),
                       Player(BOT, "random", "random")]
    assert parse_players("greedy,greedy", CLASSIC) == [
        Player(BOT, "greedy 1", "greedy"), Player(BOT, "greedy 2", "greedy")]


@pytest.mark.parametrize("spec, message", [
    ("human", "--players: 1 player(s) given, duel-classic is played by 2"),
    ("human,bot,bot", "--players: 3 player(s) given, duel-classic is played by 2"),
    ("human,robot", "--players: 'robot' is not a player; write human, human:NAME, bot or "
                    "bot:NAME (bots: random, greedy"),
    ("human,bot:nosuch", "--players: unknown bot 'nosuch'"),
    ("human,bot:nosuchmodule:Bot", "--players: bot 'nosuchmodule:Bot': cannot import"),
])
def test_bad_players_spec_is_one_line(spec, message):
    with pytest.raises(SessionError) as err:
        parse_players(spec, CLASSIC)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_level_goes_to_the_bots_that_take_one():
    from lostcities.engine.bots import ismcts
    from lostcities.engine.bots.registry import has_levels, strongest_with_levels

    assert has_levels("ismcts") and not has_levels("expert") and not has_levels("nosuch")
    assert strongest_with_levels() == "ismcts"
    # a plain bot (and the default opponent) becomes the strongest bot with levels
    assert parse_players(None, CLASSIC, level=4) == [
        Player(HUMAN, "You"), Player(BOT, "ismcts@4", "ismcts@4")]
    # named bots without levels keep their name, those with levels get it
    players = parse_players("bot:greedy,bot:ismcts,human", pack("duel-grenoble"), level=1)
    assert [p.bot for p in players] == ["greedy", "ismcts@1", ""]
    s = Session(CLASSIC, parse_players("human,bot", CLASSIC, level=2), 1)
    assert s.bot(s.players[1].bot).params.iterations == ismcts.LEVELS[2]


@pytest.mark.parametrize("spec, level, message", [
    ("human,bot:greedy", 3, "--level 3: no bot in this game has levels (bots with levels: "
                            "ismcts, e.g. --players human,bot:ismcts)"),
    ("human,bot:ismcts@2", 3, "--level 3: bot:ismcts@2 gives its own level; give it once"),
    ("human,bot", 9, "--level 9: bot 'ismcts@9' could not be built: ismcts level must be one "
                     "of 1, 2, 3, 4, 5, not 9"),
])
def test_bad_level_is_one_line(spec, level, message):
    with pytest.raises(SessionError) as err:
        parse_players(spec, CLASSIC, level=level)
    assert str(err.value) == message


def test_board_packs_seat_two_to_four_players():
    board = pack("board-classic")
    players = parse_players("human,bot,bot:random,bot:greedy", board)
    s = Session(board, players, 1)
    assert s.state.n == 4 and s.state.board is not None
    with pytest.raises(SessionError, match="5 player"):
        parse_players("human,bot,bot,bot,bot", board)


# --------------------------------------------------------------------------- files

def test_data_dir_precedence(tmp_path):
    assert data_dir({"LOSTCITIES_DATA_DIR": "/a", "XDG_DATA_HOME": "/b"}) == Path("/a")
    assert data_dir({"XDG_DATA_HOME": "/b"}) == Path("/b/lostcities")
    assert data_dir({"HOME": str(tmp_path)}) == Path.home() / ".local/share/lostcities"


def test_save_names_are_fresh_and_the_latest_is_found(tmp_path):
    assert latest_save(tmp_path) is None
    first = new_save_path(tmp_path, "duel-classic", 7)
    write_atomic(first, "{}")
    second = new_save_path(tmp_path, "duel-classic", 7)
    assert second != first and second.parent == tmp_path / "saves"
    write_atomic(second, "{}")
    os.utime(first, (1, 1))
    assert latest_save(tmp_path) == second


def test_atomic_write_never_leaves_half_a_file(tmp_path, monkeypatch):
    path = tmp_path / "deep" / "save.json"
    write_atomic(path, "old")
    assert path.read_text() == "old" and os.listdir(path.parent) == ["save.json"]

    def broken(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(session_module.os, "fsync", broken)
    with pytest.raises(OSError):
        write_atomic(path, "new")
    assert path.read_text() == "old" and os.listdir(path.parent) == ["save.json"]


# --------------------------------------------------------------------------- commands

def test_one_line_move_equals_the_engine_move(tmp_path):
    s = scripted(make(tmp=tmp_path))
    before = s.state
    reply = s.command("p r3 deck")
    assert reply.kind == "moved" and len(reply.turns) == 1
    turn = reply.turns[0]
    assert turn.seat == 0 and str(turn.move) == "p r3 deck"
    assert s.history[0][0] is before
    assert s.state.snapshot() == apply(before, "p r3 deck").snapshot()
    saved = json.loads((tmp_path / "game.json").read_text())
    assert saved["moves"] == ["p r3 deck"]


def test_card_then_draw_in_two_lines_and_enter_means_deck():
    s = scripted(make())
    reply = s.command("d w6")
    assert reply.kind == "pending"
    assert (s.pending.action, s.pending.card) == ("discard", CLASSIC.cards.parse("w6"))
    assert reply.notes[0].params["draws"] == "deck"
    assert s.command("").kind == "moved" and s.pending is None
    assert str(s.history[-1][1]) == "d w6 deck"


def test_colour_names_in_either_language_and_pioche_are_draws():
    s = scripted(make(players=[Player(HUMAN, "A"), Player(HUMAN, "B")]))
    s.command("d w6 deck")                       # A discards w6
    assert s.command("d g7").kind == "pending"   # B discards g7 ...
    assert s.command("blanc").kind == "moved"    # ... and takes w6 from the white pile
    assert str(s.history[-1][1]) == "d g7 w"
    s.command("j r3")
    s.command("VERT")
    assert str(s.history[-1][1]) == "p r3 g"
    s.command("p g8 pioche")
    assert str(s.history[-1][1]) == "p g8 deck"
    s.command("d g4 deck")                       # the pile as French says it after "la
    s.command("p g9 verte")                      # défausse": its feminine form is a draw too
    assert str(s.history[-1][1]) == "p g9 g"


def test_a_new_card_replaces_the_pending_one_a_refused_line_does_not():
    s = scripted(make())
    s.command("p r3")
    s.command("p r5")
    assert s.pending == session_module.Partial("play", CLASSIC.cards.parse("r5"))
    assert keys(s.command("d w6 w")) == ["illegal.retake"]
    assert s.pending == session_module.Partial("play", CLASSIC.cards.parse("r5"))
    assert keys(s.command("y")) == ["illegal.pile-empty"]
    assert s.pending == session_module.Partial("play", CLASSIC.cards.parse("r5"))


def test_numbers_pick_from_the_legal_moves_in_engine_order():
    s = scripted(make())
    legal = legal_moves(s.state)
    listed = s.command("moves")
    assert listed.kind == "info" and list(listed.moves) == legal
    assert listed.notes[0].params == {"count": len(legal)}
    assert s.command("3").kind == "moved" and s.history[-1][1] == legal[2]


@pytest.mark.parametrize("line, key, params", [
    ("0", "error.bad-number", {"number": 0, "count": None}),
    ("999", "error.bad-number", {"number": 999, "count": None}),
    ("2 3", "error.bad-number", {"number": 2, "count": None}),
    ("hello", "error.unknown", {"text": "hello"}),
    ("deck", "error.card-first", {"draw": "deck"}),
    ("r5", "error.action-first", {"card": "r5"}),
    ("p", "error.no-card", {"action": "play"}),
    ("p z5", "error.bad-card", {"card": "z5", "keys": "y b w g r", "low": 2, "high": 10}),
    ("p r11", "error.bad-card", {"card": "r11"}),
    ("p r5 sky", "error.bad-draw", {"text": "sky", "keys": "y b w g r"}),
    ("p r5 deck g", "error.bad-draw", {"text": "deck g"}),
    ("p r9 deck", "illegal.not-held", {"card": "r9"}),
    ("undo", "error.undo-nothing", {}),
    ("save a b", "error.save-args", {}),
])
def test_refused_lines_say_why_and_change_nothing(line, key, params):
    s = scripted(make())
    before = s.state.snapshot()
    reply = s.command(line)
    assert reply.kind == "error" and keys(reply) == [key]
    for name, value in params.items():
        if value is not None:
            assert reply.notes[0].params[name] == value
    assert s.state.snapshot() == before and s.history == []


def test_a_pack_without_wagers_does_not_offer_x():
    basic = pack("duel-basic")
    s = Session(basic, VS_GREEDY, 1)
    assert keys(s.command("p rx deck")) == ["error.bad-card-plain"]


def test_help_lists_the_packs_rules():
    assert keys(make().command("help")) == ["help", "rules.strict", "rules.wagers"]
    basic = Session(pack("duel-basic"), VS_GREEDY, 1)
    assert keys(basic.command("aide")) == ["help", "rules.non-decreasing"]
    assert keys(make().command("")) == [] and make().command("").kind == "board"


# --------------------------------------------------------------------------- explanations

def test_row_order_explained_with_the_last_card():
    s = at(make(), ["r7 r3 rx r5 g4 b2 y9 w6", "g7 g8 g9 y2 y3 b5 b6 b7"], "w2 w3 w4 w5 w7")
    s.command("p r7 deck")
    s.command("d b7 deck") if s.to_move.kind == HUMAN else s.play_bot()
    reply = s.command("p r3 deck")
    note = reply.notes[0]
    assert note.key == "illegal.order.strict"
    assert note.params == {"card": "r3", "colour": "red", "last": 7, "row": "r7"}
    reply = s.command("p rx")
    assert reply.notes[0].key == "illegal.wager" and reply.notes[0].params["row"] == "r7"


def test_equal_values_explained_for_non_decreasing_rows():
    rules = pack("duel-equal")
    s = at(make(rules=rules, players=[Player(HUMAN, "A"), Player(HUMAN, "B")]),
           ["r7 r3 rx r5 g4 b2 y9 w6", "g7 g8 g9 y2 y3 b5 b6 b7"], "w2 w3 w4 w5 w7", rules)
    s.command("p r7 deck")
    s.command("p g7 deck")
    assert s.command("p r5").notes[0].key == "illegal.order.non-decreasing"


def test_either_direction_explained_with_the_direction_the_row_took():
    rules = derived("duel-classic", rows={"ordering": "either-direction"})
    s = at(Session(rules, [Player(HUMAN, "A"), Player(HUMAN, "B")], 1),
           ["r7 r5 r9 g3 g5 g2 b2 y9", "y2 y3 y4 y5 y6 y7 y8 b5"], "w2 w3 w4 w5 w7 w8", rules)
    for line in ("p r7 deck", "p y2 deck", "p r5 deck", "p y3 deck"):
        assert s.command(line).kind == "moved", line
    note = s.command("p r9").notes[0]       # r7 r5 went down
    assert note.key == "illegal.order.either-direction.down"
    assert note.params == {"card": "r9", "colour": "red", "last": 5, "row": "r7 r5"}
    for line in ("p g3 deck", "p y4 deck", "p g5 deck", "p y5 deck"):
        assert s.command(line).kind == "moved", line
    note = s.command("p g2").notes[0]       # g3 g5 went up
    assert note.key == "illegal.order.either-direction.up" and note.params["last"] == 5
    from lostcities.i18n import Catalogue

    assert Catalogue("en")(note.key, **note.params) == (
        "g2 cannot go on your green row (g3 g5): the row goes up, so it takes 5 or higher")
    assert "elle monte" in Catalogue("fr")(note.key, **note.params)


def test_lowest_in_hand_explained():
    rules = derived("duel-classic", rows={"start": "lowest-in-hand"})
    s = at(Session(rules, [Player(HUMAN, "A"), Player(HUMAN, "B")], 1),
           ["r7 r3 rx r5 g4 b2 y9 w6", "g7 g8 g9 y2 y3 b5 b6 b7"], "w2 w3 w4 w5 w7", rules)
    note = s.command("p r5").notes[0]
    assert note.key == "illegal.lowest"
    assert note.params == {"card": "r5", "colour": "red", "lowest": "r3"}
    assert s.command("p rx").kind == "pending"  # a wager is no number: it may open the row


def test_draws_explained():
    s = at(make(players=[Player(HUMAN, "A"), Player(HUMAN, "B")]),
           ["r7 r3 rx r5 g4 b2 y9 w6", "g7 g8 g9 y2 y3 b5 b6 b7"], "w2 w3 w4 w5 w7")
    assert s.command("p r7 g").notes[0] == session_module.Note("illegal.pile-empty",
                                                                {"colour": "green"})
    assert s.command("d w6 w").notes[0] == session_module.Note("illegal.retake", {"card": "w6"})
    s.command("d w6 deck")
    assert s.command("d g7 w").kind == "moved"


def test_a_draw_from_nowhere_has_its_own_key_not_the_engines_english():
    s = scripted(make())
    note = s.explain(Move("play", CLASSIC.cards.parse("r3"), 99, codec=CLASSIC.cards))
    assert note == session_module.Note("illegal.draw-source", {"draw": "99"})


# --------------------------------------------------------------------------- bots, hints, undo

def test_bot_turns_are_deterministic_and_legal():
    a, b = make(seed=5), make(seed=5)
    a.command("1")
    b.command("1")
    ta, tb = a.play_bot(), b.play_bot()
    assert ta.move == tb.move and ta.seat == 1
    with pytest.raises(SessionError):
        a.play_bot()  # not a bot's turn
    assert a.command("1").kind == "moved" and a.to_move.kind == BOT


def test_hint_is_a_legal_move_the_strongest_bot_suggests():
    s = make(seed=3)
    reply = s.command("hint")
    assert reply.kind == "info" and reply.notes[0].params["bot"] == strongest_bot()
    assert Move.parse(reply.notes[0].params["move"], CLASSIC) in legal_moves(s.state)


def test_undo_takes_back_your_turn_and_the_bot_turns_after_it(tmp_path):
    s = make(seed=9, tmp=tmp_path)
    start = s.state.snapshot()
    s.command("2")
    s.play_bot()
    after_one = s.state.snapshot()
    s.command("1")
    s.play_bot()
    reply = s.command("undo")
    assert reply.kind == "undone" and reply.notes[0].params["count"] == 1
    assert s.state.snapshot() == after_one and len(s.history) == 2
    assert len(json.loads((tmp_path / "game.json").read_text())["moves"]) == 2
    s.command("undo")
    assert s.state.snapshot() == start and s.history == []
    assert keys(s.command("undo")) == ["error.undo-nothing"]


def test_undo_is_refused_in_hotseat():
    s = make(players=[Player(HUMAN, "A"), Player(HUMAN, "B")])
    s.command("1")
    assert keys(s.command("undo")) == ["error.undo-hotseat"]
    assert len(s.history) == 1


def test_commands_refused_on_a_bot_turn():
    s = make(players=[Player(BOT, "greedy", "greedy"), Player(HUMAN, "You")])
    assert keys(s.command("1")) == ["error.not-human-turn"]
    assert s.viewer() == 1


# --------------------------------------------------------------------------- saves

def play_some(s: Session, turns: int) -> None:
    for _ in range(turns):
        if s.to_move.kind == BOT:
            s.play_bot()
        else:
            s.command("1")


def test_save_and_load_give_the_same_game(tmp_path):
    s = make(seed=4, tmp=tmp_path)
    play_some(s, 31)
    s.command("p")  # a refused line changes nothing
    loaded = Session.load(tmp_path / "game.json")
    assert loaded.state.snapshot() == s.state.snapshot()
    assert [m for _, m in loaded.history] == [m for _, m in s.history]
    assert [b.snapshot() for b, _ in loaded.history] == [b.snapshot() for b, _ in s.history]
    assert loaded.players == s.players and loaded.seed == 4 and loaded.save_path == tmp_path / "game.json"
    play_some(loaded, 3)
    play_some(s, 3)
    assert loaded.state.snapshot() == s.state.snapshot()


def test_save_command_writes_a_copy(tmp_path):
    s = make(tmp=tmp_path)
    s.command("1")
    s.play_bot()
    reply = s.command(f"save {tmp_path / 'copy.json'}")
    assert reply.notes[0].key == "saved"
    assert Session.load(tmp_path / "copy.json").state.snapshot() == s.state.snapshot()
    assert s.command("save").notes[0].params == {"path": str(tmp_path / "game.json")}
    assert keys(make().command("save")) == ["error.save-failed"]


def test_a_finished_match_continues_and_writes_a_record(tmp_path):
    from lostcities.engine.packs.loader import load_pack

    source = str(small_pack(tmp_path))
    s = Session(load_pack(source), [Player(BOT, "greedy", "greedy"),
                                    Player(BOT, "random", "random")], 2,
                save_path=tmp_path / "game.json", pack_source=source)
    turns = []
    while s.to_move is not None:
        turns.append(s.play_bot())
    assert turns[-1].over and sum(t.ended is not None for t in turns) == 2
    assert all(t.ended.number == t.round for t in turns if t.ended)
    s.continue_match()
    assert s.state.round == 3 and Session.load(tmp_path / "game.json").state.round == 3
    while s.to_move is not None:
        s.play_bot()
    loaded = Session.load(tmp_path / "game.json")
    assert is_over(loaded.state) and loaded.state.rounds_total == 3
    record = s.write_record(tmp_path / "records")
    assert (tmp_path / "game.json").exists()    # the front end ends the game: drop_save
    s.drop_save()
    assert not (tmp_path / "game.json").exists()
    final = replay(json.loads(record.read_text()), pack=s.pack)
    assert final.snapshot()[-1] == s.state.snapshot()[-1] and final.rounds_total == 3


def save_text(tmp_path, **changes) -> Path:
    s = make(seed=4, tmp=tmp_path)
    play_some(s, 4)
    data = s.to_dict()
    data.update(changes)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("content, message", [
    ("", "not a lostcities save: not JSON: Expecting value at line 1"),
    ("{\"format\": \"lostcities-save/1\"", "not a lostcities save: not JSON"),
    ("[1, 2]", "not a lostcities-save/1 file (format is missing)"),
    ("{\"format\": \"chess-save/3\"}", "not a lostcities-save/1 file (format is 'chess-save/3')"),
    ("{\"format\": \"lostcities-record/1\"}", "a finished game's record, not a save"),
])
def test_foreign_and_corrupt_files_are_refused_in_one_line(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(RecordError) as err:
        Session.load(path)
    assert str(err.value).startswith(f"{path}: {message}") and "\n" not in str(err.value)


@pytest.mark.parametrize("changes, message", [
    ({"seed": "four"}, "seed: expected an integer"),
    ({"moves": "p r5"}, "moves: expected a list of moves"),
    ({"moves": [5]}, "moves[0]: expected a move"),
    ({"players": [{"kind": "alien", "label": "x"}, {"kind": "human", "label": "y"}]},
     "players[0]: expected"),
    ({"players": [{"kind": "bot", "label": "x"}, {"kind": "human", "label": "y"}]},
     "players[0]: expected"),
    ({"pack": "no-such-pack", "pack_source": ""}, "pack 'no-such-pack':"),
    ({"pack_source": "duel-six"}, "the game is of pack 'duel-classic', duel-six is now pack "
                                  "'duel-six'"),
    ({"players": [{"kind": "human", "label": "x"}]}, "duel-classic: 1 players, the pack is for 2"),
    ({"players": [{"kind": "human", "label": "x"}, {"kind": "bot", "label": "b", "bot": "zz"}]},
     "unknown bot 'zz'"),
    ({"moves": ["p r5 deck", "fly away"]}, "move 1 (round 1): "),
    ({"moves": ["d zz deck"]}, "move 1 (round 1): "),
])
def test_edited_saves_are_refused_in_one_line(tmp_path, changes, message):
    path = save_text(tmp_path, **changes)
    with pytest.raises(RecordError) as err:
        Session.load(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)
    assert "\n" not in str(err.value)


def test_unreadable_save(tmp_path):
    with pytest.raises(RecordError, match="no such file"):
        Session.load(tmp_path / "missing.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError, match="not UTF-8"):
        Session.load(tmp_path / "bin.json")


# --------------------------------------------------------------------------- the board game

BOARD = pack("board-classic")
HOTSEAT = [Player(HUMAN, "A"), Player(HUMAN, "B")]


def row_start(s: Session) -> str:
    """A card the player to move may start a row with (several pawns to choose from)."""
    moves = [m for m in legal_moves(s.state) if m.pawn is not None]
    assert moves
    return BOARD.cards.format(moves[0].card)


def test_board_row_start_asks_which_pawn_then_plays_the_leader():
    s = Session(BOARD, HOTSEAT, 3)
    card = row_start(s)
    assert s.command(f"p {card}").kind == "pending"
    reply = s.command("deck")
    assert reply.kind == "pending" and reply.notes[0].key == "pending.which"
    assert reply.notes[0].params["options"] == "[1] pawn=0 (leader) · [2] pawn=1"
    assert s.pending_choices(leader="chef") == "pawn=0 (chef) deck, pawn=1 deck"
    assert s.command("3").kind == "error"  # the choices are 1 and 2: nothing changes
    assert s.command("chef").kind == "moved"
    assert str(s.history[-1][1]) == f"p {card} pawn=0 deck"
    card = row_start(s)  # the other player: the pawn by its number
    assert s.command(f"p {card} deck").kind == "pending"
    assert s.command("2").kind == "moved"
    assert str(s.history[-1][1]) == f"p {card} pawn=1 deck"


def test_board_moves_in_one_line_equal_the_engine():
    s = Session(BOARD, HOTSEAT, 3)
    card = row_start(s)
    before = s.state
    assert s.command(f"p {card} pawn=1 deck").kind == "moved"
    assert s.state.snapshot() == apply(before, f"p {card} pawn=1 deck").snapshot()
    card = row_start(s)
    assert s.command(f"p {card} leader deck").kind == "moved"
    assert s.history[-1][1].pawn == 0


def find_step_choice():
    """A seed and a position where one card and draw leave several step choices."""
    import random

    from lostcities.engine.game.turn import random_move

    for seed in range(200):
        state = new_game(BOARD, ["A", "B"], seed)
        rng = random.Random(seed)
        while not is_over(state) and state.round == 1:
            moves = legal_moves(state)
            by_turn: dict = {}
            for m in moves:
                by_turn.setdefault((m.action, m.card, m.pawn, m.draw), set()).add(m.steps)
            for (action, card, pawn, draw), steps in by_turn.items():
                if len(steps) > 1 and pawn is None and draw == -1:
                    # a declined advance (None) sorts first
                    return state, card, sorted(steps, key=lambda t: [-1 if c is None
                                                                     else c for c in t])
            state = apply(state, random_move(state, rng))
    raise AssertionError("no step choice found")


def test_board_step_tiles_ask_which_pawn_moves_on():
    state, card, steps = find_step_choice()
    s = Session(BOARD, HOTSEAT, state.seed)
    s.state = state
    name = BOARD.cards.format(card)
    reply = s.command(f"p {name} deck")
    assert reply.kind == "pending" and reply.notes[0].key == "pending.which"
    options = reply.notes[0].params["options"].split(" · ")
    assert len(options) == len(steps)
    assert all(o.startswith(f"[{n}] step=") for n, o in enumerate(options, 1))
    chosen = steps[-1]
    words = " ".join(f"step={'none' if c is None else BOARD.cards.keys[c]}" for c in chosen)
    before = s.state
    assert s.command(words).kind == "moved"
    assert s.history[-1][1].steps == chosen
    s.state, s.pending = before, None  # the same choice by its number
    s.command(f"p {name} deck")
    number = next(n for n, o in enumerate(options, 1) if o.endswith(f"] {words}"))
    assert s.command(str(number)).kind == "moved"
    assert s.history[-1][1].steps == chosen


def test_board_help_and_a_whole_board_match_saved_and_resumed(tmp_path):
    assert keys(Session(BOARD, HOTSEAT, 1).command("help"))[-1] == "rules.board"
    short = pack("board-short")
    s = Session(short, [Player(BOT, "greedy", "greedy"), Player(BOT, "random", "random")], 4,
                save_path=tmp_path / "board.json")
    for _ in range(25):
        s.play_bot()
    loaded = Session.load(tmp_path / "board.json")
    assert loaded.state.snapshot() == s.state.snapshot()
    while s.to_move is not None:
        s.play_bot()
    final = replay(json.loads(s.write_record(tmp_path).read_text()))
    assert final.snapshot()[-1] == s.state.snapshot()[-1]
