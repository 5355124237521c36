"""The gate in front of both servers (live and replay): Host, body size and request rate.

`Guard` is a pure ASGI middleware, so every route, the static files and the WebSocket pass
through it whatever the route code does:

- **Host**: a request must be addressed to this server (`HostPolicy`): its bound address,
  loopback, the `localhost` names and whatever `--allow-host` adds. A page on a foreign site
  whose name was re-pointed at 127.0.0.1 (DNS rebinding) sends its own name as Host and is
  refused, reads included. An IP literal cannot be rebound, so a server bound to every
  interface (0.0.0.0) accepts any IP literal.
- **Body size**: at most `max_body` bytes, counted as they arrive (a missing or lying
  Content-Length changes nothing); the body is then handed to the route whole.
- **Rate**: per client address and, when one is presented, per token, across all that client's
  connections (`RequestLimits`). Pages and static files, reads (`/api/camera.jpg` counts its
  width in 960-pixel units, since that is what it costs) and writes each have their own bucket.
  The client address is the TCP peer: `X-Forwarded-For` is honoured only when a proxy is
  configured (uvicorn's `forwarded_allow_ips`, see `server/runner.py`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from campo.server.security import TOKEN_HEADER, TOKEN_QUERY, HostPolicy, RateLimit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CAMERA_UNIT_PX = 960
"""`/api/camera.jpg` costs one read per this many pixels of width (the page asks for 960)."""
CAMERA_MAX_PX = 3840
"""The widest picture the server draws (server/app.py): the most a picture costs."""


@dataclass
class RequestLimits:
    """The rate buckets of one server, shared by all its connections (see the module doc)."""

    pages: RateLimit = field(default_factory=lambda: RateLimit(rate=50, burst=200))
    reads: RateLimit = field(default_factory=lambda: RateLimit(rate=20, burst=40))
    writes: RateLimit = field(default_factory=lambda: RateLimit(rate=10, burst=20))

    def bucket(self, method: str, path: str) -> RateLimit:
        if method not in ("GET", "HEAD"):
            return self.writes
        if path.startswith("/api/"):
            return self.reads
        return self.pages


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def client_keys(scope: Scope) -> list[tuple[str, str]]:
    """Who is asking: the TCP peer's address and, when one is presented, the token."""
    client = scope.get("client")
    keys = [("address", str(client[0]) if client else "?")]
    query = parse_qs(bytes(scope.get("query_string") or b"").decode("latin-1"))
    token = _header(scope, TOKEN_HEADER.lower().encode()) or next(iter(query.get(TOKEN_QUERY, [])), None)
    if token:
        keys.append(("token", token))
    return keys


def request_cost(scope: Scope) -> float:
    """Reads counted by what they cost: a camera picture by its width in `CAMERA_UNIT_PX`."""
    if scope.get("path") != "/api/camera.jpg":
        return 1.0
    query = parse_qs(bytes(scope.get("query_string") or b"").decode("latin-1"))
    try:
        width = float(query.get("width", [str(CAMERA_UNIT_PX)])[0])
    except ValueError:
        return 1.0
    return float(max(1, math.ceil(min(max(width, 1.0), CAMERA_MAX_PX) / CAMERA_UNIT_PX)))


def allowed(limit: RateLimit, keys: list[tuple[str, str]], cost: float = 1.0) -> bool:
    """Take ``cost`` from every key's bucket; False when any is empty."""
    return all(limit.allow(key, cost) for key in keys)


async def _reply(send: Send, status: int, error: str, headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    body = json.dumps({"ok": False, "error": error}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *headers]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware: refuse a foreign Host, an oversized body, a client over its rate."""

    def __init__(self, app: ASGIApp, *, hosts: HostPolicy, limits: RequestLimits, max_body: int) -> None:
        self.app, self.hosts, self.limits, self.max_body = app, hosts, limits, max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host")
        if not self.hosts.allows(host):
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": "foreign Host"})
                return
            await _reply(send, 403, f"Host {host!r} is not this server (a foreign page?); "
                                    "start it with --allow-host NAME to be reached by that name")
            return
        if kind == "websocket":   # its messages are limited per client by the app (ws_messages)
            await self.app(scope, receive, send)
            return
        limit = self.limits.bucket(scope["method"], scope["path"])
        if not allowed(limit, client_keys(scope), request_cost(scope)):
            await _reply(send, 429, f"too many requests: {limit.describe()}, slow down",
                         [(b"retry-after", b"1")])
            return
        body = await self._read_body(scope, receive)
        if body is None:
            await _reply(send, 413, f"body too large (limit {self.max_body} bytes)")
            return
        await self.app(scope, _replay(body, receive), send)

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or None as soon as it passes `max_body` (never buffered beyond)."""
        length = _header(scope, b"content-length")
        if length is not None and (not length.strip().isdigit() or int(length) > self.max_body):
            return None
        if scope["method"] in ("GET", "HEAD") and not length and _header(scope, b"transfer-encoding") is None:
            return b""
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":   # the client went away
                return bytes(body)
            body += message.get("body", b"")
            if len(body) > self.max_body:
                return None
            if not message.get("more_body"):
                return bytes(body)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the route the body already read, then waits for the disconnect."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


def install_guard(app: Any, *, bind: str, allow_hosts: Iterable[str], limits: RequestLimits,
                  max_body: int) -> None:
    """Put a `Guard` in front of every route of ``app`` (a FastAPI or Starlette app)."""
    app.add_middleware(Guard, hosts=HostPolicy.for_bind(bind, allow_hosts), limits=limits, max_body=max_body)
