"""Line of sight by sampling straight lines between two shapes and testing them against obstacles.

A target is seen when at least one sampled line from the firer's front to the target is clear
(the rulebooks ask to "trace a line"). Obstacles are of three kinds:

* blocking bodies (bases) that a line may not touch; optionally a corridor of half-width ``w``
  around the line must stay clear of them (artillery's 1" gap);
* blocking lines (hill crests, tree rows) that a line may not cross strictly between the ends;
* deep areas (woods, towns) inside any one of which a line may run at most ``max_depth`` mm.

Bodies and lines sit in STRtrees so that one query tests every sampled line at once.

>>> from shapely.geometry import Polygon, LineString
>>> wall = Polygon([(40, -10), (60, -10), (60, 10), (40, 10)])
>>> field = SightField(bodies=[wall], body_ids=["x"])
>>> lines = sight_lines([(0, 0)], [(100, 0), (100, 50)])
>>> field.clear(lines).tolist()
[False, True]
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon
from shapely.strtree import STRtree

from campo.engine.geometry.rect import Point
from campo.engine.geometry.segments import point_segment_distance, segments_near_quads
from campo.engine.geometry.sight_terrain import TerrainTests


def sample_segment(p: Point, q: Point, n: int) -> list[Point]:
    """``n`` evenly spaced points from ``p`` to ``q`` inclusive (``n`` >= 1; 1 = the midpoint)."""
    if n <= 1:
        return [((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)]
    return [(p[0] + (q[0] - p[0]) * i / (n - 1), p[1] + (q[1] - p[1]) * i / (n - 1)) for i in range(n)]


def sample_outline(shape: Polygon, per_edge: int = 2) -> list[Point]:
    """Vertices of a polygon's outline plus ``per_edge`` interior points of each edge."""
    if shape.is_empty:
        return []
    polys = list(getattr(shape, "geoms", [shape]))
    points: list[Point] = []
    for poly in polys:
        if poly.geom_type != "Polygon":
            points.extend((float(x), float(y)) for x, y in np.asarray(shapely.get_coordinates(poly)))
            continue
        coords = list(poly.exterior.coords)[:-1]
        for i, a in enumerate(coords):
            b = coords[(i + 1) % len(coords)]
            points.append((a[0], a[1]))
            for k in range(1, per_edge + 1):
                t = k / (per_edge + 1)
                points.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
    return points


def sight_lines(origins: Sequence[Point], ends: Sequence[Point]) -> np.ndarray:
    """Every line from an origin to an end, shortest first (a clear short line is found first)."""
    pairs = sorted(((o, e) for o in origins for e in ends),
                   key=lambda oe: (oe[0][0] - oe[1][0]) ** 2 + (oe[0][1] - oe[1][1]) ** 2)
    coords = np.array([[o, e] for o, e in pairs], dtype=float).reshape(-1, 2, 2)
    return shapely.linestrings(coords)


