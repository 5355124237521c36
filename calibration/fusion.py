"""One table from several cameras: each camera's base readings fused into one reading per base.

Every camera has its own `FramePipeline` (its own detection, registration and pixel tracking);
what they measured in table millimetres in one round of frames is fused here, *before* the
game's one tracker (`calibration/cameras.py`), so each base has exactly one track whatever
number of cameras see it. Rules:

- A base is known by its marker id, so a base read by two cameras (in the seam) is one base:
  never doubled, and never lost as long as one camera reads its marker whole.
- Readings that agree are weighed by their expected error (`expected_error_mm`): the camera's
  millimetres per pixel at the marker, worse when the marker is foreshortened (seen at a slant)
  or touches the image's edge. Position: the weighted mean; heading: the weighted circular mean.
- Readings that disagree (further apart than `DISAGREE_MM`, or turned by more than
  `DISAGREE_DEG`) are not averaged and no camera is believed: the base gets no pose this round
  (the tracker keeps its last one, stale) and the disagreement is reported, naming the cameras
  and both places. Either a camera is badly registered or one marker id is on the table twice:
  both need a person, as a marker read twice by one camera does (`PoseReport.duplicate_markers`).
- An id read twice by any one camera gives no pose (that camera's duplicate stands).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from campo.calibration.poses import BasePose, PoseReport
from campo.vision.detection.types import Detection

DISAGREE_MM = 5.0
"""Two cameras placing one marker further apart than this (mm) disagree: no average is given."""

DISAGREE_DEG = 10.0
"""... or turning it by more than this (degrees)."""

EDGE_SIDES = 0.5
"""A marker closer than this many of its sides to the image's edge may be partly cut off."""

EDGE_PENALTY = 4.0
"""How much less such a marker's reading is trusted (its expected error is multiplied)."""

CORNER_NOISE_PX = 0.1
"""Corner noise assumed for one marker corner (px); only the ratios between cameras matter."""


@dataclass(frozen=True)
class CameraReadings:
    """What one camera measured in one frame, in table mm (its `FrameResult.report`)."""

    camera: str
    report: PoseReport
    image_size: tuple[int, int]  # (width, height) of the frame, for the edge rule


@dataclass(frozen=True)
class Disagreement:
    """One marker that two cameras place far apart: reported, never averaged."""

    base: str
    marker: int
    readings: tuple[tuple[str, float, float, float], ...]  # (camera, x_mm, y_mm, heading_deg)
    distance_mm: float
    turn_deg: float

    def describe(self) -> str:
        where = "; ".join(f"{c} ({x:.1f}, {y:.1f}) mm {h:.0f} deg" for c, x, y, h in self.readings)
        return (f"cameras disagree on {self.base} (marker {self.marker}): {self.distance_mm:.1f} mm "
                f"and {self.turn_deg:.0f} deg apart: {where} (no pose; check each camera's registration "
                "and that the marker is not printed twice)")

    def to_json(self) -> dict[str, object]:
        return {"base": self.base, "marker": self.marker, "distance_mm": round(self.distance_mm, 2),
                "turn_deg": round(self.turn_deg, 2),
                "readings": [{"camera": c, "x_mm": round(x, 2), "y_mm": round(y, 2), "heading_deg": round(h, 2)}
                             for c, x, y, h in self.readings]}


@dataclass(frozen=True)
class FusedReport:
    """The bases of one round of frames, one reading each, and what the cameras did not agree on."""

    bases: list[BasePose]
    seen_by: dict[str, tuple[str, ...]]  # base id -> the cameras whose readings made its pose
    disagreements: list[Disagreement] = field(default_factory=list)
    unknown_markers: list[int] = field(default_factory=list)
    duplicate_markers: list[int] = field(default_factory=list)
    rejected: dict[int, str] = field(default_factory=dict)


