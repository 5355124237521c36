"""Moving bases: how far a convex shape can slide before it touches another, wheels, sweeps.

>>> from campo.engine.geometry.rect import Rect
>>> a = Rect(0.0, 0.0, 90.0, 80.0, 40.0)
>>> b = Rect(0.0, 100.0, 270.0, 80.0, 40.0)
>>> round(slide_distance(outline(a), outline(b), (0.0, 1.0)), 6)   # 100 - 20 - 20
60.0
>>> round(wheel_cost(a, 30.0), 3)                          # outer corner: 80 mm * pi/6
41.888
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from campo.engine.geometry.rect import Point, Rect, angle_diff

_INF = float("inf")


def outline(shape: Rect | Polygon | tuple[Point, Point]) -> np.ndarray:
    """Vertices (n, 2) of a rectangle, a polygon's exterior or a segment, in order."""
    if isinstance(shape, Rect):
        return np.array(shape.corners, dtype=float)
    if isinstance(shape, tuple):
        return np.array(shape, dtype=float)
    return np.asarray(shape.exterior.coords, dtype=float)[:-1]


def _edges(vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if len(vertices) == 2:
        return vertices[:1], vertices[1:] - vertices[:1]
    return vertices, np.roll(vertices, -1, axis=0) - vertices


def _ray_hits(origins: np.ndarray, d: np.ndarray, starts: np.ndarray, spans: np.ndarray) -> float:
    """Smallest t >= 0 such that some origin + t*d lies on some segment start + s*span."""
    # Solve o + t d = q + s e for every (origin, segment) pair.
    o = origins[:, None, :]
    q = starts[None, :, :]
    e = spans[None, :, :]
    denom = d[0] * e[..., 1] - d[1] * e[..., 0]
    w = q - o
    # (Nearly) parallel pairs have no crossing: divide them by 1 instead of a denominator that
    # may be tiny enough to overflow the quotient; they are masked out below either way.
    usable = np.abs(denom) > 1e-12
    safe = np.where(usable, denom, 1.0)
    t = (w[..., 0] * e[..., 1] - w[..., 1] * e[..., 0]) / safe
    s = (w[..., 0] * d[1] - w[..., 1] * d[0]) / safe
    good = usable & (t >= -1e-9) & (s >= -1e-9) & (s <= 1 + 1e-9)
    return float(t[good].min()) if good.any() else _INF


def slide_distance(moving: np.ndarray, obstacle: np.ndarray, direction: Point) -> float:
    """How far ``moving`` (convex polygon or segment vertices) slides along ``direction`` (unit
    vector) before touching the convex ``obstacle``; 0 if they already touch, inf if never."""
    d = np.asarray(direction, dtype=float)
    a = Polygon(moving) if len(moving) > 2 else shapely.linestrings(moving)
    b = Polygon(obstacle) if len(obstacle) > 2 else shapely.linestrings(obstacle)
    if shapely.intersects(a, b):
        return 0.0
    s_a, e_a = _edges(moving)
    s_b, e_b = _edges(obstacle)
    return max(0.0, min(_ray_hits(moving, d, s_b, e_b), _ray_hits(obstacle, -d, s_a, e_a)))


def slide_convex(moving: Sequence[Point], moving_shape: BaseGeometry | None,
                 obstacle: Sequence[Point], obstacle_shape: BaseGeometry | None,
                 direction: Point) -> float:
    """`slide_distance` in plain floats, for a handful of vertices (two bases: the charge
    searches try dozens of slides, and numpy's per-call overhead dominated them).

    Same products, differences and order as `slide_distance`, so the answers are identical to
    the last bit. ``*_shape`` are the same shapes as shapely geometries (bases cache theirs) for
    the "already touching" test; None builds them, and only when the bounding boxes meet.

    >>> from campo.engine.geometry.rect import Rect
    >>> a, b = Rect(0.0, 0.0, 90.0, 80.0, 40.0), Rect(10.0, 100.0, 265.0, 80.0, 40.0)
    >>> slide_convex(a.corners, a.polygon, b.corners, b.polygon, a.front) == \\
    ...     slide_distance(outline(a), outline(b), a.front)
    True
    """
    if _boxes_meet(moving, obstacle):
        a = moving_shape if moving_shape is not None else _shape_of(moving)
        b = obstacle_shape if obstacle_shape is not None else _shape_of(obstacle)
        if shapely.intersects(a, b):
            return 0.0
    if len(moving) * len(obstacle) > 1000:   # long outlines: numpy wins (a rectangle against a
        # 2" zone's 36-point outline is still 2.5x faster in plain floats)
        m, o = np.asarray(moving, dtype=float), np.asarray(obstacle, dtype=float)
        d = np.asarray(direction, dtype=float)
        (s_m, e_m), (s_o, e_o) = _edges(m), _edges(o)
        return max(0.0, min(_ray_hits(m, d, s_o, e_o), _ray_hits(o, -d, s_m, e_m)))
    d0, d1 = float(direction[0]), float(direction[1])
    s_a, e_a = _edges_py(moving)
    s_b, e_b = _edges_py(obstacle)
    return max(0.0, min(_ray_hits_py(moving, d0, d1, s_b, e_b),
                        _ray_hits_py(obstacle, -d0, -d1, s_a, e_a)))


def _shape_of(vertices: Sequence[Point]) -> BaseGeometry:
    return Polygon(vertices) if len(vertices) > 2 else shapely.linestrings(vertices)


def _edges_py(v: Sequence[Point]) -> tuple[Sequence[Point], list[Point]]:
    if len(v) == 2:
        return v[:1], [(v[1][0] - v[0][0], v[1][1] - v[0][1])]
    n = len(v)
    return v, [(v[(i + 1) % n][0] - v[i][0], v[(i + 1) % n][1] - v[i][1]) for i in range(n)]


def _ray_hits_py(origins: Sequence[Point], d0: float, d1: float, starts: Sequence[Point],
                 spans: Sequence[Point]) -> float:
    """`_ray_hits` operation for operation, in Python floats."""
    best = _INF
    for (q0, q1), (e0, e1) in zip(starts, spans):
        denom = d0 * e1 - d1 * e0
        if not abs(denom) > 1e-12:
            continue
        for o0, o1 in origins:
            w0, w1 = q0 - o0, q1 - o1
            t = (w0 * e1 - w1 * e0) / denom
            if t >= -1e-9 and t < best:
                s = (w0 * d1 - w1 * d0) / denom
                if s >= -1e-9 and s <= 1 + 1e-9:
                    best = t
    return best


def _boxes_meet(a: Sequence[Point], b: Sequence[Point]) -> bool:
    """The bounding boxes overlap or touch (shapes whose boxes are apart cannot intersect)."""
    ax = [p[0] for p in a]
    bx = [p[0] for p in b]
    if max(ax) < min(bx) or max(bx) < min(ax):
        return False
    ay = [p[1] for p in a]
    by = [p[1] for p in b]
    return not (max(ay) < min(by) or max(by) < min(ay))


def wheel_cost(rect: Rect, turn_deg: float) -> float:
    """Distance travelled by the outer moving corner of a wheel on a front corner (the frontage
    times the angle in radians)."""
    return rect.width * math.radians(abs(turn_deg))


def wheel(rect: Rect, turn_deg: float) -> Rect:
    """The base wheeled by ``turn_deg`` (CCW positive) pivoting on the front corner on the side it
    turns toward (left corner for a left/CCW wheel)."""
    pivot = rect.front_left if turn_deg > 0 else rect.front_right
    return rect.pivoted(pivot, turn_deg)


def wheel_poses(rect: Rect, turn_deg: float, step_deg: float = 10.0) -> list[Rect]:
    """Intermediate poses of a wheel, every ``step_deg`` degrees, both ends included."""
    steps = max(1, math.ceil(abs(turn_deg) / step_deg))
    pivot = rect.front_left if turn_deg > 0 else rect.front_right
    return [rect.pivoted(pivot, turn_deg * i / steps) for i in range(steps + 1)]


def swept_area(poses: list[Rect]) -> Polygon:
    """Area covered moving through ``poses`` in order (hull of each consecutive pair)."""
    if len(poses) == 1:
        return poses[0].polygon
    corners = np.array([p.corners for p in poses], dtype=float)            # (n, 4, 2)
    pairs = np.concatenate([corners[:-1], corners[1:]], axis=1)            # (n-1, 8, 2)
    return shapely.union_all(shapely.convex_hull(shapely.multipoints(pairs)))


_CERTAIN_MM = 1e-6   # certain answers need this much to spare (plus 5 % of the shrink, far more
# than GEOS's polygonal arcs round a concave corner: 0.5 % of it); closer calls go to GEOS


class SweptArea:
    """`swept_area(poses)` shrunk by ``tol`` ("inner": what a shape must reach to be in the way),
    answered without building it when the answer is certain.

    Certainly not: the shape's bounding box misses the box of every pose shrunk by ``tol``; or
    the shape is apart from every piece of the swept area (the hull of two consecutive poses,
    separating axes in plain floats); or, moved 0.9 ``tol`` away, it is apart from every piece
    (so each of its points has a point outside the area closer than ``tol``: a neighbour in the
    line touching the path's edge). Certainly yes: the shape overlaps one pose, or the straight
    run after the wheel, shrunk by ``tol`` (a rectangle shrunk by a distance is exactly the
    smaller rectangle, and each lies inside the swept area). Margins of ``_CERTAIN_MM`` + 5 % of
    ``tol`` keep every certain answer clear of float noise and of GEOS's polygonal arcs; the few
    close calls left ask the exact shapely area (`inner`, built only then), so the answers are
    those of ``shapely.intersects(swept_area(poses).buffer(-tol), shape)``
    (tests/test_attila_swept_area.py).
    """

    def __init__(self, poses: list[Rect], tol: float) -> None:
        self.poses = poses
        self.tol = tol
        self._spare = _CERTAIN_MM + 0.05 * tol
        xs = [x for p in poses for x, _ in p.corners]
        ys = [y for p in poses for _, y in p.corners]
        shrink = tol - self._spare       # the inner area lies inside the shrunk box (with
        # the spare for GEOS's rounding: clear means clear of the box grown back by it)
        self._box = (min(xs) + shrink, min(ys) + shrink, max(xs) - shrink, max(ys) - shrink)

    @functools.cached_property
    def inner(self) -> BaseGeometry:
        """The exact inner area (GEOS), built on first use."""
        return swept_area(self.poses).buffer(-self.tol)

    @functools.cached_property
    def _inner_rects(self) -> list[tuple[Point, Point, Point, float, float]]:
        """(centre, front, right, half-width, half-depth) of rectangles lying inside the inner
        area with the spare: the straight run (the last two poses, same heading), then each pose
        from the last, shrunk by ``tol`` and the spare."""
        shrink = self.tol + self._spare
        rows = []
        a, b = (self.poses[-2], self.poses[-1]) if len(self.poses) >= 2 else (None, None)
        if a is not None and b is not None and \
                abs(angle_diff(a.heading_deg, b.heading_deg)) < 1e-9:
            run = math.hypot(b.cx - a.cx, b.cy - a.cy)
            rows.append((((a.cx + b.cx) / 2, (a.cy + b.cy) / 2), b.front, b.right,
                         b.width / 2 - shrink, b.depth / 2 + run / 2 - shrink))
        rows += [((p.cx, p.cy), p.front, p.right, p.width / 2 - shrink, p.depth / 2 - shrink)
                 for p in reversed(self.poses)]
        return [r for r in rows if r[3] > 0 and r[4] > 0]

    @functools.cached_property
    def _piece_shapes(self) -> np.ndarray:
        """The hull of each consecutive pair of poses (the pieces `swept_area` unites)."""
        if len(self.poses) == 1:
            return np.array([self.poses[0].polygon])
        corners = np.array([p.corners for p in self.poses], dtype=float)
        pairs = np.concatenate([corners[:-1], corners[1:]], axis=1)
        return shapely.convex_hull(shapely.multipoints(pairs))

    def box_clear(self, xs: Sequence[float], ys: Sequence[float]) -> bool:
        """Certainly clear: the shape's bounding box misses the inner area's."""
        x0, y0, x1, y1 = self._box
        return max(xs) < x0 or min(xs) > x1 or max(ys) < y0 or min(ys) > y1

    def box_misses(self, box: tuple[float, float, float, float]) -> bool:
        """`box_clear` of a shape's bounding box (x0, y0, x1, y1)."""
        x0, y0, x1, y1 = self._box
        return box[2] < x0 or box[0] > x1 or box[3] < y0 or box[1] > y1

    def meets_rect(self, rect: Rect) -> bool:
        """``shapely.intersects(self.inner, rect.polygon)``, certain answers first."""
        corners = rect.corners
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        box = (min(xs), min(ys), max(xs), max(ys))
        if self.box_misses(box):
            return False
        inside = self._inner_rects
        if any(_rects_overlap(corners, piece) for piece in inside[:2]):
            return True                        # in the straight run or the final pose
        own = [rect.front, rect.right]
        if all(_separated(corners, box, own, piece) for piece in self._piece_parts):
            return False
        if any(_rects_overlap(corners, piece) for piece in inside[2:]):
            return True
        if "inner" not in self.__dict__ and self._clear_moved_away(rect):
            return False
        return bool(shapely.intersects(self.inner, rect.polygon))

    def certainly_meets_rect(self, rect: Rect) -> bool:
        """`meets_rect` is certainly True (plain-float tests only, no GEOS)."""
        return any(_rects_overlap(rect.corners, piece) for piece in self._inner_rects)

    def _clear_moved_away(self, rect: Rect) -> bool:
        """The base moved 0.9 ``tol`` straight away from the start pose (along its own axis
        closest to that direction, or the next) misses every piece: each of its points then has
        a point outside the swept area closer than ``tol`` (a neighbour in the line). Plain-float
        separating axes (the base's, the piece's poses' and the corner tracks' normals); no
        separation found = not certain."""
        if self.tol <= 0:
            return False
        st = self.poses[0]
        dx, dy = rect.cx - st.cx, rect.cy - st.cy
        away = [rect.front, (-rect.front[0], -rect.front[1]), rect.right,
                (-rect.right[0], -rect.right[1])]
        away.sort(key=lambda a: -(a[0] * dx + a[1] * dy))
        shift = 0.9 * self.tol
        own = [rect.front, rect.right]
        for ax, ay in away[:2]:
            moved = [(x + shift * ax, y + shift * ay) for x, y in rect.corners]
            xs, ys = [x for x, _ in moved], [y for _, y in moved]
            box = (min(xs), min(ys), max(xs), max(ys))
            if all(_separated(moved, box, own, piece) for piece in self._piece_parts):
                return True
        return False

    @functools.cached_property
    def _piece_parts(self) -> list[tuple[list[Point], tuple[float, float, float, float],
                                          list[tuple[float, float, float, float]]]]:
        """Per piece (the hull of two consecutive poses): its corners, their bounding box and
        candidate separating axes (the poses' axes, the corners' tracks' normals), each with
        the piece's extent along it (ax, ay, lowest, highest)."""
        pairs = list(zip(self.poses, self.poses[1:])) or [(self.poses[0], self.poses[0])]
        out = []
        for a, b in pairs:
            pts = list(a.corners) + list(b.corners)
            xs, ys = [x for x, _ in pts], [y for _, y in pts]
            out.append((pts, (min(xs), min(ys), max(xs), max(ys)), piece_extents(a, b, pts)))
        return out

    def certainly_meets(self, shape: BaseGeometry) -> bool:
        """`meets` is certainly True: the shape reaches a pose or the straight run shrunk by
        ``tol`` and the spare (one vectorised GEOS call, no swept area built)."""
        rects = self._inner_rects
        return bool(rects) and bool(shapely.intersects(shape, _rect_shapes(rects)).any())

    def meets(self, vertices: np.ndarray, shape: BaseGeometry) -> bool:
        """``shapely.intersects(self.inner, shape)`` for any polygon or line (``vertices``: its
        outline, closing point included, or its line points), certain answers first."""
        v = np.asarray(vertices, dtype=float)
        if self.box_clear(v[:, 0].tolist(), v[:, 1].tolist()):
            return False
        if self.certainly_meets(shape):
            return True
        if self._clear_when_moved(v, shape):
            return False
        return bool(shapely.intersects(self.inner, shape))

    def _clear_when_moved(self, v: np.ndarray, shape: BaseGeometry) -> bool:
        """The shape moved 0.9 ``tol`` along some edge normal (either way) or axis misses every
        piece of the swept area (GEOS, all directions in one call)."""
        if self.tol <= 0:
            return False
        e = np.diff(v, axis=0)
        length = np.linalg.norm(e, axis=1)
        e, length = e[length > 1e-9], length[length > 1e-9]
        n = np.stack([e[:, 1], -e[:, 0]], axis=1) / length[:, None]
        dirs = [n, -n, np.array([(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)])]
        moved_v = v[None, :, :] + (0.9 * self.tol * np.concatenate(dirs))[:, None, :]
        moved = shapely.polygons(moved_v) if shape.geom_type == "Polygon" \
            else shapely.linestrings(moved_v)
        hits = shapely.intersects(moved[:, None], self._piece_shapes[None, :])
        return bool((~hits.any(axis=1)).any())


def _separated(quad: Sequence[Point], box: tuple[float, float, float, float],
               own_axes: list[Point],
               piece: tuple[list[Point], tuple[float, float, float, float],
                            list[tuple[float, float, float, float]]]) -> bool:
    """A quad (``box``: its bounding box) is certainly apart from a piece's hull (a gap along
    some tried axis: the piece's own, then the quad's)."""
    pts, (x0, y0, x1, y1), extents = piece
    if box[2] < x0 or box[0] > x1 or box[3] < y0 or box[1] > y1:
        return True
    for ax, ay, lo, hi in extents:
        q = [x * ax + y * ay for x, y in quad]
        if max(q) < lo or hi < min(q):
            return True
    for ax, ay in own_axes:
        q = [x * ax + y * ay for x, y in quad]
        p = [x * ax + y * ay for x, y in pts]
        if max(q) < min(p) or max(p) < min(q):
            return True
    return False


def _rects_overlap(corners: Sequence[Point],
                   piece: tuple[Point, Point, Point, float, float]) -> bool:
    """A convex quad and a rectangle (centre, front, right, half-width, half-depth) overlap
    (separating axes of both, strictly)."""
    (cx, cy), (fx, fy), (rx, ry), hw, hd = piece
    for ax, ay, half in ((fx, fy, hd), (rx, ry, hw)):
        mid = cx * ax + cy * ay
        proj = [x * ax + y * ay for x, y in corners]
        if max(proj) <= mid - half or min(proj) >= mid + half:
            return False
    (x0, y0), (x1, y1), (x2, y2) = corners[0], corners[1], corners[2]
    for ex, ey in ((x1 - x0, y1 - y0), (x2 - x1, y2 - y1)):
        norm = math.hypot(ex, ey)
        if norm < 1e-12:
            return False
        ax, ay = ex / norm, ey / norm
        mid = cx * ax + cy * ay
        ext = hw * abs(rx * ax + ry * ay) + hd * abs(fx * ax + fy * ay)
        proj = [x * ax + y * ay for x, y in corners]
        if max(proj) <= mid - ext or min(proj) >= mid + ext:
            return False
    return True


def _rect_shapes(rects: list[tuple[Point, Point, Point, float, float]]) -> np.ndarray:
    quads = []
    for (cx, cy), (fx, fy), (rx, ry), hw, hd in rects:
        quads.append([(cx - hw * rx + hd * fx, cy - hw * ry + hd * fy),
                      (cx + hw * rx + hd * fx, cy + hw * ry + hd * fy),
                      (cx + hw * rx - hd * fx, cy + hw * ry - hd * fy),
                      (cx - hw * rx - hd * fx, cy - hw * ry - hd * fy)])
    return shapely.polygons(np.array(quads, dtype=float))


def piece_extents(a: Rect, b: Rect, pts: list[tuple[float, float]]
                  ) -> list[tuple[float, float, float, float]]:
    """The separating axes of the hull of poses ``a`` and ``b`` (corners ``pts``) and its extent
    along each: (ax, ay, lowest, highest). The bases' own axes, plus for a turn the normals of
    the corners' tracks."""
    axes = [a.front, a.right]
    if abs(angle_diff(a.heading_deg, b.heading_deg)) > 1e-9:
        axes += [b.front, b.right]
        for (x0, y0), (x1, y1) in zip(a.corners, b.corners):
            ex, ey = x1 - x0, y1 - y0
            n = math.hypot(ex, ey)
            if n > 1e-9:
                axes.append((-ey / n, ex / n))
    extents = []
    for ax, ay in axes:
        proj = [x * ax + y * ay for x, y in pts]
        extents.append((ax, ay, min(proj), max(proj)))
    return extents


# --- many at once (array-first) ------------------------------------------------------------

_EPS = 1e-9


def convex_slides(moving: np.ndarray, obstacle: np.ndarray, directions: np.ndarray,
                  reach: float | np.ndarray = 0.0) -> np.ndarray:
    """How far each convex shape ``moving[k]`` slides along ``directions[k]`` (unit vectors)
    before it comes within ``reach`` (mm) of the convex ``obstacle[k]``: 0 when it already is,
    inf when it never does.

    Shapes are vertex arrays, (K, m, 2) and (K, n, 2), in order around the outline (2 vertices:
    a segment, such as a front edge). Exact for convex shapes: the first contact is a vertex of
    one meeting an edge of the other pushed out by ``reach``, or a vertex coming within
    ``reach`` of a vertex; whether they are already within ``reach`` is GEOS's answer.

    >>> a = np.array([[[-40.0, 20.0], [40.0, 20.0], [40.0, -20.0], [-40.0, -20.0]]])
    >>> b = a + [0.0, 100.0]
    >>> convex_slides(a, b, np.array([[0.0, 1.0]])).tolist()          # 100 - 20 - 20
    [60.0]
    >>> convex_slides(a, b, np.array([[0.0, 1.0]]), 10.0).round(6).tolist()
    [50.0]
    >>> convex_slides(a, b + [500.0, 0.0], np.array([[0.0, 1.0]])).tolist()
    [inf]
    """
    moving = np.asarray(moving, dtype=float)
    obstacle = np.asarray(obstacle, dtype=float)
    d = np.asarray(directions, dtype=float)
    k = len(moving)
    if k == 0:
        return np.zeros(0)
    r = np.broadcast_to(np.asarray(reach, dtype=float), (k,))
    best = np.minimum(_vertex_hits(moving, obstacle, d, r), _vertex_hits(obstacle, moving, -d, r))
    within = shapely.dwithin(_shapes(moving), _shapes(obstacle), r)
    return np.where(within, 0.0, best)


def _shapes(vertices: np.ndarray) -> np.ndarray:
    """Polygons (or, for 2 vertices, segments) from vertex arrays."""
    if vertices.shape[1] == 2:
        return shapely.linestrings(vertices)
    return shapely.polygons(vertices)


def _vertex_hits(points: np.ndarray, shape: np.ndarray, d: np.ndarray, reach: np.ndarray
                 ) -> np.ndarray:
    """Least t >= 0 at which some ``points[k] + t d[k]`` comes within ``reach[k]`` of the convex
    ``shape[k]``'s boundary from outside: on an edge pushed out by ``reach`` or within
    ``reach`` of a vertex. (K,), inf where none does."""
    qx, qy = shape[..., 0], shape[..., 1]                              # (K, n)
    following = (np.arange(shape.shape[1]) + 1) % shape.shape[1]
    nx, ny = qx[:, following], qy[:, following]
    ex, ey = nx - qx, ny - qy
    length = np.hypot(ex, ey)
    # outward normals: (ey, -ex) for a counter-clockwise outline; both sides of a segment
    area = np.sum(qx * ny - nx * qy, axis=1)
    scale = np.where(area < 0, -1.0, 1.0)[:, None] / np.where(length > _EPS, length, 1.0)
    sx = qx + ey * scale * reach[:, None]                              # pushed-out edges
    sy = qy - ex * scale * reach[:, None]
    px, py = points[..., 0][:, :, None], points[..., 1][:, :, None]     # (K, m, 1)
    wx, wy = sx[:, None, :] - px, sy[:, None, :] - py                   # (K, m, n)
    d0, d1 = d[:, 0, None, None], d[:, 1, None, None]
    ex, ey = ex[:, None, :], ey[:, None, :]
    denom = d0 * ey - d1 * ex
    usable = (np.abs(denom) > 1e-12) & (length > _EPS)[:, None, :]
    den = np.where(usable, denom, 1.0)
    t = (wx * ey - wy * ex) / den
    s = (wx * d1 - wy * d0) / den
    t = np.where(usable & (t >= -_EPS) & (s >= -_EPS) & (s <= 1 + _EPS), t, np.inf)
    best = np.maximum(t.min(axis=(1, 2)), 0.0)
    if np.any(reach > 0):
        vx, vy = qx[:, None, :] - px, qy[:, None, :] - py               # vertex - point
        along = vx * d0 + vy * d1
        across2 = np.maximum(vx * vx + vy * vy - along * along, 0.0)
        r2 = (reach * reach)[:, None, None]
        tc = along - np.sqrt(np.maximum(r2 - across2, 0.0))
        tc = np.where((across2 <= r2) & (tc >= -_EPS), tc, np.inf)
        best = np.minimum(best, np.maximum(tc.min(axis=(1, 2)), 0.0))
    return best


def hull_pieces(corners: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The area swept moving through consecutive poses, as pieces (`swept_area` unites them):
    the convex hull of each pose and the next of the same ``owner``. ``corners`` (n, 4, 2) in
    path order, owners grouped; returns (piece polygons, owner of each piece). An owner with a
    single pose gets that pose."""
    owner = np.asarray(owner)
    if not len(owner):
        return np.zeros(0, dtype=object), np.zeros(0, dtype=int)
    same = owner[1:] == owner[:-1]
    lone = np.ones(len(owner), dtype=bool)
    lone[1:] &= ~same
    lone[:-1] &= ~same
    pairs = np.concatenate([corners[:-1][same], corners[1:][same]], axis=1)
    pieces = shapely.convex_hull(shapely.multipoints(pairs)) if len(pairs) \
        else np.zeros(0, dtype=object)
    single = shapely.polygons(corners[lone])
    return (np.concatenate([pieces, single]),
            np.concatenate([owner[:-1][same], owner[lone]]))


def wheel_steps(turn_deg: np.ndarray, step_deg: float = 10.0) -> np.ndarray:
    """How many steps `wheel_poses` cuts each wheel into (at least 1)."""
    return np.maximum(1, np.ceil(np.abs(turn_deg) / step_deg)).astype(int)
