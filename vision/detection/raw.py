"""Every marker of one dictionary in a photo, with no table or roster: `read_markers`.

What `campo detect --dictionary D --json` prints, and what a setup page calls to check a camera
or a print. Nothing is known in advance (no marker size, no expected ids, no light), so the scan
finds out for itself what the table pipeline is told by its anchors:

1. squares are proposed at full size by contours (three adaptive-threshold windows), and, for
   what contours miss (steeply tilted or broken outlines), by OpenCV's ArucoDetector on the
   squares contours did not read;
2. where squares too small to read well at full size remain unread (sides under
   `SMALL_SIDE_PX`), those places alone are searched again upsampled 2x (packed windows, one
   finder call), so 8-15 px markers are found without being asked for;
3. every reading is refined on its whole edges and confirmed under its final corners
   (`MarkerDetector.finish`): no id is ever reported from a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from campo.errors import CampoInputError
from campo.vision.detection.bits import read_cells
from campo.vision.detection.detector import DetectorSettings, MarkerDetector, small_marker_settings, to_gray
from campo.vision.detection.regions import marker_windows
from campo.vision.detection.types import Detection, Window

SMALL_SIDE_PX = 15.0
"""Unread squares smaller than this are looked at again, upsampled (below ~2.5 px per cell the
bits of a 4x4 marker cannot be read at full size)."""

SMALL_EVIDENCE = 3
"""Unread squares under `SMALL_SIDE_PX` that make the small-marker search look everywhere."""

MIN_SIDE_PX = 7.0
"""The smallest square worth proposing (8-px markers are read once upsampled)."""


def known_dictionaries() -> list[str]:
    """OpenCV's predefined dictionaries (ArUco, AprilTag, ARUCO_MIP...), by name."""
    return sorted(n for n in dir(cv2.aruco) if n.startswith("DICT_") and isinstance(getattr(cv2.aruco, n), int))


def check_dictionary(name: str, key: str = "--dictionary") -> str:
    """`name` if OpenCV knows it, else a `CampoInputError` listing the names it knows."""
    if name not in known_dictionaries():
        raise CampoInputError(f"unknown dictionary {name!r}; known: {', '.join(known_dictionaries())}", key=key)
    return name


@dataclass(frozen=True)
class RawScanSettings:
    """How hard `read_markers` looks (the defaults are the measured choices, docs/vision.md)."""

    aruco_proposals: bool = True  # ArucoDetector proposes too (squares contours cannot close)
    small_pass: bool = True  # unread small squares searched again upsampled
    small_upsample: float = 2.0


