"""Every base's retreat and pursuit answers at once (ISD §1, §9, A26, A38–A40): the fast path
behind `conduct.retreat_of` and `conduct.pursuit_of` when the state uses its spatial index.

The per-base path builds `Rect`s and shapes base by base and asks an STRtree which bases meet
each shape. Here the end poses, swept corridors and 30° arcs of all bases are numpy columns
computed with the same operations in the same order (so the same floats). Which bases each
meets (the per-base path's STRtree ``dwithin`` query at 0) is compiled (`_quads_meeting`): the
boxes that meet, then, for the pairs an answer uses only (a pursuit names new enemies only), the
gap between the two convex quads when clear of 0; the rare close call builds the shapes and asks
GEOS's prepared distance test, the one that query runs; so is the pursuit's "more than a mere
touch of the arc" (an overlap area, `_overlaps_over`). Only a rout that meets enemies (rare) is
judged by the shared per-base code. Cases the batch does not cover (the non-default directions
of ISD A38 and A40) return None: the per-base path answers them.
tests/test_engine_conduct_fast.py checks both paths give the same answers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import shapely

from campo.engine.geometry.boxes import CERTAIN_MM
from campo.engine.geometry.contact import RectTable
from campo.engine.geometry.rect import Rect, unit_vector
from campo.engine.ruleset import AREA_DOUBT_MM2
from campo.engine.rulesets.italia.board import GRAZE_MM, Board
from campo.engine.rulesets.italia.charge_fast import base_boxes
from campo.engine.rulesets.italia.charges import full_move_in
from campo.engine.rulesets.italia.conduct_paths import (FALL_BACK_IN, PURSUIT_IN, _Band,
                                                  inner_corners_of, rout_captured)
from campo.engine.rulesets.italia.pieces import CHARGE_ARC_HALF_DEG
from campo.engine.rulesets.italia.relations_batch import columns


class Retreat(NamedTuple):
    """One base's fall-back and rout answer (ISD A26, A38, A39), coordinates already rounded."""

    direction_deg: float
    start: tuple[float, float]
    fall_back: tuple[float, float]
    end: tuple[float, float]
    distance: float
    friends: list[str]
    enemies: list[str]
    captured: bool
    leaves_table: bool

    def to_dict(self) -> dict[str, Any]:
        """`conduct.retreat_of`'s dict (new lists each time: callers may keep or change it)."""
        return {
            "direction_deg": self.direction_deg,
            "fall_back": [list(self.start), list(self.fall_back)],
            "rout": [list(self.start), list(self.end)],
            "rout_distance": self.distance,
            "rout_passes_through": list(self.friends),
            "rout_meets": list(self.enemies),
            "rout_captured": self.captured,
            "rout_leaves_table": self.leaves_table,
        }


class Pursuit(NamedTuple):
    """One unit's pursuit answer (ISD §9, A40), coordinates already rounded."""

    distance: float
    start: tuple[float, float]
    end: tuple[float, float]
    may_contact: list[str]

    def to_dict(self) -> dict[str, Any]:
        """`conduct.pursuit_of`'s dict (new lists each time)."""
        return {"distance": self.distance, "path": [list(self.start), list(self.end)],
                "may_contact": list(self.may_contact)}


def retreats(board: Board) -> dict[str, Retreat] | None:
    """Unit and gun id -> its `Retreat`, for all at once (cached on the board); None when the
    per-base path must answer (no spatial index, or routs not straight back)."""
    if not board.state.use_index or board.settings.a38_fall_back_direction != "straight_back":
        return None
    cache = board.__dict__
    if "_conduct_retreats" not in cache:
        cache["_conduct_retreats"] = _retreats(board)
    return cache["_conduct_retreats"]


def pursuits(board: Board) -> dict[str, Pursuit] | None:
    """Unit id -> its `Pursuit`, for all at once (cached on the board); None when the per-base
    path must answer (no spatial index, pursuits not straight ahead, or a front of no width)."""
    if not board.state.use_index or board.settings.a40_pursuit_direction != "straight_ahead":
        return None
    cache = board.__dict__
    if "_conduct_pursuits" not in cache:
        cache["_conduct_pursuits"] = _pursuits(board)
    return cache["_conduct_pursuits"]


