"""Derived events against the scripted ground truth: moves (distance, allowance), contacts,
charges, presence, losses, turns. Allowances are ISD §8's table (infantry 6", cavalry 12",
infantry in a wood capped at 3"), Federico "Movimenti" and ATTILA's settings (ATT AT11)."""

from __future__ import annotations

import copy
import time
from pathlib import Path

import pytest

from campo.server.recording import Recorder, open_recording
from campo.server.recording.events import (
    EventDeriver,
    contact_events,
    loss_events,
    presence_events,
    turn_phase_events,
)
from campo.server.recording.movement import measure_move
from campo.server.recording.simulate import ScriptedMove, demo_scenario, demo_script, play

MM_PER_IN = 25.0
EXPECTED_ALLOWANCE = {"a-1": 6.0, "a-2": 6.0, "a-3": 6.0, "b-1": 12.0, "a-4": 3.0}  # ISD §8


def _derive_all(noise_mm: float = 0.0) -> list:
    deriver = EventDeriver()
    events = []
    last_t = 0.0
    for t, state in play(demo_scenario(), demo_script(), noise_mm=noise_mm, seed=3):
        events += deriver.update(t, state)
        last_t = t
    return events + deriver.finish(last_t + 2.0)


@pytest.mark.parametrize("noise_mm", [0.0, 1.5])
def test_moves_match_the_script(noise_mm: float) -> None:
    events = _derive_all(noise_mm)
    moves = {e.payload["base"]: e.payload for e in events if e.kind == "move"}
    scenario = demo_scenario()
    start = {b["id"]: b for b in scenario["bases"]}
    assert set(moves) == {m.base for m in demo_script()}
    for m in demo_script():
        got = moves[m.base]
        s = start[m.base]
        assert got["from"] == {"x_mm": s["x_mm"], "y_mm": s["y_mm"],
                               "heading_deg": s["heading_deg"]}
        assert got["to"]["x_mm"] == pytest.approx(s["x_mm"] + m.dx_mm, abs=0.01)
        assert got["to"]["y_mm"] == pytest.approx(s["y_mm"] + m.dy_mm, abs=0.01)
        assert got["turned_deg"] == pytest.approx(m.turn_deg, abs=0.01)
        assert got["unit"] == "in"
        assert got["distance"] == pytest.approx(m.distance_mm / MM_PER_IN, abs=0.01)
        assert got["path_length"] >= got["distance"] - 1e-9
        if noise_mm == 0:
            assert got["path_length"] == pytest.approx(got["distance"], abs=0.01)
        assert got["allowance"] == EXPECTED_ALLOWANCE[m.base]
        assert got["exceeded"] is (got["furthest"] > EXPECTED_ALLOWANCE[m.base] + 0.12)
        assert got["t_start"] == pytest.approx(m.t_start, abs=0.11)
        assert got["t_end"] == pytest.approx(m.t_start + m.duration, abs=0.11)
        assert got["path_mm"][0] == [s["x_mm"], s["y_mm"]]
    assert moves["a-3"]["exceeded"] and moves["a-4"]["exceeded"]
    assert moves["a-4"]["allowance_basis"]["terrain"] == ["wood"]
    assert not moves["a-1"]["exceeded"] and not moves["b-1"]["exceeded"]
    assert moves["a-2"]["furthest"] > moves["a-2"]["distance"]  # the turn moves a corner further


def test_charge_into_contact_is_recorded_with_its_aspect() -> None:
    events = _derive_all()
    contacts = [e for e in events if e.kind == "contact"]
    charges = [e for e in events if e.kind == "charge"]
    assert [c.payload["bases"] for c in contacts] == [["a-1", "b-1"]]
    assert contacts[0].payload["aspects"] == {"a-1": "front", "b-1": "front"}
    # stamped with the turn and phase the demo's states announce
    assert [c.payload for c in charges] == [
        {"charger": "b-1", "target": "a-1", "aspect": "front", "legal": True, "turn": 1,
         "phase": "movement"}]
    charge_move = demo_script()[3]
    assert charges[0].t == pytest.approx(charge_move.t_start + charge_move.duration, abs=0.11)


def test_contact_broken_when_the_charger_falls_back() -> None:
    deriver = EventDeriver()
    played = list(play(demo_scenario(), demo_script()))
    for t, state in played:
        deriver.update(t, state)
    back = copy.deepcopy(played[-1][1])
    for b in back["bases"]:
        if b["id"] == "b-1":
            b["y_mm"] += 100
    events = deriver.update(played[-1][0] + 0.1, back)
    assert [(e.kind, e.payload["bases"]) for e in events] == [("contact_broken", ["a-1", "b-1"])]


def test_a_failed_analysis_does_not_break_contacts() -> None:
    deriver = EventDeriver()
    played = list(play(demo_scenario(), demo_script()))
    for t, state in played:
        deriver.update(t, state)
    last_t, last = played[-1]
    failed = {"ruleset": "italia-se-desta", "bases": {}, "error": "bad setting"}
    assert [e.kind for e in deriver.update(last_t + 0.1, last, failed)] == []
    assert [e.kind for e in deriver.update(last_t + 0.2, copy.deepcopy(last))] == []


