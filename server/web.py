"""The web page of the room server: the routes that serve it from package data."""
from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>lostcities rooms</title></head>
<body><h1>lostcities rooms</h1>
<p>This server runs Lost Cities rooms (rule text 002); rooms are opened with
<code>POST /rooms</code> and played over <code>/rooms/ID/ws</code> (docs/server.md).</p>
</body></html>
"""


async def index(request: Request) -> Response:
    return HTMLResponse(INDEX)


def routes() -> list[Route]:
    """The page's routes, mounted by :func:`lostcities.server.app.create_app`."""
    return [Route("/", index)]
