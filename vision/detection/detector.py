"""Finding and reading markers in a grey image, tuned for small markers on a big table.

OpenCV's ArucoDetector, or contours and a vectorised bit reader (`quads.py`, about half the
time on a cluttered table), find the candidate squares and read their bits; Campo then refines the
corners with lines fitted to the whole edges (`edges.py`), which is what makes headings good on
markers only 15-25 px wide. Small markers are found in upsampled windows (an upsampled 12 px
marker is a readable 24-36 px one), and once the tracker knows where the markers are, only
windows around them are searched, so full-frame scans become rare.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Literal

import cv2
import numpy as np

from campo.vision.detection.bits import code_bits, read_cells, verify_markers
from campo.vision.detection.blurred import decode_blurred
from campo.vision.detection.decode import TemplateDecoder, TemplateMatch
from campo.vision.detection.edges import EdgeFitSettings, refine_by_edges
from campo.vision.detection.quads import clockwise, find_quads, identify, rotated_codes
from campo.vision.detection.types import Detection, Window, merge_windows

Refinement = Literal["edges", "subpix", "contour", "none"]
Finder = Literal["aruco", "contours"]

MOSAIC_GAP_PX = 4
"""White pixels between the windows packed into one image for a single detector call."""

TRACK_RETRY_REACH_CELLS = 0.8
"""A followed full-size marker whose two-pass edge fit (one that moved: `STILL_SHIFT_CELLS`)
fails its bit check is fitted once more from the same corners, the first pass reaching this
far (cells) instead of 1.2: on a dense table a neighbour's quiet zone can touch this one's, and
its edge, within 1.2 cells, pulls a side over (bases moved in a packed line; on the 4K table of
100 bases of bench/server_latency.py one marker was lost so every frame, then found again by a
window search). Those already confirmed keep their first fit."""

STILL_SHIFT_CELLS = 0.1
"""A followed full-size marker is first fitted with one pass reaching
`EdgeFitSettings.reach_cells` (0.6) from its last corners, which is what the second of the
usual two passes does from the first's corners; when no corner moves more than this (cells) the
marker stood still and the one pass is its fit. The others are fitted as before: two passes
from the last corners, the first reaching 1.2 cells. Following 100 markers at 4K: 29 -> 10 ms;
over bench/vision_accuracy.py's two tables of full-size markers, typical and dim light, three
renders each (1,079 bases tracked after a third of them moved), position error vs truth mean
0.0330 -> 0.0329 mm, median 0.0255 both, p95 0.0898 -> 0.0885, heading p95 0.252 -> 0.253
degrees. Markers tracked upsampled (small ones) keep the two passes: in dim light their noise
moved half of them past this, and the two fits cost more than the one they replace (1080p over
180 x 120 cm, dim: 33 -> 38 ms)."""

_CV_REFINE = {
    "edges": cv2.aruco.CORNER_REFINE_NONE,
    "none": cv2.aruco.CORNER_REFINE_NONE,
    "subpix": cv2.aruco.CORNER_REFINE_SUBPIX,
    "contour": cv2.aruco.CORNER_REFINE_CONTOUR,
}


@dataclass(frozen=True)
class DetectorSettings:
    """Knobs of the detector; the defaults are the measured choices (docs/vision.md)."""

    refinement: Refinement = "edges"
    finder: Finder = "aruco"  # who proposes squares and ids: ArucoDetector, or contours + vectorised bits (quads.py)
    min_side_px: float = 9.0  # smallest marker side (in the image as given) worth reading
    max_side_px: float = float("inf")  # largest square (in the image as given) worth trying to read
    upsample: float = 1.0  # scale the search image by this before reading (small markers; 1/2, 1/4: big ones)
    error_correction_rate: float = 0.6
    expected_ids: frozenset[int] = frozenset()  # ids worth reading from templates (anchors, roster)
    template_min_score: float = 0.6  # see decode.py: correlation with the expected marker
    template_min_margin: float = 0.08  # ... and how much better than any other expected id
    template_blur_px: float = 0.6
    template_max_side_px: float = float("inf")  # unread squares larger than this are not markers of ours
    min_contrast: float = 15.0  # grey levels between a marker's white quiet zone and black border
    template_min_contrast: float = 20.0  # the same for markers read from templates (weaker evidence)
    template_max_bad_cells: int = 1  # border cells lighter / quiet-zone samples darker than expected
    frame_blur_px: float = 1.2  # image blur assumed when checking a template reading's frame (decode.frame_fits)
    polygon_accuracy: float = 0.05  # aruco polygonalApproxAccuracyRate (0.08 for small markers)
    adaptive_constant: float = 7.0  # aruco adaptiveThreshConstant (5 for small markers)
    adaptive_win_min: int = 3
    adaptive_win_max: int = 23
    adaptive_win_step: int = 10
    denoise_px: int = 0  # contours finder: box-blur side for the threshold only (0: none); bits are read unblurred
    blur_decode: bool = True  # cells that thresholding misreads are fitted against blurred codes (blurred.py)
    edge_fit: EdgeFitSettings = field(default_factory=EdgeFitSettings)


def small_marker_settings(settings: DetectorSettings, upsample: float, min_side_px: float,
                          max_side_px: float = float("inf")) -> DetectorSettings:
    """The settings for markers under ~15 px: upsampled, and ragged, fainter squares accepted.

    Measured at 1080p over 180x120 cm (13-px markers): recall 95 % in typical light and about a
    quarter in dim light, against 64 % and a few % at full size with the default settings; the
    looser candidate search costs about a third more time, so it is not the default.
    """
    return replace(settings, upsample=upsample, min_side_px=min(settings.min_side_px, min_side_px),
                   polygon_accuracy=0.08, adaptive_constant=5.0, template_max_side_px=max_side_px)


def _decoder(dictionary: cv2.aruco.Dictionary, expected_ids: frozenset[int]) -> TemplateDecoder | None:
    return TemplateDecoder.shared(dictionary, sorted(expected_ids)) if expected_ids else None


@lru_cache(maxsize=8)
def _all_codes(dictionary_name: str) -> np.ndarray:
    """The inner bits of every marker of a predefined dictionary (constants: built once)."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary_name))
    codes = np.stack([code_bits(dictionary, i) for i in range(len(dictionary.bytesList))])
    codes.setflags(write=False)
    return codes


