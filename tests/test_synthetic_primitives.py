"""The synthetic camera's building blocks: rays through a real lens, flat textures at any 3-D pose,
printed markers, poses, effects and hands."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic import (
    CameraPose, Effects, Hand, PlacedTexture, RayMap, centred_texture, look_at, marker_texture, overhead,
    render_texture,
)
from campo.vision.synthetic.geometry import square_corners, unit
from campo.vision.synthetic.planar import undistort_to_ideal
from campo.vision.synthetic.textures import quiet_zone_mm
from campo.vision.tabletop import Anchor, TableConfig, TableSpec

LENS = Intrinsics.ideal(1280, 720, 60, dist=(-0.15, 0.05, 0.001, -0.0008, 0.0))


def test_ray_map_matches_exact_undistortion():
    rays = RayMap(LENS)
    rng = np.random.default_rng(1)
    ij = np.column_stack([rng.integers(0, 1280, 4000), rng.integers(0, 720, 4000)])
    exact = undistort_to_ideal(ij.astype(float), LENS)
    assert np.abs(rays.ideal[ij[:, 1], ij[:, 0]] - exact).max() < 0.005
    # ...and projecting the ideal pixel back through the lens lands on the pixel centre.
    k = LENS.camera_matrix
    norm = (exact - k[:2, 2]) / np.diag(k)[:2]
    back = LENS.project(np.column_stack([norm, np.ones(len(norm))]), np.zeros(3), np.zeros(3))
    assert np.abs(back - ij).max() < 1e-6


def test_a_marker_on_a_tilted_plane_lands_on_its_projection():
    """Any flat texture at any pose: a marker on a 35°-tilted card, seen through a distorting lens."""
    size, quiet = 60.0, 10.0
    img, s, q = marker_texture("DICT_4X4_250", 7, size, quiet, 1.2)
    assert q == pytest.approx(quiet, abs=0.1) and img.shape[0] == pytest.approx((size + 2 * q) * s, abs=0.5)
    tilt = np.radians(35)
    u = np.array([1.0, 0.0, 0.0])
    v = np.array([0.0, -np.cos(tilt), -np.sin(tilt)])  # rows run "down" the card, which leans back
    centre = np.array([30.0, 10.0, 5.0])
    half = img.shape[0] / s / 2
    tex = PlacedTexture(cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA), centre - u * half - v * half, u, v, s)
    pose = look_at((0.0, -250.0, 400.0), (0.0, 0.0, 0.0))
    canvas = np.full((720, 1280, 3), 90, np.uint8)
    bbox = render_texture(canvas, tex, LENS, pose, supersample=2)
    assert bbox is not None
    truth_3d = np.array([centre + (-u + -v) * size / 2, centre + (u - v) * size / 2, centre + (u + v) * size / 2,
                         centre + (-u + v) * size / 2])
    truth = LENS.project(truth_3d, pose.rvec, pose.tvec)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250), params)
    corners, ids, _ = det.detectMarkers(cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY))
    assert np.asarray(ids).reshape(-1).tolist() == [7]
    err = np.linalg.norm(corners[0].reshape(4, 2) - truth, axis=1)
    assert err.max() < 0.5
    assert np.linalg.norm(corners[0].reshape(4, 2).mean(axis=0) - truth.mean(axis=0)) < 0.1


def test_centred_texture_faces_up():
    img = np.zeros((10, 20, 3), np.uint8)
    tex = centred_texture(img, np.array([100.0, 50.0, 0.0]), unit(90.0), 2.0)
    c = tex.corners_mm()
    assert np.allclose(c[0], [95.0, 52.5, 0.0]) and np.allclose(c[2], [105.0, 47.5, 0.0])
    assert np.allclose(square_corners(np.zeros(3), unit(90.0), 2.0)[:2], [[-1, 1, 0], [1, 1, 0]])


def test_quiet_zone_is_one_cell_unless_the_base_is_too_small():
    assert quiet_zone_mm("DICT_4X4_250", 30.0) == pytest.approx(5.0)
    assert quiet_zone_mm("DICT_4X4_250", 16.0, room_mm=2.0) == pytest.approx(2.0)
    assert quiet_zone_mm("DICT_5X5_100", 35.0) == pytest.approx(5.0)


def test_look_at_and_overhead_put_player_b_at_the_top():
    table = TableConfig(table=TableSpec(width_mm=1800.0, depth_mm=1200.0),
                        anchors=[Anchor(marker=0, x_mm=40.0, y_mm=40.0, size_mm=40.0),
                                 Anchor(marker=1, x_mm=1760.0, y_mm=1160.0, size_mm=40.0)])
    intr = Intrinsics.ideal(1920, 1080, 60)
    pose = overhead(table, intr)
    px = intr.project(np.array([[0.0, 0, 0], [1800, 0, 0], [1800, 1200, 0], [0, 1200, 0]]), pose.rvec, pose.tvec)
    assert px[0, 0] < px[1, 0] and px[3, 1] < px[0, 1], "x runs right, y runs up the image"
    assert px.min() >= 0 and px[:, 0].max() < 1920 and px[:, 1].max() < 1080, "the whole table is in view"
    assert np.allclose(pose.centre_mm[:2], [900, 600])
    tilted = overhead(table, intr, tilt_deg=20)
    assert tilted.centre_mm[1] < 600 and tilted.centre_mm[2] < pose.centre_mm[2] * 1.01
    same = CameraPose.from_matrix(pose.rotation, pose.tvec)
    assert same.key() == pose.key()
    with pytest.raises(ValueError):
        look_at((0, 0, 100), (0, 0, 0), up_hint=(0, 0, 1))


def test_effects_presets_and_validation():
    assert Effects.clean().is_clean and not Effects.typical().is_clean
    assert Effects.dim().gain < 1 and Effects.dim().noise_sigma > Effects.typical().noise_sigma
    with pytest.raises(ValueError):
        Effects(jpeg_quality=0)
    with pytest.raises(ValueError):
        Effects(vignetting=1.5)


def test_a_hand_is_a_hand():
    hand = Hand.reaching((0.0, -200.0), (0.0, 300.0), height_mm=150)
    from shapely import Polygon
    shape = Polygon(hand.outline_mm)
    assert shape.is_valid
    x0, y0, x1, y1 = shape.bounds
    assert y1 == pytest.approx(300.0 + 8.5, abs=2.0), "the fingertips reach the target"
    assert 90 < x1 - x0 < 200, "a palm with a thumb is wider than the forearm"
    with pytest.raises(ValueError):
        Hand(np.zeros((2, 2)))


def test_a_plane_reaching_behind_the_camera_shows_only_in_front():
    """A floor seen by a camera looking at the horizon: only the half below the horizon is floor."""
    intr = Intrinsics.ideal(640, 360, 70)
    pose = look_at((0.0, 0.0, 100.0), (0.0, 1000.0, 100.0), up_hint=(0.0, 0.0, 1.0))
    floor = np.full((250, 400, 3), 200, np.uint8)
    tex = PlacedTexture(floor, np.array([-2000.0, -500.0, 0.0]), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), 0.1)
    assert np.any(tex.corners_mm()[:, 1] < 0), "part of the floor is behind the camera"
    canvas = np.zeros((360, 640, 3), np.uint8)
    render_texture(canvas, tex, intr, pose)
    assert canvas[:170].max() == 0, "nothing above the horizon"
    assert canvas[210:].min() == 200, "floor everywhere below it (it ends 2 m ahead)"