class SightField(TerrainTests):
    """The obstacles of one moment of a game, indexed for many sight-line tests (the terrain
    tests are `sight_terrain.TerrainTests`)."""

    def __init__(self, bodies: Sequence[Polygon] = (), body_ids: Sequence[str] = (),
                 walls: Sequence[LineString] = (), wall_ids: Sequence[str] = (),
                 deep_areas: Sequence[Polygon] = (), deep_area_ids: Sequence[str] = (),
                 max_depth: float = float("inf"), graze: float = 0.0) -> None:
        # A line grazing a body's outline (within ``graze``) is not blocked by it: bodies are
        # shrunk by that much, so that measurement noise cannot flip a touching line.
        self._bodies: np.ndarray | None = np.empty(len(bodies), dtype=object)
        self._bodies[:] = list(bodies)
        if graze > 0 and len(self._bodies):
            self._bodies = self._shrunk(self._bodies, graze)
        self.body_ids = list(body_ids)
        self.walls = np.array(list(walls), dtype=object)
        self.wall_ids = list(wall_ids) or [f"wall-{i}" for i in range(len(self.walls))]
        self.deep_areas = np.array(list(deep_areas), dtype=object)
        self.deep_area_ids = list(deep_area_ids) or [f"area-{i}" for i in range(len(self.deep_areas))]
        self.max_depth = max_depth
        self._walls_tree = STRtree(self.walls) if len(self.walls) else None
        self._areas_tree = STRtree(self.deep_areas) if len(self.deep_areas) else None

    @property
    def bodies(self) -> np.ndarray:
        """The bodies as polygons (shrunk by the graze). When the compiled shrink was sure of
        every body, they are made from the ``quads`` on first use: the sight walk needs
        only those."""
        if self._bodies is None:
            quads = self._quads_cache
            self._bodies = shapely.polygons(np.concatenate([quads, quads[:, :1]], axis=1))
        return self._bodies

    def _shrunk(self, bodies: np.ndarray, graze: float) -> np.ndarray | None:
        """``bodies`` buffered by -``graze`` (mitre joins), as GEOS does it: compiled
        (`erode_kernel.eroded_quads`, GEOS's coordinates) for the quadrilaterals it is sure
        of, GEOS for the others. When all are sure, their corners become the ``quads`` and
        the polygons wait for `bodies` (None)."""
        from campo.engine.geometry.erode_kernel import VERIFIED_GEOS, eroded_quads

        corners = _quads_of(bodies)
        if corners is None or shapely.geos_version[:2] != VERIFIED_GEOS:
            return shapely.buffer(bodies, -graze, join_style="mitre")

        quads, sure = eroded_quads(corners, float(graze))
        if sure.all():
            self._quads_cache = quads
            return None
        shrunk = np.empty(len(quads), dtype=object)
        shrunk[sure] = shapely.polygons(np.concatenate([quads[sure], quads[sure][:, :1]], axis=1))
        shrunk[~sure] = shapely.buffer(bodies[~sure], -graze, join_style="mitre")
        return shrunk

    @cached_property
    def _bodies_tree(self) -> STRtree | None:
        """The bodies' index (built on first use: the compiled sight walk has its own grid)."""
        return STRtree(self.bodies) if len(self.bodies) else None

    def clear(self, lines: np.ndarray, *, exclude: Collection[str] = (),
              corridor: float = 0.0, corridor_exclude: Collection[str] = (),
              ends: Sequence[Polygon] = (), ignore_bodies: Collection[str] | None = None,
              uncounted_areas: Collection[str] = ()) -> np.ndarray:
        """For each line, True when it is clear of every obstacle.

        ``exclude``: body ids that never block (the firer, the target). ``corridor``: half-width
        of the band around each line that other bodies and walls may not touch, except bodies in
        ``corridor_exclude`` (they only block the line itself). ``ends``: shapes (firer, target)
        inside which a wall crossing does not count ("strictly between"). ``ignore_bodies``:
        bodies fired over (None = none). ``uncounted_areas``: deep-area ids whose depth is not
        counted.
        """
        query = SightQuery(frozenset(exclude), corridor, frozenset(corridor_exclude), tuple(ends),
                           frozenset(ignore_bodies or ()), frozenset(uncounted_areas))
        return self.clear_many(lines, np.zeros(len(lines), dtype=int), [query])

    def clear_many(self, lines: np.ndarray, owners: np.ndarray,
                   queries: Sequence[SightQuery]) -> np.ndarray:
        """Many sight questions at once: line ``i`` belongs to question ``queries[owners[i]]``.

        Every obstacle kind is one STRtree query over all the lines (the work is in C); Python
        only looks at the hits.
        """
        return self._clear_many(lines, owners, queries)

    def _clear_many(self, lines: np.ndarray, owners: np.ndarray,
                    queries: Sequence[SightQuery]) -> np.ndarray:
        n = len(lines)
        ok = np.ones(n, dtype=bool)
        if n == 0:
            return ok
        owners = np.asarray(owners)
        if self._bodies_tree is not None:
            nb = len(self.bodies)
            index_of = self.body_index
            widths = np.array([q.corridor for q in queries])
            # (owner, body) pairs that never block, and those that only block the line itself
            skip, thin_only = self._skip_codes(queries, nb, index_of)
            if self.quads is not None:
                self._block_by_bodies_once(lines, owners, ok, widths, skip, thin_only)
                widths = np.zeros(0)
            else:
                self._block_by_bodies(lines, owners, ok, np.zeros(len(queries)), skip)
            if (widths > 0).any() and ok.any():
                skip_wide = self._codes(queries, nb, index_of, lambda q: (
                    q.exclude | q.ignore_bodies | q.corridor_exclude))
                self._block_by_bodies(lines, owners, ok, widths, skip_wide)
        if self._walls_tree is not None and ok.any():
            self._block_walls(lines, owners, queries, ok)
        if self._areas_tree is not None and np.isfinite(self.max_depth) and ok.any():
            self._block_depth(lines, owners, queries, ok)
        return ok

    def _block_by_bodies(self, lines: np.ndarray, owners: np.ndarray, ok: np.ndarray,
                         widths: np.ndarray, skip: np.ndarray) -> None:
        """Clear lines (``ok``) coming within ``widths[owner]`` of a body their owner does not
        skip become blocked. Candidates: one STRtree envelope query over all lines (grown by
        their width); the exact test is vectorised numpy against the bodies' rectangles (GEOS
        when some body is not a rectangle)."""
        wide = widths.max() > 0
        live = np.nonzero(ok & (widths[owners] > 0))[0] if wide else np.nonzero(ok)[0]
        if not len(live):
            return
        nb = len(self.bodies)
        reach = widths[owners[live]]
        quads = self.quads
        if quads is None:
            if wide:
                li, bi = self._bodies_tree.query(lines[live], predicate="dwithin", distance=reach)
            else:
                li, bi = self._bodies_tree.query(lines[live], predicate="intersects")
            blocking = ~np.isin(owners[live[li]] * nb + bi, skip)
            ok[live[np.unique(li[blocking])]] = False
            return
        xy = shapely.get_coordinates(lines[live]).reshape(-1, 2, 2)
        lo, hi = xy.min(axis=1) - reach[:, None], xy.max(axis=1) + reach[:, None]
        boxes = shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1])
        li, bi = self._bodies_tree.query(boxes)                 # envelopes only: fast
        keep = ~np.isin(owners[live[li]] * nb + bi, skip)
        li, bi = li[keep], bi[keep]
        p0, p1 = xy[li, 0], xy[li, 1]
        centre, radius = self.quad_circles
        c = centre[bi]
        r = reach[li]
        near = point_segment_distance(c[:, 0], c[:, 1], p0[:, 0], p0[:, 1], p1[:, 0],
                                      p1[:, 1]) <= radius[bi] + r + 1e-9
        li, bi = li[near], bi[near]
        r = r[near]
        hit = segments_near_quads(p0[near], p1[near], quads[bi], r)
        ok[live[np.unique(li[hit])]] = False

    def _skip_codes(self, queries: Sequence[SightQuery], nb: int,
                    index_of: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
        """(codes of the (owner, body) pairs that never block, codes of those that only block
        the line itself), sorted; kept for the next call with the same list of questions (the
        batch callers ask twice: middle lines, then the rest)."""
        cached = getattr(self, "_skip_cache", None)
        if cached is not None and cached[0] is queries and cached[1] == len(queries):
            return cached[2], cached[3]
        skip = np.unique(self._codes(queries, nb, index_of,
                                     lambda q: q.exclude | q.ignore_bodies))
        thin = np.unique(self._codes(queries, nb, index_of, lambda q: q.corridor_exclude))
        self._skip_cache = (queries, len(queries), skip, thin)
        return skip, thin

    def _skip_tables(self, skip: np.ndarray, thin_only: np.ndarray, n_queries: int,
                     nb: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The skip codes as (question, body) boolean tables, for lookups instead of
        ``np.isin`` (None when the tables would be large); kept with the codes."""
        cached = getattr(self, "_skip_table_cache", None)
        if cached is not None and cached[0] is skip and cached[1] is thin_only:
            return cached[2]
        tables = None
        if n_queries * nb <= 4_000_000:
            never = np.zeros(n_queries * nb, dtype=bool)
            never[skip] = True
            thin = np.zeros(n_queries * nb, dtype=bool)
            thin[thin_only] = True
            tables = (never.reshape(n_queries, nb), thin.reshape(n_queries, nb))
        self._skip_table_cache = (skip, thin_only, tables)
        return tables

    def _block_by_bodies_once(self, lines: np.ndarray, owners: np.ndarray, ok: np.ndarray,
                              widths: np.ndarray, skip: np.ndarray, thin_only: np.ndarray) -> None:
        """Both body tests of `clear_many` in one pass (rectangular bodies): a clear line is
        blocked by a body its owner does not skip that it touches, or comes within the
        owner's corridor of (unless the body only blocks the line itself). The same answers as
        testing the line itself and then the corridor, since a corridor test includes the line."""
        live = np.nonzero(ok)[0]
        if not len(live):
            return
        nb = len(self.bodies)
        reach = widths[owners[live]]
        xy = shapely.get_coordinates(lines[live]).reshape(-1, 2, 2)
        lo, hi = xy.min(axis=1) - reach[:, None], xy.max(axis=1) + reach[:, None]
        boxes = shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1])
        li, bi = self._bodies_tree.query(boxes)                 # envelopes only: fast
        code = owners[live[li]] * nb + bi
        tables = self._skip_tables(skip, thin_only, len(widths), nb)
        keep = ~(tables[0].ravel()[code] if tables is not None else np.isin(code, skip))
        li, bi, code = li[keep], bi[keep], code[keep]
        r = reach[li]
        if len(thin_only) and r.any():
            thin = tables[1].ravel()[code] if tables is not None else np.isin(code, thin_only)
            r = np.where(thin, 0.0, r)
        p0, p1 = xy[li, 0], xy[li, 1]
        centre, radius = self.quad_circles
        c = centre[bi]
        near = point_segment_distance(c[:, 0], c[:, 1], p0[:, 0], p0[:, 1], p1[:, 0],
                                      p1[:, 1]) <= radius[bi] + r + 1e-9
        li, bi, r = li[near], bi[near], r[near]
        hit = segments_near_quads(p0[near], p1[near], self.quads[bi], r)
        ok[live[np.unique(li[hit])]] = False

    @property
    def quad_circles(self) -> tuple[np.ndarray, np.ndarray]:
        """(centre, radius) of a circle holding each rectangular body (a cheap first test)."""
        if not hasattr(self, "_circles_cache"):
            q = self.quads
            centre = (q[:, 0] + q[:, 1] + q[:, 2] + q[:, 3]) / 4   # the mean, in its order
            d = q - centre[:, None, :]
            radius = np.sqrt(d[:, :, 0] * d[:, :, 0] + d[:, :, 1] * d[:, :, 1]).max(axis=1)
            self._circles_cache = (centre, radius)
        return self._circles_cache

    @property
    def quads(self) -> np.ndarray | None:
        """Every body as 4 vertices (bases are rectangles), or None if some body is not."""
        if not hasattr(self, "_quads_cache"):
            self._quads_cache = _quads_of(self.bodies)
        return self._quads_cache

    @property
    def body_index(self) -> dict[str, int]:
        """Body id -> its position in ``bodies``."""
        if not hasattr(self, "_body_index_cache"):
            self._body_index_cache = {bid: i for i, bid in enumerate(self.body_ids)}
        return self._body_index_cache

    @staticmethod
    def _codes(queries: Sequence[SightQuery], nb: int, index_of: dict[str, int],
               ids_of: object) -> np.ndarray:
        """owner * nb + body for every body id each query names (numbers, so numpy can test
        thousands of hits at once)."""
        codes = [k * nb + index_of[i] for k, q in enumerate(queries) for i in ids_of(q)
                 if i in index_of]
        return np.array(codes, dtype=np.int64)


def _quads_of(shapes: np.ndarray) -> np.ndarray | None:
    """The polygons' 4 corners each (n, 4, 2), or None if some shape is not a polygon of 4
    corners without holes."""
    n = len(shapes)
    if n and (shapely.get_type_id(shapes) == 3).all() \
            and (shapely.get_num_interior_rings(shapes) == 0).all():
        ring = shapely.get_exterior_ring(shapes)
        if (shapely.get_num_coordinates(ring) == 5).all():   # 4 corners, closed
            return shapely.get_coordinates(ring).reshape(n, 5, 2)[:, :4].copy()
    return None


@dataclass(frozen=True)
class SightQuery:
    """What one sight question ignores and needs (see `SightField.clear`)."""

    exclude: frozenset[str] = frozenset()
    corridor: float = 0.0
    corridor_exclude: frozenset[str] = frozenset()
    ends: tuple[Polygon, ...] = ()
    ignore_bodies: frozenset[str] = frozenset()
    uncounted_areas: frozenset[str] = frozenset()
