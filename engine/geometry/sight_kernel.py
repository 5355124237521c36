"""Compiled (numba) sight-line tests against many rectangular bodies, shot by shot.

A battle of 200 bases asks some 7,000 sight questions of about 36 sampled lines each. Testing
every line against every body its bounding box meets (numpy) costs most of an analysis; here each
line walks a uniform grid of cells from its start (so the nearest body, the likeliest blocker, is
met first) and stops at the first body that blocks it; it tries first the bodies that last
blocked lines of the same shooter. A line clear of bodies then meets the terrain (crests and
tree rows by `wall_kernel`, the depth in woods by `depth_kernel`'s arithmetic); a shot stops at
its first line clear of both, or at one whose terrain only GEOS can decide (the caller asks it).

The pair test is `segments.segments_near_quads`'s arithmetic, operation for operation, so the
answers are those of the numpy path (tests/test_engine_sight_kernel.py); the terrain answers
are `SightField.clear_of_terrain`'s (tests/test_engine_sight_fast_walk.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from campo.engine.geometry.depth_kernel import chord_length, chord_step, clipped_length
from campo.engine.geometry.wall_kernel import (  # point_to_segment: box_kernel's too
    BLOCKED,
    CLEAR,
    UNSURE,
    point_to_segment,
    segment_step,
    wall_outcome,
)


GRID_EPS = 0.01   # mm: bodies are registered in every cell their box (grown by this) meets
RECENT_BLOCKERS = 8   # per shooter, the latest distinct bodies that blocked one of its lines


@njit(cache=True, inline="always")
def _psd2(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """The square of `point_to_segment` (no square root: for the cheap circle test)."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = ((px - ax) * dx + (py - ay) * dy) / length2 if length2 > 0 else 0.0
    t = min(max(t, 0.0), 1.0)
    ox, oy = px - (ax + t * dx), py - (ay + t * dy)
    return ox * ox + oy * oy


@njit(cache=True, inline="always")
def segment_near_quad(x0: float, y0: float, x1: float, y1: float, quads: np.ndarray, b: int,
                      reach: float) -> bool:
    """`segments._segments_near_quads` for one segment and quad ``quads[b]`` (4 x 2), read in
    place (no array view: numba counts references to views atomically, which cost more than
    the test)."""
    all_pos0 = all_neg0 = all_pos1 = all_neg1 = True
    dx, dy = x1 - x0, y1 - y0
    for i in range(4):
        ax, ay = quads[b, i, 0], quads[b, i, 1]
        j = (i + 1) % 4
        bx, by = quads[b, j, 0], quads[b, j, 1]
        ex, ey = bx - ax, by - ay
        s0 = ex * (y0 - ay) - ey * (x0 - ax)
        s1 = ex * (y1 - ay) - ey * (x1 - ax)
        if s0 < 0:
            all_pos0 = False
        if s0 > 0:
            all_neg0 = False
        if s1 < 0:
            all_pos1 = False
        if s1 > 0:
            all_neg1 = False
        o1 = dx * (ay - y0) - dy * (ax - x0)
        o2 = dx * (by - y0) - dy * (bx - x0)
        if o1 == 0 and o2 == 0:
            if (max(x0, x1) >= min(ax, bx) and min(x0, x1) <= max(ax, bx)
                    and max(y0, y1) >= min(ay, by) and min(y0, y1) <= max(ay, by)):
                return True   # crossing (the numpy path ORs it in: the answer is True)
        elif o1 * o2 <= 0 and s0 * s1 <= 0:
            return True
    if all_pos0 or all_neg0 or all_pos1 or all_neg1:
        return True
    if reach <= 0:
        return False
    d = math.inf
    for i in range(4):
        ax, ay = quads[b, i, 0], quads[b, i, 1]
        j = (i + 1) % 4
        bx, by = quads[b, j, 0], quads[b, j, 1]
        d = min(d, point_to_segment(x0, y0, ax, ay, bx, by),
                point_to_segment(x1, y1, ax, ay, bx, by),
                point_to_segment(ax, ay, x0, y0, x1, y1),
                point_to_segment(bx, by, x0, y0, x1, y1))
    return d <= reach


