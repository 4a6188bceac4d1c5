"""The web page of the room server: the table of rule text 002 in the browser.

Plain HTML, CSS and JavaScript (ES modules, no build step, no framework) served from the
package's ``static/`` folder, so the page works from an installed wheel as from the source
tree. Every state the page shows comes over the room's WebSocket (docs/server.md); the
routes here only hand out the files, the catalogue and what the page needs to draw a pack:

- ``GET /``: the landing page (choose a pack, open a room, or open one by its link);
- ``GET /r/{room_id}``: the room page (the short shareable link);
- ``GET /static/{file}``: the page's files;
- ``GET /i18n/{lang}.json``: the one catalogue (:func:`lostcities.i18n.load_messages`),
  ``en`` or ``fr``;
- ``GET /rooms/{room_id}/table``: the room's pack as the page draws it (name, colours, the
  board's points per space);
- ``GET /rooms/{room_id}/scores``: the running scores (what each seat would score if the
  round ended now: the rows are public);
- ``GET /rooms/{room_id}/rules?lang=xx``: the rulebook of the room's pack, a standalone page;
- ``GET /matches/{match_id}``: the replay page of a finished match, and
  ``GET /matches/{match_id}/frames?lang=xx`` its frames (:mod:`.replays`; 404 with one line
  for an id of no finished match);
- ``GET /replay``: the replay page that opens a record file dropped on it (the file is sent
  to ``POST /replays``, :mod:`.app`, and replayed by the library there).
- ``GET /players/{player_id}``, ``GET /leaderboard``: a player's page and the leaderboard
  (their data from :mod:`.players`' JSON twins).

Every answer carries a Content-Security-Policy that lets only this server's own scripts,
styles and WebSocket in (the pages have no inline script), and ``nosniff``.
"""
from __future__ import annotations

import base64
import hashlib
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, MutableMapping, Optional

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from lostcities.engine import LostCitiesError, RecordError, live_scores, read_records, totals
from lostcities.engine.tooling import explain, open_text
from lostcities.i18n import LANGS, load_messages
from lostcities.i18n.rulebook import render

from .http import COMMON_HEADERS, http_error, lang_asked
from .protocol import clean_text, say
from .replays import frames
from .room import RoomError, is_match_id, is_room_id, record_name
from .store import StoreError

if TYPE_CHECKING:
    from .room import Room

#: the policy of the page: its own scripts, styles, images and WebSocket, nothing else
#: (``{connect}`` is this host's ws: and wss: address; 'self' covers them in newer
#: browsers only)
PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "font-src 'self'; connect-src 'self' {connect}; base-uri 'none'; "
               "form-action 'self'; frame-ancestors 'none'")
