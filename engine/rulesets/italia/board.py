"""Everything derived once per game state for the ISD verdicts: readings of each base, batteries,
fire arcs, the sight field, tolerances in mm.

`Board.of(state)` is cached on the state (`GameState.cached`), so every question asked of one
state shares the work.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon
from shapely.strtree import STRtree

from campo.engine.geometry.contact import RectTable, edge_of_lengths, shared_lengths, touched_edge
from campo.engine.geometry.rect import Point, Rect, angle_diff
from campo.engine.geometry.sight import SightField
from campo.engine.rulesets.italia.pieces import UnitInfo, classify
from campo.engine.scenario import TerrainFeature
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.state import GameState
from campo.engine.terrain_shapes import terrain_shapes

MM_PER_IN = 25.0            # ISD Intro «POLLICI (2,5 cm.)»
REPORT_MARGIN_IN = 3.0      # in-arc targets are measured (part in arc, sight) out to 3" beyond the range
NEAR_MM = 14 * MM_PER_IN   # the widest neighbourhood asked about: a cavalry charge (12") + 2"
GRAZE_MM = 0.5   # a sight line merely grazing a base (tracking noise) is not blocked by it
HOLD_BAND_MM = 25.0
"""Fire verdicts measured this close (mm) to their boundary are remembered for a live game's
next moment (`boundary.HeldVerdicts`); a base moving farther than this in one moment was
picked up and put down (its verdict is then the measured one)."""


@dataclass(frozen=True)
class Front:
    """A firing front: the segment the arc and the range start from (a battery's is shared)."""

    left: Point
    right: Point
    facing: Point
    members: tuple[str, ...]


@dataclass
class Board:
    state: GameState
    settings: ItaliaSettings
    infos: dict[str, UnitInfo] = field(default_factory=dict)

    @staticmethod
    def of(state: GameState) -> Board:
        return state.cached("italia.board", lambda: Board._build(state))

    @staticmethod
    def _build(state: GameState) -> Board:
        settings: ItaliaSettings = state.settings
        infos = {b.id: classify(b, settings.a13_default_formation) for b in state.bases}
        return Board(state, settings, infos)

    # --- units and tolerances -------------------------------------------------------------
    def mm(self, inches: float) -> float:
        return inches * MM_PER_IN

    def inches(self, mm: float) -> float:
        return mm / MM_PER_IN

    @cached_property
    def contact_tol(self) -> float:
        """ISD A24: the gap (mm) within which bases touch."""
        return self.mm(self.settings.a24_contact_tolerance_in)

    @cached_property
    def beyond_tol(self) -> float:
        """ISD A2: tolerance (mm) of "beyond the line of the front"."""
        return self.mm(self.settings.a2_beyond_front_tolerance_in)

    def rect(self, base_id: str) -> Rect:
        found = self._rects.get(base_id)
        return found if found is not None else self.state.rect(base_id)

    @cached_property
    def position(self) -> dict[str, int]:
        """Each base's place in index order (`BaseIndex.ids`), the order of the board's arrays."""
        return {i: k for k, i in enumerate(self.state.index.ids)}

    def positions(self, ids: Iterable[str]) -> np.ndarray:
        """The index positions of ``ids`` (`position`), as an array."""
        position = self.position
        return np.array([position[i] for i in ids], dtype=np.int64)

    @cached_property
    def rect_table(self) -> RectTable:
        """Every base's rectangle as arrays, in index order (`BaseIndex.ids`)."""
        return RectTable([self.rect(i) for i in self.state.index.ids])

    @cached_property
    def _rects(self) -> dict[str, Rect]:
        """Every base's rectangle (asked for some ten thousand times per analysis)."""
        return {i: self.state.rect(i) for i in self.state.ids}

    def enemies(self, base_id: str) -> list[str]:
        side = self.infos[base_id].side
        return [i for i, info in self.infos.items() if info.side != side]

    def is_enemy(self, a: str, b: str) -> bool:
        return self.infos[a].side != self.infos[b].side

    # --- contacts (cached, both directions) -----------------------------------------------
    @cached_property
    def touching(self) -> dict[str, list[str]]:
        """Every base -> the bases within the contact tolerance of it (generals excluded), read
        from the neighbour gaps (`BaseIndex.neighbours`'s answer: its ``dwithin`` is GEOS's
        distance compared with the tolerance)."""
        if self.contact_tol > NEAR_MM or not self.state.use_index:   # the plain reference
            return self.state.index.neighbours(self.contact_tol, lambda i: self.infos[i].is_general)
        _, starts, others, gaps = self._neighbours
        names = self.state.index.ids
        general = [self.infos[i].is_general for i in names]
        rows = np.repeat(np.arange(len(names)), np.diff(starts))
        keep = np.nonzero((gaps <= self.contact_tol) & (rows != others))[0]
        out: dict[str, list[str]] = {i: [] for i in names}
        for a, b in zip(rows[keep].tolist(), others[keep].tolist()):
            if not (general[a] or general[b]):
                out[names[a]].append(names[b])
        for found in out.values():
            found.sort()
        return out

    @cached_property
    def _neighbours(self) -> tuple[dict[str, int], np.ndarray, np.ndarray, np.ndarray]:
        """The bases within NEAR_MM of each base, from one bulk query (instead of one query per
        base and question): (position of each id, row starts, neighbour positions, gaps mm)."""
        from campo.engine.geometry.gap_kernel import UNSURE, near_pairs

        index = self.state.index
        shapes = index.shapes
        # envelopes grown by NEAR_MM (cheap), then the exact gaps: `near` filters by gap, so the
        # extra pairs of the envelope test change no answer. The fast path is compiled
        # (GEOS's arithmetic; GEOS itself for the gaps too close to 0 to call).
        if len(shapes) and self.state.use_index:
            si, bi, gaps = near_pairs(self.rect_table.corners, NEAR_MM)
            unsure = np.nonzero(gaps == UNSURE)[0]
            gaps[unsure] = shapely.distance(shapes[si[unsure]], shapes[bi[unsure]])
        else:   # the plain reference path
            si, bi = index.candidate_pairs(NEAR_MM)                # sorted by (si, bi)
            gaps = shapely.distance(shapes[si], shapes[bi]) if len(si) else np.zeros(0)
        starts = np.searchsorted(si, np.arange(len(shapes) + 1))
        return self.position, starts, bi, gaps

    def near(self, base_id: str, distance: float) -> list[str]:
        """Ids of the bases within ``distance`` mm of this base (itself included), index order."""
        if distance > NEAR_MM:
            return self.state.index.within(self.rect(base_id).polygon, distance)
        position, starts, others, gaps = self._neighbours
        k = position[base_id]
        lo, hi = starts[k], starts[k + 1]
        names = self.state.index.ids
        return [names[b] for b in others[lo:hi][gaps[lo:hi] <= distance].tolist()]

    def near_gaps(self, base_id: str, distance: float) -> list[tuple[str, float]]:
        """`near` with each base's gap (mm, `shapely.distance` of the two rectangles, measured
        in the one bulk call): (id, gap) in index order; ``distance`` at most NEAR_MM."""
        if distance > NEAR_MM:
            raise ValueError(f"near_gaps reaches {NEAR_MM} mm at most, not {distance}")
        position, starts, others, gaps = self._neighbours
        k = position[base_id]
        lo, hi = starts[k], starts[k + 1]
        names = self.state.index.ids
        keep = gaps[lo:hi] <= distance
        return [(names[b], g) for b, g in zip(others[lo:hi][keep].tolist(),
                                                gaps[lo:hi][keep].tolist())]

    def edge_touched(self, a: str, b: str) -> str:
        """Edge of ``a`` that ``b`` touches (ISD A33)."""
        key = ("edge", a, b)
        cache = self._edge_cache
        if key not in cache:
            if self.settings.a33_contact_aspect == "longest_shared_segment":
                cache[key] = edge_of_lengths(self.shared_lengths(a, b), self.contact_tol)
            else:
                cache[key] = touched_edge(self.rect(a), self.rect(b), self.contact_tol,
                                          self.settings.a33_contact_aspect,
                                          self.settings.a1_zones)
        return cache[key]

    def shared_lengths(self, a: str, b: str) -> dict[str, float]:
        """Per edge of ``a``, the length lying within the contact tolerance of ``b`` (cached)."""
        key = ("shared", a, b)
        cache = self._edge_cache
        found = cache.get(key)
        if found is None:
            if "_shared_filled" not in self.__dict__:
                self._fill_shared_lengths()
                found = cache.get(key)
            if found is None:
                found = cache[key] = shared_lengths(self.rect(a), self.rect(b), self.contact_tol)
        return found

    def _fill_shared_lengths(self) -> None:
        """`shared_lengths` of every touching pair, both ways, in one numpy call (the same
        floats as one by one, `shared_lengths_many`): groups, supports, melees and pursuits
        ask about most of them."""
        self.__dict__["_shared_filled"] = True
        pairs = [(a, b) for a, others in self.touching.items() for b in others]
        if not pairs:
            return
        table = self.rect_table
        a_at = self.positions(a for a, _ in pairs)
        b_at = self.positions(b for _, b in pairs)
        rows = table.shared_lengths(a_at, table, b_at, self.contact_tol).tolist()
        cache = self._edge_cache
        for (a, b), (front, right, rear, left) in zip(pairs, rows):   # rect.EDGE_NAMES order
            cache.setdefault(("shared", a, b),
                             {"front": front, "right": right, "rear": rear, "left": left})

    @cached_property
    def _edge_cache(self) -> dict:
        return {}

    def in_melee(self, base_id: str) -> bool:
        return any(self.is_enemy(base_id, o) for o in self.touching[base_id])

    # --- batteries and fronts -------------------------------------------------------------
    @cached_property
    def batteries(self) -> dict[str, tuple[str, ...]]:
        """Gun id -> the guns side by side with it (itself included), sorted (ISD §6, A4)."""
        guns = [i for i, info in self.infos.items() if info.is_gun and not info.limbered]
        parent = {g: g for g in guns}

        def find(g: str) -> str:
            while parent[g] != g:
                parent[g] = parent[parent[g]]
                g = parent[g]
            return g

        tol = self.settings.support_heading_tolerance_deg
        for g in guns:
            for o in self.touching[g]:
                if o not in parent or self.infos[o].side != self.infos[g].side:
                    continue
                ra, rb = self.rect(g), self.rect(o)
                if abs(angle_diff(ra.heading_deg, rb.heading_deg)) > tol:
                    continue
                if self.edge_touched(g, o) not in ("left", "right"):
                    continue
                # fronts in line: the other's front centre is level with this front line
                if abs(ra.ahead_of_front(*rb.front_centre)) > max(self.contact_tol, 0.25 * ra.depth):
                    continue
                parent[find(g)] = find(o)
        groups: dict[str, list[str]] = {}
        for g in guns:
            groups.setdefault(find(g), []).append(g)
        return {g: tuple(sorted(groups[find(g)])) for g in guns}

    def front(self, base_id: str) -> Front:
        """The firing front of a base: its own front edge, or its battery's combined front."""
        found = self._fronts.get(base_id)
        if found is None:
            found = self._fronts[base_id] = self._front(base_id)
        return found

    @cached_property
    def _fronts(self) -> dict[str, Front]:
        return {}

    # --- facts the fire verdicts remember per board (fire.py, fire_sight.py, fire_cover.py) --
    @cached_property
    def fire_over(self) -> dict[str, tuple[list[str], bool]]:
        """Gun -> (friends its rockets fire over, whether a friend stands within 2")."""
        return {}

    @cached_property
    def cover_terrain(self) -> dict[str, tuple[list, list]]:
        """Target -> (terrain wholly holding it, linear terrain along its whole front)."""
        return {}

    @cached_property
    def shot_modifiers(self) -> dict[tuple, list[dict]]:
        """Kind of shot (firer's and target's facts, flank, cover, band) -> its modifiers."""
        return {}

    @cached_property
    def shot_tables(self) -> list:
        """Every table of shots measured on this board (`fire.shots`), for single questions."""
        return []

    @cached_property
    def shooter_targets(self) -> dict[str, list]:
        """Shooter -> its targets by id, for rules asking about single shots (`fire.probe`)."""
        return {}

    def _front(self, base_id: str) -> Front:
        r = self.rect(base_id)
        members = self.batteries.get(base_id, (base_id,))
        if len(members) == 1:
            return Front(r.front_left, r.front_right, r.front, members)
        corners = [c for m in members for c in (self.rect(m).front_left, self.rect(m).front_right)]
        us = [(r.to_local(*c)[0], c) for c in corners]
        left = min(us)[1]
        right = max(us)[1]
        # put both ends on this gun's front line so the combined front is straight
        vl, vr = r.to_local(*left), r.to_local(*right)
        return Front(r.from_local(vl[0], r.depth / 2), r.from_local(vr[0], r.depth / 2),
                     r.front, members)

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

    @cached_property
    def _terrain(self) -> tuple[list, STRtree | None]:
        feats = [(t, Polygon(t.polygon_mm) if t.polygon_mm is not None else LineString(t.line_mm))
                 for t in self.state.scenario.terrain]
        geoms = [g for _, g in feats]
        return feats, (STRtree(geoms) if geoms else None)

    def terrain_near(self, geom: object, distance: float = 0.0) -> list[tuple[TerrainFeature, object]]:
        """Terrain features (with their shapely shape) within ``distance`` mm of ``geom``, in
        scenario order (an STRtree query: terrain count does not multiply the work)."""
        feats, tree = self._terrain
        if tree is None:
            return []
        hits = tree.query(geom, predicate="dwithin", distance=distance) if distance > 0 \
            else tree.query(geom, predicate="intersects")
        return [feats[i] for i in sorted(hits.tolist())]

    def grown(self, geom: object, distance: float) -> object:
        """``geom.buffer(distance)`` of a terrain shape from `terrain_near`/`terrain_on` (the
        board keeps them), cached: charges and melees test the same few features again."""
        cache = self.__dict__.setdefault("_grown", {})
        key = (id(geom), distance)
        found = cache.get(key)
        if found is None:
            found = cache[key] = (geom, geom.buffer(distance))   # geom kept: its id stays unique
        return found[1]

    def terrain_on(self, base_id: str) -> list[tuple[TerrainFeature, object]]:
        """`terrain_near` of the base's rectangle (what it stands on or touches), for every base
        from one bulk query."""
        return self._terrain_bulk("on", 0.0)[base_id]

    def terrain_around(self, base_id: str) -> list[tuple[TerrainFeature, object]]:
        """`terrain_near` of the base's rectangle within 0.5" (cover, ISD §6, §7)."""
        return self._terrain_bulk("around", self.mm(0.5))[base_id]

    def _terrain_bulk(self, key: str, distance: float) -> dict[str, list]:
        cache = self.__dict__.setdefault("_terrain_bulk_cache", {})
        if key not in cache:
            feats, tree = self._terrain
            ids = self.state.index.ids
            out: dict[str, list] = {i: [] for i in ids}
            if tree is not None and ids:
                shapes = self.state.index.shapes
                if distance > 0:
                    si, ti = tree.query(shapes, predicate="dwithin", distance=distance)
                else:
                    si, ti = tree.query(shapes, predicate="intersects")
                for s, t in sorted(zip(si.tolist(), ti.tolist())):
                    out[ids[s]].append(feats[t])
            cache[key] = out
        return cache[key]

    def level(self, base_id: str) -> int:
        """Hill level under the base centre (0 = the table)."""
        found = self._levels.get(base_id)
        return found if found is not None else self._level_at(self.rect(base_id))

    @cached_property
    def _levels(self) -> dict[str, int]:
        """Every base's `level`, from one vectorised cover test per hill."""
        ids = self.state.ids
        rects = [self.rect(i) for i in ids]
        levels: list[int | None] = [None] * len(ids)
        hills = [(t, g) for t, g in self._terrain[0] if t.kind == "hill" and t.polygon_mm is not None]
        if hills and ids:
            centres = shapely.points([(r.cx, r.cy) for r in rects])
            for t, g in hills:
                for k in np.nonzero(shapely.covers(g, centres))[0].tolist():
                    levels[k] = t.level if levels[k] is None else max(levels[k], t.level)
        return {i: 0 if v is None else v for i, v in zip(ids, levels)}

    def _level_at(self, r: Rect) -> int:
        centre = shapely.Point(r.cx, r.cy)
        return max([t.level for t, g in self._terrain[0]
                    if t.kind == "hill" and t.polygon_mm is not None and g.covers(centre)],
                   default=0)

    @cached_property
    def sight_field(self) -> SightField:
        """Obstacles to sight (ISD §6): units (ISD A17 for cavalry), crests, tree rows, woods
        and towns."""
        from campo.engine.rulesets.italia.tables_fire import (
            LOS_MAX_DEPTH_IN_WOOD_OR_TOWN_IN,
            SIGHT_BLOCKING_LINES,
            SIGHT_DEEP_AREAS,
        )

        bodies, ids = [], []
        for i, info in self.infos.items():
            if info.is_general:
                continue   # «i generali invece non ostacolano la visuale»
            if info.arm == "cavalry" and not self.settings.a17_cavalry_blocks_sight:
                continue
            bodies.append(self.rect(i).polygon)
            ids.append(i)
        walls = [(tid, line) for tid, line in self.crests]
        walls += [(tid, line) for tid, kind, line in self.linears if kind in SIGHT_BLOCKING_LINES]
        deep = [(tid, poly) for tid, kind, poly in self.areas if kind in SIGHT_DEEP_AREAS]
        return SightField(bodies, ids, [w for _, w in walls], [i for i, _ in walls],
                          [p for _, p in deep], [i for i, _ in deep],
                          max_depth=self.mm(LOS_MAX_DEPTH_IN_WOOD_OR_TOWN_IN), graze=GRAZE_MM)
