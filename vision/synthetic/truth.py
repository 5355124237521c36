"""What a render really shows: every marker's corners in pixels and every base's pose."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class MarkerTruth:
    """One marker as the camera sees it.

    corners_px: 4x2 distorted pixel coordinates of the black square's corners, in OpenCV's
    order (top-left, top-right, bottom-right, bottom-left of the marker image) and OpenCV's
    pixel-centre convention (the centre of pixel (0, 0) is at (0.0, 0.0)).
    visible_fraction: share of the black square inside the image and not hidden by a hand or
    a nearer base (0..1).
    """

    corners_px: np.ndarray = field(repr=False)
    visible_fraction: float
    is_anchor: bool
    base_id: str | None = None


@dataclass(frozen=True)
class BasePoseTruth:
    """The pose a base was rendered at, in the table frame."""

    x_mm: float
    y_mm: float
    heading_deg: float


@dataclass(frozen=True)
class GroundTruth:
    """Everything rendered in one frame, keyed by marker id and by base id."""

    markers: dict[int, MarkerTruth]
    bases: dict[str, BasePoseTruth]
    tokens: dict[str, BasePoseTruth] = field(default_factory=dict)  # token id -> its card's centre and up

    def without_tokens_in_bases(self, token_ids: set[str]) -> GroundTruth:
        """This truth with the tokens (rendered as thin cards) moved from `bases` to `tokens`."""
        return GroundTruth(self.markers, {k: b for k, b in self.bases.items() if k not in token_ids},
                           {**self.tokens, **{k: b for k, b in self.bases.items() if k in token_ids}})

    def visible_markers(self, min_fraction: float = 0.999) -> dict[int, MarkerTruth]:
        """Markers that a detector should find: (almost) wholly visible."""
        return {k: m for k, m in self.markers.items() if m.visible_fraction >= min_fraction}

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (for golden files next to rendered images); `from_json` reads it back."""
        return {
            "markers": {str(k): {"corners_px": np.round(m.corners_px, 4).tolist(), "visible_fraction": round(m.visible_fraction, 4),
                                 "is_anchor": m.is_anchor, "base_id": m.base_id} for k, m in sorted(self.markers.items())},
            "bases": {k: {"x_mm": b.x_mm, "y_mm": b.y_mm, "heading_deg": b.heading_deg} for k, b in self.bases.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GroundTruth:
        markers = {int(k): MarkerTruth(np.array(m["corners_px"], dtype=np.float64), float(m["visible_fraction"]),
                                       bool(m["is_anchor"]), m.get("base_id")) for k, m in data["markers"].items()}
        bases = {k: BasePoseTruth(float(b["x_mm"]), float(b["y_mm"]), float(b["heading_deg"])) for k, b in data["bases"].items()}
        return cls(markers, bases)


@dataclass(frozen=True, eq=False)
class Render:
    """A rendered frame (BGR uint8) with its ground truth."""

    image: np.ndarray = field(repr=False)
    truth: GroundTruth
