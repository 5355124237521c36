"""The compiled depth of sight lines in woods gives `segments.clipped_lengths` and
`segments.convex_chords` to the bit (engine/geometry/depth_kernel.py): random lines and boxes,
lines along box and polygon edges, through corners, points and vertical or horizontal lines."""

from __future__ import annotations

import numpy as np

from campo.engine.geometry.depth_kernel import convex_chord_lengths, deep_in_boxes
from campo.engine.geometry.segments import clipped_lengths, convex_chords


def _lines(rng: np.random.Generator, n: int) -> np.ndarray:
    xy = rng.uniform(-50, 450, (n, 2, 2))
    xy[: n // 10, 1, 0] = xy[: n // 10, 0, 0]                  # vertical
    xy[n // 10: n // 5, 1, 1] = xy[n // 10: n // 5, 0, 1]      # horizontal
    xy[n // 5: n // 5 + 20, 1] = xy[n // 5: n // 5 + 20, 0]    # points
    xy[n // 5 + 20: n // 5 + 60, :, 1] = 100.0                 # along a box edge
    xy[n // 5 + 60: n // 5 + 80, 0] = [100.0, 100.0]           # from a corner
    return xy


def test_deep_in_boxes_is_clipped_lengths() -> None:
    rng = np.random.default_rng(8)
    xy = _lines(rng, 3000)
    boxes = np.array([[100.0, 100.0, 250.0, 180.0], [0.0, 300.0, 60.0, 420.0],
                      [200.0, -10.0, 400.0, 400.0]])
    lines, areas = deep_in_boxes(xy, boxes, 50.0)
    want_l, want_a = [], []
    for a, box in enumerate(boxes):
        deep = np.nonzero(clipped_lengths(xy[:, 0], xy[:, 1], np.broadcast_to(box, (len(xy), 4)))
                          > 50.0)[0]
        want_l.append(deep)
        want_a.append(np.full(len(deep), a))
    assert lines.tolist() == np.concatenate(want_l).tolist()
    assert areas.tolist() == np.concatenate(want_a).tolist()


def test_convex_chord_lengths_are_convex_chords() -> None:
    rng = np.random.default_rng(9)
    xy = _lines(rng, 3000)
    v = np.array([[100.0, 100.0], [300.0, 120.0], [330.0, 260.0], [120.0, 240.0]])
    e = np.roll(v, -1, axis=0) - v
    edges = np.concatenate([v, np.stack([e[:, 1], -e[:, 0]], axis=1)], axis=1)   # outward
    want = convex_chords(xy[:, 0], xy[:, 1], edges)
    got = convex_chord_lengths(xy, edges)
    assert np.array_equal(got, want)
    assert (want > 0).sum() > 100 and (want == 0).sum() > 100