#: the rulebook page: no script at all, its one inline <style> allowed by its hash
RULES_POLICY = ("default-src 'none'; style-src '{style}'; img-src 'self' data:; "
                "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
#: a Host header safe to repeat in the policy (anything else: 'self' only)
HOST_FORM = re.compile(r"[A-Za-z0-9.\-]{1,253}(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?")


def static_text(name: str) -> str:
    """A file of the page's ``static/`` folder (package data) as text."""
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def page_headers(request: Request) -> dict[str, str]:
    """The headers of a page: its Content-Security-Policy and :data:`COMMON_HEADERS`."""
    host = request.headers.get("host", "")
    connect = f"ws://{host} wss://{host}" if HOST_FORM.fullmatch(host) else ""
    return {"Content-Security-Policy": PAGE_POLICY.format(connect=connect).replace("  ", " "),
            **COMMON_HEADERS}


def _page(request: Request, name: str, status: int = 200) -> Response:
    return HTMLResponse(static_text(name), status_code=status, headers=page_headers(request))


async def landing(request: Request) -> Response:
    """``GET /``: choose a pack and open a room, or open a room by its id or link."""
    return _page(request, "index.html")


async def room_page(request: Request) -> Response:
    """``GET /r/{room_id}``: the room's table; 404 for an id of the wrong form (the JSON
    line), and for a well-formed id of no room: the page, which says it in one line in the
    reader's language (its ``GET /rooms/ID/table`` is a 404 too)."""
    if not is_room_id(request.path_params["room_id"]):
        return _not_found(request)
    found = await _find_room(request)
    return _page(request, "room.html", 200 if found is not None else 404)


async def player_page(request: Request) -> Response:
    """``GET /players/{player_id}``: a player's page (it asks ``/players/{id}.json``)."""
    return _page(request, "player.html")


async def leaderboard_page(request: Request) -> Response:
    """``GET /leaderboard?family=duel|board``: the leaderboard (it asks
    ``/leaderboard.json``)."""
    return _page(request, "leaderboard.html")


async def catalogue(request: Request) -> Response:
    """``GET /i18n/{lang}.json``: the catalogue of ``en`` or ``fr`` (404 otherwise)."""
    lang = request.path_params["lang"]
    if lang not in LANGS:
        return JSONResponse({"error": "lang", "text": f"no catalogue for that language: "
                             f"{' or '.join(LANGS)}"}, status_code=404, headers=COMMON_HEADERS)
    return JSONResponse(load_messages(lang), headers=COMMON_HEADERS)


async def _find_room(request: Request) -> Optional["Room"]:
    """The room of the request's ``room_id`` (None: no such room, or it cannot be rebuilt)."""
    room_id = request.path_params["room_id"]
    if not is_room_id(room_id):
        return None
    try:
        return await request.app.state.hub.room(room_id)
    except RoomError:
        return None


def _not_found(request: Request) -> Response:
    return JSONResponse({"error": "room", "text": "no such room"}, status_code=404,
                        headers=COMMON_HEADERS)


def pack_face(pack: Any) -> dict[str, Any]:
    """What the page needs to draw ``pack``'s table: its id and name, the colours (key and
    name, in the order of the view's rows and piles), and for a board pack its leaders and
    the points a pawn scores on each space of each track (spaces 1..last)."""
    return {"pack": pack.id, "name": pack.name,
            "colours": [{"key": c.key, "name": c.name} for c in pack.colours],
            "wager": "x", "board": BOARD_FACES[pack.family](pack)}


def _duel_face(pack: Any) -> None:
    """A duel has no board to draw."""
    return None


def _board_face(pack: Any) -> dict[str, Any]:
    """The board's leaders and pawns, and each track's points by space (1..last)."""
    board = pack.board
    spaces = range(1, board.spaces + 1)
    return {"leaders": board.leaders, "pawns": board.pawns,
            "points": [[int(pack.scoring.pawn(t, s, False)) for s in spaces]
                       for t in range(len(pack.colours))]}


#: family -> what the page needs to draw its board (None: no board)
BOARD_FACES: dict[str, Callable[[Any], Optional[dict[str, Any]]]] = {
    "duel": _duel_face, "board": _board_face}


async def room_table(request: Request) -> Response:
    """``GET /rooms/{room_id}/table``: :func:`pack_face` of the room's pack (404: no room)."""
    room = await _find_room(request)
    if room is None:
        return _not_found(request)
    return JSONResponse(pack_face(room.pack), headers=COMMON_HEADERS)


async def room_scores(request: Request) -> Response:
    """``GET /rooms/{room_id}/scores``: the running scores of the public table, ``{"turns":
    N, "live": [what each seat would score if the round ended now], "totals": [...]}``
    (``live`` and ``totals`` null before ``/start``; 404: no room)."""
    room = await _find_room(request)
    if room is None:
        return _not_found(request)
    state = room.state
    return JSONResponse({"turns": room.turns,
                         "live": None if state is None else [int(s) for s in live_scores(state)],
                         "totals": None if state is None else [int(s) for s in totals(state)]},
                        headers=COMMON_HEADERS)


async def room_rules(request: Request) -> Response:
    """``GET /rooms/{room_id}/rules?lang=xx``: the rulebook of the room's pack, written out
    from the pack itself, as a standalone HTML page (the pack's texts escaped by the
    rulebook's writer; ``lang`` en or fr, else the browser's)."""
    room = await _find_room(request)
    if room is None:
        return _not_found(request)
    lang = lang_asked(request)
    text = await request.app.state.hub.run(
        lambda: render(explain(room.pack), lang, "html", style=rules_style()))
    return HTMLResponse(text, headers={"Content-Security-Policy": rules_policy(text),
                                       **COMMON_HEADERS})


def replay_answer(replayed: dict[str, Any], match: Optional[str] = None,
                  games: int = 1) -> dict[str, Any]:
    """The JSON of a replay (:func:`.replays.frames`), the same for a finished match and a
    dropped file: its pack as the page draws it (:func:`pack_face`), ``match``: the
    match's public id (None for a dropped file), ``games``: the matches in the file."""
    return {**replayed, "pack": pack_face(replayed["pack"]), "match": match, "games": games}


async def _finished_match(request: Request) -> Optional[Path]:
    """The record of the finished match the request's ``match_id`` names, or None (no such
    id, or its record is not written yet)."""
    match_id = request.path_params["match_id"]
    if not is_match_id(match_id):
        return None
    hub = request.app.state.hub
    try:
        row = await hub.run(hub.store.match, match_id)
    except StoreError:
        return None
    if row is None:
        return None
    path = hub.records / record_name(row.room, row.rounds, row.number)
    return path if path.is_file() else None


async def match_page(request: Request) -> Response:
    """``GET /matches/{match_id}``: the replay page of a finished match (404, one line, for
    an id of no finished match: a match is public once it is over, never before)."""
    if await _finished_match(request) is None:
        return PlainTextResponse(say(lang_asked(request), "error.no-replay") + "\n",
                                 status_code=404, headers=COMMON_HEADERS)
    return _page(request, "replay.html")


def match_replay(path: Path, lang: str, match_id: str) -> dict[str, Any]:
    """:func:`replay_answer` of the record at ``path`` (a file the room wrote: its first
    line), replayed and checked by the library as ``lc replay`` does."""
    with open_text(path) as stream:
        for lineno, data in read_records(stream, path.name):
            return replay_answer(frames(data, lang, f"{path.name}:{lineno}"), match_id)
    raise RecordError(f"{path.name}: no records in the file")


async def match_frames(request: Request) -> Response:
    """``GET /matches/{match_id}/frames?lang=xx``: the finished match's replay
    (:func:`replay_answer`), its turns said in ``lang`` (else the browser's language); 404
    with one line for an id of no finished match; 503 ``error.replays-busy``."""
    path = await _finished_match(request)
    if path is None:
        return http_error(request, 404, "error.no-replay")
    hub = request.app.state.hub
    lang = lang_asked(request)
    key = (request.path_params["match_id"], lang)
    answer = hub.replays.kept_frames(key)
    if answer is None:
        if not hub.replays.take():
            return http_error(request, 503, "error.replays-busy")
        try:
            answer = await hub.run(match_replay, path, lang, key[0])
        except LostCitiesError as err:  # a record file changed since the room wrote it
            return http_error(request, 503, "error.bad-record", reason=clean_text(str(err), 300))
        finally:
            hub.replays.give_back()
        hub.replays.keep_frames(key, answer)
    return JSONResponse(answer, headers=COMMON_HEADERS)


async def replay_page(request: Request) -> Response:
    """``GET /replay``: the replay page that opens a record file dropped on it."""
    return _page(request, "replay.html")


@lru_cache(maxsize=1)
def rules_style() -> str:
    """The rulebook page's stylesheet: the table's palette and fonts (the ``:root`` block of
    ``static/table.css``, the one place they are written) then ``static/rules.css``."""
    root = re.search(r":root\s*\{[^}]*\}", static_text("table.css"))
    return (root.group(0) if root else "") + "\n" + static_text("rules.css")


def rules_policy(page: str) -> str:
    """:data:`RULES_POLICY` for a rulebook page: its inline ``<style>`` let in by its
    SHA-256 (and nothing else)."""
    found = re.search(r"<style>(.*?)</style>", page, re.S)
    digest = hashlib.sha256((found.group(1) if found else "").encode("utf-8")).digest()
    return RULES_POLICY.format(style="sha256-" + base64.b64encode(digest).decode("ascii"))


Scope = MutableMapping[str, Any]
ASGI = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
                Awaitable[None]]


