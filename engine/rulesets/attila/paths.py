"""What a charge's path runs into (ATT 5.B, 5.C, 5.F; reading AT16), for many paths at once.

The path is the area the charger covers (`swept_outlines`): where it stands, the sector its far
corner sweeps about the pivot while it wheels, and the rectangle of its straight move. Shrunk by
the contact tolerance, it is what a base or a feature must reach into to be in the way: a base
merely touching the path is not. Enemy bases in the path block it, friends are passed through
and disordered; woods, marshes and difficult terrain stop the unit on entering (mounted units may
not enter woods and marshes); water is crossed only at bridges and fords.

The paths asked about are one array of shapely polygons, shrunk by one vectorised buffer: one
STRtree query finds the bases in them, one vectorised call per terrain feature the features.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely

from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.geometry import Frames, rects_overlap, sectors, slide
from campo.engine.rulesets.attila.tables import (
    CROSSINGS, MARSHES, ROUGH, WATER_AREAS, WATER_LINES, WOODS,
)

if TYPE_CHECKING:
    from campo.engine.rulesets.attila.charges import Attempts

ARC_STEP_DEG = 5.0   # the far corner's arc is drawn by chords this wide or less (inside the
# true arc by at most 0.05 mm for a 40 x 30 mm base)


@dataclass
class PathFacts:
    """What one attempt's path runs into, and what that depends on (``outline``: the path, not
    shrunk; ``seen``: the board rows of every base meeting it)."""

    outline: Any = None
    seen: tuple[int, ...] = ()
    reasons: list[str] = field(default_factory=list)   # why it is not clear
    notes: list[str] = field(default_factory=list)
    passes: list[str] = field(default_factory=list)    # friends passed through
    terrain: list[str] = field(default_factory=list)   # features it starts or ends in


def stopping_kinds(board: Board, mounted: bool) -> frozenset[str]:
    """Features whose entry stops the unit (ATT 5.B «devono arrestarsi immediatamente», 5.F)."""
    kinds = WOODS | MARSHES
    if board.settings.at17_broken_is_difficult or not mounted:
        kinds = kinds | ROUGH
    return kinds


def forbidden_kinds(board: Board, mounted: bool) -> frozenset[str]:
    """Features the unit may not enter: mounted units and woods/marshes (ATT 5.B), and difficult
    terrain unless at16_mounted_enter_difficult."""
    if not mounted:
        return WATER_AREAS
    kinds = WATER_AREAS | WOODS | MARSHES
    if not board.settings.at16_mounted_enter_difficult:
        kinds = kinds | ROUGH
    return kinds


def swept_outlines(board: Board, att: Attempts, at: np.ndarray,
                   charger_rows: np.ndarray) -> np.ndarray:
    """The area each path of attempts ``at`` covers, as a shapely polygon: the rear corners
    where the charger stands, the arc its far corner sweeps about the pivot (chords every
    ARC_STEP_DEG or less), the straight move's front corners, and the pivot. A wheel about a
    front corner covers exactly the base before and after it and the sector of its far corner
    (no point of the base goes farther from the pivot); the straight move then covers the
    rectangle from the wheeled base to the final one. A straight charge is the rectangle from
    where it stands to where it ends."""
    turn, run = att.turn[at], att.d_front[at]
    c = board.frames.corners[charger_rows]               # FL, FR, RR, RL
    left = (turn > 0)[:, None]                           # pivot FL, far corner RR; else FR, RL
    pivot = np.where(left, c[:, 0], c[:, 1])
    far = np.where(left, c[:, 2], c[:, 3])
    near = np.where(left, c[:, 3], c[:, 2])              # the other rear corner
    w = att.wheeled.take(at)
    h = w.front * run[:, None]
    fw = w.front_edges
    far_front = np.where(left, fw[:, 1], fw[:, 0]) + h   # the front corner away from the pivot
    spoke = far - pivot
    radius = np.hypot(spoke[:, 0], spoke[:, 1])
    a0 = np.arctan2(spoke[:, 1], spoke[:, 0])
    steps = np.where(np.abs(turn) > 1e-9, np.ceil(np.abs(turn) / ARC_STEP_DEG), 0).astype(int)
    # per path: the near rear corner, the arc (from the far corner), the far front corner, the
    # pivot's front corner, the pivot
    counts = steps + 5
    owner = np.repeat(np.arange(len(at)), counts)
    k = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    n = counts[owner]
    xy = np.empty((len(owner), 2))
    first, arc = k == 0, (k >= 1) & (k <= steps[owner] + 1)
    xy[first] = near[owner[first]]
    o = owner[arc]
    angle = a0[o] + np.radians(turn[o]) * (k[arc] - 1) / np.maximum(steps[o], 1)
    xy[arc] = pivot[o] + radius[o, None] * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    for offset, points in ((3, far_front), (2, pivot + h), (1, pivot)):
        last = k == n - offset
        xy[last] = points[owner[last]]
    return shapely.polygons(shapely.linearrings(xy, indices=owner))


def run_blockers(board: Board, att: Attempts, which: np.ndarray, enemies_from: np.ndarray,
                 enemies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(attempt, board row) of each enemy (``enemies[enemies_from[k]:enemies_from[k + 1]]``: the
    board rows of the enemies near pair k, not its target) certainly in the path of attempts
    ``which``: overlapping the straight move's rectangle shrunk by the contact tolerance, which
    lies inside the path shrunk by it. A quick test in numpy, so that the search passes over
    blocked attempts without their full check (`path_facts`, done only if one is reported)."""
    tol = board.contact_tol
    which = np.asarray(which, dtype=int)
    first = enemies_from[att.pair[which]]
    counts = enemies_from[att.pair[which] + 1] - first
    if not counts.sum():
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    at = np.repeat(which, counts)
    start = np.cumsum(counts) - counts
    other = enemies[np.repeat(first - start, counts) + np.arange(len(at))]
    w, run = att.wheeled.take(at), att.d_front[at]
    inner = Frames(w.cx + w.fx * run / 2, w.cy + w.fy * run / 2, w.fx, w.fy, w.width - 2 * tol,
                   w.depth + run - 2 * tol)
    hit = rects_overlap(inner, board.frames.take(other)) & (inner.width > 0) & (inner.depth > 0)
    return at[hit], other[hit]