class _Columns(NamedTuple):
    """The rectangles of some bases as float columns (`Rect`'s own fields and vectors)."""

    cx: np.ndarray
    cy: np.ndarray
    width: np.ndarray
    depth: np.ndarray
    f0: np.ndarray
    f1: np.ndarray
    r0: np.ndarray
    r1: np.ndarray

    @staticmethod
    def of(rects: list[Rect]) -> _Columns:
        rows = [(r.cx, r.cy, r.width, r.depth, *r.front, *r.right) for r in rects]
        return _Columns(*np.array(rows, dtype=float).reshape(-1, 8).T)

    @staticmethod
    def at(table: RectTable, at: np.ndarray) -> _Columns:
        """`of` the rectangles at positions ``at`` of a `RectTable` (the board's, built once),
        the same floats: its frames hold the same fields, sizes halved (doubled back exactly)."""
        cx, cy, r0, r1, f0, f1, hw, hd = table.frames[at].T
        return _Columns(cx, cy, hw * 2.0, hd * 2.0, f0, f1, r0, r1)

    def moved(self, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Centres after moving ``d`` mm along the front (`Rect.moved`'s arithmetic)."""
        return self.cx + self.f0 * d, self.cy + self.f1 * d

    def swept(self, ex: np.ndarray, ey: np.ndarray, d: np.ndarray, shrink: float) -> np.ndarray:
        """(n, 4, 2) corners of the swept bands (`conduct_paths._straight`) shrunk by
        ``shrink`` (`conduct_paths._inner_corners`)."""
        return inner_corners_of((self.cx + ex) / 2, (self.cy + ey) / 2, self.f0, self.f1,
                                self.r0, self.r1, self.width, self.depth + np.abs(d), shrink)


def _retreats(board: Board) -> dict[str, Retreat]:
    ids = [i for i, info in board.infos.items() if info.is_unit or info.is_gun]
    if not ids:
        return {}
    rects = [board.rect(i) for i in ids]
    col = _Columns.at(board.rect_table, board.positions(ids))
    rout_in = [full_move_in(board, i) for i in ids]
    d = board.mm(np.array(rout_in, dtype=float)) * -1.0
    ex, ey = col.moved(d)
    fbx, fby = col.moved(board.mm(FALL_BACK_IN) * -1.0)
    shrink = board.contact_tol + GRAZE_MM
    facts = _IndexFacts.of(board)
    row_at, row_side = facts.rows(ids)
    # the base itself and generals are no answer: only the other pairs are measured
    si, bi = _quads_meeting(board, col.swept(ex, ey, d, shrink),
                            lambda si, bi: (bi != row_at[si]) & ~facts.general[bi])
    friend = (facts.side[bi] == row_side[si]).tolist()
    met: list[tuple[list[str], list[str]]] = [([], []) for _ in ids]
    names = facts.names
    for k, b, f in zip(si.tolist(), bi.tolist(), friend):
        met[k][0 if f else 1].append(names[b])
    on_table = _on_table(board, rects, ex, ey, col)
    turned = [(r.heading_deg + 180.0) % 360.0 for r in rects]
    rounded = _round_tenths(np.stack([col.cx, col.cy, fbx, fby, ex, ey, np.array(turned)]))
    out = {}
    for k, (i, (friends, enemies), (cx, cy, fx, fy, x, y, turn)) in enumerate(
            zip(ids, met, zip(*rounded))):
        captured = bool(enemies) and _captured(board, k, i, enemies, rects[k], ex, ey, d, on_table[k])
        out[i] = Retreat(turn, (cx, cy), (fx, fy), (x, y), rout_in[k], sorted(friends),
                         sorted(enemies), captured, not on_table[k])
    return out


def _captured(board: Board, k: int, base_id: str, enemies: list[str], r: Rect, ex: np.ndarray,
              ey: np.ndarray, d: np.ndarray, on_table: bool) -> bool:
    """`conduct_paths.rout_captured` of row ``k``, its end pose and band built as the per-base
    path builds them (the same floats)."""
    x, y, dk = float(ex[k]), float(ey[k]), float(d[k])
    end = Rect(x, y, (r.heading_deg + 0.0) % 360.0, r.width, r.depth)
    band = _Band((r.cx + x) / 2, (r.cy + y) / 2, r.heading_deg, r.width, r.depth + abs(dk),
                 r.front, r.right)
    return rout_captured(board, base_id, enemies, band, end, on_table)


def _on_table(board: Board, rects: list[Rect], ex: np.ndarray, ey: np.ndarray,
              col: _Columns) -> list[bool]:
    """Whether each rout's end pose lies on the table (1 mm slack), its corners computed as
    `Rect` computes them."""
    heading = np.array([r.heading_deg for r in rects], dtype=float)
    if ((heading >= 0.0) & (heading < 360.0) & ~np.signbit(heading)).all():
        f0, f1 = col.f0, col.f1   # `moved` keeps a heading in [0, 360): the same vectors
    else:
        f0, f1 = np.array([_moved_front(r) for r in rects], dtype=float).reshape(-1, 2).T
    r0, r1 = f1, -f0   # Rect: right = (front[1], -front[0])
    hw, hd = col.width / 2, col.depth / 2
    xs = [ex - hw * r0 + hd * f0, ex + hw * r0 + hd * f0, ex + hw * r0 - hd * f0,
          ex - hw * r0 - hd * f0]
    ys = [ey - hw * r1 + hd * f1, ey + hw * r1 + hd * f1, ey + hw * r1 - hd * f1,
          ey - hw * r1 - hd * f1]
    table = board.state.scenario.table
    ok = np.ones(len(rects), dtype=bool)
    for x, y in zip(xs, ys):
        ok &= (-1.0 <= x) & (x <= table.width_mm + 1.0) & (-1.0 <= y) & (y <= table.depth_mm + 1.0)
    return ok.tolist()


def _moved_front(r: Rect) -> tuple[float, float]:
    """The front unit vector of ``r.moved(dx, dy)``: its heading is taken modulo 360, which
    keeps a validated heading (already in [0, 360)) as it is."""
    h = (r.heading_deg + 0.0) % 360.0
    same = h == r.heading_deg and math.copysign(1.0, h) == math.copysign(1.0, r.heading_deg)
    return r.front if same else unit_vector(h)


def _pursuits(board: Board) -> dict[str, Pursuit] | None:
    ids = [i for i, info in board.infos.items() if info.is_unit]
    if not ids:
        return {}
    at = board.positions(ids)
    col = _Columns.at(board.rect_table, at)
    if not (col.width >= 1e-6).all():
        return None   # a point front: `arc_vertices` gives a triangle
    dist = [PURSUIT_IN["cavalry" if board.infos[i].arm == "cavalry" else "infantry"] for i in ids]
    d = board.mm(np.array(dist, dtype=float))
    ex, ey = col.moved(d)
    shrink = board.contact_tol + GRAZE_MM
    facts = _IndexFacts.of(board)
    _, row_side = facts.rows(ids)
    touching = np.zeros((len(ids), len(facts.names)), dtype=bool)
    pairs = [(k, facts.position[o]) for k, i in enumerate(ids) for o in board.touching[i]]
    if pairs:
        touching[tuple(np.array(pairs).T)] = True

    def new_foes(si: np.ndarray, bi: np.ndarray) -> np.ndarray:
        """Enemies, not generals, not touching yet: the only bases a pursuit answer names."""
        return (facts.side[bi] != row_side[si]) & ~facts.general[bi] & ~touching[si, bi]

    ci, cb = _quads_meeting(board, col.swept(ex, ey, d, shrink), new_foes)
    in_corridor = np.zeros_like(touching)
    in_corridor[ci, cb] = True
    rings = _arc_rings(col, board.rect_table.corners[at, :2], d)
    ai, ab = _quads_meeting(board, rings,
                            lambda si, bi: new_foes(si, bi) & ~in_corridor[si, bi])
    if len(ai):   # more than a mere touch of the arc (ISD A40)
        deep = _overlaps_over(board, rings[ai], ab, 1.0)
        ai, ab = ai[deep], ab[deep]
    found: list[list[str]] = [[] for _ in ids]
    for k, b in zip(np.concatenate([ci, ai]).tolist(), np.concatenate([cb, ab]).tolist()):
        found[k].append(facts.names[b])
    rounded = _round_tenths(np.stack([col.cx, col.cy, ex, ey]))
    return {i: Pursuit(far, (cx, cy), (x, y), sorted(names))
            for i, far, names, (cx, cy, x, y) in zip(ids, dist, found, zip(*rounded))}


def _overlaps_over(board: Board, quads: np.ndarray, at: np.ndarray, limit: float) -> np.ndarray:
    """Whether the area convex quad ``quads[k]`` (n, 4, 2) shares with the base at index
    position ``at[k]`` exceeds ``limit`` mm²: ``shapely.area(shapely.intersection(...))`` of
    their polygons, compiled (`gap_kernel.overlap_areas`), GEOS for an area too close to the
    limit (or a quad too thin) for the two to be sure to agree (`engine.ruleset`'s margin)."""
    from campo.engine.geometry.gap_kernel import overlap_areas

    n = len(quads)
    both = np.ascontiguousarray(np.concatenate([quads, board.rect_table.corners[at]]))
    areas = overlap_areas(both, np.arange(n), np.arange(n, 2 * n))
    unsure = np.isnan(areas) | (np.abs(areas - limit) < AREA_DOUBT_MM2)
    if unsure.any():
        areas[unsure] = shapely.area(shapely.intersection(shapely.polygons(quads[unsure]),
                                                          board.state.index.shapes[at[unsure]]))
    return areas > limit


def _arc_rings(col: _Columns, fronts: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """(n, 4, 2) outlines of the 30° arcs (ISD A27) ahead of each front out to ``reach`` mm:
    `arc_vertices`'s arithmetic for all at once (fronts of some width: 4 points each).
    ``fronts``: (n, 2, 2) front-left and front-right corners."""
    half = CHARGE_ARC_HALF_DEG
    length = reach / math.cos(math.radians(half))
    a, b = math.radians(half), math.radians(-half)
    cl, sl, cr, sr = math.cos(a), math.sin(a), math.cos(b), math.sin(b)
    f0, f1 = col.f0, col.f1
    dl0, dl1 = f0 * cl - f1 * sl, f0 * sl + f1 * cl   # `rotate(front, half)`
    dr0, dr1 = f0 * cr - f1 * sr, f0 * sr + f1 * cr   # `rotate(front, -half)`
    lx, ly, rx, ry = fronts.reshape(-1, 4).T
    ring = [(lx, ly), (rx, ry), (rx + dr0 * length, ry + dr1 * length),
            (lx + dl0 * length, ly + dl1 * length)]
    return np.stack([np.stack(p, axis=1) for p in ring], axis=1)


def _quads_meeting(board: Board, quads: np.ndarray,
                   wanted: Callable[[np.ndarray, np.ndarray], np.ndarray]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(quad row, index position) of the ``wanted`` pairs of a convex quad (n, 4, 2) and a base
    that meet, sorted: those of the index's STRtree query at distance 0 of the quads' polygons
    (`BaseIndex.query_many`) for which ``wanted`` (a mask of candidate pairs) holds.

    Compiled: the candidates by the same boxes as the STRtree's envelopes, then the gap between
    the two convex quads (`convex_gap`) decides pairs clear of 0 by `CERTAIN_MM` (apart, or
    overlapping that deep); only the closer calls build their quads' polygons and ask GEOS.
    The bases' corners are the board's `RectTable`'s: the very points the index's polygons
    were built from (`GameState._polygons`)."""
    from campo.engine.geometry.box_kernel import pair_gaps, quad_box_pairs

    boxes, _ = base_boxes(board)
    si, bi = quad_box_pairs(quads, boxes, *_boxes_by_x0(board, boxes))
    keep = wanted(si, bi)
    si, bi = si[keep], bi[keep]
    gaps = pair_gaps(quads, board.rect_table.corners, si, bi)
    met = gaps < -CERTAIN_MM
    unsure = np.nonzero(~(met | (gaps > CERTAIN_MM)))[0]   # close calls, and NaN
    if len(unsure):
        rows = np.unique(si[unsure])
        shapes = np.empty(len(quads), dtype=object)
        shapes[rows] = shapely.polygons(quads[rows])
        shapely.prepare(shapes[rows])   # as the query prepares each shape it tests
        met[unsure] = shapely.dwithin(shapes[si[unsure]], board.state.index.shapes[bi[unsure]],
                                      0.0)
    si, bi = si[met], bi[met]
    order = np.lexsort((bi, si))
    return si[order], bi[order]


def _boxes_by_x0(board: Board, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The base boxes' rows sorted by x0, those x0s, and the widest box (for `quad_box_pairs`;
    cached)."""
    cache = board.__dict__
    if "_conduct_boxes_by_x0" not in cache:
        order = np.argsort(boxes[:, 0], kind="stable")
        cache["_conduct_boxes_by_x0"] = (order.astype(np.int64), np.ascontiguousarray(
            boxes[order, 0]), float((boxes[:, 2] - boxes[:, 0]).max()))
    return cache["_conduct_boxes_by_x0"]


class _IndexFacts(NamedTuple):
    """Per index position: the base id, its side (a number), whether it is a general."""

    names: list[str]
    position: dict[str, int]
    side: np.ndarray
    general: np.ndarray

    @staticmethod
    def of(board: Board) -> _IndexFacts:
        """Read from the board's `relations_batch.columns` (built once per board)."""
        col = columns(board)
        return _IndexFacts(col.names, col.position, col.side, col.general)

    def rows(self, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(index position, side) of each of ``ids``."""
        at = np.array([self.position[i] for i in ids], dtype=np.int64)
        return at, self.side[at]


def _round_tenths(values: np.ndarray) -> list[list[float]]:
    """``round(v, 1)`` of every value (rows kept), as Python's correctly rounded decimal rounding
    gives it: ``rint(10 v) / 10`` is that float unless ``10 v`` lies within rounding error of a
    half (or is huge); those few are left to Python's ``round``."""
    v = np.asarray(values, dtype=float)
    y = v * 10.0
    rounded = np.rint(y) / 10.0
    frac = y - np.floor(y)
    sure = (np.abs(frac - 0.5) > 1e-9 * np.maximum(1.0, np.abs(y))) & (np.abs(v) < 1e12)
    out = rounded.tolist()
    for row, col in zip(*np.nonzero(~sure)):
        out[row][col] = round(float(v[row, col]), 1)
    return out
