"""The turn clock (issue 14 item 3): stepped from the page (WebSocket) or a script (HTTP), back
is undo, every step recorded as turn and phase events, restored when a recorded game resumes;
moves carry the phase they began in and are judged against it."""

from __future__ import annotations

import doctest
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import campo.server.turn_clock as turn_clock_module
from campo.engine.rulesets.attila.deck import Deck, DeckTool
from campo.engine.rulesets.attila.settings import AttilaSettings
from campo.errors import CampoInputError
from campo.server.app import Services, build_services, create_app
from campo.server.recording import attach_recorder, open_recording, restore_turn_clock
from campo.server.recording.events import EventDeriver
from campo.server.rig import ServerSettings
from campo.server.security import AccessPolicy
from campo.server.turn_clock import TurnClock, restore_from_events
from tests.server_fixtures import ROSTER, TABLE, receive_until

BASE = "http://127.0.0.1"


def test_doctests() -> None:
    assert doctest.testmod(turn_clock_module).failed == 0


# --- the clock alone ----------------------------------------------------------------------
def test_isd_clock_steps_through_both_impulses_and_back() -> None:
    clock = TurnClock("italia-se-desta")
    assert clock.view()["started"] is False and clock.view()["next"]["phase"] == "first.bombardment"
    first = clock.step("next", source="page")
    assert [e["kind"] for e in first.events] == ["turn", "phase"]
    assert first.events[1] | {"time_unix": 0} == {
        "kind": "phase", "turn": 1, "phase": "first.bombardment", "title": "First impulse: bombardment (side A)",
        "first": "A", "side": "A", "source": "page", "step": "next", "time_unix": 0}
    for _ in range(2):
        step = clock.step("next", source="api")
    assert step.view["phase"] == "first.manoeuvre" and step.view["moves"] == {"A": "full", "B": "results"}
    assert step.view["acting"] == "A" and step.view["index"] == 3 and step.view["of"] == 9
    assert "ISD §8" in step.view["cites"]
    # B has the initiative this game: B's impulse comes first
    b_first = clock.step("first", side="B", source="page")
    assert b_first.view["acting"] == "B" and b_first.events[0]["side"] == "B"
    back = clock.step("back", source="page")
    assert back.view["phase"] == "first.fire" and back.view["first"] == "B"
    for _ in range(8):   # fire -> ... -> morale -> turn 2
        clock.step("next", source="page")
    assert clock.view()["turn"] == 2 and clock.view()["first"] == "B"   # kept into the next turn
    back = clock.step("back", source="page")
    assert (back.view["turn"], back.view["phase"]) == (1, "morale")
    assert [e["kind"] for e in back.events] == ["turn", "phase"]


def test_clock_refuses_what_it_cannot_do() -> None:
    clock = TurnClock("federico")
    with pytest.raises(CampoInputError, match="not started"):
        clock.step("first", side="B", source="page")
    with pytest.raises(CampoInputError, match="nothing to take back"):
        clock.step("back", source="page")
    clock.step("next", source="page")
    with pytest.raises(CampoInputError, match="A or B"):
        clock.step("first", source="page")
    with pytest.raises(CampoInputError, match="unknown turn action"):
        clock.step("sideways", source="page")
    assert clock.view()["phase"] == "initiative"
    with pytest.raises(CampoInputError, match="no phase 'lunch'"):
        clock.restore(3, "lunch", "A")


def test_attila_clock_is_the_deck() -> None:
    settings = AttilaSettings.load(None)
    tool = DeckTool(seed=11)
    clock = TurnClock("attila", tool)
    assert clock.view()["actions"] == ["next", "back"] and clock.view()["turn"] == 0
    shuffled = clock.step("next", source="page", settings=settings)
    assert (shuffled.view["turn"], shuffled.view["phase"]) == (1, "shuffle")
    order = Deck(seed=11).shuffled(1)
    drawn = clock.step("next", source="page", settings=settings)
    card = order[0]
    assert drawn.view["phase"] == f"{card.player}.{card.action}" and drawn.view["acting"] == card.player
    assert drawn.events[-1]["side"] == card.player
    back = clock.step("back", source="page", settings=settings)
    assert back.view["phase"] == "shuffle" and tool.view()["remaining"] == 8
    assert clock.step("next", source="page", settings=settings).view["phase"] == drawn.view["phase"]
    # the umpire draws on the deck panel: the clock follows
    view = tool.act("draw", settings)
    followed = clock.follow_tool(view, source="page")
    assert followed is not None and followed.view["phase"] == f"{order[1].player}.{order[1].action}"
    assert clock.follow_tool(tool.view(), source="page") is None   # nothing changed