def to_gray(image: np.ndarray) -> np.ndarray:
    """A grey view of a grey, BGR or BGRA image (no copy when it is grey already)."""
    if image.ndim == 2:
        return image
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


class MarkerDetector:
    """Reads the markers of one dictionary; `detect` is pure (same image in, same answer out)."""

    def __init__(self, dictionary_name: str, settings: DetectorSettings | None = None) -> None:
        code = getattr(cv2.aruco, dictionary_name, None)
        if not isinstance(code, int):
            raise ValueError(f"unknown marker dictionary {dictionary_name!r}")
        self.dictionary_name = dictionary_name
        self.dictionary = cv2.aruco.getPredefinedDictionary(code)
        self.settings = settings or DetectorSettings()
        self.cells = int(self.dictionary.markerSize) + 2
        self._codes = _all_codes(dictionary_name)
        self._templates = _decoder(self.dictionary, self.settings.expected_ids)
        self._rotated = rotated_codes(self._codes)

    def with_settings(self, settings: DetectorSettings) -> MarkerDetector:
        """A detector of the same dictionary with other settings, sharing the built tables."""
        other = object.__new__(MarkerDetector)
        other.__dict__.update(self.__dict__)
        other.settings = settings
        if settings.expected_ids != self.settings.expected_ids:
            other._templates = _decoder(self.dictionary, settings.expected_ids)
        return other

    def _parameters(self, longest_side_px: int, scale: float) -> cv2.aruco.DetectorParameters:
        s = self.settings
        p = cv2.aruco.DetectorParameters()
        p.minMarkerPerimeterRate = min(1.0, 4 * s.min_side_px * scale / max(longest_side_px, 1))
        p.maxMarkerPerimeterRate = min(4.0, 4 * s.max_side_px * scale / max(longest_side_px, 1))
        p.cornerRefinementMethod = _CV_REFINE[s.refinement]
        p.errorCorrectionRate = s.error_correction_rate
        # threshold windows scale with the image, so upsampling does not lose the big markers
        # Threshold windows are not scaled with upsampling: an upsampled scan is for the small
        # markers, and the full-size scan that always runs beside it finds the big ones.
        p.adaptiveThreshWinSizeMin = s.adaptive_win_min
        p.adaptiveThreshWinSizeMax = s.adaptive_win_max
        p.adaptiveThreshWinSizeStep = s.adaptive_win_step
        p.polygonalApproxAccuracyRate = s.polygon_accuracy
        p.adaptiveThreshConstant = s.adaptive_constant
        p.minDistanceToBorder = 1
        p.minCornerDistanceRate = 0.05
        p.minMarkerDistanceRate = 0.05
        p.perspectiveRemovePixelPerCell = 8
        p.perspectiveRemoveIgnoredMarginPerCell = 0.25
        if s.refinement == "subpix":
            p.cornerRefinementWinSize = max(2, int(round(0.3 * s.min_side_px * scale / self.cells * 2)))
            p.relativeCornerRefinmentWinSize = 0.3
        return p

    def _candidates(self, img: np.ndarray, tiles: np.ndarray | None = None,
                    keep_unread: bool | None = None) -> list[tuple[int, np.ndarray]]:
        """Candidate squares in an image already scaled as configured: (id, corners in its pixels),
        from ArucoDetector or from contours (`DetectorSettings.finder`).

        Squares found but not read come back with id -1 (when templates are enabled, or
        `keep_unread`). `tiles` (T,4): the packed windows of a mosaic (`_read_mosaic`); contours
        outside them are dropped before they are read.
        """
        keep = self._templates is not None if keep_unread is None else keep_unread
        if self.settings.finder == "contours":
            return self._contour_candidates(img, tiles, keep)
        det = cv2.aruco.ArucoDetector(self.dictionary, self._parameters(max(img.shape[:2]), self.settings.upsample))
        corners, ids, rejected = det.detectMarkers(img)
        ids = [] if ids is None else np.asarray(ids).reshape(-1).tolist()
        corners = list(corners)
        if keep:
            ids += [-1] * len(rejected)
            corners += list(rejected)
        return [(int(m), np.asarray(c, dtype=np.float64).reshape(4, 2)) for m, c in zip(ids, corners)]

    def _contour_candidates(self, img: np.ndarray, tiles: np.ndarray | None, keep_unread: bool) -> list[tuple[int, np.ndarray]]:
        """`_candidates` by contours and vectorised bit reading (quads.py), window by window."""
        s = self.settings
        longest = float(max(img.shape[:2]))
        found: list[tuple[int, np.ndarray]] = []
        # (a light box blur before thresholding: sensor noise makes far fewer specks, hence contours;
        # an even box shifts the image by half a pixel, undone on the squares found)
        k = s.denoise_px
        smooth = cv2.blur(img, (k, k)) if k > 1 else img
        shift = (k // 2 - (k - 1) / 2) if k > 1 else 0.0
        for window in range(s.adaptive_win_min, s.adaptive_win_max + 1, max(s.adaptive_win_step, 1)):
            quads = find_quads(smooth, window=window, constant=s.adaptive_constant,
                               min_side_px=s.min_side_px * s.upsample, max_side_px=min(s.max_side_px * s.upsample, longest),
                               accuracy=s.polygon_accuracy) - shift
            if tiles is not None:
                quads = quads[_tile_of(quads, tiles)[0]]
            # (the threshold's inset is a pixel or two of the image searched: see `identify`)
            grow = (1.0, s.upsample) if s.upsample > 1.0 else 1.0
            ids, corners = identify(img, quads, self._rotated, min_contrast=s.min_contrast, grow_px=grow,
                                    centres_only=True)
            found += [(int(m), c) for m, c in zip(ids, corners) if m >= 0]
            if keep_unread:
                found += [(-1, c) for m, c in zip(ids, corners) if m < 0]
        return found

    def _read(self, gray: np.ndarray, offset: tuple[int, int], keep_unread: bool | None = None
              ) -> list[tuple[int, np.ndarray]]:
        """`_candidates` of one region (scaled as configured); corners in full-image pixels."""
        scale = self.settings.upsample
        origin = np.array(offset, dtype=np.float64)
        return [(m, _unscaled(c, scale) + origin) for m, c in self._candidates(_scaled(gray, scale), None, keep_unread)]

    def _read_mosaic(self, gray: np.ndarray, windows: list[Window], keep_unread: bool | None = None
                     ) -> list[tuple[int, np.ndarray]]:
        """One search of the (scaled) windows packed side by side; corners in image pixels.

        One call instead of one per window: an ArucoDetector call costs about 0.2 ms beyond its
        pixels, which for a hundred small windows (one per marker) is more than the pixels.
        Squares not wholly inside one window's tile are dropped (a window searched alone could
        not see them either).
        """
        scale = self.settings.upsample
        tiles = [_scaled(gray[w.y0:w.y1, w.x0:w.x1], scale) for w in windows]
        boxes = _pack([t.shape[:2] for t in tiles], MOSAIC_GAP_PX)
        height, width = int(boxes[:, 3].max()) + MOSAIC_GAP_PX, int(boxes[:, 2].max()) + MOSAIC_GAP_PX
        canvas = np.full((height, width), 255, np.uint8)
        for t, (x0, y0, x1, y1) in zip(tiles, boxes):
            canvas[y0:y1, x0:x1] = t
        found = self._candidates(canvas, boxes, keep_unread)
        if not found:
            return []
        c = np.stack([q for _, q in found])
        inside, tile = _tile_of(c, boxes)
        origins = np.array([(w.x0, w.y0) for w in windows], np.float64)
        mapped = _unscaled(c - boxes[tile, None, :2], scale) + origins[tile, None]
        return [(found[i][0], mapped[i]) for i in np.flatnonzero(inside)]

    def track(self, image: np.ndarray, previous: list[Detection]) -> tuple[list[Detection], list[Detection]]:
        """Follow markers from their last corners: refit the edges here, then check the bits.

        Returns (found here, lost). A marker that moved more than about a cell, or is covered,
        is lost; the caller searches a window around it with `detect`.
        """
        if not previous:
            return [], []
        gray = to_gray(image)
        start = np.stack([d.corners_px for d in previous])
        follow = replace(self.settings.edge_fit, max_shift_cells=1.5, first_reach_cells=1.2, passes=2)
        ids = [d.marker_id for d in previous]
        # full-size markers: first one fine pass from the last corners (`STILL_SHIFT_CELLS`)
        full_size = self.settings.upsample == 1.0
        corners, rms, refined = start.copy(), np.full(len(start), np.nan), np.zeros(len(start), bool)
        redo = np.arange(len(start))
        if full_size:
            near = replace(follow, passes=1, first_reach_cells=follow.reach_cells)
            corners, rms, refined = refine_by_edges(gray, start, self.cells, near)
            cell = np.linalg.norm(start - np.roll(start, -1, axis=1), axis=2).mean(axis=1) / self.cells
            redo = np.flatnonzero(~refined | (np.abs(corners - start).max(axis=(1, 2)) > STILL_SHIFT_CELLS * cell))
        if len(redo):
            corners[redo], rms[redo], refined[redo] = refine_by_edges(gray, start[redo], self.cells, follow)
        ok, errors = self._confirm(gray, corners, ids)
        ok &= refined
        retry = np.flatnonzero(~ok) if full_size else np.zeros(0, int)
        if len(retry):
            again = replace(follow, first_reach_cells=TRACK_RETRY_REACH_CELLS)
            c2, rms2, refined2 = refine_by_edges(gray, start[retry], self.cells, again)
            # by the bits alone (a sharp marker pulled off by a neighbour reads cleanly when fitted
            # well; reading blurred cells costs ~25 ms a call on a dim table of small markers)
            ok2, errors2 = verify_markers(gray, c2, self._codes[[ids[i] for i in retry]],
                                          min_contrast=self.settings.min_contrast)
            good = ok2 & refined2
            idx = retry[good]
            corners[idx], rms[idx], errors[idx], ok[idx] = c2[good], rms2[good], errors2[good], True
        found = [Detection(d.marker_id, corners[i], float(rms[i]), int(errors[i]), "edges")
                 for i, d in enumerate(previous) if ok[i]]
        lost = [d for i, d in enumerate(previous) if not ok[i]]
        return found, lost

    def detect(self, image: np.ndarray, windows: list[Window] | None = None) -> list[Detection]:
        """Markers in `image` (grey or BGR); only inside `windows` when given.

        Markers read in overlapping windows are reported once; the same id in two places is
        reported twice (the caller decides what a duplicate means, never this function).
        """
        gray = to_gray(image)
        read, unread = self.scan(gray, windows)
        return self.finish(gray, read, unread)

    def scan(self, image: np.ndarray, windows: list[Window] | None = None, keep_unread: bool | None = None
             ) -> tuple[list[tuple[int, np.ndarray]], list[np.ndarray]]:
        """The cheap first stage of `detect`: OpenCV's candidate squares, nothing refined yet.

        Returns (read: (id, rough corners), unread squares of a marker's size not on a read
        marker: kept when templates are enabled, or `keep_unread`). `finish` turns them into
        confirmed detections; a caller that knows more (the markers' size, which ids are still
        missing) can pass `finish` only what is worth it.
        """
        gray = to_gray(image)
        h, w = gray.shape[:2]
        if windows is None:
            found = self._read(gray, (0, 0), keep_unread)
        else:
            wins = merge_windows([c for c in (wi.clipped(w, h) for wi in windows) if c.area > 0])
            if len(wins) > 1:
                found = self._read_mosaic(gray, wins, keep_unread)
            else:
                found = [f for wi in wins for f in self._read(gray[wi.y0:wi.y1, wi.x0:wi.x1], (wi.x0, wi.y0),
                                                              keep_unread)]
        read = _dedupe([f for f in found if f[0] >= 0])
        unread = _separate([c for m, c in found if m < 0], [c for _, c in read], self.settings.min_side_px,
                           self.settings.template_max_side_px)
        return read, unread

    def finish(self, image: np.ndarray, read: list[tuple[int, np.ndarray]],
               unread: list[np.ndarray]) -> list[Detection]:
        """Refine and confirm what `scan` read; read the `unread` squares from templates."""
        return self._finish(to_gray(image), read, unread)

    def _confirm(self, gray: np.ndarray, corners: np.ndarray, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Read each marker again under its final corners: by its bits, else by its template.

        Returns (confirmed, bit errors). Aruco's own reading is not enough on its own: texture
        such as checkered cloth under lettering can pass its bit test once in a while.
        """
        st = self.settings
        ok, errors = verify_markers(gray, corners, self._codes[ids], min_contrast=st.min_contrast)
        retry = np.flatnonzero(~ok)
        if len(retry) and st.blur_decode:
            # blurred cells read against blurred codes: the same id, in the same rotation
            read, rolled = decode_blurred(gray, corners[retry], self.dictionary_name, min_contrast=st.min_contrast)
            same = (read == np.asarray(ids)[retry]) & np.all(np.abs(rolled - corners[retry]) < 1e-9, axis=(1, 2))
            ok[retry[same]] = True
            retry = retry[~same]
        if len(retry) and self._templates is not None:
            matches = [m for m in self._templates.match(gray, corners[retry], blur_px=st.template_blur_px,
                                                        min_score=st.template_min_score,
                                                        min_margin=st.template_min_margin)
                       if m.marker_id == ids[retry[m.index]] and np.allclose(m.corners_px, corners[retry[m.index]])]
            framed = self._templates.frame_fits(gray, matches, blur_px=st.frame_blur_px,
                                                max_bad=st.template_max_bad_cells,
                                                min_contrast=st.template_min_contrast)
            for m, good in zip(matches, framed):
                ok[retry[m.index]] = bool(good)
        return ok, errors

    def _finish(self, gray: np.ndarray, read: list[tuple[int, np.ndarray]], unread: list[np.ndarray]) -> list[Detection]:
        """Refine the corners of what was read; read the unread squares from templates."""
        dets: list[Detection] = []
        fine = gray  # refine_by_edges converts just the part around the markers to float
        label = self.settings.refinement
        if read:
            corners = np.stack([c for _, c in read])
            rms = np.full(len(read), np.nan)
            refined = np.zeros(len(read), bool)
            if label == "edges":
                corners, rms, refined = refine_by_edges(fine, corners, self.cells, self.settings.edge_fit)
            # every reading is confirmed under the final corners (see `_confirm`)
            ids = [m for m, _ in read]
            confirmed, errors = self._confirm(gray, corners, ids)
            for i, marker_id in enumerate(ids):
                if not confirmed[i]:
                    continue
                how = label if (label != "edges" or refined[i]) else "none"
                dets.append(Detection(marker_id, corners[i], float(rms[i]), int(errors[i]), how))
        if unread and (self._templates is not None or self.settings.blur_decode):
            dets += self._read_unread(fine, gray, unread)
        return dets

    def _read_unread(self, fine: np.ndarray, gray: np.ndarray, unread: list[np.ndarray]) -> list[Detection]:
        """Squares nobody read: refined, then read by their bits (any id), else from templates.

        Under refined corners the bits of a square too ragged to read from its rough polygon read
        cleanly (contour-proposed squares of 13-px markers, upsampled: most of them).
        """
        s = self.settings
        quads = clockwise(np.stack(unread))
        quads = quads[_may_hold_bits(gray, quads, self.cells, s.min_contrast)]
        if not len(quads):
            return []
        corners, rms, refined = refine_by_edges(fine, quads, self.cells, s.edge_fit)
        idx = np.flatnonzero(refined)
        ids, rolled = identify(gray, corners[idx], self._rotated, min_contrast=s.min_contrast)
        if s.blur_decode and np.any(ids < 0):
            todo = np.flatnonzero(ids < 0)
            more, more_rolled = decode_blurred(gray, corners[idx[todo]], self.dictionary_name, min_contrast=s.min_contrast)
            ids[todo] = more
            rolled[todo] = np.where((more >= 0)[:, None, None], more_rolled, rolled[todo])
        read = np.flatnonzero(ids >= 0)
        read = read[_first_reads([(int(ids[j]), rolled[j]) for j in read])]
        # confirmed like every other reading (`_confirm`): the ring of quiet zone too
        confirmed, errors = self._confirm(gray, rolled[read], [int(ids[j]) for j in read]) if len(read) else ([], [])
        dets = [Detection(int(ids[j]), rolled[j], float(rms[idx[j]]), int(e), "edges")
                for j, ok, e in zip(read, confirmed, errors) if ok]
        rest = idx[ids < 0]
        if len(dets) and len(rest):
            # squares nested in or next to a marker read by its bits are that marker's outlines
            rest = rest[_apart(corners[rest], np.stack([d.corners_px for d in dets]))]
        if not len(rest) or self._templates is None:
            return dets
        matches = self._templates.match(gray, corners[rest], blur_px=s.template_blur_px,
                                        min_score=s.template_min_score, min_margin=s.template_min_margin)
        matches = _best_per_place(matches)
        framed = self._templates.frame_fits(gray, matches, blur_px=s.frame_blur_px,
                                            max_bad=s.template_max_bad_cells,
                                            min_contrast=s.template_min_contrast)
        for m, ok in zip(matches, framed):
            if ok:
                dets.append(Detection(m.marker_id, m.corners_px, float(rms[rest][m.index]), 0, "edges+template"))
        return dets


INNER_SPREAD = 0.3
"""A square whose inner cells span less than this share of its border-to-ring contrast holds no
bits: a solid square, a disc, a shadow (most unread squares on a cluttered table)."""


def _may_hold_bits(gray: np.ndarray, quads: np.ndarray, cells: int, min_contrast: float) -> np.ndarray:
    """Which rough squares (K,4,2) are worth refining and reading: a dark frame in a lighter ring,
    with light and dark cells inside (one centre sample per cell: a cheap first look)."""
    grid, ring = read_cells(gray, quads, cells, centres_only=True)
    border = np.ones((cells, cells), bool)
    border[1:-1, 1:-1] = False
    step = np.median(ring, axis=1) - np.median(grid[:, border], axis=1)
    inner = grid[:, 1:-1, 1:-1].reshape(len(quads), -1)
    spread = inner.max(axis=1) - inner.min(axis=1)
    return (step >= 0.5 * min_contrast) & (spread >= INNER_SPREAD * np.maximum(step, 1.0))


def _scaled(gray: np.ndarray, scale: float) -> np.ndarray:
    """`gray` scaled for reading: up by bicubic interpolation, down by halving (`_halved`)."""
    if scale > 1.0:
        return cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    return _halved(gray, scale) if scale < 1.0 else gray


def _unscaled(corners: np.ndarray, scale: float) -> np.ndarray:
    """Corners found in an image scaled by `scale`, in the pixels of the image it was made from."""
    return corners if scale == 1.0 else (corners + 0.5) / scale - 0.5


def _tile_of(quads: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For quads (K,4,2) in a mosaic of tiles `boxes` (T,4): which lie wholly inside one tile
    (a pixel clear of its edges, like `minDistanceToBorder`), and in which (K,)."""
    if len(quads) == 0:
        return np.zeros(0, bool), np.zeros(0, int)
    lo, hi = quads.min(axis=1), quads.max(axis=1)
    inside = (boxes[None, :, 0] + 1 <= lo[:, None, 0]) & (boxes[None, :, 1] + 1 <= lo[:, None, 1]) \
        & (hi[:, None, 0] <= boxes[None, :, 2] - 2) & (hi[:, None, 1] <= boxes[None, :, 3] - 2)  # (K, T)
    return inside.any(axis=1), inside.argmax(axis=1)


def _pack(shapes: list[tuple[int, int]], gap: int) -> np.ndarray:
    """Places (x0, y0, x1, y1; x1, y1 exclusive) for tiles of `shapes` (h, w) packed in rows
    (tallest first, into a roughly square image), `gap` apart and from the image's edges."""
    order = sorted(range(len(shapes)), key=lambda i: -shapes[i][0])
    area = sum((h + gap) * (w + gap) for h, w in shapes)
    limit = max(max(w for _, w in shapes), int(1.2 * np.sqrt(area)))
    boxes = np.zeros((len(shapes), 4), int)
    x = y = gap
    row_h = 0
    for i in order:
        h, w = shapes[i]
        if x > gap and x + w > limit:
            y, x, row_h = y + row_h + gap, gap, 0
        boxes[i] = (x, y, x + w, y + h)
        x += w + gap
        row_h = max(row_h, h)
    return boxes


def _halved(gray: np.ndarray, scale: float) -> np.ndarray:
    """`gray` shrunk to `scale` (a power of 1/2) by averaging 2x2 blocks: OpenCV's fast path,
    and pixel (i, j) of the result covers exactly pixels 2i..2i+1, 2j..2j+1 of the input."""
    halvings = int(round(-np.log2(scale)))
    if halvings < 1 or abs(scale - 0.5**halvings) > 1e-9:
        raise ValueError(f"a downsampling scale must be a power of 1/2, not {scale}")
    img = gray
    for _ in range(halvings):
        h, w = img.shape[:2]
        img = cv2.resize(img[: h // 2 * 2, : w // 2 * 2], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    return img


def _best_per_place(matches: list[TemplateMatch]) -> list[TemplateMatch]:
    """One template reading per place: the best scoring of squares whose centres are close.

    Greedy, best score first: a reading is kept unless a kept one lies within its own side.
    """
    if len(matches) < 2:
        return list(matches)
    ranked = sorted(matches, key=lambda m: -m.score)
    c = np.stack([m.corners_px for m in ranked])
    centres = c.mean(axis=1)
    sides = np.linalg.norm(c[:, 1] - c[:, 0], axis=1)
    near = np.linalg.norm(centres[:, None] - centres[None], axis=2) < sides[None, :]  # near[i, j]: i too close for j
    taken = np.zeros(len(ranked), bool)
    blocked = np.zeros(len(ranked), bool)
    for i in range(len(ranked)):
        if not blocked[i]:
            taken[i] = True
            blocked |= near[i]
    return [m for m, t in zip(ranked, taken) if t]


def _separate(quads: list[np.ndarray], read: list[np.ndarray], min_side_px: float,
              max_side_px: float = float("inf")) -> list[np.ndarray]:
    """Unread squares worth decoding: of a marker's size and not on a marker already read."""
    if not quads:
        return []
    q = np.stack(quads)
    sides = np.linalg.norm(q - q[:, [1, 2, 3, 0]], axis=2).mean(axis=1)
    keep = (sides >= min_side_px) & (sides <= max_side_px)
    if read:
        keep &= _apart(q, np.stack(read))
    # Several squares often nest at one place (the black square, the quiet zone's outline):
    # all are kept, and the template match picks the one that reads best.
    return [q[i] for i in np.flatnonzero(keep)]


def _apart(quads: np.ndarray, read: np.ndarray) -> np.ndarray:
    """Which squares (K,4,2) lie clear of every marker read (R,4,2): not one of its outlines."""
    centres = quads.mean(axis=1)
    sides = np.linalg.norm(quads - quads[:, [1, 2, 3, 0]], axis=2).mean(axis=1)
    rc = read.mean(axis=1)
    rs = np.linalg.norm(read[:, 1] - read[:, 0], axis=1)
    dist = np.linalg.norm(centres[:, None] - rc[None], axis=2)
    # two markers, each with its one-cell quiet zone, have centres at least 4/3 of a side apart
    return ~np.any(dist < 1.3 * np.maximum(sides[:, None], rs[None]), axis=1)


def _dedupe(found: list[tuple[int, np.ndarray]]) -> list[tuple[int, np.ndarray]]:
    """Drop second reads of one marker (same id, centres within half a side)."""
    return [f for f, k in zip(found, _first_reads(found)) if k]


def _first_reads(found: list[tuple[int, np.ndarray]]) -> np.ndarray:
    """Which readings (id, corners) are not a second reading of a marker read before them."""
    if len(found) < 2:
        return np.ones(len(found), bool)
    ids = np.array([m for m, _ in found])
    c = np.stack([q for _, q in found])
    centres = c.mean(axis=1)
    sides = np.linalg.norm(c[:, 1] - c[:, 0], axis=1)
    # dup[i, j]: reading j (earlier) is reading i again; the first reading of each marker is kept
    dup = (ids[:, None] == ids[None]) & (np.linalg.norm(centres[:, None] - centres[None], axis=2) < sides[:, None] / 2)
    dup &= np.tri(len(found), k=-1, dtype=bool)
    keep = np.ones(len(found), bool)
    for i in np.flatnonzero(dup.any(axis=1)):  # (rare) a reading is dropped only for a kept one
        keep[i] = not np.any(dup[i] & keep)
    return keep
