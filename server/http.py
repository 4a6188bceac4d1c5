"""What the room server's HTTP routes share: an error answer in the client's language, and
a JSON body read within the limits (its content type, size, time, form and schema).
"""
from __future__ import annotations

import asyncio
from typing import Any, Optional

from starlette.requests import Request
from starlette.responses import JSONResponse

from lostcities.engine import LostCitiesError
from lostcities.engine.tooling import loads_json

from lostcities.i18n import LANGS

from .protocol import Limits, lang_of, problem, say

#: headers every answer of the server's pages and JSON carries
COMMON_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin",
                  "Cache-Control": "no-cache"}


def lang_asked(request: Request) -> str:
    """The language a request asks for: ``?lang=`` (en, fr), else its ``Accept-Language``."""
    lang = request.query_params.get("lang", "")
    return lang if lang in LANGS else lang_of(request.headers.get("accept-language", ""))


def http_error(request: Request, status: int, key: str, **params: Any) -> JSONResponse:
    """``{"error": KEY, "text": ...}`` with ``status``: one line in the language asked
    (:func:`lang_asked`)."""
    return JSONResponse({"error": key, "text": say(lang_asked(request), key, **params)},
                        status_code=status, headers=COMMON_HEADERS)


def too_fast(request: Request, key: str, **params: Any) -> JSONResponse:
    """429 ``key`` (:func:`http_error`) with ``Retry-After: 60``: a per-minute bucket of
    this client's address is empty."""
    answer = http_error(request, 429, key, **params)
    answer.headers["retry-after"] = "60"
    return answer


def is_json(request: Request) -> bool:
    """Whether the request says its body is JSON (``Content-Type: application/json``):
    what an HTML form or a page's plain ``text/plain`` request, sent to another site
    without asking it first, cannot say."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return kind == "application/json"


async def read_body(request: Request, limit: int) -> Optional[bytes]:
    """The request's body, None when it is over ``limit`` bytes."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return body


async def read_json(request: Request, definition: str, limits: Limits) -> Any:
    """The request's JSON body, valid as the schema's ``definition``, or the error answer
    (a :class:`~starlette.responses.JSONResponse`): 408 slower than ``limits.head_seconds``, 413 over
    ``limits.message_bytes``, 400 not JSON or off the schema."""
    limit = limits.message_bytes
    try:
        body = await asyncio.wait_for(read_body(request, limit), limits.head_seconds)
    except asyncio.TimeoutError:
        return http_error(request, 408, "error.too-slow", seconds=f"{limits.head_seconds:g}")
    if body is None:
        return http_error(request, 413, "error.too-big", size=f"> {limit}", limit=limit)
    try:
        message = loads_json(body.decode("utf-8", errors="replace"), "body")
    except LostCitiesError as err:
        return http_error(request, 400, "error.not-json", reason=str(err)[:200])
    reason = problem(message, definition)
    if reason is not None:
        return http_error(request, 400, "error.bad-message", reason=reason)
    return message
