"""The compiled lane test of a charge's sweep (`lane_kernel.lanes_missed`) against `_lane`.

A wheel the kernel drops must be one `charges._lane` refuses from the wheeled base's own floats
(else a charge's answer could change). Random poses on rotated tables, and targets placed with
a corner exactly on the lane's side lines or on the front line (ties), both ways of wheeling."""

from __future__ import annotations

import random

import numpy as np

from campo.engine.geometry.motion import wheel
from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.attila.charges import LANE_SPARE_MM, MISS_MARGIN_MM, _lane
from campo.engine.rulesets.attila.lane_kernel import lanes_missed

TURNS = [k * 5.0 * sign for k in range(1, 19) for sign in (1, -1)]


def _missed(start: Rect, goal: Rect, miss: float) -> list[bool]:
    (lx, ly), (rx, ry) = start.front_left, start.front_right
    return lanes_missed(np.array(TURNS), start.heading_deg, start.width, lx, ly, rx, ry,
                        np.array(goal.corners), miss).tolist()


def _check(start: Rect, goal: Rect) -> tuple[int, int]:
    """(wheels dropped, wheels `_lane` refuses); fails if a dropped wheel is not refused."""
    dropped = refused = 0
    for turn, m in zip(TURNS, _missed(start, goal, MISS_MARGIN_MM + LANE_SPARE_MM)):
        lane = _lane(wheel(start, turn), goal)
        refused += lane is None
        if m:
            dropped += 1
            assert lane is None, (start, goal, turn)
    return dropped, refused


def test_dropped_wheels_are_refused_by_the_exact_lane_on_random_tables() -> None:
    rng = random.Random(7)
    dropped = refused = 0
    for _ in range(300):
        start = Rect(rng.uniform(0, 2000), rng.uniform(0, 1200), rng.uniform(0, 360),
                     rng.choice([31.0, 40.0, 60.0]), rng.choice([20.0, 30.0]))
        goal = Rect(start.cx + rng.uniform(-300, 300), start.cy + rng.uniform(-300, 300),
                    rng.uniform(0, 360), 40.0, rng.choice([20.0, 30.0, 40.0]))
        d, r = _check(start, goal)
        dropped, refused = dropped + d, refused + r
    assert dropped > 0.9 * refused     # it does the work: nearly every refusal is found


def test_targets_on_the_lane_edges_are_kept() -> None:
    # a wheeled front's lane with a target corner exactly on a side line or on the front line
    for heading in (0.0, 33.0, 90.0, 217.5):
        start = Rect(500.0, 400.0, heading, 40.0, 20.0)
        for turn in (15.0, -15.0, 45.0, -90.0):
            w = wheel(start, turn)
            for corner in (w.front_left, w.front_right):
                fx, fy = w.front
                ahead = Rect(corner[0] + 30 * fx, corner[1] + 30 * fy, w.heading_deg, 40.0, 20.0)
                # a goal whose corner sits on the lane's side line / on the front line
                for goal in (ahead.moved(ahead.cx - ahead.front_left[0] + corner[0] - ahead.cx,
                                         ahead.cy - ahead.front_left[1] + corner[1] - ahead.cy),
                             Rect(corner[0], corner[1], w.heading_deg + 45.0, 40.0, 20.0)):
                    _check(start, goal)
                    idx = TURNS.index(turn)
                    assert not _missed(start, goal, MISS_MARGIN_MM + LANE_SPARE_MM)[idx]


def test_a_target_straight_ahead_is_never_dropped_and_one_behind_always() -> None:
    start = Rect(500.0, 400.0, 90.0, 40.0, 20.0)
    ahead = Rect(500.0, 500.0, 270.0, 40.0, 20.0)
    behind = Rect(500.0, 200.0, 90.0, 40.0, 20.0)
    small = [abs(t) <= 10.0 for t in TURNS]
    assert not any(m for m, s in zip(_missed(start, ahead, 1e-4), small) if s)
    assert all(_missed(start, behind, 1e-4)[:12])
