"""Charge paths (ISD §9, A28): from where the charger stands, or wheeled to face the target
squarely, the shortest straight or oblique (up to 45°, ISD §8) move that brings its front into
contact first: no flank or rear may touch sooner or lie along the target (ISD §9 «non si può
caricare se si contatta il nemico con un fianco»).

The options' slides are measured in one compiled call and checked shortest first
(`_best_slide`); `_best_slide_plain` is the one-at-a-time search it replaces, kept as the
reference (tests/test_engine_charge_fast.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import shapely
from shapely.geometry import Polygon

from campo.engine.geometry.boxes import Box, box_of, boxes_meet, corners_of, rect_box
from campo.engine.geometry.contact import shared_lengths
from campo.engine.geometry.motion import slide_convex, swept_area, wheel, wheel_cost, wheel_poses
from campo.engine.geometry.rect import Rect, angle_diff, rotate
from campo.engine.geometry.zones import zone_of
from campo.engine.results import Zone
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.charge_fast import (flank_or_rear_along, front_body_slides, poses_array,
                                               sweep_meets)

OBLIQUE_MAX_DEG = 45.0    # ISD §8 «Movimento obliquo … fino a 45°»
TOUCH_MM = 0.5            # first contact counts as made by the front if within this of it
_EDGE_OF_ZONE = {Zone.FRONT: "front", Zone.LEFT: "left", Zone.RIGHT: "right", Zone.REAR: "rear",
                 Zone.INSIDE: "front"}
_OUTWARD = {"front": 0.0, "left": 90.0, "rear": 180.0, "right": -90.0}  # edge normal vs heading


@dataclass
class _Path:
    """One way into contact: the start, the pose after the wheel (the start if none), the pose
    at contact, and the wheel and slide that join them."""

    start: Rect
    wheeled: Rect
    final: Rect
    wheel_deg: float
    oblique_deg: float
    wheel_mm: float
    slide_mm: float
    direction: tuple[float, float]

    @property
    def length_mm(self) -> float:
        return self.wheel_mm + self.slide_mm

    @property
    def wheel_sweep(self) -> Polygon:
        """Area the wheel sweeps (cached: several zone tests use it)."""
        if "_sweep" not in self.__dict__:
            self.__dict__["_sweep"] = swept_area(self.wheel_poses)
        return self.__dict__["_sweep"]

    @property
    def wheel_poses(self) -> list[Rect]:
        """The poses of the wheel (`wheel_poses`, cached)."""
        if "_poses" not in self.__dict__:
            self.__dict__["_poses"] = wheel_poses(self.start, self.wheel_deg)
        return self.__dict__["_poses"]

    @property
    def wheel_box(self) -> Box:
        """Bounding box of the wheel's sweep (of its poses' corners; cached)."""
        if "_wheel_box" not in self.__dict__:
            self.__dict__["_wheel_box"] = box_of([q for r in self.wheel_poses for q in r.corners])
        return self.__dict__["_wheel_box"]


def _slide(board: Board, body: Rect, target: Rect, direction: tuple[float, float]) -> float | None:
    """Slide distance if the first contact is made by the front edge (corners included), else
    None: a flank or the rear touching first, or touching together with the front along a
    segment, is no charge (ISD §9 «non si può caricare se si contatta il nemico con un fianco»)."""
    front = (body.front_left, body.front_right)
    s_front = slide_convex(front, body.front_edge, target.corners, target.polygon, direction)
    if not math.isfinite(s_front):
        return None
    s_body = slide_convex(body.corners, body.polygon, target.corners, target.polygon, direction)
    return s_front if _front_first(body, target, direction, s_front, s_body, plain=True) else None


def _front_first(body: Rect, target: Rect, direction: tuple[float, float], s_front: float,
                 s_body: float, plain: bool = False) -> bool:
    """`_slide`'s verdict from the two slides: the front reaches the target (finite), nothing
    else touches sooner, and no flank or rear lies along it at contact (compiled unless
    ``plain`` or too close to call)."""
    if not math.isfinite(s_front) or s_body < s_front - TOUCH_MM:
        return False
    along = None if plain else flank_or_rear_along(body, target, direction, s_front, TOUCH_MM)
    if along is None:
        final = body.moved(direction[0] * s_front, direction[1] * s_front)
        shared = shared_lengths(final, target, TOUCH_MM)
        along = max(shared["left"], shared["right"], shared["rear"]) > 2 * TOUCH_MM + 1e-6
    return not along


def _best_slide(board: Board, body: Rect, target: Rect) -> tuple[float, float] | None:
    """(distance mm, oblique deg) of the shortest straight/oblique move into contact: every
    option's slides in one compiled call, then the options checked shortest first (the plain
    search, `_best_slide_plain`, checks them all and takes the least)."""
    options = _slide_options(body, target)
    dirs = [rotate(body.front, off) for off in options]
    slides = front_body_slides(body, target, dirs)
    order = sorted(range(len(options)), key=lambda k: _slide_key(slides[k][0], options[k]))
    for k in order:
        s_front, s_body = slides[k]
        if _front_first(body, target, dirs[k], s_front, s_body):
            return s_front, options[k]
    return None


def _best_slide_plain(board: Board, body: Rect, target: Rect) -> tuple[float, float] | None:
    """`_best_slide` one option and one `_slide` at a time (the reference the tests compare)."""
    found = []
    for off in _slide_options(body, target):
        d = rotate(body.front, off)
        s = _slide(board, body, target, d)
        if s is not None:
            found.append((s, off))
    if not found:
        return None
    return min(found, key=lambda so: _slide_key(*so))


def _slide_options(body: Rect, target: Rect) -> list[float]:
    """Oblique offsets (deg) tried: straight at the target's nearest point when within 45°,
    straight ahead, and 45° either side."""
    limit = OBLIQUE_MAX_DEG
    line = shapely.shortest_line(body.front_edge, target.polygon)
    (x0, y0), (x1, y1) = shapely.get_coordinates(line).tolist()
    options = [0.0, -limit, limit]
    if math.hypot(x1 - x0, y1 - y0) > 1e-9:
        direct = math.degrees(math.atan2(y1 - y0, x1 - x0)) - body.heading_deg
        direct = angle_diff(direct, 0.0)
        if abs(direct) <= limit + 1e-9:
            options.insert(0, direct)
    return options


def _slide_key(s: float, off: float) -> tuple[float, float, float]:
    """Shortest; ties (to 0.01 mm, so that tracking noise cannot flip them) to the straighter
    path."""
    return round(s, 2), round(abs(off), 6), off


def _paths(board: Board, c: Rect, t: Rect) -> list[_Path]:
    """Straight/oblique from where it stands, and wheel-to-face-squarely then straight (A28)."""
    out = []
    zone = zone_of(t, c.front_centre[0], c.front_centre[1], board.settings.a1_zones)
    edge = _EDGE_OF_ZONE[zone]
    squarely = (t.heading_deg + _OUTWARD[edge] + 180.0) % 360.0
    turn = angle_diff(squarely, c.heading_deg)
    starts = [(c, 0.0)]
    if abs(turn) > 0.5 and board.settings.a28_charge_path != "straight_distance":
        starts.append((wheel(c, turn), turn))
    for body, turn_deg in starts:
        poses = wheel_poses(c, turn_deg) if turn_deg else None
        hits, sweep = _wheel_hits(poses, t) if poses else (False, None)
        if hits:
            continue
        found = _best_slide(board, body, t)
        if found is None:
            continue
        s, off = found
        d = rotate(body.front, off)
        final = body.moved(d[0] * s, d[1] * s)
        path = _Path(c, body, final, turn_deg, off,
                     wheel_cost(c, turn_deg) if board.settings.a22_wheel_cost != "free" else 0.0,
                     s, d)
        if poses is not None:
            path.__dict__["_poses"] = poses   # the same poses `wheel_poses` would build
        if sweep is not None:
            path.__dict__["_sweep"] = sweep   # the same area `wheel_sweep` would build
        out.append(path)
    return out


def _wheel_hits(poses: list[Rect], t: Rect) -> tuple[bool, Polygon | None]:
    """Whether the wheel through ``poses`` sweeps over ``t``, and the swept area if it had to be
    built (the compiled test and the boxes usually tell without it)."""
    if not boxes_meet(box_of([q for r in poses for q in r.corners]), rect_box(t)):
        return False, None
    built: list[Polygon] = []

    def exact() -> bool:
        built.append(swept_area(poses))
        return bool(built[0].intersects(t.polygon))

    return sweep_meets(poses_array(poses), corners_of(t), exact), (built[0] if built else None)
