"""nginx in front of two ``lc serve`` processes on one PostgreSQL database, as
docs/server.md's "Deployment: several processes" says: docs/nginx-lc-serve.conf itself
(the test's ports, and a self-signed certificate the clients trust, put in its place),
Debian's nginx run as a child, two real ``lc serve --store`` processes on a database of
the session's throwaway PostgreSQL and one shared ``--data``. A room is opened and played
through nginx by two clients; then the process holding a client's socket is killed with
SIGKILL: the clients' reconnects through nginx land on the live process, and the match
plays on with every turn once.

Without nginx (or openssl, for the certificate) the test skips with the reason, unless
``LC_REQUIRE_NGINX=1`` (``.ci/run``), which makes that a failure."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import ssl
import subprocess
import urllib.request
from pathlib import Path
from typing import Any, Optional

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

from websockets.exceptions import ConnectionClosed  # noqa: E402
from websockets.protocol import State  # noqa: E402

from server_support import (BOUND, RoomSocket, free_port, start_lc_serve, stopped,  # noqa: E402
                            wait_for)

#: the deployment's nginx configuration, run as it is written
CONF = Path(__file__).resolve().parent.parent / "docs" / "nginx-lc-serve.conf"
HOST = "cards.example.org"
#: what the test puts in the file's place: its listening port, the processes' ports, the
#: certificate (each must be in the file exactly once)
LISTEN = "listen 443 ssl;"
PROCESSES = ("127.0.0.1:8001", "127.0.0.1:8002")
CERTIFICATE = f"/etc/letsencrypt/live/{HOST}/fullchain.pem"
KEY = f"/etc/letsencrypt/live/{HOST}/privkey.pem"


def program(name: str, debian: str) -> str:
    """The path of ``name`` (``debian``: where Debian's package puts it), else a skip with
    the reason (a failure under ``LC_REQUIRE_NGINX=1``)."""
    found = shutil.which(name) or (debian if os.access(debian, os.X_OK) else None)
    if found:
        return found
    reason = f"{name} is not installed (Debian: apt-get install nginx openssl)"
    if os.environ.get("LC_REQUIRE_NGINX") == "1":
        pytest.fail(f"LC_REQUIRE_NGINX=1 but {reason}")
    pytest.skip(reason)


def site(listen: int, ports: tuple[int, int], certificate: Path, key: Path) -> str:
    """docs/nginx-lc-serve.conf with the test's ports and certificate in place."""
    text = CONF.read_text(encoding="utf-8")
    for old, new in ((LISTEN, f"listen 127.0.0.1:{listen} ssl;"),
                     (PROCESSES[0], f"127.0.0.1:{ports[0]}"),
                     (PROCESSES[1], f"127.0.0.1:{ports[1]}"),
                     (CERTIFICATE, str(certificate)), (KEY, str(key))):
        assert text.count(old) == 1, f"{CONF.name} has {old!r} {text.count(old)} times, not once"
        text = text.replace(old, new)
    return text


def start_nginx(folder: Path, site_text: str) -> subprocess.Popen:
    """Debian's nginx in the foreground on ``folder`` (its prefix, logs, pid, temporary
    files), the site inside a minimal main configuration."""
    nginx = program("nginx", "/usr/sbin/nginx")
    (folder / "lc-serve.conf").write_text(site_text, encoding="utf-8")
    main = folder / "nginx.conf"
    main.write_text(
        # as root its workers would run as nobody, who cannot enter the test's folder
        ("user root;\n" if os.geteuid() == 0 else "")
        + "worker_processes 1;\n"
        f"error_log {folder}/error.log info;\n"
        "events { worker_connections 256; }\n"
        f"http {{\n    access_log {folder}/access.log;\n"
        f"    include {folder}/lc-serve.conf;\n}}\n", encoding="utf-8")
    return subprocess.Popen([nginx, "-p", str(folder), "-c", str(main), "-e",
                             str(folder / "error.log"), "-g",
                             f"daemon off; pid {folder}/nginx.pid;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for :data:`HOST` and 127.0.0.1, and its key."""
    openssl = program("openssl", "/usr/bin/openssl")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                    f"/CN={HOST}", "-addext", f"subjectAltName=DNS:{HOST},IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=BOUND)
    return cert, key


def https(context: ssl.SSLContext, url: str, body: Optional[dict] = None) -> Any:
    """GET (or POST ``body``) ``url`` through nginx: the JSON answer."""
    request = urllib.request.Request(url, data=json.dumps(body).encode() if body else None,
                                     headers={"content-type": "application/json"},
                                     method="POST" if body else "GET")
    with urllib.request.urlopen(request, timeout=BOUND, context=context) as answer:
        return json.load(answer)


def answering(context: ssl.SSLContext, url: str) -> bool:
    try:
        https(context, url)
        return True
    except OSError:  # not listening yet, or 502 while nginx starts
        return False


def client_sockets(pid: int, port: int) -> int:
    """How many established TCP connections process ``pid`` holds on its ``port`` (the
    clients nginx passed to it): its socket descriptors matched with /proc/net/tcp."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    with open(f"/proc/{pid}/net/tcp", encoding="ascii") as table:
        next(table)
        for line in table:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] == "01" and fields[9] in inodes:
                count += 1
    return count


def play(ann: RoomSocket, bob: RoomSocket, turns: int) -> None:
    """The seat to move plays its first legal move, ``turns`` times; both see each turn."""
    for _ in range(turns):
        number = ann.state["room"]["turns"]
        mover = ann if ann.state["legal"] else bob
        assert not (bob if mover is ann else ann).state.get("legal")  # one seat to move
        mover.send({"type": "move", "move": mover.state["legal"][0]})
        for seat in (ann, bob):
            seat.until(lambda m: m["type"] == "state" and m["room"]["turns"] == number + 1)


def test_two_processes_behind_nginx_play_a_room_and_survive_kill_9(
        tmp_path: Path, pg_cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    program("nginx", "/usr/sbin/nginx")
    cert, key = certificate(tmp_path)
    # the clients (urllib, websockets) trust the certificate as they would a real one
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    context = ssl.create_default_context(cafile=str(cert))
    url = pg_cluster.database()
    data = tmp_path / "data"  # the records, shared by the processes
    ports = (free_port(), free_port())
    servers: list[subprocess.Popen] = []
    nginx: Optional[subprocess.Popen] = None
    try:
        for number, port in enumerate(ports):  # one after the other: the first makes the tables
            log = tmp_path / f"lc-serve-{number}.log"
            with open(log, "w", encoding="utf-8") as out:
                servers.append(start_lc_serve(data, port, "--store", url, "--allowed-host", HOST,
                                              "--forwarded-allow-ips", "127.0.0.1",
                                              stdout=out, stderr=out, log=log))
        listen = free_port()
        nginx = start_nginx(tmp_path, site(listen, ports, cert, key))
        base = f"https://127.0.0.1:{listen}"
        wait_for(lambda: nginx.poll() is not None or answering(context, f"{base}/packs"),
                 "nginx to answer GET /packs")
        assert nginx.poll() is None, nginx.stderr.read() if nginx.stderr else ""

        room = https(context, f"{base}/rooms", {"pack": "duel-classic"})["room"]
        ws = f"wss://127.0.0.1:{listen}/rooms/{room}/ws"
        ann, bob = RoomSocket(ws), RoomSocket(ws)
        for seat, name in ((ann, "Ann"), (bob, "Bob")):
            seat.send({"type": "line", "text": f"/join {name}"})
            seat.until(lambda m: m["type"] == "seated")
        # Ann deals once her table shows Bob seated (his seat may be taken through the
        # other process: its news comes through the database)
        if not (ann.state and len(ann.state["room"]["seats"]) == 2):
            ann.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 2)
        ann.send({"type": "line", "text": "/start"})
        for seat in (ann, bob):
            seat.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        play(ann, bob, 4)

        # kill -9 the process holding more of the two sockets (each holds one when
        # nginx spread them)
        held = [client_sockets(server.pid, port) for server, port in zip(servers, ports)]
        assert sum(held) == 2, f"the processes hold {held} client sockets, not 2"
        dead = held.index(max(held))
        servers[dead].send_signal(signal.SIGKILL)
        servers[dead].wait(timeout=BOUND)
        seats = {"Ann": ann, "Bob": bob}
        cut = []
        for name, socket in list(seats.items()):
            # a pong through nginx from a live process; a killed one's socket is closed
            with contextlib.suppress(ConnectionClosed):
                socket.ws.ping(ack_on_close=True).wait(BOUND)
            if socket.ws.protocol.state is State.OPEN:
                continue
            cut.append(name)
            # the page's way: the same room's socket again, with the seat's token
            again = RoomSocket(ws, token=socket.token)
            again.until(lambda m: m["type"] == "state" and m["seat"] is not None)
            socket.close()
            seats[name] = again
        assert len(cut) == max(held), f"{cut} cut by the kill, the dead process held {held}"
        ann, bob = seats["Ann"], seats["Bob"]
        live = servers[1 - dead]
        assert live.poll() is None
        assert client_sockets(live.pid, ports[1 - dead]) == 2  # both on the live one now
        for seat in (ann, bob):  # each has the table as it was: 4 turns
            if seat.state is None or seat.state["room"]["turns"] != 4:
                seat.until(lambda m: m["type"] == "state" and m["room"]["turns"] == 4)
        play(ann, bob, 4)
        assert https(context, f"{base}/rooms/{room}")["room"]["turns"] == 8
        ann.close(), bob.close()
    finally:
        if nginx is not None:
            stopped(nginx)
        for server in servers:
            server.kill()
            server.wait()
