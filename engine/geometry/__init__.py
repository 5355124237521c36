"""Ruleset-independent geometry: bases as rectangles, zones, arcs, contact, sight, motion, index.

Everything is in table millimetres; rulesets convert to their own unit at the edges.
"""

from campo.engine.geometry.arcs import arc_polygon, arc_to_range, band_rings
from campo.engine.geometry.contact import edge_aspect, gap, in_contact, shared_lengths, touched_edge
from campo.engine.geometry.index import BaseIndex
from campo.engine.geometry.motion import wheel, wheel_cost
from campo.engine.geometry.rect import Rect, angle_diff, rotate, unit_vector
from campo.engine.geometry.sight import SightField, sight_lines
from campo.engine.geometry.zones import beyond_front_line, zone_of

__all__ = [
    "BaseIndex", "Rect", "SightField", "angle_diff", "arc_polygon", "arc_to_range", "band_rings",
    "beyond_front_line", "edge_aspect", "gap", "in_contact", "rotate", "shared_lengths",
    "sight_lines", "touched_edge", "unit_vector", "wheel", "wheel_cost", "zone_of",
]
