"""Players and their ratings over HTTP (docs/server.md, "Players and ratings"):

- ``POST /players`` ``{"name": NAME}``: a new player, ``{"player": ID, "name": NAME,
  "key": KEY}``; the key is said this once (the store keeps its SHA-256 only): the page
  keeps it in the browser and shows it as a link that moves the player to another device,
  ``lc play --connect URL --player KEY`` takes it too;
- ``POST /players/me`` ``{"key": KEY}``: whose key it is, ``{"player": ID, "name": NAME}``
  (the page opened with a link that moves a player to this device asks it; a POST, so
  that the key is in no address a log keeps);
- ``GET /players/{id}.json``: a player's ratings, rating history and last matches (the
  page ``/players/{id}`` draws them);
- ``GET /leaderboard.json?family=duel|board``: the best-rated players of a family of
  packs (the page ``/leaderboard``).

No passwords: whoever holds a player's key is that player.
"""
from __future__ import annotations

import base64
import re
import secrets
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .clients import address_of
from .http import http_error, is_json, read_json, too_fast
from .names import name_refusal, seat_name
from .ratings import FAMILIES, Rating, shown
from .store import Placed, PlayerRow, StoreError, token_hash

if TYPE_CHECKING:
    from .app import Hub

#: a person's player id: 16 lower-case base32 characters (80 random bits); a bot
#: strength's: ``bot-`` and its spec (``bot-ismcts-5``)
PLAYER_ID = re.compile(r"[a-z2-7]{16}|bot-[a-z0-9-]{1,40}")
#: players a leaderboard lists; matches a player's page lists; rating changes its chart draws
LEADERBOARD_ROWS, RECENT_MATCHES, HISTORY_POINTS = 100, 20, 200


def new_player_id() -> str:
    """A public player id: 16 lower-case base32 characters from ``secrets``."""
    return base64.b32encode(secrets.token_bytes(10)).decode("ascii").lower()


def new_player_key() -> str:
    """A player's secret key: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def rating_json(family: str, rating: Rating) -> dict[str, Any]:
    """A rating as the JSON answers give it: ``rating`` (``mu - 3 sigma``), ``mu``,
    ``sigma``, ``matches``."""
    return {"family": family, "rating": shown(rating), "mu": round(rating.mu, 3),
            "sigma": round(rating.sigma, 3), "matches": rating.matches}


def placed_json(placed: Placed) -> dict[str, Any]:
    """One of a player's matches as ``GET /players/{id}.json`` lists it."""
    return {"match": placed.match, "room": placed.room, "pack": placed.pack,
            "family": placed.family, "at": round(placed.at, 3), "seat": placed.seat,
            "name": placed.name, "score": placed.score, "rank": placed.rank,
            "before": shown(placed.before), "after": shown(placed.after),
            "change": round(shown(placed.after) - shown(placed.before), 1),
            "note": placed.note, "others": list(placed.others)}


def player_json(player: PlayerRow, ratings: dict[str, Rating],
                placed: list[Placed]) -> dict[str, Any]:
    """``GET /players/{id}.json``: who, the rating in each family, the ratings after each
    match that changed one (oldest first: the chart), the last matches (newest first)."""
    history = [{"family": p.family, "at": round(p.at, 3), "rating": shown(p.after)}
               for p in reversed(placed) if p.after != p.before]
    return {"player": player.id, "name": player.name, "bot": player.bot or None,
            "created": round(player.created, 3),
            "ratings": [rating_json(f, r) for f, r in sorted(ratings.items())],
            "history": history,
            "matches": [placed_json(p) for p in placed[:RECENT_MATCHES]]}


