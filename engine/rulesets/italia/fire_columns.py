"""ISD fire verdicts of many shots at once, as columns (the fast path of `fire.verdict`): bands,
the reasons' texts and the clear-arc test, each the same answers as `fire`'s one-shot functions
(tests/test_engine_target_table.py, tests/test_engine_properties.py)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat

import numpy as np
import shapely

from campo.engine.results import Band
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.fire import (
    ARTILLERY_BANDS,
    EPS_IN,
    MUSKETRY_BANDS,
    arc_clear,
    fire_reasons,
)


def arc_clear_many(board: Board, shooters: Sequence[str], targets: Sequence[str],
                   parts: Sequence[object]) -> list[bool]:
    """`fire.arc_clear` of many shots: the same GEOS operations on whole arrays (the swept
    region, its inner band, the friends it meets), so the same answers. Shots whose region's
    bounding box, shrunk, meets no friend's box are clear without them (`_surely_clear`)."""
    n = len(shooters)
    if n == 0:
        return []
    if board.settings.a10_clear_arc == "whole_arc":
        return [arc_clear(board, s, t, p) for s, t, p in zip(shooters, targets, parts)]
    rects = [board.rect(s) for s in shooters]
    reach = board.mm(6.0)
    ahead_xy = np.array(
        [[r.front_left, r.front_right, r.from_local(r.width / 2, r.depth / 2 + reach),
          r.from_local(-r.width / 2, r.depth / 2 + reach)] for r in rects], dtype=float)
    fronts = np.array([r.front_edge for r in rects], dtype=object)
    part_arr = np.array(list(parts), dtype=object)
    reach_part = shapely.distance(fronts, part_arr)
    friend = _friend_matrix(board, shooters)
    clear = _surely_clear(board, ahead_xy, part_arr, reach_part, friend)
    rest = np.nonzero(~clear)[0]
    if len(rest):
        clear[rest] = _clear_by_geos(board, fronts[rest], part_arr[rest], ahead_xy[rest],
                                     reach_part[rest], friend[rest])
    return clear.tolist()


CLEAR_BOX_SHRINK_MM = 0.25
"""How far inside the swept region's box its 0.5 mm inner band surely lies: GEOS's negative
buffer strays from the exact one by at most 1% of the distance (its input simplification),
0.005 mm here, so half that band leaves a wide margin."""


def _friend_matrix(board: Board, shooters: Sequence[str]) -> np.ndarray:
    """shot x base (index order): the base is a friend of the shot's shooter that can block
    its arc (same side, not the shooter, not a general), as `fire.arc_clear` counts them."""
    infos, names = board.infos, board.state.index.ids
    side = np.array([infos[i].side for i in names])
    general = np.array([infos[i].is_general for i in names], dtype=bool)
    shooter_at = board.positions(shooters)
    friend = side[None, :] == side[shooter_at][:, None]
    friend &= ~general[None, :]
    friend[np.arange(len(shooter_at)), shooter_at] = False
    return friend


def _surely_clear(board: Board, ahead_xy: np.ndarray, parts: np.ndarray, reach_part: np.ndarray,
                  friend: np.ndarray) -> np.ndarray:
    """Shots whose arc is clear for certain, without GEOS's region: the region (the hull of the
    front and the target's part, and the front's strip ``reach_part`` deep ahead) lies in the
    box of the front, the part and the strip; its inner band, in that box shrunk by
    `CLEAR_BOX_SHRINK_MM`; a friend whose box misses that one cannot meet the band, so GEOS's
    ``intersects`` is false for it. Only parts larger than 2 mm² (so the region's area is over
    1 and the band is a true negative buffer) in boxes wider than 1 mm qualify."""
    front = ahead_xy[:, :2]                                   # the front's two corners
    box = shapely.bounds(parts)
    lo = np.minimum(box[:, :2], front.min(axis=1))
    hi = np.maximum(box[:, 2:], front.max(axis=1))
    strip_lo = np.maximum(ahead_xy.min(axis=1), front.min(axis=1) - reach_part[:, None])
    strip_hi = np.minimum(ahead_xy.max(axis=1), front.max(axis=1) + reach_part[:, None])
    lo, hi = np.minimum(lo, strip_lo) + CLEAR_BOX_SHRINK_MM, \
        np.maximum(hi, strip_hi) - CLEAR_BOX_SHRINK_MM
    bases = shapely.bounds(board.state.index.shapes)
    meets = ((bases[None, :, 0] <= hi[:, None, 0]) & (bases[None, :, 2] >= lo[:, None, 0])
             & (bases[None, :, 1] <= hi[:, None, 1]) & (bases[None, :, 3] >= lo[:, None, 1]))
    sized = (shapely.area(parts) > 2.0) & np.all(hi - lo > 1.0 - 2 * CLEAR_BOX_SHRINK_MM, axis=1)
    return sized & ~(meets & friend).any(axis=1)