def build_grid(quads: np.ndarray, grow: float, cell: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bodies by cell: (x0, y0, cell size, nx, ny) as floats, row starts, body indices (CSR).

    Each body is listed in every cell its bounding box, grown by ``grow`` (the widest reach
    asked) and GRID_EPS, meets; a line coming within ``grow`` of a body passes through one of
    them."""
    lo = quads.min(axis=1) - grow - GRID_EPS
    hi = quads.max(axis=1) + grow + GRID_EPS
    x0, y0 = float(lo[:, 0].min()), float(lo[:, 1].min())
    nx = int((hi[:, 0].max() - x0) // cell) + 1
    ny = int((hi[:, 1].max() - y0) // cell) + 1
    first = np.stack([(lo[:, 0] - x0) // cell, (lo[:, 1] - y0) // cell], axis=1).astype(np.int64)
    last = np.stack([(hi[:, 0] - x0) // cell, (hi[:, 1] - y0) // cell], axis=1).astype(np.int64)
    starts, items = _fill_grid(first, last, nx, ny)
    return np.array([x0, y0, cell, nx, ny], dtype=float), starts, items


@njit(cache=True)
def _fill_grid(first: np.ndarray, last: np.ndarray, nx: int, ny: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """CSR of the bodies in each cell: body b covers cells first[b]..last[b] (inclusive)."""
    counts = np.zeros(nx * ny + 1, dtype=np.int64)
    for b in range(len(first)):
        for j in range(first[b, 1], last[b, 1] + 1):
            for i in range(first[b, 0], last[b, 0] + 1):
                counts[j * nx + i + 1] += 1
    starts = np.cumsum(counts)
    items = np.empty(starts[-1], dtype=np.int64)
    fill = starts[:-1].copy()
    for b in range(len(first)):
        for j in range(first[b, 1], last[b, 1] + 1):
            for i in range(first[b, 0], last[b, 0] + 1):
                c = j * nx + i
                items[fill[c]] = b
                fill[c] += 1
    return starts, items


def no_terrain(n_positions: int = 1) -> tuple:
    """A `first_clear_lines` terrain without walls or deep areas."""
    return (np.zeros((0, 2), dtype=np.int64), np.zeros((0, 2)), np.zeros((0, 2), dtype=np.int64),
            np.zeros((0, 4)), np.zeros((n_positions, 0), dtype=np.bool_), np.zeros((0, 4)),
            np.zeros((0, 4)), np.zeros((0, 2), dtype=np.int64),
            np.zeros((n_positions, 0), dtype=np.bool_), math.inf)


def first_clear_lines(origins: np.ndarray, ends: np.ndarray, end_starts: np.ndarray,
                      shot_shooter: np.ndarray, shot_target: np.ndarray,
                      shot_touch_row: np.ndarray, shot_reach: np.ndarray,
                      shot_ignore: np.ndarray, todo: np.ndarray, todo_from: np.ndarray,
                      quads: np.ndarray, centres: np.ndarray, radii: np.ndarray,
                      own: np.ndarray, near_own: np.ndarray, touch: np.ndarray,
                      over: np.ndarray, grid: np.ndarray, starts: np.ndarray, items: np.ndarray,
                      terrain: tuple) -> tuple[np.ndarray, np.ndarray]:
    """For each shot ``todo[i]``, the first of its lines from line ``todo_from[i]`` on that no
    body blocks and no terrain surely blocks (-1: none), and whether terrain might block it
    (then GEOS decides: `SightField.clear_of_terrain`). Shot k's lines run end by end
    (``ends[end_starts[k]:end_starts[k + 1]]``), each end from every origin of its shooter
    (``origins[shooter]``, 3 x 2): line l joins origin l % 3 to end l // 3.

    ``shot_target``: the target's body index (-1: not a body); ``shot_touch_row``: its row in
    ``touch`` (the bodies touching it); ``shot_ignore``: 0 none, 1 the firer's ``over`` row, 2
    every body (fired over, ISD A18). ``terrain``: `SightField.kernel_terrain` (or
    `no_terrain`)."""
    rows, lines, pending = clear_lines(origins, ends, end_starts, shot_shooter, shot_target,
                                       shot_touch_row, shot_reach, shot_ignore, todo,
                                       todo_from, quads, centres, radii, own, near_own, touch,
                                       over, grid, starts, items, terrain, False)
    out = np.full(len(todo), -1, dtype=np.int64)
    out[rows] = lines
    unsure = np.zeros(len(todo), dtype=bool)
    unsure[rows] = pending
    return out, unsure


def every_unsure_line(origins: np.ndarray, ends: np.ndarray, end_starts: np.ndarray,
                      shot_shooter: np.ndarray, shot_target: np.ndarray,
                      shot_touch_row: np.ndarray, shot_reach: np.ndarray,
                      shot_ignore: np.ndarray, todo: np.ndarray, todo_from: np.ndarray,
                      quads: np.ndarray, centres: np.ndarray, radii: np.ndarray,
                      own: np.ndarray, near_own: np.ndarray, touch: np.ndarray,
                      over: np.ndarray, grid: np.ndarray, starts: np.ndarray, items: np.ndarray,
                      terrain: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, line, terrain unsure) of the lines of shot ``todo[i]`` from line ``todo_from[i]``
    on that no body blocks and no terrain surely blocks, grouped by i in order, up to the
    first one terrain surely leaves clear (arguments as `first_clear_lines`): GEOS then
    decides the unsure lines of all shots in one batch rather than line by line."""
    return clear_lines(origins, ends, end_starts, shot_shooter, shot_target, shot_touch_row,
                       shot_reach, shot_ignore, todo, todo_from, quads, centres, radii, own,
                       near_own, touch, over, grid, starts, items, terrain, True)


@njit(cache=True)
def clear_lines(origins: np.ndarray, ends: np.ndarray, end_starts: np.ndarray,
                shot_shooter: np.ndarray, shot_target: np.ndarray, shot_touch_row: np.ndarray,
                shot_reach: np.ndarray, shot_ignore: np.ndarray, todo: np.ndarray,
                todo_from: np.ndarray, quads: np.ndarray, centres: np.ndarray,
                radii: np.ndarray, own: np.ndarray, near_own: np.ndarray, touch: np.ndarray,
                over: np.ndarray, grid: np.ndarray, starts: np.ndarray, items: np.ndarray,
                terrain: tuple, every: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, line, terrain unsure) of each shot's first line clear of bodies and not surely
    blocked by terrain, or with ``every``, of each such line up to the first that terrain
    surely leaves clear (one compiled function for both: the callers pass ``every`` from
    Python, so numba compiles it once rather than once per constant).

    The per-line helpers are closures over the arrays: numba would count references to every
    array passed to an inlined function, atomically, at each call (more than the tests cost)."""
    shot_ends, wall_xy, wall_spans, wall_bounds, wall_meets, area_bounds, area_edges, \
        area_spans, area_holding, max_depth = terrain
    n_origins = origins.shape[1]
    cap = len(todo)   # one line per shot, or at most every line after its start
    if every:
        cap = 0
        for i in range(len(todo)):
            k = todo[i]
            cap += max(0, (end_starts[k + 1] - end_starts[k]) * n_origins - todo_from[i])
    found_row = np.empty(cap, dtype=np.int64)
    found_line = np.empty(cap, dtype=np.int64)
    found_unsure = np.empty(cap, dtype=np.bool_)
    m = 0
    stamp = np.full(len(quads), -1, dtype=np.int64)
    # the bodies that last blocked lines of this shooter, latest first: its shots hide behind
    # the same few bases, so most blocked lines end at one of them without walking the grid
    recent = np.full(RECENT_BLOCKERS, -1, dtype=np.int64)
    cells = np.empty(int(grid[3]) + int(grid[4]) + 2, dtype=np.int64)   # a line's cells

    def blocks(b: int, x0: float, y0: float, x1: float, y1: float, reach: float, s: int,
               target: int, touch_row: int, ignore: int) -> bool:
        """Whether body ``b`` blocks the line (`SightField._block_by_bodies_once`): never the
        firer's own bodies, the target, or bodies fired over; bodies touching the target or
        the firer's battery block only the line itself, not the corridor around it."""
        if b == target or own[s, b] or ignore == 2 or (ignore == 1 and over[s, b]):
            return False
        r = reach
        if r > 0 and (near_own[s, b] or (touch_row >= 0 and touch[touch_row, b])):
            r = 0.0
        # cheap reject: the line passes wide of the body's circumcircle (squared, with a
        # margin far above rounding; a body kept by the margin meets the exact test below)
        far = radii[b] + r + 1e-6
        if _psd2(centres[b, 0], centres[b, 1], x0, y0, x1, y1) > far * far:
            return False
        return segment_near_quad(x0, y0, x1, y1, quads, b, r)

    def line_blocked(x0: float, y0: float, x1: float, y1: float, reach: float, s: int,
                     target: int, touch_row: int, ignore: int, mark: int, n_recent: int) -> int:
        """The first body found blocking the line (-1: none): the recent blockers first,
        then the bodies of the cells the line crosses."""
        for r in range(n_recent):
            b = recent[r]
            if blocks(b, x0, y0, x1, y1, reach, s, target, touch_row, ignore):
                return b
        for r in range(n_recent):   # tried already: the walk skips them
            stamp[recent[r]] = mark
        n_cells = _line_cells(x0, y0, x1, y1, grid, cells)
        # the cells from both ends inward: a hidden target's blocker most often stands by the
        # firer (its own front line) or by the target (the target's front line)
        for j in range(n_cells):
            c = cells[j // 2] if j % 2 == 0 else cells[n_cells - 1 - j // 2]
            for at in range(starts[c], starts[c + 1]):
                b = items[at]
                if stamp[b] == mark:
                    continue
                stamp[b] = mark
                if blocks(b, x0, y0, x1, y1, reach, s, target, touch_row, ignore):
                    return b
        return -1

    def terrain_verdict(k: int, x0: float, y0: float, x1: float, y1: float,
                        reach: float) -> int:
        """CLEAR, BLOCKED (surely) or UNSURE of the terrain tests of `clear_of_terrain`: a
        wall touching the line or within its corridor (GEOS decides walls that meet the firer
        or target, cut by them, and the walls `wall_kernel` is not sure of), or more than
        max_depth inside a counted deep area (GEOS measures the areas that are not convex)."""
        pending = False
        a, b = shot_ends[k, 0], shot_ends[k, 1]
        x_lo, x_hi, y_lo, y_hi = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
        for w in range(len(wall_spans)):
            if not (x_lo - reach <= wall_bounds[w, 2] and x_hi + reach >= wall_bounds[w, 0]
                    and y_lo - reach <= wall_bounds[w, 3] and y_hi + reach >= wall_bounds[w, 1]):
                continue
            if wall_spans[w, 0] < 0 or wall_meets[a, w] or wall_meets[b, w]:
                pending = True
                continue
            crossing = unsure = False
            lo = hi = math.inf
            for j in range(wall_spans[w, 0], wall_spans[w, 1] - 1):
                kind, d = segment_step(x0, y0, x1, y1, wall_xy[j, 0], wall_xy[j, 1],
                                       wall_xy[j + 1, 0], wall_xy[j + 1, 1])
                if kind == 2:
                    crossing = True
                    lo = hi = 0.0
                    break
                hi = min(hi, d)
                if kind == 1:
                    unsure = True
                    lo = 0.0
                else:
                    lo = min(lo, d)
            verdict = wall_outcome(reach, crossing, unsure, lo, hi)
            if verdict == BLOCKED:
                return BLOCKED
            if verdict == UNSURE:
                pending = True
        for r in range(len(area_spans)):
            if clipped_length(x0, y0, x1, y1, area_bounds[r, 0], area_bounds[r, 1],
                              area_bounds[r, 2], area_bounds[r, 3]) <= max_depth:
                continue
            if area_holding[a, r] or area_holding[b, r]:
                continue   # its depth does not count (ISD A15)
            if area_spans[r, 0] < 0:
                pending = True
                continue
            dx, dy = x1 - x0, y1 - y0
            length = np.hypot(dx, dy)
            t_in, t_out = -np.inf, np.inf
            outside = False
            for e in range(area_spans[r, 0], area_spans[r, 1]):
                t_in, t_out, outside = chord_step(x0, y0, dx, dy, length, area_edges[e, 0],
                                                  area_edges[e, 1], area_edges[e, 2],
                                                  area_edges[e, 3], t_in, t_out, outside)
            if chord_length(length, t_in, t_out, outside) > max_depth + 1e-6:
                return BLOCKED
        return UNSURE if pending else CLEAR

    def to_front(n: int, b: int) -> int:
        """Move (or insert) body ``b`` to the front of ``recent[:n]``; the new length."""
        if n > 0 and recent[0] == b:
            return n
        at = n
        for r in range(n):
            if recent[r] == b:
                at = r
                break
        if at == n and n < len(recent):
            n += 1
        for r in range(min(at, len(recent) - 1), 0, -1):
            recent[r] = recent[r - 1]
        recent[0] = b
        return n

    mark = 0
    n_recent = 0
    last_shooter = -1
    for i in range(len(todo)):
        k = todo[i]
        s = shot_shooter[k]
        if s != last_shooter:
            n_recent = 0
            last_shooter = s
        target, touch_row, ignore, reach = shot_target[k], shot_touch_row[k], shot_ignore[k], \
            shot_reach[k]
        e0, e1 = end_starts[k], end_starts[k + 1]
        first = todo_from[i]
        # line l joins origin l % n_origins to end l // n_origins (counted, not divided)
        e = e0 + first // n_origins
        o = first % n_origins - 1
        for line in range(first, (e1 - e0) * n_origins):
            o += 1
            if o == n_origins:
                o = 0
                e += 1
            mark += 1
            x0, y0, x1, y1 = origins[s, o, 0], origins[s, o, 1], ends[e, 0], ends[e, 1]
            b = line_blocked(x0, y0, x1, y1, reach, s, target, touch_row, ignore, mark,
                             n_recent)
            if b >= 0:
                n_recent = to_front(n_recent, b)
                continue
            verdict = terrain_verdict(k, x0, y0, x1, y1, reach)
            if verdict == BLOCKED:
                continue
            found_row[m] = i
            found_line[m] = line
            found_unsure[m] = verdict == UNSURE
            m += 1
            if not every or verdict == CLEAR:
                break
    return found_row[:m], found_line[:m], found_unsure[:m]


@njit(cache=True)
def _line_cells(x0: float, y0: float, x1: float, y1: float, grid: np.ndarray,
                cells: np.ndarray) -> int:
    """Write the grid cells the line crosses into ``cells``, in order from its start (a
    digital differential analyser); how many."""
    gx0, gy0, cell = grid[0], grid[1], grid[2]
    nx, ny = int(grid[3]), int(grid[4])
    fx0, fy0 = (x0 - gx0) / cell, (y0 - gy0) / cell
    fx1, fy1 = (x1 - gx0) / cell, (y1 - gy0) / cell
    ix, iy = int(math.floor(fx0)), int(math.floor(fy0))
    ex, ey = int(math.floor(fx1)), int(math.floor(fy1))
    ddx, ddy = fx1 - fx0, fy1 - fy0
    step_x = 1 if ddx > 0 else -1
    step_y = 1 if ddy > 0 else -1
    if ddx != 0:
        t_dx = abs(1.0 / ddx)
        t_x = ((ix + 1) - fx0) / ddx if ddx > 0 else (fx0 - ix) / -ddx
    else:
        t_dx, t_x = math.inf, math.inf
    if ddy != 0:
        t_dy = abs(1.0 / ddy)
        t_y = ((iy + 1) - fy0) / ddy if ddy > 0 else (fy0 - iy) / -ddy
    else:
        t_dy, t_y = math.inf, math.inf
    steps = abs(ex - ix) + abs(ey - iy) + 1
    m = 0
    for _ in range(min(steps, len(cells))):
        if 0 <= ix < nx and 0 <= iy < ny:
            cells[m] = iy * nx + ix
            m += 1
        if ix == ex and iy == ey:
            break
        if t_x < t_y:
            ix += step_x
            t_x += t_dx
        else:
            iy += step_y
            t_y += t_dy
    return m
