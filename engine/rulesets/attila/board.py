"""Everything derived once per ATTILA game state, declared here (`functools.cached_property`):
each base's reading, the bases as arrays, contacts, terrain and which areas hold each base.

`Board.of(state)` is kept with the state (`GameState.cached`), so all questions asked of one state
share the work. The board refers to its state weakly: with no reference cycle between them, a state
a live game has replaced is freed at once, not left to the garbage collector (hold the state while
you use its board). Bases are numbered in the spatial index's order (`state.index`); ``ids`` lists
them sorted, the order of every output.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from campo.engine.board_base import BoardBase
from campo.engine.geometry.contact import edge_of_lengths, touched_edge
from campo.engine.geometry.folds import highest
from campo.engine.geometry.index import within_by_centres
from campo.engine.geometry.rect import EDGE_NAMES
from campo.engine.rulesets.attila.geometry import Frames, shared_lengths
from campo.engine.rulesets.attila.settings import AttilaSettings
from campo.engine.rulesets.attila.tables import MM_PER_CM, WOODS
from campo.engine.rulesets.attila.units import Unit, read_unit
from campo.engine.scenario import BaseState, TerrainFeature
from campo.engine.state import GameState


BaseKey = tuple[Any, ...]
"""A base's id with everything its geometry and reading depend on (`Board.base_keys`)."""


@dataclass(frozen=True)
class Contact:
    """One enemy touching a base: which side of THIS base it touches."""

    other: str
    side: str     # "front", "left", "right", "rear"
    close: bool = False   # the gap is within close_call_mm of the contact tolerance

    @property
    def aspect(self) -> str:
        return "flank" if self.side in ("left", "right") else self.side


@dataclass(frozen=True)
class TouchingPairs:
    """Pairs of bases near enough to touch, as arrays: rows ``a`` < ``b``, their ``gaps`` (mm),
    and ``ab`` / ``ba`` (n, 4): the length of each edge of ``a`` lying along ``b`` (and the
    reverse), in `rect.EDGE_NAMES` order."""

    a: np.ndarray
    b: np.ndarray
    gaps: np.ndarray
    ab: np.ndarray
    ba: np.ndarray


