"""Stopping the server while a tablet is closing its WebSocket.

A browser that leaves the page sends a close frame; uvicorn answers it and closes the connection,
but over TLS the connection stays in the server's list until the peer finishes the TLS shutdown.
A Ctrl-C in that window made uvicorn 0.54 send a second close frame and raise `InvalidState` in
its shutdown (seen once in CI on the HTTPS test). Here the window is held open on purpose: the
client sends its close frame and answers the TLS shutdown only after the server began to stop.
"""

from __future__ import annotations

import base64
import os
import socket
import ssl
import threading
import time
from pathlib import Path
from typing import Any

from fastapi import FastAPI, WebSocket, WebSocketDisconnect

from campo.server.runner import AppThread, free_port, uvicorn_config


def _echo_app(closed: threading.Event) -> FastAPI:
    app = FastAPI()

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                await websocket.receive_text()
        except WebSocketDisconnect:
            closed.set()

    return app


def _masked_close_frame(code: int = 1001) -> bytes:
    """A client's close frame (clients must mask: RFC 6455 §5.3)."""
    payload = code.to_bytes(2, "big")
    mask = os.urandom(4)
    return bytes([0x88, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _open_websocket(port: int) -> ssl.SSLSocket:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 101"), answer[:80]
    return sock


def test_stopping_while_a_client_closes_over_tls_raises_nothing(tmp_path: Path, monkeypatch: Any) -> None:
    from campo.server.setup.https import ensure_certificate

    failures: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: failures.append(args.exc_value))
    certificate = ensure_certificate([], tmp_path / "https")
    closed = threading.Event()
    port = free_port()
    config = uvicorn_config(_echo_app(closed), "127.0.0.1", port)
    config.ssl_certfile, config.ssl_keyfile = str(certificate.cert), str(certificate.key)
    app_thread = AppThread(None, "127.0.0.1", port, config=config)
    with app_thread:
        client = _open_websocket(port)
        client.sendall(_masked_close_frame())
        assert closed.wait(10), "the app never heard the client's close"
        opcode, length = client.recv(2)
        assert opcode == 0x88, "the server did not answer with its close frame"
        client.recv(length)
        time.sleep(0.2)   # the server has answered and is waiting for the client's TLS shutdown
        assert app_thread.server.server_state.connections, "the window this test needs has closed"
        app_thread.server.should_exit = True
        time.sleep(0.5)   # uvicorn's shutdown has asked each connection to close
        client.unwrap()   # the slow client's TLS goodbye, so the server's socket closes cleanly
        client.close()
    assert not app_thread.thread.is_alive()
    assert failures == []
