"""Review of a game's unit states (issue 14, item 5): a real live server records the umpire's
changes (turn markers, losses, disorder, a formation changed and undone); `campo report` shows
losses and state per side and per turn, `campo export` carries every change (JSON lines and
CSV), and the replay shows each base's state at each moment."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from campo.server.app import build_services, create_app
from campo.server.recording import attach, open_recording
from campo.server.recording.reader import Entry
from campo.server.recording.replay_app import create_replay_app
from campo.server.recording.unit_history import unit_history
from campo.server.rig import ServerSettings
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, receive_until, render_frames, state_bases, wait_for

BASE = "http://127.0.0.1"


def _traits(client: TestClient, base_id: str) -> dict[str, Any]:
    state = client.get("/api/state").json()
    return next(b for b in state["bases"] if b["id"] == base_id)["traits"]


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two turns of a recorded game: turn 1 Aosta takes 3 losses and IR 47 is disordered;
    turn 2 Aosta takes 2 more (5: shaken, ISD §4), IR 47 goes into march column and the umpire
    undoes it."""
    work = tmp_path_factory.mktemp("game")
    frames = work / "frames"
    frames.mkdir()
    render_frames(frames, [LAYOUT] * 2)
    path = work / "game.db"
    settings = ServerSettings(source=str(frames), table=TABLE, roster=ROSTER,
                              setup_file=work / "terrain.json", fps=10.0, status_interval_s=0.2)
    services = build_services(settings)
    app = create_app(settings, services=services)
    attach(app, services, path)

    def put(client: TestClient, base: str, traits: dict[str, Any]) -> None:
        reply = client.put(f"/api/bases/{base}/state", json={"traits": traits})
        assert reply.status_code == 200, reply.text
        assert wait_for(lambda: _traits(client, base) | traits == _traits(client, base))

    with TestClient(app, base_url=BASE) as client:
        assert wait_for(lambda: len(state_bases(client.get("/api/state"))) == 4, timeout=20)
        assert client.post("/api/events", json={"kind": "turn", "turn": 1}).status_code == 200
        put(client, "pie-aosta", {"losses": 3})
        put(client, "aus-47", {"disordered": True})
        assert client.post("/api/events", json={"kind": "turn", "turn": 2}).status_code == 200
        put(client, "pie-aosta", {"losses": 5})
        put(client, "aus-47", {"formation": "march_column"})
        with client.websocket_connect("ws://127.0.0.1/ws") as ws:
            ws.send_json({"type": "undo_unit_state"})
            assert receive_until(ws, "reply")["payload"]["ok"]
        assert wait_for(lambda: _traits(client, "aus-47")["formation"] == "line")
    return path


def _entries(path: Path) -> list[Entry]:
    with open_recording(path) as rec:
        return list(rec.entries())


def test_every_change_and_the_undo_are_unit_state_events(game: Path) -> None:
    changes = [(e.data["base"], e.data["traits"], e.data["before"], e.data["source"])
               for e in _entries(game) if e.kind == "unit_state"]
    assert changes == [("pie-aosta", {"losses": 3}, {"losses": 0}, "api"),
                       ("aus-47", {"disordered": True}, {"disordered": False}, "api"),
                       ("pie-aosta", {"losses": 5}, {"losses": 3}, "api"),
                       ("aus-47", {"formation": "march_column"}, {"formation": "line"}, "api"),
                       ("aus-47", {"formation": "line"}, {"formation": "march_column"}, "page")]


def test_history_counts_each_change_once_in_its_turn(game: Path) -> None:
    """A change is in its event and again in the states after it: it counts once."""
    history = unit_history(_entries(game))
    assert [(c.turn, c.base, c.key, c.before, c.after) for c in history.changes] == [
        (1, "pie-aosta", "losses", 0, 3), (1, "aus-47", "disordered", False, True),
        (2, "pie-aosta", "losses", 3, 5), (2, "aus-47", "formation", "line", "march_column"),
        (2, "aus-47", "formation", "march_column", "line")]
    assert history.losses() == {1: {"A": 3}, 2: {"A": 2}}
    assert history.ends[1] == {"A": {"pie-aosta": {"losses": 3}}, "B": {"aus-47": {"disordered": True}}}
    assert history.ends[2]["B"] == {"aus-47": {"disordered": True}}   # the column was undone


