"""Ratings against a real ``lc serve``: killed with SIGKILL at the very commit of a rated
match's last turn (``LC_SERVE_CRASH_AT_RATING``, just before it or just after it) and
restarted, each player's rating has changed exactly once, on either store (SQLite, or
PostgreSQL with ``--store``: a real throwaway server of pg_support); ``lc play --connect URL
--player KEY`` takes a seat of a rated room as that player."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("openskill")
pexpect = pytest.importorskip("pexpect")

from server_support import BOUND, RoomSocket, free_port, start_lc_serve  # noqa: E402
from test_server_ratings import TINY  # noqa: E402

LC = str(Path(sys.executable).with_name("lc"))


def post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                     data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=BOUND) as answer:
        return json.load(answer)


def get(port: int, path: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=BOUND) as answer:
        return json.load(answer)


def Client(port: int, room: str, key: str, token: str = "") -> RoomSocket:
    """A player's WebSocket: hello with its player key (and its seat's token once it has
    one); every message kept."""
    return RoomSocket(f"ws://127.0.0.1:{port}/rooms/{room}/ws", token, player=key)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            proc.kill()


def rated_counts(port: int, players: list[str]) -> list[tuple[int, int]]:
    """Each player's (rated matches in its rating, matches listed on its page)."""
    counts = []
    for player in players:
        page = get(port, f"/players/{player}.json")
        counts.append((sum(r["matches"] for r in page["ratings"]), len(page["matches"])))
    return counts


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
@pytest.mark.parametrize("when", ["before", "after"])
def test_a_rating_killed_at_its_commit_is_applied_exactly_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str, store: str,
        request: pytest.FixtureRequest) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "tiny-duel.yaml").write_text(TINY, encoding="utf-8")
    extra = ("--store", request.getfixturevalue("pg_cluster").database()) \
        if store == "postgresql" else ()
    data, port = tmp_path / "data", free_port()
    monkeypatch.setenv("LC_SERVE_CRASH_AT_RATING", when)
    proc = start_lc_serve(data, port, "--packs", str(packs), *extra,
                          stdout=subprocess.DEVNULL)
    monkeypatch.delenv("LC_SERVE_CRASH_AT_RATING")
    clients: list[Client] = []
    try:
        ada, bob = post(port, "/players", {"name": "Ada"}), post(port, "/players", {"name": "Bob"})
        keys, ids = [ada["key"], bob["key"]], [ada["player"], bob["player"]]
        room = post(port, "/rooms", {"pack": "tiny-duel", "rated": True})["room"]
        clients = [Client(port, room, key) for key in keys]
        for c in clients:
            c.until(lambda m: m["type"] == "welcome" and m["player"] is not None)
            c.send({"type": "line", "text": "/join"})
            c.until(lambda m: m["type"] == "seated")
        clients[0].send({"type": "line", "text": "/start"})
        for c in clients:
            c.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        last, turns = "", 0
        while clients[0].state["room"]["status"] == "playing":  # first moves until it dies
            mover = next(c for c in clients if c.state["legal"])
            last = mover.state["legal"][0]
            mover.send({"type": "move", "move": last})
            try:
                for c in clients:
                    c.until(lambda m: m["type"] == "state" and m["room"]["turns"] > turns)
            except Exception:  # the server killed itself at the commit: the socket broke
                break
            turns += 1
        assert proc.wait(timeout=BOUND) == -signal.SIGKILL
        tokens = [c.token for c in clients]
        for c in clients:
            c.close()
        proc = start_lc_serve(data, port, "--packs", str(packs), *extra,
                              stdout=subprocess.DEVNULL)
        clients = [Client(port, room, key, token) for key, token in zip(keys, tokens)]
        states = [c.until(lambda m: m["type"] == "state" and m["seat"] is not None)
                  for c in clients]
        if when == "before":  # the last turn was never stored: it is still to be played
            assert states[0]["room"]["status"] == "playing"
            assert rated_counts(port, ids) == [(0, 0), (0, 0)]
            mover = next(c for c, s in zip(clients, states) if s["legal"])
            assert last in mover.state["legal"]
            mover.send({"type": "move", "move": last})
            mover.until(lambda m: m["type"] == "match")
        else:  # stored with its rating before the kill: over, and rated once
            assert states[0]["room"]["status"] == "over"
        assert rated_counts(port, ids) == [(1, 1), (1, 1)]
        mus = [get(port, f"/players/{p}.json")["ratings"][0]["mu"] for p in ids]
        for c in clients:
            c.close()
        clients = []
        stop(proc)  # and once more: restarted, nothing is rated again
        proc = start_lc_serve(data, port, "--packs", str(packs), *extra,
                              stdout=subprocess.DEVNULL)
        assert get(port, f"/rooms/{room}")["room"]["status"] == "over"
        assert rated_counts(port, ids) == [(1, 1), (1, 1)]
        assert [get(port, f"/players/{p}.json")["ratings"][0]["mu"] for p in ids] == mus
        assert (data / "records" / f"room-{room}-1.jsonl").is_file()
    finally:
        for c in clients:
            c.close()
        stop(proc)


def test_lc_play_connect_with_a_player_key_takes_a_rated_seat(tmp_path: Path) -> None:
    data, port = tmp_path / "data", free_port()
    proc = start_lc_serve(data, port, stdout=subprocess.DEVNULL)
    env = {**os.environ, "LOSTCITIES_DATA_DIR": str(tmp_path / "home"), "NO_COLOR": "1",
           "COLUMNS": "120", "LINES": "50", "TERM": "xterm"}
    try:
        ann = post(port, "/players", {"name": "Ann"})
        room = post(port, "/rooms", {"pack": "duel-classic", "rated": True})["room"]
        url = f"http://127.0.0.1:{port}/r/{room}"
        forged = pexpect.spawn(LC, ["play", "--connect", url, "--lang", "en", "--player",
                                    ann["key"][::-1]], env=env, encoding="utf-8",
                               timeout=BOUND, dimensions=(50, 120))
        forged.expect("belongs to no player")
        forged.sendline("/join")
        forged.expect("a seat goes to a player only")
        forged.sendline("quit")
        forged.expect(pexpect.EOF)
        lc = pexpect.spawn(LC, ["play", "--connect", url, "--lang", "en", "--player",
                                ann["key"]], env=env, encoding="utf-8", timeout=BOUND,
                           dimensions=(50, 120))
        lc.expect("spectator")
        lc.sendline("/join")
        lc.expect("token is kept in")
        seats = get(port, f"/rooms/{room}")["room"]["seats"]
        assert [(s["name"], s["player"]) for s in seats] == [("Ann", ann["player"])]
        lc.sendline("quit")
        lc.expect(pexpect.EOF)
        bad = subprocess.run([LC, "play", "--connect", url, "--player", "no spaces"],
                             capture_output=True, text=True, timeout=BOUND, env=env)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1
        assert "--player" in bad.stderr
    finally:
        stop(proc)
