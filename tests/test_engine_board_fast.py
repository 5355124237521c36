"""The quicker set-up of every analysis gives the same values as the plain way.

`Rect` sets its fields in one dict update, `RectTable` reads one flat list, `classify` builds
`UnitInfo` without the frozen dataclass's per-field setattr, `GameState._polygons` reads flat
corners, and the placement warnings measure overlaps in numpy (GEOS near a boundary): each
checked here against the plain computation, bit for bit where floats are kept.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import shapely

from campo.engine.geometry.contact import RectTable, shared_lengths, shared_lengths_many
from campo.engine.geometry.rect import Rect
from campo.engine.ruleset import OVERLAP_REPORTED_MM2, placement_problems
from campo.engine.rulesets.italia.pieces import UnitInfo, classify
from campo.engine.scenario import BaseState
from campo.engine.state import GameState


def _random_rects(seed: int, n: int) -> list[Rect]:
    rng = np.random.default_rng(seed)
    return [Rect(float(rng.uniform(-50, 1800)), float(rng.uniform(-50, 1200)),
                 float(rng.choice([0.0, 90.0, 180.0, 270.0, rng.uniform(0, 360)])),
                 float(rng.choice([25.0, 40.0, 80.0])), float(rng.choice([30.0, 40.0])))
            for _ in range(n)]


def test_rect_fields_frames_and_corners() -> None:
    for r in _random_rects(1, 200):
        a = math.radians(r.heading_deg)
        f = (math.cos(a), math.sin(a))
        right = (f[1], -f[0])
        hw, hd = r.width / 2, r.depth / 2
        assert r.front == f and r.right == right
        assert r.front_left == (r.cx - hw * right[0] + hd * f[0], r.cy - hw * right[1] + hd * f[1])
        assert r.rear_right == (r.cx + hw * right[0] - hd * f[0], r.cy + hw * right[1] - hd * f[1])
        assert r.front_centre == (r.cx + hd * f[0], r.cy + hd * f[1])
    r = Rect(1.0, 2.0, 30.0, 80.0, 40.0)
    twin = Rect(1.0, 2.0, 30.0, 80.0, 40.0)
    assert r == twin and hash(r) == hash(twin)
    assert r != Rect(1.0, 2.0, 31.0, 80.0, 40.0)
    assert repr(r) == "Rect(cx=1.0, cy=2.0, heading_deg=30.0, width=80.0, depth=40.0)"
    assert [f.name for f in dataclasses.fields(r) if f.init] == \
        ["cx", "cy", "heading_deg", "width", "depth"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.cx = 5.0   # type: ignore[misc]


def test_rect_table_is_each_rect() -> None:
    rects = _random_rects(2, 150)
    table = RectTable(rects)
    assert np.array_equal(table.corners, np.array([r.corners for r in rects], dtype=float))
    assert np.array_equal(table.frames, np.array(
        [(r.cx, r.cy, *r.right, *r.front, r.width / 2, r.depth / 2) for r in rects]))
    lengths = [[math.hypot(q[0] - p[0], q[1] - p[1])
                for p, q in zip(r.corners, r.corners[1:] + r.corners[:1])] for r in rects]
    assert np.array_equal(table.lengths, np.array(lengths))
    assert RectTable([]).corners.shape == (0, 4, 2)
    # touching and overlapping pairs: the table's clipping is `shared_lengths`, pair by pair
    a = [Rect(100.0, 100.0, h, 80.0, 40.0) for h in (0.0, 90.0, 33.0)]
    b = [Rect(*x.from_local(80.0 + d, 0.0), x.heading_deg, 80.0, 40.0)
         for x in a for d in (0.0, 0.4, -3.0)]
    a = [x for x in a for _ in range(3)]
    many = shared_lengths_many(a, b, 2.5)
    for row, x, y in zip(many.tolist(), a, b):
        assert row == list(shared_lengths(x, y, 2.5).values())


def _base(type_: str, traits: dict, stale: bool = False) -> BaseState:
    return BaseState.model_validate({"id": "q", "side": "B", "type": type_, "x_mm": 1.0,
                                     "y_mm": 2.0, "heading_deg": 0.0, "width_mm": 40.0,
                                     "depth_mm": 40.0, "traits": traits, "stale": stale})


def test_classify_reads_every_trait() -> None:
    info = classify(_base("gun", {"limbered": 1, "horse": True, "battery": "reserve",
                                  "division": "d1", "losses": None, "quality": "elite"},
                          stale=True))
    assert info == UnitInfo(
        id="q", side="B", kind="gun", arm="artillery", letter=None, light=False,
        march_column=False, limbered=True, horse=True, rockets=False, battery="reserve",
        division="d1", rank=None, commands=(), quality="elite", disordered=False,
        shaken=False, losses=0, attached_to=None, stale=True, dispersed=False)
    info = classify(_base("general", {"commands": "d2", "rank": None}), "march_column")
    assert info == UnitInfo(
        id="q", side="B", kind="general", arm="general", letter=None, light=False,
        march_column=True, limbered=False, horse=False, rockets=False, battery="divisional",
        division=None, rank="division", commands=("d2",), quality=None, disordered=False,
        shaken=False, losses=0, attached_to=None, stale=False, dispersed=False)
    info = classify(_base("C", {"light": 1, "formation": "line", "commands": ["a", "b"],
                                "rank": "corps", "disordered": True, "shaken": 1, "losses": 2,
                                "attached_to": "g1", "rockets": True}), "march_column")
    assert info == UnitInfo(
        id="q", side="B", kind="unit", arm="cavalry", letter="C", light=True,
        march_column=False, limbered=False, horse=False, rockets=True, battery="divisional",
        division=None, rank=None, commands=("a", "b"), quality=None, disordered=True,
        shaken=True, losses=2, attached_to="g1", stale=False, dispersed=False)
    # the same kind of instance as the dataclass's own __init__ builds
    plain = UnitInfo(**info.__dict__)
    assert repr(plain) == repr(info) and hash(plain) == hash(info)
    assert type(info.light) is bool and type(info.losses) is int
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.side = "A"   # type: ignore[misc]


def _state(rects: list[Rect], width: float = 1800.0, depth: float = 1200.0) -> GameState:
    return GameState.from_dict({
        "ruleset": "italia-se-desta", "table": {"width_mm": width, "depth_mm": depth},
        "bases": [{"id": f"b{k:03d}", "side": "AB"[k % 2], "type": "B", "x_mm": r.cx,
                   "y_mm": r.cy, "heading_deg": r.heading_deg, "width_mm": r.width,
                   "depth_mm": r.depth} for k, r in enumerate(rects)]})


def test_state_polygons_are_the_rects() -> None:
    state = _state(_random_rects(3, 80))
    polygons = state._polygons()
    for poly, i in zip(polygons, state.ids):
        want = shapely.polygons(state.rect(i).corners)
        assert np.array_equal(shapely.get_coordinates(poly), shapely.get_coordinates(want))
        assert state.rect(i).polygon is poly
    assert state._polygons() == polygons   # kept on the rectangles


def _pairs(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    first, second = [], []
    for _ in range(n):
        a = Rect(float(rng.uniform(0, 100)), float(rng.uniform(0, 100)),
                 float(rng.choice([0.0, 90.0, rng.uniform(0, 360)])),
                 float(rng.choice([25.0, 40.0, 80.0])), float(rng.choice([30.0, 40.0])))
        b = Rect(a.cx + float(rng.uniform(-60, 60)), a.cy + float(rng.uniform(-40, 40)),
                 float(rng.choice([0.0, 90.0, rng.uniform(0, 360)])),
                 float(rng.choice([25.0, 40.0, 80.0])), float(rng.choice([30.0, 40.0])))
        first.append(a.polygon)
        second.append(b.polygon)
    # boundaries: exactly the reported area, half a mm² (rounding), touching, inside, apart
    a = Rect(0.0, 0.0, 0.0, 80.0, 40.0)
    for other in (Rect(*a.from_local(0.0, 40.0 - 25.0 / 80.0), 0.0, 80.0, 40.0),
                  Rect(*a.from_local(0.0, 40.0 - 30.5 / 80.0), 0.0, 80.0, 40.0),
                  Rect(*a.from_local(80.0, 0.0), 0.0, 80.0, 40.0),
                  Rect(0.0, 0.0, 17.0, 20.0, 10.0), Rect(500.0, 0.0, 0.0, 80.0, 40.0)):
        first.append(a.polygon)
        second.append(other.polygon)
    return np.array(first), np.array(second)


def test_placement_problems_as_geos_says() -> None:
    rects = _random_rects(5, 120) + [Rect(-5.0, 600.0, 0.0, 80.0, 40.0)]
    state = _state(rects)
    problems = [(p.key, p.message) for p in placement_problems(state)]
    shapes = {i: state.rect(i).polygon for i in state.ids}
    table = shapely.box(-1.0, -1.0, 1801.0, 1201.0)
    want = [(f"bases({i})", "base lies partly off the table") for i in state.ids
            if not table.covers(shapes[i])]
    for a, b in state.index.pairs_within(0.0):
        area = shapes[a].intersection(shapes[b]).area
        if area > OVERLAP_REPORTED_MM2:
            want.append((f"bases({a},{b})", f"{a} and {b} overlap by {area:.0f} mm²"))
    assert problems == want
    assert sum(1 for key, _ in problems if "," in key) > 5
