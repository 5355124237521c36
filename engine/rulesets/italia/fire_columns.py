"""ISD fire verdicts of many shots at once, as columns (the fast path of `fire.verdict`): bands,
the reasons' texts and the clear-arc test, each the same answers as `fire`'s one-shot functions
(tests/test_engine_target_table.py, tests/test_engine_properties.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely

from engine.results import Band
from engine.rulesets.italia.board import Board
from engine.rulesets.italia.fire import (
    ARTILLERY_BANDS,
    EPS_IN,
    MUSKETRY_BANDS,
    arc_clear,
    fire_reasons,
)


def arc_clear_many(board: Board, shooters: Sequence[str], targets: Sequence[str],
                   parts: Sequence[object]) -> list[bool]:
    """`fire.arc_clear` of many shots: the same GEOS operations on whole arrays (the swept
    region, its inner band, the friends it meets), so the same answers."""
    n = len(shooters)
    if n == 0:
        return []
    if board.settings.a10_clear_arc == "whole_arc":
        return [arc_clear(board, s, t, p) for s, t, p in zip(shooters, targets, parts)]
    rects = [board.rect(s) for s in shooters]
    fronts = np.array([r.front_edge for r in rects], dtype=object)
    part_arr = np.array(list(parts), dtype=object)
    reach = board.mm(6.0)
    ahead = shapely.polygons(np.array(
        [[r.front_left, r.front_right, r.from_local(r.width / 2, r.depth / 2 + reach),
          r.from_local(-r.width / 2, r.depth / 2 + reach)] for r in rects], dtype=float))
    region = shapely.convex_hull(shapely.union(fronts, part_arr))
    region = shapely.union(region, shapely.intersection(
        ahead, shapely.buffer(fronts, shapely.distance(fronts, part_arr))))
    shrunk = region.copy()
    big = shapely.area(region) > 1
    shrunk[big] = shapely.buffer(region[big], -0.5)
    index = board.state.index
    row, other = index.query_many(region, 0.0)
    names = index.ids
    infos = board.infos
    side = np.array([infos[i].side for i in names])
    general = np.array([infos[i].is_general for i in names], dtype=bool)
    shooter_at = board.positions(shooters)
    friend = (other != shooter_at[row]) & (side[other] == side[shooter_at[row]]) & ~general[other]
    row, other = row[friend], other[friend]
    blocked = np.zeros(n, dtype=bool)
    hit = shapely.intersects(shrunk[row], index.shapes[other])
    blocked[row[hit]] = True
    return (~blocked).tolist()


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
    keys = np.where(doubtful, 0, tenths).astype(np.int64).tolist()
    text = {k: f"{prefix}{k / 10:.1f}{suffix}" for k in set(keys)}
    out = [text[k] for k in keys]
    for k in np.nonzero(doubtful)[0].tolist():
        out[k] = f"{prefix}{values[k]:.1f}{suffix}"
    return out


def fire_reasons_many(in_arc: np.ndarray, in_range: np.ndarray, margins: np.ndarray,
                      sight: np.ndarray, clear: np.ndarray) -> list[list[str]]:
    """`fire_reasons` of many shots at once, one new list per row (`TargetTable` hands each
    row's list out as it is)."""
    code = ((~np.asarray(in_arc, dtype=bool)).astype(np.int64)
            | (~np.asarray(in_range, dtype=bool)).astype(np.int64) << 1
            | (~np.asarray(sight, dtype=bool)).astype(np.int64) << 2
            | (~np.asarray(clear, dtype=bool)).astype(np.int64) << 3)
    fixed = [fire_reasons(not c & 1, True, 0.0, not c & 4, not c & 8) for c in range(16)]
    head = [f[:1] if c & 1 else [] for c, f in enumerate(fixed)]    # what comes before the
    tail = [f[1:] if c & 1 else f for c, f in enumerate(fixed)]     # range reason, and after
    short = np.nonzero(code & 2)[0]
    next_text = iter(tenths_texts(-np.asarray(margins, dtype=float)[short], "out of range: ",
                                  " in short")).__next__          # the short rows' texts, in order
    return [[*head[c], next_text(), *tail[c]] if c & 2 else fixed[c][:] for c in code.tolist()]
