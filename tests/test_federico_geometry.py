"""Federico's array geometry against deliberately naive oracles built on GEOS: the convex-polygon
clearances, segment clipping and slides (engine/rulesets/federico/convex.py) on random rectangles,
and the numpy line-of-sight tests (engine/rulesets/federico/sight.py) against every sampled line
asked of GEOS one question at a time (`SightField.clear`), on random positions and a dense
battle."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import given

from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.convex import crosses, margins, normals, slides
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
    body = slides(_quads([a for a, _ in pairs]), _quads([b for _, b in pairs]), d)
    front = slides(_quads([a for a, _ in pairs])[:, :2], _quads([b for _, b in pairs]), d)
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


@pytest.mark.parametrize("seed", range(2))
def test_certain_crossings_agree_with_geos(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pairs = _rects(seed + 20, 300)
    quads = _quads([b for _, b in pairs])
    p0 = rng.uniform(-50, 350, (len(pairs), 2))
    on_corner = rng.random(len(pairs)) < 0.5                     # some lines end on a corner
    p1 = np.where(on_corner[:, None], quads[:, 0], rng.uniform(-50, 350, (len(pairs), 2)))
    n, off = normals(quads)
    hit, miss = crosses(p0, p1, n, off, 1e-6)
    geos = shapely.intersects(shapely.linestrings(np.stack([p0, p1], axis=1)),
                              np.array([b.polygon for _, b in pairs], dtype=object))
    assert not (hit & miss).any()
    assert (geos[hit]).all() and (~geos[miss]).all()
    assert (hit | miss)[~on_corner].all()      # only grazing lines are left to GEOS
    assert hit[on_corner].any() and not (hit | miss)[on_corner].all()


def _oracle(board: Board, shots: Shots) -> list[bool]:
    """Every sampled line of every shot asked of GEOS (`SightField.clear`) one shot at a time."""
    judge = _Judge(board, shots)
    out = []
    for k in range(len(shots.firers)):
        o, e = judge.origins[k], judge.ends[k]
        e = e[~np.isnan(e[:, 0])]
        lines = shapely.linestrings([[p, q] for p in o.tolist() for q in e.tolist()])
        q = judge._queries([k])[0]
        clear = board.obstacles.field.clear(lines, exclude=q.exclude, ends=q.ends,
                                        uncounted_areas=q.uncounted_areas)
        mode = board.settings.f5_line_of_sight
        out.append(bool(clear.all()) if mode == "all_lines" else bool(clear.any()))
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
    assert "hill" in blocked[("a7", "b4")] and all(blocked.values())


def _analysis(scenario: dict[str, Any]) -> dict[str, Any]:
    from campo import engine

    return engine.analyze(scenario)