async def new_player(request: Request) -> Response:
    """``POST /players`` ``{"name": NAME}``: 201 ``{"player", "name", "key"}``; the name by
    the rule for names (``error.name-invisible``, ``error.name-marker``: 400); 415 not
    JSON, 429 more than ``Limits.address_players_per_minute`` a minute from one address,
    503 ``Limits.players`` reached (``error.players-full``)."""
    hub: "Hub" = request.app.state.hub
    message = await _player_request(request, "new_player")
    if isinstance(message, Response):
        return message
    limit = hub.limits.name_chars
    why = name_refusal(message["name"], [], limit)
    if why is not None:
        return http_error(request, 400, why[0], **why[1])
    name = seat_name(message["name"], limit)
    key = new_player_key()
    try:
        if await hub.run(hub.store.count_players) >= hub.limits.players:
            return http_error(request, 503, "error.players-full")
        player = await hub.run(hub.store.create_player, new_player_id(), token_hash(key), name)
    except StoreError:
        return http_error(request, 503, "error.cannot-save")
    return JSONResponse({"player": player.id, "name": player.name, "key": key},
                        status_code=201)


async def _player_request(request: Request, definition: str) -> Any:
    """The JSON body of a player request (``definition`` of the schema), or its error
    answer: 415 not JSON, 429 the address's player bucket empty (one bucket for making
    players and asking whose a key is: guessing keys is as slow as making players), and
    :func:`~.http.read_json`'s."""
    hub: "Hub" = request.app.state.hub
    if not is_json(request):
        return http_error(request, 415, "error.not-json-type")
    if not hub.player_bucket.take(address_of(request.scope)):
        return too_fast(request, "error.players-too-fast",
                        rate=hub.limits.address_players_per_minute)
    return await read_json(request, definition, hub.limits)


async def who_am_i(request: Request) -> Response:
    """``POST /players/me`` ``{"key": KEY}``: 200 ``{"player", "name"}`` of the player whose
    key it is; 404 ``error.bad-player`` for a key of nobody; 415 not JSON; 429 as
    ``POST /players`` (one bucket: guessing keys is as slow as making players)."""
    hub: "Hub" = request.app.state.hub
    message = await _player_request(request, "player_key")
    if isinstance(message, Response):
        return message
    player = await hub.run(hub.store.player_by_key, token_hash(message["key"]))
    if player is None:
        return http_error(request, 404, "error.bad-player")
    return JSONResponse({"player": player.id, "name": player.name})


async def player_data(request: Request) -> Response:
    """``GET /players/{id}.json``: :func:`player_json` (404 ``error.no-player``)."""
    hub: "Hub" = request.app.state.hub
    player_id = request.path_params["player_id"]
    if not PLAYER_ID.fullmatch(player_id):
        return http_error(request, 404, "error.no-player")
    player = await hub.run(hub.store.player, player_id)
    if player is None:
        return http_error(request, 404, "error.no-player")
    ratings = await hub.run(hub.store.ratings, player_id)
    placed = await hub.run(hub.store.placings, player_id, HISTORY_POINTS)
    return JSONResponse(player_json(player, ratings, placed))


async def leaderboard_data(request: Request) -> Response:
    """``GET /leaderboard.json?family=duel|board`` (default duel): the
    :data:`LEADERBOARD_ROWS` best by ``mu - 3 sigma``, ``{"family", "players": [{"rank",
    "player", "name", "bot", "rating", "mu", "sigma", "matches"}]}``; 400 another family."""
    hub: "Hub" = request.app.state.hub
    family = request.query_params.get("family", FAMILIES[0])
    if family not in FAMILIES:
        return http_error(request, 400, "error.bad-family", families=", ".join(FAMILIES))
    rows = await hub.run(hub.store.leaderboard, family, LEADERBOARD_ROWS)
    return JSONResponse({"family": family, "players": [
        {"rank": i + 1, "player": p.id, "name": p.name, "bot": p.bot or None,
         **{k: v for k, v in rating_json(family, r).items() if k != "family"}}
        for i, (p, r) in enumerate(rows)]})


def player_routes() -> list[BaseRoute]:
    """The routes of players and ratings, mounted by :func:`~.app.create_app` (before the
    page's ``/players/{id}``)."""
    return [Route("/players", new_player, methods=["POST"]),
            Route("/players/me", who_am_i, methods=["POST"]),
            Route("/players/{player_id}.json", player_data),
            Route("/leaderboard.json", leaderboard_data)]
