"""The lobby under load: its first paint in Chromium and how fast a change reaches a page,
with ROOMS open rooms, against a real ``lc serve``.

Run: ``python benchmarks/bench_lobby.py [--rooms 1000] [--loads 5] [--updates 30]
[--watchers 100] [--json]``. Needs the ``serve`` extra, Playwright (the ``test`` extra) and
a Chromium (``$LC_CHROMIUM``, else /usr/bin/chromium; nothing is downloaded).

One ``lc serve`` as shipped (its own settings, ``--limit rooms=ROOMS+UPDATES+10`` so the
rooms fit) on a fresh data folder; ROOMS rooms are opened (``POST /rooms``, listed, each
from its own client address through ``X-Forwarded-For``, as bench_server.py does, so the
per-address limits are the visitors'), then:

- **first paint**: ``--loads`` times, a fresh browser context opens ``/`` and the time
  from the navigation's start to the first animation frame after the lobby's rooms are in
  the page (the page draws the newest 100 waiting rooms and "and N more") is read from
  the page's own clock (``performance.now()``); the browser's first contentful paint
  (the page's static frame) is printed beside it;
- **updates**: with that page open and ``--watchers`` other lobby sockets reading the
  feed (plain WebSocket clients), ``--updates`` rooms are opened one by one, 0.2 s apart;
  for each, the time from sending ``POST /rooms`` to the page having the room's row in
  its lobby (a MutationObserver notes the wall clock) is the update's latency: an upper
  bound of the push, since the room's creation (its commit to disk) is inside it; the
  POST's own answer time is printed beside it, and the time to the ``added`` message at
  the first plain socket.

Figures, not assertions (docs/server.md, "The lobby", has a run and its conditions).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import sys
import threading
import time
import urllib.request
from typing import Any, Optional

from bench_server import Server, open_room

#: Chromium's switches (as the browser tests': headless, nothing that calls home)
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--no-proxy-server",
                 "--disable-dev-shm-usage"]
#: every wait on the page, in milliseconds
BOUND_MS = 120_000
#: what the page notes: when its lobby was first drawn, and when each room's row came
OBSERVE = """
window.__lobby = { drawn: null, seen: {} };
new MutationObserver(() => {
  const list = document.getElementById('lobby-waiting');
  if (!list) return;
  const rows = list.querySelectorAll('li[data-room]');
  if (rows.length && window.__lobby.drawn === null) {
    window.__lobby.drawn = -1;
    requestAnimationFrame(() => { window.__lobby.drawn = performance.now(); });
  }
  const now = Date.now();
  for (const row of rows) {
    if (!(row.dataset.room in window.__lobby.seen)) window.__lobby.seen[row.dataset.room] = now;
  }
}).observe(document, { childList: true, subtree: true });
"""


def chromium() -> Optional[str]:
    """The Chromium to drive: ``$LC_CHROMIUM``, else /usr/bin/chromium or one on PATH."""
    for candidate in (os.environ.get("LC_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def address(n: int) -> str:
    """The ``n``-th visitor's address (10.x.y.z: never contacted, only named in a header)."""
    return f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"


class Watchers:
    """``count`` plain lobby sockets reading the feed in threads until :meth:`stop`; the
    first notes when each room's ``added`` came (the wall clock)."""

    def __init__(self, base: str, count: int):
        from websockets.sync.client import connect

        self.stopping = False
        self.received = 0
        self.arrived: dict[str, float] = {}
        self.stack = contextlib.ExitStack()
        self.sockets = [self.stack.enter_context(connect(
            base.replace("http", "ws") + "/lobby/ws",
            additional_headers={"X-Forwarded-For": address(900_000 + i)}))
            for i in range(count)]
        self.threads = [threading.Thread(target=self._read, args=(s, i == 0), daemon=True)
                        for i, s in enumerate(self.sockets)]
        for thread in self.threads:
            thread.start()

    def _read(self, socket: Any, noting: bool) -> None:
        try:
            while not self.stopping:
                text = socket.recv()
                self.received += 1
                if noting:
                    message = json.loads(text)
                    if message["type"] == "added":
                        self.arrived.setdefault(message["room"]["room"], time.time())
        except Exception:  # closed by stop()
            return

    def stop(self) -> None:
        self.stopping = True
        self.stack.close()
        for thread in self.threads:
            thread.join(timeout=10)


def timed_get(url: str) -> tuple[float, int]:
    """One GET of ``url``: the seconds it took and the answer's size in bytes."""
    start = time.monotonic()
    with urllib.request.urlopen(url, timeout=60) as answer:
        size = len(answer.read())
    return time.monotonic() - start, size


