"""What every ruleset's Board derives from a game state the same way: lengths in the rulebook's
unit, the bases in the spatial index's order (rows, rectangles, outlines), the pairs of bases near
each other with their gaps, contact decided within the close-call tolerance, which terrain areas
hold each base's centre and the hill level it stands on.

Each rulebook's Board (`rulesets/*/board.py`) inherits these and adds its own facts. Every fact
is declared here or there (`functools.cached_property`), built on first use and kept for the one
state the Board belongs to (`GameState.cached`).
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import shapely
from shapely.strtree import STRtree

from campo.engine.boundary import decide, key
from campo.engine.geometry.rect import Rect
from campo.engine.state import GameState
from campo.engine.terrain_shapes import terrain_shapes

if TYPE_CHECKING:
    from campo.engine.scenario import TerrainFeature


class BoardBase:
    """The facts every rulebook's Board shares; a subclass declares ``state`` and ``settings``
    (dataclass fields, or a property) and sets ``MM_PER_UNIT``."""

    MM_PER_UNIT: ClassVar[float]
    """The rulebook's length unit in mm (ISD: the inch, Federico and ATTILA: the cm)."""

    state: GameState
    settings: Any

    def mm(self, length: float) -> float:
        """A length in the rulebook's unit, in mm."""
        return length * self.MM_PER_UNIT

    @cached_property
    def close_call(self) -> float:
        """The close-call tolerance, mm (`campo.engine.boundary`)."""
        return float(self.settings.close_call_mm)

    # --- the bases, by row (the spatial index's order) ---------------------------------------
    @cached_property
    def order(self) -> list[str]:
        """Base ids in the spatial index's order (`BaseIndex.ids`): the rows of every array."""
        return list(self.state.index.ids)

    @cached_property
    def pos(self) -> dict[str, int]:
        """Each base's row (its place in `order`)."""
        return {i: k for k, i in enumerate(self.order)}

    def positions(self, ids: Iterable[str]) -> np.ndarray:
        """The rows of ``ids`` (`pos`), as an array."""
        pos = self.pos
        return np.array([pos[i] for i in ids], dtype=np.int64)

    @cached_property
    def rects(self) -> list[Rect]:
        """Every base's rectangle, by row."""
        return [self.state.rect(i) for i in self.order]

    @cached_property
    def rect_of(self) -> dict[str, Rect]:
        """Every base's rectangle by id (asked for some ten thousand times per analysis)."""
        return dict(zip(self.order, self.rects))

    def rect(self, base_id: str) -> Rect:
        return self.rect_of[base_id]

    @cached_property
    def shapes(self) -> np.ndarray:
        """Every base's outline (a polygon), by row: the spatial index's own shapes."""
        return self.state.index.shapes

    @property
    def tree(self) -> STRtree:
        """Every base's outline (rows), for envelope queries: the spatial index's own tree."""
        return self.state.index.tree

    @cached_property
    def centre_points(self) -> np.ndarray:
        """Every base's centre as a shapely point, by row."""
        return shapely.points([(r.cx, r.cy) for r in self.rects])

    def centres_in(self, areas: Any) -> np.ndarray:
        """(area, row): whether each of ``areas`` (polygons) covers each base's centre, in one
        vectorised test."""
        areas = np.asarray(areas, dtype=object).reshape(-1)
        if not len(areas) or not len(self.order):
            return np.zeros((len(areas), len(self.order)), dtype=bool)
        return shapely.covers(areas[:, None], self.centre_points[None, :])

    # --- pairs and contact ------------------------------------------------------------------
    def pairs_near(self, reach: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(i, j, gap mm) of every pair of bases (rows i < j) at most ``reach`` apart: one index
        query and one distance call, each pair measured once."""
        i, j = self.state.index.candidate_pairs(reach)
        keep = i < j
        i, j = i[keep], j[keep]
        gap = shapely.distance(self.shapes[i], self.shapes[j])
        keep = gap <= reach
        return i[keep], j[keep], gap[keep]

    def decide_contact(self, margins: np.ndarray, i: np.ndarray, j: np.ndarray
                       ) -> tuple[list[bool], list[bool]]:
        """Per pair of rows ``i``, ``j``, (in contact, too close to call) from the margin by which
        its gap is within the contact tolerance: `boundary.decide` with the close-call
        tolerance, a live game holding each pair's last verdict by its ids (key "contact",
        sorted)."""
        order = self.order
        keys = [key("contact", *sorted((order[a], order[b])))
                for a, b in zip(i.tolist(), j.tolist())]
        return decide(margins, self.close_call, keys, self.state.held)

    def both_ways(self, pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
        """Every base -> its partners in ``pairs`` (either way round), sorted."""
        out: dict[str, list[str]] = {i: [] for i in self.order}
        for a, b in pairs:
            out[a].append(b)
            out[b].append(a)
        for found in out.values():
            found.sort()
        return out

    # --- terrain ----------------------------------------------------------------------------
    @cached_property
    def area_features(self) -> list[TerrainFeature]:
        """The terrain's areas, in the scenario's order: the columns of `holding`."""
        return [t for t in self.state.scenario.terrain if t.is_area]

    @cached_property
    def area_index(self) -> dict[str, int]:
        """Area id -> its column in `holding`."""
        return {t.id: k for k, t in enumerate(self.area_features)}

    @cached_property
    def holding(self) -> np.ndarray:
        """(row, area): whether the area holds the base's centre (`centres_in`, the terrain's
        shared shapes)."""
        return self.centres_in([poly for _, _, poly in terrain_shapes(self.state).areas]).T

    def areas_holding(self, base_id: str, kinds: Container[str]) -> list[str]:
        """Ids of the areas of ``kinds`` holding the base's centre, in the terrain's order."""
        row = self.holding[self.pos[base_id]]
        return [t.id for k, t in enumerate(self.area_features) if row[k] and t.kind in kinds]

    @cached_property
    def levels(self) -> np.ndarray:
        """Every base's hill level by row: the highest hill holding its centre (0 off hills)."""
        return self._highest_hill(self.holding[:, self._hills])

    def levels_of(self, rows: np.ndarray) -> np.ndarray:
        """The hill levels of the bases at ``rows`` only (as `levels`): a few bases' question
        (a detail's guns and their targets) without testing every base against every area."""
        hills = self._hills
        if not hills or not len(rows):
            return np.zeros(len(rows), dtype=np.int64)
        areas = terrain_shapes(self.state).areas
        rects = self.rects
        points = shapely.points([(rects[r].cx, rects[r].cy) for r in rows.tolist()])
        polys = np.array([areas[k][2] for k in hills], dtype=object)
        return self._highest_hill(shapely.covers(polys[None, :], points[:, None]))

    @cached_property
    def _hills(self) -> list[int]:
        """The hills' columns in `holding` (positions among `area_features`)."""
        return [k for k, t in enumerate(self.area_features) if t.kind == "hill"]

    def _highest_hill(self, holds: np.ndarray) -> np.ndarray:
        """Per row of ``holds`` (row, hill of `_hills`): the level of the highest hill holding
        it, 0 when none does."""
        level = np.array([self.area_features[k].level for k in self._hills], dtype=np.int64)
        lowest = np.iinfo(np.int64).min
        top = np.where(holds, level, lowest).max(axis=1, initial=lowest)
        return np.where(holds.any(axis=1), top, 0)

    def level(self, base_id: str) -> int:
        """The hill level under the base's centre (0 = the table)."""
        return int(self.levels[self.pos[base_id]])
