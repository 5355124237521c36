"""Array geometry for ATTILA's charges and sight, in numpy: many bases, wheels and slides at
once.

Rectangles are `Frames` (arrays of centres, front unit vectors, widths and depths); a single
question passes arrays of length one. These are plain geometry, not rules. `slide` is not the
shared `engine.geometry.motion.convex_slides`: that one tests a segment's edge both ways (its
answers differ in the last bits, which the charges' final poses show) and asks GEOS whether the
outlines already touch (five times slower on a charge's few hundred attempts).

>>> f = Frames.of_rects([Rect(0.0, 0.0, 90.0, 40.0, 20.0)])
>>> [tuple(round(float(v), 6) for v in c) for c in f.corners[0]]
[(-20.0, 10.0), (20.0, 10.0), (20.0, -10.0), (-20.0, -10.0)]
>>> goal = Frames.of_rects([Rect(0.0, 100.0, 270.0, 40.0, 20.0)])
>>> float(slide(f.front_edges, goal.corners, f.front)[0])      # 100 - 10 - 10
80.0
>>> float(clip_lengths(np.array([[-30.0, 89.0]]), np.array([[10.0, 89.0]]), goal, 2.0)[0])  # x -22..10
32.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely

from campo.engine.geometry.rect import Rect
from campo.engine.geometry.segments import successors

_INF = float("inf")
RAY_EPS = 1e-9        # rays meeting an edge this close to its ends (or 0) still count


@dataclass(frozen=True)
class Frames:
    """Rectangles as arrays: centre (cx, cy), heading unit vector (fx, fy), full width and depth.
    The right unit vector is the front turned -90° (shared/interfaces.md frames)."""

    cx: np.ndarray
    cy: np.ndarray
    fx: np.ndarray
    fy: np.ndarray
    width: np.ndarray
    depth: np.ndarray

    @staticmethod
    def of_rects(rects: Sequence[Rect]) -> Frames:
        flat = np.array([v for r in rects for v in (r.cx, r.cy, *r.front, r.width, r.depth)],
                        dtype=float).reshape(len(rects), 6)
        return Frames(*(flat[:, k].copy() for k in range(6)))

    def take(self, rows: np.ndarray) -> Frames:
        return Frames(self.cx[rows], self.cy[rows], self.fx[rows], self.fy[rows],
                      self.width[rows], self.depth[rows])

    def __len__(self) -> int:
        return len(self.cx)

    @property
    def front(self) -> np.ndarray:
        return np.stack([self.fx, self.fy], axis=1)

    @property
    def right(self) -> np.ndarray:
        return np.stack([self.fy, -self.fx], axis=1)

    @cached_property
    def heading_deg(self) -> np.ndarray:
        """Degrees in [0, 360), once per frames (the board's are read by every charge batch)."""
        return np.degrees(np.arctan2(self.fy, self.fx)) % 360.0

    def point(self, u: np.ndarray | float, v: np.ndarray | float) -> np.ndarray:
        """Base frame (u to the right, v ahead) -> table mm, (n, 2)."""
        return np.stack([self.cx + u * self.fy + v * self.fx,
                         self.cy - u * self.fx + v * self.fy], axis=1)

    @cached_property
    def corners(self) -> np.ndarray:
        """(n, 4, 2): front-left, front-right, rear-right, rear-left (`Rect.corners`); `point`
        of the four at once."""
        hw, hd = (self.width / 2)[:, None], (self.depth / 2)[:, None]
        u = np.concatenate([-hw, hw, hw, -hw], axis=1)
        v = np.concatenate([hd, hd, -hd, -hd], axis=1)
        cx, cy, fx, fy = self.cx[:, None], self.cy[:, None], self.fx[:, None], self.fy[:, None]
        return np.stack([cx + u * fy + v * fx, cy - u * fx + v * fy], axis=2)

    @property
    def front_edges(self) -> np.ndarray:
        """(n, 2, 2): front-left, front-right."""
        return self.corners[:, :2]

    def moved(self, distance: np.ndarray) -> Frames:
        """Each rectangle moved straight ahead by ``distance``."""
        return Frames(self.cx + self.fx * distance, self.cy + self.fy * distance, self.fx,
                      self.fy, self.width, self.depth)

    def wheeled(self, turn_deg: np.ndarray) -> Frames:
        """Each rectangle wheeled by ``turn_deg`` (CCW positive) on the front corner it turns
        toward (`engine.geometry.motion.wheel`); a turn of 0 leaves it in place."""
        a = np.radians(turn_deg)
        c, s = np.cos(a), np.sin(a)
        left = turn_deg > 0
        hw, hd = self.width / 2, self.depth / 2
        pu = np.where(left, -hw, hw)                       # the pivot in the base frame
        px = self.cx + pu * self.fy + hd * self.fx
        py = self.cy - pu * self.fx + hd * self.fy
        dx, dy = self.cx - px, self.cy - py
        return Frames(px + dx * c - dy * s, py + dx * s + dy * c, self.fx * c - self.fy * s,
                      self.fx * s + self.fy * c, self.width, self.depth)

    def polygons(self, shrink: float = 0.0) -> np.ndarray:
        """The rectangles as shapely polygons, each shrunk by ``shrink`` on every side (empty
        where nothing is left)."""
        if not shrink:
            return shapely.polygons(self.corners)
        w, d = self.width - 2 * shrink, self.depth - 2 * shrink
        ok = (w > 0) & (d > 0)
        out = np.full(len(self), shapely.Polygon(), dtype=object)
        if ok.any():
            small = Frames(self.cx[ok], self.cy[ok], self.fx[ok], self.fy[ok], w[ok], d[ok])
            out[ok] = shapely.polygons(small.corners)
        return out


def _edges(vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, spans) of a batch of outlines (n, k, 2): one segment for k = 2, else closed."""
    if vertices.shape[1] == 2:
        return vertices[:, :1], vertices[:, 1:] - vertices[:, :1]
    return vertices, successors(vertices, axis=1) - vertices


def _rows_last(x: np.ndarray) -> np.ndarray:
    """(n, k, 2) -> (k, 2, n): numpy reduces over the leading axes column by column, quickly."""
    return np.ascontiguousarray(x.transpose(1, 2, 0))


def _ray_hits(origins: np.ndarray, d: np.ndarray, starts: np.ndarray,
              spans: np.ndarray) -> np.ndarray:
    """Per row, the smallest t >= 0 such that some origin + t d lies on some segment
    start + s span (inf when none)."""
    o = _rows_last(origins)[:, None]               # (k, 1, 2, n)
    q, e = _rows_last(starts)[None], _rows_last(spans)[None]    # (1, m, 2, n)
    dx, dy = d[:, 0], d[:, 1]
    denom = dx * e[:, :, 1] - dy * e[:, :, 0]
    w = q - o
    usable = np.abs(denom) > 1e-12
    safe = np.where(usable, denom, 1.0)
    t = (w[:, :, 0] * e[:, :, 1] - w[:, :, 1] * e[:, :, 0]) / safe
    s = (w[:, :, 0] * dy - w[:, :, 1] * dx) / safe
    good = usable & (t >= -RAY_EPS) & (s >= -RAY_EPS) & (s <= 1 + RAY_EPS)
    found = np.where(good, t, _INF)                # (k, m, n)
    return found.reshape(found.shape[0] * found.shape[1], -1).min(axis=0, initial=_INF)


def convex_overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row, the convex outlines ``a`` (n, k, 2; k = 2: a segment) and ``b`` (n, m, 2) meet
    (touching counts): no edge normal of either separates them (all normals at once)."""
    spans = _rows_last(np.concatenate([_edges(a)[1], _edges(b)[1]], axis=1))   # (edges, 2, n)
    nx, ny = -spans[:, 1], spans[:, 0]
    ra, rb = _rows_last(a)[:, :, None], _rows_last(b)[:, :, None]     # (k, 2, 1, n)
    pa = ra[:, 0] * nx + ra[:, 1] * ny              # (k, edges, n)
    pb = rb[:, 0] * nx + rb[:, 1] * ny
    apart = (pa.max(axis=0) < pb.min(axis=0)) | (pb.max(axis=0) < pa.min(axis=0))
    return ~apart.any(axis=0)


def slide(moving: np.ndarray, obstacle: np.ndarray, direction: np.ndarray,
          touching: np.ndarray | None = None) -> np.ndarray:
    """Per row, how far the outline ``moving`` (n, k, 2: a segment when k = 2) slides along the
    unit ``direction`` (n, 2) before it touches the outline ``obstacle`` (n, m, 2): 0 when they
    already meet (``touching``, else tested here for convex outlines), inf when it never does.
    First contact is a vertex of one meeting an edge of the other, so both sets of rays are
    tried."""
    if touching is None:
        touching = convex_overlap(moving, obstacle)
    s_a, e_a = _edges(moving)
    s_b, e_b = _edges(obstacle)
    t = np.minimum(_ray_hits(moving, direction, s_b, e_b),
                   _ray_hits(obstacle, -direction, s_a, e_a))
    return np.where(touching, 0.0, np.maximum(t, 0.0))


def clip_lengths(p: np.ndarray, q: np.ndarray, box: Frames,
                 grow: float | np.ndarray) -> np.ndarray:
    """Per row, the length of segment p-q (each (n, 2)) inside rectangle ``box`` grown by
    ``grow`` (per row or one value) on every side (Liang–Barsky)."""
    rx, ry, fx, fy = box.fy, -box.fx, box.fx, box.fy
    du_p = (p[:, 0] - box.cx) * rx + (p[:, 1] - box.cy) * ry
    dv_p = (p[:, 0] - box.cx) * fx + (p[:, 1] - box.cy) * fy
    du = (q[:, 0] - p[:, 0]) * rx + (q[:, 1] - p[:, 1]) * ry
    dv = (q[:, 0] - p[:, 0]) * fx + (q[:, 1] - p[:, 1]) * fy
    t0, t1 = np.zeros(len(p)), np.ones(len(p))
    empty = np.zeros(len(p), dtype=bool)
    for d, half, x in ((du, box.width / 2 + grow, du_p), (dv, box.depth / 2 + grow, dv_p)):
        flat = np.abs(d) < 1e-12
        empty |= flat & ((x < -half) | (x > half))
        safe = np.where(flat, 1.0, d)
        ea, eb = (-half - x) / safe, (half - x) / safe
        t0 = np.where(flat, t0, np.maximum(t0, np.minimum(ea, eb)))
        t1 = np.where(flat, t1, np.minimum(t1, np.maximum(ea, eb)))
    empty |= t0 > t1
    return np.where(empty, 0.0, (t1 - t0) * np.hypot(q[:, 0] - p[:, 0], q[:, 1] - p[:, 1]))


def sectors(apex: np.ndarray, radius: np.ndarray, start_deg: np.ndarray, turn_deg: np.ndarray,
            step_deg: float = 2.0) -> np.ndarray:
    """Circular sectors as shapely polygons: centre ``apex`` (n, 2), ``radius``, from direction
    ``start_deg`` turning ``turn_deg`` (either sign, |turn| < 180). The arc is drawn by chords
    every ``step_deg`` or less (inside the true arc by at most radius x (1 - cos(step / 2)):
    0.007 mm at 45 mm and 2°)."""
    steps = np.maximum(np.ceil(np.abs(turn_deg) / step_deg), 1).astype(int)
    counts = steps + 2
    owner = np.repeat(np.arange(len(apex)), counts)
    k = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    angle = np.radians(start_deg[owner] + turn_deg[owner] * (k - 1) / steps[owner])
    xy = apex[owner] + radius[owner, None] * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    xy[k == 0] = apex
    return shapely.polygons(shapely.linearrings(xy, indices=owner))


def segments_meet_rects(p: np.ndarray, q: np.ndarray, box: Frames) -> np.ndarray:
    """Per row, segment p-q (each (n, 2)) meets rectangle ``box`` (touching counts): separating
    axes of the rectangle's two sides and of the segment's normal."""
    rx, ry, fx, fy = box.fy, -box.fx, box.fx, box.fy
    hw, hd = box.width / 2, box.depth / 2
    ok = (hw > 0) & (hd > 0)
    for ax, ay, half in ((rx, ry, hw), (fx, fy, hd)):
        a = (p[:, 0] - box.cx) * ax + (p[:, 1] - box.cy) * ay
        b = (q[:, 0] - box.cx) * ax + (q[:, 1] - box.cy) * ay
        ok &= (np.minimum(a, b) <= half) & (np.maximum(a, b) >= -half)
    nx, ny = -(q[:, 1] - p[:, 1]), q[:, 0] - p[:, 0]
    centre = (box.cx - p[:, 0]) * nx + (box.cy - p[:, 1]) * ny
    reach = hw * np.abs(nx * rx + ny * ry) + hd * np.abs(nx * fx + ny * fy)
    return ok & (np.abs(centre) <= reach)


def rects_overlap(a: Frames, b: Frames) -> np.ndarray:
    """Per row, rectangles ``a`` and ``b`` overlap (touching does not count): no side of either
    separates them."""
    dx, dy = b.cx - a.cx, b.cy - a.cy
    out = np.ones(len(a), dtype=bool)
    for ux, uy in ((a.fx, a.fy), (a.fy, -a.fx), (b.fx, b.fy), (b.fy, -b.fx)):
        reach = (np.abs(ux * a.fx + uy * a.fy) * a.depth + np.abs(ux * a.fy - uy * a.fx) * a.width
                 + np.abs(ux * b.fx + uy * b.fy) * b.depth
                 + np.abs(ux * b.fy - uy * b.fx) * b.width) / 2
        out &= np.abs(dx * ux + dy * uy) < reach
    return out


def shared_lengths(a: Frames, b: Frames, grow: float | np.ndarray) -> np.ndarray:
    """(n, 4): for each edge of ``a`` (front, right, rear, left: `rect.EDGE_NAMES`), the length
    of it lying within ``b`` grown by ``grow`` (per row or one value) on every side."""
    n = len(a)
    every = np.repeat(np.arange(n), 4)            # the four edges of a row, one clipping for all
    grow = np.broadcast_to(np.asarray(grow, dtype=float), (n,))[every]
    return clip_lengths(a.corners.reshape(-1, 2), successors(a.corners, axis=1).reshape(-1, 2),
                        b.take(every), grow).reshape(n, 4)