class StaticWithHeaders:
    """The page's static files (:class:`StaticFiles` over the package's ``static/``
    folder), each answer with :data:`COMMON_HEADERS` and a policy."""

    def __init__(self) -> None:
        self.files = StaticFiles(packages=[(__package__, "static")])

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        extra = [(k.lower().encode("latin-1"), v.encode("latin-1"))
                 for k, v in {**COMMON_HEADERS, "Content-Security-Policy":
                              "default-src 'none'; style-src 'self'; img-src 'self'"}.items()]

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.files(scope, receive, send_with_headers)


async def favicon(request: Request) -> Response:
    """``GET /favicon.ico``: the page's icon (browsers ask for it on every page, the
    rulebook's too; a 404 there is an error in the console)."""
    return Response(static_text("favicon.svg"), media_type="image/svg+xml",
                    headers=COMMON_HEADERS)


def routes() -> list[BaseRoute]:
    """The page's routes, mounted by :func:`lostcities.server.app.create_app`."""
    return [Route("/", landing), Route("/r/{room_id}", room_page),
            Route("/favicon.ico", favicon),
            Route("/players/{player_id}", player_page), Route("/leaderboard", leaderboard_page),
            Route("/i18n/{lang}.json", catalogue),
            Route("/rooms/{room_id}/table", room_table),
            Route("/rooms/{room_id}/rules", room_rules),
            Route("/rooms/{room_id}/scores", room_scores),
            Route("/matches/{match_id}", match_page),
            Route("/matches/{match_id}/frames", match_frames),
            Route("/replay", replay_page),
            Mount("/static", app=StaticWithHeaders(), name="static")]
