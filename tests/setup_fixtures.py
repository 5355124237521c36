"""A real `CampoHost` (setup + live game) under uvicorn on a loopback port, for the setup tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from campo.server.rig import ServerSettings
from campo.server.runner import AppThread, free_port
from campo.server.setup.files import GameFiles
from campo.server.setup.host import CampoHost
from campo.server.setup.serve import host_config


class HostThread(AppThread):
    """`CampoHost` on a free loopback port in a background thread."""

    join_s = 15.0

    def __init__(self, folder: Path, source: str = "rehearsal", *, token: str | None = None, fps: float = 8.0,
                 certificate: Any = None) -> None:
        settings = ServerSettings(source=source, host="127.0.0.1", port=free_port(), token=token, fps=fps,
                                  status_interval_s=0.25)
        campo_host = CampoHost(settings, GameFiles.in_folder(folder), source=source)
        super().__init__(campo_host, settings.host, settings.port,
                         config=host_config(campo_host, campo_host.settings, certificate))
        self.campo = campo_host   # the tests read its files, feed and camera status
        self.scheme = "https" if certificate is not None else "http"

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"
