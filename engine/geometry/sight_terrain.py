"""The terrain tests of sight lines (crests and tree rows, the depth inside woods and towns), as
`SightField` asks them: the wall and deep-area halves of `SightField.clear_many`, their array
form for lines already clear of bodies (`clear_of_terrain`), and the same obstacles as arrays
for the compiled sight walk (`kernel_terrain`). A mixin: `SightField` holds the obstacles
(``walls``, ``deep_areas``, ``max_depth`` and their STRtrees).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely.strtree import STRtree

from campo.engine.geometry.segments import Segments, clipped_lengths, convex_edges

if TYPE_CHECKING:
    from campo.engine.geometry.sight import SightQuery


class TerrainTests:
    """Walls (``walls``, ``_walls_tree``) and deep areas (``deep_areas``, ``_areas_tree``,
    ``max_depth``) against sight lines."""

    walls: np.ndarray
    deep_areas: np.ndarray
    deep_area_ids: list[str]
    max_depth: float
    _walls_tree: STRtree | None
    _areas_tree: STRtree | None

    def clear_of_terrain(self, lines: np.ndarray | Segments, widths: np.ndarray,
                         end_keys: np.ndarray,
                         end_parts_of: Callable[[np.ndarray], Sequence[np.ndarray]],
                         uncounted: np.ndarray | None, uncounted_rows: np.ndarray) -> np.ndarray:
        """The wall and deep-area tests of `clear_many` alone (for lines already known clear of
        bodies), with the questions given as arrays: per line its corridor half-width, the key
        of its ``ends`` (``end_parts_of(keys)``: their parts, see `_block_walls_rows`) and its row of
        the (row, area) ``uncounted`` table (None: every area counts). ``lines``: linestrings,
        or their coordinates (n, 2, 2): linestrings are then made only where GEOS needs them."""
        lines = Segments.of(lines)
        ok = np.ones(len(lines), dtype=bool)
        if not len(lines):
            return ok
        if self._walls_tree is not None:
            self._block_walls_rows(lines, ok, np.asarray(widths, dtype=float),
                                   np.asarray(end_keys), end_parts_of)
        if self._areas_tree is not None and np.isfinite(self.max_depth) and ok.any():
            self._block_depth_rows(lines, ok, uncounted, np.asarray(uncounted_rows))
        return ok

    def kernel_terrain(self, shot_ends: np.ndarray, bases: np.ndarray | None,
                       holding: np.ndarray | None) -> tuple:
        """The walls and deep areas as the compiled sight walk tests them
        (`sight_kernel.first_clear_lines`, the answers of `clear_of_terrain`). ``shot_ends``:
        per shot, the rows of ``bases`` (index order) of its firer and target; ``bases``: their
        shapes, which cut the walls they meet (ISD A16 "strictly between": the walk leaves
        those walls to GEOS), or None; ``holding``: (base, area) the base's centre is in the
        area, whose depth then does not count for its shots (ISD A15), or None."""
        n = int(shot_ends.max()) + 1 if len(shot_ends) else 1
        if bases is not None:
            n = max(n, len(bases))
        walls = self.walls if self._walls_tree is not None else self.walls[:0]
        coords, spans = self._wall_arrays if len(walls) else (np.zeros((0, 2)),
                                                              np.zeros((0, 2), dtype=np.int64))
        meets = np.zeros((n, len(walls)), dtype=bool)
        if bases is not None and len(walls):
            b, w = self._walls_tree.query(bases)
            hit = shapely.intersects(walls[w], bases[b])
            meets[b[hit], w[hit]] = True
        counted = self._areas_tree is not None and np.isfinite(self.max_depth)
        areas = self.deep_areas if counted else self.deep_areas[:0]
        convex = self._convex_area_edges if len(areas) else []
        sizes = np.array([0 if e is None else len(e) for e in convex], dtype=np.int64)
        stops = np.cumsum(sizes)
        area_spans = np.stack([stops - sizes, stops], axis=1).reshape(-1, 2)
        area_spans[[e is None for e in convex]] = -1
        edges = np.concatenate([e for e in convex if e is not None] or [np.zeros((0, 4))])
        held = np.zeros((n, len(areas)), dtype=bool) if holding is None or not len(areas) \
            else np.ascontiguousarray(holding, dtype=bool)
        return (np.ascontiguousarray(shot_ends, dtype=np.int64), coords, spans,
                np.ascontiguousarray(self._wall_bounds if len(walls) else np.zeros((0, 4))),
                meets, np.ascontiguousarray(self._area_bounds if len(areas) else np.zeros((0, 4)),
                                            dtype=float),
                np.ascontiguousarray(edges, dtype=float), area_spans, held,
                float(self.max_depth) if len(areas) else float("inf"))

    def _block_walls(self, lines: np.ndarray, owners: np.ndarray, queries: Sequence[SightQuery],
                     ok: np.ndarray) -> None:
        """Lines touching (or, with a corridor, coming within its width of) a wall are blocked;
        the part of a wall inside the question's ``ends`` does not count."""
        widths = np.array([q.corridor for q in queries])[owners]
        self._block_walls_rows(lines, ok, widths, owners, lambda keys: [np.array(
            [shapely.union_all(list(queries[o].ends)) if queries[o].ends else None
             for o in keys.tolist()], dtype=object)])

    def _block_walls_rows(self, lines: np.ndarray | Segments, ok: np.ndarray,
                          widths_all: np.ndarray,
                          end_keys: np.ndarray,
                          end_parts_of: Callable[[np.ndarray], Sequence[np.ndarray]]) -> None:
        """`_block_walls` on arrays (``end_parts_of(keys)``: the ends of the lines of those
        keys as the union of a few parts, one array per part, None where there is none).
        Vectorised: each (ends, wall) pair is trimmed once, then one GEOS call per predicate
        tests every hit. A wall meeting no part of the ends stays whole; the parts are joined
        only for the walls that meet them."""
        lines = Segments.of(lines)
        live = np.nonzero(ok)[0]
        widths = widths_all[live]
        li, wi = self._wall_candidates(lines, live, widths)
        if not len(li):
            return
        line_idx = live[li]
        own = end_keys[line_idx]
        keys = own.astype(np.int64) * len(self.walls) + wi
        uniq, inverse = np.unique(keys, return_inverse=True)
        trimmed = self.walls[uniq % len(self.walls)]
        cut_key = uniq // len(self.walls)
        keys_used, key_at = np.unique(cut_key, return_inverse=True)
        parts = [np.asarray(p, dtype=object)[key_at] for p in end_parts_of(keys_used)]
        meet = np.zeros(len(trimmed), dtype=bool)
        for part in parts:
            at = np.nonzero(~np.equal(part, None))[0]
            meet[at] |= shapely.intersects(trimmed[at], part[at])
        at = np.nonzero(meet)[0]
        if len(at):
            ends = parts[0][at]
            for part in parts[1:]:
                both = ~np.equal(ends, None) & ~np.equal(part[at], None)
                ends[both] = shapely.union(ends[both], part[at][both])
                ends[np.equal(ends, None)] = part[at][np.equal(ends, None)]
            trimmed[at] = shapely.difference(trimmed[at], ends)
        walls = trimmed[inverse]
        corridor = widths[li]
        hit = np.zeros(len(li), dtype=bool)
        wide = corridor > 0
        if wide.any():
            hit[wide] = shapely.dwithin(lines.geoms(line_idx[wide]), walls[wide], corridor[wide])
        if (~wide).any():
            hit[~wide] = shapely.intersects(lines.geoms(line_idx[~wide]), walls[~wide])
        hit &= ~shapely.is_empty(walls)
        ok[line_idx[hit]] = False

    def _wall_candidates(self, lines: Segments, rows: np.ndarray, widths: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
        """(line, wall) pairs whose bounding boxes, the line's grown by its width, meet: a
        superset of the pairs within the width (the exact tests follow), by numpy when walls
        are few (an STRtree's distance query cost more than the tests)."""
        if len(self.walls) > 32:
            return self._walls_tree.query(lines.geoms(rows), predicate="dwithin", distance=widths)
        box = lines.bounds(rows)
        grow = widths[:, None]
        walls = self._wall_bounds
        meet = ((box[:, None, 0] - grow <= walls[None, :, 2])
                & (box[:, None, 2] + grow >= walls[None, :, 0])
                & (box[:, None, 1] - grow <= walls[None, :, 3])
                & (box[:, None, 3] + grow >= walls[None, :, 1]))
        return np.nonzero(meet)

    @cached_property
    def _wall_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The walls' vertices as the compiled sight walk reads them (`wall_kernel`)."""
        from campo.engine.geometry.wall_kernel import wall_arrays

        return wall_arrays(self.walls)

    @property
    def _wall_bounds(self) -> np.ndarray:
        if not hasattr(self, "_wall_bounds_cache"):
            self._wall_bounds_cache = shapely.bounds(self.walls)
        return self._wall_bounds_cache

    def _block_depth(self, lines: np.ndarray, owners: np.ndarray, queries: Sequence[SightQuery],
                     ok: np.ndarray) -> None:
        """Lines running more than ``max_depth`` inside one counted deep area are blocked."""
        self._block_depth_rows(lines, ok, self._uncounted(queries), owners)

    def _block_depth_rows(self, lines: np.ndarray | Segments, ok: np.ndarray,
                          uncounted: np.ndarray | None, rows: np.ndarray) -> None:
        """`_block_depth` on arrays: ``uncounted[rows[line], area]`` marks an area whose depth
        does not count for that line. Only a line running more than ``max_depth`` inside the
        area's bounding box can block (numpy, every line against every area: there are few);
        GEOS measures the depth of those alone."""
        # compiled (numba, imported on first use like the sight walk's)
        from campo.engine.geometry.depth_kernel import convex_chord_lengths, deep_in_boxes

        lines = Segments.of(lines)
        live = np.nonzero(ok)[0]
        # Only lines running more than max_depth inside an area's bounding box can run more than
        # that inside the area: the exact depth is measured for those alone (numpy for convex
        # areas, GEOS for the others).
        if len(self.deep_areas) > 32:
            li, ai = self._areas_tree.query(lines.geoms(live), predicate="intersects")
            idx, areas = live[li], ai
            xy = lines.xy[idx]
            deep = clipped_lengths(xy[:, 0], xy[:, 1], self._area_bounds[areas]) > self.max_depth
            idx, areas, xy = idx[deep], areas[deep], xy[deep]
        else:
            live_xy = np.ascontiguousarray(lines.xy[live])
            at, areas = deep_in_boxes(live_xy, np.ascontiguousarray(self._area_bounds, dtype=float),
                                      float(self.max_depth))
            idx, xy = live[at], live_xy[at]
        if uncounted is not None and len(idx):
            counted = ~uncounted[rows[idx], areas]
            idx, areas, xy = idx[counted], areas[counted], xy[counted]
        if not len(idx):
            return
        depth = np.empty(len(idx))
        convex = self._convex_area_edges
        plain = np.array([convex[a] is None for a in range(len(convex))], dtype=bool)[areas]
        if plain.any():
            depth[plain] = shapely.length(shapely.intersection(lines.geoms(idx[plain]),
                                                               self.deep_areas[areas[plain]]))
        for a in np.unique(areas[~plain]).tolist():     # convex areas: the chord (compiled)
            rows = np.nonzero(~plain & (areas == a))[0]
            depth[rows] = convex_chord_lengths(np.ascontiguousarray(xy[rows]), convex[a])
        ok[idx[depth > self.max_depth + 1e-6]] = False

    @property
    def _convex_area_edges(self) -> list[np.ndarray | None]:
        """`segments.convex_edges` of the deep areas (None: measured by GEOS)."""
        if not hasattr(self, "_convex_edges_cache"):
            self._convex_edges_cache = convex_edges(self.deep_areas)
        return self._convex_edges_cache

    def _uncounted(self, queries: Sequence[SightQuery]) -> np.ndarray | None:
        """(question, area) -> the question does not count that area's depth; None if no
        question names any. Kept for the next call with the same list of questions."""
        cached = getattr(self, "_uncounted_cache", None)
        if cached is not None and cached[0] is queries and cached[1] == len(queries):
            return cached[2]
        index = {aid: a for a, aid in enumerate(self.deep_area_ids)}
        marks = [(k, index[aid]) for k, q in enumerate(queries) for aid in q.uncounted_areas
                 if aid in index]
        table = None
        if marks:
            table = np.zeros((len(queries), len(self.deep_areas)), dtype=bool)
            rows, cols = zip(*marks)
            table[list(rows), list(cols)] = True
        self._uncounted_cache = (queries, len(queries), table)
        return table

    @property
    def _area_bounds(self) -> np.ndarray:
        if not hasattr(self, "_area_bounds_cache"):
            self._area_bounds_cache = shapely.bounds(self.deep_areas)
        return self._area_bounds_cache