def figures(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": statistics.median(ordered), "max": ordered[-1], "min": ordered[0],
            "p90": ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=1000, help="open rooms in the lobby")
    parser.add_argument("--loads", type=int, default=5, help="page loads measured")
    parser.add_argument("--updates", type=int, default=30, help="rooms opened, each timed")
    parser.add_argument("--watchers", type=int, default=100,
                        help="other lobby sockets reading the feed meanwhile")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    executable = chromium()
    if executable is None:
        sys.exit("bench_lobby: no chromium ($LC_CHROMIUM, /usr/bin/chromium)")
    from playwright.sync_api import sync_playwright

    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    server = Server(None, False, None,
                    ("--limit", f"rooms={args.rooms + args.updates + 10}"))
    result: dict[str, Any] = {"rooms": args.rooms, "cores": os.cpu_count(),
                              "python": platform.python_version(),
                              "load_before": os.getloadavg()}
    try:
        server.wait_ready()
        start = time.monotonic()
        for n in range(args.rooms):
            open_room(server.base, "duel-classic" if n % 4 else "board-classic", address(n))
        result["setup_seconds"] = time.monotonic() - start
        say(f"{args.rooms} rooms opened in {result['setup_seconds']:.1f} s")
        seconds, size = timed_get(server.base + "/lobby")
        result["get_lobby"] = {"ms": seconds * 1000, "bytes": size}
        say(f"GET /lobby: {seconds * 1000:.1f} ms, {size} bytes")
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            paints, contentful = [], []
            for _ in range(args.loads):
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                page = context.new_page()
                page.add_init_script(OBSERVE)
                page.goto(server.base + "/")
                page.wait_for_function("() => window.__lobby.drawn > 0", timeout=BOUND_MS)
                paints.append(page.evaluate("() => window.__lobby.drawn"))
                contentful.append(page.evaluate(
                    "() => (performance.getEntriesByName('first-contentful-paint')[0] || "
                    "{startTime: NaN}).startTime"))
                shown = page.evaluate(
                    "() => document.querySelectorAll('#lobby-waiting li[data-room]').length")
                more = page.locator("#more-waiting").text_content()
                context.close()
            result["first_paint_ms"] = figures(paints)
            result["first_contentful_paint_ms"] = figures(contentful)
            result["rows_shown"], result["more_line"] = shown, more
            say(f"first paint of the lobby ({shown} rows, \"{more}\"), {args.loads} loads: "
                f"median {statistics.median(paints):.0f} ms, max {max(paints):.0f} ms "
                f"(first contentful paint: median {statistics.median(contentful):.0f} ms)")
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            page.add_init_script(OBSERVE)
            page.goto(server.base + "/")
            page.wait_for_function("() => window.__lobby.drawn > 0", timeout=BOUND_MS)
            watchers = Watchers(server.base, args.watchers)
            pushes, posts, sockets = [], [], []
            try:
                for n in range(args.updates):
                    sent = time.time()
                    room = open_room(server.base, "duel-classic", address(800_000 + n))
                    posts.append((time.time() - sent) * 1000)
                    page.wait_for_function("(room) => room in window.__lobby.seen", arg=room,
                                           timeout=BOUND_MS)
                    pushes.append(page.evaluate("(room) => window.__lobby.seen[room]", room)
                                  - sent * 1000)
                    if room in watchers.arrived:
                        sockets.append((watchers.arrived[room] - sent) * 1000)
                    time.sleep(0.2)  # a pause between changes: not a saturation test
            finally:
                watchers.stop()
            context.close()
            result["update_ms"] = figures(pushes)
            result["post_ms"] = figures(posts)
            result["socket_ms"] = figures(sockets) if sockets else None
            result["watchers"] = args.watchers
            result["watcher_messages"] = watchers.received
            say(f"update: POST /rooms sent -> the row in the page, {args.updates} rooms, "
                f"{args.watchers} other lobby sockets: median {statistics.median(pushes):.0f} ms, "
                f"p90 {result['update_ms']['p90']:.0f} ms, max {max(pushes):.0f} ms "
                f"(the POST's own answer: median {statistics.median(posts):.0f} ms, "
                f"max {max(posts):.0f} ms)")
            if sockets:
                say(f"the same at a plain lobby socket (the added message read): median "
                    f"{statistics.median(sockets):.0f} ms, max {max(sockets):.0f} ms")
        finally:
            browser.close()
            playwright.stop()
        result["server_memory_kib"] = server.memory_kib()
        result["load_after"] = os.getloadavg()
        say(f"server memory: {result['server_memory_kib']}; load average "
            f"{result['load_before'][0]:.1f} before, {result['load_after'][0]:.1f} after; "
            f"{os.cpu_count()} cores, Python {platform.python_version()}")
    finally:
        server.stop()
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