@dataclass
class Board(BoardBase):
    MM_PER_UNIT = MM_PER_CM

    state_ref: weakref.ReferenceType[GameState]
    settings: AttilaSettings

    @staticmethod
    def of(state: GameState) -> Board:
        return state.cached("attila.board", lambda: Board(weakref.ref(state), state.settings))

    @property
    def state(self) -> GameState:
        state = self.state_ref()
        if state is None:
            raise ReferenceError("this board's GameState is gone: keep the state while its board "
                                 "is used")
        return state

    # --- distances ------------------------------------------------------------------------------
    @staticmethod
    def cm(mm: float) -> float:
        return mm / MM_PER_CM

    @cached_property
    def contact_tol(self) -> float:
        return float(self.settings.at2_contact_tolerance_mm)

    # --- bases ----------------------------------------------------------------------------------
    @cached_property
    def ids(self) -> list[str]:
        """Base ids sorted (the order of every output)."""
        return sorted(self.order)

    def _per_base(self, key: str, read: Callable[[BaseState], Any]) -> dict[str, Any]:
        """``read(base)`` of every base, taking over from a live game's moment before those of
        the bases given exactly as then (`GameState.changes`) under the same settings
        (`GameState.hand_on`)."""
        before = self.state.handed_on(key)
        kept = before[1] if before is not None and before[0] == self.settings else {}
        changed = self.state.changes.changed
        out = {b.id: kept[b.id] if b.id in kept and b.id not in changed else read(b)
               for b in self.state.bases}
        self.state.hand_on(key, (self.settings, out))
        return out

    @cached_property
    def units(self) -> dict[str, Unit]:
        return self._per_base("attila.units", lambda b: read_unit(b, self.settings))

    @cached_property
    def rows(self) -> list[Unit]:
        """The units in index order."""
        return [self.units[i] for i in self.order]

    @cached_property
    def frames(self) -> Frames:
        return Frames.of_rects(self.rects)

    @cached_property
    def sides(self) -> np.ndarray:
        return np.array([u.side for u in self.rows])

    @cached_property
    def present(self) -> np.ndarray:
        return np.array([not u.absent for u in self.rows], dtype=bool)

    @cached_property
    def base_keys(self) -> dict[str, BaseKey]:
        """Per base, everything its geometry and reading depend on (id, side, type, pose, size,
        traits as text, seen or not), exactly: what a memo of answers across states is keyed by
        (traits listed in another order only miss the memo)."""
        return self._per_base("attila.base_keys", lambda b: (
            b.id, b.side, b.type, b.x_mm, b.y_mm, b.heading_deg, b.width_mm, b.depth_mm, b.stale,
            repr(b.traits)))

    @cached_property
    def row_keys(self) -> list[BaseKey]:
        """`base_keys` in index order (the rows of every array)."""
        return [self.base_keys[i] for i in self.order]

    @cached_property
    def scene_key(self) -> tuple[str, str]:
        """The settings and the terrain, as text (what every answer depends on); a live game's
        moment takes it over from the moment before when both are given as then
        (`GameState.changes`)."""
        key: tuple[str, str] | None = self.state.handed_on("attila.scene_key")
        if key is None or not self.state.changes.same("settings", "terrain"):
            key = (self.settings.model_dump_json(),
                   json.dumps([t.model_dump(mode="json") for t in self.terrain], sort_keys=True))
        self.state.hand_on("attila.scene_key", key)
        return key

    def poly(self, base_id: str) -> Polygon:
        return self.shapes[self.pos[base_id]]

    def generals(self, side: str) -> list[str]:
        """The side's Generals (one the camera has lost keeps his last pose for command)."""
        return list(self._generals.get(side, ()))

    @cached_property
    def _generals(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for i in self.ids:
            if self.units[i].is_general:
                out.setdefault(self.units[i].side, []).append(i)
        return out

    def boxes_meeting(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(box, base row) of every base whose bounding box meets each box, sorted: a superset
        of the bases meeting it found without a GEOS predicate, for callers that test further."""
        si, bi = self.tree.query(boxes)
        order = np.lexsort((bi, si))
        return si[order], bi[order]

    def within(self, rows: Sequence[int] | np.ndarray, distance: float | np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        """(k, base row) of every base within ``distance`` (per row or one value) of base
        ``rows[k]``, itself included, sorted: the bases meeting its box grown by the distance
        (`boxes_meeting`), decided by `within_by_centres`."""
        rows = np.asarray(rows, dtype=int)
        if not len(rows):
            return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
        reach = np.broadcast_to(np.asarray(distance, dtype=float), (len(rows),))
        b = shapely.bounds(self.shapes[rows])
        boxes = shapely.box(b[:, 0] - reach, b[:, 1] - reach, b[:, 2] + reach, b[:, 3] + reach)
        si, bi = self.boxes_meeting(boxes)
        keep = self.within_pairs(rows[si], bi, reach[si])
        return si[keep], bi[keep]

    def within_pairs(self, a: np.ndarray, b: np.ndarray, distance: float | np.ndarray
                     ) -> np.ndarray:
        """Per pair of base rows ``a[k]``, ``b[k]``: their gap is at most ``distance`` (per pair
        or one value), decided by `within_by_centres`."""
        f = self.frames
        half = np.hypot(f.width, f.depth) / 2
        return within_by_centres(np.hypot(f.cx[a] - f.cx[b], f.cy[a] - f.cy[b]),
                                 half[a] + half[b], distance, self.shapes[a], self.shapes[b])

    def near(self, base_id: str, distance_mm: float) -> list[str]:
        """Other bases within ``distance_mm`` of this one, sorted."""
        _, bi = self.within([self.pos[base_id]], distance_mm)
        return sorted(self.order[b] for b in bi.tolist() if self.order[b] != base_id)

    # --- contact (ATT 7.A, AT1, AT2) --------------------------------------------------------------
    @cached_property
    def touching_pairs(self) -> TouchingPairs:
        """Every pair of bases (a < b in index order) within the contact tolerance and twice
        the close call (a pair leaving the band too close to call is seen clearly apart, so a
        contact held live is let go), with its gap and the length of each edge of either lying
        along the other (within the tolerance; a pair farther apart than it, within its own
        gap): one STRtree query, one distance call and one clipping for all (contacts and groups
        read it). A live game's moment takes over from the moment before the pairs of bases
        standing where they stood (`GameState.changes`, listed in the same order) and measures
        only the pairs a moved or new base is in."""
        tol = self.contact_tol
        reach = tol + 2 * self.close_call
        before = self.state.handed_on("attila.touching")
        stays = self.state.changes.unmoved
        if before is None or before[0] != (tol, reach) or \
                [i for i in before[1] if i in stays] != [i for i in self.order if i in stays]:
            stays = frozenset()
        si, bi = self.state.index.candidate_pairs(reach)
        new = np.array([i not in stays for i in self.order], dtype=bool)
        keep = (si < bi) & (new[si] | new[bi])
        si, bi = si[keep], bi[keep]
        gaps = shapely.distance(self.shapes[si], self.shapes[bi])
        keep = gaps <= reach
        si, bi, gaps = si[keep], bi[keep], gaps[keep]
        a, b = self.frames.take(si), self.frames.take(bi)
        grow = np.maximum(max(tol, 1e-6), gaps)
        p = TouchingPairs(si, bi, gaps, shared_lengths(a, b, grow), shared_lengths(b, a, grow))
        if stays:
            was: TouchingPairs = before[2]
            kept = np.array([before[1][x] in stays and before[1][y] in stays
                             for x, y in zip(was.a.tolist(), was.b.tolist())], dtype=bool)
            rows = np.array([self.pos.get(i, -1) for i in before[1]], dtype=int)
            p = TouchingPairs(*(np.concatenate([x, y[kept]]) for x, y in zip(
                (p.a, p.b, p.gaps, p.ab, p.ba), (rows[was.a], rows[was.b], was.gaps, was.ab,
                                                  was.ba))))
            order = np.lexsort((p.b, p.a))
            p = TouchingPairs(p.a[order], p.b[order], p.gaps[order], p.ab[order], p.ba[order])
        self.state.hand_on("attila.touching", ((tol, reach), self.order, p))
        return p

    @cached_property
    def _touching(self) -> dict[str, list[Contact]]:
        """Every base -> the bases touching it (either side; absent ones included), each with
        the side of the base it touches, sorted by id.

        In contact (AT2): the gap is within the tolerance, decided with `boundary.decide` (a gap
        within close_call_mm of the tolerance is too close to call, held live), and one of the
        two bases lies along the other's edge for more than contact_min_shared_mm (so corner to
        corner is not contact). The sides of a pair of bases standing where they stood are
        taken over from a live game's moment before (`GameState.changes`)."""
        out: dict[str, list[Contact]] = {i: [] for i in self.order}
        p = self.touching_pairs
        if not len(p.a):
            return out
        tol = self.contact_tol
        touching, close = self.decide_contact(tol - p.gaps, p.a, p.b)
        long_enough = np.maximum(highest(p.ab), highest(p.ba)) > \
            self.settings.contact_min_shared_mm
        method = self.settings.at1_contact_side
        before = self.state.handed_on("attila.sides")
        stays = self.state.changes.unmoved if before is not None and before[0] == (method, tol) \
            else frozenset()
        sides: dict[tuple[str, str], tuple[str, str]] = {}
        for n in np.nonzero(np.array(touching) & long_enough)[0].tolist():
            a, b = self.order[p.a[n]], self.order[p.b[n]]
            found = before[1].get((a, b)) if a in stays and b in stays else None
            if found is None:
                g = max(tol, float(p.gaps[n]))
                if method == "longest_shared_segment":
                    found = (edge_of_lengths(dict(zip(EDGE_NAMES, p.ab[n].tolist())), g),
                             edge_of_lengths(dict(zip(EDGE_NAMES, p.ba[n].tolist())), g))
                else:
                    found = (touched_edge(self.rects[p.a[n]], self.rects[p.b[n]], g, method),
                             touched_edge(self.rects[p.b[n]], self.rects[p.a[n]], g, method))
            sides[(a, b)] = found
            out[a].append(Contact(b, found[0], close[n]))
            out[b].append(Contact(a, found[1], close[n]))
        self.state.hand_on("attila.sides", ((method, tol), sides))
        for v in out.values():
            v.sort(key=lambda c: c.other)
        return out

    def contacts(self, base_id: str, *, enemies: bool = True) -> list[Contact]:
        """Bases touching this one (enemies or friends), but not those the camera has lost
        (a lost base keeps its last pose, so its own contacts still count for it)."""
        side = self.units[base_id].side
        return [c for c in self._touching[base_id]
                if (self.units[c.other].side != side) == enemies
                and not self.units[c.other].absent]

    def in_enemy_contact(self, base_id: str) -> bool:
        return bool(self.contacts(base_id))

    def side_touched(self, a: str, b: str) -> str:
        """Which side of ``a`` the base ``b`` touches (AT1), whether or not they are in contact
        (the after-melee drawings ask of bases in contact)."""
        for c in self._touching[a]:
            if c.other == b:
                return c.side
        return touched_edge(self.rect(a), self.rect(b), self.contact_tol,
                            self.settings.at1_contact_side)

    # --- terrain ----------------------------------------------------------------------------------
    @cached_property
    def terrain(self) -> list[TerrainFeature]:
        return list(self.state.scenario.terrain)

    @cached_property
    def areas(self) -> dict[str, Polygon]:
        return {t.id: Polygon(t.polygon_mm) for t in self.terrain if t.is_area}

    @cached_property
    def lines(self) -> dict[str, LineString]:
        return {t.id: LineString(t.line_mm) for t in self.terrain if t.line_mm is not None}

    def features(self, kinds: frozenset[str]) -> list[TerrainFeature]:
        return [t for t in self.terrain if t.kind in kinds]

    def area_holding(self, base_id: str, kinds: frozenset[str]) -> str | None:
        """The first area feature of those kinds holding the base's centre, if any."""
        return next(iter(self.areas_holding(base_id, kinds)), None)

    def wood_of(self, base_id: str) -> str | None:
        return self.area_holding(base_id, WOODS)

    def shape_of(self, feature_id: str) -> Any:
        return self.areas.get(feature_id) or self.lines[feature_id]
