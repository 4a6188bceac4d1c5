"""What the real-browser tests of the room's web page share (tests/test_web_browser.py):
finding Debian's chromium, a real ``lc serve`` process on a free port with its own data
folder, a Playwright page that records every console error and page error, waits on the
page's ``body`` data attributes (the DOM contract of issue #14), the duel-classic rule a
card must follow to go onto a row, and where screenshots go.

Nothing here downloads a browser: Playwright drives the ``chromium`` of the system
(``$LC_CHROMIUM``, else /usr/bin/chromium, else ``chromium`` on PATH). Without one the
tests are skipped with the reason, unless ``LC_REQUIRE_BROWSER=1`` (set by .ci/run) makes
that a failure.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from server_support import free_port, start_lc_serve, wait_for as wait_for_within

#: every wait on the page or the server is bounded by this (seconds); generous, the
#: machine is shared
BOUND = 60.0
#: the same bound for Playwright, in milliseconds
BOUND_MS = int(BOUND * 1000)
#: Chromium's switches: headless, no sandbox (containers), nothing that calls home
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--no-proxy-server",
                 "--disable-dev-shm-usage"]
#: the viewport of every page (and so of every screenshot)
VIEWPORT = {"width": 1280, "height": 800}
ROOT = Path(__file__).resolve().parent.parent


def chromium_path() -> Optional[str]:
    """The chromium executable to drive: ``$LC_CHROMIUM`` when set (and only it), else
    /usr/bin/chromium or the ``chromium`` on PATH; None when there is none."""
    chosen = os.environ.get("LC_CHROMIUM")
    candidates = [chosen] if chosen else ["/usr/bin/chromium", shutil.which("chromium"),
                                          shutil.which("chromium-browser")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def no_browser(reason: str) -> None:
    """Skip the test saying why, or fail it when ``LC_REQUIRE_BROWSER=1`` (CI)."""
    if os.environ.get("LC_REQUIRE_BROWSER") == "1":
        pytest.fail(f"LC_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def artefacts_dir() -> Path:
    """Where screenshots go: ``$LC_ARTIFACTS`` or build/test-artifacts/ (gitignored)."""
    folder = Path(os.environ.get("LC_ARTIFACTS") or ROOT / "build" / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Server:
    """A real ``lc serve --port FREE --data DATA EXTRA...`` process, answering GET /packs
    (``extra``: more options, e.g. ``--packs DIR``)."""

    def __init__(self, data: Path, *extra: str):
        self.data = data
        self.extra = extra
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(data / "serve.log", "a+", encoding="utf-8")
        self.start()

    def start(self) -> None:
        """Start ``lc serve`` on this port and data folder; wait until it answers."""
        self.log.flush()
        self.proc = start_lc_serve(self.data / "rooms", self.port, *self.extra,
                                   stdout=self.log,
                                   stderr=subprocess.STDOUT, bound=BOUND,
                                   log=self.data / "serve.log")

    def kill(self) -> None:
        """SIGKILL the server (what a crash or a power cut does) and wait for it."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=BOUND)

    def output(self) -> str:
        """What the server printed so far."""
        self.log.flush()
        return (self.data / "serve.log").read_text(encoding="utf-8", errors="replace")

    def get(self, path: str) -> Any:
        """GET ``path`` and return the JSON answer."""
        with urllib.request.urlopen(self.url + path, timeout=BOUND) as answer:
            return json.loads(answer.read())

    def new_room(self, pack: str, **extra: Any) -> str:
        """POST /rooms: a new room of ``pack``; its id."""
        body = json.dumps({"pack": pack, **extra}).encode()
        request = urllib.request.Request(self.url + "/rooms", data=body, method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=BOUND) as answer:
            return json.loads(answer.read())["room"]

    def room(self, room: str) -> dict[str, Any]:
        """GET /rooms/ID: ``{"room": ROOMINFO, "view": the spectator's VIEW or None}``."""
        return self.get(f"/rooms/{room}")

    def stop(self) -> None:
        """Kill the server (it keeps nothing in memory that matters), wait for it, close
        its log."""
        self.kill()
        self.log.close()


