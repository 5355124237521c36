"""The camera's picture for the setup page, with what the setup sees drawn on it.

While calibrating: the coverage grid (cells that hold corners of a kept view tinted), the outline
of every kept view, and the corners found in this frame. During the table check: each anchor,
each base's marker (green, with its id) and each marker not on the roster (orange).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

GREEN = (80, 200, 80)
ORANGE = (0, 150, 255)
BLUE = (235, 160, 40)
YELLOW = (40, 220, 255)


def _scaled(image: np.ndarray, width: int) -> tuple[np.ndarray, float]:
    h, w = image.shape[:2]
    s = min(1.0, width / w)
    if s < 1.0:
        image = cv2.resize(image, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA)
    else:
        image = image.copy()
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return image, s


def jpeg(image: np.ndarray, quality: int = 80) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


def calibration_picture(image: np.ndarray, width: int, corners: np.ndarray | None, outlines: list[np.ndarray],
                        rows: list[str]) -> np.ndarray:
    out, s = _scaled(image, width)
    h, w = out.shape[:2]
    if rows:
        tint = out.copy()
        n_rows, n_cols = len(rows), len(rows[0])
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                x0, y0 = int(c * w / n_cols), int(r * h / n_rows)
                x1, y1 = int((c + 1) * w / n_cols), int((r + 1) * h / n_rows)
                if cell == "#":
                    cv2.rectangle(tint, (x0, y0), (x1, y1), GREEN, -1)
                cv2.rectangle(out, (x0, y0), (x1, y1), (200, 200, 200), 1)
        out = cv2.addWeighted(tint, 0.28, out, 0.72, 0)
    for o in outlines:
        cv2.polylines(out, [np.round(o * s).astype(np.int32)], True, YELLOW, 2, cv2.LINE_AA)
    if corners is not None:
        for x, y in np.asarray(corners).reshape(-1, 2) * s:
            cv2.circle(out, (int(round(x)), int(round(y))), 4, GREEN, -1, cv2.LINE_AA)
    return out


def check_picture(image: np.ndarray, width: int, check: dict[str, Any]) -> np.ndarray:
    out, s = _scaled(image, width)

    def box(centre: list[float], side: float, colour: tuple[int, int, int], text: str) -> None:
        cx, cy = centre[0] * s, centre[1] * s
        half = max(6.0, side * s * 0.75)
        cv2.rectangle(out, (int(cx - half), int(cy - half)), (int(cx + half), int(cy + half)), colour, 2)
        cv2.putText(out, text, (int(cx - half), int(cy - half - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3,
                    cv2.LINE_AA)
        cv2.putText(out, text, (int(cx - half), int(cy - half - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1,
                    cv2.LINE_AA)

    for b in check.get("bases", []):
        sight = b.get("sighting")
        if sight:
            colour = GREEN if b["seen"] else ORANGE
            box(sight["centre_px"], sight["side_px"], colour, b["id"])
    for u in check.get("unknown", []):
        box(u["centre_px"], u["side_px"], ORANGE, f"? {u['marker']}")
    return out
