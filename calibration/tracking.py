"""Base poses over time: steady when a base stands still, immediate when it is really moved.

Per base the tracker keeps the mean of the measurements since the base last moved. A new
measurement within the noise band (`snap_mm`, `snap_deg`) of that mean joins it, so jitter
averages away; one outside it means the base was moved, and the pose snaps to it at once (no lag,
no smoothing tail). A base whose marker is not seen (a hand over it) keeps its last pose, flagged
`stale` with the time it was last seen; it is never deleted.

The tracker also says where to look in the next frame. It remembers each marker's image position
and image velocity, so a marker is looked for where it should be by now (last position plus
velocity times the time since), in a window that grows with the time since it was last seen:
at 2 frames per second a base being moved travels several marker widths between frames.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from campo.calibration.poses import BasePose
from campo.vision.detection.types import Detection, Window


@dataclass(frozen=True)
class TrackerSettings:
    snap_mm: float = 1.5  # a measurement further than this from the mean is a move
    snap_deg: float = 3.0
    window: int = 12  # at most this many measurements are averaged
    search_margin_sides: float = 3.0  # search window margin around a lost marker, in its sides
    search_growth_sides_per_s: float = 8.0  # ... plus this per second since it was last seen (a base carried)
    max_speed_sides_per_s: float = 20.0  # image velocities above this are misreads, not motion


@dataclass(frozen=True)
class TrackedBase:
    """A base's filtered pose; `stale` when its marker was not seen in the latest frame."""

    id: str
    marker: int
    x_mm: float
    y_mm: float
    heading_deg: float
    stale: bool
    last_seen_t: float
    moved_t: float  # when the base last moved (snap)

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "marker": self.marker, "x_mm": round(self.x_mm, 2),
                "y_mm": round(self.y_mm, 2), "heading_deg": round(self.heading_deg, 2),
                "stale": self.stale, "last_seen_t": round(self.last_seen_t, 3)}


def _angle_diff(a: float, b: float) -> float:
    """a - b wrapped to [-180, 180)."""
    return (a - b + 180.0) % 360.0 - 180.0


@dataclass
class _Track:
    marker: int
    xs: list[float] = field(default_factory=list)
    ys: list[float] = field(default_factory=list)
    hs: list[float] = field(default_factory=list)  # unwrapped around the first heading
    last_seen_t: float = 0.0
    moved_t: float = 0.0

    def mean(self) -> tuple[float, float, float]:
        n = len(self.xs)  # plain sums: these lists hold at most `window` numbers
        return sum(self.xs) / n, sum(self.ys) / n, (sum(self.hs) / n) % 360.0

    def restart(self, pose: BasePose, t: float) -> None:
        self.xs, self.ys, self.hs = [pose.x_mm], [pose.y_mm], [pose.heading_deg]
        self.moved_t = t

    def add(self, pose: BasePose, window: int) -> None:
        ref = self.hs[0]
        self.xs.append(pose.x_mm)
        self.ys.append(pose.y_mm)
        self.hs.append(ref + _angle_diff(pose.heading_deg, ref))
        del self.xs[:-window], self.ys[:-window], self.hs[:-window]


