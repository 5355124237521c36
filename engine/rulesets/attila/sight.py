"""Line of sight for ATTILA (ATT 6.A «Non è possibile tirare attraverso boschi, colline od altre
truppe»; reading AT7): a shot may be taken when at least one of its sampled straight lines, from
a point of the shooter's front to a point of the target's outline, crosses no other troops (their
bases shrunk by the contact tolerance, so a line grazing one is not blocked; Generals only with
generals_block_sight), no wood and no hill (except those the shot leaves uncounted: the shooter's
and target's own, ATT 6.A, AT8).

Many shots are answered together (`Shots`, arrays), their lines in two rounds: each shot's
shortest line, then every line of the shots it left unseen (a middle round of the lines to the
target's corners cost more than it saved, for one base's shots and the whole table's alike).
Bases go through the shared sweep of directions (`geometry.sight_bodies.suspects`: each
origin's lines sorted by direction; a line certainly crossing a nearer base is settled there),
the few lines it leaves are tested exactly against the bases that may meet them
(`geometry.segments_meet_rects`); woods and hills by clipping. Only the bases that may meet a
shot's lines are swept (`_near_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.polygon import orient

from campo.engine.geometry.sight_bodies import Bodies, Keyed, Rules, suspects
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.geometry import Frames, segments_meet_rects
from campo.engine.rulesets.attila.tables import SIGHT_BLOCKING_AREAS

MIN_GRAZE_MM = 0.5   # bases are shrunk by at least this for sight (a line along an edge)
INSIDE_MM = 1e-9     # a line running less than this inside a wood or hill only grazes it
NEAR_TEST_PAIRS = 50_000
"""Up to this many (line, body) pairs the bodies a question needs are found line by line (box
against box); beyond, every body is taken."""


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


def _bodies(board: Board) -> tuple[np.ndarray, Frames]:
    """(blocks, shrunk rectangles) per board row: the present bases (Generals only by setting)
    that shrinking leaves something of, shrunk so that a line grazing one is not blocked."""
    def build() -> tuple[np.ndarray, Frames]:
        generals_block = board.settings.generals_block_sight
        g = max(board.contact_tol, MIN_GRAZE_MM)
        f = board.frames
        shrunk = Frames(f.cx, f.cy, f.fx, f.fy, f.width - 2 * g, f.depth - 2 * g)
        blocks = board.present & np.array([generals_block or not u.is_general
                                           for u in board.rows], dtype=bool)
        return blocks & (shrunk.width > 0) & (shrunk.depth > 0), shrunk
    return board.state.cached("attila.sight_bodies", build)


def _near_rows(board: Board, shots: Shots) -> np.ndarray:
    """The board rows of the bodies that may block some line of the shots: those whose box
    meets a shot's (its origins' and ends'; a line lies within its shot's box), or every body
    when the shots are many (the whole table's span the table)."""
    blocks, frames = _bodies(board)
    rows = np.nonzero(blocks)[0]
    if len(shots.origins) * len(rows) > NEAR_TEST_PAIRS:
        return rows
    lo, hi = shots.origins.min(axis=1), shots.origins.max(axis=1)
    np.minimum.at(lo, shots.end_owner, shots.ends)
    np.maximum.at(hi, shots.end_owner, shots.ends)
    corners = frames.corners[rows]
    b_lo, b_hi = corners.min(axis=1), corners.max(axis=1)
    meets = (lo[:, None, 0] <= b_hi[None, :, 0]) & (hi[:, None, 0] >= b_lo[None, :, 0]) & \
        (lo[:, None, 1] <= b_hi[None, :, 1]) & (hi[:, None, 1] >= b_lo[None, :, 1])
    return rows[meets.any(axis=0)]


def _sight_bodies(board: Board, rows: np.ndarray) -> tuple[Bodies, np.ndarray, np.ndarray]:
    """The bodies of board rows ``rows`` (`_bodies`) as the shared sight code's bodies; their
    rows; and a (board row, body) table marking each body's own row (a shot's shooter and
    target never block it)."""
    _, frames = _bodies(board)
    is_row = np.zeros((len(board.order), len(rows)), dtype=bool)
    is_row[rows, np.arange(len(rows))] = True
    return Bodies.of(shapely.polygons(frames.corners[rows])), rows, is_row


def clear(board: Board, shots: Shots) -> np.ndarray:
    """Per shot, True when at least one of its lines is clear."""
    n = len(shots.origins)
    out = np.zeros(n, dtype=bool)
    if not n:
        return out
    areas = _near_areas(board, shots)
    found = _sight_bodies(board, _near_rows(board, shots))
    for stage in ("shortest", "all"):
        todo = np.nonzero(~out)[0]
        if not len(todo):
            break
        j, e, owner = _lines(shots, todo, stage)
        ok = _clear_lines(board, found, shots, areas, j, e, owner)
        out[owner[ok]] = True
    return out


def _near_areas(board: Board, shots: Shots) -> np.ndarray:
    """Per shot and sight area (Q × A), the area meets the hull of the shot's lines (the hull of
    its front's ends and its target's corners) and the shot counts it."""
    n, k = shots.origins.shape[:2]
    ids = sight_areas(board)
    areas = np.zeros((n, len(ids)), dtype=bool)
    if not ids:
        return areas
    corners = np.nonzero(shots.corner)[0]
    points = np.concatenate([shots.origins[:, [0, k - 1]].reshape(-1, 2), shots.ends[corners]])
    owner = np.concatenate([np.repeat(np.arange(n), 2), shots.end_owner[corners]])
    order = np.argsort(owner, kind="stable")
    # (a line through the points: shapely builds it much faster than a multipoint)
    hulls = shapely.convex_hull(shapely.linestrings(points[order], indices=owner[order]))
    for a, fid in enumerate(ids):
        areas[:, a] = shapely.intersects(hulls, board.areas[fid]) & ~shots.uncounted[:, a]
    return areas


def _lines(shots: Shots, todo: np.ndarray,
           stage: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(origin index, end index, shot) of the lines of shots ``todo`` tried at this stage: each
    shot's shortest, or all of them."""
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
    return np.tile(np.arange(k), len(mine)), np.repeat(mine, k), np.repeat(owner, k)


def _clear_lines(board: Board, found: tuple[Bodies, np.ndarray, np.ndarray], shots: Shots,
                 areas: np.ndarray, j: np.ndarray, e: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Per line (origin ``j`` of shot ``owner`` to end ``e``), clear of every base but the
    shot's own two and of every area ``areas`` counts for its shot (``found``: the bodies,
    `_sight_bodies`)."""
    starts, stops = shots.origins[owner, j], shots.ends[e]
    bodies, rows, is_row = found
    rules = Rules(never=(Keyed(shots.ignore[owner, 0], is_row),
                         Keyed(shots.ignore[owner, 1], is_row)))
    sure, at, body = suspects(np.stack([starts, stops], axis=1), np.zeros(len(starts)), bodies,
                              rules, np.arange(len(starts)))
    ok = sure < 0
    if len(at):
        _, frames = _bodies(board)
        meets = segments_meet_rects(starts[at], stops[at], frames.take(rows[body]))
        ok[at[meets]] = False
    for a, fid in enumerate(sight_areas(board)):
        ask = np.nonzero(ok & areas[owner, a])[0]
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
