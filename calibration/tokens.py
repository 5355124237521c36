"""Where the roster's status tokens lie on the table, from the markers of one frame.

A token is a marker on a thin card (`RosterToken`): its corners are cut with the plane at the
card's height, like a base's. Never guessed: a token marker read twice gives no place (it is
named in ``duplicates``), and one whose measured size or shape is far from the roster's is a
misread (``rejected``, with why). Which base a token is against is the engine's geometry
(`campo.engine.geometry.attach`), judged from these places by the live server.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from campo.calibration.poses import MAX_ELONGATION, SIZE_TOLERANCE, elongation, image_to_plane
from campo.calibration.registration import TableLocation
from campo.vision.camera_model import Intrinsics
from campo.vision.detection.types import Detection
from campo.vision.tabletop import Roster


@dataclass(frozen=True)
class TokenReading:
    """A token seen in this frame: its centre in the table frame (mm)."""

    id: str
    marker: int
    x_mm: float
    y_mm: float

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "marker": self.marker, "x_mm": round(self.x_mm, 2), "y_mm": round(self.y_mm, 2)}


@dataclass(frozen=True)
class TokenReport:
    """Every token the markers of one frame place, and those they cannot."""

    tokens: list[TokenReading] = field(default_factory=list)
    duplicates: list[int] = field(default_factory=list)
    rejected: dict[int, str] = field(default_factory=dict)
    readings: dict[int, Detection] = field(default_factory=dict, repr=False)  # marker -> the reading placed


def read_tokens(detections: Iterable[Detection], location: TableLocation, roster: Roster,
                intrinsics: Intrinsics | None, *, size_tolerance: float = SIZE_TOLERANCE) -> TokenReport:
    """The roster's tokens among ``detections`` (none without a located table)."""
    by_marker = roster.tokens_by_marker()
    mine = [d for d in detections if d.marker_id in by_marker]
    if not mine:
        return TokenReport()
    counts = Counter(d.marker_id for d in mine)
    duplicates = sorted(m for m, n in counts.items() if n > 1)
    if not location.located:
        return TokenReport(duplicates=duplicates)
    single = [d for d in mine if counts[d.marker_id] == 1]
    tokens, rejected, readings = [], {}, {}
    for d in single:
        token = by_marker[d.marker_id]
        z = token.height_mm if location.method == "pnp" else 0.0
        plane = image_to_plane(d.corners_px, location, intrinsics, z)
        if not np.all(np.isfinite(plane)):
            rejected[d.marker_id] = "not on the table"
            continue
        ratio = float(np.mean(np.linalg.norm(plane - np.roll(plane, -1, axis=0), axis=1))) / token.size_mm
        if abs(ratio - 1.0) > size_tolerance:
            rejected[d.marker_id] = f"measured size {ratio:.2f} x the roster's {token.size_mm:g} mm"
            continue
        if not elongation(plane) <= MAX_ELONGATION:
            rejected[d.marker_id] = f"not square on the table (elongation {elongation(plane):.2f})"
            continue
        centre = plane.mean(axis=0)
        tokens.append(TokenReading(token.id, token.marker, float(centre[0]), float(centre[1])))
        readings[d.marker_id] = d
    tokens.sort(key=lambda t: t.id)
    return TokenReport(tokens, duplicates, rejected, readings)
