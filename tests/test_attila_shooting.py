"""Shooting under ATTILA, hand-derived (ATT 6.A-C, ATT T; readings AT4-AT9).

A 40 x 20 mm bow base at (900, 400) faces +y: its front edge runs from (880, 410) to (920, 410).
"""

from __future__ import annotations

from typing import Any

import pytest

from campo.engine.state import GameState


def B(i: str, side: str, t: str, x: float, y: float, h: float, w: float = 40, d: float = 20,
      **traits: Any) -> dict[str, Any]:
    return {"id": i, "side": side, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def S(bases: list, terrain: tuple = (), **kw: Any) -> GameState:
    return GameState.from_dict({"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
                                "terrain": list(terrain), "bases": bases, **kw})


def shooter(weapon: str = "bows", **traits: Any) -> dict[str, Any]:
    return B("s", "A", "FL", 900, 400, 90, missile=weapon, **traits)


def target_at(gap_mm: float, x: float = 900, t: str = "FL", **traits: Any) -> dict[str, Any]:
    """An enemy facing the shooter whose front edge is ``gap_mm`` beyond the shooter's front."""
    return B("t", "B", t, x, 410 + gap_mm + 10, 270, **traits)


def targets(state: GameState, base: str = "s") -> dict[str, dict]:
    return {t["id"]: t for t in state.analyze()["bases"][base]["targets"]}


@pytest.mark.parametrize("gap_mm, band, in_range", [
    (49.0, "short", True),     # < 5 cm
    (50.0, "medium", True),    # 5-10 cm inclusive (ATT 6.A «tra 5 e 10 cm (inclusi)»)
    (100.0, "medium", True),
    (101.0, "long", True),     # «oltre 10 cm»
    (150.0, "long", True),     # 15 cm bows maximum, inclusive (ATT T, AT6)
    (151.0, None, False),
])
def test_bow_bands(gap_mm: float, band: str | None, in_range: bool) -> None:
    t = targets(S([shooter(), target_at(gap_mm)]))["t"]
    assert t["distance"] == pytest.approx(gap_mm / 10)
    assert t["band"] == band and t["in_range"] is in_range and t["in_arc"] is True
    assert t["legal"] is in_range


def test_summary_table_band_reading() -> None:
    st = S([shooter(), target_at(105.0)], settings={"at6_band_edges": "summary_table"})
    assert targets(st)["t"]["band"] == "medium"           # ATT T «Lunga, 11cm o più»


@pytest.mark.parametrize("weapon, max_cm", [("javelins", 5.0), ("slings", 10.0), ("bows", 15.0)])
def test_maximum_ranges(weapon: str, max_cm: float) -> None:
    at_max = targets(S([shooter(weapon), target_at(max_cm * 10)]))["t"]
    assert at_max["in_range"] and at_max["legal"]
    beyond = targets(S([shooter(weapon), target_at(max_cm * 10 + 2)]))
    # still listed while in the arc (within twice the range), but not in range
    assert not beyond["t"]["in_range"] and not beyond["t"]["legal"]


def test_score_needed_and_dice() -> None:
    t = targets(S([shooter(), target_at(30)]))["t"]
    assert (t["die"], t["score_needed"]) == ("d8", 5)      # ATT T: bows D8, short 5
    t = targets(S([shooter("slings", disordered=True), target_at(70)]))["t"]
    assert (t["die"], t["score_needed"]) == ("d4", 6)      # ATT 8.A one die smaller


def test_arc_edge_is_30_degrees_from_the_front_corner() -> None:
    # Right ray from (920, 410) at 30° outward: x = 977.7 at y = 510 and 989.3 at y = 530.
    inside = targets(S([shooter(), B("t", "B", "FP", 975 + 20, 520, 270)]))["t"]
    assert inside["in_arc"] is True
    outside = targets(S([shooter(), B("t", "B", "FP", 992 + 20, 520, 270)]))["t"]
    assert outside["in_arc"] is False and outside["in_range"] is True
    assert outside["distance"] == pytest.approx(((72 ** 2 + 100 ** 2) ** 0.5) / 10, abs=0.01)
    assert outside["legal"] is False


def test_range_is_measured_to_the_part_in_arc() -> None:
    # Target x 940..1140, y 430..470: its nearest corner (940, 430) is outside the arc; the part in
    # arc starts where the right ray (from (920, 410), 30° out) crosses x = 940, at y = 444.6.
    tgt = B("t", "B", "FP", 1040, 450, 270, w=200, d=40)
    t = targets(S([shooter(), tgt]))["t"]
    assert t["distance"] == pytest.approx(4.0, abs=0.02)
    near = S([shooter(), tgt], settings={"at5_range_measure": "front_edge_to_nearest_point"})
    assert targets(near)["t"]["distance"] == pytest.approx((20 ** 2 + 20 ** 2) ** 0.5 / 10, abs=0.01)


def test_non_shooters_and_absent_enemies() -> None:
    st = S([B("s", "A", "FP", 900, 400, 90), target_at(30)])
    assert targets(st) == {}
    absent = target_at(30)
    absent["stale"] = True
    assert targets(S([shooter(), absent])) == {}


def test_troops_block_line_of_sight_but_generals_do_not() -> None:
    screen = B("x", "A", "FP", 900, 460, 90, w=120)     # friend wider than both, between them
    t = targets(S([shooter(), target_at(120), screen]))["t"]
    assert t["line_of_sight"] is False and t["legal"] is False
    gen = B("x", "A", "general", 900, 460, 90, w=120)
    assert targets(S([shooter(), target_at(120), gen]))["t"]["line_of_sight"] is True


def test_partial_screen_leaves_a_clear_line() -> None:
    screen = B("x", "A", "FP", 880, 460, 90, w=40)      # covers the left half only
    assert targets(S([shooter(), target_at(120), screen]))["t"]["line_of_sight"] is True


WOOD_BETWEEN = {"id": "w", "kind": "wood",
                "polygon_mm": [[700, 440], [1100, 440], [1100, 470], [700, 470]]}
HILL_BETWEEN = {"id": "h", "kind": "hill",
                "polygon_mm": [[700, 440], [1100, 440], [1100, 470], [700, 470]]}


@pytest.mark.parametrize("feature", [WOOD_BETWEEN, HILL_BETWEEN], ids=["wood", "hill"])
def test_woods_and_hills_block(feature: dict) -> None:
    t = targets(S([shooter(), target_at(120)], [feature]))["t"]
    assert t["line_of_sight"] is False


def test_shooting_out_of_a_wood_only_from_its_edge() -> None:
    wood = {"id": "w", "kind": "wood", "polygon_mm": [[800, 300], [1000, 300], [1000, 415],
                                                       [800, 415]]}
    # Front edge at y = 410, wood edge at 415: 0.5 cm, on the edge (AT8, 1 cm).
    t = targets(S([shooter(), target_at(60)], [wood]))["t"]
    assert t["line_of_sight"] is True and t["legal"]
    deep = dict(wood, polygon_mm=[[800, 300], [1000, 300], [1000, 440], [800, 440]])
    t = targets(S([shooter(), target_at(60)], [deep]))["t"]
    assert t["line_of_sight"] is False
    assert any("not on its edge" in r for r in t["reasons"])


def test_cover_and_heavy_saves_count_once() -> None:
    wood = {"id": "w", "kind": "wood", "polygon_mm": [[850, 505], [950, 505], [950, 600],
                                                       [850, 600]]}
    light_in_wood = targets(S([shooter(), target_at(100)], [wood]))["t"]
    assert light_in_wood["saves"] == ["cover"]
    heavy_in_wood = targets(S([shooter(), target_at(100, t="FP")], [wood]))["t"]
    assert heavy_in_wood["saves"] == ["cover"]                       # one save (AT9)
    twice = S([shooter(), target_at(100, t="FP")], [wood], settings={"at9_saves": "save_per_reason"})
    assert targets(twice)["t"]["saves"] == ["cover", "heavy"]
    assert targets(S([shooter(), target_at(100, t="FLP")]))["t"]["saves"] == []   # FLP not heavy