def path_facts(board: Board, keys: list[tuple[str, str]], att: Attempts,
               which: list[int]) -> dict[int, PathFacts]:
    """The facts of the paths of attempts ``which`` (indices into ``att``; ``keys``: the
    (charger, target) of each pair)."""
    at = np.array(which, dtype=int)
    pair = att.pair[at].tolist()
    chargers = [keys[p][0] for p in pair]
    charger_rows = np.array([board.pos[c] for c in chargers], dtype=int)
    target_rows = np.array([board.pos[keys[p][1]] for p in pair], dtype=int)
    outlines = swept_outlines(board, att, at, charger_rows)
    paths = _shrunk(board, att, at, charger_rows, outlines)
    si, bi = board.state.index.meeting_many(outlines)
    rows, cut = bi.tolist(), np.searchsorted(si, np.arange(len(at) + 1)).tolist()
    out = [PathFacts(o, tuple(rows[a:b])) for o, a, b in zip(outlines.tolist(), cut, cut[1:])]
    keep = (bi != charger_rows[si]) & (bi != target_rows[si]) & board.present[bi]
    si, bi = si[keep], bi[keep]
    inside = shapely.intersects(paths[si], board.shapes[bi])
    _bases(board, si[inside], bi[inside], charger_rows, out)
    if any(f.kind in WATER_LINES or f.is_area for f in board.terrain):
        _terrain(board, att, at, charger_rows, chargers, paths, out)
    return dict(zip(which, out))


def _shrunk(board: Board, att: Attempts, at: np.ndarray, charger_rows: np.ndarray,
            outlines: np.ndarray) -> np.ndarray:
    """The paths of attempts ``at`` shrunk by the contact tolerance: a straight one is a
    rectangle (shrunk exactly), a wheeled one is buffered by GEOS."""
    tol = board.contact_tol
    out = np.empty(len(at), dtype=object)
    wheel = np.abs(att.turn[at]) > 1e-9
    if (~wheel).any():
        start = board.frames.take(charger_rows[~wheel])
        run = att.d_front[at[~wheel]]
        out[~wheel] = Frames(start.cx + start.fx * run / 2, start.cy + start.fy * run / 2,
                             start.fx, start.fy, start.width, start.depth + run).polygons(tol)
    if wheel.any():
        out[wheel] = shapely.buffer(outlines[wheel], -tol)
    return out


def _bases(board: Board, si: np.ndarray, bi: np.ndarray, charger_rows: np.ndarray,
           out: list[PathFacts]) -> None:
    """Enemies in the way (ATT 5.C «Non è mai possibile interpenetrare unità nemiche») and
    friends passed through («disordinandole»): ``si``/``bi`` the (path, base) pairs in it."""
    if not len(si):
        return
    ids = np.array(board.order, dtype=object)[bi]
    order = np.lexsort((ids.astype(str), si))
    enemy = board.sides[bi] != board.sides[charger_rows[si]]
    for k, other, foe in zip(si[order].tolist(), ids[order].tolist(), enemy[order].tolist()):
        if foe:
            out[k].reasons.append(f"enemy {other} is in the way: enemies cannot be passed "
                                  "through (ATT 5.C)")
        elif board.units[other].is_general:
            # ATT 5.C «Generali interpenetrano liberamente unità amiche»: passing a General is
            # free both ways (a General is never Disordered: his fate is ATT 8.C)
            out[k].notes.append(f"passes its General {other} freely (ATT 5.C)")
        else:
            out[k].passes.append(other)
    for f in out:
        if f.passes:
            f.notes.append(f"passes through {', '.join(f.passes)}, disordering "
                           f"{'it' if len(f.passes) == 1 else 'them'} (ATT 5.C)")


