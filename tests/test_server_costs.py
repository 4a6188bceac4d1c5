"""What the server saves on each move, and that every saving keeps what a client gets:
``lc serve`` declines per-message compression (a browser offers it and plays on without),
its garbage collector runs full collections rarely (:func:`~lostcities.server.app.tune_collector`),
and the notation of legal moves is remembered once for all the rooms of a pack."""
from __future__ import annotations

import gc
import json
import random
from pathlib import Path

import pytest

pytest.importorskip("starlette")
websockets = pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
from websockets.sync.client import connect  # noqa: E402

from lostcities.engine import legal_moves, load_pack  # noqa: E402
from lostcities.server import room as room_module  # noqa: E402
from lostcities.server.app import GC_THRESHOLDS, tune_collector  # noqa: E402
from lostcities.server.room import TEXT_PACKS, Room, move_texts  # noqa: E402
from lostcities.server.store import SQLiteStore  # noqa: E402
from server_support import BOUND, free_port, new_room, start_lc_serve, stopped  # noqa: E402


def test_lc_serve_declines_compression_a_client_offers_and_plays_on(tmp_path: Path) -> None:
    port = free_port()
    server = start_lc_serve(tmp_path / "data", port)
    try:
        room = new_room(port)
        url = f"ws://127.0.0.1:{port}/rooms/{room}/ws"
        # the library's default offer is a browser's: permessage-deflate
        with connect(url, open_timeout=BOUND, compression="deflate") as ws:
            assert ws.protocol.extensions == []
            ws.send(json.dumps({"type": "line", "text": "/join"}))
            seen = []
            while not any(m["type"] == "seated" for m in seen):
                seen.append(json.loads(ws.recv(timeout=BOUND)))
            assert seen[0]["type"] == "welcome"
            assert any(m["type"] == "state" for m in seen)
    finally:
        stopped(server)


def test_tune_collector_freezes_what_is_loaded_and_makes_full_collections_rare() -> None:
    before = gc.get_threshold()
    gc.unfreeze()
    try:
        tune_collector()
        assert gc.get_threshold() == GC_THRESHOLDS
        assert GC_THRESHOLDS[2] > 10  # a full collection rarer than Python's default
        assert gc.get_freeze_count() > 1000  # the modules loaded so far, at least
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def new_started(store: SQLiteStore, room_id: str, pack_id: str) -> Room:
    pack = load_pack(pack_id)
    room = Room.create(store, room_id, pack, f"builtin:{pack_id}")
    room.line(None, "/join")
    room.line(None, "/join")
    assert room.line(0, "/start").changed
    return room


@pytest.mark.parametrize("pack_id", ["duel-classic", "board-classic"])
def test_legal_moves_are_said_as_the_engine_writes_them_with_one_memory_a_pack(
        tmp_path: Path, pack_id: str) -> None:
    store = SQLiteStore(tmp_path / "rooms.sqlite3", durable=False)
    rooms = [new_started(store, f"room000{i}", pack_id) for i in range(2)]
    assert rooms[0]._texts is rooms[1]._texts  # one pack object: one memory
    rng = random.Random(5)
    for _ in range(30):
        for room in rooms:
            state = room.state
            seat = state.to_move
            legal = room.view_for(seat)["legal"]
            assert legal == [str(m) for m in legal_moves(state)]
            assert room.view_for(1 - seat)["legal"] is None
            assert room.move(seat, rng.choice(legal)).changed
    store.close()


def test_the_memory_of_notations_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(room_module, "_TEXTS", {})
    codecs = [object() for _ in range(TEXT_PACKS + 1)]
    kept = [move_texts(codec) for codec in codecs]
    assert move_texts(codecs[-1]) is kept[-1]
    assert len(room_module._TEXTS) == 1  # full at TEXT_PACKS: it started again
    assert move_texts(codecs[0]) is not kept[0]
