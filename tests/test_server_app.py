"""The live server end to end in-process (FastAPI TestClient): real frames, pipeline and engine."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from campo.engine.analysis import analyze
from campo.server.app import Services, build_services, create_app
from campo.server.hub import HubRecord
from campo.server.messages import MAX_MESSAGE_BYTES
from campo.server.rig import ServerSettings
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, receive_until, state_bases, wait_for

BASE = "http://127.0.0.1"  # the Host header a loopback server accepts (see server/security.py)
WS = "ws://127.0.0.1/ws"
WOOD = {"id": "wood-1", "kind": "wood", "polygon_mm": [[300, 400], [500, 400], [500, 560], [300, 560]]}


@pytest.fixture(scope="module")
def still_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("still")
    render_frames(folder, [LAYOUT] * 4, noisy=True)  # the same table, with a webcam's noise
    return folder


def _settings(folder: Path, tmp: Path, **kw: Any) -> ServerSettings:
    return ServerSettings(source=str(folder), table=TABLE, roster=ROSTER, setup_file=tmp / "terrain.json",
                          fps=kw.pop("fps", 20.0), status_interval_s=0.2, **kw)


@pytest.fixture(scope="module")
def live(still_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Services]]:
    settings = _settings(still_folder, tmp_path_factory.mktemp("setup"))
    services = build_services(settings)
    with TestClient(create_app(settings, services=services), base_url=BASE) as client:
        assert wait_for(lambda: len(state_bases(client.get("/api/state"))) == 4, timeout=20)
        yield client, services


def scenario_of(state: dict[str, Any]) -> dict[str, Any]:
    """The scenario JSON inside a published state (without the server's members)."""
    return {k: v for k, v in state.items() if k not in ("analysis", "summary", "live")}


def test_state_is_the_scenario_plus_the_engines_analysis(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    state = client.get("/api/state").json()
    assert {b["id"] for b in state["bases"]} == {"pie-aosta", "pie-cuneo", "aus-47", "aus-59"}
    aosta = next(b for b in state["bases"] if b["id"] == "pie-aosta")
    assert aosta["x_mm"] == pytest.approx(800, abs=3) and aosta["y_mm"] == pytest.approx(400, abs=3)
    assert aosta["heading_deg"] == pytest.approx(90, abs=1.5)
    assert state["analysis"] == analyze(scenario_of(state))
    assert state["analysis"]["unit"] == "in"
    assert "summary" not in state
    targets = state["analysis"]["bases"]["pie-aosta"]["targets"]
    assert "aus-47" in [t["id"] for t in targets]


def test_one_bases_analysis_is_the_whole_tables_entry(live: tuple[TestClient, Services]) -> None:
    """GET /api/bases/{id}/analysis: the same object as analysis.bases[id] (interfaces.md); an
    unknown base is 404."""
    client, _ = live
    whole = client.get("/api/state").json()["analysis"]["bases"]
    for base_id, entry in whole.items():
        answer = client.get(f"/api/bases/{base_id}/analysis")
        assert answer.status_code == 200 and answer.json() == entry
    assert client.get("/api/bases/nobody/analysis").status_code == 404


def test_the_state_message_is_small_and_carries_summaries(live: tuple[TestClient, Services]) -> None:
    """The WebSocket state carries the scenario and each base's summary, not the analysis:
    at most 400 bytes per base on average, terrain included (interfaces.md)."""
    client, _ = live
    with client.websocket_connect(WS) as ws:
        message = receive_until(ws, "state")
        state = message["payload"]
        assert "analysis" not in state and set(state["summary"]["bases"]) == {b["id"] for b in state["bases"]}
        size = len(json.dumps(message, separators=(",", ":")))
        assert size / len(state["bases"]) <= 400, size
        whole = client.get("/api/state").json()["analysis"]["bases"]
        for base_id, summary in state["summary"]["bases"].items():
            contacts = {c["id"]: c["aspect"] for c in whole[base_id]["contacts"]}
            assert summary.get("contacts", {}) == contacts
            assert summary.get("commanded_by", []) == whole[base_id]["commanded_by"]


def test_analysis_runs_only_when_the_game_changes(live: tuple[TestClient, Services]) -> None:
    client, services = live
    frames_before, analyses_before = services.tracker.frames, services.tracker.analyses
    assert wait_for(lambda: services.tracker.frames >= frames_before + 15, timeout=20)
    assert services.tracker.analyses == analyses_before  # the same table in noisy frames: no new analysis


def test_status_reports_the_camera_and_the_table(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    status = client.get("/api/status").json()
    assert status["table_located"] is True
    assert status["anchors_seen"] == 4 and status["anchors_total"] == 4
    assert status["camera"]["signal"] is True and status["fps"] > 0
    assert status["unknown_markers"] == []


def test_websocket_streams_envelopes(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    with client.websocket_connect(WS) as ws:
        first = [ws.receive_json() for _ in range(3)]
        assert {m["topic"] for m in first} == {"hello", "state", "status"}
        for m in first:
            assert set(m) == {"topic", "seq", "payload"}
        hello = next(m["payload"] for m in first if m["topic"] == "hello")
        assert hello["can_write"] is True and hello["mode"] == "live"
        state = next(m["payload"] for m in first if m["topic"] == "state")
        whole = client.get("/api/state").json()
        assert scenario_of(state) == scenario_of(whole) and state["live"] == whole["live"]
        later = receive_until(ws, "status")
        assert later["seq"] > max(m["seq"] for m in first)


def test_bad_messages_are_answered_and_the_connection_survives(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    with client.websocket_connect(WS) as ws:
        for raw in ["not json", '{"type": "nope"}', json.dumps({"type": "event", "kind": "note",
                                                                  "text": "x" * (MAX_MESSAGE_BYTES + 10)})]:
            ws.send_text(raw)
            reply = receive_until(ws, "reply")["payload"]
            assert reply["ok"] is False and reply["error"]
        ws.send_bytes(b"\x00\xff" * 10)
        assert receive_until(ws, "reply")["payload"]["ok"] is False
        ws.send_text('{"type": "ping"}')
        assert receive_until(ws, "reply")["payload"] == {"ok": True, "type": "pong",
                                                         "time_unix": pytest.approx(0, abs=1e12)}
    assert client.get("/api/status").status_code == 200


def test_a_flooding_client_is_slowed_down_on_all_its_connections(live: tuple[TestClient, Services]) -> None:
    """A script sending in a loop gets refusals past the burst, and opening another connection
    from the same address does not reset its allowance; HTTP writes from one address are limited
    the same way (429). (Other addresses are unaffected: tests/test_hardening_limits.py.)"""
    client, services = live
    services.ws_messages.reset()
    burst = int(services.ws_messages.burst)
    try:
        with client.websocket_connect(WS) as flood, client.websocket_connect(WS) as second:
            for _ in range(burst + 10):
                flood.send_text('{"type": "ping"}')
            replies = [receive_until(flood, "reply")["payload"] for _ in range(burst + 10)]
            refused = [r for r in replies if not r["ok"]]
            assert len(replies) - len(refused) >= burst and refused
            assert all("too many messages" in r["error"] for r in refused)
            for _ in range(burst):   # a fresh connection would have its whole burst: this one has not
                second.send_text('{"type": "ping"}')
            again = [receive_until(second, "reply")["payload"] for _ in range(burst)]
            assert any("too many messages" in r.get("error", "") for r in again)
    finally:
        services.ws_messages.reset()
    limits = services.limits.writes
    try:   # post until refused: on a busy machine the allowance refills between slow posts
        codes, started = [], time.monotonic()
        while 429 not in codes and len(codes) < 400:
            codes.append(client.post("/api/events", json={"kind": "note", "text": f"n{len(codes)}"}).status_code)
        elapsed = time.monotonic() - started
        assert codes[0] == 200 and codes[-1] == 429
        assert codes.count(200) <= limits.burst + limits.rate * elapsed + 1
        assert client.get("/api/status").status_code == 200
    finally:   # the other tests of this module write from the same address
        limits.reset()


def test_umpire_events_reach_other_clients_and_subscribers(live: tuple[TestClient, Services]) -> None:
    client, services = live
    got: list[HubRecord] = []
    unsubscribe = services.hub.subscribe(got.append)
    try:
        with client.websocket_connect(WS) as umpire, client.websocket_connect(WS) as watcher:
            umpire.send_text(json.dumps({"type": "event", "kind": "turn", "turn": 4, "text": "Austrians move"}))
            reply = receive_until(umpire, "reply")["payload"]
            assert reply["ok"] is True
            event = receive_until(watcher, "event")
            assert event["payload"]["kind"] == "turn" and event["payload"]["turn"] == 4
            assert event["seq"] == reply["seq"]
    finally:
        unsubscribe()
    events = [r for r in got if r.topic == "event"]
    assert len(events) == 1 and events[0].payload["text"] == "Austrians move"


def test_geometry_of_a_base(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    geo = client.get("/api/geometry/pie-aosta").json()
    assert geo["id"] == "pie-aosta" and len(geo["arc"]) >= 3
    assert any(c["target"] == "aus-47" for c in geo["charges"])
    assert client.get("/api/geometry/nobody").status_code == 404


def test_camera_image_with_overlay(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    res = client.get("/api/camera.jpg", params={"width": 640, "base": "pie-aosta"})
    assert res.status_code == 200 and res.headers["content-type"] == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(res.content, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[1] == 640
    plain = cv2.imdecode(np.frombuffer(client.get("/api/camera.jpg", params={"width": 640, "overlay": False}).content,
                                       np.uint8), cv2.IMREAD_COLOR)
    assert np.abs(image.astype(int) - plain.astype(int)).mean() > 0.5  # something was drawn


def test_rules_panel_data(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    rules = client.get("/api/rules").json()
    assert rules["unit"] == "in" and rules["mm_per_unit"] == 25.0
    a1 = next(s for s in rules["settings"] if s["name"] == "a1_zones")
    assert a1["value"] in a1["choices"]
    assert any(t["title"].startswith("Movement") and t["rows"] for t in rules["reference"])


def test_terrain_edit_round_trips_to_the_state_and_the_file(still_folder: Path, tmp_path: Path) -> None:
    settings = _settings(still_folder, tmp_path)
    with TestClient(create_app(settings), base_url=BASE) as client:
        res = client.put("/api/terrain", json={"terrain": [WOOD]})
        assert res.status_code == 200 and res.json()["saved"] is True
        assert wait_for(lambda: client.get("/api/state").json()["terrain"] == [WOOD], timeout=10)
        bad = client.put("/api/terrain", json={"terrain": [{"id": "x", "kind": "lava", "polygon_mm": [[0, 0], [1, 0], [1, 1]]}]})
        assert bad.status_code == 422 and "lava" in bad.json()["error"]
        res = client.put("/api/settings", json={"settings": {"a1_zones": "corner_diagonals"}})
        assert res.status_code == 200
        assert wait_for(lambda: client.get("/api/state").json().get("settings") == {"a1_zones": "corner_diagonals"})
    saved = json.loads((tmp_path / "terrain.json").read_text())
    assert saved["terrain"] == [WOOD] and saved["settings"] == {"a1_zones": "corner_diagonals"}
    with TestClient(create_app(settings), base_url=BASE) as client:  # a restart reads it back
        assert client.get("/api/setup").json()["terrain"] == [WOOD]


def test_network_host_is_read_only_without_the_token(still_folder: Path, tmp_path: Path) -> None:
    settings = _settings(still_folder, tmp_path, host="0.0.0.0", token="s3cret-token")
    with TestClient(create_app(settings), base_url=BASE) as client:
        with client.websocket_connect(WS) as ws:
            assert receive_until(ws, "hello")["payload"]["can_write"] is False
            ws.send_text(json.dumps({"type": "terrain", "terrain": [WOOD]}))
            reply = receive_until(ws, "reply")["payload"]
            assert reply["ok"] is False and "read-only" in reply["error"]
            ws.send_text('{"type": "ping"}')  # reading is still fine
            assert receive_until(ws, "reply")["payload"]["ok"] is True
        with client.websocket_connect(f"{WS}?token=wrong") as ws:
            assert receive_until(ws, "hello")["payload"]["can_write"] is False
        with client.websocket_connect(f"{WS}?token=s3cret-token") as ws:
            assert receive_until(ws, "hello")["payload"]["can_write"] is True
            ws.send_text(json.dumps({"type": "event", "kind": "note", "text": "ok"}))
            assert receive_until(ws, "reply")["payload"]["ok"] is True
        assert client.put("/api/terrain", json={"terrain": [WOOD]}).status_code == 403
        assert client.post("/api/events", json={"kind": "note"}).status_code == 403
        assert client.put("/api/terrain", json={"terrain": [WOOD]},
                          headers={"X-Campo-Token": "s3cret-token"}).status_code == 200
        assert client.get("/api/state").status_code == 200  # reading needs no token


def test_other_web_sites_cannot_connect_or_write(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(f"{WS}", headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()
    res = client.put("/api/terrain", json={"terrain": []}, headers={"origin": "http://evil.example"})
    assert res.status_code == 403


def test_dns_rebinding_is_refused_on_loopback(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    # evil.example resolving to 127.0.0.1: same origin as itself, but not a loopback Host
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("ws://evil.example:8000/ws",
                                      headers={"origin": "http://evil.example:8000"}) as ws:
            ws.receive_json()
    res = client.put("http://evil.example:8000/api/terrain", json={"terrain": []},
                     headers={"origin": "http://evil.example:8000"})
    assert res.status_code == 403


def test_oversized_http_body_is_refused(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    body = json.dumps({"terrain": [], "pad": "x" * (MAX_MESSAGE_BYTES + 1)})
    res = client.put("/api/terrain", content=body, headers={"content-type": "application/json"})
    assert res.status_code == 413
    assert client.put("/api/terrain", content="{nope", headers={"content-type": "application/json"}).status_code == 400


def test_overlay_page_and_static_files_are_served(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    page = client.get("/")
    assert page.status_code == 200 and 'id="table"' in page.text
    for name in ("app.js", "board.js", "panels.js", "terrain.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200


@pytest.mark.slow
def test_demo_source_plays_the_demo_game_end_to_end() -> None:
    from campo.vision.synthetic.demo import DemoGame

    game = DemoGame.load()
    settings = ServerSettings(source="demo", fps=8.0, status_interval_s=0.2)
    services = build_services(settings)
    with TestClient(create_app(settings, services=services), base_url=BASE) as client:
        assert wait_for(lambda: len(state_bases(client.get("/api/state"))) >= len(game.roster.bases) - 2,
                        timeout=60)
        state = client.get("/api/state").json()
        assert {b["id"] for b in state["bases"]} <= {b.id for b in game.roster.bases}
        assert len(state["terrain"]) == len(game.terrain)
        assert client.get("/api/setup").json()["file"] is None  # the demo's terrain is not written anywhere
        assert state["analysis"]["bases"].keys() == {b["id"] for b in state["bases"]}
        status = client.get("/api/status").json()
        assert status["table_located"] and status["camera"]["source"] == "demo"
        # what the pipeline tracked in a frame matches the synthetic camera's ground truth for it
        view = services.tracker.view
        assert view is not None
        seen = [b for b in view.result.tracked if not b.stale]
        assert len(seen) >= len(game.roster.bases) - 4
        for b in seen:
            truth = view.frame.truth.bases[b.id]
            assert np.hypot(b.x_mm - truth.x_mm, b.y_mm - truth.y_mm) < 6, b.id


def test_frames_the_camera_file_does_not_fit_are_reported_not_fatal(
        still_folder: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from campo.calibration.camera_file import CameraCalibration, save_camera
    from campo.vision.camera_model import Intrinsics

    save_camera(CameraCalibration(Intrinsics.ideal(1000, 1000), 0.3), tmp_path / "camera.json")
    settings = _settings(still_folder, tmp_path, camera=tmp_path / "camera.json")
    with caplog.at_level("WARNING", logger="campo.server.live"), \
            TestClient(create_app(settings), base_url=BASE) as client:
        assert wait_for(lambda: "aspect ratio" in client.get("/api/status").json()["frame_error"])
        assert wait_for(lambda: client.get("/api/status").json()["camera"]["frames"] >= 5)
        assert client.get("/api/state").json()["bases"] == []
    assert sum("aspect ratio" in r.getMessage() for r in caplog.records) == 1


def test_an_engine_bug_shows_as_an_analysis_error_and_the_poses_still_flow(still_folder: Path,
                                                                         tmp_path: Path) -> None:
    """An exception the engine should never raise: the state goes out with the poses and an
    `analysis.error`, the server keeps running (the error is logged, expected here)."""
    import logging

    def boom(scenario: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("simulated engine bug")

    class _Expected(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            record.campo_expected = True
            return True

    live_log = logging.getLogger("campo.server.live")
    expected = _Expected()
    live_log.addFilter(expected)
    try:
        settings = _settings(still_folder, tmp_path)
        services = build_services(settings)
        services.tracker.analyst.update = boom  # type: ignore[method-assign]
        with TestClient(create_app(settings, services=services), base_url=BASE) as client:
            assert wait_for(lambda: len(state_bases(client.get("/api/state"))) == 4, timeout=20)
            state = client.get("/api/state").json()
            assert "internal error in the rules engine (RuntimeError)" in state["analysis"]["error"]
            assert "internal error" in services.tracker.state["summary"]["error"]
            refused = client.get("/api/bases/pie-aosta/analysis")
            assert refused.status_code == 422 and "internal error" in refused.json()["detail"]
            assert client.get("/api/status").status_code == 200
    finally:
        live_log.removeFilter(expected)
