"""The camera's own image with the overlay drawn on it: markers, base outlines, a base's arc.

Rendered only when a page asks for it (`/api/camera.jpg`), at a reduced width, and cached per
frame, so the camera panel costs nothing when nobody looks at it. Table geometry is projected
into the image through the frame's own `TableLocation` (at each base's height when the camera is
calibrated), so what is drawn is exactly what the pipeline believes.
"""

from __future__ import annotations

import threading
from typing import Any

import cv2
import numpy as np

from campo.server.live import CameraView
from campo.vision.camera_model import Intrinsics
from campo.vision.tabletop import Roster, TableConfig

SIDE_BGR = {"A": (235, 120, 30), "B": (40, 40, 220)}  # blue for A, red for B (as on the page)
STALE_BGR = (150, 150, 150)
KNOWN_MARKER_BGR = (60, 200, 60)
UNKNOWN_MARKER_BGR = (0, 140, 255)
ARC_BGR = (0, 215, 255)


def base_corners_mm(base: dict[str, Any]) -> np.ndarray:
    """The 4 corners (table mm) of a base from its centre, heading and size."""
    a = np.radians(base["heading_deg"])
    front = np.array([np.cos(a), np.sin(a)])
    right = np.array([np.sin(a), -np.cos(a)])
    c = np.array([base["x_mm"], base["y_mm"]])
    hw, hd = base["width_mm"] / 2, base["depth_mm"] / 2
    return np.array([c + hd * front - hw * right, c + hd * front + hw * right,
                     c - hd * front + hw * right, c - hd * front - hw * right])


class CameraRenderer:
    """Draws and JPEG-encodes the camera panel, one cached image per frame and request shape."""

    def __init__(self, table: TableConfig, roster: Roster, intrinsics: Intrinsics | None) -> None:
        self.table = table
        self.heights = {b.id: b.height_mm for b in roster.bases}
        self.intrinsics = intrinsics
        self._lock = threading.Lock()
        self._cache: tuple[tuple[Any, ...], bytes] | None = None

    def jpeg(self, view: CameraView, state: dict[str, Any] | None, *, overlay: bool = True,
             width: int = 960, base_id: str | None = None, geometry: dict[str, Any] | None = None) -> bytes:
        key = (view.frame.index, id(state), overlay, width, base_id)
        with self._lock:
            if self._cache is not None and self._cache[0] == key:
                return self._cache[1]
        image = view.frame.image.copy()
        if overlay:
            self._draw(image, view, state, geometry)
        h, w = image.shape[:2]
        if w > width:
            image = cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
        if not ok:  # pragma: no cover - encoding a valid BGR image does not fail
            raise RuntimeError("JPEG encoding failed")
        data = buf.tobytes()
        with self._lock:
            self._cache = (key, data)
        return data

    def _intrinsics_for(self, image: np.ndarray) -> Intrinsics | None:
        intr = self.intrinsics
        h, w = image.shape[:2]
        if intr is not None and intr.image_size != (w, h):
            intr = intr.scaled(w, h)
        return intr

    def _draw(self, image: np.ndarray, view: CameraView, state: dict[str, Any] | None,
              geometry: dict[str, Any] | None) -> None:
        scale = max(1, round(image.shape[1] / 960))
        result = view.result
        unknown = set(getattr(result.report, "unknown_markers", []))
        for d in result.detections:
            colour = UNKNOWN_MARKER_BGR if d.marker_id in unknown else KNOWN_MARKER_BGR
            pts = np.round(d.corners_px).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(image, [pts], True, colour, scale, cv2.LINE_AA)
            corner = tuple(int(v) for v in d.corners_px[0])
            cv2.putText(image, str(d.marker_id), corner, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, colour,
                        scale, cv2.LINE_AA)
        location = result.location
        if not location.located or state is None:
            cv2.putText(image, "table not located", (20 * scale, 40 * scale), cv2.FONT_HERSHEY_SIMPLEX,
                        1.0 * scale, (0, 0, 255), 2 * scale, cv2.LINE_AA)
            return
        intr = self._intrinsics_for(image)
        for base in state.get("bases", []):
            z = self.heights.get(base["id"], 0.0) if location.method == "pnp" else 0.0
            corners = np.column_stack([base_corners_mm(base), np.full(4, z)])
            px = np.round(location.project(corners, intr)).astype(np.int32).reshape(-1, 1, 2)
            colour = STALE_BGR if base.get("stale") else SIDE_BGR.get(base["side"], STALE_BGR)
            cv2.polylines(image, [px], True, colour, 2 * scale, cv2.LINE_AA)
            front = px[:2].reshape(2, 2)
            cv2.line(image, tuple(front[0]), tuple(front[1]), colour, 4 * scale, cv2.LINE_AA)
        if geometry:
            for key in ("arc", "charge_arc"):
                poly = geometry.get(key) or []
                if len(poly) >= 3:
                    px = np.round(location.project(np.array(poly, dtype=np.float64), intr)).astype(np.int32)
                    cv2.polylines(image, [px.reshape(-1, 1, 2)], True, ARC_BGR, scale, cv2.LINE_AA)
