"""The web side of `campo replay`: the live overlay page, in review mode, fed from a recording.

The page is the live server's own (server/static/index.html and its scripts), so review looks
exactly like the game did. This app speaks the same API (`/api/state`, `/ws` envelopes,
`/api/rules`, `/api/bases/{id}/analysis`, `/api/geometry/{id}`, `/api/setup`, `/api/status`) but
the state comes from the replay cursor, and it adds the timeline: `/api/replay/timeline`, `/api/replay/state?t=` (any
moment, without moving the cursor), `POST /api/replay/cursor {"t"| "seq"}` (move the shared
cursor: every open page shows that moment). The page also loads static/replay.js, the scrubber.
Everything that would change the game (terrain, settings, umpire events) is refused: read-only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from campo.engine.live import Snapshot
from campo.errors import CampoInputError
from campo.safe_input import parse_json
from campo.server.analysis_routes import add_analysis_routes, page_module_url
from campo.server.guard import RequestLimits, install_guard
from campo.server.hub import StateHub
from campo.server.recording.replay import ReplaySession
from campo.server.request_body import first_problem
from campo.server.security import RateLimit, same_origin

STATIC = Path(__file__).resolve().parents[1] / "static"
REPLAY_TAGS = ('<link rel="stylesheet" href="/static/replay.css">'
               '<script type="module" src="/static/replay.js"></script>')


def replay_page(index_html: str) -> str:
    """The live page plus the scrubber's files, marked as review mode for its scripts and CSS."""
    html = index_html.replace("</head>", REPLAY_TAGS + "</head>", 1)
    return html.replace("<body", '<body data-mode="replay"', 1)


MAX_CURSOR_BODY = 1024
"""A cursor move is `{"t": 12.5}` or `{"seq": 40}`; anything longer is refused unread."""


