"""Detector variants for the light and the marker scale: who proposes squares, how hard to threshold.

The pipeline runs one `MarkerDetector` per adaptive-threshold window; once the anchors tell the
light (`calibration/table_light.py`), each is swapped for a variant made here: contours or
ArucoDetector as the square finder, a threshold constant scaled to the anchors' contrast, the
dim-light frame check. Variants are made once and kept (`VariantCache`): settings are costly to
copy and the light changes rarely.
"""

from __future__ import annotations

from dataclasses import replace

from campo.vision.detection import DetectorSettings, MarkerDetector

TYPICAL_LIGHT_FINDER = "contours"
DIM_LIGHT_FINDER = "aruco"
"""Who proposes candidate squares (vision/detection/quads.py): in typical light contours and
vectorised bit reading, about half of ArucoDetector's time (1080p: 7 against 13 ms); in dim light sensor noise makes
hundreds of thousands of specks whose contours cost more in Python than ArucoDetector, which
keeps them in C++. The anchor scan (halved frames, less noise) always uses contours."""

TYPICAL_LIGHT_CONSTANT = 0.12
"""In typical light the full-size stages threshold at this share of the anchors' black-to-white
step below the local mean (at least the configured constant, 7). A marker's border lies about
half the step below its local mean, so even 0.12 keeps every marker, while a textured cloth
makes far fewer contours: on the independent tables of bench/vision_real.py a cold 4K frame of
procedural cloth took ~490 ms at 0.055 and ~95 ms at 0.12 (1080p: 145 -> 47 ms), every marker
read at both; on the synthetic camera's frames (bench/vision_accuracy.py) recall is unchanged.
(0.055 until Dec 2026: a third fewer contours than 7 on the synthetic camera's cloth.)"""

CONTOUR_EDGE_FIT_REACH = 0.8
"""Squares proposed by contours start within about half a pixel of the edges (grown to undo the
threshold's inset, quads.py), so one edge-fitting pass reaching 0.8 cell fits them as well as
two passes from ArucoDetector's corners (1080p 120x80 cm: 0.029 px median centre error, 4K:
0.019 px, against 0.028 and 0.018) at half the cost."""

DIM_DENOISE_PX = 2
"""In dim light the full-size scan first proposes squares by contours after all, of the frame
box-blurred 2 x 2 for the threshold only (bits and edges are read unblurred): the blur leaves a
fraction of the noise specks, and contours then cost less than ArucoDetector (1080p over
120 x 80 cm, cold dim frame: about 26 instead of 37 ms, every marker read). ArucoDetector's
stages stay as the fallback while markers are missing (on one dim 1080p frame the blurred
contours missed one marker of 60). These squares keep the two-pass edge fit from rough corners:
one pass reaching 0.8 cell fitted them worse (0.073 against 0.058 mm median position error)."""

DIM_DENOISE_MAX_SIDE_PX = 20.0
"""... for markers under this side only (1080p over 120 x 80 cm: ~17 px). At 4K (~25 px) it saved
10 % (67 -> 60 ms) but the fits, started from other corners, came out 0.002 mm worse at p95
(0.066 against 0.064 mm), and ArucoDetector's cold dim frame there is already well under the
plain-OpenCV peer's, so it is kept there."""

DIM_STAGE_WINDOW = 0.6
DIM_STAGE_CONSTANT = 3.0
"""In dim light small markers are searched with a wider threshold window (upsampled marker
sides) and a lower constant ..."""

DIM_FRAME_BLUR_PX = 1.5
"""... and template readings' frames are checked against markers blurred this much (1.2 in good
light): dim frames are softer. At 1080p over 180 x 120 cm, from the true corners, 70 instead of
59 of 104 markers pass on a single dim frame (78 instead of 69 on 16 averaged ones), with no
wrong id; marker-free clutter, dim or not, still gives no marker (tests/test_vision_detection.py)."""


def dimmed(detector: MarkerDetector) -> MarkerDetector:
    """`detector` with the dim-light frame check (`DIM_FRAME_BLUR_PX`)."""
    if detector.settings.frame_blur_px == DIM_FRAME_BLUR_PX:
        return detector
    return detector.with_settings(replace(detector.settings, frame_blur_px=DIM_FRAME_BLUR_PX))


def with_finder(detector: MarkerDetector, finder: str) -> MarkerDetector:
    """`detector` proposing candidate squares with `finder` (see `TYPICAL_LIGHT_FINDER`)."""
    if detector.settings.finder == finder:
        return detector
    fit = detector.settings.edge_fit
    if finder == "contours":
        fit = replace(fit, passes=1, first_reach_cells=CONTOUR_EDGE_FIT_REACH)
    return detector.with_settings(replace(detector.settings, finder=finder, edge_fit=fit))


def with_constant(detector: MarkerDetector, constant: float) -> MarkerDetector:
    """`detector` thresholding at least `constant` below the local mean (`TYPICAL_LIGHT_CONSTANT`)."""
    if constant <= detector.settings.adaptive_constant:
        return detector
    return detector.with_settings(replace(detector.settings, adaptive_constant=constant))


def denoised(detector: MarkerDetector, denoise_px: int) -> MarkerDetector:
    """`detector` proposing squares by contours of the frame blurred `denoise_px` (`DIM_DENOISE_PX`),
    with its own (two-pass) edge fit."""
    if detector.settings.finder == "contours" and detector.settings.denoise_px == denoise_px:
        return detector
    return detector.with_settings(replace(detector.settings, finder="contours", denoise_px=denoise_px))


class VariantCache:
    """`with_finder` + `with_constant` variants of detectors, each made once per settings."""

    def __init__(self) -> None:
        self._made: dict[tuple[DetectorSettings, str, float, int], MarkerDetector] = {}

    def get(self, detector: MarkerDetector, finder: str, constant: float, denoise_px: int = 0) -> MarkerDetector:
        """`detector` with `finder` and at least `constant` (contours of a blurred frame when
        `denoise_px`: see `denoised`): the same object for the same request."""
        key = (detector.settings, finder, constant, denoise_px)
        found = self._made.get(key)
        if found is None:
            made = denoised(detector, denoise_px) if denoise_px else with_finder(detector, finder)
            found = self._made[key] = with_constant(made, constant)
        return found
