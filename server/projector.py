"""The projector over the table: what it shows, and its calibration run from the page.

`ProjectorService` holds projector.json's calibration (if any), the umpire's choice (the
selected base, the ruler, terrain edges: `ProjectorView`), the projector page's picture size
and what the projector must show now (`mode`: the overlay, black, or the calibration pattern).
Every change is published on the WebSocket topic ``projector`` (and sent to each page as it
connects), which the projector page (`/projector`) draws from; the tablet sets the choice with
`PUT /api/projector/view`.

Calibration (`POST /api/projector/calibrate`) runs in its own thread: the projector shows black
(the camera takes the table as it is, and where it is, from its anchors), then the pattern
(ChArUco, calibration/projector.py); each step waits for the projector page to say it is
showing it (`PUT /api/projector/shown`) and for a camera frame taken after that. The new fit
replaces the old one only when it is better on today's corners (`better_than`); a failure
keeps the previous calibration and says why.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from campo.calibration.pipeline import fit_intrinsics
from campo.calibration.poses import image_to_plane
from campo.calibration.projector import (
    CalibrationFailed, ProjectorCalibration, ProjectorPattern, better_than, fit_projector,
    load_projector, save_projector,
)
from campo.errors import CampoInputError
from campo.server.request_body import json_object, parse_model
from campo.server.hub import StateHub
from campo.server.projector_view import (
    ProjectorScreen, ProjectorShown, ProjectorView,
)

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
TOPIC = "projector"

Mode = Literal["overlay", "dark", "pattern"]

SHOWN_TIMEOUT_S = 5.0
"""How long a calibration step waits for the projector page to show black or the pattern."""
SETTLE_S = 0.25
"""After the page says it shows a picture: the projector's and camera's own delay."""
FRAME_TIMEOUT_S = 5.0
PATTERN_TRIES = 4


@dataclass
class CameraFeed:
    """What calibration reads from the live tracker: the latest frame (image, capture time) and
    where the table was in it, and the camera's intrinsics."""

    latest: Callable[[], tuple[np.ndarray, float, Any] | None]
    intrinsics: Any
    table_size: tuple[float, float]


