"""Federico's array geometry against deliberately naive oracles built on GEOS: the convex-polygon
clearances (engine/rulesets/federico/convex.py) and the slides its attacks take
(`geometry.motion.convex_slides`) on random rectangles, and line of
sight (engine/rulesets/federico/sight.py) against every sampled line asked of GEOS one line at a
time, on random positions and a dense battle."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import given

from campo.engine.geometry.motion import convex_slides
from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.convex import margins
from campo.engine.rulesets.federico.fire import targets
from campo.engine.rulesets.federico.sight import Shots, _Judge, line_of_sight
from campo.engine.state import GameState
from tests.bench_modules import bench_module
from tests.ruleset_properties import property_settings
from tests.test_federico_properties import scenarios


def _rects(seed: int, n: int) -> list[tuple[Rect, Rect]]:
    """Pairs of rectangles: far apart, near, touching, overlapping, at odd angles."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a = Rect(rng.uniform(0, 300), rng.uniform(0, 300),
                 rng.choice([0.0, 90.0, 180.0, rng.uniform(0, 360)]), 40.0,
                 rng.choice([20.0, 30.0, 40.0]))
        if rng.random() < 0.6:
            b = Rect(a.cx + rng.choice([0.0, 20.0, 40.0, 30.0, -45.0, rng.uniform(-80, 80)]),
                     a.cy + rng.choice([0.0, 20.0, 30.0, 40.5, rng.uniform(-80, 80)]),
                     (a.heading_deg + rng.choice([0.0, 90.0, 180.0, 173.0])) % 360.0, 40.0, 20.0)
        else:
            b = Rect(rng.uniform(0, 300), rng.uniform(0, 300), rng.uniform(0, 360), 40.0, 20.0)
        out.append((a, b))
    return out


def _quads(rects: list[Rect]) -> np.ndarray:
    return np.array([r.corners for r in rects], dtype=float)


@pytest.mark.parametrize("seed", range(3))
def test_clearance_sign_and_size(seed: int) -> None:
    pairs = _rects(seed, 400)
    got = margins(_quads([a for a, _ in pairs]), _quads([b for _, b in pairs]))
    for (a, b), m in zip(pairs, got.tolist()):
        gap = float(shapely.distance(a.polygon, b.polygon))
        if m > 1e-9:       # overlapping by m: they share area, and no less than a strip m wide
            assert shapely.intersection(a.polygon, b.polygon).area > 0
        elif m < -1e-9:    # apart by at least -m
            assert gap >= -m - 1e-9
        else:
            assert gap < 1e-6


def test_clearance_of_hand_cases() -> None:
    a = Rect(0.0, 0.0, 90.0, 40.0, 20.0)              # x -20..20, y -10..10
    cases = [(Rect(50.0, 0.0, 90.0, 40.0, 20.0), -10.0),       # 10 mm to the right
             (Rect(35.0, 0.0, 90.0, 40.0, 20.0), 5.0),         # overlapping 5 mm
             (Rect(30.0, 0.0, 0.0, 40.0, 20.0), 0.0)]          # turned, touching at x = 20
    got = margins(_quads([a] * 3), _quads([b for b, _ in cases]))
    assert got.tolist() == pytest.approx([m for _, m in cases], abs=1e-9)


@pytest.mark.parametrize("seed", range(2))
def test_slides_stop_at_the_first_touch(seed: int) -> None:
    rng = random.Random(50 + seed)
    pairs = _rects(seed + 10, 150)
    turns = [rng.choice([0.0, 30.0, -45.0, rng.uniform(-60, 60)]) for _ in pairs]
    d = np.array([(math.cos(math.radians(a.heading_deg + t)),
                   math.sin(math.radians(a.heading_deg + t))) for (a, _), t in zip(pairs, turns)])
    body = convex_slides(_quads([a for a, _ in pairs]), _quads([b for _, b in pairs]), d)
    front = convex_slides(_quads([a for a, _ in pairs])[:, :2], _quads([b for _, b in pairs]), d)
    found = 0
    for (a, b), (dx, dy), sb, sf in zip(pairs, d.tolist(), body.tolist(), front.tolist()):
        for shape, got in ((a.polygon, sb), (a.front_edge, sf)):
            def at(t: float) -> Any:
                return shapely.affinity.translate(shape, dx * t, dy * t)

            if math.isinf(got):    # never: nowhere along the first metre either
                path = shapely.convex_hull(shapely.union(shape, at(1000.0)))
                assert not shapely.intersects(path, b.polygon)
                continue
            found += 1
            assert shapely.distance(at(got), b.polygon) < 1e-6          # touching there
            assert got == 0.0 or not shapely.intersects(at(got - 1e-3), b.polygon)
    assert found > 50


