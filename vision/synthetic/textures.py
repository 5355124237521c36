"""Textures of things that move: printed markers (with their white quiet zone) and base tops.

Markers are made from `cv2.aruco.generateImageMarker` and brought to the wanted resolution by
area averaging, so their edges stay exactly where the geometry says. Base tops are drawn at
four times their final resolution (flock, painted figures, the marker) and area-reduced.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from functools import lru_cache

import cv2
import numpy as np

from campo.vision.synthetic.figures import paint_figures
from campo.vision.tabletop import RosterBase

INK = 28  # printed black is not perfectly black
PAPER = 236  # nor is the paper perfectly white
SUPERSAMPLE = 4


@lru_cache(maxsize=16)
def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    """An OpenCV predefined dictionary by name (e.g. ``DICT_4X4_250``)."""
    code = getattr(cv2.aruco, name, None)
    if not isinstance(code, int):
        raise ValueError(f"unknown marker dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(code)


def marker_cells(dictionary: str) -> int:
    """Cells across a marker including its black border (6 for a 4x4 dictionary)."""
    return int(aruco_dictionary(dictionary).markerSize) + 2


def quiet_zone_mm(dictionary: str, marker_size_mm: float, room_mm: float | None = None) -> float:
    """White margin around a marker: one cell, or less when the base has no room for it."""
    cell = marker_size_mm / marker_cells(dictionary)
    if room_mm is None:
        return cell
    return float(max(0.0, min(cell, room_mm)))


@lru_cache(maxsize=512)
def _marker_master(dictionary: str, marker_id: int, texels_per_cell: int, quiet_texels: int) -> np.ndarray:
    cells = marker_cells(dictionary)
    img = cv2.aruco.generateImageMarker(aruco_dictionary(dictionary), int(marker_id), cells * texels_per_cell, borderBits=1)
    img = cv2.copyMakeBorder(img, quiet_texels, quiet_texels, quiet_texels, quiet_texels, cv2.BORDER_CONSTANT, value=255)
    img = (INK + img.astype(np.float32) * ((PAPER - INK) / 255.0)).astype(np.uint8)
    img.setflags(write=False)
    return img


_marker_cache: OrderedDict[tuple, tuple[np.ndarray, float, float]] = OrderedDict()
_marker_lock = threading.Lock()


def marker_texture(
    dictionary: str, marker_id: int, size_mm: float, quiet_mm: float, texels_per_mm: float
) -> tuple[np.ndarray, float, float]:
    """Grey image of a printed marker with its quiet zone, near `texels_per_mm`.

    Returns (image, exact texels per mm, exact quiet zone in mm). The black square is centred
    and measures exactly `size_mm`; the image's outer edge is the quiet zone's.
    """
    key = (dictionary, marker_id, round(size_mm, 6), round(quiet_mm, 6), round(texels_per_mm, 6))
    with _marker_lock:
        hit = _marker_cache.get(key)
        if hit is not None:
            _marker_cache.move_to_end(key)
            return hit
    cells = marker_cells(dictionary)
    cell_mm = size_mm / cells
    k = max(16, math.ceil(texels_per_mm * cell_mm * 2))
    q = int(round(quiet_mm / cell_mm * k))
    master = _marker_master(dictionary, int(marker_id), k, q)
    master_per_mm = k / cell_mm
    extent_mm = master.shape[0] / master_per_mm
    n = max(4, int(round(extent_mm * texels_per_mm)))
    img = cv2.resize(master, (n, n), interpolation=cv2.INTER_AREA)
    out = (img, n / extent_mm, q / master_per_mm)
    with _marker_lock:
        _marker_cache[key] = out
        while len(_marker_cache) > 1024:
            _marker_cache.popitem(last=False)
    return out


# --- base tops ------------------------------------------------------------------------------

FLOCKS = ((52, 92, 66), (46, 80, 86), (60, 98, 78), (48, 86, 100))


def _marker_footprint(base: RosterBase, dictionary: str) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(centre in texture mm, up in texture coords (x right, y down), side, quiet zone) of the marker."""
    w, d = base.width_mm, base.depth_mm
    centre = np.array([w / 2 + base.marker_offset_mm[0], d / 2 - base.marker_offset_mm[1]])
    a = np.radians(base.marker_rotation_deg)
    # Base frame: front = texture -y, right = texture +x; marker up is front turned CCW by the rotation.
    up = np.array([-np.sin(a), -np.cos(a)])
    spread = abs(np.cos(a)) + abs(np.sin(a))  # a turned square is wider
    half = base.marker_size_mm / 2 * spread
    room = min(centre[0] - half, w - centre[0] - half, centre[1] - half, d - centre[1] - half)
    return centre, up, base.marker_size_mm, quiet_zone_mm(dictionary, base.marker_size_mm, room / spread)


