"""The terrain as charges, melees and routs ask about it (ISD §1, §8, §9): which features many
shapes meet, which areas hold them, which a point stands in, each question one STRtree query
and one vectorised test over every shape asked.

`TerrainTable` (``board.terrain_table``) is built once per board.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry import LineString
from shapely.strtree import STRtree

from campo.engine.scenario import TerrainFeature
from campo.engine.terrain_shapes import TerrainShapes


@dataclass(eq=False)
class TerrainTable:
    """The scenario's terrain features (scenario order) and their shapes, indexed."""

    features: list[TerrainFeature]
    made: TerrainShapes
    """The features' shapes (`terrain_shapes`: made once per terrain, shared across states)."""
    _grown: dict[tuple[float, int], shapely.Geometry] = field(default_factory=dict)

    @cached_property
    def shapes(self) -> np.ndarray:
        """Each feature's shape, in scenario order: its area's polygon or its line."""
        areas = iter([g for _, _, g in self.made.areas])
        lines = iter([g for _, _, g in self.made.linears])
        out = np.empty(len(self.features), dtype=object)
        out[:] = [next(areas) if t.polygon_mm is not None else next(lines)
                  for t in self.features]
        return out

    @cached_property
    def tree(self) -> STRtree:
        return STRtree(self.shapes)

    @cached_property
    def is_area(self) -> np.ndarray:
        return np.array([t.polygon_mm is not None for t in self.features], dtype=bool)

    @cached_property
    def crests(self) -> list[tuple[int, LineString]]:
        """(feature position, crest line) of every feature with a crest."""
        at = [k for k, t in enumerate(self.features) if t.crest_mm is not None]
        return [(k, line) for k, (_, line) in zip(at, self.made.crests)]

    def grown(self, distance: float, at: np.ndarray) -> np.ndarray:
        """The shapes of features ``at`` (positions) grown by ``distance`` mm, each built once
        per distance and only when asked (a buffer of a detailed outline is costly)."""
        keys = [(distance, k) for k in at.tolist()]
        missing = [key for key in dict.fromkeys(keys) if key not in self._grown]
        if missing:
            made = shapely.buffer(self.shapes[[k for _, k in missing]], distance)
            self._grown.update(zip(missing, made))
        out = np.empty(len(keys), dtype=object)
        out[:] = [self._grown[key] for key in keys]
        return out

    def meeting(self, geoms: np.ndarray, distance: float = 0.0
                ) -> tuple[np.ndarray, np.ndarray]:
        """(geom row, feature position) of every feature within ``distance`` of each shape,
        sorted by row then scenario order."""
        if not self.features or not len(geoms):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        if distance > 0:
            g, f = self.tree.query(geoms, predicate="dwithin", distance=distance)
        else:
            g, f = self.tree.query(geoms, predicate="intersects")
        order = np.lexsort((f, g))
        return g[order], f[order]

    def kinds_meeting(self, geoms: np.ndarray) -> list[list[str]]:
        """The sorted kinds of the features meeting each shape."""
        out: list[set[str]] = [set() for _ in range(len(geoms))]
        for g, f in zip(*(a.tolist() for a in self.meeting(geoms))):
            out[g].add(self.features[f].kind)
        return [sorted(k) for k in out]

    def holding(self, polys: np.ndarray, grow: float, kinds: frozenset[str] | None = None
                ) -> list[list[TerrainFeature]]:
        """The area features (of ``kinds``, all when None) whose shape grown by ``grow`` mm
        covers each polygon wholly, in scenario order."""
        out: list[list[TerrainFeature]] = [[] for _ in range(len(polys))]
        g, f = self.meeting(polys)
        keep = self.is_area[f] if len(f) else np.zeros(0, dtype=bool)
        if kinds is not None and len(f):
            keep &= np.array([self.features[k].kind in kinds for k in f.tolist()], dtype=bool)
        g, f = g[keep], f[keep]
        if len(g):
            covered = shapely.covers(self.grown(grow, f) if grow > 0 else self.shapes[f], polys[g])
            for row, k in zip(g[covered].tolist(), f[covered].tolist()):
                out[row].append(self.features[k])
        return out

    def lines_along(self, fronts: np.ndarray, grow: float, kinds: frozenset[str] | None = None
                    ) -> list[list[TerrainFeature]]:
        """The linear features (of ``kinds``, all when None) lying along each front line (the
        line grown by ``grow`` mm covers it), in scenario order."""
        out: list[list[TerrainFeature]] = [[] for _ in range(len(fronts))]
        g, f = self.meeting(fronts, grow)
        keep = ~self.is_area[f]
        if kinds is not None and len(f):
            keep &= np.array([self.features[k].kind in kinds for k in f.tolist()], dtype=bool)
        g, f = g[keep], f[keep]
        if len(g):
            along = shapely.covers(self.grown(grow, f), fronts[g])
            for row, k in zip(g[along].tolist(), f[along].tolist()):
                out[row].append(self.features[k])
        return out

    def at_points(self, xy: np.ndarray) -> list[list[TerrainFeature]]:
        """The area features holding each point (boundary included), in scenario order."""
        points = shapely.points(xy) if len(xy) else np.zeros(0, dtype=object)
        out: list[list[TerrainFeature]] = [[] for _ in range(len(xy))]
        g, f = self.meeting(points)
        for row, k in zip(g.tolist(), f.tolist()):
            if self.is_area[k]:
                out[row].append(self.features[k])
        return out

    def crossing_crest(self, lines: np.ndarray, away_from: np.ndarray) -> np.ndarray:
        """Whether each line crosses a crest that does not touch ``away_from`` (the shape at
        the line's far end): the far end is wholly behind that crest (ISD §9 note 4)."""
        hit = np.zeros(len(lines), dtype=bool)
        for _, crest in self.crests:
            hit |= shapely.intersects(lines, crest) & ~shapely.intersects(crest, away_from)
        return hit

