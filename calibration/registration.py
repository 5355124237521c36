"""Where the table is in this frame, from its anchor markers.

Every frame is registered afresh, so a camera that is bumped mid-game re-registers by itself.
With intrinsics the full camera pose is solved (PnP on every anchor corner, undistorted); without
them a plane homography is the fallback, which ignores lens distortion and base height and says
so in `warning`. A table that cannot be located is a value (`TableLocation.not_located`), not an
exception: the overlay shows it and the tracker keeps the last poses as stale.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np

from campo.vision.camera_model import Intrinsics
from campo.vision.detection.types import Detection
from campo.vision.tabletop import Anchor, TableConfig

MIN_ANCHORS = 2
"""Anchors needed to locate the table: one small marker alone gives a pose too weak to trust."""

MAX_REPROJECTION_PX = 3.0
"""Above this RMS (px) the anchors disagree with the table file (a moved anchor, a bad read)."""

HOMOGRAPHY_WARNING = (
    "no camera calibration: table located by homography, so lens distortion and base height are "
    "not corrected (expect errors of a few mm near the table edges; run `campo calibrate-camera`)"
)


def square_corners(centre_xy: tuple[float, float], size: float, up_deg: float, z: float = 0.0) -> np.ndarray:
    """The 4 corners (4x3, table mm) of a square marker in OpenCV order (top-left first).

    Seen from above, `up` points from the centre to the top edge and `right` is up turned
    90 degrees clockwise.

    >>> np.round(square_corners((0, 0), 2, 90), 6)[:, :2].tolist()
    [[-1.0, 1.0], [1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]]
    """
    a = np.radians(up_deg)
    up = np.array([np.cos(a), np.sin(a)])
    right = np.array([np.sin(a), -np.cos(a)])
    h = size / 2
    c = np.asarray(centre_xy, dtype=np.float64)
    pts = [c + h * (-right + up), c + h * (right + up), c + h * (right - up), c + h * (-right - up)]
    return np.column_stack([np.array(pts), np.full(4, float(z))])


def anchor_corners(anchor: Anchor) -> np.ndarray:
    """An anchor's corners in the table frame (4x3, z = 0)."""
    return square_corners((anchor.x_mm, anchor.y_mm), anchor.size_mm, anchor.up_deg)


@dataclass(frozen=True)
class TableLocation:
    """The table's pose in one frame, or why it could not be found.

    With method "pnp", `rvec`/`tvec` map table mm to camera coordinates (OpenCV convention).
    With "homography", `homography` maps table (x, y, 1) at z = 0 to image pixels.
    """

    located: bool
    method: Literal["pnp", "homography", "none"] = "none"
    rvec: np.ndarray | None = field(default=None, repr=False)
    tvec: np.ndarray | None = field(default=None, repr=False)
    homography: np.ndarray | None = field(default=None, repr=False)
    reprojection_error_px: float | None = None
    anchors_seen: int = 0
    anchors_used: tuple[int, ...] = ()
    reason: str = ""
    warning: str = ""

    @classmethod
    def not_located(cls, reason: str, anchors_seen: int = 0) -> TableLocation:
        return cls(False, "none", anchors_seen=anchors_seen, reason=reason)

    @property
    def rotation(self) -> np.ndarray:
        """3x3 rotation table -> camera (pnp only)."""
        assert self.rvec is not None, "rotation needs a pnp location"
        return cv2.Rodrigues(self.rvec)[0]

    @property
    def camera_centre_mm(self) -> np.ndarray:
        """The camera's optical centre in the table frame (pnp only)."""
        r = self.rotation
        return (-r.T @ self.tvec.reshape(3)).reshape(3)

    def project(self, points_mm: np.ndarray, intrinsics: Intrinsics | None) -> np.ndarray:
        """Table points (Nx3, or Nx2 at z = 0) to raw image pixels (Nx2)."""
        pts = np.asarray(points_mm, dtype=np.float64)
        if pts.shape[-1] == 2:
            pts = np.column_stack([pts.reshape(-1, 2), np.zeros(len(pts.reshape(-1, 2)))])
        pts = pts.reshape(-1, 3)
        if self.method == "pnp" and intrinsics is not None:
            return intrinsics.project(pts, self.rvec, self.tvec)
        if self.method == "homography":
            out = cv2.perspectiveTransform(pts[:, :2].reshape(-1, 1, 2), self.homography)
            return out.reshape(-1, 2)
        raise ValueError("cannot project: table not located")


