"""Drawing the things that move, into a frame: base boxes and hands (with their shadows)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import cv2
import numpy as np

from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic.geometry import base_box
from campo.vision.synthetic.planar import (
    BBox, PlacedTexture, RayMap, bbox_of, blend_into, project_px, projection_matrix, render_texture,
    sample_homography, subdivide, texels_per_mm_for,
)
from campo.vision.synthetic.pose import CameraPose
from campo.vision.synthetic.scene import Hand, PlacedBase
from campo.vision.synthetic.textures import base_top_texture

SIDE_SHADE = (38, 58, 62)  # BGR of a base's painted edge
SUPERSAMPLE_BELOW_MARKER_PX = 64.0
FIGURE_HEIGHT_MM = 8.0  # what casts the contact shadow: the base and the figures on it
LIGHT_DIR = np.array([-0.35, 0.25, 1.0]) / np.linalg.norm([-0.35, 0.25, 1.0])  # toward the lamp


def _fixed(px: np.ndarray) -> np.ndarray:
    return np.round(px * 16).astype(np.int32)


class TopTextures:
    """Cache of base-top textures by (base, resolution level)."""

    def __init__(self, dictionary: str, capacity: int = 1024) -> None:
        self.dictionary = dictionary
        self.capacity = capacity
        self._cache: OrderedDict[tuple, tuple[np.ndarray, float]] = OrderedDict()

    def get(self, pb: PlacedBase, texels_per_mm: float) -> tuple[np.ndarray, float]:
        b = pb.base
        key = (b.id, b.marker, b.side, b.type, b.width_mm, b.depth_mm, b.marker_size_mm, tuple(b.marker_offset_mm),
               b.marker_rotation_deg, repr(sorted(b.traits.items())), texels_per_mm)
        hit = self._cache.get(key)
        if hit is None:
            hit = base_top_texture(pb.base, self.dictionary, texels_per_mm)
            self._cache[key] = hit
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return hit


def base_silhouette_px(pb: PlacedBase, intr: Intrinsics, pose: CameraPose, box_px: np.ndarray | None = None) -> np.ndarray:
    """Convex outline (Nx2 distorted pixels) of a base box as the camera sees it."""
    px = project_px(base_box(pb), intr, pose) if box_px is None else box_px
    return cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)


def draw_bases(canvas: np.ndarray, order: Sequence[PlacedBase], intr: Intrinsics, pose: CameraPose, rays: RayMap,
               tops: TopTextures, supersample: int = 1) -> tuple[list[BBox], list[np.ndarray]]:
    """Draw base boxes in `order` (far to near): visible sides flat-shaded, then the textured top.

    The geometry of all bases is computed at once (one projection, one batch of homographies);
    returns the boxes of pixels touched and, per base, its 8 box corners in pixels.
    """
    n = len(order)
    if n == 0:
        return [], []
    bases = [pb.base for pb in order]
    a = np.radians([pb.heading_deg for pb in order])
    front = np.column_stack([np.cos(a), np.sin(a), np.zeros(n)])
    right = np.column_stack([np.sin(a), -np.cos(a), np.zeros(n)])
    size = np.array([[b.width_mm, b.depth_mm, b.height_mm] for b in bases])
    centre = np.column_stack([[pb.x_mm for pb in order], [pb.y_mm for pb in order], np.zeros(n)])
    fw, fd = right * size[:, :1] / 2, front * size[:, 1:2] / 2
    bottom = np.stack([centre + fd - fw, centre + fd + fw, centre - fd + fw, centre - fd - fw], axis=1)
    lift = np.zeros((n, 1, 3))
    lift[:, 0, 2] = size[:, 2]
    boxes = np.concatenate([bottom, bottom + lift], axis=1)  # n x 8 x 3, same order as geometry.base_box
    # A soft contact shadow: the footprint pushed away from the lamp by the height of the figures.
    drop = np.append(-LIGHT_DIR[:2] / LIGHT_DIR[2] * FIGURE_HEIGHT_MM, 0.0)
    pts = np.concatenate([boxes, bottom + drop], axis=1)  # n x 12 x 3
    all_px = project_px(pts.reshape(-1, 3), intr, pose).reshape(n, 12, 2)
    px, shadow_px = all_px[:, :8], all_px[:, 8:]
    in_front = (pts.reshape(-1, 3) @ pose.rotation[2] + pose.tvec[2]).reshape(n, 12).min(axis=1) > 1e-6
    w_img, h_img = intr.image_size
    lo = np.floor(all_px.min(axis=1)).astype(int) - 2
    hi = np.ceil(all_px.max(axis=1)).astype(int) + 3
    lo = np.maximum(lo, 0)
    hi = np.minimum(hi, [w_img, h_img])
    # Sides: outward normals of the bottom edges (corners run clockwise seen from above).
    edge = bottom[:, [1, 2, 3, 0]] - bottom
    normal = np.stack([edge[..., 1], -edge[..., 0], np.zeros((n, 4))], axis=-1)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
    facing = np.einsum("nkc,nkc->nk", normal, pose.centre_mm - bottom) > 0
    shade = 0.55 + 0.45 * np.maximum(0.0, normal @ LIGHT_DIR + 0.3)
    # Tops: texture resolution from their smallest pixels-per-mm, then one homography each.
    top_px = px[:, 4:]
    edges_px = np.linalg.norm(top_px[:, [1, 2, 3, 0]] - top_px, axis=-1)
    ppm = (edges_px / size[:, [0, 1, 0, 1]]).min(axis=1)
    # Supersampling matters for small markers; markers already big in the image get plain sampling.
    marker_px = ppm * np.array([b.marker_size_mm for b in bases])
    ss = np.where(marker_px < SUPERSAMPLE_BELOW_MARKER_PX, supersample, 1)
    textures = [tops.get(pb, texels_per_mm_for(p * k)) for pb, p, k in zip(order, ppm, ss)]
    s = np.array([t[1] for t in textures])[:, None]
    u, v = right, -front
    m = np.zeros((n, 4, 3))
    m[:, :3, 0] = u / s
    m[:, :3, 1] = v / s
    m[:, :3, 2] = boxes[:, 4] + (u + v) * 0.5 / s
    m[:, 3, 2] = 1.0
    h_tex_img = np.linalg.inv(projection_matrix(intr, pose) @ m)
    touched: list[BBox] = []
    for i, b in enumerate(bases):
        bbox = (int(lo[i, 0]), int(lo[i, 1]), int(hi[i, 0]), int(hi[i, 1]))
        if not in_front[i] or bbox[0] >= bbox[2] or bbox[1] >= bbox[3]:
            continue
        _shade_region(canvas, bbox, np.concatenate([px[i, :4], shadow_px[i]]))
        if b.height_mm > 0:
            for k in np.flatnonzero(facing[i]):
                j = (k + 1) % 4
                colour = tuple(float(c * shade[i, k]) for c in SIDE_SHADE)
                cv2.fillConvexPoly(canvas, _fixed(px[i, [k, j, j + 4, k + 4]]), colour, cv2.LINE_AA, 4)
        patch = sample_homography(textures[i][0], h_tex_img[i], rays, bbox, int(ss[i]))
        blend_into(canvas, patch, bbox)
        touched.append(bbox)
    return touched, list(px)


def _shade_region(canvas: np.ndarray, bbox: BBox, pts_px: np.ndarray, strength: int = 30) -> None:
    """Darken the convex hull of `pts_px` inside `bbox` (a soft-edged shadow), in place."""
    x0, y0, x1, y1 = bbox
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    hull = cv2.convexHull(np.round((pts_px - [x0, y0]) * 16).astype(np.int32))
    cv2.fillConvexPoly(mask, hull, strength, cv2.LINE_AA, 4)
    region = canvas[y0:y1, x0:x1]
    cv2.subtract(region, cv2.multiply(region, cv2.cvtColor(mask, cv2.COLOR_GRAY2BGR), scale=1 / 255.0), dst=region)


_hand_cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
_hand_lock = threading.Lock()


def hand_texture(hand: Hand, texels_per_mm: float) -> PlacedTexture:
    """The hand and arm as a BGRA texture lying at the hand's height, rounded by shading.

    Cached by shape, so a hand that only moves costs nothing to re-texture.
    """
    pts = hand.outline_mm
    lo = np.floor(pts.min(axis=0)) - 4
    rel = pts - lo
    key = (np.round(rel, 1).tobytes(), hand.skin_bgr, texels_per_mm)
    with _hand_lock:
        hit = _hand_cache.get(key)
    if hit is None:
        s = texels_per_mm
        size = np.ceil((rel.max(axis=0) + 4) * s).astype(int) + 1
        mask = np.zeros((size[1], size[0]), np.uint8)
        cv2.fillPoly(mask, [np.round((rel * s - 0.5) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        dist = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 3)
        roundness = np.sqrt(np.clip(dist * (1.0 / (22 * s)), 0, 1))
        shade = 0.55 + 0.45 * roundness
        img = np.empty((size[1], size[0], 4), np.uint8)
        for c in range(3):
            img[:, :, c] = np.clip(shade * hand.skin_bgr[c], 0, 255).astype(np.uint8)
        img[:, :, 3] = mask
        hit = img
        with _hand_lock:
            _hand_cache[key] = hit
            while len(_hand_cache) > 64:
                _hand_cache.popitem(last=False)
    img = hit
    origin = np.array([lo[0], lo[1], hand.height_mm])
    return PlacedTexture(img, origin, np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), texels_per_mm)


def hand_outline_px(hand: Hand, intr: Intrinsics, pose: CameraPose, z_mm: float | None = None) -> np.ndarray:
    """The hand's outline in distorted pixels (at its height, or at `z_mm`)."""
    z = hand.height_mm if z_mm is None else z_mm
    pts = subdivide(hand.outline_mm, 4)
    return project_px(np.column_stack([pts, np.full(len(pts), z)]), intr, pose)


