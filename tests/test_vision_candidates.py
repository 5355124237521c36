"""Cheaper candidate search: squares from contours (quads.py), halved and windowed scans, and
the windows where a marker can be (regions.py), each checked against the plain full search."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.test_vision_detection import DICT, corner_error, draw_marker, scene, square
from campo.vision.detection import DetectorSettings, MarkerDetector, Window, merge_windows
from campo.vision.detection.detector import _all_codes, small_marker_settings
from campo.vision.detection.quads import find_quads, identify, rotated_codes
from campo.vision.detection.regions import marker_windows


def ids_of(found) -> list[int]:
    return sorted(m for m, _ in found)


def test_contour_finder_reads_what_aruco_reads():
    img, truth = scene()
    aruco = MarkerDetector("DICT_4X4_250").detect(img)
    contours = MarkerDetector("DICT_4X4_250", DetectorSettings(finder="contours")).detect(img)
    assert sorted(d.marker_id for d in contours) == sorted(d.marker_id for d in aruco) == sorted(truth)
    assert corner_error(contours, truth) < 0.2


def test_contour_finder_on_a_blurred_threshold_reads_noisy_markers_in_place():
    """`denoise_px` (dim light): contours of a 2 x 2 box-blurred frame, the blur's half-pixel shift
    undone, so the rough squares sit on the markers (edges are fitted from them)."""
    img, truth = scene(side=19.0, noise=8.0, seed=3)
    settings = DetectorSettings(finder="contours", denoise_px=2, adaptive_win_min=13, adaptive_win_max=13)
    detector = MarkerDetector("DICT_4X4_250", settings)
    read, _ = detector.scan(img)
    assert sorted(m for m, _ in read) == sorted(truth)
    offsets = np.stack([c.mean(0) - truth[m].mean(0) for m, c in read])
    assert np.abs(offsets.mean(0)).max() < 0.2  # (0.5 px without the correction)
    dets = detector.detect(img)
    assert sorted(d.marker_id for d in dets) == sorted(truth)
    assert corner_error(dets, truth) < 0.3


def test_contour_finder_reads_small_markers_upsampled():
    img, truth = scene(side=11.0, blur=0.6, noise=2.0, seed=5)
    up = MarkerDetector("DICT_4X4_250", DetectorSettings(min_side_px=8, upsample=3.0, finder="contours")).detect(img)
    assert len(up) >= len(truth) - 1
    assert all(d.marker_id in truth for d in up)
    assert max(np.linalg.norm(d.centre_px - truth[d.marker_id].mean(0)) for d in up) < 0.15


def test_identify_gives_arucos_ids_and_corner_order_in_every_rotation():
    canvas = np.full((260, 640), 120.0, np.float32)
    placed = {}
    for k, angle in enumerate([0.0, 90.0, 180.0, 270.0, 33.0]):
        c = square(70 + 125 * k, 130, 48, angle)
        draw_marker(canvas, 5 + 40 * k, c)
        placed[5 + 40 * k] = c
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    corners, ids, _ = cv2.aruco.ArucoDetector(DICT, cv2.aruco.DetectorParameters()).detectMarkers(img)
    ref = {int(i): np.asarray(c, float).reshape(4, 2) for i, c in zip(np.asarray(ids).reshape(-1), corners)}
    assert sorted(ref) == sorted(placed)
    quads = find_quads(img, window=13, constant=7, min_side_px=20, max_side_px=100, accuracy=0.05)
    got, rolled = identify(img, quads, rotated_codes(_all_codes("DICT_4X4_250")), grow_px=1.0)
    read = {int(m): c for m, c in zip(got, rolled) if m >= 0}
    assert sorted(read) == sorted(placed)
    for m, c in read.items():  # corner 0 is the marker's top-left, as ArucoDetector gives it
        assert np.abs(c - placed[m]).max() < 1.5
        assert np.abs(c - ref[m]).max() < 1.5


@pytest.mark.parametrize("finder", ["aruco", "contours"])
def test_packed_windows_find_what_the_whole_image_finds(finder):
    """Many windows are searched as one packed image: the same squares, the same corners."""
    img, truth = scene(side=12.0, blur=0.6, noise=2.0, seed=3)
    settings = small_marker_settings(DetectorSettings(min_side_px=8, finder=finder, expected_ids=frozenset(truth)), 2.0, 8)
    detector = MarkerDetector("DICT_4X4_250", settings)
    h, w = img.shape
    whole_read, _ = detector.scan(img, [Window(0, 0, w, h)])
    wins = [Window.around(c, 18) for c in truth.values()]
    assert len(merge_windows(wins)) > 1
    read, _ = detector.scan(img, wins)
    assert ids_of(read) == ids_of(whole_read) and len(read) >= len(truth) - 2
    by_id = dict(whole_read)
    assert max(float(np.abs(c - by_id[m]).max()) for m, c in read) < 1e-6
    dets = detector.detect(img, wins)
    assert {d.marker_id for d in dets} <= set(truth) and len(dets) >= len(truth) - 1


def test_halved_search_reads_big_markers_with_full_size_corners():
    img, truth = scene(side=44.0, blur=0.8, noise=3.0, seed=2)
    halved = MarkerDetector("DICT_4X4_250", DetectorSettings(upsample=0.5, min_side_px=24, finder="contours"))
    read, _ = halved.scan(img)
    assert ids_of(read) == sorted(truth)
    assert max(float(np.abs(c - truth[m]).max()) for m, c in read) < 44.0 / 6 / 2  # rough: within half a cell
    assert corner_error(halved.finish(img, read, []), truth) < 0.2  # refined on the full frame
    with pytest.raises(ValueError, match="power of 1/2"):
        MarkerDetector("DICT_4X4_250", DetectorSettings(upsample=0.3)).scan(img)


def test_marker_windows_hold_every_marker_whole_and_skip_plain_table():
    img, truth = scene(side=12.0, blur=0.6, noise=2.0, seed=4)
    h, w = img.shape
    wins = marker_windows(img, Window(0, 0, w, h), black=20.0, white=235.0, side_px=12.0)
    for c in truth.values():
        lo, hi = c.min(0), c.max(0)
        assert any(wi.x0 <= lo[0] - 2 and hi[0] + 2 < wi.x1 and wi.y0 <= lo[1] - 2 and hi[1] + 2 < wi.y1 for wi in wins)
    assert sum(wi.area for wi in wins) < 0.35 * w * h
    assert all(not a.overlaps(b) for i, a in enumerate(wins) for b in wins[i + 1:])
    plain = np.full((200, 300), 95, np.uint8)
    assert marker_windows(plain, Window(0, 0, 300, 200), black=20.0, white=235.0, side_px=12.0) == []


def test_merge_windows_leaves_no_overlap_and_covers_every_window():
    rng = np.random.default_rng(0)
    for _ in range(200):
        wins = []
        for _ in range(int(rng.integers(1, 25))):
            x, y = rng.integers(0, 200, 2)
            ww, hh = rng.integers(1, 40, 2)
            wins.append(Window(int(x), int(y), int(x + ww), int(y + hh)))
        out = merge_windows(wins)
        assert all(not a.overlaps(b) for i, a in enumerate(out) for b in out[i + 1:])
        assert all(any(o.x0 <= wi.x0 and o.y0 <= wi.y0 and wi.x1 <= o.x1 and wi.y1 <= o.y1 for o in out) for wi in wins)
        assert sum(o.area for o in out) <= 250 * 250


def test_contour_finder_with_templates_keeps_ids_to_the_expected_ones():
    img, truth = scene(side=11.0, blur=1.0, noise=4.0, seed=8)
    settings = DetectorSettings(min_side_px=7, upsample=3.0, expected_ids=frozenset(truth), finder="contours")
    dets = MarkerDetector("DICT_4X4_250", settings).detect(img)
    assert len(dets) >= len(truth) - 3
    assert all(d.marker_id in truth for d in dets)
    assert max(np.linalg.norm(d.centre_px - truth[d.marker_id].mean(0)) for d in dets) < 0.3
    one_pass = replace(settings, edge_fit=replace(settings.edge_fit, passes=1, first_reach_cells=0.8))
    again = MarkerDetector("DICT_4X4_250", one_pass).detect(img)
    assert {d.marker_id for d in again} <= set(truth)
