"""A finished match's replay (``GET /matches/ID``, ``GET /matches/ID/frames``) and a record
file dropped on the replay page (``POST /replays``): the frames are what the library's
replay of the record goes through, a match is public once over and never before, and any
file sent is one error line, never a 500."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from test_server_protocol import FAST, Player, connect, join, open_room  # noqa: E402

from lostcities.engine import (dumps, load_pack, new_game, observation, playout,  # noqa: E402
                               replay)
from lostcities.server.app import create_app  # noqa: E402
from lostcities.server.protocol import Limits  # noqa: E402
from lostcities.server.room import is_match_id  # noqa: E402

from server_support import TINY_PACK  # noqa: E402

NDJSON = {"content-type": "application/x-ndjson"}


def tiny_app(tmp_path: Path, limits: Limits = FAST) -> Any:
    packs = tmp_path / "packs"
    packs.mkdir(exist_ok=True)
    (packs / "tiny.yaml").write_text(TINY_PACK, encoding="utf-8")
    return create_app(tmp_path / "data", packs, limits=limits, durable=False)


def play_to_the_end(ada: Player, bob: Player) -> dict[str, Any]:
    """Ada and Bob play their first legal move each turn until the match is over; its
    ``match`` message."""
    turns = ada.state["room"]["turns"]
    while True:
        states = [p.state_at(turns) for p in (ada, bob)]
        if states[0]["room"]["status"] != "playing":
            break
        mover = next(p for p, s in zip((ada, bob), states) if s["legal"])
        mover.send({"type": "move", "move": mover.state["legal"][0]})
        turns += 1
    return next(m for m in reversed(ada.seen) if m["type"] == "match")


def expected_frames(record: dict[str, Any]) -> list[tuple[int, int, Any]]:
    """What the library's replay of ``record`` goes through, independently of the server:
    (round, turn, every seat's hand) before each move."""
    seen: list[tuple[int, int, Any]] = []

    def note(state: Any, move: Any) -> None:
        codec = state.pack.cards
        seen.append((state.round, state.turn,
                     [observation(state, s).to_dict(codec)["hand"] for s in range(state.n)]))
    replay(record, on_turn=note)
    return seen


def check_against_record(answer: dict[str, Any], record: dict[str, Any]) -> None:
    """Each frame's table is the state the library's replay goes through: a deal or turn
    frame shows the state before the next move (or the round's sheet at its end)."""
    before = expected_frames(record)
    tables = [f for f in answer["frames"] if f["table"] is not None]
    assert [(t["table"]["round"], t["table"]["turn"], t["table"]["hands"]) for t in tables] \
        == before
    turns = [f for f in answer["frames"] if f["seat"] is not None]
    moves = [t["card"] for r in record["rounds"] for t in r["turns"]]
    assert len(turns) == len(moves)
    assert [f["move"].split()[1] for f in turns] == moves
    sheets = [f["sheet"] for f in answer["frames"] if f.get("sheet")]
    assert [s["seats"][0]["score"] for s in sheets] == [r["scores"][0] for r in record["rounds"]]
    assert answer["totals"] == record["totals"] and answer["winners"] == record["winners"]


def test_a_finished_match_has_a_public_replay_equal_to_its_record(tmp_path: Path) -> None:
    app = tiny_app(tmp_path)
    with TestClient(app) as client:
        room = open_room(client, "tiny")
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = Player(a), Player(b)
            join(ada, "Ada")
            join(bob, "Bob")
            ada.line("/start")
            ada.started(), bob.started()
            end = play_to_the_end(ada, bob)
        link = end["replay"]
        match_id = link.rsplit("/", 1)[1]
        assert is_match_id(match_id) and room not in link
        page = client.get(link)
        assert page.status_code == 200 and "replay.js" in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]
        answer = client.get(f"{link}/frames?lang=en").json()
        record = json.loads((tmp_path / "data" / "records" / end["record"]).read_text())
        check_against_record(answer, record)
        assert answer["match"] == match_id and answer["players"] == ["Ada", "Bob"]
        assert answer["pack"]["name"] == "Tiny duel"
        first = answer["frames"][1]
        assert first["words"].startswith(answer["players"][first["seat"]])
        french = client.get(f"{link}/frames?lang=fr").json()
        assert french["frames"][1]["words"] != first["words"]
        assert " et " in french["frames"][1]["words"]
    # a restarted server serves the same replay under the same id
    with TestClient(tiny_app(tmp_path)) as client:
        assert client.get(f"{link}/frames?lang=en").json() == answer


