"""Line of sight (Federico F5, a gap setting), for many shots at once.

A target is visible along at least one of the sampled straight lines from the firer's front edge
(five points just inside it) to the part of the target measured to (its outline, shrunk by
INSET_MM, sampled, and its centroid) that passes through no other troop base, no blocking area
(``sight_blocking_areas``) neither of them stands in, and no crest (except inside the two bases).
'all_lines' asks every line to be clear; 'centre_to_centre' one line between the centres.

Every line is one row of a question to the shared sight geometry (`geometry.sight.SightField.
trace`: bases swept per origin, crests and convex areas in numpy, GEOS only where numpy cannot
be sure), each shot's shortest line first: most visible targets are settled by it, and only the
others have all their lines traced (but those the base across the shortest line surely crosses
too). What blocks an unseen target's lines is named (``sight_blocked_by``, most lines first).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely

from campo.engine.geometry.sight import BODY, CLEAR, DEPTH, WALL, Keyed, SightField, Sightlines
from campo.engine.rulesets.federico.board import Board

INSET_MM = 0.5      # sight lines start/end this far inside the edges (touching neighbours)
AHEAD_MM = 0.01     # ... and start this far ahead of the firer's front edge
ORIGINS = 5         # points along the front edge
BOX_MARGIN_MM = 1.0  # a shot's box holds its lines (they start AHEAD_MM beyond the front edge)


@dataclass
class Shots:
    """Sight questions: firer and target (base ids), and the part of the target aimed at
    (``whole``: the part is the whole target)."""

    firers: list[str]
    targets: list[str]
    parts: np.ndarray     # polygons
    whole: np.ndarray     # bool


@dataclass(eq=False)
class Obstacles:
    """What may block a batch of shots on one board (`_Judge.obstacles`): the troop bases near
    their lines, the crests and blocking areas, as the shared sight geometry holds them, and
    which of them a shot leaves out."""

    board: Board
    troop_rows: np.ndarray
    """The board rows of the troop bases that may touch a line (commanders do not block
    sight): the field's bodies."""

    @cached_property
    def deep_rows(self) -> list[int]:
        """The blocking areas (``sight_blocking_areas``: any depth blocks), as rows of
        `Board.areas`: the field's deep areas."""
        b = self.board
        return [k for k, (_, kind, _) in enumerate(b.areas)
                if kind in b.settings.sight_blocking_areas]

    @cached_property
    def field(self) -> SightField:
        """Troop bases, crests and blocking areas."""
        b, rows = self.board, self.troop_rows
        deep = [b.areas[k] for k in self.deep_rows]
        return SightField(list(b.shapes[rows]), [b.order[r] for r in rows],
                          [line for _, line in b.crests], [tid for tid, _ in b.crests],
                          [p for _, _, p in deep], [i for i, _, _ in deep], max_depth=0.0,
                          corners=b.quads[rows])   # the outlines' vertices, read once

    @cached_property
    def own_body(self) -> np.ndarray:
        """(board row, body): which body each base is (never a blocker of its own shots)."""
        rows = self.troop_rows
        out = np.zeros((len(self.board.order), len(rows)), dtype=bool)
        out[rows, np.arange(len(rows))] = True
        return out

    @cached_property
    def stands_in(self) -> np.ndarray:
        """(board row, blocking area): the area holds the base's centre (it does not block the
        base's shots, Federico F5)."""
        return self.board.holding[:, self.deep_rows]


def _with_centroid(pts: np.ndarray, counts: np.ndarray, centroid: np.ndarray) -> np.ndarray:
    """Each row's first ``counts`` points, then its centroid, NaN-padded to one length."""
    n = len(pts)
    out = np.full((n, int(counts.max(initial=0)) + 1, 2), np.nan)
    take = np.arange(pts.shape[1])[None, :] < counts[:, None]
    row, col = np.nonzero(take)
    out[row, col] = pts[row, col]
    out[np.arange(n), counts] = centroid
    return out


def line_of_sight(board: Board, shots: Shots) -> tuple[list[bool], list[list[str]]]:
    """Per shot: visible, and the obstacles blocking its lines (most lines first; empty when
    visible)."""
    n = len(shots.firers)
    if board.settings.f5_line_of_sight == "ignore" or n == 0:
        return [True] * n, [[] for _ in range(n)]
    return _Judge(board, shots).verdicts()


