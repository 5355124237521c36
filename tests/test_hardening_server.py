"""Issue 16, the servers: one number never stops the game, a foreign page reads nothing, and no
client (or address, or token) can take the server's time or memory.

Real uvicorn servers on loopback ports (the live one watching real rendered frames, the replay
one reading a real recording), driven over real sockets. Other clients are other loopback
addresses (127.0.0.2, 127.0.0.3: Linux routes all of 127/8 to the loopback interface).
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from campo.server.recording import Recorder
from campo.server.recording.replay_app import create_replay_app
from campo.server.recording.simulate import demo_scenario, demo_script, play
from campo.server.rig import ServerSettings
from campo.server.runner import AppThread, ServerThread, free_port
from tests.server_fixtures import ROSTER, TABLE, state_bases, wait_for

ROAD_INF = '{"terrain": [{"id": "r", "kind": "road", "line_mm": [[0, 0], [Infinity, 10]]}]}'
DEEP = "[" * 100_000 + "]" * 100_000


def live_settings(folder: Path, tmp: Path, **kw: Any) -> ServerSettings:
    return ServerSettings(source=str(folder), table=TABLE, roster=ROSTER, setup_file=tmp / "terrain.json",
                          fps=10.0, port=free_port(), status_interval_s=0.2, **kw)


@pytest.fixture(scope="module")
def live(still_frames: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with ServerThread(live_settings(still_frames, tmp_path_factory.mktemp("live"))) as srv:
        assert wait_for(lambda: len(state_bases(httpx.get(srv.url + "/api/state"))) == 4, timeout=30)
        yield srv


@pytest.fixture(autouse=True)
def _full_buckets(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test starts with every client's allowance full (they share the module's server)."""
    yield
    if "live" in request.fixturenames:
        srv = request.getfixturevalue("live")
        for limit in (srv.services.limits.reads, srv.services.limits.writes, srv.services.limits.pages,
                      srv.services.ws_messages):
            limit.reset()


def client(address: str = "127.0.0.1", **kw: Any) -> httpx.Client:
    """An HTTP client whose connections come from ``address``."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30, **kw)


def ws_url(srv: AppThread) -> str:
    return srv.url.replace("http://", "ws://") + "/ws"


def reply_to(ws: Any, text: str) -> dict[str, Any]:
    ws.send(text)
    while True:
        msg = json.loads(ws.recv(timeout=10))
        if msg["topic"] == "reply":
            return msg["payload"]  # type: ignore[no-any-return]


def hammer(send: Any, n: int) -> tuple[list[int], float]:
    """``n`` requests as fast as one client can: their status codes and the seconds it took."""
    started = time.monotonic()
    codes = [send(i) for i in range(n)]
    return codes, time.monotonic() - started


def within(codes: list[int], limit: Any, seconds: float, cost: float = 1.0, ok: int = 200) -> bool:
    """Some were refused, and no more were served than the allowance over that time."""
    return 429 in codes and codes.count(ok) * cost <= limit.burst + limit.rate * seconds + cost


def raw_status(port: int, request: str) -> str:
    """The status line the server answers to a hand-written HTTP request."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request.encode())
        return sock.recv(4096).split(b"\r\n", 1)[0].decode()


# -- one number never stops the game -----------------------------------------------------------


def test_non_finite_and_absurd_numbers_are_refused_before_anything_is_applied_or_saved(
        live: ServerThread) -> None:
    setup_file = live.settings.setup_file
    assert setup_file is not None
    before = httpx.get(live.url + "/api/setup").json()
    headers = {"content-type": "application/json"}
    cases = [
        ("/api/terrain", ROAD_INF, 400, "terrain[0].line_mm[1][0]: must be a finite number"),
        ("/api/terrain", ROAD_INF.replace("Infinity", "1e400"), 400, "must be a finite number"),
        ("/api/terrain", ROAD_INF.replace("Infinity", "1e300"), 422, "line_mm.1.0"),
        ("/api/settings", '{"settings": {"a25_cavalry_charge_distance_in": Infinity}}', 400,
         "settings.a25_cavalry_charge_distance_in: must be a finite number"),
        ("/api/settings", '{"settings": {"a25_cavalry_charge_distance_in": 1e300}}', 422,
         "a25_cavalry_charge_distance_in: 1e+300 is beyond"),
        ("/api/settings", '{"settings": {}, "structured": {"x": [NaN]}}', 400, "structured.x[0]: must be a finite"),
    ]
    for path, body, status, words in cases:
        res = httpx.put(live.url + path, content=body, headers=headers)
        assert res.status_code == status and words in res.json()["error"], (body, res.text)
    with connect(ws_url(live)) as ws:
        reply = reply_to(ws, '{"type": "settings", "settings": {"a25_cavalry_charge_distance_in": -Infinity}}')
        assert not reply["ok"] and "a25_cavalry_charge_distance_in: must be a finite number" in reply["error"]
        reply = reply_to(ws, '{"type": "terrain", "terrain": [{"id": "r", "kind": "road", '
                             '"line_mm": [[0, 0], [1e999, 10]]}]}')
        assert not reply["ok"] and "must be a finite number" in reply["error"]
        assert reply_to(ws, '{"type": "ping"}')["ok"]
    assert httpx.get(live.url + "/api/setup").json() == before     # nothing applied
    assert not setup_file.exists() or "Infinity" not in setup_file.read_text()   # nothing saved

    # the game goes on: a sane edit is applied, saved and published, the state still answers
    road = {"terrain": [{"id": "r", "kind": "road", "line_mm": [[0, 0], [900, 10]]}]}
    assert httpx.put(live.url + "/api/terrain", json=road).status_code == 200
    assert wait_for(lambda: httpx.get(live.url + "/api/state").json()["terrain"] == road["terrain"])
    assert json.loads(setup_file.read_text())["terrain"] == road["terrain"]
    assert httpx.put(live.url + "/api/terrain", json={"terrain": []}).status_code == 200


