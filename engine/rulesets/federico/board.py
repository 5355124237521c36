"""Everything derived once per game state for the Federico verdicts, declared here: the reading
of each base, the bases as arrays, who touches whom (decided within the close-call tolerance),
the edges touched, terrain by role, tolerances in mm.

`Board.of(state)` is kept on the state (`GameState.cached`), so every question asked of one
state shares these facts; each is built on first use (`functools.cached_property`), and the
per-question answers (targets, attacks) are kept in the declared ``memo`` tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from campo.engine.board_base import BoardBase
from campo.engine.geometry.contact import RectTable, edges_of_lengths
from campo.engine.geometry.rect import EDGE_NAMES
from campo.engine.rulesets.federico.pieces import Piece, classify
from campo.engine.rulesets.federico.settings import FedericoSettings
from campo.engine.rulesets.federico.units import MM_PER_CM
from campo.engine.state import GameState
from campo.engine.terrain_shapes import terrain_shapes

if TYPE_CHECKING:
    from campo.engine.rulesets.federico.contacts import Relations
    from campo.engine.rulesets.federico.regiments import Regiments

TOUCH_MM = 0.5   # an attack's first contact is made by the front if within this of it; bases
# shrunk by this (or the contact tolerance) leave room for an attack that only touches them
SEGMENT_SLACK_MM = 0.01   # a contact held past the tolerance is measured at its gap plus this
OUTWARD = {"front": 0.0, "left": 90.0, "rear": 180.0, "right": -90.0}   # edges' facing, deg


@dataclass(eq=False)
class Board(BoardBase):
    MM_PER_UNIT = MM_PER_CM

    state: GameState
    settings: FedericoSettings
    memo: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    """Answers asked of this moment, by question: ("fire", firer) -> its targets, ("attack",
    attacker, target) -> the verdict, ... (a whole-table analysis and a tap share them)."""

    @staticmethod
    def of(state: GameState) -> Board:
        return state.cached("federico.board", lambda: Board(state, state.settings))

    # --- units and tolerances -------------------------------------------------------------
    @staticmethod
    def cm(mm: float) -> float:
        return mm / MM_PER_CM

    @cached_property
    def contact_tol(self) -> float:
        return self.mm(self.settings.contact_tolerance_cm)

    @cached_property
    def beyond_tol(self) -> float:
        return self.mm(self.settings.beyond_front_tolerance_cm)

    # --- the bases -------------------------------------------------------------------------
    @cached_property
    def pieces(self) -> dict[str, Piece]:
        return {b.id: classify(b) for b in self.state.bases}

    @cached_property
    def quads(self) -> np.ndarray:
        """(n, 4, 2) corners: front-left, front-right, rear-right, rear-left, read from the
        outlines (`shapes`: polygons of `Rect.corners`, the same floats) in one call."""
        return shapely.get_coordinates(self.shapes).reshape(-1, 5, 2)[:, :4]

    @cached_property
    def centres(self) -> np.ndarray:
        return np.array([(r.cx, r.cy) for r in self.rects], dtype=float).reshape(-1, 2)

    @cached_property
    def axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(front unit vectors, right unit vectors, half sizes (half width, half depth)) of every
        base, (n, 2) each: ``centre + u * right + v * front`` is the point (u, v) of its frame."""
        flat = np.array([v for r in self.rects for v in (*r.front, *r.right, r.width / 2,
                                                         r.depth / 2)],
                        dtype=float).reshape(-1, 3, 2)
        return flat[:, 0].copy(), flat[:, 1].copy(), flat[:, 2].copy()

    @cached_property
    def radii(self) -> np.ndarray:
        """Half each base's diagonal: no point of it is farther from its centre."""
        return np.hypot(self.axes[2][:, 0], self.axes[2][:, 1])

    @cached_property
    def fronts(self) -> np.ndarray:
        """Every base's front edge as a line (front-left to front-right)."""
        return shapely.linestrings(self.quads[:, :2])

    @cached_property
    def troop(self) -> np.ndarray:
        return np.array([self.pieces[i].is_troop for i in self.order], dtype=bool)

    @cached_property
    def stale(self) -> np.ndarray:
        return np.array([self.pieces[i].stale for i in self.order], dtype=bool)

    @cached_property
    def side(self) -> np.ndarray:
        return np.array([self.pieces[i].side for i in self.order])

    def is_enemy(self, a: str, b: str) -> bool:
        return self.pieces[a].side != self.pieces[b].side

    def troops(self, side: str | None = None) -> list[str]:
        return sorted(i for i, p in self.pieces.items()
                      if p.is_troop and (side is None or p.side == side))

    # --- who touches whom ------------------------------------------------------------------
    @cached_property
    def near(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(i, j, gap mm) of every pair of bases (i < j, index rows) within the farthest
        distance a relation looks (contact, cohesion, a commander's adjacency, the command
        radius) plus the close-call tolerance: one index query and one distance call."""
        s = self.settings
        reach = max(self.contact_tol, self.mm(s.f17_cohesion_tolerance_cm),
                    self.mm(s.f27_commander_adjacent_cm), self.mm(s.command_radius_cm))
        return self.pairs_near(reach + self.close_call)

    @cached_property
    def contact(self) -> dict[tuple[str, str], bool]:
        """(a, b) with a < b -> too close to call, for every pair of bases in contact (gap within
        the contact tolerance, decided with the close-call tolerance and held live)."""
        i, j, gap = self.near
        pairs = [(self.order[a], self.order[b]) for a, b in zip(i.tolist(), j.tolist())]
        pairs = [(a, b) if a < b else (b, a) for a, b in pairs]
        touching, close = self.decide_contact(self.contact_tol - gap, i, j)
        return {p: c for p, t, c in zip(pairs, touching, close) if t}

    def pairs_within(self, distance_mm: float) -> list[tuple[str, str]]:
        """Every pair of bases at most ``distance_mm`` apart (no farther than `near` looks)."""
        i, j, gap = self.near
        keep = np.nonzero(gap <= distance_mm)[0]
        return [(self.order[a], self.order[b]) for a, b in zip(i[keep].tolist(),
                                                                j[keep].tolist())]

    @cached_property
    def touching(self) -> dict[str, list[str]]:
        """Every base -> the troop bases it touches along a shared segment (commanders touch
        nobody). Corners meeting are not contact: a friend beside an engaged base, whose front
        corner meets the enemy's, is «non impegnata in mischia» and may support (Federico
        "Mischie", F1, F20); the segment test is `edge_to_edge`'s, taken both ways (a corner
        pressed into the middle of an edge is contact)."""
        p = self.pieces
        pairs = [(a, b) for a, b in self.contact if p[a].is_troop and p[b].is_troop]
        return self.both_ways(pair for pair, ok in zip(pairs, self._along_segment(pairs)) if ok)

    def _along_segment(self, pairs: list[tuple[str, str]]) -> list[bool]:
        """Per pair in contact, an edge of one lies along the other (`edge_to_edge`, either
        way round) within the contact tolerance, or within the pair's own gap when a live
        game holds a contact drifted past it (close call)."""
        if not pairs:
            return []
        gaps = shapely.distance(self.shapes[self.positions(a for a, _ in pairs)],
                                self.shapes[self.positions(b for _, b in pairs)])
        tol = np.maximum(self.contact_tol, gaps + SEGMENT_SLACK_MM)
        both = self.edge_to_edge(pairs + [(b, a) for a, b in pairs], np.concatenate([tol, tol]))
        return [x or y for x, y in zip(both[:len(pairs)], both[len(pairs):])]

    @cached_property
    def _touching_lengths(self) -> tuple[list[tuple[str, str]], np.ndarray]:
        """Every pair of troops touching, both ways, and per pair the length of each edge of
        the first lying along the second within the contact tolerance (measured once for
        `edges` and `segment_contacts`)."""
        pairs = [(a, b) for a, found in self.touching.items() for b in found]
        return pairs, self._shared_lengths(pairs, self.contact_tol)

    @cached_property
    def edges(self) -> dict[tuple[str, str], str]:
        """(a, b) -> the edge of ``a`` that ``b`` touches, for every pair of troops touching,
        both ways (Federico F1: the longest shared segment; ties within half the tolerance to
        the front, then the flanks, then the rear: `contact.edges_of_lengths`)."""
        pairs, lengths = self._touching_lengths
        edges = edges_of_lengths(lengths, self.contact_tol).tolist()
        return {pair: EDGE_NAMES[k] for pair, k in zip(pairs, edges)}

    @cached_property
    def segment_contacts(self) -> set[tuple[str, str]]:
        """The touching pairs (a, b) where ``b`` lies along an edge of ``a`` over a segment
        within the contact tolerance (`edge_to_edge` of every touching pair)."""
        pairs, lengths = self._touching_lengths
        return {pair for pair, ok in zip(pairs, _lies_along(lengths, self.contact_tol)) if ok}

    def edge_to_edge(self, pairs: list[tuple[str, str]], tolerance_mm: float | np.ndarray
                     ) -> list[bool]:
        """Per pair, the bases touch along a shared segment (not only at a corner) within the
        tolerance (one, or one per pair)."""
        return _lies_along(self._shared_lengths(pairs, tolerance_mm), tolerance_mm)

    def _shared_lengths(self, pairs: list[tuple[str, str]], tolerance_mm: float | np.ndarray
                        ) -> np.ndarray:
        """`contact.shared_lengths_many` of the pairs, read from the board's one table of
        rectangles (a live update asks for some hundreds of pairs)."""
        if not pairs:
            return np.zeros((0, 4))
        table = self.rect_table
        return table.shared_lengths(self.positions(a for a, _ in pairs), table,
                                    self.positions(b for _, b in pairs), tolerance_mm)

    @cached_property
    def rect_table(self) -> RectTable:
        """Every base's rectangle as arrays, by row."""
        return RectTable(self.rects)

    @cached_property
    def regiments(self) -> Regiments:
        from campo.engine.rulesets.federico.regiments import Regiments

        return Regiments(self)

    @cached_property
    def relations(self) -> Relations:
        from campo.engine.rulesets.federico.contacts import Relations

        return Relations(self)

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
        """Hill crests, and crest lines on their own (Federico F5: they block sight)."""
        return terrain_shapes(self.state).crests + [(tid, line) for tid, kind, line in
                                                    self.linears if kind == "crest"]

    @cached_property
    def area_shapes(self) -> np.ndarray:
        return np.array([poly for _, _, poly in self.areas], dtype=object)

    @cached_property
    def line_shapes(self) -> np.ndarray:
        return np.array([line for _, _, line in self.linears], dtype=object)

    @cached_property
    def centre_areas(self) -> dict[str, frozenset[str]]:
        """Every base -> the ids of the areas (any kind) holding its centre (`holding`)."""
        tids = [t.id for t in self.area_features]
        return {i: frozenset(t for t, hit in zip(tids, row) if hit)
                for i, row in zip(self.order, self.holding.tolist())}

    def on_hill(self, base_id: str) -> str | None:
        hills = self.areas_holding(base_id, ("hill",))
        return hills[0] if hills else None

    def cover_areas(self, ids: Sequence[str]) -> list[str | None]:
        """Federico F7: per base, the first cover area (``cover_areas``) holding at least
        ``cover_area_share`` of it, or None (it does not depend on the firer); each base
        measured once per board, all those not measured before in one call."""
        todo = [i for i in dict.fromkeys(ids) if ("cover", i) not in self.memo]
        s = self.settings
        cover = [k for k, (_, kind, _) in enumerate(self.areas) if kind in s.cover_areas]
        if todo:
            found: list[str | None] = [None] * len(todo)
            if cover:
                areas, shapes = self.area_shapes[cover], self.shapes[self.positions(todo)]
                a, b = np.nonzero(shapely.intersects(areas[:, None], shapes[None, :]))
                shared = np.zeros((len(cover), len(todo)))
                shared[a, b] = shapely.area(shapely.intersection(areas[a], shapes[b]))
                ok = shared >= s.cover_area_share * shapely.area(shapes)[None, :] - 1e-6
                first = ok.argmax(axis=0)
                found = [self.areas[cover[k]][0] if ok[k, j] else None
                         for j, k in enumerate(first.tolist())]
            for i, area in zip(todo, found):
                self.memo[("cover", i)] = area
        return [self.memo[("cover", i)] for i in ids]

    # --- shapes as arrays, for the line-of-sight and attack tests --------------------------
    @cached_property
    def room_corners(self) -> tuple[np.ndarray, np.ndarray]:
        """Every base's corners (n, 4, 2) shrunk by the contact tolerance (at least TOUCH_MM),
        and whether it can stand in an attack's way (a troop base not shrunk to nothing):
        touching is not blocking (Federico F18)."""
        front, right, half = self.axes
        inset = half - max(self.contact_tol, TOUCH_MM)
        real = (inset > 0).all(axis=1)
        corners = np.stack([self.centres + u * inset[:, :1] * right + v * inset[:, 1:] * front
                            for u, v in ((-1, 1), (1, 1), (1, -1), (-1, -1))], axis=1)
        return corners, real & self.troop

    def front_lines(self, kinds: tuple[str, ...]) -> dict[str, list[int]]:
        """Every base -> the rows of `linears` of ``kinds`` along its front (within half its
        depth, at least 1 cm), all bases measured at once (kept per ``kinds``)."""
        found = self.memo.get(("front_lines", kinds))
        if found is None:
            rows = [k for k, (_, kind, _) in enumerate(self.linears) if kind in kinds]
            found = {i: [] for i in self.order}
            if rows and self.order:
                reach = np.maximum(self.mm(1.0), self.axes[2][:, 1])
                near = shapely.dwithin(self.fronts[:, None], self.line_shapes[rows][None, :],
                                       reach[:, None])
                for b, ln in zip(*(x.tolist() for x in np.nonzero(near))):
                    found[self.order[b]].append(rows[ln])
            self.memo[("front_lines", kinds)] = found
        return found

    def lines_between(self, pairs: list[tuple[str, str]], kinds: Any) -> list[str | None]:
        """Per (near, far) pair, the first linear feature of ``kinds`` along ``near``'s front
        crossed by the line from ``far``'s centre to ``near``'s: ``near`` is behind it against
        ``far``."""
        along = self.front_lines(tuple(kinds))
        out: list[str | None] = [None] * len(pairs)
        todo = [(k, ln) for k, (n, _) in enumerate(pairs) for ln in along[n]]
        if not todo:
            return out
        sight = shapely.linestrings([[(self.rect(f).cx, self.rect(f).cy),
                                      (self.rect(n).cx, self.rect(n).cy)]
                                     for n, f in (pairs[k] for k, _ in todo)])
        hits = shapely.intersects(sight, self.line_shapes[[ln for _, ln in todo]])
        for (k, ln), hit in zip(todo, hits.tolist()):
            if hit and out[k] is None:
                out[k] = self.linears[ln][0]
        return out


def _lies_along(lengths: np.ndarray, tolerance_mm: float | np.ndarray) -> list[bool]:
    """Per row of `shared_lengths` (within ``tolerance_mm``), whether some edge lies along the
    other base for more than the tolerance can account for at a corner (2 x tol + 1 mm)."""
    return (lengths.max(axis=1) > 2 * tolerance_mm + 1.0).tolist()
