"""Everything derived once per game state for the ISD verdicts: readings of each base, batteries,
fire arcs, the sight field, tolerances in mm.

`Board.of(state)` is cached on the state (`GameState.cached`), so every question asked of one
state shares the work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from campo.engine.board_base import BoardBase
from campo.engine.geometry.contact import ContactPairs, RectTable, find_contacts, midpoint_edges
from campo.engine.geometry.poses import Poses
from campo.engine.geometry.rect import EDGE_NAMES, Point
from campo.engine.geometry.sight import SightField
from campo.engine.rulesets.italia.charge_terrain import TerrainTable
from campo.engine.rulesets.italia.pieces import UnitInfo, classify
from campo.engine.rulesets.italia.tables_fire import (
    LOS_MAX_DEPTH_IN_WOOD_OR_TOWN_IN,
    SIGHT_BLOCKING_LINES,
    SIGHT_DEEP_AREAS,
)
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.troops import MM_PER_INCH
from campo.engine.state import GameState
from campo.engine.terrain_shapes import terrain_shapes

if TYPE_CHECKING:
    from campo.engine.rulesets.italia.charges import ChargeBook
    from campo.engine.rulesets.italia.conduct import Conduct
    from campo.engine.rulesets.italia.melee import MeleeBook
    from campo.engine.rulesets.italia.relations import Relations

MM_PER_IN = MM_PER_INCH     # ISD Intro «POLLICI (2,5 cm.)»
REPORT_MARGIN_IN = 3.0      # in-arc targets are measured (part in arc, sight) out to 3" beyond the range
DEEP_AREAS = SIGHT_DEEP_AREAS   # ISD §6 «bosco o ... città» (the tables' name for it)
GRAZE_MM = 0.5   # a sight line merely grazing a base (tracking noise) is not blocked by it
WATCH_MM = MM_PER_IN   # verdicts this far past a close call are decided too, so a live game's
# memory learns that a pair held touching (or in command) is now clearly apart


@dataclass
class FireMemo:
    """What the fire verdicts (fire*.py) remember on one board: per gun, the friends its
    rockets fire over and whether a friend stands within 2" (``fire_over``); per target, the
    terrain covering it (``cover``); per kind of shot, its modifiers (``modifiers``); the tables
    of shots measured (``tables``) and single shots measured alone (``probes``)."""

    fire_over: dict[str, tuple[list[str], bool]] = field(default_factory=dict)
    cover: dict[str, tuple[list, list]] = field(default_factory=dict)
    modifiers: dict[tuple, list[dict]] = field(default_factory=dict)
    tables: list[Any] = field(default_factory=list)
    probes: dict[tuple[str, str], Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Front:
    """A firing front: the segment the arc and the range start from (a battery's is shared)."""

    left: Point
    right: Point
    facing: Point
    members: tuple[str, ...]


@dataclass
class Board(BoardBase):
    MM_PER_UNIT = MM_PER_IN

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

    @cached_property
    def rect_table(self) -> RectTable:
        """Every base's rectangle as arrays, in index order (`BaseIndex.ids`)."""
        return RectTable.of_poses(self.poses)

    # --- neighbours and contacts (isd-rest) ------------------------------------------------
    @cached_property
    def poses(self) -> Poses:
        """Every base's rectangle as arrays, in index order (`BaseIndex.ids`)."""
        return Poses.of(self.rects)

    @cached_property
    def sides(self) -> np.ndarray:
        """Each base's side as a small integer, in index order."""
        code: dict[str, int] = {}
        return np.array([code.setdefault(self.infos[i].side, len(code))
                         for i in self.order], dtype=np.int64)

    @cached_property
    def generals(self) -> np.ndarray:
        """Whether each base is a general, in index order."""
        return np.array([self.infos[i].is_general for i in self.order], dtype=bool)

    @cached_property
    def present(self) -> np.ndarray:
        """Whether each base counts as there: not a general, not stale (what a rule counts as
        an enemy there), in index order."""
        stale = np.array([self.infos[i].stale for i in self.order], dtype=bool)
        return ~(self.generals | stale)

    @cached_property
    def touches_side(self) -> np.ndarray:
        """(bases, sides): whether each base touches a base of each side (`contacts`)."""
        out = np.zeros((len(self.sides), int(self.sides.max(initial=0)) + 1), dtype=bool)
        out[self.contacts.a, self.sides[self.contacts.b]] = True
        return out

    def near(self, base_id: str, distance: float, among: np.ndarray) -> list[str]:
        """Ids of the bases ``among`` (index-order mask: a few generals or guns, tested
        directly) within ``distance`` mm of this base, index order."""
        at = np.nonzero(among)[0]
        hit = shapely.dwithin(self.shapes[self.pos[base_id]], self.shapes[at], distance)
        return [self.order[k] for k in at[hit].tolist()]

    @cached_property
    def guns(self) -> np.ndarray:
        """Whether each base is a gun, in index order."""
        return np.array([self.infos[i].is_gun for i in self.order], dtype=bool)

    def gaps_within(self, at: np.ndarray, distance: float | np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row of ``at``, index position, gap mm) of every base within ``distance`` (one value,
        or one per row) of the bases at index positions ``at``, itself included: one STRtree
        query and one vectorised distance, sorted by row then position."""
        rows, others = self.state.index.query_many(self.shapes[at], distance)
        return rows, others, shapely.distance(self.shapes[at[rows]], self.shapes[others])

    @cached_property
    def contacts(self) -> ContactPairs:
        """ISD A24: the pairs of bases within the contact tolerance, both ways round (generals
        touch nobody, ISD §10), with the edges they touch (ISD A33). A gap within
        ``close_call_mm`` of the tolerance is too close to call (`engine.boundary`, key
        "contact"): held at its last verdict in a live game (pairs up to `WATCH_MM` farther
        are decided too: a pair held touching and then clearly apart is not held again)."""
        found = find_contacts(self.state.index, self.poses, self.contact_tol, self.close_call,
                              WATCH_MM, self.generals, self.decide_contact)
        if self.settings.a33_contact_aspect == "contact_midpoint" and len(found.a):
            edges = midpoint_edges(self.poses.take(found.a), self.shapes[found.a],
                                   self.shapes[found.b], self.poses.take(found.b), self.contact_tol,
                                   self.settings.a1_zones)
            found = ContactPairs(found.a, found.b, found.close, found.lengths, edges)
        return found

    @cached_property
    def touching(self) -> dict[str, list[str]]:
        """Every base -> the bases it touches (`contacts`), sorted by id."""
        c = self.contacts
        return self.both_ways((self.order[a], self.order[b])
                              for a, b in zip(c.a.tolist(), c.b.tolist()) if a < b)

    def contact_row(self, a: str, b: str) -> int:
        """The row of `contacts` where ``b`` touches ``a`` (ValueError if it does not)."""
        k = self.contacts.row.get((self.pos[a], self.pos[b]))
        if k is None:
            raise ValueError(f"{b} does not touch {a}")
        return k

    def edge_touched(self, a: str, b: str) -> str:
        """Edge of ``a`` that ``b`` touches (ISD A33), for bases in contact."""
        return EDGE_NAMES[int(self.contacts.edge[self.contact_row(a, b)])]

    def shared_lengths(self, a: str, b: str) -> dict[str, float]:
        """Per edge of ``a``, the length lying along ``b`` (bases in contact)."""
        return dict(zip(EDGE_NAMES, self.contacts.lengths[self.contact_row(a, b)].tolist()))

    @cached_property
    def relations(self) -> Relations:
        """Contacts, supports, Groups and command of every base (`relations.Relations`)."""
        from campo.engine.rulesets.italia.relations import Relations

        return Relations(self)

    @cached_property
    def charge_book(self) -> ChargeBook:
        """The charges judged on this board, each once (`charges.ChargeBook`)."""
        from campo.engine.rulesets.italia.charges import ChargeBook

        return ChargeBook(self)

    @cached_property
    def conduct(self) -> Conduct:
        """Movement, manoeuvre, fall-back, rout and pursuit answers (`conduct.Conduct`)."""
        from campo.engine.rulesets.italia.conduct import Conduct

        return Conduct(self)

    @cached_property
    def melee_book(self) -> MeleeBook:
        """The melee facts worked out on this board (`melee.MeleeBook`)."""
        from campo.engine.rulesets.italia.melee import MeleeBook

        return MeleeBook(self)

    @cached_property
    def terrain_table(self) -> TerrainTable:
        """The terrain as charges, melees and routs ask about it (`charge_terrain`)."""
        return TerrainTable(list(self.state.scenario.terrain), terrain_shapes(self.state))

    # --- batteries and fronts -------------------------------------------------------------
    @cached_property
    def batteries(self) -> dict[str, tuple[str, ...]]:
        """Gun id -> the guns side by side with it (itself included), sorted (ISD §6, A4):
        `relations.Relations.batteries`."""
        return self.relations.batteries

    def front(self, base_id: str) -> Front:
        """The firing front of a base: its own front edge, or its battery's combined front."""
        found = self._fronts.get(base_id)
        if found is None:
            found = self._fronts[base_id] = self._front(base_id)
        return found

    @cached_property
    def _fronts(self) -> dict[str, Front]:
        return {}

    @cached_property
    def fire_memo(self) -> FireMemo:
        """What the fire verdicts remember on this board (`FireMemo`)."""
        return FireMemo()

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
    def body_at(self) -> np.ndarray:
        """Each base's body in the `sight_field` (index order), -1: none (generals, ISD A17)."""
        ids = self.sight_field.body_ids
        out = np.full(len(self.order), -1, dtype=np.int64)
        out[self.positions(ids)] = np.arange(len(ids))
        return out

    @cached_property
    def sight_field(self) -> SightField:
        """Obstacles to sight (ISD §6): units (ISD A17 for cavalry), crests, tree rows, woods
        and towns."""
        ids = [i for i, info in self.infos.items()
               if not info.is_general     # «i generali invece non ostacolano la visuale»
               and (info.arm != "cavalry" or self.settings.a17_cavalry_blocks_sight)]
        # shrunk by the graze: a line merely touching a base (tracking noise) is not blocked
        corners = self.rect_table.inset_corners(GRAZE_MM)[self.positions(ids)]
        walls = [(tid, line) for tid, line in self.crests]
        walls += [(tid, line) for tid, kind, line in self.linears if kind in SIGHT_BLOCKING_LINES]
        deep = [(tid, poly) for tid, kind, poly in self.areas if kind in SIGHT_DEEP_AREAS]
        return SightField((), ids, [w for _, w in walls],
                          [i for i, _ in walls], [p for _, p in deep], [i for i, _ in deep],
                          max_depth=self.mm(LOS_MAX_DEPTH_IN_WOOD_OR_TOWN_IN), corners=corners)
