"""20 WebSocket clients on a real uvicorn server (loopback), one of them deliberately slow.

The slow client never reads while the game changes ten times a second: the server must keep
serving the others, keep only the latest state for the slow one (memory bounded), and give it
the newest state as soon as it reads again. Bounded in time (a few seconds) and loopback only.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from campo.server.hub import COALESCING_TOPICS, QUEUE_LIMIT
from campo.server.rig import ServerSettings
from campo.server.runner import ServerThread, free_port
from campo.server.security import RateLimit
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, wait_for

pytestmark = [pytest.mark.slow]

CLIENTS = 20
RUN_S = 4.0
EVENTS = 500


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 1e6


def _moving_frames(folder: Path) -> None:
    """Two frames in which Aosta stands 40 mm apart: every frame is a real change of state."""
    moved = [(b, x, y + (40.0 if b == "pie-aosta" else 0.0), h) for b, x, y, h in LAYOUT]
    render_frames(folder, [LAYOUT, moved])


class Reader(threading.Thread):
    """A well-behaved client: reads everything, counts states."""

    def __init__(self, ws: ClientConnection) -> None:
        super().__init__(daemon=True)
        self.ws = ws
        self.states = 0
        self.last_seq = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for raw in self.ws:
                msg = json.loads(raw)
                self.last_seq = max(self.last_seq, msg["seq"])
                if msg["topic"] == "state":
                    self.states += 1
        except Exception as exc:  # noqa: BLE001 - recorded and asserted on
            if not isinstance(exc, OSError) and "ConnectionClosed" not in type(exc).__name__:
                self.error = exc


def _slow_connection(url: str) -> contextlib.AbstractContextManager[ClientConnection]:
    """A client with a tiny receive buffer that will not read: the server's sends back up fast."""
    host, port = url.removeprefix("ws://").split("/")[0].split(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    return connect(url, sock=sock, max_size=2**22, max_queue=1, close_timeout=0.5)


def test_twenty_clients_one_slow_memory_stays_bounded(tmp_path: Path) -> None:
    frames = tmp_path / "frames"
    _moving_frames(frames)
    settings = ServerSettings(source=str(frames), table=TABLE, roster=ROSTER, setup_file=tmp_path / "t.json",
                              port=free_port(), fps=10.0, status_interval_s=0.05)
    with ServerThread(settings) as srv, contextlib.ExitStack() as stack:
        hub = srv.services.hub
        ws_url = f"ws://127.0.0.1:{settings.port}/ws"
        assert wait_for(lambda: srv.services.tracker.analyses >= 3, timeout=20)
        slow = stack.enter_context(_slow_connection(ws_url))
        readers = [Reader(stack.enter_context(connect(ws_url, max_size=2**22))) for _ in range(CLIENTS - 1)]
        for r in readers:
            r.start()
        assert wait_for(lambda: hub.client_count == CLIENTS, timeout=10)
        # a client that vanishes without a close frame is dropped alone
        rude = socket.create_connection(("127.0.0.1", settings.port))
        rude.sendall(f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{settings.port}\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        time.sleep(0.3)
        rude.close()

        rss0 = _rss_mb()
        published0 = srv.services.tracker.analyses
        max_pending = 0
        end = time.monotonic() + RUN_S
        # this test floods on purpose (the hub's memory under load): lift the per-connection
        # rate limit that would otherwise refuse most of the umpire's notes
        srv.services.ws_messages = RateLimit(rate=1e6, burst=1e6)
        umpire = stack.enter_context(connect(ws_url))
        umpire_reader = Reader(umpire)  # reads its replies, so it is not a second slow client
        umpire_reader.start()
        note = json.dumps({"type": "event", "kind": "note", "text": "n" * 2000})
        for i in range(EVENTS):  # about 1 MB of umpire notes to every client, on top of the states
            umpire.send(note)
            if i % 50 == 0:
                max_pending = max([max_pending, *(c.pending() for c in hub.clients())])
        while time.monotonic() < end:
            max_pending = max([max_pending, *(c.pending() for c in hub.clients())])
            time.sleep(0.02)
        rss1 = _rss_mb()
        published = srv.services.tracker.analyses - published0
        slow_client = min(hub.clients(), key=lambda c: c.id)  # connected first

        assert published >= 10, "the game kept changing"
        assert max_pending <= len(COALESCING_TOPICS) + QUEUE_LIMIT
        assert rss1 - rss0 < 40, f"memory grew {rss1 - rss0:.1f} MB"
        for r in readers:
            assert r.error is None
            assert r.states >= published * 0.6, (r.states, published)
        assert slow_client.skipped > 0, "the slow client skipped states instead of queueing them"
        assert wait_for(lambda: hub.client_count == CLIENTS + 1, timeout=5)  # the rude one is gone, no one else

        # the slow client reads again: it soon holds the newest state
        latest_seq = hub.latest("state")["seq"]  # type: ignore[index]
        got: dict[str, Any] = {}
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and got.get("seq", 0) < latest_seq:
            msg = json.loads(slow.recv(timeout=5))
            if msg["topic"] == "state":
                got = msg
        assert got["seq"] >= latest_seq
        slow.close()
        umpire.close()
        umpire_reader.join(5)
        for r in readers:
            r.ws.close()
            r.join(5)
        assert wait_for(lambda: hub.client_count == 0, timeout=5)


def test_huge_and_garbage_messages_on_a_real_server_harm_only_their_sender(tmp_path: Path) -> None:
    render_frames(tmp_path / "frames", [LAYOUT])
    settings = ServerSettings(source=str(tmp_path / "frames"), table=TABLE, roster=ROSTER,
                              setup_file=tmp_path / "t.json", port=free_port(), fps=5.0)
    with ServerThread(settings) as srv, contextlib.ExitStack() as stack:
        url = f"ws://127.0.0.1:{settings.port}/ws"
        bystander = stack.enter_context(connect(url))
        with connect(url, max_size=2**22, close_timeout=1) as attacker:
            attacker.send("x" * (2 * 1024 * 1024))  # over the transport limit: this connection closes
            with pytest.raises(Exception) as closed:
                for _ in range(100):
                    attacker.recv(timeout=5)
            assert "ConnectionClosed" in type(closed.value).__name__
        with connect(url) as rude:
            rude.send(b"\x00\x01\x02 binary garbage")
            rude.send('{"type": "terrain", "terrain": [{"id": "w", "kind": "wood"}]}')
            replies = []
            while len(replies) < 2:
                msg = json.loads(rude.recv(timeout=5))
                if msg["topic"] == "reply":
                    replies.append(msg["payload"])
            assert [r["ok"] for r in replies] == [False, False]
        bystander.send('{"type": "ping"}')
        while (msg := json.loads(bystander.recv(timeout=5)))["topic"] != "reply":
            pass
        assert msg["payload"]["ok"] is True
        assert srv.services.setup.snapshot()[1] == []  # nothing was changed