@dataclass
class ProjectorService:
    """The projector's state; changes are published on the ``projector`` topic."""

    hub: StateHub
    footprints: dict[str, Any]
    path: Path | None = None
    calibration: ProjectorCalibration | None = None
    view: ProjectorView = field(default_factory=ProjectorView)
    screen: ProjectorScreen = field(default_factory=lambda: ProjectorScreen(width=1920, height=1080))
    mode: Mode = "overlay"
    job: dict[str, Any] = field(default_factory=lambda: {"state": "idle"})
    geometry: dict[str, Any] | None = None   # the selected base's arcs, bands and charges (mm)
    command_mm: float | None = None
    _step: int = 0                             # the picture asked for: each has its own number
    _shown: dict[int, float] = field(default_factory=dict)   # step -> when the page showed it
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _steps: Any = field(default_factory=lambda: itertools.count(1))

    @classmethod
    def open(cls, hub: StateHub, footprints: dict[str, Any], path: Path | None) -> ProjectorService:
        """With projector.json's calibration when the file exists (a bad file stops the start:
        its error names the file and key)."""
        calibration = load_projector(path) if path is not None and path.exists() else None
        return cls(hub, footprints, path, calibration)

    # -- what the pages see ---------------------------------------------------------------------

    def payload(self) -> dict[str, Any]:
        """The ``projector`` message: everything the projector page draws from."""
        c = self.calibration
        return {
            "mode": self.mode, "step": self._step, "view": self.view.model_dump(),
            "geometry": self.geometry, "command_radius_mm": self.command_mm,
            "calibration": None if c is None else {**c.to_json(), "file": None if self.path is None else self.path.name},
            "screen": [self.screen.width, self.screen.height],
            "pattern_url": f"/api/projector/pattern.png?width={self.screen.width}&height={self.screen.height}",
            "job": self.job, "sent_unix": round(time.time(), 4), **self.footprints,
        }

    def publish(self) -> None:
        """Send the latest payload to every page (from any thread)."""
        self.hub.publish_threadsafe(TOPIC, self.payload())

    def set_view(self, view: ProjectorView, geometry: dict[str, Any] | None, command_mm: float | None) -> None:
        self.view, self.geometry, self.command_mm = view, geometry, command_mm
        self.publish()

    # -- calibration --------------------------------------------------------------------------

    def show(self, mode: Mode) -> int:
        """Ask the projector page for a picture; returns the step number it acknowledges."""
        with self._lock:
            self.mode = mode
            self._step = next(self._steps)
            step = self._step
        self.publish()
        return step

    def shown(self, step: int) -> bool:
        """The projector page shows picture ``step`` (False: not the one asked for)."""
        with self._lock:
            if step != self._step:
                return False
            self._shown = {step: time.monotonic()}   # only the latest picture matters
            return True

    def wait_shown(self, step: int, timeout: float | None = None) -> float:
        """When the page showed ``step`` (monotonic); `CalibrationFailed` after ``timeout``
        (default `SHOWN_TIMEOUT_S`)."""
        end = time.monotonic() + (SHOWN_TIMEOUT_S if timeout is None else timeout)
        while time.monotonic() < end:
            with self._lock:
                at = self._shown.get(step)
            if at is not None:
                return at
            time.sleep(0.02)
        raise CalibrationFailed("no projector page showed the pattern: open /projector on the projector's "
                                "screen (campo serve --projector) and try again")

    def begin(self) -> bool:
        """Mark a calibration as running; False when one already is (one at a time)."""
        with self._lock:
            if self.job.get("state") == "running":
                return False
            self.job = {"state": "running", "progress": "showing black", "started_unix": round(time.time(), 3)}
            return True

    def calibrate(self, feed: CameraFeed) -> dict[str, Any]:
        """Run one calibration (blocking; the route runs it in a thread) and return its result.
        Call `begin` first."""
        self.publish()
        try:
            dark, location, intr = self._dark_frame(feed)
            self.job = {**self.job, "progress": "showing the pattern"}
            pattern = ProjectorPattern.for_screen(self.screen.width, self.screen.height)
            step = self.show("pattern")
            after = self.wait_shown(step) + SETTLE_S
            found = None
            for _ in range(PATTERN_TRIES):
                image, t, _ = _frame_after(feed, after)
                after = t + 1e-6
                ids, px = pattern.detect(image, dark)
                if found is None or len(ids) > len(found[0]):
                    found = (ids, px)
                if len(ids) >= 0.5 * len(pattern.corners_px):
                    break
            assert found is not None
            ids, px = found
            self.job = {**self.job, "progress": f"fitting {len(ids)} corners"}
            new = fit_projector(ids, px, pattern, location, intr, feed.table_size)
            table_mm = image_to_plane(px, location, intr, 0.0)
            keep, why = better_than(new, self.calibration, (table_mm, pattern.corners_px[ids]))
            if keep:
                if self.path is not None:   # saved first: a file that cannot be written keeps the old one
                    save_projector(new, self.path)
                self.calibration = new
            self.job = {"state": "done", "accepted": keep, "reason": why, "result": new.to_json(),
                        "summary": new.summary(), "saved": keep and self.path is not None}
        except CampoInputError as exc:   # CalibrationFailed included: the previous calibration stays
            self.job = {"state": "failed", "accepted": False, "reason": str(exc)}
        except Exception as exc:  # noqa: BLE001 - shown on the page; the server and old calibration stay
            log.exception("projector calibration failed")
            self.job = {"state": "failed", "accepted": False, "reason": f"unexpected error: {exc}"}
        finally:
            self.show("overlay")
        return self.job

    def _dark_frame(self, feed: CameraFeed) -> tuple[np.ndarray, Any, Any]:
        step = self.show("dark")
        after = self.wait_shown(step) + SETTLE_S
        image, _, location = _frame_after(feed, after)
        if location is None or not location.located:
            reason = "" if location is None else f" ({location.reason})"
            raise CalibrationFailed(f"the camera does not locate the table{reason}: it must see the anchors")
        h, w = image.shape[:2]
        return image, location, fit_intrinsics(feed.intrinsics, w, h)