def _oracle(board: Board, shots: Shots) -> list[bool]:
    """Every sampled line of every shot asked of GEOS one line at a time: it may not touch
    another troop base, cross a crest outside the firer and the target, or run inside a
    blocking area neither of them stands in."""
    judge = _Judge(board, shots)
    s = board.settings
    troops = {i: board.rect(i).polygon for i in board.troops()}
    areas = [(tid, poly) for tid, kind, poly in board.areas if kind in s.sight_blocking_areas]
    out = []
    for k, (f, t) in enumerate(zip(shots.firers, shots.targets)):
        ends = shapely.union(board.rect(f).polygon, board.rect(t).polygon)
        crests = [shapely.difference(line, ends) for _, line in board.crests]
        held = board.centre_areas[f] | board.centre_areas[t]
        o, e = judge.origins[k], judge.ends[k]
        clear = []
        for p in o.tolist():
            for q in e[~np.isnan(e[:, 0])].tolist():
                line = shapely.LineString([p, q])
                clear.append(not any(line.intersects(b) for i, b in troops.items()
                                     if i not in (f, t))
                             and not any(line.intersects(c) for c in crests)
                             and not any(line.intersection(a).length > 1e-6
                                         for tid, a in areas if tid not in held))
        out.append(all(clear) if s.f5_line_of_sight == "all_lines" else any(clear))
    return out


def _sight_agrees(scenario: dict[str, Any]) -> int:
    board = Board.of(GameState.from_dict(scenario))
    pairs = [(f, t.id) for f, found in targets(board, sorted(board.pieces)).items()
             for t in found]
    shots = Shots([f for f, _ in pairs], [t for _, t in pairs],
                  np.array([board.rect(t).polygon for _, t in pairs], dtype=object),
                  np.ones(len(pairs), dtype=bool))
    seen, _ = line_of_sight(board, shots)
    assert seen == _oracle(board, shots)
    return len(pairs)


@property_settings(max_examples=25)
@given(scenarios())
def test_sight_agrees_with_every_line_asked_of_geos(sc: dict[str, Any]) -> None:
    for mode in ("any_line", "all_lines", "centre_to_centre"):
        _sight_agrees(dict(sc, settings={"f5_line_of_sight": mode}))


def test_sight_agrees_with_geos_on_a_dense_battle() -> None:
    battle = bench_module("battles").dense_battle("federico", 60)
    assert _sight_agrees(battle) > 300


def test_sight_through_a_non_convex_wood_and_a_crest_line() -> None:
    """An L-shaped wood (its lines left to GEOS), a crest line on its own and a hill with its
    crest, among two loose lines of bases."""
    bases = []
    for k in range(8):
        bases.append({"id": f"a{k}", "side": "A", "type": "infantry", "x_mm": 200 + 60 * k,
                      "y_mm": 200 + 7 * (k % 3), "heading_deg": 90 + 5 * (k % 2),
                      "width_mm": 40, "depth_mm": 20})
        bases.append({"id": f"b{k}", "side": "B", "type": "infantry", "x_mm": 230 + 55 * k,
                      "y_mm": 360 - 9 * (k % 2), "heading_deg": 270, "width_mm": 40,
                      "depth_mm": 20})
    terrain = [{"id": "L-wood", "kind": "wood", "polygon_mm": [[300, 260], [420, 260], [420, 280],
                                                               [330, 280], [330, 320],
                                                               [300, 320]]},
               {"id": "ridge", "kind": "crest", "line_mm": [[480, 250], [560, 300]]},
               {"id": "hill", "kind": "hill", "polygon_mm": [[600, 240], [700, 240], [700, 300],
                                                             [600, 300]],
                "crest_mm": [[600, 270], [700, 270]]}]
    scenario = {"ruleset": "federico", "table": {"width_mm": 1000, "depth_mm": 600},
                "terrain": terrain, "bases": bases}
    assert _sight_agrees(scenario) > 20
    blocked = {(f, t["id"]): t["sight_blocked_by"]
               for f, entry in _analysis(scenario)["bases"].items() for t in entry["targets"]
               if not t["line_of_sight"]}
    assert blocked[("a3", "b2")] == ["L-wood"] and blocked[("a5", "b5")] == ["ridge"]
    # every line from a7 to b4 crosses the ridge (some also b5, and the hill behind): each line
    # names one obstacle (a base, else a crest, else an area), so the ridge comes first
    assert blocked[("a7", "b4")] == ["ridge", "b5"] and all(blocked.values())


def _analysis(scenario: dict[str, Any]) -> dict[str, Any]:
    from campo import engine

    return engine.analyze(scenario)
