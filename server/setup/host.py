"""`CampoHost`: one ASGI app for a whole evening, from an empty folder to the live game.

It owns the camera (one `Capture` thread whose frames go to a `FrameFeed`), the setup
(`SetupSession` and its routes, `routes.add_setup_routes`) and, once the folder holds a table and
a roster, the live game: the very app `server.app.create_app` builds, fed by the same camera
through a `FeedSource`. Requests for the setup (`/setup`, `/api/setup/...`, the phone's `/camera`)
go to the setup; everything else to the live game, or to the setup while there is none. "Play"
builds the live game from the files on disk and swaps it in without dropping the camera or the
listening socket; playing again after an edit of the roster swaps in a new one.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from campo.errors import CampoInputError
from campo.server.capture import Capture
from campo.server.rig import ServerSettings
from campo.server.security import AccessPolicy
from campo.server.setup.browser_camera import BrowserCameraSource
from campo.server.setup.feed import FeedSource, FrameFeed
from campo.server.setup.files import GameFiles
from campo.server.setup.rehearsal import RehearsalSource
from campo.server.setup.session import SetupSession
from campo.server.sources import FrameSource, open_source

log = logging.getLogger(__name__)

SETUP_PREFIXES = ("/setup", "/api/setup/", "/camera", "/ws/camera", "/static/setup", "/static/camera")
BROWSER_SOURCES = ("phone", "browser")
"""`--source phone`: frames from a browser's camera page (a phone on the club's Wi-Fi)."""
REHEARSAL_SOURCE = "rehearsal"


@dataclass
class LiveGame:
    """A running live game: its app, its services and what closes them."""

    app: FastAPI
    services: Any
    stack: contextlib.AsyncExitStack
    ruleset: str
    bases: int


class CampoHost:
    """The setup and the live game behind one address (see the module docstring)."""

    def __init__(self, settings: ServerSettings, files: GameFiles, *, source: str | None,
                 record: Path | None = None) -> None:
        from campo.server.setup.routes import create_setup_app

        self.policy = AccessPolicy.for_host(settings.host, settings.token)
        # one token for the setup and every live game it starts
        self.settings = replace(settings, token=self.policy.token)
        self.files = files
        self.record = record
        self.feed = FrameFeed()
        self.session = SetupSession(files, self.feed)
        self.source_spec = source or BROWSER_SOURCES[0]
        self.source = self.make_source(self.source_spec)
        self.capture = Capture(self.source, backoff_s=(0.25, 2.0))
        self.live: LiveGame | None = None
        self.play_error = ""
        self._switch = threading.Lock()
        self._stop = threading.Event()
        self._pump = threading.Thread(target=self._pump_frames, name="campo-feed", daemon=True)
        self.setup_app = create_setup_app(self)

    # -- the camera -----------------------------------------------------------------------------

    def make_source(self, spec: str) -> FrameSource:
        """The source a `--source` value or the page's camera choice names."""
        if spec in BROWSER_SOURCES:
            return BrowserCameraSource()
        if spec == REHEARSAL_SOURCE:
            return RehearsalSource(self.session.rehearsal_scene, fps=self.settings.fps or 8.0)
        return open_source(spec, fps=self.settings.fps)

    @property
    def browser_camera(self) -> BrowserCameraSource | None:
        return self.source if isinstance(self.source, BrowserCameraSource) else None

    def set_source(self, spec: str) -> None:
        """Film with another camera from now on (the live game, if any, keeps running on it)."""
        source = self.make_source(spec)   # a bad path is an error before anything stops
        with self._switch:
            old = self.capture
            self.source_spec, self.source = spec, source
            self.capture = Capture(source, backoff_s=(0.25, 2.0))
            self.feed.name = source.name
            self.capture.start()
        old.source.close()   # a waiting read returns at once
        old.stop()
        if self.live is not None:
            self.live.services.capture.source.name = source.name

    def _pump_frames(self) -> None:
        while not self._stop.is_set():
            frame = self.capture.slot.take(timeout=0.1)
            if frame is not None:
                self.feed.publish(frame)

    def camera_status(self) -> dict[str, Any]:
        status = self.capture.status().to_json()
        browser = self.browser_camera
        status["spec"] = self.source_spec
        if browser is not None:
            status["senders"] = browser.senders
            status["received_fps"] = round(browser.fps(), 1)
        return status

    # -- the live game --------------------------------------------------------------------------

    async def play(self) -> LiveGame:
        """(Re)start the live game from the files on disk; the old one, if any, stops after."""
        from campo.server.app import build_services, create_app
        from campo.server.game_state import GameSetup
        from campo.server.rig import Rig

        table, roster = self.session.table(), self.session.roster()
        if table is None or roster is None:
            raise CampoInputError("save the table and the roster first", key="play")
        intrinsics = self.session.intrinsics()
        settings = replace(self.settings, table=self.files.table, roster=self.files.roster,
                           camera=self.files.camera if intrinsics is not None else None,
                           setup_file=self.files.terrain)
        setup = GameSetup.load(roster.ruleset, self.files.terrain)
        rig = Rig(table, roster, intrinsics, FeedSource(self.feed, self.source.name), setup)
        services = build_services(settings, rig)
        services.setup_url = "/setup"
        app = create_app(settings, services=services)
        if self.record is not None:
            import importlib

            importlib.import_module("campo.server.recording").attach(app, services, self.record)
        stack = contextlib.AsyncExitStack()
        await stack.enter_async_context(app.router.lifespan_context(app))
        old, self.live = self.live, LiveGame(app, services, stack, roster.ruleset, len(roster.bases))
        self.play_error = ""
        if old is not None:
            await old.stack.aclose()
        log.info("playing %s with %d bases", roster.ruleset, len(roster.bases))
        return self.live

    # -- ASGI -----------------------------------------------------------------------------------

    async def startup(self) -> None:
        self.feed.name = self.source.name
        self.capture.start()
        self._pump.start()
        self.session.start()
        if self.files.table.exists() and self.files.roster.exists():
            try:
                await self.play()
            except CampoInputError as exc:   # the setup shows what is wrong with the files
                self.play_error = str(exc)
                log.warning("not playing yet: %s", exc)

    async def shutdown(self) -> None:
        if self.live is not None:
            await self.live.stack.aclose()
            self.live = None
        self.session.stop()
        self._stop.set()
        self.capture.source.close()
        self.capture.stop()
        self._pump.join(5)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        path = scope.get("path", "")
        live = self.live
        if live is None or path.startswith(SETUP_PREFIXES) or path == "/favicon.ico" and live is None:
            await self.setup_app(scope, receive, send)
        else:
            await live.app(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.startup()
                except Exception as exc:  # noqa: BLE001 - reported to the server, which stops
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return
