"""The terrain a sight line may not pass: walls (hill crests, tree rows) it may not cross or,
with a corridor, come near; deep areas (woods, towns) it may not run too far inside.

Only lines already clear of bodies are asked about, and terrain pieces are few, so every line is
tested against every piece whose bounding box it reaches (numpy), then exactly: numpy for wall
segments and convex areas, GEOS for the few lines whose firer or target stands on a wall (the
part of the wall inside them does not count) and for areas that are not convex.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely

from campo.engine.geometry.segments import (
    clipped_lengths,
    convex_chords,
    convex_edges,
    segments_within,
)
from campo.engine.geometry.sight_bodies import Keyed

DEPTH_EPS_MM = 1e-6
"""A line runs "more than" the allowed depth inside an area only by more than this."""


@dataclass(frozen=True)
class TerrainRules:
    """What the terrain tests need to know of each line: ``ends`` (n, k) rows of ``end_shapes``
    (its firer and target: a wall inside them is not "between", -1 none), ``uncounted`` the
    deep areas whose depth does not count for it (`Keyed`, tables (rows, areas))."""

    ends: np.ndarray | None = None
    end_shapes: np.ndarray | None = None
    uncounted: Sequence[Keyed] = ()


TERRAIN_CACHE_SIZE = 8
"""How many distinct sets of walls (and of deep areas) keep their arrays across sight fields:
the terrain of a live game stays put while its bases move, so each new moment reuses them."""


def _content(geoms: np.ndarray) -> tuple[bytes, ...]:
    """The shapes' content as a hashable key (their WKB)."""
    return tuple(shapely.to_wkb(geoms).tolist()) if len(geoms) else ()


class Walls:
    """Lines (crests, tree rows) as shapely geometries and as segments (numpy)."""

    @staticmethod
    def of(walls: np.ndarray) -> Walls:
        """The `Walls` of these lines, shared by every sight field with the same lines."""
        return _walls_of(_content(walls))

    def __init__(self, walls: np.ndarray) -> None:
        self.geoms = walls
        xy, owner = shapely.get_coordinates(walls, return_index=True) if len(walls) else \
            (np.zeros((0, 2)), np.zeros(0, dtype=np.int64))
        same = owner[:-1] == owner[1:]
        self.seg = np.stack([xy[:-1][same], xy[1:][same]], axis=1)     # (m, 2, 2)
        self.seg_wall = owner[:-1][same]
        self.bounds = shapely.bounds(walls) if len(walls) else np.zeros((0, 4))
        self.boxes: list[list[float]] = self.bounds.tolist()
        self.tree = shapely.STRtree(walls) if len(walls) else None

    def blocking(self, xy: np.ndarray, width: np.ndarray, rules: TerrainRules) -> np.ndarray:
        """Per line, the first wall (index) it touches or comes within ``width`` of, -1: none.
        The part of a wall inside the line's `TerrainRules.ends` shapes does not count."""
        out = np.full(len(xy), -1, dtype=np.int64)
        if not len(self.geoms) or not len(xy):
            return out
        lo, hi = xy.min(axis=1) - width[:, None], xy.max(axis=1) + width[:, None]
        b = self.bounds
        line, wall = ((lo[:, None, 0] <= b[None, :, 2]) & (hi[:, None, 0] >= b[None, :, 0])
                      & (lo[:, None, 1] <= b[None, :, 3]) & (hi[:, None, 1] >= b[None, :, 1])
                      ).nonzero()
        if not len(line):
            return out
        cut = self._cut(line, wall, rules)
        hit = np.zeros(len(line), dtype=bool)
        whole = (~cut).nonzero()[0]
        if len(whole):   # numpy: the line against each segment of its wall
            pair, seg = (wall[whole][:, None] == self.seg_wall[None, :]).nonzero()
            p = whole[pair]
            near = segments_within(xy[line[p], 0], xy[line[p], 1], self.seg[seg, 0],
                                   self.seg[seg, 1], width[line[p]])
            hit[p[near]] = True
        trimmed = cut.nonzero()[0]
        if len(trimmed):   # GEOS: the wall less the firer's and target's shapes
            parts = self._trimmed(line[trimmed], wall[trimmed], rules)
            geoms = shapely.linestrings(xy[line[trimmed]])
            hit[trimmed] = ~shapely.is_empty(parts) & shapely.dwithin(
                geoms, parts, width[line[trimmed]])
        line, wall = line[hit], wall[hit]
        order = np.lexsort((wall, line))
        line, wall = line[order], wall[order]
        first = np.r_[True, line[1:] != line[:-1]] if len(line) else np.zeros(0, dtype=bool)
        out[line[first]] = wall[first]
        return out

    def _cut(self, line: np.ndarray, wall: np.ndarray, rules: TerrainRules) -> np.ndarray:
        """Whether some end shape of the line meets the wall (only then is the wall trimmed)."""
        cut = np.zeros(len(line), dtype=bool)
        if rules.ends is None or rules.end_shapes is None or not len(rules.end_shapes):
            return cut
        shape_i, wall_i = self.tree.query(rules.end_shapes, predicate="intersects")
        if not len(shape_i):
            return cut
        meets = np.zeros((len(rules.end_shapes), len(self.geoms)), dtype=bool)
        meets[shape_i, wall_i] = True
        for k in range(rules.ends.shape[1]):
            e = rules.ends[line, k]
            ok = e >= 0
            cut[ok] |= meets[e[ok], wall[ok]]
        return cut

    def _trimmed(self, line: np.ndarray, wall: np.ndarray, rules: TerrainRules) -> np.ndarray:
        """Each wall less the end shapes of its line (one GEOS difference per distinct case)."""
        keys = np.concatenate([rules.ends[line], wall[:, None]], axis=1)
        uniq, back = np.unique(keys, axis=0, return_inverse=True)
        out = np.empty(len(uniq), dtype=object)
        for k, row in enumerate(uniq.tolist()):
            shapes = [rules.end_shapes[e] for e in row[:-1] if e >= 0]
            out[k] = shapely.difference(self.geoms[row[-1]], shapely.union_all(shapes))
        return out[back.reshape(-1)]


