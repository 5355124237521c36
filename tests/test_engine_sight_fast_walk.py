"""The compiled sight walk's terrain tests (`sight_kernel.first_clear_lines` with
`SightField.kernel_terrain`) answer as `SightField.clear_of_terrain` (GEOS) does: every line the
walk skips is blocked by a body or by terrain, and a line it returns as sure is clear of terrain.
Crests cut by the firer or target, a wood that is not convex, woods holding a firer and corridor
shots are among the cases."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from campo.engine.geometry.rect import Rect
from campo.engine.geometry.segments import Segments, segments_near_quads
from campo.engine.geometry.sight import SightField
from campo.engine.geometry.sight_kernel import build_grid, first_clear_lines


def test_walk_terrain_is_clear_of_terrain() -> None:
    rng = np.random.default_rng(31)
    n_bases = 40
    rects = [Rect(float(rng.uniform(0, 600)), float(rng.uniform(0, 600)),
                  float(rng.uniform(0, 360)), 40.0, 20.0) for _ in range(n_bases)]
    shapes = np.array([r.polygon for r in rects], dtype=object)
    quads = np.array([r.corners for r in rects], dtype=float)
    walls = [LineString([(0, 300), (600, 300)]), LineString([(300, 0), (320, 250), (300, 600)]),
             LineString([(rects[0].cx - 30, rects[0].cy), (rects[0].cx + 30, rects[0].cy)])]
    woods = [Polygon([(100, 100), (250, 90), (260, 200), (110, 210)]),               # convex
             Polygon([(350, 350), (550, 350), (550, 550), (450, 420), (350, 550)])]  # not
    field = SightField(walls=walls, deep_areas=woods, max_depth=30.0)
    # every base fires at every other: the firer's and target's own bodies never block
    firer, target = (a.ravel() for a in np.meshgrid(np.arange(n_bases), np.arange(n_bases),
                                                   indexing="ij"))
    keep = firer != target
    firer, target = firer[keep], target[keep]
    shots = len(firer)
    origins = np.array([[r.front_left, r.front_centre, r.front_right] for r in rects])
    ends = np.array([[r.cx, r.cy] for r in rects])[target][:, None, :] \
        + rng.uniform(-8, 8, (shots, 4, 2))
    ends = ends.reshape(-1, 2)
    end_starts = np.arange(0, shots * 4 + 1, 4, dtype=np.int64)
    reach = np.where(firer % 3 == 0, 12.7, 0.0)
    own = np.eye(n_bases, dtype=bool)
    none = np.zeros((1, n_bases), dtype=bool)
    grid, starts, items = build_grid(quads, float(reach.max()), 40.0)
    centre = quads.mean(axis=1)
    radius = np.linalg.norm(quads - centre[:, None, :], axis=2).max(axis=1)
    centres = shapely.points([(r.cx, r.cy) for r in rects])
    holding = np.stack([shapely.covers(w, centres) for w in woods], axis=1)
    holding[:5] = True                                  # some firers' woods do not count
    shot_ends = np.stack([firer, target], axis=1)
    terrain = field.kernel_terrain(shot_ends, shapes, holding)
    uncounted = holding[firer] | holding[target]
    line, unsure = first_clear_lines(
        origins, ends, end_starts, firer.astype(np.int64), target.astype(np.int64),
        np.full(shots, -1, dtype=np.int64), reach, np.zeros(shots, dtype=np.int64),
        np.arange(shots, dtype=np.int64), np.zeros(shots, dtype=np.int64), quads, centre,
        radius, own, none.repeat(n_bases, 0), none, none.repeat(n_bases, 0), grid, starts,
        items, terrain)

    # every line of every shot, by numpy (bodies) and GEOS (terrain)
    k = np.repeat(np.arange(shots), 12)
    number = np.tile(np.arange(12), shots)
    xy = np.stack([origins[firer[k], number % 3], ends[end_starts[k] + number // 3]], axis=1)
    body_hit = np.zeros(len(k), dtype=bool)
    for b in range(n_bases):
        hit = segments_near_quads(xy[:, 0], xy[:, 1], np.repeat(quads[b][None], len(k), 0),
                                  reach[k])
        body_hit |= hit & (firer[k] != b) & (target[k] != b)

    def parts(keys: np.ndarray) -> list[np.ndarray]:
        return [shapes[firer[keys]], shapes[target[keys]]]

    terrain_ok = field.clear_of_terrain(Segments(xy), reach[k], k, parts, uncounted, k)
    clear = (~body_hit & terrain_ok).reshape(shots, 12)
    first = np.where(clear.any(axis=1), clear.argmax(axis=1), -1)
    blocked_before = [not clear[s, :line[s]].any() if line[s] >= 0 else not clear[s].any()
                      for s in range(shots)]
    assert all(blocked_before)
    sure = (line >= 0) & ~unsure
    assert (line[sure] == first[sure]).all()
    for s in np.nonzero(unsure)[0]:     # GEOS decides: the walk's line is clear of bodies
        assert not body_hit.reshape(shots, 12)[s, line[s]]
    assert sure.sum() > 100 and (first == -1).sum() > 200 and unsure.sum() > 5
    body_clear = ~body_hit.reshape(shots, 12)
    skipped = [body_clear[s, :line[s]].any() if line[s] >= 0 else body_clear[s].any()
               for s in range(shots)]
    assert sum(skipped) > 100                  # lines the walk skipped for terrain alone