def draw_hand(canvas: np.ndarray, hand: Hand, intr: Intrinsics, pose: CameraPose, rays: RayMap) -> list[BBox]:
    """A soft shadow on the table, then the hand itself; returns the boxes touched."""
    boxes = []
    # Shadow: the outline dropped to the table away from the lamp, blurred with height.
    drop = -LIGHT_DIR[:2] / LIGHT_DIR[2] * hand.height_mm
    shadow_hand = Hand(hand.outline_mm + drop, hand.height_mm, hand.skin_bgr)
    sh_px = hand_outline_px(shadow_hand, intr, pose, z_mm=0.0)
    blur_px = max(2.0, 0.06 * hand.height_mm * _px_per_mm_near(hand, intr, pose))
    sb = bbox_of(sh_px, intr.image_size, margin=int(3 * blur_px) + 2)
    if sb is not None:
        x0, y0, x1, y1 = sb
        # Drawn at a quarter resolution: a soft shadow has no detail to lose.
        q = 4
        small = np.zeros(((y1 - y0) // q + 1, (x1 - x0) // q + 1), np.uint8)
        cv2.fillPoly(small, [np.round(((sh_px - [x0, y0] + 0.5) / q - 0.5) * 16).astype(np.int32)], 90, cv2.LINE_AA, 4)
        small = cv2.GaussianBlur(small, (0, 0), blur_px / q)
        m = cv2.resize(small, (small.shape[1] * q, small.shape[0] * q), interpolation=cv2.INTER_LINEAR)[: y1 - y0, : x1 - x0]
        region = canvas[y0:y1, x0:x1]
        cv2.subtract(region, cv2.multiply(region, cv2.merge([m, m, m]), scale=1 / 255.0), dst=region)
        boxes.append(sb)
    level = texels_per_mm_for(_px_per_mm_near(hand, intr, pose) / 2)  # a soft shape: half resolution is plenty
    tex = hand_texture(hand, level)
    bb = render_texture(canvas, tex, intr, pose, rays)
    if bb is not None:
        boxes.append(bb)
    return boxes


def _px_per_mm_near(hand: Hand, intr: Intrinsics, pose: CameraPose) -> float:
    c = hand.outline_mm.mean(axis=0)
    pts = np.array([[c[0], c[1], hand.height_mm], [c[0] + 10, c[1], hand.height_mm], [c[0], c[1] + 10, hand.height_mm]])
    px = project_px(pts, intr, pose)
    return float(min(np.linalg.norm(px[1] - px[0]), np.linalg.norm(px[2] - px[0])) / 10)
