"""ATTILA in a live game (the Ruleset protocol's per-base and table-level members): the compact
summaries and their honest reach, the table-level facts, verdicts too close to call held steady,
and charge outcomes remembered across moments that always equal a fresh analysis."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from campo import engine
from campo.engine.live import LiveAnalysis
from campo.engine.registry import get_ruleset
from campo.engine.rulesets.attila.deck import DeckTool
from campo.engine.rulesets.attila.memory import GroupMemory
from campo.engine.state import GameState
from tests.bench_modules import bench_module

ATTILA = get_ruleset("attila")


def B(i: str, side: str, t: str, x: float, y: float, h: float, w: float = 40, d: float = 20,
      **traits: Any) -> dict[str, Any]:
    return {"id": i, "side": side, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def scenario(bases: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return {"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200}, "bases": bases,
            **kw}


def test_summaries_hold_the_cheap_local_facts() -> None:
    bases = [B("cav", "A", "CP", 900, 400, 90, d=30, group="g"),           # must charge 'foe'
             B("cav2", "A", "CP", 940, 400, 90, d=30, group="g"),
             B("back", "A", "CP", 900, 370, 90, d=30, group="g"),          # behind cav: support
             B("gen", "A", "general", 900, 200, 90, 40, 40, wounded=True),
             B("foe", "B", "FP", 900, 565, 270),
             B("hit", "B", "FP", 940, 425.5, 270, disordered=True)]        # touches cav2's front
    state = GameState.from_dict(scenario(bases))
    got = ATTILA.summaries(state, [b["id"] for b in bases])
    assert got["cav"] == {"commanded_by": ["gen"], "supported_by": ["back"],
                          "badges": ["must charge"]}
    assert got["cav2"]["contacts"] == {"hit": "front"} and "badges" not in got["cav2"]
    assert got["hit"] == {"contacts": {"cav2": "front"}, "badges": ["disordered"]}
    assert got["gen"] == {"badges": ["wounded"]}
    whole = state.analyze()
    board = ATTILA.board_summary(state)
    assert board == {k: whole[k] for k in ("groups", "group_splits", "mandatory_charges",
                                           "control_points", "army_morale", "victory")} | {
        "deployment": {k: v for k, v in whole["deployment"].items()
                       if k not in ("bases", "terrain")}}   # the page draws the zones


def _battle() -> dict[str, Any]:
    return bench_module("battles").dense_battle("attila", 50, seed=3)


def test_summary_reach_is_honest() -> None:
    """A base moved anywhere changes no summary of a base farther than `summary_reach_mm` from
    where it was and where it is (LiveAnalysis re-summarises only those)."""
    rng = random.Random(4)
    before = _battle()
    state = GameState.from_dict(before)
    reach = ATTILA.summary_reach_mm(state)
    old = ATTILA.summaries(state, state.ids)
    for _ in range(6):
        after = copy.deepcopy(before)
        moved = rng.choice(after["bases"])
        moved["x_mm"] += rng.uniform(-150, 150)
        moved["y_mm"] += rng.uniform(-150, 150)
        moved["heading_deg"] = (moved["heading_deg"] + rng.uniform(-40, 40)) % 360
        new_state = GameState.from_dict(after)
        new = ATTILA.summaries(new_state, new_state.ids)
        was, now = state.rect(moved["id"]).polygon, new_state.rect(moved["id"]).polygon
        for i in state.ids:
            poly = state.rect(i).polygon
            if poly.distance(was) > reach and poly.distance(now) > reach:
                assert new[i] == old[i], (moved["id"], i)


def test_a_live_game_remembers_charges_and_always_agrees_with_a_fresh_analysis() -> None:
    """Charge outcomes kept from one moment to the next (charges.OutcomeMemo) give exactly the
    answers of a fresh analysis, whatever moves: units pushed into and out of each other's
    paths, turned, lost by the camera and found again."""
    rng = random.Random(9)
    game = _battle()
    live = LiveAnalysis()
    live.update(game)
    ids = [b["id"] for b in game["bases"]]
    for step in range(8):
        unit = rng.choice(ids).rsplit("-", 1)[0]
        dx, dy, turn = rng.uniform(-60, 60), rng.uniform(-60, 60), rng.choice([0, 0, 15, -20])
        for b in game["bases"]:
            if b["id"].rsplit("-", 1)[0] == unit:
                b["x_mm"] += dx
                b["y_mm"] += dy
                b["heading_deg"] = (b["heading_deg"] + turn) % 360
        if step == 5:
            game["bases"][3]["stale"] = True
        snap = live.update(copy.deepcopy(game))
        fresh = engine.analyze(game)
        assert snap.summary["board"]["mandatory_charges"] == fresh["mandatory_charges"], step
        for i in rng.sample(ids, 6):
            assert snap.base_analysis(i)["charges"] == fresh["bases"][i]["charges"], (step, i)


def test_a_summary_after_an_update_equals_a_cold_one() -> None:
    """A live game re-summarises only the bases a change reaches and reuses the rest (the
    summaries, the rectangles, the charge outcomes): after every update its summary (bases,
    table-level facts, problems) is that of a cold analysis of the same moment."""
    rng = random.Random(11)
    game = _battle()
    live = LiveAnalysis()
    live.update(game)
    units = sorted({b["id"].rsplit("-", 1)[0] for b in game["bases"]})
    for step in range(8):
        unit = rng.choice(units)
        toward = rng.uniform(20, 60)
        for b in game["bases"]:
            if b["id"].rsplit("-", 1)[0] == unit:
                b["y_mm"] += toward if b["side"] == "A" else -toward
                b["x_mm"] += rng.choice([0.0, 0.0, 7.5])
        if step == 3:
            game["bases"][5]["traits"]["disordered"] = True
        if step == 6:
            game["bases"][8]["stale"] = True
        snap = live.update(game)
        cold = LiveAnalysis().update(game)
        assert snap.changed != frozenset(game_ids(game)), step      # not everything redone
        assert snap.summary == cold.summary, step


def game_ids(game: dict[str, Any]) -> list[str]:
    return [b["id"] for b in game["bases"]]


CAV = B("c", "A", "CP", 900, 400, 90, d=30)                 # front edge y = 415, moves 20 cm


def _charge(live: LiveAnalysis, gap_mm: float) -> dict[str, Any]:
    foe = B("t", "B", "FP", 900, 415 + gap_mm + 10, 270)
    return live.update(scenario([CAV, foe])).base_analysis("c")["charges"][0]


def test_a_charge_too_close_to_call_keeps_its_last_verdict() -> None:
    live = LiveAnalysis()
    assert _charge(live, 199.5)["legal"]                       # 0.5 mm to spare
    held = _charge(live, 200.5)                                # 0.5 mm short: held
    assert held["legal"] and held["close_calls"] == ["reach"]
    out = _charge(live, 202.0)                                 # 2 mm short: out
    assert not out["legal"] and "close_calls" not in out
    again = _charge(live, 199.5)                               # back within: held out
    assert not again["legal"] and again["close_calls"] == ["reach"]
    assert again["reasons"][-1].endswith("; too close to call: measure")
    # a one-off analysis takes the measured side, and says so
    alone = engine.analyze(scenario([CAV, B("t", "B", "FP", 900, 625.5, 270)]))
    assert not alone["bases"]["c"]["charges"][0]["legal"]


def test_contact_too_close_to_call_is_held() -> None:
    def contacts(live: LiveAnalysis, gap: float) -> list[dict[str, Any]]:
        foe = B("t", "B", "FP", 900, 415 + gap + 10, 270)
        return live.update(scenario([CAV, foe])).base_analysis("c")["contacts"]

    live = LiveAnalysis()
    assert contacts(live, 1.5)[0]["close_calls"] == ["contact"]     # within 2 mm, 0.5 from it
    held = contacts(live, 2.5)
    assert [c["id"] for c in held] == ["t"] and held[0]["close_calls"] == ["contact"]
    assert contacts(live, 3.8) == []                                # clearly apart
    assert contacts(live, 2.5) == []                                # held apart now
    assert contacts(live, 0.5) == [{"id": "t", "aspect": "front", "side": "front"}]


def test_a_live_game_brings_its_memory_and_deck() -> None:
    assert isinstance(ATTILA.memory(), GroupMemory)
    deck = ATTILA.umpire_tool(7)
    assert isinstance(deck, DeckTool) and deck.view()["seed"] == 7


@pytest.mark.parametrize("base", ["c", "t"])
def test_one_base_alone_equals_the_whole_table(base: str) -> None:
    sc = scenario([CAV, B("t", "B", "FP", 900, 565, 270, missile="javelins")])
    state = GameState.from_dict(sc)
    assert ATTILA.analyze(state, [base])["bases"][base] == engine.analyze(sc)["bases"][base]


def _unit(game: dict[str, Any], unit: str) -> list[dict[str, Any]]:
    return [b for b in game["bases"] if b["id"].rsplit("-", 1)[0] == unit]


def _forward(mm: float) -> Any:
    def step(game: dict[str, Any], unit: str) -> None:
        for b in _unit(game, unit):
            b["y_mm"] += mm if b["side"] == "A" else -mm
    return step


def _removed(game: dict[str, Any], base: str) -> None:
    game["bases"] = [b for b in game["bases"] if b["id"] != base]


def _disordered(game: dict[str, Any], base: str) -> None:
    next(b for b in game["bases"] if b["id"] == base)["traits"]["disordered"] = True


def _stale(game: dict[str, Any], base: str) -> None:
    next(b for b in game["bases"] if b["id"] == base)["stale"] = True


def _rolled(game: dict[str, Any], base: str) -> None:
    game["armies"] = {"A": {"move_rolls": {base: 4}}}


def _regrouped(game: dict[str, Any], base: str) -> None:
    next(b for b in game["bases"] if b["id"] == base)["traits"]["group"] = "another"


def _straight_only(game: dict[str, Any], _: str) -> None:
    game["settings"] = {"at26_charge_reach": "straight_only"}


@pytest.mark.slow
def test_obligations_taken_over_equal_a_cold_analysis() -> None:
    """What each obliged base must charge (ATT 13) is judged again only where a change can
    reach it and taken over from the moment before elsewhere (`mandatory._taken_over`): at
    every moment of a live game (moves far from and near the cavalry, a target removed and put
    back, bases disordered and lost, a group label changed, the Generals moved, a move roll, a
    settings change) the summaries (contacts, command, support) and
    ``mandatory_charges`` are those of a cold analysis, and a move far from every obliged base
    judges none of their charges again."""
    game = bench_module("battles").dense_battle("attila", 100)
    bu5_1 = copy.deepcopy(next(b for b in game["bases"] if b["id"] == "Bu5-1"))
    steps = [(_forward(40), "Au1"), (_forward(-40), "Bu1"), (_forward(30), "Bu5"),
             (_forward(25), "Au8"), (_removed, "Bu5-1"),
             (lambda g, _: g["bases"].append(copy.deepcopy(bu5_1)), ""),
             (_disordered, "Au6-1"), (_disordered, "Bu5-2"), (_stale, "Au5-3"),
             (_forward(15), "Au6"), (_regrouped, "Au6-2"), (_forward(30), "A"),
             (_rolled, "Au5-1"), (_forward(40), "Au2"),
             (_straight_only, ""), (_forward(20), "Au5"), (_forward(-40), "Au1")]
    live = LiveAnalysis()
    live.update(game)
    for n, (change, what) in enumerate(steps):
        change(game, what)
        snap = live.update(game)
        cold = LiveAnalysis().update(game)
        assert snap.summary == cold.summary, (n, what)
        must = snap.summary["board"]["mandatory_charges"]
        assert must, n
        judged = {c for c, _ in snap.state.cached("attila.charges", dict)}
        if what in ("Au1", "Bu1", "Au2"):     # 60 cm and more from every obliged base
            assert not judged & {e["base"] for e in must}, n
        else:
            assert judged, n