def test_restore_from_events_takes_the_last_phase() -> None:
    clock = TurnClock("italia-se-desta")
    events = [("turn", {"turn": 1}), ("phase", {"turn": 1, "phase": "first.fire", "first": "B"}),
              ("phase", {"turn": 1, "phase": "typed by hand"}),
              ("turn", {"turn": 2}), ("phase", {"turn": 2, "phase": "second.melee", "first": "A"})]
    assert restore_from_events(clock, events)
    assert (clock.view()["turn"], clock.view()["phase"], clock.view()["first"]) == (2, "second.melee", "A")
    assert clock.step("back", source="page").view["phase"] == "second.manoeuvre"
    assert not restore_from_events(TurnClock("federico"), [("note", {"text": "x"})])


# --- the live server ------------------------------------------------------------------------
def _settings(still_frames: Path, tmp_path: Path) -> ServerSettings:
    return ServerSettings(source=str(still_frames), table=TABLE, roster=ROSTER,
                          setup_file=tmp_path / "terrain.json", fps=10.0, status_interval_s=0.2)


@pytest.fixture
def live(still_frames: Path, tmp_path: Path) -> Iterator[tuple[TestClient, Services]]:
    settings = _settings(still_frames, tmp_path)
    services = build_services(settings)
    with TestClient(create_app(settings, services=services), base_url=BASE) as client:
        yield client, services


