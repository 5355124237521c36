"""Marker detection: `MarkerDetector(dictionary).detect(gray, windows) -> list[Detection]`."""

from campo.vision.detection.detector import DetectorSettings, MarkerDetector, to_gray
from campo.vision.detection.edges import EdgeFitSettings, refine_by_edges
from campo.vision.detection.types import Detection, Window, merge_windows

__all__ = ["Detection", "DetectorSettings", "EdgeFitSettings", "MarkerDetector", "Window", "merge_windows", "refine_by_edges",
           "to_gray"]
