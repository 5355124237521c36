"""The shortcuts of ISD charge judging (engine/rulesets/italia/charge_fast.py, the compiled slides
of engine/geometry/slide_kernel.py, the box filter of engine/geometry/box_kernel.py) give exactly
the plain answers: slides equal `motion.slide_convex` to the last bit (zero's sign included),
the best oblique slide equals the one-by-one search, the corridor and 2" zone tests equal the
GEOS ones they skip, terrain found by boxes equals the STRtree's. Seeded random crowds: touching,
overlapping, far apart, at odd angles, with woods, hills with crests and walls."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
import shapely

from campo.engine.geometry.box_kernel import boxes_near, convex_gap, swept_gap
from campo.engine.geometry.motion import outline, slide_convex, swept_area, wheel, wheel_poses
from campo.engine.geometry.rect import Rect, rotate
from campo.engine.geometry.slide_kernel import front_and_body_slides, slide_apart
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.charge_fast import (Corridor, bases_near_box, flank_or_rear_along,
                                                front_body_slides, holds_zone_against, poses_array,
                                                sweep_meets, within_of,
                                                zone_around)
from campo.engine.rulesets.italia.charge_terrain import terrain_at_point, terrain_meeting
from campo.engine.rulesets.italia.charge_paths import _best_slide, _best_slide_plain, _paths
from campo.engine.rulesets.italia.charges import (_corridor, _crossed_kinds, _crossed_kinds_plain,
                                            _zone_entry, candidates)
from campo.engine.rulesets.italia.melee import _area_terrain_at, _area_terrain_at_plain
from campo.engine.rulesets.italia.pieces import ZONE_IN
from campo.engine.state import GameState

SIZES = {"B": (80, 40), "C": (80, 30), "gun": (25, 40), "general": (40, 40)}


def _same(a: float, b: float) -> bool:
    """Equal to the bit, the sign of a zero included."""
    return repr(a) == repr(b)


def _pairs(seed: int, n: int) -> list[tuple[Rect, Rect]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a = Rect(rng.uniform(0, 300), rng.uniform(0, 300),
                 rng.choice([0.0, 90.0, 180.0, 270.0, rng.uniform(0, 360)]), 80.0,
                 rng.choice([30.0, 40.0]))
        if rng.random() < 0.5:     # near: face to face, beside, touching, overlapping
            b = Rect(a.cx + rng.choice([0.0, 40.0, 80.0, 30.2, -95.0]),
                     a.cy + rng.choice([0.0, 20.0, 40.0, 80.0, 110.0]),
                     (a.heading_deg + rng.choice([180.0, 90.0, 0.0, 173.0])) % 360.0, 80.0, 40.0)
        else:
            b = Rect(rng.uniform(0, 300), rng.uniform(0, 300), rng.uniform(0, 360), 80.0, 40.0)
        out.append((a, b))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_compiled_slides_equal_slide_convex(seed: int) -> None:
    rng = random.Random(50 + seed)
    for a, b in _pairs(seed, 300):
        dirs = [rotate(a.front, off) for off in (0.0, 45.0, -45.0, rng.uniform(-60, 60))]
        got = front_body_slides(a, b, dirs)
        for d, (s_front, s_body) in zip(dirs, got):
            assert _same(s_front, slide_convex((a.front_left, a.front_right), a.front_edge,
                                               b.corners, b.polygon, d))
            assert _same(s_body, slide_convex(a.corners, a.polygon, b.corners, b.polygon, d))
        zone = b.polygon.buffer(50.0, quad_segs=8)
        ring = np.ascontiguousarray(outline(zone))
        for d in dirs:
            want = slide_convex(a.corners, a.polygon, [tuple(v) for v in ring.tolist()], zone, d)
            if not shapely.intersects(a.polygon, zone):
                assert _same(slide_apart(np.array(a.corners), ring, d[0], d[1]), want)


def test_compiled_slides_keep_touching_and_axis_aligned_cases() -> None:
    """Flush bases (exact zero slides, parallel edges) and a segment against a rectangle."""
    a = Rect(0.0, 0.0, 90.0, 80.0, 40.0)
    for b in (Rect(0.0, 40.0, 270.0, 80.0, 40.0), Rect(80.0, 0.0, 90.0, 80.0, 40.0),
              Rect(0.0, 100.0, 270.0, 80.0, 40.0), Rect(40.0, 100.0, 270.0, 80.0, 40.0)):
        for d in ((0.0, 1.0), (1.0, 0.0), rotate((0.0, 1.0), 45.0), (-0.0, -1.0)):
            out = front_and_body_slides(np.array(a.corners), np.array(b.corners),
                                        np.array([d]), False, False).tolist()[0]
            for s, moving in zip(out, ((a.front_left, a.front_right), a.corners)):
                ref = max(0.0, min(_ray(moving, d, b.corners), _ray(b.corners, (-d[0], -d[1]),
                                                                    moving)))
                assert _same(s, ref)


def _ray(moving: Any, d: tuple[float, float], verts: Any) -> float:
    from campo.engine.geometry.motion import _edges_py, _ray_hits_py
    starts, spans = _edges_py(list(verts))
    return _ray_hits_py(list(moving), d[0], d[1], starts, spans)


def _crowd(seed: int, n: int = 70) -> GameState:
    """Two sides on a small table with woods, a hill with its crest and a wall: many touch, some
    overlap, lines side by side and bases turned at random."""
    rng = random.Random(seed)
    bases: list[dict[str, Any]] = []
    for i in range(n):
        kind = rng.choice(["B", "B", "C", "gun", "general"])
        w, d = SIZES[kind]
        traits: dict[str, Any] = {"rank": "division"} if kind == "general" else {}
        side = "AB"[i % 2]
        if i % 3 == 0:
            x, y = 60.0 + 80.0 * (i % 9), 200.0 + 300.0 * (i % 2)
            h = 90.0 if side == "A" else 270.0
        else:
            x, y, h = rng.uniform(-20, 720), rng.uniform(-20, 620), rng.choice(
                [0.0, 90.0, 270.0, rng.uniform(0, 360)])
        bases.append({"id": f"b{i:02d}", "side": side, "type": kind, "x_mm": x, "y_mm": y,
                      "heading_deg": h, "width_mm": w, "depth_mm": d, "traits": traits})
    terrain = [
        {"id": "wood", "kind": "wood", "polygon_mm": [[100, 300], [260, 280], [300, 380], [120, 400]]},
        {"id": "hill", "kind": "hill", "polygon_mm": [[400, 260], [620, 260], [620, 420], [400, 420]],
         "crest_mm": [[400, 340], [620, 340]]},
        {"id": "wall", "kind": "wall", "line_mm": [[50, 150], [330, 150]]},
    ]
    return GameState.from_dict({"ruleset": "italia-se-desta", "terrain": terrain,
                                "table": {"width_mm": 700, "depth_mm": 600}, "bases": bases})


def _charge_paths(board: Board) -> list[tuple[str, str, Any]]:
    out = []
    for c in board.state.ids:
        for t in candidates(board, c):
            for p in _paths(board, board.rect(c), board.rect(t)):
                out.append((c, t, p))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_best_slide_equals_the_one_by_one_search(seed: int) -> None:
    board = Board.of(_crowd(seed))
    for a, b in _pairs(seed, 300):
        assert _best_slide(board, a, b) == _best_slide_plain(board, a, b)
        w = wheel(a, 30.0)
        assert _best_slide(board, w, b) == _best_slide_plain(board, w, b)


def _zone_entry_plain(board: Board, p: Any, other: str, not_after: float | None = None
                      ) -> float | None:
    """`charges._zone_entry` as first written: every test by GEOS, the slide by `slide_convex`."""
    zone = board.rect(other).polygon.buffer(board.mm(ZONE_IN), quad_segs=8)
    if shapely.intersects(p.start.polygon, zone):
        return 0.0
    if p.wheel_deg and shapely.intersects(swept_area(wheel_poses(p.start, p.wheel_deg)), zone):
        return p.wheel_mm / 2
    if not_after is not None and \
            p.wheel_mm + float(shapely.distance(p.wheeled.polygon, zone)) > not_after + 1e-3:
        return None
    s = slide_convex(p.wheeled.corners, p.wheeled.polygon, [tuple(v) for v in outline(zone).tolist()],
                     zone, p.direction)
    if not math.isfinite(s) or s > p.slide_mm + 1e-6:
        return None
    return p.wheel_mm + s


@pytest.mark.parametrize("seed", range(3))
def test_corridor_and_zone_entries_equal_geos(seed: int) -> None:
    board = Board.of(_crowd(seed, 45))
    reach = board.mm(ZONE_IN)
    paths = _charge_paths(board)
    assert len(paths) > 20 and any(p.wheel_deg for _, _, p in paths)
    entered = 0
    for c, t, p in paths:
        poses = [p.start, p.wheeled, p.final] if p.wheel_deg else [p.start, p.final]
        corridor = Corridor(board, poses, reach, lambda: _corridor(p))
        exact = set(board.state.index.within(_corridor(p), reach))
        near = dict(bases_near_box(board, corridor.box, reach + 1.0))
        assert exact <= set(near)
        own = board.infos[c].side
        for other, box in near.items():
            assert corridor.holds(other, box) == (other in exact)
            if other == t or not holds_zone_against(board, other, own):
                continue
            for not_after in (None, p.length_mm / 2):
                got = _zone_entry(board, p, other, not_after)
                assert got == _zone_entry_plain(board, p, other, not_after)
                entered += got is not None
    assert entered > 10


@pytest.mark.parametrize("seed", range(3))
def test_terrain_and_neighbour_shortcuts_equal_the_queries(seed: int) -> None:
    board = Board.of(_crowd(seed))
    found = crossed = 0
    for c, t, p in _charge_paths(board):
        for shape in (p.final.polygon, shapely.linestrings([(p.start.cx, p.start.cy),
                                                           (p.final.cx, p.final.cy)])):
            pts = shapely.get_coordinates(shape).tolist()
            want = board.terrain_near(shape)
            assert terrain_meeting(board, lambda: shape, pts) == want
            assert terrain_meeting(board, lambda: shape, pts, crests_only=True) == \
                [f for f in want if f[0].crest_mm is not None]
            found += len(want)
        assert _crossed_kinds(board, p) == _crossed_kinds_plain(board, p)
        crossed += bool(_crossed_kinds(board, p))
        point = shapely.Point(p.final.cx, p.final.cy)
        assert terrain_at_point(board, p.final.cx, p.final.cy) == \
            [f for f in board.terrain_near(point) if f[1].covers(point)]
    assert found and crossed
    for i in board.state.ids:
        for reach in (0.0, 5.0, 75.0 + 1e-6, 200.0):
            assert within_of(board, i, reach, lambda g: board.infos[g].is_gun) == \
                [g for g in board.state.index.within(board.rect(i).polygon, reach)
                 if board.infos[g].is_gun]


def test_boxes_near_equals_numpy() -> None:
    rng = np.random.default_rng(3)
    lo = rng.uniform(0, 1000, (300, 2))
    boxes = np.concatenate([lo, lo + rng.uniform(0, 100, (300, 2))], axis=1)
    for _ in range(50):
        x0, y0 = rng.uniform(0, 1000, 2)
        x1, y1, d = x0 + rng.uniform(0, 300), y0 + rng.uniform(0, 300), rng.uniform(0, 60)
        want = np.flatnonzero((boxes[:, 0] <= x1 + d) & (boxes[:, 2] >= x0 - d)
                              & (boxes[:, 1] <= y1 + d) & (boxes[:, 3] >= y0 - d))
        assert boxes_near(boxes, x0, y0, x1, y1, d).tolist() == want.tolist()


def test_zone_is_the_plain_buffer() -> None:
    board = Board.of(_crowd(0))
    i = board.state.ids[0]
    zone = zone_around(board, i)
    want = board.rect(i).polygon.buffer(board.mm(ZONE_IN), quad_segs=8)
    assert shapely.equals_exact(zone.polygon, want, tolerance=0.0)
    assert zone.outline.tolist() == outline(want).tolist()


def test_convex_gap_is_the_geos_distance_within_a_hair() -> None:
    for a, b in _pairs(11, 600):
        got = convex_gap(np.array(a.corners), np.array(b.corners))
        assert abs(max(got, 0.0) - shapely.distance(a.polygon, b.polygon)) < 1e-9
        assert (got < 0) == bool(shapely.intersects(a.polygon, b.polygon)) or abs(got) < 1e-9


@pytest.mark.parametrize("seed", range(2))
def test_sweep_tests_equal_geos_on_the_swept_area(seed: int) -> None:
    """Wheels (and a straight run) against bases and 2" zones: the compiled gap to the swept
    area's pieces matches GEOS on `swept_area` itself, and `sweep_meets` answers as GEOS."""
    rng = random.Random(90 + seed)
    certain = 0
    for a, b in _pairs(seed + 40, 250):
        turn = rng.choice([30.0, -30.0, 95.0, -170.0, rng.uniform(-180, 180)])
        for poses in (wheel_poses(a, turn), [a, a.moved(*(60.0 * v for v in a.front))]):
            area = swept_area(poses)
            arr = poses_array(poses)
            for shape, verts in ((b.polygon, np.array(b.corners)),
                                 (b.polygon.buffer(50.0, quad_segs=8),
                                  np.ascontiguousarray(outline(b.polygon.buffer(50.0, quad_segs=8))))):
                gap = swept_gap(arr, verts)
                assert abs(max(gap, 0.0) - shapely.distance(area, shape)) < 1e-6
                want = bool(shapely.intersects(area, shape))
                asked = []
                assert sweep_meets(arr, verts, lambda: asked.append(1) or want) == want
                certain += not asked
    assert certain > 900


