"""Running the app under uvicorn: `serve()` for the CLI, `ServerThread` for tests and benchmarks."""

from __future__ import annotations

import errno
import importlib
import os
import socket
import sys
import threading
import time
from pathlib import Path

import uvicorn

from campo.errors import CampoInputError
from campo.server.app import build_services, create_app
from campo.server.rig import ServerSettings
from campo.server.security import access_urls
from campo.server.websocket_protocol import ClosingTolerantWebSockets

WS_MAX_BYTES = 1024 * 1024
"""Frames above this close that one WebSocket (uvicorn); the app refuses anything above 256 KiB."""


def uvicorn_config(app: object, host: str, port: int, proxy: str | None = None) -> uvicorn.Config:
    """The server's settings. ``proxy``: the address of a reverse proxy whose X-Forwarded-For is
    believed; without one the client address is the TCP peer's, whatever the headers say (so a
    rotating header cannot dodge the per-address rate limits)."""
    return uvicorn.Config(app, host=host, port=port, log_level="warning", ws=ClosingTolerantWebSockets,
                          ws_max_size=WS_MAX_BYTES,
                          ws_ping_interval=20, ws_ping_timeout=20, timeout_graceful_shutdown=2,
                          lifespan="on", proxy_headers=proxy is not None,
                          forwarded_allow_ips=proxy or "")


def listening_socket(host: str, port: int, command: str = "serve") -> socket.socket:
    """`bind_socket`, with a bad or unavailable address as one clear `CampoInputError`."""
    try:
        return bind_socket(host, port)
    except OSError as exc:   # socket.gaierror included: "999.1.1.1" is no address at all
        reason = exc.strerror or str(exc)
        key = "--port" if exc.errno in (errno.EADDRINUSE, errno.EACCES) else "--host"
        raise CampoInputError(f"cannot listen on {host}:{port}: {reason}", key=key) from None


def serve(settings: ServerSettings, *, record: Path | None = None) -> int:
    """Load everything and bind the port (errors before anything starts), print the URL, serve
    until Ctrl-C or SIGTERM."""
    services = build_services(settings)
    app = create_app(settings, services=services)
    sock = listening_socket(settings.host, settings.port)  # before any thread: one line, exit 2
    try:
        if record is not None:
            recording = importlib.import_module("campo.server.recording")
            recording.attach(app, services, record)
    except BaseException:
        sock.close()
        raise
    for url in access_urls(settings.host, settings.port, services.policy):
        print(f"campo serve: open {url}", flush=True)
    if services.policy.token is not None:
        print("campo serve: the page is read-only without the token in its URL", flush=True)
    print(f"campo serve: source {services.capture.source.name}; Ctrl-C to stop", flush=True)
    warmup = threading.Thread(target=_prepare_engine, name="engine-warmup", daemon=True)
    warmup.start()
    server = uvicorn.Server(uvicorn_config(app, settings.host, settings.port, settings.proxy))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its clean shutdown: that is the normal stop
        pass
    print("campo serve: stopped", flush=True)
    _exit_if_warming(warmup)
    return 0


def _exit_if_warming(warmup: threading.Thread) -> None:
    """Stopped within a second of starting, while the engine's warm-up still runs: end the
    process now rather than finalise Python under a thread busy in GEOS (everything of ours is
    closed by now)."""
    if warmup.is_alive():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _prepare_engine() -> None:
    """Analyse each rulebook's warm-up scenario while the page loads (`engine.warmup`), so the
    first live frame does not pay the engine's imports and first calls (about a second)."""
    from campo.engine.warmup import prepare

    try:
        prepare()
    except Exception as exc:   # the live analysis reports its own errors; this is only a warm-up
        print(f"campo serve: rules engine warm-up failed: {exc}", file=sys.stderr, flush=True)


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket bound to host:port (IPv6 when the host has a colon)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class AppThread:
    """Any ASGI app under a real uvicorn server on a port, in a background thread (tests, benchmarks)."""

    join_s = 10.0   # how long `__exit__` waits for the server to stop

    def __init__(self, app: object, host: str, port: int, proxy: str | None = None, *,
                 config: uvicorn.Config | None = None) -> None:
        """``config``: a uvicorn config of the caller's own (TLS, a host's), else the live server's."""
        self.host, self.port = host, port
        self.app = app
        self.server = uvicorn.Server(config or uvicorn_config(app, host, port, proxy))
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.server.run, name="campo-uvicorn", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __enter__(self) -> AppThread:
        self.thread.start()
        end = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > end:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(self.join_s)


class ServerThread(AppThread):
    """The live server (`create_app`) under a real uvicorn server on a loopback port."""

    def __init__(self, settings: ServerSettings, *, services: object | None = None) -> None:
        self.settings = settings
        self.services = services or build_services(settings)
        super().__init__(create_app(settings, services=self.services),  # type: ignore[arg-type]
                         settings.host, settings.port, settings.proxy)

    def __enter__(self) -> ServerThread:
        super().__enter__()
        return self
