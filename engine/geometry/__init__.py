"""Ruleset-independent geometry: bases as rectangles, zones, arcs, contact, sight, motion, index.

Everything is in table millimetres; rulesets convert to their own unit at the edges.
"""

from campo.engine.geometry.arcs import arc_polygon, arc_to_range, band_rings
from campo.engine.geometry.contact import edge_aspect, gap, in_contact, shared_lengths, touched_edge
from campo.engine.geometry.index import BaseIndex
from campo.engine.geometry.motion import outline, slide_distance, swept_area, wheel, wheel_cost
from campo.engine.geometry.rect import Rect, angle_diff, rotate, unit_vector
from campo.engine.geometry.sight import SightField, sight_lines
from campo.engine.geometry.zones import beyond_front_line, whole_front_beyond, zone_of

__all__ = [
    "BaseIndex", "Rect", "SightField", "angle_diff", "arc_polygon", "arc_to_range", "band_rings",
    "beyond_front_line", "edge_aspect", "gap", "in_contact", "outline", "rotate",
    "shared_lengths", "sight_lines", "slide_distance",
    "swept_area", "touched_edge", "unit_vector", "wheel", "wheel_cost", "whole_front_beyond",
    "zone_of",
]
