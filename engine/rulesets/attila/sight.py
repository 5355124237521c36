"""Line of sight for ATTILA (ATT 6.A «Non è possibile tirare attraverso boschi, colline od altre
truppe»; reading AT7): a shot may be taken when at least one of its sampled straight lines, from
a point of the shooter's front to a point of the target's outline, crosses no other troops (their
bases shrunk by the contact tolerance, so a line grazing one is not blocked; Generals only with
generals_block_sight), no wood and no hill (except those the shot leaves uncounted: the shooter's
and target's own, ATT 6.A, AT8).

Many shots are answered together (`Shots`, arrays): the obstacles near each shot come from one
STRtree query of the hulls of its lines, and a shot with none is clear at once. A shot whose
target, seen from every point its lines start from, lies wholly behind bases nearer than it
(their directions cover the target's) is blocked at once (`_covered`). The others try their lines
in rounds, stopping at the first clear one: the shortest line, then the lines from the ends and
middle of the front to the corners of the target, then every line. Bases are tested in numpy by
the directions they cover (`_Shadows`; `geometry.segments_meet_rects` where that is unsure),
woods and hills by clipping.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.polygon import orient

from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.geometry import Frames, highest, lowest, segments_meet_rects
from campo.engine.rulesets.attila.tables import SIGHT_BLOCKING_AREAS

MIN_GRAZE_MM = 0.5   # bases are shrunk by at least this for sight (a line along an edge)
INSIDE_MM = 1e-9     # a line running less than this inside a wood or hill only grazes it


@dataclass(frozen=True)
class Shots:
    """The sight questions of many shots: each shot's lines run from every one of its
    ``origins`` (Q, k, 2) to every one of its ends (``ends``, E × 2, ``end_owner``: the shot of
    each; ``corner``: the end is a vertex of the target's outline). ``ignore``: per shot the two
    board rows that never block it (shooter and target); ``uncounted``: per shot and sight area
    (`sight_areas` order), the area may be crossed."""

    origins: np.ndarray
    ends: np.ndarray
    end_owner: np.ndarray
    corner: np.ndarray
    ignore: np.ndarray
    uncounted: np.ndarray


def sight_areas(board: Board) -> list[str]:
    """The ids of the woods and hills, in scenario order."""
    return [f.id for f in board.terrain if f.is_area and f.kind in SIGHT_BLOCKING_AREAS]


def _bodies(board: Board) -> tuple[np.ndarray, Frames, np.ndarray]:
    """(blocks, shrunk rectangles, their polygons) per board row: present bases (Generals only
    by setting), shrunk so that a line grazing one is not blocked."""
    def build() -> tuple[np.ndarray, Frames, np.ndarray]:
        generals_block = board.settings.generals_block_sight
        blocks = board.present & np.array([generals_block or not u.is_general
                                           for u in board.rows], dtype=bool)
        g = max(board.contact_tol, MIN_GRAZE_MM)
        f = board.frames
        shrunk = Frames(f.cx, f.cy, f.fx, f.fy, f.width - 2 * g, f.depth - 2 * g)
        return blocks, shrunk, f.polygons(g)
    return board.state.cached("attila.sight_bodies", build)


def _blocking_tree(board: Board) -> tuple[np.ndarray, shapely.STRtree]:
    """(board rows, STRtree of their shrunk outlines) of the bases that block sight."""
    def build() -> tuple[np.ndarray, shapely.STRtree]:
        blocks, _, shrunk = _bodies(board)
        rows = np.nonzero(blocks)[0]
        return rows, shapely.STRtree(shrunk[rows])
    return board.state.cached("attila.sight_tree", build)


@dataclass
class _Near:
    """Per shot, the bases (CSR: ``start``/``rows``) and the areas (``areas``, Q × A) near it."""

    start: np.ndarray
    rows: np.ndarray
    areas: np.ndarray

    def count(self, q: np.ndarray) -> np.ndarray:
        return self.start[q + 1] - self.start[q]


def clear(board: Board, shots: Shots) -> np.ndarray:
    """Per shot, True when at least one of its lines is clear."""
    n = len(shots.origins)
    if not n:
        return np.zeros(0, dtype=bool)
    near = _near(board, shots)
    shadows = _Shadows.of(board, shots, near)
    out = (near.count(np.arange(n)) == 0) & ~near.areas.any(axis=1)
    hidden = _covered(shots, near, shadows)       # certainly blocked: no line to try
    k = shots.origins.shape[1]
    coarse = sorted({0, k // 2, k - 1})
    for stage in ("shortest", "coarse", "all"):
        todo = np.nonzero(~out & ~hidden)[0]
        if not len(todo):
            break
        j, e, owner = _lines(shots, todo, stage, coarse)
        ok = _clear_lines(board, shots, near, shadows, j, e, owner)
        out[np.unique(owner[ok])] = True
    return out


def _near(board: Board, shots: Shots) -> _Near:
    """The bases and areas meeting the hull of each shot's lines (the hull of its front's ends
    and its target's corners)."""
    n, k = shots.origins.shape[:2]
    ends = np.unique(np.concatenate([[0, k - 1]]))
    corners = np.nonzero(shots.corner)[0]
    points = np.concatenate([shots.origins[:, ends].reshape(-1, 2), shots.ends[corners]])
    owner = np.concatenate([np.repeat(np.arange(n), len(ends)), shots.end_owner[corners]])
    order = np.argsort(owner, kind="stable")
    # (a line through the points: shapely builds it much faster than a multipoint)
    hulls = shapely.convex_hull(shapely.linestrings(points[order], indices=owner[order]))
    rows, tree = _blocking_tree(board)
    qi, bi = tree.query(hulls, predicate="intersects")
    bi = rows[bi]
    keep = (bi != shots.ignore[qi, 0]) & (bi != shots.ignore[qi, 1])
    order = np.lexsort((bi[keep], qi[keep]))
    qi, bi = qi[keep][order], bi[keep][order]
    start = np.concatenate([[0], np.cumsum(np.bincount(qi, minlength=n))])
    ids = sight_areas(board)
    areas = np.zeros((n, len(ids)), dtype=bool)
    for a, fid in enumerate(ids):
        areas[:, a] = shapely.intersects(hulls, board.areas[fid]) & ~shots.uncounted[:, a]
    return _Near(start, bi, areas)


def _lines(shots: Shots, todo: np.ndarray, stage: str,
           coarse: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(origin index, end index, shot) of the lines of shots ``todo`` tried at this stage."""
    asked = np.zeros(len(shots.origins), dtype=bool)
    asked[todo] = True
    mine = np.nonzero(asked[shots.end_owner])[0]
    owner = shots.end_owner[mine]
    k = shots.origins.shape[1]
    if stage == "shortest":
        rel = shots.origins[owner] - shots.ends[mine][:, None, :]
        d = rel[..., 0] ** 2 + rel[..., 1] ** 2                                       # (e, k)
        j = d.argmin(axis=1)
        first = np.lexsort((d[np.arange(len(mine)), j], owner))
        pick = first[np.concatenate([[True], owner[first][1:] != owner[first][:-1]])]
        return j[pick], mine[pick], owner[pick]
    origins = np.arange(k)
    if stage == "coarse":
        keep = shots.corner[mine]
        mine, owner, origins = mine[keep], owner[keep], np.array(coarse)
    return (np.tile(origins, len(mine)), np.repeat(mine, len(origins)),
            np.repeat(owner, len(origins)))


def _clear_lines(board: Board, shots: Shots, near: _Near, shadows: _Shadows, j: np.ndarray,
                 e: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Per line (origin ``j`` of shot ``owner`` to end ``e``), clear of every base and area near
    its shot: against each base, the line's direction from its origin and its length decide
    (`_Shadows`) unless it ends among the base's corners, where the exact test does."""
    starts, stops = shots.origins[owner, j], shots.ends[e]
    ok = np.ones(len(starts), dtype=bool)
    counts = near.count(owner)
    if counts.sum():
        line = np.repeat(np.arange(len(starts)), counts)
        pair = near.start[owner[line]] + \
            np.arange(len(line)) - np.repeat(np.cumsum(counts) - counts, counts)
        slot = pair * shots.origins.shape[1] + j[line]
        v = stops - starts
        ref = shadows.ref[owner]
        angle = np.arctan2(ref[:, 0] * v[:, 1] - ref[:, 1] * v[:, 0],
                           ref[:, 0] * v[:, 0] + ref[:, 1] * v[:, 1])[line]
        length = np.hypot(v[:, 0], v[:, 1])[line]
        within = (angle >= shadows.lo[slot]) & (angle <= shadows.hi[slot])
        hit = within & (length >= shadows.far[slot])
        unsure = (within & (length > shadows.near[slot]) & ~hit) | shadows.exact[slot]
        if unsure.any():
            at = np.nonzero(unsure)[0]
            _, bodies, _ = _bodies(board)
            hit[at] = segments_meet_rects(starts[line[at]], stops[line[at]],
                                          bodies.take(near.rows[pair[at]]))
        ok[line[hit]] = False
    for a, fid in enumerate(sight_areas(board)):
        ask = np.nonzero(ok & near.areas[owner, a])[0]
        if len(ask):
            ok[ask[_runs_inside(board, fid, starts[ask], stops[ask])]] = False
    return ok


def _runs_inside(board: Board, fid: str, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """Per line, it runs inside the area, not merely along its edge (a wood or hill blocks it):
    for a convex area, the length of the line inside every edge's half-plane (numpy); GEOS for
    the others."""
    ring = _convex_ring(board, fid)
    if ring is None:
        geoms = shapely.linestrings(np.stack([starts, stops], axis=1))
        return shapely.relate_pattern(geoms, board.areas[fid], "T********")
    d = stops - starts
    t0, t1 = np.zeros(len(starts)), np.ones(len(starts))
    for (ax, ay), (bx, by) in zip(ring[:-1], ring[1:]):
        nx, ny = ay - by, bx - ax                       # inward normal (counter-clockwise ring)
        at = (starts[:, 0] - ax) * nx + (starts[:, 1] - ay) * ny     # >= 0 inside
        rate = d[:, 0] * nx + d[:, 1] * ny
        flat = np.abs(rate) < 1e-12
        with np.errstate(divide="ignore", invalid="ignore"):
            cut = -at / rate
        t0 = np.where(~flat & (rate > 0), np.maximum(t0, cut), t0)
        t1 = np.where(~flat & (rate < 0), np.minimum(t1, cut), t1)
        t1 = np.where(flat & (at <= 0), -1.0, t1)        # along or outside this edge's line
    return (t1 - t0) * np.hypot(d[:, 0], d[:, 1]) > INSIDE_MM


def _convex_ring(board: Board, fid: str) -> np.ndarray | None:
    """A convex area's outline, counter-clockwise and closed (None when not convex or when it
    has holes)."""
    def build() -> np.ndarray | None:
        poly = board.areas[fid]
        if poly.interiors or not poly.equals(poly.convex_hull):
            return None
        return np.asarray(orient(poly, 1.0).exterior.coords, dtype=float)
    return board.state.cached(f"attila.convex_ring.{fid}", build)


def _covered(shots: Shots, near: _Near, shadows: _Shadows) -> np.ndarray:
    """Per shot, every one of its lines is certainly blocked: from each origin, the directions
    of its ends lie within the union of the directions covered by the bases wholly nearer than
    its nearest end (a line in such a base's directions meets it before its end). Per (shot,
    origin) the bases' intervals are sorted and swept, all at once: each group's angles are
    offset by a multiple of GROUP_SPAN so that one running maximum serves every group."""
    n, k = shots.origins.shape[:2]
    owner = shots.end_owner
    v = shots.ends[:, None, :] - shots.origins[owner]                        # (e, k, 2)
    ref = shadows.ref[owner][:, None, :]
    angle = np.arctan2(ref[..., 0] * v[..., 1] - ref[..., 1] * v[..., 0],
                       ref[..., 0] * v[..., 0] + ref[..., 1] * v[..., 1])
    dist = np.hypot(v[..., 0], v[..., 1])
    first = np.concatenate([[0], np.flatnonzero(np.diff(owner)) + 1])      # ends sorted by shot
    glo = np.minimum.reduceat(angle, first, axis=0).ravel()                 # (n * k,)
    ghi = np.maximum.reduceat(angle, first, axis=0).ravel()
    gnear = np.minimum.reduceat(dist, first, axis=0).ravel()
    pairs = near.count(np.arange(n))
    slot_group = (np.repeat(np.arange(n), pairs)[:, None] * k + np.arange(k)[None, :]).ravel()
    use = ~shadows.exact & (shadows.far <= gnear[slot_group])
    groups = np.arange(n * k)
    offset = GROUP_SPAN * groups
    # each group opens with its target's first direction, sorted before any base's (-4 < -pi)
    lo = np.concatenate([np.full(n * k, -4.0), shadows.lo[use]]) + np.concatenate(
        [offset, offset[slot_group[use]]])
    hi = np.concatenate([glo, shadows.hi[use]]) + np.concatenate(
        [offset, offset[slot_group[use]]])
    group = np.concatenate([groups, slot_group[use]])
    base = np.concatenate([np.zeros(n * k, dtype=bool), np.ones(int(use.sum()), dtype=bool)])
    order = np.argsort(lo, kind="stable")
    lo, hi, group, base = lo[order], hi[order], group[order], base[order]
    reach = np.maximum.accumulate(hi)
    before = np.concatenate([[-np.inf], reach[:-1]])
    gap = base & (lo > before) & (before < ghi[group] + offset[group])
    covered = np.ones(n * k, dtype=bool)
    covered[group[gap]] = False
    last = np.full(n * k, -np.inf)
    np.maximum.at(last, group, hi)
    covered &= last >= ghi + offset
    return covered.reshape(n, k).all(axis=1) & (pairs > 0)


GROUP_SPAN = 20.0   # radians between groups' angles in `_covered` (each spans less than 2 pi + 1)


@dataclass
class _Shadows:
    """Per (shot, near base, origin) slot: the directions the base covers seen from the origin,
    as angles from the shot's reference direction ``ref`` (``lo`` to ``hi``), its nearest point's
    distance and its farthest corner's. A line from that origin whose direction lies within and
    which is longer than ``far`` certainly meets the base; one outside, or shorter than
    ``near``, certainly does not. ``exact``: the base's corners span half a turn or more seen
    from the origin (it lies around it, or across the direction opposite the reference), where
    these angles do not bound its directions: the exact test decides."""

    ref: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    near: np.ndarray
    far: np.ndarray
    exact: np.ndarray

    @staticmethod
    def of(board: Board, shots: Shots, near: _Near) -> _Shadows:
        n, k = shots.origins.shape[:2]
        centre = np.zeros((n, 2))
        np.add.at(centre, shots.end_owner, shots.ends)
        centre /= np.maximum(np.bincount(shots.end_owner, minlength=n), 1)[:, None]
        ref = centre - shots.origins.mean(axis=1)
        ref /= np.maximum(np.hypot(ref[:, 0], ref[:, 1]), 1e-12)[:, None]
        shot = np.repeat(np.arange(n), near.count(np.arange(n)))
        _, bodies, _ = _bodies(board)
        corners = bodies.take(near.rows).corners                     # (p, 4, 2)
        v = corners[:, None, :, :] - shots.origins[shot][:, :, None, :]   # (p, k, 4, 2)
        r = ref[shot][:, None, None, :]
        angle = np.arctan2(r[..., 0] * v[..., 1] - r[..., 1] * v[..., 0],
                           r[..., 0] * v[..., 0] + r[..., 1] * v[..., 1])
        lo, hi = lowest(angle), highest(angle)
        far = highest(np.hypot(v[..., 0], v[..., 1]))          # a vertex is the farthest point
        b = bodies.take(near.rows)
        o = shots.origins[shot]                                  # (p, k, 2)
        dx, dy = o[..., 0] - b.cx[:, None], o[..., 1] - b.cy[:, None]
        across = np.abs(dx * b.fy[:, None] - dy * b.fx[:, None]) - b.width[:, None] / 2
        along = np.abs(dx * b.fx[:, None] + dy * b.fy[:, None]) - b.depth[:, None] / 2
        nearest = np.hypot(np.maximum(across, 0.0), np.maximum(along, 0.0))   # its nearest point
        return _Shadows(ref, lo.ravel(), hi.ravel(), nearest.ravel(), far.ravel(),
                        (hi - lo > np.pi - 1e-6).ravel())
