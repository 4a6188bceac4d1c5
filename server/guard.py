"""What ``lc serve`` adds to uvicorn against a client that holds connections open
(docs/server.md, "Limits"): a request head must arrive within ``Limits.head_seconds``
(uvicorn times out only the wait between two requests, ``timeout_keep_alive``), open
connections are capped below the file limit and by client address, and a client's
malformed frame is logged as one line, at most once every :data:`LOG_EVERY` seconds.

Needs the ``serve`` extra (uvicorn).
"""
from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter
from typing import Any, Callable, Optional

from .clients import address_key

#: file descriptors kept for the server's own files (the database, records, the log)
FD_RESERVE = 100
#: seconds between two lines of one kind of a client's fault in the log
LOG_EVERY = 10.0
#: what a connection over the cap is told before it is closed
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n"
        b"content-length: 12\r\nconnection: close\r\n\r\nserver busy\n")


def open_connection_cap(wanted: int) -> int:
    """The open connections a server may hold: ``wanted``, fewer when the process's file
    limit (``RLIMIT_NOFILE``, ``ulimit -n``) less :data:`FD_RESERVE` is lower (at least 1)."""
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return wanted
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - FD_RESERVE))


def guarded(base: type, head_seconds: float, cap: int, peer_cap: int,
            trusted: Callable[[str], bool]) -> type:
    """uvicorn's HTTP protocol class ``base`` (``H11Protocol``, ``HttpToolsProtocol``)
    made to close a connection whose request head is not whole ``head_seconds`` after its
    first byte (or after the connection opened), and to turn away (503, closed) a
    connection beyond ``cap`` open ones or beyond ``peer_cap`` HTTP connections of one
    client address (:func:`~.clients.address_key`) that is not a ``trusted`` proxy."""
    held: Counter[str] = Counter()

    class Guarded(base):  # type: ignore[valid-type, misc]
        def connection_made(self, transport: Any) -> None:
            self._head_timer: Optional[asyncio.TimerHandle] = None
            self._peer: Optional[str] = None
            super().connection_made(transport)
            host = self.client[0] if self.client else ""
            peer = address_key(host)
            if len(self.connections) > cap or \
                    (held[peer] >= peer_cap and not trusted(host)):
                transport.write(BUSY)
                transport.close()
                return
            self._peer = peer
            held[peer] += 1
            self._wait_for_head()

        def data_received(self, data: bytes) -> None:
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and self._head_timer is None:
                self._wait_for_head()
            before = self.cycle
            super().data_received(data)
            upgraded = self.transport.get_protocol() is not self
            if self.cycle is not before or self.transport.is_closing() or upgraded:
                self._head_came()
            if upgraded:  # a WebSocket now: the server's per-address limits count it
                self._let_go()

        def connection_lost(self, exc: Optional[Exception]) -> None:
            self._head_came()
            self._let_go()
            super().connection_lost(exc)

        def _let_go(self) -> None:
            if self._peer is not None:
                held[self._peer] -= 1
                if held[self._peer] <= 0:
                    del held[self._peer]
                self._peer = None

        def _wait_for_head(self) -> None:
            self._head_timer = self.loop.call_later(head_seconds, self._head_late)

        def _head_came(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_late(self) -> None:
            self._head_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    return Guarded


class Throttle:
    """Lines of the log said at most once every ``seconds`` a kind: :meth:`allow` says
    whether a line of ``kind`` may be written now and how many were left out since."""

    def __init__(self, seconds: float = LOG_EVERY, clock: Callable[[], float] = time.monotonic):
        self.seconds = seconds
        self.clock = clock
        self._last: dict[str, float] = {}
        self._left_out: Counter[str] = Counter()

    def allow(self, kind: str) -> Optional[int]:
        """None: leave this line out (counted); else write it, with the count of those
        of its kind left out since the last one written."""
        now = self.clock()
        if now - self._last.get(kind, -math.inf) < self.seconds:
            self._left_out[kind] += 1
            return None
        self._last[kind] = now
        return self._left_out.pop(kind, 0)


class OneLine(logging.Filter):
    """A log filter for a client's faults that uvicorn logs (a text frame that is not
    UTF-8, an HTTP request it cannot read): one line without the traceback, at most
    once every :data:`LOG_EVERY` seconds a kind, saying how many were left out."""

    FAULTS = ("Invalid UTF-8 sequence received from client", "Invalid HTTP request received")

    def __init__(self) -> None:
        super().__init__()
        self.throttle = Throttle()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        fault = next((f for f in self.FAULTS if message.startswith(f)), None)
        if fault is None:
            return True
        left_out = self.throttle.allow(fault)
        if left_out is None:
            return False
        record.msg = fault + (f" ({left_out} more since the last such line)" if left_out
                              else "")
        record.args = ()
        record.exc_info = None
        record.exc_text = None
        return True
