"""Line of sight for every shot of an analysis at once (ISD §6, A14–A18): the fast path of
`fire.line_of_sight`, with the same answers (tests/test_engine_properties.py).

The sight questions become arrays (per shooter: its origins, own bodies, corridor; per shot: its
target and what it fires over, the walls cut by its firer or target, the woods holding either),
and compiled code finds each shot's first sampled line that no base blocks and no terrain surely
blocks (`engine.geometry.sight_kernel`: crests and woods with GEOS's answers where it is sure).
The few lines it is not sure of meet GEOS (`SightField.clear_of_terrain`); the shots whose line
fails there walk on from the next line.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely

from campo.engine.rulesets.italia.board import GRAZE_MM, Board
from campo.engine.rulesets.italia.fire import (
    shooter_sight,
    fire_over_facts,
    FiredOver,
)

CELL_MM = 40.0   # grid cell: about a base's depth


def sight_many(board: Board, shooters: Sequence[str], shot_shooter: np.ndarray,
               shot_target: np.ndarray, ends: tuple[np.ndarray, np.ndarray]) -> np.ndarray | None:
    """Line of sight of each shot k, ``shooters[shot_shooter[k]]`` -> the base at index position
    ``shot_target[k]``, as a bool array, under ISD A14 "any line"; None when the bodies are not
    all rectangles (the caller then asks `SightField` line by line). ``ends``: the shots' sight
    line ends, `fire.sight_ends_flat` of the target parts (points, the shot each belongs to)."""
    # compiled on first use (a few seconds once per install, then cached): imported here so
    # that only analyses that trace sight lines pay numba's import
    from campo.engine.geometry.sight_kernel import every_unsure_line, first_clear_lines

    n = len(shot_shooter)
    field = board.sight_field
    if n == 0:
        return np.zeros(0, dtype=bool)
    if field.quads is None:
        return None
    firers = _Firers(board, list(shooters))
    shots = _Shots(board, firers, list(shooters), shot_shooter, shot_target)
    ends, end_owner = ends
    end_starts = np.zeros(n + 1, dtype=np.int64)   # owners are sorted shot numbers
    np.cumsum(np.bincount(end_owner, minlength=n)[:n], out=end_starts[1:])
    centres, radii = field.quad_circles
    grid = _grid(board, field.quads, float(firers.reach.max()))
    terrain = _TerrainQuestions(board, list(shooters), shot_shooter, shot_target)
    walk_terrain = terrain.kernel_terrain()
    n_origins = firers.origins.shape[1]

    def kernel_args(todo: np.ndarray, start: np.ndarray) -> tuple:
        return (firers.origins, ends, end_starts, shots.firer, shots.target, shots.touch_row,
                shots.reach, shots.ignore, todo, start, field.quads, centres, radii, firers.own,
                firers.near_own, shots.touch, firers.over, *grid, walk_terrain)

    def terrain_clear(todo: np.ndarray, line: np.ndarray) -> np.ndarray:
        origin = firers.origins[shots.firer[todo], line % n_origins]
        end = ends[end_starts[todo] + line // n_origins]
        return terrain.clear(np.stack([origin, end], axis=1), todo, shots.reach[todo])

    seen = np.zeros(n, dtype=bool)
    # each shot's first line clear of bases and not surely blocked by terrain (compiled);
    # the few lines whose terrain the walk is not sure of meet GEOS
    todo = np.arange(n, dtype=np.int64)
    line, unsure = first_clear_lines(*kernel_args(todo, np.zeros(n, dtype=np.int64)))
    seen[(line >= 0) & ~unsure] = True
    ask = np.nonzero((line >= 0) & unsure)[0]
    if not len(ask):
        return seen
    ok = terrain_clear(ask, line[ask])
    seen[ask[ok]] = True
    # the shots whose line GEOS blocked: their further lines up to one surely clear (compiled),
    # then GEOS on the unsure ones of them all in one batch (each line's verdict is its own)
    todo, start = ask[~ok], line[ask[~ok]] + 1
    if len(todo):
        rows, more, unsure = every_unsure_line(*kernel_args(todo, start))
        seen[todo[rows[~unsure]]] = True
        rows, more = rows[unsure], more[unsure]
        left = ~seen[todo[rows]]
        rows, more = rows[left], more[left]
        if len(rows):
            seen[todo[rows][terrain_clear(todo[rows], more)]] = True
    return seen


class _Firers:
    """Per shooter (row): its sight origins, its own bodies (its battery), the bodies touching
    its battery (they block only the line, not the 1" corridor), the bodies its rockets fire
    over, and its corridor half-width (ISD A18)."""

    def __init__(self, board: Board, ids: list[str]) -> None:
        body_of = board.sight_field.body_index
        nb = len(body_of)
        self.origins = _sight_origins_many(board, ids)
        self.own = np.zeros((len(ids), nb), dtype=bool)
        self.near_own = np.zeros((len(ids), nb), dtype=bool)
        self.over = np.zeros((len(ids), nb), dtype=bool)
        self.reach = np.zeros(len(ids))
        marks: dict[str, tuple[list[int], list[int]]] = {"own": ([], []), "near": ([], []),
                                                          "over": ([], [])}

        def mark(table: str, row: int, bases: object) -> None:
            rows, cols = marks[table]
            for i in bases:
                b = body_of.get(i)
                if b is not None:
                    rows.append(row)
                    cols.append(b)

        for r, s in enumerate(ids):
            if not board.infos[s].is_gun:   # `fire.shooter_sight` of a unit: itself, no corridor
                mark("own", r, {s, *board.front(s).members})
                continue
            mine, corridor, near = shooter_sight(board, s)
            mark("own", r, mine)
            self.reach[r] = corridor
            if corridor > 0:
                mark("near", r, near)
                if board.infos[s].rockets:
                    mark("over", r, fire_over_facts(board, s)[0])
        for table, name in ((self.own, "own"), (self.near_own, "near"), (self.over, "over")):
            table[marks[name]] = True


class _Shots:
    """Per shot: its firer's row, the target's body (-1: the target does not block sight), the
    corridor, what it fires over (`fire.FiredOver`) and, for corridor shots, the row of
    ``touch`` listing the bodies touching the target."""

    def __init__(self, board: Board, firers: _Firers, shooters: list[str],
                 shot_shooter: np.ndarray, shot_target: np.ndarray) -> None:
        body_of = board.sight_field.body_index
        names = board.state.index.ids
        n = len(shot_shooter)
        self.firer = np.asarray(shot_shooter, dtype=np.int64)
        body_at = np.array([body_of.get(i, -1) for i in names], dtype=np.int64)
        self.target = body_at[shot_target]
        self.reach = firers.reach[self.firer]
        wide = np.nonzero(self.reach > 0)[0]
        touched = np.unique(shot_target[wide])
        self.touch = np.zeros((max(1, len(touched)), len(body_of)), dtype=bool)
        rows: list[int] = []
        cols: list[int] = []
        for r, t in enumerate(touched.tolist()):
            for i in board.touching[names[t]]:
                b = body_of.get(i)
                if b is not None:
                    rows.append(r)
                    cols.append(b)
        self.touch[rows, cols] = True
        self.touch_row = np.full(n, -1, dtype=np.int64)
        self.ignore = np.zeros(n, dtype=np.int64)
        if len(wide):
            self.touch_row[wide] = np.searchsorted(touched, shot_target[wide])
            self.ignore[wide] = fired_over_kinds_at(
                board, board.positions(shooters)[self.firer[wide]], shot_target[wide])


def fired_over_kinds_at(board: Board, guns: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """`fire.fired_over_kind` of many (gun, target) shots given as index positions: each
    base's level and each gun's facts asked once (the facts only of guns firing at another
    level, as there)."""
    names = board.state.index.ids
    level = np.array([board.level(i) for i in names], dtype=np.int64)
    rockets = np.array([board.infos[i].rockets for i in names], dtype=bool)[guns]
    ask = np.nonzero(~rockets & (level[guns] != level[targets]))[0]
    asked = np.unique(guns[ask])
    calm = np.zeros(len(names), dtype=bool)    # no friend within 2" of the battery
    calm[asked] = [not fire_over_facts(board, names[g])[1] for g in asked.tolist()]
    kind = np.full(len(guns), FiredOver.NONE, dtype=np.int64)
    kind[rockets] = FiredOver.FRIENDS
    kind[ask[calm[guns[ask]]]] = FiredOver.EVERYTHING
    return kind


def _sight_origins_many(board: Board, ids: list[str]) -> np.ndarray:
    """`fire.sight_origins` of every shooter (n, 3, 2): the same float operations, in numpy."""
    rects = [board.rect(i) for i in ids]
    if not rects:
        return np.zeros((0, 3, 2))
    facts = np.array([(r.cx, r.cy, r.width, r.depth, *r.front, *r.right, *r.front_centre)
                      for r in rects])
    cx, cy, width, depth = facts[:, 0], facts[:, 1], facts[:, 2], facts[:, 3]
    front, right, centre = facts[:, 4:6], facts[:, 6:8], facts[:, 8:10]
    inset = 2 * GRAZE_MM
    v = depth / 2
    out = np.empty((len(rects), 3, 2))
    out[:, 0] = centre
    for o, u in ((1, -width / 2 + inset), (2, width / 2 - inset)):   # Rect.from_local(u, v)
        out[:, o, 0] = cx + u * right[:, 0] + v * front[:, 0]
        out[:, o, 1] = cy + u * right[:, 1] + v * front[:, 1]
    return out


def _grid(board: Board, quads: np.ndarray, reach: float
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bodies' cell grid, built once per board and widest corridor."""
    from campo.engine.geometry.sight_kernel import build_grid

    cache = board.__dict__.setdefault("_sight_grid", {})
    if reach not in cache:
        cache[reach] = build_grid(quads, reach, CELL_MM)
    return cache[reach]


class _TerrainQuestions:
    """The terrain parts of the shots' sight questions (`fire.sight_query`), as arrays: crests
    count only strictly between firer and target (ISD A16), and the depth of woods or towns
    holding either centre does not count when ISD A15 says so."""

    def __init__(self, board: Board, shooters: list[str], shot_shooter: np.ndarray,
                 shot_target: np.ndarray) -> None:
        self.board = board
        names = board.state.index.ids
        self.shooter_at = board.positions(shooters)[shot_shooter]
        self.target_at = shot_target
        self.field = board.sight_field
        self.uncounted: np.ndarray | None = None
        self.holding: np.ndarray | None = None   # (base, area): the area holds its centre
        areas = self.field.deep_area_ids
        if not board.settings.a15_area_depth_counts_own and areas and names:
            # base -> the areas covering its centre (`fire.areas_holding_centre`)
            rects = [board.rect(i) for i in names]
            centres = shapely.points([(r.cx, r.cy) for r in rects])
            holding = np.stack([shapely.covers(area, centres) for area in self.field.deep_areas],
                               axis=1)
            if holding.any():
                self.holding = holding
                self.uncounted = holding[self.shooter_at] | holding[self.target_at]
        self.strictly_between = board.settings.a16_crest_blocks == "strictly_between"

    def _ends(self, shots: np.ndarray) -> list[np.ndarray]:
        """The firer and the target of each shot, as the two parts of its ends (None: crests
        count everywhere)."""
        if not self.strictly_between:
            return [np.full(len(shots), None, dtype=object)]
        polygon = self.board.state.index.shapes
        return [polygon[self.shooter_at[shots]], polygon[self.target_at[shots]]]

    def kernel_terrain(self) -> tuple:
        """These questions' terrain as the compiled walk reads it (`SightField.kernel_terrain`)."""
        ends = np.stack([self.shooter_at, self.target_at], axis=1)
        bases = self.board.state.index.shapes if self.strictly_between else None
        return self.field.kernel_terrain(ends, bases, self.holding)

    def clear(self, lines: np.ndarray, shots: np.ndarray, widths: np.ndarray) -> np.ndarray:
        return self.field.clear_of_terrain(lines, widths, shots, self._ends, self.uncounted, shots)