@functools.lru_cache(maxsize=TERRAIN_CACHE_SIZE)
def _walls_of(content: tuple[bytes, ...]) -> Walls:
    return Walls(np.array(shapely.from_wkb(list(content)), dtype=object).reshape(-1))


class Areas:
    """Deep areas (woods, towns) a line may run at most ``max_depth`` inside, each alone."""

    @staticmethod
    def of(areas: np.ndarray, max_depth: float) -> Areas:
        """The `Areas` of these shapes, shared by every sight field with the same ones."""
        return _areas_of(_content(areas), max_depth)

    def __init__(self, areas: np.ndarray, max_depth: float) -> None:
        self.geoms = areas
        self.max_depth = max_depth
        self.bounds = shapely.bounds(areas) if len(areas) else np.zeros((0, 4))
        self.boxes: list[list[float]] = self.bounds.tolist()
        self.edges = convex_edges(areas)

    def blocking(self, xy: np.ndarray, rules: TerrainRules) -> np.ndarray:
        """Per line, the area (index) it runs deepest inside beyond ``max_depth`` (counted
        areas only), -1: none."""
        out = np.full(len(xy), -1, dtype=np.int64)
        if not len(self.geoms) or not len(xy) or not np.isfinite(self.max_depth):
            return out
        n, a = len(xy), len(self.geoms)
        line = np.repeat(np.arange(n), a)
        area = np.tile(np.arange(a), n)
        # only a line running deeper than allowed in an area's box can do so in the area
        boxed = clipped_lengths(xy[line, 0], xy[line, 1], self.bounds[area])
        keep = boxed > self.max_depth + DEPTH_EPS_MM
        line, area = line[keep], area[keep]
        for k in rules.uncounted:
            counted = ~k.at(line, area)
            line, area = line[counted], area[counted]
        if not len(line):
            return out
        depth = np.zeros(len(line))
        for one in np.unique(area).tolist():
            rows = (area == one).nonzero()[0]
            seg = xy[line[rows]]
            if self.edges[one] is not None:
                depth[rows] = convex_chords(seg[:, 0], seg[:, 1], self.edges[one])
            else:
                depth[rows] = shapely.length(shapely.intersection(shapely.linestrings(seg),
                                                                  self.geoms[one]))
        deep = depth > self.max_depth + DEPTH_EPS_MM
        line, area, depth = line[deep], area[deep], depth[deep]
        order = np.lexsort((-depth, line))
        line, area = line[order], area[order]
        first = np.r_[True, line[1:] != line[:-1]] if len(line) else np.zeros(0, dtype=bool)
        out[line[first]] = area[first]
        return out


@functools.lru_cache(maxsize=TERRAIN_CACHE_SIZE)
def _areas_of(content: tuple[bytes, ...], max_depth: float) -> Areas:
    return Areas(np.array(shapely.from_wkb(list(content)), dtype=object).reshape(-1), max_depth)
