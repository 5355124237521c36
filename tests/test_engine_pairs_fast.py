"""The batch pair kernels give, bit for bit, the one-pair reference geometry's answers.

`engine.geometry.pair_kernel` measures every (shooter, base) pair at once with shortcuts (edge
data once per shape, sign tests without division, distances skipped by lower bounds); the
reference is `engine.geometry.arc_kernel`'s one-pair functions applied pair by pair, as the
kernel did before. Cases: random arcs and bases on rotated tables, bases on the arcs' boundaries
and near the 2 TOL margins, bases square to the front (tied corners), off to a side (a front end
nearest), on or across the front line, parallelograms and a base with a zero-length edge.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tests.test_engine_arc_kernel as arc_cases
from campo.engine.geometry.arc_kernel import (
    FALLBACK,
    MAX_VERTS,
    THRESHOLD_TOL,
    TOL,
    clip_to_arc,
    front_distance,
    meets_status,
    near_status,
    ring_centroid,
    within_status,
)
from campo.engine.geometry.pair_kernel import candidate_pairs, measure_pairs
from campo.engine.geometry.rect import Rect, rotate

LIMIT = 60.0 + 1e-6     # mm: the reach of the fronts in the candidate cases


def plain_measure(pair_s, pair_b, near, whole, fronts, corners, mm_per_in, thresholds):
    """`measure_pairs` one pair at a time through the reference functions."""
    n = len(pair_s)
    status = np.zeros(n, dtype=np.int8)
    in_arc = np.zeros(n, dtype=np.bool_)
    dist = np.zeros(n)
    count = np.zeros(n, dtype=np.int64)
    verts = np.zeros((n, MAX_VERTS, 2))
    centre = np.zeros((n, 2))
    part, cur, nxt = (np.empty((MAX_VERTS, 2)) for _ in range(3))
    side = np.empty(MAX_VERTS)
    for k, (s, b) in enumerate(zip(pair_s.tolist(), pair_b.tolist())):
        rect, arc = corners[b].copy(), near[s].copy()
        w = within_status(arc, rect)
        if w == 0:
            arc = whole[s].copy()
            w = within_status(arc, rect)
        if w < 0:
            status[k] = FALLBACK
            continue
        m = 4
        if w == 1:
            m = clip_to_arc(rect, arc, part, cur, nxt, side)
            if m < 3:
                status[k] = FALLBACK
                continue
            in_arc[k] = True
        else:
            part[:4] = rect
        verts[k, :m] = part[:m]
        d = front_distance(*fronts[s].ravel().tolist(), part, m)
        if d < 0:
            status[k] = FALLBACK
            continue
        if (np.abs(d / mm_per_in - thresholds[s]) <= THRESHOLD_TOL).any():
            status[k] = FALLBACK
        count[k], dist[k] = m, d
        centre[k] = ring_centroid(part, m)
    return status, in_arc, dist, count, verts, centre


def plain_candidates(whole, fronts, limits, corners, eligible):
    """`candidate_pairs` one pair at a time through the reference functions."""
    out = []
    for s in range(len(whole)):
        for b in np.nonzero(eligible[s])[0].tolist():
            st = meets_status(whole[s].copy(), corners[b].copy())
            if st != 1:
                near = near_status(*fronts[s].ravel().tolist(), corners[b].copy(), limits[s])
                st = 1 if near == 1 else (-1 if near < 0 else st)
            if st != 0:
                out.append((s, b, st < 0))
    got = np.array(out, dtype=np.int64).reshape(-1, 3)
    return got[:, 0], got[:, 1], got[:, 2].astype(bool)


def _same(got, want) -> None:
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()


def _turned(points: np.ndarray, degrees: float) -> np.ndarray:
    """The points turned about (400, 400): a rotated table."""
    a = math.radians(degrees)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return (points - 400.0) @ rot.T + 400.0


def _special_rects(near: np.ndarray, fronts: np.ndarray, s: int) -> list:
    """Bases that exercise the shortcuts' margins around shooter ``s``."""
    f0, f1 = fronts[s]
    along = (f1 - f0) / np.linalg.norm(f1 - f0)
    ahead = np.array([-along[1], along[0]])
    if np.dot(ahead, near[s].mean(axis=0) - f0) < 0:
        ahead = -ahead
    heading = math.degrees(math.atan2(ahead[1], ahead[0]))
    mid = (f0 + f1) / 2
    out = []
    for dist in (30.0, 120.0, 20.0, 19.0, 0.0):      # square to the front: tied corners; on it
        c = mid + ahead * dist
        out.append(Rect(float(c[0]), float(c[1]), heading, 40.0, 40.0).corners)
    for off in (150.0, -150.0, 300.0):               # off to a side: a front end is nearest
        for dist in (10.0, 60.0, -10.0):
            c = mid + along * off + ahead * dist
            out.append(Rect(float(c[0]), float(c[1]), heading + 30.0, 80.0, 40.0).corners)
    # a corner 1, 1.5, 2, 2.5 and 3 TOL inside a side ray of the arc
    left, right, far_right, far_left = near[s]
    ray = (far_left - left) / np.linalg.norm(far_left - left)
    inward = np.array([-ray[1], ray[0]])
    if np.dot(inward, near[s].mean(axis=0) - left) < 0:
        inward = -inward
    for k in (1.0, 1.5, 2.0, 2.5, 3.0):
        corner = left + ray * 80.0 + inward * k * TOL
        c = corner + inward * math.sqrt(2) * 20.0
        out.append(Rect(float(c[0]), float(c[1]),
                        math.degrees(math.atan2(ray[1], ray[0])) + 45.0, 40.0, 40.0).corners)
    return out


