"""Ground truth of a frame: where every marker's corners are and how much of each is visible."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic.geometry import anchor_corners, base_marker_corners
from campo.vision.synthetic.layers import base_silhouette_px, hand_outline_px
from campo.vision.synthetic.planar import project_px
from campo.vision.synthetic.pose import CameraPose
from campo.vision.synthetic.scene import Hand, PlacedBase
from campo.vision.synthetic.truth import BasePoseTruth, GroundTruth, MarkerTruth
from campo.vision.tabletop import TableConfig

OVERSAMPLE = 4


def visible_fraction(corners_px: np.ndarray, occluders: Sequence[np.ndarray], size: tuple[int, int],
                     boxes: np.ndarray | None = None) -> float:
    """Share of the quad `corners_px` inside the image and outside every occluder polygon.

    `boxes` (optional, Nx4 x0, y0, x1, y1) are the occluders' bounding boxes, to skip far ones fast.
    """
    lo = np.floor(corners_px.min(axis=0)).astype(int) - 1
    hi = np.ceil(corners_px.max(axis=0)).astype(int) + 2
    w, h = size
    if boxes is None:
        boxes = occluder_boxes(occluders)
    hit = (boxes[:, 2] >= lo[0]) & (boxes[:, 0] <= hi[0]) & (boxes[:, 3] >= lo[1]) & (boxes[:, 1] <= hi[1])
    near = [occluders[i] for i in np.flatnonzero(hit)]
    if not near and lo[0] >= 0 and lo[1] >= 0 and hi[0] <= w and hi[1] <= h:
        return 1.0
    dims = (hi - lo) * OVERSAMPLE
    if dims[0] <= 0 or dims[1] <= 0 or dims[0] * dims[1] > 4e7:
        return 0.0

    def local(poly: np.ndarray) -> np.ndarray:
        return np.round(((poly - lo) * OVERSAMPLE + (OVERSAMPLE - 1) / 2) * 16).astype(np.int32)

    mask = np.zeros((dims[1], dims[0]), np.uint8)
    cv2.fillPoly(mask, [local(corners_px)], 1, cv2.LINE_8, 4)
    total = int(mask.sum())
    if total == 0:
        return 0.0
    for poly in near:
        cv2.fillPoly(mask, [local(poly)], 0, cv2.LINE_8, 4)
    # The image spans -0.5 .. w - 0.5 in pixel-centre coordinates.
    ix0, iy0 = (int(np.clip(-lo[k] * OVERSAMPLE, 0, dims[k])) for k in (0, 1))
    ix1, iy1 = (int(np.clip((lim - lo[k]) * OVERSAMPLE, 0, dims[k])) for k, lim in ((0, w), (1, h)))
    return float(mask[iy0:iy1, ix0:ix1].sum()) / total


def occluder_boxes(polys: Sequence[np.ndarray]) -> np.ndarray:
    """Nx4 bounding boxes (x0, y0, x1, y1) of polygons."""
    if not polys:
        return np.zeros((0, 4))
    return np.array([[p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()] for p in polys])


def ground_truth(
    table: TableConfig,
    draw_order: Sequence[PlacedBase],
    hands: Sequence[Hand],
    intr: Intrinsics,
    pose: CameraPose,
    box_px: Sequence[np.ndarray] | None = None,
) -> GroundTruth:
    """Truth for bases drawn in `draw_order` (far to near) with `hands` above them all.

    `box_px` (optional) are the bases' 8 box corners in pixels, when the renderer has them.
    """
    hand_polys = [hand_outline_px(h, intr, pose).astype(np.float64) for h in hands]
    boxes_px = box_px if box_px is not None else [None] * len(draw_order)
    silhouettes = [base_silhouette_px(pb, intr, pose, bp).astype(np.float64) for pb, bp in zip(draw_order, boxes_px)]
    occ = silhouettes + hand_polys
    boxes = occluder_boxes(occ)
    n_anchors = len(table.anchors)
    corners = np.array([anchor_corners(a) for a in table.anchors] + [base_marker_corners(pb) for pb in draw_order])
    in_front = (corners.reshape(-1, 3) @ pose.rotation[2] + pose.tvec[2]).reshape(-1, 4).min(axis=1) > 0
    px = project_px(corners.reshape(-1, 3), intr, pose).reshape(-1, 4, 2)
    markers: dict[int, MarkerTruth] = {}
    for k in range(len(corners)):
        if k < n_anchors:
            mid, skip, is_anchor, base_id = table.anchors[k].marker, 0, True, None
        else:
            # A base is hidden only by what is drawn after it: nearer bases and the hands.
            i = k - n_anchors
            mid, skip, is_anchor, base_id = draw_order[i].base.marker, i + 1, False, draw_order[i].base.id
        if not in_front[k]:
            markers[mid] = MarkerTruth(np.full((4, 2), np.nan), 0.0, is_anchor, base_id)
            continue
        fraction = visible_fraction(px[k], occ[skip:], intr.image_size, boxes[skip:])
        markers[mid] = MarkerTruth(px[k], fraction, is_anchor, base_id)
    bases = {pb.base.id: BasePoseTruth(float(pb.x_mm), float(pb.y_mm), float(pb.heading_deg) % 360.0) for pb in draw_order}
    return GroundTruth(markers, bases)
