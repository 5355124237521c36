"""The setup's HTTP and WebSocket routes (`create_setup_app`), all under `/setup`, `/api/setup/`,
`/camera` (the phone's camera page) and `/ws/camera` (its frames).

Reads are open like the live page's; every write (a file saved, the camera switched, a frame
sent, play) needs what the live page's writes need: this server's own origin and, off loopback,
the token.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from campo.calibration.charuco import BoardSpec
from campo.errors import CampoInputError
from campo.server.security import TOKEN_HEADER, TOKEN_QUERY, host_header_allowed, same_origin
from campo.server.setup import drafts, pictures
from campo.server.setup.catalogue import rulebooks

if TYPE_CHECKING:
    from campo.server.setup.host import CampoHost

STATIC = Path(__file__).resolve().parents[1] / "static"
MAX_BODY_BYTES = 2 * 1024 * 1024
"""A roster of 1000 bases as JSON is about 400 KB."""
PAPERS = ("A4", "letter", "A3")


def _refused(message: str, status: int) -> JSONResponse:
    return JSONResponse({"ok": False, "error": message}, status_code=status)


class Refused(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def create_setup_app(host: CampoHost) -> FastAPI:
    """The setup's app, behind the same gate as the live game's (Host, body size, rates:
    server/guard.py); the phone's frames arrive on its WebSocket, one connection."""
    from campo.server.guard import RequestLimits, install_guard

    app = FastAPI(title="Campo setup", docs_url=None, redoc_url=None)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    add_setup_routes(app, host)
    install_guard(app, bind=host.settings.host, allow_hosts=host.settings.allow_hosts,
                  limits=RequestLimits(), max_body=MAX_BODY_BYTES)
    return app