def test_presence_and_losses_and_turns() -> None:
    prev = demo_scenario()
    state = copy.deepcopy(prev)
    state["bases"] = [b for b in state["bases"] if b["id"] != "a-1"]
    state["bases"][0]["stale"] = True
    state["bases"][1]["traits"]["losses"] = 2
    state["bases"].append({**prev["bases"][0], "id": "a-9"})
    state["turn"], state["phase"] = 2, "fire"
    kinds = {(e.kind, e.payload.get("base")) for e in presence_events(prev, state, 1.0)}
    assert kinds == {("appeared", "a-9"), ("disappeared", "a-1"), ("stale", "b-1")}
    fresh = presence_events(state, prev, 2.0)
    assert ("fresh", "b-1") in {(e.kind, e.payload.get("base")) for e in fresh}
    losses = loss_events(prev, state, 1.0)
    assert [e.payload for e in losses] == [
        {"base": "a-2", "side": "A", "losses": 2, "previous": 0, "turn": 2}]
    assert [(e.kind, e.payload) for e in turn_phase_events(prev, state, 1.0)] == [
        ("turn", {"turn": 2}), ("phase", {"phase": "fire", "turn": 2})]
    assert contact_events(None, None, 0.0) == []


def test_lifted_base_put_down_elsewhere_is_one_move() -> None:
    deriver = EventDeriver(summarize=None)
    s0 = demo_scenario()
    deriver.update(0.0, s0)
    gone = copy.deepcopy(s0)
    gone["bases"] = gone["bases"][1:]
    back = copy.deepcopy(s0)
    back["bases"][0]["y_mm"] += 50
    events = deriver.update(1.0, gone) + deriver.update(2.0, back) + deriver.update(4.0, back)
    assert [e.kind for e in events] == ["disappeared", "appeared", "move"]
    assert events[-1].payload["distance"] == pytest.approx(2.0)


def test_a_hand_over_a_moving_base_does_not_cut_its_move() -> None:
    """The base goes stale mid-move (its pose frozen) for 2 s: still one move, to where it
    is seen again and comes to rest."""
    deriver = EventDeriver(summarize=None)
    s0 = demo_scenario()
    deriver.update(0.0, s0)

    def at(t: float, dy: float, stale: bool = False) -> list:
        s = copy.deepcopy(s0)
        s["bases"][0]["y_mm"] += dy
        if stale:
            s["bases"][0]["stale"] = True
        return deriver.update(t, s)

    events = at(0.1, 10) + at(0.2, 20) + at(0.3, 20, stale=True) + at(2.5, 20, stale=True)
    assert [e.kind for e in events] == ["stale"]  # no move yet: it may be moving unseen
    events = at(2.6, 80) + at(2.7, 100) + at(3.0, 100) + at(4.5, 100)
    assert [e.kind for e in events] == ["fresh", "move"]
    move = events[-1].payload
    assert move["distance"] == pytest.approx(4.0) and move["t_end"] == pytest.approx(2.7)


def test_umpire_turn_marker_is_not_duplicated() -> None:
    deriver = EventDeriver(summarize=None)
    deriver.update(0.0, demo_scenario())  # turn 1 from the state
    assert deriver.admit_external("turn", {"turn": 1}) is None
    assert deriver.admit_external("turn", {"text": ""}) == {"turn": 2}  # "Next turn"
    assert deriver.admit_external("phase", {"phase": "fire"}) == {"phase": "fire", "turn": 2}
    assert deriver.admit_external("phase", {"phase": "fire"}) is None
    # a note carries the turn and phase in play
    assert deriver.admit_external("note", {"text": "rain"}) == {"text": "rain", "turn": 2, "phase": "fire"}


def test_recorder_ends_moves_on_the_clock(tmp_path: Path) -> None:
    """Live: with no new state, a move is closed SETTLE_S after the base stops."""
    path = tmp_path / "g.db"
    s0 = demo_scenario()
    s1 = copy.deepcopy(s0)
    s1["bases"][0]["y_mm"] += 75
    with Recorder(path) as rec:
        rec.record_state({**s0, "analysis": {"bases": {}}})
        rec.record_state({**s1, "analysis": {"bases": {}}})
        time.sleep(2.2)
        rec.flush()
        with open_recording(path) as reader:
            moves = reader.events({"move"})
        assert len(moves) == 1 and moves[0].data["distance"] == pytest.approx(3.0)


# --- every ruleset: the allowance comes from Ruleset.movement_allowance -----------------------
def _base(id_: str, type_: str, x: float, **traits: object) -> dict:
    return {"id": id_, "side": "A", "type": type_, "x_mm": x, "y_mm": 300.0, "heading_deg": 90.0,
            "width_mm": 40.0, "depth_mm": 20.0, "traits": dict(traits)}


ROUGH = {"id": "rough-1", "kind": "rough",
         "polygon_mm": [[900, 330], [1300, 330], [1300, 600], [900, 600]]}