@pytest.mark.parametrize("seed", range(2))
def test_compiled_flank_contact_decides_as_shared_lengths(seed: int) -> None:
    """At the contact pose of each slide (touching, flush, corner to corner), the compiled
    flank-and-rear length decides as `shared_lengths` does, or leaves it to it."""
    from campo.engine.geometry.contact import shared_lengths
    rng = random.Random(70 + seed)
    decided = 0
    for a, b in _pairs(seed + 20, 400):
        for off in (0.0, 45.0, -45.0, rng.uniform(-45, 45)):
            d = rotate(a.front, off)
            s = slide_convex((a.front_left, a.front_right), a.front_edge, b.corners, b.polygon, d)
            if not math.isfinite(s):
                continue
            for touch in (0.5, 3.0):
                got = flank_or_rear_along(a, b, d, s, touch)
                sh = shared_lengths(a.moved(d[0] * s, d[1] * s), b, touch)
                want = max(sh["left"], sh["right"], sh["rear"]) > 2 * touch + 1e-6
                assert got is None or got == want
                decided += got is not None
    assert decided > 500


@pytest.mark.parametrize("seed", range(3))
def test_area_terrain_holding_equals_the_query(seed: int) -> None:
    """Bases and contact poses on, across and beside the wood and the hill (cover, A35)."""
    board = Board.of(_crowd(seed))
    rects = [board.rect(i) for i in board.state.ids] + [p.final for _, _, p in _charge_paths(board)]
    rng = random.Random(seed)
    rects += [Rect(rng.uniform(90, 640), rng.uniform(250, 430), rng.uniform(0, 360), 30.0, 20.0)
              for _ in range(300)]
    held = 0
    for r in rects:
        want = _area_terrain_at_plain(board, r)
        assert _area_terrain_at(board, r) == want
        held += bool(want)
    assert held > 20


def test_shared_lengths_compiled_equals_shared_lengths_to_the_bit() -> None:
    from campo.engine.geometry.contact import shared_lengths, shared_lengths_compiled
    for tolerance in (0.0, 0.5, 3.0):
        for a, b in _pairs(13, 500):
            got, want = shared_lengths_compiled(a, b, tolerance), shared_lengths(a, b, tolerance)
            assert list(got) == list(want)
            assert [repr(v) for v in got.values()] == [repr(v) for v in want.values()]
