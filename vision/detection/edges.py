"""Marker corners from whole edges: a line fitted to sub-pixel edge points along each side.

Corner refiners look at a few pixels around each corner, so on a 25-pixel marker they give
corners good to a few tenths of a pixel and headings off by about a degree. Each side of the
black square, though, is a straight step from black (the border cells) to white (the quiet
zone) that is tens of pixels long: locating the step across it at many places and fitting one
line through all of them averages the noise away. The corners are then where adjacent lines meet.

Each edge point is where the profile crosses halfway between the side's black and white levels
(the crossing nearest the steepest rise): a bilinear profile is piecewise linear, so taking the
steepest sample instead would quantise the edge to the sampling step. Only rising crossings
(black inside, white outside) count, so the border's inner edge next to a white bit, which falls
going outward, never competes. The first pass reaches 1.2 cells each way, to start from rough
corners; later passes 0.6 cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class EdgeFitSettings:
    """Sampling across and along the sides (in cells of the marker grid, or pixels)."""

    samples_per_side: int = 16  # ~1 px apart on a 20-px marker; 24 cost 50 % more for no gain (docs/vision.md)
    end_margin_cells: float = 0.6  # skip this much of each side near the corners
    first_reach_cells: float = 1.2  # profile half-length on the first pass (the quiet zone is 1 cell)
    reach_cells: float = 0.6  # and on the following passes
    profile_points: int = 15  # samples across each side (linear interpolation between them)
    passes: int = 2
    max_shift_cells: float = 1.0  # a corner that moves more than this keeps its old place
    smooth_sigma_px: float = 0.0  # optional Gaussian blur before sampling


def _profile_coords(corners: np.ndarray, cells: int, reach_cells: float, s: EdgeFitSettings):
    """Sample maps across each side: x and y (M*4*S, P), the profiles' centres on the side
    (M, 4, S, 2), the offsets along the normal (M, 4, P) and the outward normals (M, 4, 2)."""
    p0 = corners.astype(np.float32)  # float32 throughout: 1e-4 px at 4K, half the memory traffic
    p1 = np.roll(p0, -1, axis=1)
    side = p1 - p0  # (M, 4, 2)
    length = np.linalg.norm(side, axis=2, keepdims=True)
    d = side / np.maximum(length, 1e-9)
    n = np.stack([d[..., 1], -d[..., 0]], axis=-1)  # outward for clockwise (image) corner order
    centre = p0.mean(axis=1, keepdims=True)
    mid = (p0 + p1) / 2
    flip = np.sign(np.sum(n * (mid - centre), axis=2, keepdims=True))
    n = n * np.where(flip == 0, 1, flip)
    side_len = length[..., 0]  # (M, 4)
    cell = side_len.mean(axis=1) / cells  # (M,)
    margin = np.clip(s.end_margin_cells * cell[:, None] / side_len, 0.02, 0.3)  # (M, 4)
    u = np.linspace(0.0, 1.0, s.samples_per_side, dtype=np.float32)
    t = margin[..., None] + (1 - 2 * margin[..., None]) * u  # (M, 4, S)
    # Across a side the cells are what the adjacent sides say: on a steeply tilted marker 3 px
    # one way and 10 the other, and a reach in mean cells runs past the border into the bits
    # across the long sides (the tilt set of bench/vision_real.py lost 2 of 125 markers so).
    # Only such squashed squares (under 0.8 of the mean) are reached less far.
    across = (np.roll(side_len, 1, axis=1) + np.roll(side_len, -1, axis=1)) / (2 * cells)  # (M, 4)
    across = np.where(across < 0.8 * cell[:, None], across, cell[:, None])
    reach = np.maximum(reach_cells * across, 1.0)  # (M, 4)
    offsets = np.linspace(-1, 1, s.profile_points, dtype=np.float32) * reach[..., None]  # (M, 4, P)
    base = p0[:, :, None, :] + t[..., None] * side[:, :, None, :]  # (M, 4, S, 2)
    # x and y maps apart (contiguous, as remap wants them): base + offset x normal
    m, ns, npts = len(p0), s.samples_per_side, s.profile_points
    map_x = (base[..., 0, None] + offsets[:, :, None, :] * n[:, :, None, None, 0]).reshape(m * 4 * ns, npts)
    map_y = (base[..., 1, None] + offsets[:, :, None, :] * n[:, :, None, None, 1]).reshape(m * 4 * ns, npts)
    return map_x, map_y, base, offsets, n


def _edge_points(gray: np.ndarray, corners: np.ndarray, cells: int, reach_cells: float, s: EdgeFitSettings):
    """Sub-pixel step positions along every side: points (M,4,S,2), weights (M,4,S)."""
    map_x, map_y, base, offsets, n = _profile_coords(corners, cells, reach_cells, s)
    m, _, ns, _ = base.shape
    npts = offsets.shape[-1]
    vals = cv2.remap(gray, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    vals = vals.reshape(m, 4, ns, npts)
    half = npts // 2
    # Per side, the black and white levels (medians over the side, so one dirty spot cannot
    # move them); the edge is where the profile crosses halfway between them.
    dark = np.median(vals[..., : half + 1].min(axis=3), axis=2)  # (M, 4)
    light = np.median(vals[..., half:].max(axis=3), axis=2)
    level = ((dark + light) / 2)[..., None, None]
    below = vals[..., :-1] < level
    above = vals[..., 1:] >= level
    rising = below & above  # (M, 4, S, P-1)
    grad = np.diff(vals, axis=3)
    # the crossing nearest the steepest rise (there is usually exactly one)
    steepest = np.argmax(grad, axis=3)
    idx = np.arange(npts - 1)
    dist = np.where(rising, np.abs(idx - steepest[..., None]), npts)
    k = np.argmin(dist, axis=3)
    found = np.take_along_axis(rising, k[..., None], axis=3)[..., 0]
    v0 = np.take_along_axis(vals, k[..., None], axis=3)[..., 0]
    v1 = np.take_along_axis(vals, (k + 1)[..., None], axis=3)[..., 0]
    rise = v1 - v0
    frac = np.clip((level[..., 0] - v0) / np.where(rise > 1e-9, rise, 1.0), 0.0, 1.0)
    step = offsets[..., 1] - offsets[..., 0]  # (M, 4)
    pos = offsets[..., 0, None] + (k + frac) * step[..., None]  # along the normal
    contrast = (light - dark)[..., None]
    weight = np.where(found & (contrast > 8.0), np.maximum(rise, 0.0), 0.0)
    points = base + pos[..., None] * n[:, :, None, :]
    return points, weight


def _fit_lines(points: np.ndarray, weight: np.ndarray):
    """Weighted total-least-squares lines (M,4): point, direction, RMS residual, and usable flags."""
    w = weight / np.maximum(weight.sum(axis=2, keepdims=True), 1e-12)
    centroid = np.sum(points * w[..., None], axis=2)
    dev = points - centroid[:, :, None, :]
    cxx = np.sum(w * dev[..., 0] ** 2, axis=2)
    cyy = np.sum(w * dev[..., 1] ** 2, axis=2)
    cxy = np.sum(w * dev[..., 0] * dev[..., 1], axis=2)
    angle = 0.5 * np.arctan2(2 * cxy, cxx - cyy)
    direction = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    normal = np.stack([-direction[..., 1], direction[..., 0]], axis=-1)
    resid = np.sum(dev * normal[:, :, None, :], axis=3)
    rms = np.sqrt(np.sum(w * resid**2, axis=2))
    usable = np.sum(weight > 0, axis=2) >= max(4, points.shape[2] // 3)
    return centroid, direction, rms, resid, usable


def _intersect(p_a, d_a, p_b, d_b):
    """Intersection of lines a and b (broadcast over leading axes)."""
    cross = d_a[..., 0] * d_b[..., 1] - d_a[..., 1] * d_b[..., 0]
    diff = p_b - p_a
    t = (diff[..., 0] * d_b[..., 1] - diff[..., 1] * d_b[..., 0]) / np.where(np.abs(cross) > 1e-9, cross, np.nan)
    return p_a + t[..., None] * d_a


def _float_around(crop: np.ndarray, corners: np.ndarray, pad: float) -> np.ndarray:
    """`crop` as float32 within `pad` of every marker (M,4,2); elsewhere undefined (never sampled).

    Markers spread over a table span most of the frame, and converting all of it cost more than
    the fit (4K: 3 ms); bilinear samples of the 8-bit image rounded to grey levels instead cost
    markers in dim light (1080p over 180 x 120 cm: 2 of 57).
    """
    h, w = crop.shape[:2]
    lo = np.maximum(np.floor(corners.min(axis=1) - pad).astype(int), 0)
    hi = np.minimum(np.ceil(corners.max(axis=1) + pad).astype(int) + 1, [w, h])
    if np.prod(hi - lo, axis=1).sum() > 0.5 * w * h:
        return crop.astype(np.float32)
    img = np.empty((h, w), np.float32)
    for (a, b), (c, d) in zip(lo, hi):
        img[b:d, a:c] = crop[b:d, a:c]
    return img


def refine_by_edges(
    gray: np.ndarray,
    corners: np.ndarray,
    cells: int,
    settings: EdgeFitSettings = EdgeFitSettings(),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Refine markers' corners (M,4,2) by fitting a line to each side of the black square.

    `cells` is the marker's width in grid cells, border included (6 for a 4x4 dictionary).
    Returns the new corners (M,4,2), the RMS distance of edge points from their lines (M,) and
    whether each marker was refined (False: its corners were left as given).
    """
    c = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    if len(c) == 0:
        return c.copy(), np.zeros(0), np.zeros(0, bool)
    # Only the part of the image around the markers is sampled (and blurred, when asked); samples
    # never leave it: the profiles reach at most max_shift + first_reach cells (plus the end
    # margins) off the corners.
    cell_px = float(np.linalg.norm(c - np.roll(c, -1, axis=1), axis=2).max()) / cells
    pad = (settings.max_shift_cells + max(settings.first_reach_cells, settings.reach_cells) + 1.0) * cell_px \
        + 3.0 + 3.0 * settings.smooth_sigma_px
    h, w = gray.shape[:2]
    x0, y0 = np.maximum(np.floor(c.reshape(-1, 2).min(axis=0) - pad).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(c.reshape(-1, 2).max(axis=0) + pad).astype(int) + 1, [w, h])
    if x1 <= x0 or y1 <= y0:
        return c.copy(), np.full(len(c), np.nan), np.zeros(len(c), bool)
    crop = gray[y0:y1, x0:x1]
    if crop.dtype == np.float32:
        img = crop
    elif settings.smooth_sigma_px > 0:  # (blurring would spread the undefined pixels)
        img = crop.astype(np.float32)
    else:
        img = _float_around(crop, c - [x0, y0], pad)
    if settings.smooth_sigma_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), settings.smooth_sigma_px)
    origin = np.array([x0, y0], np.float64)
    c = c - origin
    current = c.copy()
    ok = np.ones(len(c), bool)
    rms_out = np.full(len(c), np.nan)
    for p in range(settings.passes):
        reach = settings.first_reach_cells if p == 0 else settings.reach_cells
        points, weight = _edge_points(img, current, cells, reach, settings)
        centroid, direction, rms, resid, usable = _fit_lines(points, weight)
        # one robust pass: drop points far from their line, refit
        sigma = np.maximum(rms[..., None] * 2.5, 0.15)
        weight = np.where(np.abs(resid) <= sigma, weight, 0.0)
        centroid, direction, rms, resid, usable = _fit_lines(points, weight)
        prev = (np.arange(4) - 1) % 4
        new = _intersect(centroid[:, prev], direction[:, prev], centroid, direction)
        cell = np.linalg.norm(current - np.roll(current, -1, axis=1), axis=2).mean(axis=1) / cells
        shift = np.linalg.norm(new - c, axis=2).max(axis=1)
        good = usable.all(axis=1) & np.all(np.isfinite(new), axis=(1, 2)) & (shift <= settings.max_shift_cells * cell + 1.0)
        current = np.where(good[:, None, None], new, current)
        ok &= good
        rms_out = np.where(good, rms.mean(axis=1), rms_out)
    current = np.where(ok[:, None, None], current, c)
    return current + origin, rms_out, ok