def _terrain(board: Board, att: Attempts, at: np.ndarray, charger_rows: np.ndarray,
             chargers: list[str], paths: np.ndarray, out: list[PathFacts]) -> None:
    """Water crossed without a bridge or ford, and woods, marshes and difficult terrain entered
    (ATT 5.B, 5.F, AT16), in the scenario's order of features."""
    mounted = np.array([board.units[c].mounted for c in chargers], dtype=bool)
    kinds = {m: (forbidden_kinds(board, m), stopping_kinds(board, m)) for m in (False, True)}

    def reaches(fid: str) -> np.ndarray:
        return shapely.intersects(paths, board.shape_of(fid))

    crossings = [(f, reaches(f.id)) for f in board.terrain if f.kind in CROSSINGS] \
        if any(f.kind in WATER_LINES for f in board.terrain) else []
    start_fronts = shapely.linestrings(board.frames.front_edges[charger_rows])
    wheeled, turn, d_front = att.wheeled.take(at), att.turn[at], att.d_front[at]
    for f in board.terrain:
        if f.kind in WATER_LINES:
            for k in np.nonzero(reaches(f.id))[0].tolist():
                if not any(r[k] for _, r in crossings):
                    out[k].reasons.append(f"cannot cross {f.kind} {f.id!r} except at bridges "
                                          "or fords (ATT 5.B)")
                elif any(c.kind == "ford" and r[k] for c, r in crossings):
                    out[k].reasons.append(f"reaching the ford on {f.id!r} stops the unit "
                                          "(ATT 5.B)")
        if not f.is_area:
            continue
        forbidden = np.where(mounted, f.kind in kinds[True][0], f.kind in kinds[False][0])
        stopping = np.where(mounted, f.kind in kinds[True][1], f.kind in kinds[False][1])
        if not (forbidden | stopping).any():
            continue                   # no effect on a charge (hills, towns, open features)
        poly = board.areas[f.id]
        in_path = reaches(f.id)
        front_on = shapely.intersects(start_fronts, poly)
        ask = (forbidden | stopping) & (in_path | front_on)
        entering = ask & stopping & ~front_on
        entry = _terrain_entries(board, f.id, wheeled, turn, entering)
        ends_in = np.zeros(len(at), dtype=bool)      # asked only where the answer is read
        if entering.any():
            ends_in[entering] = shapely.intersects(
                att.final.take(at[entering]).polygons(board.contact_tol), poly)
        for k in np.nonzero(ask)[0].tolist():
            facts = out[k]
            if forbidden[k] and in_path[k]:
                facts.reasons.append(f"{'mounted units' if mounted[k] else 'no unit'} may not "
                                     f"enter {f.kind} {f.id!r} (ATT 5.B)")
            elif not stopping[k]:
                continue
            elif front_on[k]:
                facts.terrain.append(f.id)
                facts.notes.append(f"front line on {f.kind} {f.id!r}: the move is reduced by "
                                   "1D6 (ATT 5.B, 5.F)")
            elif entry[k] == -1.0:
                facts.reasons.append(f"the wheel enters {f.kind} {f.id!r} and stops there "
                                     "(ATT 5.B)")
            elif entry[k] < d_front[k] - board.contact_tol:
                facts.reasons.append(f"stops on entering {f.kind} {f.id!r} before reaching the "
                                     "target (ATT 5.B, 5.F, AT16)")
            elif ends_in[k]:
                facts.terrain.append(f.id)


def _terrain_entries(board: Board, fid: str, wheeled: Frames, turn: np.ndarray,
             ask: np.ndarray) -> np.ndarray:
    """Per attempt asked: -1 when the front enters the area during the wheel (the area its
    front edge sweeps about the pivot meets it), else how far the wheeled front goes straight on
    before touching it (inf: never)."""
    out = np.full(len(turn), np.inf)
    rows = np.nonzero(ask)[0]
    if not len(rows):
        return out
    poly = board.areas[fid]
    w = wheeled.take(rows)
    t = turn[rows]
    wheel = np.abs(t) > 1e-9
    if wheel.any():
        # the front edge swept about the pivot, from where it started to where it ends
        fe = w.front_edges[wheel]
        left = (t[wheel] > 0)[:, None]
        pivot = np.where(left, fe[:, 0], fe[:, 1])
        spoke = np.where(left, fe[:, 1], fe[:, 0]) - pivot
        end_deg = np.degrees(np.arctan2(spoke[:, 1], spoke[:, 0]))
        swept = sectors(pivot, w.width[wheel], end_deg - t[wheel], t[wheel])
        out[rows[np.nonzero(wheel)[0][shapely.intersects(swept, poly)]]] = -1.0
    go = np.nonzero(out[rows] != -1.0)[0]
    if len(go):
        ring = np.asarray(poly.exterior.coords, dtype=float)[:-1]
        w = w.take(go)
        out[rows[go]] = slide(w.front_edges, np.broadcast_to(ring, (len(go), *ring.shape)),
                              w.front, touching=np.zeros(len(go), dtype=bool))
    return out
