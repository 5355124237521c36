"""A base's state during a game (issue 14): set over HTTP or the WebSocket, judged whole by the
rulebook, used by the engine at once, recorded, restored after a restart, and undone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from campo.server.app import Services, build_services, create_app
from campo.server.recording import open_recording
from campo.server.rig import ServerSettings
from campo.server.runner import free_port
from tests.server_fixtures import ROSTER, TABLE, receive_until, wait_for

BASE = "http://127.0.0.1"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def live(still_frames: Path, tmp_path: Path) -> Iterator[tuple[TestClient, Services]]:
    settings = ServerSettings(source=str(still_frames), table=TABLE, roster=ROSTER,
                              setup_file=tmp_path / "terrain.json", fps=10.0, status_interval_s=0.2)
    services = build_services(settings)
    with TestClient(create_app(settings, services=services), base_url=BASE) as client:
        assert wait_for(lambda: len(client.get("/api/state").json()["bases"]) == 4, timeout=20)
        yield client, services


def _base(state: dict[str, Any], base_id: str) -> dict[str, Any]:
    return next(b for b in state["bases"] if b["id"] == base_id)


def test_a_change_is_applied_and_judged_at_once(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    reply = client.put("/api/bases/pie-aosta/state", json={"traits": {"disordered": True, "losses": 2}})
    assert reply.status_code == 200, reply.text
    traits = reply.json()["traits"]
    assert traits["disordered"] is True and traits["losses"] == 2 and traits["weapon"] == "MR"
    assert wait_for(lambda: _base(client.get("/api/state").json(), "pie-aosta")["traits"].get("losses") == 2)
    state = client.get("/api/state").json()
    assert _base(state, "pie-aosta")["traits"]["disordered"] is True
    # the engine reads it: the base is marked disordered in its summary
    with client.websocket_connect("ws://127.0.0.1/ws") as ws:
        summary = receive_until(ws, "state")["payload"]["summary"]["bases"]["pie-aosta"]
    assert "disordered" in summary.get("badges", [])
    # the page's controls show the values, with the rulebook's limits for this base
    controls = {c["key"]: c for c in client.get("/api/bases/pie-aosta/detail").json()["state"]}
    assert controls["losses"]["value"] == 2 and controls["losses"]["most"] == 9   # ISD §4, unit B
    assert controls["disordered"]["value"] is True


@pytest.mark.parametrize("body, words", [
    ({"traits": {"morale": 3}}, "traits.morale"),
    ({"traits": {"losses": 10}}, "at most 9"),
    ({"traits": {"losses": -1}}, "traits.losses"),
    ({"traits": {"disordered": "yes"}}, "true or false"),
    ({"traits": {"formation": "square", "losses": 1}}, "traits.formation"),
    ({"traits": {}}, "traits"),
])
def test_a_bad_change_is_refused_whole_and_names_the_trait(live: tuple[TestClient, Services],
                                                           body: dict[str, Any], words: str) -> None:
    client, services = live
    version = services.units.version   # type: ignore[union-attr]
    reply = client.put("/api/bases/pie-cuneo/state", json=body)
    assert reply.status_code == 422 and words in json.dumps(reply.json())
    assert services.units.version == version and services.units.traits("pie-cuneo") == {}  # type: ignore[union-attr]


def test_an_unknown_base_is_404(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    assert client.put("/api/bases/nobody/state", json={"traits": {"disordered": True}}).status_code == 404


def test_the_page_changes_and_undoes_over_the_websocket(live: tuple[TestClient, Services]) -> None:
    client, services = live
    with client.websocket_connect("ws://127.0.0.1/ws") as ws:
        ws.send_json({"type": "unit_state", "base": "aus-47", "traits": {"formation": "march_column"}})
        seen: dict[str, Any] = {}
        while not {"reply", "event"} <= seen.keys():
            message = ws.receive_json()
            seen.setdefault(message["topic"], message["payload"])
        reply, event = seen["reply"], seen["event"]
        assert reply["ok"] and reply["before"] == {"formation": "line"} and reply["traits"] == {"formation": "march_column"}
        assert event["kind"] == "unit_state" and event["source"] == "page" and event["base"] == "aus-47"
        ws.send_json({"type": "undo_unit_state"})
        undone = receive_until(ws, "reply")["payload"]
        assert undone["ok"] and undone["traits"] == {"formation": "line"}
        ws.send_json({"type": "undo_unit_state"})
        assert receive_until(ws, "reply")["payload"]["error"] == "nothing to undo"
    assert services.units.traits("aus-47") == {"formation": "line"}   # type: ignore[union-attr]


def test_a_read_only_page_cannot_change_a_state(live: tuple[TestClient, Services]) -> None:
    client, services = live
    from campo.server.security import AccessPolicy

    open_policy = services.policy
    services.policy = AccessPolicy("secret-for-this-test")
    try:
        assert client.put("/api/bases/pie-aosta/state", json={"traits": {"disordered": True}}).status_code == 403
        with client.websocket_connect("ws://127.0.0.1/ws") as ro:
            ro.send_json({"type": "unit_state", "base": "pie-aosta", "traits": {"disordered": True}})
            assert "read-only" in receive_until(ro, "reply")["payload"]["error"]
    finally:
        services.policy = open_policy


@pytest.mark.slow
def test_kill_9_keeps_every_confirmed_change(still_frames: Path, tmp_path: Path) -> None:
    """`campo serve --record`, killed hard right after the answers: every change it confirmed,
    an undo from the page among them, is in the recording and is the base's state again when
    the server restarts on it."""
    import httpx
    from websockets.sync.client import connect

    path = tmp_path / "game.db"

    def start() -> tuple[subprocess.Popen[bytes], str]:
        port = free_port()
        cmd = [sys.executable, "-m", "campo.server.cli", "serve", "--source", str(still_frames), "--table",
               str(TABLE), "--roster", str(ROSTER), "--terrain", str(tmp_path / "terrain.json"),
               "--fps", "5", "--port", str(port), "--record", str(path)]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                return len(httpx.get(f"{url}/api/state", timeout=2).json()["bases"]) == 4
            except (httpx.HTTPError, ValueError, KeyError):
                return False

        assert wait_for(up, timeout=90, interval=0.3), "the server did not start"
        return proc, url

    proc, url = start()
    try:
        changes = [("pie-aosta", {"losses": 3}), ("aus-47", {"disordered": True}),
                   ("pie-aosta", {"losses": 4, "disordered": True}),
                   ("aus-47", {"formation": "march_column"})]
        for base, traits in changes:
            assert httpx.put(f"{url}/api/bases/{base}/state", json={"traits": traits}).status_code == 200
        with connect(url.replace("http://", "ws://") + "/ws") as ws:   # the page's Undo
            ws.send(json.dumps({"type": "undo_unit_state"}))
            while (message := json.loads(ws.recv(timeout=10)))["topic"] != "reply":
                pass
        assert message["payload"]["ok"], message
        last = ("pie-cuneo", {"losses": 1})
        assert httpx.put(f"{url}/api/bases/{last[0]}/state", json={"traits": last[1]}).status_code == 200
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    with open_recording(path) as rec:
        recorded = [(e.data["base"], e.data["traits"]) for e in rec.events({"unit_state"})]
    assert recorded == [*changes, ("aus-47", {"formation": "line"}), last]
    proc, url = start()
    try:
        state = httpx.get(f"{url}/api/state").json()
        assert _base(state, "pie-aosta")["traits"] | {"losses": 4, "disordered": True} == _base(state, "pie-aosta")["traits"]
        assert _base(state, "aus-47")["traits"] | {"disordered": True, "formation": "line"} == _base(state, "aus-47")["traits"]
        assert _base(state, "pie-cuneo")["traits"]["losses"] == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
