"""Line of sight: straight lines between two shapes tested against the obstacles of a moment.

A target is seen when at least one sampled line from the firer's front to the target is clear
(the rulebooks ask to "trace a line"). Obstacles are of three kinds:

* blocking bodies (bases) that a line may not touch; optionally a corridor of half-width ``w``
  around the line must stay clear of them (artillery's 1" gap);
* blocking lines (hill crests, tree rows) that a line may not cross strictly between the ends;
* deep areas (woods, towns) inside any one of which a line may run at most ``max_depth`` mm.

Every question is arrays (`Sightlines`: the lines, their corridors, what each leaves out) and
its answer is arrays too (`Trace`: per line, what blocks it). Bodies are swept per origin
(`sight_bodies.blocked`), terrain tested on the lines the bodies leave clear (`sight_terrain`).

>>> from shapely.geometry import Polygon, LineString
>>> wall = Polygon([(40, -10), (60, -10), (60, 10), (40, 10)])
>>> field = SightField(bodies=[wall], body_ids=["x"])
>>> lines = sight_lines([(0, 0)], [(100, 0), (100, 50)])
>>> found = field.trace(Sightlines(shapely.get_coordinates(lines).reshape(-1, 2, 2)))
>>> found.clear.tolist(), field.name(found.blocker[0])
([False, True], 'x')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon

from campo.engine.geometry.rect import Point
from campo.engine.geometry.sight_bodies import Bodies, Keyed, Rules, blocked, surely_crosses
from campo.engine.geometry.sight_terrain import Areas, TerrainRules, Walls

__all__ = ["Keyed", "SightField", "Sightlines", "Trace", "sight_lines"]


def sight_lines(origins: Sequence[Point], ends: Sequence[Point]) -> np.ndarray:
    """Every line from an origin to an end, shortest first (a clear short line is found first)."""
    pairs = sorted(((o, e) for o in origins for e in ends),
                   key=lambda oe: (oe[0][0] - oe[1][0]) ** 2 + (oe[0][1] - oe[1][1]) ** 2)
    coords = np.array([[o, e] for o, e in pairs], dtype=float).reshape(-1, 2, 2)
    return shapely.linestrings(coords)


# what blocks a line (`Trace.kind`)
CLEAR, BODY, CORRIDOR, WALL, DEPTH = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class Sightlines:
    """Many sight questions as arrays: ``xy`` (n, 2, 2) each line's start and end; ``width``
    its corridor's half-width; ``never`` / ``thin`` the bodies that do not block it / block only
    the line itself (`Keyed` tables); ``bodies_off`` lines no body blocks (fired over);
    ``ends`` / ``end_shapes`` its firer's and target's shapes (a wall inside them is not
    between); ``uncounted`` the deep areas whose depth does not count for it; ``origin``
    numbers the points lines start from, when the caller knows them (default: found)."""

    xy: np.ndarray
    width: np.ndarray | float = 0.0
    never: Sequence[Keyed] = ()
    thin: Sequence[Keyed] = ()
    bodies_off: np.ndarray | None = None
    ends: np.ndarray | None = None
    end_shapes: np.ndarray | None = None
    uncounted: Sequence[Keyed] = ()
    origin: np.ndarray | None = None

    @property
    def widths(self) -> np.ndarray:
        width = np.asarray(self.width, dtype=float)
        return width if width.ndim else np.full(len(self.xy), width)


@dataclass(frozen=True)
class Trace:
    """Per line what blocks it: ``kind`` (CLEAR, BODY: the line crosses a body, CORRIDOR: a
    body lies within its corridor, WALL, DEPTH: too deep inside an area) and ``index`` (the
    body, wall or area; -1 when clear)."""

    kind: np.ndarray
    index: np.ndarray

    @property
    def clear(self) -> np.ndarray:
        return self.kind == CLEAR

    @property
    def blocker(self) -> np.ndarray:
        """(kind, index) per line as one array of pairs."""
        return np.stack([self.kind, self.index], axis=1)


class SightField:
    """The obstacles of one moment of a game, indexed for many sight-line tests."""

    def __init__(self, bodies: Sequence[Polygon] = (), body_ids: Sequence[str] = (),
                 walls: Sequence[LineString] = (), wall_ids: Sequence[str] = (),
                 deep_areas: Sequence[Polygon] = (), deep_area_ids: Sequence[str] = (),
                 max_depth: float = float("inf"), corners: np.ndarray | None = None) -> None:
        # A line grazing a base's outline is not blocked by it when the bodies are given shrunk
        # by the graze (ISD: `RectTable.inset_corners`, handed as ``corners`` alone, for
        # `Bodies.of`): measurement noise cannot flip a touching line.
        self.given = np.array(list(bodies), dtype=object)
        self.body_ids = list(body_ids)
        self.walls = np.array(list(walls), dtype=object)
        self.wall_ids = list(wall_ids) or [f"wall-{i}" for i in range(len(self.walls))]
        self.deep_areas = np.array(list(deep_areas), dtype=object)
        self.deep_area_ids = list(deep_area_ids) or [f"area-{i}" for i in range(len(self.deep_areas))]
        self.max_depth = max_depth
        self.corners = corners

    @cached_property
    def bodies(self) -> np.ndarray:
        """The bodies' polygons: those given, else made from ``corners`` (when asked: the
        numpy tests read the corners)."""
        if len(self.given) or self.corners is None:
            return self.given
        return shapely.polygons(self.corners)

    @cached_property
    def body_index(self) -> dict[str, int]:
        """Body id -> its position in ``bodies``."""
        return {bid: i for i, bid in enumerate(self.body_ids)}

    @cached_property
    def _all(self) -> Bodies:
        """Every body's arrays, built once (`sight_bodies.suspects` picks each line's)."""
        return Bodies.of(self.given if len(self.given) or self.corners is None else None,
                         self.corners)

    @cached_property
    def _walls(self) -> Walls:
        return Walls.of(self.walls)

    @cached_property
    def _areas(self) -> Areas:
        return Areas.of(self.deep_areas, self.max_depth)

    def name(self, blocker: np.ndarray | Sequence[int]) -> str:
        """The id of the obstacle a `Trace.blocker` row names ("" when clear)."""
        kind, index = int(blocker[0]), int(blocker[1])
        if kind in (BODY, CORRIDOR):
            return self.body_ids[index]
        if kind == WALL:
            return self.wall_ids[index]
        if kind == DEPTH:
            return self.deep_area_ids[index]
        return ""

    def crosses(self, starts: np.ndarray, body: np.ndarray, ends: np.ndarray,
                group: np.ndarray) -> np.ndarray:
        """Whether each line, from ``starts[group[i]]`` to ``ends[i]``, surely crosses the
        body ``body[group[i]]`` (index into ``bodies``): a cheap certain test
        (`sight_bodies.surely_crosses`); False means "not sure"."""
        if not len(self.body_ids):
            return np.zeros(len(ends), dtype=bool)
        return surely_crosses(np.asarray(starts, dtype=float), np.asarray(body, dtype=np.int64),
                              self._all, np.asarray(ends, dtype=float), group)

    def trace(self, lines: Sightlines, todo: np.ndarray | None = None) -> Trace:
        """What blocks each line (of ``todo``, default all: the others come back CLEAR)."""
        n = len(lines.xy)
        kind = np.zeros(n, dtype=np.int8)
        index = np.full(n, -1, dtype=np.int64)
        todo = np.arange(n) if todo is None else np.asarray(todo, dtype=np.int64)
        if not len(todo):
            return Trace(kind, index)
        xy = np.asarray(lines.xy, dtype=float)
        widths = lines.widths
        if len(self.body_ids):
            hit, crossed = blocked(xy, widths, self._all,
                                   Rules(lines.never, lines.thin, lines.bodies_off),
                                   todo, lines.origin)
            on = (hit >= 0).nonzero()[0]
            kind[on] = np.where(crossed[on], BODY, CORRIDOR)
            index[on] = hit[on]
        rest = todo[kind[todo] == CLEAR]
        if not len(rest) or not (len(self.walls) or len(self.deep_areas)):
            return Trace(kind, index)
        rules = TerrainRules(lines.ends, lines.end_shapes, lines.uncounted)
        seg = xy.take(rest, axis=0)
        x, y = seg[..., 0], seg[..., 1]            # (numpy is slow across a short axis)
        box = (float(x.min()), float(y.min()), float(x.max()), float(y.max()))
        if len(self.walls) and _meets(self._walls.boxes, box, float(widths[rest].max())):
            wall = self._walls.blocking(seg, widths[rest], _rows(rules, rest))
            on = wall >= 0
            kind[rest[on]], index[rest[on]] = WALL, wall[on]
            rest = rest[~on]
        if len(rest) and len(self.deep_areas) and _meets(self._areas.boxes, box, 0.0):
            area = self._areas.blocking(xy.take(rest, axis=0), _rows(rules, rest))
            on = area >= 0
            kind[rest[on]], index[rest[on]] = DEPTH, area[on]
        return Trace(kind, index)


def _meets(boxes: list[list[float]], box: tuple[float, float, float, float],
           grow: float) -> bool:
    """Whether a piece's box (``boxes``: xmin, ymin, xmax, ymax) meets the lines' ``box``
    grown by ``grow``: if not, none is near. (Python floats: the pieces are a handful, fewer
    than a numpy call's cost.)"""
    x0, y0, x1, y1 = box[0] - grow, box[1] - grow, box[2] + grow, box[3] + grow
    return any(b[0] <= x1 and b[1] <= y1 and b[2] >= x0 and b[3] >= y0 for b in boxes)


def _rows(rules: TerrainRules, rows: np.ndarray) -> TerrainRules:
    """The terrain rules of lines ``rows`` only (their own numbering from 0)."""
    return TerrainRules(None if rules.ends is None else rules.ends[rows], rules.end_shapes,
                        [Keyed(k.rows[rows], k.table) for k in rules.uncounted])