def _clear_by_geos(board: Board, fronts: np.ndarray, parts: np.ndarray, ahead_xy: np.ndarray,
                   reach_part: np.ndarray, friend: np.ndarray) -> np.ndarray:
    """`fire.arc_clear` (swept-region reading) of these shots, its GEOS operations on arrays."""
    ahead = shapely.polygons(ahead_xy)
    region = shapely.convex_hull(shapely.union(fronts, parts))
    region = shapely.union(region, shapely.intersection(ahead, shapely.buffer(fronts, reach_part)))
    shrunk = region.copy()
    big = shapely.area(region) > 1
    shrunk[big] = shapely.buffer(region[big], -0.5)
    index = board.state.index
    row, other = index.query_many(region, 0.0)
    keep = friend[row, other]
    row, other = row[keep], other[keep]
    blocked = np.zeros(len(fronts), dtype=bool)
    hit = shapely.intersects(shrunk[row], index.shapes[other])
    blocked[row[hit]] = True
    return ~blocked


def bands_many(board: Board, distances: np.ndarray, artillery: np.ndarray) -> list[Band | None]:
    """`band_of` of many distances at once: the same comparisons, in numpy."""
    inclusive = board.settings.a7_band_edges == "upper_inclusive"
    d = np.asarray(distances, dtype=float)
    out = np.full(len(d), None, dtype=object)
    for bands, rows in ((ARTILLERY_BANDS, np.asarray(artillery, dtype=bool)),
                        (MUSKETRY_BANDS, ~np.asarray(artillery, dtype=bool))):
        left = rows.copy()
        for upper, band in bands:
            hit = left & ((d <= upper + EPS_IN) if inclusive else (d < upper - EPS_IN))
            out[hit] = band
            left &= ~hit
    return out.tolist()


def tenths_texts(values: np.ndarray, prefix: str = "", suffix: str = "") -> list[str]:
    """``[f"{prefix}{v:.1f}{suffix}" for v in values]``, the same strings, formatting each
    tenth once.

    ``rint(v * 10)`` is the tenth ``.1f`` prints whenever ``v * 10`` is not within 1e-7 of a
    half (the product's rounding error is far smaller for the distances of a table); those
    few, negative values that print as "-0.0", and huge or non-finite values are formatted by
    Python."""
    values = np.asarray(values, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = values * 10.0
        tenths = np.rint(scaled)
        doubtful = ~(np.abs(scaled - np.floor(scaled) - 0.5) > 1e-7) | ~(np.abs(scaled) < 1e8)
    doubtful |= np.signbit(values) & (tenths == 0)    # Python prints "-0.0"
    out = _tenth_texts(np.where(doubtful, 0, tenths).astype(np.int64), prefix, suffix)
    for k in np.nonzero(doubtful)[0].tolist():
        out[k] = f"{prefix}{values[k]:.1f}{suffix}"
    return out


def _tenth_texts(keys: np.ndarray, prefix: str, suffix: str) -> list[str]:
    """``f"{prefix}{k / 10:.1f}{suffix}"`` of each whole number of tenths, each distinct one
    formatted once and looked up in a table over the keys' span (a table's distances span a few
    hundred tenths), or in a dict when the span is wide."""
    if not len(keys):
        return []
    low = int(keys.min())
    span = int(keys.max()) - low + 1
    if span > 4 * len(keys) + 1024:
        listed = keys.tolist()
        text = {k: f"{prefix}{k / 10:.1f}{suffix}" for k in set(listed)}
        return list(map(text.__getitem__, listed))
    at = keys - low
    present = np.zeros(span, dtype=bool)
    present[at] = True
    used = np.flatnonzero(present)
    table = np.empty(span, dtype=object)
    table[used] = [f"{prefix}{k / 10:.1f}{suffix}" for k in (used + low).tolist()]
    return table[at].tolist()


def fire_reasons_many(in_arc: np.ndarray, in_range: np.ndarray, margins: np.ndarray,
                      sight: np.ndarray, clear: np.ndarray) -> list[list[str]]:
    """`fire_reasons` of many shots at once, one new list per row (`TargetTable` hands each
    row's list out as it is): the rows of each combination of failed tests are built together
    (the out-of-range text, when there is one, between the arc reason and the others)."""
    code = ((~np.asarray(in_arc, dtype=bool)).astype(np.int64)
            | (~np.asarray(in_range, dtype=bool)).astype(np.int64) << 1
            | (~np.asarray(sight, dtype=bool)).astype(np.int64) << 2
            | (~np.asarray(clear, dtype=bool)).astype(np.int64) << 3)
    short = -np.asarray(margins, dtype=float)
    out = np.empty(len(code), dtype=object)
    order = np.argsort(code, kind="stable")
    grouped = code[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]]) if len(code) else []
    for first, end in zip(list(starts), [*list(starts)[1:], len(code)]):
        c, rows = int(grouped[first]), order[first:end]
        fixed = fire_reasons(not c & 1, True, 0.0, not c & 4, not c & 8)
        if c & 2:
            head, tail = (fixed[:1], fixed[1:]) if c & 1 else ([], fixed)
            texts = tenths_texts(short[rows], "out of range: ", " in short")
            lists = map(list, zip(*map(repeat, head), texts, *map(repeat, tail)))
        else:
            lists = map(list, repeat(fixed, end - first))
        out[rows] = np.fromiter(lists, dtype=object, count=end - first)
    return out.tolist()
