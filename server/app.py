"""The composition root: `create_app(settings)` builds every part of the live server and wires them.

Parts (each in its own module): a `FrameSource` read by the `Capture` thread, the calibration
`FramePipeline`, the `LiveTracker` loop that turns frames into game states and runs the engine,
the `StateHub` that fans states out to browsers and subscribers, the umpire's `GameSetup`
(terrain, settings) and the `AccessPolicy` (who may write). They live on `app.state.services`
and reach the handlers through the typed `Depends` getters below.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from campo.engine.live import LiveAnalysis
from campo.engine.registry import get_ruleset
from campo.engine.ruleset import UmpireTool
from campo.server.analysis_routes import add_analysis_routes, page_module_url
from campo.server.camera_view import CameraRenderer
from campo.server.capture import Capture
from campo.server.controller import handle_message, refused
from campo.server.game_state import GameSetup
from campo.server.guard import RequestLimits, allowed, client_keys, install_guard
from campo.server.hub import Client, StateHub
from campo.server.live import LiveTracker
from campo.server.messages import MAX_MESSAGE_BYTES
from campo.server.projector import TOPIC as PROJECTOR_TOPIC, CameraFeed, ProjectorService, add_projector_routes
from campo.server.projector_view import dark_footprints, token_darkness
from campo.server.reference import rules_info
from campo.server.resolution import Resolutions, add_resolution_routes
from campo.server.tokens import TokenBoard
from campo.server.turn_clock import TurnClock
from campo.server.unit_state import UnitStates
from campo.server.rig import Rig, ServerSettings, load_rig
from campo.server.security import (
    TOKEN_HEADER,
    TOKEN_QUERY,
    AccessPolicy,
    RateLimit,
    host_header_allowed,
    same_origin,
)
from campo.errors import CampoInputError
from campo.safe_input import parse_json

STATIC = Path(__file__).parent / "static"
log = logging.getLogger(__name__)


@dataclass
class Services:
    """Everything the handlers need, built once per app."""

    settings: ServerSettings
    rig: Rig
    hub: StateHub
    capture: Capture
    tracker: LiveTracker
    setup: GameSetup
    policy: AccessPolicy
    camera: CameraRenderer
    units: UnitStates | None = None  # what has happened to each base (losses, disorder ...)
    tool: UmpireTool | None = None  # the rulebook's umpire helper (ATTILA's card deck), if any
    clock: TurnClock | None = None  # the turn and phase (the rulebook's sequence of play)
    setup_url: str | None = None  # the game's setup page, when a setup host runs this game
    resolutions: Resolutions = field(default_factory=Resolutions)  # dice rolled, results to confirm
    projector: ProjectorService | None = None  # the projector over the table (server/projector.py)
    # per client address and per token across all their connections, every WebSocket message (a
    # page sends a few a minute; a runaway script sending in a loop is refused, the others are
    # unaffected)
    ws_messages: RateLimit = field(default_factory=lambda: RateLimit(rate=20, burst=40))
    # per client address and per token, HTTP pages, reads and writes (server/guard.py)
    limits: RequestLimits = field(default_factory=RequestLimits)


def build_services(settings: ServerSettings, rig: Rig | None = None) -> Services:
    """Load the files (or the demo game) and assemble the parts; nothing runs yet."""
    from campo.calibration.pipeline import FramePipeline

    rig = rig or load_rig(settings)
    hub = StateHub()
    capture = Capture(rig.source)
    pipeline = FramePipeline(rig.table, rig.roster, rig.intrinsics)
    units = UnitStates(rig.roster)
    tokens = TokenBoard(rig.roster, units, rig.table.table.dictionary) if rig.roster.tokens else None
    tracker = LiveTracker(
        capture=capture, pipeline=pipeline, roster=rig.roster,
        table_size=(rig.table.table.width_mm, rig.table.table.depth_mm),
        anchors_total=len(rig.table.anchors), setup=rig.setup, hub=hub, analyst=LiveAnalysis(),
        units=units, tokens=tokens, status_interval_s=settings.status_interval_s,
    )
    policy = AccessPolicy.for_host(settings.host, settings.token)
    tool = get_ruleset(rig.roster.ruleset).umpire_tool(settings.deck_seed)
    dice = Resolutions() if settings.dice_seed is None else Resolutions(seed=settings.dice_seed)
    projector = ProjectorService.open(hub, dark_footprints(rig.table, rig.roster), settings.projector_file)
    if rig.roster.tokens:   # the projector page keeps the status tokens dark too, wherever they lie
        tracker.status_parts.append(token_darkness(lambda: None if tracker.view is None else tracker.view.result,
                                                   rig.roster))
    return Services(settings, rig, hub, capture, tracker, rig.setup, policy,
                    CameraRenderer(rig.table, rig.roster, rig.intrinsics), units=units, tool=tool,
                    clock=TurnClock(rig.roster.ruleset, tool), resolutions=dice, projector=projector)


DURABLE_TYPES = frozenset({"unit_state", "undo_unit_state", "turn"})
"""Changes confirmed to the umpire only once a running recording has them on disk."""


async def durable(app: FastAPI) -> None:
    """Wait until everything published so far is written, when the game is recorded (a change
    the umpire saw confirmed survives a crash of the server)."""
    recorder = getattr(app.state, "recorder", None)
    if recorder is not None:
        try:
            await asyncio.to_thread(recorder.flush, 5.0)
        except Exception as exc:  # noqa: BLE001 - shown in the status (recording paused: why)
            log.warning("recording not flushed: %s", exc)


# -- typed dependency getters ------------------------------------------------------------------


def get_services(request: Request) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


def get_ws_services(websocket: WebSocket) -> Services:
    return websocket.app.state.services  # type: ignore[no-any-return]


ServicesDep = Annotated[Services, Depends(get_services)]


def presented_token(request: Request) -> str | None:
    return request.headers.get(TOKEN_HEADER) or request.query_params.get(TOKEN_QUERY)


async def read_limited_json_body(request: Request) -> bytes:
    """The request body, refusing anything over the message size limit without reading it all."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_MESSAGE_BYTES):
        raise HTTPException(413, f"body too large (limit {MAX_MESSAGE_BYTES} bytes)")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_MESSAGE_BYTES:
            raise HTTPException(413, f"body too large (limit {MAX_MESSAGE_BYTES} bytes)")
    return bytes(body)