def expected_error_mm(pose: BasePose, detection: Detection | None, image_size: tuple[int, int],
                      marker_size_mm: float) -> float:
    """How far off this camera's reading of this marker is expected to be (mm, relative scale).

    The marker's side in millimetres over its side in pixels is the camera's scale there; a
    marker seen at a slant (its image quadrilateral elongated) has fewer pixels across one way
    and is trusted less by that ratio; one near the image's edge may be cut off or warped by the
    lens's edge and is trusted `EDGE_PENALTY` times less.

    >>> from campo.vision.detection.types import Detection
    >>> sq = lambda x, s: np.array([[x, 100], [x + s, 100], [x + s, 100 + s], [x, 100 + s]], float)
    >>> p = BasePose("a", 1, 0.0, 0.0, 0.0, np.zeros((4, 2)))
    >>> near, far = (expected_error_mm(p, Detection(1, sq(500, s)), (1920, 1080), 16.0) for s in (32, 16))
    >>> round(far / near, 3)
    2.0
    """
    if detection is None:
        return math.inf
    c = np.asarray(detection.corners_px, dtype=np.float64).reshape(4, 2)
    sides = np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)
    side_px = float(sides.mean())
    if not side_px > 0:
        return math.inf
    slant = float(sides.max() / max(sides.min(), 1e-9))
    sigma = CORNER_NOISE_PX * marker_size_mm / side_px * slant
    w, h = image_size
    margin = float(min(c[:, 0].min(), c[:, 1].min(), w - 1 - c[:, 0].max(), h - 1 - c[:, 1].max()))
    if margin < EDGE_SIDES * side_px:
        sigma *= EDGE_PENALTY
    return sigma


def _turn(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


@dataclass(frozen=True)
class _Reading:
    camera: str
    pose: BasePose
    sigma: float


def _weighted(readings: list[_Reading]) -> BasePose:
    """The readings' weighted mean pose (weights 1/sigma^2); the best reading's corners kept."""
    w = np.array([1.0 / max(r.sigma, 1e-9) ** 2 for r in readings])
    w /= w.sum()
    xs = np.array([r.pose.x_mm for r in readings])
    ys = np.array([r.pose.y_mm for r in readings])
    hs = np.radians([r.pose.heading_deg for r in readings])
    heading = math.degrees(math.atan2(float(w @ np.sin(hs)), float(w @ np.cos(hs)))) % 360.0
    best = min(readings, key=lambda r: r.sigma).pose
    ratio = float(w @ np.array([r.pose.size_ratio for r in readings]))
    return replace(best, x_mm=float(w @ xs), y_mm=float(w @ ys), heading_deg=heading, size_ratio=ratio)


def _disagreement(readings: list[_Reading], disagree_mm: float, disagree_deg: float) -> Disagreement | None:
    """The widest pair of readings when any two disagree, else None."""
    worst: tuple[float, float] | None = None
    for i, a in enumerate(readings):
        for b in readings[i + 1:]:
            d = math.hypot(a.pose.x_mm - b.pose.x_mm, a.pose.y_mm - b.pose.y_mm)
            t = _turn(a.pose.heading_deg, b.pose.heading_deg)
            if (d > disagree_mm or t > disagree_deg) and (worst is None or d > worst[0]):
                worst = (d, t)
    if worst is None:
        return None
    p = readings[0].pose
    return Disagreement(p.id, p.marker, tuple((r.camera, r.pose.x_mm, r.pose.y_mm, r.pose.heading_deg)
                                              for r in readings), worst[0], worst[1])


def fuse(cameras: Sequence[CameraReadings], marker_sizes: dict[int, float], *,
         disagree_mm: float = DISAGREE_MM, disagree_deg: float = DISAGREE_DEG) -> FusedReport:
    """One pose per base from every camera's readings of one round (see the module's rules).

    `marker_sizes`: marker id -> printed side (mm), for the expected errors.
    """
    by_base: dict[str, list[_Reading]] = {}
    duplicates: set[int] = set()
    unknown: set[int] = set()
    rejected: dict[int, str] = {}
    for cam in cameras:
        rep = cam.report
        duplicates.update(rep.duplicate_markers)
        unknown.update(rep.unknown_markers)
        for marker, why in rep.rejected.items():
            rejected.setdefault(marker, f"{cam.camera}: {why}")
        for pose in rep.bases:
            sigma = expected_error_mm(pose, rep.readings.get(pose.marker), cam.image_size,
                                      marker_sizes.get(pose.marker, 1.0))
            by_base.setdefault(pose.id, []).append(_Reading(cam.camera, pose, sigma))
    bases: list[BasePose] = []
    seen_by: dict[str, tuple[str, ...]] = {}
    disagreements: list[Disagreement] = []
    for base_id in sorted(by_base):
        readings = by_base[base_id]
        if readings[0].pose.marker in duplicates:
            continue
        clash = _disagreement(readings, disagree_mm, disagree_deg) if len(readings) > 1 else None
        if clash is not None:
            disagreements.append(clash)
            continue
        bases.append(readings[0].pose if len(readings) == 1 else _weighted(readings))
        seen_by[base_id] = tuple(r.camera for r in readings)
    # a marker some camera could not pose is not rejected when another camera posed it
    posed = {b.marker for b in bases}
    rejected = {m: why for m, why in rejected.items() if m not in posed}
    return FusedReport(bases, seen_by, disagreements, sorted(unknown), sorted(duplicates), rejected)