def add_setup_routes(app: FastAPI, host: CampoHost) -> None:
    """Every setup route on ``app`` (see the module docstring)."""
    session = host.session

    async def body(request: Request) -> Any:
        """The request's JSON after the write checks; `Refused` says why not."""
        if not (same_origin(request.headers.get("origin"), request.headers.get("host"))
                and host_header_allowed(request.headers.get("host"), host.settings.host)):
            raise Refused("cross-site request refused", 403)
        token = request.headers.get(TOKEN_HEADER) or request.query_params.get(TOKEN_QUERY)
        if not host.policy.allows_write(token):
            raise Refused("read-only: this server needs its token (X-Campo-Token)", 403)
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            raise Refused(f"body too large (limit {MAX_BODY_BYTES} bytes)", 413)
        raw = await request.body()
        if len(raw) > MAX_BODY_BYTES:
            raise Refused(f"body too large (limit {MAX_BODY_BYTES} bytes)", 413)
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise Refused("body is not JSON", 400) from None

    def guarded(handler: Any) -> Any:
        async def run(request: Request) -> Response:
            try:
                data = await body(request)
                result = handler(data) if not asyncio.iscoroutinefunction(handler) else await handler(data)
            except Refused as exc:
                return _refused(str(exc), exc.status)
            except CampoInputError as exc:
                # the user's input refused, with why: an answer, not a failure of the request
                return JSONResponse({"ok": False, "error": str(exc), "lines": drafts.error_lines(exc),
                                     "changed": type(exc).__name__ == "FileChangedError"})
            if isinstance(result, Response):
                return result
            return JSONResponse(result)
        return run

    # -- pages ----------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/setup", status_code=307)

    @app.get("/setup", include_in_schema=False)
    def setup_page() -> FileResponse:
        return FileResponse(STATIC / "setup.html", headers={"Cache-Control": "no-cache"})

    @app.get("/camera", include_in_schema=False)
    def camera_page() -> FileResponse:
        return FileResponse(STATIC / "camera.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/state")
    def no_game() -> JSONResponse:
        return _refused("no game yet: finish the setup at /setup", 503)

    # -- status and vocabulary ------------------------------------------------------------------

    @app.get("/api/setup/status")
    def status(request: Request) -> dict[str, Any]:
        token = request.headers.get(TOKEN_HEADER) or request.query_params.get(TOKEN_QUERY)
        live = host.live
        return {
            "folder": str(host.files.folder),
            "files": {name: session.file_state(name).to_json() for name in host.files.named()},
            "paths": {name: str(path) for name, path in host.files.named().items()},
            "can_write": host.policy.allows_write(token),
            "token_required": host.policy.token is not None,
            "camera": host.camera_status(),
            "playing": None if live is None else {"ruleset": live.ruleset, "bases": live.bases},
            "play_error": host.play_error,
        }

    @app.get("/api/setup/rulebooks")
    def api_rulebooks() -> list[dict[str, Any]]:
        return rulebooks()

    @app.get("/api/setup/catalogue/{ruleset}")
    def api_catalogue(ruleset: str) -> dict[str, Any]:
        try:
            return session.catalogue(ruleset)
        except CampoInputError as exc:
            raise HTTPException(404, str(exc)) from None

    @app.get("/api/setup/dictionary/{name}")
    def api_dictionary(name: str) -> dict[str, Any]:
        from campo.vision.tabletop import dictionary_size

        try:
            return {"name": name, "size": dictionary_size(name), "cells": drafts.marker_cells(name)}
        except ValueError as exc:
            raise HTTPException(404, str(exc)) from None

    # -- the files ------------------------------------------------------------------------------

    def read_file(name: str) -> dict[str, Any]:
        state = session.file_state(name)
        out: dict[str, Any] = state.to_json()
        out["data"] = None
        if state.exists and not state.error:
            value = session.table() if name == "table" else session.roster()
            out["data"] = value.model_dump(mode="json") if value is not None else None
        return out

    @app.get("/api/setup/table")
    def get_table() -> dict[str, Any]:
        return read_file("table")

    @app.get("/api/setup/roster")
    def get_roster() -> dict[str, Any]:
        return read_file("roster")

    def put_table(data: Any) -> dict[str, Any]:
        return session.save_table(data.get("table"), data.get("version"))

    def put_roster(data: Any) -> dict[str, Any]:
        return session.save_roster(data.get("roster"), data.get("version"))

    def check_table(data: Any) -> dict[str, Any]:
        return drafts.check_table(data.get("table")).to_json()

    def check_roster(data: Any) -> dict[str, Any]:
        return {**session.check_roster(data.get("roster")).to_json(), "ok": True}

    def import_roster(data: Any) -> dict[str, Any]:
        text, name = data.get("text"), data.get("name") or "roster.toml"
        if not isinstance(text, str) or not isinstance(name, str):
            raise CampoInputError("send the file's text and name", key="text")
        table = None
        try:
            table = session.table()
        except CampoInputError:
            pass
        roster = drafts.import_roster(text, Path(name).name, table)
        return {"ok": True, "roster": roster.model_dump(mode="json")}

    def import_table(data: Any) -> dict[str, Any]:
        text, name = data.get("text"), data.get("name") or "table.toml"
        if not isinstance(text, str) or not isinstance(name, str):
            raise CampoInputError("send the file's text and name", key="text")
        return {"ok": True, "table": drafts.import_table(text, Path(name).name).model_dump(mode="json")}

    app.add_api_route("/api/setup/table", guarded(put_table), methods=["PUT"])
    app.add_api_route("/api/setup/roster", guarded(put_roster), methods=["PUT"])
    app.add_api_route("/api/setup/check/table", guarded(check_table), methods=["POST"])
    app.add_api_route("/api/setup/check/roster", guarded(check_roster), methods=["POST"])
    app.add_api_route("/api/setup/import/roster", guarded(import_roster), methods=["POST"])
    app.add_api_route("/api/setup/import/table", guarded(import_table), methods=["POST"])

    @app.get("/api/setup/roster.toml")
    def export_roster() -> Response:
        if not host.files.roster.exists():
            raise HTTPException(404, "no roster.toml saved yet")
        return Response(host.files.roster.read_bytes(), media_type="application/toml",
                        headers={"Content-Disposition": 'attachment; filename="roster.toml"', "Cache-Control": "no-store"})

    @app.get("/api/setup/table.toml")
    def export_table() -> Response:
        if not host.files.table.exists():
            raise HTTPException(404, "no table.toml saved yet")
        return Response(host.files.table.read_bytes(), media_type="application/toml",
                        headers={"Content-Disposition": 'attachment; filename="table.toml"', "Cache-Control": "no-store"})

    # -- printing -------------------------------------------------------------------------------

    def pdf(pages: list[Any], name: str, title: str) -> Response:
        from campo.vision.printing_render import write_pdf

        with tempfile.TemporaryDirectory() as tmp:
            path = write_pdf(pages, Path(tmp) / name, title=title)
            data = path.read_bytes()
        return Response(data, media_type="application/pdf",
                        headers={"Content-Disposition": f'inline; filename="{name}"', "Cache-Control": "no-store"})

    def paper_of(paper: str) -> str:
        if paper not in PAPERS:
            raise HTTPException(422, f"paper: choose {', '.join(PAPERS)} (got {paper!r})")
        return paper

    def saved(what: str) -> Any:
        try:
            value = session.table() if what == "table" else session.roster()
        except CampoInputError as exc:
            raise HTTPException(422, str(exc)) from None
        if value is None:
            raise HTTPException(404, f"save the {what} first")
        return value

    @app.get("/api/setup/anchors.pdf")
    def anchors_pdf(paper: str = "A4") -> Response:
        from campo.vision.printing_markers import anchor_sheets

        return pdf(anchor_sheets(saved("table"), paper=paper_of(paper)), "anchors.pdf", "Campo table anchors")

    @app.get("/api/setup/markers.pdf")
    def markers_pdf(paper: str = "A4", cut: str = "marker") -> Response:
        from campo.vision.printing_markers import CUT_CHOICES, marker_sheets

        if cut not in CUT_CHOICES:
            raise HTTPException(422, f"cut: choose {', '.join(CUT_CHOICES)} (got {cut!r})")
        try:
            pages = marker_sheets(saved("table"), saved("roster"), paper=paper_of(paper), cut=cut)
        except CampoInputError as exc:
            raise HTTPException(422, str(exc)) from None
        return pdf(pages, "markers.pdf", "Campo markers")

    @app.get("/api/setup/board.pdf")
    def board_pdf(paper: str = "auto") -> Response:
        from campo.vision.printing_board import board_page

        spec = session.board
        lines = [f"Campo calibration board: {spec.describe()}",
                 "Glue flat on stiff card; hold it in front of the camera where the setup page says."]
        try:
            page = board_page(spec.cv_board(), lines, paper)
        except CampoInputError as exc:
            raise HTTPException(422, str(exc)) from None
        return pdf([page], "board.pdf", f"Campo board {spec.describe()}")

    # -- the camera -----------------------------------------------------------------------------

    def set_camera(data: Any) -> dict[str, Any]:
        spec = data.get("source")
        if not isinstance(spec, str) or not spec.strip():
            raise CampoInputError("choose a camera: a number (0, 1 ...), phone or rehearsal", key="source")
        host.set_source(spec.strip())
        return {"ok": True, "camera": host.camera_status()}

    app.add_api_route("/api/setup/camera", guarded(set_camera), methods=["PUT"])

    @app.get("/api/setup/camera")
    def get_camera() -> dict[str, Any]:
        return host.camera_status()

    @app.get("/api/setup/camera.jpg")
    def camera_jpg(view: str = "plain", width: int = 960) -> Response:
        width = max(160, min(width, 1920))
        if view == "check":
            got = session.check_frame()
            if got is None:
                raise HTTPException(503, "no table check yet")
            frame, check = got
            image = pictures.check_picture(frame.image, width, check)
        else:
            _, frame = host.feed.latest()
            if frame is None:
                raise HTTPException(503, "no picture yet (no signal)")
            if view == "calibration":
                corners, outlines, size, rows = session.calibrator.overlay_data()
                same = size is not None and size == (frame.image.shape[1], frame.image.shape[0])
                image = pictures.calibration_picture(frame.image, width, corners if same else None,
                                                     outlines if same else [], rows if same else [])
            else:
                image = pictures.calibration_picture(frame.image, width, None, [], [])
        return Response(pictures.jpeg(image), media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    # -- calibration ----------------------------------------------------------------------------

    @app.get("/api/setup/calibration")
    def calibration() -> dict[str, Any]:
        session.look("calibrate")
        return session.calibrator.progress()

    def set_board(data: Any) -> dict[str, Any]:
        spec = BoardSpec.parse(str(data.get("squares", "7x5")), float(data.get("square_mm", 40)),
                               float(data.get("marker_mm", 30)), str(data.get("dictionary", "DICT_4X4_250")))
        session.set_board(spec)
        return {"ok": True, **session.calibrator.progress()}

    def restart(_: Any) -> dict[str, Any]:
        session.restart_calibration()
        return {"ok": True, **session.calibrator.progress()}

    def save_now(_: Any) -> dict[str, Any]:
        session.calibrator.save()
        return {"ok": True, **session.calibrator.progress()}

    app.add_api_route("/api/setup/calibration/board", guarded(set_board), methods=["PUT"])
    app.add_api_route("/api/setup/calibration/restart", guarded(restart), methods=["POST"])
    app.add_api_route("/api/setup/calibration/save", guarded(save_now), methods=["POST"])

    # -- the table check and play ---------------------------------------------------------------

    @app.get("/api/setup/check")
    def table_check() -> dict[str, Any]:
        session.look("check")
        return session.table_check() or {"pending": True}

    async def play(_: Any) -> dict[str, Any]:
        live = await host.play()
        return {"ok": True, "url": "/", "ruleset": live.ruleset, "bases": live.bases}

    app.add_api_route("/api/setup/play", guarded(play), methods=["POST"])

    # -- the phone's frames ---------------------------------------------------------------------

    @app.websocket("/ws/camera")
    async def ws_camera(websocket: WebSocket) -> None:
        if not (same_origin(websocket.headers.get("origin"), websocket.headers.get("host"))
                and host_header_allowed(websocket.headers.get("host"), host.settings.host)):
            await websocket.close(code=1008)
            return
        await websocket.accept()
        if not host.policy.allows_write(websocket.query_params.get(TOKEN_QUERY)):
            await websocket.send_json({"error": "this server needs its token: open the address it printed"})
            await websocket.close(code=1008)
            return
        await _camera_loop(websocket, host)


async def _camera_loop(websocket: WebSocket, host: CampoHost) -> None:
    loop = asyncio.get_running_loop()
    source = host.browser_camera
    if source is not None:
        source.senders += 1
    try:
        await websocket.send_json({"hello": True, "source": host.source_spec,
                                   "using_browser": source is not None})
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            data = message.get("bytes")
            if data is None:
                continue
            current = host.browser_camera
            if current is None:
                await websocket.send_json({"error": f"the server films with {host.source.name}: choose "
                                                    "'phone' as the camera in the setup"})
                continue
            try:
                got = await loop.run_in_executor(None, current.push, data)
            except CampoInputError as exc:
                await websocket.send_json({"error": str(exc)})
                continue
            await websocket.send_json(got.to_json())
    except (WebSocketDisconnect, RuntimeError):
        return
    finally:
        if source is not None:
            source.senders -= 1