def test_an_unfinished_or_unknown_match_is_a_404_of_one_line(tmp_path: Path) -> None:
    app = tiny_app(tmp_path)
    with TestClient(app) as client:
        room = open_room(client, "tiny")
        with connect(client, room) as a, connect(client, room) as b:
            ada, bob = Player(a), Player(b)
            join(ada, "Ada")
            join(bob, "Bob")
            ada.line("/start")
            ada.started(), bob.started()
            # under way: no match id exists yet, and the room's id is none
            for path in (f"/matches/{room}", f"/matches/{room}/frames",
                         "/matches/aaaaaaaaaaaaaaaa", "/matches/aaaaaaaaaaaaaaaa/frames",
                         "/matches/AAAAAAAAAAAAAAAA", "/matches/AAAAAAAAAAAAAAAA/frames"):
                reply = client.get(path, headers={"accept-language": "fr"})
                assert reply.status_code == 404, path
                text = reply.json()["text"] if path.endswith("frames") else reply.text
                assert text.count("\n") <= 1 and "partie" in text, text
            end = play_to_the_end(ada, bob)
        # its record gone (a full disk when it was written): not public until written
        record = tmp_path / "data" / "records" / end["record"]
        kept = record.read_bytes()
        record.unlink()
        assert client.get(end["replay"] + "/frames").status_code == 404
        record.write_bytes(kept)
        assert client.get(end["replay"] + "/frames").status_code == 200


def test_a_dropped_record_replays_as_lc_replay_checks_it(tmp_path: Path) -> None:
    pack = load_pack("duel-classic")
    lines = []
    for seed in (3, 4):
        state = playout(new_game(pack, ["Ada", "Bob"], seed), random.Random(seed))
        lines.append(dumps(state))
    text = "\n".join(lines) + "\n"
    with TestClient(tiny_app(tmp_path)) as client:
        reply = client.post("/replays?game=2&name=games.jsonl", content=text.encode(),
                            headers=NDJSON)
        assert reply.status_code == 200, reply.text
        answer = reply.json()
        assert answer["games"] == 2 and answer["match"] is None
        check_against_record(answer, json.loads(lines[1]))
        # a changed score: refused with lc replay's line, in the language asked
        changed = json.loads(lines[0])
        changed["rounds"][1]["scores"][0] += 1
        reply = client.post("/replays?name=games.jsonl&lang=fr",
                            content=json.dumps(changed).encode(), headers=NDJSON)
        assert reply.status_code == 400
        said = reply.json()
        assert said["error"] == "error.bad-record"
        assert said["text"].startswith("cet enregistrement ne se rejoue pas : games.jsonl:1: "
                                       "round 2: scores are")
        # a match continued past what a replay shows: one line, before any replaying
        long = json.loads(lines[0])
        long["rounds"] = long["rounds"] * 7
        reply = client.post("/replays", content=json.dumps(long).encode(), headers=NDJSON)
        assert reply.status_code == 400
        assert "21 rounds: a replay shows at most 20" in reply.json()["text"]
        for query, status, key in (("?game=3", 400, "error.bad-record"),
                                   ("?game=0", 400, "error.bad-game"),
                                   ("?game=x", 400, "error.bad-game")):
            reply = client.post("/replays" + query, content=text.encode(), headers=NDJSON)
            assert (reply.status_code, reply.json()["error"]) == (status, key), query
        plain = client.post("/replays", content=text.encode(),
                            headers={"content-type": "text/plain"})
        assert plain.status_code == 415 and plain.json()["error"] == "error.not-record-type"


