"""Replay: the state at a time is the one that was live then, re-analysed by today's engine;
the review app speaks the live page's API plus the timeline, and is read-only."""

from __future__ import annotations

import copy
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from campo import engine
from campo.engine.live import LiveAnalysis
from campo.server.hub import StateHub
from campo.server.recording import Recorder, attach_recorder, open_recording
from campo.server.recording.replay import ReplaySession
from campo.server.recording.replay_app import create_replay_app
from campo.server.recording.simulate import demo_scenario, demo_script, play

SERVER_MEMBERS = ("analysis", "summary", "live")


def _scenario(state: dict) -> dict:
    return {k: v for k, v in state.items() if k not in SERVER_MEMBERS}


def test_replay_shows_what_was_live(tmp_path: Path) -> None:
    """States go through the live hub into the recorder; replay at each moment matches."""
    path = tmp_path / "live.db"
    hub = StateHub()
    recorder = attach_recorder(hub, path)
    live: list[tuple[float, dict]] = []
    summaries = LiveAnalysis()
    analyses = []   # the live verdicts, close calls held as they were shown
    for _, state in list(play(demo_scenario(), demo_script()))[::4]:
        snapshot = summaries.update(state)
        analyses.append(snapshot.analysis())
        published = {**state, "summary": snapshot.summary, "live": {"frame": len(live)}}
        hub.publish("state", published)
        live.append((recorder.now(), published))
        time.sleep(0.01)
    hub.publish("event", {"kind": "note", "text": "well played", "time_unix": 1.0})
    recorder.close()
    session = ReplaySession(path)
    try:
        for (t, published), analysis in zip(live, analyses):
            shown, snapshot = session.moment_at(t)
            assert _scenario(shown) == _scenario(published)
            assert shown["summary"]["bases"] == published["summary"]["bases"]  # same engine, same verdicts
            assert snapshot.analysis() == analysis
            assert shown["live"]["replay"]["t"] == pytest.approx(t)
        notes = [e for e in session.events if e.kind == "note"]
        assert [n.data["text"] for n in notes] == ["well played"]
    finally:
        session.close()


def test_replay_reanalyses_with_the_current_engine(tmp_path: Path) -> None:
    """The verdicts published with a live state are not stored: replay asks today's engine."""
    path = tmp_path / "g.db"
    state = demo_scenario()
    with Recorder(path) as rec:
        rec.record_state({**state, "summary": {"bases": {"a-1": {"note": "old verdict"}}}}, t=0)
    session = ReplaySession(path)
    try:
        shown, snapshot = session.moment_at(0.0)
        assert shown["summary"]["bases"]["a-1"] == LiveAnalysis().update(state).summary["bases"]["a-1"]
        assert snapshot.analysis() == engine.analyze(state)
    finally:
        session.close()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[float, dict]]]:
    path = tmp_path_factory.mktemp("rec") / "game.db"
    played = list(play(demo_scenario(), demo_script()))
    with Recorder(path) as rec:
        for t, s in played:
            rec.record_state(s, t=t)
    return path, played


def test_moves_drawn_at_a_moment(recorded) -> None:
    path, played = recorded
    session = ReplaySession(path)
    try:
        early = session.state_at(2.0)["live"]["replay"]["moves"]
        assert early == []  # nothing has finished moving yet
        later = session.state_at(session.duration)["live"]["replay"]["moves"]
        assert {m["base"] for m in later} == {m.base for m in demo_script()}
        charge = next(m for m in later if m["base"] == "b-1")
        assert charge["distance"] == pytest.approx(10.4) and len(charge["path_mm"]) >= 2
    finally:
        session.close()