def _frame_after(feed: CameraFeed, after: float,
                 timeout: float = FRAME_TIMEOUT_S) -> tuple[np.ndarray, float, Any]:
    """The first camera frame captured after ``after`` (monotonic): image, time, table location."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = feed.latest()
        if got is not None and got[1] > after:
            return got
        time.sleep(0.02)
    raise CalibrationFailed("no new camera frame (no signal?)")


# -- routes --------------------------------------------------------------------------------------


async def _model_or_refusal(request: Request, refusal: Callable[[Request], JSONResponse | None],
                            model: type[Any]) -> Any:
    """The request's body as ``model``, or the response refusing it (another site, no token: 403;
    not a JSON object: 400; a bad key or value: 422 naming it)."""
    refused = refusal(request)
    if refused is not None:
        return refused
    try:
        return parse_model(model, await json_object(request))
    except CampoInputError as exc:
        return JSONResponse({"ok": False, "error": str(exc)}, status_code=422)


def add_projector_routes(app: FastAPI, service: ProjectorService, feed: CameraFeed,
                         refusal: Callable[[Request], JSONResponse | None],
                         moment: Callable[[], Any]) -> None:
    """`/projector` (the page), `GET /api/projector`, `PUT /api/projector/view` (the tablet's
    choice), `PUT /api/projector/screen` and `PUT /api/projector/shown` (the projector page),
    `POST /api/projector/calibrate`, `GET /api/projector/pattern.png`."""

    @app.get("/projector", include_in_schema=False)
    def projector_page() -> FileResponse:
        return FileResponse(STATIC / "projector.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/projector")
    def projector_status() -> dict[str, Any]:
        """What the projector shows and its calibration (as the ``projector`` topic)."""
        return service.payload()

    @app.put("/api/projector/view")
    async def put_view(request: Request) -> JSONResponse:
        """The umpire's choice: body ``{"base": id | null, "ruler": [[x, y], ...], "terrain": bool}``."""
        view = await _model_or_refusal(request, refusal, ProjectorView)
        if isinstance(view, JSONResponse):
            return view
        geometry, command = None, None
        if view.base is not None:
            snapshot = moment()
            state = None if snapshot is None else snapshot.state
            if state is None or view.base not in state.ids:
                return JSONResponse({"ok": False, "error": f"no base {view.base!r} on the table now"}, status_code=404)
            try:
                geometry = await asyncio.to_thread(snapshot.geometry, view.base)
            except CampoInputError as exc:   # the engine cannot judge this moment: draw no arcs
                log.info("no geometry for %s: %s", view.base, exc)
            command = None if geometry is None else geometry.get("command_radius_mm")
        service.set_view(view, geometry, command)
        return JSONResponse({"ok": True, "view": view.model_dump()})

    @app.put("/api/projector/screen")
    async def put_screen(request: Request) -> JSONResponse:
        """The projector page's picture size: body ``{"width": px, "height": px}``."""
        screen = await _model_or_refusal(request, refusal, ProjectorScreen)
        if isinstance(screen, JSONResponse):
            return screen
        if screen != service.screen:
            service.screen = screen
            service.publish()
        return JSONResponse({"ok": True})

    @app.put("/api/projector/shown")
    async def put_shown(request: Request) -> JSONResponse:
        """The projector page shows picture ``step``: body ``{"step": n}``."""
        shown = await _model_or_refusal(request, refusal, ProjectorShown)
        if isinstance(shown, JSONResponse):
            return shown
        return JSONResponse({"ok": service.shown(shown.step)})

    @app.post("/api/projector/calibrate")
    async def post_calibrate(request: Request) -> JSONResponse:
        """Calibrate now (the projector page must be open); the answer is the result, also on
        the ``projector`` topic. 409 while one is running."""
        refused = refusal(request)
        if refused is not None:
            return refused
        if not service.begin():
            return JSONResponse({"ok": False, "error": "a calibration is already running"}, status_code=409)
        job = await asyncio.to_thread(service.calibrate, feed)
        return JSONResponse({"ok": job["state"] == "done", **job})

    @app.get("/api/projector/pattern.png")
    def pattern_png(width: int = 1920, height: int = 1080) -> Response:
        """The calibration pattern for a projector of ``width`` x ``height`` pixels."""
        try:
            pattern = ProjectorPattern.for_screen(width, height)
        except CampoInputError as exc:
            raise HTTPException(422, str(exc)) from None
        ok, png = cv2.imencode(".png", pattern.image())
        if not ok:  # pragma: no cover - a grey uint8 image always encodes
            raise HTTPException(500, "could not draw the pattern")
        return Response(png.tobytes(), media_type="image/png", headers={"Cache-Control": "no-store"})