def test_a_dropped_file_over_the_limit_is_refused_unread(tmp_path: Path) -> None:
    limits = Limits(**{**FAST.__dict__, "replay_bytes": 1000})
    with TestClient(tiny_app(tmp_path, limits)) as client:
        reply = client.post("/replays", content=b"{" * 1001, headers=NDJSON)
        assert reply.status_code == 413 and reply.json()["error"] == "error.record-too-big"
        assert "1000" in reply.json()["text"]


def test_replays_built_at_once_are_bounded(tmp_path: Path) -> None:
    limits = Limits(**{**FAST.__dict__, "replays_at_once": 1})
    with TestClient(tiny_app(tmp_path, limits)) as client:
        desk = client.app.state.hub.replays
        assert desk.take()  # one replay under way
        reply = client.post("/replays", content=b"{}", headers=NDJSON)
        assert reply.status_code == 503 and reply.json()["error"] == "error.replays-busy"
        desk.give_back()
        reply = client.post("/replays", content=b"{}", headers=NDJSON)
        assert reply.status_code == 400 and reply.json()["error"] == "error.bad-record"


def _record_line() -> str:
    state = playout(new_game(load_pack("duel-classic"), ["Ada", "Bob"], 7), random.Random(7))
    return dumps(state)


RECORD = _record_line()


def _mutations() -> st.SearchStrategy[bytes]:
    """Files a hostile or careless user may drop: a real record cut, changed byte by byte,
    its values swapped for others, or anything at all."""
    good = RECORD.encode()

    def cut(at: int) -> bytes:
        return good[:at % (len(good) + 1)]

    def flip(spots: list[tuple[int, int]]) -> bytes:
        data = bytearray(good)
        for at, value in spots:
            data[at % len(data)] = value
        return bytes(data)

    def swap(path_value: tuple[list[str], Any]) -> bytes:
        data = json.loads(RECORD)
        keys, value = path_value
        node = data
        for key in keys[:-1]:
            node = node[key] if isinstance(node, dict) else node
        if isinstance(node, dict):
            node[keys[-1]] = value
        return json.dumps(data).encode()

    values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20)
                          | st.floats(allow_nan=False),
                          lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                          max_leaves=10)
    fields = st.sampled_from([["pack"], ["seed"], ["players"], ["rounds"], ["totals"],
                              ["winners"], ["format"], ["pack_sha256"], ["pack_data"],
                              ["simulation"]])
    return st.one_of(st.integers(0, len(good)).map(cut),
                     st.lists(st.tuples(st.integers(0, len(good)), st.integers(0, 255)),
                              min_size=1, max_size=8).map(flip),
                     st.tuples(fields, values).map(swap),
                     st.binary(max_size=300),
                     st.text(max_size=300).map(lambda s: s.encode("utf-8", "surrogatepass")))


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(body=_mutations(), lang=st.sampled_from(["en", "fr"]))
def test_any_dropped_file_is_frames_or_one_error_line(tmp_path: Path, body: bytes,
                                                      lang: str) -> None:
    client = FUZZ_CLIENT.get(tmp_path)
    reply = client.post(f"/replays?lang={lang}", content=body, headers=NDJSON)
    assert reply.status_code in (200, 400), (reply.status_code, reply.text[:300])
    answer = reply.json()
    if reply.status_code == 400:
        assert set(answer) == {"error", "text"} and answer["error"] == "error.bad-record"
        assert "\n" not in answer["text"] and len(answer["text"]) < 500
    else:
        assert answer["frames"] and answer["totals"]


class _Clients:
    """One app and client for the whole fuzz (started once, closed at the module's end)."""

    def __init__(self) -> None:
        self.client: Any = None

    def get(self, tmp_path: Path) -> TestClient:
        if self.client is None:
            self.client = TestClient(tiny_app(tmp_path))
            self.client.__enter__()
        return self.client

    def close(self) -> None:
        if self.client is not None:
            self.client.__exit__(None, None, None)
            self.client = None


FUZZ_CLIENT = _Clients()


@pytest.fixture(autouse=True, scope="module")
def _close_fuzz_client() -> Any:
    yield
    FUZZ_CLIENT.close()