class Player:
    """One browser context (its own localStorage) with one page, recording every console
    error or warning and every uncaught page error for the whole test; ``options``: more
    of the context's (Playwright's ``new_context``: ``viewport``, ``is_mobile``,
    ``has_touch``, ``reduced_motion``...)."""

    def __init__(self, browser: Any, server: Server, locale: str = "en-GB",
                 name: str = "Player", **options: Any):
        self.server = server
        self.name = name
        options.setdefault("viewport", VIEWPORT)
        self.context = browser.new_context(locale=locale,
                                           extra_http_headers={"Accept-Language": locale},
                                           **options)
        self.context.set_default_timeout(BOUND_MS)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"pageerror: {error}"))
        self.page.on("dialog", lambda dialog: dialog.accept(self.name))

    def _console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            where = message.location or {}
            self.problems.append(f"console.{message.type}: {message.text} "
                                 f"({where.get('url', '')}:{where.get('lineNumber', '')})")

    def open_room(self, room: str) -> None:
        """Open the room page ``/r/ID`` and wait for the server's ``welcome``."""
        self.page.goto(f"{self.server.url}/r/{room}")
        self.wait_connected()

    def wait_connected(self) -> None:
        """Wait until the page has had its ``welcome`` (body data-connected=1)."""
        self.until("document.body.dataset.connected === '1'")

    def until(self, condition: str, arg: Any = None) -> None:
        """Wait (bounded) until the JavaScript expression ``condition`` holds in the page;
        ``arg`` is available to it as ``arg``."""
        self.page.wait_for_function(f"(arg) => {condition}", arg=arg, timeout=BOUND_MS)

    def attr(self, name: str) -> str:
        """The body's ``data-NAME`` attribute now ("" when absent)."""
        return self.page.evaluate(f"() => document.body.dataset[{json.dumps(name)}] || ''")

    def turns(self) -> int:
        return int(self.attr("turns") or 0)

    def until_turns(self, turns: int) -> None:
        """Wait until the page shows at least ``turns`` turns stored (body data-turns)."""
        self.until("Number(document.body.dataset.turns || 0) >= arg", turns)

    def type_line(self, text: str) -> None:
        """Type ``text`` in the chat input and press Enter."""
        box = self.page.locator("#chat-input")
        box.fill(text)
        box.press("Enter")

    def hand(self) -> list[str]:
        """The cards of ``#hand`` (their data-card notation), in the page's order."""
        return self.page.locator("#hand .card[data-card]").evaluate_all(
            "cards => cards.map(c => c.dataset.card)")

    def live(self, selector: str, attribute: str) -> list[str]:
        """The ``attribute`` of each element matching ``selector`` without class dim."""
        return self.page.locator(selector).evaluate_all(
            f"els => els.filter(e => !e.classList.contains('dim'))"
            f".map(e => e.getAttribute({json.dumps(attribute)}))")

    def screenshot(self, name: str) -> Path:
        """A PNG of the page in the artefacts folder."""
        path = artefacts_dir() / name
        self.page.screenshot(path=str(path))
        return path

    def forgive(self, pattern: str) -> None:
        """Drop the problems recorded so far that match the regular expression
        ``pattern`` (the browser's own lines while the server is down)."""
        self.problems = [p for p in self.problems if not re.search(pattern, p)]

    def assert_clean(self) -> None:
        """No console error or warning and no page error happened in this context."""
        assert not self.problems, f"{self.name}: " + "\n".join(self.problems)

    def close(self) -> None:
        self.context.close()


def card_value(card: str) -> int:
    """The value of a card in the notation (``r5`` -> 5, ``bx`` a wager -> 0)."""
    return 0 if card[1:] == "x" else int(card[1:])


def may_join_row(card: str, row: list[str]) -> bool:
    """Whether ``card`` may go onto the expedition ``row`` of its colour, in duel-classic:
    wagers only before any number, numbers rising strictly."""
    if not row:
        return True
    last = card_value(row[-1])
    value = card_value(card)
    return value > last or (value == 0 and last == 0)


def row_of(view: dict[str, Any], seat: int, colour: str) -> list[str]:
    """The cards of ``seat``'s expedition of ``colour`` in a VIEW (rows hold cards in the
    notation; an empty row has no colour to tell, and is empty either way)."""
    for row in view["rows"][seat]:
        if row and row[0][0] == colour:
            return list(row)
    return []


def wait_for(check: Callable[[], Any], what: str) -> Any:
    """Poll ``check`` until it returns something true (bounded by this module's BOUND);
    that value."""
    return wait_for_within(check, what, BOUND)


class WsSeat:
    """A player of the room over a plain WebSocket (the server's truth of a seat's view)."""

    def __init__(self, server: Server, room: str, name: str):
        from websockets.sync.client import connect
        self.ws = connect(f"ws://127.0.0.1:{server.port}/rooms/{room}/ws",
                          open_timeout=BOUND)
        self.state: Any = None
        self.seat: Optional[int] = None
        self.until(lambda m: m["type"] == "state")
        self.send({"type": "line", "text": f"/join {name}"})
        self.seat = self.until(lambda m: m["type"] == "seated")["seat"]

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def until(self, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Read messages until one passes ``check`` (the last ``state`` is kept)."""
        while True:
            message = json.loads(self.ws.recv(timeout=BOUND))
            if message["type"] == "state":
                self.state = message
            if check(message):
                return message

    def at(self, turns: int) -> dict[str, Any]:
        """This seat's ``state`` once the room has ``turns`` turns."""
        if self.state is None or self.state["room"]["turns"] < turns or \
                self.state["view"] is None:
            self.until(lambda m: m["type"] == "state" and m["view"] is not None
                       and m["room"]["turns"] >= turns)
        return self.state

    def hand(self) -> list[str]:
        return list(self.state["view"]["hand"] or [])

    def close(self) -> None:
        self.ws.close()