class RawReader:
    """Reads every marker of one dictionary; built once per dictionary, `read` is pure."""

    def __init__(self, dictionary_name: str, settings: RawScanSettings | None = None) -> None:
        check_dictionary(dictionary_name)
        self.settings = settings or RawScanSettings()
        base = DetectorSettings(finder="contours", min_side_px=MIN_SIDE_PX)
        self.contours = MarkerDetector(dictionary_name, base)
        self.aruco = self.contours.with_settings(replace(base, finder="aruco"))
        self.small = self.contours.with_settings(
            small_marker_settings(replace(base, finder="contours", adaptive_win_min=7, adaptive_win_max=13,
                                          adaptive_win_step=6),
                                  self.settings.small_upsample, MIN_SIDE_PX, SMALL_SIDE_PX))

    def read(self, image: np.ndarray) -> list[Detection]:
        """Every marker read in `image` (grey or BGR), corners in OpenCV's order and convention."""
        gray = to_gray(image)
        read, unread = self._scan_all(gray)
        # unread squares of a marker's size, clear of what was read: blurred markers, read by
        # fitting their cells (`blurred.py`) once their edges are refined
        dets = self.contours.finish(gray, read, _unread_worth_reading(unread, [c for _, c in read]))
        if self.settings.small_pass:
            dets += self._small_markers(gray, dets, unread)
        return sorted(dets, key=lambda d: (d.marker_id, float(d.centre_px[1]), float(d.centre_px[0])))

    def _scan_all(self, gray: np.ndarray) -> tuple[list[tuple[int, np.ndarray]], list[np.ndarray]]:
        """Squares read and not read, by contours and then ArucoDetector (only new places kept)."""
        read, unread = self.contours.scan(gray, keep_unread=True)
        if self.settings.aruco_proposals:
            more, more_unread = self.aruco.scan(gray, keep_unread=True)
            read += [r for r in more if not _near_any(r[1], [c for _, c in read])]
            unread += more_unread
        return read, unread

    def _small_markers(self, gray: np.ndarray, found: list[Detection], unread: list[np.ndarray]) -> list[Detection]:
        """Markers under `SMALL_SIDE_PX`, searched upsampled where a marker can be.

        Once small markers show (read ones, or `SMALL_EVIDENCE` unread small squares), all the
        places with a marker's black next to its quiet zone's white are searched
        (`regions.marker_windows`, the levels from the small markers read, else the image's
        darkest and lightest percentiles): at 8-12 px most markers are not even a square at
        full size. Otherwise only the unread small squares are looked at again.
        """
        known = [d.corners_px for d in found]
        small = [q for q in unread if _side(q) < SMALL_SIDE_PX and not _near_any(q, known)]
        small_read = [d for d in found if d.side_px < SMALL_SIDE_PX]
        h, w = gray.shape[:2]
        if small_read or len(small) >= SMALL_EVIDENCE:
            black, white = _levels(gray, small_read, self.contours.cells)
            side = float(np.median([d.side_px for d in small_read] or [_side(q) for q in small]))
            windows = marker_windows(gray, Window(0, 0, w, h), black, white, side)
        else:
            windows = [Window.around(q, 1.5 * _side(q) + 2).clipped(w, h) for q in small]
        if not windows:
            return []
        read, unread_small = self.small.scan(gray, windows, keep_unread=True)
        read = [r for r in read if not _near_any(r[1], known)]
        # squares read neither at full size nor upsampled: refined, then read blurred (blurred.py)
        unread_small = _unread_worth_reading(unread_small, known + [c for _, c in read], MIN_SIDE_PX)
        return self.small.finish(gray, read, unread_small) if read or unread_small else []


def _levels(gray: np.ndarray, dets: list[Detection], cells: int) -> tuple[float, float]:
    """Grey levels of marker black and quiet-zone white: from `dets`' border cells and ring,
    else the image's 2nd and 98th percentiles."""
    if dets:
        grid, ring = read_cells(gray, np.stack([d.corners_px for d in dets]), cells)
        border = np.ones((cells, cells), bool)
        border[1:-1, 1:-1] = False
        return float(np.median(grid[:, border])), float(np.median(ring))
    lo, hi = np.percentile(gray[::4, ::4], [2, 98])
    return float(lo), float(hi)


def _unread_worth_reading(unread: list[np.ndarray], read: list[np.ndarray],
                          min_side_px: float = SMALL_SIDE_PX) -> list[np.ndarray]:
    """Unread squares of at least `min_side_px` (default: large enough to read at full size),
    not on a read marker, once each."""
    out: list[np.ndarray] = []
    for q in unread:
        if _side(q) >= min_side_px and not _near_any(q, read) and not _near_any(q, out):
            out.append(q)
    return out


def _side(q: np.ndarray) -> float:
    return float(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1).mean())


def _near_any(q: np.ndarray, others: list[np.ndarray]) -> bool:
    """Whether square `q` lies on one of `others` (centres within half the larger side)."""
    if not others:
        return False
    o = np.stack(others)
    dist = np.linalg.norm(o.mean(axis=1) - q.mean(axis=0), axis=1)
    sides = np.linalg.norm(o - np.roll(o, -1, axis=1), axis=2).mean(axis=1)
    return bool(np.any(dist < 0.5 * np.maximum(sides, _side(q))))


_READERS: dict[tuple[str, RawScanSettings], RawReader] = {}


def read_markers(image: np.ndarray, dictionary_name: str, settings: RawScanSettings | None = None) -> list[Detection]:
    """Every marker of `dictionary_name` in `image`, sorted by id (see `RawReader`).

    Readers are kept per dictionary for the process: building one draws its code tables.
    """
    key = (dictionary_name, settings or RawScanSettings())
    reader = _READERS.get(key)
    if reader is None:
        reader = _READERS[key] = RawReader(dictionary_name, key[1])
    return reader.read(image)