def _seen_anchors(detections: Iterable[Detection], table: TableConfig) -> tuple[dict[int, Detection], list[int]]:
    """Anchor detections by marker id; anchors read twice are left out (never guessed)."""
    anchor_ids = table.anchor_ids
    found: dict[int, list[Detection]] = {}
    for d in detections:
        if d.marker_id in anchor_ids:
            found.setdefault(d.marker_id, []).append(d)
    single = {k: v[0] for k, v in found.items() if len(v) == 1}
    doubled = sorted(k for k, v in found.items() if len(v) > 1)
    return single, doubled


def _rms(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.sum((a - b) ** 2, axis=1))))


def _solve_pnp(obj: np.ndarray, img: np.ndarray, intr: Intrinsics) -> tuple[np.ndarray, np.ndarray, float]:
    ok, rvec, tvec = cv2.solvePnP(obj, img.reshape(-1, 1, 2), intr.camera_matrix, intr.dist_coeffs,
                                  flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        raise cv2.error("solvePnP failed")
    rvec, tvec = cv2.solvePnPRefineLM(obj, img.reshape(-1, 1, 2), intr.camera_matrix, intr.dist_coeffs, rvec, tvec)
    err = _rms(intr.project(obj, rvec, tvec), img)
    return rvec.reshape(3), tvec.reshape(3), err


def locate_table(
    detections: Iterable[Detection],
    table: TableConfig,
    intrinsics: Intrinsics | None,
    *,
    min_anchors: int = MIN_ANCHORS,
    max_error_px: float = MAX_REPROJECTION_PX,
) -> TableLocation:
    """The table's pose from the anchors seen in this frame.

    If the fit is poor and there are anchors to spare, the anchor that disagrees most is dropped
    (one moved anchor must not throw every base off); if it is still poor the table is not located.
    """
    single, doubled = _seen_anchors(detections, table)
    by_id = {a.marker: a for a in table.anchors}
    ids = sorted(single)
    seen = len(ids)
    if seen < min_anchors:
        extra = f"; anchors read twice: {doubled}" if doubled else ""
        return TableLocation.not_located(f"{seen} of {len(table.anchors)} anchors seen (need {min_anchors}){extra}", seen)

    def fit(use: list[int]) -> tuple[TableLocation, list[float]]:
        obj = np.concatenate([anchor_corners(by_id[i]) for i in use])
        img = np.concatenate([single[i].corners_px for i in use])
        if intrinsics is not None:
            rvec, tvec, err = _solve_pnp(obj, img, intrinsics)
            reproj = intrinsics.project(obj, rvec, tvec)
            loc = TableLocation(True, "pnp", rvec=rvec, tvec=tvec, reprojection_error_px=err,
                                anchors_seen=seen, anchors_used=tuple(use))
        else:
            h, _ = cv2.findHomography(obj[:, :2], img, 0)
            if h is None:
                raise cv2.error("homography failed")
            reproj = cv2.perspectiveTransform(obj[:, :2].reshape(-1, 1, 2), h).reshape(-1, 2)
            err = _rms(reproj, img)
            loc = TableLocation(True, "homography", homography=h, reprojection_error_px=err,
                                anchors_seen=seen, anchors_used=tuple(use), warning=HOMOGRAPHY_WARNING)
        per_anchor = [_rms(reproj[4 * k:4 * k + 4], img[4 * k:4 * k + 4]) for k in range(len(use))]
        return loc, per_anchor

    use = list(ids)
    try:
        loc, per_anchor = fit(use)
        while loc.reprojection_error_px > max_error_px and len(use) > max(min_anchors, 2):
            use.pop(int(np.argmax(per_anchor)))
            loc, per_anchor = fit(use)
    except cv2.error as exc:
        return TableLocation.not_located(f"pose solver failed on {seen} anchors ({exc})", seen)
    if loc.reprojection_error_px > max_error_px:
        return TableLocation.not_located(
            f"anchors disagree with table.toml (reprojection error {loc.reprojection_error_px:.1f} px); "
            "has an anchor moved?", seen)
    if len(use) < seen:
        dropped = sorted(set(ids) - set(use))
        note = f"anchor(s) {dropped} ignored: not where table.toml puts them"
        loc = TableLocation(**{**loc.__dict__, "warning": "; ".join(filter(None, [loc.warning, note]))})
    return loc