def test_report_shows_losses_and_state_per_side_and_turn(run_campo, game: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    code, _, err = run_campo("report", game, "-o", out)
    assert code == 0, err
    html = out.read_text()
    losses = html.split("<h2>Losses per turn</h2>")[1].split("</table>")[0]
    # turn | A losses | A bases lost | B losses | B bases lost
    assert "<tr><td>1</td><td>3</td><td>0</td><td>0</td><td>0</td></tr>" in losses
    assert "<tr><td>2</td><td>2</td><td>0</td><td>0</td><td>0</td></tr>" in losses
    states = html.split("<h2>State per turn</h2>")[1].split("</table>")[0]
    rows = re.findall(r"<tr><td>(\d+)</td><td>(.*?)</td><td>(.*?)</td></tr>", states)
    assert rows == [("1", "pie-aosta: losses 3", "aus-47: disordered"),
                    ("2", "pie-aosta: losses 5", "aus-47: disordered")]


def test_export_carries_every_change(run_campo, game: Path, tmp_path: Path) -> None:
    code, out, err = run_campo("export", game, "--json")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    changes = [(x["base"], x["traits"]) for x in lines if x["kind"] == "unit_state"]
    assert changes[0] == ("pie-aosta", {"losses": 3}) and len(changes) == 5
    # the states after a change carry it
    last = next(x["state"] for x in reversed(lines) if x["kind"] == "state")
    aosta = next(b for b in last["bases"] if b["id"] == "pie-aosta")
    assert aosta["traits"]["losses"] == 5
    code, out, err = run_campo("export", game, "--csv")
    assert code == 0, err
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["kind"] == "unit_state"]
    assert [(r["turn"], r["base"], r["summary"]) for r in rows] == [
        ("1", "pie-aosta", "pie-aosta state: losses 0 -> 3 (api)"),
        ("1", "aus-47", "aus-47 state: disordered no -> yes (api)"),
        ("2", "pie-aosta", "pie-aosta state: losses 3 -> 5 (api)"),
        ("2", "aus-47", "aus-47 state: formation line -> march column (api)"),
        ("2", "aus-47", "aus-47 state: formation march column -> line (page)")]
    assert json.loads(rows[0]["details"])["traits"] == {"losses": 3}


@pytest.fixture
def replay(game: Path) -> Iterator[TestClient]:
    with TestClient(create_replay_app(game), base_url=BASE) as client:
        yield client


def _state_shown(client: TestClient, seq: int, base: str) -> dict[str, Any]:
    reply = client.post("/api/replay/cursor", json={"seq": seq}, headers={"origin": BASE})
    assert reply.status_code == 200, reply.text
    detail = client.get(f"/api/bases/{base}/detail").json()
    return {c["key"]: c["value"] for c in detail["state"]}


def test_replay_shows_each_bases_state_at_each_moment(game: Path, replay: TestClient) -> None:
    """At each change's own moment the replay shows the base as it then was (the change
    applied at once, before the next recorded state carries it), and the engine judges it."""
    events = [e for e in _entries(game) if e.kind == "unit_state"]
    seen = [(e.data["base"], _state_shown(replay, e.seq, e.data["base"])) for e in events]
    assert seen == [
        ("pie-aosta", {"losses": 3, "disordered": False, "formation": "line"}),
        ("aus-47", {"losses": 0, "disordered": True, "formation": "line"}),
        ("pie-aosta", {"losses": 5, "disordered": False, "formation": "line"}),
        ("aus-47", {"losses": 0, "disordered": True, "formation": "march_column"}),
        ("aus-47", {"losses": 0, "disordered": True, "formation": "line"})]
    # the page's summary at Aosta's fifth loss: shaken (ISD §4, B is shaken at 5)
    reply = replay.post("/api/replay/cursor", json={"seq": events[2].seq}, headers={"origin": BASE})
    assert "shaken" in reply.json()["summary"]["bases"]["pie-aosta"]["badges"]
    reply = replay.post("/api/replay/cursor", json={"seq": events[0].seq}, headers={"origin": BASE})
    assert "shaken" not in reply.json()["summary"]["bases"]["pie-aosta"].get("badges", [])