def test_review_app_api(recorded) -> None:
    path, played = recorded
    with TestClient(create_replay_app(path), base_url="http://127.0.0.1") as client:
        page = client.get("/").text
        assert "/static/replay.js" in page and 'data-mode="replay"' in page
        assert client.get("/static/replay.js").status_code == 200
        timeline = client.get("/api/replay/timeline").json()
        assert timeline["duration"] == pytest.approx(played[-1][0], abs=0.2)
        assert timeline["states"] == len(played)
        kinds = [e["kind"] for e in timeline["events"]]
        assert kinds.count("move") == len(demo_script()) and "charge" in kinds
        assert timeline["turns"] == [{"t": 0.0, "seq": timeline["turns"][0]["seq"], "turn": 1}]
        t, expected = played[30]
        got = client.get("/api/replay/state", params={"t": t}).json()
        assert _scenario(got) == expected and "bases" in got["summary"]

        with client.websocket_connect("ws://127.0.0.1/ws") as ws:
            first = [ws.receive_json(), ws.receive_json(), ws.receive_json()]
            assert {m["topic"] for m in first} == {"hello", "status", "state"}
            status = next(m for m in first if m["topic"] == "status")["payload"]
            assert status["mode"] == "replay"
            hello = next(m for m in first if m["topic"] == "hello")["payload"]
            assert hello["mode"] == "replay" and hello["can_write"] is False
            charge = next(e for e in timeline["events"] if e["kind"] == "charge")
            reply = client.post("/api/replay/cursor", json={"seq": charge["seq"]})
            assert reply.status_code == 200
            pushed = ws.receive_json()
            assert pushed["topic"] == "state"
            b1 = next(b for b in pushed["payload"]["bases"] if b["id"] == "b-1")
            assert b1["y_mm"] == pytest.approx(440.0)  # where the charge ended, as recorded
            assert "a-1" in pushed["payload"]["summary"]["bases"]["b-1"]["contacts"]
            detail = client.get("/api/bases/b-1/analysis").json()
            assert any(c["id"] == "a-1" for c in detail["contacts"])
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["payload"]["type"] == "pong"
        shown = client.get("/api/state").json()["live"]["replay"]
        assert shown["seq"] == pushed["payload"]["live"]["replay"]["seq"] < charge["seq"]
        assert client.put("/api/terrain", json={"terrain": []}).status_code == 403
        assert client.post("/api/events", json={"kind": "note"}).status_code == 403
        assert client.post("/api/replay/cursor", json={"seq": 10**9}).status_code == 404
        assert client.post("/api/replay/cursor", json={}).status_code == 400
        assert client.get("/api/geometry/a-1").status_code == 200
        assert client.get("/api/geometry/nobody").status_code == 404
        assert client.get("/api/rules").json()["unit"] == "in"
    with open_recording(path) as rec:  # review changed nothing
        assert rec.count("state") == len(played)


def test_replay_of_a_foreign_file_fails_naming_it(run_campo, tmp_path: Path) -> None:
    bogus = tmp_path / "photo.jpg"
    bogus.write_bytes(b"\xff\xd8\xff" + b"\x00" * 100)
    code, _, err = run_campo("replay", bogus)
    assert code == 2 and str(bogus) in err and "not a Campo recording" in err


def test_scenario_copies_are_independent(recorded) -> None:
    path, _ = recorded
    session = ReplaySession(path)
    try:
        a = session.state_at(3.0)
        b = copy.deepcopy(session.state_at(3.0))
        a["bases"][0]["x_mm"] = -1
        assert session.state_at(3.0)["bases"][0]["x_mm"] == b["bases"][0]["x_mm"]
    finally:
        session.close()


def test_moves_of_the_umpires_turn(tmp_path: Path) -> None:
    """Live states carry no `turn`: the umpire's markers decide which moves are drawn."""
    path = tmp_path / "g.db"
    s0 = demo_scenario()
    for key in ("turn", "phase"):
        s0.pop(key)
    s1 = copy.deepcopy(s0)
    s1["bases"][0]["y_mm"] += 50
    s2 = copy.deepcopy(s1)
    s2["bases"][2]["y_mm"] += 75
    with Recorder(path) as rec:
        rec.record_event("turn", {}, t=0.0)
        rec.record_state(s0, t=0.0)
        rec.record_state(s1, t=1.0)
        rec.record_event("turn", {}, t=5.0)  # "Next turn": turn 2
        rec.record_state(s2, t=6.0)
        rec.record_state(s2 | {"name": "end"}, t=9.0)
    session = ReplaySession(path)
    try:
        assert [e.data for e in session.events if e.kind == "turn"] == [{"turn": 1}, {"turn": 2}]
        first = session.state_at(4.0)["live"]["replay"]
        assert first["turn"] == 1 and [m["base"] for m in first["moves"]] == ["a-1"]
        assert first["moves"][0]["turn"] == 1
        second = session.state_at(9.0)["live"]["replay"]
        assert second["turn"] == 2 and [m["base"] for m in second["moves"]] == ["a-2"]
    finally:
        session.close()