@dataclass(eq=False)
class _Judge:
    board: Board
    shots: Shots

    @cached_property
    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        return self.board.positions(self.shots.firers), self.board.positions(self.shots.targets)

    @cached_property
    def obstacles(self) -> Obstacles:
        """The obstacles with the troop bases whose outline's box meets the box of some shot's
        firer and target (grown by BOX_MARGIN_MM: every line of the shot lies inside it; no
        other base can touch one), from one query of the board's index. A batch with more
        shots than there are bases (a whole table's) meets nearly every base: all are taken
        without the query, which would cost more than it spares."""
        b = self.board
        if len(self.shots.firers) > len(b.troop):
            return Obstacles(b, np.flatnonzero(b.troop))
        corners = b.quads[np.stack(self.rows)]          # (2, shots, 4, 2): firers', targets'
        lo = corners.min(axis=(0, 2)) - BOX_MARGIN_MM
        hi = corners.max(axis=(0, 2)) + BOX_MARGIN_MM
        near = np.unique(b.tree.query(shapely.box(*lo.T, *hi.T))[1])
        return Obstacles(b, near[b.troop[near]])

    @cached_property
    def origins(self) -> np.ndarray:
        """(n, k, 2): where each shot's lines start (each firer's computed once)."""
        b = self.board
        f_row, _ = self.rows
        firers, at = np.unique(f_row, return_inverse=True)
        centre, (front, right, half) = b.centres[firers], b.axes
        front, right, half = front[firers], right[firers], half[firers]
        if b.settings.f5_line_of_sight == "centre_to_centre":
            return (centre + half[:, 1:] * front)[at][:, None, :]
        inset = np.minimum(INSET_MM, half[:, :1] / 2)
        ahead = centre + (half[:, 1:] + AHEAD_MM) * front
        left = ahead - (half[:, :1] - inset) * right
        span = 2 * (half[:, :1] - inset) * right
        t = np.linspace(0.0, 1.0, ORIGINS)[None, :, None]
        return (left[:, None, :] + span[:, None, :] * t)[at]

    @cached_property
    def ends(self) -> np.ndarray:
        """(n, m, 2), NaN-padded: where each shot's lines end (the part's outline shrunk by
        INSET_MM: its vertices and the points at a third and two thirds of each edge; and the
        part's centroid)."""
        b, parts = self.board, self.shots.parts
        if b.settings.f5_line_of_sight == "centre_to_centre":
            return b.centres[self.rows[1]][:, None, :]
        n = len(parts)
        rings = np.full((n, 4, 2), np.nan)
        centroid = np.empty((n, 2))
        # a whole base: its corners moved INSET_MM in along both edges (its inward buffer),
        # each target's computed once
        whole = np.nonzero(self.shots.whole)[0]
        _, t_row = self.rows
        bases, at = np.unique(t_row[whole], return_inverse=True)
        front, right, half = (v[bases] for v in b.axes)
        shrink = np.where((4 * half[:, :1] * half[:, 1:] > 4 * INSET_MM ** 2),
                          np.maximum(half - INSET_MM, 0.0), half)
        centre = b.centres[bases]
        corners = np.stack([centre + u * shrink[:, :1] * right + v * shrink[:, 1:] * front
                            for u, v in ((-1, 1), (1, 1), (1, -1), (-1, -1))], axis=1)
        rings[whole] = corners[at]
        centroid[whole] = centre[at]
        # a part of a base (inside the arc): GEOS's inward buffer, its vertices as they come
        other = np.nonzero(~self.shots.whole)[0]
        counts = np.full(n, 4)
        if len(other):
            shrunk = parts[other].copy()
            big = np.nonzero(shapely.area(shrunk) > 4 * INSET_MM ** 2)[0]
            inner = shapely.buffer(shrunk[big], -INSET_MM, quad_segs=16)
            filled = ~shapely.is_empty(inner)
            shrunk[big[filled]] = inner[filled]
            xy, owner = shapely.get_coordinates(shapely.get_exterior_ring(shrunk),
                                                return_index=True)
            sizes = np.bincount(owner, minlength=len(other)) - 1   # less the closing point
            first = np.cumsum(sizes + 1) - (sizes + 1)
            rank = np.arange(len(xy)) - first[owner]
            keep = rank < sizes[owner]
            wide = max(4, int(sizes.max(initial=0)))
            if wide > 4:
                rings = np.concatenate([rings, np.full((n, wide - 4, 2), np.nan)], axis=1)
            rings[other] = np.nan
            rings[other[owner[keep]], rank[keep]] = xy[keep]
            counts[other] = sizes
            centroid[other] = shapely.get_coordinates(shapely.centroid(parts[other]))
        nxt = np.concatenate([rings[:, 1:], rings[:, :1]], axis=1)
        last = np.arange(n), counts - 1     # each ring's last vertex closes back to the first
        nxt[last] = rings[:, 0]
        pts = np.stack([rings, rings + (nxt - rings) / 3, rings + (nxt - rings) * (2 / 3)],
                       axis=2).reshape(n, -1, 2)
        return _with_centroid(pts, counts * 3, centroid)

    # --- the verdicts --------------------------------------------------------------------------
    @cached_property
    def lines(self) -> tuple[Sightlines, np.ndarray, np.ndarray]:
        """Every line of every shot (shot by shot, origin by origin) as one question to the
        sight geometry, each line's shot, and whether it is a line (``ends`` is NaN-padded).
        A shot leaves out its firer's and target's bodies, the crest inside them and the
        blocking areas either stands in."""
        o, e = self.origins, self.ends
        n, k, m = len(o), o.shape[1], e.shape[1]
        shot = np.repeat(np.arange(n), k * m)
        xy = np.stack([np.repeat(o, m, axis=1).reshape(-1, 2),
                       np.tile(e, (1, k, 1)).reshape(-1, 2)], axis=1)
        f_row, t_row = self.rows
        f, t = f_row[shot], t_row[shot]
        obstacles = self.obstacles
        slot = np.tile(np.repeat(np.arange(k), m), n)
        lines = Sightlines(xy, 0.0, never=(Keyed(f, obstacles.own_body), Keyed(t, obstacles.own_body)),
                           ends=np.stack([f, t], axis=1), end_shapes=self.board.shapes,
                           uncounted=(Keyed(f, obstacles.stands_in),
                                      Keyed(t, obstacles.stands_in)),
                           origin=f * ORIGINS + slot)
        return lines, shot, ~np.isnan(xy[:, 1, 0])

    def verdicts(self) -> tuple[list[bool], list[list[str]]]:
        all_lines = self.board.settings.f5_line_of_sight == "all_lines"
        lines, shot, valid = self.lines
        n = len(self.shots.firers)
        field = self.obstacles.field
        kind = np.zeros(len(shot), dtype=np.int8)      # CLEAR until traced
        index = np.full(len(shot), -1, dtype=np.int64)

        def trace(rows: np.ndarray) -> None:
            found = field.trace(lines, rows)
            kind[rows], index[rows] = found.kind[rows], found.index[rows]

        todo = valid.copy()
        # first each shot's shortest line, however few the shots (a tap on one base takes the
        # whole table's way, so its entry is the same): a clear one settles "any line", a
        # blocked one "all lines"; only the shots it leaves have all their lines traced
        d2 = np.where(valid, ((lines.xy[:, 1] - lines.xy[:, 0]) ** 2).sum(axis=1), np.inf)
        first = np.arange(n) * (len(shot) // n) + d2.reshape(n, -1).argmin(axis=1)
        trace(first)
        settled = (kind[first] != CLEAR) if all_lines else (kind[first] == CLEAR)
        todo &= ~settled[shot]
        todo[first] = False
        # the base across a shot's shortest line most often crosses its other lines too: a
        # cheap certain test (`SightField.crosses`) before the sweep takes the rest
        body = np.where(kind[first] == BODY, index[first], -1)
        rows = np.nonzero(todo & (body[shot] >= 0))[0]
        k = self.origins.shape[1]
        crossed = rows[field.crosses(self.origins.reshape(-1, 2), np.repeat(body, k),
                                     lines.xy[rows, 1],
                                     shot[rows] * k + lines.origin[rows] % ORIGINS)]
        kind[crossed], index[crossed] = BODY, body[shot[crossed]]
        todo[crossed] = False
        trace(np.nonzero(todo)[0])
        clear = (kind == CLEAR).reshape(n, -1)
        shape_ok = valid.reshape(n, -1)
        seen = (clear | ~shape_ok).all(axis=1) if all_lines else (clear & shape_ok).any(axis=1)
        return seen.tolist(), self._blockers(seen, shot, kind, index)

    def _blockers(self, seen: np.ndarray, shot: np.ndarray, kind: np.ndarray,
                  index: np.ndarray) -> list[list[str]]:
        """Per shot not seen, what blocks its traced lines, most lines first (then by name)."""
        field = self.obstacles.field
        names, which = np.unique(np.array(field.body_ids + field.wall_ids + field.deep_area_ids,
                                          dtype=str), return_inverse=True)
        code = index + np.select([kind == WALL, kind == DEPTH],
                                 [len(field.body_ids), len(field.body_ids) + len(field.wall_ids)])
        line = np.nonzero((kind != CLEAR) & ~seen[shot])[0]
        found, count = np.unique(shot[line] * len(names) + which.reshape(-1)[code[line]],
                                 return_counts=True)
        s, name = np.divmod(found, len(names))
        out: list[list[str]] = [[] for _ in range(len(seen))]
        for k in np.lexsort((name, -count, s)).tolist():
            out[s[k]].append(str(names[name[k]]))
        return out