def write_refusal(request: Request, s: Services) -> JSONResponse | None:
    """Why an HTTP write is refused (another site, no token off localhost), or None."""
    if not (same_origin(request.headers.get("origin"), request.headers.get("host"))
            and host_header_allowed(request.headers.get("host"), s.settings.host)):
        return JSONResponse(refused("cross-site request refused"), status_code=403)
    if not s.policy.allows_write(presented_token(request)):
        return JSONResponse(refused("read-only: this server needs its token (X-Campo-Token)"),
                            status_code=403)
    return None


# -- the app -----------------------------------------------------------------------------------


def create_app(settings: ServerSettings, *, services: Services | None = None) -> FastAPI:
    """The FastAPI app; the capture and per-frame threads run while the app's lifespan does."""
    services = services or build_services(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services.hub.bind(asyncio.get_running_loop())
        services.capture.start()
        services.tracker.start()
        try:
            yield
        finally:
            services.tracker.stop()
            services.capture.stop()

    app = FastAPI(title="Campo live tracker", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.services = services
    install_guard(app, bind=settings.host, allow_hosts=settings.allow_hosts, limits=services.limits,
                  max_body=MAX_MESSAGE_BYTES)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    add_analysis_routes(app, lambda: (services.tracker.state, services.tracker.snapshot),
                        unit_states=services.units)

    if services.projector is not None:
        add_projector_routes(app, services.projector, camera_feed(services),
                             lambda request: write_refusal(request, services), lambda: services.tracker.snapshot)

    @app.get("/api/status")
    def api_status(s: ServicesDep) -> dict[str, Any]:
        return s.tracker.status()

    @app.get("/api/rules")
    def api_rules(s: ServicesDep) -> dict[str, Any]:
        """The ruleset's unit, settings (with the umpire's values) and quick-reference tables."""
        _, _, values = s.setup.snapshot()
        return rules_info(s.rig.roster.ruleset, values)

    @app.get("/api/camera.jpg")
    def api_camera(s: ServicesDep, overlay: bool = True, width: int = 960, base: str | None = None) -> Response:
        """The camera's latest frame as JPEG, with markers, bases and (with `base`) its arcs drawn on it."""
        view = s.tracker.view
        if view is None:
            raise HTTPException(503, "no frame yet (no signal)")
        state, snapshot = s.tracker.state, s.tracker.snapshot
        geometry = None
        if overlay and base and snapshot is not None and snapshot.state is not None \
                and base in snapshot.state.ids:
            with contextlib.suppress(CampoInputError):
                geometry = snapshot.geometry(base)
        jpeg = s.camera.jpeg(view, state, overlay=overlay, width=max(160, min(width, 3840)),
                             base_id=base, geometry=geometry)
        return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/setup")
    def api_setup(s: ServicesDep) -> dict[str, Any]:
        _, terrain, values = s.setup.snapshot()
        return {"terrain": terrain, "settings": values,
                "file": None if s.setup.path is None else str(s.setup.path)}

    async def write(request: Request, s: Services, message_type: str) -> JSONResponse:
        return await write_json(request, s, message_type, None)

    async def write_json(request: Request, s: Services, message_type: str,
                         given: dict[str, Any] | None) -> JSONResponse:
        """A write from HTTP: the site and token checked, the body (or ``given``) handled as
        the WebSocket message of ``message_type``."""
        refusal = write_refusal(request, s)
        if refusal is not None:
            return refusal
        if given is None:
            body = await read_limited_json_body(request)   # the rate was checked by the guard
            try:
                data = parse_json(body)
            except CampoInputError as exc:
                return JSONResponse(refused(f"body is not JSON: {exc}"), status_code=400)
            if not isinstance(data, dict):
                return JSONResponse(refused("body must be a JSON object"), status_code=400)
        else:
            data = given
        reply = handle_message({**data, "type": message_type}, can_write=True, setup=s.setup, hub=s.hub,
                               tool=s.tool, units=s.units, clock=s.clock, source="api")
        if reply["ok"] and message_type in DURABLE_TYPES:
            await durable(request.app)
        return JSONResponse(reply, status_code=200 if reply["ok"] else 422)

    add_resolution_routes(app, lambda: services.tracker.snapshot, services.units, services.hub,
                          services.resolutions, lambda request: write_refusal(request, services),
                          durable)

    @app.put("/api/bases/{base_id}/state")
    async def put_unit_state(base_id: str, request: Request, s: ServicesDep) -> JSONResponse:
        """Set some of a base's state traits: body `{"traits": {"disordered": true, "losses": 2}}`
        (token off localhost). The answer is the base's traits after the change; an unknown base
        is 404, an unknown trait or a bad value 422 naming it, and nothing changes. With a
        recording, the answer comes once the change is on disk."""
        if s.units is None or base_id not in s.rig.roster.by_id():
            raise HTTPException(404, f"no base {base_id!r} on the roster")
        body = await request.body()
        try:
            data = parse_json(body) if body else {}
        except CampoInputError as exc:
            return JSONResponse(refused(f"body is not JSON: {exc}"), status_code=400)
        if not isinstance(data, dict) or not isinstance(data.get("traits"), dict):
            return JSONResponse(refused('give {"traits": {name: value, ...}}'), status_code=422)
        response = await write_json(request, s, "unit_state", {"base": base_id, "traits": data["traits"]})
        if response.status_code == 200:
            roster_traits = s.rig.roster.by_id()[base_id].traits
            return JSONResponse({"ok": True, "base": base_id,
                                 "traits": {**roster_traits, **s.units.traits(base_id)}})
        return response

    @app.put("/api/terrain")
    async def put_terrain(request: Request, s: ServicesDep) -> JSONResponse:
        """Replace the terrain: body `{"terrain": [...]}` (saved to the setup file)."""
        return await write(request, s, "terrain")

    @app.put("/api/settings")
    async def put_settings(request: Request, s: ServicesDep) -> JSONResponse:
        """Replace the ruleset setting overrides: body `{"settings": {...}}`."""
        return await write(request, s, "settings")

    @app.post("/api/events")
    async def post_event(request: Request, s: ServicesDep) -> JSONResponse:
        """An umpire event: body `{"kind": "turn"|"phase"|"note", ...}`."""
        return await write(request, s, "event")

    @app.get("/api/deck")
    def api_deck(s: ServicesDep) -> dict[str, Any]:
        """The rulebook's umpire tool (ATTILA's card deck: turn, the card just drawn, cards drawn
        and left); 404 for rulebooks without one."""
        if s.tool is None:
            raise HTTPException(404, f"the {s.rig.roster.ruleset} ruleset has no card deck")
        return s.tool.view()

    @app.post("/api/deck")
    async def post_deck(request: Request, s: ServicesDep) -> JSONResponse:
        """Act with the umpire tool: body `{"action": ...}` (ATTILA's deck: "shuffle" | "draw"; token)."""
        return await write(request, s, "deck")

    @app.get("/api/turn")
    def api_turn(s: ServicesDep) -> dict[str, Any]:
        """The turn clock: turn, phase, the side that plays first, who acts and what each side's
        bases may do with their move, and the rulebook's whole sequence of play."""
        if s.clock is None:
            raise HTTPException(404, "this game has no turn clock")
        return s.clock.view() | {"sequence": s.clock.sequence.to_dict()}

    @app.post("/api/turn")
    async def post_turn(request: Request, s: ServicesDep) -> JSONResponse:
        """Step the turn clock: body `{"action": "next" | "back" | "first", "side"?: "A" | "B"}`
        (token off localhost); "back" is undo. The answer is the clock after the step."""
        return await write(request, s, "turn")

    @app.websocket("/ws")
    async def ws(websocket: WebSocket, s: Annotated[Services, Depends(get_ws_services)]) -> None:
        if not (same_origin(websocket.headers.get("origin"), websocket.headers.get("host"))
                and host_header_allowed(websocket.headers.get("host"), s.settings.host)):
            await websocket.close(code=1008)
            return
        can_write = s.policy.allows_write(websocket.query_params.get(TOKEN_QUERY))
        await websocket.accept()
        client = s.hub.connect(can_write=can_write)
        s.hub.send_to(client, "hello", hello_payload(s, client))
        if s.tool is not None:
            s.hub.send_to(client, s.tool.topic, s.tool.view())
        if s.clock is not None:
            s.hub.send_to(client, s.clock.topic, s.clock.view())
        if s.projector is not None:
            s.hub.send_to(client, PROJECTOR_TOPIC, s.projector.payload())
        sender = asyncio.create_task(_send_loop(websocket, client))
        try:
            await _receive_loop(websocket, client, s)
        finally:
            s.hub.disconnect(client)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    return app


def camera_feed(s: Services) -> CameraFeed:
    """The live camera as projector calibration reads it: the latest frame and its table."""
    def latest() -> tuple[Any, float, Any] | None:
        view = s.tracker.view
        return None if view is None else (view.frame.image, view.frame.t, view.result.location)

    table = s.rig.table.table
    return CameraFeed(latest, s.rig.intrinsics, (table.width_mm, table.depth_mm))


def hello_payload(s: Services, client: Client) -> dict[str, Any]:
    """The first message a client gets: who it is, what it may do, what it is looking at."""
    return {"client": client.id, "can_write": client.can_write, "mode": s.tracker.mode,
            "ruleset": s.rig.roster.ruleset, "source": s.rig.source.name,
            "tool": None if s.tool is None else {"topic": s.tool.topic, "actions": list(s.tool.actions)},
            "page_module": page_module_url(s.rig.roster.ruleset),
            "token_required": s.policy.token is not None,
            "setup_file": None if s.setup.path is None else s.setup.path.name,
            "setup_url": s.setup_url}


async def _send_loop(websocket: WebSocket, client: Client) -> None:
    """Drain the client's slots; while a send blocks (slow client) newer states replace older."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        while True:
            for text in await client.next_batch():
                await websocket.send_text(text)


async def _receive_loop(websocket: WebSocket, client: Client, s: Services) -> None:
    keys = client_keys(websocket.scope)   # this client's address and token, over all connections
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        raw = message.get("text")
        if raw is None:
            raw = message.get("bytes") or b""
        if not allowed(s.ws_messages, keys):
            s.hub.send_to(client, "reply", refused(f"too many messages: {s.ws_messages.describe()}, "
                                                   "slow down (this one was ignored)"))
            continue
        reply = handle_message(raw, can_write=client.can_write, setup=s.setup, hub=s.hub, tool=s.tool,
                               units=s.units, clock=s.clock, source="page")
        if reply.get("ok") and reply.get("type") in DURABLE_TYPES:
            await durable(websocket.app)
        s.hub.send_to(client, "reply", reply)
