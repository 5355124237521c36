"""Running `CampoHost` under uvicorn: `campo serve` without a demo (setup, live game, or both)."""

from __future__ import annotations

import threading
from pathlib import Path

import uvicorn

from campo.server.rig import ServerSettings
from campo.server.runner import _exit_if_warming, _prepare_engine, listening_socket, uvicorn_config
from campo.server.security import WILDCARD_BINDS, _local_addresses, access_urls, is_loopback
from campo.server.setup.files import GameFiles
from campo.server.setup.host import CampoHost

WS_MAX_BYTES = 8 * 1024 * 1024
"""The phone's JPEG frames (a 4K frame is 1-2 MB); the live page's own messages stay limited by
the app (256 KiB)."""


def host_config(host_app: CampoHost, settings: ServerSettings, certificate: object | None) -> uvicorn.Config:
    config = uvicorn_config(host_app, settings.host, settings.port, settings.proxy)
    config.ws_max_size = WS_MAX_BYTES
    if certificate is not None:
        config.ssl_certfile = str(certificate.cert)   # type: ignore[attr-defined]
        config.ssl_keyfile = str(certificate.key)     # type: ignore[attr-defined]
    return config


def certificate_for(settings: ServerSettings, directory: Path | None = None) -> object:
    from campo.server.setup.https import ensure_certificate

    addresses = [] if is_loopback(settings.host) else (
        _local_addresses() if settings.host in WILDCARD_BINDS else [settings.host])
    return ensure_certificate(addresses, directory)


def serve_host(settings: ServerSettings, files: GameFiles, *, source: str | None, record: Path | None = None,
               https: bool = False) -> int:
    """Build the host (errors in the files before anything starts), bind the port (a bad or busy
    address is one line, before any thread), print where to go, serve until Ctrl-C or SIGTERM."""
    app = CampoHost(settings, files, source=source, record=record)
    sock = listening_socket(settings.host, settings.port)
    certificate = certificate_for(app.settings) if https else None
    scheme = "https" if https else "http"
    urls = [u.replace("http://", f"{scheme}://", 1) for u in access_urls(settings.host, settings.port, app.policy)]
    for url in urls:
        print(f"campo serve: open {url}", flush=True)
    if app.policy.token is not None:
        print("campo serve: the page is read-only without the token in its URL", flush=True)
    if not (files.table.exists() and files.roster.exists()):
        print(f"campo serve: no game in {files.folder} yet: the page opens the setup", flush=True)
    if certificate is not None:
        c = certificate
        print(f"campo serve: HTTPS with a self-signed certificate {'made now' if c.created else 'made earlier'} "  # type: ignore[attr-defined]
              f"({c.cert}); browsers warn that the connection is not private: check that the certificate's "  # type: ignore[attr-defined]
              f"SHA-256 fingerprint is {c.fingerprint}, then accept it (Advanced, Proceed)", flush=True)  # type: ignore[attr-defined]
    if not is_loopback(settings.host):
        camera_url = urls[0].split("/?")[0] + "/camera" + (f"?token={app.policy.token}" if app.policy.token else "")
        print(f"campo serve: a phone as the camera: open {camera_url}" +
              ("" if https else " (phones open cameras only over --https)"), flush=True)
    print(f"campo serve: source {app.source.name}; Ctrl-C to stop", flush=True)
    warmup = threading.Thread(target=_prepare_engine, name="engine-warmup", daemon=True)
    warmup.start()
    server = uvicorn.Server(host_config(app, app.settings, certificate))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    print("campo serve: stopped", flush=True)
    _exit_if_warming(warmup)
    return 0
