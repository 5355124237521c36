"""Everything derived once per game state for the Federico verdicts: the reading of each base,
contacts, terrain by role (cover, broken ground, streams), the sight field, tolerances in mm.

`Board.of(state)` is cached on the state (`GameState.cached`), so every question asked of one
state shares the work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon
from shapely.strtree import STRtree

from campo.engine.geometry.contact import in_contact, shared_lengths, touched_edge
from campo.engine.geometry.rect import Rect
from campo.engine.geometry.sight import SightField
from campo.engine.rulesets.federico.settings import FedericoSettings
from campo.engine.rulesets.federico.units import MM_PER_CM, Piece, classify
from campo.engine.state import GameState
from campo.engine.terrain_shapes import terrain_shapes


@dataclass
class Board:
    state: GameState
    settings: FedericoSettings
    pieces: dict[str, Piece] = field(default_factory=dict)

    @staticmethod
    def of(state: GameState) -> Board:
        return state.cached("federico.board", lambda: Board._build(state))

    @staticmethod
    def _build(state: GameState) -> Board:
        return Board(state, state.settings, {b.id: classify(b) for b in state.bases})

    # --- units and tolerances -------------------------------------------------------------
    @staticmethod
    def mm(cm: float) -> float:
        return cm * MM_PER_CM

    @staticmethod
    def cm(mm: float) -> float:
        return mm / MM_PER_CM

    @cached_property
    def contact_tol(self) -> float:
        return self.mm(self.settings.contact_tolerance_cm)

    @cached_property
    def beyond_tol(self) -> float:
        return self.mm(self.settings.beyond_front_tolerance_cm)

    def rect(self, base_id: str) -> Rect:
        return self.state.rect(base_id)

    def is_enemy(self, a: str, b: str) -> bool:
        return self.pieces[a].side != self.pieces[b].side

    def troops(self, side: str | None = None) -> list[str]:
        return sorted(i for i, p in self.pieces.items()
                      if p.is_troop and (side is None or p.side == side))

    # --- contacts -------------------------------------------------------------------------
    @cached_property
    def touching(self) -> dict[str, list[str]]:
        """Every base -> the troop bases within the contact tolerance (commanders excluded)."""
        return self.state.index.neighbours(self.contact_tol, lambda i: self.pieces[i].is_commander)

    def edge_touched(self, a: str, b: str) -> str:
        """Edge of ``a`` that ``b`` touches: the longest shared segment, ties to the front (F1)."""
        cache = self.__dict__.setdefault("_edges", {})
        key = (a, b)
        if key not in cache:
            cache[key] = touched_edge(self.rect(a), self.rect(b), self.contact_tol,
                                      "longest_shared_segment", self.settings.f1_zones)
        return cache[key]

    def edge_to_edge(self, a: str, b: str, tolerance_mm: float) -> bool:
        """The bases touch along a shared segment (not only at a corner) within the tolerance."""
        ra, rb = self.rect(a), self.rect(b)
        if not in_contact(ra, rb, tolerance_mm):
            return False
        return max(shared_lengths(ra, rb, tolerance_mm).values()) > 2 * tolerance_mm + 1.0

    def meeting(self, shapes: Any) -> tuple[np.ndarray, np.ndarray]:
        """(shape index, base index in the spatial index) of every base meeting each shape,
        sorted: `BaseIndex.query_many(shapes, 0.0)` by the "intersects" predicate, which GEOS
        answers several times faster than a zero distance for the same pairs (the plain path,
        without the index, tests every pair)."""
        index = self.state.index
        shapes = np.asarray(shapes, dtype=object)
        if not len(shapes) or not len(index.shapes):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        if self.state.use_index:
            tree = self.__dict__.get("_meeting_tree")
            if tree is None:
                tree = self.__dict__["_meeting_tree"] = STRtree(index.shapes)
            si, bi = tree.query(shapes, predicate="intersects")
        else:
            si, bi = np.nonzero(shapely.intersects(shapes[:, None], index.shapes[None, :]))
        order = np.lexsort((bi, si))
        return si[order], bi[order]

    def in_melee(self, base_id: str) -> bool:
        return any(self.is_enemy(base_id, o) for o in self.touching[base_id])

    # --- terrain ---------------------------------------------------------------------------
    @cached_property
    def areas(self) -> list[tuple[str, str, Polygon]]:
        return terrain_shapes(self.state).areas

    @cached_property
    def linears(self) -> list[tuple[str, str, LineString]]:
        return terrain_shapes(self.state).linears

    @cached_property
    def crests(self) -> list[tuple[str, LineString]]:
        return terrain_shapes(self.state).crests

    def areas_under(self, base_id: str, kinds: Any) -> list[str]:
        """Ids of areas of the given kinds holding the base's centre."""
        holding = self.areas_holding_centre(base_id)
        return [tid for tid, kind, _ in self.areas if kind in kinds and tid in holding]

    def areas_holding_centre(self, base_id: str) -> frozenset[str]:
        """Ids of every area (any kind) holding the base's centre (cached per base)."""
        cache = self.__dict__.get("_areas_holding")
        if cache is None:
            cache = self.__dict__["_areas_holding"] = {}
            if self.state.use_index and self.areas:     # every base at once
                ids = list(self.pieces)
                rects = [self.rect(i) for i in ids]
                inside = shapely.covers(
                    np.array([poly for _, _, poly in self.areas], dtype=object)[:, None],
                    shapely.points([(r.cx, r.cy) for r in rects])[None, :])
                tids = [tid for tid, _, _ in self.areas]
                for i, col in zip(ids, inside.T.tolist()):
                    cache[i] = frozenset(t for t, hit in zip(tids, col) if hit)
        found = cache.get(base_id)
        if found is None:
            r = self.rect(base_id)
            c = shapely.Point(r.cx, r.cy)
            found = cache[base_id] = frozenset(tid for tid, _, poly in self.areas
                                               if poly.covers(c))
        return found

    def on_hill(self, base_id: str) -> str | None:
        hills = self.areas_under(base_id, ("hill",))
        return hills[0] if hills else None

    def cover_area(self, base_id: str) -> str | None:
        """Federico F7: the first cover area (``cover_areas``) holding at least
        ``cover_area_share`` of the base (cached per base: it does not depend on the firer)."""
        cache = self.__dict__.get("_cover_area")
        if cache is None:
            cache = self.__dict__["_cover_area"] = {}
            if self.state.use_index:
                cache.update(self._cover_areas_all())
        if base_id not in cache:
            s = self.settings
            poly = self.rect(base_id).polygon
            cache[base_id] = next(
                (tid for tid, kind, area in self.areas if kind in s.cover_areas and
                 shapely.intersection(area, poly).area >= s.cover_area_share * poly.area - 1e-6),
                None)
        return cache[base_id]

    def _cover_areas_all(self) -> dict[str, str | None]:
        """`cover_area` of every base, the areas measured against all bases at once (the same
        intersections, only those that are not empty computed)."""
        s = self.settings
        cover = [(tid, area) for tid, kind, area in self.areas if kind in s.cover_areas]
        ids = list(self.pieces)
        if not cover or not ids:
            return {i: None for i in ids}
        polys = np.array([self.rect(i).polygon for i in ids], dtype=object)
        areas = np.array([a for _, a in cover], dtype=object)
        meet_a, meet_b = np.nonzero(shapely.intersects(areas[:, None], polys[None, :]))
        shared = np.zeros((len(cover), len(ids)))
        shared[meet_a, meet_b] = shapely.area(shapely.intersection(areas[meet_a],
                                                                   polys[meet_b]))
        need = s.cover_area_share * shapely.area(polys) - 1e-6
        ok = shared >= need[None, :]
        first = ok.argmax(axis=0)
        return {i: (cover[first[k]][0] if ok[first[k], k] else None)
                for k, i in enumerate(ids)}

    def line_between(self, near: str, far: str, kinds: Any) -> str | None:
        """A linear feature of ``kinds`` along ``near``'s front, crossed by the line from
        ``far``'s centre to ``near``'s centre (``near`` is "behind" it against ``far``)."""
        lines = self._lines_along_front(near, tuple(kinds))
        if not lines:
            return None
        n, f = self.rect(near), self.rect(far)
        sight = LineString([(f.cx, f.cy), (n.cx, n.cy)])
        for tid, line in lines:
            if sight.intersects(line):
                return tid
        return None

    def _lines_along_front(self, near: str, kinds: tuple[str, ...]) -> list[tuple[str, Any]]:
        """Linear features of ``kinds`` within reach of ``near``'s front (cached: they do not
        depend on the other base)."""
        cache = self.__dict__.setdefault("_front_lines_cache", {})
        key = (near, kinds)
        if key not in cache and not any(kind in kinds for _, kind, _ in self.linears):
            cache[key] = []       # no feature of these kinds anywhere on the table
        if key not in cache:
            n = self.rect(near)
            front = LineString([n.front_left, n.front_right])
            reach = max(self.mm(1.0), n.depth / 2)
            cache[key] = [(tid, line) for tid, kind, line in self.linears
                          if kind in kinds and shapely.dwithin(front, line, reach)]
        return cache[key]

    @cached_property
    def sight_field(self) -> SightField:
        """Obstacles to sight (Federico F5): troop bases, crests, blocking areas (any depth)."""
        ids = self.troops()
        bodies = [self.rect(i).polygon for i in ids]
        walls = [(tid, line) for tid, line in self.crests]
        deep = [(tid, poly) for tid, kind, poly in self.areas
                if kind in self.settings.sight_blocking_areas]
        return SightField(bodies, ids, [w for _, w in walls], [i for i, _ in walls],
                          [p for _, p in deep], [i for i, _ in deep], max_depth=0.0)