def base_top_texture(base: RosterBase, dictionary: str, texels_per_mm: float) -> tuple[np.ndarray, float]:
    """BGRA image of a base's top face (front edge at the top row), and its exact texels per mm.

    The marker is warped in from an exact marker texture; everything else is painted.
    """
    w, d = base.width_mm, base.depth_mm
    s = float(texels_per_mm)
    nw, nd = max(2, math.ceil(w * s)), max(2, math.ceil(d * s))
    big = SUPERSAMPLE * s
    bw, bh = nw * SUPERSAMPLE, nd * SUPERSAMPLE
    rng = np.random.default_rng(base.marker * 7919 + 17)
    flock = np.array(FLOCKS[base.marker % len(FLOCKS)], np.float32)
    small = rng.normal(0, 1, (max(2, bh // 24), max(2, bw // 24), 1)).astype(np.float32)
    img = np.clip(flock + cv2.resize(small, (bw, bh), interpolation=cv2.INTER_CUBIC)[:, :, None] * 7
                  + rng.normal(0, 9, (bh, bw, 1)).astype(np.float32), 0, 255).astype(np.uint8)
    centre, up, side, quiet = _marker_footprint(base, dictionary)
    # Marker: an exact texture (quiet zone included) warped into place.
    mtex, ms, _ = marker_texture(dictionary, base.marker, side, quiet, big)
    right = np.array([-up[1], up[0]])  # texture coords are y-down, so "right" is up turned CW on screen
    half = mtex.shape[0] / ms / 2
    # affine: marker texel (centre conv.) -> top texel (centre conv.) at scale big
    a = np.column_stack([right / ms * big, -up / ms * big])
    origin_mm = centre - right * half + up * half
    t = (origin_mm + (right - up) * 0.5 / ms) * big - 0.5
    m = np.hstack([a, t.reshape(2, 1)])
    mask = np.zeros((bh, bw), np.uint8)
    warped = cv2.warpAffine(mtex, m, (bw, bh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    cv2.warpAffine(np.full(mtex.shape, 255, np.uint8), m, (bw, bh), dst=mask, flags=cv2.INTER_LINEAR,
                   borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    keep_out = cv2.dilate(mask, np.ones((5, 5), np.uint8)) > 0
    paint_figures(img, base, big, keep_out, rng)
    alpha = mask.astype(np.float32)[:, :, None] / 255.0
    img = (img * (1 - alpha) + warped[:, :, None].astype(np.float32) * alpha + 0.5).astype(np.uint8)
    # The base outline covers [0, w) x [0, d) mm; texels beyond it are (partly) transparent.
    cover = np.zeros((bh, bw), np.float32)
    cover[: int(d * big), : int(w * big)] = 1.0
    fx, fy = w * big - int(w * big), d * big - int(d * big)
    if int(w * big) < bw:
        cover[: int(d * big), int(w * big)] = fx
    if int(d * big) < bh:
        cover[int(d * big), : int(w * big)] = fy
    out = cv2.resize(img, (nw, nd), interpolation=cv2.INTER_AREA)
    a = cv2.resize(cover, (nw, nd), interpolation=cv2.INTER_AREA)
    return np.dstack([out, np.clip(a * 255 + 0.5, 0, 255).astype(np.uint8)]), s