def test_http_get_and_step(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    got = client.get("/api/turn").json()
    assert got["turn"] == 0 and got["sequence"]["ruleset"] == "italia-se-desta"
    assert len(got["sequence"]["phases"]) == 9
    reply = client.post("/api/turn", json={"action": "next"})
    assert reply.status_code == 200 and reply.json()["turn"]["phase"] == "first.bombardment"
    reply = client.post("/api/turn", json={"action": "first", "side": "B"})
    assert reply.json()["turn"]["acting"] == "B"
    assert client.get("/api/turn").json()["first"] == "B"
    reply = client.post("/api/turn", json={"action": "back"})
    assert reply.json()["turn"]["turn"] == 0


@pytest.mark.parametrize("body", [{"action": "sideways"}, {"action": "next", "extra": 1},
                                  {"action": "first", "side": "C"}, {"action": "first"}, {}])
def test_http_junk_is_422_and_changes_nothing(live: tuple[TestClient, Services], body: dict[str, Any]) -> None:
    client, services = live
    client.post("/api/turn", json={"action": "next"})
    before = client.get("/api/turn").json()
    reply = client.post("/api/turn", json=body)
    assert reply.status_code == 422 and reply.json()["ok"] is False and reply.json()["error"]
    assert client.get("/api/turn").json() == before
    assert client.post("/api/turn", content=b"{not json").status_code == 400


def test_writes_need_the_token_off_localhost(live: tuple[TestClient, Services]) -> None:
    client, services = live
    open_policy = services.policy
    services.policy = AccessPolicy("secret-for-this-test")
    try:
        assert client.post("/api/turn", json={"action": "next"}).status_code == 403
        ok = client.post("/api/turn", json={"action": "next"},
                         headers={"X-Campo-Token": "secret-for-this-test"})
        assert ok.status_code == 200
        with client.websocket_connect("ws://127.0.0.1/ws") as ro:
            assert receive_until(ro, "turn")["payload"]["turn"] == 1   # a read-only page sees it
            ro.send_json({"type": "turn", "action": "next"})
            assert "read-only" in receive_until(ro, "reply")["payload"]["error"]
        assert client.get("/api/turn").json()["turn"] == 1
    finally:
        services.policy = open_policy


def test_the_page_steps_over_the_websocket(live: tuple[TestClient, Services]) -> None:
    client, _ = live
    with client.websocket_connect("ws://127.0.0.1/ws") as ws:
        assert receive_until(ws, "turn")["payload"]["started"] is False
        ws.send_json({"type": "turn", "action": "next"})
        events = [receive_until(ws, "event")["payload"] for _ in range(2)]
        assert [e["kind"] for e in events] == ["turn", "phase"] and events[1]["source"] == "page"
        assert receive_until(ws, "turn")["payload"]["phase"] == "first.bombardment"
        reply = receive_until(ws, "reply")["payload"]
        assert reply["ok"] and reply["type"] == "turn"


def test_steps_are_recorded_and_a_resumed_game_carries_on(still_frames: Path, tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    settings = _settings(still_frames, tmp_path)
    services = build_services(settings)
    recorder = attach_recorder(services.hub, path)
    with TestClient(create_app(settings, services=services), base_url=BASE) as client:
        for body in [{"action": "next"}] * 3 + [{"action": "first", "side": "B"}, {"action": "back"}]:
            assert client.post("/api/turn", json=body).status_code == 200
    recorder.close()
    with open_recording(path) as rec:
        phases = [(e.kind, e.data.get("phase"), e.data.get("first")) for e in rec.events({"turn", "phase"})]
    assert phases == [("turn", None, None), ("phase", "first.bombardment", "A"), ("phase", "first.fire", "A"),
                      ("phase", "first.manoeuvre", "A"), ("phase", "first.manoeuvre", "B"),
                      ("phase", "first.fire", "B")]
    again = build_services(settings)
    assert restore_turn_clock(again, path)
    view = again.clock.view()  # type: ignore[union-attr]
    assert (view["turn"], view["phase"], view["first"]) == (1, "first.fire", "B")


def test_attila_deck_restored_on_resume(tmp_path: Path) -> None:
    """A card-driven clock resumes with the deck dealt as it was (same seed, same cards)."""
    from campo.server.hub import StateHub
    from campo.server.controller import handle_message
    from campo.server.game_state import GameSetup

    path = tmp_path / "game.db"
    hub = StateHub()
    setup = GameSetup("attila", None)
    clock = TurnClock("attila", DeckTool(seed=77))
    recorder = attach_recorder(hub, path)
    for _ in range(3):   # shuffle, draw, draw
        reply = handle_message({"type": "turn", "action": "next"}, can_write=True, setup=setup,
                               hub=hub, tool=clock.tool, clock=clock)
        assert reply["ok"], reply
    recorder.close()
    left = clock.view()

    class Resumed:   # what restore_turn_clock reads of the server's services
        def __init__(self) -> None:
            self.clock = TurnClock("attila", DeckTool(seed=5))
            self.setup = setup

    resumed = Resumed()
    assert restore_turn_clock(resumed, path)
    assert resumed.clock.view() == left
    assert resumed.clock.tool.view()["seed"] == 77   # type: ignore[union-attr]


# --- moves carry the phase and are judged against it ----------------------------------------
def _state(x_a: float, x_b: float) -> dict[str, Any]:
    bases = [{"id": "a-1", "side": "A", "type": "B", "x_mm": x_a, "y_mm": 200.0, "heading_deg": 90.0,
              "width_mm": 80.0, "depth_mm": 40.0, "traits": {"weapon": "MR"}},
             {"id": "b-1", "side": "B", "type": "B", "x_mm": x_b, "y_mm": 900.0, "heading_deg": 270.0,
              "width_mm": 80.0, "depth_mm": 40.0, "traits": {"weapon": "MR"}}]
    return {"ruleset": "italia-se-desta", "table": {"width_mm": 1800, "depth_mm": 1200},
            "terrain": [], "bases": bases}


def _moves(steps: list[tuple[str, dict[str, Any]] | tuple[float, float]]) -> list[dict[str, Any]]:
    deriver = EventDeriver(summarize=None, settle_s=0.5)
    t, out = 0.0, []
    for step in steps:
        if isinstance(step[0], str):
            assert deriver.admit_external(step[0], dict(step[1])) is not None  # type: ignore[arg-type]
            continue
        t += 1.0
        out += deriver.update(t, _state(*step))   # type: ignore[arg-type]
    out += deriver.finish(t + 5)
    return [e.payload for e in out if e.kind == "move"]


def test_moves_carry_the_phase_and_its_verdict() -> None:
    """ISD §5: in A's bombardment A's bases stay (the other side's may fall back); in A's
    manoeuvre A's move is measured against its allowance."""
    phase = {"turn": 1, "first": "A"}
    moves = _moves([(900.0, 900.0), ("turn", {"turn": 1}),
                    ("phase", phase | {"phase": "first.bombardment"}),
                    (1000.0, 900.0), (1000.0, 900.0),          # A moves in A's bombardment
                    (1000.0, 900.0), (1000.0, 900.0),
                    ("phase", phase | {"phase": "first.manoeuvre"}),
                    (1100.0, 900.0), (1100.0, 900.0), (1100.0, 900.0),   # 100 mm: within 8"
                    (1100.0, 830.0), (1100.0, 830.0), (1100.0, 830.0),   # B in A's manoeuvre
                    (1500.0, 830.0), (1500.0, 830.0), (1500.0, 830.0)])  # 400 mm: beyond
    assert [(m["base"], m["turn"], m["phase"], m["phase_check"]["verdict"]) for m in moves] == [
        ("a-1", 1, "first.bombardment", "not_now"), ("a-1", 1, "first.manoeuvre", "ok"),
        ("b-1", 1, "first.manoeuvre", "result"), ("a-1", 1, "first.manoeuvre", "too_far")]
    assert moves[0]["phase_check"]["cites"] == ["ISD §5", "ISD §6"]
    assert moves[3]["phase_check"]["limit"] == moves[3]["allowance"]
    assert "further than side A may move now" in moves[3]["phase_check"]["reason"]


def test_moves_before_the_clock_starts_have_no_phase_check() -> None:
    moves = _moves([(900.0, 900.0), (1000.0, 900.0), (1000.0, 900.0), (1000.0, 900.0)])
    assert len(moves) == 1 and "phase" not in moves[0] and "phase_check" not in moves[0]


def test_a_resumed_recording_judges_moves_in_the_phase_it_was_left(tmp_path: Path) -> None:
    """The recorder appends to a game whose clock was in A's manoeuvre: a move after the restart
    carries that phase and its verdict."""
    from campo.server.recording import Recorder
    from campo.server.recording.export import summary

    path = tmp_path / "game.db"
    with Recorder(path, commit_interval=0.0) as rec:
        rec.record_state(_state(900.0, 900.0), t=0.0)
        rec.record_event("turn", {"turn": 1})
        rec.record_event("phase", {"turn": 1, "phase": "first.manoeuvre", "first": "B"})
    with Recorder(path, commit_interval=0.0) as rec:
        t = rec.now()
        for dt in (1, 2, 3, 4, 5):
            rec.record_state(_state(1000.0, 900.0), t=t + dt)
    with open_recording(path) as recording:
        moves = recording.events({"move"})
    assert [(m.data["phase"], m.data["phase_check"]["verdict"]) for m in moves] == [
        ("first.manoeuvre", "result")]   # B plays first: A's base moves only as a result
    assert summary(moves[0]).endswith("(a result?) in first.manoeuvre")


def test_notes_and_unit_states_carry_the_turn_and_phase() -> None:
    deriver = EventDeriver(summarize=None)
    assert deriver.admit_external("note", {"text": "before"}) == {"text": "before"}
    deriver.admit_external("turn", {"turn": 2})
    deriver.admit_external("phase", {"turn": 2, "phase": "second.fire", "first": "A"})
    assert deriver.admit_external("unit_state", {"base": "a-1", "traits": {"losses": 1}}) == {
        "base": "a-1", "traits": {"losses": 1}, "turn": 2, "phase": "second.fire"}
    assert deriver.admit_external("card", {"turn": 5, "drawn": 1}) == {"turn": 5, "drawn": 1}
