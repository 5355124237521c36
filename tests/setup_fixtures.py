"""A real `CampoHost` (setup + live game) under uvicorn on a loopback port, for the setup tests."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from campo.server.rig import ServerSettings
from campo.server.runner import free_port
from campo.server.setup.files import GameFiles
from campo.server.setup.host import CampoHost
from campo.server.setup.serve import host_config


class HostThread:
    """`CampoHost` on a free loopback port in a background thread."""

    def __init__(self, folder: Path, source: str = "rehearsal", *, token: str | None = None, fps: float = 8.0,
                 certificate: Any = None) -> None:
        settings = ServerSettings(source=source, host="127.0.0.1", port=free_port(), token=token, fps=fps,
                                  status_interval_s=0.25)
        self.host = CampoHost(settings, GameFiles.in_folder(folder), source=source)
        self.server = uvicorn.Server(host_config(self.host, self.host.settings, certificate))
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.server.run, name="campo-host", daemon=True)
        self.scheme = "https" if certificate is not None else "http"

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.host.settings.port}"

    def __enter__(self) -> HostThread:
        self.thread.start()
        end = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > end:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(15)