class Tracker:
    """Filters base poses frame after frame and remembers where each marker was in the image."""

    def __init__(self, settings: TrackerSettings | None = None) -> None:
        self.settings = settings or TrackerSettings()
        self._tracks: dict[str, _Track] = {}
        self._last: dict[int, Detection] = {}  # marker id -> its detection at last sighting
        self._seen_t: dict[int, float] = {}  # marker id -> when (s); absent when no time was given
        self._velocity: dict[int, np.ndarray] = {}  # marker id -> image velocity of its corners (px/s)

    def update(self, t: float, poses: list[BasePose]) -> list[TrackedBase]:
        """Feed one frame's measured poses (taken at time `t`, seconds); returns every known base."""
        s = self.settings
        seen = set()
        for pose in poses:
            seen.add(pose.id)
            track = self._tracks.get(pose.id)
            if track is None or track.marker != pose.marker:
                track = _Track(pose.marker)
                track.restart(pose, t)
                self._tracks[pose.id] = track
            else:
                x, y, h = track.mean()
                far = math.hypot(pose.x_mm - x, pose.y_mm - y) > s.snap_mm
                turned = abs(_angle_diff(pose.heading_deg, h)) > s.snap_deg
                if far or turned:
                    track.restart(pose, t)
                else:
                    track.add(pose, s.window)
            track.last_seen_t = t
        return self.bases(seen)

    def bases(self, seen: set[str] | None = None) -> list[TrackedBase]:
        """Every base ever seen, freshest pose first by id; those not in `seen` are stale."""
        out = []
        for base_id in sorted(self._tracks):
            tr = self._tracks[base_id]
            x, y, h = tr.mean()
            stale = seen is None or base_id not in seen
            out.append(TrackedBase(base_id, tr.marker, x, y, h, stale, tr.last_seen_t, tr.moved_t))
        return out

    def remember_pixels(self, detections: list[Detection], t: float | None = None) -> None:
        """Keep the image position of every marker read this frame (taken at `t` s) for the next.

        Markers not read this frame keep their older position, so they are looked for there
        (moved on by their velocity, when times are given).
        """
        s = self.settings
        for d in detections:
            before, before_t = self._last.get(d.marker_id), self._seen_t.get(d.marker_id)
            self._last[d.marker_id] = d
            if t is None:
                continue
            if before is not None and before_t is not None and t > before_t:
                v = (d.corners_px - before.corners_px) / (t - before_t)
                speed = float(np.linalg.norm(v.mean(axis=0)))
                self._velocity[d.marker_id] = v if speed <= s.max_speed_sides_per_s * d.side_px else np.zeros_like(v)
            else:
                self._velocity[d.marker_id] = np.zeros_like(d.corners_px)
            self._seen_t[d.marker_id] = t

    def moving_windows(self, min_px_per_s: float, back_s: float, sides: float) -> list[Window]:
        """Windows around the bases' markers moving faster than ``min_px_per_s`` in the image,
        from where they were ``back_s`` ago to where they are, grown by ``sides`` of their side:
        a base being carried, and the table it uncovers."""
        out = []
        for track in self._tracks.values():
            det, v = self._last.get(track.marker), self._velocity.get(track.marker)
            if det is None or v is None or float(np.linalg.norm(v.mean(axis=0))) < min_px_per_s:
                continue
            out.append(Window.around(np.concatenate([det.corners_px, det.corners_px - v * back_s]),
                                     sides * det.side_px))
        return out

    def forget_markers(self, markers: set[int]) -> None:
        """Stop following these markers (a status token lifted off the table: its window would
        otherwise grow until every frame is a full scan); a full scan finds them again."""
        for m in markers:
            self._last.pop(m, None)
            self._seen_t.pop(m, None)
            self._velocity.pop(m, None)

    def seen_at(self, marker: int) -> float | None:
        """When this marker was last read (s), or None when it is not followed."""
        return self._seen_t.get(marker)

    def forget_pixels(self) -> None:
        """The camera moved (or the table was lost): old image positions mean nothing now."""
        self._last.clear()
        self._seen_t.clear()
        self._velocity.clear()

    def last_detections(self) -> list[Detection]:
        """Every marker's most recent detection (to follow it into the next frame)."""
        return list(self._last.values())

    def _predicted_corners(self, marker_id: int, t: float | None) -> tuple[np.ndarray, float]:
        """Where a marker's corners should be at `t`, and the seconds since it was seen (0 if unknown)."""
        det = self._last[marker_id]
        seen = self._seen_t.get(marker_id)
        if t is None or seen is None:
            return det.corners_px, 0.0
        age = max(0.0, t - seen)
        v = self._velocity.get(marker_id)
        return (det.corners_px if v is None else det.corners_px + v * age), age

    def predicted_detections(self, t: float | None) -> list[Detection]:
        """Every marker's last detection moved on by its image velocity to time `t`."""
        out = []
        for marker_id, det in self._last.items():
            corners, age = self._predicted_corners(marker_id, t)
            out.append(det if age == 0.0 else replace(det, corners_px=corners))
        return out

    def search_windows(self, margin_px: float | None = None, markers: set[int] | None = None,
                       t: float | None = None) -> list[Window]:
        """Windows where markers should be (all, or those in `markers`).

        Without `t`: around their last image positions. With `t`: around where their velocity
        puts them by then, grown by `search_growth_sides_per_s` per second since they were last
        seen (a lost base may have been carried off; the longer it is lost, the wider the look).
        """
        s = self.settings
        out = []
        for marker_id, det in self._last.items():
            if markers is not None and marker_id not in markers:
                continue
            corners, age = self._predicted_corners(marker_id, t)
            side = det.side_px
            margin = margin_px if margin_px is not None else (s.search_margin_sides + s.search_growth_sides_per_s * age) * side
            # the window covers both the last sighting and the prediction (the base may have stopped)
            out.append(Window.around(np.concatenate([det.corners_px, corners]), margin))
        return out