# -- Host -----------------------------------------------------------------------------------------


def recording(tmp: Path) -> Path:
    path = tmp / "game.db"
    with Recorder(path) as rec:
        for t, state in play(demo_scenario(), demo_script(), until=12.0):
            rec.record_state(state, t=t)
    return path


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppThread]:
    app = create_replay_app(recording(tmp_path_factory.mktemp("replay")))
    with AppThread(app, "127.0.0.1", free_port()) as srv:
        yield srv


ROUTES = ["/", "/static/app.js", "/api/state", "/api/setup", "/api/status", "/api/rules", "/api/camera.jpg",
          "/api/geometry/pie-aosta"]


@pytest.mark.parametrize("server", ["live", "replay"])
def test_every_route_of_both_servers_refuses_a_foreign_host(server: str, request: pytest.FixtureRequest) -> None:
    """DNS rebinding: a page of evil.example, its name re-pointed at 127.0.0.1, sends Host:
    evil.example. Reads were answered (state, setup, camera picture); now nothing is."""
    srv: AppThread = request.getfixturevalue(server)
    routes = ROUTES + (["/api/replay/timeline"] if server == "replay" else [])
    with client() as c:
        for path in routes:
            for host in ("evil.example", f"evil.example:{srv.port}", "127.0.0.1.evil.example", "[::2]x", ""):
                res = c.get(srv.url + path, headers={"host": host})
                assert res.status_code in (400, 403), (path, host, res.status_code)
            ok = c.get(srv.url + path, headers={"host": f"localhost:{srv.port}"})
            assert ok.status_code not in (400, 403), (path, ok.status_code)
    upgrade = (f"GET /ws HTTP/1.1\r\nHost: evil.example:{srv.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    assert " 403 " in raw_status(srv.port, upgrade)
    assert " 101 " in raw_status(srv.port, upgrade.replace("evil.example", "127.0.0.1"))


def test_allow_host_adds_a_name(still_frames: Path, tmp_path: Path) -> None:
    settings = live_settings(still_frames, tmp_path, allow_hosts=("campo.club.lan",))
    with ServerThread(settings) as srv, client() as c:
        assert c.get(srv.url + "/api/status", headers={"host": "campo.club.lan:8000"}).status_code == 200
        assert c.get(srv.url + "/api/status", headers={"host": "evil.example"}).status_code == 403


# -- bodies ---------------------------------------------------------------------------------------


def test_an_endless_body_is_refused_after_its_first_kilobytes(replay: AppThread) -> None:
    """500 MB posted to the replay cursor raised the server to 1.2 GB; now the body is counted
    as it arrives and refused past the limit, however it is sent."""
    sent = 0

    def endless() -> Iterator[bytes]:
        nonlocal sent
        yield b'{"t": 1, "pad": "'
        for _ in range(300 * 1024):   # 300 MB, chunked: no Content-Length to trust
            sent += 1024
            yield b"x" * 1024

    with client() as c:
        try:
            status = c.post(replay.url + "/api/replay/cursor", content=endless()).status_code
        except httpx.TransportError:   # the server answered 413 and hung up mid-upload
            status = 413
        assert status == 413 and sent < 50 * 1024 * 1024
        assert " 413 " in raw_status(replay.port, "POST /api/replay/cursor HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                  f"Content-Length: {500 * 2**20}\r\n\r\n")
        assert c.post(replay.url + "/api/replay/cursor", json={"t": 1.0}).status_code == 200


def test_nested_or_infinite_json_is_a_clear_refusal_and_the_connection_lives(live: ServerThread,
                                                                            replay: AppThread) -> None:
    res = httpx.put(live.url + "/api/terrain", content=DEEP, headers={"content-type": "application/json"})
    assert res.status_code in (400, 413)
    res = httpx.put(live.url + "/api/terrain", content="[" * 200 + "]" * 200)
    assert res.status_code == 400 and "nested more than 32 levels deep" in res.json()["error"]
    with connect(ws_url(live)) as ws:   # it was dropped without a close frame
        reply = reply_to(ws, DEEP)   # 200 KB: under the size limit
        assert not reply["ok"] and "nested more than 32 levels deep" in reply["error"]
        assert reply_to(ws, '{"type": "ping"}')["ok"]
    with client() as c:
        for body, status in (('{"seq": 1e400}', 400), ('{"t": NaN}', 400), ('{"t": 1e300}', 400),
                             ('{"seq": -1}', 400), ('{"t": "soon"}', 400), ('{"seq": 99999}', 404)):
            res = c.post(replay.url + "/api/replay/cursor", content=body)
            assert res.status_code == status, (body, res.text)


# -- rates ----------------------------------------------------------------------------------------


def test_websocket_writes_are_limited_per_address_across_connections(live: ServerThread) -> None:
    """20 connections from one address sent 3,222 writes in 10 s, none refused: the allowance is
    now the address's, whatever the number of connections; another address is unaffected."""
    limit = live.services.ws_messages
    note = json.dumps({"type": "event", "kind": "note", "text": "flood"})
    with contextlib.ExitStack() as stack:
        flood = [stack.enter_context(connect(ws_url(live), source_address=("127.0.0.2", 0))) for _ in range(20)]
        started, accepted, refused = time.monotonic(), 0, 0
        while time.monotonic() - started < 3:
            for ws in flood:
                ws.send(note)
            for ws in flood:
                while True:
                    msg = json.loads(ws.recv(timeout=10))
                    if msg["topic"] == "reply":
                        accepted += msg["payload"]["ok"]
                        refused += not msg["payload"]["ok"]
                        break
        elapsed = time.monotonic() - started
        assert refused > 0 and accepted <= limit.burst + limit.rate * elapsed + 5, (accepted, refused)
        with connect(ws_url(live), source_address=("127.0.0.3", 0)) as calm:
            assert reply_to(calm, note)["ok"]


def test_a_rotating_forwarded_for_header_does_not_dodge_the_write_limit(live: ServerThread) -> None:
    limit = live.services.limits.writes
    with client("127.0.0.2") as c:
        codes, seconds = hammer(lambda i: c.post(live.url + "/api/events", json={"kind": "bogus"},
                                                 headers={"x-forwarded-for": f"10.0.{i // 200}.{i % 200}"}).status_code,
                                int(limit.burst) * 4)
    assert codes[0] == 422 and within(codes, limit, seconds, ok=422), (codes, seconds)
    with client("127.0.0.3") as c:
        assert c.post(live.url + "/api/events", json={"kind": "note", "text": "calm"}).status_code == 200


def test_a_configured_proxy_is_believed(still_frames: Path, tmp_path: Path) -> None:
    """Behind `--proxy 127.0.0.1` the proxy's X-Forwarded-For names the client: each its own bucket."""
    with ServerThread(live_settings(still_frames, tmp_path, proxy="127.0.0.1")) as srv, client() as c:
        burst = int(srv.services.limits.writes.burst)
        codes = [c.post(srv.url + "/api/events", json={"kind": "bogus"},
                        headers={"x-forwarded-for": f"10.0.0.{i}"}).status_code for i in range(burst + 10)]
        assert set(codes) == {422}


def test_reads_are_limited_per_address_and_pictures_cost_their_width(live: ServerThread) -> None:
    reads = live.services.limits.reads
    with client("127.0.0.2") as c:   # a new width each time: the picture cache never helps
        wide, seconds = hammer(lambda i: c.get(live.url + f"/api/camera.jpg?width={3840 - i}").status_code,
                               int(reads.burst))
    assert within(wide, reads, seconds, cost=4), (wide, seconds)    # 3840 px: four reads each
    reads.reset()
    with client("127.0.0.2") as c:
        codes, seconds = hammer(lambda i: c.get(live.url + "/api/geometry/pie-aosta").status_code,
                                int(reads.burst) * 4)
    assert within(codes, reads, seconds), (codes, seconds)
    with client("127.0.0.3") as c:
        assert c.get(live.url + "/api/geometry/pie-aosta").status_code == 200
        assert c.get(live.url + "/api/camera.jpg").status_code == 200


def test_a_token_shares_one_allowance_whatever_the_address(live: ServerThread) -> None:
    limit = live.services.limits.writes
    with contextlib.ExitStack() as stack:
        clients = [stack.enter_context(client(f"127.0.0.{10 + k}")) for k in range(5)]
        codes, seconds = hammer(lambda i: clients[i % 5].post(
            live.url + "/api/events", json={"kind": "bogus"}, headers={"x-campo-token": "one-token"}).status_code,
            int(limit.burst) * 4)
    assert codes[0] == 422 and within(codes, limit, seconds, ok=422), (codes, seconds)


def test_the_replay_cursor_is_rate_limited(replay: AppThread) -> None:
    limit = replay.app.state.limits.writes   # type: ignore[attr-defined]
    with client("127.0.0.2") as c:
        codes, seconds = hammer(lambda i: c.post(replay.url + "/api/replay/cursor", json={"t": float(i % 4)}).status_code,
                                int(limit.burst) * 4)
    assert codes[0] == 200 and within(codes, limit, seconds), (codes, seconds)
    with client("127.0.0.3") as c:
        assert c.post(replay.url + "/api/replay/cursor", json={"t": 2.0}).status_code == 200
