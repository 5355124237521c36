"""Everything derived once per ATTILA game state: each base's reading, contacts, terrain classes.

`Board.of(state)` is cached on the state (`GameState.cached`), so all questions asked of one state
share the work. Terrain kinds map onto the rulebook's features (ATT 5.B, 6.A, 6.C, 12).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Point as ShPoint, Polygon

from campo.engine.geometry.contact import shared_lengths, touched_edge
from campo.engine.geometry.gap_kernel import UNSURE, near_pairs
from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.attila.settings import AttilaSettings
from campo.engine.rulesets.attila.units import MM_PER_CM, Unit, read_unit
from campo.engine.scenario import TerrainFeature
from campo.engine.state import GameState

WOODS = frozenset({"wood", "orchard"})                       # ATT 5.B, 6.A «Boschi»
MARSHES = frozenset({"marsh", "rice"})                       # ATT 5.B «Paludi»
ROUGH = frozenset({"rough"})                                 # ATT 5.F «Terreno Difficile» (AT17)
HILLS = frozenset({"hill"})                                  # ATT 6.A, 7.B «colline»
WATER_LINES = frozenset({"river", "stream"})                 # ATT 5.B «corso d'acqua»
WATER_AREAS = frozenset({"water"})
CROSSINGS = frozenset({"bridge", "ford"})                    # ATT 5.B «ponti o guadi»
DEFENCES = frozenset({"wall", "stone_wall", "low_wall", "parapet", "fortification_line",
                      "hedge"})                              # ATT 6.C «muri o difese»
DEFENDED_AREAS = frozenset({"fortification", "camp", "town", "village"})
NEAR_CM = 40.0    # `Board.near` answers from one bulk query up to this distance (x the scale)


@dataclass(frozen=True)
class Contact:
    """One enemy touching a base: which side of THIS base it touches."""

    other: str
    side: str     # "front", "left", "right", "rear"

    @property
    def aspect(self) -> str:
        return "flank" if self.side in ("left", "right") else self.side


@dataclass
class Board:
    state: GameState
    settings: AttilaSettings
    units: dict[str, Unit] = field(default_factory=dict)
    charge_cache: dict[tuple[str, str], Any] = field(default_factory=dict)

    @staticmethod
    def of(state: GameState) -> Board:
        return state.cached("attila.board", lambda: Board._build(state))

    @staticmethod
    def _build(state: GameState) -> Board:
        s: AttilaSettings = state.settings
        return Board(state, s, {b.id: read_unit(b, s) for b in state.bases})

    # --- units --------------------------------------------------------------------------------
    @staticmethod
    def mm(cm: float) -> float:
        return cm * MM_PER_CM

    @staticmethod
    def cm(mm: float) -> float:
        return mm / MM_PER_CM

    def rect(self, base_id: str) -> Rect:
        return self.state.rect(base_id)

    def poly(self, base_id: str) -> Polygon:
        return self.state.rect(base_id).polygon

    def box(self, base_id: str) -> tuple[float, float, float, float]:
        """The base's bounding box (x0, y0, x1, y1), cached."""
        cache = self.__dict__.setdefault("_boxes", {})
        found = cache.get(base_id)
        if found is None:
            corners = self.rect(base_id).corners
            xs, ys = [x for x, _ in corners], [y for _, y in corners]
            found = cache[base_id] = (min(xs), min(ys), max(xs), max(ys))
        return found

    @cached_property
    def ids(self) -> list[str]:
        return sorted(self.units)

    def enemies_of(self, base_id: str) -> list[str]:
        side = self.units[base_id].side
        return [i for i in self.ids if self.units[i].side != side]

    def friends_of(self, base_id: str) -> list[str]:
        side = self.units[base_id].side
        return [i for i in self.ids if self.units[i].side == side and i != base_id]

    def generals(self, side: str) -> list[str]:
        """The side's Generals (one the camera has lost keeps his last pose for command)."""
        return [i for i in self.ids if self.units[i].side == side and self.units[i].is_general]

    def near(self, base_id: str, distance_mm: float) -> list[str]:
        """Other bases within ``distance_mm`` of this one (spatial index: fast path; with
        ``use_index`` off, one plain query per question: the reference path)."""
        if self.state.use_index and distance_mm <= self._near_mm:
            return [i for gap, i in self._neighbours[base_id] if gap <= distance_mm]
        return sorted(i for i in self.state.index.within(self.poly(base_id), distance_mm)
                      if i != base_id)

    @property
    def near_limit_mm(self) -> float:
        """The widest distance `near` answers from its bulk query (fast path)."""
        return self._near_mm

    def neighbours_with_gaps(self, base_id: str) -> list[tuple[float, str]]:
        """(gap mm, id) of every other base within `near_limit_mm`, in id order (fast path)."""
        return self._neighbours[base_id]

    @cached_property
    def _near_mm(self) -> float:
        """The widest neighbourhood asked about: twice the longest bow range and more (shooting
        lists targets out to twice the range), a charge, the 30 cm of ATT 9.A."""
        return self.mm(NEAR_CM * self.settings.at18_distance_scale)

    @cached_property
    def _neighbours(self) -> dict[str, list[tuple[float, str]]]:
        """Every base -> (gap mm, id) of the other bases within ``_near_mm``, sorted by id, from
        one bulk query and one vectorised distance (instead of a query per question)."""
        index = self.state.index
        ids, shapes = index.ids, index.shapes
        near = self._near_mm
        if len(shapes):
            # the compiled sweep (GEOS's own distance arithmetic; GEOS for the gaps too close to
            # 0 to call): its pairs whose boxes meet, kept when the gap is within reach, are
            # the pairs GEOS's "within distance" finds (the same segment distances)
            si, bi, gap_arr = near_pairs(np.array([self.rect(i).corners for i in ids]), near)
            unsure = np.nonzero(gap_arr == UNSURE)[0]
            gap_arr[unsure] = shapely.distance(shapes[si[unsure]], shapes[bi[unsure]])
            keep = gap_arr <= near
            si, bi, gaps = si[keep], bi[keep], gap_arr[keep].tolist()
        else:
            si, bi, gaps = np.zeros(0, dtype=int), np.zeros(0, dtype=int), []
        out: dict[str, list[tuple[float, str]]] = {i: [] for i in ids}
        for a, b, gap in zip(si.tolist(), bi.tolist(), gaps):
            if a != b:
                out[ids[a]].append((gap, ids[b]))
        for v in out.values():
            v.sort(key=lambda g: g[1])
        return out

    def gap_mm(self, a: str, b: str) -> float:
        return float(shapely.distance(self.poly(a), self.poly(b)))

    # --- contact (ATT 7.A, AT1, AT2) ------------------------------------------------------------
    @cached_property
    def contact_tol(self) -> float:
        return self.settings.at2_contact_tolerance_mm

    def touching(self, a: str, b: str) -> bool:
        """AT2: within the tolerance along a shared segment longer than contact_min_shared_mm."""
        ra, rb = self.rect(a), self.rect(b)
        if not shapely.dwithin(ra.polygon, rb.polygon, self.contact_tol):
            return False
        longest_a = max(shared_lengths(ra, rb, self.contact_tol).values())
        longest_b = max(shared_lengths(rb, ra, self.contact_tol).values())
        return max(longest_a, longest_b) > self.settings.contact_min_shared_mm

    def side_touched(self, a: str, b: str) -> str:
        """Which side of ``a`` the base ``b`` touches (AT1)."""
        return touched_edge(self.rect(a), self.rect(b), self.contact_tol,
                            self.settings.at1_contact_side)

    @cached_property
    def _contacts(self) -> dict[str, list[Contact]]:
        out: dict[str, list[Contact]] = {i: [] for i in self.ids}
        for a, b in self.state.index.pairs_within(self.contact_tol):
            if not self.touching(a, b):
                continue
            out[a].append(Contact(b, self.side_touched(a, b)))
            out[b].append(Contact(a, self.side_touched(b, a)))
        for i in out:
            out[i].sort(key=lambda c: c.other)
        return out

    def contacts(self, base_id: str, *, enemies: bool = True) -> list[Contact]:
        """Bases touching this one (enemies or friends); absent bases never touch."""
        side = self.units[base_id].side
        return [c for c in self._contacts[base_id]
                if (self.units[c.other].side != side) == enemies and not self.units[c.other].absent]

    def in_enemy_contact(self, base_id: str) -> bool:
        return bool(self.contacts(base_id))

    # --- terrain ------------------------------------------------------------------------------
    @cached_property
    def areas(self) -> dict[str, Polygon]:
        return {t.id: Polygon(t.polygon_mm) for t in self.state.scenario.terrain if t.is_area}

    @cached_property
    def lines(self) -> dict[str, LineString]:
        return {t.id: LineString(t.line_mm) for t in self.state.scenario.terrain
                if t.line_mm is not None}

    def area_vertices(self, area_id: str) -> list[tuple[float, float]]:
        """The area's outline vertices (the closing point dropped), for `slide_convex`."""
        cache = self.__dict__.setdefault("_area_vertices", {})
        if area_id not in cache:
            cache[area_id] = [(float(x), float(y))
                              for x, y in list(self.areas[area_id].exterior.coords)[:-1]]
        return cache[area_id]

    def features(self, kinds: frozenset[str]) -> list[TerrainFeature]:
        return [t for t in self.state.scenario.terrain if t.kind in kinds]

    def area_holding(self, base_id: str, kinds: frozenset[str]) -> str | None:
        """The area feature of those kinds the base stands in (its centre inside), if any
        (cached per base and kinds)."""
        cache = self.__dict__.setdefault("_area_holding", {})
        key = (base_id, kinds)
        if key in cache:
            return cache[key]
        holding = self._holding(base_id)
        found = None
        for t in self.features(kinds):
            if t.is_area and t.id in holding:
                found = t.id
                break
        cache[key] = found
        return found

    def height(self, base_id: str) -> int:
        """The level of the highest hill holding the base's centre (0 off hills, AT23)."""
        holding = self._holding(base_id)
        return max([t.level for t in self.features(HILLS) if t.is_area and t.id in holding],
                   default=0)

    def _holding(self, base_id: str) -> frozenset[str]:
        """Ids of every area holding the base's centre (cached per base)."""
        cache = self.__dict__.setdefault("_holding_cache", {})
        found = cache.get(base_id)
        if found is None:
            r = self.rect(base_id)
            c = ShPoint(r.cx, r.cy)
            found = cache[base_id] = frozenset(i for i, poly in self.areas.items()
                                               if poly.covers(c))
        return found

    def hill_of(self, base_id: str) -> str | None:
        return self.area_holding(base_id, HILLS)

    def wood_of(self, base_id: str) -> str | None:
        return self.area_holding(base_id, WOODS)
