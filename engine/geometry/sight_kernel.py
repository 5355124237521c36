"""Compiled (numba) sight-line tests against many rectangular bodies, shot by shot.

A battle of 200 bases asks some 7,000 sight questions of about 36 sampled lines each. Testing
every line against every body its bounding box meets (numpy) costs most of an analysis; here each
line walks a uniform grid of cells from its start (so the nearest body, the likeliest blocker, is
met first), stops at the first body that blocks it, and tries first the body that blocked the
shot's previous line. A shot stops at its first line clear of bodies.

The pair test is `segments.segments_near_quads`'s arithmetic, operation for operation, so the
answers are those of the numpy path (tests/test_engine_sight_kernel.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

GRID_EPS = 0.01   # mm: bodies are registered in every cell their box (grown by this) meets


@njit(cache=True)
def _psd(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """`segments._point_segment_distance` for one point and one segment."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = ((px - ax) * dx + (py - ay) * dy) / length2 if length2 > 0 else 0.0
    t = min(max(t, 0.0), 1.0)
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


@njit(cache=True)
def segment_near_quad(x0: float, y0: float, x1: float, y1: float, q: np.ndarray,
                      reach: float) -> bool:
    """`segments._segments_near_quads` for one segment and one quad (4 x 2)."""
    all_pos0 = all_neg0 = all_pos1 = all_neg1 = True
    crossing = False
    dx, dy = x1 - x0, y1 - y0
    for i in range(4):
        ax, ay = q[i, 0], q[i, 1]
        j = (i + 1) % 4
        bx, by = q[j, 0], q[j, 1]
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
                crossing = True
        elif o1 * o2 <= 0 and s0 * s1 <= 0:
            crossing = True
    if all_pos0 or all_neg0 or all_pos1 or all_neg1 or crossing:
        return True
    if reach <= 0:
        return False
    d = math.inf
    for i in range(4):
        ax, ay = q[i, 0], q[i, 1]
        j = (i + 1) % 4
        bx, by = q[j, 0], q[j, 1]
        d = min(d, _psd(x0, y0, ax, ay, bx, by), _psd(x1, y1, ax, ay, bx, by),
                _psd(ax, ay, x0, y0, x1, y1), _psd(bx, by, x0, y0, x1, y1))
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


@njit(cache=True)
def _line_blocked(x0: float, y0: float, x1: float, y1: float, reach: float, shooter: int,
                  target: int, touch_row: int, ignore: int, quads: np.ndarray, centres: np.ndarray,
                  radii: np.ndarray, own: np.ndarray, near_own: np.ndarray, touch: np.ndarray,
                  over: np.ndarray, grid: np.ndarray, starts: np.ndarray, items: np.ndarray,
                  stamp: np.ndarray, mark: int, hint: int) -> int:
    """The first body found blocking the line (-1: none); see `first_body_clear_lines`."""
    if hint >= 0 and _blocks(x0, y0, x1, y1, reach, shooter, target, touch_row, ignore, hint, quads,
                             centres, radii, own, near_own, touch, over):
        return hint
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
    for _ in range(steps):
        if 0 <= ix < nx and 0 <= iy < ny:
            c = iy * nx + ix
            for k in range(starts[c], starts[c + 1]):
                b = items[k]
                if stamp[b] == mark:
                    continue
                stamp[b] = mark
                if b != hint and _blocks(x0, y0, x1, y1, reach, shooter, target, touch_row, ignore, b,
                                         quads, centres, radii, own, near_own, touch, over):
                    return b
        if ix == ex and iy == ey:
            break
        if t_x < t_y:
            ix += step_x
            t_x += t_dx
        else:
            iy += step_y
            t_y += t_dy
    return -1


@njit(cache=True)
def _blocks(x0: float, y0: float, x1: float, y1: float, reach: float, shooter: int, target: int,
            touch_row: int, ignore: int, b: int, quads: np.ndarray, centres: np.ndarray, radii: np.ndarray,
            own: np.ndarray, near_own: np.ndarray, touch: np.ndarray, over: np.ndarray) -> bool:
    """Whether body ``b`` blocks the line of this shot (`SightField._block_by_bodies_once`):
    never the firer's own bodies, the target, or bodies fired over; bodies touching the target
    or the firer's battery only block the line itself, not the corridor around it."""
    if b == target or own[shooter, b] or ignore == 2 or (ignore == 1 and over[shooter, b]):
        return False
    r = reach
    if r > 0 and (near_own[shooter, b] or (touch_row >= 0 and touch[touch_row, b])):
        r = 0.0
    if _psd(centres[b, 0], centres[b, 1], x0, y0, x1, y1) > radii[b] + r + 1e-9:
        return False
    return segment_near_quad(x0, y0, x1, y1, quads[b], r)


@njit(cache=True)
def first_body_clear_lines(origins: np.ndarray, ends: np.ndarray, end_starts: np.ndarray,
                           shot_shooter: np.ndarray, shot_target: np.ndarray,
                           shot_touch_row: np.ndarray, shot_reach: np.ndarray,
                           shot_ignore: np.ndarray, todo: np.ndarray, todo_from: np.ndarray,
                           quads: np.ndarray,
                           centres: np.ndarray, radii: np.ndarray, own: np.ndarray,
                           near_own: np.ndarray, touch: np.ndarray, over: np.ndarray,
                           grid: np.ndarray, starts: np.ndarray, items: np.ndarray) -> np.ndarray:
    """For each shot ``todo[i]``, the first of its lines from line ``todo_from[i]`` on that no
    body blocks (-1: none). Shot k's lines run end by end (``ends[end_starts[k]:end_starts[k + 1]]``), each
    end from every origin of its shooter (``origins[shooter]``, 3 x 2): line l joins origin
    l % 3 to end l // 3.

    ``shot_target``: the target's body index (-1: not a body); ``shot_touch_row``: its row in
    ``touch`` (the bodies touching it); ``shot_ignore``: 0 none, 1 the firer's ``over`` row, 2
    every body (fired over, ISD A18)."""
    out = np.full(len(todo), -1, dtype=np.int64)
    stamp = np.full(len(quads), -1, dtype=np.int64)
    mark = 0
    for i in range(len(todo)):
        k = todo[i]
        s = shot_shooter[k]
        n_origins = origins.shape[1]
        lines = (end_starts[k + 1] - end_starts[k]) * n_origins
        hint = -1
        for line in range(todo_from[i], lines):
            e = end_starts[k] + line // n_origins
            o = line % n_origins
            mark += 1
            b = _line_blocked(origins[s, o, 0], origins[s, o, 1], ends[e, 0], ends[e, 1],
                              shot_reach[k], s, shot_target[k], shot_touch_row[k],
                              shot_ignore[k], quads, centres, radii, own, near_own, touch, over,
                              grid, starts, items, stamp, mark, hint)
            if b < 0:
                out[i] = line
                break
            hint = b
    return out