def _behind(fronts: np.ndarray, s: int) -> list:
    """Bases behind shooter ``s``'s front at about LIMIT from it (`near_status`'s margins)."""
    f0, f1 = fronts[s]
    back = np.array(rotate(tuple((f1 - f0) / np.linalg.norm(f1 - f0)), -90.0))
    heading = math.degrees(math.atan2(back[1], back[0]))
    out = []
    for gap in (LIMIT - 1e-6, LIMIT, LIMIT + 1e-8, LIMIT + 1.0):
        c = (f0 + f1) / 2 + back * (gap + 20.0)
        out.append(Rect(float(c[0]), float(c[1]), heading, 80.0, 40.0).corners)
    return out


def _parallelograms(rng: np.random.Generator, n: int) -> list:
    out = []
    for _ in range(n):
        o = rng.uniform(100, 700, 2)
        u, v = rng.uniform(-60, 60, 2), rng.uniform(-60, 60, 2)
        out.append(np.array([o, o + u, o + u + v, o + v]))
    return out


def _case(seed: int, turn: float, odd_shapes: bool):
    rng = np.random.default_rng(seed)
    near, whole, fronts = arc_cases._arcs(rng, 16)
    rects = list(arc_cases._random_rects(rng, 120))
    for s in range(16):
        rects += arc_cases._boundary_rects(near, fronts, s) + _special_rects(near, fronts, s)
        rects += arc_cases._boundary_rects(whole, fronts, s) + _special_rects(whole, fronts, s)
        rects += _behind(fronts, s)
    if odd_shapes:
        rects += _parallelograms(rng, 40)
    corners = _turned(np.array(rects, dtype=float), turn)
    near, whole, fronts = _turned(near, turn), _turned(whole, turn), _turned(fronts, turn)
    return rng, near, whole, fronts, corners


@pytest.mark.parametrize("seed,turn,odd_shapes", [(1, 0.0, False), (2, 90.0, False),
                                                   (3, 37.0, True), (4, 211.5, False)])
def test_measure_pairs_are_the_reference_ones(seed: int, turn: float, odd_shapes: bool) -> None:
    rng, near, whole, fronts, corners = _case(seed, turn, odd_shapes)
    pair_s = np.repeat(np.arange(len(near)), len(corners)).astype(np.int64)
    pair_b = np.tile(np.arange(len(corners)), len(near)).astype(np.int64)
    thresholds = np.concatenate([rng.uniform(0, 30, (len(near), 3)),
                                 np.full((len(near), 1), np.nan)], axis=1)
    got = measure_pairs(pair_s, pair_b, near, whole, fronts, corners, 25.4, thresholds)
    want = plain_measure(pair_s, pair_b, near, whole, fronts, corners, 25.4, thresholds)
    _same(got, want)
    status, in_arc, _, count, _, _ = want
    ok = status != FALLBACK
    # the cases reach every path: whole bases in and out of arc, clipped parts, fallbacks
    assert (ok & in_arc & (count == 4)).any() and (ok & ~in_arc).any()
    assert (ok & (count != 4)).any() and (~ok).any()


def test_a_base_with_a_zero_length_edge() -> None:
    """Such a base turns the range shortcut off for the batch: still the reference answers."""
    rng, near, whole, fronts, corners = _case(6, 15.0, False)
    corners[3, 1] = corners[3, 0]
    pair_s = np.repeat(np.arange(len(near)), len(corners)).astype(np.int64)
    pair_b = np.tile(np.arange(len(corners)), len(near)).astype(np.int64)
    thresholds = np.full((len(near), 1), np.nan)
    _same(measure_pairs(pair_s, pair_b, near, whole, fronts, corners, 25.4, thresholds),
          plain_measure(pair_s, pair_b, near, whole, fronts, corners, 25.4, thresholds))


@pytest.mark.parametrize("seed,turn", [(7, 0.0), (8, 123.0)])
def test_candidate_pairs_are_the_reference_ones(seed: int, turn: float) -> None:
    rng, near, whole, fronts, corners = _case(seed, turn, True)
    limits = np.where(rng.uniform(size=len(near)) < 0.5, LIMIT, rng.uniform(20.0, 400.0, len(near)))
    eligible = rng.uniform(size=(len(near), len(corners))) < 0.8
    got = candidate_pairs(whole, fronts, limits, corners, eligible)
    want = plain_candidates(whole, fronts, limits, corners, eligible)
    _same(got, want)
    assert want[2].any() and not want[2].all()        # some pairs too close to call
    got = candidate_pairs(near, fronts, limits, corners, eligible)   # arcs cut short
    _same(got, plain_candidates(near, fronts, limits, corners, eligible))
