"""Line of sight (Federico F5, a gap setting), for many shots at once.

A target is visible along at least one of the sampled straight lines from the firer's front edge
(five points just inside it) to the part of the target measured to (its outline, shrunk by
INSET_MM, sampled, and its centroid) that passes through no other troop base, no blocking area
(``sight_blocking_areas``) neither of them stands in, and no crest (except inside the two bases).
'all_lines' asks every line to be clear; 'centre_to_centre' one line between the centres.

The lines are judged in numpy, obstacle by obstacle, with certain answers only:

* bases through the shared sight geometry (`geometry.sight_bodies`): a target whose directions,
  seen from an origin, lie wholly in the shadows of bases nearer than it is hidden from that
  origin at once (`shadowed`, one query per origin and target); a line whose direction lies
  inside the angle a nearer base spans is blocked by it, and the bases that may touch the
  other lines (`suspects`: each origin's lines sorted by direction) are clipped to them
  (`convex.crosses`);
* woods, towns and hills: the line is clipped to the obstacle (`convex.clip`); a crest is
  crossed, or not, between the two bases.

Every test keeps SLACK_MM to spare; a line that no test can settle with that margin (it grazes
a corner, crosses a non-convex wood) is left to GEOS (`SightField.clear_many`), and only when
the shot's verdict rests on it. Each shot's shortest line is judged first: most visible targets
are settled by it, and only the others have all their lines judged. The obstacles that
certainly block an unseen target's lines are named (``sight_blocked_by``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import shapely
from shapely.strtree import STRtree

from campo.engine.geometry.sight import SightField, SightQuery
from campo.engine.geometry.sight_bodies import Bodies, Keyed, Rules, shadowed, suspects
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.convex import clip, convex, crosses, normals

INSET_MM = 0.5      # sight lines start/end this far inside the edges (touching neighbours)
AHEAD_MM = 0.01     # ... and start this far ahead of the firer's front edge
ORIGINS = 5         # points along the front edge
SLACK_MM = 1e-6     # certain answers keep this much to spare; closer calls go to GEOS
SLOPE_SLACK = 1e-9  # the same, as a difference of slopes (lines up to ~1 km long)
DEPTH_MM = 1e-6     # a line runs through an area when its chord there is longer (SightField)
FIRST_LINES_FROM = 64   # from this many shots, each shot's shortest line is judged first
FANS_FROM = 64          # from this many shots, a target hidden from an origin is one query


@dataclass
class Shots:
    """Sight questions: firer and target (base ids), and the part of the target aimed at
    (``whole``: the part is the whole target)."""

    firers: list[str]
    targets: list[str]
    parts: np.ndarray     # polygons
    whole: np.ndarray     # bool


@dataclass
class _Lines:
    """Lines to judge: per row (``shots``: the row's shot), origins (n, k, 2), which of its
    firer's origins each is (``slots``, n × k), and ends (n, m, 2, NaN-padded); and what is
    known: certainly ``blocked``, ``unsure`` (left to GEOS), and per
    obstacle kind the (row, obstacle) of each line certainly blocked, with the obstacles'
    names."""

    shots: np.ndarray
    origins: np.ndarray
    slots: np.ndarray
    ends: np.ndarray
    valid: np.ndarray = field(init=False)
    blocked: np.ndarray = field(init=False)
    unsure: np.ndarray = field(init=False)
    hits: list[tuple[np.ndarray, np.ndarray, list[str]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        shape = (len(self.shots), self.origins.shape[1], self.ends.shape[1])
        self.valid = np.broadcast_to(~np.isnan(self.ends[:, None, :, 0]), shape)
        self.blocked = np.zeros(shape, dtype=bool)
        self.unsure = np.zeros(shape, dtype=bool)

    @cached_property
    def boxes(self) -> np.ndarray:
        pts = np.concatenate([self.origins, self.ends], axis=1)
        lo, hi = np.nanmin(pts, axis=1), np.nanmax(pts, axis=1)
        return shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1])

    def record(self, s: np.ndarray, i: np.ndarray, j: np.ndarray, block: np.ndarray,
               unsure: np.ndarray, obstacle: np.ndarray, names: list[str]) -> None:
        """The verdicts on lines (row ``s``, origin ``i``, end ``j``) against the obstacles
        ``obstacle`` (named ``names[obstacle]``): certainly blocked, or unsure."""
        self.blocked[s[block], i[block], j[block]] = True
        self.unsure[s[unsure], i[unsure], j[unsure]] = True
        self.hits.append((s[block], obstacle[block], names))

    def open_lines(self, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """(pair, row, origin, end) of every line not blocked yet of the rows ``rows`` (one
        pair per entry of ``rows``)."""
        open_ = ~self.blocked[rows] & self.valid[rows]
        pair, i, j = np.nonzero(open_)
        return pair, rows[pair], i, j


@dataclass(eq=False)
class Obstacles:
    """What blocks sight on one board, as arrays (`Board.obstacles`): the blocking areas' edge
    planes, the crests' segments, and GEOS's test for what no certain answer settles."""

    board: Board

    def depth_inside(self, points: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Per point, how deep it lies inside the deepest of its bases ``rows[p]`` (negative:
        outside them all, by at least that much)."""
        n, off = self.board.body_planes
        proj = np.einsum("pbkc,pc->pbk", n[rows], points) - off[rows]
        return (-proj.max(axis=-1)).max(axis=-1)

    @cached_property
    def area_planes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every area's edge planes, padded to one length (`convex.normals`), and whether it is
        convex (only then do the planes hold it)."""
        areas = self.board.areas
        rings = [np.asarray(poly.exterior.coords, dtype=float)[:-1] for _, _, poly in areas]
        k = max((len(r) for r in rings), default=1)
        padded = np.array([np.concatenate([r, np.repeat(r[-1:], k - len(r), axis=0)])
                           for r in rings]).reshape(len(rings), k, 2)
        holes = np.array([bool(poly.interiors) for _, _, poly in areas], dtype=bool)
        n, off = normals(padded)
        return n, off, convex(padded) & ~holes

    @cached_property
    def blocking(self) -> np.ndarray:
        """Rows of `Board.areas` that block sight (``sight_blocking_areas``, Federico F5)."""
        return np.array([k for k, (_, kind, _) in enumerate(self.board.areas)
                         if kind in self.board.settings.sight_blocking_areas], dtype=np.int64)

    @cached_property
    def blocking_tree(self) -> STRtree:
        return STRtree(self.board.area_shapes[self.blocking])

    @cached_property
    def sight_bodies(self) -> tuple[Bodies, np.ndarray, np.ndarray]:
        """The troop bases as sight bodies (`sight_bodies.Bodies`), their board rows, and a
        (board row, body) table marking each body's own row (which body a firer or target
        is)."""
        b = self.board
        rows = np.nonzero(b.troop)[0]
        is_row = np.zeros((len(b.ids), len(rows)), dtype=bool)
        is_row[rows, np.arange(len(rows))] = True
        return Bodies.of(shapely.polygons(b.quads[rows])), rows, is_row

    @cached_property
    def crest_segments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(start, end, crest row) of every segment of every crest line."""
        xy, which = shapely.get_coordinates(
            np.array([line for _, line in self.board.crests], dtype=object), return_index=True)
        same = which[1:] == which[:-1]
        return xy[:-1][same], xy[1:][same], which[:-1][same]

    @cached_property
    def crest_tree(self) -> STRtree:
        a0, a1, _ = self.crest_segments
        return STRtree(shapely.linestrings(np.stack([a0, a1], axis=1)))

    @cached_property
    def field(self) -> SightField:
        """GEOS's sight test, for the lines the certain tests leave: troop bases, crests,
        blocking areas (any depth)."""
        b = self.board
        ids = b.troops()
        deep = [(tid, poly) for tid, kind, poly in b.areas
                if kind in b.settings.sight_blocking_areas]
        return SightField([b.rect(i).polygon for i in ids], ids,
                          [line for _, line in b.crests], [tid for tid, _ in b.crests],
                          [p for _, p in deep], [i for i, _ in deep], max_depth=0.0)


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
    """Per shot: visible, and the obstacles certainly blocking some of its lines (most lines
    first; empty when visible)."""
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
        pos = self.board.pos
        return (np.array([pos[f] for f in self.shots.firers]),
                np.array([pos[t] for t in self.shots.targets]))

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
            _, t = self.rows
            return np.array([(b.rects[k].cx, b.rects[k].cy) for k in t.tolist()],
                            dtype=float)[:, None, :]
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
            first = np.r_[0, np.cumsum(sizes + 1)[:-1]]
            rank = np.arange(len(xy)) - first[owner]
            keep = rank < sizes[owner]
            wide = max(4, int(sizes.max(initial=0)))
            if wide > 4:
                rings = np.concatenate([rings, np.full((n, wide - 4, 2), np.nan)], axis=1)
            rings[other] = np.nan
            rings[other[owner[keep]], rank[keep]] = xy[keep]
            counts[other] = sizes
            centroid[other] = shapely.get_coordinates(shapely.centroid(parts[other]))
        nxt = np.roll(rings, -1, axis=1)
        last = np.arange(n), counts - 1     # each ring's last vertex closes back to the first
        nxt[last] = rings[:, 0]
        pts = np.stack([rings, rings + (nxt - rings) / 3, rings + (nxt - rings) * (2 / 3)],
                       axis=2).reshape(n, -1, 2)
        return _with_centroid(pts, counts * 3, centroid)

    # --- the verdicts --------------------------------------------------------------------------
    def verdicts(self) -> tuple[list[bool], list[list[str]]]:
        all_lines = self.board.settings.f5_line_of_sight == "all_lines"
        n = len(self.shots.firers)
        o, e = self.origins, self.ends
        seen = np.zeros(n, dtype=bool)
        rest = np.arange(n)
        judged = []
        if n >= FIRST_LINES_FROM:
            # first each shot's shortest line: a clear one settles "any line", a blocked one
            # "all lines"; only the shots it leaves have all their lines judged
            d2 = ((o[:, :, None, :] - e[:, None, :, :]) ** 2).sum(axis=-1)
            best = np.where(np.isnan(d2), np.inf, d2).reshape(n, -1).argmin(axis=1)
            m = e.shape[1]
            first = self._judge(_Lines(rest, o[rest, best // m][:, None],
                                       (best // m)[:, None], e[rest, best % m][:, None]))
            clear = first.valid & ~first.blocked & ~first.unsure
            settled = (first.blocked if all_lines else clear)[:, 0, 0]
            seen[settled] = not all_lines
            rest = np.nonzero(~settled)[0]
            judged.append(first)
        slots = np.broadcast_to(np.arange(o.shape[1]), (len(rest), o.shape[1]))
        lines = self._judge(_Lines(rest, o[rest], slots, e[rest]))
        judged.append(lines)
        clear = lines.valid & ~lines.blocked & ~lines.unsure
        if all_lines:
            seen[rest] = (clear | ~lines.valid).all(axis=(1, 2))
            ask = ~seen[rest] & ~(lines.blocked & lines.valid).any(axis=(1, 2))
        else:
            seen[rest] = clear.any(axis=(1, 2))
            ask = ~seen[rest] & (lines.unsure & ~lines.blocked & lines.valid).any(axis=(1, 2))
        if ask.any():
            self._ask_geos(lines, ask, seen, all_lines)
        return seen.tolist(), self._blockers(seen, judged)

    def _ask_geos(self, lines: _Lines, ask: np.ndarray, seen: np.ndarray,
                  all_lines: bool) -> None:
        """The lines no certain test could judge, of the shots whose verdict rests on them."""
        r, i, j = np.nonzero(lines.unsure & ~lines.blocked & lines.valid & ask[:, None, None])
        segs = shapely.linestrings(np.stack([lines.origins[r, i], lines.ends[r, j]], axis=1))
        shots, owner = np.unique(lines.shots[r], return_inverse=True)
        ok = self.board.obstacles.field.clear_many(segs, owner, self._queries(shots.tolist()))
        if all_lines:
            seen[lines.shots[ask]] = True
            seen[shots[np.unique(owner[~ok])]] = False
        else:
            seen[shots[np.unique(owner[ok])]] = True

    def _queries(self, shots: list[int]) -> list[SightQuery]:
        """What GEOS's sight test ignores for these shots: the two bases (and a crest inside
        them), and the areas holding either centre."""
        b = self.board
        out = []
        for k in shots:
            f, t = self.shots.firers[k], self.shots.targets[k]
            out.append(SightQuery(frozenset((f, t)), 0.0, frozenset(),
                                  (b.rect(f).polygon, b.rect(t).polygon), frozenset(),
                                  b.centre_areas[f] | b.centre_areas[t]))
        return out

    def _blockers(self, seen: np.ndarray, judged: list[_Lines]) -> list[list[str]]:
        """Per shot not seen, the obstacles that certainly block some of its lines, most
        lines first (then by name)."""
        out: dict[int, dict[str, int]] = {}
        for lines in judged:
            for rows, obstacle, names in lines.hits:
                shot = lines.shots[rows]
                keep = ~seen[shot]
                if not keep.any():
                    continue
                n_obst = len(names)
                key = shot[keep].astype(np.int64) * n_obst + obstacle[keep]
                for u, c in zip(*(x.tolist() for x in np.unique(key, return_counts=True))):
                    s, o = divmod(u, n_obst)
                    found = out.setdefault(s, {})
                    found[names[o]] = found.get(names[o], 0) + c
        return [sorted(out.get(k, {}), key=lambda name: (-out[k][name], name))
                for k in range(len(seen))]

    def _judge(self, lines: _Lines) -> _Lines:
        if len(lines.shots):
            self._bodies(lines)
            self._areas(lines)
            self._crests(lines)
        return lines

    # --- bases ---------------------------------------------------------------------------------
    def _bodies(self, lines: _Lines) -> None:
        """Troop bases other than the firer and the target, against every open line: the
        shared sweep of directions (`sight_bodies.suspects`, each firer's origins' lines sorted
        by direction) names the base that certainly crosses a line and, for the others, the
        bases that may come within SLACK_MM of it, clipped with that slack either way
        (`convex.crosses`); what neither settles is unsure."""
        b = self.board
        if len(lines.shots) >= FANS_FROM and lines.origins.shape[1] * lines.ends.shape[1] > 1:
            self._shadowed(lines)
        pair, row, i, j = lines.open_lines(np.arange(len(lines.shots)))
        if not len(pair):
            return
        f_row, t_row = self.rows
        shot = lines.shots[row]
        p0, p1 = lines.origins[row, i], lines.ends[row, j]
        bodies, troop_rows, is_row = b.obstacles.sight_bodies
        rules = Rules(never=(Keyed(f_row[shot], is_row), Keyed(t_row[shot], is_row)))
        origin = f_row[shot] * ORIGINS + lines.slots[row, i]
        sure, at, body = suspects(np.stack([p0, p1], axis=1), np.full(len(row), SLACK_MM),
                                  bodies, rules, np.arange(len(row)), origin)
        certain = np.nonzero(sure >= 0)[0]
        lines.record(row[certain], i[certain], j[certain], np.ones(len(certain), dtype=bool),
                     np.zeros(len(certain), dtype=bool), troop_rows[sure[certain]], b.ids)
        if not len(at):
            return
        rows = troop_rows[body]
        planes, offsets = b.body_planes
        hit, miss = crosses(p0[at], p1[at], planes[rows], offsets[rows], SLACK_MM)
        # a line crossing several bases names one, as the sweep does: the one whose farthest
        # corner is nearest its origin
        far = np.hypot(*(b.quads[rows] - p0[at][:, None, :]).transpose(2, 0, 1)).max(axis=1)
        order = np.lexsort((far, ~hit, at))
        at, rows, hit, miss = at[order], rows[order], hit[order], miss[order]
        named = np.r_[True, at[1:] != at[:-1]] | ~hit
        lines.record(row[at], i[at], j[at], hit & named, ~hit & ~miss, rows, b.ids)

    def _shadowed(self, lines: _Lines) -> None:
        """The lines from an origin to a target all certainly blocked by bases nearer than the
        target (`sight_bodies.shadowed`: one query per origin and target), each named by the
        nearest base across it."""
        b = self.board
        bodies, troop_rows, _ = b.obstacles.sight_bodies
        body_of = np.full(len(b.ids), -1, dtype=np.int64)
        body_of[troop_rows] = np.arange(len(troop_rows))
        f_row, t_row = self.rows
        n, k = lines.origins.shape[:2]
        starts = np.zeros((len(b.ids) * ORIGINS, 2))
        origin = (f_row[lines.shots][:, None] * ORIGINS + lines.slots).ravel()
        starts[origin] = lines.origins.reshape(-1, 2)
        valid = lines.valid.reshape(n * k, -1)                    # (fan, end)
        fan, end = np.nonzero(valid)
        covered, body = shadowed(starts, np.repeat(body_of, ORIGINS), origin,
                                 np.repeat(body_of[t_row[lines.shots]], k),
                                 lines.ends[fan // k, end], fan, bodies)
        done = np.nonzero(body >= 0)[0]
        f, e = fan[done], end[done]
        lines.record(f // k, f % k, e, np.ones(len(done), dtype=bool),
                     np.zeros(len(done), dtype=bool), troop_rows[body[done]], b.ids)

    # --- woods, towns, hills -------------------------------------------------------------------
    def _areas(self, lines: _Lines) -> None:
        """Blocking areas neither base stands in, against the lines not blocked yet of the
        shots whose box meets theirs: the chord of each line through a convex area clipped in
        numpy, through another measured by GEOS."""
        b = self.board
        obstacles = b.obstacles
        if not len(obstacles.blocking):
            return
        s, a = obstacles.blocking_tree.query(lines.boxes)
        area = obstacles.blocking[a]
        names = [tid for tid, _, _ in b.areas]
        held, firers, targets = b.centre_areas, self.shots.firers, self.shots.targets
        shot = lines.shots[s]
        keep = np.array([names[x] not in held[firers[y]] and names[x] not in held[targets[y]]
                         for x, y in zip(area.tolist(), shot.tolist())], dtype=bool)
        pair, row, i, j = lines.open_lines(s[keep])
        if not len(pair):
            return
        area = area[keep][pair]
        p0, p1 = lines.origins[row, i], lines.ends[row, j]
        length = np.hypot(*(p1 - p0).T)
        planes, offsets, flat_sided = obstacles.area_planes
        t_in, t_out = clip(p0, p1, planes[area], offsets[area], -SLACK_MM)
        hit = flat_sided[area] & ((t_out - t_in) * length > DEPTH_MM)
        t_in, t_out = clip(p0, p1, planes[area], offsets[area], SLACK_MM)
        miss = flat_sided[area] & ((t_out - t_in) * length <= DEPTH_MM)
        bent = np.nonzero(~flat_sided[area])[0]     # a non-convex area: GEOS measures the depth
        if len(bent):
            depth = shapely.length(shapely.intersection(
                shapely.linestrings(np.stack([p0[bent], p1[bent]], axis=1)),
                b.area_shapes[area[bent]]))
            hit[bent] = depth > DEPTH_MM + SLACK_MM
            miss[bent] = depth < DEPTH_MM - SLACK_MM
        lines.record(row, i, j, hit, ~hit & ~miss, area, names)

    # --- crests --------------------------------------------------------------------------------
    def _crests(self, lines: _Lines) -> None:
        """Crest segments crossed by the lines not blocked yet, strictly between the firer and
        the target (outside both)."""
        b = self.board
        a0, a1, crest = b.obstacles.crest_segments
        if not len(crest):
            return
        s, c = b.obstacles.crest_tree.query(lines.boxes)
        pair, row, i, j = lines.open_lines(s)
        if not len(pair):
            return
        c = c[pair]
        p0, p1 = lines.origins[row, i], lines.ends[row, j]
        d, span = p1 - p0, a1[c] - a0[c]
        denom = d[:, 0] * span[:, 1] - d[:, 1] * span[:, 0]
        w = a0[c] - p0
        length, seg = np.hypot(*d.T), np.hypot(*span.T)
        cut = np.abs(denom) > 1e-12 * np.maximum(length * seg, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(cut, (w[:, 0] * span[:, 1] - w[:, 1] * span[:, 0]) / denom, -1.0)
            u = np.where(cut, (w[:, 0] * d[:, 1] - w[:, 1] * d[:, 0]) / denom, -1.0)
        inner = ((t * length > SLACK_MM) & ((1 - t) * length > SLACK_MM)
                 & (u * seg > SLACK_MM) & ((1 - u) * seg > SLACK_MM))
        apart = cut & ((t * length < -SLACK_MM) | ((t - 1) * length > SLACK_MM)
                       | (u * seg < -SLACK_MM) | ((u - 1) * seg > SLACK_MM))
        f_row, t_row = self.rows
        shot = lines.shots[row]
        depth = b.obstacles.depth_inside(p0 + d * np.where(inner, t, 0.0)[:, None],
                               np.stack([f_row[shot], t_row[shot]], axis=1))
        block = inner & (depth < -SLACK_MM)            # outside both bases
        clear = apart | (inner & (depth > SLACK_MM))   # away, or inside one of them
        lines.record(row, i, j, block, ~block & ~clear, crest[c], [tid for tid, _ in b.crests])