def _moves(ruleset: str, bases: list[dict], script: list[ScriptedMove],
           settings: dict | None = None) -> dict[str, dict]:
    scenario = {"ruleset": ruleset, "table": {"width_mm": 1800.0, "depth_mm": 1200.0},
                "terrain": [ROUGH], "bases": bases, "settings": settings, "turn": 1}
    deriver = EventDeriver()
    events, last_t = [], 0.0
    for t, st in play(scenario, script):
        events += deriver.update(t, st)
        last_t = t
    events += deriver.finish(last_t + 2.0)
    return {e.payload["base"]: e.payload for e in events if e.kind == "move"}


def test_federico_moves_carry_their_allowance() -> None:
    """Federico "Movimenti": infantry in line 9 cm, march column 12 cm, halved on broken ground
    (F16) except Light Infantry."""
    bases = [_base("inf", "infantry", 100), _base("far", "infantry", 300),
             _base("col", "infantry", 500, formation="march_column"),
             _base("rough", "infantry", 1000), _base("light", "infantry", 1200, light=True)]
    moves = _moves("federico", bases, [
        ScriptedMove("inf", 0.5, 1.0, 0.0, 80.0),       # 8 of 9 cm
        ScriptedMove("far", 0.5, 1.0, 0.0, 110.0),      # 11 of 9 cm: exceeded
        ScriptedMove("col", 0.5, 1.0, 0.0, 110.0),      # 11 of 12 cm
        ScriptedMove("rough", 0.5, 1.0, 0.0, 60.0),     # 6 of 4.5 cm (into rough): exceeded
        ScriptedMove("light", 0.5, 1.0, 0.0, 60.0),     # light infantry: 6 of 9 cm
    ])
    got = {b: (m["unit"], m["distance"], m["allowance"], m["exceeded"]) for b, m in moves.items()}
    assert got == {"inf": ("cm", 8.0, 9.0, False), "far": ("cm", 11.0, 9.0, True),
                   "col": ("cm", 11.0, 12.0, False), "rough": ("cm", 6.0, 4.5, True),
                   "light": ("cm", 6.0, 9.0, False)}
    basis = moves["rough"]["allowance_basis"]
    assert basis["terrain"] == ["rough"] and basis["formation"] is None
    assert basis["text"] == "infantry in line, rough: half of 9 cm"
    assert basis["cites"] == ['Federico "Movimenti"', "Federico F16"] and basis["gap"] is False


def test_attila_moves_carry_their_allowance_and_gap() -> None:
    """ATTILA: troop rates are the group's settings (ATT AT11, gap); the General's 24 cm is the
    rulebook's (ATT 5.E); mounted units may not enter woods — here the rough ground stops, it
    does not shorten (ATT 5.B, 5.F)."""
    bases = [_base("fp", "FP", 100), _base("cl", "CL", 300), _base("gen", "general", 500),
             _base("camp", "camp", 700), _base("rough", "FP", 1000)]
    script = [
        ScriptedMove("fp", 0.5, 1.0, 0.0, 90.0),        # 9 of 10 cm
        ScriptedMove("cl", 0.5, 1.0, 0.0, 300.0),       # 30 of 24 cm: exceeded
        ScriptedMove("gen", 0.5, 1.0, 0.0, 200.0),      # 20 of 24 cm
        ScriptedMove("camp", 0.5, 1.0, 0.0, 50.0),      # the Camp never moves (ATT 8.B)
        ScriptedMove("rough", 0.5, 1.0, 0.0, 90.0),     # into rough: 9 of 10 cm
    ]
    moves = _moves("attila", bases, script)
    got = {b: (m["unit"], m["distance"], m["allowance"], m["exceeded"],
               m["allowance_basis"]["gap"]) for b, m in moves.items()}
    assert got == {"fp": ("cm", 9.0, 10.0, False, True), "cl": ("cm", 30.0, 24.0, True, True),
                   "gen": ("cm", 20.0, 24.0, False, False),
                   "camp": ("cm", 5.0, 0.0, True, False),
                   "rough": ("cm", 9.0, 10.0, False, True)}
    assert moves["camp"]["allowance_basis"]["cites"] == ["ATT 8.B"]
    assert "stops the unit" in moves["rough"]["allowance_basis"]["text"]
    # the scenario's settings are the group's numbers: a shorter FP move is now exceeded
    slower = _moves("attila", bases, script[:1], settings={"move_cm_fp": 8.0})
    assert (slower["fp"]["allowance"], slower["fp"]["exceeded"]) == (8.0, True)


def test_a_state_the_engine_rejects_is_measured_in_mm_without_allowance() -> None:
    s0 = {**demo_scenario(), "ruleset": "chess"}
    start = s0["bases"][0]
    end = {**start, "y_mm": start["y_mm"] + 50.0}
    got = measure_move(s0, start, end, [])
    assert (got["unit"], got["distance"], got["allowance"], got["exceeded"]) == \
        ("mm", 50.0, None, None)
    assert "unknown ruleset 'chess'" in got["allowance_basis"]["why"]