class CursorMove(BaseModel):
    """The body of `POST /api/replay/cursor`: a time in seconds or an entry's seq, finite and sane."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    t: float | None = Field(None, ge=-1e9, le=1e9)
    seq: int | None = Field(None, ge=0, le=2**62)


def cursor_move(raw: bytes) -> CursorMove:
    """The parsed cursor body; `HTTPException` 400 naming what is wrong."""
    try:
        move = CursorMove.model_validate(parse_json(raw or b"{}"))
    except CampoInputError as exc:
        raise HTTPException(400, f"body is not acceptable JSON: {exc}") from None
    except ValidationError as exc:
        where, what = first_problem(exc)
        raise HTTPException(400, f"{where + ': ' if where else ''}{what}") from None
    if move.t is None and move.seq is None:
        raise HTTPException(400, 'give {"t": seconds} or {"seq": event seq}')
    return move


def read_only(what: str) -> JSONResponse:
    return JSONResponse({"ok": False, "error": f"read-only: this is a replay ({what} refused)"},
                        status_code=403)


def create_replay_app(path: str | Path, *, host: str = "127.0.0.1", allow_hosts: Iterable[str] = (),
                      limits: RequestLimits | None = None) -> FastAPI:
    """The review app for one recording (opened now: a bad file fails here, naming it), bound to
    ``host`` and also answering to ``allow_hosts`` (server/guard.py: Host, body size, rates)."""
    session = ReplaySession(path)
    hub = StateHub()
    shown: list[tuple[dict[str, Any], Snapshot]] = [session.moment_at(0.0)]  # the cursor's moment

    def show(moment: tuple[dict[str, Any], Snapshot]) -> dict[str, Any]:
        shown[0] = moment
        hub.publish("state", moment[0])
        return moment[0]

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.bind(asyncio.get_running_loop())
        hub.publish("status", status())
        show(shown[0])
        try:
            yield
        finally:
            session.close()

    app = FastAPI(title="Campo replay", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.replay = session
    # cursor moves follow the scrubber (one in flight at a time): more than live writes
    limits = limits or RequestLimits(writes=RateLimit(rate=20, burst=40))
    app.state.limits = limits
    install_guard(app, bind=host, allow_hosts=allow_hosts, limits=limits, max_body=MAX_CURSOR_BODY)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def current() -> dict[str, Any]:
        return shown[0][0]

    add_analysis_routes(app, lambda: shown[0])

    @app.get("/", include_in_schema=False)
    def index() -> HTMLResponse:
        html = replay_page((STATIC / "index.html").read_text(encoding="utf-8"))
        return HTMLResponse(html, headers={"Cache-Control": "no-cache"})

    def status() -> dict[str, Any]:
        """The status bar's fields (as live), saying "replay"; the camera pills are hidden."""
        return {"mode": "replay", "fps": 0.0, "frames": 0, "file": session.path.name,
                "t": session.t, "duration": session.duration,
                "camera": {"signal": False, "source": session.path.name},
                "anchors_seen": 0, "anchors_total": 0, "table_located": False,
                "unknown_markers": []}

    @app.get("/api/status")
    def api_status() -> dict[str, Any]:
        return status()

    @app.get("/api/rules")
    def api_rules() -> dict[str, Any]:
        from campo.server.reference import rules_info

        return rules_info(session.ruleset, current().get("settings") or {})

    @app.get("/api/setup")
    def api_setup() -> dict[str, Any]:
        state = current()
        return {"terrain": state.get("terrain") or [], "settings": state.get("settings") or {},
                "file": None}

    @app.get("/api/camera.jpg")
    def api_camera() -> Response:
        raise HTTPException(503, "no camera in a replay")

    @app.get("/api/replay/timeline")
    def api_timeline() -> dict[str, Any]:
        return session.timeline()

    @app.get("/api/replay/state")
    def api_replay_state(t: float) -> JSONResponse:
        if not -1e9 <= t <= 1e9:   # also NaN
            raise HTTPException(422, "t must be a number of seconds")
        return JSONResponse(session.state_at(t))

    @app.post("/api/replay/cursor")
    async def api_cursor(request: Request) -> JSONResponse:
        if not same_origin(request.headers.get("origin"), request.headers.get("host")):
            return JSONResponse({"ok": False, "error": "cross-site request refused"},
                                status_code=403)
        move = cursor_move(await request.body())   # the guard has bounded the body already
        try:
            if move.seq is not None:
                moment = await asyncio.to_thread(session.moment_at_event, move.seq)
            else:
                moment = await asyncio.to_thread(session.moment_at, float(move.t or 0.0))
        except KeyError:
            raise HTTPException(404, f"no such moment: {move.model_dump(exclude_none=True)}") from None
        return JSONResponse(show(moment))

    @app.put("/api/terrain")
    def put_terrain() -> JSONResponse:
        return read_only("terrain")

    @app.put("/api/settings")
    def put_settings() -> JSONResponse:
        return read_only("settings")

    @app.post("/api/events")
    def post_event() -> JSONResponse:
        return read_only("events")

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        if not same_origin(websocket.headers.get("origin"), websocket.headers.get("host")):
            await websocket.close(code=1008)
            return
        await websocket.accept()
        client = hub.connect(can_write=False)
        hub.send_to(client, "hello", {"client": client.id, "can_write": False, "mode": "replay",
                                      "ruleset": session.ruleset, "source": session.path.name,
                                      "token_required": False, "setup_file": None,
                                      "tool": None, "page_module": page_module_url(session.ruleset)})
        sender = asyncio.create_task(_send_loop(websocket, client))
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                hub.send_to(client, "reply", _reply(message.get("text")))
        finally:
            hub.disconnect(client)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    return app


def _reply(text: str | None) -> dict[str, Any]:
    """Pings are answered; everything else would change the game and is refused."""
    try:
        kind = parse_json(text or "null").get("type")
    except (CampoInputError, AttributeError):
        kind = None
    if kind == "ping":
        return {"ok": True, "type": "pong"}
    return {"ok": False, "type": kind, "error": "read-only: this is a replay"}


async def _send_loop(websocket: WebSocket, client: Any) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        while True:
            for text in await client.next_batch():
                await websocket.send_text(text)
